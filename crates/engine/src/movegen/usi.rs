//! A USI move accepted only if it is legal in the position.

use super::buffer::MoveList;
use crate::position::{Move, Position};
use kiki_core::backend::Backend;

impl<B: Backend> Position<B> {
    /// Parses a USI move (`7g7f`, `8h2b+`, `P*5e`) and accepts it only if it is legal here.
    pub fn parse_usi_move(&self, text: &str) -> Result<Move, String> {
        let mv = crate::position::parse_usi_syntax(text)?;
        let mut list = MoveList::new();
        self.legal_moves(&mut list);
        if list.contains(mv) {
            Ok(mv)
        } else {
            Err(format!(
                "{} is not a legal move in {}",
                kiki_core::input::quote_input(text),
                self.to_sfen()
            ))
        }
    }
}
