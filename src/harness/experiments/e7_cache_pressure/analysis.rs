//! E7's analysis: table-miss costs (paired real − hot twin), the controls, the dose–response,
//! the survival fractions, the table-page split, the bracket and the seed-004 verdict, as
//! series, plots, tables, summary values and the numbers the findings quote.

use super::measure::{
    attack_table_bytes, dose_case, mask_label, Calibration, Chain, Measurement, DOSE_MASKS,
    SURVIVAL_LEVELS,
};
use super::{
    EVAL_ALONE, HOT_MASK, NEGATIVE_BOUND_NS, NEGATIVE_CONTROLS, POSITIVE_TOLERANCE, SYNTHETIC,
};
use crate::harness::experiments::{interval_linear, interval_point, series, typical, Claims};
use crate::harness::results::{Plot, PlotKind, PlotLine, Series, Table};
use crate::harness::stats::{format_interval, format_sig, Claim, Comparison, Estimate};
use crate::units::rounded_bytes;
use serde_json::{json, Map, Value as Json};

/// E7's series, plots, tables, summary and claims, and the numbers the findings quote.
pub(super) struct Analysis {
    pub series: Vec<Series>,
    pub plots: Vec<Plot>,
    pub tables: Vec<Table>,
    pub summary: Vec<(String, Json)>,
    pub claims: Claims,
    pub numbers: Numbers,
}

/// What the findings quote.
pub(super) struct Numbers {
    /// Pressure reads per node at the top of the sweep, and the bytes that inserts.
    pub top_reads: u32,
    /// Per backend: its attack-table bytes and its table-miss cost at each pressure.
    pub costs: Vec<BackendCosts>,
    /// Negative controls at the top pressure: backend, cost, pass.
    pub negative: Vec<(String, Estimate, bool)>,
    /// The positive control at no pressure: cost, expected, pass.
    pub positive: Option<(Estimate, f64, bool)>,
    /// Per backend with big tables: cost per masked footprint (bytes) at the top pressure.
    pub dose: Vec<(String, Vec<(usize, Estimate)>)>,
    /// Survival fractions per pressure count: (P, [L1, L2, LL, memory]).
    pub survival: Vec<(u32, [f64; 4])>,
    /// The base the reloads' extra time is taken over: the hot twin's median at P = 0.
    pub survival_base: Option<f64>,
    /// The table-page split per backend.
    pub pages: Vec<PageSplit>,
    /// The bracket per backend: marginal cost at E = 0 and at E = the pressure buffer.
    pub bracket: Vec<(String, Estimate, Estimate)>,
    /// magic-plain − dbb table-miss cost at the top pressure, and magic-plain's time against
    /// dbb's there and with no pressure.
    pub verdict: Verdict,
}

/// One backend's attack-table bytes and its table-miss cost at each pressure count.
pub(super) type BackendCosts = (String, usize, Vec<(u32, Estimate)>);

/// One backend's table-miss cost with its tables on 4 KiB and on 2 MiB pages (pressure on huge
/// pages), and what the collapse did.
pub(super) struct PageSplit {
    pub backend: String,
    pub small: Estimate,
    pub huge: Estimate,
    /// The same two with the pressure buffer on 4 KiB pages.
    pub small_small_pressure: Option<Estimate>,
    pub huge_small_pressure: Option<Estimate>,
    /// Huge-page bytes of the tables before and after the collapse, where smaps says.
    pub before: Option<usize>,
    pub after: Option<usize>,
    pub table_bytes: usize,
    /// Why the collapse failed, if it did.
    pub error: Option<String>,
}

pub(super) struct Verdict {
    pub difference: Option<Estimate>,
    pub unpressed: Option<Comparison>,
    pub text: String,
}

/// Per-round table-miss cost: the case with `mask` minus its hot twin, ns per lookup.
fn paired(
    chains: &[Chain],
    part: &str,
    reads: u32,
    case: &str,
    mask: &str,
    tables: &str,
    pressure: &str,
) -> Option<Estimate> {
    let find = |mask: &str| {
        chains.iter().find(|c| {
            c.part == part
                && c.reads == reads
                && c.case == case
                && c.mask == mask
                && c.tables == tables
                && c.pressure == pressure
        })
    };
    let (real, twin) = (&find(mask)?.ns, &find(&mask_label(HOT_MASK))?.ns);
    if real.len() != twin.len() || real.is_empty() {
        return None;
    }
    let differences: Vec<f64> = real.iter().zip(twin).map(|(a, b)| a - b).collect();
    let estimate = interval_linear(&differences);
    (!estimate.value.is_nan()).then_some(estimate)
}

fn full() -> String {
    mask_label(usize::MAX)
}

