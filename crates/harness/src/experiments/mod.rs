//! The experiments of the report behind one trait, [`Experiment`], and the one list of them.
//!
//! Each experiment measures one process invocation into its own typed measurement
//! ([`Experiment::measure`], given a [`Context`], the [`Invocation`] and a progress callback),
//! and analyses the measurements of all K invocations at once ([`Experiment::analyse`]) into an
//! [`ExperimentResult`]: raw series, tables, plots and findings computed from its own data.
//! Timed experiments (E1–E7, E10–E12) pool their invocations' rounds explicitly, one block per
//! invocation; [`DynExperiment`] carries measurements as JSON between processes
//! (`crate::schedule`). E8 runs this binary under valgrind and E9 builds kiki for other
//! instruction-set levels and runs E1 and E2 with each: both run once, in the report's process.

pub(crate) mod claims;
mod counter_log;
pub mod e10_attack_maps;
pub mod e11_search;
pub mod e12_layouts;
pub mod e13_simulated_search;
pub mod e1_attacks;
pub mod e2_movegen;
pub mod e3_mate1;
pub mod e4_hands;
pub mod e5_effects;
pub mod e6_memory;
pub mod e7_cache_pressure;
pub mod e8_simulated_caches;
pub mod e9_isa_levels;
pub(crate) mod held_out;

use crate::invocations::Invocation;
use crate::machine::Machine;
use crate::measure::{Event, SampleConfig};
use crate::registry;
use crate::results::{ExperimentResult, Point, Series};
use crate::stats::{
    estimate, estimate_linear, format_sig, invocations_disagree, Estimate, Summary,
};
use claims::percent;
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::types::{Color, Slider, Square};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// What to run and how big (written to every child invocation as it is).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// Fewer samples and smaller sweeps (same code paths): the whole `kiki report --quick`
    /// fits in about 3 minutes on a 2-core machine.
    pub quick: bool,
    /// The smallest sizes that still run every code path (milliseconds; for tests).
    pub smoke: bool,
    /// Seed of every generated workload.
    pub seed: u64,
    /// Backends by name; empty = every available backend.
    pub backends: Vec<String>,
    /// User positions (SFEN), already read from `--positions FILE`; empty = none.
    pub positions: Vec<String>,
    /// The CPU the measuring thread is pinned to (`--pin CPU`), if any.
    pub pin_cpu: Option<usize>,
    /// Counters read around every sample of E1 and E2 where the machine has them.
    pub counter_events: Vec<Event>,
    /// The practical threshold of a claim (0.03: an order is stated only when the interval
    /// lies wholly beyond ±3 %).
    pub threshold: f64,
    /// The cache levels as the report measured them (E6's curve, or a short pointer chase),
    /// which E7 and E8 size themselves from; `None` = measure them where needed.
    pub cache_levels: Option<crate::cache_levels::CacheLevels>,
    /// How many code layouts (binaries of one build) the report's invocations cycle through
    /// (`kiki report --layouts`; 1: every invocation runs one binary).
    #[serde(default = "one_layout")]
    pub layouts: usize,
    /// The seed of E7's and E11's randomised orders, drawn once by the report's process (or given by
    /// `kiki report --order-seed`) and so the same in every child invocation; the default is
    /// the fixed seed of the reports before per-run seeds, as given.
    #[serde(default)]
    pub order_seed: e7_cache_pressure::OrderSeed,
    /// What E13 takes from E7 and E11 of the same report, set by the report's process once they
    /// ran (E13 runs after them); `None` where neither did.
    #[serde(default)]
    pub e13_reference: Option<e13_simulated_search::Reference>,
}

fn one_layout() -> usize {
    1
}

/// The default practical threshold of a claim: ±3 %.
pub const DEFAULT_THRESHOLD: f64 = 0.03;

impl Default for Config {
    fn default() -> Config {
        Config {
            quick: false,
            smoke: false,
            seed: 0x6b69_6b69, // "kiki"
            backends: Vec::new(),
            positions: Vec::new(),
            pin_cpu: None,
            counter_events: Event::DEFAULT.to_vec(),
            threshold: DEFAULT_THRESHOLD,
            cache_levels: None,
            layouts: 1,
            order_seed: e7_cache_pressure::OrderSeed::default(),
            e13_reference: None,
        }
    }
}

