//! E7's analysis: the measured points turned into series, plots, tables, summary values and the
//! numbers the findings quote (marginal costs, where each backend loses, the crossovers).

use super::measure::{Measured, Measurement};
use super::{EVAL_ALONE, IDLE, LOSS_FACTOR, MAIN_READS};
use crate::harness::experiments::{
    interval, interval_linear, interval_point, per_second_millions, series,
};
use crate::harness::results::{Plot, PlotKind, PlotLine, Point, Series, Table};
use crate::harness::stats::{format_interval, Estimate};
use crate::registry;
use crate::units::rounded_bytes;
use serde_json::Value as Json;

/// E7's series, plots and tables, and the numbers the findings and the summary quote.
pub(super) struct Analysis {
    pub series: Vec<Series>,
    pub plots: Vec<Plot>,
    /// The main table, then one table per counted event.
    pub tables: Vec<Table>,
    pub numbers: Numbers,
}

impl Analysis {
    /// Whether counter tables follow the main table.
    pub fn has_counter_tables(&self) -> bool {
        self.tables.len() > 1
    }
}

/// Turns E7's measurement into series, plots, tables and numbers.
pub(super) fn analyse(m: &Measurement) -> Analysis {
    let sweep = Sweep::new(m);
    let numbers = numbers(&sweep);
    let mut series = raw_series(&m.measured);
    series.extend(m.counter_log.series());
    let mut tables = vec![main_table(&numbers)];
    tables.extend(counter_tables(m));
    Analysis {
        series,
        plots: plots(&sweep),
        tables,
        numbers,
    }
}

/// The bytes of `name`'s tables (0 for a backend the registry does not list).
pub(super) fn table_bytes(name: &str) -> usize {
    registry::summaries()
        .into_iter()
        .find(|s| s.info.name == name)
        .map_or(0, |s| s.table_bytes)
}

/// Paired marginal cost per lookup: (backend − evaluation alone) per round, in ns.
fn marginal(
    measured: &[Measured],
    variant: &str,
    reads: u32,
    bytes: usize,
    backend: &str,
) -> Option<Estimate> {
    let find = |case: &str| {
        measured.iter().find(|m| {
            m.variant == variant && m.reads == reads && m.bytes == bytes && m.case == case
        })
    };
    let (with, alone) = (&find(backend)?.ns, &find(EVAL_ALONE)?.ns);
    // Round i of each was taken side by side, so the per-round differences pair them.
    if with.len() != alone.len() || with.is_empty() {
        return None;
    }
    let differences: Vec<f64> = with.iter().zip(alone).map(|(a, b)| a - b).collect();
    let estimate = interval_linear(&differences);
    (!estimate.value.is_nan()).then_some(estimate)
}

/// The smallest E from which the marginal cost stays above `LOSS_FACTOR` × its E = 0 cost.
pub(super) fn loses_from(costs: &[(usize, f64)]) -> Option<usize> {
    let base = costs.iter().find(|(b, _)| *b == 0)?.1;
    let mut from = None;
    for &(bytes, cost) in costs.iter().filter(|(b, _)| *b > 0) {
        if cost > LOSS_FACTOR * base {
            from.get_or_insert(bytes);
        } else {
            from = None;
        }
    }
    from
}

/// Every measured point as raw series: ns per iteration, and the other thread's read rate.
fn raw_series(measured: &[Measured]) -> Vec<Series> {
    let mut out = Vec::new();
    for m in measured {
        let reads = m.reads.to_string();
        let bytes = m.bytes.to_string();
        let labels = [
            ("variant", m.variant),
            ("case", m.case.as_str()),
            ("eval_bytes", bytes.as_str()),
            ("reads_per_lookup", reads.as_str()),
        ];
        out.push(series(&labels, "ns/iteration", m.ns.clone()));
        if !m.eval_reads_per_ns.is_empty() {
            out.push(series(
                &labels,
                "evaluation reads/ns (other thread)",
                m.eval_reads_per_ns.clone(),
            ));
        }
    }
    out
}

/// The measurement with what every plot over E shares: the x position of an E and the cache
/// size markers.
struct Sweep<'a> {
    m: &'a Measurement,
    markers: Vec<(f64, String)>,
}

