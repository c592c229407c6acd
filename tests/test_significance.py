"""Significance tests and confidence intervals (corefio.scoring.significance).

The method is checked against independent computations: on 3 to 5 documents every swap
is enumerated here with exact fractions, and the p-value must be the share of swaps at
least as far apart as the observed difference; bootstrap intervals must contain the
observed score and shrink as the corpus grows.
"""

from __future__ import annotations

import itertools
import time
from fractions import Fraction

import numpy as np
import pytest

import corefio
from corefio.errors import UsageError
from corefio.metrics.base import BlancScore, Score
from corefio.scoring.render import DocumentScores, Scores
from corefio.scoring.significance import compare, compare_scores, f1_from_sums


def _f1(counts: list[tuple[int, int, int, int]]) -> Fraction:
    rn, rd, pn, pd = (sum(c[k] for c in counts) for k in range(4))
    r = Fraction(rn, rd) if rd else Fraction(0)
    p = Fraction(pn, pd) if pd else Fraction(0)
    return 2 * r * p / (r + p) if r + p else Fraction(0)


def _scores(rows: list[tuple[int, int, int, int]], metric: str = "muc") -> Scores:
    docs = [DocumentScores(f"d{k}", {metric: Score(*row)}) for k, row in enumerate(rows)]
    total = Score.zero()
    for row in rows:
        total = total + Score(*row)
    return Scores([metric], {metric: total}, docs, corefio.Report())


def _exact_p(a: list, b: list) -> Fraction:
    """Every swap enumerated with fractions: the randomisation test by hand."""
    observed = abs(_f1(a) - _f1(b))
    hits = 0
    swaps = list(itertools.product((0, 1), repeat=len(a)))
    for swap in swaps:
        x = [bj if s else aj for s, aj, bj in zip(swap, a, b)]
        y = [aj if s else bj for s, aj, bj in zip(swap, a, b)]
        hits += abs(_f1(x) - _f1(y)) >= observed
    return Fraction(hits, len(swaps))


CASES = [
    # (system A rows, system B rows): recall_num, recall_den, precision_num, precision_den
    ([(3, 4, 3, 5), (2, 2, 2, 3), (1, 3, 1, 1)], [(1, 4, 1, 2), (2, 2, 2, 2), (0, 3, 0, 1)]),
    ([(5, 6, 5, 7), (4, 5, 4, 4), (2, 2, 2, 3), (0, 1, 0, 2)],
     [(5, 6, 5, 6), (1, 5, 1, 6), (2, 2, 2, 2), (1, 1, 1, 1)]),
    ([(9, 10, 9, 12), (3, 3, 3, 3), (4, 7, 4, 5), (6, 6, 6, 9), (1, 2, 1, 2)],
     [(7, 10, 7, 8), (2, 3, 2, 4), (4, 7, 4, 8), (6, 6, 6, 6), (0, 2, 0, 1)]),
    # identical systems: every swap is as far apart as observed (p = 1)
    ([(2, 3, 2, 4), (1, 1, 1, 2), (0, 2, 0, 0)], [(2, 3, 2, 4), (1, 1, 1, 2), (0, 2, 0, 0)]),
]


@pytest.mark.parametrize("a, b", CASES)
def test_randomisation_p_value_is_exact_on_small_corpora(a, b):
    result = compare_scores([("A", _scores(a)), ("B", _scores(b))], ["muc"], samples=1000, seed=1)
    pair = result.pairs[0]
    assert pair.exact
    assert pair.p_randomisation == pytest.approx(float(_exact_p(a, b)), abs=1e-12)
    assert pair.difference == pytest.approx(float(_f1(a) - _f1(b)), abs=1e-12)
    assert result.result("A", "muc").f1 == pytest.approx(float(_f1(a)), abs=1e-12)


def test_sampled_randomisation_approaches_the_exact_value():
    a, b = CASES[2]
    # 2^5 = 32 swaps: with 20 samples the test samples instead of enumerating
    sampled = compare_scores([("A", _scores(a)), ("B", _scores(b))], ["muc"], samples=20_000, seed=3)
    exact = float(_exact_p(a, b))
    sampled_many = compare_scores([("A", _scores(a * 4)), ("B", _scores(b * 4))], ["muc"], samples=20_000, seed=3)
    assert not sampled_many.pairs[0].exact
    assert sampled.pairs[0].exact  # 32 <= 20,000: enumerated
    assert sampled.pairs[0].p_randomisation == pytest.approx(exact)
    # 20 documents: sampled, and a smaller p-value than on 5 (the same difference, more evidence)
    assert sampled_many.pairs[0].p_randomisation < exact


