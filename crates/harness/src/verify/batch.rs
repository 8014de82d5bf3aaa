//! The batch part of `kiki check`: `attacks_many_at` and `attacks_many_occupancies_at` at every
//! SIMD level this build and CPU have, for every slider kind, against the naive reference.
//!
//! Occupancies come from the attack-map check's seeded games (every fourth position, as the
//! backend's own incrementally kept occupancy): all 81 squares under each one, and the same
//! (occupancy, square) pairs as one batch across positions.

use crate::verify::attack_maps::Game;
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::reference;
use kiki_core::simd::SimdLevel;
use kiki_core::types::{draw_bits, Color, Slider, Square};
use kiki_engine::position::Position;
use std::fmt;

/// Every slider kind a batch can be asked for.
const SLIDERS: [Slider; 6] = [
    Slider::Rook,
    Slider::Bishop,
    Slider::Dragon,
    Slider::Horse,
    Slider::Lance(Color::Black),
    Slider::Lance(Color::White),
];

/// The naive attacks of `slider` on `sq` under the canonical `occupancy`.
fn naive(slider: Slider, occupancy: u128, sq: Square) -> u128 {
    match slider {
        Slider::Rook => reference::rook(occupancy, sq),
        Slider::Bishop => reference::bishop(occupancy, sq),
        Slider::Dragon => reference::dragon(occupancy, sq),
        Slider::Horse => reference::horse(occupancy, sq),
        Slider::Lance(color) => reference::lance(color, occupancy, sq),
    }
}

/// A batch lookup that disagrees with the reference.
#[derive(Clone, Debug)]
pub struct BatchMismatch {
    pub backend: &'static str,
    pub call: &'static str,
    pub level: SimdLevel,
    pub slider: Slider,
    pub square: Square,
    pub occupancy: u128,
    pub expected: u128,
    pub got: u128,
}

impl fmt::Display for BatchMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: {} at {} for {:?} on {} disagrees with the reference",
            self.backend, self.call, self.level, self.slider, self.square
        )?;
        writeln!(f, "occupancy:\n{}", draw_bits(self.occupancy))?;
        writeln!(f, "expected:\n{}", draw_bits(self.expected))?;
        write!(f, "got:\n{}", draw_bits(self.got))
    }
}

/// What a passing batch check covered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchReport {
    pub lookups: u64,
    pub occupancies: usize,
    pub levels: Vec<SimdLevel>,
}

impl fmt::Display for BatchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let levels: Vec<&str> = self.levels.iter().map(|l| l.name()).collect();
        write!(
            f,
            "{} batch lookups (attacks_many and attacks_many_occupancies, every slider kind) \
             under {} occupancies; SIMD levels covered: {}",
            self.lookups,
            self.occupancies,
            levels.join(", ")
        )
    }
}

/// Checks both batch calls of `backend` at every level in `levels` over the games' positions.
pub fn check_batches<B: Backend>(
    backend: &B,
    games: &[Game],
    levels: &[SimdLevel],
) -> Result<BatchReport, Box<BatchMismatch>> {
    let mut occupancies: Vec<(B::Occupancy, u128)> = Vec::new();
    for game in games {
        let mut pos = Position::from_sfen(*backend, game.start).expect("the starts are valid SFEN");
        for ply in 0..game.positions() {
            if ply > 0 {
                pos.do_move(game.moves[ply - 1]);
            }
            if ply % 4 == 0 {
                occupancies.push((pos.occupancy().clone(), pos.occupied().to_canonical()));
            }
        }
    }
    let squares: Vec<Square> = Square::all().collect();
    let mut out = vec![B::Bitboard::empty(); squares.len()];
    let mut lookups = 0u64;
    let mismatch = |call, level, slider, square, occupancy, expected, got| {
        Box::new(BatchMismatch {
            backend: B::info().name,
            call,
            level,
            slider,
            square,
            occupancy,
            expected,
            got,
        })
    };
    // The pairs batch: position i with square i mod 81, all positions in one call.
    let pair_squares: Vec<Square> = (0..occupancies.len())
        .map(|i| squares[i % squares.len()])
        .collect();
    let pair_occupancies: Vec<B::Occupancy> = occupancies.iter().map(|o| o.0.clone()).collect();
    let mut pair_out = vec![B::Bitboard::empty(); pair_squares.len()];
    for &level in levels {
        for slider in SLIDERS {
            for (occupancy, canonical) in &occupancies {
                backend.attacks_many_at(level, slider, occupancy, &squares, &mut out);
                for (&sq, got) in squares.iter().zip(&out) {
                    let expected = naive(slider, *canonical, sq);
                    if got.to_canonical() != expected {
                        let got = got.to_canonical();
                        return Err(mismatch(
                            "attacks_many",
                            level,
                            slider,
                            sq,
                            *canonical,
                            expected,
                            got,
                        ));
                    }
                }
                lookups += squares.len() as u64;
            }
            backend.attacks_many_occupancies_at(
                level,
                slider,
                &pair_occupancies,
                &pair_squares,
                &mut pair_out,
            );
            for ((&sq, got), (_, canonical)) in pair_squares.iter().zip(&pair_out).zip(&occupancies)
            {
                let expected = naive(slider, *canonical, sq);
                if got.to_canonical() != expected {
                    let got = got.to_canonical();
                    return Err(mismatch(
                        "attacks_many_occupancies",
                        level,
                        slider,
                        sq,
                        *canonical,
                        expected,
                        got,
                    ));
                }
            }
            lookups += pair_squares.len() as u64;
        }
    }
    Ok(BatchReport {
        lookups,
        occupancies: occupancies.len(),
        levels: levels.to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::attack_maps::random_games;
    use kiki_core::reference::Reference;

    #[test]
    fn the_reference_passes_at_every_level_and_the_line_names_them() {
        let games = random_games(200, 7);
        let levels = SimdLevel::available();
        let report = check_batches(&Reference, &games, &levels).unwrap();
        assert!(report.occupancies >= 50);
        assert!(report.lookups > 0);
        let line = report.to_string();
        for level in levels {
            assert!(line.contains(level.name()), "{line}");
        }
    }

    #[test]
    fn a_mismatch_draws_the_occupancy_and_both_attack_sets() {
        let text = BatchMismatch {
            backend: "x",
            call: "attacks_many",
            level: SimdLevel::Portable,
            slider: Slider::Rook,
            square: Square::new(40).unwrap(),
            occupancy: 1,
            expected: 2,
            got: 4,
        }
        .to_string();
        assert!(
            text.contains("disagrees with the reference") && text.matches("9 8 7").count() == 3
        );
    }
}
