#!/usr/bin/env bash
# Fuzzing (tests/fuzz/README.md). Builds ./build-fuzz with clang, -Dfuzz=true and ASan+UBSan, then
#   scripts/fuzz.sh            replays every committed corpus and fuzzes each target for
#                              FX_FUZZ_SECONDS (default 20) — the CI step; one summary line.
#   scripts/fuzz.sh --long S   fuzzes each target for S seconds, one after the other (nice'd),
#                              printing libFuzzer's final statistics (for docs/reliability.md).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
fx_ensure_packages || exit 1
seconds="${FX_FUZZ_SECONDS:-20}"
long=""
if [ "${1:-}" = "--long" ]; then
  long="${2:?--long needs a duration in seconds}"
fi
targets=(fuzz_sosparse fuzz_design fuzz_cascade fuzz_plan fuzz_chain)

if [ ! -f "$FX_ROOT/build-fuzz/build.ninja" ]; then
  fx_log "configuring build-fuzz (clang, fuzz, sanitize)"
  CC=clang meson setup "$FX_ROOT/build-fuzz" "$FX_ROOT" -Dfuzz=true -Dsanitize=true -Dgpu_kernels=false \
    -Dfuzz_seconds="$seconds" >"${TMPDIR:-/tmp}/gst-fx-fuzz-setup.log" 2>&1 ||
    { tail -n 40 "${TMPDIR:-/tmp}/gst-fx-fuzz-setup.log"; echo "0 passed, 1 failed"; exit 1; }
else
  meson configure "$FX_ROOT/build-fuzz" -Dfuzz_seconds="$seconds" >/dev/null
fi
fx_log "building the fuzz targets"
ninja -C "$FX_ROOT/build-fuzz" gst/libgstfx.so $(for t in "${targets[@]}"; do
  printf 'tests/fuzz/%s tests/fuzz/%s_replay ' "$t" "$t"; done) >"$FX_ROOT/build-fuzz/fuzz-build.log" 2>&1 ||
  { tail -n 60 "$FX_ROOT/build-fuzz/fuzz-build.log"; echo "0 passed, 1 failed"; exit 1; }

if [ -n "$long" ]; then
  rc=0
  for t in "${targets[@]}"; do
    fx_log "$t: fuzzing for $long s"
    GST_REGISTRY_FORK=no nice -n 10 "$FX_ROOT/tests/fuzz/run-fuzzer.sh" \
      "$FX_ROOT/build-fuzz/tests/fuzz/$t" "$long" "$FX_ROOT/build-fuzz/tests/fuzz/long/$t" \
      "$FX_ROOT/tests/fuzz/corpus/$t" | grep -E "stat::|ERROR|SUMMARY|invariant|Done" || rc=1
  done
  exit $rc
fi

fx_log "fuzz corpora replay + ${seconds} s of fuzzing per target"
meson test -C "$FX_ROOT/build-fuzz" --no-rebuild --suite fuzz-replay --suite fuzz \
  --print-errorlogs --num-processes 1
rc=$?
"$FX_PYTHON" "$FX_ROOT/scripts/summary.py" "$FX_ROOT/build-fuzz/meson-logs/testlog.json"
exit $rc
