//! Whole-side attack maps: the union of every attack of one colour and the per-square attack
//! counts (the effect board of seed 001), for a whole position at once.
//!
//! Two ways to compute them, proven equal in the tests:
//!
//! * **per piece** ([`Method::PerPiece`]): the backend's own lookups, one per piece, each
//!   attack set added into the bit-sliced counts (any backend, in its own layout);
//! * **set-wise** ([`Method::SetWise`]): direction by direction over every piece of the side at
//!   once, on the canonical `u128` board (bit `(file - 1) * 9 + (rank - 1)`): an occluded
//!   (Kogge-Stone) fill per sliding direction and one shift per step offset, then bit-sliced
//!   carry-save adders over the resulting bitboards. Within one direction the rays of different
//!   sliders are disjoint (a slider stops the ray behind it), and one step offset reaches a
//!   square from one square only, so every direction's bitboard is a 0/1 count: the sum over
//!   directions is exact. The fills run at a [`SimdLevel`]: the portable `u128` twin, AVX2 (two
//!   directions per `ymm`) or AVX-512 (four per `zmm`, VBMI2 double-word shifts for the
//!   128-bit lane shifts).

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod portable;

use crate::position::{PieceKind, Position};
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::simd::SimdLevel;
use kiki_core::types::{Color, Square, ALL_SQUARES};

/// Bit planes of the counts: 5 planes count to 31, above the 18 directions that can reach one
/// square (8 sliding directions and 10 step offsets).
pub const COUNT_PLANES: usize = 5;

/// One colour's attacks over the whole board, canonical.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SideAttacks {
    /// Every square the colour attacks.
    pub union: u128,
    /// Per-square attack counts, bit-sliced: bit `sq` of `planes[i]` is bit `i` of the count.
    pub planes: [u128; COUNT_PLANES],
}

impl SideAttacks {
    /// Whether `sq` is attacked.
    #[inline(always)]
    pub fn attacks(&self, sq: Square) -> bool {
        self.union & sq.bit() != 0
    }

    /// How many pieces attack `sq`.
    #[inline]
    pub fn count(&self, sq: Square) -> u8 {
        let mut count = 0;
        for (i, plane) in self.planes.iter().enumerate() {
            count |= (((plane >> sq.index()) & 1) as u8) << i;
        }
        count
    }

    /// Every square's count, in canonical order.
    pub fn counts(&self) -> [u8; 81] {
        let mut counts = [0u8; 81];
        for sq in Square::all() {
            counts[sq.index()] = self.count(sq);
        }
        counts
    }

    /// The squares attacked at least `n` times (bit-sliced comparison, no board walk).
    pub fn at_least(&self, n: u8) -> u128 {
        (0..=31u8)
            .filter(|&c| c >= n)
            .fold(0, |acc, c| acc | self.equal_to(c))
    }

    /// The squares attacked exactly `n` times.
    pub fn equal_to(&self, n: u8) -> u128 {
        self.planes
            .iter()
            .enumerate()
            .fold(ALL_SQUARES, |acc, (i, &plane)| {
                acc & if (n >> i) & 1 == 1 { plane } else { !plane }
            })
    }
}

pub use crate::position::Method;

/// One colour's pieces, canonical, grouped by how they move; the input of the set-wise path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SidePieces {
    pub color: Color,
    /// The occupied squares the sliders stop at (both colours; a caller may take a square out,
    /// e.g. the enemy king, to see through it).
    pub occupied: u128,
    /// Rooks and dragons (the four orthogonal slides).
    pub rook_sliders: u128,
    /// Bishops and horses (the four diagonal slides).
    pub bishop_sliders: u128,
    pub lances: u128,
    /// Pieces with the one-step forward move: pawn, silver, gold movers, king, horse.
    pub forward_steppers: u128,
    /// Pieces with the forward diagonal steps: silver, gold movers, king, dragon.
    pub forward_diagonal_steppers: u128,
    /// Pieces with the sideways and backward steps: gold movers, king, horse.
    pub side_and_back_steppers: u128,
    /// Pieces with the backward diagonal steps: silver, king, dragon.
    pub back_diagonal_steppers: u128,
    pub knights: u128,
}

