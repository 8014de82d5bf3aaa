//! haitaka 0.3.2 perft through kiki's `src/peers.rs`, which mirrors `perft_bulk::<true>` from
//! haitaka's own examples/perft.rs (itself copied from cozy-chess): legal board moves and drops
//! from `generate_board_moves` / `generate_drops`, clone + `play_unchecked` per move, bulk
//! counting (the length of each generated move list) at depth 1.
//!
//! usage: haitaka-perft --sfen SFEN --depth D [--repeat N]
//! prints one line per repeat: `nodes N seconds S nps X` (time around the perft call only).

use std::process::exit;
use std::time::Instant;

// The very code kiki's E2 runs (src/peers.rs), so that the two peer figures measure one thing.
#[allow(dead_code)]
#[path = "../../../../src/peers.rs"]
mod peers;

use peers::haitaka::PeerBoard;

fn usage(msg: &str) -> ! {
    eprintln!("haitaka-perft: {msg}");
    eprintln!("usage: haitaka-perft --sfen SFEN --depth D [--repeat N]");
    exit(2);
}

fn main() {
    let mut sfen: Option<String> = None;
    let mut depth: Option<u32> = None;
    let mut repeat: u32 = 1;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| usage(&format!("{arg} needs a value")))
        };
        match arg.as_str() {
            "--sfen" => sfen = Some(value()),
            "--depth" => {
                depth = Some(value().parse().unwrap_or_else(|_| usage("bad --depth")));
            }
            "--repeat" => {
                repeat = value().parse().unwrap_or_else(|_| usage("bad --repeat"));
            }
            _ => usage(&format!("unknown argument '{arg}'")),
        }
    }
    let depth = depth.unwrap_or_else(|| usage("--depth D is required"));
    let sfen = sfen.unwrap_or_else(|| usage("--sfen SFEN is required"));
    let board = PeerBoard::from_sfen(&sfen).unwrap_or_else(|e| usage(&e));
    for _ in 0..repeat.max(1) {
        let board = std::hint::black_box(&board);
        let started = Instant::now();
        let nodes = board.perft(std::hint::black_box(depth));
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "nodes {nodes} seconds {seconds:.6} nps {:.0}",
            nodes as f64 / seconds.max(1e-9)
        );
    }
}
