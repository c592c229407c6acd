"""Coreference metrics as the Universal Anaphora (UA) scorer computes them, with split antecedents.

The UA scorer (Yu et al. 2022, LREC; Paun, Yu, Moosavi & Poesio 2022, "Scoring Coreference
Chains with Split-Antecedent Anaphors") adds to the chain of a plural mention one extra
*split-antecedent mention*: the set of the entities its antecedents belong to. A key and a
response split-antecedent mention are aligned per document by solving an assignment on the
F1 of the same metric computed between their member entities; an aligned pair then counts
with that partial credit (recall, precision or F1, depending on the metric) in MUC, B³,
CEAF, LEA and BLANC. Without split antecedents every function here gives the usual value.

Mentions are :class:`UaMention` objects (compared by their word indices); a chain is a list
of them. The functions return the four counts (precision numerator and denominator, recall
numerator and denominator) the scorer sums over documents. They reproduce the scorer's
arithmetic (version 2.0), including one habit that depends on the order of mentions within
a chain (kept on purpose, see ``tests/data/ua-scorer/README.md``): BLANC's coreference half
credits a split antecedent only where it is the first mention of a pair, so chains are
ordered as the scorer orders them (its hash of a mention is kept for that).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from ._assignment import linear_sum_assignment

Counts = tuple[float, float, float, float]  # precision num, den; recall num, den


class UaMention:
    """A mention: its word indices (sorted), or, for a split-antecedent mention, the set of
    its member entities (each a tuple of mentions). ``min``: the words a partial match must
    cover (UA ``Min``, a CorefUD key's head); ``is_zero``: a zero mention (an empty token). Equal mentions have equal words;
    equal split-antecedent mentions have equal member sets. The hash is the UA scorer's
    (a frozenset of the words, or of the members), so sets of mentions iterate in its order."""

    __slots__ = ("words", "members", "min", "is_zero", "parts", "_hash")

    def __init__(self, words: Sequence[float] = (), members: frozenset | None = None,
                 min: frozenset | None = None, is_zero: bool = False,
                 parts: tuple[tuple[float, float], ...] = ()) -> None:
        self.words = tuple(words)
        self.members = members
        self.min = min
        self.is_zero = is_zero
        #: the (first, last) words of each part (a discontinuous mention has several)
        self.parts = parts
        self._hash = hash(frozenset(members)) if members is not None else hash(frozenset(self.words))

    @property
    def is_split(self) -> bool:
        return self.members is not None

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, UaMention):
            return NotImplemented
        if self.members is not None or other.members is not None:
            return self.members == other.members
        return self.words == other.words

    def __lt__(self, other: "UaMention") -> bool:
        a, b = self.words, other.words
        if a[0] != b[0]:
            return a[0] < b[0]
        if a[-1] != b[-1]:
            return a[-1] < b[-1]
        return len(a) < len(b)

    def __repr__(self) -> str:
        if self.members is not None:
            return "split(" + ", ".join(repr(list(m)) for m in self.members) + ")"
        return f"({','.join(map(str, self.words))})"


#: the split-antecedent mention with no member, aligned with when one side has none
EMPTY_SPLIT = UaMention(members=frozenset())

Chains = list[list[Any]]
Partner = dict[Any, tuple[Any, float]]


def harmonic(pn: float, pd: float, rn: float, rd: float) -> float:
    """F1 from the four counts (0 when a ratio has no denominator)."""
    p = 0 if pd == 0 else pn / float(pd)
    r = 0 if rd == 0 else rn / float(rd)
    return 0 if p + r == 0 else 2 * p * r / (p + r)


def prf(pn: float, pd: float, rn: float, rd: float) -> tuple[float, float, float]:
    """(recall, precision, F1) as the scorer reports them."""
    recall = 0 if rn == 0 else rn / float(rd)
    precision = 0 if pn == 0 else pn / float(pd)
    return recall, precision, harmonic(pn, pd, rn, rd)


def cluster_index(chains: Chains) -> dict[Any, int]:
    """Each mention's chain number (a later chain wins for a repeated mention)."""
    return {m: i for i, chain in enumerate(chains) for m in chain}


# -- the metrics, one side at a time ------------------------------------------------------

def _muc_side(chains: Chains, other: Chains, index: dict, partner: Partner, count_singletons: bool,
              aligned: dict) -> tuple[float, float]:
    found, links = 0.0, 0
    for chain in chains:
        if len(chain) == 1 and count_singletons:
            links += 1
            only = aligned.get(chain[0], chain[0])
            if only in index and len(other[index[only]]) == 1:
                found += 1
            continue
        links += len(chain) - 1
        found += len(chain)
        partitions: set[int] = set()
        split = None
        for m in chain:
            m = aligned.get(m, m)
            if isinstance(m, UaMention) and m.is_split:
                split = m
            elif m in index:
                partitions.add(index[m])
            else:
                found -= 1
        if split is not None:
            if split in partner:
                counterpart, credit = partner[split]
                found -= (1 - credit) if index[counterpart] in partitions else 1
            else:
                found -= 1
        found -= len(partitions)
    return found, links


def _bcub_side(chains: Chains, index: dict, partner: Partner, aligned: dict) -> tuple[float, float]:
    num, den = 0.0, 0
    for chain in chains:
        shared: dict[int, float] = defaultdict(float)
        for m in chain:
            m = aligned.get(m, m)
            if isinstance(m, UaMention) and m.is_split:
                if m in partner:
                    counterpart, credit = partner[m]
                    shared[index[counterpart]] += credit
            elif m in index:
                shared[index[m]] += 1
        num += sum(v * v for v in shared.values()) / float(len(chain))
        den += len(chain)
    return num, den


def _lea_side(chains: Chains, other: Chains, index: dict, partner: Partner, aligned: dict) -> tuple[float, float]:
    num, den = 0.0, 0
    for chain in chains:
        if len(chain) == 1:
            only = aligned.get(chain[0], chain[0])
            num += 1 if only in index and len(other[index[only]]) == 1 else 0
            den += 1
            continue
        resolved = 0.0
        for i, m in enumerate(chain):
            m = aligned.get(m, m)
            credit = 1.0
            if isinstance(m, UaMention) and m.is_split and m in partner:
                m, credit = partner[m]
            if m not in index:
                continue
            for m2 in chain[i + 1:]:
                m2 = aligned.get(m2, m2)
                credit2 = 1.0
                if isinstance(m2, UaMention) and m2.is_split and m2 in partner:
                    m2, credit2 = partner[m2]
                if m2 in index and index[m] == index[m2]:
                    resolved += credit * credit2
        num += len(chain) * resolved / (len(chain) * (len(chain) - 1) / 2.0)
        den += len(chain)
    return num, den


def _ceaf(key: Chains, response: Chains, partner: Partner, entity: bool, aligned: dict) -> Counts:
    # the similarity of every key chain with every response chain it shares a mention with
    # (a key mention counts once per response chain holding it; a split antecedent counts
    # its alignment credit where its partner is); all other pairs are 0
    holders: dict[Any, dict[int, None]] = defaultdict(dict)
    for j, chain in enumerate(response):
        for m in chain:
            holders[m][j] = None
    scores = np.zeros((len(key), len(response)))
    for i, kc in enumerate(key):
        shared: dict[int, float] = defaultdict(float)
        for m in kc:
            m = aligned.get(m, m)
            credit = 1.0
            if isinstance(m, UaMention) and m.is_split:
                if m not in partner:
                    continue
                m, credit = partner[m]
            for j in holders.get(m, ()):
                shared[j] += credit
        for j, value in shared.items():
            scores[i, j] = 2 * value / float(len(kc) + len(response[j])) if entity else value
    rows, cols = linear_sum_assignment(-scores)
    similarity = scores[rows, cols].sum()
    if entity:
        return similarity, len(response), similarity, len(key)
    return similarity, sum(len(c) for c in response), similarity, sum(len(c) for c in key)


def _blanc_coref(key: Chains, response: Chains, response_index: dict, partner: Partner, aligned: dict) -> Counts:
    common = 0.0
    for chain in key:
        for i, m in enumerate(chain):
            m = aligned.get(m, m)
            credit = 1.0
            if isinstance(m, UaMention) and m.is_split and m in partner:
                m, credit = partner[m]
            if m in response_index:
                for m2 in chain[i + 1:]:
                    m2 = aligned.get(m2, m2)
                    if m2 in response_index and response_index[m] == response_index[m2]:
                        common += credit
    rd = sum(len(c) * (len(c) - 1) / 2 for c in key)
    pd = sum(len(c) * (len(c) - 1) / 2 for c in response)
    return common, pd, common, rd


def _blanc_noncoref(key: Chains, response: Chains, response_index: dict, partner: Partner, aligned: dict
                    ) -> Counts:
    # resolve every key mention once: its response chain (or None) and its credit
    resolved: list[list[tuple[int | None, float]]] = []
    for chain in key:
        row = []
        for m in chain:
            m = aligned.get(m, m)
            credit = 1.0
            if isinstance(m, UaMention) and m.is_split and m in partner:
                m, credit = partner[m]
            row.append((response_index.get(m), credit))
        resolved.append(row)
    common = 0.0
    # pairs of mentions in different key chains that the response keeps apart
    later: dict[int, float] = defaultdict(float)  # response chain -> summed credit of later key mentions
    total_later = 0.0
    for row in reversed(resolved):
        for chain_id, credit in row:
            if chain_id is not None:
                common += credit * (total_later - later[chain_id])
        for chain_id, credit in row:
            if chain_id is not None:
                later[chain_id] += credit
                total_later += credit
    n_key = sum(len(c) for c in key)
    n_response = sum(len(c) for c in response)
    rd = n_key * (n_key - 1) / 2 - sum(len(c) * (len(c) - 1) / 2 for c in key)
    pd = n_response * (n_response - 1) / 2 - sum(len(c) * (len(c) - 1) / 2 for c in response)
    return common, pd, common, rd


#: metric name -> its counts given (key, response, key index, response index, partners)
def _counts(metric: str, key: Chains, response: Chains, key_index: dict, response_index: dict,
            partners: tuple[Partner, Partner, Partner], aligned: dict, split_alignment: bool = False) -> Counts:
    by_recall, by_precision, by_f1 = partners
    if metric == "muc":
        pn, pd = _muc_side(response, key, key_index, by_precision, split_alignment, aligned)
        rn, rd = _muc_side(key, response, response_index, by_recall, split_alignment, aligned)
        return pn, pd, rn, rd
    if metric == "bcub":
        pn, pd = _bcub_side(response, key_index, by_precision, aligned)
        rn, rd = _bcub_side(key, response_index, by_recall, aligned)
        return pn, pd, rn, rd
    if metric == "lea":
        pn, pd = _lea_side(response, key, key_index, by_precision, aligned)
        rn, rd = _lea_side(key, response, response_index, by_recall, aligned)
        return pn, pd, rn, rd
    if metric in ("ceafe", "ceafm"):
        return _ceaf(key, response, by_f1, metric == "ceafe", aligned)
    if metric == "blanc_c":
        return _blanc_coref(key, response, response_index, by_f1, aligned)
    if metric == "blanc_n":
        return _blanc_noncoref(key, response, response_index, by_f1, aligned)
    raise ValueError(f"unknown UA metric {metric!r}")


NO_PARTNERS: tuple[Partner, Partner, Partner] = ({}, {}, {})


def align_split_antecedents(metric: str, key: Chains, response: Chains, aligned: dict | None = None
                            ) -> tuple[tuple[Partner, Partner, Partner], Counts]:
    """Align the split-antecedent mentions of one document for ``metric``.

    Returns the partner maps (key split → (response split, recall), response split →
    (key split, precision), key split → (response split, F1)) and the counts of the
    split-antecedent-only score."""
    key_splits = [m for chain in key for m in chain if m.is_split]
    response_splits = [m for chain in response for m in chain if m.is_split]
    if not key_splits and not response_splits:
        return NO_PARTNERS, (0, 0, 0, 0)
    key_splits = key_splits or [EMPTY_SPLIT]
    response_splits = response_splits or [EMPTY_SPLIT]
    key_members = [list(s.members) for s in key_splits]
    response_members = [list(s.members) for s in response_splits]
    key_indexes = [cluster_index(c) for c in key_members]
    response_indexes = [cluster_index(c) for c in response_members]
    raw = np.zeros((len(key_splits), len(response_splits), 4))
    recalls = np.zeros((len(key_splits), len(response_splits)))
    precisions = np.zeros_like(recalls)
    f1s = np.zeros_like(recalls)
    for i in range(len(key_splits)):
        for j in range(len(response_splits)):
            pn, pd, rn, rd = _counts(metric, key_members[i], response_members[j], key_indexes[i],
                                     response_indexes[j], NO_PARTNERS, aligned or {}, split_alignment=True)
            raw[i, j] = (pn, pd, rn, rd)
            precisions[i, j] = 0 if pn == 0 else pn / float(pd)
            recalls[i, j] = 0 if rn == 0 else rn / float(rd)
            f1s[i, j] = harmonic(pn, pd, rn, rd)
    rows, cols = linear_sum_assignment(-f1s)
    only = (float(raw[rows, cols, 0].sum()), float(raw[0, :, 1].sum()),
            float(raw[rows, cols, 2].sum()), float(raw[:, 0, 3].sum()))
    by_recall = {key_splits[r]: (response_splits[c], float(recalls[r, c])) for r, c in zip(rows, cols)
                 if recalls[r, c] > 0}
    by_precision = {response_splits[c]: (key_splits[r], float(precisions[r, c])) for r, c in zip(rows, cols)
                    if precisions[r, c] > 0}
    by_f1 = {key_splits[r]: (response_splits[c], float(f1s[r, c])) for r, c in zip(rows, cols) if f1s[r, c] > 0}
    return (by_recall, by_precision, by_f1), only


def document_counts(metric: str, key: Chains, response: Chains, aligned: dict | None = None
                    ) -> tuple[Counts, Counts]:
    """One document's counts for ``metric`` (muc, bcub, ceafe, ceafm, lea, blanc_c,
    blanc_n) and the counts of its split-antecedent-only score. ``aligned``: partially
    matched mentions (:func:`partial_alignment`), each standing for its partner."""
    aligned = aligned or {}
    partners, only = align_split_antecedents(metric, key, response, aligned)
    counts = _counts(metric, key, response, cluster_index(key), cluster_index(response), partners, aligned)
    return counts, only


UA_METRICS = ("muc", "bcub", "ceafe", "ceafm", "blanc", "lea")


def corpus_scores(metric: str, documents: Iterable[tuple], only_split: bool = False
                  ) -> tuple[float, float, float]:
    """(recall, precision, F1) of ``metric`` over documents — (key, response) or (key,
    response, partial alignment) — summed as the scorer sums; BLANC is the mean of its two
    halves (a half with no link on either side is left out)."""
    documents = list(documents)
    halves = ("blanc_c", "blanc_n") if metric == "blanc" else (metric,)
    results = []
    for half in halves:
        total = np.zeros(4)
        total_only = np.zeros(4)
        for key, response, *rest in documents:
            counts, only = document_counts(half, key, response, rest[0] if rest else None)
            total += counts
            total_only += only
        chosen = total_only if only_split else total
        if metric == "blanc" and total[1] == total[3] == 0:
            continue
        results.append(prf(*chosen))
    if not results:
        return 0, 0, 0
    if len(results) == 1:
        return results[0]
    return tuple(sum(v) / len(results) for v in zip(*results))  # type: ignore[return-value]


# -- bridging, non-referring, MOR -----------------------------------------------------------

def bridging_counts(key_pairs: dict, response_pairs: dict, key_index: dict) -> np.ndarray:
    """True positive, false positive and false negative counts of one document's bridging:
    rows anaphor recognition, mention-level and entity-level full bridging. ``*_pairs``
    map each anaphor to its antecedent; ``key_index`` gives the key chain of a mention
    (an antecedent that is no key mention — non-referring — only matches itself)."""
    counts = np.zeros((3, 3), dtype=np.int64)  # rows: ar, mention, entity; cols: tp, fp, fn
    for anaphor, antecedent in key_pairs.items():
        if anaphor not in response_pairs:
            counts[:, 2] += 1
            continue
        counts[0, 0] += 1
        guess = response_pairs[anaphor]
        if guess == antecedent:
            counts[1, 0] += 1
            counts[2, 0] += 1
            continue
        counts[1, 2] += 1
        if guess in key_index and antecedent in key_index and key_index[guess] == key_index[antecedent]:
            counts[2, 0] += 1
        else:
            counts[2, 2] += 1
    for anaphor, guess in response_pairs.items():
        if anaphor not in key_pairs:
            counts[:, 1] += 1
            continue
        antecedent = key_pairs[anaphor]
        if guess != antecedent:
            counts[1, 1] += 1
            if guess not in key_index or antecedent not in key_index or key_index[guess] != key_index[antecedent]:
                counts[2, 1] += 1
    return counts


def recognition_counts(key: list, response: list) -> tuple[int, int, int]:
    """(true positives, false positives, false negatives) of recognising mentions (the
    UA scorer's non-referring identification: a list may hold equal mentions twice)."""
    tp = sum(1 for m in key if m in response)
    fn = len(key) - tp
    fp = sum(1 for m in response if m not in key)
    return tp, fp, fn


def counts_prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """(recall, precision, F1) from recognition counts."""
    recall = tp / float(tp + fn) if tp + fn > 0 else 0
    precision = tp / float(tp + fp) if tp + fp > 0 else 0
    f1 = 2 * recall * precision / (recall + precision) if recall + precision > 0 else 0
    return recall, precision, f1


def partial_score(key: UaMention, response: UaMention) -> float:
    """The CorefUD partial match of two mentions (the UA scorer's default method): the
    response lies within the key and covers the key's MIN (or the other way round); the
    credit is the share of the key's words it covers."""
    if key == response:
        return 1.0
    if key.is_zero or response.is_zero:
        return 0.0
    kw, rw = set(key.words), set(response.words)
    if key.min and key.min <= rw and rw <= kw:
        return len(kw & rw) / len(kw)
    if response.min and response.min <= kw and kw <= rw:
        return len(kw & rw) / len(rw)
    return 0.0


def craft_score(key: UaMention, response: UaMention) -> float:
    """The CRAFT 2019 partial match (the UA scorer's ``craft`` method): a response with a
    part inside the key's first part gets the share of the key's words it covers."""
    if key == response:
        return 1.0
    if key.is_zero or response.is_zero or not key.parts:
        return 0.0
    first, last = key.parts[0]
    if any(first <= a and b <= last for a, b in response.parts):
        return len(set(key.words) & set(response.words)) / len(key.words)
    return 0.0


def partial_alignment(key: Chains, response: Chains, method: str = "default") -> dict:
    """Pairs of mentions matched partially (both directions in one map) among the mentions
    that have no exact twin: ``default`` (CorefUD) by an assignment on
    :func:`partial_score` in document order; ``craft`` greedily, each response mention (in
    document order) taking the first key mention it overlaps (in the scorer's set order)
    if that one is still free."""
    key_set = {m for c in key for m in c}
    response_set = {m for c in response for m in c}
    key_alone = sorted(m for c in key for m in c if not m.is_split and not m.is_zero and m not in response_set)
    response_alone = sorted(m for c in response for m in c
                            if not m.is_split and not m.is_zero and m not in key_set)
    aligned: dict = {}
    if not key_alone or not response_alone:
        return aligned
    if method == "craft":
        free = {m: True for m in key_alone}
        candidates = set(key_alone)
        for r in response_alone:
            for k in candidates:
                if craft_score(k, r) > 0:
                    if free[k]:
                        free[k] = False
                        aligned[r] = k
                        aligned[k] = r
                    break
        return aligned
    score = partial_score
    similarity = np.array([[score(k, r) for r in response_alone] for k in key_alone])
    rows, cols = linear_sum_assignment(-similarity)
    for i, j in zip(rows, cols):
        if similarity[i, j] > 0:
            aligned[response_alone[j]] = key_alone[i]
            aligned[key_alone[i]] = response_alone[j]
    return aligned


def mention_overlap_counts(key: Chains, response: Chains, aligned: dict) -> Counts:
    """The mention overlap ratio's counts (Žabokrtský et al. 2022): words shared by matched
    mentions over the words of all response (precision) and key (recall) mentions."""
    key_set = {m for c in key for m in c if not m.is_split}
    response_set = {m for c in response for m in c if not m.is_split}
    exact = key_set & response_set
    partial_key = {m for m in key_set if m in aligned}
    partial_response = {m for m in response_set if m in aligned}
    pn = pd = rn = rd = 0.0
    for m in exact:
        pn += len(m.words)
        pd += len(m.words)
        rn += len(m.words)
        rd += len(m.words)
    for m in partial_key:
        other = aligned[m]
        shared = len(set(m.words) & set(other.words))
        pn += shared
        pd += len(other.words)
        rn += shared
        rd += len(m.words)
    for m in key_set - exact - partial_key:
        rd += len(m.words)
    for m in response_set - exact - partial_response:
        pd += len(m.words)
    return pn, pd, rn, rd


def anaphor_level_counts(key: Chains, response: Chains, response_index: dict, aligned: dict,
                         wanted: Callable[[UaMention], bool]) -> Counts:
    """The anaphor-level score's counts (Tuggener 2014, 2016; the CRAC 2022 zero score with
    ``wanted`` = is a zero): each key mention after the first of its chain is an anaphor;
    it is right when its response counterpart is not the first of its response chain and
    that chain holds the counterpart of an earlier mention of the key chain (TP), wrongly
    linked when it holds none (WL), missed when there is no counterpart or it starts its
    chain (FN); response anaphors that are no key anaphor's counterpart are FP.
    Precision is TP / (TP + FP + WL), recall TP / (TP + FN + WL)."""
    tp = fp = fn = wl = 0
    firsts = [min(chain) for chain in response if chain]
    covered: set = set()
    for chain in key:
        seen: set[int] = set()
        for i, anaphor in enumerate(sorted(chain)):
            counterpart = anaphor if anaphor in response_index else aligned.get(anaphor)
            chain_id = response_index[counterpart] if counterpart is not None else None
            if i and wanted(anaphor):
                if counterpart is None or counterpart in firsts:
                    fn += 1
                elif chain_id not in seen:
                    wl += 1
                else:
                    tp += 1
                if counterpart is not None:
                    covered.add(counterpart)
            if chain_id is not None:
                seen.add(chain_id)
    for chain in response:
        for m in chain:
            if m not in firsts and m not in covered and wanted(m):
                fp += 1
    return tp, tp + fp + wl, tp, tp + fn + wl


class KeyedMention(UaMention):
    """A mention compared by its words and a ``key`` as well (corefud-scorer's head
    matching tells two mentions of the same words apart by their heads: the key is the
    head token then, None otherwise); ordered as :class:`UaMention`."""

    __slots__ = ("key",)

    def __init__(self, words: Sequence[float], key: Any = None, is_zero: bool = False) -> None:
        super().__init__(words, is_zero=is_zero)
        self.key = key
        self._hash = hash((frozenset(self.words), key))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, KeyedMention):
            return NotImplemented
        return self.words == other.words and self.key == other.key

    __hash__ = UaMention.__hash__


