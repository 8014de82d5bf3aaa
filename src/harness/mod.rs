//! The measuring harness: workloads, measurement, experiments and the published report.

pub mod e8;
pub mod e9;
pub mod effects_timing;
pub mod experiments;
pub mod json_read;
pub mod machine;
pub mod measure;
pub mod plot;
pub mod report;
pub mod results;
pub mod stats;
pub mod workloads;
