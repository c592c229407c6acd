"""Damaged input: ``validate`` and the readers give one verdict (issues #18 and #25).

A file cut short, with text or an unclosed comment after its root, or nested thousands of
levels deep is refused by every command: ``validate`` exits 4, ``info``, ``convert`` and
``score`` exit 3, each naming the file and line, without work beyond linear (the work of
corefio's own scanners is counted, never timed); the web application answers likewise. ``validate`` reports an error exactly when ``info`` fails, on every shared
reproducer and on cut copies of every single-file sample.
"""

from __future__ import annotations

import re
import shutil
import warnings
from pathlib import Path

import pytest

import corefio
from corefio.errors import CorefioError, FormatError, UnsafeInputError
from corefio.checks.validation import validate_file
from corefio.io import repair
from corefio.io.xmlsafe import MAX_DEPTH, NestingTooDeepError, parse_xml

from .conftest import SAMPLES, SHARED, shared_data

KEY, RESPONSE = SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml"
KEY_BYTES = KEY.read_bytes()


def located(output: str, path: Path) -> re.Match | None:
    """``path:LINE:COLUMN`` in ``output``."""
    return re.search(re.escape(str(path)) + r":\d+:\d+: ", output)


def refused_everywhere(cli, path: Path, tmp_path: Path) -> None:
    """validate exits 4 (also with --strict), info, convert and score exit 3; each names
    the file with line and column; convert writes nothing."""
    for args in (("validate", path), ("validate", "--strict", path)):
        result = cli(*args)
        assert result.exit_code == 4, result.output
        assert "error[xml.not-well-formed]" in result.stdout and located(result.stdout, path), result.stdout
    out = tmp_path / "out.conll"
    for args in (("info", path), ("convert", path, out), ("score", path, RESPONSE), ("score", RESPONSE, path)):
        result = cli(*args)
        assert result.exit_code == 3, (args, result.output)
        assert "not well-formed XML" in result.stderr and located(result.stderr, path), result.stderr
    assert not out.exists()


# -- 1. a RAF file cut short -----------------------------------------------------------------
@pytest.mark.parametrize("cut", range(37, len(KEY_BYTES) - 1, 37))
def test_a_raf_file_cut_anywhere_is_refused_by_every_command(cli, tmp_path, cut):
    path = tmp_path / "cut.raf.xml"
    path.write_bytes(KEY_BYTES[:cut])
    refused_everywhere(cli, path, tmp_path)


@pytest.mark.parametrize("cut", [400, 2500, len(KEY_BYTES) - 12])
def test_a_cut_raf_file_is_refused_by_view_sync_and_the_xslt_engine(cli, tmp_path, cut):
    path = tmp_path / "cut.raf.xml"
    path.write_bytes(KEY_BYTES[:cut])
    for args in (("view", path, "-o", tmp_path / "view.html"), ("sync", path, RESPONSE, "-o", tmp_path / "synced"),
                 ("convert", path, tmp_path / "out.mate.xml", "--engine", "xslt")):
        result = cli(*args)
        assert result.exit_code == 3 and located(result.stderr, path), (args, result.output)
    assert list(tmp_path.iterdir()) == [path]


def test_a_cut_raf_file_says_it_ends_too_early_and_where(tmp_path):
    path = tmp_path / "cut.raf.xml"
    path.write_bytes(KEY_BYTES[:3000])
    with pytest.raises(FormatError, match="cut short") as refused:
        corefio.read(path)
    assert refused.value.line == KEY_BYTES[:3000].count(b"\n") + 1
    (error,) = validate_file(path).errors
    assert error.code == "xml.not-well-formed" and error.line == refused.value.line
    assert "cut short" in error.message


def test_lenient_reading_never_repairs_raf():
    """Lenient reading used to "repair" a cut file into fewer words and no markables."""
    report = corefio.Report()
    with pytest.raises(FormatError, match="not well-formed"):
        corefio.loads(KEY_BYTES[:3000], "raf", report=report)
    assert not [d for d in report if d.code.startswith("repair.")]


@pytest.fixture(scope="module")
def client():
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    with warnings.catch_warnings():  # starlette's notice about httpx, not ours
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    from corefio.web import create_app

    return TestClient(create_app(), base_url="http://127.0.0.1")


