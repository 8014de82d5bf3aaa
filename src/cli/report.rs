//! `kiki report`: runs the experiments with progress bars and writes a report folder.

use super::{CliError, Output};
use crate::harness::e8;
use crate::harness::e9;
use crate::harness::experiments::{run_experiments, Config, EXPERIMENT_IDS};
use crate::harness::machine::Machine;
use crate::harness::measure::Event;
use crate::harness::report::write_report;
use crate::harness::results::Experiment;
use crate::json::Json;
use std::path::Path;

/// The experiments `kiki report` itself adds to the measuring ones.
const OWN_IDS: &[&str] = &["E8"];
/// Lookups per E8 simulation (valgrind runs the workload some 50–100× slower than native).
const E8_LOOKUPS_QUICK: usize = 20_000;
const E8_LOOKUPS_FULL: usize = 200_000;

/// Every experiment id `--only` accepts.
pub fn valid_ids() -> Vec<&'static str> {
    EXPERIMENT_IDS.iter().chain(OWN_IDS).copied().collect()
}

/// Parses `--counters cycles,llc-misses` (or `none`) into events; an unknown name is a usage
/// error.
pub fn parse_counters(list: &str) -> Result<Vec<Event>, CliError> {
    let known = Event::ALL;
    let names = || {
        known
            .iter()
            .map(|e| e.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut events = Vec::new();
    for raw in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if raw == "none" {
            continue;
        }
        match known.iter().find(|e| e.name() == raw) {
            Some(&event) if !events.contains(&event) => events.push(event),
            Some(_) => {}
            None => {
                return Err(CliError::usage(format!(
                    "kiki report: unknown counter '{raw}' (valid: {}, none)",
                    names()
                )))
            }
        }
    }
    Ok(events)
}

/// Parses `--only E1,e7` into known ids (upper case); an unknown one is a usage error.
pub fn parse_only(list: &str) -> Result<Vec<String>, CliError> {
    let valid = valid_ids();
    let mut ids = Vec::new();
    for raw in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let id = raw.to_ascii_uppercase();
        if !valid.contains(&id.as_str()) {
            return Err(CliError::usage(format!(
                "kiki report: unknown experiment '{raw}' (valid: {})",
                valid.join(", ")
            )));
        }
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    if ids.is_empty() {
        return Err(CliError::usage(format!(
            "kiki report: --only needs at least one experiment (valid: {})",
            valid.join(", ")
        )));
    }
    Ok(ids)
}

/// Fails early, before minutes of measuring, when the output folder cannot be written.
fn check_writable(out: &Path) -> Result<(), CliError> {
    let shown = crate::input::quote_input(&out.display().to_string());
    if out.exists() && !out.is_dir() {
        return Err(CliError::usage(format!(
            "kiki report: --out {shown} is not a folder"
        )));
    }
    let fail = |e: std::io::Error| CliError {
        message: format!("kiki report: cannot write to output folder {shown}: {e}"),
        code: 1,
    };
    std::fs::create_dir_all(out).map_err(fail)?;
    let probe = out.join(format!(".tmp-write-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(fail)?;
    std::fs::remove_file(&probe).map_err(fail)
}

/// `--e9 x86-64=DIR,x86-64-v3=DIR,native=DIR`: report folders of per-build E1/E2 runs.
fn read_isa_runs(list: &str) -> Result<Vec<e9::IsaRun>, CliError> {
    let mut runs = Vec::new();
    for item in list.split(',').filter(|s| !s.trim().is_empty()) {
        let (level, dir) = item.split_once('=').ok_or_else(|| {
            CliError::usage(format!(
                "kiki report: --e9 wants LEVEL=REPORT_DIR items, got '{item}'"
            ))
        })?;
        let path = Path::new(dir.trim()).join("results.json");
        let text = std::fs::read_to_string(&path).map_err(|e| {
            CliError::usage(format!("kiki report: cannot read {}: {e}", path.display()))
        })?;
        let results = Json::parse(&text)
            .map_err(|e| CliError::usage(format!("kiki report: {}: {e}", path.display())))?;
        runs.push(e9::IsaRun {
            level: level.trim().to_string(),
            results,
        });
    }
    Ok(runs)
}

/// The report's progress: one bar per experiment (with its estimated time left), on stderr and
/// only on a terminal (cleared when the experiment ends).
struct ReportProgress {
    label: String,
    bar: Option<indicatif::ProgressBar>,
}

/// Steps of a bar: the experiments report fractions.
const BAR_STEPS: u64 = 1_000;

impl ReportProgress {
    fn new() -> ReportProgress {
        ReportProgress {
            label: String::new(),
            bar: None,
        }
    }

    /// `message` starts with the experiment's label (`E1: qugiy rook`); `fraction` is that
    /// experiment's share done.
    fn update(&mut self, message: &str, fraction: f64) {
        let label = message.split(':').next().unwrap_or("").to_string();
        if label != self.label || self.bar.is_none() {
            if let Some(bar) = self.bar.take() {
                bar.finish_and_clear();
            }
            self.bar = Some(super::progress::share_bar(BAR_STEPS));
            self.label = label;
        }
        let fraction = if fraction.is_finite() {
            fraction.clamp(0.0, 1.0)
        } else {
            0.0
        };
        if let Some(bar) = &self.bar {
            bar.set_position((fraction * BAR_STEPS as f64).round() as u64);
            bar.set_message(message.chars().take(70).collect::<String>());
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// The detected data caches as (bytes, ways, line) per level, for E8's geometries.
fn detected_cache(machine: &Machine, level: u8) -> Option<e8::DetectedCache> {
    machine
        .caches
        .iter()
        .find(|c| c.level == level && c.kind != "Instruction")
        .map(|c| (c.bytes, c.ways, c.line_bytes))
}

/// Runs E8 under valgrind on this very binary; where valgrind is missing, says so.
fn run_e8(
    machine: &Machine,
    quick: bool,
    scratch: &Path,
    progress: &mut ReportProgress,
) -> Experiment {
    let geometries = e8::geometries(
        detected_cache(machine, 1),
        detected_cache(machine, 2),
        detected_cache(machine, 3),
        quick,
    );
    let lookups = if quick {
        E8_LOOKUPS_QUICK
    } else {
        E8_LOOKUPS_FULL
    };
    let Some(valgrind) = e8::valgrind_version() else {
        return e8::unavailable(
            "valgrind is not installed (or does not start)",
            lookups,
            &geometries,
        );
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            return e8::unavailable(
                &format!("cannot locate the kiki binary: {e}"),
                lookups,
                &geometries,
            )
        }
    };
    let backends = crate::registry::resolve("all").unwrap_or_default();
    // Per geometry: every backend alone, then under pressure from an evaluation twice the last
    // level's size (with the evaluation-alone baseline).
    let mut runs: Vec<(&e8::CacheGeometry, &str, usize)> = Vec::new();
    for geometry in &geometries {
        for &backend in &backends {
            runs.push((geometry, backend, 0));
        }
        let eval_bytes = 2 * geometry.ll.bytes;
        for &backend in backends.iter().chain(&[e8::EVAL_ALONE]) {
            runs.push((geometry, backend, eval_bytes));
        }
    }
    let total = runs.len().max(1);
    let mut results = Vec::new();
    let mut failures = Vec::new();
    for (i, &(geometry, backend, eval_bytes)) in runs.iter().enumerate() {
        let pressure = if eval_bytes > 0 {
            format!(
                ", evaluation {}",
                crate::units::compact_bytes(eval_bytes as f64)
            )
        } else {
            String::new()
        };
        progress.update(
            &format!("E8: valgrind {backend}, {}{pressure}", geometry.name),
            i as f64 / total as f64,
        );
        match e8::simulate(&exe, backend, lookups, eval_bytes, geometry, scratch) {
            Ok(counts) => results.push(e8::SimResult {
                backend: backend.to_string(),
                geometry: geometry.name.clone(),
                counts,
                lookups,
                eval_bytes,
            }),
            Err(reason) => failures.push(format!(
                "{backend} with {}{pressure}: {reason}",
                geometry.name
            )),
        }
    }
    progress.update("E8: done", 1.0);
    if results.is_empty() {
        let reason = failures
            .first()
            .cloned()
            .unwrap_or_else(|| "no backend is available".into());
        return e8::unavailable(&reason, lookups, &geometries);
    }
    e8::experiment(&results, &failures, lookups, &geometries, &valgrind)
}

pub fn run(args: super::ReportArgs) -> Result<(), CliError> {
    let stdout = Output::new("report");
    let only = match &args.only {
        Some(list) => parse_only(list)?,
        None => Vec::new(),
    };
    let positions = match &args.positions {
        Some(path) => super::perft::read_positions_file("report", path)?,
        None => Vec::new(),
    };
    let pin_cpu = args.pin.map(|cpu| cpu as usize);
    let counter_events = match &args.counters {
        Some(list) => parse_counters(list)?,
        None => Event::DEFAULT.to_vec(),
    };
    let isa_runs = match &args.e9 {
        Some(list) => read_isa_runs(list)?,
        None => Vec::new(),
    };
    let out = args.out;
    check_writable(&out)?;

    let quick = args.quick;
    let config = Config {
        quick,
        positions,
        pin_cpu,
        counter_events,
        ..Config::default()
    };
    let machine = Machine::detect();
    let wanted = |id: &str| only.is_empty() || only.iter().any(|o| o == id);
    let mut progress = ReportProgress::new();
    let measured_only: Vec<&str> = only
        .iter()
        .map(String::as_str)
        .filter(|id| !OWN_IDS.contains(id))
        .collect();
    let mut experiments = if only.is_empty() || !measured_only.is_empty() {
        run_experiments(&config, &measured_only, &mut |message, fraction| {
            progress.update(message, fraction)
        })
    } else {
        Vec::new()
    };
    if wanted("E8") {
        experiments.push(run_e8(
            &machine,
            quick,
            &std::env::temp_dir(),
            &mut progress,
        ));
    }
    if !isa_runs.is_empty() {
        experiments.push(e9::experiment(&isa_runs, "x86-64-v3"));
    }
    progress.finish();
    let folder = write_report(
        &out,
        &machine.cpu_slug(),
        machine.date(),
        &machine.markdown(),
        machine.to_json(),
        &experiments,
    )
    .map_err(|message| CliError::failed(format!("kiki report: {message}")))?;
    stdout.line(folder.display())?;
    stdout.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_list_is_checked() {
        assert_eq!(parse_only("e8, E8").unwrap(), ["E8"]);
        let error = parse_only("E8,E42").unwrap_err();
        assert_eq!(error.code, 2);
        assert!(error.message.contains("unknown experiment 'E42'"));
        assert!(error.message.contains("E8"));
        assert!(parse_only(" , ").is_err());
    }
}
