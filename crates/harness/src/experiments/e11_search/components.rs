//! Where E11's differences' noise lives: the variance components within and between
//! processes, with the block order's effect taken out.

/// The variance components of per-round differences, `per_round[process][round]`, rounds in
/// (forward, reverse) pairs. The order effect (the mean of forward − reverse over every
/// pair) is a fixed effect that the pair means cancel, not noise: the within-process sd of a
/// round is from the pairs' differences about that mean, σ_w² = var(forward − reverse) / 2.
/// Between processes: σ_b² = var(process means) − σ_w² / R, where it is ≤ 0 reported as 0
/// and `between_truncated`. ns per node.
pub(super) fn components(per_round: &[Vec<f64>]) -> Components {
    let usable: Vec<&Vec<f64>> = per_round.iter().filter(|r| r.len() >= 2).collect();
    let gaps: Vec<f64> = usable
        .iter()
        .flat_map(|r| r.chunks_exact(2).map(|pair| pair[0] - pair[1]))
        .collect();
    if usable.len() < 2 || gaps.len() < 2 {
        return Components {
            within_ns: f64::NAN,
            between_ns: f64::NAN,
            between_truncated: false,
            order_effect_ns: f64::NAN,
        };
    }
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
    let variance = |xs: &[f64]| {
        let centre = mean(xs);
        xs.iter().map(|x| (x - centre).powi(2)).sum::<f64>() / (xs.len() - 1) as f64
    };
    let within = variance(&gaps) / 2.0;
    let means: Vec<f64> = usable.iter().map(|r| mean(r)).collect();
    let rounds = usable.iter().map(|r| r.len()).sum::<usize>() as f64 / usable.len() as f64;
    let between = variance(&means) - within / rounds;
    Components {
        within_ns: within.sqrt(),
        between_ns: between.max(0.0).sqrt(),
        between_truncated: between <= 0.0,
        order_effect_ns: mean(&gaps),
    }
}

/// Where a difference's noise lives, ns per node.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub(super) struct Components {
    pub within_ns: f64,
    pub between_ns: f64,
    /// The between-process estimate came out ≤ 0 and reads 0.
    pub between_truncated: bool,
    /// The mean of forward − reverse: the block order's effect, cancelled by the pair means.
    pub order_effect_ns: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_effect_is_not_noise() {
        // Every process: forward 10 above reverse, process means 0, 20, 40 apart.
        let per_round = vec![vec![5.0, -5.0], vec![25.0, 15.0], vec![45.0, 35.0]];
        let c = components(&per_round);
        assert!(c.within_ns.abs() < 1e-12, "{c:?}");
        assert!((c.order_effect_ns - 10.0).abs() < 1e-12);
        assert!((c.between_ns - 20.0).abs() < 1e-12);
        assert!(!c.between_truncated);
    }

    #[test]
    fn a_between_estimate_at_or_below_zero_is_truncated_and_said() {
        // Identical process means, noisy rounds: var(means) − σ_w² / 2 < 0.
        let per_round = vec![vec![10.0, -10.0], vec![-10.0, 10.0], vec![20.0, -20.0]];
        let c = components(&per_round);
        assert!(c.within_ns > 0.0);
        assert_eq!(c.between_ns, 0.0);
        assert!(c.between_truncated);
        assert!(components(&[vec![1.0, 2.0]]).within_ns.is_nan());
    }
}
