"""corefio's error classes and significance tests against the reference tools, on shared
cases built here (their outputs stored below with the commands that produced them).

* **berkeley-coreference-analyser** (Kummerfeld & Klein's own code, github
  jkkummerfeld/berkeley-coreference-analyser, commit d845001; it runs on Python 3): on the
  hand-built case with one error of each class (tests/test_view_errors.py, with heads),
  written as CoNLL-2012 with a flat parse (one ``(TOP* … *)`` per sentence, so that its
  head finder falls back to the last token) and run with singletons kept::

      python3 classify_coreference_errors.py OUT gold/ response.conll F

  Its summary gives one error of each class, and its detailed listing ties each error to
  the same mentions as the view's marks (stored in :data:`BCA_CASE`). The analyser finds
  heads in the parse; corefio reads them from the mentions (udapi's first word when a
  mention has none). So corefio is given the analyser's heads: each mention of the case
  is headed by its last word (``one_of_each(heads=True)``), and both then judge the
  response span "old man" for "the old man" a span error. Without those heads corefio
  judges it an extra and a missing mention, as head matching would
  (tests/test_view_errors.py).
* **neleval** 3.1.1 (PyPI; Python 3.9, here pyenv's 3.9.18, with joblib), on the
  six-document case of :func:`write_significance_case`, mention identification
  (``strong_mention_match``)::

      neleval prepare-conll-coref X.conll > X.nel            # key, sys_a, sys_b
      neleval significance -g key.nel sys_a.nel sys_b.nel -m strong_mention_match --permute -n 10000 -f json
      neleval confidence -g key.nel -m strong_mention_match -n 10000 sys_a.nel   # and sys_b.nel

  neleval's permutation test is one-sided (in the direction of the observed difference)
  and random; corefio's is two-sided and, with 2^6 = 64 <= samples, enumerates every
  swap. Swapping every document negates the difference, so the null distribution is
  symmetric and corefio's exact p-value is twice the one-sided exact value that neleval
  estimates. neleval's bootstrap test is disabled in its code (``Unsupported method:
  bootstrap``), so only its confidence intervals (percentile bootstrap, as corefio's)
  are compared, within the noise of 10,000 random samples.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import corefio
from corefio.model import Corpus, Document
from corefio.scoring.error_analysis import ERROR_CLASSES, analyse_document
from corefio.scoring.significance import compare
from corefio.web import view

from .test_view_errors import one_of_each

#: berkeley-coreference-analyser on the hand-built case: its summary, and the words of the
#: mentions each error names in its ``.classified`` listing
BCA_CASE = {
    "summary": {"span_error": 1, "conflated_entities": 1, "extra_mention": 1, "extra_entity": 1,
                "missing_mention": 1, "missing_entity": 1, "divided_entity": 1},
    "span_error": {"response": ["old man"], "key": ["the old man"]},
    "extra_entity": {"response": ["Some", "nothing"]},
    "extra_mention": {"response": ["the park"]},
    "missing_entity": {"key": ["A storm", "it"]},
    "missing_mention": {"key": ["the man"]},
    "divided_entity": {"response": ["her"]},
}

#: neleval on write_significance_case (commands in the module docstring)
NELEVAL = {
    "fscore": {"sys_a": 0.8470588235294119, "sys_b": 0.8837209302325582},
    "p_one_sided": 0.43445655434456554,  # F1 difference -0.03666210670314629
    "ci95": {"sys_a": (0.7529411764705882, 0.9523809523809523), "sys_b": (0.7906976744186046, 0.9767441860465117)},
}


def test_the_berkeley_analyser_finds_the_same_errors_on_the_same_mentions():
    key, response, _ = one_of_each(heads=True)
    kv, rv = view.prepared_views(key, response)
    assert dict(analyse_document(kv, rv).counts) == BCA_CASE["summary"]
    v = view.build(key, response)
    forms = key.tokens.forms

    def words(targets: list[str]) -> list[str]:
        out = []
        for t in targets:
            a, z = (int(x) for x in t.split("-"))
            out.append(" ".join(forms[a:z + 1]))
        return sorted(out)

    by_kind = {e.kind: e for e in v.errors}
    for kind in ERROR_CLASSES:
        for side, expected in BCA_CASE.get(kind, {}).items():
            assert words(getattr(by_kind[kind], side)) == sorted(expected), (kind, side)


def _variant(key: Document, response: Document, name: str, which: str) -> Document:
    """``key`` renamed; ``response`` renamed; or the key plus the response's extra entity only."""
    if which == "key":
        return key.model_copy(update={"name": name})
    if which == "response":
        return response.model_copy(update={"name": name})
    extra = [m for m in response.markables if m.entity == "Y"]
    return key.model_copy(update={"name": name, "markables": list(key.markables) + extra})


SYSTEMS = {"sys_a": ["response", "response", "response", "key", "key", "half"],
           "sys_b": ["response", "key", "half", "response", "half", "key"]}


def significance_case() -> tuple[Corpus, dict[str, Corpus]]:
    key, response, _ = one_of_each()
    names = [f"doc{k}" for k in range(1, 7)]
    gold = Corpus(documents=[_variant(key, response, n, "key") for n in names])
    systems = {s: Corpus(documents=[_variant(key, response, n, w) for n, w in zip(names, kinds)])
               for s, kinds in SYSTEMS.items()}
    return gold, systems


def write_significance_case(folder: str | Path) -> None:
    """The case as CoNLL-2012 files (key.conll, sys_a.conll, sys_b.conll) for neleval."""
    folder = Path(folder)
    gold, systems = significance_case()
    (folder / "key.conll").write_text(corefio.dumps(gold, "conll"))
    for name, corpus in systems.items():
        (folder / f"{name}.conll").write_text(corefio.dumps(corpus, "conll"))


def test_significance_and_intervals_agree_with_neleval():
    gold, systems = significance_case()
    result = compare(gold, [systems["sys_a"], systems["sys_b"]], ["mentions"], names=["sys_a", "sys_b"],
                     samples=10_000, seed=3)
    for name in ("sys_a", "sys_b"):
        assert result.result(name, "mentions").f1 == pytest.approx(NELEVAL["fscore"][name], abs=5e-4)
        low, high = NELEVAL["ci95"][name]
        r = result.result(name, "mentions")
        assert r.low == pytest.approx(low, abs=0.01) and r.high == pytest.approx(high, abs=0.01)
    pair = result.pairs[0]
    assert pair.difference == pytest.approx(-0.03666210670314629, abs=1e-12)
    assert pair.exact
    assert pair.p_randomisation == pytest.approx(2 * NELEVAL["p_one_sided"], abs=0.02)
