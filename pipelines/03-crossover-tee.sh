#!/usr/bin/env bash
# 03 — a Linkwitz–Riley crossover into two files through tee.
#
# What it does: splits stereo white noise with tee into a 4th-order Linkwitz–Riley low-pass and
#   high-pass at 2 kHz (a two-way loudspeaker crossover) and writes each band to its own WAV file,
#   plus the unfiltered input for comparison. The queues give each branch its own thread.
# How to run: pipelines/03-crossover-tee.sh [CUTOFF_HZ]      (default 2000)
# What to expect: $FX_OUT/03-low.wav, 03-high.wav and 03-input.wav, the same length. low + high
#   is an all-pass of the input: the same magnitude spectrum, only the phase differs
#   (tests/python/test_pipelines.py checks that).
set -euo pipefail
source "$(dirname "$0")/env.sh"

CUTOFF="${1:-2000}"
gst-launch-1.0 -q audiotestsrc wave=white-noise volume=0.5 num-buffers="$FX_BUFFERS" \
  ! audio/x-raw,format=F32LE,rate=48000,channels=2 ! tee name=t \
  t. ! queue ! fxlinkwitzriley mode=low-pass cutoff="$CUTOFF" order=4 \
       ! wavenc ! filesink location="$FX_OUT/03-low.wav" \
  t. ! queue ! fxlinkwitzriley mode=high-pass cutoff="$CUTOFF" order=4 \
       ! wavenc ! filesink location="$FX_OUT/03-high.wav" \
  t. ! queue ! wavenc ! filesink location="$FX_OUT/03-input.wav"
echo "wrote $FX_OUT/03-low.wav $FX_OUT/03-high.wav $FX_OUT/03-input.wav (crossover at $CUTOFF Hz)"
