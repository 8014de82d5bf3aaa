//! The table-page split: every backend's attack tables on 4 KiB pages, then collapsed to 2 MiB
//! pages, each against pressure on both; its table, summary value and sentences.

use super::{Case, Mask, PageSize, Part, Tables};
use crate::experiments::claims::{level_words, percent, Claims};
use crate::experiments::e7_cache_pressure::measure::{Measurement, PHASE_CONTROL};
use crate::experiments::interval_linear;
use crate::results::Table;
use crate::stats::{format_interval, Estimate};
use crate::stats::{Claim, Comparison};
use kiki_core::units::rounded_bytes;
use serde_json::{json, Map, Value as Json};

/// One backend's table-miss cost with its tables on 4 KiB and on 2 MiB pages (pressure on huge
/// pages), and what the collapse did.
pub struct PageSplit {
    pub backend: String,
    pub small: Estimate,
    pub huge: Estimate,
    /// The same two with the pressure buffer on 4 KiB pages.
    pub small_small_pressure: Option<Estimate>,
    pub huge_small_pressure: Option<Estimate>,
    /// Huge-page bytes of the tables before and after the collapse, where the kernel says.
    pub before: Option<usize>,
    pub after: Option<usize>,
    pub table_bytes: usize,
    /// The change from 4 KiB to 2 MiB pages (pressure on huge pages), paired per round.
    pub change: Option<Estimate>,
    /// Why the collapse failed, if it did.
    pub error: Option<String>,
}

/// The split's phase-order control: a synthetic table on 4 KiB pages in both phases.
pub struct PhaseOrder {
    pub bytes: usize,
    /// Its whole chain's time in the second phase over the first (pressure on 2 MiB pages),
    /// paired per round.
    pub ratio: Comparison,
    /// Its huge-page bytes after the second phase (the most of any invocation).
    pub huge_after: Option<usize>,
    /// Level within the threshold, and still wholly on 4 KiB pages.
    pub passes: bool,
    pub threshold: f64,
}

impl PhaseOrder {
    fn of(m: &Measurement, top_reads: u32, claims: &mut Claims) -> Option<PhaseOrder> {
        let control = m.phase_control.as_ref()?;
        let full = |pages: PageSize| {
            Case {
                part: Part::Pages,
                reads: top_reads.max(1),
                case: PHASE_CONTROL,
                tables: Tables::On(pages),
                pressure: PageSize::Huge,
            }
            .find(&m.chains, Mask::Full)
            .map(|c| c.ns.clone())
        };
        let (first, second) = (full(PageSize::Small)?, full(PageSize::Huge)?);
        let ratio = claims.compare(
            "E7 page split: phase-order control",
            (
                "second phase (tables of the backends on 2 MiB pages)",
                &second,
            ),
            ("first phase (on 4 KiB pages)", &first),
        )?;
        let passes = ratio.within(m.threshold) && control.huge_after == Some(0);
        Some(PhaseOrder {
            bytes: control.bytes,
            ratio,
            huge_after: control.huge_after,
            passes,
            threshold: m.threshold,
        })
    }

    /// The clause on the control, for the split's sentence.
    fn words(&self) -> String {
        let pages = match self.huge_after {
            Some(0) => "still wholly on 4 KiB pages after the second phase".to_string(),
            Some(bytes) => format!(
                "but {} of it on 2 MiB pages after the second phase",
                rounded_bytes(bytes as f64)
            ),
            None => "its pages not read back".to_string(),
        };
        format!(
            "the phase-order control (a synthetic table of {} on 4 KiB pages in both phases, {pages}) \
             takes ×{:.3} [{:.3}–{:.3}] its first phase's time in the second: {}",
            rounded_bytes(self.bytes as f64),
            self.ratio.ratio,
            self.ratio.low,
            self.ratio.high,
            if self.passes {
                "level, so the phases' order moved nothing it could see".to_string()
            } else {
                let words = match self.ratio.claim {
                    Claim::Level => level_words(&self.ratio, self.threshold),
                    Claim::Faster | Claim::Slower => {
                        format!("beyond ±{} %", percent(self.threshold))
                    }
                };
                format!("{words}, so the order of the phases is not shown to be harmless")
            }
        )
    }
}

/// The table-page split per backend.
pub struct Pages {
    pub splits: Vec<PageSplit>,
    /// The phase-order control (absent in reports before 2026-11-29).
    pub phase_order: Option<PhaseOrder>,
}

