"""MATE coreference XML: reading (inline, standoff, prefixed or not), writing, XSD
validity of what is written, round trips identical after canonicalisation, losses."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

import corefio
import corefio.formats.mate as mate
from corefio import Report
from corefio.errors import CorefioError, FormatError
from corefio.model import Corpus, Document, Entity, Link, Markable, Sentence, Tokens

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples" / "mate"
DATA = ROOT / "tests" / "data" / "mate"
FILES = [SAMPLES / "key.mate.xml", SAMPLES / "response.mate.xml", DATA / "gnome_plain.xml",
         DATA / "standoff.mate.xml"]
SCHEMA = etree.XMLSchema(etree.parse(str(ROOT / "schemas" / "mate.xsd")))


def c14n(data: bytes) -> bytes:
    return etree.tostring(etree.fromstring(data), method="c14n")


def as_bytes(data: str | bytes) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else data


def test_key_sample_reads_as_the_raf_key_plus_the_mate_only_links():
    key = corefio.read(SAMPLES / "key.mate.xml", "mate").documents[0]
    raf = corefio.read(ROOT / "samples" / "key.raf.xml").documents[0]
    assert key.tokens.forms == raf.tokens.forms
    assert [m.spans for m in key.markables] == [m.spans for m in raf.markables]
    assert [len(c) for c in key.chains()] == [2, 3, 7, 5]
    ambiguous = next(link for link in key.links if link.id == "ambiguous_1")
    assert ambiguous.type == "element" and ambiguous.targets == ("markable_1", "markable_6")
    to_ue = next(link for link in key.links if link.id == "part_1")
    assert to_ue.target_kind == "entity" and to_ue.targets == ("ue_massif",)
    assert key.entities == [Entity(id="ue_massif", attributes={"description": "the massif both peaks belong to"})]
    assert all(link.type == "coreference" for link in key.links if link.id.startswith("reflink_"))


def test_plain_gnome_style_file_with_unnamed_links_and_word_attributes():
    doc = corefio.read(DATA / "gnome_plain.xml", "mate").documents[0]
    assert doc.name == "cabinet"
    assert doc.tokens.attributes["pos"][:3] == ["DT", "NN", "VBZ"]
    assert [(s.first, s.last, s.id) for s in doc.sentences] == [(0, 6, "u1"), (7, 12, "u2"), (13, 17, "u3")]
    spans = {m.id: m.spans for m in doc.markables}
    assert spans["ne4"] == ((9, 11),) and spans["ne5"] == ((9, 9),)  # nested
    assert [link.id for link in doc.links] == ["link_1", "link_2", "link_3", "link_4"]
    poss = doc.links[3]
    assert (poss.type, poss.targets, poss.attributes) == ("poss", ("ne1", "ne2"), {"status": "uncertain"})
    chains = [sorted(doc.markables[i].id for i in chain) for chain in doc.chain_indices()]
    assert ["ne1", "ne3", "ne5"] in chains


def test_standoff_reads_words_from_the_base_file():
    doc = corefio.read(DATA / "standoff.mate.xml", "mate").documents[0]
    assert doc.tokens.forms[:3] == ["The", "brass", "lamp"]
    assert doc.tokens.ids is not None and doc.tokens.ids[0] == "w_1"
    assert [m.spans for m in doc.markables] == [((0, 2),), ((5, 5),), ((7, 8),), ((10, 10),)]
    assert doc.links[1].target_kind == "entity"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_round_trip_is_identical_after_c14n(path, tmp_path):
    corpus = corefio.read(path, "mate")
    if "words" in path.read_text():
        files = corefio.dump_files(corpus, "mate", standoff=True)
        assert c14n(files["corpus.mate.xml"]) == c14n(path.read_bytes())
        assert c14n(files["lamp.words.xml"]) == c14n((DATA / "lamp.words.xml").read_bytes())
        for name, data in files.items():
            (tmp_path / name).write_bytes(data)
        again = corefio.read(tmp_path / "corpus.mate.xml", "mate")
    else:
        written = as_bytes(corefio.dumps(corpus, "mate"))
        assert c14n(written) == c14n(path.read_bytes())
        again = corefio.loads(written, "mate")
    assert again.documents[0].markables == corpus.documents[0].markables
    assert again.documents[0].links == corpus.documents[0].links


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_what_is_written_is_valid_against_the_xsd(path, tmp_path):
    corpus = corefio.read(path, "mate")
    outputs = [as_bytes(corefio.dumps(corpus, "mate"))] + list(corefio.dump_files(corpus, "mate", standoff=True).values())
    for data in outputs:
        tree = etree.fromstring(data)
        if tree.tag.startswith("{"):  # the plain (un-namespaced) style is outside the XSD
            assert SCHEMA.validate(tree), SCHEMA.error_log
        else:
            assert path.name == "gnome_plain.xml"


def test_standoff_and_inline_give_the_same_document(tmp_path):
    corpus = corefio.read(ROOT / "samples" / "key.raf.xml")
    for name, data in corefio.dump_files(corpus, "mate", standoff=True).items():
        (tmp_path / name).write_bytes(data)
    standoff = corefio.read(tmp_path / "corpus.mate.xml", "mate").documents[0]
    inline = corefio.loads(as_bytes(corefio.dumps(corpus, "mate")), "mate").documents[0]
    assert standoff.markables == inline.markables and standoff.links == inline.links
    assert standoff.tokens.forms == inline.tokens.forms and standoff.tokens.ids is None
    assert corefio.read(tmp_path, "mate").documents[0].markables == inline.markables  # a directory


def test_entities_become_ident_links_between_consecutive_mentions():
    doc = Document(name="d", tokens=Tokens(forms=["Ann", "saw", "her", "dog", "and", "she"]),
                   markables=[Markable(id="a", spans=((0, 0),), entity="1"),
                              Markable(id="b", spans=((2, 2),), entity="1"),
                              Markable(id="c", spans=((2, 3),)),
                              Markable(id="d", spans=((5, 5),), entity="1")])
    report = Report()
    back = corefio.loads(as_bytes(corefio.dumps(doc, "mate", report=report)), "mate").documents[0]
    assert [(link.source, link.targets) for link in back.links] == [("b", ("a",)), ("d", ("b",))]
    assert [[m.id for m in c] for c in back.chains()] == [["a", "b", "d"], ["c"]]
    assert "loss.entity-ids" in report.codes()


def test_crossing_and_discontinuous_markables_are_reported_not_written():
    doc = Document(name="d", tokens=Tokens(forms=list("abcdefg")), sentences=[Sentence(first=0, last=6)],
                   markables=[Markable(id="m1", spans=((0, 2),)), Markable(id="m2", spans=((1, 3),)),
                              Markable(id="m3", spans=((4, 4), (6, 6)))],
                   links=[Link(id="l", type="bridging", source="m2", target="m1")])
    with pytest.raises(corefio.LossError):
        corefio.dumps(doc, "mate", strict=True)
    report = Report()
    back = corefio.loads(as_bytes(corefio.dumps(doc, "mate", report=report)), "mate").documents[0]
    assert {"loss.crossing", "loss.discontinuous", "mate.dropped-markable", "mate.dropped-link"} <= set(report.codes())
    assert [(m.id, m.spans) for m in back.markables] == [("m1", ((0, 2),)), ("m3", ((4, 6),))]
    assert back.links == []


def test_typed_values_and_bad_attribute_names_are_write_time_losses():
    doc = Document(name="d", tokens=Tokens(forms=["x"]),
                   markables=[Markable(id="m", spans=((0, 0),), attributes={"n": 3, "bad name": "v"})])
    report = Report()
    back = corefio.loads(as_bytes(corefio.dumps(doc, "mate", report=report)), "mate").documents[0]
    assert back.markables[0].attributes == {"n": "3"}
    assert {"loss.value", "loss.label"} <= set(report.codes())


def test_several_documents_and_the_sniffer():
    docs = [Document(name=f"d{k}", part="0", tokens=Tokens(forms=["x", "y"]),
                     markables=[Markable(id="m1", spans=((0, 0),))]) for k in range(3)]
    data = as_bytes(corefio.dumps(Corpus(documents=docs), "mate"))
    assert mate.sniff(data[:200])
    back = corefio.loads(data, "mate")
    assert [(d.name, d.part) for d in back.documents] == [("d0", "0"), ("d1", "0"), ("d2", "0")]


@pytest.mark.parametrize("text, message", [
    ('<mate version="1.0"><doc name="d">loose text <w>x</w></doc></mate>', "outside a <w>"),
    ('<mate version="1.0"><doc name="d"><de><w>x</w></de></doc></mate>', "without ID"),
    ('<mate version="1.0"><doc name="d"><de ID="a"><w>x</w></de><ue ID="u"/>'
     '<link href="#id(a)" type="element"><anchor href="#id(a)"/><anchor href="#id(u)"/></link></doc></mate>',
     "both discourse and universe"),
    ('<mate version="1.0"><doc name="d"><s><w>x</w></s><w>y</w></doc></mate>', "some words are in <s>"),
    ('<mate version="1.0"><doc name="d"><de ID="a"><w>x</w></de>'
     '<link href="#id(zz)" type="ident"><anchor href="#id(a)"/></link></doc></mate>', "not a markable"),
    ('<mate version="1.0"><doc name="d" words="w.xml"><de ID="a" href="w.xml#id(w1)"/></doc></mate>',
     "in memory cannot open"),
])
def test_malformed_input_is_a_located_format_error(text, message):
    with pytest.raises(CorefioError, match=message) as info:
        corefio.loads(text.encode(), "mate")
    assert isinstance(info.value, FormatError)


def test_standoff_base_files_stay_below_the_mate_file(tmp_path):
    path = tmp_path / "evil.mate.xml"
    path.write_text('<mate version="1.0"><doc name="d" words="../secret.xml"><de ID="a" href="../secret.xml#id(w1)"/>'
                    "</doc></mate>")
    with pytest.raises(FormatError, match="relative path below"):
        corefio.read(path, "mate")


def test_standoff_needs_several_files():
    with pytest.raises(corefio.errors.UsageError):
        corefio.dumps(corefio.read(SAMPLES / "key.mate.xml", "mate"), "mate", standoff=True)
