//! The one-way layouts behind the shift probe's σs: mean squares, variance components and
//! the interval of the invocations' σ.

use super::quantiles::{chi_square_95, f_quantile};
use super::{mean, Invocation};
use std::collections::BTreeMap;

/// A one-way layout's mean squares: between the levels (on k − 1 degrees of freedom) and
/// within them, and n₀, the timings per level (for unequal levels the usual
/// (N − Σ nᵢ² / N) / (k − 1)).
pub(super) struct OneWay {
    ms_between: f64,
    ms_within: f64,
    n0: f64,
    levels: usize,
    /// MS_within's degrees of freedom.
    within_df: usize,
}

impl OneWay {
    /// The layout of `values` labelled by `levels`; None under two levels or with no timing
    /// left over for the within mean square.
    pub(super) fn of(levels: &[usize], values: &[f64]) -> Option<OneWay> {
        let mut sums: BTreeMap<usize, (f64, usize)> = BTreeMap::new();
        for (&level, &v) in levels.iter().zip(values) {
            let entry = sums.entry(level).or_insert((0.0, 0));
            entry.0 += v;
            entry.1 += 1;
        }
        let (k, n) = (sums.len(), values.len());
        if k < 2 || n <= k {
            return None;
        }
        let grand = mean(values.iter().copied());
        let between: f64 = sums
            .values()
            .map(|&(s, m)| m as f64 * (s / m as f64 - grand).powi(2))
            .sum();
        let within: f64 = levels
            .iter()
            .zip(values)
            .map(|(level, v)| {
                let (s, m) = sums[level];
                (v - s / m as f64).powi(2)
            })
            .sum();
        let squares: f64 = sums.values().map(|&(_, m)| (m * m) as f64).sum();
        Some(OneWay {
            ms_between: between / (k - 1) as f64,
            ms_within: within / (n - k) as f64,
            n0: (n as f64 - squares / n as f64) / (k - 1) as f64,
            levels: k,
            within_df: n - k,
        })
    }

    /// The layout of invocations crossed with the rounds, its error term their interaction:
    /// MS_within becomes Σ nᵢᵣ (ȳᵢᵣ − ȳᵢ − ȳᵣ + ȳ)² over (cells − k − R + 1) degrees of freedom.
    /// Round r sits at the same position in every invocation (the first before the sweep, the
    /// last two after the page split's phases follow the same phase in each; the rounds
    /// between follow the pressure counts in each invocation's shuffled order, so there they
    /// are positions in time, not phases), so a round's effect common to all of them cancels
    /// in the invocations' means, while one that differs between them moves each mean by about
    /// σ / √R where the rounds are independent (a drift inside a process, serially
    /// correlated, moves it by more: a referee found the -11-29-7 memory ring drifting by up
    /// to 37 ns inside one invocation): the timings' own spread as the error term let the latter pass
    /// for a shift between invocations (a referee found the -11-29-5 memory ring's σ, 1.8 ns,
    /// about its rounds' 5.1 ns / √8), and the rounds nested in the invocations as the error
    /// term (tried on the -11-29-6 report) took the former for the latter, flooring σ at 0.
    /// Unchanged where an invocation has a single round.
    pub(super) fn rounds_crossed(self, invocations: &BTreeMap<usize, Invocation>) -> OneWay {
        let mut cells: BTreeMap<(usize, usize), (f64, usize)> = BTreeMap::new();
        let mut rounds: BTreeMap<usize, (f64, usize)> = BTreeMap::new();
        let mut invocation_means: BTreeMap<usize, f64> = BTreeMap::new();
        let mut all = Vec::new();
        for (&i, inv) in invocations {
            invocation_means.insert(i, mean(inv.values.iter().copied()));
            for (cell, &v) in inv.cells.iter().zip(&inv.values) {
                for entry in [
                    cells.entry((i, cell.round)).or_insert((0.0, 0)),
                    rounds.entry(cell.round).or_insert((0.0, 0)),
                ] {
                    entry.0 += v;
                    entry.1 += 1;
                }
                all.push(v);
            }
        }
        let k = invocations.len();
        let df = (cells.len() + 1).saturating_sub(k + rounds.len());
        let single_round = invocations
            .keys()
            .any(|i| cells.keys().filter(|(j, _)| j == i).count() < 2);
        if single_round || df == 0 {
            return self;
        }
        let grand = mean(all.into_iter());
        let squares: f64 = cells
            .iter()
            .map(|(&(i, r), &(sum, n))| {
                let (round_sum, round_n) = rounds[&r];
                let residual =
                    sum / n as f64 - invocation_means[&i] - round_sum / round_n as f64 + grand;
                n as f64 * residual * residual
            })
            .sum();
        OneWay {
            ms_within: squares / df as f64,
            within_df: df,
            ..self
        }
    }

    /// The variance component of the levels: max(0, (MS_between − MS_within) / n₀).
    pub(super) fn component(&self) -> f64 {
        ((self.ms_between - self.ms_within) / self.n0).max(0.0)
    }

    /// The 95 % interval of the component's square root, σ: the modified large-sample interval
    /// of Graybill and Wang for a difference of two mean squares over n₀, each on its own
    /// degrees of freedom, with the cross terms G₁₂ and H₁₂ (F quantiles on both degrees of
    /// freedom at once; left out before the -11-29-7 report, which made the lower bound a
    /// little too high: 4.869 ns there against 4.85), each bound floored at 0. Unlike the
    /// between mean square's χ² interval alone, its upper bound stays above 0 where the error
    /// term is large.
    pub(super) fn sigma_interval(&self) -> (f64, f64) {
        let (between_df, within_df) = (self.levels - 1, self.within_df);
        let (b_low, b_high) = chi_square_95(between_df);
        let (w_low, w_high) = chi_square_95(within_df);
        let g1 = 1.0 - between_df as f64 / b_high;
        let h1 = between_df as f64 / b_low - 1.0;
        let g2 = 1.0 - within_df as f64 / w_high;
        let h2 = within_df as f64 / w_low - 1.0;
        let f_high = f_quantile(0.975, between_df, within_df);
        let f_low = f_quantile(0.025, between_df, within_df);
        let g12 = ((f_high - 1.0).powi(2) - (g1 * f_high).powi(2) - h2 * h2) / f_high;
        let h12 = ((1.0 - f_low).powi(2) - (h1 * f_low).powi(2) - g2 * g2) / f_low;
        let (ms1, ms2) = (self.ms_between, self.ms_within);
        let difference = ms1 - ms2;
        let low = difference
            - ((g1 * ms1).powi(2) + (h2 * ms2).powi(2) + g12 * ms1 * ms2)
                .max(0.0)
                .sqrt();
        let high = difference
            + ((h1 * ms1).powi(2) + (g2 * ms2).powi(2) + h12 * ms1 * ms2)
                .max(0.0)
                .sqrt();
        let root = |bound: f64| (bound / self.n0).max(0.0).sqrt();
        (root(low), root(high))
    }
}

/// The variance component of the levels in a one-way layout of `values` labelled by `levels`
/// (see [`OneWay`]).
pub(super) fn component(levels: &[usize], values: &[f64]) -> Option<f64> {
    OneWay::of(levels, values).map(|layout| layout.component())
}
