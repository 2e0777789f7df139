"""`gst-fx process`/`batch` output formats as a SoX user expects them (issue 19, item 2): the
output keeps the input's sample encoding (16-bit in, 16-bit out; float in, float out) unless
`--bits` says otherwise, TPDF dither where precision is lost (`--dither`), clipped samples counted
and reported (`--clip-error`), tags and metadata chunks carried over, and every format libsndfile
writes here, by extension.

Files are written and read with libsndfile itself (through ctypes: no python3-soundfile needed),
so the headers (major format, subtype) are libsndfile's reading of them. References are computed
in numpy from the float output of the same chain (`--bits f32`, the same F32 processing): integer
output without dither must be exactly numpy's round-to-nearest-even of it, with TPDF dither the
error must have mean 0 and variance 1/6 + 1/12 = 1/4 LSB^2 (dsp/quantize.c: two uniforms of
+-0.5 LSB summed, then rounding), at the LSB of the output's own width (24-bit too), and the
clip count must be numpy's count of rounded values outside the range.
"""

import ctypes
import ctypes.util
import os
import shlex
import subprocess

import numpy as np
import pytest

from test_tool import gst_fx, gst_fx_path, lines

pytestmark = pytest.mark.usefixtures("fx")

RATE = 48000
SEED = int(os.environ.get("FX_TEST_SEED", "2019"))


# ------------------------------------------------------------------------------------------------
# libsndfile through ctypes

_lib = ctypes.CDLL(ctypes.util.find_library("sndfile") or "libsndfile.so.1")


class SF_INFO(ctypes.Structure):
    _fields_ = [("frames", ctypes.c_int64), ("samplerate", ctypes.c_int),
                ("channels", ctypes.c_int), ("format", ctypes.c_int),
                ("sections", ctypes.c_int), ("seekable", ctypes.c_int)]


_lib.sf_open.restype = ctypes.c_void_p
_lib.sf_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(SF_INFO)]
_lib.sf_close.argtypes = [ctypes.c_void_p]
_lib.sf_strerror.restype = ctypes.c_char_p
_lib.sf_strerror.argtypes = [ctypes.c_void_p]
_lib.sf_get_string.restype = ctypes.c_char_p
_lib.sf_get_string.argtypes = [ctypes.c_void_p, ctypes.c_int]
_lib.sf_set_string.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p]
_lib.sf_readf_double.restype = ctypes.c_int64
_lib.sf_readf_double.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
_lib.sf_writef_double.restype = ctypes.c_int64
_lib.sf_writef_double.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
_lib.sf_read_int.restype = ctypes.c_int64
_lib.sf_read_int.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
_lib.sf_command.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int]

SFM_READ, SFM_WRITE = 0x10, 0x20
MAJOR = {"WAV": 0x010000, "AIFF": 0x020000, "AU": 0x030000, "RAW": 0x040000, "FLAC": 0x170000,
         "CAF": 0x180000, "W64": 0x0B0000, "RF64": 0x220000, "OGG": 0x200000}
SUBTYPE = {"PCM_S8": 1, "PCM_16": 2, "PCM_24": 3, "PCM_32": 4, "PCM_U8": 5, "FLOAT": 6,
           "DOUBLE": 7, "VORBIS": 0x60, "OPUS": 0x64, "MPEG_LAYER_III": 0x82}
SUBTYPE_NAME = {v: k for k, v in SUBTYPE.items()}
STRINGS = {"title": 1, "copyright": 2, "software": 3, "artist": 4, "comment": 5, "date": 6,
           "album": 7, "license": 8, "tracknumber": 9, "genre": 0x10}
SFC_SET_NORM_DOUBLE = 0x1002
SFC_GET_FORMAT_MAJOR_COUNT, SFC_GET_FORMAT_MAJOR = 0x1030, 0x1031
SFC_GET_FORMAT_SUBTYPE_COUNT, SFC_GET_FORMAT_SUBTYPE = 0x1032, 0x1033
SFC_GET_BROADCAST_INFO, SFC_SET_BROADCAST_INFO = 0x10F0, 0x10F1


class SF_FORMAT_INFO(ctypes.Structure):
    _fields_ = [("format", ctypes.c_int), ("name", ctypes.c_char_p),
                ("extension", ctypes.c_char_p)]


