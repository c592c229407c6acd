"""Scores by document group and by mention kind (corefio.scoring.breakdown)."""

from __future__ import annotations

import json

import pytest

import corefio
from corefio import metrics as M
from corefio.model.mentions import Mention, MentionView
from corefio.errors import UsageError
from corefio.scoring.breakdown import by_group, by_kind, group_function, kind_function


def _conll(documents: dict[str, list[str]]) -> str:
    lines = []
    for name, labels in documents.items():
        lines.append(f"#begin document ({name}); part 000")
        for i, label in enumerate(labels):
            lines.append(f"{name}\t0\t{i}\tw{i}\t{label}")
        lines.append("")
        lines.append("#end document")
    return "\n".join(lines) + "\n"


KEY = {"nw/a/1": ["(1)", "(2)", "(1)", "(2)"], "nw/a/2": ["(1)", "(1)", "-", "(1)"],
       "bc/b/1": ["(1)", "(2)", "(2)", "(1)"]}
RESPONSE = {"nw/a/1": ["(1)", "(1)", "(1)", "(2)"], "nw/a/2": ["(1)", "(1)", "(2)", "(2)"],
            "bc/b/1": ["(1)", "(2)", "(2)", "(1)"]}


def test_a_group_is_scored_as_its_documents_alone(tmp_path):
    key, response = tmp_path / "key.conll", tmp_path / "response.conll"
    key.write_text(_conll(KEY))
    response.write_text(_conll(RESPONSE))
    scores = corefio.score(key, response, ["muc", "bcub", "ceafe", "conll"], per_document=True)
    table = by_group(scores, group_function("genre"))
    assert list(table.rows) == ["bc", "nw"] and table.sizes == {"bc": 1, "nw": 2}
    for genre in ("bc", "nw"):
        only_key, only_response = tmp_path / f"k_{genre}.conll", tmp_path / f"r_{genre}.conll"
        only_key.write_text(_conll({n: v for n, v in KEY.items() if n.startswith(genre)}))
        only_response.write_text(_conll({n: v for n, v in RESPONSE.items() if n.startswith(genre)}))
        alone = corefio.score(only_key, only_response, ["muc", "bcub", "ceafe", "conll"])
        for m in ("muc", "bcub", "ceafe"):
            assert table.rows[genre][m].f1 == alone[m].f1
        assert table.rows[genre]["conll"]["f1"] == alone["conll"]["f1"]


def test_group_functions():
    assert group_function("genre")("bc/cctv/00/cctv_0000") == "bc"
    assert group_function("genre")("GUM_academic_art") == "academic"
    assert group_function("prefix:3")("GUM_academic_art") == "GUM"
    assert group_function("re:_([a-z]+)_")("GUM_news_worship") == "news"
    assert group_function("re:^x")("GUM") == "(other)"
    with pytest.raises(UsageError):
        group_function("colour")
    with pytest.raises(UsageError):
        group_function("re:(")


def _view(chains, forms, pos=None):
    return MentionView("d", forms, [[Mention(((a, b),)) for a, b in chain] for chain in chains], pos)


def test_kinds_from_tags_and_from_head_words():
    forms = ["Mary", "said", "she", "saw", "the", "dog", ".", "It", "barked", "at", "Mary"]
    tags = ["NNP", "VBD", "PRP", "VBD", "DT", "NN", ".", "PRP", "VBD", "IN", "NNP"]
    view = _view([[(0, 0), (2, 2), (10, 10)], [(4, 5), (7, 7)]], forms, tags)
    by_tag = kind_function("pos", view)
    by_word = kind_function("head", view)
    for m, expected in zip([c for chain in view.mentions for c in chain],
                           ["proper", "pronoun", "proper", "nominal", "pronoun"]):
        assert by_tag(m) == expected
        assert by_word(m) == (expected if m.spans != ((0, 0),) else "nominal")  # sentence-initial: unknown


def test_kind_scores_are_the_metrics_on_the_restricted_partitions():
    forms = ["Mary", "said", "she", "saw", "the", "dog", ".", "It", "barked", "at", "Mary"]
    tags = ["NNP", "VBD", "PRP", "VBD", "DT", "NN", ".", "PRP", "VBD", "IN", "NNP"]
    key = _view([[(0, 0), (2, 2), (10, 10)], [(4, 5), (7, 7)]], forms, tags)
    response = _view([[(0, 0), (2, 2)], [(4, 5)], [(7, 7), (10, 10)]], forms, tags)
    table = by_kind([(key, response)], "pos", ["mentions", "muc", "bcub"])
    assert list(table.rows) == ["pronoun", "proper", "nominal"]
    assert table.rows["pronoun"]["muc"] == M.muc([[((2, 2),)], [((7, 7),)]], [[((2, 2),)], [((7, 7),)]])
    assert table.rows["proper"]["bcub"] == M.b_cubed([[((0, 0),), ((10, 10),)]], [[((0, 0),)], [((10, 10),)]])
    assert table.sizes == {"pronoun": 2, "proper": 2, "nominal": 1}


def test_command_line(tmp_path, cli):
    key, response = tmp_path / "key.conll", tmp_path / "response.conll"
    key.write_text(_conll(KEY))
    response.write_text(_conll(RESPONSE))
    out = cli("score", key, response, "--group-by", "genre", "--by-kind", "head", "--format", "json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert set(data["groups"]) == {"bc", "nw"} and data["groups"]["bc"]["muc"]["f1"] == 1.0
    assert "nominal" in data["kinds"]
    text = cli("score", key, response, "--group-by", "prefix:2")
    assert text.exit_code == 0 and "Scores by document group" in text.output
    bad = cli("score", key, response, "--group-by", "colour")
    assert bad.exit_code == 2 and "unknown --group-by" in bad.output
