"""e2e-coref's ``doc_key`` and wl-coref's default head, as those tools make them.

e2e-coref's minimize.py names a CoNLL-2012 document ``"{}_{}".format(name, int(part))``
(``bn/cnn/01/cnn_0122_0``); corefio wrote ``(bn/cnn/01/cnn_0122); part 000``. wl-coref's
convert_to_heads.py gives a span whose syntax names no single head its rightmost word."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import corefio
from corefio.cli import app
from corefio.formats.jsonlines.dialects import e2e_key, split_e2e_key
from corefio.model import Document, Markable, Tokens

from .conftest import DATA

CNN = DATA / "wild" / "conll" / "corefannotator" / "cnn_0122.conll"
SMALL = ("#begin document (bn/x/01/x_0001); part 000\n"
         "bn/x/01/x_0001 0 0 Kim NNP * - - - - * (0)\n"
         "bn/x/01/x_0001 0 1 ran VBD * - - - - * -\n"
         "\n#end document\n")


def test_a_conll_document_gets_e2e_corefs_key(tmp_path):
    line = json.loads(corefio.dumps(corefio.loads(SMALL, "conll"), "jsonlines"))
    assert line["doc_key"] == "bn/x/01/x_0001_0"


def test_e2e_corefs_key_reads_as_the_name_and_part():
    text = json.dumps({"doc_key": "bn/x/01/x_0001_12", "sentences": [["Kim"]], "clusters": []}) + "\n"
    doc = corefio.loads(text, "jsonlines").documents[0]
    assert (doc.name, doc.part) == ("bn/x/01/x_0001", "012")
    assert corefio.dumps(doc, "jsonlines") == text  # written back as it was
    assert corefio.dumps(doc, "conll").startswith("#begin document (bn/x/01/x_0001); part 012\n")


@pytest.mark.parametrize(("key", "split"), [
    ("bn/cnn/01/cnn_0122_0", ("bn/cnn/01/cnn_0122", "000")),
    ("a/b_1000", ("a/b", "1000")),
    ("cnn_0122_0", None),  # no slash: a name (PreCo, LitBank and others name documents so)
    ("a/b_007", None),  # e2e-coref writes the part as a number: no leading zeros
    ("a/b_x", None),
])
def test_which_keys_are_e2e_corefs(key, split):
    assert split_e2e_key(key) == split


@pytest.mark.parametrize(("name", "part", "key"), [
    ("bn/x/01/x", "000", "bn/x/01/x_0"),
    ("doc", "000", "(doc); part 000"),  # "doc_0" would read back as a name without part
    ("a/b", "1", "(a/b); part 1"),  # "a/b_1" would read back as part 001
    ("a/b", "p1", "(a/b); part p1"),
    ("a/b", None, "a/b"),
])
def test_the_key_written_reads_back_as_the_same_document(name, part, key):
    doc = Document(name=name, part=part, tokens=Tokens(forms=["a"]))
    written = corefio.dumps(doc, "jsonlines")
    assert json.loads(written)["doc_key"] == key
    back = corefio.loads(written, "jsonlines").documents[0]
    assert (back.name, back.part) == (name, part)
    assert e2e_key("x", None) is None


def test_the_real_conll_document_becomes_e2e_corefs_line(tmp_path):
    target = tmp_path / "cnn.jsonlines"
    result = CliRunner().invoke(app, ["convert", str(CNN), str(target)])
    assert result.exit_code == 0, result.output
    line = json.loads(target.read_text(encoding="utf-8"))
    assert line["doc_key"] == "bn/cnn/01/cnn_0122_0"
    # read back, it is the CoNLL document's name and part (scoring pairs them exactly)
    assert corefio.read(target).documents[0].key == corefio.read(CNN).documents[0].key


def test_wl_corefs_default_head_is_the_last_word():
    """wl-coref needs a head word for every mention; without one annotated the writer
    takes the span's last word, as wl-coref's convert_to_heads.py does when the syntax
    names no single head (README: jsonlines)."""
    doc = corefio.read(CNN).documents[0]
    line = json.loads(corefio.dumps(doc, "wl-coref"))
    words = line["cased_words"]
    first_span, first_head = line["span_clusters"][0][0], line["word_clusters"][0][0]
    assert words[first_span[0]:first_span[1]] == ["Israeli", "Prime", "Minister", "Ehud", "Barak"]
    assert words[first_head] == "Barak" and line["head2span"] == []
    headed = Document(name="d", tokens=Tokens(forms=["the", "big", "dog"]),
                      markables=[Markable(id="m", spans=((0, 2),), head=((1, 1),), entity="e")])
    assert json.loads(corefio.dumps(headed, "wl-coref"))["word_clusters"] == [[1]]


# -- a line of no known shape ------------------------------------------------------------------
#: the keys of a RecipeRef line (biaoyanf/RecipeRef's dev.english.jsonlines, which has no
#: licence and stays out of the repository): e2e's doc_key and sentences, its own clusters
RECIPEREF = {"doc_key": "10103", "sentences": [["whisk", "the", "oil", "."], ["taste", "it", "."]],
             "Coreference": [[[1, 2], [5, 5]]], "Transformed": [],
             "Ingredient_without-state-change_associated": [],
             "Ingredient_with-state-change_associated": []}


def test_a_line_with_e2e_keys_but_no_clusters_names_its_keys_and_the_dialects(tmp_path):
    """RecipeRef's lines were refused with ``missing key 'clusters'`` only."""
    path = tmp_path / "dev.english.jsonlines"
    path.write_text(json.dumps({"doc_key": "ok", "sentences": [["a"]], "clusters": []}) + "\n"
                    + json.dumps(RECIPEREF) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["info", str(path)])
    assert result.exit_code == 3
    message = result.stderr
    assert f"{path}:2: no known jsonlines shape has these keys (doc_key, sentences, Coreference, Transformed" in message
    assert all(f"{name}: " in message for name in ("wl", "subword", "offsets", "allennlp", "bookcoref", "preco",
                                                    "e2e"))
    forced = CliRunner().invoke(app, ["info", "--from", "jsonlines:e2e", str(path)])
    assert forced.exit_code == 3
    assert f"{path}:2: missing key 'clusters'; the line holds the keys (doc_key, sentences, Coreference" \
        in forced.stderr and "known dialects: wl:" in forced.stderr
