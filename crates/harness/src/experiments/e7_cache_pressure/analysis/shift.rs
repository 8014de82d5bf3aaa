//! The shift probe's reading (science-hardening item 2): whether placement, the core or time
//! within one process reproduces how far whole invocations differ at each control's size.
//!
//! The rule was fixed when it was written (2026-11-29), before any report measured it: see
//! [`RULE`]. Each factor is tested by a permutation restricted to the cells that share the
//! other two factors' levels (so that a strong factor does not pass for another), pooled over
//! the invocations; a factor reproduces the shift when it is both real inside a process and at
//! least half as wide, beyond what chance spreads, as the spread between invocations.

use super::super::measure::ShiftSample;
use crate::results::Table;
use crate::stats::{format_sig, median};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;

/// The rule, as the method and the summary state it.
pub(in super::super) const RULE: &str = "at each control's size, whole invocations are said \
    to shift when their means (over all of an invocation's probe timings) span more than 10 % of \
    their median; a factor (placement: the rings alive at once; the core: the CPU pinned to; \
    time: the rounds over the sweep) reproduces the shift when a permutation test restricted to \
    the cells that share the other factors' levels, pooled over the invocations, gives p < 0.01 \
    and its spread inside an invocation beyond chance (max − min of its level means, the median \
    over invocations, less the median of the same over the restricted permutations: a factor of \
    more levels spreads wider by chance alone) is at least half the spread between \
    invocations; where the shift is present \
    and no factor reproduces it, the shift is bounded, not explained";
/// More than this share of the median between the invocations' means is a shift.
const SHIFT_PRESENT: f64 = 0.10;
/// A factor's restricted permutation test must fall below this.
const ALPHA: f64 = 0.01;
/// A factor's spread must reach this share of the spread between invocations.
const SHARE: f64 = 0.5;
const PERMUTATIONS: usize = 999;
const SEED: u64 = 0x7368_6966_7432; // "shift2"

/// What may reproduce a shift inside one process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in super::super) enum Factor {
    Placement,
    Core,
    Time,
}

impl Factor {
    const ALL: [Factor; 3] = [Factor::Placement, Factor::Core, Factor::Time];

    fn name(self) -> &'static str {
        match self {
            Factor::Placement => "placement",
            Factor::Core => "core",
            Factor::Time => "time",
        }
    }

    fn level(self, s: &ShiftSample) -> usize {
        match self {
            Factor::Placement => s.allocation,
            Factor::Core => s.cpu,
            Factor::Time => s.round,
        }
    }

    /// The other two factors' levels: the stratum a permutation stays inside.
    fn stratum(self, s: &ShiftSample) -> (usize, usize) {
        match self {
            Factor::Placement => (s.cpu, s.round),
            Factor::Core => (s.allocation, s.round),
            Factor::Time => (s.allocation, s.cpu),
        }
    }
}

/// One factor at one size.
#[derive(Clone, Debug)]
pub(in super::super) struct FactorReading {
    pub factor: Factor,
    /// Its levels (the fewest of any invocation); a factor of one level is not tested.
    pub levels: usize,
    /// Max − min of its level means inside an invocation, the median over invocations (ns).
    pub spread: f64,
    /// The same under the restricted permutations, their median: what chance alone spreads
    /// (the more levels, the wider). The rule compares `spread − chance` (since 2026-11-29-3;
    /// the raw spread before, which favoured time, the factor of most levels).
    pub chance: f64,
    /// The pooled restricted permutation test's p (None: one level).
    pub p: Option<f64>,
    pub reproduces: bool,
}

/// The probe at one control's size.
#[derive(Clone, Debug)]
pub(in super::super) struct SizeReading {
    pub label: String,
    pub bytes: usize,
    /// Per invocation (its index), the mean of its timings (ns per load).
    pub invocation_means: Vec<(usize, f64)>,
    /// Max − min of the invocation means, and their median.
    pub between: f64,
    pub median: f64,
    pub present: bool,
    pub factors: Vec<FactorReading>,
    /// How long the rounds spanned inside an invocation (s, the median over invocations).
    pub seconds: f64,
    /// The positive control of this size: its own cost at P = 0 per invocation (the
    /// screen's), where the screen ran.
    pub control: Vec<(usize, f64)>,
}

