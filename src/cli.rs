//! The `kiki` command line: argument parsing and the subcommands.

use crate::backend::{human_bytes, Backend};
use crate::check::check_backend;
use crate::json::Json;
use crate::position::{Position, START_SFEN};
use crate::reference::Reference;
use crate::registry::{self, BackendVisitor, RegistryError};
use std::fmt;
use std::time::Instant;

const USAGE: &str = "\
kiki — sliding-attack backends for shogi, checked and measured

usage:
  kiki backends [--json]
      every backend: name, availability, SIMD path, needs, table bytes, layout
  kiki check [--backend NAME|all] [--samples N] [--seed S]
      differential check of backends against the naive reference (default: all,
      1000000 random pairs); on a mismatch prints the board and exits 1
  kiki perft (--sfen SFEN | --startpos | --positions FILE) --depth D
             [--backend NAME|all] [--divide] [--json]
      legal-move perft with bulk counting; with 'all' every available backend runs
      and any disagreement exits 1. FILE: one SFEN per line, '#' comments
  kiki help";

/// The deepest perft the command line accepts (depth 8 from the start position is already
/// about 10^11 leaves).
pub const MAX_PERFT_DEPTH: u64 = 10;

/// A command-line error: one line for the user, and the exit code.
#[derive(Debug)]
pub struct CliError {
    pub message: String,
    pub code: i32,
}

impl CliError {
    fn usage(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            code: 2,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<RegistryError> for CliError {
    fn from(error: RegistryError) -> CliError {
        CliError::usage(error.to_string())
    }
}

/// Options of a subcommand: `--flag` and `--key value` pairs, each known in advance.
struct Options {
    command: &'static str,
    pairs: Vec<(String, Option<String>)>,
}

impl Options {
    /// Parses `args`; `flags` take no value, `keys` take one.
    fn parse(
        command: &'static str,
        args: &[String],
        flags: &[&str],
        keys: &[&str],
    ) -> Result<Options, CliError> {
        let mut pairs = Vec::new();
        let mut iter = args.iter();
        while let Some(arg) = iter.next() {
            let (name, inline_value) = match arg.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
                _ => (arg.as_str(), None),
            };
            if flags.contains(&name) && inline_value.is_none() {
                pairs.push((name.to_string(), None));
            } else if keys.contains(&name) {
                let value = match inline_value {
                    Some(v) => v,
                    None => iter.next().cloned().ok_or_else(|| {
                        CliError::usage(format!("kiki {command}: {name} needs a value"))
                    })?,
                };
                pairs.push((name.to_string(), Some(value)));
            } else {
                return Err(CliError::usage(format!(
                    "kiki {command}: unknown argument '{arg}' (try 'kiki help')"
                )));
            }
        }
        Ok(Options { command, pairs })
    }

    fn flag(&self, name: &str) -> bool {
        self.pairs.iter().any(|(n, _)| n == name)
    }

    fn value(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }

    fn number(&self, name: &str, default: u64) -> Result<u64, CliError> {
        match self.value(name) {
            None => Ok(default),
            Some(text) => parse_number(text).ok_or_else(|| {
                CliError::usage(format!(
                    "kiki {}: {name} wants a non-negative integer, got '{text}'",
                    self.command
                ))
            }),
        }
    }
}

/// Parses `1000000`, `1_000_000`, `1e6` or `0x1f`.
fn parse_number(text: &str) -> Option<u64> {
    let cleaned = text.replace('_', "");
    if let Some(hex) = cleaned.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).ok();
    }
    if let Some((mantissa, exponent)) = cleaned.split_once(['e', 'E']) {
        let mantissa: u64 = mantissa.parse().ok()?;
        let exponent: u32 = exponent.parse().ok()?;
        return mantissa.checked_mul(10u64.checked_pow(exponent)?);
    }
    cleaned.parse().ok()
}

