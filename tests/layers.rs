//! The architecture as a test: every `crate::` import points down the layers (vocabulary ←
//! backends ← engine ← verification ← harness ← command line), and no two modules import each
//! other, directly or in a longer circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layer of each top-level module (and of the old names `lib.rs` re-exports).
fn layer_of(module: &str) -> Option<(usize, &'static str)> {
    Some(match module {
        "types" | "backend" | "units" | "input" | "public_positions" | "simd" => (0, "vocabulary"),
        "variants" | "reference" | "registry" | "split" | "magic_search" => (1, "backends"),
        "engine" | "position" | "movegen" | "hands" | "mate1" | "perft" | "effects" => {
            (2, "engine")
        }
        "verify" | "check" => (3, "verification"),
        "harness" | "peers" => (4, "harness"),
        "cli" => (5, "command line"),
        _ => return None,
    })
}

/// An import's path under the folder it lives in: the old names `lib.rs` re-exports
/// (`crate::position`, `crate::check`, `crate::reference`, ...) become the modules they name
/// (`engine::position`, `verify::check`, `variants::reference`, ...).
fn canonical(path: &[String]) -> Vec<String> {
    let folder: &[&str] = match path.first().map(String::as_str) {
        Some("position" | "movegen" | "hands" | "mate1" | "perft" | "effects") => &["engine"],
        Some("check") => &["verify"],
        Some("reference" | "registry") => &["variants"],
        Some("split" | "magic_search") => &["variants", "shared"],
        _ => &[],
    };
    folder
        .iter()
        .map(|f| f.to_string())
        .chain(path.iter().cloned())
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a source file belongs to, as a path of names: `src/harness/e8.rs` →
/// `harness::e8`, `variants/bonanza/layout.rs` → `variants::bonanza::layout`.
fn module_path(root: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(root).unwrap();
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts[0] == "src" {
        parts.remove(0);
    }
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// Every `crate::a::b` path in the code (comments and strings skipped), as its names.
fn crate_paths(text: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().last();
            rest = &rest[at + "crate::".len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '"') {
                continue;
            }
            let names: Vec<String> = rest
                .split("::")
                .map(|n| {
                    n.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect()
                })
                .take_while(|n: &String| !n.is_empty())
                .collect();
            if !names.is_empty() {
                paths.push(names);
            }
        }
    }
    paths
}

/// The node of the module graph a module path belongs to: top-level modules, each engine and
/// verification module (`engine::position`, `engine::movegen`, ...; the files of
/// `engine/position/` are one node), each backend folder and each file inside it (so a
/// backend's own files may not form a circle either).
fn node(path: &[String]) -> String {
    let path = canonical(path);
    let depth = match path.first().map(String::as_str) {
        Some("variants") => 3,
        Some("engine" | "verify" | "harness" | "cli") => 2,
        _ => 1,
    };
    path.iter()
        .take(depth)
        .cloned()
        .collect::<Vec<_>>()
        .join("::")
}

/// One file's imports outside its tests (which may reach any layer: they check it from above):
/// its `crate::` paths, and `use super::sibling` inside a folder (an edge between two files of
/// that folder).
fn imports(module: &[String], is_mod_rs: bool, text: &str) -> Vec<Vec<String>> {
    let code = without_test_module(text);
    let mut imports = crate_paths(code);
    if module.len() >= 2 && !is_mod_rs {
        for line in code.lines() {
            let line = line.split("//").next().unwrap_or("");
            if let Some(rest) = line.trim_start().strip_prefix("use super::") {
                let sibling: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let mut path = module[..module.len() - 1].to_vec();
                path.push(sibling);
                imports.push(path);
            }
        }
    }
    imports
}