def max_overlap_counts(key: Sequence[UaMention], response: Sequence[UaMention]) -> Counts:
    """The mention overlap ratio as the CRAC 2022 findings define it (Žabokrtský et al.
    2022) and corefud-scorer computes it: key and response mentions are paired one to one
    so that they share as many words as possible, whatever the mention matching; the
    words shared over the words of all response mentions (precision) and of all key
    mentions (recall). Mentions whose extents do not overlap share no word, so each group
    of overlapping extents is solved on its own (the scorer's sweep)."""
    items = sorted([(m.words[0], m.words[-1], 0, k) for k, m in enumerate(key) if m.words]
                   + [(m.words[0], m.words[-1], 1, j) for j, m in enumerate(response) if m.words])
    shared = 0.0
    groups: list[tuple[list[int], list[int]]] = []
    end = None
    for first, last, side, index in items:
        if end is None or first > end:
            groups.append(([], []))
            end = last
        groups[-1][side].append(index)
        end = max(end, last)
    for ks, rs in groups:
        if not ks or not rs:
            continue
        overlap = np.array([[len(set(key[k].words) & set(response[j].words)) for j in rs] for k in ks], dtype=float)
        rows, cols = linear_sum_assignment(-overlap)
        shared += float(overlap[rows, cols].sum())
    return (shared, float(sum(len(m.words) for m in response)), shared, float(sum(len(m.words) for m in key)))
