//! Summary statistics of repeated samples: median, extremes, MAD, percentiles, ratios with spread.

/// Median, extremes and spread of one set of samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub count: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Median absolute deviation from the median (unscaled).
    pub mad: f64,
}

impl Summary {
    /// `None` for an empty sample set (or one holding a NaN).
    pub fn of(samples: &[f64]) -> Option<Summary> {
        let sorted = sorted(samples)?;
        // The 50th percentile, not `median`: for an even count it interpolates
        // `a + (b - a) * 0.5`, which can differ from `(a + b) / 2` in the last bit, and the
        // measured numbers stay bit-identical to those already reported.
        let median = percentile_sorted(&sorted, 50.0);
        let deviations: Vec<f64> = sorted.iter().map(|x| (x - median).abs()).collect();
        Some(Summary {
            count: sorted.len(),
            median,
            min: sorted[0],
            max: sorted[sorted.len() - 1],
            mad: percentile(&deviations, 50.0)?,
        })
    }

    /// The MAD as a fraction of the median (0 when the median is 0).
    pub fn relative_mad(&self) -> f64 {
        if self.median == 0.0 {
            0.0
        } else {
            self.mad / self.median.abs()
        }
    }

    /// The same summary after `f`, which must be monotonic: decreasing functions (such as
    /// time → rate) swap min and max so that `min <= max` still holds.
    pub fn map(&self, f: impl Fn(f64) -> f64) -> Summary {
        let (a, b) = (f(self.min), f(self.max));
        let median = f(self.median);
        Summary {
            count: self.count,
            median,
            min: a.min(b),
            max: a.max(b),
            // The MAD maps approximately by the local slope; good enough for a display.
            mad: ((f(self.median + self.mad) - median).abs()
                + (f(self.median - self.mad) - median).abs())
                / 2.0,
        }
    }
}

fn sorted(samples: &[f64]) -> Option<Vec<f64>> {
    if samples.is_empty() || samples.iter().any(|x| x.is_nan()) {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    Some(sorted)
}

/// The median: the middle value, or `(a + b) / 2` of the middle two for an even count;
/// `None` when empty or holding a NaN (callers that tolerate non-finite samples drop them first).
pub fn median(samples: &[f64]) -> Option<f64> {
    let sorted = sorted(samples)?;
    let mid = sorted.len() / 2;
    Some(if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    })
}

pub fn min_of(samples: &[f64]) -> Option<f64> {
    sorted(samples).map(|s| s[0])
}

pub fn max_of(samples: &[f64]) -> Option<f64> {
    sorted(samples).map(|s| s[s.len() - 1])
}

/// Median absolute deviation from the median (unscaled).
pub fn mad_of(samples: &[f64]) -> Option<f64> {
    Summary::of(samples).map(|s| s.mad)
}

/// The `p`-th percentile (0–100) with linear interpolation between order statistics
/// (the method numpy calls "linear"); `None` when empty.
pub fn percentile(samples: &[f64], p: f64) -> Option<f64> {
    sorted(samples).map(|s| percentile_sorted(&s, p))
}

fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    let rank = (p.clamp(0.0, 100.0) / 100.0) * (sorted.len() - 1) as f64;
    let low = rank.floor() as usize;
    let high = rank.ceil() as usize;
    sorted[low] + (sorted[high] - sorted[low]) * (rank - low as f64)
}

/// The ratio `a / b` of two quantities sampled in the same interleaved rounds, with spread.
///
/// When both have the same number of samples, sample `i` of each was taken in the same round
/// (the harness interleaves backends), so the per-round ratios `a[i] / b[i]` are summarised:
/// machine-wide slowdowns that hit a whole round cancel out. Otherwise every pairing is used.
pub fn ratio(a: &[f64], b: &[f64]) -> Option<Summary> {
    let ratios: Vec<f64> = if a.len() == b.len() {
        a.iter().zip(b).map(|(x, y)| x / y).collect()
    } else {
        a.iter()
            .flat_map(|x| b.iter().map(move |y| x / y))
            .collect()
    };
    let finite: Vec<f64> = ratios.into_iter().filter(|r| r.is_finite()).collect();
    Summary::of(&finite)
}

/// Element-wise `a[i] - b[i]` of paired samples (for marginal costs), summarised.
pub fn paired_difference(a: &[f64], b: &[f64]) -> Option<Summary> {
    if a.len() != b.len() {
        return None;
    }
    let differences: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    Summary::of(&differences)
}

