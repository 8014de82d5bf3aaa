//! The experiments of the report behind one trait, [`Experiment`], and the one list of them.
//!
//! Each experiment takes a [`Context`] (configuration and machine) and a progress callback
//! `(message, fraction done)` and returns an [`ExperimentResult`]: raw series, tables, plots and
//! findings computed from its own data. E1–E7 and E10 time code in this process, E8 runs this
//! binary under valgrind, E9 builds kiki for other instruction-set levels and runs E1 and E2 with
//! each.

mod counter_log;
pub mod e10_attack_maps;
pub mod e1_attacks;
pub mod e2_movegen;
pub mod e3_mate1;
pub mod e4_hands;
pub mod e5_effects;
pub mod e6_memory;
pub mod e7_cache_pressure;
pub mod e8_simulated_caches;
pub mod e9_isa_levels;

use crate::machine::Machine;
use crate::measure::{Event, SampleConfig};
use crate::results::{ExperimentResult, PairRecord, Point, Series};
use crate::stats::{
    compare, estimate, estimate_linear, format_sig, invocations_disagree, Claim, Comparison,
    Estimate, Summary,
};
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::types::{Color, Slider, Square};
use kiki_variants::registry;
use std::time::Duration;

/// What to run and how big.
#[derive(Clone, Debug, PartialEq)]
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
            return (registry::resolve("all").unwrap_or_default(), Vec::new());
        }
        let mut names = Vec::new();
        let mut skipped = Vec::new();
        for name in &self.backends {
            match registry::resolve(name) {
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

/// What an experiment runs with: the report's configuration and the machine it runs on.
pub struct Context<'a> {
    pub config: &'a Config,
    pub machine: &'a Machine,
}

/// One experiment of the report.
pub trait Experiment: Sync {
    /// `E1` … `E10`.
    fn id(&self) -> &'static str;
    /// The report's heading for it.
    fn title(&self) -> &'static str;
    /// One line for `kiki report --help`: what it measures, and what it needs beyond the binary.
    fn about(&self) -> &'static str;
    /// Whether `kiki report` runs it unless told otherwise; an experiment that is not (E9, which
    /// compiles kiki three more times) runs when named in `--only` or `--with`.
    fn runs_by_default(&self) -> bool {
        true
    }
    /// Whether its timing goes through the measurement primitives that can be recorded in child
    /// processes and replayed (E1–E7, E10); E8 (valgrind) and E9 (builds) run once, in this process.
    fn replayable(&self) -> bool {
        true
    }
    /// Measures, analyses and writes its findings. Where it cannot run here (no valgrind, no
    /// source tree), the result says why in its findings instead of failing the report.
    fn run(&self, context: &Context<'_>, progress: Progress<'_>) -> ExperimentResult;
}

/// E1–E7 and E10: measured in this process from a [`Config`] alone.
struct InProcess {
    id: &'static str,
    title: &'static str,
    about: &'static str,
    /// Whether all its timing goes through the recordable primitives (all of E1–E7 and E10 do).
    replayable: bool,
    run: fn(&Config, Progress<'_>) -> ExperimentResult,
}

impl Experiment for InProcess {
    fn id(&self) -> &'static str {
        self.id
    }
    fn title(&self) -> &'static str {
        self.title
    }
    fn about(&self) -> &'static str {
        self.about
    }
    fn replayable(&self) -> bool {
        self.replayable
    }
    fn run(&self, context: &Context<'_>, progress: Progress<'_>) -> ExperimentResult {
        let mut result = (self.run)(context.config, progress);
        // What every timed table cell and error bar shows, and which cells moved between
        // processes: the same for E1–E7 and E10, so said once here.
        result.method.push(' ');
        result.method.push_str(&intervals_method());
        let mut disagreements = Disagreements::new(context.config.threshold);
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
        result
    }
}

