//! Statistics of repeated samples: median, extremes, MAD, percentiles, and the intervals and
//! claims of estimates and comparisons across process invocations.

/// Median, extremes and spread of one set of samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub count: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Median absolute deviation from the median (unscaled).
    pub mad: f64,
}

impl Summary {
    /// `None` for an empty sample set (or one holding a NaN).
    pub fn of(samples: &[f64]) -> Option<Summary> {
        let sorted = sorted(samples)?;
        // The 50th percentile, not `median`: for an even count it interpolates
        // `a + (b - a) * 0.5`, which can differ from `(a + b) / 2` in the last bit, and the
        // measured numbers stay bit-identical to those already reported.
        let median = percentile_sorted(&sorted, 50.0);
        let deviations: Vec<f64> = sorted.iter().map(|x| (x - median).abs()).collect();
        Some(Summary {
            count: sorted.len(),
            median,
            min: sorted[0],
            max: sorted[sorted.len() - 1],
            mad: percentile(&deviations, 50.0)?,
        })
    }

    /// The MAD as a fraction of the median (0 when the median is 0).
    pub fn relative_mad(&self) -> f64 {
        if self.median == 0.0 {
            0.0
        } else {
            self.mad / self.median.abs()
        }
    }
}

fn sorted(samples: &[f64]) -> Option<Vec<f64>> {
    if samples.is_empty() || samples.iter().any(|x| x.is_nan()) {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    Some(sorted)
}

/// The median: the middle value, or `(a + b) / 2` of the middle two for an even count;
/// `None` when empty or holding a NaN (callers that tolerate non-finite samples drop them first).
pub fn median(samples: &[f64]) -> Option<f64> {
    let sorted = sorted(samples)?;
    let mid = sorted.len() / 2;
    Some(if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    })
}

pub fn min_of(samples: &[f64]) -> Option<f64> {
    sorted(samples).map(|s| s[0])
}

pub fn max_of(samples: &[f64]) -> Option<f64> {
    sorted(samples).map(|s| s[s.len() - 1])
}

/// Median absolute deviation from the median (unscaled).
pub fn mad_of(samples: &[f64]) -> Option<f64> {
    Summary::of(samples).map(|s| s.mad)
}

/// The `p`-th percentile (0–100) with linear interpolation between order statistics
/// (the method numpy calls "linear"); `None` when empty.
pub fn percentile(samples: &[f64], p: f64) -> Option<f64> {
    sorted(samples).map(|s| percentile_sorted(&s, p))
}

fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    let rank = (p.clamp(0.0, 100.0) / 100.0) * (sorted.len() - 1) as f64;
    let low = rank.floor() as usize;
    let high = rank.ceil() as usize;
    sorted[low] + (sorted[high] - sorted[low]) * (rank - low as f64)
}

/// A number in at most four significant figures, without scientific notation for the ranges
/// the report shows.
pub fn format_sig(value: f64) -> String {
    if !value.is_finite() {
        return "–".to_string();
    }
    let magnitude = value.abs();
    if magnitude >= 1000.0 {
        format!("{value:.0}")
    } else if magnitude >= 100.0 {
        format!("{value:.1}")
    } else if magnitude >= 10.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.3}")
    }
}

/// How a compared pair comes out at a practical threshold: an order is claimed only when the
/// whole confidence interval lies beyond it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Claim {
    /// `a` takes less time than `b` by more than the threshold, across the whole interval.
    Faster,
    /// `a` takes more time than `b` by more than the threshold, across the whole interval.
    Slower,
    /// Neither: level at this resolution (the interval reaches inside the threshold).
    Level,
}

/// A paired comparison of two timed quantities: the ratio of `a`'s time to `b`'s with its
/// confidence interval, how much data it rests on, and the claim it supports.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Comparison {
    /// The geometric mean of the paired per-round ratios `a / b`, averaged per invocation first.
    pub ratio: f64,
    /// The interval's bounds (2.5th and 97.5th percentiles of the bootstrap distribution).
    pub low: f64,
    pub high: f64,
    /// Process invocations and rounds (in all) it rests on.
    pub invocations: usize,
    pub rounds: usize,
    pub claim: Claim,
}

impl Comparison {
    /// Whether the whole interval lies inside the threshold (the bounds [`Claim`] orders
    /// beyond): only then are the two level. A `Level` claim whose interval reaches past the
    /// threshold on either side is unresolved, not level.
    pub fn within(&self, threshold: f64) -> bool {
        self.low >= 1.0 / (1.0 + threshold) && self.high <= 1.0 + threshold
    }
}

/// Bootstrap resamples behind every [`Comparison`].
pub const BOOTSTRAP_RESAMPLES: usize = 2_000;