impl Config {
    pub fn full() -> Config {
        Config::default()
    }

    pub fn quick() -> Config {
        Config {
            quick: true,
            ..Config::default()
        }
    }

    /// For tests: every code path, milliseconds of measuring; the software task clock stands in
    /// for hardware counters so that the counter tables are exercised on any machine.
    pub fn smoke() -> Config {
        Config {
            quick: true,
            smoke: true,
            counter_events: vec![Event::TaskClock],
            ..Config::default()
        }
    }

    /// The backends to measure: the named ones (unknown or unavailable names are left out
    /// with the reason), or every available one.
    pub fn backend_names(&self) -> (Vec<&'static str>, Vec<String>) {
        if self.backends.is_empty() {
            return (
                registry::resolve_bases("all").unwrap_or_default(),
                Vec::new(),
            );
        }
        let mut names = Vec::new();
        let mut skipped = Vec::new();
        for name in &self.backends {
            match registry::resolve_bases(name) {
                Ok(found) => names.extend(found),
                Err(error) => skipped.push(error.to_string()),
            }
        }
        (names, skipped)
    }

    /// One of three sizes: smoke (tests), quick, full.
    pub(crate) fn pick<T>(&self, smoke: T, quick: T, full: T) -> T {
        if self.smoke {
            smoke
        } else if self.quick {
            quick
        } else {
            full
        }
    }

    /// Sampling for micro-measurements (lookups, move generation).
    pub(crate) fn sampling(&self) -> SampleConfig {
        self.pick(
            SampleConfig {
                warmup: Duration::from_micros(200),
                samples: 3,
                min_sample: Duration::from_micros(100),
            },
            SampleConfig {
                warmup: Duration::from_millis(3),
                samples: 7,
                min_sample: Duration::from_millis(1),
            },
            SampleConfig {
                warmup: Duration::from_millis(30),
                samples: 21,
                min_sample: Duration::from_millis(5),
            },
        )
    }
}

/// A progress callback: `(message, fraction of this experiment done)`.
pub type Progress<'a> = &'a mut dyn FnMut(&str, f64);

/// What an experiment runs with: the report's configuration, the machine it runs on, and the
/// watch through which it starts any process of its own (E8's valgrind, E9's builds), so that
/// a stopped report stops those too.
pub struct Context<'a> {
    pub config: &'a Config,
    pub machine: &'a Machine,
    pub watch: &'a crate::watch::Watch,
}

/// An experiment's id: `E1` … `E13` (so written in results.json).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ExperimentId {
    E1,
    E2,
    E3,
    E4,
    E5,
    E6,
    E7,
    E8,
    E9,
    E10,
    E11,
    E12,
    E13,
}

impl ExperimentId {
    pub fn as_str(self) -> &'static str {
        match self {
            ExperimentId::E1 => "E1",
            ExperimentId::E2 => "E2",
            ExperimentId::E3 => "E3",
            ExperimentId::E4 => "E4",
            ExperimentId::E5 => "E5",
            ExperimentId::E6 => "E6",
            ExperimentId::E7 => "E7",
            ExperimentId::E8 => "E8",
            ExperimentId::E9 => "E9",
            ExperimentId::E10 => "E10",
            ExperimentId::E11 => "E11",
            ExperimentId::E12 => "E12",
            ExperimentId::E13 => "E13",
        }
    }
}

impl std::fmt::Display for ExperimentId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an experiment is, as plain data: what the command line's help and `--only`, the index and
/// the tests read. Kept apart from the [`DynExperiment`] table, whose vtables reach every
/// experiment's measuring code, so that a binary that only names experiments (the index, a test)
/// does not link and LTO-optimise all of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct About {
    pub id: ExperimentId,
    /// The report's heading for it.
    pub title: &'static str,
    /// One line for `kiki report --help`: what it measures, and what it needs beyond the binary.
    pub about: &'static str,
    /// Whether `kiki report` runs it unless told otherwise; an experiment that is not (E9, which
    /// builds kiki several times) runs only when named in `--only` or `--with`.
    pub runs_by_default: bool,
}

/// Where an experiment measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// In K child processes, one [`Invocation`] each, analysed once over all K (E1–E7, E10–E12).
    Invocations,
    /// Once, in the report's own process (E8 runs valgrind, E9 builds kiki).
    Parent,
}

