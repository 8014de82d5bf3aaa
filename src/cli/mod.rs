//! The `kiki` command line: clap definitions, dispatch, one-line errors and exit codes.

mod backends;
mod bench;
mod check;
mod compare;
mod e13_workload;
mod e8_workload;
mod effects;
mod interrupt;
mod mate1;
mod perft;
mod progress;
mod report;
mod report_index;

use clap::{Args, CommandFactory, Parser, Subcommand};
use kiki_core::input::quote_input;
use kiki_core::simd::{self, SimdLevel};
use kiki_variants::registry::{self, RegistryError};
use std::fmt;
use std::io::Write;
use std::path::PathBuf;

pub use backends::build_description;
pub use perft::MAX_PERFT_DEPTH;
pub use report::{experiments_help, parse_ids};

/// The exit codes, as `--help` and the README state them.
pub const EXIT_OK: i32 = 0;
pub const EXIT_CHECK_FAILED: i32 = 1;
pub const EXIT_BAD_INPUT: i32 = 2;
pub const EXIT_INTERRUPTED: i32 = 130;

const EXIT_CODES_HELP: &str = "\
Exit codes:
  0    success
  1    a check failed (backends disagree, a mismatch, a false mate) or the run failed
       (output could not be written, a report could not be published)
  2    bad input: an unknown command, option or backend, a bad number, SFEN or file, a SIMD
       level (--simd or KIKI_SIMD) that is unknown or that this CPU or build lacks
  130  interrupted (Ctrl-C)";

/// kiki — sliding-attack backends for shogi, checked and measured.
#[derive(Parser, Debug)]
#[command(name = "kiki", version, about, after_help = EXIT_CODES_HELP)]
#[command(propagate_version = true, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Every backend: name, availability, SIMD path, needs, table bytes, layout.
    Backends(BackendsArgs),
    /// Differential check of backends against the naive reference; on a mismatch prints the
    /// board and exits 1.
    Check(CheckArgs),
    /// Legal-move perft with bulk counting; with `--backend all` every available backend runs
    /// and any disagreement exits 1.
    Perft(PerftArgs),
    /// A checkmating move in USI for the side to move, or `none` (exact mate-in-1); backends
    /// must agree whether a mate exists, else exit 1.
    Mate1(Mate1Args),
    /// Searches the bench positions to a fixed depth on each backend (iterative-deepening PVS,
    /// TT, an evaluation computed at every node): per backend the fingerprint and nodes per
    /// second; backends whose fingerprints differ exit 1.
    Bench(BenchArgs),
    /// Proves incremental effect counts against a from-scratch recount after every make and
    /// unmake of random-game moves, then times make+unmake per ray stepper.
    Effects(EffectsArgs),
    /// Runs the experiments and writes DIR/<cpu-slug>-<date>/: report.md, plots, results.json.
    /// The last line of stdout is the report folder.
    #[command(after_help = report::experiments_help())]
    Report(ReportArgs),
    /// Is B faster than A, slower, or level within ±P % of t(A)? ns per node of E11's bench
    /// search, paired in fresh processes until a sequential 90 % interval answers or the cap.
    Compare(compare::CompareArgs),
    /// Rewrites DIR/report.md and DIR's plots from DIR/results.json alone.
    Render(RenderArgs),
    /// Rebuilds DIR/README.md from every report folder.
    ReportIndex(ReportIndexArgs),
    /// Prints a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    Completions(CompletionsArgs),
    /// E8's lookup workload on one backend: the process `kiki report` runs under valgrind.
    #[command(hide = true)]
    E8Workload(E8WorkloadArgs),
    /// E13's search workload on one backend and evaluation: the process valgrind simulates.
    #[command(hide = true)]
    E13Workload(E13WorkloadArgs),
    /// E13's synthetic table walk on one backend: the attribution's test under valgrind.
    #[command(hide = true)]
    E13Walk(E13WalkArgs),
}

