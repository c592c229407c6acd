"""The common round trip (meshio's pattern): for every registered format that reads and
writes, ``read(write(doc))`` equals ``doc`` projected onto the format's capabilities.

Documents come from hypothesis and use every feature of the model. A feature whose
removal a projection can state (attributes, heads, MIN, links of other types…) is
projected away; a feature that the writer cannot drop without changing what remains
(crossing or discontinuous mentions in a bracket format) is kept out of the documents
generated for that format, and a separate test checks that using it is reported as a
loss. So the capability table can fail: declare too much and the round trip breaks,
declare too little and a loss is reported that does not happen (checked too).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import corefio
from corefio.diagnostics import Report
from corefio.formats import conllu
from corefio.formats.losses import project, treatment, uses
from corefio.model import Corpus, Document, Entity, Link, Markable, Sentence, Tokens
from corefio.formats.registry import all_formats

#: features a projection cannot remove while keeping the rest as the writer writes it
NOT_PROJECTABLE = ("discontinuous", "crossing", "same_entity_overlap", "cross_sentence", "multi_target_links")

WRITABLE = [spec for spec in all_formats() if spec.can_read and spec.can_write]

WORDS = st.sampled_from(["the", "cat", "sat", "on", "a", "mat", "She", "saw", "it", ".", "Paris", "and", "42"])


@st.composite
def documents(draw, name: str = "doc") -> Document:
    n = draw(st.integers(3, 14))
    forms = draw(st.lists(WORDS, min_size=n, max_size=n))
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=3)))
    bounds = [0, *cuts, n]
    sentences = [Sentence(first=a, last=b - 1) for a, b in zip(bounds, bounds[1:])]
    ws = draw(st.one_of(st.none(), st.lists(st.sampled_from([" ", "", "\n"]), min_size=n, max_size=n)))
    pos = draw(st.one_of(st.none(), st.lists(st.sampled_from(["DT", "NN", "VB"]), min_size=n, max_size=n)))
    # empty tokens (CoNLL-U empty nodes), anywhere in a sentence
    empty = sorted(draw(st.sets(st.integers(0, n - 1), max_size=2))) or None
    tokens = Tokens(forms=forms, whitespace=ws, attributes={"pos": pos} if pos else {}, empty=empty)
    markables = []
    seen_spans = set()
    for k in range(draw(st.integers(0, 6))):
        a = draw(st.integers(0, n - 1))
        b = draw(st.integers(a, min(n - 1, a + 3)))
        spans: tuple = ((a, b),)
        if draw(st.booleans()) and b + 2 < n:
            c = draw(st.integers(b + 2, n - 1))
            spans = ((a, b), (c, c))
        if spans in seen_spans:
            continue
        seen_spans.add(spans)
        entity = draw(st.sampled_from(["1", "2", "3", None]))
        head = ((spans[0][0], spans[0][0]),) if draw(st.booleans()) else None
        attrs = {"type": draw(st.sampled_from(["pron", "name"]))} if draw(st.booleans()) else {}
        markables.append(Markable(id=f"markable_{k + 1}", spans=spans, entity=entity, head=head,
                                  attributes=attrs, optional=draw(st.booleans()) and k % 3 == 0,
                                  min=((spans[0][1], spans[0][1]),) if draw(st.booleans()) else None))
    links = []
    if len(markables) >= 2 and draw(st.booleans()):
        src, tgt = markables[-1].ref, markables[0].ref
        links.append(Link(id="link_1", type=draw(st.sampled_from(["coreference", "bridging"])),
                          source=src, target=tgt))
    entities = [Entity(id="1", attributes={"etype": "person"})] if any(m.entity == "1" for m in markables) \
        and draw(st.booleans()) else []
    return Document(name=name, part=draw(st.sampled_from([None, "0"])), tokens=tokens, sentences=sentences,
                    markables=markables, links=links, entities=entities)


def content(doc: Document) -> dict:
    """What a round trip must keep, independent of ids and of the order of markables."""
    def key(m: Markable) -> tuple:
        return ("" if m.layer is None else m.layer, m.spans)

    chains = frozenset(frozenset(key(doc.markables[i]) for i in chain) for chain in doc.chain_indices())
    markables = sorted((key(m), m.head, m.min, m.optional, tuple(sorted(m.attributes.items())),
                        tuple(sorted(m.sets.items()))) for m in doc.markables)
    chain_of = {}
    for chain in doc.chain_indices():
        members = frozenset(key(doc.markables[i]) for i in chain)
        for i in chain:
            chain_of[doc.markables[i].ref] = members
    by_entity: dict[str, frozenset] = {}
    for m in doc.markables:
        if m.entity is not None:
            by_entity[m.entity] = chain_of.get(m.ref, frozenset())

    def target(link, t):
        # a link's target as the chain it names: CorefUD, for one, links to entities
        return chain_of.get(t, frozenset()) if link.target_kind == "markable" else by_entity.get(t, t)

    # non-identity links compared between chains: CorefUD's Bridge and SplitAnte join
    # entities, so which mention of an entity a link starts from is not content there
    links = sorted((link.type, sorted(chain_of[link.source]),
                    tuple(sorted(map(sorted, (target(link, t) for t in link.targets)))))
                   for link in doc.links if not link.is_identity)
    return {"forms": doc.tokens.forms, "empty": doc.tokens.empty, "whitespace": doc.tokens.whitespace,
            "offsets": doc.tokens.offsets,
            "token attributes": doc.tokens.attributes, "sentences": [(s.first, s.last) for s in doc.sentences]
            if len(doc.sentences) > 1 else None, "markables": markables, "chains": chains, "links": links,
            "text": doc.text}


def write_and_read(corpus: Corpus | Document, fmt: str, report: Report | None = None) -> Corpus:
    """Through memory for one-file formats, through a directory for projects (MMAX2)."""
    report = report if report is not None else Report()
    if not corefio.get_format(fmt).directory:
        return corefio.loads(corefio.dumps(corpus, fmt, report=report), fmt, report=report)
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in corefio.dump_files(corpus, fmt, report=report).items():
            path = Path(tmp, name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        return corefio.read(tmp, fmt, report=report)


def round_trip(doc: Document, fmt: str) -> tuple[Document, Report]:
    report = Report()
    corpus = write_and_read(doc, fmt, report)
    assert len(corpus.documents) == 1, f"{fmt}: {len(corpus.documents)} documents came back"
    return corpus.documents[0], report


@pytest.mark.parametrize("spec", WRITABLE, ids=lambda s: s.name)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=documents())
def test_write_then_read_gives_the_projected_document(spec, doc):
    caps = spec.capabilities
    assume(not any(feature.name in NOT_PROJECTABLE for feature, _ in uses(doc, caps)))
    back, report = round_trip(doc, spec.name)
    # a loss the writer could only see while writing is reported, and the projection
    # does not describe it: such examples prove nothing here
    assume(not any(d.code in WRITE_TIME_LOSSES - NAME_LOSSES for d in report))
    projected = project(doc, caps)
    if spec.name == "conllu":
        # CorefUD gives every mention a head: the writer computes those a mention lacks
        projected = conllu.with_written_heads(projected)
    expected = content(projected)
    got = content(back)
    for name in expected:
        if name == "sentences" and not caps.sentences:
            continue
        assert got[name] == expected[name], f"{spec.name}: {name} changed"


@pytest.mark.parametrize("spec", WRITABLE, ids=lambda s: s.name)
@settings(max_examples=40, deadline=None)
@given(doc=documents())
def test_every_loss_is_reported_and_nothing_else(spec, doc):
    report = Report()
    corefio.dumps(doc, spec.name, report=report)
    reported = {d.code for d in report if d.code.startswith("loss.")}
    # a use that another feature's report covers, or that the writer reports itself
    # (only it knows what it could write), is left to them
    expected = {f"loss.{feature.name.replace('_', '-')}" for feature, _ in uses(doc, spec.capabilities)
                if treatment(feature.name, spec.name) not in ("covered", "writer")}
    assert expected <= reported
    # a writer may report losses found only while writing (LossLog), never fewer
    assert all(code in expected or code in WRITE_TIME_LOSSES for code in reported), reported - expected


#: losses a writer can only notice while writing (values it cannot encode)
WRITE_TIME_LOSSES = {"loss.form", "loss.label", "loss.value", "loss.interleaved-parts", "loss.same-span",
                     "loss.sent-id", "loss.sentences", "loss.same-entity-overlap", "loss.document-name",
                     "loss.document-part", "loss.link-types", "loss.link-ends",
                     "loss.bridging-anchor", "loss.document-order"}
#: losses of a document's name or part (file names, one document per file): the
#: document itself is whole
NAME_LOSSES = {"loss.document-name", "loss.document-part"}


def test_the_pivot_loses_nothing():
    raf = corefio.get_format("raf").capabilities
    assert all(value is True for value in raf.as_dict().values())


LOSSY = [spec for spec in WRITABLE if not all(v is True for v in spec.capabilities.as_dict().values())]


@pytest.mark.parametrize("spec", LOSSY, ids=lambda s: s.name)
def test_strict_writing_refuses_a_loss_and_lenient_reports_it(spec, tmp_path):
    doc = Document(name="d", tokens=Tokens(forms=["a", "b", "c", "d"]),
                   markables=[Markable(id="m1", spans=((0, 0),), entity="1", attributes={"x": "y"},
                                       head=((0, 0),), optional=True, layer=None),
                              Markable(id="m2", spans=((1, 1), (3, 3)), entity="1")],
                   links=[Link(id="l1", type="bridging", source="m2", target="m1")])
    lost = uses(doc, spec.capabilities)
    assert lost, f"{spec.name} claims to lose something, yet expresses this document whole"
    with pytest.raises(corefio.LossError):
        corefio.dumps(doc, spec.name, strict=True)
    report = Report()
    corefio.dumps(doc, spec.name, report=report)
    assert {d.code for d in report} >= {f"loss.{f.name.replace('_', '-')}" for f, _ in lost}


def test_layout_of_another_format_is_not_a_loss():
    from corefio.model import GenericLayout

    doc = Document(name="d", tokens=Tokens(forms=["a"]), markables=[Markable(id="m", spans=((0, 0),))],
                   layout={"elsewhere": GenericLayout(owner="elsewhere", extra={"k": 1})})
    for spec in WRITABLE:
        report = Report()
        corefio.dumps(doc, spec.name, report=report)
        assert not [d for d in report if "layout" in d.code or "elsewhere" in d.message], spec.name


def test_a_corpus_of_several_documents_survives(tmp_path):
    docs = [Document(name=f"d{k}", tokens=Tokens(forms=["x", "y"]),
                     markables=[Markable(id="m1", spans=((0, 0),), entity="1"),
                                Markable(id="m2", spans=((1, 1),), entity="1")]) for k in range(3)]
    for spec in WRITABLE:
        if not spec.capabilities.multiple_documents:
            continue
        back = write_and_read(Corpus(documents=docs), spec.name)
        assert [content(d)["chains"] for d in back.documents] == [content(d)["chains"] for d in docs], spec.name


def test_raf_keeps_a_collection_layout_beside_the_document_layouts_of_its_format(tmp_path):
    """The defect: brat has two layouts, its documents' and its collection's (the
    configuration files of the directory, a corpus layout); RAF rebuilt every ``brat``
    layout as the collection's and refused the file it had written."""
    from corefio.formats.brat import BratLayout, CollectionLayout

    collection = tmp_path / "collection"
    collection.mkdir()
    (collection / "a.txt").write_text("Kim saw her .\n", encoding="utf-8")
    (collection / "a.ann").write_text("T1\tPerson 0 3\tKim\nT2\tPerson 8 11\ther\nR1\tCoreference Arg1:T2 Arg2:T1\n",
                                      encoding="utf-8")
    (collection / "annotation.conf").write_text("[entities]\nPerson\n[relations]\nCoreference\tArg1:Person, "
                                                "Arg2:Person\n", encoding="utf-8")
    corpus = corefio.read(collection, "brat")
    assert isinstance(corpus.layout["brat"], CollectionLayout)
    assert isinstance(corpus.documents[0].layout["brat"], BratLayout)
    back = corefio.loads(corefio.dumps(corpus, "raf"), "raf")
    assert back.layout["brat"] == corpus.layout["brat"]
    assert back.documents[0].layout["brat"] == corpus.documents[0].layout["brat"]
