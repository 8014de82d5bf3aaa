#!/usr/bin/env bash
# The full report as committed: `kiki report --with E9` (E1-E8 and E10, plus E9, which builds kiki for
# x86-64 with and without `portable`, x86-64-v3 with `portable`, x86-64-v4 where the CPU has
# AVX-512, and native, and runs E1 and E2 with each build beside the default x86-64-v3 binary),
# then the index of every report folder.
#
# usage: scripts/report.sh [--out DIR] [any other `kiki report` options, e.g. --quick; with
# --only LIST, E9 runs only if LIST names it]
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
rm -f "$layouts"/kiki-layout-*
# E11 runs four times the report's invocations (PROCESSES_PER_INVOCATION, rule v6's sampling),
# each in a layout of its own; the other experiments use the first K.
count=$((4 * invocations))
echo "== building kiki (x86-64-v3, the default), keeping its objects and its link command" >&2
# A fresh binary would not print its link command: remove it so that rustc links again (only the
# final crate and ThinLTO rerun).
if [[ -f target/release/kiki ]]; then
    find target/release/deps -maxdepth 1 -samefile target/release/kiki -delete
    rm -f target/release/kiki
fi
env -u RUSTFLAGS cargo rustc --release --quiet --bin kiki -- -C save-temps --print link-args \
    > "$layouts/link-command"
grep -q -- '"-o"' "$layouts/link-command" || { echo "report.sh: no link command from rustc" >&2; exit 1; }
files=()
# Layout 1 is the plain link; layout n + 1 shuffles the .text sections with seed n. The same
# objects each time: only the linker reruns (well under a second).
for ((n = 0; n < count; n++)); do
    file="$layouts/kiki-layout-$((n + 1))"
    shuffle=""
    ((n > 0)) && shuffle=" \"-Wl,--shuffle-sections=.text.*=$n\""
    sed -E "s#\"-o\" \"[^\"]*\"#\"-o\" \"$file\"$shuffle#" "$layouts/link-command" > "$layouts/link-one"
    bash "$layouts/link-one"
    files+=("$file")
done
echo "== linked $count code layouts" >&2
# E9 joins the default experiments unless --only names the experiments to run.
with=(--with E9)
for arg in "${args[@]}"; do
    [[ "$arg" == --only* ]] && with=()
done
echo "== kiki report ${with[*]} ${args[*]}" >&2
target/release/kiki report --out "$out" "${with[@]}" --layouts "$(IFS=,; echo "${files[*]}")" "${args[@]}"
target/release/kiki report-index --dir "$out" >&2
