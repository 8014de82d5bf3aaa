//! The one place that knows every backend by name, and dispatches generic code to them.

use kiki_core::backend::{Backend, BackendInfo, TableInfo};
use std::fmt;

/// Generic code to run on one backend, chosen by name at run time.
pub trait BackendVisitor {
    type Output;
    fn visit<B: Backend>(self, backend: B) -> Self::Output;
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegistryError {
    Unknown(String),
    Unavailable { name: String, reason: String },
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::Unknown(name) => write!(
                f,
                "unknown backend '{name}' (valid: {}, all)",
                NAMES.join(", ")
            ),
            RegistryError::Unavailable { name, reason } => {
                write!(
                    f,
                    "backend '{name}' is unavailable on this machine: {reason}"
                )
            }
        }
    }
}

impl std::error::Error for RegistryError {}

/// Everything `kiki backends` shows about one backend.
#[derive(Clone, Debug)]
pub struct Summary {
    pub info: BackendInfo,
    pub tables: Vec<TableInfo>,
    pub table_bytes: usize,
    pub simd_path: &'static str,
    pub availability: Result<(), String>,
}

impl Summary {
    pub fn of<B: Backend>() -> Summary {
        Summary {
            info: B::info(),
            tables: B::tables(),
            table_bytes: B::table_bytes(),
            simd_path: B::simd_path(),
            availability: B::availability(),
        }
    }
}

macro_rules! registry {
    ($($name:literal $module:ident => $backend:ty),* $(,)?) => {
        /// The names users type, in display order.
        pub const NAMES: &[&str] = &[$($name),*];

        /// Runs `visitor` on the backend called `name`.
        pub fn visit<V: BackendVisitor>(name: &str, visitor: V) -> Result<V::Output, RegistryError> {
            match name {
                $($name => {
                    let backend = <$backend as Backend>::new().map_err(|reason| {
                        RegistryError::Unavailable { name: name.to_string(), reason }
                    })?;
                    Ok(visitor.visit(backend))
                })*
                _ => Err(RegistryError::Unknown(name.to_string())),
            }
        }

        /// A summary of every backend, available or not.
        pub fn summaries() -> Vec<Summary> {
            vec![$(Summary::of::<$backend>()),*]
        }
    };
}

/// Calls `$callback! { "name" module => Type, ... }` with every backend: the single list that
/// the registry, the per-backend tests and the probes all expand from. Add a backend here.
#[macro_export]
macro_rules! for_each_backend {
    ($callback:ident) => {
        $callback! {
            "bonanza" bonanza => $crate::bonanza::Bonanza,
            "dbb" dbb => $crate::dbb::Dbb,
            "magic" magic => $crate::magic::Magic,
            "magic-plain" magic_plain => $crate::magic_plain::MagicPlain,
            "pext" pext => $crate::pext::Pext,
            "qugiy" qugiy => $crate::qugiy::Qugiy,
            "mailbox" mailbox => $crate::mailbox::Mailbox,
            "sqww" sqww => $crate::sqww::Sqww,
        }
    };
}

for_each_backend!(registry);

/// Resolves a `--backend` argument (`all` or one name) to the names to run. With `all`, the
/// unavailable backends are left out; naming an unavailable backend directly is an error.
pub fn resolve(argument: &str) -> Result<Vec<&'static str>, RegistryError> {
    if argument == "all" {
        return Ok(summaries()
            .iter()
            .filter(|s| s.availability.is_ok())
            .map(|s| s.info.name)
            .collect());
    }
    let name = NAMES
        .iter()
        .copied()
        .find(|&n| n == argument)
        .ok_or_else(|| RegistryError::Unknown(argument.to_string()))?;
    let summary = summaries().into_iter().find(|s| s.info.name == name);
    match summary.map(|s| s.availability) {
        Some(Err(reason)) => Err(RegistryError::Unavailable {
            name: name.to_string(),
            reason,
        }),
        _ => Ok(vec![name]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_names_match_backend_info() {
        let summaries = summaries();
        assert_eq!(summaries.len(), NAMES.len());
        for (summary, name) in summaries.iter().zip(NAMES) {
            assert_eq!(summary.info.name, *name);
        }
    }

    #[test]
    fn unknown_name_lists_valid_ones() {
        let error = resolve("nonesuch").unwrap_err();
        let text = error.to_string();
        assert!(text.starts_with("unknown backend 'nonesuch'"));
        assert!(text.contains("all"));
    }
}