@pytest.mark.parametrize("cut", [200, 1500, 3000, 4500, len(KEY_BYTES) - 10])
def test_the_web_refuses_a_cut_raf_file_and_says_why(client, cut):
    data = KEY_BYTES[:cut]
    for side in ("key", "response"):
        files = {"key": ("key.raf.xml", data if side == "key" else KEY_BYTES),
                 "response": ("response.raf.xml", data if side == "response" else RESPONSE.read_bytes())}
        answer = client.post("/api/score", files=files)
        assert answer.status_code == 422, answer.text
        body = answer.json()
        assert "not well-formed XML" in body["message"] and "cut short" in body["message"]
        assert "same text" not in body["message"]
        assert re.fullmatch(rf"{side}\.raf\.xml:\d+:\d+", body["where"]), body
    # /api/validate answers a verdict (200) on any file it could read: here, invalid, and why
    answer = client.post("/api/validate", files={"file": ("cut.raf.xml", data)})
    assert answer.status_code == 200 and answer.json()["valid"] is False
    (error,) = [d for d in answer.json()["diagnostics"] if d["severity"] == "error"]
    assert error["code"] == "xml.not-well-formed" and error["file"] == "cut.raf.xml" and error["line"] >= 1


# -- 2. what the reader refuses, validate refuses, fast -----------------------------------------
def damaged_raf_files() -> dict[str, bytes]:
    """Small copies of the reproducers S09–S11, built from the key sample."""
    lines = KEY_BYTES.split(b"\n")
    assert lines[7] == b'<w n="2">western</w>'
    return {
        # S10: text after the root element (an unterminated comment)
        "trailing-garbage": KEY_BYTES + b"<!--<!--\n",
        # S11: a comment opened inside a document and never closed
        "unterminated-comment": b"\n".join(lines[:7] + [b"<!--<!--" + lines[7]] + lines[8:]),
        # S09: 80 KB of comment openers (the repair lexer took 14 s and gave 20,000 warnings)
        "unclosed-comments-80KB": b"\n".join(lines[:7] + [b"<!--" * 20_000] + lines[7:]),
    }


@pytest.mark.parametrize("name", sorted(damaged_raf_files()))
def test_damaged_raf_is_refused_by_validate_and_info_without_repair_work(cli, tmp_path, name):
    """Refused by the parser (libxml2, linear): the repair lexer, which once took 14 s on
    S09, never runs, as its counted work says (no time is measured)."""
    path = tmp_path / f"{name}.raf.xml"
    path.write_bytes(damaged_raf_files()[name])
    for command, code in (("validate", 4), ("info", 3)):
        with repair.counting() as work:
            result = cli(command, path)
        assert result.exit_code == code, result.output
        assert located(result.output, path), result.output
        assert work.total == 0, work
        assert "repair" not in result.output


def test_the_counted_work_includes_what_the_cli_does(cli):
    """What makes the counts above mean something: a command run by ``cli`` is counted
    (the MUC reader's scanner runs on a MUC sample)."""
    with repair.counting() as work:
        assert cli("info", SAMPLES / "muc" / "muc7.key.sgm").exit_code == 0
    assert work.chars > 0 and work.steps > 0


@pytest.mark.parametrize("name", ["S09_raf_unclosed_comments_80KB.raf.xml", "S10_raf_trailing_garbage_validate_ok.raf.xml",
                                  "S11_raf_unterminated_comment_inside.raf.xml"])
def test_shared_raf_reproducers_are_refused_without_repair_work(cli, name):
    path = shared_data(f"reproducers/{name}")
    with repair.counting() as work:
        assert cli("validate", path).exit_code == 4
        assert cli("info", path).exit_code == 3
    assert work.total == 0, work


# -- 4. deep nesting ----------------------------------------------------------------------------
def test_the_depth_limit_is_the_documented_one():
    assert parse_xml(b"<a>" * MAX_DEPTH + b"</a>" * MAX_DEPTH).getroot().tag == "a"
    too_deep = b"<a>\n" + b"<a>" * MAX_DEPTH + b"</a>" * (MAX_DEPTH + 1)
    with pytest.raises(NestingTooDeepError, match=f"more than {MAX_DEPTH} levels") as refused:
        parse_xml(too_deep, file="deep.xml")
    assert isinstance(refused.value, UnsafeInputError) and refused.value.line == 2


