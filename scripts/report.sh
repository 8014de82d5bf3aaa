#!/usr/bin/env bash
# The full report as committed: `kiki report --with E9` (E1-E8 and E10, plus E9, which builds kiki for
# x86-64 with and without `portable`, x86-64-v3 with `portable`, x86-64-v4 where the CPU has
# AVX-512, and native, and runs E1 and E2 with each build beside the default x86-64-v3 binary),
# then the index of every report folder.
#
# usage: scripts/report.sh [--out DIR] [any other `kiki report` options, e.g. --quick]
set -euo pipefail
cd "$(dirname "$0")/.."

out=reports
invocations=5
args=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --out=*) out="${1#--out=}"; shift ;;
        --quick) invocations=2; args+=("$1"); shift ;;
        --invocations) invocations="$2"; args+=("$1" "$2"); shift 2 ;;
        --invocations=*) invocations="${1#--invocations=}"; args+=("$1"); shift ;;
        *) args+=("$1"); shift ;;
    esac
done
[[ "$invocations" =~ ^[0-9]+$ ]] || { echo "report.sh: --invocations needs a number" >&2; exit 2; }

layouts=target/layouts
mkdir -p "$layouts"
files=()
# Relinks only the kiki binary (the objects are the same): cargo rustc's extra flags reach the
# final crate alone.
for ((seed = 1; seed < invocations; seed++)); do
    echo "== linking kiki in code layout $((seed + 1)) of $invocations (shuffle seed $seed)" >&2
    env -u RUSTFLAGS cargo rustc --release --quiet --bin kiki -- \
        -C "link-arg=-Wl,--shuffle-sections=.text.*=$seed"
    cp target/release/kiki "$layouts/kiki-layout-$((seed + 1))"
    files+=("$layouts/kiki-layout-$((seed + 1))")
done
echo "== building kiki (x86-64-v3, the default; layout 1, the plain link)" >&2
env -u RUSTFLAGS cargo build --release --quiet --bin kiki
cp target/release/kiki "$layouts/kiki-layout-1"
files=("$layouts/kiki-layout-1" "${files[@]}")
echo "== kiki report --with E9" >&2
target/release/kiki report --out "$out" --with E9 --layouts "$(IFS=,; echo "${files[*]}")" "${args[@]}"
target/release/kiki report-index --dir "$out" >&2
