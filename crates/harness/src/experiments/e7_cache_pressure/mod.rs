//! E7: do big lookup tables lose once an evaluation competes for the cache (seed 004)? The
//! table-miss cost isolated: lookups timed as a dependent chain after P pressure reads, against
//! each backend's hot twin.
//!
//! The files keep the parts apart: `measure` runs the chains, probes and brackets into a
//! `Measurement`, `survival` estimates where the probed table lines are, `analysis` turns it
//! into series, plots, tables, the summary and the numbers the findings quote, and `findings`
//! writes the method and findings paragraphs from them.

mod analysis;
mod findings;
mod measure;
pub mod summary;
mod survival;

use super::{failed_result, About, Config, Context, Experiment, ExperimentId, Progress};
use crate::cache_levels::CacheLevels;
use crate::invocations::Invocation;
use crate::machine::Machine;
use crate::results::ExperimentResult;
use measure::Measurement;
pub(crate) use measure::{
    find_window, sampling, stack_distances, tick_ns, time_chains, ChainCase, MakeChain, Reuse,
    Warming, FIXED_ORDER_SEED,
};
pub use measure::{OrderSeed, SeedSource};

pub const TITLE: &str =
    "Cache pressure: what table misses cost once an evaluation fills the cache (seed 004)";

/// The label of the bracket's case that does the evaluation reads alone.
const EVAL_ALONE: &str = "evaluation alone";
/// The positive control's case: a table of known size read at random.
const SYNTHETIC: &str = "synthetic";
/// Evaluation reads per lookup in the free-running bracket.
const BRACKET_READS: u32 = 4;
/// The hot twin's byte mask: each attack table is read in its first 4 KiB only.
pub(crate) const HOT_MASK: usize = 4095;
/// The negative controls' bound: a backend whose tables fit one page must show a table-miss
/// cost within ± this many ns per lookup.
const NEGATIVE_BOUND_NS: f64 = 0.3;
/// The negative controls: backends whose tables fit within one page.
const NEGATIVE_CONTROLS: [&str; 2] = ["mailbox", "sqww"];
/// The positive control passes when its cost is within this fraction of E6's latency.
const POSITIVE_TOLERANCE: f64 = 0.25;

/// The cache levels E7 sizes itself from: those the report measured (E6's, passed in the
/// configuration), else a short pointer chase here.
pub fn levels(config: &Config) -> CacheLevels {
    config
        .cache_levels
        .clone()
        .unwrap_or_else(|| CacheLevels::probe(&Machine::detect(), config.quick || config.smoke))
}

/// E7 in the list of experiments: measures, then analyses and writes up.
pub(crate) struct CachePressure;

impl Experiment for CachePressure {
    type Measurement = Measurement;
    const ABOUT: About = About {
        id: ExperimentId::E7,
        title: TITLE,
        about: "what table misses cost after pressure reads, each backend against its hot twin (seed 004)",
        runs_by_default: true,
    };
    fn measure(
        &self,
        context: &Context<'_>,
        invocation: Invocation,
        progress: Progress<'_>,
    ) -> Measurement {
        measure::measure(context.config, levels(context.config), invocation, progress)
    }
    fn analyse(&self, measurements: &[Measurement], _: &Context<'_>) -> ExperimentResult {
        match measure::merge(measurements) {
            Ok(m) => result(&m),
            Err(why) => failed_result(ExperimentId::E7, TITLE, &why),
        }
    }
}

