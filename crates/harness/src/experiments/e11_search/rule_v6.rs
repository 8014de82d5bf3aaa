//! E11's decision rule, version 6: version 5 with T's estimator fixed in advance. Each
//! process's D is read as a share of that process's own t(dbb), so T is exactly
//! [`THRESHOLD_SHARE`] and no choice of how t(dbb) is summarised can move a verdict.
//! Committed before its first run and not changed after it (the summary's `rule_commit`
//! names the commit; a test holds the file to it). Versions 4 (`rule.rs`) and 5
//! (`rule_v5.rs`) stay as they were committed; v6 reuses v5's pieces that it does not change.
//!
//! Why a version 6. v5 said "T = 3 % of t(dbb)" without naming t(dbb)'s estimator. Its first
//! full run (Zen 4, 2026-12-01) decided kpp `does not hold` with U = 35.38 ns against
//! T = 35.44 ns (geometric mean of the per-process medians); the per-process means' trimmed
//! mean gives T = 35.32 ns and `not resolved`. A rule whose verdict turns on an estimator it
//! does not name was not fixed before the data. Dividing D by the same process's t(dbb) also
//! stops a slow process from widening T while it widens D.
//!
//! The rule, fixed before the data:
//! * Per process p and evaluation e, the process's t(dbb) is the mean of dbb's (not the
//!   twin's) rounds in the verdict cell of e: t_p(e) ([`process_reference`]).
//! * D's per-round value (t(magic-plain) − t(dbb) under e, minus the same under `material`,
//!   in ns per node; v5's definition) is divided by t_p(e): a share of a node. The
//!   forward/reverse pair means ([`pair_means`]) and Yuen's trimmed mean over the processes'
//!   means with a two-sided 90 % interval ([`interval_over_processes`]) are v5's.
//! * The verdict reads the share's interval [l, u] against [`THRESHOLD_SHARE`] with v5's
//!   [`decide`]: `holds` where l > 3 %, `does not hold` where u < 3 %, `not resolved`
//!   otherwise, `withheld` where a control fails.
//! * For the reader the shares are quoted in ns per node, multiplied by one reference
//!   t_ref(e) = Yuen's trimmed mean (v5's trim) over the processes' t_p(e)
//!   ([`reference_ns`]); T in ns is 3 % of it. Multiplying every figure by one positive
//!   constant changes no verdict, so the ns figures and the shares read alike by
//!   construction ([`in_reference_ns`]).
//! * The controls are v5's (the A/A under every evaluation, the negative control sqww against
//!   mailbox under nnue and kpp), each normalised the same way by its own evaluation's t_p;
//!   a control fails where its Holm-adjusted p < 0.05 or its 90 % half-width exceeds 3 %
//!   ([`judge_controls`]).
//! * Each verdict states its margin ([`margin`]): how far the deciding bound lies beyond T
//!   (positive where it decided, in ns per node at t_ref), so a reader sees a verdict that a
//!   hair decided.
//!
//! The sampling arithmetic, from v5's first full run (Zen 4, family 25, model 17, 2 cores):
//! * a process's start-up (`startup_seconds`): median 0.73 s, the first seven 3.6–4.7 s (the
//!   binary and its tables not yet in the page cache), o ≈ 1.9 s on average;
//! * a process's two rounds of the verdict's five entries (`round_seconds`): 7.3–9.3 s, r ≈
//!   4.2 s a round; with the ranking cell, 15–19 s;
//! * the noise of D as that run's `variance_components` gave it: under nnue σ_w ≈ 51 ns a
//!   round within a process and σ_b ≈ 34 ns between processes, under kpp σ_w ≈ 117 ns and
//!   σ_b ≤ 0 (truncated). Its within counted the forward/reverse order effect as noise, so
//!   σ_w is an upper bound; from v6 on the components remove it (E11's analysis).
//!
//! With n processes of R rounds in a budget B = n (o + R r), var(D̂) ≈ (σ_b² + σ_w² / R) / n
//! is least at R* = (σ_w / σ_b) √(o / r) ≈ 1.5 · 0.67 ≈ 1: two rounds (one forward, one
//! reverse) are the least that cancels a slot's effect, so R stays 2 ([`ROUNDS_PER_PROCESS`]).
//! 20 processes with the ranking cell in every second one took 546 s of E11's 600 s; the
//! resolution under nnue was ±21.5 ns (1.8 % of t(dbb)) against ≈ ±20 ns predicted, under
//! kpp ±31 ns (2.6 %): both below T, so each run can decide either way.