/// A number in at most four significant figures, without scientific notation for the ranges
/// the report shows.
pub fn format_sig(value: f64) -> String {
    if !value.is_finite() {
        return "–".to_string();
    }
    let magnitude = value.abs();
    if magnitude >= 1000.0 {
        format!("{value:.0}")
    } else if magnitude >= 100.0 {
        format!("{value:.1}")
    } else if magnitude >= 10.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.3}")
    }
}

/// `median (min–max)` for a table cell.
pub fn format_spread(summary: &Summary) -> String {
    format!(
        "{} ({}–{})",
        format_sig(summary.median),
        format_sig(summary.min),
        format_sig(summary.max)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_samples() {
        let s = Summary::of(&[5.0, 1.0, 3.0, 2.0, 4.0]).unwrap();
        assert_eq!(s.count, 5);
        assert_eq!(s.median, 3.0);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.max, 5.0);
        // deviations 2,2,0,1,1 → sorted 0,1,1,2,2 → median 1
        assert_eq!(s.mad, 1.0);
        assert!((s.relative_mad() - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn even_count_median_is_the_mean_of_the_middle_pair() {
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        // deviations from 2.5: 1.5, 0.5, 0.5, 1.5 → MAD 1.0
        assert_eq!(mad_of(&[4.0, 1.0, 3.0, 2.0]), Some(1.0));
    }

    #[test]
    fn median_and_summary_round_the_middle_pair_as_before() {
        // `median` (E9, the effects command) takes (a + b) / 2; `Summary` (every other
        // experiment) interpolates a + (b - a) / 2: the two differ in the last bit here.
        assert_eq!(median(&[10.7, 2.2]), Some(6.449999999999999));
        assert_eq!(Summary::of(&[10.7, 2.2]).unwrap().median, 6.45);
    }

    #[test]
    fn percentiles_interpolate_linearly() {
        let samples = [10.0, 20.0, 30.0, 40.0];
        assert_eq!(percentile(&samples, 0.0), Some(10.0));
        assert_eq!(percentile(&samples, 100.0), Some(40.0));
        assert_eq!(percentile(&samples, 50.0), Some(25.0));
        // rank = 0.9 * 3 = 2.7 → 30 + 0.7 * 10
        assert!((percentile(&samples, 90.0).unwrap() - 37.0).abs() < 1e-12);
        assert_eq!(min_of(&samples), Some(10.0));
        assert_eq!(max_of(&samples), Some(40.0));
    }

    #[test]
    fn empty_or_nan_samples_have_no_summary() {
        assert_eq!(Summary::of(&[]), None);
        assert_eq!(median(&[1.0, f64::NAN]), None);
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn paired_ratio_cancels_round_wide_slowdowns() {
        // Round 2 ran twice as slow for both: the paired ratio is exactly 2 every round.
        let a = [2.0, 4.0, 2.0];
        let b = [1.0, 2.0, 1.0];
        let r = ratio(&a, &b).unwrap();
        assert_eq!((r.median, r.min, r.max), (2.0, 2.0, 2.0));
        // Unequal lengths: all pairings, 2/1, 2/3, 4/1, 4/3 → median (4/3 + 2)/2.
        let r = ratio(&[2.0, 4.0], &[1.0, 3.0, 2.0]).unwrap();
        assert_eq!(r.min, 2.0 / 3.0);
        assert_eq!(r.max, 4.0);
        assert_eq!(r.count, 6);
    }

    #[test]
    fn paired_difference_and_map() {
        let d = paired_difference(&[5.0, 7.0, 6.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!((d.median, d.min, d.max), (4.0, 3.0, 5.0));
        assert!(paired_difference(&[1.0], &[1.0, 2.0]).is_none());
        // ns → rate: a decreasing map keeps min <= max.
        let rate = Summary::of(&[1.0, 2.0, 4.0]).unwrap().map(|ns| 1000.0 / ns);
        assert_eq!((rate.median, rate.min, rate.max), (500.0, 250.0, 1000.0));
    }

    #[test]
    fn formatting() {
        assert_eq!(format_sig(1234.56), "1235");
        assert_eq!(format_sig(123.456), "123.5");
        assert_eq!(format_sig(12.3456), "12.35");
        assert_eq!(format_sig(1.23456), "1.235");
        assert_eq!(format_sig(f64::INFINITY), "–");
        let s = Summary::of(&[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(format_spread(&s), "2.000 (1.000–3.000)");
    }
}
