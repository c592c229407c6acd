"""Real cross-document files (tests/data/wild/cdcr) against the reference scorer.

``judges.json`` holds what scorer.pl v8.01 printed for the real key/response pair of Ahmed
et al.'s ECB+ event files (the gold key and the lemma heuristic's response) and for the
mention-based keys scored against themselves; the commands that made them are stored
beside the lines. corefio scores the pair block by block, as the scorer does, and counts
what the scorer counted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corefio.formats.readwrite import read
from corefio.scoring.crossdoc import CrossSettings, score_cross

from .test_cdcr import _same_printed, _scorer_lines

HERE = Path(__file__).parent / "data" / "wild" / "cdcr"
JUDGES = json.loads((HERE / "judges.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("pair", JUDGES["pairs"], ids=lambda p: f"{p['key']}~{p['response']}")
def test_the_real_pair_scores_as_scorer_pl(pair):
    key = read(HERE / pair["key"], "cdcr-conll")
    response = read(HERE / pair["response"], "cdcr-conll")
    metrics = sorted(pair["scorer_pl"])
    scores = score_cross(key, response, metrics, settings=CrossSettings(level="block"))
    for metric in metrics:
        _same_printed(_scorer_lines(scores, metric), pair["scorer_pl"][metric])


@pytest.mark.parametrize("run", JUDGES["counts"], ids=lambda r: r["file"])
def test_a_key_scored_against_itself_counts_what_scorer_pl_counts(run):
    layout = "mentions" if run["file"].endswith((".key_conll", ".txt")) else None
    corpus = read(HERE / run["file"], "cdcr-conll", layout=layout)
    mentions = sum(len(d.markables) for d in corpus)
    entities = sum(len(d.chain_indices()) for d in corpus)
    assert f"Recall: ({mentions} / {mentions})" in run["output"][0]
    assert f"Recall: ({mentions - entities} / {mentions - entities})" in run["output"][1]
