//! E7, the seed's argument (seed 004): each backend's lookups interleaved with random reads
//! of an "evaluation" buffer of growing size E — does a big table lose once the evaluation
//! needs the cache?

use super::counter_log::CounterLog;
use super::{
    and_list, convert, fold, lookup, per_second_millions, point, series, summarise, Config, Input,
    Progress, MIXED,
};
use crate::backend::{Backend, Bitboard};
use crate::harness::machine::Machine;
use crate::harness::measure::{
    calibrate, interleaved, pin_to_cpu, time_ns, Case, CaseResult, Counters, PageBuffer, Pages,
    SampleConfig,
};
use crate::harness::results::{ExperimentResult, Plot, PlotKind, PlotLine, Point, Table};
use crate::harness::stats::{format_sig, paired_difference, Summary};
use crate::harness::workloads::{self, LookupItem, Policy};
use crate::registry::{self, BackendVisitor};
use crate::units::rounded_bytes;
use serde_json::Value as Json;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

pub const TITLE: &str = "Cache pressure: lookups against an evaluation buffer (seed 004)";

/// The label of the case that does the evaluation reads alone.
const EVAL_ALONE: &str = "evaluation alone";
/// Evaluation reads per lookup in the main sweeps.
const MAIN_READS: u32 = 4;
/// A lookup whose marginal cost rises above this multiple of its E = 0 cost "loses".
const LOSS_FACTOR: f64 = 1.25;

/// The `i`-th evaluation read's element index in a buffer of `n` elements: a multiplicative
/// hash of a counter (independent across reads, so they can overlap; no stride a prefetcher
/// could follow), identical for every backend.
#[inline(always)]
fn eval_index(i: u64, n: u64) -> usize {
    let mut h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^= h >> 29;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (((h >> 32) * n) >> 32) as usize
}

struct MakeCase<'a> {
    items: &'a [LookupItem],
    eval: &'a [u64],
    reads: u32,
}

impl<'a> BackendVisitor for MakeCase<'a> {
    type Output = Case<'a>;
    fn visit<B: Backend>(self, backend: B) -> Case<'a> {
        combined_case(
            backend,
            convert(&backend, self.items),
            self.eval,
            self.reads,
        )
    }
}

/// One lookup, then `reads` evaluation reads, per input; the eval read stream restarts at
/// every call so all cases read the same addresses.
fn combined_case<B: Backend>(
    backend: B,
    inputs: Vec<Input<B::Occupancy>>,
    eval: &[u64],
    reads: u32,
) -> Case<'_> {
    let n = inputs.len() as u64;
    let reads = if eval.is_empty() { 0 } else { reads };
    Case::new(B::info().name, n, move |reps| {
        let elements = eval.len() as u64;
        let mut counter = 0u64;
        let mut sum = 0u64;
        let mut folded = B::Bitboard::empty();
        for _ in 0..reps {
            for input in black_box(&inputs[..]) {
                folded ^= lookup::<B, MIXED>(&backend, input);
                for _ in 0..reads {
                    sum = sum.wrapping_add(eval[eval_index(counter, elements)]);
                    counter += 1;
                }
            }
        }
        sum ^ fold(folded)
    })
}

/// The evaluation reads alone, over the same number of iterations.
fn eval_alone_case(n: usize, eval: &[u64], reads: u32) -> Case<'_> {
    let reads = if eval.is_empty() { 0 } else { reads };
    Case::new(EVAL_ALONE, n as u64, move |reps| {
        let elements = eval.len() as u64;
        let mut counter = 0u64;
        let mut sum = 0u64;
        for _ in 0..reps {
            for _ in 0..black_box(n) {
                for _ in 0..reads {
                    sum = sum.wrapping_add(eval[eval_index(counter, elements)]);
                    counter += 1;
                }
            }
        }
        sum
    })
}

/// Evaluation sizes: 0, then log-spaced from 16 KiB to `max`.
pub fn eval_sizes(max: usize, per_octave: u32) -> Vec<usize> {
    let mut out = vec![0];
    let mut exponent = 14.0f64;
    while 2f64.powf(exponent) <= max as f64 + 0.5 {
        out.push((2f64.powf(exponent) as usize) / 64 * 64);
        exponent += 1.0 / per_octave as f64;
    }
    out
}

/// One measured point: variant, reads per lookup, E, case, ns per iteration samples; for the
/// two-thread variant also the evaluation thread's reads per ns during each sample.
#[derive(Clone, Debug)]
struct Measured {
    variant: &'static str,
    reads: u32,
    bytes: usize,
    case: String,
    ns: Vec<f64>,
    eval_reads_per_ns: Vec<f64>,
}

/// Per case its samples (and counters, if given); why `madvise` failed; huge-page bytes granted.
type SweepPoint = (Vec<CaseResult>, Option<String>, Option<usize>);