def nested(depth: int, start: bytes = b"<x>", end: bytes = b"</x>") -> bytes:
    return start * depth + end * depth


def deep_input(fmt: str, depth: int, tmp_path: Path) -> Path:
    """A file (or MMAX2 project) of format ``fmt`` whose elements nest ``depth`` deep."""
    if fmt == "raf":
        path = tmp_path / "deep.raf.xml"
        path.write_bytes(b'<?xml version="1.0"?>\n<struct type="reference_annotation_collection" version="2.0">\n'
                         + nested(depth, b'<struct type="document">', b"</struct>")
                         + b"\n</struct>\n")
    elif fmt == "mate":
        path = tmp_path / "deep.mate.xml"
        path.write_bytes(b'<?xml version="1.0"?>\n<mate xmlns:coref="http://www.w3.org/1999/xlink">\n'
                         + nested(depth, b"<w>", b"</w>") + b"\n</mate>\n")
    elif fmt == "muc":  # MUC as XML: the form `corefio repair` writes
        path = tmp_path / "deep.xml"
        path.write_bytes(b'<?xml version="1.0"?>\n<DOC><DOCNO>d</DOCNO><TEXT>\n'
                         + nested(depth, b'<COREF ID="1">', b"</COREF>")
                         + b"\n</TEXT></DOC>\n")
    else:
        fmt, part = fmt.split(":")
        path = tmp_path / "project"
        shutil.copytree(SAMPLES / "mmax2" / "gum_news_worship", path)
        target = {"words": path / "Basedata" / "GUM_news_worship_words.xml",
                  "markables": path / "Markables" / "GUM_news_worship_coref_level.xml"}[part]
        target.write_bytes(b'<?xml version="1.0"?>\n<' + part.encode() + b">\n" + nested(depth)
                           + b"\n</" + part.encode() + b">\n")
    return path


DEEP_FORMATS = ["raf", "mate", "muc", "mmax2:words", "mmax2:markables"]


@pytest.mark.parametrize("depth", [2_000, 100_000])
@pytest.mark.parametrize("fmt", DEEP_FORMATS)
def test_deep_nesting_is_refused_with_its_line_and_linear_work(tmp_path, fmt, depth):
    """Refused at the element that goes too deep; what corefio's own scanners do on the
    way (the MUC reader's, the repair lexer's) is counted and stays linear in the input
    (the XML formats are refused by libxml2 before any of them runs)."""
    path = deep_input(fmt, depth, tmp_path)
    name = fmt.split(":")[0]
    size = sum(p.stat().st_size for p in ([path] if path.is_file() else path.rglob("*")) if p.is_file())
    with repair.counting() as work:
        with pytest.raises(FormatError) as refused:
            corefio.read(path, name)
        report = validate_file(path, name)
    assert refused.value.line is not None and re.search("nest", str(refused.value)), str(refused.value)
    assert report.errors and report.errors[0].line is not None, report.format()
    assert work.total <= 8 * size, (work, size)
    if name != "muc":
        assert work.total == 0, work


def test_the_web_refuses_deep_raf(client, tmp_path):
    data = deep_input("raf", 100_000, tmp_path).read_bytes()
    converted = client.post("/api/convert", files={"file": ("deep.raf.xml", data)}, data={"to": "conll"})
    scored = client.post("/api/score", files={"key": ("deep.raf.xml", data), "response": ("r.raf.xml", KEY_BYTES)})
    validated = client.post("/api/validate", files={"file": ("deep.raf.xml", data)})
    assert converted.status_code == scored.status_code == 422
    assert converted.json()["where"].startswith("deep.raf.xml:3:")
    assert validated.json()["valid"] is False


# -- 5. validate and info agree -----------------------------------------------------------------
#: not inputs: helper files and a script
NOT_INPUTS = {"README.md", "S00_secret.txt", "S00_victim_words.xml", "D09_validate_twice.py"}


def reproducer_names() -> list[str]:
    folder = SHARED / "reproducers"
    if not folder.is_dir():
        return ["(shared reproducers missing)"]
    return sorted(p.name for p in folder.iterdir() if p.is_file() and p.name not in NOT_INPUTS)


