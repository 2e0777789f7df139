"""`gst-fx presets list|show|save|delete` through the CLI (issue 19, item 5).

Every run gets a temporary XDG_DATA_HOME and HOME, so the user's presets are written there and
never in the real home (GStreamer writes $XDG_DATA_HOME/gstreamer-1.0/presets/<GType>.prs). The
expected factory presets are read here from presets/*.prs with configparser, independently of
GLib. A saved preset is checked where GStreamer uses it: `gst-launch-1.0 ... ! fxgain
@preset=NAME ! ...` against the closed form (a gain of 1/2 on the same samples without the
element), and `gst-fx process --chain "ELEMENT @preset=NAME"` against the same chain with the
properties written out (byte for byte) and with the defaults (different). The factory files are
hashed before and after: nothing writes them. The ```sh blocks of tools/README.md's presets
section run as written (with the temporary home).
"""

import glob
import hashlib
import json
import os
import re
import shlex
import subprocess

import numpy as np
import pytest
import scipy.io.wavfile

from conftest import FX_ELEMENTS, read_prs_file
from test_tool import gst_fx_path

pytestmark = [pytest.mark.filterwarnings("ignore::scipy.io.wavfile.WavFileWarning"),
              pytest.mark.usefixtures("fx")]

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PRESETS_DIR = os.path.join(REPO, "presets")
RATE = 48000
SEED = int(os.environ.get("FX_TEST_SEED", "1905"))
HINT = "Try 'gst-fx presets --help'."


def read_prs(path):
    """(element type name, {preset: [(key, value text)] in file order}) of a .prs file."""
    cp = read_prs_file(path)
    presets = {s: list(cp[s].items()) for s in cp.sections() if not s.startswith("_")}
    return cp["_presets_"]["element-name"], presets


FACTORY = dict(read_prs(p) for p in sorted(glob.glob(os.path.join(PRESETS_DIR, "*.prs"))))


def factory_hashes():
    return {p: hashlib.sha256(open(p, "rb").read()).hexdigest()
            for p in glob.glob(os.path.join(PRESETS_DIR, "*.prs"))}


@pytest.fixture(scope="module", autouse=True)
def factory_files_untouched():
    before = factory_hashes()
    yield
    assert factory_hashes() == before, "a factory presets file was written"


@pytest.fixture
def home(tmp_path):
    """A temporary XDG_DATA_HOME (and HOME): where the user's presets go."""
    (tmp_path / "home").mkdir()
    return tmp_path


def env_for(home):
    return dict(os.environ, HOME=str(home / "home"), XDG_DATA_HOME=str(home / "xdg"),
                TMPDIR=str(home))


def user_dir(home):
    return home / "xdg" / "gstreamer-1.0" / "presets"


def presets(home, *args):
    return subprocess.run([gst_fx_path(), "presets", *args], capture_output=True, text=True,
                          env=env_for(home), timeout=120)


def ok(r):
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def listing(home, *elements):
    """{element: {"type": ..., "presets": {name: (origin, comment)}}} from `list --json`."""
    out = json.loads(ok(presets(home, "list", "--json", *elements)).stdout)
    return {e["element"]: dict(e, presets={p["name"]: (p["origin"], p["comment"])
                                           for p in e["presets"]}) for e in out}


def show(home, element, name):
    return json.loads(ok(presets(home, "show", "--json", element, name)).stdout)


def write_float_wav(path, x):
    scipy.io.wavfile.write(str(path), RATE, x.astype(np.float32))


def read_wav(path):
    rate, y = scipy.io.wavfile.read(str(path))
    assert rate == RATE
    return y


def process(home, chain, src, out):
    r = subprocess.run([gst_fx_path(), "process", "--quiet", "--chain", chain, str(src),
                        str(out)], capture_output=True, text=True, env=env_for(home), timeout=120)
    assert r.returncode == 0, (chain, r.stderr)
    return open(out, "rb").read()


