//! E7's survival fractions: where a node's table lines are after P pressure reads, estimated
//! from timed single loads as a mixture of the calibration's per-level load-time distributions.
//!
//! One timed load cannot always say which level served it (AMD's time stamp advances 10 ns at a
//! time), but the distributions differ, and the probe's loads are timed exactly as the
//! calibration's, so the fractions are the maximum-likelihood mixture weights (by EM); levels
//! that cannot be told apart even so are merged into one class, and the report says so.

use super::measure::{Calibration, Reloads, SURVIVAL_LEVELS};
use crate::stats::Estimate;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Neighbouring levels whose load-time distributions lie closer than this total-variation
/// distance are merged into one class (more than half their probability mass coincides).
pub(super) const MERGE_BELOW_TV: f64 = 0.5;
/// The held-out check: each class's own held-out calibration loads must be estimated as at
/// least this share of that class.
pub(super) const HELD_OUT_MIN: f64 = 0.9;
/// The null test: right after the node's own lookups (P = 0) at least this share of its lines
/// must come out in the first class (they are in L1 by construction).
pub(super) const NULL_FIRST_CLASS: f64 = 0.9;
/// Bootstrap resamples for the fractions' intervals.
const RESAMPLES: usize = 200;
/// EM iterations (the likelihood is concave in the weights; this is ample for four classes).
const EM_ITERATIONS: usize = 400;

/// How load times are binned: `width` ns per bin from `first` ns, every time at or beyond
/// `far_ns` in one last bin (memory's long tail tells nothing more).
#[derive(Clone, Debug)]
pub(super) struct Binning {
    pub width: f64,
    first: i64,
    pub far_ns: f64,
    pub bins: usize,
}

impl Binning {
    /// Bins one time-stamp step wide (at least 1 ns) from the fastest calibrated load up to the
    /// midpoint of the LL and memory medians.
    fn of(c: &Calibration) -> Binning {
        let step = Some(c.step_ns).filter(|step| step.is_finite());
        let width = step.map_or(1.0, |step| step.max(1.0));
        let fastest = c.loads[0].ns.iter().copied().fold(f64::INFINITY, f64::min);
        let fastest = if fastest.is_finite() { fastest } else { 0.0 };
        let far_ns = (c.medians[2] + c.medians[3]) / 2.0;
        let first = (fastest / width).round() as i64;
        let last = ((far_ns / width).round() as i64).max(first + 1);
        Binning {
            width,
            first,
            far_ns,
            bins: (last - first) as usize + 1,
        }
    }

    fn bin(&self, ns: f64) -> usize {
        if ns >= self.far_ns {
            return self.bins - 1;
        }
        let index = (ns / self.width).round() as i64 - self.first;
        index.clamp(0, self.bins as i64 - 2) as usize
    }

    fn histogram<'a>(&self, times: impl IntoIterator<Item = &'a f64>) -> Vec<f64> {
        let mut counts = vec![0.0; self.bins];
        for &ns in times {
            counts[self.bin(ns)] += 1.0;
        }
        counts
    }
}

/// The index of L2 in [`SURVIVAL_LEVELS`]: the levels after it are beyond L2.
const L2_LEVEL: usize = 1;

/// The classes the probe's loads are sorted into: each one level or several merged neighbours.
#[derive(Clone, Debug)]
pub(super) struct Classes {
    /// Per class, its levels (indices into [`SURVIVAL_LEVELS`]).
    pub members: Vec<Vec<usize>>,
    /// Total-variation distance between each pair of neighbouring levels' load times.
    pub neighbour_tv: [f64; 3],
    pub binning: Binning,
    /// Per class, the share of its own held-out calibration loads estimated as that class.
    pub held_out: Vec<f64>,
}

impl Classes {
    /// The classes made of levels beyond L2 alone (LL, memory); `None` where a class holds L2
    /// together with a level beyond it, so that "beyond L2" cannot be told from the load times.
    pub fn beyond_l2(&self) -> Option<Vec<usize>> {
        let mixed = self
            .members
            .iter()
            .any(|m| m.iter().any(|&l| l <= L2_LEVEL) && m.iter().any(|&l| l > L2_LEVEL));
        (!mixed).then(|| {
            (0..self.members.len())
                .filter(|&k| self.members[k].iter().all(|&l| l > L2_LEVEL))
                .collect()
        })
    }