class SF_BROADCAST_INFO(ctypes.Structure):
    _fields_ = [("description", ctypes.c_char * 256), ("originator", ctypes.c_char * 32),
                ("originator_reference", ctypes.c_char * 32),
                ("origination_date", ctypes.c_char * 10), ("origination_time", ctypes.c_char * 8),
                ("time_reference_low", ctypes.c_uint32), ("time_reference_high", ctypes.c_uint32),
                ("version", ctypes.c_short), ("umid", ctypes.c_char * 64),
                ("loudness_value", ctypes.c_int16), ("loudness_range", ctypes.c_int16),
                ("max_true_peak_level", ctypes.c_int16),
                ("max_momentary_loudness", ctypes.c_int16),
                ("max_shortterm_loudness", ctypes.c_int16), ("reserved", ctypes.c_char * 180),
                ("coding_history_size", ctypes.c_uint32), ("coding_history", ctypes.c_char * 256)]


class SF_CUE_POINT(ctypes.Structure):
    _fields_ = [("indx", ctypes.c_int32), ("position", ctypes.c_uint32),
                ("fcc_chunk", ctypes.c_int32), ("chunk_start", ctypes.c_int32),
                ("block_start", ctypes.c_int32), ("sample_offset", ctypes.c_uint32),
                ("name", ctypes.c_char * 256)]


class SF_CUES(ctypes.Structure):
    _fields_ = [("cue_count", ctypes.c_uint32), ("cue_points", SF_CUE_POINT * 100)]


class SF_LOOP(ctypes.Structure):
    _fields_ = [("mode", ctypes.c_int), ("start", ctypes.c_uint32), ("end", ctypes.c_uint32),
                ("count", ctypes.c_uint32)]


class SF_INSTRUMENT(ctypes.Structure):
    _fields_ = [("gain", ctypes.c_int), ("basenote", ctypes.c_char), ("detune", ctypes.c_char),
                ("velocity_lo", ctypes.c_char), ("velocity_hi", ctypes.c_char),
                ("key_lo", ctypes.c_char), ("key_hi", ctypes.c_char),
                ("loop_count", ctypes.c_int), ("loops", SF_LOOP * 16)]


SFC_GET_CUE, SFC_SET_CUE = 0x10CE, 0x10CF
SFC_GET_INSTRUMENT, SFC_SET_INSTRUMENT = 0x10D0, 0x10D1


def chunk(path, cmd, struct):
    """The struct libsndfile's GET command `cmd` fills from the file, or None."""
    i = SF_INFO()
    h = _lib.sf_open(str(path).encode(), SFM_READ, ctypes.byref(i))
    try:
        v = struct()
        ok = _lib.sf_command(h, cmd, ctypes.byref(v), ctypes.sizeof(v))
        return v if ok else None
    finally:
        _lib.sf_close(h)


def info(path):
    """(major, subtype name, channels, rate, frames)."""
    i = SF_INFO()
    h = _lib.sf_open(str(path).encode(), SFM_READ, ctypes.byref(i))
    if not h:
        raise OSError("%s: %s" % (path, _lib.sf_strerror(None).decode()))
    _lib.sf_close(h)
    return (i.format & 0x0FFF0000, SUBTYPE_NAME.get(i.format & 0xFFFF, hex(i.format & 0xFFFF)),
            i.channels, i.samplerate, i.frames)


