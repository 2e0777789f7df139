"""`gst-fx info FILE…` through the CLI: format, rate, channels, duration, sample peak, true peak,
RMS, integrated loudness and loudness range against closed forms and EBU Tech 3341/3342 signals,
text and JSON output (its schema), errors per file without stopping the others; and
`process --normalize LUFS --true-peak DBTP` measured back by `info`."""

import json
import os
import wave

import numpy as np
import pytest

from test_loudness import RATE, bs1770_integrated, sine, steps, true_peak_db
from test_tool import gst_fx

pytestmark = pytest.mark.usefixtures("fx")

KEYS = {"file": str, "format": str, "encoding": str, "rate": int, "channels": int, "frames": int,
        "duration": float, "sample_peak_dbfs": float, "true_peak_dbtp": float,
        "rms_dbfs": float, "integrated_lufs": float, "loudness_range_lu": float}


def write_wav16(path, x, rate=RATE):
    pcm = np.clip(np.round(x * 32767.0), -32768, 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(x.shape[1])
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return pcm.astype(np.float64) / 32768.0


def info_json(*paths):
    r = gst_fx("info", "--json", *map(str, paths))
    return r, json.loads(r.stdout)


def check_schema(entry):
    for k, t in KEYS.items():
        assert k in entry, k
        assert entry[k] is None or isinstance(entry[k], t) or (t is float and
                                                               isinstance(entry[k], int)), k
    assert set(entry) == set(KEYS)


def test_info_numbers_and_schema(tmp_path):
    """A 3341 case-1 sine in 16-bit wav: -23.0 LUFS +- 0.1, sample peak -23 dBFS, RMS 3.01 dB under
    the peak, duration and format from the header; a 3342 case-1 file reads LRA 10 +- 1."""
    a = write_wav16(tmp_path / "sine.wav", sine(-23.0, 4.0))
    b = write_wav16(tmp_path / "lra.wav", steps((-20, 20.0), (-30, 20.0)))
    r, out = info_json(tmp_path / "sine.wav", tmp_path / "lra.wav")
    assert r.returncode == 0, r.stderr
    assert len(out) == 2
    for e in out:
        check_schema(e)
    e = out[0]
    assert e["file"] == str(tmp_path / "sine.wav")
    assert e["format"].startswith("WAV") and "16" in e["encoding"]
    assert (e["rate"], e["channels"], e["frames"]) == (RATE, 2, 4 * RATE)
    assert e["duration"] == pytest.approx(4.0)
    assert abs(e["integrated_lufs"] + 23.0) <= 0.1
    assert e["sample_peak_dbfs"] == pytest.approx(20 * np.log10(np.abs(a).max()), abs=0.01)
    assert e["rms_dbfs"] == pytest.approx(10 * np.log10(np.mean(a ** 2)), abs=0.01)
    assert e["true_peak_dbtp"] == pytest.approx(true_peak_db(a), abs=0.2)
    assert abs(out[1]["loudness_range_lu"] - 10.0) <= 1.0
    assert abs(out[1]["integrated_lufs"] - bs1770_integrated(b)) <= 0.1


def test_info_text_and_errors_per_file(tmp_path):
    """Text output names each file; a missing and a corrupt file are reported on stderr (and as
    error objects in JSON) while the good ones are measured; exit 1. Silence reads -inf/null."""
    write_wav16(tmp_path / "good.wav", sine(-20.0, 1.0))
    write_wav16(tmp_path / "silent.wav", np.zeros((RATE, 1)))
    (tmp_path / "bad.wav").write_bytes(b"RIFF....WAVEjunk")
    files = [tmp_path / "good.wav", tmp_path / "missing.wav", tmp_path / "bad.wav",
             tmp_path / "silent.wav"]
    r = gst_fx("info", *map(str, files))
    assert r.returncode == 1
    assert "missing.wav" in r.stderr and "bad.wav" in r.stderr
    assert "good.wav" in r.stdout and "silent.wav" in r.stdout
    assert "-inf LUFS" in r.stdout and "LUFS" in r.stdout
    r, out = info_json(*files)
    assert r.returncode == 1
    assert [set(e) == {"file", "error"} for e in out] == [False, True, True, False]
    assert out[3]["integrated_lufs"] is None and out[3]["sample_peak_dbfs"] is None
    assert out[3]["channels"] == 1
    r = gst_fx("info")
    assert r.returncode == 2 and "FILE" in r.stderr


def read_float_wav(path):
    import scipy.io.wavfile
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, y = scipy.io.wavfile.read(str(path))
    return y.astype(np.float64).reshape(len(y), -1)


@pytest.mark.parametrize("spelling", [["--normalize", "-16LUFS"], ["--normalize", "-16"],
                                      ["--normalize=-16 LUFS"]])
def test_process_normalize(tmp_path, spelling):
    """`process --normalize -16LUFS` (also -16 and "-16 LUFS"), no chain needed: the output reads
    -16 LUFS +- 0.1 (numpy BS.1770 reference and `info`), true peak under -1 dBTP."""
    x = write_wav16(tmp_path / "in.wav", sine(-30.0, 3.0, freq=440.0))
    r = gst_fx("process", "-q", "--bits", "f32", *spelling, str(tmp_path / "in.wav"),
               str(tmp_path / "out.wav"))
    assert r.returncode == 0, r.stderr
    y = read_float_wav(tmp_path / "out.wav")
    assert y.shape == x.shape
    assert abs(bs1770_integrated(y) + 16.0) <= 0.1
    _, out = info_json(tmp_path / "out.wav")
    assert abs(out[0]["integrated_lufs"] + 16.0) <= 0.1
    assert out[0]["true_peak_dbtp"] <= -1.0 + 0.05


def test_batch_normalize_per_file_with_true_peak(tmp_path):
    """`batch --normalize -14LUFS --true-peak -2`: each file on its own (two levels in, one
    out), and a peaky file stops at the -2 dBTP ceiling below the target."""
    d = tmp_path / "in"
    d.mkdir()
    write_wav16(d / "quiet.wav", sine(-35.0, 2.0, freq=300.0))
    write_wav16(d / "loud.wav", sine(-20.0, 2.0, freq=300.0))
    peaky = sine(-40.0, 2.0, freq=300.0)
    peaky[RATE // 2, :] = 0.9
    write_wav16(d / "peaky.wav", peaky)
    r = gst_fx("batch", "-q", "--bits", "f32", "--normalize", "-14LUFS", "--true-peak", "-2", "-o",
               str(tmp_path / "o"), *(str(d / n) for n in ("quiet.wav", "loud.wav", "peaky.wav")))
    assert r.returncode == 0, r.stderr
    for name in ("quiet.wav", "loud.wav"):
        y = read_float_wav(tmp_path / "o" / name)
        assert abs(bs1770_integrated(y) + 14.0) <= 0.1, name
    y = read_float_wav(tmp_path / "o" / "peaky.wav")
    assert abs(true_peak_db(y) + 2.0) <= 0.2
    assert bs1770_integrated(y) < -14.0 - 3.0


@pytest.mark.parametrize("args", [["--normalize", "loud"], ["--normalize", "-16dB"],
                                  ["--normalize", "5"], ["--true-peak", "-1"],
                                  ["--normalize", "-16", "--true-peak", "+3"]])
def test_normalize_usage_errors(tmp_path, args):
    """Bad values are usage errors (exit 2) naming the option."""
    write_wav16(tmp_path / "in.wav", sine(-30.0, 0.5))
    r = gst_fx("process", "--chain", "fxgain", *args, str(tmp_path / "in.wav"),
               str(tmp_path / "out.wav"))
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert ("--normalize" in r.stderr) or ("--true-peak" in r.stderr)