/// A plain decimal count: digits only (no sign, exponent, separators or hex).
pub fn decimal(text: &str) -> Result<u64, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "{} is not a plain decimal number (digits only)",
            quote_input(text)
        ));
    }
    text.parse::<u64>()
        .map_err(|_| format!("{} is too large (at most {})", quote_input(text), u64::MAX))
}

/// A seed: plain decimal or `0x` hexadecimal.
pub fn seed(text: &str) -> Result<u64, String> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
            u64::from_str_radix(hex, 16)
                .map_err(|_| format!("{} is too large for 64 bits", quote_input(text)))
        }
        Some(_) => Err(format!("{} is not a hexadecimal number", quote_input(text))),
        None => decimal(text),
    }
}

/// `--threshold`: a percentage above 0 and at most 50 (plain decimal, e.g. `3` or `0.5`),
/// returned as a fraction.
pub fn threshold_percent(text: &str) -> Result<f64, String> {
    let plain = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && text.bytes().filter(|&b| b == b'.').count() <= 1;
    match text.parse::<f64>() {
        Ok(value) if plain && value > 0.0 && value <= 50.0 => Ok(value / 100.0),
        _ => Err(format!(
            "{} is not a percentage above 0 and at most 50 (e.g. 3 or 0.5)",
            quote_input(text)
        )),
    }
}

/// An output folder: not empty (which would silently mean the current folder).
pub(crate) fn out_folder(text: &str) -> Result<PathBuf, String> {
    if text.is_empty() {
        return Err("the output folder must not be empty (use '.' for the current folder)".into());
    }
    Ok(PathBuf::from(text))
}

/// `--simd`: the names of [`SimdLevel`].
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum SimdArg {
    #[value(name = "portable")]
    Portable,
    #[value(name = "avx2")]
    Avx2,
    #[value(name = "avx512")]
    Avx512,
}

impl From<SimdArg> for SimdLevel {
    fn from(level: SimdArg) -> Self {
        match level {
            SimdArg::Portable => SimdLevel::Portable,
            SimdArg::Avx2 => SimdLevel::Avx2,
            SimdArg::Avx512 => SimdLevel::Avx512,
        }
    }
}

/// The `--simd` option of every command that runs backends.
#[derive(Args, Debug, Clone, Copy)]
pub(crate) struct SimdOption {
    /// The SIMD level of the run-time dispatched paths; one this CPU or build lacks is an error.
    /// Default: the environment variable KIKI_SIMD (same names) if set, else the best level.
    #[arg(long, value_enum, value_name = "LEVEL")]
    simd: Option<SimdArg>,
}

impl SimdOption {
    /// Forces `--simd`'s level, else `KIKI_SIMD`'s (when set); a level that is unknown or that
    /// this CPU or build lacks is a usage error named after `command`.
    fn apply(self, command: &str) -> Result<(), CliError> {
        match self.simd {
            Some(level) => simd::force(level.into()),
            None => simd::init_from_env(),
        }
        .map_err(|error| CliError::usage(format!("kiki {command}: {error}")))
    }
}

#[derive(Args, Debug)]
struct BackendsArgs {
    /// Print one JSON array instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    simd: SimdOption,
}

#[derive(Args, Debug)]
struct CheckArgs {
    /// A backend name, or `all` (the available ones).
    #[arg(long, default_value = "all", value_name = "NAME|all")]
    backend: String,
    /// Random (square, occupancy) pairs per backend (plain decimal).
    #[arg(long, default_value = "1000000", value_parser = decimal, value_name = "N")]
    samples: u64,
    /// Random seed (decimal or 0x hexadecimal).
    #[arg(long, default_value = "0x5EED", value_parser = seed, value_name = "S")]
    seed: u64,
    /// Threads for the random pairs (default: every CPU); the pairs checked do not depend on it.
    #[arg(long, value_parser = decimal, value_name = "N")]
    threads: Option<u64>,
    /// Pages for the backends' attack tables (per process): 4k, or 2m by MADV_COLLAPSE.
    #[arg(long, value_enum, value_name = "4k|2m")]
    table_pages: Option<TablePagesArg>,
    #[command(flatten)]
    simd: SimdOption,
}

