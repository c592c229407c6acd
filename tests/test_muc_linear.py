"""The MUC reader stays linear on big inputs: many COREFs, deep nesting, long MINs (the
work counted by :func:`corefio.io.repair.counting`, not timed;
``benchmarks/bench_linear.py`` times the same inputs)."""

from __future__ import annotations

import corefio
from corefio.diagnostics import Report

from .test_repair_linear import grows_linearly


def doc(body: str) -> str:
    return "<DOC>\n<DOCNO> big </DOCNO>\n<TEXT>\n" + body + "\n</TEXT>\n</DOC>\n"


def muc_read(text: str) -> object:
    return corefio.read(text.encode("utf-8"), format="muc", report=Report())


def many_min_alternatives(size: int) -> str:
    """One COREF over n words whose MIN lists every tenth word: each alternative was looked
    for across the whole mention, time n²/10."""
    n = max(10, size // 12)
    words = " ".join(f"w{i}" for i in range(n))
    alternatives = "|".join(f"w{i}" for i in range(0, n, 10))
    return doc(f'<COREF ID="1" MIN="{alternatives}">{words}</COREF>')


def nested_corefs(size: int) -> str:
    return doc("".join("".join(f'<COREF ID="{j}-{i}">w{i} ' for i in range(20)) + "x" + "</COREF>" * 20 + "\n"
                       for j in range(max(1, size // 400))))


def sibling_corefs(size: int) -> str:
    return doc(" ".join(f'<COREF ID="{i}" REF="{i - 1}" MIN="w{i}">the w{i}</COREF>'
                        for i in range(1, max(2, size // 45))))


def test_many_min_alternatives_are_linear_and_reported():
    ok, small, large = grows_linearly(muc_read, many_min_alternatives, per_character=120)
    assert ok, f"work {small}, then {large} for 8 times the input"
    report = Report()
    corpus = corefio.read(many_min_alternatives(20000).encode(), format="muc", report=report)
    assert any(d.code == "muc.min-alternatives" for d in report)
    m = corpus.documents[0].markables[0]
    assert m.min is not None and len(m.min) == 50
    assert corefio.dumps(corpus, "muc").encode() == many_min_alternatives(20000).encode()


def test_nested_and_sibling_corefs_are_linear():
    for make in (nested_corefs, sibling_corefs):
        ok, small, large = grows_linearly(muc_read, make, size=20000)
        assert ok, f"{make.__name__}: work {small}, then {large} for 8 times the input"


def test_the_count_sees_min_alternatives_looked_for_without_a_limit(monkeypatch):
    """Without the limit on MIN alternatives, each is looked for through the whole
    mention: the counted work grows with the square of the input."""
    import corefio.formats.muc as muc

    monkeypatch.setattr(muc, "MAX_MIN_ALTERNATIVES", 10**9)
    ok, small, large = grows_linearly(muc_read, many_min_alternatives, per_character=120)
    assert not ok and large > 40 * small
