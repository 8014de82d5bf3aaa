//! The transposition table: one 64-byte bucket of four 16-byte entries per probe, on pages the
//! caller chooses (engines put it on 2 MiB pages).
//!
//! Entries are two 64-bit words read and written with relaxed atomics (plain loads and stores
//! on x86-64), so one table can be shared by the threads of a Lazy SMP search; a torn entry is
//! caught by its key check like any other collision. Each search bumps a generation: entries of
//! older generations count as empty, so every search starts from the same (empty) table without
//! clearing it, and a fingerprint does not depend on what was searched before.

use crate::position::Move;
use kiki_core::pages::{PageBuffer, Pages};
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes in one bucket: one cache line.
pub const BUCKET_BYTES: usize = 64;
const ENTRIES: usize = 4;

/// Which side of the true score a stored score is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true score is at most this (no move reached alpha).
    Upper = 1,
    /// The true score is at least this (a move reached beta).
    Lower = 2,
    Exact = 3,
}

/// What a probe found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub mv: Option<Move>,
    pub score: i16,
    /// The evaluation's value at the node (stored as engines do; the search never reads it).
    pub eval: i16,
    pub depth: u8,
    pub bound: Bound,
}

pub struct TranspositionTable {
    memory: PageBuffer,
    /// Buckets − 1 (their number is a power of two).
    mask: u64,
    generation: u16,
}

impl TranspositionTable {
    /// A table of `bytes` rounded down to a power of two (at least one bucket), on `pages`.
    pub fn new(bytes: usize, pages: Pages) -> TranspositionTable {
        let buckets = (bytes / BUCKET_BYTES).max(1);
        let buckets = 1usize << (usize::BITS - 1 - buckets.leading_zeros());
        TranspositionTable {
            memory: PageBuffer::new(buckets * BUCKET_BYTES, pages, |_| 0),
            mask: buckets as u64 - 1,
            generation: 0,
        }
    }

    /// The table's bytes (its buckets).
    pub fn bytes(&self) -> usize {
        (self.mask as usize + 1) * BUCKET_BYTES
    }

    /// The pages the buffer asked for and what the kernel granted.
    pub fn memory(&self) -> &PageBuffer {
        &self.memory
    }

    /// Starts a search: every entry stored before counts as empty from now on.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Generation 0 marks never-written entries: after 65,535 searches, clear for real.
            self.memory.as_mut_slice().fill(0);
            self.generation = 1;
        }
    }

    fn words(&self, key: u64) -> &[AtomicU64] {
        let bucket = (key & self.mask) as usize;
        let words = &self.memory.as_slice()[bucket * 8..bucket * 8 + 8];
        // SAFETY: `AtomicU64` has the size and alignment of `u64`; every access to the buffer
        // after construction goes through these atomics (`new_search` holds `&mut self`).
        unsafe { &*(words as *const [u64] as *const [AtomicU64]) }
    }

    /// The entry stored for `key` in this search, if any.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let words = self.words(key);
        let tag = self.tag(key);
        (0..ENTRIES).find_map(|slot| {
            let head = words[slot * 2].load(Ordering::Relaxed);
            if head >> 16 != tag {
                return None;
            }
            let body = words[slot * 2 + 1].load(Ordering::Relaxed);
            let bound = match (body >> 40) & 3 {
                1 => Bound::Upper,
                2 => Bound::Lower,
                3 => Bound::Exact,
                _ => return None,
            };
            let raw_move = head as u16;
            Some(Entry {
                mv: if raw_move == 0 {
                    None
                } else {
                    Move::from_raw(raw_move)
                },
                score: body as u16 as i16,
                eval: (body >> 16) as u16 as i16,
                depth: (body >> 32) as u8,
                bound,
            })
        })
    }

    /// Stores `entry` for `key`: over the same position's entry, else the first slot not
    /// written in this search, else the shallowest (first of equals): deterministic.
    #[inline]
    pub fn store(&self, key: u64, entry: Entry) {
        let words = self.words(key);
        let tag = self.tag(key);
        let head_of = |slot: usize| words[slot * 2].load(Ordering::Relaxed);
        let current = |slot: usize| (head_of(slot) >> 16) as u16 == self.generation;
        let depth_of = |slot: usize| (words[slot * 2 + 1].load(Ordering::Relaxed) >> 32) as u8;
        let slot = (0..ENTRIES)
            .find(|&slot| head_of(slot) >> 16 == tag)
            .or_else(|| (0..ENTRIES).find(|&slot| !current(slot)))
            .unwrap_or_else(|| (0..ENTRIES).min_by_key(|&slot| depth_of(slot)).unwrap_or(0));
        let raw_move = entry.mv.map_or(0, Move::raw);
        let head = tag << 16 | raw_move as u64;
        let body = entry.score as u16 as u64
            | (entry.eval as u16 as u64) << 16
            | (entry.depth as u64) << 32
            | (entry.bound as u64) << 40;
        words[slot * 2].store(head, Ordering::Relaxed);
        words[slot * 2 + 1].store(body, Ordering::Relaxed);
    }

    /// The key's upper 32 bits and this search's generation: what a slot must hold to match.
    #[inline(always)]
    fn tag(&self, key: u64) -> u64 {
        (key >> 32) << 16 | self.generation as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiki_core::types::Square;

    fn entry(depth: u8, score: i16) -> Entry {
        let sq = |i| Square::new(i).unwrap();
        Entry {
            mv: Some(Move::board(sq(60), sq(59), false)),
            score,
            eval: -1234,
            depth,
            bound: Bound::Lower,
        }
    }

    #[test]
    fn entries_round_trip_and_a_new_search_forgets_them() {
        let mut tt = TranspositionTable::new(1 << 20, Pages::Small);
        assert_eq!(tt.bytes(), 1 << 20);
        tt.new_search();
        let key = 0x1234_5678_9abc_def0;
        assert_eq!(tt.probe(key), None);
        tt.store(key, entry(7, -300));
        assert_eq!(tt.probe(key), Some(entry(7, -300)));
        // Same bucket, other key: both kept.
        let other = key ^ (1 << 40);
        tt.store(other, entry(3, 5));
        assert_eq!(tt.probe(key), Some(entry(7, -300)));
        assert_eq!(tt.probe(other), Some(entry(3, 5)));
        // Overwriting the same position replaces its entry.
        tt.store(key, entry(9, 11));
        assert_eq!(tt.probe(key), Some(entry(9, 11)));
        tt.new_search();
        assert_eq!(tt.probe(key), None);
        assert_eq!(tt.probe(other), None);
    }

    #[test]
    fn a_full_bucket_replaces_its_shallowest_entry() {
        let mut tt = TranspositionTable::new(BUCKET_BYTES * 2, Pages::Small);
        tt.new_search();
        let keys: Vec<u64> = (1..=5u64).map(|i| i << 32).collect();
        for (&key, depth) in keys.iter().zip([5, 2, 8, 4, 6]) {
            tt.store(key, entry(depth, depth as i16));
        }
        // The fifth went over the depth-2 entry.
        assert_eq!(tt.probe(keys[1]), None);
        for i in [0, 2, 3, 4] {
            assert!(tt.probe(keys[i]).is_some(), "key {i}");
        }
        // A size that is not a power of two rounds down.
        assert_eq!(
            TranspositionTable::new(3 * BUCKET_BYTES, Pages::Small).bytes(),
            2 * BUCKET_BYTES
        );
    }
}
