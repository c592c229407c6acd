"""The scoring layer: document matching, options, output shapes, and the streaming
two-process path giving the same counts as the in-memory one."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
from fractions import Fraction

import pytest

import corefio
from corefio.api import read, write
from corefio.diagnostics import Report
from corefio.errors import CorefioError, DocumentMismatchError
from corefio.metrics.base import Score
from corefio.model import Corpus, Document, Markable, Tokens
from corefio.scoring import METRICS, score

from .conftest import DATA, REPO, SAMPLES

CASES = DATA / "scorer-testcases" / "DataFiles"


def load_generator():
    spec = importlib.util.spec_from_file_location("generate_corpus", REPO / "benchmarks" / "generate_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory):
    """12 generated documents: a key and a response with realistic errors."""
    return load_generator().generate(tmp_path_factory.mktemp("bench"), docs=12)


def doc(name, chains, n=12, part=None, attributes=None):
    """A document whose chains are lists of (first, last) spans."""
    markables = []
    for c, chain in enumerate(chains):
        for a, b in chain:
            markables.append(Markable(id=f"m{len(markables)}", spans=((a, b),), entity=f"e{c}",
                                      attributes=(attributes or {}).get((a, b), {})))
    return Document(name=name, part=part, tokens=Tokens(forms=[f"w{i}" for i in range(n)]), markables=markables)


# -- the documented JSON shape ---------------------------------------------------------------
def test_json_shape_is_the_documented_one():
    result = corefio.score(SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml", per_document=True)
    data = json.loads(result.to_json())
    assert set(data) == {"corpus", "documents", "diagnostics"}
    assert list(data["corpus"]) == ["mentions", "muc", "bcub", "ceafm", "ceafe", "blanc", "lea", "conll"]
    muc = data["corpus"]["muc"]
    assert set(muc) == {"recall", "precision", "f1"}
    assert set(muc["recall"]) == {"num", "den", "value"}
    # seed 000 §1.4: MUC recall 11/13, precision 11/14
    assert (muc["recall"]["num"], muc["recall"]["den"]) == (11, 13)
    assert (muc["precision"]["num"], muc["precision"]["den"]) == (11, 14)
    assert muc["recall"]["value"] == pytest.approx(11 / 13)
    assert set(data["documents"]) == {d.label for d in read(SAMPLES / "key.raf.xml").documents}
    conll = data["corpus"]["conll"]["f1"]
    assert conll == pytest.approx((muc["f1"] + data["corpus"]["bcub"]["f1"] + data["corpus"]["ceafe"]["f1"]) / 3)


def test_documents_are_empty_unless_asked_for():
    data = score(SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml").to_dict()
    assert data["documents"] == {}


def test_every_metric_serialises(tmp_path):
    result = score(SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml", ["all"], per_document=True, macro=True)
    data = json.loads(result.to_json())
    assert set(data["corpus"]) == set(METRICS)
    text = result.to_text(per_document=True)
    for name in set(METRICS) - {"mentions"}:  # mentions head every block, as in scorer.pl
        assert f"METRIC {name}:" in text
    assert "Identification of Mentions: Recall: (17 / 17) 100%" in text
    rows = list(csv.reader(io.StringIO(result.to_csv())))
    assert rows[0][:2] == ["document", "metric"]
    assert {r[1].split(".")[0] for r in rows[1:]} == set(METRICS)
    assert "macro" in data


def test_text_output_looks_like_the_reference_scorer():
    text = score(CASES / "TC-A.key", CASES / "TC-A-2.response", ["muc"]).to_text()
    assert "METRIC muc:" in text
    assert "Identification of Mentions: Recall: (3 / 6) 50%\tPrecision: (3 / 3) 100%\tF1: 66.66%" in text
    assert "Coreference: Recall: (1 / 3) 33.33%\tPrecision: (1 / 1) 100%\tF1: 50%" in text


# -- matching documents -------------------------------------------------------------------------
def test_documents_are_matched_by_name_not_position():
    key = Corpus(documents=[doc("a", [[(0, 0), (1, 1)]]), doc("b", [[(2, 2), (3, 3)]])])
    response = Corpus(documents=[doc("b", [[(2, 2), (3, 3)]]), doc("a", [[(0, 0), (1, 1)]])])
    assert score(key, response, ["muc"])["muc"].f1 == 1


def test_numeric_parts_match_as_numbers():
    key = Corpus(documents=[doc("a", [[(0, 0), (1, 1)]], part="000")])
    response = Corpus(documents=[doc("a", [[(0, 0), (1, 1)]], part="0")])
    assert score(key, response, ["muc"])["muc"].f1 == 1


def test_names_that_do_not_match_are_an_error():
    key = Corpus(documents=[doc("a", [[(0, 0), (1, 1)]]), doc("b", [])])
    response = Corpus(documents=[doc("a", [[(0, 0), (1, 1)]]), doc("c", [])])
    with pytest.raises(DocumentMismatchError) as info:
        score(key, response)
    assert "'b'" in str(info.value) and "'c'" in str(info.value)
    assert info.value.exit_code == 3


def test_allow_missing_scores_a_missing_document_as_empty():
    key = Corpus(documents=[doc("a", [[(0, 0), (1, 1)]]), doc("b", [[(2, 2), (3, 3)]])])
    response = Corpus(documents=[doc("a", [[(0, 0), (1, 1)]])])
    report = Report()
    result = score(key, response, ["muc", "mentions"], allow_missing=True, report=report)
    assert result["muc"] == Score(1, 2, 1, 1)
    assert result["mentions"] == Score(2, 4, 2, 2)
    assert "score.document-mismatch" in report.codes()


def test_e2e_coref_jsonlines_names_match_conll_parts(tmp_path):
    """e2e-coref writes doc keys as NAME_PART; a unique such name matches NAME part P."""
    key = Corpus(documents=[doc("news/a", [[(0, 0), (1, 1)]], part="002")])
    response = Corpus(documents=[doc("news/a_2", [[(0, 0), (1, 1)]])])
    report = Report()
    assert score(key, response, ["muc"], report=report)["muc"].f1 == 1
    assert "score.loose-match" in report.codes()


# -- options ------------------------------------------------------------------------------------
def test_singletons_kept_or_dropped():
    key = Corpus(documents=[doc("a", [[(0, 0), (1, 1)], [(2, 2)], [(3, 3)]])])
    response = Corpus(documents=[doc("a", [[(0, 0), (1, 1)], [(2, 2)], [(5, 5)]])])
    kept = score(key, response, ["mentions", "bcub"])
    assert kept["mentions"] == Score(3, 4, 3, 4)
    dropped = score(key, response, ["mentions", "bcub"], keep_singletons=False)
    assert dropped["mentions"] == Score(2, 2, 2, 2)
    assert dropped["bcub"].f1 == 1
    assert kept["bcub"].f1 < 1


def test_repeated_mentions_are_a_warning_and_the_first_chain_keeps_them():
    key = Corpus(documents=[doc("a", [[(0, 0), (1, 1)], [(2, 2), (3, 3)]])])
    response = Corpus(documents=[doc("a", [[(0, 0), (1, 1)], [(1, 1), (2, 2), (3, 3)]])])
    report = Report()
    result = score(key, response, ["muc", "mentions"], report=report)
    assert result["mentions"] == Score(4, 4, 4, 4)
    assert result["muc"].f1 == 1
    (warning,) = report.by_code("score.duplicate-mention")
    assert warning.severity == "warning" and warning.count == 1


def test_corpus_counts_are_sums_of_document_counts_and_macro_is_their_mean(small_corpus):
    key, response = small_corpus
    result = score(key, response, ["all"], per_document=True, macro=True, workers=1)
    assert len(result.documents) == 12
    for name in ("mentions", "muc", "bcub", "ceafm", "ceafe", "lea", "bcub_sys", "ceafm_sys", "core", "xcore"):
        total = result.documents[0].results[name]
        for d in result.documents[1:]:
            total = total + d.results[name]
        assert total == result[name], name
        mean = sum(float(d.results[name].f1) for d in result.documents) / 12
        assert result.macro[name]["f1"] == pytest.approx(mean)
    blanc = result.documents[0].results["blanc"]
    for d in result.documents[1:]:
        blanc = blanc + d.results["blanc"]
    assert blanc == result["blanc"]


def test_streaming_and_in_memory_scoring_agree(small_corpus):
    key, response = small_corpus
    names = ["all"]
    in_memory = score(read(key), read(response), names, per_document=True).to_dict()
    one = score(key, response, names, per_document=True, workers=1).to_dict()
    two = score(key, response, names, per_document=True, workers=2).to_dict()
    assert one["corpus"] == in_memory["corpus"]
    assert two["corpus"] == in_memory["corpus"]
    assert one["documents"] == two["documents"] == in_memory["documents"]


def test_any_readable_format_gives_the_same_scores(small_corpus, tmp_path):
    key, response = small_corpus
    expected = score(key, response, ["default"]).to_dict()["corpus"]
    for extension in (".raf.xml", ".jsonlines"):
        k, r = tmp_path / f"key{extension}", tmp_path / f"response{extension}"
        write(read(key), k)
        write(read(response), r)
        assert score(k, r, ["default"]).to_dict()["corpus"] == expected, extension


def test_token_mismatch_is_reported():
    key = Corpus(documents=[doc("a", [[(0, 0), (1, 1)]], n=12)])
    response = Corpus(documents=[doc("a", [[(0, 0), (1, 1)]], n=11)])
    report = Report()
    score(key, response, ["muc"], report=report)
    assert "score.token-mismatch" in report.codes()


def test_unknown_metric_is_a_clear_error():
    with pytest.raises(CorefioError, match="unknown metric 'mucc'"):
        score(SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml", ["mucc"])


def test_typed_evaluation_uses_markable_attributes():
    attrs = {(0, 1): {"coref_type": "dpns", "dominant": True}, (5, 6): {"coref_type": "dabr"},
             (11, 11): {"coref_type": "gfas"}, (13, 13): {"coref_type": "ppas"}}
    key = Corpus(documents=[doc("obama", [[(0, 1), (5, 6), (11, 11), (13, 13)]], n=14, attributes=attrs)])
    response_attrs = dict(attrs)
    response_attrs[(11, 11)] = {"coref_type": "gfas", "dominant": True}
    response = Corpus(documents=[doc("obama", [[(0, 1), (5, 6)], [(11, 11), (13, 13)]], n=14,
                                     attributes=response_attrs)])
    data = score(key, response, ["typed"]).to_dict()["corpus"]["typed"]
    assert data["micro"]["precision"] == 0.75 and data["micro"]["recall"] == 0.5
    assert data["classes"]["d"]["counts"]["TP"] == 1
    assert data["classes"]["p"]["counts"]["WL"] == 1
    assert data["classes"]["g"]["counts"]["FN"] == 1
    # coefficients are options
    data = score(key, response, ["typed"], coefficients=[1, 1, 1, 1]).to_dict()["corpus"]["typed"]
    assert data["micro"]["precision"] == 1.0


def test_kappa_of_a_corpus_uses_summed_counts():
    key = Corpus(documents=[doc("a", [[(0, 0), (1, 1)], [(2, 2)]]), doc("b", [[(0, 0), (1, 1), (2, 2)]])])
    response = Corpus(documents=[doc("a", [[(0, 0)], [(1, 1), (2, 2)]]), doc("b", [[(0, 0), (1, 1)], [(2, 2)]])])
    result = score(key, response, ["kappa", "muc"])
    # MUC counts: a = 1, key links 3, response links 2; N = (3 - 1) + (3 - 1) = 4
    a, c, b = 1, 2, 1
    d = 4 - a - b - c
    p_ao = Fraction(a + d, 4)
    p_ah = Fraction((a + c) * (a + b) + (c + d) * (b + d), 16)
    assert result["kappa"].value == (p_ao - p_ah) / (1 - p_ah)
