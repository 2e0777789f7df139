#!/usr/bin/env bash
# The whole test suite: C unit tests (dsp), element tests (gst-check), Python tests (meson suite
# `python`: pytest with numpy/scipy as independent references), each once; unless FX_TEST_QUICK=1,
# the reliability steps and the Debian packages (scripts/deb.sh). Ends with one summary line.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
fx_ensure_packages || exit 1
# Warnings are errors here (and so in CI, which runs this script).
fx_build build -Dwerror=true || { echo "0 passed, 1 failed"; exit 1; }

fx_gst_env build
rm -f "$FX_ROOT/build/gst-registry.bin"

fx_log "C tests (meson test)"
meson test -C "$FX_ROOT/build" --print-errorlogs --num-processes 2 --no-suite python
c_rc=$?

# pytest in the system Python with the build's plugin, libfxdsp_py.so and gst-fx
# (tests/python/meson.build); its cases are counted from the JUnit report, its own meson log is
# kept apart (testlog-python.json) so that the summary does not count the run twice
fx_log "Python tests (meson test --suite python: pytest)"
rm -f "$FX_ROOT/build/pytest.xml"
cd "$FX_ROOT"
meson test -C "$FX_ROOT/build" --no-rebuild --suite python --logbase testlog-python
py_rc=$?

logs=("$FX_ROOT/build/meson-logs/testlog.json" "$FX_ROOT/build/pytest.xml")
rel_rc=0
# Reliability steps (docs/reliability.md); FX_TEST_QUICK=1 skips them for quick local loops.
if [ "${FX_TEST_QUICK:-0}" != 1 ]; then
  for step in fuzz sanitize leaks valgrind; do
    fx_log "reliability: scripts/$step.sh"
    start=$SECONDS
    bash "$FX_ROOT/scripts/$step.sh" || rel_rc=1
    fx_log "reliability: scripts/$step.sh took $((SECONDS - start)) s"
  done
  logs+=("$FX_ROOT/build-fuzz/meson-logs/testlog.json"
    "$FX_ROOT/build-asan/meson-logs/testlog.json" "$FX_ROOT/build-asan/pytest.xml"
    "$FX_ROOT/build/leaks/testlog.json" "$FX_ROOT/build/meson-logs/testlog-valgrind.json")

  # The Debian packages (scripts/deb.sh: dpkg-buildpackage, lintian without errors, where the
  # plugin and the program land), counted in the summary as one test case.
  fx_log "packages: scripts/deb.sh"
  start=$SECONDS
  deb_failures=0
  bash "$FX_ROOT/scripts/deb.sh" "$FX_ROOT/build-deb" || { deb_failures=1; rel_rc=1; }
  fx_log "packages: scripts/deb.sh took $((SECONDS - start)) s"
  mkdir -p "$FX_ROOT/build-deb"
  printf '<testsuite name="packages" tests="1" failures="%d"><testcase classname="scripts" name="deb.sh" time="%d">%s</testcase></testsuite>\n' \
    "$deb_failures" "$((SECONDS - start))" \
    "$([ $deb_failures -eq 0 ] || echo '<failure message="scripts/deb.sh failed (see its output above)"/>')" \
    >"$FX_ROOT/build-deb/deb-check.xml"
  logs+=("$FX_ROOT/build-deb/deb-check.xml")
fi

"$FX_PYTHON" "$FX_ROOT/scripts/summary.py" "${logs[@]}"
sum_rc=$?
if [ $c_rc -ne 0 ] || [ $py_rc -ne 0 ] || [ $sum_rc -ne 0 ] || [ $rel_rc -ne 0 ]; then
  exit 1
fi
exit 0
