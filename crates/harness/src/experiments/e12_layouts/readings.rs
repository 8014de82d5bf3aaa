//! E12's answers: a pair's ratio as a 90 % interval over processes on the log scale, read at
//! ±ln(1 + T) (a page pair's with the processes' phase order as a block, so that a drift within
//! a process cancels), and the controls' bias tests that withhold a cost's readings.

use super::phases::{paired_rounds, PhaseOrder};
use crate::answers::{bounded, t90, trimmed_over_processes, ControlEstimate, ControlTest, Reading};
use crate::stats::{claim_at, trimmed_mean, Claim, Comparison, ROUND_TRIM};

/// The share of the processes' figures trimmed at each end (Yuen's trimmed mean, as E11's
/// rule): none of five, one at each end of ten, so that one disturbed process among ten does
/// not decide.
pub(super) const PROCESS_TRIM: f64 = 0.1;

/// A ratio variant / base as its log: the mean of the processes' figures ln(variant / base)
/// with its standard error and degrees of freedom ([`trimmed_over_processes`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Ratio90 {
    pub log: f64,
    pub standard_error: f64,
    pub degrees: usize,
    pub invocations: usize,
    pub rounds: usize,
    /// What its controls leave unexcluded, below and above, on the log scale (the rule of
    /// bounds, [`Ratio90::bounded_by`]): the interval's ends move out by as much. 0 for a
    /// control itself and before bounding.
    pub reach: (f64, f64),
}

impl Ratio90 {
    /// The 90 % interval's half-width on the log scale (0.02: about ±2 %).
    pub fn half_width(&self) -> f64 {
        t90(self.degrees) * self.standard_error
    }

    pub fn ratio(&self) -> f64 {
        self.log.exp()
    }

    /// The lower end of the (bounded) interval as a ratio.
    pub fn low(&self) -> f64 {
        (self.log - self.half_width() - self.reach.0).exp()
    }

    /// The upper end of the (bounded) interval as a ratio.
    pub fn high(&self) -> f64 {
        (self.log + self.half_width() + self.reach.1).exp()
    }

    /// The bounded interval's half-width on the log scale: the run's resolution of this ratio
    /// (its own half-width where no control widened it).
    pub fn resolution(&self) -> f64 {
        self.half_width() + (self.reach.0 + self.reach.1) / 2.0
    }

    /// This ratio widened by what `controls` leave unexcluded (`answers::bounded` on the log
    /// scale).
    pub fn bounded_by(&self, controls: &[&ControlTest]) -> Ratio90 {
        let hw = self.half_width();
        let (low, high) = bounded(self.log - hw, self.log + hw, controls);
        Ratio90 {
            reach: (self.log - hw - low, high - self.log - hw),
            ..*self
        }
    }

    /// The reading at ±`threshold`: the (bounded) interval [L, U] of ln(variant / base) against
    /// ±ln(1 + T), so `faster` where U < −ln 1.03 (the ratio's upper bound below 1 / 1.03 =
    /// 0.971), `slower` where L > ln 1.03 (its lower bound above 1.03), `level` where both lie
    /// strictly inside, else `not resolved`; `withheld` where `judged` is false.
    pub fn reading(&self, threshold: f64, judged: bool) -> Reading {
        Reading::of(
            self.low().ln(),
            self.high().ln(),
            (1.0 + threshold).ln(),
            judged,
        )
    }

    /// The order the interval shows, whatever the controls say (the summary's `claim`).
    pub fn claim(&self, threshold: f64) -> Claim {
        claim_at(self.low(), self.high(), threshold)
    }

    /// The estimate as a control tests it: a difference of the log from 0.
    pub fn control(&self, name: String) -> ControlEstimate {
        ControlEstimate {
            name,
            value: self.log,
            standard_error: self.standard_error,
            degrees: self.degrees,
        }
    }

    /// The 90 % interval as a [`Comparison`] (results.json's pair records).
    pub fn comparison(&self, threshold: f64) -> Comparison {
        Comparison {
            ratio: self.ratio(),
            low: self.low(),
            high: self.high(),
            invocations: self.invocations,
            rounds: self.rounds,
            claim: self.claim(threshold),
        }
    }
}

/// How a process's rounds become its one figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Figure {
    /// The mean of the paired per-round log-ratios with [`ROUND_TRIM`] cut at each end (from
    /// five rounds on): lookups, whose rounds of milliseconds a tenant's burst can hit.
    TrimmedLogRatio,
    /// The plain mean of the paired per-round log-ratios: the search, whose rounds come in
    /// forward and reverse pairs that cancel a backend's slot in the order only together.
    MeanLogRatio,
    /// ln of the ratio of the two sides' [`ROUND_TRIM`]-trimmed means: table misses, whose
    /// per-round difference (full chain less hot twin) can be near zero.
    RatioOfMeans,
}

