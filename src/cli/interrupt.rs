//! Ctrl-C for long runs: a clean one-line message and exit code 130, nothing half-written.

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
