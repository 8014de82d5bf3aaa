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

/// A list's names and its dispatch: `$names` in display order, and `$visit`, which runs a
/// visitor on the backend of that list called `name` (any other name is `Unknown`).
macro_rules! dispatch {
    ($(#[$names_doc:meta])* $names:ident, $(#[$visit_doc:meta])* $visit:ident,
     [$($name:literal => $backend:ty),*]) => {
        $(#[$names_doc])*
        pub const $names: &[&str] = &[$($name),*];

        $(#[$visit_doc])*
        pub fn $visit<V: BackendVisitor>(
            name: &str,
            visitor: V,
        ) -> Result<V::Output, RegistryError> {
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
    };
}

macro_rules! registry {
    ($($name:literal $module:ident => $backend:ty),* $(,)?) => {
        dispatch!(
            /// Every registered name users type, in display order: the base backends, then
            /// the layout variants.
            NAMES,
            /// Runs `visitor` on the backend or layout variant called `name`.
            visit,
            [$($name => $backend),*]
        );

        /// A summary of every backend and variant, available or not.
        pub fn summaries() -> Vec<Summary> {
            vec![$(Summary::of::<$backend>()),*]
        }
    };
}

macro_rules! base_registry {
    ($($name:literal $module:ident => $backend:ty),* $(,)?) => {
        dispatch!(
            /// The base backends' names, in display order (E1–E11 measure these).
            BASE_NAMES,
            /// Runs `visitor` on the base backend called `name`; a layout variant's name is
            /// `Unknown` here. Code that only ever runs on base backends (E1–E11) dispatches
            /// through this, so that it is compiled for the eight bases, not for every variant.
            visit_base,
            [$($name => $backend),*]
        );
    };
}

/// Calls `$callback! { "name" module => Type, ... }` with every base backend: the list that the
/// experiments E1–E11 expand from. Add a backend here. (`@then` appends the layout variants
/// for `for_each_registered!`.)
#[macro_export]
macro_rules! for_each_backend {
    ($callback:ident) => {
        $crate::for_each_backend! { @then $callback {} }
    };
    (@then $callback:ident { $($variants:tt)* }) => {
        $callback! {
            "bonanza" bonanza => $crate::bonanza::Bonanza,
            "dbb" dbb => $crate::dbb::Dbb,
            "magic" magic => $crate::magic::Magic,
            "magic-plain" magic_plain => $crate::magic_plain::MagicPlain,
            "pext" pext => $crate::pext::Pext,
            "qugiy" qugiy => $crate::qugiy::Qugiy,
            "mailbox" mailbox => $crate::mailbox::Mailbox,
            "sqww" sqww => $crate::sqww::Sqww,
            $($variants)*
        }
    };
}

/// Calls `$callback!` with every backend and then every layout variant (`BASE.FACTOR`: one
/// table layout factor changed against its base): the single list that the registry, the
/// per-backend tests and the probes expand from, so that every variant is proven as its base
/// is. Add a layout variant here.
#[macro_export]
macro_rules! for_each_registered {
    ($callback:ident) => {
        $crate::for_each_backend! { @then $callback {
            "bonanza.entry16" bonanza_entry16 => $crate::bonanza::BonanzaEntry16,
            "bonanza.occ-major" bonanza_occ_major => $crate::bonanza::BonanzaOccMajor,
            "dbb.computed" dbb_computed => $crate::dbb::DbbComputed,
            "magic.split-words" magic_split_words => $crate::magic::MagicSplitWords,
            "magic-plain.entry16" magic_plain_entry16 => $crate::magic_plain::MagicPlainEntry16,
            "magic-plain.computed" magic_plain_computed => $crate::magic_plain::MagicPlainComputed,
            "pext.file-rank" pext_file_rank => $crate::pext::PextFileRank,
        } }
    };
}

for_each_registered!(registry);
for_each_backend!(base_registry);

/// Resolves a `--backend` argument (`all` or one name) to the names to run: every backend
/// and layout variant. With `all`, the unavailable ones are left out; naming an unavailable
/// backend directly is an error.
pub fn resolve(argument: &str) -> Result<Vec<&'static str>, RegistryError> {
    resolve_among(argument, NAMES)
}

/// As [`resolve`], among the base backends only (what E1–E11 measure); a variant's name is
/// `Unknown` here.
pub fn resolve_bases(argument: &str) -> Result<Vec<&'static str>, RegistryError> {
    resolve_among(argument, BASE_NAMES)
}

fn resolve_among(
    argument: &str,
    names: &'static [&'static str],
) -> Result<Vec<&'static str>, RegistryError> {
    let summaries: Vec<Summary> = summaries()
        .into_iter()
        .filter(|s| names.contains(&s.info.name))
        .collect();
    if argument == "all" {
        return Ok(summaries
            .iter()
            .filter(|s| s.availability.is_ok())
            .map(|s| s.info.name)
            .collect());
    }
    let name = names
        .iter()
        .copied()
        .find(|&n| n == argument)
        .ok_or_else(|| RegistryError::Unknown(argument.to_string()))?;
    let summary = summaries.into_iter().find(|s| s.info.name == name);
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
    fn bases_come_first_and_every_variant_names_a_registered_base() {
        assert_eq!(&NAMES[..BASE_NAMES.len()], BASE_NAMES);
        for summary in summaries() {
            let base = BASE_NAMES.contains(&summary.info.name);
            match summary.info.variant {
                None => assert!(
                    base,
                    "{} is neither a base nor a variant",
                    summary.info.name
                ),
                Some(variant) => {
                    assert!(!base);
                    assert!(BASE_NAMES.contains(&variant.base));
                    let factor_name = summary.info.name.strip_prefix(variant.base);
                    assert!(
                        factor_name.is_some_and(|rest| rest.starts_with('.')),
                        "{} is named BASE.FACTOR",
                        summary.info.name
                    );
                }
            }
        }
        assert_eq!(resolve_bases("all").unwrap().len(), BASE_NAMES.len());
        assert!(matches!(
            resolve_bases("magic-plain.entry16"),
            Err(RegistryError::Unknown(_))
        ));
        assert_eq!(
            resolve("magic-plain.entry16").unwrap(),
            vec!["magic-plain.entry16"]
        );
    }

    /// Every backend's and layout variant's attack tables live in the table arena, so that
    /// the page experiments can put any of them, a small one too, on 2 MiB pages.
    #[test]
    fn every_attack_table_lives_in_the_arena() {
        struct Outside;
        impl BackendVisitor for Outside {
            type Output = Vec<usize>;
            fn visit<B: Backend>(self, backend: B) -> Vec<usize> {
                let memory = backend.attack_table_memory();
                memory
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| kiki_core::table_arena::huge_pages_around(t).is_none())
                    .map(|(i, _)| i)
                    .collect()
            }
        }
        for name in NAMES {
            if let Ok(outside) = visit(name, Outside) {
                assert!(
                    outside.is_empty(),
                    "{name}: tables {outside:?} outside the arena"
                );
            }
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
