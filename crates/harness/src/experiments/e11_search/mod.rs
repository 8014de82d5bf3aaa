//! E11: what each backend costs a node of an engine's search, under evaluations of real size.

pub mod rule;
