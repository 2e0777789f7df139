"""ctypes wrapper around libfxdsp for the Python reference tests.

The shared library is found through the environment variable FXDSP_LIB, by default
``build/tests/libfxdsp_py.so`` relative to the repository root. Functions here return numpy arrays
in scipy's layouts so that results can be handed straight to scipy.signal:
second-order sections as an (n, 6) float64 array of rows ``[b0, b1, b2, 1, a1, a2]``.

Failures of the C library raise :class:`FxError`, which carries the status code and name.

Layout of this module (extend it in the same style):
  - library loading (:func:`lib`)
  - C types (ctypes.Structure / enum constants) mirroring the headers
  - function prototypes, declared once in :func:`_declare`
  - Python-level wrappers, one section per header (design.h, ...)
"""

import ctypes
import os

import numpy as np

_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_LIB = os.path.join(_REPO_ROOT, "build", "tests", "libfxdsp_py.so")

# ------------------------------------------------------------------------------------------------
# design.h: constants and types

# fx_mode_t
LOW_PASS, HIGH_PASS, BAND_PASS, BAND_REJECT = range(4)
MODES = {"lowpass": LOW_PASS, "highpass": HIGH_PASS, "bandpass": BAND_PASS,
         "bandstop": BAND_REJECT}

# fx_family_t
BUTTERWORTH, CHEBYSHEV1, CHEBYSHEV2, ELLIPTIC = range(4)
FAMILIES = {"butter": BUTTERWORTH, "cheby1": CHEBYSHEV1, "cheby2": CHEBYSHEV2,
            "ellip": ELLIPTIC}

# fx_status_t
STATUS_NAMES = (
    "FX_OK", "FX_ERR_RATE", "FX_ERR_ORDER", "FX_ERR_CUTOFF", "FX_ERR_LOWER", "FX_ERR_UPPER",
    "FX_ERR_BAND", "FX_ERR_RIPPLE", "FX_ERR_ATTENUATION", "FX_ERR_FREQUENCY", "FX_ERR_Q",
    "FX_ERR_GAIN", "FX_ERR_TYPE", "FX_ERR_CAPACITY", "FX_ERR_UNSTABLE", "FX_ERR_SYNTAX",
    "FX_ERR_A0", "FX_ERR_NONFINITE", "FX_ERR_NOMEM", "FX_ERR_CHANNELS", "FX_ERR_ARG", "FX_ERR_TAPS",
    "FX_ERR_EVEN_TAPS", "FX_ERR_BETA", "FX_ERR_WINDOW", "FX_ERR_SCALE",
)
for _i, _n in enumerate(STATUS_NAMES):
    globals()[_n] = _i

# fx_biquad_type_t
BIQUAD_TYPES = ("low-pass", "high-pass", "band-pass", "band-pass-peak", "notch", "all-pass",
                "peaking", "low-shelf", "high-shelf")

MAX_ORDER = 64
ELLIPTIC_MAX_ORDER = 24
LR_MAX_ORDER = 16
DESIGN_MAX_SECTIONS = 64


class Sos(ctypes.Structure):
    """fx_sos_t"""
    _fields_ = [("b0", ctypes.c_double), ("b1", ctypes.c_double), ("b2", ctypes.c_double),
                ("a1", ctypes.c_double), ("a2", ctypes.c_double)]


class IirSpec(ctypes.Structure):
    """fx_iir_spec_t"""
    _fields_ = [("family", ctypes.c_int), ("mode", ctypes.c_int), ("order", ctypes.c_int),
                ("rate", ctypes.c_double), ("cutoff", ctypes.c_double),
                ("lower", ctypes.c_double), ("upper", ctypes.c_double),
                ("ripple", ctypes.c_double), ("attenuation", ctypes.c_double)]


class FxError(RuntimeError):
    def __init__(self, status, what="", bad_row=None):
        self.status = int(status)
        self.name = STATUS_NAMES[self.status] if 0 <= self.status < len(STATUS_NAMES) else "?"
        self.bad_row = bad_row
        super().__init__("%s: %s (%s)%s" % (what, self.name, status_string(self.status),
                                            "" if bad_row is None else " row %d" % bad_row))


# ------------------------------------------------------------------------------------------------
# library loading and prototypes

_lib = None