/// Compares `a` with `b`, two times measured in the same interleaved rounds: `a[i][r]` and
/// `b[i][r]` were taken in round `r` of process invocation `i`. The statistic is the mean over
/// invocations of the mean per-round log-ratio `ln(a / b)`; its 95 % interval comes from a
/// hierarchical bootstrap (Kalibera & Jones): invocations are resampled with replacement, then
/// rounds within each chosen invocation. With one invocation only the rounds vary, and the
/// interval knows nothing of what changes between processes. The bootstrap is seeded, so the
/// same data always gives the same interval. An order (`Faster`, `Slower`) is claimed only when
/// the whole interval lies beyond `1 ± threshold` (e.g. 0.03), else the two are `Level`.
///
/// `None` when there is no invocation with a finite, positive pair.
pub fn compare(a: &[Vec<f64>], b: &[Vec<f64>], threshold: f64, seed: u64) -> Option<Comparison> {
    use rand::{RngExt, SeedableRng};
    let logs: Vec<Vec<f64>> = a
        .iter()
        .zip(b)
        .map(|(xs, ys)| {
            xs.iter()
                .zip(ys)
                .filter(|(x, y)| x.is_finite() && y.is_finite() && **x > 0.0 && **y > 0.0)
                .map(|(x, y)| (x / y).ln())
                .collect::<Vec<f64>>()
        })
        .filter(|logs| !logs.is_empty())
        .collect();
    if logs.is_empty() {
        return None;
    }
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
    let point = mean(&logs.iter().map(|l| mean(l)).collect::<Vec<_>>());
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut statistics = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
    for _ in 0..BOOTSTRAP_RESAMPLES {
        let mut total = 0.0;
        for _ in 0..logs.len() {
            let invocation = &logs[rng.random_range(0..logs.len())];
            let mut sum = 0.0;
            for _ in 0..invocation.len() {
                sum += invocation[rng.random_range(0..invocation.len())];
            }
            total += sum / invocation.len() as f64;
        }
        statistics.push(total / logs.len() as f64);
    }
    statistics.sort_by(f64::total_cmp);
    // One invocation: its rounds are the independent units.
    let clusters = if logs.len() >= 2 {
        logs.len()
    } else {
        logs[0].len()
    };
    let (low, high) = interval_of(point, &statistics, clusters);
    let (low, high) = (low.exp(), high.exp());
    Some(Comparison {
        ratio: point.exp(),
        low,
        high,
        invocations: logs.len(),
        rounds: logs.iter().map(Vec::len).sum(),
        claim: claim_at(low, high, threshold),
    })
}

/// Student's t, two-sided 95 %, for `df` degrees of freedom (≥ 1; 0 gives an unbounded
/// interval).
pub fn t95(df: usize) -> f64 {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    match df {
        0 => f64::INFINITY,
        _ => StudentsT::new(0.0, 1.0, df as f64).map_or(f64::INFINITY, |t| t.inverse_cdf(0.975)),
    }
}

/// The 95 % interval of a statistic from its sorted bootstrap distribution, over `clusters`
/// independent units at the top level (invocations, slots; or rounds when there is one
/// invocation). A percentile bootstrap over a handful of clusters covers far less than 95 %
/// (with 2 it is about the range of the two), so the interval is the wider of the percentile
/// one and `point ± t(clusters − 1) · sd · √(n / (n − 1))` from the bootstrap's spread: small-
/// sample corrected, as a t interval would be. One cluster gives an unbounded interval.
fn interval_of(point: f64, sorted: &[f64], clusters: usize) -> (f64, f64) {
    let n = clusters as f64;
    let mean = sorted.iter().sum::<f64>() / sorted.len() as f64;
    let variance = sorted.iter().map(|x| (x - mean).powi(2)).sum::<f64>()
        / (sorted.len() as f64 - 1.0).max(1.0);
    let half = if clusters >= 2 {
        t95(clusters - 1) * variance.sqrt() * (n / (n - 1.0)).sqrt()
    } else {
        f64::INFINITY
    };
    (
        percentile_sorted(sorted, 2.5).min(point - half),
        percentile_sorted(sorted, 97.5).max(point + half),
    )
}

/// Blocks of rounds, one per process invocation (or slot): `blocks[i][r]`.
pub type Blocks = Vec<Vec<f64>>;

/// One cell of [`compare_slots`]: `a`'s blocks and `b`'s.
pub type SlotPair = (Blocks, Blocks);

