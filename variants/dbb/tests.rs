//! Layout tests of the DBB backend (the differential check in `crates/engine/tests/every_backend/backends.rs` covers answers).

use super::bitboard::{dbb_bit, DbbBitboard, BIT_TO_SQUARE, SQUARE_MASKS};
use super::tables::{
    diag1_layout, diag2_layout, file_layout, line_through, rank_read, RotatedLayout, DIAG1, DIAG2,
    FILE, RANK,
};
use super::{Dbb, DbbComputed, DbbOccupancy};
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::reference;
use kiki_core::types::{Color, Square, ALL_SQUARES};

fn sq(text: &str) -> Square {
    Square::parse(text).unwrap()
}

fn all() -> DbbBitboard {
    DbbBitboard::from_canonical(ALL_SQUARES)
}

#[test]
fn squares_sit_where_bonanza_puts_them() {
    // 9a is Bonanza's square 0: word 0, bit 26. 1a ends rank a: bit 18.
    assert_eq!(dbb_bit(sq("9a").index()), 26);
    assert_eq!(dbb_bit(sq("1a").index()), 18);
    assert_eq!(dbb_bit(sq("1c").index()), 0);
    // 9d opens word 1 (the high half of u64 0), 1i closes word 2 (the low half of u64 1).
    assert_eq!(dbb_bit(sq("9d").index()), 32 + 26);
    assert_eq!(dbb_bit(sq("1i").index()), 64);
    assert_eq!(dbb_bit(sq("9g").index()), 64 + 26);
}

#[test]
fn three_words_of_27_bits_and_a_spare_word() {
    let board = all();
    for word in 0..3 {
        assert_eq!(board.p32(word), (1 << 27) - 1, "word {word}");
    }
    assert_eq!(board.p32(3), 0);
    assert_eq!(board.count(), 81);
    let mut seen = 0u128;
    for (index, mask) in SQUARE_MASKS.iter().enumerate() {
        assert_eq!(mask.count(), 1);
        assert_eq!(BIT_TO_SQUARE[dbb_bit(index)] as usize, index);
        let bits = mask.0[0] as u128 | (mask.0[1] as u128) << 64;
        assert_eq!(seen & bits, 0);
        seen |= bits;
    }
}

#[test]
fn pop_walks_the_dbb_bit_order_and_returns_canonical_squares() {
    let order: Vec<Square> = all().squares().collect();
    assert_eq!(order.len(), 81);
    // Bit 0 of word 0 is rank c's file-1 square; the last bit used is 9g's (word 2, bit 26).
    assert_eq!(order[0], sq("1c"));
    assert_eq!(order[1], sq("2c"));
    assert_eq!(order[9], sq("1b"));
    assert_eq!(order[27], sq("1f"));
    assert_eq!(order[80], sq("9g"));
    let mut board = DbbBitboard::square(sq("5e"));
    assert_eq!(board.pop(), Some(sq("5e")));
    assert_eq!(board.pop(), None);
}

#[test]
fn rank_byte_is_the_seeds_p32_read() {
    let board = all();
    for s in Square::all() {
        let i = super::bitboard::bonanza_index(s.index());
        // The seed's aslide: ir0 = i / 27, sr0 = (2 - (i / 9) % 3) * 9 + 1.
        let (ir0, sr0) = (i / 27, (2 - (i / 9) % 3) * 9 + 1);
        let (word, shift) = rank_read(s);
        assert_eq!(word as usize, ir0 / 2);
        assert_eq!(shift as usize, 32 * (ir0 % 2) + sr0);
        let rank = reference::line(s, RANK) | s.bit();
        let inner = rank & !sq_bit(1, s.rank()) & !sq_bit(9, s.rank());
        let byte_of =
            |canonical: u128| (DbbBitboard::from_canonical(canonical).p32(ir0) >> sr0) & 0xff;
        assert_eq!(
            byte_of(inner),
            0x7f,
            "{s}: the 7 inner squares are bits 0..7"
        );
        assert_eq!(byte_of(sq_bit(9, s.rank())), 0x80, "{s}: bit 7 is file 9");
        assert_eq!(
            byte_of(sq_bit(1, s.rank())),
            0,
            "{s}: file 1 is below the byte"
        );
        assert_eq!(byte_of(ALL_SQUARES & !rank), 0, "{s}: other ranks stay out");
        assert_eq!(byte_of(ALL_SQUARES), 0xff);
        // The u64 read the backend does equals the p32 read.
        assert_eq!(
            (board.0[word as usize] >> shift) as u8 as u32,
            (board.p32(ir0) >> sr0) & 0xff
        );
    }
}

fn sq_bit(file: u8, rank: u8) -> u128 {
    Square::from_file_rank(file, rank).unwrap().bit()
}

/// Every line's inner squares occupy bits 0.. of the byte read at the square's shift, in order.
fn check_rotated(layout: &RotatedLayout, direction: (i8, i8), used_bits: u32) {
    let mut all_bits = 0u64;
    for s in Square::all() {
        let (line, _) = line_through(s, direction);
        let shift = layout.shift[s.index()] as u32;
        assert!(shift + 8 <= 64, "{s}: byte read past the u64");
        for (position, &on_line) in line.iter().enumerate() {
            let bit = layout.bit[on_line.index()];
            if position == 0 || position + 1 == line.len() {
                assert_eq!(bit, None, "{on_line}: an end square has no rotated bit");
            } else {
                let bit = bit.expect("inner square has a bit") as u32;
                assert_eq!(bit - shift, position as u32 - 1, "{s} via {on_line}");
                all_bits |= 1 << bit;
            }
        }
    }
    assert_eq!(all_bits, (1u64 << used_bits) - 1);
}

