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
    // An id callgrind never named is charged to an unnamed file (other), not refused.
    let unnamed = HAND_WRITTEN.replace("fl=(3)\n", "fl=(9)\n");
    let counts = parse_per_file(&unnamed).expect("an unnamed id reads");
    let file = "??? (file id 9, never named)";
    assert!(
        counts.by_file.contains_key(file),
        "{:?}",
        counts.by_file.keys()
    );
    assert_eq!(Part::of_file(file), Part::Other);
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
        "12",
        "avx2",
    ] {
        assert!(args.iter().any(|a| a == wanted), "{wanted} in {args:?}");
    }
}

#[test]
fn e13_rule_prices_d_sim_and_finds_the_knee() {
    use super::rule::{d_sim, knee, price, sensitive, verdict, Verdict};
    assert!((d_sim(2.0, 1.5, 0.8, 0.7) - 0.4).abs() < 1e-12);
    // Two prices: the range runs from the cheaper to the dearer; a negative D_sim keeps its order.
    let p = price(0.5, &[60.0, 30.0]).unwrap();
    assert_eq!((p.ns_low, p.ns_high), (15.0, 30.0));
    let n = price(-0.5, &[60.0, 30.0]).unwrap();
    assert_eq!((n.ns_low, n.ns_high), (-30.0, -15.0));
    assert!(price(1.0, &[]).is_none());
    assert!(price(1.0, &[0.0]).is_none());
    assert_eq!(verdict(&p, 29.0), Verdict::Holds);
    assert_eq!(verdict(&p, 30.0), Verdict::DoesNotHold);
    // The knee: the largest size whose upper estimate exceeds T.
    let at = |misses: f64| price(misses, &[100.0]).unwrap();
    let sweep = [(1 << 17, at(2.0)), (1 << 20, at(0.5)), (1 << 22, at(0.1))];
    assert_eq!(knee(&sweep, 20.0), Some(1 << 20));
    assert_eq!(knee(&sweep, 500.0), None);
    assert!(sensitive(Some(1 << 20), 1 << 21));
    assert!(!sensitive(Some(1 << 20), 1 << 23));
    assert!(!sensitive(None, 1 << 20));
}

/// A measurement by hand: dbb and magic-plain under material and nnue at two last levels, with
/// E6's levels and E7's and E11's figures, read as the rule says.
fn hand_measurement() -> Measurement {
    use crate::cache_levels::{CacheLevels, EffectiveLevel};
    let levels = CacheLevels {
        levels: vec![EffectiveLevel {
            level: "L3".into(),
            bytes: 4 << 20,
            ns: 10.0,
            sysfs_bytes: Some(32 << 20),
            bytes_per_invocation: Vec::new(),
            ns_low: None,
            ns_high: None,
            ramp: None,
            ramps_per_invocation: Vec::new(),
        }],
        memory_ns: 90.0,
        curve: Vec::new(),
        curve_spread: Vec::new(),
        source: "by hand".into(),
    };
    let marked = vec![MarkedLevel {
        name: "E6 L3".into(),
        bytes: 4 << 20,
        point: 4 << 20,
    }];
    let plan = Plan::new(true, true, &marked);
    let mut m = super::measure::unavailable(String::new(), &plan, marked);
    m.unavailable = None;
    m.cache_levels = Some(levels);
    // LL misses per node (1,000 nodes): the attack tables' part grows with magic-plain and a
    // small last level; the rest is the same on both.
    for (backend, eval, ll, tables, other) in [
        ("dbb", EvalKind::Material, 1 << 20, 10, 500),
        ("magic-plain", EvalKind::Material, 1 << 20, 60, 500),
        ("dbb", EvalKind::Nnue, 1 << 20, 10, 3000),
        ("magic-plain", EvalKind::Nnue, 1 << 20, 400, 3100),
        ("dbb", EvalKind::Material, 4 << 20, 5, 300),
        ("magic-plain", EvalKind::Material, 4 << 20, 15, 300),
        ("dbb", EvalKind::Nnue, 4 << 20, 5, 1000),
        ("magic-plain", EvalKind::Nnue, 4 << 20, 25, 1010),
    ] {
        let part = |ll_misses: i64| DataEvents {
            dlmr: ll_misses,
            ..DataEvents::default()
        };
        let parts = vec![part(tables), part(0), part(0), part(other)];
        m.cells.push(CellCounts {
            backend: backend.into(),
            eval,
            ll_bytes: ll,
            ll_ways: 16,
            nodes: 1000,
            warm_nodes: 1000,
            checksum: 1,
            totals: part(tables + other),
            parts,
            from_std: DataEvents::default(),
            other_files: Vec::new(),
        });
    }
    m.reference = Reference {
        e7: Some(E7Costs {
            magic_plain_ns: 40.0,
            dbb_ns: 10.0,
            difference: Interval {
                ns: 30.0,
                low: 28.0,
                high: 32.0,
            },
            pressure_reads: 512,
        }),
        e11: vec![E11Eval {
            eval: "nnue".into(),
            dbb_ns: 1000.0,
            threshold_ns: 30.0,
            d: Interval {
                ns: 2.0,
                low: -5.0,
                high: 9.0,
            },
        }],
    };
    m
}

