"""The scoring layer: document matching, options, output shapes, and the streaming
two-process path giving the same counts as the in-memory one."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import os
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

import corefio
from corefio.api import read, write
from corefio.diagnostics import Report
from corefio.errors import CorefioError, DocumentMismatchError
from corefio.metrics.base import Score
from corefio.model import Corpus, Document, Markable, Tokens
from corefio.scoring import METRICS, score

from .conftest import DATA, REPO, SAMPLES, campaign
from .strategies import scoring_corpora

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
    # Popescu-Belis (2000) §1.4: MUC recall 11/13, precision 11/14
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


def test_singletons_leave_before_mentions_are_matched():
    """Without singletons, head matching pairs the key mention (0, 2) with the response
    mention (0, 0) of a chain, not with a response singleton of the same span that
    scoring drops anyway (corefud-scorer, the UA scorer and coval drop singletons when
    they read the files; the real file is in tests/test_wild_corefud.py)."""
    key = Corpus(documents=[doc("a", [[(0, 2), (5, 5)]])])
    response = Corpus(documents=[doc("a", [[(0, 2)], [(0, 0), (5, 5)]])])
    for sync in (None, "key"):
        result = score(key, response, ["muc", "mentions"], keep_singletons=False, match="head", sync=sync)
        mentions = result.mentions["mentions"] if sync else result["mentions"]
        assert mentions == Score(2, 2, 2, 2)
        muc = result.sets["key"]["muc"] if sync else result["muc"]
        assert muc == Score(1, 1, 1, 1)
    # singletons kept: the exact pair comes first, and (0, 0) is an invented mention
    kept = score(key, response, ["muc", "mentions"], match="head")
    assert kept["mentions"] == Score(2, 2, 2, 3) and kept["muc"] == Score(0, 1, 0, 1)


ZERO_IN_A_CHAIN = """# newdoc id = z
# global.Entity = eid-etype-head-other
# sent_id = z-1
# text = w1 w2 w3 w4 w5 w6
1\tw1\t_\t_\t_\t_\t0\troot\t_\tEntity=(e1-x-1-)
2\tw2\t_\t_\t_\t_\t1\tdep\t_\t_
2.1\t_\t_\t_\t_\t_\t_\t_\t1:nsubj\tEntity=(e2-x-1-)
3\tw3\t_\t_\t_\t_\t1\tdep\t_\tEntity=(e2-x-1-)
4\tw4\t_\t_\t_\t_\t1\tdep\t_\tEntity=(e3-x-1-)
5\tw5\t_\t_\t_\t_\t1\tdep\t_\tEntity=(e3-x-1-)
6\tw6\t_\t_\t_\t_\t1\tdep\t_\t_

