//! Choosing a "best" cell on some invocations and estimating its ratios on the others, so that
//! the winner's luck in its own rounds does not inflate its lead (E2's best backend, E10's best
//! cells).

use crate::experiments::typical;

/// The invocations that choose a best cell, and those its ratios are estimated on: held out
/// from the choice, so that the winner's luck in its own rounds (up to 7 % in earlier reports)
/// does not inflate its lead. The choosing invocations are the last ones, those an experiment
/// adds ([`extra_invocations`]): the report schedules invocation i of every experiment before
/// any invocation i + 1, so the estimate rests on the first K, scheduled beside the same
/// invocations of the other experiments as theirs are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HeldOut {
    /// The last `select` invocations choose (0: one invocation does both).
    pub select: usize,
    /// The invocations before them estimate.
    pub estimate: usize,
}

/// One row's rounds for choosing and for estimating, each with its number of invocations.
#[derive(Clone, Debug)]
pub(crate) struct Parts {
    pub choosing: (Vec<f64>, usize),
    pub estimating: (Vec<f64>, usize),
    /// Whether the two are disjoint invocations (false: both are all of them).
    pub held_out: bool,
}

/// The row [`choose`] picked: its typical time over the choosing rounds and its rows' parts.
#[derive(Debug)]
pub(crate) struct Chosen<'a, R> {
    pub row: &'a R,
    /// The typical time over the choosing invocations (what chose it).
    pub chosen_ns: f64,
    pub parts: Parts,
}

impl HeldOut {
    /// The split of `invocations`: 2 to choose from 6 up (a full report's 7: 2 and 5), 1 from
    /// 3 up, none below (both on the same rounds). [`extra_invocations`] adds exactly the
    /// choosing ones to the report's K.
    pub fn of(invocations: usize) -> HeldOut {
        let select = match invocations {
            0..=2 => 0,
            3..=5 => 1,
            _ => 2,
        };
        HeldOut {
            select,
            estimate: invocations.max(1) - select,
        }
    }

    /// A series' rounds of the choosing invocations (the last ones), and of the estimating
    /// ones; `None` when its rounds do not split into equal blocks per invocation.
    pub fn split(self, samples: &[f64]) -> Option<(Vec<f64>, Vec<f64>)> {
        let k = self.select + self.estimate;
        if self.select == 0 || samples.is_empty() || !samples.len().is_multiple_of(k) {
            return None;
        }
        let at = samples.len() / k * self.estimate;
        Some((samples[at..].to_vec(), samples[..at].to_vec()))
    }

    /// Whether every row of a pool splits, so that the pool can be held out (one row that
    /// does not makes every row of the pool choose and estimate on all invocations).
    pub fn splits_all<'a>(self, rows: impl IntoIterator<Item = &'a [f64]>) -> bool {
        rows.into_iter().all(|ns| self.split(ns).is_some())
    }

    /// A row's rounds cut for choosing and estimating: apart when `held_out` (the pool's
    /// [`HeldOut::splits_all`]), otherwise all `invocations` for both.
    pub fn parts(self, ns: &[f64], held_out: bool, invocations: usize) -> Parts {
        match self.split(ns).filter(|_| held_out) {
            Some((choosing, estimating)) => Parts {
                choosing: (choosing, self.select),
                estimating: (estimating, self.estimate),
                held_out: true,
            },
            None => Parts {
                choosing: (ns.to_vec(), invocations),
                estimating: (ns.to_vec(), invocations),
                held_out: false,
            },
        }
    }

    /// The invocations a held-out pool's claims pool: the estimating ones, or all of them.
    pub fn claims_k(self, held_out: bool, invocations: usize) -> usize {
        if held_out {
            self.estimate
        } else {
            invocations
        }
    }
}

/// The invocations added to the report's `report` so that `report` of them estimate and the
/// rest (see [`HeldOut::of`]) choose: a full report's 5 become 7, a quick report's 2 become 3.
pub(crate) fn extra_invocations(report: usize) -> usize {
    match report {
        0..=1 => 0,
        2..=3 => 1,
        _ => 2,
    }
}

