"""`gst-fx` as a SoX user drives it (issue 19): pipes (`-` as IN or OUT of `process`), folders
among `batch`'s inputs (-r, --input-ext, the tree mirrored under -o), `--chain-file`, usage
errors as one line and a hint, and the progress line on a 50-column terminal (tmux).

Everything runs through real processes: shell pipelines (cat | gst-fx | cat), gst-fx's standard
output read into scipy. References: scipy.signal.butter + sosfilt of the same chain
(test_cli_batch.reference), and the file-to-file `process` of the same input for the bytes of a
pipe's output (the same decoder and writer, so they must be equal byte for byte).
"""

import io
import os
import shlex
import shutil
import subprocess

import numpy as np
import pytest
import scipy.io.wavfile

from test_cli_batch import CHAIN, F32_TOL, reference, write_wav
from test_tool import gst_fx, gst_fx_path, lines

pytestmark = [pytest.mark.filterwarnings("ignore::scipy.io.wavfile.WavFileWarning"),
              pytest.mark.usefixtures("fx")]

RATE = 48000
SEED = int(os.environ.get("FX_TEST_SEED", "1919"))


def noise(frames, channels, seed=SEED):
    return 0.25 * np.random.default_rng(seed).standard_normal((frames, channels))


def sh(cmd, tmp_path, **kw):
    """Runs a shell pipeline (bash, pipefail off: each status is checked through PIPESTATUS)."""
    env = dict(os.environ, TMPDIR=str(tmp_path / "tmp"))
    os.makedirs(env["TMPDIR"], exist_ok=True)
    return subprocess.run(["bash", "-c", cmd], capture_output=True, env=env, timeout=120, **kw)


def check_reference(y, x, what):
    ref = reference(x, RATE)
    err = np.max(np.abs(y - ref)) / np.max(np.abs(ref))
    assert err < F32_TOL, (what, err, "seed %d" % SEED)


