//! E12's summary as the index reads it: per pair, the three costs as variant over base.

use serde::Deserialize;
use std::collections::BTreeMap;

/// `{ratio, low, high, invocations, rounds, claim, reading, half_width}`; `high` is null when
/// unbounded (in reports before the 90 % intervals).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Ratio {
    pub ratio: f64,
    pub low: f64,
    pub high: Option<f64>,
    pub invocations: usize,
    pub rounds: usize,
    pub claim: String,
    /// `faster`, `slower`, `level`, `not resolved` or `withheld` (`answers::Reading`); in
    /// reports before 2026-12-01 `unresolved` or `withdrawn`, and absent before the key, whose
    /// `level` claim covers level and unresolved alike.
    #[serde(default)]
    pub reading: Option<String>,
    /// The 90 % interval's half-width on the log scale (0.021: about ±2.1 %); absent in
    /// reports before 2026-12-01, whose intervals were 95 %.
    #[serde(default)]
    pub half_width: Option<f64>,
    /// The bounded interval's half-width on the log scale (the rule of bounds: its own
    /// half-width plus what its controls leave unexcluded), the run's resolution of the ratio;
    /// absent before 2026-12-02's rule of bounds, where `half_width` is that resolution.
    #[serde(default)]
    pub resolution: Option<f64>,
    /// The threshold T it was read at (0.03), which sets how many digits a bound is printed
    /// with ([`beside_edges`]); absent in reports before 2026-12-02 (two decimals).
    #[serde(default)]
    pub threshold: Option<f64>,
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
    /// Per cost (`lookup`, `table_miss`, `nps`), why its reading is withheld (a failed control,
    /// named, or a pair the run cannot compare fairly); absent: read.
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
    /// sentence, so that every report reads alike): first the search's answer (each layout
    /// variant's reading, ratio and interval, and the half-widths); then, labelled as the
    /// secondary figure, what lookups name as the layout factor that matters most, where the
    /// search names none; where some control failed, that the readings it gates are withheld;
    /// and the named pair's other measures, which the verdict does not cover (a layout can be
    /// slower in throughput and faster in latency).
    pub fn verdict_line(&self) -> String {
        let mut line = search_headline(&self.search_figures());
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
                let withheld = self
                    .pairs
                    .iter()
                    .filter(|p| p.factor != "pages")
                    .find_map(|p| p.undecided.get("lookup"));
                match withheld {
                    Some(why) => line.push_str(&format!(
                        " {SECONDARY}: withheld ({}), so no layout factor is named.",
                        why_text(why)
                    )),
                    None => line.push_str(&format!(
                        " {SECONDARY}: no layout variant reads faster or slower beyond the \
                         threshold, so no layout factor is named."
                    )),
                }
            }
        }
        if !self.controls.passed {
            line.push_str(&self.withheld_words());
        }
        line.push_str(&self.scope());
        line
    }

    /// ` Withheld: the search of `a@2m`, `b@2m` (why); …`: each failed control's reason with
    /// the readings it withholds, named; without named readings (older reports), that the
    /// readings a failed control gates are withheld.
    fn withheld_words(&self) -> String {
        // Per reason, per cost, the variants it withholds.
        type Named<'a> = Vec<(&'a str, Vec<&'a str>)>;
        let mut groups: Vec<(String, Named)> = Vec::new();
        for pair in &self.pairs {
            // A null contrast (the phase order's own control) is not read by design.
            let withheld = pair
                .undecided
                .iter()
                .filter(|(_, why)| !why.starts_with("a null contrast"));
            for (cost, why) in withheld {
                let why = why_text(why);
                let at = match groups.iter().position(|(w, _)| *w == why) {
                    Some(at) => at,
                    None => {
                        groups.push((why, Vec::new()));
                        groups.len() - 1
                    }
                };
                let costs = &mut groups[at].1;
                let cost = cost_words(cost);
                match costs.iter_mut().find(|(c, _)| *c == cost) {
                    Some((_, names)) => names.push(&pair.variant),
                    None => costs.push((cost, vec![&pair.variant])),
                }
            }
        }
        if groups.is_empty() {
            return " (a control failed: the readings it gates are withheld)".to_string();
        }
        let parts: Vec<String> = groups
            .iter()
            .map(|(why, costs)| {
                let named: Vec<String> = costs
                    .iter()
                    .map(|(cost, names)| {
                        let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
                        format!("the {cost} of {}", names.join(", "))
                    })
                    .collect();
                format!("{} ({why})", named.join("; "))
            })
            .collect();
        format!(" Withheld: {}.", parts.join("; "))
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

    /// The layout variants whose search reads faster or slower (`pext.file-rank slower`), for
    /// telling two reports' outcomes apart.
    pub fn search_claims(&self) -> Vec<String> {
        self.search_figures()
            .into_iter()
            .filter(|f| matches!(f.word.as_str(), "faster" | "slower"))
            .map(|f| format!("{} {}", f.variant, f.word))
            .collect()
    }

    /// ` Its other measures, …: lookups (latency random-play) ×0.94 [0.91–0.98], …`, or
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
                let withheld = if pair.undecided.contains_key(key) {
                    ", withheld"
                } else {
                    ""
                };
                measures.push(format!("{words} {}{withheld}", r.interval_text()));
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

/// One layout variant's search figure as the answer names it: the variant, its reading's
/// words, its ratio and interval, and its half-width (none where withheld).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct SearchFigure {
    pub variant: String,
    pub word: String,
    pub figure: String,
    pub half_width: Option<f64>,
}

