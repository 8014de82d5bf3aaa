//! E8's measuring: cache geometries, valgrind callgrind runs of the workload, and their counts.

use super::workload::{L1_MISS_CYCLES, LL_MISS_CYCLES, MEASURED_FUNCTION};
use crate::cache_levels::CacheLevels;
use kiki_core::units::compact_bytes;
use std::path::Path;
use std::process::Command;

/// One simulated cache: bytes, associativity, line size (valgrind's `size,assoc,line`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheSpec {
    pub bytes: usize,
    pub ways: usize,
    pub line: usize,
}

impl CacheSpec {
    /// The spec valgrind accepts for this cache: valgrind 3.19 needs a power-of-two number of
    /// sets, so the associativity is raised to the next count that gives one (a 12 MiB,
    /// 16-way cache becomes 24-way, as 2008's 12 MiB parts were), or lowered where none is higher.
    pub fn for_valgrind(bytes: usize, ways: usize, line: usize) -> Option<CacheSpec> {
        if bytes == 0 || line == 0 || !line.is_power_of_two() || !bytes.is_multiple_of(line) {
            return None;
        }
        let lines = bytes / line;
        let candidates: Vec<usize> = (0..usize::BITS)
            .map(|k| 1usize << k)
            .take_while(|&sets| sets <= lines)
            .filter(|&sets| lines.is_multiple_of(sets))
            .map(|sets| lines / sets)
            .collect();
        let wanted = ways.max(1);
        let at_least = candidates.iter().copied().filter(|&w| w >= wanted).min();
        let below = candidates.iter().copied().filter(|&w| w < wanted).max();
        at_least
            .or(below)
            .map(|ways| CacheSpec { bytes, ways, line })
    }

    /// The largest spec valgrind accepts at or below a measured size: the associativity kept,
    /// the set count the largest power of two with `ways · line · sets ≤ bytes` (a measured
    /// 5.66 MiB at 16 ways and 64-byte lines becomes 4 MiB). Valgrind 3.19 takes any
    /// associativity up to `size / line` (checked to 2048 ways), so none is capped. `None`
    /// where not even two lines fit or the line is not a power of two of at least 16 bytes.
    pub fn round_down(bytes: usize, ways: usize, line: usize) -> Option<CacheSpec> {
        if line < 16 || !line.is_power_of_two() {
            return None;
        }
        let ways = ways.max(1);
        let whole_sets = bytes / ways.checked_mul(line)?;
        if whole_sets == 0 {
            return None;
        }
        let sets = 1usize << whole_sets.ilog2();
        (ways * sets > 1).then_some(CacheSpec {
            bytes: ways * line * sets,
            ways,
            line,
        })
    }

    pub fn valgrind_arg(&self) -> String {
        format!("{},{},{}", self.bytes, self.ways, self.line)
    }

    pub fn describe(&self) -> String {
        format!("{} {}-way", compact_bytes(self.bytes as f64), self.ways)
    }
}

/// One simulated machine: instruction L1, data L1 and the last level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheGeometry {
    pub name: String,
    pub i1: CacheSpec,
    pub d1: CacheSpec,
    pub ll: CacheSpec,
    /// Where the sizes come from, for the method (measured and rounded, sysfs, or fixed).
    pub origin: String,
    /// This CPU's geometry (not the 2008-class one).
    pub own: bool,
}

/// A cache level as detected on this machine: bytes, ways, line.
pub type DetectedCache = (usize, usize, usize);

/// One of this CPU's data-cache levels as simulated, and where its size came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnLevel {
    /// `L1`, `L2`, `L3`, …
    pub level: String,
    pub spec: CacheSpec,
    /// For the method: "measured effective 5.66 MiB, rounded down to 4 MiB 16-way" or
    /// "sysfs 32 MiB 16-way".
    pub origin: String,
}