#[test]
fn e13_analysis_reads_the_rule_at_the_effective_l3() {
    let m = hand_measurement();
    let analysis = Analysis::of(&m);
    assert_eq!(analysis.l3, Some(4 << 20));
    // Prices: E6's 90 − 10 ns and E7's 40 ns.
    assert_eq!(analysis.prices.memory_minus_l3_ns, Some(80.0));
    assert_eq!(analysis.prices.e7_in_situ_ns, Some(40.0));
    // At 4 MiB: (1.035 − 1.005) − (0.315 − 0.305) = 0.02 misses a node; at 1 MiB:
    // (3.5 − 3.01) − (0.56 − 0.51) = 0.44.
    let at_l3 = analysis.d_sim_misses(EvalKind::Nnue, 4 << 20).unwrap();
    assert!((at_l3 - 0.02).abs() < 1e-9, "{at_l3}");
    let small = analysis.d_sim_misses(EvalKind::Nnue, 1 << 20).unwrap();
    assert!((small - 0.44).abs() < 1e-9, "{small}");
    let nnue = &analysis.answers[0];
    assert_eq!(nnue.eval, "nnue");
    assert_eq!(nnue.threshold_source, "E11");
    let priced = nnue.priced.unwrap();
    assert!((priced.ns_low - 0.8).abs() < 1e-9 && (priced.ns_high - 1.6).abs() < 1e-9);
    assert_eq!(nnue.verdict, Some(super::rule::Verdict::DoesNotHold));
    // 0.44 misses × 80 ns = 35.2 ns > T at 1 MiB: the knee, two doublings below L3.
    assert_eq!(nnue.knee_bytes, Some(1 << 20));
    assert!(!nnue.sensitive);
    assert_eq!(nnue.consistent.e13, Some(true));
    let summary = analysis.summary();
    assert_eq!(
        summary.verdict_by_eval["nnue"].as_deref(),
        Some("does not hold")
    );
    assert_eq!(summary.knee_bytes["nnue"], Some(1 << 20));
    let cell = &summary.misses_per_node["magic-plain"]["nnue"]["4194304"];
    assert!((cell.attack_tables - 0.025).abs() < 1e-12);
    // The parts sum to the whole in every record.
    for by_eval in summary.misses_per_node.values() {
        for by_size in by_eval.values() {
            for p in by_size.values() {
                assert!((p.attack_tables + p.eval + p.tt + p.other - p.ll).abs() < 1e-9);
            }
        }
    }
    // The summary reads back as the type the first screen reads.
    let json = serde_json::to_value(&summary).unwrap();
    let back: Summary = serde_json::from_value(json).unwrap();
    assert_eq!(back, summary);
    let result = super::render::result(&analysis);
    assert!(
        result.findings.contains("does not hold"),
        "{}",
        result.findings
    );
    assert!(result.plots.iter().any(|p| p.file_stem == "e13-d-sim-nnue"));
    assert!(result
        .plots
        .iter()
        .any(|p| p.file_stem == "e13-attribution"));
}

#[test]
fn e13_without_valgrind_says_so_in_one_line() {
    let plan = Plan::new(true, true, &[]);
    let m = super::measure::unavailable("valgrind is not installed".into(), &plan, Vec::new());
    let result = super::render::result(&Analysis::of(&m));
    assert!(result
        .findings
        .starts_with("Not measured on this machine: valgrind"));
    assert_eq!(
        result.summary_value("available"),
        Some(&serde_json::json!(false))
    );
}

#[test]
fn e13_traces_the_tables_of_a_search_natively() {
    let size = SearchSize {
        eval: EvalKind::Material,
        positions: 1,
        depth: 2,
        tt_mib: 1,
    };
    let dbb = trace_tables("dbb", size).expect("dbb has tables");
    let plain = trace_tables("magic-plain", size).expect("magic-plain has tables");
    assert!(trace_tables("mailbox", size).is_none());
    // The same tree on both, so the same lookups; magic-plain reads one table line a lookup, dbb
    // (rank, file and diagonal words) one or more. A search revisits few (square, occupancy)
    // pairs: in a 2026-12-03 run 1,141 lookups read 113 distinct magic-plain lines.
    assert_eq!((dbb.nodes, dbb.lookups), (plain.nodes, plain.lookups));
    assert!(dbb.lookups_per_node() > 1.0, "{}", dbb.lookups_per_node());
    assert_eq!(plain.reads, plain.lookups);
    assert!(dbb.reads >= dbb.lookups);
    assert!(plain.distinct_lines < plain.lookups, "{plain:?}");
    assert_eq!(dbb.cold, dbb.distinct_lines);
    assert_eq!(dbb.buckets.iter().sum::<u64>() + dbb.cold, dbb.reads);
    assert!((0.0..=1.0).contains(&plain.reuse_within(4096)));
}

/// The rule is pre-registered: `rule.rs` as RULE_COMMIT holds it.
#[test]
fn e13_the_rule_is_as_its_commit_holds_it() {
    crate::experiments::tests::assert_as_committed(
        "crates/harness/src/experiments/e13_simulated_search/rule.rs",
        RULE_COMMIT,
    );
}

/// The page buffer's inlined accessor, and the std code after it, are charged to the
/// evaluation that reads through it: the accessor's file never hosts.
#[test]
fn e13_parser_charges_the_page_buffer_to_the_file_reading_through_it() {
    let output = "\
version: 1
positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
summary: 60 30 0 0 12 0 0 9 0

ob=(1) /work/e13/target/release/kiki
fl=(1) /work/e13/crates/engine/src/search/eval/nnue.rs
fn=(1) kiki_engine::search::eval::nnue::NnueState::refresh
10 20 10 0 0 4 0 0 3
fi=(2) /work/e13/crates/core/src/pages.rs
80 10 5 0 0 2 0 0 1
fi=(3) /rustc/0123abcd/library/core/src/num/int_macros.rs
900 30 15 0 0 6 0 0 5
";
    let counts = parse_per_file(output).expect("the page buffer's output reads");
    let parts = counts.by_part();
    assert_eq!(parts.get(Part::Eval), counts.totals);
    assert_eq!(parts.get(Part::Other), DataEvents::default());
    assert_eq!(counts.from_std, events(40, 20, 0, [8, 0, 6, 0]));
}