/// Compares builds (or anything timed in separate processes): `cells[c] = (a, b)` holds cell
/// `c`'s times, `a[i]` and `b[i]` measured by two different processes run side by side in slot
/// `i` (slots interleave the two, so slot `i` of each shares the machine's state). Rounds are
/// not paired (they come from different processes): per cell and slot the statistic is
/// `mean ln a − mean ln b`, averaged over slots and then over cells. The 95 % interval comes
/// from a hierarchical bootstrap that resamples slots (the same slots for every cell, since a
/// slot's state touches all of them) and then each side's rounds within them. With one cell it
/// is that cell's ratio; with many, their geometric mean. Claims as in [`compare`].
///
/// `None` when no cell has a slot with finite, positive times on both sides.
pub fn compare_slots(cells: &[SlotPair], threshold: f64, seed: u64) -> Option<Comparison> {
    use rand::{RngExt, SeedableRng};
    let logs = |xs: &[f64]| -> Vec<f64> {
        xs.iter()
            .filter(|x| x.is_finite() && **x > 0.0)
            .map(|x| x.ln())
            .collect()
    };
    // Per cell, per slot: (ln a rounds, ln b rounds), where both sides have data.
    type LogSlots = Vec<Option<(Vec<f64>, Vec<f64>)>>;
    let slots = cells.iter().map(|(a, b)| a.len().min(b.len())).max()?;
    let cells: Vec<LogSlots> = cells
        .iter()
        .map(|(a, b)| {
            (0..slots)
                .map(|i| {
                    let (x, y) = (logs(a.get(i)?), logs(b.get(i)?));
                    (!x.is_empty() && !y.is_empty()).then_some((x, y))
                })
                .collect()
        })
        .filter(|cell: &LogSlots| cell.iter().any(Option::is_some))
        .collect();
    if cells.is_empty() {
        return None;
    }
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
    // The statistic over a choice of slots; `draw` picks each side's rounds.
    let statistic = |chosen: &[usize], draw: &mut dyn FnMut(&[f64]) -> f64| -> Option<f64> {
        let mut per_cell = Vec::with_capacity(cells.len());
        for cell in &cells {
            let mut differences = Vec::with_capacity(chosen.len());
            for &i in chosen {
                if let Some((a, b)) = &cell[i] {
                    differences.push(draw(a) - draw(b));
                }
            }
            if !differences.is_empty() {
                per_cell.push(mean(&differences));
            }
        }
        (!per_cell.is_empty()).then(|| mean(&per_cell))
    };
    let all: Vec<usize> = (0..slots).collect();
    let point = statistic(&all, &mut |xs| mean(xs))?;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut statistics = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
    let mut chosen = vec![0; slots];
    for _ in 0..BOOTSTRAP_RESAMPLES {
        for slot in chosen.iter_mut() {
            *slot = rng.random_range(0..slots);
        }
        let mut draw = |xs: &[f64]| {
            (0..xs.len())
                .map(|_| xs[rng.random_range(0..xs.len())])
                .sum::<f64>()
                / xs.len() as f64
        };
        // A resample whose slots hold no data for any cell is skipped.
        if let Some(value) = statistic(&chosen, &mut draw) {
            statistics.push(value);
        }
    }
    if statistics.is_empty() {
        return None;
    }
    statistics.sort_by(f64::total_cmp);
    let (low, high) = interval_of(point, &statistics, slots);
    let (low, high) = (low.exp(), high.exp());
    Some(Comparison {
        ratio: point.exp(),
        low,
        high,
        invocations: slots,
        rounds: cells
            .iter()
            .flatten()
            .flatten()
            .map(|(a, b)| a.len() + b.len())
            .sum(),
        claim: claim_at(low, high, threshold),
    })
}

/// Compares two costs that are themselves differences taken in the same rounds (a table-miss
/// cost: a chain's time less its hot twin's), where single rounds may come out zero or negative
/// and a per-round log-ratio does not exist: the statistic is the ratio of the means, `mean a /
/// mean b` (each the mean over invocations of the invocation's mean), with a 95 % interval from
/// the same hierarchical bootstrap as [`compare`] (invocations, then paired rounds). A resample
/// whose means are not both positive leaves the interval unbounded on that side, so the claim
/// is `Level` unless nearly every resample has both costs positive.
///
/// `None` when either mean is not positive (there is no cost to compare).
pub fn compare_differences(
    a: &[Vec<f64>],
    b: &[Vec<f64>],
    threshold: f64,
    seed: u64,
) -> Option<Comparison> {
    use rand::{RngExt, SeedableRng};
    let pairs: Vec<Vec<(f64, f64)>> = a
        .iter()
        .zip(b)
        .map(|(xs, ys)| {
            xs.iter()
                .zip(ys)
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .map(|(&x, &y)| (x, y))
                .collect::<Vec<_>>()
        })
        .filter(|pairs| !pairs.is_empty())
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let means = |blocks: &[&[(f64, f64)]]| {
        let (mut sum_a, mut sum_b) = (0.0, 0.0);
        for block in blocks {
            sum_a += block.iter().map(|p| p.0).sum::<f64>() / block.len() as f64;
            sum_b += block.iter().map(|p| p.1).sum::<f64>() / block.len() as f64;
        }
        (sum_a / blocks.len() as f64, sum_b / blocks.len() as f64)
    };
    let all: Vec<&[(f64, f64)]> = pairs.iter().map(Vec::as_slice).collect();
    let (mean_a, mean_b) = means(&all);
    if mean_a <= 0.0 || mean_b <= 0.0 {
        return None;
    }
    let point = (mean_a / mean_b).ln();
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut statistics = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
    let mut unbounded = (0usize, 0usize);
    for _ in 0..BOOTSTRAP_RESAMPLES {
        let drawn: Vec<Vec<(f64, f64)>> = (0..pairs.len())
            .map(|_| {
                let block = &pairs[rng.random_range(0..pairs.len())];
                (0..block.len())
                    .map(|_| block[rng.random_range(0..block.len())])
                    .collect()
            })
            .collect();
        let slices: Vec<&[(f64, f64)]> = drawn.iter().map(Vec::as_slice).collect();
        match means(&slices) {
            (x, y) if x > 0.0 && y > 0.0 => statistics.push((x / y).ln()),
            (x, _) if x <= 0.0 => unbounded.0 += 1,
            _ => unbounded.1 += 1,
        }
    }
    statistics.sort_by(f64::total_cmp);
    // A resample without a ratio counts at its end of the distribution (a numerator at or
    // below zero as the lowest ratio, a denominator as the highest): the percentiles then see
    // every resample, and the interval is not narrowed by dropping them.
    let lowest = statistics.first().copied().unwrap_or(point);
    let highest = statistics.last().copied().unwrap_or(point);
    let mut statistics: Vec<f64> = std::iter::repeat_n(lowest, unbounded.0)
        .chain(statistics)
        .chain(std::iter::repeat_n(highest, unbounded.1))
        .collect();
    statistics.sort_by(f64::total_cmp);
    let clusters = if pairs.len() >= 2 {
        pairs.len()
    } else {
        pairs[0].len()
    };
    // More than the interval's tail of resamples without a ratio: that side is unbounded.
    let tail = BOOTSTRAP_RESAMPLES / 40;
    let (mut low, mut high) = if statistics.len() >= 2 {
        let (low, high) = interval_of(point, &statistics, clusters);
        (low.exp(), high.exp())
    } else {
        (0.0, f64::INFINITY)
    };
    if unbounded.0 > tail {
        low = 0.0;
    }
    if unbounded.1 > tail {
        high = f64::INFINITY;
    }
    Some(Comparison {
        ratio: point.exp(),
        low,
        high,
        invocations: pairs.len(),
        rounds: pairs.iter().map(Vec::len).sum(),
        claim: claim_at(low, high, threshold),
    })
}

