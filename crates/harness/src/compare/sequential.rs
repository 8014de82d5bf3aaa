//! `kiki compare`'s sequential test: repeated confidence intervals whose critical values spend
//! the error rate by a Lan–DeMets O'Brien–Fleming-type function over the share of the time cap.
//!
//! What is spent: per side α₁(τ) = 1 − Φ(z₁₋α₁ / √τ) with α₁ = [`ONE_SIDED_ALPHA`] (5 %) and
//! τ = elapsed / cap (1 at the last look), so both sides together spend
//! α(τ) = 2 − 2Φ(z₀.₉₅ / √τ), 10 % at τ = 1: the interval at the cap is a 90 % repeated
//! interval, 95 % one-sided at each end, as [`crate::answers`] reads its verdicts.
//!
//! Where it is spent: the looks' statistics are those of a Brownian motion sampled at the
//! processes measured so far (Z_j = S(n_j) / √n_j, corr(Z_j, Z_k) = √(n_j / n_k) for j < k:
//! the process is the unit of information, time only says how much may be spent). The
//! critical value c_j at look j solves P(|Z_1| ≤ c_1, …, |Z_{j−1}| ≤ c_{j−1}, |Z_j| > c_j) =
//! α(τ_j) − α(τ_{j−1}), found by a deterministic seeded Monte-Carlo of [`PATHS`] paths
//! extended look by look and conditioned on not having crossed ([`Boundary`]). Where the
//! increment is too small for the paths to resolve (O'Brien–Fleming's early looks spend almost
//! nothing), c_j = Φ⁻¹(1 − Δα / 2), which ignores the conditioning and so is a little wider.
//!
//! The small-sample correction: the interval at look j is the estimate ± t_{df}⁻¹(Φ(c_j)) · SE,
//! the same tail probability under Student's t with the estimate's degrees of freedom
//! ([`critical_t`]); the estimate is Yuen's trimmed mean over the processes' means
//! ([`crate::answers::trimmed_over_processes`], a tenth trimmed at each end).

use crate::answers::{t_quantile, trimmed_over_processes, Reading, ONE_SIDED_ALPHA};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use statrs::distribution::{ContinuousCDF, Normal};

/// The share of the processes' means trimmed at each end (as E11's rule).
pub const TRIM: f64 = 0.1;

/// Monte-Carlo paths of the boundary: the spent error rate's own Monte-Carlo error is then
/// about √(0.1 · 10⁻⁵) ≈ 0.001 at the cap.
pub const PATHS: usize = 100_000;

/// Below this many paths to cross, a look's critical value ignores the earlier looks.
const FEWEST_CROSSINGS: f64 = 25.0;

/// The boundary's seed: the same looks give the same critical values on every run.
const BOUNDARY_SEED: u64 = 0x0B71_E9F1_E1D5;

fn standard_normal() -> Normal {
    Normal::new(0.0, 1.0).expect("the standard normal")
}

/// α₁(τ) = 1 − Φ(z₁₋α₁ / √τ): what one side has spent by share τ of the cap (0 at τ = 0,
/// α₁ at τ ≥ 1).
pub fn spent_per_side(tau: f64, alpha: f64) -> f64 {
    if tau <= 0.0 {
        return 0.0;
    }
    let normal = standard_normal();
    let z = normal.inverse_cdf(1.0 - alpha);
    1.0 - normal.cdf(z / tau.min(1.0).sqrt())
}

/// The critical value `z` of a normal look carried over to Student's t with `df` degrees of
/// freedom at the same one-sided tail probability (infinite for df = 0).
pub fn critical_t(z: f64, df: usize) -> f64 {
    if !z.is_finite() {
        return z;
    }
    let tail = 1.0 - standard_normal().cdf(z);
    if tail <= 0.0 {
        return f64::INFINITY;
    }
    t_quantile(1.0 - tail, df as f64)
}

/// One look as taken: the processes it saw, its share of the cap, what both sides had spent
/// by then, and its normal critical value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Look {
    pub processes: usize,
    pub tau: f64,
    pub spent_both_sides: f64,
    pub critical_z: f64,
}

/// The critical values of a run's looks, one look at a time (each depends on all before it).
pub struct Boundary {
    alpha: f64,
    sums: Vec<f64>,
    alive: Vec<bool>,
    rng: Xoshiro256PlusPlus,
    looks: Vec<Look>,
}

impl Boundary {
    /// A boundary spending `alpha` per side ([`ONE_SIDED_ALPHA`] for `kiki compare`).
    pub fn new(alpha: f64) -> Boundary {
        Boundary {
            alpha,
            sums: vec![0.0; PATHS],
            alive: vec![true; PATHS],
            rng: Xoshiro256PlusPlus::seed_from_u64(BOUNDARY_SEED),
            looks: Vec::new(),
        }
    }

    pub fn looks(&self) -> &[Look] {
        &self.looks
    }

