//! E11's decision rule, version 5: seed 004's verdict per evaluation from D's two-sided 90 %
//! interval against a threshold of 3 % of t(dbb) under that evaluation, with controls that
//! test for bias (with power) instead of vetoing by width. Committed before its first run and
//! not changed after it (the summary's `rule_commit` names the commit; a test holds the file
//! to it). Version 4 (`rule.rs`, 54afcd0d0331) stays as it was committed.
//!
//! Why a version 5. No run of v4 passed its gate, yet 64 of 66 A/A intervals of its 21 full
//! runs contained 0 (about the nominal 5 % miss): its controls failed by width, never by
//! bias, and a failed control vetoed every verdict. Its threshold (3 % of t(dbb) under
//! `material`, ≈ 9.4 ns on the Zen 4) is 0.8 % of an nnue node, a resolution no run on these
//! machines reaches (one E11 resolved ±33–43 ns).
//!
//! The rule, fixed before the data:
//! * D = (t(magic-plain) − t(dbb)) under the evaluation − the same under `material`, in ns per
//!   node, at the largest TT with every table on 2 MiB pages; a process's sample is the mean
//!   of its forward and reverse pairs of rounds ([`pair_means`]), its mean the process's value.
//! * The process is the unit: D's estimate is Yuen's trimmed mean over the processes' means
//!   (a tenth trimmed at each end, as in v4), its interval two-sided 90 % (Student's t at
//!   0.95 with h − 1 degrees of freedom): one-sided 95 % at each end, since seed 004's claim is
//!   one-sided (magic-plain is slower).
//! * T = [`THRESHOLD_SHARE`] of t(dbb) under the evaluation concerned (≈ 35 ns under nnue on
//!   the Zen 4): a difference an engine author would act on.
//! * `holds` where L > +T; `does not hold` where U < +T (magic-plain costs less than T more
//!   than dbb, or is faster); `not resolved` otherwise (or where D has no interval);
//!   `withheld` where a control fails.
//! * The controls: the A/A (dbb against its own second timing, D under nnue and kpp, the plain
//!   difference under `material`) and the negative control (sqww against mailbox, D under
//!   nnue and kpp). Each gives a two-sided p-value for a difference from 0 (Yuen's t over the
//!   processes), Holm's correction runs over all of them, and a control fails where its
//!   adjusted p < 0.05 or where its 90 % half-width exceeds its evaluation's T (it could not
//!   exclude a bias as large as the effect judged). A failed control withholds every verdict
//!   and is named; otherwise a control's width vetoes nothing: D's interval carries that noise.
//!
//! The sampling arithmetic, from costs measured on the Zen 4 (family 25, model 17, 2 cores):
//! * a round: one search of the 60 bench positions to depth 3 is 578,416 nodes (`kiki bench
//!   --depth 3`), at the -11-29-9 report's t(dbb) of 316, 1,180 and 1,079 ns per node under
//!   material, nnue and kpp 0.18 + 0.68 + 0.62 s, ≈ 1.5 s with the warm-ups; the verdict's
//!   five entries make a round r ≈ 7.5 s;
//! * a process's start-up: that report's E11 took 417 s, of which its timed blocks (10
//!   processes × 2 rounds × 9 entries × 1.5 s, and the secondary cells' 4 × 27 s) were
//!   ≈ 378 s, so o ≈ 4 s (the binary's start, the evaluations' tables and the 1 GiB TT
//!   filled, the tables placed, the discarded block);
//! * the noise of D under nnue (the v4 runs pooled): σ_w ≈ 62 ns per round within a
//!   process, σ_b ≈ 24 ns between processes.
//!
//! With n processes of R rounds in a budget B = n (o + R r), var(D̂) ≈ (σ_b² + σ_w² / R) / n
//! is least at R* = (σ_w / σ_b) √(o / r) ≈ 2.6 · 0.73 ≈ 1.9: R = 2, one forward and one
//! reverse round ([`ROUNDS_PER_PROCESS`]). A process of the verdict's cells then takes
//! o + 2 r ≈ 19 s, and 20 processes ≈ 380 s; the ranking cell (eight backends under material
//! and nnue, two rounds, ≈ 14 s) in every second process adds ≈ 140 s: E11 ≈ 520 s of its
//! 600. The predicted resolution under nnue: √((24² + 62² / 2) / 20) ≈ 11 ns of standard
//! error, a 90 % half-width ≈ t(0.95, 15) · 11 ≈ 20 ns (trimming widens it a little), about
//! half of T.