impl SearchFigure {
    /// `withheld` where `withheld` gives a reason; else the ratio's reading (older reports'
    /// `unresolved` read as `not resolved`, `withdrawn` as `withheld`; without a reading, the
    /// claim where it orders, else `not resolved`, since a `level` claim then covered both).
    pub fn new(variant: &str, ratio: Option<&Ratio>, withheld: Option<&str>) -> SearchFigure {
        let word = match ratio.and_then(|r| r.reading.as_deref()) {
            _ if withheld.is_some() => "withheld",
            Some("unresolved") => "not resolved",
            Some("withdrawn") => "withheld",
            Some(reading) => reading,
            None => ratio
                .map(|r| r.claim.as_str())
                .filter(|claim| matches!(*claim, "faster" | "slower"))
                .unwrap_or("not resolved"),
        };
        SearchFigure {
            variant: variant.to_string(),
            word: word.to_string(),
            figure: ratio.map_or("—".to_string(), Ratio::interval_text),
            half_width: ratio
                .filter(|_| word != "withheld")
                .and_then(Ratio::log_half_width),
        }
    }
}

/// A cost's key (`lookup`, `table_miss`, `nps`) as the headline names it.
fn cost_words(cost: &str) -> &str {
    match cost {
        "lookup" => "lookups",
        "table_miss" => "table misses",
        "nps" => "search",
        other => other,
    }
}

/// `not decided: WHY` (reports before 2026-12-01) → `WHY`.
fn why_text(why: &str) -> String {
    why.strip_prefix("not decided: ").unwrap_or(why).to_string()
}

/// The most words E12's answer may take.
pub(super) const ANSWER_WORDS: usize = 40;

/// E12's answer in one sentence of at most [`ANSWER_WORDS`] words: per reading word, the
/// layout variants with their search ratio and 90 % interval (variant over base), then the
/// half-widths — `` Search ns/node, variant/base (90 %): level `a` ×1.00 [0.98–1.02]; not
/// resolved `b` ×1.04 [0.99–1.09]; half-widths ±1.9–2.4 %.`` Where that runs long, the
/// intervals go (the findings give them), then the ratios.
pub(super) fn search_headline(figures: &[SearchFigure]) -> String {
    let lead = "Search ns/node, variant/base (90 %):";
    if figures.is_empty() {
        return format!("{lead} no layout variant was timed.");
    }
    let spans: Vec<f64> = figures.iter().filter_map(|f| f.half_width).collect();
    let percent = |x: Option<f64>| x.map(|x| format!("{:.1}", x * 100.0));
    let low = percent(spans.iter().copied().reduce(f64::min));
    let high = percent(spans.iter().copied().reduce(f64::max));
    let tail = match (low, high) {
        (Some(low), Some(high)) if low != high => format!("; half-widths ±{low}–{high} %."),
        (Some(low), _) => format!("; half-width ±{low} %."),
        _ => ".".to_string(),
    };
    let detail = [Detail::Interval, Detail::Ratio, Detail::Name];
    let mut sentence = String::new();
    for detail in detail {
        sentence = format!("{lead} {}{tail}", grouped(figures, detail));
        if sentence.split_whitespace().count() <= ANSWER_WORDS {
            break;
        }
    }
    sentence
}

/// How much of a figure the answer names.
#[derive(Clone, Copy, PartialEq)]
enum Detail {
    Interval,
    Ratio,
    Name,
}