/// This CPU's levels from sysfs/CPUID: the L1d, L2 and L3 where detected, each as valgrind
/// accepts it (the associativity adjusted to a power-of-two set count where needed).
pub fn sysfs_levels(
    l1d: Option<DetectedCache>,
    l2: Option<DetectedCache>,
    l3: Option<DetectedCache>,
) -> Vec<OwnLevel> {
    let mut levels = Vec::new();
    for (level, cache) in [("L1", l1d), ("L2", l2), ("L3", l3)] {
        let Some((bytes, ways, line)) = cache else {
            continue;
        };
        let Some(spec) = CacheSpec::for_valgrind(bytes, ways, line) else {
            continue;
        };
        let adjusted = if spec.ways == ways {
            String::new()
        } else {
            format!(", simulated {}-way for a power-of-two set count", spec.ways)
        };
        levels.push(OwnLevel {
            level: level.to_string(),
            spec,
            origin: format!(
                "{level} sysfs {} {ways}-way{adjusted}",
                compact_bytes(bytes as f64)
            ),
        });
    }
    // Without an L1d there is no geometry of this CPU to build.
    if levels.first().is_none_or(|l| l.level != "L1") {
        levels.clear();
    }
    levels
}

/// This CPU's levels from the measured effective sizes: each level's measured size rounded
/// down to what valgrind accepts ([`CacheSpec::round_down`]) with sysfs' associativity and line
/// for that level (8-way for L1 and 16-way beyond, 64-byte lines, where sysfs does not say).
/// An error says why the measured levels cannot be used (then sysfs is).
pub fn measured_levels(
    measured: &CacheLevels,
    detected: impl Fn(u8) -> Option<DetectedCache>,
) -> Result<Vec<OwnLevel>, String> {
    if measured.levels.len() < 2 {
        return Err(format!(
            "{} measured {} level(s), too few for an L1 and a last level",
            measured.source,
            measured.levels.len()
        ));
    }
    let mut levels = Vec::new();
    for (i, level) in measured.levels.iter().enumerate() {
        let number = level.level.trim_start_matches('L').parse::<u8>().ok();
        let known = number.and_then(&detected);
        let (ways, line, assumed) = match known {
            Some((_, ways, line)) => (ways, line, ""),
            None if i == 0 => (8, 64, " (associativity assumed)"),
            None => (16, 64, " (associativity assumed)"),
        };
        let spec = CacheSpec::round_down(level.bytes, ways, line).ok_or_else(|| {
            format!(
                "the measured {} of {} has no valgrind geometry at {ways} ways",
                level.level,
                compact_bytes(level.bytes as f64)
            )
        })?;
        levels.push(OwnLevel {
            level: level.level.clone(),
            spec,
            origin: format!(
                "{} measured effective {}, rounded down to {}{assumed}",
                level.level,
                compact_bytes(level.bytes as f64),
                spec.describe()
            ),
        });
    }
    Ok(levels)
}

/// The label of this CPU's geometries built from the measured effective sizes.
pub const OWN_EFFECTIVE: &str = "this CPU (effective)";

/// The label of this CPU's geometries built from the sizes sysfs/CPUID lists.
pub const OWN_SYSFS: &str = "this CPU (sysfs)";

