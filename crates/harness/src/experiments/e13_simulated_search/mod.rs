//! E13 (groundwork, issue 58): seed 004 in a simulated search — the bench search under
//! valgrind callgrind's cache simulation, its misses per node split into attack tables,
//! evaluation, TT and the rest by the source file of the missing instruction.
//!
//! `workload` is what valgrind runs (the hidden `kiki e13-workload`: the search inside one
//! collected function), `simulate` runs it under callgrind and differences two search sizes,
//! `per_file` reads callgrind's per-line output into counts per source file and states the
//! attribution method, `cells` is issue 58's grid. Not yet an experiment of the report: nothing
//! runs the grid, and there is no rule and no verdict.

mod cells;
mod instrumentation;
mod per_file;
mod simulate;
#[cfg(test)]
mod tests;
mod workload;

pub use cells::{
    cells, last_level_sweep, sweep_point, Cell, BACKENDS, QUICK_BACKENDS, QUICK_EVALS,
    QUICK_LAST_LEVELS, SWEEP_LARGEST, SWEEP_SMALLEST,
};
pub use per_file::{parse_per_file, DataEvents, FileCounts, Part, PartCounts, UNKNOWN_FILE};
pub use simulate::{
    callgrind_command, simulate_search, simulate_search_once, Geometry, PerNode, SearchRun,
    SteadySearch, LAST_LEVEL_WAYS, MAX_UNKNOWN_FILE_SHARE, NO_LINE_TABLES, REPEATED_RUN_TOLERANCE,
};
pub use workload::{
    bench_positions, e13_measured_search, parse_workload_line, run_search_workload, workload_line,
    SearchSize, SearchTotals, DEFAULT_DEPTH, DEFAULT_TT_MIB, MEASURED_FUNCTION, SIMULATED_SIMD,
};
