"""``corefio validate``: structural XSD (libxml2), the RAF reader's checks and the model
checks, every finding with its code (documented in corefio/checks/validation.py) and its line."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest
from lxml import etree

import corefio.checks.validation as validation
from corefio.formats import raf
from corefio.model import Corpus, Document, Link, Markable, Sentence, Tokens
from corefio.checks.validation import load_schema, validate_file

from .conftest import DATA, SAMPLES

REGRESSIONS = DATA / "regressions"
DOCUMENTED = set(re.findall(r"^``([a-z]+\.[a-z-]+)``", validation.__doc__, re.M))


def findings(report) -> list[tuple[str, int | None]]:
    return [(d.code, d.line) for d in report]


def check_documented(report) -> None:
    assert {d.code for d in report} <= DOCUMENTED


def write(tmp_path: Path, text: str, name: str = "f.raf.xml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<struct type="reference_annotation_collection" version="2.0">\n'


def doc_xml(body: str) -> str:
    return (HEAD + '<struct type="document" name="d">\n<struct type="primary_data">\n'
            '<w>a</w>\n<w>b</w>\n<w>c</w>\n</struct>\n' + body + "</struct>\n</struct>\n")


@pytest.mark.parametrize("path", [SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml",
                                  DATA / "golden" / "features.raf.xml"])
def test_written_files_have_no_errors(path):
    report = validate_file(path)
    assert report.errors == []
    check_documented(report)


def test_layout_of_a_format_that_is_not_installed_is_a_warning(tmp_path):
    data = (DATA / "golden" / "features.raf.xml").read_bytes().replace(b'format="probe"', b'format="gone"')
    path = tmp_path / "g.raf.xml"
    path.write_bytes(data)
    report = validate_file(path)
    assert report.errors == [] and "raf.unknown-layout" in report.codes()


def test_the_schema_is_xsd_1_0_checked_by_libxml2():
    assert isinstance(load_schema("raf.xsd"), etree.XMLSchema)
    from corefio.io.resources import schema_path

    text = Path(schema_path("raf.xsd")).read_text()
    assert "xs:assert" not in text and "vc:minVersion" not in text


def test_schema_errors_have_lines(tmp_path):
    path = write(tmp_path, doc_xml('<struct type="markable" id="m1" span="1..x"/>\n'
                                   '<struct type="blob" id="b"/>\n'))
    report = validate_file(path)
    schema = [(d.line, d.message) for d in report if d.code == "schema.invalid"]
    assert [line for line, _ in schema] == [9, 10]
    assert "span" in schema[0][1] and "blob" in schema[1][1]
    check_documented(report)


def test_reader_findings_have_lines(tmp_path):
    path = write(tmp_path, doc_xml(
        '<struct type="markable" id="m1" span="1..2"/>\n'
        '<struct type="markable" id="m1" span="3"/>\n'
        '<struct type="markable" id="m2" span="2..7"/>\n'
        '<struct type="reflink" id="r1" source="m1" target="m9"/>\n'))
    report = validate_file(path)
    assert ("raf.duplicate-id", 10) in findings(report)
    assert ("raf.dangling-target", 11) in findings(report)
    assert ("raf.dangling-link", 12) in findings(report)
    check_documented(report)


def test_errors_in_several_documents_are_all_reported(tmp_path):
    one = ('<struct type="document" name="{name}">\n<struct type="primary_data">\n<w>a</w>\n</struct>\n'
           '<struct type="reflink" id="r" source="x" target="y"/>\n</struct>\n')
    path = write(tmp_path, HEAD + one.format(name="a") + one.format(name="b") + "</struct>\n")
    report = validate_file(path)
    assert [d.line for d in report if d.code == "raf.dangling-link"] == [7, 7, 13, 13]


def test_chain_attributes_that_disagree_are_reported(tmp_path):
    path = write(tmp_path, doc_xml('<struct type="markable" id="m1" span="1" chain="1"/>\n'
                                   '<struct type="markable" id="m2" span="2" chain="1"/>\n'))
    report = validate_file(path)
    found = [d for d in report if d.code == "raf.chain-mismatch"]
    assert len(found) == 1 and found[0].line == 10 and "m2" in found[0].examples[0]
    check_documented(report)


def test_model_findings(tmp_path):
    doc = Document(
        name="d", tokens=Tokens(forms=list("abcdef")), sentences=[Sentence(first=0, last=2), Sentence(first=3, last=5)],
        markables=[Markable(id="m1", spans=((0, 1),), entity="A"), Markable(id="m2", spans=((0, 1),), entity="B"),
                   Markable(id="m3", spans=((1, 3),))],
        links=[Link(id="l1", source="m1", target="m2"), Link(id="l2", source="m3", target="m3")])
    path = tmp_path / "m.raf.xml"
    path.write_bytes(raf.dumps(Corpus(documents=[doc, doc])))
    report = validate_file(path)
    codes = {d.code for d in report}
    assert {"model.duplicate-mention", "model.crossing-mentions", "model.cross-sentence-mention",
            "model.self-link", "model.mixed-entities", "model.duplicate-document"} <= codes
    assert report.errors == []
    check_documented(report)


def test_not_well_formed_xml_names_the_line(tmp_path):
    path = write(tmp_path, HEAD + '<struct type="document" name="d">\n<w>a</x>\n')
    report = validate_file(path)
    assert findings(report)[0] == ("xml.not-well-formed", 4)


def test_entity_declarations_are_refused(tmp_path):
    path = write(tmp_path, '<?xml version="1.0"?>\n<!DOCTYPE struct [<!ENTITY a "aaaa">]>\n'
                 '<struct type="reference_annotation_collection" version="2.0"/>\n')
    report = validate_file(path)
    assert [d.code for d in report] == ["xml.not-well-formed"]
    assert "entity" in report.errors[0].message.lower()


def test_x01_undefined_entity_is_reported_with_its_line():
    """Regression for X01_raf_undefined_entity_form_silently_empty.raf.xml."""
    report = validate_file(REGRESSIONS / "X01_raf_undefined_entity_form_silently_empty.raf.xml")
    assert ("raf.undefined-entity", 3) in findings(report)
    check_documented(report)


def test_p01b_validates_and_reads():
    """Regression for P01b_raf_0.25MB.raf.xml (RAF 1.0; validate took 12.9 s with the XSD
    1.1 assertions): the structural schema accepts RAF 1.0 too, and the reader's checks
    find nothing but the crossing mentions the file has."""
    path = REGRESSIONS / "P01b_raf_0.25MB.raf.xml"
    report = validate_file(path)
    assert report.errors == []
    assert {d.code for d in report} <= {"model.crossing-mentions", "model.duplicate-mention"}


def test_other_formats_are_validated_through_their_reader(tmp_path):
    path = tmp_path / "d.conll"
    path.write_text("#begin document (d); part 000\nd 0 0 a (1)\nd 0 1 b (1\n\n#end document\n")
    report = validate_file(path)
    assert report.errors and all(d.code not in ("schema.invalid", "xml.not-well-formed") for d in report)
    good = validate_file(DATA / "golden" / "sample.conll")
    assert good.errors == []


def test_unknown_format_is_reported(tmp_path):
    path = write(tmp_path, "x", "f.unknown")
    report = validate_file(path)
    assert [d.code for d in report] == ["format.unknown"]


def test_word_numbers_that_are_not_positions_are_reported(tmp_path):
    path = write(tmp_path, HEAD + '<struct type="document" name="d">\n<struct type="primary_data">\n'
                 '<w n="1">a</w>\n<w n="3">b</w>\n</struct>\n</struct>\n</struct>\n')
    report = validate_file(path)
    found = [d for d in report if d.code == "raf.word-number"]
    assert len(found) == 1 and found[0].line == 6 and "word 2" in found[0].examples[0]
    check_documented(report)


def test_attribute_values_are_checked_against_the_scheme():
    from corefio.diagnostics import Report
    from corefio.model import Corpus, Document, Markable, Scheme, SchemeAttribute, SchemeValue, Tokens
    from corefio.checks.validation import check_corpus

    scheme = Scheme(layer=None, attributes=[SchemeAttribute(name="NP_Form", type="nominal_list",
                                                            values=[SchemeValue(name="NE"), SchemeValue(name="PPER")])])
    doc = Document(name="d", tokens=Tokens(forms=["a", "b"]),
                   markables=[Markable(id="m1", spans=((0, 0),), attributes={"np_form": "pper"}),
                              Markable(id="m2", spans=((1, 1),), attributes={"np_form": "defnp"})])
    report = Report()
    check_corpus(Corpus(documents=[doc], schemes=[scheme]), report)
    found = report.by_code("model.scheme-value")
    assert len(found) == 1 and found[0].examples == ["m2: 'defnp'"]


# -- the model's findings name the line of their first token ----------------------------------------
CROSSING = """#begin document (a); part 000
a	0	0	The	DT	*	-	-	-	-	*	(1
a	0	1	big	JJ	*	-	-	-	-	*	(2
a	0	2	dog	NN	*	-	-	-	-	*	1)
a	0	3	barked	VBD	*	-	-	-	-	*	2)

