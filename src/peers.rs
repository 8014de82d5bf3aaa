//! Peer engines measured beside kiki's backends (feature `peers`, on by default): today the
//! crate haitaka, whose move generator is the published Rust reference for shogi perft.

/// haitaka 0.3.2 with its table-free `qugiy` sliders (the configuration `scripts/peer-perft.sh`
/// measures as haitaka "at its best"), driven exactly as its own perft example does.
pub mod haitaka {
    use ::haitaka::{Board, PieceMoves};

    /// The name the harness shows for this peer.
    pub const NAME: &str = "haitaka 0.3.2 (peer)";

    /// What the peer is and how it is driven, for a report's method paragraph.
    pub const DESCRIPTION: &str = "haitaka 0.3.2 (crates.io, feature `qugiy`, built with the \
        same flags as kiki): legal board moves and drops from `generate_board_moves` / \
        `generate_drops`, a board clone + `play_unchecked` per move, bulk counting at the last \
        ply — the `perft_bulk` of haitaka's own examples/perft.rs";

    /// A parsed position of the peer.
    #[derive(Clone, Debug)]
    pub struct PeerBoard(Board);

    impl PeerBoard {
        /// Parses an SFEN (with or without a leading `sfen `), or says why haitaka rejected it.
        pub fn from_sfen(sfen: &str) -> Result<PeerBoard, String> {
            let text = sfen.trim();
            let text = text.strip_prefix("sfen ").unwrap_or(text);
            Board::from_sfen(text)
                .map(PeerBoard)
                .map_err(|error| format!("haitaka rejects SFEN '{text}': {error:?}"))
        }

        /// The number of legal moves (board moves and drops), as haitaka generates them.
        pub fn legal_move_count(&self) -> u64 {
            legal_move_count(&self.0)
        }

        /// Leaf nodes at `depth`, bulk-counted at the last ply.
        pub fn perft(&self, depth: u32) -> u64 {
            perft_bulk(&self.0, depth)
        }
    }

    fn legal_move_count(board: &Board) -> u64 {
        let mut count = 0u64;
        let mut add = |moves: PieceMoves| {
            count += moves.into_iter().len() as u64;
            false
        };
        board.generate_board_moves(&mut add);
        board.generate_drops(&mut add);
        count
    }

    fn perft_bulk(board: &Board, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => legal_move_count(board),
            _ => {
                let mut nodes = 0;
                let mut descend = |moves: PieceMoves| {
                    for mv in moves {
                        let mut child = board.clone();
                        child.play_unchecked(mv);
                        nodes += perft_bulk(&child, depth - 1);
                    }
                    false
                };
                board.generate_board_moves(&mut descend);
                board.generate_drops(&mut descend);
                nodes
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::position::START_SFEN;

        #[test]
        fn start_position_perft_matches_the_published_counts() {
            let board = PeerBoard::from_sfen(START_SFEN).unwrap();
            assert_eq!(board.legal_move_count(), 30);
            assert_eq!(board.perft(1), 30);
            assert_eq!(board.perft(2), 900);
            assert_eq!(board.perft(3), 25_470);
        }

        #[test]
        fn a_bad_sfen_is_an_error_not_a_panic() {
            let error = PeerBoard::from_sfen("sfen 9/9 b - 1 extra").unwrap_err();
            assert!(error.starts_with("haitaka rejects SFEN"), "{error}");
        }
    }
}
