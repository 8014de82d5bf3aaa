//! E13's tests: the per-file reading of a hand-written callgrind output, the parts' split and
//! sums, the command line, and (where valgrind runs) one real simulated search.

use super::*;
use kiki_engine::search::eval::EvalKind;

/// A callgrind output as callgrind writes one (`positions: line`, compressed names, trailing zero
/// counts left out), with an inlined backend lookup (`fi=`/`fe=`), a call whose inclusive cost
/// must not count, a new function in the same `fl=` after an `fi=` without `fe=`, std code
/// inlined into the evaluation, a std function of its own and a libc function without line
/// tables.
const HAND_WRITTEN: &str = "\
# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  /work/e13/target/debug/kiki e13-workload --backend magic-plain
part: 1

desc: I1 cache: 32768 B, 64 B, 8-way associative
desc: D1 cache: 32768 B, 64 B, 8-way associative
desc: LL cache: 4194304 B, 64 B, 16-way associative

desc: Timerange: Basic block 0 - 1000
desc: Trigger: Program termination

positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
summary: 339 124 36 0 43 15 0 32 9


ob=(1) /work/e13/target/debug/kiki
fl=(1) /work/e13/crates/engine/src/movegen/mod.rs
fn=(1) kiki_engine::movegen::legal_moves
10 100 30 5 0 2 1 0 1
fi=(2) /work/e13/variants/magic_plain/mod.rs
200 40 20 0 0 8 0 0 6
+1 10 5
fe=(1)
12 20 4 2
cfl=(3) /work/e13/crates/engine/src/search/tt.rs
cfn=(2) kiki_engine::search::tt::TranspositionTable::probe
calls=3 50
12 999 999 999 0 999 999 0 999 999

fl=(3)
fn=(2)
50 60 16 8 0 12 4 0 10 3

fl=(4) /work/e13/crates/engine/src/search/eval/nnue.rs
fn=(3) kiki_engine::search::eval::nnue::NnueState::update
30 80 40 16 0 20 8 0 15 5
fi=(5) /rustc/0123abcd/library/core/src/slice/mod.rs
900 10 5 0 0 1
fn=(4) kiki_engine::search::eval::nnue::NnueState::refresh
-870 7 3 1
fl=(7) /rustc/0123abcd/library/core/src/ptr/mod.rs
fn=(6) core::ptr::drop_in_place
1 3 1
ob=(2) /usr/lib/x86_64-linux-gnu/libc.so.6
fl=(6) ???
fn=(5) memset
0 9 0 4 0 0 2 0 0 1

totals: 339 124 36 0 43 15 0 32 9
";

fn events(ir: i64, dr: i64, dw: i64, misses: [i64; 4]) -> DataEvents {
    let [d1mr, d1mw, dlmr, dlmw] = misses;
    DataEvents {
        ir,
        dr,
        dw,
        d1mr,
        d1mw,
        dlmr,
        dlmw,
    }
}

#[test]
fn e13_parser_charges_each_line_to_its_file_inlined_lines_to_theirs() {
    let counts = parse_per_file(HAND_WRITTEN).expect("the hand-written output reads");
    let file = |name: &str| counts.by_file.get(name).copied().unwrap_or_default();
    // The inlined lookup's two lines, in the backend's file, not in movegen's.
    assert_eq!(
        file("/work/e13/variants/magic_plain/mod.rs"),
        events(50, 25, 0, [8, 0, 6, 0])
    );
    // Movegen's own lines, before the `fi=` and after the `fe=`; the call's 999s left out.
    assert_eq!(
        file("/work/e13/crates/engine/src/movegen/mod.rs"),
        events(120, 34, 7, [2, 1, 1, 0])
    );
    // `refresh` starts in `fl=(4)`'s file although `fi=(5)` was the last switch, and the std
    // line inlined into `update` is charged to the evaluation's file it was inlined into.
    assert_eq!(
        file("/work/e13/crates/engine/src/search/eval/nnue.rs"),
        events(97, 48, 17, [21, 8, 15, 5])
    );
    assert_eq!(
        file("/rustc/0123abcd/library/core/src/slice/mod.rs"),
        DataEvents::default()
    );
    assert_eq!(counts.from_std, events(10, 5, 0, [1, 0, 0, 0]));
    // A std function that nothing inlined keeps its own file.
    assert_eq!(
        file("/rustc/0123abcd/library/core/src/ptr/mod.rs"),
        events(3, 1, 0, [0, 0, 0, 0])
    );
    assert_eq!(file(UNKNOWN_FILE), events(9, 0, 4, [0, 2, 0, 1]));
    assert_eq!(counts.totals, events(339, 124, 36, [43, 15, 32, 9]));
    assert!((counts.unknown_file_share() - 9.0 / 339.0).abs() < 1e-12);
}

