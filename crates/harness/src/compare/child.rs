//! One process of `kiki compare`: builds A's and B's tables, the evaluation and one TT, then
//! times A, B and A's twin in E11's blocks, round by round, and writes what it measured.

use crate::bench::{place_tables, BenchRun};
use crate::experiments::e11_search::{warm_up_positions, Block};
use crate::experiments::Config;
use kiki_core::pages::Pages;
use kiki_engine::search::bench;
use kiki_engine::search::eval::{EvalKind, EvalTables};
use kiki_engine::search::tt::TranspositionTable;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How large a process's search is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Sizing {
    /// E11's verdict cell: every bench position to depth 3, a 1 GiB TT.
    #[serde(rename = "full")]
    Full,
    /// A run of seconds for the tests: two positions to depth 1, a 2 MiB TT.
    #[serde(rename = "smoke")]
    Smoke,
}

impl Sizing {
    /// (positions, depth, TT MiB).
    pub fn search(self) -> (usize, u32, usize) {
        match self {
            Sizing::Full => (bench::positions().len(), 3, 1024),
            Sizing::Smoke => (2, 1, 2),
        }
    }
}

/// What one child process measures: written by the parent, read by `kiki compare --child`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChildJob {
    pub a: String,
    pub b: String,
    pub eval: String,
    pub sizing: Sizing,
    /// Rounds (forward and reverse pairs).
    pub rounds: usize,
    /// From 0: seeds the orders; an odd process runs the reverse of the even one before it.
    pub process: usize,
    pub seed: u64,
    /// The SIMD level the parent runs at (`None`: the best this CPU has).
    pub simd: Option<String>,
    /// Where the child writes its [`ProcessMeasurement`] (JSON).
    pub measurement: PathBuf,
}

/// What one process measured: ns per node per round of A, B and A's twin (A timed a second
/// time as its own entry), in round order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProcessMeasurement {
    pub process: usize,
    pub a: Vec<f64>,
    pub b: Vec<f64>,
    pub twin: Vec<f64>,
    /// Seconds from the child's start to its first timed round (tables, evaluation, TT, the
    /// discarded block).
    pub setup_seconds: f64,
    /// Each timed round's wall seconds (three entries' searches and their warm-ups).
    pub round_seconds: Vec<f64>,
    /// Each forward and reverse pair's order, as run.
    pub orders: Vec<String>,
    /// Where the tables did not go onto 2 MiB pages.
    pub notes: Vec<String>,
    /// Fingerprint mismatches and backends that could not run.
    pub errors: Vec<String>,
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

impl ProcessMeasurement {
    /// The process's mean of per-round t(B) − t(A), ns per node.
    pub fn difference(&self) -> f64 {
        let per_round: Vec<f64> = self.b.iter().zip(&self.a).map(|(b, a)| b - a).collect();
        mean(&per_round)
    }

    /// The A/A: the mean of per-round t(A′) − t(A).
    pub fn twin_difference(&self) -> f64 {
        let per_round: Vec<f64> = self.twin.iter().zip(&self.a).map(|(t, a)| t - a).collect();
        mean(&per_round)
    }

    pub fn a_mean(&self) -> f64 {
        mean(&self.a)
    }

    pub fn b_mean(&self) -> f64 {
        mean(&self.b)
    }
}

/// The three entries as [`Block::time`] takes them: A, B, and A's twin.
fn entries(a: &'static str, b: &'static str) -> [(&'static str, bool); 3] {
    [(a, false), (b, false), (a, true)]
}

/// A registered name as the `&'static str` the blocks take.
fn static_name(name: &str) -> Result<&'static str, String> {
    let names = kiki_variants::registry::resolve(name).map_err(|e| e.to_string())?;
    match names.as_slice() {
        [one] => Ok(one),
        _ => Err(format!("'{name}' names more than one backend")),
    }
}

/// Measures `job` in this process.
pub fn measure(job: &ChildJob) -> Result<ProcessMeasurement, String> {
    let started = Instant::now();
    let a = static_name(&job.a)?;
    let b = static_name(&job.b)?;
    let eval = EvalKind::parse(&job.eval)?;
    let (positions, depth, tt_mib) = job.sizing.search();
    let mut m = ProcessMeasurement {
        process: job.process,
        a: Vec::new(),
        b: Vec::new(),
        twin: Vec::new(),
        setup_seconds: 0.0,
        round_seconds: Vec::new(),
        orders: Vec::new(),
        notes: Vec::new(),
        errors: Vec::new(),
    };
    // Only what the pair needs: A's and B's tables on 2 MiB pages (E11's verdict cell), the
    // evaluation's tables and one TT.
    for name in [a, b] {
        let placed = place_tables(name, Pages::Huge).map_err(|e| e.to_string())?;
        if let Err(why) = placed.outcome {
            m.notes
                .push(format!("{name}'s tables stay on 4 KiB pages: {why}"));
        }
    }
    let tables = EvalTables::new(eval, Pages::Huge);
    let mut tt = TranspositionTable::new(tt_mib << 20, Pages::Huge);
    let sfens: Vec<String> = bench::positions()[..positions]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let config = Config {
        smoke: job.sizing == Sizing::Smoke,
        ..Config::default()
    };
    let warm = warm_up_positions(&config);
    let block = |sfens| Block {
        sfens,
        warm: &warm,
        depth,
        tables: &tables,
    };
    let mut order = entries(a, b);
    // A discarded block first, as E11's: the first timed block of a process runs slow.
    let _ = block(&sfens[..sfens.len().min(order.len())]).time(&order, &mut tt, &mut Vec::new());
    m.setup_seconds = started.elapsed().as_secs_f64();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(job.seed ^ ((job.process as u64 / 2) << 20));
    for round in 0..job.rounds {
        if round % 2 == 0 {
            order.shuffle(&mut rng);
            // The odd process of a pair runs the even one's orders reversed.
            if job.process % 2 == 1 {
                order.reverse();
            }
            m.orders.push(order_text(round, &order));
        }
        let timed: Vec<(&'static str, bool)> = if round % 2 == 0 {
            order.to_vec()
        } else {
            order.iter().rev().copied().collect()
        };
        let round_started = Instant::now();
        let runs = block(&sfens).time(&timed, &mut tt, &mut m.errors);
        m.round_seconds.push(round_started.elapsed().as_secs_f64());
        record(&mut m, (a, &timed), &runs, eval);
    }
    Ok(m)
}

