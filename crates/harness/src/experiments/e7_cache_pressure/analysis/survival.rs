//! The survival probe and its calibration: where a node's table lines are after P pressure
//! reads (the estimate itself is the experiment's `survival` module); its series, tables, plot,
//! summary values, method text and sentence.

use crate::experiments::e7_cache_pressure::measure::{Calibration, Measurement, SURVIVAL_LEVELS};
use crate::experiments::e7_cache_pressure::survival::{
    fractions, Classes, Fractions, HELD_OUT_MIN, MERGE_BELOW_TV, NULL_FIRST_CLASS,
};
use crate::experiments::{and_list, series};
use crate::results::{Plot, PlotKind, PlotLine, Point, Series, Table};
use crate::stats::{format_sig, Estimate};
use kiki_core::units::rounded_bytes;
use serde_json::{json, Map, Value as Json};

/// The share of a node's table lines that must lie beyond L2 after the chain sweep's top
/// pressure, by the whole interval, for the top to count as evicting. Fixed before the data: a
/// search's evaluation pushes the tables out only where most of a node's lines are gone.
pub const EVICTS_BEYOND_L2: f64 = 0.5;

/// The classes the survival loads are sorted into (from the calibration), and the fractions.
pub struct Survival {
    pub classes: Option<Classes>,
    /// Survival fractions per pressure count, per class, with intervals.
    pub fractions: Vec<Fractions>,
}

/// How the calibration placed a line in each level, as the table and the method say it.
fn placement(c: &Calibration) -> [String; 4] {
    [
        "loaded just before".to_string(),
        format!(
            "loaded, then {} read (2× the effective L1)",
            rounded_bytes(c.l2_evict_bytes as f64)
        ),
        format!(
            "loaded, then {} read (2× the effective L2)",
            rounded_bytes(c.ll_evict_bytes as f64)
        ),
        match c.memory_evict_bytes {
            None => "flushed (`clflush`, `mfence`)".to_string(),
            Some(bytes) => format!("{} read (4× the effective LL)", rounded_bytes(bytes as f64)),
        },
    ]
}

/// Every timed single load of the probe (in invocation blocks, not rounds), then the
/// calibration's per level.
pub fn raw_series(m: &Measurement) -> Vec<Series> {
    let backend = m.survival_backend.unwrap_or("");
    let mut out: Vec<Series> = m
        .survival
        .iter()
        .map(|(reads, reloads)| {
            series(
                &[
                    ("part", "survival"),
                    ("case", backend),
                    ("pressure_reads", &reads.to_string()),
                ],
                "ns/load",
                reloads.ns.clone(),
            )
        })
        .collect();
    if let Some(c) = &m.calibration {
        for (level, loads) in SURVIVAL_LEVELS.iter().zip(&c.loads) {
            out.push(series(
                &[
                    ("part", "survival calibration"),
                    ("case", backend),
                    ("level", level),
                ],
                "ns/load",
                loads.ns.clone(),
            ));
        }
    }
    out
}

