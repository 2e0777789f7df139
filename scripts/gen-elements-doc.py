#!/usr/bin/python3
"""Writes docs/elements.md, the element reference, from the built plugin.

    scripts/gen-elements-doc.py [--build DIR] [--output FILE | --check | --stdout]

It loads the `fx` plugin from DIR/gst (default: build/gst) through a private registry, so nothing
installed elsewhere is read, and describes every element factory and tracer of the plugin with
GObject introspection: classification, description, pads and caps, every property (type, range,
default, flags, enum nicks) and, for elements with child objects (fxeq's bands), the children's
properties, and the factory presets of presets/<GType name>.prs (read from the source tree, so a
user's own presets never enter the text). Each element's prose is its gtk-doc section comment
(`SECTION:element-NAME` in gst/*.c), so the text lives beside the code, as in GStreamer's own
plugins. The output is deterministic: sorted, without paths, dates or versions.

--check compares the generated text with docs/elements.md and exits 1 ("stale: ...") when they
differ; tests/python/test_elements_doc.py runs it.
"""

import argparse
import configparser
import glob
import os
import re
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUTPUT = os.path.join(REPO, "docs", "elements.md")
PRESETS_DIR = os.path.join(REPO, "presets")
PLUGIN = "fx"


def setup_env(build):
    gst_dir = os.path.join(os.path.abspath(build), "gst")
    if not os.path.isdir(gst_dir):
        sys.exit("gen-elements-doc: %s does not exist: build first (scripts/test.sh or "
                 "ninja -C build)" % gst_dir)
    os.environ["GST_PLUGIN_PATH_1_0"] = gst_dir
    # A fresh registry: only what is built now, never a stale cache.
    reg = tempfile.NamedTemporaryFile(prefix="fx-doc-registry-", suffix=".bin", delete=False)
    reg.close()
    os.unlink(reg.name)
    os.environ["GST_REGISTRY_1_0"] = reg.name
    return reg.name


def fmt_num(v):
    # The type limits by name, not as long digit strings.
    named = {2**64 - 1: "G_MAXUINT64", 2**63 - 1: "G_MAXINT64", 2**32 - 1: "G_MAXUINT",
             2**31 - 1: "G_MAXINT", -2**31: "G_MININT", -2**63: "G_MININT64"}
    if isinstance(v, int) and v in named:
        return named[v]
    if isinstance(v, float) and abs(v) >= 1.7e308:
        return "G_MAXDOUBLE" if v > 0 else "-G_MAXDOUBLE"
    if isinstance(v, float):
        if v in (float("inf"), float("-inf")):
            return "∞" if v > 0 else "-∞"
        if abs(v) >= 1e15:
            return "%.4g" % v
        return ("%.6f" % v).rstrip("0").rstrip(".") if v != int(v) else "%d" % v
    return str(v)


def prop_type(GObject, Gst, spec):
    t = spec.value_type
    if t.is_a(GObject.TYPE_ENUM):
        return "enum `%s`" % t.name
    if t.is_a(GObject.TYPE_FLAGS):
        return "flags `%s`" % t.name
    return "`%s`" % t.name


def prop_range(GObject, spec):
    for attr in ("minimum", "maximum"):
        if not hasattr(spec, attr):
            return ""
    lo, hi = spec.minimum, spec.maximum
    return "%s – %s" % (fmt_num(lo), fmt_num(hi))


def prop_default(GObject, Gst, spec):
    t = spec.value_type
    d = spec.default_value
    if t.is_a(GObject.TYPE_ENUM):
        try:
            return "`%s`" % d.value_nick
        except AttributeError:
            return "`%s`" % d
    if t == GObject.TYPE_BOOLEAN:
        return "`%s`" % ("true" if d else "false")
    if t == GObject.TYPE_STRING:
        return "`\"%s\"`" % d if d is not None else "(none)"
    if isinstance(d, (int, float)) and not isinstance(d, bool):
        return "`%s`" % fmt_num(d)
    if d is None:
        return "(none)"
    return "`%s`" % d


