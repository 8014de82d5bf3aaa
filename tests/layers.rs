//! The architecture as a test. The layers are crates, so the compiler refuses an upward import;
//! this test keeps the manifests honest (every `kiki-*` dependency points down: core ← variants,
//! core ← engine; core, variants, engine ← harness ← kiki, and the benchmarks beside kiki),
//! finds import circles between the modules inside each crate, which the compiler allows, and
//! holds the style's sizes (no file over 1,000 lines, no function over 150 outside tests).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The workspace's crates: package name, folder, source root of its modules, layer. Variants
/// and engine are siblings on one layer: neither may depend on the other.
const CRATES: &[(&str, &str, Option<&str>, usize)] = &[
    ("kiki-core", "crates/core", Some("crates/core/src"), 0),
    ("kiki-variants", "variants", Some("variants"), 1),
    ("kiki-engine", "crates/engine", Some("crates/engine/src"), 1),
    (
        "kiki-harness",
        "crates/harness",
        Some("crates/harness/src"),
        2,
    ),
    ("kiki", ".", Some("src"), 3),
    // The benchmarks, on the command line's layer: each file is a crate root with no modules.
    ("kiki-benches", "benches", None, 3),
];

fn layer(package: &str) -> Option<usize> {
    CRATES.iter().find(|c| c.0 == package).map(|c| c.3)
}

/// The `kiki*` packages a manifest's `[dependencies]` (and target-specific dependencies) name;
/// dev-dependencies are left out: tests may check a layer from above.
fn normal_dependencies(manifest: &str) -> Vec<String> {
    let mut section = String::new();
    let mut found = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line.trim_matches(|c| c == '[' || c == ']').to_string();
            continue;
        }
        let normal = section == "dependencies" || section.ends_with(".dependencies");
        if !normal || section.contains("dev-dependencies") {
            continue;
        }
        let name = line.split(['=', '.', ' ']).next().unwrap_or("");
        if name == "kiki" || name.starts_with("kiki-") {
            found.push(name.to_string());
        }
    }
    found
}

/// Dependencies of `package` that do not point strictly down.
fn upward(package: &str, manifest: &str) -> Vec<String> {
    let own = layer(package).expect("a workspace crate");
    normal_dependencies(manifest)
        .into_iter()
        .filter(|dep| layer(dep).is_none_or(|l| l >= own))
        .map(|dep| format!("{package} depends on {dep}"))
        .collect()
}

#[test]
fn crates_depend_down_the_layers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut violations = Vec::new();
    let mut edges = 0;
    for (package, folder, _, _) in CRATES {
        let manifest = std::fs::read_to_string(root.join(folder).join("Cargo.toml")).unwrap();
        assert!(
            manifest.contains(&format!("name = \"{package}\"")),
            "{folder}/Cargo.toml is not {package}"
        );
        edges += normal_dependencies(&manifest).len();
        violations.extend(upward(package, &manifest));
    }
    assert!(
        edges >= 8,
        "only {edges} kiki dependencies found: the scan is broken"
    );
    assert!(violations.is_empty(), "{violations:?}");
}

#[test]
fn the_manifest_scan_sees_an_upward_or_sideways_dependency() {
    let engine = "[dependencies]\nkiki-core.workspace = true\nkiki-variants = { path = \"x\" }\n\
                  [dev-dependencies]\nkiki-harness.workspace = true\n";
    assert_eq!(normal_dependencies(engine), ["kiki-core", "kiki-variants"]);
    assert_eq!(
        upward("kiki-engine", engine),
        ["kiki-engine depends on kiki-variants"]
    );
    let core = "[target.'cfg(unix)'.dependencies]\nkiki-harness.workspace = true\n";
    assert_eq!(upward("kiki-core", core).len(), 1);
    let harness = "[dependencies]\nkiki-core.workspace = true\nkiki-engine.workspace = true\n";
    assert!(upward("kiki-harness", harness).is_empty());
}

// ---- circles between modules inside a crate ---------------------------------------------------

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

/// A file's module path inside its crate: `experiments/e7/measure.rs` → `experiments::e7::measure`,
/// `lib.rs` → empty.
fn module_path(source_root: &Path, file: &Path) -> Vec<String> {
    let mut parts: Vec<String> = file
        .strip_prefix(source_root)
        .unwrap()
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts
        .last()
        .is_some_and(|p| p == "mod" || p == "lib" || p == "main")
    {
        parts.pop();
    }
    parts
}

