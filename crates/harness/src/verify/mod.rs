//! Verification: the differential check of every backend against the naive reference.

pub mod attack_maps;
pub mod batch;
pub mod check;
