//! `kiki compare A B`: t(B) − t(A) per node of E11's bench search, measured in batches of
//! fresh processes until a sequential repeated interval reaches a verdict or the time cap.
//!
//! Each child process ([`child`]) builds only A's and B's tables, the evaluation and one TT,
//! and times A, B and A's twin (A timed a second time as its own entry) in E11's rotated
//! blocks, in a shuffled order reversed every other round, fingerprints checked equal. A
//! process is the unit: its mean of per-round t(B) − t(A) is one sample (its mean of
//! t(A′) − t(A) one sample of the A/A). After every batch of [`BATCH`] processes (from
//! [`FIRST_LOOK`] on) the parent looks: Yuen's trimmed mean over the processes' means with a
//! repeated 90 % interval ([`sequential`]), read at ±P % of t(A) by [`Reading::of`]; it stops
//! at the first verdict other than `not resolved`, or at the cap, where it reports the
//! repeated interval. One binary runs every process: unlike `kiki report`, which cycles code
//! layouts, a code layout's bias is in every process alike and not in the interval.

pub mod child;
pub mod sequential;

pub use child::{run_child_job, ChildJob, ProcessMeasurement, Sizing};

use crate::answers::Reading;
use crate::watch::Watch;
use kiki_engine::search::eval::EvalKind;
use sequential::{compare_boundary, Boundary, RepeatedInterval};
use serde::Serialize;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// E11's figures on this CPU (AMD EPYC, Zen 4, 2 vCPUs) under nnue: the sd of one round's
/// t(B) − t(A), and the sd of the processes' true means about the pair's (between processes).
pub const ROUND_SD_NS: f64 = 56.0;
pub const PROCESS_SD_NS: f64 = 10.0;

/// Rounds per process (even: forward and reverse pairs), from the optimum
/// R* = (σ_within / σ_between) · √(o / r) that minimises the interval's variance per second
/// (Kalibera & Jones): n processes of R rounds in time C give Var = (σ_b² + σ_w² / R) / n with
/// n = C / (o + R r), least at R = (σ_w / σ_b) √(o / r).
///
/// Measured on this machine (2026-12-01, AMD EPYC Zen 4, 2 vCPUs shared with other builds,
/// load average 3.5–7: a release build, `kiki compare dbb magic-plain --eval nnue
/// --max-minutes 1.5` with 8 rounds a process, every bench position to depth 3, a 1 GiB TT;
/// every run reports its own in [`Answer::setup_seconds`] and [`Answer::round_seconds`]):
/// o = 2.46 s of process start-up (exec, A's and B's tables, the nnue tables, the TT, the
/// discarded block, the exit), r = 3.43 s a round (three entries' searches and their
/// warm-ups), so R* = (56 / 10) · √(2.46 / 3.43) = 5.6 · 0.847 = 4.7. Rounds come in forward
/// and reverse pairs, so R = 4 or 6; the cost (σ_b² + σ_w² / R)(o + R r) is 884 · 16.2 =
/// 14,300 at R = 4 and 623 · 23.0 = 14,340 at R = 6 (flat near the optimum): R = 4.
/// The check run with R = 4 (load 0.3–1.5, `--max-minutes 10`) measured o = 0.47 s and
/// r = 2.15 s (R* = 2.6; the cost is 7,960 at R = 2 and 8,020 at R = 4, again flat) and a
/// spread of the processes' means of ≈ 45 ns (E11's σ's predict 30): it stopped at `level`
/// after 28 processes and 4.2 minutes, half-width 24.4 ns = 1.99 % of t(dbb).
pub const ROUNDS_PER_PROCESS: usize = 4;

/// Rounds per process of a `--smoke` run.
pub const SMOKE_ROUNDS: usize = 2;

/// Processes per batch: a pair, the second running the first's orders reversed; the parent
/// looks after each batch.
pub const BATCH: usize = 2;

/// The first look waits for this many processes (3 degrees of freedom).
pub const FIRST_LOOK: usize = 4;

/// The one sentence of what a single binary leaves out.
pub const LAYOUT_NOTE: &str = "one binary: code-layout effects are not averaged (kiki report \
                               cycles code layouts)";

/// A comparison to run: B against A under one evaluation, at most `cap_seconds`.
#[derive(Clone, Debug)]
pub struct Request {
    pub a: &'static str,
    pub b: &'static str,
    pub eval: EvalKind,
    pub cap_seconds: f64,
    /// T as a share of t(A) (0.03 for 3 %).
    pub threshold: f64,
    pub sizing: Sizing,
    pub seed: u64,
    /// The SIMD level every child runs at (`None`: the best this CPU has).
    pub simd: Option<String>,
}

