#!/usr/bin/env python3
"""Compares two builds of kiki cell by cell from report folders measured in alternation.

Usage: compare-builds.py A B SLOT_DIR...

Each SLOT_DIR holds one report folder per build of one slot, in subfolders named after the
builds (`SLOT_DIR/A/`, `SLOT_DIR/B/`), each the output of
`kiki report --quick --only E1,E2 --invocations 1 --out SLOT_DIR/A` from that build, the builds
run one after the other (rotate which goes first from slot to slot; scripts/compare-builds.sh). A cell is one series (experiment
and labels); its value in a report is the median of its rounds. Per cell the slots give paired
ratios B/A; the script prints their geometric mean with a 95 % t interval over slots, and says
"level" when the interval lies within ±THRESHOLD, "B faster"/"B slower" when it lies wholly
beyond it, else "unresolved". The last lines count the cells whose interval excludes 1 and
those that state an order at the threshold.
"""

import glob
import json
import math
import os
import statistics
import sys

THRESHOLD = 0.03
# Two-sided 95 % Student t quantiles by degrees of freedom.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


def cells(report_root):
    """{(experiment, labels): median} of the one report folder under report_root."""
    found = glob.glob(os.path.join(report_root, "*", "results.json"))
    if len(found) != 1:
        sys.exit(f"error: expected one report under {report_root}, found {len(found)}")
    with open(found[0]) as f:
        results = json.load(f)
    out = {}
    for experiment in results["experiments"]:
        for series in experiment.get("series", []):
            if not series["unit"].startswith("ns/") or not series["samples"]:
                continue
            key = (experiment["id"], tuple(sorted(series["labels"].items())), series["unit"])
            out[key] = statistics.median(series["samples"])
    return out


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__.strip().splitlines()[2])
    a_label, b_label, slots = sys.argv[1], sys.argv[2], sys.argv[3:]
    per_slot = [(cells(os.path.join(s, a_label)), cells(os.path.join(s, b_label))) for s in slots]
    keys = sorted(set.intersection(*(set(a) & set(b) for a, b in per_slot)))
    df = len(slots) - 1
    if df not in T95:
        sys.exit("error: 2 to 10 slots")
    t = T95[df]
    excludes_one = ordered = 0
    rows = []
    for key in keys:
        logs = [math.log(b[key] / a[key]) for a, b in per_slot]
        mean = statistics.fmean(logs)
        half = t * statistics.stdev(logs) / math.sqrt(len(logs))
        low, high = math.exp(mean - half), math.exp(mean + half)
        if low > 1 or high < 1:
            excludes_one += 1
        if high <= 1 + THRESHOLD and low >= 1 - THRESHOLD:
            claim = "level"
        elif low > 1 + THRESHOLD:
            claim, ordered = f"{b_label} slower", ordered + 1
        elif high < 1 - THRESHOLD:
            claim, ordered = f"{b_label} faster", ordered + 1
        else:
            claim = "unresolved"
        a_median = statistics.median(a[key] for a, _ in per_slot)
        labels = " ".join(v for _, v in key[1])
        rows.append((key[0], labels, a_median, math.exp(mean), low, high, claim))
    print(f"{b_label} / {a_label}, {len(slots)} slots, {len(keys)} cells (ns, medians of rounds)")
    print("experiment | cell | A ns | B/A | 95 % interval | claim at ±3 %")
    for experiment, labels, a_ns, ratio, low, high, claim in rows:
        print(f"{experiment} | {labels} | {a_ns:.2f} | {ratio:.3f} | {low:.3f}–{high:.3f} | {claim}")
    claims = [r[6] for r in rows]
    print(f"cells: {len(rows)}; interval excludes 1: {excludes_one}; order stated: {ordered}; "
          + "; ".join(f"{c}: {claims.count(c)}" for c in sorted(set(claims))))
    ratios = [r[3] for r in rows]
    print(f"geometric mean of B/A over cells: {math.exp(statistics.fmean(map(math.log, ratios))):.4f}")
    # Per experiment and backend: the geometric mean over its cells, and the range of its cells.
    groups = {}
    for key, row in zip(keys, rows):
        backend = dict(key[1]).get("backend", "?")
        groups.setdefault((key[0], backend), []).append(row[3])
    print("experiment | backend | cells | geometric mean of B/A | lowest–highest cell")
    for (experiment, backend), values in sorted(groups.items()):
        mean = math.exp(statistics.fmean(map(math.log, values)))
        print(f"{experiment} | {backend} | {len(values)} | {mean:.3f} | {min(values):.3f}–{max(values):.3f}")


if __name__ == "__main__":
    main()
