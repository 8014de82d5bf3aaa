//! Callgrind's per-line output read into data-event counts per source file, each file placed in
//! one part of the program: the attack tables, the evaluation, the TT or the rest.
//!
//! **The attribution method.** Callgrind charges each instruction's events (its data reads and
//! writes and their simulated misses) to the source file and line the binary's line table gives
//! for the instruction's address. Inlined code keeps its own file there: callgrind switches
//! file inside a function with `fi=` and back with `fe=`, so a lookup inlined into the move
//! generator is charged to its backend's file, not to the move generator's. A miss belongs to
//! the part whose code issued the missing load or store:
//! - files in a backend's folder, `variants/<backend>/` (`variants/shared/` too): the attack
//!   tables, step tables included;
//! - `crates/engine/src/search/eval/` (and an `eval.rs` beside it): the evaluation;
//! - `crates/engine/src/search/tt.rs`: the TT;
//! - anything else (move generation, the position, the search itself, std, libc): other.
//!
//! So the split is by code, not by address: a table line the evaluation evicted counts as the
//! attack tables' miss when a lookup reads it again, and an evaluation line the tables evicted
//! as the evaluation's. A backend's inlined bitboard code reading the position's own words is
//! charged to the attack tables; the mailbox control (no tables) bounds what that costs. The
//! binary needs line tables (`-C debuginfo=line-tables-only`): without them callgrind names
//! every file `???`, which [`FileCounts::unknown_file_share`] measures.
//!
//! **Inlined std code.** The line table names only the innermost inlined file, so a load folded
//! into inlined std code would be charged to std: in a 2026-12-02 run (nnue, LL 1 MiB, an
//! optimised build) the NNUE weights' misses sat in `core/src/num/int_macros.rs` (about 2.0 of
//! 3.1 last-level misses per node) and the TT's `AtomicU64` loads in `core/src/sync/atomic.rs`
//! (about 0.9). So a cost line in a std file (the toolchain's `library/`) is charged to the last
//! file outside std in force in the same function (its `fl=` or an `fi=`/`fe=` before it, in
//! callgrind's address order), and [`FileCounts::from_std`] counts what was moved so. A std
//! function that is not inlined (no file outside std in force) keeps its own file: other. The
//! rule is a heuristic where a function inlines several workspace files: a std line is given to
//! the one whose code precedes it in the binary.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// The events E13 reads, per source file or in total. Signed, so that the difference of two
/// runs keeps its parts summing to its total even where one part's count shrank.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataEvents {
    pub ir: i64,
    pub dr: i64,
    pub dw: i64,
    pub d1mr: i64,
    pub d1mw: i64,
    pub dlmr: i64,
    pub dlmw: i64,
}

/// Callgrind's names of [`DataEvents`]' fields, in field order.
const EVENT_NAMES: [&str; 7] = ["Ir", "Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw"];

impl DataEvents {
    fn from_values(v: [i64; 7]) -> DataEvents {
        DataEvents {
            ir: v[0],
            dr: v[1],
            dw: v[2],
            d1mr: v[3],
            d1mw: v[4],
            dlmr: v[5],
            dlmw: v[6],
        }
    }

    fn values(&self) -> [i64; 7] {
        [
            self.ir, self.dr, self.dw, self.d1mr, self.d1mw, self.dlmr, self.dlmw,
        ]
    }

    fn zip(&self, other: &DataEvents, f: impl Fn(i64, i64) -> i64) -> DataEvents {
        let (a, b) = (self.values(), other.values());
        DataEvents::from_values(std::array::from_fn(|i| f(a[i], b[i])))
    }

    pub fn plus(&self, other: &DataEvents) -> DataEvents {
        self.zip(other, |a, b| a + b)
    }

    /// `self − earlier`, field by field.
    pub fn minus(&self, earlier: &DataEvents) -> DataEvents {
        self.zip(earlier, |a, b| a - b)
    }

    /// The largest difference between `self` and `other` in any one event count.
    pub fn largest_gap(&self, other: &DataEvents) -> i64 {
        self.minus(other)
            .values()
            .iter()
            .map(|gap| gap.abs())
            .max()
            .unwrap_or(0)
    }

    /// Data references: reads and writes.
    pub fn references(&self) -> i64 {
        self.dr + self.dw
    }

    /// First-level data misses, reads and writes.
    pub fn l1_misses(&self) -> i64 {
        self.d1mr + self.d1mw
    }

