//! E7's answer in one sentence, at the head of its findings: seed 004's verdict word,
//! magic-plain − dbb's table-miss cost with its interval, and the resolution (its half-width).

use super::estimate_json;
use super::verdict::Verdict;
use crate::experiments::e7_cache_pressure::summary::{SeedOutcome, SeedVerdict};
use crate::stats::{format_interval, format_sig};
use serde_json::{json, Value as Json};

/// The verdict as a verb phrase after "Seed 004's argument".
fn verb(outcome: SeedOutcome) -> &'static str {
    match outcome {
        SeedOutcome::Holds => "holds",
        SeedOutcome::HoldsInPart => "holds only in part",
        SeedOutcome::HalfShown => "is only half shown",
        SeedOutcome::NotShown => "is not shown at this resolution",
        SeedOutcome::DoesNotHold => "does not hold",
        SeedOutcome::NotMeasured => "is not measured",
        SeedOutcome::NotDecided => "is not decided here",
        SeedOutcome::Other => "is worded below",
    }
}

/// The answer: `Seed 004's argument holds: magic-plain − dbb table-miss cost 12.30
/// [10.10–14.50] ns per lookup (95 %) after 512 pressure reads per node, resolved to ±2.200
/// ns.`, with the failed controls counted and an unplaced level named (at most 40 words).
pub(in super::super) fn sentence(verdict: &Verdict, top: u32) -> String {
    let outcome = SeedVerdict::from(verdict.text.clone()).outcome;
    let Some(d) = verdict.difference() else {
        return format!(
            "Seed 004's argument {}: E7 needs magic-plain and dbb, paired per round.",
            verb(outcome)
        );
    };
    let failed = verdict.failed_controls.len();
    let mut notes: Vec<String> = Vec::new();
    if failed > 0 {
        let plural = if failed == 1 { "control" } else { "controls" };
        notes.push(format!("{failed} {plural} failed"));
    }
    if let Some(level) = &verdict.unplaced {
        notes.push(format!("no {level} level characterised here"));
    }
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join("; "))
    };
    format!(
        "Seed 004's argument {}: magic-plain − dbb table-miss cost {} ns per lookup (95 %) \
         after {top} pressure reads per node, resolved to ±{} ns{notes}.",
        verb(outcome),
        format_interval(d),
        format_sig((d.high - d.low) / 2.0)
    )
}

/// The summary's `answer`: the sentence, the verdict word, the figure and its half-width.
pub(super) fn summary(verdict: &Verdict, top: u32) -> Json {
    let d = verdict.difference();
    json!({
        "sentence": sentence(verdict, top),
        "verdict": verb(SeedVerdict::from(verdict.text.clone()).outcome),
        "magic_plain_minus_dbb_ns": d.map_or(Json::Null, estimate_json),
        "half_width_ns": d.map_or(Json::Null, |d| json!((d.high - d.low) / 2.0)),
    })
}

#[cfg(test)]
mod tests {
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
            text: text.to_string(),
        }
    }

    /// The answer names the verdict, the figure with its interval and the half-width, in at
    /// most 40 words even with failed controls and an unplaced level beside it.
    #[test]
    fn the_answer_is_one_sentence_of_at_most_forty_words() {
        let holds = sentence(&verdict("holds here: …", 0, None), 512);
        assert_eq!(
            holds,
            "Seed 004's argument holds: magic-plain − dbb table-miss cost 12.30 [10.10–14.50] \
             ns per lookup (95 %) after 512 pressure reads per node, resolved to ±2.200 ns."
        );
        let longest = [
            sentence(&verdict("is not decided here: …", 3, Some("L3")), 512),
            sentence(
                &verdict("is not shown at this resolution: …", 0, Some("L3")),
                512,
            ),
        ];
        for answer in &longest {
            assert!(answer.split_whitespace().count() <= 40, "{answer}");
            assert_eq!(answer.matches(". ").count(), 0, "one sentence: {answer}");
        }
        assert!(
            longest[0].starts_with("Seed 004's argument is not decided here: ")
                && longest[0].ends_with("(3 controls failed; no L3 level characterised here)."),
            "{}",
            longest[0]
        );
        let json = summary(&verdict("holds here: …", 0, None), 512);
        assert_eq!(json["verdict"], "holds");
        assert!(
            (json["half_width_ns"].as_f64().unwrap() - 2.2).abs() < 1e-9,
            "{json}"
        );
    }
}
