//! E2's summary as the index reads it. Its keys are public: `best <task>` (the best backend of
//! each move-generation or perft task), `<peer> ÷ best <task>` (the peer's time over that
//! backend's), and `list movegen ≥ 1.5× <peer>` (`met` or `not met`).

use crate::results::{Ordered, Winner};
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
            winners,
            peer_ratios,
            target,
        }
    }
}