/// Runs every backend and the evaluation alone at one E, interleaved.
#[allow(clippy::too_many_arguments)]
fn sweep_point(
    backends: &[&'static str],
    items: &[LookupItem],
    bytes: usize,
    pages: Pages,
    reads: u32,
    sampling: &SampleConfig,
    counters: Option<&mut Counters>,
    progress: &mut dyn FnMut(f64),
) -> SweepPoint {
    let buffer = (bytes > 0).then(|| PageBuffer::new(bytes, pages, |i| i as u64));
    let eval: &[u64] = buffer.as_ref().map_or(&[], |b| b.as_slice());
    let mut cases: Vec<Case<'_>> = backends
        .iter()
        .filter_map(|name| registry::visit(name, MakeCase { items, eval, reads }).ok())
        .collect();
    cases.push(eval_alone_case(items.len(), eval, reads));
    let results = interleaved(&mut cases, sampling, counters, progress);
    let advice = buffer.as_ref().and_then(|b| b.advice.clone().err());
    let huge = buffer.as_ref().and_then(|b| b.huge_page_bytes());
    (results, advice, huge)
}

/// The two-thread variant at one E: lookups (no evaluation reads) on this thread, evaluation
/// reads in a loop on a thread pinned to `eval_cpu`; an idle case (the loop without lookups)
/// gives the evaluation thread's undisturbed rate.
fn thread_point(
    backends: &[&'static str],
    items: &[LookupItem],
    bytes: usize,
    eval_cpu: usize,
    sampling: &SampleConfig,
) -> Vec<(String, Vec<f64>, Vec<f64>)> {
    let buffer = PageBuffer::new(bytes.max(64), Pages::Small, |i| i as u64);
    let eval = buffer.as_slice();
    let done_reads = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let mut out = Vec::new();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let _ = pin_to_cpu(eval_cpu);
            let elements = eval.len() as u64;
            let mut counter = 0u64;
            let mut sum = 0u64;
            while !stop.load(Ordering::Relaxed) {
                for _ in 0..1024 {
                    sum = sum.wrapping_add(eval[eval_index(counter, elements)]);
                    counter += 1;
                }
                done_reads.fetch_add(1024, Ordering::Relaxed);
            }
            black_box(sum);
        });
        let mut cases: Vec<Case<'_>> = backends
            .iter()
            .filter_map(|name| {
                registry::visit(
                    name,
                    MakeCase {
                        items,
                        eval: &[],
                        reads: 0,
                    },
                )
                .ok()
            })
            .collect();
        cases.push(eval_alone_case(items.len(), &[], 0));
        cases.last_mut().expect("just pushed").name = "idle (no lookups)".to_string();
        let reps: Vec<u64> = cases.iter_mut().map(|c| calibrate(c, sampling)).collect();
        let mut ns = vec![Vec::new(); cases.len()];
        let mut rates = vec![Vec::new(); cases.len()];
        for round in 0..sampling.samples {
            for k in 0..cases.len() {
                let i = (round + k) % cases.len();
                let before = done_reads.load(Ordering::Relaxed);
                let took = time_ns(&mut cases[i].body, reps[i]);
                let after = done_reads.load(Ordering::Relaxed);
                ns[i].push(took / (reps[i] * cases[i].ops_per_rep) as f64);
                rates[i].push((after - before) as f64 / took);
            }
        }
        stop.store(true, Ordering::Relaxed);
        for ((case, ns), rates) in cases.iter().zip(ns).zip(rates) {
            out.push((case.name.clone(), ns, rates));
        }
    });
    out
}

