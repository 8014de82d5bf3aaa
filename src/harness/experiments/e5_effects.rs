//! E5: incremental effect boards (seed 001) — ns per make + unmake per ray stepper (padded
//! mailbox, SquareWithWall, the distance check, qugiy bitboards), every stepper first proved
//! equal to a from-scratch recount after every make and unmake.

use super::{and_list, point, ranked, series, summarise, Config, Progress};
use crate::harness::effects_timing::{clock_name, measure, verify_all, workload, Samples, NAMES};
use crate::harness::results::{ExperimentResult, Plot, PlotKind, PlotLine, Table};
use crate::harness::stats::{format_spread, ratio, Summary};
use serde_json::Value as Json;

pub const TITLE: &str = "Effect boards: ray steppers";

pub fn run(config: &Config, progress: Progress<'_>) -> ExperimentResult {
    let seed = config.seed ^ 0xE5;
    let moves = config.pick(400, 20_000, 100_000);
    let samples = config.pick(3, 9, 15);
    progress("generating games", 0.0);
    let outcome = workload(moves, seed).and_then(|w| {
        progress("verifying against a from-scratch recount", 0.2);
        let verified = verify_all(&w)?;
        progress("timing make + unmake", 0.5);
        let results = measure(&w, samples)?;
        Ok((w.games.len(), verified.comparisons, results))
    });
    progress("done", 1.0);
    match outcome {
        Ok((games, comparisons, results)) => {
            build(config, moves, samples, games, comparisons, &results, None)
        }
        Err(why) => build(config, moves, samples, 0, 0, &[], Some(why)),
    }
}

fn build(
    config: &Config,
    moves: usize,
    samples: usize,
    games: usize,
    comparisons: usize,
    results: &[Samples],
    error: Option<String>,
) -> ExperimentResult {
    let find = |name: &str| results.iter().find(|r| r.name == name);
    let series_out = results
        .iter()
        .map(|r| {
            series(
                &[("stepper", r.name), ("layout", r.layout)],
                "ns/make+unmake",
                r.ns_per_update.clone(),
            )
        })
        .collect();
    let sqww = find("sqww");
    let to_sqww =
        |r: &Samples| -> Option<Summary> { ratio(&r.ns_per_update, &sqww?.ns_per_update) };
    let table_rows = results
        .iter()
        .map(|r| {
            vec![
                r.name.to_string(),
                format_spread(&summarise(&r.ns_per_update)),
                to_sqww(r).map_or("–".to_string(), |s| format_spread(&s)),
                r.layout.to_string(),
            ]
        })
        .collect();
    let plot = Plot {
        file_stem: "e5-effects".to_string(),
        title: "E5 effect boards: ns per make + unmake".to_string(),
        x_label: "ray stepper".to_string(),
        y_label: "ns per make + unmake (lower is better)".to_string(),
        log_x: false,
        log_y: false,
        kind: PlotKind::Bar,
        categories: vec!["make + unmake".to_string()],
        markers: Vec::new(),
        lines: results
            .iter()
            .map(|r| PlotLine {
                name: r.name.to_string(),
                points: vec![point(0.0, &summarise(&r.ns_per_update))],
            })
            .collect(),
    };
    let mut findings = Vec::new();
    let mut summary = Vec::new();
    let entries: Vec<(&str, f64)> = results
        .iter()
        .map(|r| (r.name, summarise(&r.ns_per_update).median))
        .collect();
    let order = ranked(&entries);
    if let Some(&(best, best_ns)) = order.first() {
        findings.push(format!(
            "{best} is fastest at {best_ns:.1} ns per make + unmake."
        ));
        summary.push(("fastest".to_string(), Json::from(best)));
    }
    let ratios: Vec<String> = results
        .iter()
        .filter(|r| r.name != "sqww")
        .filter_map(|r| {
            let s = to_sqww(r)?;
            Some(format!(
                "{} ×{:.2} ({:.2}–{:.2})",
                r.name, s.median, s.min, s.max
            ))
        })
        .collect();
    if !ratios.is_empty() {
        findings.push(format!(
            "Time relative to sqww, paired per round: {}.",
            and_list(&ratios)
        ));
    }
    // Seed 001's claims: SquareWithWall's one-AND off-board test beats the distance check it
    // replaces, and keeps the plain 81-square board competitive with a wall-padded mailbox.
    let verdict = |name: &str, holds: &str, fails: &str| -> Option<String> {
        let s = to_sqww(find(name)?)?;
        Some(if s.min > 1.0 {
            format!("{holds} in every round (×{:.2} at the median)", s.median)
        } else if s.max < 1.0 {
            format!("{fails} in every round (×{:.2})", s.median)
        } else if s.median > 1.0 {
            format!(
                "{holds} at the median (×{:.2}) but not in every round",
                s.median
            )
        } else {
            format!("{fails} at the median (×{:.2})", s.median)
        })
    };
    if let Some(text) = verdict(
        "distance",
        "holds: the distance check is slower than sqww",
        "does not hold: the distance check is not slower than sqww",
    ) {
        findings.push(format!(
            "Seed 001's claim that SquareWithWall beats the dist() check it replaces {text}."
        ));
    }
    if let Some(text) = verdict(
        "mailbox",
        "sqww is faster than the padded mailbox",
        "the padded mailbox is at least as fast as sqww",
    ) {
        findings.push(format!(
            "Against the wall-padded 11×11 mailbox (no off-board test at all), {text}."
        ));
    }
    match &error {
        None => findings.push(format!(
            "All {} steppers matched a from-scratch recount in all {comparisons} comparisons \
             (after every make and unmake).",
            results.len()
        )),
        Some(why) => findings.push(format!("Not measured: {why}.")),
    }
    let method = format!(
        "{moves} moves of seeded random games ({games} games from {} rotating starts, seed \
         {:#x}, a capture half the time when one exists), replayed as make on every move then \
         unmake in reverse by each of {} (`harness::effects_timing`, the code behind `kiki effects`). \
         Every stepper is first verified against a from-scratch recount after every make and \
         unmake. {samples} samples after one warm-up round, steppers interleaved round-robin, \
         each sample one full replay, timed on {}; cells: median (min–max) ns per make + \
         unmake; ratios to sqww paired per round.",
        crate::harness::effects_timing::STARTS.len(),
        config.seed ^ 0xE5,
        and_list(&NAMES.iter().map(|s| s.to_string()).collect::<Vec<_>>()),
        clock_name(),
    );
    ExperimentResult {
        wall_seconds: None,
        comparisons: Vec::new(),
        id: "E5".to_string(),
        title: TITLE.to_string(),
        method,
        series: series_out,
        tables: vec![Table {
            headers: vec![
                "stepper".to_string(),
                "ns per make+unmake".to_string(),
                "× sqww".to_string(),
                "layout".to_string(),
            ],
            rows: table_rows,
        }],
        plots: vec![plot],
        findings: findings.join(" "),
        summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::experiments::tests::assert_well_formed;

    #[test]
    fn smoke_run_is_well_formed_and_verified() {
        let experiment = run(&Config::smoke(), &mut |_, _| {});
        assert_well_formed(&experiment);
        assert_eq!(experiment.series.len(), NAMES.len());
        assert!(
            experiment.findings.contains("Seed 001's claim"),
            "{}",
            experiment.findings
        );
        assert!(experiment
            .findings
            .contains("matched a from-scratch recount"));
    }
}