/// The share of an invocation's rounds cut from each end by [`compare_invocations`] and
/// [`compare_differences_invocations`] before averaging (none below five rounds).
pub const ROUND_TRIM: f64 = 0.2;

/// The mean of `xs` without the lowest and highest `⌊trim · n⌋` of them; `None` when empty.
pub fn trimmed_mean(xs: &[f64], trim: f64) -> Option<f64> {
    let mut sorted: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let cut = (sorted.len() as f64 * trim).floor() as usize;
    let kept = sorted.get(cut..sorted.len() - cut)?;
    (!kept.is_empty()).then(|| kept.iter().sum::<f64>() / kept.len() as f64)
}

/// [`compare`] with each invocation reduced to one figure first, where the spread between
/// processes (where the tables and the code landed) dwarfs the rounds' noise: invocation `i`'s
/// figure is the [`ROUND_TRIM`]-trimmed mean of its paired log-ratios (so that one disturbed
/// round of a few milliseconds does not move it), and the interval resamples invocations alone,
/// widened to Student's t over them. Resampling the rounds as well would count their noise twice,
/// once inside each invocation's figure and once again. With one invocation it is [`compare`]
/// (the rounds are the units).
pub fn compare_invocations(
    a: &[Vec<f64>],
    b: &[Vec<f64>],
    threshold: f64,
    seed: u64,
) -> Option<Comparison> {
    if a.len().min(b.len()) < 2 {
        return compare(a, b, threshold, seed);
    }
    let mut rounds = 0;
    let (figures, ones): (Blocks, Blocks) = a
        .iter()
        .zip(b)
        .filter_map(|(xs, ys)| {
            let logs: Vec<f64> = xs
                .iter()
                .zip(ys)
                .filter(|(x, y)| x.is_finite() && y.is_finite() && **x > 0.0 && **y > 0.0)
                .map(|(x, y)| (x / y).ln())
                .collect();
            rounds += logs.len();
            trimmed_mean(&logs, ROUND_TRIM).map(|log| (vec![log.exp()], vec![1.0]))
        })
        .unzip();
    compare(&figures, &ones, threshold, seed).map(|c| Comparison { rounds, ..c })
}

/// [`compare_differences`] with each invocation reduced to one figure per side first, its
/// [`ROUND_TRIM`]-trimmed mean, for the reason given at [`compare_invocations`]. With one
/// invocation it is [`compare_differences`].
pub fn compare_differences_invocations(
    a: &[Vec<f64>],
    b: &[Vec<f64>],
    threshold: f64,
    seed: u64,
) -> Option<Comparison> {
    if a.len().min(b.len()) < 2 {
        return compare_differences(a, b, threshold, seed);
    }
    let mut rounds = 0;
    let (figures_a, figures_b): (Blocks, Blocks) = a
        .iter()
        .zip(b)
        .filter_map(|(xs, ys)| {
            let (xs, ys): (Vec<f64>, Vec<f64>) = xs
                .iter()
                .zip(ys)
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .unzip();
            let figures = (
                trimmed_mean(&xs, ROUND_TRIM)?,
                trimmed_mean(&ys, ROUND_TRIM)?,
            );
            rounds += xs.len();
            Some((vec![figures.0], vec![figures.1]))
        })
        .unzip();
    compare_differences(&figures_a, &figures_b, threshold, seed).map(|c| Comparison { rounds, ..c })
}

