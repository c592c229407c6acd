"""Kappa for coreference (Passonneau 1997, after Krippendorff 1980), from MUC counts."""

from __future__ import annotations

from fractions import Fraction

from .base import Score, Value
from ._table import as_table
from .muc import muc


def kappa(key, response=None) -> Value:
    """κ of seed 000 DEF.7, with a, b, c, d read off the MUC counts.

    MRS = a/(a+c), MPS = a/(a+b) and a+b+c+d = N = |E| − 1 (E = key ∪ response
    mentions; see :func:`link_count` for the case where a+b+c exceeds it);
    p_Ao = (a+d)/N, p_Ah = ((a+c)(a+b) + (c+d)(b+d))/N², κ = (p_Ao − p_Ah)/(1 − p_Ah).
    When p_Ah = 1 (no room for chance), κ is 1 if p_Ao = 1 and 0 otherwise.
    """
    t = as_table(key, response)
    return kappa_from_counts(muc(t), link_count(t))


def link_count(key, response=None) -> int:
    """N = a + b + c + d of DEF.7: |E| − 1, or a + b + c when the MUC counts exceed it.

    DEF.7 sets N = |E| − 1, but a + b + c (links in the key or the response) can be
    larger when both sides link many mentions (e.g. classes of 9 and 2 mentions, one
    mention swapped): d would be negative and κ fall below −1. corefio then takes
    d = 0, the smallest table the counts allow.
    """
    t = as_table(key, response)
    m = muc(t)
    links = m.recall_den + m.precision_den - m.recall_num  # a + b + c
    return max(t.n_key + t.n_response - t.matched - 1, links, 0)


def kappa_from_counts(score: Score, n_pairs: int) -> Value:
    """κ from MUC counts and N (:func:`link_count`, summed over documents for a corpus)."""
    a = Fraction(score.recall_num)
    c = score.recall_den - a
    b = score.precision_den - a
    d = n_pairs - a - b - c
    n = a + b + c + d
    if n <= 0:
        return Value(Fraction(1))
    p_ao = (a + d) / n
    p_ah = ((a + c) * (a + b) + (c + d) * (b + d)) / (n * n)
    if p_ah == 1:
        return Value(Fraction(1) if p_ao == 1 else Fraction(0))
    return Value((p_ao - p_ah) / (1 - p_ah))
