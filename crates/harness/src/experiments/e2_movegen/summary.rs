//! E2's summary as the index reads it. Its keys are public: `best <task>` (the best backend of
//! each move-generation or perft task), `<peer> ÷ best <task>` (the peer's time over that
//! backend's), `list movegen ≥ 1.5× <peer>` (`met` or `not met`), and `vs_peer` and
//! `like_for_like` (ratio records per task).

use crate::results::{Ordered, Winner};
use crate::stats::Comparison;
use serde::Deserialize;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(from = "Ordered<Value>")]
pub struct Summary {
    /// Cells are the tasks: `movegen list greedy-playout`, `perft start d5`, ….
    pub winners: Vec<Winner>,
    /// Per task with a peer measured: the peer's time over the best backend's.
    pub peer_ratios: Vec<PeerRatio>,
    /// The list-movegen target against the peer, where a peer was measured.
    pub target: Option<(String, Target)>,
    /// `vs_peer`: per task (`perft list start d5`, `movegen count`, …) the first peer's time
    /// over kiki's best backend's, with its interval, estimated on invocations held out from
    /// the choice of the best (reports since 2026-11-27; empty before).
    pub vs_peer: Vec<(String, Comparison)>,
    /// `like_for_like`: the same for the count walk without perft's shortcuts (`perft count
    /// start d5`, `perft count second d4`).
    pub like_for_like: Vec<(String, Comparison)>,
}

/// The ratio records of the object at `key`, in their order; empty where it is missing.
fn records(summary: &Ordered<Value>, key: &str) -> Vec<(String, Comparison)> {
    summary
        .iter()
        .find(|(k, _)| *k == key)
        .and_then(|(_, value)| value.as_object())
        .map(|object| {
            object
                .iter()
                .filter_map(|(task, record)| {
                    Some((task.clone(), serde_json::from_value(record.clone()).ok()?))
                })
                .collect()
        })
        .unwrap_or_default()
}

#[derive(Clone, Debug, PartialEq)]
pub struct PeerRatio {
    pub peer: String,
    pub task: String,
    pub ratio: f64,
}

/// Whether the list move generator is at least 1.5 times as fast as the peer's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Met,
    NotMet,
}

impl From<Ordered<Value>> for Summary {
    fn from(summary: Ordered<Value>) -> Self {
        let winners = Winner::all_in(&summary.0, |key| {
            key.strip_prefix("best ").map(String::from)
        });
        let peer_ratios = summary
            .iter()
            .filter_map(|(key, value)| {
                let (peer, task) = key.split_once(" ÷ best ")?;
                Some(PeerRatio {
                    peer: peer.to_string(),
                    task: task.to_string(),
                    ratio: value.as_f64()?,
                })
            })
            .collect();
        let target = summary.iter().find_map(|(key, value)| {
            let peer = key.strip_prefix("list movegen ≥ 1.5× ")?;
            let target = match value.as_str()? {
                "met" => Target::Met,
                "not met" => Target::NotMet,
                _ => return None,
            };
            Some((peer.to_string(), target))
        });
        Summary {
            vs_peer: records(&summary, "vs_peer"),
            like_for_like: records(&summary, "like_for_like"),
            winners,
            peer_ratios,
            target,
        }
    }
}