/// Where positions come from: exactly one of the three.
#[derive(Args, Debug)]
#[group(required = true, multiple = false)]
struct PositionSource {
    /// One position in SFEN.
    #[arg(long, value_name = "SFEN")]
    sfen: Option<String>,
    /// The start position.
    #[arg(long)]
    startpos: bool,
    /// A file with one SFEN per line ('#' comments, blank lines skipped).
    #[arg(long, value_name = "FILE")]
    positions: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct PerftArgs {
    #[command(flatten)]
    source: PositionSource,
    /// Plies to count, 1 to 10 (plain decimal). Depth 7 and deeper shows progress with an
    /// estimated time on a terminal.
    #[arg(long, value_parser = decimal, value_name = "D")]
    depth: u64,
    /// A backend name, or `all` (every available backend, which must agree).
    #[arg(long, default_value = "all", value_name = "NAME|all")]
    backend: String,
    /// Leaf counts per root move, in USI.
    #[arg(long)]
    divide: bool,
    /// At the last ply's parents: `count` the legal moves (bulk counting, with perft's
    /// shortcuts), `count-plain` them without the shortcuts (keyed make and checker search at
    /// every node), or build every one into a move `list` and count it (YaneuraOu's
    /// convention). The counts agree.
    #[arg(long, value_enum, default_value = "count")]
    leaf: LeafArg,
    /// How the tree is walked: make and `unmake` moves on one position, or `copy` the position
    /// for each move (copy-make). The counts agree.
    #[arg(long, value_enum, default_value = "unmake")]
    make: MakeArg,
    /// One JSON object per line: backend, sfen, depth, leaf, make, nodes, seconds, nps.
    #[arg(long)]
    json: bool,
    /// Pages for the backends' attack tables (per process): 4k, or 2m by MADV_COLLAPSE.
    #[arg(long, value_enum, value_name = "4k|2m")]
    table_pages: Option<TablePagesArg>,
    #[command(flatten)]
    simd: SimdOption,
}

/// `kiki perft --make`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum MakeArg {
    Unmake,
    Copy,
}

impl From<MakeArg> for kiki_engine::perft::Make {
    fn from(make: MakeArg) -> Self {
        match make {
            MakeArg::Unmake => kiki_engine::perft::Make::Unmake,
            MakeArg::Copy => kiki_engine::perft::Make::Copy,
        }
    }
}

/// `kiki perft --leaf`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum LeafArg {
    /// Counted at the last ply's parents, with perft's shortcuts there (no key update, no
    /// checker search after a quiet move).
    Count,
    /// Counted at the last ply's parents, without those shortcuts (keyed make and the checker
    /// search at every node, as haitaka's perft_bulk).
    CountPlain,
    /// Every move of the last ply's parents built into a list, and the list counted.
    List,
}

impl From<LeafArg> for kiki_engine::perft::Leaf {
    fn from(leaf: LeafArg) -> Self {
        match leaf {
            LeafArg::Count => kiki_engine::perft::Leaf::Count,
            LeafArg::CountPlain => kiki_engine::perft::Leaf::CountPlain,
            LeafArg::List => kiki_engine::perft::Leaf::List,
        }
    }
}

#[derive(Args, Debug)]
struct Mate1Args {
    #[command(flatten)]
    source: PositionSource,
    /// A backend name, or `all` (every available backend, which must agree).
    #[arg(long, default_value = "all", value_name = "NAME|all")]
    backend: String,
    /// One JSON object per line: backend, sfen, mate.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    simd: SimdOption,
}

/// Places `name`'s attack tables on `pages` where `--table-pages` asked (per process: the
/// tables are built once); a kernel that refuses is a warning, not an error.
pub(crate) fn place_tables(
    command: &str,
    name: &str,
    pages: Option<TablePagesArg>,
) -> Result<(), CliError> {
    let Some(pages) = pages else {
        return Ok(());
    };
    let placed = kiki_harness::bench::place_tables(name, pages.into())
        .map_err(|e| CliError::registry(command, e))?;
    if let Err(why) = placed.outcome {
        warn(format!(
            "kiki {command}: {name}'s tables stay on the pages they had: {why}"
        ));
    }
    Ok(())
}

