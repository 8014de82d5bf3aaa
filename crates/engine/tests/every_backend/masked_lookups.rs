//! The hot twin (`Backend::slider_attacks_masked`) and the attack-table memory of every backend
//! (run in release mode: `cargo test --release -p kiki-engine --test every_backend masked_lookups`).
//!
//! Per backend: with `usize::MAX` the masked lookup is the real one for every slider kind, square
//! and a few thousand random occupancies; with 4 KiB and 64 KiB masks it runs on every square and
//! kind and returns bitboards of real squares, and it differs from the real lookup somewhere
//! exactly when the backend has attack tables; `attack_table_memory` is, table by table, the
//! attack tables of `tables()`; `attack_table_offsets` names, per lookup, the expected number of
//! elements in the expected tables (see `table_reads`), all inside `attack_table_memory`, and
//! moves with the occupancy.

use kiki_core::backend::{Backend, Bitboard};
use kiki_core::types::ALL_SQUARES;
use kiki_core::types::{Color, Slider, Square};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const OCCUPANCIES: usize = 3_000;
const SMALL_MASKS: [usize; 2] = [(4 << 10) - 1, (64 << 10) - 1];

/// The entries of `tables()` that `slider_attacks_masked` masks, in `tables()` order.
fn masked_tables(backend: &str) -> &'static [&'static str] {
    match backend {
        "bonanza" | "bonanza.entry16" | "bonanza.occ-major" => &[
            "abb_file_attacks",
            "ai_rook_attacks_r0",
            "abb_bishop_attacks_rl45",
            "abb_bishop_attacks_rr45",
        ],
        "dbb" => &[
            "adbb_rank_attacks",
            "adbb_file_attacks",
            "adbb_file_minus_attacks (black lance)",
            "adbb_file_plus_attacks (white lance)",
            "adbb_file_king_attacks (dragon)",
            "adbb_diag1_attacks",
            "adbb_diag1_king_attacks (horse)",
            "adbb_diag2_attacks",
        ],
        "dbb.computed" => &[
            "adbb_rank_attacks",
            "adbb_file_attacks",
            "adbb_diag1_attacks",
            "adbb_diag2_attacks",
        ],
        "magic" | "pext" | "magic-plain.computed" => &["rook_attacks", "bishop_attacks"],
        "magic.split-words" => &[
            "rook_attacks_low",
            "rook_attacks_high",
            "bishop_attacks_low",
            "bishop_attacks_high",
        ],
        "pext.file-rank" => &["file_attacks", "rank_attacks", "bishop_attacks"],
        "magic-plain" | "magic-plain.entry16" => &[
            "rook_attacks",
            "dragon_attacks",
            "bishop_attacks",
            "horse_attacks",
        ],
        // Table-free sliders (per-square masks only): the negative controls.
        "qugiy" | "mailbox" | "sqww" => &[],
        other => panic!("no masked-table list for backend '{other}': add one"),
    }
}

