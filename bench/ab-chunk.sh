#!/bin/bash
# gst-fx — A/B of the chunked float kernel between two source trees, in one process.
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   bench/ab-chunk.sh [--isa avx2|sse2|avx512] REV_A [REV_B] -- K C FRAMES allpass|seed|butter [ROUNDS]
#
# REV_A, REV_B: git revisions (REV_B: the working tree when omitted). Compiles the f32_s kernel
# file of the instruction set from each tree (dsp/kernel_<isa>_f32_s.c, the build's flags), renames
# the chunked kernel of each (ab_a_chunk, ab_b_chunk) and runs bench/ab_chunk.c on them, pinned to
# one core (FX_BENCH_CPU, default 1): the two alternate every ~20 ms, so the ratio B/A is measured
# on the same machine state (this VM changes speed by 1.8x from minute to minute; docs/benchmarking.md).
# Example: bench/ab-chunk.sh HEAD~1 -- 6 2 1024 seed
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
isa=avx2
if [ "${1:-}" = --isa ]; then isa=$2; shift 2; fi
a=${1:?usage: bench/ab-chunk.sh [--isa ISA] REV_A [REV_B] -- K C FRAMES DESIGN [ROUNDS]}
shift
b=
if [ "${1:-}" != -- ]; then b=${1:-}; shift || true; fi
[ "${1:-}" = -- ] && shift
[ $# -ge 4 ] || { echo "ab-chunk.sh: K C FRAMES DESIGN after --" >&2; exit 2; }
case $isa in
avx2) flags=(-mavx2 -mfma) ;;
sse2) flags=(-msse2) ;;
avx512) flags=(-mavx512f -mavx512dq -mavx512vl -mavx2 -mfma) ;; # its chunked kernels: kernel_avx512n_*
*) echo "ab-chunk.sh: --isa avx2, sse2 or avx512" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tree() { # tree SIDE REV: the dsp/ sources of REV (the working tree for an empty REV)
  mkdir -p "$tmp/$1"
  if [ -z "$2" ]; then cp -r "$root/dsp" "$tmp/$1/"; else git -C "$root" archive "$2" dsp | tar -x -C "$tmp/$1"; fi
}
kernel() { # kernel SIDE: compile, rename the chunked kernel, hide everything else it defines;
  # the side's chunk tables and records (bench/ab_chunk_side.c with the tree's chunk.c) likewise
  local o="$tmp/$1.o" sym="fx_kernel_${isa}_f32_s_chunk"
  local src="$tmp/$1/dsp/kernel_${isa}_f32_s.c"
  [ "$isa" = avx512 ] && src="$tmp/$1/dsp/kernel_avx512n_f32_s.c" # the 256-bit code, 32 registers
  cc -std=c11 -O3 -D_GNU_SOURCE -ffp-contract=off "${flags[@]}" -I"$tmp/$1/dsp" -c "$src" -o "$o"
  local args=(--redefine-sym "$sym=ab_$1_chunk")
  for s in $(nm -g --defined-only "$o" | awk '{print $3}'); do
    [ "$s" = "$sym" ] || args+=(--localize-symbol "$s")
  done
  objcopy "${args[@]}" "$o"
  local t="$tmp/$1-tables.o"
  cc -std=c11 -O2 -D_GNU_SOURCE -DAB_SIDE="$1" -I"$tmp/$1/dsp" -c "$root/bench/ab_chunk_side.c" -o "$t"
  args=()
  for s in $(nm -g --defined-only "$t" | awk '{print $3}'); do
    case $s in ab_"$1"_tables | ab_"$1"_records) ;; *) args+=(--localize-symbol "$s") ;; esac
  done
  [ ${#args[@]} -eq 0 ] || objcopy "${args[@]}" "$t"
}
tree a "$a"
tree b "$b"
kernel a
kernel b
cc -std=c11 -O2 -D_GNU_SOURCE -I"$root/dsp" "$root/bench/ab_chunk.c" \
  "$root/dsp/cascade_sections.c" "$root/dsp/design.c" "$tmp/a.o" "$tmp/b.o" "$tmp/a-tables.o" \
  "$tmp/b-tables.o" -lm -o "$tmp/ab"
echo "A: ${a}  B: ${b:-working tree}  ($isa f32_s)"
taskset -c "${FX_BENCH_CPU:-1}" "$tmp/ab" "$@"
