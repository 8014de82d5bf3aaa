//! E5's analysis: series, the table, the plot and each stepper's time relative to sqww.

use super::measure::Measurement;
use crate::effects_timing::Samples;
use crate::experiments::claims::Claims;
use crate::experiments::{interval, interval_point, ranked, series, typical};
use crate::results::PairRecord;
use crate::results::{Plot, PlotKind, PlotLine, Series, Table};
use crate::stats::{format_interval, Comparison};
use serde_json::Value as Json;

/// E5's series, tables, plots and summary, and the numbers the findings quote.
pub(super) struct Analysis {
    pub series: Vec<Series>,
    pub tables: Vec<Table>,
    pub plots: Vec<Plot>,
    pub summary: Vec<(String, Json)>,
    pub numbers: Numbers,
    /// Every stepper against sqww, for `results.json`.
    pub comparisons: Vec<PairRecord>,
}

/// What the findings paragraph quotes.
pub(super) struct Numbers {
    /// The fastest stepper and its median ns per make + unmake.
    pub fastest: Option<(&'static str, f64)>,
    /// Every other stepper's time relative to sqww, paired per round, with its claim.
    pub to_sqww: Vec<(&'static str, Comparison)>,
    /// Seed 001's two comparisons: the distance check and the padded mailbox against sqww.
    pub distance: Option<Comparison>,
    pub mailbox: Option<Comparison>,
    /// The threshold the claims were made at.
    pub threshold: f64,
}

/// Turns E5's measurement into series, tables, plots and numbers.
pub(super) fn analyse(m: &Measurement) -> Analysis {
    let results = &m.results;
    let series = results
        .iter()
        .map(|r| {
            series(
                &[("stepper", r.name), ("layout", r.layout)],
                "ns/make+unmake",
                r.ns_per_update.clone(),
            )
        })
        .collect();
    let entries: Vec<(&str, f64)> = results
        .iter()
        .map(|r| (r.name, typical(&r.ns_per_update, m.invocations)))
        .collect();
    let fastest = ranked(&entries).first().copied();
    let summary = fastest
        .map(|(best, _)| ("fastest".to_string(), Json::from(best)))
        .into_iter()
        .collect();
    let mut claims = Claims::new(m.threshold, m.invocations);
    let to_sqww: Vec<(&'static str, Comparison)> = results
        .iter()
        .filter(|r| r.name != "sqww")
        .filter_map(|r| Some((r.name, against_sqww(m, r, &mut claims)?)))
        .collect();
    let of = |name: &str| to_sqww.iter().find(|(n, _)| *n == name).map(|(_, c)| *c);
    let numbers = Numbers {
        fastest,
        distance: of("distance"),
        mailbox: of("mailbox"),
        to_sqww: to_sqww.clone(),
        threshold: m.threshold,
    };
    Analysis {
        series,
        tables: vec![table(m, &to_sqww)],
        plots: vec![plot(m)],
        summary,
        numbers,
        comparisons: claims.records,
    }
}

/// `r`'s time over sqww's, paired per round, recorded in `claims` (`None` without sqww).
fn against_sqww(m: &Measurement, r: &Samples, claims: &mut Claims) -> Option<Comparison> {
    let sqww = m.results.iter().find(|r| r.name == "sqww")?;
    claims.compare(
        "make+unmake",
        (r.name, &r.ns_per_update),
        ("sqww", &sqww.ns_per_update),
    )
}

/// A row per stepper: ns per make + unmake, the ratio to sqww, the layout.
fn table(m: &Measurement, to_sqww: &[(&'static str, Comparison)]) -> Table {
    Table {
        headers: vec![
            "stepper".to_string(),
            "ns per make+unmake".to_string(),
            "× sqww".to_string(),
            "layout".to_string(),
        ],
        rows: m
            .results
            .iter()
            .map(|r| {
                vec![
                    r.name.to_string(),
                    format_interval(&interval(&r.ns_per_update, m.invocations)),
                    to_sqww
                        .iter()
                        .find(|(name, _)| *name == r.name)
                        .map_or("–".to_string(), |(_, c)| {
                            format!("{:.3} [{:.3}–{:.3}]", c.ratio, c.low, c.high)
                        }),
                    r.layout.to_string(),
                ]
            })
            .collect(),
    }
}

fn plot(m: &Measurement) -> Plot {
    Plot {
        file_stem: "e5-effects".to_string(),
        title: "E5 effect boards: ns per make + unmake".to_string(),
        x_label: "ray stepper".to_string(),
        y_label: "ns per make + unmake (lower is better)".to_string(),
        log_x: false,
        log_y: false,
        kind: PlotKind::Bar,
        categories: vec!["make + unmake".to_string()],
        markers: Vec::new(),
        lines: m
            .results
            .iter()
            .map(|r| PlotLine {
                name: r.name.to_string(),
                points: vec![interval_point(
                    0.0,
                    &interval(&r.ns_per_update, m.invocations),
                )],
            })
            .collect(),
    }
}