impl SizeReading {
    pub fn reproducing(&self) -> Vec<Factor> {
        self.factors
            .iter()
            .filter(|f| f.reproduces)
            .map(|f| f.factor)
            .collect()
    }
}

/// The probe's readings, one per control size, smallest first.
pub(in super::super) struct ShiftReading {
    pub sizes: Vec<SizeReading>,
}

impl ShiftReading {
    /// The readings of `samples`; `control(label)` gives the positive control of that label's
    /// own cost at P = 0 per invocation (the screen's), set beside the ring's means.
    pub fn of(
        samples: &[ShiftSample],
        control: impl Fn(&str) -> Vec<(usize, f64)>,
    ) -> Option<ShiftReading> {
        let mut labels: Vec<(String, usize)> = Vec::new();
        for s in samples {
            if !labels.iter().any(|(l, _)| *l == s.label) {
                labels.push((s.label.clone(), s.bytes));
            }
        }
        labels.sort_by_key(|&(_, bytes)| bytes);
        let sizes: Vec<SizeReading> = labels
            .into_iter()
            .filter_map(|(label, bytes)| {
                let cells: Vec<&ShiftSample> =
                    samples.iter().filter(|s| s.label == label).collect();
                let control = control(&label);
                size_reading(label, bytes, &cells).map(|mut reading| {
                    reading.control = control;
                    reading
                })
            })
            .collect();
        (!sizes.is_empty()).then_some(ShiftReading { sizes })
    }

    /// The summary's `shift_probe`.
    pub fn summary(&self) -> Json {
        json!({
            "rule": RULE,
            "sizes": self.sizes.iter().map(|s| json!({
                "label": s.label,
                "bytes": s.bytes,
                "invocation_means_ns": s.invocation_means.iter()
                    .map(|(i, ns)| json!({"invocation": i, "ns": ns}))
                    .collect::<Vec<_>>(),
                "between_ns": s.between,
                "median_ns": s.median,
                "shift_present": s.present,
                "seconds": s.seconds,
                "factors": s.factors.iter().map(|f| json!({
                    "factor": f.factor.name(),
                    "levels": f.levels,
                    "spread_ns": f.spread,
                    "chance_spread_ns": f.chance,
                    "p": f.p,
                    "reproduces": f.reproduces,
                })).collect::<Vec<_>>(),
                "reading": s.reading_word(),
                "control_ns": s.control.iter()
                    .map(|(i, ns)| json!({"invocation": i, "ns": ns}))
                    .collect::<Vec<_>>(),
                "control_correlation": correlation(&s.invocation_means, &s.control),
            })).collect::<Vec<_>>(),
        })
    }

    /// The table: one row per size.
    pub fn table(&self) -> Table {
        let mut headers = vec![
            "shift probe at".to_string(),
            "invocation means (ns per load)".to_string(),
            "between invocations (ns)".to_string(),
        ];
        headers.extend(
            Factor::ALL
                .iter()
                .map(|f| format!("{} inside one (ns, by chance ns, p)", f.name())),
        );
        headers.push("reading".to_string());
        let rows = self
            .sizes
            .iter()
            .map(|s| {
                let mut row = vec![
                    format!(
                        "{} ({})",
                        s.label,
                        kiki_core::units::rounded_bytes(s.bytes as f64)
                    ),
                    s.invocation_means
                        .iter()
                        .map(|(_, ns)| format_sig(*ns))
                        .collect::<Vec<_>>()
                        .join(", "),
                    format!(
                        "{} ({:.0} %)",
                        format_sig(s.between),
                        100.0 * s.between / s.median
                    ),
                ];
                row.extend(Factor::ALL.iter().map(|&factor| {
                    match s.factors.iter().find(|f| f.factor == factor) {
                        Some(FactorReading {
                            p: Some(p),
                            spread,
                            chance,
                            reproduces,
                            ..
                        }) => format!(
                            "{}, {}, p {}{}",
                            format_sig(*spread),
                            format_sig(*chance),
                            p_words(*p),
                            if *reproduces { " (reproduces)" } else { "" }
                        ),
                        _ => "— (one level)".to_string(),
                    }
                }));
                row.push(s.reading_word().to_string());
                row
            })
            .collect();
        Table { headers, rows }
    }

