"""Every command in docs/profiling.md, docs/loudness.md and README.md runs as written.

The fenced ```sh blocks of the documents are extracted and each one is run with bash (-e -o
pipefail) from the repository root; ```python blocks run with /usr/bin/python3. The README's
quick-start block, which runs scripts/test.sh (this suite), is skipped. A block whose first line is `# needs: X` is skipped, with the
reason, where X is missing: `gpu` (an NVIDIA device node), `batch` (`gst-fx batch --help`
succeeds), `perf` (`perf stat -e task-clock true` works), `valgrind` (the program is installed),
`parallel-ssh` (GNU parallel and a hosts.txt of ssh hosts). ```bash blocks show file contents (a
Slurm script) and are not run.
The outputs shown in the document are ```text blocks and are not run.

Run as a script (`python3 tests/python/test_docs_commands.py [N]`) it prints each block's
output, which is how the outputs in the document were captured.
"""

import glob
import os
import re
import shutil
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = ("docs/profiling.md", "README.md", "docs/loudness.md")
TIMEOUT = 300


def blocks(path):
    """(index, line number, language, text) of each ```sh / ```python block in the file."""
    res = []
    lines = open(os.path.join(REPO, path), encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        lang = lines[i].strip()[3:]
        if lines[i].strip().startswith("```") and lang in ("sh", "python"):
            start = i + 1
            j = start
            while lines[j].strip() != "```":
                j += 1
            res.append((len(res), start + 1, lang, "\n".join(lines[start:j]) + "\n"))
            i = j
        i += 1
    return res


def needs(text):
    m = re.match(r"\s*# needs: ([\w, -]+)", text)
    return [n.strip() for n in m.group(1).split(",")] if m else []


def gst_fx():
    return os.environ.get("GST_FX") or os.path.join(REPO, "build", "tools", "gst-fx")


def missing(need):
    """Why `need` is not available here, or None when it is."""
    if need == "gpu":
        if not glob.glob("/dev/nvidia[0-9]*"):
            return "no NVIDIA GPU on this machine"
        return None
    if need == "batch":
        r = subprocess.run([gst_fx(), "batch", "--help"], capture_output=True, timeout=60)
        return None if r.returncode == 0 else "this build's gst-fx has no `batch` command"
    if need == "perf":
        if not shutil.which("perf"):
            return "perf is not installed"
        r = subprocess.run(["perf", "stat", "-e", "task-clock", "true"], capture_output=True,
                           timeout=60)
        return None if r.returncode == 0 else "perf cannot open events here"
    if need == "valgrind":
        if "libasan" in os.environ.get("LD_PRELOAD", ""):
            return "the plugin is built with AddressSanitizer, which valgrind cannot run"
        return None if shutil.which("valgrind") else "valgrind is not installed"
    if need == "parallel-ssh":
        if not shutil.which("parallel"):
            return "GNU parallel is not installed"
        return None if os.path.exists(os.path.join(REPO, "hosts.txt")) else "no hosts.txt"
    return "unknown requirement %r" % need


def run_block(lang, text):
    env = dict(os.environ)
    env.setdefault("GST_PLUGIN_PATH_1_0", os.path.join(REPO, "build", "gst"))
    cmd = (["bash", "-e", "-o", "pipefail", "-c", text] if lang == "sh"
           else ["/usr/bin/python3", "-c", text])
    return subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT)


CASES = [(doc, idx, line, lang, text) for doc in DOCS
         for idx, line, lang, text in blocks(doc)]


def test_docs_have_commands():
    prof = [c for c in CASES if c[0] == "docs/profiling.md"]
    assert len(prof) >= 8
    assert len([c for c in prof if not needs(c[4])]) >= 5


@pytest.mark.parametrize("doc,idx,line,lang,text", CASES,
                         ids=["%s:%d" % (c[0].split("/")[-1], c[2]) for c in CASES])
def test_command_runs(fx, doc, idx, line, lang, text):
    if "scripts/test.sh" in text:
        pytest.skip("%s line %d runs scripts/test.sh, i.e. this test suite" % (doc, line))
    for need in needs(text):
        why = missing(need)
        if why:
            pytest.skip("%s line %d needs %s: %s" % (doc, line, need, why))
    r = run_block(lang, text)
    assert r.returncode == 0, "%s line %d failed (rc %d):\n%s\nstdout:\n%s\nstderr:\n%s" % (
        doc, line, r.returncode, text, r.stdout[-3000:], r.stderr[-3000:])
    assert r.stdout.strip() or r.stderr.strip(), "%s line %d printed nothing" % (doc, line)


if __name__ == "__main__":
    only = set(int(a) for a in sys.argv[1:])
    for doc, idx, line, lang, text in CASES:
        if only and idx not in only:
            continue
        print("=== %s block %d (line %d)" % (doc, idx, line))
        why = [missing(n) for n in needs(text)]
        if any(why):
            print("skipped:", [w for w in why if w])
            continue
        r = run_block(lang, text)
        print(r.stdout, end="")
        print(r.stderr, end="")
        print("--- rc", r.returncode)
