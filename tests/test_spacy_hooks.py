"""The DocBin reader and writer look srsly's msgpack hooks up once per file (writing) or
per doc (reading), not once per span group, and give the same bytes and documents as
spaCy left alone (``spacy_docbin._msgpack_hooks_looked_up_once``)."""

from __future__ import annotations

import contextlib
import json

import pytest

import corefio
from corefio.formats import spacy_docbin

from .conftest import DATA

pytest.importorskip("spacy")  # the `spacy` extra is part of the `test` extra
catalogue = pytest.importorskip("catalogue")
from srsly import msgpack  # noqa: E402

ROOT = DATA.parent.parent
SOURCES = [ROOT / "samples" / "key.raf.xml", ROOT / "samples" / "response.raf.xml",
           DATA / "golden" / "features.raf.xml", DATA / "golden" / "sample.conll"]
DAMAGED = sorted((DATA / "regressions" / "fuzz").glob("*.spacy"))


def _corpus(clusters: int) -> corefio.Corpus:
    """One document of ``clusters`` two-mention chains (a span group each)."""
    words = [f"w{i}" for i in range(2 * clusters)]
    chains = [[[2 * i, 2 * i], [2 * i + 1, 2 * i + 1]] for i in range(clusters)]
    line = json.dumps({"doc_key": "doc", "sentences": [words], "clusters": chains})
    return corefio.loads(line + "\n", format="jsonlines")


def _lookups(monkeypatch) -> list[str]:
    """The catalogue registry lookups made from now on, by namespace."""
    seen: list[str] = []
    real = catalogue.Registry.get_all

    def counted(self):
        seen.append(self.namespace[-1])
        return real(self)

    monkeypatch.setattr(catalogue.Registry, "get_all", counted)
    return seen


@pytest.mark.parametrize("clusters", [3, 60])
def test_writing_looks_the_hooks_up_once_however_many_clusters(tmp_path, monkeypatch, clusters):
    corpus = _corpus(clusters)
    assert len(corpus.documents[0].chains()) == clusters
    seen = _lookups(monkeypatch)
    corefio.write(corpus, tmp_path / "out.spacy")
    assert seen.count("msgpack_encoders") == 1  # was one per span group and one per doc
    spans = [[m.spans for m in chain] for chain in corpus.documents[0].chains()]
    assert [[m.spans for m in chain] for chain in corefio.read(tmp_path / "out.spacy").documents[0].chains()] == spans


def test_reading_looks_the_hooks_up_once_per_doc(tmp_path, monkeypatch):
    corefio.write(_corpus(40), tmp_path / "out.spacy")
    seen = _lookups(monkeypatch)
    corefio.read(tmp_path / "out.spacy")
    # one doc: once while it is decoded, once more when the generator finds no further doc
    assert seen.count("msgpack_decoders") <= 3


def test_the_registries_are_left_as_they_were_even_after_a_failure():
    with pytest.raises(RuntimeError), spacy_docbin._msgpack_hooks_looked_up_once():
        assert "get_all" in vars(msgpack.msgpack_encoders)
        raise RuntimeError("boom")
    assert "get_all" not in vars(msgpack.msgpack_encoders)
    assert "get_all" not in vars(msgpack.msgpack_decoders)


def _plain(monkeypatch):
    """spaCy left alone: the hooks looked up at every msgpack call, as before."""
    monkeypatch.setattr(spacy_docbin, "_msgpack_hooks_looked_up_once", contextlib.nullcontext)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_the_bytes_written_and_read_back_are_the_same_as_with_spacy_left_alone(tmp_path, monkeypatch, source):
    corpus = corefio.read(source)
    corefio.write(corpus, tmp_path / "fast.spacy")
    fast_back = corefio.read(tmp_path / "fast.spacy")
    with monkeypatch.context() as m:
        _plain(m)
        corefio.write(corpus, tmp_path / "plain.spacy")
        plain_back = corefio.read(tmp_path / "fast.spacy")
    assert (tmp_path / "fast.spacy").read_bytes() == (tmp_path / "plain.spacy").read_bytes()
    assert corefio.dumps(fast_back, format="raf") == corefio.dumps(plain_back, format="raf")


@pytest.mark.parametrize("path", DAMAGED, ids=lambda p: p.name)
def test_damaged_files_fail_the_same_way(monkeypatch, path):
    def outcome():
        try:
            return corefio.dumps(corefio.read(path), format="raf")
        except corefio.CorefioError as exc:
            return f"{type(exc).__name__}: {exc}"

    fast = outcome()
    with monkeypatch.context() as m:
        _plain(m)
        plain = outcome()
    assert fast == plain
    assert "get_all" not in vars(msgpack.msgpack_decoders)
