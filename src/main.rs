//! The `kiki` binary: hands the arguments to `kiki::cli` and exits with its code.

fn main() {
    restore_default_sigpipe();
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
    std::process::exit(kiki::cli::run(&args));
}

/// Rust ignores SIGPIPE, which turns `kiki backends | head` into a write error on the next
/// print; a command-line tool should simply stop, as other Unix tools do.
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: installing the default disposition for SIGPIPE has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