def test_bootstrap_interval_contains_the_score_and_narrows_with_more_documents():
    a, b = CASES[2]
    small = compare_scores([("A", _scores(a)), ("B", _scores(b))], ["muc"], samples=4000, seed=5)
    large = compare_scores([("A", _scores(a * 10)), ("B", _scores(b * 10))], ["muc"], samples=4000, seed=5)
    for result in (small, large):
        r = result.result("A", "muc")
        assert r.low <= r.f1 <= r.high
    width = lambda res: res.result("A", "muc").high - res.result("A", "muc").low  # noqa: E731
    assert width(large) < width(small) / 2
    assert 0 < large.pairs[0].p_bootstrap <= 1


def test_identical_systems_are_not_different():
    a = CASES[1][0]
    result = compare_scores([("A", _scores(a)), ("B", _scores(a))], ["muc"], samples=500, seed=0)
    assert result.pairs[0].p_randomisation == 1 and result.pairs[0].p_bootstrap == 1


def test_corpus_f1_from_summed_counts_not_mean_of_document_f1():
    rows = [(1, 1, 1, 1), (0, 9, 0, 9)]
    sums = np.asarray(rows, dtype=float).sum(0)
    assert f1_from_sums("muc", sums) == pytest.approx(float(_f1(rows)))
    assert float(_f1(rows)) != pytest.approx(0.5)  # the mean of the document F1s


def test_blanc_and_conll_are_formed_as_the_corpus_scores_are():
    key = corefio.read("samples/key.raf.xml")
    response = corefio.read("samples/response.raf.xml")
    scores = corefio.score(key, response, ["muc", "bcub", "ceafe", "blanc"], per_document=True)
    result = compare_scores([("r", scores), ("k", corefio.score(key, key, ["muc", "bcub", "ceafe", "blanc"],
                                                                per_document=True))],
                            ["blanc", "conll"], samples=200, seed=1)
    assert result.result("r", "blanc").f1 == pytest.approx(float(scores["blanc"].f1))
    conll = (scores["muc"].f1 + scores["bcub"].f1 + scores["ceafe"].f1) / 3
    assert result.result("r", "conll").f1 == pytest.approx(float(conll))
    assert result.result("k", "conll").f1 == pytest.approx(1.0)
    assert isinstance(scores.documents[0].results["blanc"], BlancScore)


def _conll(name: str, documents: list[list[str]]) -> str:
    lines = []
    for k, labels in enumerate(documents):
        lines.append(f"#begin document ({name}{k}); part 000")
        for i, label in enumerate(labels):
            lines.append(f"{name}{k}\t0\t{i}\tw{i}\t{label}")
        lines.append("")
        lines.append("#end document")
    return "\n".join(lines) + "\n"


def test_compare_end_to_end_and_from_the_command_line(tmp_path, cli):
    key_docs = [["(1)", "(2)", "(1)", "(2)", "(1)"]] * 6
    good_docs = [["(1)", "(2)", "(1)", "(2)", "(1)"]] * 5 + [["(1)", "(1)", "(1)", "(2)", "(2)"]]
    bad_docs = [["(1)", "(1)", "(1)", "(1)", "(1)"]] * 6
    for name, docs in (("key", key_docs), ("good", good_docs), ("bad", bad_docs)):
        (tmp_path / f"{name}.conll").write_text(_conll("d", docs))
    result = compare(tmp_path / "key.conll", [tmp_path / "good.conll", tmp_path / "bad.conll"],
                     ["muc", "bcub", "conll"], names=["good", "bad"], samples=2000, seed=7)
    assert result.result("good", "muc").f1 > result.result("bad", "muc").f1
    pair = next(p for p in result.pairs if p.metric == "bcub")
    # 6 documents: all 64 swaps enumerated; the same value by hand from the document counts
    rows = {}
    for name in ("good", "bad"):
        per_doc = corefio.score(tmp_path / "key.conll", tmp_path / f"{name}.conll", ["bcub"], per_document=True)
        rows[name] = [(s.recall_num, s.recall_den, s.precision_num, s.precision_den)
                      for s in (d.results["bcub"] for d in per_doc.documents)]
    assert pair.exact and pair.p_randomisation == pytest.approx(float(_exact_p(rows["good"], rows["bad"])))
    assert pair.p_randomisation < 0.1
    out = cli("compare", tmp_path / "key.conll", tmp_path / "good.conll", tmp_path / "bad.conll",
              "-m", "muc,bcub,conll", "--samples", "2000", "--seed", "7", "--format", "json")
    assert out.exit_code == 0, out.output
    import json

    data = json.loads(out.output)
    assert data["samples"] == 2000 and len(data["pairs"]) == 3
    assert data["scores"]["good.conll"]["muc"]["f1"] == pytest.approx(result.result("good", "muc").f1)
    text = cli("compare", tmp_path / "key.conll", tmp_path / "good.conll", tmp_path / "bad.conll",
               "--samples", "500", "--seed", "1")
    assert text.exit_code == 0 and "p_AR" in text.output and "good.conll vs bad.conll" in text.output


