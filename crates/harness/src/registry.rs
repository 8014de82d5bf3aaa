//! The backends the harness runs by name: the variants' registry, except in the harness's own
//! unit tests, which compile four base backends instead of all of them.
//!
//! Each backend the harness dispatches to instantiates the whole engine (move generation,
//! perft, mate-in-1, the search) once more, and that code is most of what an LTO-optimised test
//! binary costs to build. The harness's unit tests check its plumbing and its analysis, not the
//! backends (every backend is checked against the reference in `kiki-engine`'s `every_backend`
//! tests and through the binary in the integration tests), so they dispatch to four: dbb (a
//! table backend with SIMD twins), magic-plain (the largest tables: E7's A/A control), mailbox
//! and sqww (no tables: the negative controls of E7 and E11), and one layout variant,
//! dbb.computed (E12's pairs). Any other name is unavailable there, with that reason.

use kiki_variants::registry as all;
use kiki_variants::registry::{BackendVisitor, RegistryError};

/// Runs `visitor` on the base backend called `name` (see [`all::visit_base`]).
#[cfg(not(test))]
pub fn visit_base<V: BackendVisitor>(name: &str, visitor: V) -> Result<V::Output, RegistryError> {
    all::visit_base(name, visitor)
}

/// Runs `visitor` on the backend or layout variant called `name` (see [`all::visit`]).
#[cfg(not(test))]
pub fn visit<V: BackendVisitor>(name: &str, visitor: V) -> Result<V::Output, RegistryError> {
    all::visit(name, visitor)
}

/// The base backends `argument` names (`all` or one), available here.
#[cfg(not(test))]
pub fn resolve_bases(argument: &str) -> Result<Vec<&'static str>, RegistryError> {
    all::resolve_bases(argument)
}

#[cfg(test)]
pub use unit_tests::{resolve_bases, visit, visit_base};

#[cfg(test)]
mod unit_tests {
    use super::{all, BackendVisitor, RegistryError};
    use kiki_core::backend::Backend;

    /// The base backends compiled into the harness's unit tests.
    pub const COMPILED: [&str; 4] = ["dbb", "magic-plain", "mailbox", "sqww"];

    fn on<B: Backend, V: BackendVisitor>(
        name: &str,
        visitor: V,
    ) -> Result<V::Output, RegistryError> {
        let backend = B::new().map_err(|reason| RegistryError::Unavailable {
            name: name.to_string(),
            reason,
        })?;
        Ok(visitor.visit(backend))
    }

    fn left_out(name: &str) -> RegistryError {
        if all::NAMES.contains(&name) {
            RegistryError::Unavailable {
                name: name.to_string(),
                reason: format!(
                    "not compiled into the harness's unit tests (only {})",
                    COMPILED.join(", ")
                ),
            }
        } else {
            RegistryError::Unknown(name.to_string())
        }
    }

    pub fn visit_base<V: BackendVisitor>(
        name: &str,
        visitor: V,
    ) -> Result<V::Output, RegistryError> {
        match name {
            "dbb" => on::<kiki_variants::dbb::Dbb, V>(name, visitor),
            "mailbox" => on::<kiki_variants::mailbox::Mailbox, V>(name, visitor),
            "sqww" => on::<kiki_variants::sqww::Sqww, V>(name, visitor),
            "magic-plain" => on::<kiki_variants::magic_plain::MagicPlain, V>(name, visitor),
            _ => Err(left_out(name)),
        }
    }

    /// The four bases and one layout variant of dbb (for E12's pairs).
    pub fn visit<V: BackendVisitor>(name: &str, visitor: V) -> Result<V::Output, RegistryError> {
        match name {
            "dbb.computed" => on::<kiki_variants::dbb::DbbComputed, V>(name, visitor),
            _ => visit_base(name, visitor),
        }
    }

    pub fn resolve_bases(argument: &str) -> Result<Vec<&'static str>, RegistryError> {
        let names = all::resolve_bases(argument)?;
        let kept: Vec<&'static str> = names
            .iter()
            .copied()
            .filter(|n| COMPILED.contains(n))
            .collect();
        match kept.is_empty() {
            true if argument != "all" => Err(left_out(argument)),
            _ => Ok(kept),
        }
    }

    #[test]
    fn the_unit_tests_dispatch_to_four_bases_and_say_why_not_to_the_others() {
        assert_eq!(
            resolve_bases("all").unwrap(),
            ["dbb", "magic-plain", "mailbox", "sqww"]
        );
        assert!(matches!(
            resolve_bases("qugiy"),
            Err(RegistryError::Unavailable { reason, .. }) if reason.contains("unit tests")
        ));
        assert!(matches!(
            resolve_bases("nonesuch"),
            Err(RegistryError::Unknown(_))
        ));
    }
}
