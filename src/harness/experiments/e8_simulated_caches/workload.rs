//! E8's workload: the fixed lookups valgrind simulates (and `benches/cache_sim.rs` runs), run by
//! the hidden `kiki e8-workload` command.

use crate::backend::{Backend, Bitboard};
use crate::harness::workloads::eval_index;
use crate::registry::{self, BackendVisitor, RegistryError};
use crate::types::{Slider, Square};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The workload's seed: the same inputs for every backend and every run.
pub const WORKLOAD_SEED: u64 = 0x6538_6538;
/// Distinct occupancies the lookups cycle through (small, so that the inputs themselves stay
/// in L1 and the misses counted are the tables').
pub const OCCUPANCIES: usize = 64;
/// Probability that a square is occupied in the random occupancies (a middle-game board).
pub const DENSITY: f64 = 0.4;
/// The function valgrind collects in (its name is matched with wildcards around it).
pub const MEASURED_FUNCTION: &str = "e8_measured_lookups";

/// The cycle estimate's weights: an L1 miss that hits LL costs about 10 cycles, an LL miss
/// about 100 (the usual cachegrind rule of thumb; no pipeline overlap is modelled).
pub const L1_MISS_CYCLES: f64 = 10.0;
pub const LL_MISS_CYCLES: f64 = 100.0;

/// Random 8-byte reads of the evaluation buffer after every lookup in the pressure variant (as
/// in E7's main sweep).
pub const EVAL_READS: usize = 4;
/// The pseudo-backend of the pressure variant that does the evaluation reads alone: its counts
/// are subtracted from each backend's, leaving what the lookups add under pressure.
pub const EVAL_ALONE: &str = "evaluation-alone";

/// One lookup input packed in a `u32`: occupancy index (bits 0–7), square (8–14), slider (16–18).
pub(super) fn pack(occupancy: usize, square: u8, slider: usize) -> u32 {
    occupancy as u32 | (square as u32) << 8 | (slider as u32) << 16
}

/// The lookup inputs: `lookups` packed inputs and `OCCUPANCIES` canonical occupancies.
pub fn inputs(lookups: usize, seed: u64) -> (Vec<u128>, Vec<u32>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let occupancies = (0..OCCUPANCIES)
        .map(|_| {
            (0..81).fold(0u128, |bits, sq| {
                if rng.random_bool(DENSITY) {
                    bits | 1 << sq
                } else {
                    bits
                }
            })
        })
        .collect();
    let packed = (0..lookups)
        .map(|_| {
            pack(
                rng.random_range(0..OCCUPANCIES),
                rng.random_range(0..81u8),
                rng.random_range(0..Slider::ALL.len()),
            )
        })
        .collect();
    (occupancies, packed)
}

/// The measured region: every lookup's attacks folded into one bitboard, and (with a non-empty
/// `eval`) `EVAL_READS` evaluation reads after each lookup, summed. Never inlined, so valgrind
/// can switch collection on and off at its entry and exit.
#[inline(never)]
pub fn e8_measured_lookups<B: Backend>(
    backend: B,
    occupancies: &[B::Occupancy],
    packed: &[u32],
    eval: &[u64],
) -> (B::Bitboard, u64) {
    let mut folded = B::Bitboard::empty();
    let mut sum = 0u64;
    let mut reads = 0u64;
    for &input in packed {
        let occupancy = &occupancies[(input & 0xff) as usize % occupancies.len()];
        let square = Square::new((input >> 8 & 0x7f) as u8 % 81).unwrap_or(Square::new(0).unwrap());
        let slider = Slider::ALL[(input >> 16 & 7) as usize % Slider::ALL.len()];
        folded ^= backend.slider_attacks(slider, occupancy, square);
        if !eval.is_empty() {
            for _ in 0..EVAL_READS {
                sum = sum.wrapping_add(eval[eval_index(reads, eval.len())]);
                reads += 1;
            }
        }
    }
    (folded, sum)
}

/// The pressure variant's baseline: the same input stream and evaluation reads, no lookup.
#[inline(never)]
pub fn e8_measured_lookups_evaluation_alone(packed: &[u32], eval: &[u64]) -> u64 {
    let mut sum = 0u64;
    let mut reads = 0u64;
    for &input in packed {
        sum = sum.wrapping_add(input as u64);
        for _ in 0..EVAL_READS {
            sum = sum.wrapping_add(eval[eval_index(reads, eval.len())]);
            reads += 1;
        }
    }
    sum
}

/// The evaluation buffer of the pressure variant, every page touched before measuring.
fn eval_buffer(bytes: usize) -> Vec<u64> {
    (0..bytes / 8).map(|i| i as u64).collect()
}

/// Runs the workload on one backend (tables built and inputs converted first), returning the
/// folded result as a canonical board so that the work cannot be optimised away.
pub struct WorkloadVisitor {
    pub lookups: usize,
    pub seed: u64,
    /// Bytes of evaluation buffer read after every lookup (0: none).
    pub eval_bytes: usize,
}

impl BackendVisitor for WorkloadVisitor {
    type Output = u128;
    fn visit<B: Backend>(self, backend: B) -> u128 {
        let (canonical, packed) = inputs(self.lookups, self.seed);
        let occupancies: Vec<B::Occupancy> = canonical
            .iter()
            .map(|&bits| backend.occupancy(bits))
            .collect();
        let eval = eval_buffer(self.eval_bytes);
        let (folded, sum) = e8_measured_lookups(
            backend,
            &occupancies,
            std::hint::black_box(&packed),
            std::hint::black_box(&eval),
        );
        std::hint::black_box(folded).to_canonical() ^ std::hint::black_box(sum) as u128
    }
}

/// Runs the workload on the backend called `name` (or `EVAL_ALONE`: the evaluation reads of
/// `eval_bytes` alone, over the same inputs).
pub fn run_workload(
    name: &str,
    lookups: usize,
    seed: u64,
    eval_bytes: usize,
) -> Result<u128, RegistryError> {
    if name == EVAL_ALONE {
        let (_, packed) = inputs(lookups, seed);
        let eval = eval_buffer(eval_bytes.max(8));
        let sum = e8_measured_lookups_evaluation_alone(
            std::hint::black_box(&packed),
            std::hint::black_box(&eval),
        );
        return Ok(std::hint::black_box(sum) as u128);
    }
    registry::visit(
        name,
        WorkloadVisitor {
            lookups,
            seed,
            eval_bytes,
        },
    )
}
