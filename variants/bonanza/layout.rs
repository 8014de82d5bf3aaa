//! Where each square sits in Bonanza's base and rotated boards, and the small tables derived
//! from that, all built at compile time.
//!
//! Coordinates: Bonanza square `i = irank * 9 + ifile`, `irank` 0 = rank `a`, `ifile` 0 =
//! file 9 (the left edge as black sees the board). Every table here is indexed by the
//! canonical square, so the hot path never converts.

use super::bitboard::{bonanza_index, BonanzaBitboard, SQUARE_BITS, WORD_BITS};
use kiki_core::backend::Bitboard;
use kiki_core::types::Square;

/// Where one square's bit sits: `words[word]`, bit `bit`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BitPosition {
    pub word: usize,
    pub bit: u32,
}

/// The four boards Bonanza keeps: the base board and its three rotations.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Rotation {
    /// The base board; a rank is 9 consecutive bits.
    Base,
    /// Rotated 90° (`occupied_rl90`): a file is 9 consecutive bits.
    Rl90,
    /// Rotated 45° (`occupied_rl45`): a diagonal on which `irank - ifile` is constant.
    Rl45,
    /// Rotated −45° (`occupied_rr45`): a diagonal on which `irank + ifile` is constant.
    Rr45,
}

impl Rotation {
    #[cfg(test)]
    pub const ALL: [Rotation; 4] = [
        Rotation::Base,
        Rotation::Rl90,
        Rotation::Rl45,
        Rotation::Rr45,
    ];
}

/// The 9-bit slot (0–8, three to a word) holding the line of `(irank, ifile)` in `rotation`.
/// The 17 diagonals share 9 slots: a long diagonal and its short complement fill one slot
/// together; they cover disjoint files (rl45) or ranks (rr45), so their bits never collide.
const fn slot(rotation: Rotation, irank: usize, ifile: usize) -> usize {
    match rotation {
        Rotation::Base => irank,
        // The seed's `irl90 = 2 - ifile / 3` and `srl90 = (ifile % 3) * 9 + 1`: files 9..7 in
        // word 2, files 3..1 in word 0, each word's first file in its lowest 9 bits.
        Rotation::Rl90 => 8 - ifile,
        Rotation::Rl45 => {
            if irank >= ifile {
                irank - ifile
            } else {
                9 + irank - ifile
            }
        }
        Rotation::Rr45 => {
            if irank + ifile >= 8 {
                irank + ifile - 8
            } else {
                irank + ifile + 1
            }
        }
    }
}

/// Where square `(irank, ifile)` sits in `rotation`. Slot `s` takes word `s / 3`, bits
/// `(2 - s % 3) * 9 ..= (2 - s % 3) * 9 + 8`; inside the slot, the position along the line is
/// the one the seed's table loops test with `(pcs << 1) & (1 << position)`:
/// `8 - ifile` for ranks (base) and rl45 diagonals, `8 - irank` for files (rl90), `irank`
/// for rr45 diagonals.
pub const fn position(rotation: Rotation, irank: usize, ifile: usize) -> BitPosition {
    let slot = slot(rotation, irank, ifile);
    let along = match rotation {
        Rotation::Base | Rotation::Rl45 => 8 - ifile,
        Rotation::Rl90 => 8 - irank,
        Rotation::Rr45 => irank,
    };
    BitPosition {
        word: slot / 3,
        bit: ((2 - slot % 3) * 9 + along) as u32,
    }
}

/// Where canonical square `canonical` sits in `rotation`.
pub const fn canonical_position(rotation: Rotation, canonical: usize) -> BitPosition {
    let i = bonanza_index(canonical);
    position(rotation, i / 9, i % 9)
}

/// The seed's `slide_tbl`: for one square, per board, which word holds its line and how far to
/// shift it right so that `& 0x7f` leaves the 7 squares of its line off the board's edges.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C)]
pub struct Slide {
    /// `ir0`, `sr0`: the rank, in the base board.
    pub rank_word: u8,
    pub rank_shift: u8,
    /// `irl90`, `srl90`: the file, in `occupied_rl90`.
    pub file_word: u8,
    pub file_shift: u8,
    /// `irl45`, `srl45`.
    pub rl45_word: u8,
    pub rl45_shift: u8,
    /// `irr45`, `srr45`.
    pub rr45_word: u8,
    pub rr45_shift: u8,
}