impl<'a> Sweep<'a> {
    fn new(m: &'a Measurement) -> Sweep<'a> {
        let mut markers = vec![(8192.0, "E = 0".to_string())];
        for level in 1..=3u8 {
            if let Some(bytes) = m.machine.cache_bytes(level) {
                markers.push((bytes as f64, format!("L{level}")));
            }
        }
        Sweep { m, markers }
    }

    fn marginal(&self, variant: &str, reads: u32, bytes: usize, backend: &str) -> Option<Estimate> {
        marginal(&self.m.measured, variant, reads, bytes, backend)
    }

    /// A backend's marginal cost at every E of the main sweep it was measured at.
    fn costs(&self, variant: &str, reads: u32, backend: &str) -> Vec<(usize, Estimate)> {
        self.m
            .sizes
            .iter()
            .filter_map(|&b| self.marginal(variant, reads, b, backend).map(|s| (b, s)))
            .collect()
    }

    fn line_plot(
        &self,
        stem: &str,
        title: &str,
        y_label: &str,
        lines: Vec<PlotLine>,
        log_y: bool,
    ) -> Plot {
        Plot {
            file_stem: stem.to_string(),
            title: title.to_string(),
            x_label: "evaluation buffer E (bytes)".to_string(),
            y_label: y_label.to_string(),
            log_x: true,
            log_y,
            kind: PlotKind::Line,
            categories: Vec::new(),
            markers: self.markers.clone(),
            lines,
        }
    }
}

/// E = 0 sits at 8 KiB on the log axis (marked).
fn x_of(bytes: usize) -> f64 {
    if bytes == 0 {
        8192.0
    } else {
        bytes as f64
    }
}

/// Marginal costs can come out slightly negative when the lookups hide entirely behind the
/// evaluation misses; the plots keep the point but not below zero.
fn clamp_point(p: Point) -> Point {
    Point {
        x: p.x,
        y: p.y.max(0.0),
        y_low: p.y_low.max(0.0).min(p.y.max(0.0)),
        y_high: p.y_high.max(0.0),
    }
}

fn plots(s: &Sweep<'_>) -> Vec<Plot> {
    let mut plots = marginal_plots(s);
    plots.push(combined_rate_plot(s));
    plots.extend(thread_plots(s));
    plots.push(reads_plot(s));
    plots
}

/// The marginal cost of a lookup over E, on 4 KiB and on huge pages.
fn marginal_plots(s: &Sweep<'_>) -> Vec<Plot> {
    let mut plots = Vec::new();
    for (variant, words) in [("4k", "4 KiB pages"), ("huge", "huge pages")] {
        let lines =
            s.m.backends
                .iter()
                .map(|b| PlotLine {
                    name: b.to_string(),
                    points: s
                        .costs(variant, MAIN_READS, b)
                        .iter()
                        .map(|(bytes, c)| clamp_point(interval_point(x_of(*bytes), c)))
                        .collect(),
                })
                .collect();
        plots.push(s.line_plot(
            &format!("e7-marginal-cost-{variant}"),
            &format!("E7 marginal cost of a lookup beside {MAIN_READS} evaluation reads ({words})"),
            "ns per lookup beyond the evaluation alone (lower is better)",
            lines,
            false,
        ));
    }
    plots
}

/// Iterations per second of every case, the evaluation alone included (4 KiB pages).
fn combined_rate_plot(s: &Sweep<'_>) -> Plot {
    let lines: Vec<PlotLine> = s
        .m
        .backends
        .iter()
        .copied()
        .chain([EVAL_ALONE])
        .map(|case| PlotLine {
            name: case.to_string(),
            points: s
                .m
                .sizes
                .iter()
                .filter_map(|&bytes| {
                    s.m.measured
                        .iter()
                        .find(|m| {
                            m.variant == "4k"
                                && m.reads == MAIN_READS
                                && m.bytes == bytes
                                && m.case == case
                        })
                        .map(|m| {
                            interval_point(x_of(bytes), &interval(&m.ns).map(per_second_millions))
                        })
                })
                .collect(),
        })
        .collect();
    s.line_plot(
        "e7-combined-rate",
        &format!("E7 combined rate: iterations of 1 lookup + {MAIN_READS} evaluation reads (4 KiB pages)"),
        "million iterations / s (higher is better)",
        lines,
        true,
    )
}

/// The two-thread variant, where it ran: the evaluation thread's read rate beside each case,
/// and each backend's lookup rate.
fn thread_plots(s: &Sweep<'_>) -> Vec<Plot> {
    let threads = s.m.measured.iter().filter(|m| m.variant == "thread");
    let mut cases: Vec<String> = Vec::new();
    for m in threads {
        if !cases.contains(&m.case) {
            cases.push(m.case.clone());
        }
    }
    if cases.is_empty() {
        return Vec::new();
    }
    let lines = |rate: bool| -> Vec<PlotLine> {
        cases
            .iter()
            .filter(|c| rate || c.as_str() != IDLE)
            .map(|case| PlotLine {
                name: case.clone(),
                points: s
                    .m
                    .measured
                    .iter()
                    .filter(|m| m.variant == "thread" && &m.case == case)
                    .map(|m| {
                        if rate {
                            interval_point(
                                x_of(m.bytes),
                                &interval(&m.eval_reads_per_ns).map(|r| r * 1e3),
                            )
                        } else {
                            interval_point(x_of(m.bytes), &interval(&m.ns).map(per_second_millions))
                        }
                    })
                    .collect(),
            })
            .collect()
    };
    let (eval_cpu, main_cpu) = (s.m.eval_cpu, s.m.main_cpu);
    vec![
        s.line_plot(
            "e7-thread-eval-rate",
            &format!("E7 evaluation reads on CPU {eval_cpu} while each backend's lookups run on CPU {main_cpu}"),
            "million evaluation reads / s (higher is better)",
            lines(true),
            false,
        ),
        s.line_plot(
            "e7-thread-lookup-rate",
            &format!(
                "E7 lookups on CPU {main_cpu} while CPU {eval_cpu} reads the evaluation buffer"
            ),
            "million lookups / s (higher is better)",
            lines(false),
            false,
        ),
    ]
}

/// The marginal cost against reads per lookup, at the largest of the variants' sizes.
fn reads_plot(s: &Sweep<'_>) -> Plot {
    let widest = widest(s.m);
    let lines: Vec<PlotLine> =
        s.m.backends
            .iter()
            .map(|b| PlotLine {
                name: b.to_string(),
                points: [1u32, MAIN_READS, 16]
                    .iter()
                    .filter_map(|&r| {
                        s.marginal("4k", r, widest, b)
                            .map(|c| clamp_point(interval_point(r as f64, &c)))
                    })
                    .collect(),
            })
            .collect();
    Plot {
        file_stem: "e7-reads-per-lookup".to_string(),
        title: format!(
            "E7 marginal lookup cost against evaluation reads per lookup (E = {})",
            rounded_bytes(widest as f64)
        ),
        x_label: "evaluation reads per lookup".to_string(),
        y_label: "ns per lookup beyond the evaluation alone".to_string(),
        log_x: true,
        log_y: false,
        kind: PlotKind::Line,
        categories: Vec::new(),
        markers: Vec::new(),
        lines,
    }
}

/// The largest of the variants' sizes (0 where there are none).
fn widest(m: &Measurement) -> usize {
    *m.subset.last().unwrap_or(&0)
}

/// What the findings, the main table and the summary quote.
pub(super) struct Numbers {
    /// The largest E of the main sweeps.
    pub max_e: usize,
    /// The largest E of the variants.
    pub widest: usize,
    /// Per backend, in the order measured.
    pub backends: Vec<BackendCosts>,
    /// Marginal costs whose 95 % interval is wider than their value, of all computed.
    pub unresolved: usize,
    pub points: usize,
    /// The cheapest backend along the 4 KiB sweep, from each E where it changes.
    pub leaders: Vec<(usize, &'static str)>,
    /// Per backend, the median marginal cost at `widest` with 1 and with 16 reads per lookup.
    pub reads: Vec<(&'static str, f64, f64)>,
    /// The two-thread variant at `widest`, where it ran.
    pub thread: Option<ThreadRates>,
}

impl Numbers {
    pub fn at_max(&self) -> Vec<AtMax<'static>> {
        self.backends.iter().filter_map(|b| b.at_max).collect()
    }
}

/// One backend's median marginal costs on the main sweeps.
pub(super) struct BackendCosts {
    pub backend: &'static str,
    pub table_bytes: usize,
    pub small: PageCosts,
    pub huge: PageCosts,
    /// On 4 KiB pages, with the sample range at the largest E (for the seed's verdict).
    pub at_max: Option<AtMax<'static>>,
}

/// One backend's marginal lookup cost at E = 0 and at the largest E (with its 95 % interval),
/// for the seed's verdict.
#[derive(Clone, Copy, Debug)]
pub(super) struct AtMax<'a> {
    pub backend: &'a str,
    pub base: f64,
    pub last: f64,
    pub last_low: f64,
    pub last_high: f64,
}

/// Median marginal costs on one page size: at E = 0, at the largest E, and where it loses.
#[derive(Clone, Copy)]
pub(super) struct PageCosts {
    pub base: Option<f64>,
    pub last: Option<f64>,
    /// The same two with their intervals, for the table.
    pub base_interval: Option<Estimate>,
    pub last_interval: Option<Estimate>,
    pub loses_from: Option<usize>,
}

/// The evaluation thread's median read rate (reads/ns) beside the idle loop, and beside each
/// backend's lookups as a relative change from it.
pub(super) struct ThreadRates {
    pub idle: f64,
    pub change: Vec<(&'static str, f64)>,
}

fn numbers(s: &Sweep<'_>) -> Numbers {
    let m = s.m;
    let max_e = *m.sizes.last().unwrap_or(&0);
    let widest = widest(m);
    let (unresolved, points) = unresolved(&m.measured);
    Numbers {
        max_e,
        widest,
        backends: m
            .backends
            .iter()
            .map(|&b| backend_costs(s, b, max_e))
            .collect(),
        unresolved,
        points,
        leaders: leaders(s),
        reads: m
            .backends
            .iter()
            .filter_map(|&b| {
                let one = s.marginal("4k", 1, widest, b)?.value;
                let sixteen = s.marginal("4k", 16, widest, b)?.value;
                Some((b, one, sixteen))
            })
            .collect(),
        thread: thread_rates(m, widest),
    }
}

fn backend_costs(s: &Sweep<'_>, backend: &'static str, max_e: usize) -> BackendCosts {
    let page_costs = |variant: &str| {
        let c = s.costs(variant, MAIN_READS, backend);
        let medians: Vec<(usize, f64)> = c.iter().map(|(b, c)| (*b, c.value)).collect();
        let at = |bytes: usize| c.iter().find(|(b, _)| *b == bytes).map(|x| x.1);
        let costs = PageCosts {
            base: medians.iter().find(|(b, _)| *b == 0).map(|x| x.1),
            last: medians.iter().find(|(b, _)| *b == max_e).map(|x| x.1),
            base_interval: at(0),
            last_interval: at(max_e),
            // It loses where the whole interval at E lies above the factor times the top of
            // the E = 0 interval: neither point value decides it.
            loses_from: loses_from(
                &c.iter()
                    .map(|(b, c)| (*b, if *b == 0 { c.high } else { c.low }))
                    .collect::<Vec<_>>(),
            ),
        };
        let spread = c
            .iter()
            .find(|(b, _)| *b == max_e)
            .map(|(_, c)| (c.low, c.high));
        (costs, spread)
    };
    let (small, spread) = page_costs("4k");
    let (huge, _) = page_costs("huge");
    let at_max = match (small.base, small.last, spread) {
        (Some(base), Some(last), Some((last_low, last_high))) => Some(AtMax {
            backend,
            base,
            last,
            last_low,
            last_high,
        }),
        _ => None,
    };
    BackendCosts {
        backend,
        table_bytes: table_bytes(backend),
        small,
        huge,
        at_max,
    }
}

/// How many marginal costs the noise leaves unresolved (spread wider than the value), of how
/// many.
fn unresolved(measured: &[Measured]) -> (usize, usize) {
    let mut points = 0;
    let mut unresolved = 0;
    for m in measured
        .iter()
        .filter(|m| m.variant != "thread" && m.case != EVAL_ALONE)
    {
        if let Some(s) = marginal(measured, m.variant, m.reads, m.bytes, &m.case) {
            points += 1;
            if s.high - s.low > s.value.abs() {
                unresolved += 1;
            }
        }
    }
    (unresolved, points)
}

/// Leader changes along the 4 KiB sweep: the crossover points.
fn leaders(s: &Sweep<'_>) -> Vec<(usize, &'static str)> {
    let mut leaders: Vec<(usize, &'static str)> = Vec::new();
    for &bytes in &s.m.sizes {
        let best =
            s.m.backends
                .iter()
                .filter_map(|b| {
                    s.marginal("4k", MAIN_READS, bytes, b)
                        .map(|c| (*b, c.value))
                })
                .min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((b, _)) = best {
            if leaders.last().map(|l| l.1) != Some(b) {
                leaders.push((bytes, b));
            }
        }
    }
    leaders
}

/// Two threads: what each backend's lookups cost the evaluation on the other core.
fn thread_rates(m: &Measurement, widest: usize) -> Option<ThreadRates> {
    let thread_at = |case: &str| {
        m.measured
            .iter()
            .find(|p| p.variant == "thread" && p.case == case && p.bytes == widest)
    };
    let idle = interval(&thread_at(IDLE)?.eval_reads_per_ns).value;
    let change = m
        .backends
        .iter()
        .filter_map(|&b| {
            let rate = interval(&thread_at(b)?.eval_reads_per_ns).value;
            Some((b, rate / idle - 1.0))
        })
        .collect();
    Some(ThreadRates { idle, change })
}

/// Per backend: its tables, E = 0 cost, and the cost at the largest E and where it loses on
/// each page size.
fn main_table(n: &Numbers) -> Table {
    let max_e = rounded_bytes(n.max_e as f64);
    let headers = vec![
        "backend".to_string(),
        "tables".to_string(),
        "ns/lookup at E = 0".to_string(),
        format!("ns at E = {max_e} (4 KiB)"),
        "loses from (4 KiB)".to_string(),
        format!("ns at E = {max_e} (huge)"),
        "loses from (huge)".to_string(),
    ];
    let cost = |c: Option<Estimate>| c.map_or("–".into(), |c| format_interval(&c));
    let from = |f: Option<usize>| f.map_or("never".into(), |b| rounded_bytes(b as f64));
    let rows = n
        .backends
        .iter()
        .map(|b| {
            vec![
                b.backend.to_string(),
                rounded_bytes(b.table_bytes as f64),
                cost(b.small.base_interval),
                cost(b.small.last_interval),
                from(b.small.loses_from),
                cost(b.huge.last_interval),
                from(b.huge.loses_from),
            ]
        })
        .collect();
    Table { headers, rows }
}

/// Counter tables: 4 KiB pages, E = 0 and the variants' sizes (every E is in results.json).
fn counter_tables(m: &Measurement) -> Vec<Table> {
    let shown: Vec<String> = std::iter::once(0)
        .chain(m.subset.iter().copied())
        .map(|b| rounded_bytes(b as f64))
        .collect();
    m.counter_log.pivots("backend", "E", |label| {
        label("pages").as_deref() == Some("4k") && label("E").is_some_and(|e| shown.contains(&e))
    })
}

/// The values the index keeps: unresolved points, where each backend loses, the leaders and
/// the seed's verdict.
pub(super) fn summary(n: &Numbers, verdict: String) -> Vec<(String, Json)> {
    let loses_from = n
        .backends
        .iter()
        .flat_map(|b| [("4k", b.small), ("huge", b.huge)].map(|(v, c)| (b.backend, v, c)))
        .map(|(backend, variant, c)| {
            (
                format!("{backend}/{variant}"),
                c.loses_from.map_or(Json::Null, |b| Json::from(b as u64)),
            )
        })
        .collect();
    let leaders = n
        .leaders
        .iter()
        .map(|(bytes, b)| serde_json::json!({"from_bytes": *bytes as u64, "backend": *b}))
        .collect();
    vec![
        (
            "unresolved_points".to_string(),
            Json::from(format!("{} of {}", n.unresolved, n.points)),
        ),
        ("loses_from_bytes".to_string(), Json::Object(loses_from)),
        ("leaders".to_string(), Json::Array(leaders)),
        ("seed_004_verdict".to_string(), Json::from(verdict)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn losing_point_needs_the_cost_to_stay_high() {
        let costs = [
            (0, 2.0),
            (16, 2.1),
            (32, 2.6),
            (64, 2.2),
            (128, 3.0),
            (256, 4.0),
        ];
        assert_eq!(loses_from(&costs), Some(128));
        assert_eq!(loses_from(&[(0, 2.0), (16, 2.0)]), None);
        assert_eq!(loses_from(&[(16, 9.0)]), None);
    }
}
