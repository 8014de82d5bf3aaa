//! The backends, one folder each; each touches nothing but the trait and the shared types.

pub mod bonanza;
pub mod dbb;
pub mod magic;
pub mod magic_plain;
pub mod mailbox;
pub mod pext;
pub mod qugiy;
pub mod sqww;
