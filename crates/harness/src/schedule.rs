//! A report's schedule: which experiment measures where and when, and the K child processes.
//!
//! [`run`] takes the chosen experiments and returns their results. E7 and E8 size themselves
//! from the measured cache levels: E6's when it runs (so it runs first), else a short pointer
//! chase; the levels go into the configuration every child reads. With K > 1 every
//! [`Placement::Invocations`] experiment measures in K child processes, interleaved (invocation
//! 1 of every experiment, then 2, …), each with an environment of its own size; each child
//! reads one [`ChildJob`] and writes its measurement, and the parent analyses each experiment
//! once over its K measurements. [`Placement::Parent`] experiments (E8, E9) run once here.
//!
//! A [`Watch`] (`crate::watch`) lets another thread stop the schedule (a signal): it kills and reaps the running
//! child, and keeps the measurements written so far in a named folder or removes the scratch.

use crate::cache_levels::CacheLevels;
use crate::experiments::{
    e13_simulated_search, e6_memory, pin, run_experiments, Config, Context, DynExperiment,
    ExperimentId, Placement,
};
use crate::invocations::Invocation;
use crate::machine::Machine;
use crate::results::ExperimentResult;
use crate::watch::Watch;
use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// What one child process measures, written by the parent as `child.json`-like files.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChildJob {
    pub experiment: ExperimentId,
    pub invocation: Invocation,
    pub config: Config,
    /// The SIMD level the parent measures at (`None`: the best this CPU has).
    pub simd: Option<String>,
    /// Where the child writes its measurement (JSON).
    pub measurement: PathBuf,
}

/// How to start a child: the programs (one per code layout: invocation i runs the i-th,
/// cycling; see [`crate::layouts`]) and the arguments before the job file (`kiki report
/// --child`).
#[derive(Clone, Debug)]
pub struct ChildCommand {
    pub programs: Vec<PathBuf>,
    pub args: Vec<OsString>,
}

impl ChildCommand {
    /// The program of invocation `index`.
    fn program(&self, index: usize) -> Option<&Path> {
        let count = self.programs.len();
        (count > 0).then(|| self.programs[index % count].as_path())
    }
}

/// A report's experiments and how to measure them.
pub struct Plan<'a> {
    /// In report order.
    pub experiments: Vec<&'static dyn DynExperiment>,
    pub config: Config,
    pub machine: &'a Machine,
    /// K: process invocations per timed experiment (1 measures in this process alone).
    pub invocations: usize,
    pub child: ChildCommand,
}

/// The sentence every timed experiment's method gets when measured in K invocations;
/// `interleaved`: how many of its invocations (the first ones) had other timed experiments'
/// invocations run between them (none in a one-experiment run; fewer than K when it runs more
/// invocations than the others, as E11 does).
fn invocations_method(count: usize, layouts: usize, interleaved: usize) -> String {
    let layout = if layouts >= count {
        "its own code layout (the same build linked in another function order: the machine \
         section lists them), "
            .to_string()
    } else if layouts > 1 {
        format!(
            "one of {layouts} code layouts (the same build linked in other function orders, \
             cycled: the machine section lists them), "
        )
    } else {
        "one code layout shared by all (a layout's bias is not in these intervals), ".to_string()
    };
    let interleaved = if interleaved == 0 {
        String::new()
    } else if interleaved >= count {
        ", interleaved with the other experiments'".to_string()
    } else {
        format!(
            " (the first {interleaved} interleaved with the other experiments', the other {} \
             after them)",
            count - interleaved
        )
    };
    format!(
        " Measured in {count} process invocations{interleaved}, each with {layout}its own \
         environment size and round order and taking its share of the rounds (rounded up); \
         every series in results.json holds {count} consecutive blocks of rounds, one per \
         invocation, and the intervals of the claims resample invocations first, then rounds \
         (where the method above reduces each invocation to one figure first, invocations \
         alone)."
    )
}

