"""DESIGN section 3, bad input: a cutoff the filter cannot be designed at is reported as that
property out of range (its name, its value, the allowed range), never as an "unstable section",
also when a controller ramps it to the top of its range: just below Nyquist an order-16 design's
poles round onto the unit circle, and that is the cutoff's fault, not a section's."""

import numpy as np
import pytest

from conftest import noise, run_pipeline
from test_control import attach_ramp

pytestmark = pytest.mark.usefixtures("fx")

RATE = 48000
TOP = 23999.9999  # inside (0, 24000) Hz, too close to Nyquist for an order-16 design


@pytest.mark.parametrize("desc", [
    "fxbutterworth name=fx order=16 cutoff=1000",
    "fxbutterworth name=fx order=16 mode=high-pass cutoff=1000",
    "fxlinkwitzriley name=fx order=16 cutoff=1000",
])
def test_controller_ramp_to_nyquist_reports_out_of_range(desc):
    x = noise(RATE // 2, 2, seed=71)
    res = run_pipeline(desc, x, RATE, split=480,
                       configure=lambda p: attach_ramp(p, "fx", "cutoff",
                                                       [(0, 1000), (0.1, 1000), (0.3, TOP),
                                                        (0.5, TOP)]))
    assert not res.errors, res.error_text()
    assert res.eos
    assert res.y.shape[0] == x.shape[0]
    assert np.all(np.isfinite(res.y))
    text = res.warning_text()
    assert res.warnings, "no warning for cutoff=%r at %d Hz" % (TOP, RATE)
    assert "unstable" not in text, text
    assert "cutoff=23999.9999 Hz is out of range" in text, text
    assert "(0, 24000) Hz" in text, text


def test_negotiation_with_cutoff_at_the_top_names_the_cutoff():
    """Negotiation with such a cutoff fails with an error naming the cutoff, not a section."""
    x = noise(4800, 1, seed=72)
    res = run_pipeline("fxbutterworth order=16 cutoff=%r" % TOP, x, RATE, expect_error=True)
    text = res.error_text()
    assert res.errors, "no error"
    assert "unstable" not in text, text
    assert "cutoff=23999.9999 Hz is out of range" in text, text
