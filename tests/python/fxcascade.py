"""ctypes bindings of the SOS cascade engine (dsp/cascade.h) for the Python reference tests.

Loads the same shared library as fxdsp.py: the environment variable FXDSP_LIB, by default
``build/tests/libfxdsp_py.so`` relative to the repository root. Sections are given in scipy's
layout, an (n, 6) array of rows ``[b0, b1, b2, a0, a1, a2]`` (rows are normalised by a0 here).
"""

import ctypes
import os

import numpy as np

_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_LIB = os.path.join(_REPO_ROOT, "build", "tests", "libfxdsp_py.so")

# fx_sample_format_t
F32, F64 = 0, 1
# fx_precision_t
AUTO, SINGLE, DOUBLE = 0, 1, 2
PRECISIONS = {"auto": AUTO, "single": SINGLE, "double": DOUBLE}
# process() bits
PROCESS_NONFINITE = 1

# fx_status_t (same order as design.h)
STATUS_NAMES = (
    "FX_OK", "FX_ERR_RATE", "FX_ERR_ORDER", "FX_ERR_CUTOFF", "FX_ERR_LOWER", "FX_ERR_UPPER",
    "FX_ERR_BAND", "FX_ERR_RIPPLE", "FX_ERR_ATTENUATION", "FX_ERR_FREQUENCY", "FX_ERR_Q",
    "FX_ERR_GAIN", "FX_ERR_TYPE", "FX_ERR_CAPACITY", "FX_ERR_UNSTABLE", "FX_ERR_SYNTAX",
    "FX_ERR_A0", "FX_ERR_NONFINITE", "FX_ERR_NOMEM", "FX_ERR_CHANNELS", "FX_ERR_ARG", "FX_ERR_TAPS",
    "FX_ERR_EVEN_TAPS", "FX_ERR_BETA", "FX_ERR_WINDOW", "FX_ERR_SCALE",
)
FX_OK = 0
FX_ERR_UNSTABLE = STATUS_NAMES.index("FX_ERR_UNSTABLE")


class Sos(ctypes.Structure):
    """fx_sos_t"""
    _fields_ = [("b0", ctypes.c_double), ("b1", ctypes.c_double), ("b2", ctypes.c_double),
                ("a1", ctypes.c_double), ("a2", ctypes.c_double)]


class Stage(ctypes.Structure):
    """fx_cascade_stage_t"""
    _fields_ = [("kind", ctypes.c_int), ("sos", ctypes.POINTER(Sos)), ("n", ctypes.c_int),
                ("gain", ctypes.c_double)]


# fx_cascade_stage_kind_t
STAGE_SECTIONS, STAGE_GAIN = 0, 1


class CascadeError(RuntimeError):
    def __init__(self, status, what=""):
        self.status = int(status)
        self.name = STATUS_NAMES[self.status] if 0 <= self.status < len(STATUS_NAMES) else "?"
        super().__init__("%s: %s" % (what, self.name))


_lib = None


