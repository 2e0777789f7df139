#!/usr/bin/env bash
# Runs one libFuzzer target for SECONDS on top of its committed corpus (read-only: new inputs go to
# WORKDIR/corpus, crashes to WORKDIR/). Exit status: the fuzzer's (non-zero on a crash, a leak, a
# sanitizer report, a timeout or an out-of-memory). Prints the executions at the end.
# usage: run-fuzzer.sh FUZZER SECONDS WORKDIR CORPUS [libFuzzer options...]
set -u
fuzzer="$1" seconds="$2" work="$3" corpus="$4"
shift 4
mkdir -p "$work/corpus"
# Leak detection stays on except for the GStreamer target (GLib's one-time allocations).
leaks=1
case "$fuzzer" in *fuzz_chain) leaks=0 ;; esac
"$fuzzer" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=4096 \
  -detect_leaks="$leaks" -print_final_stats=1 -artifact_prefix="$work/" \
  "$@" "$work/corpus" "$corpus" 2>&1 | tail -n 40
exit "${PIPESTATUS[0]}"
