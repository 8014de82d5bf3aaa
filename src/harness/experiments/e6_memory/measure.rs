//! E6's measuring: the shuffled rings and the pointer chase over them on both page sizes.

use crate::harness::experiments::{Config, Progress};
use crate::harness::machine::Machine;
use crate::harness::measure::{interleaved, Case, PageBuffer, Pages, SampleConfig};
use crate::units::rounded_bytes;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
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

/// A cache line: each ring element fills one, its first word the next element's index.
const LINE: usize = 64;
const WORDS_PER_LINE: usize = LINE / 8;

/// A ring over `bytes / 64` cache lines: word 0 of each line holds the index of the next
/// line, in one cycle through every line (Sattolo's shuffle), so hardware prefetchers cannot
/// guess the next address.
pub fn ring(bytes: usize, pages: Pages, seed: u64) -> PageBuffer {
    let lines = (bytes / LINE).max(2);
    let mut order: Vec<u32> = (0..lines as u32).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for i in (1..lines).rev() {
        let j = rng.random_range(0..i);
        order.swap(i, j);
    }
    let mut buffer = PageBuffer::new(lines * LINE, pages, |_| 0);
    let words = buffer.as_mut_slice();
    for (line, &next) in order.iter().enumerate() {
        // Sattolo's permutation is one cycle: following `order` visits every line once.
        words[line * WORDS_PER_LINE] = next as u64;
    }
    buffer
}

/// Follows the ring `loads` times from line 0; returns where it stopped.
fn chase(words: &[u64], loads: u64) -> u64 {
    let mut at = 0usize;
    for _ in 0..loads {
        at = words[at * WORDS_PER_LINE] as usize;
    }
    at as u64
}

/// Buffer sizes: from 4 KiB up to `max`, `per_octave` points per doubling.
pub fn sizes(max: usize, per_octave: u32) -> Vec<usize> {
    let mut out = Vec::new();
    let mut exponent = 12.0f64;
    while 2f64.powf(exponent) <= max as f64 + 0.5 {
        let bytes = (2f64.powf(exponent) as usize) / LINE * LINE;
        if out.last() != Some(&bytes) {
            out.push(bytes);
        }
        exponent += 1.0 / per_octave as f64;
    }
    out
}

/// Chases the ring at every size, both page sizes side by side and interleaved.
pub(super) fn measure(config: &Config, progress: Progress<'_>) -> Measurement {
    let machine = Machine::detect();
    let max = config.pick(1 << 20, 64 << 20, 256 << 20);
    let per_octave = config.pick(1, 1, 2);
    let sizes = sizes(max, per_octave);
    let sampling = SampleConfig {
        warmup: config.pick(
            Duration::from_micros(200),
            Duration::from_millis(2),
            Duration::from_millis(10),
        ),
        samples: config.pick(3, 5, 9),
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
        let huge: Vec<Option<usize>> = rings.iter().map(|(_, b)| b.huge_page_bytes()).collect();
        // Enough loads per repetition to go round the ring at least once.
        let loads = (bytes / LINE).max(4096) as u64;
        let mut cases: Vec<Case<'_>> = rings
            .iter()
            .map(|(pages, buffer)| {
                let words = buffer.as_slice();
                Case::new(format!("{pages:?}"), loads, move |reps| {
                    chase(words, reps * loads)
                })
            })
            .collect();
        let base = i as f64 / sizes.len() as f64;
        let results = interleaved(&mut cases, &sampling, None, &mut |f| {
            progress(&message, base + f / sizes.len() as f64)
        });
        for ((result, (pages, _)), huge_bytes) in results.into_iter().zip(&rings).zip(huge) {
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
        measured,
        advice_errors,
        threshold: config.threshold,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_is_one_cycle_through_every_line() {
        let buffer = ring(64 * 1000, Pages::Small, 5);
        let words = buffer.as_slice();
        let mut seen = vec![false; 1000];
        let mut at = 0usize;
        for _ in 0..1000 {
            assert!(!seen[at], "line {at} visited twice");
            seen[at] = true;
            at = words[at * WORDS_PER_LINE] as usize;
        }
        assert_eq!(at, 0);
        assert!(seen.iter().all(|&s| s));
        assert_eq!(chase(words, 1000), 0);
    }

    #[test]
    fn sizes_are_log_spaced_and_line_aligned() {
        assert_eq!(sizes(32 << 10, 1), vec![4096, 8192, 16384, 32768]);
        let two = sizes(16 << 10, 2);
        assert_eq!(two.len(), 5);
        assert!(two.iter().all(|b| b % 64 == 0));
        assert_eq!(two[1], 5760); // 4096 × √2 rounded down to a whole line
    }
}