/// The text before the file's test module: a `#[cfg(test)]` whose next item is a `mod` (other
/// `#[cfg(test)]` items, such as a test-only helper near the top, do not end the scan).
fn without_test_module(text: &str) -> &str {
    let mut offset = 0;
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]" {
            let next = lines.peek().map(|l| l.trim_start()).unwrap_or("");
            if next.starts_with("mod ") || next.starts_with("pub mod ") {
                return &text[..offset];
            }
        }
        offset += line.len();
    }
    text
}

/// What the scan found in a set of files: imports against the layers, the module graph, and how
/// many imports named a layer.
#[derive(Default)]
struct Scan {
    violations: Vec<String>,
    edges: BTreeMap<String, BTreeSet<String>>,
    checked: usize,
    /// The nodes that are modules (files); empty: every node counts as one.
    modules: BTreeSet<String>,
}

impl Scan {
    /// Adds one file, `name` for messages, `module` its module path.
    fn add(&mut self, name: &str, module: &[String], is_mod_rs: bool, text: &str) {
        let (own_layer, own_name) = layer_of(&module[0])
            .unwrap_or_else(|| panic!("{name}: top-level module '{}' has no layer", module[0]));
        for import in imports(module, is_mod_rs, text) {
            let Some((layer, layer_name)) = layer_of(&import[0]) else {
                continue; // a crate-root item such as `crate::Backend` (the vocabulary)
            };
            self.checked += 1;
            if layer > own_layer {
                self.violations.push(format!(
                    "{name} ({own_name}) imports crate::{} ({layer_name})",
                    import.join("::")
                ));
            }
            let (from, to) = (node(module), self.module_of(&import));
            if from != to {
                self.edges.entry(from).or_default().insert(to);
            }
        }
    }

    /// The node of an imported path: the longest prefix of its node that is a module, so that
    /// `crate::cli::CliError` (an item of `cli/mod.rs`) is the node `cli`.
    fn module_of(&self, import: &[String]) -> String {
        let mut node = node(import);
        while !self.modules.is_empty() && !self.modules.contains(&node) {
            match node.rfind("::") {
                Some(at) => node.truncate(at),
                None => break,
            }
        }
        node
    }

    /// Every circle in the module graph: a node that reaches itself.
    fn circles(&self) -> Vec<String> {
        let mut circles = Vec::new();
        for start in self.edges.keys() {
            let mut stack: Vec<(String, Vec<String>)> = vec![(start.clone(), vec![start.clone()])];
            let mut seen = BTreeSet::new();
            while let Some((at, trail)) = stack.pop() {
                for next in self.edges.get(&at).into_iter().flatten() {
                    if next == start {
                        circles.push(format!("{} → {start}", trail.join(" → ")));
                    } else if seen.insert(next.clone()) {
                        let mut longer = trail.clone();
                        longer.push(next.clone());
                        stack.push((next.clone(), longer));
                    }
                }
            }
        }
        circles
    }
}

#[test]
fn imports_point_down_the_layers_and_form_no_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("variants"), &mut files);
    let mut scan = Scan {
        modules: files
            .iter()
            .map(|file| node(&module_path(root, file)))
            .collect(),
        ..Scan::default()
    };
    for file in &files {
        let module = module_path(root, file);
        let name = file.strip_prefix(root).unwrap().display().to_string();
        if module.len() == 1 && (module[0] == "lib" || module[0] == "main") {
            continue; // the crate root declares every layer; main calls the CLI
        }
        let text = std::fs::read_to_string(file).unwrap();
        scan.add(&name, &module, file.ends_with("mod.rs"), &text);
    }
    assert!(
        scan.checked > 200,
        "only {} imports found: the scan is broken",
        scan.checked
    );
    assert!(
        scan.violations.is_empty(),
        "imports against the layers:\n{}",
        scan.violations.join("\n")
    );
    let circles = scan.circles();
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

fn names(path: &str) -> Vec<String> {
    path.split("::").map(String::from).collect()
}

