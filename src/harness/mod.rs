//! The measuring harness: workloads, measurement, experiments and the published report.

pub mod cache_levels;
pub mod conditions;
pub mod effects_timing;
pub mod experiments;
pub mod invocations;
pub mod machine;
pub mod measure;
pub mod plot;
pub mod report;
pub mod results;
pub mod stats;
pub mod workloads;

// E8 and E9 under their old paths.
pub use experiments::e8_simulated_caches as e8;
pub use experiments::e9_isa_levels as e9;

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
