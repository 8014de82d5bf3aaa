//! E11's decision rule, version 8: version 7 with the rule of bounds, under which a wide
//! control bounds the verdict instead of vetoing it. Committed before its first run and not
//! changed after it (the summary's `rule_commit` names the commit; a test holds the file to
//! it). Versions 4–7 stay as they were committed; v8 reuses their pieces.
//!
//! Why a version 8. Under v5–v7 a control failed where its 90 % half-width exceeded T, although
//! it showed no bias: the run then gave no verdict at all, where it could have said what it
//! bounds. Over the v4–v7 runs the controls failed by width, never by bias (64 of 66 A/A
//! intervals contained 0). And a control that passed the width gate vetoed nothing, whatever
//! it left unexcluded: the Zen 4's kpp A/A read −24.7 [−48.0, −1.3] (Holm p 0.34) beside a
//! verdict that ignored it.
//!
//! The rule, fixed before the data (everything not named here is v7's):
//! * The controls are v7's (the A/A under every evaluation, the negative control's D under
//!   nnue and kpp), tested together for a difference from 0 with Holm's correction (v5's
//!   test, with no width gate). A control fails only where its adjusted p < 0.05 (it shows
//!   bias) or it has no interval ([`judge_controls`]); a failed control withholds every
//!   verdict of the run and is named.
//! * Every control of an evaluation bounds the bias it could leave undetected by its 90 %
//!   interval [c_L, c_U]: D's interval [L, U] under that evaluation widens to the bounded
//!   interval [L − max(c_U, 0), U − min(c_L, 0)], the widest of its controls on each side
//!   ([`bounded`], in this file). Under `material` the A/A alone bounds the plain
//!   difference (the negative control's plain difference is the two mailboxes' own speeds).
//! * The verdict reads the bounded interval with v5's words: `holds` where its lower bound
//!   exceeds T, `does not hold` where its upper bound lies below T, `not resolved` otherwise
//!   ([`decide`]); its margin is v6's, on the bounded interval. The run's resolution is the
//!   bounded interval's half-width: D's noise and its controls' together.
//!
//! The sampling arithmetic. v7's sampling is kept (20 processes in 10 mirrored pairs, two
//! rounds each; the arithmetic is in `rule_v6.rs` and `rule_v7.rs`). The bounded half-width is
//! about D's plus its widest control's reach. On the Zen 5 (2026-12-02-2, v7) D under nnue read
//! −2.0 [−12.4, 8.3] ns and its A/A −5.0 ± 10.0, that is [−15, 5]: the low end moves out by
//! c_U = 5 and the high end by −c_L = 15, to [−17.4, 23.3] against T = 27.8 (`does not hold`
//! still). Under kpp D read 6.4 [−4.2, 17.0] with an A/A of 3.7 ± 10.7, [−7.0, 14.4]: to
//! [−18.6, 24.0] against T = 25.6. A run of v7's size can decide either way on that machine;
//! on the Intel 6/207 (v6: D ±32.8 ns, T 58.7, an A/A of −7.8 [−34.7, 19.2]) the upper end moves
//! out by about 35 ns, so there a run bounds more often than it decides.
//!
//! Coverage. A passing control's whole interval is taken as bias it could hide, so its noise
//! adds to D's linearly: the bounded interval covers at least 90 %, by more where the
//! controls are wide. That is the price of a rule under which no width vetoes.

pub use super::rule_v7::{
    in_reference_ns, interval_over_units, margin, pair_means, process_reference, reference_ns,
    threshold_ns, Interval, Verdict, NEGATIVE, ROUNDS_PER_PROCESS, RULE_PAIR, THRESHOLD_SHARE,
    TRIM, TWIN,
};
use crate::answers::{ControlTest, CONTROL_ALPHA};

/// The rule's version (see the module's head).
pub const VERSION: u32 = 8;