#end document
#begin document (b); part 000
b	0	0	A	DT	*	-	-	-	-	*	-
b	0	1	big	JJ	*	-	-	-	-	*	(1
b	0	2	dog	NN	*	-	-	-	-	*	(2
b	0	3	barked	VBD	*	-	-	-	-	*	1)
b	0	4	loud	RB	*	-	-	-	-	*	2)

#end document
"""


def _crossing(report) -> list[tuple[int | None, str | None, list[str]]]:
    return [(d.line, d.document, d.examples) for d in report.by_code("model.crossing-mentions")]


def test_model_findings_name_the_line_of_their_first_token_and_quote_words(tmp_path):
    """Once, a crossing in a CoNLL file was shown as ``markable_6×markable_7`` (ids the
    reader made up) without a line."""
    path = write(tmp_path, CROSSING, "x.conll")
    assert _crossing(validate_file(path)) == [(3, "a (part 000)", ["'The big dog' × 'big dog barked'"]),
                                             (11, "b (part 000)", ["'big dog barked' × 'dog barked loud'"])]


@pytest.mark.parametrize("fmt", ["conllu", "ua", "jsonlines", "raf"])
def test_the_lines_are_found_in_every_format_that_has_them(tmp_path, fmt):
    """The same crossings, written in another format: their lines there are those of the
    tokens where the crossing mentions start, ``big`` and ``dog`` (JSON lines: each
    document's line)."""
    from corefio import api

    target = tmp_path / f"x.{fmt}"
    api.convert(write(tmp_path, CROSSING, "x.conll"), target, "conll", fmt)
    report = validate_file(target, fmt)
    lines = target.read_text(encoding="utf-8").splitlines()
    got = [line for line, _, _ in _crossing(report)]
    if fmt == "jsonlines":
        assert got == [1, 2]
    else:
        assert len(got) == 2, got
        assert re.search(r"\bbig\b", lines[got[0] - 1]) and re.search(r"\bdog\b", lines[got[1] - 1]), (got, lines)


def test_a_scan_that_disagrees_with_the_reader_gives_no_line(tmp_path):
    """A document whose tokens the scan counts otherwise than the reader (or that the
    scan does not find) gets no line rather than a wrong one; formats without a scan, none."""
    path = write(tmp_path, CROSSING, "x.conll")
    from corefio.io.source import Source

    lines = validation.SourceLines(Source.of(path), "conll")
    assert lines.line(0, 1, 4) == 3 and lines.line(0, 1, 5) is None and lines.line(2, 0, 4) is None
    assert validation.SourceLines.of(Source.of(path), "mmax2") is None


def test_findings_in_runs_of_a_file_name_the_same_lines(tmp_path):
    """``validate --jobs`` cuts a large file into runs of documents: a run knows where in
    the file it starts, so its findings name the lines reading the whole file names."""
    from corefio.formats.registry import get_format
    from corefio.io.source import Source

    path = write(tmp_path, CROSSING, "x.conll")
    spec = get_format("conll")
    source = Source.of(path)
    _, (second, line) = spec.document_starts(source)
    report, checks = validation.Report(str(path)), validation.Report(str(path))
    run = spec.stream_range(source, (second, path.stat().st_size, 1, line), report=report, strict=False)
    validation.read_and_check(spec, source, report, checks, defaultdict(int), run, first_document=1)
    assert _crossing(checks) == _crossing(validate_file(path))[1:]
    unplaced = validation.Report(str(path))
    run = spec.stream_range(source, (second, path.stat().st_size, 1, line), report=report, strict=False)
    validation.read_and_check(spec, source, report, unplaced, defaultdict(int), run)  # where the run starts: not said
    assert [line for line, _, _ in _crossing(unplaced)] == [None]


def test_the_real_webanno_file_names_the_line_of_its_first_duplicate_mention():
    path = DATA / "wild" / "inception" / "webanno" / "coref.tsv"
    (found,) = validate_file(path).by_code("model.duplicate-mention")
    assert found.line == 1792 and found.count == 84
    assert path.read_text(encoding="utf-8").splitlines()[1791].split("\t")[2] == "ihm"
    assert found.examples[0] == "'ihm' ×2"
