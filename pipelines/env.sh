# Sourced by the shell examples in pipelines/: finds the gst-fx plugin and the gst-fx program of
# this checkout, and sets the run length. Nothing here is needed when gst-fx is installed.
#   FX_SMOKE=1   short run (about 1 s of audio), as the smoke test (tests/python/test_pipelines.py) does
#   FX_OUT=DIR   where outputs go (default: out/pipelines in the repository)
FX_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if ! gst-inspect-1.0 fxchain >/dev/null 2>&1 && [ -d "$FX_REPO/build/gst" ]; then
  export GST_PLUGIN_PATH_1_0="$FX_REPO/build/gst${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}"
fi
if [ -n "${GST_FX:-}" ]; then
  :
elif [ -x "$FX_REPO/build/tools/gst-fx" ]; then
  GST_FX="$FX_REPO/build/tools/gst-fx"
else
  GST_FX="gst-fx"
fi
FX_OUT="${FX_OUT:-$FX_REPO/out/pipelines}"
mkdir -p "$FX_OUT"
# Seconds of audio the examples run for.
if [ "${FX_SMOKE:-0}" = 1 ]; then FX_SECONDS=1; else FX_SECONDS=10; fi
# Buffers of 1024 frames at 48 kHz for FX_SECONDS.
FX_BUFFERS=$((FX_SECONDS * 48000 / 1024))