def read(path, ints=False):
    """frames x channels float64 (x / 2^(bits-1) for PCM), or with ints the int32 samples
    (left-aligned as libsndfile gives them), and the SF_INFO."""
    i = SF_INFO()
    h = _lib.sf_open(str(path).encode(), SFM_READ, ctypes.byref(i))
    if not h:
        raise OSError("%s: %s" % (path, _lib.sf_strerror(None).decode()))
    try:
        if ints:
            out = np.zeros((max(i.frames, 0), i.channels), np.int32)
            n = _lib.sf_read_int(h, out.ctypes.data, out.size)
            return out[: n // i.channels], i
        out = np.zeros((max(i.frames, 0), i.channels), np.float64)
        n = _lib.sf_readf_double(h, out.ctypes.data, i.frames)
        return out[:n], i
    finally:
        _lib.sf_close(h)


def strings(path):
    i = SF_INFO()
    h = _lib.sf_open(str(path).encode(), SFM_READ, ctypes.byref(i))
    try:
        res = {}
        for k, v in STRINGS.items():
            s = _lib.sf_get_string(h, v)
            if s is not None:
                res[k] = s.decode()
        return res
    finally:
        _lib.sf_close(h)


def broadcast(path):
    i = SF_INFO()
    h = _lib.sf_open(str(path).encode(), SFM_READ, ctypes.byref(i))
    try:
        b = SF_BROADCAST_INFO()
        ok = _lib.sf_command(h, SFC_GET_BROADCAST_INFO, ctypes.byref(b), ctypes.sizeof(b))
        return b if ok else None
    finally:
        _lib.sf_close(h)


def write(path, x, rate, major, subtype, tags=None, bext=None, cues=None, instrument=None):
    """x: frames x channels float64, written by libsndfile (normalised: x * 2^(bits-1))."""
    x = np.ascontiguousarray(x, np.float64)
    i = SF_INFO(samplerate=rate, channels=x.shape[1], format=MAJOR[major] | SUBTYPE[subtype])
    h = _lib.sf_open(str(path).encode(), SFM_WRITE, ctypes.byref(i))
    if not h:
        raise OSError("%s: %s" % (path, _lib.sf_strerror(None).decode()))
    try:
        for k, v in (tags or {}).items():
            assert _lib.sf_set_string(h, STRINGS[k], v.encode()) == 0, k
        if bext is not None:
            assert _lib.sf_command(h, SFC_SET_BROADCAST_INFO, ctypes.byref(bext),
                                   ctypes.sizeof(bext)) == 1
        if cues is not None:
            assert _lib.sf_command(h, SFC_SET_CUE, ctypes.byref(cues), ctypes.sizeof(cues)) == 1
        if instrument is not None:
            assert _lib.sf_command(h, SFC_SET_INSTRUMENT, ctypes.byref(instrument),
                                   ctypes.sizeof(instrument)) == 1
        assert _lib.sf_writef_double(h, x.ctypes.data, x.shape[0]) == x.shape[0]
    finally:
        _lib.sf_close(h)


def writable_extensions():
    """{extension: major} of every major format libsndfile writes with some subtype."""
    n = ctypes.c_int()
    _lib.sf_command(None, SFC_GET_FORMAT_MAJOR_COUNT, ctypes.byref(n), ctypes.sizeof(n))
    m = ctypes.c_int()
    _lib.sf_command(None, SFC_GET_FORMAT_SUBTYPE_COUNT, ctypes.byref(m), ctypes.sizeof(m))
    _lib.sf_format_check.argtypes = [ctypes.POINTER(SF_INFO)]
    res = {}
    for k in range(n.value):
        f = SF_FORMAT_INFO(format=k)
        _lib.sf_command(None, SFC_GET_FORMAT_MAJOR, ctypes.byref(f), ctypes.sizeof(f))
        ext = f.extension.decode().lower()
        ok = False
        for j in range(m.value):
            s = SF_FORMAT_INFO(format=j)
            _lib.sf_command(None, SFC_GET_FORMAT_SUBTYPE, ctypes.byref(s), ctypes.sizeof(s))
            for ch in (1, 2):
                i = SF_INFO(samplerate=48000, channels=ch, format=f.format | s.format)
                ok = ok or bool(_lib.sf_format_check(ctypes.byref(i)))
        if ok and ext not in res:
            res[ext] = f.format
    return res


# ------------------------------------------------------------------------------------------------
# helpers


def noise(frames, channels, scale=0.25, seed=0):
    rng = np.random.default_rng(SEED + seed)
    return np.clip(scale * rng.standard_normal((frames, channels)), -0.999, 0.999)


def run(*args):
    r = gst_fx(*[str(a) for a in args])
    return r


def process(src, out, *opts, chain="fxgain gain=-3.5"):
    r = run("process", "-q", "--chain", chain, *opts, src, out)
    assert r.returncode == 0, (r.stderr, "seed %d" % SEED)
    return r


def ints(path, bits):
    """The samples of an integer PCM file as integers of `bits` bits."""
    y, _ = read(path, ints=True)
    return (y >> (32 - bits)).astype(np.int64)


def numpy_quantise(y, bits):
    """Round to nearest (ties to even) and clamp to `bits` bits: the reference, and the count of
    clamped samples."""
    scale = 2.0 ** (bits - 1)
    r = np.rint(np.asarray(y, np.float64) * scale)
    clipped = int(np.count_nonzero((r > scale - 1) | (r < -scale)))
    return np.clip(r, -scale, scale - 1).astype(np.int64), clipped


# ------------------------------------------------------------------------------------------------
# sample encodings


def test_16_bit_in_gives_16_bit_out_rounded_from_the_float_result(tmp_path):
    x = noise(20000, 2)
    write(tmp_path / "in.wav", x, RATE, "WAV", "PCM_16")
    process(tmp_path / "in.wav", tmp_path / "out.wav")
    process(tmp_path / "in.wav", tmp_path / "none.wav", "--dither", "none")
    process(tmp_path / "in.wav", tmp_path / "f32.wav", "--bits", "f32")
    assert info(tmp_path / "out.wav")[1:] == ("PCM_16", 2, RATE, 20000)
    assert info(tmp_path / "f32.wav")[1:] == ("FLOAT", 2, RATE, 20000)
    y, _ = read(tmp_path / "f32.wav")
    # the float result is the chain's (a gain of -3.5 dB on the decoded 16-bit samples)
    x16 = ints(tmp_path / "in.wav", 16) / 32768.0
    assert np.max(np.abs(y - x16 * 10 ** (-3.5 / 20))) < 1e-6, "seed %d" % SEED
    # 16 bits in, 16 bits out: TPDF dither by default, as SoX after effects (the float result is
    # finer than 16 bits); --dither none: exactly numpy's rounding of the float result
    want, clipped = numpy_quantise(y, 16)
    assert clipped == 0
    assert np.array_equal(ints(tmp_path / "none.wav", 16), want), "seed %d" % SEED
    e = ints(tmp_path / "out.wav", 16) - y * 32768.0
    assert abs(np.mean(e)) < 0.02 and abs(np.var(e) - 0.25) < 0.02, ("seed %d" % SEED, np.var(e))
    # an unchanged signal goes through bit-exact without dither
    process(tmp_path / "in.wav", tmp_path / "same.wav", "--dither", "none", chain="fxgain gain=0")
    assert np.array_equal(ints(tmp_path / "same.wav", 16), ints(tmp_path / "in.wav", 16))


def test_bits_24_flac_and_f32_f64(tmp_path):
    x = noise(20000, 2, seed=1)
    write(tmp_path / "in.wav", x, RATE, "WAV", "PCM_16")
    process(tmp_path / "in.wav", tmp_path / "f32.wav", "--bits", "f32")
    process(tmp_path / "in.wav", tmp_path / "out.flac", "--bits", "24")
    assert info(tmp_path / "out.flac")[:2] == (MAJOR["FLAC"], "PCM_24")
    # 16 -> 24 bits loses nothing: no dither, numpy's rounding at 24 bits
    y, _ = read(tmp_path / "f32.wav")
    want, _ = numpy_quantise(y, 24)
    assert np.array_equal(ints(tmp_path / "out.flac", 24), want), "seed %d" % SEED
    # f64 output of F64 processing; --format alone never changes the output's samples
    process(tmp_path / "in.wav", tmp_path / "f64.wav", "--format", "F64LE", "--bits", "f64")
    assert info(tmp_path / "f64.wav")[1] == "DOUBLE"
    process(tmp_path / "in.wav", tmp_path / "fmt.wav", "--format", "F64LE")
    assert info(tmp_path / "fmt.wav")[1] == "PCM_16"
    y64, _ = read(tmp_path / "f64.wav")
    assert np.max(np.abs(y64 - y)) < 1e-6
    # a 24-bit FLAC keeps 24 bits; a float wav keeps float; float into FLAC is 24-bit
    write(tmp_path / "in24.flac", x, RATE, "FLAC", "PCM_24")
    write(tmp_path / "inf.wav", x, RATE, "WAV", "FLOAT")
    process(tmp_path / "in24.flac", tmp_path / "o24.flac")
    process(tmp_path / "inf.wav", tmp_path / "of.wav")
    process(tmp_path / "inf.wav", tmp_path / "of.flac")
    assert info(tmp_path / "o24.flac")[1] == "PCM_24"
    assert info(tmp_path / "of.wav")[1] == "FLOAT"
    assert info(tmp_path / "of.flac")[1] == "PCM_24"
    process(tmp_path / "inf.wav", tmp_path / "o32.wav", "--bits", "32")
    assert info(tmp_path / "o32.wav")[1] == "PCM_32"


def dither_error(out, ref, bits):
    e = ints(out, bits).astype(np.float64) - ref.reshape(-1, ref.shape[-1]) * 2.0 ** (bits - 1)
    return e.ravel()


@pytest.mark.parametrize("bits,ext", [(16, "wav"), (24, "flac")])
def test_tpdf_dither_at_the_output_lsb(tmp_path, bits, ext):
    n = 1 << 17
    x = noise(n, 1, scale=0.2, seed=2)
    write(tmp_path / "in.wav", x, RATE, "WAV", "FLOAT")
    out, again, none = (tmp_path / ("%s.%s" % (k, ext)) for k in ("tpdf", "again", "none"))
    process(tmp_path / "in.wav", tmp_path / "f32.wav")  # float in: float out
    y, _ = read(tmp_path / "f32.wav")
    # float in, integer out: TPDF by default
    process(tmp_path / "in.wav", out, "--bits", str(bits))
    process(tmp_path / "in.wav", again, "--bits", str(bits), "--dither", "tpdf")
    process(tmp_path / "in.wav", none, "--bits", str(bits), "--dither", "none")
    assert out.read_bytes() == again.read_bytes(), "the dither is seeded: the same file twice"
    e = dither_error(out, y, bits)
    # two uniforms of +-0.5 LSB summed (variance 1/6) then rounding (1/12): 1/4 LSB^2, mean 0;
    # standard errors near sqrt(0.25 / n) = 0.0014 (mean) and 0.001 (variance)
    assert np.max(np.abs(e)) < 1.5
    assert abs(np.mean(e)) < 0.008 and abs(np.var(e) - 0.25) < 0.008, \
        (np.mean(e), np.var(e), "seed %d" % SEED)
    # without dither: exactly round to nearest (error variance 1/12)
    want, _ = numpy_quantise(y, bits)
    assert np.array_equal(ints(none, bits), want.reshape(-1, 1)), "seed %d" % SEED
    assert abs(np.var(dither_error(none, y, bits)) - 1 / 12) < 0.005


# ------------------------------------------------------------------------------------------------
# clipping


def test_clipping_is_counted_and_reported(tmp_path):
    x = noise(30000, 2, scale=0.3, seed=3)
    write(tmp_path / "in.wav", x, RATE, "WAV", "PCM_16")
    chain = "fxgain gain=12"
    process(tmp_path / "in.wav", tmp_path / "f32.wav", "--bits", "f32", chain=chain)
    y, _ = read(tmp_path / "f32.wav")
    want, clipped = numpy_quantise(y, 16)
    assert clipped > 1000
    # without dither the count is exactly numpy's (TPDF dither would move samples near full scale)
    out = tmp_path / "out.wav"
    r = run("process", "-q", "--dither", "none", "--chain", chain, tmp_path / "in.wav", out)
    assert r.returncode == 0, r.stderr
    assert lines(r.stderr) == ["gst-fx: %s: clipped %d samples; lower the gain" % (out, clipped)]
    assert np.array_equal(ints(out, 16), want), "seed %d" % SEED
    # --clip-error: exit status 1, the output is kept
    out2 = tmp_path / "out2.wav"
    r = run("process", "-q", "--dither", "none", "--clip-error", "--chain", chain, tmp_path / "in.wav", out2)
    assert r.returncode == 1
    assert lines(r.stderr) == ["gst-fx: %s: clipped %d samples; lower the gain (--clip-error)"
                               % (out2, clipped)]
    assert out2.read_bytes() == out.read_bytes()
    # float outputs never clip
    r = run("process", "-q", "--clip-error", "--bits", "f32", "--chain", chain,
            tmp_path / "in.wav", tmp_path / "f.wav")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    # batch: per file, the others still written
    d = tmp_path / "in"
    d.mkdir()
    write(d / "loud.wav", x, RATE, "WAV", "PCM_16")
    write(d / "quiet.wav", 0.01 * x, RATE, "WAV", "PCM_16")
    write(d / "float.wav", x, RATE, "WAV", "FLOAT")
    r = run("batch", "-q", "--dither", "none", "--clip-error", "--chain", chain,
            "-o", tmp_path / "o", d)
    assert r.returncode == 1
    assert lines(r.stderr) == ["gst-fx: %s: clipped %d samples; lower the gain (--clip-error)"
                               % (tmp_path / "o" / "loud.wav", clipped)]
    assert sorted(os.listdir(tmp_path / "o")) == ["float.wav", "loud.wav", "quiet.wav"]
    assert (tmp_path / "o" / "loud.wav").read_bytes() == out.read_bytes()


# ------------------------------------------------------------------------------------------------
# tags and metadata

TAGS = {"title": "Take 3", "artist": "An Artist", "comment": "a comment", "date": "2024-05-01",
        "album": "An Album", "license": "CC-BY-4.0", "tracknumber": "7", "genre": "Jazz",
        "copyright": "(c) nobody"}


def test_tags_and_bext_are_carried_over(tmp_path):
    x = noise(4000, 2, seed=4)
    b = SF_BROADCAST_INFO()
    b.description = b"the description"
    b.originator = b"gst-fx tests"
    b.coding_history = b"A=PCM,F=48000,W=16,M=stereo\r\n"
    b.coding_history_size = len(b.coding_history)
    write(tmp_path / "in.wav", x, RATE, "WAV", "PCM_16", tags=TAGS, bext=b)
    write(tmp_path / "in.flac", x, RATE, "FLAC", "PCM_16",
          tags=dict(TAGS, software="Some Recorder 1.0"))
    for src, dst in (("in.wav", "o.wav"), ("in.wav", "o.flac"), ("in.flac", "o2.wav"),
                     ("in.wav", "o.aiff")):
        process(tmp_path / src, tmp_path / dst)
        got = strings(tmp_path / dst)
        # what the output's format holds: libsndfile's own round trip of every tag through it
        probe = tmp_path / ("probe" + os.path.splitext(dst)[1])
        write(probe, x, RATE, {".wav": "WAV", ".flac": "FLAC", ".aiff": "AIFF"}[probe.suffix],
              "PCM_16", tags=TAGS)
        holds = set(strings(probe)) & set(strings(tmp_path / src)) - {"software"}
        assert {"title", "artist", "comment"} <= holds, holds
        for k in holds:
            assert got.get(k) == TAGS[k], (src, dst, k, got)
        if src == "in.flac":
            assert got["software"].startswith("Some Recorder 1.0"), got
        else:
            assert got["software"].startswith("gst-fx"), got
    out = broadcast(tmp_path / "o.wav")
    assert out is not None and out.description == b"the description"
    assert out.originator == b"gst-fx tests"
    assert out.coding_history.startswith(b"A=PCM,F=48000,W=16,M=stereo\r\n")
    # cue points and the instrument chunk (sampler loops), wav to wav and to aiff
    cues = SF_CUES(cue_count=2)
    for k, pos in enumerate((1000, 3000)):
        cues.cue_points[k].indx = k + 1
        cues.cue_points[k].position = pos
        cues.cue_points[k].fcc_chunk = 0x61746164  # "data"
        cues.cue_points[k].sample_offset = pos
    inst = SF_INSTRUMENT(gain=1, basenote=b"\x3c", velocity_lo=b"\x01", velocity_hi=b"\x7f",
                         key_lo=b"\x00", key_hi=b"\x7f", loop_count=1)
    inst.loops[0].mode, inst.loops[0].start, inst.loops[0].end = 800, 500, 2500  # forward
    write(tmp_path / "cues.wav", x, RATE, "WAV", "PCM_16", cues=cues, instrument=inst)
    write(tmp_path / "probe-inst.aiff", x, RATE, "AIFF", "PCM_16", instrument=inst)
    aiff = chunk(tmp_path / "probe-inst.aiff", SFC_GET_INSTRUMENT, SF_INSTRUMENT) is not None
    for dst in ("c.wav", "c.aiff") if aiff else ("c.wav",):  # (libsndfile 1.2 drops AIFF's)
        process(tmp_path / "cues.wav", tmp_path / dst)
        got = chunk(tmp_path / dst, SFC_GET_INSTRUMENT, SF_INSTRUMENT)
        assert got is not None and got.basenote == b"\x3c" and got.loop_count == 1, dst
        assert (got.loops[0].start, got.loops[0].end) == (500, 2500), dst
    got = chunk(tmp_path / "c.wav", SFC_GET_CUE, SF_CUES)
    assert got is not None and got.cue_count == 2
    assert [got.cue_points[k].position for k in range(2)] == [1000, 3000]
    # a resampled file goes through GStreamer (wavparse): its tags still come over
    process(tmp_path / "in.flac", tmp_path / "rs.flac", "--rate", "44100")
    got = strings(tmp_path / "rs.flac")
    assert got.get("title") == TAGS["title"] and got.get("artist") == TAGS["artist"], got
    assert info(tmp_path / "rs.flac")[1:4] == ("PCM_16", 2, 44100)


# ------------------------------------------------------------------------------------------------
# every format libsndfile writes

ALIASES = {"ogg": "VORBIS", "opus": "OPUS", "mp3": "MPEG_LAYER_III", "aif": None, "wave": None,
           "snd": None}
LOSSY = {"ogg", "oga", "opus", "mp3", "m1a"}


def test_every_writable_extension_round_trips(tmp_path):
    exts = set(writable_extensions())
    exts.discard("sd2")  # a resource fork, written by libsndfile only to a named file
    mpeg = "m1a" in exts
    exts |= {"aif", "wave", "snd", "ogg"} | ({"opus"} if "oga" in exts else set()) \
        | ({"mp3"} if mpeg else set())
    x = noise(RATE // 2, 2, seed=5)
    write(tmp_path / "in2.wav", x, RATE, "WAV", "PCM_16")
    write(tmp_path / "in1.wav", x[:, :1], RATE, "WAV", "PCM_16")
    done = []
    for ext in sorted(exts):
        out = tmp_path / ("out." + ext)
        # without dither: within one rounding of the reference
        r = run("process", "-q", "--dither", "none", "--chain", "fxgain gain=-6",
                tmp_path / "in2.wav", out)
        channels = 2
        if r.returncode != 0 and "channel" in r.stderr:  # mono-only formats (htk, xi, ...)
            channels = 1
            r = run("process", "-q", "--dither", "none", "--chain", "fxgain gain=-6",
                    tmp_path / "in1.wav", out)
        if ext in ("wve", "xi"):  # fixed rates (8 kHz, 44.1 kHz): a 48 kHz stream is refused
            assert r.returncode == 1 and "at 48000 Hz" in r.stderr, (ext, r.stderr)
            assert not out.exists()
            continue
        assert r.returncode == 0, (ext, r.stderr)
        if ext == "raw":  # header-less: read back as what it holds, 16-bit PCM
            assert out.stat().st_size == RATE // 2 * channels * 2
            done.append(ext)
            continue
        major, subtype, ch, rate, frames = info(out)
        # HTK stores the sample period in units of 100 ns
        want_rate = int(1e7 / round(1e7 / RATE)) if ext == "htk" else RATE
        assert (ch, rate) == (channels, want_rate), (ext, info(out))
        if ext in LOSSY:
            assert abs(frames - RATE // 2) <= 2304, (ext, frames)
        else:
            assert frames == RATE // 2, (ext, frames)
            assert subtype in ("PCM_16", "PCM_S8", "PCM_U8") or ext in ("wve", "xi"), (ext, subtype)
            if subtype == "PCM_16":
                y, _ = read(out)
                ref = ints(tmp_path / ("in%d.wav" % channels), 16) / 32768.0 * 10 ** (-6 / 20)
                assert np.max(np.abs(y - ref)) <= 1 / 32768 + 1e-9, ext
        done.append(ext)
    assert {"wav", "flac", "ogg", "aiff", "au", "caf", "w64", "rf64"} <= set(done), done
    # --type names the format of standard output
    r = run("process", "-q", "--chain", "fxgain", "--type", "nosuchformat", tmp_path / "in2.wav",
            "-")
    assert r.returncode == 2 and "--type must be one of" in r.stderr


# ------------------------------------------------------------------------------------------------
# batch, pipes, usage errors


def test_batch_keeps_each_files_depth_and_equals_process(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    x = noise(9000, 2, seed=6)
    write(d / "a16.wav", x, RATE, "WAV", "PCM_16")
    write(d / "b32f.wav", x, RATE, "WAV", "FLOAT")
    write(d / "c24.flac", x, RATE, "FLAC", "PCM_24")
    write(d / "d64.wav", x, RATE, "WAV", "DOUBLE")
    r = run("batch", "-q", "--chain", "fxgain gain=-1", "-o", tmp_path / "o", d)
    assert r.returncode == 0, r.stderr
    want = {"a16.wav": "PCM_16", "b32f.wav": "FLOAT", "c24.flac": "PCM_24", "d64.wav": "DOUBLE"}
    for name, subtype in want.items():
        assert info(tmp_path / "o" / name)[1] == subtype, name
        process(d / name, tmp_path / ("p-" + name), chain="fxgain gain=-1")
        assert (tmp_path / "o" / name).read_bytes() == (tmp_path / ("p-" + name)).read_bytes()
    # dithered outputs too: each file's dither is seeded on its own, as `process` seeds it
    r = run("batch", "-q", "--bits", "16", "--ext", "wav", "--chain", "fxgain gain=-1", "-o",
            tmp_path / "o16", d)
    assert r.returncode == 0, r.stderr
    for name in ("b32f.wav", "c24.flac"):
        wav = os.path.splitext(name)[0] + ".wav"
        process(d / name, tmp_path / ("p16-" + wav), "--bits", "16", chain="fxgain gain=-1")
        assert (tmp_path / "o16" / wav).read_bytes() == (tmp_path / ("p16-" + wav)).read_bytes()
    # --bits applies to every file; a file whose format cannot hold it is reported, others done
    r = run("batch", "-q", "--bits", "f32", "--chain", "fxgain", "-o", tmp_path / "o2", d)
    assert r.returncode == 1
    assert lines(r.stderr) == ["gst-fx: %s: --bits f32: a .flac file cannot hold f32 samples "
                               "(use --bits 8, 16, 24)" % (d / "c24.flac")]
    assert sorted(os.listdir(tmp_path / "o2")) == ["a16.wav", "b32f.wav", "d64.wav"]
    assert {info(tmp_path / "o2" / n)[1] for n in os.listdir(tmp_path / "o2")} == {"FLOAT"}


def test_pipes_keep_the_depth(tmp_path):
    x = noise(5000, 2, seed=7)
    write(tmp_path / "in24.flac", x, RATE, "FLAC", "PCM_24")
    write(tmp_path / "in16.wav", x, RATE, "WAV", "PCM_16")
    g = shlex.quote(gst_fx_path())
    for src, typ, major, subtype in (("in24.flac", "flac", "FLAC", "PCM_24"),
                                     ("in16.wav", None, "WAV", "PCM_16"),
                                     ("in16.wav", "flac", "FLAC", "PCM_16")):
        out = tmp_path / ("pipe-%s-%s" % (src, typ))
        cmd = "cat %s | %s process --dither none --chain fxgain %s - - > %s" % (
            shlex.quote(str(tmp_path / src)), g, "--type " + typ if typ else "",
            shlex.quote(str(out)))
        r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, TMPDIR=str(tmp_path)))
        assert r.returncode == 0, r.stderr
        assert info(out)[:2] == (MAJOR[major], subtype), (src, typ)
        assert np.array_equal(read(out)[0], read(tmp_path / src)[0])


@pytest.mark.parametrize("args,needle", [
    (["--bits", "12"], "--bits must be 16, 24, 32, f32 or f64"),
    (["--dither", "rectangular"], "--dither must be none or tpdf"),
    (["--bits", "f64", "OUT.flac"], "--bits f64: a .flac file cannot hold f64 samples"),
    (["--bits", "f32", "--type", "flac", "-"], "--bits f32: a .flac file cannot hold"),
    (["--bits", "32", "OUT.ogg"], None),  # lossy formats ignore --bits
])
def test_output_usage_errors(tmp_path, args, needle):
    write(tmp_path / "in.wav", noise(1000, 1, seed=8), RATE, "WAV", "PCM_16")
    out = [a for a in args if a == "-" or a.startswith("OUT")]
    opts = [a for a in args if a not in out]
    dst = str(tmp_path / out[0]) if out and out[0] != "-" else (out[0] if out else
                                                                str(tmp_path / "o.wav"))
    r = subprocess.run([gst_fx_path(), "process", "-q", "--chain", "fxgain", *opts,
                        str(tmp_path / "in.wav"), dst], capture_output=True, text=True,
                       timeout=120, stdout=None) if False else \
        subprocess.run("%s process -q --chain fxgain %s %s %s | cat >/dev/null; exit ${PIPESTATUS[0]}"
                       % (shlex.quote(gst_fx_path()), " ".join(map(shlex.quote, opts)),
                          shlex.quote(str(tmp_path / "in.wav")), shlex.quote(dst)),
                       shell=True, executable="/bin/bash", capture_output=True, text=True,
                       timeout=120)
    if needle is None:
        assert r.returncode == 0, r.stderr
        return
    assert r.returncode == 2, (args, r.returncode, r.stderr)
    err = lines(r.stderr)
    assert len(err) == 2 and err[0].startswith("gst-fx: ") and needle in err[0], err
    assert err[1] == "Try 'gst-fx process --help'."
    r = run("batch", "-q", "--ext", "flac", "--bits", "f32", "--chain", "fxgain", "-o",
            tmp_path / "o", tmp_path / "in.wav")
    assert r.returncode == 2 and "--bits f32: a .flac file cannot hold" in r.stderr