    /// The normal critical value of the next look, at `processes` (more than the last look's)
    /// and share `tau` of the cap (at least the last look's; 1 at the last look).
    pub fn look(&mut self, processes: usize, tau: f64) -> f64 {
        let (before, spent_before, tau_before) = self
            .looks
            .last()
            .map_or((0, 0.0, 0.0), |l| (l.processes, l.spent_both_sides, l.tau));
        assert!(processes > before, "a look needs new processes");
        let tau = tau.clamp(tau_before, 1.0);
        let spent = 2.0 * spent_per_side(tau, self.alpha);
        let increment = (spent - spent_before).max(0.0);
        self.extend_paths(before, processes);
        let critical_z = self.critical_value(processes, increment);
        let scale = (processes as f64).sqrt();
        for (sum, alive) in self.sums.iter().zip(self.alive.iter_mut()) {
            if *alive && (sum / scale).abs() > critical_z {
                *alive = false;
            }
        }
        self.looks.push(Look {
            processes,
            tau,
            spent_both_sides: spent,
            critical_z,
        });
        critical_z
    }

    /// Every path's sum moved on from `before` processes' information to `processes`'.
    fn extend_paths(&mut self, before: usize, processes: usize) {
        let sd = ((processes - before) as f64).sqrt();
        let mut i = 0;
        while i < self.sums.len() {
            // Box–Muller: two independent normals from two uniforms.
            let u: f64 = 1.0 - self.rng.random::<f64>();
            let v: f64 = self.rng.random::<f64>();
            let radius = (-2.0 * u.ln()).sqrt();
            let angle = std::f64::consts::TAU * v;
            self.sums[i] += sd * radius * angle.cos();
            if i + 1 < self.sums.len() {
                self.sums[i + 1] += sd * radius * angle.sin();
            }
            i += 2;
        }
    }

    /// The c with `increment` of all paths still alive and beyond ±c at `processes`.
    fn critical_value(&self, processes: usize, increment: f64) -> f64 {
        let normal = standard_normal();
        let wanted = increment * PATHS as f64;
        if wanted < FEWEST_CROSSINGS {
            return normal.inverse_cdf(1.0 - (increment / 2.0).max(1e-300));
        }
        let scale = (processes as f64).sqrt();
        let mut beyond: Vec<f64> = self
            .sums
            .iter()
            .zip(&self.alive)
            .filter(|(_, &alive)| alive)
            .map(|(sum, _)| (sum / scale).abs())
            .collect();
        beyond.sort_by(|x, y| y.total_cmp(x));
        let k = wanted.floor() as usize;
        if k == 0 || beyond.is_empty() {
            return f64::INFINITY;
        }
        if k >= beyond.len() {
            return 0.0;
        }
        // Between the k-th and the (k+1)-th largest: exactly k paths lie beyond.
        (beyond[k - 1] + beyond[k]) / 2.0
    }
}

/// A repeated interval at one look: the estimate, its bounds and what made them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RepeatedInterval {
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
    pub standard_error: f64,
    pub degrees: usize,
    /// The t-corrected critical value the half-width is made of.
    pub critical: f64,
}

impl RepeatedInterval {
    /// The interval of `means` (one per process) at a look whose normal critical value is
    /// `critical_z`; NaN bounds with fewer than two processes kept.
    pub fn of(means: &[f64], critical_z: f64) -> RepeatedInterval {
        let (estimate, standard_error, degrees) = trimmed_over_processes(means, TRIM);
        let critical = critical_t(critical_z, degrees);
        let half = if standard_error.is_finite() {
            critical * standard_error
        } else {
            f64::NAN
        };
        RepeatedInterval {
            estimate,
            low: estimate - half,
            high: estimate + half,
            standard_error,
            degrees,
            critical,
        }
    }

    pub fn half_width(&self) -> f64 {
        (self.high - self.low) / 2.0
    }

    /// The verdict at ±`threshold`.
    pub fn reading(&self, threshold: f64) -> Reading {
        Reading::of(self.low, self.high, threshold, true)
    }
}

