//! E8's workload: the lookups valgrind simulates (and `benches/cache_sim.rs` runs), run by the
//! hidden `kiki e8-workload` command a chunk at a time from an [`InputStream`].

use crate::registry;
use crate::workloads::eval_index;
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::types::{Slider, Square};
use kiki_variants::registry::{BackendVisitor, RegistryError};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The workload's seed: the same inputs for every backend and every run.
pub const WORKLOAD_SEED: u64 = 0x6538_6538;
/// Distinct occupancies the uniform lookups cycle through (small, so that the inputs
/// themselves stay in L1 and the misses counted are the tables').
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

/// The workload's `count` lookup inputs in memory, the uniform ones: the gungraun bench's
/// (`benches/cache_sim.rs`), which measures them in one call. The `e8-workload` child never
/// holds its inputs in memory; it reads them a chunk at a time from an [`InputStream`], which
/// gives the same lookups (see [`InputStream::uniform`]).
pub fn inputs(count: usize, seed: u64) -> Inputs {
    uniform_inputs(count, seed)
}

/// Lookups the collected function runs per call. Between calls, outside it (collection is off
/// but valgrind still simulates the caches), the child reads the next chunk's inputs into the
/// same small buffers: so the inputs' footprint in the simulated caches is those buffers, the
/// same at every lookup count, as an engine's position stays in its L1. A multiple of it is
/// measured exactly (E8's counts are), so the two runs of a pair split their chunks alike.
pub const CHUNK_LOOKUPS: usize = 100;
/// Bytes of the buffer a workload file is read through (with `read(2)`, whose copies into it
/// valgrind does not simulate; the buffer's own lines are reread and stay cached).
pub const READ_BUFFER: usize = 256;

/// Lookups per node of the search-order workload, rounded down (it averages about 7.9), so
/// that the nodes generated cover the lookups asked for.
const LOOKUPS_PER_NODE: usize = 7;
/// The workload file's first bytes.
const WORKLOAD_MAGIC: &[u8; 8] = b"KIKIE8W2";
/// Bytes of the file's header before the description: magic, nodes, lookups, description bytes.
const HEADER_BYTES: u64 = 8 + 3 * 4;

/// Generates the search-order workload ([`search_order`](crate::workloads::search_order))
/// with enough nodes for `count` lookups and writes it to `path` for the `e8-workload`
/// children ([`write_nodes`]); returns its description.
pub fn write_search_workload(
    path: &std::path::Path,
    count: usize,
    seed: u64,
) -> Result<String, String> {
    let mut nodes = count.div_ceil(LOOKUPS_PER_NODE) + 16;
    let workload = loop {
        let workload = crate::workloads::search_order(seed, nodes);
        // The walk stops short of `nodes` only when its games run out.
        if workload.lookups.len() >= count || workload.nodes() < nodes {
            break workload;
        }
        nodes *= 2;
    };
    write_nodes(
        path,
        &workload.occupancies,
        &workload.starts,
        &workload.lookups,
        &workload.description,
    )?;
    Ok(workload.description)
}

