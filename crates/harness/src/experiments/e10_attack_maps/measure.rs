//! E10's measuring: position sets, every method's maps checked against the per-piece ones, and
//! the timed groups (maps, engine use, recounts against incremental effect boards).

use crate::effects_timing::{self, Replayer, Workload};
use crate::experiments::{Config, Progress};
use crate::invocations::{gather, merge_rows, union, Invocation};
use crate::measure::{interleaved, interleaved_abba, Case, CaseResult, SampleConfig};
use crate::registry;
use kiki_core::backend::Backend;
use kiki_core::reference::Reference;
use kiki_core::simd::SimdLevel;
use kiki_core::types::Color;
use kiki_engine::attack_map::{set_wise, Method, SideAttacks, SidePieces};
use kiki_engine::effects::{
    BitboardEffects, DistanceCheck, Effects, PaddedMailbox, SquareWithWall,
};
use kiki_engine::mate1::{mate_in_1, tactical_positions};
use kiki_engine::perft::perft;
use kiki_engine::position::{KingSafety, Move, Position, Undo, START_SFEN};
use kiki_variants::mailbox::Mailbox;
use kiki_variants::qugiy::Qugiy;
use kiki_variants::registry::BackendVisitor;
use serde::{Deserialize, Serialize};
use std::hint::black_box;

/// The timed groups, each one interleaved run: (name, unit).
pub(super) const MAPS: &str = "map+counts";
pub(super) const MAPS_LATENCY: &str = "map+counts latency";
pub(super) const UNION: &str = "map only";
pub(super) const PERFT: &str = "perft";
pub(super) const MATE1: &str = "mate1";
pub(super) const RECOUNT: &str = "recount per make+unmake";
/// MAPS's other cells on the first set, timed in rounds without the AVX-512 cells (ABBA with
/// MAPS's rounds): AVX-512 can lower the clock of neighbouring code on some CPUs, so they are
/// compared with themselves beside those cells (a control that must come out level).
pub(super) const MAPS_WITHOUT_AVX512: &str = "map+counts, no avx512 neighbours";

/// The variant of the conversion-only cell (MAPS): `SidePieces::of` for both colours, the
/// input conversion every set-wise cell includes, timed alone.
pub(super) const CONVERSION: &str = "conversion only";
/// The suffix of the kernel-only cell's variant (MAPS, `{top level} kernel only`): the top
/// set-wise kernel on inputs converted before the loop, so that the set-wise cell over it is
/// what the conversion adds in place.
pub(super) const KERNEL_ONLY: &str = "kernel only";
/// The suffix of the A/A twin's variant (MAPS, first backend): a second cell of the top
/// set-wise level on the same code path, which must come out level with the first.
pub(super) const AA_TWIN: &str = "(A/A twin)";

/// The variant name of the make+unmake control (no recount) in the recount group.
pub(super) const CONTROL: &str = "make+unmake only";
/// The "backend" of the incremental steppers' rows (they do not use a backend).
pub(super) const INCREMENTAL: &str = "incremental";

/// One timed cell.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Row {
    #[serde(with = "crate::invocations::static_str")]
    pub group: crate::invocations::StaticStr,
    /// The position set (`-` for groups with their own workload).
    pub set: String,
    pub backend: String,
    /// The method, king-safety mode or stepper.
    pub variant: String,
    pub ns: Vec<f64>,
}

/// Everything E10 measured, and the settings the method paragraph reports.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Measurement {
    #[serde(with = "crate::invocations::static_str::vec")]
    pub backends: Vec<&'static str>,
    pub skipped: Vec<String>,
    /// Every method timed, in order (per piece first); read back as this process lists them
    /// (the same binary, machine and SIMD level as the process that timed them).
    #[serde(skip, default = "methods")]
    pub methods: Vec<Method>,
    /// Every king-safety mode timed, per square first.
    #[serde(skip, default = "all_modes")]
    pub modes: Vec<KingSafety>,
    /// Position sets: (name, positions).
    pub sets: Vec<(String, usize)>,
    pub seed: u64,
    pub perft_depth: u32,
    pub mate1_positions: usize,
    pub recount_moves: usize,
    pub samples: usize,
    pub threshold: f64,
    /// Positions on which every method was compared with the per-piece maps before timing.
    pub verified_positions: usize,
    pub rows: Vec<Row>,
    pub errors: Vec<String>,
    /// The process invocations pooled here (1 as measured; K once merged).
    pub invocations: usize,
}