impl SidePieces {
    /// `color`'s pieces in `pos`, under the position's occupancy.
    pub fn of<B: Backend>(pos: &Position<B>, color: Color) -> SidePieces {
        let set = |kind: PieceKind| pos.pieces(color, kind).to_canonical();
        let gold_movers = (pos.gold_movers() & pos.color_bb(color)).to_canonical();
        let (pawns, silvers, kings) = (
            set(PieceKind::Pawn),
            set(PieceKind::Silver),
            set(PieceKind::King),
        );
        let (horses, dragons) = (set(PieceKind::Horse), set(PieceKind::Dragon));
        SidePieces {
            color,
            occupied: pos.occupied().to_canonical(),
            rook_sliders: set(PieceKind::Rook) | dragons,
            bishop_sliders: set(PieceKind::Bishop) | horses,
            lances: set(PieceKind::Lance),
            forward_steppers: pawns | silvers | gold_movers | kings | horses,
            forward_diagonal_steppers: silvers | gold_movers | kings | dragons,
            side_and_back_steppers: gold_movers | kings | horses,
            back_diagonal_steppers: silvers | kings | dragons,
            knights: set(PieceKind::Knight),
        }
    }
}

impl SidePieces {
    /// The same pieces less those on `squares` (e.g. a piece that moved); occupancy unchanged.
    #[inline(always)]
    pub fn without(self, squares: u128) -> SidePieces {
        let keep = !squares;
        SidePieces {
            rook_sliders: self.rook_sliders & keep,
            bishop_sliders: self.bishop_sliders & keep,
            lances: self.lances & keep,
            forward_steppers: self.forward_steppers & keep,
            forward_diagonal_steppers: self.forward_diagonal_steppers & keep,
            side_and_back_steppers: self.side_and_back_steppers & keep,
            back_diagonal_steppers: self.back_diagonal_steppers & keep,
            knights: self.knights & keep,
            ..self
        }
    }
}

/// The union of the set-wise directions: every square `pieces` attack.
#[inline]
pub fn set_wise_union(pieces: &SidePieces, level: SimdLevel) -> u128 {
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx512 && level.is_available() {
        let plan = &PLANS[pieces.color.index()];
        // SAFETY: the CPU has AVX-512 F, BW, VL and VBMI2 (checked just above, cached).
        return unsafe { avx512::union(plan, &generators(pieces), ALL_SQUARES & !pieces.occupied) };
    }
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx2 && level.is_available() {
        let plan = &PLANS[pieces.color.index()];
        // SAFETY: the CPU has AVX2 (checked just above, cached).
        return unsafe { avx2::union(plan, &generators(pieces), ALL_SQUARES & !pieces.occupied) };
    }
    directions(pieces, level).iter().fold(0, |acc, &d| acc | d)
}

/// A rank mask: the squares whose rank (1–9) satisfies `keep`.
const fn ranks_where(low: u8, high: u8) -> u128 {
    let mut mask = 0u128;
    let mut index = 0;
    while index < 81 {
        let rank = (index % 9) as u8 + 1;
        if rank >= low && rank <= high {
            mask |= 1u128 << index;
        }
        index += 1;
    }
    mask
}

/// The squares a move by `rank_delta` ranks can land on without wrapping into the next file.
const fn landing_mask(rank_delta: i8) -> u128 {
    match rank_delta {
        -2 => ranks_where(1, 7),
        -1 => ranks_where(1, 8),
        0 => ALL_SQUARES,
        1 => ranks_where(2, 9),
        2 => ranks_where(3, 9),
        _ => panic!("rank delta out of range"),
    }
}

/// One direction a side's pieces attack in: the shift (canonical bits, `file × 9 + rank`) and
/// the landing mask. Shifts up the bit order are "left", down it "right".
#[derive(Clone, Copy, Debug)]
struct Lane {
    /// `|file_delta × 9 + rank_delta|`.
    shift: u32,
    landing: u128,
}

const fn lane(file_delta: i8, rank_delta: i8) -> Lane {
    let shift = file_delta as i32 * 9 + rank_delta as i32;
    Lane {
        shift: shift.unsigned_abs(),
        landing: landing_mask(rank_delta),
    }
}

/// Slot ranges of a [`Plan`]: four sliding directions up the bit order ("left" shifts), four
/// down it, four step offsets up, four down, then the two knight jumps (up, down).
pub(crate) const SLIDE_LEFT: usize = 0;
pub(crate) const SLIDE_RIGHT: usize = 4;
pub(crate) const STEP_LEFT: usize = 8;
pub(crate) const STEP_RIGHT: usize = 12;
pub(crate) const KNIGHT_LEFT: usize = 16;
pub(crate) const KNIGHT_RIGHT: usize = 17;
pub(crate) const SLOTS: usize = 18;

