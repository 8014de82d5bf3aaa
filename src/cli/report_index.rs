//! `kiki report-index`: rebuilds `reports/README.md` (`kiki_harness::index`) and says what it
//! left out.

use super::{CliError, Output};
use kiki_harness::index::rebuild;
use std::path::Path;

pub fn run(dir: &Path) -> Result<(), CliError> {
    let out = Output::new("report-index");
    let rebuilt = rebuild(dir).map_err(|message| CliError {
        message: format!("kiki report-index: {message}"),
        code: 1,
    })?;
    for reason in &rebuilt.skipped {
        super::warn(format!("kiki report-index: {reason}"));
    }
    for reason in &rebuilt.stale {
        super::warn(format!(
            "kiki report-index: {reason}; retire it (git rm, and list it in superseded.json)"
        ));
    }
    out.line(format_args!(
        "{}: {} report folder(s), {} current",
        dir.join("README.md").display(),
        rebuilt.indexed,
        rebuilt.current
    ))?;
    out.flush()?;
    if !rebuilt.skipped.is_empty() {
        return Err(CliError::failed(format!(
            "kiki report-index: {} report folder(s) left out of the index, see above",
            rebuilt.skipped.len()
        )));
    }
    Ok(())
}
