//! Seeded lookup workloads, generated before any timing and identical for every backend:
//! uniform random occupancies, game-like positions (random and greedy play) and user SFENs.

use kiki_core::backend::{Backend, Bitboard};
use kiki_core::reference::random_occupancy;
use kiki_core::reference::Reference;
use kiki_core::types::{Color, Slider, Square};
use kiki_engine::movegen::MoveList;
use kiki_engine::position::{Move, PieceKind, Position, START_SFEN};
use rand::{Rng, RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// One sliding lookup to time: an occupancy in canonical numbering, the slider's square and
/// its kind. Backends convert the occupancy into their own layout before the timing starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LookupItem {
    pub occupancy: u128,
    pub square: Square,
    pub slider: Slider,
}

/// The `i`-th evaluation read's element index in a buffer of `len` elements (`len` < 2³²), as
/// E7 times it and E8 simulates it: a mixed multiplicative hash of a counter, so that reads are
/// independent (they can overlap) and follow no stride a prefetcher could learn, and scaled by a
/// multiply-high (no division; the same few instructions for every backend).
#[inline(always)]
pub fn eval_index(i: u64, len: usize) -> usize {
    let mut hash = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    hash ^= hash >> 29;
    hash = hash.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (((hash >> 32) * len as u64) >> 32) as usize
}

/// Which lookups of a workload a timing uses: one slider kind (both lance colours count as
/// lance), or every item as it comes (`Mixed`, dispatched on each item's kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum PieceGroup {
    Rook,
    Bishop,
    Lance,
    Dragon,
    Horse,
    Mixed,
}

impl PieceGroup {
    pub const KINDS: [PieceGroup; 5] = [
        PieceGroup::Rook,
        PieceGroup::Bishop,
        PieceGroup::Lance,
        PieceGroup::Dragon,
        PieceGroup::Horse,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PieceGroup::Rook => "rook",
            PieceGroup::Bishop => "bishop",
            PieceGroup::Lance => "lance",
            PieceGroup::Dragon => "dragon",
            PieceGroup::Horse => "horse",
            PieceGroup::Mixed => "mixed",
        }
    }

    pub fn matches(self, slider: Slider) -> bool {
        match self {
            PieceGroup::Rook => slider == Slider::Rook,
            PieceGroup::Bishop => slider == Slider::Bishop,
            PieceGroup::Lance => matches!(slider, Slider::Lance(_)),
            PieceGroup::Dragon => slider == Slider::Dragon,
            PieceGroup::Horse => slider == Slider::Horse,
            PieceGroup::Mixed => true,
        }
    }

    /// A slider of this group drawn at random (lance colour and mixed kind by the RNG).
    fn draw(self, rng: &mut impl Rng) -> Slider {
        let colour = if rng.random_bool(0.5) {
            Color::Black
        } else {
            Color::White
        };
        match self {
            PieceGroup::Rook => Slider::Rook,
            PieceGroup::Bishop => Slider::Bishop,
            PieceGroup::Lance => Slider::Lance(colour),
            PieceGroup::Dragon => Slider::Dragon,
            PieceGroup::Horse => Slider::Horse,
            PieceGroup::Mixed => Slider::ALL[rng.random_range(0..Slider::ALL.len())],
        }
    }
}

/// A named, seeded list of lookups (and, for game-like workloads, the positions they came from).
/// A measurement keeps its name, description and positions: the items stay in the process
/// that timed them.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Workload {
    /// Short id used in labels: `uniform-25`, `random-play`, `greedy-playout`, `user`.
    pub name: String,
    /// How it was made, for the report.
    pub description: String,
    pub seed: u64,
    #[serde(skip)]
    pub items: Vec<LookupItem>,
    /// SFENs of the positions the items came from (empty for uniform workloads).
    pub sfens: Vec<String>,
}

impl Workload {
    /// The items of one piece group, in order.
    pub fn group(&self, group: PieceGroup) -> Vec<LookupItem> {
        self.items
            .iter()
            .copied()
            .filter(|item| group.matches(item.slider))
            .collect()
    }
}

