"""CLI transcripts: what each command prints and its documented exit code."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import corefio
from corefio.checks.info import DocumentInfo, corpus_info
from corefio.formats.registry import all_formats

from .conftest import DATA, SAMPLES

KEY, RESPONSE = SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml"
CASES = DATA / "scorer-testcases" / "DataFiles"


def test_formats_lists_every_format_with_capabilities(cli):
    result = cli("formats")
    assert result.exit_code == 0
    for name in ("raf", "conll", "conllu", "jsonlines"):
        assert name in result.output
    data = json.loads(cli("formats", "--format", "json").output)
    conll = next(f for f in data if f["name"] == "conll")
    assert ".v4_gold_conll" in conll["extensions"]
    assert conll["capabilities"]["discontinuous"] is False


def test_info_counts_what_a_file_holds(cli):
    result = cli("info", KEY)
    assert result.exit_code == 0
    assert "116 tokens" in result.output and "17 markables" in result.output
    data = json.loads(cli("info", RESPONSE, "--format", "json").output)
    (document,) = data[0]["documents"]
    assert (document["markables"], document["chains"]) == (17, 3)


def test_info_counts_the_entities_conll_labels_name(cli, tmp_path):
    # CoNLL never declares entities: its labels are entity ids the markables use
    conll = tmp_path / "two.conll"
    conll.write_text("#begin document (two); part 000\n"
                     "two\t0\t0\tAnna\t(1)\n"
                     "two\t0\t1\tmet\t-\n"
                     "two\t0\t2\tBen\t(2)\n"
                     "two\t0\t3\t;\t-\n"
                     "two\t0\t4\tshe\t(1)\n"
                     "\n#end document\n")
    result = cli("info", conll)
    assert result.exit_code == 0, result.output
    assert "3 markables (0 discontinuous), 2 chains (1 singletons), 2 entities" in result.output
    assert "5-column file" in result.stderr  # a warning, not part of the figures
    (document,) = json.loads(cli("info", conll, "--format", "json").stdout)[0]["documents"]
    assert (document["markables"], document["entities"], document["chains"]) == (3, 2, 2)


def test_the_info_figures_come_from_the_library():
    (info,) = corpus_info(corefio.read(KEY))
    assert isinstance(info, DocumentInfo)
    # the key's chains are made by reflinks: no entity ids
    assert (info.tokens, info.markables, info.chains, info.entities) == (116, 17, 4, 0)
    assert info.as_dict()["links"] == info.links and sum(info.links.values()) > 0


def test_convert_writes_the_target_and_reports_losses(cli, tmp_path):
    target, log = tmp_path / "key.conll", tmp_path / "log.json"
    result = cli("convert", KEY, target, "--log", log)
    assert result.exit_code == 0, result.output
    assert target.read_text().startswith("#begin document (peaks); part 000")
    codes = {d["code"] for d in json.loads(log.read_text())}
    assert "loss.link-structure" in codes  # reflinks become chains: the link layout is lost
    assert "kind(s) of loss reported" in result.output


def test_strict_convert_refuses_a_loss_and_writes_nothing(cli, tmp_path):
    target = tmp_path / "key.conll"
    result = cli("convert", KEY, target, "--strict")
    assert result.exit_code == 5
    assert "loss" in result.output
    assert not target.exists()


def test_an_input_is_never_overwritten(cli, tmp_path):
    source = tmp_path / "key.raf.xml"
    source.write_bytes(KEY.read_bytes())
    result = cli("convert", source, source)
    assert result.exit_code == 6
    assert source.read_bytes() == KEY.read_bytes()


def test_unknown_format_is_a_usage_error(cli, tmp_path):
    result = cli("convert", KEY, tmp_path / "out.txt", "--to", "nope")
    assert result.exit_code == 2
    assert "nope" in result.output


def test_missing_file_is_an_input_error(cli, tmp_path):
    result = cli("info", tmp_path / "missing.xml")
    assert result.exit_code == 3
    assert "no such file" in result.output


def test_validate_a_missing_file_is_an_input_error_too(cli, tmp_path):
    missing = tmp_path / "missing.conll"
    result = cli("validate", missing)
    assert result.exit_code == 3
    assert result.output == f"corefio: error: {missing}: no such file\n"


@pytest.mark.parametrize("command", [
    ["info", "{dir}"],
    ["validate", "{dir}"],
    ["convert", "{dir}", "{tmp}/out.conll"],
    ["view", "{dir}", "-o", "{tmp}/page.html"],
    ["score", "{dir}", str(KEY)],
    ["score", str(KEY), "{dir}"],
])
def test_a_directory_is_not_an_input_of_a_file_format(cli, tmp_path, command):
    directory = tmp_path / "corpus.conll"
    directory.mkdir()
    result = cli(*[arg.format(dir=directory, tmp=tmp_path) for arg in command], "--from", "conll")
    assert result.exit_code == 3
    assert result.output == f"corefio: error: {directory}: is a directory, not a file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.conll"]  # nothing written


def test_a_directory_without_from_is_an_input_error(cli, tmp_path):
    # refused up front, or (when a format reads directories: an MMAX2 project) by
    # that format's reader, which finds no project in it. (``validate`` then reports
    # the reader's finding and exits 4, as for any file it cannot read.)
    directory = tmp_path / "corpus.conll"
    directory.mkdir()
    for command in (["info", directory], ["score", directory, directory], ["score", KEY, directory]):
        result = cli(*command)
        assert result.exit_code == 3, command
        assert result.output.startswith(f"corefio: error: {directory}: ") and "directory" in result.output


def test_version(cli):
    result = cli("--version")
    assert result.exit_code == 0
    assert result.output == f"corefio {corefio.__version__}\n"


def test_the_help_names_the_registered_formats_and_no_others(cli):
    result = cli("--help")
    assert result.exit_code == 0
    text = " ".join(result.output.split())  # undo the help's line wrapping
    listed = re.search(r"Formats: ([^(]*) \(", text).group(1)
    assert listed.split(", ") == [spec.name for spec in all_formats()]
    assert "(MUC, CoNLL" not in text


def test_broken_conll_names_file_and_line(cli, tmp_path):
    broken = tmp_path / "broken.conll"
    broken.write_text("#begin document (d); part 000\nd\t0\t0\tHello\t(1\nd\t0\t1\tworld\t2)\n\n#end document\n")
    result = cli("info", broken)
    assert result.exit_code == 3
    assert f"{broken}:3" in result.output and "closer 2)" in result.output
    assert "Traceback" not in result.output


def test_validate_passes_a_good_file_and_fails_a_bad_one(cli, tmp_path):
    assert cli("validate", KEY).exit_code == 0
    bad = tmp_path / "bad.raf.xml"
    bad.write_text(KEY.read_text().replace('target="markable_1"', 'target="markable_999"', 1))
    result = cli("validate", bad)
    assert result.exit_code == 4
    assert "INVALID" in result.output
    data = json.loads(cli("validate", bad, "--format", "json").output)
    assert data[0]["valid"] is False


def test_score_prints_reference_style_totals(cli):
    result = cli("score", CASES / "TC-A.key", CASES / "TC-A-2.response", "-m", "muc", "--format", "scorer")
    assert result.exit_code == 0
    assert "Coreference: Recall: (1 / 3) 33.33%\tPrecision: (1 / 1) 100%\tF1: 50%" in result.output


def test_score_json_csv_and_output_file(cli, tmp_path):
    data = json.loads(cli("score", KEY, RESPONSE, "--format", "json", "--per-document").output)
    assert data["corpus"]["muc"]["recall"]["num"] == 11
    assert list(data["documents"]) == ["peaks (part 000)"]
    csv_text = cli("score", KEY, RESPONSE, "--format", "csv", "-m", "bcub").output
    assert csv_text.splitlines()[0].startswith("document,metric,recall_num")
    out = tmp_path / "scores.json"
    assert cli("score", KEY, RESPONSE, "--format", "json", "-o", out).exit_code == 0
    assert json.loads(out.read_text())["corpus"]["mentions"]["f1"] == 1.0


def test_score_with_mismatched_documents_is_an_input_error(cli, tmp_path):
    other = tmp_path / "other.conll"
    text = (CASES / "TC-A-1.response").read_text()
    # two documents, none the key's (one each would pair whatever the names: score.paired-single)
    other.write_text(text.replace("(LuoTestCase)", "(Other)") + text.replace("(LuoTestCase)", "(Another)"))
    result = cli("score", CASES / "TC-A.key", other)
    assert result.exit_code == 3
    assert "LuoTestCase" in result.output and "--allow-missing" in result.output


def test_score_unknown_metric_is_a_usage_error(cli):
    result = cli("score", KEY, RESPONSE, "-m", "mucc")
    assert result.exit_code == 2
    assert "unknown metric 'mucc'" in result.output


def test_score_strict_fails_on_a_warning(cli):
    # A9 repeats a response mention: a warning, scored anyway; --strict refuses
    assert cli("score", CASES / "TC-A.key", CASES / "TC-A-9.response").exit_code == 0
    result = cli("score", CASES / "TC-A.key", CASES / "TC-A-9.response", "--strict")
    assert result.exit_code == 5


def test_view_writes_a_page(cli, tmp_path):
    page = tmp_path / "page.html"
    result = cli("view", KEY, "-o", page)
    assert result.exit_code == 0
    assert "The western peak" in page.read_text()


def test_the_console_entry_point_passes_exit_codes_and_flushes(tmp_path):
    """``python -m corefio`` prints its whole output and passes the exit code on."""
    env = dict(os.environ)
    ok = subprocess.run([sys.executable, "-m", "corefio", "score", str(KEY), str(RESPONSE), "--format", "json"],
                        capture_output=True, text=True, env=env, cwd=tmp_path)
    assert ok.returncode == 0
    assert json.loads(ok.stdout)["corpus"]["mentions"]["f1"] == 1.0
    bad = subprocess.run([sys.executable, "-m", "corefio", "info", str(Path(tmp_path) / "none.xml")],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert bad.returncode == 3
    assert bad.stderr.startswith("corefio: error: ")


COREFIO = shlex.join([sys.executable, "-m", "corefio"])


def _piped(command: str, reader: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run ``corefio COMMAND | READER`` in bash; with pipefail, the status is corefio's."""
    return subprocess.run(["bash", "-c", f"set -o pipefail; {COREFIO} {command} | {reader}"],
                          capture_output=True, text=True, cwd=cwd)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash for a real shell pipe")