    /// The findings' sentence.
    pub fn sentence(&self) -> String {
        let parts: Vec<String> = self.sizes.iter().map(SizeReading::sentence).collect();
        format!(
            "Shift probe (what inside one process reproduces whole-invocation shifts; the rule \
             fixed before the data: {RULE}): {}.",
            parts.join("; ")
        )
    }
}

impl SizeReading {
    fn reading_word(&self) -> &'static str {
        match (self.present, self.reproducing().is_empty()) {
            (false, _) => "no shift",
            (true, false) => "reproduced",
            (true, true) => "bounded, not explained",
        }
    }

    fn sentence(&self) -> String {
        let k = self.invocation_means.len();
        let means: Vec<String> = self
            .invocation_means
            .iter()
            .map(|(_, ns)| format_sig(*ns))
            .collect();
        let head = format!(
            "at {} ({}) the {k} invocations' means are {} ns, {} ns apart ({:.0} % of their \
             median)",
            self.label,
            kiki_core::units::rounded_bytes(self.bytes as f64),
            means.join(", "),
            format_sig(self.between),
            100.0 * self.between / self.median
        );
        let inside: Vec<String> = self
            .factors
            .iter()
            .map(|f| match f.p {
                Some(p) => format!(
                    "{} {} ns ({} by chance, p {})",
                    f.factor.name(),
                    format_sig(f.spread),
                    format_sig(f.chance),
                    p_words(p)
                ),
                None => format!("{} not tested (one level)", f.factor.name()),
            })
            .collect();
        let within = format!(
            "inside one invocation (rounds over {:.0} s) {}",
            self.seconds,
            inside.join(", ")
        );
        let reading = if k < 2 {
            "one invocation: no shift between invocations to explain".to_string()
        } else if !self.present {
            format!(
                "the ring shows no whole-invocation shift (within {:.0} %)",
                SHIFT_PRESENT * 100.0
            )
        } else {
            let named: Vec<&str> = self.reproducing().iter().map(|f| f.name()).collect();
            if named.is_empty() {
                format!(
                    "no factor inside a process reproduces it, so its mechanism is not found \
                     here but bounded: whole invocations differ by at most {} ns at this size \
                     (something the probe's rounds did not catch: fixed for a process's life, or \
                     episodes that fell between the rounds)",
                    format_sig(self.between)
                )
            } else {
                format!("reproduced inside one process by {}", named.join(" and "))
            }
        };
        format!("{head}; {within}: {reading}{}", self.control_words())
    }

    /// The control of this size beside the ring: its invocations' values, their span, and
    /// whether the ring's means move with them; a ring that shows no shift where the control
    /// shifted does not reproduce the control's shift, whose mechanism is then not found.
    fn control_words(&self) -> String {
        if self.control.len() < 2 {
            return String::new();
        }
        let values: Vec<f64> = self.control.iter().map(|(_, ns)| *ns).collect();
        let span = spread(&values);
        let middle = median(&values).unwrap_or(f64::NAN);
        let shifted = span > SHIFT_PRESENT * middle.abs();
        let r = correlation(&self.invocation_means, &self.control).map_or(String::new(), |r| {
            format!("; Pearson's r with the ring's means {r:.2}")
        });
        let verdict = match (shifted, self.present) {
            (true, false) => {
                "; the control shifted and the ring of its size did not, so the probe does not \
                 reproduce the control's shift: its mechanism is not found here"
            }
            (true, true) => "",
            (false, _) => "; the control did not shift either",
        };
        format!(
            " (beside it, a comparison added after the first report that ran the probe: the {} \
             control itself, its cost at P = 0 per invocation: {} ns, spanning {:.0} % of their \
             median{r}{verdict})",
            self.label,
            values
                .iter()
                .map(|v| format_sig(*v))
                .collect::<Vec<_>>()
                .join(", "),
            100.0 * span / middle.abs()
        )
    }
}