#[test]
fn e13_parts_sum_to_the_total() {
    let counts = parse_per_file(HAND_WRITTEN).expect("the hand-written output reads");
    let parts = counts.by_part();
    assert_eq!(parts.sum(), counts.totals);
    assert_eq!(
        parts.get(Part::AttackTables),
        events(50, 25, 0, [8, 0, 6, 0])
    );
    assert_eq!(parts.get(Part::Eval), events(97, 48, 17, [21, 8, 15, 5]));
    assert_eq!(parts.get(Part::Tt), events(60, 16, 8, [12, 4, 10, 3]));
    // Movegen, std's own function, and libc without line tables.
    assert_eq!(parts.get(Part::Other), events(132, 35, 11, [2, 3, 1, 1]));
    // A difference keeps its parts summing to its total, a shrinking part included.
    let mut earlier = counts.clone();
    let tt = earlier
        .by_file
        .get_mut("/work/e13/crates/engine/src/search/tt.rs")
        .expect("the TT's file");
    tt.dlmr += 4;
    earlier.totals.dlmr += 4;
    let difference = counts.minus(&earlier);
    assert_eq!(difference.by_part().get(Part::Tt).dlmr, -4);
    assert_eq!(difference.by_part().sum(), difference.totals);
    assert_eq!(difference.totals.ll_misses(), -4);
}

#[test]
fn e13_parser_reads_instruction_positions_and_refuses_what_does_not_add_up() {
    // With `--dump-instr=yes` every cost line has two positions.
    let two_positions = HAND_WRITTEN
        .replace("positions: line", "positions: instr line")
        .lines()
        .map(|line| match line.chars().next() {
            Some(c) if c.is_ascii_digit() || c == '+' || c == '-' => format!("0x4000 {line}"),
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(parse_per_file(&two_positions), parse_per_file(HAND_WRITTEN));
    let wrong_totals = HAND_WRITTEN.replace("totals: 339", "totals: 340");
    let error = parse_per_file(&wrong_totals).unwrap_err();
    assert!(error.contains("do not add up"), "{error}");
    let no_cache_sim = HAND_WRITTEN.replace(
        "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw",
        "events: Ir",
    );
    let error = parse_per_file(&no_cache_sim).unwrap_err();
    assert!(error.contains("--cache-sim=yes"), "{error}");
    let unnamed = HAND_WRITTEN.replace("fl=(3)\n", "fl=(9)\n");
    let error = parse_per_file(&unnamed).unwrap_err();
    assert!(error.contains("(9)"), "{error}");
}

#[test]
fn e13_files_fall_into_their_parts() {
    for (path, part) in [
        ("/work/e13/variants/dbb/mod.rs", Part::AttackTables),
        ("variants/magic_plain/mod.rs", Part::AttackTables),
        ("/home/ci/kiki/variants/shared/split.rs", Part::AttackTables),
        ("/work/e13/variants/registry.rs", Part::Other),
        (
            "/work/e13/crates/engine/src/search/eval/nnue.rs",
            Part::Eval,
        ),
        ("crates/engine/src/search/eval/features.rs", Part::Eval),
        ("/work/e13/crates/engine/src/search/tt.rs", Part::Tt),
        ("/work/e13/crates/engine/src/search/mod.rs", Part::Other),
        ("/work/e13/crates/engine/src/movegen/mod.rs", Part::Other),
        ("/rustc/0123/library/core/src/slice/mod.rs", Part::Other),
        (UNKNOWN_FILE, Part::Other),
    ] {
        assert_eq!(Part::of_file(path), part, "{path}");
    }
}

#[test]
fn e13_command_gives_the_geometry_collection_and_level_explicitly() {
    let geometry = Geometry::with_last_level(12 << 20).expect("a 12 MiB last level");
    // Valgrind needs a power-of-two set count: 12 MiB at 16 ways has none, 24 ways does.
    assert_eq!(geometry.ll.ways, 24);
    let size = SearchSize {
        eval: EvalKind::Nnue,
        positions: 12,
        depth: 3,
        tt_mib: 64,
    };
    let command = callgrind_command(
        std::path::Path::new("/bin/kiki"),
        "magic-plain",
        size,
        &geometry,
        std::path::Path::new("/tmp/out"),
    );
    let args: Vec<String> = command
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    for wanted in [
        "--cache-sim=yes",
        "--instr-atstart=no",
        "--collect-atstart=no",
        "--toggle-collect=*e13_measured_search*",
        "--dump-line=yes",
        "--I1=32768,8,64",
        "--D1=32768,8,64",
        "--LL=12582912,24,64",
        "0000000012",
        "avx2",
    ] {
        assert!(args.iter().any(|a| a == wanted), "{wanted} in {args:?}");
    }
    // The two runs of a pair differ in no byte of their command lines' length.
    let longer = callgrind_command(
        std::path::Path::new("/bin/kiki"),
        "magic-plain",
        SearchSize {
            positions: 24,
            ..size
        },
        &geometry,
        std::path::Path::new("/tmp/out"),
    );
    let length = |c: &std::process::Command| c.get_args().map(|a| a.len()).sum::<usize>();
    assert_eq!(length(&command), length(&longer));
}