/// K invocations' measurements as one: every row's rounds one invocation after another, errors
/// of any; the rest from the first.
pub(super) fn merge(parts: &[Measurement]) -> Result<Measurement, String> {
    let first = parts.first().ok_or("nothing measured")?;
    let rows = merge_rows(
        &gather(parts, |p| &p.rows),
        |r| (r.group, r.set.clone(), r.backend.clone(), r.variant.clone()),
        |into, from| into.ns.extend(&from.ns),
    )?;
    Ok(Measurement {
        rows,
        errors: union(parts.iter().map(|p| p.errors.clone())),
        invocations: parts.len(),
        ..first.clone()
    })
}

impl Measurement {
    pub fn row(&self, group: &str, set: &str, backend: &str, variant: &str) -> Option<&Row> {
        self.rows.iter().find(|r| {
            r.group == group && r.set == set && r.backend == backend && r.variant == variant
        })
    }
}

/// The methods to time: per piece, and set-wise at every level this CPU has (only the forced
/// one when `--simd` or `KIKI_SIMD` forces a level).
pub(super) fn methods() -> Vec<Method> {
    let levels = match kiki_core::simd::forced() {
        Some(level) => vec![level],
        None => SimdLevel::available(),
    };
    std::iter::once(Method::PerPiece)
        .chain(levels.into_iter().map(Method::SetWise))
        .collect()
}

/// Every king-safety mode: per square, then by the attack map of each method.
fn modes(methods: &[Method]) -> Vec<KingSafety> {
    std::iter::once(KingSafety::PerSquare)
        .chain(methods.iter().copied().map(KingSafety::AttackMap))
        .collect()
}

fn all_modes() -> Vec<KingSafety> {
    modes(&methods())
}

/// Game-like position sets: random play (the effects workload's games, a position every few
/// plies), greedy tactical playouts (`mate1::tactical_positions`), and the user's SFEN file.
fn position_sets(
    config: &Config,
    seed: u64,
    per_set: usize,
) -> Result<Vec<(String, Vec<String>)>, String> {
    let workload = effects_timing::workload(per_set * 5, seed)?;
    let backend = <Qugiy as Backend>::new()?;
    let mut random = Vec::new();
    for game in &workload.games {
        let mut pos = Position::from_sfen(backend, game.start).map_err(|e| e.to_string())?;
        for (ply, &mv) in game.moves.iter().enumerate() {
            if ply % 5 == 0 && random.len() < per_set {
                random.push(pos.to_sfen());
            }
            pos.do_move(mv);
        }
    }
    let greedy = tactical_positions(Mailbox::new()?, seed ^ 0x6772_6565, per_set);
    let mut sets = vec![
        ("random play".to_string(), random),
        ("greedy playouts".to_string(), greedy),
    ];
    if !config.positions.is_empty() {
        sets.push(("SFEN file".to_string(), config.positions.clone()));
    }
    Ok(sets)
}

/// Both colours' maps of one position (what one "position" costs in the map groups).
#[inline(always)]
fn both<B: Backend>(pos: &Position<B>, method: Method) -> (SideAttacks, SideAttacks) {
    (
        pos.side_attacks(Color::Black, method),
        pos.side_attacks(Color::White, method),
    )
}

/// Every bit of a side's converted pieces folded into one word (the conversion-only cell).
#[inline(always)]
fn pieces_digest(p: &SidePieces) -> u64 {
    let x = p.occupied
        ^ p.rook_sliders.rotate_left(7)
        ^ p.bishop_sliders.rotate_left(14)
        ^ p.lances.rotate_left(21)
        ^ p.forward_steppers.rotate_left(28)
        ^ p.forward_diagonal_steppers.rotate_left(35)
        ^ p.side_and_back_steppers.rotate_left(42)
        ^ p.back_diagonal_steppers.rotate_left(49)
        ^ p.knights.rotate_left(56);
    (x ^ (x >> 64)) as u64
}

