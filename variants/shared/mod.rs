//! Helpers several backends share: the split 128-bit layout and the magic-number search.

pub mod magic_search;
pub mod split;
