#!/usr/bin/env bash
# Fails when a C source differs from what the root .clang-format produces.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
  echo "SKIP: clang-format not installed"
  exit 77
fi
mapfile -t files < <(git ls-files -co --exclude-standard -- '*.c' '*.h' '*.cu' 2>/dev/null ||
  find dsp gst tests tools cuda -name '*.[ch]' 2>/dev/null)
bad=0
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f (run: clang-format -i $f)"
    bad=1
  fi
done
[ $bad -eq 0 ] && echo "${#files[@]} files formatted"
exit $bad
