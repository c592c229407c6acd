"""The XMI writer against dkpro-cassis, its judge.

corefio writes XMI as text (:func:`corefio.formats.xmi._xmi_of` says why: cassis'
serialiser was 81% of a conversion's time); these tests build the same CAS with cassis'
own API (metadata, tokens, sentences, then each chain's links and the chain, as the
writer did before) and want ``Cas.to_xmi``'s bytes, for every document of
``tests/data`` that the writer's shapes cover and for documents built to reach every
branch: custom chain layers, link features, characters outside the BMP (UTF-16
offsets), every character an attribute escapes, documents without text, sentences,
tokens or name.
"""

from __future__ import annotations

import io
import zipfile

import pytest

import corefio
from corefio.diagnostics import Report
from corefio.formats import xmi
from corefio.model import Document

from .conftest import DATA

cassis = pytest.importorskip("cassis")


def cassis_xmi(doc: Document) -> bytes:
    """The XMI of ``doc`` as dkpro-cassis writes it (the CAS made with cassis' API)."""
    custom = xmi._custom_chains(doc)
    typesystem = cassis.load_typesystem(io.BytesIO(xmi._description(frozenset(custom.values()))))
    text, offsets, mime = xmi._text_and_offsets(doc)
    cas = cassis.Cas(typesystem=typesystem)
    cas.sofa_string = text
    cas.sofa_mime = mime
    token, sentence = typesystem.get_type(xmi.TOKEN), typesystem.get_type(xmi.SENTENCE)
    cas.add(typesystem.get_type(xmi.METADATA)(begin=0, end=len(text), documentTitle=doc.name, documentId=doc.name))
    for a, b in offsets:
        cas.add(token(begin=a, end=b))
    for s in doc.sentences:
        cas.add(sentence(begin=offsets[s.first][0], end=offsets[s.last][1]))
    for chain in doc.chain_indices():
        members = sorted((doc.markables[k] for k in chain), key=lambda m: (m.first, -m.last))
        entity = next((m.entity for m in members if m.entity is not None), None)
        chain_type, link_type = custom.get(entity, (xmi.CHAIN, xmi.LINK))
        link_of = typesystem.get_type(link_type)
        links = [link_of(begin=offsets[m.first][0], end=offsets[m.last][1],
                         **{f: str(m.attributes[f]) for f in xmi.LINK_FEATURES if f in m.attributes})
                 for m in members]
        for before, after in zip(links, links[1:]):
            before.next = after
        for link in links:
            cas.add(link)
        if links:
            cas.add(typesystem.get_type(chain_type)(first=links[0]))
    return cas.to_xmi().encode("utf-8")


def written(doc: Document, report: Report | None = None) -> bytes:
    return corefio.dumps(doc, "xmi", report=report or Report(), zip=False)


#: files of tests/data whose documents reach the writer's branches: custom chain layers
#: (INCEpTION's test suite), link features, several documents, a character outside the
#: BMP (the MMAX2 sample), text from tokens (CoNLL)
SAMPLES = [
    DATA / "xmi" / "inception" / "bernoulli.xmi",
    DATA / "xmi" / "two_documents.zip",
    DATA / "wild" / "inception" / "tsv3-suite" / "testStackedChain" / "reference.xmi",
    DATA / "wild" / "inception" / "tsv3-suite" / "testSubtokenChain" / "reference.xmi",
    DATA / "wild" / "inception" / "webanno" / "coref.tsv",
    DATA / "regressions" / "fuzz" / "xmi-roundtrip-write-42e23e7f.xmi",
    DATA / "mmax2" / "potts" / "1.general.mmax",
    DATA / "golden" / "sample.conll",
]


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_sample_is_written_as_cassis_writes_it(path):
    corpus = corefio.read(path, report=Report())
    assert corpus.documents
    for doc in corpus.documents:
        assert written(doc) == cassis_xmi(doc), doc.name


def test_the_samples_reach_every_branch_of_the_writer():
    """The samples above hold what they are there for (else the comparison proves less)."""
    texts = []
    for path in SAMPLES:
        for doc in corefio.read(path, report=Report()).documents:
            texts.append(written(doc).decode("utf-8"))
    assert any("xmlns:custom=" in t for t in texts)
    assert any("referenceType=" in t for t in texts)
    assert any(any(ord(c) > 0xFFFF for c in t) for t in texts)
    assert any(xmi.MIME_FROM_TOKENS in t for t in texts)
    assert any('mimeType="text"' in t for t in texts)


def _doc(forms, markables, **kwargs) -> Document:
    return Document(name=kwargs.pop("name", "d"), tokens={"forms": forms, **kwargs.pop("tokens", {})},
                    markables=markables, **kwargs)


EVERY_CHARACTER = "".join(chr(c) for c in range(0x20, 0x3000)) + "\t\n\r\ue000\ufffd\U0001F600\U00010000"


@pytest.mark.parametrize("case", ["features", "astral", "no-sentences", "no-chains", "custom", "mixed-layers",
                                  "overlapping-layers", "no-tokens", "one-token"])
