"""Fast paths of the common read-and-write path give what the plain paths give.

Each writer that builds its output a faster way when the document allows it (a column at
a time instead of a cell at a time, whole strings instead of characters) keeps the plain
way for the other documents. These tests write every real file of the test data both
ways and compare the text and the diagnostics, and check that the fast path is taken
(and left) where it should be.
"""

from __future__ import annotations

import json

import pytest

import corefio
from corefio.diagnostics import Report
from corefio.formats import muc, ua

from .conftest import DATA

WILD = DATA / "wild"
#: formats of real files that are read here (and written to the formats under test)
READ = ("conll", "conllu", "ua", "brat", "jsonlines")


def _real_files() -> list:
    files = []
    for manifest in sorted(WILD.glob("*/manifest.json")):
        for entry in json.loads(manifest.read_text(encoding="utf-8")):
            # (a file the manifest says is not valid is refused: nothing to write)
            if entry["format"] in READ and "not valid" not in entry.get("notes", ""):
                files.append(pytest.param(manifest.parent / entry["path"], entry["format"],
                                          id=f"{manifest.parent.name}/{entry['path']}"))
    for path in sorted((DATA / "ua").glob("*.CONLLUA")):
        files.append(pytest.param(path, "ua", id=f"ua/{path.name}"))
    return files


REAL = _real_files()


def _corpus(path, fmt):
    corpus = corefio.read(path, fmt, report=Report())
    for doc in corpus.documents:
        doc.layout.pop("ua", None)  # written canonically, not as read
    return corpus


def _written(corpus, fmt: str) -> tuple[str | bytes, list[tuple]]:
    report = Report()
    text = corefio.dumps(corpus, fmt, report=report)
    return text, [(d.code, d.severity, d.message, d.document, d.count, tuple(d.examples)) for d in report.diagnostics]


@pytest.mark.parametrize(("path", "fmt"), REAL)
def test_ua_rows_column_by_column_same_as_cell_by_cell(path, fmt, monkeypatch):
    corpus = _corpus(path, fmt)
    fast = _written(corpus, "ua")
    monkeypatch.setattr(ua._Writer, "rows", lambda self, attributes: None)
    assert _written(corpus, "ua") == fast


def test_ua_rows_taken_unless_a_value_has_a_blank(monkeypatch):
    corpus = _corpus(DATA / "ua" / "TC-PA.key.CONLLUA", "ua")
    taken = []
    rows = ua._Writer.rows
    monkeypatch.setattr(ua._Writer, "rows", lambda self, attributes: taken.append(rows(self, attributes)) or taken[-1])
    plain, diagnostics = _written(corpus, "ua")
    assert taken and all(r is not None for r in taken)
    assert not [d for d in diagnostics if d[0] == "loss.value"]
    doc = corpus.documents[0]
    doc.tokens.forms[0] = "two words"
    taken.clear()
    text, diagnostics = _written(corpus, "ua")
    assert taken[0] is None  # written cell by cell, which reports the blank
    assert [d[0] for d in diagnostics].count("loss.value") == 1
    assert "\ttwo_words\t" in text and text != plain


#: writers that join a sentence's words at once when no word changes, and the check
#: that decides it (forced false: word by word)
SENTENCE_JOINERS = [("muc", "corefio.formats.muc._as_they_are"), ("brat", "corefio.formats.brat._unchanged")]


@pytest.mark.parametrize(("writer", "check", "path", "fmt"),
                         [pytest.param(writer, check, *p.values, id=f"{writer}-{p.id}")
                          for writer, check in SENTENCE_JOINERS for p in REAL if p.values[1] != writer])
def test_sentences_joined_at_once_same_as_word_by_word(writer, check, path, fmt, monkeypatch):
    corpus = _corpus(path, fmt)
    fast = _written(corpus, writer)
    monkeypatch.setattr(check, lambda words: False)
    assert _written(corpus, writer) == fast


def test_muc_words_that_change_are_written_word_by_word():
    assert muc._as_they_are(["a", "b&c", "<d>"])
    for words in ([], ["a", ""], ["a b"], ["a\u00a0"], ["\ud800"]):
        assert not muc._as_they_are(words)
    corpus = _corpus(DATA / "ua" / "TC-PA.key.CONLLUA", "ua")
    corpus.documents[0].tokens.forms[0] = "two words"
    text, diagnostics = _written(corpus, "muc")
    assert "two_words" in text
    assert [d[0] for d in diagnostics].count("loss.token-form") == 1


