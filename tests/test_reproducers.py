"""Regression tests for the reliability reproducers of the CoNLL family.

Each input is a byte-for-byte copy in ``tests/data/regressions/`` (listed in its
README.md) of a file of the shared reproducers. Every test names its file. What is
checked: a refused input gives a :class:`FormatError` with the file and line, and the
cheap document scan (what scoring pairs documents by) refuses it the same way; an
accepted input reads back, after being written, to the same documents.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import corefio
from corefio.diagnostics import Report
from corefio.errors import FormatError

from .conftest import DATA

REGRESSIONS = DATA / "regressions"


def path(name: str) -> Path:
    found = REGRESSIONS / name
    assert found.is_file(), f"missing regression input {name}"
    return found


def refused(name: str, fmt: str, line: int, words: str) -> FormatError:
    """Reading ``name`` fails at ``line`` with ``words`` in the message (file named)."""
    with pytest.raises(FormatError) as info:
        corefio.read(path(name), fmt)
    error = info.value
    assert error.line == line, str(error)
    assert name in str(error.file) and words in str(error), str(error)
    return error


def scan_refuses(name: str, line: int, words: str) -> None:
    """The CoNLL document scan (scoring's first step) refuses the file like read()."""
    spec = corefio.get_format("conll")
    with pytest.raises(FormatError) as info:
        spec.scan_keys(path(name))
    assert info.value.line == line and words in str(info.value), str(info.value)


def round_trip(name: str, fmt: str, tmp_path: Path) -> corefio.Corpus:
    """Read, write (under the same file name), read again: the same documents; a file
    corefio wrote back unchanged is also byte-identical. Returns the first reading."""
    report = Report()
    corpus = corefio.read(path(name), fmt, report=report)
    out = tmp_path / name
    data = corefio.dumps(corpus, fmt, report=Report())
    out.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    back = corefio.read(out, fmt)
    assert back.documents == corpus.documents
    assert corefio.dumps(back, fmt) == data
    return corpus


# -- D01, D02: numbers the interpreter cannot convert ------------------------------------------
def test_d01_jsonlines_huge_int_is_a_located_error():
    refused("D01_jsonlines_huge_int.jsonlines", "jsonlines", 1, "not valid JSON")


def test_d02_conll_huge_part_is_a_located_error_in_read_and_scan():
    refused("D02_conll_huge_part.conll", "conll", 1, "part number of 5000 digits")
    scan_refuses("D02_conll_huge_part.conll", 1, "part number")


def test_d02b_conll_superscript_part_is_a_located_error_in_read_and_scan():
    refused("D02b_conll_superscript_part.conll", "conll", 1, "ASCII")
    scan_refuses("D02b_conll_superscript_part.conll", 1, "ASCII")


def test_d02c_jsonlines_superscript_part_is_a_located_error():
    refused("D02c_jsonlines_superscript_part.jsonlines", "jsonlines", 1, "ASCII")


# -- D03, D10, D11: byte order marks and bytes before the first header --------------------------
@pytest.mark.parametrize("side", ["key", "response"])
def test_d03_bom_keeps_the_first_document(side):
    with_bom = corefio.read(path(f"D03_bom_{side}.conll"))
    without = corefio.read(path(f"D03_nobom_{side}.conll"))
    assert [d.name for d in with_bom] == ["A", "B", "C"]
    assert with_bom.documents == without.documents
    spec = corefio.get_format("conll")
    scanned = spec.scan_keys(path(f"D03_bom_{side}.conll"))
    plain = spec.scan_keys(path(f"D03_nobom_{side}.conll"))
    # same documents and lines; the offsets skip the three bytes of the mark
    assert [(n, p, line) for n, p, _, line in scanned] == [(n, p, line) for n, p, _, line in plain]
    assert [off for _, _, off, _ in scanned] == [off + 3 for _, _, off, _ in plain]
    # the views scoring reads, one document at a time from its bytes, are the documents'
    size = path(f"D03_bom_{side}.conll").stat().st_size
    for k, (_, _, offset, line) in enumerate(scanned):
        end = scanned[k + 1][2] if k + 1 < len(scanned) else size
        (view,) = spec.mention_views(path(f"D03_bom_{side}.conll"), report=Report(), select={k},
                                     byte_range=(offset, end, k, line))
        assert view.mentions == without.documents[k].mention_view().mentions


def test_d03_scores_are_the_same_with_and_without_bom():
    plain = corefio.score(path("D03_nobom_key.conll"), path("D03_nobom_response.conll"))
    for key, response in (("bom", "bom"), ("bom", "nobom"), ("nobom", "bom")):
        scores = corefio.score(path(f"D03_{key}_key.conll"), path(f"D03_{response}_response.conll"))
        assert scores.corpus == plain.corpus
    muc = plain.corpus["muc"]
    assert (muc.recall_num, muc.recall_den) == (2, 4)


def test_d10_double_bom_is_refused_by_read_and_scan():
    refused("D10_double_bom.conll", "conll", 1, "second byte order mark")
    scan_refuses("D10_double_bom.conll", 1, "second byte order mark")


def test_d11_utf32_bom_prefix_is_refused_by_read_and_scan():
    refused("D11_utf32bom_prefix.conll", "conll", 1, "UTF-32")
    scan_refuses("D11_utf32bom_prefix.conll", 1, "UTF-32")


def test_text_before_the_first_header_is_refused_by_read_and_scan(tmp_path):
    """What D11 hid: bytes before the first header that are not comments."""
    bad = tmp_path / "prefix.conll"
    bad.write_bytes(b"junk\n" + path("D03_nobom_key.conll").read_bytes())
    with pytest.raises(FormatError, match="outside a document") as info:
        corefio.read(bad)
    assert info.value.line == 1
    with pytest.raises(FormatError, match="outside a document"):
        corefio.get_format("conll").scan_keys(bad)


# -- D04: a header keyword that runs on ---------------------------------------------------------
def test_d04_begin_documente_is_refused_by_read_and_scan():
    refused("D04_begin_document_nonascii.conll", "conll", 2, "malformed '#begin document' line")
    scan_refuses("D04_begin_document_nonascii.conll", 2, "malformed '#begin document' line")


# -- D05: text after the last document ----------------------------------------------------------
@pytest.mark.parametrize("name", ["D05_trailing_after_end.conll", "D05b_trailing_comment_extra_doc.conll"])
def test_d05_comment_after_the_last_document_is_kept_and_not_a_document(name, tmp_path):
    corpus = round_trip(name, "conll", tmp_path)
    assert [d.name for d in corpus] == ["A"]
    assert corefio.dumps(corpus, "conll") == path(name).read_text(encoding="utf-8")
    spec = corefio.get_format("conll")
    assert [(n, p) for n, p, _, _ in spec.scan_keys(path(name))] == [("A", "000")]
    views = list(spec.mention_views(path(name), report=Report()))
    assert [v.label for v in views] == ["A (part 000)"]
    scores = corefio.score(path(name), path(name))
    assert scores.corpus["muc"].recall_num == scores.corpus["muc"].recall_den == 1


# -- D06: TAB- and space-separated lines in one document ----------------------------------------
@pytest.mark.parametrize("name, first, line", [
    ("D06_mixed_delimiters.conll", "TAB-separated", 3),
    ("D06b_mixed_delimiters_tokens.conll", "space-separated", 3),
    ("D06_min_from_fuzzer.conll", "TAB-separated", 3),
])
def test_d06_mixed_delimiters_are_a_located_error(name, first, line):
    error = refused(name, "conll", line, "mix TAB-separated and space-separated")
    assert f"line 2 is {first}" in str(error)


# -- D07: comments after the last sentence of a CoNLL-U file ------------------------------------
def test_d07_trailing_comments_are_written_back_readably(tmp_path):
    name = "D07_conllu_trailing_comment.conllu"
    round_trip(name, "conllu", tmp_path)
    text = corefio.dumps(corefio.read(path(name)), "conllu")
    assert text == path(name).read_text(encoding="utf-8")


def test_d07_file_cut_inside_its_last_comment_is_refused():
    # the fuzzer's file ends with "#" and no line end: a cut file (issue #25)
    refused("D07_min_from_fuzzer.conllu", "conllu", 4, "ends inside a comment line")


# -- D08: inputs without a word -----------------------------------------------------------------
def test_d08_comment_only_conll_is_refused():
    # a file without a document is an input error, not an empty corpus (issue #25)
    refused("D08_empty_document.conll", "conll", 1, "no document")
    scan_refuses("D08_empty_document.conll", 1, "no document")


def test_d08b_conllu_sentence_of_multiword_lines_only_is_refused():
    refused("D08b_empty_document.conllu", "conllu", 2, "sentence without words")


# -- E01, E02: other line ends ------------------------------------------------------------------
@pytest.mark.parametrize("name, newline", [
    ("E01_conllu_cr_only.conllu", "\r"),
    ("E02_conllu_crlf.conllu", "\r\n"),
    ("E02b_conllu_crlf_misc_kept_cr.conllu", "\r\n"),
])
def test_e01_e02_line_ends_are_read_and_kept(name, newline, tmp_path):
    corpus = round_trip(name, "conllu", tmp_path)
    assert corpus.documents and all(d.markables for d in corpus)
    doc = corpus.documents[0]
    assert doc.layout["conllu"].newline == newline
    assert not any("\r" in (v or "") for column in doc.tokens.attributes.values() for v in column)
    assert not any("\r" in str(v) for m in doc.markables for v in m.attributes.values())
    assert corefio.dumps(corpus, "conllu").encode("utf-8") == path(name).read_bytes()


def test_e02_lf_copy_reads_the_same_mentions():
    crlf = corefio.read(path("E02_conllu_crlf.conllu")).documents[0]
    lf = corefio.loads(path("E02_conllu_crlf.conllu").read_bytes().replace(b"\r\n", b"\n"), "conllu",
                       name="E02_conllu_crlf.conllu").documents[0]
    assert [m.spans for m in crlf.markables] == [m.spans for m in lf.markables]
    assert crlf.tokens == lf.tokens


@pytest.mark.parametrize("fmt, text", [
    ("conllu", b"# newdoc id = a\r\n1\tx\t_\t_\t_\t_\t0\troot\t_\t_\n\n"),
    ("conll", b"#begin document (a); part 000\r\na\t0\t0\tx\t-\t*\t-\t-\t-\t-\t*\t(1)\n\n#end document\n"),
])
def test_mixed_line_ends_are_a_located_error(fmt, text):
    with pytest.raises(FormatError, match="line ends mix") as info:
        corefio.loads(text, fmt)
    assert info.value.line == 2


def test_every_copied_reproducer_is_tested():
    tested = {
        "D01_jsonlines_huge_int.jsonlines", "D02_conll_huge_part.conll", "D02b_conll_superscript_part.conll",
        "D02c_jsonlines_superscript_part.jsonlines", "D03_bom_key.conll", "D03_bom_response.conll",
        "D03_nobom_key.conll", "D03_nobom_response.conll", "D04_begin_document_nonascii.conll",
        "D05_trailing_after_end.conll", "D05b_trailing_comment_extra_doc.conll", "D06_min_from_fuzzer.conll",
        "D06_mixed_delimiters.conll", "D06b_mixed_delimiters_tokens.conll", "D07_conllu_trailing_comment.conllu",
        "D07_min_from_fuzzer.conllu", "D08_empty_document.conll", "D08b_empty_document.conllu",
        "D10_double_bom.conll", "D11_utf32bom_prefix.conll", "E01_conllu_cr_only.conllu",
        "E02_conllu_crlf.conllu", "E02b_conllu_crlf_misc_kept_cr.conllu",
    }
    present = {p.name for p in REGRESSIONS.iterdir() if p.suffix in (".conll", ".conllu", ".jsonlines")}
    assert present == tested
    readme = (REGRESSIONS / "README.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in readme for name in tested)
    # the copies are the shared files, byte for byte, where those are at hand
    shared = Path(__file__).resolve().parents[2] / "shared" / "reproducers"
    if shared.is_dir():
        for name in tested:
            if (shared / name).is_file():
                assert (shared / name).read_bytes() == (REGRESSIONS / name).read_bytes(), name


def test_streaming_conversion_of_a_reproducer_gives_what_read_gives(tmp_path):
    """The streaming reader (conversions) and read() agree on an accepted reproducer."""
    source = tmp_path / "D05b_trailing_comment_extra_doc.conll"
    shutil.copy(path("D05b_trailing_comment_extra_doc.conll"), source)
    assert list(corefio.iter_read(source)) == corefio.read(source).documents