/// The default boundary of `kiki compare`: 5 % per side.
pub fn compare_boundary() -> Boundary {
    Boundary::new(ONE_SIDED_ALPHA)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spending_function_spends_alpha_by_the_cap_and_little_early() {
        assert!((spent_per_side(1.0, 0.05) - 0.05).abs() < 1e-9);
        assert!((spent_per_side(2.0, 0.05) - 0.05).abs() < 1e-9);
        assert_eq!(spent_per_side(0.0, 0.05), 0.0);
        // O'Brien–Fleming: a tenth of the cap spends about 1e-7 of the 5 %.
        assert!(spent_per_side(0.1, 0.05) < 1e-6);
        let half = spent_per_side(0.5, 0.05);
        // At half the cap, 1 − Φ(1.645 / √0.5) = 1 − Φ(2.326) = 1 % of the 5 %.
        assert!((half - 0.01).abs() < 1e-4, "{half}");
    }

    #[test]
    fn one_look_at_the_cap_is_the_fixed_interval() {
        let mut boundary = compare_boundary();
        let z = boundary.look(20, 1.0);
        assert!((z - 1.6449).abs() < 0.01, "{z}");
        // The t correction at 19 degrees gives the fixed 90 % interval's factor.
        assert!((critical_t(z, 19) - crate::answers::t90(19)).abs() < 0.02);
        assert_eq!(critical_t(z, 0), f64::INFINITY);
    }

    #[test]
    fn later_looks_are_narrower_than_earlier_ones_and_the_same_looks_give_the_same_values() {
        let schedule: Vec<(usize, f64)> = (1..=10).map(|j| (4 * j, j as f64 / 10.0)).collect();
        let values = |_: ()| {
            let mut boundary = compare_boundary();
            schedule
                .iter()
                .map(|&(n, tau)| boundary.look(n, tau))
                .collect::<Vec<f64>>()
        };
        let first = values(());
        assert_eq!(first, values(()), "seeded: deterministic");
        for pair in first.windows(2) {
            assert!(pair[1] < pair[0], "{first:?}");
        }
        // Spending over ten looks costs width at the cap: 1.86 against 1.645 for one look
        // (O'Brien–Fleming-type with 5 % per side spends 1 % of it by half the cap).
        let last = first[9];
        assert!(last > 1.75 && last < 1.95, "{last}");
    }

    /// Simulated process means: `count` draws of N(`truth`, `sd`²).
    fn simulated_means(
        count: usize,
        truth: f64,
        sd: f64,
        rng: &mut Xoshiro256PlusPlus,
    ) -> Vec<f64> {
        (0..count)
            .map(|_| {
                let u: f64 = 1.0 - rng.random::<f64>();
                let v: f64 = rng.random::<f64>();
                truth + sd * (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
            })
            .collect()
    }

    /// The sequential procedure on simulated process means: a look at each (processes,
    /// critical value) of `boundary_z`; stops at the first verdict other than `not resolved`.
    fn verdict_of(boundary_z: &[(usize, f64)], means: &[f64], threshold: f64) -> Reading {
        for &(n, z) in boundary_z {
            let reading = RepeatedInterval::of(&means[..n], z).reading(threshold);
            if reading != Reading::NotResolved {
                return reading;
            }
        }
        Reading::NotResolved
    }

    /// 2,000 simulated sequential runs per truth, looks after every batch of two processes
    /// from four on, τ = processes / 40 (every process taking the same time), the cap at 40
    /// processes: at a true difference of T, `level` (U < T) and `slower` (L > T) each come
    /// out at most 5 % plus Monte-Carlo error (sd 0.5 % at 2,000 runs; the bound allows
    /// 2.4 sd); at 0, `slower` never and `level` almost always (the test has power); and over
    /// every look without stopping, the lower bound passes the truth in at most 5 % of runs
    /// but not in far fewer (the boundary spends its error rate, it is not merely wide).
    #[test]
    fn the_error_rates_hold_over_all_looks() {
        let schedule: Vec<(usize, f64)> = (2..=20).map(|j| (2 * j, j as f64 / 20.0)).collect();
        let mut boundary = compare_boundary();
        let boundary_z: Vec<(usize, f64)> = schedule
            .iter()
            .map(|&(n, tau)| (n, boundary.look(n, tau)))
            .collect();
        // A process mean's sd of 10 and a threshold of 6: at the cap the half-width is about
        // 1.8 · 10 / √40 ≈ 2.8, so every truth is resolvable within the cap.
        let (sd, threshold, runs) = (10.0, 6.0, 2_000);
        let limit = ONE_SIDED_ALPHA + 0.012;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(57);
        let mut share = |truth: f64, wanted: Reading| {
            let hits = (0..runs)
                .filter(|_| {
                    let means = simulated_means(40, truth, sd, &mut rng);
                    verdict_of(&boundary_z, &means, threshold) == wanted
                })
                .count();
            hits as f64 / runs as f64
        };
        let level_at_t = share(threshold, Reading::Level);
        assert!(level_at_t <= limit, "P(level | T) = {level_at_t}");
        let slower_at_t = share(threshold, Reading::Slower);
        assert!(slower_at_t <= limit, "P(slower | T) = {slower_at_t}");
        let slower_at_0 = share(0.0, Reading::Slower);
        assert!(slower_at_0 == 0.0, "P(slower | 0) = {slower_at_0}");
        let level_at_0 = share(0.0, Reading::Level);
        assert!(level_at_0 > 0.9, "P(level | 0) = {level_at_0}");
        let crossed = (0..runs)
            .filter(|_| {
                let means = simulated_means(40, 0.0, sd, &mut rng);
                boundary_z
                    .iter()
                    .any(|&(n, z)| RepeatedInterval::of(&means[..n], z).low > 0.0)
            })
            .count() as f64
            / runs as f64;
        assert!(
            (0.02..=limit).contains(&crossed),
            "P(L_j > 0 at some look | 0) = {crossed}"
        );
    }
}
