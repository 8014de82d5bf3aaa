//! E5's summary as the index reads it: the fastest effect-board stepper (`fastest`).

use serde::Deserialize;

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Summary {
    /// Its one cell is make+unmake.
    pub fastest: Option<String>,
}
