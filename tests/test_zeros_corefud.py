"""Zero mentions against corefud-scorer v1.2 on cases it does not ship: different numbers
of zeros at one place, zeros at other places or in other sentences, empty nodes without
mentions, a mention covering a zero (tests/data/zeros/, values from corefud-scorer)."""

from __future__ import annotations

import json

import pytest

import corefio

from .conftest import DATA

ZEROS = DATA / "zeros"
EXPECTED = json.loads((ZEROS / "expected.json").read_text())["cases"]
METRICS = ("muc", "bcub", "ceafe", "ceafm", "lea")


#: where corefio differs on purpose (README.md, "Zero mentions"): corefud-scorer keeps its
#: alignments in one dictionary keyed by position, both ways; when a response zero is
#: aligned by its dependencies with a key zero at another place, and a key zero stands at
#: the response zero's place, the two entries overwrite each other and a correctly
#: matched key zero counts as missing (recall below 1, precision 1)
POSITION_COLLISIONS = {f"TC-ZY-4_{match}_dependent" for match in ("exact", "head", "partial")}


def _score(case):
    return corefio.score(ZEROS / case["key"], ZEROS / case["response"], list(METRICS), match=case["match"],
                         keep_zeros=True, zero_match=case["zero_match"], key_format="conllu",
                         response_format="conllu")


def _values(result) -> list[float]:
    return [float(getattr(result[m], part)) for m in METRICS for part in ("recall", "precision")]


@pytest.mark.parametrize("name", sorted(set(EXPECTED) - POSITION_COLLISIONS))
def test_kept_zeros_give_what_corefud_scorer_gives(name):
    case = EXPECTED[name]
    want = [case["scores"][m][part] for m in METRICS for part in ("recall", "precision")]
    assert _values(_score(case)) == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("name", sorted(POSITION_COLLISIONS))
def test_zeros_aligned_across_places_are_not_lost(name):
    """TC-ZY-4: the response has the key's two zeros of one place at two places (4.1,
    5.1), each with its key zero's dependency; dependent matching pairs all three zeros
    rightly, so every score is 1. corefud-scorer loses the key zero 5.1 (see above)."""
    case = EXPECTED[name]
    assert _values(_score(case)) == [1.0] * 2 * len(METRICS)
    assert case["scores"]["muc"]["recall"] < 1 and case["scores"]["muc"]["precision"] == 1


def test_the_cases_cover_what_they_should():
    """Each response under every matching mode and both zero matching methods, and
    some case where linear and dependent zero matching disagree."""
    settings = {(c["response"], c["match"], c["zero_match"]) for c in EXPECTED.values()}
    responses = {c["response"] for c in EXPECTED.values()}
    assert len(responses) >= 10
    assert len(settings) == len(responses) * 3 * 2
    by = {(c["response"], c["match"], c["zero_match"]): c["scores"]["muc"] for c in EXPECTED.values()}
    assert any(by[(r, m, "linear")] != by[(r, m, "dependent")] for r, m, _ in by)


def test_an_empty_node_is_placed_by_its_written_number():
    """A response whose only zero at word 5 is written 5.2 (no 5.1) does not have the key's
    zero 5.1: corefio took the first empty node after a word as w.1 whatever its number,
    as corefud-scorer (udapi's decimal ord) does not."""
    case = EXPECTED["TC-ZX-2_head_linear"]
    assert float(_score(case)["muc"].recall) == pytest.approx(0.75)


def test_the_stored_values_are_what_the_scorer_printed():
    """expected.json keeps both the scorer's printed output and the full-precision values
    computed through the functions its command calls; they must tell the same story."""
    for name, case in EXPECTED.items():
        printed = dict(zip(case["output"][1::2], case["output"][2::2]))
        for metric in METRICS:
            values = case["scores"][metric]
            line = printed[metric].split()
            assert [float(line[1]), float(line[3])] == pytest.approx(
                [100 * values["recall"], 100 * values["precision"]], abs=0.006), (name, metric)


_EMPTY_NODE_KEY = ("# newdoc id = d\n# global.Entity = eid-etype-head-other\n# sent_id = d-1\n"
                   "# text = John came and left\n"
                   "1\tJohn\t_\tPROPN\t_\t_\t2\tnsubj\t2:nsubj|4:nsubj\tEntity=(e1-person-1)\n"
                   "2\tcame\t_\tVERB\t_\t_\t0\troot\t0:root\t_\n"
                   "3\tand\t_\tCCONJ\t_\t_\t4\tcc\t4:cc\t_\n"
                   "3.1\t#PersPron\t_\tPRON\t_\t_\t_\t_\t4:nsubj\tEntity=(e1-person-1)\n"
                   "4\tleft\t_\tVERB\t_\t_\t2\tconj\t2:conj|3.1:nsubj\t_\n\n")


def test_a_key_scored_against_its_conversion_names_the_empty_nodes(tmp_path, cli):
    """CoNLL has no empty nodes: converted, they become words, and scoring the key
    against its conversion failed with 'not the same text'. The error now says which
    empty nodes became words and how to convert without them."""
    key = tmp_path / "key.conllu"
    key.write_text(_EMPTY_NODE_KEY)
    converted = tmp_path / "converted.conll"
    assert cli("convert", str(key), str(converted)).exit_code == 0
    out = cli("score", str(key), str(converted))
    assert out.exit_code == 3
    assert "empty node" in out.output and "3.1" in out.output and "#PersPron" in out.output
    assert "drop_empty_nodes" in out.output
    # converted without them, the two score (the zero mention leaves with its node)
    dropped = tmp_path / "dropped.conll"
    assert cli("convert", str(key), str(dropped), "-r", "drop_empty_nodes=true").exit_code == 0
    assert "#PersPron" not in dropped.read_text()
    scores = corefio.score(key, dropped, ["mentions"])
    assert scores["mentions"].f1 == 1


def test_the_conllu_writer_drops_empty_nodes_on_request(tmp_path):
    from corefio.diagnostics import Report

    corpus = corefio.loads(_EMPTY_NODE_KEY, "conllu")
    report = Report()
    text = corefio.dumps(corpus, "conllu", report=report, drop_empty_nodes=True)
    assert "3.1\t" not in text and "#PersPron" not in text
    assert "2:conj\t" in text  # the enhanced relation to the empty node left with it
    assert report.by_code("conllu.empty-nodes-dropped")[0].count == 1
    back = corefio.loads(text, "conllu").documents[0]
    assert back.tokens.empty is None and len(back.markables) == 1
    import udapi

    path = tmp_path / "out.conllu"
    path.write_text(text)
    doc = udapi.Document(str(path))
    assert len(doc.coref_mentions) == 1
    assert not [n for n in doc.nodes_and_empty if n.is_empty()]