def lib():
    """The loaded library (loaded once, prototypes declared)."""
    global _lib
    if _lib is None:
        path = os.environ.get("FXDSP_LIB", DEFAULT_LIB)
        l = ctypes.CDLL(path)
        vp, i, sz, d = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_double
        l.fx_cascade_new.restype = vp
        l.fx_cascade_new.argtypes = []
        l.fx_cascade_free.restype = None
        l.fx_cascade_free.argtypes = [vp]
        l.fx_cascade_configure.restype = i
        l.fx_cascade_configure.argtypes = [vp, i, i, i]
        l.fx_cascade_set_sections.restype = i
        l.fx_cascade_set_sections.argtypes = [vp, ctypes.POINTER(Sos), i, d]
        l.fx_cascade_set_stages.restype = i
        l.fx_cascade_set_stages.argtypes = [vp, ctypes.POINTER(Stage), i]
        for name, t in (("fx_gain_apply_f32", ctypes.c_float), ("fx_gain_apply_f64", d)):
            fn = getattr(l, name)
            fn.restype = sz
            fn.argtypes = [ctypes.POINTER(t), sz, i, d, d, i]
        l.fx_cascade_set_crossfade.restype = None
        l.fx_cascade_set_crossfade.argtypes = [vp, sz]
        l.fx_cascade_reset.restype = None
        l.fx_cascade_reset.argtypes = [vp]
        l.fx_cascade_process.restype = ctypes.c_uint
        l.fx_cascade_process.argtypes = [vp, vp, sz]
        l.fx_cascade_channels.restype = i
        l.fx_cascade_channels.argtypes = [vp]
        l.fx_cascade_sections.restype = i
        l.fx_cascade_sections.argtypes = [vp]
        l.fx_cascade_dispatches.restype = ctypes.c_uint64
        l.fx_cascade_dispatches.argtypes = [vp]
        l.fx_cascade_reset_dispatches.restype = None
        l.fx_cascade_reset_dispatches.argtypes = [vp]
        l.fx_cascade_warm_frames.restype = ctypes.c_uint64
        l.fx_cascade_warm_frames.argtypes = [vp]
        l.fx_cascade_backend.restype = ctypes.c_char_p
        l.fx_cascade_backend.argtypes = [vp]
        l.fx_cascade_precision_probe.restype = i
        l.fx_cascade_precision_probe.argtypes = [vp, ctypes.POINTER(d), ctypes.POINTER(d)]
        l.fx_cascade_uses_double.restype = i
        l.fx_cascade_uses_double.argtypes = [vp]
        _lib = l
    return _lib


def sos_rows(sos):
    """scipy (n, 6) sos array -> ctypes array of fx_sos_t (normalised by a0)."""
    sos = np.asarray(sos, dtype=np.float64).reshape(-1, 6)
    arr = (Sos * max(1, len(sos)))()
    for k, (b0, b1, b2, a0, a1, a2) in enumerate(sos):
        arr[k] = Sos(b0 / a0, b1 / a0, b2 / a0, a1 / a0, a2 / a0)
    return arr, len(sos)


