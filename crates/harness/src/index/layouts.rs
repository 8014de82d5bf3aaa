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

/// `×1.27 [1.23–1.32] slower`: the interval with the pair's reading (`faster`, `slower`,
/// `level`, `not resolved`; `withheld` where `withheld`, a failed control or an unfair pair);
/// reports before the readings get the claim word only where it orders.
fn cell(ratio: Option<&Ratio>, withheld: bool) -> String {
    match ratio {
        None => "—".into(),
        Some(r) if withheld => format!("{} withheld", r.interval_text()),
        Some(r) => r.figure_text(true),
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
         (below 1: the variant is faster) with its interval (90 % since 2026-12-01, 95 % \
         before) and its reading at the report's threshold: `faster` or `slower` where the \
         interval lies wholly beyond it, `level` where wholly within, `not resolved` where it \
         reaches across, `withheld` where a control it is gated on failed or the pair cannot \
         be compared fairly; `(4 KiB)` where the pair's lookups were read on 4 KiB pages \
         because its tables and its base's did not land alike on 2 MiB pages; `BASE@2m` is \
         the base's tables on 2 MiB pages against 4 KiB. Per pair: lookups (throughput, \
         random-play) / the nnue search's ns per node; one column per CPU.\n\n",
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