/// The probe's timings as series, one per (size, ring, CPU): each invocation's rounds in
/// order, one block per invocation.
pub(in super::super) fn raw_series(samples: &[ShiftSample]) -> Vec<crate::results::Series> {
    let mut keys: Vec<(usize, &str, usize, usize)> = samples
        .iter()
        .map(|s| (s.bytes, s.label.as_str(), s.allocation, s.cpu))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .map(|(bytes, label, allocation, cpu)| {
            let mut cells: Vec<&ShiftSample> = samples
                .iter()
                .filter(|s| s.label == label && s.allocation == allocation && s.cpu == cpu)
                .collect();
            cells.sort_by_key(|s| (s.invocation, s.round));
            let (allocation, cpu, bytes) =
                (allocation.to_string(), cpu.to_string(), bytes.to_string());
            crate::experiments::series(
                &[
                    ("part", "shift"),
                    ("case", label),
                    ("bytes", &bytes),
                    ("allocation", &allocation),
                    ("cpu", &cpu),
                ],
                "ns/load",
                cells.iter().map(|s| s.ns).collect(),
            )
        })
        .collect()
}

/// The method's sentences on the probe (empty where it did not run: reports before
/// 2026-11-29).
pub(in super::super) fn method(samples: &[ShiftSample]) -> String {
    let Some(first) = samples.first() else {
        return String::new();
    };
    let count = |key: fn(&ShiftSample) -> usize| {
        samples
            .iter()
            .filter(|s| s.invocation == first.invocation)
            .map(key)
            .max()
            .map_or(0, |m| m + 1)
    };
    let mut controls: Vec<(usize, &str)> = samples
        .iter()
        .map(|s| (s.bytes, s.label.as_str()))
        .collect();
    controls.sort_unstable();
    controls.dedup();
    let sizes: Vec<String> = controls
        .iter()
        .map(|(bytes, label)| {
            format!(
                "{} ({label})",
                kiki_core::units::rounded_bytes(*bytes as f64)
            )
        })
        .collect();
    format!(
        " Shift probe (what inside one process reproduces the invocations' shifts): at each \
         positive control's size ({}), {} rings alive at once (E6's shuffled ring, one cycle \
         through every line, the same order in each), each on frames of its own on huge pages, \
         timed on each of {} CPUs in turn (the thread pinned), in {} rounds: one before the \
         chain sweep, one after each pressure count and one after each phase of the table-page \
         split (where it ran), so that the controls' own timings and the split's phases fall \
         between them; in a round the CPUs in a seeded order and, on each, the rings in one \
         too, each ring walked round once untimed and then timed in {} passes (at most {} loads \
         each) on the thread's CPU clock, the median kept; after a round the thread goes back \
         to the CPU it left, so that the sweep resumes where it was. On 2 MiB pages a ring's \
         placement cannot move its L1 or L2 sets (their index bits lie inside a page): \
         placement here stands for the host frames behind the pages and for whatever hashes \
         higher address bits (a last level's slices), not for L2 conflicts.",
        sizes.join(", "),
        count(|s| s.allocation),
        count(|s| s.cpu),
        count(|s| s.round),
        super::super::measure::SHIFT_SAMPLES,
        super::super::measure::SHIFT_MAX_LOADS,
    )
}

fn p_words(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".to_string()
    } else {
        format!("{p:.3}")
    }
}

/// One size's reading from its timings (every invocation's).
fn size_reading(label: String, bytes: usize, cells: &[&ShiftSample]) -> Option<SizeReading> {
    let by_invocation = group(cells, |s| s.invocation);
    let invocation_means: Vec<(usize, f64)> = by_invocation
        .iter()
        .map(|(&i, c)| (i, mean(c.iter().map(|s| s.ns))))
        .collect();
    if invocation_means.is_empty() {
        return None;
    }
    let values: Vec<f64> = invocation_means.iter().map(|(_, ns)| *ns).collect();
    let median = median(&values)?;
    let between = spread(&values);
    let present = values.len() >= 2 && between > SHIFT_PRESENT * median;
    let seconds = median_of(by_invocation.values().map(|c| {
        let times: Vec<f64> = c.iter().map(|s| s.seconds).collect();
        spread(&times)
    }));
    let factors = Factor::ALL
        .iter()
        .map(|&factor| {
            let levels = by_invocation
                .values()
                .map(|c| group(c, |s| factor.level(s)).len())
                .min()
                .unwrap_or(0);
            let spread_inside = median_of(
                by_invocation
                    .values()
                    .map(|c| spread(&level_means(c, factor))),
            );
            let (p, chance) = if levels >= 2 {
                let (p, chance) = permutation_p(&by_invocation, factor);
                (Some(p), chance)
            } else {
                (None, 0.0)
            };
            let reproduces = present
                && p.is_some_and(|p| p < ALPHA)
                && spread_inside - chance >= SHARE * between;
            FactorReading {
                factor,
                levels,
                spread: spread_inside,
                chance,
                p,
                reproduces,
            }
        })
        .collect();
    Some(SizeReading {
        label,
        bytes,
        invocation_means,
        between,
        median,
        present,
        factors,
        seconds,
        control: Vec::new(),
    })
}

