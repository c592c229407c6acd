"""Mention matching modes: hand-made cases and corefud-scorer v1.2's own test cases."""

from __future__ import annotations

import json

import pytest

from corefio.chains import Mention, MentionView
from corefio.diagnostics import Report
from corefio.matching import align, match_mentions
from corefio.metrics import b_cubed, ceaf_entity, ceaf_mention, lea, muc
from corefio.metrics.base import Contingency

from .conftest import DATA

COREFUD = DATA / "scorer-testcases" / "corefud"


def m(a: int, b: int, head: int | None = None, *, spans=None, min=None, optional=False) -> Mention:
    return Mention(spans or ((a, b),), head=((head, head),) if head is not None else None, min=min,
                   optional=optional)


def pairs(key, response, mode):
    return sorted(match_mentions(key, response, mode).pairs)


def test_exact_pairs_only_identical_mentions():
    assert pairs([m(0, 2), m(4, 4)], [m(0, 2), m(3, 4)], "exact") == [(0, 0)]


def test_head_matching_pairs_mentions_with_the_same_head_token():
    key = [m(0, 3, 1), m(5, 6, 6)]
    response = [m(1, 1, 1), m(5, 6, 5)]
    assert pairs(key, response, "head") == [(0, 0)]


def test_head_matching_prefers_the_largest_share_of_the_key_mention():
    key = [m(0, 3, 2)]
    response = [m(2, 2, 2), m(1, 3, 2)]
    assert pairs(key, response, "head") == [(0, 1)]


def test_partial_needs_the_response_inside_the_key_and_holding_its_head():
    key = [m(0, 4, 2)]
    assert pairs(key, [m(1, 3)], "partial") == [(0, 0)]
    assert pairs(key, [m(3, 4)], "partial") == []          # misses the head
    assert pairs(key, [m(1, 5)], "partial") == []          # sticks out of the key


def test_partial_with_discontinuous_mentions():
    key = [Mention(((0, 1), (4, 5)), head=((4, 4),))]
    assert pairs(key, [Mention(((4, 5),))], "partial") == [(0, 0)]
    assert pairs(key, [Mention(((1, 4),))], "partial") == []  # covers the gap


def test_min_rule_of_muc():
    key = [Mention(((0, 5),), min=((3, 3), (5, 5)))]     # MIN alternatives
    assert pairs(key, [m(2, 3)], "min") == [(0, 0)]
    assert pairs(key, [m(4, 5)], "min") == [(0, 0)]
    assert pairs(key, [m(0, 2)], "min") == []             # holds no MIN
    assert pairs(key, [m(3, 6)], "min") == []             # outside the key extent


def test_matching_is_one_to_one():
    key = [m(0, 3, 1), m(1, 1, 1)]
    response = [m(1, 2, 1)]
    found = pairs(key, response, "head")
    assert len(found) == 1 and len({j for _, j in found}) == 1


def test_mentions_without_heads_use_the_last_token_and_say_so():
    report = Report()
    result = match_mentions([m(0, 3)], [m(3, 3)], "head", report)
    assert result.pairs == [(0, 0)]
    assert report.by_code("match.default-head")[0].count == 2


def test_unmatched_optional_key_mentions_count_neither_way():
    key = MentionView("d", list("abcdef"), [[m(0, 0), m(2, 2)], [m(4, 5, optional=True)]])
    response = MentionView("d", list("abcdef"), [[m(0, 0), m(2, 2)]])
    report = Report()
    k, r = align(key, response, "exact", report)
    table = Contingency.from_partitions(k.chains, r.chains)
    assert muc(table).recall == 1 and b_cubed(table).recall == 1
    assert report.by_code("match.optional-unmatched")[0].count == 1
    # matched, an optional mention counts as usual
    response2 = MentionView("d", list("abcdef"), [[m(0, 0), m(2, 2)], [m(4, 5)]])
    k, r = align(key, response2, "exact")
    assert len(k.chains) == 2


def test_aligned_response_mentions_take_the_key_spans_and_others_stay_apart():
    key = MentionView("d", list("abcdef"), [[m(0, 2, 1), m(4, 4, 4)]])
    response = MentionView("d", list("abcdef"), [[m(1, 1, 1), m(4, 4, 4)], [m(0, 2, 0)]])
    k, r = align(key, response, "head")
    assert r.chains[0] == [((0, 2),), ((4, 4),)]
    assert r.chains[1][0] != ((0, 2),)   # same tokens as a key mention, other head: unmatched


def _corefud_cases():
    expected = json.loads((COREFUD / "expected.json").read_text())
    return sorted(expected.items())


@pytest.mark.parametrize("name,case", _corefud_cases(), ids=[n for n, _ in _corefud_cases()])
def test_corefud_scorer_cases(name, case):
    import corefio

    mode = {"partial-corefud": "partial"}.get(case["matching"], case["matching"])
    key = corefio.read(COREFUD / case["key"], "conllu")
    response = corefio.read(COREFUD / case["response"], "conllu")
    tables = []
    for kd, rd in zip(key.documents, response.documents):
        kv, rv = align(kd.mention_view(), rd.mention_view(), mode)
        tables.append(Contingency.from_partitions(kv.chains, rv.chains))
    table = Contingency.union(tables)
    got = {"muc": muc(table), "bcub": b_cubed(table), "ceafe": ceaf_entity(table), "ceafm": ceaf_mention(table),
           "lea": lea(table)}
    for metric, score in got.items():
        want = case["scores"][metric]
        assert float(score.recall) == pytest.approx(want["recall"], abs=1e-9), (metric, "recall")
        assert float(score.precision) == pytest.approx(want["precision"], abs=1e-9), (metric, "precision")
