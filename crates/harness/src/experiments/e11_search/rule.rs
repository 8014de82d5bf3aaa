//! E11's pre-registered decision rule: whether seed 004 holds end to end in a search, decided
//! from D's interval, the threshold and the controls. Committed before the first full E11 run
//! and not changed after it (the summary's `rule_commit` names the commit; the method says so).
//!
//! Version 4. Version 1 (c01a1a96d3d3) decided on an interval over single rounds; its full
//! run (report amd-epyc-f25-m17-2026-11-26) failed both controls by width, a backend's slot in
//! the block order moving it by up to ±37 ns per node. Version 2 (a3e4d7f11253) paired each
//! forward round with the reverse one after it and timed only the rule's entries in its later
//! rounds; its full run (report amd-epyc-f25-m17-2026-11-26-2) failed its controls again, and
//! its referee found that the smaller blocks of the later rounds moved D by more than the
//! threshold, that the negative control came out positive in every invocation under `kpp`
//! (sqww ran before mailbox in all five: the order was shuffled once per invocation), and
//! that a bootstrap of medians of three samples widened the intervals about threefold.
//! Version 3 (c55835af8563): every round times every backend; the order is shuffled afresh
//! for each forward and reverse pair of rounds; D's sample is the mean of the pair's two
//! per-round D's ([`pair_means`]); D's interval is Student's t over the invocations' means.
//! Its full runs (reports amd-epyc-f25-m17-2026-11-26-3 and -4) showed that the invocations'
//! spread is mostly code layout (each backend × evaluation is its own copy of the search,
//! placed by the linker: one link order gave the negative control +14.9 ns, another −12.5,
//! five link orders scattered it around zero with a spread of ≈ 11 ns per invocation), so
//! five invocations leave a half-width (≈ 13.6 ns) above the threshold; and one disturbed
//! round (dbb at 547 against ≈ 340 ns per node) moved a whole invocation's mean.
//! Version 4, fixed before any run of it: E11 runs twice the report's invocations, each
//! process in a code layout of its own (the measuring side, not this module), and D's interval
//! is Yuen's trimmed mean over the invocations' means, a tenth of them trimmed at each end
//! ([`interval_over_invocations`]): one disturbed process among ten no longer decides.
//! The A/A stays one code copy timed twice, the control of timing noise: a second copy of
//! identical code cannot be had without changing the code (rustc merges identical
//! instances), and the negative control, two table-free copies placed apart in every
//! layout, is the control that layout moves.

use serde::{Deserialize, Serialize};

/// The rule's version (see the module's head).
pub const VERSION: u32 = 4;

/// The pair the rule decides on, (first, second): D = t(second) − t(first).
pub const RULE_PAIR: (&str, &str) = ("dbb", "magic-plain");
/// The A/A control: this backend against its own second timing (its twin, its own block).
pub const TWIN: &str = "dbb";
/// The negative control: no tables to miss on either side.
pub const NEGATIVE: (&str, &str) = ("sqww", "mailbox");

/// The samples D is estimated from: per invocation, rounds alternate forward and reverse
/// backend order, and each (forward, reverse) pair of per-round differences gives one sample,
/// their mean, so that a backend's slot in the order cancels. An odd last round is dropped.
pub fn pair_means(per_round: &[f64]) -> Vec<f64> {
    per_round
        .chunks_exact(2)
        .map(|pair| (pair[0] + pair[1]) / 2.0)
        .collect()
}

/// The share of the invocations' means trimmed at each end of D's interval.
pub const TRIM: f64 = 0.1;

