//! Perft (bulk counting at the last ply) and divide, generic over the backend.

use crate::movegen::MoveList;
use crate::position::Position;
use kiki_core::backend::Backend;

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
    if depth == 2 {
        // The last ply's parents only count: no Zobrist key is read before the undo, and a
        // move that gives no check leaves a child with no checkers to look for.
        let info = pos.check_info();
        for &mv in list.iter() {
            let quiet = info.as_ref().is_none_or(|info| !pos.gives_check(mv, info));
            let undo = pos.do_move_unkeyed(mv);
            nodes += if quiet {
                pos.legal_move_count_unchecked()
            } else {
                pos.legal_move_count()
            };
            pos.undo_move(mv, undo);
        }
        return nodes;
    }
    for &mv in list.iter() {
        let undo = pos.do_move(mv);
        nodes += perft(pos, depth - 1);
        pos.undo_move(mv, undo);
    }
    nodes
}

/// What perft does at the last ply's parent: count the legal moves without building them (the
/// default, kiki's bulk counting), the same without perft's own shortcuts, or build every one
/// into a move list and count the list (the convention of YaneuraOu's `perft`, which builds
/// `MoveList<LEGAL_ALL>` there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf {
    /// Bulk counting with the shortcuts a perft can take at the last ply's parents: no
    /// Zobrist key is updated for a move whose child only counts, and a child after a move
    /// that gives no check looks for no checkers.
    Count,
    /// Bulk counting without those shortcuts: a keyed make and the checker search at every
    /// node, as an engine's search pays them (and haitaka's `perft_bulk` does).
    CountPlain,
    List,
}

impl Leaf {
    pub fn name(self) -> &'static str {
        match self {
            Leaf::Count => "count",
            Leaf::CountPlain => "count-plain",
            Leaf::List => "list",
        }
    }
}

/// Perft with the leaf convention `leaf`: [`perft`] for [`Leaf::Count`]; for [`Leaf::List`] the
/// same tree, with every move of the last ply's parents built into a list by the same
/// generator (the push sink) and the list's length counted. The list walk keeps the plain
/// keyed make and the checker search at every node: the count walk's shortcuts at the last
/// ply's parents (no key, no checker search after a quiet move) are not in it, so the gap
/// between the two conventions is not only the cost of building the moves.
pub fn perft_leaf<B: Backend>(pos: &mut Position<B>, depth: u32, leaf: Leaf) -> u64 {
    match leaf {
        Leaf::Count => perft(pos, depth),
        Leaf::CountPlain => perft_plain(pos, depth),
        Leaf::List => perft_list(pos, depth),
    }
}

/// [`perft`] without the last ply's shortcuts ([`Leaf::CountPlain`]).
fn perft_plain<B: Backend>(pos: &mut Position<B>, depth: u32) -> u64 {
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
        nodes += perft_plain(pos, depth - 1);
        pos.undo_move(mv, undo);
    }
    nodes
}

fn perft_list<B: Backend>(pos: &mut Position<B>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    if depth == 1 {
        return std::hint::black_box(&list).len() as u64;
    }
    let mut nodes = 0;
    for &mv in list.iter() {
        let undo = pos.do_move(mv);
        nodes += perft_list(pos, depth - 1);
        pos.undo_move(mv, undo);
    }
    nodes
}

/// How perft walks the tree: make/unmake on one position (kiki's choice), or copy-make, a
/// copy of the position per move (haitaka's and Gigantua's), to compare the two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Make {
    Unmake,
    Copy,
}

impl Make {
    pub fn name(self) -> &'static str {
        match self {
            Make::Unmake => "unmake",
            Make::Copy => "copy",
        }
    }
}

/// Perft with the leaf convention `leaf` and the walk `make`.
pub fn perft_with<B: Backend>(pos: &mut Position<B>, depth: u32, leaf: Leaf, make: Make) -> u64 {
    match make {
        Make::Unmake => perft_leaf(pos, depth, leaf),
        Make::Copy => perft_copy_make(pos, depth, leaf),
    }
}

/// The same count by copy-make: each child is a copy of its parent with the move made.
pub fn perft_copy_make<B: Backend>(pos: &Position<B>, depth: u32, leaf: Leaf) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    if depth == 1 {
        return match leaf {
            Leaf::Count | Leaf::CountPlain => pos.legal_move_count(),
            Leaf::List => {
                pos.legal_moves(&mut list);
                std::hint::black_box(&list).len() as u64
            }
        };
    }
    pos.legal_moves(&mut list);
    let mut nodes = 0;
    if depth == 2 && leaf == Leaf::Count {
        // As in make/unmake: the last ply's parents read no key and skip the checker search
        // after a move that gives no check.
        let info = pos.check_info();
        for &mv in list.iter() {
            let quiet = info.as_ref().is_none_or(|info| !pos.gives_check(mv, info));
            let mut child = pos.clone();
            child.do_move_unkeyed(mv);
            nodes += if quiet {
                child.legal_move_count_unchecked()
            } else {
                child.legal_move_count()
            };
        }
        return nodes;
    }
    for &mv in list.iter() {
        let mut child = pos.clone();
        if depth == 2 && leaf != Leaf::CountPlain {
            child.do_move_unkeyed(mv);
        } else {
            child.do_move(mv);
        }
        nodes += perft_copy_make(&child, depth - 1, leaf);
    }
    nodes
}

/// Perft per root move, as (USI text, leaf count), sorted by the text.
pub fn divide<B: Backend>(pos: &mut Position<B>, depth: u32) -> Vec<(String, u64)> {
    divide_leaf(pos, depth, Leaf::Count)
}

/// [`divide`] with the leaf convention `leaf`.
pub fn divide_leaf<B: Backend>(
    pos: &mut Position<B>,
    depth: u32,
    leaf: Leaf,
) -> Vec<(String, u64)> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let mut out: Vec<(String, u64)> = list
        .iter()
        .map(|&mv| {
            let undo = pos.do_move(mv);
            let nodes = perft_leaf(pos, depth.saturating_sub(1), leaf);
            pos.undo_move(mv, undo);
            (mv.to_string(), nodes)
        })
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use kiki_core::public_positions;

    /// The public positions (moved here from kiki-core: checking them needs the engine).
    #[test]
    fn every_line_parses_round_trips_and_counts_its_moves() {
        use crate::position::Position;
        use kiki_core::reference::Reference;
        assert_eq!(public_positions::lines().count(), 3);
        for (sfen, depths) in [
            (public_positions::START, 5),
            (public_positions::SECOND, 4),
            (public_positions::THIRD, 3),
        ] {
            let counts = public_positions::published_counts(sfen);
            assert_eq!(counts.len(), depths, "{sfen}");
            let mut pos = Position::from_sfen(Reference, sfen).expect("valid SFEN");
            assert_eq!(pos.to_sfen(), sfen);
            assert_eq!(super::perft(&mut pos, 1), counts[0], "{sfen}");
        }
        let middle =
            Position::from_sfen(Reference, public_positions::MIDDLE_GAME).expect("valid SFEN");
        assert_eq!(middle.to_sfen(), public_positions::MIDDLE_GAME);
    }
}
