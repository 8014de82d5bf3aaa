//! `kiki report`: runs the experiments with progress bars and writes a report folder.

use super::{CliError, Output};
use kiki_harness::cache_levels::CacheLevels;
use kiki_harness::conditions::Recorder;
use kiki_harness::experiments::{
    self, e6_memory, run_experiments, Config, Context, Experiment, EXPERIMENTS,
};
use kiki_harness::invocations::{self, Recording};
use kiki_harness::machine::Machine;
use kiki_harness::measure::Event;
use kiki_harness::report::{new_report, rerender, write_report};
use kiki_harness::results::ExperimentResult;
use std::path::Path;

/// `kiki report --help`'s list of experiments, from the one list.
pub fn experiments_help() -> String {
    let mut text = String::from("Experiments (E9 runs only when named in --only or --with):\n");
    for e in EXPERIMENTS {
        text.push_str(&format!("  {}  {}\n", e.id(), e.about()));
    }
    text
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

/// Parses `--only E1,e7` (or `--with`) into known ids (upper case); an unknown one is a usage
/// error.
pub fn parse_ids(option: &str, list: &str) -> Result<Vec<String>, CliError> {
    let valid = || {
        EXPERIMENTS
            .iter()
            .map(|e| e.id())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut ids = Vec::new();
    for raw in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some(experiment) = experiments::find(raw) else {
            return Err(CliError::usage(format!(
                "kiki report: unknown experiment '{raw}' (valid: {})",
                valid()
            )));
        };
        let id = experiment.id().to_string();
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    if ids.is_empty() {
        return Err(CliError::usage(format!(
            "kiki report: {option} needs at least one experiment (valid: {})",
            valid()
        )));
    }
    Ok(ids)
}

/// Fails early, before minutes of measuring, when the output folder cannot be written.
fn check_writable(out: &Path) -> Result<(), CliError> {
    let shown = kiki_core::input::quote_input(&out.display().to_string());
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

pub fn run(args: super::ReportArgs) -> Result<(), CliError> {
    let stdout = Output::new("report");
    let only = match &args.only {
        Some(list) => parse_ids("--only", list)?,
        None => Vec::new(),
    };
    let with = match &args.with {
        Some(list) => parse_ids("--with", list)?,
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
    let out = args.out.clone();
    if args.record_invocation.is_none() {
        check_writable(&out)?;
    }

    let cache_levels = match &args.cache_levels {
        Some(text) => Some(serde_json::from_str::<CacheLevels>(text).map_err(|e| {
            CliError::usage(format!("kiki report: --cache-levels is not valid: {e}"))
        })?),
        None => None,
    };
    let mut config = Config {
        quick: args.quick,
        positions,
        pin_cpu,
        counter_events,
        threshold: args.threshold,
        cache_levels,
        ..Config::default()
    };
    let machine = Machine::detect();
    let chosen = experiments::selected(&only, &with);
    let invocations = args
        .invocations
        .map_or(if args.quick { 2 } else { 5 }, |k| k as usize);
    if let (Some(index), Some(file)) = (args.record_invocation, &args.recording) {
        let context = Context {
            config: &config,
            machine: &machine,
        };
        return record_invocation(&chosen, &context, index as usize, invocations, file);
    }
    let mut progress = ReportProgress::new();
    let recorder = Recorder::start();
    let mut forwarded = forwarded_options(&args);
    let run_some = |experiments: &[&dyn Experiment],
                    config: &Config,
                    forwarded: &[std::ffi::OsString],
                    progress: &mut ReportProgress| {
        let context = Context {
            config,
            machine: &machine,
        };
        if invocations > 1 {
            run_in_invocations(experiments, &context, invocations, forwarded, progress)
        } else {
            Ok(run_experiments(
                experiments,
                &context,
                &mut |message, fraction| progress.update(message, fraction),
            ))
        }
    };
    // E7 and E8 size themselves from the measured cache levels: E6's when it runs (so it runs
    // first), else a short pointer chase here, passed to every child alike.
    let mut results = Vec::new();
    let mut rest: Vec<&dyn Experiment> = chosen.clone();
    if config.cache_levels.is_none() && chosen.iter().any(|e| matches!(e.id(), "E7" | "E8")) {
        if let Some(e6) = chosen.iter().copied().find(|e| e.id() == "E6") {
            results = run_some(&[e6], &config, &forwarded, &mut progress)?;
            config.cache_levels = results.first().and_then(e6_memory::levels_from_result);
            rest.retain(|e| e.id() != "E6");
        }
        if config.cache_levels.is_none() {
            progress.update("cache levels: a short pointer chase", 0.0);
            config.cache_levels = Some(CacheLevels::probe(&machine, config.quick));
        }
    }
    if let Some(levels) = &config.cache_levels {
        let json = serde_json::to_string(levels)
            .map_err(|e| CliError::failed(format!("kiki report: {e}")))?;
        forwarded.extend(["--cache-levels".into(), json.into()]);
    }
    results.extend(run_some(&rest, &config, &forwarded, &mut progress)?);
    // Report order, whatever order they ran in.
    results.sort_by_key(|r| chosen.iter().position(|e| e.id() == r.id));
    let conditions = recorder.finish();
    progress.finish();
    let mut report = new_report(machine, results);
    report.mode = if config.quick { "quick" } else { "full" }.to_string();
    report.invocations = invocations;
    report.conditions = Some(conditions);
    let folder = write_report(&out, &report)
        .map_err(|message| CliError::failed(format!("kiki report: {message}")))?;
    stdout.line(folder.display())?;
    stdout.flush()
}

/// The options a child invocation needs to measure as this report does.
fn forwarded_options(args: &super::ReportArgs) -> Vec<std::ffi::OsString> {
    let mut options: Vec<std::ffi::OsString> = Vec::new();
    if args.quick {
        options.push("--quick".into());
    }
    if let Some(cpu) = args.pin {
        options.extend(["--pin".into(), cpu.to_string().into()]);
    }
    if let Some(list) = &args.counters {
        options.extend(["--counters".into(), list.into()]);
    }
    if let Some(path) = &args.positions {
        options.extend(["--positions".into(), path.clone().into_os_string()]);
    }
    // The invocations measure at this process's level (a KIKI_SIMD they inherit as it is).
    if args.simd.simd.is_some() {
        options.extend(["--simd".into(), kiki_core::simd::level().name().into()]);
    }
    options.extend([
        "--threshold".into(),
        format!("{}", args.threshold * 100.0).into(),
    ]);
    options
}

/// Child mode: measures the one experiment of `--only` as invocation `index` of `count`,
/// recording every timing call, and writes the recording to `file`.
fn record_invocation(
    chosen: &[&dyn Experiment],
    context: &Context<'_>,
    index: usize,
    count: usize,
    file: &Path,
) -> Result<(), CliError> {
    let [experiment] = chosen else {
        return Err(CliError::usage(
            "kiki report: --record-invocation needs --only with one experiment",
        ));
    };
    invocations::start_recording(index, count);
    let _ = run_experiments(&[*experiment], context, &mut |_, _| {});
    let recording = Recording {
        experiment: experiment.id().to_string(),
        invocation: index,
        calls: invocations::finish_recording(),
    };
    let text = serde_json::to_string(&recording)
        .map_err(|e| CliError::failed(format!("kiki report: cannot serialise a recording: {e}")))?;
    std::fs::write(file, text).map_err(|e| {
        CliError::failed(format!(
            "kiki report: cannot write the recording {}: {e}",
            file.display()
        ))
    })
}

/// Runs every replayable experiment in `count` child processes — interleaved: invocation 1 of
/// every experiment, then invocation 2, … — each with an environment of its own size, then
/// analyses each once over all its invocations (replayed); E8 and E9 run here, once.
fn run_in_invocations(
    chosen: &[&dyn Experiment],
    context: &Context<'_>,
    count: usize,
    forwarded: &[std::ffi::OsString],
    progress: &mut ReportProgress,
) -> Result<Vec<ExperimentResult>, CliError> {
    let failed = |message: String| CliError::failed(format!("kiki report: {message}"));
    let exe = std::env::current_exe()
        .map_err(|e| failed(format!("cannot locate the kiki binary: {e}")))?;
    let scratch = std::env::temp_dir().join(format!("kiki-invocations-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)
        .map_err(|e| failed(format!("cannot create {}: {e}", scratch.display())))?;
    let replayable: Vec<&dyn Experiment> =
        chosen.iter().copied().filter(|e| e.replayable()).collect();
    let file = |id: &str, index: usize| scratch.join(format!("{id}-{index}.json"));
    let mut seconds: Vec<f64> = vec![0.0; replayable.len()];
    for index in 0..count {
        for (slot, experiment) in replayable.iter().enumerate() {
            let id = experiment.id();
            progress.update(
                &format!(
                    "{id}: invocation {} of {count} (a fresh process)",
                    index + 1
                ),
                index as f64 / count as f64,
            );
            let started = std::time::Instant::now();
            let output = std::process::Command::new(&exe)
                .args(["report", "--only", id, "--invocations"])
                .arg(count.to_string())
                .arg("--record-invocation")
                .arg(index.to_string())
                .arg("--recording")
                .arg(file(id, index))
                .args(forwarded)
                // A different environment size per invocation moves the stack and everything
                // laid out after it (Mytkowicz et al.).
                .env("KIKI_ENVIRONMENT_PADDING", "x".repeat(1 + 977 * index))
                .stdin(std::process::Stdio::null())
                .output()
                .map_err(|e| failed(format!("cannot start {}: {e}", exe.display())))?;
            seconds[slot] += started.elapsed().as_secs_f64();
            if !output.status.success() {
                let last = kiki_harness::last_line(&output.stderr);
                return Err(failed(format!(
                    "{id} invocation {} failed ({}): {last}",
                    index + 1,
                    output.status
                )));
            }
        }
    }
    let mut results = Vec::new();
    for experiment in chosen {
        let id = experiment.id();
        let Some(slot) = replayable.iter().position(|e| e.id() == id) else {
            results.extend(run_experiments(&[*experiment], context, &mut |m, f| {
                progress.update(m, f)
            }));
            continue;
        };
        let mut recordings = Vec::new();
        for index in 0..count {
            let path = file(id, index);
            let text = std::fs::read_to_string(&path)
                .map_err(|e| failed(format!("cannot read {}: {e}", path.display())))?;
            let recording: Recording = serde_json::from_str(&text)
                .map_err(|e| failed(format!("{}: {e}", path.display())))?;
            recordings.push(recording.calls);
        }
        invocations::start_replay(recordings);
        let mut replayed =
            run_experiments(&[*experiment], context, &mut |m, f| progress.update(m, f));
        invocations::finish_replay().map_err(|e| {
            failed(format!(
                "{id}: {e} (the recordings are kept in {})",
                scratch.display()
            ))
        })?;
        for result in &mut replayed {
            result.wall_seconds = Some(seconds[slot]);
            result.method.push_str(&format!(
                " Measured in {count} process invocations, interleaved with the other \
                 experiments', each with its own environment size and round order and taking \
                 its share of the rounds (rounded up); every series in results.json holds {count} \
                 consecutive blocks of rounds, one per invocation, and the intervals of the \
                 claims resample invocations first, then rounds."
            ));
        }
        results.extend(replayed);
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(results)
}

/// `kiki render DIR`.
pub fn render(dir: &Path) -> Result<(), CliError> {
    let stdout = Output::new("render");
    let shown = kiki_core::input::quote_input(&dir.display().to_string());
    if !dir.join("results.json").is_file() {
        return Err(CliError::usage(format!(
            "kiki render: {shown} holds no results.json"
        )));
    }
    rerender(dir)
        .map_err(|message| CliError::failed(format!("kiki render: {shown}: {message}")))?;
    stdout.line(dir.join("report.md").display())?;
    stdout.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(super::super::threshold_percent("3"), Ok(0.03));
        assert_eq!(super::super::threshold_percent("0.5"), Ok(0.005));
        for bad in ["0", "-1", "51", "1e1", "", "3%", "1.2.3", "nan", "inf"] {
            assert!(super::super::threshold_percent(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn help_lists_every_experiment() {
        let help = experiments_help();
        for e in EXPERIMENTS {
            assert!(help.contains(e.about()), "{help}");
        }
    }
}
