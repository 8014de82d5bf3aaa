//! The positive controls: synthetic tables of known size read at random in the same chain,
//! each judged at P = 0 against a ring of its size timed in the same process along the same
//! walk (the memory-sized one against E6's memory latency), the ring-judged ones by the
//! project's rule for controls (`ring_test`); their table rows, summary values and sentences.

use super::ring_test::{process_means, ring_tests, RingTest};
use super::{cost, cost_rounds, estimate_at, estimate_json, interval, paired, yes_no};
use crate::experiments::e7_cache_pressure::measure::{
    has_ring, ring_case, synthetic_case, Measurement, ONE_PAGE,
};
use crate::experiments::e7_cache_pressure::{HOT_MASK, POSITIVE_TOLERANCE};
use crate::stats::{format_interval, format_sig, Estimate};
use kiki_core::units::rounded_bytes;
use serde_json::{json, Value as Json};

/// What a positive control is judged against.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reference {
    /// E6's latency at its size minus at 4 KiB, within the range E6's invocations span there.
    E6,
    /// A plain ring of its size timed in this process along the same walk: its cost (full ring
    /// − one-page ring), the control's minus it paired per round (the 95 % interval over rounds,
    /// recorded as before), and the [`RingTest`] that judges it.
    Ring {
        ring: Estimate,
        difference: Estimate,
        test: RingTest,
    },
}

/// A positive control: a synthetic table of known size read at random in the same chain.
pub struct Positive {
    /// What its size stands for: `½ L2`, `½ L3`, `mid L2–L3`, `memory` (the pressure buffer's
    /// size: the first design's positive control).
    pub label: String,
    pub bytes: usize,
    /// Its cost at P = 0.
    pub at_zero: Estimate,
    /// E6's pooled curve at its size minus at 4 KiB, and the least and greatest of the same
    /// over E6's invocations (reported beside the ring where the ring judges it).
    pub expected: f64,
    pub expected_low: f64,
    pub expected_high: f64,
    pub reference: Reference,
    /// Whether its interval at P = 0 excludes 0; an unresolved control fails.
    pub resolved: bool,
    pub pass: bool,
    /// Its cost at every pressure (how the pressure itself changes what a miss costs).
    pub by_pressure: Vec<(u32, Estimate)>,
}

impl Positive {
    /// Why it failed, for the verdict's "not decided" line: against its ring, a bias or no
    /// interval; against E6, the level outside the band, or the level
    /// inside and the interval too wide.
    pub(super) fn failure_words(&self) -> String {
        if let Reference::Ring { test, .. } = &self.reference {
            let unresolved = if self.resolved {
                ""
            } else {
                "; its cost's interval includes 0"
            };
            return format!("{unresolved}{}", test.failure_words());
        }
        match (self.resolved, self.level_inside()) {
            (false, false) => {
                return "; its interval includes 0, its level outside that band".into()
            }
            (false, true) => return "; its interval includes 0".into(),
            (true, false) => return "; its level is outside that band".into(),
            (true, true) => {}
        }
        "; its level is inside that band, its interval too wide".into()
    }

    /// The bias it leaves unexcluded (ns per read), where its ring judged it and it passed: its
    /// difference's 90 % interval, which bounds the verdict (the E6-judged one is not paired).
    pub(super) fn bias_interval(&self) -> Option<(f64, f64)> {
        match &self.reference {
            Reference::Ring { test, .. } if self.pass => Some((test.low, test.high)),
            _ => None,
        }
    }

    /// Whether its level (not its interval) lies in E6's band widened by the tolerance.
    fn level_inside(&self) -> bool {
        self.at_zero.value >= self.expected_low * (1.0 - POSITIVE_TOLERANCE)
            && self.at_zero.value <= self.expected_high * (1.0 + POSITIVE_TOLERANCE)
    }

