//! The SIMD level the run-time dispatched paths use: detected from the CPU, or forced by `--simd`
//! or the environment variable `KIKI_SIMD` (same names; `--simd` wins).
//!
//! Code compiled for one level with `#[target_feature]` (AVX2, AVX-512) is only called after
//! [`level`] says so, and [`level`] never names a level this CPU lacks: forcing one it lacks is
//! an error, and under valgrind (whose CPUID hides AVX-512) detection falls back by itself.
//! The `portable` feature makes the portable twin the only level.

use std::ffi::OsStr;
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

/// The environment variable that chooses the level when `--simd` does not (same names).
pub const ENV_VAR: &str = "KIKI_SIMD";

/// The level a `KIKI_SIMD` value asks for: `Ok(None)` when unset or empty (the best level),
/// `Err` (one line) for an unknown name, a value that is not UTF-8, or a level this build or
/// CPU lacks. Takes the value rather than reading the environment, so that it is tested on
/// strings without touching the process-wide environment or level.
pub fn level_from_env_value(value: Option<&OsStr>) -> Result<Option<SimdLevel>, String> {
    let Some(value) = value.filter(|value| !value.is_empty()) else {
        return Ok(None);
    };
    let text = value.to_str().ok_or_else(|| {
        format!(
            "{ENV_VAR}: {} is not UTF-8 (valid: portable, avx2, avx512)",
            crate::input::quote_input(&value.to_string_lossy())
        )
    })?;
    let level = SimdLevel::parse(text).map_err(|error| format!("{ENV_VAR}: {error}"))?;
    level
        .availability()
        .map_err(|why| format!("{ENV_VAR}={}: {why}", level.name()))?;
    Ok(Some(level))
}

/// The level `KIKI_SIMD` asks for now (see [`level_from_env_value`]).
pub fn level_from_env() -> Result<Option<SimdLevel>, String> {
    level_from_env_value(std::env::var_os(ENV_VAR).as_deref())
}

/// Applies `KIKI_SIMD`: forces its level when set, leaves the best level when unset or empty;
/// `Err` (one line, nothing changed) when its value is unknown or names a level this build or
/// CPU lacks. The command line calls it when `--simd` is not given.
pub fn init_from_env() -> Result<(), String> {
    if let Some(level) = level_from_env()? {
        FORCED.store(1 + level as u8, Ordering::Relaxed);
    }
    Ok(())
}

/// 0: not forced (the default level is used); otherwise 1 + the forced level's index.
static FORCED: AtomicU8 = AtomicU8::new(0);

/// Forces `level` for every run-time dispatched path; `Err` when this build or CPU lacks it.
pub fn force(level: SimdLevel) -> Result<(), String> {
    level
        .availability()
        .map_err(|why| format!("--simd {}: {why}", level.name()))?;
    FORCED.store(1 + level as u8, Ordering::Relaxed);
    Ok(())
}

/// The level `--simd` forced, else the one `KIKI_SIMD` names (when this CPU can run it).
pub fn forced() -> Option<SimdLevel> {
    match FORCED.load(Ordering::Relaxed) {
        1 => Some(SimdLevel::Portable),
        2 => Some(SimdLevel::Avx2),
        3 => Some(SimdLevel::Avx512),
        _ => level_from_env().ok().flatten(),
    }
}

/// Back to the default level (see [`default_level`]).
pub fn reset() {
    FORCED.store(0, Ordering::Relaxed);
}

/// The level the dispatched paths use now: the forced one, or the default.
#[inline]
pub fn level() -> SimdLevel {
    match FORCED.load(Ordering::Relaxed) {
        1 => SimdLevel::Portable,
        2 => SimdLevel::Avx2,
        3 => SimdLevel::Avx512,
        _ => default_level(),
    }
}

/// The level used when none is forced: `KIKI_SIMD`'s when it is set to a level this build and
/// CPU can run, else the best one (an unusable value is ignored here; the command line refuses
/// it). Read once per process, so that `cargo test` run with `KIKI_SIMD=avx512` runs every
/// test that reads [`level`] at that level.
pub fn default_level() -> SimdLevel {
    static DEFAULT: std::sync::OnceLock<SimdLevel> = std::sync::OnceLock::new();
    *DEFAULT.get_or_init(|| {
        level_from_env()
            .ok()
            .flatten()
            .unwrap_or_else(SimdLevel::best)
    })
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

    fn env(value: &str) -> Result<Option<SimdLevel>, String> {
        level_from_env_value(Some(OsStr::new(value)))
    }

    #[test]
    fn env_values_unset_or_empty_leave_the_default() {
        assert_eq!(level_from_env_value(None), Ok(None));
        assert_eq!(env(""), Ok(None));
    }

    #[test]
    fn env_values_name_a_level_this_cpu_can_run() {
        assert_eq!(env("portable"), Ok(Some(SimdLevel::Portable)));
        for level in SimdLevel::ALL {
            match level.availability() {
                Ok(()) => assert_eq!(env(level.name()), Ok(Some(level))),
                Err(why) => {
                    let error = env(level.name()).unwrap_err();
                    assert_eq!(error, format!("KIKI_SIMD={}: {why}", level.name()));
                }
            }
        }
    }

    #[test]
    fn env_values_that_name_no_level_are_one_line_errors() {
        for bad in [
            "bogus", "AVX2", " avx2", "avx2 ", "avx-512", "sse4.2", "avx2\nx",
        ] {
            let error = env(bad).unwrap_err();
            assert!(
                error.starts_with("KIKI_SIMD: unknown SIMD level"),
                "{bad}: {error}"
            );
            assert!(
                error.contains("valid: portable, avx2, avx512"),
                "{bad}: {error}"
            );
            assert_eq!(error.lines().count(), 1, "{bad}: {error}");
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let error = level_from_env_value(Some(OsStr::from_bytes(b"avx\xff"))).unwrap_err();
            assert!(error.contains("not UTF-8"), "{error}");
        }
    }

    #[test]
    fn the_default_level_is_one_this_cpu_can_run() {
        // Reads the process's KIKI_SIMD (never sets it): the default is that level when it is
        // valid, else the best.
        let expected = level_from_env()
            .ok()
            .flatten()
            .unwrap_or_else(SimdLevel::best);
        assert_eq!(default_level(), expected);
        assert!(default_level().availability().is_ok());
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
