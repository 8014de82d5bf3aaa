//! kiki: interchangeable sliding-attack backends for shogi behind one trait, and the harness
//! that checks and measures them.

pub mod backend;
pub mod check;
pub mod cli;
pub mod effects;
pub mod hands;
pub mod harness;
pub mod input;
pub mod mate1;
pub mod movegen;
#[cfg(feature = "peers")]
pub mod peers;
pub mod perft;
pub mod position;
pub mod public_positions;
pub mod types;
pub mod units;

#[path = "../variants/mod.rs"]
pub mod variants;

pub use backend::{Backend, BackendInfo, Bitboard, TableInfo};
pub use types::{Color, Slider, Square, Stepper};

// The layer below the engine, under its old names too.
pub use variants::shared::{magic_search, split};
pub use variants::{reference, registry};
