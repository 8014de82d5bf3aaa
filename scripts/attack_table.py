#!/usr/bin/env python3
"""Median ns per lookup from criterion's output of benches/attacks.rs, as a Markdown table."""
import json
import os
import sys

PAIRS = 4096  # lookups per criterion iteration (benches/attacks.rs)
root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
rows = {}
for group in sorted(os.listdir(root)) if os.path.isdir(root) else []:
    if not group.startswith("attacks"):
        continue
    prefix, _, backend = group.partition("_")
    label = backend + (" (portable)" if prefix == "attacks-portable" else "")
    for slider in sorted(os.listdir(os.path.join(root, group))):
        slider_dir = os.path.join(root, group, slider)
        if not os.path.isdir(slider_dir) or slider == "report":
            continue
        for density in sorted(os.listdir(slider_dir)):
            path = os.path.join(slider_dir, density, "new", "estimates.json")
            if os.path.exists(path):
                with open(path) as f:
                    median = json.load(f)["median"]["point_estimate"]
                rows.setdefault(label, {})[(slider, density)] = median / PAIRS
if not rows:
    sys.exit(f"no criterion results under {root}: run 'cargo bench --bench attacks' first")
columns = sorted({key for values in rows.values() for key in values})
print("| backend | " + " | ".join(f"{s} {d}" for s, d in columns) + " |")
print("|---|" + "---|" * len(columns))
for label in sorted(rows):
    cells = [f"{rows[label][c]:.2f}" if c in rows[label] else "" for c in columns]
    print(f"| {label} | " + " | ".join(cells) + " |")