/// The row of `pool` with the lowest typical time over the choosing invocations (rows without
/// rounds skipped), with its parts; the pool is held out only when every row in it splits.
pub(crate) fn choose<'a, R>(
    pool: &[&'a R],
    ns: impl Fn(&R) -> &[f64],
    split: HeldOut,
    invocations: usize,
) -> Option<Chosen<'a, R>> {
    let rows: Vec<&'a R> = pool
        .iter()
        .copied()
        .filter(|r| !ns(*r).is_empty())
        .collect();
    let held_out = split.splits_all(rows.iter().map(|r| ns(*r)));
    rows.into_iter()
        .map(|row| {
            let parts = split.parts(ns(row), held_out, invocations);
            let chosen_ns = typical(&parts.choosing.0, parts.choosing.1);
            Chosen {
                row,
                chosen_ns,
                parts,
            }
        })
        .min_by(|a, b| a.chosen_ns.total_cmp(&b.chosen_ns))
}

/// How `chosen` was chosen apart from the rounds its ratios rest on, as a method sentence:
/// `pooled` names the ratios where nothing is held out, `held_out` where some invocations are
/// (each followed by "are estimated on").
pub(crate) fn sentence(split: HeldOut, chosen: &str, pooled: &str, held_out: &str) -> String {
    if split.select == 0 {
        format!(
            "{chosen} is chosen on the same rounds {pooled} are estimated on (too few \
             invocations to hold any out), so its lead carries its own rounds' luck."
        )
    } else {
        let k = split.select + split.estimate;
        let choosing = if split.select == 1 {
            format!("invocation {k} of {k} (the one added for the choice)")
        } else {
            format!(
                "invocations {}–{k} of {k} (the ones added for the choice)",
                split.estimate + 1
            )
        };
        format!(
            "{chosen} is the one with the lowest typical time (the geometric mean of its \
             per-invocation medians) over {choosing}; {held_out} are estimated on the \
             other {} invocations alone, so that the choice's luck does not enter them (the \
             table and plots show all {k}).",
            split.estimate
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The invocations added are exactly the ones that choose: the report's K estimate.
    #[test]
    fn the_added_invocations_are_the_choosing_ones() {
        for report in 1..=20 {
            let split = HeldOut::of(report + extra_invocations(report));
            assert_eq!(split.select, extra_invocations(report), "K = {report}");
            assert_eq!(split.estimate, report, "K = {report}");
        }
        assert_eq!(
            HeldOut::of(7),
            HeldOut {
                select: 2,
                estimate: 5
            }
        );
    }

    /// Three invocations of two rounds: `a` is fast only in the last (choosing) invocation,
    /// so it is chosen, and its estimating rounds are the first two invocations'.
    #[test]
    fn choose_picks_on_the_choosing_blocks_and_estimates_on_the_rest() {
        let a = vec![3.0, 3.0, 3.0, 3.0, 1.0, 1.0];
        let b = vec![2.0; 6];
        let pool = [&a, &b];
        let chosen = choose(&pool, |r| r.as_slice(), HeldOut::of(3), 3).expect("a row");
        assert!(std::ptr::eq(chosen.row, &a));
        assert_eq!(chosen.chosen_ns, 1.0);
        assert!(chosen.parts.held_out);
        assert_eq!(chosen.parts.estimating, (vec![3.0; 4], 2));
        assert_eq!(chosen.parts.choosing, (vec![1.0, 1.0], 1));
        assert_eq!(HeldOut::of(3).claims_k(true, 3), 2);
    }

    /// One row whose rounds do not split into equal blocks makes the whole pool use every
    /// invocation for both choosing and estimating.
    #[test]
    fn a_pool_that_does_not_split_uses_all_invocations() {
        let a = vec![3.0, 3.0, 3.0, 3.0, 1.0, 1.0];
        let b = vec![2.0; 4];
        let pool = [&a, &b];
        let chosen = choose(&pool, |r| r.as_slice(), HeldOut::of(3), 3).expect("a row");
        assert!(!chosen.parts.held_out);
        assert!(std::ptr::eq(chosen.row, &b), "b's typical 2 < a's typical");
        assert_eq!(chosen.parts.estimating.1, 3);
        assert_eq!(HeldOut::of(3).claims_k(false, 3), 3);
        // Rows without rounds are skipped, and an empty pool chooses nothing.
        let empty: Vec<f64> = Vec::new();
        assert!(choose(&[&empty], |r| r.as_slice(), HeldOut::of(3), 3).is_none());
    }
}
