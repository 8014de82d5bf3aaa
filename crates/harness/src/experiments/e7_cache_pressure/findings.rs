//! E7's method and findings paragraphs: the method written here, the findings composed from
//! each sub-study's sentences (see `analysis`) in the report's order.

use super::analysis::{self, Numbers};
use super::measure::{Measurement, SeedSource};
use super::{HOT_MASK, NEGATIVE_BOUND_NS, POSITIVE_TOLERANCE};
use crate::experiments::and_list;
use crate::experiments::claims::claims_method;
use crate::stats::format_sig;
use crate::workloads::SearchShape;
use kiki_core::units::rounded_bytes;

/// Why the positive controls' tables lie on 2 MiB pages while the sweep's are on 4 KiB.
const CONTROL_PAGES: &str = " The positive controls' synthetic tables and rings lie on 2 MiB \
    pages, as E6's levels are read from its huge-page curve: they check the chain's timing, not \
    the address translation a table on 4 KiB pages adds, which the page split measures.";

pub(super) fn method(m: &Measurement) -> String {
    let value = m.order_seed.value;
    let order_seed = match m.order_seed.source {
        SeedSource::Drawn => format!(
            "`{value:#018x}`, drawn afresh for this run (`kiki report --order-seed {value:#x}` \
             reproduces its orders)"
        ),
        SeedSource::Given => format!("`{value:#018x}`, given for this run"),
    };
    let levels = level_words(m);
    let huge = match m.pressure_huge {
        Some(bytes) => format!("{} of it on huge pages", rounded_bytes(bytes as f64)),
        None => "huge pages unknown".to_string(),
    };
    let mut text = format!(
        "Sizes come from the measured cache levels ({}; from {}), not from sysfs. Workload: {}. \
         Per node: P random reads of a {} pressure buffer ({huge}; 4× the effective last level \
         or more), each backend reading its own random stream, then every slider lookup of the \
         node as one dependent chain, timed alone between serialising time stamps \
         (`lfence; rdtscp; lfence`, ticks converted at {} ns each as measured against the \
         monotonic clock), so the pressure phase is outside every timing; the pressure sum \
         also feeds the chain's first square and the chain's result the next node's pressure \
         indices, both ANDed with a zero the compiler cannot see. Each backend's node runs its \
         chain once with the real tables and once as its hot twin — the same monomorphised \
         lookup with each attack-table index ANDed with a run-time mask that keeps the reads \
         within the first {} of each table (per-square metadata stays real) — the two taking \
         turns at going first; the table-miss cost is T(backend) − T(hot twin) in ns per \
         lookup, paired per round. Each case runs in a block of its own, so that no case is \
         timed among another case's tables or pressure lines: an untimed warm-in walk first \
         ({} lookups per line of the table footprint it reads, up to twice the last level, or \
         {} × the minimum sample time, whichever ends first), then its rounds back to back, \
         each round the next window of nodes in slices of 32, keeping the slices' trimmed \
         mean; every case and every pressure count walks the same windows (sized at the top \
         P before the sweep, so that its slowest case's window lasts the minimum sample \
         time), so a round's values pair node for node across cases and counts. Order: each \
         invocation sweeps the pressure counts in a seeded shuffled order of its own, and at \
         each count (and in the dose–response and the page split) times the cases' blocks in \
         two passes, the first half of its rounds in a seeded shuffled order and the second \
         half in the reverse order, each block after its own warm-in, so that neither a drift \
         over the invocation nor a fixed neighbour favours a case or a count (every order is \
         recorded in the summary's `orders`, and as `order`: `{{randomised, seed, seed_hex, \
         seed_source, per_invocation}}`). Every order derives from the run's order seed, \
         {order_seed}: each shuffle is seeded from it, the call and the invocation, so the same \
         seed gives the same orders and another seed others. P sweeps {} \
         reads per node (fixed counts: what a node's reads insert, P × 64 B, is set against \
         a table line's reuse distance in nodes, not against a cache size). Controls: mailbox \
         and sqww (tables within one page, which ignore the mask) and a synthetic table of \
         one page (4 KiB, read whole by the real chain and by its twin alike: the masked path \
         with nothing to miss) must show a cost within ±{NEGATIVE_BOUND_NS} ns; \
         an A/A control times {}'s full-table chain twice per node, as if it were its own \
         twin (the same turn-taking: it tests that taking turns biases neither side, not the \
         misses, since the second chain finds the first one's lines), and must resolve no \
         difference (its interval includes 0); \
         the positive controls, synthetic tables of {} read in the same chain one line per \
         lookup (in the read order below), are \
         judged at P = 0, each inside the caches against a plain dependent ring of its size \
         timed in the same process along the same walk (per node, one load per lookup between \
         the same time stamps, a one-page ring as its hot twin), by the rule every control of \
         the harness follows: the control's cost minus the ring's, paired per round, one mean \
         per process, Yuen's trimmed mean over the processes (a tenth at each end) with its \
         90 % interval and a two-sided p-value for a difference from 0, fails where the \
         p-value, Holm-adjusted over the controls judged so, is under 0.05 (a bias); one that \
         passes bounds the verdict instead of vetoing it (the rule of bounds): the verdict \
         reads magic-plain's table-miss difference on its interval widened by each passing \
         control's 90 % interval on each side, so a wide control is the run's resolution \
         (E6's bare ring runs in another process with nothing \
         beside it, and a cache share moves between processes); the memory-sized one against \
         E6's latency there minus at 4 KiB, its whole interval within the range E6's \
         invocations span widened by ±{tolerance:.0} % (an equivalence test); each control's \
         cost at P = 0 must also exclude 0. The last level's control is half its effective size \
         where that lies on its plateau at or above the plateau's geometric middle, else the \
         middle; the plateau is the one every E6 invocation shows, from the latest of the \
         lower level's sizes and the ends of the step after it to the earliest of the last \
         level's sizes and the starts of the step after it: half alone would test L2 again \
         where the last level ends barely above L2, and a size inside the step after L2 is \
         served partly by L2; a plateau under one \
         doubling wide places no such control (E6 resolves sizes to half a doubling, and a \
         table there, with the walk's data beside it, spills to memory in some invocations \
         and not others), which the findings state, and the verdict is read from the controls \
         that can be placed. Dose–response: \
         at the top P, masks of {} (half the measured L2, half and twice the last level, \
         rounded down to powers of two) and the full table, all in one sweep. {} \
         Table pages: every backend's attack tables live in kiki's table arena (chunks of \
         whole 2 MiB pages, the tables packed one after another); before the sweep they are \
         advised onto 4 KiB pages (`MADV_NOHUGEPAGE`), and the verdict says which pages the \
         kernel's page scan (`PAGEMAP_SCAN`; else /proc/self/smaps) then found them on. The \
         page split times every backend with attack tables on those 4 KiB pages, then \
         collapsed to 2 MiB pages (`MADV_COLLAPSE` of every 2 MiB page that holds a byte of \
         them, so a small table moves too; measured last since it cannot be undone in the \
         process), each against pressure on 4 KiB and on huge pages, at the top P; in each \
         phase every backend is timed in a block of its own, round by round over the same \
         windows of nodes (the same in both phases), so differences between backends, and \
         between the phases, are paired per round. Reuse: each backend's own \
         attack-table reads along the whole walk (`attack_table_offsets`, no pressure), their \
         LRU stack distances (Bennett–Kruskal with a Fenwick tree) bucketed by powers of two, \
         giving the misses of a fully associative LRU cache of any size (rounded down to \
         64 × 2^j bytes), reported per lookup of the walk (a lookup may read several table \
         lines). Bracket: the former \
         free-running design ({} lookups, {} evaluation reads per lookup with nothing ordering \
         them, at E = 0 and E = {}), marginal cost = T(backend) − T(reads alone).",
        and_list(&levels),
        m.levels.source,
        m.workload,
        rounded_bytes(m.pressure_bytes as f64),
        format_sig(m.ns_per_tick),
        rounded_bytes((HOT_MASK + 1) as f64),
        super::measure::WARM_IN_READS_PER_LINE,
        super::measure::WARM_IN_SAMPLES,
        m.pressure_reads
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        m.aa_backend.unwrap_or("no backend"),
        and_list(
            &m.synthetic
                .iter()
                .filter(|(label, _)| label != super::measure::ONE_PAGE)
                .map(|(label, bytes)| format!("{} ({label})", rounded_bytes(*bytes as f64)))
                .collect::<Vec<_>>()
        ),
        and_list(
            &m.dose_masks
                .iter()
                .map(|mask| rounded_bytes((mask + 1) as f64))
                .collect::<Vec<_>>()
        ),
        analysis::survival::method(m),
        m.bracket_lookups,
        super::BRACKET_READS,
        rounded_bytes(m.pressure_bytes as f64),
        tolerance = POSITIVE_TOLERANCE * 100.0,
    );
    text.push_str(&read_order_words(m));
    text.extend([CONTROL_PAGES, analysis::pages::PHASE_RULE]);
    for note in m.notes.iter().chain(&m.skipped) {
        text.push(' ');
        text.push_str(note);
        text.push('.');
    }
    text.push_str(&verdict_method());
    text.push(' ');
    text.push_str(&claims_method(m.threshold, m.invocations));
    text
}

