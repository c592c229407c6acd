"""The sentence level of MMAX2 projects (issue #18): sentences that leave words out or
overlap, and sentence ids and attributes, which the writer keeps (so converting MMAX2
to MMAX2 reports no loss of them)."""

from __future__ import annotations

from pathlib import Path

import pytest

import corefio
import corefio.formats.mmax2  # noqa: F401  (registers the format)
from corefio.diagnostics import Report
from corefio.model import Document, Sentence, Tokens

from .conftest import DATA, SAMPLES
from .test_mmax2 import assert_same_project, content
from .test_mmax2_levels import build_project

SAMPLE = SAMPLES / "mmax2" / "gum_news_worship"
COREF = [("markable_1", "word_2", {"coref_set": "set_1"}), ("markable_2", "word_9", {"coref_set": "set_1"})]


def bounds(doc: Document) -> list[tuple[int, int]]:
    return [(s.first, s.last) for s in doc.sentences]


# -- sentences that do not tile the words ----------------------------------------------------------
def test_words_outside_every_sentence_make_sentences_of_their_own(tmp_path):
    project = build_project(tmp_path / "p", {"coref": COREF, "sentence": [
        ("markable_10", "word_1..word_4", {}), ("markable_11", "word_7..word_8", {})]})
    report = Report()
    doc = corefio.read(project, report=report).documents[0]
    assert bounds(doc) == [(0, 3), (4, 5), (6, 7), (8, 9)]
    assert [s.id for s in doc.sentences] == ["markable_10", None, "markable_11", None]
    assert doc.layers() == [None]  # the sentence level is not kept as a layer besides
    warned = report.by_code("mmax2.sentences-untiled")
    assert len(warned) == 1 and warned[0].severity == "warning" and warned[0].count == 2
    assert "4 of 10 words" in warned[0].message and "words 5-6, 9-10" in warned[0].message
    assert warned[0].file.endswith("doc_sentence_level.xml")
    # one-layer formats get the sentences there are, not one sentence of every word
    conll = corefio.loads(corefio.dumps(doc, "conll", report=Report()), "conll").documents[0]
    assert bounds(conll) == bounds(doc)
    for fmt in ("conllu", "jsonlines"):
        text = corefio.dumps(doc, fmt, report=Report())
        assert bounds(corefio.loads(text, fmt).documents[0]) == bounds(doc), fmt


def test_the_last_words_outside_any_sentence(tmp_path):
    """The real case: a sentence level that ends before the last words."""
    project = build_project(tmp_path / "p", {"coref": COREF, "sentence": [
        ("markable_1", "word_1..word_3", {}), ("markable_2", "word_4..word_7", {})]})
    report = Report()
    doc = corefio.read(project, report=report).documents[0]
    assert bounds(doc) == [(0, 2), (3, 6), (7, 9)]
    assert "3 of 10 words" in report.by_code("mmax2.sentences-untiled")[0].message


def test_overlapping_and_nested_sentences_are_made_to_tile(tmp_path):
    project = build_project(tmp_path / "p", {"coref": COREF, "sentence": [
        ("s1", "word_1..word_5", {}),
        ("s2", "word_2..word_3", {}),  # inside s1: dropped
        ("s3", "word_4..word_7", {}),  # overlaps s1: starts after it
        ("s4", "word_8..word_10", {}),
    ]})
    report = Report()
    doc = corefio.read(project, report=report).documents[0]
    assert bounds(doc) == [(0, 4), (5, 6), (7, 9)]
    assert [s.id for s in doc.sentences] == ["s1", "s3", "s4"]
    warned = report.by_code("mmax2.sentences-overlap")
    assert len(warned) == 1 and warned[0].count == 2
    assert "(s2)" in warned[0].message and "(s3)" in warned[0].message
    assert not report.by_code("mmax2.sentences-untiled")


