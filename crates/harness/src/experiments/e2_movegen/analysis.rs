//! E2's analysis: series, the table, two panels, claims and the numbers the findings quote.

use super::measure::Measurement;
use crate::experiments::{
    interval, interval_point, per_second_millions, ranked, series, typical, Claims,
};
use crate::results::{PairRecord, Plot, PlotKind, PlotLine, Series, Table};
use crate::stats::{format_interval, Comparison};
use kiki_engine::perft::Leaf;
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
    /// The best's median ns per operation.
    pub best_ns: f64,
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
    let mut claims = Claims::new(m.threshold, m.invocations);
    let fastest: Vec<Fastest> = tasks
        .iter()
        .filter_map(|task| fastest(m, task, &mut claims))
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
    let numbers = Numbers { tasks: fastest };
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

/// `task`'s fastest backend by median, the others against it (recorded in `claims`) and each
/// peer against it; `None` below two backends.
fn fastest(m: &Measurement, task: &str, claims: &mut Claims) -> Option<Fastest> {
    let entries: Vec<(&str, f64)> = m
        .backends
        .iter()
        .filter_map(|b| m.row(task, b).map(|r| (*b, typical(&r.ns, m.invocations))))
        .collect();
    let order = ranked(&entries);
    if order.len() < 2 {
        return None;
    }
    let best = order[0].0;
    let best_row = m.row(task, best).expect("ranked");
    let best_ns = &best_row.ns;
    let others = order[1..]
        .iter()
        .map(|(b, _)| {
            claims.ratio_text(
                task,
                (b, &m.row(task, b).expect("ranked").ns),
                (best, best_ns),
            )
        })
        .collect();
    let peers = m
        .peers
        .iter()
        .filter_map(|&peer| {
            let peer_row = m.row(task, peer)?;
            // Peer time over best-backend time, paired per round: above 1 means kiki is faster.
            let ratio = claims.compare(task, (peer, &peer_row.ns), (best, best_ns))?;
            Some(PeerAgainstBest {
                peer,
                ns: typical(&peer_row.ns, m.invocations),
                ratio,
            })
        })
        .collect();
    Some(Fastest {
        task: task.to_string(),
        subject: best_row.subject,
        leaf: best_row.leaf,
        best,
        best_ns: order[0].1,
        others,
        peers,
    })
}
