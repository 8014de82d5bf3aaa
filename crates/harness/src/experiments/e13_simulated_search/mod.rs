//! E13 (groundwork, issue 58): seed 004 in a simulated search — the bench search under
//! valgrind callgrind's cache simulation.
//!
//! `workload` is what valgrind runs (the hidden `kiki e13-workload`: the search inside one
//! collected function). Not yet an experiment of the report.

mod workload;

pub use workload::{
    bench_positions, e13_measured_search, parse_workload_line, run_search_workload, workload_line,
    SearchSize, SearchTotals, DEFAULT_DEPTH, DEFAULT_TT_MIB, MEASURED_FUNCTION, SIMULATED_SIMD,
};