/// Writes a node-ordered workload (node `i`'s lookups are `lookups[starts[i]..starts[i + 1]]`,
/// all on `occupancies[i]`) in the file format [`InputStream::open`] reads. Little-endian: the
/// magic `KIKIE8W2`; nodes, lookups and description bytes as `u32`; the description (UTF-8);
/// then per node its occupancy (`u128`), its number of lookups (one byte) and per lookup the
/// slider's index in [`Slider::ALL`] and the square (one byte each) — node after node, so that
/// a reader needs no more of the file at a time than its buffer.
pub fn write_nodes(
    path: &std::path::Path,
    occupancies: &[u128],
    starts: &[u32],
    lookups: &[(Slider, Square)],
    description: &str,
) -> Result<(), String> {
    let nodes = occupancies.len().min(starts.len().saturating_sub(1));
    let mut body = Vec::with_capacity(17 * nodes + 2 * lookups.len());
    let mut written = 0usize;
    for node in 0..nodes {
        let (from, to) = (starts[node] as usize, starts[node + 1] as usize);
        let mine = lookups.get(from..to).unwrap_or(&[]);
        let count = u8::try_from(mine.len())
            .map_err(|_| format!("node {node} has {} lookups, more than 255", mine.len()))?;
        body.extend_from_slice(&occupancies[node].to_le_bytes());
        body.push(count);
        for &(slider, square) in mine {
            let kind = Slider::ALL.iter().position(|&s| s == slider).unwrap_or(0);
            body.extend_from_slice(&[kind as u8, square.index() as u8]);
        }
        written += mine.len();
    }
    let too_many = |what: &str| format!("the workload has too many {what} for its file format");
    let mut bytes = Vec::with_capacity(HEADER_BYTES as usize + description.len() + body.len());
    bytes.extend_from_slice(WORKLOAD_MAGIC);
    for (n, what) in [
        (nodes, "nodes"),
        (written, "lookups"),
        (description.len(), "description bytes"),
    ] {
        let n = u32::try_from(n).map_err(|_| too_many(what))?;
        bytes.extend_from_slice(&n.to_le_bytes());
    }
    bytes.extend_from_slice(description.as_bytes());
    bytes.extend_from_slice(&body);
    std::fs::write(path, bytes)
        .map_err(|e| format!("cannot write the E8 workload {}: {e}", path.display()))
}

/// `count` lookups over [`OCCUPANCIES`] random occupancies (p = [`DENSITY`]) with uniform random
/// squares and slider kinds. The occupancies are drawn first, so the lookups of a shorter
/// stream are a prefix of a longer one's with the same seed.
pub fn uniform_inputs(count: usize, seed: u64) -> Inputs {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let occupancies = uniform_occupancies(&mut rng);
    let packed = (0..count).map(|_| uniform_lookup(&mut rng)).collect();
    Inputs {
        occupancies,
        packed,
        description: uniform_description(),
    }
}

fn uniform_description() -> String {
    format!(
        "lookups over {OCCUPANCIES} random occupancies (p = {DENSITY}), uniform random squares \
         and all six slider kinds"
    )
}

/// The uniform workload's occupancies, the generator's first draws.
fn uniform_occupancies(rng: &mut Xoshiro256PlusPlus) -> Vec<u128> {
    (0..OCCUPANCIES)
        .map(|_| {
            (0..81).fold(0u128, |bits, sq| {
                if rng.random_bool(DENSITY) {
                    bits | 1 << sq
                } else {
                    bits
                }
            })
        })
        .collect()
}

/// The uniform workload's next lookup, packed.
fn uniform_lookup(rng: &mut Xoshiro256PlusPlus) -> u32 {
    let occupancy = rng.random_range(0..OCCUPANCIES);
    let square = Square::new(rng.random_range(0..81u8)).unwrap_or(FIRST_SQUARE);
    let slider = Slider::ALL[rng.random_range(0..Slider::ALL.len())];
    pack(occupancy, square, slider)
}

/// Where a run's lookups come from, a chunk at a time ([`InputStream::fill`]), never all in
/// memory: the uniform generator, or a workload file read through a [`READ_BUFFER`]-byte
/// buffer. The lookups are the same however many are taken, so a shorter run's are a longer
/// run's first ones.
pub struct InputStream {
    source: Source,
    description: String,
}

enum Source {
    Uniform {
        rng: Box<Xoshiro256PlusPlus>,
        occupancies: Vec<u128>,
        /// Whether `fill` has handed the occupancies out (they never change).
        handed: bool,
    },
    File(Box<FileSource>),
}

/// A workload file being read: the node being handed out, and where the nodes start (read
/// again from there once all are read, so that more lookups than the file holds cycle it).
struct FileSource {
    reader: std::io::BufReader<std::fs::File>,
    path: std::path::PathBuf,
    first_node: u64,
    nodes: usize,
    read: usize,
    occupancy: u128,
    lookups: Vec<(Slider, Square)>,
    next: usize,
    /// Lookups read since the first node: a pass over every node without one is an error,
    /// not an endless loop.
    passed: usize,
}

