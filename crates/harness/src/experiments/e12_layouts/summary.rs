//! E12's summary as the index reads it: per pair, the three costs as variant over base.

use serde::Deserialize;
use std::collections::BTreeMap;

/// `{ratio, low, high, invocations, rounds, claim}`; `high` is null when unbounded.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Ratio {
    pub ratio: f64,
    pub low: f64,
    pub high: Option<f64>,
    pub invocations: usize,
    pub rounds: usize,
    pub claim: String,
    /// `faster`, `slower`, `level`, `unresolved` or `withdrawn`; absent in reports before the
    /// key, whose `level` claim covers level and unresolved alike.
    #[serde(default)]
    pub reading: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Pair {
    pub base: String,
    pub variant: String,
    pub factor: String,
    pub table_bytes: [u64; 2],
    pub lookup: Option<Ratio>,
    pub table_miss: Option<Ratio>,
    pub nps: Option<Ratio>,
    /// The other lookup modes and inputs (`latency random-play`, `throughput uniform-25`).
    #[serde(default)]
    pub lookup_by_mode: BTreeMap<String, Option<Ratio>>,
    /// Per cost (`lookup`, `table_miss`, `nps`), why it is not decided here; absent: decided.
    #[serde(default)]
    pub undecided: BTreeMap<String, String>,
    /// The page phase the lookups and table misses were read in (`4k` or `2m`); absent in
    /// reports before the key, whose `lookup_pages` named the phase.
    #[serde(default)]
    pub phase: Option<String>,
    /// The pages the variant side's tables were on in that phase (`4k` or `2m`: the control
    /// family's read `4k` in both); absent in reports before the key.
    #[serde(default)]
    pub lookup_pages: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Controls {
    pub passed: bool,
}

/// The pair the pre-set rule names and the cost it was decided by.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct MattersMost {
    pub variant: String,
    pub cost: String,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Summary {
    pub pairs: Vec<Pair>,
    pub controls: Controls,
    #[serde(default)]
    pub matters_most: Option<MattersMost>,
    /// The pre-set rule's answer in one sentence.
    pub verdict: String,
}

impl Summary {
    /// The verdict as the index prints it, from the summary's figures (not its stored
    /// sentence, so that every report reads alike): first the search, each layout variant's
    /// time per node over its base's (the figure a user of the search feels), saying which
    /// variants are decided there; then, labelled as the secondary figure, what lookups
    /// name as the layout factor that matters most, where the search names none; where some
    /// A/A control failed, that the costs it gates are not decided; and the named pair's other
    /// measures, which the verdict does not cover (a layout can be slower in throughput and
    /// faster in latency).
    pub fn verdict_line(&self) -> String {
        let mut line = search_headline(&self.search_figures());
        line.push('.');
        let named = self.matters_most.as_ref().and_then(|m| {
            let pair = self.pairs.iter().find(|p| p.variant == m.variant)?;
            Some((m, pair))
        });
        match named {
            Some((m, pair)) if m.cost == "nps" => line.push_str(&format!(
                " By the pre-set rule, the layout factor that matters most on this CPU, by the \
                 search, is {} (`{}` against `{}`).",
                pair.factor, pair.variant, pair.base
            )),
            Some((m, pair)) if m.cost == "lookup" => {
                let ratio = pair
                    .lookup
                    .as_ref()
                    .map_or("—".to_string(), |r| r.figure_text(true));
                line.push_str(&format!(
                    " {SECONDARY}: the layout factor that matters most in lookups is {} (`{}` \
                     against `{}`), lookups {ratio}.",
                    pair.factor, pair.variant, pair.base
                ));
            }
            _ => {
                let undecided = self
                    .pairs
                    .iter()
                    .filter(|p| p.factor != "pages")
                    .find_map(|p| p.undecided.get("lookup"));
                match undecided {
                    Some(why) => line.push_str(&format!(
                        " {SECONDARY}: not decided ({}), so no layout factor is named.",
                        why_text(why)
                    )),
                    None => line.push_str(&format!(
                        " {SECONDARY}: no layout variant is claimed beyond the threshold, so \
                         no layout factor is named."
                    )),
                }
            }
        }
        if !self.controls.passed {
            line.push_str(" (not every A/A control passed: the costs they gate are not decided)");
        }
        line.push_str(&self.scope());
        line
    }

    /// Every layout variant's search figure (page pairs, which compare one table on two page
    /// sizes, apart), in the summary's order.
    pub(super) fn search_figures(&self) -> Vec<SearchFigure> {
        self.pairs
            .iter()
            .filter(|p| p.factor != "pages")
            .map(|p| {
                SearchFigure::new(
                    &p.variant,
                    p.nps.as_ref(),
                    p.undecided.get("nps").map(String::as_str),
                )
            })
            .collect()
    }

    /// The layout variants whose search ratio is decided and claimed faster or slower
    /// (`pext.file-rank slower`), for telling two reports' outcomes apart.
    pub fn search_claims(&self) -> Vec<String> {
        self.pairs
            .iter()
            .filter(|p| p.factor != "pages" && !p.undecided.contains_key("nps"))
            .filter_map(|p| {
                let claim = p.nps.as_ref()?.claim.as_str();
                matches!(claim, "faster" | "slower").then(|| format!("{} {claim}", p.variant))
            })
            .collect()
    }

    /// ` The same pair's other measures, …: latency random-play ×0.94 [0.91–0.98], …`, or
    /// nothing where no pair is named; the search is not among them, since the line leads
    /// with it.
    fn scope(&self) -> String {
        let Some(named) = &self.matters_most else {
            return String::new();
        };
        let Some(pair) = self.pairs.iter().find(|p| p.variant == named.variant) else {
            return String::new();
        };
        let mut measures: Vec<String> = Vec::new();
        if named.cost == "lookup" {
            for (input, ratio) in &pair.lookup_by_mode {
                if let Some(r) = ratio {
                    measures.push(format!("lookups ({input}) {}", r.interval_text()));
                }
            }
        }
        let costs = [
            ("lookup", "lookups", &pair.lookup),
            ("table_miss", "table misses", &pair.table_miss),
        ];
        for (key, words, ratio) in costs {
            if let Some(r) = ratio.as_ref().filter(|_| key != named.cost) {
                let undecided = if pair.undecided.contains_key(key) {
                    ", not decided"
                } else {
                    ""
                };
                measures.push(format!("{words} {}{undecided}", r.interval_text()));
            }
        }
        if measures.is_empty() {
            return String::new();
        }
        format!(
            " Its other measures, which this verdict does not cover: {}.",
            measures.join("; ")
        )
    }
}

/// How the lookups' part of a verdict is labelled: the secondary figure, after the search.
pub(super) const SECONDARY: &str = "Secondary, by lookups (not the search)";

/// One layout variant's search figure as the headline names it: the variant, its ratio as
/// text, and why it is not decided, where it is not.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct SearchFigure {
    pub variant: String,
    pub figure: String,
    pub undecided: Option<String>,
}