class Cascade:
    """One engine. Data are numpy arrays of shape (frames, channels) (or (frames,) for mono),
    float32 or float64, filtered in place by :meth:`process`."""

    def __init__(self, channels, dtype=np.float64, precision="auto", sos=None, gain=1.0):
        self._l = lib()
        self._h = self._l.fx_cascade_new()
        if not self._h:
            raise MemoryError("fx_cascade_new")
        self.dtype = np.dtype(dtype)
        self.channels = channels
        fmt = F32 if self.dtype == np.float32 else F64
        st = self._l.fx_cascade_configure(self._h, channels, fmt, PRECISIONS[precision])
        if st != FX_OK:
            raise CascadeError(st, "configure")
        if sos is not None:
            self.set_sections(sos, gain)

    def close(self):
        if self._h:
            self._l.fx_cascade_free(self._h)
            self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def set_sections(self, sos, gain=1.0, check=True):
        arr, n = sos_rows(sos)
        st = self._l.fx_cascade_set_sections(self._h, arr, n, float(gain))
        if check and st != FX_OK:
            raise CascadeError(st, "set_sections")
        return st

    def set_stages(self, stages, check=True):
        """stages: a list of ("sections", scipy sos[, gain]) and ("gain", linear gain) in chain
        order (fx_cascade_set_stages)."""
        arr = (Stage * max(1, len(stages)))()
        keep = []
        for k, st in enumerate(stages):
            if st[0] == "gain":
                arr[k] = Stage(STAGE_GAIN, None, 0, float(st[1]))
            else:
                rows, n = sos_rows(st[1]) if len(st[1]) else ((Sos * 1)(), 0)
                keep.append(rows)
                arr[k] = Stage(STAGE_SECTIONS, ctypes.cast(rows, ctypes.POINTER(Sos)), n,
                               float(st[2]) if len(st) > 2 else 1.0)
        st = self._l.fx_cascade_set_stages(self._h, arr, len(stages))
        if check and st != FX_OK:
            raise CascadeError(st, "set_stages")
        return st

    def set_crossfade(self, frames):
        self._l.fx_cascade_set_crossfade(self._h, int(frames))

    def reset(self):
        self._l.fx_cascade_reset(self._h)

    def process(self, x):
        """Filters x (C-contiguous, configured dtype) in place; returns the FX_PROCESS_* bits."""
        assert x.dtype == self.dtype and x.flags["C_CONTIGUOUS"]
        frames = x.shape[0]
        assert x.size == frames * self.channels
        return self._l.fx_cascade_process(self._h, x.ctypes.data, frames)

    def filter(self, x, split=None):
        """Returns a filtered copy of x; split: None (one buffer) or a list of buffer sizes."""
        y = np.ascontiguousarray(np.array(x, dtype=self.dtype, copy=True))
        flags = 0
        if split is None:
            flags |= self.process(y)
        else:
            pos = 0
            for n in split:
                flags |= self.process(y[pos:pos + n])
                pos += n
            assert pos == y.shape[0]
        self.last_flags = flags
        return y

    @property
    def sections(self):
        return self._l.fx_cascade_sections(self._h)

    @property
    def dispatches(self):
        return self._l.fx_cascade_dispatches(self._h)

    @property
    def warm_frames(self):
        """Frames filtered to warm new cascades up after coefficient changes (statistics)."""
        return self._l.fx_cascade_warm_frames(self._h)

    @property
    def backend(self):
        return self._l.fx_cascade_backend(self._h).decode()

    @property
    def probe(self):
        """FX_PRECISION_AUTO's probe of the installed design: (SER of the float path, SER of
        scipy-style float32 sosfilt) in dB against double, or None where none applies."""
        a, b = ctypes.c_double(), ctypes.c_double()
        if not self._l.fx_cascade_precision_probe(self._h, ctypes.byref(a), ctypes.byref(b)):
            return None
        return a.value, b.value

    @property
    def uses_double(self):
        return bool(self._l.fx_cascade_uses_double(self._h))


def gain_apply(x, gain_from, gain_to):
    """dsp/gain.c's ramp (no clipping) on x (frames, channels), in place."""
    assert x.flags["C_CONTIGUOUS"]
    frames = x.shape[0]
    channels = x.size // frames if frames else 1
    if x.dtype == np.float32:
        fn, t = lib().fx_gain_apply_f32, ctypes.c_float
    else:
        fn, t = lib().fx_gain_apply_f64, ctypes.c_double
    fn(x.ctypes.data_as(ctypes.POINTER(t)), frames, channels, float(gain_from), float(gain_to), 0)


# ------------------------------------------------------------------------------------------------
# numeric helpers of the reference tests (also re-exported by conftest)


