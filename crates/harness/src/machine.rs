//! What machine and build produced a report: CPU identity and caches, kernel, huge-page mode,
//! compiler, target features, git state, `Cargo.lock` hash and date.

use serde::{Deserialize, Serialize};
use std::time::{SystemTime, UNIX_EPOCH};

/// One cache level as the machine describes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cache {
    pub level: u8,
    /// `Data`, `Instruction` or `Unified`.
    #[serde(rename = "type")]
    pub kind: String,
    pub bytes: usize,
    pub line_bytes: usize,
    pub ways: usize,
    /// Which logical CPUs share it (sysfs list such as `0-1`), when known.
    pub shared_cpus: String,
}

/// The machine and build a report was made on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub cpu_model: String,
    pub vendor: String,
    pub family: u32,
    pub model: u32,
    pub stepping: u32,
    /// Where the cache list came from: `sysfs`, `cpuid` or `unknown`.
    pub cache_source: String,
    pub caches: Vec<Cache>,
    pub logical_cpus: usize,
    pub kernel: String,
    /// The transparent-huge-page mode in force (`always`, `madvise`, `never`, or `unknown`).
    pub transparent_huge_pages: String,
    pub rustc: String,
    pub profile: String,
    pub opt_level: String,
    pub target: String,
    pub rustflags: String,
    /// Target features the binary was compiled with (of those that matter here).
    pub compiled_features: Vec<String>,
    /// The same features as this CPU reports them at run time.
    pub cpu_features: Vec<String>,
    pub git_commit: String,
    /// `clean`, `dirty` or `unknown`, as of the build.
    pub git_tree: String,
    pub cargo_lock_hash: String,
    /// UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub date_utc: String,
    /// What a guest can see of the host it runs on (absent from reports made before it was
    /// recorded): the same CPU model on another host can give another verdict.
    #[serde(default)]
    pub host: Option<Host>,
}

/// The host facts a guest can see: kernel, microcode revision, hypervisor, and the share of
/// time the hypervisor gave to others during the run (steal).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Host {
    pub kernel: String,
    /// `/proc/cpuinfo`'s `microcode` (a hypervisor may show a placeholder such as `0x1`).
    pub microcode: String,
    /// The hypervisor CPUID names (`KVM`, `HyperV`, …), `none` where CPUID says no hypervisor.
    pub hypervisor: String,
    /// Steal time over the report's run, percent of CPU time (set when the run ends).
    pub steal_percent: Option<f64>,
}

impl Host {
    fn detect(kernel: &str) -> Host {
        let cpuid = raw_cpuid::CpuId::new();
        let hypervisor = match cpuid.get_feature_info() {
            Some(f) if !f.has_hypervisor() => "none".to_string(),
            _ => cpuid
                .get_hypervisor_info()
                .map_or_else(|| "unknown".to_string(), |h| hypervisor_name(h.identify())),
        };
        Host {
            kernel: kernel.to_string(),
            microcode: std::fs::read_to_string("/proc/cpuinfo")
                .ok()
                .and_then(|text| microcode_of(&text))
                .unwrap_or_else(|| "unknown".to_string()),
            hypervisor,
            steal_percent: None,
        }
    }
}

fn hypervisor_name(h: raw_cpuid::Hypervisor) -> String {
    match h {
        raw_cpuid::Hypervisor::Unknown(..) => "unknown".to_string(),
        known => format!("{known:?}"),
    }
}

/// The first `microcode : 0x…` line of `/proc/cpuinfo`.
fn microcode_of(cpuinfo: &str) -> Option<String> {
    cpuinfo.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        (key.trim() == "microcode").then(|| value.trim().to_string())
    })
}

/// The features that decide which code paths backends take.
const FEATURES: [&str; 11] = [
    "sse4.1", "sse4.2", "ssse3", "popcnt", "lzcnt", "bmi1", "bmi2", "avx2", "avx512f", "avx512bw",
    "avx512vl",
];

