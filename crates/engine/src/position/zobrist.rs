//! The Zobrist keys (fixed seed, shared by every backend) and a position's key from scratch.

use super::Position;
use crate::hands::HandLayout;
use kiki_core::backend::Backend;
use kiki_core::types::{Color, PieceKind, Square};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::OnceLock;

/// Fixed-seed Zobrist keys (non-generic, shared by all backends).
pub struct Zobrist {
    pub board: [[u64; 81]; 28],
    /// `[colour][hand index][count]`.
    pub hand: [[[u64; 19]; 7]; 2],
    pub side: u64,
}

/// The keys, drawn on first use.
pub(super) fn keys() -> &'static Zobrist {
    static KEYS: OnceLock<Zobrist> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x4B49_4B49_5A4F_4252);
        let mut keys = Zobrist {
            board: [[0; 81]; 28],
            hand: [[[0; 19]; 7]; 2],
            side: 0,
        };
        for row in keys.board.iter_mut() {
            for key in row.iter_mut() {
                *key = rng.next_u64();
            }
        }
        for color in keys.hand.iter_mut() {
            for kind in color.iter_mut() {
                // Count 0 keeps key 0 so that an empty hand contributes nothing.
                for key in kind.iter_mut().skip(1) {
                    *key = rng.next_u64();
                }
            }
        }
        keys.side = rng.next_u64();
        keys
    })
}

impl<B: Backend> Position<B> {
    /// The key recomputed from every square, hand count and the side to move.
    pub(super) fn compute_key(&self) -> u64 {
        let mut key = 0;
        for sq in Square::all() {
            if let Some(piece) = self.board[sq.index()] {
                key ^= self.zobrist.board[piece.index()][sq.index()];
            }
        }
        for color in Color::BOTH {
            for hand_index in 0..7 {
                key ^= self.zobrist.hand[color.index()][hand_index]
                    [self.hands[color.index()].count(PieceKind::HAND[hand_index]) as usize];
            }
        }
        if self.side == Color::White {
            key ^= self.zobrist.side;
        }
        key
    }
}
