"""jsonlines shapes of coreference systems: told from the keys, read to the same
document, scored in one command, written back where a system reads them."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

import corefio
from corefio.cli import app
from corefio.diagnostics import Report
from corefio.errors import FormatError, UsageError
from corefio.formats import jsonlines
from corefio.model import Corpus

from .conftest import DATA

SYSTEMS = DATA / "systems"
WORDS = "Anna met Ben in Rome . She gave him the city map .".split()
CHAINS = [[(0, 0), (6, 6)], [(2, 2), (8, 8)], [(4, 4), (9, 10)]]
SHAPES = {
    "e2e": "e2e", "wl": "wl", "subword": "subword", "fast-coref": "subword", "bert-coref": "subword", "maverick": "offsets",
    "maverick-text": "offsets", "maverick-chars": "offsets", "fastcoref": "offsets", "allennlp": "allennlp",
    "bookcoref": "bookcoref",
}


def chains(doc):
    return [[(m.first, m.last) for m in chain] for chain in doc.chains()]


@pytest.mark.parametrize("shape, dialect", sorted(SHAPES.items()))
def test_every_shape_reads_to_the_same_document(shape, dialect):
    doc = corefio.read(SYSTEMS / f"anna.{shape}.jsonlines").documents[0]
    assert doc.layout["jsonlines"].dialect == dialect
    assert doc.tokens.forms == WORDS
    assert chains(doc) == CHAINS


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_shape_scores_against_a_conllu_key_in_one_command(shape, tmp_path):
    key = tmp_path / "key.conllu"
    corefio.convert(SYSTEMS / "anna.e2e.jsonlines", key)
    response = tmp_path / "predictions.jsonlines"  # the file name says nothing of the shape
    shutil.copy(SYSTEMS / f"anna.{shape}.jsonlines", response)
    result = CliRunner().invoke(app, ["score", str(key), str(response), "--format", "json"])
    assert result.exit_code == 0, result.output
    corpus = json.loads(result.stdout)["corpus"]
    assert corpus["mentions"]["recall"]["den"] == 6
    assert {metric: corpus[metric]["f1"] for metric in ("mentions", "muc", "bcub")} == {
        "mentions": 1.0, "muc": 1.0, "bcub": 1.0}


def test_a_text_tokenised_otherwise_than_the_key_is_aligned_by_characters(tmp_path):
    key = tmp_path / "key.conllu"
    corefio.write(corefio.loads(json.dumps({"doc_key": "k", "sentences": [["Anna", "met", "Ben", "'s", "dog", "."]],
                                            "clusters": [[[0, 0]], [[2, 2], [2, 4]]]}), "jsonlines"), key)
    response = tmp_path / "fastcoref.jsonl"  # fastcoref's words: Ben ' s
    response.write_text(json.dumps({"id": "k", "text": "Anna met Ben's dog.", "clusters": [[[0, 4]], [[9, 12], [9, 18]]]}))
    assert corefio.read(response).documents[0].tokens.forms[2:5] == ["Ben", "'", "s"]
    result = CliRunner().invoke(app, ["score", str(key), str(response), "--format", "json"])
    assert result.exit_code == 0, result.output
    corpus = json.loads(result.stdout)["corpus"]
    assert corpus["mentions"]["f1"] == 1.0 and corpus["muc"]["f1"] == 1.0


def test_wl_heads_are_kept_and_written_back():
    corpus = corefio.read(SYSTEMS / "anna.wl.jsonlines")
    doc = corpus.documents[0]
    assert [m.head for m in doc.chains()[2]] == [((4, 4),), ((10, 10),)]
    assert (doc.name, doc.part) == ("anna", "0")
    text = corefio.dumps(corpus, "wl-coref")
    obj = json.loads(text)
    source = json.loads((SYSTEMS / "anna.wl.jsonlines").read_text())
    for key in ("document_id", "cased_words", "sent_id", "part_id", "span_clusters", "word_clusters"):
        assert obj[key] == source[key], key
    assert obj["head2span"] == [[0, 0, 1], [6, 6, 7], [2, 2, 3], [8, 8, 9], [4, 4, 5], [10, 9, 11]]
    again = corefio.loads(text, "jsonlines").documents[0]
    assert chains(again) == CHAINS and [m.head for m in again.markables] == [m.head for m in doc.markables]


def test_wl_coref_sample_input_reads():
    """wl-coref's own sample (what its predict.py reads): words, sentences, speakers."""
    corpus = corefio.read(SYSTEMS / "wl-coref_sample_input.jsonlines")
    first, second = corpus.documents
    assert (first.name, len(first.tokens.forms), len(first.sentences)) == ("tc_sample_input_001", 11, 2)
    assert first.tokens.attributes["speaker"][0] == "Tom" and first.markables == []
    assert second.tokens.forms[8] == "law," and len(second.sentences) == 1
    written = [json.loads(line) for line in corefio.dumps(corpus, "wl-coref").splitlines()]
    source = [json.loads(line) for line in (SYSTEMS / "wl-coref_sample_input.jsonlines").read_text().splitlines()]
    for mine, theirs in zip(written, source):
        assert {k: mine[k] for k in ("document_id", "cased_words", "sent_id")} == \
            {k: theirs[k] for k in ("document_id", "cased_words", "sent_id")}


