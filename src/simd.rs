//! The SIMD level the run-time dispatched paths use: detected from the CPU, or forced by `--simd`.
//!
//! Code compiled for one level with `#[target_feature]` (AVX2, AVX-512) is only called after
//! [`level`] says so, and [`level`] never names a level this CPU lacks: forcing one it lacks is
//! an error, and under valgrind (whose CPUID hides AVX-512) detection falls back by itself.
//! The `portable` feature makes the portable twin the only level.

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

/// A level of run-time dispatched SIMD code, lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SimdLevel {
    /// Scalar `u64`/`u128` code: the twin every SIMD path is checked against.
    Portable,
    /// AVX2 (256-bit vectors).
    Avx2,
    /// AVX-512 F, BW, VL and VBMI2 (512-bit vectors, double-word shifts).
    Avx512,
}

impl SimdLevel {
    /// Every level, lowest first.
    pub const ALL: [SimdLevel; 3] = [SimdLevel::Portable, SimdLevel::Avx2, SimdLevel::Avx512];

    /// The name `--simd` takes.
    pub fn name(self) -> &'static str {
        match self {
            SimdLevel::Portable => "portable",
            SimdLevel::Avx2 => "avx2",
            SimdLevel::Avx512 => "avx512",
        }
    }

    /// Parses a `--simd` name.
    pub fn parse(text: &str) -> Result<SimdLevel, String> {
        SimdLevel::ALL
            .into_iter()
            .find(|level| level.name() == text)
            .ok_or_else(|| {
                format!(
                    "unknown SIMD level {} (valid: portable, avx2, avx512)",
                    crate::input::quote_input(text)
                )
            })
    }

    /// The CPU features the level needs.
    pub fn needs(self) -> &'static [&'static str] {
        match self {
            SimdLevel::Portable => &[],
            SimdLevel::Avx2 => &["avx2"],
            SimdLevel::Avx512 => &["avx512f", "avx512bw", "avx512vl", "avx512vbmi2"],
        }
    }

    /// Whether this build and CPU can run the level (`Err` says why not).
    pub fn availability(self) -> Result<(), String> {
        if self == SimdLevel::Portable {
            return Ok(());
        }
        if cfg!(feature = "portable") {
            return Err(
                "this build has the `portable` feature, which forces the portable twins"
                    .to_string(),
            );
        }
        #[cfg(target_arch = "x86_64")]
        {
            let missing: Vec<&str> = self
                .needs()
                .iter()
                .copied()
                .filter(|feature| !cpu_has(feature))
                .collect();
            if missing.is_empty() {
                Ok(())
            } else {
                Err(format!("this CPU lacks {}", missing.join(", ")))
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Err("not an x86-64 CPU".to_string())
        }
    }

    /// [`SimdLevel::availability`] as a yes or no, asked of the CPU once per process: cheap
    /// enough to check on every call of a batch lookup that is handed a level.
    pub fn is_available(self) -> bool {
        static AVAILABLE: std::sync::OnceLock<[bool; 3]> = std::sync::OnceLock::new();
        AVAILABLE.get_or_init(|| SimdLevel::ALL.map(|level| level.availability().is_ok()))
            [self as usize]
    }

    /// The levels this build and CPU can run, lowest first.
    pub fn available() -> Vec<SimdLevel> {
        SimdLevel::ALL
            .into_iter()
            .filter(|level| level.availability().is_ok())
            .collect()
    }

    /// The highest level this build and CPU can run.
    pub fn best() -> SimdLevel {
        *SimdLevel::available()
            .last()
            .expect("the portable level is always available")
    }
}

impl fmt::Display for SimdLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(target_arch = "x86_64")]
fn cpu_has(feature: &str) -> bool {
    match feature {
        "avx2" => std::arch::is_x86_feature_detected!("avx2"),
        "avx512f" => std::arch::is_x86_feature_detected!("avx512f"),
        "avx512bw" => std::arch::is_x86_feature_detected!("avx512bw"),
        "avx512vl" => std::arch::is_x86_feature_detected!("avx512vl"),
        "avx512vbmi2" => std::arch::is_x86_feature_detected!("avx512vbmi2"),
        _ => false,
    }
}

/// Whether this build and CPU can run `level`, cached: cheap enough for a hot path's dispatch.
#[inline]
pub fn can_run(level: SimdLevel) -> bool {
    static CAN_RUN: std::sync::OnceLock<[bool; 3]> = std::sync::OnceLock::new();
    CAN_RUN.get_or_init(|| SimdLevel::ALL.map(|l| l.availability().is_ok()))[level as usize]
}

/// 0: not chosen yet (the best level is used); otherwise 1 + the forced level's index.
static FORCED: AtomicU8 = AtomicU8::new(0);

/// Forces `level` for every run-time dispatched path; `Err` when this build or CPU lacks it.
pub fn force(level: SimdLevel) -> Result<(), String> {
    level
        .availability()
        .map_err(|why| format!("--simd {}: {why}", level.name()))?;
    FORCED.store(1 + level as u8, Ordering::Relaxed);
    Ok(())
}

/// The level `--simd` (or `KIKI_SIMD`) forced, if any.
pub fn forced() -> Option<SimdLevel> {
    match FORCED.load(Ordering::Relaxed) {
        1 => Some(SimdLevel::Portable),
        2 => Some(SimdLevel::Avx2),
        3 => Some(SimdLevel::Avx512),
        _ => None,
    }
}

/// Back to the detected best level.
pub fn reset() {
    FORCED.store(0, Ordering::Relaxed);
}

/// The level the dispatched paths use now: the forced one, or the best this CPU has.
#[inline]
pub fn level() -> SimdLevel {
    match FORCED.load(Ordering::Relaxed) {
        1 => SimdLevel::Portable,
        2 => SimdLevel::Avx2,
        3 => SimdLevel::Avx512,
        _ => best_cached(),
    }
}

fn best_cached() -> SimdLevel {
    static BEST: std::sync::OnceLock<SimdLevel> = std::sync::OnceLock::new();
    *BEST.get_or_init(SimdLevel::best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for level in SimdLevel::ALL {
            assert_eq!(SimdLevel::parse(level.name()), Ok(level));
        }
        let error = SimdLevel::parse("sse9").unwrap_err();
        assert!(error.contains("unknown SIMD level"), "{error}");
    }

    #[test]
    fn the_portable_level_is_always_available_and_best_is_available() {
        assert_eq!(SimdLevel::available()[0], SimdLevel::Portable);
        assert!(SimdLevel::best().availability().is_ok());
        for level in SimdLevel::ALL {
            assert_eq!(
                level.is_available(),
                level.availability().is_ok(),
                "{level}"
            );
        }
        if cfg!(feature = "portable") {
            assert_eq!(SimdLevel::best(), SimdLevel::Portable);
        }
    }
}