/// `count` lookups with uniform random occupancies (each square occupied with probability
/// `density`) and uniform random squares, sliders drawn from `group`.
pub fn uniform(seed: u64, density: f64, count: usize, group: PieceGroup) -> Workload {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let items = (0..count)
        .map(|_| {
            let occupancy = random_occupancy(&mut rng, density);
            let square = Square::new(rng.random_range(0..81u8)).expect("0..81 is on the board");
            LookupItem {
                occupancy,
                square,
                slider: group.draw(&mut rng),
            }
        })
        .collect();
    Workload {
        name: format!("uniform-{:.0}", density * 100.0),
        description: format!(
            "{count} uniform random occupancies (each square occupied with p = {density}), \
             uniform random squares, {} sliders, seed {seed:#x}",
            group.name()
        ),
        seed,
        items,
        sfens: Vec::new(),
    }
}

/// How a game-like workload chooses moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// A uniformly random legal move.
    Random,
    /// The best move by a one-ply material look (see [`greedy_score`]), random among ties.
    Greedy,
}

/// Plies per game before a new game starts from the start position.
const MAX_PLIES: usize = 160;
/// Plies at the start of each game that are skipped (they repeat across games).
const SKIP_PLIES: usize = 6;

/// Game-like lookups: seeded games from the start position under `policy`; every position
/// reached (after the opening plies) contributes one lookup per slider of the side to move,
/// on that slider's real square, until `count` lookups exist.
pub fn game_like(seed: u64, policy: Policy, count: usize) -> Workload {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut items = Vec::with_capacity(count);
    let mut sfens = Vec::new();
    let mut list = MoveList::new();
    let mut games = 0;
    while items.len() < count {
        games += 1;
        let mut pos = Position::from_sfen(Reference, START_SFEN).expect("start SFEN parses");
        for ply in 0..MAX_PLIES {
            if ply >= SKIP_PLIES {
                let before = items.len();
                push_slider_items(&pos, &mut items);
                if items.len() > before {
                    sfens.push(pos.to_sfen());
                }
                if items.len() >= count {
                    break;
                }
            }
            pos.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            let mv = match policy {
                Policy::Random => list[rng.random_range(0..list.len())],
                Policy::Greedy => greedy_choice(&mut pos, &list, &mut rng),
            };
            pos.do_move(mv);
        }
        if games > count + 1000 {
            // Every game ended before yielding a slider lookup: cannot happen from the start
            // position (it has sliders), but never loop forever.
            break;
        }
    }
    items.truncate(count);
    let (name, how) = match policy {
        Policy::Random => ("random-play", "uniformly random legal moves"),
        Policy::Greedy => (
            "greedy-playout",
            "a greedy policy (captures, promotions and checks first; no piece left en prise \
             by a one-ply material look; random among equals)",
        ),
    };
    Workload {
        name: name.to_string(),
        description: format!(
            "{} lookups from {} positions of {games} seeded games from the start position \
             ({how}, up to {MAX_PLIES} plies, first {SKIP_PLIES} skipped); each position \
             queries every slider of the side to move on its own square; seed {seed:#x}",
            items.len(),
            sfens.len()
        ),
        seed,
        items,
        sfens,
    }
}

/// Lookups from user positions: every slider of the side to move in each SFEN.
/// A malformed SFEN is an error naming its (1-based) index in `sfens`.
pub fn from_sfens(sfens: &[String]) -> Result<Workload, String> {
    let mut items = Vec::new();
    for (index, sfen) in sfens.iter().enumerate() {
        let pos = Position::from_sfen(Reference, sfen)
            .map_err(|error| format!("position {}: {error}", index + 1))?;
        push_slider_items(&pos, &mut items);
    }
    if items.is_empty() {
        return Err(format!(
            "none of the {} positions has a slider for the side to move",
            sfens.len()
        ));
    }
    Ok(Workload {
        name: "user".to_string(),
        description: format!(
            "{} lookups from {} user positions: every slider of the side to move",
            items.len(),
            sfens.len()
        ),
        seed: 0,
        items,
        sfens: sfens.to_vec(),
    })
}

/// The slider kind a piece kind of `color` attacks with, if it slides.
pub fn slider_of(kind: PieceKind, color: Color) -> Option<Slider> {
    match kind {
        PieceKind::Rook => Some(Slider::Rook),
        PieceKind::Bishop => Some(Slider::Bishop),
        PieceKind::Lance => Some(Slider::Lance(color)),
        PieceKind::Dragon => Some(Slider::Dragon),
        PieceKind::Horse => Some(Slider::Horse),
        _ => None,
    }
}