def test_wl_heads_from_head2span_when_clusters_are_not_parallel():
    line = {"document_id": "d", "cased_words": ["the", "old", "man", "slept"], "sent_id": [0, 0, 0, 0],
            "span_clusters": [[[0, 3]]], "word_clusters": [], "head2span": [[2, 0, 3]]}
    doc = jsonlines.loads(json.dumps(line)).documents[0]
    assert doc.markables[0].spans == ((0, 2),) and doc.markables[0].head == ((2, 2),)


def test_wl_head_words_only():
    line = {"document_id": "d", "cased_words": ["Anna", "slept", "she", "said"], "sent_id": [0, 0, 1, 1],
            "word_clusters": [[0, 2]]}
    doc = jsonlines.loads(json.dumps(line)).documents[0]
    assert chains(doc) == [[(0, 0), (2, 2)]] and len(doc.sentences) == 2


def test_subword_pieces_glue_back_to_words():
    doc = corefio.read(SYSTEMS / "anna.subword.jsonlines").documents[0]
    assert doc.tokens.forms[0] == "Anna" and len(doc.sentences) == 2


def test_wordpiece_pieces_and_predicted_clusters():
    line = {"doc_key": "w", "sentences": [["[CLS]", "un", "##believ", "##able", "news", "[SEP]"]],
            "subtoken_map": [0, 0, 0, 0, 1, 1], "sentence_map": [0] * 6,
            "clusters": [[[4, 4]]], "predicted_clusters": [[[1, 3], [4, 4]]]}
    doc = jsonlines.loads(json.dumps(line)).documents[0]
    assert doc.tokens.forms == ["unbelievable", "news"]
    assert chains(doc) == [[(0, 0), (1, 1)]]  # the prediction, not the gold clusters
    assert json.loads(doc.metadata["clusters"]) == [[[4, 4]]]


def test_character_offsets_end_convention_follows_the_mention_strings():
    text = "We like our package. This package works."
    exclusive = {"text": text, "clusters": [[0, 2], [8, 11]], "clusters_char_offsets": [[[0, 2], [8, 11]]],
                 "clusters_text_mentions": [["We", "our"]]}
    del exclusive["clusters"]
    doc = jsonlines.loads(json.dumps(exclusive)).documents[0]
    assert [[doc.tokens.forms[m.first] for m in c] for c in doc.chains()] == [["We", "our"]]
    inclusive = {"text": text, "clusters_char_offsets": [[[0, 1], [8, 10]]]}
    doc = jsonlines.loads(json.dumps(inclusive)).documents[0]
    assert [[doc.tokens.forms[m.first] for m in c] for c in doc.chains()] == [["We", "our"]]


def test_a_mention_inside_a_word_splits_the_word():
    doc = jsonlines.loads(json.dumps({"text": "the Smiths' car", "clusters": [[[4, 10]]]})).documents[0]
    assert doc.tokens.forms == ["the", "Smiths", "'", "car"]
    assert chains(doc) == [[(1, 1)]]
    assert "".join(f + w for f, w in zip(doc.tokens.forms, doc.tokens.whitespace)) == "the Smiths' car"


def test_bookcoref_character_names_become_entity_attributes():
    doc = corefio.read(SYSTEMS / "anna.bookcoref.jsonlines").documents[0]
    assert [e.attributes.get("name") for e in doc.entities] == ["Anna", "Ben", None]
    assert doc.metadata["gutenberg_key"] == "0"


def test_unknown_shape_names_its_keys_and_the_dialects():
    text = '{"doc_key": "ok", "sentences": [["a"]], "clusters": []}\n{"words": ["a"], "chains": []}\n'
    with pytest.raises(FormatError) as info:
        jsonlines.loads(text, file="p.jsonlines")
    message = str(info.value)
    assert info.value.line == 2 and "words, chains" in message
    for dialect in ("wl", "subword", "offsets", "allennlp", "bookcoref", "e2e"):
        assert f"{dialect}:" in message
    assert "jsonlines:DIALECT" in message