"""


def test_a_chain_that_loses_its_zero_is_no_singleton_to_drop():
    """Singletons leave first, zeros after (the UA scorer's ``process_clusters``): the
    chain of a zero and w3 keeps w3 when zeros are dropped."""
    corpus = corefio.loads(ZERO_IN_A_CHAIN, "conllu")
    dropped = score(corpus, corpus, ["mentions", "bcub"], keep_singletons=False)
    assert dropped["mentions"] == Score(3, 3, 3, 3) and dropped["bcub"].f1 == 1
    kept_zeros = score(corpus, corpus, ["mentions"], keep_singletons=False, keep_zeros=True)
    assert kept_zeros["mentions"] == Score(4, 4, 4, 4)
    assert score(corpus, corpus, ["mentions"])["mentions"] == Score(4, 4, 4, 4)  # w1 and w3..w5


def test_a_chain_listing_one_span_twice_is_a_singleton():
    """corefud-scorer counts a span once per entity: such an entity has one mention."""
    from corefio.compare.matching import without_singletons
    from corefio.model.mentions import Mention, MentionView

    view = MentionView("d", list("abcd"), [[Mention(((0, 0),)), Mention(((0, 0),))], [Mention(((1, 1),)),
                                                                                    Mention(((2, 2),))]])
    assert without_singletons(view).chains == [[((1, 1),), ((2, 2),)]]


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


def test_a_response_with_another_text_is_refused_where_it_diverges():
    from corefio.compare.alignment import AlignmentError

    key = Corpus(documents=[doc("a", [[(0, 0), (1, 1)]], n=12)])
    response = Corpus(documents=[doc("a", [[(0, 0), (1, 1)]], n=11)])
    with pytest.raises(AlignmentError, match="diverge"):
        score(key, response, ["muc"])


def test_same_number_of_tokens_with_other_words_is_a_warning_as_in_scorer_pl():
    key = Corpus(documents=[doc("a", [[(0, 0), (1, 1)]], n=4)])
    other = key.documents[0].tokens.copy(forms=["x", "y", "z", "w"])
    response = Corpus(documents=[key.documents[0].copy(tokens=other)])
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


# -- kappa as printed, and its d >= 0 variant -------------------------------------------------
CROWDED_KEY = [[(i, i) for i in range(9)], [(9, 9), (10, 10)]]
CROWDED_RESPONSE = [[(i, i) for i in (0, 1, 2, 3, 4, 5, 6, 7, 9)], [(8, 8), (10, 10)]]


def test_kappa_below_minus_one_is_kept_and_reported():
    """a = 7, b = c = 2, |E| - 1 = 10: DEF.7 gives d = -1 and kappa = -11/9 (Popescu-Belis et al. 2004
    observed such values); kappa_d0 takes d = 0: -2/9 (tests/test_metrics.py)."""
    key = Corpus(documents=[doc("a", CROWDED_KEY)])
    response = Corpus(documents=[doc("a", CROWDED_RESPONSE)])
    report = Report()
    result = score(key, response, ["kappa", "kappa_d0"], per_document=True, report=report)
    assert result["kappa"].value == Fraction(-11, 9)
    assert result["kappa_d0"].value == Fraction(-2, 9)
    assert result.documents[0].results["kappa"].value == Fraction(-11, 9)
    found = report.by_code("score.kappa-out-of-range")
    assert len(found) == 1 and found[0].severity == "warning"
    assert found[0].count == 2  # the document and the corpus
    assert any("-1.22222" in example for example in found[0].examples)


def test_kappa_in_range_is_not_reported():
    key = Corpus(documents=[doc("a", [[(0, 0), (1, 1)], [(2, 2)]])])
    response = Corpus(documents=[doc("a", [[(0, 0)], [(1, 1), (2, 2)]])])
    report = Report()
    score(key, response, ["kappa", "kappa_d0"], report=report)
    assert not report.by_code("score.kappa-out-of-range")


def test_kappa_of_a_corpus_sums_the_def7_counts_even_when_d_is_negative():
    """Document a: a=7, b=2, c=2, N=10; document b: a=1, b=0, c=0, N=1 (two mentions,
    linked on both sides). Summed: a=8, b=2, c=2, N=11, d=-1: p_Ao = 7/11,
    p_Ah = (10*10 + 1*1)/121, kappa = (77 - 101)/121 / (20/121) = -6/5."""
    key = Corpus(documents=[doc("a", CROWDED_KEY), doc("b", [[(0, 0), (1, 1)]])])
    response = Corpus(documents=[doc("a", CROWDED_RESPONSE), doc("b", [[(0, 0), (1, 1)]])])
    result = score(key, response, ["kappa"])
    assert result["kappa"].value == Fraction(-6, 5)


# -- outputs --------------------------------------------------------------------------------
def test_csv_has_the_macro_rows():
    key = Corpus(documents=[doc("a", [[(0, 0), (1, 1)]]), doc("b", [[(0, 0), (1, 1), (2, 2)]])])
    response = Corpus(documents=[doc("a", [[(0, 0), (1, 1)]]), doc("b", [[(0, 0)], [(1, 1), (2, 2)]])])
    result = score(key, response, ["muc", "blanc"], macro=True)
    rows = list(csv.reader(io.StringIO(result.to_csv(per_document=False))))
    macro = {r[1]: r for r in rows if r[0] == "#macro"}
    assert set(macro) == {"mentions", "muc", "blanc"}
    # MUC: document a 1/1, 1/1; document b recall 1/2, precision 1/1
    assert float(macro["muc"][4]) == pytest.approx((1 + 0.5) / 2)
    assert float(macro["muc"][7]) == pytest.approx(1.0)
    assert float(macro["muc"][8]) == pytest.approx((1 + 2 / 3) / 2)
    assert macro["muc"][8] == str(result.macro["muc"]["f1"])
    plain = score(key, response, ["muc"])
    assert "#macro" not in plain.to_csv()


# -- the fast path: mention views from a format's parser ------------------------------------
class ViewsFormat:
    """A format as scoring's fast path sees it (``scan_keys`` and ``mention_views``),
    stored as RAF underneath; records what the scorer asked for."""

    def __init__(self):
        self.calls = []

    def scan_keys(self, source):
        corpus = read(source.path, "raf")
        return [(d.name, d.part, k, k + 1) for k, d in enumerate(corpus.documents)]

    def mention_views(self, source, *, report, strict, select, byte_range, pos):
        self.calls.append((frozenset(select), byte_range, pos))
        for k, d in enumerate(read(source.path, "raf").documents):
            if k in select:
                yield d.mention_view(pos)

    def spec(self):
        from corefio.formats.registry import Capabilities, FormatSpec

        return FormatSpec("views-test", "test double", (".views",), Capabilities(),
                          scan_keys=self.scan_keys, mention_views=self.mention_views)


@pytest.mark.parametrize("workers", [1, 2])
def test_the_fast_path_gives_what_documents_give(small_corpus, tmp_path, workers):
    from corefio.scoring import engine
    from corefio.scoring.registry import resolve_metrics
    from corefio.io.source import Source

    key, response = small_corpus
    key_corpus, response_corpus = read(key), read(response)
    k, r = tmp_path / "key.raf.xml", tmp_path / "response.raf.xml"
    write(key_corpus, k)
    # the response lists its documents in the opposite order: views wait for their key
    write(Corpus(documents=list(reversed(response_corpus.documents))), r)
    fmt = ViewsFormat()
    options = engine.Options(resolve_metrics(["all"]), per_document=True)
    report = Report()
    shares = engine.score_fast(Source.of(k), Source.of(r), fmt.spec(), fmt.spec(), report, False, options,
                               workers=workers)
    fast = engine.finish(shares, report, options, macro=False, allow_missing=False).to_dict()
    expected = score(key_corpus, response_corpus, ["all"], per_document=True).to_dict()
    assert fast["corpus"] == expected["corpus"]
    assert fast["documents"] == expected["documents"]
    if workers == 1:  # (a forked worker's calls are recorded in its own process)
        assert len(fmt.calls) == 2
        assert {n for select, _, _ in fmt.calls for n in select} == set(range(12))
        assert all(byte_range is not None for _, byte_range, _ in fmt.calls)


def test_the_fast_path_reports_a_format_that_skips_a_document(tmp_path):
    from corefio.scoring import engine
    from corefio.scoring.registry import resolve_metrics
    from corefio.io.source import Source

    class Forgetful(ViewsFormat):
        def mention_views(self, source, **kw):
            yield from list(super().mention_views(source, **kw))[:-1]

    k = tmp_path / "key.raf.xml"
    write(Corpus(documents=[doc("a", [[(0, 0), (1, 1)]]), doc("b", [[(0, 0)]])]), k)
    fmt = Forgetful()
    with pytest.raises(RuntimeError, match="no document 'b'"):
        engine.score_fast(Source.of(k), Source.of(k), fmt.spec(), fmt.spec(), Report(), False,
                          engine.Options(resolve_metrics(["muc"])))


# -- scoring files = scoring what corefio.read gives, in every format ------------------------
def _readable_writable_formats():
    from corefio.formats.registry import all_formats

    return [spec for spec in all_formats() if spec.can_read and spec.can_write]


def _variants(data: bytes) -> dict[str, bytes]:
    """The file as written, with a UTF-8 byte order mark, and with CRLF line ends."""
    return {"plain": data, "bom": b"\xef\xbb\xbf" + data, "crlf": data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")}


def _inputs(spec, folder, key, response):
    """{variant: (key path, response path)}: one-file formats as written and in their
    BOM and CRLF variants; a directory format (MMAX2) as written."""
    # several documents of a format that holds one per file: a zip of one file per document
    extension = ".zip" if spec.name in ("xmi", "webanno-tsv") else spec.extensions[0] if spec.extensions else ""
    written = []
    for side, corpus in (("key", key), ("response", response)):
        path = folder / f"{side}{extension}" if not spec.directory else folder / f"{side}-{spec.name}"
        write(corpus, path, spec.name)
        written.append(path)
    if spec.directory:
        return {"plain": tuple(written)}
    out = {}
    for variant in ("plain", "bom", "crlf"):
        paths = []
        for path in written:
            copy = folder / f"{path.stem}.{variant}{extension}"
            copy.write_bytes(_variants(path.read_bytes())[variant])
            paths.append(copy)
        out[variant] = tuple(paths)
    return out


@campaign(25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(scoring_corpora())
def test_scoring_files_equals_scoring_what_read_gives(tmp_path_factory, pair):
    """The reliability property: whatever path a file takes through the scorer (a
    format's mention-view fast path, or documents read one at a time), the scores are
    those of the corpus :func:`corefio.read` gives for the same file."""
    key, response = pair
    names = ["all"]
    folder = tmp_path_factory.mktemp("formats")
    for spec in _readable_writable_formats():
        fmt = spec.name
        for variant, (k, r) in _inputs(spec, folder, key, response).items():
            try:
                expected = score(read(k, fmt), read(r, fmt), names, per_document=True).to_dict()
            except CorefioError as exc:  # a variant the format refuses: scoring the files refuses it too
                with pytest.raises(type(exc)):
                    score(k, r, names, per_document=True, key_format=fmt, response_format=fmt)
                continue
            got = score(k, r, names, per_document=True, key_format=fmt, response_format=fmt,
                        workers=1).to_dict()
            assert got["corpus"] == expected["corpus"], (fmt, variant)
            assert got["documents"] == expected["documents"], (fmt, variant)


# -- the registry as the command line and the README see it ----------------------------------
def test_the_markdown_table_lists_every_metric_once():
    from corefio.scoring import REGISTRY, markdown_table

    table = markdown_table()
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == list(REGISTRY)
    assert all(row.count(" | ") == 4 for row in rows)
    assert "| `kappa_d0` |" in table and "bounded [-1, 1]" in table


def test_the_metric_help_names_every_metric():
    from corefio.scoring import REGISTRY, metric_help

    text = metric_help()
    assert all(name in text for name in REGISTRY)
    assert "'default' (mentions, muc, bcub, ceafm, ceafe, blanc, lea, conll)" in text


def test_metric_names_expand_as_documented():
    from corefio.scoring import DEFAULT_METRICS, resolve_metrics

    assert resolve_metrics(["default"]) == list(DEFAULT_METRICS)
    assert resolve_metrics(["conll"]) == ["mentions", "muc", "bcub", "ceafe", "conll"]
    assert resolve_metrics(["kappa, KAPPA_D0"]) == ["mentions", "kappa", "kappa_d0"]
    assert resolve_metrics(["all"]) == list(METRICS)


def test_an_error_in_the_forked_worker_reaches_the_caller(small_corpus, tmp_path):
    """The second half of the documents is scored in a forked process: a broken
    document there is reported as if it were read here (file and line)."""
    key, response = small_corpus
    lines = response.read_text(encoding="utf-8").split("\n")
    last = max(i for i, line in enumerate(lines) if line.startswith("#begin document"))
    row = next(i for i in range(last + 1, len(lines)) if lines[i].strip())
    columns = lines[row].split()
    columns[-1] = "(7"  # an opener never closed
    lines[row] = "\t".join(columns)
    broken = tmp_path / "broken.v4_auto_conll"
    broken.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(CorefioError) as one:
        score(key, broken, ["muc"], workers=1)
    with pytest.raises(CorefioError) as two:
        score(key, broken, ["muc"], workers=2)
    assert type(one.value) is type(two.value)
    assert str(one.value) == str(two.value)


@pytest.mark.parametrize("broken", ["key", "response", "both", "names"])
def test_an_error_found_by_the_scans_is_the_same_with_a_worker(small_corpus, tmp_path, broken):
    """With two processes the worker scans the response while this process scans the
    key: a file refused by its scan (or documents that do not match) gives the error
    one process gives, the key's first."""
    files = {}
    for side, path in zip(("key", "response"), small_corpus):
        text = path.read_text(encoding="utf-8")
        if broken in (side, "both"):
            text = text[:text.rindex("#end document")]  # the last document never ends
        if broken == "names" and side == "response":
            text = text.replace("#begin document (", "#begin document (other", 1)
        files[side] = tmp_path / f"{side}{path.name[path.name.index('.'):]}"
        files[side].write_text(text, encoding="utf-8")
    errors = []
    for workers in (1, 2):
        with pytest.raises(CorefioError) as caught:
            score(files["key"], files["response"], ["muc"], workers=workers)
        errors.append((type(caught.value), str(caught.value)))
    assert errors[0] == errors[1]
    assert ("key" if broken in ("key", "both") else "response" if broken == "response" else "no response") \
        in errors[0][1]


# -- fuzzer regressions: part numbers written with non-ASCII digits --------------------------------
FUZZ = DATA / "regressions" / "fuzz"


@pytest.mark.parametrize("name, fmt, seed", [
    ("raf-exception-score-self-paths-1644a978.raf", "raf", DATA / "golden" / "features.raf.xml"),
    ("raf-exception-score-self-paths-7b8502c3.raf", "raf", DATA / "golden" / "features.raf.xml"),
    ("muc-exception-score-seed-paths-117cbc8f.sgm", "muc", DATA / "muc" / "generated.sgm"),
])
def test_fuzz_non_ascii_part_numbers_score_or_mismatch(name, fmt, seed):
    """``part="²01"``, ``"00²"``, ``"²"``: "²".isdigit() is true but int("²") raises; the
    loose NAME_PART match in match_keys took such a part for a number (ValueError)."""
    path = FUZZ / name
    corpus = read(path, fmt)
    assert not corpus.documents[0].part.isascii()
    assert score(path, path, ["muc"], key_format=fmt, response_format=fmt)["muc"] == \
        score(corpus, read(path, fmt), ["muc"])["muc"]
    # against the seed: no document pairs up, from paths as from memory (not a ValueError);
    # one document each pairs whatever the names (score.paired-single), then the texts differ
    from corefio.compare.alignment import AlignmentError

    with pytest.raises((DocumentMismatchError, AlignmentError)) as from_paths:
        score(path, seed, ["muc"], key_format=fmt)
    with pytest.raises((DocumentMismatchError, AlignmentError)) as from_memory:
        score(corpus, read(seed), ["muc"])
    assert from_paths.value.message == from_memory.value.message


@pytest.mark.parametrize("part", ["²", "0¹0", "00²", "٣"])
def test_non_ascii_digit_parts_match_only_exactly(part):
    key = Corpus(documents=[doc("a", [[(0, 0), (1, 1)]], part=part)])
    same = Corpus(documents=[doc("a", [[(0, 0), (1, 1)]], part=part)])
    assert score(key, same, ["muc"])["muc"].f1 == 1
    # no NAME_PART response is looked for: the part is no number
    other = Corpus(documents=[doc(f"a_{part}", [[(0, 0), (1, 1)]]), doc("a_2", [])])
    with pytest.raises(DocumentMismatchError):
        score(key, other, ["muc"])


def test_a_huge_part_matches_name_part_without_int():
    """int() refuses strings of over 4,300 digits; a part is compared as digits."""
    key = Corpus(documents=[doc("a", [[(0, 0), (1, 1)]], part="0" * 5000 + "7")])
    response = Corpus(documents=[doc("a_7", [[(0, 0), (1, 1)]])])
    report = Report()
    assert score(key, response, ["muc"], report=report)["muc"].f1 == 1
    assert "score.loose-match" in report.codes()


def test_csv_of_score_sets_with_a_document_name_beyond_the_csv_field_limit():
    """Issue #25 (reproducer S12): a 140 KB document name made ``--sync all --format csv
    --per-document`` fail, the CSV of each set being read back with the csv module (whose
    fields stop at 128 KiB)."""
    name = "D" * (csv.field_size_limit() + 10)
    corpus = read(SAMPLES / "key.raf.xml")
    renamed = corpus.copy(**{"documents": [corpus.documents[0].copy(name=name)]})
    result = score(renamed, renamed, ["muc"], sync="all", per_document=True)
    text = result.to_csv(True)
    long_rows = [line for line in text.splitlines() if name in line]
    assert len(long_rows) == 5  # mentions, then muc for each of the four strategies
    assert long_rows[1].startswith(f"key,{name} (part 000),muc,13,13,")


def test_text_of_score_sets_keeps_perfect_cells_apart():
    """A cell of 100.00 / 100.00 / 100.00 filled its column and ran into its neighbour."""
    text = score(SAMPLES / "key.raf.xml", SAMPLES / "key.raf.xml", ["muc"], sync="all").to_text()
    row = next(line for line in text.splitlines() if line.startswith("muc"))
    assert row.split("  ")[1:] != [] and row.count("100.00 / 100.00 / 100.00") == 4
    assert "100.00100.00" not in row and "100.00  100.00 / 100.00" in row


# -- forked workers end with their parent (issue #25) -------------------------------------------
def _children(pid: int) -> set[int]:
    """The processes ``pid`` forked that still run (Linux's /proc)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found.update(int(x) for x in task.read_text().split())
        except OSError:  # the task ended meanwhile
            pass
    return found


def _running(pid: int) -> bool:
    """``pid`` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _gone_within(pids: set[int], seconds: float) -> set[int]:
    """The pids of ``pids`` still running after ``seconds`` (killed then, to clean up)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(_running(p) for p in pids):
        time.sleep(0.05)
    alive = {p for p in pids if _running(p)}
    for p in alive:
        os.kill(p, signal.SIGKILL)
    return alive


needs_proc = pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(),
                                reason="needs Linux's /proc with the children of each task")


@needs_proc
def test_the_scanning_worker_dies_when_score_is_killed(tmp_path):
    """``kill -9`` on ``corefio score`` in its first seconds left the forked worker
    waiting forever for work (it holds both ends of its pipe, so it never sees EOF)."""
    key, response = load_generator().generate(tmp_path)  # 280 documents, 14 MB a side
    env = dict(os.environ, COREFIO_WORKERS="2", PYTHONPATH=str(REPO))
    process = subprocess.Popen([sys.executable, "-m", "corefio", "score", str(key), str(response)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        workers: set[int] = set()
        while not workers and process.poll() is None and time.monotonic() < deadline:
            workers = _children(process.pid)
            time.sleep(0.002)
        assert workers, "the worker was never seen"
    finally:
        process.kill()
        process.wait()
    assert not _gone_within(workers, 2.0)


@needs_proc
def test_the_watchdog_alone_ends_an_orphaned_worker(tmp_path):
    """Without prctl (another system), the worker's watchdog thread notices that its
    parent is gone."""
    program = (
        "import os, sys, time\n"
        "from corefio.scoring.engine import die_with_parent\n"
        "parent = os.getpid()\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    die_with_parent(parent, kernel=False)\n"
        "    time.sleep(60)\n"
        "    os._exit(0)\n"
        "print(child, flush=True)\n"
        "time.sleep(60)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, text=True,
                               env=dict(os.environ, PYTHONPATH=str(REPO)))
    try:
        assert process.stdout is not None
        worker = int(process.stdout.readline())
        time.sleep(0.3)
        assert _running(worker)  # alive while its parent is
    finally:
        process.kill()
        process.wait()
    assert not _gone_within({worker}, 2.0)


def test_texts_that_differ_name_the_response_file(tmp_path):
    key, response = tmp_path / "key.conll", tmp_path / "response.conll"
    key.write_text("#begin document (d); part 000\nd 0 0 the (1)\nd 0 1 cat -\nd 0 2 sat (1)\n\n#end document\n")
    response.write_text("#begin document (d); part 000\nd 0 0 the (1)\nd 0 1 dog -\nd 0 2 sat -\nd 0 3 down (1)"
                        "\n\n#end document\n")
    for sync in (None, "all"):
        with pytest.raises(CorefioError) as info:
            score(key, response, ["muc"], sync=sync)
        assert str(info.value).startswith(f"{response}: d (part 000): the key and the response do not have")


# -- response spans listed more than once: scorer.pl's ids ------------------------------------------
def _scorer_pl_counts(key: list[list[int]], response: list[list[int]]) -> tuple[int, int, int, int]:
    """What scorer.pl v8.01 counts of single-token chains (``IdentifMentions`` then
    ``BLANC_Internal``, written again from its description): the response's mention
    ids (a repeated key mention leaves all chains but the first it meets, in file order:
    in the order of a CoNLL file, :func:`corefio.formats.conll.scorer_order`), and its
    coreference and non-coreference links as sets of id pairs. Returns (mentions,
    coreference links, non-coreference links, matched)."""
    from corefio.formats.conll import scorer_order

    key_ids = {m for chain in key for m in chain}
    assigned: set[int] = set()
    chains = []
    for k in scorer_order([[((m, m),) for m in chain] for chain in response]):
        chain = response[k]
        kept = []
        for m in chain:
            if m in key_ids and m in assigned:
                continue  # "Repeated mention in the response"
            if m in key_ids:
                assigned.add(m)
            kept.append(m)
        if kept:
            chains.append(kept)
    coref = {tuple(sorted((c[i], c[j]))) for c in chains for i in range(len(c)) for j in range(i + 1, len(c))}
    non = {tuple(sorted((a, b))) for x in range(len(chains)) for y in range(x + 1, len(chains))
           for a in chains[x] for b in chains[y]}
    return len({m for c in chains for m in c}), len(coref), len(non), len(assigned)


@given(st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=6), min_size=1, max_size=6),
       st.lists(st.lists(st.integers(0, 12), min_size=1, max_size=6), min_size=1, max_size=6))
@campaign(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_repeated_response_spans_are_counted_as_scorer_pl_counts_them(key, response):
    from corefio.metrics import blanc, mention_identification
    from corefio.model.mentions import Mention, MentionView
    from corefio.scoring import views as V

    seen: set[int] = set()
    key = [c for c in ([m for m in dict.fromkeys(chain) if not (m in seen or seen.add(m))] for chain in key) if c]
    if not key:
        return

    def view(chains):
        return MentionView("d", [f"w{i}" for i in range(13)], [[Mention(((m, m),)) for m in c] for c in chains])

    table = V.table(view(key), view(response), Report())
    mentions, coref, non, matched = _scorer_pl_counts(key, response)
    got = blanc(table)
    assert (got.coref.precision_den, got.noncoref.precision_den) == (coref, non)
    assert mention_identification(table) == Score(matched, len(seen), matched, mentions)


# -- spans repeated on either side: a transcription of scorer.pl v8.01 -------------------------------
def _scorer_pl_read(text: str) -> list[list[tuple[int, int]]]:
    """The chains scorer.pl v8.01 reads from the last column of a one-document CoNLL
    text (``GetCoreference`` in ``lib/CorScorer.pm``, written again): labels numbered
    where first met, in a cell single-token mentions ``(N)`` first, then openers ``(N``,
    then closers ``N)``, each closer taking the entity's last opener; a chain lists
    its mentions in the order they close."""
    import re

    index: dict[str, int] = {}
    entities: list[list[tuple[int, int]]] = []
    half: dict[int, list[int]] = {}

    def number(label: str) -> int:
        if label not in index:
            index[label] = len(index)
            entities.append([])
        return index[label]

    line_number = 0
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cell = line.split("\t")[-1]
        if cell != "-":
            for label in re.findall(r"\((\d+)\)", cell):
                entities[number(label)].append((line_number, line_number))
            cell = re.sub(r"\((\d+)\)", "", cell)
            for label in re.findall(r"\((\d+)", cell):
                half.setdefault(number(label), []).append(line_number)
            cell = re.sub(r"\((\d+)", "", cell)
            for label in re.findall(r"(\d+)\)", cell):
                e = number(label)
                entities[e].append((half[e].pop(), line_number))
        line_number += 1
    return entities


def _scorer_pl_scores(key: list[list[tuple]], response: list[list[tuple]]) -> dict:
    """scorer.pl v8.01's counts for one document (``IdentifMentions``, ``MUCScorer``,
    ``BCUBED``, ``CEAF``, ``BLANC_Internal``, written again from ``lib/CorScorer.pm``):
    metric -> (recall num, recall den, precision num, precision den); BLANC -> the
    coreference and the non-coreference counts."""
    import itertools

    ids: dict[tuple, int] = {}
    count = 0
    for entity in key:  # every key listing takes a new id; a span keeps its last one
        for m in entity:
            ids[m] = count
            count += 1
    mapped: dict[tuple, int] = {}
    assigned: set[int] = set()
    exact = 0
    kept_chains = []
    for entity in response:
        kept = []
        for m in entity:
            if m in mapped:
                continue  # "Repeated mention in the response"
            if m in ids and ids[m] not in assigned:
                assigned.add(ids[m])
                mapped[m] = ids[m]
                exact += 1
            kept.append(m)
        if kept:
            kept_chains.append(kept)
    for entity in kept_chains:
        for m in entity:
            if m not in mapped:
                mapped[m] = count
                count += 1
    keys = [[ids[m] for m in e] for e in key]
    responses = [[mapped[m] for m in e] for e in kept_chains]
    k_index = {m: i for i, e in enumerate(keys) for m in e}  # Indexa: the last chain
    out = {"mentions": (exact, len(ids), exact, len(mapped))}
    correct = 0
    for e in responses:
        for i, a in enumerate(e):
            if any(a in k_index and b in k_index and k_index[a] == k_index[b] for b in e[i + 1:]):
                correct += 1
    out["muc"] = (correct, sum(len(e) - 1 for e in keys), correct, sum(len(e) - 1 for e in responses))
    recall, precision = Fraction(0), Fraction(0)
    for e in responses:
        for m in e:
            chain = keys[k_index[m]] if m in k_index else []
            common = sum(1 for x in e if x in chain)
            precision += Fraction(common, len(e))
            if chain:
                recall += Fraction(common, len(chain))
    out["bcub"] = (recall, sum(map(len, keys)), precision, sum(map(len, responses)))
    size = max(len(keys), len(responses))
    for name, phi in (("ceafm", lambda k, r: sum(1 for x in k if x in r)),
                      ("ceafe", lambda k, r: Fraction(2 * sum(1 for x in k if x in r), len(k) + len(r)))):
        sim = [[phi(keys[i], responses[j]) if i < len(keys) and j < len(responses) else 0 for j in range(size)]
               for i in range(size)]
        best = max(sum(sim[i][p[i]] for i in range(size)) for p in itertools.permutations(range(size)))
        if name == "ceafm":
            out[name] = (best, sum(map(len, keys)), best, sum(map(len, responses)))
        else:
            out[name] = (best, len(keys), best, len(responses))

    def links(chains):
        coref = {tuple(sorted((c[i], c[j]))) for c in chains for i in range(len(c)) for j in range(i + 1, len(c))}
        non = {tuple(sorted((a, b))) for x in range(len(chains)) for y in range(x + 1, len(chains))
               for a in chains[x] for b in chains[y]}
        return coref, non

    (kc, kn), (rc, rn) = links(keys), links(responses)
    out["blanc"] = ((len(kc & rc), len(kc), len(kc & rc), len(rc)), (len(kn & rn), len(kn), len(kn & rn), len(rn)))
    return out


#: one-token spans and two-token ones that cross none (scorer.pl reads ``N)|(N`` in one cell as
#: opener first, README's conformance notes)
_SPAN = st.one_of(st.integers(0, 7).map(lambda i: (i, i)), st.integers(0, 3).map(lambda i: (2 * i, 2 * i + 1)))
_CHAINS = st.lists(st.lists(_SPAN, min_size=1, max_size=4), min_size=1, max_size=4)


@given(_CHAINS, _CHAINS)
@campaign(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_spans_repeated_in_key_and_response_score_as_a_transcription_of_scorer_pl(key_chains, response_chains):
    """Random chains with spans in two chains or twice in one, on both sides: corefio's
    default rule gives the counts of scorer.pl v8.01's code, written again above, applied
    to the CoNLL files corefio writes of them (so that the order in which scorer.pl meets
    the chains is that of the files, as for users)."""
    key = Corpus(documents=[doc("d", key_chains, n=8)])
    response = Corpus(documents=[doc("d", response_chains, n=8)])
    expected = _scorer_pl_scores(_scorer_pl_read(corefio.dumps(key, "conll")),
                                 _scorer_pl_read(corefio.dumps(response, "conll")))
    result = score(key, response, ["mentions", "muc", "bcub", "ceafm", "ceafe", "blanc"], report=Report())
    for name in ("mentions", "muc", "bcub", "ceafm", "ceafe"):
        got = result[name]
        assert (got.recall_num, got.recall_den, got.precision_num, got.precision_den) == expected[name], name
    blanc = result["blanc"]
    assert tuple((s.recall_num, s.recall_den, s.precision_num, s.precision_den)
                 for s in (blanc.coref, blanc.noncoref)) == expected["blanc"]


# -- the same chains: a transcription of corefud-scorer v1.2 ----------------------------------------
def _corefud_scores(key: list[list[tuple]], response: list[list[tuple]]) -> dict:
    """corefud-scorer v1.2's counts (``scorer/eval/evaluator.py``, written again), exact
    matching, singletons kept: entities as udapi orders them (by first mention: first
    word, then the longer, then the earlier last word), each span once per entity
    (``transform_clusters_for_eval``), a span looked up in the last entity that lists it
    (``get_mention_to_clusterid_map``). metric -> (recall num, recall den, precision num,
    precision den); BLANC -> its two halves."""
    import itertools

    def first(chain):
        return min((a, -(b - a + 1), b) for a, b in chain)

    def ordered(chains):
        chains = [list(dict.fromkeys(c)) for c in chains]
        return sorted(chains, key=lambda c: (first(c), sorted(set(c))))

    key, response = ordered(key), ordered(response)
    to_key = {m: i for i, c in enumerate(key) for m in c}
    to_response = {m: j for j, c in enumerate(response) for m in c}

    def muc(clusters, mention_to):
        tp = p = 0
        for c in clusters:
            p += len(c) - 1
            tp += len(c) - sum(1 for m in c if m not in mention_to) - len({mention_to[m] for m in c if m in mention_to})
        return tp, p

    def b_cubed(clusters, mention_to):
        num, den = Fraction(0), 0
        for c in clusters:
            counts: dict[int, int] = {}
            for m in c:
                if m in mention_to:
                    counts[mention_to[m]] = counts.get(mention_to[m], 0) + 1
            num += Fraction(sum(n * n for n in counts.values()), len(c))
            den += len(c)
        return num, den

    def lea(clusters, others, mention_to):
        num, den = Fraction(0), 0
        for c in clusters:
            if len(c) == 1:
                common, links = int(c[0] in mention_to and len(others[mention_to[c[0]]]) == 1), 1
            else:
                links = len(c) * (len(c) - 1) // 2
                common = sum(1 for i, m in enumerate(c) for m2 in c[i + 1:]
                             if m in mention_to and m2 in mention_to and mention_to[m] == mention_to[m2])
            num += Fraction(len(c) * common, links)
            den += len(c)
        return num, den

    out = {}
    for name, f in (("muc", muc), ("bcub", b_cubed)):
        rn, rd = f(key, to_response)
        pn, pd = f(response, to_key)
        out[name] = (rn, rd, pn, pd)
    rn, rd = lea(key, response, to_response)
    pn, pd = lea(response, key, to_key)
    out["lea"] = (rn, rd, pn, pd)
    size = max(len(key), len(response))
    for name, phi in (("ceafm", lambda k, r: sum(1 for m in k if m in r)),
                      ("ceafe", lambda k, r: Fraction(2 * sum(1 for m in k if m in r), len(k) + len(r)))):
        sim = [[phi(key[i], response[j]) if i < len(key) and j < len(response) else 0 for j in range(size)]
               for i in range(size)]
        best = max(sum(sim[i][p[i]] for i in range(size)) for p in itertools.permutations(range(size)))
        dens = (sum(map(len, key)), sum(map(len, response))) if name == "ceafm" else (len(key), len(response))
        out[name] = (best, dens[0], best, dens[1])
    pairs = lambda n: n * (n - 1) // 2  # noqa: E731
    coref = sum(1 for c in key for i, m in enumerate(c) for m2 in c[i + 1:]
                if m in to_response and m2 in to_response and to_response[m] == to_response[m2])
    non = sum(1 for a, c in enumerate(key) for m in c for c2 in key[a + 1:] for m2 in c2
              if m in to_response and m2 in to_response and to_response[m] != to_response[m2])
    nk, nr = sum(map(len, key)), sum(map(len, response))
    out["blanc"] = ((coref, sum(pairs(len(c)) for c in key), coref, sum(pairs(len(c)) for c in response)),
                    (non, pairs(nk) - sum(pairs(len(c)) for c in key), non,
                     pairs(nr) - sum(pairs(len(c)) for c in response)))
    return out


@given(_CHAINS, _CHAINS)
@campaign(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_spans_repeated_in_key_and_response_score_as_a_transcription_of_corefud_scorer(key_chains,
                                                                                         response_chains):
    """``repeats="corefud"`` on random chains with repeats on both sides gives the counts
    of corefud-scorer's evaluator, written again above."""
    key = Corpus(documents=[doc("d", key_chains, n=8)])
    response = Corpus(documents=[doc("d", response_chains, n=8)])
    expected = _corefud_scores(key_chains, response_chains)
    result = score(key, response, ["muc", "bcub", "ceafm", "ceafe", "lea", "blanc"], repeats="corefud",
                   report=Report())
    for name in ("muc", "bcub", "ceafm", "ceafe", "lea"):
        got = result[name]
        assert (got.recall_num, got.recall_den, got.precision_num, got.precision_den) == expected[name], name
    blanc = result["blanc"]
    assert tuple((s.recall_num, s.recall_den, s.precision_num, s.precision_den)
                 for s in (blanc.coref, blanc.noncoref)) == expected["blanc"]


@given(_CHAINS, _CHAINS, st.sampled_from(["scorer", "corefud"]))
@campaign(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
def test_every_metric_scores_spans_repeated_on_both_sides(key_chains, response_chains, rule):
    """Whatever repeats (a key span in several chains, twice in one, the same in the
    response), both rules give a contingency table (no class has more mentions in common
    with the other side than it has) that every metric scores."""
    from corefio.model.mentions import Mention, MentionView
    from corefio.scoring import views as V

    def view(chains):
        return MentionView("d", [f"w{i}" for i in range(8)], [[Mention(((a, b),)) for a, b in c] for c in chains])

    table = V.table(view(key_chains), view(response_chains), Report(), repeats=rule)
    assert (table.key_matched() <= table.key_sizes).all() and (table.response_matched() <= table.response_sizes).all()
    key = Corpus(documents=[doc("d", key_chains, n=8)])
    response = Corpus(documents=[doc("d", response_chains, n=8)])
    result = score(key, response, ["all"], repeats=rule, report=Report())
    assert 0 <= result["mentions"].f1 <= 1 and 0 <= result["muc"].f1 <= 1
