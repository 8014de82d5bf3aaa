//! The dose–response: at the top pressure, each backend's table-miss cost with its attack
//! tables masked to footprints of growing size, then whole; its table, plot and sentences.

use super::{level_markers, Case, Mask, Part};
use crate::experiments::and_list;
use crate::experiments::e7_cache_pressure::measure::{attack_table_bytes, dose_case, Measurement};
use crate::experiments::interval_point;
use crate::results::{Plot, PlotKind, PlotLine, Table};
use crate::stats::{format_interval, Estimate};
use kiki_core::units::rounded_bytes;

/// Per backend with big tables: cost per masked footprint (bytes) at the top pressure.
pub struct Dose {
    pub backends: Vec<(String, Vec<(usize, Estimate)>)>,
}

impl Dose {
    pub fn of(m: &Measurement, top_reads: u32) -> Dose {
        let backends = m
            .backends
            .iter()
            .filter_map(|&name| {
                let table = attack_table_bytes(name);
                let points: Vec<(usize, Estimate)> = m
                    .dose_masks
                    .iter()
                    .filter(|&&mask| mask + 1 < table)
                    .chain([usize::MAX].iter())
                    .filter_map(|&mask| {
                        let case = dose_case(name, mask);
                        Case {
                            part: Part::Dose,
                            ..Case::chain(top_reads, &case)
                        }
                        .cost((&m.chains, m.invocations), Mask::Bytes(mask))
                        .map(|e| (mask.saturating_add(1).min(table), e))
                    })
                    .collect();
                (points.len() >= 2).then(|| (name.to_string(), points))
            })
            .collect();
        Dose { backends }
    }

    /// `backend`'s costs by footprint, where measured.
    pub fn of_backend(&self, backend: &str) -> Option<&[(usize, Estimate)]> {
        self.backends
            .iter()
            .find(|(b, _)| b == backend)
            .map(|(_, p)| p.as_slice())
    }

    pub fn plot(&self, m: &Measurement, top_reads: u32) -> Option<Plot> {
        if self.backends.is_empty() {
            return None;
        }
        Some(Plot {
            file_stem: "e7_dose_response".into(),
            title: format!(
                "Dose–response at {top_reads} pressure reads per node: cost against the table \
                 footprint read"
            ),
            x_label: "attack-table bytes read (masked footprint)".into(),
            y_label: "ns per lookup".into(),
            log_x: true,
            log_y: false,
            kind: PlotKind::Line,
            categories: Vec::new(),
            markers: level_markers(m),
            lines: self
                .backends
                .iter()
                .map(|(name, points)| PlotLine {
                    name: name.clone(),
                    points: points
                        .iter()
                        .map(|(bytes, e)| interval_point(*bytes as f64, e))
                        .collect(),
                })
                .collect(),
        })
    }

    pub fn table(&self, m: &Measurement) -> Option<Table> {
        if self.backends.is_empty() {
            return None;
        }
        let mut dose = Table {
            headers: vec!["backend".into()],
            rows: Vec::new(),
        };
        dose.headers
            .extend(m.dose_masks.iter().map(|m| rounded_bytes((m + 1) as f64)));
        dose.headers.push("full table".into());
        for (name, points) in &self.backends {
            let mut row = vec![name.clone()];
            for &mask in &m.dose_masks {
                row.push(
                    points
                        .iter()
                        .find(|(b, _)| *b == mask + 1)
                        .map_or("—".into(), |(_, e)| format_interval(e)),
                );
            }
            row.push(points.last().map_or("—".into(), |(b, e)| {
                format!("{} ({})", format_interval(e), rounded_bytes(*b as f64))
            }));
            dose.rows.push(row);
        }
        Some(dose)
    }

    pub fn sentences(&self, top: u32) -> Vec<String> {
        self.backends
            .iter()
            .map(|(name, points)| {
                format!(
                    "{name}'s cost by the footprint it reads (one sweep at P = {top}, each \
                     footprint a case of its own): {}.",
                    and_list(
                        &points
                            .iter()
                            .map(|(b, e)| format!(
                                "{} ns at {}",
                                format_interval(e),
                                rounded_bytes(*b as f64)
                            ))
                            .collect::<Vec<_>>()
                    )
                )
            })
            .collect()
    }
}