fn cost(m: &Measurement, reads: u32, case: &str) -> Option<Estimate> {
    paired(&m.chains, "chain", reads, case, &full(), "as built", "huge")
}

fn chain_ns<'a>(m: &'a Measurement, reads: u32, case: &str) -> Option<&'a [f64]> {
    m.chains
        .iter()
        .find(|c| c.part == "chain" && c.reads == reads && c.case == case && c.mask == full())
        .map(|c| c.ns.as_slice())
}

/// Misses per lookup to three significant digits (`0.0123`, `1.50`, `12.3`).
pub(super) fn per_lookup(x: f64) -> String {
    if !x.is_finite() || x <= 0.0 {
        return format!("{x}");
    }
    let decimals = (2 - x.log10().floor() as i32).max(0) as usize;
    format!("{x:.decimals$}")
}

/// The x position of a pressure count on the log axis (P = 0 drawn one step left of the first).
fn pressure_x(reads: u32) -> f64 {
    if reads == 0 {
        128.0
    } else {
        reads as f64 * 64.0
    }
}

pub(super) fn analyse(m: &Measurement) -> Analysis {
    let top_reads = m.pressure_reads.last().copied().unwrap_or(0);
    let mut claims = Claims::new(m.threshold);
    let costs: Vec<BackendCosts> = m
        .backends
        .iter()
        .map(|&name| {
            let points = m
                .pressure_reads
                .iter()
                .filter_map(|&reads| cost(m, reads, name).map(|e| (reads, e)))
                .collect();
            (name.to_string(), attack_table_bytes(name), points)
        })
        .collect();
    let negative: Vec<(String, Estimate, bool)> = m
        .backends
        .iter()
        .filter(|name| NEGATIVE_CONTROLS.contains(name))
        .filter_map(|&name| {
            let e = cost(m, top_reads, name)?;
            let pass = e.low >= -NEGATIVE_BOUND_NS && e.high <= NEGATIVE_BOUND_NS;
            Some((name.to_string(), e, pass))
        })
        .collect();
    let expected = m.levels.latency_at(m.synthetic_bytes) - m.levels.latency_at(HOT_MASK + 1);
    let positive = cost(m, 0, SYNTHETIC).map(|e| {
        let pass = (e.value - expected).abs() <= POSITIVE_TOLERANCE * expected;
        (e, expected, pass)
    });
    let dose: Vec<(String, Vec<(usize, Estimate)>)> = m
        .backends
        .iter()
        .filter_map(|&name| {
            let table = attack_table_bytes(name);
            let mut points: Vec<(usize, Estimate)> = DOSE_MASKS
                .iter()
                .filter(|&&mask| mask + 1 < table)
                .filter_map(|&mask| {
                    paired(
                        &m.chains,
                        "chain",
                        top_reads,
                        &dose_case(name, mask),
                        &mask_label(mask),
                        "as built",
                        "huge",
                    )
                    .map(|e| (mask + 1, e))
                })
                .collect();
            if points.is_empty() {
                return None;
            }
            points.push((table, cost(m, top_reads, name)?));
            Some((name.to_string(), points))
        })
        .collect();
    let survival_base = survival_base(m);
    let survival = survival_fractions(m, survival_base);
    let pages = m
        .table_pages
        .iter()
        .filter_map(|t| {
            let at = |tables: &str, pressure: &str| {
                paired(
                    &m.chains,
                    "pages",
                    top_reads.max(1),
                    t.backend,
                    &full(),
                    tables,
                    pressure,
                )
            };
            Some(PageSplit {
                backend: t.backend.to_string(),
                small: at("4k", "huge")?,
                huge: at("huge", "huge")?,
                small_small_pressure: at("4k", "4k"),
                huge_small_pressure: at("huge", "4k"),
                before: t.huge_before,
                after: t.huge_after,
                table_bytes: t.table_bytes,
                error: t.collapse.clone().err(),
            })
        })
        .collect();
    let bracket = bracket_costs(m);
    let verdict = verdict(m, top_reads, &mut claims);
    let numbers = Numbers {
        top_reads,
        costs,
        negative,
        positive,
        dose,
        survival,
        survival_base,
        pages,
        bracket,
        verdict,
    };
    Analysis {
        series: raw_series(m),
        plots: plots(m, &numbers),
        tables: tables(m, &numbers),
        summary: summary(m, &numbers),
        claims,
        numbers,
    }
}

/// The hot twin's median reload at P = 0: the probed lookup with all its lines in L1.
fn survival_base(m: &Measurement) -> Option<f64> {
    m.survival
        .iter()
        .find(|(reads, _, twin)| *reads == 0 && !twin.is_empty())
        .map(|(_, _, twin)| typical(twin))
        .filter(|base| base.is_finite())
}