fn push_slider_items<B: Backend>(pos: &Position<B>, items: &mut Vec<LookupItem>) {
    let side = pos.side_to_move();
    let occupancy = pos.occupied().to_canonical();
    for square in pos.color_bb(side).squares() {
        let Some(piece) = pos.piece_at(square) else {
            continue;
        };
        if let Some(slider) = slider_of(piece.kind, side) {
            items.push(LookupItem {
                occupancy,
                square,
                slider,
            });
        }
    }
}

/// Material values for the greedy policy's one-ply look.
pub fn piece_value(kind: PieceKind) -> i32 {
    match kind {
        PieceKind::Pawn => 1,
        PieceKind::Lance => 3,
        PieceKind::Knight => 4,
        PieceKind::Silver => 5,
        PieceKind::Gold
        | PieceKind::ProPawn
        | PieceKind::ProLance
        | PieceKind::ProKnight
        | PieceKind::ProSilver => 6,
        PieceKind::Bishop => 8,
        PieceKind::Rook => 10,
        PieceKind::Horse => 11,
        PieceKind::Dragon => 13,
        PieceKind::King => 1000,
    }
}

/// The greedy policy's score of `mv` in `pos` (which is restored): material captured, plus the
/// promotion gain, plus one for a check, minus the worst material the opponent could then win
/// at once (an undefended piece of ours that is attacked, or a defended one attacked by a
/// cheaper piece).
pub fn greedy_score<B: Backend>(pos: &mut Position<B>, mv: Move, gives_check: bool) -> i32 {
    let us = pos.side_to_move();
    let them = us.flip();
    let mut gain = 0;
    if let Some(victim) = pos.piece_at(mv.to()) {
        gain += piece_value(victim.kind);
    }
    if mv.is_promotion() {
        if let Some(piece) = mv.from().and_then(|from| pos.piece_at(from)) {
            gain += piece_value(piece.kind.promoted()) - piece_value(piece.kind);
        }
    }
    if gives_check {
        gain += 1;
    }
    let undo = pos.do_move(mv);
    let mut worst_loss = 0;
    for square in pos.color_bb(us).squares() {
        let Some(piece) = pos.piece_at(square) else {
            continue;
        };
        if piece.kind == PieceKind::King {
            continue;
        }
        let attackers = pos.attackers_to(square, them);
        if attackers.is_empty() {
            continue;
        }
        let value = piece_value(piece.kind);
        let loss = if pos.attackers_to(square, us).is_empty() {
            value
        } else {
            let cheapest = attackers
                .squares()
                .filter_map(|s| pos.piece_at(s))
                .map(|p| piece_value(p.kind))
                .min()
                .unwrap_or(value);
            (value - cheapest).max(0)
        };
        worst_loss = worst_loss.max(loss);
    }
    pos.undo_move(mv, undo);
    gain - worst_loss
}

