"""BLANC's halves: scorer.pl's rule by default and under ``--preset conll2012``,
corefud-scorer's under ``--preset corefud`` (``repeats="corefud"``).

scorer.pl v8.01 leaves out a half (coreference or non-coreference links) when the key has
no link of its kind; corefud-scorer 1.2 only when neither key nor response has one. They
differ where the key lacks a kind of link and the response has it. Checked on a small
pair built here and on every test pair of corefud-scorer itself
(``tests/data/corefud-scorer-tests``, its outputs in ``judged.json``): every number of
the corefud preset equals corefud-scorer's.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import corefio
import corefio.metrics as M
from corefio.metrics.blanc import CorefudBlancScore, with_half_rule
from corefio.scoring import anaphora as UA
from corefio.scoring import presets as P
from corefio.scoring.render import percent

from .conftest import DATA

TESTS = DATA / "corefud-scorer-tests"
JUDGED = json.loads((TESTS / "judged.json").read_text(encoding="utf-8"))
METRICS = ("muc", "bcub", "ceafe", "ceafm", "blanc", "lea")
#: the options of the corefud preset each stored run stands for
RUN_OPTIONS = {"default": {}, "exact-singletons": {"match": "exact", "keep_singletons": True}}

#: key: one entity {a, b}; response: {a, b}, {c, d}: the key has no non-coreference link
KEY = """# newdoc id = d
# global.Entity = eid-etype-head-other
# sent_id = d-1
# text = a b c d
1\ta\t_\t_\t_\t_\t_\t_\t_\tEntity=(e1--1)
2\tb\t_\t_\t_\t_\t_\t_\t_\tEntity=(e1--1)
3\tc\t_\t_\t_\t_\t_\t_\t_\t_
4\td\t_\t_\t_\t_\t_\t_\t_\t_

"""
RESPONSE = KEY.replace("3\tc\t_\t_\t_\t_\t_\t_\t_\t_", "3\tc\t_\t_\t_\t_\t_\t_\t_\tEntity=(e2--1)") \
    .replace("4\td\t_\t_\t_\t_\t_\t_\t_\t_", "4\td\t_\t_\t_\t_\t_\t_\t_\tEntity=(e2--1)")


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    key, response = tmp_path / "key.conllu", tmp_path / "response.conllu"
    key.write_text(KEY, encoding="utf-8")
    response.write_text(RESPONSE, encoding="utf-8")
    return key, response


def _rpf(score) -> list[float]:
    return [float(score.recall), float(score.precision), float(score.f1)]


def test_the_two_rules_on_counts():
    # the key has coreference links only; the response has 4 non-coreference links
    blanc = M.blanc([[1, 2]], [[1, 2], [3, 4]])
    assert (blanc.noncoref.recall_den, blanc.noncoref.precision_den) == (0, 4)
    assert blanc.f1 == Fraction(2, 3)  # scorer.pl: the non-coreference half is left out
    corefud = with_half_rule(blanc, "corefud")
    assert isinstance(corefud, CorefudBlancScore)
    assert (corefud.recall, corefud.precision, corefud.f1) == (Fraction(1, 2), Fraction(1, 4), Fraction(1, 3))
    # sums keep the rule, whichever side it is on; the scorer rule gives the plain score back
    assert isinstance(corefud + blanc, CorefudBlancScore) and isinstance(blanc + corefud, CorefudBlancScore)
    assert type(with_half_rule(corefud, "scorer")) is M.BlancScore
    # neither side has a kind of link: both rules leave that half out
    both = M.blanc([[1, 2]], [[1, 2]])
    assert with_half_rule(both, "corefud").f1 == both.f1 == 1


def test_built_pair_under_each_preset(tmp_path):
    key, response = _pair(tmp_path)
    corefud = corefio.score(key, response, ["blanc"], preset="corefud")["blanc"]
    assert (corefud.recall, corefud.precision, corefud.f1) == (Fraction(1, 2), Fraction(1, 4), Fraction(1, 3))
    for scorer_pl in (corefio.score(key, response, ["blanc"], preset="conll2012")["blanc"],
                      corefio.score(key, response, ["blanc"])["blanc"],
                      corefio.score(key, response, ["blanc"], preset="corefud", repeats="scorer")["blanc"]):
        assert (scorer_pl.recall, scorer_pl.precision, scorer_pl.f1) == (1, Fraction(1, 2), Fraction(2, 3))
    # per document and in the corpus alike
    scores = corefio.score(key, response, ["blanc"], preset="corefud", per_document=True)
    assert scores.documents[0].results["blanc"].f1 == Fraction(1, 3)


def test_the_corefud_preset_says_its_blanc_rule(tmp_path, cli):
    key, response = _pair(tmp_path)
    out = cli("score", key, response, "--preset", "corefud", "-m", "blanc")
    assert out.exit_code == 0, out.output
    flat = " ".join(out.stdout.split())
    assert "blanc 50.00 25.00 33.33" in flat
    assert "BLANC leaves out a half only when neither key nor response has a link of its kind" in flat


CASES = [pytest.param(case, run, id=f"{case['response']}-{run}")
         for case in JUDGED["cases"] for run in RUN_OPTIONS]


def test_every_test_pair_of_corefud_scorer_was_judged():
    responses = sorted(str(p.relative_to(TESTS)) for p in TESTS.rglob("*.response"))
    assert [c["response"] for c in JUDGED["cases"]] == responses
    assert JUDGED["judge"]["commit"] == "4fd7b0e0c661aeeff88bc60c19ef507b84d1b590"
    assert sum("error" not in c["runs"]["default"] for c in JUDGED["cases"]) >= 55


@pytest.mark.parametrize(("case", "run"), CASES)
def test_the_corefud_preset_is_corefud_scorer_on_its_own_tests(case, run):
    judged = case["runs"][run]
    if "error" in judged:  # corefud-scorer fails on it (a division by zero): nothing to compare
        assert "Error" in judged["error"]
        return
    expected_flags = {"default": [], "exact-singletons": ["-a", "exact", "-s"]}[run]
    assert judged["command"] == ["python", "corefud-scorer.py", case["key"], case["response"], *expected_flags]
    key, response = TESTS / case["key"], TESTS / case["response"]
    scores = corefio.score(key, response, list(METRICS) + ["conll"], key_format="conllu",
                           response_format="conllu", preset="corefud", **RUN_OPTIONS[run])
    for metric in METRICS:
        assert _rpf(scores[metric]) == pytest.approx(judged["values"][metric], abs=1e-9), metric
    assert percent(scores["conll"].f1) == judged["transcript"].rsplit("CoNLL score: ", 1)[1].split()[0]
    settings = P.resolve("corefud", RUN_OPTIONS[run])
    assert settings.anaphora is not None
    result = UA.score_files(key, response, settings.anaphora, key_format="conllu", response_format="conllu")
    for metric in ("mor", "zero"):
        (values,) = result.sections[metric].values()
        assert [float(x) for x in values] == pytest.approx(judged["values"][metric], abs=1e-9), metric
