//! E8's measuring: cache geometries, valgrind callgrind runs of the workload, and their counts.

use super::workload::{L1_MISS_CYCLES, LL_MISS_CYCLES, MEASURED_FUNCTION};
use crate::units::compact_bytes;
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
}

/// A cache level as detected on this machine: bytes, ways, line.
pub type DetectedCache = (usize, usize, usize);

/// The geometries to simulate: this CPU's L1d with LL = its L2, then LL = its L3 (each where
/// detected), and the 2008-class 32 KiB L1d with a 4 MiB and a 12 MiB LL. Quick mode keeps one:
/// this CPU's L1d and L3 where known, else the 2008-class 12 MiB.
pub fn geometries(
    l1d: Option<DetectedCache>,
    l2: Option<DetectedCache>,
    l3: Option<DetectedCache>,
    quick: bool,
) -> Vec<CacheGeometry> {
    let classic_l1 = CacheSpec {
        bytes: 32 << 10,
        ways: 8,
        line: 64,
    };
    let i1 = classic_l1;
    let spec = |c: DetectedCache| CacheSpec::for_valgrind(c.0, c.1, c.2);
    let own_l1 = l1d.and_then(spec);
    let mut list = Vec::new();
    if let Some(d1) = own_l1 {
        for (level, cache) in [("L2", l2), ("L3", l3)] {
            if let Some(ll) = cache.and_then(spec) {
                list.push(CacheGeometry {
                    name: format!(
                        "this CPU: L1d {}, LL = {level} {}",
                        compact_bytes(d1.bytes as f64),
                        compact_bytes(ll.bytes as f64)
                    ),
                    i1,
                    d1,
                    ll,
                });
            }
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
            });
        }
    }
    if quick {
        let own_l3 = list
            .iter()
            .position(|g| g.name.starts_with("this CPU") && g.name.contains("L3"));
        let keep = own_l3.unwrap_or(list.len() - 1);
        list = vec![list.swap_remove(keep)];
    }
    list
}

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
        }
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

/// The steady-state counts of `lookups` lookups: the workload is simulated with `lookups` and
/// with `2 · lookups` (the first half of the longer run is the shorter run, input for input),
/// and the difference is returned, so cold misses — the first touch of code, tables and inputs —
/// cancel out.
pub fn simulate(
    exe: &Path,
    backend: &str,
    lookups: usize,
    eval_bytes: usize,
    geometry: &CacheGeometry,
    scratch: &Path,
) -> Result<SimCounts, String> {
    let short = simulate_once(exe, backend, lookups, eval_bytes, geometry, scratch)?;
    let long = simulate_once(exe, backend, 2 * lookups, eval_bytes, geometry, scratch)?;
    Ok(long.minus(&short))
}

/// Runs `exe e8-workload` for `backend` under callgrind with `geometry` once; `scratch` is a
/// folder for callgrind's out file.
pub fn simulate_once(
    exe: &Path,
    backend: &str,
    lookups: usize,
    eval_bytes: usize,
    geometry: &CacheGeometry,
    scratch: &Path,
) -> Result<SimCounts, String> {
    let out_file = scratch.join(format!("callgrind.{backend}.{}.out", std::process::id()));
    let output = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("--cache-sim=yes")
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
            &lookups.to_string(),
            "--eval-bytes",
            &eval_bytes.to_string(),
        ])
        .output()
        .map_err(|e| format!("cannot start valgrind: {e}"))?;
    let text = std::fs::read_to_string(&out_file);
    let _ = std::fs::remove_file(&out_file);
    if !output.status.success() {
        let last = crate::harness::last_line(&output.stderr);
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
