"""Kappa for coreference (Passonneau 1997, after Krippendorff 1980), from MUC counts.

Popescu-Belis (2000) DEF.7 reads the 2×2 agreement table off the MUC counts: a = links both sides
make (the MUC numerator), c = key links the response misses, b = response links the
key lacks, and fixes the table's total N = a + b + c + d = |E| − 1 (E: the mentions of
key and response). Two variants:

* :func:`kappa` follows DEF.7 as printed: d = N − a − b − c, kept even when it is
  negative. That happens when both sides link many mentions (a + b + c > |E| − 1), and
  κ then falls below −1 — Popescu-Belis et al. (2004) reports such values on real data ("lower than −1,
  which is against its original definition"). The scorer warns when κ leaves [−1, 1].
* :func:`kappa_d0` keeps d ≥ 0: N is raised to a + b + c when that is larger, the
  smallest table the counts allow, so κ stays in [−1, 1].

A corpus's κ comes from the summed counts (a, b, c and N of every document).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .base import Score, Value
from ._table import as_table
from .muc import muc


@dataclass(frozen=True)
class KappaCounts:
    """a, b, c of DEF.7 and the table total N; ``+`` adds documents."""

    a: int
    b: int
    c: int
    n: int

    def __add__(self, other: "KappaCounts") -> "KappaCounts":
        return KappaCounts(self.a + other.a, self.b + other.b, self.c + other.c, self.n + other.n)

    @classmethod
    def zero(cls) -> "KappaCounts":
        return cls(0, 0, 0, 0)

    @property
    def d(self) -> int:
        """Links neither side makes; negative when the MUC counts exceed N."""
        return self.n - self.a - self.b - self.c

    @property
    def value(self) -> Fraction:
        """κ = (p_Ao − p_Ah) / (1 − p_Ah) with p_Ao = (a + d)/N and
        p_Ah = ((a + c)(a + b) + (c + d)(b + d)) / N². With N ≤ 0 (at most one
        mention: no link can be made) κ is 1; with p_Ah = 1 (no room for chance) κ is
        1 when p_Ao = 1 and 0 otherwise."""
        a, b, c, d, n = self.a, self.b, self.c, self.d, self.n
        if n <= 0:
            return Fraction(1)
        p_ao = Fraction(a + d, n)
        p_ah = Fraction((a + c) * (a + b) + (c + d) * (b + d), n * n)
        if p_ah == 1:
            return Fraction(1) if p_ao == 1 else Fraction(0)
        return (p_ao - p_ah) / (1 - p_ah)


    @classmethod
    def of(cls, muc_score: Score, mentions: int, d0: bool = False) -> "KappaCounts":
        """The counts of one document from its MUC counts and |E|: N = |E| − 1 (0
        without mentions); with ``d0=True``, N is at least a + b + c."""
        a = int(muc_score.recall_num)
        b = int(muc_score.precision_den) - a
        c = int(muc_score.recall_den) - a
        n = max(mentions - 1, 0)
        if d0:
            n = max(n, a + b + c)
        return cls(a, b, c, n)


def kappa_counts(key, response=None, *, d0: bool = False) -> KappaCounts:
    """The DEF.7 counts of one document (a table or two partitions)."""
    t = as_table(key, response)
    return KappaCounts.of(muc(t), t.n_key + t.n_response - t.matched, d0)


def kappa(key, response=None) -> Value:
    """κ of Popescu-Belis (2000) DEF.7 as printed (d may be negative, κ may fall below −1)."""
    return Value(kappa_counts(key, response).value)


def kappa_d0(key, response=None) -> Value:
    """κ with d ≥ 0 (N raised to a + b + c when the MUC counts exceed |E| − 1)."""
    return Value(kappa_counts(key, response, d0=True).value)