fn greedy_choice<B: Backend>(
    pos: &mut Position<B>,
    moves: &[Move],
    rng: &mut Xoshiro256PlusPlus,
) -> Move {
    let info = pos.check_info();
    let mut best = Vec::new();
    let mut best_score = i32::MIN;
    for &mv in moves {
        let check = info.as_ref().is_some_and(|i| pos.gives_check(mv, i));
        let score = greedy_score(pos, mv, check);
        if score > best_score {
            best_score = score;
            best.clear();
        }
        if score == best_score {
            best.push(mv);
        }
    }
    best[rng.random_range(0..best.len())]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eval_indices_stay_in_range_and_spread() {
        let len = 1000;
        let mut seen = vec![false; len];
        for i in 0..20_000 {
            let index = eval_index(i, len);
            assert!(index < len);
            seen[index] = true;
        }
        assert!(seen.iter().filter(|&&s| s).count() > 990);
    }

    #[test]
    fn uniform_is_deterministic_and_respects_the_group() {
        let a = uniform(7, 0.25, 500, PieceGroup::Lance);
        let b = uniform(7, 0.25, 500, PieceGroup::Lance);
        let c = uniform(8, 0.25, 500, PieceGroup::Lance);
        assert_eq!(a, b);
        assert_ne!(a.items, c.items);
        assert_eq!(a.items.len(), 500);
        assert!(a.items.iter().all(|i| matches!(i.slider, Slider::Lance(_))));
        // Both colours appear, and the density is near 25 %.
        assert!(a
            .items
            .iter()
            .any(|i| i.slider == Slider::Lance(Color::Black)));
        assert!(a
            .items
            .iter()
            .any(|i| i.slider == Slider::Lance(Color::White)));
        let bits: u32 = a.items.iter().map(|i| i.occupancy.count_ones()).sum();
        let density = bits as f64 / (500.0 * 81.0);
        assert!((0.22..0.28).contains(&density), "density {density}");
        assert_eq!(a.name, "uniform-25");
    }

    fn check_game_items(workload: &Workload) {
        // Every item is a real slider of the side to move, on its square, in one of the
        // positions listed, with that position's occupancy.
        let mut positions = Vec::new();
        for sfen in &workload.sfens {
            positions.push(Position::from_sfen(Reference, sfen).unwrap());
        }
        for item in &workload.items {
            let pos = positions
                .iter()
                .find(|p| p.occupied().to_canonical() == item.occupancy)
                .expect("item's occupancy is one of the positions'");
            let piece = pos.piece_at(item.square).expect("a piece on the square");
            assert_eq!(piece.color, pos.side_to_move());
            assert_eq!(slider_of(piece.kind, piece.color), Some(item.slider));
        }
    }

    #[test]
    fn game_like_workloads_are_deterministic_real_sliders() {
        for policy in [Policy::Random, Policy::Greedy] {
            let a = game_like(11, policy, 300);
            let b = game_like(11, policy, 300);
            assert_eq!(a, b, "{policy:?}");
            assert_eq!(a.items.len(), 300);
            check_game_items(&a);
        }
        let random = game_like(11, Policy::Random, 300);
        let greedy = game_like(11, Policy::Greedy, 300);
        assert_ne!(random.items, greedy.items);
    }

    #[test]
    fn greedy_prefers_a_free_capture_and_avoids_hanging_pieces() {
        // Black rook on 5e can take an undefended white gold on 5c.
        let mut pos = Position::from_sfen(Reference, "4k4/9/4g4/9/4R4/9/9/9/4K4 b - 1").unwrap();
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let chosen = greedy_choice(&mut pos, &list, &mut rng);
        // Capturing and promoting on the way in beats capturing alone.
        assert_eq!(chosen.to_string(), "5e5c+");
        // Moving the rook where the gold takes it for free scores below a quiet king move.
        let hang = pos.parse_usi_move("5e5d").unwrap();
        let quiet = pos.parse_usi_move("5i4i").unwrap();
        assert_eq!(greedy_score(&mut pos, hang, false), -10);
        assert_eq!(greedy_score(&mut pos, quiet, false), 0);
    }

    #[test]
    fn user_positions_yield_sliders_and_name_the_bad_one() {
        let good = vec![START_SFEN.to_string()];
        let w = from_sfens(&good).unwrap();
        // Black has a rook, a bishop and two lances in the start position.
        assert_eq!(w.items.len(), 4);
        let bad = vec![START_SFEN.to_string(), "not an sfen".to_string()];
        let error = from_sfens(&bad).unwrap_err();
        assert!(error.starts_with("position 2:"), "{error}");
        let no_sliders = vec!["4k4/9/9/9/9/9/9/9/4K4 b - 1".to_string()];
        assert!(from_sfens(&no_sliders).is_err());
    }
}

/// A search-order workload: distinct positions in the order a depth-first search visits them,
/// each with every slider of both sides (an engine's attack maps need both).
#[derive(Clone, Debug)]
pub struct SearchWorkload {
    /// Per node, its canonical occupancy.
    pub occupancies: Vec<u128>,
    /// Node `i`'s lookups are `lookups[starts[i]..starts[i + 1]]` (`starts` has one more entry
    /// than there are nodes).
    pub starts: Vec<u32>,
    /// Every node's sliders: kind and square.
    pub lookups: Vec<(Slider, Square)>,
    pub description: String,
}

impl SearchWorkload {
    pub fn nodes(&self) -> usize {
        self.occupancies.len()
    }

