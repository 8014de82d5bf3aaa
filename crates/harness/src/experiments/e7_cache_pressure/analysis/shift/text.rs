//! The shift probe's raw series and its method paragraph.

use super::super::super::measure::ShiftSample;
use super::WINSORISED;

/// The probe's timings as series, one per (size, ring, CPU): each invocation's rounds in
/// order, one block per invocation.
pub(in super::super::super) fn raw_series(samples: &[ShiftSample]) -> Vec<crate::results::Series> {
    let mut keys: Vec<(usize, &str, usize, usize)> = samples
        .iter()
        .map(|s| (s.bytes, s.label.as_str(), s.allocation, s.cpu))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .map(|(bytes, label, allocation, cpu)| {
            let mut cells: Vec<&ShiftSample> = samples
                .iter()
                .filter(|s| s.label == label && s.allocation == allocation && s.cpu == cpu)
                .collect();
            cells.sort_by_key(|s| (s.invocation, s.round));
            let (allocation, cpu, bytes) =
                (allocation.to_string(), cpu.to_string(), bytes.to_string());
            crate::experiments::series(
                &[
                    ("part", "shift"),
                    ("case", label),
                    ("bytes", &bytes),
                    ("allocation", &allocation),
                    ("cpu", &cpu),
                ],
                "ns/load",
                cells.iter().map(|s| s.ns).collect(),
            )
        })
        .collect()
}

/// The method's sentences on the probe (empty where it did not run: reports before
/// 2026-11-29).
pub(in super::super::super) fn method(samples: &[ShiftSample]) -> String {
    let Some(first) = samples.first() else {
        return String::new();
    };
    let count = |key: fn(&ShiftSample) -> usize| {
        samples
            .iter()
            .filter(|s| s.invocation == first.invocation)
            .map(key)
            .max()
            .map_or(0, |m| m + 1)
    };
    let mut controls: Vec<(usize, &str)> = samples
        .iter()
        .map(|s| (s.bytes, s.label.as_str()))
        .collect();
    controls.sort_unstable();
    controls.dedup();
    let sizes: Vec<String> = controls
        .iter()
        .map(|(bytes, label)| {
            format!(
                "{} ({label})",
                kiki_core::units::rounded_bytes(*bytes as f64)
            )
        })
        .collect();
    format!(
        " Shift probe (what inside one process reproduces the invocations' shifts): at each \
         positive control's size ({}), {} rings alive at once (E6's shuffled ring, one cycle \
         through every line, the same order in each), each on frames of its own on huge pages, \
         timed on each of {} CPUs in turn (the thread pinned), in {} rounds: one before the \
         chain sweep, one after each pressure count (in that invocation's shuffled order, so that \
         a middle round is a position in time, not the same pressure in each invocation) and \
         one after each phase of the table-page split (where it ran), so that the controls' \
         own timings and the split's phases fall between them; in a round the CPUs in a seeded order and, on each, the rings in one \
         too, each ring walked round once untimed and then timed in {} passes (at most {} loads \
         each) on the thread's CPU clock, the median kept; after a round the thread goes back \
         to the CPU it left, so that the sweep resumes where it was. On 2 MiB pages a ring's \
         placement cannot move its L1 or L2 sets (their index bits lie inside a page): \
         placement here stands for the host frames behind the pages and for whatever hashes \
         higher address bits (a last level's slices), not for L2 conflicts. The reading \
         changed on 2026-11-29, after the -11-29-3 report, because single slow timings decided \
         the first one (that report's unplaced ½ L3 ring: one round of one invocation at 84 ns \
         against about 20 elsewhere, one CPU 62 ns slower in it): each invocation's timings are \
         now winsorised, the {:.0} % most extreme each side set to the nearest value kept (a \
         timing is already the median of its passes; the winsorising takes out a slow timing, \
         or one CPU slow for one round, fewer timings than a tenth of the invocation's), and \
         the rule stated with the findings reads them: standard deviations from variance \
         components (σ² = max(0, (MS_between − MS_within) / timings per level), so that noise \
         alone gives σ near 0 whatever a factor's number of levels), the invocations' σ on \
         the invocation×round interaction with Graybill and Wang's interval, a factor's σ \
         over √levels against half the invocations' σ (half, because the invocations' σ rests \
         on their means alone, four degrees of freedom for five), the shift present over 4 % \
         of the median (about the standard deviation of five means spanning 10 %, the first \
         threshold). Before, the rule read max − min spreads of the raw timings' means: the \
         shift present where the invocations' means spanned more than 10 % of their median, a \
         factor reproducing it where its spread inside an invocation (the median over \
         invocations) less the median of the same spread over the permutations reached half \
         that span, with a permutation test of the level means' variance summed over the \
         invocations.",
        sizes.join(", "),
        count(|s| s.allocation),
        count(|s| s.cpu),
        count(|s| s.round),
        super::super::super::measure::SHIFT_SAMPLES,
        super::super::super::measure::SHIFT_MAX_LOADS,
        WINSORISED * 100.0,
    )
}