    /// The classes of `c`: neighbouring levels closer than [`MERGE_BELOW_TV`] merged, then each
    /// class's held-out check (components from the even loads, estimated on the odd).
    pub fn of(c: &Calibration) -> Classes {
        let binning = Binning::of(c);
        let pmfs: Vec<Vec<f64>> = c
            .loads
            .iter()
            .map(|l| normalised(&binning.histogram(&l.ns)))
            .collect();
        let mut neighbour_tv = [0.0; 3];
        for (i, tv) in neighbour_tv.iter_mut().enumerate() {
            *tv = total_variation(&pmfs[i], &pmfs[i + 1]);
        }
        let mut members: Vec<Vec<usize>> = vec![vec![0]];
        for (level, pmf) in pmfs.iter().enumerate().skip(1) {
            let class = members.last_mut().expect("one class at least");
            let pooled =
                normalised(&binning.histogram(class.iter().flat_map(|&l| c.loads[l].ns.iter())));
            if total_variation(&pooled, pmf) < MERGE_BELOW_TV {
                class.push(level);
            } else {
                members.push(vec![level]);
            }
        }
        let mut classes = Classes {
            members,
            neighbour_tv,
            binning,
            held_out: Vec::new(),
        };
        let (even, odd) = (
            classes.class_times(c, Some(0)),
            classes.class_times(c, Some(1)),
        );
        let components = classes.components(&even);
        classes.held_out = odd
            .iter()
            .enumerate()
            .map(|(k, times)| {
                if times.is_empty() {
                    return f64::NAN;
                }
                let counts = classes.binning.histogram(times);
                em(&components, &counts)[k]
            })
            .collect();
        classes
    }

    /// A class's name: its level, or "L1 or L2" for merged ones.
    pub fn name(&self, class: usize) -> String {
        let names: Vec<&str> = self.members[class]
            .iter()
            .map(|&l| SURVIVAL_LEVELS[l])
            .collect();
        match names.as_slice() {
            [one] => one.to_string(),
            [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
            [] => String::new(),
        }
    }

    /// Every class's name, in order.
    pub fn names(&self) -> Vec<String> {
        (0..self.members.len()).map(|k| self.name(k)).collect()
    }

    /// Whether the classes pass their held-out check.
    pub fn held_out_pass(&self) -> bool {
        self.held_out.iter().all(|&share| share >= HELD_OUT_MIN)
    }

    /// Per class, its load times' distribution over the bins (each bin given half a load more,
    /// so that no bin is impossible for any class).
    fn components(&self, per_class: &[Vec<f64>]) -> Vec<Vec<f64>> {
        per_class
            .iter()
            .map(|times| {
                let mut counts = self.binning.histogram(times);
                counts.iter_mut().for_each(|c| *c += 0.5);
                normalised(&counts)
            })
            .collect()
    }

    /// Per class, the calibration's loads of its levels: all, or the even or odd ones of each
    /// level (`half`: 0 or 1).
    fn class_times(&self, c: &Calibration, half: Option<usize>) -> Vec<Vec<f64>> {
        let (skip, step) = half.map_or((0, 1), |parity| (parity, 2));
        let times = |l: usize| c.loads[l].ns.iter().skip(skip).step_by(step).copied();
        self.members
            .iter()
            .map(|levels| levels.iter().flat_map(|&l| times(l)).collect())
            .collect()
    }
}

/// The estimated fractions of one pressure count: per class the share of the reloads, and a
/// 95 % interval from a bootstrap over invocations, then loads within each (calibration and
/// probe resampled together).
#[derive(Clone, Debug)]
pub(super) struct Fractions {
    pub reads: u32,
    pub loads: usize,
    pub share: Vec<f64>,
    pub low: Vec<f64>,
    pub high: Vec<f64>,
    /// The share of the lines beyond L2 (the classes made of LL and memory alone), with its
    /// interval from the same replicates; `None` where a class mixes L2 with the LL.
    pub beyond_l2: Option<Estimate>,
}

/// The survival fractions of every pressure count.
pub(super) fn fractions(
    classes: &Classes,
    c: &Calibration,
    survival: &[(u32, Reloads)],
) -> Vec<Fractions> {
    let components = classes.components(&classes.class_times(c, None));
    survival
        .iter()
        .filter(|(_, reloads)| !reloads.ns.is_empty())
        .enumerate()
        .map(|(i, (reads, reloads))| {
            let share = em(&components, &classes.binning.histogram(&reloads.ns));
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x5u64 << 32 | i as u64);
            let replicates: Vec<Vec<f64>> = (0..RESAMPLES)
                .map(|_| resampled_shares(classes, c, reloads, &mut rng))
                .collect();
            let bound = |k: usize, q: f64| {
                let mut values: Vec<f64> = replicates.iter().map(|r| r[k]).collect();
                values.sort_by(f64::total_cmp);
                values[((values.len() - 1) as f64 * q).round() as usize]
            };
            // A share at the boundary (EM drives an absent class towards 0 at its own pace in
            // each replicate) can fall outside its replicates' percentiles: the interval then
            // reaches to the share itself.
            let classes_n = share.len();
            let beyond = classes.beyond_l2();
            let beyond_l2 = beyond.map(|beyond| {
                let sum = |shares: &[f64]| beyond.iter().map(|&k| shares[k]).sum::<f64>();
                let mut sums: Vec<f64> = replicates.iter().map(|r| sum(r)).collect();
                sums.sort_by(f64::total_cmp);
                let at = |q: f64| sums[((sums.len() - 1) as f64 * q).round() as usize];
                let value = sum(&share);
                Estimate {
                    value,
                    low: at(0.025).min(value),
                    high: at(0.975).max(value),
                }
            });
            Fractions {
                beyond_l2,
                reads: *reads,
                loads: reloads.ns.len(),
                low: (0..classes_n)
                    .map(|k| bound(k, 0.025).min(share[k]))
                    .collect(),
                high: (0..classes_n)
                    .map(|k| bound(k, 0.975).max(share[k]))
                    .collect(),
                share,
            }
        })
        .collect()
}

