"""The CoNLL and CoNLL-U writers on what the real files of tests/data/wild hold.

Defects found by the generic harness (tests/test_wild.py), each with a regression test
on a small file built here and a check on the real files:

* CorefUD keeps a mention inside its sentence (UD's validator: "Entity mentions must not
  cross sentence boundaries"; udapi: "Cross-sentence mentions not supported yet"): the
  CoNLL-U writer leaves such mentions out, reported; their chains keep their other
  mentions, and a bridging link from one of them is reported lost too.
* The CoNLL-U writer copies a token attribute into a CoNLL-U column only when the
  attribute means what the column holds, and a value only when it is valid there (a
  HEAD of a tree, a UD relation, UD's feature spelling...): the others are written
  ``_`` and reported, column by column.
* SemEval-2010 Task 1 files (token numbers, gold and predicted columns) have their
  columns named as such: their lemma, POS and tree reach CoNLL-U's columns.
* CoNLL expresses a mention across a sentence boundary (the reference scorer reads
  brackets across sentences): no loss is reported, and it reads back.
* Every CoNLL-U file written from a real file of any format is read by udapi strictly
  and passes UD's validator (level 2, coreference checks) without an error of the
  classes corefio answers for (tests/test_ecosystem.py says which) or, from a CoNLL-U
  source, without an error the source lacks.
"""

from __future__ import annotations

import ast
import logging
from collections import Counter
from pathlib import Path

import pytest
import udapi

import corefio
from corefio.diagnostics import Report
from corefio.model import BRIDGING, Corpus, Document, Link, Markable, Sentence, Tokens

from . import oracle
from .conftest import DATA
from .reference_reader import reference_read
from .test_conversion_matrix import _shape
from .test_ecosystem import OWN_CLASSES, udvalidate, with_placeholder_tree
from .test_wild import VALID

ROOT = Path(__file__).parents[1]
KNACK = DATA / "wild" / "misc" / "dutchcoref" / "knack_file7.gold.conll"


def _losses(report: Report) -> dict[str, int]:
    """count per (code, message) of the loss diagnostics."""
    out: Counter = Counter()
    for d in report:
        if d.code.startswith("loss."):
            out[(d.code, d.message)] += d.count
    return dict(out)


