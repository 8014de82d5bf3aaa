//! The shogi engine over any backend: position, move generation, hands, mate in one, perft and
//! incremental effects.

pub mod attack_map;
pub mod effects;
pub mod hands;
pub mod mate1;
pub mod movegen;
pub mod perft;
pub mod position;
pub mod search;