/// Every bit of a map folded into one word, so that no path can drop work nobody reads (the
/// AVX-512 kernels cannot be inlined into the timing loop, the others can).
#[inline(always)]
fn digest(attacks: &SideAttacks) -> u64 {
    let mut x = attacks.union;
    for plane in attacks.planes {
        x ^= plane.rotate_left(7);
    }
    (x ^ (x >> 64)) as u64
}

/// Builds one group's cases on one backend.
struct MakeCases<'a> {
    group: &'static str,
    sfens: &'a [String],
    methods: &'a [Method],
    modes: &'a [KingSafety],
    perft_depth: u32,
    workload: Option<&'a Workload>,
    /// Whether this backend's map group carries the A/A twin (the first backend only).
    aa_twin: bool,
}

impl BackendVisitor for MakeCases<'_> {
    type Output = Result<(Vec<Case<'static>>, usize), String>;
    fn visit<B: Backend>(self, backend: B) -> Self::Output {
        let name = B::info().name;
        let positions: Vec<Position<B>> = self
            .sfens
            .iter()
            .map(|s| Position::from_sfen(backend, s).map_err(|e| format!("{name}: {e}")))
            .collect::<Result<_, _>>()?;
        // Only the map groups count the positions they checked.
        Ok(match self.group {
            MAPS | MAPS_LATENCY | UNION => {
                map_cases(name, &positions, self.group, self.methods, self.aa_twin)?
            }
            PERFT => (
                perft_cases(name, &positions, self.modes, self.perft_depth)?,
                0,
            ),
            MATE1 => (mate1_cases(name, &positions, self.modes)?, 0),
            _ => (
                recount_cases(backend, name, self.workload, self.methods)?,
                0,
            ),
        })
    }
}

/// The map groups' cases (`group` says which) on `positions`, one per method, after every
/// method's maps are checked equal to the per-piece ones on every position: the cases and the
/// positions checked. MAPS adds the conversion-only cell, and where `aa_twin` an A/A twin of
/// the top set-wise level.
fn map_cases<B: Backend>(
    name: &str,
    positions: &[Position<B>],
    group: &'static str,
    methods: &[Method],
    aa_twin: bool,
) -> Result<(Vec<Case<'static>>, usize), String> {
    let mut verified = 0;
    let mut cases = Vec::new();
    // Every method's maps equal the per-piece ones before anything is timed.
    for pos in positions {
        let expected = both(pos, Method::PerPiece);
        for &method in methods {
            let unions = (
                pos.side_union(Color::Black, method),
                pos.side_union(Color::White, method),
            );
            if both(pos, method) != expected || unions != (expected.0.union, expected.1.union) {
                return Err(format!(
                    "{name}: {} differs from per-piece on {}",
                    method.name(),
                    pos.to_sfen()
                ));
            }
        }
        verified += 1;
    }
    for &method in methods {
        let positions = positions.to_vec();
        let count = positions.len();
        let case_name = format!("{name} {}", method.name());
        let case = match group {
            MAPS => throughput_case(case_name, positions, method),
            MAPS_LATENCY => Case::new(case_name, count as u64, move |reps| {
                // The next position depends on this one's counts: one map after
                // another, nothing overlaps.
                let mut index = 0usize;
                let mut fold = 0u64;
                for _ in 0..reps * count as u64 {
                    let (black, white) = both(&positions[index], method);
                    let folded = digest(&black) ^ digest(&white);
                    fold = fold.wrapping_add(folded);
                    index += 1 + (folded & 1) as usize;
                    if index >= count {
                        index -= count;
                    }
                }
                fold
            }),
            _ => Case::new(case_name, count as u64, move |reps| {
                let mut fold = 0u64;
                for _ in 0..reps {
                    for pos in black_box(&positions[..]) {
                        let union = pos.side_union(Color::Black, method)
                            ^ pos.side_union(Color::White, method).rotate_left(7);
                        fold = fold.wrapping_add((union ^ (union >> 64)) as u64);
                    }
                }
                fold
            }),
        };
        cases.push(case);
    }
    if group == MAPS {
        let converted = positions.to_vec();
        cases.push(Case::new(
            format!("{name} {CONVERSION}"),
            converted.len() as u64,
            move |reps| {
                let mut fold = 0u64;
                for _ in 0..reps {
                    for pos in black_box(&converted[..]) {
                        let black = pieces_digest(&SidePieces::of(pos, Color::Black));
                        let white = pieces_digest(&SidePieces::of(pos, Color::White));
                        // Uneven, so that the colours' shared occupancy does not cancel.
                        fold = fold.wrapping_add(black ^ white.rotate_left(32));
                    }
                }
                fold
            },
        ));
        // The top level is fixed before any data: the last method (the highest SIMD level).
        if let Some(&top) = methods.last() {
            if let Method::SetWise(level) = top {
                cases.push(kernel_only_case(
                    format!("{name} {} {KERNEL_ONLY}", top.name()),
                    positions,
                    level,
                ));
            }
            if aa_twin {
                let case_name = format!("{name} {} {AA_TWIN}", top.name());
                cases.push(throughput_case(case_name, positions.to_vec(), top));
            }
        }
    }
    Ok((cases, verified))
}

