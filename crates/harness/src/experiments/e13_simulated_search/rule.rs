//! E13's rule, version 1: fixed before E13's first full run, in a commit of its own that the
//! summary names (`rule_commit`); a change is a new version with its own file and commit.
//!
//! - **D_sim** under an evaluation, at one last-level size: magic-plain's last-level data
//!   misses per node (reads and writes, every part of the program) less dbb's, under that
//!   evaluation, less the same difference under `material`. It is what E11's D measures, in
//!   misses: the attack tables' own misses and the evaluation lines they evict both count.
//! - **Priced** at each price per miss at hand: E6's memory latency less its last level's (what
//!   a load pays for missing the last level), and E7's in-situ table-miss cost of magic-plain
//!   (its real chain less its hot twin per lookup at E7's top pressure, where every lookup's
//!   line misses). The priced range is [D_sim · least price, D_sim · greatest price] (ordered
//!   where D_sim < 0); its upper end is the **upper estimate**.
//! - **The verdict** per evaluation at this CPU's effective L3 (E6's, as its sweep point):
//!   `holds` where the upper estimate exceeds the threshold T (3 % of t(dbb) under that
//!   evaluation, as E11 measured it, else as E13 timed it natively), `does not hold` where it
//!   does not. The same reading at the smallest and the largest L3 E6's invocations saw says
//!   how it moves over that range.
//! - **The knee**: the largest simulated last level at which the upper estimate exceeds T, the
//!   size at and below which seed 004's argument would start to hold; none where no size in the
//!   sweep exceeds it. Where the knee lies within a doubling of the effective L3 (L3 / 2 ≤ knee
//!   ≤ 2 · L3), the verdict is **sensitive** to the L3 this machine gives a process.
//! - The model's limits, stated with every verdict: two cache levels, LRU, no prefetcher, no
//!   memory-level parallelism (a miss is priced as if it stalled alone).

/// The priced D_sim at one last-level size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Priced {
    /// D_sim in last-level misses per node.
    pub misses: f64,
    pub ns_low: f64,
    pub ns_high: f64,
}

/// D_sim from the four per-node miss counts.
pub fn d_sim(magic_plain: f64, dbb: f64, magic_plain_material: f64, dbb_material: f64) -> f64 {
    (magic_plain - dbb) - (magic_plain_material - dbb_material)
}

/// D_sim priced at every price at hand (ns per miss; at least one, each positive).
pub fn price(misses: f64, prices: &[f64]) -> Option<Priced> {
    let least = prices.iter().copied().fold(f64::INFINITY, f64::min);
    let most = prices.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(least.is_finite() && most.is_finite() && least > 0.0) {
        return None;
    }
    let (a, b) = (misses * least, misses * most);
    Some(Priced {
        misses,
        ns_low: a.min(b),
        ns_high: a.max(b),
    })
}

/// The verdict's two words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Holds,
    DoesNotHold,
}

impl Verdict {
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::DoesNotHold => "does not hold",
        }
    }
}

/// `holds` where the upper estimate exceeds `threshold_ns`.
pub fn verdict(priced: &Priced, threshold_ns: f64) -> Verdict {
    if priced.ns_high > threshold_ns {
        Verdict::Holds
    } else {
        Verdict::DoesNotHold
    }
}

/// The largest last level of `sweep` (bytes, priced) whose upper estimate exceeds
/// `threshold_ns`; `None` where none does.
pub fn knee(sweep: &[(usize, Priced)], threshold_ns: f64) -> Option<usize> {
    sweep
        .iter()
        .filter(|(_, priced)| priced.ns_high > threshold_ns)
        .map(|&(bytes, _)| bytes)
        .max()
}

/// Whether the knee lies within a doubling of the effective L3.
pub fn sensitive(knee: Option<usize>, l3_bytes: usize) -> bool {
    knee.is_some_and(|knee| 2 * knee >= l3_bytes && knee <= 2 * l3_bytes)
}