def test_report_losses_looks_only_for_what_it_reports(monkeypatch):
    """Mentions of one entity that cross are looked for when the writer's report is
    report_losses' (CoNLL: ``nested``), not when another report covers them (MUC)."""
    from corefio.formats import losses
    from corefio.formats.registry import get_format

    corpus = _corpus(DATA / "ua" / "TC-PA.key.CONLLUA", "ua")
    looked = []
    crossing = losses._crossing_pairs
    monkeypatch.setattr(losses, "_crossing_pairs",
                        lambda markables, same_chain=None: (same_chain is not None and looked.append(same_chain))
                        or crossing(markables, same_chain))
    for name, expected in (("muc", 0), ("conll", len(corpus.documents))):
        looked.clear()
        for doc in corpus.documents:
            losses.report_losses(doc, get_format(name).capabilities, Report(), name)
        assert len(looked) == expected, name


def test_crossing_mentions_of_one_entity_found_with_the_chains_only_when_some_cross(monkeypatch):
    from corefio.formats import losses
    from corefio.model import Document, Markable, Tokens

    def doc(spans, entities):
        return Document.build(name="d", part=None, metadata={}, tokens=Tokens(forms=["w"] * 8), sentences=[],
                              markables=[Markable.fast(f"m{k}", (s,), e) for k, (s, e) in enumerate(zip(spans, entities))],
                              entities=[], links=[])

    chains = []
    chain_of = losses._chain_of
    monkeypatch.setattr(losses, "_chain_of", lambda d: chains.append(d) or chain_of(d))
    nested = doc([(0, 3), (1, 2), (5, 6)], ["1", "1", "2"])
    assert list(losses._crossing_pairs(nested.markables, nested)) == [] and chains == []
    crossing = doc([(0, 3), (2, 5), (1, 6)], ["1", "1", "2"])
    assert list(losses._crossing_pairs(crossing.markables)) == ["m2", "m1"]
    assert list(losses._crossing_pairs(crossing.markables, crossing)) == ["m1"] and len(chains) == 1




@pytest.mark.parametrize("fmt", ["brat", "litbank-tsv"])
def test_brat_and_litbank_words_that_change_are_reported(fmt):
    from corefio.formats import brat

    assert brat._unchanged(["a", "b"])
    for words in ([], ["a", ""], ["a b"], ["a\u2003"]):
        assert not brat._unchanged(words)
    corpus = _corpus(DATA / "ua" / "TC-PA.key.CONLLUA", "ua")
    corpus.documents[0].tokens.forms[0] = "two words"
    text, diagnostics = _written(corpus, fmt)
    assert "two_words" in (text.decode() if isinstance(text, bytes) else text)
    assert [d[0] for d in diagnostics].count("loss.form") == 1


@pytest.mark.parametrize(("path", "fmt"), REAL)
def test_conll_word_numbers_by_runs_same_as_one_by_one(path, fmt, monkeypatch):
    from corefio.formats import conll

    corpus = _corpus(path, fmt)
    for doc in corpus.documents:
        doc.layout.pop("conll", None)
    fast = _written(corpus, "conll")
    derived = [conll._derived_columns(doc) for doc in corpus.documents]
    monkeypatch.setattr(conll, "_counted", lambda sentences, n, start: None)
    assert _written(corpus, "conll") == fast
    assert [conll._derived_columns(doc) for doc in corpus.documents] == derived


def test_conll_word_numbers_beyond_the_numbers_kept_as_text():
    from corefio.formats import conll
    from corefio.model import Sentence

    sentences = [Sentence(first=0, last=1), Sentence(first=2, last=1203)]
    assert conll._counted(sentences, 1204, 1) == ["1", "2"] + [str(i) for i in range(1, 1203)]
    assert conll._counted(sentences, 1205, 0) is None  # a token in no sentence
    assert conll._counted([Sentence(first=1, last=2)], 3, 0) is None


@pytest.mark.parametrize(("path", "fmt"), REAL)
def test_chain_markables_only_shortcut_agrees_with_the_chains(path, fmt):
    for doc in _corpus(path, fmt).documents:
        in_chain = {k for chain in doc.chain_indices() for k in chain}
        kept = doc.chain_markables_only()
        assert (kept is doc) == (len(in_chain) == len(doc.markables))
        assert [m.ref for m in kept.markables] == [m.ref for k, m in enumerate(doc.markables) if k in in_chain]


@pytest.mark.parametrize(("path", "fmt"), REAL)
def test_records_pickled_and_copied_through_their_slots(path, fmt):
    import copy
    import pickle

    from corefio.model import document

    corpus = _corpus(path, fmt)
    for doc in corpus.documents:
        assert doc.__reduce__()[0] is document._restore
        back = pickle.loads(pickle.dumps(doc, protocol=pickle.HIGHEST_PROTOCOL))
        assert back == doc and type(back.markables[0] if back.markables else back) is type(
            doc.markables[0] if doc.markables else doc)
        assert copy.deepcopy(doc) == doc
        shallow = copy.copy(doc)
        assert shallow == doc and shallow.markables is doc.markables
    assert pickle.loads(pickle.dumps(corpus)) == corpus
