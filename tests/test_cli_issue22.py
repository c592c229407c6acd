"""Transcripts for the items of issue 22 that the other CLI test files left without one:
``/dev/stdin`` and ``/dev/stdout`` for every command, a reader that stops early, ``-o``
on ``compare``, the compact table of ``-m all``, the list of formats when none can be
told, long lists of unpaired documents, the web's mismatch message, and no internal
words in the web's API description or `corefio formats`."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from .conftest import DATA, REPO, SAMPLES

KEY, RESPONSE = SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml"
COREFIO = shlex.join([sys.executable, "-m", "corefio"])
needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash for a real shell pipe")


def shell(script: str, cwd=REPO) -> subprocess.CompletedProcess:
    """Run ``script`` in bash with pipefail (a pipeline's status is its first failure);
    ``$COREFIO`` runs this checkout's corefio."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "COREFIO": COREFIO}
    return subprocess.run(["bash", "-c", f"set -o pipefail; {script}"], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


def documents(*names: str) -> str:
    return "".join(f"#begin document ({name}); part 000\nx 0 0 a (1)\nx 0 1 b (1)\n\n#end document\n"
                   for name in names)


# -- pipes ----------------------------------------------------------------------------------------
@needs_bash
def test_dev_stdin_for_convert_and_score(tmp_path):
    """``/dev/stdin`` as a pipe (not seekable) for convert and score, not only for info."""
    target = tmp_path / "out.conllu"
    done = shell(f"$COREFIO convert samples/key.raf.xml - --to conll -q | "
                 f"$COREFIO convert /dev/stdin {shlex.quote(str(target))} --from conll -q")
    assert (done.returncode, done.stderr) == (0, "")
    assert target.read_text().startswith("# newdoc id = peaks\n")
    done = shell("cat samples/response.raf.xml | $COREFIO score samples/key.raf.xml /dev/stdin -m muc")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].split() == ["muc", "84.62", "78.57", "81.48"]


@needs_bash
@pytest.mark.parametrize("output", ["-", "/dev/stdout"])
def test_a_reader_that_stops_at_once_is_no_error_for_convert_and_view(output):
    """``corefio convert … OUTPUT | true``: the reader leaves before anything is written.
    /dev/stdout is standard output under another name: as quiet as ``-`` (it was exit 6,
    "cannot write: Broken pipe")."""
    for command in (f"convert samples/key.raf.xml {output} --to conll -q", f"view samples/key.raf.xml -o {output}"):
        done = shell(f"$COREFIO {command} | true")
        assert (done.returncode, done.stderr) == (0, ""), command


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_fifo_whose_reader_leaves_is_still_an_error(tmp_path):
    """Only standard output is let go quietly: a FIFO given by name whose reader leaves
    is a failed output (exit 6). The output (about 100 kB) is larger than a pipe holds,
    so the write fails whatever the timing."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    source = DATA / "corpora" / "democrat-singe-jsonlines" / "singe.conll"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    writer = subprocess.Popen([sys.executable, "-m", "corefio", "convert", str(source), str(fifo), "--to", "conll",
                               "-q"], stderr=subprocess.PIPE, text=True, env=env)
    try:
        with open(fifo, "rb") as reader:
            assert reader.read(1) == b"#"
        _, stderr = writer.communicate(timeout=120)
    finally:
        writer.kill()
    assert writer.returncode == 6, stderr
    assert stderr.strip() == f"corefio: error: {fifo}: cannot write: Broken pipe"


def test_compare_writes_to_output_option(cli, tmp_path):
    out = tmp_path / "compare.json"
    result = cli("compare", KEY, RESPONSE, KEY, "-m", "muc", "--samples", "50", "--format", "json", "-o", out)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    data = json.loads(out.read_text())
    assert data["samples"] == 50 and data["scores"]["response.raf.xml"]["muc"]["f1"] == pytest.approx(2 * 11 / 27)


# -- scores ----------------------------------------------------------------------------------------
def test_all_metrics_are_one_row_each(cli):
    """``-m all`` once printed 216 lines of the reference scorer's transcript."""
    from corefio.scoring import resolve_metrics

    names = [name for name in resolve_metrics("all") if name != "mentions"]
    lines = cli("score", KEY, RESPONSE, "-m", "all").stdout.split("\n\n")[0].splitlines()
    assert lines[0].split() == ["metric", "recall", "precision", "F1"]
    assert [line.split()[0] for line in lines[1:]] == [*names, "mentions"]  # mention identification last


# -- errors that help ------------------------------------------------------------------------------
def test_cannot_tell_the_format_lists_every_format_once_and_how_each_is_given(cli, tmp_path):
    from corefio.formats.registry import all_formats

    odd = tmp_path / "notes.dat"
    odd.write_text("hello\n")
    result = cli("info", odd)
    assert result.exit_code == 2
    message = " ".join(result.output.split())
    assert "(formats:" not in message  # one list of formats, not two
    listed = re.findall(r"([\w-]+)(?: \(([^()]*)\))?(?:, |$)", message.split(". Formats: ", 1)[1])
    readable = [spec for spec in all_formats() if spec.can_read]
    assert [name for name, _ in listed] == [spec.name for spec in readable]
    shown = dict(listed)
    assert shown["mmax2"] == "a directory, or its .mmax file"
    assert shown["brat"] == "a directory, or its .ann file"  # not ".mmax": only MMAX2 has those
    assert shown["conll"] == ""


def test_a_long_list_of_unpaired_documents_shows_a_few_of_each(cli, tmp_path):
    key = tmp_path / "key.conll"
    key.write_text(documents(*(f"k{n}" for n in range(8))))
    response = tmp_path / "response.conll"
    response.write_text(documents(*(f"r{n}" for n in range(7)), ""))
    result = cli("score", key, response, "-q")
    assert result.exit_code == 3
    first = result.output.splitlines()[0]
    assert f"{key} (key) and {response} (response)" in first
    assert ("8 key document(s) have no response: 'k0 (part 000)', 'k1 (part 000)', 'k2 (part 000)', "
            "'k3 (part 000)', 'k4 (part 000)', …;") in first
    assert "8 response document(s) have no key: 'r0 (part 000)'" in first and first.endswith(", …")
    assert "'k5 (part 000)'" not in first and "(unnamed)" not in first  # the eighth is not shown


def test_the_web_mismatch_message_names_both_uploads_and_no_cli_only_option():
    """The evaluator has no pairing options: it says so, and how to pair with the command
    line (it used to end with "(use --allow-missing …)", an option the page does not have)."""
    from fastapi.testclient import TestClient

    from corefio.web.app import create_app

    client = TestClient(create_app(), base_url="http://127.0.0.1")
    sent = {"key": ("gold.conll", documents("one", "two")), "response": ("system.conll", documents("", "two"))}
    answer = client.post("/api/score", files=sent)
    assert answer.status_code == 422
    message = answer.json()["message"]
    assert message.startswith("the documents of gold.conll (key) and system.conll (response) do not match: "
                              "1 key document(s) have no response: 'one (part 000)'; "
                              "1 response document(s) have no key: (unnamed) (part 000). ")
    assert "(use --allow-missing" not in message
    assert message.endswith("use the command line: corefio score --pair-by order, --pairs FILE or --allow-missing")


def test_no_internal_words_in_the_web_api_description_or_the_format_list(cli):
    from fastapi.testclient import TestClient

    from corefio.web.app import create_app

    client = TestClient(create_app(), base_url="http://127.0.0.1")
    internal = re.compile(r"\bseed \d{3}\b", re.I)
    for url in ("/", "/convert", "/validate", "/repair", "/openapi.json", "/docs"):
        page = client.get(url)
        assert page.status_code == 200 and not internal.search(page.text), url
    top = cli("--help").stdout
    assert "Commands" in top and not internal.search(top)
    for fmt in ("text", "json"):
        listing = cli("formats", "--format", fmt).stdout
        assert "raf" in listing and not internal.search(listing), fmt


# -- README ----------------------------------------------------------------------------------------
def test_the_readme_installs_extras_from_the_clone():
    """``pip install 'corefio[web]'`` fails in a fresh virtual environment made for a clone:
    every extra is installed as ``'.[extra]'``, the index's name only said beside it."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    lines = [line for line in readme.splitlines() if "pip install" in line]
    assert any("'.[web]'" in line for line in lines)
    for line in lines:
        for target in re.findall(r"pip install '([^']+)'", line):
            assert target.startswith(".[") or "from an index" in line, line
