"""UIMA CAS XMI (INCEpTION/WebAnno's DKPro Core coreference) through dkpro-cassis."""

from __future__ import annotations

import io
import shutil
import gc
import sys
import warnings
import zipfile

import pytest
from pathlib import Path
from typer.testing import CliRunner

import corefio
from corefio.cli import app
from corefio.diagnostics import Report
from corefio.errors import CorefioError, FormatError, UnsafeInputError, UsageError
from corefio.formats import xmi
from corefio.model import Document

from .conftest import DATA

XMI_DATA = DATA / "xmi"
BESIDE = XMI_DATA / "inception" / "bernoulli.xmi"
ZIPPED = XMI_DATA / "bernoulli.zip"

CHAINS = [["Johann Bernoulli", "He", "his"], ["his son Daniel", "him"], ["Basel"], ["his house"]]


def chain_texts(doc: Document) -> list[list[str]]:
    return [[" ".join(doc.tokens.forms[m.first:m.last + 1]) for m in chain] for chain in doc.chains()]


def chain_spans(doc: Document) -> set[frozenset]:
    return {frozenset(m.spans for m in chain) for chain in doc.chains()}


@pytest.mark.parametrize("path", [BESIDE, ZIPPED], ids=["beside", "zip"])
def test_an_inception_export_is_read(path):
    doc = corefio.read(path).documents[0]
    assert doc.name == "bernoulli.txt"
    assert doc.tokens.forms[:3] == ["Johann", "Bernoulli", "met"]
    assert doc.text is not None and doc.text.startswith("Johann Bernoulli met")
    assert [(s.first, s.last) for s in doc.sentences] == [(0, 8), (9, 16)]
    assert chain_texts(doc) == CHAINS
    first = doc.markables[0]
    assert first.attributes == {"referenceType": "PER", "referenceRelation": "anaphoric"}


def test_an_xmi_alone_is_read_with_the_bundled_type_system(tmp_path):
    alone = tmp_path / "doc.xmi"
    shutil.copy(BESIDE, alone)
    doc = corefio.read(alone).documents[0]
    assert chain_texts(doc) == CHAINS  # the POS layer it does not know is skipped


def test_writing_and_reading_keeps_the_document():
    doc = corefio.read(ZIPPED).documents[0]
    data = corefio.dumps(doc, "xmi")
    assert isinstance(data, bytes) and b"CoreferenceChain" in data
    back = corefio.loads(data, "xmi").documents[0]
    assert back.name == doc.name
    assert back.text == doc.text and back.tokens.forms == doc.tokens.forms
    assert back.tokens.offsets == doc.tokens.offsets
    assert [(s.first, s.last) for s in back.sentences] == [(s.first, s.last) for s in doc.sentences]
    assert chain_spans(back) == chain_spans(doc)
    assert [m.attributes for m in back.markables] == [m.attributes for m in doc.markables]


def test_a_conversion_from_ua_keeps_the_identity_chains(tmp_path):
    out = tmp_path / "example.xmi"
    result = CliRunner().invoke(app, ["convert", str(DATA / "ua" / "example.CONLLUA"), str(out)])
    assert result.exit_code == 0, result.output
    assert "loss.link-types" in result.output  # bridging and split antecedents: XMI chains cannot
    source = corefio.read(DATA / "ua" / "example.CONLLUA").documents[0]
    back = corefio.read(out).documents[0]
    assert back.tokens.forms == source.tokens.forms
    identity = {frozenset(m.spans for m in chain if m.layer is None) for chain in source.chains()}
    assert chain_spans(back) == identity - {frozenset()}


def test_a_document_without_text_gets_one_from_its_tokens():
    doc = Document(name="d", tokens={"forms": ["Anna", "saw", "her"]},
                   markables=[{"id": "m1", "spans": ((0, 0),), "entity": "e"},
                              {"id": "m2", "spans": ((2, 2),), "entity": "e"}])
    data = corefio.dumps(doc, "xmi")
    assert b'sofaString="Anna saw her"' in data and xmi.MIME_FROM_TOKENS.encode() in data
    back = corefio.loads(data, "xmi").documents[0]
    # the text was made from the tokens: the document read back has none, as before
    assert back.text is None and back.tokens.offsets is None and back.tokens.whitespace is None
    assert back.tokens.forms == ["Anna", "saw", "her"]
    assert chain_spans(back) == {frozenset({((0, 0),), ((2, 2),)})}