    /// Last-level data misses, reads and writes.
    pub fn ll_misses(&self) -> i64 {
        self.dlmr + self.dlmw
    }
}

/// The part of the program a source file's code belongs to (see the module's method).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Part {
    AttackTables,
    Eval,
    Tt,
    Other,
}

/// The folder every backend's own folder lies in.
const BACKENDS_FOLDER: &str = "variants/";
/// The evaluations' folder, and the file that would stand for it.
const EVAL_FOLDER: &str = "crates/engine/src/search/eval/";
const EVAL_FILE: &str = "crates/engine/src/search/eval.rs";
/// The transposition table's file.
const TT_FILE: &str = "crates/engine/src/search/tt.rs";

impl Part {
    pub const ALL: [Part; 4] = [Part::AttackTables, Part::Eval, Part::Tt, Part::Other];

    /// The summary's key for this part.
    pub const fn name(self) -> &'static str {
        match self {
            Part::AttackTables => "attack_tables",
            Part::Eval => "eval",
            Part::Tt => "tt",
            Part::Other => "other",
        }
    }

    /// The part of the file callgrind names `path` (absolute, or relative to the workspace).
    pub fn of_file(path: &str) -> Part {
        let path = path.replace('\\', "/");
        if is_file(&path, TT_FILE) {
            Part::Tt
        } else if lies_in(&path, EVAL_FOLDER) || is_file(&path, EVAL_FILE) {
            Part::Eval
        } else if in_a_backend_folder(&path) {
            Part::AttackTables
        } else {
            Part::Other
        }
    }
}

/// The workspace's page-buffer file: memory plumbing every part reads through (the evaluation's
/// weights, the TT, tables built on pages), so its inlined accessors are charged as std's are.
const PAGE_BUFFER_FILE: &str = "crates/core/src/pages.rs";

/// Whether code in `path` is charged to the file that hosts it ([`is_std`], or the page buffer).
fn passes_through(path: &str) -> bool {
    is_std(path) || is_file(&path.replace('\\', "/"), PAGE_BUFFER_FILE)
}

/// Whether `path` is a file of the toolchain's standard library (`core`, `alloc`, `std`: under
/// `library/`, as the toolchain's line tables name them, `/rustc/<commit>/library/…`).
fn is_std(path: &str) -> bool {
    let path = path.replace('\\', "/");
    ["core", "alloc", "std"]
        .iter()
        .any(|krate| lies_in(&path, &format!("library/{krate}/")))
}

/// Whether `path` is the workspace file `file` (`file` itself, or a path ending in `/file`).
fn is_file(path: &str, file: &str) -> bool {
    path == file || path.ends_with(&format!("/{file}"))
}

/// Whether `path` lies in the workspace folder `folder` (written with its trailing slash).
fn lies_in(path: &str, folder: &str) -> bool {
    path.starts_with(folder) || path.contains(&format!("/{folder}"))
}

/// Whether `path` lies in a folder of its own under [`BACKENDS_FOLDER`]: `variants/dbb/mod.rs`
/// does, `variants/registry.rs` (the dispatch, no backend's code) does not.
fn in_a_backend_folder(path: &str) -> bool {
    let rest = path.strip_prefix(BACKENDS_FOLDER).or_else(|| {
        path.rfind(&format!("/{BACKENDS_FOLDER}"))
            .map(|at| &path[at + 1 + BACKENDS_FOLDER.len()..])
    });
    rest.is_some_and(|rest| rest.contains('/'))
}

/// Counts per part, in [`Part::ALL`]'s order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PartCounts {
    parts: [DataEvents; 4],
}

impl PartCounts {
    pub fn get(&self, part: Part) -> DataEvents {
        self.parts[part as usize]
    }

    /// Every part's counts added up: the run's total.
    pub fn sum(&self) -> DataEvents {
        self.parts
            .iter()
            .fold(DataEvents::default(), |sum, part| sum.plus(part))
    }
}

/// The file name callgrind gives code it has no line table for.
pub const UNKNOWN_FILE: &str = "???";

/// One callgrind run's counts per source file, and callgrind's own totals of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileCounts {
    pub by_file: BTreeMap<String, DataEvents>,
    pub totals: DataEvents,
    /// What inlined std code issued, charged to the workspace file it was inlined into (in
    /// `by_file` too).
    pub from_std: DataEvents,
}

