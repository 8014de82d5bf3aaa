//! `kiki check`: the differential check of backends against the reference.

use super::{CliError, Options};
use crate::backend::Backend;
use crate::check::check_backend;
use crate::registry::{self, BackendVisitor};
use std::time::Instant;

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

pub fn run(args: &[String]) -> Result<(), CliError> {
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