impl Request {
    fn rounds(&self) -> usize {
        match self.sizing {
            Sizing::Full => ROUNDS_PER_PROCESS,
            Sizing::Smoke => SMOKE_ROUNDS,
        }
    }
}

/// How to start a child: the program and the arguments before the job file
/// (`kiki compare --child`).
#[derive(Clone, Debug)]
pub struct Launcher {
    pub program: PathBuf,
    pub args: Vec<OsString>,
}

/// Why the run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Stop {
    /// A verdict other than `not resolved`.
    #[serde(rename = "verdict")]
    Verdict,
    /// The time cap: the repeated interval at the last look.
    #[serde(rename = "cap")]
    Cap,
    /// Ctrl-C: the state at a look over the processes measured so far.
    #[serde(rename = "interrupted")]
    Interrupted,
}

/// The answer: B over A, its repeated interval and verdict, the A/A, and how it was reached.
#[derive(Clone, Debug, Serialize)]
pub struct Answer {
    pub a: String,
    pub b: String,
    pub eval: String,
    pub verdict: Reading,
    pub stopped: Stop,
    /// Mean ns per node over the processes (each process's mean of its rounds).
    pub a_ns_per_node: f64,
    pub b_ns_per_node: f64,
    /// t(B) − t(A): Yuen's trimmed mean over the processes, and its 90 % repeated interval.
    pub difference_ns: f64,
    pub low_ns: f64,
    pub high_ns: f64,
    /// The same in % of t(A).
    pub difference_percent: f64,
    pub low_percent: f64,
    pub high_percent: f64,
    pub half_width_percent: f64,
    pub threshold_percent: f64,
    pub threshold_ns: f64,
    /// The A/A: t(A′) − t(A), its repeated interval at the same look.
    pub aa_ns: f64,
    pub aa_low_ns: f64,
    pub aa_high_ns: f64,
    /// Processes in the last look, rounds in each, looks taken.
    pub processes: usize,
    pub rounds_per_process: usize,
    pub looks: usize,
    /// The last look's normal critical value, its t-corrected one, and what both sides had
    /// spent of the 10 % by then.
    pub critical_z: f64,
    pub critical_t: f64,
    pub spent_both_sides: f64,
    pub elapsed_minutes: f64,
    pub max_minutes: f64,
    /// Measured here: a process's start-up (its wall time less its rounds) and a round, mean
    /// over the processes, and the rounds per process they make optimal with E11's sds.
    pub setup_seconds: f64,
    pub round_seconds: f64,
    pub optimal_rounds: f64,
    /// Each process's t(B) − t(A) and t(A′) − t(A), in process order.
    pub process_differences: Vec<f64>,
    pub process_aa: Vec<f64>,
    pub seed: u64,
    pub notes: Vec<String>,
    pub layout_note: String,
}

fn signed(x: f64, decimals: usize) -> String {
    if x.is_finite() {
        format!("{x:+.decimals$}")
    } else {
        "n/a".to_string()
    }
}

impl Answer {
    /// The one answer line.
    pub fn line(&self) -> String {
        let stopped = match self.stopped {
            Stop::Verdict => "stopped at the verdict",
            Stop::Cap => "stopped at the cap",
            Stop::Interrupted => "interrupted",
        };
        format!(
            "{b} over {a} ({eval}): {d} ns per node ({dp} % of {a}'s {ta:.1}), 90 % repeated \
             interval [{l}, {h}] ns ([{lp}, {hp}] %): {verdict} at ±{tp} % (±{tn:.1} ns); \
             A/A {aa} [{aal}, {aah}] ns; {n} processes × {r} rounds, {looks} looks, \
             {el:.1} of {cap} min ({stopped}); {note}",
            b = self.b,
            a = self.a,
            eval = self.eval,
            d = signed(self.difference_ns, 1),
            dp = signed(self.difference_percent, 2),
            ta = self.a_ns_per_node,
            l = signed(self.low_ns, 1),
            h = signed(self.high_ns, 1),
            lp = signed(self.low_percent, 2),
            hp = signed(self.high_percent, 2),
            verdict = self.verdict.words(),
            tp = self.threshold_percent,
            tn = self.threshold_ns,
            aa = signed(self.aa_ns, 1),
            aal = signed(self.aa_low_ns, 1),
            aah = signed(self.aa_high_ns, 1),
            n = self.processes,
            r = self.rounds_per_process,
            looks = self.looks,
            el = self.elapsed_minutes,
            cap = self.max_minutes,
            note = self.layout_note,
        )
    }
}

