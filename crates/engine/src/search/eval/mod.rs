//! The evaluations a search computes at every node, with real memory traffic and random
//! weights: `material` (no tables, the control), `nnue` (HalfKP-shaped) and `kpp` (Bonanza's
//! KPP + KKP).
//!
//! Weights come from a fixed seed (they cannot be downloaded here, and which rows a position
//! touches does not depend on their values); indices come from the real position and updates
//! are incremental, as in an engine. The search never decides on these values (it decides on
//! material), so every evaluation walks the same tree: the difference in time is the
//! evaluation's cost. The tables are built once per process and shared by every search.

pub mod features;
mod kpp;
mod nnue;

use crate::position::{Move, Position};
use crate::search::material;
use kiki_core::backend::Backend;
use kiki_core::pages::{PageBuffer, Pages};
use kiki_core::types::Color;

pub use kpp::{KppState, KppWeights};
pub use nnue::{NnueState, NnueWeights};

/// Each evaluation's value from scratch, for tests of the incremental updates.
pub mod from_scratch {
    pub use super::kpp::evaluate_from_scratch as kpp;
    pub use super::nnue::evaluate_from_scratch as nnue;
}

/// The evaluation a search computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EvalKind {
    Material,
    Nnue,
    Kpp,
}

impl EvalKind {
    pub const ALL: [EvalKind; 3] = [EvalKind::Material, EvalKind::Nnue, EvalKind::Kpp];

    pub const fn name(self) -> &'static str {
        match self {
            EvalKind::Material => "material",
            EvalKind::Nnue => "nnue",
            EvalKind::Kpp => "kpp",
        }
    }

    pub fn parse(text: &str) -> Result<EvalKind, String> {
        EvalKind::ALL
            .into_iter()
            .find(|kind| kind.name() == text)
            .ok_or_else(|| format!("unknown evaluation '{text}' (known: material, nnue, kpp)"))
    }

    /// The exact bytes of this evaluation's tables, before building them.
    pub const fn table_bytes(self) -> usize {
        match self {
            EvalKind::Material => 0,
            EvalKind::Nnue => nnue::TABLE_BYTES,
            EvalKind::Kpp => kpp::TABLE_BYTES,
        }
    }
}

/// An evaluation's weights, built once (random, from a fixed seed) and shared read-only.
pub enum EvalTables {
    Material,
    Nnue(Box<NnueWeights>),
    Kpp(Box<KppWeights>),
}

impl EvalTables {
    /// Builds `kind`'s tables on `pages` (engines put them on 2 MiB pages).
    pub fn new(kind: EvalKind, pages: Pages) -> EvalTables {
        match kind {
            EvalKind::Material => EvalTables::Material,
            EvalKind::Nnue => EvalTables::Nnue(Box::new(NnueWeights::new(pages))),
            EvalKind::Kpp => EvalTables::Kpp(Box::new(KppWeights::new(pages))),
        }
    }

    pub fn kind(&self) -> EvalKind {
        match self {
            EvalTables::Material => EvalKind::Material,
            EvalTables::Nnue(_) => EvalKind::Nnue,
            EvalTables::Kpp(_) => EvalKind::Kpp,
        }
    }

    /// The large buffers, for checking which pages the kernel granted.
    pub fn buffers(&self) -> Vec<&PageBuffer> {
        match self {
            EvalTables::Material => Vec::new(),
            EvalTables::Nnue(weights) => vec![&weights.transformer],
            EvalTables::Kpp(weights) => vec![&weights.kpp, &weights.kkp],
        }
    }
}

/// One evaluation's per-search state: a stack with one entry per ply, updated from its parent
/// when a move is made.
pub trait Evaluator {
    /// Sets the root position (the stack holds it alone).
    fn reset<B: Backend>(&mut self, pos: &Position<B>);
    /// Derives the child's state before `mv` is made in `pos` (the parent).
    fn push<B: Backend>(&mut self, pos: &Position<B>, mv: Move);
    /// A null move: the child's features are the parent's.
    fn push_null(&mut self);
    fn pop(&mut self);
    /// The value for the side to move of the current (top) position.
    fn evaluate<B: Backend>(&mut self, pos: &Position<B>) -> i32;
    /// Table cache lines (64 B) read so far: the evaluation's memory traffic.
    fn lines_read(&self) -> u64;
}

/// The control: no tables, the material balance (kept incrementally) as the value.
#[derive(Default)]
pub struct MaterialEval {
    /// Black's material balance per ply.
    stack: Vec<i32>,
}

impl Evaluator for MaterialEval {
    fn reset<B: Backend>(&mut self, pos: &Position<B>) {
        self.stack.clear();
        let sign = if pos.side_to_move() == Color::Black {
            1
        } else {
            -1
        };
        self.stack.push(material::balance(pos) * sign);
    }
    fn push<B: Backend>(&mut self, pos: &Position<B>, mv: Move) {
        let sign = if pos.side_to_move() == Color::Black {
            1
        } else {
            -1
        };
        let top = self.stack.last().copied().unwrap_or(0);
        self.stack.push(top + material::gain(pos, mv) * sign);
    }
    fn push_null(&mut self) {
        let top = self.stack.last().copied().unwrap_or(0);
        self.stack.push(top);
    }
    fn pop(&mut self) {
        self.stack.pop();
    }
    #[inline]
    fn evaluate<B: Backend>(&mut self, pos: &Position<B>) -> i32 {
        let black = self.stack.last().copied().unwrap_or(0);
        if pos.side_to_move() == Color::Black {
            black
        } else {
            -black
        }
    }
    fn lines_read(&self) -> u64 {
        0
    }
}

/// A 64-bit generator for the weights (splitmix64 of the index: fill order does not matter).
#[inline]
pub(crate) fn weight_bits(seed: u64, index: usize) -> u64 {
    let mut z = seed.wrapping_add((index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Four small signed 16-bit weights (−64..63) in one word.
#[inline]
pub(crate) fn small_weights(seed: u64, index: usize) -> u64 {
    let bits = weight_bits(seed, index);
    (0..4).fold(0, |word, lane| {
        let value = ((bits >> (16 * lane)) & 0x7F) as i16 - 64;
        word | (value as u16 as u64) << (16 * lane)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_weights_stay_in_range() {
        for index in 0..1000 {
            let word = small_weights(7, index);
            for lane in 0..4 {
                let value = (word >> (16 * lane)) as u16 as i16;
                assert!((-64..64).contains(&value), "{value}");
            }
        }
    }

    #[test]
    fn names_parse_back_and_unknown_ones_are_refused() {
        for kind in EvalKind::ALL {
            assert_eq!(EvalKind::parse(kind.name()), Ok(kind));
        }
        assert!(EvalKind::parse("bonanza6")
            .unwrap_err()
            .contains("unknown evaluation"));
    }
}