use crate::answers::{t90, ControlEstimate, ControlTest};
use serde::{Deserialize, Serialize};

/// The rule's version (see the module's head).
pub const VERSION: u32 = 5;

/// T as a share of t(dbb) under the evaluation concerned.
pub const THRESHOLD_SHARE: f64 = 0.03;

/// Rounds of the verdict's cells per process: one forward and one reverse.
pub const ROUNDS_PER_PROCESS: usize = 2;

/// The share of the processes' means trimmed at each end.
pub const TRIM: f64 = 0.1;

/// The pair the rule decides on, (first, second): D = t(second) − t(first).
pub const RULE_PAIR: (&str, &str) = ("dbb", "magic-plain");
/// The A/A control: this backend against its own second timing.
pub const TWIN: &str = "dbb";
/// The negative control: no tables to miss on either side.
pub const NEGATIVE: (&str, &str) = ("sqww", "mailbox");

/// Per process, each (forward, reverse) pair of per-round differences gives one sample,
/// their mean, so that a backend's slot in the order cancels. An odd last round is dropped.
pub fn pair_means(per_round: &[f64]) -> Vec<f64> {
    per_round
        .chunks_exact(2)
        .map(|pair| (pair[0] + pair[1]) / 2.0)
        .collect()
}

/// D's (or a control's) estimate over processes: the trimmed mean, its standard error and
/// degrees of freedom, and the 90 % interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub value: f64,
    pub standard_error: f64,
    pub degrees: usize,
    pub low: f64,
    pub high: f64,
}

impl Interval {
    /// The half-width of the 90 % interval (NaN where there is none).
    pub fn half_width(&self) -> f64 {
        (self.high - self.low) / 2.0
    }
}

/// The estimate from `samples[i]`, process `i`'s samples: Yuen's trimmed mean over the
/// processes' means ([`crate::answers::trimmed_over_processes`]), with a two-sided 90 %
/// interval; NaN bounds where fewer than two means are kept.
pub fn interval_over_processes(samples: &[Vec<f64>]) -> Interval {
    let means: Vec<f64> = samples
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| s.iter().sum::<f64>() / s.len() as f64)
        .collect();
    let (value, standard_error, degrees) = crate::answers::trimmed_over_processes(&means, TRIM);
    let half = if degrees >= 1 {
        t90(degrees) * standard_error
    } else {
        f64::NAN
    };
    Interval {
        value,
        standard_error,
        degrees,
        low: value - half,
        high: value + half,
    }
}

/// What the rule says for one evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// L > +T: magic-plain loses more than T per node to dbb under this evaluation, beyond
    /// what it loses under `material`.
    #[serde(rename = "holds")]
    Holds,
    /// U < +T: magic-plain costs less than T more than dbb, or is faster.
    #[serde(rename = "does not hold")]
    DoesNotHold,
    /// The interval reaches across +T, or there is none.
    #[serde(rename = "not resolved")]
    NotResolved,
    /// A control failed: no verdict on this run.
    #[serde(rename = "withheld")]
    Withheld,
}

impl Verdict {
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::DoesNotHold => "does not hold",
            Verdict::NotResolved => "not resolved",
            Verdict::Withheld => "withheld",
        }
    }
}

/// The rule for one evaluation (`nnue` or `kpp`): `d` is D's interval, `threshold_ns` that
/// evaluation's T, `controls_passed` whether every control passed ([`judge_controls`]).
pub fn decide(d: &Interval, threshold_ns: f64, controls_passed: bool) -> Verdict {
    if !controls_passed {
        return Verdict::Withheld;
    }
    if !(threshold_ns > 0.0 && d.low.is_finite() && d.high.is_finite()) {
        return Verdict::NotResolved;
    }
    if d.low > threshold_ns {
        Verdict::Holds
    } else if d.high < threshold_ns {
        Verdict::DoesNotHold
    } else {
        Verdict::NotResolved
    }
}