def test_a_reader_that_stops_early_is_no_error(tmp_path):
    result = _piped("formats", "head -n 1", tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.startswith(all_formats()[0].name)
    assert len(result.stdout.splitlines()) == 1
    # ``true`` reads nothing and exits before corefio has started: every write fails
    for command in ("formats", "formats --format json", f"info {shlex.quote(str(KEY))}", "--version"):
        result = _piped(command, "true", tmp_path)
        assert (result.returncode, result.stderr) == (0, ""), command


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash for a real shell pipe")
def test_a_closed_pipe_keeps_the_exit_code_of_the_command(tmp_path):
    bad = tmp_path / "bad.raf.xml"
    bad.write_text(KEY.read_text().replace('target="markable_1"', 'target="markable_999"', 1))
    result = _piped(f"validate {shlex.quote(str(bad))}", "true", tmp_path)
    assert (result.returncode, result.stderr) == (4, "")
    # nobody reads the error message either: the exit code still says what went wrong
    result = _piped("info missing.conll 2>&1", "true", tmp_path)
    assert (result.returncode, result.stderr) == (3, "")


# -- repair and sync (pivot v2 commands) ------------------------------------------------------------
def test_repair_transcript_lists_changes_and_strict_refuses(cli, tmp_path):
    from .conftest import DATA

    source = DATA / "muc" / "malformed.sgm"
    out = tmp_path / "fixed.xml"
    result = cli("repair", source, "-o", out, "--report", tmp_path / "changes.json")
    assert result.exit_code == 0, result.output
    assert out.exists() and "change(s)" in result.output
    changes = json.loads((tmp_path / "changes.json").read_text())["changes"]
    assert changes and all("line" in c for c in changes)
    strict = cli("repair", source, "-o", tmp_path / "strict.xml", "--strict")
    assert strict.exit_code == 5 and not (tmp_path / "strict.xml").exists()
    assert cli("repair", tmp_path / "missing.sgm", "-o", tmp_path / "x.xml").exit_code == 3


def test_sync_writes_two_files_with_the_same_markables(cli, tmp_path):
    import corefio

    result = cli("sync", SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml", "-o", tmp_path / "out",
                 "--strategy", "union")
    assert result.exit_code == 0, result.output
    key = corefio.read(tmp_path / "out" / "key.raf.xml").documents[0]
    response = corefio.read(tmp_path / "out" / "response.raf.xml").documents[0]
    assert [(m.id, m.spans) for m in key.markables] == [(m.id, m.spans) for m in response.markables]


def test_sync_pairing_errors_list_unpaired_documents(cli, tmp_path):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("peaks\tnowhere\n")
    result = cli("sync", SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml", "-o", tmp_path / "out",
                 "--pairs", pairs)
    assert result.exit_code == 3 and "nowhere" in result.output


def test_convert_passes_declared_options_and_refuses_unknown_ones(cli, tmp_path):
    source = SAMPLES / "key.raf.xml"
    bad = cli("convert", source, tmp_path / "k.conll", "-w", "no_such=1")
    assert bad.exit_code == 2 and "no_such" in bad.output
    good = cli("convert", source, tmp_path / "k.conll", "--canonical")
    assert good.exit_code == 0, good.output


def test_convert_with_the_xslt_engine_shows_the_rules_and_agrees_with_python(cli, tmp_path):
    import corefio

    source = SAMPLES / "muc" / "muc7.key.sgm"
    result = cli("convert", source, tmp_path / "x.raf.xml", "--engine", "xslt")
    assert result.exit_code == 0, result.output
    assert "xslt.rule" in result.output and "muc-to-raf.xsl" in result.output
    assert cli("convert", source, tmp_path / "p.raf.xml").exit_code == 0
    by_xslt = corefio.read(tmp_path / "x.raf.xml").documents[0]
    by_python = corefio.read(tmp_path / "p.raf.xml").documents[0]
    assert [[m.spans for m in c] for c in by_xslt.chains()] == [[m.spans for m in c] for c in by_python.chains()]
    bad = cli("convert", source, tmp_path / "y.raf.xml", "--engine", "xslt", "-w", "x=1")
    assert bad.exit_code == 2


def test_validate_checks_mate_files_against_their_schema(cli, tmp_path):
    text = (SAMPLES / "mate" / "key.mate.xml").read_text(encoding="utf-8")
    assert cli("validate", SAMPLES / "mate" / "key.mate.xml").exit_code == 0
    broken = tmp_path / "broken.mate.xml"
    broken.write_text(text.replace('<coref:doc name="peaks"', '<coref:doc colour="red" name="peaks"', 1),
                      encoding="utf-8")
    result = cli("validate", broken)
    assert result.exit_code == 4 and "schema" in result.output


def test_serve_without_the_web_extra_is_a_usage_error(cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if corefio[web] were not installed
    result = cli("serve")
    assert result.exit_code == 2 and "corefio[web]" in result.output


def test_score_keep_zeros_and_zero_match(cli):
    zeros = DATA / "scorer-testcases" / "corefud" / "zeros"
    args = ("score", zeros / "TC-ZF.key", zeros / "TC-ZF-4.response", "--from", "conllu", "--match", "head",
            "-m", "muc", "--format", "json")
    f1 = {}
    for label, extra in (("drop", ()), ("dependent", ("--keep-zeros",)),
                         ("linear", ("--keep-zeros", "--zero-match", "linear"))):
        result = cli(*args, *extra)
        assert result.exit_code == 0, result.output
        body = json.loads(result.stdout)
        f1[label] = body["corpus"]["muc"]["f1"]
    # corefud-scorer's values for this case (TC-ZF-4: dependent 4/7, linear 6/7)
    assert f1 == pytest.approx({"drop": 1.0, "dependent": 4 / 7, "linear": 6 / 7})
    assert "zero mentions left out" in cli(*args[:-2]).output
    bad = cli(*args, "--keep-zeros", "--zero-match", "nearest")
    assert bad.exit_code != 0
