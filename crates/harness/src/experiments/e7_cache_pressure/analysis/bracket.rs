//! The bracket: the former free-running design, each backend's marginal cost over the
//! evaluation reads alone at E = 0 and at E = the pressure buffer; its series, table, plot and
//! sentence (values, not claims).

use super::paired;
use crate::experiments::e7_cache_pressure::measure::{attack_table_bytes, Measurement};
use crate::experiments::e7_cache_pressure::{EVAL_ALONE, NEGATIVE_CONTROLS};
use crate::experiments::{and_list, interval_linear, interval_point, series};
use crate::results::{Plot, PlotKind, PlotLine, Series, Table};
use crate::stats::{format_interval, Estimate};
use kiki_core::units::rounded_bytes;

/// The bracket per backend: marginal cost at E = 0 and at E = the pressure buffer.
pub struct Brackets {
    pub backends: Vec<(String, Estimate, Estimate)>,
}

pub fn raw_series(m: &Measurement) -> Vec<Series> {
    m.bracket
        .iter()
        .map(|b| {
            let bytes = b.bytes.to_string();
            series(
                &[
                    ("part", "bracket"),
                    ("case", &b.case),
                    ("eval_bytes", &bytes),
                ],
                "ns/iteration",
                b.ns.clone(),
            )
        })
        .collect()
}

impl Brackets {
    /// The bracket's marginal cost per lookup: (backend − evaluation alone) per round, at E = 0
    /// and at E = the pressure buffer.
    pub fn of(m: &Measurement) -> Brackets {
        let marginal = |bytes: usize, name: &str| {
            let find = |case: &str| {
                m.bracket
                    .iter()
                    .find(|b| b.bytes == bytes && b.case == case)
            };
            let d = paired(&find(name)?.ns, &find(EVAL_ALONE)?.ns)?;
            Some(interval_linear(&d, m.invocations))
        };
        let backends = m
            .backends
            .iter()
            .filter_map(|&name| {
                Some((
                    name.to_string(),
                    marginal(0, name)?,
                    marginal(m.pressure_bytes, name)?,
                ))
            })
            .collect();
        Brackets { backends }
    }

    pub fn plot(&self, m: &Measurement) -> Option<Plot> {
        if self.backends.is_empty() {
            return None;
        }
        let e = rounded_bytes(m.pressure_bytes as f64);
        Some(Plot {
            file_stem: "e7_bracket".into(),
            title: format!("Free-running bracket: marginal cost at E = {e} against at E = 0"),
            x_label: "marginal ns per lookup at E = 0".into(),
            y_label: format!("marginal ns per lookup at E = {e}"),
            log_x: false,
            log_y: false,
            kind: PlotKind::Line,
            categories: Vec::new(),
            markers: Vec::new(),
            lines: self
                .backends
                .iter()
                .map(|(name, at0, at_e)| PlotLine {
                    name: name.clone(),
                    points: vec![interval_point(at0.value, at_e)],
                })
                .collect(),
        })
    }

    pub fn table(&self, m: &Measurement) -> Option<Table> {
        if self.backends.is_empty() {
            return None;
        }
        let rows = self.backends.iter().map(|(name, a, b)| {
            let ratio = format!("×{:.2}", b.value / a.value);
            vec![name.clone(), format_interval(a), format_interval(b), ratio]
        });
        Some(Table {
            headers: vec![
                "backend".into(),
                "marginal ns at E = 0".into(),
                format!("at E = {}", rounded_bytes(m.pressure_bytes as f64)),
                "ratio of values".into(),
            ],
            rows: rows.collect(),
        })
    }

    /// How the marginal costs grow in that design, tables or none.
    pub fn sentence(&self, m: &Measurement) -> Option<String> {
        if self.backends.is_empty() {
            return None;
        }
        let growth = |name: &str| {
            self.backends
                .iter()
                .find(|(b, a, _)| b == name && a.value > 0.0)
                .map(|(_, a, b)| b.value / a.value)
        };
        let tables: Vec<f64> = self
            .backends
            .iter()
            .filter(|(name, _, _)| attack_table_bytes(name) > 0)
            .filter_map(|(name, _, _)| growth(name))
            .collect();
        let controls: Vec<String> = NEGATIVE_CONTROLS
            .iter()
            .filter_map(|name| growth(name).map(|g| format!("{name} ×{g:.2}")))
            .collect();
        let (lo, hi) = tables
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), r| {
                (l.min(*r), h.max(*r))
            });
        (lo.is_finite() && !controls.is_empty()).then(|| {
            format!(
                "In the free-running bracket (no dependency, no timing per node) the backends \
                 with tables see their marginal cost grow ×{lo:.2} to ×{hi:.2} from E = 0 to \
                 E = {}, and the backends without tables to miss grow too ({}): growth in that \
                 design does not isolate table misses, which is why it cannot decide the \
                 question (its ratios are values, not claims).",
                rounded_bytes(m.pressure_bytes as f64),
                and_list(&controls)
            )
        })
    }
}
