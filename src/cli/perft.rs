//! `kiki perft`: perft and divide on one or every backend, from SFEN, startpos or a file.

use super::{CliError, Options};
use crate::backend::Backend;
use crate::json::Json;
use crate::position::{Position, START_SFEN};
use crate::reference::Reference;
use crate::registry::{self, BackendVisitor};
use std::time::Instant;

/// The deepest perft the command line accepts (depth 8 from the start position is already
/// about 10^11 leaves).
pub const MAX_PERFT_DEPTH: u64 = 10;

/// The positions a command reads: `--sfen`, `--startpos` or `--positions FILE`, each SFEN
/// validated (on the reference backend) before anything runs.
pub(crate) fn read_positions(options: &Options) -> Result<Vec<String>, CliError> {
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
        // ASCII only: a trailing NBSP or U+3000 gets from_sfen's clear error, not silence.
        let sfen = sfen.trim_ascii();
        validate(sfen, "")?;
        return Ok(vec![sfen.to_string()]);
    }
    let path = options.value("--positions").unwrap_or_default();
    let lines = crate::input::read_positions_file(std::path::Path::new(path))
        .map_err(|error| CliError::usage(format!("kiki {command}: {error}")))?;
    let quoted_path = crate::input::quote_input(path);
    let mut sfens = Vec::with_capacity(lines.len());
    for (number, line) in lines {
        validate(&line, &format!("{quoted_path}: line {number}: "))?;
        sfens.push(line);
    }
    if sfens.is_empty() {
        return Err(CliError::usage(format!(
            "kiki {command}: {quoted_path} holds no positions"
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

pub fn run(args: &[String]) -> Result<(), CliError> {
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
