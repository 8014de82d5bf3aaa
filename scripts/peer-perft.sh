#!/usr/bin/env bash
# Side-by-side perft: kiki (default x86-64-v3 release build) against the peer crate haitaka 0.3.2
# at its best (feature `qugiy`, -C target-cpu=native, fat LTO; scripts/peers/haitaka-perft).
# Each program times its own perft call; the programs run alternately, RUNS rounds per position,
# and the order inside a round flips every round. LEAF picks the convention at the last ply, the
# same in both programs: count (default; bulk counting, no move built) or list (every move built
# into a list and the list counted: `kiki perft --leaf list`, `haitaka-perft --leaf list`).
#
#   RUNS=7 BACKENDS="qugiy dbb" scripts/peer-perft.sh
#   HAITAKA_SLIDERS=magic scripts/peer-perft.sh   # haitaka's default sliders instead of qugiy
#   LEAF=list scripts/peer-perft.sh               # every leaf move built into a list
#
# Prints a Markdown table: per program/backend the median M nodes/s with min-max, and for each kiki
# backend the ratio of its median to haitaka's median plus the min and max of the per-round ratios.
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS="${RUNS:-7}"
BACKENDS="${BACKENDS:-qugiy dbb}"
HAITAKA_SLIDERS="${HAITAKA_SLIDERS:-qugiy}"
LEAF="${LEAF:-count}"
case "$LEAF" in
  count | list) ;;
  *) echo "LEAF must be count or list, got '$LEAF'" >&2; exit 2 ;;
esac
PEER_DIR=scripts/peers/haitaka-perft
PEER_TARGET="$PEER_DIR/target/$HAITAKA_SLIDERS"
PEER="$PEER_TARGET/release/haitaka-perft"
case "$HAITAKA_SLIDERS" in
  qugiy) PEER_FEATURES=(--features qugiy) ;;
  magic) PEER_FEATURES=(--no-default-features) ;;
  *) echo "HAITAKA_SLIDERS must be qugiy or magic, got '$HAITAKA_SLIDERS'" >&2; exit 2 ;;
esac
KIKI=./target/release/kiki

# label|sfen|depth|expected nodes: SFEN and published count from tests/data/public_perft.sfen
# (a line there: name | SFEN | count at depth 1, 2, ...).
public_position() { # label name depth
  local sfen counts
  sfen="$(sed -n "s/^$2 *| *\(.*[^ ]\) *| .*/\1/p" tests/data/public_perft.sfen)"
  counts="$(sed -n "s/^$2 *| .* | *//p" tests/data/public_perft.sfen)"
  read -r -a counts <<<"$counts"
  [[ -n "$sfen" && -n "${counts[$3 - 1]:-}" ]] || {
    echo "tests/data/public_perft.sfen: no '$2' with a count at depth $3" >&2
    exit 2
  }
  printf '%s|%s|%s|%s' "$1" "$sfen" "$3" "${counts[$3 - 1]}"
}
POSITIONS=(
  "$(public_position startpos start 5)"
  "$(public_position midgame second 4)"
)

echo "building kiki (default release build) ..." >&2
cargo build --release --quiet
echo "building haitaka-perft ($HAITAKA_SLIDERS sliders, -C target-cpu=native) ..." >&2
RUSTFLAGS="-C target-cpu=native" cargo build --release --quiet "${PEER_FEATURES[@]}" \
  --manifest-path "$PEER_DIR/Cargo.toml" --target-dir "$PEER_TARGET"

raw="$(mktemp)"
trap 'rm -f "$raw"' EXIT

run_kiki() { # label round backend sfen depth
  local line
  line="$("$KIKI" perft --sfen "$4" --depth "$5" --backend "$3" --leaf "$LEAF" --json)"
  printf '%s\t%s\tkiki %s\t%s\n' "$1" "$2" "$3" "$line" >>"$raw"
}
run_peer() { # label round sfen depth
  local line
  line="$("$PEER" --sfen "$3" --depth "$4" --leaf "$LEAF")"
  printf '%s\t%s\thaitaka\t%s\n' "$1" "$2" "$line" >>"$raw"
}