/// One experiment of the report: it measures one invocation into a typed measurement, and
/// analyses the measurements of all its invocations at once.
pub trait Experiment: Sync {
    /// One invocation's raw data.
    type Measurement: Serialize + DeserializeOwned;
    /// What it is, as data (its entry in [`CATALOGUE`]).
    const ABOUT: About;
    /// Where it measures: in K child invocations, or once in the report's process.
    fn placement(&self) -> Placement {
        Placement::Invocations
    }
    /// How many child processes it measures in when the report asks for `report` invocations
    /// (K > 1): K unless its figures need more processes than rounds (E11: code layout).
    fn invocations(&self, report: usize, _config: &Config) -> usize {
        report
    }
    /// Measures as `invocation` (its share of the rounds, its own round order).
    fn measure(
        &self,
        context: &Context<'_>,
        invocation: Invocation,
        progress: Progress<'_>,
    ) -> Self::Measurement;
    /// Analyses the measurements of every invocation, in invocation order (at least one). Where
    /// it cannot run here (no valgrind, no source tree), the result says why in its findings
    /// instead of failing the report.
    fn analyse(
        &self,
        measurements: &[Self::Measurement],
        context: &Context<'_>,
    ) -> ExperimentResult;
}

/// [`Experiment`] with its measurement as JSON, so that the experiments fit one list.
pub trait DynExperiment: Sync {
    fn id(&self) -> ExperimentId;
    fn title(&self) -> &'static str;
    fn about(&self) -> &'static str;
    fn runs_by_default(&self) -> bool;
    fn placement(&self) -> Placement;
    fn invocations(&self, report: usize, config: &Config) -> usize;
    /// [`Experiment::measure`], written as JSON.
    fn measure_json(
        &self,
        context: &Context<'_>,
        invocation: Invocation,
        progress: Progress<'_>,
    ) -> Result<String, String>;
    /// [`Experiment::analyse`] of measurements written by [`DynExperiment::measure_json`];
    /// for a timed experiment with the method's sentence on intervals and the warning about
    /// cells whose invocations disagree. `Err` when one does not read back.
    fn analyse_json(
        &self,
        measurements: &[String],
        context: &Context<'_>,
    ) -> Result<ExperimentResult, String>;
}

