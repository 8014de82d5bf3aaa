//! The measuring harness: the check against the reference, workloads, measurement, the
//! experiments, statistics, results.json and the published report.

pub mod answers;
pub mod bench;
pub mod cache_levels;
pub mod compare;
pub mod conditions;
pub mod effects_timing;
pub mod experiments;
pub mod index;
pub mod invocations;
pub mod layouts;
pub mod machine;
pub mod measure;
#[cfg(feature = "peers")]
pub mod peers;
pub mod plot;
pub mod readback;
pub(crate) mod registry;
pub mod report;
pub mod results;
pub mod schedule;
pub mod stats;
pub mod verdicts;
pub mod verify;
pub mod watch;
pub mod workloads;

/// The last non-blank line of a child process's output (what a failed valgrind, cargo or kiki
/// child says last), for one-line errors.
pub fn last_line(output: &[u8]) -> String {
    String::from_utf8_lossy(output)
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .to_string()
}

/// The workspace root this crate was built in (E9's source tree, the test fixtures in tests/data/).
pub const WORKSPACE_ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