impl Pages {
    pub fn of(m: &Measurement, top_reads: u32, claims: &mut Claims) -> Pages {
        let splits = m
            .table_pages
            .iter()
            .filter_map(|t| {
                let case = |tables: PageSize, pressure: PageSize| Case {
                    part: Part::Pages,
                    reads: top_reads.max(1),
                    case: t.backend,
                    tables: Tables::On(tables),
                    pressure,
                };
                let at = |tables: PageSize, pressure: PageSize| {
                    case(tables, pressure).cost((&m.chains, m.invocations), Mask::Full)
                };
                let rounds = |tables: PageSize| {
                    case(tables, PageSize::Huge).rounds(&m.chains, Mask::Full, Mask::Hot)
                };
                let change = rounds(PageSize::Small)
                    .zip(rounds(PageSize::Huge))
                    .filter(|(small, huge)| small.len() == huge.len())
                    .map(|(small, huge)| {
                        let differences: Vec<f64> =
                            huge.iter().zip(&small).map(|(h, s)| h - s).collect();
                        interval_linear(&differences, m.invocations)
                    })
                    .filter(|e| !e.value.is_nan());
                Some(PageSplit {
                    backend: t.backend.to_string(),
                    small: at(PageSize::Small, PageSize::Huge)?,
                    huge: at(PageSize::Huge, PageSize::Huge)?,
                    small_small_pressure: at(PageSize::Small, PageSize::Small),
                    huge_small_pressure: at(PageSize::Huge, PageSize::Small),
                    before: t.huge_before,
                    after: t.huge_after,
                    table_bytes: t.table_bytes,
                    change,
                    error: t.collapse.clone().err(),
                })
            })
            .collect();
        Pages {
            splits,
            phase_order: PhaseOrder::of(m, top_reads, claims),
        }
    }

    /// Whether the phase-order control passed (false where there is none).
    pub fn order_controlled(&self) -> bool {
        self.phase_order.as_ref().is_some_and(|p| p.passes)
    }

    /// `backend`'s split, where its tables were collapsed.
    pub fn collapsed(&self, backend: &str) -> Option<&PageSplit> {
        self.splits
            .iter()
            .find(|s| s.backend == backend && s.error.is_none())
    }

