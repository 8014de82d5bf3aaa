//! Non-inlined copies of each backend's hot calls, so that `scripts/check-bounds.sh` can
//! read the machine code the compiler emits for them and look for bounds checks or panics.

use kiki_core::backend::Backend;
use kiki_core::types::{Color, Square};
use std::hint::black_box;

macro_rules! probes {
    ($($name:literal $module:ident => $backend:ty),* $(,)?) => {
        $(
            mod $module {
                use super::*;
                type B = $backend;
                type Occupancy = <B as Backend>::Occupancy;
                type Board = <B as Backend>::Bitboard;

                #[inline(never)]
                pub fn rook_attacks(b: &B, occupancy: &Occupancy, sq: Square) -> Board {
                    b.rook_attacks(occupancy, sq)
                }
                #[inline(never)]
                pub fn bishop_attacks(b: &B, occupancy: &Occupancy, sq: Square) -> Board {
                    b.bishop_attacks(occupancy, sq)
                }
                #[inline(never)]
                pub fn lance_attacks(b: &B, color: Color, occupancy: &Occupancy, sq: Square) -> Board {
                    b.lance_attacks(color, occupancy, sq)
                }
                #[inline(never)]
                pub fn dragon_attacks(b: &B, occupancy: &Occupancy, sq: Square) -> Board {
                    b.dragon_attacks(occupancy, sq)
                }
                #[inline(never)]
                pub fn horse_attacks(b: &B, occupancy: &Occupancy, sq: Square) -> Board {
                    b.horse_attacks(occupancy, sq)
                }
                #[inline(never)]
                pub fn gold_attacks(b: &B, color: Color, sq: Square) -> Board {
                    b.gold_attacks(color, sq)
                }
                #[inline(never)]
                pub fn set_square(b: &B, occupancy: &mut Occupancy, sq: Square) {
                    b.set_square(occupancy, sq)
                }
                #[inline(never)]
                pub fn clear_square(b: &B, occupancy: &mut Occupancy, sq: Square) {
                    b.clear_square(occupancy, sq)
                }

                pub fn exercise() {
                    let Ok(b) = B::new() else { return };
                    let mut occupancy = b.occupancy(black_box(0x0123_4567_89AB_CDEF_u128));
                    let sq = black_box(Square::new(40).expect("on board"));
                    let color = black_box(Color::White);
                    black_box(rook_attacks(&b, &occupancy, sq));
                    black_box(bishop_attacks(&b, &occupancy, sq));
                    black_box(lance_attacks(&b, color, &occupancy, sq));
                    black_box(dragon_attacks(&b, &occupancy, sq));
                    black_box(horse_attacks(&b, &occupancy, sq));
                    black_box(gold_attacks(&b, color, sq));
                    clear_square(&b, &mut occupancy, sq);
                    set_square(&b, &mut occupancy, sq);
                    black_box(occupancy);
                }
            }
        )*

        fn main() {
            $( $module::exercise(); )*
        }
    };
}

kiki_variants::for_each_backend!(probes);
