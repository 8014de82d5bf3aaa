//! The measuring harness: workloads, measurement, experiments and the published report.

pub mod results;
