#!/usr/bin/env bash
# The full report with E9: builds kiki for three instruction-set levels — x86-64 (with the
# `portable` feature), x86-64-v3 (the default build) and native — runs E1 and E2 with each,
# then runs the full `kiki report` on the default build with the three runs folded in as E9,
# and rebuilds the index.
#
# usage: scripts/report.sh [--out DIR] [any other `kiki report` options, e.g. --quick]
# env:   KIKI_E9_ONLY  experiments each ISA build runs (default E1,E2)
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
only="${KIKI_E9_ONLY:-E1,E2}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# level, target dir, RUSTFLAGS (empty: the x86-64-v3 default of .cargo/config.toml), features
builds=(
    "x86-64|target/isa-x86-64|-C target-cpu=x86-64|--features=portable"
    "x86-64-v3|target||"
    "native|target/isa-native|-C target-cpu=native|"
)
folded=()
for build in "${builds[@]}"; do
    IFS='|' read -r level dir flags features <<<"$build"
    echo "== building kiki for $level" >&2
    if [[ -n "$flags" ]]; then
        RUSTFLAGS="$flags" cargo build --release --quiet --bin kiki --target-dir "$dir" $features
    else
        env -u RUSTFLAGS cargo build --release --quiet --bin kiki --target-dir "$dir" $features
    fi
    echo "== $level: kiki report --only $only" >&2
    folder="$("$dir/release/kiki" report --only "$only" --out "$work/$level" "${args[@]}")"
    folded+=("$level=$folder")
done

e9="$(IFS=,; echo "${folded[*]}")"
echo "== full report with E9 ($e9)" >&2
target/release/kiki report --out "$out" --e9 "$e9" "${args[@]}"
target/release/kiki report-index --dir "$out" >&2
