#!/usr/bin/env bash
# The whole test suite (meson tests + pytest) on a build with AddressSanitizer + UBSan
# (-Dsanitize=true, in ./build-asan). pytest runs in the system Python, which is not instrumented:
# the ASan runtime is preloaded (LD_PRELOAD) so that the instrumented plugin and libfxdsp_py.so
# can load. Leak detection is off for pytest (the interpreter's own allocations); the C element
# tests are leak-checked by scripts/leaks.sh and scripts/valgrind.sh instead. Ends with one
# summary line; exit status 1 on any failure or sanitizer report.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
fx_ensure_packages || exit 1
fx_build build-asan -Dsanitize=true -Dwerror=true -Dgpu_kernels=false || { echo "0 passed, 1 failed"; exit 1; }

fx_gst_env build-asan
rm -f "$FX_ROOT/build-asan/gst-registry.bin"
# Any sanitizer report fails the process (UBSan: -fno-sanitize-recover at build time).
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# The plugin scanner is a separate, uninstrumented program: scan in process.
export GST_REGISTRY_FORK=no

fx_log "C tests under ASan+UBSan (meson test)"
meson test -C "$FX_ROOT/build-asan" --print-errorlogs --num-processes 2 --no-suite python
c_rc=$?

# The meson suite `python` of a sanitize build preloads gcc's libasan and libubsan into the system
# Python and sets ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0:halt_on_error=1:
# abort_on_error=1 (CPython frees little at exit; the interpreter is not linked against ASan),
# UBSAN_OPTIONS and GST_REGISTRY_FORK as above (tests/python/meson.build). The gst-fx program the
# CLI tests run is this build's, instrumented too.
fx_log "Python tests under ASan+UBSan (meson test --suite python: pytest, libasan preloaded)"
rm -f "$FX_ROOT/build-asan/pytest.xml"
meson test -C "$FX_ROOT/build-asan" --no-rebuild --suite python --logbase testlog-python
py_rc=$?

"$FX_PYTHON" "$FX_ROOT/scripts/summary.py" "$FX_ROOT/build-asan/meson-logs/testlog.json" \
  "$FX_ROOT/build-asan/pytest.xml"
sum_rc=$?
[ $c_rc -eq 0 ] && [ $py_rc -eq 0 ] && [ $sum_rc -eq 0 ]
