//! E11's decision rule, version 7: version 6 with the pair of processes as the unit. Since
//! a6f9296 the processes run in mirrored pairs (the second runs the first's block orders with
//! dbb and its A/A twin exchanged, `order.rs`), so a pair's two processes share their orders
//! and are not independent; the unit of the interval must be the pair. Committed before its
//! first run and not changed after it (the summary's `rule_commit` names the commit; a test
//! holds the file to it). Versions 4–6 stay as they were committed; v7 reuses their pieces.
//!
//! Why a version 7. v6 (1c3502f) was committed before the pairs existed and treats the 20
//! processes as independent. In its first run (Intel Xeon 6/207, 2026-12-02) the processes'
//! D correlated within pairs: +0.49 under nnue, −0.72 under kpp, −0.35 under material. A
//! positive correlation makes an interval over processes too narrow, a negative one too wide;
//! neither is the rule's nominal 90 %.
//!
//! The rule, fixed before the data (everything not named here is v6's):
//! * Each process's per-round D is v6's: a share of that process's own t(dbb) under the
//!   evaluation, quoted in ns at the reference t_ref (v6's [`reference_ns`], over processes).
//! * The unit is the pair: processes 2i and 2i + 1 ([`pair_units`]); an unpaired last process
//!   is a unit of its own. A unit's value is the mean of its processes' forward/reverse pair
//!   means (each process contributes as many, [`ROUNDS_PER_PROCESS`] / 2).
//! * D's estimate is Yuen's trimmed mean over the units' values (v5's trim, a tenth at each
//!   end), its interval two-sided 90 % with h − 1 degrees of freedom ([`interval_over_units`]).
//! * The verdict and the controls read as in v6: `holds` where L > T, `does not hold` where
//!   U < T, `not resolved` otherwise, `withheld` where a control fails (Holm-adjusted p < 0.05,
//!   or a 90 % half-width beyond its T); each verdict states its margin.
//!
//! The sampling arithmetic. 20 processes make 10 units; with 10 units a tenth trimmed leaves
//! h = 8 (t(0.95, 7) = 1.895, against t(0.95, 15) = 1.753 over 20 processes: the interval
//! widens by 8 % for the degrees of freedom alone). The unit's variance is
//! (σ_p² (1 + ρ)) / 2 for a process variance σ_p² and a within-pair correlation ρ, so the
//! standard error over 10 pairs against that over 20 processes is √(1 + ρ): ρ = −0.72 (kpp in
//! v6's run) narrows it to 0.53×, ρ = +0.49 (nnue) widens it to 1.22×. v6's run resolved
//! ±32.8 ns (1.7 % of t(dbb)) under nnue and ±29.6 (1.7 %) under kpp. By pairs, this
//! arithmetic predicts about ±43 ns under nnue; under kpp a re-reading of that run by pairs
//! gave ±14 ns (post hoc: it decides nothing for that run). Both are below T (≈ 59 and 52 ns
//! there), so a run can decide either way.

pub use super::rule_v6::{
    decide, in_reference_ns, judge_controls, margin, pair_means, process_reference, reference_ns,
    threshold_ns, Interval, Verdict, NEGATIVE, ROUNDS_PER_PROCESS, RULE_PAIR, THRESHOLD_SHARE,
    TRIM, TWIN,
};

/// The rule's version (see the module's head).
pub const VERSION: u32 = 7;

/// The units from `by_process[i]`, process i's samples: processes 2i and 2i + 1 together
/// (their samples concatenated, so the unit's mean is the mean of the two processes' means
/// where they hold as many), an unpaired last process alone.
pub fn pair_units(by_process: &[Vec<f64>]) -> Vec<Vec<f64>> {
    by_process.chunks(2).map(|pair| pair.concat()).collect()
}

/// D's (or a control's) estimate over the units of `by_process` ([`pair_units`]): v5's
/// Yuen trimmed mean with a two-sided 90 % interval, over units instead of processes.
pub fn interval_over_units(by_process: &[Vec<f64>]) -> Interval {
    super::rule_v5::interval_over_processes(&pair_units(by_process))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_of_processes_are_the_units() {
        let by_process = vec![vec![1.0], vec![3.0], vec![5.0], vec![9.0], vec![7.0]];
        assert_eq!(
            pair_units(&by_process),
            vec![vec![1.0, 3.0], vec![5.0, 9.0], vec![7.0]]
        );
        // Units' means 2, 7, 7: mean 16/3, three units, two degrees of freedom.
        let i = interval_over_units(&by_process);
        assert!((i.value - 16.0 / 3.0).abs() < 1e-12, "{i:?}");
        assert_eq!(i.degrees, 2);
    }

    /// A pair whose two processes err in opposite directions (the mirrored A/A's case) is
    /// one precise unit: the interval over pairs is narrower than over processes.
    #[test]
    fn a_negative_correlation_within_pairs_narrows_the_interval() {
        let by_process: Vec<Vec<f64>> = (0..20)
            .map(|i| {
                let pair = (i / 2) as f64;
                let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
                vec![pair * 0.1 + sign * 10.0]
            })
            .collect();
        let over_processes = super::super::rule_v5::interval_over_processes(&by_process);
        let over_pairs = interval_over_units(&by_process);
        assert!(over_pairs.half_width() < over_processes.half_width() / 5.0);
    }
}