/// The survival probe and its calibration, for the method paragraph.
pub fn method(m: &Measurement) -> String {
    let Some(backend) = m.survival_backend else {
        return "Survival probe: not run.".to_string();
    };
    let mut text = format!(
        "Survival probe ({backend}): per node its lookups once (bringing their table lines in), \
         P pressure reads (P = 0, then 8 × 4^k up to the first count that inserts 4× the \
         effective last level), then one timed load of each distinct table line the lookups \
         read (named by `attack_table_offsets`): a single byte load between serialising time \
         stamps (`lfence; rdtscp; lfence`), each waiting on the one before."
    );
    if let Some(c) = &m.calibration {
        let placement = placement(c);
        text.push_str(&format!(
            " Its calibration times the same load with the same wrapper: {} loads per level, \
             each of a different random line of {backend}'s own attack tables ({}), the line \
             placed in L1 ({}), in L2 ({}), in the LL ({}) or in memory ({}), the levels taking \
             turns; medians {} / {} / {} / {} ns. The time stamp advances in steps of {} ns \
             here (the greatest common divisor of the timed loads' ticks), so levels closer \
             than a step read mostly the same. Where the lines are is therefore estimated over \
             all of a count's loads, not load by load: the fractions are the mixture weights \
             under which the calibrated levels' load-time distributions (binned at the step, \
             everything from the LL–memory midpoint in one bin) best explain the probe's loads \
             (maximum likelihood, by EM), with 95 % intervals from a bootstrap over \
             invocations, then loads, calibration and probe resampled together. From L1 up, \
             each level joins the class before it when its distribution lies within a total \
             variation of {MERGE_BELOW_TV} of that class's pooled distribution (a load's time \
             cannot tell them apart); the table gives each level's distance to the next alone. \
             The probe's lines were read once, one node before: a line the walk reuses often \
             can fare differently under a replacement policy that is not LRU. The fractions are \
             findings when each class's held-out calibration loads (the odd ones, estimated \
             with distributions from the even ones) come out at least {:.0} % as that class, \
             and when at P = 0, whose lines were read just before (in L1 by construction), at \
             least {:.0} % come out in the first class.",
            c.samples,
            rounded_bytes(c.target_bytes as f64),
            placement[0],
            placement[1],
            placement[2],
            placement[3],
            format_sig(c.medians[0]),
            format_sig(c.medians[1]),
            format_sig(c.medians[2]),
            format_sig(c.medians[3]),
            format_sig(c.step_ns),
            HELD_OUT_MIN * 100.0,
            NULL_FIRST_CLASS * 100.0,
        ));
    }
    text
}

impl Survival {
    pub fn of(m: &Measurement) -> Survival {
        let classes = m.calibration.as_ref().map(Classes::of);
        let fractions = match (&classes, &m.calibration) {
            (Some(classes), Some(c)) => fractions(classes, c, &m.survival),
            _ => Vec::new(),
        };
        Survival { classes, fractions }
    }

    /// The classes, where there are fractions to show.
    fn shown(&self) -> Option<&Classes> {
        self.classes.as_ref().filter(|_| !self.fractions.is_empty())
    }

    /// Whether the survival fractions are findings: the classes pass their held-out check and
    /// the null test (P = 0, the lines just read, come out at least [`NULL_FIRST_CLASS`] in the
    /// first class).
    pub fn resolved(&self) -> bool {
        let null = self
            .fractions
            .iter()
            .find(|f| f.reads == 0)
            .and_then(|f| f.share.first().copied());
        self.classes.as_ref().is_some_and(Classes::held_out_pass)
            && null.is_some_and(|share| share >= NULL_FIRST_CLASS)
    }

    pub fn plot(&self, m: &Measurement) -> Option<Plot> {
        let classes = self.shown()?;
        Some(Plot {
            file_stem: "e7_survival".into(),
            title: format!(
                "Where {}'s table lines are after P pressure reads",
                m.survival_backend.unwrap_or("?")
            ),
            x_label: "pressure reads P since the node's lookups (0 drawn at 4)".into(),
            y_label: "fraction of the node's table lines".into(),
            log_x: true,
            log_y: false,
            kind: PlotKind::Line,
            categories: Vec::new(),
            markers: Vec::new(),
            lines: (0..classes.members.len())
                .map(|k| PlotLine {
                    name: classes.name(k),
                    points: self
                        .fractions
                        .iter()
                        .map(|f| Point {
                            x: f.reads.max(4) as f64,
                            y: f.share[k],
                            y_low: f.low[k],
                            y_high: f.high[k],
                        })
                        .collect(),
                })
                .collect(),
        })
    }

    /// The fractions by pressure count, then the calibration.
    pub fn tables(&self, m: &Measurement) -> Vec<Table> {
        let mut out = Vec::new();
        if let Some(classes) = self.shown() {
            let mut headers = vec!["pressure reads P".into(), "bytes inserted".into()];
            headers.extend(classes.names());
            headers.push("timed loads".into());
            let rows = self.fractions.iter().map(|f| {
                let mut row = vec![f.reads.to_string(), rounded_bytes(f.reads as f64 * 64.0)];
                row.extend((0..f.share.len()).map(|k| percent(f, k)));
                row.push(f.loads.to_string());
                row
            });
            out.push(Table {
                headers,
                rows: rows.collect(),
            });
        }
        if let (Some(c), Some(classes)) = (&m.calibration, &self.classes) {
            out.push(calibration_table(c, classes));
        }
        out
    }

