//! The conditions a report was measured under: steal time and load over the run, and the clock
//! the core actually ran at, measured rather than read.
//!
//! A VM's neighbours show up as steal time (`/proc/stat`), other work on this machine as load
//! (`/proc/loadavg`, and the share of CPU time not idle beside the report). The clock comes from a
//! chain of dependent register adds, one cycle each on every x86-64 core kiki targets, timed on
//! the thread's CPU time and checked against a chain of multiplies (three cycles each): cycles
//! per nanosecond under the turbo and power state of the run itself.

use serde::{Deserialize, Serialize};
use std::time::Instant;

/// What the machine was doing while a report ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunConditions {
    /// Seconds from the first experiment's start to the last one's end.
    pub wall_seconds: f64,
    /// Steal time as a share of all CPU time over the run (percent), when `/proc/stat` says.
    pub steal_percent: Option<f64>,
    /// CPU time not idle over the run, all CPUs together (percent of their capacity): the
    /// report's own thread plus anything else.
    pub busy_percent: Option<f64>,
    /// The 1-minute load average at the start and at the end.
    pub load_start: Option<f64>,
    pub load_end: Option<f64>,
    /// Cycles per nanosecond (GHz) by the dependent-add loop, at the start and at the end.
    pub clock_ghz_start: Option<f64>,
    pub clock_ghz_end: Option<f64>,
}

/// The aggregate `cpu` line of `/proc/stat`: (total jiffies, idle + iowait, steal).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuTimes {
    pub total: u64,
    pub idle: u64,
    pub steal: u64,
}

/// What procfs asks of the system to parse `/proc/stat`: the tick rate and the rest only
/// convert to durations, which kiki does not read (it keeps ticks).
struct TicksOnly;

impl procfs_core::SystemInfoInterface for TicksOnly {
    fn boot_time_secs(&self) -> procfs_core::ProcResult<u64> {
        Ok(0)
    }
    fn ticks_per_second(&self) -> u64 {
        100
    }
    fn page_size(&self) -> u64 {
        4096
    }
    fn is_little_endian(&self) -> bool {
        cfg!(target_endian = "little")
    }
}

/// The aggregate `cpu` line of the text of `/proc/stat` (parsed by procfs, which also asks for
/// the `ctxt`, `btime` and `processes` lines every kernel writes).
pub fn parse_cpu_times(stat: &str) -> Option<CpuTimes> {
    use procfs_core::FromBufReadSI;
    let cpu = procfs_core::KernelStats::from_buf_read(stat.as_bytes(), &TicksOnly)
        .ok()?
        .total;
    // user nice system idle iowait irq softirq steal (guest time is already counted in user
    // and nice); fields an old kernel does not write count as 0.
    let field = |f: Option<u64>| f.unwrap_or(0);
    Some(CpuTimes {
        total: cpu.user
            + cpu.nice
            + cpu.system
            + cpu.idle
            + field(cpu.iowait)
            + field(cpu.irq)
            + field(cpu.softirq)
            + field(cpu.steal),
        idle: cpu.idle + field(cpu.iowait),
        steal: field(cpu.steal),
    })
}

/// The 1-minute load average from `/proc/loadavg`. Parsed here, not by procfs, which reads the
/// averages as `f32`: a recorded `0.52` would become `0.5199999809265137`.
pub fn parse_load(loadavg: &str) -> Option<f64> {
    loadavg.split_ascii_whitespace().next()?.parse().ok()
}

fn cpu_times() -> Option<CpuTimes> {
    parse_cpu_times(&std::fs::read_to_string("/proc/stat").ok()?)
}

fn load() -> Option<f64> {
    parse_load(&std::fs::read_to_string("/proc/loadavg").ok()?)
}

/// Dependent operations per loop iteration of a clock chain: the loop's own counter and branch
/// run beside the chain, so an iteration takes this many times the operation's latency.
#[cfg(target_arch = "x86_64")]
const CHAIN_LENGTH: u64 = 16;

/// This thread's CPU time in nanoseconds (time it was descheduled does not count), where the
/// kernel gives it.
fn thread_cpu_ns() -> Option<f64> {
    crate::measure::thread_cpu_ns().map(|ns| ns as f64)
}

/// The two chains the clock is measured with. Register-register adds, not adds of an
/// immediate: Intel's Golden Cove and later cores fold chains of immediate adds at rename
/// (such a chain ran at "15 GHz" on a Xeon family 6 model 207), and nothing folds an add of a
/// register whose value the renamer does not know.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
enum Chain {
    /// `add v, w`: one cycle each on every x86-64 core.
    Add,
    /// `imul v, w`: three cycles each on every x86-64 core since Sandy Bridge and Zen.
    Multiply,
}

