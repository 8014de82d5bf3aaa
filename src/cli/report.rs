//! `kiki report`: runs the experiments with progress bars and writes a report folder.

use super::{CliError, Output};
use kiki_harness::conditions::Recorder;
use kiki_harness::experiments::e7_cache_pressure::OrderSeed;
use kiki_harness::experiments::{self, Config, CATALOGUE};
use kiki_harness::machine::Machine;
use kiki_harness::measure::Event;
use kiki_harness::report::{new_report, rerender, write_report};
use kiki_harness::schedule::{self, ChildCommand, Plan};
use kiki_harness::watch::Watch;
use std::path::{Path, PathBuf};

/// `kiki report --help`'s list of experiments, from the one list.
pub fn experiments_help() -> String {
    let mut text = String::from("Experiments (E9 runs only when named in --only or --with):\n");
    for e in &CATALOGUE {
        text.push_str(&format!("  {}  {}\n", e.id, e.about));
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
        CATALOGUE
            .iter()
            .map(|e| e.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut ids = Vec::new();
    for raw in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some(experiment) = experiments::about(raw) else {
            return Err(CliError::usage(format!(
                "kiki report: unknown experiment '{raw}' (valid: {})",
                valid()
            )));
        };
        let id = experiment.id.as_str().to_string();
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
    if args.identity {
        let stdout = Output::new("report");
        stdout.line(kiki_harness::layouts::build_identity())?;
        return stdout.flush();
    }
    if let Some(file) = &args.child {
        super::interrupt::child_mode();
        return schedule::run_child_job(file)
            .map_err(|message| CliError::failed(format!("kiki report: {message}")));
    }
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
    let counter_events = match &args.counters {
        Some(list) => parse_counters(list)?,
        None => Event::DEFAULT.to_vec(),
    };
    let out = args.out.clone();
    check_writable(&out)?;
    let mut config = Config {
        quick: args.quick,
        positions,
        pin_cpu: args.pin.map(|cpu| cpu as usize),
        counter_events,
        threshold: args.threshold,
        // Drawn here, once for the run, unless given: the children read it in the
        // configuration they are handed.
        order_seed: args
            .order_seed
            .map_or_else(OrderSeed::draw, OrderSeed::given),
        ..Config::default()
    };
    let machine = Machine::detect();
    let invocations = args
        .invocations
        .map_or(if args.quick { 2 } else { 5 }, |k| k as usize);
    let failed = |message: String| CliError::failed(format!("kiki report: {message}"));
    let program = std::env::current_exe()
        .map_err(|e| failed(format!("cannot locate the kiki binary: {e}")))?;
    let (programs, layouts) = match &args.layouts {
        Some(list) => check_layouts(list)?,
        None => (vec![program], Vec::new()),
    };
    config.layouts = programs.len();
    // The experiments that run another number of processes than K (E11 in a full report).
    let invocations_by_experiment: std::collections::BTreeMap<String, usize> = if invocations > 1 {
        experiments::selected(&only, &with)
            .iter()
            .filter(|e| e.placement() == experiments::Placement::Invocations)
            .map(|e| (e.id().to_string(), e.invocations(invocations, &config)))
            .filter(|&(_, count)| count != invocations)
            .collect()
    } else {
        Default::default()
    };
    let watch = std::sync::Arc::new(Watch::new());
    super::interrupt::stop_on_signal(std::sync::Arc::clone(&watch), out.clone());
    let plan = Plan {
        experiments: experiments::selected(&only, &with),
        config,
        machine: &machine,
        invocations,
        child: ChildCommand {
            programs,
            args: vec!["report".into(), "--child".into()],
        },
    };
    let mut progress = ReportProgress::new();
    let recorder = Recorder::start();
    let results = schedule::run(plan, &watch, &mut |message, fraction| {
        progress.update(message, fraction)
    });
    let results = results.map_err(|message| {
        super::interrupt::unless_stopping();
        failed(message)
    })?;
    let conditions = recorder.finish();
    progress.finish();
    let mut machine = machine;
    if let Some(host) = &mut machine.host {
        host.steal_percent = conditions.steal_percent;
    }
    let mut report = new_report(machine, results);
    report.mode = if args.quick { "quick" } else { "full" }.to_string();
    report.invocations = invocations;
    report.invocations_by_experiment = invocations_by_experiment;
    report.layouts = layouts;
    report.conditions = Some(conditions);
    let folder = write_report(&out, &report).map_err(failed)?;
    stdout.line(folder.display())?;
    stdout.flush()
}

/// `--layouts A,B,…`: the programs the invocations run and what results.json records of them;
/// a file that is not this build (or cannot run) is a usage error.
fn check_layouts(
    list: &str,
) -> Result<(Vec<PathBuf>, Vec<kiki_harness::layouts::CodeLayout>), CliError> {
    let paths: Vec<PathBuf> = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .collect();
    if paths.is_empty() {
        return Err(CliError::usage(
            "kiki report: --layouts needs at least one binary",
        ));
    }
    let layouts = paths
        .iter()
        .map(|path| {
            kiki_harness::layouts::check(path)
                .map_err(|message| CliError::usage(format!("kiki report: --layouts: {message}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((paths, layouts))
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
