//! The χ² and F quantiles the shift probe's interval needs (no statistics crate in the tree).

/// The χ² distribution's 2.5 % and 97.5 % quantiles on `df` degrees of freedom: exact to four
/// figures up to 10 (the probe has 5 invocations, the quick report 2), Wilson and Hilferty's
/// cube-root approximation beyond (within 1 % there; it fails in the low tail below 10).
pub(super) fn chi_square_95(df: usize) -> (f64, f64) {
    const EXACT: [(f64, f64); 10] = [
        (0.000_982, 5.024),
        (0.050_64, 7.378),
        (0.215_8, 9.348),
        (0.484_4, 11.14),
        (0.831_2, 12.83),
        (1.237, 14.45),
        (1.690, 16.01),
        (2.180, 17.53),
        (2.700, 19.02),
        (3.247, 20.48),
    ];
    if (1..=EXACT.len()).contains(&df) {
        return EXACT[df - 1];
    }
    let df = df as f64;
    let a = 2.0 / (9.0 * df);
    let at = |z: f64| df * (1.0 - a + z * a.sqrt()).powi(3);
    (at(-Z_975), at(Z_975))
}

/// The normal distribution's 97.5 % quantile.
const Z_975: f64 = 1.959_963_985;

/// The F distribution's quantile at `probability` on (`df1`, `df2`) degrees of freedom, by
/// bisection on its distribution function (relative precision about 1e-12).
pub(super) fn f_quantile(probability: f64, df1: usize, df2: usize) -> f64 {
    let cdf = |x: f64| f_cdf(x, df1 as f64, df2 as f64);
    let mut high = 1.0;
    while cdf(high) < probability && high < 1e12 {
        high *= 2.0;
    }
    let mut low = 0.0;
    for _ in 0..200 {
        let middle = 0.5 * (low + high);
        if cdf(middle) < probability {
            low = middle;
        } else {
            high = middle;
        }
        if high - low <= 1e-13 * high {
            break;
        }
    }
    0.5 * (low + high)
}

/// P(F ≤ x) on (d1, d2) degrees of freedom: the regularised incomplete beta function at
/// d1·x / (d1·x + d2) with parameters d1/2, d2/2.
fn f_cdf(x: f64, d1: f64, d2: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    incomplete_beta(d1 * x / (d1 * x + d2), 0.5 * d1, 0.5 * d2)
}

/// The regularised incomplete beta function I_x(a, b), by its continued fraction (modified
/// Lentz), taken on the side where it converges fast.
fn incomplete_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(x, a, b) / a
    } else {
        1.0 - front * beta_fraction(1.0 - x, b, a) / b
    }
}

fn beta_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut c = 1.0;
    let mut d = 1.0 - (a + b) * x / (a + 1.0);
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut fraction = d;
    for m in 1..=300 {
        let m = m as f64;
        let even = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
        let odd = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
        for coefficient in [even, odd] {
            d = 1.0 + coefficient * d;
            if d.abs() < TINY {
                d = TINY;
            }
            c = 1.0 + coefficient / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            fraction *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-15 {
            break;
        }
    }
    fraction
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, nine terms: about 15 figures).
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const COEFFICIENTS: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection.
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = COEFFICIENTS[0];
    for (i, c) in COEFFICIENTS.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points computed to 10 figures with mpmath's incomplete beta function (the printed tables
    /// give F.975(1, 7) = 8.07 and F.975(10, 10) = 3.72).
    #[test]
    fn f_quantiles_match_published_points() {
        for (p, d1, d2, expected) in [
            (0.975, 4, 28, 3.286_320_715),
            (0.025, 4, 28, 0.117_987_138_7),
            (0.975, 1, 7, 8.072_668_880),
            (0.975, 10, 10, 3.716_791_865),
        ] {
            let q = f_quantile(p, d1, d2);
            assert!((q / expected - 1.0).abs() < 1e-7, "{p} {d1} {d2}: {q}");
        }
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-12);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-12);
    }
}
