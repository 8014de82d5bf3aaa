//! E8: each backend's fixed lookup workload under valgrind's simulated caches, with explicit
//! geometries (this CPU's, and a 2008-class machine like the one seed 004 had in mind).
//!
//! `kiki report` starts `valgrind --tool=callgrind --cache-sim=yes` on its own binary's hidden
//! `e8-workload` subcommand. Collection is switched on only inside
//! [`e8_measured_lookups`] (`--collect-atstart=no --toggle-collect=…`), so building tables and
//! generating inputs stay out of the counts. The same workload is the gungraun bench
//! `benches/cache_sim.rs`.

use super::results::{Experiment, Plot, PlotKind, PlotLine, Point, Series, Table};
use crate::backend::{Backend, Bitboard};
use crate::json::Json;
use crate::registry::{self, BackendVisitor, RegistryError};
use crate::types::{Slider, Square};
use crate::units::compact_bytes;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::Path;
use std::process::Command;

/// The workload's seed: the same inputs for every backend and every run.
pub const WORKLOAD_SEED: u64 = 0x6538_6538;
/// Distinct occupancies the lookups cycle through (small, so that the inputs themselves stay
/// in L1 and the misses counted are the tables').
pub const OCCUPANCIES: usize = 64;
/// Probability that a square is occupied in the random occupancies (a middle-game board).
pub const DENSITY: f64 = 0.4;
/// The function valgrind collects in (its name is matched with wildcards around it).
pub const MEASURED_FUNCTION: &str = "e8_measured_lookups";

/// The cycle estimate's weights: an L1 miss that hits LL costs about 10 cycles, an LL miss
/// about 100 (the usual cachegrind rule of thumb; no pipeline overlap is modelled).
pub const L1_MISS_CYCLES: f64 = 10.0;
pub const LL_MISS_CYCLES: f64 = 100.0;

/// Random 8-byte reads of the evaluation buffer after every lookup in the pressure variant (as
/// in E7's main sweep).
pub const EVAL_READS: usize = 4;
/// The pseudo-backend of the pressure variant that does the evaluation reads alone: its counts
/// are subtracted from each backend's, leaving what the lookups add under pressure.
pub const EVAL_ALONE: &str = "evaluation-alone";

/// The `k`-th evaluation read's index in a buffer of `len` words: a multiplicative hash scaled
/// by a multiply-high (no division, the same few instructions for every backend).
#[inline(always)]
fn eval_index(k: u64, len: usize) -> usize {
    let hash = k.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((hash as u128 * len as u128) >> 64) as usize
}

/// One lookup input packed in a `u32`: occupancy index (bits 0–7), square (8–14), slider (16–18).
fn pack(occupancy: usize, square: u8, slider: usize) -> u32 {
    occupancy as u32 | (square as u32) << 8 | (slider as u32) << 16
}

/// The lookup inputs: `lookups` packed inputs and `OCCUPANCIES` canonical occupancies.
pub fn inputs(lookups: usize, seed: u64) -> (Vec<u128>, Vec<u32>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let occupancies = (0..OCCUPANCIES)
        .map(|_| {
            (0..81).fold(0u128, |bits, sq| {
                if rng.random_bool(DENSITY) {
                    bits | 1 << sq
                } else {
                    bits
                }
            })
        })
        .collect();
    let packed = (0..lookups)
        .map(|_| {
            pack(
                rng.random_range(0..OCCUPANCIES),
                rng.random_range(0..81u8),
                rng.random_range(0..Slider::ALL.len()),
            )
        })
        .collect();
    (occupancies, packed)
}

/// The measured region: every lookup's attacks folded into one bitboard, and (with a non-empty
/// `eval`) `EVAL_READS` evaluation reads after each lookup, summed. Never inlined, so valgrind
/// can switch collection on and off at its entry and exit.
#[inline(never)]
pub fn e8_measured_lookups<B: Backend>(
    backend: B,
    occupancies: &[B::Occupancy],
    packed: &[u32],
    eval: &[u64],
) -> (B::Bitboard, u64) {
    let mut folded = B::Bitboard::empty();
    let mut sum = 0u64;
    let mut reads = 0u64;
    for &input in packed {
        let occupancy = &occupancies[(input & 0xff) as usize % occupancies.len()];
        let square = Square::new((input >> 8 & 0x7f) as u8 % 81).unwrap_or(Square::new(0).unwrap());
        let slider = Slider::ALL[(input >> 16 & 7) as usize % Slider::ALL.len()];
        folded ^= backend.slider_attacks(slider, occupancy, square);
        if !eval.is_empty() {
            for _ in 0..EVAL_READS {
                sum = sum.wrapping_add(eval[eval_index(reads, eval.len())]);
                reads += 1;
            }
        }
    }
    (folded, sum)
}

/// The pressure variant's baseline: the same input stream and evaluation reads, no lookup.
#[inline(never)]
pub fn e8_measured_lookups_evaluation_alone(packed: &[u32], eval: &[u64]) -> u64 {
    let mut sum = 0u64;
    let mut reads = 0u64;
    for &input in packed {
        sum = sum.wrapping_add(input as u64);
        for _ in 0..EVAL_READS {
            sum = sum.wrapping_add(eval[eval_index(reads, eval.len())]);
            reads += 1;
        }
    }
    sum
}

