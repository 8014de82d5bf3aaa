//! Reading a report's `results.json` back: size, JSON, schema version and shape checked, each
//! failure one line (the index, `kiki render`, E9's child reports and the tests read through it).

use super::results::{Report, READABLE_SCHEMAS};
use kiki_core::input::quote_input;
use serde_json::Value;
use std::fs;
use std::io::Read;
use std::path::Path;

/// The largest `results.json` read back (a full report's is about 1.5 MB).
pub const MAX_RESULTS_BYTES: u64 = 256 << 20;

/// Reads and checks one `results.json`; the error says what is wrong, in one line: a file too
/// large or unreadable, not JSON, not an object, a `schema_version` this build cannot read, or a
/// shape that does not match it.
pub fn read_report(path: &Path) -> Result<Report, String> {
    let shown = quote_input(&path.display().to_string());
    let file = fs::File::open(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let mut text = String::new();
    file.take(MAX_RESULTS_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if text.len() as u64 > MAX_RESULTS_BYTES {
        return Err(format!(
            "{shown} is larger than {} MiB",
            MAX_RESULTS_BYTES >> 20
        ));
    }
    parse_report(&text)
}

/// Parses and checks the text of a `results.json` (see [`read_report`]).
pub fn parse_report(text: &str) -> Result<Report, String> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("results.json is not JSON: {e}"))?;
    check_shape(&value)?;
    serde_json::from_value(value).map_err(|e| format!("results.json: {e}"))
}

/// `1, 2 and 3`.
pub(crate) fn list(versions: &[u32]) -> String {
    let text: Vec<String> = versions.iter().map(u32::to_string).collect();
    match text.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => text.join(""),
    }
}

fn json_kind(json: &Value) -> &'static str {
    match json {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The checks that give the clearest messages, made before the typed reading: an object with a
/// readable `schema_version`, a `machine` object and an `experiments` array of objects with
/// string ids.
fn check_shape(json: &Value) -> Result<(), String> {
    let Value::Object(fields) = json else {
        return Err(format!(
            "results.json is {}, not an object",
            json_kind(json)
        ));
    };
    let readable = list(&READABLE_SCHEMAS);
    match fields.get("schema_version") {
        None => return Err("results.json has no schema_version".into()),
        Some(Value::Number(number)) => {
            if !number
                .as_u64()
                .is_some_and(|v| READABLE_SCHEMAS.iter().any(|&r| u64::from(r) == v))
            {
                return Err(format!(
                    "results.json has schema_version {number}, this kiki reads {readable}"
                ));
            }
        }
        Some(other) => {
            return Err(format!(
                "results.json schema_version is {}, not a number",
                json_kind(other)
            ))
        }
    }
    match fields.get("machine") {
        Some(Value::Object(_)) => {}
        Some(other) => {
            return Err(format!(
                "results.json machine is {}, not an object",
                json_kind(other)
            ))
        }
        None => return Err("results.json has no machine".into()),
    }
    let experiments = match fields.get("experiments") {
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(format!(
                "results.json experiments is {}, not an array",
                json_kind(other)
            ))
        }
        None => return Err("results.json has no experiments".into()),
    };
    for (index, experiment) in experiments.iter().enumerate() {
        if !experiment.is_object() {
            return Err(format!(
                "results.json experiments[{index}] is {}, not an object",
                json_kind(experiment)
            ));
        }
        if !experiment.get("id").is_some_and(Value::is_string) {
            return Err(format!(
                "results.json experiments[{index}] has no string id"
            ));
        }
    }
    Ok(())
}
