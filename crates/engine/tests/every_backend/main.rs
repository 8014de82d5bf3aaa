//! Every registered backend through the engine, in one test binary (release builds link with
//! LTO, so one link instead of seven): each backend against the naive reference, batch and masked
//! lookups, bitboard operations, attack maps, the move generator's rules and its bulk count, mate in one, perft and the search. These are the tests that
//! depend on the SIMD level, so CI runs this crate again with the portable twins and at AVX-512;
//! each file here is a module, and the integration tests' `every_test_file_is_a_module` (in
//! `tests/main.rs` at the root) fails if one is left out.

/// Calls `$callback!` with every backend and layout variant, except in a build with the
/// `portable` feature, which leaves the layout variants out: a variant changes a table layout,
/// which has no SIMD path, and its bitboard type is its base's, so the portable twins are
/// proven on the bases (in CI's portable pass the tests these expand to instantiate the engine
/// for eight backends instead of fifteen; the files that dispatch by name still reach all).
macro_rules! for_each_tested {
    ($callback:ident) => {
        #[cfg(not(feature = "portable"))]
        kiki_variants::for_each_registered!($callback);
        #[cfg(feature = "portable")]
        kiki_variants::for_each_backend!($callback);
    };
}

/// The names the tests that dispatch by name run on: every available backend and layout
/// variant, or under `portable` the bases only, as [`for_each_tested!`].
fn tested_names() -> Vec<&'static str> {
    #[cfg(not(feature = "portable"))]
    let names = kiki_variants::registry::resolve("all");
    #[cfg(feature = "portable")]
    let names = kiki_variants::registry::resolve_bases("all");
    names.expect("all resolves")
}

/// Runs `visitor` on the backend called `name`, dispatching over what [`tested_names`] gives.
fn visit_tested<V: kiki_variants::registry::BackendVisitor>(
    name: &str,
    visitor: V,
) -> Result<V::Output, kiki_variants::registry::RegistryError> {
    #[cfg(not(feature = "portable"))]
    return kiki_variants::registry::visit(name, visitor);
    #[cfg(feature = "portable")]
    return kiki_variants::registry::visit_base(name, visitor);
}

mod attacks_many;
mod backends;
mod backends_agree;
mod bitboard_ops;
mod masked_lookups;
mod mate1;
mod move_count;
mod movegen_rules;
mod perft;
mod search;