/// Runs the plan: every experiment's result, in report order. `progress` gets `("E1: …",
/// fraction of that experiment)`. `Err` (one line) when a child fails or its measurement does
/// not read back, or when `watch` was stopped.
pub fn run(
    plan: Plan<'_>,
    watch: &Watch,
    progress: &mut dyn FnMut(&str, f64),
) -> Result<Vec<ExperimentResult>, String> {
    let Plan {
        experiments: chosen,
        mut config,
        machine,
        invocations,
        child,
    } = plan;
    let mut results = Vec::new();
    let mut rest = chosen.clone();
    let needs_levels = chosen.iter().any(|e| {
        matches!(
            e.id(),
            ExperimentId::E7 | ExperimentId::E8 | ExperimentId::E13
        )
    });
    if config.cache_levels.is_none() && needs_levels {
        if let Some(e6) = chosen.iter().copied().find(|e| e.id() == ExperimentId::E6) {
            results = run_group(
                &[e6],
                &config,
                machine,
                invocations,
                &child,
                watch,
                progress,
            )?;
            config.cache_levels = results.first().and_then(e6_memory::levels_from_result);
            rest.retain(|e| e.id() != ExperimentId::E6);
        }
        if config.cache_levels.is_none() {
            progress("cache levels: a short pointer chase", 0.0);
            config.cache_levels = Some(CacheLevels::probe(machine, config.quick));
        }
    }
    // E13 prices its simulation with E6's, E7's and E11's figures: it runs after them all.
    let simulated = rest.iter().copied().find(|e| e.id() == ExperimentId::E13);
    rest.retain(|e| e.id() != ExperimentId::E13);
    results.extend(run_group(
        &rest,
        &config,
        machine,
        invocations,
        &child,
        watch,
        progress,
    )?);
    if let Some(e13) = simulated {
        config.e13_reference = Some(e13_simulated_search::Reference::from_results(&results));
        results.extend(run_group(
            &[e13],
            &config,
            machine,
            invocations,
            &child,
            watch,
            progress,
        )?);
    }
    // Report order, whatever order they ran in.
    results.sort_by_key(|r| chosen.iter().position(|e| e.id().as_str() == r.id));
    Ok(results)
}

/// Runs `experiments`: in this process when K = 1, else the timed ones in K children each.
fn run_group(
    experiments: &[&'static dyn DynExperiment],
    config: &Config,
    machine: &Machine,
    count: usize,
    child: &ChildCommand,
    watch: &Watch,
    progress: &mut dyn FnMut(&str, f64),
) -> Result<Vec<ExperimentResult>, String> {
    let context = Context {
        config,
        machine,
        watch,
    };
    if count <= 1 {
        return run_experiments(experiments, &context, progress);
    }
    let scratch = tempfile::Builder::new()
        .prefix("kiki-invocations-")
        .tempdir()
        .map_err(|e| format!("cannot create a scratch folder: {e}"))?;
    watch.set_scratch(Some(scratch.path().to_path_buf()));
    let timed: Vec<&dyn DynExperiment> = experiments
        .iter()
        .copied()
        .filter(|e| e.placement() == Placement::Invocations)
        .collect();
    let simd = kiki_core::simd::forced().map(|level| level.name().to_string());
    let mut seconds = vec![0.0; timed.len()];
    // Each experiment's own count (E11 takes more); invocation i of every experiment that has
    // one, then i + 1.
    let counts: Vec<usize> = timed
        .iter()
        .map(|e| e.invocations(count, config).max(1))
        .collect();
    let most = counts.iter().copied().max().unwrap_or(count);
    for index in 0..most {
        for (slot, experiment) in timed.iter().enumerate() {
            let count = counts[slot];
            if index >= count {
                continue;
            }
            let id = experiment.id();
            progress(
                &format!(
                    "{id}: invocation {} of {count} (a fresh process)",
                    index + 1
                ),
                index as f64 / count as f64,
            );
            let job = ChildJob {
                experiment: id,
                invocation: Invocation::new(index, count),
                config: config.clone(),
                simd: simd.clone(),
                measurement: measurement_file(scratch.path(), id, index),
            };
            let started = Instant::now();
            run_child(&job, scratch.path(), child, watch)?;
            seconds[slot] += started.elapsed().as_secs_f64();
        }
    }
    let mut results = Vec::new();
    for experiment in experiments {
        let id = experiment.id();
        let Some(slot) = timed.iter().position(|e| e.id() == id) else {
            results.extend(run_experiments(&[*experiment], &context, progress)?);
            continue;
        };
        let count = counts[slot];
        let measurements = (0..count)
            .map(|index| {
                let path = measurement_file(scratch.path(), id, index);
                std::fs::read_to_string(&path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))
            })
            .collect::<Result<Vec<String>, String>>()?;
        progress(&format!("{id}: analysing {count} invocations"), 1.0);
        let mut result = experiment.analyse_json(&measurements, &context)?;
        result.wall_seconds = Some(seconds[slot]);
        // Its invocations that others' ran between: up to the most any other one ran.
        let others = (0..timed.len())
            .filter(|&other| other != slot)
            .map(|other| counts[other])
            .max()
            .unwrap_or(0);
        result.method.push_str(&invocations_method(
            count,
            child.programs.len(),
            others.min(count),
        ));
        results.push(result);
    }
    watch.set_scratch(None);
    drop(scratch);
    Ok(results)
}