def _udapi_reads(path: Path) -> list:
    """The mentions udapi finds, loading strictly (an error raises) and warning of nothing."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logging.getLogger().addHandler(handler)
    try:
        doc = udapi.Document(str(path))
        mentions = doc.coref_mentions
    finally:
        logging.getLogger().removeHandler(handler)
    assert not [r.getMessage() for r in records if r.pathname.endswith("coref.py")]
    return mentions


# -- CoNLL-U: no mention across a sentence boundary ------------------------------------------
def _crossing_document() -> Corpus:
    """Two sentences; "Bob . He" crosses the boundary and holds a chain together by its
    identity links; a bridging link starts from it, another points to it; "met Bob . He",
    alone in its chain, crosses too, and a bridging link starts from it."""
    forms = ["Anna", "met", "Bob", ".", "He", "saw", "her", "and", "Bob", "."]
    markables = [Markable(id="anna", spans=((0, 0),)), Markable(id="cross", spans=((2, 4),)),
                 Markable(id="he", spans=((4, 4),)), Markable(id="her", spans=((6, 6),)),
                 Markable(id="bob", spans=((8, 8),)), Markable(id="lone", spans=((1, 4),))]
    links = [Link(id="c1", source="bob", target="cross"), Link(id="c2", source="cross", target="he"),
             Link(id="b1", type=BRIDGING, source="cross", target="anna"),
             Link(id="b2", type=BRIDGING, source="her", target="cross"),
             Link(id="b3", type=BRIDGING, source="lone", target="her")]
    doc = Document(name="d", tokens=Tokens(forms=forms), markables=markables, links=links,
                   sentences=[Sentence(first=0, last=3), Sentence(first=4, last=9)])
    return Corpus(documents=[doc])


def test_conllu_leaves_out_a_mention_across_sentences_and_says_so(tmp_path):
    report = Report()
    path = tmp_path / "out.conllu"
    corefio.write(_crossing_document(), path, "conllu", report=report)
    losses = _losses(report)
    assert losses[("loss.cross-sentence", "conllu cannot express mentions that cross a sentence boundary; "
                                          "dropped")] == 2
    assert losses[("loss.link-types", "CorefUD CoNLL-U cannot express bridging and split-antecedent links from "
                                      "or to mentions left out (they cross a sentence boundary); dropped")] == 1
    back = corefio.read(path).documents[0]
    spans = {m.spans[0]: m for m in back.markables}
    assert sorted(spans) == [(0, 0), (4, 4), (6, 6), (8, 8)]
    assert spans[(4, 4)].entity == spans[(8, 8)].entity  # "He" and "Bob" still corefer
    assert len({m.entity for m in back.markables}) == 3
    # the links of "Bob . He" are its entity's ("He" carries them); that of "met Bob . He" is gone
    bridges = sorted((back.markables[back.markable_index()[link.source]].spans[0], link.targets)
                     for link in back.links if link.type == BRIDGING)
    assert bridges == [((4, 4), (spans[(0, 0)].entity,)), ((6, 6), (spans[(4, 4)].entity,))]
    mentions = _udapi_reads(path)
    assert len(mentions) == 4 and sum(len(m.bridging) for m in mentions) == 2
    counted = oracle.counts(path, "conllu")
    assert counted["mentions"] == 4 and counted["entities"] == 3 and counted["links:bridging"] == 2


def test_a_conllu_source_with_a_mention_across_sentences_is_written_without_it(tmp_path):
    """Read leniently (as udapi does without ``strict``), written back without it."""
    text = ("# newdoc id = d\n# global.Entity = eid-etype-head-other\n# sent_id = 1\n# text = a b\n"
            "1\ta\t_\t_\t_\t_\t_\t_\t_\tEntity=(e1--1)\n2\tb\t_\t_\t_\t_\t_\t_\t_\tEntity=(e2--1\n\n"
            "# sent_id = 2\n# text = c d\n1\tc\t_\t_\t_\t_\t_\t_\t_\tEntity=e2)\n"
            "2\td\t_\t_\t_\t_\t_\t_\t_\tEntity=(e1--1)\n\n")
    report = Report()
    written = corefio.dumps(corefio.loads(text, "conllu"), "conllu", report=report)
    assert "e2" not in written and written.count("Entity=(e1--1)") == 2
    assert [d.count for d in report.by_code("loss.cross-sentence")] == [1]


def test_every_writer_of_the_matrix_shape_does_what_it_says_on_conllu(tmp_path):
    """The harness's own cell (cross-sentence/conllu), read by udapi as well."""
    path = tmp_path / "out.conllu"
    report = corefio.write(_shape("cross-sentence"), path, "conllu")
    assert [d.count for d in report.by_code("loss.cross-sentence")] == [1]
    assert len(_udapi_reads(path)) == 2


# -- CoNLL: mentions across sentences are expressed ----------------------------------------
def test_conll_keeps_a_mention_across_sentences_and_reports_nothing():
    report = Report()
    text = corefio.dumps(_shape("cross-sentence"), "conll", report=report)
    assert not [d for d in report if d.code.startswith("loss.")]
    back = corefio.loads(text, "conll").documents[0]
    assert sorted(m.spans for m in back.markables) == [((0, 0),), ((2, 4),), ((6, 6),)]
    assert corefio.get_format("conll").capabilities.cross_sentence is True
    # the reference scorer's reading: the mention from word 2 of the first sentence to
    # word 0 of the second (document positions 2 to 4)
    (entities,) = reference_read(text).values()
    assert sorted(map(sorted, entities)) == [[(0, 0)], [(2, 4), (6, 6)]]


