//! Timing machinery: warm-up, repeated samples with backends interleaved round-robin, CPU
//! pinning, page-aligned buffers with a huge-page choice, and hardware counters where present.

use super::invocations::{self, Invocation};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// How long to warm up and how many samples of what length to take.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SampleConfig {
    /// Warm-up per case before any sample (also used to calibrate the repetitions).
    pub warmup: Duration,
    /// Samples per case.
    pub samples: usize,
    /// The shortest a single sample may be: repetitions are chosen to reach it, so that the
    /// timer's resolution and the loop's start-up are negligible.
    pub min_sample: Duration,
}

/// One thing to time. `body(reps)` runs the workload `reps` times over its pre-generated
/// inputs and returns a value folded from every result (passed to `black_box`, so nothing can
/// be optimised away).
pub struct Case<'a> {
    pub name: String,
    /// Operations (lookups, nodes, loads) one repetition performs.
    pub ops_per_rep: u64,
    pub body: Box<dyn FnMut(u64) -> u64 + 'a>,
}

impl<'a> Case<'a> {
    pub fn new(
        name: impl Into<String>,
        ops_per_rep: u64,
        body: impl FnMut(u64) -> u64 + 'a,
    ) -> Case<'a> {
        Case {
            name: name.into(),
            ops_per_rep: ops_per_rep.max(1),
            body: Box::new(body),
        }
    }
}

/// What the interleaved sampler measured for one case.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CaseResult {
    pub name: String,
    /// Nanoseconds per operation, one value per sample, in the order taken.
    pub ns_per_op: Vec<f64>,
    /// Hardware counter totals per operation over all samples (empty without counters).
    pub counters_per_op: Vec<(String, f64)>,
}

/// Times `body(reps)` once, in nanoseconds.
pub fn time_ns(body: &mut dyn FnMut(u64) -> u64, reps: u64) -> f64 {
    let start = Instant::now();
    black_box(body(black_box(reps)));
    start.elapsed().as_nanos() as f64
}

/// Warms `case` up for `config.warmup` and returns the repetitions that make one call last at
/// least `config.min_sample`.
pub fn calibrate(case: &mut Case<'_>, config: &SampleConfig) -> u64 {
    // Neither a warm-up nor a minimum sample asked for: each sample is one long call (E2's
    // perfts, tens of milliseconds to seconds), so a calibrating call would only repeat a
    // sample, and warm nothing the round-robin samples keep (another case runs between any two
    // of its calls).
    if config.warmup.is_zero() && config.min_sample.is_zero() {
        return 1;
    }
    let mut reps = 1u64;
    let min = config.min_sample.as_nanos() as f64;
    let deadline = Instant::now() + config.warmup;
    let mut took = time_ns(&mut case.body, reps);
    // Double until one call is long enough, and keep going until the warm-up has passed.
    while took < min || Instant::now() < deadline {
        if took < min {
            reps = reps.saturating_mul(2);
        }
        took = time_ns(&mut case.body, reps);
    }
    reps
}

