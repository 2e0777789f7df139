#!/usr/bin/env bash
# 02 — microphone → fxeq → speakers.
#
# What it does: a three-band EQ (low shelf +4 dB at 120 Hz, -3 dB at 2.5 kHz, a 60 Hz high-pass
#   against rumble) between the default capture device (autoaudiosrc) and the default playback
#   device (autoaudiosink). Each device is probed first; where none works (a server or a VM
#   without sound) it falls back to audiotestsrc (pink noise) and/or fakesink, and says so.
# How to run: pipelines/02-mic-eq-speakers.sh        (Ctrl-C to stop; FX_SMOKE=1 stops after 1 s)
# What to expect: "source: …" and "sink: …" lines saying what was picked, then gst-launch running
#   until Ctrl-C (with the test source: 10 s, FX_SMOKE=1: 1 s) and "Execution ended".
set -euo pipefail
source "$(dirname "$0")/env.sh"

# A device is usable when a two-buffer pipeline through it ends cleanly within 5 s and warns
# about nothing (autoaudiosink falls back to a fake sink with only a warning).
probe() {
  local out
  out=$(timeout 5 gst-launch-1.0 "$@" 2>&1) || return 1
  ! grep -qE '^(WARNING|ERROR)' <<<"$out"
}

if probe autoaudiosrc ! identity eos-after=2 ! fakesink; then
  SRC=(autoaudiosrc ! identity eos-after="$FX_BUFFERS")
  # A live microphone runs until Ctrl-C; the smoke run stops after FX_BUFFERS buffers.
  [ "${FX_SMOKE:-0}" = 1 ] || SRC=(autoaudiosrc)
  echo "source: autoaudiosrc (default capture device)"
else
  SRC=(audiotestsrc wave=pink-noise volume=0.3 is-live=true num-buffers="$FX_BUFFERS")
  echo "source: audiotestsrc (no usable capture device)"
fi
if probe audiotestsrc num-buffers=2 ! autoaudiosink; then
  SINK=(autoaudiosink)
  echo "sink: autoaudiosink (default playback device)"
else
  SINK=(fakesink sync=true)
  echo "sink: fakesink (no usable playback device)"
fi

gst-launch-1.0 -e "${SRC[@]}" ! audioconvert ! audioresample ! audio/x-raw,format=F32LE \
  ! fxeq num-bands=3 \
      band0::type=low-shelf band0::frequency=120 band0::q=0.7071 band0::gain=4 \
      band1::type=peaking band1::frequency=2500 band1::q=1.4 band1::gain=-3 \
      band2::type=high-pass band2::frequency=60 band2::q=0.7071 \
  ! audioconvert ! audioresample ! "${SINK[@]}"
