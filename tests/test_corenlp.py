"""Stanford CoreNLP coreference output, JSON and XML: read, scored, hostile input located."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

import corefio
from corefio.cli import app
from corefio.errors import FormatError, UnsafeInputError

from .conftest import DATA

SYSTEMS = DATA / "systems"
CHAINS = [[(0, 0), (6, 6)], [(2, 2), (8, 8)], [(4, 4), (9, 10)]]


@pytest.mark.parametrize("name", ["anna.corenlp.json", "anna.corenlp.xml"])
def test_json_and_xml_read_the_same_chains_with_heads(name):
    doc = corefio.read(SYSTEMS / name).documents[0]
    assert doc.name == "anna" and len(doc.sentences) == 2
    assert [[(m.first, m.last) for m in chain] for chain in doc.chains()] == CHAINS
    assert [m.head for m in doc.chains()[2]] == [((4, 4),), ((10, 10),)]
    assert [m.attributes.get("representative") for m in doc.chains()[0]] == ["true", None]
    assert doc.tokens.offsets[10] == (39, 43) and doc.tokens.attributes["pos"][0] == "NNP"


def test_json_keeps_whitespace_and_mention_types():
    doc = corefio.read(SYSTEMS / "anna.corenlp.json").documents[0]
    text = "".join(f + w for f, w in zip(doc.tokens.forms, doc.tokens.whitespace))
    assert text == "Anna met Ben in Rome. She gave him the city map."
    assert doc.chains()[0][1].attributes["type"] == "PRONOMINAL"


@pytest.mark.parametrize("name", ["anna.corenlp.json", "anna.corenlp.xml"])
def test_scored_against_a_conllu_key_with_heads(name, tmp_path):
    key = tmp_path / "key.conllu"
    corefio.convert(SYSTEMS / "anna.e2e.jsonlines", key)
    response = tmp_path / ("out" + name[len("anna.corenlp"):])  # CoreNLP names its output input.txt.json
    shutil.copy(SYSTEMS / name, response)
    result = CliRunner().invoke(app, ["score", str(key), str(response), "--match", "head", "--format", "json"])
    assert result.exit_code == 0, result.output
    corpus = json.loads(result.stdout)["corpus"]
    assert corpus["muc"]["f1"] == 1.0 and corpus["mentions"]["recall"]["den"] == 6


def _json(edit):
    doc = json.loads((SYSTEMS / "anna.corenlp.json").read_text())
    edit(doc)
    return json.dumps(doc, indent=2)


@pytest.mark.parametrize("edit, words", [
    (lambda d: d["corefs"]["2"][1].update(endIndex=9), "are not inside sentence 2"),
    (lambda d: d["corefs"]["2"][1].update(sentNum=7), "sentNum 7"),
    (lambda d: d["corefs"]["2"][1].update(headIndex=2), "head 2 lies outside"),
    (lambda d: d["corefs"]["2"][1].update(startIndex="x"), "startIndex must be a whole number"),
    (lambda d: d.update(corefs=[1]), "corefs must map"),
    (lambda d: d["sentences"][1].update(tokens=3), "sentence 2 has no list of tokens"),
    (lambda d: d["sentences"][0]["tokens"][0].update(characterOffsetBegin=None), "characterOffsetBegin"),
])
def test_hostile_json_is_located(edit, words, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(_json(edit))
    with pytest.raises(FormatError) as info:
        corefio.read(path)
    assert words in str(info.value) and info.value.line >= 1 and info.value.file == str(path)


def test_a_bad_mention_is_located_at_its_line(tmp_path):
    text = _json(lambda d: d["corefs"]["2"][1].update(endIndex=9))
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(FormatError) as info:
        corefio.read(path)
    assert text.splitlines()[info.value.line - 1].strip() == '"id": 5,'


def test_broken_json_and_xml_are_located(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"sentences": [\n  {"index": 0,, }\n]}')
    with pytest.raises(FormatError) as info:
        corefio.read(path, "corenlp")
    assert info.value.line == 2
    xml = (SYSTEMS / "anna.corenlp.xml").read_text().replace("<end>2</end>", "<end>two</end>", 1)
    path = tmp_path / "bad.xml"
    path.write_text(xml)
    with pytest.raises(FormatError) as info:
        corefio.read(path)
    assert "whole number" in str(info.value)
    assert xml.splitlines()[info.value.line - 1].strip().startswith("<mention")


def test_xml_entities_are_refused(tmp_path):
    xml = (SYSTEMS / "anna.corenlp.xml").read_text().replace(
        "<root>", '<!DOCTYPE root [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<root>', 1)
    path = tmp_path / "evil.xml"
    path.write_text(xml)
    with pytest.raises(UnsafeInputError):
        corefio.read(path, "corenlp")


def test_detected_from_content_not_only_the_name(tmp_path):
    path = tmp_path / "output.txt.json"
    shutil.copy(SYSTEMS / "anna.corenlp.json", path)
    assert corefio.read(path).documents[0].name == "anna"
    path = tmp_path / "output.txt.xml"
    shutil.copy(SYSTEMS / "anna.corenlp.xml", path)
    assert corefio.read(path).documents[0].name == "anna"
