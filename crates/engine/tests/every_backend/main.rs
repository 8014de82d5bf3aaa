//! Every registered backend through the engine, in one test binary (release builds link with
//! LTO, so one link instead of seven): each backend against the naive reference, batch and masked
//! lookups, bitboard operations, attack maps, mate in one and perft. These are the tests that
//! depend on the SIMD level, so CI runs this crate again with the portable twins and at AVX-512;
//! each file here is a module, and `every_test_file_is_a_module` fails if one is left out.

mod attacks_many;
mod backends;
mod backends_agree;
mod bitboard_ops;
mod masked_lookups;
mod mate1;
mod perft;

/// A test file that is not declared above would silently never run.
#[test]
fn every_test_file_is_a_module() {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/every_backend");
    let declared = include_str!("main.rs");
    for entry in std::fs::read_dir(&folder).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if let Some(module) = name.strip_suffix(".rs") {
            if module != "main" {
                let line = format!("mod {module};");
                assert!(
                    declared.contains(&line),
                    "crates/engine/tests/every_backend/{name} is not declared in its main.rs"
                );
            }
        }
    }
}
