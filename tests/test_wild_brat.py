"""Real brat collections (tests/data/wild/brat, manifest.json there) against two judges:

* brat's own reader (``TextAnnotations`` of nlplab/brat's server, run outside the
  repository; its counts are stored in ``judges/brat_annotation_counts.json`` with the
  command): the number of lines of each kind, the members of every equivalence and every
  relation, per document;
* a small standoff parser of this file, written from brat's documentation without
  corefio's code: mentions (LitBank's chain labels apart), chains (chain labels,
  identity relations and equivalences joined), singletons.

corefio's reading must give the same, and each collection written back in its own
format must be the same bytes (configuration files, README and LICENSE included).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import corefio
from corefio.diagnostics import Report
from corefio.formats.brat import BratLayout

WILD = Path(__file__).parent / "data" / "wild" / "brat"
MANIFEST = json.loads((WILD / "manifest.json").read_text(encoding="utf-8"))
JUDGE = json.loads((WILD / "judges" / "brat_annotation_counts.json").read_text(encoding="utf-8"))
BRAT_ENTRIES = [e for e in MANIFEST if e["format"] == "brat"]
IDENTITY = {"coreference", "coref", "identity", "ident", "equiv"}


# -- the independent parser -----------------------------------------------------------------------
class _Groups:
    """Union-find over annotation ids."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def join(self, a: str, b: str) -> None:
        self.parent[self.find(a)] = self.find(b)


def standoff(ann: Path) -> dict:
    """Counts of one ``.ann``: lines by kind, mentions, chains and singletons. A ``T``
    line of type ``NAME-N`` at the offsets of another ``T`` line that no line names is a
    LitBank chain label; ``R`` lines of an identity type and every ``*`` line join their
    members (when all are mentions)."""
    kinds: Counter = Counter()
    tlines: dict[str, tuple[str, str]] = {}
    others: list[list[str]] = []
    for line in ann.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        fields = line.split("\t")
        kind = "A/M" if fields[0][0] in "AM" else fields[0][0]
        kinds[kind] += 1
        if kind == "T":
            type_, _, offsets = fields[1].partition(" ")
            tlines[fields[0]] = (type_, offsets)
        else:
            others.append(fields)
    named = set()
    for fields in others:
        named.update(w.split(":")[-1] for w in fields[1].split()[1:])
        if fields[0][0] == "E":
            named.add(fields[1].split()[0].split(":")[-1])
    plain = {offsets for t, (type_, offsets) in tlines.items() if not re.fullmatch(r".+-\d+", type_) or t in named}
    labels = {t for t, (type_, offsets) in tlines.items()
              if re.fullmatch(r"\S+-\d+", type_) and t not in named and offsets in plain}
    groups = _Groups()
    first_at: dict[str, str] = {}
    mentions = [t for t in tlines if t not in labels]
    for t in mentions:
        groups.find(t)
        first_at.setdefault(tlines[t][1], t)
    # a label joins the first mention at its offsets without a label (in file order)
    taken: set[str] = set()
    at: dict[str, list[str]] = {}
    for t in mentions:
        if not re.fullmatch(r"\S+-\d+", tlines[t][0]) or t in named:
            at.setdefault(tlines[t][1], []).append(t)
    for t in (t for t in tlines if t in labels):
        mention = next(m for m in at[tlines[t][1]] if m not in taken)
        taken.add(mention)
        groups.join(mention, "label " + tlines[t][0])
    for fields in others:
        words = fields[1].split()
        if fields[0] == "*":
            members = words[1:]
        elif fields[0][0] == "R" and words[0].lower() in IDENTITY:
            members = [w.split(":")[-1] for w in words[1:]]
        else:
            continue
        if all(m in mentions for m in members):
            for m in members[1:]:
                groups.join(members[0], m)
    sizes = Counter(groups.find(m) for m in mentions)
    return {"kinds": kinds, "mentions": len(mentions), "labels": len(labels),
            "chains": len(sizes), "singletons": sum(1 for n in sizes.values() if n == 1)}


# -- corefio's counts -----------------------------------------------------------------------------
def corefio_counts(doc) -> dict:
    lay = doc.layout["brat"]
    assert isinstance(lay, BratLayout)
    raw = Counter("A/M" if lid[0] in "AM" else lid[0] for lid in lay.raw)
    attribute_lines = Counter("A/M" if aid[0] in "AM" else "#" for aid in lay.attributes)
    relations = sum(1 for link in doc.links if link.id.startswith("R"))
    equivalences = len({link.id.split(".")[0] for link in doc.links if link.id.startswith("*")})
    kinds = Counter({"T": len(doc.markables) + len(lay.labels), "R": relations + raw["R"], "E": raw["E"],
                     "A/M": attribute_lines["A/M"] + raw["A/M"], "N": raw["N"], "*": equivalences + raw["*"],
                     "#": attribute_lines["#"] + raw["#"]})
    chains = doc.chains()
    return {"kinds": +kinds, "mentions": len(doc.markables), "labels": len(lay.labels), "chains": len(chains),
            "singletons": sum(1 for c in chains if len(c) == 1)}


def _documents(entry: dict) -> list:
    return corefio.read(WILD / entry["path"], entry["format"]).documents