def test_sentences_made_to_tile_survive_a_round_trip(tmp_path):
    project = build_project(tmp_path / "p", {"coref": COREF, "sentence": [
        ("markable_2", "word_4..word_6", {"type": "main"}), ("markable_1", "word_1..word_3", {})]})
    doc = corefio.read(project).documents[0]
    assert bounds(doc) == [(0, 2), (3, 5), (6, 9)]
    out = tmp_path / "out"
    corefio.write(doc, out, "mmax2")
    report = Report()
    back = corefio.read(out, report=report).documents[0]
    assert bounds(back) == bounds(doc) and back.sentences[1].attributes == {"type": "main"}
    assert back.sentences[0].id == "markable_1" and back.sentences[2].id not in ("markable_1", "markable_2")
    assert not report.warnings
    assert content(back) == content(doc)


def test_a_sentence_level_that_tiles_is_read_without_a_warning(tmp_path):
    project = build_project(tmp_path / "p", {"coref": COREF, "sentence": [
        ("markable_1", "word_1..word_3", {}), ("markable_2", "word_4..word_10", {})]})
    report = Report()
    doc = corefio.read(project, report=report).documents[0]
    assert bounds(doc) == [(0, 2), (3, 9)] and not report.warnings


# -- sentence ids and attributes: kept, so not reported lost ---------------------------------------
def test_mmax2_to_mmax2_strict_is_lossless(cli, tmp_path):
    report = corefio.convert(SAMPLE, tmp_path / "api", to_format="mmax2", strict=True)
    assert not [d for d in report if d.code.startswith("loss.")]
    assert_same_project(SAMPLE, {p.relative_to(tmp_path / "api").as_posix(): p.read_bytes()
                                 for p in (tmp_path / "api").rglob("*") if p.is_file()})
    result = cli("convert", SAMPLE, tmp_path / "cli", "--to", "mmax2", "--strict")
    assert result.exit_code == 0, result.output
    assert "loss." not in result.output and "kind(s) of loss" not in result.output  # (not the paths)
    first, again = corefio.read(SAMPLE).documents[0], corefio.read(tmp_path / "cli").documents[0]
    assert [(s.first, s.last, s.id) for s in again.sentences] == [(s.first, s.last, s.id) for s in first.sentences]
    assert content(again) == content(first)


def test_sentence_ids_and_attributes_written_and_read_back(tmp_path):
    doc = Document(name="d", tokens=Tokens(forms=list("abcdef")),
                   sentences=[Sentence(first=0, last=2, id="s-1", attributes={"speaker": "A"}),
                              Sentence(first=3, last=5, id="s-2")])
    report = Report()
    out = tmp_path / "out"
    corefio.write(doc, out, "mmax2", strict=True, report=report)
    assert not report.by_code("loss.sentence-attributes")
    back = corefio.read(out).documents[0]
    assert [(s.id, s.attributes) for s in back.sentences] == [("s-1", {"speaker": "A"}), ("s-2", {})]


def test_what_the_sentence_level_cannot_hold_is_reported(tmp_path):
    doc = Document(name="d", tokens=Tokens(forms=list("abcdefgh")),
                   sentences=[Sentence(first=0, last=1, id="s", comments=["# text = a b"]),
                              Sentence(first=2, last=3, id="s", attributes={"n": 3}),
                              Sentence(first=4, last=5, attributes={"bad name": "x"}),
                              Sentence(first=6, last=7)])
    report = Report()
    files = corefio.dump_files(doc, "mmax2", report=report)
    lost = {d.code: d for d in report if d.code.startswith("loss.")}
    assert set(lost) == {"loss.sentence-attributes", "loss.value", "loss.label"}
    examples = [e for d in report.by_code("loss.sentence-attributes") for e in d.examples]
    assert "sentence 1: comments" in examples and "s" in examples  # the comment, the repeated id
    assert b"bad name" not in files["Markables/d_sentence_level.xml"]
    out = tmp_path / "out"
    corefio.write(doc, out, "mmax2", report=Report())
    back = corefio.read(out, report=(read := Report())).documents[0]
    assert bounds(back) == bounds(doc) and not read.warnings
    assert len({s.id for s in back.sentences}) == 4 and back.sentences[1].attributes == {"n": "3"}


