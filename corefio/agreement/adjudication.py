"""Adjudication: several annotations of the same documents merged into one gold.

The rule is a vote, mentions first, then coreference between the mentions kept:

* a mention (a span) is kept when at least ``k`` of the ``n`` annotators of its document
  marked it: ``k = ⌈n/2⌉`` by default (``keep="majority"``: for two annotators, the union
  of their mentions; for three, two votes), ``k = n`` with ``keep="agreed"`` (the
  intersection);
* a link is a pair of kept mentions in one chain (coreference as a relation, so that the
  order in which annotators chained mentions does not matter); it is kept with at least
  ``k`` votes, and the gold's entities are the transitive closure of the links kept
  (for two annotators and the default, the union of their chains).

Everything on which the annotators of a document did not all agree is a
:class:`Conflict`: a mention not every annotator marked, and a kept mention whose
partners in its chain differ between the annotators that marked it. A conflict with
exactly half of the votes is a tie (kept, since ``⌈n/2⌉`` votes suffice). Conflicts are
listed in the report and marked on the gold's markables in the attribute
``adjudication`` (where the output format holds markable attributes; elsewhere its
loss is reported, as for any attribute).

The gold keeps the first annotator's words, sentences, other layers and non-identity
links (whose two ends are kept); markables keep the ids and attributes of the first
annotator that marked them.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Report
from ..errors import UsageError
from ..model import Corpus, Document, Markable
from .study import Item, Study, build_study

#: the attribute that carries a conflict on the gold's markables
CONFLICT_ATTRIBUTE = "adjudication"
KEEP_RULES = ("majority", "agreed")


@dataclass
class Conflict:
    """Something the annotators of a document did not all agree on."""

    document: str
    kind: str  #: ``mention`` or ``chain``
    spans: tuple  #: the mention's token spans (0-based, inclusive)
    text: str
    sentence: int | None  #: 1-based sentence of the mention's first word
    #: annotator → what that annotator said ("marked", "not marked", "with: …", "alone")
    said: dict[str, str]
    decision: str
    tie: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"document": self.document, "kind": self.kind, "spans": [list(s) for s in self.spans],
                "text": self.text, "sentence": self.sentence, "said": self.said, "decision": self.decision,
                "tie": self.tie}


@dataclass
class Adjudication:
    annotators: list[str]
    keep: str
    gold: Corpus
    conflicts: list[Conflict] = field(default_factory=list)
    report: Report = field(default_factory=Report)
    #: the annotations merged (for the adjudication view)
    study: Study | None = None


class _Find:
    """Union-find over mention spans."""

    def __init__(self, items: Sequence[tuple]) -> None:
        self.parent = {x: x for x in items}

    def find(self, x: tuple) -> tuple:
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a: tuple, b: tuple) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def adjudicate(annotations: Sequence[Any], *, names: Sequence[str] | None = None, format: str | None = None,
               keep: str = "majority", allow_missing: bool = False, report: Report | None = None) -> Adjudication:
    """Merge the annotations (one per annotator: a corpus, document, path or list of
    paths) into one gold corpus by the vote of the module doc."""
    if keep not in KEEP_RULES:
        raise UsageError(f"unknown rule {keep!r} for --keep (known: {', '.join(KEEP_RULES)})")
    report = report if report is not None else Report()
    study = build_study(annotations, names=names, format=format, allow_missing=allow_missing, report=report)
    return merge(study, keep=keep, report=report)


def _chains_of(document: Document) -> tuple[dict[tuple, int], dict[tuple, Markable]]:
    """A document's coreference mentions: span → chain number (a span repeated in
    another chain stays in its first), span → its markable."""
    view = document.mention_view(False)
    chain_of: dict[tuple, int] = {}
    for number, chain in enumerate(view.mentions):
        for m in chain:
            chain_of.setdefault(m.spans, number)
    markables: dict[tuple, Markable] = {}
    for mk in document.markables:
        if mk.layer is None and mk.spans in chain_of:
            markables.setdefault(mk.spans, mk)
    return chain_of, markables


def _merge_item(item: Item, study: Study, keep: str, report: Report) -> tuple[Document, list[Conflict]]:
    """One document merged by the vote, with its conflicts."""
    conflicts: list[Conflict] = []
    present = item.present
    n = len(present)
    need = n if keep == "agreed" else (n + 1) // 2
    names = [study.annotators[a] for a in present]
    chains = [_chains_of(item.documents[a]) for a in present]
    reference = item.reference
    sentence_of = reference.sentence_of_token() if reference.sentences else None

    texts: dict[tuple, str] = {}  # a mention's text, made once: conflicts name each partner by it

    def text(spans: tuple) -> str:
        found = texts.get(spans)
        if found is None:
            found = texts[spans] = " ".join(reference.span_text(s) for s in spans)
        return found

    def sentence(spans: tuple) -> int | None:
        return sentence_of[spans[0][0]] + 1 if sentence_of else None

    votes: dict[tuple, list[int]] = {}
    for position, (chain_of, _) in enumerate(chains):
        for span in chain_of:
            votes.setdefault(span, []).append(position)
    kept = sorted(span for span, who in votes.items() if len(who) >= need)
    kept_set = set(kept)
    notes: dict[tuple, list[str]] = {}
    for span in sorted(votes):
        who = votes[span]
        if len(who) == n:
            continue
        decided = "kept" if span in kept_set else "dropped"
        tie = 2 * len(who) == n
        conflicts.append(Conflict(item.label, "mention", span, text(span), sentence(span),
                                  {names[p]: "marked" if p in who else "not marked" for p in range(n)},
                                  decided, tie))
        if span in kept_set:
            notes.setdefault(span, []).append(f"mention marked by {'+'.join(names[p] for p in who)}")

    # links: pairs of kept mentions in one chain, counted per annotator
    # (kept_chains: per annotator, chain number → the kept mentions of that chain, sorted)
    kept_chains: list[dict[int, list[tuple]]] = []
    link_votes: dict[tuple, int] = {}
    found = _Find(kept)
    for chain_of, _ in chains:
        members: dict[int, list[tuple]] = {}
        for span, number in chain_of.items():
            if span in kept_set:
                members.setdefault(number, []).append(span)
        for group in members.values():
            group.sort()
            if need == 1:
                # every link of the chain is kept: joining each mention to the next one
                # gives the same closure as its m(m-1)/2 pairs (two annotators, majority)
                for a, b in zip(group, group[1:]):
                    found.union(a, b)
                continue
            for i, a in enumerate(group):
                for b in group[i + 1:]:
                    link_votes[a, b] = link_votes.get((a, b), 0) + 1
        kept_chains.append(members)
    for (a, b), count in link_votes.items():
        if count >= need:
            found.union(a, b)
    entity_of: dict[tuple, tuple] = {span: found.find(span) for span in kept}

    # chain conflicts: a kept mention whose partners differ between its annotators
    # (a mention's partners in a chain are the chain without it, so two annotators gave it
    # the same partners exactly when its two chains of kept mentions, both sorted, are
    # equal; the partners are written out only for a conflict)
    gold_chains: dict[tuple, list[tuple]] = {}
    for span in kept:  # (in order: each gold chain is sorted too)
        gold_chains.setdefault(entity_of[span], []).append(span)
    quoted: dict[int, list[str]] = {}

    def partners(chain: list[tuple], span: tuple) -> str:
        """What a sorted chain says about one of its mentions: "alone", or "with: " and
        the texts of the others in order. A conflict names the partners of each mention
        of a chain that differs, so each chain's texts are quoted once."""
        texts_ = quoted.get(id(chain))  # (the chains live as long as this function)
        if texts_ is None:
            texts_ = quoted[id(chain)] = [repr(text(s)) for s in chain]
        i = bisect_left(chain, span)
        others = texts_[:i] + texts_[i + 1:]
        return "with: " + ", ".join(others) if others else "alone"

    for span in kept:
        held = [kept_chains[p][number] for p, number in enumerate(chain_of.get(span) for chain_of, _ in chains)
                if number is not None]
        if any(chain != held[0] for chain in held[1:]):
            said: dict[str, str] = {}
            for position, (chain_of, _) in enumerate(chains):
                found_in = chain_of.get(span)
                said[names[position]] = "not marked" if found_in is None else \
                    partners(kept_chains[position][found_in], span)
            gold = partners(gold_chains[entity_of[span]], span)
            ties = sum(1 for v in said.values() if v == gold)
            conflicts.append(Conflict(item.label, "chain", span, text(span), sentence(span), said, gold,
                                      2 * ties == n))
            notes.setdefault(span, []).append("chain: " + "; ".join(f"{k} {v}" for k, v in said.items()))

    document, dropped = _gold_document(reference, chains, kept, entity_of, notes)
    if dropped:
        report.warning("adjudicate.links-dropped",
                       f"{dropped} non-identity link(s) of {study.annotators[present[0]]} point at an entity or "
                       "at a mention the vote dropped; the gold leaves them out", document=item.label,
                       count=dropped, merge=True)
    return document, conflicts


