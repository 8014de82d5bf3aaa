//! E8's workload: the fixed lookups valgrind simulates (and `benches/cache_sim.rs` runs), run by
//! the hidden `kiki e8-workload` command.

use crate::registry;
use crate::workloads::eval_index;
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::types::{Slider, Square};
use kiki_variants::registry::{BackendVisitor, RegistryError};
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

/// Packed input layout: occupancy index in bits 0–21, square in 22–28, slider in 29–31.
const OCCUPANCY_BITS: u32 = 22;
/// The most distinct occupancies a packed input can name.
pub const MAX_OCCUPANCIES: usize = 1 << OCCUPANCY_BITS;
const OCCUPANCY_MASK: u32 = (1 << OCCUPANCY_BITS) - 1;
const SQUARE_SHIFT: u32 = OCCUPANCY_BITS;
const SLIDER_SHIFT: u32 = OCCUPANCY_BITS + 7;
/// Square 0, where a field out of range would otherwise have nowhere to go.
const FIRST_SQUARE: Square = match Square::new(0) {
    Some(square) => square,
    None => panic!("square 0 exists"),
};

/// One lookup input packed in a `u32` (see [`OCCUPANCY_BITS`]); `occupancy` is taken modulo
/// [`MAX_OCCUPANCIES`].
pub(super) fn pack(occupancy: usize, square: Square, slider: Slider) -> u32 {
    let slider = Slider::ALL.iter().position(|&s| s == slider).unwrap_or(0);
    (occupancy as u32 & OCCUPANCY_MASK)
        | (square.index() as u32) << SQUARE_SHIFT
        | (slider as u32) << SLIDER_SHIFT
}

/// `(occupancy index, square, slider)` of a packed input (out-of-range fields wrap).
#[inline(always)]
pub(super) fn unpack(input: u32) -> (usize, Square, Slider) {
    let square = Square::new((input >> SQUARE_SHIFT & 0x7f) as u8 % 81).unwrap_or(FIRST_SQUARE);
    let slider = Slider::ALL[(input >> SLIDER_SHIFT) as usize % Slider::ALL.len()];
    ((input & OCCUPANCY_MASK) as usize, square, slider)
}

/// E8's lookup inputs: the canonical occupancies, the packed lookups over them, and what they
/// are (for the method).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inputs {
    pub occupancies: Vec<u128>,
    pub packed: Vec<u32>,
    pub description: String,
}

/// The workload's `count` lookup inputs without a workload file (the gungraun bench's): the
/// uniform ones. Every run generates the same count (the longest one measured) and measures a
/// prefix of it, so that a shorter run's inputs are the longer run's first part, byte for byte
/// and address for address. `kiki report` runs E8 over the search-order workload instead,
/// generated once natively and handed to every child as a file ([`write_search_workload`]).
pub fn inputs(count: usize, seed: u64) -> Inputs {
    uniform_inputs(count, seed)
}

/// Lookups per node of the search-order workload, rounded down (it averages about 7.9), so
/// that the nodes generated cover the lookups asked for.
const LOOKUPS_PER_NODE: usize = 7;
/// The workload file's first bytes.
const WORKLOAD_MAGIC: &[u8; 8] = b"KIKIE8W1";

/// Generates the search-order workload ([`search_order`](crate::workloads::search_order))
/// with enough nodes for `count` lookups (at most [`MAX_OCCUPANCIES`] nodes) and writes it to
/// `path` for the `e8-workload` children; returns its description.
///
/// The format, little-endian: the magic `KIKIE8W1`; nodes, lookups and description bytes as
/// `u32`; the description (UTF-8); per node its occupancy (`u128`); the `nodes + 1` starts
/// (`u32`); per lookup the slider's index in [`Slider::ALL`] and the square (one byte each).
pub fn write_search_workload(
    path: &std::path::Path,
    count: usize,
    seed: u64,
) -> Result<String, String> {
    let mut nodes = (count.div_ceil(LOOKUPS_PER_NODE) + 16).min(MAX_OCCUPANCIES);
    let workload = loop {
        let workload = crate::workloads::search_order(seed, nodes);
        if workload.lookups.len() >= count || nodes >= MAX_OCCUPANCIES {
            break workload;
        }
        nodes = (2 * nodes).min(MAX_OCCUPANCIES);
    };
    let description = workload.description.as_bytes();
    let mut bytes = Vec::with_capacity(
        20 + description.len()
            + 16 * workload.occupancies.len()
            + 4 * workload.starts.len()
            + 2 * workload.lookups.len(),
    );
    bytes.extend_from_slice(WORKLOAD_MAGIC);
    for n in [
        workload.occupancies.len(),
        workload.lookups.len(),
        description.len(),
    ] {
        bytes.extend_from_slice(&(n as u32).to_le_bytes());
    }
    bytes.extend_from_slice(description);
    for occupancy in &workload.occupancies {
        bytes.extend_from_slice(&occupancy.to_le_bytes());
    }
    for start in &workload.starts {
        bytes.extend_from_slice(&start.to_le_bytes());
    }
    for &(slider, square) in &workload.lookups {
        let kind = Slider::ALL.iter().position(|&s| s == slider).unwrap_or(0);
        bytes.extend_from_slice(&[kind as u8, square.index() as u8]);
    }
    std::fs::write(path, bytes)
        .map_err(|e| format!("cannot write the E8 workload {}: {e}", path.display()))?;
    Ok(workload.description)
}