/// The controls judged together for bias alone, `controls[i]` its name and interval: v5's
/// test and Holm's correction with no width gate; a control fails where its adjusted p <
/// [`CONTROL_ALPHA`] or it has no interval.
pub fn judge_controls(controls: &[(String, Interval)]) -> Vec<ControlTest> {
    let no_width_gate = vec![f64::INFINITY; controls.len()];
    super::rule_v5::judge_controls(controls, &no_width_gate)
        .into_iter()
        .map(|test| ControlTest {
            failed: test.p < CONTROL_ALPHA || !test.half_width.is_finite(),
            ..test
        })
        .collect()
}

/// D's interval widened by what its evaluation's controls leave unexcluded, each control's
/// 90 % interval [c_L, c_U] = value ∓ half-width: [L − max(c_U, 0), U − min(c_L, 0)], the
/// widest control on each side. The value, its standard error and degrees stay D's.
pub fn bounded(d: &Interval, controls: &[&ControlTest]) -> Interval {
    let up = controls
        .iter()
        .map(|c| c.value + c.half_width)
        .fold(0.0, f64::max);
    let down = controls
        .iter()
        .map(|c| c.value - c.half_width)
        .fold(0.0, f64::min);
    Interval {
        low: d.low - up,
        high: d.high - down,
        ..*d
    }
}

/// The verdict for one evaluation (`nnue` or `kpp`) from its bounded interval: v5's words,
/// `withheld` where a control showed bias.
pub fn decide(bounded: &Interval, threshold_ns: f64, no_control_failed: bool) -> Verdict {
    super::rule_v5::decide(bounded, threshold_ns, no_control_failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interval(low: f64, high: f64) -> Interval {
        Interval {
            value: (low + high) / 2.0,
            standard_error: (high - low) / 4.0,
            degrees: 9,
            low,
            high,
        }
    }

    /// A control wider than T no longer withholds: it widens D, and the verdict reads the
    /// widened interval (a verdict v7 would have withheld, decided or left not resolved).
    #[test]
    fn a_wide_control_widens_the_verdict_instead_of_withholding_it() {
        let controls = judge_controls(&[
            ("aa".into(), interval(-30.0, 30.0)),
            ("negative".into(), interval(-5.0, 5.0)),
        ]);
        assert!(controls.iter().all(|c| !c.failed), "{controls:?}");
        let refs: Vec<&ControlTest> = controls.iter().collect();
        let d = bounded(&interval(-10.0, 10.0), &refs);
        // The A/A's 90 % half-width (t(0.95, 9) · 15 ≈ 27.5) is the wider reach on each side.
        let reach = controls[0].half_width;
        assert!(reach > 27.0 && reach < 28.0, "{reach}");
        assert!((d.low + 10.0 + reach).abs() < 1e-9 && (d.high - 10.0 - reach).abs() < 1e-9);
        assert_eq!(decide(&d, 50.0, true), Verdict::DoesNotHold);
        assert_eq!(decide(&d, 35.0, true), Verdict::NotResolved);
    }

    /// A control wholly above 0 moves only the low end out: the rule widens, never narrows.
    #[test]
    fn the_bounds_only_widen() {
        let above = judge_controls(&[("aa".into(), interval(2.0, 4.0))]);
        let d = bounded(&interval(-10.0, 10.0), &[&above[0]]);
        assert!(
            (d.high - 10.0).abs() < 1e-12 && d.low < -10.0 - 3.0,
            "{d:?}"
        );
        assert_eq!(bounded(&interval(-10.0, 10.0), &[]), interval(-10.0, 10.0));
    }

    /// A control off 0 beyond its noise fails and withholds.
    #[test]
    fn a_biased_control_withholds() {
        let controls = judge_controls(&[("aa".into(), interval(20.0, 30.0))]);
        assert!(controls[0].failed);
        assert_eq!(decide(&interval(-5.0, 5.0), 35.0, false), Verdict::Withheld);
    }
}