echo "load before: $(uptime)" >&2
for pos in "${POSITIONS[@]}"; do
  IFS='|' read -r label sfen depth expected <<<"$pos"
  for ((round = 1; round <= RUNS; round++)); do
    echo "  $label depth $depth round $round/$RUNS" >&2
    if ((round % 2)); then
      for b in $BACKENDS; do run_kiki "$label" "$round" "$b" "$sfen" "$depth"; done
      run_peer "$label" "$round" "$sfen" "$depth"
    else
      run_peer "$label" "$round" "$sfen" "$depth"
      for b in $BACKENDS; do run_kiki "$label" "$round" "$b" "$sfen" "$depth"; done
    fi
  done
done
echo "load after:  $(uptime)" >&2

HAITAKA_SLIDERS="$HAITAKA_SLIDERS" LEAF="$LEAF" python3 - "$raw" "${POSITIONS[@]}" <<'PY'
import json, os, statistics, sys
sliders = os.environ["HAITAKA_SLIDERS"]
leaf = os.environ["LEAF"]
leaf_text = {"count": "bulk counting at the last ply, no move built",
             "list": "every last-ply move built into a list, the list counted"}[leaf]
from collections import defaultdict

raw, positions = sys.argv[1], sys.argv[2:]
meta = {}
for p in positions:
    label, sfen, depth, expected = p.split("|")
    meta[label] = (int(depth), int(expected))

nps = defaultdict(dict)      # (label, program) -> {round: nps}
nodes = defaultdict(set)     # (label, program) -> node counts seen
programs = []
for line in open(raw):
    label, rnd, prog, out = line.rstrip("\n").split("\t", 3)
    if prog not in programs:
        programs.append(prog)
    if prog == "haitaka":
        f = out.split()
        n, s = int(f[f.index("nodes") + 1]), float(f[f.index("seconds") + 1])
    else:
        j = json.loads(out)
        n, s = int(j["nodes"]), float(j["seconds"])
    nodes[(label, prog)].add(n)
    nps[(label, prog)][int(rnd)] = n / s

bad = False
for label, (depth, expected) in meta.items():
    for prog in programs:
        seen = nodes[(label, prog)]
        if seen != {expected}:
            print(f"NODE COUNT MISMATCH: {prog} on {label} depth {depth}: {sorted(seen)}, expected {expected}",
                  file=sys.stderr)
            bad = True

print(f"| program / backend (leaf {leaf}) | position | depth | nodes | median M nodes/s | min–max M nodes/s | median ratio vs haitaka | per-round ratio min–max |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for label, (depth, expected) in meta.items():
    ref = nps[(label, "haitaka")]
    ref_med = statistics.median(ref.values())
    for prog in programs:
        v = nps[(label, prog)]
        med = statistics.median(v.values())
        n = next(iter(nodes[(label, prog)]))
        if prog == "haitaka":
            ratio, rr = "1.00", "—"
        else:
            per_round = [v[r] / ref[r] for r in v if r in ref]
            ratio = f"{med / ref_med:.2f}"
            rr = f"{min(per_round):.2f}–{max(per_round):.2f}"
        name = f"haitaka 0.3.2 ({sliders}, native)" if prog == "haitaka" else prog
        print(f"| {name} | {label} | {depth} | {n} | {med / 1e6:.1f} | "
              f"{min(v.values()) / 1e6:.1f}–{max(v.values()) / 1e6:.1f} | {ratio} | {rr} |")
print(f"\n{len(next(iter(nps.values())))} rounds; each program times its own perft (leaf {leaf}: {leaf_text}).")
sys.exit(1 if bad else 0)
PY
