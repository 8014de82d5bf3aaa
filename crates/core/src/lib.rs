//! kiki's vocabulary, the bottom layer every other crate builds on: squares, colours and pieces,
//! the canonical board, the `Backend` trait, SIMD levels, input quoting and units, the public
//! positions, page-aware allocation and the attack tables' arena.

pub mod backend;
pub mod input;
pub mod pages;
pub mod public_positions;
pub mod reference;
pub mod simd;
pub mod table_arena;
pub mod types;
pub mod units;