/// `level `a` ×1.00 [0.98–1.02], `c` …; not resolved `b` …`: the figures grouped by their
/// reading.
fn grouped(figures: &[SearchFigure], detail: Detail) -> String {
    // The words in a fixed order, so that two reports read alike; any other word after.
    let mut words: Vec<&str> = vec!["faster", "slower", "level", "not resolved", "withheld"];
    for f in figures {
        if !words.contains(&f.word.as_str()) {
            words.push(&f.word);
        }
    }
    words.retain(|word| figures.iter().any(|f| f.word == *word));
    let named = |f: &SearchFigure| match detail {
        Detail::Interval => format!("`{}` {}", f.variant, f.figure),
        Detail::Ratio => format!(
            "`{}` {}",
            f.variant,
            f.figure.split(' ').next().unwrap_or("—")
        ),
        Detail::Name => format!("`{}`", f.variant),
    };
    words
        .iter()
        .map(|word| {
            let members: Vec<String> = figures
                .iter()
                .filter(|f| f.word == *word)
                .map(named)
                .collect();
            format!("{word} {}", members.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The most decimals [`beside_edges`] prints.
pub(super) const MAX_DECIMALS: usize = 6;

/// `value` to `decimals` places, or to more (up to [`MAX_DECIMALS`]) where at `decimals` it
/// would print as one of `edges` does: printed apart from each edge at the same places, it lies
/// on the side of the edge it reads on, so a reader can tell (0.9706 below 1 / 1.03 = 0.970874,
/// where 0.97 could be either side).
pub(super) fn beside_edges(value: f64, decimals: usize, edges: &[f64]) -> String {
    let text = |x: f64, d: usize| format!("{x:.d$}");
    let places = (decimals..=MAX_DECIMALS.max(decimals))
        .find(|&d| edges.iter().all(|&edge| text(value, d) != text(edge, d)))
        .unwrap_or(MAX_DECIMALS.max(decimals));
    text(value, places)
}

/// A ratio's reading edges at ±ln(1 + T): 1 / (1 + T) (faster below) and 1 + T (slower above).
pub(super) fn ratio_edges(threshold: f64) -> [f64; 2] {
    [1.0 / (1.0 + threshold), 1.0 + threshold]
}

/// An edge to [`MAX_DECIMALS`] places, trailing zeros dropped (`0.970874`, `1.03`).
pub(super) fn edge_text(edge: f64) -> String {
    let text = format!("{edge:.MAX_DECIMALS$}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl Ratio {
    /// `×1.02 [0.97–1.06]`, the ratio or a bound to more places where it would print as a
    /// reading edge does (in reports that record the threshold): `×1.031`, not `×1.03` beside
    /// a ±3 % threshold.
    pub fn interval_text(&self) -> String {
        let edges = self
            .threshold
            .map_or(Vec::new(), |t| ratio_edges(t).to_vec());
        let bound = |x: f64| beside_edges(x, 2, &edges);
        let high = self.high.map_or("∞".to_string(), bound);
        format!("×{} [{}–{high}]", bound(self.ratio), bound(self.low))
    }

    /// The half-width on the log scale: as recorded, else half the log of high over low.
    pub fn log_half_width(&self) -> Option<f64> {
        self.resolution.or(self.half_width).or_else(|| {
            let high = self.high?;
            (self.low > 0.0 && high > 0.0).then(|| (high / self.low).ln() / 2.0)
        })
    }

    /// `×1.27 [1.23–1.32] slower`: where `judged`, the interval with its reading (`faster`,
    /// `slower`, `level`, `not resolved`; in reports before the key, the claim where it
    /// orders); else the interval alone.
    pub fn figure_text(&self, judged: bool) -> String {
        let word = match (self.claim.as_str(), &self.reading) {
            _ if !judged => None,
            (_, Some(reading)) => Some(reading.as_str()),
            (claim @ ("faster" | "slower"), None) => Some(claim),
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

    fn ratio(ratio: f64, reading: Option<&str>) -> Ratio {
        Ratio {
            ratio,
            low: ratio - 0.01,
            high: Some(ratio + 0.01),
            invocations: 5,
            rounds: 10,
            claim: "level".into(),
            reading: reading.map(str::to_string),
            half_width: None,
            resolution: None,
            threshold: None,
        }
    }

    /// The answer groups the variants by reading in a fixed order, older reports' words read
    /// in today's (`unresolved` as `not resolved`), a withheld variant has no half-width, and
    /// the half-widths are derived from the bounds where the record has none.
    #[test]
    fn the_answer_groups_by_reading_in_a_fixed_order() {
        let why = "on 2 MiB pages the two sides' tables did not land alike";
        let figures = [
            SearchFigure::new("a.x", Some(&ratio(1.0, Some("level"))), Some(why)),
            SearchFigure::new("b.y", Some(&ratio(1.05, Some("unresolved"))), None),
            SearchFigure::new("c.z", Some(&ratio(0.99, Some("level"))), None),
        ];
        assert_eq!(
            search_headline(&figures),
            "Search ns/node, variant/base (90 %): level `c.z` ×0.99 [0.98–1.00]; not resolved \
             `b.y` ×1.05 [1.04–1.06]; withheld `a.x` ×1.00 [0.99–1.01]; half-width ±1.0 %."
        );
        assert_eq!(figures[0].half_width, None);
    }

    /// Past 40 words the intervals go, then the ratios.
    #[test]
    fn a_long_answer_drops_its_intervals_first() {
        let many: Vec<SearchFigure> = (0..12)
            .map(|i| SearchFigure::new(&format!("v{i}"), Some(&ratio(1.0, Some("level"))), None))
            .collect();
        let text = search_headline(&many);
        assert!(text.split_whitespace().count() <= ANSWER_WORDS, "{text}");
        assert!(
            text.contains("`v0` ×1.00, `v1` ×1.00") && !text.contains('['),
            "{text}"
        );
    }

    /// Where the search names the factor, the line says so after the answer; the pair's
    /// lookups are among its other measures; a reading of faster or slower is a claim.
    #[test]
    fn a_factor_the_search_names_follows_its_figures() {
        let summary: Summary = serde_json::from_str(
            r#"{"pairs": [{"base": "magic", "variant": "magic.split-words",
                "factor": "word-split", "table_bytes": [1, 2],
                "lookup": {"ratio": 1.3, "low": 1.2, "high": 1.4, "invocations": 5,
                           "rounds": 10, "claim": "slower"},
                "table_miss": null,
                "nps": {"ratio": 1.1, "low": 1.05, "high": 1.15, "invocations": 5,
                        "rounds": 10, "claim": "slower", "reading": "slower",
                        "half_width": 0.045}}],
               "controls": {"passed": true},
               "matters_most": {"variant": "magic.split-words", "cost": "nps"},
               "verdict": "stored"}"#,
        )
        .unwrap();
        assert_eq!(
            summary.verdict_line(),
            "Search ns/node, variant/base (90 %): slower `magic.split-words` ×1.10 \
             [1.05–1.15]; half-width ±4.5 %. By the pre-set rule, the layout factor that \
             matters most on this CPU, by the search, is word-split (`magic.split-words` \
             against `magic`). Its other measures, which this verdict does not cover: lookups \
             ×1.30 [1.20–1.40]."
        );
        assert_eq!(summary.search_claims(), ["magic.split-words slower"]);
    }
    /// At ±3 % the edges are 1 / 1.03 = 0.970874 and 1.03: a bound that prints as an edge
    /// does at two places gets the places that tell it from the edge (its side shows), any
    /// other keeps two; a record without its threshold (reports before 2026-12-02) keeps two.
    #[test]
    fn a_bound_near_an_edge_gets_the_digits_that_tell_its_side() {
        let edges = ratio_edges(0.03);
        let cases = [
            (0.9705, "0.9705"),   // below 0.970874: faster's side
            (0.97095, "0.97095"), // above it, by 0.00008
            (0.9749, "0.975"),    // 0.97 would print as the edge
            (1.0296, "1.0296"),   // inside, 1.03 would not say so
            (1.0304, "1.0304"),   // beyond
            (1.026, "1.026"),
            (0.99, "0.99"),
            (1.0, "1.00"),
        ];
        for (value, text) in cases {
            assert_eq!(beside_edges(value, 2, &edges), text, "{value}");
        }
        // Three places where asked for (the controls), more where the third would tie.
        assert_eq!(beside_edges(0.9709, 3, &edges), "0.97090");
        assert_eq!(beside_edges(0.922, 3, &edges), "0.922");
        assert_eq!(edge_text(edges[0]), "0.970874");
        assert_eq!(edge_text(edges[1]), "1.03");
        let mut r = ratio(1.02, Some("level"));
        r.high = Some(1.0297);
        assert_eq!(r.interval_text(), "×1.02 [1.01–1.03]");
        r.threshold = Some(0.03);
        assert_eq!(r.interval_text(), "×1.02 [1.01–1.0297]");
    }
}
