"""Safety of `gst-fx process`, `process-many` and `batch` (tools/), run as subprocesses: no input is
ever destroyed, outputs appear under their final name only when complete (also after a failure or
SIGINT/SIGTERM), and a hostile or truncated header is a per-file matter.

Inputs are 16-bit PCM wav files written with Python's wave module, or byte by byte with struct for
the hostile and truncated headers. References: the input's bytes before the run (nothing may
change them), scipy.signal.butter + sosfilt for the processed samples, scipy.io.wavfile for the
outputs. The interrupted runs read their input from a named pipe that the test fills part way and
holds open, so the run is mid-file when the signal comes, whatever the machine's speed.
"""

import os
import re
import resource
import signal
import struct
import subprocess
import threading
import time
import wave

import numpy as np
import pytest
import scipy.io.wavfile
import scipy.signal

from test_cli_batch import F32_TOL
from test_tool import gst_fx, gst_fx_path, lines

pytestmark = pytest.mark.filterwarnings("ignore::scipy.io.wavfile.WavFileWarning")

CHAIN = "fxbutterworth mode=high-pass cutoff=80 order=4"
# float outputs: these tests compare the chain's float result (by default a 16-bit input gives a
# 16-bit output: test_cli_output.py)
F32 = ("--bits", "f32")
SEED = int(os.environ.get("GST_FX_TEST_SEED", "11"))


def reference(x, rate):
    """The chain with scipy: butter design and sosfilt in double precision."""
    sos = scipy.signal.butter(4, 80, "highpass", fs=rate, output="sos")
    return scipy.signal.sosfilt(sos, x, axis=0)


def write_wav(path, frames, channels=1, rate=48000, seed=SEED):
    """Random 16-bit PCM; returns the samples as the decoders give them (x / 32768)."""
    rng = np.random.default_rng(seed)
    pcm = np.clip(np.round(0.25 * rng.standard_normal((frames, channels)) * 32767), -32768,
                  32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return pcm.astype(np.float64) / 32768.0


def wav_header(rate, channels, frames, bits=16):
    """A canonical 44-byte PCM wav header announcing `frames` frames."""
    bpf = channels * bits // 8
    return (b"RIFF" + struct.pack("<I", 36 + frames * bpf) + b"WAVE" + b"fmt " +
            struct.pack("<IHHIIHH", 16, 1, channels, rate, (rate * bpf) & 0xFFFFFFFF, bpf, bits) +
            b"data" + struct.pack("<I", frames * bpf))


def aiff_header(channels, frames):
    """A 16-bit AIFF header (48 kHz) announcing `frames` frames; big-endian samples follow."""
    ssnd = frames * channels * 2
    rate = bytes.fromhex("400EBB80000000000000")  # 48000 as an 80-bit extended float
    comm = b"COMM" + struct.pack(">IhIh", 18, channels, frames, 16) + rate
    return (b"FORM" + struct.pack(">I", 4 + len(comm) + 16 + ssnd) + b"AIFF" + comm + b"SSND" +
            struct.pack(">III", 8 + ssnd, 0, 0))


def snapshot(d):
    """Every file's bytes under d (links followed), by name."""
    return {n: (d / n).read_bytes() for n in sorted(os.listdir(d))}


def temporaries(*dirs):
    return [os.path.join(str(d), n) for d in dirs for n in os.listdir(d) if ".gst-fx-" in n]


def read_out(path):
    rate, y = scipy.io.wavfile.read(str(path))
    return rate, y.reshape(len(y), -1)


# ------------------------------------------------------------------------------------------------
# Never destroy an input


@pytest.mark.parametrize("link", ["symlink", "hardlink", "in-is-symlink"])
def test_process_refuses_out_that_is_in_through_a_link(tmp_path, link):
    src = tmp_path / "in.wav"
    write_wav(src, 20000)
    before = src.read_bytes()
    if link == "symlink":
        inp, out = src, tmp_path / "out.wav"
        os.symlink(src, out)
    elif link == "hardlink":
        inp, out = src, tmp_path / "out.wav"
        os.link(src, out)
    else:  # IN is a link to OUT: writing OUT would replace the input's data
        inp, out = tmp_path / "link.wav", src
        os.symlink(src, inp)
    r = gst_fx("process", "--chain", CHAIN, *F32, str(inp), str(out))
    assert r.returncode != 0, (link, r.stderr)
    assert "same file" in r.stderr, r.stderr
    assert src.read_bytes() == before, "%s: the input was changed" % link
    assert temporaries(tmp_path) == []


def test_process_out_as_a_link_elsewhere_is_followed(tmp_path):
    """Not a fix: the temporary-and-rename writer still writes where a link at OUT points (as
    opening OUT did), and leaves the link."""
    x = write_wav(tmp_path / "in.wav", 20000)
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "real.wav").write_bytes(b"old")
    out = tmp_path / "out.wav"
    os.symlink(other / "real.wav", out)
    r = gst_fx("process", "--chain", CHAIN, *F32, str(tmp_path / "in.wav"), str(out))
    assert r.returncode == 0, r.stderr
    assert os.path.islink(out) and os.readlink(out) == str(other / "real.wav")
    rate, y = read_out(other / "real.wav")
    ref = reference(x, rate)
    assert np.max(np.abs(y - ref)) / np.max(np.abs(ref)) < F32_TOL
    assert temporaries(tmp_path) == [] and temporaries(other) == []