impl<E: Experiment> DynExperiment for E {
    fn id(&self) -> ExperimentId {
        E::ABOUT.id
    }
    fn title(&self) -> &'static str {
        E::ABOUT.title
    }
    fn about(&self) -> &'static str {
        E::ABOUT.about
    }
    fn runs_by_default(&self) -> bool {
        E::ABOUT.runs_by_default
    }
    fn placement(&self) -> Placement {
        Experiment::placement(self)
    }
    fn invocations(&self, report: usize, config: &Config) -> usize {
        Experiment::invocations(self, report, config)
    }
    fn measure_json(
        &self,
        context: &Context<'_>,
        invocation: Invocation,
        progress: Progress<'_>,
    ) -> Result<String, String> {
        let measurement = self.measure(context, invocation, progress);
        serde_json::to_string(&measurement)
            .map_err(|e| format!("{}: cannot write its measurement: {e}", self.id()))
    }
    fn analyse_json(
        &self,
        measurements: &[String],
        context: &Context<'_>,
    ) -> Result<ExperimentResult, String> {
        let read = measurements
            .iter()
            .enumerate()
            .map(|(i, text)| {
                serde_json::from_str::<E::Measurement>(text).map_err(|e| {
                    format!(
                        "{}: invocation {}'s measurement reads back wrong: {e}",
                        self.id(),
                        i + 1
                    )
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        if read.is_empty() {
            return Err(format!("{}: nothing was measured", self.id()));
        }
        let mut result = self.analyse(&read, context);
        if Experiment::placement(self) == Placement::Invocations {
            timed_result(&mut result, context.config.threshold, read.len());
        }
        Ok(result)
    }
}

/// What every timed table cell and error bar shows, and which cells moved between processes:
/// the same for every timed experiment, so said once here.
fn timed_result(result: &mut ExperimentResult, threshold: f64, invocations: usize) {
    result.method.push(' ');
    result.method.push_str(&intervals_method(invocations));
    let mut disagreements = Disagreements::new(threshold, invocations);
    for series in &result.series {
        let cell = series
            .labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ");
        disagreements.check(&format!("{cell} ({})", series.unit), &series.samples);
    }
    if let Some(warning) = disagreements.warning() {
        result.findings.push(' ');
        result.findings.push_str(&warning);
    }
}

/// A result that says why an experiment could not be analysed (its invocations measured
/// different things): the report carries on with the others.
pub(crate) fn failed_result(id: ExperimentId, title: &str, why: &str) -> ExperimentResult {
    ExperimentResult {
        wall_seconds: None,
        id: id.to_string(),
        title: title.to_string(),
        method: String::new(),
        findings: format!("{id} could not be analysed: {why}."),
        comparisons: Vec::new(),
        series: Vec::new(),
        tables: Vec::new(),
        plots: Vec::new(),
        summary: Vec::new(),
    }
}

/// The experiments in report order, written once: their [`CATALOGUE`] entries and the
/// [`EXPERIMENTS`] table come from this one list, so the two cannot disagree.
macro_rules! experiment_lists {
    ($($experiment:path),* $(,)?) => {
        /// Every experiment, in report order, as data: what the help, `--only` and the index read.
        pub static CATALOGUE: [About; 13] = [$(<$experiment as Experiment>::ABOUT),*];

        /// Every experiment, in report order, to run: what `kiki report` schedules. Reaching it
        /// links every experiment's measuring code; names alone are in [`CATALOGUE`].
        pub static EXPERIMENTS: [&dyn DynExperiment; 13] = [$(&$experiment),*];
    };
}

experiment_lists!(
    e1_attacks::Attacks,
    e2_movegen::Movegen,
    e3_mate1::Mate1,
    e4_hands::Hands,
    e5_effects::Effects,
    e6_memory::Memory,
    e7_cache_pressure::CachePressure,
    e8_simulated_caches::SimulatedCaches,
    e9_isa_levels::IsaLevels,
    e10_attack_maps::AttackMaps,
    e11_search::Search,
    e12_layouts::Layouts,
    e13_simulated_search::SimulatedSearch,
);

/// The catalogue entry with this id (any case).
pub fn about(id: &str) -> Option<&'static About> {
    CATALOGUE
        .iter()
        .find(|a| a.id.as_str().eq_ignore_ascii_case(id))
}

/// The experiment with this id (any case), to run.
pub fn find(id: &str) -> Option<&'static dyn DynExperiment> {
    let index = CATALOGUE
        .iter()
        .position(|a| a.id.as_str().eq_ignore_ascii_case(id))?;
    Some(EXPERIMENTS[index])
}

/// The ids to run: those named in `only` (every id must exist; checking is the caller's job,
/// unknown ids are ignored here), else the default ones plus those named in `with`; in report
/// order.
pub fn selection(only: &[String], with: &[String]) -> Vec<ExperimentId> {
    let named =
        |list: &[String], e: &About| list.iter().any(|id| id.eq_ignore_ascii_case(e.id.as_str()));
    CATALOGUE
        .iter()
        .filter(|e| {
            if only.is_empty() {
                e.runs_by_default || named(with, e)
            } else {
                named(only, e)
            }
        })
        .map(|e| e.id)
        .collect()
}

/// The experiments [`selection`] names, to run.
pub fn selected(only: &[String], with: &[String]) -> Vec<&'static dyn DynExperiment> {
    selection(only, with)
        .into_iter()
        .filter_map(|id| find(id.as_str()))
        .collect()
}

/// Runs `experiments` in order, each measured once in this process (a plain run, K = 1) and
/// analysed. Pins the measuring thread first when `config.pin_cpu` says so; a failed pin is
/// reported through `progress` and the run carries on unpinned. `progress` gets `("E1: …",
/// fraction of that experiment)`.
pub fn run_experiments(
    experiments: &[&dyn DynExperiment],
    context: &Context<'_>,
    progress: &mut dyn FnMut(&str, f64),
) -> Result<Vec<ExperimentResult>, String> {
    pin(context.config, progress);
    experiments
        .iter()
        .map(|experiment| {
            let id = experiment.id();
            let mut forward =
                |message: &str, fraction: f64| progress(&format!("{id}: {message}"), fraction);
            let started = std::time::Instant::now();
            let measurement = experiment.measure_json(context, Invocation::ONLY, &mut forward)?;
            let mut result = experiment.analyse_json(&[measurement], context)?;
            result.wall_seconds = Some(started.elapsed().as_secs_f64());
            Ok(result)
        })
        .collect()
}

