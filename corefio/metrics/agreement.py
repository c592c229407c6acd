"""Kappa for coreference (Passonneau 1997, after Krippendorff 1980), from MUC counts."""

from __future__ import annotations

from fractions import Fraction

from .base import Score, Value
from ._table import as_table
from .muc import muc


def kappa(key, response=None) -> Value:
    """κ of seed 000 DEF.7, with a, b, c, d read off the MUC counts.

    MRS = a/(a+c), MPS = a/(a+b) and a+b+c+d = |E| − 1 (E = key ∪ response mentions);
    p_Ao = (a+d)/N, p_Ah = ((a+c)(a+b) + (c+d)(b+d))/N², κ = (p_Ao − p_Ah)/(1 − p_Ah).
    When p_Ah = 1 (no room for chance), κ is 1 if p_Ao = 1 and 0 otherwise.
    """
    t = as_table(key, response)
    return kappa_from_counts(muc(t), t.n_key + t.n_response - t.matched - 1)


def kappa_from_counts(score: Score, n_pairs: int) -> Value:
    """κ from MUC counts and N = |E| − 1 (summed over documents for a corpus)."""
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
