#!/usr/bin/env bash
# The element tests (tests/gst) with GStreamer's leaks tracer (check-refs, stack traces): each
# test program runs without forking (CK_FORK=no), so the tracer sees every test; gst-check's
# gst_check_run_suite() ends with gst_deinit(), where the tracer logs an "object-alive" record for
# every GstObject/GstMiniObject still alive (with its creation stack and, check-refs, its ref/unref
# history) and warns "Leaks detected" (fatal under gst-check). Any leak warning or record, a GLib
# CRITICAL or a non-zero exit fails. Uses ./build.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
fx_ensure_packages || exit 1
fx_build build -Dwerror=true || { echo "0 passed, 1 failed"; exit 1; }
passed=0 failed=0
logdir="$FX_ROOT/build/leaks"
mkdir -p "$logdir"
: >"$logdir/testlog.json" # one meson-style JSON line per test program, for scripts/summary.py
for t in "$FX_ROOT"/build/tests/gst/test_*; do
  [ -x "$t" ] && [ -f "$t" ] || continue
  name="$(basename "$t")"
  log="$logdir/$name.log"
  GST_PLUGIN_PATH_1_0="$FX_ROOT/build/gst" GST_REGISTRY_1_0="$logdir/registry-$name.bin" \
    CK_FORK=no FX_STRESS_SCALE=${FX_STRESS_SCALE:-10} \
    GST_TRACERS="leaks(check-refs=true)" GST_LEAKS_TRACER_STACK_TRACE=1 \
    GST_DEBUG="GST_TRACER:7,leaks:4" GST_DEBUG_NO_COLOR=1 "$t" >"$log" 2>&1
  rc=$?
  alive=$(grep -cE "Leaks detected|:: object-alive," "$log")
  refs=$(grep -cE "CRITICAL" "$log")
  if [ $rc -ne 0 ] || [ "$alive" -ne 0 ] || [ "$refs" -ne 0 ]; then
    fx_log "$name: exit $rc, $alive object(s) alive at exit, $refs refcount report(s) (see $log)"
    grep -m 20 -E "Leaks detected|:: object-alive,|CRITICAL|^\.\./" "$log" >&2
    failed=$((failed + 1))
    echo "{\"name\": \"leaks-$name\", \"result\": \"FAIL\"}" >>"$logdir/testlog.json"
  else
    fx_log "$name: no leaks ($(grep -E '^[0-9]+%: Checks' "$log"))"
    passed=$((passed + 1))
    echo "{\"name\": \"leaks-$name\", \"result\": \"OK\"}" >>"$logdir/testlog.json"
  fi
done
echo "$passed passed, $failed failed, 0 skipped"
[ $failed -eq 0 ]
