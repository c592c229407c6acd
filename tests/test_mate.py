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
    assert {"loss.crossing", "loss.discontinuous", "mate.dropped-markable", "loss.link-ends"} <= set(report.codes())
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


# -- markables of other layers (an MMAX2 project with several levels) -------------------------
def two_level_project(root: Path) -> Path:
    """An MMAX2 project whose coreference pointers reach into two other levels (as PCC's
    primmark → secmark pointers do): ``np:markable_1`` shares its id with a coreference
    markable, ``secmark:markable_9`` does not; ``np:markable_2`` is in no chain; a sentence
    level covers only half the words, so it stays a level of markables (in no chain)."""
    from .test_xslt_mmax2_projects import POINTER_SCHEME, write_project

    write_project(root, levels={
        "coref": ['id="markable_1" span="word_1"',
                  'id="markable_2" span="word_3" anaphor_antecedent="markable_1"',
                  'id="markable_3" span="word_5" anaphor_antecedent="np:markable_1"',
                  'id="markable_4" span="word_4" anaphor_antecedent="secmark:markable_9"'],
        "np": ['id="markable_1" span="word_6..word_7" kind="np"', 'id="markable_2" span="word_8" kind="np"'],
        "secmark": ['id="markable_9" span="word_2"'],
        "sentence": ['id="markable_1" span="word_1..word_4"'],
    }, schemes={"coref": '<attribute id="a1" name="anaphor_antecedent" type="markable_pointer"/>',
                "np": '<attribute id="a2" name="kind" type="freetext"/>',
                "secmark": '<attribute id="a3" name="kind" type="freetext"/>',
                "sentence": '<attribute id="a4" name="kind" type="freetext"/>'})
    assert POINTER_SCHEME
    return root


def counts(doc: Document) -> tuple:
    """Markables, chain sizes and links: what a MATE file must keep of a document."""
    return len(doc.markables), sorted(len(c) for c in doc.chain_indices()), len(doc.links)


def assert_written_mate_agrees(source: Corpus, written: Path, expected: list[tuple] | None = None) -> None:
    """``written`` validates against schemas/mate.xsd (xmlschema), its de IDs are unique
    XML names that every href and anchor names, and it reads back with the counts of the
    source restricted to what MATE expresses (losses.project; ``expected`` where that
    merges markables whose ids collide once their layer is gone)."""
    import xmlschema

    from corefio.formats.losses import project

    xmlschema.XMLSchema(str(ROOT / "schemas" / "mate.xsd")).validate(str(written))
    for doc_el in etree.parse(str(written)).iter(f"{{{mate.NS}}}doc"):
        ids = [el.get("ID") for el in doc_el.iter(f"{{{mate.NS}}}de")]
        assert len(ids) == len(set(ids))
        assert all(mate._XML_NAME.match(i) for i in ids), ids
        named = {h[len("#id("):-1] for h in doc_el.xpath(".//@href", smart_strings=False)}
        assert named <= set(ids), named - set(ids)
    back = corefio.read(written, "mate")
    assert len(back.documents) == len(source.documents)
    for k, (got, doc) in enumerate(zip(back.documents, source.documents)):
        assert counts(got) == (expected[k] if expected else counts(project(doc, mate.CAPABILITIES))), doc.name


def test_markables_of_other_layers_are_written_only_when_in_a_chain(tmp_path):
    """Before: the writer wrote every layer's markables with their bare ids (two ``de``
    with ID markable_1) while anchors named ``np:markable_1``: corefio could not read the
    file; and the sentence level's markables, reported as dropped, came back as
    singletons."""
    import corefio.formats.mmax2  # noqa: F401

    source = corefio.read(two_level_project(tmp_path / "project"), "mmax2")
    doc = source.documents[0]
    # the sentence level covers words 1-4 of 8: its markable is a sentence, and the other
    # words a sentence of their own (the MMAX2 reader's rule for a level that does not tile)
    assert counts(doc) == (7, [2, 2, 2], 3)
    assert sorted(m.ref for m in doc.markables if m.layer) == [
        "np:markable_1", "np:markable_2", "secmark:markable_9"]
    assert [(s.first, s.last) for s in doc.sentences] == [(0, 3), (4, 7)]
    out = tmp_path / "out.mate.xml"
    report = Report()
    corefio.write(source, out, "mate", report=report)
    assert any(d.code == "loss.layers" for d in report)
    # 2 of the 3 markables of other layers are in a chain (losses.project would merge
    # np:markable_1 with markable_1: their ids collide once the layer is gone)
    assert_written_mate_agrees(source, out, [(6, [2, 2, 2], 3)])
    back = corefio.read(out, "mate").documents[0]
    assert sorted(m.id for m in back.markables) == ["markable_1", "markable_2", "markable_3", "markable_4",
                                                    "markable_9", "np.markable_1"]
    assert back.markables[[m.id for m in back.markables].index("np.markable_1")].spans == ((5, 6),)


def test_one_layer_keeps_what_losses_project_keeps():
    """mate.one_layer and losses.project agree on which markables of other layers stay;
    one_layer also renames a markable whose id another one has, or that is no XML name."""
    from corefio.formats.losses import project

    doc = Document(name="d", tokens=Tokens(forms=list("abcde")), markables=[
        Markable(id="m1", spans=((0, 0),)), Markable(id="m3", layer="x", spans=((1, 1),)),
        Markable(id="m2", layer="x", spans=((2, 2),)), Markable(id="m4", layer="y", spans=((3, 3),))],
        links=[Link(id="l1", type="coreference", source="m1", targets=("x:m3",)),
               Link(id="l2", type="bridging", source="y:m4", targets=("m1", "x:m2"))])
    kept = mate.one_layer(doc)
    assert [m.id for m in kept.markables] == ["m1", "m3"]
    assert [(link.source, link.targets) for link in kept.links] == [("m1", ("m3",))]
    assert counts(kept) == counts(project(doc, mate.CAPABILITIES))
    clash = Document(name="d", tokens=Tokens(forms=list("abc")), markables=[
        Markable(id="m1", spans=((0, 0),)), Markable(id="m1", layer="x", spans=((1, 1),)),
        Markable(id="a:b", layer="y", spans=((2, 2),))],
        links=[Link(id="l1", type="coreference", source="m1", targets=("x:m1",)),
               Link(id="l2", type="coreference", source="y:a:b", targets=("m1",))])
    kept = mate.one_layer(clash)
    assert [m.id for m in kept.markables] == ["m1", "x.m1", "y.a_b"]
    assert [(link.source, link.targets) for link in kept.links] == [("m1", ("x.m1",)), ("y.a_b", ("m1",))]
    assert counts(kept) == (3, [3], 2)


def test_pcc_mmax2_to_mate_reads_back(tmp_path):
    """PCC (MMAX2, cross-level pointers secmark:markable_…): the MATE file validates and
    reads back with the counts of the source restricted to what MATE expresses."""
    import corefio.formats.mmax2  # noqa: F401

    from .conftest import shared_data

    pcc = shared_data("corpora/pcc-mmax2/coreference")
    source = corefio.read(pcc, "mmax2")
    out = tmp_path / "pcc.mate.xml"
    corefio.write(source, out, "mate")
    assert_written_mate_agrees(source, out)
