"""XMI files of nilsreiter/CorefAnnotator's test resources: CorefAnnotator's own layer
(``Mention``/``Entity``, entities outside every view), WebAnno CRETA exports whose
relation layer types identity with a value of its own (``LinkArt="Koreferenz"``), and
the defects they showed, each on a small file built here and on the real file."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import corefio
from corefio.cli import app
from corefio.diagnostics import Report
from corefio.errors import FormatError, UsageError
from corefio.formats import xmi

from .conftest import DATA
from .test_xmi import custom_layers_xmi, with_custom_types

REAL = DATA / "wild" / "xmi" / "corefannotator"
ROWLANDSON = REAL / "Rowlandson_Tanja.trimmed.xmi"
TEXT_1804 = REAL / "Text_1804.xmi"
API = b'xmlns:api="http:///de/unistuttgart/ims/coref/annotator/api.ecore" '


def with_corefannotator_layer() -> bytes:
    """The custom-layers XMI with CorefAnnotator's layer added: an ``Entity`` that names
    no sofa (a TOP, in no view) and a ``Mention`` naming it."""
    return (custom_layers_xmi().replace(b"xmlns:cas=", API + b"xmlns:cas=")
            .replace(b"<cas:Sofa", b'<api:Entity xmi:id="80" Label="Kim" Color="-1"/>'
                                   b'<api:Mention xmi:id="81" sofa="1" begin="0" end="3" Entity="80"/><cas:Sofa')
            .replace(b' 60"/>', b' 60 81"/>'))


def test_an_entity_outside_every_view_is_read():
    """Every command failed with ``cannot read the XMI document: KeyError: None``: the
    type inferred for ``Entity`` was an annotation, which needs a sofa it has not."""
    report = Report()
    doc = corefio.loads(with_corefannotator_layer(), "xmi", report=report).documents[0]
    assert len(doc.markables) == 5  # the Referent layer's; CorefAnnotator's Mention is not read, and said so
    said = next(d for d in report if d.code == "xmi.coreference-not-read")
    assert said.severity == "warning" and "1 Mention" in said.message


def test_corefannotators_own_file_is_read():
    result = CliRunner().invoke(app, ["info", str(ROWLANDSON)])
    assert result.exit_code == 0, result.output
    assert "1116 tokens" in result.stdout and "113 markables" in result.stdout
    assert "xmi.coreference-not-read" in result.stderr and "KeyError" not in result.output


def test_an_element_inside_a_feature_element_is_a_located_error():
    """cassis stopped with ``RuntimeError: Invalid state transition``, an internal error."""
    data = custom_layers_xmi().replace(
        b'<custom:Referent xmi:id="51" sofa="1" begin="8" end="10" entity="person"/>',
        b'<custom:Referent xmi:id="51" sofa="1" begin="8" end="10">\n<entity><x/></entity></custom:Referent>')
    with pytest.raises(FormatError, match="an element inside the feature element 'entity'") as caught:
        corefio.loads(data, "xmi")
    assert caught.value.line == 2


def test_a_document_whose_root_is_not_xmi_is_refused_at_its_line():
    data = b'<?xml version="1.0"?>\n<foo xmlns:xmi="http://www.omg.org/XMI" xmi:version="2.0"/>'
    with pytest.raises(FormatError, match="not an XMI document: its root element is 'foo'") as caught:
        corefio.loads(data, "xmi")
    assert caught.value.line == 2


def test_a_type_system_feature_without_a_readable_range_is_named_in_its_file(tmp_path):
    """cassis reads a range name split by a comment as no range; the error names the
    type system beside the XMI (its path, not a bare ``TypeSystem.xml``) and the line."""
    path = with_custom_types(tmp_path, custom_layers_xmi())
    system = tmp_path / "TypeSystem.xml"
    text = system.read_text(encoding="utf-8")
    system.write_text(text.replace("<rangeTypeName>uima.cas.String</rangeTypeName>",
                                   "<rangeTypeName><!-- x -->uima.cas.String</rangeTypeName>", 1), encoding="utf-8")
    with pytest.raises(FormatError, match="no range type that can be read") as caught:
        corefio.read(path)
    assert caught.value.file == str(system) and caught.value.line > 1


# -- relation values that mean identity -----------------------------------------------------
def creta_xmi() -> bytes:
    """The custom-layers XMI whose relation layer types its relations as CRETA's does:
    ``LinkArt="Koreferenz"`` (Kim <- She) and ``LinkArt="Gruppe"`` (Bo <- She)."""
    return (custom_layers_xmi().replace(b'type="ana"', b'LinkArt="Koreferenz"')
            .replace(b"<cas:Sofa", b'<custom:Coref xmi:id="61" sofa="1" begin="13" end="16" LinkArt="Gruppe" '
                                   b'Governor="52" Dependent="51"/><cas:Sofa')
            .replace(b' 60"/>', b' 60 61"/>'))


def test_relations_typed_with_a_value_of_their_own_are_said_to_be_typed_links():
    report = Report()
    doc = corefio.loads(creta_xmi(), "xmi", report=report).documents[0]
    assert sorted(link.type for link in doc.links) == ["Gruppe", "Koreferenz"]
    assert ["Kim", "She"] not in [sorted(c) for c in _chains(doc)]
    said = next(d for d in report if d.code == "xmi.relations-typed")
    assert said.severity == "warning"
    assert "2 Coref relation(s) read as typed links" in said.message and "Coref.LinkArt=" in said.message


@pytest.mark.parametrize("rule", ["Koreferenz", "LinkArt=Koreferenz", "Coref.LinkArt=Koreferenz",
                                  "webanno.custom.Coref.LinkArt=Koreferenz"])
def test_the_identity_option_reads_a_relation_value_as_coreference(rule):
    report = Report()
    doc = corefio.loads(creta_xmi(), "xmi", report=report, identity=rule).documents[0]
    assert sorted(sorted(c) for c in _chains(doc) if len(c) > 1) == [["Kim", "She"], ["left", "met"]]
    assert sorted((link.type, link.attributes.get("type")) for link in doc.links) == [
        ("Gruppe", None), ("coreference", "Koreferenz")]
    assert "xmi.relations-typed" not in report.codes() and "xmi.identity-unused" not in report.codes()


def test_an_identity_rule_that_matches_nothing_is_said():
    report = Report()
    corefio.loads(creta_xmi(), "xmi", report=report, identity="Other.LinkArt=Koreferenz")
    assert "'Other.LinkArt=Koreferenz' matched no relation" in next(
        d for d in report if d.code == "xmi.identity-unused").message


@pytest.mark.parametrize("rule", ["a.=b", "=b", "x="])
def test_a_malformed_identity_rule_is_a_usage_error(rule):
    with pytest.raises(UsageError, match="is not VALUE, FEATURE=VALUE or LAYER.FEATURE=VALUE"):
        xmi.identity_rules(rule)


def test_the_real_creta_export_is_read_with_its_identity_value(tmp_path):
    """Text_1804.xmi: 34 ``Koreferenz`` relations were links of type Koreferenz, with no
    way to read them as chains; ``info`` now says so, and the option reads them."""
    plain = CliRunner().invoke(app, ["info", str(TEXT_1804)])
    assert plain.exit_code == 0
    assert "xmi.relations-typed" in plain.stderr and "Koreferenz: 34" in plain.stderr
    assert "68 chains (67 singletons)" in plain.stdout
    read = CliRunner().invoke(app, ["info", "--from", "xmi:CRETALink.LinkArt=Koreferenz", str(TEXT_1804)])
    assert read.exit_code == 0, read.output
    assert "34 chains (23 singletons)" in read.stdout and "coreference: 34" in read.stdout
    assert "CRETALink relation(s) read as typed links" not in read.stderr
    target = tmp_path / "out.conll"
    converted = CliRunner().invoke(app, ["convert", "-r", "identity=Koreferenz", str(TEXT_1804), str(target)])
    assert converted.exit_code == 0, converted.output
    back = corefio.read(target).documents[0]
    assert len(back.markables) == 69 and len(list(back.chains())) == 34


def _chains(doc) -> list[list[str]]:
    return [[" ".join(doc.tokens.forms[m.first:m.last + 1]) for m in chain] for chain in doc.chains()]
