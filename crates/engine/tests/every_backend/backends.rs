//! Every backend against the naive reference (run in release mode: `cargo test --release`).
//!
//! Per backend: bitboard operations, step attacks on all 81 squares, every pattern of the inner
//! squares of each line through each square, 1,000,000 random (square, occupancy) pairs over
//! densities 10/25/50/75 % for every slider kind, and 50,000 incremental set/clear updates.

use kiki_core::backend::Backend;
use kiki_variants::check::check_backend;

const PAIRS: u64 = 1_000_000;

fn run<B: Backend>() {
    let backend = match B::new() {
        Ok(backend) => backend,
        Err(reason) => {
            // Only a backend that this CPU cannot run may be skipped, and it must say why.
            assert!(B::availability().is_err(), "new() failed but available");
            eprintln!("{} unavailable here: {reason}", B::info().name);
            return;
        }
    };
    match check_backend(&backend, PAIRS, 0x5EED_0000 + B::info().name.len() as u64) {
        Ok(report) => {
            assert_eq!(report.random_pairs, PAIRS);
            assert_eq!(report.random_lookups, PAIRS * 6);
            eprintln!("{}: {report}", B::info().name);
        }
        Err(mismatch) => panic!("{mismatch}"),
    }
}

macro_rules! backend_tests {
    ($($name:literal $test:ident => $backend:ty),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                run::<$backend>();
            }
        )*
    };
}

backend_tests! {
    "reference" reference => kiki_core::reference::Reference,
}
for_each_tested!(backend_tests);
