#!/usr/bin/env bash
# Times E1 and E2 (or the experiments in $ONLY; quick sizes, one process each) from several kiki binaries in rotated order,
# SLOTS times, for scripts/compare-builds.py. Usage:
#   scripts/compare-builds.sh OUT SLOTS NAME=BINARY[@DIR] ...
# DIR is the folder a binary runs in (its checkout, for the peer engine and ../shared);
# default: this checkout. Each run writes OUT/slot-N/NAME/<report folder>.
set -euo pipefail
out=$1 slots=$2
shift 2
names=() binaries=() dirs=()
for spec in "$@"; do
  names+=("${spec%%=*}")
  rest=${spec#*=}
  binaries+=("${rest%%@*}")
  if [[ $rest == *@* ]]; then dirs+=("${rest#*@}"); else dirs+=("$PWD"); fi
done
count=${#names[@]}
for ((slot = 0; slot < slots; slot++)); do
  for ((k = 0; k < count; k++)); do
    i=$(((slot + k) % count))
    target="$out/slot-$slot/${names[$i]}"
    mkdir -p "$target"
    echo "slot $slot: ${names[$i]} ($(date +%T))"
    (cd "${dirs[$i]}" && "${binaries[$i]}" report --quick --only "${ONLY:-E1,E2}" --invocations 1 \
      --out "$target" > "$target.log" 2>&1)
  done
done