/// The directions of one colour, flat in slot order so that the SIMD levels load them as
/// vectors. What generates each slot is in [`generators`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    /// Shift of each slot, in bits.
    pub shifts: [u32; SLOTS],
    /// Each slot's shift as 64-bit lane counts, twice per slot (both words of a 128-bit lane).
    pub lane_shifts: [u64; 2 * SLOTS],
    /// The squares each slot can land on without wrapping into the next file.
    pub landings: [u128; SLOTS],
}

/// `forward` is the colour's forward rank delta (black −1, white +1). The slot order here and
/// in [`generators`] must match.
const fn plan(forward: i8) -> Plan {
    let f = forward;
    let lanes: [Lane; SLOTS] = [
        // Rook: rank up, file up; bishop: (+1, +1), (+1, −1). Left shifts 1, 9, 10, 8.
        lane(0, 1),
        lane(1, 0),
        lane(1, 1),
        lane(1, -1),
        // Rook: rank down, file down; bishop: (−1, −1), (−1, +1). Right shifts 1, 9, 10, 8.
        lane(0, -1),
        lane(-1, 0),
        lane(-1, -1),
        lane(-1, 1),
        // Steps up the bit order: rank up, sideways, forward diagonal, back diagonal.
        lane(0, 1),
        lane(1, 0),
        lane(1, f),
        lane(1, -f),
        // Steps down it: rank down, sideways, forward diagonal, back diagonal.
        lane(0, -1),
        lane(-1, 0),
        lane(-1, f),
        lane(-1, -f),
        // Knight jumps.
        lane(1, 2 * f),
        lane(-1, 2 * f),
    ];
    let mut plan = Plan {
        shifts: [0; SLOTS],
        lane_shifts: [0; 2 * SLOTS],
        landings: [0; SLOTS],
    };
    let mut slot = 0;
    while slot < SLOTS {
        plan.shifts[slot] = lanes[slot].shift;
        plan.lane_shifts[2 * slot] = lanes[slot].shift as u64;
        plan.lane_shifts[2 * slot + 1] = lanes[slot].shift as u64;
        plan.landings[slot] = lanes[slot].landing;
        slot += 1;
    }
    plan
}

// A `static`, not a `const`: indexed at run time, a `const` array is copied onto the stack.
pub(crate) static PLANS: [Plan; 2] = [plan(-1), plan(1)];

/// The generator of every slot of [`PLANS`], in slot order: slides left, slides right, steps
/// left, steps right, knight left, knight right.
pub(crate) fn generators(pieces: &SidePieces) -> [u128; SLOTS] {
    let rook = pieces.rook_sliders;
    let bishop = pieces.bishop_sliders;
    let black = pieces.color == Color::Black;
    // The lance slides forward: rank down for black (right), rank up for white (left).
    let (lance_up, lance_down) = if black {
        (0, pieces.lances)
    } else {
        (pieces.lances, 0)
    };
    // Steps on the file: rank up is back for black, forward for white.
    let (file_up, file_down) = if black {
        (pieces.side_and_back_steppers, pieces.forward_steppers)
    } else {
        (pieces.forward_steppers, pieces.side_and_back_steppers)
    };
    let side = pieces.side_and_back_steppers;
    let forward_diagonal = pieces.forward_diagonal_steppers;
    let back_diagonal = pieces.back_diagonal_steppers;
    [
        rook | lance_up,
        rook,
        bishop,
        bishop,
        rook | lance_down,
        rook,
        bishop,
        bishop,
        file_up,
        side,
        forward_diagonal,
        back_diagonal,
        file_down,
        side,
        forward_diagonal,
        back_diagonal,
        pieces.knights,
        pieces.knights,
    ]
}

