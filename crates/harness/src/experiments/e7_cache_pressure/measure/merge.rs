//! K invocations' measurements pooled into one.

use super::calibration::Calibration;
use super::Measurement;
use crate::experiments::typical;
use crate::invocations::{gather, merge_rows, union};

/// K invocations' measurements as one: every chain's, reload's, calibration load's and
/// bracket's rounds one invocation after another; the pressure buffer's and the calibration's
/// grants and steps the least of any; a collapse refused if any kernel refused it (the
/// huge-page bytes after it the least of any); the sweep's tables' huge-page bytes the most of
/// any; every note; the rest from the first (the order seed, which every invocation must share).
pub(in super::super) fn merge(parts: &[Measurement]) -> Result<Measurement, String> {
    let first = parts.first().ok_or("nothing measured")?;
    if parts.iter().any(|p| p.order_seed != first.order_seed) {
        return Err("the invocations were given different order seeds".into());
    }
    let chains = merge_rows(
        &gather(parts, |p| &p.chains),
        |c| {
            (
                c.part,
                c.reads,
                c.case.clone(),
                c.mask.clone(),
                c.tables,
                c.pressure,
            )
        },
        |into, from| {
            into.ns.extend(&from.ns);
            into.ns_mean.extend(&from.ns_mean);
        },
    )?;
    let survival = merge_rows(
        &gather(parts, |p| &p.survival),
        |(reads, _)| *reads,
        |(_, into), (_, from)| into.extend(from),
    )?;
    let fewest = |a: Option<usize>, b: Option<usize>| Some(a?.min(b?));
    let table_pages = merge_rows(
        &gather(parts, |p| &p.table_pages),
        |t| t.backend,
        |into, from| {
            into.huge_after = fewest(into.huge_after, from.huge_after);
            if into.collapse.is_ok() {
                into.collapse = from.collapse.clone();
            }
        },
    )?;
    let most = |a: Option<usize>, b: Option<usize>| Some(a?.max(b?));
    let sweep_pages = merge_rows(
        &gather(parts, |p| &p.sweep_pages),
        |t| t.backend,
        |into, from| {
            into.huge_before = most(into.huge_before, from.huge_before);
            into.huge_after = most(into.huge_after, from.huge_after);
            if into.collapse.is_ok() {
                into.collapse = from.collapse.clone();
            }
        },
    )?;
    let bracket = merge_rows(
        &gather(parts, |p| &p.bracket),
        |b| (b.bytes, b.case.clone()),
        |into, from| into.ns.extend(&from.ns),
    )?;
    let calibration = parts
        .iter()
        .map(|p| p.calibration.clone())
        .collect::<Option<Vec<Calibration>>>()
        .map(|all| {
            let mut merged = all[0].clone();
            for other in &all[1..] {
                for (into, from) in merged.loads.iter_mut().zip(&other.loads) {
                    into.extend(from);
                }
                merged.step_ns = merged.step_ns.min(other.step_ns);
            }
            merged.samples = merged.loads[0].ns.len();
            for (median, loads) in merged.medians.iter_mut().zip(&merged.loads) {
                *median = typical(&loads.ns, parts.len());
            }
            merged
        });
    let phase_control = first.phase_control.clone().map(|mut control| {
        for other in &parts[1..] {
            control.huge_after = most(
                control.huge_after,
                other.phase_control.as_ref().and_then(|c| c.huge_after),
            );
        }
        control
    });
    Ok(Measurement {
        phase_control,
        chains,
        survival,
        calibration,
        sweep_pages,
        table_pages,
        bracket,
        pressure_huge: parts
            .iter()
            .map(|p| p.pressure_huge)
            .reduce(fewest)
            .flatten(),
        synthetic_huge: least_each(parts.iter().map(|p| p.synthetic_huge.as_slice())),
        ring_huge: least_each(parts.iter().map(|p| p.ring_huge.as_slice())),
        notes: union(parts.iter().map(|p| p.notes.clone())),
        pressure_orders: parts
            .iter()
            .flat_map(|p| p.pressure_orders.clone())
            .collect(),
        block_orders: parts.iter().flat_map(|p| p.block_orders.clone()).collect(),
        invocations: parts.len(),
        ..first.clone()
    })
}

/// Per position, the least of every process's grant (unknown where any is unknown, or where
/// the processes recorded different counts).
fn least_each<'a>(mut grants: impl Iterator<Item = &'a [Option<usize>]>) -> Vec<Option<usize>> {
    let Some(first) = grants.next() else {
        return Vec::new();
    };
    let mut least = first.to_vec();
    for other in grants {
        if other.len() != least.len() {
            return vec![None; least.len()];
        }
        for (into, &from) in least.iter_mut().zip(other) {
            *into = into.zip(from).map(|(a, b)| a.min(b));
        }
    }
    least
}
