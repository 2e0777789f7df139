#!/usr/bin/env bash
# The element tests (tests/gst, meson suite gst) under valgrind memcheck, through the meson test
# setup `valgrind` (tests/gst/meson.build): any invalid access, uninitialised read or definite leak
# fails. Uses ./build (scripts/test.sh builds it); meson writes the log as
# build/meson-logs/testlog-valgrind.{txt,json}. Prints one summary line.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
fx_ensure_packages || exit 1
fx_build build -Dwerror=true || { echo "0 passed, 1 failed"; exit 1; }
fx_log "element tests under valgrind memcheck"
meson test -C "$FX_ROOT/build" --setup valgrind --suite gst --print-errorlogs --num-processes 2
rc=$?
"$FX_PYTHON" "$FX_ROOT/scripts/summary.py" "$FX_ROOT/build/meson-logs/testlog-valgrind.json"
exit $rc