/// How the synthetic tables are read, and the huge pages granted to them and to the rings.
fn read_order_words(m: &Measurement) -> String {
    let grant = |granted: Option<usize>, bytes: usize| match granted {
        Some(huge) => format!(
            "{} of {} on huge pages",
            rounded_bytes(huge as f64),
            rounded_bytes(bytes as f64)
        ),
        None => format!("{} on huge pages unknown", rounded_bytes(bytes as f64)),
    };
    let tables: Vec<String> = m
        .synthetic
        .iter()
        .zip(&m.synthetic_huge)
        .map(|((label, bytes), &huge)| format!("{label}: {}", grant(huge, *bytes)))
        .collect();
    let ringed = m
        .synthetic
        .iter()
        .filter(|(label, _)| super::measure::has_ring(label));
    let ring_bytes = ringed
        .map(|(label, bytes)| (label.clone(), *bytes))
        .chain([("one page".to_string(), HOT_MASK + 1)]);
    let rings: Vec<String> = ring_bytes
        .zip(&m.ring_huge)
        .map(|((label, bytes), &huge)| format!("{label}: {}", grant(huge, bytes)))
        .collect();
    let grants = if tables.is_empty() {
        "The huge pages granted to them were not recorded (before 2026-12-02).".to_string()
    } else {
        format!(
            "Huge pages granted (the least of any process): the tables {}; the rings {}.",
            tables.join(", "),
            rings.join(", ")
        )
    };
    format!(
        " Read order: a synthetic table is read in one cycle through its lines, the order of \
         the ring of its size, each mask carrying on where its last read stopped, so that each \
         line is read again exactly one table's worth of reads later, as in its ring and in \
         E6's (until 2026-12-02 its reads were drawn at random with replacement, which left \
         37 % of a ½ L2 table's reuse gaps beyond its line count and exposed the chain, not \
         the ring, to a contested L2). {grants}"
    )
}

