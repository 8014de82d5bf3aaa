//! E6's measuring: the shuffled rings and the pointer chase over them on both page sizes.

use crate::cache_levels::{chase, ring, sizes, sweep_max, LINE};
use crate::experiments::{Config, Progress};
use crate::invocations::{gather, merge_rows, union, Invocation};
use crate::machine::Machine;
use crate::measure::{interleaved, Case, SampleConfig};
use kiki_core::pages::{PageBuffer, Pages};
use kiki_core::units::rounded_bytes;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// One size on one page size: ns per load samples, and the huge-page bytes the kernel granted
/// (if it says).
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Measured {
    #[serde(with = "PagesName")]
    pub pages: Pages,
    pub bytes: usize,
    pub ns: Vec<f64>,
    pub huge_page_bytes: Option<usize>,
}

/// Everything E6 measured, and the settings the method paragraph reports.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Measurement {
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
    /// The process invocations pooled here (1 as measured; K once merged).
    pub invocations: usize,
}

/// [`Pages`] in a measurement.
#[derive(Serialize, Deserialize)]
#[serde(remote = "Pages")]
enum PagesName {
    Small,
    Huge,
}

/// K invocations' measurements as one: every point's rounds one invocation after another, the
/// huge-page bytes the least any invocation was granted (unknown if any could not tell), every
/// failed `madvise`; the rest from the first. `Err` when they swept different sizes.
pub(super) fn merge(parts: &[Measurement]) -> Result<Measurement, String> {
    let first = parts.first().ok_or("nothing measured")?;
    if let Some(other) = parts.iter().find(|p| p.sizes != first.sizes) {
        let max = |m: &Measurement| rounded_bytes(m.sizes.last().copied().unwrap_or(0) as f64);
        return Err(format!(
            "invocations swept E6 to {} and to {}",
            max(first),
            max(other)
        ));
    }
    let measured = merge_rows(
        &gather(parts, |p| &p.measured),
        |m| (m.pages, m.bytes),
        |into, from| {
            into.ns.extend(&from.ns);
            into.huge_page_bytes = match (into.huge_page_bytes, from.huge_page_bytes) {
                (Some(a), Some(b)) => Some(a.min(b)),
                _ => None,
            };
        },
    )?;
    Ok(Measurement {
        measured,
        advice_errors: union(parts.iter().map(|p| p.advice_errors.clone())),
        invocations: parts.len(),
        ..first.clone()
    })
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

/// How far the sizes go: every invocation plans its sweep (free memory may differ between
/// them), and their measurements merge only where all timed the same sizes.
struct Plan {
    max: usize,
    why: String,
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
pub(super) fn measure(
    config: &Config,
    invocation: Invocation,
    progress: Progress<'_>,
) -> Measurement {
    let machine = Machine::detect();
    let plan = plan(config, &machine);
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
    let mut measured = Vec::new();
    let mut advice_errors = Vec::new();
    for (i, &bytes) in sizes.iter().enumerate() {
        let message = format!("pointer chase {}", rounded_bytes(bytes as f64));
        // Both page sizes live side by side and are interleaved round-robin.
        let rings: Vec<(Pages, PageBuffer)> = [Pages::Small, Pages::Huge]
            .into_iter()
            .map(|pages| (pages, ring(bytes, pages, config.seed ^ bytes as u64)))
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
        let results = interleaved(&mut cases, &sampling, invocation, None, &mut |f| {
            progress(&message, base + f / sizes.len() as f64)
        });
        drop(cases);
        for (result, (pages, buffer)) in results.into_iter().zip(&rings) {
            measured.push(Measured {
                pages: *pages,
                bytes,
                ns: result.ns_per_op,
                huge_page_bytes: buffer.huge_page_bytes(),
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
        invocations: 1,
    }
}
