//! The command line as a user meets it: exit codes and one-line errors.

use std::process::{Command, Output};

fn kiki(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kiki"))
        .args(args)
        .output()
        .expect("the kiki binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn unknown_backend_is_one_line_listing_valid_names_exit_2() {
    let output = kiki(&["check", "--backend", "nonesuch"]);
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("unknown backend 'nonesuch'"));
    for name in kiki_variants::registry::NAMES {
        assert!(text.contains(name), "{name} missing from: {text}");
    }
}

#[test]
fn bad_arguments_are_one_line_errors() {
    for args in [
        &["check", "--samples", "lots"][..],
        &["check", "--seed"][..],
        &["backends", "--bogus"][..],
        &["frobnicate"][..],
    ] {
        let output = kiki(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let text = stderr(&output);
        assert_eq!(text.lines().count(), 1, "{args:?}: {text}");
        assert!(!text.contains("panicked"), "{text}");
    }
}

/// A malformed `--order-seed` is refused before anything is measured: one line, exit 2.
#[test]
fn report_refuses_a_malformed_order_seed() {
    let out = tempfile::tempdir().unwrap();
    for bad in [
        "0xZZ",
        "0x",
        "+1",
        "1e3",
        "seven",
        "18446744073709551616",
        "",
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_kiki"))
            .args(["report", "--quick", "--only", "E7", "--order-seed", bad])
            .arg("--out")
            .arg(out.path())
            .output()
            .expect("the kiki binary runs");
        assert_eq!(output.status.code(), Some(2), "{bad:?}");
        let text = stderr(&output);
        assert_eq!(text.lines().count(), 1, "{bad:?}: {text}");
        assert!(text.starts_with("kiki report: "), "{bad:?}: {text}");
        assert!(text.contains("--order-seed"), "{bad:?}: {text}");
        assert!(!text.contains("panicked"), "{text}");
        assert!(output.stdout.is_empty(), "{bad:?}");
    }
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
}

#[test]
fn backends_lists_every_backend_with_table_bytes() {
    let output = kiki(&["backends"]);
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    for summary in kiki_variants::registry::summaries() {
        assert!(text.contains(summary.info.name));
        assert!(text.contains(&kiki_core::units::exact_bytes(summary.table_bytes)));
    }
}

#[test]
fn backends_json_is_one_array_with_every_name() {
    let output = kiki(&["backends", "--json"]);
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.trim();
    assert!(line.starts_with('[') && line.ends_with(']'), "{line}");
    for name in kiki_variants::registry::NAMES {
        assert!(line.contains(&format!("\"name\":\"{name}\"")), "{name}");
    }
    assert_eq!(
        line.matches("\"table_bytes\":").count(),
        kiki_variants::registry::NAMES.len()
    );
}

#[test]
fn backends_json_names_each_variants_base_and_factor() {
    let output = kiki(&["backends", "--json"]);
    assert!(output.status.success());
    let list: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let list = list.as_array().unwrap();
    let mut variants = 0;
    for element in list {
        let name = element["name"].as_str().unwrap();
        let (base, factor) = (&element["base"], &element["factor"]);
        if kiki_variants::registry::BASE_NAMES.contains(&name) {
            assert!(base.is_null() && factor.is_null(), "{element}");
        } else {
            variants += 1;
            let base = base.as_str().unwrap();
            assert!(kiki_variants::registry::BASE_NAMES.contains(&base));
            assert!(name.starts_with(&format!("{base}.")), "{name}");
            assert!(!factor.as_str().unwrap().is_empty());
        }
    }
    assert!(variants > 0);
    assert_eq!(
        variants,
        kiki_variants::registry::NAMES.len() - kiki_variants::registry::BASE_NAMES.len()
    );
}

#[test]
fn layout_variants_run_where_their_names_become_arguments() {
    // A variant's name is an argument as it is: E8's workload process, perft and mate-in-1.
    let name = "magic-plain.entry16";
    let output = kiki(&["e8-workload", "--backend", name, "--lookups", "1000"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).starts_with(&format!("{name} 1000 lookups")));
    let output = kiki(&["perft", "--backend", name, "--startpos", "--depth", "3"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("25470"));
    let output = kiki(&["mate1", "--backend", "bonanza.occ-major", "--startpos"]);
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn check_passes_on_every_available_backend() {
    let output = kiki(&["check", "--samples", "2000", "--seed", "3"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8_lossy(&output.stdout);
    // The attack maps, at every SIMD level this CPU has, on every available backend.
    let levels: Vec<&str> = kiki_core::simd::SimdLevel::available()
        .into_iter()
        .map(kiki_core::simd::SimdLevel::name)
        .collect();
    let covered = format!("SIMD levels covered: {}", levels.join(", "));
    assert_eq!(
        text.lines()
            .filter(|l| l.contains("attack maps ok in") && l.ends_with(&covered))
            .count(),
        kiki_variants::registry::resolve("all").unwrap().len(),
        "{covered}: {text}"
    );
    for summary in kiki_variants::registry::summaries() {
        let name = summary.info.name;
        let expected = if summary.availability.is_ok() {
            "ok in"
        } else {
            "skipped"
        };
        assert!(
            text.lines()
                .any(|l| l.starts_with(name) && l.contains(expected)),
            "{name}: {text}"
        );
    }
}

#[test]
fn perft_counts_and_json() {
    let output = kiki(&["perft", "--startpos", "--depth", "3", "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.len(),
        kiki_variants::registry::resolve("all").unwrap().len()
    );
    for line in lines {
        assert!(line.contains("\"nodes\":25470"), "{line}");
        assert!(line.contains(
            "\"sfen\":\"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\""
        ));
        for key in ["backend", "depth", "seconds", "nps"] {
            assert!(line.contains(&format!("\"{key}\":")), "{key}: {line}");
        }
    }
}

/// `--leaf list` builds every leaf move and counts the same; the JSON says which convention.
#[test]
fn perft_leaf_list_counts_the_same() {
    let output = kiki(&[
        "perft",
        "--startpos",
        "--depth",
        "3",
        "--leaf",
        "list",
        "--json",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        text.lines().count(),
        kiki_variants::registry::resolve("all").unwrap().len()
    );
    for line in text.lines() {
        assert!(line.contains("\"nodes\":25470"), "{line}");
        assert!(line.contains("\"leaf\":\"list\""), "{line}");
    }
    let output = kiki(&["perft", "--startpos", "--depth", "2", "--json"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.lines().all(|l| l.contains("\"leaf\":\"count\"")),
        "{text}"
    );
}

#[test]
fn perft_divide_lists_root_moves() {
    let output = kiki(&[
        "perft",
        "--startpos",
        "--depth",
        "2",
        "--divide",
        "--backend",
        "dbb",
    ]);
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.lines().any(|l| l == "7g7f: 30"), "{text}");
    assert_eq!(text.lines().filter(|l| l.ends_with(": 30")).count(), 30);
}

#[test]
fn perft_bad_input_is_one_line_error() {
    let dir = std::env::temp_dir().join(format!("kiki-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("positions.sfen");
    std::fs::write(
        &file,
        "# a comment\n\nlnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\nnot an sfen\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let cases: [(&[&str], &str); 8] = [
        (
            &["perft", "--startpos", "--depth", "2", "--leaf", "tree"],
            "invalid value 'tree' for '--leaf",
        ),
        (
            &["perft", "--startpos", "--depth", "11"],
            "--depth must be 1 to 10",
        ),
        (
            &["perft", "--startpos"],
            "required arguments were not provided: --depth <D>",
        ),
        (
            &["perft", "--depth", "2"],
            "<--sfen <SFEN>|--startpos|--positions <FILE>>",
        ),
        (
            &[
                "perft",
                "--startpos",
                "--sfen",
                "9/9/9/9/9/9/9/9/9 b - 1",
                "--depth",
                "1",
            ],
            "cannot be used with",
        ),
        (
            &["perft", "--sfen", "lnsgkgsnl/9 b - 1", "--depth", "1"],
            "bad SFEN",
        ),
        (&["perft", "--positions", file, "--depth", "1"], "line 4"),
        (
            &["perft", "--positions", "/nonexistent/x", "--depth", "1"],
            "cannot read",
        ),
    ];
    for (args, expected) in cases {
        let output = kiki(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let text = stderr(&output);
        assert_eq!(text.lines().count(), 1, "{args:?}: {text}");
        assert!(text.contains(expected), "{args:?}: {text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn positions_file_takes_a_bom_and_refuses_look_alike_spaces_and_endless_lines() {
    let dir = std::env::temp_dir().join(format!("kiki-cli-positions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bom = dir.join("bom.sfen");
    std::fs::write(
        &bom,
        "\u{feff}lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n",
    )
    .unwrap();
    let output = kiki(&[
        "perft",
        "--positions",
        bom.to_str().unwrap(),
        "--depth",
        "1",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let wide = dir.join("wide.sfen");
    std::fs::write(&wide, "# ok\n\n4k4/9/9/9/9/9/9/9/4K4\u{3000}b - 1\n").unwrap();
    let output = kiki(&[
        "perft",
        "--positions",
        wide.to_str().unwrap(),
        "--depth",
        "1",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output).trim_end(),
        format!(
            "kiki perft: '{}': line 3: non-ASCII whitespace U+3000 is not a field separator",
            wide.display()
        )
    );
    let output = kiki(&["perft", "--positions", "/dev/zero", "--depth", "1"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output).trim_end(),
        "kiki perft: '/dev/zero': line 1: longer than 4096 bytes"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn perft_refuses_a_position_where_the_king_could_be_taken() {
    let output = kiki(&[
        "perft",
        "--sfen",
        "4k4/4R4/9/9/9/9/9/9/4K4 b - 1",
        "--depth",
        "1",
        "--divide",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output).trim_end(),
        "kiki perft: bad SFEN: the side not to move (white) is in check: its king on 5a is \
         attacked by R on 5b"
    );
}

#[test]
fn sfen_with_a_look_alike_space_at_the_end_is_refused() {
    let sfen = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\u{3000}";
    let output = kiki(&["perft", "--sfen", sfen, "--depth", "1"]);
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert!(
        text.contains("non-ASCII whitespace U+3000 is not a field separator"),
        "{text}"
    );
}

/// kiki with `KIKI_SIMD` set to `value`, or removed (`None`), for this child only.
fn kiki_simd_env(args: &[&str], value: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kiki"));
    command.args(args);
    match value {
        Some(value) => command.env("KIKI_SIMD", value),
        None => command.env_remove("KIKI_SIMD"),
    };
    command.output().expect("the kiki binary runs")
}

fn assert_one_line_exit_2(output: &Output, expected: &str, what: &str) {
    let text = stderr(output);
    assert_eq!(output.status.code(), Some(2), "{what}: {text}");
    assert_eq!(text.lines().count(), 1, "{what}: {text}");
    assert!(!text.contains("panicked"), "{what}: {text}");
    assert!(
        text.contains(expected),
        "{what}: expected '{expected}' in {text}"
    );
}

/// Every element of `kiki backends --json` (run with `args` and `KIKI_SIMD` as given) names
/// `level` in use and the available levels.
fn assert_backends_json_level(args: &[&str], env: Option<&str>, level: &str) {
    let mut all = vec!["backends", "--json"];
    all.extend_from_slice(args);
    let output = kiki_simd_env(&all, env);
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    let list: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let list = list.as_array().expect("one array");
    assert_eq!(list.len(), kiki_variants::registry::NAMES.len());
    let available: Vec<&str> = kiki_core::simd::SimdLevel::available()
        .into_iter()
        .map(kiki_core::simd::SimdLevel::name)
        .collect();
    for backend in list {
        assert_eq!(backend["simd_level"], level, "{args:?} {env:?}: {backend}");
        assert_eq!(
            backend["simd_levels_available"],
            serde_json::json!(available),
            "{backend}"
        );
        // The per-backend path is still there.
        assert!(backend["simd_path"].is_string(), "{backend}");
    }
}

#[test]
fn simd_portable_perft_counts_the_same() {
    for args in [
        &[
            "perft",
            "--startpos",
            "--depth",
            "3",
            "--json",
            "--simd",
            "portable",
        ][..],
        &[
            "perft",
            "--simd",
            "portable",
            "--startpos",
            "--depth",
            "3",
            "--json",
        ][..],
    ] {
        let output = kiki(args);
        assert!(output.status.success(), "{args:?}: {}", stderr(&output));
        let text = String::from_utf8_lossy(&output.stdout);
        assert_eq!(
            text.lines().count(),
            kiki_variants::registry::resolve("all").unwrap().len()
        );
        for line in text.lines() {
            assert!(line.contains("\"nodes\":25470"), "{line}");
        }
    }
    // The environment variable alike.
    let output = kiki_simd_env(&["perft", "--startpos", "--depth", "2"], Some("portable"));
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn simd_bogus_is_one_line_error_exit_2() {
    for command in [
        &["perft", "--startpos", "--depth", "1"][..],
        &["check", "--samples", "10"][..],
        &["mate1", "--startpos"][..],
        &["effects", "--moves", "10"][..],
        &["backends"][..],
        &["report", "--quick"][..],
        &["e8-workload", "--backend", "dbb"][..],
        &[
            "e13-workload",
            "--backend",
            "dbb",
            "--eval",
            "material",
            "--positions",
            "1",
        ][..],
    ] {
        let mut args = command.to_vec();
        args.extend(["--simd", "bogus"]);
        assert_one_line_exit_2(
            &kiki(&args),
            "invalid value 'bogus' for '--simd <LEVEL>'",
            &format!("{args:?}"),
        );
        // KIKI_SIMD is checked the same way when --simd is not given...
        assert_one_line_exit_2(
            &kiki_simd_env(command, Some("bogus")),
            "KIKI_SIMD: unknown SIMD level 'bogus' (valid: portable, avx2, avx512)",
            &format!("KIKI_SIMD=bogus {command:?}"),
        );
    }
    // ... and --simd wins over it.
    let output = kiki_simd_env(
        &["perft", "--startpos", "--depth", "1", "--simd", "portable"],
        Some("bogus"),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    // Commands that run no backend ignore KIKI_SIMD and have no --simd.
    assert!(kiki_simd_env(&["completions", "bash"], Some("bogus"))
        .status
        .success());
    assert_eq!(
        kiki(&["completions", "bash", "--simd", "portable"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn backends_shows_the_simd_level_in_use_and_the_available_levels() {
    let best = kiki_core::simd::SimdLevel::best().name();
    assert_backends_json_level(&[], None, best);
    assert_backends_json_level(&["--simd", "portable"], None, "portable");
    assert_backends_json_level(&[], Some("portable"), "portable");
    assert_backends_json_level(&["--simd", "portable"], Some(best), "portable");
    let available: Vec<&str> = kiki_core::simd::SimdLevel::available()
        .into_iter()
        .map(kiki_core::simd::SimdLevel::name)
        .collect();
    let output = kiki_simd_env(&["backends", "--simd", "portable"], None);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8_lossy(&output.stdout);
    let line = format!("SIMD level: portable (available: {})", available.join(", "));
    assert!(
        text.lines().any(|l| l == line),
        "{line} missing from: {text}"
    );
}

/// `--simd avx512` / `KIKI_SIMD=avx512` where the CPU and build have it; elsewhere a one-line
/// error saying what is missing.
#[test]
fn simd_avx512_runs_where_available_and_is_refused_elsewhere() {
    let perft = [
        "perft",
        "--startpos",
        "--depth",
        "3",
        "--json",
        "--simd",
        "avx512",
    ];
    match kiki_core::simd::SimdLevel::Avx512.availability() {
        Ok(()) => {
            let output = kiki(&perft);
            assert!(output.status.success(), "{}", stderr(&output));
            let text = String::from_utf8_lossy(&output.stdout);
            assert!(
                text.lines().all(|l| l.contains("\"nodes\":25470")),
                "{text}"
            );
            assert_backends_json_level(&["--simd", "avx512"], None, "avx512");
            assert_backends_json_level(&[], Some("avx512"), "avx512");
        }
        Err(why) => {
            eprintln!("avx512 unavailable ({why}): checking that it is refused");
            assert_one_line_exit_2(
                &kiki(&perft),
                &format!("kiki perft: --simd avx512: {why}"),
                "--simd avx512",
            );
            assert_one_line_exit_2(
                &kiki_simd_env(&["backends"], Some("avx512")),
                &format!("kiki backends: KIKI_SIMD=avx512: {why}"),
                "KIKI_SIMD=avx512",
            );
        }
    }
}
