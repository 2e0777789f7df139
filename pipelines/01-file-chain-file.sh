#!/usr/bin/env bash
# 01 — file → fused chain → file.
#
# What it does: decodes IN (anything GStreamer decodes), runs it through an fxchain of a 4th-order
#   Butterworth high-pass at 80 Hz, a +3 dB peaking band at 3 kHz, -1 dB of gain and an 8th-order
#   Butterworth low-pass at 12 kHz, and writes OUT as 32-bit float WAV. Without IN it first writes
#   10 s of stereo pink noise (FX_SMOKE=1: 1 s) to $FX_OUT/01-input.wav and uses that.
# How to run: pipelines/01-file-chain-file.sh [IN [OUT]]     (default OUT: $FX_OUT/01-output.wav)
# What to expect: the fxchain-stats line that fxchain posts at EOS: plan "0: cascade
#   fxbutterworth0+fxbiquad0+fxgain0+fxbutterworth1: 7 sections, backend cpu-…", and
#   dispatches equal to buffers (the four stages run as ONE native call per buffer); then
#   "wrote OUT".
set -euo pipefail
source "$(dirname "$0")/env.sh"

IN="${1:-}"
OUT="${2:-$FX_OUT/01-output.wav}"
if [ -z "$IN" ]; then
  IN="$FX_OUT/01-input.wav"
  gst-launch-1.0 -q audiotestsrc wave=pink-noise volume=0.5 num-buffers="$FX_BUFFERS" \
    ! audio/x-raw,format=S16LE,rate=48000,channels=2 ! wavenc ! filesink location="$IN"
fi

CHAIN="fxbutterworth mode=high-pass cutoff=80 order=4 ! fxbiquad type=peaking frequency=3000 q=1.2 gain=3 ! fxgain gain=-1 ! fxbutterworth mode=low-pass cutoff=12000 order=8"
gst-launch-1.0 -m filesrc location="$IN" ! decodebin ! audioconvert ! audioresample \
  ! audio/x-raw,format=F32LE ! fxchain chain="$CHAIN" \
  ! wavenc ! filesink location="$OUT" | grep -E 'fxchain-stats'
echo "wrote $OUT"
