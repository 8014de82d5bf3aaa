//! E7's measuring: the workload cases, the sizes swept, and the timing loops that fill a
//! [`Measurement`].

use super::{EVAL_ALONE, IDLE, MAIN_READS};
use crate::backend::{Backend, Bitboard};
use crate::harness::experiments::counter_log::CounterLog;
use crate::harness::experiments::{convert, fold, lookup, Config, Input, Progress, MIXED};
use crate::harness::invocations;
use crate::harness::machine::Machine;
use crate::harness::measure::{
    calibrate, interleaved, pin_to_cpu, time_ns, Case, CaseResult, Counters, PageBuffer, Pages,
    SampleConfig,
};
use crate::harness::workloads::{self, eval_index, LookupItem, Policy};
use crate::registry::{self, BackendVisitor};
use crate::units::rounded_bytes;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Everything E7 measured, and the settings the method paragraph reports.
pub(super) struct Measurement {
    pub machine: Machine,
    pub backends: Vec<&'static str>,
    /// Backends asked for but not measured, with the reason.
    pub skipped: Vec<String>,
    /// Lookups per iteration set and the seed they were generated from.
    pub lookups: usize,
    pub workload_seed: u64,
    pub sampling: SampleConfig,
    /// Evaluation sizes of the main sweeps (0 first).
    pub sizes: Vec<usize>,
    /// The few sizes of the reads-per-lookup and two-thread variants.
    pub subset: Vec<usize>,
    pub eval_cpu: usize,
    pub main_cpu: usize,
    pub measured: Vec<Measured>,
    /// Sentences for the method paragraph (failed `madvise`, unpinned or skipped variants).
    pub notes: Vec<String>,
    /// Per huge-page E, the huge-page bytes the kernel granted (if it says).
    pub huge_granted: Vec<(usize, Option<usize>)>,
    pub counter_log: CounterLog,
}

/// One measured point: variant, reads per lookup, E, case, ns per iteration samples; for the
/// two-thread variant also the evaluation thread's reads per ns during each sample.
#[derive(Clone, Debug)]
pub(super) struct Measured {
    pub variant: &'static str,
    pub reads: u32,
    pub bytes: usize,
    pub case: String,
    pub ns: Vec<f64>,
    pub eval_reads_per_ns: Vec<f64>,
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
        let elements = eval.len();
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
        let elements = eval.len();
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

/// What every point runs: the backends over the same lookups, sampled alike.
struct Setup<'a> {
    backends: &'a [&'static str],
    items: &'a [LookupItem],
    sampling: &'a SampleConfig,
}

/// Per case its samples (and counters, if given); why `madvise` failed; huge-page bytes granted.
type SweepPoint = (Vec<CaseResult>, Option<String>, Option<usize>);

/// Runs every backend and the evaluation alone at one E, interleaved.
fn sweep_point(
    setup: &Setup<'_>,
    bytes: usize,
    pages: Pages,
    reads: u32,
    counters: Option<&mut Counters>,
    progress: &mut dyn FnMut(f64),
) -> SweepPoint {
    let items = setup.items;
    let buffer = (bytes > 0).then(|| PageBuffer::new(bytes, pages, |i| i as u64));
    let eval: &[u64] = buffer.as_ref().map_or(&[], |b| b.as_slice());
    let mut cases: Vec<Case<'_>> = setup
        .backends
        .iter()
        .filter_map(|name| registry::visit(name, MakeCase { items, eval, reads }).ok())
        .collect();
    cases.push(eval_alone_case(items.len(), eval, reads));
    let results = interleaved(&mut cases, setup.sampling, counters, progress);
    let advice = buffer.as_ref().and_then(|b| b.advice.clone().err());
    let huge = buffer.as_ref().and_then(|b| b.huge_page_bytes());
    (results, advice, huge)
}