/// The geometries to simulate: this CPU's L1d with LL = each of its further levels (from
/// `own`, smallest first), labelled [`OWN_EFFECTIVE`] where `own` holds the measured effective
/// sizes (`sysfs` is then `Some`, the levels sysfs/CPUID lists) and [`OWN_SYSFS`] where it
/// holds the listed ones (`sysfs` is `None`); beside measured levels, one more geometry from
/// the listed sizes, its L1d and its last level ([`OWN_SYSFS`]), unless that is the effective
/// last-level geometry again (whose origin then says so); then the 2008-class 32 KiB L1d with
/// a 4 MiB and a 12 MiB LL. Quick mode keeps this CPU's effective last level and its sysfs
/// geometry where there is one (else the 2008-class 12 MiB). `own_origin` says where `own`
/// came from (measured or sysfs, and why).
pub fn geometries(
    own: &[OwnLevel],
    own_origin: &str,
    sysfs: Option<&[OwnLevel]>,
    quick: bool,
) -> Vec<CacheGeometry> {
    let classic_l1 = CacheSpec {
        bytes: 32 << 10,
        ways: 8,
        line: 64,
    };
    let i1 = classic_l1;
    let label = if sysfs.is_some() {
        OWN_EFFECTIVE
    } else {
        OWN_SYSFS
    };
    let own_geometry = |label: &str, d1: &OwnLevel, ll: &OwnLevel, origin: &str| CacheGeometry {
        name: format!(
            "{label}: L1d {}, LL = {} {}",
            compact_bytes(d1.spec.bytes as f64),
            ll.level,
            compact_bytes(ll.spec.bytes as f64)
        ),
        i1,
        d1: d1.spec,
        ll: ll.spec,
        origin: format!("{origin} — {}; {}", d1.origin, ll.origin),
        own: true,
    };
    let mut list = Vec::new();
    if let Some((d1, beyond)) = own.split_first() {
        for ll in beyond {
            list.push(own_geometry(label, d1, ll, own_origin));
        }
    }
    let listed = sysfs
        .and_then(|levels| Some((levels.first()?, levels.get(1..)?.last()?)))
        .filter(|(d1, _)| d1.level == "L1");
    if let Some((d1, ll)) = listed {
        let same = list
            .last()
            .filter(|g| g.d1 == d1.spec && g.ll == ll.spec && g.name.contains(&ll.level));
        match same {
            Some(_) => {
                if let Some(last) = list.last_mut() {
                    last.origin.push_str(&format!(
                        " (the sizes sysfs/CPUID lists, {} and {}, give this same geometry, so \
                         it is not simulated twice)",
                        d1.origin, ll.origin
                    ));
                }
            }
            None => list.push(own_geometry(
                OWN_SYSFS,
                d1,
                ll,
                "the sizes sysfs/CPUID lists, L1d and last level, for comparison with the \
                 effective ones",
            )),
        }
    }
    for (ll_bytes, ways) in [(4usize << 20, 16), (12 << 20, 16)] {
        if let Some(ll) = CacheSpec::for_valgrind(ll_bytes, ways, 64) {
            list.push(CacheGeometry {
                name: format!(
                    "2008-class: L1d 32 KiB, LL {}",
                    compact_bytes(ll_bytes as f64)
                ),
                i1,
                d1: classic_l1,
                ll,
                origin: format!(
                    "fixed sizes — a 2008-class 32 KiB 8-way L1d and a {} {ways}-way LL{}",
                    compact_bytes(ll_bytes as f64),
                    if ll.ways == ways {
                        String::new()
                    } else {
                        format!(", simulated {}-way for a power-of-two set count", ll.ways)
                    }
                ),
                own: false,
            });
        }
    }
    if quick {
        let last = list
            .iter()
            .rposition(|g| g.own && g.name.starts_with(label));
        let listed = if label == OWN_EFFECTIVE {
            list.iter().position(|g| g.name.starts_with(OWN_SYSFS))
        } else {
            None
        };
        let keep: Vec<usize> = match (last, listed) {
            (None, None) => vec![list.len() - 1],
            (a, b) => a.into_iter().chain(b).collect(),
        };
        list = keep.into_iter().map(|i| list[i].clone()).collect();
    }
    list
}

/// The misses by which a pair's difference may stray from one stream's: the measured
/// function's exit (the returned value's stores, the saved registers' reloads) touches a few
/// stack lines once per run, and the longer run may have evicted them from the LL where the
/// shorter had not (2 LL store misses against 0 L1 ones in the difference, seen with a 128 KiB
/// LL) — a constant, not a per-lookup cost.
pub const EDGE_MISSES: u64 = 16;

/// Callgrind's event totals for the collected region.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SimCounts {
    pub ir: u64,
    pub dr: u64,
    pub dw: u64,
    pub i1mr: u64,
    pub d1mr: u64,
    pub d1mw: u64,
    pub ilmr: u64,
    pub dlmr: u64,
    pub dlmw: u64,
    /// Conditional branches executed and mispredicted (`--branch-sim=yes`).
    pub bc: u64,
    pub bcm: u64,
    /// Indirect branches executed and mispredicted.
    pub bi: u64,
    pub bim: u64,
}

impl SimCounts {
    /// `self - earlier`, field by field (a count that shrank, which deterministic simulation
    /// does not produce, is clamped at zero).
    pub fn minus(&self, earlier: &SimCounts) -> SimCounts {
        SimCounts {
            ir: self.ir.saturating_sub(earlier.ir),
            dr: self.dr.saturating_sub(earlier.dr),
            dw: self.dw.saturating_sub(earlier.dw),
            i1mr: self.i1mr.saturating_sub(earlier.i1mr),
            d1mr: self.d1mr.saturating_sub(earlier.d1mr),
            d1mw: self.d1mw.saturating_sub(earlier.d1mw),
            ilmr: self.ilmr.saturating_sub(earlier.ilmr),
            dlmr: self.dlmr.saturating_sub(earlier.dlmr),
            dlmw: self.dlmw.saturating_sub(earlier.dlmw),
            bc: self.bc.saturating_sub(earlier.bc),
            bcm: self.bcm.saturating_sub(earlier.bcm),
            bi: self.bi.saturating_sub(earlier.bi),
            bim: self.bim.saturating_sub(earlier.bim),
        }
    }

