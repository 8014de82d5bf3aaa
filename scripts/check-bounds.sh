#!/usr/bin/env bash
# Reads the machine code of each backend's hot calls (examples/bounds_probe.rs, built as
# the default release build) and fails if any of them can reach a bounds check or a panic.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --features probes --example bounds_probe >/dev/null 2>&1 || cargo build --release --features probes --example bounds_probe
binary=target/release/examples/bounds_probe
objdump -d -C --no-show-raw-insn "$binary" | awk '
  /^[0-9a-f]+ <.*>:$/ {
    name = $0; sub(/^[0-9a-f]+ </, "", name); sub(/>:$/, "", name)
    probe = (name ~ /^bounds_probe::[a-z_]+::[a-z_]+$/ && name !~ /exercise/) ? name : ""
    if (probe != "") { functions++; bad[probe] = 0; order[functions] = probe }
    next
  }
  probe != "" && /call|jmp/ && /panic|bounds_check|unwrap_failed|expect_failed/ { bad[probe]++ }
  # A call into another function hides that function'"'"'s code: name it so it can be read too.
  probe != "" && /call/ && /</ { callee = $0; sub(/.*</, "", callee); sub(/>.*/, "", callee); if (callee !~ /^bounds_probe::/) calls[probe] = calls[probe] " " callee }
  END {
    failures = 0
    for (i = 1; i <= functions; i++) {
      f = order[i]
      printf "%-50s %s%s\n", f, bad[f] ? "BOUNDS CHECK OR PANIC REACHABLE" : "clean", calls[f] ? "; calls:" calls[f] : ""
      if (bad[f]) failures++
    }
    if (functions == 0) { print "no probe functions found"; exit 1 }
    exit failures > 0
  }'
