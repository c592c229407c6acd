"""Mention matching modes: hand-made cases and corefud-scorer v1.2's own test cases."""

from __future__ import annotations

import json

import pytest

from corefio.model.mentions import Mention, MentionView
from corefio.diagnostics import Report
from corefio.compare.matching import align, match_mentions
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


def test_mentions_without_heads_use_the_first_token_as_udapi_does_and_warn():
    """udapi (and so corefud-scorer) heads a mention without a head field by its first
    word: "the big dog barked" and "the big dog" share their head, "dog" does not."""
    report = Report()
    result = match_mentions([m(0, 2)], [m(0, 3), m(2, 2)], "head", report)
    assert result.pairs == [(0, 0)]
    found = report.by_code("match.default-head")
    assert found[0].count == 3 and found[0].severity == "warning"
    assert match_mentions([m(0, 2)], [m(2, 2)], "head").pairs == []
    # partial: the response must hold the key's first token
    assert match_mentions([m(0, 2)], [m(0, 1)], "partial").pairs == [(0, 0)]
    assert match_mentions([m(0, 2)], [m(1, 2)], "partial").pairs == []


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


# -- zero mentions (CorefUD empty nodes) ---------------------------------------------------------
ZERO_METRICS = ("muc", "bcub", "ceafe", "ceafm", "lea")


def _zero_cases():
    return sorted(json.loads((COREFUD / "zeros_expected.json").read_text()).items())


def _score_zero_case(case, keep_zeros=None, zero_match=None):
    import corefio

    mode = {"partial-corefud": "partial"}.get(case["matching"], case["matching"])
    return corefio.score(COREFUD / case["key"], COREFUD / case["response"], list(ZERO_METRICS), match=mode,
                         keep_zeros=case["keep_zeros"] if keep_zeros is None else keep_zeros,
                         zero_match=zero_match or case["zero_match_method"],
                         key_format="conllu", response_format="conllu")


@pytest.mark.parametrize("name,case", _zero_cases(), ids=[n for n, _ in _zero_cases()])
def test_corefud_scorer_zero_cases(name, case):
    """Every zero case of corefud-scorer v1.2 (its own unit tests' settings, and each
    case with every matching mode, zeros dropped or kept, linear or dependent), against
    the values corefud-scorer computes."""
    result = _score_zero_case(case)
    for metric in ZERO_METRICS:
        want = case["scores"][metric]
        got = result.corpus[metric]
        assert float(got.recall) == pytest.approx(want["recall"], abs=1e-9), (metric, "recall")
        assert float(got.precision) == pytest.approx(want["precision"], abs=1e-9), (metric, "precision")


def test_zero_cases_cover_both_zero_matching_methods_and_dropping():
    cases = [c for _, c in _zero_cases()]
    assert {(c["keep_zeros"], c["zero_match_method"]) for c in cases if c["keep_zeros"]} == {
        (True, "linear"), (True, "dependent")}
    assert any(not c["keep_zeros"] for c in cases)
    # the dependent and linear methods disagree on some case, so the test tells them apart
    by = {(c["response"], c["matching"], c["zero_match_method"]): c["scores"]["muc"] for c in cases if c["keep_zeros"]}
    assert any(by[(r, m, "dependent")] != by[(r, m, "linear")] for r, m, z in by if z == "dependent"
               and (r, m, "linear") in by)


@pytest.mark.parametrize("response", ["TC-ZA-3", "TC-ZA-4", "TC-ZB-2", "TC-ZC-2", "TC-ZD-3", "TC-ZE-2"])
def test_dependent_zero_matching_without_dependencies_falls_back_to_places(response):
    """corefud-scorer divides by zero when zeros have no DEPS; corefio gives such pairs
    the weight 0, so the zeros are matched by their places (as with linear)."""
    case = dict(next(c for _, c in _zero_cases() if c["response"].endswith(response + ".response")
                     and c["keep_zeros"] and c["zero_match_method"] == "linear" and c["matching"] == "head"))
    linear = _score_zero_case(case)
    dependent = _score_zero_case(case, zero_match="dependent")
    for metric in ZERO_METRICS:
        assert linear.corpus[metric] == dependent.corpus[metric]


