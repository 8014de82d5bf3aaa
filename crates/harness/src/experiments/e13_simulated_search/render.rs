//! E13's result as the report shows it: the answer per evaluation, the method, the tables and
//! the plots, all from one [`Analysis`].

use super::analysis::{Analysis, EvalAnswer, D_EVALS};
use super::measure::{Measurement, RULE_PAIR};
use super::per_file::Part;
use crate::experiments::ExperimentId;
use crate::results::{ExperimentResult, Plot, PlotKind, PlotLine, Point, Table};
use kiki_core::units::{compact_bytes, rounded_bytes};
use kiki_engine::search::eval::EvalKind;

pub const TITLE: &str = "Seed 004 in a simulated search (valgrind callgrind)";

/// The model's limits, said with every verdict.
const LIMITS: &str = "two cache levels, LRU, no prefetcher, no memory-level parallelism";

/// A signed figure to two significant digits below 1 (`+0.0072`), to one decimal above.
fn ns(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x:+.1}");
    }
    if x.abs() >= 1.0 {
        return format!("{x:+.1}");
    }
    let decimals = (1 - x.abs().log10().floor() as i32).clamp(1, 8) as usize;
    format!("{x:+.decimals$}")
}

/// A width (unsigned), as [`ns`] writes figures.
fn width(x: f64) -> String {
    ns(x).trim_start_matches('+').to_string()
}

/// One evaluation's answer in one sentence: the verdict, D_sim and its priced range, T.
fn answer_sentence(a: &EvalAnswer, l3: Option<usize>) -> String {
    let at = l3.map_or("no measured L3".to_string(), |b| rounded_bytes(b as f64));
    let (Some(verdict), Some(p)) = (a.verdict, a.priced) else {
        return format!(
            "Under {}, E13 has no verdict: it lacks {} (at {at}).",
            a.eval,
            if a.priced.is_none() {
                "a priced D_sim (a cell failed, or no price per miss was measured)"
            } else {
                "a threshold"
            }
        );
    };
    let knee = match a.knee_bytes {
        Some(k) => format!("knee {}", rounded_bytes(k as f64)),
        None => "no knee in the sweep".to_string(),
    };
    format!(
        "Under {}, seed 004's argument {} in the simulated search: at LL {at} D_sim is {} \
         last-level misses a node, priced [{}, {}] ns against T {:.1} ns; {knee}{}.",
        a.eval,
        verdict.words(),
        ns(p.misses),
        ns(p.ns_low),
        ns(p.ns_high),
        a.threshold_ns,
        if a.sensitive { ", sensitive to L3" } else { "" }
    )
}

/// How each prediction meets E11's measured D, in figures, and whether E11 tells them apart.
fn reconciliation_sentence(a: &EvalAnswer) -> Option<String> {
    let d = a.e11_d?;
    let inside = |consistent: Option<bool>| {
        if consistent == Some(true) {
            "inside E11's"
        } else {
            "outside E11's"
        }
    };
    let e13 = a.priced.map_or("no E13 prediction".to_string(), |p| {
        format!(
            "E13 predicts [{}, {}] (width {}, {})",
            ns(p.ns_low),
            ns(p.ns_high),
            width(p.ns_high - p.ns_low),
            inside(a.consistent.e13)
        )
    });
    let e7 = a
        .e7_predicted
        .map_or("E7 gives no prediction".to_string(), |x| {
            format!(
                "E7's isolated cost predicts {} [{}, {}] (width {}, {})",
                ns(x.ns),
                ns(x.low),
                ns(x.high),
                width(x.high - x.low),
                inside(a.consistent.e7)
            )
        });
    let apart = match (a.consistent.e13, a.consistent.e7) {
        (Some(true), Some(false)) => "E11 excludes E7's prediction and not E13's",
        (Some(false), Some(true)) => "E11 excludes E13's prediction and not E7's",
        (Some(true), Some(true)) => {
            "E11's interval holds both, so this run does not tell them apart"
        }
        (Some(false), Some(false)) => "E11 excludes both",
        _ => "E11 cannot test both",
    };
    Some(format!(
        "Under {}, E11 measured D {} [{}, {}] ns a node (width {}); {e13}; {e7}: {apart}.",
        a.eval,
        ns(d.ns),
        ns(d.low),
        ns(d.high),
        width(d.high - d.low),
    ))
}

