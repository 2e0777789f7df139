"""device=cuda / device=auto of the IIR elements and fxchain, on machines without a GPU.

Each case runs the pipeline in a fresh Python process, because libfxcuda loads the CUDA driver once
per process and reads its test-only environment then (docs/cuda.md):
  - FX_CUDA_LIB=/nonexistent: no driver. device=cuda posts one warning naming the reason and runs
    on the CPU; nothing dropped; launches == 0; the output matches scipy.
  - FX_CUDA_LIB=<build>/tests/cuda/libfakecuda.so: the tests' fake driver (a CPU emulation of the
    driver calls libfxcuda makes, running the kernel bodies of cuda/kernels.h). device=cuda then
    takes the CUDA path end to end: one launch per buffer (graph replays), backend cuda-graph-*,
    output matches scipy. With FX_CUDA_FAIL=cuLaunchKernel:3 the third launch fails: one
    warning naming the call, the stream continues on the CPU with the state carried over (output
    still matches scipy: no buffer dropped, no state lost).
  - device=auto uses the GPU only for shapes measured faster there (fx_cuda_auto_prefers: e.g.
    512 channels x 1000 frames), silently; a stereo stream of short buffers stays on the CPU.
  - built without nvcc (cuda/'s host code only, no kernels) and no FX_CUDA_LIB: device=cuda posts
    one warning saying the build has no CUDA kernels and runs on the CPU.
The fake-driver cases run in builds with or without nvcc; they are skipped only when the CUDA
backend was not built at all (-Dcuda=disabled).
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.signal as ss

import fxcascade as fc
from fxcascade import noise, rel_err

HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = r"""
import json, sys
import numpy as np
sys.path.insert(0, %(here)r)
from conftest import run_pipeline
args = json.loads(sys.argv[1])
x = np.load(args["input"])
props = [("fx", "backend"), ("fx", "launches"), ("fx", "dispatches")]
configure = None
if args.get("switch"):
    # device changes while streaming: {buffer index: device nick}, set from a probe on the
    # element's sink pad (the streaming thread) before that buffer is filtered
    from gi.repository import Gst
    plan = {int(k): v for k, v in args["switch"].items()}
    def configure(pipeline):
        el = pipeline.get_by_name("fx")
        count = [0]
        def probe(pad, info):
            if count[0] in plan:
                el.set_property("device", plan[count[0]])
            count[0] += 1
            return Gst.PadProbeReturn.OK
        el.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, probe)
res = run_pipeline(args["desc"], x, args["rate"], split=args["split"], read_props=props,
                   configure=configure)
np.save(args["output"], res.y if res.y is not None else np.zeros((0, 0)))
print(json.dumps({"errors": [str(e) for e in res.errors],
                  "warnings": [" ".join(str(p) for p in w) for w in res.warnings],
                  "eos": res.eos,
                  "buffers_out": res.buffers_out,
                  "props": {k[1]: v for k, v in res.props.items()}}))
"""


def fake_driver():
    lib = os.environ.get("FXDSP_LIB")
    if not lib:
        return None
    p = os.path.join(os.path.dirname(lib), "cuda", "libfakecuda.so")
    return p if os.path.exists(p) else None


def require_fake_driver():
    """The fake driver's path; skips the test where the CUDA backend is not built."""
    fake = fake_driver()
    if not fake:
        pytest.skip("CUDA backend not built (-Dcuda=disabled): no fake driver")
    return fake


