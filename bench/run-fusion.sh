#!/usr/bin/env bash
# Fusion benchmark: fxchain fused vs unfused on the CPU, net of an identity pipeline.
# Builds what is missing, runs bench/fusion.c (fx-bench-fusion) and writes bench/results/fusion.md
# and bench/results/fusion.csv. Extra arguments go to fx-bench-fusion (see --help), e.g.
#   bench/run-fusion.sh --reps 15 --depths 1,2,5,10,20,40
# BUILD_DIR (default <repo>/build) selects the build directory; the script configures it with
# -Dbench=true (or turns that on in an existing build) for fx-bench-fusion. Never part of the tests.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=../scripts/lib.sh
. "$ROOT/scripts/lib.sh"
BUILD="${BUILD_DIR:-$ROOT/build}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac

# fx-bench-fusion is a benchmark program: the build gets -Dbench=true (scripts/lib.sh)
fx_bench_build "$BUILD"

export GST_PLUGIN_PATH_1_0="$BUILD/gst"
export GST_REGISTRY_1_0="$BUILD/gst-registry-bench.bin"
rm -f "$GST_REGISTRY_1_0"

rev="$(fx_bench_rev)"
buildtype="$(meson introspect --buildoptions "$BUILD" 2>/dev/null |
  /usr/bin/python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="buildtype"))' 2>/dev/null || echo '?')"

# this machine's float FMA-throughput bound per channel-sample and section: the best vector path's
# (bench/compare.py measures the clock and the FMA instructions per cycle)
bound="$(/usr/bin/python3 - "$ROOT/bench" <<'EOF' 2>/dev/null || true
import os, shutil, sys, tempfile
sys.path.insert(0, sys.argv[1])
import compare
cpu = compare.cpu_info()
tmp = tempfile.mkdtemp()
pin = ["taskset", "-c", "1"] if (os.cpu_count() or 1) > 1 and shutil.which("taskset") else []
cl = compare.measure_clock(tmp, cpu, pin)
shutil.rmtree(tmp, ignore_errors=True)
need = compare.KERNEL_FLAGS
ks = [k for k in compare.KERNELS if all(f in cpu["flags"] for f in need[k])]
print("%.5f" % min(compare.fma_bound_ns(cl, k, 1, False) for k in ks))
EOF
)"
bound_args=()
[ -n "$bound" ] && bound_args=(--fma-bound "$bound")

exec "$BUILD/tools/fx-bench-fusion" --out "$ROOT/bench/results" \
  --label "commit $rev, buildtype $buildtype" "${bound_args[@]}" "$@"
