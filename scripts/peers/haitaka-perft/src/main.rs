//! haitaka 0.3.2 perft through kiki's `src/peers.rs`, which mirrors `perft_bulk::<true>` from
//! haitaka's own examples/perft.rs (itself copied from cozy-chess): legal board moves and drops
//! from `generate_board_moves` / `generate_drops`, clone + `play_unchecked` per move, bulk
//! counting (the length of each generated move list) at depth 1; with `--leaf list`, its twin
//! `perft_list`, which pushes every move of each depth-1 position into a reused `Vec` and counts
//! the Vec (the convention of `kiki perft --leaf list`).
//!
//! usage: haitaka-perft --sfen SFEN --depth D [--leaf count|list] [--repeat N]
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
    eprintln!("usage: haitaka-perft --sfen SFEN --depth D [--leaf count|list] [--repeat N]");
    exit(2);
}

fn main() {
    let mut sfen: Option<String> = None;
    let mut depth: Option<u32> = None;
    let mut repeat: u32 = 1;
    let mut list_leaves = false;
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
            "--leaf" => {
                list_leaves = match value().as_str() {
                    "count" => false,
                    "list" => true,
                    other => usage(&format!("--leaf must be count or list, got '{other}'")),
                };
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
        let depth = std::hint::black_box(depth);
        let nodes = if list_leaves {
            board.perft_list(depth)
        } else {
            board.perft(depth)
        };
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "nodes {nodes} seconds {seconds:.6} nps {:.0}",
            nodes as f64 / seconds.max(1e-9)
        );
    }
}
