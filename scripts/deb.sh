#!/usr/bin/env bash
# Builds the Debian packages of debian/: gstreamer1.0-fx (the plugin, in
# /usr/lib/<multiarch>/gstreamer-1.0) and gst-fx (the program, its man page, bash completion and
# the documentation), with `dpkg-buildpackage -us -uc -b` on a copy of the sources, so that the
# source tree gets no build products and nothing is written beside it. Then lintian (any error
# fails) and a check with `dpkg -c` of where the files land.
#     scripts/deb.sh [OUTDIR]          # default build-deb/; the packages are OUTDIR/*.deb
#     sudo apt install ./build-deb/gstreamer1.0-fx_*.deb ./build-deb/gst-fx_*.deb
# Installs what is missing (dpkg-dev, debhelper, lintian and debian/control's Build-Depends) with
# apt-get, as root or through sudo (scripts/lib.sh). The packages are built without the CUDA
# kernels, tests and benchmarks (debian/rules).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

out="${1:-$FX_ROOT/build-deb}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
start=$SECONDS

fx_ensure_packages "${FX_DEB_PACKAGES[@]}"
# debian/control's Build-Depends that are missing (version constraints dropped: Debian 12's
# packages satisfy them)
if ! unmet="$(dpkg-checkbuilddeps "$FX_ROOT/debian/control" 2>&1)"; then
  unmet="$(printf '%s\n' "$unmet" | sed -n 's/.*Unmet build dependencies: //p' | sed 's/([^)]*)//g')"
  # shellcheck disable=SC2086
  fx_ensure_packages $unmet
fi

version="$(dpkg-parsechangelog -l "$FX_ROOT/debian/changelog" -S Version)"
src="$out/gst-fx-$version"
rm -rf "$src" "$out/unpacked" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mkdir -p "$src"
# the sources: what git tracks plus new files it does not ignore (without git: the tree less the
# build directories)
if git -C "$FX_ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$FX_ROOT" && git ls-files -z --cached --others --exclude-standard |
    tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$src"
else
  (cd "$FX_ROOT" && tar --exclude='./build*' --exclude=./.git --exclude=./out -cf - .) |
    tar -xf - -C "$src"
fi

fx_log "dpkg-buildpackage in $src (log: $out/build.log)"
build_start=$SECONDS
if ! (cd "$src" && dpkg-buildpackage -us -uc -b -J"${FX_DEB_JOBS:-$(nproc)}") >"$out/build.log" 2>&1; then
  tail -n 40 "$out/build.log" >&2
  fx_log "dpkg-buildpackage failed (full log: $out/build.log)"
  exit 1
fi
changes="$(ls "$out"/gst-fx_"$version"_*.changes)"
fx_log "dpkg-buildpackage took $((SECONDS - build_start)) s"

lint_start=$SECONDS
fx_log "lintian $(basename "$changes")"
lint_rc=0
lintian --fail-on error "$changes" >"$out/lintian.log" 2>&1 || lint_rc=$?
cat "$out/lintian.log" >&2
if [ $lint_rc -ne 0 ] || grep -q '^E:' "$out/lintian.log"; then
  fx_log "lintian reports errors"
  exit 1
fi
fx_log "lintian took $((SECONDS - lint_start)) s"

# where the files land
multiarch="$(dpkg-architecture -qDEB_HOST_MULTIARCH)"
arch="$(dpkg-architecture -qDEB_HOST_ARCH)"
plugin_deb="$out/gstreamer1.0-fx_${version}_$arch.deb"
cli_deb="$out/gst-fx_${version}_$arch.deb"
fail=0
expect() { # DEB REGEX: some file of DEB matches REGEX (paths as dpkg -c prints them, ./usr/...)
  if ! dpkg -c "$1" | awk '{print $6}' | grep -Eq "^$2\$"; then
    fx_log "$(basename "$1") has no file matching $2"
    fail=1
  fi
}
expect "$plugin_deb" "\./usr/lib/$multiarch/gstreamer-1\.0/libgstfx[^/]*\.so"
expect "$plugin_deb" '\./usr/share/gstreamer-1\.0/presets/GstFxEq\.prs'
expect "$cli_deb" '\./usr/bin/gst-fx'
expect "$cli_deb" '\./usr/share/man/man1/gst-fx\.1\.gz'
expect "$cli_deb" '\./usr/share/bash-completion/completions/gst-fx'
expect "$cli_deb" '\./usr/share/doc/gst-fx/README\.md(\.gz)?'
expect "$cli_deb" '\./usr/share/doc/gst-fx/docs/design\.md(\.gz)?'
if dpkg -c "$cli_deb" | grep -q 'libgstfx'; then
  fx_log "gst-fx carries the plugin, which belongs to gstreamer1.0-fx"
  fail=1
fi
if ! dpkg-deb -f "$cli_deb" Depends | grep -Eq "(^|, )gstreamer1\.0-fx \(= $version\)"; then
  fx_log "gst-fx does not depend on gstreamer1.0-fx (= $version)"
  fail=1
fi
[ $fail -eq 0 ] || exit 1

# the packages' files work where they land: unpacked together, with no plugin path set, the
# program finds the packaged plugin (relative to itself, as from /usr/bin) and runs a chain
unpacked="$out/unpacked"
rm -rf "$unpacked"
dpkg -x "$plugin_deb" "$unpacked"
dpkg -x "$cli_deb" "$unpacked"
smoke() {
  env -u GST_PLUGIN_PATH_1_0 -u GST_PLUGIN_PATH -u GST_FX_PLUGIN_DIR \
    GST_REGISTRY_1_0="$unpacked/registry.bin" "$unpacked/usr/bin/gst-fx" "$@"
}
want="plugin: $unpacked/usr/lib/$multiarch/gstreamer-1.0/libgstfx.so"
if ! smoke --version | grep -qxF "$want" ||
  ! smoke plan --chain "fxbutterworth order=8 ! fxgain gain=-3" >/dev/null; then
  smoke --version >&2 || true
  fx_log "the unpacked gst-fx does not run with the unpacked plugin ($want)"
  exit 1
fi

fx_log "packages ($((SECONDS - start)) s): $(cd "$out" && ls ./*.deb | tr '\n' ' ')"
