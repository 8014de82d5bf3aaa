//! `kiki mate1`: the mating move (USI) or `none` for each position, on one or every backend.

use super::perft::read_positions;
use super::{resolve_backends, warn, CliError, Output};
use kiki_core::backend::Backend;
use kiki_engine::mate1::{is_mating_move, mate_in_1};
use kiki_engine::position::Position;
use kiki_variants::registry::{self, BackendVisitor};
use serde_json::json;

/// What one backend answered for one position.
struct Answer {
    mate: Option<String>,
    /// Whether the answer, made on the board, really mates (a self-check, never expected false).
    verified: bool,
}

struct Mate1Visitor<'a> {
    sfen: &'a str,
}

impl BackendVisitor for Mate1Visitor<'_> {
    type Output = Answer;
    fn visit<B: Backend>(self, backend: B) -> Answer {
        // Validated before: a parse failure here would be a bug in the backend conversion.
        let pos = Position::from_sfen(backend, self.sfen).expect("validated SFEN");
        let mate = mate_in_1(&pos);
        Answer {
            verified: mate.is_none_or(|mv| is_mating_move(&pos, mv)),
            mate: mate.map(|mv| mv.to_string()),
        }
    }
}

pub fn run(args: super::Mate1Args) -> Result<(), CliError> {
    let out = Output::new("mate1");
    let names = resolve_backends("mate1", &args.backend)?;
    let sfens = read_positions("mate1", &args.source)?;
    let json = args.json;
    let mut problems = 0;
    for sfen in &sfens {
        let mut first: Option<(&str, bool)> = None;
        for &name in &names {
            let answer = registry::visit(name, Mate1Visitor { sfen })
                .map_err(|e| CliError::registry("mate1", e))?;
            let text = answer.mate.as_deref().unwrap_or("none");
            if json {
                out.line(json!({"backend": name, "sfen": sfen, "mate": answer.mate}))?;
            } else if names.len() == 1 {
                out.line(text)?;
            } else {
                out.line(format_args!("{name:<12} {text}"))?;
            }
            if !answer.verified {
                warn(format!(
                    "kiki mate1: {name} answered {text}, which does not mate, in {sfen}"
                ));
                problems += 1;
            }
            // Backends may name different mating moves; they must agree whether one exists.
            let found = answer.mate.is_some();
            match first {
                None => first = Some((name, found)),
                Some((first_name, first_found)) if first_found != found => {
                    warn(format!(
                        "kiki mate1: DISAGREEMENT on {sfen}: {first_name} {}, {name} {text}",
                        if first_found { "finds a mate" } else { "none" }
                    ));
                    problems += 1;
                }
                Some(_) => {}
            }
        }
    }
    out.flush()?;
    if problems > 0 {
        return Err(CliError::failed(format!(
            "kiki mate1: {problems} disagreement(s) or false mate(s)"
        )));
    }
    Ok(())
}
