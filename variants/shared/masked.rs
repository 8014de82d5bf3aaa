//! What the backends with attack tables share for [`Backend::slider_attacks_masked`] (the hot
//! twin) and [`Backend::attack_table_memory`]: the masked element index and the byte view of a
//! table.
//!
//! [`Backend::slider_attacks_masked`]: kiki_core::backend::Backend::slider_attacks_masked
//! [`Backend::attack_table_memory`]: kiki_core::backend::Backend::attack_table_memory

use std::marker::PhantomData;
use std::mem::{size_of, size_of_val};

/// The shift `s` of a table of `T`: `2^s` is `size_of::<T>()` rounded up to a power of two.
struct ElementShift<T>(PhantomData<T>);

impl<T> ElementShift<T> {
    /// A compile-time constant per element type, so the masked path shifts by an immediate.
    const S: u32 = size_of::<T>().next_power_of_two().trailing_zeros();
}

/// `log2` of `T`'s size rounded up to a power of two (12- and 16-byte bitboards: 4; `u32`: 2).
pub const fn element_shift<T>() -> u32 {
    ElementShift::<T>::S
}

/// An attack-table element index ANDed with `table_mask >> s` (`2^s` = `T`'s size rounded up
/// to a power of two): one AND and a shift by a constant, the same instructions for every mask.
///
/// The result only clears bits of `index`, so it is `<= index` and stays in bounds wherever
/// `index` is. With `table_mask = 2^k - 1` (`k >= s`) it is `< 2^(k - s)`, so the element it
/// selects lies in the table's first `2^k` bytes; with `usize::MAX` it is `index`.
#[inline(always)]
pub const fn masked_index<T>(index: usize, table_mask: usize) -> usize {
    index & (table_mask >> ElementShift::<T>::S)
}

/// Element types of attack tables with no padding bytes, so that a table of them can be viewed
/// as initialised bytes.
///
/// # Safety
///
/// Implement only for types every byte of which is initialised in every value (no padding).
pub unsafe trait NoPadding: Copy + 'static {}

// SAFETY: a primitive integer has no padding.
unsafe impl NoPadding for u32 {}
// SAFETY: a primitive integer has no padding.
unsafe impl NoPadding for u64 {}

/// The bytes of an attack table as built (for [`Backend::attack_table_memory`]).
///
/// [`Backend::attack_table_memory`]: kiki_core::backend::Backend::attack_table_memory
pub fn table_bytes<T: NoPadding>(table: &'static [T]) -> &'static [u8] {
    // SAFETY: the pointer and length cover exactly the memory of `table`, which is valid for
    // reads for `'static` and never written through a shared reference (the tables are built
    // before the handle that hands them out exists, in `OnceLock`s or statics); `T: NoPadding`
    // makes every one of those bytes initialised; `u8` needs no alignment.
    unsafe { std::slice::from_raw_parts(table.as_ptr().cast::<u8>(), size_of_val(table)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy)]
    #[allow(dead_code)]
    struct Twelve([u32; 3]);

    #[test]
    fn shifts_round_the_element_size_up() {
        assert_eq!(element_shift::<u8>(), 0);
        assert_eq!(element_shift::<u32>(), 2);
        assert_eq!(element_shift::<Twelve>(), 4);
        assert_eq!(element_shift::<[u64; 2]>(), 4);
    }

    /// Every masked element of a `T` table ends within the first `table_mask + 1` bytes, is at
    /// most the unmasked index, and `usize::MAX` leaves the index as it is.
    fn check<T>() {
        let size = size_of::<T>();
        let s = element_shift::<T>();
        for k in s..=26 {
            let table_mask = (1usize << k) - 1;
            for index in (0..1 << 20)
                .step_by(97)
                .chain([(1 << 20) - 1, usize::MAX / 32])
            {
                let masked = masked_index::<T>(index, table_mask);
                assert!(masked <= index);
                assert!((masked + 1) * size <= table_mask + 1, "k {k} index {index}");
                assert_eq!(masked_index::<T>(index, usize::MAX), index);
            }
            // The mask keeps every index below the limit: the first 2^k bytes are all reachable.
            let limit = (table_mask + 1) >> s;
            assert_eq!(masked_index::<T>(limit - 1, table_mask), limit - 1);
            assert_eq!(masked_index::<T>(limit, table_mask), 0);
        }
    }

    #[test]
    fn masked_elements_lie_in_the_first_mask_plus_one_bytes() {
        check::<u32>();
        check::<Twelve>();
        check::<[u64; 2]>();
    }

    #[test]
    fn byte_views_cover_the_table() {
        static TABLE: [u32; 5] = [1, 2, 3, 4, 5];
        let bytes = table_bytes(&TABLE);
        assert_eq!(bytes.len(), 20);
        assert_eq!(bytes.as_ptr(), TABLE.as_ptr().cast::<u8>());
        assert_eq!(&bytes[4..8], &2u32.to_ne_bytes());
    }
}