/// The two-thread variant at one E: lookups (no evaluation reads) on this thread, evaluation
/// reads in a loop on a thread pinned to `eval_cpu`; an idle case (the loop without lookups)
/// gives the evaluation thread's undisturbed rate.
fn thread_point(
    setup: &Setup<'_>,
    bytes: usize,
    eval_cpu: usize,
) -> Vec<(String, Vec<f64>, Vec<f64>)> {
    let (items, sampling) = (setup.items, setup.sampling);
    let buffer = PageBuffer::new(bytes.max(64), Pages::Small, |i| i as u64);
    let eval = buffer.as_slice();
    let done_reads = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let mut out = Vec::new();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let _ = pin_to_cpu(eval_cpu);
            let elements = eval.len();
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
        let mut cases: Vec<Case<'_>> = setup
            .backends
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
        cases.last_mut().expect("just pushed").name = IDLE.to_string();
        let reps: Vec<u64> = cases.iter_mut().map(|c| calibrate(c, sampling)).collect();
        let mut ns = vec![Vec::new(); cases.len()];
        let mut rates = vec![Vec::new(); cases.len()];
        let (offset, _) = invocations::invocation();
        for round in 0..invocations::rounds(sampling.samples) {
            for k in 0..cases.len() {
                let i = (round + k + offset) % cases.len();
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

/// Progress over every point of every sweep: point `done` of `total`, each point reporting
/// its own fraction.
struct Steps<'a> {
    progress: Progress<'a>,
    done: usize,
    total: usize,
}

impl Steps<'_> {
    fn report(&mut self, message: &str, fraction_of_point: f64) {
        let base = self.done as f64 / self.total as f64;
        (self.progress)(message, base + fraction_of_point / self.total as f64);
    }
}

fn sampling(config: &Config) -> SampleConfig {
    config.pick(
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
    )
}

/// A few sizes for the two-thread and reads-per-lookup variants: around L2, L3 and beyond,
/// each the nearest size of the main sweep so the variants line up with it.
fn variant_sizes(machine: &Machine, sizes: &[usize], max: usize) -> Vec<usize> {
    let l2 = machine.cache_bytes(2).unwrap_or(1 << 20);
    let l3 = machine.cache_bytes(3).unwrap_or(32 << 20);
    let mut s: Vec<usize> = [16 << 10, l2 / 2, l3 / 2, 2 * l3, max]
        .into_iter()
        .map(|b| {
            *sizes[1..]
                .iter()
                .min_by_key(|&&x| (x as f64 / b as f64).ln().abs().mul_add(1e6, 0.0) as u64)
                .expect("sizes")
        })
        .collect();
    s.sort();
    s.dedup();
    s
}

/// Measures everything E7 reports, in order: the main sweeps, the reads-per-lookup variant and
/// (with two CPUs) the two-thread variant.
pub(super) fn measure(config: &Config, progress: Progress<'_>) -> Measurement {
    let machine = Machine::detect();
    let (backends, skipped) = config.backend_names();
    progress("generating lookups", 0.0);
    let lookups = config.pick(256, 4096, 16384);
    let workload_seed = config.seed ^ 0xE7;
    let items = workloads::game_like(workload_seed, Policy::Greedy, lookups).items;
    let max = config.pick(256 << 10, 64 << 20, 128 << 20);
    let sizes = eval_sizes(max, config.pick(1, 1, 2));
    let subset = variant_sizes(&machine, &sizes, max);
    let main_cpu = config.pin_cpu.unwrap_or(0);
    let eval_cpu = (main_cpu + 1) % machine.logical_cpus.max(1);
    let thread_possible = machine.logical_cpus >= 2;
    let total = 2 * sizes.len() + 2 * subset.len() + if thread_possible { subset.len() } else { 0 };
    let mut m = Measurement {
        machine,
        backends,
        skipped,
        lookups,
        workload_seed,
        sampling: sampling(config),
        sizes,
        subset,
        eval_cpu,
        main_cpu,
        measured: Vec::new(),
        notes: Vec::new(),
        huge_granted: Vec::new(),
        // Counters on the main sweep, where cache and TLB misses per iteration tell the story.
        counter_log: CounterLog::open(&config.counter_events, "iteration"),
    };
    let mut steps = Steps {
        progress,
        done: 0,
        total,
    };
    main_sweeps(&mut m, &items, &mut steps);
    reads_sweeps(&mut m, &items, &mut steps);
    if thread_possible {
        thread_sweep(&mut m, &items, config.pin_cpu.is_none(), &mut steps);
    } else {
        m.notes
            .push("two-thread variant skipped: only one CPU".to_string());
    }
    (steps.progress)("done", 1.0);
    m
}

/// Every E on 4 KiB and on huge pages, `MAIN_READS` reads per lookup, with counters.
fn main_sweeps(m: &mut Measurement, items: &[LookupItem], steps: &mut Steps<'_>) {
    let setup = Setup {
        backends: &m.backends,
        items,
        sampling: &m.sampling,
    };
    for (variant, pages) in [("4k", Pages::Small), ("huge", Pages::Huge)] {
        for &bytes in &m.sizes {
            let message = format!("{variant} pages, E = {}", rounded_bytes(bytes as f64));
            let (results, advice, huge) = sweep_point(
                &setup,
                bytes,
                pages,
                MAIN_READS,
                m.counter_log.counters(),
                &mut |f| steps.report(&message, f),
            );
            if let Some(error) = advice {
                m.notes
                    .push(format!("madvise for {variant} pages failed: {error}"));
            }
            if pages == Pages::Huge && bytes > 0 {
                m.huge_granted.push((bytes, huge));
            }
            let e = rounded_bytes(bytes as f64);
            for result in results {
                m.counter_log
                    .record(&[("pages", variant), ("E", &e)], &result);
                m.measured.push(Measured {
                    variant,
                    reads: MAIN_READS,
                    bytes,
                    case: result.name,
                    ns: result.ns_per_op,
                    eval_reads_per_ns: Vec::new(),
                });
            }
            steps.done += 1;
        }
    }
}

/// 1 and 16 reads per lookup at the variants' sizes, 4 KiB pages: does the verdict depend on
/// memory-level parallelism?
fn reads_sweeps(m: &mut Measurement, items: &[LookupItem], steps: &mut Steps<'_>) {
    let setup = Setup {
        backends: &m.backends,
        items,
        sampling: &m.sampling,
    };
    for reads in [1u32, 16] {
        for &bytes in &m.subset {
            let message = format!(
                "{reads} reads per lookup, E = {}",
                rounded_bytes(bytes as f64)
            );
            let (results, _, _) = sweep_point(&setup, bytes, Pages::Small, reads, None, &mut |f| {
                steps.report(&message, f)
            });
            for result in results {
                m.measured.push(Measured {
                    variant: "4k",
                    reads,
                    bytes,
                    case: result.name,
                    ns: result.ns_per_op,
                    eval_reads_per_ns: Vec::new(),
                });
            }
            steps.done += 1;
        }
    }
}

/// The evaluation on a second CPU at the variants' sizes; this thread is pinned for it and,
/// unless the user pinned it, given every CPU back afterwards.
fn thread_sweep(m: &mut Measurement, items: &[LookupItem], unpin: bool, steps: &mut Steps<'_>) {
    let pinned = pin_to_cpu(m.main_cpu);
    if let Err(reason) = &pinned {
        m.notes
            .push(format!("two-thread variant unpinned: {reason}"));
    }
    let setup = Setup {
        backends: &m.backends,
        items,
        sampling: &m.sampling,
    };
    for &bytes in &m.subset {
        steps.report(
            &format!(
                "evaluation on CPU {}, E = {}",
                m.eval_cpu,
                rounded_bytes(bytes as f64)
            ),
            0.0,
        );
        // Timed like `interleaved`: live, recorded in a child, or replayed from the children.
        let points = invocations::timed(|| thread_point(&setup, bytes, m.eval_cpu)).unwrap_or_else(
            |error| {
                invocations::replay_failed(error);
                Vec::new()
            },
        );
        for (case, ns, rates) in points {
            m.measured.push(Measured {
                variant: "thread",
                reads: 0,
                bytes,
                case,
                ns,
                eval_reads_per_ns: rates,
            });
        }
        steps.done += 1;
    }
    if unpin && pinned.is_ok() {
        crate::harness::measure::unpin(m.machine.logical_cpus);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eval_sizes_double_up_to_the_largest() {
        assert_eq!(
            eval_sizes(64 << 10, 1),
            vec![0, 16 << 10, 32 << 10, 64 << 10]
        );
    }
}