def enum_values(GObject, spec):
    t = spec.value_type
    if not t.is_a(GObject.TYPE_ENUM):
        return ""
    klass = spec.enum_class
    vals = []
    for v in sorted(klass.__enum_values__.values(), key=int):
        vals.append("`%s`" % v.value_nick)
    return ", ".join(vals)


def flags_text(GObject, Gst, spec):
    f = spec.flags
    parts = []
    if f & GObject.ParamFlags.READABLE and f & GObject.ParamFlags.WRITABLE:
        parts.append("read/write")
    elif f & GObject.ParamFlags.READABLE:
        parts.append("read-only")
    else:
        parts.append("write-only")
    if f & Gst.PARAM_CONTROLLABLE:
        parts.append("controllable")
    if f & Gst.PARAM_MUTABLE_READY:
        parts.append("changeable in NULL/READY only")
    elif f & Gst.PARAM_MUTABLE_PAUSED:
        parts.append("changeable up to PAUSED")
    elif f & Gst.PARAM_MUTABLE_PLAYING:
        parts.append("changeable while PLAYING")
    return ", ".join(parts)


def gtk_doc_sections(src_dir=os.path.join(REPO, "gst")):
    """{element name: markdown} from the `SECTION:element-NAME` gtk-doc comments of the sources:
    @title and @short_description dropped, `## X` headings as bold lines, |[ ]| blocks as ```sh
    blocks whose wrapped lines end in a backslash, #GstType and %VALUE as code."""
    out = {}
    for path in sorted(glob.glob(os.path.join(src_dir, "*.c"))):
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"/\*\*\n \* SECTION:element-([\w-]+)\n(.*?)\*/", text, re.S):
            lines = []
            for raw in m.group(2).split("\n"):
                line = re.sub(r"^ \*( |$)", "", raw.rstrip())
                if line.startswith("@title:") or line.startswith("@short_description:"):
                    continue
                lines.append(line)
            md, code = [], None
            for line in lines:
                if line.strip() == "|[":
                    code = []
                elif line.strip() == "]|" and code is not None:
                    md.append("```sh")
                    md.extend(c + " \\" for c in code[:-1])
                    md.extend(code[-1:])
                    md.append("```")
                    code = None
                elif code is not None:
                    code.append(line)
                elif re.match(r"#+ ", line):
                    md.append("**%s**" % line.lstrip("#").strip())
                else:
                    md.append(re.sub(r"[#%]((?:Gst|G)?[A-Z][\w]*)", r"`\1`", line))
            body = "\n".join(md).strip()
            out[m.group(1)] = re.sub(r"\n{3,}", "\n\n", body)
    return out


def cell(text):
    return (text or "").replace("|", "\\|").replace("\n", " ").strip()


def properties_table(GObject, Gst, specs, skip_owner_types):
    lines = ["| property | type | range / values | default | flags | description |",
             "| --- | --- | --- | --- | --- | --- |"]
    for spec in sorted(specs, key=lambda s: s.name):
        if spec.owner_type.name in skip_owner_types:
            continue
        values = enum_values(GObject, spec) or prop_range(GObject, spec)
        lines.append("| `%s` | %s | %s | %s | %s | %s |" % (
            spec.name, prop_type(GObject, Gst, spec), cell(values),
            prop_default(GObject, Gst, spec), flags_text(GObject, Gst, spec),
            cell(spec.blurb)))
    return lines


# Properties every element inherits from GStreamer's own base classes: listed once, not per element.
BASE_OWNERS = ("GstObject", "GstElement", "GstBin", "GstPipeline", "GstBaseTransform",
               "GstAudioFilter")


def factory_presets(type_name):
    """[(preset, comment)] of presets/<type_name>.prs, sorted by name ([] without a file)."""
    path = os.path.join(PRESETS_DIR, type_name + ".prs")
    if not os.path.exists(path):
        return []
    cp = configparser.ConfigParser(delimiters=("=",), interpolation=None, comment_prefixes=("#",))
    cp.optionxform = str
    with open(path, encoding="utf-8") as f:
        cp.read_file(f)
    return sorted((s, cp[s].get("_meta/comment", "")) for s in cp.sections()
                  if not s.startswith("_"))


