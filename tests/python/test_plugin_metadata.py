"""The plugin's metadata as gst-inspect-1.0 shows it (issue 18, item 6): a description naming
every group of elements, the version of meson's project(), a release date, a package name and an
origin that are not placeholders; and the dynamics elements each describe themselves."""

import os
import re
import subprocess

import pytest

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

pytestmark = pytest.mark.usefixtures("fx")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# What the description must name, per element (or tracer) of the plugin.
GROUP_OF = {
    "fxbutterworth": "Butterworth", "fxchebyshev1": "Chebyshev I", "fxchebyshev2": "Chebyshev",
    "fxelliptic": "elliptic", "fxlinkwitzriley": "Linkwitz-Riley", "fxbiquad": "biquad",
    "fxsos": "SOS", "fxeq": "EQ", "fxfir": "FIR", "fxgain": "gain", "fxnormalize": "normalise",
    "fxloudness": "loudness meter", "fxloudnorm": "loudness normaliser",
    "fxcompressor": "compressor", "fxlimiter": "limiter", "fxgate": "gate", "fxdelay": "delay",
    "fxreverb": "reverb", "fxchain": "fxchain", "fxprof": "fxprof",
}


def inspect_details():
    out = subprocess.run(["gst-inspect-1.0", "fx"], capture_output=True, text=True, check=True,
                         timeout=60).stdout
    details = {}
    for line in out.splitlines():
        m = re.match(r"^  (Name|Description|Version|License|Source module|Source release date|"
                     r"Binary package|Origin URL)\s{2,}(.*)$", line)
        if m and m.group(1) not in details:
            details[m.group(1)] = m.group(2).strip()
    return details


def project_version():
    with open(os.path.join(ROOT, "meson.build")) as f:
        return re.search(r"version\s*:\s*'([^']+)'", f.read()).group(1)


def test_plugin_details():
    d = inspect_details()
    assert d["Name"] == "fx"
    assert d["Version"] == project_version()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}(T[0-9:]+Z?)?", d["Source release date"]), d
    for key in ("Binary package", "Origin URL", "Source module"):
        assert d[key] and "unknown" not in d[key].lower(), (key, d[key])
    assert "github.com/gst-fx" not in d["Origin URL"]  # the old placeholder


def test_description_names_every_element():
    desc = inspect_details()["Description"]
    feats = Gst.Registry.get().get_feature_list_by_plugin("fx")
    names = {f.get_name() for f in feats}
    assert names == set(GROUP_OF), "elements changed: update GROUP_OF and the description"
    for name in sorted(names):
        assert GROUP_OF[name].lower() in desc.lower(), (name, GROUP_OF[name], desc)


def test_dynamics_elements_describe_themselves():
    """fxcompressor, fxgate and fxlimiter: own long-names and descriptions, and no property text
    that talks about one of the others."""
    others = {"fxcompressor": ("gate", "limiter"), "fxgate": ("compressor", "limiter"),
              "fxlimiter": ("compressor", "gate")}
    seen = set()
    for name, foreign in others.items():
        f = Gst.ElementFactory.find(name)
        longname = f.get_metadata(Gst.ELEMENT_METADATA_LONGNAME)
        desc = f.get_metadata(Gst.ELEMENT_METADATA_DESCRIPTION)
        assert (longname, desc) not in seen
        seen.add((longname, desc))
        el = f.create(None)
        for ps in el.list_properties():
            if ps.owner_type.name.startswith("GstFx"):
                blurb = ps.blurb.lower()
                for word in foreign:
                    assert word not in blurb, (name, ps.name, ps.blurb)
    assert len({d[0] for d in seen}) == 3 and len({d[1] for d in seen}) == 3
