//! Layout tests for the Bonanza backend (the differential check lives in `crates/engine/tests/every_backend/backends.rs`).

use super::bitboard::{bonanza_index, canonical_index, SQUARE_BITS, SQUARE_OF_BIT, WORD_BITS};
use super::layout::{canonical_position, BitPosition, Rotation, ROTATED_MASKS, SLIDE};
use super::*;
use kiki_core::backend::Bitboard;
use kiki_core::reference;

fn sq(text: &str) -> Square {
    Square::parse(text).unwrap()
}

fn mask_in(masks: &RotatedBoards, rotation: Rotation) -> BonanzaBitboard {
    match rotation {
        Rotation::Base => masks.occupied,
        Rotation::Rl90 => masks.occupied_rl90,
        Rotation::Rl45 => masks.occupied_rl45,
        Rotation::Rr45 => masks.occupied_rr45,
    }
}

/// The full line through `sq` (itself included) that `rotation` serves.
fn full_line(rotation: Rotation, sq: Square) -> u128 {
    reference::line(sq, line_directions(rotation)[0]) | sq.bit()
}

/// The two end squares of a line: its squares with fewer than two neighbours on it.
fn line_ends(line: u128, rotation: Rotation) -> u128 {
    let [forward, _] = line_directions(rotation);
    Square::all()
        .filter(|s| line & s.bit() != 0)
        .filter(|s| {
            let ahead = s.offset(forward.0, forward.1);
            let behind = s.offset(-forward.0, -forward.1);
            ahead.is_none() || behind.is_none()
        })
        .fold(0, |acc, s| acc | s.bit())
}

#[test]
fn square_9a_is_bonanza_index_0_at_the_top_bit_of_word_0() {
    assert_eq!(bonanza_index(sq("9a").index()), 0);
    assert_eq!(bonanza_index(sq("1a").index()), 8);
    assert_eq!(bonanza_index(sq("9b").index()), 9);
    assert_eq!(bonanza_index(sq("1i").index()), 80);
    assert_eq!(BonanzaBitboard::square(sq("9a")).words, [1 << 26, 0, 0]);
    assert_eq!(BonanzaBitboard::square(sq("1c")).words, [1, 0, 0]);
    assert_eq!(BonanzaBitboard::square(sq("9d")).words, [0, 1 << 26, 0]);
    assert_eq!(BonanzaBitboard::square(sq("1i")).words, [0, 0, 1]);
    for s in Square::all() {
        assert_eq!(canonical_index(bonanza_index(s.index())), s.index());
        let i = bonanza_index(s.index());
        let expected = BitPosition {
            word: i / 27,
            bit: 26 - (i % 27) as u32,
        };
        assert_eq!(canonical_position(Rotation::Base, s.index()), expected);
    }
}

#[test]
fn pop_takes_the_lowest_bit_of_the_first_word() {
    let mut all = BonanzaBitboard::from_canonical(ALL_SQUARES);
    assert_eq!(all.pop(), Some(sq("1c")));
    assert_eq!(all.pop(), Some(sq("2c")));
    let mut last = BonanzaBitboard::square(sq("9a")) | BonanzaBitboard::square(sq("5i"));
    assert_eq!(last.pop(), Some(sq("9a")));
    assert_eq!(last.pop(), Some(sq("5i")));
    assert_eq!(last.pop(), None);
}

#[test]
fn every_rotation_is_a_bijection_onto_27_bits_a_word() {
    for rotation in Rotation::ALL {
        let mut seen = [0u32; 3];
        for s in Square::all() {
            let p = canonical_position(rotation, s.index());
            assert!(p.word < 3 && p.bit < WORD_BITS, "{rotation:?} {s}: {p:?}");
            assert_eq!(
                seen[p.word] & (1 << p.bit),
                0,
                "{rotation:?} {s}: collision"
            );
            seen[p.word] |= 1 << p.bit;
        }
        assert_eq!(seen, [(1 << 27) - 1; 3], "{rotation:?}");
    }
}

/// The squares on the two board edges that bound a line of `rotation`: the files 9 and 1 for
/// ranks and rl45 diagonals (their bits are ordered by file), the ranks a and i for files and
/// rr45 diagonals (ordered by rank).
fn window_edges(rotation: Rotation) -> u128 {
    Square::all()
        .filter(|s| match rotation {
            Rotation::Base | Rotation::Rl45 => s.file() == 1 || s.file() == 9,
            Rotation::Rl90 | Rotation::Rr45 => s.rank() == 1 || s.rank() == 9,
        })
        .fold(0, |acc, s| acc | s.bit())
}

