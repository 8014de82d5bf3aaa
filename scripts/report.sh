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
args=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --out=*) out="${1#--out=}"; shift ;;
        *) args+=("$1"); shift ;;
    esac
done

echo "== building kiki (x86-64-v3, the default)" >&2
env -u RUSTFLAGS cargo build --release --quiet --bin kiki
echo "== kiki report --with E9" >&2
target/release/kiki report --out "$out" --with E9 "${args[@]}"
target/release/kiki report-index --dir "$out" >&2
