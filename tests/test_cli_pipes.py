"""CLI transcripts for standard input and output: ``-`` for every file argument,
``/dev/stdin`` and ``/dev/stdout``, and formats that are directories (issue 22).

What needs a real process (a shell pipe, ``/dev/stdin``, a reader that leaves) runs
``python -m corefio``; the rest runs in-process with typer's test runner, which gives
the command the bytes of its standard input and keeps stdout apart from stderr."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from corefio.cli import app

from .conftest import REPO, SAMPLES

KEY, RESPONSE = SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml"


def corefio(*args, stdin: bytes | None = None, shell: str | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m corefio`` (or a shell pipeline that uses ``$COREFIO``) in a subprocess."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "COREFIO": f"{sys.executable} -m corefio"}
    if shell is not None:
        return subprocess.run(["sh", "-c", shell], input=stdin, capture_output=True, env=env, cwd=REPO,
                              timeout=120)
    return subprocess.run([sys.executable, "-m", "corefio", *map(str, args)], input=stdin, capture_output=True,
                          env=env, cwd=REPO, timeout=120)


class Done:
    """What :func:`run` gives: as a finished process would (bytes, returncode)."""

    def __init__(self, result) -> None:
        self.returncode = result.exit_code
        self.stdout = result.stdout_bytes
        self.stderr = result.stderr_bytes


def run(*args, stdin: bytes | None = None) -> Done:
    """Run the corefio command line in this process (typer's test runner)."""
    return Done(CliRunner().invoke(app, [str(a) for a in args], input=stdin, catch_exceptions=False))


@pytest.fixture(scope="module")
def conll() -> bytes:
    done = run("convert", KEY, "-", "--to", "conll")
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_convert_to_dash_writes_stdout_and_no_file_named_dash(tmp_path, conll, monkeypatch):
    assert conll.startswith(b"#begin document (peaks); part 000\n")
    monkeypatch.chdir(tmp_path)
    done = run("convert", KEY, "-", "--to", "conll")
    assert not (tmp_path / "-").exists()
    # the note goes to stderr, never into the converted text, and counts kinds of loss
    assert b"converted" not in done.stdout
    assert b"(5 kind(s) of loss reported)" in done.stderr


def test_convert_to_dash_needs_the_format():
    done = run("convert", KEY, "-")
    assert done.returncode == 2
    assert b"name the format with --to" in done.stderr


def test_convert_from_stdin(tmp_path, conll):
    target = tmp_path / "out.conllu"
    done = run("convert", "-", target, "--from", "conll", stdin=conll)
    assert done.returncode == 0, done.stderr
    assert target.read_text().count("# newdoc id") == 1
    assert done.stdout == b""
    assert b"converted - -> " in done.stderr


def test_convert_with_output_option(tmp_path):
    target = tmp_path / "out.conll"
    done = run("convert", KEY, "-o", target)
    assert done.returncode == 0, done.stderr
    assert target.read_text().startswith("#begin document")
    both = run("convert", KEY, target, "-o", target)
    assert both.returncode == 2 and b"give the output once" in both.stderr


def test_info_reads_stdin_and_guesses_its_format(conll):
    for args in (("info", "-", "--from", "conll"), ("info", "-")):
        done = run(*args, stdin=conll)
        assert done.returncode == 0, done.stderr
        assert done.stdout.decode().splitlines()[0] == "-: 1 document(s)"
        assert "17 markables" in done.stdout.decode()


def test_dev_stdin_is_read_once_into_memory(conll):
    done = corefio(shell="cat samples/key.raf.xml | $COREFIO info /dev/stdin")
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().startswith("/dev/stdin: 1 document(s)")


def test_dev_stdout_through_a_pipe():
    done = corefio(shell="$COREFIO convert samples/key.raf.xml /dev/stdout --to conll | cat")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"#begin document (peaks)")


def test_convert_to_stdout_into_head_ends_quietly():
    done = corefio(shell="$COREFIO convert samples/key.raf.xml - --to conll | head -1")
    assert done.stdout.startswith(b"#begin document (peaks); part 000\n")
    assert b"Traceback" not in done.stderr and b"BrokenPipe" not in done.stderr


def test_score_response_from_stdin():
    done = run("score", KEY, "-", stdin=RESPONSE.read_bytes())
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().splitlines()[1].split() == ["muc", "84.62", "78.57", "81.48"]


def test_score_refuses_stdin_twice():
    done = run("score", "-", "-", stdin=b"")
    assert done.returncode == 2
    assert b"<stdin> is given twice" in done.stderr


def test_stdin_errors_name_stdin_not_a_temporary_file():
    done = run("info", "-", "--from", "conll", stdin=b"#begin document (d); part 000\nd 0 0 x (1\n")
    assert done.returncode == 3
    message = done.stderr.decode()
    assert message.startswith("corefio: error: <stdin>:"), message
    assert "corefio-stdin-" not in message


def test_directory_formats_refuse_dash():
    out = run("convert", KEY, "-", "--to", "mmax2")
    assert out.returncode == 2
    assert b"writes a directory of files: standard output ('-') cannot hold it" in out.stderr
    into = run("info", "-", "--from", "mmax2", stdin=b"")
    assert into.returncode == 2
    assert b"reads a directory of files: standard input cannot hold it" in into.stderr


def test_view_writes_stdout():
    done = run("view", KEY, "-o", "-")
    assert done.returncode == 0, done.stderr
    assert done.stdout.lstrip().lower().startswith(b"<!doctype html") or b"<html" in done.stdout[:200]
    assert b"wrote" not in done.stderr


def test_info_and_score_write_to_output_option(tmp_path):
    info = tmp_path / "info.txt"
    assert run("info", KEY, "-o", info).returncode == 0
    assert info.read_text().startswith(f"{KEY}: 1 document(s)")
    scores = tmp_path / "scores.txt"
    assert run("score", KEY, RESPONSE, "-o", scores).returncode == 0
    assert scores.read_text().startswith("metric")


def test_sync_refuses_dash_and_repair_writes_stdout(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    done = run("sync", KEY, RESPONSE, "-o", "-")
    assert done.returncode == 2 and b"standard output ('-') cannot hold them" in done.stderr
    assert not (tmp_path / "-").exists()
    repaired = run("repair", SAMPLES / "muc" / "muc6.key.sgm", "-o", "-")
    assert repaired.returncode == 0
    assert repaired.stdout.startswith(b"<?xml") and b"repaired" in repaired.stderr