def test_batch_output_dir_linked_to_the_inputs_dir(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    for i, name in enumerate(["a.wav", "b.wav", "c.wav"]):
        write_wav(d / name, 9000 + 1000 * i, seed=SEED + i)
    before = snapshot(d)
    link = tmp_path / "out"
    os.symlink(d, link)
    r = gst_fx("batch", "--chain", CHAIN, *F32, "-o", str(link), *[str(d / n) for n in before])
    assert r.returncode == 1, (r.stdout, r.stderr)
    err = lines(r.stderr)
    assert len(err) == 3 and all("overwrite an input" in l for l in err), err
    assert snapshot(d) == before, "an input was changed or deleted"
    assert temporaries(d) == []


def test_batch_output_that_is_a_hard_link_to_another_input(tmp_path):
    d = tmp_path / "in"
    out = tmp_path / "out"
    d.mkdir()
    out.mkdir()
    xa = write_wav(d / "a.wav", 9000, seed=SEED)
    write_wav(d / "b.wav", 7000, seed=SEED + 1)
    # out/b.wav is input b (hard link): b must be refused, a written
    os.link(d / "b.wav", out / "b.wav")
    before = snapshot(d)
    r = gst_fx("batch", "--chain", CHAIN, *F32, "-o", str(out), str(d / "a.wav"), str(d / "b.wav"))
    assert r.returncode == 1, (r.stdout, r.stderr)
    err = lines(r.stderr)
    assert len(err) == 1 and "b.wav" in err[0] and "overwrite an input" in err[0], err
    assert snapshot(d) == before
    rate, y = read_out(out / "a.wav")
    ref = reference(xa, rate)
    assert np.max(np.abs(y - ref)) / np.max(np.abs(ref)) < F32_TOL


def test_process_many_output_dir_linked_to_the_inputs_dir(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    write_wav(d / "a.wav", 9000)
    write_wav(d / "b.wav", 5000, seed=SEED + 1)
    before = snapshot(d)
    link = tmp_path / "out"
    os.symlink(d, link)
    r = gst_fx("process-many", "--chain", CHAIN, *F32, "-o", str(link), str(d / "a.wav"),
               str(d / "b.wav"))
    assert r.returncode == 1, r.stderr
    assert len(lines(r.stderr)) == 2 and "overwrite the input" in r.stderr, r.stderr
    assert snapshot(d) == before


# ------------------------------------------------------------------------------------------------
# Outputs appear only when complete


def limited_file_size(limit):
    """preexec_fn: writes past `limit` bytes fail with EFBIG (as on a full disk)."""
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


@pytest.mark.parametrize("command", ["process", "batch"])
def test_failed_write_leaves_the_previous_file_and_no_temporary(tmp_path, command):
    d = tmp_path / "in"
    out = tmp_path / "out"
    d.mkdir()
    out.mkdir()
    write_wav(d / "big.wav", 200000)  # 800 kB of F32 output, over the limit below
    xs = write_wav(d / "small.wav", 5000, seed=SEED + 1)
    (out / "big.wav").write_bytes(b"the previous file")
    if command == "process":
        args = ["process", "--chain", CHAIN, *F32, str(d / "big.wav"), str(out / "big.wav")]
    else:
        args = ["batch", "--chain", CHAIN, *F32, "-o", str(out), str(d / "big.wav"),
                str(d / "small.wav")]
    r = subprocess.run([gst_fx_path(), *args], capture_output=True, text=True, timeout=120,
                       preexec_fn=limited_file_size(100000))
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "big.wav" in r.stderr and "cannot write" in r.stderr, r.stderr
    assert (out / "big.wav").read_bytes() == b"the previous file"
    assert temporaries(out) == []
    if command == "batch":
        rate, y = read_out(out / "small.wav")
        ref = reference(xs, rate)
        assert np.max(np.abs(y - ref)) / np.max(np.abs(ref)) < F32_TOL


def feed_fifo(fifo, data, done):
    """Opens the pipe (when gst-fx opens it), writes `data` and holds it open until `done`."""
    with open(fifo, "wb") as w:
        w.write(data)
        w.flush()
        done.wait(60)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("command", ["process", "batch"])
def test_signal_removes_temporaries_and_leaves_no_partial_output(tmp_path, command, sig):
    d = tmp_path / "in"
    out = tmp_path / "out"
    d.mkdir()
    out.mkdir()
    fifo = d / "f.wav"
    os.mkfifo(fifo)
    # announced: 200000 frames; given: 30000, then the pipe stays open (the run waits mid-file)
    data = wav_header(48000, 1, 200000) + bytes(30000 * 2)
    if command == "process":
        args = ["process", "-q", "--chain", CHAIN, *F32, str(fifo), str(out / "f.wav")]
        finals = ["f.wav"]
    else:
        write_wav(d / "a.wav", 100000)  # in the same group: waits for f.wav's chunks
        args = ["batch", "-q", "--jobs", "2", "--chain", CHAIN, *F32, "-o", str(out), str(d / "a.wav"),
                str(fifo)]
        finals = ["a.wav", "f.wav"]
    done = threading.Event()
    p = subprocess.Popen([gst_fx_path(), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    feeder = threading.Thread(target=feed_fifo, args=(fifo, data, done), daemon=True)
    feeder.start()
    try:
        # until the output is being written (under a temporary, or its final name)
        deadline = time.monotonic() + 60
        while not os.listdir(out) and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert p.poll() is None, "gst-fx ended early: %s" % p.communicate()[1]
        assert os.listdir(out), "no output was started"
        p.send_signal(sig)
        _, err = p.communicate(timeout=60)
    finally:
        done.set()
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode in (-sig, 128 + sig), (p.returncode, err)
    assert temporaries(out) == [], "temporaries left behind"
    for name in finals:
        assert not (out / name).exists(), "%s: a partial output under its final name" % name


# ------------------------------------------------------------------------------------------------
# Hostile and truncated headers


def test_absurd_rate_is_a_per_file_error(tmp_path):
    d = tmp_path / "in"
    out = tmp_path / "out"
    d.mkdir()
    hostile = d / "hostile.wav"
    hostile.write_bytes(wav_header(0x7FFFFFFF, 1, 1000) + bytes(2000))
    r = gst_fx("process", "--chain", CHAIN, *F32, "--rate", "8000", str(hostile),
               str(tmp_path / "h.wav"), timeout=60)
    assert r.returncode == 1, (r.returncode, r.stderr)
    err = lines(r.stderr)
    assert len(err) == 1 and "hostile.wav" in err[0] and "2147483647" in err[0], err
    assert not (tmp_path / "h.wav").exists()

    write_wav(d / "a.wav", 12000, seed=SEED)
    write_wav(d / "z.wav", 9000, channels=2, seed=SEED + 1)
    names = ["a.wav", "hostile.wav", "z.wav"]
    r = gst_fx("batch", "--chain", CHAIN, *F32, "--rate", "8000", "-o", str(out),
               *[str(d / n) for n in names], timeout=60)
    assert r.returncode == 1, (r.returncode, r.stderr)
    err = lines(r.stderr)
    assert len(err) == 1 and "hostile.wav" in err[0] and "2147483647" in err[0], err
    assert sorted(os.listdir(out)) == ["a.wav", "z.wav"]
    # the others as `process` gives each alone
    for name in ("a.wav", "z.wav"):
        ref = tmp_path / ("p-" + name)
        rp = gst_fx("process", "--chain", CHAIN, *F32, "--rate", "8000", str(d / name), str(ref))
        assert rp.returncode == 0, rp.stderr
        assert (out / name).read_bytes() == ref.read_bytes(), name
        assert read_out(out / name)[0] == 8000


def test_rate_out_of_range_in_a_gstreamer_decoded_file(tmp_path):
    """A container libsndfile does not read: the check is on the decoded caps, before
    audioresample (2 MHz, beyond the documented bound of 768 kHz)."""
    src = tmp_path / "hi.mka"
    subprocess.run(["gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=5", "!",
                    "audio/x-raw,format=S16LE,rate=2000000,channels=1", "!", "matroskamux", "!",
                    "filesink", "location=%s" % src], check=True, timeout=60)
    r = gst_fx("process", "--chain", CHAIN, *F32, "--rate", "8000", str(src), str(tmp_path / "o.wav"))
    assert r.returncode == 1, r.stderr
    err = lines(r.stderr)
    assert len(err) == 1 and "hi.mka" in err[0] and "2000000 Hz" in err[0], err
    assert os.listdir(tmp_path) == ["hi.mka"]


@pytest.mark.parametrize("command,fmt", [("process", "wav"), ("batch", "wav"),
                                         ("process", "aiff"), ("batch", "aiff")])
def test_truncated_file_warns_and_processes_the_frames_there(tmp_path, command, fmt):
    rng = np.random.default_rng(SEED)
    present, announced = 30000, 100000
    pcm = np.round(0.25 * rng.standard_normal(present) * 32767).astype("<i2")
    src = tmp_path / ("t." + fmt)
    if fmt == "wav":
        src.write_bytes(wav_header(48000, 1, announced) + pcm.tobytes())
    else:
        src.write_bytes(aiff_header(1, announced) + pcm.astype(">i2").tobytes())
    out = tmp_path / "out"
    out.mkdir()
    if command == "process":
        r = gst_fx("process", "--chain", CHAIN, *F32, str(src), str(out / "t.wav"))
    else:
        r = gst_fx("batch", "-q", "--chain", CHAIN, *F32, "--ext", "wav", "-o", str(out), str(src))
    assert r.returncode == 0, r.stderr
    err = lines(r.stderr)
    assert len(err) == 1 and "warning" in err[0] and src.name in err[0], err
    assert re.search(r"\b%d frames found, header says %d\b" % (present, announced), err[0]), err
    rate, y = read_out(out / "t.wav")
    assert rate == 48000 and y.shape == (present, 1)
    ref = reference(pcm.astype(np.float64).reshape(-1, 1) / 32768.0, rate)
    assert np.max(np.abs(y - ref)) / np.max(np.abs(ref)) < F32_TOL


@pytest.mark.parametrize("rate_arg", [[], ["--rate", "44100"]])
@pytest.mark.parametrize("command", ["process", "batch"])
def test_zero_frame_file_gives_a_valid_empty_output(tmp_path, command, rate_arg):
    src = tmp_path / "empty.wav"
    src.write_bytes(wav_header(48000, 2, 0))
    out = tmp_path / "out"
    out.mkdir()
    if command == "process":
        r = gst_fx("process", "--chain", CHAIN, *F32, *rate_arg, str(src), str(out / "empty.wav"))
    else:
        r = gst_fx("batch", "-q", "--chain", CHAIN, *F32, *rate_arg, "-o", str(out), str(src))
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    rate, y = scipy.io.wavfile.read(str(out / "empty.wav"))
    assert rate == (44100 if rate_arg else 48000)
    assert y.size == 0 and y.dtype == np.float32
    assert temporaries(out) == []


@pytest.mark.parametrize("command", ["process", "batch"])
def test_rate_option_beyond_the_bound_is_a_usage_error(tmp_path, command):
    write_wav(tmp_path / "a.wav", 1000)
    if command == "process":
        args = [str(tmp_path / "a.wav"), str(tmp_path / "o.wav")]
    else:
        args = ["-o", str(tmp_path / "out"), str(tmp_path / "a.wav")]
    r = gst_fx(command, "--chain", CHAIN, *F32, "--rate", "800000", *args)
    assert r.returncode == 2, r.stderr
    assert "--rate must be from 1 to 768000 Hz" in r.stderr
    assert sorted(os.listdir(tmp_path)) == ["a.wav"]