/// D's estimate and 95 % interval from `samples[i]`, invocation `i`'s samples: Yuen's trimmed
/// mean over the invocations' means. Of the K means (each invocation's samples averaged),
/// g = ⌊[`TRIM`] · K⌋ are dropped at each end; the estimate is the mean of the other
/// h = K − 2g, and its standard error comes from the winsorised variance s_w² (the g lowest
/// set to the lowest kept, the g highest to the highest kept): √((K − 1) s_w² / (h (h − 1))),
/// times Student's t with h − 1 degrees of freedom. With g = 0 (K < 10) it is Student's t over
/// the K means. The invocation is the unit: what changes between processes (the code layout,
/// the pages the tables got, the environment's size) is in the interval. NaN bounds when
/// fewer than two means are kept.
pub fn interval_over_invocations(samples: &[Vec<f64>], t95: impl Fn(usize) -> f64) -> Interval {
    let mut means: Vec<f64> = samples
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| s.iter().sum::<f64>() / s.len() as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    let k = means.len();
    let g = (TRIM * k as f64).floor() as usize;
    // g ≤ K / 10, so the kept range is never empty when K ≥ 1.
    let kept = &means[g..k - g];
    let h = kept.len();
    let value = if h == 0 {
        f64::NAN
    } else {
        kept.iter().sum::<f64>() / h as f64
    };
    if h < 2 {
        return Interval {
            value,
            low: f64::NAN,
            high: f64::NAN,
        };
    }
    let winsorised: Vec<f64> = means
        .iter()
        .map(|&m| m.clamp(kept[0], kept[h - 1]))
        .collect();
    let centre = winsorised.iter().sum::<f64>() / k as f64;
    let variance = winsorised.iter().map(|m| (m - centre).powi(2)).sum::<f64>() / (k - 1) as f64;
    let half = t95(h - 1) * ((k - 1) as f64 * variance / (h * (h - 1)) as f64).sqrt();
    Interval {
        value,
        low: value - half,
        high: value + half,
    }
}

/// What the rule says for one evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// D's whole interval lies above the threshold: the table-heavy backend loses more time
    /// per node under this evaluation than under `material`, by more than the threshold.
    #[serde(rename = "holds")]
    Holds,
    /// D's whole interval lies inside ±threshold.
    #[serde(rename = "does not hold")]
    DoesNotHold,
    /// Neither: the interval reaches across a threshold.
    #[serde(rename = "not resolved")]
    NotResolved,
    /// A control failed: nothing is decided on this run.
    #[serde(rename = "not decided here")]
    NotDecidedHere,
}

impl Verdict {
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::DoesNotHold => "does not hold",
            Verdict::NotResolved => "not resolved",
            Verdict::NotDecidedHere => "not decided here",
        }
    }
}

/// An interval in ns per node: the estimate and its 95 % bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

impl Interval {
    /// Whether the whole interval lies strictly inside ±`threshold`.
    pub fn inside(&self, threshold: f64) -> bool {
        self.low > -threshold && self.high < threshold
    }
}

/// The rule, for one evaluation (`nnue` or `kpp`): `d` is D for `dbb vs magic-plain` at the
/// largest TT with every table on 2 MiB pages, D = (t(magic-plain) − t(dbb)) under the
/// evaluation − the same under `material`, in ns per node; `threshold_ns` is 3 % of t(dbb)
/// under `material` (or `--threshold`); `controls_passed` says whether the A/A and the negative
/// control came out inside ±threshold under every evaluation.
///
/// * a failed control: "not decided here", whatever D says;
/// * D's whole interval above `threshold_ns`: "holds";
/// * D's whole interval inside ±`threshold_ns`: "does not hold";
/// * otherwise: "not resolved".
pub fn decide(d: Interval, threshold_ns: f64, controls_passed: bool) -> Verdict {
    let no_threshold = threshold_ns.is_nan() || threshold_ns <= 0.0;
    if !controls_passed || no_threshold || !d.low.is_finite() || !d.high.is_finite() {
        return Verdict::NotDecidedHere;
    }
    if d.low > threshold_ns {
        Verdict::Holds
    } else if d.inside(threshold_ns) {
        Verdict::DoesNotHold
    } else {
        Verdict::NotResolved
    }
}