/// The run's state between looks.
struct Run<'a> {
    request: &'a Request,
    started: Instant,
    processes: Vec<ProcessMeasurement>,
    /// Each process's wall seconds, as the parent saw it.
    walls: Vec<f64>,
    boundary: Boundary,
    /// The last look's intervals (B − A, A′ − A) over its processes.
    last: Option<(RepeatedInterval, RepeatedInterval, usize)>,
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

impl Run<'_> {
    fn elapsed(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// A look at every process so far (`tau`: the share of the cap; 1 at the last look).
    fn look(&mut self, tau: f64) -> Reading {
        let n = self.processes.len();
        let z = self.boundary.look(n, tau);
        let differences: Vec<f64> = self.processes.iter().map(|p| p.difference()).collect();
        let aa: Vec<f64> = self.processes.iter().map(|p| p.twin_difference()).collect();
        let interval = RepeatedInterval::of(&differences, z);
        self.last = Some((interval, RepeatedInterval::of(&aa, z), n));
        interval.reading(self.threshold_ns(n))
    }

    fn a_mean(&self, n: usize) -> f64 {
        mean(
            &self.processes[..n]
                .iter()
                .map(|p| p.a_mean())
                .collect::<Vec<_>>(),
        )
    }

    fn threshold_ns(&self, n: usize) -> f64 {
        self.request.threshold * self.a_mean(n)
    }

    /// The answer at the last look (NaN figures where there was none).
    fn answer(&self, stopped: Stop) -> Answer {
        let nan = RepeatedInterval {
            estimate: f64::NAN,
            low: f64::NAN,
            high: f64::NAN,
            standard_error: f64::NAN,
            degrees: 0,
            critical: f64::NAN,
        };
        let (interval, aa, n) = self.last.unwrap_or((nan, nan, 0));
        let look = self.boundary.looks().last().copied();
        let counted = &self.processes[..n];
        let t_a = self.a_mean(n);
        let threshold_ns = self.request.threshold * t_a;
        let percent = |x: f64| 100.0 * x / t_a;
        let setup: Vec<f64> = self
            .processes
            .iter()
            .zip(&self.walls)
            .map(|(p, wall)| wall - p.round_seconds.iter().sum::<f64>())
            .collect();
        let rounds: Vec<f64> = self
            .processes
            .iter()
            .flat_map(|p| p.round_seconds.iter().copied())
            .collect();
        let (o, r) = (mean(&setup), mean(&rounds));
        let mut notes: Vec<String> = Vec::new();
        for note in self.processes.iter().flat_map(|p| &p.notes) {
            if !notes.contains(note) {
                notes.push(note.clone());
            }
        }
        Answer {
            a: self.request.a.to_string(),
            b: self.request.b.to_string(),
            eval: self.request.eval.name().to_string(),
            verdict: interval.reading(threshold_ns),
            stopped,
            a_ns_per_node: t_a,
            b_ns_per_node: mean(&counted.iter().map(|p| p.b_mean()).collect::<Vec<_>>()),
            difference_ns: interval.estimate,
            low_ns: interval.low,
            high_ns: interval.high,
            difference_percent: percent(interval.estimate),
            low_percent: percent(interval.low),
            high_percent: percent(interval.high),
            half_width_percent: percent(interval.half_width()),
            threshold_percent: 100.0 * self.request.threshold,
            threshold_ns,
            aa_ns: aa.estimate,
            aa_low_ns: aa.low,
            aa_high_ns: aa.high,
            processes: n,
            rounds_per_process: self.request.rounds(),
            looks: self.boundary.looks().len(),
            critical_z: look.map_or(f64::NAN, |l| l.critical_z),
            critical_t: interval.critical,
            spent_both_sides: look.map_or(0.0, |l| l.spent_both_sides),
            elapsed_minutes: self.elapsed() / 60.0,
            max_minutes: self.request.cap_seconds / 60.0,
            setup_seconds: o,
            round_seconds: r,
            optimal_rounds: (ROUND_SD_NS / PROCESS_SD_NS) * (o / r).sqrt(),
            process_differences: counted.iter().map(|p| p.difference()).collect(),
            process_aa: counted.iter().map(|p| p.twin_difference()).collect(),
            seed: self.request.seed,
            notes,
            layout_note: LAYOUT_NOTE.to_string(),
        }
    }

    /// One line of progress after a look.
    fn progress_text(&self) -> String {
        match &self.last {
            Some((interval, _, n)) => format!(
                "{} processes: {} ns [{}, {}], {}",
                n,
                signed(interval.estimate, 1),
                signed(interval.low, 1),
                signed(interval.high, 1),
                interval.reading(self.threshold_ns(*n)).words()
            ),
            None => format!(
                "{} processes, first look at {FIRST_LOOK}",
                self.processes.len()
            ),
        }
    }
}

