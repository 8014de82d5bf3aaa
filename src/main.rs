//! The `kiki` binary: hands the arguments to `kiki::cli` and exits with its code.

fn main() {
    restore_default_sigpipe();
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(kiki::cli::run(&args));
}

/// Rust ignores SIGPIPE, which turns `kiki backends | head` into a panic on the next print;
/// a command-line tool should simply stop, as other Unix tools do.
fn restore_default_sigpipe() {
    #[cfg(unix)]
    {
        extern "C" {
            fn signal(signum: i32, handler: usize) -> usize;
        }
        const SIGPIPE: i32 = 13;
        const SIG_DFL: usize = 0;
        // SAFETY: installing the default disposition for SIGPIPE has no preconditions.
        unsafe {
            signal(SIGPIPE, SIG_DFL);
        }
    }
}