#[test]
fn rotated_layouts_pack_inner_squares() {
    // Files: 9 × 7 = 63 bits; diagonals: 7 + 2 × (6 + 5 + ... + 0) = 49 bits.
    check_rotated(&file_layout(), FILE, 63);
    check_rotated(&diag1_layout(), DIAG1, 49);
    check_rotated(&diag2_layout(), DIAG2, 49);
    // Files are stored 7 bits a file from file 9: ranks b..h of file 9 are bits 0..7.
    assert_eq!(file_layout().bit[sq("9b").index()], Some(0));
    assert_eq!(file_layout().bit[sq("1h").index()], Some(62));
}

#[test]
fn occupancy_copies_match_the_layouts() {
    let backend = Dbb::new().unwrap();
    let occupancy = backend.occupancy(ALL_SQUARES);
    assert_eq!(occupancy.occupied, all());
    assert_eq!(occupancy.occupied_rr90, (1 << 63) - 1);
    assert_eq!(occupancy.occupied_rr45, (1 << 49) - 1);
    assert_eq!(occupancy.occupied_rl45, (1 << 49) - 1);
    let mut toggled = occupancy;
    for s in Square::all() {
        backend.clear_square(&mut toggled, s);
    }
    assert_eq!(toggled, DbbOccupancy::default());
}

#[test]
fn table_entries_ignore_the_spare_bits_of_the_byte() {
    let backend = Dbb::new().unwrap();
    let t = backend.tables();
    let tables = [
        &t.rank_attacks,
        &t.file_attacks,
        &t.file_compounds.lance_attacks[0],
        &t.file_compounds.lance_attacks[1],
        &t.file_compounds.file_king_attacks,
        &t.diag1_attacks,
        &t.diag1_compound,
        &t.diag2_attacks,
    ];
    for table in tables {
        for s in Square::all() {
            let row = &table[s.index()];
            for byte in 128..256 {
                assert_eq!(row[byte], row[byte & 0x7f], "{s} byte {byte:#x}");
            }
        }
    }
    // 7a-8b-9c has one inner square: bit 0 alone matters.
    let corner_diag = &t.diag1_attacks[sq("7a").index()];
    for byte in 0..256 {
        assert_eq!(corner_diag[byte], corner_diag[byte & 1]);
    }
}

#[test]
fn pre_combined_tables_add_the_king_steps() {
    let backend = Dbb::new().unwrap();
    let empty = backend.occupancy(0);
    for s in Square::all() {
        let king = reference::king(s);
        assert_eq!(
            backend.dragon_attacks(&empty, s).to_canonical(),
            reference::rook(0, s) | king
        );
        assert_eq!(
            backend.horse_attacks(&empty, s).to_canonical(),
            reference::bishop(0, s) | king
        );
    }
    let blocked = backend.occupancy(sq("5c").bit() | sq("5g").bit());
    let black = backend.lance_attacks(Color::Black, &blocked, sq("5e"));
    assert_eq!(black.to_canonical(), sq("5d").bit() | sq("5c").bit());
    let white = backend.lance_attacks(Color::White, &blocked, sq("5e"));
    assert_eq!(white.to_canonical(), sq("5f").bit() | sq("5g").bit());
}

#[test]
fn table_bytes_are_reported_exactly() {
    let line = 81 * 256 * 16;
    let steps = 9 * 81 * 16;
    let slide = 81 * 8;
    let masks = 81 * 48;
    let constants = 81 * 16 + 128;
    assert_eq!(
        Dbb::table_bytes(),
        8 * line + steps + slide + masks + constants
    );
    assert_eq!(Dbb::table_bytes(), 2_671_832);
    // Everything but the two const tables lives in the one allocation, plus the 8 bytes of
    // tail padding that round it to the 16-byte alignment of its bitboards.
    assert_eq!(
        std::mem::size_of::<super::DbbTables>(),
        Dbb::table_bytes() - constants + 8
    );
    // dbb.computed: four line tables and the lance rays instead of eight line tables.
    let rays = 2 * 81 * 16;
    assert_eq!(
        DbbComputed::table_bytes(),
        4 * line + rays + steps + slide + masks + constants
    );
    assert_eq!(
        std::mem::size_of::<super::DbbTables<super::Computed>>(),
        DbbComputed::table_bytes() - constants + 8
    );
}

#[test]
fn computed_compounds_answer_as_the_pre_combined_tables() {
    let (base, computed) = (Dbb::new().unwrap(), DbbComputed::new().unwrap());
    let mut canonical = 0x5EED_u128;
    for _ in 0..2_000 {
        canonical =
            canonical.wrapping_mul(0x2545_F491_4F6C_DD1D_8F3D_5A2B_1C4E_6F97) ^ (canonical >> 61);
        let occupancy = canonical & ALL_SQUARES;
        let (a, b) = (base.occupancy(occupancy), computed.occupancy(occupancy));
        for s in Square::all() {
            for color in Color::BOTH {
                assert_eq!(
                    base.lance_attacks(color, &a, s),
                    computed.lance_attacks(color, &b, s)
                );
            }
            assert_eq!(base.dragon_attacks(&a, s), computed.dragon_attacks(&b, s));
            assert_eq!(base.horse_attacks(&a, s), computed.horse_attacks(&b, s));
        }
    }
}
