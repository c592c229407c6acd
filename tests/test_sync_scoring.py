"""Scoring with synchronisation strategies and matching modes (Popescu-Belis et al. 2004, §2.3's score sets)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import corefio
from corefio.model.mentions import Mention
from corefio.compare.matching import match_mentions
from corefio.model import Corpus, Document, Markable, Tokens

from .conftest import DATA, SAMPLES
from .test_sync import KEY, RESPONSE

SINGE = DATA / "corpora" / "democrat-singe-jsonlines"


def rp(score) -> tuple[Fraction, Fraction]:
    return (Fraction(score.recall_num, score.recall_den) if score.recall_den else Fraction(0),
            Fraction(score.precision_num, score.precision_den) if score.precision_den else Fraction(0))


def test_the_four_score_sets_of_a_hand_computed_example():
    # key chains {John, He} {Mary, her}; the response links John-He and Mary-"liked her",
    # and misses "her" (see tests/test_sync.py)
    result = corefio.score(KEY, RESPONSE, ["muc", "bcub"], sync="all")
    expected_muc = {"key": (Fraction(1, 2), Fraction(1)), "response": (Fraction(1), Fraction(1, 2)),
                    "intersection": (Fraction(1), Fraction(1)), "union": (Fraction(1, 2), Fraction(1, 2))}
    for strategy, want in expected_muc.items():
        assert rp(result[strategy]["muc"]) == want, strategy
    # B³ on the intersection: both sides {John, He} {Mary}: perfect
    assert rp(result["intersection"]["bcub"]) == (1, 1)
    # mention identification once, before synchronisation: 3 of 4 on each side
    mentions = result.mentions.corpus["mentions"]
    assert rp(mentions) == (Fraction(3, 4), Fraction(3, 4))


def test_one_strategy_alone():
    result = corefio.score(KEY, RESPONSE, ["muc"], sync="union")
    assert list(result.sets) == ["union"]


def test_key_strategy_equals_plain_scoring_when_the_mention_sets_agree():
    response = RESPONSE.edit()
    response.remove_markables({"r5"})
    response.add_markable(Markable(id="r6", spans=((6, 6),), entity="a"))
    same = response.commit()
    plain = corefio.score(KEY, same, ["all"])
    synced = corefio.score(KEY, same, ["all"], sync="key")["key"]
    for name in plain.metrics:
        if name not in ("mentions", "typed"):
            assert plain[name] == synced[name], name


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.sampled_from("ab")), min_size=1, max_size=6, unique_by=lambda t: t[0]),
       st.data())
def test_key_strategy_keeps_muc_when_the_response_has_no_extra_mentions(key_marks, data):
    forms = [f"w{i}" for i in range(8)]
    key = Document(name="d", tokens=Tokens(forms=forms),
                   markables=[Markable(id=f"k{i}", spans=((i, i),), entity=e) for i, e in key_marks])
    kept = data.draw(st.lists(st.sampled_from(key_marks), unique=True))
    response = Document(name="d", tokens=Tokens(forms=forms),
                        markables=[Markable(id=f"r{i}", spans=((i, i),), entity=data.draw(st.sampled_from("xy")))
                                   for i, _ in kept])
    plain = corefio.score(key, response, ["muc"])["muc"]
    synced = corefio.score(key, response, ["muc"], sync="key")["key"]["muc"]
    assert rp(plain) == rp(synced)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 3), st.integers(0, 3)), max_size=8),
       st.lists(st.tuples(st.integers(0, 9), st.integers(0, 3), st.integers(0, 3)), max_size=8),
       st.sampled_from(["exact", "head", "min", "partial"]))
def test_matching_never_pairs_a_mention_twice(key, response, mode):
    def mentions(items):
        return [Mention(((a, a + n),), head=((a + min(h, n), a + min(h, n)),)) for a, n, h in items]

    pairs = match_mentions(mentions(key), mentions(response), mode).pairs
    assert len({i for i, _ in pairs}) == len(pairs) == len({j for _, j in pairs})


def test_different_tokenisations_of_one_text_score_as_one():
    # multi-word tokens split in the CoNLL-U-like file, listed whole and split in jsonlines:
    # 5.69% before alignment, every chain equal after
    result = corefio.score(SINGE / "singe.conll", SINGE / "singe.jsonlines", ["muc", "bcub", "ceafe"])
    for name in ("muc", "bcub", "ceafe"):
        assert rp(result[name]) == (1, 1), name
    assert "score.retokenised" in result.report.codes()


def test_cli_prints_the_score_sets_side_by_side_and_as_json(cli, tmp_path):
    text = cli("score", SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml", "--sync", "all", "-m", "muc,bcub")
    assert text.exit_code == 0, text.output
    assert all(s in text.output for s in ("key", "response", "intersection", "union", "Identification"))
    out = tmp_path / "s.json"
    assert cli("score", SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml", "--sync", "all", "-m", "muc",
               "--format", "json", "-o", out).exit_code == 0
    data = json.loads(out.read_text())
    assert set(data["sync"]) == {"key", "response", "intersection", "union"}
    assert data["sync"]["key"]["muc"]["recall"] == {"num": 11, "den": 13, "value": pytest.approx(11 / 13)}
    assert set(data["mentions"]) >= {"recall", "precision", "f1"}


def test_cli_refuses_unknown_modes_and_strategies(cli):
    args = ("score", SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml")
    assert cli(*args, "--match", "fuzzy").exit_code == 2
    assert cli(*args, "--sync", "both").exit_code == 2


def test_pairing_by_order(tmp_path):
    key = Corpus(documents=[KEY.copy(name="a")])
    response = Corpus(documents=[RESPONSE.copy(name="b")])
    two = Corpus(documents=[RESPONSE.copy(name="b"), RESPONSE.copy(name="c")])
    with pytest.raises(corefio.DocumentMismatchError):
        corefio.score(key, two, ["muc"])
    # one document each: paired whatever the names (score.paired-single), as by order
    assert rp(corefio.score(key, response, ["muc"])["muc"]) == (Fraction(1, 2), Fraction(1, 2))
    assert rp(corefio.score(key, response, ["muc"], pair_by="order")["muc"]) == (Fraction(1, 2), Fraction(1, 2))
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("a\tb\n")
    assert rp(corefio.score(key, response, ["muc"], pairs_file=pairs)["muc"]) == (Fraction(1, 2), Fraction(1, 2))
