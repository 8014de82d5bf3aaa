//! The backends, one folder each; each touches nothing but the backend trait, the shared types
//! (`crate::types`, `crate::backend`) and the helpers in `shared/`. Beside them: the naive
//! reference every backend is checked against, and the registry that names them.

pub mod reference;
pub mod registry;
pub mod shared;

pub mod bonanza;
pub mod dbb;
pub mod magic;
pub mod magic_plain;
pub mod mailbox;
pub mod pext;
pub mod qugiy;
pub mod sqww;
