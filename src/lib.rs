//! kiki's command line: the subcommands over the harness, the engine and the backends (the
//! binary is `src/main.rs`).

pub mod cli;
