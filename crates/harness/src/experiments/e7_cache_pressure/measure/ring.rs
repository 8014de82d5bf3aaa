//! The positive controls' in-process reference: a plain dependent ring of each control table's
//! size, walked node by node along the control's nodes between the same time stamps, so that
//! it sees the cache share the chain sees (these machines' shares move between processes: the
//! Zen 4's ½ L2 control read 3.4–7.0 ns over five invocations against E6's 3.3).

use super::timing::{first_turn, mask_label, pressure_sum, ticks, ChainCase, Walk};
use super::ONE_PAGE;
use crate::cache_levels::{one_cycle, ring, LINE};
use crate::experiments::e7_cache_pressure::HOT_MASK;
use kiki_core::pages::{PageBuffer, Pages};
use std::hint::black_box;

/// Words per cache line: a ring's next index lies in word 0 of each line.
const WORDS_PER_LINE: usize = LINE / 8;
/// The seed of the rings' orders (each ring's is this ^ its size).
const SEED: u64 = 0x7269_6e67; // "ring"

/// Whether the positive control labelled `label` is judged against an in-process ring: every
/// control sized inside the caches (no cache share moves the memory-sized one's latency).
pub(in super::super) fn has_ring(label: &str) -> bool {
    label != ONE_PAGE && label != "memory"
}

/// The case name of the ring beside the positive control labelled `label`.
pub(in super::super) fn ring_case(label: &str) -> String {
    format!("ring ({label})")
}

/// The seed of the order in which the ring of `bytes` (and the synthetic table of that size)
/// visits its lines.
fn seed_of(bytes: usize) -> u64 {
    SEED ^ bytes as u64
}

/// A positive control's synthetic table and the order its chain reads it in: one cycle through
/// every line, the ring's of its size, so that each line is read again exactly one table's worth
/// of reads later, as in the ring beside it and in E6's. (Reads drawn at random with replacement
/// left 37 % of the reuse gaps of a ½ L2 table beyond its line count and 13.5 % beyond twice
/// it, exposing the chain to a contested L2 that its ring, revisiting each line at a fixed gap,
/// did not see: the 2026-12-02 Intel's ½ L2 control read 3.64 [2.27, 5.00] ns above its ring.)
pub(crate) struct SyntheticTable {
    pub(super) buffer: PageBuffer,
    /// The lines in the order the chain reads them, one after another, wrapping.
    pub(super) visit: Vec<u32>,
}

impl SyntheticTable {
    /// A table of `bytes` on `pages`, read in the order the ring of its size follows.
    pub(super) fn new(bytes: usize, pages: Pages) -> SyntheticTable {
        let buffer = PageBuffer::new(bytes, pages, |i| i as u64 * 0x9E37);
        let lines = (bytes / LINE).max(2);
        let next = one_cycle(lines, seed_of(bytes));
        let mut visit = Vec::with_capacity(lines);
        let mut at = 0u32;
        for _ in 0..lines {
            visit.push(at);
            at = next[at as usize];
        }
        SyntheticTable { buffer, visit }
    }

    /// Its bytes on huge pages, as the kernel granted them (its page-table scan where it has
    /// one).
    pub(super) fn huge_page_bytes(&self) -> Option<usize> {
        granted(self.buffer.as_slice())
    }
}

/// The bytes of `words` on huge pages, by the kernel's page-table scan where it has one (the
/// buffer's own bytes, not the whole 2 MiB pages its allocation is rounded up to).
fn granted(words: &[u64]) -> Option<usize> {
    // SAFETY: any u64 slice is also a valid byte slice of eight times its length.
    let bytes = unsafe {
        std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), std::mem::size_of_val(words))
    };
    kiki_core::pages::huge_page_bytes_of(bytes)
}

/// The rings: one per control that [`has_ring`], and one of a single page, every ring's hot
/// twin (as the control's twin reads its table's first page). On 2 MiB pages, as the
/// controls' tables are.
pub(crate) struct Rings {
    rings: Vec<(String, PageBuffer)>,
    page: PageBuffer,
}

impl Rings {
    /// The rings for `synthetic`'s controls, `(label, bytes)` each.
    pub(super) fn new(synthetic: &[(String, usize)]) -> Rings {
        let rings = synthetic
            .iter()
            .filter(|(label, _)| has_ring(label))
            .map(|(label, bytes)| {
                let buffer = ring(*bytes, Pages::Huge, seed_of(*bytes));
                (label.clone(), buffer)
            })
            .collect();
        let page = ring(HOT_MASK + 1, Pages::Huge, SEED);
        Rings { rings, page }
    }

    /// Each ring's bytes on huge pages (the full rings, then the page ring), as granted.
    pub(super) fn huge_page_bytes(&self) -> Vec<Option<usize>> {
        let full = self
            .rings
            .iter()
            .map(|(_, buffer)| granted(buffer.as_slice()));
        full.chain([granted(self.page.as_slice())]).collect()
    }

