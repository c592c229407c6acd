"""System outputs as their systems publish or write them (tests/data/system-outputs/),
scored against keys in other formats with ``corefio score KEY PREDICTIONS``.

Each expected table is worked out by hand in the comments (MUC: links; mentions: the
mention identification score), so a transcript that changes is a defect, not a new
golden file."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

import corefio
from corefio.cli import app
from corefio.formats import jsonlines

from .conftest import DATA

OUTPUTS = DATA / "system-outputs"


def score(*args: str) -> str:
    result = CliRunner().invoke(app, ["score", *args, "-m", "muc", "-m", "mentions"])
    assert result.exit_code == 0, result.output
    return result.stdout.split("\n\n")[0] + "\n"  # the table (the settings follow it)


def table(muc: tuple[str, str, str], mentions: tuple[str, str, str]) -> str:
    rows = [("metric", "recall", "precision", "F1"), ("muc", *muc), ("mentions", *mentions)]
    return "".join(f"{a:<10} {b:>8} {c:>10} {d:>10}\n" for a, b, c, d in rows)


def test_fastcoref_published_output_is_read_as_it_was_written():
    corpus = corefio.read(OUTPUTS / "fastcoref_out_test.jsonlines")
    docs = corpus.documents
    assert [d.name for d in docs] == ["document_1", "document_2", "document_3"]
    strings = [[[" ".join(d.tokens.forms[m.first : m.last + 1]) for m in chain] for chain in d.chains()] for d in docs]
    assert strings == [[["We", "our"], ["our coref package", "This package"]],
                       [["The man", "his"], ["his foot", "it"]],
                       [["a dog", "The dog ' s"]]]
    # the mention strings are read as such, not kept as document data
    assert all("clusters_strings" not in d.metadata for d in docs)


def test_fastcoref_output_scored_against_a_conllu_key_tokenised_otherwise():
    # key (ours): the same chains but "the boot ... it" in text 2; "dog 's" is two words
    # in the key and three (dog ' s) in fastcoref's text split: aligned by characters.
    # MUC recall: text 1: 2 of 2 links; text 2: {The man, his} 1 of 1, {the boot, it} 0 of 1
    # (the boot was not found); text 3: 1 of 1 -> 4/5. Precision: {his foot, it} 0 of 1
    # -> 4/5. Mentions: 10 in each, "the boot" and "his foot" unmatched -> 9/10.
    assert score(str(OUTPUTS / "fastcoref_key.conllu"), str(OUTPUTS / "fastcoref_out_test.jsonlines")) == \
        table(("80.00", "80.00", "80.00"), ("90.00", "90.00", "90.00"))


def test_bert_coref_predictions_with_genre_doc_keys_pair_by_order():
    key, response = str(OUTPUTS / "fastcoref_key.conllu"), str(OUTPUTS / "bert-coref_predictions.jsonlines")
    # BERT-coref's doc_key is the genre ("nw" for every line): the names cannot pair them
    refused = CliRunner().invoke(app, ["score", key, response])
    assert refused.exit_code == 3 and "--pair-by order" in refused.output
    # the predictions (WordPiece pieces mapped back by subtoken_map) find texts 1 and 2
    # exactly and nothing in text 3: MUC recall 4 of 5 links, precision 4 of 4; mentions
    # 8 of 10 found, 8 of 8 right
    assert score(key, response, "--pair-by", "order") == \
        table(("80.00", "100.00", "88.89"), ("80.00", "100.00", "88.89"))


def test_bert_coref_pieces_are_glued_back_to_the_keys_words():
    key = corefio.read(OUTPUTS / "fastcoref_key.conllu")
    predictions = corefio.read(OUTPUTS / "bert-coref_predictions.jsonlines")
    assert [d.tokens.forms for d in predictions.documents] == [d.tokens.forms for d in key.documents]
    assert [len(d.sentences) for d in predictions.documents] == [2, 1, 2]


def test_wl_coref_output_scored_with_and_without_heads():
    key, response = str(OUTPUTS / "wl-coref_key.conllu"), str(OUTPUTS / "wl-coref_output.jsonlines")
    # text 2 of the sample: the system's "Joseph her husband" (head Joseph) for the key's
    # "Joseph", and a wrong chain {the law, | public disgrace,} ("law," is one word in
    # wl-coref's sample, two in the key). Exact: MUC recall: tc 2 of 2; pt {Joseph, her
    # husband, he} 0 of 2, {her x3} 2 of 2 -> 4/6; precision: {Joseph her husband, he} 0
    # of 1, {her x3} 2 of 2, {law, disgrace} 0 of 1, tc 2 of 2 -> 4/6. Mentions: 10 in the
    # key, 11 in the output, 8 the same.
    assert score(key, response) == table(("66.67", "66.67", "66.67"), ("80.00", "72.73", "76.19"))
    # heads: "Joseph her husband" stands for "Joseph": recall {Joseph, he} 1 of 2 -> 5/6,
    # precision {Joseph her husband, he} 1 of 1 -> 5/6; mentions 9 of 10, 9 of 11
    assert score(key, response, "--match", "head") == table(("83.33", "83.33", "83.33"), ("90.00", "81.82", "85.71"))


def test_wl_coref_output_heads_are_its_word_clusters():
    doc = corefio.read(OUTPUTS / "wl-coref_output.jsonlines").documents[1]
    heads = [[(m.first, m.last, m.head[0][0] if m.head else None) for m in chain] for chain in doc.chains()]
    assert heads[0] == [(1, 3, 1), (20, 20, 20)] and heads[2] == [(7, 8, 8), (18, 19, 19)]


def test_allennlp_predictor_clusters_scored_against_a_conll_key():
    # the predictor test's clusters: all right but {fruit, That} of "Julie wants to buy
    # fruit. That is what she loves." is not found: MUC recall 5 of 6 links, precision 5
    # of 5; mentions 10 of 12, 10 of 10. The output has no names: paired by order.
    assert score(str(OUTPUTS / "allennlp_key.v4_gold_conll"), str(OUTPUTS / "allennlp_predictions.jsonl")) == \
        table(("83.33", "100.00", "90.91"), ("83.33", "100.00", "90.91"))


@pytest.mark.parametrize("name", ["fastcoref_out_test.jsonlines", "bert-coref_predictions.jsonlines",
                                  "wl-coref_output.jsonlines", "allennlp_predictions.jsonl"])
def test_each_output_is_recognised_from_its_keys_under_any_name(name, tmp_path):
    dialect = {"fastcoref": "offsets", "bert-coref": "subword", "wl-coref": "wl", "allennlp": "allennlp"}[
        name.split("_")[0]]
    copy = tmp_path / "predictions.jsonl"
    shutil.copy(OUTPUTS / name, copy)
    assert {d.layout["jsonlines"].dialect for d in corefio.read(copy).documents} == {dialect}
    assert {d.layout["jsonlines"].dialect for d in corefio.read(copy, f"jsonlines:{dialect}").documents} == {dialect}


def test_character_clusters_with_inclusive_ends_are_told_by_fastcoref_mention_strings():
    # the same text with ends one short of fastcoref's: clusters_strings settle it
    line = {"text": "The man saw his foot.", "clusters": [[[0, 6], [12, 14]]], "clusters_strings": [["The man", "his"]]}
    doc = jsonlines.loads(json.dumps(line) + "\n").documents[0]
    assert [[" ".join(doc.tokens.forms[m.first : m.last + 1]) for m in chain] for chain in doc.chains()] == [
        ["The man", "his"]]


# -- round trips on real data ------------------------------------------------------------------

GUM = DATA / "corpora" / "gum" / "coref" / "ontogum" / "conllu"


def gum_with_heads() -> corefio.model.Corpus:
    """Two GUM documents (CC BY), every mention given the head the dependency tree gives it."""
    from corefio.formats import conllu

    docs = [conllu.with_written_heads(corefio.read(path).documents[0]) for path in sorted(GUM.glob("*.conllu"))]
    return corefio.model.Corpus(documents=docs)


def round_trip_content(fmt: str, tmp_path, **options) -> None:
    """Written as ``fmt`` and read back, each GUM document is what the format can hold of
    it (``losses.project``), heads included where the format keeps them."""
    from corefio.formats.losses import project

    from .test_roundtrip import content

    corpus = gum_with_heads()
    out = tmp_path / f"out{''.join(corefio.get_format(fmt).extensions[:1])}"
    corefio.write(corpus, out, fmt, **options)
    back = corefio.read(out)
    caps = corefio.get_format(fmt).capabilities
    assert [d.name for d in back.documents] == [d.name for d in corpus.documents]
    for doc, again in zip(corpus.documents, back.documents):
        assert content(again) == content(project(doc, caps))
        if caps.heads:
            assert all(m.head is not None for m in again.markables) and again.markables


def test_wl_coref_round_trip_on_gum(tmp_path):
    round_trip_content("wl-coref", tmp_path)
    # and wl-coref's words and heads score as the key they came from
    corefio.write(gum_with_heads(), tmp_path / "wl.jsonlines", "wl-coref")
    key = tmp_path / "key.conllu"
    corefio.write(gum_with_heads(), key)
    assert score(str(key), str(tmp_path / "wl.jsonlines"), "--match", "head") == \
        table(("100.00", "100.00", "100.00"), ("100.00", "100.00", "100.00"))