def run_child(tmp_path, desc, x, rate, split, env_extra, switch=None):
    inp, out = tmp_path / "x.npy", tmp_path / "y.npy"
    np.save(inp, x)
    env = dict(os.environ)
    for k in ("FX_CUDA_LIB", "FX_CUDA_FAIL"):
        env.pop(k, None)
    env.update(env_extra)
    args = json.dumps({"desc": desc, "rate": rate, "split": split, "input": str(inp),
                       "output": str(out), "switch": switch or {}})
    r = subprocess.run([sys.executable, "-c", CHILD % {"here": HERE}, args], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads(r.stdout.strip().splitlines()[-1])
    res["y"] = np.load(out)
    return res


def reference(x, rate, order=6, cutoff=700.0):
    sos = ss.butter(order, cutoff, fs=rate, output="sos")
    return ss.sosfilt(sos, x.astype(np.float64), axis=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["F32", "F64"])
def test_device_cuda_without_driver_warns_and_runs_on_cpu(tmp_path, dtype):
    rate = 48000
    x = noise(9600, 2, seed=41, dtype=dtype)
    res = run_child(tmp_path, "fxbutterworth name=fx order=6 cutoff=700 device=cuda", x, rate,
                    960, {"FX_CUDA_LIB": "/nonexistent/libcuda.so.1"})
    assert not res["errors"], res["errors"]
    assert res["eos"] and res["y"].shape == x.shape, "buffers dropped"
    assert len(res["warnings"]) == 1, res["warnings"]
    text = res["warnings"][0]
    assert "device=cuda" in text and "CPU" in text, text
    # the reason: no driver, or (built with -Dcuda=disabled) no CUDA backend in the plugin
    assert "no CUDA driver" in text or "not built" in text, text
    assert res["props"]["launches"] == 0
    assert res["props"]["backend"].startswith("cpu-"), res["props"]
    if dtype == np.float64:
        assert rel_err(res["y"], reference(x, rate)) <= 1e-9
    else:  # on the CPU, precision=auto: single where as accurate as scipy's float32
        fc.assert_f32_auto(res["y"], x, ss.butter(6, 700.0, fs=rate, output="sos"),
                           reference(x, rate))


def built_without_kernels():
    """True for a build of cuda/'s host code without nvcc: a stub image, no kernels.fatbin."""
    lib = os.environ.get("FXDSP_LIB")
    if not lib:
        return False
    cuda = os.path.join(os.path.dirname(lib), "..", "cuda")
    return (os.path.exists(os.path.join(cuda, "fatbin.c"))
            and not os.path.exists(os.path.join(cuda, "kernels.fatbin")))


def test_device_cuda_without_kernels_refuses_the_real_driver(tmp_path):
    """Built without nvcc, no FX_CUDA_LIB: the real driver is not even loaded; one warning says
    the build has no CUDA kernels; the CPU output matches scipy."""
    if not built_without_kernels():
        pytest.skip("this build has CUDA kernels (nvcc) or no CUDA backend")
    rate = 48000
    x = noise(4800, 2, seed=47, dtype=np.float64)
    res = run_child(tmp_path, "fxbutterworth name=fx order=6 cutoff=700 device=cuda", x, rate,
                    480, {})
    assert not res["errors"], res["errors"]
    assert res["eos"] and res["y"].shape == x.shape, "buffers dropped"
    assert len(res["warnings"]) == 1, res["warnings"]
    text = res["warnings"][0]
    assert "device=cuda" in text and "CPU" in text and "no CUDA kernels" in text, text
    assert "nvcc" in text, text
    assert res["props"]["launches"] == 0
    assert res["props"]["backend"].startswith("cpu-"), res["props"]
    assert rel_err(res["y"], reference(x, rate)) <= 1e-9


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["F32", "F64"])
def test_device_cuda_fake_driver_one_launch_per_buffer(tmp_path, dtype):
    fake = require_fake_driver()
    rate = 48000
    x = noise(9600, 2, seed=42, dtype=dtype)
    res = run_child(tmp_path, "fxbutterworth name=fx order=6 cutoff=700 device=cuda", x, rate,
                    960, {"FX_CUDA_LIB": fake})
    assert not res["errors"] and not res["warnings"], (res["errors"], res["warnings"])
    assert res["eos"] and res["y"].shape == x.shape
    nbuf = x.shape[0] // 960
    assert res["props"]["launches"] == nbuf, res["props"]
    assert res["props"]["dispatches"] == nbuf, res["props"]
    want = "cuda-graph-f64"  # F32 streams run in double arithmetic by default (precision=auto)
    assert res["props"]["backend"] == want, res["props"]
    tol = 1e-9 if dtype == np.float64 else 1e-6
    assert rel_err(res["y"], reference(x, rate)) <= tol


def test_device_cuda_failure_mid_stream_falls_back_with_state(tmp_path):
    fake = require_fake_driver()
    rate = 48000
    x = noise(9600, 2, seed=43, dtype=np.float64)
    res = run_child(tmp_path, "fxbutterworth name=fx order=6 cutoff=700 device=cuda "
                    "cuda-graphs=false", x, rate, 960,
                    {"FX_CUDA_LIB": fake, "FX_CUDA_FAIL": "cuLaunchKernel:3"})
    assert not res["errors"], res["errors"]
    assert res["eos"] and res["y"].shape == x.shape, "buffers dropped"
    assert len(res["warnings"]) == 1, res["warnings"]
    assert "cuLaunchKernel" in res["warnings"][0] and "CPU" in res["warnings"][0]
    assert "device=cuda:" in res["warnings"][0], res["warnings"]
    assert res["props"]["launches"] == 2, res["props"]
    assert res["props"]["backend"].startswith("cpu-"), res["props"]
    # the state carried over: the whole output is one continuous filtering
    assert rel_err(res["y"], reference(x, rate)) <= 1e-9


def test_device_auto_takes_the_gpu_only_for_measured_shapes(tmp_path):
    """device=auto through the fake driver: 512-channel buffers of 1000 frames (a shape the H200
    measured faster than the CPU engine, fx_cuda_auto_prefers) go to the GPU, one launch each,
    silently; a stereo stream of short buffers stays on the CPU (the test below). The output is
    one continuous filtering (scipy)."""
    fake = require_fake_driver()
    rate = 48000
    x = noise(3000, 512, seed=45, dtype=np.float32)
    res = run_child(tmp_path, "fxbutterworth name=fx order=4 cutoff=700 device=auto", x, rate,
                    1000, {"FX_CUDA_LIB": fake})
    assert not res["errors"] and not res["warnings"], (res["errors"], res["warnings"])
    assert res["eos"] and res["y"].shape == x.shape, "buffers dropped"
    assert res["props"]["launches"] == 3, res["props"]
    assert res["props"]["backend"].startswith("cuda-"), res["props"]
    assert rel_err(res["y"], reference(x, rate, order=4)) <= 1e-6