/// The text before the file's test module (tests may import anything).
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

/// Comments and string literals blanked out, so that neither reads as an import.
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut in_string = false;
        let mut previous = ' ';
        let mut kept = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if !in_string && c == '/' && chars.peek() == Some(&'/') {
                break;
            }
            if c == '"' && previous != '\\' {
                in_string = !in_string;
            } else if !in_string {
                kept.push(c);
            }
            previous = c;
        }
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

/// Every module path a file's code names through `crate::`, `super::` (any number) or `self::`,
/// grouped imports (`use crate::{a::x, b}`) expanded, resolved to absolute paths in the crate.
fn imports(module: &[String], text: &str) -> Vec<Vec<String>> {
    let code = code_only(without_test_module(text));
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < code.len() {
        let rest = &code[at..];
        let starts = ["crate::", "super::", "self::"];
        let Some(prefix) = starts.iter().find(|p| rest.starts_with(**p)) else {
            at += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let before = at.checked_sub(1).map(|i| bytes[i] as char);
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == ':') {
            at += prefix.len();
            continue;
        }
        // The base module: the crate root, or this file's module's parent(s).
        let mut base: Vec<String> = match *prefix {
            "crate::" => Vec::new(),
            _ => {
                // A file's module path already names its folder's `mod.rs` as the folder.
                let mut base = module.to_vec();
                if *prefix == "super::" {
                    base.pop();
                }
                base
            }
        };
        let mut cursor = at + prefix.len();
        while code[cursor..].starts_with("super::") {
            base.pop();
            cursor += "super::".len();
        }
        let (paths, end) = parse_tree(&code, cursor);
        for path in paths {
            let mut full = base.clone();
            full.extend(path);
            found.push(full);
        }
        at = end.max(at + 1);
    }
    found
}

/// Parses `a::b`, `a::{b, c::d}` or `{a, b}` at `at`: the paths, and where parsing stopped.
fn parse_tree(code: &str, mut at: usize) -> (Vec<Vec<String>>, usize) {
    let bytes = code.as_bytes();
    let mut prefix = Vec::new();
    loop {
        if bytes.get(at) == Some(&b'{') {
            let mut paths = Vec::new();
            at += 1;
            loop {
                while bytes
                    .get(at)
                    .is_some_and(|b| b.is_ascii_whitespace() || *b == b',')
                {
                    at += 1;
                }
                if bytes.get(at).is_none_or(|b| *b == b'}') {
                    return (paths, at + 1);
                }
                let (inner, end) = parse_tree(code, at);
                for path in inner {
                    let mut full = prefix.clone();
                    full.extend(path);
                    paths.push(full);
                }
                at = end;
            }
        }
        let name: String = code[at..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            return (vec![prefix], at);
        }
        at += name.len();
        if name != "self" {
            prefix.push(name);
        }
        if code[at..].starts_with("::") {
            at += 2;
        } else {
            return (vec![prefix], at);
        }
    }
}

/// Module edges between files, and every circle they form. A module importing its own ancestor
/// or descendant (a folder's `mod.rs` and its files) is one unit, not a circle.
#[derive(Default)]
struct Graph {
    modules: BTreeSet<Vec<String>>,
    edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
    imports: usize,
}

impl Graph {
    fn add(&mut self, module: &[String], text: &str) {
        for import in imports(module, text) {
            self.imports += 1;
            // The longest prefix of the import that is a module (the rest names an item).
            let mut target = import;
            while !target.is_empty() && !self.modules.contains(&target) {
                target.pop();
            }
            let related = target.starts_with(module) || module.starts_with(&target);
            if !related {
                self.edges
                    .entry(module.to_vec())
                    .or_default()
                    .insert(target);
            }
        }
    }

    fn circles(&self) -> Vec<String> {
        let show = |m: &Vec<String>| {
            if m.is_empty() {
                "crate".to_string()
            } else {
                m.join("::")
            }
        };
        let mut circles = Vec::new();
        for start in self.edges.keys() {
            let mut stack = vec![(start.clone(), vec![show(start)])];
            let mut seen = BTreeSet::new();
            while let Some((at, trail)) = stack.pop() {
                for next in self.edges.get(&at).into_iter().flatten() {
                    if next == start {
                        circles.push(format!("{} → {}", trail.join(" → "), show(start)));
                    } else if seen.insert(next.clone()) {
                        let mut longer = trail.clone();
                        longer.push(show(next));
                        stack.push((next.clone(), longer));
                    }
                }
            }
        }
        circles
    }
}

