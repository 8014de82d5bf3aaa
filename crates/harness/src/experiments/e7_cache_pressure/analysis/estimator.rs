//! The estimator check: seed 004's verdict again with each round's value taken as the plain
//! mean of its slices (the slow tail kept) instead of the trimmed mean the verdict uses.

use super::verdict::{Bounds, Verdict};
use super::{dose, estimate_json, pages};
use crate::experiments::claims::Claims;
use crate::experiments::e7_cache_pressure::measure::Measurement;
use crate::experiments::e7_cache_pressure::summary::SeedVerdict;
use crate::stats::{format_interval, Estimate};
use serde_json::{json, Value as Json};

/// What the verdict reads from each estimator.
pub struct Estimators {
    /// The verdict from the slices' plain means; `None` where the chains kept none (reports
    /// measured before 2026-11-27).
    pub plain: Option<Verdict>,
}

impl Estimators {
    /// Seed 004's verdict from `m`'s plain means, at the top pressure `top`, gated on the
    /// controls that failed and bound as the trimmed means judge them: a control is a property of the
    /// run, so the two estimators differ only in the costs they decide from.
    pub fn of(m: &Measurement, top: u32, controls: (Vec<(String, String)>, Bounds)) -> Estimators {
        let plain = with_plain_means(m).map(|plain| {
            let dose = dose::Dose::of(&plain, top);
            // Its comparisons are not the report's: they stay out of `results.json`'s claims.
            let mut claims = Claims::new(plain.threshold, plain.invocations);
            let pages = pages::Pages::of(&plain, top, &mut claims);
            Verdict::of(&plain, top, &pages, &dose, controls, &mut claims)
        });
        Estimators { plain }
    }

    /// The summary's `estimator`: which one the verdict uses, and what the other gives.
    pub fn summary(&self, trimmed: &Verdict) -> Json {
        let opt = |e: Option<&Estimate>| e.map_or(Json::Null, estimate_json);
        json!({
            "verdict_uses": "trimmed",
            "plain": self.plain.as_ref().map_or(Json::Null, |plain| json!({
                "magic_plain_minus_dbb": opt(plain.difference()),
                "magic_plain_minus_dbb_unpressed": opt(plain.difference_unpressed()),
                "seed_004_outcome": outcome(plain).words(),
                "same_outcome": outcome(plain) == outcome(trimmed),
            })),
        })
    }

    /// The sentence on the two estimators, after the verdict.
    pub fn sentence(&self, trimmed: &Verdict, top: u32) -> Option<String> {
        let plain = self.plain.as_ref()?;
        let figure = |e: Option<&Estimate>| {
            e.map_or("not measured".into(), |e| {
                format!("{} ns", format_interval(e))
            })
        };
        let same = outcome(plain) == outcome(trimmed);
        let gated = !trimmed.failed_controls.is_empty();
        Some(format!(
            "Estimator: each round's value is the trimmed mean of its slices (the fastest and \
             slowest tenth left out, the real chain and its twin each on its own), and the \
             verdict uses it; with the slices' plain means instead (the slow tail kept: cold \
             misses, and interrupts) magic-plain's table misses cost {} more per lookup than \
             dbb's after {top} reads per node (trimmed {}) and {} at P = 0 (trimmed {}), and \
             seed 004's verdict {}.",
            figure(plain.difference()),
            figure(trimmed.difference()),
            figure(plain.difference_unpressed()),
            figure(trimmed.difference_unpressed()),
            if same && gated {
                "is gated on the same failed controls either way, so the two readings cannot \
                 differ here"
                    .to_string()
            } else if same {
                format!("reads the same ({})", outcome(plain).words())
            } else {
                format!(
                    "reads \"{}\" instead of \"{}\"",
                    outcome(plain).words(),
                    outcome(trimmed).words()
                )
            }
        ))
    }
}

/// The branch a verdict's text takes.
fn outcome(v: &Verdict) -> crate::experiments::e7_cache_pressure::summary::SeedOutcome {
    SeedVerdict::from(v.text.clone()).outcome
}

/// `m` with each chain's rounds taken as its slices' plain means; `None` where a chain kept
/// none.
fn with_plain_means(m: &Measurement) -> Option<Measurement> {
    if m.chains.is_empty() || m.chains.iter().any(|c| c.ns_mean.len() != c.ns.len()) {
        return None;
    }
    let mut plain = m.clone();
    for chain in &mut plain.chains {
        chain.ns = std::mem::take(&mut chain.ns_mean);
    }
    Some(plain)
}
