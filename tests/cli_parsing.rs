//! The command line's parsers and error lines, through the library's public items (the root
//! package has no unit-test target: each test target of it is one more LTO link).

use kiki::cli::{
    clap_error_line, command, decimal, experiments_help, parse_ids, safe_line, seed,
    threshold_percent, MAX_ERROR_CHARS,
};
use kiki_harness::experiments::CATALOGUE;

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

#[test]
fn the_command_line_is_consistent() {
    command().debug_assert();
}

#[test]
fn numbers_are_plain_decimal() {
    assert_eq!(decimal("1000000"), Ok(1_000_000));
    for bad in ["1e1", "1_000", "-1", "+5", "0x10", "", " 5", "١٢"] {
        assert!(decimal(bad).is_err(), "{bad}");
    }
    assert!(decimal("18446744073709551616")
        .unwrap_err()
        .contains("too large"));
    assert_eq!(seed("0x10"), Ok(16));
    assert_eq!(seed("42"), Ok(42));
    assert!(seed("0x").is_err());
    assert!(seed("1e3").is_err());
}

#[test]
fn errors_are_one_safe_line() {
    let line = safe_line("a\u{1b}[2J\0b\nc");
    assert_eq!(line, "a\\u{1b}[2J\\u{0}b c");
    assert!(safe_line(&"x".repeat(5000)).chars().count() < MAX_ERROR_CHARS + 5);
}

#[test]
fn clap_errors_name_the_command_and_suggest() {
    let args = strings(&["perft", "--depht", "3", "--startpos"]);
    let error = command()
        .try_get_matches_from(std::iter::once("kiki".to_string()).chain(args.clone()))
        .unwrap_err();
    let line = clap_error_line(&error, &args);
    assert!(line.starts_with("kiki perft: "), "{line}");
    assert!(line.contains("--depth"), "{line}");
    assert_eq!(line.lines().count(), 1);
}

#[test]
fn only_list_is_checked() {
    assert_eq!(parse_ids("--only", "e8, E8").unwrap(), ["E8"]);
    let error = parse_ids("--only", "E8,E42").unwrap_err();
    assert_eq!(error.code, 2);
    assert!(error.message.contains("unknown experiment 'E42'"));
    assert!(error.message.contains("E9"));
    assert!(parse_ids("--with", " , ")
        .unwrap_err()
        .message
        .contains("--with needs"));
}

#[test]
fn thresholds_are_plain_percentages() {
    assert_eq!(threshold_percent("3"), Ok(0.03));
    assert_eq!(threshold_percent("0.5"), Ok(0.005));
    for bad in ["0", "-1", "51", "1e1", "", "3%", "1.2.3", "nan", "inf"] {
        assert!(threshold_percent(bad).is_err(), "{bad}");
    }
}

#[test]
fn help_lists_every_experiment() {
    let help = experiments_help();
    for e in &CATALOGUE {
        assert!(help.contains(e.about), "{help}");
    }
}

/// The root package has no unit-test target (`[lib] test = false`): a unit test written in
/// `src/` would never run. Its tests belong here, through the library's public items.
#[test]
fn the_root_package_has_no_unit_tests() {
    fn visit(dir: &std::path::Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                visit(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                if text.contains("#[test]") || text.contains("#[cfg(test)]") {
                    found.push(path.display().to_string());
                }
            }
        }
    }
    let mut found = Vec::new();
    visit(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut found,
    );
    assert!(found.is_empty(), "unit tests that never run: {found:?}");
}