/// Whether the controls pass: every control interval (A/A and negative, under every
/// evaluation) lies inside ±`threshold_ns`.
pub fn controls_pass(controls: &[Interval], threshold_ns: f64) -> bool {
    !controls.is_empty() && controls.iter().all(|c| c.inside(threshold_ns))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(low: f64, high: f64) -> Interval {
        Interval {
            value: (low + high) / 2.0,
            low,
            high,
        }
    }

    #[test]
    fn the_rule_reads_the_interval_against_the_threshold() {
        assert_eq!(decide(d(12.0, 20.0), 10.0, true), Verdict::Holds);
        assert_eq!(decide(d(-4.0, 6.0), 10.0, true), Verdict::DoesNotHold);
        assert_eq!(decide(d(5.0, 15.0), 10.0, true), Verdict::NotResolved);
        assert_eq!(decide(d(-15.0, -5.0), 10.0, true), Verdict::NotResolved);
        // A boundary is not "beyond": an interval touching the threshold is not resolved.
        assert_eq!(decide(d(10.0, 15.0), 10.0, true), Verdict::NotResolved);
        assert_eq!(decide(d(-4.0, 10.0), 10.0, true), Verdict::NotResolved);
    }

    #[test]
    fn a_failed_control_or_a_missing_number_decides_nothing() {
        assert_eq!(decide(d(12.0, 20.0), 10.0, false), Verdict::NotDecidedHere);
        assert_eq!(
            decide(d(f64::NAN, 20.0), 10.0, true),
            Verdict::NotDecidedHere
        );
        assert_eq!(decide(d(12.0, 20.0), 0.0, true), Verdict::NotDecidedHere);
        assert!(controls_pass(&[d(-1.0, 1.0), d(-2.0, 3.0)], 5.0));
        assert!(!controls_pass(&[d(-1.0, 1.0), d(-2.0, 6.0)], 5.0));
        assert!(!controls_pass(&[], 5.0));
    }

    #[test]
    fn forward_and_reverse_rounds_pair_up() {
        assert_eq!(pair_means(&[10.0, -6.0, 3.0, 5.0, 99.0]), vec![2.0, 4.0]);
        assert!(pair_means(&[1.0]).is_empty());
    }

    #[test]
    fn the_interval_is_students_t_over_invocation_means_below_ten() {
        // Means 1, 3, 5: mean 3, sd 2, standard error 2/sqrt(3); t stands in as 4.
        let i = interval_over_invocations(&[vec![0.0, 2.0], vec![3.0], vec![5.0, 5.0]], |_| 4.0);
        let half = 4.0 * 2.0 / 3f64.sqrt();
        assert!((i.value - 3.0).abs() < 1e-12);
        assert!((i.low - (3.0 - half)).abs() < 1e-12 && (i.high - (3.0 + half)).abs() < 1e-12);
        assert!(interval_over_invocations(&[vec![1.0, 2.0]], |_| 4.0)
            .low
            .is_nan());
    }

    #[test]
    fn from_ten_invocations_one_mean_at_each_end_is_trimmed() {
        // Means 0..=8 and one disturbed invocation at 100: g = 1, the kept means are 1..=8
        // (h = 8, mean 4.5); winsorised: 1, 1, 2, …, 8, 8.
        let mut samples: Vec<Vec<f64>> = (0..9).map(|m| vec![m as f64]).collect();
        samples.push(vec![100.0]);
        let degrees = std::cell::Cell::new(0);
        let i = interval_over_invocations(&samples, |df| {
            degrees.set(df);
            2.0
        });
        assert_eq!(degrees.get(), 7);
        assert!((i.value - 4.5).abs() < 1e-12, "{i:?}");
        let winsorised = [1.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 8.0];
        let centre: f64 = winsorised.iter().sum::<f64>() / 10.0;
        let variance: f64 = winsorised.iter().map(|w| (w - centre).powi(2)).sum::<f64>() / 9.0;
        let half = 2.0 * (9.0 * variance / (8.0 * 7.0)).sqrt();
        assert!((i.high - (4.5 + half)).abs() < 1e-12, "{i:?}");
        assert!((i.low - (4.5 - half)).abs() < 1e-12, "{i:?}");
        // The disturbed invocation moves nothing: at 1000 the interval is the same.
        samples[9] = vec![1000.0];
        assert_eq!(interval_over_invocations(&samples, |_| 2.0), i);
    }

    #[test]
    fn verdicts_serialise_as_the_words_the_index_reads() {
        for verdict in [
            Verdict::Holds,
            Verdict::DoesNotHold,
            Verdict::NotResolved,
            Verdict::NotDecidedHere,
        ] {
            let json = serde_json::to_string(&verdict).unwrap();
            assert_eq!(json, format!("\"{}\"", verdict.words()));
        }
    }
}