def test_device_auto_failure_mid_stream_names_auto(tmp_path):
    """device=auto took the GPU for a measured shape and a launch fails: one warning, naming the
    setting as the user wrote it (device=auto), and the stream goes on on the CPU."""
    fake = require_fake_driver()
    rate = 48000
    x = noise(3000, 512, seed=46, dtype=np.float32)
    res = run_child(tmp_path, "fxbutterworth name=fx order=4 cutoff=700 device=auto", x, rate,
                    1000, {"FX_CUDA_LIB": fake, "FX_CUDA_FAIL": "cuGraphLaunch:2"})
    assert not res["errors"], res["errors"]
    assert res["eos"] and res["y"].shape == x.shape, "buffers dropped"
    assert len(res["warnings"]) == 1, res["warnings"]
    assert "device=auto:" in res["warnings"][0] and "cuGraphLaunch" in res["warnings"][0]
    assert res["props"]["backend"].startswith("cpu-"), res["props"]
    assert rel_err(res["y"], reference(x, rate, order=4)) <= 1e-6


def test_device_auto_stays_on_cpu(tmp_path):
    fake = fake_driver()
    env = {"FX_CUDA_LIB": fake} if fake else {"FX_CUDA_LIB": "/nonexistent/libcuda.so.1"}
    rate = 48000
    x = noise(4800, 2, seed=44, dtype=np.float32)
    res = run_child(tmp_path, "fxbutterworth name=fx order=6 cutoff=700 device=auto", x, rate,
                    480, env)
    assert not res["errors"] and not res["warnings"], (res["errors"], res["warnings"])
    assert res["props"]["launches"] == 0
    assert res["props"]["backend"].startswith("cpu-"), res["props"]


def test_fxchain_device_cuda_fake_driver_one_launch_per_buffer(tmp_path):
    fake = require_fake_driver()
    rate = 48000
    x = noise(9600, 2, seed=45, dtype=np.float64)
    chain = ("fxbutterworth mode=high-pass cutoff=80 order=4 ! "
             "fxbutterworth mode=low-pass cutoff=6000 order=8")
    res = run_child(tmp_path, 'fxchain name=fx device=cuda chain="%s"' % chain, x, rate, 960,
                    {"FX_CUDA_LIB": fake})
    assert not res["errors"] and not res["warnings"], (res["errors"], res["warnings"])
    nbuf = x.shape[0] // 960
    assert res["props"]["launches"] == nbuf, res["props"]
    hp = ss.butter(4, 80, btype="highpass", fs=rate, output="sos")
    lp = ss.butter(8, 6000, fs=rate, output="sos")
    ref = ss.sosfilt(lp, ss.sosfilt(hp, x, axis=0), axis=0)
    assert rel_err(res["y"], ref) <= 1e-9


def test_count_dispatches_one_launch_per_fused_buffer_fake_driver():
    """gst-fx count-dispatches --device cuda: a fused chain of depth 2-20 takes one CUDA launch per
    buffer (an unfused one, one per stage). Through the fake driver: the counting and the
    one-pass-per-buffer plumbing; the real GPU is bench/cuda-check.sh's part."""
    fake = require_fake_driver()
    tool = os.environ.get("GST_FX") or os.path.join(HERE, "..", "..", "build", "tools", "gst-fx")
    if not os.access(tool, os.X_OK):
        pytest.fail("gst-fx not found at %r" % tool, pytrace=False)
    env = dict(os.environ, FX_CUDA_LIB=fake)
    env.pop("FX_CUDA_FAIL", None)
    r = subprocess.run([tool, "count-dispatches", "--depths", "2,5,20", "--json", "--buffers", "20",
                        "--device", "cuda"], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    results = json.loads(r.stdout)["results"]
    assert [x["depth"] for x in results] == [2, 5, 20], results
    for x in results:
        assert x["fused"]["launches_per_buffer"] == 1.0, x
        assert x["unfused"]["launches_per_buffer"] == float(x["depth"]), x


def test_device_switch_while_streaming_keeps_state_and_counts(tmp_path):
    """device=cuda -> cpu -> cuda while PLAYING (fake driver): the filter state moves with the
    stream (output still matches scipy), launches keep counting across the switches."""
    fake = require_fake_driver()
    rate = 48000
    x = noise(9600, 2, seed=46, dtype=np.float64)
    res = run_child(tmp_path, "fxbutterworth name=fx order=6 cutoff=700 device=cuda", x, rate,
                    960, {"FX_CUDA_LIB": fake}, switch={"3": "cpu", "6": "cuda"})
    assert not res["errors"] and not res["warnings"], (res["errors"], res["warnings"])
    assert res["eos"] and res["y"].shape == x.shape
    # buffers 0-2 and 6-9 on the (fake) GPU, 3-5 on the CPU
    assert res["props"]["launches"] == 7, res["props"]
    assert res["props"]["backend"] == "cuda-graph-f64", res["props"]
    assert rel_err(res["y"], reference(x, rate)) <= 1e-9