PRESETS_TEXT = """## Presets

Every element implements `GstPreset` (as `equalizer-10bands` and `freeverb` do), with GStreamer's
default implementation: a preset is a named set of the element's properties (for `fxeq` also every
band's, as `band0::gain`; for `fxchain` its own properties, `chain` holding the whole
description of the children) stored in a GKeyFile `<GType name>.prs` (`GstFxEq.prs`,
`GstFxReverb.prs`, ...). The base classes' `name`, `parent`, `qos` and the bin's message handling
are not stored. The factory presets listed under each element come from `presets/` in the
source tree, which `meson install` puts in `<datadir>/gstreamer-1.0/presets`.

Where GStreamer looks, in this order (a later file with the same or a newer version replaces the
earlier ones; an older one is merged into them):

1. `GST_DATADIR/gstreamer-1.0/presets`, the datadir of GStreamer's own prefix
   (`/usr/share/gstreamer-1.0/presets` for Debian's GStreamer). A plugin installed with
   `--prefix=/usr` lands there; for any other prefix (meson's default `/usr/local`, a temporary
   prefix) set `GST_PRESET_PATH=<prefix>/share/gstreamer-1.0/presets`.
2. Every directory of `GST_PRESET_PATH` (`:`-separated). `scripts/lib.sh`'s `fx_gst_env` sets it
   to the source tree's `presets/`, so the build tree has the factory presets.
3. `$XDG_DATA_HOME/gstreamer-1.0/presets` (`~/.local/share/...`), where `gst_preset_save_preset()`
   writes. The first save copies the factory presets known then into that file, which from then
   on replaces the factory file for that element (GStreamer's default behaviour, as for the stock
   equalizer presets): factory presets added by a later release appear after the user's file is
   removed.

`gst-inspect-1.0 fxeq` lists the presets with their descriptions under `Presets:`;
`gst-fx presets list|show|save|delete` lists them with their origin (factory, yours, or a
factory preset you saved over), prints a preset's settings as a chain element, and saves and
deletes your own ([tools/README.md](../tools/README.md#presets-gst-fx-presets)). In a pipeline
description (`gst-launch-1.0`, `gst_parse_launch()`) `@preset=NAME` loads one; the factory preset
names are kebab-case because GStreamer's parser keeps quotes and backslashes in a preset name.
The parser loads the preset after the element's other properties, so its values win over
`property=value` on the same element. `fxchain`'s `chain` text (and so `gst-fx --chain`) takes
`@preset=NAME` too, in the same order; there a name the element does not have is an error:

```sh
gst-launch-1.0 audiotestsrc wave=pink-noise num-buffers=200 ! audioconvert \\
  ! fxchain @preset=voice-cleanup ! fxreverb @preset=small-room ! audioconvert ! autoaudiosink
gst-fx plan --chain "fxbutterworth @preset=rumble-filter ! fxeq @preset=telephone"
```

Applications call `gst_preset_load_preset()`:

```c
GstElement *eq = gst_element_factory_make ("fxeq", NULL);
if (!gst_preset_load_preset (GST_PRESET (eq), "loudness"))
  g_warning ("no preset 'loudness'");
```

```python
eq = Gst.ElementFactory.make("fxeq", None)
Gst.Preset.load_preset(eq, "loudness")       # False when there is no such preset
Gst.Preset.get_preset_names(eq)              # ['bass-boost', 'bass-cut', 'flat', ...]
Gst.Preset.save_preset(eq, "my-curve")       # into ~/.local/share/gstreamer-1.0/presets
```

Loading sets only the properties the preset names; every factory preset names all the settings
of its element (for `fxeq`: `num-bands`, `pre-gain` and every property of every band), so the
result does not depend on what was set before. `num-bands`, `look-ahead`, `link` and `chain`
change in NULL and READY only: load presets that set them before the pipeline plays. The
factory `fxeq` presets keep every acting band below 8 kHz, so they work at sample rates from
16 kHz up. The `fxlimiter` presets' ceilings (`mastering` -1 dBFS, `broadcast` -2 dBFS, `safety`
-0.1 dBFS) are sample peaks: the limiter holds sample peaks, and inter-sample (true) peaks of the
output can exceed the ceiling slightly, so a delivery specified in dBTP needs some margin below
it.
"""


