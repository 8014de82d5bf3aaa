//! Builds the DBB backend's tables once: rotated-occupancy layouts, the `aslide` read positions,
//! the `[81][256]` line tables of seed 004 and the step tables.

use super::bitboard::{bonanza_index, dbb_bit, DbbBitboard, SQUARE_MASKS};
use kiki_core::types::{Color, Square};

/// Attacks along one line for every square and every byte read from the occupancy.
pub type LineTable = [[DbbBitboard; 256]; 81];
/// One bitboard per square.
pub type SquareTable = [DbbBitboard; 81];

/// Canonical (file, rank) direction of each line kind. Rank: along a rank; file: along a file;
/// diag1 (seed's rr45 board): `ifile + irank` constant; diag2 (rl45 board): `irank - ifile`
/// constant.
pub const RANK: (i8, i8) = (1, 0);
pub const FILE: (i8, i8) = (0, 1);
pub const DIAG1: (i8, i8) = (1, 1);
pub const DIAG2: (i8, i8) = (1, -1);

/// The occupancy state of seed 004: the base DBB and three rotated copies, each in one `u64`
/// holding only the inner squares of its lines. The per-square update masks use the same type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(C, align(16))]
pub struct DbbOccupancy {
    /// Every occupied square, in the DBB layout (ranks are read from it).
    pub occupied: DbbBitboard,
    /// Files: file `f` (ifile 0 = file 9) at bits `7 * ifile ..`, ranks b–h in order.
    pub occupied_rr90: u64,
    /// Diag1 lines (`ifile + irank` constant), inner squares packed line after line.
    pub occupied_rr45: u64,
    /// Diag2 lines (`irank - ifile` constant), inner squares packed line after line.
    pub occupied_rl45: u64,
}

/// Seed 004's `slide_tbl` entry (`aslide[sq]`): where each line through a square is read.
/// Every read is `(word >> shift) as u8`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Slide {
    /// The `u64` of the base DBB that holds the seed's 32-bit word `ir0` (`ir0 / 2`).
    pub rank_word: u8,
    /// The seed's `sr0` as a shift in that `u64`: `32 * (ir0 % 2) + sr0`.
    pub rank_shift: u8,
    /// The seed's `srr90`.
    pub file_shift: u8,
    /// The seed's `srr45`.
    pub diag1_shift: u8,
    /// The seed's `srl45`.
    pub diag2_shift: u8,
    /// Pads the entry to 8 bytes so that indexing is a shift.
    pub padding: [u8; 3],
}

/// The compound pieces' tables of one layout (the `compound-tables` factor), held in
/// `DbbTables` between the plain line tables: seed 004's pre-combined lance, dragon and horse
/// tables, or only the lance rays (the compounds computed at lookup). Every field type must be
/// valid all-zero (integers and arrays of them), as `DbbTables` is allocated zeroed.
pub trait Compounds: Sized + Send + Sync + 'static {
    /// After `file_attacks`.
    type File: Send + Sync + 'static;
    /// After `diag1_attacks`.
    type Diag1: Send + Sync + 'static;
    /// Fills `sq`'s compounds; the plain tables and the king steps are filled for `sq`.
    fn fill(tables: &mut DbbTables<Self>, sq: Square, lance: impl Fn(Color) -> [DbbBitboard; 256]);
}

/// Seed 004's pre-combined file tables.
#[repr(C)]
pub struct PreCombinedFile {
    /// `[Black]` mirrors `adbb_file_minus_attacks` (towards rank a), `[White]`
    /// `adbb_file_plus_attacks`.
    pub lance_attacks: [LineTable; 2],
    /// Mirrors `adbb_file_king_attacks`: file attacks and the king's steps (dragon).
    pub file_king_attacks: LineTable,
}

/// Seed 004's layout: lance, dragon and horse read pre-combined tables (the base backend).
pub struct PreCombined;
/// Lance, dragon and horse computed from the plain tables, the lance rays and the king steps.
pub struct Computed;

impl Compounds for PreCombined {
    type File = PreCombinedFile;
    /// Mirrors `adbb_diag1_king_attacks`: diag1 attacks and the king's steps (horse).
    type Diag1 = LineTable;

    fn fill(tables: &mut DbbTables<Self>, sq: Square, lance: impl Fn(Color) -> [DbbBitboard; 256]) {
        let index = sq.index();
        for color in Color::BOTH {
            tables.file_compounds.lance_attacks[color.index()][index] = lance(color);
        }
        let king = tables.king[index];
        for byte in 0..256 {
            tables.file_compounds.file_king_attacks[index][byte] =
                tables.file_attacks[index][byte] | king;
            tables.diag1_compound[index][byte] = tables.diag1_attacks[index][byte] | king;
        }
    }
}

impl Compounds for Computed {
    /// The lance's ray on an empty board, per colour.
    type File = [SquareTable; 2];
    type Diag1 = ();

    fn fill(tables: &mut DbbTables<Self>, sq: Square, lance: impl Fn(Color) -> [DbbBitboard; 256]) {
        for color in Color::BOTH {
            // With no inner square occupied (byte 0) the lance sees its whole ray.
            tables.file_compounds[color.index()][sq.index()] = lance(color)[0];
        }
    }
}

