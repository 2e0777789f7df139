"""docs/elements.md is generated from the built plugin by scripts/gen-elements-doc.py; this test
fails when the committed file is stale (an element or property added or changed without
regenerating it), and checks that the generator covers every element of the plugin and writes
nothing machine-specific."""

import os
import subprocess

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "scripts", "gen-elements-doc.py")
DOC = os.path.join(REPO, "docs", "elements.md")

Gst.init(None)


def build_dir():
    """The build whose plugin the tests use (GST_PLUGIN_PATH_1_0=<build>/gst), else build/."""
    for p in os.environ.get("GST_PLUGIN_PATH_1_0", "").split(os.pathsep):
        if p and os.path.basename(os.path.normpath(p)) == "gst" and os.path.isdir(p):
            return os.path.dirname(os.path.normpath(p))
    return os.path.join(REPO, "build")


def generate():
    r = subprocess.run(["/usr/bin/python3", SCRIPT, "--build", build_dir(), "--stdout"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_elements_doc_is_current(fx):
    fresh = generate()
    with open(DOC, encoding="utf-8") as f:
        committed = f.read()
    assert committed == fresh, (
        "stale: docs/elements.md differs from the built plugin; run scripts/gen-elements-doc.py "
        "and commit the result")


def test_generator_is_deterministic_and_complete(fx):
    a, b = generate(), generate()
    assert a == b
    plugin = Gst.Registry.get().find_plugin("fx")
    assert plugin is not None
    names = [f.get_name() for f in Gst.Registry.get().get_feature_list_by_plugin("fx")
             if isinstance(f, Gst.ElementFactory)]
    assert len(names) >= 10
    for name in names:
        assert "\n## `%s`\n" % name in a, name
    assert "`fxprof`" in a
    # Nothing that changes between machines or checkouts.
    assert REPO not in a and "/build/gst" not in a.replace("$PWD/build/gst", "")
    assert Gst.version_string() not in a
