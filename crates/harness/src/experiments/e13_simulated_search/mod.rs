//! E13: seed 004 in a simulated search — the bench search under valgrind callgrind's cache
//! simulation, its last-level misses per node split into attack tables, evaluation, TT and the
//! rest by the source file of the missing instruction, over a sweep of last-level sizes; the
//! difference magic-plain makes priced and read by a fixed rule, and checked against E11's
//! measured D and E7's isolated cost.
//!
//! `workload` is what valgrind runs (the hidden `kiki e13-workload`: the search inside one
//! collected function), `simulate` runs it under callgrind, `per_file` reads callgrind's
//! per-line output into counts per source file and states the attribution method, `cells` is
//! the grid, `trace` the natively traced table lines, `reference` what E13 takes from E6, E7
//! and E11, `measure` the run, `rule` the decision rule, `analysis` and `render` the result.

mod analysis;
mod cells;
mod instrumentation;
mod measure;
mod per_file;
mod reference;
mod render;
pub mod rule;
mod simulate;
#[cfg(test)]
mod tests;
mod trace;
mod workload;

pub use analysis::{Analysis, PerNode as NodeCounts, Summary, RULE_COMMIT, RULE_VERSION};
pub use cells::{
    cells, last_level_sweep, quick_sizes, sweep_point, Cell, BACKENDS, QUICK_BACKENDS, QUICK_EVALS,
    QUICK_LAST_LEVELS, SWEEP_LARGEST, SWEEP_SIZES, SWEEP_SMALLEST, SWEPT_BACKENDS,
};
pub use measure::{marked_levels, CellCounts, MarkedLevel, Measurement, Plan};
pub use per_file::{parse_per_file, DataEvents, FileCounts, Part, PartCounts, UNKNOWN_FILE};
pub use reference::{E11Eval, E7Costs, Interval, Reference};
pub use render::TITLE;
pub use simulate::{
    callgrind_command, simulate_search, simulate_search_once, simulate_walk, Geometry, PerNode,
    SearchRun, SteadySearch, LAST_LEVEL_WAYS, MAX_UNKNOWN_FILE_SHARE, NO_LINE_TABLES,
    REPEATED_RUN_TOLERANCE,
};
pub use trace::{trace_tables, TableTrace};
pub use workload::{
    bench_positions, e13_measured_search, parse_workload_line, run_search_workload, run_table_walk,
    time_search, workload_line, SearchSize, SearchTotals, WalkTotals, DEFAULT_DEPTH,
    DEFAULT_TT_MIB, MEASURED_FUNCTION, SIMULATED_SIMD,
};

use super::{About, Context, Experiment, ExperimentId, Placement, Progress};
use crate::experiments::e8_simulated_caches::{valgrind_version, Simulator};
use crate::invocations::Invocation;
use crate::results::ExperimentResult;

/// E13 in the list of experiments.
pub struct SimulatedSearch;

impl Experiment for SimulatedSearch {
    type Measurement = Measurement;
    const ABOUT: About = About {
        id: ExperimentId::E13,
        title: TITLE,
        about: "seed 004 in a search under valgrind's cache simulation: misses per node, a \
                last-level sweep, E7 and E11 reconciled (needs valgrind)",
        runs_by_default: true,
    };
    fn placement(&self) -> Placement {
        Placement::Parent
    }
    fn measure(&self, context: &Context<'_>, _: Invocation, progress: Progress<'_>) -> Measurement {
        let config = context.config;
        let levels = marked_levels(context.machine, config.cache_levels.as_ref());
        let plan = Plan::new(config.quick, config.smoke, &levels);
        let mut measurement = measure::unavailable(String::new(), &plan, levels);
        measurement.cache_levels = config.cache_levels.clone();
        measurement.reference = config.e13_reference.clone().unwrap_or_default();
        let why = |text: &str| Some(text.to_string());
        let Some(valgrind) = valgrind_version() else {
            measurement.unavailable = why("valgrind is not installed (or does not start)");
            return measurement;
        };
        let exe = match std::env::current_exe() {
            Ok(exe) => exe,
            Err(e) => {
                measurement.unavailable = why(&format!("cannot locate the kiki binary: {e}"));
                return measurement;
            }
        };
        let scratch = match tempfile::Builder::new().prefix("kiki-e13-").tempdir() {
            Ok(scratch) => scratch,
            Err(e) => {
                measurement.unavailable = why(&format!("cannot create a scratch folder: {e}"));
                return measurement;
            }
        };
        context.watch.also_remove(scratch.path());
        // Natively first, while nothing else runs: the traced table lines and t(dbb).
        progress("tracing the table lines and timing dbb natively", 0.0);
        (measurement.traces, measurement.native) = measure::native(&plan);
        let simulator = Simulator {
            scratch: scratch.path(),
            watch: context.watch,
        };
        let (cells, failures, seconds) = measure::measure(&exe, &plan, simulator, progress);
        context.watch.forget(scratch.path());
        measurement.valgrind = Some(valgrind);
        if cells.is_empty() {
            measurement.unavailable = failures.first().cloned().or(why("no cell ran"));
        } else {
            measurement.unavailable = None;
        }
        measurement.cells = cells;
        measurement.failures = failures;
        measurement.simulation_seconds = seconds;
        measurement
    }
    fn analyse(&self, measurements: &[Measurement], _: &Context<'_>) -> ExperimentResult {
        render::result(&Analysis::of(&measurements[0]))
    }
}