/// `--table-pages`: the pages the backends' attack tables are placed on.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TablePagesArg {
    #[value(name = "4k")]
    Small,
    #[value(name = "2m")]
    Huge,
}

impl From<TablePagesArg> for kiki_core::pages::Pages {
    fn from(pages: TablePagesArg) -> Self {
        match pages {
            TablePagesArg::Small => kiki_core::pages::Pages::Small,
            TablePagesArg::Huge => kiki_core::pages::Pages::Huge,
        }
    }
}

#[derive(Args, Debug)]
struct BenchArgs {
    /// A backend name, or `all` (every available backend, whose fingerprints must agree).
    #[arg(long, default_value = "all", value_name = "NAME|all")]
    backend: String,
    /// The evaluation computed at every node: material (no tables), nnue (HalfKP-shaped,
    /// 64 MB) or kpp (KPP + KKP, 214 MB). Weights are random from a fixed seed.
    #[arg(long, default_value = "nnue", value_parser = kiki_engine::search::eval::EvalKind::parse, value_name = "EVAL")]
    eval: kiki_engine::search::eval::EvalKind,
    /// Transposition table size in MiB, rounded down to a power of two (plain decimal).
    #[arg(long, default_value = "256", value_parser = decimal, value_name = "N")]
    tt_mib: u64,
    /// Plies searched from each position, 1 to 12 (plain decimal; the default is fixed).
    #[arg(long, default_value_t = kiki_engine::search::bench::DEFAULT_DEPTH as u64, value_parser = decimal, value_name = "N")]
    depth: u64,
    /// A file with one SFEN per line instead of the built-in bench positions.
    #[arg(long, value_name = "FILE")]
    positions: Option<PathBuf>,
    /// Pages for the backends' attack tables (per process): 4k, or 2m by MADV_COLLAPSE. The
    /// evaluation's tables and the TT are always asked for 2 MiB pages.
    #[arg(long, value_enum, default_value = "2m", value_name = "4k|2m")]
    table_pages: TablePagesArg,
    /// One JSON object per line: backend, eval, tt_mib, depth, nodes, nps, seconds, positions.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    simd: SimdOption,
}

#[derive(Args, Debug)]
struct EffectsArgs {
    /// Random-game moves replayed, each made and unmade (plain decimal).
    #[arg(long, default_value = "100000", value_parser = decimal, value_name = "N")]
    moves: u64,
    /// Random seed (decimal or 0x hexadecimal).
    #[arg(long, default_value = "0xEFFEC7", value_parser = seed, value_name = "S")]
    seed: u64,
    /// Timed rounds (plain decimal).
    #[arg(long, default_value = "11", value_parser = decimal, value_name = "K")]
    samples: u64,
    /// Print one JSON array instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    simd: SimdOption,
}