/// `E1-0.measurement.json`: the measurements a stopped report keeps.
fn measurement_file(scratch: &Path, id: ExperimentId, index: usize) -> PathBuf {
    scratch.join(format!("{id}-{index}{MEASUREMENT}"))
}

use crate::watch::MEASUREMENT;

/// Writes `job` into the scratch, starts the child on it and waits for it (under `watch`).
fn run_child(
    job: &ChildJob,
    scratch: &Path,
    child: &ChildCommand,
    watch: &Watch,
) -> Result<(), String> {
    let name = format!("{}-{}", job.experiment, job.invocation.index);
    let job_file = scratch.join(format!("{name}.child.json"));
    let text = serde_json::to_string(job).map_err(|e| format!("{name}: {e}"))?;
    std::fs::write(&job_file, text)
        .map_err(|e| format!("cannot write {}: {e}", job_file.display()))?;
    let stderr_file = scratch.join(format!("{name}.stderr"));
    let stderr = std::fs::File::create(&stderr_file)
        .map_err(|e| format!("cannot write {}: {e}", stderr_file.display()))?;
    let program = child
        .program(job.invocation.index)
        .ok_or_else(|| format!("{name}: no program to run the invocation"))?;
    let mut command = Command::new(program);
    command
        .args(&child.args)
        .arg(&job_file)
        // A different environment size per invocation moves the stack and everything laid
        // out after it (Mytkowicz et al.).
        .env(
            "KIKI_ENVIRONMENT_PADDING",
            "x".repeat(1 + 977 * job.invocation.index),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr);
    let status = watch.run(command)?;
    if !status.success() {
        let said = std::fs::read(&stderr_file).unwrap_or_default();
        return Err(format!(
            "{} invocation {} failed ({status}): {}",
            job.experiment,
            job.invocation.index + 1,
            crate::last_line(&said)
        ));
    }
    if !job.measurement.is_file() {
        return Err(format!(
            "{} invocation {} wrote no measurement",
            job.experiment,
            job.invocation.index + 1
        ));
    }
    Ok(())
}