    pub fn table(&self) -> Option<Table> {
        if self.splits.is_empty() {
            return None;
        }
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
        for split in &self.splits {
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
        Some(pages)
    }

    /// `table_pages`.
    pub fn summary(&self, top_reads: u32) -> Json {
        let mut pages = Map::new();
        for split in &self.splits {
            pages.insert(
                split.backend.clone(),
                json!({"small_ns": split.small.value, "small_low": split.small.low,
                       "small_high": split.small.high, "huge_ns": split.huge.value,
                       "huge_low": split.huge.low, "huge_high": split.huge.high,
                       "change_ns": split.change.as_ref().map(|e| json!({"ns": e.value, "low": e.low, "high": e.high})),
                       "pressure_reads": top_reads.max(1)}),
            );
        }
        Json::Object(pages)
    }

    /// `table_pages_phase_control`: the phase-order control's ratio and whether it passed.
    pub fn phase_summary(&self) -> Json {
        self.phase_order.as_ref().map_or(Json::Null, |p| {
            json!({"bytes": p.bytes, "ratio": p.ratio.ratio, "low": p.ratio.low,
                   "high": p.ratio.high, "claim": format!("{:?}", p.ratio.claim),
                   "reading": crate::experiments::claims::reading(&p.ratio, p.threshold),
                   "huge_after": p.huge_after, "passes": p.passes})
        })
    }

    /// One sentence for the backends whose tables were collapsed (each one's cost on 4 KiB
    /// and on 2 MiB pages), one for each whose collapse the kernel refused.
    pub fn sentences(&self) -> Vec<String> {
        let collapsed: Vec<String> = self
            .splits
            .iter()
            .filter(|split| split.error.is_none())
            .map(|split| {
                let change = match (&split.change, self.order_controlled()) {
                    (Some(change), true) => {
                        format!(", a change of {} ns", format_interval(change))
                    }
                    _ => String::new(),
                };
                format!(
                    "{} {} → {} ns{change} ({} of {} on 2 MiB pages)",
                    split.backend,
                    format_interval(&split.small),
                    format_interval(&split.huge),
                    split
                        .after
                        .map_or("an unknown share".into(), |b| rounded_bytes(b as f64)),
                    rounded_bytes(split.table_bytes as f64)
                )
            })
            .collect();
        let mut out = Vec::new();
        if !collapsed.is_empty() {
            let order = match &self.phase_order {
                Some(control) if control.passes => format!(
                    "the 4 KiB phase always runs first, and {}; so each backend's change, \
                     paired per round, is a claim where its interval excludes 0",
                    control.words()
                ),
                Some(control) => format!(
                    "the 4 KiB phase always runs first, and {}; so each backend's pair is \
                     values, not a claim",
                    control.words()
                ),
                None => "the 4 KiB phase always runs first and nothing here controls the \
                         phase order, so each backend's pair is values, not a claim"
                    .to_string(),
            };
            out.push(format!(
                "Table misses with the attack tables on 4 KiB → 2 MiB pages, at the top \
                 pressure (pressure on 2 MiB pages; {order}): {}.",
                collapsed.join("; ")
            ));
        }
        out.extend(self.splits.iter().filter_map(|split| {
            split.error.as_ref().map(|e| {
                format!(
                    "{}'s tables could not be collapsed to huge pages ({e}).",
                    split.backend
                )
            })
        }));
        out
    }
}

/// `sweep_pages`: per backend with attack tables, the pages its tables were on during the
/// chain sweep (advised onto 4 KiB pages first): its attack-table bytes, the kernel's count
/// of them on 2 MiB pages before the advice and after it (the most in any invocation; null
/// where the kernel did not say), and why the advice failed, if it did. The verdict's page
/// clause is read from these; recorded so that it can be checked.
pub fn sweep_summary(m: &Measurement) -> Json {
    Json::from(
        m.sweep_pages
            .iter()
            .map(|t| {
                json!({"backend": t.backend, "table_bytes": t.table_bytes,
                       "huge_page_bytes_before": t.huge_before,
                       "huge_page_bytes": t.huge_after,
                       "advice_error": t.collapse.clone().err()})
            })
            .collect::<Vec<_>>(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimate(value: f64, low: f64, high: f64) -> Estimate {
        Estimate { value, low, high }
    }

    fn pages(ratio: (f64, f64, f64), claim: Claim, huge_after: Option<usize>) -> Pages {
        let ratio = Comparison {
            ratio: ratio.0,
            low: ratio.1,
            high: ratio.2,
            invocations: 5,
            rounds: 60,
            claim,
        };
        Pages {
            splits: vec![PageSplit {
                backend: "magic-plain".into(),
                small: estimate(36.9, 34.7, 39.1),
                huge: estimate(27.2, 26.0, 28.3),
                small_small_pressure: None,
                huge_small_pressure: None,
                before: Some(0),
                after: Some(60 << 20),
                table_bytes: 60 << 20,
                change: Some(estimate(-9.7, -10.9, -8.5)),
                error: None,
            }],
            phase_order: Some(PhaseOrder {
                bytes: 3 << 20,
                ratio,
                huge_after,
                passes: claim == Claim::Level && ratio.within(0.03) && huge_after == Some(0),
                threshold: 0.03,
            }),
        }
    }

    /// A level phase-order control, still on 4 KiB pages, makes each backend's change a
    /// paired claim; a control that moved, or whose table left 4 KiB pages, leaves values.
    #[test]
    fn the_phase_order_control_decides_whether_the_change_is_a_claim() {
        let controlled = pages((1.004, 0.99, 1.02), Claim::Level, Some(0));
        assert!(controlled.order_controlled());
        let text = controlled.sentences().join(" ");
        for words in [
            "the phase-order control (a synthetic table of 3 MiB on 4 KiB pages in both phases, \
             still wholly on 4 KiB pages after the second phase)",
            "level, so the phases' order moved nothing it could see",
            "is a claim where its interval excludes 0",
            "magic-plain 36.90 [34.70–39.10] → 27.20 [26.00–28.30] ns, a change of -9.700 \
             [-10.90–-8.500] ns",
        ] {
            assert!(text.contains(words), "{words}: {text}");
        }
        let drifted = pages((1.08, 1.05, 1.11), Claim::Slower, Some(0));
        assert!(!drifted.order_controlled());
        let text = drifted.sentences().join(" ");
        assert!(
            text.contains("beyond ±3 %, so the order of the phases is not shown"),
            "{text}"
        );
        assert!(text.contains("values, not a claim"), "{text}");
        assert!(!text.contains("a change of"), "{text}");
        let moved = pages((1.0, 0.99, 1.01), Claim::Level, Some(2 << 20));
        assert!(!moved.order_controlled());
        assert!(moved.sentences()[0].contains("but 2 MiB of it on 2 MiB pages"));
        assert_eq!(moved.phase_summary()["passes"], false);
    }
}