/// Warms every case up, calibrates its repetitions, then takes `config.samples` rounds; in
/// each round every case is sampled once, round-robin, starting one case later each round so
/// that no case always follows the same neighbour. Counters (if given) are read around every
/// sample. `progress` gets the fraction of rounds done.
///
/// As one of several process invocations (`invocation`), it takes its share of the rounds and
/// starts its rotation at its own offset.
pub fn interleaved(
    cases: &mut [Case<'_>],
    config: &SampleConfig,
    invocation: Invocation,
    mut counters: Option<&mut Counters>,
    progress: &mut dyn FnMut(f64),
) -> Vec<CaseResult> {
    let offset = invocation.index;
    let config = &SampleConfig {
        samples: invocation.rounds(config.samples),
        ..*config
    };
    let n = cases.len();
    let reps: Vec<u64> = cases.iter_mut().map(|c| calibrate(c, config)).collect();
    let mut samples = vec![Vec::with_capacity(config.samples); n];
    let mut totals: Vec<Vec<u64>> = vec![Vec::new(); n];
    let every: Vec<usize> = (0..n).collect();
    for round in 0..config.samples {
        sample_round(
            cases,
            &every,
            &reps,
            round + offset,
            &mut samples,
            counters.as_deref_mut(),
            &mut totals,
        );
        progress((round + 1) as f64 / config.samples.max(1) as f64);
    }
    let names: Vec<String> = counters
        .as_deref()
        .map(|c| c.names().iter().map(|s| s.to_string()).collect())
        .unwrap_or_default();
    cases
        .iter()
        .zip(samples)
        .zip(totals)
        .zip(reps)
        .map(|(((case, ns_per_op), total), reps)| {
            let ops = (reps * case.ops_per_rep * config.samples as u64).max(1) as f64;
            CaseResult {
                name: case.name.clone(),
                ns_per_op,
                counters_per_op: names
                    .iter()
                    .zip(&total)
                    .map(|(name, &t)| (name.clone(), t as f64 / ops))
                    .collect(),
            }
        })
        .collect()
}

/// One round: every case in `active` sampled once, round-robin from position `rotation` of
/// `active`, its ns per operation appended to `samples[case]` (its counters, if any, added to
/// `totals[case]`).
fn sample_round(
    cases: &mut [Case<'_>],
    active: &[usize],
    reps: &[u64],
    rotation: usize,
    samples: &mut [Vec<f64>],
    mut counters: Option<&mut Counters>,
    totals: &mut [Vec<u64>],
) {
    let n = active.len();
    for k in 0..n {
        let i = active[(rotation + k) % n];
        let case = &mut cases[i];
        if let Some(c) = counters.as_deref_mut() {
            c.start();
        }
        let ns = time_ns(&mut case.body, reps[i]);
        if let Some(c) = counters.as_deref_mut() {
            let values = c.stop();
            let total = &mut totals[i];
            total.resize(values.len(), 0);
            for (t, v) in total.iter_mut().zip(values) {
                *t += v;
            }
        }
        samples[i].push(ns / (reps[i] * case.ops_per_rep) as f64);
    }
}

/// Times `cases` in rounds of two kinds: A rounds sample every case, B rounds only the cases
/// `in_b` marks (a control without the others beside them). The rounds come in blocks A B B A
/// (B A A B in odd invocations), so that a case's i-th A sample and i-th B sample are adjacent
/// rounds and pairing them by index cancels a linear drift. Each kind takes the invocation's
/// share of `config.samples` rounds, rounded up to even; both results list the cases in
/// order (the B result only the marked ones). No counters are read.
pub fn interleaved_abba(
    cases: &mut [Case<'_>],
    in_b: &[bool],
    config: &SampleConfig,
    invocation: Invocation,
    progress: &mut dyn FnMut(f64),
) -> (Vec<CaseResult>, Vec<CaseResult>) {
    let rounds = invocation.rounds(config.samples).next_multiple_of(2);
    let config = &SampleConfig {
        samples: rounds,
        ..*config
    };
    let n = cases.len();
    let reps: Vec<u64> = cases.iter_mut().map(|c| calibrate(c, config)).collect();
    let every: Vec<usize> = (0..n).collect();
    let marked: Vec<usize> = (0..n).filter(|&i| in_b.get(i) == Some(&true)).collect();
    let mut a = vec![Vec::with_capacity(rounds); n];
    let mut b = vec![Vec::with_capacity(rounds); n];
    let mut no_totals = vec![Vec::new(); n];
    let b_first = invocation.index % 2 == 1;
    // Each kind rotates by its own rounds, so that every case starts an A round in turn.
    let (mut a_rounds, mut b_rounds) = (0, 0);
    for round in 0..2 * rounds {
        let middle_of_block = matches!(round % 4, 1 | 2);
        let (active, samples, done) = if middle_of_block != b_first {
            (&marked, &mut b, &mut b_rounds)
        } else {
            (&every, &mut a, &mut a_rounds)
        };
        let rotation = *done + invocation.index;
        *done += 1;
        sample_round(
            cases,
            active,
            &reps,
            rotation,
            samples,
            None,
            &mut no_totals,
        );
        progress((round + 1) as f64 / (2 * rounds) as f64);
    }
    let results = |samples: Vec<Vec<f64>>, which: &[usize]| -> Vec<CaseResult> {
        which
            .iter()
            .map(|&i| CaseResult {
                name: cases[i].name.clone(),
                ns_per_op: samples[i].clone(),
                counters_per_op: Vec::new(),
            })
            .collect()
    };
    (results(a, &every), results(b, &marked))
}

/// The case results of K invocations merged case by case: samples one block after another,
/// counters averaged. `Err` when they did not time the same cases.
pub fn merge_case_results(parts: &[Vec<CaseResult>]) -> Result<Vec<CaseResult>, String> {
    let count = parts.len().max(1) as f64;
    let mut merged = invocations::merge_rows(
        parts,
        |r| r.name.clone(),
        |into, from| {
            into.ns_per_op.extend(&from.ns_per_op);
            for ((name, total), (other, value)) in
                into.counters_per_op.iter_mut().zip(&from.counters_per_op)
            {
                if name == other {
                    *total += value;
                }
            }
        },
    )?;
    for result in &mut merged {
        for (_, total) in &mut result.counters_per_op {
            *total /= count;
        }
    }
    Ok(merged)
}

// ---- the thread clock ---------------------------------------------------------------------

/// This thread's CPU time in ns, where the OS offers it. On a shared machine it leaves out
/// the time the thread sat descheduled, which wall time would add to whichever sample was
/// unlucky; cache and branch-predictor pollution by other processes remain.
#[cfg(target_os = "linux")]
pub fn thread_cpu_ns() -> Option<u64> {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid, writable timespec.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    (status == 0).then(|| time.tv_sec as u64 * 1_000_000_000 + time.tv_nsec as u64)
}

#[cfg(not(target_os = "linux"))]
pub fn thread_cpu_ns() -> Option<u64> {
    None
}

/// The calling thread's context switches so far, (voluntary, involuntary), from
/// `getrusage(RUSAGE_THREAD)`; `None` where the system does not say.
#[cfg(target_os = "linux")]
pub fn thread_context_switches() -> Option<(u64, u64)> {
    // SAFETY: rusage is plain data; zeroed is a valid value for getrusage to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable rusage.
    let status = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    (status == 0).then_some((usage.ru_nvcsw as u64, usage.ru_nivcsw as u64))
}

#[cfg(not(target_os = "linux"))]
pub fn thread_context_switches() -> Option<(u64, u64)> {
    None
}

// ---- CPU pinning -------------------------------------------------------------------------

/// Pins the calling thread to `cpu`. `Err` says why it could not (the caller carries on
/// unpinned and says so).
pub fn pin_to_cpu(cpu: usize) -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        let capacity = 8 * std::mem::size_of::<libc::cpu_set_t>();
        if cpu >= capacity {
            return Err(format!(
                "CPU {cpu} is beyond the {capacity} a cpu_set_t holds"
            ));
        }
        // SAFETY: cpu is below the set's capacity (checked above).
        unsafe { libc::CPU_SET(cpu, &mut set) };
        // SAFETY: a valid cpu_set_t of the size passed; pid 0 is the calling thread.
        let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) };
        if rc == 0 {
            Ok(())
        } else {
            Err(format!(
                "could not pin to CPU {cpu}: {}",
                std::io::Error::last_os_error()
            ))
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err(format!(
            "could not pin to CPU {cpu}: pinning is only implemented on Linux"
        ))
    }
}

