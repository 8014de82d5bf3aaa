//! Helpers several backends share: the split 128-bit layout and what its backends share beyond
//! it, the magic-number search, and the masked index and byte views of the hot twin.

pub mod magic_search;
pub mod masked;
pub mod split;
pub mod split_steps;
