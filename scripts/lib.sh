# Shared by scripts/demo.sh, scripts/test.sh and the bench/ scripts: install what is missing,
# configure, build.
# Works as root on a fresh Debian 12 machine; as another user it uses sudo for apt-get when needed.

FX_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Debian's numpy, scipy and PyGObject belong to the system interpreter; never use a python3 that
# happens to be earlier on PATH.
FX_PYTHON=/usr/bin/python3

FX_PACKAGES=(
  meson ninja-build pkg-config gcc libc6-dev
  libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  python3 python3-numpy python3-scipy python3-gi python3-gst-1.0 python3-pytest
  gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  clang-format
  librsvg2-dev
  valgrind linux-perf
  libfftw3-dev
  libsndfile1-dev
  libebur128-dev
  clang libclang-rt-14-dev
  groff-base
  tmux
)

# What scripts/deb.sh needs beside debian/control's Build-Depends (which it installs itself).
FX_DEB_PACKAGES=(dpkg-dev debhelper lintian)

fx_log() { printf '==> %s\n' "$*" >&2; }

# fx_ensure_packages [PACKAGE...]: installs those of the packages (default: FX_PACKAGES) that are
# missing.
fx_ensure_packages() {
  local missing=() p wanted=("$@")
  [ $# -gt 0 ] || wanted=("${FX_PACKAGES[@]}")
  for p in "${wanted[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$p")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  fx_log "installing missing packages: ${missing[*]}"
  local SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q >/dev/null || { fx_log "apt-get update failed"; return 1; }
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
    { fx_log "apt-get install failed"; return 1; }
}

# fx_build BUILDDIR [meson options...]
fx_build() {
  local dir="$1"
  shift
  if [ ! -f "$FX_ROOT/$dir/build.ninja" ]; then
    fx_log "configuring $dir"
    meson setup "$FX_ROOT/$dir" "$FX_ROOT" "$@" >/dev/null || return 1
  fi
  fx_log "building $dir"
  ninja -C "$FX_ROOT/$dir" >/dev/null || ninja -C "$FX_ROOT/$dir" || return 1
}

# fx_build_option BUILDDIR NAME: the value of a meson option in that build ("" when unknown).
fx_build_option() {
  meson introspect --buildoptions "$1" 2>/dev/null |
    "$FX_PYTHON" -c 'import json, sys
print(next((str(o["value"]).lower() for o in json.load(sys.stdin) if o["name"] == sys.argv[1]), ""))' "$2" \
      2>/dev/null
}

# fx_bench_build BUILDDIR [meson options...]: as fx_build, with the benchmark programs of bench/
# (meson option bench, default false). BUILDDIR may be absolute. A build configured without them
# gets the option turned on (meson configure -Dbench=true), which the log line says.
fx_bench_build() {
  local dir="$1"
  shift
  case "$dir" in /*) ;; *) dir="$FX_ROOT/$dir" ;; esac
  if [ ! -f "$dir/build.ninja" ]; then
    fx_log "configuring $dir (-Dbench=true)"
    meson setup "$dir" "$FX_ROOT" -Dbench=true "$@" >/dev/null || return 1
  elif [ "$(fx_build_option "$dir" bench)" != true ]; then
    fx_log "$dir: turning on the benchmark programs (meson configure -Dbench=true)"
    meson configure "$dir" -Dbench=true >/dev/null || return 1
  fi
  fx_log "building $dir"
  ninja -C "$dir" >/dev/null || ninja -C "$dir" || return 1
}

# Environment that makes GStreamer find the freshly built plugin (and only a fresh registry).
fx_gst_env() {
  local dir="$1"
  case "$dir" in /*) ;; *) dir="$FX_ROOT/$dir" ;; esac # a build folder relative to the tree
  export GST_PLUGIN_PATH_1_0="$dir/gst${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}"
  export GST_REGISTRY_1_0="$dir/gst-registry.bin"
  # the factory presets of the source tree (installed ones live in GStreamer's datadir)
  export GST_PRESET_PATH="$FX_ROOT/presets${GST_PRESET_PATH:+:$GST_PRESET_PATH}"
}

# The commit a benchmark ran at, for its results file: "<short hash>", with " (with uncommitted
# changes)" when tracked files other than the results under bench/results/ differ from it.
fx_bench_rev() {
  local rev
  rev="$(git -C "$FX_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  if [ -n "$(git -C "$FX_ROOT" status --porcelain --untracked-files=no -- . ':!bench/results' 2>/dev/null)" ]; then
    rev="$rev (with uncommitted changes)"
  fi
  printf '%s\n' "$rev"
}
