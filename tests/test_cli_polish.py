"""The command line's polish (the "first hour" issue): help that names values rather than
Python types, ``info`` totals with empty nodes apart from tokens, ``validate`` one line per
kind of finding at the file and line where it happened first."""

from __future__ import annotations

import json
import re

import pytest
import typer.main

from corefio.cli import app

from .conftest import DATA, SAMPLES

COMMANDS = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
#: what the help once printed: ``<list[Path]>``, ``<str>``, ``<int range>``, ``{files}...``
#: ({page} is serve's --docs-url template, written as the user writes it)
PYTHON_TYPES = re.compile(r"<(?:list\[|str>|int|float|path|bool|text>)|\{(?!page\})\w+\}|list\[|NoneType|typing\.")


# -- help --------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", COMMANDS)
def test_help_names_values_not_python_types(cli, command):
    result = cli(command, "--help")
    assert result.exit_code == 0
    assert not PYTHON_TYPES.search(result.stdout), PYTHON_TYPES.search(result.stdout)
    usage = result.stdout.splitlines()[0]
    assert usage.startswith("Usage: ") and "[OPTIONS]" in usage
    # every argument in capitals on the usage line, and in the Arguments section
    words = usage.split("[OPTIONS]", 1)[1].split()
    assert all(re.fullmatch(r"\[?[A-Z_]+(\.\.\.)?\]?", w) for w in words), usage


def test_help_shows_what_each_value_is(cli):
    info = cli("info", "--help").stdout
    assert info.splitlines()[0].endswith("info [OPTIONS] FILES...")
    for shown in ("FILES...  files to describe", "--from FORMAT", "--format [text|json]", "-o, --output PATH",
                  "-j, --jobs N"):
        assert shown in info, shown
    assert "convert [OPTIONS] SOURCE [TARGET]" in cli("convert", "--help").stdout
    agree = cli("agree", "--help").stdout
    assert "agree [OPTIONS] ANNOTATION..." in agree and "ANNOTATION......" not in agree
    score = " ".join(cli("score", "--help").stdout.split())
    for shown in ("-m, --metric METRIC", "--coefficients K1,K2,K3,K4", "--type-attribute ATTRIBUTE",
                  "--preset NAME", "--zero-match [dependent|linear]"):
        assert shown in score, shown
    assert "--confidence NUMBER" in " ".join(cli("compare", "--help").stdout.split())


# -- info --------------------------------------------------------------------------------------
ZEROS = DATA / "wild" / "conllu" / "corefud-scorer" / "TC-ZA.key.conllu"
FOUR = DATA / "wild" / "conll2012" / "allennlp" / "coref.gold_conll"


def test_info_counts_empty_nodes_apart_from_tokens(cli):
    """A CorefUD empty node is no word of the text: udapi counts 19 words and 1 empty node."""
    manifest = json.loads((DATA / "wild" / "conllu" / "manifest.json").read_text(encoding="utf-8"))
    judged = next(e["judge_counts"] for e in manifest if e["path"].endswith("TC-ZA.key.conllu"))
    (doc,) = json.loads(cli("info", ZEROS, "--format", "json").stdout)[0]["documents"]
    assert (doc["tokens"], doc["empty_nodes"]) == (judged["tokens"], judged["empty_nodes"]) == (19, 1)
    assert "19 tokens (and 1 empty node), 2 sentences" in cli("info", ZEROS).stdout
    assert "empty node" not in cli("info", SAMPLES / "key.raf.xml").stdout


def test_info_sums_each_file_and_all_files(cli):
    out = cli("info", FOUR, ZEROS, SAMPLES / "key.raf.xml").stdout.splitlines()
    assert [line.split(":")[0] for line in out if not line.startswith(" ")] == \
        [str(FOUR), str(ZEROS), str(SAMPLES / "key.raf.xml")]
    assert out[5] == ("  total of the file: 173 tokens, 9 sentences, 13 markables (0 discontinuous), 7 chains "
                      "(2 singletons), 7 entities, links: none")
    assert out[-1] == ("  total of the 3 files: 6 documents, 308 tokens (and 1 empty node), 18 sentences, "
                       "36 markables (0 discontinuous), 14 chains (3 singletons), 10 entities, links: coreference: 13")
    assert sum(1 for line in out if "total of the file" in line) == 1  # a file of one document needs none
    data = json.loads(cli("info", FOUR, "--format", "json").stdout)[0]
    assert data["total"]["documents"] == 4 and data["total"]["tokens"] == sum(d["tokens"] for d in data["documents"])