# -- SemEval-2010 columns --------------------------------------------------------------------
#: ID TOKEN LEMMA PLEMMA POS PPOS FEAT PFEAT HEAD PHEAD DEPREL PDEPREL NE PNE PRED PPRED COREF;
#: gold columns empty (as in the Dutch data), a self-loop in the second sentence's tree,
#: a feature spelt in lower case, a relation that is not UD's
SEMEVAL = """#begin document demo
1\tAnna\t-\tAnna\t-\tN\t-\tCase=Nom\t-\t2\t-\tnsubj\t-\tPER\t-\t-\t(1)
2\tsaw\t-\tsee\t-\tV\t-\tTense=Past\t-\t0\t-\troot\t-\t-\t-\t-\t-
3\ther\t-\tshe\t-\tPRON\t-\tcase=acc\t-\t2\t-\tobj\t-\t-\t-\t-\t(2)
4\t.\t-\t.\t-\tPUNCT\t-\t-\t-\t2\t-\tpunct\t-\t-\t-\t-\t-

1\tShe\t-\tshe\t-\tPRON\t-\tCase=Nom\t-\t2\t-\tnsubj\t-\t-\t-\t-\t(2)
2\tleft\t-\tleave\t-\tV\t-\t-\t-\t2\t-\tROOT\t-\t-\t-\t-\t-
3\t.\t-\t.\t-\tPUNCT\t-\t-\t-\t2\t-\tpunct\t-\t-\t-\t-\t-

#end document demo
"""


def test_semeval_columns_are_named_as_semeval_names_them():
    doc = corefio.loads(SEMEVAL, "conll").documents[0]
    attrs = doc.tokens.attributes
    assert sorted(attrs) == ["pdeprel", "pfeats", "phead", "plemma", "pne", "pxpos"]  # gold columns: all empty
    assert attrs["plemma"] == ["Anna", "see", "she", ".", "she", "leave", "."]
    assert attrs["phead"][:4] == ["2", "0", "2", "2"] and attrs["pne"][:2] == ["PER", None]
    assert corefio.dumps(corefio.loads(SEMEVAL, "conll"), "conll") == SEMEVAL


def test_semeval_arguments_may_vary_by_sentence_and_blanks_may_be_underscores():
    lines = SEMEVAL.replace("\t-", "\t_").split("\n")
    # one predicate in the first sentence: one argument column more there
    lines[1:5] = [line.rsplit("\t", 1)[0] + "\t" + arg + "\t" + line.rsplit("\t", 1)[1]
                  for line, arg in zip(lines[1:5], ["A0", "_", "A1", "_"])]
    text = "\n".join(lines)
    doc = corefio.loads(text, "conll").documents[0]
    assert doc.tokens.attributes["apred_1"] == ["A0", "_", "A1", "_", None, None, None]
    assert doc.layout["conll"].blank == "_" and doc.tokens.attributes["pne"][0] == "PER"
    assert corefio.dumps(corefio.loads(text, "conll"), "conll") == text


def test_a_conllu_like_file_keeps_conllu_names():
    text = ("#begin document (d); part 000\n1\tKim\tKim\tPROPN\tNNP\t_\t2\tnsubj\t_\t_\t(1)\n"
            "2\tran\trun\tVERB\tVBD\t_\t0\troot\t_\t_\t-\n\n#end document\n")
    assert sorted(corefio.loads(text, "conll").documents[0].tokens.attributes) == \
        ["deprel", "head", "lemma", "upos", "xpos"]


def test_semeval_to_conllu_writes_only_what_conllu_columns_hold(tmp_path):
    source = tmp_path / "demo.conll"
    source.write_text(SEMEVAL, encoding="utf-8")
    out = tmp_path / "demo.conllu"
    report = corefio.convert(source, out, "conll", "conllu")
    rows = [line.split("\t") for line in out.read_text(encoding="utf-8").splitlines() if line[:1].isdigit()]
    assert [r[2] for r in rows] == ["Anna", "see", "she", ".", "she", "leave", "."]  # PLEMMA as LEMMA
    assert [r[4] for r in rows] == ["N", "V", "PRON", "PUNCT", "PRON", "V", "PUNCT"]  # PPOS as XPOS
    assert [r[3] for r in rows] == ["_"] * 7  # no universal tags in the source
    assert [r[5] for r in rows] == ["Case=Nom", "Tense=Past", "_", "_", "Case=Nom", "_", "_"]
    # the first sentence's tree and relations; the second's has a cycle: no tree at all
    assert [(r[6], r[7]) for r in rows] == [("2", "nsubj"), ("0", "root"), ("2", "obj"), ("2", "punct")] + \
        [("_", "_")] * 3
    losses = _losses(report)
    said = "CorefUD CoNLL-U cannot express token attribute values that are not what CoNLL-U's {} column " \
           "holds; replaced by '_'"
    assert losses[("loss.value", said.format("FEATS"))] == 1
    assert losses[("loss.value", said.format("HEAD"))] == 3
    assert losses[("loss.value", said.format("DEPREL"))] == 3
    assert losses[("loss.token-attributes", "conllu cannot express token attributes; dropped")] == 1  # PNE
    renamed = [d for d in report.by_code("loss.token-attributes") if d.severity == "info"]
    assert [d.count for d in renamed] == [5] and "written in the CoNLL-U column of the same kind" in \
        renamed[0].message
    _udapi_reads(out)
    copy = tmp_path / "with-tree.conllu"
    copy.write_text(with_placeholder_tree(out.read_text(encoding="utf-8")), encoding="utf-8")
    assert not {key: n for key, n in udvalidate(copy, "en").items() if key[1] in OWN_CLASSES}