#[derive(Args, Debug)]
struct ReportArgs {
    /// The folder that receives the report folder.
    #[arg(long, default_value = "reports", value_parser = out_folder, value_name = "DIR")]
    out: PathBuf,
    /// Fewer rounds and smaller sweeps (a few minutes).
    #[arg(long)]
    quick: bool,
    /// Comma-separated experiment ids to run, e.g. E1,E7,E8 (default: E1–E8 and E10–E12).
    #[arg(long, value_name = "LIST", conflicts_with = "with")]
    only: Option<String>,
    /// Comma-separated experiment ids to run besides the default ones, e.g. E9.
    #[arg(long, value_name = "LIST")]
    with: Option<String>,
    /// Extra positions for the game-like workloads: one SFEN per line.
    #[arg(long, value_name = "FILE")]
    positions: Option<PathBuf>,
    /// Pin the measuring thread to this CPU (plain decimal).
    #[arg(long, value_parser = decimal, value_name = "CPU")]
    pin: Option<u64>,
    /// The practical threshold of a claim, in percent: an order between two cells is stated
    /// only when its whole interval lies beyond ±PERCENT.
    #[arg(long, default_value = "3", value_parser = threshold_percent, value_name = "PERCENT")]
    threshold: f64,
    /// Process invocations per timing experiment (E1-E7, E10-E12), each a fresh process with its own
    /// environment size and round order taking its share of the rounds (default: 5, or 2 with
    /// --quick; 1 measures in this process alone). A full report runs E11 in four times as many.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=20), value_name = "K")]
    invocations: Option<u64>,
    /// Comma-separated binaries of this same build linked in other code layouts
    /// (`scripts/report.sh` makes them): invocation i runs the i-th, cycling, so that a
    /// layout's bias varies across invocations instead of sitting in all of them. Each must
    /// answer with this binary's build identity.
    #[arg(long, value_name = "FILES")]
    layouts: Option<String>,
    /// Print this build's identity (what `--layouts` compares) and exit.
    #[arg(long, hide = true)]
    identity: bool,
    /// Child mode: measure the one invocation FILE (written by the report) describes and write
    /// its measurement (what `kiki report` runs K times per timed experiment).
    #[arg(long, hide = true, value_name = "FILE")]
    child: Option<PathBuf>,
    /// The seed of E7's and E11's randomised orders (decimal or 0x hexadecimal), to reproduce a run's
    /// orders; without it a seed is drawn afresh for the run. Either way results.json records it
    /// (E7's `order.seed`, `order.seed_source`; E11's `order_seed`).
    #[arg(long, value_parser = seed, value_name = "S")]
    order_seed: Option<u64>,
    /// Perf events read in E1 and E2 (default: cycles, instructions, l1d-read-misses,
    /// llc-misses, dtlb-read-misses; task-clock-ns needs no PMU; `none`).
    #[arg(long, value_name = "LIST")]
    counters: Option<String>,
    /// The child invocations measure at this level too.
    #[command(flatten)]
    simd: SimdOption,
}

#[derive(Args, Debug)]
struct RenderArgs {
    /// A report folder (with its results.json).
    #[arg(value_parser = out_folder, value_name = "DIR")]
    dir: PathBuf,
}

#[derive(Args, Debug)]
struct ReportIndexArgs {
    /// The folder of report folders.
    #[arg(long, default_value = "reports", value_parser = out_folder, value_name = "DIR")]
    dir: PathBuf,
}

#[derive(Args, Debug)]
struct CompletionsArgs {
    /// The shell to complete for.
    shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
struct E8WorkloadArgs {
    #[arg(long)]
    backend: String,
    /// Lookups measured: the workload's first LOOKUPS (a longer run's first ones), read a
    /// chunk at a time.
    #[arg(long, default_value = "100000", value_parser = decimal)]
    lookups: u64,
    #[arg(long, default_value_t = kiki_harness::experiments::e8_simulated_caches::WORKLOAD_SEED, value_parser = seed)]
    seed: u64,
    #[arg(long, default_value = "0", value_parser = decimal)]
    eval_bytes: u64,
    /// A workload file written by E8 (its search-order walk); without it, uniform random inputs.
    #[arg(long)]
    workload: Option<std::path::PathBuf>,
    #[command(flatten)]
    simd: SimdOption,
}

#[derive(Args, Debug)]
struct E13WalkArgs {
    #[arg(long)]
    backend: String,
    /// Rook lookups, each reading a table line no other one reads.
    #[arg(long, value_parser = decimal)]
    lines: u64,
    #[command(flatten)]
    simd: SimdOption,
}

#[derive(Args, Debug)]
struct E13WorkloadArgs {
    #[arg(long)]
    backend: String,
    /// The evaluation computed at every node: material, nnue or kpp.
    #[arg(long, value_parser = kiki_engine::search::eval::EvalKind::parse)]
    eval: kiki_engine::search::eval::EvalKind,
    /// Bench positions measured: the first P warm the caches and the TT uncounted, the next P
    /// are counted (every position is built, so that runs of different P allocate alike).
    #[arg(long, value_parser = decimal)]
    positions: u64,
    /// Plies searched from each position.
    #[arg(long, default_value_t = kiki_harness::experiments::e13_simulated_search::DEFAULT_DEPTH as u64, value_parser = decimal)]
    depth: u64,
    /// Transposition table size in MiB, rounded down to a power of two.
    #[arg(long, default_value_t = kiki_harness::experiments::e13_simulated_search::DEFAULT_TT_MIB as u64, value_parser = decimal)]
    tt_mib: u64,
    #[command(flatten)]
    simd: SimdOption,
}

/// A command-line error: one line for the user, and the exit code.
#[derive(Debug)]
pub struct CliError {
    pub message: String,
    pub code: i32,
}

impl CliError {
    pub(crate) fn usage(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            code: EXIT_BAD_INPUT,
        }
    }

