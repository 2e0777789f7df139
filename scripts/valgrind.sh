#!/usr/bin/env bash
# The element tests (tests/gst, meson suite gst) under valgrind memcheck, through the meson test
# setup `valgrind` (tests/gst/meson.build): any invalid access, uninitialised read or definite leak
# fails. Uses ./build (scripts/test.sh builds it). Prints one summary line.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
fx_ensure_packages || exit 1
fx_build build -Dwerror=true || { echo "0 passed, 1 failed"; exit 1; }
fx_log "element tests under valgrind memcheck"
# Separate log directory per setup is not supported: keep the normal test log intact.
cp -f "$FX_ROOT/build/meson-logs/testlog.json" "$FX_ROOT/build/meson-logs/testlog-main.json" 2>/dev/null
meson test -C "$FX_ROOT/build" --setup valgrind --suite gst --print-errorlogs --num-processes 2 \
  --logbase testlog-valgrind
rc=$?
"$FX_PYTHON" "$FX_ROOT/scripts/summary.py" "$FX_ROOT/build/meson-logs/testlog-valgrind.json"
exit $rc
