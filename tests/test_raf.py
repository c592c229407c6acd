"""RAF pivot format: golden file, round trips, XSD validity of everything written, errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from lxml import etree

import corefio
from corefio.diagnostics import Report
from corefio.errors import FormatError
from corefio.formats import raf
from corefio.model import Corpus, Document, Entity, Link, Markable, Sentence, Tokens
from corefio.validate import load_schema

from .conftest import DATA, SAMPLES
from .strategies import corpora

GOLDEN = DATA / "golden" / "features.raf.xml"


def features_document() -> Document:
    """A document using every feature of the model once."""
    forms = ["Marie", "Curie", "said", ":", "\u201c", "she", "won", "\u201d", "."]
    return Document(
        name="features & <escapes>",
        part="001",
        metadata={"genre": "test", "conll.begin": "#begin document (x); part 001"},
        tokens=Tokens(
            forms=forms,
            ids=[f"w{i}" for i in range(1, 10)],
            whitespace=[" ", " ", "", " ", "", " ", "", "", "\n"],
            offsets=[(0, 5), (6, 11), (12, 16), (16, 17), (18, 19), (19, 22), (23, 26), (26, 27), (27, 28)],
            attributes={"pos": ["NNP", "NNP", "VBD", ":", "``", "PRP", "VBD", "''", "."],
                        "empty": [None] * 9},
        ),
        sentences=[Sentence(first=0, last=8, id="s1", comments=["# text = Marie Curie said"],
                            interleaved=[(5, "6-7\tshe won\t_")], attributes={"quoted": True})],
        entities=[Entity(id="E1", attributes={"etype": "person", "salience": 0.75})],
        markables=[
            Markable(id="m1", spans=((0, 1),), entity="E1", head=((1, 1),),
                     attributes={"TYPE": "IDENT", "dominant": True, "n": 2}),
            Markable(id="m2", spans=((5, 5),), attributes={"coref_type": "ppas"}),
            Markable(id="m3", spans=((4, 4), (7, 7))),
        ],
        links=[
            Link(id="r1", source="m2", target="m1", attributes={"confidence": 0.5}),
            Link(id="r2", type="bridging", source="m3", target="E1", target_kind="entity"),
        ],
    )


def c14n(data: bytes) -> bytes:
    return etree.tostring(etree.fromstring(data), method="c14n")


def test_golden_file_matches_writer_output():
    written = raf.dumps(Corpus(documents=[features_document()], metadata={"creator": "tests"}))
    assert c14n(written) == c14n(GOLDEN.read_bytes())


def test_golden_file_reads_back_to_the_same_model():
    corpus = corefio.read(GOLDEN)
    assert corpus.documents[0] == features_document()
    assert corpus.metadata == {"creator": "tests"}


def test_round_trip_is_byte_identical():
    data = GOLDEN.read_bytes()
    assert raf.dumps(raf.loads(data)) == data


@pytest.mark.parametrize("path", [GOLDEN, SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml"])
def test_written_files_validate_against_xsd(path):
    schema = load_schema("raf.xsd")
    errors = list(schema.iter_errors(etree.parse(str(path))))
    assert errors == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora())
def test_random_corpora_round_trip_through_raf(corpus):
    data = raf.dumps(corpus)
    back = raf.loads(data)
    assert back == corpus
    assert raf.dumps(back) == data


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora())
def test_random_corpora_written_as_raf_are_schema_valid(corpus):
    schema = load_schema("raf.xsd")
    tree = etree.ElementTree(etree.fromstring(raf.dumps(corpus)))
    assert [e.reason for e in schema.iter_errors(tree)] == []


def test_figure_1_of_seed_003_is_read():
    xml = b"""<?xml version="1.0" encoding="UTF-8" ?>
<struct type="reference_annotation_collection">
  <struct type="document" name="fig1">
    <struct type="primary_data">
      <struct type="word" id="word11"><feat type="form">The</feat></struct>
      <struct type="word" id="word12"><feat type="form">man</feat></struct>
      <struct type="word" id="word18"><feat type="form">he</feat></struct>
    </struct>
    <struct type="markable" id="markable_1">
      <feat type="sourcetext" target="word11..word12">The man</feat>
    </struct>
    <struct type="markable" id="markable_2">
      <feat type="sourcetext" target="word18">he</feat>
    </struct>
    <struct type="reflink" id="reflink_1">
      <feat type="reflinktype">coreference</feat>
      <feat type="source" target="markable_2" />
      <feat type="target" target="markable_1" />
    </struct>
  </struct>