/// Child mode: reads the job at `file`, measures its experiment as its invocation and writes
/// the measurement (whole: into a temporary name, then renamed).
pub fn run_child_job(file: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let job: ChildJob =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    if let Some(name) = &job.simd {
        kiki_core::simd::force(kiki_core::simd::SimdLevel::parse(name)?)?;
    }
    let experiment = crate::experiments::find(job.experiment.as_str())
        .ok_or_else(|| format!("no experiment {}", job.experiment))?;
    let machine = Machine::detect();
    // A child invocation starts no process of its own (E8 and E9 run in the report's process).
    let watch = Watch::new();
    let context = Context {
        config: &job.config,
        machine: &machine,
        watch: &watch,
    };
    let mut quiet = |_: &str, _: f64| {};
    pin(&job.config, &mut quiet);
    let measurement = experiment.measure_json(&context, job.invocation, &mut quiet)?;
    let partial = job.measurement.with_extension("partial");
    std::fs::write(&partial, measurement)
        .map_err(|e| format!("cannot write {}: {e}", partial.display()))?;
    std::fs::rename(&partial, &job.measurement)
        .map_err(|e| format!("cannot write {}: {e}", job.measurement.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::{e3_mate1::Mate1, e4_hands::Hands};
    use crate::watch::Stopped;

    /// A measurement reads back from its JSON as it was written, and analysing K of them pools
    /// each series' rounds: K consecutive blocks, one per invocation.
    #[test]
    fn measurements_round_trip_and_pool_by_concatenation() {
        let config = Config {
            backends: vec!["dbb".to_string(), "magic-plain".to_string()],
            ..Config::smoke()
        };
        let machine = Machine::detect();
        let watch = Watch::new();
        let context = Context {
            config: &config,
            machine: &machine,
            watch: &watch,
        };
        let e3: &dyn DynExperiment = &Mate1;
        let parts: Vec<String> = (0..2)
            .map(|i| {
                e3.measure_json(&context, Invocation::new(i, 2), &mut |_, _| {})
                    .unwrap()
            })
            .collect();
        let value: serde_json::Value = serde_json::from_str(&parts[0]).unwrap();
        assert_eq!(value["invocations"], 1);
        let alone: Vec<ExperimentResult> = parts
            .iter()
            .map(|p| e3.analyse_json(std::slice::from_ref(p), &context).unwrap())
            .collect();
        let pooled = e3.analyse_json(&parts, &context).unwrap();
        assert!(!pooled.series.is_empty(), "both backends measured");
        assert_eq!(pooled.series.len(), alone[0].series.len());
        for (i, series) in pooled.series.iter().enumerate() {
            let mut expected = alone[0].series[i].samples.clone();
            expected.extend(&alone[1].series[i].samples);
            assert_eq!(series.labels, alone[0].series[i].labels);
            assert_eq!(series.samples, expected, "{:?}", series.labels);
        }
        assert!(
            pooled.method.contains("over the 2 invocations"),
            "{}",
            pooled.method
        );
        // Every timed experiment's measurement survives its own JSON.
        let e4: &dyn DynExperiment = &Hands;
        let one = e4
            .measure_json(&context, Invocation::ONLY, &mut |_, _| {})
            .unwrap();
        let read = e4.analyse_json(&[one.clone(), one], &context).unwrap();
        assert!(read.series.iter().all(|s| s.samples.len() % 2 == 0));
        assert!(e4.analyse_json(&["{}".into()], &context).is_err());
    }

    #[test]
    fn the_invocations_sentence_says_which_ran_between_the_others() {
        let all = invocations_method(5, 5, 5);
        assert!(
            all.contains("5 process invocations, interleaved with the other"),
            "{all}"
        );
        let alone = invocations_method(5, 5, 0);
        assert!(!alone.contains("interleaved"), "{alone}");
        let more = invocations_method(10, 10, 5);
        assert!(
            more.contains(
                "(the first 5 interleaved with the other experiments', the other 5 after them)"
            ),
            "{more}"
        );
        assert!(invocations_method(5, 1, 5).contains("one code layout shared by all"));
    }

    #[test]
    fn a_job_reads_back_and_a_stop_without_measurements_removes_the_scratch() {
        let job = ChildJob {
            experiment: ExperimentId::E10,
            invocation: Invocation::new(1, 3),
            config: Config {
                cache_levels: Some(CacheLevels {
                    levels: Vec::new(),
                    memory_ns: f64::NAN,
                    curve: vec![(4096, 1.0)],
                    curve_spread: Vec::new(),
                    source: "test".into(),
                }),
                order_seed: crate::experiments::e7_cache_pressure::OrderSeed::draw(),
                ..Config::smoke()
            },
            simd: None,
            measurement: PathBuf::from("x.json"),
        };
        let text = serde_json::to_string(&job).unwrap();
        assert!(text.contains(r#""experiment":"E10""#), "{text}");
        assert!(text.contains(r#""task-clock""#), "{text}");
        let back: ChildJob = serde_json::from_str(&text).unwrap();
        assert_eq!(back.config.counter_events, job.config.counter_events);
        assert!(back.config.cache_levels.unwrap().memory_ns.is_nan());
        // The run's order seed, drawn by the parent, reaches the child as it is.
        assert_eq!(back.config.order_seed, job.config.order_seed);

        let out = tempfile::tempdir().unwrap();
        let scratch = tempfile::tempdir().unwrap().keep();
        std::fs::write(scratch.join("E1-0.child.json"), "{}").unwrap();
        let watch = Watch::new();
        watch.set_scratch(Some(scratch.clone()));
        assert_eq!(watch.stop(out.path()), Stopped::Removed);
        assert!(!scratch.exists());
        assert!(watch.run(Command::new("true")).is_err(), "stopped for good");

        let scratch = tempfile::tempdir().unwrap().keep();
        std::fs::write(scratch.join(format!("E1-0{MEASUREMENT}")), "{}").unwrap();
        let watch = Watch::new();
        watch.set_scratch(Some(scratch.clone()));
        let stopped = watch.stop(out.path());
        let folder = out
            .path()
            .join(format!("interrupted-{}", std::process::id()));
        assert_eq!(
            stopped,
            Stopped::Kept {
                folder: folder.clone(),
                measurements: 1
            }
        );
        assert!(folder.join(format!("E1-0{MEASUREMENT}")).is_file());
        assert!(!scratch.exists());
        assert!(stopped
            .message()
            .contains("the 1 measurement written so far"));
    }

    /// A report's kept measurements (`E7-0.measurement.json`, `E7-1…` in the folder
    /// `KIKI_REPLAY_MEASUREMENTS`) analysed as the report's process analyses them, the result
    /// written as JSON to `KIKI_REPLAY_OUT` (`replay.json`): an analysis reworked without
    /// changing what it says writes the same bytes before and after. `KIKI_REPLAY_ID` names the
    /// experiment (E7 unless given).
    #[test]
    #[ignore = "reads a report's measurements from the folder KIKI_REPLAY_MEASUREMENTS names"]
    fn kept_measurements_replay() {
        // CI runs the ignored tests too: without a folder there is nothing to replay.
        let Some(folder) = std::env::var_os("KIKI_REPLAY_MEASUREMENTS") else {
            eprintln!("KIKI_REPLAY_MEASUREMENTS not set: nothing to replay");
            return;
        };
        let folder = PathBuf::from(folder);
        let id = std::env::var("KIKI_REPLAY_ID").unwrap_or_else(|_| "E7".into());
        let experiment = crate::experiments::find(&id).expect("a known experiment");
        let measurements: Vec<String> = (0..)
            .map(|index| measurement_file(&folder, experiment.id(), index))
            .take_while(|path| path.is_file())
            .map(|path| std::fs::read_to_string(path).unwrap())
            .collect();
        assert!(
            !measurements.is_empty(),
            "no {id} measurements in {folder:?}"
        );
        let (config, machine, watch) = (Config::default(), Machine::detect(), Watch::new());
        let context = Context {
            config: &config,
            machine: &machine,
            watch: &watch,
        };
        let result = experiment.analyse_json(&measurements, &context).unwrap();
        let out = std::env::var_os("KIKI_REPLAY_OUT").unwrap_or_else(|| "replay.json".into());
        std::fs::write(out, serde_json::to_string_pretty(&result).unwrap()).unwrap();
    }
}