#[test]
fn the_scan_sees_a_violation_and_a_circle() {
    // Negative controls for the scanner itself.
    let paths = crate_paths("use crate::harness::stats; // crate::cli::x\nlet s = \"crate::x\";");
    assert_eq!(paths, vec![names("harness::stats")]);
    assert_eq!(layer_of("harness").unwrap().0, 4);
    for lower in ["engine", "position", "verify", "check"] {
        assert!(layer_of("harness").unwrap().0 > layer_of(lower).unwrap().0);
        assert!(layer_of(lower).unwrap().0 > layer_of("variants").unwrap().0);
    }
    assert!(layer_of("check").unwrap().0 > layer_of("engine").unwrap().0);
    assert_eq!(
        node(&names("variants::bonanza::layout::X")),
        "variants::bonanza::layout"
    );
    // Old names and new paths are the same node; the files of a folder are one.
    assert_eq!(node(&names("position::Move")), "engine::position");
    assert_eq!(node(&names("engine::position::sfen")), "engine::position");
    assert_eq!(node(&names("check::random_occupancy")), "verify::check");
    assert_eq!(
        node(&names("magic_search::X")),
        "variants::shared::magic_search"
    );

    // An engine file importing the harness, a backend importing the engine, verification
    // importing the command line and the engine importing verification are each flagged.
    let mut scan = Scan::default();
    let sfen = names("engine::position::sfen");
    scan.add("sfen.rs", &sfen, false, "use crate::harness::stats::mean;");
    let bonanza = names("variants::bonanza");
    scan.add(
        "bonanza",
        &bonanza,
        true,
        "use crate::engine::movegen::MoveList;",
    );
    scan.add(
        "check.rs",
        &names("verify::check"),
        false,
        "use crate::cli::run;",
    );
    scan.add(
        "movegen.rs",
        &names("engine::movegen"),
        false,
        "use crate::check::random_occupancy;",
    );
    assert_eq!(scan.violations.len(), 4, "{:?}", scan.violations);
    // Tests inside a module are not imports.
    let mut scan = Scan::default();
    let text = "use crate::types::Square;\n#[cfg(test)]\nmod tests { use crate::cli::run; }";
    scan.add("perft.rs", &names("engine::perft"), false, text);
    assert!(scan.violations.is_empty() && scan.checked == 1);
    // Two engine modules importing each other, one through its old name, form a circle.
    scan.add(
        "movegen.rs",
        &names("engine::movegen"),
        false,
        "use crate::position::Move;",
    );
    scan.add(
        "sfen.rs",
        &sfen,
        false,
        "use super::Position;\nuse crate::engine::movegen::X;",
    );
    let circles = scan.circles();
    assert_eq!(circles.len(), 2, "{circles:?}");
    assert!(circles.contains(&"engine::movegen → engine::position → engine::movegen".to_string()));

    // A test-only item near the top does not end the scan: the import after it is checked.
    let mut scan = Scan::default();
    let text = "#[cfg(test)]\nuse crate::types::X;\nuse crate::harness::stats;\n";
    scan.add("dbb/mod.rs", &names("variants::dbb"), true, text);
    assert_eq!(scan.violations.len(), 1, "{:?}", scan.violations);

    // Files of the harness and of the command line are nodes of their own, and an item of a
    // folder's mod.rs belongs to that folder's node.
    let mut scan = Scan {
        modules: ["harness::report", "harness::results", "cli", "cli::report"]
            .map(String::from)
            .into(),
        ..Scan::default()
    };
    scan.add(
        "report.rs",
        &names("harness::report"),
        false,
        "use super::results::Report;",
    );
    scan.add(
        "results.rs",
        &names("harness::results"),
        false,
        "use crate::harness::report::x;",
    );
    scan.add(
        "cli/report.rs",
        &names("cli::report"),
        false,
        "use crate::cli::CliError;",
    );
    let circles = scan.circles();
    assert_eq!(circles.len(), 2, "{circles:?}");
    assert!(
        scan.edges["cli::report"].contains("cli"),
        "{:?}",
        scan.edges
    );
}
