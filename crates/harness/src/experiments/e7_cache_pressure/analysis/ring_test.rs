//! The project's rule for controls (`answers::test_controls`, as E11 and E12 judge theirs)
//! applied to a positive control against the ring beside it: the control's cost minus the
//! ring's, one mean per process, Yuen's trimmed mean over the processes with a 90 % interval and
//! a two-sided p for a difference from 0; it fails at a Holm-adjusted p < 0.05 (a bias) or with
//! no interval; a wide one bounds the verdict instead (the rule of bounds, `verdict.rs`; before,
//! a half-width beyond the tolerance of the ring's cost failed it, and before 2026-12-02 the
//! whole 95 % interval over rounds had to fit inside that band).

use crate::answers::{
    test_controls_for_bias, trimmed_over_processes, ControlEstimate, ControlTest, CONTROL_ALPHA,
};
use crate::experiments::blocks;
use crate::experiments::e7_cache_pressure::POSITIVE_TOLERANCE;
use crate::stats::{format_interval, format_sig, Estimate};
use serde_json::{json, Value as Json};

/// The share of processes trimmed at each end of Yuen's mean (a tenth, as E12 and `compare`).
pub const PROCESS_TRIM: f64 = 0.1;

/// A positive control's test against its ring, in ns per read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RingTest {
    /// Yuen's trimmed mean of the processes' mean differences (control − ring).
    pub value: f64,
    /// Its two-sided 90 % interval (NaN with fewer than two processes kept).
    pub low: f64,
    pub high: f64,
    pub half_width: f64,
    /// The tolerance of the ring's cost: reported beside the half-width (how precise the
    /// control was against its ring's cost); under the rule of bounds it gates nothing.
    pub threshold: f64,
    /// The two-sided p-value for a difference from 0, before and after Holm's correction.
    pub p_raw: f64,
    pub p: f64,
    pub degrees: usize,
    pub processes: usize,
    pub failed: bool,
}

impl RingTest {
    fn of(
        test: &ControlTest,
        estimate: &ControlEstimate,
        threshold: f64,
        processes: usize,
    ) -> Self {
        RingTest {
            value: test.value,
            low: test.value - test.half_width,
            high: test.value + test.half_width,
            half_width: test.half_width,
            threshold,
            p_raw: test.p_raw,
            p: test.p,
            degrees: estimate.degrees,
            processes,
            failed: test.failed,
        }
    }

    /// The difference and its 90 % interval.
    pub fn interval(&self) -> Estimate {
        Estimate {
            value: self.value,
            low: self.low,
            high: self.high,
        }
    }

    /// Whether it shows a bias: its adjusted p under [`CONTROL_ALPHA`].
    pub fn biased(&self) -> bool {
        self.p < CONTROL_ALPHA
    }

    /// `1.200 [0.400–2.000] ns (90 %), p = 0.012`: the difference, its interval and adjusted p.
    pub fn reading(&self) -> String {
        format!("{}, {}", self.interval_words(), p_words(self.p))
    }

    /// `1.200 [0.400–2.000] ns (90 %)`, or the value alone where it has no interval.
    pub fn interval_words(&self) -> String {
        if self.half_width.is_finite() {
            format!("{} ns (90 %)", format_interval(&self.interval()))
        } else {
            format!(
                "{} ns (no interval: fewer than two processes)",
                format_sig(self.value)
            )
        }
    }

    /// Why it failed, each reason after `; ` (empty where it passed): a bias, or no interval.
    pub fn failure_words(&self) -> String {
        let mut out = String::new();
        if self.biased() {
            out.push_str(&format!(
                "; it differs from its ring (adjusted {}, raw {})",
                p_words(self.p),
                p_words(self.p_raw)
            ));
        }
        if !self.half_width.is_finite() {
            out.push_str("; it has no 90 % interval (fewer than two processes)");
        }
        out
    }

    /// Its entry in the summary (`positive_controls[].ring_test`).
    pub fn json(&self) -> Json {
        let finite = |x: f64| if x.is_finite() { json!(x) } else { Json::Null };
        json!({"value": finite(self.value), "low": finite(self.low), "high": finite(self.high),
               "interval": 0.90, "half_width": finite(self.half_width),
               "threshold": finite(self.threshold), "p_raw": self.p_raw, "p": self.p,
               "degrees": self.degrees, "processes": self.processes, "failed": self.failed,
               "estimator": "Yuen's trimmed mean over processes, a tenth at each end"})
    }
}

/// A p-value in three decimals, `p = 0.012`, or `p < 0.001` below that.
pub fn p_words(p: f64) -> String {
    if p < 0.001 {
        "p < 0.001".into()
    } else {
        format!("p = {p:.3}")
    }
}

/// The mean of each process's rounds (`rounds` holds `k` processes' blocks in order).
pub fn process_means(rounds: &[f64], k: usize) -> Vec<f64> {
    blocks(rounds, k)
        .iter()
        .filter(|b| !b.is_empty())
        .map(|b| b.iter().sum::<f64>() / b.len() as f64)
        .collect()
}

/// Yuen's estimate over the processes' means.
fn estimate(means: &[f64]) -> ControlEstimate {
    let (value, standard_error, degrees) = trimmed_over_processes(means, PROCESS_TRIM);
    ControlEstimate {
        name: String::new(),
        value,
        standard_error,
        degrees,
    }
}

/// The test of each control given as (its processes' mean differences, its ring's cost), Holm's
/// correction taken over all of them; the threshold is the tolerance of each ring's cost.
pub fn ring_tests(controls: &[(Vec<f64>, f64)]) -> Vec<RingTest> {
    let estimates: Vec<ControlEstimate> = controls.iter().map(|(m, _)| estimate(m)).collect();
    let thresholds: Vec<f64> = controls
        .iter()
        .map(|(_, ring)| POSITIVE_TOLERANCE * ring)
        .collect();
    test_controls_for_bias(&estimates)
        .iter()
        .zip(&estimates)
        .zip(controls.iter().zip(&thresholds))
        .map(|((test, e), ((means, _), &threshold))| RingTest::of(test, e, threshold, means.len()))
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Ten processes' mean differences around `centre`, spread ± `spread`.
    pub(in super::super) fn means(centre: f64, spread: f64) -> Vec<f64> {
        (0..10)
            .map(|i| centre + spread * (i as f64 - 4.5) / 4.5)
            .collect()
    }

    /// One process gives no interval: the control fails, and says why.
    #[test]
    fn one_process_gives_no_interval_and_fails() {
        let test = ring_tests(&[(vec![0.1], 6.8)])[0];
        assert!(test.failed && !test.half_width.is_finite());
        assert_eq!(
            test.failure_words(),
            "; it has no 90 % interval (fewer than two processes)"
        );
        assert!(test.json()["half_width"].is_null());
    }

    #[test]
    fn process_means_are_each_blocks_mean() {
        let rounds = [1.0, 3.0, 2.0, 2.0, 5.0, 7.0];
        assert_eq!(process_means(&rounds, 3), vec![2.0, 2.0, 6.0]);
    }
}