def test_dropping_zeros_is_the_default_and_is_reported():
    import corefio

    report = Report()
    key, response = COREFUD / "zeros" / "TC-ZF.key", COREFUD / "zeros" / "TC-ZF-4.response"
    dropped = corefio.score(key, response, ["muc"], match="head", report=report, key_format="conllu",
                            response_format="conllu")
    assert any(d.code == "score.zeros-dropped" for d in report.diagnostics)
    kept = corefio.score(key, response, ["muc"], match="head", keep_zeros=True, key_format="conllu",
                         response_format="conllu")
    # dropped: the two remaining chains agree; kept (dependent): the response zero with
    # the key zero's dependency belongs to the other entity
    assert float(dropped.corpus["muc"].f1) == 1
    assert float(kept.corpus["muc"].f1) == pytest.approx(4 / 7)


def test_zero_match_is_checked():
    import corefio
    from corefio.errors import UsageError

    with pytest.raises(UsageError, match="zero matching"):
        corefio.score(COREFUD / "zeros" / "TC-ZA.key", COREFUD / "zeros" / "TC-ZA-1.response", ["muc"],
                      keep_zeros=True, zero_match="nearest", key_format="conllu", response_format="conllu")


def test_zeros_in_one_file_only_are_placed_on_the_other_files_words():
    """A response without empty tokens (a CoNLL-2012 system output, say) against a key
    with them: the words agree, so the key's zeros are kept as missed mentions."""
    import corefio

    key = corefio.read(COREFUD / "zeros" / "TC-ZA.key", "conllu")
    doc = key.documents[0]
    words = [i for i in range(len(doc.tokens.forms)) if i not in set(doc.tokens.empty or [])]
    assert len(words) < len(doc.tokens.forms)
    kv = doc.mention_view()
    # the response: the key's non-zero mentions, on the words only
    new = {old: k for k, old in enumerate(words)}
    chains = [[Mention(((new[a], new[b]),)) for mm in chain for a, b in mm.spans if mm.zero is None]
              for chain in kv.mentions]
    rv = MentionView("r", [doc.tokens.forms[i] for i in words], [c for c in chains if c])
    from corefio.scoring.views import synchronise

    k2, r2 = synchronise(kv, rv, "exact", Report(), zeros="linear")
    assert len(k2.forms) == len(r2.forms) == len(doc.tokens.forms)
    zeros = sum(1 for chain in kv.mentions for mm in chain if mm.zero is not None)
    assert zeros and sum(map(len, k2.mentions)) == sum(map(len, r2.mentions)) + zeros
    k3, r3 = synchronise(kv, rv, "exact", Report())
    assert sum(map(len, k3.mentions)) == sum(map(len, r3.mentions))


def test_zeros_are_dropped_with_a_warning_when_the_words_differ():
    import corefio

    doc = corefio.read(COREFUD / "zeros" / "TC-ZA.key", "conllu").documents[0]
    kv = doc.mention_view()
    rv = MentionView("r", ["other"] * 3, [[Mention(((0, 0),))]])
    report = Report()
    from corefio.model.zeros import merge_empty_tokens

    k2, r2 = merge_empty_tokens(kv, rv, "linear", report)
    assert any(d.code == "score.zeros-unplaced" for d in report.diagnostics)
    assert k2.places is None and len(k2.forms) == len(doc.tokens.forms) - len(doc.tokens.empty)
    assert all(mm.zero is None for chain in k2.mentions for mm in chain)


def test_singletons_leave_before_matching_as_corefud_scorer_does():
    """Without singletons, corefud-scorer removes one-mention chains before it matches
    mentions: a response singleton cannot take a key mention away from a response
    mention of a chain."""
    from corefio.compare.matching import without_singletons

    key = MentionView("d", list("abcdefgh"), [[m(0, 2), m(5, 5)]])
    # (0, 1) is a singleton with the best share of the key mention (0, 2); (0, 0) is in a chain
    response = MentionView("d", list("abcdefgh"), [[m(0, 1)], [m(0, 0), m(5, 5)]])
    k, r = align(key, response, "head")
    assert r.chains[0] == [((0, 2),)] and r.chains[1][0] != ((0, 2),)  # the singleton took it
    k, r = align(without_singletons(key), without_singletons(response), "head")
    assert r.chains == [[((0, 2),), ((5, 5),)]]
    assert without_singletons(key) is key
