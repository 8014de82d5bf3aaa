//! E2's analysis: series, the table, two panels, claims and the numbers the findings quote.

use super::measure::Measurement;
use crate::experiments::claims::Claims;
use crate::experiments::held_out::Parts;
pub(super) use crate::experiments::held_out::{extra_invocations, HeldOut};
use crate::experiments::{interval, interval_point, per_second_millions, ranked, series, typical};
use crate::results::{PairRecord, Plot, PlotKind, PlotLine, Series, Table};
use crate::stats::{format_interval, Comparison};
use kiki_engine::perft::Leaf;
use serde_json::json;
use serde_json::Value as Json;

/// The target: kiki's list generation at least this many times haitaka's list speed.
pub(super) const LIST_TARGET: f64 = 1.5;

/// E2's series, tables, plots, comparisons and summary, and the numbers the findings quote.
pub(super) struct Analysis {
    pub series: Vec<Series>,
    /// The main table, then the counter table.
    pub tables: Vec<Table>,
    pub plots: Vec<Plot>,
    /// Every comparison the findings rest on, in the order they were made.
    pub comparisons: Vec<PairRecord>,
    pub summary: Vec<(String, Json)>,
    pub numbers: Numbers,
}

/// What the findings paragraph quotes: per task with two or more backends, its fastest.
pub(super) struct Numbers {
    pub tasks: Vec<Fastest>,
    /// How the invocations were split: the last ones (run after the others) choose each
    /// task's best backend, the others estimate its ratios.
    pub split: HeldOut,
}

/// The task names of the summary's `vs_peer` and `like_for_like` keys: the convention first,
/// then the subject and its depth (`perft list start d5`, `movegen count`).
fn peer_key(f: &Fastest) -> String {
    let convention = match f.leaf {
        Leaf::List => "list",
        Leaf::Count | Leaf::CountPlain => "count",
    };
    match f.subject {
        "movegen" => format!("movegen {convention}"),
        subject => {
            let depth = f
                .task
                .split_whitespace()
                .find(|w| w.starts_with('d') && w[1..].parse::<u32>().is_ok())
                .unwrap_or("d?");
            format!("perft {convention} {subject} {depth}")
        }
    }
}

/// A ratio record of the summary: `{ratio, low, high, invocations, rounds, claim}`.
fn record(c: &Comparison) -> Json {
    json!({
        "ratio": c.ratio,
        "low": c.low,
        "high": c.high,
        "invocations": c.invocations,
        "rounds": c.rounds,
        "claim": c.claim,
    })
}

/// Whether a speed-up's interval shows a target met, missed, or neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Target {
    /// The interval's lower end reaches the target.
    Met,
    /// The interval's upper end stays below it.
    Missed,
    /// The interval straddles it.
    Undecided,
}

impl Target {
    /// `ratio` is peer time over kiki time (kiki's speed-up); `target` a speed-up.
    pub fn of(ratio: &Comparison, target: f64) -> Target {
        if ratio.low >= target {
            Target::Met
        } else if ratio.high < target {
            Target::Missed
        } else {
            Target::Undecided
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Target::Met => "met",
            Target::Missed => "not met",
            Target::Undecided => "undecided",
        }
    }
}

impl Numbers {
    /// Each peer against the best backend on the task of `subject` ("movegen", "start",
    /// "second") in convention `leaf`.
    pub fn peers_on(&self, subject: &str, leaf: Leaf) -> Option<&Fastest> {
        self.tasks
            .iter()
            .find(|f| f.subject == subject && f.leaf == leaf)
    }

    /// The best backend's list move generation against the first peer's, and what the
    /// interval says of [`LIST_TARGET`].
    pub fn list_target(&self) -> Option<(&Fastest, &PeerAgainstBest, Target)> {
        let fastest = self.peers_on("movegen", Leaf::List)?;
        let peer = fastest.peers.first()?;
        Some((fastest, peer, Target::of(&peer.ratio, LIST_TARGET)))
    }
}