def describe_element(GObject, Gst, factory, prose):
    out = []
    name = factory.get_name()
    out.append("## `%s`" % name)
    out.append("")
    out.append("%s — %s" % (factory.get_metadata("long-name"),
                            factory.get_metadata("description")))
    out.append("")
    if prose.get(name):
        out.append(prose[name])
        out.append("")
    out.append("- classification: `%s`" % factory.get_metadata("klass"))
    out.append("- rank: %s" % ("none" if factory.get_rank() == 0 else factory.get_rank()))
    element = factory.create(None)
    gtype = element.__gtype__
    chain = []
    t = gtype
    while t.name not in ("GInitiallyUnowned", "GObject"):
        chain.append(t.name)
        t = t.parent
    out.append("- type: `%s`" % " → ".join(chain))
    ifaces = sorted(i.name for i in gtype.interfaces)
    if ifaces:
        out.append("- interfaces: %s" % ", ".join("`%s`" % i for i in ifaces))
    out.append("")
    out.append("Pads:")
    out.append("")
    for tmpl in sorted(factory.get_static_pad_templates(), key=lambda p: p.name_template):
        direction = tmpl.direction.value_nick
        presence = tmpl.presence.value_nick
        caps = tmpl.get_caps().to_string()
        out.append("- `%s` (%s, %s): `%s`" % (tmpl.name_template, direction, presence, caps))
    out.append("")
    specs = GObject.list_properties(gtype)
    out.append("Properties (besides `name` and `parent`%s):" % (
        ", and the `GstBaseTransform` ones such as `qos`" if gtype.is_a(Gst.Element) and
        any(s.owner_type.name == "GstBaseTransform" for s in specs) else
        ", and the `GstBin` ones" if any(s.owner_type.name == "GstBin" for s in specs) else ""))
    out.append("")
    out.extend(properties_table(GObject, Gst, specs, BASE_OWNERS))
    out.append("")
    if isinstance(element, Gst.ChildProxy) and element.get_children_count() > 0:
        child = element.get_child_by_index(0)
        out.append("Child objects (`%s`, `%s`, …; %d by default), each with:" % (
            child.get_name(), "…" if element.get_children_count() < 2 else
            element.get_child_by_index(1).get_name(), element.get_children_count()))
        out.append("")
        out.extend(properties_table(GObject, Gst, GObject.list_properties(child.__gtype__),
                                    BASE_OWNERS))
        out.append("")
    presets = factory_presets(gtype.name)
    if presets:
        out.append("Factory presets (`presets/%s.prs`, see [Presets](#presets)):" % gtype.name)
        out.append("")
        for p, comment in presets:
            out.append("- `%s`: %s" % (p, cell(comment)))
        out.append("")
    element.set_state(Gst.State.NULL)
    return out


