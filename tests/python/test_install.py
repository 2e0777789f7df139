"""`meson install` (issue 18): what this build installs works where it is installed.

The build under test (the directory of the gst-fx program named by GST_FX, as everywhere in the
suite) is installed with `meson install --no-rebuild --destdir TMP` (a copy: nothing is built
again). Then, with nothing of the build tree on any path:
  * gst-inspect-1.0, with GStreamer's plugin path set to the installed plugin directory only and a
    fresh registry, finds every element of the plugin there;
  * the installed gst-fx, with no GST_PLUGIN_* variable at all, says it uses the installed plugin
    file and runs a chain on a generated WAV, checked against the closed form (a gain of exactly
    1/2);
  * the man page renders with groff without a warning;
  * the bash completion sources in bash and completes commands, options, values and element names.
The build tree's gst-fx, with no environment either, uses the build's plugin.
"""

import os
import re
import shutil
import subprocess
import warnings
import wave

import numpy as np
import pytest
import scipy.io.wavfile

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

TIMEOUT = 120
PLUGIN_FILE = "libgstfx.so"


def build_dir():
    exe = os.environ.get("GST_FX")
    if not exe:
        pytest.fail("GST_FX is not set: run through `meson test --suite python`", pytrace=False)
    root = os.path.dirname(os.path.dirname(os.path.realpath(exe)))
    if not os.path.isdir(os.path.join(root, "meson-private")):
        pytest.fail("%s is not a meson build directory" % root, pytrace=False)
    return root


