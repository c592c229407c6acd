"""RAF pivot format 2.0: golden file, round trips, streaming, XSD validity, RAF 1.0 input,
hostile input and errors with lines."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

import corefio
from corefio.diagnostics import Report
from corefio.errors import FormatError, UnsafeInputError
from corefio.formats import raf
from corefio.model import (
    Corpus, Document, Entity, FormatLayout, GenericLayout, Link, Markable, Region, Scheme, SchemeAttribute,
    SchemeValue, Sentence, Tokens,
)
from corefio.formats.registry import Capabilities, get_format
from corefio.io.source import Source
from corefio.checks.validation import load_schema

from .conftest import DATA, SAMPLES
from .strategies import NAME, XML_TEXT, corpora, documents

GOLDEN = DATA / "golden" / "features.raf.xml"
REGRESSIONS = DATA / "regressions"


@dataclass
class ProbeLayout(FormatLayout):
    """A layout with every kind of value a format's layout may hold (tuples, sets,
    non-string keys, bytes, nested dataclasses, None)."""

    format: ClassVar[str] = "probe"
    depends_on: ClassVar[frozenset[str]] = frozenset({"tokens"})

    columns: tuple[str, ...] = ()
    widths: dict[int, int] = field(default_factory=dict)
    flags: frozenset[str] = frozenset()
    raw: bytes = b""
    nested: Any = None
    nothing: Any = None


@dataclass
class Inner:
    a: tuple[int, ...] = ()
    b: list[str] = field(default_factory=list)


def features_document() -> Document:
    """A document using every feature of the model."""
    text = "<p>Marie Curie said: \u201cshe won\u201d.</p>\r\n"
    forms = ["Marie", "Curie", "said", ":", "\u201c", "she", "won", "\u201d", "."]
    offsets = [(3, 8), (9, 14), (15, 19), (19, 20), (21, 22), (22, 25), (26, 29), (29, 30), (30, 31)]
    return Document(
        name="features & <escapes>",
        part="001",
        metadata={"genre": "test", "title": "tabs\tand\nnewlines"},
        text=text,
        regions=[Region(type="p", start=0, end=35, id="p1", attributes={"class": "lead"}),
                 Region(type="s", start=3, end=31)],
        tokens=Tokens(
            forms=forms,
            ids=[f"w{i}" for i in range(1, 10)],
            whitespace=[" ", " ", "", " ", "", " ", "", "", "\r\n"],
            offsets=offsets,
            attributes={"pos": ["NNP", "NNP", "VBD", ":", "``", "PRP", "VBD", "''", "."],
                        "odd": ["a|b", "back\\slash", "", None, "\\e", "|", None, None, "x"],
                        "empty": [None] * 9},
        ),
        sentences=[Sentence(first=0, last=3, id="s1", comments=["# text = Marie Curie said:"],
                            attributes={"quoted": False, "n": 1}),
                   Sentence(first=4, last=8, interleaved=[(2, "6-7\tshe won\t_")],
                            attributes={"score": 0.25})],
        entities=[Entity(id="E1", attributes={"etype": "person", "salience": 0.75}), Entity(id="E2")],
        markables=[
            Markable(id="m1", spans=((0, 1),), entity="E1", head=((1, 1),),
                     attributes={"TYPE": "IDENT", "dominant": True, "n": 2}, min=((1, 1), (0, 1))),
            Markable(id="m2", spans=((5, 5),), attributes={"coref_type": "ppas"}, optional=True),
            Markable(id="m3", spans=((4, 4), (7, 7)), sets={"quote_set": "set_9"}),
            Markable(id="m1", layer="sentence", spans=((0, 8),), sets={"para": "p_1"}),
            Markable(id="m4", spans=((6, 6),), head=((6, 6), (8, 8))),
        ],
        links=[
            Link(id="r1", source="m2", target="m1", attributes={"confidence": 0.5}),
            Link(id="r2", type="bridging", source="m3", target="E1", target_kind="entity"),
            Link(id="r3", type="split_antecedent", source="m4", targets=("m1", "m2")),
            Link(id="r4", type="coreference", source="sentence:m1", targets=("m3",)),
        ],
        layout={"probe": ProbeLayout(columns=("a", "b"), widths={1: 4, 2: 8}, flags=frozenset({"x", "y"}),
                                     raw=b"\x00\xff", nested=Inner(a=(1, 2), b=["c"]),
                                     extra={"unknown_field": [1, "two", None]})},
    )


def features_corpus() -> Corpus:
    scheme = Scheme(layer=None, name="coref", attributes=[
        SchemeAttribute(name="TYPE", type="nominal_list", values=[SchemeValue(name="IDENT", next=("REF",))],
                        default="IDENT"),
        SchemeAttribute(name="coref_set", type="markable_set", identity=True),
    ])
    plain = Document(name="plain", tokens=Tokens(forms=["a", "b", "c"]),
                     markables=[Markable(id="x", spans=((0, 2),))])
    return Corpus(documents=[features_document(), plain], metadata={"creator": "tests"},
                  schemes=[scheme], layout={"probe": ProbeLayout(columns=("corpus",))})


@st.composite
def rich_documents(draw):
    """The common random documents, plus what only the v2 model has: source text with
    offsets and regions, layers, sets, MIN, optional mentions, multi-target links and a
    format layout."""
    doc = draw(documents())
    forms = doc.tokens.forms
    n = len(forms)
    update: dict[str, Any] = {}
    tokens = doc.tokens
    if n and draw(st.booleans()):
        ws = tokens.whitespace or [" "] * n
        prefix = draw(st.sampled_from(["", "<DOC>\r\n", "\u00b6 "]))
        parts, offsets, pos = [prefix], [], len(prefix)
        for form, after in zip(forms, ws):
            offsets.append((pos, pos + len(form)))
            parts += [form, after]
            pos += len(form) + len(after)
        text = "".join(parts) + draw(st.sampled_from(["", "</DOC>"]))
        tokens = tokens.copy(offsets=offsets)
        update.update(text=text, tokens=tokens, regions=[
            Region(type="DOC", start=0, end=len(text), attributes=draw(st.dictionaries(NAME, XML_TEXT, max_size=2))),
            Region(type="s", start=len(prefix), end=len(prefix), id=draw(st.one_of(st.none(), NAME)))])
    markables = []
    for m in doc.markables:
        markables.append(m.copy(**{
            "sets": draw(st.dictionaries(NAME, XML_TEXT, max_size=2)),
            "min": draw(st.one_of(st.none(), st.lists(st.sampled_from(m.spans), min_size=1, max_size=2).map(tuple))),
            "optional": draw(st.booleans()),
        }))
    if n:
        for k in range(draw(st.integers(0, 2))):
            a = draw(st.integers(0, n - 1))
            markables.append(Markable(id=f"markable_{k}", layer=draw(st.sampled_from(["np", "sentence"])),
                                      spans=((a, draw(st.integers(a, n - 1))),)))
    refs = list(dict.fromkeys(m.ref for m in markables))
    links = list(doc.links)
    if len(refs) > 1 and draw(st.booleans()):
        links.append(Link(id="multi", type=draw(st.sampled_from(["coreference", "split_antecedent"])),
                          source=refs[0], targets=tuple(draw(st.lists(st.sampled_from(refs), min_size=2,
                                                                      max_size=3, unique=True)))))
    layout = {}
    if draw(st.booleans()):
        layout["probe"] = ProbeLayout(columns=tuple(draw(st.lists(XML_TEXT, max_size=3))),
                                      widths=draw(st.dictionaries(st.integers(0, 99), st.integers(), max_size=3)),
                                      extra=draw(st.dictionaries(NAME, XML_TEXT, max_size=2)))
    update.update(markables=markables, links=links, layout=layout)
    out = doc.copy(**update)
    out.check()
    return out


@st.composite
def rich_corpora(draw):
    docs = draw(st.lists(rich_documents(), min_size=1, max_size=3))
    schemes = [Scheme(layer=draw(st.one_of(st.none(), NAME)), attributes=[
        SchemeAttribute(name=name, values=[SchemeValue(name=v) for v in draw(st.lists(NAME, max_size=2))])
        for name in draw(st.lists(NAME, max_size=2, unique=True))]) for _ in range(draw(st.integers(0, 2)))]
    return Corpus(documents=docs, metadata=draw(st.dictionaries(NAME, XML_TEXT, max_size=2)), schemes=schemes,
                  layout={"probe": ProbeLayout(raw=draw(st.binary(max_size=4)))} if draw(st.booleans()) else {})


def write_bytes(corpus: Corpus) -> bytes:
    return raf.dumps(corpus)


# -- golden file and round trips --------------------------------------------------------
def test_golden_file_is_the_writer_output():
    assert write_bytes(features_corpus()) == GOLDEN.read_bytes()


def test_golden_file_reads_back_to_the_same_model():
    corpus = corefio.read(GOLDEN)
    expected = features_corpus()
    assert corpus.documents == expected.documents
    assert corpus == expected


def test_round_trip_is_byte_identical():
    data = GOLDEN.read_bytes()
    assert raf.dumps(raf.loads(data)) == data


def test_layouts_come_back_with_their_types():
    doc = corefio.read(GOLDEN).documents[0]
    probe = doc.layout["probe"]
    assert isinstance(probe, ProbeLayout)
    assert probe.widths == {1: 4, 2: 8} and isinstance(probe.columns, tuple)
    assert isinstance(probe.flags, frozenset) and probe.raw == b"\x00\xff"
    assert probe.nested == Inner(a=(1, 2), b=["c"])


def test_capabilities_are_all_true():
    caps = get_format("raf").capabilities
    assert all(getattr(caps, f.name) is True for f in dataclasses.fields(Capabilities))


def test_api_dumps_reports_no_loss_and_writes_one_piece_per_document():
    report = Report()
    data = corefio.dumps(features_corpus(), "raf", report=report, strict=True)
    assert data == GOLDEN.read_bytes()
    assert not [d for d in report if d.code.startswith("loss.")]
    corpus = features_corpus()
    pieces = list(raf.write(iter(corpus.documents), corpus=corpus.copy(documents=[]),
                            report=Report()))
    assert len(pieces) == 2 + len(corpus.documents)
    assert pieces[1].startswith(b'<struct type="document"') and pieces[-1] == b"</struct>\n"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora())
def test_random_corpora_round_trip_through_raf(corpus):
    data = raf.dumps(corpus)
    back = raf.loads(data)
    assert back == corpus
    assert raf.dumps(back) == data


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rich_corpora())
def test_random_corpora_with_every_v2_feature_round_trip(corpus):
    data = raf.dumps(corpus)
    back = raf.loads(data)
    assert back == corpus
    assert raf.dumps(back) == data


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rich_corpora())
def test_random_corpora_written_as_raf_are_schema_valid(corpus):
    schema = load_schema("raf.xsd")
    tree = etree.ElementTree(etree.fromstring(raf.dumps(corpus)))
    assert schema.validate(tree), [e.message for e in schema.error_log]


@pytest.mark.parametrize("path", [GOLDEN, SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml"])
def test_written_files_validate_against_xsd(path):
    schema = load_schema("raf.xsd")
    assert schema.validate(etree.parse(str(path))), [e.message for e in schema.error_log]


def test_samples_are_raf_2():
    for name in ("key.raf.xml", "response.raf.xml"):
        data = (SAMPLES / name).read_bytes()
        assert b'version="2.0"' in data[:200]
        assert raf.dumps(raf.loads(data)) == data


# -- streaming ----------------------------------------------------------------------------
def test_stream_gives_documents_one_by_one_and_the_header_first():
    data = GOLDEN.read_bytes()
    stream = raf.stream(Source.of(data), report=Report())
    first = next(stream)
    assert first.name == "features & <escapes>"
    assert stream.header.metadata == {"creator": "tests"} and stream.header.schemes
    assert list(stream)[0].name == "plain"


def test_iter_read_streams_through_the_api():
    names = [d.name for d in corefio.iter_read(GOLDEN)]
    assert names == ["features & <escapes>", "plain"]


def test_chain_attribute_is_the_chain_number():
    doc = features_document()
    root = etree.fromstring(raf.dumps(Corpus(documents=[doc])))
    written = {(m.get("layer"), m.get("id")): m.get("chain") for m in root.iter("struct")
               if m.get("type") == "markable"}
    expected = {}
    for k, chain in enumerate(doc.chain_indices(), 1):
        for i in chain:
            expected[(doc.markables[i].layer, doc.markables[i].id)] = str(k)
    assert written == {key: expected.get(key) for key in written}
    assert written[("sentence", "m1")] == written[(None, "m3")]  # joined by link r4


def test_words_carry_only_what_differs_from_the_defaults():
    doc = Document(name="d", tokens=Tokens(forms=["a", "b", "c"], whitespace=[" ", "", "\n"],
                                           offsets=[(0, 1), (2, 3), (5, 6)]))
    data = raf.dumps(Corpus(documents=[doc])).decode()
    assert '<w n="1">a</w>\n<w n="2" ws="">b</w>\n<w n="3" ws="&#10;" s="5">c</w>' in data
    assert raf.loads(data).documents[0] == doc


def test_packed_values_escape_the_separator():
    values = ["a|b", "", None, "\\", "\\e", "x"]
    assert raf._unpack(raf._pack(values)) == values
    assert raf._unpack(raf._pack([None])) == [None]


# -- RAF 1.0 input -----------------------------------------------------------------------
def test_figure_1_of_the_online_evaluation_paper_is_read():
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
    assert doc.tokens.ids == ["word11", "word12", "word18"]


def _v1_xml(body: str, words: int = 3) -> bytes:
    ws = "".join(f'<struct type="word" id="w{i}"><feat type="form">x{i}</feat></struct>\n' for i in range(1, words + 1))
    return (f'<struct type="reference_annotation_collection" version="1.0">\n<struct type="document" name="d">\n'
            f'<struct type="primary_data">\n{ws}</struct>\n{body}</struct>\n</struct>\n').encode()


def test_v1_dangling_word_target_names_the_line():
    xml = _v1_xml('<struct type="markable" id="m1">\n<feat type="sourcetext" target="w1..w9"/>\n</struct>\n')
    report = Report("f.raf")
    with pytest.raises(FormatError) as info:
        raf.loads(xml, report=report, file="f.raf")
    assert info.value.line == 9 and "unknown word 'w9'" in str(info.value)
    assert report.errors[0].code == "raf.dangling-target"


def test_v1_comma_targets_are_merged_into_canonical_spans():
    xml = _v1_xml('<struct type="markable" id="m1"><feat type="sourcetext" target="w1,w2"/></struct>\n'
                  '<struct type="markable" id="m2"><feat type="sourcetext" target="w3,w1"/></struct>\n')
    doc = raf.loads(xml).documents[0]
    assert doc.markables[0].spans == ((0, 1),)
    assert doc.markables[1].spans == ((0, 0), (2, 2))


def test_v1_sourcetext_that_disagrees_with_the_words_is_reported():
    xml = _v1_xml('<struct type="markable" id="m1"><feat type="sourcetext" target="w1">nonsense</feat></struct>\n')
    report = Report()
    raf.loads(xml, report=report)
    assert report.warnings[0].code == "raf.sourcetext-mismatch"


def test_v1_file_converts_to_v2_with_the_same_model():
    old = SAMPLES.parent / "tests" / "data" / "regressions" / "P01b_raf_0.25MB.raf.xml"
    corpus = raf.loads(old.read_bytes())
    new = raf.dumps(corpus)
    assert b'version="2.0"' in new[:200] and raf.loads(new) == corpus
    assert len(new) < len(old.read_bytes()) / 2


# -- RAF 2.0 errors, with lines ----------------------------------------------------------------
def _xml(body: str, words: int = 3) -> bytes:
    ws = "".join(f"<w>x{i}</w>\n" for i in range(1, words + 1))
    return (f'<struct type="reference_annotation_collection" version="2.0">\n<struct type="document" name="d">\n'
            f'<struct type="primary_data">\n{ws}</struct>\n{body}</struct>\n</struct>\n').encode()


def test_span_outside_the_words_names_the_line():
    xml = _xml('<struct type="markable" id="m1" span="1"/>\n<struct type="markable" id="m2" span="2..9"/>\n')
    report = Report("f.raf")
    with pytest.raises(FormatError) as info:
        raf.loads(xml, report=report, file="f.raf")
    assert info.value.line == 9 and "outside the 3 words" in str(info.value)
    assert report.errors[0].code == "raf.dangling-target"


def test_dangling_links_are_errors_with_lines():
    xml = _xml(
        '<struct type="markable" id="m1" span="1" entity="E9"/>\n'
        '<struct type="reflink" id="r1" source="m1" target="m7"/>\n'
        '<struct type="reflink" id="r2" reflinktype="bridging" source="m1" target="E8" kind="entity"/>\n'
        '<struct type="reflink" id="r3" source="m1"><feat type="target" target="m1"/>'
        '<feat type="target" target="m5"/></struct>\n')
    report = Report()
    with pytest.raises(FormatError):
        raf.loads(xml, report=report)
    assert [(d.code, d.line) for d in report.errors] == [
        ("raf.dangling-link", 9), ("raf.dangling-link", 10), ("raf.dangling-link", 11)]


def test_duplicate_ids_are_errors_but_layers_have_their_own_ids():
    xml = _xml('<struct type="markable" id="m1" span="1"/>\n<struct type="markable" id="m1" span="2"/>\n')
    report = Report()
    with pytest.raises(FormatError):
        raf.loads(xml, report=report)
    assert report.errors[0].code == "raf.duplicate-id" and report.errors[0].line == 9
    ok = _xml('<struct type="markable" id="m1" span="1"/>\n<struct type="markable" id="m1" layer="np" span="2"/>\n')
    assert [m.ref for m in raf.loads(ok).documents[0].markables] == ["m1", "np:m1"]


def test_bad_datatype_is_an_error():
    xml = _xml('<struct type="markable" id="m1" span="1">'
               '<feat type="attribute" name="n" datatype="integer">seven</feat></struct>\n')
    with pytest.raises(FormatError, match="attribute 'n'"):
        raf.loads(xml)


def test_unknown_elements_warn_when_lenient_and_fail_when_strict():
    xml = _xml('<struct type="markable" id="m1" span="1"><feat type="colour">red</feat></struct>\n')
    report = Report()
    corpus = raf.loads(xml, report=report)
    assert len(corpus.documents[0].markables) == 1
    assert report.warnings[0].code == "raf.unexpected"
    with pytest.raises(FormatError, match="unexpected"):
        raf.loads(xml, strict=True)


def test_wrong_number_of_packed_values_is_an_error():
    xml = (b'<struct type="reference_annotation_collection" version="2.0"><struct type="document" name="d">'
           b'<struct type="primary_data"><feat type="column" name="pos"/>\n<w v="A|B">x</w></struct>'
           b'</struct></struct>')
    with pytest.raises(FormatError, match="2 attribute value"):
        raf.loads(xml)


def test_unknown_layout_format_is_kept_and_reported():
    xml = (b'<struct type="reference_annotation_collection" version="2.0"><struct type="document" name="d">'
           b'<feat type="layout" format="future">{"extra":{},"knob":[1,2]}</feat>'
           b'<struct type="primary_data"><w>x</w></struct></struct></struct>')
    report = Report()
    doc = raf.loads(xml, report=report).documents[0]
    assert doc.layout["future"] == GenericLayout(owner="future", extra={"extra": {}, "knob": [1, 2]})
    assert report.warnings[0].code == "raf.unknown-layout"


def test_layout_naming_something_else_than_a_dataclass_is_refused():
    xml = (b'<struct type="reference_annotation_collection" version="2.0"><struct type="document" name="d">'
           b'<feat type="layout" format="probe">{"nested":{"$dataclass":"os:system","fields":{}}}</feat>'
           b'<struct type="primary_data"><w>x</w></struct></struct></struct>')
    with pytest.raises(FormatError, match="not a dataclass"):
        raf.loads(xml)
    with pytest.raises(FormatError, match="not loaded"):
        raf.loads(xml.replace(b"os:system", b"antigravity:fly"))


def test_not_a_raf_root_is_refused():
    with pytest.raises(FormatError, match="not a RAF file"):
        raf.loads(b"<html/>")


def test_write_refuses_control_characters_clearly():
    doc = Document(name="d", tokens=Tokens(forms=["a\x01b"]))
    with pytest.raises(corefio.CorefioError, match="control characters"):
        raf.dumps(Corpus(documents=[doc]))


# -- hostile input -------------------------------------------------------------------------
def test_x01_undefined_entity_is_an_error_not_an_empty_form():
    """Regression: X01_raf_undefined_entity_form_silently_empty.raf.xml was read with an
    empty form where the file says ``&secret;``."""
    path = REGRESSIONS / "X01_raf_undefined_entity_form_silently_empty.raf.xml"
    report = Report()
    with pytest.raises(FormatError, match="undefined entity reference &secret;") as info:
        corefio.read(path, report=report)
    assert info.value.line == 3
    assert report.errors[0].code == "raf.undefined-entity"


def test_undefined_entity_in_a_v2_word_is_an_error():
    xml = (b'<?xml version="1.0"?>\n<!DOCTYPE struct SYSTEM "evil.dtd">\n'
           b'<struct type="reference_annotation_collection" version="2.0"><struct type="document" name="d">'
           b'<struct type="primary_data">\n<w>a</w>\n<w>&secret;</w></struct></struct></struct>')
    with pytest.raises(FormatError, match="undefined entity") as info:
        raf.loads(xml)
    assert info.value.line == 5


def test_xinclude_in_a_word_is_refused():
    xml = (b'<struct type="reference_annotation_collection" version="2.0" '
           b'xmlns:xi="http://www.w3.org/2001/XInclude"><struct type="document" name="d">'
           b'<struct type="primary_data">\n<w><xi:include href="/etc/passwd" parse="text"/></w></struct>'
           b'</struct></struct>')
    report = Report()
    with pytest.raises(FormatError, match="unexpected markup inside <w>"):
        raf.loads(xml, report=report)
    assert report.errors[0].code == "raf.markup-in-text"


def test_xxe_is_refused(tmp_path: Path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    xml = (f'<?xml version="1.0"?>\n<!DOCTYPE struct [<!ENTITY x SYSTEM "file://{secret}">]>\n'
           '<struct type="reference_annotation_collection" version="2.0"><struct type="document" name="d">'
           '<struct type="primary_data"><w>&x;</w></struct></struct></struct>').encode()
    with pytest.raises(UnsafeInputError):
        raf.loads(xml)


def test_billion_laughs_is_refused_before_parsing():
    lol = '<!ENTITY lol "lol">' + "".join(
        f'<!ENTITY lol{i} "{("&lol%s;" % ("" if i == 1 else i - 1)) * 10}">' for i in range(1, 10))
    xml = (f'<?xml version="1.0"?>\n<!DOCTYPE struct [{lol}]>\n'
           '<struct type="reference_annotation_collection" version="2.0"><struct type="document" name="d">'
           '<struct type="primary_data"><w>&lol9;</w></struct></struct></struct>').encode()
    with pytest.raises(UnsafeInputError):
        raf.loads(xml)


def test_external_dtd_is_neither_fetched_nor_needed():
    xml = (b'<?xml version="1.0"?>\n<!DOCTYPE struct SYSTEM "http://127.0.0.1:9/never.dtd">\n'
           b'<struct type="reference_annotation_collection" version="2.0"><struct type="document" name="d">'
           b'<struct type="primary_data"><w>ok</w></struct></struct></struct>')
    assert raf.loads(xml).documents[0].tokens.forms == ["ok"]


def test_a_file_that_is_not_well_formed_is_refused_with_its_line_and_repaired_only_on_request():
    import corefio
    from corefio.diagnostics import Report
    from corefio.io.repair import repair_bytes

    data = (SAMPLES / "key.raf.xml").read_bytes()
    bad = data.replace(b'<w n="2">western</w>', b"<w n=2>western</w>", 1)
    assert bad != data
    for strict in (False, True):
        report = Report()
        with pytest.raises(corefio.CorefioError, match="not well-formed") as refused:
            corefio.loads(bad, "raf", report=report, strict=strict)
        assert refused.value.line == 8 and not report.by_code("repair.attribute-quotes")
    repaired, changes = repair_bytes(bad, kind="xml")
    assert [c.fixer for c in changes] == ["attribute-quotes"] and changes[0].line == 8
    assert corefio.loads(repaired, "raf") == corefio.loads(data, "raf")