def test_gold_columns_win_over_predicted_ones():
    gold = SEMEVAL.replace("\tAnna\t-\tAnna\t", "\tAnna\tAnna_gold\tAnna\t")
    report = Report()
    text = corefio.dumps(corefio.loads(gold, "conll"), "conllu", report=report)
    assert text.split("\n")[4].split("\t")[2] == "Anna_gold"  # the gold lemma, "_" elsewhere
    assert [d.message for d in report.by_code("loss.token-attributes") if "beside gold" in d.message]


def test_the_real_semeval_file_reaches_conllu(tmp_path):
    """knack_file7: LEMMA, XPOS and trees from the predicted columns, every tree with a
    cycle or a word without a head left out, every lower-case feature; counts from the
    source itself."""
    out = tmp_path / "knack.conllu"
    report = corefio.convert(KNACK, out, "conll", "conllu")
    rows = [line.split("\t") for line in KNACK.read_text(encoding="utf-8").splitlines() if line[:1].isdigit()]
    written = [line.split("\t") for line in out.read_text(encoding="utf-8").splitlines() if line[:1].isdigit()]
    assert [w[2] for w in written] == [r[3] for r in rows] and [w[4] for w in written] == [r[5] for r in rows]
    features = sum(r[7] != "-" for r in rows)  # every PFEAT value is spelt in lower case
    said = "CorefUD CoNLL-U cannot express token attribute values that are not what CoNLL-U's {} column " \
           "holds; replaced by '_'"
    assert _losses(report)[("loss.value", said.format("FEATS"))] == features
    assert all(w[5] == "_" for w in written)
    heads_written = sum(w[6] != "_" for w in written)
    assert heads_written + _losses(report)[("loss.value", said.format("HEAD"))] == len(rows)
    assert len(_udapi_reads(out)) == oracle.counts(KNACK, "conll")["mentions"]


# -- every real file, written as CoNLL-U, judged ----------------------------------------------
#: the language of a family's files, for the validator
LANGUAGE = {"democrat": "fr", "dutchcoref": "nl", "fr_litbank": "fr"}


def _language(entry) -> str:
    return next((lang for key, lang in LANGUAGE.items() if key in entry.path), "en")


def _first_of_each_format(entries) -> set[str]:
    seen: dict[str, str] = {}
    for e in entries:
        seen.setdefault(e.format, e.id)
    return set(seen.values())


FAST = _first_of_each_format(VALID)


@pytest.mark.parametrize("entry", [pytest.param(e, id=e.id, marks=[] if e.id in FAST else [pytest.mark.slow])
                                   for e in VALID])
def test_conllu_written_from_every_real_file_passes_udapi_and_the_validator(entry, tmp_path):
    out = tmp_path / "out.conllu"
    report = corefio.convert(entry.file, out, entry.format, "conllu")
    assert not report.errors
    mentions = _udapi_reads(out)
    assert len(mentions) == oracle.counts(out, "conllu").get("mentions", 0)
    lang = _language(entry)
    if entry.base_format == "conllu":
        new = udvalidate(out, lang) - udvalidate(entry.file, lang)
        assert not new, f"errors the source does not have: {dict(new)}"
        return
    copy = tmp_path / "with-tree.conllu"
    copy.write_text(with_placeholder_tree(out.read_text(encoding="utf-8")), encoding="utf-8")
    ours = {key: n for key, n in udvalidate(copy, lang).items() if key[1] in OWN_CLASSES}
    assert not ours, ours