def merge(study: Study, *, keep: str = "majority", report: Report | None = None) -> Adjudication:
    """:func:`adjudicate` on a study already read."""
    report = report if report is not None else Report()
    gold: list[Document] = []
    conflicts: list[Conflict] = []
    for item in study.items:
        document, found = _merge_item(item, study, keep, report)
        gold.append(document)
        conflicts.extend(found)
    conflicts.sort(key=lambda c: (c.document, c.spans, c.kind))
    if conflicts:
        report.info("adjudicate.conflicts", f"{len(conflicts)} conflict(s) between the annotators")
    return Adjudication(study.annotators, keep, Corpus(documents=gold), conflicts, report, study)


def _gold_document(reference: Document, chains: list, kept: list[tuple], entity_of: dict[tuple, tuple],
                   notes: dict[tuple, list[str]]) -> tuple[Document, int]:
    """The gold document, and how many of the reference's other links it leaves out."""
    numbers: dict[tuple, str] = {}
    for span in kept:  # entities numbered in the order of their first mention (numbers: what CoNLL reads)
        numbers.setdefault(entity_of[span], str(len(numbers) + 1))
    taken = {m.id for m in reference.markables if m.layer is None}
    used: set[str] = set()
    markables: list[Markable] = [m for m in reference.markables if m.layer is not None]
    new_ids = 0
    kept_refs: dict[str, str] = {}
    first = chains[0][1]
    for span in kept:
        source = first.get(span)
        from_first = source is not None
        if source is None:
            source = next(marks[span] for _, marks in chains if span in marks)
        attributes = dict(source.attributes)
        if span in notes:
            attributes[CONFLICT_ATTRIBUTE] = " | ".join(notes[span])
        mark_id = source.id
        if mark_id in used or (not from_first and mark_id in taken):
            new_ids += 1
            while f"adjudicated_{new_ids}" in taken or f"adjudicated_{new_ids}" in used:
                new_ids += 1
            mark_id = f"adjudicated_{new_ids}"
        used.add(mark_id)
        if from_first:
            kept_refs[source.ref] = mark_id
        markables.append(source.copy(id=mark_id, entity=numbers[entity_of[span]], attributes=attributes))
    # non-identity links of the first annotator whose ends are kept, with ids renamed
    links = []
    dropped = 0
    other_refs = {m.ref for m in markables if m.layer is not None}
    for link in reference.links:
        if link.is_identity:
            continue
        source = kept_refs.get(link.source, link.source if link.source in other_refs else None)
        targets = [kept_refs.get(t, t if t in other_refs else None) for t in link.targets]
        if link.target_kind != "markable" or source is None or None in targets:
            dropped += 1
            continue
        links.append(link.copy(source=source, targets=tuple(targets)))
    if any(link.is_identity for link in reference.links) and not any(
            m.entity is not None for m in reference.markables if m.layer is None):
        # the annotators said coreference by identity links (brat '*' lines): so does the gold
        from ..model import Link

        members: dict[str, list] = {}
        for m in markables:
            if m.layer is None and m.entity is not None:
                members.setdefault(m.entity, []).append(m)
        markables = [m.copy(entity=None) if m.layer is None else m for m in markables]
        for number, group in enumerate(g for g in members.values() if len(g) > 1):
            links.append(Link(id=f"*{number + 1}", source=group[0].ref, targets=tuple(m.ref for m in group[1:])))
    return reference.copy(markables=markables, entities=[], links=links), dropped