def clean_env(tmp, **extra):
    """The environment without any GST_PLUGIN_* variable nor GST_FX_PLUGIN_DIR, with a registry
    of its own (so that nothing cached from the build tree is reused)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GST_PLUGIN_") and k != "GST_FX_PLUGIN_DIR"}
    env["GST_REGISTRY_1_0"] = str(tmp / ("registry-%d.bin" % len(os.listdir(tmp))))
    env.update(extra)
    return env


def run(cmd, env, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=TIMEOUT, **kw)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """{source or build path: installed path under DESTDIR} for everything the build installs."""
    import json

    root = build_dir()
    destdir = tmp_path_factory.mktemp("destdir")
    r = subprocess.run(["meson", "install", "-C", root, "--no-rebuild", "--quiet",
                        "--destdir", str(destdir)],
                       capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, "meson install failed:\n%s%s" % (r.stdout, r.stderr)
    r = subprocess.run(["meson", "introspect", "--installed", root],
                       capture_output=True, text=True, timeout=TIMEOUT, check=True)
    files = {src: str(destdir) + dst for src, dst in json.loads(r.stdout).items()}
    for src, dst in files.items():
        assert os.path.exists(dst), "%s was not installed at %s" % (src, dst)
    return {"root": root, "destdir": str(destdir), "files": files}


def installed_path(installed, suffix):
    hits = [dst for dst in installed["files"].values() if dst.endswith(suffix)]
    assert len(hits) == 1, "expected one installed file ending in %r, got %r" % (suffix, hits)
    return hits[0]


def build_elements():
    plugin = Gst.Registry.get().find_plugin("fx")
    assert plugin is not None, "the build's plugin is not registered (GST_PLUGIN_PATH_1_0)"
    return sorted(f.get_name() for f in Gst.Registry.get().get_feature_list_by_plugin("fx")
                  if isinstance(f, Gst.ElementFactory))


def test_installed_layout(installed):
    plugin = installed_path(installed, "/" + PLUGIN_FILE)
    assert os.path.basename(os.path.dirname(plugin)) == "gstreamer-1.0"
    assert installed_path(installed, "/bin/gst-fx")
    assert installed_path(installed, "/man1/gst-fx.1")
    assert installed_path(installed, "/bash-completion/completions/gst-fx")
    doc = os.path.dirname(installed_path(installed, "/doc/gst-fx/README.md"))
    for name in ("docs/elements.md", "docs/design.md", "docs/install.md", "tools/README.md"):
        assert os.path.isfile(os.path.join(doc, name)), name
    # nothing of the tests, benchmarks or fuzzers
    for dst in installed["files"].values():
        for part in ("test", "bench", "fuzz", "fake"):
            assert part not in os.path.basename(dst), dst
    # the internal libraries are linked in: no run path into the build tree
    for exe in (plugin, installed_path(installed, "/bin/gst-fx")):
        r = subprocess.run(["readelf", "-d", exe], capture_output=True, text=True)
        if r.returncode == 0:
            assert "RPATH" not in r.stdout and "RUNPATH" not in r.stdout, r.stdout


def test_gst_inspect_finds_every_element_in_the_installed_dir(installed, tmp_path):
    plugin = installed_path(installed, "/" + PLUGIN_FILE)
    env = clean_env(tmp_path, GST_PLUGIN_SYSTEM_PATH_1_0=os.path.dirname(plugin))
    r = run(["gst-inspect-1.0", "fx"], env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Filename                 %s" % plugin in r.stdout, r.stdout
    listed = sorted(line.split(":")[0].strip() for line in r.stdout.splitlines()
                    if line.startswith("  fx") and ":" in line)
    expected = build_elements()
    assert listed == expected
    assert len(expected) >= 17 and "fxchain" in expected
    for name in ("fxchain", "fxbutterworth"):
        r = run(["gst-inspect-1.0", name], env)
        assert r.returncode == 0 and "Filename                 %s" % plugin in r.stdout, name


def write_wav(path, x, rate):
    with wave.open(str(path), "wb") as w:
        w.setnchannels(x.shape[1])
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(x.astype("<i2").tobytes())


def test_installed_gst_fx_uses_the_installed_plugin(installed, tmp_path):
    exe = installed_path(installed, "/bin/gst-fx")
    plugin = installed_path(installed, "/" + PLUGIN_FILE)
    env = clean_env(tmp_path)
    r = run([exe, "--version"], env)
    assert r.returncode == 0, r.stderr
    assert "plugin: %s\n" % plugin in r.stdout, (
        "the installed gst-fx does not use the installed plugin:\n%s(a gstreamer1.0-fx package "
        "installed on this machine would come first, from GStreamer's system path)" % r.stdout)

    rng = np.random.default_rng(1818)
    rate = 48000
    x = rng.integers(-20000, 20000, size=(rate // 2, 2), dtype=np.int16)
    src, out = tmp_path / "in.wav", tmp_path / "out.wav"
    write_wav(src, x, rate)
    # -20*log10(2) dB: a gain of exactly 1/2
    r = run([exe, "process", "--quiet", "--chain", "fxgain gain=%r" % (-20 * np.log10(2)),
             str(src), str(out)], env)
    assert r.returncode == 0, r.stdout + r.stderr
    with warnings.catch_warnings():  # the writer's extra chunks (fact, ...) are not for scipy
        warnings.simplefilter("ignore", scipy.io.wavfile.WavFileWarning)
        out_rate, y = scipy.io.wavfile.read(str(out))
    assert out_rate == rate and y.shape == x.shape
    expected = x / 32768.0 * 0.5
    if np.issubdtype(y.dtype, np.integer):
        scale = float(np.iinfo(y.dtype).max) + 1.0
        err, tol = np.max(np.abs(y / scale - expected)), 1.0 / scale
    else:
        err, tol = np.max(np.abs(y - expected)), 1e-6
    assert err <= tol, "max error %g > %g" % (err, tol)


@pytest.mark.parametrize("where", ["installed", "build tree"])
def test_gst_fx_finds_its_factory_presets(installed, tmp_path, where):
    """gst-fx loads the factory presets of its own installation (or of the source tree when run
    from the build tree) with no GST_PRESET_PATH: GStreamer alone reads only its own prefix's."""
    exe = installed_path(installed, "/bin/gst-fx") if where == "installed" else os.environ["GST_FX"]
    if where == "installed":
        assert os.path.isfile(installed_path(installed, "/gstreamer-1.0/presets/GstFxEq.prs"))
    env = clean_env(tmp_path)
    env.pop("GST_PRESET_PATH", None)
    env["XDG_DATA_HOME"] = str(tmp_path / "xdg")  # no user presets of this machine's
    r = run([exe, "plan", "--chain", "fxeq @preset=loudness"], env)
    assert r.returncode == 0 and "fxeq" in r.stdout, r.stdout + r.stderr
    r = run([exe, "plan", "--chain", "fxeq @preset=no-such-preset"], env)
    assert r.returncode != 0, r.stdout