    /// Its cost at `reads`, where measured.
    pub(super) fn at(&self, reads: u32) -> Option<&Estimate> {
        self.by_pressure
            .iter()
            .find(|(r, _)| *r == reads)
            .map(|(_, e)| e)
    }

    /// E6's figure at its size: `3.27 [3.00–3.50]`.
    fn e6_words(&self) -> String {
        format!(
            "{} [{}–{}]",
            format_sig(self.expected),
            format_sig(self.expected_low),
            format_sig(self.expected_high)
        )
    }

    /// What it should have measured, for the controls table and the failed line.
    fn expected_words(&self) -> String {
        let tolerance = POSITIVE_TOLERANCE * 100.0;
        match self.reference {
            Reference::Ring { ring, test, .. } => format!(
                "the ring of its size in this process {} ns (difference {}, which must show no \
                 bias and otherwise bounds the verdict; ±{} ns is {tolerance:.0} % of the ring's \
                 cost; E6 {})",
                format_interval(&ring),
                test.reading(),
                format_sig(test.threshold),
                self.e6_words()
            ),
            Reference::E6 => format!(
                "{} ± {tolerance:.0} % (E6: latency at its size − at 4 KiB, pooled \
                 [invocations' least–greatest])",
                self.e6_words()
            ),
        }
    }

    /// The verdict's "not decided" line for it: what it measured against what it should have.
    pub(super) fn failed_words(&self) -> String {
        format!(
            "{} ns against {}{}",
            format_interval(&self.at_zero),
            self.expected_words(),
            self.failure_words()
        )
    }

    /// Its row in the controls table.
    pub(super) fn row(&self) -> Vec<String> {
        vec![
            format!(
                "positive: synthetic {} table ({}) at P = 0",
                rounded_bytes(self.bytes as f64),
                self.label
            ),
            format_interval(&self.at_zero),
            self.expected_words(),
            yes_no(self.pass),
        ]
    }

    /// Its entry in the summary's `positive_controls`.
    pub(super) fn json(&self) -> Json {
        let (against, ring, difference, test) = match &self.reference {
            Reference::Ring {
                ring,
                difference,
                test,
            } => (
                "in-process ring",
                estimate_json(ring),
                estimate_json(difference),
                test.json(),
            ),
            Reference::E6 => ("E6", Json::Null, Json::Null, Json::Null),
        };
        json!({"label": self.label, "bytes": self.bytes, "ns": self.at_zero.value,
               "low": self.at_zero.low, "high": self.at_zero.high, "expected_ns": self.expected,
               "expected_low_ns": self.expected_low, "expected_high_ns": self.expected_high,
               "judged_against": against, "ring": ring, "ring_difference": difference,
               "ring_test": test,
               "resolved": self.resolved, "pass": self.pass,
               "by_pressure": self.by_pressure.iter().map(|(r, e)| estimate_at(e, *r))
                   .collect::<Vec<_>>()})
    }

    /// The findings' sentence on it.
    pub(super) fn sentence(&self) -> String {
        let size = format!("{} ({})", rounded_bytes(self.bytes as f64), self.label);
        let against = match self.reference {
            Reference::Ring { ring, test, .. } => format!(
                "a plain ring of its size timed in this process along the same walk {} ns, \
                 the difference (Yuen's trimmed mean over {} processes) {} (Holm-adjusted; raw \
                 {}), a bias to exclude ±{} ns ({:.0} % of the ring's cost; E6's curve, from \
                 another process with nothing beside it, says {} ns)",
                format_interval(&ring),
                test.processes,
                test.reading(),
                super::ring_test::p_words(test.p_raw),
                format_sig(test.threshold),
                POSITIVE_TOLERANCE * 100.0,
                self.e6_words()
            ),
            Reference::E6 => format!(
                "E6's curve says {} ns ({}–{} over its invocations)",
                format_sig(self.expected),
                format_sig(self.expected_low),
                format_sig(self.expected_high)
            ),
        };
        let measured = format!("{} ns per read at P = 0", format_interval(&self.at_zero));
        if self.pass {
            format!("The positive control at {size} passes: {measured}; {against}.")
        } else if matches!(self.reference, Reference::Ring { .. }) {
            format!(
                "**THE POSITIVE CONTROL AT {size} FAILS: {measured}; {against}{}.**",
                self.failure_words()
            )
        } else {
            format!(
                "**THE POSITIVE CONTROL AT {size} FAILS: {measured}; {against}; ±{:.0} % \
                 allowed{}.**",
                POSITIVE_TOLERANCE * 100.0,
                self.failure_words()
            )
        }
    }
}

