//! E7's answer in one sentence, at the head of its findings: seed 004's verdict word,
//! magic-plain − dbb's table-miss cost with its interval, the resolution (its half-width), and
//! a failed ring-judged control's reading (its 90 % interval and p).

use super::estimate_json;
use super::positive::{Positive, Reference};
use super::ring_test::p_words;
use super::verdict::{Contender, Verdict};
use crate::experiments::e7_cache_pressure::summary::{SeedOutcome, SeedVerdict};
use crate::stats::{format_interval, format_sig};
use serde_json::{json, Value as Json};

/// The verdict as a verb phrase after "Seed 004's argument": the index's words where they are
/// one.
fn verb(outcome: SeedOutcome) -> &'static str {
    match outcome {
        SeedOutcome::NotMeasured => "is not measured",
        SeedOutcome::NotDecided => "is not decided here",
        SeedOutcome::Other => "is worded below",
        decided => decided.words(),
    }
}

/// The most words the answer may take.
const MOST_WORDS: usize = 40;

/// How much of a failed ring-judged control's reading the answer gives.
#[derive(Clone, Copy)]
enum Detail {
    /// `½ L2 control failed: 90 % [0.400–2.000] ns, p = 0.012`.
    Interval,
    /// `½ L2 control failed, p = 0.012`.
    P,
    /// Counted with the other failed controls.
    Count,
}

/// The parenthesis after the figure: the failed ring-judged controls' readings at `detail`,
/// the other failed controls counted, and an unplaced level named.
fn notes(verdict: &Verdict, controls: &[Positive], detail: Detail) -> String {
    let failed = &verdict.failed_controls;
    let ringed: Vec<String> = controls
        .iter()
        .filter(|p| !p.pass && failed.iter().any(|(name, _)| *name == p.label))
        .filter_map(|p| match (&p.reference, detail) {
            (Reference::Ring { test, .. }, Detail::Interval) if test.half_width.is_finite() => {
                Some(format!(
                    "{} control failed: 90 % [{}–{}] ns, {}",
                    p.label,
                    format_sig(test.low),
                    format_sig(test.high),
                    p_words(test.p)
                ))
            }
            (Reference::Ring { test, .. }, Detail::Interval | Detail::P) => {
                Some(format!("{} control failed, {}", p.label, p_words(test.p)))
            }
            _ => None,
        })
        .collect();
    let mut notes = ringed.clone();
    // "Half shown": the gap at the top pressure is shown, its growth with pressure is not.
    let growth = verdict
        .pairs
        .iter()
        .find(|p| p.contender == Contender::MagicPlain)
        .and_then(|p| p.difference_growth.as_ref());
    if let (SeedOutcome::HalfShown, Some(g)) =
        (SeedVerdict::from(verdict.text.clone()).outcome, growth)
    {
        notes.push(format!(
            "its growth with pressure {} ns not resolved",
            format_interval(g)
        ));
    }
    let others = failed.len().saturating_sub(ringed.len());
    if others > 0 {
        let plural = if others == 1 { "control" } else { "controls" };
        let other = if ringed.is_empty() { "" } else { " other" };
        notes.push(format!("{others}{other} {plural} failed"));
    }
    if let Some(level) = &verdict.unplaced {
        notes.push(format!("no {level} level characterised"));
    }
    if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join("; "))
    }
}

/// The answer (`Seed 004's argument holds: magic-plain − dbb table-miss cost 12.30 [10.10–14.50]
/// ns a lookup (95 %) at 512 pressure reads a node, ±2.200 ns.`) with its
/// [`notes`], in at most 40 words: past them a failed control's interval goes, then its p.
pub(in super::super) fn sentence(verdict: &Verdict, controls: &[Positive], top: u32) -> String {
    let outcome = SeedVerdict::from(verdict.text.clone()).outcome;
    // What the verdict reads: the difference bounded by its positive controls where they
    // bound it (the rule of bounds), else as measured.
    let bounded = verdict.bounded_difference();
    let Some(d) = bounded.or(verdict.difference()) else {
        return format!(
            "Seed 004's argument {}: E7 needs magic-plain and dbb, paired per round.",
            verb(outcome)
        );
    };
    let with = |detail| {
        format!(
            "Seed 004's argument {}: magic-plain − dbb table-miss cost {} ns a lookup (95 %{}) \
             at {top} pressure reads a node, ±{} ns{}.",
            verb(outcome),
            format_interval(d),
            bounded.map_or("", |_| ", bounded"),
            format_sig((d.high - d.low) / 2.0),
            notes(verdict, controls, detail)
        )
    };
    [Detail::Interval, Detail::P]
        .into_iter()
        .map(with)
        .find(|s| s.split_whitespace().count() <= MOST_WORDS)
        .unwrap_or_else(|| with(Detail::Count))
}

