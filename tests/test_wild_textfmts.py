"""Real files of the text formats (tests/data/wild/{jsonlines,muc,corenlp}/, each listed
with its source in the family's manifest.json): corefio's counts equal those of a small
counter written here without corefio (plain json, regular expressions, lxml); info,
validate, convert and score accept every file; the own-format round trip is exact, or
gives the canonical form the manifest names (the same words, sentences and chains).

Families without a public file whose licence allows copying it (MATE XML, RAF XML,
spaCy DocBins, Hugging Face datasets) have no directory; the report of the change says
so. A family directory that appears gets its files tested here once it has a counter."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from lxml import etree
from typer.testing import CliRunner

import corefio
from corefio.cli import app

from .conftest import DATA

WILD = DATA / "wild"
FAMILIES = ("jsonlines", "muc", "corenlp", "mate", "raf", "spacy", "hf")
#: the files written back byte for byte by the writer of their manifest format
EXACT = {"corefconversion_docs.jsonlines", "allennlp_preco.jsonl", "opennlp_parsertest1.sgml"}
#: what a canonical round trip writes, for formats that read only or read a dialect
WRITER = {"jsonlines:offsets": "jsonlines", "corenlp": "raf"}
EXTENSION = {"jsonlines": ".jsonlines", "wl-coref": ".jsonlines", "preco": ".jsonl", "muc": ".sgml", "raf": ".raf.xml"}
COUNTS = ("documents", "tokens", "mentions", "entities", "singletons")


def entries() -> list[tuple[str, dict]]:
    found = []
    for family in FAMILIES:
        manifest = WILD / family / "manifest.json"
        if manifest.exists():
            found += [(family, entry) for entry in json.loads(manifest.read_text("utf-8"))]
    return found


ENTRIES = entries()
IDS = [entry["path"] for _, entry in ENTRIES]


def path_of(family: str, entry: dict) -> Path:
    return WILD / family / entry["path"]


# -- counters written without corefio -------------------------------------------------------------
def _chains(clusters: list[list]) -> Counter:
    """entities (clusters with a mention), singletons and mentions of a list of clusters."""
    sizes = [len(c) for c in clusters if c]
    return Counter(mentions=sum(sizes), entities=len(sizes), singletons=sizes.count(1))


def _json_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def count_e2e(path: Path) -> Counter:
    """e2e-coref: sentences of words, clusters of inclusive word pairs."""
    total = Counter()
    for line in _json_lines(path):
        total += Counter(documents=1, tokens=sum(len(s) for s in line["sentences"])) + _chains(line["clusters"])
    return total


def count_wl(path: Path) -> Counter:
    """wl-coref: cased_words, span_clusters (or head words alone in word_clusters)."""
    total = Counter()
    for line in _json_lines(path):
        clusters = line.get("span_clusters") or line.get("word_clusters") or []
        total += Counter(documents=1, tokens=len(line["cased_words"])) + _chains(clusters)
    return total


_PIECE = re.compile(r"\w+|[^\w\s]")


def count_fastcoref(path: Path) -> Counter:
    """fastcoref: a text with character clusters, end exclusive. Words are runs of word
    characters or single other characters, also cut at every mention boundary (the
    rule corefio documents for this shape, written again here)."""
    total = Counter()
    for line in _json_lines(path):
        text, clusters = line["text"], line["clusters"]
        cuts = {b for cluster in clusters for span in cluster for b in span}
        words = 0
        for m in _PIECE.finditer(text):
            words += 1 + sum(1 for c in cuts if m.start() < c < m.end())
        total += Counter(documents=1, tokens=words) + _chains(clusters)
    return total


def count_preco(path: Path) -> Counter:
    """PreCo: sentences of words, mention_clusters of [sentence, start, end)."""
    total = Counter()
    for line in _json_lines(path):
        total += Counter(documents=1, tokens=sum(len(s) for s in line["sentences"])) + _chains(
            line["mention_clusters"])
    return total


def _root(parent: dict[str, str], i: str) -> str:
    while parent[i] != i:
        i = parent[i]
    return i


def count_muc(path: Path) -> Counter:
    """MUC SGML: DOC elements; words are the runs of characters between white space and
    markup (the file must hold no punctuation, which the MUC reader splits off words:
    a file that does needs a counter that knows those rules); COREFs joined by REF."""
    text = path.read_text("utf-8")
    docs = re.findall(r"<DOC>(.*?)</DOC>", text, re.S)
    total = Counter()
    for doc in docs:
        plain = re.sub(r"<[^>]*>", " ", doc)
        assert not re.search(r"[^\w\s]", plain), "this counter splits words at white space only"
        ids = re.findall(r'<COREF ID="([^"]+)"', doc)
        parent = {i: i for i in ids}
        for source, target in re.findall(r'<COREF ID="([^"]+)"[^>]*\bREF="([^"]+)"', doc):
            parent[_root(parent, source)] = _root(parent, target)
        sizes = Counter(_root(parent, i) for i in ids)
        total += Counter(documents=1, tokens=len(plain.split()), mentions=len(ids), entities=len(sizes),
                         singletons=sum(1 for n in sizes.values() if n == 1))
    return total


def count_corenlp(path: Path) -> Counter:
    """CoreNLP XML: tokens of the sentences, mentions of each chain of <coreference>;
    CoreNLP JSON: tokens of the sentences, mentions of each chain of ``corefs``."""
    if path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        sizes = [len(chain) for chain in data.get("corefs", {}).values()]
        return Counter(documents=1, tokens=sum(len(s["tokens"]) for s in data["sentences"]),
                       mentions=sum(sizes), entities=len([s for s in sizes if s]), singletons=sizes.count(1))
    root = etree.parse(str(path)).getroot()
    chains = root.findall("document/coreference/coreference")
    sizes = [len(chain.findall("mention")) for chain in chains]
    return Counter(documents=1, tokens=len(root.findall("document/sentences/sentence/tokens/token")),
                   mentions=sum(sizes), entities=len([s for s in sizes if s]), singletons=sizes.count(1))


COUNTERS = {"jsonlines": count_e2e, "wl-coref": count_wl, "jsonlines:offsets": count_fastcoref,
            "preco": count_preco, "muc": count_muc, "corenlp": count_corenlp}


def corefio_counts(corpus) -> Counter:
    total = Counter()
    for doc in corpus.documents:
        chains = [chain for chain in doc.chains() if chain]
        total += Counter(documents=1, tokens=len(doc.tokens.forms), mentions=len(doc.markables),
                         entities=len(chains), singletons=sum(1 for c in chains if len(c) == 1))
    return total


def shape(doc) -> tuple:
    """What a round trip keeps: words, sentences, chains of spans (ids aside)."""
    return (doc.name, list(doc.tokens.forms), [(s.first, s.last) for s in doc.sentences],
            sorted(sorted((m.first, m.last) for m in chain) for chain in doc.chains()))


# -- the tests ------------------------------------------------------------------------------------
def test_every_family_file_is_listed_and_every_listed_file_is_there():
    for family in FAMILIES:
        folder = WILD / family
        if not folder.exists():
            continue
        listed = {entry["path"] for entry in json.loads((folder / "manifest.json").read_text("utf-8"))}
        assert listed == {p.name for p in folder.iterdir() if p.name != "manifest.json"}
        for entry in json.loads((folder / "manifest.json").read_text("utf-8")):
            assert re.fullmatch(r"[0-9a-f]{40}", entry["commit"]) and entry["licence"] and entry["repo"]
            assert entry["format"] in COUNTERS, f"{entry['path']}: no counter for {entry['format']}"
    assert len(ENTRIES) >= 6


@pytest.mark.parametrize("family, entry", ENTRIES, ids=IDS)
def test_counts_equal_an_independent_counter(family, entry):
    path = path_of(family, entry)
    expected = COUNTERS[entry["format"]](path)
    got = corefio_counts(corefio.read(path, entry["format"]))
    assert {k: got[k] for k in COUNTS} == {k: expected[k] for k in COUNTS}
    assert expected["documents"] >= 1


@pytest.mark.parametrize("family, entry", ENTRIES, ids=IDS)
def test_info_validate_convert_and_score_accept_the_file(family, entry, tmp_path):
    path, fmt = str(path_of(family, entry)), entry["format"]
    runner = CliRunner()
    info = runner.invoke(app, ["info", path, "--from", fmt])
    assert info.exit_code == 0 and "document(s)" in info.output, info.output
    valid = runner.invoke(app, ["validate", path, "--from", fmt])
    assert valid.exit_code == 0 and "valid (0 error(s)" in valid.output, valid.output
    converted = runner.invoke(app, ["convert", path, str(tmp_path / "out.raf.xml"), "--from", fmt])
    assert converted.exit_code == 0, converted.output
    again = corefio.read(tmp_path / "out.raf.xml")
    assert [shape(d) for d in again.documents] == [shape(d) for d in corefio.read(path, fmt).documents]
    scored = runner.invoke(app, ["score", path, path, "--key-format", fmt, "--response-format", fmt,
                                 "--format", "json"])
    assert scored.exit_code == 0, scored.output
    mentions = json.loads(scored.stdout)["corpus"]["mentions"]
    assert mentions["recall"]["num"] == mentions["recall"]["den"] == COUNTERS[fmt](Path(path))["mentions"]


@pytest.mark.parametrize("family, entry", ENTRIES, ids=IDS)
def test_own_format_round_trip(family, entry, tmp_path):
    path, fmt = path_of(family, entry), entry["format"]
    writer = WRITER.get(fmt, fmt)
    # the file's own name: a MUC DOC without DOCNO is named after its file
    out = tmp_path / (path.name if writer == fmt else f"{path.stem}{EXTENSION[writer]}")
    corpus = corefio.read(path, fmt)
    corefio.write(corpus, out, writer)
    if entry["path"] in EXACT:
        assert out.read_bytes() == path.read_bytes()
    again = corefio.read(out, writer)
    assert [shape(d) for d in again.documents] == [shape(d) for d in corpus.documents]
