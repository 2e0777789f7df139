#!/usr/bin/env bash
# Side-by-side benchmark: gst-fx (every kernel path this CPU and build have) against the stock
# audiocheblimit/audioiirfilter, scipy.signal.sosfilt (float32/float64), SoX and TorchFX's CPU
# path, in one run. Prints the tables and writes bench/results/compare.{md,csv,png}.
#
#   bench/run-compare.sh [--quick] [--no-torchfx] [--retry-torchfx] [compare.py options...]
#
# BUILD_DIR (default <repo>/build) selects the build directory; it is configured with the project
# defaults (buildtype debugoptimized) when missing and brought up to date with ninja. For a
# release build: meson setup /tmp/build-bench --buildtype=release && BUILD_DIR=/tmp/build-bench ...
# Missing Debian packages (sox, python3-matplotlib, the GStreamer/numpy/scipy ones) are installed
# with apt-get as scripts/lib.sh does. TorchFX lives in its own venv
# (TORCHFX_VENV, default ${XDG_CACHE_HOME:-~/.cache}/gst-fx-bench/torchfx-venv); the first run
# tries to create it with pip, limited to TORCHFX_INSTALL_TIMEOUT seconds (600); a failed attempt
# is remembered for a day (--retry-torchfx tries again) and TorchFX is then reported as skipped.
# Never part of the tests, and nothing in CI depends on TorchFX.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${BUILD_DIR:-$ROOT/build}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
# shellcheck source=../scripts/lib.sh
. "$ROOT/scripts/lib.sh"

use_torchfx=1
retry_torchfx=0
args=()
for a in "$@"; do
  case "$a" in
    --no-torchfx) use_torchfx=0 ;;
    --retry-torchfx) retry_torchfx=1 ;;
    -h | --help)
      sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
      exec "$FX_PYTHON" "$ROOT/bench/compare.py" --help
      ;;
    *) args+=("$a") ;;
  esac
done
if [ "${FX_BENCH_NO_TORCHFX:-0}" = 1 ] || [ "${CI:-}" = true ]; then use_torchfx=0; fi

# --- packages -------------------------------------------------------------------------------------
FX_PACKAGES+=(sox python3-matplotlib util-linux)
if ! fx_ensure_packages; then
  fx_log "could not install every package; missing peers are reported as skipped"
fi

# --- build ----------------------------------------------------------------------------------------
if [ ! -f "$BUILD/build.ninja" ]; then
  fx_log "configuring $BUILD (project defaults)"
  meson setup "$BUILD" "$ROOT" >/dev/null || { fx_log "meson setup failed"; exit 1; }
fi
fx_log "building $BUILD"
ninja -C "$BUILD" >/dev/null || ninja -C "$BUILD" || { fx_log "build failed"; exit 1; }
if [ ! -f "$BUILD/tests/libfxdsp_py.so" ]; then
  fx_log "$BUILD/tests/libfxdsp_py.so missing (configure with -Dtests=true)"
  exit 1
fi
export GST_PLUGIN_PATH_1_0="$BUILD/gst"
export GST_REGISTRY_1_0="$BUILD/gst-registry-compare.bin"
rm -f "$GST_REGISTRY_1_0"

# --- TorchFX in a throwaway venv --------------------------------------------------------------------
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/gst-fx-bench"
VENV="${TORCHFX_VENV:-$CACHE/torchfx-venv}"
# torchfx 0.8.0's prebuilt extension is ABI-bound to the torch it was built with: with the newest
# torch (2.15.0) its CPU kernel fails ("CUDA extension not compiled; move tensors to CPU").
TORCH_SPEC="${TORCHFX_TORCH_SPEC:-torch==2.12.1}"
FAILED_MARK="$VENV.install-failed"
torchfx_python=""
torchfx_note=""
torchfx_ok() { # the venv's torchfx filters a CPU tensor
  "$VENV/bin/python" - <<'EOF' 2>&1 | tail -n 1
import torch, torchfx as fx
f = fx.filter.LoButterworth(cutoff=1000, order=4, fs=48000)
f(torch.zeros(2, 64))
print("ok")
EOF
}
if [ $use_torchfx = 0 ]; then
  torchfx_note="disabled (--no-torchfx, FX_BENCH_NO_TORCHFX=1 or CI)"
else
  if [ ! -x "$VENV/bin/python" ] || [ "$(torchfx_ok)" != ok ]; then
    if [ -f "$FAILED_MARK" ] && [ $retry_torchfx = 0 ] &&
      [ -n "$(find "$FAILED_MARK" -mmin -1440 2>/dev/null)" ]; then
      torchfx_note="install failed within the last day: $(cat "$FAILED_MARK") (--retry-torchfx)"
    else
      fx_log "installing torchfx + $TORCH_SPEC into $VENV (pip; torch is large; at most ${TORCHFX_INSTALL_TIMEOUT:-600} s)"
      mkdir -p "$CACHE" "$(dirname "$VENV")"
      py=""
      for c in /usr/bin/python3 python3; do
        if "$c" -m venv --help >/dev/null 2>&1 && "$c" -c 'import ensurepip' 2>/dev/null; then
          py="$c"
          break
        fi
      done
      log="$VENV.install.log"
      if [ -z "$py" ]; then
        echo "no python3 with venv/ensurepip (Debian: python3-venv)" >"$FAILED_MARK"
      elif { [ -x "$VENV/bin/pip" ] || "$py" -m venv "$VENV" >"$log" 2>&1; } &&
        timeout "${TORCHFX_INSTALL_TIMEOUT:-600}" "$VENV/bin/pip" install -q \
          --disable-pip-version-check torchfx "$TORCH_SPEC" >>"$log" 2>&1; then
        rm -f "$FAILED_MARK"
      else
        echo "pip install torchfx $TORCH_SPEC failed or timed out (see $log)" >"$FAILED_MARK"
      fi
      if [ ! -f "$FAILED_MARK" ] && [ "$(torchfx_ok)" != ok ]; then
        echo "torchfx installed but its CPU filter fails: $(torchfx_ok)" >"$FAILED_MARK"
      fi
      if [ -f "$FAILED_MARK" ]; then torchfx_note="$(cat "$FAILED_MARK")"; fi
    fi
  fi
  if [ -z "$torchfx_note" ]; then torchfx_python="$VENV/bin/python"; fi
fi
[ -n "$torchfx_note" ] && fx_log "TorchFX skipped: $torchfx_note"

# --- run ------------------------------------------------------------------------------------------
rev="$(fx_bench_rev)"
buildtype="$(meson introspect --buildoptions "$BUILD" 2>/dev/null |
  "$FX_PYTHON" -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="buildtype"))' 2>/dev/null || echo '?')"

exec "$FX_PYTHON" "$ROOT/bench/compare.py" --build "$BUILD" --out "$ROOT/bench/results" \
  --label "commit $rev, build $BUILD, buildtype $buildtype" \
  --torchfx-python "$torchfx_python" --torchfx-note "$torchfx_note" "${args[@]}"
