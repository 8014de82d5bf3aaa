//! E8: each backend's fixed lookup workload under valgrind's simulated caches, with explicit
//! geometries (this CPU's, from its measured effective sizes and from the sizes sysfs lists, and
//! a 2008-class machine like the one seed 004 had in mind).
//!
//! `kiki report` starts `valgrind --tool=callgrind --cache-sim=yes` on its own binary's hidden
//! `e8-workload` subcommand. Collection is switched on only inside
//! [`workload::e8_measured_lookups`] (`--collect-atstart=no --toggle-collect=…`), so building tables and
//! generating inputs stay out of the counts. The same workload is the gungraun bench
//! `benches/cache_sim.rs`.
//!
//! The files keep the parts apart: `workload` is what valgrind runs, `simulate` measures (the
//! geometries and the valgrind runs), `analysis` turns counts into tables, plots and findings.

mod analysis;
mod simulate;
pub mod summary;
mod workload;

pub use analysis::{experiment, method, unavailable, CONTROL, TITLE};
pub use simulate::{
    geometries, measured_levels, parse_callgrind_out, simulate, simulate_once, sysfs_levels,
    valgrind_version, CacheGeometry, CacheSpec, DetectedCache, OwnLevel, SimCounts, SimResult,
    Simulator, EDGE_MISSES, OWN_EFFECTIVE, OWN_SYSFS,
};
pub use workload::*;

use super::{About, Context, Experiment, ExperimentId, Placement, Progress};
use crate::cache_levels::CacheLevels;
use crate::invocations::Invocation;
use crate::machine::Machine;
use crate::results::ExperimentResult;

/// What the method names as the stream where the search-order workload was never generated.
const UNRUN_STREAM: &str = "search-order lookups (distinct positions in depth-first order; \
     not generated, as E8 did not run)";

/// Lookups per simulation (valgrind runs the workload some 50–100× slower than native). A full
/// report's 100,000 (200,000 before 2026-11-29-3) keep it inside its time budget on the slowest
/// CPU (docs/report.md); each cell's measured half still reads about 12,700 nodes' lookups.
const LOOKUPS_QUICK: usize = 20_000;
const LOOKUPS_FULL: usize = 100_000;

/// E8 in the list of experiments.
pub struct SimulatedCaches;

impl Experiment for SimulatedCaches {
    /// Measured and analysed at once, in the report's process: its result.
    type Measurement = ExperimentResult;
    const ABOUT: About = About {
        id: ExperimentId::E8,
        title: TITLE,
        about: "simulated cache misses per lookup under valgrind callgrind (needs valgrind)",
        runs_by_default: true,
    };
    fn placement(&self) -> Placement {
        Placement::Parent
    }
    fn measure(
        &self,
        context: &Context<'_>,
        _: Invocation,
        progress: Progress<'_>,
    ) -> ExperimentResult {
        // Its own scratch folder (the workload, callgrind's files), removed when it ends and,
        // through the watch, when the report is stopped.
        let scratch = match tempfile::Builder::new().prefix("kiki-e8-").tempdir() {
            Ok(scratch) => scratch,
            Err(e) => {
                let lookups = if context.config.quick {
                    LOOKUPS_QUICK
                } else {
                    LOOKUPS_FULL
                };
                let reason = format!("cannot create a scratch folder: {e}");
                return unavailable(&reason, lookups, &[], UNRUN_STREAM);
            }
        };
        context.watch.also_remove(scratch.path());
        let result = run(
            context.machine,
            context.config.cache_levels.as_ref(),
            context.config.quick,
            Simulator {
                scratch: scratch.path(),
                watch: context.watch,
            },
            progress,
        );
        context.watch.forget(scratch.path());
        result
    }
    fn analyse(&self, measurements: &[ExperimentResult], _: &Context<'_>) -> ExperimentResult {
        measurements[0].clone()
    }
}

/// The detected data caches as (bytes, ways, line) per level, for the geometries.
fn detected_cache(machine: &Machine, level: u8) -> Option<DetectedCache> {
    machine
        .caches
        .iter()
        .find(|c| c.level == level && c.kind != "Instruction")
        .map(|c| (c.bytes, c.ways, c.line_bytes))
}