def generate():
    import gi

    gi.require_version("Gst", "1.0")
    from gi.repository import GObject, Gst

    Gst.init(None)
    reg = Gst.Registry.get()
    plugin = reg.find_plugin(PLUGIN)
    if plugin is None:
        sys.exit("gen-elements-doc: the `%s` plugin was not found in %s"
                 % (PLUGIN, os.environ["GST_PLUGIN_PATH_1_0"]))
    features = reg.get_feature_list_by_plugin(PLUGIN)
    factories = sorted((f for f in features if isinstance(f, Gst.ElementFactory)),
                       key=lambda f: f.get_name())
    tracers = sorted((f for f in features if isinstance(f, Gst.TracerFactory)),
                     key=lambda f: f.get_name())
    out = [
        "# gst-fx element reference",
        "",
        "<!-- Generated by scripts/gen-elements-doc.py from the built plugin; do not edit. -->",
        "<!-- Regenerate: scripts/gen-elements-doc.py (tests/python/test_elements_doc.py fails when stale). -->",
        "",
        "Plugin `%s`: %s. License %s." % (plugin.get_name(), plugin.get_description(),
                                          plugin.get_license()),
        "",
        "Every element below also has the properties of GStreamer's base classes (`name`, "
        "`parent`; `qos` for filters; `async-handling`, `message-forward` for bins), which are "
        "not repeated. `gst-inspect-1.0 ELEMENT` shows the same information on a machine where "
        "GStreamer finds the plugin (`export GST_PLUGIN_PATH_1_0=$PWD/build/gst`). Every element "
        "implements `GstPreset`; factory presets are listed per element ([Presets](#presets)).",
        "",
        "Ranges. Every number has a bounded range a slider or a GstController binding can use "
        "(the default `GstDirectControlBinding` maps 0..1 onto the whole range, so 0.5 is its "
        "middle): every frequency runs 0 – 100,000 Hz, as in the stock `audiocheblimit`, "
        "`audiowsinclimit` and equalizer bands, and a frequency at or above the stream's Nyquist "
        "frequency is still refused when the filter is designed (an error at negotiation, a "
        "warning and the previous coefficients while playing); gains in dB run -120 – +60 "
        "(`fxgain`, `fxeq` pre-gain; the EQ and biquad bands ±120, the dynamics' makeup ±60); "
        "times in ms up to 60 s (`fxdelay`), 10 s (dynamics release), 5 s (attack, hold), 1 s "
        "(RMS window), 100 ms (look-ahead); Q 0.001 – 1000; ratios 1 – 1000; orders as in the "
        "tables; mix, feedback and the reverb's settings 0 – 1; `fxfir`'s num-taps up to 2^20, "
        "scan-threshold up to 2^24 frames, `fxnormalize`'s max-duration up to a day (0: no "
        "limit). A value outside a range is "
        "refused by GObject with a warning and the property keeps its value. The tables below "
        "give each range.",
        "",
        "| element | description |",
        "| --- | --- |",
    ]
    for f in factories:
        out.append("| [`%s`](#%s) | %s |" % (f.get_name(), f.get_name(),
                                             cell(f.get_metadata("description"))))
    out.append("")
    prose = gtk_doc_sections()
    for f in factories:
        out.extend(describe_element(GObject, Gst, f, prose))
    out.extend(PRESETS_TEXT.split("\n"))
    if tracers:
        out.append("## Tracers")
        out.append("")
        for t in tracers:
            out.append("- `%s` (`%s`): enable with `GST_TRACERS=%s`; see docs/profiling.md."
                       % (t.get_name(), t.get_tracer_type().name, t.get_name()))
        out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"),
                    help="meson build directory holding gst/libgstfx.so (default: build)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--output", default=DEFAULT_OUTPUT, help="file to write (docs/elements.md)")
    g.add_argument("--check", action="store_true", help="exit 1 if docs/elements.md is stale")
    g.add_argument("--stdout", action="store_true", help="print instead of writing")
    args = ap.parse_args()
    reg = setup_env(args.build)
    try:
        text = generate()
    finally:
        if os.path.exists(reg):
            os.unlink(reg)
    if args.stdout:
        sys.stdout.write(text)
        return 0
    if args.check:
        try:
            current = open(DEFAULT_OUTPUT, encoding="utf-8").read()
        except FileNotFoundError:
            current = None
        if current != text:
            sys.stderr.write("stale: docs/elements.md differs from the built plugin; run "
                             "scripts/gen-elements-doc.py and commit the result\n")
            return 1
        return 0
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text)
    print("wrote %s" % os.path.relpath(args.output, REPO))
    return 0


if __name__ == "__main__":
    sys.exit(main())