#[test]
fn modules_inside_each_crate_form_no_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (package, _, source, _) in CRATES {
        let Some(source) = source else { continue };
        let source_root = root.join(source);
        let mut files = Vec::new();
        rust_files(&source_root, &mut files);
        let mut graph = Graph {
            modules: files.iter().map(|f| module_path(&source_root, f)).collect(),
            ..Graph::default()
        };
        for file in &files {
            let module = module_path(&source_root, file);
            let text = std::fs::read_to_string(file).unwrap();
            graph.add(&module, &text);
        }
        assert!(
            graph.imports > 10,
            "{package}: only {} imports found",
            graph.imports
        );
        let circles = graph.circles();
        assert!(
            circles.is_empty(),
            "{package}: import circles:\n{}",
            circles.join("\n")
        );
    }
}

fn path(text: &str) -> Vec<String> {
    text.split("::").map(String::from).collect()
}

#[test]
fn the_module_scan_sees_grouped_imports_super_chains_and_a_circle() {
    // Grouped imports, `super::super::` and comments/strings.
    let text = "use crate::{stats::mean, report::{a, b}};\n\
                use super::super::measure::Case; // crate::cli\n\
                let s = \"crate::x\";\n\
                #[cfg(test)]\nmod tests { use crate::cli; }";
    let found = imports(&path("experiments::e7::measure"), text);
    assert_eq!(
        found,
        vec![
            path("stats::mean"),
            path("report::a"),
            path("report::b"),
            path("experiments::measure::Case"),
        ]
    );
    // Two sibling experiments importing each other form a circle; a folder and its files do not.
    let mut graph = Graph {
        modules: [
            vec![],
            path("experiments"),
            path("experiments::e1"),
            path("experiments::e2"),
            path("stats"),
        ]
        .into(),
        ..Graph::default()
    };
    graph.add(
        &path("experiments::e1"),
        "use crate::experiments::e2::Thing;",
    );
    graph.add(
        &path("experiments::e2"),
        "use super::e1::other; use super::Config;",
    );
    graph.add(
        &path("experiments"),
        "use self::e1::x; use crate::stats::y;",
    );
    let circles = graph.circles();
    assert_eq!(circles.len(), 2, "{circles:?}");
    assert!(circles.contains(&"experiments::e1 → experiments::e2 → experiments::e1".to_string()));
}

// ---- sizes: no file over 1,000 lines, no function over 150 outside tests ----------------------

/// The longest functions in `text` that are not test code, as (lines, name): a function runs
/// from its `fn` line to the first line that closes it at the same indentation (rustfmt's
/// layout); a `mod tests` ends the scan of a file, as test modules come last.
fn long_functions(text: &str, longer_than: usize) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("mod tests") {
            break;
        }
        let indent = &line[..line.len() - trimmed.len()];
        let signature = trimmed
            .trim_start_matches("pub ")
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub(super) ")
            .trim_start_matches("const ")
            .trim_start_matches("unsafe ");
        let Some(rest) = signature.strip_prefix("fn ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let closing = format!("{indent}}}");
        if let Some(end) = lines[i + 1..].iter().position(|l| *l == closing) {
            if end + 2 > longer_than {
                found.push((end + 2, name));
            }
        }
    }
    found
}

#[test]
fn no_file_over_1000_lines_and_no_function_over_150_outside_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "crates", "variants", "benches", "examples", "tests"] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 100, "only {} files found", files.len());
    let mut over = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let name = file.strip_prefix(root).unwrap().display().to_string();
        let lines = text.lines().count();
        if lines > 1000 {
            over.push(format!("{name}: {lines} lines"));
        }
        let test_code =
            name.starts_with("tests/") || name.contains("/tests/") || name.ends_with("tests.rs");
        if !test_code {
            for (length, function) in long_functions(&text, 150) {
                over.push(format!("{name}: fn {function}, {length} lines"));
            }
        }
    }
    assert!(over.is_empty(), "{over:#?}");
}

#[test]
fn the_size_scan_measures_a_function_to_its_closing_brace() {
    let body = "        x += 1;\n".repeat(151);
    let text = format!(
        "pub fn short() {{\n}}\n\nimpl A {{\n    pub(super) fn long(&self) {{\n{body}    }}\n}}\n"
    );
    assert_eq!(long_functions(&text, 150), [(153, "long".to_string())]);
    assert!(long_functions(&format!("mod tests {{\n{text}}}\n"), 150).is_empty());
}