/// The measured cache levels, one phrase each ("L2 1 MiB at 7.42 ns").
fn level_words(m: &Measurement) -> Vec<String> {
    m.levels
        .levels
        .iter()
        .map(|l| {
            format!(
                "{} {} at {} ns",
                l.level,
                rounded_bytes(l.bytes as f64),
                format_sig(l.ns)
            )
        })
        .collect()
}

/// The method's sentences on how seed 004's verdict is decided and on the walks at P = 0.
fn verdict_method() -> String {
    format!(
        " Seed 004's verdict is decided, as fixed before measuring, by the isolated table-miss \
         cost: magic-plain's minus dbb's at the top P, and that gap's growth from P = 0, both \
         paired per round; the seed's \"loses\" also needs magic-plain's whole chain slower than \
         dbb's at the top P (the ratio's interval beyond the threshold), and the whole chains' \
         ratio change is reported beside it. Each round's value is the trimmed mean of its \
         slices, which the verdict uses; the slices' plain mean (the slow tail kept) is \
         recorded beside it and the verdict recomputed from it (with the controls as the \
         trimmed means judge them) is reported, not used. Without \
         pressure, two more walks at P = 0 for magic-plain, magic and dbb (each against its \
         hot twin): the main sweep's own windows, each walked once untimed just before it is \
         timed (its first reads of a line then find the line as far as the caches keep \
         it), in a call of its own after the sweep, and a long search of few roots walked {} \
         plies deep, {} moves per node, with its own window; its table lines' first reads per \
         lookup come from the same reuse analysis.",
        SearchShape::LONG.depth,
        SearchShape::LONG.branching
    )
}

/// The findings: the answer in one sentence, then the costs at the top pressure, seed 004's
/// verdict, the controls, the dose–response, the reuse, the survival, the table pages and the
/// bracket.
pub(super) fn paragraph(m: &Measurement, n: &Numbers) -> String {
    let top = n.top_reads;
    let answer = analysis::answer::sentence(&n.verdict, &n.chains.positive, top);
    let mut out: Vec<String> = n.chains.cost_sentence(top).into_iter().collect();
    out.extend(n.verdict.sentences(top));
    out.extend(n.estimators.sentence(&n.verdict, top));
    out.extend(n.unpressed.sentence(m));
    out.extend(n.chains.control_sentences(top));
    out.extend(n.dose.sentences(top));
    out.extend(analysis::reuse::sentence(m));
    out.extend(n.survival.sentence(m, top));
    out.extend(n.survival.evicts_sentence(m, top));
    out.extend(n.pages.sentences());
    out.extend(n.bracket.sentence(m));
    format!("{answer}\n\n{}", out.join(" "))
}