fn compiled_features() -> Vec<&'static str> {
    let flags = [
        cfg!(target_feature = "sse4.1"),
        cfg!(target_feature = "sse4.2"),
        cfg!(target_feature = "ssse3"),
        cfg!(target_feature = "popcnt"),
        cfg!(target_feature = "lzcnt"),
        cfg!(target_feature = "bmi1"),
        cfg!(target_feature = "bmi2"),
        cfg!(target_feature = "avx2"),
        cfg!(target_feature = "avx512f"),
        cfg!(target_feature = "avx512bw"),
        cfg!(target_feature = "avx512vl"),
    ];
    FEATURES
        .iter()
        .zip(flags)
        .filter(|(_, on)| *on)
        .map(|(name, _)| *name)
        .collect()
}

#[cfg(target_arch = "x86_64")]
fn cpu_features() -> Vec<&'static str> {
    let flags = [
        std::arch::is_x86_feature_detected!("sse4.1"),
        std::arch::is_x86_feature_detected!("sse4.2"),
        std::arch::is_x86_feature_detected!("ssse3"),
        std::arch::is_x86_feature_detected!("popcnt"),
        std::arch::is_x86_feature_detected!("lzcnt"),
        std::arch::is_x86_feature_detected!("bmi1"),
        std::arch::is_x86_feature_detected!("bmi2"),
        std::arch::is_x86_feature_detected!("avx2"),
        std::arch::is_x86_feature_detected!("avx512f"),
        std::arch::is_x86_feature_detected!("avx512bw"),
        std::arch::is_x86_feature_detected!("avx512vl"),
    ];
    FEATURES
        .iter()
        .zip(flags)
        .filter(|(_, on)| *on)
        .map(|(name, _)| *name)
        .collect()
}

#[cfg(not(target_arch = "x86_64"))]
fn cpu_features() -> Vec<&'static str> {
    Vec::new()
}

/// Vendor string, brand string, (family, model, stepping) and the caches from CPUID.
#[cfg(target_arch = "x86_64")]
fn cpuid_identity() -> (String, String, (u32, u32, u32), Vec<Cache>) {
    identity_of(&raw_cpuid::CpuId::new())
}

#[cfg(not(target_arch = "x86_64"))]
fn cpuid_identity() -> (String, String, (u32, u32, u32), Vec<Cache>) {
    (String::new(), String::new(), (0, 0, 0), Vec::new())
}

/// [`cpuid_identity`] from any CPUID source (the tests give recorded registers): the family
/// and model with the extended fields applied as each vendor specifies, and the deterministic
/// cache parameters (Intel's leaf 4, AMD's 0x8000001D, the same format).
fn identity_of<R: raw_cpuid::CpuIdReader>(
    cpuid: &raw_cpuid::CpuId<R>,
) -> (String, String, (u32, u32, u32), Vec<Cache>) {
    let vendor = cpuid
        .get_vendor_info()
        .map_or(String::new(), |v| v.as_str().trim().to_string());
    let brand = cpuid
        .get_processor_brand_string()
        .map_or(String::new(), |b| {
            b.as_str().trim_matches(char::from(0)).trim().to_string()
        });
    let signature = cpuid.get_feature_info().map_or((0, 0, 0), |f| {
        (
            u32::from(f.family_id()),
            u32::from(f.model_id()),
            u32::from(f.stepping_id()),
        )
    });
    let caches = cpuid.get_cache_parameters().map_or_else(Vec::new, |list| {
        list.take(16).filter_map(cache_of).collect()
    });
    (vendor, brand, signature, caches)
}

/// One cache of CPUID's deterministic cache parameters.
fn cache_of(p: raw_cpuid::CacheParameter) -> Option<Cache> {
    use raw_cpuid::CacheType;
    let kind = match p.cache_type() {
        CacheType::Data => "Data",
        CacheType::Instruction => "Instruction",
        CacheType::Unified => "Unified",
        _ => return None,
    };
    Some(Cache {
        level: p.level(),
        kind: kind.to_string(),
        bytes: p.coherency_line_size()
            * p.physical_line_partitions()
            * p.associativity()
            * p.sets(),
        line_bytes: p.coherency_line_size(),
        ways: p.associativity(),
        shared_cpus: String::new(),
    })
}