/// One task's fastest backend, the others against it, and each peer against it.
pub(super) struct Fastest {
    pub task: String,
    /// "movegen" or the perft position, and the convention (see `Row`).
    pub subject: &'static str,
    pub leaf: Leaf,
    pub best: &'static str,
    /// The best's median ns per operation over the choosing invocations (what chose it).
    pub chosen_ns: f64,
    /// The best's median ns per operation over the estimating invocations: the figure quoted
    /// beside the peers' (the choosing median carries the winner's luck).
    pub best_ns: f64,
    /// Whether the choosing and the estimating invocations differ (below three invocations
    /// one set does both, and the two medians are the same).
    pub held_out: bool,
    /// Each other backend's time relative to the best, as `Claims::ratio_text` words it.
    pub others: Vec<String>,
    pub peers: Vec<PeerAgainstBest>,
}

/// A peer's median ns per operation, and its time over the best backend's, paired per round.
pub(super) struct PeerAgainstBest {
    pub peer: &'static str,
    pub ns: f64,
    /// Peer time over best-backend time: `Slower` means kiki's best is faster.
    pub ratio: Comparison,
}

/// Turns E2's measurement into series, tables, plots, claims and numbers.
pub(super) fn analyse(m: &Measurement) -> Analysis {
    let tasks = tasks(m);
    let mut series: Vec<Series> = m
        .rows
        .iter()
        .map(|r| {
            series(
                &[("backend", &r.backend), ("task", &r.task)],
                r.unit,
                r.ns.clone(),
            )
        })
        .collect();
    series.extend(m.counter_log.series());
    let mut tables = vec![table(m, &tasks)];
    tables.extend(m.counter_log.table(&["backend", "task"], |_| true));
    let split = HeldOut::of(m.invocations);
    let mut claims = Claims::new(m.threshold, split.estimate);
    let fastest: Vec<Fastest> = tasks
        .iter()
        .filter_map(|task| fastest(m, task, split, &mut claims))
        .collect();
    let mut summary = Vec::new();
    for f in &fastest {
        summary.push((format!("best {}", f.task), Json::from(f.best)));
        for p in &f.peers {
            summary.push((
                format!("{} ÷ best {}", p.peer, f.task),
                Json::from(p.ratio.ratio),
            ));
        }
    }
    // The first peer against kiki's best, as ratio records: with the perft shortcuts
    // (`vs_peer`) and without them (`like_for_like`, the count walk as the peer walks).
    let first_peer = |plain: bool| -> serde_json::Map<String, Json> {
        fastest
            .iter()
            .filter(|f| (f.leaf == Leaf::CountPlain) == plain)
            .filter_map(|f| Some((peer_key(f), record(&f.peers.first()?.ratio))))
            .collect()
    };
    if !m.peers.is_empty() {
        summary.push(("vs_peer".into(), Json::Object(first_peer(false))));
        summary.push(("like_for_like".into(), Json::Object(first_peer(true))));
    }
    let numbers = Numbers {
        tasks: fastest,
        split,
    };
    if let Some((_, peer, target)) = numbers.list_target() {
        summary.push((
            format!("list movegen ≥ {LIST_TARGET}× {}", peer.peer),
            Json::from(target.name()),
        ));
    }
    Analysis {
        series,
        tables,
        plots: plots(m, &tasks),
        comparisons: claims.records,
        summary,
        numbers,
    }
}

/// The tasks timed, in the order they were timed.
fn tasks(m: &Measurement) -> Vec<String> {
    let mut tasks: Vec<String> = Vec::new();
    for row in &m.rows {
        if !tasks.contains(&row.task) {
            tasks.push(row.task.clone());
        }
    }
    tasks
}

/// Backends and then peers: peers get a row and a bar, but never the "best" title, which
/// ranks kiki's backends.
fn shown(m: &Measurement) -> Vec<&'static str> {
    m.backends.iter().chain(&m.peers).copied().collect()
}

/// A row per backend and peer, a column per task, in millions of operations per second.
fn table(m: &Measurement, tasks: &[String]) -> Table {
    let mut headers = vec!["backend".to_string()];
    for task in tasks {
        let per_op = m
            .rows
            .iter()
            .find(|r| &r.task == task)
            .map_or("ops", |r| r.per_op);
        headers.push(format!("{task}: M{per_op}/s"));
    }
    let rows = shown(m)
        .iter()
        .map(|b| {
            let mut row = vec![b.to_string()];
            for task in tasks {
                row.push(match m.row(task, b) {
                    Some(r) => {
                        format_interval(&interval(&r.ns, m.invocations).map(per_second_millions))
                    }
                    None => "–".to_string(),
                });
            }
            row
        })
        .collect();
    Table { headers, rows }
}