/// The evaluation buffer of the pressure variant, every page touched before measuring.
fn eval_buffer(bytes: usize) -> Vec<u64> {
    (0..bytes / 8).map(|i| i as u64).collect()
}

/// Runs the workload on one backend (tables built and inputs converted first), returning the
/// folded result as a canonical board so that the work cannot be optimised away.
pub struct WorkloadVisitor {
    pub lookups: usize,
    pub seed: u64,
    /// Bytes of evaluation buffer read after every lookup (0: none).
    pub eval_bytes: usize,
}

impl BackendVisitor for WorkloadVisitor {
    type Output = u128;
    fn visit<B: Backend>(self, backend: B) -> u128 {
        let (canonical, packed) = inputs(self.lookups, self.seed);
        let occupancies: Vec<B::Occupancy> = canonical
            .iter()
            .map(|&bits| backend.occupancy(bits))
            .collect();
        let eval = eval_buffer(self.eval_bytes);
        let (folded, sum) = e8_measured_lookups(
            backend,
            &occupancies,
            std::hint::black_box(&packed),
            std::hint::black_box(&eval),
        );
        std::hint::black_box(folded).to_canonical() ^ std::hint::black_box(sum) as u128
    }
}

/// Runs the workload on the backend called `name` (or `EVAL_ALONE`: the evaluation reads of
/// `eval_bytes` alone, over the same inputs).
pub fn run_workload(
    name: &str,
    lookups: usize,
    seed: u64,
    eval_bytes: usize,
) -> Result<u128, RegistryError> {
    if name == EVAL_ALONE {
        let (_, packed) = inputs(lookups, seed);
        let eval = eval_buffer(eval_bytes.max(8));
        let sum = e8_measured_lookups_evaluation_alone(
            std::hint::black_box(&packed),
            std::hint::black_box(&eval),
        );
        return Ok(std::hint::black_box(sum) as u128);
    }
    registry::visit(
        name,
        WorkloadVisitor {
            lookups,
            seed,
            eval_bytes,
        },
    )
}

/// One simulated cache: bytes, associativity, line size (valgrind's `size,assoc,line`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheSpec {
    pub bytes: usize,
    pub ways: usize,
    pub line: usize,
}

impl CacheSpec {
    /// The spec valgrind accepts for this cache: valgrind 3.19 needs a power-of-two number of
    /// sets, so the associativity is raised to the next count that gives one (a 12 MiB,
    /// 16-way cache becomes 24-way, as 2008's 12 MiB parts were), or lowered where none is higher.
    pub fn for_valgrind(bytes: usize, ways: usize, line: usize) -> Option<CacheSpec> {
        if bytes == 0 || line == 0 || !line.is_power_of_two() || !bytes.is_multiple_of(line) {
            return None;
        }
        let lines = bytes / line;
        let candidates: Vec<usize> = (0..usize::BITS)
            .map(|k| 1usize << k)
            .take_while(|&sets| sets <= lines)
            .filter(|&sets| lines.is_multiple_of(sets))
            .map(|sets| lines / sets)
            .collect();
        let wanted = ways.max(1);
        let at_least = candidates.iter().copied().filter(|&w| w >= wanted).min();
        let below = candidates.iter().copied().filter(|&w| w < wanted).max();
        at_least
            .or(below)
            .map(|ways| CacheSpec { bytes, ways, line })
    }

    pub fn valgrind_arg(&self) -> String {
        format!("{},{},{}", self.bytes, self.ways, self.line)
    }

    pub fn describe(&self) -> String {
        format!("{} {}-way", compact_bytes(self.bytes as f64), self.ways)
    }
}

/// One simulated machine: instruction L1, data L1 and the last level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheGeometry {
    pub name: String,
    pub i1: CacheSpec,
    pub d1: CacheSpec,
    pub ll: CacheSpec,
}

/// A cache level as detected on this machine: bytes, ways, line.
pub type DetectedCache = (usize, usize, usize);

/// The geometries to simulate: this CPU's L1d with LL = its L2, then LL = its L3 (each where
/// detected), and the 2008-class 32 KiB L1d with a 4 MiB and a 12 MiB LL. Quick mode keeps one:
/// this CPU's L1d and L3 where known, else the 2008-class 12 MiB.
pub fn geometries(
    l1d: Option<DetectedCache>,
    l2: Option<DetectedCache>,
    l3: Option<DetectedCache>,
    quick: bool,
) -> Vec<CacheGeometry> {
    let classic_l1 = CacheSpec {
        bytes: 32 << 10,
        ways: 8,
        line: 64,
    };
    let i1 = classic_l1;
    let spec = |c: DetectedCache| CacheSpec::for_valgrind(c.0, c.1, c.2);
    let own_l1 = l1d.and_then(spec);
    let mut list = Vec::new();
    if let Some(d1) = own_l1 {
        for (level, cache) in [("L2", l2), ("L3", l3)] {
            if let Some(ll) = cache.and_then(spec) {
                list.push(CacheGeometry {
                    name: format!(
                        "this CPU: L1d {}, LL = {level} {}",
                        compact_bytes(d1.bytes as f64),
                        compact_bytes(ll.bytes as f64)
                    ),
                    i1,
                    d1,
                    ll,
                });
            }
        }
    }
    for (ll_bytes, ways) in [(4usize << 20, 16), (12 << 20, 16)] {
        if let Some(ll) = CacheSpec::for_valgrind(ll_bytes, ways, 64) {
            list.push(CacheGeometry {
                name: format!(
                    "2008-class: L1d 32 KiB, LL {}",
                    compact_bytes(ll_bytes as f64)
                ),
                i1,
                d1: classic_l1,
                ll,
            });
        }
    }
    if quick {
        let own_l3 = list
            .iter()
            .position(|g| g.name.starts_with("this CPU") && g.name.contains("L3"));
        let keep = own_l3.unwrap_or(list.len() - 1);
        list = vec![list.swap_remove(keep)];
    }
    list
}