/// Runs the command line; returns the process exit code.
pub fn run(args: &[String]) -> i32 {
    let result = match args.first().map(String::as_str) {
        None | Some("help") | Some("--help") | Some("-h") => {
            println!("{USAGE}");
            Ok(())
        }
        Some("backends") => backends(&args[1..]),
        Some("check") => check(&args[1..]),
        Some("perft") => perft(&args[1..]),
        Some(other) => Err(CliError::usage(format!(
            "kiki: unknown command '{other}' (commands: backends, check, perft, help)"
        ))),
    };
    match result {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("{error}");
            error.code
        }
    }
}

fn backends(args: &[String]) -> Result<(), CliError> {
    let options = Options::parse("backends", args, &["--json"], &[])?;
    let summaries = registry::summaries();
    if options.flag("--json") {
        let list = summaries
            .iter()
            .map(|s| {
                Json::object([
                    ("name", Json::str(s.info.name)),
                    ("description", Json::str(s.info.description)),
                    ("layout", Json::str(s.info.layout)),
                    (
                        "needs",
                        Json::Array(s.info.needs.iter().map(|n| Json::str(*n)).collect()),
                    ),
                    ("available", Json::Bool(s.availability.is_ok())),
                    (
                        "unavailable_reason",
                        match &s.availability {
                            Ok(()) => Json::Null,
                            Err(reason) => Json::str(reason.clone()),
                        },
                    ),
                    ("simd_path", Json::str(s.simd_path)),
                    ("table_bytes", Json::Int(s.table_bytes as i128)),
                    ("table_bytes_human", Json::str(human_bytes(s.table_bytes))),
                    (
                        "tables",
                        Json::Array(
                            s.tables
                                .iter()
                                .map(|t| {
                                    Json::object([
                                        ("name", Json::str(t.name)),
                                        ("shape", Json::str(t.shape.clone())),
                                        ("bytes", Json::Int(t.bytes as i128)),
                                    ])
                                })
                                .collect(),
                        ),
                    ),
                ])
            })
            .collect();
        println!("{}", Json::Array(list).render());
        return Ok(());
    }
    println!("build: {}", build_description());
    let all_tables = summaries.iter().flat_map(|s| s.tables.iter());
    let name_width = all_tables.clone().map(|t| t.name.len()).max().unwrap_or(0);
    let shape_width = all_tables
        .map(|t| t.shape.chars().count())
        .max()
        .unwrap_or(0);
    for s in &summaries {
        let availability = match &s.availability {
            Ok(()) => "available".to_string(),
            Err(reason) => format!("UNAVAILABLE: {reason}"),
        };
        let needs = if s.info.needs.is_empty() {
            "-".to_string()
        } else {
            s.info.needs.join(", ")
        };
        println!();
        println!("{:<12} {}", s.info.name, s.info.description);
        println!(
            "{:<12} {availability}; path: {}; needs: {needs}",
            "", s.simd_path
        );
        println!("{:<12} layout: {}", "", s.info.layout);
        println!("{:<12} tables: {}", "", human_bytes(s.table_bytes));
        for table in &s.tables {
            println!(
                "{:<14} {:<name_width$}  {:<shape_width$}  {}",
                "",
                table.name,
                table.shape,
                human_bytes(table.bytes)
            );
        }
    }
    Ok(())
}

/// What this binary was compiled for.
pub fn build_description() -> String {
    let mut features = Vec::new();
    macro_rules! feature {
        ($($name:tt),*) => {$(
            if cfg!(target_feature = $name) {
                features.push($name);
            }
        )*};
    }
    feature!("sse4.1", "ssse3", "popcnt", "bmi1", "bmi2", "lzcnt", "avx2", "avx512f");
    format!(
        "{} profile, target features: {}{}",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        if features.is_empty() {
            "baseline".to_string()
        } else {
            features.join(" ")
        },
        if cfg!(feature = "portable") {
            ", feature 'portable' (SIMD paths forced to their portable twins)"
        } else {
            ""
        }
    )
}

