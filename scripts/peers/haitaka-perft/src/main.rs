//! haitaka 0.3.2 perft, mirroring `perft_bulk::<true>` from haitaka's own examples/perft.rs
//! (itself copied from cozy-chess): legal board moves and drops from `generate_board_moves` /
//! `generate_drops`, clone + `play_unchecked` per move, bulk counting (the length of each
//! generated move list) at depth 1.
//!
//! usage: haitaka-perft --sfen SFEN --depth D [--repeat N]
//! prints one line per repeat: `nodes N seconds S nps X` (time around the perft call only).

use std::process::exit;
use std::time::Instant;

use haitaka::Board;

fn perft_bulk(board: &Board, depth: u8) -> u64 {
    let mut nodes = 0;
    match depth {
        0 => nodes += 1,
        1 => {
            board.generate_board_moves(|moves| {
                nodes += moves.into_iter().len() as u64;
                false
            });
            board.generate_drops(|moves| {
                nodes += moves.into_iter().len() as u64;
                false
            });
        }
        _ => {
            board.generate_board_moves(|moves| {
                for mv in moves {
                    let mut board = board.clone();
                    board.play_unchecked(mv);
                    nodes += perft_bulk(&board, depth - 1);
                }
                false
            });
            board.generate_drops(|moves| {
                for mv in moves {
                    let mut board = board.clone();
                    board.play_unchecked(mv);
                    nodes += perft_bulk(&board, depth - 1);
                }
                false
            });
        }
    }
    nodes
}

fn usage(msg: &str) -> ! {
    eprintln!("haitaka-perft: {msg}");
    eprintln!("usage: haitaka-perft --sfen SFEN --depth D [--repeat N]");
    exit(2);
}

fn main() {
    let mut sfen: Option<String> = None;
    let mut depth: Option<u8> = None;
    let mut repeat: u32 = 1;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage(&format!("{arg} needs a value")));
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
    // Accept an optional leading "sfen " (USI position form).
    let text = sfen.trim();
    let text = text.strip_prefix("sfen ").unwrap_or(text);
    let board = Board::from_sfen(text)
        .unwrap_or_else(|e| usage(&format!("invalid SFEN '{text}': {e:?}")));
    for _ in 0..repeat.max(1) {
        let board = std::hint::black_box(&board);
        let started = Instant::now();
        let nodes = perft_bulk(board, std::hint::black_box(depth));
        let seconds = started.elapsed().as_secs_f64();
        println!("nodes {nodes} seconds {seconds:.6} nps {:.0}", nodes as f64 / seconds.max(1e-9));
    }
}