/// The CPU the calling thread is running on now (`None` where the kernel does not say).
pub fn current_cpu() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sched_getcpu has no preconditions.
        let cpu = unsafe { libc::sched_getcpu() };
        usize::try_from(cpu).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Lets the calling thread run on CPUs `0..cpus` again (after a temporary pin).
pub fn unpin(cpus: usize) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: as in `pin_to_cpu`; failure leaves the thread pinned, which is harmless.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            let capacity = 8 * std::mem::size_of::<libc::cpu_set_t>();
            for cpu in 0..cpus.min(capacity) {
                libc::CPU_SET(cpu, &mut set);
            }
            libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cpus;
}

// ---- hardware counters -------------------------------------------------------------------

/// A hardware event `perf_event_open` can count (written by its name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Event {
    Cycles,
    Instructions,
    /// Last-level cache misses (the kernel's generic `cache-misses`).
    CacheMisses,
    L1dReadMisses,
    DtlbReadMisses,
    /// The kernel's software task clock (ns): no PMU needed, so the counter path can be
    /// exercised on machines without hardware counters (tests, `--quick` smoke runs).
    TaskClock,
}

impl Event {
    pub const DEFAULT: [Event; 5] = [
        Event::Cycles,
        Event::Instructions,
        Event::L1dReadMisses,
        Event::CacheMisses,
        Event::DtlbReadMisses,
    ];