/// Each entry's ns per node into its row (A ≠ B: the parent refuses a pair of one backend),
/// and any fingerprint that differs from the first entry's into the errors.
fn record(
    m: &mut ProcessMeasurement,
    (a, order): (&str, &[(&'static str, bool)]),
    runs: &[Option<BenchRun>],
    eval: EvalKind,
) {
    let mut reference: Option<(&str, &BenchRun)> = None;
    for (&(name, twin), run) in order.iter().zip(runs) {
        let Some(run) = run else { continue };
        let ns = run.seconds * 1e9 / run.nodes.max(1) as f64;
        match (twin, name == a) {
            (true, _) => m.twin.push(ns),
            (false, true) => m.a.push(ns),
            (false, false) => m.b.push(ns),
        }
        match reference {
            None => reference = Some((name, run)),
            Some((first, first_run)) => {
                if let Some(difference) = first_run.difference_text(first, run, name) {
                    m.errors.push(format!(
                        "fingerprints differ ({}) {difference}",
                        eval.name()
                    ));
                }
            }
        }
    }
}

fn order_text(round: usize, order: &[(&str, bool)]) -> String {
    let names: Vec<String> = order
        .iter()
        .map(|&(name, twin)| {
            if twin {
                format!("{name} (A/A twin)")
            } else {
                name.to_string()
            }
        })
        .collect();
    format!("rounds {}–{}: {}", round + 1, round + 2, names.join(", "))
}

/// Child mode: reads the job at `file`, measures it and writes the measurement (whole: into a
/// temporary name, then renamed).
pub fn run_child_job(file: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let job: ChildJob =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    if let Some(name) = &job.simd {
        kiki_core::simd::force(kiki_core::simd::SimdLevel::parse(name)?)?;
    }
    let measurement = measure(&job)?;
    let text = serde_json::to_string(&measurement).map_err(|e| e.to_string())?;
    let partial = job.measurement.with_extension("partial");
    std::fs::write(&partial, text)
        .map_err(|e| format!("cannot write {}: {e}", partial.display()))?;
    std::fs::rename(&partial, &job.measurement)
        .map_err(|e| format!("cannot write {}: {e}", job.measurement.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(process: usize) -> ChildJob {
        ChildJob {
            a: "dbb".into(),
            b: "mailbox".into(),
            eval: "material".into(),
            sizing: Sizing::Smoke,
            rounds: 4,
            process,
            seed: 57,
            simd: None,
            measurement: PathBuf::from("unused.json"),
        }
    }

    /// A process times A, B and A's twin in every round, with equal fingerprints; a pair's
    /// odd process runs its even one's orders reversed.
    #[test]
    fn a_process_times_three_entries_a_round_and_its_pair_reverses_the_orders() {
        let even = measure(&job(0)).expect("measured");
        assert!(even.errors.is_empty(), "{:?}", even.errors);
        for row in [&even.a, &even.b, &even.twin] {
            assert_eq!(row.len(), 4);
            assert!(row.iter().all(|ns| ns.is_finite() && *ns > 0.0), "{row:?}");
        }
        assert_eq!(even.round_seconds.len(), 4);
        assert_eq!(
            even.orders.len(),
            2,
            "a fresh order per forward and reverse pair"
        );
        assert!(even.difference().is_finite() && even.twin_difference().is_finite());
        let odd = measure(&job(1)).expect("measured");
        let names = |text: &str| -> Vec<String> {
            let list = text.split(": ").nth(1).unwrap_or("");
            list.split(", ").map(str::to_string).collect()
        };
        let mut reversed = names(&even.orders[0]);
        reversed.reverse();
        assert_eq!(names(&odd.orders[0]), reversed);
        let text = serde_json::to_string(&even).unwrap();
        let back: ProcessMeasurement = serde_json::from_str(&text).unwrap();
        assert_eq!(back, even);
    }
}