def test_usage_errors():
    with pytest.raises(UsageError, match="no per-document counts"):
        compare("samples/key.raf.xml", ["samples/response.raf.xml", "samples/key.raf.xml"], ["kappa"])
    with pytest.raises(UsageError, match="same name"):
        compare("samples/key.raf.xml", ["samples/response.raf.xml", "samples/key.raf.xml"], ["muc"],
                names=["x", "x"])


def test_ten_thousand_samples_are_quick():
    """The benchmark has the figure; this only guards against a loop per sample."""
    rng = np.random.default_rng(0)
    rows = lambda: [tuple(int(v) for v in rng.integers(1, 50, 4)) for _ in range(281)]  # noqa: E731
    a, b = _scores(rows()), _scores(rows())
    began = time.process_time()
    compare_scores([("A", a), ("B", b)], ["muc"], samples=10_000, seed=0)
    assert time.process_time() - began < 10


def test_one_document_gives_no_evidence():
    result = compare("samples/muc/muc6.key.sgm", ["samples/muc/muc6.response.sgm", "samples/muc/muc6.key.sgm"],
                     ["muc"], samples=100, seed=1)
    pair = result.pairs[0]
    assert pair.p_randomisation == 1 and pair.p_bootstrap == 1 and result.notes
    assert "nothing to resample" in result.to_text()


def test_samples_drawn_in_blocks_give_the_numbers_of_one_draw(monkeypatch):
    """Memory stays bounded by drawing BLOCK samples at a time; the generator gives the
    same numbers either way, so p-values and intervals do not depend on the block size."""
    from corefio.scoring import significance

    a, b = CASES[2]
    systems = [("A", _scores(a * 8)), ("B", _scores(b * 8))]
    monkeypatch.setattr(significance, "BLOCK", 10_000)
    whole = compare_scores(systems, ["muc"], samples=2_500, seed=11).to_dict()
    monkeypatch.setattr(significance, "BLOCK", 7)
    blocks = compare_scores(systems, ["muc"], samples=2_500, seed=11).to_dict()
    assert blocks == whole
    # a large corpus is drawn in blocks of fewer samples (CELLS cells a block)
    documents = whole["documents"]  # how many
    monkeypatch.setattr(significance, "BLOCK", 1000)
    monkeypatch.setattr(significance, "CELLS", 3 * documents + 1)
    assert list(significance._blocks(10, documents)) == [3, 3, 3, 1]
    assert compare_scores(systems, ["muc"], samples=2_500, seed=11).to_dict() == whole


def test_bootstrap_draws_count_each_pick():
    """A draw matrix row counts how often each document was picked: rows sum to the
    number of documents, and the counts are those of the picks themselves."""
    from corefio.scoring import significance

    picks = np.random.default_rng(5).integers(0, 9, size=(4, 9))
    draws = significance._draws(9, 4, np.random.default_rng(5))
    assert draws.shape == (4, 9) and (draws.sum(1) == 9).all()
    for row, picked in zip(draws, picks):
        assert list(row) == [list(picked).count(d) for d in range(9)]


def test_every_table_rounds_half_up_as_the_score_table_does():
    """compare's table, the error analysis' gains and the breakdown use the one rounding
    function: 84.625 shows as 84.63 (it was 84.62 through float formatting), and a
    difference keeps its sign."""
    from fractions import Fraction

    from corefio.scoring.render import percent, signed_percent

    assert f"{100 * 0.84625:.2f}" == "84.62"  # what the old formatting printed
    assert percent(Fraction(84625, 100000)) == "84.63"
    assert signed_percent(Fraction(-84625, 100000)) == "-84.63"
    assert signed_percent(Fraction(0)) == "+0.00"
    import inspect

    import corefio.scoring.breakdown as B
    import corefio.scoring.error_analysis as E
    import corefio.scoring.significance as S

    for module in (B, E, S):
        assert ":6.2f" not in inspect.getsource(module) and ":+7.2f" not in inspect.getsource(module)
        assert "100 * " not in inspect.getsource(module).replace("100 * self.level", "")