def lib():
    """The loaded library (loaded on first use)."""
    global _lib
    if _lib is None:
        path = os.environ.get("FXDSP_LIB", DEFAULT_LIB)
        if not os.path.isabs(path):
            path = os.path.join(_REPO_ROOT, path)
        _lib = ctypes.CDLL(path)
        _declare(_lib)
    return _lib


def _proto(l, name, restype, *argtypes):
    f = getattr(l, name)
    f.restype = restype
    f.argtypes = list(argtypes)


def _declare(l):
    c_int, c_double, c_char_p = ctypes.c_int, ctypes.c_double, ctypes.c_char_p
    P = ctypes.POINTER
    # design.h
    _proto(l, "fx_status_string", c_char_p, c_int)
    _proto(l, "fx_iir_spec_check", c_int, P(IirSpec))
    _proto(l, "fx_iir_sections_needed", c_int, P(IirSpec))
    _proto(l, "fx_design_iir", c_int, P(IirSpec), P(Sos), c_int, P(c_int))
    _proto(l, "fx_design_linkwitz_riley", c_int, c_int, c_int, c_double, c_double, P(Sos),
           c_int, P(c_int))
    _proto(l, "fx_design_biquad", c_int, c_int, c_double, c_double, c_double, c_double, P(Sos))
    _proto(l, "fx_sos_from_row", c_int, P(c_double), P(Sos))
    _proto(l, "fx_sos_is_stable", c_int, P(Sos))
    _proto(l, "fx_sos_parse", c_int, c_char_p, P(Sos), c_int, P(c_int), P(c_int))
    _proto(l, "fx_sos_response", None, P(Sos), c_int, c_double, c_double, P(c_double),
           P(c_double))


# ------------------------------------------------------------------------------------------------
# conversions


def sos_to_array(sections, n=None):
    """ctypes array of Sos (first n) -> numpy (n, 6) in scipy's layout."""
    if n is None:
        n = len(sections)
    out = np.empty((n, 6))
    for i in range(n):
        s = sections[i]
        out[i] = (s.b0, s.b1, s.b2, 1.0, s.a1, s.a2)
    return out


def array_to_sos(sos):
    """numpy (n, 6) in scipy's layout (rows normalised by a0 here) -> ctypes array of Sos."""
    sos = np.atleast_2d(np.asarray(sos, dtype=np.float64))
    arr = (Sos * len(sos))()
    for i, r in enumerate(sos):
        arr[i] = Sos(r[0] / r[3], r[1] / r[3], r[2] / r[3], r[4] / r[3], r[5] / r[3])
    return arr


def _check(status, what, bad_row=None):
    if status != 0:
        raise FxError(status, what, bad_row)


# ------------------------------------------------------------------------------------------------
# design.h wrappers


def status_string(status):
    return lib().fx_status_string(int(status)).decode()


def make_spec(family, mode, order, rate, cutoff=None, lower=None, upper=None, ripple=0.0,
              attenuation=0.0):
    """IirSpec from names or enum values. family: 'butter', 'cheby1', 'cheby2', 'ellip' (or
    enum); mode: 'lowpass', 'highpass', 'bandpass', 'bandstop' (or enum). For band modes,
    `cutoff` may be a (lower, upper) pair."""
    fam = FAMILIES[family] if isinstance(family, str) else int(family)
    md = MODES[mode] if isinstance(mode, str) else int(mode)
    if cutoff is not None and np.ndim(cutoff) == 1:
        lower, upper = cutoff
        cutoff = None
    return IirSpec(fam, md, int(order), float(rate), float(cutoff or 0.0), float(lower or 0.0),
                   float(upper or 0.0), float(ripple), float(attenuation))


def spec_check(spec):
    """Status code of fx_iir_spec_check."""
    return lib().fx_iir_spec_check(ctypes.byref(spec))


def sections_needed(spec):
    return lib().fx_iir_sections_needed(ctypes.byref(spec))


def design_iir_status(spec, capacity=DESIGN_MAX_SECTIONS):
    """(status, sos array or None)."""
    arr = (Sos * max(capacity, 1))()
    n = ctypes.c_int(0)
    st = lib().fx_design_iir(ctypes.byref(spec), arr, capacity, ctypes.byref(n))
    if st != 0:
        return st, None
    return 0, sos_to_array(arr, n.value)