/// Every table the backend owns, in one allocation so that a handle needs one pointer.
#[repr(C)]
pub struct DbbTables<C: Compounds = PreCombined> {
    /// Mirrors seed 004's `adbb_rank_attacks`.
    pub rank_attacks: LineTable,
    /// Mirrors `adbb_file_attacks`.
    pub file_attacks: LineTable,
    /// The lances' and the dragon's pre-combined tables, or the lance rays.
    pub file_compounds: C::File,
    /// Mirrors `adbb_diag1_attacks`.
    pub diag1_attacks: LineTable,
    /// The horse's pre-combined table, or nothing.
    pub diag1_compound: C::Diag1,
    /// Mirrors `adbb_diag2_attacks`.
    pub diag2_attacks: LineTable,
    /// The bits a square sets in each copy of the occupancy (for incremental set/clear).
    pub square_occupancy: [DbbOccupancy; 81],
    pub king: SquareTable,
    /// Indexed by `Color::index()`.
    pub gold: [SquareTable; 2],
    pub silver: [SquareTable; 2],
    pub knight: [SquareTable; 2],
    pub pawn: [SquareTable; 2],
    /// Mirrors `aslide` (last: its 648 bytes leave 8 bytes of tail padding).
    pub slide: [Slide; 81],
}

/// The squares of the full line through `sq` along `direction`, starting from the end reached by
/// stepping against `direction`, and `sq`'s position on it.
pub fn line_through(sq: Square, (file_delta, rank_delta): (i8, i8)) -> (Vec<Square>, usize) {
    let mut start = sq;
    let mut position = 0;
    while let Some(previous) = start.offset(-file_delta, -rank_delta) {
        start = previous;
        position += 1;
    }
    let mut line = vec![start];
    let mut current = start;
    while let Some(next) = current.offset(file_delta, rank_delta) {
        line.push(next);
        current = next;
    }
    (line, position)
}

/// Whether position `position` of a line of `length` squares is inner (not an end square).
fn is_inner(position: usize, length: usize) -> bool {
    position >= 1 && position + 1 < length
}

/// A rotated occupancy layout: the inner squares of each line get consecutive bits, and the
/// lines are packed one after another in order of their id.
pub struct RotatedLayout {
    /// The bit of each square's copy, `None` for a line's end squares.
    pub bit: [Option<u8>; 81],
    /// The shift that brings the square's line's inner bits to bit 0.
    pub shift: [u8; 81],
}

pub fn rotated_layout(direction: (i8, i8), line_id: fn(Square) -> usize) -> RotatedLayout {
    let mut inner_count = [0usize; 17];
    for sq in Square::all() {
        let (line, _) = line_through(sq, direction);
        inner_count[line_id(sq)] = line.len().saturating_sub(2);
    }
    let mut starts = [0usize; 17];
    for id in 1..17 {
        starts[id] = starts[id - 1] + inner_count[id - 1];
    }
    let mut layout = RotatedLayout {
        bit: [None; 81],
        shift: [0; 81],
    };
    for sq in Square::all() {
        let (line, position) = line_through(sq, direction);
        let start = starts[line_id(sq)];
        layout.shift[sq.index()] = start as u8;
        if is_inner(position, line.len()) {
            layout.bit[sq.index()] = Some((start + position - 1) as u8);
        }
    }
    layout
}

/// Bonanza's ifile (0 = file 9) and irank (0 = rank a).
fn ifile_irank(sq: Square) -> (usize, usize) {
    let i = bonanza_index(sq.index());
    (i % 9, i / 9)
}

pub fn file_layout() -> RotatedLayout {
    rotated_layout(FILE, |sq| ifile_irank(sq).0)
}

pub fn diag1_layout() -> RotatedLayout {
    rotated_layout(DIAG1, |sq| {
        let (ifile, irank) = ifile_irank(sq);
        ifile + irank
    })
}

pub fn diag2_layout() -> RotatedLayout {
    rotated_layout(DIAG2, |sq| {
        let (ifile, irank) = ifile_irank(sq);
        irank + 8 - ifile
    })
}

/// Where the rank through `sq` is read from the base DBB: the `u64` and the shift.
pub fn rank_read(sq: Square) -> (u8, u8) {
    let i = bonanza_index(sq.index());
    let ir0 = i / 27;
    let sr0 = (2 - (i / 9) % 3) * 9 + 1;
    ((ir0 / 2) as u8, (32 * (ir0 % 2) + sr0) as u8)
}