XXE = (b'<?xml version="1.0"?>\n<!DOCTYPE xmi:XMI [\n<!ENTITY secret SYSTEM "file:///etc/passwd">\n]>\n'
       b'<xmi:XMI xmlns:xmi="http://www.omg.org/XMI" xmlns:cas="http:///uima/cas.ecore" xmi:version="2.0">'
       b'<cas:Sofa xmi:id="1" sofaNum="1" sofaID="_InitialView" mimeType="text" sofaString="&secret;"/></xmi:XMI>')
LAUGHS = (b'<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>\n'
          b'<xmi:XMI xmlns:xmi="http://www.omg.org/XMI" xmi:version="2.0">&b;</xmi:XMI>')


@pytest.mark.parametrize("data", [XXE, LAUGHS], ids=["external-entity", "entity-expansion"])
def test_entities_are_refused_before_cassis_sees_them(data, tmp_path):
    path = tmp_path / "evil.xmi"
    path.write_bytes(data)
    with pytest.raises(CorefioError) as caught:
        corefio.read(path)
    assert isinstance(caught.value, (UnsafeInputError, FormatError))
    assert caught.value.line is not None
    result = CliRunner().invoke(app, ["convert", str(path), str(tmp_path / "out.conllu")])
    assert result.exit_code == 3, result.output
    assert "root:" not in result.output


def test_a_type_system_with_entities_is_refused(tmp_path):
    shutil.copy(BESIDE, tmp_path / "doc.xmi")
    (tmp_path / "TypeSystem.xml").write_bytes(XXE.replace(b"xmi:XMI", b"typeSystemDescription"))
    with pytest.raises(CorefioError) as caught:
        corefio.read(tmp_path / "doc.xmi")
    assert "TypeSystem.xml" in str(caught.value)


def test_broken_xml_is_a_located_error(tmp_path):
    path = tmp_path / "broken.xmi"
    path.write_bytes(BESIDE.read_bytes()[:-30])
    with pytest.raises(FormatError) as caught:
        corefio.read(path)
    assert caught.value.line is not None


def test_a_chain_whose_links_loop_is_refused(tmp_path):
    text = BESIDE.read_text()
    # the last link of the first chain points back to its first link
    first = text.index('first="') + len('first="')
    first_id = text[first:text.index('"', first)]
    looped = text.replace('referenceType="PER"/>', f'referenceType="PER" next="{first_id}"/>', 1)
    path = tmp_path / "loop.xmi"
    path.write_text(looped)
    shutil.copy(BESIDE.parent / "TypeSystem.xml", tmp_path / "TypeSystem.xml")
    with pytest.raises(FormatError, match="loop"):
        corefio.read(path)


def test_a_zip_without_an_xmi_is_refused(tmp_path):
    path = tmp_path / "none.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("TypeSystem.xml", (BESIDE.parent / "TypeSystem.xml").read_bytes())
    with pytest.raises(FormatError, match="no .xmi file"):
        corefio.read(path, "xmi")


def test_a_zip_of_several_xmi_files_is_read_in_its_order(tmp_path):
    path = tmp_path / "two.zip"
    second = BESIDE.read_text().replace('documentTitle="bernoulli.txt"', 'documentTitle="second"')
    assert second != BESIDE.read_text()
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("TypeSystem.xml", (BESIDE.parent / "TypeSystem.xml").read_bytes())
        z.writestr("b.xmi", second)
        z.writestr("a.xmi", BESIDE.read_bytes())
    corpus = corefio.read(path, "xmi")
    assert [d.name for d in corpus.documents] == ["second", "bernoulli.txt"]
    assert [chain_texts(d) for d in corpus.documents] == [CHAINS, CHAINS]


