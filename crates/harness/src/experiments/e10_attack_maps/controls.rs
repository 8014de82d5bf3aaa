//! E10's controls within one backend: set-wise against per-piece on the same backend, the
//! input conversion (alone, and in place: the set-wise cell over the same kernel on inputs
//! converted before the loop), the kernel-only cells across backends, and the A/A twin.

use super::measure::{Measurement, AA_TWIN, CONVERSION, KERNEL_ONLY, MAPS, MAPS_LATENCY, UNION};
use crate::experiments::claims::{reading, Claims};
use crate::experiments::interval;
use crate::stats::{Claim, Comparison, Estimate};
use kiki_engine::attack_map::Method;
use serde_json::{json, Value as Json};

/// One backend's set-wise cell over its own per-piece cell (fixed pairs, every invocation).
pub(super) struct SameBackend {
    pub group: &'static str,
    pub set: String,
    pub backend: String,
    pub method: Method,
    pub ratio: Comparison,
}

/// The conversion on one set and backend: timed alone, and in place (the backend's top
/// set-wise cell over its kernel-only cell, the same kernel on inputs converted before the
/// loop, paired per round).
pub(super) struct Conversion {
    pub set: String,
    pub backend: String,
    /// The conversion-only cell (`SidePieces::of` for both colours, folded).
    pub alone: Estimate,
    /// The set-wise method of the top level, whose cell includes the conversion.
    pub of: Method,
    /// The top set-wise cell over the kernel-only cell: what the conversion adds in place.
    pub in_place: Option<Comparison>,
}

/// One backend's kernel-only cell over the first backend's: the same kernel on the same
/// converted pieces, which must come out level.
pub(super) struct KernelControl {
    pub set: String,
    pub backend: String,
    pub against: String,
    pub ratio: Comparison,
}

/// The A/A twin over its original: the same code path timed twice in the same rounds.
pub(super) struct AaControl {
    pub set: String,
    pub backend: String,
    pub method: String,
    pub ratio: Comparison,
}

pub(super) struct Controls {
    pub same_backend: Vec<SameBackend>,
    pub conversion: Vec<Conversion>,
    pub kernel: Vec<KernelControl>,
    pub aa: Vec<AaControl>,
}

/// A comparison as the summary records it: `claim` as old reports read it, and `reading`,
/// which tells level, unresolved and withdrawn apart where `claim` says `Level` for all three.
pub(super) fn record(c: &Comparison, threshold: f64) -> Json {
    json!({"ratio": c.ratio, "low": c.low, "high": c.high, "claim": format!("{:?}", c.claim),
           "reading": reading(c, threshold), "within_threshold": c.within(threshold)})
}

/// How far from 1 a control's interval reaches (0 where it is wholly at 1).
pub(super) fn reach_of(c: &Comparison) -> f64 {
    (1.0 - c.low).max(c.high - 1.0).max(0.0)
}

/// `c` with its order withdrawn (read as unresolved) where its interval does not lie wholly
/// beyond 1 ± `reach`: a failed control's reach is how far two cells of the same code moved
/// apart in this run, so an order inside it is not evidence.
pub(super) fn gated(c: Comparison, reach: f64) -> Comparison {
    let clears = c.high < 1.0 - reach || c.low > 1.0 + reach;
    if c.claim != Claim::Level && !clears {
        Comparison {
            claim: Claim::Level,
            ..c
        }
    } else {
        c
    }
}

impl Controls {
    /// Every control's claims, recorded in `claims` (all on every invocation: fixed pairs).
    pub fn of(m: &Measurement, claims: &mut Claims) -> Controls {
        Controls {
            same_backend: same_backend(m, claims),
            conversion: conversion(m, claims),
            kernel: kernel_controls(m, claims),
            aa: aa_controls(m, claims),
        }
    }

    /// The reach of the set's A/A twin where it failed (its interval not wholly within the
    /// threshold), else 0: ratios between cells of that set must reach past it to be ordered.
    pub fn aa_reach(&self, set: &str, threshold: f64) -> f64 {
        self.aa
            .iter()
            .filter(|a| a.set == set && !a.ratio.within(threshold))
            .map(|a| reach_of(&a.ratio))
            .fold(0.0, f64::max)
    }

    /// [`Controls::aa_reach`], and the reach of the set's kernel-only control where it
    /// failed: the in-place ratios compare a backend's cell with its kernel-only cell.
    pub fn kernel_reach(&self, set: &str, threshold: f64) -> f64 {
        self.kernel
            .iter()
            .filter(|k| k.set == set && !k.ratio.within(threshold))
            .map(|k| reach_of(&k.ratio))
            .fold(self.aa_reach(set, threshold), f64::max)
    }

    /// The `same_backend` entry of the workload `group (set)`.
    pub fn same_backend_json(&self, group: &str, set: &str, threshold: f64) -> Json {
        let reach = self.aa_reach(set, threshold);
        Json::from(
            self.same_backend
                .iter()
                .filter(|s| s.group == group && s.set == set)
                .map(|s| {
                    let mut entry = record(&gated(s.ratio, reach), threshold);
                    entry["backend"] = json!(s.backend);
                    entry["method"] = json!(s.method.name());
                    entry
                })
                .collect::<Vec<_>>(),
        )
    }

