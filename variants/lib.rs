//! The backends, one folder each; each touches nothing but the backend trait, the shared types
//! (`kiki_core::types`, `kiki_core::backend`) and the helpers in `shared/`. Beside them: the registry that
//! names them, and the differential check of any backend against the naive reference
//! (`kiki_core::reference`).

pub mod check;
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