struct CheckVisitor {
    samples: u64,
    seed: u64,
}

impl BackendVisitor for CheckVisitor {
    type Output = Result<(), CliError>;
    fn visit<B: Backend>(self, backend: B) -> Result<(), CliError> {
        let started = Instant::now();
        match check_backend(&backend, self.samples, self.seed) {
            Ok(report) => {
                println!(
                    "{:<12} ok in {:.1} s: {report}",
                    B::info().name,
                    started.elapsed().as_secs_f64()
                );
                Ok(())
            }
            Err(mismatch) => {
                println!("{mismatch}");
                Err(CliError {
                    message: format!(
                        "kiki check: backend '{}' disagrees with the reference",
                        B::info().name
                    ),
                    code: 1,
                })
            }
        }
    }
}

fn check(args: &[String]) -> Result<(), CliError> {
    let options = Options::parse("check", args, &[], &["--backend", "--samples", "--seed"])?;
    let samples = options.number("--samples", 1_000_000)?;
    let seed = options.number("--seed", 0x5EED)?;
    let argument = options.value("--backend").unwrap_or("all");
    let names = registry::resolve(argument)?;
    if argument == "all" {
        for summary in registry::summaries() {
            if let Err(reason) = summary.availability {
                println!("{:<12} skipped: unavailable ({reason})", summary.info.name);
            }
        }
    }
    for name in names {
        registry::visit(name, CheckVisitor { samples, seed })??;
    }
    Ok(())
}

/// The positions a command reads: `--sfen`, `--startpos` or `--positions FILE`, each SFEN
/// validated (on the reference backend) before anything runs.
fn read_positions(options: &Options) -> Result<Vec<String>, CliError> {
    let command = options.command;
    let given = ["--sfen", "--startpos", "--positions"]
        .iter()
        .filter(|&&k| options.flag(k))
        .count();
    if given != 1 {
        return Err(CliError::usage(format!(
            "kiki {command}: give exactly one of --sfen SFEN, --startpos, --positions FILE"
        )));
    }
    let validate = |sfen: &str, place: &str| -> Result<(), CliError> {
        Position::from_sfen(Reference, sfen)
            .map(|_| ())
            .map_err(|error| CliError::usage(format!("kiki {command}: {place}{error}")))
    };
    if options.flag("--startpos") {
        return Ok(vec![START_SFEN.to_string()]);
    }
    if let Some(sfen) = options.value("--sfen") {
        let sfen = sfen.trim();
        validate(sfen, "")?;
        return Ok(vec![sfen.to_string()]);
    }
    let path = options.value("--positions").unwrap_or_default();
    let text = std::fs::read_to_string(path)
        .map_err(|error| CliError::usage(format!("kiki {command}: cannot read {path}: {error}")))?;
    let mut sfens = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        validate(line, &format!("{path} line {}: ", number + 1))?;
        sfens.push(line.to_string());
    }
    if sfens.is_empty() {
        return Err(CliError::usage(format!(
            "kiki {command}: {path} holds no positions"
        )));
    }
    Ok(sfens)
}

/// One perft run's result.
struct PerftRun {
    nodes: u64,
    seconds: f64,
    divide: Vec<(String, u64)>,
}

struct PerftVisitor<'a> {
    sfen: &'a str,
    depth: u32,
    divide: bool,
}

impl BackendVisitor for PerftVisitor<'_> {
    type Output = PerftRun;
    fn visit<B: Backend>(self, backend: B) -> PerftRun {
        // Validated before: a parse failure here would be a bug in the backend conversion.
        let mut pos = Position::from_sfen(backend, self.sfen).expect("validated SFEN");
        let started = Instant::now();
        let (nodes, divide) = if self.divide {
            let rows = crate::perft::divide(&mut pos, self.depth);
            (rows.iter().map(|r| r.1).sum(), rows)
        } else {
            (crate::perft::perft(&mut pos, self.depth), Vec::new())
        };
        PerftRun {
            nodes,
            seconds: started.elapsed().as_secs_f64(),
            divide,
        }
    }
}

