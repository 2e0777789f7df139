#!/usr/bin/env bash
# The demo: 10 s of stereo F32 48 kHz white noise through a high-pass 80 Hz (order 4) and a
# low-pass 12 kHz (order 8) Butterworth, written to a WAV file.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
fx_ensure_packages
fx_build build -Dwerror=true

fx_gst_env build
mkdir -p "$FX_ROOT/out"
OUT="$FX_ROOT/out/demo.wav"
fx_log "running the pipeline"
gst-launch-1.0 -q \
  audiotestsrc wave=white-noise volume=0.5 samplesperbuffer=4800 num-buffers=100 \
  ! audio/x-raw,format=F32LE,rate=48000,channels=2 \
  ! fxbutterworth mode=high-pass cutoff=80 order=4 \
  ! fxbutterworth mode=low-pass cutoff=12000 order=8 \
  ! wavenc ! filesink location="$OUT"
echo "wrote $OUT ($(stat -c %s "$OUT") bytes: 10 s, stereo, 32-bit float, 48 kHz)"
