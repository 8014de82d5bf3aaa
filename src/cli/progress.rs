//! Progress bars with an estimated time left, on stderr and only on a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// A bar over `total` units; hidden unless stderr is a terminal (logs and pipes stay clean).
pub(crate) fn bar(total: u64, unit: &str) -> ProgressBar {
    styled(
        total,
        &format!(
            "{{spinner}} [{{elapsed_precise}}] [{{bar:30}}] {{human_pos}}/{{human_len}} {unit} \
             ({{percent}}%, ETA {{eta}}) {{msg}}"
        ),
    )
}

/// A bar that shows only the share done (for work measured in fractions, not units).
pub(crate) fn share_bar(steps: u64) -> ProgressBar {
    styled(
        steps,
        "{spinner} [{elapsed_precise}] [{bar:30}] {percent:>3}% (ETA {eta}) {msg}",
    )
}

fn styled(total: u64, template: &str) -> ProgressBar {
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr_with_hz(4)
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(total), target);
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("#>-"));
    }
    bar.enable_steady_tick(Duration::from_millis(250));
    bar
}