impl SearchFigure {
    /// `ratio` with its claim or reading where the search is decided (`×1.00 [0.99–1.01]
    /// level`), the bare interval where it is not (`undecided` says why).
    pub fn new(variant: &str, ratio: Option<&Ratio>, undecided: Option<&str>) -> SearchFigure {
        SearchFigure {
            variant: variant.to_string(),
            figure: ratio.map_or("—".to_string(), |r| r.figure_text(undecided.is_none())),
            undecided: undecided.map(why_text),
        }
    }
}

/// `not decided: WHY` → `WHY`.
fn why_text(why: &str) -> String {
    why.strip_prefix("not decided: ").unwrap_or(why).to_string()
}

/// The headline of E12's verdict: each layout variant's search ratio (time per node, variant
/// over base), the decided ones first — `` `V` ×1.00 [0.99–1.01] level, the only decided
/// variant`` where one is — then the others, grouped by why they are not decided. No full
/// stop: the caller ends the sentence.
pub(super) fn search_headline(figures: &[SearchFigure]) -> String {
    let lead = "In the search (the nnue search's time per node, variant over base)";
    if figures.is_empty() {
        return format!("{lead}: no layout variant was timed");
    }
    let named = |f: &SearchFigure| format!("`{}` {}", f.variant, f.figure);
    let decided: Vec<String> = figures
        .iter()
        .filter(|f| f.undecided.is_none())
        .map(named)
        .collect();
    let mut reasons: Vec<&str> = Vec::new();
    for why in figures.iter().filter_map(|f| f.undecided.as_deref()) {
        if !reasons.contains(&why) {
            reasons.push(why);
        }
    }
    let mut parts: Vec<String> = Vec::new();
    match decided.len() {
        0 => {}
        // "Judged", not "decided": the gate passed, and the figure's own word (level,
        // unresolved, faster, slower) says what it shows (a referee on -11-29-8 read "every
        // variant decided: … unresolved" as a contradiction).
        1 => parts.push(format!(
            "{}, the only variant whose search is judged (its controls passed)",
            decided[0]
        )),
        _ if reasons.is_empty() => parts.push(format!(
            "the search's controls passed for every variant: {}",
            decided.join(", ")
        )),
        n => parts.push(format!(
            "the search's controls passed for {n} variants: {}",
            decided.join(", ")
        )),
    }
    for why in &reasons {
        let undecided: Vec<String> = figures
            .iter()
            .filter(|f| f.undecided.as_deref() == Some(*why))
            .map(named)
            .collect();
        if decided.is_empty() && reasons.len() == 1 {
            parts.push(format!(
                "no layout variant's search is judged ({why}): {}",
                undecided.join(", ")
            ));
        } else {
            parts.push(format!("not judged ({why}): {}", undecided.join(", ")));
        }
    }
    format!("{lead}: {}", parts.join("; "))
}