    /// Every event `--counters` accepts.
    pub const ALL: [Event; 6] = [
        Event::Cycles,
        Event::Instructions,
        Event::L1dReadMisses,
        Event::CacheMisses,
        Event::DtlbReadMisses,
        Event::TaskClock,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Event::Cycles => "cycles",
            Event::Instructions => "instructions",
            Event::CacheMisses => "llc-misses",
            Event::L1dReadMisses => "l1d-read-misses",
            Event::DtlbReadMisses => "dtlb-read-misses",
            Event::TaskClock => "task-clock-ns",
        }
    }
}

/// Open hardware counters for the calling thread (user space only), as one perf group: they
/// run together, and where the kernel multiplexes them each count is scaled by
/// `time_enabled / time_running`.
pub struct Counters {
    events: Vec<Event>,
    names: Vec<&'static str>,
    #[cfg(target_os = "linux")]
    group: perf::Group,
}

#[cfg(target_os = "linux")]
mod perf {
    use super::Event;
    use perf_event::events::{Cache, CacheId, CacheOp, CacheResult, Hardware, Software};
    use perf_event::{Builder, Counter, Group as PerfGroup};
    use std::time::Duration;

    fn builder(event: Event) -> Builder<'static> {
        let read_miss = |which| Cache {
            which,
            operation: CacheOp::READ,
            result: CacheResult::MISS,
        };
        match event {
            Event::Cycles => Builder::new(Hardware::CPU_CYCLES),
            Event::Instructions => Builder::new(Hardware::INSTRUCTIONS),
            Event::CacheMisses => Builder::new(Hardware::CACHE_MISSES),
            Event::L1dReadMisses => Builder::new(read_miss(CacheId::L1D)),
            Event::DtlbReadMisses => Builder::new(read_miss(CacheId::DTLB)),
            Event::TaskClock => Builder::new(Software::TASK_CLOCK),
        }
    }

    fn hint(error: &std::io::Error) -> &'static str {
        match error.raw_os_error() {
            Some(libc::ENOENT) | Some(libc::EOPNOTSUPP) => {
                " (no PMU exposed: typical of a virtual machine)"
            }
            Some(libc::EPERM) | Some(libc::EACCES) => {
                " (not permitted: see /proc/sys/kernel/perf_event_paranoid)"
            }
            _ => "",
        }
    }

    /// The hardware events in one perf group (scheduled together, scaled together); the
    /// software task clock on its own, because a clock event inside a group is only brought up
    /// to date at scheduler ticks (a 1 ms region reads 0).
    pub(super) struct Group {
        group: Option<PerfGroup>,
        slots: Vec<Slot>,
    }

    enum Slot {
        Grouped(Counter),
        Alone(Counter),
    }

    impl Group {
        pub(super) fn open(events: &[Event]) -> Result<Group, String> {
            let failed = |what: &str, e: std::io::Error| {
                format!(
                    "counters unavailable: perf_event_open({what}) failed: {e}{}",
                    hint(&e)
                )
            };
            let mut group = None;
            let mut slots = Vec::new();
            for &event in events {
                // Builder::new already excludes kernel and hypervisor: user space only.
                let slot = if event == Event::TaskClock {
                    Slot::Alone(
                        builder(event)
                            .build()
                            .map_err(|e| failed(event.name(), e))?,
                    )
                } else {
                    if group.is_none() {
                        group = Some(PerfGroup::new().map_err(|e| failed("group", e))?);
                    }
                    let leader = group.as_mut().expect("created above");
                    Slot::Grouped(
                        leader
                            .add(&builder(event))
                            .map_err(|e| failed(event.name(), e))?,
                    )
                };
                slots.push(slot);
            }
            Ok(Group { group, slots })
        }

        pub(super) fn start(&mut self) {
            for slot in &mut self.slots {
                if let Slot::Alone(counter) = slot {
                    let _ = counter.reset();
                    let _ = counter.enable();
                }
            }
            if let Some(group) = &mut self.group {
                let _ = group.reset();
                let _ = group.enable();
            }
        }

        /// The counts since `start`, scaled by `time_enabled / time_running` where the kernel
        /// multiplexed them (0 where a counter never ran).
        pub(super) fn stop(&mut self) -> Vec<u64> {
            let scaled = |value: u64, enabled: Option<Duration>, running: Option<Duration>| {
                let enabled = enabled.map_or(0.0, |d| d.as_secs_f64());
                let running = running.map_or(0.0, |d| d.as_secs_f64());
                if running > 0.0 {
                    (value as f64 * enabled / running).round() as u64
                } else {
                    0
                }
            };
            let grouped = self.group.as_mut().and_then(|group| {
                let _ = group.disable();
                group.read().ok()
            });
            self.slots
                .iter_mut()
                .map(|slot| match slot {
                    Slot::Grouped(counter) => grouped.as_ref().map_or(0, |data| {
                        scaled(data[&*counter], data.time_enabled(), data.time_running())
                    }),
                    Slot::Alone(counter) => {
                        let _ = counter.disable();
                        counter.read_full().map_or(0, |data| {
                            scaled(data.count(), data.time_enabled(), data.time_running())
                        })
                    }
                })
                .collect()
        }
    }
}

