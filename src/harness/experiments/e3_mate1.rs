//! E3: mate-in-1 per backend — the fast path (attack sets, no make per candidate) against the
//! brute-force reference (make every legal move, generate the replies), on seeded tactical
//! positions with and without a mate in one.

use super::{and_list, ranked, series, summarise, Claims, Config, Progress};
use crate::backend::Backend;
use crate::harness::measure::{interleaved, Case};
use crate::harness::results::{ExperimentResult, Plot, PlotKind, PlotLine, Table};
use crate::harness::stats::{format_spread, ratio};
use crate::mate1::{mate_in_1, mate_in_1_brute_force, tactical_positions};
use crate::position::Position;
use crate::registry::{self, BackendVisitor};
use crate::variants::mailbox::Mailbox;
use serde_json::Value as Json;
use std::hint::black_box;

pub const TITLE: &str = "Mate in one: fast path against brute force";

/// The four timed tasks, in table order: (name, solver is brute force, set has a mate).
const TASKS: [(&str, bool, bool); 4] = [
    ("fast mate", false, true),
    ("fast no-mate", false, false),
    ("brute mate", true, true),
    ("brute no-mate", true, false),
];

/// (with a mate, without): SFENs split by the brute-force answer on the mailbox backend.
fn sets(seed: u64, per_set: usize) -> Result<(Vec<String>, Vec<String>), String> {
    let backend = Mailbox::new()?;
    let (mut mates, mut quiet) = (Vec::new(), Vec::new());
    for sfen in tactical_positions(backend, seed, 20 * per_set) {
        let pos = Position::from_sfen(backend, &sfen).map_err(|e| e.to_string())?;
        let set = if mate_in_1_brute_force(&pos).is_some() {
            &mut mates
        } else {
            &mut quiet
        };
        if set.len() < per_set {
            set.push(sfen);
        }
        if mates.len() == per_set && quiet.len() == per_set {
            break;
        }
    }
    Ok((mates, quiet))
}

struct MakeCase<'a> {
    sfens: &'a [String],
    brute: bool,
    has_mate: bool,
}

impl BackendVisitor for MakeCase<'_> {
    type Output = Result<Case<'static>, String>;
    fn visit<B: Backend>(self, backend: B) -> Self::Output {
        let name = B::info().name;
        let positions: Vec<Position<B>> = self
            .sfens
            .iter()
            .map(|s| Position::from_sfen(backend, s).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
        // Every answer checked against the set's label before timing.
        for (pos, sfen) in positions.iter().zip(self.sfens) {
            let found = if self.brute {
                mate_in_1_brute_force(pos)
            } else {
                mate_in_1(pos)
            };
            if found.is_some() != self.has_mate {
                return Err(format!(
                    "{name}: {} says {} on {sfen}",
                    if self.brute {
                        "brute force"
                    } else {
                        "fast path"
                    },
                    if found.is_some() { "mate" } else { "no mate" }
                ));
            }
        }
        let count = positions.len() as u64;
        let brute = self.brute;
        Ok(Case::new(name, count, move |reps| {
            let mut total = 0u64;
            for _ in 0..reps {
                for pos in black_box(&positions[..]) {
                    let found = if brute {
                        mate_in_1_brute_force(pos)
                    } else {
                        mate_in_1(pos)
                    };
                    total += found.is_some() as u64;
                }
            }
            total
        }))
    }
}

struct Row {
    task: &'static str,
    backend: String,
    ns: Vec<f64>,
}

pub fn run(config: &Config, progress: Progress<'_>) -> ExperimentResult {
    let (backends, skipped) = config.backend_names();
    progress("generating positions", 0.0);
    let seed = config.seed ^ 0xE3;
    let per_set = config.pick(6, 100, 200);
    let (mates, quiet) = sets(seed, per_set).unwrap_or_default();
    let sampling = config.sampling();
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    for (t, &(task, brute, has_mate)) in TASKS.iter().enumerate() {
        progress(
            &format!("{task} (preparing)"),
            t as f64 / TASKS.len() as f64,
        );
        // Both solvers over the same positions, so that their ratio compares like with like.
        let sfens = if has_mate { &mates[..] } else { &quiet[..] };
        if sfens.is_empty() {
            errors.push(format!("{task}: no positions were generated"));
            continue;
        }
        let mut cases = Vec::new();
        for name in &backends {
            match registry::visit(
                name,
                MakeCase {
                    sfens,
                    brute,
                    has_mate,
                },
            ) {
                Ok(Ok(case)) => cases.push(case),
                Ok(Err(error)) => errors.push(error),
                Err(error) => errors.push(error.to_string()),
            }
        }
        let results = interleaved(&mut cases, &sampling, None, &mut |f| {
            progress(task, (t as f64 + f) / TASKS.len() as f64)
        });
        for result in results {
            rows.push(Row {
                task,
                backend: result.name,
                ns: result.ns_per_op,
            });
        }
    }
    progress("done", 1.0);
    build(
        config,
        &backends,
        &skipped,
        (mates.len(), quiet.len()),
        rows,
        &errors,
    )
}