    /// Mispredicted conditional and indirect branches.
    pub fn mispredicts(&self) -> u64 {
        self.bcm + self.bim
    }

    /// Whether every LL count is at most its L1 count (instruction and data), up to
    /// [`EDGE_MISSES`]: each LL access is an L1 miss, so a run — or the difference of two runs
    /// of one stream — that breaks this by more is not one stream's steady state.
    pub fn consistent(&self) -> bool {
        self.ilmr <= self.i1mr + EDGE_MISSES
            && self.dlmr + self.dlmw <= self.d1mr + self.d1mw + EDGE_MISSES
    }

    pub fn l1_misses(&self) -> u64 {
        self.i1mr + self.d1mr + self.d1mw
    }

    pub fn ll_misses(&self) -> u64 {
        self.ilmr + self.dlmr + self.dlmw
    }

    /// Ir + 10·(I1mr + D1mr + D1mw) + 100·(ILmr + DLmr + DLmw).
    pub fn estimated_cycles(&self) -> f64 {
        self.ir as f64
            + L1_MISS_CYCLES * self.l1_misses() as f64
            + LL_MISS_CYCLES * self.ll_misses() as f64
    }
}

/// Reads the `events:` line and the `totals:` (or `summary:`) line of a callgrind out file.
pub fn parse_callgrind_out(text: &str) -> Result<SimCounts, String> {
    let events: Vec<&str> = text
        .lines()
        .find_map(|l| l.strip_prefix("events:"))
        .ok_or("callgrind output has no 'events:' line")?
        .split_whitespace()
        .collect();
    let totals = text
        .lines()
        .find_map(|l| l.strip_prefix("totals:"))
        .or_else(|| text.lines().find_map(|l| l.strip_prefix("summary:")))
        .ok_or("callgrind output has no 'totals:' or 'summary:' line")?;
    let values: Vec<u64> = totals
        .split_whitespace()
        .map(|v| {
            v.parse()
                .map_err(|_| format!("callgrind totals: bad number '{v}'"))
        })
        .collect::<Result<_, _>>()?;
    let optional = |name: &str| -> u64 {
        events
            .iter()
            .position(|e| *e == name)
            .and_then(|i| values.get(i).copied())
            .unwrap_or(0)
    };
    let get = |name: &str| -> Result<u64, String> {
        match events.iter().position(|e| *e == name) {
            // Callgrind leaves out trailing zero counts.
            Some(i) => Ok(values.get(i).copied().unwrap_or(0)),
            None => Err(format!(
                "callgrind output lacks the {name} event (was --cache-sim=yes given?)"
            )),
        }
    };
    Ok(SimCounts {
        ir: get("Ir")?,
        dr: get("Dr")?,
        dw: get("Dw")?,
        i1mr: get("I1mr")?,
        d1mr: get("D1mr")?,
        d1mw: get("D1mw")?,
        ilmr: get("ILmr")?,
        dlmr: get("DLmr")?,
        dlmw: get("DLmw")?,
        // The branch events, present with --branch-sim=yes.
        bc: optional("Bc"),
        bcm: optional("Bcm"),
        bi: optional("Bi"),
        bim: optional("Bim"),
    })
}

