//! Verification above the backends (the per-backend check against the naive reference is
//! `kiki_variants::check`): batch lookups and whole-side attack maps against naive counts.

pub mod attack_maps;
pub mod batch;