pub fn run(config: &Config, progress: Progress<'_>) -> ExperimentResult {
    let machine = Machine::detect();
    let (backends, skipped) = config.backend_names();
    progress("generating lookups", 0.0);
    let n = config.pick(256, 4096, 16384);
    let workload = workloads::game_like(config.seed ^ 0xE7, Policy::Greedy, n);
    let items = workload.items;
    let max = config.pick(256 << 10, 64 << 20, 128 << 20);
    let sizes = eval_sizes(max, config.pick(1, 1, 2));
    let sampling = config.pick(
        SampleConfig {
            warmup: Duration::from_micros(100),
            samples: 3,
            min_sample: Duration::from_micros(100),
        },
        SampleConfig {
            warmup: Duration::from_millis(2),
            samples: 7,
            min_sample: Duration::from_millis(2),
        },
        SampleConfig {
            warmup: Duration::from_millis(20),
            samples: 15,
            min_sample: Duration::from_millis(5),
        },
    );
    // A few sizes for the two-thread and reads-per-lookup variants.
    let subset: Vec<usize> = {
        let l2 = machine.cache_bytes(2).unwrap_or(1 << 20);
        let l3 = machine.cache_bytes(3).unwrap_or(32 << 20);
        let mut s: Vec<usize> = [16 << 10, l2 / 2, l3 / 2, 2 * l3, max]
            .into_iter()
            .map(|b| {
                // The nearest size of the main sweep, so the variants line up with it.
                *sizes[1..]
                    .iter()
                    .min_by_key(|&&x| (x as f64 / b as f64).ln().abs().mul_add(1e6, 0.0) as u64)
                    .expect("sizes")
            })
            .collect();
        s.sort();
        s.dedup();
        s
    };
    let cpus = machine.logical_cpus;
    let main_cpu = config.pin_cpu.unwrap_or(0);
    let eval_cpu = (main_cpu + 1) % cpus.max(1);
    let thread_possible = cpus >= 2;

    let steps = 2 * sizes.len() + 2 * subset.len() + if thread_possible { subset.len() } else { 0 };
    let mut step = 0usize;
    let mut measured: Vec<Measured> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut huge_granted: Vec<(usize, Option<usize>)> = Vec::new();
    // Counters on the main sweep, where cache and TLB misses per iteration tell the story.
    let mut counter_log = CounterLog::open(&config.counter_events, "iteration");
    for (variant, pages) in [("4k", Pages::Small), ("huge", Pages::Huge)] {
        for &bytes in &sizes {
            let message = format!("{variant} pages, E = {}", rounded_bytes(bytes as f64));
            let base = step as f64 / steps as f64;
            let (results, advice, huge) = sweep_point(
                &backends,
                &items,
                bytes,
                pages,
                MAIN_READS,
                &sampling,
                counter_log.counters(),
                &mut |f| progress(&message, base + f / steps as f64),
            );
            if let Some(error) = advice {
                notes.push(format!("madvise for {variant} pages failed: {error}"));
            }
            if pages == Pages::Huge && bytes > 0 {
                huge_granted.push((bytes, huge));
            }
            let e = rounded_bytes(bytes as f64);
            for result in results {
                counter_log.record(&[("pages", variant), ("E", &e)], &result);
                measured.push(Measured {
                    variant,
                    reads: MAIN_READS,
                    bytes,
                    case: result.name,
                    ns: result.ns_per_op,
                    eval_reads_per_ns: Vec::new(),
                });
            }
            step += 1;
        }
    }
    for reads in [1u32, 16] {
        for &bytes in &subset {
            let message = format!(
                "{reads} reads per lookup, E = {}",
                rounded_bytes(bytes as f64)
            );
            let base = step as f64 / steps as f64;
            let (results, _, _) = sweep_point(
                &backends,
                &items,
                bytes,
                Pages::Small,
                reads,
                &sampling,
                None,
                &mut |f| progress(&message, base + f / steps as f64),
            );
            for result in results {
                measured.push(Measured {
                    variant: "4k",
                    reads,
                    bytes,
                    case: result.name,
                    ns: result.ns_per_op,
                    eval_reads_per_ns: Vec::new(),
                });
            }
            step += 1;
        }
    }
    if thread_possible {
        let pinned = pin_to_cpu(main_cpu);
        if let Err(reason) = &pinned {
            notes.push(format!("two-thread variant unpinned: {reason}"));
        }
        for &bytes in &subset {
            progress(
                &format!(
                    "evaluation on CPU {eval_cpu}, E = {}",
                    rounded_bytes(bytes as f64)
                ),
                step as f64 / steps as f64,
            );
            for (case, ns, rates) in thread_point(&backends, &items, bytes, eval_cpu, &sampling) {
                measured.push(Measured {
                    variant: "thread",
                    reads: 0,
                    bytes,
                    case,
                    ns,
                    eval_reads_per_ns: rates,
                });
            }
            step += 1;
        }
        if config.pin_cpu.is_none() && pinned.is_ok() {
            // Give the rest of the run back every CPU.
            crate::harness::measure::unpin(cpus);
        }
    } else {
        notes.push("two-thread variant skipped: only one CPU".to_string());
    }
    progress("done", 1.0);
    build(
        config,
        &machine,
        &backends,
        &skipped,
        &sizes,
        &subset,
        measured,
        &notes,
        &huge_granted,
        eval_cpu,
        main_cpu,
        &counter_log,
    )
}

/// Paired marginal cost per lookup: (backend − evaluation alone) per round, in ns.
fn marginal(
    measured: &[Measured],
    variant: &str,
    reads: u32,
    bytes: usize,
    backend: &str,
) -> Option<Summary> {
    let find = |case: &str| {
        measured.iter().find(|m| {
            m.variant == variant && m.reads == reads && m.bytes == bytes && m.case == case
        })
    };
    paired_difference(&find(backend)?.ns, &find(EVAL_ALONE)?.ns)
}

/// The smallest E from which the marginal cost stays above `LOSS_FACTOR` × its E = 0 cost.
fn loses_from(costs: &[(usize, f64)]) -> Option<usize> {
    let base = costs.iter().find(|(b, _)| *b == 0)?.1;
    let mut from = None;
    for &(bytes, cost) in costs.iter().filter(|(b, _)| *b > 0) {
        if cost > LOSS_FACTOR * base {
            from.get_or_insert(bytes);
        } else {
            from = None;
        }
    }
    from
}