/// `valgrind-3.19.0`, or `None` when valgrind cannot be started.
pub fn valgrind_version() -> Option<String> {
    let output = Command::new("valgrind").arg("--version").output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// The steady-state counts of `lookups` lookups: two runs of the same workload (same
/// allocation, same cache state when measuring starts), one measuring its first `lookups`
/// lookups and the other its first `2 · lookups`, and the difference is returned — the cost of
/// the stream's second half after its first, with cold misses (the first touch of code and
/// tables) cancelled. Neither run holds its inputs in memory: each reads them a chunk at a
/// time into the same small buffers ([`CHUNK_LOOKUPS`](super::workload::CHUNK_LOOKUPS)), so
/// what the simulated caches see of them is the same at every lookup count. `workload`: a file
/// from [`write_search_workload`](super::workload::write_search_workload) the inputs come
/// from (the same file for both runs), else the uniform inputs.
pub fn simulate(
    exe: &Path,
    backend: &str,
    lookups: usize,
    eval_bytes: usize,
    geometry: &CacheGeometry,
    simulator: Simulator<'_>,
    workload: Option<&Path>,
) -> Result<SimCounts, String> {
    let once = |measured| {
        simulate_once(
            exe, backend, measured, eval_bytes, geometry, simulator, workload,
        )
    };
    let short = once(lookups)?;
    let long = once(2 * lookups)?;
    Ok(long.minus(&short))
}

/// Runs `exe e8-workload` for `backend` under callgrind with `geometry` once, measuring the
/// workload's first `lookups`; `scratch` is a folder for callgrind's out file. The count is
/// passed zero-padded to ten digits, so that the runs of a pair differ in no byte of their
/// command line's length (and so of their stack). `workload` is passed on as `--workload`
/// where given.
pub fn simulate_once(
    exe: &Path,
    backend: &str,
    lookups: usize,
    eval_bytes: usize,
    geometry: &CacheGeometry,
    simulator: Simulator<'_>,
    workload: Option<&Path>,
) -> Result<SimCounts, String> {
    // A folder of its own per run, since runs go side by side (E8 runs one per core); its
    // name's length is fixed, so the pair of runs differ in no byte's count here either.
    let folder = tempfile::Builder::new()
        .prefix("run-")
        .tempdir_in(simulator.scratch)
        .map_err(|e| format!("cannot create a folder for callgrind's output: {e}"))?;
    let out_file = folder.path().join("callgrind.out");
    let mut command = Command::new("valgrind");
    command
        // valgrind's CPUID hides AVX-512: a KIKI_SIMD=avx512 inherited from the report would
        // make the workload refuse to start. Under valgrind it runs at the best level it sees.
        .env_remove(kiki_core::simd::ENV_VAR)
        .arg("--tool=callgrind")
        .arg("--cache-sim=yes")
        .arg("--branch-sim=yes")
        .arg("--collect-atstart=no")
        .arg(format!("--toggle-collect=*{MEASURED_FUNCTION}*"))
        .arg(format!("--I1={}", geometry.i1.valgrind_arg()))
        .arg(format!("--D1={}", geometry.d1.valgrind_arg()))
        .arg(format!("--LL={}", geometry.ll.valgrind_arg()))
        .arg(format!("--callgrind-out-file={}", out_file.display()))
        .arg(exe)
        .args([
            "e8-workload",
            "--backend",
            backend,
            "--lookups",
            &format!("{lookups:010}"),
            "--eval-bytes",
            &eval_bytes.to_string(),
        ])
        .args(
            workload
                .map(|path| [Path::new("--workload"), path])
                .into_iter()
                .flatten(),
        );
    let output = simulator.watch.output(command)?;
    let text = std::fs::read_to_string(&out_file);
    let _ = std::fs::remove_file(&out_file);
    if !output.status.success() {
        let last = crate::last_line(&output.stderr);
        return Err(format!(
            "valgrind failed on {backend} ({}): {last}",
            output.status
        ));
    }
    let counts =
        parse_callgrind_out(&text.map_err(|e| format!("callgrind wrote no output: {e}"))?)?;
    if counts.ir == 0 {
        return Err(format!(
            "callgrind collected nothing in {MEASURED_FUNCTION} for {backend}"
        ));
    }
    Ok(counts)
}

/// Where simulations run: the folder for callgrind's files, and the watch that starts (and,
/// when the report is stopped, kills) valgrind.
#[derive(Clone, Copy)]
pub struct Simulator<'a> {
    pub scratch: &'a Path,
    pub watch: &'a crate::watch::Watch,
}

/// One simulated result.
#[derive(Clone, Debug, PartialEq)]
pub struct SimResult {
    pub backend: String,
    pub geometry: String,
    pub counts: SimCounts,
    pub lookups: usize,
    /// The pressure variant's evaluation buffer (0: lookups alone).
    pub eval_bytes: usize,
}

impl SimResult {
    pub(super) fn per_lookup(&self, value: f64) -> f64 {
        value / self.lookups.max(1) as f64
    }
}