@pytest.fixture
def noise_wav(tmp_path):
    x = 0.25 * np.random.default_rng(SEED).standard_normal((RATE // 4, 2))
    write_float_wav(tmp_path / "in.wav", x)
    return tmp_path / "in.wav", x.astype(np.float32)


def as_expected(text):
    """A keyfile value as JSON would hold it: a number, a boolean, or the unquoted string."""
    if text in ("true", "false"):
        return text == "true"
    try:
        return float(text)
    except ValueError:
        return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text


# ------------------------------------------------------------------------------------------------
# list and show: the factory presets


def test_list_shows_every_element_and_the_factory_presets(home):
    every = listing(home)
    assert set(FX_ELEMENTS) | {"fxchain"} <= set(every), sorted(every)
    by_type = {e["type"]: e for e in every.values()}
    for type_name, expected in FACTORY.items():
        entry = by_type[type_name]
        assert entry["factory_files"] == [os.path.join(PRESETS_DIR, type_name + ".prs")]
        assert entry["user_file"] == str(user_dir(home) / (type_name + ".prs"))
        for name, keys in expected.items():
            comment = dict(keys).get("_meta/comment")
            assert entry["presets"][name] == ("factory", comment), (type_name, name)
        assert set(entry["presets"]) == set(expected), type_name
    # elements without factory presets list none; the text output names each preset
    assert every["fxgain"]["presets"] == {}
    text = ok(presets(home, "list")).stdout
    assert "fxgain (GstFxGain): no presets" in text
    for type_name, expected in FACTORY.items():
        for name in expected:
            assert re.search(r"^  %s +factory " % re.escape(name), text, re.M), name
    assert str(user_dir(home)) in text


def test_show_prints_the_values_of_the_preset_files(home):
    elements = {v["type"]: e for e, v in listing(home).items()}
    for type_name, expected in FACTORY.items():
        element = elements[type_name]
        for name, keys in expected.items():
            out = show(home, element, name)
            assert (out["element"], out["type"], out["name"], out["origin"]) == \
                (element, type_name, name, "factory")
            assert out["file"] == os.path.join(PRESETS_DIR, type_name + ".prs")
            assert out["comment"] == dict(keys).get("_meta/comment")
            settings = [(k, v) for k, v in keys if not k.startswith("_meta/")]
            # the preset's keys in the file's order, each with the value the element took
            assert list(out["properties"]) == [k for k, _ in settings], (element, name)
            for k, v in settings:
                assert out["properties"][k] == as_expected(v), (element, name, k)
            assert out["chain"].startswith(element + " ")
    text = ok(presets(home, "show", "fxlimiter", "safety")).stdout.splitlines()
    assert text[0].startswith('fxlimiter (GstFxLimiter) preset "safety": factory, ')
    assert "  threshold = -0.1" in text
    assert text[-1] == "chain: fxlimiter threshold=-0.1 release=30 look-ahead=1 link=true"


@pytest.mark.parametrize("element,name", [("fxeq", "telephone"), ("fxbutterworth", "telephone-band"),
                                          ("fxcompressor", "vocal"), ("fxchain", "mastering")])
def test_show_chain_line_runs_like_the_preset(home, noise_wav, tmp_path, element, name):
    """The `chain:` of show, pasted into --chain, gives the preset's output byte for byte."""
    src, _ = noise_wav
    line = show(home, element, name)["chain"]
    a = process(home, "%s @preset=%s" % (element, name), src, tmp_path / "a.wav")
    b = process(home, line, src, tmp_path / "b.wav")
    c = process(home, element if element != "fxchain" else "fxgain", src, tmp_path / "c.wav")
    assert a == b, (line, "seed %d" % SEED)
    assert a != c


# ------------------------------------------------------------------------------------------------
# save, then list, show and use it


def test_save_round_trip_and_gst_launch_uses_it(home, tmp_path):
    gain = 20 * np.log10(0.5)
    r = ok(presets(home, "save", "fxgain", "half", "gain=%r" % gain, "--comment", "Half, -6 dB"))
    path = user_dir(home) / "GstFxGain.prs"
    assert r.stdout == 'fxgain: saved preset "half" in %s\n' % path
    _, saved = read_prs(str(path))
    assert dict(saved["half"])["_meta/comment"] == "Half, -6 dB"
    assert float(dict(saved["half"])["gain"]) == gain
    assert listing(home, "fxgain")["fxgain"]["presets"] == {"half": ("user", "Half, -6 dB")}
    out = show(home, "fxgain", "half")
    assert out["origin"] == "user" and out["file"] == str(path)
    assert out["properties"]["gain"] == gain and out["properties"]["mute"] is False

    # GStreamer itself loads it: the same samples with and without the element
    def launch(stage, name):
        raw = tmp_path / name
        cmd = ("gst-launch-1.0 -q audiotestsrc wave=sine freq=997 volume=0.8 num-buffers=4 ! "
               "audio/x-raw,format=F32LE,rate=48000,channels=1 ! %s filesink location=%s"
               % (stage, shlex.quote(str(raw))))
        p = subprocess.run(cmd, shell=True, capture_output=True, text=True, env=env_for(home),
                           timeout=120)
        assert p.returncode == 0 and p.stderr == "", p.stderr
        return np.fromfile(str(raw), dtype="<f4")
    x, y = launch("", "x.raw"), launch("fxgain @preset=half !", "y.raw")
    assert x.size == 4 * 1024 and np.max(np.abs(x)) > 0.1
    np.testing.assert_allclose(y, x * 0.5, rtol=1e-7, atol=0)


def test_saved_preset_in_a_chain_equals_its_properties(home, noise_wav, tmp_path):
    src, x = noise_wav
    props = ["room-size=0.45", "damping=0.3", "mix=0.35", "width=0.7"]
    ok(presets(home, "save", "fxreverb", "booth", *props))
    line = show(home, "fxreverb", "booth")["chain"]
    a = process(home, "fxreverb @preset=booth", src, tmp_path / "a.wav")
    b = process(home, "fxreverb " + " ".join(props), src, tmp_path / "b.wav")
    c = process(home, line, src, tmp_path / "c.wav")
    d = process(home, "fxreverb", src, tmp_path / "d.wav")
    assert a == b == c, "seed %d" % SEED
    assert a != d
    # fxeq with its bands (child::property), and a chain of a chain
    ok(presets(home, "save", "fxeq", "two-band", "num-bands=2", "band0::type=low-shelf",
               "band0::frequency=120", "band0::gain=4", "band1::gain=-2.5"))
    out = show(home, "fxeq", "two-band")
    assert out["properties"]["num-bands"] == 2 and out["properties"]["band1::gain"] == -2.5
    assert out["properties"]["band0::type"] == "low-shelf"
    chain = "fxgain gain=-3 ! fxeq @preset=two-band"
    ok(presets(home, "save", "fxchain", "gain-eq", "chain=" + chain))
    assert show(home, "fxchain", "gain-eq")["properties"]["chain"] == chain
    a = process(home, "fxchain @preset=gain-eq", src, tmp_path / "e.wav")
    b = process(home, show(home, "fxchain", "gain-eq")["chain"], src, tmp_path / "f.wav")
    c = process(home, chain, src, tmp_path / "g.wav")
    assert a == b == c, "seed %d" % SEED


def test_overwrite_needs_force_and_factory_presets_stay(home):
    ok(presets(home, "save", "fxlimiter", "ceiling", "threshold=-3", "--comment", "first"))
    path = user_dir(home) / "GstFxLimiter.prs"
    before = path.read_bytes()
    r = presets(home, "save", "fxlimiter", "ceiling", "threshold=-6")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines() == [
        'gst-fx: fxlimiter already has a preset "ceiling" (user); --force replaces it in your '
        'presets', HINT]
    assert path.read_bytes() == before
    ok(presets(home, "save", "--force", "fxlimiter", "ceiling", "threshold=-6"))
    out = show(home, "fxlimiter", "ceiling")
    assert out["properties"]["threshold"] == -6 and out["comment"] is None  # replaced whole

    # a factory name: refused, then saved over in the user's file only ("modified")
    r = presets(home, "save", "fxlimiter", "safety", "threshold=-0.5")
    assert r.returncode == 2 and "(factory)" in r.stderr
    ok(presets(home, "save", "-f", "fxlimiter", "safety", "threshold=-0.5"))
    got = listing(home, "fxlimiter")["fxlimiter"]["presets"]
    assert got["safety"] == ("modified", None)
    assert got["mastering"][0] == "factory" and got["ceiling"] == ("user", None)
    assert show(home, "fxlimiter", "safety")["properties"]["threshold"] == -0.5
    # only the user's own presets are deleted
    for name, why in (("mastering", "is a factory preset of fxlimiter;"),
                      ("safety", "that you saved over; removing %s" % path)):
        r = presets(home, "delete", "fxlimiter", name)
        assert r.returncode == 2 and why in r.stderr and r.stderr.endswith(HINT + "\n")
    r = ok(presets(home, "delete", "fxlimiter", "ceiling"))
    assert r.stdout == 'fxlimiter: deleted preset "ceiling" from %s\n' % path
    assert "ceiling" not in listing(home, "fxlimiter")["fxlimiter"]["presets"]


@pytest.mark.parametrize("args,message", [
    (["list", "fxnope"], 'no element "fxnope" (gst-fx presets list shows the elements)'),
    (["list", "audiotestsrc"], "audiotestsrc has no presets (it does not implement GstPreset)"),
    (["show", "fxeq", "nope"], 'fxeq has no preset "nope" (gst-fx presets list fxeq)'),
    (["show", "fxeq"], "show takes ELEMENT NAME"),
    (["save", "fxgain", "x", "gian=3"], 'fxgain: no property "gian" (gst-inspect-1.0 fxgain lists them)'),
    (["save", "fxgain", "x", "gain=-300"], "fxgain: gain=-300 is out of range [-120, 60]"),
    (["save", "fxgain", "x", "gain"], '"gain" is not PROPERTY=VALUE'),
    (["save", "fxgain", "my preset", "gain=1"],
     "\"my preset\" is not a preset name (a letter or digit, then letters, digits, '-', '_', "
     "'.', '+')"),
    (["save", "fxgain", "_presets_"], None),
    (["save", "fxnope", "x"], 'no element "fxnope" (gst-fx presets list shows the elements)'),
    (["delete", "fxeq", "nope"], 'fxeq has no preset "nope" (gst-fx presets list fxeq)'),
    (["frob"], 'unknown presets command "frob" (list, show, save, delete)'),
    ([], "expected list, show, save or delete"),
    (["save", "--json", "fxgain", "x"], "--json is an option of list and show"),
    (["list", "--comment", "x"], "--comment is an option of save"),
    (["list", "--bogus"], None),  # GLib's message, translated where the locale says
])
def test_bad_usage_is_one_line_and_writes_nothing(home, args, message):
    r = presets(home, *args)
    assert r.returncode == 2 and r.stdout == "", r.stdout + r.stderr
    err = r.stderr.splitlines()
    assert len(err) == 2 and err[1] == HINT and err[0].startswith("gst-fx: "), r.stderr
    if message is not None:
        assert err[0] == "gst-fx: " + message
    assert not glob.glob(str(user_dir(home) / "*.prs")), "a usage error wrote a presets file"


# ------------------------------------------------------------------------------------------------
# the documentation


def readme_blocks():
    """The ```sh blocks of the presets section of tools/README.md."""
    text = open(os.path.join(REPO, "tools", "README.md"), encoding="utf-8").read()
    m = re.search(r"^## Presets.*?(?=^## |\Z)", text, re.M | re.S)
    assert m, "tools/README.md has no '## Presets' section"
    return re.findall(r"^```sh\n(.*?)^```", m.group(0), re.M | re.S)


def test_readme_presets_commands_run(home):
    blocks = readme_blocks()
    assert blocks and any("presets save" in b for b in blocks)
    for text in blocks:
        text = text.replace("build/tools/gst-fx", shlex.quote(gst_fx_path()))
        r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", text], cwd=REPO,
                           capture_output=True, text=True, env=env_for(home), timeout=300)
        assert r.returncode == 0, "failed (rc %d):\n%s\n%s%s" % (r.returncode, text, r.stdout,
                                                                r.stderr)
        assert r.stdout.strip()
