//! The table-page split: every backend's attack tables on 4 KiB pages, then collapsed to 2 MiB
//! pages, each against pressure on both; its table, summary value and sentences.

use super::{Case, Mask, PageSize, Part, Tables};
use crate::experiments::e7_cache_pressure::measure::Measurement;
use crate::results::Table;
use crate::stats::{format_interval, Estimate};
use kiki_core::units::rounded_bytes;
use serde_json::{json, Map, Value as Json};

/// One backend's table-miss cost with its tables on 4 KiB and on 2 MiB pages (pressure on huge
/// pages), and what the collapse did.
pub struct PageSplit {
    pub backend: String,
    pub small: Estimate,
    pub huge: Estimate,
    /// The same two with the pressure buffer on 4 KiB pages.
    pub small_small_pressure: Option<Estimate>,
    pub huge_small_pressure: Option<Estimate>,
    /// Huge-page bytes of the tables before and after the collapse, where the kernel says.
    pub before: Option<usize>,
    pub after: Option<usize>,
    pub table_bytes: usize,
    /// Why the collapse failed, if it did.
    pub error: Option<String>,
}

/// The table-page split per backend.
pub struct Pages {
    pub splits: Vec<PageSplit>,
}

impl Pages {
    pub fn of(m: &Measurement, top_reads: u32) -> Pages {
        let splits = m
            .table_pages
            .iter()
            .filter_map(|t| {
                let at = |tables: PageSize, pressure: PageSize| {
                    Case {
                        part: Part::Pages,
                        reads: top_reads.max(1),
                        case: t.backend,
                        tables: Tables::On(tables),
                        pressure,
                    }
                    .cost((&m.chains, m.invocations), Mask::Full)
                };
                Some(PageSplit {
                    backend: t.backend.to_string(),
                    small: at(PageSize::Small, PageSize::Huge)?,
                    huge: at(PageSize::Huge, PageSize::Huge)?,
                    small_small_pressure: at(PageSize::Small, PageSize::Small),
                    huge_small_pressure: at(PageSize::Huge, PageSize::Small),
                    before: t.huge_before,
                    after: t.huge_after,
                    table_bytes: t.table_bytes,
                    error: t.collapse.clone().err(),
                })
            })
            .collect();
        Pages { splits }
    }

    /// `backend`'s split, where its tables were collapsed.
    pub fn collapsed(&self, backend: &str) -> Option<&PageSplit> {
        self.splits
            .iter()
            .find(|s| s.backend == backend && s.error.is_none())
    }

    pub fn table(&self) -> Option<Table> {
        if self.splits.is_empty() {
            return None;
        }
        let mut pages = Table {
            headers: vec![
                "backend".into(),
                "tables on 4 KiB pages".into(),
                "tables on 2 MiB pages".into(),
                "the same, pressure on 4 KiB pages".into(),
                "huge-page bytes after the collapse".into(),
            ],
            rows: Vec::new(),
        };
        for split in &self.splits {
            pages.rows.push(vec![
                split.backend.clone(),
                format_interval(&split.small),
                format_interval(&split.huge),
                format!(
                    "{} / {}",
                    split
                        .small_small_pressure
                        .as_ref()
                        .map_or("—".into(), format_interval),
                    split
                        .huge_small_pressure
                        .as_ref()
                        .map_or("—".into(), format_interval)
                ),
                match (split.after, &split.error) {
                    (_, Some(e)) => format!("not collapsed: {e}"),
                    (Some(granted), None) => format!(
                        "{} of {} (before: {})",
                        rounded_bytes(granted as f64),
                        rounded_bytes(split.table_bytes as f64),
                        split
                            .before
                            .map_or("unknown".into(), |b| rounded_bytes(b as f64))
                    ),
                    (None, None) => "unknown".into(),
                },
            ]);
        }
        Some(pages)
    }

    /// `table_pages`.
    pub fn summary(&self, top_reads: u32) -> Json {
        let mut pages = Map::new();
        for split in &self.splits {
            pages.insert(
                split.backend.clone(),
                json!({"small_ns": split.small.value, "small_low": split.small.low,
                       "small_high": split.small.high, "huge_ns": split.huge.value,
                       "huge_low": split.huge.low, "huge_high": split.huge.high,
                       "pressure_reads": top_reads.max(1)}),
            );
        }
        Json::Object(pages)
    }

    /// One sentence for the backends whose tables were collapsed (each one's cost on 4 KiB
    /// and on 2 MiB pages), one for each whose collapse the kernel refused.
    pub fn sentences(&self) -> Vec<String> {
        let collapsed: Vec<String> = self
            .splits
            .iter()
            .filter(|split| split.error.is_none())
            .map(|split| {
                format!(
                    "{} {} → {} ns ({} of {} on 2 MiB pages)",
                    split.backend,
                    format_interval(&split.small),
                    format_interval(&split.huge),
                    split
                        .after
                        .map_or("an unknown share".into(), |b| rounded_bytes(b as f64)),
                    rounded_bytes(split.table_bytes as f64)
                )
            })
            .collect();
        let mut out = Vec::new();
        if !collapsed.is_empty() {
            out.push(format!(
                "Table misses with the attack tables on 4 KiB → 2 MiB pages, at the top \
                 pressure (pressure on 2 MiB pages; the 4 KiB phase always runs first and \
                 nothing here controls the phase order, so each backend's pair is values, not \
                 a claim): {}.",
                collapsed.join("; ")
            ));
        }
        out.extend(self.splits.iter().filter_map(|split| {
            split.error.as_ref().map(|e| {
                format!(
                    "{}'s tables could not be collapsed to huge pages ({e}).",
                    split.backend
                )
            })
        }));
        out
    }
}
