//! Claims: paired comparisons of two cells at a practical threshold, the words for them, and
//! the method sentence that says how they are made.

use super::blocks;
use crate::results::PairRecord;
use crate::stats::{claim_at, compare, Claim, Comparison};

/// The seed of every claim's bootstrap: the same data always gives the same interval.
pub(crate) const CLAIM_SEED: u64 = 0xC1A1_0003;

/// The comparison of two time series taken in the same interleaved rounds, at `threshold`.
/// Pooled from `k` process invocations, each series is `k` blocks of rounds, one per invocation,
/// and the bootstrap resamples invocations first.
pub(crate) fn claim(a: &[f64], b: &[f64], threshold: f64, k: usize) -> Option<Comparison> {
    compare(&blocks(a, k), &blocks(b, k), threshold, CLAIM_SEED)
}

/// Every comparison an experiment's findings rest on, at one threshold, kept for
/// `results.json`.
pub(crate) struct Claims {
    threshold: f64,
    /// The invocations pooled in every series.
    k: usize,
    pub records: Vec<PairRecord>,
}

impl Claims {
    /// Claims at `threshold` about series pooled from `k` invocations.
    pub fn new(threshold: f64, k: usize) -> Claims {
        Claims {
            threshold,
            k,
            records: Vec::new(),
        }
    }

    /// Runs `f` on claims about series pooled from `k` invocations instead (a cell measured
    /// in fewer or more invocations than the rest), then restores the experiment's count.
    pub fn with_invocations<R>(&mut self, k: usize, f: impl FnOnce(&mut Claims) -> R) -> R {
        let saved = std::mem::replace(&mut self.k, k);
        let result = f(self);
        self.k = saved;
        result
    }

    /// Compares `a`'s times with `b`'s in the cell `cell` and records the result.
    pub fn compare(
        &mut self,
        cell: &str,
        (a_name, a): (&str, &[f64]),
        (b_name, b): (&str, &[f64]),
    ) -> Option<Comparison> {
        let comparison = claim(a, b, self.threshold, self.k)?;
        self.records.push(PairRecord {
            cell: cell.to_string(),
            a: a_name.to_string(),
            b: b_name.to_string(),
            comparison,
        });
        Some(comparison)
    }

    /// `name ×1.23 (1.20–1.26)` for `name`'s time against the fastest's when the interval lies
    /// wholly beyond the threshold, else `name level at ±3 % (×1.01, 0.99–1.02)` (or
    /// `unresolved at ±3 %` where the interval reaches past it); recorded.
    pub fn ratio_text(
        &mut self,
        cell: &str,
        (name, a): (&str, &[f64]),
        fastest: (&str, &[f64]),
    ) -> String {
        match self.compare(cell, (name, a), fastest) {
            Some(c) if c.claim != Claim::Level => {
                format!("{name} ×{:.2} ({:.2}–{:.2})", c.ratio, c.low, c.high)
            }
            Some(c) => format!(
                "{name} {} (×{:.2}, {:.2}–{:.2})",
                level_words(&c, self.threshold),
                c.ratio,
                c.low,
                c.high
            ),
            None => format!("{name} (no paired samples)"),
        }
    }
}

/// The words for a comparison that orders neither way: `level at ±3 %` when its whole
/// interval lies inside the threshold, else `unresolved at ±3 %` (the interval reaches past
/// the threshold, so the data cannot tell level from ordered).
pub(crate) fn level_words(c: &Comparison, threshold: f64) -> String {
    let word = if c.within(threshold) {
        "level"
    } else {
        "unresolved"
    };
    format!("{word} at ±{} %", percent(threshold))
}

/// How a recorded comparison reads at `threshold`, one of five words: `faster` or `slower`
/// (the order claimed: the whole interval lies beyond the threshold), `level` (the whole
/// interval lies inside it), `unresolved` (it reaches past the threshold without lying wholly
/// beyond), or `withdrawn` (the interval lies wholly beyond it and yet no order is claimed:
/// only a failed control takes an order back so, e.g. E10's A/A gate). The `claim` beside it
/// says `Level` for the last three alike.
pub(crate) fn reading(c: &Comparison, threshold: f64) -> &'static str {
    match c.claim {
        Claim::Faster => "faster",
        Claim::Slower => "slower",
        Claim::Level if c.within(threshold) => "level",
        Claim::Level if claim_at(c.low, c.high, threshold) != Claim::Level => "withdrawn",
        Claim::Level => "unresolved",
    }
}