/// The inputs of a workload file written by [`write_search_workload`]: its lookups in node
/// order, cut (or cycled) to `count`, built with [`from_nodes`]. An error says what is wrong
/// with the file.
pub fn read_workload(path: &std::path::Path, count: usize) -> Result<Inputs, String> {
    let bytes = std::fs::read(path)
        .map_err(|e| format!("cannot read the workload {}: {e}", path.display()))?;
    let bad = |what: &str| format!("the workload {} is malformed: {what}", path.display());
    let mut rest = bytes
        .strip_prefix(&WORKLOAD_MAGIC[..])
        .ok_or_else(|| bad("no KIKIE8W1 header"))?;
    let mut take = |n: usize| -> Result<&[u8], String> {
        if rest.len() < n {
            return Err(bad("truncated"));
        }
        let (head, tail) = rest.split_at(n);
        rest = tail;
        Ok(head)
    };
    let mut header = [0usize; 3];
    for field in &mut header {
        *field = u32::from_le_bytes(take(4)?.try_into().unwrap_or_default()) as usize;
    }
    let [nodes, lookups, description_len] = header;
    if nodes > MAX_OCCUPANCIES {
        return Err(bad("more nodes than a packed input can name"));
    }
    let description = String::from_utf8(take(description_len)?.to_vec())
        .map_err(|_| bad("the description is not UTF-8"))?;
    let occupancies: Vec<u128> = take(16 * nodes)?
        .chunks_exact(16)
        .map(|c| u128::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect();
    let starts: Vec<u32> = take(4 * (nodes + 1))?
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect();
    let pairs = take(2 * lookups)?;
    if !rest.is_empty() {
        return Err(bad("trailing bytes"));
    }
    if occupancies.iter().any(|&o| o >> 81 != 0) {
        return Err(bad("an occupancy beyond square 81"));
    }
    if starts.first() != Some(&0)
        || starts.last().map(|&s| s as usize) != Some(lookups)
        || starts.windows(2).any(|w| w[0] > w[1])
    {
        return Err(bad("node starts out of order"));
    }
    let lookups = pairs
        .chunks_exact(2)
        .map(|p| {
            let slider = Slider::ALL.get(p[0] as usize).copied();
            match (slider, Square::new(p[1]).filter(|_| p[1] < 81)) {
                (Some(slider), Some(square)) => Ok((slider, square)),
                _ => Err(bad("a lookup's slider or square out of range")),
            }
        })
        .collect::<Result<Vec<_>, String>>()?;
    if lookups.is_empty() {
        return Err(bad("no lookups"));
    }
    Ok(from_nodes(
        &occupancies,
        &starts,
        &lookups,
        count,
        &description,
    ))
}

/// `count` lookups over [`OCCUPANCIES`] random occupancies (p = [`DENSITY`]) with uniform random
/// squares and slider kinds. The occupancies are drawn first, so the lookups of a shorter
/// stream are a prefix of a longer one's with the same seed.
pub fn uniform_inputs(count: usize, seed: u64) -> Inputs {
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
    let packed = (0..count)
        .map(|_| {
            let occupancy = rng.random_range(0..OCCUPANCIES);
            let square = Square::new(rng.random_range(0..81u8)).unwrap_or(FIRST_SQUARE);
            let slider = Slider::ALL[rng.random_range(0..Slider::ALL.len())];
            pack(occupancy, square, slider)
        })
        .collect();
    Inputs {
        occupancies,
        packed,
        description: format!(
            "lookups over {OCCUPANCIES} random occupancies (p = {DENSITY}), uniform random \
             squares and all six slider kinds"
        ),
    }
}

/// Inputs from a node-ordered workload (node `i`'s lookups are
/// `lookups[starts[i]..starts[i + 1]]`, all on `occupancies[i]`): the lookups in node order,
/// cycled or cut to `count`. Nodes beyond [`MAX_OCCUPANCIES`] are left out.
pub fn from_nodes(
    occupancies: &[u128],
    starts: &[u32],
    lookups: &[(Slider, Square)],
    count: usize,
    description: &str,
) -> Inputs {
    let nodes = occupancies
        .len()
        .min(starts.len().saturating_sub(1))
        .min(MAX_OCCUPANCIES);
    let mut stream = Vec::new();
    for node in 0..nodes {
        let (from, to) = (starts[node] as usize, starts[node + 1] as usize);
        for &(slider, square) in lookups.get(from..to).unwrap_or(&[]) {
            stream.push(pack(node, square, slider));
        }
    }
    let packed = if stream.is_empty() {
        Vec::new()
    } else {
        stream.iter().copied().cycle().take(count).collect()
    };
    Inputs {
        occupancies: occupancies[..nodes].to_vec(),
        packed,
        description: description.to_string(),
    }
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
        let (occupancy, square, slider) = unpack(input);
        let occupancy = &occupancies[occupancy % occupancies.len()];
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

/// The pressure variant's baseline: the same input stream and the identical evaluation reads
/// (same count, same indices, same buffer alignment), no lookup.
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

/// The alignment of an evaluation buffer of `bytes`: the next power of two at or above it. A
/// simulated cache's set index repeats every `bytes / ways` ≤ LL bytes, and the buffer is twice
/// the LL, so every run's buffer maps its reads to the same sets whatever the heap looked like.
pub fn eval_alignment(bytes: usize) -> usize {
    bytes.max(8).next_power_of_two()
}

/// Bytes allocated for an evaluation buffer of `bytes` (the buffer and its alignment slack).
pub fn eval_allocation(bytes: usize) -> usize {
    if bytes == 0 {
        0
    } else {
        bytes + eval_alignment(bytes)
    }
}

/// The evaluation buffer of the pressure variant: `bytes / 8` words starting at a multiple of
/// [`eval_alignment`], every page of it touched before measuring (the slack stays untouched).
pub struct EvalBuffer {
    storage: Vec<u64>,
    start: usize,
    len: usize,
}

impl EvalBuffer {
    pub fn new(bytes: usize) -> EvalBuffer {
        let len = bytes / 8;
        if len == 0 {
            return EvalBuffer {
                storage: Vec::new(),
                start: 0,
                len: 0,
            };
        }
        let align = eval_alignment(bytes);
        let mut storage = vec![0u64; len + align / 8];
        let address = storage.as_ptr() as usize;
        let start = (align - address % align) % align / 8;
        for (i, word) in storage[start..start + len].iter_mut().enumerate() {
            *word = i as u64;
        }
        EvalBuffer {
            storage,
            start,
            len,
        }
    }

    pub fn as_slice(&self) -> &[u64] {
        &self.storage[self.start..self.start + self.len]
    }
}

/// Runs the workload on one backend (tables built and inputs converted first), returning the
/// folded result as a canonical board so that the work cannot be optimised away.
pub struct WorkloadVisitor<'a> {
    /// Lookups measured: the first `lookups` of `generated`.
    pub lookups: usize,
    pub generated: &'a Inputs,
    /// Bytes of evaluation buffer read after every lookup (0: none).
    pub eval_bytes: usize,
}

impl BackendVisitor for WorkloadVisitor<'_> {
    type Output = u128;
    fn visit<B: Backend>(self, backend: B) -> u128 {
        let occupancies: Vec<B::Occupancy> = self
            .generated
            .occupancies
            .iter()
            .map(|&bits| backend.occupancy(bits))
            .collect();
        let eval = EvalBuffer::new(self.eval_bytes);
        let (folded, sum) = e8_measured_lookups(
            backend,
            &occupancies,
            std::hint::black_box(&self.generated.packed[..self.lookups]),
            std::hint::black_box(eval.as_slice()),
        );
        std::hint::black_box(folded).to_canonical() ^ std::hint::black_box(sum) as u128
    }
}

/// Runs the workload on the backend called `name` (or `EVAL_ALONE`: the evaluation reads of
/// `eval_bytes` alone, over the same inputs): the first `lookups` of `generated` measured
/// (at most all of them).
pub fn run_workload(
    name: &str,
    lookups: usize,
    generated: &Inputs,
    eval_bytes: usize,
) -> Result<u128, RegistryError> {
    let lookups = lookups.min(generated.packed.len());
    if name == EVAL_ALONE {
        let eval = EvalBuffer::new(eval_bytes.max(8));
        let sum = e8_measured_lookups_evaluation_alone(
            std::hint::black_box(&generated.packed[..lookups]),
            std::hint::black_box(eval.as_slice()),
        );
        return Ok(std::hint::black_box(sum) as u128);
    }
    // Any registered name, layout variants too (`kiki e8-workload --backend BASE.FACTOR`).
    registry::visit(
        name,
        WorkloadVisitor {
            lookups,
            generated,
            eval_bytes,
        },
    )
}