# -- what every loss says it did ---------------------------------------------------------------
@pytest.mark.parametrize("module", ["conll", "conllu", "ua"])
def test_each_loss_of_the_conll_writers_says_what_was_done(module):
    """Every ``LossLog.lose`` call passes ``done=``: what the writer did is said, not
    guessed from the wording of the message."""
    source = (ROOT / "corefio" / "formats" / f"{module}.py").read_text(encoding="utf-8")
    calls = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and node.func.attr == "lose"]
    assert calls
    without = [node.lineno for node in calls if "done" not in {k.arg for k in node.keywords}]
    assert without == [], f"{module}.py: lose() without done= at lines {without}"


# -- the links of markables that are not written ---------------------------------------------
def test_links_of_markables_of_other_layers_that_are_not_written_are_reported(tmp_path):
    """A discourse-deixis markable in no chain is not written by CoNLL-U, brat...: its
    split-antecedent link goes with it, counted as such (the harness found it silent)."""
    doc = Document(name="d", tokens=Tokens(forms=["It", "rained", ".", "That", "hurt", "."]),
                   sentences=[Sentence(first=0, last=2), Sentence(first=3, last=5)],
                   markables=[Markable(id="m1", spans=((0, 0),), entity="1"),
                              Markable(id="m2", spans=((3, 3),), entity="1"),
                              Markable(id="d1", spans=((0, 1),), layer="discourse_deixis"),
                              Markable(id="d2", spans=((3, 4),), layer="discourse_deixis")],
                   links=[Link(id="s1", type="split_antecedent", source="discourse_deixis:d2",
                               target="discourse_deixis:d1")])
    for target, out in (("conllu", tmp_path / "out.conllu"), ("brat", tmp_path / "brat")):
        report = Report()
        corefio.write(Corpus(documents=[doc]), out, target, report=report)
        assert [d.count for d in report.by_code("loss.layer-links")] == [1], target
        assert [d.count for d in report.by_code("loss.layers")] == [2], target


# -- the oracle on character offsets -----------------------------------------------------------
#: the files of fastcoref and maverick: tokens with token offsets, or a text with character offsets
SYSTEMS = sorted(p for p in (DATA / "systems").glob("*.jsonlines") if "maverick" in p.name or "fastcoref" in p.name) \
    + sorted((DATA / "system-outputs").glob("fastcoref*.jsonlines"))


@pytest.mark.parametrize("path", SYSTEMS, ids=lambda p: p.name)
def test_the_oracle_reads_the_systems_jsonlines_as_corefio_does(path):
    """Mentions as word positions, by the oracle's own cutting of the text and by
    corefio's reader: the same."""
    docs = oracle.parse(path, "jsonlines")
    corpus = corefio.read(path, "jsonlines")
    assert len(docs) == len(corpus.documents)
    for counted, doc in zip(docs, corpus.documents):
        assert counted.tokens == len(doc.tokens.forms)
        assert sorted(tuple(p) for p in counted.mentions.values()) == sorted(
            tuple(range(m.first, m.last + 1)) for m in doc.markables)


def test_the_oracle_cuts_a_text_at_mention_boundaries_by_hand(tmp_path):
    path = tmp_path / "a.jsonlines"
    path.write_text('{"text": "Kim\'s dog, Rex.", "clusters_char_offsets": [[[0, 2], [11, 13]]], '
                    '"clusters_char_text": [["Kim", "Rex"]]}\n'
                    '{"text": "Anna-Lena ran", "clusters": [[[0, 4], [5, 9]]]}\n', encoding="utf-8")
    first, second = oracle.parse(path, "jsonlines")
    # Kim ' s dog , Rex .
    assert first.tokens == 7 and sorted(first.mentions.values()) == [[0], [5]]
    # Anna - Lena ran: the exclusive ends 4 and 9
    assert second.tokens == 4 and sorted(second.mentions.values()) == [[0], [2]]