/// Every experiment, in report order: the one list `kiki report`, its `--help` and its `--only`
/// read.
pub static EXPERIMENTS: [&dyn Experiment; 10] = [
    &InProcess {
        id: "E1",
        title: e1_attacks::TITLE,
        about: "slider lookups per backend: latency and throughput on random and game-like inputs",
        replayable: true,
        run: e1_attacks::run,
    },
    &InProcess {
        id: "E2",
        title: e2_movegen::TITLE,
        about: "legal move generation and perft per backend, beside the peer engine haitaka",
        replayable: true,
        run: e2_movegen::run,
    },
    &InProcess {
        id: "E3",
        title: e3_mate1::TITLE,
        about: "mate-in-1 per backend, against brute force over the same positions",
        replayable: true,
        run: e3_mate1::run,
    },
    &InProcess {
        id: "E4",
        title: e4_hands::TITLE,
        about: "hand layouts: packed against guarded fields",
        replayable: true,
        run: e4_hands::run,
    },
    &InProcess {
        id: "E5",
        title: e5_effects::TITLE,
        about: "incremental effect counts: mailbox against SquareWithWall steppers",
        replayable: true,
        run: e5_effects::run,
    },
    &InProcess {
        id: "E6",
        title: e6_memory::TITLE,
        about: "the memory hierarchy: dependent-load latency over sizes, and each cache level's effective size",
        replayable: true,
        run: e6_memory::run,
    },
    &InProcess {
        id: "E7",
        title: e7_cache_pressure::TITLE,
        about: "what table misses cost after pressure reads, each backend against its hot twin (seed 004)",
        replayable: true,
        run: e7_cache_pressure::run,
    },
    &e8_simulated_caches::SimulatedCaches,
    &e9_isa_levels::IsaLevels,
    &InProcess {
        id: "E10",
        title: e10_attack_maps::TITLE,
        about: "whole-side attack maps and counts: per piece against set-wise SIMD fills, king safety by map, recounts against incremental boards",
        replayable: true,
        run: e10_attack_maps::run,
    },
];

/// The experiment with this id (any case).
pub fn find(id: &str) -> Option<&'static dyn Experiment> {
    EXPERIMENTS
        .iter()
        .copied()
        .find(|e| e.id().eq_ignore_ascii_case(id))
}

/// The experiments to run: those named in `only` (every id must exist; checking is the
/// caller's job, unknown ids are ignored here), else the default ones plus those named in
/// `with`; in report order.
pub fn selected(only: &[String], with: &[String]) -> Vec<&'static dyn Experiment> {
    let named =
        |list: &[String], e: &dyn Experiment| list.iter().any(|id| id.eq_ignore_ascii_case(e.id()));
    EXPERIMENTS
        .iter()
        .copied()
        .filter(|e| {
            if only.is_empty() {
                e.runs_by_default() || named(with, *e)
            } else {
                named(only, *e)
            }
        })
        .collect()
}

