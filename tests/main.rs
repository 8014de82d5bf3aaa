//! The `kiki` package's integration tests in one test binary: one link instead of fourteen
//! (release builds link with LTO, and linking was most of the suite's build time). The tests of
//! every backend through the engine, which depend on the SIMD level, are kiki-engine's
//! (`crates/engine/tests/every_backend`), so that CI reruns them without building the harness. Each file
//! under `tests/` is a module here; `every_test_file_is_a_module` fails if one is left out.

mod common;

mod brute_force;
mod cli;
mod cli_bench;
mod cli_compare;
mod cli_mate1;
mod cli_parsing;
mod e13_simulation;
mod e8_simulation;
mod effects;
mod effects_cli;
mod faults;
mod hands;
mod invocations;
mod layers;
mod properties;
mod report;

/// A test file that is not declared in its binary's `main.rs` would silently never run: this
/// binary's (`autotests = false`) and kiki-engine's `every_backend`.
#[test]
fn every_test_file_is_a_module() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let binaries = [
        ("tests", include_str!("main.rs")),
        (
            "crates/engine/tests/every_backend",
            include_str!("../crates/engine/tests/every_backend/main.rs"),
        ),
    ];
    for (folder, declared) in binaries {
        for entry in std::fs::read_dir(root.join(folder)).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if let Some(module) = name.strip_suffix(".rs") {
                if module != "main" {
                    let line = format!("mod {module};");
                    assert!(
                        declared.contains(&line),
                        "{folder}/{name} is not declared in {folder}/main.rs"
                    );
                }
            }
        }
    }
}
