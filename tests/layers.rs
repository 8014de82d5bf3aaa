//! The architecture as a test: every `crate::` import points down the layers (vocabulary ←
//! backends ← engine ← harness ← command line), and no two modules import each other, directly
//! or in a longer circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layer of each top-level module (and of the old names `lib.rs` re-exports).
fn layer_of(module: &str) -> Option<(usize, &'static str)> {
    Some(match module {
        "types" | "backend" | "units" | "input" | "public_positions" => (0, "vocabulary"),
        "variants" | "reference" | "registry" | "split" | "magic_search" => (1, "backends"),
        "position" | "movegen" | "hands" | "mate1" | "perft" | "effects" | "check" => (2, "engine"),
        "harness" | "peers" => (3, "harness"),
        "cli" => (4, "command line"),
        _ => return None,
    })
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

/// The node of the module graph a module path belongs to: top-level modules, each backend
/// folder and each file inside it (so a backend's own files may not form a circle either).
fn node(path: &[String]) -> String {
    let depth = if path.first().is_some_and(|p| p == "variants") {
        3
    } else {
        1
    };
    path.iter()
        .take(depth)
        .cloned()
        .collect::<Vec<_>>()
        .join("::")
}

#[test]
fn imports_point_down_the_layers_and_form_no_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("variants"), &mut files);
    let mut violations = Vec::new();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut checked = 0;
    for file in &files {
        let module = module_path(root, file);
        let name = file.strip_prefix(root).unwrap().display().to_string();
        if module.len() == 1 && (module[0] == "lib" || module[0] == "main") {
            continue; // the crate root declares every layer; main calls the CLI
        }
        let (own_layer, own_name) = layer_of(&module[0])
            .unwrap_or_else(|| panic!("{name}: top-level module '{}' has no layer", module[0]));
        let text = std::fs::read_to_string(file).unwrap();
        // Tests inside a module may reach any layer (they check it from above).
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let mut imports: Vec<Vec<String>> = crate_paths(code);
        // `super::sibling` inside a folder is an edge between two files of that folder.
        if module.len() >= 2 && !file.ends_with("mod.rs") {
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
        for import in imports {
            let Some((layer, layer_name)) = layer_of(&import[0]) else {
                continue; // a crate-root item such as `crate::Backend` (the vocabulary)
            };
            checked += 1;
            if layer > own_layer {
                violations.push(format!(
                    "{name} ({own_name}) imports crate::{} ({layer_name})",
                    import.join("::")
                ));
            }
            let (from, to) = (node(&module), node(&import));
            if from != to {
                edges.entry(from).or_default().insert(to);
            }
        }
    }
    assert!(
        checked > 200,
        "only {checked} imports found: the scan is broken"
    );
    assert!(
        violations.is_empty(),
        "imports against the layers:\n{}",
        violations.join("\n")
    );

    // A circle is a node that reaches itself.
    let mut circles = Vec::new();
    for start in edges.keys() {
        let mut stack: Vec<(String, Vec<String>)> = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((at, trail)) = stack.pop() {
            for next in edges.get(&at).into_iter().flatten() {
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
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_scan_sees_a_violation_and_a_circle() {
    // Negative controls for the scanner itself.
    let paths = crate_paths("use crate::harness::stats; // crate::cli::x\nlet s = \"crate::x\";");
    assert_eq!(
        paths,
        vec![vec!["harness".to_string(), "stats".to_string()]]
    );
    assert_eq!(layer_of("harness").unwrap().0, 3);
    assert!(layer_of("harness").unwrap().0 > layer_of("position").unwrap().0);
    assert_eq!(
        node(&[
            "variants".into(),
            "bonanza".into(),
            "layout".into(),
            "X".into()
        ]),
        "variants::bonanza::layout"
    );
}