/// The tables (names of `masked_tables`, in read order) whose elements one sliding lookup reads:
/// one element per name, so the length is the number of offsets `attack_table_offsets` gives.
/// Magic, pext and magic-plain read 1 element for every kind; bonanza 2 (rook, dragon: file +
/// rank; bishop, horse: rl45 + rr45) and 1 for the lance (file); dbb 2 (rook: file + rank,
/// dragon: file-king + rank, bishop: diag1 + diag2, horse: diag1-king + diag2) and 1 for the
/// lance (its colour's table); the table-free backends none.
fn table_reads(backend: &str, slider: Slider) -> &'static [&'static str] {
    use Slider::*;
    // A layout variant reads what its base reads, except where its factor changes the tables.
    let backend = match backend {
        "bonanza.entry16" | "bonanza.occ-major" => "bonanza",
        "magic-plain.entry16" => "magic-plain",
        other => other,
    };
    match (backend, slider) {
        ("bonanza", Rook | Dragon) => &["abb_file_attacks", "ai_rook_attacks_r0"],
        ("bonanza", Bishop | Horse) => &["abb_bishop_attacks_rl45", "abb_bishop_attacks_rr45"],
        ("bonanza", Lance(_)) => &["abb_file_attacks"],
        ("dbb", Rook) => &["adbb_file_attacks", "adbb_rank_attacks"],
        ("dbb", Bishop) => &["adbb_diag1_attacks", "adbb_diag2_attacks"],
        ("dbb", Lance(Color::Black)) => &["adbb_file_minus_attacks (black lance)"],
        ("dbb", Lance(Color::White)) => &["adbb_file_plus_attacks (white lance)"],
        ("dbb", Dragon) => &["adbb_file_king_attacks (dragon)", "adbb_rank_attacks"],
        ("dbb", Horse) => &["adbb_diag1_king_attacks (horse)", "adbb_diag2_attacks"],
        ("magic" | "pext", Rook | Lance(_) | Dragon) => &["rook_attacks"],
        ("magic" | "pext", Bishop | Horse) => &["bishop_attacks"],
        ("magic-plain", Rook | Lance(_)) => &["rook_attacks"],
        ("magic-plain", Dragon) => &["dragon_attacks"],
        ("magic-plain", Bishop) => &["bishop_attacks"],
        ("magic-plain", Horse) => &["horse_attacks"],
        ("dbb.computed", Rook | Dragon) => &["adbb_file_attacks", "adbb_rank_attacks"],
        ("dbb.computed", Bishop | Horse) => &["adbb_diag1_attacks", "adbb_diag2_attacks"],
        ("dbb.computed", Lance(_)) => &["adbb_file_attacks"],
        ("magic-plain.computed", Rook | Lance(_) | Dragon) => &["rook_attacks"],
        ("magic-plain.computed", Bishop | Horse) => &["bishop_attacks"],
        ("magic.split-words", Rook | Lance(_) | Dragon) => {
            &["rook_attacks_low", "rook_attacks_high"]
        }
        ("magic.split-words", Bishop | Horse) => &["bishop_attacks_low", "bishop_attacks_high"],
        ("pext.file-rank", Rook | Dragon) => &["file_attacks", "rank_attacks"],
        ("pext.file-rank", Lance(_)) => &["file_attacks"],
        ("pext.file-rank", Bishop | Horse) => &["bishop_attacks"],
        ("qugiy" | "mailbox" | "sqww", _) => &[],
        (other, _) => panic!("no table-read list for backend '{other}': add one"),
    }
}

/// Random canonical occupancies at densities of about 25, 50 and 75 %, and the empty and full
/// boards.
fn occupancies(seed: u64) -> Vec<u128> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut all = vec![0, ALL_SQUARES];
    while all.len() < OCCUPANCIES {
        let (a, b): (u128, u128) = (rng.random(), rng.random());
        let bits = match all.len() % 3 {
            0 => a & b,
            1 => a,
            _ => a | b,
        };
        all.push(bits & ALL_SQUARES);
    }
    all
}

fn backend<B: Backend>() -> Option<B> {
    match B::new() {
        Ok(backend) => Some(backend),
        Err(reason) => {
            // Only a backend that this CPU cannot run may be skipped, and it must say why.
            assert!(B::availability().is_err(), "new() failed but available");
            eprintln!("{} unavailable here: {reason}", B::info().name);
            None
        }
    }
}

fn unmasked_is_the_real_lookup<B: Backend>() {
    let Some(backend) = backend::<B>() else {
        return;
    };
    let name = B::info().name;
    for canonical in occupancies(0x4D41_534B) {
        let occupancy = backend.occupancy(canonical);
        for sq in Square::all() {
            for slider in Slider::ALL {
                let real = backend.slider_attacks(slider, &occupancy, sq);
                let masked = backend.slider_attacks_masked(slider, &occupancy, sq, usize::MAX);
                assert_eq!(
                    masked, real,
                    "{name}: {slider} on {sq}, occupancy {canonical:#x}"
                );
            }
        }
    }
}

fn small_masks_stay_on_the_board<B: Backend>() {
    let Some(backend) = backend::<B>() else {
        return;
    };
    let name = B::info().name;
    let has_tables = !masked_tables(name).is_empty();
    for table_mask in SMALL_MASKS {
        let mut differs = false;
        for canonical in occupancies(0x534D_414C).into_iter().take(200) {
            let occupancy = backend.occupancy(canonical);
            for sq in Square::all() {
                for slider in Slider::ALL {
                    let masked = backend.slider_attacks_masked(slider, &occupancy, sq, table_mask);
                    assert_eq!(masked.to_canonical() & !ALL_SQUARES, 0, "{name}");
                    differs |= masked != backend.slider_attacks(slider, &occupancy, sq);
                }
            }
        }
        assert_eq!(
            differs, has_tables,
            "{name}: the mask {table_mask:#x} should change some lookup iff it has attack tables"
        );
    }
}

