//! E6's measuring: the shuffled rings and the pointer chase over them on both page sizes.

use crate::cache_levels::{chase, ring, sizes, sweep_max, LINE};
use crate::experiments::{Config, Progress};
use crate::invocations::{self, Mergeable};
use crate::machine::Machine;
use crate::measure::{interleaved, Case, SampleConfig};
use kiki_core::pages::{PageBuffer, Pages};
use kiki_core::units::rounded_bytes;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// One size on one page size: ns per load samples, and the huge-page bytes the kernel granted
/// (if it says).
pub(super) struct Measured {
    pub pages: Pages,
    pub bytes: usize,
    pub ns: Vec<f64>,
    pub huge_page_bytes: Option<usize>,
}

/// Everything E6 measured, and the settings the method paragraph reports.
pub(super) struct Measurement {
    pub machine: Machine,
    /// The report's seed (each ring's is this ^ its size).
    pub seed: u64,
    pub sampling: SampleConfig,
    /// Sizes per doubling.
    pub per_octave: u32,
    /// Buffer sizes, smallest first.
    pub sizes: Vec<usize>,
    /// Why the sizes stop where they do (a sentence for the method).
    pub sweep: String,
    pub measured: Vec<Measured>,
    /// Per failed `madvise`, the page size, buffer size and error.
    pub advice_errors: Vec<String>,
    /// The practical threshold of a claim (`--threshold`).
    pub threshold: f64,
}

impl Measurement {
    /// The point of `pages` at `bytes`, if it was measured.
    pub fn at(&self, pages: Pages, bytes: usize) -> Option<&Measured> {
        self.measured
            .iter()
            .find(|m| m.pages == pages && m.bytes == bytes)
    }
}

/// The most loads one repetition makes: a repetition carries on round the ring from where the
/// last stopped, so a ring of gigabytes keeps its whole footprint without a repetition taking
/// a whole trip round it (a tenth of a second and more in memory).
pub(super) const MAX_LOADS_PER_REPETITION: u64 = 1 << 16;

/// The fewest loads one repetition makes (small rings go round several times).
pub(super) const MIN_LOADS_PER_REPETITION: u64 = 4096;

/// How far the sizes go, as the invocations agree on it: every invocation plans its sweep
/// (free memory may differ between them), and the replay takes theirs, so that all time the
/// same sizes.
#[derive(Serialize, Deserialize)]
struct Plan {
    max: usize,
    why: String,
}

impl Mergeable for Plan {
    fn merge(parts: Vec<Plan>) -> Result<Plan, String> {
        let mut parts = parts.into_iter();
        let first = parts.next().ok_or("no invocation planned E6's sizes")?;
        for other in parts {
            if other.max != first.max {
                return Err(format!(
                    "invocations swept E6 to {} and to {}",
                    rounded_bytes(first.max as f64),
                    rounded_bytes(other.max as f64)
                ));
            }
        }
        Ok(first)
    }
}

/// The huge-page bytes the kernel granted each ring of one size, as the invocations saw them
/// (merged: the least any invocation was granted; unknown if any could not tell).
#[derive(Serialize, Deserialize)]
struct Grants(Vec<Option<usize>>);

impl Mergeable for Grants {
    fn merge(parts: Vec<Grants>) -> Result<Grants, String> {
        let mut parts = parts.into_iter();
        let mut merged = parts.next().ok_or("no invocation read huge pages")?;
        for other in parts {
            if other.0.len() != merged.0.len() {
                return Err("invocations read huge pages of different rings".into());
            }
            for (into, from) in merged.0.iter_mut().zip(other.0) {
                *into = match (*into, from) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    _ => None,
                };
            }
        }
        Ok(merged)
    }
}

fn plan(config: &Config, machine: &Machine) -> Plan {
    if config.smoke {
        return Plan {
            max: 1 << 20,
            why: "Sizes reach 1 MiB (a smoke test).".into(),
        };
    }
    let (max, why) = sweep_max(machine);
    Plan { max, why }
}

/// Chases the ring at every size, both page sizes side by side and interleaved.
pub(super) fn measure(config: &Config, progress: Progress<'_>) -> Measurement {
    let machine = Machine::detect();
    let plan = invocations::timed(|| plan(config, &machine)).unwrap_or_else(|error| {
        invocations::replay_failed(error);
        plan(config, &machine)
    });
    let per_octave = config.pick(1, 2, 2);
    let sizes = sizes(plan.max, per_octave);
    let sampling = SampleConfig {
        warmup: config.pick(
            Duration::from_micros(200),
            Duration::from_millis(2),
            Duration::from_millis(10),
        ),
        samples: config.pick(3, 7, 9),
        min_sample: config.pick(
            Duration::from_micros(200),
            Duration::from_millis(3),
            Duration::from_millis(20),
        ),
    };
    // A replay times nothing: it needs no rings of the full size.
    let replaying = invocations::replaying();
    let mut measured = Vec::new();
    let mut advice_errors = Vec::new();
    for (i, &bytes) in sizes.iter().enumerate() {
        let message = format!("pointer chase {}", rounded_bytes(bytes as f64));
        // Both page sizes live side by side and are interleaved round-robin.
        let ring_bytes = if replaying { 2 * LINE } else { bytes };
        let rings: Vec<(Pages, PageBuffer)> = [Pages::Small, Pages::Huge]
            .into_iter()
            .map(|pages| (pages, ring(ring_bytes, pages, config.seed ^ bytes as u64)))
            .collect();
        for (pages, buffer) in &rings {
            if let Err(error) = &buffer.advice {
                advice_errors.push(format!(
                    "{pages:?} {}: {error}",
                    rounded_bytes(bytes as f64)
                ));
            }
        }
        // Once round the ring per repetition, within bounds; each carries on where the last
        // stopped.
        let lines = (bytes / LINE).max(2) as u64;
        let loads = lines.clamp(MIN_LOADS_PER_REPETITION, MAX_LOADS_PER_REPETITION);
        let mut cases: Vec<Case<'_>> = rings
            .iter()
            .map(|(pages, buffer)| {
                let words = buffer.as_slice();
                let mut at = 0u64;
                Case::new(format!("{pages:?}"), loads, move |reps| {
                    at = chase(words, reps * loads, at);
                    at
                })
            })
            .collect();
        let base = i as f64 / sizes.len() as f64;
        let results = interleaved(&mut cases, &sampling, None, &mut |f| {
            progress(&message, base + f / sizes.len() as f64)
        });
        drop(cases);
        let grants =
            invocations::timed(|| Grants(rings.iter().map(|(_, b)| b.huge_page_bytes()).collect()))
                .unwrap_or_else(|error| {
                    invocations::replay_failed(error);
                    Grants(vec![None; rings.len()])
                });
        for ((result, (pages, _)), huge_bytes) in results.into_iter().zip(&rings).zip(grants.0) {
            measured.push(Measured {
                pages: *pages,
                bytes,
                ns: result.ns_per_op,
                huge_page_bytes: huge_bytes,
            });
        }
    }
    progress("done", 1.0);
    Measurement {
        machine,
        seed: config.seed,
        sampling,
        per_octave,
        sizes,
        sweep: plan.why,
        measured,
        advice_errors,
        threshold: config.threshold,
    }
}