/// This CPU's levels for the geometries, and where they came from: the measured effective
/// sizes where the report measured them (rounded down for valgrind), else sysfs; with the
/// sysfs/CPUID levels beside measured ones (`None` where `own` is itself sysfs').
pub fn own_levels(
    machine: &Machine,
    measured: Option<&CacheLevels>,
) -> (Vec<OwnLevel>, String, Option<Vec<OwnLevel>>) {
    let sysfs = || {
        sysfs_levels(
            detected_cache(machine, 1),
            detected_cache(machine, 2),
            detected_cache(machine, 3),
        )
    };
    match measured {
        Some(levels) => match measured_levels(levels, |level| detected_cache(machine, level)) {
            Ok(own) => (
                own,
                format!(
                    "effective sizes measured by {}, each rounded down to the nearest size \
                     valgrind accepts at sysfs' associativity (a power-of-two number of sets)",
                    levels.source
                ),
                Some(sysfs()),
            ),
            Err(reason) => (sysfs(), format!("sysfs/CPUID sizes, as {reason}"), None),
        },
        None => (
            sysfs(),
            "sysfs/CPUID sizes, as E8 was given no measured cache levels".to_string(),
            None,
        ),
    }
}

/// ", evaluation 64 MiB" for a run under an evaluation's pressure; nothing for one alone.
fn pressure_words(eval_bytes: usize) -> String {
    if eval_bytes > 0 {
        format!(
            ", evaluation {}",
            kiki_core::units::compact_bytes(eval_bytes as f64)
        )
    } else {
        String::new()
    }
}