/// The set-wise kernel at `level` on both colours' pieces, converted before the loop: MAPS's
/// set-wise cell without the conversion, folded alike.
fn kernel_only_case<B: Backend>(
    case_name: String,
    positions: &[Position<B>],
    level: SimdLevel,
) -> Case<'static> {
    let pieces: Vec<(SidePieces, SidePieces)> = positions
        .iter()
        .map(|pos| {
            (
                SidePieces::of(pos, Color::Black),
                SidePieces::of(pos, Color::White),
            )
        })
        .collect();
    Case::new(case_name, pieces.len() as u64, move |reps| {
        let mut fold = 0u64;
        for _ in 0..reps {
            for (black, white) in black_box(&pieces[..]) {
                let (black, white) = (set_wise(black, level), set_wise(white, level));
                fold = fold.wrapping_add(digest(&black) ^ digest(&white));
            }
        }
        fold
    })
}

/// MAPS's cell: both colours' maps of independent positions by `method`, every bit folded.
fn throughput_case<B: Backend>(
    case_name: String,
    positions: Vec<Position<B>>,
    method: Method,
) -> Case<'static> {
    Case::new(case_name, positions.len() as u64, move |reps| {
        let mut fold = 0u64;
        for _ in 0..reps {
            for pos in black_box(&positions[..]) {
                let (black, white) = both(pos, method);
                fold = fold.wrapping_add(digest(&black) ^ digest(&white));
            }
        }
        fold
    })
}

/// The perft group's cases from the first position, one per king-safety mode, each checked
/// against a fresh count first.
fn perft_cases<B: Backend>(
    name: &str,
    positions: &[Position<B>],
    modes: &[KingSafety],
    depth: u32,
) -> Result<Vec<Case<'static>>, String> {
    let mut cases = Vec::new();
    for &mode in modes {
        let mut pos = positions[0].clone();
        pos.set_king_safety(mode);
        let nodes = perft(&mut pos, depth);
        let mut check = positions[0].clone();
        if nodes != perft(&mut check, depth) {
            return Err(format!("{name}: perft with {} miscounts", mode.name()));
        }
        cases.push(Case::new(
            format!("{name} {}", mode.name()),
            nodes,
            move |reps| {
                let mut total = 0;
                for _ in 0..reps {
                    total += perft(black_box(&mut pos), depth);
                }
                total
            },
        ));
    }
    Ok(cases)
}

/// The mate-in-one group's cases, one per king-safety mode, each checked to find the same
/// mates first.
fn mate1_cases<B: Backend>(
    name: &str,
    positions: &[Position<B>],
    modes: &[KingSafety],
) -> Result<Vec<Case<'static>>, String> {
    let mut cases = Vec::new();
    let expected: Vec<bool> = positions.iter().map(|p| mate_in_1(p).is_some()).collect();
    for &mode in modes {
        let mut positions = positions.to_vec();
        for (pos, &mate) in positions.iter_mut().zip(&expected) {
            pos.set_king_safety(mode);
            if mate_in_1(pos).is_some() != mate {
                return Err(format!("{name}: mate1 with {} disagrees", mode.name()));
            }
        }
        let count = positions.len() as u64;
        cases.push(Case::new(
            format!("{name} {}", mode.name()),
            count,
            move |reps| {
                let mut found = 0;
                for _ in 0..reps {
                    for pos in black_box(&positions[..]) {
                        found += mate_in_1(pos).is_some() as u64;
                    }
                }
                found
            },
        ));
    }
    Ok(cases)
}