/// The ring beside the control labelled `label`: its cost, the control's minus it per round,
/// and those rounds; `None` where no ring was timed (the memory control, and measurements made
/// before 2026-12-01).
fn ring_reference(m: &Measurement, label: &str) -> Option<(Estimate, Estimate, Vec<f64>)> {
    if !has_ring(label) {
        return None;
    }
    let ring = ring_case(label);
    let rounds = paired(
        &cost_rounds(m, 0, &synthetic_case(label))?,
        &cost_rounds(m, 0, &ring)?,
    )?;
    let difference = interval(&rounds, m.invocations)?;
    Some((cost(m, 0, &ring)?, difference, rounds))
}

/// The positive controls: every synthetic table but the one-page one, each against the ring
/// beside it where one was timed (those tested together, Holm's correction over them), else
/// E6's latency.
pub(super) fn positive(m: &Measurement) -> Vec<Positive> {
    type Ringed = Option<(Estimate, Estimate, Vec<f64>)>;
    let candidates: Vec<(&str, usize, Estimate, Ringed)> = m
        .synthetic
        .iter()
        .filter(|(label, _)| label != ONE_PAGE)
        .filter_map(|(label, bytes)| {
            let at_zero = cost(m, 0, &synthetic_case(label))?;
            Some((label.as_str(), *bytes, at_zero, ring_reference(m, label)))
        })
        .collect();
    let family: Vec<(Vec<f64>, f64)> = candidates
        .iter()
        .filter_map(|(_, _, _, ringed)| ringed.as_ref())
        .map(|(ring, _, rounds)| (process_means(rounds, m.invocations), ring.value))
        .collect();
    let mut tests = ring_tests(&family).into_iter();
    candidates
        .into_iter()
        .map(|(label, bytes, at_zero, ringed)| {
            let judged = ringed.and_then(|(ring, difference, rounds)| {
                let test = tests.next()?;
                Some((ring, difference, rounds, test))
            });
            control(m, label, bytes, at_zero, judged)
        })
        .collect()
}

/// The control labelled `label`: against its ring and that ring's test where given, else E6.
fn control(
    m: &Measurement,
    label: &str,
    bytes: usize,
    at_zero: Estimate,
    ringed: Option<(Estimate, Estimate, Vec<f64>, RingTest)>,
) -> Positive {
    let case = synthetic_case(label);
    let l1 = m.levels.latency_at(HOT_MASK + 1);
    let expected = m.levels.latency_at(bytes) - l1;
    let (low, high) = m.levels.latency_range_at(bytes);
    let (expected_low, expected_high) = (low - l1, high - l1);
    let (reference, (resolved, pass)) = match ringed {
        Some((ring, difference, _, test)) => {
            let reference = Reference::Ring {
                ring,
                difference,
                test,
            };
            (reference, ring_passes(&at_zero, &test))
        }
        None => (
            Reference::E6,
            positive_passes(&at_zero, expected_low, expected_high),
        ),
    };
    Positive {
        label: label.to_string(),
        bytes,
        at_zero,
        expected,
        expected_low,
        expected_high,
        reference,
        resolved,
        pass,
        by_pressure: m
            .pressure_reads
            .iter()
            .filter_map(|&r| cost(m, r, &case).map(|e| (r, e)))
            .collect(),
    }
}

