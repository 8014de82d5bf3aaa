//! The measuring harness: workloads, measurement, experiments and the published report.

pub mod experiments;
pub mod machine;
pub mod measure;
pub mod results;
pub mod stats;
pub mod workloads;
