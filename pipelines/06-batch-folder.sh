#!/usr/bin/env bash
# 06 — gst-fx batch over a folder.
#
# What it does: processes every WAV file in DIR through one fused plan with `gst-fx batch`
#   (docs/design.md: the files are stacked on the channel axis, so each block is one dispatch, one
#   launch on a GPU; the output is identical to processing each file alone) and writes the
#   results, same names, to $FX_OUT/06-batch-out. Without DIR it first writes eight 1 s stereo
#   test files to $FX_OUT/06-batch-in.
# How to run: pipelines/06-batch-folder.sh [DIR]
# What to expect: one output file per input file in $FX_OUT/06-batch-out and gst-fx's summary.
#   Needs the `batch` command of gst-fx; where this build's gst-fx has none, the script says so
#   and exits with status 2.
set -euo pipefail
source "$(dirname "$0")/env.sh"

if ! "$GST_FX" batch --help >/dev/null 2>&1; then
  echo "06-batch-folder: '$GST_FX batch' is not available in this build of gst-fx" >&2
  exit 2
fi

DIR="${1:-}"
if [ -z "$DIR" ]; then
  DIR="$FX_OUT/06-batch-in"
  mkdir -p "$DIR"
  for i in 1 2 3 4 5 6 7 8; do
    gst-launch-1.0 -q audiotestsrc wave=pink-noise volume=0.5 num-buffers=47 \
      ! audio/x-raw,format=S16LE,rate=48000,channels=2 ! wavenc \
      ! filesink location="$DIR/take$i.wav"
  done
fi
mkdir -p "$FX_OUT/06-batch-out"
CHAIN="fxbutterworth mode=high-pass cutoff=80 order=4 ! fxbiquad type=peaking frequency=3000 q=1.2 gain=3 ! fxbutterworth mode=low-pass cutoff=12000 order=8"
# the folder itself: its .wav files (--input-ext; add -r for its subfolders, mirrored in the output)
"$GST_FX" batch --chain "$CHAIN" --input-ext wav -o "$FX_OUT/06-batch-out" "$DIR"
ls "$FX_OUT/06-batch-out"
