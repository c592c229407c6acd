"""Hardening of the text and XML formats of helper "textfmts": damaged spaCy DocBins
(R07_spacy_docbin_crashes), document parts through Hugging Face datasets
(R08_hf_part_changes), readers that warn wherever the schema refuses (RAF, MATE: what
``validate`` calls an error, ``read`` must not pass over in silence), and MATE output
that always reads back and meets its XSD."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree
from typer.testing import CliRunner

import corefio
from corefio.cli import app
from corefio.diagnostics import Report
from corefio.errors import CorefioError, FormatError
from corefio.formats import mate, raf
from corefio.model import Corpus, Document, Entity, Link, Markable, Sentence, Tokens

from .conftest import DATA, SAMPLES, shared_data
from .strategies import documents

ROOT = Path(__file__).resolve().parent.parent
MATE_SCHEMA = etree.XMLSchema(etree.parse(str(ROOT / "schemas" / "mate.xsd")))
RAF_SCHEMA = etree.XMLSchema(etree.parse(str(ROOT / "schemas" / "raf.xsd")))


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def doc_of(forms, markables=(), entities=(), links=(), sentences=None, name="d", part=None):
    n = len(forms)
    return Document(name=name, part=part, tokens=Tokens(forms=list(forms)),
                    sentences=sentences if sentences is not None else [Sentence(first=0, last=n - 1)],
                    markables=list(markables), entities=list(entities), links=list(links))


# -- R07_spacy_docbin_crashes: a damaged DocBin is a located input error ----------------------
def _docbin(path: Path) -> bytes:
    """A small DocBin as corefio writes it (names, sentences, clusters, heads)."""
    corefio.convert(DATA / "systems" / "anna.wl.jsonlines", path)
    return path.read_bytes()


def test_R07_spacy_docbin_crashes_damaged_bytes_are_read_or_a_located_error(tmp_path):
    pytest.importorskip("spacy")
    payload = zlib.decompress(_docbin(tmp_path / "good.spacy"))
    decode_failures = 0
    for i in range(0, len(payload), 9):  # every ninth byte of the msgpack payload, inverted
        damaged = payload[:i] + bytes([payload[i] ^ 0xFF]) + payload[i + 1:]
        path = tmp_path / "damaged.spacy"
        path.write_bytes(zlib.compress(damaged))
        try:
            corefio.read(path)
        except FormatError as exc:  # the only way out but success
            assert exc.file == str(path) and exc.line is not None, exc
            decode_failures += "cannot be decoded" in exc.message
    # the damage reached the lazily decoded docs (what once escaped as an internal error)
    assert decode_failures > 0


def test_R07_spacy_docbin_crashes_reproducers_exit_3(tmp_path):
    pytest.importorskip("spacy")
    folder = shared_data("reproducers/R07_spacy_docbin_crashes")
    files = sorted(folder.glob("*.spacy"))
    assert len(files) == 7
    for path in files:
        result = run("info", str(path))
        assert result.exit_code == 3, (path.name, result.output)
        assert f"{path.name}:1:" in result.output and "internal error" not in result.output
        report = corefio.validate(path)
        assert report.errors and report.errors[0].line == 1


# -- R08_hf_part_changes: parts are kept, or their loss reported ------------------------------
def _hf_round_trip(doc: Document, tmp_path: Path, layout: str = "ontonotes"):
    pytest.importorskip("datasets")
    report = Report()
    out = tmp_path / f"out_{layout}"
    corefio.write(Corpus(documents=[doc]), out, "hf-datasets", report=report, layout=layout)
    return corefio.read(out, "hf-datasets").documents[0], report


@pytest.mark.parametrize("part, back, lost", [
    ("-1", "-1", False), ("7", "7", False), ("000", "0", False), (None, None, False),
    ("2147483648", None, True), ("a", None, True), ("-01", None, True),
])
def test_R08_hf_part_changes_parts_are_kept_or_reported(part, back, lost, tmp_path):
    again, report = _hf_round_trip(doc_of(["a", "b"], part=part), tmp_path)
    assert again.part == back
    losses = [d for d in report.diagnostics if d.code == "loss.part"]
    assert bool(losses) == lost, report.format()


def test_R08_hf_part_changes_the_indiscrim_layout_reports_every_part(tmp_path):
    again, report = _hf_round_trip(doc_of(["a"], part="3"), tmp_path, "indiscrim")
    assert again.part is None and [d.code for d in report.diagnostics if d.code == "loss.part"] == ["loss.part"]


def test_R08_hf_part_changes_reproducer(tmp_path):
    pytest.importorskip("datasets")
    path = shared_data("reproducers/R08_hf_part_changes/part_minus1.parquet")
    assert corefio.read(path).documents[0].part == "-1"
    result = run("convert", str(path), str(tmp_path / "out"), "--to", "hf-datasets")
    assert result.exit_code == 0, result.output
    assert corefio.read(tmp_path / "out", "hf-datasets").documents[0].part == "-1"


def test_R08_hf_part_changes_sentences_naming_several_parts_are_reported(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    row = {"document_id": "d", "sentences": [{"part_id": 1, "words": ["a"], "coref_spans": []},
                                             {"part_id": 2, "words": ["b"], "coref_spans": []}]}
    pq.write_table(pa.Table.from_pylist([row]), str(tmp_path / "mixed.parquet"))
    report = Report()
    doc = corefio.read(tmp_path / "mixed.parquet", report=report).documents[0]
    assert doc.part is None
    assert [d.code for d in report.warnings] == ["hf.mixed-parts"] and report.warnings[0].line == 1


# -- read warns where validate finds the schema broken ----------------------------------------
def _raf_with(markable: str) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<struct type="reference_annotation_collection" version="2.0">\n'
            f'<struct type="document" name="d">\n<struct type="primary_data">\n<w n="1">a</w>\n<w n="2">b</w>\n'
            f'</struct>\n{markable}\n</struct>\n</struct>\n').encode()


@pytest.mark.parametrize("markable, what", [
    ('<struct type="markable" id="m1" span="1" colour="red"/>', "attribute 'colour' is not allowed"),
    ('<struct type="markable" id="m1" span="1" chain="first"/>', "'first' is not a valid value"),
    ('<struct type="markable" id="m1" span="01"/>', "'01' is not"),
    ('<struct type="markable" id="m1" span="1" layer=""/>', "layer"),
])
def test_raf_read_warns_where_the_schema_fails(markable, what, tmp_path):
    path = tmp_path / "x.raf.xml"
    path.write_bytes(_raf_with(markable))
    assert not RAF_SCHEMA.validate(etree.parse(str(path)))  # the judge: libxml2 on the whole file
    report = Report()
    corefio.read(path, report=report)
    warned = [d for d in report.warnings if d.code == "schema.invalid"]
    assert warned and what in warned[0].message and warned[0].line == 8
    errors = corefio.validate(path).errors
    assert [e.code for e in errors] == ["schema.invalid"] and errors[0].line == 8


def test_raf_text_between_documents_and_root_attributes_are_warned_of(tmp_path):
    data = _raf_with("").replace(b'version="2.0">', b'version="2.0" colour="red">').replace(
        b"</struct>\n</struct>\n", b"</struct>\nstray text\n</struct>\n")
    path = tmp_path / "x.raf.xml"
    path.write_bytes(data)
    assert not RAF_SCHEMA.validate(etree.parse(str(path)))
    report = Report()
    corefio.read(path, report=report)
    messages = [d.message for d in report.warnings if d.code == "schema.invalid"]
    assert any("colour" in m for m in messages) and any("stray text" in m for m in messages)
    assert len(corefio.validate(path).errors) == 2


def test_raf_files_corefio_writes_read_without_a_schema_warning():
    for path in sorted(SAMPLES.glob("*.raf.xml")):
        report = Report()
        corefio.read(path, report=report)
        assert not [d for d in report.diagnostics if d.code == "schema.invalid"], path


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(["n", "s", "e", "ws", "v", "id", "empty", "x"]), st.sampled_from(["1", "0", "-3", "yes", "", "+2"]))
def test_raf_word_attributes_warned_of_exactly_where_the_schema_fails(name, value):
    data = _raf_with("").replace(b'<w n="1">a</w>', f'<w n="1" {name}="{value}">a</w>'.encode()
                                 if name != "n" else f'<w n="{value}">a</w>'.encode())
    schema_ok = RAF_SCHEMA.validate(etree.fromstring(data))
    report = Report()
    try:
        raf.loads(data, report=report)
    except CorefioError:
        return  # refused: validate reports it too
    assert schema_ok == (not [d for d in report.warnings if d.code == "schema.invalid"])


MATE_NS = mate.NS


@pytest.mark.parametrize("namespace", ["urn:not-mate", MATE_NS + "/"])
def test_mate_in_another_namespace_is_read_with_a_warning(namespace, tmp_path):
    text = (SAMPLES / "mate" / "key.mate.xml").read_text("utf-8").replace(f'"{MATE_NS}"', f'"{namespace}"')
    path = tmp_path / "x.mate.xml"
    path.write_text(text, "utf-8")
    report = Report()
    assert corefio.read(path, "mate", report=report).documents
    codes = {d.code for d in report.warnings}
    assert {"mate.namespace", "schema.invalid"} <= codes
    assert "schema.invalid" in {e.code for e in corefio.validate(path, "mate").errors}


def test_mate_attribute_the_schema_refuses_is_warned_of(tmp_path):
    text = (SAMPLES / "mate" / "key.mate.xml").read_text("utf-8").replace("<coref:anchor ", '<coref:anchor x="1" ', 1)
    path = tmp_path / "x.mate.xml"
    path.write_text(text, "utf-8")
    report = Report()
    corefio.read(path, "mate", report=report)
    warned = [d for d in report.warnings if d.code == "schema.invalid"]
    assert warned and "'x' is not allowed" in warned[0].message and warned[0].line is not None
    assert [e.code for e in corefio.validate(path, "mate").errors] == ["schema.invalid"]


def test_mate_samples_read_without_a_schema_warning():
    for path in sorted((SAMPLES / "mate").glob("*.mate.xml")):
        report = Report()
        corefio.read(path, "mate", report=report)
        assert not report.warnings, (path, report.format())


# -- MATE output always reads back and meets the XSD --------------------------------------------
def _mate_outputs(corpus: Corpus, report: Report) -> list[bytes]:
    inline = "".join(mate.write(corpus.documents, corpus=corpus, report=report)).encode("utf-8")
    return [inline, *mate.write_files(corpus, report=report, standoff=True).values()]


@pytest.mark.parametrize("form, written", [
    (" ", "_"), ("", "_"), ("\t\n", "\t_"), ("a\nb", "a_b"), ("x\x01", "x_"), ("\r", "_"),
    ("\u00a0", "\u00a0"), (" a ", " a "), ("\u3000", "\u3000"),
])
def test_mate_forms_are_written_as_the_schema_takes_them(form, written, tmp_path):
    doc = doc_of(["The", form, "end"], [Markable(id="m1", spans=((0, 1),), entity="e1"),
                                        Markable(id="m2", spans=((2, 2),), entity="e1")])
    report = Report()
    for data in _mate_outputs(Corpus(documents=[doc]), report):
        assert MATE_SCHEMA.validate(etree.fromstring(data)), MATE_SCHEMA.error_log
    path = tmp_path / "out.mate.xml"
    path.write_bytes(_mate_outputs(Corpus(documents=[doc]), Report())[0])
    again = corefio.read(path, "mate").documents[0]
    assert again.tokens.forms == ["The", written, "end"]
    assert any(d.code == "loss.form" for d in report.diagnostics) == (form != written)
    assert not corefio.validate(path, "mate").errors


def test_mate_ids_an_href_cannot_name_are_renamed_with_a_loss(tmp_path):
    doc = doc_of(["a", "b", "c"],
                 [Markable(id="m(1)", spans=((0, 0),), entity="e1"), Markable(id=" m2", spans=((1, 1),)),
                  Markable(id="x", spans=((2, 2),), entity="x")],
                 entities=[Entity(id="x")],
                 links=[Link(id="l1", source=" m2", target="m(1)", type="bridging")])
    report = Report()
    outputs = _mate_outputs(Corpus(documents=[doc]), report)
    for data in outputs:
        assert MATE_SCHEMA.validate(etree.fromstring(data)), MATE_SCHEMA.error_log
    assert any(d.code in ("loss.label", "loss.entity-ids") for d in report.diagnostics)
    path = tmp_path / "out.mate.xml"
    path.write_bytes(outputs[0])
    again = corefio.read(path, "mate").documents[0]
    assert [m.spans for m in again.markables] == [((0, 0),), ((1, 1),), ((2, 2),)]
    (link,) = [lk for lk in again.links if lk.type == "bridging"]
    by_ref = {m.id: m.first for m in again.markables}
    assert (by_ref[link.source], by_ref[link.targets[0]]) == (1, 0)


XML_FREE_TEXT = st.text(max_size=6)  # any character at all, control characters and surrogates too


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(documents(forms=XML_FREE_TEXT))
def test_mate_output_of_any_document_meets_the_xsd_and_reads_back(doc):
    corpus = Corpus(documents=[doc])
    report = Report()
    outputs = _mate_outputs(corpus, report)
    for data in outputs:
        assert MATE_SCHEMA.validate(etree.fromstring(data)), MATE_SCHEMA.error_log
    again = corefio.loads(outputs[0].decode("utf-8"), "mate").documents[0]
    assert len(again.tokens.forms) == len(doc.tokens.forms)
    changed = [a for a, b in zip(again.tokens.forms, doc.tokens.forms) if a != b]
    assert not changed or any(d.code == "loss.form" for d in report.diagnostics)