/// Replays every game from its start, calling `after` after every make and after every unmake
/// (as the incremental effect boards update their counts on both), and folds what it returns;
/// each start is as it was afterwards.
fn replay_games<B: Backend>(
    starts: &mut [Position<B>],
    games: &[Vec<Move>],
    undos: &mut Vec<Undo>,
    mut after: impl FnMut(&Position<B>) -> u64,
) -> u64 {
    let mut fold = 0u64;
    for (pos, moves) in starts.iter_mut().zip(games) {
        undos.clear();
        for &mv in moves {
            undos.push(pos.do_move(black_box(mv)));
            fold = fold.wrapping_add(after(pos));
        }
        for (&mv, &undo) in moves.iter().rev().zip(undos.iter().rev()) {
            pos.undo_move(mv, undo);
            fold = fold.wrapping_add(after(pos));
        }
    }
    fold
}

/// The recount group's cases on the games of `workload`: make+unmake alone, then with both
/// maps recounted after every make and every unmake, per method.
fn recount_cases<B: Backend>(
    backend: B,
    name: &str,
    workload: Option<&Workload>,
    methods: &[Method],
) -> Result<Vec<Case<'static>>, String> {
    let mut cases = Vec::new();
    let workload = workload.ok_or("no recount workload")?;
    let starts: Vec<Position<B>> = workload
        .games
        .iter()
        .map(|g| Position::from_sfen(backend, g.start).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let variants = std::iter::once(None).chain(methods.iter().copied().map(Some));
    for method in variants {
        let mut starts = starts.clone();
        let games: Vec<Vec<Move>> = workload.games.iter().map(|g| g.moves.clone()).collect();
        let variant = method.map_or(CONTROL.to_string(), |m| m.name());
        cases.push(Case::new(
            format!("{name} {variant}"),
            workload.moves as u64,
            move |reps| {
                let mut fold = 0u64;
                let mut undos = Vec::with_capacity(effects_timing::MAX_PLIES);
                for _ in 0..reps {
                    // The control's replay calls nothing after a move (its own closure type).
                    let replayed = match method {
                        None => replay_games(&mut starts, &games, &mut undos, |_| 0),
                        Some(method) => replay_games(&mut starts, &games, &mut undos, |pos| {
                            let (black, white) = both(pos, method);
                            digest(&black) ^ digest(&white)
                        }),
                    };
                    fold = fold.wrapping_add(replayed);
                }
                fold
            },
        ));
    }
    Ok(cases)
}

/// The incremental effect boards of E5 on the same workload, as cases of the recount group.
fn stepper_cases(workload: &'static Workload) -> Result<Vec<Case<'static>>, String> {
    fn case<T: kiki_engine::effects::EffectTracker + 'static>(
        workload: &'static Workload,
    ) -> Result<Case<'static>, String> {
        let mut replayer = Replayer::<T>::new(workload)?;
        Ok(Case::new(
            format!("{INCREMENTAL} {}", T::name()),
            workload.moves as u64,
            move |reps| {
                let mut fold = 0;
                for _ in 0..reps {
                    fold += replayer.replay();
                }
                fold
            },
        ))
    }
    Ok(vec![
        case::<Effects<PaddedMailbox>>(workload)?,
        case::<Effects<SquareWithWall>>(workload)?,
        case::<Effects<DistanceCheck>>(workload)?,
        case::<BitboardEffects<Qugiy>>(workload)?,
    ])
}

