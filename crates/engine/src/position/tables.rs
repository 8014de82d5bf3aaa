//! The masks and geometry the generator needs, in each backend's bitboard type, built once.

use kiki_core::backend::{Backend, Bitboard};
use kiki_core::types::{ray, Color, Square, BISHOP_DIRECTIONS, ROOK_DIRECTIONS};
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Masks and geometry the generator needs, in the backend's bitboard type. Built once per
/// process and backend type from canonical bits (our own ray walking, not the reference).
pub struct Tables<B: Backend> {
    /// `[a * 81 + b]`: squares strictly between `a` and `b` when they share a line, else empty.
    between: Box<[B::Bitboard]>,
    /// `[a * 81 + b]`: the whole board line through `a` and `b` when they share one, else empty.
    line: Box<[B::Bitboard]>,
    /// Empty-board rook, bishop and lance (`[colour]`) lines from each square.
    pub(crate) rook_rays: [B::Bitboard; 81],
    pub(crate) bishop_rays: [B::Bitboard; 81],
    pub(crate) lance_rays: [[B::Bitboard; 81]; 2],
    /// The file of each square (so the hot path indexes by `Square`).
    pub(crate) file_of: [B::Bitboard; 81],
    /// `[colour]`: the three ranks where that side promotes.
    pub(crate) promotion_zone: [B::Bitboard; 2],
    /// `[colour]`: the farthest rank (pawns and lances must promote there).
    pub(crate) last_rank: [B::Bitboard; 2],
    /// `[colour]`: the farthest two ranks (knights must promote there).
    pub(crate) last_two_ranks: [B::Bitboard; 2],
    pub(crate) all: B::Bitboard,
}

fn rank_mask(ranks: impl Fn(u8) -> bool) -> u128 {
    Square::all()
        .filter(|sq| ranks(sq.rank()))
        .fold(0, |acc, sq| acc | sq.bit())
}

impl<B: Backend> Tables<B> {
    fn build() -> Tables<B> {
        let conv = B::Bitboard::from_canonical;
        let mut between = vec![B::Bitboard::empty(); 81 * 81];
        let mut line = vec![B::Bitboard::empty(); 81 * 81];
        for a in Square::all() {
            for &(df, dr) in ROOK_DIRECTIONS.iter().chain(&BISHOP_DIRECTIONS) {
                let whole_line = conv(ray(0, a, df, dr) | ray(0, a, -df, -dr) | a.bit());
                let mut beyond = ray(0, a, df, dr);
                while beyond != 0 {
                    let b = beyond.trailing_zeros() as usize;
                    beyond &= beyond - 1;
                    // The ray from `a` with `b` as its blocker, less `b`.
                    between[a.index() * 81 + b] = conv(ray(1 << b, a, df, dr) & !(1 << b));
                    line[a.index() * 81 + b] = whole_line;
                }
            }
        }
        let rays = |dirs: &[(i8, i8)], sq: Square| {
            conv(
                dirs.iter()
                    .fold(0, |acc, &(df, dr)| acc | ray(0, sq, df, dr)),
            )
        };
        let rook_rays =
            std::array::from_fn(|i| rays(&ROOK_DIRECTIONS, Square::all().nth(i).unwrap()));
        let bishop_rays =
            std::array::from_fn(|i| rays(&BISHOP_DIRECTIONS, Square::all().nth(i).unwrap()));
        let lance_rays = std::array::from_fn(|c| {
            let color = Color::BOTH[c];
            std::array::from_fn(|i| rays(&[(0, color.forward())], Square::all().nth(i).unwrap()))
        });
        // Each file (index `file - 1`).
        let files: [B::Bitboard; 9] = std::array::from_fn(|f| {
            conv(
                Square::all()
                    .filter(|sq| sq.file() as usize == f + 1)
                    .fold(0, |acc, sq| acc | sq.bit()),
            )
        });
        let file_of = std::array::from_fn(|i| files[i / 9]);
        Tables {
            file_of,
            between: between.into_boxed_slice(),
            line: line.into_boxed_slice(),
            rook_rays,
            bishop_rays,
            lance_rays,
            promotion_zone: [conv(rank_mask(|r| r <= 3)), conv(rank_mask(|r| r >= 7))],
            last_rank: [conv(rank_mask(|r| r == 1)), conv(rank_mask(|r| r == 9))],
            last_two_ranks: [conv(rank_mask(|r| r <= 2)), conv(rank_mask(|r| r >= 8))],
            all: conv(kiki_core::types::ALL_SQUARES),
        }
    }

    /// The tables for backend type `B`, built on first use. Rust has no generic statics, so
    /// they live in a process-wide map keyed by type (looked up once per position built,
    /// never on the hot path: positions keep the `&'static`).
    pub fn get() -> &'static Tables<B> {
        type Map = HashMap<TypeId, &'static (dyn Any + Send + Sync)>;
        static CACHE: OnceLock<Mutex<Map>> = OnceLock::new();
        let mut map = CACHE
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let entry = map
            .entry(TypeId::of::<B>())
            .or_insert_with(|| Box::leak(Box::new(Tables::<B>::build())));
        entry
            .downcast_ref::<Tables<B>>()
            .expect("the map is keyed by the tables' own type")
    }

    #[inline(always)]
    pub fn between(&self, a: Square, b: Square) -> B::Bitboard {
        // SAFETY: `Square` is always < 81, so `a * 81 + b < 6561`, the table's length.
        unsafe { *self.between.get_unchecked(a.index() * 81 + b.index()) }
    }

    #[inline(always)]
    pub fn line(&self, a: Square, b: Square) -> B::Bitboard {
        // SAFETY: as in `between`.
        unsafe { *self.line.get_unchecked(a.index() * 81 + b.index()) }
    }
}