/// One bootstrap replicate: invocations drawn with replacement (the same draw for the
/// calibration and the probe), then loads with replacement within each drawn invocation.
fn resampled_shares(
    classes: &Classes,
    c: &Calibration,
    reloads: &Reloads,
    rng: &mut Xoshiro256PlusPlus,
) -> Vec<f64> {
    let invocations = {
        let mut ids: Vec<i64> = reloads.invocation.iter().map(|&i| i as i64).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    };
    let drawn: Vec<i64> = (0..invocations.len())
        .map(|_| invocations[rng.random_range(0..invocations.len())])
        .collect();
    let resample = |loads: &Reloads, rng: &mut Xoshiro256PlusPlus| -> Vec<f64> {
        let mut out = Vec::with_capacity(loads.ns.len());
        for &id in &drawn {
            let block: Vec<f64> = loads
                .ns
                .iter()
                .zip(&loads.invocation)
                .filter(|(_, &inv)| inv as i64 == id)
                .map(|(&ns, _)| ns)
                .collect();
            for _ in 0..block.len() {
                out.push(block[rng.random_range(0..block.len())]);
            }
        }
        out
    };
    let per_class: Vec<Vec<f64>> = classes
        .members
        .iter()
        .map(|levels| {
            levels
                .iter()
                .flat_map(|&l| resample(&c.loads[l], rng))
                .collect()
        })
        .collect();
    let components = classes.components(&per_class);
    let probe = resample(reloads, rng);
    em(&components, &classes.binning.histogram(&probe))
}

/// The maximum-likelihood mixture weights of `components` (each a distribution over the bins)
/// for the binned `counts`, by EM from equal weights.
pub(super) fn em(components: &[Vec<f64>], counts: &[f64]) -> Vec<f64> {
    let k = components.len();
    let total: f64 = counts.iter().sum();
    if k == 0 || total <= 0.0 {
        return vec![f64::NAN; k];
    }
    let mut weights = vec![1.0 / k as f64; k];
    for _ in 0..EM_ITERATIONS {
        let mut next = vec![0.0; k];
        for (b, &count) in counts.iter().enumerate() {
            if count == 0.0 {
                continue;
            }
            let density: f64 = (0..k).map(|j| weights[j] * components[j][b]).sum();
            if density <= 0.0 {
                continue;
            }
            for j in 0..k {
                next[j] += count * weights[j] * components[j][b] / density;
            }
        }
        let sum: f64 = next.iter().sum();
        if sum <= 0.0 {
            break;
        }
        weights = next.into_iter().map(|w| w / sum).collect();
    }
    weights
}

