//! What "without pressure" means: seed 004's gap at P = 0 on the main walk, on its windows
//! walked once just before they are timed (warmed), and on a long search; its table, summary
//! values and sentence.

use super::{estimate_json, interval, paired, per_lookup, Case, Mask, Part, REFERENCE};
use crate::experiments::e7_cache_pressure::measure::{Measurement, UNPRESSED_BACKENDS};
use crate::results::Table;
use crate::stats::{format_interval, Estimate};
use crate::workloads::SearchShape;
use serde_json::{json, Map, Value as Json};

/// The walks P = 0 is measured on.
const WALKS: [Part; 3] = [Part::Chain, Part::Warmed, Part::LongSearch];

/// Per walk, each backend's table-miss cost at P = 0, and each contender's gap to dbb.
pub struct Unpressed {
    /// The backends measured of [`UNPRESSED_BACKENDS`].
    backends: Vec<&'static str>,
    /// Per walk: per backend its cost, and per contender (not dbb) its gap to dbb (paired
    /// per round).
    walks: Vec<Walk>,
    /// magic-plain's gap on the warmed windows minus on the same windows unwarmed, paired per
    /// round (the rounds walk the very same nodes).
    pub warming_change: Option<Estimate>,
}

/// One walk's costs and gaps at P = 0.
struct Walk {
    part: Part,
    costs: Vec<(&'static str, Estimate)>,
    gaps: Vec<(&'static str, Estimate)>,
}

impl Unpressed {
    pub fn of(m: &Measurement) -> Unpressed {
        let backends: Vec<&'static str> = UNPRESSED_BACKENDS
            .iter()
            .copied()
            .filter(|name| m.backends.contains(name))
            .collect();
        let walks = WALKS
            .iter()
            .filter_map(|&part| {
                let costs: Vec<(&'static str, Estimate)> = backends
                    .iter()
                    .filter_map(|&b| Some((b, interval(&rounds(m, part, b)?, m.invocations)?)))
                    .collect();
                let gaps: Vec<(&'static str, Estimate)> = backends
                    .iter()
                    .filter(|&&b| b != REFERENCE)
                    .filter_map(|&b| Some((b, interval(&gap(m, part, b)?, m.invocations)?)))
                    .collect();
                (!costs.is_empty()).then_some(Walk { part, costs, gaps })
            })
            .collect();
        let warming_change = gap(m, Part::Warmed, "magic-plain")
            .zip(gap(m, Part::Chain, "magic-plain"))
            .and_then(|(warmed, main)| interval(&paired(&warmed, &main)?, m.invocations));
        Unpressed {
            backends,
            walks,
            warming_change,
        }
    }

    fn gap_of(&self, part: Part, contender: &str) -> Option<&Estimate> {
        let walk = self.walks.iter().find(|w| w.part == part)?;
        walk.gaps
            .iter()
            .find(|(b, _)| *b == contender)
            .map(|(_, e)| e)
    }

    /// The table: per walk, each backend's cost and each contender's gap to dbb.
    pub fn table(&self, m: &Measurement) -> Option<Table> {
        if self.walks.is_empty() {
            return None;
        }
        let backends = &self.backends;
        let contenders: Vec<&str> = backends
            .iter()
            .copied()
            .filter(|&b| b != REFERENCE)
            .collect();
        let mut headers = vec!["walk at P = 0".to_string()];
        headers.extend(
            backends
                .iter()
                .map(|b| format!("{b} table misses (ns/lookup)")),
        );
        headers.extend(
            contenders
                .iter()
                .map(|b| format!("{b} − {REFERENCE} (ns/lookup)")),
        );
        headers.push("first reads per lookup (magic-plain / dbb)".into());
        let cell = |list: &[(&'static str, Estimate)], name: &str| {
            list.iter()
                .find(|(b, _)| *b == name)
                .map_or("—".to_string(), |(_, e)| format_interval(e))
        };
        let rows = self
            .walks
            .iter()
            .map(|walk| {
                let mut row = vec![walk_words(walk.part).to_string()];
                row.extend(backends.iter().map(|b| cell(&walk.costs, b)));
                row.extend(contenders.iter().map(|b| cell(&walk.gaps, b)));
                // Warming takes the walk's first reads out of the time: no count applies.
                let reads = match walk.part {
                    Part::Warmed => None,
                    part => first_reads(m, part),
                };
                row.push(reads.map_or("—".into(), |(big, small)| {
                    format!("{} / {}", per_lookup(big), per_lookup(small))
                }));
                row
            })
            .collect();
        Some(Table { headers, rows })
    }

    /// The summary's `unpressed`: per walk, magic-plain's (and magic's) gap to dbb at P = 0.
    pub fn summary(&self) -> Json {
        let mut walks = Map::new();
        for walk in &self.walks {
            let gaps: Map<String, Json> = walk
                .gaps
                .iter()
                .map(|(b, e)| (format!("{b}_minus_dbb"), estimate_json(e)))
                .collect();
            walks.insert(walk.part.label().replace(' ', "_"), Json::Object(gaps));
        }
        json!({
            "walks": walks,
            "warming_change_magic_plain": self.warming_change.as_ref().map_or(Json::Null, estimate_json),
        })
    }

    /// The sentence: magic-plain's gap to dbb at P = 0 on each walk, worded by its interval.
    pub fn sentence(&self, m: &Measurement) -> Option<String> {
        let main = self.gap_of(Part::Chain, "magic-plain")?;
        let mut parts = vec![format!(
            "on the main walk {}{}",
            gap_words(main),
            reads_text(m, Part::Chain)
        )];
        if let Some(warmed) = self.gap_of(Part::Warmed, "magic-plain") {
            parts.push(format!(
                "on the same windows, each walked once just before it is timed (its first \
                 touches of a line and of a page then find them as far as the caches and the \
                 TLBs kept them), {}{}",
                gap_words(warmed),
                self.warming_change
                    .as_ref()
                    .map_or(String::new(), |c| format!(
                        "; the change from the main walk, paired per round (the same nodes, \
                         timed in a separate call after the sweep, so drift between the two \
                         calls is not cancelled), is {} ns",
                        format_interval(c)
                    ))
            ));
        }
        if let Some(long) = self.gap_of(Part::LongSearch, "magic-plain") {
            parts.push(format!(
                "on a long search (few roots, each walked {} plies deep) {}{}",
                SearchShape::LONG.depth,
                gap_words(long),
                reads_text(m, Part::LongSearch)
            ));
        }
        Some(format!(
            "What \"without pressure\" means, magic-plain's table misses against dbb's at P = 0: \
             {}.",
            parts.join("; ")
        ))
    }
}

/// `12.1 [9.8–14.4] ns more per lookup`, `… less`, or `not resolved from 0 (…)`.
fn gap_words(gap: &Estimate) -> String {
    if gap.low > 0.0 {
        format!("{} ns more per lookup", format_interval(gap))
    } else if gap.high < 0.0 {
        format!("{} ns less per lookup", format_interval(&gap.map(|x| -x)))
    } else {
        format!("not resolved from 0 ({} ns)", format_interval(gap))
    }
}

/// What a walk is, for the table.
fn walk_words(part: Part) -> &'static str {
    match part {
        Part::Warmed => "main walk, each window walked once before it is timed",
        Part::LongSearch => "long search (few roots, deep)",
        _ => "main walk (many short subtrees)",
    }
}

/// ` (first reads per lookup 0.065 against dbb's 0.019)` along a walk, where known.
fn reads_text(m: &Measurement, part: Part) -> String {
    first_reads(m, part).map_or(String::new(), |(big, small)| {
        format!(
            " (first reads of a table line per lookup {} against dbb's {})",
            per_lookup(big),
            per_lookup(small)
        )
    })
}

/// magic-plain's and dbb's first reads of a table line per lookup along the walk of `part`.
pub(super) fn first_reads(m: &Measurement, part: Part) -> Option<(f64, f64)> {
    let reuse = match part {
        Part::LongSearch => &m.reuse_long,
        _ => &m.reuse,
    };
    let cold = |name: &str| {
        reuse
            .iter()
            .find(|r| r.backend == name)
            .map(|r| r.cold_per_lookup())
    };
    Some((cold("magic-plain")?, cold(REFERENCE)?))
}

/// `backend`'s per-round table-miss cost (full − hot twin) at P = 0 on the walk of `part`.
fn rounds(m: &Measurement, part: Part, backend: &str) -> Option<Vec<f64>> {
    let case = Case {
        part,
        ..Case::chain(0, backend)
    };
    case.rounds(&m.chains, Mask::Full, Mask::Hot)
}

/// `backend`'s cost minus dbb's, per round, on the walk of `part`.
fn gap(m: &Measurement, part: Part, backend: &str) -> Option<Vec<f64>> {
    paired(&rounds(m, part, backend)?, &rounds(m, part, REFERENCE)?)
}
