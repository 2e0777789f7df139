#!/usr/bin/env bash
# Runs one libFuzzer target for SECONDS on top of its committed corpus (read-only: new inputs go to
# WORKDIR/corpus, crashes to WORKDIR/). Exit status: 0, or 1 on a crash, a leak, a sanitizer
# report, a timeout or an out-of-memory: never 77, libFuzzer's default for a finding, which meson
# reads as a skipped test (a finding went unnoticed that way). Prints the executions at the end.
# libFuzzer's random choices start from a fixed seed (1), or from FX_TEST_SEED when it is set; a
# failure prints it. (The run is bounded by time, so how far it gets still depends on the machine.)
# usage: run-fuzzer.sh FUZZER SECONDS WORKDIR CORPUS [libFuzzer options...]
set -u
fuzzer="$1" seconds="$2" work="$3" corpus="$4"
shift 4
mkdir -p "$work/corpus"
# Leak detection stays on except for the GStreamer target (GLib's one-time allocations).
leaks=1
case "$fuzzer" in *fuzz_chain) leaks=0 ;; esac
# libFuzzer takes a 32-bit seed and treats 0 as "draw one"
seed=$(( ${FX_TEST_SEED:-1} % 4294967296 ))
[ "$seed" -eq 0 ] && seed=1
"$fuzzer" -seed="$seed" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=4096 \
  -error_exitcode=1 -timeout_exitcode=1 -detect_leaks="$leaks" -print_final_stats=1 \
  -artifact_prefix="$work/" \
  "$@" "$work/corpus" "$corpus" 2>&1 | tail -n 40
rc="${PIPESTATUS[0]}"
[ "$rc" -eq 77 ] && rc=1 # whatever exits 77 (a sanitizer's own exit code): a failure, not a skip
[ "$rc" -ne 0 ] && echo "run-fuzzer.sh: failed with -seed=$seed (FX_TEST_SEED=${FX_TEST_SEED:-unset})"
exit "$rc"
