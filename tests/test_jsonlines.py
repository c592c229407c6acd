"""jsonlines (e2e-coref): clusters, speakers, extra keys, errors, round trips."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import corefio
from corefio.diagnostics import Report
from corefio.errors import FormatError
from corefio.formats import jsonlines
from corefio.model import Corpus, Document, Link, Markable, Tokens

from .conftest import DATA
from .strategies import documents

SINGE = DATA / "corpora/democrat-singe-jsonlines/singe.jsonlines"


def test_singe_round_trips_byte_for_byte():
    corpus = corefio.read(SINGE)
    doc = corpus.documents[0]
    assert (doc.name, doc.part) == ("ge/articleswiki_singe.xml", "000")
    assert len(doc.tokens.forms) == 1988 and len(doc.sentences) == 68
    chains = doc.chains()
    assert len(chains) == 388 and sum(1 for c in chains if len(c) == 1) == 321
    assert sum(len(c) for c in chains) == 562
    layout = doc.layout["jsonlines"]
    assert json.loads(doc.metadata["paragraphs"])[:2] == [[0, 0], [1, 36]]
    assert layout.keys == ["doc_key", "clusters", "sentences", "speakers", "paragraphs"]
    assert layout.json_fields == ["paragraphs"]
    assert jsonlines.dumps(corpus) == SINGE.read_text(encoding="utf-8")


def test_clusters_and_speakers():
    line = json.dumps({"doc_key": "bc/x_0", "sentences": [["He", "said"], ["it", "."]],
                       "speakers": [["A", "A"], ["B", "B"]], "clusters": [[[0, 0]], [[2, 2]]]})
    doc = jsonlines.loads(line).documents[0]
    assert (doc.name, doc.part) == ("bc/x", "000")  # e2e-coref's key: NAME_P
    assert doc.tokens.attributes["speaker"] == ["A", "A", "B", "B"]
    assert [[m.spans for m in c] for c in doc.chains()] == [[((0, 0),)], [((2, 2),)]]
    assert jsonlines.dumps(jsonlines.loads(line + "\n")) == line + "\n"
    assert jsonlines.dumps(jsonlines.loads(line)) == line  # no final line end: none written


@pytest.mark.parametrize("line, words", [
    ('{"doc_key": "d", "sentences": [["a"]], "clusters": [[[0, 3]]]}', "outside the 1 tokens"),
    ('{"doc_key": "d", "sentences": [["a"]], "clusters": [[[0]]]}', "is not [start, end]"),
    ('{"doc_key": "d", "sentences": [["a"]]}', "no known jsonlines shape has these keys (doc_key, sentences)"),
    ('{"doc_key": "d", "sentences": [["a"]], "speakers": [], "clusters": []}', "same shape"),
    ('{"doc_key": "d", "sentences": [["a"]], "clusters": []', "not valid JSON"),
    ('[1, 2]', "JSON object"),
])
def test_bad_lines_name_the_line(line, words):
    text = '{"doc_key": "ok", "sentences": [["a"]], "clusters": []}\n' + line + "\n"
    with pytest.raises(FormatError) as info:
        jsonlines.loads(text, file="t.jsonlines")
    assert info.value.line == 2 and words in str(info.value)


def test_losses_are_reported():
    doc = Document(name="x", metadata={"title": "t"},
                   tokens=Tokens(forms=list("abc"), whitespace=[" ", " ", ""], attributes={"pos": ["A", "B", "C"]}),
                   markables=[Markable(id="m1", spans=((0, 0), (2, 2)), attributes={"k": "v"}),
                              Markable(id="m2", spans=((1, 1),))],
                   links=[Link(id="l", type="bridging", source="m2", target="m1")])
    report = Report()
    corefio.dumps(doc, "jsonlines", report=report)
    assert {"loss.discontinuous", "loss.link-types", "loss.markable-attributes", "loss.whitespace",
            "loss.token-attributes"} <= report.codes()
    assert "loss.metadata" not in report.codes()  # metadata becomes fields


def test_part_and_unknown_fields_survive_conversions(tmp_path):
    """The doc_key part is the document's part: CoNLL writes it in its header; unknown
    fields stay in the jsonlines layout and come back when the document returns."""
    corpus = corefio.read(SINGE)
    report = Report()
    conll_text = corefio.dumps(corpus, "conll", report=report)
    assert conll_text.startswith("#begin document (ge/articleswiki_singe.xml); part 000\n")
    # paragraphs are document data CoNLL cannot hold: reported, not dropped silently
    (loss,) = report.by_code("loss.metadata")
    assert loss.examples == ["paragraphs"] and loss.severity == "warning"
    report = Report()
    corefio.dumps(corpus, "conllu", report=report)
    assert report.by_code("loss.metadata")
    back = corefio.loads(conll_text, "conll").documents[0]
    assert back.key == corpus.documents[0].key
    report = Report()
    again = corefio.dumps(corpus, "jsonlines", report=report)
    assert again == SINGE.read_text(encoding="utf-8")
    assert not [d for d in report if d.severity == "warning"]


def test_metadata_of_other_formats_becomes_fields_and_reads_back():
    doc = Document(name="x", metadata={"title": "[1, 2]", "source": "web"}, tokens=Tokens(forms=["a"]))
    text = corefio.dumps(doc, "jsonlines")
    assert json.loads(text)["title"] == "[1, 2]"  # a string stays a string
    assert corefio.loads(text, "jsonlines").documents[0].metadata == {"title": "[1, 2]", "source": "web"}


@pytest.mark.parametrize("text, words", [
    ('{"doc_key": "a", "sentences": [["x"]], "clusters": [[[0, ' + "1" * 5000 + ']]]}\n', "not valid JSON"),
    ('{"doc_key": "(a); part \u00b2", "sentences": [["x"]], "clusters": []}\n', "ASCII"),
    ('{"doc_key": "a", "sentences": [["x"]], "clusters": []}\r\n{"doc_key": "b", "sentences": [], "clusters": []}\n',
     "line ends mix"),
])
def test_hostile_lines_are_located_errors(text, words):
    with pytest.raises(FormatError) as info:
        jsonlines.loads(text, file="t.jsonlines")
    assert info.value.line in (1, 2) and words in str(info.value)


FORM = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=5)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(forms=FORM, with_links=False, with_attributes=False))
def test_random_documents_round_trip(doc):
    contiguous = [m for m in doc.markables if len(m.spans) == 1]
    doc = doc.copy(**{"markables": contiguous, "links": [], "entities": [], "metadata": {},
                                 "tokens": Tokens(forms=doc.tokens.forms)})
    text = jsonlines.dumps(Corpus(documents=[doc]))
    back = jsonlines.loads(text).documents[0]
    assert back.tokens.forms == doc.tokens.forms
    assert sorted(sorted(m.spans for m in c) for c in back.chains()) == \
        sorted(sorted(m.spans for m in c) for c in doc.chains())
    assert jsonlines.dumps(jsonlines.loads(text)) == text


# -- fuzzer regression: a lone surrogate escape ----------------------------------------------------
def test_fuzz_lone_surrogate_is_a_located_error():
    """jsonlines-roundtrip-write-e1d68711.jsonlines: a form ``"\\ud800"`` was read, and
    dumps() then gave text with U+D800, which no UTF-8 file can hold."""
    path = DATA / "regressions" / "fuzz" / "jsonlines-roundtrip-write-e1d68711.jsonlines"
    with pytest.raises(FormatError, match="lone surrogate") as info:
        corefio.read(path, "jsonlines")
    error = info.value
    assert error.file is not None and path.name in str(error.file)
    assert error.line == 1
    raw = path.read_text(encoding="utf-8").splitlines()[0]
    assert raw[error.column - 1 : error.column - 1 + 6].lower() == "\\ud800"
    with pytest.raises(FormatError, match="lone surrogate"):
        list(corefio.iter_read(path, "jsonlines"))


def _line(form: str) -> str:
    return '{"doc_key": "d", "sentences": [["a", %s]], "clusters": []}\n' % form


@pytest.mark.parametrize("form, lone", [
    ('"\\ud800"', 0), ('"x\\uDBFF"', 0), ('"\\udc00\\ud800"', 0), ('"\\ud800\\ud800\\udc00"', 0),
    ('"\\ud800\\udc00\\udc00"', 2), ('"\\\\ud800\\udc01"', 1),
])
def test_lone_surrogates_are_refused(form, lone):
    """The error points at the ``lone``-th ``\\u`` of the line (pairs are no error)."""
    line = _line(form)
    column = [i for i in range(len(line)) if line.startswith("\\u", i)][lone] + 1
    text = '{"doc_key": "d", "sentences": [["a"]], "clusters": []}\n' + line
    with pytest.raises(FormatError, match="lone surrogate") as info:
        jsonlines.loads(text, file="x.jsonlines")
    assert (info.value.line, info.value.column) == (2, column)


def test_lone_surrogate_in_a_key_or_metadata_is_refused():
    with pytest.raises(FormatError, match="lone surrogate"):
        jsonlines.loads('{"doc_key": "d", "sentences": [["a"]], "clusters": [], "\\udfff": 1}\n')
    with pytest.raises(FormatError, match="lone surrogate"):
        jsonlines.loads('{"doc_key": "d", "sentences": [["a"]], "clusters": [], "x": ["\\ud812"]}\n')


@pytest.mark.parametrize("form, read_as", [
    ('"\\ud83d\\ude00"', "\U0001F600"),  # a pair is one character
    ('"\\\\ud800"', "\\ud800"),  # an escaped backslash: the text \ud800, no escape
    ('"\\u00e9"', "é"),
])
def test_surrogate_pairs_and_escaped_backslashes_are_read(form, read_as):
    corpus = jsonlines.loads(_line(form))
    assert corpus.documents[0].tokens.forms == ["a", read_as]
    text = jsonlines.dumps(corpus)
    text.encode("utf-8")
    assert jsonlines.loads(text).documents == corpus.documents


# -- issue #25: an input without a document is an input error ----------------------------------
@pytest.mark.parametrize("text, line, words", [
    ("", 1, "the file is empty"),
    ("\n  \n\n", 3, "no document"),
])
def test_empty_jsonlines_is_an_input_error(text, line, words, cli, tmp_path):
    src = tmp_path / "in.jsonlines"
    src.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError, match=words) as info:
        corefio.read(src)
    assert info.value.line == line
    for command, code in (("info", 3), ("validate", 4), ("convert", 3)):
        args = [command, src] + ([tmp_path / "out.conll"] if command == "convert" else [])
        result = cli(*args)
        assert result.exit_code == code, (command, result.output)
        assert words in result.output
    assert not (tmp_path / "out.conll").exists()


@pytest.mark.parametrize("first_line", [70_000, (1 << 16) - 1])
def test_a_crlf_file_whose_first_line_is_longer_than_the_head_read_first(tmp_path, first_line):
    """The line end style is the first line end's, wherever it comes: a first line of
    70 KB (one long document), or one whose CR is the last byte of the first 64 KiB
    read (its LF in the next read), is not taken for another style."""
    from corefio import api

    def line(key: str, size: int) -> bytes:
        start = f'{{"doc_key": "{key}", "clusters": [[[0, 0], [1, 1]]], "sentences": [["x", "'.encode()
        end = b'"]]}'
        return start + b"w" * (size - len(start) - len(end)) + end

    path = tmp_path / "long.jsonlines"
    path.write_bytes(line("a", first_line - 1) + b"\r\n" + line("b", 300) + b"\r\n")
    corpus = api.read(path)
    assert [d.name for d in corpus.documents] == ["a", "b"]
    assert corpus.documents[0].layout["jsonlines"].newline == "\r\n"
    assert api.dumps(corpus, "jsonlines").encode() == path.read_bytes()


def test_a_cr_only_file_whose_first_line_is_longer_than_the_head_read_first(tmp_path):
    """Finding the first line end reads past the first 64 KiB; a CR-only file is then
    read whole from its start (nothing of what was read to find it is lost)."""
    from corefio import api

    lines = [json.dumps({"doc_key": key, "pad": "A" * 70_000, "sentences": [["x"]], "clusters": []})
             for key in ("a", "b")]
    path = tmp_path / "cr.jsonlines"
    path.write_bytes("\r".join(lines).encode() + b"\r")
    corpus = api.read(path)
    assert [d.name for d in corpus.documents] == ["a", "b"]
    assert api.dumps(corpus, "jsonlines").encode() == path.read_bytes()
