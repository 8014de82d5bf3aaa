//! The invocation screen (science-hardening item 2): each invocation's own positive controls
//! against E6's band, what the machine was doing meanwhile, and seed 004's verdict again
//! without the invocations whose controls deviated.
//!
//! Whole invocations can shift together (a neighbour on the core or the last level changes the
//! capacity a process sees): the screen names them instead of letting them move the pooled
//! figures unseen. An invocation is flagged when the level of any of its positive controls'
//! cost at P = 0 (the median over its own rounds) lies outside E6's band at that size widened
//! by the tolerance: the control deviates. One whose level is inside but whose interval over its
//! own rounds reaches beyond the band is marked noisy, not flagged: it shifted inside the
//! process, which the table shows, but it does not deviate. (From 2026-11-27 to the -11-29-3
//! report only an interval wholly outside the band was flagged, so a control that shifted
//! inside an invocation never was; in the -11-29-4 report any interval not inside the band
//! was, and a referee found that it flagged noisy invocations whose levels agreed with E6.) The
//! verdict printed first stays the one on every invocation; the screen's is shown beside it
//! where at least [`MIN_KEPT`] invocations remain, and is conditional: its invocations were
//! kept because their controls agree with E6, so its own controls are not an independent gate.

use super::super::measure::{merge, synthetic_case, BlockCpu, Measurement};
use super::super::POSITIVE_TOLERANCE;
use super::chains::positive;
use crate::conditions::RunConditions;
use crate::results::Table;
use crate::stats::{format_interval, format_sig, Estimate};
use serde_json::{json, Value as Json};

/// The fewest invocations a verdict without the flagged ones is drawn from: with two, one
/// degree of freedom makes every interval wide enough to read as a failed control.
pub(in super::super) const MIN_KEPT: usize = 3;

/// Where one invocation's control stands against E6's band (widened by the tolerance).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in super::super) enum Standing {
    /// Its interval over its own rounds lies inside the band.
    Inside,
    /// Its level is inside, its interval reaches beyond: noisy, not flagged.
    Wide,
    /// Its level is outside: the control deviates, and the invocation is flagged.
    Outside,
}

impl Standing {
    fn of(e: &Estimate, band: (f64, f64)) -> Standing {
        if e.value < band.0 || e.value > band.1 || e.value.is_nan() {
            Standing::Outside
        } else if e.low >= band.0 && e.high <= band.1 {
            Standing::Inside
        } else {
            Standing::Wide
        }
    }

    fn name(self) -> &'static str {
        match self {
            Standing::Inside => "inside",
            Standing::Wide => "wide",
            Standing::Outside => "outside",
        }
    }
}

/// One invocation's controls and conditions.
pub(in super::super) struct Screened {
    /// Its index among the report's invocations (from 0).
    pub index: usize,
    /// Per positive control: its label, cost at P = 0 (ns per read) with its interval over
    /// the invocation's own rounds, and where that stands against the band.
    pub controls: Vec<(String, Estimate, Standing)>,
    pub conditions: Option<RunConditions>,
    /// Where its chain blocks ran (absent before 2026-11-29-3, when no block recorded its CPU).
    pub cpus: Option<BlockCpus>,
}

/// Where one invocation's timed blocks ran: blocks per CPU they started on, how many the
/// scheduler moved while they ran, and per positive control the CPU of its two P = 0 blocks
/// (first pass, second pass), so that a pass that shifted can be set beside the CPU it ran on.
#[derive(Clone, Debug, PartialEq)]
pub(in super::super) struct BlockCpus {
    pub per_cpu: std::collections::BTreeMap<usize, usize>,
    pub moved: usize,
    pub controls: Vec<(String, Vec<Option<usize>>)>,
}