/// The claim an interval `[low, high]` of a time ratio supports at `threshold`.
pub(crate) fn claim_at(low: f64, high: f64, threshold: f64) -> Claim {
    if high < 1.0 / (1.0 + threshold) {
        Claim::Faster
    } else if low > 1.0 + threshold {
        Claim::Slower
    } else {
        Claim::Level
    }
}

/// One measured quantity with its 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

/// The typical value of samples taken in `blocks[i]` = the rounds of process invocation `i`:
/// the geometric mean over invocations of each invocation's median, with a 95 % interval from
/// a seeded hierarchical bootstrap (invocations, then rounds within them). The median keeps a
/// round that was interrupted from moving a cell; the invocations carry what changes between
/// processes. Non-finite or non-positive samples are left out; `None` when nothing is left.
pub fn estimate(blocks: &[Vec<f64>], seed: u64) -> Option<Estimate> {
    let blocks: Vec<Vec<f64>> = blocks
        .iter()
        .map(|b| b.iter().filter(|x| **x > 0.0).map(|x| x.ln()).collect())
        .collect();
    estimate_linear(&blocks, seed).map(|e| Estimate {
        value: e.value.exp(),
        low: e.low.exp().min(e.value.exp()),
        high: e.high.exp().max(e.value.exp()),
    })
}

/// The value [`estimate`] gives, without its bootstrap (and [`estimate_linear`]'s where no
/// sample is positive): what a table cell shows, for prose and ranking that must say the same.
pub fn central_value(blocks: &[Vec<f64>]) -> Option<f64> {
    let logs: Vec<Vec<f64>> = blocks
        .iter()
        .map(|b| b.iter().filter(|x| **x > 0.0).map(|x| x.ln()).collect())
        .collect();
    mean_of_medians(&logs)
        .map(f64::exp)
        .or_else(|| mean_of_medians(blocks))
}

/// The mean over the blocks of each one's median, the non-finite values and empty blocks left
/// out; `None` where nothing is left.
fn mean_of_medians(blocks: &[Vec<f64>]) -> Option<f64> {
    let medians: Vec<f64> = blocks
        .iter()
        .filter_map(|b| {
            let mut finite: Vec<f64> = b.iter().copied().filter(|x| x.is_finite()).collect();
            finite.sort_by(f64::total_cmp);
            (!finite.is_empty()).then(|| percentile_sorted(&finite, 50.0))
        })
        .collect();
    (!medians.is_empty()).then(|| medians.iter().sum::<f64>() / medians.len() as f64)
}

/// As [`estimate`] for quantities that may be zero or negative (differences): the arithmetic
/// mean over invocations of each invocation's median, with the same bootstrap.
pub fn estimate_linear(blocks: &[Vec<f64>], seed: u64) -> Option<Estimate> {
    use rand::{RngExt, SeedableRng};
    let blocks: Vec<Vec<f64>> = blocks
        .iter()
        .map(|b| {
            b.iter()
                .copied()
                .filter(|x| x.is_finite())
                .collect::<Vec<f64>>()
        })
        .filter(|b| !b.is_empty())
        .collect();
    if blocks.is_empty() {
        return None;
    }
    let median_of = |xs: &mut Vec<f64>| {
        xs.sort_by(f64::total_cmp);
        percentile_sorted(xs, 50.0)
    };
    let value = mean_of_medians(&blocks)?;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut statistics = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
    let mut scratch = Vec::new();
    for _ in 0..BOOTSTRAP_RESAMPLES {
        let mut total = 0.0;
        for _ in 0..blocks.len() {
            let block = &blocks[rng.random_range(0..blocks.len())];
            scratch.clear();
            scratch.extend((0..block.len()).map(|_| block[rng.random_range(0..block.len())]));
            total += median_of(&mut scratch);
        }
        statistics.push(total / blocks.len() as f64);
    }
    statistics.sort_by(f64::total_cmp);
    let clusters = if blocks.len() >= 2 {
        blocks.len()
    } else {
        blocks[0].len()
    };
    let (low, high) = interval_of(value, &statistics, clusters);
    Some(Estimate { value, low, high })
}

impl Estimate {
    /// The same estimate after a monotonic `f` (decreasing ones swap the bounds).
    pub fn map(&self, f: impl Fn(f64) -> f64) -> Estimate {
        let (a, b) = (f(self.low), f(self.high));
        Estimate {
            value: f(self.value),
            low: a.min(b),
            high: a.max(b),
        }
    }
}

