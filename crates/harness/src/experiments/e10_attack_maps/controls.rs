//! E10's controls within one backend: set-wise against per-piece on the same backend, the
//! input conversion alone against the set-wise cell that includes it, and the A/A twin.

use super::measure::{Measurement, AA_TWIN, CONVERSION, MAPS, MAPS_LATENCY, UNION};
use crate::experiments::claims::Claims;
use crate::experiments::interval;
use crate::stats::{Comparison, Estimate};
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

/// The conversion-only cell on one set and backend, and its time over the same backend's top
/// set-wise cell: the share of that cell spent converting the input.
pub(super) struct Conversion {
    pub set: String,
    pub backend: String,
    pub estimate: Estimate,
    /// The set-wise method the share is of (the highest level timed).
    pub of: Method,
    pub share: Option<Comparison>,
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
    pub aa: Vec<AaControl>,
}

/// A comparison as the summary records it.
fn record(c: &Comparison) -> Json {
    json!({"ratio": c.ratio, "low": c.low, "high": c.high, "claim": format!("{:?}", c.claim)})
}

impl Controls {
    /// Every control's claims, recorded in `claims` (all on every invocation: fixed pairs).
    pub fn of(m: &Measurement, claims: &mut Claims) -> Controls {
        Controls {
            same_backend: same_backend(m, claims),
            conversion: conversion(m, claims),
            aa: aa_controls(m, claims),
        }
    }

    /// The `same_backend` entry of the workload `group (set)`.
    pub fn same_backend_json(&self, group: &str, set: &str) -> Json {
        Json::from(
            self.same_backend
                .iter()
                .filter(|s| s.group == group && s.set == set)
                .map(|s| {
                    let mut entry = record(&s.ratio);
                    entry["backend"] = json!(s.backend);
                    entry["method"] = json!(s.method.name());
                    entry
                })
                .collect::<Vec<_>>(),
        )
    }

    /// The summary's `conversion_only` and `aa_control` keys.
    pub fn summary(&self, threshold: f64) -> Vec<(String, Json)> {
        let conversion = self
            .conversion
            .iter()
            .map(|c| {
                json!({
                    "set": c.set, "backend": c.backend,
                    "ns": c.estimate.value, "low": c.estimate.low, "high": c.estimate.high,
                    "share_of": c.of.name(),
                    "share": c.share.map(|s| s.ratio),
                    "share_low": c.share.map(|s| s.low),
                    "share_high": c.share.map(|s| s.high),
                })
            })
            .collect::<Vec<_>>();
        let aa = self
            .aa
            .iter()
            .map(|a| {
                let mut entry = record(&a.ratio);
                entry["set"] = json!(a.set);
                entry["backend"] = json!(a.backend);
                entry["method"] = json!(a.method);
                entry["within_threshold"] = json!(a.ratio.within(threshold));
                entry
            })
            .collect::<Vec<_>>();
        vec![
            ("conversion_only".to_string(), Json::from(conversion)),
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

/// Every conversion-only cell, and its time over its backend's top set-wise cell.
fn conversion(m: &Measurement, claims: &mut Claims) -> Vec<Conversion> {
    let Some(&top) = m.methods.last().filter(|t| **t != Method::PerPiece) else {
        return Vec::new();
    };
    m.rows
        .iter()
        .filter(|r| r.group == MAPS && r.variant == CONVERSION)
        .map(|r| {
            let share = m
                .row(MAPS, &r.set, &r.backend, &top.name())
                .and_then(|set_wise| {
                    claims.compare(
                        &format!("conversion share ({})", r.set),
                        (&format!("{} {CONVERSION}", r.backend), &r.ns),
                        (&format!("{} {}", r.backend, top.name()), &set_wise.ns),
                    )
                });
            Conversion {
                set: r.set.clone(),
                backend: r.backend.clone(),
                estimate: interval(&r.ns, m.invocations),
                of: top,
                share,
            }
        })
        .collect()
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
