//! `kiki compare A B`: is B faster than A, slower, or level within ±P %? Paired processes until
//! a sequential interval answers or the time cap is reached; Ctrl-C prints the state so far.

use super::{CliError, Output};
use kiki_core::input::quote_input;
use kiki_engine::search::eval::EvalKind;
use kiki_harness::compare::{self, Launcher, Request, Sizing, Stop};
use kiki_harness::watch::Watch;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub(crate) struct CompareArgs {
    /// The backend or layout variant A (the reference: t(B) − t(A) is reported).
    #[arg(value_name = "A", required_unless_present = "child")]
    a: Option<String>,
    /// The backend or layout variant B.
    #[arg(value_name = "B", required_unless_present = "child")]
    b: Option<String>,
    /// The evaluation computed at every node: material, nnue (64 MB of tables) or kpp (214 MB).
    #[arg(long, default_value = "nnue", value_parser = EvalKind::parse, value_name = "EVAL")]
    eval: EvalKind,
    /// The time cap in minutes (a decimal above 0): at the cap the repeated interval is reported.
    #[arg(long, default_value = "10", value_parser = minutes, allow_negative_numbers = true, value_name = "M")]
    max_minutes: f64,
    /// The threshold T in % of t(A): faster (U < −T), slower (L > +T), level (inside ±T).
    #[arg(long, default_value = "3", value_parser = super::threshold_percent, value_name = "P")]
    threshold_pct: f64,
    /// Print one JSON object on one line instead of the answer line.
    #[arg(long)]
    json: bool,
    /// Seconds-long processes (two positions to depth 1, two rounds): for the tests.
    #[arg(long, hide = true)]
    smoke: bool,
    /// Child mode: measure the one process FILE describes and write its measurement.
    #[arg(long, hide = true, value_name = "FILE")]
    child: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) simd: super::SimdOption,
}

/// `--max-minutes`: a plain decimal above 0.
fn minutes(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && value > 0.0 => Ok(value),
        _ => Err(format!(
            "{} is not a number of minutes above 0 (e.g. 10 or 0.5)",
            quote_input(text)
        )),
    }
}

/// One registered backend or layout variant (not `all`).
fn one_backend(name: &str) -> Result<&'static str, CliError> {
    let names = super::resolve_backends("compare", name)?;
    match names.as_slice() {
        [one] if name != "all" => Ok(one),
        _ => Err(CliError::usage(format!(
            "kiki compare: name one backend, not {}",
            quote_input(name)
        ))),
    }
}

/// A seed for the run's orders, drawn from the clock (recorded in the JSON).
fn drawn_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0x57, |d| d.as_nanos() as u64)
}

pub(crate) fn run(args: CompareArgs) -> Result<(), CliError> {
    if let Some(file) = &args.child {
        super::interrupt::child_mode();
        return compare::run_child_job(file)
            .map_err(|message| CliError::failed(format!("kiki compare: {message}")));
    }
    let (a, b) = match (&args.a, &args.b) {
        (Some(a), Some(b)) => (one_backend(a)?, one_backend(b)?),
        _ => return Err(CliError::usage("kiki compare: name two backends, A and B")),
    };
    if a == b {
        return Err(CliError::usage(format!(
            "kiki compare: A and B are both {a}: name two different backends"
        )));
    }
    let program = std::env::current_exe().map_err(|e| {
        CliError::failed(format!("kiki compare: cannot locate the kiki binary: {e}"))
    })?;
    let request = Request {
        a,
        b,
        eval: args.eval,
        cap_seconds: args.max_minutes * 60.0,
        threshold: args.threshold_pct,
        sizing: if args.smoke {
            Sizing::Smoke
        } else {
            Sizing::Full
        },
        seed: drawn_seed(),
        simd: kiki_core::simd::forced().map(|level| level.name().to_string()),
    };
    let launcher = Launcher {
        program,
        args: vec!["compare".into(), "--child".into()],
    };
    let watch = Arc::new(Watch::new());
    stop_on_signal(Arc::clone(&watch));
    let bar = super::progress::share_bar(1_000);
    let answer = compare::run(&request, &launcher, &watch, &mut |message, share| {
        bar.set_position((share.clamp(0.0, 1.0) * 1_000.0) as u64);
        bar.set_message(message.to_string());
    });
    bar.finish_and_clear();
    let answer = answer.map_err(|message| CliError::failed(format!("kiki compare: {message}")))?;
    let out = Output::new("compare");
    if args.json {
        let text = serde_json::to_string(&answer)
            .map_err(|e| CliError::failed(format!("kiki compare: {e}")))?;
        out.line(text)?;
    } else {
        out.line(answer.line())?;
    }
    out.flush()?;
    if answer.stopped == Stop::Interrupted {
        return Err(CliError {
            message: format!(
                "kiki compare: interrupted after {} processes; the line above is the state so far",
                answer.processes
            ),
            code: super::EXIT_INTERRUPTED,
        });
    }
    Ok(())
}

/// On SIGINT or SIGTERM: stops `watch` (the running child killed and reaped), so that the run
/// returns the state so far, which the command prints before exiting with 130.
fn stop_on_signal(watch: Arc<Watch>) {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
            return;
        };
        std::thread::spawn(move || {
            if signals.forever().next().is_some() {
                let _ = watch.stop(&std::env::temp_dir());
            }
        });
    }
    #[cfg(not(unix))]
    let _ = watch;
}
