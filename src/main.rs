//! The `kiki` command line.
fn main() {}