fn memory_is_the_attack_tables<B: Backend>() {
    let Some(backend) = backend::<B>() else {
        return;
    };
    let name = B::info().name;
    let tables = B::tables();
    let expected: Vec<usize> = masked_tables(name)
        .iter()
        .map(|&table| {
            tables
                .iter()
                .find(|t| t.name == table)
                .unwrap_or_else(|| panic!("{name}: no table '{table}' in tables()"))
                .bytes
        })
        .collect();
    let memory = backend.attack_table_memory();
    let lengths: Vec<usize> = memory.iter().map(|bytes| bytes.len()).collect();
    assert_eq!(lengths, expected, "{name}");
    let total: usize = lengths.iter().sum();
    if expected.is_empty() {
        assert_eq!(total, 0, "{name}");
    } else {
        assert!(total > 0, "{name}");
        // Distinct memory: no two views start at the same place.
        let mut starts: Vec<*const u8> = memory.iter().map(|bytes| bytes.as_ptr()).collect();
        starts.sort();
        starts.dedup();
        assert_eq!(starts.len(), memory.len(), "{name}");
    }
    eprintln!(
        "{name}: attack_table_memory {total} bytes in {} tables",
        memory.len()
    );
}

fn offsets_read_the_expected_tables<B: Backend>() {
    let Some(backend) = backend::<B>() else {
        return;
    };
    let name = B::info().name;
    let tables = masked_tables(name);
    let lengths: Vec<usize> = backend
        .attack_table_memory()
        .iter()
        .map(|bytes| bytes.len())
        .collect();
    // The byte range of each table in the concatenation.
    let mut ranges = Vec::new();
    let mut start = 0;
    for length in &lengths {
        ranges.push(start..start + length);
        start += length;
    }
    let total = start;
    let table_of = |offset: usize| {
        let t = ranges.iter().position(|r| r.contains(&offset));
        tables[t.unwrap_or_else(|| panic!("{name}: offset {offset} past {total} bytes"))]
    };
    let mut out = Vec::new();
    let mut counts = Vec::new();
    for slider in Slider::ALL {
        let expected = table_reads(name, slider);
        let mut distinct = std::collections::HashSet::new();
        for canonical in occupancies(0x4F46_4653).into_iter().take(500) {
            let occupancy = backend.occupancy(canonical);
            for sq in Square::all() {
                out.clear();
                out.push(usize::MAX); // appended, not replaced
                backend.attack_table_offsets(slider, &occupancy, sq, &mut out);
                assert_eq!(out[0], usize::MAX, "{name}");
                let offsets = &out[1..];
                let read: Vec<&str> = offsets.iter().map(|&o| table_of(o)).collect();
                assert_eq!(read, expected, "{name}: {slider} on {sq}, {canonical:#x}");
                for &offset in offsets {
                    assert!(offset + 4 <= total && offset % 4 == 0, "{name}: {offset}");
                    distinct.insert(offset);
                }
            }
        }
        // The offsets depend on the square and occupancy: more than one element per square.
        if !expected.is_empty() {
            assert!(distinct.len() > 81 * expected.len(), "{name}: {slider}");
        }
        counts.push(format!("{slider} {}", expected.len()));
    }
    eprintln!("{name}: offsets per lookup: {}", counts.join(", "));
}

macro_rules! masked_tests {
    ($($name:literal $test:ident => $backend:ty),* $(,)?) => {
        $(
            mod $test {
                #[test]
                fn unmasked_is_the_real_lookup() {
                    super::unmasked_is_the_real_lookup::<$backend>();
                }

                #[test]
                fn small_masks_stay_on_the_board() {
                    super::small_masks_stay_on_the_board::<$backend>();
                }

                #[test]
                fn memory_is_the_attack_tables() {
                    super::memory_is_the_attack_tables::<$backend>();
                }

                #[test]
                fn offsets_read_the_expected_tables() {
                    super::offsets_read_the_expected_tables::<$backend>();
                }
            }
        )*
    };
}

for_each_tested!(masked_tests);