impl FileSource {
    fn bad(&self, what: &str) -> String {
        malformed(&self.path, what)
    }

    fn exact(&mut self, buffer: &mut [u8]) -> Result<(), String> {
        use std::io::Read;
        self.reader.read_exact(buffer).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => self.bad("truncated"),
            _ => format!("cannot read the workload {}: {e}", self.path.display()),
        })
    }

    /// Reads the next node (after the last, the first again), checking it.
    fn next_node(&mut self) -> Result<(), String> {
        use std::io::Seek;
        if self.read == self.nodes {
            if self.read > 0 && self.passed == 0 {
                return Err(self.bad("no node has a lookup"));
            }
            self.passed = 0;
            self.reader
                .seek(std::io::SeekFrom::Start(self.first_node))
                .map_err(|e| format!("cannot read the workload {}: {e}", self.path.display()))?;
            self.read = 0;
        }
        let mut occupancy = [0u8; 16];
        self.exact(&mut occupancy)?;
        self.occupancy = u128::from_le_bytes(occupancy);
        if self.occupancy >> 81 != 0 {
            return Err(self.bad("an occupancy beyond square 81"));
        }
        let mut count = [0u8; 1];
        self.exact(&mut count)?;
        let mut pairs = [0u8; 2 * 255];
        let pairs = &mut pairs[..2 * count[0] as usize];
        self.exact(pairs)?;
        self.lookups.clear();
        for pair in pairs.chunks_exact(2) {
            let slider = Slider::ALL.get(pair[0] as usize).copied();
            match (slider, Square::new(pair[1]).filter(|_| pair[1] < 81)) {
                (Some(slider), Some(square)) => self.lookups.push((slider, square)),
                _ => return Err(self.bad("a lookup's slider or square out of range")),
            }
        }
        self.next = 0;
        self.read += 1;
        self.passed += self.lookups.len();
        Ok(())
    }
}

fn malformed(path: &std::path::Path, what: &str) -> String {
    format!("the workload {} is malformed: {what}", path.display())
}

impl InputStream {
    /// The uniform workload of `seed`: the lookups [`inputs`] gives for the same seed, in the
    /// same order, drawn a chunk at a time.
    pub fn uniform(seed: u64) -> InputStream {
        let mut rng = Box::new(Xoshiro256PlusPlus::seed_from_u64(seed));
        let occupancies = uniform_occupancies(&mut rng);
        InputStream {
            source: Source::Uniform {
                rng,
                occupancies,
                handed: false,
            },
            description: uniform_description(),
        }
    }

    /// A workload file written by [`write_nodes`], handed out from its first node through a
    /// [`READ_BUFFER`] buffer. Its header is checked against its size here (an error says what
    /// is wrong with it); each node is checked as it is read, so that the file is read once
    /// (under valgrind a second pass would cost as much as the reading).
    pub fn open(path: &std::path::Path) -> Result<InputStream, String> {
        let file = std::fs::File::open(path)
            .map_err(|e| format!("cannot read the workload {}: {e}", path.display()))?;
        let size = file
            .metadata()
            .map_err(|e| format!("cannot read the workload {}: {e}", path.display()))?
            .len();
        let mut source = FileSource {
            reader: std::io::BufReader::with_capacity(READ_BUFFER, file),
            path: path.to_path_buf(),
            first_node: 0,
            nodes: 0,
            read: 0,
            occupancy: 0,
            lookups: Vec::with_capacity(255),
            next: 0,
            passed: 0,
        };
        let mut magic = [0u8; 8];
        source.exact(&mut magic)?;
        if &magic != WORKLOAD_MAGIC {
            return Err(source.bad("no KIKIE8W2 header"));
        }
        let mut header = [0u64; 3];
        for field in &mut header {
            let mut word = [0u8; 4];
            source.exact(&mut word)?;
            *field = u32::from_le_bytes(word) as u64;
        }
        let [nodes, lookups, description_len] = header;
        // Per node its occupancy and its count, per lookup two bytes.
        let expected = HEADER_BYTES + description_len + 17 * nodes + 2 * lookups;
        if size < expected {
            return Err(source.bad("truncated"));
        }
        if size > expected {
            return Err(source.bad("trailing bytes"));
        }
        if lookups == 0 {
            return Err(source.bad("no lookups"));
        }
        let mut description = vec![0u8; description_len as usize];
        source.exact(&mut description)?;
        let description = String::from_utf8(description)
            .map_err(|_| source.bad("the description is not UTF-8"))?;
        source.first_node = HEADER_BYTES + description_len;
        source.nodes = nodes as usize;
        Ok(InputStream {
            source: Source::File(Box::new(source)),
            description,
        })
    }

