//! How `magic`'s shared attack tables hold their entries: one 16-byte record an entry (the
//! base), or the low and high words in two parallel `u64` arrays (`magic.split-words`).

use crate::shared::masked::{masked_index, table_bytes};
use crate::shared::split::SplitBitboard;
use kiki_core::backend::TableInfo;
use kiki_core::table_arena::place_slice;
use std::mem::size_of;

/// One kind's shared attack table, in one of the two word layouts.
pub trait AttackStore: Send + Sync + Sized + 'static {
    /// Takes the table's entries in index order.
    fn from_records(records: Vec<SplitBitboard>) -> Self;

    /// The entry at `index`.
    ///
    /// # Safety
    ///
    /// `index` must be below the entry count the store was built with.
    unsafe fn get(&self, index: usize) -> SplitBitboard;

    /// The hot twin's read: each array's element index ANDed with `table_mask >> s` (`2^s`
    /// its element size), so that only each array's first `table_mask + 1` bytes are read.
    ///
    /// # Safety
    ///
    /// As [`AttackStore::get`]: `index` below the entry count (the mask only lowers it).
    unsafe fn get_masked(&self, index: usize, table_mask: usize) -> SplitBitboard;

    /// The arrays' bytes, in order.
    fn memory(&'static self) -> Vec<&'static [u8]>;

    /// The byte offsets a read of entry `index` touches, into the concatenation of `memory()`
    /// placed at `base`.
    fn offsets(&self, index: usize, base: usize, out: &mut Vec<usize>);

    /// The store's tables as `kiki backends` lists them: `names` = (the one table, its low
    /// words, its high words).
    fn infos(names: (&'static str, &'static str, &'static str), entries: usize) -> Vec<TableInfo>;
}

/// 16-byte records, one an entry: a lookup reads one line.
pub struct Records(&'static [SplitBitboard]);

impl AttackStore for Records {
    fn from_records(records: Vec<SplitBitboard>) -> Self {
        Records(place_slice("magic", records.into_boxed_slice()))
    }

    #[inline(always)]
    unsafe fn get(&self, index: usize) -> SplitBitboard {
        // SAFETY: the caller keeps `index` below the length.
        unsafe { *self.0.get_unchecked(index) }
    }

    #[inline(always)]
    unsafe fn get_masked(&self, index: usize, table_mask: usize) -> SplitBitboard {
        // SAFETY: the masked index is at most `index`, which the caller keeps in bounds.
        unsafe {
            *self
                .0
                .get_unchecked(masked_index::<SplitBitboard>(index, table_mask))
        }
    }

    fn memory(&'static self) -> Vec<&'static [u8]> {
        vec![table_bytes(self.0)]
    }

    fn offsets(&self, index: usize, base: usize, out: &mut Vec<usize>) {
        out.push(base + index * size_of::<SplitBitboard>());
    }

    fn infos(
        (name, _, _): (&'static str, &'static str, &'static str),
        entries: usize,
    ) -> Vec<TableInfo> {
        vec![TableInfo {
            name,
            shape: format!("[{entries}] × 16 B bitboard (shared, per-square offsets)"),
            bytes: entries * size_of::<SplitBitboard>(),
        }]
    }
}

/// The low words (files 1–7) and the high words (files 8–9) in two parallel arrays: a lookup
/// reads one line of each.
pub struct Words {
    low: &'static [u64],
    high: &'static [u64],
}

impl AttackStore for Words {
    fn from_records(records: Vec<SplitBitboard>) -> Self {
        Words {
            low: place_slice("magic", records.iter().map(|r| r.low).collect()),
            high: place_slice("magic", records.iter().map(|r| r.high).collect()),
        }
    }

    #[inline(always)]
    unsafe fn get(&self, index: usize) -> SplitBitboard {
        // SAFETY: both arrays have the entry count, which the caller keeps `index` below.
        unsafe {
            SplitBitboard::new(
                *self.low.get_unchecked(index),
                *self.high.get_unchecked(index),
            )
        }
    }

    #[inline(always)]
    unsafe fn get_masked(&self, index: usize, table_mask: usize) -> SplitBitboard {
        let index = masked_index::<u64>(index, table_mask);
        // SAFETY: the masked index is at most `index`, which the caller keeps in bounds.
        unsafe {
            SplitBitboard::new(
                *self.low.get_unchecked(index),
                *self.high.get_unchecked(index),
            )
        }
    }

    fn memory(&'static self) -> Vec<&'static [u8]> {
        vec![table_bytes(self.low), table_bytes(self.high)]
    }

    fn offsets(&self, index: usize, base: usize, out: &mut Vec<usize>) {
        let word = size_of::<u64>();
        out.extend([
            base + index * word,
            base + std::mem::size_of_val(self.low) + index * word,
        ]);
    }

    fn infos(
        (_, low, high): (&'static str, &'static str, &'static str),
        entries: usize,
    ) -> Vec<TableInfo> {
        [(low, "files 1–7"), (high, "files 8–9")]
            .into_iter()
            .map(|(name, files)| TableInfo {
                name,
                shape: format!("[{entries}] × 8 B ({files}; shared, per-square offsets)"),
                bytes: entries * size_of::<u64>(),
            })
            .collect()
    }
}
