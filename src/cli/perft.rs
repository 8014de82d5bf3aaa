//! `kiki perft`: perft and divide on one or every backend, from SFEN, startpos or a file.

use super::{progress, resolve_backends, warn, CliError, Output};
use kiki_core::backend::Backend;
use kiki_core::input::quote_input;
use kiki_core::reference::Reference;
use kiki_engine::movegen::MoveList;
use kiki_engine::position::{Position, START_SFEN};
use kiki_variants::registry::{self, BackendVisitor};
use serde_json::{json, Value as Json};
use std::path::Path;
use std::time::Instant;

/// The deepest perft the command line accepts (depth 8 from the start position is already
/// about 10^11 leaves).
pub const MAX_PERFT_DEPTH: u64 = 10;

/// The positions a command reads: `--sfen`, `--startpos` or `--positions FILE`, each SFEN
/// validated (on the reference backend) before anything runs.
pub(crate) fn read_positions(
    command: &str,
    source: &super::PositionSource,
) -> Result<Vec<String>, CliError> {
    let validate = |sfen: &str, place: &str| -> Result<(), CliError> {
        Position::from_sfen(Reference, sfen)
            .map(|_| ())
            .map_err(|error| CliError::usage(format!("kiki {command}: {place}{error}")))
    };
    if source.startpos {
        return Ok(vec![START_SFEN.to_string()]);
    }
    if let Some(sfen) = &source.sfen {
        // ASCII only: a trailing NBSP or U+3000 gets from_sfen's clear error, not silence.
        let sfen = sfen.trim_ascii();
        validate(sfen, "")?;
        return Ok(vec![sfen.to_string()]);
    }
    let path = source.positions.as_deref().unwrap_or(Path::new(""));
    read_positions_file(command, path)
}

/// Every position of a `--positions` file (bounded reader: BOM skipped, line length and count
/// capped), validated, errors naming the line.
pub(crate) fn read_positions_file(command: &str, path: &Path) -> Result<Vec<String>, CliError> {
    let lines = kiki_core::input::read_positions_file(path)
        .map_err(|error| CliError::usage(format!("kiki {command}: {error}")))?;
    let quoted_path = quote_input(&path.display().to_string());
    let mut sfens = Vec::with_capacity(lines.len());
    for (number, line) in lines {
        Position::from_sfen(Reference, &line).map_err(|error| {
            CliError::usage(format!(
                "kiki {command}: {quoted_path}: line {number}: {error}"
            ))
        })?;
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
    leaf: kiki_engine::perft::Leaf,
    make: kiki_engine::perft::Make,
}

/// From this depth on, perft runs root move by root move behind a progress bar with an ETA.
pub const PROGRESS_DEPTH: u32 = 7;

impl BackendVisitor for PerftVisitor<'_> {
    type Output = PerftRun;
    fn visit<B: Backend>(self, backend: B) -> PerftRun {
        // Validated before: a parse failure here would be a bug in the backend conversion.
        let mut pos = Position::from_sfen(backend, self.sfen).expect("validated SFEN");
        let started = Instant::now();
        let (nodes, divide) = if self.divide || self.depth >= PROGRESS_DEPTH {
            let rows =
                divide_with_progress(&mut pos, self.depth, self.leaf, self.make, B::info().name);
            let nodes = rows.iter().map(|r| r.1).sum();
            (nodes, if self.divide { rows } else { Vec::new() })
        } else {
            (
                kiki_engine::perft::perft_with(&mut pos, self.depth, self.leaf, self.make),
                Vec::new(),
            )
        };
        PerftRun {
            nodes,
            seconds: started.elapsed().as_secs_f64(),
            divide,
        }
    }
}

/// Divide, one root move at a time, with a progress bar (shown on a terminal only).
fn divide_with_progress<B: Backend>(
    pos: &mut Position<B>,
    depth: u32,
    leaf: kiki_engine::perft::Leaf,
    make: kiki_engine::perft::Make,
    name: &str,
) -> Vec<(String, u64)> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let bar = (depth >= PROGRESS_DEPTH).then(|| {
        let bar = progress::bar(list.len() as u64, "root moves");
        bar.set_message(format!("{name} depth {depth}"));
        bar
    });
    let mut rows: Vec<(String, u64)> = list
        .iter()
        .map(|&mv| {
            let undo = pos.do_move(mv);
            let nodes = kiki_engine::perft::perft_with(pos, depth - 1, leaf, make);
            pos.undo_move(mv, undo);
            if let Some(bar) = &bar {
                bar.inc(1);
            }
            (mv.to_string(), nodes)
        })
        .collect();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    rows.sort();
    rows
}

pub fn run(args: super::PerftArgs) -> Result<(), CliError> {
    let out = Output::new("perft");
    let depth = args.depth;
    if depth == 0 || depth > MAX_PERFT_DEPTH {
        return Err(CliError::usage(format!(
            "kiki perft: --depth must be 1 to {MAX_PERFT_DEPTH}, got {depth}"
        )));
    }
    let names = resolve_backends("perft", &args.backend)?;
    let sfens = read_positions("perft", &args.source)?;
    super::interrupt::install("perft");
    for &name in &names {
        super::place_tables("perft", name, args.table_pages)?;
    }
    let mut disagreements = 0;
    for sfen in &sfens {
        let mut first: Option<(&str, u64)> = None;
        for &name in &names {
            let run = registry::visit(
                name,
                PerftVisitor {
                    sfen,
                    depth: depth as u32,
                    divide: args.divide,
                    leaf: args.leaf.into(),
                    make: args.make.into(),
                },
            )
            .map_err(|e| CliError::registry("perft", e))?;
            let nps = run.nodes as f64 / run.seconds.max(1e-9);
            if args.json {
                let mut fields = json!({
                    "backend": name,
                    "sfen": sfen,
                    "depth": depth,
                    "leaf": kiki_engine::perft::Leaf::from(args.leaf).name(),
                    "make": kiki_engine::perft::Make::from(args.make).name(),
                    "nodes": run.nodes,
                    "seconds": run.seconds,
                    "nps": nps.round(),
                });
                if args.divide {
                    let rows: serde_json::Map<String, Json> = run
                        .divide
                        .iter()
                        .map(|(mv, n)| (mv.clone(), Json::from(*n)))
                        .collect();
                    fields["divide"] = Json::Object(rows);
                }
                out.line(fields)?;
            } else {
                for (mv, nodes) in &run.divide {
                    out.line(format_args!("{mv}: {nodes}"))?;
                }
                out.line(format_args!(
                    "{name:<12} depth {depth}  nodes {:>12}  {:>8.3} s  {:>8.2} M nodes/s  {sfen}",
                    run.nodes,
                    run.seconds,
                    nps / 1e6
                ))?;
            }
            match first {
                None => first = Some((name, run.nodes)),
                Some((first_name, first_nodes)) if first_nodes != run.nodes => {
                    warn(format!(
                        "kiki perft: DISAGREEMENT on {sfen} depth {depth}: {first_name} {first_nodes}, {name} {}",
                        run.nodes
                    ));
                    disagreements += 1;
                }
                Some(_) => {}
            }
        }
    }
    out.flush()?;
    if disagreements > 0 {
        return Err(CliError::failed(format!(
            "kiki perft: {disagreements} disagreement(s) between backends"
        )));
    }
    Ok(())
}