fn perft(args: &[String]) -> Result<(), CliError> {
    let options = Options::parse(
        "perft",
        args,
        &["--startpos", "--divide", "--json"],
        &["--sfen", "--positions", "--depth", "--backend"],
    )?;
    let depth = match options.value("--depth") {
        None => return Err(CliError::usage("kiki perft: --depth D is required")),
        Some(_) => options.number("--depth", 0)?,
    };
    if depth == 0 || depth > MAX_PERFT_DEPTH {
        return Err(CliError::usage(format!(
            "kiki perft: --depth must be 1 to {MAX_PERFT_DEPTH}, got {depth}"
        )));
    }
    let sfens = read_positions(&options)?;
    let names = registry::resolve(options.value("--backend").unwrap_or("all"))?;
    let json = options.flag("--json");
    let mut disagreements = 0;
    for sfen in &sfens {
        let mut first: Option<(&str, u64)> = None;
        for &name in &names {
            let run = registry::visit(
                name,
                PerftVisitor {
                    sfen,
                    depth: depth as u32,
                    divide: options.flag("--divide"),
                },
            )?;
            let nps = run.nodes as f64 / run.seconds.max(1e-9);
            if json {
                let mut fields = vec![
                    ("backend", Json::str(name)),
                    ("sfen", Json::str(sfen.as_str())),
                    ("depth", Json::Int(depth as i128)),
                    ("nodes", Json::Int(run.nodes as i128)),
                    ("seconds", Json::Float(run.seconds)),
                    ("nps", Json::Float(nps.round())),
                ];
                if options.flag("--divide") {
                    let rows = run
                        .divide
                        .iter()
                        .map(|(mv, n)| (mv.clone(), Json::Int(*n as i128)));
                    fields.push(("divide", Json::object(rows)));
                }
                println!("{}", Json::object(fields).render());
            } else {
                for (mv, nodes) in &run.divide {
                    println!("{mv}: {nodes}");
                }
                println!(
                    "{name:<12} depth {depth}  nodes {:>12}  {:>8.3} s  {:>8.2} M nodes/s  {sfen}",
                    run.nodes,
                    run.seconds,
                    nps / 1e6
                );
            }
            match first {
                None => first = Some((name, run.nodes)),
                Some((first_name, first_nodes)) if first_nodes != run.nodes => {
                    eprintln!(
                        "kiki perft: DISAGREEMENT on {sfen} depth {depth}: {first_name} {first_nodes}, {name} {}",
                        run.nodes
                    );
                    disagreements += 1;
                }
                Some(_) => {}
            }
        }
    }
    if disagreements > 0 {
        return Err(CliError {
            message: format!("kiki perft: {disagreements} disagreement(s) between backends"),
            code: 1,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn numbers_in_several_spellings() {
        assert_eq!(parse_number("1000000"), Some(1_000_000));
        assert_eq!(parse_number("1_000"), Some(1000));
        assert_eq!(parse_number("1e6"), Some(1_000_000));
        assert_eq!(parse_number("0x10"), Some(16));
        assert_eq!(parse_number("-1"), None);
        assert_eq!(parse_number("1e40"), None);
    }

    #[test]
    fn options_parse_and_reject() {
        let options = Options::parse(
            "check",
            &strings(&["--seed=5", "--backend", "x"]),
            &[],
            &["--backend", "--seed"],
        )
        .unwrap();
        assert_eq!(options.value("--backend"), Some("x"));
        assert_eq!(options.number("--seed", 0).unwrap(), 5);
        let error = Options::parse("check", &strings(&["--bogus"]), &[], &[])
            .err()
            .unwrap();
        assert_eq!(error.code, 2);
        let error = Options::parse("check", &strings(&["--seed"]), &[], &["--seed"])
            .err()
            .unwrap();
        assert!(error.message.contains("needs a value"));
    }
}