/// The seed's formulas for `aslide[i]`, verbatim in meaning: (word, shift) per board.
const fn seed_slide(irank: usize, ifile: usize) -> Slide {
    let i = irank * 9 + ifile;
    let rl45 = if irank >= ifile {
        irank - ifile
    } else {
        9 + irank - ifile
    };
    let rr45 = if ifile + irank >= 8 {
        irank + ifile - 8
    } else {
        irank + ifile + 1
    };
    Slide {
        rank_word: (i / 27) as u8,
        rank_shift: ((2 - (i / 9) % 3) * 9 + 1) as u8,
        file_word: (2 - (i % 9) / 3) as u8,
        file_shift: (((i % 9) % 3) * 9 + 1) as u8,
        rl45_word: (rl45 / 3) as u8,
        rl45_shift: ((2 - rl45 % 3) * 9 + 1) as u8,
        rr45_word: (rr45 / 3) as u8,
        rr45_shift: ((2 - rr45 % 3) * 9 + 1) as u8,
    }
}

/// The seed's `aslide`, indexed by canonical square.
pub static SLIDE: [Slide; 81] = {
    let mut table = [seed_slide(0, 0); 81];
    let mut canonical = 0;
    while canonical < 81 {
        let i = bonanza_index(canonical);
        table[canonical] = seed_slide(i / 9, i % 9);
        canonical += 1;
    }
    table
};

// The hot path indexes `[u32; 3]` with these words unchecked and shifts a `u32` by these
// amounts: both must be in range for every square.
const _: () = {
    let mut sq = 0;
    while sq < 81 {
        let s = SLIDE[sq];
        assert!(s.rank_word < 3 && s.file_word < 3 && s.rl45_word < 3 && s.rr45_word < 3);
        assert!(s.rank_shift < 21 && s.file_shift < 21 && s.rl45_shift < 21);
        assert!(s.rr45_shift < 21);
        sq += 1;
    }
};

// Every square of every board lands on one of a word's 27 square bits.
const _: () = {
    let rotations = [
        Rotation::Base,
        Rotation::Rl90,
        Rotation::Rl45,
        Rotation::Rr45,
    ];
    let mut r = 0;
    while r < 4 {
        let mut sq = 0;
        while sq < 81 {
            let p = canonical_position(rotations[r], sq);
            assert!(p.word < 3 && p.bit < WORD_BITS);
            sq += 1;
        }
        r += 1;
    }
};

const fn single(position: BitPosition) -> BonanzaBitboard {
    let mut words = [0u32; 3];
    words[position.word] = 1 << position.bit;
    BonanzaBitboard::new(words)
}

/// Bonanza's occupancy: the base board and its three rotations (`occupied_rl90`,
/// `occupied_rl45`, `occupied_rr45`). Also the shape of one square's update masks.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
#[repr(C)]
pub struct RotatedBoards {
    pub occupied: BonanzaBitboard,
    pub occupied_rl90: BonanzaBitboard,
    pub occupied_rl45: BonanzaBitboard,
    pub occupied_rr45: BonanzaBitboard,
}

impl RotatedBoards {
    pub const EMPTY: RotatedBoards = RotatedBoards {
        occupied: BonanzaBitboard::EMPTY,
        occupied_rl90: BonanzaBitboard::EMPTY,
        occupied_rl45: BonanzaBitboard::EMPTY,
        occupied_rr45: BonanzaBitboard::EMPTY,
    };

    /// Sets one square's bits in all four boards (`mask` is a `ROTATED_MASKS` record).
    #[inline(always)]
    pub fn insert(&mut self, mask: &RotatedBoards) {
        self.occupied |= mask.occupied;
        self.occupied_rl90 |= mask.occupied_rl90;
        self.occupied_rl45 |= mask.occupied_rl45;
        self.occupied_rr45 |= mask.occupied_rr45;
    }

    /// Clears one square's bits in all four boards.
    #[inline(always)]
    pub fn remove(&mut self, mask: &RotatedBoards) {
        self.occupied = self.occupied.and_not(mask.occupied);
        self.occupied_rl90 = self.occupied_rl90.and_not(mask.occupied_rl90);
        self.occupied_rl45 = self.occupied_rl45.and_not(mask.occupied_rl45);
        self.occupied_rr45 = self.occupied_rr45.and_not(mask.occupied_rr45);
    }
}

