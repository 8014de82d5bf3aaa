//! The χ² and F quantiles the shift probe's interval needs.

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

/// The F distribution's quantile at `probability` on (`df1`, `df2`) degrees of freedom.
pub(super) fn f_quantile(probability: f64, df1: usize, df2: usize) -> f64 {
    use statrs::distribution::{ContinuousCDF, FisherSnedecor};
    FisherSnedecor::new(df1 as f64, df2 as f64).map_or(f64::NAN, |f| f.inverse_cdf(probability))
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
    }
}