/// `3` for 0.03, `0.5` for 0.005.
pub(crate) fn percent(threshold: f64) -> String {
    let text = format!("{:.3}", threshold * 100.0);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The method's sentence on how ratios and claims are computed.
/// `k` is the number of process invocations the cells pool.
pub(crate) fn claims_method(threshold: f64, k: usize) -> String {
    let interval = if k > 1 {
        format!(
            "a hierarchical bootstrap over the {k} process invocations and then the rounds \
             within each (seeded)"
        )
    } else {
        "a seeded bootstrap over the rounds (all rounds come from this one process, so the \
         interval does not include what changes between processes)"
            .to_string()
    };
    format!(
        "A cell's typical time is the geometric mean of its per-invocation medians. \
         Ratios between two cells are the geometric mean of their paired per-round time ratios, \
         with a 95 % interval from {interval}; an order is stated only when the whole interval \
         lies beyond ±{t} %; otherwise the two are called level where the whole interval lies \
         within ±{t} %, and unresolved at ±{t} % where it reaches past it.",
        t = percent(threshold)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_say_level_inside_the_threshold() {
        assert_eq!(percent(0.03), "3");
        assert_eq!(percent(0.005), "0.5");
        let fast = [1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0];
        let slow: Vec<f64> = fast.iter().map(|x| x * 1.5).collect();
        let close: Vec<f64> = fast.iter().map(|x| x * 1.01).collect();
        let mut claims = Claims::new(0.03, 1);
        let text = claims.ratio_text("cell", ("b", &slow), ("a", &fast));
        assert!(text.starts_with("b ×1.50 ("), "{text}");
        let level = claims.ratio_text("cell", ("c", &close), ("a", &fast));
        assert!(level.starts_with("c level at ±3 % (×1.01, "), "{level}");
        // Neither ordered nor inside ±3 %: the interval reaches past the threshold.
        let scatter = [1.0, 1.2, 0.9, 1.1, 1.05, 0.95, 1.0];
        let wide: Vec<f64> = fast.iter().zip(scatter).map(|(x, s)| x * s).collect();
        let unresolved = claims.ratio_text("cell", ("d", &wide), ("a", &fast));
        assert!(
            unresolved.starts_with("d unresolved at ±3 % (×1.02, "),
            "{unresolved}"
        );
        assert_eq!(claims.records[2].comparison.claim, Claim::Level);
        claims.records.pop();
        assert_eq!(claims.records.len(), 2);
        assert_eq!(claims.records[0].comparison.claim, Claim::Slower);
        assert_eq!(claims.records[1].comparison.claim, Claim::Level);
        assert_eq!(
            (claims.records[1].a.as_str(), claims.records[1].b.as_str()),
            ("c", "a")
        );
        assert!(claims_method(0.03, 1).contains("beyond ±3 %"));
        assert!(claims_method(0.03, 1).contains("unresolved at ±3 %"));
        assert!(claims_method(0.03, 2).contains("over the 2 process invocations"));
    }

    /// The five readings, each from its own situation; the withdrawn one is an ordered
    /// comparison whose claim a control set back to `Level`, interval unchanged.
    #[test]
    fn readings_tell_level_unresolved_and_withdrawn_apart() {
        let at = |ratio: f64, low: f64, high: f64| Comparison {
            ratio,
            low,
            high,
            invocations: 3,
            rounds: 30,
            claim: claim_at(low, high, 0.03),
        };
        assert_eq!(reading(&at(0.8, 0.78, 0.82), 0.03), "faster");
        assert_eq!(reading(&at(1.2, 1.18, 1.22), 0.03), "slower");
        assert_eq!(reading(&at(1.0, 0.99, 1.01), 0.03), "level");
        assert_eq!(reading(&at(1.02, 0.99, 1.08), 0.03), "unresolved");
        assert_eq!(reading(&at(0.95, 0.85, 1.01), 0.03), "unresolved");
        let withdrawn = Comparison {
            claim: Claim::Level,
            ..at(0.9, 0.89, 0.91)
        };
        assert_eq!(reading(&withdrawn, 0.03), "withdrawn");
        // The same interval read at a wider threshold is merely unresolved.
        assert_eq!(reading(&withdrawn, 0.1), "unresolved");
    }
}
