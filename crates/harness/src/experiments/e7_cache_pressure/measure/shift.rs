//! The shift probe (science-hardening item 2): what inside one process reproduces the
//! whole-invocation shifts of E7's positive controls — where the pages landed, which CPU ran,
//! or when.
//!
//! Whole invocations can read a control far from E6's band while the other invocations agree
//! with it. Three mechanisms a guest can tell apart from inside a process: placement (which
//! physical frames a buffer got, and so which cache sets and which host pages back it), the
//! core (which CPU, and so which neighbours share its caches), and time (a neighbour's load
//! changing while the process runs). The probe crosses the three: at each positive control's
//! size it keeps several rings alive at once (fresh frames each), times each on each CPU it
//! may run on, and repeats that in rounds spread over the chain sweep and the table-page split,
//! so that the controls' own timings and the split's phases fall between the rounds.

use super::timing::shuffled;
use crate::cache_levels::{ring, timed_chase, LINE};
use crate::measure::{current_cpu, pin_to_cpu, unpin};
use kiki_core::pages::{PageBuffer, Pages};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// One timing of the probe: one ring, on one CPU, in one round.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct ShiftSample {
    /// The invocation that measured it (from 0).
    pub invocation: usize,
    /// The positive control whose size the ring has (its label).
    pub label: String,
    pub bytes: usize,
    /// Which of the rings alive at once (from 0): each on frames of its own.
    pub allocation: usize,
    /// The CPU the thread was pinned to while timing it.
    pub cpu: usize,
    /// The round (from 0): the first before the chain sweep, then one after each pressure
    /// count, then one after each phase of the table-page split (reports before 2026-11-29-3
    /// ended with the sweep).
    pub round: usize,
    /// Seconds since the probe's first round began.
    pub seconds: f64,
    /// The median over its samples of ns per load, on the thread's CPU clock.
    pub ns: f64,
}

/// The probe's rings and where it may pin; `round` times every ring on every CPU once.
pub(crate) struct ShiftProbe {
    rings: Vec<(String, usize, Vec<PageBuffer>)>,
    cpus: Vec<usize>,
    /// The CPU to return to after a round (the configured pin), else every CPU.
    home: Option<usize>,
    logical_cpus: usize,
    invocation: usize,
    /// The run's order seed ([`OrderSeed`](super::timing::OrderSeed)'s value) its CPU and ring
    /// orders derive from.
    order_seed: u64,
    samples: usize,
    started: Option<Instant>,
    rounds: usize,
    pub measured: Vec<ShiftSample>,
    pub notes: Vec<String>,
}

/// Rings alive at once per size, and timed samples per cell (each a whole pass round the ring,
/// at most [`MAX_LOADS`] loads).
pub(crate) const ALLOCATIONS: usize = 3;
pub(crate) const SAMPLES: usize = 5;
pub(crate) const MAX_LOADS: u64 = 1 << 16;
/// The most CPUs the probe pins to (the first ones the process may run on).
const MAX_CPUS: usize = 4;

impl ShiftProbe {
    /// Rings of each `(label, bytes)` control size, [`ALLOCATIONS`] of them alive at once on
    /// huge pages (as the controls' tables are), `allocations` where given (the quick report's
    /// fewer); the CPUs it can pin to among the first `logical_cpus`.
    pub fn new(
        controls: &[(String, usize)],
        allocations: usize,
        logical_cpus: usize,
        home: Option<usize>,
        invocation: usize,
        order_seed: u64,
    ) -> ShiftProbe {
        let rings = controls
            .iter()
            .map(|(label, bytes)| {
                let buffers = (0..allocations)
                    // One ring order for every allocation: the rings differ only in their
                    // frames, so a difference between them is placement's alone.
                    .map(|_| ring(*bytes, Pages::Huge, SEED ^ (*bytes as u64)))
                    .collect();
                (label.clone(), *bytes, buffers)
            })
            .collect();
        let mut notes = Vec::new();
        let mut cpus = Vec::new();
        for cpu in 0..logical_cpus.min(MAX_CPUS) {
            match pin_to_cpu(cpu) {
                Ok(()) => cpus.push(cpu),
                Err(reason) => notes.push(format!("the shift probe left out CPU {cpu}: {reason}")),
            }
        }
        let probe = ShiftProbe {
            rings,
            cpus,
            home,
            logical_cpus,
            invocation,
            order_seed,
            samples: SAMPLES,
            started: None,
            rounds: 0,
            measured: Vec::new(),
            notes,
        };
        probe.go_home();
        probe
    }