    pub(crate) fn failed(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            code: EXIT_CHECK_FAILED,
        }
    }

    /// The unknown- or unavailable-backend error, named after the command it came from.
    pub(crate) fn registry(command: &str, error: RegistryError) -> CliError {
        CliError::usage(format!("kiki {command}: {error}"))
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Resolves `--backend` for `command` (`all`: every available backend).
pub(crate) fn resolve_backends(command: &str, name: &str) -> Result<Vec<&'static str>, CliError> {
    registry::resolve(name).map_err(|error| CliError::registry(command, error))
}

/// Standard output that reports write errors (a full disk, a closed file) instead of
/// panicking as `println!` does; each command writes through one.
pub(crate) struct Output {
    command: &'static str,
}

impl Output {
    pub(crate) fn new(command: &'static str) -> Output {
        Output { command }
    }

    /// Writes one line (the text and a newline).
    pub(crate) fn line(&self, text: impl fmt::Display) -> Result<(), CliError> {
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{text}").map_err(|error| self.write_error(error))
    }

    /// Pushes everything buffered to the file or pipe (called before a command returns).
    pub(crate) fn flush(&self) -> Result<(), CliError> {
        std::io::stdout()
            .lock()
            .flush()
            .map_err(|error| self.write_error(error))
    }

    fn write_error(&self, error: std::io::Error) -> CliError {
        CliError::failed(format!(
            "kiki {}: cannot write to standard output: {error}",
            self.command
        ))
    }
}

/// Writes a diagnostic line to stderr; a stderr that cannot be written is ignored (there is no
/// one left to tell).
pub(crate) fn warn(text: impl fmt::Display) {
    let _ = writeln!(std::io::stderr().lock(), "{}", safe_line(&text.to_string()));
}

/// The longest error line printed; longer ones are cut (input echoed in them is quoted and cut
/// already; this bounds the rest).
pub const MAX_ERROR_CHARS: usize = 600;

/// One terminal-safe line: control characters escaped (`\u{1b}`), newlines joined, length
/// bounded.
pub fn safe_line(text: &str) -> String {
    let mut out = String::new();
    for (count, ch) in text.chars().enumerate() {
        if count == MAX_ERROR_CHARS {
            out.push_str(" …");
            break;
        }
        match ch {
            '\n' => out.push(' '),
            ch if ch.is_control() => out.extend(ch.escape_default()),
            ch => out.push(ch),
        }
    }
    out
}

/// One line from clap's error: its first line without the `error: ` prefix, with its tip (a
/// "did you mean") appended, named after the subcommand.
pub fn clap_error_line(error: &clap::Error, args: &[String]) -> String {
    let rendered = error.render().to_string();
    // The message is the first paragraph (clap lists missing arguments on indented lines
    // below it); tips ("did you mean") follow later.
    let first = rendered
        .lines()
        .take_while(|l| !l.trim().is_empty() && !l.starts_with("Usage:"))
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    let first = first.trim_start_matches("error: ").to_string();
    let tips: Vec<&str> = rendered
        .lines()
        .filter_map(|l| l.trim().strip_prefix("tip: "))
        .collect();
    let command = args
        .first()
        .filter(|name| Cli::command().find_subcommand(name.as_str()).is_some())
        .map_or("kiki".to_string(), |name| format!("kiki {name}"));
    let help = if command == "kiki" {
        "try 'kiki --help'".to_string()
    } else {
        format!("try '{command} --help'")
    };
    let mut line = format!("{command}: {first}");
    for tip in tips {
        line.push_str("; ");
        line.push_str(tip);
    }
    format!("{line} ({help})")
}