def design_iir(family, mode, order, rate, cutoff=None, lower=None, upper=None, ripple=0.0,
               attenuation=0.0):
    """Like scipy.signal.iirfilter(..., output='sos', fs=rate); raises FxError on failure."""
    spec = make_spec(family, mode, order, rate, cutoff, lower, upper, ripple, attenuation)
    st, sos = design_iir_status(spec)
    _check(st, "fx_design_iir")
    return sos


def butter(order, wn, btype, fs):
    """scipy.signal.butter(order, wn, btype, output='sos', fs=fs) lookalike."""
    return design_iir("butter", btype, order, fs, cutoff=wn)


def cheby1(order, rp, wn, btype, fs):
    return design_iir("cheby1", btype, order, fs, cutoff=wn, ripple=rp)


def cheby2(order, rs, wn, btype, fs):
    return design_iir("cheby2", btype, order, fs, cutoff=wn, attenuation=rs)


def ellip(order, rp, rs, wn, btype, fs):
    return design_iir("ellip", btype, order, fs, cutoff=wn, ripple=rp, attenuation=rs)


def linkwitz_riley(mode, order, cutoff, rate):
    md = MODES[mode] if isinstance(mode, str) else int(mode)
    arr = (Sos * LR_MAX_ORDER)()
    n = ctypes.c_int(0)
    st = lib().fx_design_linkwitz_riley(md, int(order), float(cutoff), float(rate), arr,
                                        LR_MAX_ORDER, ctypes.byref(n))
    _check(st, "fx_design_linkwitz_riley")
    return sos_to_array(arr, n.value)


def biquad_status(btype, frequency, q, gain_db, rate):
    t = BIQUAD_TYPES.index(btype) if isinstance(btype, str) else int(btype)
    s = Sos()
    st = lib().fx_design_biquad(t, float(frequency), float(q), float(gain_db), float(rate),
                                ctypes.byref(s))
    return st, (sos_to_array([s]) if st == 0 else None)


def biquad(btype, frequency, q, gain_db, rate):
    """RBJ cookbook biquad as a (1, 6) sos array."""
    st, sos = biquad_status(btype, frequency, q, gain_db, rate)
    _check(st, "fx_design_biquad")
    return sos


def sos_from_row(row):
    """(status, (1, 6) array or None)."""
    r = (ctypes.c_double * 6)(*[float(v) for v in row])
    s = Sos()
    st = lib().fx_sos_from_row(r, ctypes.byref(s))
    return st, (sos_to_array([s]) if st == 0 else None)


def sos_is_stable(row):
    """row: b0 b1 b2 a1 a2 (normalised) or a scipy row of 6."""
    if len(row) == 6:
        row = (row[0] / row[3], row[1] / row[3], row[2] / row[3], row[4] / row[3],
               row[5] / row[3])
    s = Sos(*[float(v) for v in row])
    return bool(lib().fx_sos_is_stable(ctypes.byref(s)))


def sos_parse_status(text, capacity=256):
    """(status, sos array or None, bad_row)."""
    arr = (Sos * max(capacity, 1))()
    n = ctypes.c_int(0)
    bad = ctypes.c_int(-1)
    data = text.encode() if isinstance(text, str) else text
    st = lib().fx_sos_parse(data, arr, capacity, ctypes.byref(n), ctypes.byref(bad))
    return st, (sos_to_array(arr, n.value) if st == 0 else None), bad.value


def sos_parse(text, capacity=256):
    """fx_sos_parse: text -> (n, 6) array; raises FxError (with bad_row) on failure."""
    st, sos, bad = sos_parse_status(text, capacity)
    _check(st, "fx_sos_parse", bad)
    return sos


def sos_response(sos, freqs, rate):
    """Complex response of a cascade (scipy layout array) at frequencies in Hz."""
    arr = array_to_sos(sos)
    re, im = ctypes.c_double(), ctypes.c_double()
    out = np.empty(len(np.atleast_1d(freqs)), dtype=complex)
    for i, f in enumerate(np.atleast_1d(freqs)):
        lib().fx_sos_response(arr, len(arr), float(f), float(rate), ctypes.byref(re),
                              ctypes.byref(im))
        out[i] = complex(re.value, im.value)
    return out