@pytest.mark.parametrize("where", ["installed", "build tree"])
def test_gst_fx_presets_names_its_factory_files(installed, tmp_path, where):
    """`gst-fx presets list` of an installation names the installed factory file (of the build
    tree: the source tree's presets/), with no GST_PRESET_PATH; `save` writes XDG_DATA_HOME."""
    import json

    exe = installed_path(installed, "/bin/gst-fx") if where == "installed" else os.environ["GST_FX"]
    expected = (installed_path(installed, "/gstreamer-1.0/presets/GstFxEq.prs")
                if where == "installed" else
                os.path.join(os.path.dirname(__file__), "..", "..", "presets", "GstFxEq.prs"))
    env = clean_env(tmp_path)
    env.pop("GST_PRESET_PATH", None)
    env["XDG_DATA_HOME"] = str(tmp_path / "xdg")
    r = run([exe, "presets", "list", "--json", "fxeq"], env)
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(r.stdout)[0]
    assert os.path.realpath(expected) in [os.path.realpath(f) for f in out["factory_files"]]
    assert any(p["name"] == "loudness" and p["origin"] == "factory" for p in out["presets"])
    r = run([exe, "presets", "save", "fxgain", "quiet", "gain=-20"], env)
    assert r.returncode == 0, r.stderr
    assert os.path.isfile(tmp_path / "xdg" / "gstreamer-1.0" / "presets" / "GstFxGain.prs")


def test_build_tree_gst_fx_uses_the_build_plugin(installed, tmp_path):
    r = run([os.environ["GST_FX"], "--version"], clean_env(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "plugin: %s\n" % os.path.join(installed["root"], "gst", PLUGIN_FILE) in r.stdout, \
        r.stdout


def test_man_page_renders(installed):
    page = installed_path(installed, "/man1/gst-fx.1")
    if shutil.which("groff") is None:
        pytest.fail("groff not found (Debian groff-base; scripts/lib.sh installs it)",
                    pytrace=False)
    # groff is not ours: without the sanitizer runtime the ASan run preloads into our programs
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD" and not k.startswith("ASAN_")}
    r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", page], capture_output=True,
                       text=True, timeout=TIMEOUT, env=dict(env, LC_ALL="C.UTF-8"))
    assert r.returncode == 0 and r.stderr == "", r.stderr
    text = re.sub(".\b", "", r.stdout).replace("\u2010", "-")  # overstrike bold, hyphens
    for word in ("gst-fx", "SYNOPSIS", "process", "batch", "response", "plan",
                 "count-dispatches", "--chain", "--chain-file", "--type", "--recursive",
                 "--input-ext", "GST_PLUGIN_PATH_1_0", "EXIT STATUS", "presets", "--force"):
        assert word in text, word


COMPLETE = r'''
source "$1"
shift
COMP_WORDS=("$@")
COMP_CWORD=$(( $# - 1 ))
_gst_fx
printf '%s\n' "${COMPREPLY[@]}"
'''


@pytest.mark.parametrize("words,expected", [
    (["gst-fx", "pro"], ["process"]),
    (["gst-fx", "count"], ["count-dispatches"]),
    (["gst-fx", "process", "--ch"], ["--chain", "--chain-file"]),
    (["gst-fx", "process", "--type", ""], ["wav", "flac", "ogg", "opus", "mp3", "aiff", "caf",
                                           "w64", "rf64", "au"]),
    (["gst-fx", "process", "--bits", ""], ["16", "24", "32", "f32", "f64"]),
    (["gst-fx", "batch", "--dither", "t"], ["tpdf"]),
    (["gst-fx", "batch", "--rec"], ["--recursive"]),
    (["gst-fx", "plan", "--device", ""], ["auto", "cpu", "cuda"]),
    (["gst-fx", "batch", "--precision", "s"], ["single"]),
    (["gst-fx", "plan", "--chain", "fxbutter"], ["fxbutterworth"]),
    (["gst-fx", "process", "--chain", "fxgain ! fxlinkw"], ["fxgain ! fxlinkwitzriley"]),
    (["gst-fx", "presets", "s"], ["show", "save"]),
    (["gst-fx", "presets", "show", "fxlim"], ["fxlimiter"]),
    (["gst-fx", "presets", "show", "fxlimiter", ""], ["broadcast", "mastering", "safety"]),
])
def test_bash_completion(installed, tmp_path, words, expected):
    script = installed_path(installed, "/bash-completion/completions/gst-fx")
    bindir = os.path.dirname(installed_path(installed, "/bin/gst-fx"))
    env = clean_env(tmp_path, PATH=bindir + os.pathsep + os.environ.get("PATH", ""),
                    XDG_DATA_HOME=str(tmp_path / "xdg"))  # no presets of this machine's user
    r = run(["bash", "--norc", "--noprofile", "-c", COMPLETE, "complete", script] + words, env)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert r.stdout.split("\n")[:-1] == expected, r.stdout
