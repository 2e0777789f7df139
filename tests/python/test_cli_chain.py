"""The `--chain` of `gst-fx process`, `batch`, `plan` and `response`, read by fxchain's own parser
(gst/gstfxchainparse.c), run as subprocesses: a bad value, an unknown enum name, property or
element, a branch, a reference or a bracket is exit status 1 with exactly one line on stderr that
names the element, the property, the value and the valid range or names (no GLib warning, also
with -q), and no output file. Valid gst-launch quoting keeps working.

References: the ranges and enum names come from the elements' GParamSpecs read through GObject
introspection, not from the tool's text.
"""

import os

import numpy as np
import pytest

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

from test_cli_batch import write_wav  # noqa: E402
from test_tool import gst_fx, lines  # noqa: E402

pytestmark = pytest.mark.usefixtures("fx")


def pspec(factory, prop):
    e = Gst.ElementFactory.make(factory, None)
    assert e is not None, factory
    p = e.find_property(prop)
    assert p is not None, (factory, prop)
    return p


def num_range(factory, prop):
    p = pspec(factory, prop)
    if isinstance(p.minimum, float):
        return "[%g, %g]" % (p.minimum, p.maximum)
    return "[%d, %d]" % (p.minimum, p.maximum)


def enum_nicks(factory, prop):
    p = pspec(factory, prop)
    values = type(p.default_value).__enum_values__
    return [values[k].value_nick for k in sorted(values)]


def bad_cases():
    """(chain, strings the one line must contain)."""
    return [
        ("fxgain gain=-200", ["fxgain", "gain=-200", "out of range", num_range("fxgain", "gain")]),
        ("fxbutterworth order=65",
         ["fxbutterworth", "order=65", "out of range", num_range("fxbutterworth", "order")]),
        # the minimum is the smallest positive double: written as "(0, ..."
        ("fxbutterworth cutoff=-100", ["fxbutterworth", "cutoff=-100", "out of range", "(0, "]),
        ("fxbiquad q=0", ["fxbiquad", "q=0", num_range("fxbiquad", "q")]),
        ("fxgain gain=nan", ["fxgain", "gain=nan", num_range("fxgain", "gain")]),
        ("fxgain gain=loud", ["fxgain", "gain=loud", "not a number", num_range("fxgain", "gain")]),
        ("fxbutterworth mode=sideways",
         ["fxbutterworth", "mode=sideways"] + enum_nicks("fxbutterworth", "mode")),
        ("fxbiquad type=peaking ! fxgain gain=-3 ! fxgain gain=99",
         ["fxgain (element 3 of the chain)", "gain=99", num_range("fxgain", "gain")]),
        ("fxgain name=trim clip=maybe", ['fxgain "trim"', "clip=maybe", "true or false"]),
        ("fxgain bogus=1", ["fxgain", "bogus"]),
        # a child's property (GstChildProxy, as gst-launch's band0::type=...)
        ("fxeq num-bands=2 band1::type=sideways",
         ["fxeq", "band1::type=sideways", "peaking", "low-shelf"]),
        ("fxeq num-bands=2 band5::gain=1", ["fxeq", "band5::gain"]),
        ("fxbiquad ! nosuchelement", ["nosuchelement"]),
        ("fxbiquad ! tee ! fxgain", ["tee", "request pads"]),
        ("t. ! queue ! tee name=t t. ! queue", ["t.", "not supported"]),
        ("identity b.identity ! identity) !", ["b.identity", "not supported"]),
        ("fxbiquad ! ( fxgain )", ["( fxgain )", "brackets", "not supported"]),
        ("fxbiquad ! { fxgain }", ["braces", "not supported"]),
        ("fxbiquad fxbutterworth", ["fxbutterworth", "without '!'"]),
        ('fxsos sections="1 0 0 1 0 0', ["quote is not closed"]),
        # caps GStreamer's caps parser would only warn about (0.10 names, quoted numbers)
        ("fxgain ! audio/x-raw-int ! fxgain", ["audio/x-raw-int", "not plain audio caps"]),
        ('fxgain ! audio/x-raw,x="5." ! fxgain', ["not plain audio caps"]),
    ]