/// Runs `request` in child processes started by `launcher` under `watch` (a stopped watch
/// ends the run with the state at a look over the processes so far). `progress` gets a line
/// and the share of the cap used. `Err` (one line) when a child fails or fingerprints differ.
pub fn run(
    request: &Request,
    launcher: &Launcher,
    watch: &Watch,
    progress: &mut dyn FnMut(&str, f64),
) -> Result<Answer, String> {
    let scratch = tempfile::Builder::new()
        .prefix("kiki-compare-")
        .tempdir()
        .map_err(|e| format!("cannot create a scratch folder: {e}"))?;
    let mut run = Run {
        request,
        started: Instant::now(),
        processes: Vec::new(),
        walls: Vec::new(),
        boundary: compare_boundary(),
        last: None,
    };
    let cap = request.cap_seconds;
    loop {
        let batch_started = Instant::now();
        for _ in 0..BATCH {
            progress(&run.progress_text(), run.elapsed() / cap);
            let index = run.processes.len();
            let process_started = Instant::now();
            match run_process(request, launcher, (index, scratch.path()), watch) {
                Ok(m) => {
                    run.walls.push(process_started.elapsed().as_secs_f64());
                    run.processes.push(m);
                }
                Err(_) if watch.is_stopped() => return Ok(interrupted(&mut run)),
                Err(error) => return Err(error),
            }
        }
        let batch = batch_started.elapsed().as_secs_f64();
        let elapsed = run.elapsed();
        // The last look: another batch like this one would pass the cap.
        let last = elapsed + batch > cap;
        if run.processes.len() < FIRST_LOOK && !last {
            continue;
        }
        let reading = run.look(if last { 1.0 } else { elapsed / cap });
        progress(&run.progress_text(), run.elapsed() / cap);
        if reading != Reading::NotResolved {
            return Ok(run.answer(Stop::Verdict));
        }
        if last {
            return Ok(run.answer(Stop::Cap));
        }
    }
}

/// The state at Ctrl-C: a look over the processes measured since the last one (two at least),
/// at the share of the cap used.
fn interrupted(run: &mut Run<'_>) -> Answer {
    let looked = run.last.map_or(0, |(_, _, n)| n);
    if run.processes.len() > looked && run.processes.len() >= 2 {
        let tau = (run.elapsed() / run.request.cap_seconds).min(1.0);
        run.look(tau);
    }
    run.answer(Stop::Interrupted)
}