/// Whether a positive control's cost at P = 0 is resolved (its interval excludes 0) and whether
/// it passes: resolved, and its whole 95 % interval inside the range E6's invocations span at
/// its size widened by the tolerance (an equivalence test).
pub(super) fn positive_passes(
    at_zero: &Estimate,
    expected_low: f64,
    expected_high: f64,
) -> (bool, bool) {
    let resolved = at_zero.low > 0.0;
    let pass = resolved
        && at_zero.low >= expected_low * (1.0 - POSITIVE_TOLERANCE)
        && at_zero.high <= expected_high * (1.0 + POSITIVE_TOLERANCE);
    (resolved, pass)
}

/// The same against the ring beside it: resolved, and its [`RingTest`] passed (the paired
/// difference leaves out what the process's cache share does to both).
pub(super) fn ring_passes(at_zero: &Estimate, test: &RingTest) -> (bool, bool) {
    let resolved = at_zero.low > 0.0;
    (resolved, resolved && !test.failed)
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::estimate;
    use super::super::ring_test::tests::means;
    use super::*;

    /// A ½ L2 control judged against E6's band of 3.0–3.5 ns.
    pub(in super::super) fn control(at_zero: Estimate) -> Positive {
        let (resolved, pass) = positive_passes(&at_zero, 3.0, 3.5);
        Positive {
            label: "½ L2".into(),
            bytes: 362 << 10,
            at_zero,
            expected: 3.27,
            expected_low: 3.0,
            expected_high: 3.5,
            reference: Reference::E6,
            resolved,
            pass,
            by_pressure: Vec::new(),
        }
    }

    /// The -11-29-4 Zen 4's ½ L2 control (3.618 [2.777–4.461] against 3.0–3.5 ± 25 %): its
    /// level is inside the band, its interval too wide, and the line that keeps the verdict
    /// undecided says so; a level outside says that.
    #[test]
    fn a_failed_control_says_whether_its_level_or_its_width_failed() {
        let wide = control(estimate(3.618, 2.777, 4.461));
        assert!(!wide.pass);
        assert_eq!(
            wide.failure_words(),
            "; its level is inside that band, its interval too wide"
        );
        let off = control(estimate(5.0, 4.8, 5.2));
        assert_eq!(off.failure_words(), "; its level is outside that band");
        let unresolved = control(estimate(3.2, -0.1, 6.0));
        assert_eq!(unresolved.failure_words(), "; its interval includes 0");
        let both = control(estimate(1.0, -0.1, 2.1));
        assert_eq!(
            both.failure_words(),
            "; its interval includes 0, its level outside that band"
        );
    }

    /// Against a ring of 6.8 ns (a bias to exclude ±1.7 ns) the Zen 4's ½ L2 invocation that
    /// read 7.0 ns against E6's 3.3 passes where the difference is narrow around 0; one 1.2 ns
    /// off 0 fails by bias (saying why); a wide one passes under the rule of bounds (its interval
    /// widens the verdict instead); an unresolved control fails whatever the ring.
    #[test]
    fn a_control_beside_its_ring_is_judged_on_the_paired_difference() {
        let at_zero = estimate(7.0, 6.4, 7.6);
        assert_eq!(positive_passes(&at_zero, 3.0, 3.5), (true, false));
        let ring = estimate(6.8, 6.2, 7.4);
        let tests = ring_tests(&[
            (means(0.02, 0.3), ring.value),
            (means(1.2, 0.3), ring.value),
            (means(0.05, 8.0), ring.value),
        ]);
        let [narrow, biased, wide] = [tests[0], tests[1], tests[2]];
        assert!((biased.threshold - 1.7).abs() < 1e-12);
        assert!(biased.failed && biased.biased(), "{biased:?}");
        assert!(biased.p <= 3.0 * biased.p_raw + 1e-15, "Holm over three");
        assert!(!wide.failed && wide.half_width > wide.threshold, "{wide:?}");
        assert!(
            !narrow.failed && narrow.low < 0.0 && narrow.high > 0.0,
            "{narrow:?}"
        );
        assert!((narrow.high - narrow.low - 2.0 * narrow.half_width).abs() < 1e-12);
        assert_eq!(narrow.failure_words(), "");
        assert!(biased
            .failure_words()
            .starts_with("; it differs from its ring"));
        assert_eq!(wide.failure_words(), "");
        let reading = narrow.reading();
        assert!(reading.contains(" ns (90 %), p = "), "{reading}");
        assert_eq!(narrow.json()["interval"], 0.90);
        assert_eq!(biased.json()["failed"], true);
        assert_eq!(ring_passes(&at_zero, &narrow), (true, true));
        assert_eq!(ring_passes(&at_zero, &biased), (true, false), "a bias");
        assert_eq!(ring_passes(&at_zero, &wide), (true, true), "wide, bounding");
        assert_eq!(
            ring_passes(&estimate(0.5, -0.1, 1.1), &narrow),
            (false, false),
            "an unresolved control fails whatever the ring"
        );
        let beside = |test: RingTest| {
            let mut c = control(at_zero);
            c.reference = Reference::Ring {
                ring,
                difference: estimate(test.value, test.low, test.high),
                test,
            };
            (c.resolved, c.pass) = ring_passes(&at_zero, &test);
            c
        };
        let biased = beside(biased);
        assert!(!biased.pass);
        assert!(
            biased
                .failure_words()
                .starts_with("; it differs from its ring (adjusted p"),
            "{}",
            biased.failure_words()
        );
        assert!(
            biased.failed_words().starts_with(&format!(
                "7.000 [6.400–7.600] ns against the ring of its size in this process 6.800 \
                 [6.200–7.400] ns (difference {} [{}–{}] ns (90 %), p ",
                format_sig(test_of(&biased).value),
                format_sig(test_of(&biased).low),
                format_sig(test_of(&biased).high),
            )),
            "{}",
            biased.failed_words()
        );
        assert!(
            biased.sentence().contains("(90 %), p "),
            "{}",
            biased.sentence()
        );
        let wide = beside(wide);
        assert!(wide.pass && wide.failure_words().is_empty());
        let narrow = beside(narrow);
        assert!(narrow.pass && narrow.failure_words().is_empty());
        assert!(narrow.sentence().starts_with("The positive control at"));
        let json = narrow.json();
        assert_eq!(json["judged_against"], "in-process ring");
        assert_eq!(json["ring_test"]["failed"], false);
        assert_eq!(json["ring_test"]["interval"], 0.90);
        for key in [
            "value",
            "low",
            "high",
            "p",
            "p_raw",
            "half_width",
            "threshold",
        ] {
            assert!(json["ring_test"][key].is_number(), "{key}: {json}");
        }
    }

    fn test_of(p: &Positive) -> RingTest {
        match p.reference {
            Reference::Ring { test, .. } => test,
            Reference::E6 => panic!("judged against E6"),
        }
    }

    /// A positive control passes only where its interval excludes 0 and lies inside the band
    /// E6 gives (±25 %): the -27-5 Intel's ½ L2 control, 10.3 [-0.2–20.7] ns against
    /// 5.67–8.90, passed on its point estimate before.
    #[test]
    fn a_positive_control_must_be_resolved_and_in_its_band() {
        assert_eq!(
            positive_passes(&estimate(10.26, -0.20, 20.72), 5.67, 8.90),
            (false, false)
        );
        assert_eq!(
            positive_passes(&estimate(7.0, 5.5, 8.5), 5.67, 8.90),
            (true, true)
        );
        assert_eq!(
            positive_passes(&estimate(7.0, 3.0, 11.0), 5.67, 8.90),
            (true, false),
            "the point in the band, the interval reaching beyond it"
        );
        assert_eq!(
            positive_passes(&estimate(138.9, 122.7, 155.2), 141.8, 163.1),
            (true, true),
            "the memory control"
        );
    }
}