/// `a` over `b`, both split into processes (`a[i][r]` and `b[i][r]` from round `r` of process
/// `i`): each process's figure, then Yuen's trimmed mean over the processes. With one process
/// the rounds are the units (per-round log-ratios), and the interval knows nothing of what
/// changes between processes. `None` with fewer than two usable units.
pub(super) fn ratio90(a: &[Vec<f64>], b: &[Vec<f64>], figure: Figure) -> Option<Ratio90> {
    let rounds: usize = a.iter().zip(b).map(|(x, y)| x.len().min(y.len())).sum();
    let units: Vec<f64> = if a.len().min(b.len()) < 2 {
        a.iter()
            .zip(b)
            .flat_map(|(x, y)| log_ratios(x, y))
            .collect()
    } else {
        a.iter()
            .zip(b)
            .filter_map(|(x, y)| process_figure(x, y, figure))
            .collect()
    };
    let (log, standard_error, degrees) = trimmed_over_processes(&units, PROCESS_TRIM);
    (log.is_finite() && standard_error.is_finite() && degrees >= 1).then_some(Ratio90 {
        log,
        standard_error,
        degrees,
        invocations: a.len().min(b.len()),
        rounds,
        reach: (0.0, 0.0),
    })
}

/// A page pair's 2 MiB side over its 4 KiB side (`huge[i]`, `small[i]`: process `i`'s rounds,
/// run in `orders[i]`), the rounds paired across the phases as [`paired_rounds`] pairs them;
/// with it, the drift between the phases, later over earlier. Where both orders ran (at least
/// three processes), as a two-period crossover: a process's figure is ln(2m / 4k) plus the
/// drift where the 2 MiB phase ran second and minus it where first, so the page effect is the
/// mean of the two orders' (trimmed) means and the drift half their difference, each with the
/// pooled within-order variance, h_F + h_R − 2 degrees of freedom; a drift linear in time then
/// cancels, however many processes ran each order. Where one order ran alone (every report
/// before 2026-12-02), the page effect is [`ratio90`]'s and the drift the processes' figures
/// signed by their order (the drift itself only for a base whose pages did not change).
pub(super) fn page_ratio90(
    huge: &[Vec<f64>],
    small: &[Vec<f64>],
    figure: Figure,
    orders: &[PhaseOrder],
) -> (Option<Ratio90>, Option<Ratio90>) {
    let order = |i: usize| orders.get(i).copied().unwrap_or(PhaseOrder::SmallFirst);
    let (huge, small): (Vec<Vec<f64>>, Vec<Vec<f64>>) = huge
        .iter()
        .zip(small)
        .enumerate()
        .map(|(i, (x, y))| paired_rounds(x, y, order(i)))
        .unzip();
    let k = huge.len();
    if k < 2 || orders.len() != k {
        let effect = ratio90(&huge, &small, figure);
        let sign = order(0).sign();
        return (
            effect,
            effect.map(|r| Ratio90 {
                log: sign * r.log,
                ..r
            }),
        );
    }
    let rounds: usize = huge
        .iter()
        .zip(&small)
        .map(|(x, y)| x.len().min(y.len()))
        .sum();
    let figures: Vec<(f64, PhaseOrder)> = (0..k)
        .filter_map(|i| process_figure(&huge[i], &small[i], figure).map(|f| (f, order(i))))
        .collect();
    let group =
        |o: PhaseOrder| -> Vec<f64> { figures.iter().filter(|f| f.1 == o).map(|f| f.0).collect() };
    let estimate = |log: f64, standard_error: f64, degrees: usize| {
        (log.is_finite() && standard_error.is_finite() && degrees >= 1).then_some(Ratio90 {
            log,
            standard_error,
            degrees,
            invocations: k,
            rounds,
            reach: (0.0, 0.0),
        })
    };
    match (
        trimmed_group(&group(PhaseOrder::SmallFirst)),
        trimmed_group(&group(PhaseOrder::HugeFirst)),
    ) {
        (Some(forward), Some(reverse)) if forward.2 + reverse.2 >= 3 => {
            let degrees = forward.2 + reverse.2 - 2;
            let variance = (forward.1 + reverse.1) / degrees as f64;
            let inverse = 1.0 / forward.2 as f64 + 1.0 / reverse.2 as f64;
            let standard_error = (variance * inverse).sqrt() / 2.0;
            (
                estimate((forward.0 + reverse.0) / 2.0, standard_error, degrees),
                estimate((forward.0 - reverse.0) / 2.0, standard_error, degrees),
            )
        }
        _ => {
            let all: Vec<f64> = figures.iter().map(|f| f.0).collect();
            let signed: Vec<f64> = figures.iter().map(|f| f.1.sign() * f.0).collect();
            let (log, se, df) = trimmed_over_processes(&all, PROCESS_TRIM);
            let (drift, drift_se, drift_df) = trimmed_over_processes(&signed, PROCESS_TRIM);
            (estimate(log, se, df), estimate(drift, drift_se, drift_df))
        }
    }
}

