"""CLI transcripts of ``corefio score``'s text output (issue 22): the compact table,
the reference scorer's transcript under ``--format scorer``, one rounding rule; and the
noise rules: -q, -v, repeated diagnostics grouped, notes on stderr."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import corefio.web.app

from corefio.diagnostics import Diagnostic, Report
from corefio.scoring.render import percent

from .conftest import DATA, SAMPLES

KEY, RESPONSE = SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml"
CASES = DATA / "scorer-testcases" / "DataFiles"


def test_score_prints_a_compact_table(cli):
    result = cli("score", KEY, RESPONSE)
    assert result.exit_code == 0
    table, settings = result.stdout.split("\n\n")
    assert " ".join(settings.split()) == (
        "settings (no preset; scorer.pl 8.01's but for the metrics: --preset conll2012): exact matching, "
        "singletons kept, zeros left out, a span in two chains counted as scorer.pl does; metrics muc, bcub, "
        "ceafm, ceafe, blanc, lea, conll")
    assert table.splitlines() == [
        "metric       recall  precision         F1",
        "muc           84.62      78.57      81.48",
        "bcub          73.78      49.21      59.04",
        "ceafm         52.94      52.94      52.94",
        "ceafe         38.69      51.59      44.22",
        "blanc         62.18      59.56      58.94",
        "lea           68.63      36.27      47.46",
        "conll                               61.58",
        "mentions     100.00     100.00     100.00",
    ]


def _before_settings(text: str) -> list[str]:
    """The lines of a score's text output before its settings (and the blank line before them)."""
    lines = text.splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith("settings ("))
    assert lines[end - 1] == ""
    return lines[:end - 1]


def test_per_document_adds_one_row_per_document(cli):
    lines = _before_settings(cli("score", KEY, RESPONSE, "-m", "muc,conll", "--per-document").stdout)
    assert lines[-2].split() == ["document", "muc", "bcub", "ceafe", "conll", "mentions", "(F1,", "%)"]
    assert lines[-1].split() == ["peaks", "(part", "000)", "81.48", "59.04", "44.22", "61.58", "100.00"]


def test_format_scorer_is_the_reference_transcript_as_before(cli):
    golden = (DATA / "cli" / "scorer-transcript-all.txt").read_text()
    result = cli("score", KEY, RESPONSE, "-m", "all", "--per-document", "--macro", "--format", "scorer")
    assert result.exit_code == 0
    assert result.stdout == golden


def test_rounding_is_half_up_in_the_table_and_truncation_only_in_the_transcript(cli):
    # MUC recall 11/13 = 84.615...%: the table rounds (84.62), scorer.pl truncates (84.61)
    assert "84.62" in cli("score", KEY, RESPONSE, "-m", "muc").stdout
    assert "(11 / 13) 84.61%" in cli("score", KEY, RESPONSE, "-m", "muc", "--format", "scorer").stdout
    data = json.loads(cli("score", KEY, RESPONSE, "-m", "muc", "--format", "json").stdout)
    assert data["corpus"]["muc"]["recall"]["value"] == pytest.approx(11 / 13, abs=1e-15)  # JSON: full value


@pytest.mark.parametrize("value, shown", [
    (11 / 13, "84.62"), (Fraction(11, 13), "84.62"), (0.84625, "84.63"), (0.846249, "84.62"),
    (0.00005, "0.01"), (0.000049, "0.00"), (1, "100.00"), (0.0, "0.00"), (None, "–"),
])
def test_percent_rounds_half_up_on_the_decimal_value(value, shown):
    assert percent(value) == shown


def test_web_uses_the_same_rounding():
    source = (Path(corefio.web.app.__file__)).read_text()
    assert 'templates.env.filters["pct"] = percent' in source


def test_sync_table_uses_the_same_rounding(cli):
    result = cli("score", KEY, RESPONSE, "-m", "muc", "--sync", "key")
    assert "84.62 / 78.57 / 81.48" in result.stdout


def test_help_and_web_pages_have_no_internal_words(cli):
    from corefio.cli import app

    commands = [c.name for c in app.registered_commands]
    assert {"score", "sync", "serve", "convert", "info"} <= set(commands)
    for command in commands:
        text = cli(command, "--help").stdout
        assert "seed 0" not in text, command
    templates = Path(corefio.web.app.__file__).parent / "templates"
    for page in templates.glob("*.html"):
        assert "seed 0" not in page.read_text(), page.name


