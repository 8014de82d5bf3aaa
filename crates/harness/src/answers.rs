//! Answers at a resolution fixed in advance: the verdict words of a pair, the two-sided 90 %
//! interval they read (one-sided 95 % at each end), and the controls' bias tests (a p-value for
//! a difference from 0, Holm's correction over a run's controls; E11's rules v5–v7 also gate
//! on the half-width, [`test_controls`]). Shared by E11's rules, E12's pairs, E7's positive
//! controls and `kiki compare`.
//! Since 2026-12-02 the rule of bounds ([`test_controls_for_bias`], [`bounded`]): a control
//! withholds only where it shows bias; a wide one widens the readings it gates instead.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The one-sided error rate at each end of an interval: the two-sided interval is 90 %.
pub const ONE_SIDED_ALPHA: f64 = 0.05;

/// The adjusted p-value under which a control shows bias.
pub const CONTROL_ALPHA: f64 = 0.05;

/// What a pair's interval says of B against A at ±T (B − A, or B / A − 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reading {
    /// U < −T: B is faster than A by more than T.
    #[serde(rename = "faster")]
    Faster,
    /// L > +T: B is slower than A by more than T.
    #[serde(rename = "slower")]
    Slower,
    /// −T < L and U < +T: B and A are level within ±T.
    #[serde(rename = "level")]
    Level,
    /// The interval reaches across ±T.
    #[serde(rename = "not resolved")]
    NotResolved,
    /// A control failed: the run gives no reading.
    #[serde(rename = "withheld")]
    Withheld,
}

impl Reading {
    pub fn words(self) -> &'static str {
        match self {
            Reading::Faster => "faster",
            Reading::Slower => "slower",
            Reading::Level => "level",
            Reading::NotResolved => "not resolved",
            Reading::Withheld => "withheld",
        }
    }

    /// The reading of [`low`, `high`] (B − A, in A's unit) at ±`threshold`; `withheld` where
    /// `controls_passed` is false; `not resolved` where a bound or the threshold is missing.
    pub fn of(low: f64, high: f64, threshold: f64, controls_passed: bool) -> Reading {
        if !controls_passed {
            return Reading::Withheld;
        }
        if !(low.is_finite() && high.is_finite() && threshold > 0.0) {
            return Reading::NotResolved;
        }
        if high < -threshold {
            Reading::Faster
        } else if low > threshold {
            Reading::Slower
        } else if low > -threshold && high < threshold {
            Reading::Level
        } else {
            Reading::NotResolved
        }
    }
}

/// Student's t quantile at `p` with `df` degrees of freedom (infinite for df = 0).
pub fn t_quantile(p: f64, df: f64) -> f64 {
    if df < 1.0 {
        return f64::INFINITY;
    }
    StudentsT::new(0.0, 1.0, df).map_or(f64::INFINITY, |t| t.inverse_cdf(p))
}

/// The one-sided 95 % quantile of Student's t: the half-width factor of a 90 % interval.
pub fn t90(df: usize) -> f64 {
    t_quantile(1.0 - ONE_SIDED_ALPHA, df as f64)
}

/// The two-sided p-value of `t` against Student's t with `df` degrees of freedom (1 where it
/// cannot be computed).
pub fn two_sided_p(t: f64, df: f64) -> f64 {
    if !t.is_finite() || df < 1.0 {
        return 1.0;
    }
    StudentsT::new(0.0, 1.0, df).map_or(1.0, |d| (2.0 * (1.0 - d.cdf(t.abs()))).min(1.0))
}

/// Holm's step-down adjustment: the adjusted p-values in the order given.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut adjusted = vec![1.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        let value = ((m - rank) as f64 * p[i]).min(1.0);
        running = running.max(value);
        adjusted[i] = running;
    }
    adjusted
}

/// A control's estimate of a difference that must be 0: its value, standard error and degrees
/// of freedom (Yuen's trimmed mean over processes, or Student's t over them).
#[derive(Clone, Debug, PartialEq)]
pub struct ControlEstimate {
    pub name: String,
    pub value: f64,
    pub standard_error: f64,
    pub degrees: usize,
}

/// A control as the run judged it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ControlTest {
    pub name: String,
    pub value: f64,
    /// The 90 % interval's half-width, in the threshold's unit.
    pub half_width: f64,
    /// The two-sided p-value for a difference from 0, before Holm's correction.
    pub p_raw: f64,
    /// Holm-adjusted over the run's controls.
    pub p: f64,
    pub failed: bool,
}

impl ControlTest {
    /// Why the control failed, in a few words (`None` where it passed).
    pub fn why(&self) -> Option<String> {
        if !self.failed {
            return None;
        }
        Some(if self.p < CONTROL_ALPHA {
            format!("{} shows bias (adjusted p = {:.3})", self.name, self.p)
        } else if self.half_width.is_finite() {
            format!(
                "{}'s half-width {:.3} exceeds the threshold",
                self.name, self.half_width
            )
        } else {
            format!("{} has no interval", self.name)
        })
    }
}