fn build(
    config: &Config,
    backends: &[&'static str],
    skipped: &[String],
    set_sizes: (usize, usize),
    rows: Vec<Row>,
    errors: &[String],
) -> ExperimentResult {
    let find =
        |task: &str, backend: &str| rows.iter().find(|r| r.task == task && r.backend == backend);
    let tasks: Vec<&str> = TASKS
        .iter()
        .map(|t| t.0)
        .filter(|t| rows.iter().any(|r| r.task == *t))
        .collect();
    let series_out = rows
        .iter()
        .map(|r| {
            series(
                &[("backend", &r.backend), ("task", r.task)],
                "ns/position",
                r.ns.clone(),
            )
        })
        .collect();
    let mut headers = vec!["backend".to_string()];
    headers.extend(tasks.iter().map(|t| format!("{t}: ns/position")));
    let table_rows = backends
        .iter()
        .map(|b| {
            let mut row = vec![b.to_string()];
            for task in &tasks {
                row.push(match find(task, b) {
                    Some(r) => format_spread(&summarise(&r.ns)),
                    None => "–".to_string(),
                });
            }
            row
        })
        .collect();
    let lines = backends
        .iter()
        .map(|b| PlotLine {
            name: b.to_string(),
            points: tasks
                .iter()
                .enumerate()
                .filter_map(|(i, task)| {
                    find(task, b).map(|r| super::point(i as f64, &summarise(&r.ns)))
                })
                .collect(),
        })
        .filter(|line| !line.points.is_empty())
        .collect();
    let plot = Plot {
        file_stem: "e3-mate1".to_string(),
        title: "E3 mate in one: ns per position".to_string(),
        x_label: "solver and position set".to_string(),
        y_label: "ns per position (log; lower is better)".to_string(),
        log_x: false,
        log_y: true,
        kind: PlotKind::Bar,
        categories: tasks.iter().map(|t| t.to_string()).collect(),
        markers: Vec::new(),
        lines,
    };
    let mut claims = Claims::new(config.threshold);
    let mut findings = Vec::new();
    let mut summary = Vec::new();
    for task in ["fast mate", "fast no-mate"] {
        let entries: Vec<(&str, f64)> = backends
            .iter()
            .filter_map(|b| find(task, b).map(|r| (*b, summarise(&r.ns).median)))
            .collect();
        let order = ranked(&entries);
        let Some(&(best, best_ns)) = order.first() else {
            continue;
        };
        let others: Vec<String> = order[1..]
            .iter()
            .filter_map(|(b, _)| {
                Some(claims.ratio_text(
                    task,
                    (b, &find(task, b)?.ns),
                    (best, &find(task, best)?.ns),
                ))
            })
            .collect();
        let rest = if others.is_empty() {
            String::new()
        } else {
            format!("; relative to it, {}", and_list(&others))
        };
        findings.push(format!(
            "{task}: {best} is fastest at {best_ns:.0} ns per position{rest}."
        ));
        summary.push((format!("fastest {task}"), Json::from(best)));
    }
    let mut speedups = Vec::new();
    for b in backends {
        for (set, fast, brute) in [
            ("mate", "fast mate", "brute mate"),
            ("no-mate", "fast no-mate", "brute no-mate"),
        ] {
            if let (Some(f), Some(r)) = (find(fast, b), find(brute, b)) {
                if let Some(s) = ratio(&r.ns, &f.ns) {
                    speedups.push((b.to_string(), set, s));
                }
            }
        }
    }
    if !speedups.is_empty() {
        let parts: Vec<String> = speedups
            .iter()
            .map(|(b, set, s)| format!("{b} {set} ×{:.1} ({:.1}–{:.1})", s.median, s.min, s.max))
            .collect();
        let low = speedups
            .iter()
            .map(|s| s.2.median)
            .fold(f64::INFINITY, f64::min);
        let high = speedups
            .iter()
            .map(|s| s.2.median)
            .fold(f64::NEG_INFINITY, f64::max);
        findings.push(format!(
            "Brute force takes ×{low:.1} to ×{high:.1} the fast path's time per position \
             (median of all pairings, min–max): {}.",
            and_list(&parts)
        ));
        summary.push(("brute/fast low".to_string(), Json::from(low)));
        summary.push(("brute/fast high".to_string(), Json::from(high)));
    }
    if errors.is_empty() {
        findings.push(
            "Every backend's fast path and brute force agreed with the set labels on every \
             position."
                .to_string(),
        );
    } else {
        findings.push(format!("Problems: {}.", errors.join("; ")));
    }
    if rows.is_empty() {
        findings.push("No backend could be measured.".to_string());
    }
    let mut method = format!(
        "Positions from seeded tactical games (`mate1::tactical_positions`, seed {:#x}), split \
         by the brute-force answer on the mailbox backend into {} with a mate in one and {} \
         without; the fast path and brute force both run over all of them, the same positions. \
         Every backend's answer is checked against the label before timing. ns per position, \
         {} samples with backends interleaved round-robin; cells: median (min–max). The \
         brute/fast ratios pair every fast sample with every brute sample (they come from \
         separate interleaved runs).",
        config.seed ^ 0xE3,
        set_sizes.0,
        set_sizes.1,
        config.sampling().samples,
    );
    if !skipped.is_empty() {
        method.push_str(&format!(" Skipped: {}.", skipped.join("; ")));
    }
    let method = format!("{method} {}", super::claims_method(config.threshold));
    ExperimentResult {
        wall_seconds: None,
        comparisons: claims.records,
        id: "E3".to_string(),
        title: TITLE.to_string(),
        method,
        series: series_out,
        tables: vec![Table {
            headers,
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
    fn smoke_run_is_well_formed_and_answers_agree() {
        let config = Config {
            backends: vec!["qugiy".to_string(), "bonanza".to_string()],
            ..Config::smoke()
        };
        let experiment = run(&config, &mut |_, _| {});
        assert_well_formed(&experiment);
        assert!(
            experiment.findings.contains("agreed with the set labels"),
            "{}",
            experiment.findings
        );
        assert_eq!(experiment.series.len(), 4 * 2);
    }
}