#[allow(clippy::too_many_arguments)]
fn build(
    config: &Config,
    machine: &Machine,
    backends: &[&'static str],
    skipped: &[String],
    sizes: &[usize],
    subset: &[usize],
    measured: Vec<Measured>,
    notes: &[String],
    huge_granted: &[(usize, Option<usize>)],
    eval_cpu: usize,
    main_cpu: usize,
    counter_log: &CounterLog,
) -> ExperimentResult {
    let table_bytes = |name: &str| {
        registry::summaries()
            .into_iter()
            .find(|s| s.info.name == name)
            .map_or(0, |s| s.table_bytes)
    };
    let mut series_out = Vec::new();
    for m in &measured {
        let reads = m.reads.to_string();
        let bytes = m.bytes.to_string();
        let labels = [
            ("variant", m.variant),
            ("case", m.case.as_str()),
            ("eval_bytes", bytes.as_str()),
            ("reads_per_lookup", reads.as_str()),
        ];
        series_out.push(series(&labels, "ns/iteration", m.ns.clone()));
        if !m.eval_reads_per_ns.is_empty() {
            series_out.push(series(
                &labels,
                "evaluation reads/ns (other thread)",
                m.eval_reads_per_ns.clone(),
            ));
        }
    }
    // E = 0 sits at 8 KiB on the log axis (marked).
    let x_of = |bytes: usize| if bytes == 0 { 8192.0 } else { bytes as f64 };
    let mut markers = vec![(8192.0, "E = 0".to_string())];
    for level in 1..=3u8 {
        if let Some(bytes) = machine.cache_bytes(level) {
            markers.push((bytes as f64, format!("L{level}")));
        }
    }
    let costs = |variant: &str, reads: u32, backend: &str| -> Vec<(usize, Summary)> {
        sizes
            .iter()
            .filter_map(|&b| marginal(&measured, variant, reads, b, backend).map(|s| (b, s)))
            .collect()
    };
    let line_plot =
        |stem: &str, title: &str, y_label: &str, lines: Vec<PlotLine>, log_y: bool| Plot {
            file_stem: stem.to_string(),
            title: title.to_string(),
            x_label: "evaluation buffer E (bytes)".to_string(),
            y_label: y_label.to_string(),
            log_x: true,
            log_y,
            kind: PlotKind::Line,
            categories: Vec::new(),
            markers: markers.clone(),
            lines,
        };
    let mut plots = Vec::new();
    for (variant, words) in [("4k", "4 KiB pages"), ("huge", "huge pages")] {
        let lines = backends
            .iter()
            .map(|b| PlotLine {
                name: b.to_string(),
                points: costs(variant, MAIN_READS, b)
                    .iter()
                    .map(|(bytes, s)| clamp_point(point(x_of(*bytes), s)))
                    .collect(),
            })
            .collect();
        plots.push(line_plot(
            &format!("e7-marginal-cost-{variant}"),
            &format!("E7 marginal cost of a lookup beside {MAIN_READS} evaluation reads ({words})"),
            "ns per lookup beyond the evaluation alone (lower is better)",
            lines,
            false,
        ));
    }
    let combined_lines: Vec<PlotLine> = backends
        .iter()
        .copied()
        .chain([EVAL_ALONE])
        .map(|case| PlotLine {
            name: case.to_string(),
            points: sizes
                .iter()
                .filter_map(|&bytes| {
                    measured
                        .iter()
                        .find(|m| {
                            m.variant == "4k"
                                && m.reads == MAIN_READS
                                && m.bytes == bytes
                                && m.case == case
                        })
                        .map(|m| point(x_of(bytes), &summarise(&m.ns).map(per_second_millions)))
                })
                .collect(),
        })
        .collect();
    plots.push(line_plot(
        "e7-combined-rate",
        &format!("E7 combined rate: iterations of 1 lookup + {MAIN_READS} evaluation reads (4 KiB pages)"),
        "million iterations / s (higher is better)",
        combined_lines,
        true,
    ));
    let thread_cases: Vec<String> = {
        let mut c: Vec<String> = Vec::new();
        for m in measured.iter().filter(|m| m.variant == "thread") {
            if !c.contains(&m.case) {
                c.push(m.case.clone());
            }
        }
        c
    };
    if !thread_cases.is_empty() {
        let thread_lines = |rate: bool| -> Vec<PlotLine> {
            thread_cases
                .iter()
                .filter(|c| rate || c.as_str() != "idle (no lookups)")
                .map(|case| PlotLine {
                    name: case.clone(),
                    points: measured
                        .iter()
                        .filter(|m| m.variant == "thread" && &m.case == case)
                        .map(|m| {
                            if rate {
                                point(
                                    x_of(m.bytes),
                                    &summarise(&m.eval_reads_per_ns).map(|r| r * 1e3),
                                )
                            } else {
                                point(x_of(m.bytes), &summarise(&m.ns).map(per_second_millions))
                            }
                        })
                        .collect(),
                })
                .collect()
        };
        plots.push(line_plot(
            "e7-thread-eval-rate",
            &format!("E7 evaluation reads on CPU {eval_cpu} while each backend's lookups run on CPU {main_cpu}"),
            "million evaluation reads / s (higher is better)",
            thread_lines(true),
            false,
        ));
        plots.push(line_plot(
            "e7-thread-lookup-rate",
            &format!(
                "E7 lookups on CPU {main_cpu} while CPU {eval_cpu} reads the evaluation buffer"
            ),
            "million lookups / s (higher is better)",
            thread_lines(false),
            false,
        ));
    }
    let read_counts = [1u32, MAIN_READS, 16];
    let widest = *subset.last().unwrap_or(&0);
    let reads_lines: Vec<PlotLine> = backends
        .iter()
        .map(|b| PlotLine {
            name: b.to_string(),
            points: read_counts
                .iter()
                .filter_map(|&r| {
                    marginal(&measured, "4k", r, widest, b)
                        .map(|s| clamp_point(point(r as f64, &s)))
                })
                .collect(),
        })
        .collect();
    plots.push(Plot {
        file_stem: "e7-reads-per-lookup".to_string(),
        title: format!(
            "E7 marginal lookup cost against evaluation reads per lookup (E = {})",
            rounded_bytes(widest as f64)
        ),
        x_label: "evaluation reads per lookup".to_string(),
        y_label: "ns per lookup beyond the evaluation alone".to_string(),
        log_x: true,
        log_y: false,
        kind: PlotKind::Line,
        categories: Vec::new(),
        markers: Vec::new(),
        lines: reads_lines,
    });

    // ---- findings, table and summary ----
    let mut findings = Vec::new();
    let mut summary = Vec::new();
    let mut loss_json = Vec::new();
    let mut rows = Vec::new();
    let max_e = *sizes.last().unwrap_or(&0);
    let mut at_max: Vec<AtMax> = Vec::new();
    for &backend in backends {
        let mut row = vec![
            backend.to_string(),
            rounded_bytes(table_bytes(backend) as f64),
        ];
        let mut from_text = Vec::new();
        for variant in ["4k", "huge"] {
            let c = costs(variant, MAIN_READS, backend);
            let medians: Vec<(usize, f64)> = c.iter().map(|(b, s)| (*b, s.median)).collect();
            let base = medians.iter().find(|(b, _)| *b == 0).map(|x| x.1);
            let last = medians.iter().find(|(b, _)| *b == max_e).map(|x| x.1);
            let from = loses_from(&medians);
            if variant == "4k" {
                row.push(base.map_or("–".into(), format_sig));
                let spread = c
                    .iter()
                    .find(|(b, _)| *b == max_e)
                    .map(|(_, s)| (s.min, s.max));
                if let (Some(b0), Some(l), Some((low, high))) = (base, last, spread) {
                    at_max.push(AtMax {
                        backend,
                        base: b0,
                        last: l,
                        last_low: low,
                        last_high: high,
                    });
                }
            }
            row.push(last.map_or("–".into(), format_sig));
            row.push(from.map_or("never".into(), |b| rounded_bytes(b as f64)));
            loss_json.push((
                format!("{backend}/{variant}"),
                from.map_or(Json::Null, |b| Json::from(b as u64)),
            ));
            from_text.push((variant, from, base, last));
        }
        rows.push(row);
        let (_, from4k, base, last) = from_text[0];
        let (_, from_huge, _, last_huge) = from_text[1];
        if let (Some(base), Some(last)) = (base, last) {
            findings.push(format!(
                "{backend} ({} of tables): {:.2} ns per lookup at E = 0, {} at E = {}{}{}.",
                rounded_bytes(table_bytes(backend) as f64),
                base,
                cost_text(last, base),
                rounded_bytes(max_e as f64),
                match from4k {
                    Some(b) => format!(
                        "; it loses (above {LOSS_FACTOR}× its E = 0 cost for good) from E = {}",
                        rounded_bytes(b as f64)
                    ),
                    None => format!("; it never stays above {LOSS_FACTOR}× its E = 0 cost"),
                },
                match (from_huge, last_huge) {
                    (Some(b), Some(h)) => format!(
                        "; with huge pages it loses from E = {} ({} at the largest E)",
                        rounded_bytes(b as f64),
                        cost_text(h, base)
                    ),
                    (None, Some(h)) => format!(
                        "; with huge pages it never loses ({} at the largest E)",
                        cost_text(h, base)
                    ),
                    _ => String::new(),
                }
            ));
        }
    }
    // How many marginal costs the noise leaves unresolved (spread wider than the value).
    let mut points = 0;
    let mut unresolved = 0;
    for m in measured
        .iter()
        .filter(|m| m.variant != "thread" && m.case != EVAL_ALONE)
    {
        if let Some(s) = marginal(&measured, m.variant, m.reads, m.bytes, &m.case) {
            points += 1;
            if s.max - s.min > s.median.abs() {
                unresolved += 1;
            }
        }
    }
    if unresolved > 0 {
        findings.push(format!(
            "{unresolved} of {points} marginal costs have a min–max spread wider than their \
             median: there the evaluation's own variation swamps the lookup, and a crossover \
             read from them is not reliable (rerun on a quiet machine, or with more samples)."
        ));
    }
    summary.push((
        "unresolved_points".to_string(),
        Json::from(format!("{unresolved} of {points}")),
    ));
    summary.push((
        "loses_from_bytes".to_string(),
        Json::Object(loss_json.into_iter().collect()),
    ));
    // Leader changes along the 4 KiB sweep: the crossover points.
    let mut leaders: Vec<(usize, &str)> = Vec::new();
    for &bytes in sizes {
        let best = backends
            .iter()
            .filter_map(|b| marginal(&measured, "4k", MAIN_READS, bytes, b).map(|s| (*b, s.median)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((b, _)) = best {
            if leaders.last().map(|l| l.1) != Some(b) {
                leaders.push((bytes, b));
            }
        }
    }
    if let Some((_, first)) = leaders.first() {
        let changes: Vec<String> = leaders[1..]
            .iter()
            .map(|(bytes, b)| format!("{b} from E = {}", rounded_bytes(*bytes as f64)))
            .collect();
        findings.push(if changes.is_empty() {
            format!("{first} has the cheapest lookups at every E.")
        } else {
            format!(
                "The cheapest lookups belong to {first} at E = 0, then {} (crossover points).",
                and_list(&changes)
            )
        });
    }
    summary.push((
        "leaders".to_string(),
        Json::Array(
            leaders
                .iter()
                .map(|(bytes, b)| serde_json::json!({"from_bytes": *bytes as u64, "backend": *b}))
                .collect(),
        ),
    ));
    // The seed's prediction: magic-plain's 60.75 MiB falls behind DBB's small tables.
    let verdict = seed_verdict(&at_max, max_e, &|b| table_bytes(b));
    findings.push(verdict.clone());
    summary.push(("seed_004_verdict".to_string(), Json::from(verdict)));
    // Reads per lookup: does the verdict depend on memory-level parallelism?
    let mlp: Vec<String> = backends
        .iter()
        .filter_map(|b| {
            let one = marginal(&measured, "4k", 1, widest, b)?.median;
            let sixteen = marginal(&measured, "4k", 16, widest, b)?.median;
            Some(format!("{b} {one:.2} → {sixteen:.2} ns"))
        })
        .collect();
    if !mlp.is_empty() {
        findings.push(format!(
            "From 1 to 16 evaluation reads per lookup at E = {}, the marginal lookup cost goes: \
             {} (a cost that falls means the lookups' work hides behind evaluation misses; one \
             that rises means the lookups wait behind them or lose their table lines).",
            rounded_bytes(widest as f64),
            and_list(&mlp)
        ));
    }
    // Two threads: what each backend's lookups cost the evaluation on the other core.
    let thread_at = |case: &str, bytes: usize| {
        measured
            .iter()
            .find(|m| m.variant == "thread" && m.case == case && m.bytes == bytes)
    };
    if let Some(idle) = thread_at("idle (no lookups)", widest) {
        let idle_rate = summarise(&idle.eval_reads_per_ns).median;
        let hits: Vec<String> = backends
            .iter()
            .filter_map(|b| {
                let m = thread_at(b, widest)?;
                let rate = summarise(&m.eval_reads_per_ns).median;
                Some(format!("{b} {:+.0} %", (rate / idle_rate - 1.0) * 100.0))
            })
            .collect();
        findings.push(format!(
            "With the evaluation on the other CPU (E = {}), its read rate beside each backend's \
             lookups, against its rate beside an idle loop ({:.1} M reads/s): {}.",
            rounded_bytes(widest as f64),
            idle_rate * 1e3,
            and_list(&hits)
        ));
    }
    let mut headers = vec!["backend".to_string(), "tables".to_string()];
    headers.extend([
        "ns/lookup at E = 0".to_string(),
        format!("ns at E = {} (4 KiB)", rounded_bytes(max_e as f64)),
        "loses from (4 KiB)".to_string(),
        format!("ns at E = {} (huge)", rounded_bytes(max_e as f64)),
        "loses from (huge)".to_string(),
    ]);
    let thp = &machine.transparent_huge_pages;
    let table_pages = match thp.as_str() {
        "always" => "may be backed by huge pages wherever the kernel finds 2 MiB-aligned room (THP `always`)",
        "madvise" => "stay on 4 KiB pages, since nothing advises them (THP `madvise`)",
        "never" => "are on 4 KiB pages (THP `never`)",
        _ => "use whatever pages the kernel chose (THP setting unknown)",
    };
    let granted: Vec<String> = huge_granted
        .iter()
        .filter(|(b, _)| *b >= 4 << 20)
        .map(|(b, h)| {
            format!(
                "{}: {}",
                rounded_bytes(*b as f64),
                h.map_or("unknown".into(), |h| rounded_bytes(h as f64))
            )
        })
        .collect();
    let mut method = format!(
        "Each iteration does one sliding lookup (the mixed slider kinds of {} lookups from greedy-playout \
         positions, seed {:#x}, identical for every backend) and then {MAIN_READS} random 8-byte \
         reads of an evaluation buffer of E bytes (addresses from a counter hash, the same for \
         every backend); a case doing the evaluation reads alone runs beside the backends, \
         all interleaved round-robin ({} samples, ≥ {:?} each). The marginal cost of a lookup \
         is (backend − evaluation alone) per iteration, paired by round; points show its median \
         with min–max. E = 0 and then {} to {}, once on 4 KiB pages (MADV_NOHUGEPAGE) and once \
         on huge pages (MADV_HUGEPAGE; huge-page bytes granted: {}). The backends' own tables \
         are allocated by the backends and {table_pages}. Variants: 1 and 16 reads per lookup \
         at E in {}; and the evaluation reads in a loop on a second thread pinned to CPU \
         {eval_cpu} (shared L3 only where the caches say so) while the lookups run alone on CPU \
         {main_cpu}. \"Loses from\": the smallest E from which the marginal cost stays above \
         {LOSS_FACTOR}× its E = 0 cost.",
        config.pick(256, 4096, 16384),
        config.seed ^ 0xE7,
        sampling_samples(config),
        sampling_min(config),
        rounded_bytes(*sizes.get(1).unwrap_or(&0) as f64),
        rounded_bytes(max_e as f64),
        if granted.is_empty() { "not measured".to_string() } else { granted.join(", ") },
        subset.iter().map(|b| rounded_bytes(*b as f64)).collect::<Vec<_>>().join(", "),
    );
    for note in notes.iter().chain(skipped) {
        method.push_str(&format!(" {note}."));
    }
    // Counter tables: 4 KiB pages, E = 0 and the variants' sizes (every E is in results.json).
    let shown: Vec<String> = std::iter::once(0)
        .chain(subset.iter().copied())
        .map(|b| rounded_bytes(b as f64))
        .collect();
    let counter_tables = counter_log.pivots("backend", "E", |label| {
        label("pages").as_deref() == Some("4k") && label("E").is_some_and(|e| shown.contains(&e))
    });
    method.push_str(&format!(" {}", counter_log.note()));
    method.push_str(if counter_tables.is_empty() {
        "."
    } else {
        " (tables: 4 KiB pages at E = 0 and the variants' sizes; every E and the huge-page \
         sweep are in results.json)."
    });
    series_out.extend(counter_log.series());
    let mut tables = vec![Table { headers, rows }];
    tables.extend(counter_tables);
    ExperimentResult {
        wall_seconds: None,
        id: "E7".to_string(),
        title: TITLE.to_string(),
        method,
        series: series_out,
        tables,
        plots,
        findings: findings.join(" "),
        summary,
    }
}

fn sampling_samples(config: &Config) -> usize {
    config.pick(3, 7, 15)
}

fn sampling_min(config: &Config) -> Duration {
    config.pick(
        Duration::from_micros(100),
        Duration::from_millis(2),
        Duration::from_millis(5),
    )
}

/// A marginal cost for the findings: `3.10 ns (×1.7)`, or, when the lookups disappeared behind
/// the evaluation's misses, says so.
fn cost_text(cost: f64, base: f64) -> String {
    if cost <= 0.0 {
        format!("no measurable cost ({cost:.2} ns: hidden behind the evaluation's misses or noise)")
    } else {
        format!("{cost:.2} ns (×{:.2})", cost / base.max(1e-3))
    }
}

/// Marginal costs can come out slightly negative when the lookups hide entirely behind the
/// evaluation misses; the plots keep the point but not below zero.
fn clamp_point(p: Point) -> Point {
    Point {
        x: p.x,
        y: p.y.max(0.0),
        y_low: p.y_low.max(0.0).min(p.y.max(0.0)),
        y_high: p.y_high.max(0.0),
    }
}

/// One backend's marginal lookup cost at E = 0 (median) and at the largest E (median with the
/// min–max of its samples), for the seed's verdict.
#[derive(Clone, Copy, Debug)]
struct AtMax<'a> {
    backend: &'a str,
    base: f64,
    last: f64,
    last_low: f64,
    last_high: f64,
}

/// Words on whether `magic-plain` behaves as seed 004 predicted: that its 60.75 MiB of tables
/// fall behind DBB's small tables once an evaluation competes for the cache. A difference only
/// counts where the two backends' sample ranges at the largest E do not overlap, so the verdict
/// does not flip with run-to-run noise.
fn seed_verdict(at_max: &[AtMax<'_>], max_e: usize, table_bytes: &dyn Fn(&str) -> usize) -> String {
    let get = |name: &str| at_max.iter().find(|a| a.backend == name).copied();
    let Some(plain) = get("magic-plain") else {
        let biggest = at_max
            .iter()
            .max_by_key(|a| table_bytes(a.backend))
            .map(|a| {
                format!(
                    " Among the backends measured, {} has the largest tables ({}) and went from \
                     {:.2} to {:.2} ns.",
                    a.backend,
                    rounded_bytes(table_bytes(a.backend) as f64),
                    a.base,
                    a.last
                )
            })
            .unwrap_or_default();
        return format!(
            "magic-plain (the seed's 60.75 MiB table) is not registered in this build, so the \
             seed's prediction was not tested here.{biggest}"
        );
    };
    let Some(dbb) = get("dbb") else {
        return format!(
            "magic-plain went from {:.2} to {:.2} ns per lookup, but dbb (the seed's choice) was \
             not measured, so there is nothing to compare it with.",
            plain.base, plain.last
        );
    };
    // Ordering of two sample ranges: clearly above, clearly below, or overlapping.
    let compare = |low_a: f64, high_a: f64, low_b: f64, high_b: f64| {
        if low_a > high_b {
            std::cmp::Ordering::Greater
        } else if high_a < low_b {
            std::cmp::Ordering::Less
        } else {
            std::cmp::Ordering::Equal
        }
    };
    use std::cmp::Ordering::{Equal, Greater, Less};
    let slower = compare(plain.last_low, plain.last_high, dbb.last_low, dbb.last_high);
    let growth = |a: AtMax<'_>| {
        let base = a.base.max(1e-3);
        (a.last_low / base, a.last / base, a.last_high / base)
    };
    let (plain_low, plain_growth, plain_high) = growth(plain);
    let (dbb_low, dbb_growth, dbb_high) = growth(dbb);
    let hurt = compare(plain_low, plain_high, dbb_low, dbb_high);
    let verdict = match (slower, hurt) {
        (Greater, Greater) => "holds on this machine".to_string(),
        (Greater, other) => format!(
            "holds only in part: magic-plain is slower than dbb at the largest E, but {}",
            if other == Equal {
                "the pressure hurts the two alike (their ranges overlap)"
            } else {
                "the pressure hurts it less than dbb"
            }
        ),
        (Equal, Greater) => "holds only in part: magic-plain suffers more from the pressure, but \
                             at the largest E the two are level within their sample ranges"
            .to_string(),
        (Equal, _) => "does not hold on this machine: at the largest E the two are level within \
                       their sample ranges, and magic-plain is no more hurt by the pressure"
            .to_string(),
        (Less, _) => {
            "does not hold on this machine: magic-plain is faster than dbb at the largest E"
                .to_string()
        }
    };
    format!(
        "Seed 004's prediction (magic-plain's 60.75 MiB of tables lose to DBB once an evaluation \
         fills the cache) {verdict}: at E = 0 magic-plain costs {:.2} ns and dbb {:.2} ns per \
         lookup; at E = {} magic-plain {:.2} ns ({:.2}–{:.2}, ×{plain_growth:.2}) and dbb {:.2} \
         ns ({:.2}–{:.2}, ×{dbb_growth:.2}).",
        plain.base,
        dbb.base,
        rounded_bytes(max_e as f64),
        plain.last,
        plain.last_low,
        plain.last_high,
        dbb.last,
        dbb.last_low,
        dbb.last_high,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::experiments::tests::assert_well_formed;

    #[test]
    fn losing_point_needs_the_cost_to_stay_high() {
        let costs = [
            (0, 2.0),
            (16, 2.1),
            (32, 2.6),
            (64, 2.2),
            (128, 3.0),
            (256, 4.0),
        ];
        assert_eq!(loses_from(&costs), Some(128));
        assert_eq!(loses_from(&[(0, 2.0), (16, 2.0)]), None);
        assert_eq!(loses_from(&[(16, 9.0)]), None);
    }

    #[test]
    fn eval_indices_stay_in_range_and_spread() {
        let n = 1000u64;
        let mut seen = vec![false; n as usize];
        for i in 0..20_000 {
            let index = eval_index(i, n);
            assert!(index < n as usize);
            seen[index] = true;
        }
        assert!(seen.iter().filter(|&&s| s).count() > 990);
        assert_eq!(
            eval_sizes(64 << 10, 1),
            vec![0, 16 << 10, 32 << 10, 64 << 10]
        );
    }

    #[test]
    fn verdict_words_follow_the_numbers() {
        let tb = |_: &str| 0usize;
        let at = |backend, base, low, last, high| AtMax {
            backend,
            base,
            last,
            last_low: low,
            last_high: high,
        };
        let verdict =
            |plain: AtMax<'static>, dbb: AtMax<'static>| seed_verdict(&[plain, dbb], 1 << 27, &tb);
        let holds = verdict(
            at("magic-plain", 2.0, 8.5, 9.0, 9.5),
            at("dbb", 2.5, 2.8, 3.0, 3.2),
        );
        assert!(holds.contains("holds on this machine"), "{holds}");
        let not = verdict(
            at("magic-plain", 2.0, 2.1, 2.2, 2.3),
            at("dbb", 2.5, 2.8, 3.0, 3.2),
        );
        assert!(not.contains("faster than dbb"), "{not}");
        // Slower, but the growth ranges overlap (the case that flipped between two full runs).
        let alike = verdict(
            at("magic-plain", 3.27, 26.0, 28.74, 31.0),
            at("dbb", 2.41, 19.0, 20.64, 23.0),
        );
        assert!(alike.contains("hurts the two alike"), "{alike}");
        let level = verdict(
            at("magic-plain", 2.0, 8.0, 9.0, 10.0),
            at("dbb", 2.5, 7.0, 8.0, 9.5),
        );
        assert!(
            level.contains("level within their sample ranges"),
            "{level}"
        );
        let absent = seed_verdict(&[at("dbb", 2.5, 2.8, 3.0, 3.2)], 1 << 27, &tb);
        assert!(absent.contains("not registered"), "{absent}");
    }

    #[test]
    fn smoke_run_is_well_formed() {
        let config = Config {
            backends: vec!["qugiy".to_string(), "dbb".to_string()],
            ..Config::smoke()
        };
        let experiment = run(&config, &mut |_, _| {});
        assert_well_formed(&experiment);
        assert!(experiment
            .summary
            .iter()
            .any(|(k, _)| k == "loses_from_bytes"));
        assert!(experiment
            .summary
            .iter()
            .any(|(k, _)| k == "seed_004_verdict"));
        assert!(experiment.findings.contains("qugiy"));
    }
}