/// Pearson's r between the ring's invocation means and the control's, over the invocations
/// both have (None under three).
fn correlation(ring: &[(usize, f64)], control: &[(usize, f64)]) -> Option<f64> {
    let pairs: Vec<(f64, f64)> = ring
        .iter()
        .filter_map(|(i, r)| control.iter().find(|(j, _)| j == i).map(|(_, c)| (*r, *c)))
        .collect();
    if pairs.len() < 3 {
        return None;
    }
    let n = pairs.len() as f64;
    let (mx, my) = (
        pairs.iter().map(|p| p.0).sum::<f64>() / n,
        pairs.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let cov: f64 = pairs.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let vx: f64 = pairs.iter().map(|(x, _)| (x - mx).powi(2)).sum();
    let vy: f64 = pairs.iter().map(|(_, y)| (y - my).powi(2)).sum();
    let r = cov / (vx * vy).sqrt();
    r.is_finite().then_some(r)
}

fn group<'a, K: Ord>(
    cells: &[&'a ShiftSample],
    key: impl Fn(&ShiftSample) -> K,
) -> BTreeMap<K, Vec<&'a ShiftSample>> {
    let mut groups: BTreeMap<K, Vec<&ShiftSample>> = BTreeMap::new();
    for &s in cells {
        groups.entry(key(s)).or_default().push(s);
    }
    groups
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    sum / n.max(1) as f64
}

fn spread(values: &[f64]) -> f64 {
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    if values.is_empty() {
        0.0
    } else {
        max - min
    }
}

fn median_of(values: impl Iterator<Item = f64>) -> f64 {
    let values: Vec<f64> = values.collect();
    median(&values).unwrap_or(0.0)
}

/// A factor's level means inside one invocation.
fn level_means(cells: &[&ShiftSample], factor: Factor) -> Vec<f64> {
    group(cells, |s| factor.level(s))
        .values()
        .map(|c| mean(c.iter().map(|s| s.ns)))
        .collect()
}

/// The variance of a factor's level means, from values in the cells' order.
fn statistic(levels: &[usize], values: &[f64]) -> f64 {
    let means = level_means_of(levels, values);
    let grand = mean(means.iter().copied());
    means.iter().map(|m| (m - grand).powi(2)).sum::<f64>() / means.len() as f64
}

/// The pooled restricted permutation test of `factor`: the sum over invocations of the
/// variance of its level means, against the same sum with the timings shuffled among the
/// cells that share the other two factors' levels (seeded). Returns p and the chance spread:
/// the median over the permutations of the factor's spread (the median over invocations of
/// max − min of its level means).
fn permutation_p(by_invocation: &BTreeMap<usize, Vec<&ShiftSample>>, factor: Factor) -> (f64, f64) {
    struct Prepared {
        levels: Vec<usize>,
        values: Vec<f64>,
        strata: Vec<Vec<usize>>,
    }
    let prepared: Vec<Prepared> = by_invocation
        .values()
        .map(|cells| {
            let mut strata: BTreeMap<(usize, usize), Vec<usize>> = BTreeMap::new();
            for (i, s) in cells.iter().enumerate() {
                strata.entry(factor.stratum(s)).or_default().push(i);
            }
            Prepared {
                levels: cells.iter().map(|s| factor.level(s)).collect(),
                values: cells.iter().map(|s| s.ns).collect(),
                strata: strata.into_values().collect(),
            }
        })
        .collect();
    let observed: f64 = prepared
        .iter()
        .map(|p| statistic(&p.levels, &p.values))
        .sum();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(SEED ^ factor as u64);
    let mut at_least = 0usize;
    let mut shuffled: Vec<Vec<f64>> = prepared.iter().map(|p| p.values.clone()).collect();
    let mut chance_spreads = Vec::with_capacity(PERMUTATIONS);
    for _ in 0..PERMUTATIONS {
        let mut total = 0.0;
        for (p, values) in prepared.iter().zip(&mut shuffled) {
            for stratum in &p.strata {
                for i in (1..stratum.len()).rev() {
                    let j = rng.random_range(0..=i);
                    values.swap(stratum[i], stratum[j]);
                }
            }
            total += statistic(&p.levels, values);
        }
        chance_spreads.push(median_of(
            prepared
                .iter()
                .zip(&shuffled)
                .map(|(p, values)| spread(&level_means_of(&p.levels, values))),
        ));
        // A tolerance for sums equal up to rounding (ties count against the factor).
        if total >= observed * (1.0 - 1e-12) {
            at_least += 1;
        }
    }
    (
        (1 + at_least) as f64 / (PERMUTATIONS + 1) as f64,
        median_of(chance_spreads.into_iter()),
    )
}