impl BlockCpus {
    fn of(part: &Measurement, labels: &[String]) -> Option<BlockCpus> {
        let blocks: Vec<&BlockCpu> = part.block_orders.iter().flat_map(|o| &o.cpus).collect();
        if blocks.is_empty() {
            return None;
        }
        let mut per_cpu = std::collections::BTreeMap::new();
        for cpu in blocks.iter().filter_map(|b| b.start) {
            *per_cpu.entry(cpu).or_insert(0) += 1;
        }
        let moved = blocks.iter().filter(|b| b.start != b.end).count();
        let at_zero = part.block_orders.iter().find(|o| o.label == "chain P=0");
        let controls = labels
            .iter()
            .map(|label| {
                let case = synthetic_case(label);
                let passes = at_zero.map_or(Vec::new(), |o| {
                    o.cpus
                        .iter()
                        .filter(|b| b.case == case)
                        .map(|b| b.start)
                        .collect()
                });
                (label.clone(), passes)
            })
            .collect();
        Some(BlockCpus {
            per_cpu,
            moved,
            controls,
        })
    }

    /// `CPU 0: 40, CPU 1: 12; 1 moved; ½ L2 at P = 0 on 0, 1`.
    fn words(&self) -> String {
        let per_cpu: Vec<String> = self
            .per_cpu
            .iter()
            .map(|(cpu, n)| format!("CPU {cpu}: {n}"))
            .collect();
        let cpu = |c: &Option<usize>| c.map_or("?".to_string(), |c| c.to_string());
        let controls: Vec<String> = self
            .controls
            .iter()
            .filter(|(_, passes)| !passes.is_empty())
            .map(|(label, passes)| {
                let on: Vec<String> = passes.iter().map(cpu).collect();
                format!("{label} at P = 0 on {}", on.join(", "))
            })
            .collect();
        format!(
            "{}; {} moved{}",
            per_cpu.join(", "),
            self.moved,
            if controls.is_empty() {
                String::new()
            } else {
                format!("; {}", controls.join("; "))
            }
        )
    }

    fn summary(&self) -> Json {
        json!({
            "blocks_per_cpu": self.per_cpu.iter().map(|(cpu, n)| (cpu.to_string(), json!(n))).collect::<serde_json::Map<_, _>>(),
            "moved_within_block": self.moved,
            "controls_at_zero": self.controls.iter().map(|(label, passes)| json!({"label": label, "cpus_by_pass": passes})).collect::<Vec<_>>(),
        })
    }
}

impl Screened {
    pub fn flagged(&self) -> bool {
        self.controls
            .iter()
            .any(|(_, _, standing)| *standing == Standing::Outside)
    }

    fn noisy(&self) -> bool {
        !self.flagged()
            && self
                .controls
                .iter()
                .any(|(_, _, standing)| *standing == Standing::Wide)
    }
}

/// The screen of `parts`, one per invocation, and the verdict without the flagged ones (`None`
/// where none is flagged, or fewer than [`MIN_KEPT`] would remain).
pub(in super::super) struct Screen {
    pub invocations: Vec<Screened>,
    pub verdict_without_flagged: Option<String>,
}

impl Screen {
    /// Screens each invocation of `parts` (their measurements as measured, one each).
    pub fn of(parts: &[Measurement]) -> Screen {
        let invocations: Vec<Screened> = parts
            .iter()
            .map(|part| Screened {
                index: part.invocation.index,
                controls: positive(part)
                    .iter()
                    .map(|p| {
                        let band = (
                            p.expected_low * (1.0 - POSITIVE_TOLERANCE),
                            p.expected_high * (1.0 + POSITIVE_TOLERANCE),
                        );
                        (p.label.clone(), p.at_zero, Standing::of(&p.at_zero, band))
                    })
                    .collect(),
                conditions: part.conditions.first().cloned(),
                cpus: BlockCpus::of(
                    part,
                    &positive(part)
                        .iter()
                        .map(|p| p.label.clone())
                        .collect::<Vec<_>>(),
                ),
            })
            .collect();
        let kept: Vec<Measurement> = parts
            .iter()
            .zip(&invocations)
            .filter(|(_, s)| !s.flagged())
            .map(|(p, _)| p.clone())
            .collect();
        let any_flagged = invocations.iter().any(Screened::flagged);
        let verdict_without_flagged = (any_flagged && kept.len() >= MIN_KEPT)
            .then(|| merge(&kept).ok())
            .flatten()
            .map(|m| super::analyse(&m).numbers.verdict.text);
        Screen {
            invocations,
            verdict_without_flagged,
        }
    }

