"""spaCy DocBin files with coref_clusters_N / coref_head_clusters_N span groups
(optional extra `spacy`): read, written, scored."""

from __future__ import annotations

import json
import sys

import pytest
from typer.testing import CliRunner

import corefio
from corefio.cli import app
from corefio.errors import FormatError, UsageError

from .conftest import DATA

spacy = pytest.importorskip("spacy")  # the `spacy` extra is part of the `test` extra
from spacy.tokens import Doc, DocBin  # noqa: E402

SYSTEMS = DATA / "systems"
WORDS = "Anna met Ben in Rome . She gave him the city map .".split()
CHAINS = [[(0, 0), (6, 6)], [(2, 2), (8, 8)], [(4, 4), (9, 10)]]


def chains(doc):
    return [[(m.first, m.last) for m in chain] for chain in doc.chains()]


def coref_component_output(path, *, with_spans=True):
    """A DocBin as spaCy's coreference pipeline leaves it (no user data, no doc names)."""
    vocab = spacy.blank("en").vocab
    sdoc = Doc(vocab, words=WORDS, spaces=[w not in ("Rome", "map") for w in WORDS[:-1]] + [False],
               sent_starts=[i in (0, 6) for i in range(len(WORDS))])
    heads = [[0, 6], [2, 8], [4, 10]]
    for c, (chain, head) in enumerate(zip(CHAINS, heads), 1):
        if with_spans:
            sdoc.spans[f"coref_clusters_{c}"] = [sdoc[a : b + 1] for a, b in chain]
        sdoc.spans[f"coref_head_clusters_{c}"] = [sdoc[h : h + 1] for h in head]
    doc_bin = DocBin()
    doc_bin.add(sdoc)
    path.write_bytes(doc_bin.to_bytes())
    return path


def test_a_coref_pipeline_docbin_reads_with_heads_and_scores(tmp_path):
    path = coref_component_output(tmp_path / "predictions.spacy")
    doc = corefio.read(path).documents[0]
    assert doc.name == "document_1" and doc.tokens.forms == WORDS and len(doc.sentences) == 2
    assert chains(doc) == CHAINS
    assert [m.head for m in doc.chains()[2]] == [((4, 4),), ((10, 10),)]
    assert "".join(f + w for f, w in zip(doc.tokens.forms, doc.tokens.whitespace)).startswith("Anna met Ben in Rome.")
    key = tmp_path / "key.conllu"
    corefio.convert(SYSTEMS / "anna.e2e.jsonlines", key)
    result = CliRunner().invoke(app, ["score", str(key), str(path), "--match", "head", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["corpus"]["muc"]["f1"] == 1.0


def test_head_clusters_alone_are_one_word_mentions(tmp_path):
    doc = corefio.read(coref_component_output(tmp_path / "h.spacy", with_spans=False)).documents[0]
    assert chains(doc)[2] == [(4, 4), (10, 10)]


def test_round_trip_keeps_names_parts_heads_and_sentences(tmp_path):
    corpus = corefio.read(SYSTEMS / "anna.wl.jsonlines")
    corefio.write(corpus, tmp_path / "out.spacy")
    again = corefio.read(tmp_path / "out.spacy").documents[0]
    doc = corpus.documents[0]
    assert (again.name, again.part) == (doc.name, doc.part)
    assert again.tokens.forms == doc.tokens.forms and len(again.sentences) == len(doc.sentences)
    assert [(m.spans, m.head) for m in again.markables] == [(m.spans, m.head) for m in doc.markables]
    sdoc = next(DocBin().from_bytes((tmp_path / "out.spacy").read_bytes()).get_docs(spacy.blank("en").vocab))
    assert [s.text for s in sdoc.spans["coref_clusters_3"]] == ["Rome", "the city"]
    assert [s.text for s in sdoc.spans["coref_head_clusters_3"]] == ["Rome", "city"]


def test_not_a_docbin_is_a_located_error(tmp_path):
    path = tmp_path / "x.spacy"
    path.write_bytes(b"\x00garbage")
    with pytest.raises(FormatError) as info:
        corefio.read(path)
    assert info.value.line == 1


def test_without_the_extra_a_usage_error_names_it(tmp_path, monkeypatch):
    path = coref_component_output(tmp_path / "p.spacy")
    monkeypatch.setitem(sys.modules, "spacy", None)
    with pytest.raises(UsageError, match=r"corefio\[spacy\]"):
        corefio.read(path)
    result = CliRunner().invoke(app, ["convert", str(path), str(tmp_path / "o.conllu")])
    assert result.exit_code == 2 and "corefio[spacy]" in result.output


def test_round_trip_on_gum_keeps_chains_heads_and_sentences(tmp_path):
    from .test_jsonlines_systems import round_trip_content

    round_trip_content("spacy", tmp_path)


def test_writing_without_the_extra_is_a_usage_error_naming_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "spacy", None)  # `import spacy` now fails
    corpus = corefio.read(SYSTEMS / "anna.e2e.jsonlines")
    with pytest.raises(UsageError, match=r"corefio\[spacy\]"):
        corefio.write(corpus, tmp_path / "out.spacy")
    result = CliRunner().invoke(app, ["convert", str(SYSTEMS / "anna.e2e.jsonlines"), str(tmp_path / "o.spacy")])
    assert result.exit_code == 2 and "corefio[spacy]" in result.output
    assert not (tmp_path / "o.spacy").exists()
    assert CliRunner().invoke(app, ["formats"]).exit_code == 0