/// Move generation (millions of positions/s) and perft (thousands of millions of nodes/s)
/// differ by two orders of magnitude: each gets its own panel (none without its tasks).
fn plots(m: &Measurement, tasks: &[String]) -> Vec<Plot> {
    [
        panel(
            m,
            tasks,
            "movegen",
            "e2-movegen",
            "E2 legal move generation (positions/s)",
            "million positions / s (higher is better)",
        ),
        panel(
            m,
            tasks,
            "perft",
            "e2-perft",
            "E2 perft, count-only and list leaves (nodes/s)",
            "million nodes / s (higher is better)",
        ),
    ]
    .into_iter()
    .filter(|p| !p.categories.is_empty())
    .collect()
}

/// The bars of the tasks whose names start with `prefix`.
fn panel(
    m: &Measurement,
    tasks: &[String],
    prefix: &str,
    file_stem: &str,
    title: &str,
    y_label: &str,
) -> Plot {
    let panel_tasks: Vec<&String> = tasks.iter().filter(|t| t.starts_with(prefix)).collect();
    let lines = shown(m)
        .iter()
        .map(|b| PlotLine {
            name: b.to_string(),
            points: panel_tasks
                .iter()
                .enumerate()
                .filter_map(|(i, task)| {
                    m.row(task, b).map(|r| {
                        interval_point(
                            i as f64,
                            &interval(&r.ns, m.invocations).map(per_second_millions),
                        )
                    })
                })
                .collect(),
        })
        .collect();
    Plot {
        file_stem: file_stem.to_string(),
        title: title.to_string(),
        x_label: "task".to_string(),
        y_label: y_label.to_string(),
        log_x: false,
        log_y: false,
        kind: PlotKind::Bar,
        categories: panel_tasks.iter().map(|t| t.to_string()).collect(),
        markers: Vec::new(),
        lines,
    }
}

/// `task`'s fastest backend by typical time over the choosing invocations of `split`, the
/// others against it (recorded in `claims`) and each peer against it over the estimating
/// ones; `None` below two backends.
fn fastest(m: &Measurement, task: &str, split: HeldOut, claims: &mut Claims) -> Option<Fastest> {
    // The task is held out only when every one of its rows (backends and peers) splits into
    // equal blocks per invocation; otherwise all its rows use all their rounds for both
    // choosing and estimating, over all the invocations, and its claims pool that many.
    let held_out = split.splits_all(
        m.backends
            .iter()
            .chain(&m.peers)
            .filter_map(|b| m.row(task, b))
            .map(|r| r.ns.as_slice()),
    );
    let parts = |ns: &[f64]| -> Parts { split.parts(ns, held_out, m.invocations) };
    let k = split.claims_k(held_out, m.invocations);
    claims.with_invocations(k, |claims| fastest_in(m, task, &parts, claims))
}

