//! E12's table-miss chains: every entry's dependent chains at E7's top pressure, each in a
//! block of its own, the A/A twin in its base's block one window ahead.

use crate::experiments::e11_search::TablePages;
use crate::experiments::e7_cache_pressure::{self as e7, ChainCase, MakeChain, HOT_MASK};
use crate::invocations::Invocation;
use crate::measure::SampleConfig;
use crate::registry;
use crate::workloads::SearchWorkload;
use serde::{Deserialize, Serialize};

/// A timed entry: a backend, and whether it is the A/A control's second timing (as
/// `measure::Entry`, which this module does not import: measure imports it).
type Entry = (&'static str, bool);

/// One backend's dependent chains at the top pressure: ns per lookup with its full table and
/// with its hot twin (the table masked to one page), per round.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct ChainRow {
    pub pages: TablePages,
    #[serde(with = "crate::invocations::static_str")]
    pub backend: crate::invocations::StaticStr,
    pub twin: bool,
    pub full: Vec<f64>,
    pub hot: Vec<f64>,
}

/// How the chains are timed: E7's pressure reads per node, its sampling and its tick.
pub(super) struct ChainSettings {
    pub reads: u32,
    pub sampling: SampleConfig,
    pub ns_per_tick: f64,
}

/// What the table-miss chains walk: E7's search-order workload and pressure buffer.
pub(super) struct Chains<'a> {
    pub workload: &'a SearchWorkload,
    pub pressure: &'a [u64],
    pub last_level: usize,
    /// The window of nodes, sized in the first phase and kept for the second, so that round r
    /// walks the same nodes on 4 KiB and on 2 MiB pages.
    pub window: std::cell::Cell<Option<usize>>,
}

impl Chains<'_> {
    /// Every entry's dependent chains at the top pressure, full table and hot twin, as E7 times
    /// them (each entry in a block of its own, in a seeded shuffled order per invocation, then
    /// reversed), except the A/A twin, which walks in its base's block ([`beside`]): timed in a
    /// block of its own, seconds from its base's, a twin read 40 ns throughout while its base
    /// read 60 ns in one process's first six rounds and 39 ns in the next six (2026-11-29-9).
    /// Returns the rows and the entries that could not run.
    pub fn time(
        &self,
        (pages, entries): (TablePages, &[Entry]),
        settings: &ChainSettings,
        invocation: Invocation,
    ) -> (Vec<ChainRow>, Vec<String>) {
        let mut cases = Vec::new();
        let mut timed = Vec::new();
        let mut errors = Vec::new();
        for &(name, twin) in entries {
            let make = MakeChain {
                workload: self.workload,
                pressure: self.pressure,
                reads: settings.reads,
                masks: vec![usize::MAX, HOT_MASK],
                stream: cases.len() as u64,
                labels: None,
            };
            match registry::visit(name, make) {
                Ok(case) => {
                    cases.push(case);
                    timed.push((name, twin));
                }
                Err(error) => errors.push(error.to_string()),
            }
        }
        // The window as E7 sizes it, over the cases alone (the twin's walk beside its base's
        // would double that case's time and halve everyone's window).
        let window = self
            .window
            .get()
            .unwrap_or_else(|| e7::find_window(self.workload, &mut cases, &settings.sampling));
        let (mut cases, blocks) = pair_twin(cases, &timed, |base, twin| {
            beside(base, twin, window, self.workload)
        });
        let mut window = Some(window);
        // The block order is E7's: shuffled per invocation and call, then reversed, from the
        // fixed seed E12 has always used (E12 records no order seed).
        let (results, _) = e7::time_chains(
            self.workload,
            &mut cases,
            &settings.sampling,
            (settings.ns_per_tick, self.last_level),
            &mut window,
            (invocation, e7::Warming::Before),
            (
                e7::FIXED_ORDER_SEED,
                &format!("table misses on {pages:?} pages"),
            ),
            &mut |_| {},
        );
        self.window.set(window);
        // Two results per entry, full then hot, in the blocks' order of entries.
        let entries = blocks.iter().flatten();
        let rows = results
            .chunks(2)
            .zip(entries)
            .map(|(pair, &(backend, twin))| ChainRow {
                pages,
                backend,
                twin,
                full: pair[0].ns.clone(),
                hot: pair[1].ns.clone(),
            })
            .collect();
        (rows, errors)
    }
}

/// The cases with the twin's joined to its base's by `join` (where both could run), and per
/// case the entries its results belong to, in order (the base's two masks, then the twin's).
fn pair_twin<'a>(
    cases: Vec<ChainCase<'a>>,
    timed: &[Entry],
    join: impl FnOnce(ChainCase<'a>, ChainCase<'a>) -> ChainCase<'a>,
) -> (Vec<ChainCase<'a>>, Vec<Vec<Entry>>) {
    let mut slots: Vec<Option<ChainCase<'a>>> = cases.into_iter().map(Some).collect();
    let twin = timed.iter().position(|e| e.1);
    let base = twin.and_then(|t| timed.iter().position(|e| *e == (timed[t].0, false)));
    if let (Some(t), Some(b)) = (twin, base) {
        if let (Some(twin_case), Some(base_case)) = (slots[t].take(), slots[b].take()) {
            slots[b] = Some(join(base_case, twin_case));
        }
    }
    slots
        .into_iter()
        .zip(timed)
        .enumerate()
        .filter_map(|(i, (case, &entry))| {
            let mut entries = vec![entry];
            if Some(i) == base {
                entries.push((entry.0, true));
            }
            Some((case?, entries))
        })
        .unzip()
}

