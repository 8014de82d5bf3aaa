//! `kiki backends`: every backend with its availability, path, needs and exact table bytes.

use super::{CliError, Output};
use crate::json::Json;
use crate::registry;
use crate::units::exact_bytes;

pub fn run(json: bool) -> Result<(), CliError> {
    let out = Output::new("backends");
    let summaries = registry::summaries();
    if json {
        let list = summaries
            .iter()
            .map(|s| {
                Json::object([
                    ("name", Json::str(s.info.name)),
                    ("description", Json::str(s.info.description)),
                    ("layout", Json::str(s.info.layout)),
                    (
                        "needs",
                        Json::Array(s.info.needs.iter().map(|n| Json::str(*n)).collect()),
                    ),
                    ("available", Json::Bool(s.availability.is_ok())),
                    (
                        "unavailable_reason",
                        match &s.availability {
                            Ok(()) => Json::Null,
                            Err(reason) => Json::str(reason.clone()),
                        },
                    ),
                    ("simd_path", Json::str(s.simd_path)),
                    ("table_bytes", Json::Int(s.table_bytes as i128)),
                    ("table_bytes_human", Json::str(exact_bytes(s.table_bytes))),
                    (
                        "tables",
                        Json::Array(
                            s.tables
                                .iter()
                                .map(|t| {
                                    Json::object([
                                        ("name", Json::str(t.name)),
                                        ("shape", Json::str(t.shape.clone())),
                                        ("bytes", Json::Int(t.bytes as i128)),
                                    ])
                                })
                                .collect(),
                        ),
                    ),
                ])
            })
            .collect();
        out.line(Json::Array(list).render())?;
        return out.flush();
    }
    out.line(format_args!("build: {}", build_description()))?;
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