/// Runs the command line; returns the process exit code.
/// The command line's clap definition (its help, its checks).
pub fn command() -> clap::Command {
    Cli::command()
}

pub fn run(args: &[String]) -> i32 {
    let argv = std::iter::once("kiki".to_string()).chain(args.iter().cloned());
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(error) => {
            use clap::error::ErrorKind;
            return match error.kind() {
                ErrorKind::DisplayHelp
                | ErrorKind::DisplayVersion
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    // Help goes to stdout; a stdout that cannot be written is an error.
                    let text = error.render().to_string();
                    let mut stdout = std::io::stdout().lock();
                    match write!(stdout, "{text}").and_then(|()| stdout.flush()) {
                        Ok(())
                            if error.kind()
                                == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
                        {
                            EXIT_BAD_INPUT
                        }
                        Ok(()) => EXIT_OK,
                        Err(write_error) => {
                            warn(format!(
                                "kiki: cannot write to standard output: {write_error}"
                            ));
                            EXIT_CHECK_FAILED
                        }
                    }
                }
                _ => {
                    warn(clap_error_line(&error, args));
                    EXIT_BAD_INPUT
                }
            };
        }
    };
    // Every command that runs backends chooses its SIMD level first.
    let simd = match &cli.command {
        Command::Backends(a) => Some(("backends", a.simd)),
        Command::Check(a) => Some(("check", a.simd)),
        Command::Perft(a) => Some(("perft", a.simd)),
        Command::Mate1(a) => Some(("mate1", a.simd)),
        Command::Bench(a) => Some(("bench", a.simd)),
        Command::Effects(a) => Some(("effects", a.simd)),
        Command::Report(a) => Some(("report", a.simd)),
        Command::Compare(a) => Some(("compare", a.simd)),
        Command::E8Workload(a) => Some(("e8-workload", a.simd)),
        Command::E13Workload(a) => Some(("e13-workload", a.simd)),
        Command::E13Walk(a) => Some(("e13-walk", a.simd)),
        Command::Render(_) | Command::ReportIndex(_) | Command::Completions(_) => None,
    };
    if let Some((command, option)) = simd {
        if let Err(error) = option.apply(command) {
            warn(&error);
            return error.code;
        }
    }
    let result = match cli.command {
        Command::Backends(a) => backends::run(a.json),
        Command::Check(a) => {
            let threads = a.threads.map_or_else(
                || std::thread::available_parallelism().map_or(1, usize::from),
                |n| n.clamp(1, 256) as usize,
            );
            check::run(&a.backend, a.samples, a.seed, threads, a.table_pages)
        }
        Command::Perft(a) => perft::run(a),
        Command::Mate1(a) => mate1::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Effects(a) => effects::run(a),
        Command::Report(a) => report::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Render(a) => report::render(&a.dir),
        Command::ReportIndex(a) => report_index::run(&a.dir),
        Command::Completions(a) => completions(a.shell),
        Command::E8Workload(a) => e8_workload::run(a),
        Command::E13Workload(a) => e13_workload::run(a),
        Command::E13Walk(a) => e13_workload::walk(a),
    };
    match result {
        Ok(()) => EXIT_OK,
        Err(error) => {
            warn(&error);
            error.code
        }
    }
}

/// `kiki completions SHELL`: the completion script on stdout.
fn completions(shell: clap_complete::Shell) -> Result<(), CliError> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "kiki", &mut script);
    let out = Output::new("completions");
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(&script)
        .map_err(|error| out.write_error(error))?;
    drop(stdout);
    out.flush()
}