/// The set-wise attacks of `pieces` at `level` (which this CPU must have: see
/// [`SimdLevel::availability`]; a level it lacks falls back to the portable twin).
#[inline]
pub fn set_wise(pieces: &SidePieces, level: SimdLevel) -> SideAttacks {
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx512 && level.is_available() {
        let plan = &PLANS[pieces.color.index()];
        // SAFETY: the CPU has AVX-512 F, BW, VL and VBMI2 (checked just above, cached).
        return unsafe {
            avx512::side_attacks(plan, &generators(pieces), ALL_SQUARES & !pieces.occupied)
        };
    }
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx2 && level.is_available() {
        let plan = &PLANS[pieces.color.index()];
        // SAFETY: the CPU has AVX2 (checked just above, cached).
        return unsafe {
            avx2::side_attacks(plan, &generators(pieces), ALL_SQUARES & !pieces.occupied)
        };
    }
    sum_directions(&directions(pieces, level))
}

/// The 18 direction bitboards (slot order of [`generators`]), each a 0/1 count per square.
#[inline]
pub fn directions(pieces: &SidePieces, level: SimdLevel) -> [u128; SLOTS] {
    let plan = &PLANS[pieces.color.index()];
    let generators = generators(pieces);
    let empty = ALL_SQUARES & !pieces.occupied;
    match level {
        #[cfg(target_arch = "x86_64")]
        SimdLevel::Avx512 if level.is_available() => {
            // SAFETY: the CPU has AVX-512 F, BW, VL and VBMI2 (checked just above, cached).
            unsafe { avx512::directions(plan, &generators, empty) }
        }
        #[cfg(target_arch = "x86_64")]
        SimdLevel::Avx2 if level.is_available() => {
            // SAFETY: the CPU has AVX2 (checked just above, cached).
            unsafe { avx2::directions(plan, &generators, empty) }
        }
        _ => portable::directions(plan, &generators, empty),
    }
}

/// Full adder over bit planes: (sum, carry).
#[inline(always)]
fn full_add(a: u128, b: u128, c: u128) -> (u128, u128) {
    let partial = a ^ b;
    (partial ^ c, (a & b) | (partial & c))
}

#[inline(always)]
fn half_add(a: u128, b: u128) -> (u128, u128) {
    (a ^ b, a & b)
}

/// Union and bit-sliced counts of 18 0/1 bitboards by a carry-save adder tree (16 adders).
#[inline]
pub fn sum_directions(d: &[u128; SLOTS]) -> SideAttacks {
    let union = d.iter().fold(0, |acc, &x| acc | x);
    // Weight 1: six full adders over the 18 inputs.
    let (s0, c0) = full_add(d[0], d[1], d[2]);
    let (s1, c1) = full_add(d[3], d[4], d[5]);
    let (s2, c2) = full_add(d[6], d[7], d[8]);
    let (s3, c3) = full_add(d[9], d[10], d[11]);
    let (s4, c4) = full_add(d[12], d[13], d[14]);
    let (s5, c5) = full_add(d[15], d[16], d[17]);
    let (t0, e0) = full_add(s0, s1, s2);
    let (t1, e1) = full_add(s3, s4, s5);
    let (ones, e2) = half_add(t0, t1);
    // Weight 2: c0–c5, e0–e2.
    let (u0, f0) = full_add(c0, c1, c2);
    let (u1, f1) = full_add(c3, c4, c5);
    let (u2, f2) = full_add(e0, e1, e2);
    let (twos, f3) = full_add(u0, u1, u2);
    // Weight 4: f0–f3.
    let (v0, g0) = full_add(f0, f1, f2);
    let (fours, g1) = half_add(v0, f3);
    // Weight 8 and 16.
    let (eights, sixteens) = half_add(g0, g1);
    SideAttacks {
        union,
        planes: [ones, twos, fours, eights, sixteens],
    }
}

/// Adds one 0/1 bitboard into bit-sliced counts (a ripple of half adders, in any layout).
#[inline(always)]
fn add_one<BB: Bitboard>(planes: &mut [BB; COUNT_PLANES], attacks: BB) {
    let mut carry = attacks;
    for plane in planes.iter_mut() {
        let next = *plane & carry;
        *plane ^= carry;
        carry = next;
    }
}

impl<B: Backend> Position<B> {
    /// `color`'s whole-side attacks under this position's occupancy, by `method`.
    pub fn side_attacks(&self, color: Color, method: Method) -> SideAttacks {
        match method {
            Method::PerPiece => self.side_attacks_per_piece(color, &self.occupancy),
            Method::SetWise(level) => set_wise(&SidePieces::of(self, color), level),
        }
    }

