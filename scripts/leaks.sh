#!/usr/bin/env bash
# The element tests (tests/gst) with GStreamer's leaks tracer: each
# test program runs without forking (CK_FORK=no), so the tracer sees every test; gst-check's
# gst_check_run_suite() ends with gst_deinit(), where the tracer logs an "object-alive" record for
# every GstObject/GstMiniObject still alive and warns "Leaks detected" (fatal under gst-check). Any
# leak warning or record, a GLib CRITICAL or a non-zero exit fails; a failing program is run again
# with creation stacks and ref/unref history (check-refs) for the report. Uses ./build.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
fx_ensure_packages || exit 1
fx_build build -Dwerror=true || { echo "0 passed, 1 failed"; exit 1; }
passed=0 failed=0
logdir="$FX_ROOT/build/leaks"
mkdir -p "$logdir"
: >"$logdir/testlog.json" # one meson-style JSON line per test program, for scripts/summary.py

# run_traced PROGRAM LOG [TRACER]: one program without forking, under the leaks tracer.
# Detection needs only the tracer's list of objects alive at gst_deinit(). Recording a stack trace
# for every object creation and every ref/unref (check-refs, STACK_TRACE) is for diagnosis: it
# symbolises each frame with dladdr(), which made test_stress alone run for over 10 minutes, so a
# program runs with it only after it failed, to write the report.
run_traced() {
  local prog="$1" log="$2" tracer="${3:-leaks}" stack=0
  [ "$tracer" = leaks ] || stack=1
  GST_PLUGIN_PATH_1_0="$FX_ROOT/build/gst" GST_REGISTRY_1_0="$logdir/registry-$(basename "$prog").bin" \
    CK_FORK=no FX_STRESS_SCALE=${FX_STRESS_SCALE:-10} \
    GST_TRACERS="$tracer" GST_LEAKS_TRACER_STACK_TRACE=$stack \
    GST_DEBUG="GST_TRACER:7,leaks:4" GST_DEBUG_NO_COLOR=1 "$prog" >"$log" 2>&1
}
count_alive() { grep -cE "Leaks detected|:: object-alive," "$1"; }

# Positive control: a program that leaks an element and a buffer must be reported.
run_traced "$FX_ROOT/build/tests/gst/leak_canary" "$logdir/leak_canary.log"
canary=$(count_alive "$logdir/leak_canary.log")
if [ "$canary" -lt 3 ]; then
  fx_log "leak_canary: the leaks tracer did not report the deliberate leak ($canary records, see $logdir/leak_canary.log)"
  echo '{"name": "leaks-canary", "result": "FAIL"}' >>"$logdir/testlog.json"
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
fi

for t in "$FX_ROOT"/build/tests/gst/test_*; do
  [ -x "$t" ] && [ -f "$t" ] || continue
  name="$(basename "$t")"
  log="$logdir/$name.log"
  run_traced "$t" "$log"
  rc=$?
  alive=$(count_alive "$log")
  refs=$(grep -cE "CRITICAL" "$log")
  if [ $rc -ne 0 ] || [ "$alive" -ne 0 ] || [ "$refs" -ne 0 ]; then
    fx_log "$name: exit $rc, $alive object(s) alive at exit, $refs refcount report(s)"
    # The diagnostic run: creation stack and ref/unref history of every object left alive.
    run_traced "$t" "$log.refs" "leaks(check-refs=true)"
    fx_log "$name: stack traces and ref history in $log.refs"
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
