//! Perft (bulk counting at the last ply) and divide, generic over the backend.

use crate::backend::Backend;
use crate::engine::movegen::MoveList;
use crate::engine::position::Position;

/// Leaf nodes `depth` plies below `pos` (make/unmake; the position is restored).
pub fn perft<B: Backend>(pos: &mut Position<B>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return pos.legal_move_count();
    }
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let mut nodes = 0;
    for &mv in list.iter() {
        let undo = pos.do_move(mv);
        nodes += perft(pos, depth - 1);
        pos.undo_move(mv, undo);
    }
    nodes
}

/// The same count by copy-make (kept to compare the two strategies; see `position`).
pub fn perft_copy_make<B: Backend>(pos: &Position<B>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return pos.legal_move_count();
    }
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let mut nodes = 0;
    for &mv in list.iter() {
        let mut child = pos.clone();
        child.do_move(mv);
        nodes += perft_copy_make(&child, depth - 1);
    }
    nodes
}

/// Perft per root move, as (USI text, leaf count), sorted by the text.
pub fn divide<B: Backend>(pos: &mut Position<B>, depth: u32) -> Vec<(String, u64)> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let mut out: Vec<(String, u64)> = list
        .iter()
        .map(|&mv| {
            let undo = pos.do_move(mv);
            let nodes = perft(pos, depth.saturating_sub(1));
            pos.undo_move(mv, undo);
            (mv.to_string(), nodes)
        })
        .collect();
    out.sort();
    out
}