/// Runs `experiments` in order. Pins the measuring thread first when `config.pin_cpu` says so;
/// a failed pin is reported through `progress` and the run carries on unpinned. `progress` gets
/// `("E1: …", fraction of that experiment)`.
pub fn run_experiments(
    experiments: &[&dyn Experiment],
    context: &Context<'_>,
    progress: &mut dyn FnMut(&str, f64),
) -> Vec<ExperimentResult> {
    if let Some(cpu) = context.config.pin_cpu {
        if let Err(reason) = crate::measure::pin_to_cpu(cpu) {
            progress(&format!("not pinned: {reason}"), 0.0);
        }
    }
    experiments
        .iter()
        .map(|experiment| {
            let id = experiment.id();
            let mut forward =
                |message: &str, fraction: f64| progress(&format!("{id}: {message}"), fraction);
            let started = std::time::Instant::now();
            let mut result = experiment.run(context, &mut forward);
            result.wall_seconds = Some(started.elapsed().as_secs_f64());
            result
        })
        .collect()
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

#[inline(always)]
pub(crate) fn lookup<B: Backend, const G: u8>(b: &B, input: &Input<B::Occupancy>) -> B::Bitboard {
    let (o, s) = (&input.occupancy, input.square);
    match G {
        ROOK => b.rook_attacks(o, s),
        BISHOP => b.bishop_attacks(o, s),
        LANCE => b.lance_attacks(input.color, o, s),
        DRAGON => b.dragon_attacks(o, s),
        HORSE => b.horse_attacks(o, s),
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

/// The seed of every claim's bootstrap: the same data always gives the same interval.
pub(crate) const CLAIM_SEED: u64 = 0xC1A1_0003;

/// The comparison of two time series taken in the same interleaved rounds, at `threshold`.
/// Replayed from K process invocations, each series is K blocks of rounds, one per invocation,
/// and the bootstrap resamples invocations first.
pub(crate) fn claim(a: &[f64], b: &[f64], threshold: f64) -> Option<Comparison> {
    compare(&blocks(a), &blocks(b), threshold, CLAIM_SEED)
}

/// A series' samples split into its invocations' blocks of rounds (one block when the series
/// was measured in this process alone).
pub(crate) fn blocks(samples: &[f64]) -> Vec<Vec<f64>> {
    let k = crate::invocations::replayed_invocations();
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
const INTERVAL_SEED: u64 = 0x1A7E_0001;

/// A timed quantity's value and 95 % interval (see [`estimate`]; [`estimate_linear`] where no
/// sample is positive); NaN when nothing was measured.
pub(crate) fn interval(samples: &[f64]) -> Estimate {
    let blocks = blocks(samples);
    // A quantity that came out zero (no reads in a smoke-sized run) has no geometric mean.
    estimate(&blocks, INTERVAL_SEED)
        .or_else(|| estimate_linear(&blocks, INTERVAL_SEED))
        .unwrap_or(Estimate {
            value: f64::NAN,
            low: f64::NAN,
            high: f64::NAN,
        })
}

/// The value [`interval`] gives, without the bootstrap (for ranking and prose): the geometric
/// mean over invocations of each one's median.
pub(crate) fn typical(samples: &[f64]) -> f64 {
    let medians: Vec<f64> = blocks(samples)
        .iter()
        .filter_map(|b| {
            let finite: Vec<f64> = b.iter().copied().filter(|x| x.is_finite()).collect();
            Summary::of(&finite).map(|s| s.median)
        })
        .collect();
    if medians.is_empty() {
        f64::NAN
    } else if medians.iter().all(|m| *m > 0.0) {
        (medians.iter().map(|m| m.ln()).sum::<f64>() / medians.len() as f64).exp()
    } else {
        medians.iter().sum::<f64>() / medians.len() as f64
    }
}

/// As [`interval`] for a quantity that can be zero or negative (a difference).
pub(crate) fn interval_linear(samples: &[f64]) -> Estimate {
    estimate_linear(&blocks(samples), INTERVAL_SEED).unwrap_or(Estimate {
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
pub(crate) fn intervals_method() -> String {
    let k = crate::invocations::replayed_invocations();
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
    cells: usize,
    disagreeing: Vec<(String, f64, f64)>,
}

impl Disagreements {
    pub fn new(threshold: f64) -> Disagreements {
        Disagreements {
            threshold,
            ..Disagreements::default()
        }
    }

    /// Checks one cell's samples.
    pub fn check(&mut self, cell: &str, samples: &[f64]) {
        let blocks = blocks(samples);
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

/// Every comparison an experiment's findings rest on, at one threshold, kept for
/// `results.json`.
pub(crate) struct Claims {
    threshold: f64,
    pub records: Vec<PairRecord>,
}

impl Claims {
    pub fn new(threshold: f64) -> Claims {
        Claims {
            threshold,
            records: Vec::new(),
        }
    }

    /// Compares `a`'s times with `b`'s in the cell `cell` and records the result.
    pub fn compare(
        &mut self,
        cell: &str,
        (a_name, a): (&str, &[f64]),
        (b_name, b): (&str, &[f64]),
    ) -> Option<Comparison> {
        let comparison = claim(a, b, self.threshold)?;
        self.records.push(PairRecord {
            cell: cell.to_string(),
            a: a_name.to_string(),
            b: b_name.to_string(),
            comparison,
        });
        Some(comparison)
    }

    /// `name ×1.23 (1.20–1.26)` for `name`'s time against the fastest's when the interval lies
    /// wholly beyond the threshold, else `name level at ±3 % (×1.01, 0.99–1.04)`; recorded.
    pub fn ratio_text(
        &mut self,
        cell: &str,
        (name, a): (&str, &[f64]),
        fastest: (&str, &[f64]),
    ) -> String {
        match self.compare(cell, (name, a), fastest) {
            Some(c) if c.claim != Claim::Level => {
                format!("{name} ×{:.2} ({:.2}–{:.2})", c.ratio, c.low, c.high)
            }
            Some(c) => format!(
                "{name} level at ±{} % (×{:.2}, {:.2}–{:.2})",
                percent(self.threshold),
                c.ratio,
                c.low,
                c.high
            ),
            None => format!("{name} (no paired samples)"),
        }
    }
}

/// `3` for 0.03, `0.5` for 0.005.
pub(crate) fn percent(threshold: f64) -> String {
    let text = format!("{:.3}", threshold * 100.0);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The method's sentence on how ratios and claims are computed.
pub(crate) fn claims_method(threshold: f64) -> String {
    let k = crate::invocations::replayed_invocations();
    let interval = if k > 1 {
        format!(
            "a hierarchical bootstrap over the {k} process invocations and then the rounds \
             within each (seeded)"
        )
    } else {
        "a seeded bootstrap over the rounds (all rounds come from this one process, so the \
         interval does not include what changes between processes)"
            .to_string()
    };
    format!(
        "Ratios between two cells are the geometric mean of their paired per-round time ratios, \
         with a 95 % interval from {interval}; an order is stated only when the whole interval \
         lies beyond ±{} %, otherwise the two are called level at that resolution.",
        percent(threshold)
    )
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
    use crate::results::PlotKind;
    use kiki_core::units::rounded_bytes;

    #[test]
    fn one_list_in_order_with_unique_ids() {
        let ids: Vec<&str> = EXPERIMENTS.iter().map(|e| e.id()).collect();
        assert_eq!(
            ids,
            ["E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8", "E9", "E10"]
        );
        for e in EXPERIMENTS {
            assert!(!e.title().is_empty() && e.about().len() > 20, "{}", e.id());
        }
        assert_eq!(find("e8").unwrap().id(), "E8");
        assert_eq!(find("e10").unwrap().id(), "E10");
        assert!(find("E11").is_none());
        let default: Vec<&str> = selected(&[], &[]).iter().map(|e| e.id()).collect();
        assert_eq!(
            default,
            ["E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8", "E10"]
        );
        let with: Vec<&str> = selected(&[], &["e9".into()])
            .iter()
            .map(|e| e.id())
            .collect();
        assert_eq!(with.len(), 10);
        let only: Vec<&str> = selected(&["E9".into(), "e1".into()], &[])
            .iter()
            .map(|e| e.id())
            .collect();
        assert_eq!(only, ["E1", "E9"]);
    }

    #[test]
    fn claims_say_level_inside_the_threshold() {
        assert_eq!(percent(0.03), "3");
        assert_eq!(percent(0.005), "0.5");
        let fast = [1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0];
        let slow: Vec<f64> = fast.iter().map(|x| x * 1.5).collect();
        let close: Vec<f64> = fast.iter().map(|x| x * 1.01).collect();
        let mut claims = Claims::new(0.03);
        let text = claims.ratio_text("cell", ("b", &slow), ("a", &fast));
        assert!(text.starts_with("b ×1.50 ("), "{text}");
        let level = claims.ratio_text("cell", ("c", &close), ("a", &fast));
        assert!(level.starts_with("c level at ±3 % (×1.01, "), "{level}");
        assert_eq!(claims.records.len(), 2);
        assert_eq!(claims.records[0].comparison.claim, Claim::Slower);
        assert_eq!(claims.records[1].comparison.claim, Claim::Level);
        assert_eq!(
            (claims.records[1].a.as_str(), claims.records[1].b.as_str()),
            ("c", "a")
        );
        assert!(claims_method(0.03).contains("beyond ±3 %"));
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
            if plot.kind == PlotKind::Bar {
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
            backends: vec!["qugiy".to_string()],
            ..Config::smoke()
        };
        let machine = Machine::detect();
        let context = Context {
            config: &config,
            machine: &machine,
        };
        let mut messages = 0;
        let only = selected(&["e6".into()], &[]);
        let results = run_experiments(&only, &context, &mut |message, fraction| {
            assert!(message.starts_with("E6: "));
            assert!((0.0..=1.0).contains(&fraction));
            messages += 1;
        });
        assert_eq!(results.len(), 1);
        assert_eq!(results[0].id, "E6");
        assert!(messages > 0);
    }
}