def test_grouped_diagnostics_one_line_per_code():
    report = Report("corpus.conll")
    for n in range(1, 5):
        report.warning("conll.part", "part number '0' is not 3 digits", line=10 * n, document=f"d{n}")
    report.warning("conll.other", "something else", line=3)
    groups = Report.group(report)
    assert [g.first.code for g in groups] == ["conll.part", "conll.other"]
    assert groups[0].count == 4
    assert groups[0].format() == ("corpus.conll:10: warning[conll.part]: part number '0' is not 3 digits "
                                  "[document 'd1'] [4 in all, in 4 places; -v lists them]")
    assert groups[1].format() == Diagnostic("conll.other", "warning", "something else", "corpus.conll", 3).format()


def _several_documents(tmp_path):
    path = tmp_path / "three.conll"
    path.write_text("".join(f"#begin document (d{n}); part 0\nd{n} 0 0 w (1)\n\n#end document\n"
                            for n in range(3)))
    return path


def test_cli_groups_repeated_warnings_and_verbose_lists_them(cli, tmp_path):
    key = _several_documents(tmp_path)
    response = tmp_path / "response.conll"
    response.write_bytes(key.read_bytes())
    grouped = cli("score", key, response, "-m", "muc").output
    lines = [line for line in grouped.splitlines() if "warning[" in line]
    assert len(lines) == 2, grouped  # one line per code, not one per file
    assert lines[0] == (f"{key}:1: warning[conll.header]: part number '0' is not 3 digits (3 times) "
                        "[6 in all, in 2 places; -v lists them]")
    verbose = [line for line in cli("score", key, response, "-m", "muc", "-v").output.splitlines()
               if "warning[" in line]
    assert len(verbose) == 4 and f"{response}:1: warning[conll.header]" in verbose[2]


def test_quiet_prints_errors_only(cli, tmp_path):
    path = _several_documents(tmp_path)
    out = tmp_path / "out.raf.xml"
    result = cli("convert", path, out, "-q")
    assert result.exit_code == 0
    assert result.output == ""
    assert out.exists()
    failed = cli("info", tmp_path / "missing.conll", "-q")
    assert failed.exit_code == 3 and "no such file" in failed.output


def test_no_progress_bar_when_stderr_is_not_a_terminal(cli, tmp_path):
    path = _several_documents(tmp_path)
    result = cli("info", path, "-q")
    assert "documents" not in result.output.replace("document(s)", "")
    assert "\r" not in result.output


def test_kinds_of_loss_are_counted_once_per_code_across_documents(cli, tmp_path):
    # four CorefUD documents to CoNLL-2012: the same five kinds of loss in every document
    source = tmp_path / "four.conllu"
    source.write_bytes(b"".join(path.read_bytes() for path in
                                sorted((DATA / "corpora" / "gum-genres" / "conllu").glob("*.conllu"))))
    result = cli("convert", source, tmp_path / "four.conll")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[-1] == f"converted {source} -> {tmp_path / 'four.conll'} (5 kind(s) of loss reported)"
    warnings = [line for line in lines if "warning[loss." in line]
    assert len(warnings) == 5  # one line per kind (the old output: one per kind and document)
    assert any("[101 in all, in 4 places; -v lists them]" in line for line in warnings)


def test_progress_bar_only_on_a_terminal(monkeypatch):
    import io

    from corefio import cli as cli_module

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(cli_module, "PROGRESS_DELAY", 0)
    monkeypatch.setattr(cli_module, "_verbosity", 0)
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert list(cli_module._progress(iter(range(3)), "corpus.conll")) == [0, 1, 2]
    assert "corpus.conll" in terminal.getvalue() and "documents" in terminal.getvalue()
    pipe = io.StringIO()  # not a terminal: nothing
    monkeypatch.setattr("sys.stderr", pipe)
    assert list(cli_module._progress(iter(range(3)), "corpus.conll")) == [0, 1, 2]
    assert pipe.getvalue() == ""
    monkeypatch.setattr("sys.stderr", terminal := Terminal())
    monkeypatch.setattr(cli_module, "_verbosity", -1)  # -q: nothing either
    assert list(cli_module._progress(iter(range(3)), "corpus.conll")) == [0, 1, 2]
    assert terminal.getvalue() == ""


def test_validate_writes_to_output_option(cli, tmp_path):
    out = tmp_path / "verdict.txt"
    result = cli("validate", KEY, "-o", out)
    assert result.exit_code == 0 and result.stdout == ""
    assert out.read_text().splitlines()[-1] == f"{KEY}: valid (0 error(s), 0 warning(s))"
