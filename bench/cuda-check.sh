#!/usr/bin/env bash
# gst-fx — GPU check: on a machine with an NVIDIA GPU, a CUDA toolkit (nvcc), meson and ninja but
# no GStreamer, builds dsp/ and cuda/ (-Dgst=disabled) with the benchmark programs (-Dbench=true),
# runs the CUDA and dsp tests, then prints the timing table of bench/cuda.c (fx-bench-cuda).
# Finishes within about 5 minutes (each step has a time limit).
# Full logs go to the directory given on the command line:
#   bench/cuda-check.sh LOGDIR
# LOGDIR/summary.md collects the results; the other files are the logs of each step.
set -uo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 LOGDIR" >&2
  exit 2
fi
mkdir -p "$1" || exit 2
out=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-cuda-check"
summary="$out/summary.md"
start=$(date +%s)
rc=0

deadline=$((start + 295))

step() { # name, seconds (capped by what is left of the 5 minutes), command...
  local name=$1 secs=$2
  shift 2
  local left=$((deadline - $(date +%s)))
  [ "$secs" -gt "$left" ] && secs=$left
  if [ "$secs" -lt 5 ]; then
    echo "- $name: skipped (no time left)" >>"$summary"
    return 124
  fi
  local t0=$SECONDS
  echo "== $name (limit ${secs}s)"
  timeout --kill-after=10 "$secs" "$@" >"$out/$name.log" 2>&1
  local r=$?
  echo "   rc=$r, $((SECONDS - t0)) s; log: $out/$name.log"
  echo "- $name: rc=$r ($((SECONDS - t0)) s)" >>"$summary"
  return $r
}

export PATH="$PATH:/usr/local/cuda/bin"
{
  echo "# gst-fx CUDA check"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo 'nvidia-smi not available')"
  echo "- nvcc: $(nvcc --version 2>/dev/null | tail -1 || echo 'not found')"
  echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo
} >"$summary"
{
  uname -a
  nvidia-smi 2>&1 || true
  nvcc --version 2>&1 || true
  meson --version 2>&1 || true
  ninja --version 2>&1 || true
} >"$out/env.log" 2>&1

rm -rf "$build"
# -Dbench=true: fx-bench-cuda, the timing program run last
step setup 60 meson setup "$build" "$root" -Dgst=disabled -Dcuda=enabled -Dbench=true \
  -Dbuildtype=release ||
  rc=1
if [ $rc -eq 0 ]; then
  step build 200 ninja -C "$build" || rc=1
fi
if [ $rc -eq 0 ]; then
  # the real-GPU accuracy tests first (they print SKIP and exit 77 when no GPU is usable)
  step test-cuda-gpu 90 "$build/tests/cuda/test_cuda" || rc=1
  grep -E "^device|rel err|identical|checks|SKIP|FAIL" "$out/test-cuda-gpu.log" |
    sed 's/^/    /' >>"$summary"
  # the fake driver and the fault paths (the real-GPU test, suite cuda-gpu, just ran)
  step test-cuda-suite 60 meson test -C "$build" --suite cuda --num-processes 8 \
    --print-errorlogs --no-rebuild || rc=1
  tail -n 8 "$out/test-cuda-suite.log" | sed 's/^/    /' >>"$summary"
  elapsed=$(($(date +%s) - start))
  if [ $elapsed -lt 150 ]; then
    step test-dsp 60 meson test -C "$build" --suite dsp --num-processes 8 --no-rebuild || true
  fi
  elapsed=$(($(date +%s) - start))
  left=$((290 - elapsed))
  if [ $left -gt 30 ]; then
    budget=3
    [ $left -lt 120 ] && budget=1
    step bench "$left" "$build/cuda/fx-bench-cuda" --budget "$budget" \
      --deadline "$((left - 15))" || rc=1
    { echo; cat "$out/bench.log"; } >>"$summary"
  else
    echo "- bench: skipped (no time left)" >>"$summary"
  fi
fi
echo "- total: $(($(date +%s) - start)) s, rc=$rc" >>"$summary"
cat "$summary"
exit $rc
