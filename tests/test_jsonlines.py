"""jsonlines (e2e-coref): clusters, speakers, extra keys, errors, round trips."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import corefio
from corefio.diagnostics import Report
from corefio.errors import FormatError
from corefio.formats import jsonlines
from corefio.model import Corpus, Tokens

from .conftest import DATA
from .strategies import documents

SINGE = DATA / "corpora/democrat-singe-jsonlines/singe.jsonlines"


def test_singe_round_trips_byte_for_byte():
    corpus = corefio.read(SINGE)
    doc = corpus.documents[0]
    assert (doc.name, doc.part) == ("ge/articleswiki_singe.xml", "000")
    assert len(doc.tokens.forms) == 1988 and len(doc.sentences) == 68
    chains = doc.chains()
    assert len(chains) == 388 and sum(1 for c in chains if len(c) == 1) == 321
    assert sum(len(c) for c in chains) == 562
    assert json.loads(doc.metadata["jsonlines.paragraphs"])[:2] == [[0, 0], [1, 36]]
    assert jsonlines.dumps(corpus) == SINGE.read_text(encoding="utf-8")


def test_clusters_and_speakers():
    line = json.dumps({"doc_key": "bc/x_0", "sentences": [["He", "said"], ["it", "."]],
                       "speakers": [["A", "A"], ["B", "B"]], "clusters": [[[0, 0]], [[2, 2]]]})
    doc = jsonlines.loads(line).documents[0]
    assert doc.name == "bc/x_0" and doc.part is None
    assert doc.tokens.attributes["speaker"] == ["A", "A", "B", "B"]
    assert [[m.spans for m in c] for c in doc.chains()] == [[((0, 0),)], [((2, 2),)]]
    assert jsonlines.dumps(jsonlines.loads(line)) == line + "\n"


@pytest.mark.parametrize("line, words", [
    ('{"doc_key": "d", "sentences": [["a"]], "clusters": [[[0, 3]]]}', "outside the 1 tokens"),
    ('{"doc_key": "d", "sentences": [["a"]], "clusters": [[[0]]]}', "is not [start, end]"),
    ('{"doc_key": "d", "sentences": [["a"]]}', "missing key 'clusters'"),
    ('{"doc_key": "d", "sentences": [["a"]], "speakers": [], "clusters": []}', "same shape"),
    ('{"doc_key": "d", "sentences": [["a"]], "clusters": []', "not valid JSON"),
    ('[1, 2]', "JSON object"),
])
def test_bad_lines_name_the_line(line, words):
    text = '{"doc_key": "ok", "sentences": [["a"]], "clusters": []}\n' + line + "\n"
    with pytest.raises(FormatError) as info:
        jsonlines.loads(text, file="t.jsonlines")
    assert info.value.line == 2 and words in str(info.value)


def test_losses_are_reported():
    corpus = corefio.read(DATA / "golden" / "features.raf.xml")
    report = Report()
    jsonlines.dumps(corpus, report=report)
    assert {"loss.discontinuous-mention", "loss.link-type", "loss.markable-attribute",
            "loss.whitespace", "loss.metadata"} <= report.codes()


FORM = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=5)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(forms=FORM, with_links=False, with_attributes=False))
def test_random_documents_round_trip(doc):
    contiguous = [m for m in doc.markables if len(m.spans) == 1]
    doc = doc.model_copy(update={"markables": contiguous, "links": [], "entities": [], "metadata": {},
                                 "tokens": Tokens(forms=doc.tokens.forms)})
    text = jsonlines.dumps(Corpus(documents=[doc]))
    back = jsonlines.loads(text).documents[0]
    assert back.tokens.forms == doc.tokens.forms
    assert sorted(sorted(m.spans for m in c) for c in back.chains()) == \
        sorted(sorted(m.spans for m in c) for c in doc.chains())
    assert jsonlines.dumps(jsonlines.loads(text)) == text
