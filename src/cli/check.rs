//! `kiki check`: the differential check of backends against the reference, then each
//! backend's whole-side attack maps at every SIMD level against naive counts.

use super::{progress, resolve_backends, CliError, Output};
use kiki_core::backend::Backend;
use kiki_core::simd::SimdLevel;
use kiki_engine::attack_map::Method;
use kiki_harness::verify::attack_maps::{self, check_attack_maps, Game};
use kiki_harness::verify::batch::check_batches;
use kiki_variants::check::check_backend_parallel;
use kiki_variants::registry::{self, BackendVisitor};
use std::time::Instant;

struct CheckVisitor<'a> {
    samples: u64,
    seed: u64,
    threads: usize,
    games: &'a [Game],
    methods: &'a [Method],
    out: &'a Output,
}

impl BackendVisitor for CheckVisitor<'_> {
    type Output = Result<(), CliError>;
    fn visit<B: Backend>(self, backend: B) -> Result<(), CliError> {
        let name = B::info().name;
        let started = Instant::now();
        let bar = progress::bar(self.samples, "pairs");
        bar.set_message(name);
        let result =
            check_backend_parallel(&backend, self.samples, self.seed, self.threads, &|done| {
                bar.set_position(done)
            });
        bar.finish_and_clear();
        match result {
            Ok(report) => self.out.line(format_args!(
                "{name:<12} ok in {:.1} s: {report}",
                started.elapsed().as_secs_f64()
            ))?,
            Err(mismatch) => {
                self.out.line(&mismatch)?;
                return Err(CliError::failed(format!(
                    "kiki check: backend '{name}' disagrees with the reference"
                )));
            }
        }
        let started = Instant::now();
        match check_batches(&backend, self.games, &SimdLevel::available()) {
            Ok(report) => self.out.line(format_args!(
                "{name:<12} batches ok in {:.1} s: {report}",
                started.elapsed().as_secs_f64()
            ))?,
            Err(mismatch) => {
                self.out.line(&mismatch)?;
                return Err(CliError::failed(format!(
                    "kiki check: backend '{name}': {} disagrees with the reference",
                    mismatch.call
                )));
            }
        }
        let started = Instant::now();
        match check_attack_maps(&backend, self.games, self.methods) {
            Ok(report) => self.out.line(format_args!(
                "{name:<12} attack maps ok in {:.1} s: {report}",
                started.elapsed().as_secs_f64()
            )),
            Err(mismatch) => {
                self.out.line(&mismatch)?;
                Err(CliError::failed(format!(
                    "kiki check: backend '{name}': {} attack map disagrees with the naive counts",
                    mismatch.method.name()
                )))
            }
        }
    }
}

pub fn run(
    backend: &str,
    samples: u64,
    seed: u64,
    threads: usize,
    table_pages: Option<super::TablePagesArg>,
) -> Result<(), CliError> {
    let out = Output::new("check");
    let names = resolve_backends("check", backend)?;
    super::interrupt::install("check");
    // The attack maps' positions: the same seeded games for every backend, by every method
    // (per piece, and set-wise at every SIMD level this build and CPU have, whatever --simd
    // chose for the dispatched paths).
    let games = attack_maps::random_games(attack_maps::POSITIONS, seed);
    let methods = Method::available();
    if backend == "all" {
        for summary in registry::summaries() {
            if let Err(reason) = summary.availability {
                out.line(format_args!(
                    "{:<12} skipped: unavailable ({reason})",
                    summary.info.name
                ))?;
            }
        }
    }
    for name in names {
        super::place_tables("check", name, table_pages)?;
        let visitor = CheckVisitor {
            samples,
            seed,
            threads,
            games: &games,
            methods: &methods,
            out: &out,
        };
        registry::visit(name, visitor).map_err(|e| CliError::registry("check", e))??;
    }
    out.flush()
}