/// Callgrind's event totals for the collected region.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SimCounts {
    pub ir: u64,
    pub dr: u64,
    pub dw: u64,
    pub i1mr: u64,
    pub d1mr: u64,
    pub d1mw: u64,
    pub ilmr: u64,
    pub dlmr: u64,
    pub dlmw: u64,
}

impl SimCounts {
    /// `self - earlier`, field by field (a count that shrank, which deterministic simulation
    /// does not produce, is clamped at zero).
    pub fn minus(&self, earlier: &SimCounts) -> SimCounts {
        SimCounts {
            ir: self.ir.saturating_sub(earlier.ir),
            dr: self.dr.saturating_sub(earlier.dr),
            dw: self.dw.saturating_sub(earlier.dw),
            i1mr: self.i1mr.saturating_sub(earlier.i1mr),
            d1mr: self.d1mr.saturating_sub(earlier.d1mr),
            d1mw: self.d1mw.saturating_sub(earlier.d1mw),
            ilmr: self.ilmr.saturating_sub(earlier.ilmr),
            dlmr: self.dlmr.saturating_sub(earlier.dlmr),
            dlmw: self.dlmw.saturating_sub(earlier.dlmw),
        }
    }

    pub fn l1_misses(&self) -> u64 {
        self.i1mr + self.d1mr + self.d1mw
    }

    pub fn ll_misses(&self) -> u64 {
        self.ilmr + self.dlmr + self.dlmw
    }

    /// Ir + 10·(I1mr + D1mr + D1mw) + 100·(ILmr + DLmr + DLmw).
    pub fn estimated_cycles(&self) -> f64 {
        self.ir as f64
            + L1_MISS_CYCLES * self.l1_misses() as f64
            + LL_MISS_CYCLES * self.ll_misses() as f64
    }
}

/// Reads the `events:` line and the `totals:` (or `summary:`) line of a callgrind out file.
pub fn parse_callgrind_out(text: &str) -> Result<SimCounts, String> {
    let events: Vec<&str> = text
        .lines()
        .find_map(|l| l.strip_prefix("events:"))
        .ok_or("callgrind output has no 'events:' line")?
        .split_whitespace()
        .collect();
    let totals = text
        .lines()
        .find_map(|l| l.strip_prefix("totals:"))
        .or_else(|| text.lines().find_map(|l| l.strip_prefix("summary:")))
        .ok_or("callgrind output has no 'totals:' or 'summary:' line")?;
    let values: Vec<u64> = totals
        .split_whitespace()
        .map(|v| {
            v.parse()
                .map_err(|_| format!("callgrind totals: bad number '{v}'"))
        })
        .collect::<Result<_, _>>()?;
    let get = |name: &str| -> Result<u64, String> {
        match events.iter().position(|e| *e == name) {
            // Callgrind leaves out trailing zero counts.
            Some(i) => Ok(values.get(i).copied().unwrap_or(0)),
            None => Err(format!(
                "callgrind output lacks the {name} event (was --cache-sim=yes given?)"
            )),
        }
    };
    Ok(SimCounts {
        ir: get("Ir")?,
        dr: get("Dr")?,
        dw: get("Dw")?,
        i1mr: get("I1mr")?,
        d1mr: get("D1mr")?,
        d1mw: get("D1mw")?,
        ilmr: get("ILmr")?,
        dlmr: get("DLmr")?,
        dlmw: get("DLmw")?,
    })
}