/// What the hot path does: shift the slide table's word right and keep 7 bits. Run on the real
/// per-square update masks, it must pick out, of the square's line, exactly the squares off
/// the two bounding edges: all the line's inner squares, plus, on a short diagonal, an end
/// square that is not on an edge (harmless: the walk stops there anyway). The other squares
/// it picks belong to the short diagonal sharing the slot, never to the line.
#[test]
fn rotated_masks_extract_the_inner_squares_of_the_right_line() {
    for s in Square::all() {
        let slide = SLIDE[s.index()];
        for (rotation, word, shift) in [
            (Rotation::Base, slide.rank_word, slide.rank_shift),
            (Rotation::Rl90, slide.file_word, slide.file_shift),
            (Rotation::Rl45, slide.rl45_word, slide.rl45_shift),
            (Rotation::Rr45, slide.rr45_word, slide.rr45_shift),
        ] {
            let extracted = Square::all()
                .filter(|t| {
                    let mask = mask_in(&ROTATED_MASKS[t.index()], rotation);
                    (mask.words[word as usize] >> shift) & 0x7f != 0
                })
                .fold(0u128, |acc, t| acc | t.bit());
            let line = full_line(rotation, s);
            let inner = line & !line_ends(line, rotation);
            assert_eq!(extracted.count_ones(), 7, "{rotation:?} line of {s}");
            assert_eq!(
                extracted & line,
                line & !window_edges(rotation),
                "{rotation:?} line of {s}"
            );
            assert_eq!(extracted & inner, inner, "{rotation:?} line of {s}");
            // Ranks and files fill their slot alone: exactly the 7 inner squares.
            if matches!(rotation, Rotation::Base | Rotation::Rl90) {
                assert_eq!(extracted, inner, "{rotation:?} line of {s}");
            }
        }
    }
}

#[test]
fn diagonals_share_slots_only_with_their_complement() {
    // 2a (irank 0, ifile 7) lies on the 2-square rl45 diagonal 2a–1b, which shares the slot of
    // the 7-square diagonal 9c–3i (irank − ifile = 2).
    let a = canonical_position(Rotation::Rl45, sq("2a").index());
    let b = canonical_position(Rotation::Rl45, sq("9c").index());
    assert_eq!(a.word, b.word);
    assert_eq!((a.bit / 9, b.bit / 9), (0, 0));
}

#[test]
fn occupancy_keeps_all_four_boards() {
    let backend = Bonanza::new().unwrap();
    let bits = sq("5e").bit() | sq("2b").bit() | sq("9i").bit();
    let mut occupancy = backend.occupancy(0);
    for s in [sq("5e"), sq("2b"), sq("9i")] {
        backend.set_square(&mut occupancy, s);
    }
    assert_eq!(occupancy, backend.occupancy(bits));
    for rotation in Rotation::ALL {
        assert_eq!(mask_in(&occupancy, rotation).count(), 3, "{rotation:?}");
    }
    backend.clear_square(&mut occupancy, sq("2b"));
    assert_eq!(occupancy, backend.occupancy(bits & !sq("2b").bit()));
}

#[test]
fn empty_line_pattern_gives_the_whole_line() {
    // The seed's note: with w == 0 the file table gives the whole file either side.
    let backend = Bonanza::new().unwrap();
    let empty = backend.occupancy(0);
    for s in Square::all() {
        let file = backend.file_attacks(&empty, s).to_canonical();
        assert_eq!(file, reference::line(s, (0, 1)));
        let rank = backend.rank_attacks(&empty, s).to_canonical();
        assert_eq!(rank, reference::line(s, (1, 0)));
    }
    let lance = backend.lance_attacks(Color::Black, &backend.occupancy(sq("5c").bit()), sq("5e"));
    assert_eq!(lance.to_canonical(), sq("5d").bit() | sq("5c").bit());
}

#[test]
fn table_bytes_are_exact() {
    assert_eq!(size_of::<BonanzaBitboard>(), 12);
    let tables = Bonanza::tables();
    let sliding: usize = tables.iter().take(4).map(|t| t.bytes).sum();
    assert_eq!(sliding, 414_720);
    assert_eq!(size_of::<[u8; 128]>(), size_of_val(&SQUARE_OF_BIT));
    assert_eq!(
        size_of::<[BonanzaBitboard; 81]>(),
        size_of_val(&SQUARE_BITS)
    );
    assert_eq!(
        Bonanza::table_bytes(),
        414_720 + 648 + 972 + 3888 + 128 + 2 * 972 + 972 + 4 * 1944
    );
}

#[test]
fn square_bits_are_the_base_board_positions() {
    for s in Square::all() {
        let p = canonical_position(Rotation::Base, s.index());
        let mut words = [0u32; 3];
        words[p.word] = 1 << p.bit;
        assert_eq!(SQUARE_BITS[s.index()].words, words, "{s}");
        assert_eq!(
            SQUARE_OF_BIT[p.word * 32 + p.bit as usize] as usize,
            s.index(),
            "{s}"
        );
    }
}
