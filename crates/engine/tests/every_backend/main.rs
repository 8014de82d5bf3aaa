//! Every registered backend through the engine, in one test binary (release builds link with
//! LTO, so one link instead of seven): each backend against the naive reference, batch and masked
//! lookups, bitboard operations, attack maps, the move generator's rules, mate in one, perft and the search. These are the tests that
//! depend on the SIMD level, so CI runs this crate again with the portable twins and at AVX-512;
//! each file here is a module, and the integration tests' `every_test_file_is_a_module` (in
//! `tests/main.rs` at the root) fails if one is left out.

mod attacks_many;
mod backends;
mod backends_agree;
mod bitboard_ops;
mod masked_lookups;
mod mate1;
mod movegen_rules;
mod perft;
mod search;
