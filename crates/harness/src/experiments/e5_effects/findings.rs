//! E5's prose: the method, the findings and seed 001's verdicts, from the numbers.

use super::analysis::Numbers;
use super::measure::Measurement;
use crate::effects_timing::{clock_name, NAMES, STARTS};
use crate::experiments::and_list;
use crate::experiments::claims::level_words;
use crate::stats::{Claim, Comparison};

/// The findings paragraph: the fastest stepper, the ratios to sqww, seed 001's two claims and
/// the recount check.
pub(super) fn paragraph(m: &Measurement, n: &Numbers) -> String {
    let mut findings = Vec::new();
    if let Some((best, best_ns)) = n.fastest {
        findings.push(format!(
            "{best} has the best typical time, {best_ns:.1} ns per make + unmake."
        ));
    }
    let ratios: Vec<String> = n
        .to_sqww
        .iter()
        .map(|(name, c)| format!("{name} ×{:.2} ({:.2}–{:.2})", c.ratio, c.low, c.high))
        .collect();
    if !ratios.is_empty() {
        findings.push(format!(
            "Time relative to sqww, paired per round, with 95 % intervals: {}.",
            and_list(&ratios)
        ));
    }
    // Seed 001's claims: SquareWithWall's one-AND off-board test beats the distance check it
    // replaces, and keeps the plain 81-square board competitive with a wall-padded mailbox.
    if let Some(s) = &n.distance {
        findings.push(format!(
            "Seed 001's claim that SquareWithWall beats the dist() check it replaces {}.",
            verdict(
                s,
                n.threshold,
                "holds: the distance check is slower than sqww",
                "does not hold: the distance check is faster than sqww",
            )
        ));
    }
    if let Some(s) = &n.mailbox {
        findings.push(format!(
            "Against the wall-padded 11×11 mailbox (no off-board test at all), {}.",
            verdict(
                s,
                n.threshold,
                "sqww is faster than the padded mailbox",
                "the padded mailbox is faster than sqww",
            )
        ));
    }
    match &m.error {
        None => findings.push(format!(
            "All {} steppers matched a from-scratch recount in all {} comparisons \
             (after every make and unmake).",
            m.results.len(),
            m.recount_comparisons
        )),
        Some(why) => findings.push(format!("Not measured: {why}.")),
    }
    findings.join(" ")
}

/// What a stepper's time relative to sqww (`c`) says at the threshold: `holds` when the
/// stepper is slower beyond it, `fails` when faster, else that the two are level.
fn verdict(c: &Comparison, threshold: f64, holds: &str, fails: &str) -> String {
    let interval = format!("×{:.2}, {:.2}–{:.2}", c.ratio, c.low, c.high);
    match c.claim {
        Claim::Slower => format!("{holds} ({interval})"),
        Claim::Faster => format!("{fails} ({interval})"),
        Claim::Level => format!(
            "cannot be decided: the two are {} ({interval})",
            level_words(c, threshold)
        ),
    }
}

/// The method paragraph: the games, the steppers, the check and the timing.
pub(super) fn method(m: &Measurement) -> String {
    format!(
        "{} moves of seeded random games ({} games from {} rotating starts, seed \
         {:#x}, a capture half the time when one exists), replayed as make on every move then \
         unmake in reverse by each of {} (`harness::effects_timing`, the code behind `kiki effects`). \
         Every stepper is first verified against a from-scratch recount after every make and \
         unmake. {} samples after one warm-up round, steppers interleaved round-robin, \
         each sample one full replay, timed on {}; ratios to sqww paired per round.",
        m.moves,
        m.games,
        STARTS.len(),
        m.workload_seed,
        and_list(&NAMES.iter().map(|s| s.to_string()).collect::<Vec<_>>()),
        m.samples,
        clock_name(),
    )
}