/// The reference's maps agree with the per-piece maps of the first backend too (a sanity
/// check that the per-piece path itself is not what every method agreed on wrongly): what
/// disagrees, one sentence each.
fn reference_errors(sets: &[(String, Vec<String>)], methods: &[Method]) -> Vec<String> {
    let mut errors = Vec::new();
    if let Some((_, sfens)) = sets.first() {
        for sfen in sfens.iter().take(50) {
            if let Ok(reference) = Position::from_sfen(Reference, sfen) {
                for &method in methods {
                    let ours = both(&reference, method);
                    let naive = naive_both(&reference);
                    if (ours.0.counts(), ours.1.counts()) != naive {
                        errors.push(format!(
                            "{} differs from a naive count on {sfen}",
                            method.name()
                        ));
                    }
                }
            }
        }
    }
    errors
}

/// [`stepper_cases`] once the incremental effect boards agree with a recount on `workload`.
fn verified_stepper_cases(workload: &'static Workload) -> Result<Vec<Case<'static>>, String> {
    effects_timing::verify_all(workload)
        .map_err(|error| format!("incremental effect boards: {error}"))?;
    stepper_cases(workload)
}

/// Splits a case name `backend variant` back into its parts.
fn split_name(name: &str) -> (String, String) {
    match name.split_once(' ') {
        Some((backend, variant)) => (backend.to_string(), variant.to_string()),
        None => (name.to_string(), String::new()),
    }
}

/// Times every group on every backend.
pub(super) fn measure(
    config: &Config,
    invocation: Invocation,
    progress: Progress<'_>,
) -> Measurement {
    let (backends, skipped) = config.backend_names();
    let seed = config.seed ^ 0xE10;
    let methods = methods();
    let modes = modes(&methods);
    let per_set = config.pick(6, 200, 600);
    let perft_depth = config.pick(2, 3, 4);
    let mate1_count = config.pick(6, 100, 300);
    let recount_moves = config.pick(200, 2_000, 6_000);
    let sampling: SampleConfig = config.sampling();
    let mut errors = Vec::new();
    let mut rows = Vec::new();
    let mut verified_positions = 0;
    progress("generating positions", 0.0);
    let sets = match position_sets(config, seed, per_set) {
        Ok(sets) => sets,
        Err(error) => {
            errors.push(error);
            Vec::new()
        }
    };
    let mate1_sfens = match Mailbox::new() {
        Ok(mailbox) => tactical_positions(mailbox, seed ^ 0xE3, mate1_count),
        Err(error) => {
            errors.push(error);
            Vec::new()
        }
    };
    // Leaked once per report run: the stepper replayers borrow it for 'static cases.
    let workload: Option<&'static Workload> = match effects_timing::workload(recount_moves, seed) {
        Ok(workload) => Some(Box::leak(Box::new(workload))),
        Err(error) => {
            errors.push(error);
            None
        }
    };
    let start = [START_SFEN.to_string()];
    let mut groups: Vec<(&'static str, String, &[String])> = Vec::new();
    for (set, sfens) in &sets {
        for group in [MAPS, MAPS_LATENCY, UNION] {
            groups.push((group, set.clone(), &sfens[..]));
        }
    }
    // The AVX-512 neighbour control: on the first set, MAPS is timed in A rounds and its
    // other cells again in B rounds without the AVX-512 cells beside them (ABBA).
    let avx512 = Method::SetWise(SimdLevel::Avx512).name();
    let neighbour_set = sets
        .first()
        .filter(|_| methods.contains(&Method::SetWise(SimdLevel::Avx512)))
        .map(|(set, _)| set.clone());
    groups.push((PERFT, "start position".to_string(), &start[..]));
    groups.push((MATE1, "tactical".to_string(), &mate1_sfens[..]));
    groups.push((RECOUNT, "random games".to_string(), &[]));
    let total = groups.len() as f64;
    for (g, (group, set, sfens)) in groups.iter().enumerate() {
        let label = format!("{group} ({set})");
        progress(&format!("{label}: preparing"), g as f64 / total);
        if *group != RECOUNT && sfens.is_empty() {
            errors.push(format!("{label}: no positions"));
            continue;
        }
        let mut cases = Vec::new();
        for name in &backends {
            let make = MakeCases {
                group,
                sfens,
                methods: &methods,
                modes: &modes,
                perft_depth,
                workload,
                aa_twin: *name == backends[0],
            };
            match registry::visit_base(name, make) {
                Ok(Ok((made, verified))) => {
                    cases.extend(made);
                    if *group == MAPS {
                        verified_positions += verified;
                    }
                }
                Ok(Err(error)) => errors.push(error),
                Err(error) => errors.push(error.to_string()),
            }
        }
        if let (RECOUNT, Some(workload)) = (*group, workload) {
            match verified_stepper_cases(workload) {
                Ok(steppers) => cases.extend(steppers),
                Err(error) => errors.push(error),
            }
        }
        if cases.is_empty() {
            continue;
        }
        let mut fraction = |f: f64| progress(&label, (g as f64 + f) / total);
        let timed: Vec<(&'static str, Vec<CaseResult>)> =
            if *group == MAPS && neighbour_set.as_ref() == Some(set) {
                let in_b: Vec<bool> = cases
                    .iter()
                    .map(|c| !split_name(&c.name).1.starts_with(&avx512))
                    .collect();
                let (with, alone) =
                    interleaved_abba(&mut cases, &in_b, &sampling, invocation, &mut fraction);
                vec![(MAPS, with), (MAPS_WITHOUT_AVX512, alone)]
            } else {
                let results = interleaved(&mut cases, &sampling, invocation, None, &mut fraction);
                vec![(*group, results)]
            };
        for (group, results) in timed {
            for result in results {
                let (backend, variant) = split_name(&result.name);
                rows.push(Row {
                    group,
                    set: set.clone(),
                    backend,
                    variant,
                    ns: result.ns_per_op,
                });
            }
        }
    }
    errors.extend(reference_errors(&sets, &methods));
    progress("done", 1.0);
    Measurement {
        backends,
        skipped,
        methods,
        modes,
        sets: sets.iter().map(|(n, s)| (n.clone(), s.len())).collect(),
        seed,
        perft_depth,
        mate1_positions: mate1_sfens.len(),
        recount_moves: workload.map_or(0, |w| w.moves),
        samples: sampling.samples,
        threshold: config.threshold,
        verified_positions,
        rows,
        errors,
        invocations: 1,
    }
}

/// Both colours' counts by walking every square's attackers on the reference.
fn naive_both(pos: &Position<Reference>) -> ([u8; 81], [u8; 81]) {
    use kiki_core::backend::Bitboard;
    let count = |color: Color| {
        let mut counts = [0u8; 81];
        for sq in kiki_core::types::Square::all() {
            counts[sq.index()] = pos.attackers_to(sq, color).count() as u8;
        }
        counts
    };
    (count(Color::Black), count(Color::White))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recount runs after every make and after every unmake: twice per move, the unmakes
    /// seeing the positions before each move in reverse, and every start is as it was after.
    #[test]
    fn the_recount_runs_after_every_make_and_every_unmake() {
        let workload = effects_timing::workload(200, 1).expect("a workload");
        let mailbox = Mailbox::new().expect("mailbox");
        let mut starts: Vec<Position<Mailbox>> = workload
            .games
            .iter()
            .map(|g| Position::from_sfen(mailbox, g.start).expect("a start"))
            .collect();
        let before: Vec<String> = starts.iter().map(|p| p.to_sfen()).collect();
        let games: Vec<Vec<Move>> = workload.games.iter().map(|g| g.moves.clone()).collect();
        let mut seen = Vec::new();
        let mut undos = Vec::new();
        let fold = replay_games(&mut starts, &games, &mut undos, |pos| {
            seen.push(pos.to_sfen());
            1
        });
        assert_eq!(fold, 2 * workload.moves as u64);
        assert_eq!(seen.len(), 2 * workload.moves);
        let mut at = 0;
        for (start, moves) in before.iter().zip(&games) {
            let n = moves.len();
            let made = &seen[at..at + n];
            let unmade = &seen[at + n..at + 2 * n];
            let mut expected: Vec<&String> = std::iter::once(start)
                .chain(made.iter().take(n.saturating_sub(1)))
                .collect();
            expected.reverse();
            assert_eq!(
                unmade.iter().collect::<Vec<_>>(),
                expected.into_iter().take(n).collect::<Vec<_>>()
            );
            at += 2 * n;
        }
        let after: Vec<String> = starts.iter().map(|p| p.to_sfen()).collect();
        assert_eq!(after, before);
    }
}
