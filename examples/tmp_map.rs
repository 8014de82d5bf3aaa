use kiki::engine::attack_map::{directions, set_wise, sum_directions, Method, SidePieces};
use kiki::position::Position;
use kiki::public_positions::MIDDLE_GAME;
use kiki::simd::SimdLevel;
use kiki::variants::mailbox::Mailbox;
use kiki::{Backend, Color};
use std::hint::black_box;
fn main() {
    let pos = Position::from_sfen(Mailbox::new().unwrap(), MIDDLE_GAME).unwrap();
    let n = 2_000_000u64;
    for level in SimdLevel::available() {
        let t = std::time::Instant::now();
        let mut f = 0u128;
        for _ in 0..n {
            let p = SidePieces::of(black_box(&pos), Color::Black);
            f ^= p.rook_sliders ^ p.occupied;
        }
        let a = t.elapsed().as_nanos() as f64 / n as f64;
        let pieces = SidePieces::of(&pos, Color::Black);
        let t = std::time::Instant::now();
        for _ in 0..n {
            let d = directions(black_box(&pieces), level);
            f ^= d[3] ^ d[9];
        }
        let b = t.elapsed().as_nanos() as f64 / n as f64;
        let d = directions(&pieces, level);
        let t = std::time::Instant::now();
        for _ in 0..n {
            let s = sum_directions(black_box(&d));
            f ^= s.planes[2] ^ s.union;
        }
        let c = t.elapsed().as_nanos() as f64 / n as f64;
        let t = std::time::Instant::now();
        for _ in 0..n {
            let s = set_wise(black_box(&pieces), level);
            f ^= s.planes[2] ^ s.union;
        }
        let e = t.elapsed().as_nanos() as f64 / n as f64;
        let t = std::time::Instant::now();
        for _ in 0..n {
            let s = black_box(&pos).side_attacks(Color::Black, Method::SetWise(level));
            f ^= s.planes[2] ^ s.union;
        }
        let g = t.elapsed().as_nanos() as f64 / n as f64;
        println!("{level}: pieces {a:.1} ns, directions {b:.1}, sum {c:.1}, set_wise {e:.1}, side_attacks {g:.1} {}", f & 1);
    }
}
