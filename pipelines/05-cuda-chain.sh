#!/usr/bin/env bash
# 05 — the chain of example 01 on the GPU (device=cuda).
#
# What it does: runs the fused chain of 01 with device=cuda on 10 s (FX_SMOKE=1: 1 s) of stereo
#   F32 noise in buffers of 4096 frames, and prints fxchain-stats (backend, dispatches, CUDA
#   launches). See docs/cuda.md for the CUDA backend.
# How to run: pipelines/05-cuda-chain.sh
# What to expect: with an NVIDIA GPU and driver, backend "cuda-…" and one launch per buffer (a
#   CUDA-graph replay counts as one). Without a usable GPU (or a plugin built without CUDA), one
#   warning from the element naming the reason, processing continues on the CPU (backend "cpu-…",
#   launches 0) and no buffer is dropped: dispatches still equal buffers.
set -euo pipefail
source "$(dirname "$0")/env.sh"

CHAIN="fxbutterworth mode=high-pass cutoff=80 order=4 ! fxbiquad type=peaking frequency=3000 q=1.2 gain=3 ! fxgain gain=-1 ! fxbutterworth mode=low-pass cutoff=12000 order=8"
gst-launch-1.0 -m audiotestsrc wave=white-noise samplesperbuffer=4096 \
  num-buffers=$((FX_SECONDS * 48000 / 4096)) ! audio/x-raw,format=F32LE,rate=48000,channels=2 \
  ! fxchain device=cuda chain="$CHAIN" ! fakesink 2>&1 | grep -E 'fxchain-stats|WARNING|CUDA|cuda'