/// Pins the measuring thread where `config.pin_cpu` says; a failed pin is said through
/// `progress`.
pub fn pin(config: &Config, progress: &mut dyn FnMut(&str, f64)) {
    if let Some(cpu) = config.pin_cpu {
        if let Err(reason) = crate::measure::pin_to_cpu(cpu) {
            progress(&format!("not pinned: {reason}"), 0.0);
        }
    }
}

// ---- shared pieces ------------------------------------------------------------------------

/// One pre-converted lookup input in a backend's own occupancy layout.
#[derive(Clone, Debug)]
pub(crate) struct Input<O> {
    pub occupancy: O,
    pub square: Square,
    pub slider: Slider,
    /// The lance's colour (black for other kinds).
    pub color: Color,
}

pub(crate) fn convert<B: Backend>(
    backend: &B,
    items: &[crate::workloads::LookupItem],
) -> Vec<Input<B::Occupancy>> {
    items
        .iter()
        .map(|item| Input {
            occupancy: backend.occupancy(item.occupancy),
            square: item.square,
            slider: item.slider,
            color: match item.slider {
                Slider::Lance(color) => color,
                _ => Color::Black,
            },
        })
        .collect()
}

/// Group codes for [`lookup`]: resolved at compile time, so each timed loop calls exactly one
/// attack function (or, for `MIXED`, dispatches on each item's kind as an engine would).
pub(crate) const ROOK: u8 = 0;
pub(crate) const BISHOP: u8 = 1;
pub(crate) const LANCE: u8 = 2;
pub(crate) const DRAGON: u8 = 3;
pub(crate) const HORSE: u8 = 4;
pub(crate) const MIXED: u8 = 5;
/// The null lookup: no attack computed, only the occupancy's own bitboard with the square's
/// bit flipped, so a loop over it costs what the timed loop costs around a lookup (the loop,
/// the input stream, the fold).
pub(crate) const NULL: u8 = 6;

#[inline(always)]
pub(crate) fn lookup<B: Backend, const G: u8>(b: &B, input: &Input<B::Occupancy>) -> B::Bitboard {
    let (o, s) = (&input.occupancy, input.square);
    match G {
        ROOK => b.rook_attacks(o, s),
        BISHOP => b.bishop_attacks(o, s),
        LANCE => b.lance_attacks(input.color, o, s),
        DRAGON => b.dragon_attacks(o, s),
        HORSE => b.horse_attacks(o, s),
        NULL => b.occupied(o) ^ B::Bitboard::square(s),
        _ => b.slider_attacks(input.slider, o, s),
    }
}

/// Folds a bitboard into a `u64` cheaply (for `black_box` and dependent chains).
#[inline(always)]
pub(crate) fn fold<BB: Bitboard>(bb: BB) -> u64 {
    bb.count() as u64
}