impl FileCounts {
    /// The counts summed per [`Part`].
    pub fn by_part(&self) -> PartCounts {
        let mut counts = PartCounts::default();
        for (file, events) in &self.by_file {
            let slot = &mut counts.parts[Part::of_file(file) as usize];
            *slot = slot.plus(events);
        }
        counts
    }

    /// `self − earlier`, file by file (a file only one of them has counts as zero in the other).
    pub fn minus(&self, earlier: &FileCounts) -> FileCounts {
        let mut by_file = self.by_file.clone();
        for (file, events) in &earlier.by_file {
            let slot = by_file.entry(file.clone()).or_default();
            *slot = slot.minus(events);
        }
        FileCounts {
            by_file,
            totals: self.totals.minus(&earlier.totals),
            from_std: self.from_std.minus(&earlier.from_std),
        }
    }

    /// The share of the instructions charged to files callgrind could not name (no line table
    /// for them): near 1 for a binary built without line tables, where the split means nothing.
    pub fn unknown_file_share(&self) -> f64 {
        let unknown = self
            .by_file
            .iter()
            .filter(|(file, _)| file.starts_with(UNKNOWN_FILE) || file.ends_with("/???"))
            .map(|(_, events)| events.ir)
            .sum::<i64>();
        unknown as f64 / self.totals.ir.max(1) as f64
    }
}

/// Reads a callgrind out file written with `--dump-line=yes` (the default) and
/// `--cache-sim=yes`: every cost line's events added to the source file in force at that line
/// (the last `fl=`, `fi=` or `fe=`; a new `fn=` returns to its `fl=`), the inclusive cost of
/// each call (the line after `calls=`) left out as callgrind's own totals leave it out. An error
/// where a line cannot be read or the files' counts do not add up to callgrind's totals.
pub fn parse_per_file(text: &str) -> Result<FileCounts, String> {
    let mut reader = Reader::default();
    for (index, line) in text.lines().enumerate() {
        reader
            .line(line)
            .map_err(|e| format!("callgrind output, line {}: {e}", index + 1))?;
    }
    reader.finish()
}

/// The state of reading a callgrind out file, line by line.
#[derive(Default)]
struct Reader {
    /// Per field of [`DataEvents`], its column among the events (`None` before `events:`).
    columns: Option<[usize; 7]>,
    /// Position columns ahead of the events on a cost line (`positions:`; 1 by default).
    positions: Option<usize>,
    /// Compressed file names: `(id)` → name.
    files: HashMap<u64, String>,
    /// The function's file (the last `fl=`) and the file cost lines are charged to now.
    function_file: String,
    current_file: String,
    /// The last file outside std in force in this function, where std lines are charged.
    host_file: Option<String>,
    from_std: DataEvents,
    /// The next cost line is a call's inclusive cost.
    call_cost_next: bool,
    by_file: BTreeMap<String, DataEvents>,
    /// `totals:` summed over the file's parts, and `summary:` where there is no `totals:`.
    totals: Option<DataEvents>,
    summary: Option<DataEvents>,
}

impl Reader {
    fn line(&mut self, line: &str) -> Result<(), String> {
        let line = line.trim_end();
        let Some(first) = line.chars().next() else {
            return Ok(());
        };
        if first == '#' {
            return Ok(());
        }
        if first.is_ascii_digit() || matches!(first, '+' | '-' | '*') {
            return self.cost_line(line);
        }
        let key_end = line
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(line.len());
        let (key, rest) = line.split_at(key_end);
        if let Some(value) = rest.strip_prefix('=') {
            self.specification(key, value)
        } else if let Some(value) = rest.strip_prefix(':') {
            self.header(key, value.trim())
        } else {
            Err(format!("cannot read '{line}'"))
        }
    }

