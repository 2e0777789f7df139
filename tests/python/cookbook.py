"""RBJ Audio-EQ-Cookbook biquads (Robert Bristow-Johnson's formulas as published, written out
here independently of the C code): the reference of the design and element tests."""

import numpy as np


def rbj(btype, f0, q, gain_db, rate):
    """(b, a) from Robert Bristow-Johnson's Audio-EQ-Cookbook."""
    A = 10.0 ** (gain_db / 40.0)
    w0 = 2.0 * np.pi * f0 / rate
    cw, sw = np.cos(w0), np.sin(w0)
    alpha = sw / (2.0 * q)
    sA = np.sqrt(A)
    if btype == "low-pass":
        b = [(1 - cw) / 2, 1 - cw, (1 - cw) / 2]
        a = [1 + alpha, -2 * cw, 1 - alpha]
    elif btype == "high-pass":
        b = [(1 + cw) / 2, -(1 + cw), (1 + cw) / 2]
        a = [1 + alpha, -2 * cw, 1 - alpha]
    elif btype == "band-pass-peak":  # constant skirt gain, peak gain = Q
        b = [sw / 2, 0.0, -sw / 2]
        a = [1 + alpha, -2 * cw, 1 - alpha]
    elif btype == "band-pass":  # constant 0 dB peak gain
        b = [alpha, 0.0, -alpha]
        a = [1 + alpha, -2 * cw, 1 - alpha]
    elif btype == "notch":
        b = [1.0, -2 * cw, 1.0]
        a = [1 + alpha, -2 * cw, 1 - alpha]
    elif btype == "all-pass":
        b = [1 - alpha, -2 * cw, 1 + alpha]
        a = [1 + alpha, -2 * cw, 1 - alpha]
    elif btype == "peaking":
        b = [1 + alpha * A, -2 * cw, 1 - alpha * A]
        a = [1 + alpha / A, -2 * cw, 1 - alpha / A]
    elif btype == "low-shelf":
        b = [A * ((A + 1) - (A - 1) * cw + 2 * sA * alpha),
             2 * A * ((A - 1) - (A + 1) * cw),
             A * ((A + 1) - (A - 1) * cw - 2 * sA * alpha)]
        a = [(A + 1) + (A - 1) * cw + 2 * sA * alpha,
             -2 * ((A - 1) + (A + 1) * cw),
             (A + 1) + (A - 1) * cw - 2 * sA * alpha]
    elif btype == "high-shelf":
        b = [A * ((A + 1) + (A - 1) * cw + 2 * sA * alpha),
             -2 * A * ((A - 1) + (A + 1) * cw),
             A * ((A + 1) + (A - 1) * cw - 2 * sA * alpha)]
        a = [(A + 1) - (A - 1) * cw + 2 * sA * alpha,
             2 * ((A - 1) - (A + 1) * cw),
             (A + 1) - (A - 1) * cw - 2 * sA * alpha]
    else:
        raise ValueError(btype)
    b = np.array(b) / a[0]
    a = np.array(a) / a[0]
    return b, a