/// Whether the invocations `blocks` disagree: some two of them have min–max ranges that do not
/// overlap. Then `(lowest invocation median, highest)`; `None` when they agree or there are
/// fewer than two.
pub fn invocations_disagree(blocks: &[Vec<f64>]) -> Option<(f64, f64)> {
    let summaries: Vec<Summary> = blocks
        .iter()
        .filter_map(|b| {
            let finite: Vec<f64> = b.iter().copied().filter(|x| x.is_finite()).collect();
            Summary::of(&finite)
        })
        .collect();
    if summaries.len() < 2 {
        return None;
    }
    let highest_min = summaries.iter().map(|s| s.min).fold(f64::MIN, f64::max);
    let lowest_max = summaries.iter().map(|s| s.max).fold(f64::MAX, f64::min);
    (highest_min > lowest_max).then(|| {
        (
            summaries.iter().map(|s| s.median).fold(f64::MAX, f64::min),
            summaries.iter().map(|s| s.median).fold(f64::MIN, f64::max),
        )
    })
}

/// `value [low–high]` for a table cell: the value and its 95 % interval.
pub fn format_interval(estimate: &Estimate) -> String {
    if !(estimate.low.is_finite() && estimate.high.is_finite()) {
        return format!("{} (one sample, no interval)", format_sig(estimate.value));
    }
    format!(
        "{} [{}–{}]",
        format_sig(estimate.value),
        format_sig(estimate.low),
        format_sig(estimate.high)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trimmed_mean_cuts_a_fifth_at_each_end_from_five_values_on() {
        assert_eq!(
            trimmed_mean(&[4.0, 1.0, 100.0, 2.0, 3.0], ROUND_TRIM),
            Some(3.0)
        );
        assert_eq!(trimmed_mean(&[1.0, 2.0, 3.0, 10.0], ROUND_TRIM), Some(4.0));
        assert_eq!(trimmed_mean(&[], ROUND_TRIM), None);
    }

    #[test]
    fn per_invocation_figures_ignore_one_disturbed_round_in_each() {
        // a is 10 % slower than b in every round but one, which a disturbance tripled.
        let b = timings(10.0, 6, 6, 0.02, 1);
        let a: Vec<Vec<f64>> = b
            .iter()
            .map(|rounds| {
                let mut slowed: Vec<f64> = rounds.iter().map(|t| t * 1.1).collect();
                slowed[2] *= 3.0;
                slowed
            })
            .collect();
        let robust = compare_invocations(&a, &b, 0.03, 7).unwrap();
        assert!((robust.ratio - 1.1).abs() < 1e-9, "{robust:?}");
        assert!(robust.low <= robust.ratio && robust.high >= robust.ratio && robust.low > 1.03);
        assert_eq!((robust.invocations, robust.rounds), (6, 36));
        assert_eq!(robust.claim, Claim::Slower);
        let plain = compare(&a, &b, 0.03, 7).unwrap();
        assert!(plain.ratio > 1.25, "{plain:?}");
        // The differences' twin: the same trimmed figures, as a ratio of means.
        let miss = compare_differences_invocations(&a, &b, 0.03, 7).unwrap();
        assert!((miss.ratio - 1.1).abs() < 0.01, "{miss:?}");
        assert_eq!(miss.claim, Claim::Slower);
    }

    #[test]
    fn per_invocation_comparison_of_a_thing_with_itself_is_level() {
        let a = timings(10.0, 8, 6, 0.04, 3);
        let b = timings(10.0, 8, 6, 0.04, 3);
        let c = compare_invocations(&a, &b, 0.03, 7).unwrap();
        assert!(
            (c.ratio - 1.0).abs() < 1e-12 && c.claim == Claim::Level,
            "{c:?}"
        );
        // One invocation: the rounds are the units, as in `compare`.
        let one = compare_invocations(&a[..1], &b[..1], 0.03, 7).unwrap();
        assert_eq!(one, compare(&a[..1], &b[..1], 0.03, 7).unwrap());
    }

    /// `invocations` × `rounds` times around `level`, each invocation shifted by its own
    /// offset (what changes between processes) and each round by noise, deterministically.
    fn timings(
        level: f64,
        invocations: usize,
        rounds: usize,
        spread: f64,
        salt: u64,
    ) -> Vec<Vec<f64>> {
        (0..invocations)
            .map(|i| {
                let offset = 1.0 + spread * (((i as u64 * 7 + salt) % 5) as f64 - 2.0) / 2.0;
                (0..rounds)
                    .map(|r| {
                        let noise = ((r as u64 * 13 + i as u64 * 3 + salt) % 7) as f64 / 6.0 - 0.5;
                        level * offset * (1.0 + 0.01 * noise)
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn a_clear_difference_is_claimed_both_ways() {
        let fast = timings(1.0, 5, 9, 0.01, 1);
        let slow = timings(1.2, 5, 9, 0.01, 2);
        let c = compare(&fast, &slow, 0.03, 7).unwrap();
        assert_eq!(c.claim, Claim::Faster, "{c:?}");
        assert!(c.low <= c.ratio && c.ratio <= c.high);
        assert!((c.ratio - 1.0 / 1.2).abs() < 0.02, "{c:?}");
        assert_eq!((c.invocations, c.rounds), (5, 45));
        assert_eq!(compare(&slow, &fast, 0.03, 7).unwrap().claim, Claim::Slower);
    }

    /// The negative control: the same quantity measured twice is never ordered.
    #[test]
    fn the_same_quantity_is_level() {
        let a = timings(3.0, 5, 9, 0.04, 1);
        let b = timings(3.0, 5, 9, 0.04, 3);
        let c = compare(&a, &b, 0.03, 7).unwrap();
        assert_eq!(c.claim, Claim::Level, "{c:?}");
        assert!(c.low < 1.0 && c.high > 1.0, "{c:?}");
    }

    /// A 2 % difference is inside a 3 % threshold however tight the interval.
    #[test]
    fn a_difference_inside_the_threshold_is_level() {
        let a = timings(1.0, 5, 50, 0.0, 1);
        let b = timings(1.02, 5, 50, 0.0, 1);
        let c = compare(&a, &b, 0.03, 7).unwrap();
        assert_eq!(c.claim, Claim::Level, "{c:?}");
        assert!(c.high < 1.0, "the interval itself excludes 1: {c:?}");
        assert_eq!(compare(&a, &b, 0.01, 7).unwrap().claim, Claim::Faster);
    }

    /// Invocations that disagree widen the interval: what one process cannot see.
    #[test]
    fn disagreeing_invocations_widen_the_interval() {
        let a = timings(1.0, 5, 9, 0.0, 1);
        let calm = timings(1.05, 5, 9, 0.0, 2);
        let noisy = timings(1.05, 5, 9, 0.2, 2);
        let narrow = compare(&a, &calm, 0.03, 7).unwrap();
        let wide = compare(&a, &noisy, 0.03, 7).unwrap();
        assert!(
            wide.high - wide.low > 3.0 * (narrow.high - narrow.low),
            "{narrow:?} {wide:?}"
        );
        assert_eq!(narrow.claim, Claim::Faster);
        assert_eq!(wide.claim, Claim::Level);
        assert_eq!(
            compare(&a, &noisy, 0.03, 7),
            compare(&a, &noisy, 0.03, 7),
            "seeded"
        );
        assert_eq!(compare(&[vec![f64::NAN]], &[vec![1.0]], 0.03, 7), None);
    }

    #[test]
    fn summary_of_known_samples() {
        let s = Summary::of(&[5.0, 1.0, 3.0, 2.0, 4.0]).unwrap();
        assert_eq!(s.count, 5);
        assert_eq!(s.median, 3.0);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.max, 5.0);
        // deviations 2,2,0,1,1 → sorted 0,1,1,2,2 → median 1
        assert_eq!(s.mad, 1.0);
        assert!((s.relative_mad() - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn even_count_median_is_the_mean_of_the_middle_pair() {
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        // deviations from 2.5: 1.5, 0.5, 0.5, 1.5 → MAD 1.0
        assert_eq!(mad_of(&[4.0, 1.0, 3.0, 2.0]), Some(1.0));
    }

    #[test]
    fn median_and_summary_round_the_middle_pair_as_before() {
        // `median` (E9, the effects command) takes (a + b) / 2; `Summary` (every other
        // experiment) interpolates a + (b - a) / 2: the two differ in the last bit here.
        assert_eq!(median(&[10.7, 2.2]), Some(6.449999999999999));
        assert_eq!(Summary::of(&[10.7, 2.2]).unwrap().median, 6.45);
    }

    #[test]
    fn percentiles_interpolate_linearly() {
        let samples = [10.0, 20.0, 30.0, 40.0];
        assert_eq!(percentile(&samples, 0.0), Some(10.0));
        assert_eq!(percentile(&samples, 100.0), Some(40.0));
        assert_eq!(percentile(&samples, 50.0), Some(25.0));
        // rank = 0.9 * 3 = 2.7 → 30 + 0.7 * 10
        assert!((percentile(&samples, 90.0).unwrap() - 37.0).abs() < 1e-12);
        assert_eq!(min_of(&samples), Some(10.0));
        assert_eq!(max_of(&samples), Some(40.0));
    }

    #[test]
    fn empty_or_nan_samples_have_no_summary() {
        assert_eq!(Summary::of(&[]), None);
        assert_eq!(median(&[1.0, f64::NAN]), None);
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn t_quantiles_match_the_published_table() {
        // Two-sided 95 %, as printed to three decimals in the usual tables.
        for (df, table) in [
            (1, 12.706),
            (2, 4.303),
            (4, 2.776),
            (10, 2.228),
            (30, 2.042),
            (120, 1.980),
        ] {
            assert!((t95(df) - table).abs() < 5e-4, "df {df}: {}", t95(df));
        }
        assert_eq!(t95(0), f64::INFINITY);
    }

    #[test]
    fn formatting() {
        assert_eq!(format_sig(1234.56), "1235");
        assert_eq!(format_sig(123.456), "123.5");
        assert_eq!(format_sig(12.3456), "12.35");
        assert_eq!(format_sig(1.23456), "1.235");
        assert_eq!(format_sig(f64::INFINITY), "–");
    }

    #[test]
    fn builds_compared_slot_by_slot() {
        let fast = timings(1.0, 5, 7, 0.01, 1);
        let slow = timings(1.3, 5, 7, 0.01, 2);
        let c = compare_slots(&[(fast.clone(), slow.clone())], 0.03, 7).unwrap();
        assert_eq!(c.claim, Claim::Faster, "{c:?}");
        assert!((c.ratio - 1.0 / 1.3).abs() < 0.02, "{c:?}");
        assert_eq!(c.invocations, 5);
        // Two cells, one 30 % apart and one level: the geometric mean of the two.
        let same = timings(2.0, 5, 7, 0.01, 3);
        let both = compare_slots(&[(fast, slow), (same.clone(), same)], 0.03, 7).unwrap();
        assert!(
            (both.ratio - (1.0f64 / 1.3).sqrt()).abs() < 0.02,
            "{both:?}"
        );
        assert_eq!(compare_slots(&[], 0.03, 7), None);
        assert_eq!(
            compare_slots(&[(vec![vec![]], vec![vec![1.0]])], 0.03, 7),
            None
        );
    }

    /// The negative control: two builds that are the same code measure level.
    #[test]
    fn the_same_build_twice_is_level() {
        let a = timings(3.0, 5, 7, 0.04, 1);
        let b = timings(3.0, 5, 7, 0.04, 4);
        let c = compare_slots(&[(a, b)], 0.03, 7).unwrap();
        assert_eq!(c.claim, Claim::Level, "{c:?}");
        assert!(c.low < 1.0 && c.high > 1.0, "{c:?}");
    }

    #[test]
    fn estimates_hold_their_value_and_widen_with_disagreeing_invocations() {
        let calm = timings(2.0, 5, 9, 0.0, 1);
        let noisy = timings(2.0, 5, 9, 0.3, 1);
        let a = estimate(&calm, 7).unwrap();
        let b = estimate(&noisy, 7).unwrap();
        assert!(a.low <= a.value && a.value <= a.high, "{a:?}");
        assert!((a.value - 2.0).abs() < 0.02, "{a:?}");
        assert!(b.high - b.low > 3.0 * (a.high - a.low), "{a:?} {b:?}");
        assert_eq!(estimate(&calm, 7), estimate(&calm, 7), "seeded");
        assert_eq!(estimate(&[vec![f64::NAN], vec![]], 7), None);
        let one = estimate(&[vec![5.0]], 7).unwrap();
        assert!((one.value - 5.0).abs() < 1e-12);
        assert_eq!(
            (one.low, one.high),
            (0.0, f64::INFINITY),
            "one sample: no interval"
        );
        assert_eq!(format_interval(&one), "5.000 (one sample, no interval)");
        let e = Estimate {
            value: 2.0,
            low: 1.5,
            high: 2.5,
        };
        assert_eq!(format_interval(&e), "2.000 [1.500–2.500]");
        let rate = e.map(|ns| 10.0 / ns);
        assert_eq!((rate.value, rate.low, rate.high), (5.0, 4.0, 10.0 / 1.5));
        let differences = estimate_linear(&[vec![-1.0, 0.0, 1.0], vec![-2.0, 0.0]], 7).unwrap();
        assert_eq!(differences.value, -0.5);
        assert!(
            differences.low < -0.5 && differences.high > -0.5,
            "{differences:?}"
        );
    }

    #[test]
    fn disagreeing_invocations_are_found() {
        assert_eq!(
            invocations_disagree(&[vec![1.0, 1.2], vec![1.1, 1.3]]),
            None
        );
        assert_eq!(
            invocations_disagree(&[vec![1.0, 1.2], vec![1.1, 1.3], vec![1.5, 1.7]]),
            Some((1.1, 1.6))
        );
        assert_eq!(invocations_disagree(&[vec![1.0, 1.2]]), None);
    }

    #[test]
    fn differences_compare_as_a_ratio_of_means() {
        // b costs 2 ns a round, a 3 ns with noise that sometimes crosses zero per round.
        let a = vec![vec![3.0, 2.5, 3.5, 3.2, 2.8]; 3];
        let b = vec![vec![2.0, 1.8, 2.2, 2.1, 1.9]; 3];
        let c = compare_differences(&a, &b, 0.03, 1).unwrap();
        assert!((c.ratio - 1.5).abs() < 1e-9, "{c:?}");
        assert!(
            c.low > 1.03 && c.high < 2.0 && c.claim == Claim::Slower,
            "{c:?}"
        );
        // A cost that is zero on average has no ratio.
        let zero = vec![vec![0.5, -0.5, 0.2, -0.2]; 2];
        assert!(compare_differences(&a[..2], &zero, 0.03, 1).is_none());
        // One whose rounds straddle zero is bounded on neither side: level.
        let noisy = vec![vec![2.0, -1.5, 1.8, -1.6, 0.3]];
        let small = vec![vec![0.1, 0.4, -0.2, 0.5, 0.2]];
        let c = compare_differences(&small, &noisy, 0.03, 1).unwrap();
        assert!((c.ratio - 1.0).abs() < 1e-9, "{c:?}");
        assert_eq!(c.claim, Claim::Level, "{c:?}");
        assert!(c.high.is_infinite(), "{c:?}");
    }
}