    /// A `key=value` line: files, functions and calls.
    fn specification(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "fl" => {
                let file = self.file_name(value)?;
                self.function_file = file.clone();
                self.host_file = None;
                self.enter(file);
            }
            "fi" | "fe" => {
                let file = self.file_name(value)?;
                self.enter(file);
            }
            // Files named for a call's or a jump's target: only their ids are recorded.
            "cfi" | "cfl" | "jfi" => {
                self.file_name(value)?;
            }
            "fn" => {
                self.host_file = None;
                self.enter(self.function_file.clone());
            }
            "calls" => self.call_cost_next = true,
            _ => {}
        }
        Ok(())
    }

    /// Cost lines from here on are `file`'s; a file outside std is also the host of the std
    /// lines after it in this function.
    fn enter(&mut self, file: String) {
        if !passes_through(&file) {
            self.host_file = Some(file.clone());
        }
        self.current_file = file;
    }

    /// A file's name from `(id) name`, `(id)` or a plain name, recording a new id.
    fn file_name(&mut self, value: &str) -> Result<String, String> {
        let value = value.trim();
        let Some(compressed) = value.strip_prefix('(') else {
            return Ok(value.to_string());
        };
        let (id, name) = compressed
            .split_once(')')
            .ok_or_else(|| format!("a file id without ')' in '{value}'"))?;
        let id: u64 = id
            .parse()
            .map_err(|_| format!("a file id that is not a number in '{value}'"))?;
        let name = name.trim();
        if name.is_empty() {
            // Callgrind 3.19 can refer to an id it never named in this dump (seen for a std
            // file in the synthetic walk's output): such code is charged to an unnamed file,
            // whose part is other and whose share `unknown_file_share` counts.
            Ok(self
                .files
                .get(&id)
                .cloned()
                .unwrap_or_else(|| format!("{UNKNOWN_FILE} (file id {id}, never named)")))
        } else {
            self.files.insert(id, name.to_string());
            Ok(name.to_string())
        }
    }

    /// A `key: value` header line: the events, the positions, the totals.
    fn header(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "events" => {
                let names: Vec<&str> = value.split_whitespace().collect();
                let mut columns = [0; 7];
                for (column, wanted) in columns.iter_mut().zip(EVENT_NAMES) {
                    *column = names
                        .iter()
                        .position(|n| *n == wanted)
                        .ok_or_else(|| format!("no {wanted} event (was --cache-sim=yes given?)"))?;
                }
                self.columns = Some(columns);
            }
            "positions" => self.positions = Some(value.split_whitespace().count()),
            "totals" => {
                let totals = self.events_of(value.split_whitespace())?;
                self.totals = Some(self.totals.unwrap_or_default().plus(&totals));
            }
            "summary" => self.summary = Some(self.events_of(value.split_whitespace())?),
            _ => {}
        }
        Ok(())
    }

    /// Events from a line's numbers after its positions (trailing zero counts may be left out).
    fn events_of<'a>(&self, numbers: impl Iterator<Item = &'a str>) -> Result<DataEvents, String> {
        let columns = self.columns.ok_or("costs before the events: line")?;
        // Read as two's complement: after a zero-stats request callgrind's `summary:` line
        // holds the costs before it subtracted wrongly (huge numbers that are negative ones);
        // the `totals:` line, which is read in its place, is right.
        let values: Vec<i64> = numbers
            .map(|n| {
                n.parse::<u64>()
                    .map(|n| n as i64)
                    .map_err(|_| format!("'{n}' is not a count"))
            })
            .collect::<Result<_, _>>()?;
        let value = |column: usize| values.get(column).copied().unwrap_or(0);
        Ok(DataEvents::from_values(columns.map(value)))
    }

    fn cost_line(&mut self, line: &str) -> Result<(), String> {
        let positions = self.positions.unwrap_or(1);
        let mut words = line.split_whitespace();
        for _ in 0..positions {
            words
                .next()
                .ok_or_else(|| format!("a cost line without its positions: '{line}'"))?;
        }
        let events = self.events_of(words)?;
        if std::mem::take(&mut self.call_cost_next) {
            // A call's inclusive cost: the callee's own lines carry it already.
            return Ok(());
        }
        let charged = match &self.host_file {
            Some(host) if passes_through(&self.current_file) => {
                self.from_std = self.from_std.plus(&events);
                host.clone()
            }
            _ => self.current_file.clone(),
        };
        let slot = self.by_file.entry(charged).or_default();
        *slot = slot.plus(&events);
        Ok(())
    }

    fn finish(self) -> Result<FileCounts, String> {
        let totals = self
            .totals
            .or(self.summary)
            .ok_or("callgrind output has no 'totals:' or 'summary:' line")?;
        let counts = FileCounts {
            by_file: self.by_file,
            totals,
            from_std: self.from_std,
        };
        let summed = counts.by_part().sum();
        if summed != totals {
            return Err(format!(
                "the source files' counts ({summed:?}) do not add up to callgrind's totals \
                 ({totals:?})"
            ));
        }
        Ok(counts)
    }
}