/// The controls judged together: `controls[i]` (its name and interval) against
/// `thresholds[i]` (its evaluation's T). A control without an interval fails by width.
pub fn judge_controls(controls: &[(String, Interval)], thresholds: &[f64]) -> Vec<ControlTest> {
    let estimates: Vec<ControlEstimate> = controls
        .iter()
        .map(|(name, i)| ControlEstimate {
            name: name.clone(),
            value: i.value,
            standard_error: i.standard_error,
            degrees: i.degrees,
        })
        .collect();
    crate::answers::test_controls(&estimates, thresholds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(low: f64, high: f64) -> Interval {
        Interval {
            value: (low + high) / 2.0,
            standard_error: (high - low) / 4.0,
            degrees: 10,
            low,
            high,
        }
    }

    #[test]
    fn the_rule_reads_the_interval_against_plus_t() {
        assert_eq!(decide(&d(36.0, 50.0), 35.0, true), Verdict::Holds);
        // Inside ±T, and wholly below −T: magic-plain costs less than T more.
        assert_eq!(decide(&d(-10.0, 30.0), 35.0, true), Verdict::DoesNotHold);
        assert_eq!(decide(&d(-90.0, -40.0), 35.0, true), Verdict::DoesNotHold);
        assert_eq!(decide(&d(10.0, 40.0), 35.0, true), Verdict::NotResolved);
        // A bound on the threshold is not beyond it.
        assert_eq!(decide(&d(35.0, 50.0), 35.0, true), Verdict::NotResolved);
        assert_eq!(decide(&d(0.0, 35.0), 35.0, true), Verdict::NotResolved);
        assert_eq!(decide(&d(36.0, 50.0), 35.0, false), Verdict::Withheld);
        assert_eq!(decide(&d(f64::NAN, 50.0), 35.0, true), Verdict::NotResolved);
    }

    #[test]
    fn the_interval_is_ninety_percent_over_process_means() {
        // Means 1, 3, 5: mean 3, standard error 2/√3, t(0.95, 2) = 2.92.
        let i = interval_over_processes(&[vec![0.0, 2.0], vec![3.0], vec![5.0, 5.0]]);
        let half = 2.919_986 * 2.0 / 3f64.sqrt();
        assert!((i.value - 3.0).abs() < 1e-12);
        assert!((i.half_width() - half).abs() < 1e-4, "{i:?}");
        assert_eq!(i.degrees, 2);
        assert!(interval_over_processes(&[vec![1.0, 2.0]]).low.is_nan());
    }

    #[test]
    fn controls_fail_by_bias_or_by_a_width_beyond_t() {
        let narrow = d(-2.0, 2.0);
        let biased = Interval {
            value: 8.0,
            standard_error: 1.0,
            degrees: 20,
            low: 6.0,
            high: 10.0,
        };
        let wide = d(-60.0, 60.0);
        let tests = judge_controls(
            &[
                ("a/a".into(), narrow),
                ("negative".into(), biased),
                ("a/a kpp".into(), wide),
            ],
            &[35.0, 35.0, 35.0],
        );
        assert_eq!(
            tests.iter().map(|t| t.failed).collect::<Vec<_>>(),
            [false, true, true]
        );
    }

    #[test]
    fn pairs_of_rounds_and_the_words() {
        assert_eq!(pair_means(&[10.0, -6.0, 3.0, 5.0, 99.0]), vec![2.0, 4.0]);
        for v in [
            Verdict::Holds,
            Verdict::DoesNotHold,
            Verdict::NotResolved,
            Verdict::Withheld,
        ] {
            let json = serde_json::to_string(&v).unwrap();
            assert_eq!(json, format!("\"{}\"", v.words()));
        }
    }
}