    /// Per invocation (its index), the cost at P = 0 of the control labelled `label`.
    pub fn control_values(&self, label: &str) -> Vec<(usize, f64)> {
        self.invocations
            .iter()
            .filter_map(|s| {
                let (_, e, _) = s.controls.iter().find(|(l, _, _)| l == label)?;
                Some((s.index, e.value))
            })
            .collect()
    }

    fn flagged(&self) -> Vec<usize> {
        self.invocations
            .iter()
            .filter(|s| s.flagged())
            .map(|s| s.index)
            .collect()
    }

    fn noisy(&self) -> Vec<usize> {
        self.invocations
            .iter()
            .filter(|s| s.noisy())
            .map(|s| s.index)
            .collect()
    }

    /// The summary's `invocation_screen`.
    pub fn summary(&self) -> Json {
        json!({
            "rule": format!(
                "an invocation is flagged when the level of a positive control's own cost at \
                 P = 0 (the median over its rounds) is outside E6's band at its size ±{:.0} %; \
                 one whose level is inside and whose interval reaches beyond is noisy, not \
                 flagged; a verdict without the flagged ones needs {MIN_KEPT} invocations left",
                POSITIVE_TOLERANCE * 100.0
            ),
            "flagged": self.flagged(),
            "noisy": self.noisy(),
            "verdict_without_flagged": self.verdict_without_flagged,
            "invocations": self.invocations.iter().map(|s| json!({
                "invocation": s.index,
                "controls": s.controls.iter().map(|(label, e, standing)| json!({
                    "label": label, "ns": e.value, "low": e.low, "high": e.high,
                    "inside": *standing == Standing::Inside,
                    "standing": standing.name(),
                })).collect::<Vec<_>>(),
                "flagged": s.flagged(),
                "steal_percent": s.conditions.as_ref().and_then(|c| c.steal_percent),
                "busy_percent": s.conditions.as_ref().and_then(|c| c.busy_percent),
                "clock_ghz_start": s.conditions.as_ref().and_then(|c| c.clock_ghz_start),
                "clock_ghz_end": s.conditions.as_ref().and_then(|c| c.clock_ghz_end),
                "block_cpus": s.cpus.as_ref().map(BlockCpus::summary),
            })).collect::<Vec<_>>(),
        })
    }

    /// The table: one row per invocation.
    pub fn table(&self) -> Table {
        let labels: Vec<String> = self
            .invocations
            .first()
            .map(|s| s.controls.iter().map(|c| c.0.clone()).collect())
            .unwrap_or_default();
        let mut headers = vec!["invocation".to_string()];
        headers.extend(
            labels
                .iter()
                .map(|l| format!("{l} control (ns, its own rounds' 95 % interval)")),
        );
        headers.extend(
            [
                "steal %",
                "busy % (all CPUs, this process included)",
                "clock GHz (start, end)",
                "timed blocks per CPU; blocks moved while timed; the controls' P = 0 blocks' \
                 CPUs (first pass, second)",
                "flagged",
            ]
            .iter()
            .map(|h| h.to_string()),
        );
        let optional = |v: Option<f64>| v.map_or("—".to_string(), format_sig);
        let rows = self
            .invocations
            .iter()
            .map(|s| {
                let mut row = vec![(s.index + 1).to_string()];
                row.extend(s.controls.iter().map(|(_, e, standing)| {
                    let words = match standing {
                        Standing::Inside => "",
                        Standing::Wide => " (level inside, interval beyond)",
                        Standing::Outside => " (level outside)",
                    };
                    format!("{}{words}", format_interval(e))
                }));
                let c = s.conditions.as_ref();
                row.push(optional(c.and_then(|c| c.steal_percent)));
                row.push(optional(c.and_then(|c| c.busy_percent)));
                row.push(format!(
                    "{}, {}",
                    optional(c.and_then(|c| c.clock_ghz_start)),
                    optional(c.and_then(|c| c.clock_ghz_end))
                ));
                row.push(s.cpus.as_ref().map_or("—".to_string(), BlockCpus::words));
                row.push(
                    match (s.flagged(), s.noisy()) {
                        (true, _) => "yes",
                        (false, true) => "no (noisy)",
                        (false, false) => "no",
                    }
                    .to_string(),
                );
                row
            })
            .collect();
        Table { headers, rows }
    }