/// One order's figures as Yuen's trimmed mean sees them: the mean of the h kept after
/// [`PROCESS_TRIM`] at each end, the winsorised sum of squares about the winsorised mean (its
/// variance times h − 1 in Yuen's standard error), and h; `None` where none is kept.
fn trimmed_group(values: &[f64]) -> Option<(f64, f64, usize)> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let g = (PROCESS_TRIM * n as f64).floor() as usize;
    if n == 0 || 2 * g >= n {
        return None;
    }
    let kept = &sorted[g..n - g];
    let mean = kept.iter().sum::<f64>() / kept.len() as f64;
    let winsorised: Vec<f64> = sorted
        .iter()
        .map(|v| v.clamp(kept[0], kept[kept.len() - 1]))
        .collect();
    let centre = winsorised.iter().sum::<f64>() / n as f64;
    let squares = winsorised.iter().map(|w| (w - centre).powi(2)).sum();
    Some((mean, squares, kept.len()))
}

/// ln(x / y) of every round where both are finite and positive.
fn log_ratios(x: &[f64], y: &[f64]) -> Vec<f64> {
    x.iter()
        .zip(y)
        .filter(|(x, y)| x.is_finite() && y.is_finite() && **x > 0.0 && **y > 0.0)
        .map(|(x, y)| (x / y).ln())
        .collect()
}

