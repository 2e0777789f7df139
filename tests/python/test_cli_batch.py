"""Tests of `gst-fx process` and `gst-fx batch` (tools/), run as subprocesses.

Inputs are 16-bit PCM wav files written with numpy and Python's wave module (and FLAC / Matroska
files made from them by GStreamer's flacenc / matroskamux); outputs are F32 (or F64) wav files
read with scipy.io.wavfile, or 24-bit FLAC decoded by GStreamer's flacdec. References:
scipy.signal.butter + sosfilt (the chain's design, independently), numpy's rint for the
float -> 24-bit conversion, and `process` for each file alone (batch must equal it byte for byte).
"""

import os
import re
import shutil
import subprocess
import wave

import numpy as np
import pytest
import scipy.io.wavfile
import scipy.signal

from test_tool import gst_fx, gst_fx_path, lines

# libsndfile's IEEE-float wav files carry a `fact` and a `PAD ` chunk, which scipy skips with a
# warning
pytestmark = pytest.mark.filterwarnings("ignore::scipy.io.wavfile.WavFileWarning")

CHAIN = ("fxbutterworth mode=high-pass cutoff=80 order=4 ! "
         "fxbutterworth mode=low-pass cutoff=12000 order=8")
BLOCK = 4096  # frames per fxchain buffer in process and batch (tools/media.h)
# Largest error of an F32 output against scipy's float64 filter, relative to the reference's peak.
# precision=auto runs these high-pass designs in float arithmetic (its probe finds the float
# kernels more accurate than scipy's float32 sosfilt): about 2e-5 of the peak on noise; a wrong
# filter, channel or offset is off by 1e-2 and more.
F32_TOL = 1e-4

# (name, channels, frames, rate): lengths around and across the block size, 1-3 channels
FILES = [
    ("a.wav", 2, 30000, 48000),
    ("b.wav", 1, 12345, 48000),
    ("c.wav", 3, 50001, 48000),
    ("d.wav", 2, 100, 48000),
    ("e.wav", 1, 3 * BLOCK, 48000),
]