    /// Node `i`'s lookups.
    pub fn node(&self, i: usize) -> &[(Slider, Square)] {
        &self.lookups[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
}

/// The shape of a search-order walk: plies below each root, and moves tried per node (random
/// among the legal ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchShape {
    pub depth: u32,
    pub branching: usize,
}

impl SearchShape {
    /// Many short subtrees from unrelated roots (up to 85 nodes each): the default walk.
    pub const SHORT: SearchShape = SearchShape {
        depth: 3,
        branching: 4,
    };
    /// Few roots searched deep (up to 5,461 nodes each), as a long search from one position
    /// visits them: far fewer first reads of a table line per lookup.
    pub const LONG: SearchShape = SearchShape {
        depth: 6,
        branching: 4,
    };
}

/// [`search_shaped`] with [`SearchShape::SHORT`].
pub fn search_order(seed: u64, nodes: usize) -> SearchWorkload {
    search_shaped(seed, nodes, SearchShape::SHORT)
}

/// `nodes` distinct positions (by Zobrist key) in depth-first order: roots from seeded
/// random-play games (a root every few plies after the opening), and below each a walk of
/// `shape.depth` plies trying `shape.branching` random legal moves per node, every node
/// recorded in pre-order unless an earlier node had the same key. Consecutive nodes differ by a
/// move or by an unmake-and-make, as in a search, so their table lines are reused as a search
/// reuses them.
pub fn search_shaped(seed: u64, nodes: usize, shape: SearchShape) -> SearchWorkload {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut out = SearchWorkload {
        occupancies: Vec::with_capacity(nodes),
        starts: vec![0],
        lookups: Vec::new(),
        description: String::new(),
    };
    let mut seen = std::collections::HashSet::new();
    let (mut games, mut roots) = (0usize, 0usize);
    'games: while out.nodes() < nodes {
        games += 1;
        let mut game = Position::from_sfen(Reference, START_SFEN).expect("start SFEN parses");
        let mut list = MoveList::new();
        for ply in 0..MAX_PLIES {
            if ply >= SKIP_PLIES && ply % 5 == 0 {
                roots += 1;
                walk(
                    &mut game,
                    (shape.depth, shape.branching),
                    &mut rng,
                    &mut seen,
                    &mut out,
                    nodes,
                );
                if out.nodes() >= nodes {
                    break 'games;
                }
            }
            game.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            let mv = list[rng.random_range(0..list.len())];
            game.do_move(mv);
        }
        if games > nodes + 1000 {
            break;
        }
    }
    out.description = format!(
        "{} distinct positions (by Zobrist key) in depth-first order: {roots} roots taken every \
         5 plies from {games} seeded random-play games, each walked {} plies deep \
         trying {} random legal moves per node; each node looks up every slider \
         of both sides ({} lookups, {:.1} per node); seed {seed:#x}",
        out.nodes(),
        shape.depth,
        shape.branching,
        out.lookups.len(),
        out.lookups.len() as f64 / out.nodes().max(1) as f64
    );
    out
}

/// Records `pos` (if new) and walks `depth` plies below it, `branching` moves per node.
fn walk<B: Backend>(
    pos: &mut Position<B>,
    (depth, branching): (u32, usize),
    rng: &mut Xoshiro256PlusPlus,
    seen: &mut std::collections::HashSet<u64>,
    out: &mut SearchWorkload,
    nodes: usize,
) {
    if out.nodes() >= nodes {
        return;
    }
    if seen.insert(pos.key()) {
        out.occupancies.push(pos.occupied().to_canonical());
        for color in [Color::Black, Color::White] {
            for square in pos.color_bb(color).squares() {
                if let Some(slider) = pos.piece_at(square).and_then(|p| slider_of(p.kind, color)) {
                    out.lookups.push((slider, square));
                }
            }
        }
        out.starts.push(out.lookups.len() as u32);
    }
    if depth == 0 {
        return;
    }
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let mut moves: Vec<Move> = list.iter().copied().collect();
    for i in 0..moves.len().min(branching) {
        let j = rng.random_range(i..moves.len());
        moves.swap(i, j);
        let undo = pos.do_move(moves[i]);
        walk(pos, (depth - 1, branching), rng, seen, out, nodes);
        pos.undo_move(moves[i], undo);
    }
}