/// The base's case and its twin's as one: per slice of the base's window, the base's chains on
/// it and the twin's on the slice one window ahead (the base's next round's), whichever went
/// second going first the next slice. So the two are timed microseconds apart, on the same
/// code and tables, and neither finds the other's lines: a window's pressure reads (hundreds
/// of MiB against a last level of tens) evict them before the base walks what the twin did.
/// The twin's ticks are scaled to the base's slice's lookups, which the caller divides by.
fn beside<'a>(
    base: ChainCase<'a>,
    twin: ChainCase<'a>,
    window: usize,
    workload: &'a SearchWorkload,
) -> ChainCase<'a> {
    let split = base.masks.len();
    let (mut base_body, mut twin_body) = (base.body, twin.body);
    let nodes = workload.nodes().max(1);
    let lookups = move |start: usize, count: usize| -> u64 {
        (0..count)
            .map(|k| workload.node((start + k) % nodes).len() as u64)
            .sum::<u64>()
            .max(1)
    };
    let mut base_first = false;
    let body = move |start: usize, count: usize, ticks: &mut [u64]| -> u64 {
        let (mine, theirs) = ticks.split_at_mut(split);
        let ahead = (start + window) % nodes;
        let mut twin_ticks = vec![0u64; theirs.len()];
        base_first = !base_first;
        let sum = if base_first {
            base_body(start, count, mine).wrapping_add(twin_body(ahead, count, &mut twin_ticks))
        } else {
            twin_body(ahead, count, &mut twin_ticks).wrapping_add(base_body(start, count, mine))
        };
        let (own, other) = (lookups(start, count), lookups(ahead, count));
        for (into, t) in theirs.iter_mut().zip(twin_ticks) {
            *into += (t as u128 * own as u128 / other as u128) as u64;
        }
        sum
    };
    ChainCase {
        case: base.case,
        masks: base.masks.into_iter().chain(twin.masks).collect(),
        footprint: base.footprint.max(twin.footprint),
        body: Box::new(body),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Calls = std::rc::Rc<std::cell::RefCell<Vec<(String, usize)>>>;

    /// A case that records its calls and ticks 10 per node on its first mask, 1 on its second.
    fn case(name: &str, calls: Calls) -> ChainCase<'static> {
        let label = name.to_string();
        ChainCase {
            case: name.to_string(),
            masks: vec!["full".into(), "4 KiB".into()],
            footprint: 1 << 20,
            body: Box::new(move |start, count, ticks| {
                calls.borrow_mut().push((label.clone(), start));
                ticks[0] += 10 * count as u64;
                ticks[1] += count as u64;
                0
            }),
        }
    }

    /// The twin joins its base's block, the others keep theirs, and the twin walks one window
    /// ahead of its base, the two taking turns at going first.
    #[test]
    fn the_twin_walks_beside_its_base_one_window_ahead() {
        let calls = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let timed: Vec<Entry> = vec![("a", false), ("b", false), ("b", true)];
        let name = |e: &Entry| format!("{}{}", e.0, if e.1 { " (twin)" } else { "" });
        let cases = timed
            .iter()
            .map(|e| case(&name(e), calls.clone()))
            .collect();
        let square = kiki_core::types::Square::new(0).expect("a square");
        let workload = SearchWorkload {
            occupancies: vec![0; 100],
            starts: (0..=100).map(|i| 2 * i).collect(),
            lookups: vec![(kiki_core::types::Slider::Rook, square); 200],
            description: String::new(),
        };
        let (mut joined, blocks) = pair_twin(cases, &timed, |b, t| beside(b, t, 30, &workload));
        assert_eq!(
            blocks,
            vec![vec![("a", false)], vec![("b", false), ("b", true)]]
        );
        assert_eq!(joined[1].masks.len(), 4);
        let mut ticks = vec![0u64; 4];
        (joined[1].body)(80, 4, &mut ticks);
        (joined[1].body)(84, 4, &mut ticks);
        // Same lookups per node here, so the twin's ticks are its own.
        assert_eq!(ticks, vec![80, 8, 80, 8]);
        let order: Vec<(String, usize)> = calls.borrow().clone();
        assert_eq!(
            order,
            [
                ("b".to_string(), 80),
                ("b (twin)".to_string(), 10),
                ("b (twin)".to_string(), 14),
                ("b".to_string(), 84)
            ]
        );
    }
}