/// Why E7's isolated cost does not carry over, in figures: the lookups a node, the table lines
/// a search reads and their reuse, against E7's pressure stream.
fn locality_sentence(analysis: &Analysis<'_>) -> Option<String> {
    let m = analysis.m;
    let (dbb, plain) = (analysis.trace(RULE_PAIR[0])?, analysis.trace(RULE_PAIR[1])?);
    let pressure = m.reference.e7.as_ref().map_or(String::new(), |e7| {
        format!(
            "; E7's chain reads {} fresh evaluation lines a node between lookups, so there every \
             table line misses",
            e7.pressure_reads
        )
    });
    Some(format!(
        "The search makes {:.2} sliding lookups a node (the legality test looks a slider up only \
         where one stands on its empty-board ray; issue 58 estimated 7.8), each reading {:.2} \
         table lines on magic-plain and {:.2} on dbb; per 1,000 nodes magic-plain reads {:.0} \
         distinct table lines ({} in all) and dbb {:.0}; {:.1} % of magic-plain's re-reads come \
         within 512 distinct table lines (32 KiB){pressure}.",
        plain.lookups_per_node(),
        plain.reads as f64 / plain.lookups.max(1) as f64,
        dbb.reads as f64 / dbb.lookups.max(1) as f64,
        plain.distinct_lines_per_1000_nodes,
        plain.distinct_lines,
        dbb.distinct_lines_per_1000_nodes,
        100.0 * plain.reuse_within(512),
    ))
}

/// The attack-table part at the effective L3 against the largest last level (where nothing is
/// evicted for capacity): what is left there are first touches.
fn first_touch_sentence(analysis: &Analysis<'_>, eval: EvalKind) -> Option<String> {
    let (l3, largest) = (analysis.l3?, *analysis.m.sizes().last()?);
    if largest <= l3 {
        return None;
    }
    let tables =
        |backend: &str, ll: usize| Some(analysis.per_node(backend, eval, ll)?.attack_tables);
    let [dbb, plain] = RULE_PAIR;
    let (plain_l3, plain_top) = (tables(plain, l3)?, tables(plain, largest)?);
    let (dbb_l3, dbb_top) = (tables(dbb, l3)?, tables(dbb, largest)?);
    let distinct = analysis.trace(plain).map_or(String::new(), |t| {
        format!(
            " (magic-plain's {} distinct table lines are {} a node of the measured search)",
            t.distinct_lines,
            ns(t.distinct_lines as f64 / t.nodes.max(1) as f64).trim_start_matches('+')
        )
    });
    Some(format!(
        "Under {}, the attack-table part at LL {} is magic-plain {} and dbb {} misses a node, and \
         at {} (no capacity misses) {} and {} remain: {:.0} % of magic-plain's are first touches \
         of lines the warm positions did not read{distinct}, which a longer search would amortise.",
        eval.name(),
        rounded_bytes(l3 as f64),
        width(plain_l3),
        width(dbb_l3),
        rounded_bytes(largest as f64),
        width(plain_top),
        width(dbb_top),
        100.0 * plain_top / plain_l3.max(f64::MIN_POSITIVE),
    ))
}

/// Where D_sim is negative at the smallest last level: which part makes it so, in figures.
fn small_level_sentence(analysis: &Analysis<'_>, eval: EvalKind) -> Option<String> {
    let smallest = *analysis.m.sizes().first()?;
    let d = analysis.d_sim_misses(eval, smallest)?;
    if d >= 0.0 {
        return None;
    }
    let [dbb, plain] = RULE_PAIR;
    let (b, p) = (
        analysis.per_node(dbb, eval, smallest)?,
        analysis.per_node(plain, eval, smallest)?,
    );
    let lookups = analysis.lookups_per_node()?;
    let lines = |backend: &str| {
        analysis
            .trace(backend)
            .map(|t| t.reads as f64 / t.lookups.max(1) as f64)
    };
    let read = match (lines(dbb), lines(plain)) {
        (Some(d), Some(m)) => format!(
            "; where the evaluation's traffic flushes the last level between nodes, a lookup's \
             lines miss, and dbb's lookups read {d:.2} table lines each against magic-plain's \
             {m:.2}"
        ),
        _ => String::new(),
    };
    Some(format!(
        "At LL {} under {} D_sim is {} misses a node: dbb's backend code misses {} times a node \
         ({} a lookup) and magic-plain's {} ({} a lookup), the evaluation's part differs by {} \
         and the rest by {}{read}.",
        rounded_bytes(smallest as f64),
        eval.name(),
        ns(d),
        width(b.attack_tables),
        width(b.attack_tables / lookups),
        width(p.attack_tables),
        width(p.attack_tables / lookups),
        ns(p.eval - b.eval),
        ns((p.tt + p.other) - (b.tt + b.other)),
    ))
}