def noise(frames, channels=2, seed=0, dtype=np.float64, amplitude=0.5):
    """Uniform white noise in [-amplitude, amplitude), shape (frames, channels)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-amplitude, amplitude, size=(frames, channels))
    return x.astype(dtype)


def random_split(frames, seed, lo=1, hi=2000, p_tiny=0.15):
    """Buffer sizes (summing to frames) drawn from [lo, hi], with probability p_tiny a 1- or
    2-frame buffer instead."""
    rng = np.random.default_rng(seed)
    sizes, left = [], frames
    while left > 0:
        n = int(min(left, rng.integers(lo, hi + 1)))
        if rng.random() < p_tiny:
            n = min(left, int(rng.integers(1, 3)))  # 1- and 2-frame buffers
        sizes.append(n)
        left -= n
    return sizes


def rel_err(y, ref):
    """Relative error (2-norm) of y against the reference."""
    y = np.asarray(y, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    return float(np.linalg.norm(y - ref) / np.linalg.norm(ref))


def sosfilt_extended(sos, x):
    """x (frames x channels) through the sections in transposed direct form II, in np.longdouble
    (x86-64: 80-bit extended, 11 more bits than double), frame by frame, vectorised over the
    channels: an independent reference more precise than any double implementation, for judging
    two double implementations of an ill-conditioned cascade (whose rounding errors differ from
    input to input) against the truth instead of against each other."""
    sos = np.asarray(sos, dtype=np.longdouble)
    sos = sos / sos[:, 3:4]
    v = np.array(x, dtype=np.longdouble, ndmin=2)
    if v.shape[0] == 1 and np.ndim(x) == 1:
        v = v.T
    for b0, b1, b2, _, a1, a2 in sos:
        z1 = np.zeros(v.shape[1], np.longdouble)
        z2 = np.zeros(v.shape[1], np.longdouble)
        out = np.empty_like(v)
        for i in range(v.shape[0]):
            xi = v[i]
            y = b0 * xi + z1
            z1 = b1 * xi - a1 * y + z2
            z2 = b2 * xi - a2 * y
            out[i] = y
        v = out
    return v.reshape(np.shape(x))


def rel_err_ext(y, ref):
    """rel_err in long double (for references from sosfilt_extended)."""
    y = np.asarray(y, dtype=np.longdouble)
    ref = np.asarray(ref, dtype=np.longdouble)
    return float(np.sqrt(np.sum((y - ref) ** 2) / np.sum(ref ** 2)))


def assert_f64_matches_sosfilt(y, ref, sos, x, bar=1e-12):
    """A float64 engine's output y against scipy's sosfilt output ref for input x: within bar,
    over all channels and per first/last channel (interleaving must not mix channels). scipy is
    itself a double implementation: on ill-conditioned designs (poles near z = 1) the two differ
    by more than 1e-12 on some inputs (some values of FX_TEST_SEED, on an order-8 low-pass at
    50 Hz). There both are judged against an extended-precision TDF-II
    (sosfilt_extended): the engine must be within bar of it or no worse than 4x scipy."""
    channels = y.shape[1]
    ext = None
    for sl in (slice(None), 0, channels - 1):
        e = rel_err(y[:, sl], ref[:, sl])
        if e > bar:
            ext = sosfilt_extended(sos, x) if ext is None else ext
            ee, es = rel_err_ext(y[:, sl], ext[:, sl]), rel_err_ext(ref[:, sl], ext[:, sl])
            assert ee <= max(bar, 4 * es), (
                "relative error %g vs scipy; vs extended precision %g (scipy %g)" % (e, ee, es))


def ser_db(y, ref):
    """Signal-to-error ratio of y against the reference, in dB (inf when identical, -inf when y is
    not finite)."""
    y = np.asarray(y, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if not np.all(np.isfinite(y)):
        return float("-inf")
    err = np.linalg.norm(y - ref)
    if err == 0:
        return float("inf")
    return float(20 * np.log10(np.linalg.norm(ref) / err))


def assert_f32_auto(y, x, sos, ref, slack_db=1.0):
    """An F32 stream filtered under precision=auto (which runs single precision where its probe
    finds it at least as accurate as scipy's float32 sosfilt, double otherwise): the SER of y
    against the float64 reference ref is no more than slack_db below scipy float32's on the same
    input x (NaN/Inf replaced by 0, as the elements do)."""
    x32 = np.where(np.isfinite(x), x, 0.0).astype(np.float32)
    scipy32 = _sig().sosfilt(np.asarray(sos).astype(np.float32), x32, axis=0)
    a, b = ser_db(y, ref), ser_db(scipy32, ref)
    assert a >= b - slack_db, "SER %.1f dB < scipy float32 %.1f dB" % (a, b)


def _sig():
    import scipy.signal
    return scipy.signal