def test_dialect_read_option_forces_a_shape(tmp_path):
    path = tmp_path / "x.jsonlines"
    shutil.copy(SYSTEMS / "anna.e2e.jsonlines", path)
    with pytest.raises(FormatError) as info:
        corefio.read(path, dialect="wl")
    assert "cased_words" in str(info.value) and info.value.line == 1
    with pytest.raises(UsageError):
        corefio.read(path, dialect="klingon")
    result = CliRunner().invoke(app, ["convert", str(path), str(tmp_path / "o.conllu"), "--read-option",
                                      "dialect=e2e"])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("line, words", [
    ({"document_id": "d", "cased_words": ["a"], "sent_id": [0, 0]}, "sent_id has 2 entries for 1 words"),
    ({"document_id": "d", "cased_words": ["a"], "span_clusters": [[[0, 0]]]}, "is empty"),
    ({"document_id": "d", "cased_words": ["a"], "span_clusters": [[[0, 5]]]}, "outside the 1 words"),
    ({"document_id": "d", "cased_words": ["a", "b"], "span_clusters": [[[0, 1]]], "head2span": [[1, 0, 1]]},
     "head [1, 1] lies outside"),
    ({"sentences": [["a"]], "subtoken_map": [0, 1]}, "subtoken_map has 2 entries"),
    ({"sentences": [["a", "b"]], "subtoken_map": [1, 1]}, "number the words 0, 1, 2"),
    ({"sentences": [[5, 6]], "subtoken_map": [0, 1]}, "no orig_tokens"),
    ({"sentences": [["a"]], "subtoken_map": [0], "clusters": [[[0, 3]]]}, "outside the 1 sub-word pieces"),
    ({"text": "ab", "clusters": [[[0, 9]]]}, "outside the 2 characters"),
    ({"text": "ab", "clusters_char_offsets": [[[0, 9]]], "clusters_text_mentions": [5]}, "outside the 2 characters"),
    ({"text": "a  b", "clusters": [[[1, 2]]]}, "covers no word"),
    ({"tokens": ["a"], "clusters_token_offsets": [[["x", 0]]]}, "is not a list of 2 integers"),
    ({"document": ["a"], "clusters": [[[0, 1]]]}, "outside the 1 words"),
    ({"sentences": [["a"]], "characters": [{"cluster": [[0, 0]]}]}, "has no name"),
])
def test_hostile_lines_name_their_line(line, words):
    text = '{"doc_key": "ok", "sentences": [["a"]], "clusters": []}\n' + json.dumps(line) + "\n"
    with pytest.raises(FormatError) as info:
        jsonlines.loads(text, file="t.jsonlines")
    assert info.value.line == 2 and info.value.file == "t.jsonlines" and words in str(info.value)


def test_e2e_lines_without_doc_key_are_named_by_place():
    text = '{"doc_key": "a", "sentences": [["x"]], "clusters": []}\n{"sentences": [["y"]], "clusters": [[[0, 0]]]}\n'
    assert [d.name for d in jsonlines.loads(text).documents] == ["a", "document_2"]


def test_e2e_line_keeps_its_byte_for_byte_round_trip():
    text = (SYSTEMS / "anna.e2e.jsonlines").read_text()
    assert jsonlines.dumps(jsonlines.loads(text)) == text


def test_wl_writer_reports_nothing_lost_for_heads():
    corpus = corefio.read(SYSTEMS / "anna.wl.jsonlines")
    report = Report()
    corefio.dumps(corpus, "wl-coref", report=report)
    assert "loss.heads" not in report.codes()
    report = Report()
    corefio.dumps(corpus, "jsonlines", report=report)
    assert "loss.heads" in report.codes()


def _command(name, path, tmp_path, from_format):
    """``corefio NAME`` on ``path`` (twice for the commands that take a key and a
    response) with ``--from from_format``."""
    other = tmp_path / f"other{path.suffix}"
    shutil.copy(path, other)
    both = [str(path), str(other)]
    args = {
        "convert": [str(path), str(tmp_path / "out.conllu")],
        "info": [str(path)],
        "validate": [str(path)],
        "score": both,
        "compare": both + [str(path)],  # two responses
        "view": [str(path), "-o", str(tmp_path / "page.html")],
        "sync": both + ["-o", str(tmp_path / "synced")],
    }[name]
    return CliRunner().invoke(app, [name, *args, "--from", from_format])