/// Survival fractions: each real reload's extra time over the hot twin's median at P = 0,
/// classified by the calibrated bounds (none without a calibration or a base).
fn survival_fractions(m: &Measurement, base: Option<f64>) -> Vec<(u32, [f64; 4])> {
    let (Some(calibration), Some(base)) = (&m.calibration, base) else {
        return Vec::new();
    };
    let bounds = survival_bounds(calibration);
    m.survival
        .iter()
        .filter(|(_, real, _)| !real.is_empty())
        .map(|(reads, real, _)| {
            let mut counts = [0usize; 4];
            for &ns in real {
                let extra = ns - base;
                let level = bounds.iter().take_while(|&&b| extra > b).count();
                counts[level.min(3)] += 1;
            }
            let n = real.len() as f64;
            (*reads, counts.map(|c| c as f64 / n))
        })
        .collect()
}

/// The extra-latency bounds between L1 | L2 | LL | memory: the midpoints between neighbouring
/// levels' calibrated medians, minus the calibrated L1 median (extra latency above an L1 hit).
pub(super) fn survival_bounds(c: &Calibration) -> [f64; 3] {
    let [l1, l2, ll, memory] = c.medians;
    [
        (l1 + l2) / 2.0 - l1,
        (l2 + ll) / 2.0 - l1,
        (ll + memory) / 2.0 - l1,
    ]
}

/// The calibration's self-check: it passes when its medians increase strictly L1 < L2 < LL <
/// memory. The neighbouring levels whose medians do not (empty when it passes).
pub(super) fn calibration_coincide(c: &Calibration) -> Vec<(&'static str, &'static str)> {
    (0..3)
        .filter(|&i| {
            c.medians[i + 1].partial_cmp(&c.medians[i]) != Some(std::cmp::Ordering::Greater)
        })
        .map(|i| (SURVIVAL_LEVELS[i], SURVIVAL_LEVELS[i + 1]))
        .collect()
}