/// `48K`, `1024K`, `32M`, `12345` (bytes) → bytes.
pub fn parse_size(text: &str) -> Option<usize> {
    let text = text.trim();
    let (digits, scale) = match text.chars().last()? {
        'K' | 'k' => (&text[..text.len() - 1], 1 << 10),
        'M' | 'm' => (&text[..text.len() - 1], 1 << 20),
        'G' | 'g' => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    digits.trim().parse::<usize>().ok().map(|n| n * scale)
}

/// The bracketed choice of a sysfs mode line such as `always [madvise] never`.
pub fn parse_bracketed(text: &str) -> Option<String> {
    let start = text.find('[')?;
    let end = start + text[start..].find(']')?;
    Some(text[start + 1..end].to_string())
}

/// The value of the first `key : value` line of `/proc/cpuinfo`-style text.
pub fn cpuinfo_field(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

fn sysfs_caches() -> Vec<Cache> {
    let mut caches = Vec::new();
    for index in 0..16 {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{index}");
        let field = |name: &str| read_trimmed(&format!("{dir}/{name}"));
        let (Some(level), Some(kind), Some(size)) = (field("level"), field("type"), field("size"))
        else {
            break;
        };
        let (Some(level), Some(bytes)) = (level.parse().ok(), parse_size(&size)) else {
            continue;
        };
        caches.push(Cache {
            level,
            kind,
            bytes,
            line_bytes: field("coherency_line_size")
                .and_then(|s| s.parse().ok())
                .unwrap_or(64),
            ways: field("ways_of_associativity")
                .and_then(|s| s.parse().ok())
                .unwrap_or(0),
            shared_cpus: field("shared_cpu_list").unwrap_or_default(),
        });
    }
    caches
}

/// Seconds since the Unix epoch → `YYYY-MM-DDTHH:MM:SSZ`.
pub fn format_utc(seconds: u64) -> String {
    i64::try_from(seconds)
        .ok()
        .and_then(|s| jiff::Timestamp::from_second(s).ok())
        .map_or_else(
            || format!("@{seconds}"),
            |t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
        )
}

/// A file-name-safe CPU id: the model's meaningful words, then family and model, so that
/// virtual machines that all call themselves "AMD EPYC" stay apart: `amd-epyc-f26-m2`.
pub fn cpu_slug_of(model_name: &str, family: u32, model: u32) -> String {
    const NOISE: [&str; 4] = ["(r)", "(tm)", "cpu", "processor"];
    let mut words = Vec::new();
    for raw in model_name.split_whitespace() {
        let lower = raw.to_ascii_lowercase();
        if lower.starts_with('@') || lower == "with" {
            break; // clock speed or "with Radeon Graphics" follow: not part of the model
        }
        let cleaned = lower.replace("(r)", "").replace("(tm)", "");
        if NOISE.contains(&lower.as_str()) || cleaned.ends_with("-core") {
            continue;
        }
        let slug: String = cleaned
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let slug = slug.trim_matches('-').to_string();
        if !slug.is_empty() {
            words.push(slug);
        }
        if words.len() == 5 {
            break;
        }
    }
    if words.is_empty() {
        words.push("cpu".to_string());
    }
    format!("{}-f{family}-m{model}", words.join("-"))
}

impl Machine {
    /// Reads everything from this machine and build.
    pub fn detect() -> Machine {
        let (vendor, brand, (family, model, stepping), cpuid_caches) = cpuid_identity();
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu_model = if brand.is_empty() {
            cpuinfo_field(&cpuinfo, "model name").unwrap_or_else(|| "unknown".to_string())
        } else {
            brand
        };
        let sysfs = sysfs_caches();
        let (cache_source, caches) = if !sysfs.is_empty() {
            ("sysfs", sysfs)
        } else if !cpuid_caches.is_empty() {
            ("cpuid", cpuid_caches)
        } else {
            ("unknown", Vec::new())
        };
        let seconds = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let kernel =
            read_trimmed("/proc/sys/kernel/osrelease").unwrap_or_else(|| "unknown".to_string());
        Machine {
            host: Some(Host::detect(&kernel)),
            cpu_model,
            vendor,
            family,
            model,
            stepping,
            cache_source: cache_source.to_string(),
            caches,
            logical_cpus: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            kernel,
            transparent_huge_pages: read_trimmed("/sys/kernel/mm/transparent_hugepage/enabled")
                .and_then(|s| parse_bracketed(&s))
                .unwrap_or_else(|| "unknown".to_string()),
            rustc: env!("KIKI_RUSTC_VERSION").to_string(),
            profile: env!("KIKI_PROFILE").to_string(),
            opt_level: env!("KIKI_OPT_LEVEL").to_string(),
            target: env!("KIKI_TARGET").to_string(),
            rustflags: env!("KIKI_RUSTFLAGS").to_string(),
            compiled_features: compiled_features().into_iter().map(String::from).collect(),
            cpu_features: cpu_features().into_iter().map(String::from).collect(),
            git_commit: env!("KIKI_GIT_COMMIT").to_string(),
            git_tree: env!("KIKI_GIT_TREE").to_string(),
            cargo_lock_hash: env!("KIKI_CARGO_LOCK_HASH").to_string(),
            date_utc: format_utc(seconds),
        }
    }

    pub fn cpu_slug(&self) -> String {
        cpu_slug_of(&self.cpu_model, self.family, self.model)
    }

    /// Whether PEXT is microcoded here rather than one fast instruction: AMD before Zen 3
    /// (Excavator, family 21; Zen 1 to Zen 2, family 23) and Hygon's Zen 1 (family 24): tens to
    /// hundreds of cycles, growing with the mask's bit count.
    pub fn pext_microcoded(&self) -> bool {
        (self.vendor == "AuthenticAMD" && (self.family == 21 || self.family == 23))
            || (self.vendor == "HygonGenuine" && self.family == 24)
    }

    /// `YYYY-MM-DD` of the report.
    pub fn date(&self) -> &str {
        self.date_utc.get(..10).unwrap_or(&self.date_utc)
    }

    /// The data (or unified) cache of `level`, in bytes.
    pub fn cache_bytes(&self, level: u8) -> Option<usize> {
        self.caches
            .iter()
            .find(|c| c.level == level && c.kind != "Instruction")
            .map(|c| c.bytes)
    }

    /// The report's machine section in Markdown (a heading and a two-column table).
    pub fn markdown(&self) -> String {
        let caches = if self.caches.is_empty() {
            "unknown".to_string()
        } else {
            self.caches
                .iter()
                .map(|c| {
                    let mut text = format!(
                        "L{} {} {} ({}-way, {} B lines",
                        c.level,
                        c.kind.to_lowercase(),
                        kiki_core::units::exact_bytes(c.bytes),
                        c.ways,
                        c.line_bytes
                    );
                    if !c.shared_cpus.is_empty() {
                        text.push_str(&format!(", shared by CPUs {}", c.shared_cpus));
                    }
                    text.push(')');
                    text
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        let list = |items: &[String]| {
            if items.is_empty() {
                "none".to_string()
            } else {
                items.join(", ")
            }
        };
        let rows = [
            ("CPU", self.cpu_model.clone()),
            (
                "CPUID",
                format!(
                    "{} family {} model {} stepping {}",
                    self.vendor, self.family, self.model, self.stepping
                ),
            ),
            ("Caches", format!("{caches} (from {})", self.cache_source)),
            ("Logical CPUs", self.logical_cpus.to_string()),
            ("Kernel", self.kernel.clone()),
            (
                "Host",
                self.host.as_ref().map_or_else(
                    || "not recorded".to_string(),
                    |h| {
                        let steal = h
                            .steal_percent
                            .map_or_else(|| "not measured".to_string(), |p| format!("{p:.2} %"));
                        format!(
                            "hypervisor {}, microcode {}, steal over the run {steal}",
                            h.hypervisor, h.microcode
                        )
                    },
                ),
            ),
            (
                "Transparent huge pages",
                format!("`{}`", self.transparent_huge_pages),
            ),
            ("Compiler", self.rustc.clone()),
            (
                "Build",
                format!(
                    "profile `{}`, opt-level {}, target `{}`, RUSTFLAGS `{}`",
                    self.profile, self.opt_level, self.target, self.rustflags
                ),
            ),
            ("Compiled for", list(&self.compiled_features)),
            ("CPU supports", list(&self.cpu_features)),
            (
                "Source",
                format!(
                    "git `{}` ({} at build time)",
                    self.git_commit, self.git_tree
                ),
            ),
            ("Cargo.lock", format!("`{}`", self.cargo_lock_hash)),
            ("Date", self.date_utc.clone()),
        ];
        let mut out = String::from("## Machine\n\n| | |\n|---|---|\n");
        for (key, value) in rows {
            out.push_str(&format!("| {key} | {} |\n", value.replace('|', "\\|")));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use raw_cpuid::CpuIdResult;

    /// The host facts: microcode from `/proc/cpuinfo`'s first `microcode` line, the
    /// hypervisor's name, and this machine's (every field filled, steal left to the run's end).
    #[test]
    fn host_facts_read_what_a_guest_sees() {
        let cpuinfo = "processor\t: 0\nvendor_id\t: GenuineIntel\nmicrocode\t: 0x2b000603\n\
                       processor\t: 1\nmicrocode\t: 0x2b000604\n";
        assert_eq!(microcode_of(cpuinfo).as_deref(), Some("0x2b000603"));
        assert_eq!(microcode_of("processor : 0\n"), None);
        assert_eq!(hypervisor_name(raw_cpuid::Hypervisor::KVM), "KVM");
        assert_eq!(
            hypervisor_name(raw_cpuid::Hypervisor::Unknown(1, 2, 3)),
            "unknown"
        );
        let host = Machine::detect().host.expect("detected");
        assert!(!host.kernel.is_empty() && !host.microcode.is_empty());
        assert!(!host.hypervisor.is_empty());
        assert_eq!(host.steal_percent, None);
    }

    /// A recorded CPUID: the vendor, leaf 1's `eax`, a brand string and one cache (an L1d of
    /// 64 B lines, 1 partition, 12 ways, 64 sets = 48 KiB) in the vendor's cache leaf.
    fn recorded(
        vendor: &'static [u8; 12],
        signature: u32,
    ) -> impl Fn(u32, u32) -> CpuIdResult + Clone {
        move |leaf, subleaf| {
            let word = |bytes: &[u8]| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            let brand = b"Test CPU 9000\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
            let cache_leaf = if vendor == b"AuthenticAMD" {
                0x8000_001D
            } else {
                4
            };
            let regs = match (leaf, subleaf) {
                (0, _) => [
                    0xD,
                    word(&vendor[0..4]),
                    word(&vendor[8..12]),
                    word(&vendor[4..8]),
                ],
                (1, _) => [signature, 0, 0, 0],
                (0x8000_0000, _) => [0x8000_001D, 0, 0, 0],
                (0x8000_0002..=0x8000_0004, _) => {
                    let at = (leaf - 0x8000_0002) as usize * 16;
                    let b = &brand[at..at + 16];
                    [
                        word(&b[0..4]),
                        word(&b[4..8]),
                        word(&b[8..12]),
                        word(&b[12..16]),
                    ]
                }
                (l, 0) if l == cache_leaf => [1 | (1 << 5), 63 | (11 << 22), 63, 0],
                _ => [0; 4],
            };
            CpuIdResult {
                eax: regs[0],
                ebx: regs[1],
                ecx: regs[2],
                edx: regs[3],
            }
        }
    }

    fn identity(
        vendor: &'static [u8; 12],
        signature: u32,
    ) -> (String, String, (u32, u32, u32), Vec<Cache>) {
        identity_of(&raw_cpuid::CpuId::with_cpuid_reader(recorded(
            vendor, signature,
        )))
    }

    #[test]
    fn signature_decoding_applies_extended_fields() {
        // AMD family 26 (0xF + 0xB) model 2 stepping 1, as this machine reports.
        assert_eq!(identity(b"AuthenticAMD", 0x00B0_0F21).2, (26, 2, 1));
        // AMD Zen 3, family 25 model 0x21 (ext model 2, base model 1).
        assert_eq!(identity(b"AuthenticAMD", 0x00A2_0F10).2, (25, 0x21, 0));
        // Intel family 6 model 0x9E stepping 10 (Coffee Lake).
        assert_eq!(identity(b"GenuineIntel", 0x0009_06EA).2, (6, 0x9E, 10));
        // A base family below 15 other than 6 ignores both extended fields.
        assert_eq!(identity(b"GenuineIntel", 0x0FF0_0512).2, (5, 1, 2));
    }

    #[test]
    fn cache_leaf_decoding() {
        for vendor in [b"AuthenticAMD", b"GenuineIntel"] {
            let (name, brand, _, caches) = identity(vendor, 0x00B0_0F21);
            assert_eq!(name.as_bytes(), vendor);
            assert_eq!(brand, "Test CPU 9000");
            assert_eq!(caches.len(), 1, "the list ends at the first null entry");
            let cache = &caches[0];
            assert_eq!(cache.level, 1);
            assert_eq!(cache.kind, "Data");
            assert_eq!(cache.bytes, 48 << 10);
            assert_eq!(cache.ways, 12);
            assert_eq!(cache.line_bytes, 64);
        }
    }

    #[test]
    fn text_parsers() {
        assert_eq!(parse_size("48K"), Some(48 << 10));
        assert_eq!(parse_size("32768K"), Some(32 << 20));
        assert_eq!(parse_size("2M"), Some(2 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("x"), None);
        assert_eq!(
            parse_bracketed("always [madvise] never").as_deref(),
            Some("madvise")
        );
        assert_eq!(parse_bracketed("always madvise never"), None);
        let cpuinfo = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\n";
        assert_eq!(
            cpuinfo_field(cpuinfo, "model name").as_deref(),
            Some("AMD EPYC")
        );
        assert_eq!(cpuinfo_field(cpuinfo, "flags"), None);
    }

    #[test]
    fn dates_from_epoch_seconds() {
        assert_eq!(format_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_utc(19_782 * 86_400), "2024-02-29T00:00:00Z");
        assert_eq!(format_utc(86_399), "1970-01-01T23:59:59Z");
        assert_eq!(format_utc(951_782_400 + 3_661), "2000-02-29T01:01:01Z");
    }

    #[test]
    fn slugs_keep_model_words_and_family() {
        assert_eq!(cpu_slug_of("AMD EPYC", 26, 2), "amd-epyc-f26-m2");
        assert_eq!(
            cpu_slug_of("AMD EPYC 7763 64-Core Processor", 25, 1),
            "amd-epyc-7763-f25-m1"
        );
        assert_eq!(
            cpu_slug_of("Intel(R) Core(TM) i7-8700K CPU @ 3.70GHz", 6, 158),
            "intel-core-i7-8700k-f6-m158"
        );
        assert_eq!(
            cpu_slug_of("AMD Ryzen 7 5800H with Radeon Graphics", 25, 80),
            "amd-ryzen-7-5800h-f25-m80"
        );
        assert_eq!(cpu_slug_of("", 0, 0), "cpu-f0-m0");
    }

    #[test]
    fn detects_this_machine() {
        let machine = Machine::detect();
        assert!(!machine.cpu_model.is_empty());
        assert!(machine.logical_cpus >= 1);
        assert!(machine
            .cpu_slug()
            .contains(&format!("-f{}-m{}", machine.family, machine.model)));
        assert_eq!(machine.date_utc.len(), 20);
        let json = serde_json::to_string(&machine).unwrap();
        assert!(json.contains("\"date_utc\""));
        let back: Machine = serde_json::from_str(&json).unwrap();
        assert_eq!(back, machine);
        let markdown = machine.markdown();
        assert!(markdown.starts_with("## Machine"));
        assert!(markdown.contains("Transparent huge pages"));
    }
}
