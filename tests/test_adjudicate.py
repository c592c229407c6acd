"""Adjudication (``corefio adjudicate``): the vote, the conflicts, and a gold that the
annotators' own format (and, for XMI, dkpro-cassis) reads back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import corefio
from corefio.agreement import adjudicate
from corefio.agreement.adjudication import CONFLICT_ATTRIBUTE
from corefio.errors import UsageError

DATA = Path(__file__).parent / "data" / "agreement"
GUM = DATA / "gum-annotators"
SAMPLES = Path(__file__).parent.parent / "samples"
CLI = [sys.executable, "-m", "corefio"]


def files(annotator: str, count: int = 4) -> list[Path]:
    return sorted((GUM / annotator).glob("*.conll"))[:count]


def chains(document) -> set[frozenset]:
    view = document.mention_view(False)
    return {frozenset(m.spans for m in chain) for chain in view.mentions}


def mentions(document) -> set[tuple]:
    return {m.spans for chain in document.mention_view(False).mentions for m in chain}


def test_adjudicating_an_annotation_with_itself_gives_it_back():
    a = files("a", 2)
    result = adjudicate([a, a])
    assert result.conflicts == []
    for gold, source in zip(result.gold.documents, corefio.read(a[0]).documents + corefio.read(a[1]).documents):
        assert gold.tokens.forms == source.tokens.forms
        assert chains(gold) == chains(source)
        assert not any(CONFLICT_ATTRIBUTE in m.attributes for m in gold.markables)


def test_two_annotators_union_and_agreed():
    a, b = files("a", 1), files("b", 1)
    da, db = corefio.read(a[0]).documents[0], corefio.read(b[0]).documents[0]
    union = adjudicate([a, b]).gold.documents[0]
    assert mentions(union) == mentions(da) | mentions(db)
    # the union's chains are the transitive closure: every chain of either annotator
    # lies inside one gold chain
    gold_of = {span: chain for chain in chains(union) for span in chain}
    for chain in chains(da) | chains(db):
        assert len({gold_of[s] for s in chain}) == 1
    agreed = adjudicate([a, b], keep="agreed")
    gold = agreed.gold.documents[0]
    assert mentions(gold) == mentions(da) & mentions(db)
    # links both have: two gold mentions corefer only if they corefer for a and for b
    for chain in chains(gold):
        for x in chain:
            for y in chain:
                assert any(x in c and y in c for c in chains(da)) and any(x in c and y in c for c in chains(db))
    only_one = mentions(da) ^ mentions(db)
    listed = {c.spans for c in agreed.conflicts if c.kind == "mention"}
    assert listed == only_one
    assert all(c.decision == "dropped" for c in agreed.conflicts if c.kind == "mention")


def test_three_annotators_majority():
    docs = {x: corefio.read(files(x, 1)[0]).documents[0] for x in "abc"}
    result = adjudicate([files(x, 1) for x in "abc"], names=["a", "b", "c"])
    gold = result.gold.documents[0]
    votes = {}
    for d in docs.values():
        for span in mentions(d):
            votes[span] = votes.get(span, 0) + 1
    assert mentions(gold) == {s for s, v in votes.items() if v >= 2}
    for conflict in result.conflicts:
        if conflict.kind == "mention":
            assert (conflict.decision == "kept") == (votes[conflict.spans] >= 2)
            assert sorted(conflict.said) == ["a", "b", "c"]
    # a link kept by two of three: the two that agree decide
    pair_votes = {}
    for d in docs.values():
        for chain in chains(d):
            members = sorted(s for s in chain if s in mentions(gold))
            for i, x in enumerate(members):
                for y in members[i + 1:]:
                    pair_votes[x, y] = pair_votes.get((x, y), 0) + 1
    gold_of = {span: chain for chain in chains(gold) for span in chain}
    for (x, y), v in pair_votes.items():
        if v >= 2:
            assert gold_of[x] == gold_of[y]
    marked = [m for m in gold.markables if CONFLICT_ATTRIBUTE in m.attributes]
    assert marked and len(marked) <= len({c.spans for c in result.conflicts})


def test_ties_are_listed(tmp_path):
    """Four annotators, two of whom lack a mention: exactly half the votes, a tie, kept."""
    a, b = files("a", 1), files("b", 1)
    result = adjudicate([a, a, b, b])
    ties = [c for c in result.conflicts if c.tie]
    assert ties
    assert all(c.decision == "kept" for c in ties if c.kind == "mention")


def test_rule_names():
    with pytest.raises(UsageError):
        adjudicate([files("a", 1), files("b", 1)], keep="all")


@pytest.mark.parametrize("fmt,suffix", [("conll", ".conll"), ("conllu", ".conllu"), ("raf", ".raf.xml"),
                                        ("jsonlines", ".jsonlines"), ("mmax2", "")])
def test_gold_in_every_format_reads_back(tmp_path, fmt, suffix):
    out = tmp_path / f"gold{suffix}"
    run = subprocess.run(CLI + ["adjudicate", str(GUM / "a"), str(GUM / "b"), str(GUM / "c"), "-o", str(out),
                                "--to", fmt, "--report", str(tmp_path / "c.json")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "conflict(s) between a, b, c" in run.stdout
    back = corefio.read(out, format=fmt)
    direct = adjudicate([files(x) for x in "abc"])
    assert [chains(d) for d in back.documents] == [chains(d) for d in direct.gold.documents]
    report = json.loads((tmp_path / "c.json").read_text())
    assert len(report["conflicts"]) == len(direct.conflicts) and report["annotators"] == ["a", "b", "c"]


def test_gold_keeps_the_annotators_format(tmp_path):
    out = tmp_path / "gold.conll"
    subprocess.run(CLI + ["adjudicate", str(SAMPLES / "key.raf.xml"), str(SAMPLES / "response.raf.xml"),
                          "-o", str(tmp_path / "gold.raf.xml")], check=True, capture_output=True)
    back = corefio.read(tmp_path / "gold.raf.xml")
    assert any(CONFLICT_ATTRIBUTE in m.attributes for m in back.documents[0].markables)
    run = subprocess.run(CLI + ["adjudicate", str(GUM / "a"), str(GUM / "b"), "-o", str(out), "--report",
                                str(tmp_path / "c.csv")], capture_output=True, text=True)
    assert run.returncode == 0
    assert "loss.markable-attributes" in run.stderr  # CoNLL holds no conflict marks: said so
    assert (tmp_path / "c.csv").read_text().startswith("document,sentence,kind,tie,first,last,mention,a,b,decision")
    # the gold is CoNLL as scorer.pl reads it: numeric labels, nothing for corefio's reader to warn about
    from corefio.diagnostics import Report

    report = Report()
    corefio.read(out, report=report)
    assert not report.by_code("conll.label-not-numeric")
    labels = {cell.strip("()") for line in out.read_text().splitlines() if line and not line.startswith("#")
              for cell in line.split()[-1].split("|") if cell != "-"}
    assert labels and all(label.isdigit() for label in labels)


def test_gold_xmi_reads_in_cassis(tmp_path):
    """An INCEpTION-style XMI gold opens in dkpro-cassis (with the type system corefio
    declares) with one CoreferenceChain per chain of two or more mentions."""
    cassis = pytest.importorskip("cassis")
    from corefio.formats.xmi import TYPE_SYSTEM

    out = tmp_path / "gold.xmi"
    run = subprocess.run(CLI + ["adjudicate", str(SAMPLES / "key.raf.xml"), str(SAMPLES / "response.raf.xml"),
                                "-o", str(out)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    typesystem = cassis.load_typesystem(TYPE_SYSTEM)
    cas = cassis.load_cas_from_xmi(out.read_text(encoding="utf-8"), typesystem=typesystem)
    found = cas.select("de.tudarmstadt.ukp.dkpro.core.api.coref.type.CoreferenceChain")
    gold = adjudicate([SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml"]).gold.documents[0]
    assert len(found) == sum(1 for c in chains(gold) if len(c) > 1)
    links = 0
    for chain in found:
        link = chain.first
        while link is not None:
            links += 1
            link = link.next
    assert links == sum(len(c) for c in chains(gold) if len(c) > 1)