/// `valgrind-3.19.0`, or `None` when valgrind cannot be started.
pub fn valgrind_version() -> Option<String> {
    let output = Command::new("valgrind").arg("--version").output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// The steady-state counts of `lookups` lookups: the workload is simulated with `lookups` and
/// with `2 · lookups` (the first half of the longer run is the shorter run, input for input),
/// and the difference is returned, so cold misses — the first touch of code, tables and inputs —
/// cancel out.
pub fn simulate(
    exe: &Path,
    backend: &str,
    lookups: usize,
    eval_bytes: usize,
    geometry: &CacheGeometry,
    scratch: &Path,
) -> Result<SimCounts, String> {
    let short = simulate_once(exe, backend, lookups, eval_bytes, geometry, scratch)?;
    let long = simulate_once(exe, backend, 2 * lookups, eval_bytes, geometry, scratch)?;
    Ok(long.minus(&short))
}

/// Runs `exe e8-workload` for `backend` under callgrind with `geometry` once; `scratch` is a
/// folder for callgrind's out file.
pub fn simulate_once(
    exe: &Path,
    backend: &str,
    lookups: usize,
    eval_bytes: usize,
    geometry: &CacheGeometry,
    scratch: &Path,
) -> Result<SimCounts, String> {
    let out_file = scratch.join(format!("callgrind.{backend}.{}.out", std::process::id()));
    let output = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("--cache-sim=yes")
        .arg("--collect-atstart=no")
        .arg(format!("--toggle-collect=*{MEASURED_FUNCTION}*"))
        .arg(format!("--I1={}", geometry.i1.valgrind_arg()))
        .arg(format!("--D1={}", geometry.d1.valgrind_arg()))
        .arg(format!("--LL={}", geometry.ll.valgrind_arg()))
        .arg(format!("--callgrind-out-file={}", out_file.display()))
        .arg(exe)
        .args([
            "e8-workload",
            "--backend",
            backend,
            "--lookups",
            &lookups.to_string(),
            "--eval-bytes",
            &eval_bytes.to_string(),
        ])
        .output()
        .map_err(|e| format!("cannot start valgrind: {e}"))?;
    let text = std::fs::read_to_string(&out_file);
    let _ = std::fs::remove_file(&out_file);
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(format!(
            "valgrind failed on {backend} ({}): {last}",
            output.status
        ));
    }
    let counts =
        parse_callgrind_out(&text.map_err(|e| format!("callgrind wrote no output: {e}"))?)?;
    if counts.ir == 0 {
        return Err(format!(
            "callgrind collected nothing in {MEASURED_FUNCTION} for {backend}"
        ));
    }
    Ok(counts)
}

/// One simulated result.
#[derive(Clone, Debug, PartialEq)]
pub struct SimResult {
    pub backend: String,
    pub geometry: String,
    pub counts: SimCounts,
    pub lookups: usize,
    /// The pressure variant's evaluation buffer (0: lookups alone).
    pub eval_bytes: usize,
}

impl SimResult {
    fn per_lookup(&self, value: f64) -> f64 {
        value / self.lookups.max(1) as f64
    }
}