pub(crate) fn labels(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

pub(crate) fn series(pairs: &[(&str, &str)], unit: &str, samples: Vec<f64>) -> Series {
    Series {
        labels: labels(pairs),
        unit: unit.to_string(),
        samples,
    }
}

/// The summary of samples that are known to be non-empty.
pub(crate) fn summarise(samples: &[f64]) -> Summary {
    Summary::of(samples).unwrap_or(Summary {
        count: 0,
        median: f64::NAN,
        min: f64::NAN,
        max: f64::NAN,
        mad: f64::NAN,
    })
}

/// Nanoseconds per operation → millions of operations per second.
pub(crate) fn per_second_millions(ns: f64) -> f64 {
    1e3 / ns
}

/// A series' samples split into its `k` invocations' blocks of rounds (one block when the
/// series was measured in one process).
pub(crate) fn blocks(samples: &[f64], k: usize) -> Vec<Vec<f64>> {
    if k > 1 && samples.len().is_multiple_of(k) && !samples.is_empty() {
        samples
            .chunks(samples.len() / k)
            .map(<[f64]>::to_vec)
            .collect()
    } else {
        vec![samples.to_vec()]
    }
}

/// The seed of every table cell's and plotted point's interval.
pub(crate) const INTERVAL_SEED: u64 = 0x1A7E_0001;

/// A timed quantity's value and 95 % interval (see [`estimate`]; [`estimate_linear`] where no
/// sample is positive); NaN when nothing was measured.
pub(crate) fn interval(samples: &[f64], k: usize) -> Estimate {
    let blocks = blocks(samples, k);
    // A quantity that came out zero (no reads in a smoke-sized run) has no geometric mean.
    estimate(&blocks, INTERVAL_SEED)
        .or_else(|| estimate_linear(&blocks, INTERVAL_SEED))
        .unwrap_or(Estimate {
            value: f64::NAN,
            low: f64::NAN,
            high: f64::NAN,
        })
}

/// The value [`interval`] gives, without the bootstrap (for ranking and prose, so that they say
/// what the table cell says): the geometric mean over invocations of each one's median (of
/// its rounds' logarithms: with an even count, the geometric mean of the middle two).
pub(crate) fn typical(samples: &[f64], k: usize) -> f64 {
    crate::stats::central_value(&blocks(samples, k)).unwrap_or(f64::NAN)
}

/// As [`interval`] for a quantity that can be zero or negative (a difference).
pub(crate) fn interval_linear(samples: &[f64], k: usize) -> Estimate {
    estimate_linear(&blocks(samples, k), INTERVAL_SEED).unwrap_or(Estimate {
        value: f64::NAN,
        low: f64::NAN,
        high: f64::NAN,
    })
}

/// A plot point at `x`: the value with its interval as the error bar.
pub(crate) fn interval_point(x: f64, estimate: &Estimate) -> Point {
    // Without an interval (a single sample) the bar collapses onto the point.
    let bounded = |bound: f64| {
        if bound.is_finite() {
            bound
        } else {
            estimate.value
        }
    };
    Point {
        x,
        y: estimate.value,
        y_low: bounded(estimate.low).min(estimate.value),
        y_high: bounded(estimate.high).max(estimate.value),
    }
}

/// The method's sentence on what a table cell and an error bar show.
pub(crate) fn intervals_method(k: usize) -> String {
    let over = if k > 1 {
        format!("the geometric mean over the {k} invocations of each one's median")
    } else {
        "the median of the rounds".to_string()
    };
    format!(
        "A table cell `v [lo–hi]` and a plotted error bar give {over} with its 95 % interval \
         (a seeded bootstrap over invocations, then rounds)."
    )
}

/// Cells whose invocations disagree: some two have min–max ranges that do not overlap and
/// medians further apart than the threshold, so what changes between processes moves them
/// more than the rounds within one process show, by an amount that matters.
#[derive(Default)]
pub(crate) struct Disagreements {
    threshold: f64,
    /// The invocations pooled in every series.
    k: usize,
    cells: usize,
    disagreeing: Vec<(String, f64, f64)>,
}

impl Disagreements {
    pub fn new(threshold: f64, k: usize) -> Disagreements {
        Disagreements {
            threshold,
            k,
            ..Disagreements::default()
        }
    }

    /// Checks one cell's samples.
    pub fn check(&mut self, cell: &str, samples: &[f64]) {
        let blocks = blocks(samples, self.k);
        if blocks.len() < 2 {
            return;
        }
        self.cells += 1;
        if let Some((low, high)) = invocations_disagree(&blocks) {
            if high.abs() > low.abs() * (1.0 + self.threshold) {
                self.disagreeing.push((cell.to_string(), low, high));
            }
        }
    }

    /// The findings' warning, when any cell's invocations disagree.
    pub fn warning(&self) -> Option<String> {
        let (cell, low, high) = self
            .disagreeing
            .iter()
            .max_by(|a, b| (a.2 / a.1).total_cmp(&(b.2 / b.1)))?;
        Some(format!(
            "Warning: in {} of {} cells the invocations disagree (some two have min–max ranges \
             that do not overlap and medians more than ±{} % apart), most in {cell} (invocation medians {}–{}, {:+.0} %); their \
             intervals carry that spread, and a claim about them holds only as far as it does.",
            self.disagreeing.len(),
            self.cells,
            percent(self.threshold),
            format_sig(*low),
            format_sig(*high),
            (high / low - 1.0) * 100.0
        ))
    }
}

/// Names sorted by a key, smallest first (NaN last).
pub(crate) fn ranked<'a>(entries: &[(&'a str, f64)]) -> Vec<(&'a str, f64)> {
    let mut sorted = entries.to_vec();
    sorted.sort_by(|a, b| a.1.total_cmp(&b.1));
    sorted
}