    /// `survival`, `survival_resolved` and `survival_calibration`.
    pub fn summary(&self, m: &Measurement) -> Vec<(String, Json)> {
        let points: Vec<Json> = match &self.classes {
            Some(classes) => self
                .fractions
                .iter()
                .map(|f| fractions_json(classes, f))
                .collect(),
            None => Vec::new(),
        };
        let calibration = match (&m.calibration, &self.classes) {
            (Some(c), Some(classes)) => json!({
                "l1_ns": c.medians[0],
                "l2_ns": c.medians[1],
                "ll_ns": c.medians[2],
                "memory_ns": c.medians[3],
                "samples": c.samples,
                "clock_step_ns": c.step_ns,
                "neighbour_total_variation": classes.neighbour_tv,
                "merge_below_total_variation": MERGE_BELOW_TV,
                "classes": classes.names(),
                "held_out": classes.held_out,
                "held_out_pass": classes.held_out_pass(),
                "resolved": self.resolved(),
            }),
            _ => Json::Null,
        };
        vec![
            ("survival".into(), Json::Array(points)),
            ("survival_resolved".into(), json!(self.resolved())),
            ("survival_calibration".into(), calibration),
        ]
    }

    /// The survival finding: where the lines are at P = 0, at the chain sweep's top P and at
    /// the largest P, or why the classes are not findings here.
    pub fn sentence(&self, m: &Measurement, top_reads: u32) -> Option<String> {
        let classes = self.classes.as_ref()?;
        let first = self.fractions.first()?;
        let last = self.fractions.last()?;
        let backend = m.survival_backend.unwrap_or("?");
        let names = classes.names();
        let merged = merged_text(m, classes, &names);
        if !self.resolved() {
            return Some(unresolved_text(classes, first, &names, &merged));
        }
        let at = |f: &Fractions| shares_text(f, &names);
        let mut text = format!(
            "Survival of {backend}'s table lines (classes {}{merged}): right after the node's \
             own lookups {}",
            names.join(" / "),
            at(first)
        );
        if let Some(mid) = self
            .fractions
            .iter()
            .find(|f| f.reads == top_reads && f.reads > 0)
        {
            text.push_str(&format!(
                "; after {} pressure reads (≈ {} inserted, the top of the chain sweep) {}",
                mid.reads,
                rounded_bytes(mid.reads as f64 * 64.0),
                at(mid)
            ));
        }
        text.push_str(&format!(
            "; after {} reads (≈ {} inserted) {}.",
            last.reads,
            rounded_bytes(last.reads as f64 * 64.0),
            at(last)
        ));
        let memory = names.len() - 1;
        if let Some(half) = self.fractions.iter().find(|f| f.share[memory] >= 0.5) {
            text.push_str(&format!(
                " Half the lines or more are in {} from {} reads per node (≈ {} inserted) on.",
                names[memory],
                half.reads,
                rounded_bytes(half.reads as f64 * 64.0)
            ));
        }
        Some(text)
    }

