//! Table layouts per CPU: each CPU's E12 ratios (variant over base) on the same pairs, side by
//! side.

use super::Entry;
use crate::experiments::e12_layouts::summary::{Ratio, Summary as E12};
use crate::report::table_markdown;
use crate::results::Table;

fn columns<'a>(entries: &[&'a Entry]) -> Vec<(&'a Entry, E12)> {
    entries
        .iter()
        .filter_map(|entry| {
            let summary = entry.results.experiment("E12")?.summary_as().ok()?;
            Some((*entry, summary))
        })
        .collect()
}

/// `×1.27 [1.23–1.32] slower`: the claim word only where the interval lies wholly beyond the
/// report's threshold and the cost is decided (`undecided` holds why it is not); an interval
/// that reaches inside the threshold gets no word, since the order is not stated.
fn cell(ratio: Option<&Ratio>, undecided: bool) -> String {
    match ratio {
        None => "—".into(),
        Some(r) => {
            let claim = match r.claim.as_str() {
                _ if undecided => " (not decided)",
                "faster" => " faster",
                "slower" => " slower",
                _ => "",
            };
            format!("{}{claim}", r.interval_text())
        }
    }
}

/// The Markdown section; empty where no current report has E12.
pub fn layouts(entries: &[&Entry]) -> String {
    let columns = columns(entries);
    if columns.is_empty() {
        return String::new();
    }
    let mut text = String::from(
        "\n## Table layouts, per CPU\n\nE12: each layout variant's time over its base's \
         (below 1: the variant is faster) with its 95 % interval, `faster` or `slower` where \
         the interval lies wholly beyond the report's threshold, no word where it does not (the \
         order is not stated), `(not decided)` where the cost's control failed, `(4 KiB)` where \
         the pair's lookups were read on 4 KiB pages because its tables and its base's did not \
         land alike on 2 MiB pages; `BASE@2m` is the base's tables on 2 MiB pages against 4 KiB. \
         Per pair: lookups (throughput, random-play) / the nnue search's ns per node; one \
         column per CPU.\n\n",
    );
    let mut pairs: Vec<String> = Vec::new();
    for (_, summary) in &columns {
        for pair in &summary.pairs {
            if !pairs.contains(&pair.variant) {
                pairs.push(pair.variant.clone());
            }
        }
    }
    let mut table = Table {
        headers: std::iter::once(String::new())
            .chain(columns.iter().map(|(e, _)| e.folder.clone()))
            .collect(),
        rows: vec![std::iter::once("CPU".to_string())
            .chain(
                columns
                    .iter()
                    .map(|(e, _)| e.results.machine.cpu_model.clone()),
            )
            .collect()],
    };
    for variant in &pairs {
        let row = columns.iter().map(|(_, s)| {
            s.pairs
                .iter()
                .find(|p| &p.variant == variant)
                .map_or("—".to_string(), |p| {
                    // The phase the lookups were read in; reports made before `phase` named
                    // it `lookup_pages` (now the pages the tables were on in that phase).
                    let phase = p.phase.as_deref().or(p.lookup_pages.as_deref());
                    let pages = if phase == Some("4k") && !p.variant.contains('@') {
                        " (4 KiB)"
                    } else {
                        ""
                    };
                    format!(
                        "{}{pages} / {}",
                        cell(p.lookup.as_ref(), p.undecided.contains_key("lookup")),
                        cell(p.nps.as_ref(), p.undecided.contains_key("nps")),
                    )
                })
        });
        let base = columns
            .iter()
            .find_map(|(_, s)| s.pairs.iter().find(|p| &p.variant == variant))
            .map_or(String::new(), |p| format!(" vs {} ({})", p.base, p.factor));
        table.rows.push(
            std::iter::once(format!("{variant}{base}"))
                .chain(row)
                .collect(),
        );
    }
    let verdicts = columns.iter().map(|(_, s)| s.verdict_line());
    table.rows.push(
        std::iter::once("verdict".to_string())
            .chain(verdicts)
            .collect(),
    );
    text.push_str(&table_markdown(&table));
    text
}