impl Ratio {
    /// `×1.02 [0.97–1.06]`.
    pub fn interval_text(&self) -> String {
        let high = self.high.map_or("∞".to_string(), |h| format!("{h:.2}"));
        format!("×{:.2} [{:.2}–{high}]", self.ratio, self.low)
    }

    /// `×1.27 [1.23–1.32] slower`: where `decided`, the interval with its claim (`faster`,
    /// `slower`) or else its reading (`level`, `unresolved`, `withdrawn`; none in reports
    /// before the key, whose `level` claim does not tell them apart); else the interval alone.
    pub fn figure_text(&self, decided: bool) -> String {
        let word = match (self.claim.as_str(), &self.reading) {
            _ if !decided => None,
            (claim @ ("faster" | "slower"), _) => Some(claim),
            (_, Some(reading)) => Some(reading.as_str()),
            _ => None,
        };
        match word {
            Some(word) => format!("{} {word}", self.interval_text()),
            None => self.interval_text(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(variant: &str, ratio: f64, undecided: Option<&str>) -> SearchFigure {
        let r = Ratio {
            ratio,
            low: ratio - 0.01,
            high: Some(ratio + 0.01),
            invocations: 5,
            rounds: 10,
            claim: "level".into(),
            reading: None,
        };
        SearchFigure::new(variant, Some(&r), undecided)
    }

    /// Several decided variants are listed as decided, with no reading word where the record
    /// has none (reports before `reading`, whose `level` claim may be unresolved).
    #[test]
    fn the_headline_lists_the_decided_variants_first() {
        let why = "not decided: on 2 MiB pages the two sides' tables did not land alike";
        let text = search_headline(&[
            figure("a.x", 1.0, Some(why)),
            figure("b.y", 0.99, None),
            figure("c.z", 1.02, None),
        ]);
        assert_eq!(
            text,
            "In the search (the nnue search's time per node, variant over base): the search's \
             controls passed for 2 variants: `b.y` ×0.99 [0.98–1.00], `c.z` ×1.02 [1.01–1.03]; not \
             judged (on 2 MiB pages the two sides' tables did not land alike): `a.x` ×1.00 [0.99–1.01]"
        );
        let every = search_headline(&[figure("b.y", 0.99, None), figure("c.z", 1.02, None)]);
        assert!(
            every.contains("): the search's controls passed for every variant: `b.y`"),
            "{every}"
        );
    }

    /// Where the search names the factor, the line says so after the search's figures and
    /// names no factor by lookups; the pair's lookups are among its other measures.
    #[test]
    fn a_factor_the_search_names_follows_its_figures() {
        let summary: Summary = serde_json::from_str(
            r#"{"pairs": [{"base": "magic", "variant": "magic.split-words",
                "factor": "word-split", "table_bytes": [1, 2],
                "lookup": {"ratio": 1.3, "low": 1.2, "high": 1.4, "invocations": 5,
                           "rounds": 10, "claim": "slower"},
                "table_miss": null,
                "nps": {"ratio": 1.1, "low": 1.05, "high": 1.15, "invocations": 5,
                        "rounds": 10, "claim": "slower", "reading": "slower"}}],
               "controls": {"passed": true},
               "matters_most": {"variant": "magic.split-words", "cost": "nps"},
               "verdict": "stored"}"#,
        )
        .unwrap();
        assert_eq!(
            summary.verdict_line(),
            "In the search (the nnue search's time per node, variant over base): \
             `magic.split-words` ×1.10 [1.05–1.15] slower, the only variant whose search is judged (its controls passed). By the \
             pre-set rule, the layout factor that matters most on this CPU, by the search, is \
             word-split (`magic.split-words` against `magic`). Its other measures, which this \
             verdict does not cover: lookups ×1.30 [1.20–1.40]."
        );
        assert_eq!(summary.search_claims(), ["magic.split-words slower"]);
    }
}
