//! kiki: interchangeable sliding-attack backends for shogi behind one trait, and the harness
//! that checks and measures them.

pub mod backend;
pub mod cli;
pub mod engine;
pub mod harness;
pub mod input;
#[cfg(feature = "peers")]
pub mod peers;
pub mod public_positions;
pub mod simd;
pub mod types;
pub mod units;
pub mod verify;

#[path = "../variants/mod.rs"]
pub mod variants;

pub use backend::{Backend, BackendInfo, Bitboard, TableInfo};
pub use types::{Color, Slider, Square, Stepper};

// The engine and the check under their old names (`kiki::position`, `crate::check`, ...).
pub use engine::{effects, hands, mate1, movegen, perft, position};
pub use verify::check;

// The layer below the engine, under its old names too.
pub use variants::shared::{magic_search, split};
pub use variants::{reference, registry};