    /// `color`'s whole-side attacks with the square `through` taken off the board for the
    /// sliders (e.g. the enemy king, so that a square behind it on a checking ray counts as
    /// attacked), by `method`.
    pub fn side_attacks_through(
        &self,
        color: Color,
        through: Square,
        method: Method,
    ) -> SideAttacks {
        match method {
            Method::PerPiece => {
                let mut occupancy = self.occupancy.clone();
                if self.board[through.index()].is_some() {
                    self.backend.clear_square(&mut occupancy, through);
                }
                self.side_attacks_per_piece(color, &occupancy)
            }
            Method::SetWise(level) => {
                let mut pieces = SidePieces::of(self, color);
                pieces.occupied &= !through.bit();
                set_wise(&pieces, level)
            }
        }
    }

    /// Every square `color` attacks in this position (the union alone), canonical.
    pub fn side_union(&self, color: Color, method: Method) -> u128 {
        match method {
            Method::PerPiece => {
                let mut union = B::Bitboard::empty();
                for sq in self.color_bb(color).squares() {
                    if let Some(piece) = self.board[sq.index()] {
                        union |= self.attacks_from(piece, sq, &self.occupancy);
                    }
                }
                union.to_canonical()
            }
            Method::SetWise(level) => set_wise_union(&SidePieces::of(self, color), level),
        }
    }

    /// The squares `color` attacks with `through` taken off the board for the sliders, in the
    /// backend's layout: the union alone (no counts), for king safety.
    #[inline]
    pub fn attacked_through(&self, color: Color, through: Square, method: Method) -> B::Bitboard {
        match method {
            Method::PerPiece => {
                let mut occupancy = self.occupancy.clone();
                if self.board[through.index()].is_some() {
                    self.backend.clear_square(&mut occupancy, through);
                }
                let mut union = B::Bitboard::empty();
                for sq in self.color_bb(color).squares() {
                    if let Some(piece) = self.board[sq.index()] {
                        union |= self.attacks_from(piece, sq, &occupancy);
                    }
                }
                union
            }
            Method::SetWise(level) => {
                let mut pieces = SidePieces::of(self, color);
                pieces.occupied &= !through.bit();
                B::Bitboard::from_canonical(set_wise_union(&pieces, level))
            }
        }
    }

    /// The per-piece path: each piece's lookup, added into bit planes in the backend's layout.
    fn side_attacks_per_piece(&self, color: Color, occupancy: &B::Occupancy) -> SideAttacks {
        let mut union = B::Bitboard::empty();
        let mut planes = [B::Bitboard::empty(); COUNT_PLANES];
        for sq in self.color_bb(color).squares() {
            let Some(piece) = self.board[sq.index()] else {
                continue;
            };
            let attacks = self.attacks_from(piece, sq, occupancy);
            union |= attacks;
            add_one(&mut planes, attacks);
        }
        SideAttacks {
            union: union.to_canonical(),
            planes: planes.map(|plane| plane.to_canonical()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_slots_cover_every_direction_once() {
        // Slides and steps: the eight king directions each, four each way; knights 7 and 11.
        for plan in PLANS {
            for range in [SLIDE_LEFT, SLIDE_RIGHT, STEP_LEFT, STEP_RIGHT] {
                let mut shifts = plan.shifts[range..range + 4].to_vec();
                shifts.sort();
                assert_eq!(shifts, [1, 8, 9, 10]);
            }
        }
        assert_eq!(PLANS[0].shifts[KNIGHT_LEFT..], [7, 11]);
        assert_eq!(PLANS[1].shifts[KNIGHT_LEFT..], [11, 7]);
    }

    #[test]
    fn the_adder_tree_counts_every_total() {
        // Square k gets k of the 18 inputs set: every count 0..=18 once.
        let mut inputs = [0u128; 18];
        for (k, input) in inputs.iter_mut().enumerate() {
            for sq in 0..=18usize {
                if k < sq {
                    *input |= 1 << sq;
                }
            }
        }
        let attacks = sum_directions(&inputs);
        for sq in 0..=18u8 {
            assert_eq!(attacks.count(Square::new(sq).unwrap()), sq);
        }
        assert_eq!(attacks.union, ((1u128 << 19) - 1) & !1);
        assert_eq!(attacks.equal_to(0) & 1, 1);
        assert_eq!(attacks.at_least(18), 1 << 18);
    }
}