    /// Back on CPU `was_on` (where the thread ran before a round), then the affinity it had:
    /// the configured pin, or every CPU. Widening the affinity does not move a running thread,
    /// so the sweep resumes on the CPU it left rather than on whichever the round ended on.
    fn go_back(&self, was_on: Option<usize>) {
        if let (None, Some(cpu)) = (self.home, was_on) {
            let _ = pin_to_cpu(cpu);
        }
        self.go_home();
    }

    fn go_home(&self) {
        match self.home {
            Some(cpu) => {
                let _ = pin_to_cpu(cpu);
            }
            None => unpin(self.logical_cpus),
        }
    }

    /// One round: every ring on every CPU once, CPUs in a seeded order of the round's own and,
    /// on each, the rings in one too; each ring walked round once untimed (so that as much of
    /// it as fits is in the caches, whatever the ring before left there), then its samples.
    pub fn round(&mut self) {
        let was_on = current_cpu();
        let started = *self.started.get_or_insert_with(Instant::now);
        let round = self.rounds;
        let salt = format!("shift probe round {round}");
        let cells: Vec<(usize, usize)> = (0..self.rings.len())
            .flat_map(|size| (0..self.rings[size].2.len()).map(move |a| (size, a)))
            .collect();
        for cpu_at in shuffled(self.order_seed, self.cpus.len(), self.invocation, &salt) {
            let cpu = self.cpus[cpu_at];
            if pin_to_cpu(cpu).is_err() {
                continue;
            }
            for cell in shuffled(
                self.order_seed,
                cells.len(),
                self.invocation,
                &format!("{salt} cpu {cpu}"),
            ) {
                let (size, allocation) = cells[cell];
                let (label, bytes, buffers) = &self.rings[size];
                let ns = time_ring(buffers[allocation].as_slice(), *bytes, self.samples);
                self.measured.push(ShiftSample {
                    invocation: self.invocation,
                    label: label.clone(),
                    bytes: *bytes,
                    allocation,
                    cpu,
                    round,
                    seconds: started.elapsed().as_secs_f64(),
                    ns,
                });
            }
        }
        self.go_back(was_on);
        self.rounds += 1;
    }
}

/// Median ns per load of `samples` passes round the ring (each at most [`MAX_LOADS`] loads,
/// carrying on where the last stopped), after one untimed pass.
fn time_ring(words: &[u64], bytes: usize, samples: usize) -> f64 {
    let lines = (bytes / LINE).max(2) as u64;
    timed_chase(words, lines, lines.min(MAX_LOADS), samples)
}

/// The seed of the probe's rings (each ring's is this ^ its size).
const SEED: u64 = 0x0073_6869_6674; // "shift"

#[cfg(test)]
mod tests {
    use super::*;

    /// Every round times every ring on every CPU once, in rounds numbered from 0, and leaves
    /// the thread where it was.
    #[test]
    fn a_round_times_every_ring_on_every_cpu() {
        let controls = vec![
            ("½ L2".to_string(), 64 << 10),
            ("½ L3".to_string(), 256 << 10),
        ];
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut probe = ShiftProbe::new(
            &controls,
            2,
            cpus,
            None,
            3,
            super::super::timing::FIXED_ORDER_SEED,
        );
        probe.round();
        probe.round();
        let per_round = 2 * 2 * probe.cpus.len();
        assert!(!probe.cpus.is_empty());
        assert_eq!(probe.measured.len(), 2 * per_round);
        for round in 0..2 {
            let cells: std::collections::BTreeSet<(String, usize, usize)> = probe
                .measured
                .iter()
                .filter(|s| s.round == round)
                .map(|s| (s.label.clone(), s.allocation, s.cpu))
                .collect();
            assert_eq!(cells.len(), per_round, "each cell once in round {round}");
        }
        assert!(probe.measured.iter().all(|s| s.invocation == 3));
        assert!(probe
            .measured
            .iter()
            .all(|s| s.ns > 0.0 && s.ns.is_finite()));
        assert!(probe
            .measured
            .windows(2)
            .all(|w| w[0].seconds <= w[1].seconds));
        // The rings of one size differ in their frames only: one order.
        for (_, _, buffers) in &probe.rings {
            assert!(buffers[1..]
                .iter()
                .all(|b| b.as_slice() == buffers[0].as_slice()));
            assert_ne!(
                buffers[0].as_slice().as_ptr(),
                buffers[1].as_slice().as_ptr()
            );
        }
        // Unpinned again after the rounds: every CPU allowed.
        assert_eq!(allowed_cpus(), cpus);
    }

    /// The CPUs the calling thread may run on.
    fn allowed_cpus() -> usize {
        // SAFETY: a zeroed cpu_set_t is the empty set; pid 0 is the calling thread.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            assert_eq!(
                libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set),
                0
            );
            libc::CPU_COUNT(&set) as usize
        }
    }
}
