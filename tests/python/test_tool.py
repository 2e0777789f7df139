"""Tests of the gst-fx command-line program (tools/), run as a subprocess.

The program is found through the environment variable GST_FX, else at <repo>/build/tools/gst-fx
(what scripts/test.sh builds). It finds the plugin through GST_PLUGIN_PATH_1_0 (set by the test
runner) or, failing that, through the build directory compiled into it. A missing program FAILS
the tests (never skips).
"""

import json
import os
import re
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMEOUT = 120  # seconds per invocation

PLAN_OPTIONS = ("--chain", "--rate", "--channels", "--format", "--frames", "--fuse", "--no-fuse",
                "--device", "--precision", "--help")
COUNT_OPTIONS = ("--depths", "--device", "--buffers", "--frames", "--json", "--help")


def gst_fx_path():
    path = os.environ.get("GST_FX") or os.path.join(REPO, "build", "tools", "gst-fx")
    if not os.access(path, os.X_OK):
        pytest.fail("gst-fx not found at %r: build it (ninja -C build) or set GST_FX" % path,
                    pytrace=False)
    return path


def gst_fx(*args, timeout=TIMEOUT):
    return subprocess.run([gst_fx_path(), *args], capture_output=True, text=True,
                          timeout=timeout)


def lines(text):
    return [l for l in text.splitlines() if l.strip()]


# ------------------------------------------------------------------------------------------------
# help and usage


def test_help_lists_commands():
    r = gst_fx("--help")
    assert r.returncode == 0, r.stderr
    for cmd in ("plan", "count-dispatches"):
        assert cmd in r.stdout
    for opt in PLAN_OPTIONS + COUNT_OPTIONS:
        if opt != "--help":
            assert opt in r.stdout, "gst-fx --help does not mention %s" % opt


@pytest.mark.parametrize("command,options", [("plan", PLAN_OPTIONS),
                                             ("count-dispatches", COUNT_OPTIONS)])
def test_command_help_mentions_every_option(command, options):
    r = gst_fx(command, "--help")
    assert r.returncode == 0, r.stderr
    for opt in options:
        assert opt in r.stdout, "gst-fx %s --help does not mention %s" % (command, opt)


@pytest.mark.parametrize("args", [
    (),
    ("no-such-command",),
    ("plan",),  # --chain is required
    ("plan", "--chain", "fxbiquad", "--rate", "fast"),
    ("plan", "--chain", "fxbiquad", "--rate", "0"),
    ("plan", "--chain", "fxbiquad", "--channels", "0"),
    ("plan", "--chain", "fxbiquad", "--format", "S16LE"),
    ("plan", "--chain", "fxbiquad", "--device", "tpu"),
    ("plan", "--chain", "fxbiquad", "--precision", "half"),
    ("plan", "--chain", "fxbiquad", "--bogus"),
    ("plan", "--chain", "fxbiquad", "extra-argument"),
    ("count-dispatches", "--depths", "2,x"),
    ("count-dispatches", "--depths", "0"),
    ("count-dispatches", "--depths", ""),
    ("count-dispatches", "--buffers", "0"),
    ("count-dispatches", "--frames", "-5"),
    ("count-dispatches", "--device", "gpu"),
])
def test_bad_arguments_exit_2_with_usage(args):
    r = gst_fx(*args)
    assert r.returncode == 2, (args, r.returncode, r.stdout, r.stderr)
    # one line and the hint, not the whole help (issue 19)
    err = r.stderr.splitlines()
    assert len(err) == 2 and err[0].startswith("gst-fx: "), r.stderr
    hint = "gst-fx %s --help" % args[0] if args and args[0] in ("plan", "count-dispatches") \
        else "gst-fx --help"
    assert err[1] == "Try '%s'." % hint, r.stderr
    assert r.stdout == ""


def test_bad_chain_exits_1_with_one_line():
    r = gst_fx("plan", "--chain", "fxbiquad ! nosuchelement")
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    err = lines(r.stderr)
    assert len(err) == 1, r.stderr
    assert err[0].startswith("gst-fx: ")
    assert "nosuchelement" in err[0]
    assert "Usage" not in r.stderr


def test_invalid_parameter_exits_1():
    r = gst_fx("plan", "--chain", "fxbiquad frequency=30000", "--rate", "48000")
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    err = lines(r.stderr)
    assert len(err) == 1, r.stderr
    assert "frequency" in err[0]


# ------------------------------------------------------------------------------------------------
# plan