def test_built_documents_are_written_as_cassis_writes_them(case):
    m = [{"id": "m1", "spans": ((0, 1),), "entity": "e"}, {"id": "m2", "spans": ((3, 3),), "entity": "e"},
         {"id": "m3", "spans": ((2, 3),), "entity": "f"}, {"id": "m4", "spans": ((0, 0),), "entity": "f"}]
    forms = ["Anna", "&<>\"'", "saw", "her"]
    kwargs: dict = {}
    if case == "features":
        m[0]["attributes"] = {"referenceType": EVERY_CHARACTER, "referenceRelation": "anaphoric"}
        m[2]["attributes"] = {"referenceRelation": "a\tb\nc\rd"}
        kwargs["name"] = 'a "name" & <more>\n'
    elif case == "astral":
        forms = ["\U0001F600x", "y\U00010000\U00010001", "saw", "\U0001F600"]
        kwargs["text"] = "\U0001F600x y\U00010000\U00010001  saw\n\U0001F600!"
        kwargs["tokens"] = {"offsets": [(0, 2), (3, 6), (8, 11), (12, 13)]}
        kwargs["sentences"] = [{"first": 0, "last": 1}, {"first": 2, "last": 3}]
    elif case == "no-sentences":
        kwargs["tokens"] = {"whitespace": ["  ", "\n", " ", ""]}
    elif case == "no-chains":
        m = []
    elif case in ("custom", "mixed-layers", "overlapping-layers"):
        types = {"e": ("webanno.custom.EventChain", "webanno.custom.EventLink"),
                 "f": ("org.type.Chain", "org.type.Link")}
        if case == "mixed-layers":
            types["f"] = ("webanno.custom.EventChain", "webanno.custom.OtherLink")
        if case == "overlapping-layers":  # a link type that is another layer's chain type
            types["f"] = ("webanno.custom.EventLink", "webanno.custom.Third")
        kwargs["layout"] = {"xmi": xmi.XmiLayout(chain_types=types)}
    elif case == "no-tokens":
        forms, m = [], []
    elif case == "one-token":
        forms, m = ["x"], [{"id": "m1", "spans": ((0, 0),), "entity": "e"}]
    doc = _doc(forms, m, **kwargs)
    data = written(doc)
    assert data == cassis_xmi(doc)
    if case == "custom":
        # a package whose last part another package took is numbered: org.type after DKPro Core's type, type0
        assert b'xmlns:custom="http:///webanno/custom.ecore"' in data and b'xmlns:type1="http:///org/type.ecore"' in data
    if case == "astral":
        assert b'begin="4" end="9"' in data  # UTF-16 offsets: the emoji and the two astral letters count twice


def test_a_layer_whose_link_type_is_another_layers_chain_type_is_written_in_dkpro_cores():
    """Both types cannot be declared (a chain has no offsets, a link has): the writer
    crashed in cassis (Link(begin=...) on a type without begin); the chain of the layer
    that cannot be declared now goes to DKPro Core's layer, and cassis reads it."""
    types = {"e": ("a.b.X", "a.b.Y"), "f": ("a.b.Y", "a.b.Z")}
    doc = _doc(["A", "b", "c", "d"], [{"id": "m1", "spans": ((0, 0),), "entity": "e"},
                                      {"id": "m2", "spans": ((1, 1),), "entity": "f"}],
               layout={"xmi": xmi.XmiLayout(chain_types=types)})
    data = corefio.dumps(doc, "xmi", report=Report(), zip=True)
    back = corefio.loads(data, "xmi").documents[0]
    assert sorted(back.layout["xmi"].chain_types.values()) == [("a.b.Y", "a.b.Z")]
    assert [[m.spans for m in chain] for chain in back.chains()] == [[((0, 0),)], [((1, 1),)]]


def test_a_character_xml_cannot_hold_is_a_loss_and_cassis_reads_the_output():
    """cassis' lxml refused it with a raw ValueError; now it is U+FFFD and loss.value."""
    doc = _doc(["An\x01na", "saw", "her"], [{"id": "m1", "spans": ((0, 0),), "entity": "e",
                                             "attributes": {"referenceType": "x\x0by"}},
                                            {"id": "m2", "spans": ((2, 2),), "entity": "e"}])
    report = Report()
    data = written(doc, report)
    assert "loss.value" in report.codes()
    cas = cassis.load_cas_from_xmi(io.BytesIO(data), typesystem=cassis.load_typesystem(
        io.BytesIO(xmi._description(frozenset()))))
    assert cas.sofa_string.startswith("An\ufffdna saw her")
    assert [link.referenceType for link in cas.select(xmi.LINK)] == ["x\ufffdy", None]
    clean = _doc(["An\ufffdna", "saw", "her"], [{"id": "m1", "spans": ((0, 0),), "entity": "e",
                                                 "attributes": {"referenceType": "x\ufffdy"}},
                                                {"id": "m2", "spans": ((2, 2),), "entity": "e"}])
    assert data == cassis_xmi(clean)


def test_the_bench_shape_zip_is_read_back_by_cassis_with_every_annotation():
    """A zip of several documents: each member loads in cassis with the zip's type
    system, and holds what the document has."""
    corpus = corefio.read(DATA / "golden" / "sample.conll", report=Report())
    data = corefio.dumps(corpus, "xmi", report=Report(), zip=True)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        typesystem = cassis.load_typesystem(io.BytesIO(z.read(xmi.TYPE_SYSTEM_FILE)))
        members = [n for n in z.namelist() if n.endswith(".xmi")]
        assert len(members) == len(corpus.documents)
        for name, doc in zip(members, corpus.documents):
            cas = cassis.load_cas_from_xmi(io.BytesIO(z.read(name)), typesystem=typesystem)
            assert [t.get_covered_text() for t in cas.select(xmi.TOKEN)] == list(doc.tokens.forms)
            assert len(cas.select(xmi.SENTENCE)) == len(doc.sentences)
            assert len(cas.select(xmi.CHAIN)) == len(doc.chain_indices())
