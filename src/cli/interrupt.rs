//! Ctrl-C for long runs: a clean one-line message and exit code 130, nothing half-written;
//! for `kiki report`, its child invocations stopped and its scratch kept or removed.

use std::path::PathBuf;

/// Installs the handler: on SIGINT (or SIGTERM) the process ends the current progress line,
/// says it was interrupted and exits with 130. Output lines are written whole (one `write` each),
/// so what reached stdout before is complete.
pub(crate) fn install(command: &'static str) {
    #[cfg(unix)]
    unix::install(command);
    #[cfg(not(unix))]
    let _ = command;
}

#[cfg(unix)]
mod unix {
    use std::sync::OnceLock;

    /// The message, built before the signal can arrive (the handler may not allocate).
    static MESSAGE: OnceLock<Vec<u8>> = OnceLock::new();

    extern "C" fn on_interrupt(_signal: libc::c_int) {
        let message: &[u8] = MESSAGE
            .get()
            .map_or(b"\nkiki: interrupted\n", Vec::as_slice);
        // SAFETY: write(2) and _exit(2) are async-signal-safe; the buffer is a static.
        unsafe {
            libc::write(2, message.as_ptr().cast(), message.len());
            libc::_exit(super::super::EXIT_INTERRUPTED);
        }
    }

    pub(super) fn install(command: &'static str) {
        let _ = MESSAGE.set(format!("\nkiki {command}: interrupted\n").into_bytes());
        let handler = on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t;
        // SAFETY: installing a handler that only calls async-signal-safe functions.
        unsafe {
            libc::signal(libc::SIGINT, handler);
            libc::signal(libc::SIGTERM, handler);
        }
    }
}

/// Set once a signal stops `kiki report` (its handler then exits the process).
static STOPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `kiki report`: on SIGINT or SIGTERM, stops the schedule `watch` watches (the running child
/// killed and reaped, the measurements so far kept under `out` or the scratch removed), says
/// which in one line and exits with 130.
pub(crate) fn stop_on_signal(watch: std::sync::Arc<kiki_harness::watch::Watch>, out: PathBuf) {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGINT, SIGTERM};
        use std::io::IsTerminal;
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
            return;
        };
        std::thread::spawn(move || {
            if signals.forever().next().is_some() {
                STOPPING.store(true, std::sync::atomic::Ordering::SeqCst);
                let message = watch.stop(&out).message();
                // End a progress line first.
                let lead = if std::io::stderr().is_terminal() {
                    "\n"
                } else {
                    ""
                };
                eprintln!("{lead}{message}");
                std::process::exit(super::EXIT_INTERRUPTED);
            }
        });
    }
    #[cfg(not(unix))]
    let _ = (watch, out);
}

/// Returns unless a signal is stopping the report: then waits for its handler to exit.
pub(crate) fn unless_stopping() {
    while STOPPING.load(std::sync::atomic::Ordering::SeqCst) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A child invocation of `kiki report`: its parent handles Ctrl-C (and kills it), and it dies
/// with its parent.
pub(crate) fn child_mode() {
    #[cfg(target_os = "linux")]
    // SAFETY: ignoring SIGINT and asking for SIGKILL when the parent dies touch no memory.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_IGN);
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
}