/// Tests each control for a difference from 0 (two-sided t), adjusts the p-values by Holm
/// over all of them, and fails a control whose adjusted p < [`CONTROL_ALPHA`] or whose 90 %
/// half-width exceeds `threshold` (it could not exclude a bias as large as the effect judged).
/// `thresholds[i]` is control `i`'s threshold (each evaluation has its own).
pub fn test_controls(controls: &[ControlEstimate], thresholds: &[f64]) -> Vec<ControlTest> {
    let raw: Vec<f64> = controls
        .iter()
        .map(|c| two_sided_p(c.value / c.standard_error, c.degrees as f64))
        .collect();
    let adjusted = holm(&raw);
    controls
        .iter()
        .zip(raw.iter().zip(&adjusted))
        .zip(thresholds)
        .map(|((c, (&p_raw, &p)), &threshold)| {
            let half_width = t90(c.degrees) * c.standard_error;
            let failed = !(p >= CONTROL_ALPHA && half_width <= threshold);
            ControlTest {
                name: c.name.clone(),
                value: c.value,
                half_width,
                p_raw,
                p,
                failed,
            }
        })
        .collect()
}

/// The rule of bounds (E11's v8, E12, E7's ring-judged controls, since 2026-12-02): each
/// control is tested for a difference from 0 (two-sided t), Holm over all of them, and fails
/// only where its adjusted p < [`CONTROL_ALPHA`] (it shows bias) or it has no interval. A wide
/// control vetoes nothing: what it leaves unexcluded widens the readings it gates
/// ([`bounded`]), so its width becomes the run's resolution.
pub fn test_controls_for_bias(controls: &[ControlEstimate]) -> Vec<ControlTest> {
    let unbounded = vec![f64::INFINITY; controls.len()];
    test_controls(controls, &unbounded)
        .into_iter()
        .map(|test| ControlTest {
            failed: test.p < CONTROL_ALPHA || !test.half_width.is_finite(),
            ..test
        })
        .collect()
}

/// A reading's interval [`low`, `high`] widened by the bias its controls leave unexcluded
/// (the rule of bounds): a control's 90 % interval [c_L, c_U] bounds a bias b the instrument
/// adds to the reading, so the effect lies in [low − c_U, high − c_L]; only widening is taken
/// (max(c_U, 0) and min(c_L, 0)), and over several controls the widest on each side. Where a
/// control is narrower than the bias it could hide, it costs little; where it is wide, its
/// width is the run's resolution.
pub fn bounded(low: f64, high: f64, controls: &[&ControlTest]) -> (f64, f64) {
    widened(
        low,
        high,
        controls
            .iter()
            .map(|c| (c.value - c.half_width, c.value + c.half_width)),
    )
}

/// [`bounded`] from the controls' intervals `(c_L, c_U)` themselves.
pub fn widened(low: f64, high: f64, controls: impl IntoIterator<Item = (f64, f64)>) -> (f64, f64) {
    let (down, up) = controls
        .into_iter()
        .fold((0.0f64, 0.0f64), |(down, up), (c_low, c_high)| {
            (down.min(c_low), up.max(c_high))
        });
    (low - up, high - down)
}