impl Counters {
    /// Opens every event, or says why the machine has none: "counters unavailable: <reason>".
    pub fn open(events: &[Event]) -> Result<Counters, String> {
        #[cfg(target_os = "linux")]
        {
            let group = perf::Group::open(events)?;
            Ok(Counters {
                events: events.to_vec(),
                names: events.iter().map(|e| e.name()).collect(),
                group,
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = events;
            Err("counters unavailable: perf_event_open is a Linux interface".to_string())
        }
    }

    pub fn events(&self) -> &[Event] {
        &self.events
    }

    pub fn names(&self) -> &[&'static str] {
        &self.names
    }

    /// Resets and enables every counter, together.
    pub fn start(&mut self) {
        #[cfg(target_os = "linux")]
        self.group.start();
    }

    /// Disables every counter and returns the counts since `start`.
    pub fn stop(&mut self) -> Vec<u64> {
        #[cfg(target_os = "linux")]
        {
            self.group.stop()
        }
        #[cfg(not(target_os = "linux"))]
        {
            vec![0; self.events.len()]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaved_samples_every_case_and_scales_by_ops() {
        let mut order = Vec::new();
        let log = std::cell::RefCell::new(&mut order);
        let mut cases = vec![
            Case::new("a", 10, |reps| {
                log.borrow_mut().push('a');
                (0..reps * 10).fold(0u64, |acc, x| acc ^ black_box(x))
            }),
            Case::new("b", 10, |reps| {
                log.borrow_mut().push('b');
                (0..reps * 10).fold(1u64, |acc, x| acc.wrapping_add(black_box(x)))
            }),
        ];
        let config = SampleConfig {
            warmup: Duration::from_millis(1),
            samples: 4,
            min_sample: Duration::from_micros(20),
        };
        let mut fractions = Vec::new();
        let results = interleaved(&mut cases, &config, Invocation::ONLY, None, &mut |f| {
            fractions.push(f)
        });
        drop(cases);
        assert_eq!(results.len(), 2);
        for r in &results {
            assert_eq!(r.ns_per_op.len(), 4);
            assert!(r.ns_per_op.iter().all(|&x| x > 0.0 && x.is_finite()));
            assert!(r.counters_per_op.is_empty());
        }
        assert_eq!(fractions, vec![0.25, 0.5, 0.75, 1.0]);
        // The sampled calls (after warm-up) alternate, starting one later each round.
        let tail: String = order[order.len() - 8..].iter().collect();
        assert_eq!(tail, "abbaabba");
    }

    /// A rounds time both cases, B rounds only the marked one, in blocks A B B A (B A A B in
    /// an odd invocation); three samples become four, so both kinds pair one to one.
    #[test]
    fn abba_alternates_rounds_without_the_unmarked_case_in_b() {
        for (invocation, rounds, expected) in [
            (Invocation::ONLY, 4, "axaaxaaxaaxa"),
            (Invocation::new(1, 2), 2, "axaaxa"),
        ] {
            let mut order = Vec::new();
            let log = std::cell::RefCell::new(&mut order);
            let mut cases = vec![
                Case::new("a", 10, |reps| {
                    log.borrow_mut().push('a');
                    (0..reps * 10).fold(0u64, |acc, x| acc ^ black_box(x))
                }),
                Case::new("x", 10, |reps| {
                    log.borrow_mut().push('x');
                    (0..reps * 10).fold(1u64, |acc, x| acc.wrapping_add(black_box(x)))
                }),
            ];
            let config = SampleConfig {
                warmup: Duration::from_millis(1),
                samples: 3,
                min_sample: Duration::from_micros(20),
            };
            let (a, b) =
                interleaved_abba(&mut cases, &[true, false], &config, invocation, &mut |_| {});
            drop(cases);
            assert_eq!(a.len(), 2);
            assert_eq!(b.len(), 1);
            assert_eq!(b[0].name, "a");
            for r in a.iter().chain(&b) {
                assert_eq!(r.ns_per_op.len(), rounds, "{}", r.name);
                assert!(r.ns_per_op.iter().all(|&x| x > 0.0 && x.is_finite()));
            }
            let tail: String = order[order.len() - expected.len()..].iter().collect();
            assert_eq!(tail, expected, "{invocation:?}");
        }
    }

    #[test]
    fn the_software_task_clock_counts_through_the_group() {
        let mut counters = Counters::open(&[Event::TaskClock]).expect("a software event opens");
        counters.start();
        black_box((0..2_000_000u64).fold(0, |a, x| a ^ black_box(x)));
        let values = counters.stop();
        assert_eq!(values.len(), 1);
        assert!(values[0] > 10_000, "task clock {} ns", values[0]);
        counters.start();
        let again = counters.stop();
        assert!(
            again[0] < values[0],
            "start resets: {} then {}",
            values[0],
            again[0]
        );
    }

    #[test]
    fn counters_either_count_or_say_why_not() {
        match Counters::open(&Event::DEFAULT) {
            Ok(mut counters) => {
                counters.start();
                black_box((0..100_000u64).fold(0, |a, x| a ^ black_box(x)));
                let values = counters.stop();
                assert_eq!(values.len(), Event::DEFAULT.len());
                assert!(values[1] > 100_000, "instructions {}", values[1]);
            }
            Err(reason) => assert!(reason.starts_with("counters unavailable: "), "{reason}"),
        }
        // A machine without a CPU PMU (this VM) must take the fallback path.
        if !std::path::Path::new("/sys/bus/event_source/devices/cpu").exists() {
            let reason = Counters::open(&[Event::Cycles])
                .err()
                .expect("no PMU, no counters");
            assert!(reason.contains("cycles"), "{reason}");
        }
    }

    #[test]
    fn pinning_to_a_missing_cpu_is_an_error_not_a_panic() {
        assert!(pin_to_cpu(5000).is_err());
        // CPU 1023 exists in the mask but not on this machine: the kernel refuses.
        assert!(pin_to_cpu(1023).is_err());
    }
}
