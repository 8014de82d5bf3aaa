//! Every registered backend through the engine, in one test binary (release builds link with
//! LTO, so one link instead of seven): each backend against the naive reference, batch and masked
//! lookups, bitboard operations, attack maps, mate in one and perft. These are the tests that
//! depend on the SIMD level, so CI runs this crate again with the portable twins and at AVX-512;
//! each file here is a module, and the integration tests' `every_test_file_is_a_module` (in
//! `tests/main.rs` at the root) fails if one is left out.

mod attacks_many;
mod backends;
mod backends_agree;
mod bitboard_ops;
mod masked_lookups;
mod mate1;
mod perft;