/// Starts one child on process `index`'s job and reads back its measurement; fingerprints
/// that differ or a backend that could not run fail the run.
fn run_process(
    request: &Request,
    launcher: &Launcher,
    (index, scratch): (usize, &Path),
    watch: &Watch,
) -> Result<ProcessMeasurement, String> {
    let job = ChildJob {
        a: request.a.to_string(),
        b: request.b.to_string(),
        eval: request.eval.name().to_string(),
        sizing: request.sizing,
        rounds: request.rounds(),
        process: index,
        seed: request.seed,
        simd: request.simd.clone(),
        measurement: scratch.join(format!("process-{index}.measurement.json")),
    };
    let job_file = scratch.join(format!("process-{index}.child.json"));
    let text = serde_json::to_string(&job).map_err(|e| e.to_string())?;
    std::fs::write(&job_file, text)
        .map_err(|e| format!("cannot write {}: {e}", job_file.display()))?;
    let stderr_file = scratch.join(format!("process-{index}.stderr"));
    let stderr = std::fs::File::create(&stderr_file)
        .map_err(|e| format!("cannot write {}: {e}", stderr_file.display()))?;
    let mut command = Command::new(&launcher.program);
    command
        .args(&launcher.args)
        .arg(&job_file)
        // A different environment size per process moves the stack and what follows it
        // (Mytkowicz et al.), as the report's invocations do.
        .env(
            "KIKI_ENVIRONMENT_PADDING",
            "x".repeat(1 + 977 * (index % 16)),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr);
    let status = watch.run(command)?;
    if !status.success() {
        let said = std::fs::read(&stderr_file).unwrap_or_default();
        return Err(format!(
            "process {} failed ({status}): {}",
            index + 1,
            crate::last_line(&said)
        ));
    }
    let text = std::fs::read_to_string(&job.measurement)
        .map_err(|e| format!("process {} wrote no measurement: {e}", index + 1))?;
    let m: ProcessMeasurement =
        serde_json::from_str(&text).map_err(|e| format!("process {}: {e}", index + 1))?;
    if let Some(error) = m.errors.first() {
        return Err(format!("process {}: {error}", index + 1));
    }
    let rounds = request.rounds();
    if m.a.len() != rounds || m.b.len() != rounds || m.twin.len() != rounds {
        return Err(format!(
            "process {} timed {}, {} and {} of {rounds} rounds",
            index + 1,
            m.a.len(),
            m.b.len(),
            m.twin.len()
        ));
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process whose rounds give t(A) = `a`, t(B) = `a + d` and t(A′) = `a + aa`.
    fn process(index: usize, a: f64, d: f64, aa: f64) -> ProcessMeasurement {
        ProcessMeasurement {
            process: index,
            a: vec![a; 2],
            b: vec![a + d; 2],
            twin: vec![a + aa; 2],
            setup_seconds: 1.0,
            round_seconds: vec![0.5; 2],
            orders: Vec::new(),
            notes: Vec::new(),
            errors: Vec::new(),
        }
    }

    fn request() -> Request {
        Request {
            a: "dbb",
            b: "magic-plain",
            eval: EvalKind::Nnue,
            cap_seconds: 600.0,
            threshold: 0.03,
            sizing: Sizing::Full,
            seed: 1,
            simd: None,
        }
    }

    fn run_of<'a>(request: &'a Request, differences: &[f64]) -> Run<'a> {
        Run {
            request,
            started: Instant::now(),
            processes: differences
                .iter()
                .enumerate()
                .map(|(i, &d)| process(i, 1000.0, d, (i as f64 - 4.5) * 0.5))
                .collect(),
            walls: vec![3.0; differences.len()],
            boundary: compare_boundary(),
            last: None,
        }
    }

    /// At the cap the answer is the repeated interval of the processes' means read at ±3 % of
    /// t(A): B 60 ns slower than A's 1000 (6 %), processes spread over ±30, is `slower`; a look with
    /// a tenth of the cap spent reads the same data far wider. The line and the JSON say it.
    #[test]
    fn the_answer_reads_the_repeated_interval_at_the_threshold() {
        let request = request();
        let differences: Vec<f64> = (0..10)
            .map(|i| 60.0 + ((i % 5) as f64 - 2.0) * 15.0)
            .collect();
        let mut early = run_of(&request, &differences);
        assert_eq!(early.look(0.1), Reading::NotResolved);
        let mut run = run_of(&request, &differences);
        assert_eq!(run.look(1.0), Reading::Slower);
        let answer = run.answer(Stop::Cap);
        assert_eq!(answer.verdict, Reading::Slower);
        assert!((answer.threshold_ns - 30.0).abs() < 1e-9);
        assert!((answer.difference_percent - answer.difference_ns / 10.0).abs() < 1e-9);
        assert!(answer.low_ns > 30.0 && answer.high_ns < 90.0, "{answer:?}");
        assert!(answer.aa_low_ns < 0.0 && answer.aa_high_ns > 0.0);
        // o = 3 s of wall less 1 s of rounds, r = 0.5 s: R* = 5.6 · √4 = 11.2.
        assert!((answer.optimal_rounds - 11.2).abs() < 1e-9);
        let line = answer.line();
        assert!(line.starts_with("magic-plain over dbb (nnue): +"), "{line}");
        assert!(
            line.contains(": slower at ±3 %") && line.contains(LAYOUT_NOTE),
            "{line}"
        );
        let json = serde_json::to_string(&answer).unwrap();
        assert!(json.contains(r#""verdict":"slower""#) && json.contains(r#""stopped":"cap""#));
    }

    /// Interrupted before any look: the answer has no interval, and says so without failing.
    #[test]
    fn an_interruption_before_two_processes_answers_not_resolved() {
        let request = request();
        let mut run = run_of(&request, &[5.0]);
        let answer = interrupted(&mut run);
        assert_eq!(answer.verdict, Reading::NotResolved);
        assert_eq!((answer.processes, answer.looks), (0, 0));
        assert!(answer.line().contains("n/a") && answer.line().contains("interrupted"));
        let mut run = run_of(&request, &[5.0, 7.0, 6.0]);
        assert_eq!(
            interrupted(&mut run).processes,
            3,
            "a look over what was measured"
        );
    }
}