    /// The summary's `conversion_only`, `kernel_only_control` and `aa_control` keys.
    pub fn summary(&self, threshold: f64) -> Vec<(String, Json)> {
        let conversion = self
            .conversion
            .iter()
            .map(|c| {
                json!({
                    "set": c.set, "backend": c.backend,
                    "ns": c.alone.value, "low": c.alone.low, "high": c.alone.high,
                    "in_place_of": c.of.name(),
                    "in_place": c.in_place.map(|r| {
                        record(&gated(r, self.kernel_reach(&c.set, threshold)), threshold)
                    }),
                })
            })
            .collect::<Vec<_>>();
        let labelled = |c: &Comparison, labels: &[(&str, &str)]| {
            let mut entry = record(c, threshold);
            for (key, value) in labels {
                entry[*key] = json!(value);
            }
            entry
        };
        let kernel = self
            .kernel
            .iter()
            .map(|k| {
                labelled(
                    &k.ratio,
                    &[
                        ("set", &k.set),
                        ("backend", &k.backend),
                        ("against", &k.against),
                    ],
                )
            })
            .collect::<Vec<_>>();
        let aa = self
            .aa
            .iter()
            .map(|a| {
                labelled(
                    &a.ratio,
                    &[
                        ("set", &a.set),
                        ("backend", &a.backend),
                        ("method", &a.method),
                    ],
                )
            })
            .collect::<Vec<_>>();
        vec![
            ("conversion_only".to_string(), Json::from(conversion)),
            ("kernel_only_control".to_string(), Json::from(kernel)),
            ("aa_control".to_string(), Json::from(aa)),
        ]
    }
}

/// Per map group, set and backend, each set-wise level's cell over the per-piece one.
fn same_backend(m: &Measurement, claims: &mut Claims) -> Vec<SameBackend> {
    let mut ratios = Vec::new();
    for group in [MAPS, MAPS_LATENCY, UNION] {
        for (set, _) in &m.sets {
            for backend in &m.backends {
                let Some(per_piece) = m.row(group, set, backend, &Method::PerPiece.name()) else {
                    continue;
                };
                for &method in m.methods.iter().filter(|x| **x != Method::PerPiece) {
                    let Some(row) = m.row(group, set, backend, &method.name()) else {
                        continue;
                    };
                    let ratio = claims.compare(
                        &format!("{group} ({set}) {backend}"),
                        (&format!("{backend} {}", method.name()), &row.ns),
                        (&format!("{backend} {}", per_piece.variant), &per_piece.ns),
                    );
                    if let Some(ratio) = ratio {
                        ratios.push(SameBackend {
                            group,
                            set: set.clone(),
                            backend: backend.to_string(),
                            method,
                            ratio,
                        });
                    }
                }
            }
        }
    }
    ratios
}

/// The top set-wise method, where one was timed.
fn top(m: &Measurement) -> Option<Method> {
    m.methods.last().copied().filter(|t| *t != Method::PerPiece)
}

/// Every conversion-only cell, and its backend's top set-wise cell over its kernel-only cell.
fn conversion(m: &Measurement, claims: &mut Claims) -> Vec<Conversion> {
    let Some(top) = top(m) else {
        return Vec::new();
    };
    let kernel = format!("{} {KERNEL_ONLY}", top.name());
    m.rows
        .iter()
        .filter(|r| r.group == MAPS && r.variant == CONVERSION)
        .map(|r| {
            let cell = |variant: &str| m.row(MAPS, &r.set, &r.backend, variant);
            let in_place =
                cell(&top.name())
                    .zip(cell(&kernel))
                    .and_then(|(set_wise, kernel_only)| {
                        claims.compare(
                            &format!("conversion in place ({})", r.set),
                            (&format!("{} {}", r.backend, top.name()), &set_wise.ns),
                            (&format!("{} {kernel}", r.backend), &kernel_only.ns),
                        )
                    });
            Conversion {
                set: r.set.clone(),
                backend: r.backend.clone(),
                alone: interval(&r.ns, m.invocations),
                of: top,
                in_place,
            }
        })
        .collect()
}

/// Every backend's kernel-only cell over the first backend's on the same set.
fn kernel_controls(m: &Measurement, claims: &mut Claims) -> Vec<KernelControl> {
    let (Some(top), Some(first)) = (top(m), m.backends.first()) else {
        return Vec::new();
    };
    let kernel = format!("{} {KERNEL_ONLY}", top.name());
    let mut controls = Vec::new();
    for (set, _) in &m.sets {
        let Some(reference) = m.row(MAPS, set, first, &kernel) else {
            continue;
        };
        for backend in m.backends.iter().skip(1) {
            let Some(row) = m.row(MAPS, set, backend, &kernel) else {
                continue;
            };
            let ratio = claims.compare(
                &format!("kernel-only control ({set})"),
                (&format!("{backend} {kernel}"), &row.ns),
                (&format!("{first} {kernel}"), &reference.ns),
            );
            if let Some(ratio) = ratio {
                controls.push(KernelControl {
                    set: set.clone(),
                    backend: backend.to_string(),
                    against: first.to_string(),
                    ratio,
                });
            }
        }
    }
    controls
}

/// Every A/A twin over its original.
fn aa_controls(m: &Measurement, claims: &mut Claims) -> Vec<AaControl> {
    m.rows
        .iter()
        .filter(|r| r.group == MAPS)
        .filter_map(|twin| {
            let method = twin.variant.strip_suffix(AA_TWIN)?.trim_end();
            let original = m.row(MAPS, &twin.set, &twin.backend, method)?;
            let ratio = claims.compare(
                &format!("A/A control ({})", twin.set),
                (&format!("{} {}", twin.backend, twin.variant), &twin.ns),
                (&format!("{} {method}", twin.backend), &original.ns),
            )?;
            Some(AaControl {
                set: twin.set.clone(),
                backend: twin.backend.clone(),
                method: method.to_string(),
                ratio,
            })
        })
        .collect()
}