/// The analysis of `m`, and the prose written from it, as E7's result.
fn result(m: &Measurement) -> ExperimentResult {
    let analysis = analysis::analyse(m);
    ExperimentResult {
        wall_seconds: None,
        comparisons: analysis.claims.records.clone(),
        id: "E7".to_string(),
        title: TITLE.to_string(),
        method: findings::method(m),
        findings: findings::paragraph(m, &analysis.numbers),
        summary: analysis.summary,
        series: analysis.series,
        tables: analysis.tables,
        plots: analysis.plots,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache_levels::{EffectiveLevel, Ramp};
    use crate::experiments::tests::assert_well_formed;
    use crate::experiments::Config;

    /// Invocations that swept the pressure counts in different orders merge: their chain rows
    /// come in the counts' own order whatever order measured them.
    #[test]
    fn invocations_with_different_orders_merge() {
        let machine = Machine::detect();
        // One set of levels for both, as a report gives every invocation E6's.
        let config = Config {
            backends: vec!["magic-plain".to_string(), "mailbox".to_string()],
            cache_levels: Some(CacheLevels::probe(&machine, true)),
            ..Config::smoke()
        };
        let watch = crate::watch::Watch::new();
        let context = Context {
            config: &config,
            machine: &machine,
            watch: &watch,
        };
        let parts: Vec<Measurement> = (0..2)
            .map(|i| CachePressure.measure(&context, Invocation::new(i, 2), &mut |_, _| {}))
            .collect();
        let orders: Vec<&Vec<u32>> = parts.iter().map(|p| &p.pressure_orders[0]).collect();
        // Seeded: these two invocations sweep the smoke's two counts in opposite orders.
        assert_ne!(orders[0], orders[1], "{orders:?}");
        let merged = measure::merge(&parts).expect("the invocations merge");
        assert_eq!(merged.pressure_orders.len(), 2);
        let result = CachePressure.analyse(&parts, &context);
        assert!(
            !result.findings.contains("could not be analysed"),
            "{}",
            result.findings
        );
    }

    /// The last level's control lies above L2: the larger of half the last level and the
    /// geometric middle of its plateau (from L2, or from the end of E6's step after L2) (E6's L3
    /// ending barely above L2, as on the Intel 6/207 of -27-5: L2 1.41 MiB, L3 2.83 MiB, whose
    /// "½ L3" was L2's size); continuous at 4× L2.
    #[test]
    fn the_last_level_control_lies_above_l2() {
        let level = |name: &str, bytes: usize| EffectiveLevel {
            level: name.into(),
            bytes,
            ..EffectiveLevel::default()
        };
        let levels = |l2: usize, l3: usize| CacheLevels {
            levels: vec![level("L1", 48 << 10), level("L2", l2), level("L3", l3)],
            memory_ns: 100.0,
            curve: Vec::new(),
            curve_spread: Vec::new(),
            source: "test".into(),
        };
        let sizes = measure::synthetic_sizes(&levels(2 << 20, 32 << 20), 128 << 20);
        let labels: Vec<(&str, usize)> = sizes.iter().map(|(l, b)| (l.as_str(), *b)).collect();
        assert_eq!(
            labels,
            [
                ("one page", 4096),
                ("½ L2", 1 << 20),
                ("½ L3", 16 << 20),
                ("memory", 128 << 20)
            ]
        );
        let (l2, l3) = (1_482_880, 2_965_760);
        let sizes = measure::synthetic_sizes(&levels(l2, l3), 128 << 20);
        let (label, bytes) = &sizes[2];
        assert_eq!(label, "mid L2–L3");
        assert!(*bytes > l2 && *bytes < l3, "{bytes}");
        assert_eq!(*bytes, ((l2 as f64) * (l3 as f64)).sqrt() as usize);
        // Just above 2× L2, half would be L2's size again: the middle still takes over.
        let sizes = measure::synthetic_sizes(&levels(l2, 2 * l2 + 4096), 128 << 20);
        assert_eq!(sizes[2].0, "mid L2–L3");
        assert!(sizes[2].1 > l2 * 14 / 10, "{}", sizes[2].1);
        // At 4× L2 the two agree, and half is kept.
        let sizes = measure::synthetic_sizes(&levels(1 << 20, 4 << 20), 128 << 20);
        assert_eq!(sizes[2], ("½ L3".to_string(), 2 << 20));
        assert_eq!(measure::unplaced_control(&levels(l2, l3)), None);
        // Where E6's step after L2 is a ramp, the control lies in the middle of L3's own
        // plateau, above the ramp: L2 1 MiB, its step ending at 1.5 MiB, L3 4 MiB.
        let step = |start_bytes: usize, end_bytes: usize| Ramp {
            start_bytes,
            start_ns: 5.0,
            end_bytes,
            end_ns: 14.0,
        };
        let ramp = |end_bytes: usize| step(1 << 20, end_bytes);
        let mut ramped = levels(1 << 20, 4 << 20);
        ramped.levels[1].ramp = Some(ramp(3 << 19));
        let sizes = measure::synthetic_sizes(&ramped, 128 << 20);
        assert_eq!(sizes[2].0, "mid L2–L3");
        assert_eq!(
            sizes[2].1,
            ((3u64 << 19) as f64 * (4 << 20) as f64).sqrt() as usize
        );
        // A plateau under one doubling places no last-level control and says why: the -27-7
        // Intel (L2 1 MiB, its step ending at 2 MiB, L3 2,965,760 B = 2.83 MiB).
        let mut narrow = levels(1 << 20, 2_965_760);
        narrow.levels[1].ramp = Some(ramp(2 << 20));
        let sizes = measure::synthetic_sizes(&narrow, 128 << 20);
        let labels: Vec<&str> = sizes.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(labels, ["one page", "½ L2", "memory"]);
        assert_eq!(
            measure::unplaced_control(&narrow),
            Some(measure::Unplaced {
                level: "L3".into(),
                below: "L2".into(),
                plateau_start_bytes: 2 << 20,
                plateau_end_bytes: 2_965_760,
            })
        );
        // A step after L2 that ends beyond the last level leaves it no plateau: no control.
        narrow.levels[1].ramp = Some(ramp(4 << 20));
        assert_eq!(
            measure::unplaced_control(&narrow)
                .map(|u| (u.plateau_start_bytes, u.plateau_end_bytes)),
            Some((2_965_760, 2_965_760))
        );
        // Invocations that give L2 a larger size move the plateau's start up (the -27-7
        // Intel's L2 was 1.41 MiB in two of its five invocations).
        let mut sized = levels(1 << 20, 4 << 20);
        sized.levels[1].bytes_per_invocation = vec![Some(1_482_880), Some(1 << 20), None];
        let (label, bytes) = &measure::synthetic_sizes(&sized, 128 << 20)[2];
        assert_eq!(label, "mid L2–L3");
        assert_eq!(*bytes, (1_482_880f64 * (4u64 << 20) as f64).sqrt() as usize);
        // A start beyond the end (no invocation-wide plateau) is said so.
        let empty = measure::Unplaced {
            level: "L3".into(),
            below: "L2".into(),
            plateau_start_bytes: 1 << 20,
            plateau_end_bytes: 741_440,
        };
        assert!(
            empty
                .plateau_words()
                .starts_with("empty: the step after L2 ends as late as 1 MiB"),
            "{}",
            empty.plateau_words()
        );
        // The plateau in every invocation: the latest end of the step after L2 and the
        // earliest start of the step after L3 (the -28 Zen 1: pooled 724 KiB–1.41 MiB, one
        // invocation's L2 step ending at 1 MiB, two invocations' L3 step starting at 1 MiB).
        let mut zen1 = levels(370_688, 1_482_880);
        zen1.levels[1].ramp = Some(step(262_144, 741_440));
        zen1.levels[1].ramps_per_invocation = [741_440, 741_440, 741_440, 741_440, 1 << 20]
            .map(|end| Some(step(262_144, end)))
            .to_vec();
        zen1.levels[2].ramps_per_invocation = [1 << 20, 1_482_880, 1 << 20, 1_482_880, 1_482_880]
            .map(|start| Some(step(start, 2 << 20)))
            .to_vec();
        assert_eq!(
            measure::unplaced_control(&zen1).map(|u| (u.plateau_start_bytes, u.plateau_end_bytes)),
            Some((1 << 20, 1 << 20))
        );
        // Pooled alone (no invocation's steps), the same plateau is exactly one doubling wide,
        // and the control lies in its middle.
        zen1.levels[1].ramps_per_invocation.clear();
        zen1.levels[2].ramps_per_invocation.clear();
        assert_eq!(measure::unplaced_control(&zen1), None);
        let sizes = measure::synthetic_sizes(&zen1, 128 << 20);
        assert_eq!(sizes[2].0, "mid L2–L3");
        // Four levels: the last level's plateau starts from the level just below it.
        let mut four = levels(1 << 20, 8 << 20);
        four.levels.push(level("L4", 12 << 20));
        let sizes = measure::synthetic_sizes(&four, 128 << 20);
        assert!(sizes.iter().all(|(l, _)| l != "mid L3–L4" && l != "½ L4"));
        assert_eq!(
            measure::unplaced_control(&four).map(|u| (u.below, u.plateau_start_bytes)),
            Some(("L3".to_string(), 8 << 20))
        );
    }

    #[test]
    fn smoke_run_is_well_formed() {
        let backends = ["magic-plain", "dbb", "mailbox"].map(String::from).to_vec();
        let config = Config {
            backends,
            ..Config::smoke()
        };
        let experiment =
            crate::experiments::tests::run_once(&CachePressure, &config, &mut |_, _| {});
        assert_well_formed(&experiment);
        let summary = |key: &str| experiment.summary_value(key).expect(key).clone();
        assert!(summary("pressure_max_bytes").as_u64().unwrap() > 0);
        assert!(summary("table_miss_cost")["magic-plain"]["ns"].is_number());
        assert!(summary("negative_controls")["mailbox"]["pass"].is_boolean());
        assert!(summary("positive_control")["expected_ns"].as_f64().unwrap() > 0.0);
        // Each control inside the caches against the ring of its size timed beside it, the
        // memory-sized one against E6.
        let positives = summary("positive_controls");
        assert!(!positives.as_array().unwrap().is_empty());
        for p in positives.as_array().unwrap() {
            let ringed = p["label"] != "memory";
            let against = if ringed { "in-process ring" } else { "E6" };
            assert_eq!(p["judged_against"], against, "{p}");
            assert_eq!(p["ring_difference"]["ns"].is_number(), ringed, "{p}");
            // Judged by the controls' rule: a 90 % interval, p-values, half-width, threshold.
            assert_eq!(p["ring_test"]["p"].is_number(), ringed, "{p}");
            assert_eq!(p["ring_test"]["failed"].is_boolean(), ringed, "{p}");
            // Its rounds among the series, at P = 0 alone.
            let ring = format!("ring ({})", p["label"].as_str().unwrap());
            let pressures: Vec<&str> = experiment
                .series
                .iter()
                .filter(|s| s.label("case") == Some(ring.as_str()))
                .filter_map(|s| s.label("pressure_reads"))
                .collect();
            assert_eq!(!pressures.is_empty(), ringed, "{ring}");
            assert!(pressures.iter().all(|&p| p == "0"), "{pressures:?}");
        }
        assert_eq!(summary("aa_control")["backend"], "magic-plain");
        assert!(!summary("survival").as_array().unwrap().is_empty());
        let calibration = summary("survival_calibration");
        assert!(
            calibration["l1_ns"].as_f64().unwrap() > 0.0,
            "{calibration}"
        );
        let neighbours = calibration["neighbour_total_variation"].as_array().unwrap();
        assert_eq!(neighbours.len(), 3);
        // Every table backend's pages, dbb's 2.5 MiB among them, and magic-plain − dbb in the
        // page split (null where a kernel did not collapse every table of both).
        let pages = summary("table_pages");
        assert!(
            pages["magic-plain"].is_object() && pages["dbb"].is_object(),
            "{pages}"
        );
        // The sweep's pages: a record for each backend with attack tables, none for mailbox.
        let sweep = summary("sweep_pages");
        let sweep_backends: Vec<&str> = sweep
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["backend"].as_str().unwrap())
            .collect();
        assert_eq!(sweep_backends, ["magic-plain", "dbb"], "{sweep}");
        for record in sweep.as_array().unwrap() {
            assert!(record["table_bytes"].as_u64().unwrap() > 0, "{sweep}");
            let huge = &record["huge_page_bytes"];
            assert!(huge.is_null() || huge.is_u64(), "{sweep}");
            assert!(record.get("advice_error").is_some(), "{sweep}");
        }
        let split = &summary("against_dbb")["magic-plain_vs_dbb"]["page_split"];
        assert!(
            split.is_null() || split["table_miss_difference_2m_ns"]["ns"].is_number(),
            "{split}"
        );
        assert!(summary("seed_004_verdict").is_string());
        // The answer heads the findings, one sentence of at most 40 words.
        let answer = summary("answer");
        let sentence = answer["sentence"].as_str().unwrap();
        assert!(
            experiment.findings.starts_with(&format!("{sentence}\n\n")),
            "{}",
            experiment.findings
        );
        assert!(sentence.split_whitespace().count() <= 40, "{sentence}");
        assert!(answer["half_width_ns"].is_number(), "{answer}");
        // The verdict from the slices' plain means beside the trimmed ones it uses, and P = 0
        // on the warmed windows and the long search.
        let estimator = summary("estimator");
        assert_eq!(estimator["verdict_uses"], "trimmed");
        assert!(
            estimator["plain"]["magic_plain_minus_dbb"]["ns"].is_number(),
            "{estimator}"
        );
        let unpressed = summary("unpressed");
        for walk in ["chain", "warmed", "long_search"] {
            assert!(
                unpressed["walks"][walk]["magic-plain_minus_dbb"]["ns"].is_number(),
                "{walk}: {unpressed}"
            );
        }
        assert!(unpressed["warming_change_magic_plain"]["ns"].is_number());
        for words in ["Estimator:", "What \"without pressure\" means"] {
            assert!(experiment.findings.contains(words), "{words}");
        }
        // One invocation: one order of the pressure counts, a permutation of them, and a block
        // order per timing call naming every case of the sweep.
        let orders = summary("orders");
        let pressure = orders["pressure"].as_array().unwrap();
        assert_eq!(pressure.len(), 1, "{orders}");
        let mut counts: Vec<u64> = pressure[0]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_u64().unwrap())
            .collect();
        counts.sort_unstable();
        let mut expected: Vec<u64> = experiment
            .series
            .iter()
            .filter(|s| s.label("part") == Some("chain"))
            .filter_map(|s| s.label("pressure_reads")?.parse().ok())
            .collect();
        expected.sort_unstable();
        expected.dedup();
        assert!(!expected.is_empty());
        assert!(expected.iter().all(|p| counts.contains(p)), "{orders}");
        // The same as the issue's `order` record: randomised, its seed, per invocation.
        let order = summary("order");
        assert_eq!(order["randomised"], true, "{order}");
        assert!(order["seed"].is_u64(), "{order}");
        let seed = order["seed"].as_u64().unwrap();
        assert_eq!(order["seed_hex"], format!("{seed:#018x}"), "{order}");
        // The configuration's seed (here its default, as given), and the method names it.
        assert_eq!(seed, Config::smoke().order_seed.value, "{order}");
        assert_eq!(order["seed_source"], "given", "{order}");
        assert!(
            experiment
                .method
                .contains(&format!("`{seed:#018x}`, given for this run")),
            "{}",
            experiment.method
        );
        let per_invocation = order["per_invocation"].as_array().unwrap();
        assert_eq!(per_invocation.len(), 1, "{order}");
        assert_eq!(per_invocation[0]["pressure"], pressure[0], "{order}");
        let first = per_invocation[0]["blocks"].as_array().unwrap();
        let dose = |b: &serde_json::Value| b["label"] == "dose" && b["cases"].is_array();
        assert!(first.iter().any(dose), "{order}");
        let blocks = orders["blocks"].as_array().unwrap();
        assert!(blocks.iter().any(|b| b["label"] == "dose"), "{orders}");
        let chain = blocks
            .iter()
            .find(|b| b["label"].as_str().unwrap().starts_with("chain P="))
            .expect("a chain call's order");
        let cases = chain["cases"].as_array().unwrap();
        assert!(cases.iter().any(|c| c == "magic-plain"));
        assert!(experiment.findings.contains("magic-plain"));
    }
}