/// What the attack-table part holds besides table reads, bounded by mailbox (no tables): its
/// backend code's reads of the board it is passed.
fn control_sentence(analysis: &Analysis<'_>) -> Option<String> {
    let m = analysis.m;
    let mailbox: Vec<_> = m.cells.iter().filter(|c| c.backend == "mailbox").collect();
    let worst = mailbox.iter().max_by(|a, b| {
        super::analysis::PerNode::of(a)
            .attack_tables
            .total_cmp(&super::analysis::PerNode::of(b).attack_tables)
    })?;
    let at_l3 = analysis
        .l3
        .and_then(|l3| {
            mailbox
                .iter()
                .filter(|c| c.ll_bytes == l3)
                .map(|c| super::analysis::PerNode::of(c).attack_tables)
                .reduce(f64::max)
        })
        .map_or(String::new(), |x| {
            format!(" and at most {} at the effective L3", width(x))
        });
    Some(format!(
        "The attack-table part is the backends' code, so it holds their reads of the occupancy \
         they are passed too: mailbox, which reads no table, misses there at most {} times a \
         node ({} at LL {}: its board cells, evicted by the evaluation's traffic){at_l3}.",
        width(super::analysis::PerNode::of(worst).attack_tables),
        worst.eval.name(),
        rounded_bytes(worst.ll_bytes as f64),
    ))
}

/// What the part `other` is made of, under nnue at the effective L3 (dbb's cell).
fn other_sentence(analysis: &Analysis<'_>) -> Option<String> {
    let cell = analysis
        .m
        .cell(RULE_PAIR[0], EvalKind::Nnue, analysis.l3?)
        .filter(|c| !c.other_files.is_empty())?;
    let nodes = cell.nodes.max(1) as f64;
    let files: Vec<String> = cell
        .other_files
        .iter()
        .map(|f| format!("{} {}", f.file, width(f.ll_misses as f64 / nodes)))
        .collect();
    Some(format!(
        "Under nnue at LL {}, dbb's part other ({} misses a node) is mostly {}.",
        rounded_bytes(cell.ll_bytes as f64),
        width(cell.part(Part::Other).ll_misses() as f64 / nodes),
        files.join(", ")
    ))
}

pub fn findings(analysis: &Analysis<'_>) -> String {
    let m = analysis.m;
    if let Some(why) = &m.unavailable {
        return format!(
            "Not measured on this machine: {why}. The other experiments are unaffected."
        );
    }
    let mut sentences: Vec<String> = analysis
        .answers
        .iter()
        .map(|a| answer_sentence(a, analysis.l3))
        .collect();
    sentences.extend(analysis.answers.iter().filter_map(reconciliation_sentence));
    sentences.extend(locality_sentence(analysis));
    sentences.extend(first_touch_sentence(analysis, EvalKind::Nnue));
    sentences.extend(small_level_sentence(analysis, EvalKind::Nnue));
    sentences.extend(control_sentence(analysis));
    sentences.extend(other_sentence(analysis));
    for a in &analysis.answers {
        if !a.verdict_range.is_empty() {
            let words: Vec<String> = a
                .verdict_range
                .iter()
                .map(|(ll, v)| format!("{} at {}", v.words(), rounded_bytes(*ll as f64)))
                .collect();
            sentences.push(format!(
                "Over the L3 E6's invocations saw, under {} it {}.",
                a.eval,
                words.join(", ")
            ));
        }
    }
    sentences.push(format!("The model: {LIMITS}."));
    if !m.failures.is_empty() {
        sentences.push(format!(
            "{} cell(s) failed: {}.",
            m.failures.len(),
            m.failures.join("; ")
        ));
    }
    sentences.join(" ")
}