    /// What the lookups are, for the method.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The next `count` lookups (at most [`CHUNK_LOOKUPS`]) into `packed`, naming their
    /// occupancies by index in `occupancies`, each converted from the canonical one by
    /// `convert`. A file's chunk gets its own occupancies, one per node with a lookup in the
    /// chunk (a node split between chunks is in both); the uniform stream's occupancies are the
    /// same every chunk, converted at the first only.
    pub fn fill<O>(
        &mut self,
        count: usize,
        packed: &mut Vec<u32>,
        occupancies: &mut Vec<O>,
        convert: impl Fn(u128) -> O,
    ) -> Result<(), String> {
        let count = count.min(CHUNK_LOOKUPS);
        packed.clear();
        match &mut self.source {
            Source::Uniform {
                rng,
                occupancies: canonical,
                handed,
            } => {
                if !*handed {
                    occupancies.clear();
                    occupancies.extend(canonical.iter().map(|&bits| convert(bits)));
                    *handed = true;
                }
                packed.extend((0..count).map(|_| uniform_lookup(rng)));
            }
            Source::File(file) => {
                occupancies.clear();
                let mut slot = None;
                while packed.len() < count {
                    if file.next == file.lookups.len() {
                        file.next_node()?;
                        slot = None;
                        continue;
                    }
                    let slot = *slot.get_or_insert_with(|| {
                        occupancies.push(convert(file.occupancy));
                        occupancies.len() - 1
                    });
                    let (slider, square) = file.lookups[file.next];
                    packed.push(pack(slot, square, slider));
                    file.next += 1;
                }
            }
        }
        Ok(())
    }
}

/// The measured region of the lookups alone: every lookup's attacks folded into one
/// bitboard. Never inlined, so valgrind can switch collection on and off at its entry and exit;
/// nothing but the lookups in its loop (the pressure variant is a function of its own, so that
/// its evaluation reads leave this loop's code as it is).
#[inline(never)]
pub fn e8_measured_lookups<B: Backend>(
    backend: B,
    occupancies: &[B::Occupancy],
    packed: &[u32],
) -> B::Bitboard {
    let mut folded = B::Bitboard::empty();
    for &input in packed {
        let (occupancy, square, slider) = unpack(input);
        let occupancy = &occupancies[occupancy % occupancies.len()];
        folded ^= backend.slider_attacks(slider, occupancy, square);
    }
    folded
}

/// The pressure variant's measured region: the lookups of [`e8_measured_lookups`] with
/// `EVAL_READS` evaluation reads after each, summed; `first` is the number of lookups measured
/// before this chunk (which reads come next). Its name holds `e8_measured_lookups`, so the
/// same toggle collects it.
#[inline(never)]
pub fn e8_measured_lookups_under_pressure<B: Backend>(
    backend: B,
    occupancies: &[B::Occupancy],
    packed: &[u32],
    eval: &[u64],
    first: u64,
) -> (B::Bitboard, u64) {
    let mut folded = B::Bitboard::empty();
    let mut sum = 0u64;
    let mut reads = first.wrapping_mul(EVAL_READS as u64);
    for &input in packed {
        let (occupancy, square, slider) = unpack(input);
        let occupancy = &occupancies[occupancy % occupancies.len()];
        folded ^= backend.slider_attacks(slider, occupancy, square);
        for _ in 0..EVAL_READS {
            sum = sum.wrapping_add(eval[eval_index(reads, eval.len())]);
            reads += 1;
        }
    }
    (folded, sum)
}