fn process_figure(x: &[f64], y: &[f64], figure: Figure) -> Option<f64> {
    let value = match figure {
        Figure::TrimmedLogRatio => trimmed_mean(&log_ratios(x, y), ROUND_TRIM)?,
        Figure::MeanLogRatio => trimmed_mean(&log_ratios(x, y), 0.0)?,
        Figure::RatioOfMeans => {
            let (x, y) = (trimmed_mean(x, ROUND_TRIM)?, trimmed_mean(y, ROUND_TRIM)?);
            if x <= 0.0 || y <= 0.0 {
                return None;
            }
            (x / y).ln()
        }
    };
    value.is_finite().then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn process(base: f64, ratio: f64, rounds: usize) -> (Vec<f64>, Vec<f64>) {
        let b: Vec<f64> = (0..rounds).map(|r| base + r as f64).collect();
        (b.iter().map(|x| x * ratio).collect(), b)
    }

    /// Five processes whose figures are ln 0.9 ± 0.01: faster at ±3 %, their t-interval's
    /// half-width t90(4) · s / √5.
    #[test]
    fn five_processes_give_student_t_over_their_figures() {
        let ratios = [0.9, 0.9 * 1.01, 0.9 / 1.01, 0.9 * 1.005, 0.9 / 1.005];
        let (a, b): (Vec<_>, Vec<_>) = ratios.iter().map(|&r| process(10.0, r, 6)).unzip();
        let r = ratio90(&a, &b, Figure::TrimmedLogRatio).expect("an estimate");
        let logs: Vec<f64> = ratios.iter().map(|x: &f64| x.ln()).collect();
        let mean = logs.iter().sum::<f64>() / 5.0;
        let sd = (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / 4.0).sqrt();
        assert!((r.log - mean).abs() < 1e-12);
        assert!((r.half_width() - t90(4) * sd / 5f64.sqrt()).abs() < 1e-12);
        assert_eq!((r.invocations, r.rounds, r.degrees), (5, 30, 4));
        assert_eq!(r.reading(0.03, true), Reading::Faster);
        assert_eq!(r.reading(0.03, false), Reading::Withheld);
        assert_eq!(r.claim(0.03), Claim::Faster);
    }

    /// The mapping at ±3 %: a ratio of 1.00 ± 2 % is level, 1.00 ± 4 % not resolved, and an
    /// interval from 1.031 upwards slower.
    #[test]
    fn the_reading_compares_the_log_interval_with_ln_1_03() {
        let at = |log: f64, hw: f64| Ratio90 {
            log,
            standard_error: hw / t90(4),
            degrees: 4,
            invocations: 5,
            rounds: 10,
            reach: (0.0, 0.0),
        };
        assert_eq!(at(0.0, 0.02).reading(0.03, true), Reading::Level);
        assert_eq!(at(0.0, 0.04).reading(0.03, true), Reading::NotResolved);
        assert_eq!(at(1.06f64.ln(), 0.02).reading(0.03, true), Reading::Slower);
        assert_eq!(
            at(-(1.06f64.ln()), 0.02).reading(0.03, true),
            Reading::Faster
        );
        // ±ln 1.03 is symmetric on the log scale: 1 / 1.03 is level's lower edge.
        let edge = at(0.0, 1.03f64.ln() - 1e-9);
        assert_eq!(edge.reading(0.03, true), Reading::Level);
        assert!((edge.low() - 1.0 / 1.03).abs() < 1e-8);
    }

    /// Table misses compare the sides' means per process; a process whose mean difference is
    /// not positive gives no figure.
    #[test]
    fn table_misses_are_a_ratio_of_each_sides_means() {
        let a = vec![vec![20.0, 22.0], vec![30.0, 30.0], vec![-1.0, 0.5]];
        let b = vec![vec![10.0, 11.0], vec![15.0, 15.0], vec![1.0, 1.0]];
        let r = ratio90(&a, &b, Figure::RatioOfMeans).expect("two processes");
        assert!((r.ratio() - 2.0).abs() < 1e-12, "{r:?}");
        assert_eq!(r.degrees, 1);
    }

    /// One process: its rounds are the units.
    #[test]
    fn one_process_uses_its_rounds() {
        let (a, b) = process(10.0, 1.1, 8);
        let r = ratio90(&[a], &[b], Figure::MeanLogRatio).expect("eight rounds");
        assert!((r.ratio() - 1.1).abs() < 1e-12);
        assert_eq!((r.invocations, r.degrees), (1, 7));
        assert!(ratio90(&[vec![1.0]], &[vec![1.0]], Figure::MeanLogRatio).is_none());
    }
    /// Five processes, alternating orders, each timing 6 rounds per phase under a drift of
    /// 1.5 % per round (about 9 % between the phases) and a page effect of ×0.8 with a spread
    /// between processes: the crossover's page effect is ×0.8 exactly and its drift the
    /// drift, while pooling the five figures as one group (as before 2026-12-02) would read
    /// the drift in three processes against two as a page effect.
    #[test]
    fn a_linear_drift_within_a_process_cancels_in_the_page_effect() {
        let (page, per_round, rounds) = (0.8f64.ln(), 0.015, 6);
        // Zero-sum within each order, so that each order's mean is the page effect exactly.
        let spread = [0.02, 0.01, -0.02, -0.01, 0.0];
        let orders: Vec<PhaseOrder> = (0..5)
            .map(|i| PhaseOrder::of(crate::invocations::Invocation::new(i, 5)))
            .collect();
        let (mut huge, mut small) = (Vec::new(), Vec::new());
        for (i, order) in orders.iter().enumerate() {
            let level = 10.0 + i as f64; // each process its own speed
            let at = |t: usize| level * (per_round * t as f64).exp();
            let (first, second): (Vec<f64>, Vec<f64>) = (
                (0..rounds).map(at).collect(),
                (rounds..2 * rounds).map(at).collect(),
            );
            let effect = (page + spread[i]).exp();
            let (h, s) = match order {
                PhaseOrder::SmallFirst => (second, first),
                PhaseOrder::HugeFirst => (first, second),
            };
            huge.push(h.iter().map(|x| x * effect).collect::<Vec<f64>>());
            small.push(s);
        }
        for figure in [Figure::TrimmedLogRatio, Figure::MeanLogRatio] {
            let (effect, drift) = page_ratio90(&huge, &small, figure, &orders);
            let (effect, drift) = (effect.expect("an effect"), drift.expect("a drift"));
            assert!((effect.log - page).abs() < 1e-12, "{effect:?}");
            assert!(
                (drift.log - per_round * rounds as f64).abs() < 1e-12,
                "{drift:?}"
            );
            assert_eq!((effect.degrees, effect.invocations), (3, 5));
            assert!(effect.half_width() > 0.0 && effect.half_width() < 0.05);
            // One group, the old way: the drift of three processes against two stays in.
            let old = ratio90(&huge, &small, figure).unwrap();
            assert!((old.log - page - per_round * rounds as f64 / 5.0).abs() < 1e-9);
        }
        // Every process 4 KiB first (reports before the key): the effect as before, and the
        // drift the figures as they are.
        let forward = vec![PhaseOrder::SmallFirst; 5];
        let (effect, drift) = page_ratio90(&huge, &small, Figure::MeanLogRatio, &forward);
        let old = ratio90(&huge, &small, Figure::MeanLogRatio);
        assert_eq!(effect, old);
        assert_eq!(drift.map(|d| d.log), old.map(|o| o.log));
    }
}