/// The summary's `answer`: the sentence, the verdict word, the figure as measured and as the
/// verdict reads it (bounded by its controls), and the half-width of what the verdict reads.
pub(super) fn summary(verdict: &Verdict, controls: &[Positive], top: u32) -> Json {
    let d = verdict.difference();
    let read = verdict.bounded_difference().or(d);
    json!({
        "sentence": sentence(verdict, controls, top),
        "verdict": verb(SeedVerdict::from(verdict.text.clone()).outcome),
        "magic_plain_minus_dbb_ns": d.map_or(Json::Null, estimate_json),
        "bounded_ns": verdict.bounded_difference().map_or(Json::Null, estimate_json),
        "half_width_ns": read.map_or(Json::Null, |d| json!((d.high - d.low) / 2.0)),
    })
}

#[cfg(test)]
mod tests {
    use super::super::positive::tests::control;
    use super::super::ring_test::{ring_tests, tests::means};
    use super::super::verdict::{Contender, Pair};
    use super::*;
    use crate::stats::Estimate;

    fn verdict(text: &str, failed: usize, unplaced: Option<&str>) -> Verdict {
        Verdict {
            pairs: vec![Pair {
                contender: Contender::MagicPlain,
                difference: Some(Estimate {
                    value: 12.3,
                    low: 10.1,
                    high: 14.5,
                }),
                bounded: None,
                difference_unpressed: None,
                difference_growth: None,
                unpressed: None,
                at_top: None,
                ratio_change: None,
                split: None,
            }],
            failed_controls: (0..failed)
                .map(|i| (format!("control {i}"), "why".to_string()))
                .collect(),
            unplaced: unplaced.map(str::to_string),
            bounds: Vec::new(),
            text: text.to_string(),
        }
    }

    /// The answer names the verdict, the figure with its interval and the half-width, in at
    /// most 40 words even with failed controls and an unplaced level beside it.
    #[test]
    fn the_answer_is_one_sentence_of_at_most_forty_words() {
        let holds = sentence(&verdict("holds here: …", 0, None), &[], 512);
        assert_eq!(
            holds,
            "Seed 004's argument holds: magic-plain − dbb table-miss cost 12.30 [10.10–14.50] \
             ns a lookup (95 %) at 512 pressure reads a node, ±2.200 ns."
        );
        let longest = [
            sentence(&verdict("is not decided here: …", 3, Some("L3")), &[], 512),
            sentence(
                &verdict("is not shown at this resolution: …", 0, Some("L3")),
                &[],
                512,
            ),
        ];
        for answer in &longest {
            assert!(answer.split_whitespace().count() <= 40, "{answer}");
            assert_eq!(answer.matches(". ").count(), 0, "one sentence: {answer}");
        }
        assert!(
            longest[0].starts_with("Seed 004's argument is not decided here: ")
                && longest[0].ends_with("(3 controls failed; no L3 level characterised)."),
            "{}",
            longest[0]
        );
        let json = summary(&verdict("holds here: …", 0, None), &[], 512);
        assert_eq!(json["verdict"], "holds");
        assert!(
            (json["half_width_ns"].as_f64().unwrap() - 2.2).abs() < 1e-9,
            "{json}"
        );
    }

    /// A ring-judged control that failed: its 90 % interval and adjusted p in the answer,
    /// only its p where an unplaced level and other failed controls leave no room, and only
    /// its count where even that is past 40 words.
    #[test]
    fn a_failed_ring_control_is_read_in_the_answer() {
        let test = ring_tests(&[(means(1.2, 0.3), 6.8)])[0];
        assert!(test.failed);
        let at_zero = Estimate {
            value: 7.0,
            low: 6.4,
            high: 7.6,
        };
        let mut control = control(at_zero);
        assert!(control.resolved && !control.pass);
        control.reference = Reference::Ring {
            ring: at_zero,
            difference: test.interval(),
            test,
        };
        let mut failed = verdict("is not decided here: …", 1, None);
        failed.failed_controls[0].0 = "½ L2".into();
        let answer = sentence(&failed, std::slice::from_ref(&control), 512);
        let interval = format!(
            "(½ L2 control failed: 90 % [{}–{}] ns, {}).",
            format_sig(test.low),
            format_sig(test.high),
            p_words(test.p)
        );
        assert!(answer.ends_with(&interval), "{answer}");
        assert!(answer.split_whitespace().count() <= MOST_WORDS, "{answer}");
        failed.unplaced = Some("L3".into());
        let answer = sentence(&failed, std::slice::from_ref(&control), 512);
        assert!(
            answer.ends_with(&format!(
                "(½ L2 control failed, {}; no L3 level characterised).",
                p_words(test.p)
            )) || answer.ends_with("(1 control failed; no L3 level characterised)."),
            "{answer}"
        );
        assert!(answer.split_whitespace().count() <= MOST_WORDS, "{answer}");
        failed
            .failed_controls
            .push(("mailbox".into(), "why".into()));
        let answer = sentence(&failed, std::slice::from_ref(&control), 512);
        assert!(answer.split_whitespace().count() <= MOST_WORDS, "{answer}");
        assert!(answer.contains("2 controls failed") || answer.contains("1 other control"));
    }
}