@pytest.fixture
def wav(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    rng = np.random.default_rng(3)
    write_wav(str(d / "a.wav"), 0.25 * rng.standard_normal((2000, 2)), 48000)
    return d / "a.wav"


def commands(wav, out):
    """(name, argv before the chain, argv after it, the outputs that must not exist)."""
    return [
        ("plan", ["plan", "--chain"], [], []),
        ("process", ["process", "-q", "--chain"], [str(wav), str(out / "o.wav")],
         [out / "o.wav"]),
        ("batch", ["batch", "-q", "--chain"], ["-o", str(out / "batch"), str(wav)],
         [out / "batch" / "a.wav"]),
        ("response", ["response", "--chain"], ["--rate", "48000", "-o", str(out / "r.csv")],
         [out / "r.csv"]),
    ]


def test_bad_chain_is_one_line_and_exit_1_in_every_command(wav, tmp_path):
    failures = []
    for chain, needles in bad_cases():
        for name, before, after, outputs in commands(wav, tmp_path):
            r = gst_fx(*before, chain, *after)
            err = lines(r.stderr)
            problems = []
            if r.returncode != 1:
                problems.append("exit %d" % r.returncode)
            if len(err) != 1:
                problems.append("%d lines on stderr" % len(err))
            elif not err[0].startswith("gst-fx: "):
                problems.append("not a gst-fx line")
            text = " ".join(err)
            for s in ("GLib", "WARNING", "CRITICAL", "Usage"):
                if s in r.stderr:
                    problems.append("%r on stderr" % s)
            missing = [n for n in needles if n not in text]
            if missing:
                problems.append("missing %r" % missing)
            left = [str(p) for p in outputs if os.path.exists(p)]
            if left:
                problems.append("output written: %s" % left)
            if problems:
                failures.append("%s --chain %r: %s; stderr: %r" % (name, chain, ", ".join(problems),
                                                                   r.stderr))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("chain,expect", [
    # a quoted value with spaces and a negative number
    ('fxgain gain=-6 ! fxsos sections="0.2 0.4 0.2 1 -0.4 0.2; 1 0 0 1 0 0"',
     "cascade fxgain0+fxsos0: 2 sections"),
    # '=' may have spaces around it; '!' needs none after an element name (an unquoted value
    # runs to the next space, as in gst-launch)
    ("fxgain!fxgain gain = -6 !fxbiquad type=peaking",
     "cascade fxgain0+fxgain1+fxbiquad0: 1 section"),
    # escaped quotes inside a quoted value: a nested fxchain with its own quoted value
    ('fxchain chain="fxsos sections=\\"1 0 0 1 0 0\\" ! fxgain gain=-3"', "opaque fxchain0"),
    # a GstValueArray kernel
    ('fxfir kernel="<0.5, 0.25, 0.25>"', "opaque fxfir0"),
    # a caps filter between stages
    ("fxgain ! audioconvert ! audio/x-raw,format=F32LE ! fxbiquad", "opaque capsfilter"),
    ("fxbiquad name=x\\ y", "cascade x y: 1 section"),
    ("fxeq num-bands=2 band0::type=low-shelf band1::gain=-4 ! fxgain", "cascade fxeq0+fxgain0"),
])
def test_valid_quoting_still_works(chain, expect):
    r = gst_fx("plan", "--chain", chain)
    assert r.returncode == 0, (chain, r.stderr)
    assert r.stderr == "", r.stderr
    assert expect in r.stdout, (chain, r.stdout)


def test_quoted_sections_are_the_values_written():
    """The quoted sections reach fxsos as written: the plan's section count and the element's
    own property read back through a pipeline agree with the text."""
    chain = 'fxsos name=s sections="0.2 0.4 0.2 1 -0.4 0.2; 1 -1 0 1 -0.5 0"'
    c = Gst.ElementFactory.make("fxchain", None)
    c.set_property("chain", chain)
    s = c.get_by_name("s")
    assert s is not None
    text = s.get_property("sections")
    rows = [[float(v) for v in row.split()] for row in text.split(";")]
    assert np.allclose(rows, [[0.2, 0.4, 0.2, 1, -0.4, 0.2], [1, -1, 0, 1, -0.5, 0]]), text


def test_chain_longer_than_the_limit_is_refused():
    """fxchain takes at most 1024 elements (gst/gstfxchainparse.h); 1024 plan, 1025 are one line
    and exit 1."""
    ok = gst_fx("plan", "--chain", " ! ".join(["fxgain"] * 1024))
    assert ok.returncode == 0, ok.stderr[-500:]
    r = gst_fx("plan", "--chain", " ! ".join(["fxgain"] * 1025))
    assert r.returncode == 1, (r.returncode, r.stdout[-300:], r.stderr[-300:])
    err = lines(r.stderr)
    assert len(err) == 1 and "more than 1024 elements" in err[0], r.stderr