@pytest.mark.parametrize("source", [DATA / "corpora/gum/coref/ontogum/conllu/GUM_academic_art.conllu"])
def test_conllu_comments_are_the_only_sentence_loss(source):
    report = Report()
    corefio.dump_files(corefio.read(source), "mmax2", report=report)
    lost = report.by_code("loss.sentence-attributes")
    assert lost and all(e.endswith(": comments") for d in lost for e in d.examples)


def test_the_capability_names_the_parts_kept():
    caps = corefio.get_format("mmax2").capabilities
    assert caps.sentence_attributes == frozenset({"id", "attributes"})
    assert Path(SAMPLE).is_dir()


# -- the XSLT engine makes the same sentences (WikiCoref's "Jarvis Island": 139 markables and
# -- 55 sentences from Python, 193 markables and no sentence from the stylesheet before) ----------
#: sentence levels that do not tile the words: (markables, the sentences expected)
UNTILED = {
    "words left out": ([("markable_10", "word_1..word_4", {"type": "a"}), ("markable_11", "word_7..word_8", {})],
                       [(0, 3), (4, 5), (6, 7), (8, 9)]),
    "the last words outside": ([("markable_1", "word_1..word_3", {}), ("markable_2", "word_4..word_7", {})],
                               [(0, 2), (3, 6), (7, 9)]),
    "nested and overlapping": ([("s1", "word_1..word_5", {}), ("s2", "word_2..word_3", {}),
                                ("s3", "word_4..word_7", {}), ("s4", "word_8..word_10", {})],
                               [(0, 4), (5, 6), (7, 9)]),
    "out of order, one word, a gap first": ([("m3", "word_9..word_10", {}), ("m1", "word_3", {}),
                                             ("m2", "word_3..word_6", {}), ("m4", "word_6..word_6", {})],
                                            [(0, 1), (2, 5), (6, 7), (8, 9)]),
    "equal spans": ([("a", "word_1..word_10", {}), ("b", "word_1..word_10", {"x": "y"})], [(0, 9)]),
}


@pytest.mark.parametrize("processor", ["lxml", "xsltproc"])
@pytest.mark.parametrize("case", list(UNTILED))
def test_the_xslt_engine_makes_the_sentences_the_python_reader_makes(tmp_path, case, processor):
    from corefio.transform import engine as xslt_engine

    from .test_xslt_engine import assert_same, need

    need(processor)
    sentences, expected = UNTILED[case]
    project = build_project(tmp_path / "p", {"coref": COREF, "sentence": sentences})
    python = corefio.read(project)
    assert bounds(python.documents[0]) == expected
    report = Report()
    got = xslt_engine.read(project, "mmax2", report=report, processor=processor)
    assert_same(got, python, f"{processor}: {case}")
    assert len(got.documents[0].markables) == 2 and got.documents[0].layers() == [None]
    assert any("rule sentence-level" in d.message for d in report.by_code("xslt.rule"))


def test_many_sentences_that_do_not_tile(tmp_path):
    """2,000 sentences with a gap between every two: the stylesheet's recursion over them is
    as deep as their number's logarithm (a deep one would stop at libxslt's depth limit)."""
    from corefio.transform import engine as xslt_engine

    from .test_xslt_engine import assert_same

    n = 2000
    words = [f"w{k}" for k in range(3 * n)]
    sentences = [(f"s{k}", f"word_{3 * k + 1}..word_{3 * k + 2}", {}) for k in range(n)]
    project = build_project(tmp_path / "p", {"coref": COREF, "sentence": sentences}, words=words)
    python = corefio.read(project)
    assert len(python.documents[0].sentences) == 2 * n
    assert_same(xslt_engine.read(project, "mmax2"), python, "lxml on 2,000 untiled sentences")