pub use super::rule_v5::{
    decide, interval_over_processes, judge_controls, pair_means, Interval, Verdict, NEGATIVE,
    ROUNDS_PER_PROCESS, RULE_PAIR, THRESHOLD_SHARE, TRIM, TWIN,
};

/// The rule's version (see the module's head).
pub const VERSION: u32 = 6;

/// A process's t(dbb) under one evaluation: the mean of its rounds (NaN where it has none).
pub fn process_reference(rounds: &[f64]) -> f64 {
    if rounds.is_empty() {
        return f64::NAN;
    }
    rounds.iter().sum::<f64>() / rounds.len() as f64
}

/// t_ref: Yuen's trimmed mean over the processes' t(dbb), the one constant the shares are
/// quoted in ns by.
pub fn reference_ns(process_references: &[f64]) -> f64 {
    crate::answers::trimmed_over_processes(process_references, TRIM).0
}

/// T in ns per node at the reference.
pub fn threshold_ns(reference: f64) -> f64 {
    THRESHOLD_SHARE * reference
}

/// One process's per-round differences (ns per node) as shares of its own t(dbb), quoted in
/// ns at the reference: `d / own × reference`. NaN where the process has no t(dbb).
pub fn in_reference_ns(per_round: &[f64], own: f64, reference: f64) -> Vec<f64> {
    let scale = if own > 0.0 { reference / own } else { f64::NAN };
    per_round.iter().map(|d| d * scale).collect()
}

/// How far the deciding bound lies beyond T (positive where the verdict was decided):
/// `holds` L − T, `does not hold` T − U; otherwise the nearer bound's distance across T,
/// negative (how much the interval would have to shrink to decide).
pub fn margin(d: &Interval, threshold: f64) -> f64 {
    let above = d.low - threshold;
    let below = threshold - d.high;
    if above > 0.0 {
        above
    } else if below > 0.0 {
        below
    } else {
        above.max(below)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interval(low: f64, high: f64) -> Interval {
        Interval {
            value: (low + high) / 2.0,
            standard_error: (high - low) / 4.0,
            degrees: 10,
            low,
            high,
        }
    }

    #[test]
    fn shares_of_each_process_quoted_at_one_reference() {
        // A process twice as slow gives the same share for twice the ns.
        assert_eq!(in_reference_ns(&[20.0, 40.0], 1000.0, 1200.0), [24.0, 48.0]);
        assert_eq!(in_reference_ns(&[40.0, 80.0], 2000.0, 1200.0), [24.0, 48.0]);
        assert!(in_reference_ns(&[1.0], f64::NAN, 1200.0)[0].is_nan());
        assert!((threshold_ns(1200.0) - 36.0).abs() < 1e-12);
        assert_eq!(process_reference(&[1000.0, 1100.0]), 1050.0);
        assert!(process_reference(&[]).is_nan());
    }

    #[test]
    fn scaling_by_the_reference_moves_no_verdict() {
        // The verdict on shares (against 3 %) and on ns (against 3 % of t_ref) agree.
        for (low, high) in [(0.031, 0.05), (-0.01, 0.029), (0.01, 0.04)] {
            let share = decide(&interval(low, high), THRESHOLD_SHARE, true);
            let reference = 1180.0;
            let ns = decide(
                &interval(low * reference, high * reference),
                threshold_ns(reference),
                true,
            );
            assert_eq!(share, ns);
        }
    }

    #[test]
    fn the_margin_says_how_far_a_verdict_was_decided() {
        assert!((margin(&interval(40.0, 60.0), 35.0) - 5.0).abs() < 1e-12);
        assert!((margin(&interval(-10.0, 35.3), 35.44) - 0.14).abs() < 1e-9);
        // Not resolved: the nearer bound 2 ns across T.
        assert!((margin(&interval(10.0, 37.0), 35.0) + 2.0).abs() < 1e-12);
    }

    #[test]
    fn the_reference_is_a_trimmed_mean_over_processes() {
        let references = [
            1000.0, 1010.0, 1020.0, 1030.0, 1040.0, 1050.0, 1060.0, 1070.0, 1080.0, 5000.0,
        ];
        // A tenth trimmed at each end: 5000 and 1000 are dropped.
        assert!((reference_ns(&references) - 1045.0).abs() < 1e-9);
    }
}