/// Bonanza's `abb_mask`, `abb_mask_rl90`, `abb_mask_rl45`, `abb_mask_rr45` side by side: one
/// 48-byte record per square, so an update is a single record applied to all four boards.
pub static ROTATED_MASKS: [RotatedBoards; 81] = {
    let mut table = [RotatedBoards::EMPTY; 81];
    let mut sq = 0;
    while sq < 81 {
        table[sq] = RotatedBoards {
            occupied: single(canonical_position(Rotation::Base, sq)),
            occupied_rl90: single(canonical_position(Rotation::Rl90, sq)),
            occupied_rl45: single(canonical_position(Rotation::Rl45, sq)),
            occupied_rr45: single(canonical_position(Rotation::Rr45, sq)),
        };
        sq += 1;
    }
    table
};

/// Squares one step away by each `(file delta, rank delta)`, as a bitboard.
const fn steps(canonical: usize, deltas: &[(i8, i8)]) -> BonanzaBitboard {
    // SAFETY: callers pass canonical < 81.
    let sq = unsafe { Square::new_unchecked(canonical as u8) };
    let mut board = BonanzaBitboard::EMPTY;
    let mut k = 0;
    while k < deltas.len() {
        if let Some(target) = sq.offset(deltas[k].0, deltas[k].1) {
            board = board.union(SQUARE_BITS[target.index()]);
        }
        k += 1;
    }
    board
}

/// A canonical bitboard in Bonanza's layout.
pub const fn from_canonical(bits: u128) -> BonanzaBitboard {
    let mut board = BonanzaBitboard::EMPTY;
    let mut sq = 0;
    while sq < 81 {
        if bits >> sq & 1 != 0 {
            board = board.union(SQUARE_BITS[sq]);
        }
        sq += 1;
    }
    board
}

/// Squares from `canonical` in one direction to the edge, `sq` excluded.
const fn ray(canonical: usize, (file_delta, rank_delta): (i8, i8)) -> BonanzaBitboard {
    // SAFETY: callers pass canonical < 81.
    let sq = unsafe { Square::new_unchecked(canonical as u8) };
    from_canonical(kiki_core::types::ray(0, sq, file_delta, rank_delta))
}

/// The step-attack bitboard of every square for one set of deltas.
const fn per_square(deltas: &[(i8, i8)]) -> [BonanzaBitboard; 81] {
    let mut table = [BonanzaBitboard::EMPTY; 81];
    let mut sq = 0;
    while sq < 81 {
        table[sq] = steps(sq, deltas);
        sq += 1;
    }
    table
}

/// The ray of every square in one direction.
const fn per_ray(direction: (i8, i8)) -> [BonanzaBitboard; 81] {
    let mut table = [BonanzaBitboard::EMPTY; 81];
    let mut sq = 0;
    while sq < 81 {
        table[sq] = ray(sq, direction);
        sq += 1;
    }
    table
}

/// The seed's `abb_minus_rays` (towards rank `a`, black's lance) and `abb_plus_rays` (towards
/// rank `i`, white's lance), as `[colour][square]`.
pub static LANCE_RAYS: [[BonanzaBitboard; 81]; 2] = [per_ray((0, -1)), per_ray((0, 1))];

pub static KING_ATTACKS: [BonanzaBitboard; 81] = per_square(&kiki_core::types::KING_STEPS);

/// `[colour][square]`; black's forward is rank delta −1.
pub static GOLD_ATTACKS: [[BonanzaBitboard; 81]; 2] = [
    per_square(&[(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (0, 1)]),
    per_square(&[(-1, 1), (0, 1), (1, 1), (-1, 0), (1, 0), (0, -1)]),
];
pub static SILVER_ATTACKS: [[BonanzaBitboard; 81]; 2] = [
    per_square(&[(-1, -1), (0, -1), (1, -1), (-1, 1), (1, 1)]),
    per_square(&[(-1, 1), (0, 1), (1, 1), (-1, -1), (1, -1)]),
];
pub static KNIGHT_ATTACKS: [[BonanzaBitboard; 81]; 2] = [
    per_square(&[(-1, -2), (1, -2)]),
    per_square(&[(-1, 2), (1, 2)]),
];
pub static PAWN_ATTACKS: [[BonanzaBitboard; 81]; 2] =
    [per_square(&[(0, -1)]), per_square(&[(0, 1)])];