COMMANDS = ("convert", "info", "validate", "score", "compare", "view", "sync")


@pytest.mark.parametrize("command", COMMANDS)
def test_from_jsonlines_dialect_forces_the_shape_in_every_command(command, tmp_path):
    path = tmp_path / "anna.jsonlines"
    shutil.copy(SYSTEMS / "anna.e2e.jsonlines", path)
    forced = _command(command, path, tmp_path, "jsonlines:e2e")
    assert forced.exit_code == 0, forced.output
    # the same lines read as wl-coref: the forced reader asks for wl-coref's words
    wrong = _command(command, path, tmp_path, "jsonlines:wl")
    assert wrong.exit_code == (4 if command == "validate" else 3), wrong.output
    assert "cased_words" in wrong.output


@pytest.mark.parametrize("command", COMMANDS)
def test_from_an_unknown_dialect_lists_the_known_ones(command, tmp_path):
    path = tmp_path / "anna.jsonlines"
    shutil.copy(SYSTEMS / "anna.e2e.jsonlines", path)
    result = _command(command, path, tmp_path, "jsonlines:klingon")
    assert result.exit_code == (4 if command == "validate" else 2), result.output
    assert "klingon" in result.output and ", ".join(jsonlines.dialects.DIALECTS) in result.output


def test_a_forced_dialect_reads_a_line_its_keys_would_give_to_another(tmp_path):
    # words in AllenNLP's "document" and in e2e "sentences": the keys say AllenNLP (one
    # sentence); jsonlines:e2e reads the two sentences
    line = {"doc_key": "d", "document": WORDS, "sentences": [WORDS[:6], WORDS[6:]], "clusters": [[[0, 0], [6, 6]]]}
    path = tmp_path / "both.jsonlines"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert len(corefio.read(path).documents[0].sentences) == 1
    assert corefio.read(path, "jsonlines:allennlp").documents[0].layout["jsonlines"].dialect == "allennlp"
    doc = corefio.read(path, "jsonlines:e2e").documents[0]
    assert len(doc.sentences) == 2 and chains(doc) == [[(0, 0), (6, 6)]]


def test_a_dialect_is_a_way_to_read_not_a_format_to_write(tmp_path):
    result = CliRunner().invoke(app, ["convert", str(SYSTEMS / "anna.e2e.jsonlines"), str(tmp_path / "o.jsonlines"),
                                      "--to", "jsonlines:wl"])
    assert result.exit_code == 2 and "'jsonlines:wl' cannot be written" in result.output
    with pytest.raises(UsageError, match="'conll' has no variants"):
        corefio.read(SYSTEMS / "anna.e2e.jsonlines", "conll:wl")


# -- PreCo ------------------------------------------------------------------------------------
#: the Anna document as a PreCo line: mentions [sentence, start, end), an empty sentence
#: between the two, and a singleton ("the city map") as PreCo keeps them
PRECO = ('{"id": "dev_00001", "sentences": [["Anna", "met", "Ben", "in", "Rome", "."], [], '
         '["She", "gave", "him", "the", "city", "map", "."]], "mention_clusters": [[[0, 0, 1], [2, 0, 1]], '
         '[[0, 2, 3], [2, 2, 3]], [[0, 4, 5], [2, 3, 5]], [[2, 3, 6]]]}\n')


def test_preco_reads_with_end_exclusive_mentions_in_sentences(tmp_path):
    path = tmp_path / "dev.jsonl"
    path.write_text(PRECO, "utf-8")
    doc = corefio.read(path).documents[0]
    assert doc.layout["jsonlines"].dialect == "preco"
    assert (doc.name, doc.part) == ("dev_00001", None)
    assert doc.tokens.forms == WORDS and [(s.first, s.last) for s in doc.sentences] == [(0, 5), (6, 12)]
    assert chains(doc) == [*CHAINS, [(9, 11)]]


def test_preco_is_written_back_byte_for_byte_and_by_the_preco_writer(tmp_path):
    source = tmp_path / "dev.jsonl"
    compact = json.dumps({"id": "d2", "sentences": [["Élan", "."]], "mention_clusters": [[[0, 0, 1]]],
                          "genre": ["story"]}, ensure_ascii=False, separators=(",", ":"))
    source.write_text(PRECO + compact, "utf-8")  # no line end at the end of the file
    corpus = corefio.read(source)
    assert corefio.dumps(corpus, "jsonlines") == source.read_text("utf-8")
    assert corefio.dumps(corpus, "preco") == source.read_text("utf-8")