/// Runs every simulation under valgrind on this very binary; where valgrind is missing, says so.
fn run(
    machine: &Machine,
    measured: Option<&CacheLevels>,
    quick: bool,
    simulator: Simulator<'_>,
    progress: Progress<'_>,
) -> ExperimentResult {
    let scratch = simulator.scratch;
    let (own, origin, sysfs) = own_levels(machine, measured);
    let geometries = geometries(&own, &origin, sysfs.as_deref(), quick);
    let lookups = if quick { LOOKUPS_QUICK } else { LOOKUPS_FULL };
    let Some(valgrind) = valgrind_version() else {
        return unavailable(
            "valgrind is not installed (or does not start)",
            lookups,
            &geometries,
            UNRUN_STREAM,
        );
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            return unavailable(
                &format!("cannot locate the kiki binary: {e}"),
                lookups,
                &geometries,
                UNRUN_STREAM,
            )
        }
    };
    // The search-order workload, generated once here natively (under valgrind it would take
    // 50–100× as long in every child) and read by every child.
    progress("generating the search-order workload", 0.0);
    let workload = scratch.join(format!("kiki-e8-workload.{}.bin", std::process::id()));
    let stream = match write_search_workload(&workload, 2 * lookups, WORKLOAD_SEED) {
        Ok(description) => description,
        Err(reason) => return unavailable(&reason, lookups, &geometries, UNRUN_STREAM),
    };
    let backends = crate::registry::resolve_bases("all").unwrap_or_default();
    // Per geometry: every backend alone, then under pressure from an evaluation twice the last
    // level's size (with the evaluation-alone baseline).
    let mut runs: Vec<(&CacheGeometry, &str, usize)> = Vec::new();
    for geometry in &geometries {
        for &backend in &backends {
            runs.push((geometry, backend, 0));
        }
        let eval_bytes = 2 * geometry.ll.bytes;
        for &backend in backends.iter().chain(&[EVAL_ALONE]) {
            runs.push((geometry, backend, eval_bytes));
        }
    }
    // The simulations are deterministic and independent, so they run side by side, one per
    // core: what each counts does not depend on what runs beside it (valgrind serialises its
    // client onto one thread and simulates the caches; nothing in it is timed).
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, runs.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (sender, receiver) = std::sync::mpsc::channel();
    let mut outcomes: Vec<Option<Result<SimCounts, String>>> = vec![None; runs.len()];
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let (sender, next, runs, workload, exe) =
                (sender.clone(), &next, &runs, &workload, &exe);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(geometry, backend, eval_bytes)) = runs.get(i) else {
                    break;
                };
                let counts = simulate(
                    exe,
                    backend,
                    lookups,
                    eval_bytes,
                    geometry,
                    simulator,
                    Some(workload),
                );
                if sender.send((i, counts)).is_err() {
                    break;
                }
            });
        }
        drop(sender);
        for (done, (i, counts)) in receiver.iter().enumerate() {
            let (geometry, backend, eval_bytes) = runs[i];
            progress(
                &format!(
                    "valgrind {backend}, {}{}",
                    geometry.name,
                    pressure_words(eval_bytes)
                ),
                (done + 1) as f64 / runs.len().max(1) as f64,
            );
            outcomes[i] = Some(counts);
        }
    });
    let mut results = Vec::new();
    let mut failures = Vec::new();
    for (&(geometry, backend, eval_bytes), outcome) in runs.iter().zip(outcomes) {
        match outcome.unwrap_or_else(|| Err("not run".into())) {
            Ok(counts) => results.push(SimResult {
                backend: backend.to_string(),
                geometry: geometry.name.clone(),
                counts,
                lookups,
                eval_bytes,
            }),
            Err(reason) => failures.push(format!(
                "{backend} with {}{}: {reason}",
                geometry.name,
                pressure_words(eval_bytes)
            )),
        }
    }
    progress("done", 1.0);
    let _ = std::fs::remove_file(&workload);
    if results.is_empty() {
        let reason = failures
            .first()
            .cloned()
            .unwrap_or_else(|| "no backend is available".into());
        return unavailable(&reason, lookups, &geometries, &stream);
    }
    experiment(
        &results,
        &failures,
        lookups,
        &geometries,
        &valgrind,
        &stream,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache_levels::EffectiveLevel;
    use crate::registry;
    use kiki_core::types::{Slider, Square};
    use serde_json::Value as Json;

    #[test]
    fn valgrind_specs_have_power_of_two_sets() {
        let twelve = CacheSpec::for_valgrind(12 << 20, 16, 64).unwrap();
        assert_eq!(twelve.ways, 24);
        assert!(((12 << 20) / (twelve.ways * 64)).is_power_of_two());
        assert_eq!(CacheSpec::for_valgrind(32 << 10, 8, 64).unwrap().ways, 8);
        assert_eq!(CacheSpec::for_valgrind(48 << 10, 12, 64).unwrap().ways, 12);
        let l2 = CacheSpec::for_valgrind(1280 << 10, 10, 64).unwrap();
        assert_eq!(l2.ways, 10);
        let odd = CacheSpec::for_valgrind(40 << 20, 16, 64).unwrap();
        assert!(((40 << 20) / (odd.ways * 64)).is_power_of_two());
        assert_eq!(CacheSpec::for_valgrind(1000, 8, 64), None);
        assert_eq!(CacheSpec::for_valgrind(4096, 8, 48), None);
    }

    #[test]
    fn measured_sizes_round_down_to_valgrind_geometries() {
        let accepted = |spec: CacheSpec, measured: usize| {
            let sets = spec.bytes / (spec.ways * spec.line);
            assert_eq!(spec.bytes, sets * spec.ways * spec.line);
            assert!(sets.is_power_of_two() && spec.bytes <= measured, "{spec:?}");
            // The next valid size up (twice the sets) would exceed the measurement.
            assert!(2 * spec.bytes > measured, "{spec:?} from {measured}");
        };
        let mib = 1usize << 20;
        for (measured, ways, expected) in [
            (8 * mib, 16, 8 * mib),
            (5_934_940, 16, 4 * mib), // 5.66 MiB
            (48 << 10, 12, 48 << 10),
            (40 << 10, 12, 24 << 10),
            (1_887_437, 16, mib), // 1.8 MiB
            (105 * mib, 15, 60 * mib),
            (12 * mib, 16, 8 * mib),
        ] {
            let spec = CacheSpec::round_down(measured, ways, 64).unwrap();
            assert_eq!((spec.bytes, spec.ways, spec.line), (expected, ways, 64));
            accepted(spec, measured);
        }
        assert_eq!(CacheSpec::round_down(1000, 16, 64), None);
        assert_eq!(CacheSpec::round_down(64, 1, 64), None);
        assert_eq!(CacheSpec::round_down(1 << 20, 8, 8), None);
        assert_eq!(CacheSpec::round_down(1 << 20, 8, 48), None);
    }

    fn level(name: &str, bytes: usize) -> EffectiveLevel {
        EffectiveLevel {
            level: name.into(),
            bytes,
            ns: 1.0,
            sysfs_bytes: None,
            ..EffectiveLevel::default()
        }
    }

    #[test]
    fn measured_levels_keep_sysfs_associativity() {
        let measured = CacheLevels {
            levels: vec![
                level("L1", 48 << 10),
                level("L2", 1_887_437),
                level("L3", 5_934_940),
            ],
            memory_ns: 80.0,
            curve: Vec::new(),
            curve_spread: Vec::new(),
            source: "E6's latency curve".into(),
        };
        let detected = |level: u8| match level {
            1 => Some((48 << 10, 12, 64)),
            3 => Some((32 << 20, 16, 64)),
            _ => None,
        };
        let own = measured_levels(&measured, detected).unwrap();
        assert_eq!(own.len(), 3);
        assert_eq!(
            own[0].spec,
            CacheSpec::round_down(48 << 10, 12, 64).unwrap()
        );
        assert_eq!((own[1].spec.bytes, own[1].spec.ways), (1 << 20, 16));
        assert!(own[1].origin.contains("assumed"), "{}", own[1].origin);
        assert_eq!((own[2].spec.bytes, own[2].spec.ways), (4 << 20, 16));
        assert!(
            own[2].origin.contains("measured effective 5.66 MiB")
                && own[2].origin.contains("rounded down to 4 MiB 16-way"),
            "{}",
            own[2].origin
        );
        // Beside the effective geometries, one from the listed sizes (L1d and last level).
        let listed = sysfs_levels(detected(1), detected(2), detected(3));
        let full = geometries(&own, "measured", Some(&listed), false);
        assert_eq!(full.len(), 5);
        assert!(
            full[1].name.starts_with("this CPU (effective): ")
                && full[1].name.contains("LL = L3 4 MiB"),
            "{}",
            full[1].name
        );
        assert!(full[1].origin.starts_with("measured — L1 measured"));
        assert_eq!(full[2].name, "this CPU (sysfs): L1d 48 KiB, LL = L3 32 MiB");
        assert!(full[2].own && full[2].origin.contains("L3 sysfs 32 MiB 16-way"));
        let quick = geometries(&own, "measured", Some(&listed), true);
        assert_eq!(quick.len(), 2);
        assert_eq!((quick[0].ll.bytes, quick[1].ll.bytes), (4 << 20, 32 << 20));
        // Where the listed sizes give the effective geometry again, it is simulated once.
        let same = sysfs_levels(Some((48 << 10, 12, 64)), None, Some((4 << 20, 16, 64)));
        let full = geometries(&own, "measured", Some(&same), false);
        assert_eq!(full.len(), 4);
        assert!(
            full[1].origin.contains("not simulated twice"),
            "{}",
            full[1].origin
        );
        assert_eq!(geometries(&own, "measured", Some(&same), true).len(), 1);
        let one = CacheLevels {
            levels: vec![level("L1", 32 << 10)],
            ..measured
        };
        assert!(measured_levels(&one, detected)
            .unwrap_err()
            .contains("too few"));
    }

    #[test]
    fn geometries_full_and_quick() {
        let l1 = Some((48 << 10, 12, 64));
        let l2 = Some((2 << 20, 16, 64));
        let l3 = Some((105 << 20, 15, 64));
        let own = sysfs_levels(l1, l2, l3);
        assert_eq!(own.len(), 3);
        let full = geometries(&own, "sysfs", None, false);
        assert_eq!(full.len(), 4);
        assert!(full[0].name.contains("LL = L2"));
        assert!(
            full[0].name.starts_with("this CPU (sysfs): "),
            "{}",
            full[0].name
        );
        assert!(full[0].own && !full[3].own);
        assert!(full[3].name.contains("12 MiB"));
        assert_eq!(full[3].ll.ways, 24);
        assert!(full[3].origin.contains("simulated 24-way"));
        let quick = geometries(&own, "sysfs", None, true);
        assert_eq!(quick.len(), 1);
        assert!(quick[0].name.contains("L3"));
        let unknown = geometries(&sysfs_levels(None, l2, l3), "sysfs", None, true);
        assert_eq!(unknown.len(), 1);
        assert!(unknown[0].name.starts_with("2008"));
    }

    /// The next `count` lookups of `stream` as (canonical occupancy, square, slider), a chunk
    /// at a time as the child reads them, with the buffers' capacities after the last chunk.
    fn drain(stream: &mut InputStream, count: usize) -> (Vec<(u128, Square, Slider)>, [usize; 2]) {
        let mut packed = Vec::with_capacity(CHUNK_LOOKUPS);
        let mut occupancies = Vec::with_capacity(CHUNK_LOOKUPS.max(OCCUPANCIES));
        let mut out = Vec::new();
        while out.len() < count {
            let want = (count - out.len()).min(CHUNK_LOOKUPS);
            stream
                .fill(want, &mut packed, &mut occupancies, |bits| bits)
                .unwrap();
            assert_eq!(packed.len(), want);
            for &input in &packed {
                let (slot, square, slider) = workload::unpack(input);
                out.push((occupancies[slot], square, slider));
            }
        }
        (out, [packed.capacity(), occupancies.capacity()])
    }

    /// `inputs`' lookups as (canonical occupancy, square, slider).
    fn unpacked(inputs: &Inputs) -> Vec<(u128, Square, Slider)> {
        inputs
            .packed
            .iter()
            .map(|&p| {
                let (i, square, slider) = workload::unpack(p);
                (inputs.occupancies[i], square, slider)
            })
            .collect()
    }

    #[test]
    fn inputs_of_a_shorter_run_are_a_prefix_of_a_longer_one() {
        let short = inputs(1000, WORKLOAD_SEED);
        let long = inputs(2000, WORKLOAD_SEED);
        assert_eq!(short.occupancies, long.occupancies);
        assert_eq!(short.packed[..], long.packed[..1000]);
        assert_ne!(inputs(1000, WORKLOAD_SEED + 1).packed, short.packed);
        assert!(short.description.contains("64 random occupancies"));
        // The child's stream gives the bench's lookups, a chunk at a time.
        let mut stream = InputStream::uniform(WORKLOAD_SEED);
        assert_eq!(stream.description(), short.description);
        assert_eq!(drain(&mut stream, 2000).0, unpacked(&long));
    }

    /// The search-order walk's lookups as (occupancy, square, slider), in node order.
    fn walk(w: &crate::workloads::SearchWorkload) -> Vec<(u128, Square, Slider)> {
        let mut out = Vec::new();
        for (node, &occupancy) in w.occupancies.iter().enumerate() {
            let (from, to) = (w.starts[node] as usize, w.starts[node + 1] as usize);
            out.extend(w.lookups[from..to].iter().map(|&(s, q)| (occupancy, q, s)));
        }
        out
    }

    #[test]
    fn search_workload_file_round_trips_and_rejects_damage() {
        let dir = std::env::temp_dir().join(format!("kiki-e8-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.bin");
        let description = write_search_workload(&path, 2000, WORKLOAD_SEED).unwrap();
        assert!(description.contains("depth-first"), "{description}");
        let w = crate::workloads::search_order(WORKLOAD_SEED, 2000usize.div_ceil(7) + 16);
        let expected = walk(&w);
        assert!(expected.len() >= 2000);
        let mut stream = InputStream::open(&path).unwrap();
        assert_eq!(stream.description(), description);
        let (long, _) = drain(&mut stream, expected.len());
        assert_eq!(long, expected);
        // Past its end the file is read again from its first node.
        assert_eq!(drain(&mut stream, 10).0, expected[..10]);
        let (short, _) = drain(&mut InputStream::open(&path).unwrap(), 1000);
        assert_eq!(short[..], long[..1000]);
        let bytes = std::fs::read(&path).unwrap();
        let mut miscounted = bytes.clone();
        miscounted[12] ^= 1;
        for (damaged, expected) in [
            (b"nonsense".to_vec(), "header"),
            (b"KIKIE8W1\0\0\0\0".to_vec(), "header"),
            (bytes[..bytes.len() - 1].to_vec(), "truncated"),
            ([&bytes[..], &[0]].concat(), "trailing"),
            (miscounted, "truncated"),
        ] {
            std::fs::write(&path, damaged).unwrap();
            let error = InputStream::open(&path).err().unwrap();
            assert!(error.contains(expected), "{error}");
        }
        // A node is checked as it is read: an occupancy beyond square 81, a slider out of
        // range.
        let start = bytes.len() - (17 * w.nodes() + 2 * w.lookups.len());
        let mut packed = Vec::new();
        let mut occupancies = Vec::new();
        for (at, byte, expected) in [
            (start + 15, 0xff, "beyond square 81"),
            (start + 17, 9, "out of range"),
        ] {
            let mut damaged = bytes.clone();
            damaged[at] = byte;
            std::fs::write(&path, damaged).unwrap();
            let error = InputStream::open(&path)
                .unwrap()
                .fill(10, &mut packed, &mut occupancies, |bits| bits)
                .unwrap_err();
            assert!(error.contains(expected), "{error}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(InputStream::open(&path)
            .err()
            .unwrap()
            .contains("cannot read"));
        let method = method(1000, &geometries(&[], "sysfs", None, true), &description);
        assert!(method.contains(&description) && method.contains("footprint"));
        assert!(!method.contains("64 occupancies"));
    }

    /// What makes E8's counts independent of the lookup count: however many lookups a run
    /// measures, its inputs are the same few buffers, refilled a chunk at a time (at most
    /// `CHUNK_LOOKUPS` lookups and as many occupancies, never grown), and a shorter run's
    /// lookups are a longer one's first.
    #[test]
    fn the_inputs_footprint_is_the_same_at_every_lookup_count() {
        let dir = std::env::temp_dir().join(format!("kiki-e8-chunks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.bin");
        write_search_workload(&path, 40_000, WORKLOAD_SEED).unwrap();
        let mut footprints = Vec::new();
        let mut runs = Vec::new();
        for count in [4_000, 40_000] {
            for mut stream in [
                InputStream::open(&path).unwrap(),
                InputStream::uniform(WORKLOAD_SEED),
            ] {
                let (lookups, capacities) = drain(&mut stream, count);
                footprints.push(capacities);
                runs.push(lookups);
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
        for capacities in &footprints {
            assert_eq!(
                *capacities,
                [CHUNK_LOOKUPS, CHUNK_LOOKUPS.max(OCCUPANCIES)],
                "{footprints:?}"
            );
        }
        assert_eq!(runs[0][..], runs[2][..4_000]);
        assert_eq!(runs[1][..], runs[3][..4_000]);
    }

    #[test]
    fn packed_inputs_round_trip() {
        for (occupancy, square, slider) in [
            (0, 0u8, Slider::Rook),
            (63, 80, Slider::Horse),
            (
                MAX_OCCUPANCIES - 1,
                40,
                Slider::Lance(kiki_core::types::Color::White),
            ),
        ] {
            let square = kiki_core::types::Square::new(square).unwrap();
            assert_eq!(
                workload::unpack(workload::pack(occupancy, square, slider)),
                (occupancy, square, slider)
            );
        }
    }

    #[test]
    fn node_ordered_inputs_follow_the_nodes() {
        let a = kiki_core::types::Square::new(3).unwrap();
        let b = kiki_core::types::Square::new(70).unwrap();
        let lookups = [(Slider::Rook, a), (Slider::Bishop, b), (Slider::Dragon, a)];
        let dir = std::env::temp_dir().join(format!("kiki-e8-nodes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.bin");
        // Three nodes, the second without a lookup.
        write_nodes(&path, &[1, 2, 3], &[0, 2, 2, 3], &lookups, "three nodes").unwrap();
        let mut stream = InputStream::open(&path).unwrap();
        assert_eq!(stream.description(), "three nodes");
        let (mut packed, mut occupancies) = (Vec::new(), Vec::new());
        let mut chunk = |count: usize| {
            stream
                .fill(count, &mut packed, &mut occupancies, |bits| bits)
                .unwrap();
            let unpacked: Vec<_> = packed.iter().map(|&p| workload::unpack(p)).collect();
            (unpacked, occupancies.clone())
        };
        // A chunk of one: the first node's first lookup; the next chunk has that node again.
        assert_eq!(chunk(1), (vec![(0, a, Slider::Rook)], vec![1]));
        assert_eq!(
            chunk(4),
            (
                vec![
                    (0, b, Slider::Bishop),
                    (1, a, Slider::Dragon),
                    (2, a, Slider::Rook),
                    (2, b, Slider::Bishop),
                ],
                vec![1, 3, 1]
            )
        );
        std::fs::write(&path, b"KIKIE8W2\x01\0\0\0\0\0\0\0\0\0\0\0").unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, &[0; 17]))
            .unwrap();
        assert!(InputStream::open(&path)
            .err()
            .unwrap()
            .contains("no lookups"));
        // A header that counts lookups no node has, its size made up by trailing pairs: an
        // error, not an endless search for a lookup.
        let mut bytes = b"KIKIE8W2\x01\0\0\0\x01\0\0\0\0\0\0\0".to_vec();
        bytes.extend_from_slice(&[0; 17 + 2]);
        std::fs::write(&path, bytes).unwrap();
        let error = InputStream::open(&path)
            .unwrap()
            .fill(10, &mut Vec::new(), &mut Vec::new(), |bits| bits)
            .unwrap_err();
        assert!(error.contains("malformed"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn evaluation_buffers_are_aligned_alike() {
        for bytes in [8, 4096, 3 << 16, 1 << 20] {
            let buffer = EvalBuffer::new(bytes);
            let slice = buffer.as_slice();
            assert_eq!(slice.len(), bytes / 8);
            assert_eq!(slice.as_ptr() as usize % eval_alignment(bytes), 0);
            assert_eq!(slice.last().copied(), Some((bytes / 8 - 1) as u64));
            assert!(eval_allocation(bytes) >= bytes + eval_alignment(bytes));
        }
        assert!(EvalBuffer::new(0).as_slice().is_empty());
        assert_eq!(eval_alignment(3 << 20), 4 << 20);
    }

    #[test]
    fn parses_callgrind_totals() {
        let text = "version: 1\ncreator: callgrind-3.19.0\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n\
                    fn=(1) main\n0 5 1\nsummary: 1000 300 20 4 50 2 4 10\ntotals: 1000 300 20 4 50 2 4 10\n";
        let counts = parse_callgrind_out(text).unwrap();
        assert_eq!(counts.ir, 1000);
        assert_eq!(counts.d1mr, 50);
        assert_eq!(counts.dlmr, 10);
        assert_eq!(
            counts.dlmw, 0,
            "trailing zero counts are left out by callgrind"
        );
        assert_eq!(
            counts.estimated_cycles(),
            1000.0 + 10.0 * 56.0 + 100.0 * 14.0
        );
        assert!(parse_callgrind_out("events: Ir\ntotals: 5\n")
            .unwrap_err()
            .contains("Dr"));
        assert!(parse_callgrind_out("totals: 5\n").is_err());
        let later = SimCounts {
            ir: 1500,
            d1mr: 40,
            ..counts
        };
        let difference = later.minus(&counts);
        assert_eq!((difference.ir, difference.d1mr, difference.dr), (500, 0, 0));
    }

    #[test]
    fn workload_agrees_across_backends() {
        let dir = std::env::temp_dir().join(format!("kiki-e8-agree-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.bin");
        write_search_workload(&path, 6000, WORKLOAD_SEED).unwrap();
        let streams = || {
            [
                InputStream::uniform(WORKLOAD_SEED),
                InputStream::open(&path).unwrap(),
            ]
        };
        for kind in 0..2 {
            let stream = |kind: usize| streams().into_iter().nth(kind).unwrap();
            for eval_bytes in [0, 1 << 16] {
                let expected = run_workload("mailbox", 3000, &mut stream(kind), eval_bytes)
                    .unwrap()
                    .unwrap();
                assert_ne!(expected, 0);
                for name in registry::resolve_bases("all").unwrap() {
                    assert_eq!(
                        run_workload(name, 3000, &mut stream(kind), eval_bytes)
                            .unwrap()
                            .unwrap(),
                        expected,
                        "{name}"
                    );
                }
            }
            assert_ne!(
                run_workload(EVAL_ALONE, 3000, &mut stream(kind), 1 << 16)
                    .unwrap()
                    .unwrap(),
                0
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn negative_control_is_read_from_the_tableless_backend() {
        let geometries = geometries(&[], "sysfs", None, false);
        let cell = |backend: &str, g: &CacheGeometry, l1: u64, ll: u64| SimResult {
            backend: backend.into(),
            geometry: g.name.clone(),
            counts: SimCounts {
                ir: 100_000,
                d1mr: l1,
                dlmr: ll,
                ..SimCounts::default()
            },
            lookups: 1000,
            eval_bytes: 0,
        };
        let judge = |results: &[SimResult]| {
            experiment(results, &[], 1000, &geometries, "valgrind-3.19.0", "a walk")
        };
        let mut results = Vec::new();
        for g in &geometries {
            results.push(cell("qugiy", g, 5, 0));
            results.push(cell(CONTROL, g, 1, 0));
        }
        let e = judge(&results);
        assert!(
            e.findings.contains(
                "Negative control: sqww, which reads no table, misses L1 0.001 and LL 0.000 \
                 times per lookup at most over the geometries — its inputs and its code stay \
                 cached"
            ),
            "{}",
            e.findings
        );
        let control = e.summary_value("negative_control").unwrap();
        assert_eq!(control.as_object().unwrap().len(), geometries.len());
        // Inputs that miss, as they did held in memory, are named as every backend's cost.
        results[1].counts.d1mr = 224;
        results[1].counts.dlmr = 224;
        let e = judge(&results);
        assert!(
            e.findings.contains("misses L1 0.224 and LL 0.224")
                && e.findings.contains("read the others' misses net of it"),
            "{}",
            e.findings
        );
        // Without the control backend, no such finding.
        results.retain(|r| r.backend != CONTROL);
        let e = judge(&results);
        assert!(!e.findings.contains("Negative control"));
        assert!(e.summary_value("negative_control").is_none());
    }

    #[test]
    fn experiment_from_results_names_best_and_seed_case() {
        let counts = |ir: u64, ll: u64| SimCounts {
            ir,
            dr: ir / 3,
            d1mr: ll * 2,
            dlmr: ll,
            bcm: ir / 100,
            ..SimCounts::default()
        };
        let geometries = geometries(&[], "sysfs", None, false);
        let mut results = Vec::new();
        for g in &geometries {
            results.push(SimResult {
                backend: "qugiy".into(),
                geometry: g.name.clone(),
                counts: counts(40_000, 0),
                lookups: 1000,
                eval_bytes: 0,
            });
            results.push(SimResult {
                backend: "magic-plain".into(),
                geometry: g.name.clone(),
                counts: counts(15_000, 900),
                lookups: 1000,
                eval_bytes: 0,
            });
        }
        let e = experiment(
            &results,
            &[],
            1000,
            &geometries,
            "valgrind-3.19.0",
            "a walk",
        );
        assert_eq!(e.tables[0].rows.len(), 4);
        assert_eq!(e.plots.len(), 2);
        assert_eq!(e.series.len(), 20);
        assert!(
            e.findings
                .contains("mispredicts run from 0.150 per lookup (magic-plain) to 0.400 (qugiy)"),
            "{}",
            e.findings
        );
        assert!(e
            .summary
            .iter()
            .any(|(k, v)| k == "consistent" && v == &Json::Bool(true)));
        assert!(
            e.findings.contains("qugiy is cheapest at 40.0"),
            "{}",
            e.findings
        );
        assert!(
            e.findings.contains("magic-plain 0.900 LL misses"),
            "{}",
            e.findings
        );
        let best = e
            .summary
            .iter()
            .find(|(k, _)| k == "best_backend_per_geometry")
            .unwrap();
        assert_eq!(best.1.as_object().unwrap().len(), 2);
        assert!(!e.findings.contains("Beside an evaluation"));

        // The pressure variant on the first geometry: each backend minus evaluation alone.
        let g = geometries[0].name.clone();
        let eval = 8 << 20;
        for (backend, ir, ll) in [
            (EVAL_ALONE, 10_000, 2000),
            ("qugiy", 52_000, 2100),
            ("magic-plain", 30_000, 3500),
            ("dbb", 35_000, 2600),
        ] {
            results.push(SimResult {
                backend: backend.into(),
                geometry: g.clone(),
                counts: counts(ir, ll),
                lookups: 1000,
                eval_bytes: eval,
            });
        }
        let e = experiment(
            &results,
            &[],
            1000,
            &geometries,
            "valgrind-3.19.0",
            "a walk",
        );
        assert_eq!(e.tables.len(), 2);
        assert_eq!(e.tables[1].rows.len(), 3);
        assert_eq!(
            e.tables[1].rows[1][3], "3.000",
            "magic-plain's marginal L1 misses"
        );
        assert_eq!(e.series.len(), 20 + 3 * 3);
        assert!(
            e.findings.contains("4.000 L1 and 2.000 LL misses"),
            "{}",
            e.findings
        );
        assert_eq!(e.plots.len(), 3);
        assert!(
            e.findings.contains("Beside an evaluation of 8 MiB"),
            "{}",
            e.findings
        );
        assert!(
            e.findings.contains(
                "magic-plain adds 1.500 LL misses per lookup to the evaluation's, dbb 0.600"
            ),
            "{}",
            e.findings
        );
        assert!(e
            .summary
            .iter()
            .any(|(k, _)| k == "best_backend_per_geometry_under_pressure"));
        // The lookups-alone table is unchanged by the pressure runs.
        assert_eq!(e.tables[0].rows.len(), 4);
        results[0].counts.dlmr = 5000;
        let e = experiment(
            &results,
            &[],
            1000,
            &geometries,
            "valgrind-3.19.0",
            "a walk",
        );
        assert!(e.findings.contains("Inconsistent cells"), "{}", e.findings);
    }
}
