//! A fixed-depth engine search over any backend and evaluation: iterative-deepening PVS with
//! quiescence, a transposition table, move ordering, null-move pruning and a mate-in-1 probe at
//! interior nodes — the memory traffic of an engine's search, for measuring what a backend
//! costs a node.
//!
//! The search decides on material alone (ties broken by the canonical move order), while the
//! chosen evaluation is updated and computed at every node and folded into each TT entry and
//! into `eval_checksum`: every backend and every evaluation walks the same tree, so a
//! difference in time per node is the backend's or the evaluation's cost and nothing else.
//! Single-threaded; the TT is the only state a Lazy SMP search would share.

pub mod bench;
pub mod eval;
pub mod material;
mod ordering;
pub mod tt;

use crate::mate1::{mate_in_1, mating_moves};
use crate::movegen::MoveList;
use crate::position::{Move, Position, Undo};
use eval::{EvalTables, Evaluator, KppState, MaterialEval, NnueState};
use kiki_core::backend::Backend;
use ordering::{Heuristics, KeyBuffer, MAX_PLY};
use tt::{Bound, Entry, TranspositionTable};

/// The score of a mate now; a mate `n` plies away scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this are mates.
const MATE_BOUND: i32 = MATE - MAX_PLY as i32;

/// What one fixed-depth search of one position found: its fingerprint and its traffic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Nodes visited (interior, quiescence and leaves), over every iteration.
    pub nodes: u64,
    /// The best move at the last iteration (`None` when the side to move has no move).
    pub best: Option<Move>,
    /// Its score for the side to move, in material units (`MATE - n`: mate in `n` plies).
    pub score: i32,
    /// Every node's evaluation folded in visiting order.
    pub eval_checksum: u64,
    /// Evaluation table lines (64 B) read.
    pub eval_lines: u64,
    /// TT probes and stores (one 64 B bucket each).
    pub tt_accesses: u64,
}

/// Searches `pos` to `depth` plies with `tables`' evaluation, using (and first forgetting) `tt`.
pub fn search<B: Backend>(
    pos: &Position<B>,
    depth: u32,
    tables: &EvalTables,
    tt: &mut TranspositionTable,
) -> Outcome {
    tt.new_search();
    let mut pos = pos.clone();
    match tables {
        EvalTables::Material => Searcher::new(tt, MaterialEval::default()).run(&mut pos, depth),
        EvalTables::Nnue(weights) => {
            Searcher::new(tt, NnueState::new(weights)).run(&mut pos, depth)
        }
        EvalTables::Kpp(weights) => Searcher::new(tt, KppState::new(weights)).run(&mut pos, depth),
    }
}

struct Searcher<'t, E: Evaluator> {
    tt: &'t TranspositionTable,
    eval: E,
    heuristics: Box<Heuristics>,
    nodes: u64,
    checksum: u64,
    tt_accesses: u64,
    /// The material balance from Black's side, kept up to date by `make` and `unmake`.
    material: i32,
}

/// The score `entry` settles a node with (`depth` plies to go, window `alpha..beta`), if any.
fn cutoff(entry: Entry, depth: i32, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
    let score = from_tt(entry.score, ply);
    let settles = match entry.bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
    };
    (entry.depth as i32 >= depth && settles).then_some(score)
}

/// +1 when Black is to move, −1 when White is.
#[inline(always)]
fn black_sign<B: Backend>(pos: &Position<B>) -> i32 {
    match pos.side_to_move() {
        kiki_core::types::Color::Black => 1,
        kiki_core::types::Color::White => -1,
    }
}

/// A TT score is stored relative to its node: mates count from there.
fn to_tt(score: i32, ply: usize) -> i16 {
    let score = if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    };
    score.clamp(i16::MIN as i32, i16::MAX as i32) as i16
}