pub fn method(m: &Measurement) -> String {
    let nodes = m.cells.first().map_or(String::new(), |c| {
        format!(" ({} nodes counted, {} warming)", c.nodes, c.warm_nodes)
    });
    format!(
        "Each cell is one backend's search of {} bench positions to depth {} (TT {} MiB){nodes} \
         under valgrind's callgrind with its cache simulation, I1 and D1 32 KiB 8-way, the last \
         level as the sweep gives it (16-way where valgrind allows), at the AVX2 level (valgrind \
         cannot run AVX-512). {} more positions are searched first on the same simulated caches \
         and TT and their costs zeroed, so the counts are a warm search's. dbb and magic-plain \
         are simulated at every size, bonanza, magic and pext at E6's L2 and L3 and mailbox at \
         the smallest size and the L3 (E13's six minutes). The simulation is deterministic: two \
         runs of a cell differ by at most {} in any event count (tested). Misses are split by \
         the source file of the missing instruction (per_file.rs states the method). D_sim is \
         magic-plain's last-level misses a node less dbb's under an evaluation, less the same \
         under material; it is priced at E6's memory less L3 latency and at E7's in-situ \
         table-miss cost, and read by rule.rs (version 1) at E6's effective L3. The table \
         lines are traced natively (attack_table_offsets) on the same search; every evaluation \
         walks the same tree, so they are traced once. The model: {LIMITS}.",
        m.positions,
        m.depth,
        m.tt_mib,
        m.positions,
        super::simulate::REPEATED_RUN_TOLERANCE
    )
}