/// E8's method paragraph (also used where valgrind is missing).
pub fn method(lookups: usize, geometries: &[CacheGeometry]) -> String {
    let list = geometries
        .iter()
        .map(|g| {
            format!(
                "{} (I1 {}, D1 {}, LL {})",
                g.name,
                g.i1.describe(),
                g.d1.describe(),
                g.ll.describe()
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let double = 2 * lookups;
    format!(
        "Each backend runs the same fixed workload — {lookups} lookups over {OCCUPANCIES} random \
         occupancies (p = {DENSITY}), uniform random squares and all six slider kinds, seed \
         {WORKLOAD_SEED:#x} — under `valgrind --tool=callgrind --cache-sim=yes` on this kiki \
         binary, collecting only inside `{MEASURED_FUNCTION}` (`--collect-atstart=no \
         --toggle-collect`), so table building and input generation are not counted; each cell is the difference of \
         a run of {lookups} and one of {double} lookups (the shorter run is the longer one's first \
         half), so cold misses cancel and the counts are steady-state. The packed inputs, 4 bytes \
         a lookup, stream through D1 at 1/16 miss per lookup for every backend alike. Geometries \
         are given explicitly ({list}; valgrind needs a power-of-two set count, so associativity \
         is adjusted where needed). Simulation is deterministic: one run per cell. Estimated \
         cycles per lookup = (Ir + {L1_MISS_CYCLES}·(I1mr + D1mr + D1mw) + \
         {LL_MISS_CYCLES}·(ILmr + DLmr + DLmw)) / lookups — a rough in-order model with no \
         overlap of misses, for ranking, not for predicting wall time. Seed 004's scenario, \
         deterministically: every geometry again with {EVAL_READS} random 8-byte reads of an \
         evaluation buffer twice the LL's size after each lookup, and a run doing those reads \
         alone over the same inputs; a backend's marginal cost under pressure is its run minus \
         that one, per lookup. With only {OCCUPANCIES} occupancies the lookups alone touch a \
         small part of any table (at most {OCCUPANCIES} × 81 × 6 slider entries), so the \
         lookups-alone cells measure warm tables; the evaluation is what evicts them."
    )
}

/// The E8 section when valgrind cannot run here.
pub fn unavailable(reason: &str, lookups: usize, geometries: &[CacheGeometry]) -> Experiment {
    Experiment {
        id: "E8".into(),
        title: TITLE.into(),
        method: method(lookups, geometries),
        series: Vec::new(),
        tables: Vec::new(),
        plots: Vec::new(),
        findings: format!(
            "Not measured on this machine: {reason}. The other experiments are unaffected."
        ),
        summary: vec![
            ("available".into(), Json::Bool(false)),
            ("reason".into(), Json::str(reason)),
        ],
    }
}

pub const TITLE: &str = "simulated caches (valgrind callgrind)";

/// Builds the E8 experiment from simulated results (`failures`: backend/geometry pairs that
/// valgrind could not run, with why).
pub fn experiment(
    all_results: &[SimResult],
    failures: &[String],
    lookups: usize,
    geometries: &[CacheGeometry],
    valgrind: &str,
) -> Experiment {
    // Lookups alone here; the pressure variant is summarised by `pressure` below.
    let plain: Vec<SimResult> = all_results
        .iter()
        .filter(|r| r.eval_bytes == 0)
        .cloned()
        .collect();
    let results = &plain[..];
    let backends: Vec<String> = dedup(results.iter().map(|r| r.backend.clone()));
    let geometry_names: Vec<String> = geometries.iter().map(|g| g.name.clone()).collect();
    let find = |b: &str, g: &str| results.iter().find(|r| r.backend == b && r.geometry == g);
    let mut series = Vec::new();
    for r in results {
        let labels = vec![
            ("backend".to_string(), r.backend.clone()),
            ("geometry".to_string(), r.geometry.clone()),
        ];
        for (unit, value) in [
            ("Ir/lookup", r.counts.ir as f64),
            ("D1 misses/lookup", (r.counts.d1mr + r.counts.d1mw) as f64),
            ("LL misses/lookup", r.counts.ll_misses() as f64),
            ("estimated cycles/lookup", r.counts.estimated_cycles()),
        ] {
            series.push(Series {
                labels: labels.clone(),
                unit: unit.into(),
                samples: vec![r.per_lookup(value)],
            });
        }
    }
    let mut table = Table {
        headers: [
            "backend",
            "geometry",
            "Ir/lookup",
            "D1 misses/lookup",
            "LL misses/lookup",
            "est. cycles/lookup",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    for g in &geometry_names {
        for b in &backends {
            if let Some(r) = find(b, g) {
                table.rows.push(vec![
                    b.clone(),
                    g.clone(),
                    format!("{:.1}", r.per_lookup(r.counts.ir as f64)),
                    format!(
                        "{:.3}",
                        r.per_lookup((r.counts.d1mr + r.counts.d1mw) as f64)
                    ),
                    format!("{:.3}", r.per_lookup(r.counts.ll_misses() as f64)),
                    format!("{:.1}", r.per_lookup(r.counts.estimated_cycles())),
                ]);
            }
        }
    }
    let bar_plot =
        |stem: &str, title: &str, y_label: &str, value: &dyn Fn(&SimResult) -> f64, log_y: bool| {
            Plot {
                file_stem: stem.into(),
                title: title.into(),
                x_label: "simulated cache geometry".into(),
                y_label: y_label.into(),
                log_x: false,
                log_y,
                kind: PlotKind::Bar,
                categories: geometry_names.iter().map(|g| short_geometry(g)).collect(),
                markers: Vec::new(),
                lines: backends
                    .iter()
                    .map(|b| PlotLine {
                        name: b.clone(),
                        points: geometry_names
                            .iter()
                            .enumerate()
                            .filter_map(|(i, g)| find(b, g).map(|r| (i, value(r))))
                            .map(|(i, y)| Point {
                                x: i as f64,
                                y,
                                y_low: y,
                                y_high: y,
                            })
                            .collect(),
                    })
                    .collect(),
            }
        };
    let plots = if results.is_empty() {
        Vec::new()
    } else {
        vec![
            bar_plot(
                "e8-estimated-cycles",
                "E8 estimated cycles per lookup (simulated caches)",
                "estimated cycles / lookup",
                &|r| r.per_lookup(r.counts.estimated_cycles()),
                false,
            ),
            bar_plot(
                "e8-ll-misses",
                "E8 last-level misses per lookup (simulated caches)",
                "LL misses / lookup",
                &|r| r.per_lookup(r.counts.ll_misses() as f64),
                false,
            ),
        ]
    };
    let mut findings = Vec::new();
    let mut summary = vec![
        ("available".to_string(), Json::Bool(true)),
        ("valgrind".to_string(), Json::str(valgrind)),
    ];
    let mut best_per_geometry = Vec::new();
    for g in &geometry_names {
        let mut ranked: Vec<&SimResult> = results.iter().filter(|r| &r.geometry == g).collect();
        ranked.sort_by(|a, b| {
            a.counts
                .estimated_cycles()
                .total_cmp(&b.counts.estimated_cycles())
        });
        let (Some(best), Some(worst)) = (ranked.first(), ranked.last()) else {
            continue;
        };
        let cycles = |r: &SimResult| r.per_lookup(r.counts.estimated_cycles());
        let most_ll = ranked
            .iter()
            .max_by(|a, b| a.counts.ll_misses().cmp(&b.counts.ll_misses()))
            .expect("ranked is not empty");
        let most_ll_rate = most_ll.per_lookup(most_ll.counts.ll_misses() as f64);
        let ll_sentence = if most_ll_rate >= 0.01 {
            format!(
                "{} misses the last level most often, {most_ll_rate:.3} times per lookup",
                most_ll.backend
            )
        } else {
            "no backend misses the last level as often as once per 100 lookups".to_string()
        };
        findings.push(format!(
            "With {g}, {} is cheapest at {:.1} estimated cycles per lookup and {} dearest at {:.1} \
             ({:.1}×); {ll_sentence}.",
            best.backend,
            cycles(best),
            worst.backend,
            cycles(worst),
            cycles(worst) / cycles(best).max(1e-9),
        ));
        best_per_geometry.push((g.clone(), Json::str(best.backend.clone())));
    }
    if let Some(seed_case) = seed_prediction(results, &geometry_names) {
        findings.push(seed_case);
    }
    let mut tables = vec![table];
    let mut plots = plots;
    if let Some(under) = pressure(all_results, &geometry_names) {
        series.extend(under.series);
        tables.push(under.table);
        plots.push(under.plot);
        findings.extend(under.findings);
        summary.push((
            "best_backend_per_geometry_under_pressure".into(),
            Json::object(under.best),
        ));
    }
    if !failures.is_empty() {
        findings.push(format!("Not simulated: {}.", failures.join("; ")));
    }
    summary.push((
        "best_backend_per_geometry".into(),
        Json::object(best_per_geometry),
    ));
    summary.push(("lookups".into(), Json::Int(lookups as i128)));
    Experiment {
        id: "E8".into(),
        title: TITLE.into(),
        method: method(lookups, geometries),
        series,
        tables,
        plots,
        findings: findings.join(" "),
        summary,
    }
}

/// The pressure variant, summarised: what each backend's lookups add to the evaluation's own
/// counts (backend run minus the evaluation-alone run, per lookup).
struct Pressure {
    series: Vec<Series>,
    table: Table,
    plot: Plot,
    findings: Vec<String>,
    best: Vec<(String, Json)>,
}

fn pressure(results: &[SimResult], geometries: &[String]) -> Option<Pressure> {
    let under: Vec<&SimResult> = results.iter().filter(|r| r.eval_bytes > 0).collect();
    let alone = |g: &str| {
        under
            .iter()
            .find(|r| r.geometry == g && r.backend == EVAL_ALONE)
    };
    let plain = |b: &str, g: &str| {
        results
            .iter()
            .find(|r| r.eval_bytes == 0 && r.backend == b && r.geometry == g)
    };
    // (geometry, backend, eval bytes, marginal LL misses, marginal cycles, cycles alone)
    let mut rows: Vec<(String, String, usize, f64, f64, Option<f64>)> = Vec::new();
    for g in geometries {
        let Some(base) = alone(g) else { continue };
        for r in under
            .iter()
            .filter(|r| &r.geometry == g && r.backend != EVAL_ALONE)
        {
            let ll = r.per_lookup(r.counts.ll_misses() as f64)
                - base.per_lookup(base.counts.ll_misses() as f64);
            let cycles = r.per_lookup(r.counts.estimated_cycles())
                - base.per_lookup(base.counts.estimated_cycles());
            let without = plain(&r.backend, g).map(|p| p.per_lookup(p.counts.estimated_cycles()));
            rows.push((
                g.clone(),
                r.backend.clone(),
                r.eval_bytes,
                ll,
                cycles,
                without,
            ));
        }
    }
    if rows.is_empty() {
        return None;
    }
    let mut series = Vec::new();
    let mut table = Table {
        headers: [
            "backend",
            "geometry",
            "evaluation",
            "marginal LL misses/lookup",
            "marginal est. cycles/lookup",
            "× without evaluation",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    for (g, b, bytes, ll, cycles, without) in &rows {
        let labels = vec![
            ("backend".to_string(), b.clone()),
            ("geometry".to_string(), g.clone()),
            ("eval_bytes".to_string(), bytes.to_string()),
        ];
        for (unit, value) in [
            ("marginal LL misses/lookup", *ll),
            ("marginal estimated cycles/lookup", *cycles),
        ] {
            series.push(Series {
                labels: labels.clone(),
                unit: unit.into(),
                samples: vec![value],
            });
        }
        table.rows.push(vec![
            b.clone(),
            g.clone(),
            compact_bytes(*bytes as f64),
            format!("{ll:.3}"),
            format!("{cycles:.1}"),
            without.map_or("–".into(), |w| format!("{:.2}", cycles / w.max(1e-9))),
        ]);
    }
    let backends = dedup(rows.iter().map(|r| r.1.clone()));
    let shown: Vec<&String> = geometries
        .iter()
        .filter(|g| rows.iter().any(|r| &r.0 == *g))
        .collect();
    let plot = Plot {
        file_stem: "e8-pressure-cycles".into(),
        title: "E8 marginal cycles per lookup beside an evaluation of 2 × LL".into(),
        x_label: "simulated cache geometry".into(),
        y_label: "estimated cycles / lookup (minus evaluation alone)".into(),
        log_x: false,
        log_y: false,
        kind: PlotKind::Bar,
        categories: shown.iter().map(|g| short_geometry(g)).collect(),
        markers: Vec::new(),
        lines: backends
            .iter()
            .map(|b| PlotLine {
                name: b.clone(),
                points: shown
                    .iter()
                    .enumerate()
                    .filter_map(|(i, g)| {
                        rows.iter()
                            .find(|r| &r.0 == *g && &r.1 == b)
                            .map(|r| Point {
                                x: i as f64,
                                y: r.4,
                                y_low: r.4,
                                y_high: r.4,
                            })
                    })
                    .collect(),
            })
            .collect(),
    };
    let mut findings = Vec::new();
    let mut best = Vec::new();
    for g in &shown {
        let mut ranked: Vec<_> = rows.iter().filter(|r| &r.0 == *g).collect();
        ranked.sort_by(|a, b| a.4.total_cmp(&b.4));
        let (Some(first), Some(last)) = (ranked.first(), ranked.last()) else {
            continue;
        };
        let grew = |r: &(String, String, usize, f64, f64, Option<f64>)| {
            r.5.map_or(String::new(), |w| {
                format!(", ×{:.2} its cost alone", r.4 / w.max(1e-9))
            })
        };
        let mut sentence = format!(
            "Beside an evaluation of {} ({EVAL_READS} random reads per lookup) with {g}, {} adds \
             the least, {:.1} estimated cycles per lookup{}, and {} the most, {:.1}{}",
            compact_bytes(first.2 as f64),
            first.1,
            first.4,
            grew(first),
            last.1,
            last.4,
            grew(last),
        );
        // Who the pressure hurts most and least, relative to the same lookups without it.
        let mut growth: Vec<(&str, f64)> = ranked
            .iter()
            .filter_map(|r| r.5.map(|w| (r.1.as_str(), r.4 / w.max(1e-9))))
            .collect();
        growth.sort_by(|a, b| a.1.total_cmp(&b.1));
        if let (Some(least), Some(most)) = (growth.first(), growth.last()) {
            sentence.push_str(&format!(
                "; relative to its cost without the evaluation, {} is hurt most (×{:.2}) and {} \
                 least (×{:.2})",
                most.0, most.1, least.0, least.1
            ));
        }
        let find = |b: &str| ranked.iter().find(|r| r.1 == b);
        if let (Some(plain_magic), Some(dbb)) = (find("magic-plain"), find("dbb")) {
            sentence.push_str(&format!(
                "; magic-plain adds {:.3} LL misses per lookup to the evaluation's, dbb {:.3}",
                plain_magic.3, dbb.3
            ));
        }
        sentence.push('.');
        findings.push(sentence);
        best.push((
            format!("{g}, evaluation {}", compact_bytes(first.2 as f64)),
            Json::str(first.1.clone()),
        ));
    }
    Some(Pressure {
        series,
        table,
        plot,
        findings,
        best,
    })
}

/// What the data says about seed 004's claim for `magic-plain` (60.75 MiB of tables) against the
/// 2008-class caches: its LL miss rate there, next to the smallest-table backend's.
fn seed_prediction(results: &[SimResult], geometries: &[String]) -> Option<String> {
    let classic: Vec<&String> = geometries
        .iter()
        .filter(|g| g.starts_with("2008"))
        .collect();
    let mut parts = Vec::new();
    for g in classic {
        let plain = results
            .iter()
            .find(|r| &r.geometry == g && r.backend == "magic-plain")?;
        let best = results.iter().filter(|r| &r.geometry == g).min_by(|a, b| {
            a.counts
                .estimated_cycles()
                .total_cmp(&b.counts.estimated_cycles())
        })?;
        parts.push(format!(
            "{g}: magic-plain {:.3} LL misses and {:.1} cycles per lookup against {:.1} for {}",
            plain.per_lookup(plain.counts.ll_misses() as f64),
            plain.per_lookup(plain.counts.estimated_cycles()),
            best.per_lookup(best.counts.estimated_cycles()),
            best.backend
        ));
    }
    (!parts.is_empty()).then(|| {
        format!(
            "Seed 004's case, the 60.75 MiB table on a 2008-class cache — {}.",
            parts.join("; ")
        )
    })
}

/// A short category label for plots: `this CPU, LL=L3 32 MiB` / `2008, LL 12 MiB`.
fn short_geometry(name: &str) -> String {
    match name.split_once(": ") {
        Some((who, rest)) => {
            let ll = rest.split(", ").last().unwrap_or(rest);
            format!("{}: {ll}", who.trim_end_matches("-class"))
        }
        None => name.to_string(),
    }
}

fn dedup(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valgrind_specs_have_power_of_two_sets() {
        let twelve = CacheSpec::for_valgrind(12 << 20, 16, 64).unwrap();
        assert_eq!(twelve.ways, 24);
        assert!(((12 << 20) / (twelve.ways * 64)).is_power_of_two());
        assert_eq!(CacheSpec::for_valgrind(32 << 10, 8, 64).unwrap().ways, 8);
        assert_eq!(CacheSpec::for_valgrind(48 << 10, 12, 64).unwrap().ways, 12);
        let l2 = CacheSpec::for_valgrind(1280 << 10, 10, 64).unwrap();
        assert_eq!(l2.ways, 10);
        let odd = CacheSpec::for_valgrind(40 << 20, 16, 64).unwrap();
        assert!(((40 << 20) / (odd.ways * 64)).is_power_of_two());
        assert_eq!(CacheSpec::for_valgrind(1000, 8, 64), None);
        assert_eq!(CacheSpec::for_valgrind(4096, 8, 48), None);
    }

    #[test]
    fn geometries_full_and_quick() {
        let l1 = Some((48 << 10, 12, 64));
        let l2 = Some((2 << 20, 16, 64));
        let l3 = Some((105 << 20, 15, 64));
        let full = geometries(l1, l2, l3, false);
        assert_eq!(full.len(), 4);
        assert!(full[0].name.contains("LL = L2"));
        assert!(full[3].name.contains("12 MiB"));
        assert_eq!(full[3].ll.ways, 24);
        let quick = geometries(l1, l2, l3, true);
        assert_eq!(quick.len(), 1);
        assert!(quick[0].name.contains("L3"));
        let unknown = geometries(None, None, None, true);
        assert_eq!(unknown.len(), 1);
        assert!(unknown[0].name.starts_with("2008"));
    }

    #[test]
    fn parses_callgrind_totals() {
        let text = "version: 1\ncreator: callgrind-3.19.0\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n\
                    fn=(1) main\n0 5 1\nsummary: 1000 300 20 4 50 2 4 10\ntotals: 1000 300 20 4 50 2 4 10\n";
        let counts = parse_callgrind_out(text).unwrap();
        assert_eq!(counts.ir, 1000);
        assert_eq!(counts.d1mr, 50);
        assert_eq!(counts.dlmr, 10);
        assert_eq!(
            counts.dlmw, 0,
            "trailing zero counts are left out by callgrind"
        );
        assert_eq!(
            counts.estimated_cycles(),
            1000.0 + 10.0 * 56.0 + 100.0 * 14.0
        );
        assert!(parse_callgrind_out("events: Ir\ntotals: 5\n")
            .unwrap_err()
            .contains("Dr"));
        assert!(parse_callgrind_out("totals: 5\n").is_err());
        let later = SimCounts {
            ir: 1500,
            d1mr: 40,
            ..counts
        };
        let difference = later.minus(&counts);
        assert_eq!((difference.ir, difference.d1mr, difference.dr), (500, 0, 0));
    }

    #[test]
    fn workload_agrees_across_backends() {
        for eval_bytes in [0, 1 << 16] {
            let expected = run_workload("mailbox", 3000, WORKLOAD_SEED, eval_bytes).unwrap();
            assert_ne!(expected, 0);
            for name in registry::resolve("all").unwrap() {
                assert_eq!(
                    run_workload(name, 3000, WORKLOAD_SEED, eval_bytes).unwrap(),
                    expected,
                    "{name}"
                );
            }
        }
        assert_ne!(
            run_workload(EVAL_ALONE, 3000, WORKLOAD_SEED, 1 << 16).unwrap(),
            0
        );
    }

    #[test]
    fn evaluation_reads_stay_in_the_buffer_and_spread_over_it() {
        let len = 1000;
        let mut seen = vec![false; len];
        for k in 0..20_000 {
            let i = eval_index(k, len);
            assert!(i < len);
            seen[i] = true;
        }
        assert!(seen.iter().filter(|&&s| s).count() > 990);
    }

    #[test]
    fn experiment_from_results_names_best_and_seed_case() {
        let counts = |ir: u64, ll: u64| SimCounts {
            ir,
            dr: ir / 3,
            d1mr: ll * 2,
            dlmr: ll,
            ..SimCounts::default()
        };
        let geometries = geometries(None, None, None, false);
        let mut results = Vec::new();
        for g in &geometries {
            results.push(SimResult {
                backend: "qugiy".into(),
                geometry: g.name.clone(),
                counts: counts(40_000, 0),
                lookups: 1000,
                eval_bytes: 0,
            });
            results.push(SimResult {
                backend: "magic-plain".into(),
                geometry: g.name.clone(),
                counts: counts(15_000, 900),
                lookups: 1000,
                eval_bytes: 0,
            });
        }
        let e = experiment(&results, &[], 1000, &geometries, "valgrind-3.19.0");
        assert_eq!(e.tables[0].rows.len(), 4);
        assert_eq!(e.plots.len(), 2);
        assert_eq!(e.series.len(), 16);
        assert!(
            e.findings.contains("qugiy is cheapest at 40.0"),
            "{}",
            e.findings
        );
        assert!(
            e.findings.contains("magic-plain 0.900 LL misses"),
            "{}",
            e.findings
        );
        let best = e
            .summary
            .iter()
            .find(|(k, _)| k == "best_backend_per_geometry")
            .unwrap();
        assert_eq!(best.1.as_object().unwrap().len(), 2);
        assert!(!e.findings.contains("Beside an evaluation"));

        // The pressure variant on the first geometry: each backend minus evaluation alone.
        let g = geometries[0].name.clone();
        let eval = 8 << 20;
        for (backend, ir, ll) in [
            (EVAL_ALONE, 10_000, 2000),
            ("qugiy", 52_000, 2100),
            ("magic-plain", 30_000, 3500),
            ("dbb", 35_000, 2600),
        ] {
            results.push(SimResult {
                backend: backend.into(),
                geometry: g.clone(),
                counts: counts(ir, ll),
                lookups: 1000,
                eval_bytes: eval,
            });
        }
        let e = experiment(&results, &[], 1000, &geometries, "valgrind-3.19.0");
        assert_eq!(e.tables.len(), 2);
        assert_eq!(e.tables[1].rows.len(), 3);
        assert_eq!(e.plots.len(), 3);
        assert!(
            e.findings.contains("Beside an evaluation of 8 MiB"),
            "{}",
            e.findings
        );
        assert!(
            e.findings.contains(
                "magic-plain adds 1.500 LL misses per lookup to the evaluation's, dbb 0.600"
            ),
            "{}",
            e.findings
        );
        assert!(e
            .summary
            .iter()
            .any(|(k, _)| k == "best_backend_per_geometry_under_pressure"));
        // The lookups-alone table is unchanged by the pressure runs.
        assert_eq!(e.tables[0].rows.len(), 4);
    }
}