# -- validate ----------------------------------------------------------------------------------
def _crossings(n: int) -> str:
    """``n`` documents, each with one pair of crossing mentions."""
    docs = []
    for k in range(n):
        docs.append(f"#begin document (d{k}); part 000\n"
                    f"d{k}\t0\t0\tThe\tDT\t*\t-\t-\t-\t-\t*\t(1\n"
                    f"d{k}\t0\t1\tbig\tJJ\t*\t-\t-\t-\t-\t*\t(2\n"
                    f"d{k}\t0\t2\tdog\tNN\t*\t-\t-\t-\t-\t*\t1)\n"
                    f"d{k}\t0\t3\tbarked\tVBD\t*\t-\t-\t-\t-\t*\t2)\n\n#end document\n")
    return "".join(docs)


def test_validate_prints_one_line_per_kind_at_its_first_line(cli, tmp_path):
    path = tmp_path / "x.conll"
    path.write_text(_crossings(3))
    out = cli("validate", path)
    assert out.exit_code == 0
    assert out.stdout.splitlines() == [
        f"{path}:3: warning[model.crossing-mentions]: mentions overlap without nesting [document 'd0 (part 000)']; "
        "e.g. 'The big dog' × 'big dog barked' [3 in all, in 3 places; -v lists them]",
        f"{path}: valid (0 error(s), 3 warning(s))"]
    assert "markable_" not in out.stdout
    every = cli("validate", "-v", path).stdout.splitlines()
    assert [line.split(": ")[0] for line in every[:-1]] == [f"{path}:3", f"{path}:10", f"{path}:17"]
    data = json.loads(cli("validate", path, "--format", "json").stdout)[0]
    assert [d["line"] for d in data["diagnostics"]] == [3, 10, 17]


def test_validate_of_the_real_webanno_file_says_its_84_duplicate_mentions_once(cli):
    path = DATA / "wild" / "inception" / "webanno" / "coref.tsv"
    lines = cli("validate", path).stdout.splitlines()
    assert lines[0].startswith(f"{path}:1792: warning[model.duplicate-mention]: markables with identical spans")
    assert "(84 times)" in lines[0] and len(lines) == 2


# -- one rounding rule -------------------------------------------------------------------------
CASES = DATA / "scorer-testcases" / "DataFiles"


def test_sync_rounds_half_up_as_the_table_does(cli):
    """Mention F1 2/3 = 66.666…%: ``--sync`` once truncated it (66.66) as scorer.pl's
    transcript does; it rounds as every table does (66.67)."""
    out = cli("score", CASES / "TC-A.key", CASES / "TC-A-2.response", "--sync", "all", "-m", "muc").stdout
    assert out.splitlines()[0] == ("Identification of Mentions: Recall: (3 / 6) 50.00%\tPrecision: (3 / 3) 100.00%"
                                   "\tF1: 66.67%")
    transcript = cli("score", CASES / "TC-A.key", CASES / "TC-A-2.response", "-m", "muc", "--format", "scorer").stdout
    assert "F1: 66.66%" in transcript  # scorer.pl's own layout truncates, on purpose


def test_the_universal_anaphora_section_rounds_half_up():
    """84.625% rounds to 84.63 (Python's format rounds the binary value, 84.62)."""
    from corefio.scoring.anaphora import AnaphoraResult
    from corefio.scoring.presets import AnaphoraSettings

    assert f"{0.84625 * 100:.2f}" == "84.62"
    text = AnaphoraResult(AnaphoraSettings(), {"identity": {"muc": (0.84625, 0.5, 0.00005)}}).to_text()
    assert text.splitlines()[-1].split() == ["muc", "84.63", "50.00", "0.01"]