def test_other_shapes_are_written_as_preco_and_read_back(tmp_path):
    corpus = corefio.read(SYSTEMS / "anna.e2e.jsonlines")
    report = Report()
    text = corefio.dumps(corpus, "preco", report=report)
    line = json.loads(text)
    assert set(line) == {"id", "sentences", "mention_clusters"}
    assert line["mention_clusters"] == [[[0, 0, 1], [1, 0, 1]], [[0, 2, 3], [1, 2, 3]], [[0, 4, 5], [1, 3, 5]]]
    assert chains(corefio.loads(text, "jsonlines").documents[0]) == CHAINS
    assert not [d for d in report.diagnostics if d.severity != "info"]


def test_a_mention_across_sentences_is_a_reported_loss_in_preco(tmp_path):
    corpus = corefio.loads(json.dumps({"doc_key": "x", "sentences": [["a", "b"], ["c"]],
                                       "clusters": [[[1, 2], [0, 0]]]}), "jsonlines")
    report = Report()
    line = json.loads(corefio.dumps(corpus, "preco", report=report))
    assert line["mention_clusters"] == [[[0, 0, 1]]]
    assert "loss.cross-sentence" in report.codes()
    # read from PreCo, such a document goes back to jsonlines in e2e's shape, which holds it
    doc = corefio.loads(json.dumps({"id": "p", "sentences": [["a", "b"], ["c"]], "mention_clusters": [[[0, 0, 1]]]}),
                        "jsonlines").documents[0]
    doc = doc.copy(markables=[doc.markables[0].copy(spans=((1, 2),))])
    assert json.loads(corefio.dumps(Corpus(documents=[doc]), "jsonlines"))["clusters"] == [[[1, 2]]]


def test_a_document_part_goes_through_the_preco_id():
    corpus = corefio.loads(json.dumps({"doc_key": "(bc/cnn/00/cnn_0001); part 002", "sentences": [["a"]],
                                       "clusters": []}), "jsonlines")
    text = corefio.dumps(corpus, "preco")
    assert json.loads(text)["id"] == "(bc/cnn/00/cnn_0001); part 002"
    doc = corefio.loads(text, "jsonlines").documents[0]
    assert (doc.name, doc.part) == ("bc/cnn/00/cnn_0001", "002")


@pytest.mark.parametrize("mention, words", [
    ([3, 0, 1], "names sentence 3 of 2"),
    ([0, 1, 1], "is not [start, end) inside the 2 words of sentence 0"),
    ([0, 0, 3], "is not [start, end) inside the 2 words of sentence 0"),
    ([0, -1, 1], "is not [start, end)"),
    ([0, 1], "is not a list of 3 integers"),
    ([0, True, 1], "is not a list of 3 integers"),
])
def test_hostile_preco_lines_name_their_line(mention, words):
    good = json.dumps({"id": "ok", "sentences": [["a"]], "mention_clusters": []})
    bad = json.dumps({"id": "bad", "sentences": [["a", "b"], ["c"]], "mention_clusters": [[mention]]})
    with pytest.raises(FormatError) as info:
        corefio.loads(good + "\n" + bad + "\n", "jsonlines")
    assert words in info.value.message and info.value.line == 2


def test_preco_is_told_from_its_keys_and_forced_by_name(tmp_path):
    path = tmp_path / "x.jsonlines"
    path.write_text(PRECO, "utf-8")
    assert corefio.read(path, "jsonlines:preco").documents[0].layout["jsonlines"].dialect == "preco"
    assert corefio.read(path, "preco").documents[0].tokens.forms == WORDS
    assert jsonlines.dialects.detect(json.loads(PRECO), None, 1) == "preco"


def test_a_preco_key_scores_a_preco_response_in_one_command(tmp_path):
    key = tmp_path / "dev.jsonl"
    key.write_text(PRECO, "utf-8")
    response = tmp_path / "predictions.jsonl"
    line = json.loads(PRECO)
    line["mention_clusters"] = line["mention_clusters"][:3]  # the singleton not found
    response.write_text(json.dumps(line) + "\n", "utf-8")
    result = CliRunner().invoke(app, ["score", str(key), str(response), "--format", "json"])
    assert result.exit_code == 0, result.output
    mentions = json.loads(result.stdout)["corpus"]["mentions"]
    assert (mentions["recall"]["num"], mentions["recall"]["den"]) == (6, 7)