@pytest.mark.parametrize("entry", BRAT_ENTRIES, ids=lambda e: e["path"])
def test_counts_equal_the_independent_parser(entry):
    for doc in _documents(entry):
        expected = standoff(WILD / entry["path"] / f"{doc.name}.ann")
        expected["kinds"] = +expected["kinds"]
        assert corefio_counts(doc) == expected, doc.name


@pytest.mark.parametrize("entry", [e for e in BRAT_ENTRIES if e["path"] in JUDGE["counts"]], ids=lambda e: e["path"])
def test_lines_equivalences_and_relations_equal_brats_own_reader(entry):
    judged = JUDGE["counts"][entry["path"]]
    documents = _documents(entry)
    assert sorted(doc.name for doc in documents) == sorted(judged)
    for doc in documents:
        brat = judged[doc.name]
        counts = corefio_counts(doc)["kinds"]
        assert {k: counts[k] for k in ("T", "R", "E", "A/M", "N", "*", "#")} == \
            {k: brat[k] for k in ("T", "R", "E", "A/M", "N", "*", "#")}, doc.name
        lay = doc.layout["brat"]
        groups: dict[str, list[str]] = {}
        for link in doc.links:
            if link.id.startswith("*"):
                groups.setdefault(link.id.split(".")[0], [link.source]).extend(link.targets)
        raw_groups = [line.split("\t")[1].split()[1:] for lid, line in lay.raw.items() if lid.startswith("*")]
        assert sorted(sorted(g) for g in [*groups.values(), *raw_groups]) == brat["equiv_members"], doc.name
        relations = [[lay.link_types.get(link.id, link.type), link.source, link.targets[0]]
                     for link in doc.links if link.id.startswith("R")]
        raw_relations = [[w[0], w[1].split(":")[1], w[2].split(":")[1]]
                         for lid, line in lay.raw.items() if lid.startswith("R")
                         for w in [line.split("\t")[1].split()]]
        assert sorted(relations + raw_relations) == brat["relations"], doc.name


@pytest.mark.parametrize("entry", MANIFEST, ids=lambda e: e["path"])
def test_written_back_in_its_own_format_the_collection_is_the_same_bytes(entry, tmp_path):
    source = WILD / entry["path"]
    report = Report()
    corpus = corefio.read(source, entry["format"], report=report)
    files = corefio.dump_files(corpus, entry["format"], report=report)
    assert files == {p.name: p.read_bytes() for p in sorted(source.iterdir())}
    assert [d for d in report if d.code.startswith("loss.")] == []


def test_litbank_tsv_holds_what_litbank_brat_holds():
    brat = {d.name: d for d in corefio.read(WILD / "litbank", "brat")}
    tsv = {d.name: d for d in corefio.read(WILD / "litbank_tsv", "litbank-tsv")}
    assert sorted(brat) == sorted(tsv)
    for name, doc in brat.items():
        other = tsv[name]
        assert doc.tokens.forms == other.tokens.forms
        assert sorted((m.spans, m.entity, m.attributes.get("type")) for m in doc.markables) == \
            sorted((m.spans, m.entity, m.attributes.get("type")) for m in other.markables)
        assert sorted((link.type, link.source, link.targets) for link in doc.links) == \
            sorted((link.type, link.source, link.targets) for link in other.links)


def test_events_modifiers_and_normalisations_are_reported_lost_in_another_format():
    report = Report()
    corpus = corefio.read(WILD / "bionlp_st_2011_ge", "brat")
    corefio.dumps(corpus, "conll", report=report)
    judged = JUDGE["counts"]["bionlp_st_2011_ge"]
    lost = report.by_code("loss.uninterpreted")  # one per document
    # every event and every modifier of an event: 66 events, 13 modifiers
    assert sum(d.count for d in lost) == sum(d["E"] + d["A/M"] for d in judged.values()) == 79
    report = Report()
    corefio.dumps(corefio.read(WILD / "brat_tutorial_news", "brat"), "jsonlines", report=report)
    lost = report.by_code("loss.uninterpreted")
    tutorial = JUDGE["counts"]["brat_tutorial_news"]
    layouts = [doc.layout["brat"] for doc in corefio.read(WILD / "brat_tutorial_news", "brat")]
    kept = Counter(lid[0] for lay in layouts for lid in lay.raw)
    # the events and the normalisation, and what names an event (attributes, notes)
    assert kept["E"] == sum(d["E"] for d in tutorial.values()) and kept["N"] == sum(d["N"] for d in tutorial.values())
    assert sum(d.count for d in lost) == sum(kept.values()) > kept["E"] + kept["N"]


@pytest.mark.parametrize("folder, fmt", [("bionlp_st_2011_ge", "brat"), ("brat_tutorial_news", "brat"),
                                         ("fr_litbank", "brat"), ("litbank_tsv", "litbank-tsv")])
def test_the_cli_recognises_a_collection_folder_without_from(folder, fmt, tmp_path):
    """Issue 8: a folder of pairs was taken for files of MUC, and annotation.conf, README
    and LICENSE for inputs of their own."""
    source = WILD / folder
    run = subprocess.run([sys.executable, "-m", "corefio", "info", str(source)], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert f"{len(list(source.glob('*.ann')))} document(s)" in run.stdout
    run = subprocess.run([sys.executable, "-m", "corefio", "convert", str(source), str(tmp_path / "out"), "--to", fmt],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == \
        {p.name: p.read_bytes() for p in source.iterdir()}