#[cfg(target_arch = "x86_64")]
impl Chain {
    fn cycles_per_operation(self) -> f64 {
        match self {
            Chain::Add => 1.0,
            Chain::Multiply => 3.0,
        }
    }
}

/// Runs `iterations` × 16 dependent operations of `chain` and returns the nanoseconds they took:
/// this thread's CPU time where the kernel gives it (a busy machine's other work then does not
/// slow the chain down), else wall time.
#[cfg(target_arch = "x86_64")]
fn chain_ns(chain: Chain, iterations: u64) -> f64 {
    let cpu_start = thread_cpu_ns();
    let start = Instant::now();
    let mut value: u64 = std::hint::black_box(1);
    let operand: u64 = std::hint::black_box(1);
    let mut left = iterations;
    // SAFETY: register-only arithmetic; no memory, no stack.
    unsafe {
        match chain {
            Chain::Add => std::arch::asm!(
                "2:",
                "add {v}, {w}", "add {v}, {w}", "add {v}, {w}", "add {v}, {w}",
                "add {v}, {w}", "add {v}, {w}", "add {v}, {w}", "add {v}, {w}",
                "add {v}, {w}", "add {v}, {w}", "add {v}, {w}", "add {v}, {w}",
                "add {v}, {w}", "add {v}, {w}", "add {v}, {w}", "add {v}, {w}",
                "dec {n}",
                "jnz 2b",
                v = inout(reg) value,
                w = in(reg) operand,
                n = inout(reg) left,
                options(nomem, nostack),
            ),
            Chain::Multiply => std::arch::asm!(
                "2:",
                "imul {v}, {w}", "imul {v}, {w}", "imul {v}, {w}", "imul {v}, {w}",
                "imul {v}, {w}", "imul {v}, {w}", "imul {v}, {w}", "imul {v}, {w}",
                "imul {v}, {w}", "imul {v}, {w}", "imul {v}, {w}", "imul {v}, {w}",
                "imul {v}, {w}", "imul {v}, {w}", "imul {v}, {w}", "imul {v}, {w}",
                "dec {n}",
                "jnz 2b",
                v = inout(reg) value,
                w = in(reg) operand,
                n = inout(reg) left,
                options(nomem, nostack),
            ),
        }
    }
    std::hint::black_box((value, left));
    let wall = start.elapsed().as_nanos() as f64;
    match (cpu_start, thread_cpu_ns()) {
        (Some(a), Some(b)) if b > a => (b - a).min(wall),
        _ => wall,
    }
}

/// The clock in GHz each chain shows (add, multiply): the fastest of nine runs of ~16 M
/// operations each, since a run can only be slowed (an interrupt, a preempted vCPU), never sped
/// up. The two chains alternate, so a clock that drifts during the measurement moves both.
#[cfg(target_arch = "x86_64")]
fn chains_ghz(iterations: u64) -> (f64, f64) {
    let ghz = |chain: Chain, iterations: u64| {
        (iterations * CHAIN_LENGTH) as f64 * chain.cycles_per_operation()
            / chain_ns(chain, iterations)
    };
    (0..9).fold((0.0, 0.0), |(add, multiply), _| {
        (
            f64::max(add, ghz(Chain::Add, iterations)),
            f64::max(multiply, ghz(Chain::Multiply, iterations / 3)),
        )
    })
}

/// How far the two chains may disagree before the clock is called unknown.
pub const CHAINS_AGREE_WITHIN: f64 = 0.10;

