"""UIMA CAS XMI (INCEpTION/WebAnno's DKPro Core coreference) through dkpro-cassis."""

from __future__ import annotations

import shutil
import sys
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


def test_a_zip_without_one_xmi_is_refused(tmp_path):
    path = tmp_path / "two.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("a.xmi", BESIDE.read_bytes())
        z.writestr("b.xmi", BESIDE.read_bytes())
    with pytest.raises(FormatError, match="2 .xmi files"):
        corefio.read(path, "xmi")


@pytest.mark.parametrize("cut", [30, 600, 1300], ids=["header", "member", "late"])
def test_a_damaged_zip_is_a_located_error(cut, tmp_path):
    # found by the fuzzer: a zip damaged inside a member raised zipfile's or zlib's errors
    data = bytearray(ZIPPED.read_bytes())
    data[cut:cut + 8] = b"\x00" * 8
    path = tmp_path / "damaged.zip"
    path.write_bytes(bytes(data))
    with pytest.raises(FormatError) as caught:
        corefio.read(path, "xmi")
    assert caught.value.line == 1


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


def test_without_cassis_the_error_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "cassis", None)
    with pytest.raises(UsageError, match=r"corefio\[xmi\]"):
        corefio.read(BESIDE)
    with pytest.raises(UsageError, match=r"corefio\[xmi\]"):
        corefio.dumps(Document(name="d", tokens={"forms": ["a"]}), "xmi", report=Report())


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