/// The pressure variant's baseline: the same input stream and the identical evaluation reads
/// (same count, same indices, same buffer alignment), no lookup.
#[inline(never)]
pub fn e8_measured_lookups_evaluation_alone(packed: &[u32], eval: &[u64], first: u64) -> u64 {
    let mut sum = 0u64;
    let mut reads = first.wrapping_mul(EVAL_READS as u64);
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

/// Runs the workload on one backend (tables built first), a chunk at a time, returning the
/// folded result as a canonical board so that the work cannot be optimised away.
pub struct WorkloadVisitor<'a> {
    /// Lookups measured: the stream's next `lookups`.
    pub lookups: usize,
    pub stream: &'a mut InputStream,
    /// Bytes of evaluation buffer read after every lookup (0: none).
    pub eval_bytes: usize,
}

impl BackendVisitor for WorkloadVisitor<'_> {
    type Output = Result<u128, String>;
    fn visit<B: Backend>(self, backend: B) -> Result<u128, String> {
        let eval = EvalBuffer::new(self.eval_bytes);
        let mut packed = Vec::with_capacity(CHUNK_LOOKUPS);
        let mut occupancies: Vec<B::Occupancy> = Vec::with_capacity(CHUNK_LOOKUPS.max(OCCUPANCIES));
        let mut folded = B::Bitboard::empty();
        let mut sum = 0u64;
        let mut done = 0;
        while done < self.lookups {
            // Outside the collected function: the next chunk into the same buffers.
            let want = (self.lookups - done).min(CHUNK_LOOKUPS);
            self.stream
                .fill(want, &mut packed, &mut occupancies, |bits| {
                    backend.occupancy(bits)
                })?;
            let packed = std::hint::black_box(&packed);
            if eval.as_slice().is_empty() {
                folded ^= e8_measured_lookups(backend, &occupancies, packed);
            } else {
                let (chunk, chunk_sum) = e8_measured_lookups_under_pressure(
                    backend,
                    &occupancies,
                    packed,
                    std::hint::black_box(eval.as_slice()),
                    done as u64,
                );
                folded ^= chunk;
                sum = sum.wrapping_add(chunk_sum);
            }
            done += packed.len();
        }
        Ok(std::hint::black_box(folded).to_canonical() ^ std::hint::black_box(sum) as u128)
    }
}

/// Runs the workload on the backend called `name` (or `EVAL_ALONE`: the evaluation reads of
/// `eval_bytes` alone, over the same inputs): the stream's next `lookups` measured, a chunk
/// of [`CHUNK_LOOKUPS`] at a time. The outer error is the registry's; the inner one the
/// stream's (a workload file that cannot be read).
pub fn run_workload(
    name: &str,
    lookups: usize,
    stream: &mut InputStream,
    eval_bytes: usize,
) -> Result<Result<u128, String>, RegistryError> {
    if name == EVAL_ALONE {
        let eval = EvalBuffer::new(eval_bytes.max(8));
        let mut packed = Vec::with_capacity(CHUNK_LOOKUPS);
        let mut occupancies: Vec<u128> = Vec::with_capacity(CHUNK_LOOKUPS.max(OCCUPANCIES));
        let mut sum = 0u64;
        let mut done = 0;
        while done < lookups {
            let want = (lookups - done).min(CHUNK_LOOKUPS);
            if let Err(e) = stream.fill(want, &mut packed, &mut occupancies, |bits| bits) {
                return Ok(Err(e));
            }
            sum = sum.wrapping_add(e8_measured_lookups_evaluation_alone(
                std::hint::black_box(&packed),
                std::hint::black_box(eval.as_slice()),
                done as u64,
            ));
            done += packed.len();
        }
        return Ok(Ok(std::hint::black_box(sum) as u128));
    }
    // Any registered name, layout variants too (`kiki e8-workload --backend BASE.FACTOR`).
    registry::visit(
        name,
        WorkloadVisitor {
            lookups,
            stream,
            eval_bytes,
        },
    )
}