/// Misses per node at one last level, every backend and evaluation.
fn counts_table(analysis: &Analysis<'_>, ll: usize) -> Table {
    let mut rows = Vec::new();
    for cell in analysis.m.cells.iter().filter(|c| c.ll_bytes == ll) {
        let p = super::analysis::PerNode::of(cell);
        rows.push(vec![
            cell.backend.clone(),
            cell.eval.name().to_string(),
            cell.nodes.to_string(),
            format!("{:.1}", p.refs),
            format!("{:.2}", p.l1),
            format!("{:.3}", p.ll),
            format!("{:.3}", p.attack_tables),
            format!("{:.3}", p.eval),
            format!("{:.3}", p.tt),
            format!("{:.3}", p.other),
        ]);
    }
    Table {
        headers: [
            &format!("backend (LL {})", rounded_bytes(ll as f64)),
            "evaluation",
            "nodes",
            "data refs / node",
            "L1 misses / node",
            "LL misses / node",
            "backend code (tables, occupancy)",
            "evaluation",
            "TT",
            "other",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

fn d_sim_table(analysis: &Analysis<'_>) -> Table {
    let mut headers = vec!["last level".to_string()];
    for a in &analysis.answers {
        headers.push(format!("D_sim {} (misses / node)", a.eval));
        headers.push(format!("priced {} (ns / node)", a.eval));
    }
    let rows = analysis
        .m
        .sizes()
        .into_iter()
        .map(|ll| {
            let mut row = vec![rounded_bytes(ll as f64)];
            for a in &analysis.answers {
                let eval = EvalKind::parse(a.eval).expect("an evaluation's own name");
                match analysis.d_sim(eval, ll) {
                    Some(d) => {
                        row.push(format!("{:+.4}", d.misses));
                        row.push(match (d.ns_low, d.ns_high) {
                            (Some(low), Some(high)) => format!("[{}, {}]", ns(low), ns(high)),
                            _ => "unpriced".into(),
                        });
                    }
                    None => row.extend(["—".to_string(), "—".to_string()]),
                }
            }
            row
        })
        .collect();
    Table { headers, rows }
}

fn trace_table(m: &Measurement) -> Table {
    let rows = m
        .traces
        .iter()
        .map(|t| {
            let t = &t.trace;
            vec![
                t.backend.clone(),
                format!("{:.2}", t.lookups_per_node()),
                format!("{:.2}", t.reads as f64 / t.lookups.max(1) as f64),
                format!("{:.0}", t.distinct_lines_per_1000_nodes),
                t.distinct_lines.to_string(),
                format!("{:.1} %", 100.0 * t.reuse_within(512)),
                format!("{:.1} %", 100.0 * t.reuse_within(4096)),
                format!("{:.1} %", 100.0 * t.reuse_within(65536)),
            ]
        })
        .collect();
    Table {
        headers: [
            "backend (traced natively, every evaluation)",
            "lookups / node",
            "table lines / lookup",
            "distinct table lines / 1,000 nodes",
            "distinct table lines (all)",
            "re-reads within 512 lines (32 KiB)",
            "within 4,096 (256 KiB)",
            "within 65,536 (4 MiB)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

fn markers(m: &Measurement) -> Vec<(f64, String)> {
    m.levels
        .iter()
        .map(|l| {
            (
                l.point as f64,
                format!("{} {}", l.name, compact_bytes(l.bytes as f64)),
            )
        })
        .collect()
}

/// D_sim and each backend's extra last-level misses against dbb over the sweep, per evaluation.
fn sweep_plots(analysis: &Analysis<'_>) -> Vec<Plot> {
    let m = analysis.m;
    let mut plots = Vec::new();
    for eval in D_EVALS.into_iter().filter(|&e| m.evals().contains(&e)) {
        let point = |ll: usize, y: f64| Point {
            x: ll as f64,
            y,
            y_low: y,
            y_high: y,
        };
        let mut lines = vec![PlotLine {
            name: "D_sim (magic-plain − dbb, less material's)".into(),
            points: m
                .sizes()
                .into_iter()
                .filter_map(|ll| Some(point(ll, analysis.d_sim_misses(eval, ll)?)))
                .collect(),
        }];
        let mut backends: Vec<&str> = m.cells.iter().map(|c| c.backend.as_str()).collect();
        backends.dedup();
        for backend in backends.into_iter().filter(|&b| b != "dbb") {
            lines.push(PlotLine {
                name: format!("{backend} − dbb"),
                points: m
                    .sizes()
                    .into_iter()
                    .filter_map(|ll| Some(point(ll, analysis.extra(backend, eval, ll)?)))
                    .collect(),
            });
        }
        plots.push(Plot {
            file_stem: format!("e13-d-sim-{}", eval.name()),
            title: format!(
                "Extra last-level misses a node against dbb, under {}",
                eval.name()
            ),
            x_label: "simulated last level".into(),
            y_label: "LL misses / node".into(),
            log_x: true,
            log_y: false,
            kind: PlotKind::Line,
            categories: Vec::new(),
            markers: markers(m),
            lines,
        });
    }
    plots
}

/// The attribution at the effective L3 under nnue: each backend's LL misses a node by part.
fn attribution_plot(analysis: &Analysis<'_>) -> Option<Plot> {
    let (m, ll) = (analysis.m, analysis.l3?);
    let cells: Vec<_> = m
        .cells
        .iter()
        .filter(|c| c.eval == EvalKind::Nnue && c.ll_bytes == ll)
        .collect();
    if cells.is_empty() {
        return None;
    }
    let lines = Part::ALL
        .iter()
        .map(|&part| PlotLine {
            name: part.name().replace('_', " "),
            points: cells
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let y = c.part(part).ll_misses() as f64 / c.nodes.max(1) as f64;
                    Point {
                        x: i as f64,
                        y,
                        y_low: y,
                        y_high: y,
                    }
                })
                .collect(),
        })
        .collect();
    Some(Plot {
        file_stem: "e13-attribution".into(),
        title: format!(
            "Last-level misses a node by part, nnue, LL {}",
            rounded_bytes(ll as f64)
        ),
        x_label: "backend".into(),
        y_label: "LL misses / node".into(),
        log_x: false,
        log_y: false,
        kind: PlotKind::StackedBar,
        categories: cells.iter().map(|c| c.backend.clone()).collect(),
        markers: Vec::new(),
        lines,
    })
}

pub fn result(analysis: &Analysis<'_>) -> ExperimentResult {
    let m = analysis.m;
    let summary = serde_json::to_value(analysis.summary()).expect("the summary serialises");
    let summary = match summary {
        serde_json::Value::Object(map) => map.into_iter().collect(),
        _ => Vec::new(),
    };
    let mut tables = Vec::new();
    if let Some(l3) = analysis.l3.filter(|l3| m.sizes().contains(l3)) {
        tables.push(counts_table(analysis, l3));
    }
    if !m.cells.is_empty() {
        tables.push(d_sim_table(analysis));
    }
    if !m.traces.is_empty() {
        tables.push(trace_table(m));
    }
    let mut plots = sweep_plots(analysis);
    plots.extend(attribution_plot(analysis));
    ExperimentResult {
        wall_seconds: None,
        id: ExperimentId::E13.to_string(),
        title: TITLE.to_string(),
        method: method(m),
        findings: findings(analysis),
        comparisons: Vec::new(),
        series: Vec::new(),
        tables,
        plots,
        summary,
    }
}