    /// The findings' sentence.
    pub fn sentence(&self) -> String {
        let flagged = self.flagged();
        let k = self.invocations.len();
        let band = format!("E6's band (±{:.0} %)", POSITIVE_TOLERANCE * 100.0);
        let numbers = |indices: &[usize]| {
            let names: Vec<String> = indices.iter().map(|i| (i + 1).to_string()).collect();
            let number = if indices.len() == 1 {
                "number"
            } else {
                "numbers"
            };
            format!("{number} {}", names.join(", "))
        };
        let noisy = self.noisy();
        let noisy_words = if noisy.is_empty() {
            String::new()
        } else {
            let (are, has) = if noisy.len() == 1 {
                ("invocation is", "its")
            } else {
                ("invocations are", "each one's")
            };
            format!(
                " {} {are} noisy, not flagged ({}): {has} controls' levels are inside {band}, \
                 but an interval over its own rounds reaches beyond it (the control moved \
                 inside that process).",
                noisy.len(),
                numbers(&noisy)
            )
        };
        if flagged.is_empty() {
            return format!(
                "Invocation screen: every one of the {k} invocations' own positive controls has \
                 its level inside {band}; none is flagged.{noisy_words}"
            );
        }
        let kept = k - flagged.len();
        let without = match &self.verdict_without_flagged {
            Some(verdict) => format!(
                "Without them — a conditional reading: the invocations kept are those with no \
                 control outside E6's band, chosen by their controls, so these are no \
                 independent gate — seed 004 {verdict}"
            ),
            None => format!(
                "{kept} invocation{} remain{} without them, too few left to judge (the screen \
                 draws a verdict from {MIN_KEPT} or more).",
                if kept == 1 { "" } else { "s" },
                if kept == 1 { "s" } else { "" }
            ),
        };
        let have = if flagged.len() == 1 { "has" } else { "have" };
        format!(
            "Invocation screen: {} of the {k} invocations ({}) {have} a positive control whose \
             level over its own rounds is outside {band} (the table of the screen gives each \
             invocation's controls with their intervals, steal, busy share and clock).\
             {noisy_words} The verdict above stands on every invocation. {without}",
            flagged.len(),
            numbers(&flagged),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The -27-5 Intel's ½ L2 band, 5.67–8.90 ns, widened by the tolerance.
    const BAND: (f64, f64) = (5.67 * 0.75, 8.90 * 1.25);

    fn screened(index: usize, half_l2: f64, half_width: f64) -> Screened {
        let at = |v: f64, half: f64| Estimate {
            value: v,
            low: v - half,
            high: v + half,
        };
        let half_l2 = at(half_l2, half_width);
        Screened {
            index,
            controls: vec![
                ("½ L2".into(), half_l2, Standing::of(&half_l2, BAND)),
                ("memory".into(), at(140.0, 0.5), Standing::Inside),
            ],
            conditions: None,
            cpus: None,
        }
    }

    /// The -27-5 Intel's ½ L2 control per invocation (6.5, 21.6, 13.2, 5.1, 4.9 ns against
    /// 5.67–8.90 ± 25 %): the second and third are flagged, named from 1, and the verdict
    /// without them is quoted after the one on every invocation.
    #[test]
    fn flagged_invocations_are_named_and_the_verdict_without_them_quoted() {
        let screen = Screen {
            invocations: vec![
                screened(0, 6.5, 0.5),
                screened(1, 21.6, 0.5),
                screened(2, 13.2, 0.5),
                screened(3, 5.1, 0.5),
                screened(4, 4.9, 0.5),
            ],
            verdict_without_flagged: Some("holds only in part here".into()),
        };
        assert_eq!(screen.flagged(), [1, 2]);
        let sentence = screen.sentence();
        assert!(
            sentence.contains("2 of the 5 invocations (numbers 2, 3) have"),
            "{sentence}"
        );
        assert!(
            sentence.ends_with("no independent gate — seed 004 holds only in part here"),
            "{sentence}"
        );
        let table = screen.table();
        assert_eq!(table.rows.len(), 5);
        assert_eq!(table.rows[1][1], "21.60 [21.10–22.10] (level outside)");
        assert_eq!(table.rows[1].last().unwrap(), "yes");
        assert_eq!(screen.summary()["flagged"], json!([1, 2]));
        assert_eq!(screen.control_values("½ L2")[1], (1, 21.6));
        let one = Screen {
            invocations: vec![screened(0, 6.5, 0.5), screened(1, 21.6, 0.5)],
            verdict_without_flagged: None,
        };
        let sentence = one.sentence();
        assert!(
            sentence.contains("1 of the 2 invocations (number 2) has"),
            "{sentence}"
        );
        assert!(
            sentence.ends_with(
                "1 invocation remains without them, too few left to judge (the \
                 screen draws a verdict from 3 or more)."
            ),
            "{sentence}"
        );

        let mut moved = screened(1, 21.6, 0.5);
        moved.cpus = Some(BlockCpus {
            per_cpu: [(0, 40), (1, 12)].into_iter().collect(),
            moved: 1,
            controls: vec![("½ L2".into(), vec![Some(0), Some(1)])],
        });
        let with_cpus = Screen {
            invocations: vec![screened(0, 6.5, 0.5), moved],
            verdict_without_flagged: None,
        };
        let table = with_cpus.table();
        assert_eq!(
            table.rows[1][table.rows[1].len() - 2],
            "CPU 0: 40, CPU 1: 12; 1 moved; ½ L2 at P = 0 on 0, 1"
        );
        assert_eq!(table.rows[0][table.rows[0].len() - 2], "—");
        let summary = with_cpus.summary();
        assert_eq!(
            summary["invocations"][1]["block_cpus"]["controls_at_zero"][0]["cpus_by_pass"],
            json!([0, 1])
        );
        assert_eq!(
            summary["invocations"][1]["block_cpus"]["moved_within_block"],
            1
        );

        let clean = Screen {
            invocations: vec![screened(0, 6.5, 0.5), screened(1, 7.0, 0.5)],
            verdict_without_flagged: None,
        };
        assert!(clean.sentence().contains("none is flagged"));
    }

    /// The -11-29-4 Zen 4's invocations 1 and 4: ½ L2 levels 3.77 and 3.63 inside the band
    /// (2.44–4.12 ns here), their intervals over their own rounds beyond it: noisy, not
    /// flagged, so no verdict is drawn from the two that would remain.
    #[test]
    fn a_wide_interval_whose_level_is_inside_is_noisy_not_flagged() {
        let band = (3.27 * 0.75, 3.27 * 1.25);
        let wide = Estimate {
            value: 3.77,
            low: 2.9,
            high: 4.5,
        };
        assert_eq!(Standing::of(&wide, band), Standing::Wide);
        let outside = Estimate {
            value: 4.3,
            low: 4.2,
            high: 4.4,
        };
        assert_eq!(Standing::of(&outside, band), Standing::Outside);
        let screen = Screen {
            invocations: vec![
                screened(0, 6.5, 0.5),
                screened(1, 7.0, 3.0),
                screened(2, 6.0, 0.5),
            ],
            verdict_without_flagged: None,
        };
        assert!(screen.flagged().is_empty());
        assert_eq!(screen.noisy(), [1]);
        let sentence = screen.sentence();
        assert!(sentence.contains("none is flagged"), "{sentence}");
        assert!(
            sentence.contains("1 invocation is noisy, not flagged (number 2)"),
            "{sentence}"
        );
        let table = screen.table();
        assert_eq!(
            table.rows[1][1],
            "7.000 [4.000–10.00] (level inside, interval beyond)"
        );
        assert_eq!(table.rows[1].last().unwrap(), "no (noisy)");
        assert_eq!(screen.summary()["noisy"], json!([1]));
        assert_eq!(
            screen.summary()["invocations"][1]["controls"][0]["standing"],
            "wide"
        );
    }
}