    /// Does the chain sweep's top pressure evict? By the survival probe: the share of a node's
    /// table lines beyond L2 after `top` reads, against [`EVICTS_BEYOND_L2`].
    pub fn evicts_sentence(&self, m: &Measurement, top: u32) -> Option<String> {
        let backend = m.survival_backend?;
        if top == 0 {
            return None;
        }
        let rule = format!(
            "the rule asks more than {:.0} % of a node's table lines beyond L2 by the whole \
             interval",
            EVICTS_BEYOND_L2 * 100.0
        );
        let at_top = self.fractions.iter().find(|f| f.reads == top);
        let undecided = |why: &str| {
            Some(format!(
                "Whether the top pressure (P = {top}) evicts is not decided here: {why} ({rule})."
            ))
        };
        if !self.resolved() {
            return undecided("the survival probe's classes are not findings on this run");
        }
        let Some(f) = at_top else {
            return undecided(&format!("the survival probe did not run at P = {top}"));
        };
        let Some(b) = f.beyond_l2 else {
            return undecided("the probe's load times cannot tell L2 from the LL here");
        };
        let measured = format!(
            "after {top} reads per node (≈ {} inserted), {:.0} % ({:.0}–{:.0} %) of {backend}'s \
             table lines read by a node are beyond L2",
            rounded_bytes(top as f64 * 64.0),
            b.value * 100.0,
            b.low * 100.0,
            b.high * 100.0
        );
        Some(match evicts(&b) {
            Some(true) => format!(
                "The top pressure evicts a node's own lines on this CPU: {measured} ({rule})."
            ),
            Some(false) => format!(
                "**The top pressure does not evict a node's own lines on this CPU**: {measured} \
                 ({rule}): a node's table lines survive one node's pressure in L1 or L2. The \
                 probe re-reads the same node's lines, so this says nothing of lines reused \
                 further apart, which the rise of the costs with P shows do leave the caches."
            ),
            None => {
                format!("Whether the top pressure evicts is not decided here: {measured} ({rule}).")
            }
        })
    }
}

/// The rule on the share of lines beyond L2: evicts (the whole interval above
/// [`EVICTS_BEYOND_L2`]), does not (the whole interval below), or undecided.
fn evicts(beyond_l2: &Estimate) -> Option<bool> {
    if beyond_l2.low > EVICTS_BEYOND_L2 {
        Some(true)
    } else if beyond_l2.high < EVICTS_BEYOND_L2 {
        Some(false)
    } else {
        None
    }
}

/// One pressure count's fractions for the summary.
fn fractions_json(classes: &Classes, f: &Fractions) -> Json {
    let mut point = Map::new();
    point.insert("pressure_reads".into(), json!(f.reads));
    // Each level's own key holds its class's share when the class is that level alone, and
    // null when it is merged with a neighbour.
    for (level, key) in SURVIVAL_LEVELS.iter().zip(["l1", "l2", "ll", "memory"]) {
        let alone = classes
            .members
            .iter()
            .position(|m| m.len() == 1 && SURVIVAL_LEVELS[m[0]] == *level);
        point.insert(key.into(), alone.map_or(Json::Null, |k| json!(f.share[k])));
    }
    let classes_json: Vec<Json> = (0..f.share.len())
        .map(|k| {
            json!({
                "class": classes.name(k),
                "levels": classes.members[k].iter().map(|&l| SURVIVAL_LEVELS[l]).collect::<Vec<_>>(),
                "fraction": f.share[k],
                "low": f.low[k],
                "high": f.high[k],
            })
        })
        .collect();
    point.insert("classes".into(), Json::Array(classes_json));
    if let Some(b) = &f.beyond_l2 {
        point.insert(
            "beyond_l2".into(),
            json!({"fraction": b.value, "low": b.low, "high": b.high}),
        );
    }
    point.insert("loads".into(), json!(f.loads));
    Json::Object(point)
}

/// Which levels were merged into one class and why, as a parenthesis (empty when none were).
fn merged_text(m: &Measurement, classes: &Classes, names: &[String]) -> String {
    let merged: Vec<String> = classes
        .members
        .iter()
        .enumerate()
        .filter(|(_, levels)| levels.len() > 1)
        .map(|(k, levels)| {
            let distances: Vec<String> = levels
                .windows(2)
                .map(|pair| format!("{:.2}", classes.neighbour_tv[pair[0]]))
                .collect();
            format!(
                "{} are one class here: their timed loads differ by a total variation of only {}",
                names[k],
                distances.join(" and ")
            )
        })
        .collect();
    if merged.is_empty() {
        String::new()
    } else {
        format!(
            " ({}, with the time stamp's {} ns step)",
            and_list(&merged),
            format_sig(m.calibration.as_ref().map_or(f64::NAN, |c| c.step_ns))
        )
    }
}

/// Class `k`'s share and its interval: `12 % [10–14]`.
fn percent(f: &Fractions, k: usize) -> String {
    let (share, low, high) = (f.share[k] * 100.0, f.low[k] * 100.0, f.high[k] * 100.0);
    format!("{share:.0} % [{low:.0}–{high:.0}]")
}

