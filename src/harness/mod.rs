//! The measuring harness: workloads, measurement, experiments and the published report.

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
