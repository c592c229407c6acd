"""BLANC: the Rand index for coreference (Recasens & Hovy 2011; Luo et al. 2014)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .base import BlancScore, Score
from ._table import as_table

#: which scorer's rule says when a half of BLANC is left out: ``scorer`` (scorer.pl
#: v8.01: when the *key* has no link of its kind) or ``corefud`` (corefud-scorer 1.2: when
#: neither key nor response has one)
HALF_RULES = ("scorer", "corefud")


@dataclass(frozen=True)
class CorefudBlancScore(BlancScore):
    """BLANC's halves combined as corefud-scorer 1.2 combines them: a half is left out
    only when key and response both have no link of its kind (``pd == rd == 0`` in its
    ``evaluate_documents``); a half the key lacks and the response has counts, with
    recall and precision 0. scorer.pl leaves such a half out (:class:`BlancScore`)."""

    def _halves(self) -> list[Score]:
        return [s for s in (self.coref, self.noncoref) if s.recall_den or s.precision_den]

    def __add__(self, other: BlancScore) -> "CorefudBlancScore":
        return CorefudBlancScore(self.coref + other.coref, self.noncoref + other.noncoref)

    def __radd__(self, other: BlancScore) -> "CorefudBlancScore":
        return CorefudBlancScore(other.coref + self.coref, other.noncoref + self.noncoref)

    @classmethod
    def zero(cls) -> "CorefudBlancScore":
        return cls(Score.zero(), Score.zero())


def with_half_rule(result: Any, rule: str) -> Any:
    """``result`` with the halves rule of :data:`HALF_RULES` named ``rule`` when it is a
    BLANC score (other results unchanged): the counts stay, only their combination differs."""
    if not isinstance(result, BlancScore):
        return result
    if rule == "corefud":
        return result if isinstance(result, CorefudBlancScore) else CorefudBlancScore(result.coref, result.noncoref)
    return BlancScore(result.coref, result.noncoref) if isinstance(result, CorefudBlancScore) else result


def _pairs(a: np.ndarray) -> int:
    """Σ C(a, 2) over an integer array."""
    return int((a * (a - 1) // 2).sum())


def blanc(key, response=None) -> BlancScore:
    """BLANC with the extension of Luo et al. (2014) to differing mention sets, as in
    scorer.pl v8.01.

    Coreference links are the pairs inside a class, non-coreference links the pairs
    across two classes, each side over its own mentions. Correct coreference links:
    Σ C(n_ij, 2); correct non-coreference links: pairs of matched mentions separated in
    both partitions. Recall, precision and F are averaged over the two halves, a half
    being dropped when the *key* has no link of that kind (:class:`BlancScore`, scorer.pl's
    rule; :func:`with_half_rule` gives corefud-scorer's, :class:`CorefudBlancScore`).
    scorer.pl counts links as sets of mention id pairs: where a span is listed more than
    once, what the table counts beyond those sets is taken off
    (:class:`~corefio.metrics.base.Repeats`). Response links are counted on the table's
    :attr:`~corefio.metrics.base.Contingency.precision_table` (corefud-scorer's rule).
    """
    t = as_table(key, response)
    counts = link_counts(t)
    r = t.repeats
    key_coref, key_non = counts[0] - r.key_coref, counts[1] - r.key_non_coref
    resp_coref, resp_non = counts[2] - r.coref, counts[3] - r.non_coref
    both_coref, both_non = counts[4] - r.both_coref, counts[5] - r.both_non_coref
    return BlancScore(Score(both_coref, key_coref, both_coref, resp_coref),
                      Score(both_non, key_non, both_non, resp_non))


def link_counts(t) -> tuple[int, int, int, int, int, int]:
    """The links a table counts, before :class:`~corefio.metrics.base.Repeats`: key
    coreference and non-coreference links, response ones (on the
    :attr:`~corefio.metrics.base.Contingency.precision_table`), correct ones."""
    rows, cols, vals, ks, rs = t.arrays
    key_coref, nk = _pairs(ks), int(ks.sum())
    listed = t.precision_table.response_sizes  # corefud-scorer's response side
    resp_coref, nr = _pairs(listed), int(listed.sum())
    key_non = (nk * nk - int((ks * ks).sum())) // 2
    resp_non = (nr * nr - int((listed * listed).sum())) // 2
    both_coref = _pairs(vals)
    m = int(vals.sum())
    same_key = _pairs(np.bincount(rows, weights=vals, minlength=len(ks)).astype(np.int64))
    same_resp = _pairs(np.bincount(cols, weights=vals, minlength=len(rs)).astype(np.int64))
    both_non = m * (m - 1) // 2 - same_key - same_resp + both_coref
    return key_coref, key_non, resp_coref, resp_non, both_coref, both_non
