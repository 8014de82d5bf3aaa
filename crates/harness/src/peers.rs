//! Peer engines measured beside kiki's backends (feature `peers`, on by default): today the
//! crate haitaka, whose move generator is the published Rust reference for shogi perft.

/// haitaka 0.3.2 with its table-free `qugiy` sliders (the configuration `scripts/peer-perft.sh`
/// measures as haitaka "at its best"), driven exactly as its own perft example does.
pub mod haitaka {
    use ::haitaka::{Board, Move, PieceMoves};

    /// The name the harness shows for this peer.
    pub const NAME: &str = "haitaka 0.3.2 (peer)";

    /// What the peer is and how it is driven, for a report's method paragraph.
    pub const DESCRIPTION: &str = "haitaka 0.3.2 (crates.io, feature `qugiy`, built with the \
        same flags as kiki): legal board moves and drops from `generate_board_moves` / \
        `generate_drops`, a board clone + `play_unchecked` per move, bulk counting at the last \
        ply — the `perft_bulk` of haitaka's own examples/perft.rs; in the list convention every \
        move of each generated `PieceMoves` is pushed into a reused `Vec<Move>` and the Vec's \
        length counted";

    /// A reusable list of the peer's moves, for [`PeerBoard::legal_moves_into`].
    pub type PeerMoveList = Vec<Move>;

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

        /// Every legal move (board moves, then drops) pushed one by one into `list`, which is
        /// cleared first: the list convention, as kiki's `legal_moves` fills its `MoveList`.
        pub fn legal_moves_into(&self, list: &mut PeerMoveList) {
            legal_moves_into(&self.0, list);
        }

        /// Leaf nodes at `depth`, bulk-counted at the last ply.
        pub fn perft(&self, depth: u32) -> u64 {
            perft_bulk(&self.0, depth)
        }

        /// Leaf nodes at `depth` with every move of the last ply built into a list and the
        /// list's length counted (the twin of [`PeerBoard::perft`] in the list convention).
        pub fn perft_list(&self, depth: u32) -> u64 {
            let mut list = PeerMoveList::with_capacity(MAX_MOVES);
            perft_list(&self.0, depth, &mut list)
        }
    }

    /// Room for the most legal moves a shogi position has (593), so the list never grows.
    const MAX_MOVES: usize = 600;

    fn legal_moves_into(board: &Board, list: &mut PeerMoveList) {
        list.clear();
        let mut push = |moves: PieceMoves| {
            for mv in moves {
                list.push(mv);
            }
            false
        };
        board.generate_board_moves(&mut push);
        board.generate_drops(&mut push);
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

    /// `perft_bulk` with the list convention at depth 1: one list, allocated once per call,
    /// refilled at every last-ply parent and black-boxed before its length is counted.
    fn perft_list(board: &Board, depth: u32, list: &mut PeerMoveList) -> u64 {
        match depth {
            0 => 1,
            1 => {
                legal_moves_into(board, list);
                std::hint::black_box(&*list).len() as u64
            }
            _ => {
                let mut nodes = 0;
                let mut descend = |moves: PieceMoves| {
                    for mv in moves {
                        let mut child = board.clone();
                        child.play_unchecked(mv);
                        nodes += perft_list(&child, depth - 1, list);
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
        use kiki_engine::position::START_SFEN;

        #[test]
        fn start_position_perft_matches_the_published_counts() {
            let board = PeerBoard::from_sfen(START_SFEN).unwrap();
            assert_eq!(board.legal_move_count(), 30);
            assert_eq!(board.perft(1), 30);
            assert_eq!(board.perft(2), 900);
            assert_eq!(board.perft(3), 25_470);
            for depth in 1..=3 {
                assert_eq!(board.perft_list(depth), board.perft(depth), "depth {depth}");
            }
        }

        #[test]
        fn the_move_list_holds_every_counted_move_once() {
            // One list for both positions: the second call must clear what the first left.
            let mut list = PeerMoveList::new();
            for sfen in [START_SFEN, kiki_core::public_positions::SECOND] {
                let board = PeerBoard::from_sfen(sfen).unwrap();
                board.legal_moves_into(&mut list);
                assert_eq!(list.len() as u64, board.legal_move_count(), "{sfen}");
                let mut unique: Vec<String> = list.iter().map(|mv| mv.to_string()).collect();
                unique.sort();
                unique.dedup();
                assert_eq!(unique.len(), list.len(), "{sfen}: a move listed twice");
            }
        }

        #[test]
        fn a_bad_sfen_is_an_error_not_a_panic() {
            let error = PeerBoard::from_sfen("sfen 9/9 b - 1 extra").unwrap_err();
            assert!(error.starts_with("haitaka rejects SFEN"), "{error}");
        }
    }
}