    /// One case per ring, its streams numbered from `first_stream`: the full ring and the
    /// one-page ring, labelled as the control's full table and hot twin are.
    pub(super) fn cases<'a>(&'a self, walk: Walk<'a>, first_stream: u64) -> Vec<ChainCase<'a>> {
        self.rings
            .iter()
            .zip(first_stream..)
            .map(|((label, buffer), stream)| ChainCase {
                case: ring_case(label),
                masks: vec![mask_label(usize::MAX), mask_label(HOT_MASK)],
                footprint: buffer.as_slice().len() * 8,
                body: Box::new(ring_body(
                    [buffer.as_slice(), self.page.as_slice()],
                    Walk { stream, ..walk },
                )),
            })
            .collect()
    }
}

/// Follows `ring` for `loads` loads from line `at`; the line where it stopped.
#[inline(always)]
fn follow(ring: &[u64], loads: usize, mut at: usize) -> usize {
    for _ in 0..loads {
        at = ring[at * WORDS_PER_LINE] as usize;
    }
    at
}

/// A ring body shaped like the control's chain: per node, the P pressure reads, an untimed
/// settling pass of the node's lookup count round the page ring, then that many loads round
/// each ring, timed alone and taking turns; each ring carries on where the last node left it.
fn ring_body<'a>(
    rings: [&'a [u64]; 2],
    walk: Walk<'a>,
) -> impl FnMut(usize, usize, &mut [u64]) -> u64 + 'a {
    let zero = black_box(0u64);
    let mut at = [0usize; 2];
    move |start, count, ticks_out| {
        let nodes = walk.workload.nodes();
        let mut link = 0u64;
        for k in 0..count {
            let node = (start + k) % nodes;
            link = pressure_sum(&walk, node, link & zero) & zero;
            let loads = walk.workload.node(node).len();
            // `link` is a value ANDed with zero: each chase starts where its ring stopped.
            at[1] = follow(rings[1], loads, at[1] ^ link as usize);
            link = at[1] as u64 & zero;
            for turn in 0..2 {
                let which = (turn + first_turn(node)) % 2;
                let before = ticks();
                at[which] = follow(rings[which], loads, at[which] ^ link as usize);
                ticks_out[which] += ticks().wrapping_sub(before);
                link = at[which] as u64 & zero;
            }
        }
        (at[0] as u64) << 32 | at[1] as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache_levels::chase;

    /// A synthetic table is read in its ring's order: every line once per table's worth of
    /// reads (so each line's reuse gap is the line count), in the order the ring of its size
    /// follows from line 0.
    #[test]
    fn a_synthetic_table_reads_each_line_once_per_cycle_in_its_rings_order() {
        let bytes = 64 << 10;
        let table = SyntheticTable::new(bytes, Pages::Small);
        let lines = bytes / LINE;
        assert_eq!(table.visit.len(), lines);
        let mut seen = table.visit.clone();
        seen.sort_unstable();
        assert!(seen.iter().copied().eq(0..lines as u32), "not one cycle");
        let ring = ring(bytes, Pages::Small, seed_of(bytes));
        let followed: Vec<u32> = (0..lines as u64)
            .map(|k| chase(ring.as_slice(), k, 0) as u32)
            .collect();
        assert_eq!(table.visit, followed);
    }

    /// The body follows each ring one load per lookup of the nodes it walks, carrying on across
    /// calls: the full ring once, the page ring twice (the settling pass, then its timed turn);
    /// and it times both.
    #[test]
    fn the_ring_body_loads_once_per_lookup() {
        let workload = crate::workloads::search_order(7, 64);
        let rings = Rings::new(&[
            ("½ L2".to_string(), 64 << 10),
            ("memory".to_string(), 1 << 20),
        ]);
        assert_eq!(rings.rings.len(), 1, "the memory control has no ring");
        let walk = Walk {
            workload: &workload,
            pressure: &[0u64; 8],
            reads: 0,
            stream: 0,
        };
        let mut cases = rings.cases(walk, 3);
        assert_eq!(cases[0].case, "ring (½ L2)");
        assert_eq!(cases[0].masks, ["full", "4 KiB"]);
        let mut ticks = [0u64; 2];
        let (first, second) = (20, 30);
        (cases[0].body)(0, first, &mut ticks);
        let last = (cases[0].body)(first, second, &mut ticks);
        let loads: u64 = (0..first + second)
            .map(|n| workload.node(n).len() as u64)
            .sum();
        let (full, page) = (rings.rings[0].1.as_slice(), rings.page.as_slice());
        assert_eq!(last >> 32, chase(full, loads, 0));
        assert_eq!(last & 0xFFFF_FFFF, chase(page, 2 * loads, 0));
        assert!(ticks.iter().all(|&t| t > 0), "{ticks:?}");
    }
}