CHAIN2 = "fxbiquad name=eqbell type=peaking gain=3 ! fxbutterworth name=lowcut mode=high-pass cutoff=80"


def test_plan_fused_two_stages_is_one_cascade():
    r = gst_fx("plan", "--chain", CHAIN2, "--device", "cpu")
    assert r.returncode == 0, r.stderr
    plan = lines(r.stdout)
    assert len(plan) == 1, r.stdout
    assert "eqbell" in plan[0] and "lowcut" in plan[0], r.stdout
    assert "cpu" in plan[0], "the plan after negotiation names the backend: %r" % r.stdout


def test_plan_no_fuse_two_stages():
    r = gst_fx("plan", "--chain", CHAIN2, "--no-fuse", "--device", "cpu")
    assert r.returncode == 0, r.stderr
    plan = lines(r.stdout)
    assert len(plan) == 2, r.stdout
    assert "eqbell" in plan[0] and "lowcut" not in plan[0], r.stdout
    assert "lowcut" in plan[1] and "eqbell" not in plan[1], r.stdout


def test_plan_fuse_flag_is_the_default():
    a = gst_fx("plan", "--chain", CHAIN2)
    b = gst_fx("plan", "--chain", CHAIN2, "--fuse")
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    assert a.stdout == b.stdout


def test_plan_f64_mono_44100():
    r = gst_fx("plan", "--chain", CHAIN2, "--format", "F64LE", "--rate", "44100",
               "--channels", "1", "--device", "cpu")
    assert r.returncode == 0, r.stderr
    plan = lines(r.stdout)
    assert len(plan) == 1, r.stdout
    assert "f64" in plan[0].lower(), "F64 streams always run in double: %r" % r.stdout


def test_plan_many_channels():
    r = gst_fx("plan", "--chain", CHAIN2, "--channels", "6")
    assert r.returncode == 0, r.stderr
    assert len(lines(r.stdout)) == 1, r.stdout


def test_plan_rate_checks_the_design():
    # 1 kHz is fine at 8 kHz; 5 kHz is above Nyquist there.
    ok = gst_fx("plan", "--chain", "fxbiquad frequency=1000", "--rate", "8000")
    assert ok.returncode == 0, ok.stderr
    bad = gst_fx("plan", "--chain", "fxbiquad frequency=5000", "--rate", "8000")
    assert bad.returncode == 1, bad.stdout


# ------------------------------------------------------------------------------------------------
# count-dispatches


def test_count_dispatches_json_fused_one_per_buffer():
    depths = (2, 5, 10, 20)
    r = gst_fx("count-dispatches", "--depths", ",".join(map(str, depths)), "--json",
               "--buffers", "25", "--frames", "256", "--device", "cpu")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["buffers"] == 25 and doc["frames"] == 256
    assert [res["depth"] for res in doc["results"]] == list(depths)
    for res in doc["results"]:
        k = res["depth"]
        assert res["fused"]["dispatches_per_buffer"] == 1.0, res
        assert res["unfused"]["dispatches_per_buffer"] == float(k), res
        assert res["fused"]["dispatches"] == 25
        assert res["unfused"]["dispatches"] == 25 * k
        assert res["fused"]["plan_stages"] == 1, res
        assert res["unfused"]["plan_stages"] == k, res
        # device=cpu: no CUDA launches
        assert res["fused"]["launches_per_buffer"] == 0.0, res
        assert res["unfused"]["launches_per_buffer"] == 0.0, res


def test_count_dispatches_table_default():
    r = gst_fx("count-dispatches")
    assert r.returncode == 0, r.stderr
    rows = {}
    for line in r.stdout.splitlines():
        m = re.match(r"\s*(\d+)\s*\|\s*([\d.]+)\s+([\d.]+)\s*\|", line)
        if m:
            rows[int(m.group(1))] = (float(m.group(2)), float(m.group(3)))
    assert sorted(rows) == [2, 5, 10, 20], r.stdout
    for k, (fused, unfused) in rows.items():
        assert fused == 1.0 and unfused == float(k), (k, r.stdout)


def test_count_dispatches_device_cuda_still_runs():
    # Without a usable GPU the chain warns and runs on the CPU: still one dispatch per buffer.
    r = gst_fx("count-dispatches", "--depths", "3", "--json", "--buffers", "10",
               "--device", "cuda")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)["results"][0]
    assert res["fused"]["dispatches_per_buffer"] == 1.0, res
    assert res["unfused"]["dispatches_per_buffer"] == 3.0, res