/// The core clock in GHz from a chain of dependent adds, after ~50 ms of warm-up that lets the
/// core leave a low-power state, checked against a chain of dependent multiplies (3 cycles
/// each): where the two disagree by more than 10 % one of them is not running at its textbook
/// latency on this core, and the clock is `None` rather than a wrong number. `None` off x86-64.
pub fn measure_clock_ghz() -> Option<f64> {
    #[cfg(target_arch = "x86_64")]
    {
        let iterations = 1_000_000;
        chain_ns(Chain::Add, 10 * iterations);
        let (add, multiply) = chains_ghz(iterations);
        ((add / multiply - 1.0).abs() <= CHAINS_AGREE_WITHIN).then_some(add)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

/// Records the conditions from the start of a run to its end.
pub struct Recorder {
    started: Instant,
    cpu: Option<CpuTimes>,
    load_start: Option<f64>,
    clock_ghz_start: Option<f64>,
}

impl Recorder {
    pub fn start() -> Recorder {
        Recorder {
            clock_ghz_start: measure_clock_ghz(),
            load_start: load(),
            cpu: cpu_times(),
            started: Instant::now(),
        }
    }

    pub fn finish(self) -> RunConditions {
        let wall_seconds = self.started.elapsed().as_secs_f64();
        let end = cpu_times();
        let (steal_percent, busy_percent) = match (self.cpu, end) {
            (Some(a), Some(b)) if b.total > a.total => {
                let total = (b.total - a.total) as f64;
                let steal = b.steal.saturating_sub(a.steal) as f64;
                let idle = b.idle.saturating_sub(a.idle) as f64;
                (
                    Some(100.0 * steal / total),
                    Some(100.0 * (total - idle - steal).max(0.0) / total),
                )
            }
            _ => (None, None),
        };
        RunConditions {
            wall_seconds,
            steal_percent,
            busy_percent,
            load_start: self.load_start,
            load_end: load(),
            clock_ghz_start: self.clock_ghz_start,
            clock_ghz_end: measure_clock_ghz(),
        }
    }
}

impl RunConditions {
    /// The report's rows for the machine section: (name, value).
    pub fn rows(&self) -> Vec<(&'static str, String)> {
        let or_unknown = |value: Option<f64>, format: &dyn Fn(f64) -> String| {
            value.map_or_else(|| "unknown".to_string(), format)
        };
        vec![
            (
                "Clock (measured)",
                format!(
                    "{} GHz at the start, {} GHz at the end (dependent register adds, 1 cycle \
                     each, checked against dependent multiplies)",
                    or_unknown(self.clock_ghz_start, &|g| format!("{g:.2}")),
                    or_unknown(self.clock_ghz_end, &|g| format!("{g:.2}")),
                ),
            ),
            (
                "During the run",
                format!(
                    "{:.0} s; steal {}, CPU busy {} of all CPUs (`/proc/stat`); load average {} → {}",
                    self.wall_seconds,
                    or_unknown(self.steal_percent, &|p| format!("{p:.2} %")),
                    or_unknown(self.busy_percent, &|p| format!("{p:.1} %")),
                    or_unknown(self.load_start, &|l| format!("{l:.2}")),
                    or_unknown(self.load_end, &|l| format!("{l:.2}")),
                ),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files_parse() {
        // The lines every kernel writes besides the CPUs'.
        let rest = "intr 1 2\nctxt 4501\nbtime 1764000000\nprocesses 812\nprocs_running 2\n";
        let stat =
            format!("cpu  100 5 50 800 20 1 2 30 7 0\ncpu0 50 2 25 400 10 0 1 15 7 0\n{rest}");
        let times = parse_cpu_times(&stat).unwrap();
        assert_eq!(times.total, 100 + 5 + 50 + 800 + 20 + 1 + 2 + 30);
        assert_eq!(times.idle, 820);
        assert_eq!(times.steal, 30);
        // Old kernels without iowait, irq, softirq or steal still parse.
        let old = parse_cpu_times(&format!("cpu 1 2 3 4\n{rest}")).unwrap();
        assert_eq!((old.total, old.idle, old.steal), (10, 4, 0));
        assert_eq!(parse_cpu_times(rest), None, "no cpu line");
        assert_eq!(parse_cpu_times("cpu 1 x 3 4\n"), None);
        // This machine's own, where it has one.
        if let Ok(text) = std::fs::read_to_string("/proc/stat") {
            assert!(parse_cpu_times(&text).is_some_and(|t| t.total >= t.idle + t.steal));
        }
        assert_eq!(parse_load("0.52 0.40 0.30 1/123 4567\n"), Some(0.52));
        assert_eq!(parse_load(""), None);
    }

    #[test]
    fn the_clock_is_plausible_and_the_run_is_recorded() {
        if let Some(ghz) = measure_clock_ghz() {
            // Any x86-64 core kiki runs on: between 0.5 and 7 GHz.
            assert!((0.5..7.0).contains(&ghz), "{ghz} GHz");
        }
        let conditions = Recorder::start().finish();
        assert!(conditions.wall_seconds >= 0.0);
        if let Some(steal) = conditions.steal_percent {
            assert!((0.0..=100.0).contains(&steal));
        }
        let rows = conditions.rows();
        assert_eq!(rows.len(), 2);
        assert!(rows[0].1.contains("GHz"));
    }
}