/// [`fastest`] once the task's rows are cut into `parts`.
fn fastest_in(
    m: &Measurement,
    task: &str,
    parts: &dyn Fn(&[f64]) -> Parts,
    claims: &mut Claims,
) -> Option<Fastest> {
    let entries: Vec<(&str, f64)> = m
        .backends
        .iter()
        .filter_map(|b| {
            m.row(task, b).map(|r| {
                let (choosing, k) = parts(&r.ns).choosing;
                (*b, typical(&choosing, k))
            })
        })
        .collect();
    let order = ranked(&entries);
    if order.len() < 2 {
        return None;
    }
    let best = order[0].0;
    let best_row = m.row(task, best).expect("ranked");
    let best_parts = parts(&best_row.ns);
    let (best_ns, best_k) = best_parts.estimating;
    let others = order[1..]
        .iter()
        .map(|(b, _)| {
            let ns = parts(&m.row(task, b).expect("ranked").ns).estimating.0;
            // Rounds pair one to one, or not at all.
            if ns.len() == best_ns.len() {
                claims.ratio_text(task, (b, &ns), (best, &best_ns))
            } else {
                format!("{b} (its rounds do not pair with {best}'s)")
            }
        })
        .collect();
    let peers = m
        .peers
        .iter()
        .filter_map(|&peer| {
            let (peer_ns, k) = parts(&m.row(task, peer)?.ns).estimating;
            if peer_ns.len() != best_ns.len() {
                return None;
            }
            // Peer time over best-backend time, paired per round: above 1 means kiki is faster.
            let ratio = claims.compare(task, (peer, &peer_ns), (best, &best_ns))?;
            Some(PeerAgainstBest {
                peer,
                ns: typical(&peer_ns, k),
                ratio,
            })
        })
        .collect();
    Some(Fastest {
        task: task.to_string(),
        subject: best_row.subject,
        leaf: best_row.leaf,
        best,
        chosen_ns: order[0].1,
        best_ns: typical(&best_ns, best_k),
        held_out: best_parts.held_out,
        others,
        peers,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::counter_log::CounterLog;
    use crate::experiments::e2_movegen::measure::Row;

    fn row(backend: &str, ns: Vec<f64>) -> Row {
        Row {
            task: "perft start d5".into(),
            subject: "start",
            leaf: Leaf::Count,
            unit: "ns/node",
            per_op: "nodes",
            backend: backend.into(),
            ns,
        }
    }

    /// Backends `a` and `b` and the peer `peer` over three invocations, with these rows.
    fn measured(rows: Vec<Row>) -> Measurement {
        Measurement {
            backends: vec!["a", "b"],
            peers: vec!["peer"],
            skipped: Vec::new(),
            workload_seed: 0,
            samples: 2,
            threshold: 0.03,
            counter_log: CounterLog::open(&[], "op"),
            sfens: Vec::new(),
            moves_per_position: 0.0,
            rows,
            errors: Vec::new(),
            invocations: 3,
        }
    }

    /// The best backend is chosen on the last invocation of three and its ratios come from
    /// the other two: `a`, lucky in the choosing invocation, is the best, and its ratio against
    /// `b` and the peer is what the held-out rounds say (`b` there takes 0.75 of `a`'s time).
    #[test]
    fn the_best_is_chosen_on_invocations_its_ratios_do_not_use() {
        let m = measured(vec![
            row("a", vec![2.0, 2.0, 2.0, 2.0, 1.0, 1.0]),
            row("b", vec![1.5; 6]),
            row("peer", vec![6.0, 6.0, 6.0, 6.0, 3.0, 3.0]),
        ]);
        let analysis = analyse(&m);
        let split = analysis.numbers.split;
        assert_eq!(
            split,
            HeldOut {
                select: 1,
                estimate: 2
            }
        );
        let fastest = &analysis.numbers.tasks[0];
        assert_eq!(fastest.best, "a");
        assert_eq!(fastest.chosen_ns, 1.0, "the choosing invocation's median");
        assert_eq!(fastest.best_ns, 2.0, "the estimating invocations' median");
        assert!(
            fastest.others[0].starts_with("b ×0.75"),
            "{:?}",
            fastest.others
        );
        let peer = &fastest.peers[0].ratio;
        assert!((peer.ratio - 3.0).abs() < 1e-9, "{peer:?}");
        assert_eq!(peer.invocations, 2);
        let vs_peer = &analysis
            .summary
            .iter()
            .find(|(k, _)| k == "vs_peer")
            .expect("vs_peer")
            .1;
        assert_eq!(vs_peer["perft count start d5"]["invocations"], 2);
        assert_eq!(vs_peer["perft count start d5"]["claim"], "slower");
        assert!(analysis
            .comparisons
            .iter()
            .all(|c| c.comparison.invocations == 2));
    }

    /// A task with one row that does not split into equal blocks per invocation (the peer's
    /// four rounds over three invocations) is not held out at all: every row, the backends'
    /// included, chooses and estimates on all three invocations, and the claims pool three.
    #[test]
    fn a_task_that_cannot_be_split_uses_every_invocation_for_every_row() {
        let m = measured(vec![
            row("a", vec![1.0, 1.0, 1.2, 1.2, 1.2, 1.2]),
            row("b", vec![1.5; 6]),
            row("peer", vec![3.0; 4]),
        ]);
        let analysis = analyse(&m);
        let fastest = &analysis.numbers.tasks[0];
        assert!(!fastest.held_out);
        assert_eq!(fastest.best, "a");
        assert_eq!(fastest.chosen_ns, fastest.best_ns);
        let b_against_a = analysis
            .comparisons
            .iter()
            .find(|c| c.a == "b")
            .expect("b against a");
        assert_eq!(b_against_a.comparison.invocations, 3);
        // The peer's four rounds pair with nothing: no ratio is claimed for it.
        assert!(fastest.peers.is_empty());
        assert!(analysis.comparisons.iter().all(|c| c.a != "peer"));
    }
}