def write_wav(path, x, rate):
    """x: frames x channels float in [-1, 1) -> 16-bit PCM wav."""
    pcm = np.clip(np.round(x * 32767.0), -32768, 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(x.shape[1])
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return pcm.astype(np.float64) / 32768.0  # what a decoder gives back


def float_out(fmt="F32LE"):
    """--bits for float outputs in the processing format (`fmt`, or options holding F64LE): the
    tests here compare the chain's float result itself, while by default a 16-bit input gives a
    16-bit output (test_cli_output.py)."""
    return ("--bits", "f64" if "F64LE" in fmt else "f32")


def make_inputs(d, files=FILES, seed=7):
    rng = np.random.default_rng(seed)
    decoded = {}
    for name, ch, n, rate in files:
        x = 0.25 * rng.standard_normal((n, ch))
        decoded[name] = write_wav(os.path.join(d, name), x, rate)
    return decoded


@pytest.fixture
def inputs(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    decoded = make_inputs(str(d))
    return d, decoded


def paths(d, names):
    return [str(d / n) for n in names]


def summary(stdout):
    m = re.search(r"(\d+) of (\d+) files written, (\d+) failed; (\d+) group\(s\) at (\d+) Hz, "
                  r"(\d+) blocks of up to (\d+) frames, (\d+) dispatches", stdout)
    assert m, stdout
    keys = ("written", "selected", "failed", "groups", "rate", "blocks", "block", "dispatches")
    return dict(zip(keys, map(int, m.groups())))


def reference(x, rate, dtype=np.float64):
    """The chain with scipy: butter designs and sosfilt in double precision (or, with
    dtype=np.float32, scipy's float32 sosfilt of the float32 input: the accuracy precision=auto
    promises at least)."""
    hp = scipy.signal.butter(4, 80, "highpass", fs=rate, output="sos")
    lp = scipy.signal.butter(8, 12000, "lowpass", fs=rate, output="sos")
    sos = np.vstack([hp, lp]).astype(dtype)
    return scipy.signal.sosfilt(sos, np.asarray(x, dtype=dtype), axis=0).astype(np.float64)


# ------------------------------------------------------------------------------------------------
# batch == process, and both == scipy


@pytest.mark.parametrize("extra", [(), ("--precision", "single"), ("--format", "F64LE")])
def test_batch_equals_process_bit_for_bit(inputs, tmp_path, extra):
    d, decoded = inputs
    names = [f[0] for f in FILES]
    out_b = tmp_path / "batch"
    r = gst_fx("batch", "--chain", CHAIN, "-o", str(out_b), *extra, *float_out(extra),
               *paths(d, names))
    assert r.returncode == 0, r.stderr
    s = summary(r.stdout)
    assert s["written"] == len(names) and s["failed"] == 0 and s["groups"] == 1, s
    # one dispatch per block for all files together: blocks = ceil(longest / block), where the
    # block is 4096 frames (as in process) or, when every cascade runs on the CPU, cut to about
    # 1 MiB (a power of two from 256; tools/cmd-batch.c: block_frames())
    longest = max(f[2] for f in FILES)
    channels = sum(f[1] for f in FILES)
    bps = 8 if "F64LE" in extra else 4
    r_plan = gst_fx("plan", "--chain", CHAIN, "--channels", str(channels), *extra[:2])
    expect = BLOCK
    if "backend cpu" in r_plan.stdout and "cuda" not in r_plan.stdout:
        while expect > 256 and expect * channels * bps > 1 << 20:
            expect //= 2
    assert s["block"] == expect, (s, r_plan.stdout)
    assert s["blocks"] == -(-longest // s["block"]), s
    assert s["dispatches"] == s["blocks"], s

    out_p = tmp_path / "process"
    out_p.mkdir()
    for name in names:
        rp = gst_fx("process", "--chain", CHAIN, *extra, *float_out(extra), str(d / name),
                    str(out_p / name))
        assert rp.returncode == 0, rp.stderr
        assert rp.stdout == "" and rp.stderr == "", "no progress bar off a terminal"
    for name, ch, n, rate in FILES:
        a = (out_b / name).read_bytes()
        b = (out_p / name).read_bytes()
        assert a == b, "%s: batch output differs from process (%s)" % (name, extra)
        sr, y = scipy.io.wavfile.read(str(out_b / name))
        y = y.reshape(n, ch) if y.ndim == 1 else y
        assert sr == rate and y.shape == (n, ch), (name, sr, y.shape)
        assert y.dtype == (np.float64 if "F64LE" in extra else np.float32)
        ref = reference(decoded[name], rate)
        err = np.max(np.abs(y - ref)) / np.max(np.abs(ref))
        tol = F32_TOL if y.dtype == np.float32 else 1e-10
        if "single" in extra:
            tol = 1e-3  # float32 arithmetic on an 8th-order low-pass (DESIGN §4: ~54 dB)
        assert err < tol, (name, extra, err)


def test_batch_memory_groups_and_padding(inputs, tmp_path):
    """With a budget of 1 MiB the files run in several groups; outputs still equal `process`."""
    d, _ = inputs
    big = [("big1.wav", 2, 70000, 48000), ("big2.wav", 2, 70000, 48000),
           ("big3.wav", 1, 20000, 48000)]
    make_inputs(str(d), big, seed=3)
    names = [f[0] for f in FILES + big]
    out_b = tmp_path / "batch"
    r = gst_fx("batch", "--chain", CHAIN, "-o", str(out_b), "--memory", "1", *paths(d, names))
    assert r.returncode == 0, r.stderr
    s = summary(r.stdout)
    assert s["groups"] >= 2, s
    assert s["dispatches"] == s["blocks"], s
    # more worker threads than files in flight: same groups, same bytes
    out_j = tmp_path / "batch-j"
    rj = gst_fx("batch", "--chain", CHAIN, "-o", str(out_j), "--memory", "1", "--jobs", "5",
                *paths(d, names))
    assert rj.returncode == 0, rj.stderr
    assert summary(rj.stdout) == s
    for name in names:
        assert (out_j / name).read_bytes() == (out_b / name).read_bytes(), name
    out_p = tmp_path / "process"
    out_p.mkdir()
    for name in names:
        rp = gst_fx("process", "--chain", CHAIN, str(d / name), str(out_p / name))
        assert rp.returncode == 0, rp.stderr
        assert (out_b / name).read_bytes() == (out_p / name).read_bytes(), name


def test_batch_resamples_with_rate_and_refuses_without(inputs, tmp_path):
    d, _ = inputs
    make_inputs(str(d), [("r44.wav", 2, 5000, 44100)], seed=5)
    files = paths(d, ["a.wav", "b.wav", "r44.wav"])
    r = gst_fx("batch", "--chain", CHAIN, "-o", str(tmp_path / "o1"), *files)
    assert r.returncode == 1, (r.stdout, r.stderr)
    err = lines(r.stderr)
    assert len(err) == 1, r.stderr
    assert "r44.wav" in err[0] and "44100" in err[0], err
    assert sorted(os.listdir(tmp_path / "o1")) == ["a.wav", "b.wav"]

    r = gst_fx("batch", "--chain", CHAIN, "-o", str(tmp_path / "o2"), "--rate", "32000", *files)
    assert r.returncode == 0, r.stderr
    for name in ("a.wav", "b.wav", "r44.wav"):
        sr, _ = scipy.io.wavfile.read(str(tmp_path / "o2" / name))
        assert sr == 32000, name
        rp = gst_fx("process", "--chain", CHAIN, "--rate", "32000", str(d / name),
                    str(tmp_path / ("p-" + name)))
        assert rp.returncode == 0, rp.stderr
        assert (tmp_path / "o2" / name).read_bytes() == (tmp_path / ("p-" + name)).read_bytes()


def test_batch_corrupt_and_missing_files_among_good_ones(inputs, tmp_path):
    d, _ = inputs
    (d / "corrupt.wav").write_bytes(b"RIFF\x10\x00\x00\x00WAVEfmt " + np.random.default_rng(191).bytes(3000))
    (d / "text.wav").write_text("this is not audio\n" * 100)
    files = paths(d, ["a.wav", "corrupt.wav", "b.wav", "text.wav", "missing.wav"])
    out = tmp_path / "out"
    r = gst_fx("batch", "--chain", CHAIN, "-o", str(out), *files)
    assert r.returncode == 1, (r.stdout, r.stderr)
    err = lines(r.stderr)
    assert len(err) == 3, r.stderr
    for bad, line in zip(("corrupt.wav", "missing.wav", "text.wav"), sorted(err)):
        assert line.startswith("gst-fx: ") and bad in line, (bad, line)
    s = summary(r.stdout)
    assert s["written"] == 2 and s["failed"] == 3, s
    for name in ("a.wav", "b.wav"):
        rp = gst_fx("process", "--chain", CHAIN, str(d / name), str(tmp_path / name))
        assert rp.returncode == 0
        assert (out / name).read_bytes() == (tmp_path / name).read_bytes()
    assert sorted(os.listdir(out)) == ["a.wav", "b.wav"]


def test_shards_cover_every_file_exactly_once(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    files = [("f%02d.wav" % i, 1 + i % 2, 500 + 37 * i, 48000) for i in range(11)]
    make_inputs(str(d), files)
    names = [f[0] for f in files]
    rng = np.random.default_rng(0)
    shuffled = list(rng.permutation(names))  # the order of the arguments must not matter
    for n in (1, 3, 4):
        seen = []
        for k in range(1, n + 1):
            out = tmp_path / ("s%d-%d" % (k, n))
            r = gst_fx("batch", "--chain", CHAIN, "-o", str(out), "--shard", "%d/%d" % (k, n),
                       *paths(d, shuffled))
            assert r.returncode == 0, r.stderr
            got = sorted(os.listdir(out))
            # deterministic: the same shard of the same list again gives the same files
            expect = sorted(names)[k - 1::n]
            assert got == expect, (k, n, got)
            seen += got
        assert sorted(seen) == sorted(names), n
    # the same shards from a list file (some names there, some on the command line) and stdin
    listing = tmp_path / "list.txt"
    listing.write_text("".join(str(d / n) + "\r\n" for n in shuffled[:6]) + "\n")
    r = gst_fx("batch", "--chain", CHAIN, "-o", str(tmp_path / "l"), "--shard", "2/4",
               "--files-from", str(listing), *paths(d, shuffled[6:]))
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(tmp_path / "l")) == sorted(names)[1::4]
    r = subprocess.run([gst_fx_path(), "batch", "--chain", CHAIN, "-o", str(tmp_path / "i"),
                        "--files-from", "-"], input="\n".join(paths(d, names)), text=True,
                       capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(tmp_path / "i")) == sorted(names)


def test_batch_channel_coupled_stage_runs_per_file(inputs, tmp_path):
    """A stage that is not per-channel (audioconvert may remix) cannot run on stacked files: the
    files run one by one (one group each), each output equal to `process`; per-channel stages
    other than IIR ones stay stacked (one group)."""
    d, _ = inputs
    names = ["a.wav", "b.wav", "c.wav"]
    chain = "fxbiquad ! audioconvert"
    r = gst_fx("batch", "--chain", chain, "-o", str(tmp_path / "o"), *paths(d, names))
    assert r.returncode == 0, (r.stdout, r.stderr)
    s = summary(r.stdout)
    assert s["written"] == 3 and s["groups"] == 3, s
    for name in names:
        rp = gst_fx("process", "--chain", chain, str(d / name), str(tmp_path / name))
        assert rp.returncode == 0, rp.stderr
        assert (tmp_path / "o" / name).read_bytes() == (tmp_path / name).read_bytes(), name
    r = gst_fx("batch", "--chain", "fxgain gain=-3 ! fxbiquad ! volume volume=0.5",
               "-o", str(tmp_path / "o2"), *paths(d, names))
    assert r.returncode == 0, r.stderr
    assert summary(r.stdout)["groups"] == 1


def test_batch_output_collision_and_ext(inputs, tmp_path):
    d, _ = inputs
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(d / "a.wav", other / "a.wav")
    r = gst_fx("batch", "--chain", CHAIN, "-o", str(tmp_path / "o"), str(d / "a.wav"),
               str(other / "a.wav"))
    assert r.returncode == 2 and "would both be written" in r.stderr, r.stderr
    assert r.stderr.splitlines()[1:] == ["Try 'gst-fx batch --help'."], r.stderr
    r = gst_fx("batch", "--chain", CHAIN, "-o", str(tmp_path / "o"), "--ext", "flac",
               str(d / "a.wav"), str(d / "b.wav"))
    assert r.returncode == 0, r.stderr
    for name in ("a.flac", "b.flac"):
        assert (tmp_path / "o" / name).read_bytes()[:4] == b"fLaC"


def test_process_encodes_by_extension(inputs, tmp_path):
    d, decoded = inputs
    for ext, magic in (("flac", b"fLaC"), ("ogg", b"OggS"), ("wav", b"RIFF")):
        out = tmp_path / ("a." + ext)
        bits = float_out() if ext == "wav" else ()
        r = gst_fx("process", "--chain", CHAIN, *bits, str(d / "a.wav"), str(out))
        assert r.returncode == 0, r.stderr
        assert out.read_bytes()[:4] == magic, ext
    # the flac output decodes to the wav output within 24-bit (or 16-bit) quantisation
    flac_as_wav = tmp_path / "flac.wav"
    r = subprocess.run(["gst-launch-1.0", "-q", "filesrc", "location=%s" % (tmp_path / "a.flac"),
                        "!", "decodebin", "!", "audioconvert", "!",
                        "audio/x-raw,format=F32LE", "!", "wavenc", "!", "filesink",
                        "location=%s" % flac_as_wav], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    _, yf = scipy.io.wavfile.read(str(flac_as_wav))
    _, yw = scipy.io.wavfile.read(str(tmp_path / "a.wav"))
    assert yf.shape == yw.shape
    assert np.max(np.abs(yf - yw)) < 2.0 / 32768


def gst_convert(src, dst, *elements):
    """filesrc location=src ! ELEMENTS ! filesink location=dst with gst-launch-1.0."""
    args = ["gst-launch-1.0", "-q", "filesrc", "location=%s" % src]
    for e in elements:
        args += ["!"] + e.split()
    args += ["!", "filesink", "location=%s" % dst]
    r = subprocess.run(args, capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr


def read_wav(path, ch):
    _, y = scipy.io.wavfile.read(str(path))
    return y.reshape(-1, ch) if y.ndim == 1 else y


def test_flac_in_flac_out_batch_equals_process_and_quantisation(inputs, tmp_path):
    """FLAC inputs (16-bit, from GStreamer's flacenc) are read by libsndfile in both commands;
    FLAC outputs with --bits 24 (more bits than the input's: no dither) are
    clip(rint(y * 2^23)) of the float output y, ties to even, clipped to [-2^23, 2^23 - 1] (a
    loud square wave overshoots full scale after the filters)."""
    d, decoded = inputs
    n = 20000
    t = np.arange(n)
    loud = np.where((t // 200) % 2 == 0, 0.999, -0.999)[:, None] * np.ones((1, 2))
    decoded["loud.wav"] = write_wav(d / "loud.wav", loud, 48000)
    names = ["a", "b", "d", "loud"]  # (flacenc needs a channel mask for c.wav's 3 channels)
    for name in names:
        gst_convert(d / (name + ".wav"), d / (name + ".flac"), "wavparse", "flacenc")
    out_b = tmp_path / "batch"
    r = gst_fx("batch", "--chain", CHAIN, "--bits", "24", "-o", str(out_b),
               *paths(d, [x + ".flac" for x in names]))
    assert r.returncode == 0, r.stderr
    assert summary(r.stdout)["groups"] == 1
    clipped = 0
    for name in names:
        ch = decoded[name + ".wav"].shape[1]
        pf, pw = tmp_path / (name + ".flac"), tmp_path / (name + ".wav")
        for out, bits in ((pf, ("--bits", "24")), (pw, float_out())):
            rp = gst_fx("process", "--chain", CHAIN, *bits, str(d / (name + ".flac")), str(out))
            assert rp.returncode == 0, rp.stderr
        assert (out_b / (name + ".flac")).read_bytes() == pf.read_bytes(), name
        y = read_wav(pw, ch)
        assert y.dtype == np.float32
        ref = reference(decoded[name + ".wav"], 48000)
        # the loud square wave's slow decays after each edge hold float's error longer than
        # noise does: there the bound is scipy float32's own error on it
        ref32 = reference(decoded[name + ".wav"], 48000, np.float32)
        tol = max(F32_TOL, np.max(np.abs(ref32 - ref)) / np.max(np.abs(ref)))
        assert np.max(np.abs(y - ref)) / np.max(np.abs(ref)) < tol, name
        # the 24-bit samples, decoded by GStreamer (not libsndfile), widened to S32
        s32 = tmp_path / (name + "-s32.wav")
        gst_convert(pf, s32, "flacparse", "flacdec", "audioconvert dithering=none",
                    "audio/x-raw,format=S32LE", "wavenc")
        q = read_wav(s32, ch).astype(np.int64)
        assert q.shape == y.shape and np.all(q % 256 == 0), name
        scaled = y.astype(np.float32) * np.float32(2.0 ** 23)  # exact: a power of two
        expect = np.clip(np.rint(scaled), -2.0 ** 23, 2.0 ** 23 - 1).astype(np.int64)
        assert np.array_equal(q >> 8, expect), (name, np.max(np.abs((q >> 8) - expect)))
        clipped += int(np.sum(np.abs(scaled) > 2.0 ** 23))
    assert clipped > 0, "the loud file must exercise clipping"


def test_gstreamer_decoded_files_batch_equals_process(inputs, tmp_path):
    """Matroska (which libsndfile does not read) goes through GStreamer's decoder in both
    commands; for 16-bit PCM it gives the same samples as libsndfile gives for the wav."""
    d, decoded = inputs
    names = ["a", "b", "d"]  # (matroskamux needs a channel mask for c.wav's 3 channels)
    for name in names:
        gst_convert(d / (name + ".wav"), d / (name + ".mka"), "wavparse", "matroskamux")
    out_b = tmp_path / "batch"
    r = gst_fx("batch", "--chain", CHAIN, "-o", str(out_b), "--ext", "wav",
               *paths(d, [x + ".mka" for x in names]))
    assert r.returncode == 0, r.stderr
    for name in names:
        p_mka, p_wav = tmp_path / (name + "-mka.wav"), tmp_path / (name + "-wav.wav")
        for src, out in ((name + ".mka", p_mka), (name + ".wav", p_wav)):
            rp = gst_fx("process", "--chain", CHAIN, str(d / src), str(out))
            assert rp.returncode == 0, rp.stderr
        assert (out_b / (name + ".wav")).read_bytes() == p_mka.read_bytes(), name
        ch = decoded[name + ".wav"].shape[1]
        assert np.array_equal(read_wav(p_mka, ch), read_wav(p_wav, ch)), name


def test_process_progress_bar_on_a_terminal(inputs, tmp_path):
    import pty
    d, _ = inputs
    master, slave = pty.openpty()
    # on stderr (stdout may carry the output: OUT "-")
    p = subprocess.Popen([gst_fx_path(), "process", "--chain", CHAIN, str(d / "c.wav"),
                          str(tmp_path / "c.wav")], stderr=slave, stdout=subprocess.PIPE)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    p.wait(timeout=60)
    os.close(master)
    assert p.returncode == 0, out
    assert p.stdout.read() == b""
    text = out.decode(errors="replace")
    assert "100%" in text and "elapsed" in text and "left" in text, text
    # --quiet: nothing even on a terminal
    master, slave = pty.openpty()
    p = subprocess.Popen([gst_fx_path(), "process", "-q", "--chain", CHAIN, str(d / "c.wav"),
                          str(tmp_path / "c2.wav")], stderr=slave)
    os.close(slave)
    p.wait(timeout=60)
    try:
        rest = os.read(master, 4096)
    except OSError:
        rest = b""
    os.close(master)
    assert rest == b"", rest


# ------------------------------------------------------------------------------------------------
# errors, usage, help

PROCESS_OPTIONS = ("--chain", "--chain-file", "--type", "--device", "--precision", "--format",
                   "--bits", "--dither", "--clip-error", "--rate", "--quiet", "--help")
BATCH_OPTIONS = ("--chain", "--chain-file", "--output-dir", "--recursive", "--input-ext", "--shard",
                 "--files-from", "--rate", "--memory", "--jobs", "--ext", "--device", "--precision",
                 "--format", "--bits", "--dither", "--clip-error", "--quiet", "--help")


@pytest.mark.parametrize("command,options", [("process", PROCESS_OPTIONS),
                                             ("batch", BATCH_OPTIONS)])
def test_help_mentions_every_option(command, options):
    r = gst_fx(command, "--help")
    assert r.returncode == 0, r.stderr
    for opt in options:
        assert opt in r.stdout, (command, opt)
    top = gst_fx("--help")
    assert command in top.stdout
    for opt in options:
        if opt != "--help" and opt != "--output-dir":
            assert opt in top.stdout, (command, opt)


@pytest.mark.parametrize("args", [
    ("process",),
    ("process", "--chain", CHAIN),
    ("process", "--chain", CHAIN, "in.wav"),
    ("process", "--chain", CHAIN, "in.wav", "out.wav", "extra.wav"),
    ("process", "in.wav", "out.wav"),  # no --chain
    ("process", "--chain", CHAIN, "in.wav", "out.m4a"),  # no encoder
    ("process", "--chain", CHAIN, "in.wav", "./in.wav"),  # would overwrite its input
    ("process", "--chain", CHAIN, "--device", "tpu", "in.wav", "out.wav"),
    ("process", "--chain", CHAIN, "--precision", "half", "in.wav", "out.wav"),
    ("process", "--chain", CHAIN, "--format", "S16LE", "in.wav", "out.wav"),
    ("process", "--chain", CHAIN, "--rate", "-5", "in.wav", "out.wav"),
    ("process", "--chain", CHAIN, "--bogus", "in.wav", "out.wav"),
    ("batch", "--chain", CHAIN, "in.wav"),  # no -o
    ("batch", "--chain", CHAIN, "-o", "dir"),  # no files
    ("batch", "-o", "dir", "in.wav"),  # no --chain
    ("batch", "--chain", CHAIN, "-o", "dir", "--shard", "0/3", "in.wav"),
    ("batch", "--chain", CHAIN, "-o", "dir", "--shard", "4/3", "in.wav"),
    ("batch", "--chain", CHAIN, "-o", "dir", "--shard", "1", "in.wav"),
    ("batch", "--chain", CHAIN, "-o", "dir", "--shard", "a/b", "in.wav"),
    ("batch", "--chain", CHAIN, "-o", "dir", "--memory", "0", "in.wav"),
    ("batch", "--chain", CHAIN, "-o", "dir", "--jobs", "-1", "in.wav"),
    ("batch", "--chain", CHAIN, "-o", "dir", "--ext", "m4a", "in.wav"),
])
def test_bad_arguments_exit_2_with_usage(args):
    r = gst_fx(*args)
    assert r.returncode == 2, (args, r.returncode, r.stdout, r.stderr)
    # one line and the hint, not the whole help (issue 19)
    err = r.stderr.splitlines()
    assert len(err) == 2 and err[0].startswith("gst-fx: "), r.stderr
    assert err[1] == "Try 'gst-fx %s --help'." % args[0], r.stderr
    assert r.stdout == ""


def test_process_errors_are_one_line(inputs, tmp_path):
    d, _ = inputs
    cases = [
        (("process", "--chain", CHAIN, str(tmp_path / "missing.wav"), str(tmp_path / "o.wav")),
         "missing.wav"),
        (("process", "--chain", CHAIN, str(d / "a.wav"), str(tmp_path / "no" / "dir" / "o.wav")),
         "o.wav"),
        (("process", "--chain", "fxbiquad ! nosuchelement", str(d / "a.wav"),
          str(tmp_path / "o.wav")), "nosuchelement"),
        (("process", "--chain", "fxbiquad frequency=30000", str(d / "a.wav"),
          str(tmp_path / "o.wav")), "frequency"),
    ]
    (tmp_path / "bad.wav").write_bytes(b"RIFF" + np.random.default_rng(472).bytes(2000))
    cases.append((("process", "--chain", CHAIN, str(tmp_path / "bad.wav"),
                   str(tmp_path / "o.wav")), "bad.wav"))
    for args, needle in cases:
        r = gst_fx(*args)
        assert r.returncode == 1, (args, r.stdout, r.stderr)
        err = lines(r.stderr)
        assert len(err) == 1, (args, r.stderr)
        assert err[0].startswith("gst-fx: ") and needle in err[0], (args, err)
        assert "Usage" not in r.stderr


def test_batch_unwritable_output_dir(inputs, tmp_path):
    d, _ = inputs
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = gst_fx("batch", "--chain", CHAIN, "-o", str(blocker / "sub"), str(d / "a.wav"))
    assert r.returncode == 1, (r.stdout, r.stderr)
    err = lines(r.stderr)
    assert len(err) == 1 and str(blocker) in err[0], err


def test_file_with_nan_does_not_touch_the_others(inputs, tmp_path):
    """The cascade resets all channels' state on NaN/Inf; batch runs such a file on its own, so
    every output still equals `process` for that file alone."""
    d, _ = inputs
    rng = np.random.default_rng(11)
    x = (0.2 * rng.standard_normal((20000, 2))).astype(np.float32)
    x[7000, 1] = np.nan
    scipy.io.wavfile.write(str(d / "nan.wav"), 48000, x)
    names = ["a.wav", "b.wav", "nan.wav", "c.wav"]
    out_b = tmp_path / "batch"
    r = gst_fx("batch", "--chain", CHAIN, "-o", str(out_b), *paths(d, names))
    assert r.returncode == 0, r.stderr
    s = summary(r.stdout)
    assert s["groups"] == 2, s
    for name in names:
        rp = gst_fx("process", "--chain", CHAIN, str(d / name), str(tmp_path / name))
        assert rp.returncode == 0, rp.stderr
        assert (out_b / name).read_bytes() == (tmp_path / name).read_bytes(), name
    _, y = scipy.io.wavfile.read(str(out_b / "nan.wav"))
    # the state is reset after the block that carried the NaN (frames 4096..8191)
    assert np.all(np.isfinite(y[2 * BLOCK:])), "the state was reset after the NaN"
    assert np.all(np.isfinite(y[:7000]))


def test_streamed_files_are_grouped_by_the_descriptor_limit(tmp_path):
    """16-bit wav files are streamed (input and output open while their group runs); with a
    limit of 64 open files a group takes at most 16 of them (2 descriptors each, beside the
    program's own and the files opened ahead), and the outputs stay the same (and equal
    `process`), also with the shorter blocks of a wide group on the CPU."""
    import resource
    d = tmp_path / "in"
    d.mkdir()
    files = [("s%02d.wav" % i, 2 + i % 2, 3000 + 500 * i, 48000) for i in range(40)]
    decoded = make_inputs(str(d), files, seed=9)
    names = [f[0] for f in files]

    def limited():
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))

    r = subprocess.run([gst_fx_path(), "batch", "--chain", CHAIN, "-o", str(tmp_path / "lim"),
                        "--jobs", "2", *float_out(), *paths(d, names)], capture_output=True,
                       text=True,
                       timeout=120, preexec_fn=limited)
    assert r.returncode == 0, r.stderr
    s = summary(r.stdout)
    assert s["written"] == 40 and s["groups"] >= 3, s
    r = gst_fx("batch", "--chain", CHAIN, "-o", str(tmp_path / "all"), *float_out(),
               *paths(d, names))
    assert r.returncode == 0, r.stderr
    s_all = summary(r.stdout)
    assert s_all["groups"] == 1
    # 100 channels: on the CPU the blocks are cut to 2048 frames (< 1 MiB), in the groups of at
    # most 16 files (at most about 40 channels) they are 4096: the outputs are the same
    if "backend cpu" in r.stdout:
        assert s_all["block"] == 2048 and s["block"] == 4096, (s_all, s)
    for name, ch, n, rate in files:
        a = (tmp_path / "lim" / name).read_bytes()
        assert a == (tmp_path / "all" / name).read_bytes(), name
        if name in ("s00.wav", "s39.wav"):
            rp = gst_fx("process", "--chain", CHAIN, *float_out(), str(d / name),
                        str(tmp_path / name))
            assert rp.returncode == 0, rp.stderr
            assert (tmp_path / name).read_bytes() == a, name
        y = read_wav(tmp_path / "lim" / name, ch)
        ref = reference(decoded[name], rate)
        assert np.max(np.abs(y - ref)) / np.max(np.abs(ref)) < F32_TOL, name


def test_ogg_batch_decodes_like_process(inputs, tmp_path):
    """Ogg Vorbis bytes differ from run to run (libsndfile picks a random stream serial number),
    so batch and process are compared on the decoded audio (GStreamer's vorbisdec), exactly."""
    d, decoded = inputs
    names = ["a", "b", "d"]
    out_b = tmp_path / "batch"
    r = gst_fx("batch", "--chain", CHAIN, "-o", str(out_b), "--ext", "ogg",
               *paths(d, [x + ".wav" for x in names]))
    assert r.returncode == 0, r.stderr
    for name in names:
        po = tmp_path / (name + ".ogg")
        rp = gst_fx("process", "--chain", CHAIN, str(d / (name + ".wav")), str(po))
        assert rp.returncode == 0, rp.stderr
        ys = []
        for src in (out_b / (name + ".ogg"), po):
            assert src.read_bytes()[:4] == b"OggS"
            dst = tmp_path / (src.parent.name + "-" + name + ".wav")
            gst_convert(src, dst, "oggdemux", "vorbisdec", "audioconvert dithering=none",
                        "audio/x-raw,format=F32LE", "wavenc")
            ys.append(read_wav(dst, decoded[name + ".wav"].shape[1]))
        assert ys[0].shape == ys[1].shape and np.array_equal(ys[0], ys[1]), name
        # lossy (white noise is the hardest input for Vorbis): the length, and the signal's
        # correlation with the reference as a loose check that it is the filtered input
        ref = reference(decoded[name + ".wav"], 48000)
        assert len(ys[0]) == len(ref), (name, len(ys[0]), len(ref))
        if len(ref) > 4096:
            c = np.corrcoef(ys[0].ravel(), ref.ravel())[0, 1]
            assert c > 0.7, (name, c)  # 0.84-0.94 here; the unfiltered input gives ~0.02


@pytest.mark.parametrize("fmt", ["F32LE", "F64LE"])
def test_batch_reading_paths_in_stereo_strips(tmp_path, fmt):
    """Many stereo 16-bit wav files (read with positioned reads and stacked a cache line of
    channels at a time) mixed with a big-endian 16-bit AIFF (read as integers and byte-swapped),
    a 24-bit wav and a 16-bit FLAC (read as floats), a 3-channel file whose channels straddle
    a line, and lengths that end inside and across blocks: batch equals `process` byte for byte
    and scipy within float rounding, in F32 and F64."""
    import aifc
    import warnings
    d = tmp_path / "in"
    d.mkdir()
    rng = np.random.default_rng(11)
    decoded, names = {}, []
    for i in range(18):
        ch = 3 if i == 1 else 2
        n = 5000 + 1531 * i
        x = 0.3 * rng.standard_normal((n, ch))
        x[:3] = np.array([0.99999, -1.0, 0.5])[:, None]  # full scale at the start
        if i == 3:  # big-endian 16-bit AIFF
            name = "s%02d.aiff" % i
            pcm = np.clip(np.round(x * 32767.0), -32768, 32767).astype(">i2")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                w = aifc.open(str(d / name), "wb")
                w.setnchannels(ch)
                w.setsampwidth(2)
                w.setframerate(48000)
                w.writeframes(pcm.tobytes())
                w.close()
            decoded[name] = pcm.astype(np.float64) / 32768.0
        elif i == 12:  # 24-bit wav
            name = "s%02d.wav" % i
            pcm = np.clip(np.round(x * 8388607.0), -8388608, 8388607).astype("<i4")
            raw = pcm.astype("<i4").view(np.uint8).reshape(-1, 4)[:, :3].tobytes()
            with wave.open(str(d / name), "wb") as w:
                w.setnchannels(ch)
                w.setsampwidth(3)
                w.setframerate(48000)
                w.writeframes(raw)
            decoded[name] = pcm.astype(np.float64) / 8388608.0
        elif i == 9:  # 16-bit FLAC
            name = "s%02d.flac" % i
            decoded[name] = write_wav(tmp_path / "s09.wav", x, 48000)
            gst_convert(tmp_path / "s09.wav", d / name, "wavparse", "flacenc")
        else:
            name = "s%02d.wav" % i
            decoded[name] = write_wav(d / name, x, 48000)
        names.append(name)
    out_b = tmp_path / "batch"
    r = gst_fx("batch", "--chain", CHAIN, "--format", fmt, *float_out(fmt), "--ext", "wav",
               "-o", str(out_b), *paths(d, names))
    assert r.returncode == 0, r.stderr
    s = summary(r.stdout)
    assert s["written"] == 18 and s["groups"] == 1 and s["dispatches"] == s["blocks"], s
    for name in names:
        wav = os.path.splitext(name)[0] + ".wav"
        ch = decoded[name].shape[1]
        rp = gst_fx("process", "--chain", CHAIN, "--format", fmt, *float_out(fmt), str(d / name),
                    str(tmp_path / wav))
        assert rp.returncode == 0, rp.stderr
        a = (out_b / wav).read_bytes()
        assert a == (tmp_path / wav).read_bytes(), (name, fmt)
        y = read_wav(out_b / wav, ch)
        assert y.shape == decoded[name].shape, name
        ref = reference(decoded[name], 48000)
        tol = F32_TOL if fmt == "F32LE" else 1e-10
        assert np.max(np.abs(y - ref)) / np.max(np.abs(ref)) < tol, (name, fmt)


@pytest.mark.parametrize("fmt", ["F32LE", "F64LE"])
def test_wide_stack_with_zero_columns_equals_process(tmp_path, fmt):
    """131 files (261 channels: a stacked row of 1044 bytes in F32, 2088 in F64) are stacked with
    a few zero channels after them (dsp/cascade.h: fx_cascade_padded_channels), which must not
    reach any output: every file matches scipy within float rounding and a few, the mono one
    among them, equal `process` byte for byte."""
    d = tmp_path / "in"
    d.mkdir()
    files = [("w%03d.wav" % i, 1 if i == 70 else 2, 700 + 37 * i, 48000) for i in range(131)]
    decoded = make_inputs(str(d), files, seed=5)
    names = [f[0] for f in files]
    out_b = tmp_path / "batch"
    r = gst_fx("batch", "--chain", CHAIN, "--format", fmt, *float_out(fmt), "-o", str(out_b),
               *paths(d, names))
    assert r.returncode == 0, r.stderr
    s = summary(r.stdout)
    assert s["written"] == 131 and s["groups"] == 1 and s["dispatches"] == s["blocks"], s
    tol = F32_TOL if fmt == "F32LE" else 1e-10
    for name, ch, n, _ in files:
        y = read_wav(out_b / name, ch)
        ref = reference(decoded[name], 48000)
        assert y.shape == (n, ch), name
        assert np.max(np.abs(y - ref)) / np.max(np.abs(ref)) < tol, (name, fmt)
    for name in ("w000.wav", "w070.wav", "w130.wav"):
        rp = gst_fx("process", "--chain", CHAIN, "--format", fmt, *float_out(fmt), str(d / name),
                    str(tmp_path / name))
        assert rp.returncode == 0, rp.stderr
        assert (out_b / name).read_bytes() == (tmp_path / name).read_bytes(), (name, fmt)


# ------------------------------------------------------------------------------------------------
# stages with a tail or a latency: fxdelay and fxreverb render their tail at EOS, fxlimiter and
# a look-ahead fxcompressor hold their look-ahead back and push it at EOS, fxnormalize holds the
# whole stream until EOS, a low-latency fxfir holds back its partitions' delay. `process` must
# run them (it used to hang in the EOS push) and `batch` must give the same outputs, per file.

TAIL_CHAINS = [
    "fxdelay",
    "fxdelay delay=10 feedback=0.5 mix=0.5",
    "fxreverb",
    "fxlimiter",
    "fxnormalize",
    "fxcompressor look-ahead=5",
    "fxfir max-latency=64 num-taps=1001",
]
TAIL_RATE = 8000  # short files, short tails
TAIL_DEADLINE = 30  # seconds: a hang fails the test instead of blocking the run


def gst_fx_deadline(*args):
    try:
        return gst_fx(*args, timeout=TAIL_DEADLINE)
    except subprocess.TimeoutExpired:
        pytest.fail("gst-fx %s did not return within %d s" % (" ".join(args), TAIL_DEADLINE))


@pytest.fixture
def tail_inputs(tmp_path):
    """Three stereo 16-bit files of different lengths (so that per-file tails differ)."""
    d = tmp_path / "tin"
    d.mkdir()
    files = [("t1.wav", 2, 3000, TAIL_RATE), ("t2.wav", 2, 9001, TAIL_RATE),
             ("t3.wav", 2, 5000, TAIL_RATE)]
    return d, make_inputs(str(d), files=files, seed=11)


@pytest.mark.parametrize("fmt", ["F32LE", "F64LE"])
@pytest.mark.parametrize("chain", TAIL_CHAINS)
def test_process_runs_tail_stages_as_the_pipeline(tail_inputs, tmp_path, chain, fmt):
    """`process` returns, and its output is what the same fxchain gives in a GStreamer pipeline
    fed the decoded file in blocks of 4096 frames: the input's length plus the stage's tail, the
    same samples."""
    from conftest import run_pipeline
    d, decoded = tail_inputs
    dtype = np.float32 if fmt == "F32LE" else np.float64
    out = tmp_path / "p.wav"
    r = gst_fx_deadline("process", "-q", "-c", chain, "-f", fmt, *float_out(fmt),
                        str(d / "t2.wav"), str(out))
    assert r.returncode == 0, r.stderr
    y = read_wav(out, 2)
    assert y.dtype == dtype
    ref = run_pipeline('fxchain chain="%s"' % chain, decoded["t2.wav"].astype(dtype), TAIL_RATE,
                       split=BLOCK)
    assert not ref.errors, ref.error_text()
    assert y.shape == ref.y.shape, (chain, fmt, y.shape, ref.y.shape)
    assert np.array_equal(y, ref.y), (chain, fmt, np.max(np.abs(y - ref.y)))


@pytest.mark.parametrize("fmt", ["F32LE", "F64LE"])
def test_process_delay_echoes_closed_form(tmp_path, fmt):
    """An impulse through fxdelay delay=D feedback=g mix=m (constant parameters): the output is
    (1-m) a at 0 and m a g^(k-1) at k*D (k >= 1), nothing else; the echoes go on past the input's
    end (the tail) until they are below -90 dBFS."""
    rate, n, a = TAIL_RATE, 1000, 0.5
    D, g, m = 80, 0.5, 0.5  # 10 ms at 8 kHz
    x = np.zeros((n, 1))
    x[0, 0] = a
    write_wav(tmp_path / "imp.wav", x, rate)
    out = tmp_path / "o.wav"
    r = gst_fx_deadline("process", "-q", "-c", "fxdelay delay=10 feedback=%r mix=%r" % (g, m),
                        "-f", fmt, *float_out(fmt), str(tmp_path / "imp.wav"), str(out))
    assert r.returncode == 0, r.stderr
    y = read_wav(out, 1)[:, 0].astype(np.float64)
    ref = np.zeros(len(y))
    ref[0] = (1 - m) * a
    for k in range(1, (len(y) - 1) // D + 1):
        ref[k * D] = m * a * g ** (k - 1)
    tol = 1e-7 if fmt == "F32LE" else 1e-14
    assert np.max(np.abs(y - ref)) < tol, np.max(np.abs(y - ref))
    # the tail: every echo above -90 dBFS is there
    last = max(k for k in range(1, 64) if m * a * g ** (k - 1) >= 10 ** (-90 / 20))
    assert len(y) > last * D > n, (len(y), last * D)


@pytest.mark.parametrize("fmt", ["F32LE", "F64LE"])
@pytest.mark.parametrize("chain", TAIL_CHAINS + ["fxbiquad ! fxdelay ping-pong=true ! fxgain gain=-3"])
def test_batch_tail_stages_equal_process(tail_inputs, tmp_path, chain, fmt):
    """Stages with a tail or a latency run per file in batch: every output equals `process` of
    that file alone, byte for byte (its tail after its own end, its look-ahead flushed at its own
    end, normalised on its own)."""
    d, decoded = tail_inputs
    names = sorted(decoded)
    out_b = tmp_path / "batch"
    r = gst_fx_deadline("batch", "-q", "-c", chain, "-f", fmt, "-o", str(out_b),
                        *paths(d, names))
    assert r.returncode == 0, r.stderr
    out_p = tmp_path / "process"
    out_p.mkdir()
    for name in names:
        rp = gst_fx_deadline("process", "-q", "-c", chain, "-f", fmt, str(d / name),
                             str(out_p / name))
        assert rp.returncode == 0, rp.stderr
        assert (out_b / name).read_bytes() == (out_p / name).read_bytes(), (name, chain, fmt)


# ------------------------------------------------------------------------------------------------
# the open-file limit


@pytest.mark.parametrize("jobs", ["1", "16"])
def test_batch_within_a_small_open_file_limit(tmp_path, jobs):
    """Under `ulimit -n 40` (soft and hard), many files that span several chunks (so outputs stay
    open while their group runs), some decoded into memory (F32 wav), some streamed (16-bit wav),
    all go through: every output is written and equals `process`."""
    import resource
    d = tmp_path / "in"
    d.mkdir()
    rng = np.random.default_rng(5)
    names = []
    for i in range(120):
        x = (0.25 * rng.standard_normal((6000, 1 + i % 2))).astype(np.float32)
        if i % 3 == 0:
            name = "s%03d.wav" % i
            write_wav(d / name, x, 48000)
        else:
            name = "m%03d.wav" % i
            scipy.io.wavfile.write(str(d / name), 48000, x)
        names.append(name)
    out = tmp_path / "o"

    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (40, 40))

    r = subprocess.run([gst_fx_path(), "batch", "-j", jobs, "--chain", CHAIN, "-o", str(out),
                        *paths(d, names)], capture_output=True, text=True, timeout=300,
                       preexec_fn=limit)
    assert r.returncode == 0, r.stderr[-2000:]
    s = summary(r.stdout)
    assert s["written"] == len(names) and s["failed"] == 0, s
    assert sorted(os.listdir(out)) == sorted(names)
    for name in names[:6]:
        rp = gst_fx("process", "-q", "--chain", CHAIN, str(d / name), str(tmp_path / name))
        assert rp.returncode == 0, rp.stderr
        assert (out / name).read_bytes() == (tmp_path / name).read_bytes(), name