/// Attacks from `sq` along `direction` for each byte of the line's occupancy read, walking the
/// given sides (-1: against `direction`, +1: along it). `byte_bit(s)` is the bit of the byte
/// that holds inner square `s`.
fn fill_line(
    table: &mut [DbbBitboard; 256],
    sq: Square,
    direction: (i8, i8),
    sides: &[isize],
    byte_bit: impl Fn(Square) -> usize,
) {
    let (line, position) = line_through(sq, direction);
    for (byte, entry) in table.iter_mut().enumerate() {
        let mut attacks = DbbBitboard::EMPTY;
        for &side in sides {
            let mut p = position as isize + side;
            while p >= 0 && (p as usize) < line.len() {
                let target = line[p as usize];
                attacks |= SQUARE_MASKS[target.index()];
                if is_inner(p as usize, line.len()) {
                    let bit = byte_bit(target);
                    assert!(bit < 8, "inner square of {sq}'s line outside its byte");
                    if byte >> bit & 1 != 0 {
                        break;
                    }
                }
                p += side;
            }
        }
        *entry = attacks;
    }
}

/// One step table from (file delta, rank delta) pairs.
fn step_table(deltas: &[(i8, i8)]) -> SquareTable {
    let mut table = [DbbBitboard::EMPTY; 81];
    for sq in Square::all() {
        for &(file_delta, rank_delta) in deltas {
            if let Some(target) = sq.offset(file_delta, rank_delta) {
                table[sq.index()] |= SQUARE_MASKS[target.index()];
            }
        }
    }
    table
}

fn per_color(deltas: impl Fn(i8) -> Vec<(i8, i8)>) -> [SquareTable; 2] {
    Color::BOTH.map(|color| step_table(&deltas(color.forward())))
}

/// A zeroed `DbbTables` allocated straight on the heap (2.5 MiB would overflow a thread's
/// stack if built there first; `Box::new_zeroed` needs Rust 1.92, above the crate's MSRV).
fn zeroed_tables<C: Compounds>() -> Box<DbbTables<C>> {
    let layout = std::alloc::Layout::new::<DbbTables<C>>();
    // SAFETY: the layout is not zero-sized. `DbbTables` holds only integers and arrays of
    // integers (bitboards, bytes) and `C`'s types, which `Compounds` requires to be such too,
    // so all-zero bits are a valid value and the zeroed allocation is an initialised
    // `DbbTables`, allocated with the layout `Box` frees it with.
    unsafe {
        let pointer = std::alloc::alloc_zeroed(layout).cast::<DbbTables<C>>();
        if pointer.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Box::from_raw(pointer)
    }
}

/// Builds every table of layout `C` (once per process; about 2.5 MiB pre-combined).
pub fn build<C: Compounds>() -> Box<DbbTables<C>> {
    let mut tables = zeroed_tables::<C>();

    let files = file_layout();
    let diag1 = diag1_layout();
    let diag2 = diag2_layout();
    let rotated_bit =
        |layout: &RotatedLayout, s: Square| layout.bit[s.index()].map_or(0, |b| 1u64 << b);

    tables.king = step_table(&kiki_core::types::KING_STEPS);
    tables.gold = per_color(|f| vec![(-1, f), (0, f), (1, f), (-1, 0), (1, 0), (0, -f)]);
    tables.silver = per_color(|f| vec![(-1, f), (0, f), (1, f), (-1, -f), (1, -f)]);
    tables.knight = per_color(|f| vec![(-1, 2 * f), (1, 2 * f)]);
    tables.pawn = per_color(|f| vec![(0, f)]);

    for sq in Square::all() {
        let index = sq.index();
        let (rank_word, rank_shift) = rank_read(sq);
        tables.slide[index] = Slide {
            rank_word,
            rank_shift,
            file_shift: files.shift[index],
            diag1_shift: diag1.shift[index],
            diag2_shift: diag2.shift[index],
            padding: [0; 3],
        };
        tables.square_occupancy[index] = DbbOccupancy {
            occupied: SQUARE_MASKS[index],
            occupied_rr90: rotated_bit(&files, sq),
            occupied_rr45: rotated_bit(&diag1, sq),
            occupied_rl45: rotated_bit(&diag2, sq),
        };

        let rank_bit = |s: Square| {
            (dbb_bit(s.index()) - 64 * rank_word as usize).wrapping_sub(rank_shift as usize)
        };
        let rotated_byte_bit = |layout: &RotatedLayout, s: Square| {
            let bit = layout.bit[s.index()].map_or(usize::MAX, usize::from);
            bit.wrapping_sub(layout.shift[index] as usize)
        };
        let both = &[-1, 1];
        fill_line(&mut tables.rank_attacks[index], sq, RANK, both, rank_bit);
        fill_line(&mut tables.file_attacks[index], sq, FILE, both, |s| {
            rotated_byte_bit(&files, s)
        });
        fill_line(&mut tables.diag1_attacks[index], sq, DIAG1, both, |s| {
            rotated_byte_bit(&diag1, s)
        });
        fill_line(&mut tables.diag2_attacks[index], sq, DIAG2, both, |s| {
            rotated_byte_bit(&diag2, s)
        });
        // Along FILE, side -1 walks towards rank a: black's lance.
        let lance = |color: Color| {
            let side = match color {
                Color::Black => -1,
                Color::White => 1,
            };
            let mut line = [DbbBitboard::EMPTY; 256];
            fill_line(&mut line, sq, FILE, &[side], |s| {
                rotated_byte_bit(&files, s)
            });
            line
        };
        C::fill(&mut tables, sq, lance);
    }
    tables
}