/// The level means of `values` labelled by `levels`.
fn level_means_of(levels: &[usize], values: &[f64]) -> Vec<f64> {
    let mut sums: BTreeMap<usize, (f64, usize)> = BTreeMap::new();
    for (&level, &v) in levels.iter().zip(values) {
        let entry = sums.entry(level).or_insert((0.0, 0));
        entry.0 += v;
        entry.1 += 1;
    }
    sums.values().map(|(s, n)| s / *n as f64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Timings of `invocations`, 3 rings × 2 CPUs × 6 rounds each, `ns` giving each cell's value.
    fn samples(
        invocations: usize,
        ns: impl Fn(usize, usize, usize, usize) -> f64,
    ) -> Vec<ShiftSample> {
        let mut out = Vec::new();
        for invocation in 0..invocations {
            for round in 0..6 {
                for cpu in 0..2 {
                    for allocation in 0..3 {
                        out.push(ShiftSample {
                            invocation,
                            label: "½ L3".into(),
                            bytes: 3 << 20,
                            allocation,
                            cpu,
                            round,
                            seconds: round as f64 * 8.0,
                            ns: ns(invocation, allocation, cpu, round),
                        });
                    }
                }
            }
        }
        out
    }

    /// A small deterministic jitter (±0.3 ns) so that no two cells tie.
    fn jitter(a: usize, b: usize, c: usize, d: usize) -> f64 {
        let h = (a * 7919 + b * 104_729 + c * 1_299_709 + d * 15_485_863) % 1000;
        (h as f64 / 1000.0 - 0.5) * 0.6
    }

    fn reading(s: &[ShiftSample]) -> SizeReading {
        ShiftReading::of(s, |_| Vec::new()).unwrap().sizes.remove(0)
    }

    /// An invocation whose second ring sits on frames that conflict: each invocation's mean
    /// moves with how slow that ring is, and placement reproduces the shift; nothing else does.
    #[test]
    fn placement_that_differs_by_ring_is_named() {
        let slow = [10.0, 40.0, 15.0, 12.0, 50.0];
        let s = samples(5, |i, a, c, r| {
            17.0 + if a == 1 { slow[i] } else { 0.0 } + jitter(i, a, c, r)
        });
        let r = reading(&s);
        assert!(r.present);
        assert_eq!(r.reproducing(), [Factor::Placement], "{r:?}");
        assert!(r
            .sentence()
            .contains("reproduced inside one process by placement"));
    }

    /// The core: one CPU slower in every invocation, by an amount that varies.
    #[test]
    fn a_slow_core_is_named() {
        let s = samples(5, |i, a, c, r| {
            17.0 + if c == 1 { 20.0 + 15.0 * i as f64 } else { 0.0 } + jitter(i, a, c, r)
        });
        assert_eq!(reading(&s).reproducing(), [Factor::Core]);
    }

    /// Time: a neighbour's load rising over the rounds of some invocations.
    #[test]
    fn a_drift_over_the_rounds_is_named() {
        let s = samples(5, |i, a, c, r| {
            17.0 + (1 - i % 2) as f64 * 8.0 * r as f64 + jitter(i, a, c, r)
        });
        assert_eq!(reading(&s).reproducing(), [Factor::Time]);
    }

    /// Noise alone spreads a factor of more levels wider (fewer timings per level mean): the
    /// chance spread, which the rule subtracts, is larger for time (6 rounds) than for the
    /// core (2 CPUs), and each factor's observed spread is about its chance spread.
    #[test]
    fn chance_spreads_a_factor_of_more_levels_wider() {
        let s = samples(5, |i, a, c, r| 17.0 + jitter(i, a, c, r));
        let r = reading(&s);
        let factor = |f: Factor| r.factors.iter().find(|x| x.factor == f).unwrap().clone();
        let (time, core) = (factor(Factor::Time), factor(Factor::Core));
        assert!(time.chance > core.chance, "{time:?} {core:?}");
        for f in &r.factors {
            assert!(f.chance > 0.0, "{f:?}");
            assert!((f.spread - f.chance).abs() < 0.3, "{f:?}");
        }
    }

    /// Whole invocations shifted with nothing inside them varying: bounded, not explained.
    #[test]
    fn a_shift_fixed_for_the_process_is_bounded() {
        let level = [16.0, 36.0, 21.0, 17.0, 55.0];
        let s = samples(5, |i, a, c, r| level[i] + jitter(i, a, c, r));
        let r = reading(&s);
        assert!(r.present);
        assert!(r.reproducing().is_empty());
        assert!((r.between - 39.0).abs() < 1.0, "{}", r.between);
        assert!(r.sentence().contains("bounded"), "{}", r.sentence());
        for f in &r.factors {
            assert!(f.p.unwrap() > ALPHA, "{f:?}");
        }
        assert_eq!(
            ShiftReading { sizes: vec![r] }.table().rows[0]
                .last()
                .unwrap(),
            "bounded, not explained"
        );
    }

    /// No shift (the negative control of the rule): a factor may be real, but there is nothing
    /// between invocations for it to reproduce.
    #[test]
    fn agreeing_invocations_have_no_shift_to_explain() {
        let s = samples(5, |i, a, c, r| {
            17.0 + if a == 0 { 0.5 } else { 0.0 } + jitter(i, a, c, r)
        });
        let r = reading(&s);
        assert!(!r.present);
        assert!(r.reproducing().is_empty());
        assert!(r.sentence().contains("no whole-invocation shift"));
        let summary = ShiftReading { sizes: vec![r] }.summary();
        assert_eq!(summary["sizes"][0]["reading"], "no shift");
        assert_eq!(summary["sizes"][0]["factors"].as_array().unwrap().len(), 3);
    }

    /// A control that shifted beside a ring that did not: the probe says it does not
    /// reproduce it; the raw timings come out as one series per ring and CPU.
    #[test]
    fn a_control_that_shifts_beside_a_steady_ring_is_not_reproduced() {
        let s = samples(5, |i, a, c, r| 5.5 + jitter(i, a, c, r));
        let control = vec![(0, 5.44), (1, 6.21), (2, 6.25), (3, 3.48), (4, 3.36)];
        let reading = ShiftReading::of(&s, |label| {
            assert_eq!(label, "½ L3");
            control.clone()
        })
        .unwrap();
        let text = reading.sentence();
        assert!(
            text.contains("the ring shows no whole-invocation shift"),
            "{text}"
        );
        assert!(
            text.contains("the control shifted and the ring of its size did not"),
            "{text}"
        );
        assert!(text.contains("spanning 53 % of their median"), "{text}");
        assert_eq!(reading.summary()["sizes"][0]["control_ns"][3]["ns"], 3.48);
        let series = raw_series(&s);
        assert_eq!(series.len(), 3 * 2);
        assert!(series.iter().all(|x| x.samples.len() == 5 * 6));
        assert!(
            (correlation(
                &[(0, 1.0), (1, 2.0), (2, 3.0)],
                &[(0, 2.0), (1, 4.0), (2, 6.0)]
            )
            .unwrap()
                - 1.0)
                .abs()
                < 1e-12
        );
    }

    /// One CPU: the core factor has one level and is not tested.
    #[test]
    fn a_factor_of_one_level_is_not_tested() {
        let s: Vec<ShiftSample> = samples(3, |i, a, c, r| 17.0 + jitter(i, a, c, r))
            .into_iter()
            .filter(|s| s.cpu == 0)
            .collect();
        let r = reading(&s);
        let core = r.factors.iter().find(|f| f.factor == Factor::Core).unwrap();
        assert_eq!((core.levels, core.p), (1, None));
        assert!(r.sentence().contains("core not tested (one level)"));
    }
}