</struct>"""
    doc = raf.loads(xml).documents[0]
    assert [[m.id for m in c] for c in doc.chains()] == [["markable_1", "markable_2"]]
    assert doc.markables[0].spans == ((0, 1),)


def _doc_xml(body: str, words: int = 3) -> bytes:
    ws = "".join(f'<struct type="word" id="w{i}"><feat type="form">x{i}</feat></struct>\n' for i in range(1, words + 1))
    return (f'<struct type="reference_annotation_collection">\n<struct type="document" name="d">\n'
            f'<struct type="primary_data">\n{ws}</struct>\n{body}</struct>\n</struct>\n').encode()


def test_dangling_word_target_names_the_line():
    xml = _doc_xml('<struct type="markable" id="m1">\n<feat type="sourcetext" target="w1..w9"/>\n</struct>\n')
    report = Report("f.raf")
    with pytest.raises(FormatError) as info:
        raf.loads(xml, report=report, file="f.raf")
    assert info.value.line == 9 and "unknown word 'w9'" in str(info.value)
    assert report.errors[0].code == "raf.dangling-target"


def test_dangling_links_are_errors_with_lines():
    xml = _doc_xml(
        '<struct type="markable" id="m1"><feat type="sourcetext" target="w1"/>'
        '<feat type="entity" target="E9"/></struct>\n'
        '<struct type="reflink" id="r1"><feat type="reflinktype">coreference</feat>'
        '<feat type="source" target="m1"/><feat type="target" target="m7"/></struct>\n'
        '<struct type="reflink" id="r2"><feat type="reflinktype">bridging</feat>'
        '<feat type="source" target="m1"/><feat type="target" target="E8" kind="entity"/></struct>\n')
    report = Report()
    with pytest.raises(FormatError):
        raf.loads(xml, report=report)
    codes = [(d.code, d.line) for d in report.errors]
    assert codes == [("raf.dangling-link", 9), ("raf.dangling-link", 10)]


def test_duplicate_ids_are_errors():
    xml = _doc_xml('<struct type="markable" id="m1"><feat type="sourcetext" target="w1"/></struct>\n'
                   '<struct type="markable" id="m1"><feat type="sourcetext" target="w2"/></struct>\n')
    report = Report()
    with pytest.raises(FormatError):
        raf.loads(xml, report=report)
    assert report.errors[0].code == "raf.duplicate-id" and report.errors[0].line == 9


def test_bad_datatype_is_an_error():
    xml = _doc_xml('<struct type="markable" id="m1"><feat type="sourcetext" target="w1"/>'
                   '<feat type="attribute" name="n" datatype="integer">seven</feat></struct>\n')
    with pytest.raises(FormatError, match="attribute 'n'"):
        raf.loads(xml)


def test_unknown_elements_warn_when_lenient_and_fail_when_strict():
    xml = _doc_xml('<struct type="markable" id="m1"><feat type="sourcetext" target="w1"/>'
                   '<feat type="colour">red</feat></struct>\n')
    report = Report()
    corpus = raf.loads(xml, report=report)
    assert len(corpus.documents[0].markables) == 1
    assert report.warnings[0].code == "raf.unexpected"
    with pytest.raises(FormatError, match="unexpected"):
        raf.loads(xml, strict=True)


def test_comma_targets_are_merged_into_canonical_spans():
    xml = _doc_xml('<struct type="markable" id="m1"><feat type="sourcetext" target="w1,w2"/></struct>\n'
                   '<struct type="markable" id="m2"><feat type="sourcetext" target="w3,w1"/></struct>\n')
    doc = raf.loads(xml).documents[0]
    assert doc.markables[0].spans == ((0, 1),)
    assert doc.markables[1].spans == ((0, 0), (2, 2))


def test_sourcetext_that_disagrees_with_the_words_is_reported():
    xml = _doc_xml('<struct type="markable" id="m1"><feat type="sourcetext" target="w1">nonsense</feat></struct>\n')
    report = Report()
    raf.loads(xml, report=report)
    assert report.warnings[0].code == "raf.sourcetext-mismatch"


def test_not_a_raf_root_is_refused():
    with pytest.raises(FormatError, match="not a RAF file"):
        raf.loads(b"<html/>")


def test_write_refuses_control_characters_clearly():
    doc = Document(name="d", tokens=Tokens(forms=["a\x01b"]))
    with pytest.raises(corefio.CorefioError, match="control characters"):
        raf.dumps(Corpus(documents=[doc]))


def test_regenerate_golden(tmp_path: Path):
    """The golden file is what the writer produced when it was last reviewed."""
    fresh = tmp_path / "features.raf.xml"
    corefio.write(Corpus(documents=[features_document()], metadata={"creator": "tests"}), fresh)
    assert c14n(fresh.read_bytes()) == c14n(GOLDEN.read_bytes())