fn from_tt(score: i16, ply: usize) -> i32 {
    let score = score as i32;
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

impl<'t, E: Evaluator> Searcher<'t, E> {
    fn new(tt: &'t TranspositionTable, eval: E) -> Searcher<'t, E> {
        Searcher {
            tt,
            eval,
            heuristics: Box::default(),
            nodes: 0,
            checksum: 0,
            tt_accesses: 0,
            material: 0,
        }
    }

    fn run<B: Backend>(mut self, pos: &mut Position<B>, depth: u32) -> Outcome {
        self.eval.reset(pos);
        self.material = material::balance(pos) * black_sign(pos);
        let mut best = (None, 0);
        for iteration in 1..=depth.max(1) {
            best = self.root(pos, iteration as i32);
        }
        Outcome {
            nodes: self.nodes,
            best: best.0,
            score: best.1,
            eval_checksum: self.checksum,
            eval_lines: self.eval.lines_read(),
            tt_accesses: self.tt_accesses,
        }
    }

    /// Computes the node's evaluation, as an engine does at every node, and folds it in.
    #[inline]
    fn visit<B: Backend>(&mut self, pos: &Position<B>) -> i32 {
        self.nodes += 1;
        let value = self.eval.evaluate(pos);
        self.checksum = (self.checksum.rotate_left(7) ^ value as u32 as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        value
    }

    /// The material balance for the side to move.
    #[inline(always)]
    fn material<B: Backend>(&self, pos: &Position<B>) -> i32 {
        self.material * black_sign(pos)
    }

    #[inline]
    fn make<B: Backend>(&mut self, pos: &mut Position<B>, mv: Move) -> (Undo, i32) {
        let gain = material::gain(pos, mv) * black_sign(pos);
        self.material += gain;
        self.eval.push(pos, mv);
        (pos.do_move(mv), gain)
    }

    #[inline]
    fn unmake<B: Backend>(&mut self, pos: &mut Position<B>, mv: Move, (undo, gain): (Undo, i32)) {
        pos.undo_move(mv, undo);
        self.material -= gain;
        self.eval.pop();
    }

    fn probe(&mut self, key: u64) -> Option<Entry> {
        self.tt_accesses += 1;
        self.tt.probe(key)
    }

    fn store(&mut self, key: u64, entry: Entry) {
        self.tt_accesses += 1;
        self.tt.store(key, entry);
    }

    /// One iteration at the root: the best move and its score.
    fn root<B: Backend>(&mut self, pos: &mut Position<B>, depth: i32) -> (Option<Move>, i32) {
        let eval = self.visit(pos);
        let key = pos.key();
        let tt_move = self.probe(key).and_then(|entry| entry.mv);
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            return (None, -MATE);
        }
        let mut keys = KeyBuffer::new();
        let mut picker = self.heuristics.order(pos, &moves, tt_move, 0, &mut keys);
        let (mut alpha, beta) = (-MATE - 1, MATE + 1);
        let mut best = None;
        let mut n = 0;
        while let Some(mv) = picker.next() {
            let undo = self.make(pos, mv);
            let score = self.principal_variation(pos, n == 0, alpha, beta, depth - 1, 1);
            self.unmake(pos, mv, undo);
            n += 1;
            if score > alpha {
                alpha = score;
                best = Some(mv);
            }
        }
        self.store(
            key,
            Entry {
                mv: best,
                score: to_tt(alpha, 0),
                eval: eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
                depth: depth as u8,
                bound: Bound::Exact,
            },
        );
        (best, alpha)
    }

    /// A child's score by PVS: a full window for the first move, a null window (and a full
    /// re-search on a fail high) for the others.
    fn principal_variation<B: Backend>(
        &mut self,
        pos: &mut Position<B>,
        first: bool,
        alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
    ) -> i32 {
        if first {
            return -self.alpha_beta(pos, -beta, -alpha, depth, ply, true);
        }
        let score = -self.alpha_beta(pos, -alpha - 1, -alpha, depth, ply, true);
        if score > alpha && score < beta {
            -self.alpha_beta(pos, -beta, -alpha, depth, ply, true)
        } else {
            score
        }
    }

    fn alpha_beta<B: Backend>(
        &mut self,
        pos: &mut Position<B>,
        mut alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        null_allowed: bool,
    ) -> i32 {
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.quiesce(pos, alpha, beta, ply);
        }
        let eval = self.visit(pos);
        let key = pos.key();
        let entry = self.probe(key);
        if let Some(score) = entry.and_then(|e| cutoff(e, depth, ply, alpha, beta)) {
            return score;
        }
        let tt_move = entry.and_then(|entry| entry.mv);
        let in_check = pos.in_check();
        let eval16 = eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16;
        let stored = |mv, score, bound| Entry {
            mv,
            score: to_tt(score, ply),
            eval: eval16,
            depth: depth as u8,
            bound,
        };
        if !in_check && mate_in_1(pos).is_some() {
            // The canonically least mating move, so that the TT move is the same everywhere.
            let mv = mating_moves(pos).into_iter().min_by_key(|mv| mv.raw());
            let score = MATE - ply as i32 - 1;
            self.store(key, stored(mv, score, Bound::Exact));
            return score;
        }
        let material = self.material(pos);
        if null_allowed && !in_check && depth >= 3 && material >= beta && beta.abs() < MATE_BOUND {
            self.eval.push_null();
            pos.do_null_move();
            let score = -self.alpha_beta(pos, -beta, -beta + 1, depth - 3, ply + 1, false);
            pos.undo_null_move();
            self.eval.pop();
            if score >= beta {
                return beta;
            }
        }
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            return -MATE + ply as i32;
        }
        let mut keys = KeyBuffer::new();
        let mut picker = self.heuristics.order(pos, &moves, tt_move, ply, &mut keys);
        let original_alpha = alpha;
        let mut best = (None, -MATE - 1);
        let mut n = 0;
        while let Some(mv) = picker.next() {
            let quiet = pos.piece_at(mv.to()).is_none();
            let undo = self.make(pos, mv);
            let score = self.principal_variation(pos, n == 0, alpha, beta, depth - 1, ply + 1);
            self.unmake(pos, mv, undo);
            n += 1;
            if score > best.1 {
                best = (Some(mv), score);
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                if quiet {
                    self.heuristics.reward(pos, mv, ply, depth);
                }
                self.store(key, stored(Some(mv), alpha, Bound::Lower));
                return alpha;
            }
        }
        let bound = if alpha > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.store(key, stored(best.0, best.1, bound));
        best.1
    }

    /// Captures until the position is quiet (every evasion when in check); stand pat on
    /// material otherwise. Probes and stores the TT as engines do (depth 0 entries).
    fn quiesce<B: Backend>(
        &mut self,
        pos: &mut Position<B>,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        let eval = self.visit(pos);
        let key = pos.key();
        let entry = self.probe(key);
        if let Some(score) = entry.and_then(|e| cutoff(e, 0, ply, alpha, beta)) {
            return score;
        }
        let in_check = pos.in_check();
        let original_alpha = alpha;
        let mut best = (None, -MATE + ply as i32);
        if !in_check {
            let stand = self.material(pos);
            if stand >= beta || ply >= MAX_PLY - 1 {
                return stand;
            }
            alpha = alpha.max(stand);
            best.1 = stand;
        }
        let mut moves = MoveList::new();
        // Captures only (every evasion in check), generated as such rather than filtered.
        pos.legal_captures(&mut moves);
        if in_check && (moves.is_empty() || ply >= MAX_PLY - 1) {
            return if moves.is_empty() {
                -MATE + ply as i32
            } else {
                self.material(pos)
            };
        }
        let tt_move = entry.and_then(|entry| entry.mv);
        let mut keys = KeyBuffer::new();
        let mut picker = Heuristics::order_captures(pos, &moves, tt_move, &mut keys);
        while let Some(mv) = picker.next() {
            let undo = self.make(pos, mv);
            let score = -self.quiesce(pos, -beta, -alpha, ply + 1);
            self.unmake(pos, mv, undo);
            if score > best.1 {
                best = (Some(mv), score);
            }
            if score > alpha {
                alpha = score;
                if alpha >= beta {
                    break;
                }
            }
        }
        let bound = if alpha >= beta {
            Bound::Lower
        } else if alpha > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let entry = Entry {
            mv: best.0,
            score: to_tt(best.1, ply),
            eval: eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            depth: 0,
            bound,
        };
        self.store(key, entry);
        best.1
    }
}

#[cfg(test)]
mod tests;