/// How the calibration placed a line in each level, as the table and the method say it.
pub(super) fn calibration_placement(c: &Calibration) -> [String; 4] {
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

/// The bracket's marginal cost per lookup: (backend − evaluation alone) per round, at E = 0 and
/// at E = the pressure buffer.
fn bracket_costs(m: &Measurement) -> Vec<(String, Estimate, Estimate)> {
    let marginal = |bytes: usize, name: &str| {
        let find = |case: &str| {
            m.bracket
                .iter()
                .find(|b| b.bytes == bytes && b.case == case)
        };
        let (with, alone) = (&find(name)?.ns, &find(EVAL_ALONE)?.ns);
        if with.len() != alone.len() || with.is_empty() {
            return None;
        }
        let d: Vec<f64> = with.iter().zip(alone).map(|(a, b)| a - b).collect();
        Some(interval_linear(&d))
    };
    m.backends
        .iter()
        .filter_map(|&name| {
            Some((
                name.to_string(),
                marginal(0, name)?,
                marginal(m.pressure_bytes, name)?,
            ))
        })
        .collect()
}

/// Seed 004's verdict: magic-plain against dbb, from the isolated table-miss cost at the top
/// pressure and their times there and without pressure.
fn verdict(m: &Measurement, top: u32, claims: &mut Claims) -> Verdict {
    let (big, small) = ("magic-plain", "dbb");
    let have = m.backends.contains(&big) && m.backends.contains(&small);
    let none = |text: &str| Verdict {
        difference: None,
        unpressed: None,
        text: text.to_string(),
    };
    if !have {
        return none("not measured: needs magic-plain and dbb");
    }
    let difference = (|| {
        let real = |name| chain_ns(m, top, name);
        let twin = |name| {
            m.chains
                .iter()
                .find(|c| {
                    c.part == "chain"
                        && c.reads == top
                        && c.case == name
                        && c.mask == mask_label(HOT_MASK)
                })
                .map(|c| c.ns.as_slice())
        };
        let (a, at, b, bt) = (real(big)?, twin(big)?, real(small)?, twin(small)?);
        let n = a.len().min(at.len()).min(b.len()).min(bt.len());
        let d: Vec<f64> = (0..n).map(|i| (a[i] - at[i]) - (b[i] - bt[i])).collect();
        Some(interval_linear(&d))
    })();
    let compare = |claims: &mut Claims, reads: u32| {
        let cell = format!("chain, {reads} pressure reads per node");
        claims.compare(
            &cell,
            (big, chain_ns(m, reads, big)?),
            (small, chain_ns(m, reads, small)?),
        )
    };
    let unpressed = compare(claims, 0);
    let at_top = compare(claims, top);
    let inserted = rounded_bytes(top as f64 * 64.0);
    let percent = crate::harness::experiments::percent(m.threshold);
    let ratio = |c: &Comparison| format!("×{:.2} [{:.2}–{:.2}]", c.ratio, c.low, c.high);
    let text = match (&difference, &at_top, &unpressed) {
        (Some(d), Some(top_c), Some(zero_c)) => {
            let misses = if d.low > 0.0 {
                format!(
                    "its table misses cost {} ns more per lookup than dbb's, so the gap is the \
                     tables' misses",
                    format_interval(d)
                )
            } else {
                format!(
                    "the difference of their table-miss costs, {} ns per lookup, is not resolved",
                    format_interval(d)
                )
            };
            // The gap widens when the two ratios' intervals do not overlap.
            let widens = top_c.low > zero_c.high;
            match (top_c.claim, zero_c.claim) {
                (Claim::Slower, Claim::Slower) if widens => format!(
                    "holds only in part here, for lookups in a dependent chain: magic-plain is \
                     slower than dbb already without pressure ({}) and pressure widens the gap \
                     to {} after {top} reads per node (≈ {inserted} inserted); {misses}",
                    ratio(zero_c),
                    ratio(top_c)
                ),
                (Claim::Slower, Claim::Slower) => format!(
                    "is only half shown here, for lookups in a dependent chain: magic-plain \
                     loses to dbb at every pressure (without it {}, after {top} reads per node \
                     {}), but the two ratios' intervals overlap, so a flip or a widening with \
                     pressure is not resolved; {misses}",
                    ratio(zero_c),
                    ratio(top_c)
                ),
                (Claim::Slower, _) => format!(
                    "holds here, for lookups in a dependent chain: level or faster without \
                     pressure ({}), magic-plain takes {} dbb's time after {top} reads per node \
                     (≈ {inserted} inserted); {misses}",
                    ratio(zero_c),
                    ratio(top_c)
                ),
                (Claim::Faster, _) => format!(
                    "does not hold here: after {top} reads per node magic-plain still takes {} \
                     dbb's time per lookup; {misses}",
                    ratio(top_c)
                ),
                (Claim::Level, _) => format!(
                    "is not shown at this resolution: after {top} reads per node magic-plain and \
                     dbb are level within ±{percent} % ({}); {misses}",
                    ratio(top_c)
                ),
            }
        }
        _ => "not measured: no paired samples".to_string(),
    };
    Verdict {
        difference,
        unpressed,
        text,
    }
}

fn raw_series(m: &Measurement) -> Vec<Series> {
    let mut out = Vec::new();
    for c in &m.chains {
        let reads = c.reads.to_string();
        out.push(series(
            &[
                ("part", c.part),
                ("case", &c.case),
                ("mask", &c.mask),
                ("pressure_reads", &reads),
                ("tables", c.tables),
                ("pressure_pages", c.pressure),
            ],
            "ns/lookup",
            c.ns.clone(),
        ));
    }
    for (reads, real, twin) in &m.survival {
        let reads = reads.to_string();
        let backend = m.survival_backend.unwrap_or("");
        for (mask, samples) in [("full", real), ("4 KiB", twin)] {
            out.push(series(
                &[
                    ("part", "survival"),
                    ("case", backend),
                    ("mask", mask),
                    ("pressure_reads", &reads),
                ],
                "ns/reload",
                samples.clone(),
            ));
        }
    }
    for r in &m.reuse {
        // Not timed: the stack-distance histogram (bucket k: distances below 2^k lines), then
        // the cold reads.
        let mut counts: Vec<f64> = r.buckets.iter().map(|&c| c as f64).collect();
        counts.push(r.cold as f64);
        out.push(series(
            &[("part", "reuse"), ("case", r.backend)],
            "table reads per stack-distance bucket",
            counts,
        ));
    }
    for b in &m.bracket {
        let bytes = b.bytes.to_string();
        out.push(series(
            &[
                ("part", "bracket"),
                ("case", &b.case),
                ("eval_bytes", &bytes),
            ],
            "ns/iteration",
            b.ns.clone(),
        ));
    }
    out
}

fn plots(m: &Measurement, n: &Numbers) -> Vec<Plot> {
    let mut markers = vec![(128.0, "P = 0".to_string())];
    for level in &m.levels.levels {
        markers.push((level.bytes as f64, format!("{} (measured)", level.level)));
    }
    let cost_lines = n
        .costs
        .iter()
        .map(|(name, _, points)| PlotLine {
            name: name.clone(),
            points: points
                .iter()
                .map(|(reads, e)| interval_point(pressure_x(*reads), e))
                .collect(),
        })
        .chain(std::iter::once(PlotLine {
            name: "synthetic (positive control)".into(),
            points: m
                .pressure_reads
                .iter()
                .filter_map(|&r| cost(m, r, SYNTHETIC).map(|e| interval_point(pressure_x(r), &e)))
                .collect(),
        }))
        .collect();
    let mut plots = vec![Plot {
        file_stem: "e7_table_miss_cost".into(),
        title: "Table-miss cost per lookup (real − hot twin) against pressure".into(),
        x_label: "bytes inserted per node by pressure reads (P × 64 B)".into(),
        y_label: "ns per lookup".into(),
        log_x: true,
        log_y: false,
        kind: PlotKind::Line,
        categories: Vec::new(),
        markers,
        lines: cost_lines,
    }];
    if !n.dose.is_empty() {
        plots.push(Plot {
            file_stem: "e7_dose_response".into(),
            title: format!(
                "Dose–response at {} pressure reads per node: cost against the table footprint read",
                n.top_reads
            ),
            x_label: "attack-table bytes read (masked footprint)".into(),
            y_label: "ns per lookup".into(),
            log_x: true,
            log_y: false,
            kind: PlotKind::Line,
            categories: Vec::new(),
            markers: m
                .levels
                .levels
                .iter()
                .map(|l| (l.bytes as f64, format!("{} (measured)", l.level)))
                .collect(),
            lines: n
                .dose
                .iter()
                .map(|(name, points)| PlotLine {
                    name: name.clone(),
                    points: points
                        .iter()
                        .map(|(bytes, e)| interval_point(*bytes as f64, e))
                        .collect(),
                })
                .collect(),
        });
    }
    if !m.reuse.is_empty() {
        let sizes: Vec<usize> = (9..=26).map(|j| 64usize << j).collect();
        plots.push(Plot {
            file_stem: "e7_reuse".into(),
            title:
                "Table lines' reuse along the search-order walk: an LRU cache's misses per lookup"
                    .into(),
            x_label: "fully associative LRU cache size".into(),
            y_label: "table-line misses per lookup".into(),
            log_x: true,
            log_y: false,
            kind: PlotKind::Line,
            categories: Vec::new(),
            markers: m
                .levels
                .levels
                .iter()
                .map(|l| (l.bytes as f64, format!("{} (measured)", l.level)))
                .collect(),
            lines: m
                .reuse
                .iter()
                .map(|r| PlotLine {
                    name: r.backend.to_string(),
                    points: sizes
                        .iter()
                        .map(|&bytes| {
                            let y = r.misses_per_lookup(bytes);
                            crate::harness::results::Point {
                                x: bytes as f64,
                                y,
                                y_low: y,
                                y_high: y,
                            }
                        })
                        .collect(),
                })
                .collect(),
        });
    }
    if !n.survival.is_empty() {
        let names = ["L1", "L2", "LL", "memory"];
        plots.push(Plot {
            file_stem: "e7_survival".into(),
            title: format!(
                "Where {}'s table lines are after P pressure reads",
                m.survival_backend.unwrap_or("?")
            ),
            x_label: "pressure reads P since the node's lookups".into(),
            y_label: "fraction of reloads".into(),
            log_x: true,
            log_y: false,
            kind: PlotKind::Line,
            categories: Vec::new(),
            markers: Vec::new(),
            lines: names
                .iter()
                .enumerate()
                .map(|(i, name)| PlotLine {
                    name: name.to_string(),
                    points: n
                        .survival
                        .iter()
                        .map(|(reads, f)| {
                            let x = (*reads).max(4) as f64;
                            crate::harness::results::Point {
                                x,
                                y: f[i],
                                y_low: f[i],
                                y_high: f[i],
                            }
                        })
                        .collect(),
                })
                .collect(),
        });
    }
    if !n.bracket.is_empty() {
        plots.push(Plot {
            file_stem: "e7_bracket".into(),
            title: format!(
                "Free-running bracket: marginal cost at E = {} against at E = 0",
                rounded_bytes(m.pressure_bytes as f64)
            ),
            x_label: "marginal ns per lookup at E = 0".into(),
            y_label: format!(
                "marginal ns per lookup at E = {}",
                rounded_bytes(m.pressure_bytes as f64)
            ),
            log_x: false,
            log_y: false,
            kind: PlotKind::Line,
            categories: Vec::new(),
            markers: Vec::new(),
            lines: n
                .bracket
                .iter()
                .map(|(name, at0, at_e)| PlotLine {
                    name: name.clone(),
                    points: vec![interval_point(at0.value, at_e)],
                })
                .collect(),
        });
    }
    plots
}

/// The cache sizes the reuse table reads the misses per lookup at: each measured level, and the
/// 2008-class caches seed 004 had in mind (E8's: 4 and 12 MiB).
pub(super) fn reuse_sizes(m: &Measurement) -> Vec<(String, usize)> {
    let mut sizes: Vec<(String, usize)> = m
        .levels
        .levels
        .iter()
        .map(|l| {
            (
                format!(
                    "{} {} (as {})",
                    l.level,
                    rounded_bytes(l.bytes as f64),
                    rounded_bytes(lru_bytes(l.bytes) as f64)
                ),
                l.bytes,
            )
        })
        .collect();
    sizes.push(("2008 LL 4 MiB".into(), 4 << 20));
    sizes.push(("2008 LL 12 MiB (as 8 MiB)".into(), 12 << 20));
    sizes
}

/// The LRU size misses are read at: `bytes` rounded down to 64 × 2^j (see `Reuse`).
pub(super) fn lru_bytes(bytes: usize) -> usize {
    let lines = (bytes / 64).max(1);
    64 << (usize::BITS - 1 - lines.leading_zeros())
}

fn tables(m: &Measurement, n: &Numbers) -> Vec<Table> {
    let mut headers = vec!["backend".to_string(), "attack tables".to_string()];
    headers.extend(
        m.pressure_reads
            .iter()
            .map(|r| format!("P = {r} ({})", rounded_bytes(*r as f64 * 64.0))),
    );
    let mut main = Table {
        headers,
        rows: Vec::new(),
    };
    for (name, bytes, points) in &n.costs {
        let mut row = vec![
            name.clone(),
            if *bytes == 0 {
                "none".into()
            } else {
                rounded_bytes(*bytes as f64)
            },
        ];
        for &reads in &m.pressure_reads {
            row.push(
                points
                    .iter()
                    .find(|(r, _)| *r == reads)
                    .map_or("—".into(), |(_, e)| format_interval(e)),
            );
        }
        main.rows.push(row);
    }
    let mut synthetic = vec![
        "synthetic (positive control)".to_string(),
        rounded_bytes(m.synthetic_bytes as f64),
    ];
    for &reads in &m.pressure_reads {
        synthetic.push(cost(m, reads, SYNTHETIC).map_or("—".into(), |e| format_interval(&e)));
    }
    main.rows.push(synthetic);

    let mut controls = Table {
        headers: vec![
            "control".into(),
            "table-miss cost, ns per lookup".into(),
            "expected".into(),
            "passes".into(),
        ],
        rows: Vec::new(),
    };
    for (name, e, pass) in &n.negative {
        controls.rows.push(vec![
            format!("negative: {name} at P = {}", n.top_reads),
            format_interval(e),
            format!("within ±{NEGATIVE_BOUND_NS} ns"),
            yes_no(*pass),
        ]);
    }
    if let Some((e, expected, pass)) = &n.positive {
        controls.rows.push(vec![
            format!(
                "positive: synthetic {} table at P = 0",
                rounded_bytes(m.synthetic_bytes as f64)
            ),
            format_interval(e),
            format!(
                "{} ± {:.0} % (E6: latency at its size − at 4 KiB)",
                format_sig(*expected),
                POSITIVE_TOLERANCE * 100.0
            ),
            yes_no(*pass),
        ]);
    }

    let mut out = vec![main, controls];
    if !n.dose.is_empty() {
        let mut dose = Table {
            headers: vec!["backend".into()],
            rows: Vec::new(),
        };
        dose.headers
            .extend(DOSE_MASKS.iter().map(|m| rounded_bytes((m + 1) as f64)));
        dose.headers.push("full table".into());
        for (name, points) in &n.dose {
            let mut row = vec![name.clone()];
            for mask in DOSE_MASKS {
                row.push(
                    points
                        .iter()
                        .find(|(b, _)| *b == mask + 1)
                        .map_or("—".into(), |(_, e)| format_interval(e)),
                );
            }
            row.push(points.last().map_or("—".into(), |(b, e)| {
                format!("{} ({})", format_interval(e), rounded_bytes(*b as f64))
            }));
            dose.rows.push(row);
        }
        out.push(dose);
    }
    if !m.reuse.is_empty() {
        let sizes = reuse_sizes(m);
        let mut reuse = Table {
            headers: vec![
                "backend".into(),
                "lookups".into(),
                "table reads".into(),
                "distinct lines".into(),
                "cold misses per lookup".into(),
            ],
            rows: Vec::new(),
        };
        reuse.headers.extend(
            sizes
                .iter()
                .map(|(label, _)| format!("misses per lookup, {label}")),
        );
        for r in &m.reuse {
            let mut row = vec![
                r.backend.to_string(),
                r.lookups.to_string(),
                r.reads.to_string(),
                format!(
                    "{} ({})",
                    r.distinct_lines,
                    rounded_bytes(r.distinct_lines as f64 * 64.0)
                ),
                per_lookup(r.cold_per_lookup()),
            ];
            row.extend(
                sizes
                    .iter()
                    .map(|(_, bytes)| per_lookup(r.misses_per_lookup(*bytes))),
            );
            reuse.rows.push(row);
        }
        out.push(reuse);
    }
    if !n.survival.is_empty() {
        let mut survival = Table {
            headers: vec![
                "pressure reads P".into(),
                "L1".into(),
                "L2".into(),
                "LL".into(),
                "memory".into(),
            ],
            rows: Vec::new(),
        };
        for (reads, f) in &n.survival {
            let mut row = vec![reads.to_string()];
            row.extend(f.iter().map(|x| format!("{:.0} %", x * 100.0)));
            survival.rows.push(row);
        }
        out.push(survival);
    }
    if let Some(c) = &m.calibration {
        out.push(calibration_table(c, n.survival_base));
    }
    if !n.pages.is_empty() {
        let mut pages = Table {
            headers: vec![
                "backend".into(),
                "tables on 4 KiB pages".into(),
                "tables on 2 MiB pages".into(),
                "the same, pressure on 4 KiB pages".into(),
                "huge-page bytes after the collapse".into(),
            ],
            rows: Vec::new(),
        };
        for split in &n.pages {
            pages.rows.push(vec![
                split.backend.clone(),
                format_interval(&split.small),
                format_interval(&split.huge),
                format!(
                    "{} / {}",
                    split
                        .small_small_pressure
                        .as_ref()
                        .map_or("—".into(), format_interval),
                    split
                        .huge_small_pressure
                        .as_ref()
                        .map_or("—".into(), format_interval)
                ),
                match (split.after, &split.error) {
                    (_, Some(e)) => format!("not collapsed: {e}"),
                    (Some(granted), None) => format!(
                        "{} of {} (before: {})",
                        rounded_bytes(granted as f64),
                        rounded_bytes(split.table_bytes as f64),
                        split
                            .before
                            .map_or("unknown".into(), |b| rounded_bytes(b as f64))
                    ),
                    (None, None) => "unknown".into(),
                },
            ]);
        }
        out.push(pages);
    }
    if !n.bracket.is_empty() {
        let mut bracket = Table {
            headers: vec![
                "backend".into(),
                "marginal ns at E = 0".into(),
                format!("at E = {}", rounded_bytes(m.pressure_bytes as f64)),
                "ratio of values".into(),
            ],
            rows: Vec::new(),
        };
        for (name, a, b) in &n.bracket {
            bracket.rows.push(vec![
                name.clone(),
                format_interval(a),
                format_interval(b),
                format!("×{:.2}", b.value / a.value),
            ]);
        }
        out.push(bracket);
    }
    out
}

/// The survival classes' calibration: per level, how its lines were placed, the median timed
/// load, its extra over L1 and the class bound above it; then the base and the self-check.
fn calibration_table(c: &Calibration, base: Option<f64>) -> Table {
    let bounds = survival_bounds(c);
    let placement = calibration_placement(c);
    let mut table = Table {
        headers: vec![
            "survival calibration: line in".into(),
            "placed by".into(),
            "timed loads".into(),
            "median ns".into(),
            "extra over L1, ns".into(),
            "class bound above, ns of extra".into(),
        ],
        rows: Vec::new(),
    };
    for (i, level) in SURVIVAL_LEVELS.iter().enumerate() {
        table.rows.push(vec![
            level.to_string(),
            placement[i].clone(),
            c.samples.to_string(),
            format_sig(c.medians[i]),
            format_sig(c.medians[i] - c.medians[0]),
            bounds.get(i).map_or("—".into(), |b| format_sig(*b)),
        ]);
    }
    table.rows.push(vec![
        "clock step".into(),
        "the time stamp's step: the greatest common divisor of the timed loads' ticks".into(),
        "—".into(),
        format_sig(c.step_ns),
        "—".into(),
        "—".into(),
    ]);
    table.rows.push(vec![
        "base".into(),
        "the hot twin's reload at P = 0 (all lines in L1)".into(),
        "—".into(),
        base.map_or("—".into(), format_sig),
        "—".into(),
        "—".into(),
    ]);
    let coincide = calibration_coincide(c);
    let check = if coincide.is_empty() {
        "yes".to_string()
    } else {
        format!(
            "**no** ({})",
            coincide
                .iter()
                .map(|(a, b)| format!("{a} ≥ {b}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    table.rows.push(vec![
        "self-check".into(),
        format!("medians increase strictly L1 < L2 < LL < memory: {check}"),
        "—".into(),
        "—".into(),
        "—".into(),
        "—".into(),
    ]);
    table
}

fn yes_no(pass: bool) -> String {
    if pass { "yes" } else { "**no**" }.to_string()
}

fn estimate_json(e: &Estimate) -> Json {
    json!({"ns": e.value, "low": e.low, "high": e.high})
}

fn summary(m: &Measurement, n: &Numbers) -> Vec<(String, Json)> {
    let mut table_miss = Map::new();
    for (name, _, points) in &n.costs {
        if let Some((_, e)) = points.iter().find(|(r, _)| *r == n.top_reads) {
            table_miss.insert(name.clone(), estimate_json(e));
        }
    }
    let mut negative = Map::new();
    for (name, e, pass) in &n.negative {
        let mut value = estimate_json(e);
        value["pass"] = json!(pass);
        negative.insert(name.clone(), value);
    }
    let positive = n.positive.as_ref().map_or(Json::Null, |(e, expected, pass)| {
        json!({"bytes": m.synthetic_bytes, "ns": e.value, "expected_ns": expected, "pass": pass})
    });
    let survival: Vec<Json> = n
        .survival
        .iter()
        .map(|(reads, f)| {
            json!({"pressure_reads": reads, "l1": f[0], "l2": f[1], "ll": f[2], "memory": f[3]})
        })
        .collect();
    let mut pages = Map::new();
    for split in &n.pages {
        pages.insert(
            split.backend.clone(),
            json!({"small_ns": split.small.value, "huge_ns": split.huge.value}),
        );
    }
    // Misses per lookup keyed by the LRU size they are read at ("4 MiB"); two sizes rounding
    // down to the same LRU size give the same value.
    let mut reuse = Map::new();
    for r in &m.reuse {
        let per_size: Map<String, Json> = reuse_sizes(m)
            .iter()
            .map(|(_, bytes)| {
                (
                    rounded_bytes(lru_bytes(*bytes) as f64),
                    json!(r.misses_per_lookup(*bytes)),
                )
            })
            .collect();
        reuse.insert(
            r.backend.to_string(),
            json!({
                "lookups": r.lookups,
                "reads": r.reads,
                "distinct_lines": r.distinct_lines,
                "cold": r.cold,
                "misses_per_lookup": per_size,
            }),
        );
    }
    vec![
        ("pressure_max_bytes".into(), json!(m.pressure_bytes)),
        ("pressure_reads_max".into(), json!(n.top_reads)),
        (
            "last_level_bytes".into(),
            json!(m.levels.last_level_bytes()),
        ),
        ("table_miss_cost".into(), Json::Object(table_miss)),
        ("negative_controls".into(), Json::Object(negative)),
        ("positive_control".into(), positive),
        ("survival".into(), Json::Array(survival)),
        (
            "survival_calibration".into(),
            m.calibration.as_ref().map_or(Json::Null, |c| {
                json!({
                    "l1_ns": c.medians[0],
                    "l2_ns": c.medians[1],
                    "ll_ns": c.medians[2],
                    "memory_ns": c.medians[3],
                    "bounds_ns": survival_bounds(c),
                    "samples": c.samples,
                    "clock_step_ns": c.step_ns,
                    "pass": calibration_coincide(c).is_empty(),
                    "base_ns": n.survival_base,
                })
            }),
        ),
        ("table_pages".into(), Json::Object(pages)),
        ("reuse".into(), Json::Object(reuse)),
        (
            "magic_plain_minus_dbb".into(),
            n.verdict
                .difference
                .as_ref()
                .map_or(Json::Null, estimate_json),
        ),
        ("seed_004_verdict".into(), json!(n.verdict.text)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calibration(medians: [f64; 4]) -> Calibration {
        Calibration {
            medians,
            samples: 300,
            l2_evict_bytes: 96 << 10,
            ll_evict_bytes: 2 << 20,
            memory_evict_bytes: None,
            target_bytes: 8 << 20,
            step_ns: 0.4,
        }
    }

    /// Bounds are the midpoints between neighbouring medians, less the L1 median; the check
    /// names each neighbouring pair that does not increase.
    #[test]
    fn calibration_bounds_and_self_check() {
        let passing = calibration([20.0, 24.0, 40.0, 120.0]);
        assert_eq!(survival_bounds(&passing), [2.0, 12.0, 60.0]);
        assert!(calibration_coincide(&passing).is_empty());
        let failing = calibration([20.0, 30.0, 30.0, 120.0]);
        assert_eq!(calibration_coincide(&failing), [("L2", "LL")]);
    }
}
