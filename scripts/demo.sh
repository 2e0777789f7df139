#!/usr/bin/env bash
# The demo: 10 s of stereo F32 48 kHz white noise through a high-pass 80 Hz (order 4) and a
# low-pass 12 kHz (order 8) Butterworth, fused by fxchain into one cascade, written to a WAV
# file. Prints the fusion plan and how many native calls (dispatches) the run took.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
fx_ensure_packages
fx_build build -Dwerror=true

fx_gst_env build
mkdir -p "$FX_ROOT/out"
OUT="$FX_ROOT/out/demo.wav"
CHAIN="fxbutterworth mode=high-pass cutoff=80 order=4 ! fxbutterworth mode=low-pass cutoff=12000 order=8"
fx_log "running the pipeline"
# -m prints bus messages; fxchain posts an "fxchain-stats" message with its plan and counters at EOS.
stats=$(gst-launch-1.0 -m \
  audiotestsrc wave=white-noise volume=0.5 samplesperbuffer=4800 num-buffers=100 \
  ! audio/x-raw,format=F32LE,rate=48000,channels=2 \
  ! fxchain chain="$CHAIN" \
  ! wavenc ! filesink location="$OUT" | grep 'fxchain-stats' || true)
if [ -z "$stats" ]; then
  echo "the pipeline did not finish (no fxchain-stats message)" >&2
  exit 1
fi
field() { sed -E "s/.*[ ,]$1=\\(([a-z0-9]+)\\)(\"([^\"]*)\"|([^,;]*)).*/\\3\\4/; s/\\\\//g" <<<"$stats"; }
echo "chain:      $CHAIN"
echo "plan:       $(field plan)"
echo "buffers:    $(field buffers)"
echo "dispatches: $(field dispatches) (one native call per buffer for the whole fused chain)"
echo "wrote $OUT ($(stat -c %s "$OUT") bytes: 10 s, stereo, 32-bit float, 48 kHz)"