/// `a, b and c`.
pub(crate) fn and_list(items: &[String]) -> String {
    match items.len() {
        0 => String::new(),
        1 => items[0].clone(),
        n => format!("{} and {}", items[..n - 1].join(", "), items[n - 1]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiki_core::units::rounded_bytes;

    /// The prose's and ranking's value is the table cell's: with two rounds per invocation
    /// (E11's ranking cell), the geometric mean of each pair, not their arithmetic mean (the
    /// 2026-12-02 Intel's findings read dbb 431.5 ns beside its cell's 429.8).
    #[test]
    fn the_typical_value_is_the_intervals_value() {
        let rounds = [400.0, 460.0, 420.0, 430.0, 380.0, 500.0];
        let typical_value = typical(&rounds, 3);
        assert_eq!(typical_value, interval(&rounds, 3).value);
        let of_pairs = |pair: fn(f64, f64) -> f64| {
            let logs: f64 = rounds.chunks(2).map(|p| pair(p[0], p[1]).ln()).sum();
            (logs / 3.0).exp()
        };
        let geometric = of_pairs(|a, b| (a * b).sqrt());
        assert!(
            (typical_value - geometric).abs() < 1e-9,
            "{typical_value} {geometric}"
        );
        assert!((typical_value - of_pairs(|a, b| (a + b) / 2.0)).abs() > 0.5);
        let differences = [-2.0, 1.0, 3.0, -1.0];
        assert_eq!(typical(&differences, 2), interval(&differences, 2).value);
    }

    #[test]
    fn one_list_in_order_with_unique_ids() {
        // The catalogue alone (the EXPERIMENTS table would link every experiment's code into
        // this test binary; both come from one macro list).
        let ids: Vec<&str> = CATALOGUE.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(
            ids,
            ["E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8", "E9", "E10", "E11", "E12", "E13"]
        );
        for e in &CATALOGUE {
            assert!(!e.title.is_empty() && e.about.len() > 20, "{}", e.id);
        }
        assert_eq!(about("e8").unwrap().id, ExperimentId::E8);
        assert_eq!(about("e10").unwrap().id, ExperimentId::E10);
        assert_eq!(
            serde_json::to_string(&ExperimentId::E10).unwrap(),
            "\"E10\""
        );
        assert_eq!(about("e11").unwrap().id, ExperimentId::E11);
        assert_eq!(about("e12").unwrap().id, ExperimentId::E12);
        assert_eq!(about("e13").unwrap().id, ExperimentId::E13);
        assert!(about("E14").is_none());
        let names = |ids: Vec<ExperimentId>| ids.iter().map(|id| id.as_str()).collect::<Vec<_>>();
        assert_eq!(
            names(selection(&[], &[])),
            ["E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8", "E10", "E11", "E12", "E13"]
        );
        assert_eq!(selection(&[], &["e9".into()]).len(), 13);
        assert_eq!(
            names(selection(&["E9".into(), "e1".into()], &[])),
            ["E1", "E9"]
        );
    }

    #[test]
    fn helpers_format_and_rank() {
        assert_eq!(rounded_bytes(16384.0), "16 KiB");
        assert_eq!(rounded_bytes(1.5 * 1048576.0), "1.5 MiB");
        assert_eq!(rounded_bytes(0.0), "0 B");
        let r = ranked(&[("a", 3.0), ("b", 1.0), ("c", f64::NAN)]);
        assert_eq!(r[0].0, "b");
        assert_eq!(r[2].0, "c");
        assert_eq!(
            and_list(&["x".to_string(), "y".to_string(), "z".to_string()]),
            "x, y and z"
        );
    }

    /// `experiment` measured once (a plain run) and analysed, as `kiki report --invocations 1`
    /// would.
    pub(crate) fn run_once(
        experiment: &dyn DynExperiment,
        config: &Config,
        progress: Progress<'_>,
    ) -> ExperimentResult {
        let machine = Machine::detect();
        let watch = crate::watch::Watch::new();
        let context = Context {
            config,
            machine: &machine,
            watch: &watch,
        };
        let measurement = experiment
            .measure_json(&context, Invocation::ONLY, progress)
            .unwrap();
        experiment.analyse_json(&[measurement], &context).unwrap()
    }

    /// `path` (from the workspace root) is as `commit` holds it. Checked wherever the
    /// repository's history is at hand (a clone, CI); a source tree without `.git` says so.
    pub(crate) fn assert_as_committed(path: &str, commit: &str) {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
        if !std::path::Path::new(root).join(".git").exists() {
            eprintln!("no .git beside the sources: the rule's commit is not checked here");
            return;
        }
        if std::path::Path::new(root).join(".git/shallow").exists() {
            eprintln!("a shallow clone: the rule's commit may be missing, not checked here");
            return;
        }
        let committed = std::process::Command::new("git")
            .args(["-C", root, "show", &format!("{commit}:{path}")])
            .output()
            .expect("git runs");
        assert!(
            committed.status.success(),
            "{commit} is not in this clone's history"
        );
        let now = std::fs::read(std::path::Path::new(root).join(path)).expect("the rule reads");
        assert!(
            committed.stdout == now,
            "{path} differs from {commit}: a changed rule is a new version with its own commit"
        );
    }

    /// Every experiment, smoke-sized: well-formed results (series with samples, plots with
    /// points, tables with rows, findings written).
    pub(crate) fn assert_well_formed(experiment: &ExperimentResult) {
        assert!(
            !experiment.series.is_empty(),
            "{}: no series",
            experiment.id
        );
        for s in &experiment.series {
            assert!(
                !s.samples.is_empty(),
                "{}: empty series {:?}",
                experiment.id,
                s.labels
            );
            assert!(!s.unit.is_empty());
        }
        assert!(!experiment.plots.is_empty(), "{}: no plots", experiment.id);
        for plot in &experiment.plots {
            assert!(
                !plot.lines.is_empty(),
                "{}: {} has no lines",
                experiment.id,
                plot.file_stem
            );
            for line in &plot.lines {
                assert!(!line.points.is_empty(), "{}: {}", plot.file_stem, line.name);
                for p in &line.points {
                    assert!(
                        p.y_low <= p.y && p.y <= p.y_high,
                        "{}: {p:?}",
                        plot.file_stem
                    );
                }
            }
            if plot.kind.is_bars() {
                assert!(!plot.categories.is_empty());
            }
            assert!(plot.file_stem.starts_with(&experiment.id.to_lowercase()));
        }
        assert!(!experiment.tables.is_empty());
        for table in &experiment.tables {
            assert!(!table.rows.is_empty());
            for row in &table.rows {
                assert_eq!(row.len(), table.headers.len());
            }
        }
        assert!(experiment.findings.len() > 40, "{}", experiment.findings);
        assert!(!experiment.method.is_empty());
        let json = serde_json::to_string(experiment).unwrap();
        let back: ExperimentResult = serde_json::from_str(&json).unwrap();
        assert_eq!(back.id, experiment.id);
        assert_eq!(back.tables, experiment.tables);
        assert_eq!(
            serde_json::to_string(&back).unwrap(),
            json,
            "a lossless round trip"
        );
    }

    #[test]
    fn run_experiments_filters_by_id() {
        let config = Config {
            backends: vec!["dbb".to_string()],
            ..Config::smoke()
        };
        let machine = Machine::detect();
        let watch = crate::watch::Watch::new();
        let context = Context {
            config: &config,
            machine: &machine,
            watch: &watch,
        };
        let mut messages = 0;
        let only: [&dyn DynExperiment; 1] = [&e6_memory::Memory];
        let results = run_experiments(&only, &context, &mut |message, fraction| {
            assert!(message.starts_with("E6: "));
            assert!((0.0..=1.0).contains(&fraction));
            messages += 1;
        })
        .unwrap();
        assert_eq!(results.len(), 1);
        assert_eq!(results[0].id, "E6");
        assert!(messages > 0);
    }
}