def test_the_members_of_a_zip_together_are_limited(tmp_path, monkeypatch):
    path = tmp_path / "two.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("a.xmi", BESIDE.read_bytes())
        z.writestr("b.xmi", BESIDE.read_bytes())
    size = len(BESIDE.read_bytes())
    from corefio.io import archive

    # each fits, both do not: refused from the sizes the zip declares, before unpacking
    monkeypatch.setattr(archive, "CLI_LIMITS", archive.limits(size + size // 2, "the test's limit"))
    with pytest.raises(FormatError, match="beyond the test's limit"):
        corefio.read(path, "xmi")


def _two_documents() -> corefio.Corpus:
    def doc(name: str, forms: list[str]) -> Document:
        return Document(name=name, tokens={"forms": forms},
                        markables=[{"id": "m1", "spans": ((0, 0),), "entity": "e"},
                                   {"id": "m2", "spans": ((2, 2),), "entity": "e"}])
    return corefio.Corpus(documents=[doc("one", ["Anna", "saw", "her"]), doc("../two", ["Bo", "met", "him"])])


def test_several_documents_are_written_as_an_inception_zip():
    """The defect the conversion matrix found: only the first document was written, and
    no loss said so."""
    report = Report()
    data = corefio.dumps(_two_documents(), "xmi", report=report)
    assert isinstance(data, bytes) and data.startswith(b"PK\x03\x04")
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert z.namelist() == ["TypeSystem.xml", "one.xmi", "_two.xmi"]  # no folder named by a document
    assert "xmi.zip" in report.codes() and "loss.multiple-documents" not in report.codes()
    back = corefio.loads(data, "xmi")
    assert [d.name for d in back.documents] == ["one", "../two"]
    assert [d.tokens.forms for d in back.documents] == [["Anna", "saw", "her"], ["Bo", "met", "him"]]
    assert [chain_spans(d) for d in back.documents] == [{frozenset({((0, 0),), ((2, 2),)})}] * 2


def test_the_zip_option_writes_one_document_as_inception_exports_it():
    doc = corefio.read(BESIDE).documents[0]
    data = corefio.dumps(doc, "xmi", zip=True)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert z.namelist() == ["TypeSystem.xml", "bernoulli.txt.xmi"]
    assert chain_texts(corefio.loads(data, "xmi").documents[0]) == CHAINS
    assert corefio.dumps(doc, "xmi", zip=True) == data  # the same bytes every time


def test_chained_markables_of_another_layer_are_written_as_mentions():
    """Found by the conversion matrix (PCC's secmark markables): a markable of another
    layer in a chain was dropped, where the loss report (loss.layers) and every other
    writer make it a mention of the chain."""
    doc = Document(name="d", tokens={"forms": ["Anna", "saw", "her"]},
                   markables=[{"id": "m1", "spans": ((0, 0),), "entity": "e"},
                              {"id": "m2", "spans": ((2, 2),), "entity": "e", "layer": "secmark"}])
    report = Report()
    back = corefio.loads(corefio.dumps(doc, "xmi", report=report), "xmi").documents[0]
    assert "loss.layers" in report.codes()
    assert chain_spans(back) == {frozenset({((0, 0),), ((2, 2),)})}


@pytest.mark.parametrize("cut", [30, 600, 1300], ids=["header", "member", "late"])
def test_a_damaged_zip_is_a_located_error(cut, tmp_path):
    # found by the fuzzer: a zip damaged inside a member raised zipfile's or zlib's errors
    data = bytearray(ZIPPED.read_bytes())
    data[cut:cut + 8] = b"\x00" * 8
    path = tmp_path / "damaged.zip"
    path.write_bytes(bytes(data))
    with pytest.raises(FormatError) as caught:
        corefio.read(path, "xmi")
    assert caught.value.file == str(path)
    result = CliRunner().invoke(app, ["info", str(path)])
    assert result.exit_code == 3 and "internal error" not in result.output


@pytest.mark.parametrize("cut", [None, 600, 1300], ids=["whole", "member", "late"])
def test_a_zip_read_leaves_no_file_open(cut, tmp_path):
    # zipfile never closes a stream it is given: the archive opened from a path was left to
    # the garbage collector, whose ResourceWarning then surfaced in whichever test ran next
    data = bytearray(ZIPPED.read_bytes())
    if cut is not None:
        data[cut:cut + 8] = b"\x00" * 8
    path = tmp_path / "read.zip"
    path.write_bytes(bytes(data))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            corefio.read(path, "xmi")
        except FormatError:
            assert cut is not None
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_a_token_without_characters_is_refused(tmp_path):
    # found by the fuzzer: an empty token (its begin written in Thai digits, which cassis
    # reads as a number) made the text rebuilt from the tokens move the markables
    text = BESIDE.read_text().replace('begin="0" end="6" pos=', 'begin="6" end="6" pos=', 1)
    assert text != BESIDE.read_text()
    path = tmp_path / "empty-token.xmi"
    path.write_text(text)
    shutil.copy(BESIDE.parent / "TypeSystem.xml", tmp_path / "TypeSystem.xml")
    with pytest.raises(FormatError, match="without characters"):
        corefio.read(path)


def test_without_cassis_reading_names_the_extra_and_writing_works(monkeypatch, tmp_path):
    doc = Document(name="d", tokens={"forms": ["a"]})
    with_cassis = corefio.dumps(doc, "xmi", report=Report())
    monkeypatch.setitem(sys.modules, "cassis", None)
    with pytest.raises(UsageError, match=r"corefio\[xmi\]"):
        corefio.read(BESIDE)
    # the writer writes what cassis writes without calling it (tests/test_xmi_writer.py)
    assert corefio.dumps(doc, "xmi", report=Report()) == with_cassis


def test_the_format_is_found_by_extension_and_content():
    from corefio.formats.registry import detect_format

    assert detect_format(BESIDE).name == "xmi"
    assert detect_format(ZIPPED).name == "xmi"
    assert xmi.sniff(BESIDE.read_bytes()[:4096])


def test_a_chain_that_names_a_token_as_a_link_is_refused(tmp_path):
    """Found by the fuzzer: a ``first`` naming a Token (not a CoreferenceLink) raised an
    AttributeError (no ``next``) instead of a located error."""
    import shutil

    import corefio
    from corefio.errors import FormatError

    source = Path(__file__).parent / "data" / "xmi" / "inception"
    shutil.copy(source / "TypeSystem.xml", tmp_path / "TypeSystem.xml")
    text = (source / "bernoulli.xmi").read_text(encoding="utf-8")
    assert 'first="137"' in text and 'xmi:id="104"' in text
    (tmp_path / "bernoulli.xmi").write_text(text.replace('first="137"', 'first="104"'), encoding="utf-8")
    with pytest.raises(FormatError, match="not a CoreferenceLink"):
        corefio.read(tmp_path / "bernoulli.xmi")


def test_a_type_system_is_parsed_once_for_the_documents_it_comes_with(tmp_path, monkeypatch):
    """Reading speed: cassis parsed the type system again for every file (8 ms each for
    corefio's own, more for INCEpTION's full one)."""
    import cassis

    calls = []
    load = cassis.load_typesystem
    monkeypatch.setattr(xmi, "_PARSED", {})
    monkeypatch.setattr(cassis, "load_typesystem", lambda source: calls.append(1) or load(source))
    for name in ("a", "b"):
        folder = tmp_path / name
        folder.mkdir()
        shutil.copy(BESIDE, folder / "doc.xmi")
        shutil.copy(BESIDE.parent / "TypeSystem.xml", folder / "TypeSystem.xml")
        assert chain_texts(corefio.read(folder / "doc.xmi").documents[0]) == CHAINS
    assert len(calls) == 1
    (tmp_path / "b" / "TypeSystem.xml").write_bytes((BESIDE.parent / "TypeSystem.xml").read_bytes() + b"\n")
    corefio.read(tmp_path / "b" / "doc.xmi")  # another description: parsed
    assert len(calls) == 2


def test_the_two_document_sample_reads_as_two_documents():
    corpus = corefio.read(XMI_DATA / "two_documents.zip")
    assert [d.name for d in corpus.documents] == ["ferry", "anna"]
    assert [chain_texts(d) for d in corpus.documents] == [[["The ferry", "It"]], [["Anna", "she"], ["Bo"]]]
    assert corpus.documents[0].markables[0].attributes == {"referenceType": "OBJ"}


def test_an_inception_project_export_is_refused_with_what_to_do(tmp_path):
    """A project export holds every document once per annotator (and curated): read as a
    corpus it would repeat each document."""
    path = tmp_path / "project.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("exportedproject1.json", "{}")
        z.writestr("annotation/bernoulli.txt/anna.xmi", BESIDE.read_bytes())
        z.writestr("annotation/bernoulli.txt/bo.xmi", BESIDE.read_bytes())
    with pytest.raises(FormatError, match="project export"):
        corefio.read(path, "xmi")


# -- chain and relation layers other than DKPro Core's ---------------------------------------------
CUSTOM_TYPES = b"""<?xml version="1.0" encoding="UTF-8"?>
<typeSystemDescription xmlns="http://uima.apache.org/resourceSpecifier"><types>
<typeDescription><name>webanno.custom.EventChain</name><supertypeName>uima.cas.AnnotationBase</supertypeName>
<features><featureDescription><name>first</name><rangeTypeName>webanno.custom.EventLink</rangeTypeName></featureDescription></features></typeDescription>
<typeDescription><name>webanno.custom.EventLink</name><supertypeName>uima.tcas.Annotation</supertypeName>
<features><featureDescription><name>next</name><rangeTypeName>webanno.custom.EventLink</rangeTypeName></featureDescription>
<featureDescription><name>referenceType</name><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
<featureDescription><name>referenceRelation</name><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription></features></typeDescription>
<typeDescription><name>webanno.custom.Referent</name><supertypeName>uima.tcas.Annotation</supertypeName>
<features><featureDescription><name>entity</name><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription></features></typeDescription>
<typeDescription><name>webanno.custom.Coref</name><supertypeName>uima.tcas.Annotation</supertypeName>
<features><featureDescription><name>type</name><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
<featureDescription><name>Governor</name><rangeTypeName>webanno.custom.Referent</rangeTypeName></featureDescription>
<featureDescription><name>Dependent</name><rangeTypeName>webanno.custom.Referent</rangeTypeName></featureDescription></features></typeDescription>
</types></typeSystemDescription>"""


def custom_layers_xmi() -> bytes:
    """An XMI (as INCEpTION writes one) of "Kim met Bo . She left ." with a custom chain
    layer (met ... left) and a GUM-style span + relation layer (Kim <- She: coref;
    Bo, a singleton)."""
    tokens = [(0, 3), (4, 7), (8, 10), (11, 12), (13, 16), (17, 21), (22, 23)]
    words = "".join(f'<type:Token xmi:id="{10 + k}" sofa="1" begin="{a}" end="{b}"/>' for k, (a, b) in enumerate(tokens))
    return (
        '<?xml version="1.0" encoding="UTF-8"?><xmi:XMI xmlns:xmi="http://www.omg.org/XMI" '
        'xmlns:cas="http:///uima/cas.ecore" xmlns:custom="http:///webanno/custom.ecore" '
        'xmlns:type="http:///de/tudarmstadt/ukp/dkpro/core/api/segmentation/type.ecore" xmi:version="2.0">'
        '<cas:NULL xmi:id="0"/>' + words +
        '<type:Sentence xmi:id="30" sofa="1" begin="0" end="12"/><type:Sentence xmi:id="31" sofa="1" begin="13" end="23"/>'
        '<custom:EventLink xmi:id="40" sofa="1" begin="4" end="7" next="41" referenceType="EV"/>'
        '<custom:EventLink xmi:id="41" sofa="1" begin="17" end="21"/>'
        '<custom:EventChain xmi:id="42" sofa="1" first="40"/>'
        '<custom:Referent xmi:id="50" sofa="1" begin="0" end="3" entity="person"/>'
        '<custom:Referent xmi:id="51" sofa="1" begin="8" end="10" entity="person"/>'
        '<custom:Referent xmi:id="52" sofa="1" begin="13" end="16" entity="person"/>'
        '<custom:Coref xmi:id="60" sofa="1" begin="13" end="16" type="ana" Governor="52" Dependent="50"/>'
        '<cas:Sofa xmi:id="1" sofaNum="1" sofaID="_InitialView" mimeType="text" sofaString="Kim met Bo . She left ."/>'
        '<cas:View sofa="1" members="' + " ".join(str(i) for i in [*range(10, 17), 30, 31, 40, 41, 42, 50, 51, 52, 60])
        + '"/></xmi:XMI>').encode()


def spans_of(doc: Document) -> list[list[str]]:
    return sorted(sorted(" ".join(doc.tokens.forms[m.first:m.last + 1]) for m in chain) for chain in doc.chains())


@pytest.mark.parametrize("with_types", [True, False], ids=["type-system", "none"])
def test_custom_chain_and_relation_layers_are_read(with_types, tmp_path):
    """Issue 5: a custom chain layer read as 0 markables, 'valid', with only cassis'
    UserWarning to show for it."""
    # INCEpTION's TypeSystem.xml holds the DKPro Core types too: corefio's and the custom ones
    with_custom_types(tmp_path, custom_layers_xmi())
    if not with_types:
        (tmp_path / "TypeSystem.xml").unlink()
    report = Report()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        doc = corefio.read(tmp_path / "doc.xmi", report=report).documents[0]
    # cassis' warnings are diagnostics, never raw (a warning of an import elsewhere may pass)
    # (the import machinery's ImportWarning, raised where a module of the suite is first
    # imported under this filter, is nobody's reading; nor is a ResourceWarning for a file
    # another test left to the garbage collector, which may run during this read: leaks are
    # test_a_zip_read_leaves_no_file_open's business)
    assert [str(w.message) for w in caught if ("cassis" in w.filename or "corefio" in w.filename)
            and not issubclass(w.category, (ImportWarning, ResourceWarning))] == []
    # the Coref layer's feature "type" is a Python keyword: cassis says it renamed it, as a note
    assert [d.severity for d in report if d.code == "xmi.cassis"] == ["info"]
    assert ("xmi.types-inferred" in report.codes()) is not with_types
    assert spans_of(doc) == [["Bo"], ["Kim", "She"], ["left", "met"]]
    assert [(link.type, link.attributes) for link in doc.links] == [("coreference", {"type": "ana"})]
    assert {m.attributes.get("entity") for m in doc.markables if m.attributes.get("entity")} == {"person"}
    assert doc.layout["xmi"].chain_types == {"chain_1": ("webanno.custom.EventChain", "webanno.custom.EventLink")}
    assert "xmi.layers" in report.codes()
    assert CliRunner().invoke(app, ["validate", str(tmp_path / "doc.xmi")]).exit_code == 0


def test_a_custom_chain_layer_is_written_back_in_its_own_types():
    doc = corefio.loads(custom_layers_xmi(), "xmi").documents[0]
    data = corefio.dumps(doc, "xmi", zip=True)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        types = z.read("TypeSystem.xml").decode()
        member = next(n for n in z.namelist() if n.endswith(".xmi"))
        written = z.read(member).decode()
    assert "<name>webanno.custom.EventChain</name>" in types and "custom:EventLink" in written
    import cassis

    cas = cassis.load_cas_from_xmi(written, typesystem=cassis.load_typesystem(types))
    chains = list(cas.select("webanno.custom.EventChain"))
    assert [(c.first.begin, c.first.next.begin) for c in chains] == [(4, 17)]
    back = corefio.loads(data, "xmi").documents[0]
    assert spans_of(back) == spans_of(doc)


def with_custom_types(tmp_path: Path, data: bytes) -> Path:
    """``data`` as ``doc.xmi`` with a TypeSystem.xml of corefio's and the custom types beside it."""
    (tmp_path / "doc.xmi").write_bytes(data)
    text = xmi.TYPE_SYSTEM.replace("  </types>", CUSTOM_TYPES.decode().split("<types>")[1].split("</types>")[0]
                                   + "  </types>")
    (tmp_path / "TypeSystem.xml").write_text(text, encoding="utf-8")
    return tmp_path / "doc.xmi"


@pytest.mark.parametrize(("target", "declared"), [(b"50", True), (b"10", False)], ids=["span", "token"])
def test_a_custom_chain_whose_first_is_no_link_is_refused(target, declared, tmp_path):
    """What a chain layer names must be a link (an annotation with ``next``): a span of
    another layer (its type system says so), or a token."""
    data = custom_layers_xmi().replace(b'first="40"', b'first="' + target + b'"')
    with pytest.raises(FormatError, match="EventChain.*not a chain link") as caught:
        corefio.read(with_custom_types(tmp_path, data)) if declared else corefio.loads(data, "xmi")
    assert caught.value.file is not None


def test_a_reference_to_no_element_is_a_located_error():
    data = custom_layers_xmi().replace(b'next="41"', b'next=")41"').replace(b'first="40"', b'first="40" ')
    data = data.replace(b'<custom:EventLink xmi:id="41" sofa="1" begin="17" end="21"/>',
                        b'<custom:EventLink xmi:id="41" sofa="1" begin="17" end="21" next="40"/>')
    with pytest.raises(FormatError, match="names '\\)41', which is no element"):
        corefio.loads(data, "xmi")


def test_syntactic_dependencies_and_relations_between_tokens_are_not_mentions():
    data = custom_layers_xmi().replace(
        b'<cas:Sofa', b'<dep:Dependency xmlns:dep="http:///de/tudarmstadt/ukp/dkpro/core/api/syntax/type/dependency.ecore" '
                      b'xmi:id="70" sofa="1" begin="0" end="3" Governor="11" Dependent="10" DependencyType="nsubj"/>'
                      b'<custom:TokenRel xmi:id="71" sofa="1" begin="0" end="3" Governor="11" Dependent="10"/><cas:Sofa'
    ).replace(b' 60"/>', b' 60 70 71"/>')
    report = Report()
    doc = corefio.loads(data, "xmi", report=report).documents[0]
    assert len(doc.markables) == 5 and len(doc.links) == 1
    note = next(d for d in report if d.code == "xmi.layers-not-read")
    assert "Dependency" in " ".join(note.examples) and "TokenRel" in " ".join(note.examples)


def test_several_documents_for_an_output_named_xmi_are_refused(tmp_path):
    """Issue 9: a multi-document out.xmi was a zip named .xmi."""
    source = tmp_path / "two.conll"
    corefio.write(_two_documents(), source)
    target = tmp_path / "out.xmi"
    result = CliRunner().invoke(app, ["convert", str(source), str(target)])
    assert result.exit_code == 2 and ".zip" in result.output and not target.exists()
    assert CliRunner().invoke(app, ["convert", str(source), str(tmp_path / "out.zip"), "--to", "xmi"]).exit_code == 0
    assert [d.name for d in corefio.read(tmp_path / "out.zip").documents] == ["one", "../two"]
    with pytest.raises(UsageError, match="zip=true"):
        corefio.dumps(_two_documents(), "xmi", zip=False)
    one = tmp_path / "one.zip"
    corefio.write(_two_documents().documents[0], one, "xmi")
    assert zipfile.is_zipfile(one)  # an output named .zip is a zip, one document or several


def test_a_document_part_is_a_reported_loss():
    doc = Document(name="d", part="3", tokens={"forms": ["a"]})
    report = Report()
    back = corefio.loads(corefio.dumps(doc, "xmi", report=report), "xmi").documents[0]
    assert back.part is None and "loss.document-part" in report.codes()