/// Yuen's trimmed mean of `means` (one per process): the estimate, its standard error and
/// degrees of freedom. Of the K values, g = ⌊`trim` · K⌋ are dropped at each end; the estimate
/// is the mean of the other h = K − 2g, its standard error √((K − 1) s_w² / (h (h − 1))) from
/// the winsorised variance s_w², with h − 1 degrees of freedom. NaN standard error with h < 2.
pub fn trimmed_over_processes(means: &[f64], trim: f64) -> (f64, f64, usize) {
    let mut sorted: Vec<f64> = means.iter().copied().filter(|m| m.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let k = sorted.len();
    let g = (trim * k as f64).floor() as usize;
    if k == 0 || 2 * g >= k {
        return (f64::NAN, f64::NAN, 0);
    }
    let kept = &sorted[g..k - g];
    let h = kept.len();
    let value = kept.iter().sum::<f64>() / h as f64;
    if h < 2 {
        return (value, f64::NAN, 0);
    }
    let winsorised: Vec<f64> = sorted
        .iter()
        .map(|&m| m.clamp(kept[0], kept[h - 1]))
        .collect();
    let centre = winsorised.iter().sum::<f64>() / k as f64;
    let variance = winsorised.iter().map(|m| (m - centre).powi(2)).sum::<f64>() / (k - 1) as f64;
    let standard_error = ((k - 1) as f64 * variance / (h * (h - 1)) as f64).sqrt();
    (value, standard_error, h - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_at_the_threshold() {
        assert_eq!(Reading::of(-9.0, -4.0, 3.0, true), Reading::Faster);
        assert_eq!(Reading::of(4.0, 9.0, 3.0, true), Reading::Slower);
        assert_eq!(Reading::of(-2.0, 2.5, 3.0, true), Reading::Level);
        assert_eq!(Reading::of(-2.0, 4.0, 3.0, true), Reading::NotResolved);
        // A bound on the threshold is not beyond it.
        assert_eq!(Reading::of(3.0, 5.0, 3.0, true), Reading::NotResolved);
        assert_eq!(Reading::of(4.0, 9.0, 3.0, false), Reading::Withheld);
        assert_eq!(Reading::of(f64::NAN, 9.0, 3.0, true), Reading::NotResolved);
        let json = serde_json::to_string(&Reading::NotResolved).unwrap();
        assert_eq!(json, "\"not resolved\"");
    }

    #[test]
    fn holm_steps_down_and_keeps_order() {
        // Sorted 0.01, 0.02, 0.04 over three: 0.03, 0.04, 0.04 (monotone).
        let adjusted = holm(&[0.04, 0.01, 0.02]);
        let expected = [0.04, 0.03, 0.04];
        for (a, e) in adjusted.iter().zip(expected) {
            assert!((a - e).abs() < 1e-12, "{adjusted:?}");
        }
        assert_eq!(holm(&[0.6, 0.7]), vec![1.0, 1.0]);
    }

    #[test]
    fn the_t_quantiles_and_p_values_agree() {
        // t(0.95, 10) = 1.812; its two-sided p is 0.10.
        assert!((t90(10) - 1.8125).abs() < 1e-3);
        assert!((two_sided_p(1.812_461, 10.0) - 0.10).abs() < 1e-4);
        assert_eq!(two_sided_p(f64::NAN, 10.0), 1.0);
    }

    #[test]
    fn a_control_fails_by_bias_or_by_width_only() {
        let control = |value: f64, se: f64| ControlEstimate {
            name: "a/a".into(),
            value,
            standard_error: se,
            degrees: 20,
        };
        // Centred and narrow: passes. Centred and wide: fails by width. Off-centre: by bias.
        let tests = test_controls(
            &[control(0.1, 1.0), control(0.1, 30.0), control(8.0, 1.0)],
            &[10.0, 10.0, 10.0],
        );
        assert!(!tests[0].failed, "{:?}", tests[0]);
        assert!(tests[1].failed && tests[1].p >= CONTROL_ALPHA);
        assert!(tests[2].failed && tests[2].p < CONTROL_ALPHA);
        assert!(tests[1].why().unwrap().contains("half-width"));
        assert!(tests[2].why().unwrap().contains("bias"));
    }

    /// Under the rule of bounds a wide control passes and widens; a biased one still fails; a
    /// control without an interval fails.
    #[test]
    fn a_wide_control_bounds_and_a_biased_one_withholds() {
        let control = |value: f64, se: f64| ControlEstimate {
            name: "a/a".into(),
            value,
            standard_error: se,
            degrees: 20,
        };
        let tests = test_controls_for_bias(&[
            control(0.1, 1.0),
            control(0.1, 30.0),
            control(8.0, 1.0),
            control(0.0, f64::NAN),
        ]);
        assert!(!tests[0].failed && !tests[1].failed, "{tests:?}");
        assert!(tests[2].failed && tests[2].why().unwrap().contains("bias"));
        assert!(tests[3].failed && tests[3].why().unwrap().contains("no interval"));
        // [−10, 20] against a control of 0.1 ± 1.725: up 1.825, down −1.625.
        let (low, high) = bounded(-10.0, 20.0, &[&tests[0]]);
        let hw = tests[0].half_width;
        assert!((low - (-10.0 - 0.1 - hw)).abs() < 1e-12);
        assert!((high - (20.0 - 0.1 + hw)).abs() < 1e-12);
        // The widest control decides each side; none leaves the interval as it was.
        let (wide_low, wide_high) = bounded(-10.0, 20.0, &[&tests[0], &tests[1]]);
        assert!(wide_low < low && wide_high > high);
        assert_eq!(bounded(-10.0, 20.0, &[]), (-10.0, 20.0));
        // A control wholly above 0 widens only downward: the bias it shows could be subtracted.
        let above = ControlTest {
            value: 3.0,
            half_width: 1.0,
            ..tests[0].clone()
        };
        assert_eq!(bounded(-10.0, 20.0, &[&above]), (-14.0, 20.0));
    }

    #[test]
    fn the_trimmed_mean_drops_a_tenth_at_each_end() {
        let mut means: Vec<f64> = (0..9).map(f64::from).collect();
        means.push(100.0);
        let (value, se, df) = trimmed_over_processes(&means, 0.1);
        assert!((value - 4.5).abs() < 1e-12);
        assert_eq!(df, 7);
        means[9] = 1000.0;
        assert_eq!(trimmed_over_processes(&means, 0.1), (value, se, df));
        let (v, se, df) = trimmed_over_processes(&[1.0, 3.0, 5.0], 0.1);
        assert!((v - 3.0).abs() < 1e-12 && (se - 2.0 / 3f64.sqrt()).abs() < 1e-12 && df == 2);
    }
}