/// A count's shares, class by class: `12 % [10–14] in L1, …`.
fn shares_text(f: &Fractions, names: &[String]) -> String {
    and_list(
        &(0..f.share.len())
            .map(|k| {
                format!(
                    "{} {}",
                    percent(f, k),
                    if k + 1 == f.share.len() && names[k] == "memory" {
                        "in memory".to_string()
                    } else {
                        format!("in {}", names[k])
                    }
                )
            })
            .collect::<Vec<_>>(),
    )
}

/// Why the fractions are not findings: the classes failing their held-out check, and the null
/// test where it fails.
fn unresolved_text(classes: &Classes, first: &Fractions, names: &[String], merged: &str) -> String {
    let mut why: Vec<String> = classes
        .held_out
        .iter()
        .enumerate()
        .filter(|(_, &share)| share.is_nan() || share < HELD_OUT_MIN)
        .map(|(k, share)| {
            format!(
                "{}'s held-out loads come out only {:.0} % as {}",
                names[k],
                share * 100.0,
                names[k]
            )
        })
        .collect();
    let null = first.share.first().copied().unwrap_or(f64::NAN);
    if first.reads == 0 && (null.is_nan() || null < NULL_FIRST_CLASS) {
        why.push(format!(
            "at P = 0, with every line just read, only {:.0} % come out in {}",
            null * 100.0,
            names[0]
        ));
    }
    format!(
        "**The survival fractions are not findings on this machine**: {} (at least {:.0} % is \
         required){merged}.",
        and_list(&why),
        HELD_OUT_MIN.min(NULL_FIRST_CLASS) * 100.0
    )
}

/// The survival classes' calibration: per level, how its lines were placed, its timed loads'
/// median, its distance from the next level and the class it falls in with that class's
/// held-out check; then the clock step.
fn calibration_table(c: &Calibration, classes: &Classes) -> Table {
    let placement = placement(c);
    let mut table = Table {
        headers: vec![
            "survival calibration: line in".into(),
            "placed by".into(),
            "timed loads".into(),
            "median ns".into(),
            "mean ns".into(),
            "distance to the next level (total variation)".into(),
            "class (held-out loads estimated as it)".into(),
        ],
        rows: Vec::new(),
    };
    for (i, level) in SURVIVAL_LEVELS.iter().enumerate() {
        let class = classes
            .members
            .iter()
            .position(|levels| levels.contains(&i))
            .unwrap_or(0);
        let ns = &c.loads[i].ns;
        let mean = ns.iter().sum::<f64>() / ns.len().max(1) as f64;
        table.rows.push(vec![
            level.to_string(),
            placement[i].clone(),
            ns.len().to_string(),
            format_sig(c.medians[i]),
            format_sig(mean),
            classes
                .neighbour_tv
                .get(i)
                .map_or("—".into(), |tv| format!("{tv:.2}")),
            format!(
                "{} ({:.0} %)",
                classes.name(class),
                classes.held_out.get(class).copied().unwrap_or(f64::NAN) * 100.0
            ),
        ]);
    }
    table.rows.push(vec![
        "clock step".into(),
        "the time stamp's step: the greatest common divisor of the timed loads' ticks".into(),
        "—".into(),
        format_sig(c.step_ns),
        "—".into(),
        "—".into(),
        format!(
            "bins of {} ns, one bin from {} ns",
            format_sig(classes.binning.width),
            format_sig(classes.binning.far_ns)
        ),
    ]);
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_top_evicts_only_where_most_lines_are_beyond_l2_by_the_whole_interval() {
        let share = |value, low, high| Estimate { value, low, high };
        assert_eq!(evicts(&share(0.9, 0.6, 1.0)), Some(true));
        assert_eq!(
            evicts(&share(0.005, 0.0, 0.063)),
            Some(false),
            "the Intel -27-6 P = 512"
        );
        assert_eq!(
            evicts(&share(0.14, 0.014, 0.294)),
            Some(false),
            "the AMD -26-6 P = 512"
        );
        assert_eq!(evicts(&share(0.6, 0.4, 0.8)), None);
    }
}