def cut_samples() -> list[tuple[str, str, int]]:
    """(sample, format, cut): every single-file sample, and the key written in every
    other single-file format, cut at six places."""
    samples = [("key.raf.xml", "raf"), ("response.raf.xml", "raf"), ("mate/key.mate.xml", "mate"),
               ("mate/response.mate.xml", "mate"), ("muc/muc6.key.sgm", "muc"), ("muc/muc7.key.sgm", "muc"),
               ("key.raf.xml", "conll"), ("key.raf.xml", "conllu"), ("key.raf.xml", "jsonlines")]
    return [(name, fmt, percent) for name, fmt in samples for percent in (10, 30, 50, 70, 90, 99)]


def agree(cli, path: Path) -> None:
    """validate exits 4 exactly when info fails: exit 3, or 2 when the format cannot be
    told (validate then reports ``format.unknown``)."""
    validated, described = cli("validate", path), cli("info", path)
    assert validated.exit_code in (0, 4), validated.output
    assert described.exit_code in (0, 2, 3), described.output
    assert (validated.exit_code == 4) == (described.exit_code != 0), (validated.output, described.output)


@pytest.mark.parametrize("name", reproducer_names())
def test_validate_reports_an_error_exactly_when_info_fails_on_reproducers(cli, tmp_path, name):
    folder = shared_data("reproducers")
    for helper in ("S00_secret.txt", "S00_victim_words.xml"):
        shutil.copy(folder / helper, tmp_path / helper)
    path = tmp_path / name
    path.write_bytes((folder / name).read_bytes().replace(b"@REPRO@", str(tmp_path).encode()))
    agree(cli, path)


@pytest.mark.parametrize(("name", "fmt", "percent"), cut_samples())
def test_validate_reports_an_error_exactly_when_info_fails_on_cut_samples(cli, tmp_path, name, fmt, percent):
    data = (SAMPLES / name).read_bytes()
    suffix = {"conll": ".conll", "conllu": ".conllu", "jsonlines": ".jsonlines"}.get(fmt)
    if suffix:
        written = corefio.dumps(corefio.loads(data, "raf"), fmt)
        data = written.encode("utf-8") if isinstance(written, str) else written
    path = tmp_path / ("cut" + (suffix or Path(name).name[Path(name).name.index("."):]))
    path.write_bytes(data[: len(data) * percent // 100])
    agree(cli, path)
    if fmt in ("raf", "mate"):  # XML formats: a cut file is always an error
        assert cli("info", path).exit_code == 3


def test_validation_runs_the_reader_it_does_not_second_guess_it(tmp_path):
    """What the reader refuses is an error; what it accepts has no error."""
    good, bad = tmp_path / "good.raf.xml", tmp_path / "bad.raf.xml"
    good.write_bytes(KEY_BYTES)
    bad.write_bytes(KEY_BYTES + b"<struct/>\n")
    assert validate_file(good).errors == []
    with pytest.raises(CorefioError):
        corefio.read(bad)
    assert [d.code for d in validate_file(bad).errors] == ["xml.not-well-formed"]


def test_what_a_lenient_reader_repaired_is_an_error_in_validation(tmp_path):
    """Validity is decided on the bytes as given: an MMAX2 level file with an unquoted
    attribute value reads (repaired, with a warning) but does not validate."""
    project = tmp_path / "project"
    shutil.copytree(SAMPLES / "mmax2" / "gum_news_worship", project)
    level = project / "Markables" / "GUM_news_worship_coref_level.xml"
    lines = level.read_text(encoding="utf-8").split("\n")
    assert 'mmax_level="coref"' in lines[4]
    lines[4] = lines[4].replace('mmax_level="coref"', "mmax_level=coref")
    level.write_text("\n".join(lines), encoding="utf-8")
    report = corefio.Report()
    assert corefio.read(project, "mmax2", report=report).documents
    assert [d.severity for d in report if d.code == "mmax2.repaired"] == ["warning"]
    errors = validate_file(project, "mmax2").errors
    assert [(d.code, d.line) for d in errors] == [("mmax2.repaired", 5)]
    assert validate_file(SAMPLES / "mmax2" / "gum_news_worship", "mmax2").errors == []
