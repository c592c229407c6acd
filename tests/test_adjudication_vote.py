"""The adjudication vote against a plain reading of its rule (the module docstring of
``corefio.agreement.adjudication``), on random annotations by two to four annotators.

``merge`` takes shortcuts (one vote suffices: each chain joined mention to mention rather
than pair by pair; the partners a conflict lists written out once per chain); the
reference below takes none: every pair of kept mentions is counted, the closure is
found by a graph search, each annotator's partners are computed mention by mention."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

import corefio
from corefio.agreement import adjudicate
from corefio.agreement.adjudication import _chains_of

WORDS = [f"w{i}" for i in range(24)]
#: spans the annotators choose from: several overlap, and (3, 3) and (5, 6) lie inside longer ones
POOL = [(i, i) for i in range(0, 24, 2)] + [(i, i + 2) for i in range(1, 20, 4)] + [(3, 3), (5, 6)]


def _annotation(rng: random.Random) -> corefio.Corpus:
    spans = rng.sample(POOL, rng.randint(3, len(POOL)))
    chains: dict[int, list] = {}
    for span in spans:
        chains.setdefault(rng.randint(0, 4), []).append(list(span))
    line = {"doc_key": "doc", "sentences": [WORDS[:12], WORDS[12:]], "clusters": list(chains.values())}
    return corefio.loads(json.dumps(line) + "\n", format="jsonlines")


def _reference(corpora: list, keep: str):
    """The gold's chains and the conflicts, by the rule read plainly."""
    docs = [c.documents[0] for c in corpora]
    n = len(docs)
    need = n if keep == "agreed" else (n + 1) // 2
    names = [f"a{i}" for i in range(n)]
    chain_of = [_chains_of(d)[0] for d in docs]
    reference = docs[0]

    def text(spans):
        return " ".join(reference.span_text(s) for s in spans)

    def said_of(partners):
        return "with: " + ", ".join(repr(text(s)) for s in sorted(partners)) if partners else "alone"

    votes = Counter(span for c in chain_of for span in c)
    kept = sorted(s for s, v in votes.items() if v >= need)
    pair_votes = Counter((a, b) for c in chain_of for a in kept for b in kept
                         if a < b and a in c and b in c and c[a] == c[b])
    linked = {s: {s} for s in kept}
    for (a, b), v in pair_votes.items():
        if v >= need:
            linked[a].add(b)
            linked[b].add(a)
    entity: dict[tuple, frozenset] = {}
    for s in kept:  # the closure: everything reachable from s
        if s in entity:
            continue
        seen, todo = {s}, [s]
        while todo:
            for t in linked[todo.pop()]:
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
        for t in seen:
            entity[t] = frozenset(seen)
    conflicts = []
    for span, v in votes.items():
        if v < n:
            conflicts.append(("mention", span, {names[p]: "marked" if span in chain_of[p] else "not marked"
                                                for p in range(n)}, "kept" if v >= need else "dropped", 2 * v == n))
    for span in kept:
        said, seen_sets = {}, set()
        for p, c in enumerate(chain_of):
            if span not in c:
                said[names[p]] = "not marked"
                continue
            partners = frozenset(s for s in kept if s != span and s in c and c[s] == c[span])
            seen_sets.add(partners)
            said[names[p]] = said_of(partners)
        if len(seen_sets) > 1:
            gold = said_of(entity[span] - {span})
            ties = sum(1 for v in said.values() if v == gold)
            conflicts.append(("chain", span, said, gold, 2 * ties == n))
    return set(entity.values()), sorted(conflicts, key=lambda c: (c[1], c[0]))


@pytest.mark.parametrize("seed", range(60))
def test_the_vote_is_the_rule(seed):
    rng = random.Random(seed)
    corpora = [_annotation(rng) for _ in range(2 + seed % 3)]
    for keep in ("majority", "agreed"):
        result = adjudicate(corpora, names=[f"a{i}" for i in range(len(corpora))], keep=keep)
        gold = result.gold.documents[0].mention_view(False)
        chains = {frozenset(m.spans for m in chain) for chain in gold.mentions}
        conflicts = [(c.kind, c.spans, c.said, c.decision, c.tie) for c in result.conflicts]
        expected_chains, expected_conflicts = _reference(corpora, keep)
        assert chains == expected_chains, keep
        assert sorted(conflicts, key=lambda c: (c[1], c[0])) == expected_conflicts, keep