fn normalised(counts: &[f64]) -> Vec<f64> {
    let total: f64 = counts.iter().sum();
    if total <= 0.0 {
        return vec![0.0; counts.len()];
    }
    counts.iter().map(|c| c / total).collect()
}

fn total_variation(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum::<f64>() / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A calibration whose levels read, at a 10 ns step, like this AMD VM's: L1 and L2 mostly
    /// the same (merged), the LL a step or two later, memory far beyond.
    fn calibration() -> Calibration {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let mut level = |choices: &[(f64, f64)]| {
            let mut loads = Reloads::default();
            for i in 0..2000 {
                let draw: f64 = rng.random_range(0.0..1.0);
                let mut acc = 0.0;
                let ns = choices
                    .iter()
                    .find(|(_, p)| {
                        acc += p;
                        draw < acc
                    })
                    .map_or(choices[0].0, |c| c.0);
                loads.ns.push(ns);
                loads.invocation.push((i % 5) as f64);
            }
            loads
        };
        let loads = [
            level(&[(30.0, 0.92), (40.0, 0.08)]),
            level(&[(30.0, 0.83), (40.0, 0.17)]),
            level(&[(30.0, 0.23), (40.0, 0.53), (50.0, 0.24)]),
            level(&[(150.0, 0.3), (160.0, 0.4), (200.0, 0.3)]),
        ];
        Calibration {
            medians: [30.0, 30.0, 40.0, 160.0],
            samples: 2000,
            loads,
            l2_evict_bytes: 64 << 10,
            ll_evict_bytes: 1 << 20,
            memory_evict_bytes: None,
            target_bytes: 60 << 20,
            step_ns: 10.0,
        }
    }

    #[test]
    fn close_levels_merge_and_the_rest_stay_apart() {
        let c = calibration();
        let classes = Classes::of(&c);
        assert_eq!(classes.members, vec![vec![0, 1], vec![2], vec![3]]);
        assert_eq!(classes.name(0), "L1 or L2");
        assert!(classes.held_out_pass(), "{:?}", classes.held_out);
        assert!(classes.neighbour_tv[0] < MERGE_BELOW_TV);
    }

    #[test]
    fn em_recovers_a_known_mixture() {
        let c = calibration();
        let classes = Classes::of(&c);
        // 30 % of the LL's loads, 70 % of memory's: the probe of a known mixture.
        let ll: Vec<f64> = c.loads[2].ns.iter().take(600).copied().collect();
        let memory: Vec<f64> = c.loads[3].ns.iter().take(1400).copied().collect();
        let probe = Reloads {
            invocation: (0..2000).map(|i| (i % 5) as f64).collect(),
            ns: ll.into_iter().chain(memory).collect(),
        };
        let f = fractions(&classes, &c, &[(64, probe)]);
        assert_eq!(f.len(), 1);
        assert!((f[0].share[1] - 0.3).abs() < 0.05, "{:?}", f[0]);
        assert!((f[0].share[2] - 0.7).abs() < 0.05, "{:?}", f[0]);
        assert!(f[0].share[0] < 0.05, "{:?}", f[0]);
        for k in 0..3 {
            assert!(f[0].low[k] <= f[0].share[k] + 1e-9 && f[0].share[k] <= f[0].high[k] + 1e-9);
        }
        // Every line of the probe is beyond L2 (LL or memory), with an interval near 1.
        let beyond = f[0].beyond_l2.expect("L1 or L2 is apart from the LL");
        assert!((beyond.value - 1.0).abs() < 0.05, "{beyond:?}");
        assert!(beyond.low > 0.9 && beyond.high <= 1.0 + 1e-9, "{beyond:?}");
    }

    /// Beyond L2 is the classes of LL and memory alone; a class that holds L2 with the LL
    /// leaves it undefined.
    #[test]
    fn beyond_l2_needs_l2_apart_from_the_ll() {
        let mut classes = Classes::of(&calibration());
        assert_eq!(classes.beyond_l2(), Some(vec![1, 2]));
        classes.members = vec![vec![0], vec![1], vec![2], vec![3]];
        assert_eq!(classes.beyond_l2(), Some(vec![2, 3]));
        classes.members = vec![vec![0], vec![1, 2], vec![3]];
        assert_eq!(classes.beyond_l2(), None);
    }
}
