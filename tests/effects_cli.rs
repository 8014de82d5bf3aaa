//! `kiki effects` as a user meets it: a verified, timed line per stepper; JSON with the raw
//! samples; one-line errors with exit 2 for bad numbers.

use kiki_harness::effects_timing::NAMES;
use std::process::{Command, Output};

fn kiki(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kiki"))
        .args(args)
        .output()
        .expect("the kiki binary runs")
}

#[test]
fn prints_a_line_per_stepper_after_verifying() {
    let output = kiki(&["effects", "--moves", "3000", "--samples", "3"]);
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.starts_with("verified: 3000 moves"), "{text}");
    for name in NAMES {
        let line = text
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no line for {name}: {text}"));
        assert!(line.contains(" ns ("), "{line}");
    }
}

#[test]
fn json_has_one_object_per_stepper_with_raw_samples() {
    let output = kiki(&["effects", "--moves", "2000", "--samples", "4", "--json"]);
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    let text = text.trim();
    assert!(text.starts_with('[') && text.ends_with(']'), "{text}");
    assert_eq!(text.matches("\"stepper\":").count(), NAMES.len(), "{text}");
    for name in NAMES {
        let at = text
            .find(&format!("\"stepper\":\"{name}\""))
            .unwrap_or_else(|| panic!("{name} missing: {text}"));
        let rest = &text[at..];
        let samples = &rest[rest.find("\"samples\":[").expect("samples") + 11..];
        let samples = &samples[..samples.find(']').expect("end of samples")];
        let values: Vec<f64> = samples.split(',').map(|v| v.parse().unwrap()).collect();
        assert_eq!(values.len(), 4, "{name}: {samples}");
        assert!(
            values.iter().all(|&v| v > 0.0 && v.is_finite()),
            "{samples}"
        );
    }
}

#[test]
fn bad_numbers_are_one_line_errors_exit_2() {
    for args in [
        &["effects", "--moves", "lots"][..],
        &["effects", "--moves", "0"][..],
        &["effects", "--samples", "0"][..],
        &["effects", "--seed", "-1"][..],
        &["effects", "--moves"][..],
        &["effects", "--bogus"][..],
    ] {
        let output = kiki(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let text = String::from_utf8_lossy(&output.stderr);
        assert_eq!(text.lines().count(), 1, "{args:?}: {text}");
        assert!(!text.contains("panicked"), "{text}");
    }
}
