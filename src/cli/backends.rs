//! `kiki backends`: every backend and layout variant with its availability, path, needs and exact
//! table bytes, and the run-time SIMD level in use.

use super::{CliError, Output};
use kiki_core::simd::{self, SimdLevel};
use kiki_core::units::exact_bytes;
use kiki_variants::registry;
use serde_json::{json, Value as Json};

pub fn run(json: bool) -> Result<(), CliError> {
    let out = Output::new("backends");
    let summaries = registry::summaries();
    let level = simd::level().name();
    let available: Vec<&str> = SimdLevel::available()
        .into_iter()
        .map(SimdLevel::name)
        .collect();
    if json {
        let list: Vec<Json> = summaries
            .iter()
            .map(|s| {
                let tables: Vec<Json> = s
                    .tables
                    .iter()
                    .map(|t| json!({"name": t.name, "shape": t.shape, "bytes": t.bytes}))
                    .collect();
                json!({
                    "name": s.info.name,
                    "description": s.info.description,
                    "layout": s.info.layout,
                    "needs": s.info.needs,
                    "available": s.availability.is_ok(),
                    "unavailable_reason": s.availability.as_ref().err(),
                    "simd_path": s.simd_path,
                    "table_bytes": s.table_bytes,
                    "table_bytes_human": exact_bytes(s.table_bytes),
                    "tables": tables,
                    // For a layout variant: its base backend and the one factor it changes
                    // (both null for a base backend).
                    "base": s.info.variant.map(|v| v.base),
                    "factor": s.info.variant.map(|v| v.factor.name()),
                    "change": s.info.variant.map(|v| v.change),
                    // The same for every backend: the level the run-time dispatched paths use
                    // in this process (--simd, KIKI_SIMD or the best) and the levels there are.
                    "simd_level": level,
                    "simd_levels_available": available,
                })
            })
            .collect();
        out.line(Json::Array(list))?;
        return out.flush();
    }
    out.line(format_args!("build: {}", build_description()))?;
    out.line(format_args!(
        "SIMD level: {level} (available: {})",
        available.join(", ")
    ))?;
    let all_tables = summaries.iter().flat_map(|s| s.tables.iter());
    let name_width = all_tables.clone().map(|t| t.name.len()).max().unwrap_or(0);
    let shape_width = all_tables
        .map(|t| t.shape.chars().count())
        .max()
        .unwrap_or(0);
    for s in &summaries {
        let availability = match &s.availability {
            Ok(()) => "available".to_string(),
            Err(reason) => format!("UNAVAILABLE: {reason}"),
        };
        let needs = if s.info.needs.is_empty() {
            "-".to_string()
        } else {
            s.info.needs.join(", ")
        };
        out.line("")?;
        out.line(format_args!("{:<12} {}", s.info.name, s.info.description))?;
        if let Some(variant) = s.info.variant {
            out.line(format_args!(
                "{:<12} layout variant of {}, factor {}: {}",
                "",
                variant.base,
                variant.factor.name(),
                variant.change
            ))?;
        }
        out.line(format_args!(
            "{:<12} {availability}; path: {}; needs: {needs}",
            "", s.simd_path
        ))?;
        out.line(format_args!("{:<12} layout: {}", "", s.info.layout))?;
        out.line(format_args!(
            "{:<12} tables: {}",
            "",
            exact_bytes(s.table_bytes)
        ))?;
        for table in &s.tables {
            out.line(format_args!(
                "{:<14} {:<name_width$}  {:<shape_width$}  {}",
                "",
                table.name,
                table.shape,
                exact_bytes(table.bytes)
            ))?;
        }
    }
    out.flush()
}

/// What this binary was compiled for.
pub fn build_description() -> String {
    let mut features = Vec::new();
    macro_rules! feature {
        ($($name:tt),*) => {$(
            if cfg!(target_feature = $name) {
                features.push($name);
            }
        )*};
    }
    feature!("sse4.1", "ssse3", "popcnt", "bmi1", "bmi2", "lzcnt", "avx2", "avx512f");
    format!(
        "{} profile, target features: {}{}",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        if features.is_empty() {
            "baseline".to_string()
        } else {
            features.join(" ")
        },
        if cfg!(feature = "portable") {
            ", feature 'portable' (SIMD paths forced to their portable twins)"
        } else {
            ""
        }
    )
}