@pytest.fixture
def wav(tmp_path):
    x = write_wav(tmp_path / "in.wav", noise(RATE // 2, 2), RATE)
    return tmp_path / "in.wav", x


# ------------------------------------------------------------------------------------------------
# pipes


def test_pipe_in_and_out_equals_files_and_scipy(wav, tmp_path):
    src, x = wav
    g = shlex.quote(gst_fx_path())
    ref_file = tmp_path / "file.wav"
    r = gst_fx("process", "-q", "--bits", "f32", "--chain", CHAIN, str(src), str(ref_file))
    assert r.returncode == 0, r.stderr
    # cat | gst-fx - - | cat: both sides real pipes
    r = sh("cat %s | %s process --bits f32 --chain %s - - | cat; echo ${PIPESTATUS[1]} >&2"
           % (shlex.quote(str(src)), g, shlex.quote(CHAIN)), tmp_path)
    status = r.stderr.decode().strip().splitlines()
    assert status == ["0"], r.stderr  # nothing else on stderr: no progress off a terminal
    assert r.stdout == ref_file.read_bytes()
    rate, y = scipy.io.wavfile.read(io.BytesIO(r.stdout))
    assert rate == RATE and y.dtype == np.float32 and y.shape == x.shape
    check_reference(y, x, "stdin -> stdout")
    # IN a pipe, OUT a file; IN a file, OUT a pipe as FLAC (--type), equal to the .flac file
    out = tmp_path / "piped.wav"
    r = sh("cat %s | %s process --bits f32 --chain %s - %s"
           % (shlex.quote(str(src)), g, shlex.quote(CHAIN), shlex.quote(str(out))), tmp_path)
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    assert out.read_bytes() == ref_file.read_bytes()
    flac = tmp_path / "file.flac"
    assert gst_fx("process", "--chain", CHAIN, str(src), str(flac)).returncode == 0
    r = sh("%s process --chain %s --type flac %s - | cat" % (g, shlex.quote(CHAIN),
                                                              shlex.quote(str(src))), tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout[:4] == b"fLaC" and r.stdout == flac.read_bytes()
    # a FLAC stream in (the format comes from its content, not a name)
    r = sh("cat %s | %s process --chain fxgain - -" % (shlex.quote(str(flac)), g), tmp_path)
    assert r.returncode == 0, r.stderr
    rate, y = scipy.io.wavfile.read(io.BytesIO(r.stdout))
    assert y.shape == x.shape
    assert not os.listdir(tmp_path / "tmp"), "temporaries left in TMPDIR"


def test_pipe_failures_exit_nonzero_and_write_nothing(wav, tmp_path):
    src, _ = wav
    g = shlex.quote(gst_fx_path())
    junk = tmp_path / "junk"
    junk.write_bytes(np.random.default_rng(SEED).bytes(3000))
    cases = [
        # not audio on standard input
        ("cat %s | %s process --chain fxgain - -" % (shlex.quote(str(junk)), g),
         "standard input"),
        # a chain that fails, OUT a pipe
        ("%s process --chain 'fxgain ! nosuchelement' %s -" % (g, shlex.quote(str(src))),
         "nosuchelement"),
        # empty standard input
        ("%s process --chain fxgain - - </dev/null" % g, "standard input"),
    ]
    for cmd, needle in cases:
        r = sh(cmd + " | cat > %s; exit ${PIPESTATUS[-2]}" % shlex.quote(str(tmp_path / "o")),
               tmp_path)
        assert r.returncode == 1, (cmd, r.returncode, r.stderr)
        err = lines(r.stderr.decode())
        assert len(err) == 1 and err[0].startswith("gst-fx: ") and needle in err[0], (cmd, err)
        assert (tmp_path / "o").read_bytes() == b"", cmd
    # a reader that stops early: a write error (exit 1), not a silent success or a signal
    r = sh("%s process --chain fxgain %s - | head -c 10 >/dev/null; exit ${PIPESTATUS[0]}"
           % (g, shlex.quote(str(src))), tmp_path)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "standard output" in r.stderr.decode()
    assert not os.listdir(tmp_path / "tmp"), "temporaries left in TMPDIR"


def no_audio_files(d):
    """Files GStreamer type-finds that hold no audio stream: bytes that type-find as an LRC
    subtitle (a whole class of random data does: '[' then a letter), damaged JPEG data, a PNG
    image, and a Matroska file with only a video track. Before the decoder watched for
    no-more-pads without an audio pad, the subtitle one hung `process`, `info` and `batch`
    forever (its stream ended on an unlinked pad, so neither EOS nor an error came); before it
    stopped plugging elements after image, video and subtitle streams, the JPEG one hung them in
    jpegparse (a loop at full CPU). Both were found by a fuzz of random bytes behind common magic
    numbers."""
    files = [d / "lyrics.bin", d / "damaged.jpg"]
    files[0].write_bytes(b"[K" + b"a" * 2998)
    rng = np.random.default_rng([777, 827])  # the fuzz's draw that made jpegparse loop
    files[1].write_bytes(b"\xff\xd8\xff" + rng.bytes(int(rng.integers(0, 6000))))
    for name, src in [("image.png", "videotestsrc num-buffers=1 ! pngenc"),
                      ("video.mkv", "videotestsrc num-buffers=5 ! "
                                    "video/x-raw,format=I420,width=64,height=48 ! matroskamux")]:
        r = subprocess.run("gst-launch-1.0 -q %s ! filesink location=%s"
                           % (src, shlex.quote(str(d / name))),
                           shell=True, capture_output=True, timeout=60)
        assert r.returncode == 0, r.stderr
        files.append(d / name)
    return files


def test_files_without_audio_fail_at_once(wav, tmp_path):
    """A file without audio is an error naming what it holds, through every command and a pipe,
    and in a batch it takes no other file down."""
    src, x = wav
    g = shlex.quote(gst_fx_path())
    bad = no_audio_files(tmp_path)
    for f in bad:
        for cmd, needle in [("%s process --chain fxgain %s %s" % (g, shlex.quote(str(f)),
                                                                   shlex.quote(str(tmp_path / "o.wav"))),
                             f.name),
                            ("cat %s | %s process --chain fxgain - - | cat > %s; "
                             "exit ${PIPESTATUS[1]}" % (shlex.quote(str(f)), g,
                                                         shlex.quote(str(tmp_path / "o"))),
                             "standard input"),
                            ("%s info %s" % (g, shlex.quote(str(f))), f.name)]:
            r = sh(cmd, tmp_path)
            assert r.returncode == 1, (cmd, r.returncode, r.stderr)
            err = lines(r.stderr.decode())
            assert len(err) == 1 and needle in err[0] and "no audio stream" in err[0], (cmd, err)
        assert not (tmp_path / "o.wav").exists() and (tmp_path / "o").read_bytes() == b""
    out = tmp_path / "out"
    r = sh("%s batch -q --bits f32 --ext wav --chain %s -o %s %s"
           % (g, shlex.quote(CHAIN), shlex.quote(str(out)),
              " ".join(shlex.quote(str(f)) for f in [bad[0], src] + bad[1:])), tmp_path)
    assert r.returncode == 1, r.stderr
    err = lines(r.stderr.decode())
    assert len(err) == len(bad) and all("no audio stream" in e for e in err), err
    assert sorted(os.listdir(out)) == ["in.wav"]
    rate, y = scipy.io.wavfile.read(str(out / "in.wav"))
    check_reference(y, x, "batch beside files without audio")


@pytest.mark.parametrize("hook,needle", [
    ("GST_FX_DECODE_STALL=1 GST_FX_TEST_DECODE_BLOCK", "neither data nor an error for 1 s"),
    ("GST_FX_TEST_DECODE_DROP", "stopped without data, an error or the end of the stream")])
def test_a_stuck_decoder_fails_that_file_only(tmp_path, hook, needle):
    """GStreamer can leave a damaged file with neither data nor an error: decodebin drops the
    error a demuxer posts while it is being started (a race the fuzz hit with Ogg, Matroska,
    MP4, AVI and FLV bytes: 10 of 80 damaged files in one `batch -j 2`), and every streaming
    thread then stops. The decoder fails such a file once no streaming thread has been started
    for 1 s, and one whose threads run without producing anything after GST_FX_DECODE_STALL
    seconds (default 20); batch goes on with the others. Both made deterministic by test hooks
    on the named file's decoded data (GStreamer path: --rate makes `process` resample):
    GST_FX_TEST_DECODE_BLOCK blocks it (a thread that never comes back),
    GST_FX_TEST_DECODE_DROP drops it and its EOS (every thread ends, nothing arrives)."""
    g = shlex.quote(gst_fx_path())
    x = noise(RATE // 4, 2)
    for name in ("a.wav", "b.wav", "c.wav"):
        write_wav(tmp_path / name, x, RATE)
    env = hook + "=b.wav "
    r = sh(env + "%s process --rate 44100 --chain fxgain %s %s"
           % (g, shlex.quote(str(tmp_path / "b.wav")), shlex.quote(str(tmp_path / "o.wav"))),
           tmp_path)
    err = lines(r.stderr.decode())
    assert r.returncode == 1 and len(err) == 1, (r.returncode, err)
    assert "b.wav" in err[0] and needle in err[0], err
    assert not (tmp_path / "o.wav").exists()
    out = tmp_path / "out"
    r = sh(env + "%s batch -q --rate 44100 --chain fxgain -o %s %s"
           % (g, shlex.quote(str(out)),
              " ".join(shlex.quote(str(tmp_path / n)) for n in ("a.wav", "b.wav", "c.wav"))),
           tmp_path)
    err = lines(r.stderr.decode())
    assert r.returncode == 1 and len(err) == 1 and "b.wav" in err[0], (r.returncode, err)
    assert needle in err[0], err
    assert sorted(os.listdir(out)) == ["a.wav", "c.wav"]
    for name in ("a.wav", "c.wav"):
        rate, y = scipy.io.wavfile.read(str(out / name))
        assert rate == 44100 and y.shape[1] == 2 and abs(len(y) - len(x) * 44100 // RATE) <= 2
    # the same file without the hook is decoded (the limits are per file, not per run)
    r = sh("GST_FX_DECODE_STALL=1 %s process -q --rate 44100 --chain fxgain %s %s"
           % (g, shlex.quote(str(tmp_path / "b.wav")), shlex.quote(str(tmp_path / "o.wav"))),
           tmp_path)
    assert r.returncode == 0 and (tmp_path / "o.wav").exists(), r.stderr


def test_random_bytes_on_stdin_never_hang(tmp_path):
    """Random bytes, alone and behind the magic numbers of formats GStreamer demuxes or parses,
    are either rejected or decoded, always with an exit status of 0 or 1 and in bounded time (a
    small CLI fuzz of the decoder; plain random bytes once hung it 1 draw in ~200, and the
    magic numbers reach the demuxers and parsers that hung it: test_files_without_audio_...)."""
    g = shlex.quote(gst_fx_path())
    magics = [b"", b"[", b"ID3\x03\x00\x00\x00\x00\x00\x00", b"OggS\x00\x02", b"fLaC",
              b"RIFF\x00\x10\x00\x00WAVEfmt ", b"FORM\x00\x00\x10\x00AIFF", b"\x1aE\xdf\xa3",
              b"\x00\x00\x00\x18ftypM4A ", b"\xff\xfb", b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff",
              b"RIFF\x00\x10\x00\x00AVI ", b"FLV\x01", b"WEBVTT\n"]
    for i in range(3 * len(magics)):
        junk = tmp_path / "junk"
        rng = np.random.default_rng([SEED, i])
        junk.write_bytes(magics[i % len(magics)] + rng.bytes(int(rng.integers(0, 6000))))
        r = sh("cat %s | GST_FX_DECODE_STALL=5 %s process --chain fxgain - - > %s"
               % (shlex.quote(str(junk)), g, shlex.quote(str(tmp_path / "o"))), tmp_path)
        # libmpg123 (libsndfile's MP3 decoder) prints its own notes on damaged MPEG data
        # ("Note: Illegal Audio-MPEG-Header ..."); libsndfile gives no way to quiet it
        err = [e for e in lines(r.stderr.decode()) if not e.startswith("Note: ")
               and "libmpg123" not in e]
        if r.returncode != 0:
            assert r.returncode == 1 and len(err) == 1 and "standard input" in err[0], (i, err)
            assert (tmp_path / "o").read_bytes() == b"", i
    assert not os.listdir(tmp_path / "tmp"), "temporaries left in TMPDIR"


# ------------------------------------------------------------------------------------------------
# folders


def make_tree(root):
    """in/ with nested folders, a symbolic link to a file and to a folder, a hidden file, a text
    file, an undecodable .wav, and -o out/ inside it holding an earlier output."""
    signals = {}
    for i, rel in enumerate(["a.wav", "sub/b.wav", "sub/deep/c.wav", "other/d.wav"]):
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        signals[rel] = write_wav(p, noise(3000 + 1000 * i, 1 + i % 2, SEED + i), RATE)
    (root / "sub" / "bad.wav").write_bytes(b"RIFF" + np.random.default_rng(SEED).bytes(500))
    (root / "notes.txt").write_text("not audio\n")
    (root / ".hidden.wav").write_bytes((root / "a.wav").read_bytes())
    os.symlink("deep/c.wav", root / "sub" / "link.wav")
    signals["sub/link.wav"] = signals["sub/deep/c.wav"]
    os.symlink("../sub", root / "other" / "loop")  # a link to a folder: not followed
    (root / "out" / "sub").mkdir(parents=True)
    shutil.copy(root / "a.wav", root / "out" / "sub" / "old.wav")
    return signals


def outputs(d):
    return sorted(str(p.relative_to(d)) for p in d.rglob("*") if p.is_file())


def test_batch_folders_mirror_the_tree(tmp_path):
    root = tmp_path / "in"
    signals = make_tree(root)
    out = root / "out"
    for attempt in range(2):  # the second run finds its own outputs under in/out: skipped
        r = gst_fx("batch", "-q", "-r", "--bits", "f32", "--chain", CHAIN, "-o", str(out),
                   str(root))
        assert r.returncode == 1, (r.stdout, r.stderr)  # bad.wav
        err = lines(r.stderr)
        assert len(err) == 1 and "bad.wav" in err[0], err
        assert outputs(out) == sorted(list(signals) + ["sub/old.wav"]), (attempt, outputs(out))
    for rel, x in signals.items():
        rate, y = scipy.io.wavfile.read(str(out / rel))
        y = y.reshape(len(x), -1)
        assert rate == RATE and y.shape == x.shape, rel
        check_reference(y, x, rel)
    # without -r: the top of the folder only; --input-ext picks extensions (any case)
    r = gst_fx("batch", "-q", "--chain", CHAIN, "-o", str(tmp_path / "top"), str(root))
    assert r.returncode == 0, r.stderr
    assert outputs(tmp_path / "top") == ["a.wav"]
    flac = tmp_path / "f"
    assert gst_fx("process", "-q", "--chain", "fxgain", str(root / "a.wav"),
                  str(root / "sub" / "e.FLAC")).returncode == 0
    r = gst_fx("batch", "-q", "-r", "--input-ext", "flac", "--chain", CHAIN, "-o", str(flac),
               str(root))
    assert r.returncode == 0, r.stderr
    assert outputs(flac) == ["sub/e.FLAC"]
    # --ext renames the outputs; folders and files mix on one command line
    r = gst_fx("batch", "-q", "-r", "--input-ext", "wav", "--ext", "flac", "--chain", CHAIN,
               "-o", str(tmp_path / "mix"), str(root / "sub" / "deep"), str(root / "a.wav"))
    assert r.returncode == 0, r.stderr
    assert outputs(tmp_path / "mix") == ["a.flac", "c.flac"]
    # nothing to take is one line, exit 1
    (tmp_path / "empty").mkdir()
    r = gst_fx("batch", "-q", "--chain", CHAIN, "-o", str(tmp_path / "o"), str(tmp_path / "empty"))
    assert r.returncode == 1 and len(lines(r.stderr)) == 1, r.stderr


# ------------------------------------------------------------------------------------------------
# --chain-file


CHAIN_FILE = """# rumble, then the top end
fxbutterworth mode=high-pass   # the sub-bass
    cutoff=80 order=4
! fxbutterworth mode=low-pass cutoff=12000 order=8   # "quotes" in a comment are ignored
"""


def test_chain_file_equals_chain(wav, tmp_path):
    src, _ = wav
    (tmp_path / "c.chain").write_text(CHAIN_FILE)
    a, b, c = tmp_path / "a.wav", tmp_path / "b.wav", tmp_path / "c.wav"
    assert gst_fx("process", "--chain", CHAIN, str(src), str(a)).returncode == 0
    r = gst_fx("process", "--chain-file", str(tmp_path / "c.chain"), str(src), str(b))
    assert r.returncode == 0, r.stderr
    assert a.read_bytes() == b.read_bytes()
    # "-": standard input, while IN is a file
    r = subprocess.run([gst_fx_path(), "process", "--chain-file", "-", str(src), str(c)],
                       input=CHAIN_FILE, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert c.read_bytes() == a.read_bytes()
    for cmd in (["plan"], ["batch", "-q", "-o", str(tmp_path / "o")], ["response", "-o",
                                                                      str(tmp_path / "r.csv")]):
        files = [str(src)] if cmd[0] == "batch" else []
        r = gst_fx(*cmd, "--chain-file", str(tmp_path / "c.chain"), *files)
        assert r.returncode == 0, (cmd, r.stderr)


@pytest.mark.parametrize("text,line,needle", [
    ("fxbiquad\n# comment\n! fxgain gain=99\n", 3, "gain=99"),
    ("fxbiquad ! fxgain\n! nosuchelement\n", 2, "nosuchelement"),
    ('fxbiquad\n! fxsos sections="1 0 0\n1 0 0\n', 2, "quote"),
])
def test_chain_file_errors_name_file_and_line(tmp_path, text, line, needle):
    f = tmp_path / "bad.chain"
    f.write_text(text)
    r = gst_fx("plan", "--chain-file", str(f))
    assert r.returncode == 1, r.stderr
    err = lines(r.stderr)
    assert len(err) == 1 and err[0].startswith("gst-fx: %s:%d: " % (f, line)), err
    assert needle in err[0], err


# ------------------------------------------------------------------------------------------------
# usage errors: one line and a hint


@pytest.mark.parametrize("args,needle", [
    (("process", "--bogus", "a.wav", "b.wav"), "--bogus"),
    (("process", "a.wav", "b.wav", "--chain"), "--chain"),
    (("process", "--chain", "fxgain", "--device", "tpu", "a.wav", "b.wav"), "--device"),
    (("process", "--chain", "fxgain", "--type", "m4a", "a.wav", "-"), "--type"),
    (("process", "--chain", "fxgain", "a.wav"), "IN and OUT"),
    (("process", "--chain", "fxgain", "--chain-file", "x", "a.wav", "b.wav"), "--chain-file"),
    (("process", "--chain-file", "-", "-", "b.wav"), "standard input"),
    (("batch", "--chain", "fxgain", "--jobs", "-1", "-o", "d", "a.wav"), "--jobs"),
    (("batch", "--chain", "fxgain", "--input-ext", ",", "-o", "d", "a.wav"), "--input-ext"),
    (("batch", "--files-from", "-", "--chain-file", "-", "-o", "d"),
     "standard input"),
    (("plan", "--rate", "fast"), "--rate"),
    (("response", "--chain", "fxbiquad", "-o", "x.txt"), ".svg"),
    (("count-dispatches", "--depths", "0"), "--depths"),
])
def test_usage_error_is_one_line_and_a_hint(args, needle):
    r = gst_fx(*args)
    assert r.returncode == 2, (args, r.returncode, r.stderr)
    assert r.stdout == ""
    err = r.stderr.splitlines()
    assert len(err) == 2, r.stderr
    assert err[0].startswith("gst-fx: ") and needle in err[0], err
    assert err[1] == "Try 'gst-fx %s --help'." % args[0], err


def test_top_level_usage_errors_and_help():
    for args in ((), ("no-such-command",)):
        r = gst_fx(*args)
        assert r.returncode == 2 and r.stdout == "", r.stderr
        err = r.stderr.splitlines()
        assert len(err) == 2 and err[0].startswith("gst-fx: "), err
        assert err[1] == "Try 'gst-fx --help'.", err
    for args in (("--help",), ("process", "--help"), ("batch", "--help")):
        r = gst_fx(*args)
        assert r.returncode == 0 and "Usage" in r.stdout and r.stderr == "", args
    r = gst_fx("process", "--help")
    for opt in ("--chain-file", "--type"):
        assert opt in r.stdout, opt
    r = gst_fx("batch", "--help")
    for opt in ("--chain-file", "--recursive", "--input-ext"):
        assert opt in r.stdout, opt


# ------------------------------------------------------------------------------------------------
# the progress line on a 50-column terminal


@pytest.mark.parametrize("command", ["process", "batch"])
def test_progress_fits_a_50_column_terminal(tmp_path, command):
    if shutil.which("tmux") is None:
        pytest.fail("tmux is missing (scripts/lib.sh installs it)", pytrace=False)
    deep = tmp_path / ("a-rather-long-folder-name-" * 3) / "and-a-long-file-name.wav"
    deep.parent.mkdir(parents=True)
    write_wav(deep, noise(3 * RATE, 2), RATE)
    sock = "gst-fx-test-%d" % os.getpid()
    done = tmp_path / "done"
    if command == "process":
        run = "%s process --chain %s %s %s" % (
            shlex.quote(gst_fx_path()), shlex.quote(CHAIN), shlex.quote(str(deep)),
            shlex.quote(str(tmp_path / "o.wav")))
    else:  # the summary line (stdout) is not the progress line: away from the pane
        run = "%s batch -r --chain %s -o %s %s >/dev/null" % (
            shlex.quote(gst_fx_path()), shlex.quote(CHAIN), shlex.quote(str(tmp_path / "o")),
            shlex.quote(str(tmp_path)))
    # the pane's command: gst-fx, its status, then stay so that the pane can be read
    cmd = "%s; echo status=$? > %s; tmux -L %s wait-for -S fx; sleep 600" % (
        run, shlex.quote(str(done)), sock)
    env = dict(os.environ)
    env.pop("TMUX", None)
    subprocess.run(["tmux", "-L", sock, "-f", "/dev/null", "new-session", "-d", "-x", "50", "-y",
                    "20", "bash", "-c", cmd], check=True, env=env, timeout=60)
    try:
        subprocess.run(["tmux", "-L", sock, "wait-for", "fx"], check=True, env=env, timeout=120)
        pane = subprocess.run(["tmux", "-L", sock, "capture-pane", "-p"], env=env,
                              capture_output=True, text=True, check=True, timeout=60).stdout
    finally:
        subprocess.run(["tmux", "-L", sock, "kill-server"], env=env, timeout=60)
    assert done.read_text().strip() == "status=0", pane
    shown = [l for l in pane.splitlines() if l.strip()]
    # one progress line, redrawn in place: not one wrapped line per update
    assert len(shown) == 1, pane
    line = shown[0]
    assert len(line) <= 49 and "100%" in line and line.startswith("["), line
    if command == "process":
        # the file name is cut in its middle: its start and its end stay, the line uses the width
        assert "..." in line and line.endswith("-name.wav") and len(line) >= 45, line


def test_audio_from_or_to_a_terminal_is_refused(wav, tmp_path):
    """Binary audio on a terminal, or waiting for it to be typed, is never what was meant."""
    import pty
    src, _ = wav
    for side, args in (("stdout", [str(src), "-"]), ("stdin", ["-", str(tmp_path / "o.wav")])):
        master, slave = pty.openpty()
        p = subprocess.run([gst_fx_path(), "process", "--chain", "fxgain", *args],
                           stderr=subprocess.PIPE, text=True, timeout=60, **{side: slave})
        os.close(slave)
        os.close(master)
        assert p.returncode == 2, (side, p.stderr)
        err = p.stderr.splitlines()
        assert len(err) == 2 and "terminal" in err[0], err
    assert not (tmp_path / "o.wav").exists()


def test_signal_while_reading_stdin_removes_the_copy(wav, tmp_path):
    """gst-fx waits for the end of standard input; SIGTERM meanwhile removes its copy of it."""
    import signal
    import time
    src, _ = wav
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    p = subprocess.Popen([gst_fx_path(), "process", "--chain", "fxgain", "-",
                          str(tmp_path / "o.wav")], stdin=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=dict(os.environ, TMPDIR=str(tmp)))
    p.stdin.write(src.read_bytes()[:1000])  # the start of a file, and the pipe stays open
    p.stdin.flush()
    deadline = time.monotonic() + 60
    while not os.listdir(tmp) and time.monotonic() < deadline:  # the copy appears
        time.sleep(0.02)
    assert os.listdir(tmp), "no copy of standard input in TMPDIR"
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=60)
    p.stdin.close()
    assert p.returncode == -signal.SIGTERM, (p.returncode, p.stderr.read())
    assert os.listdir(tmp) == [] and not (tmp_path / "o.wav").exists()
