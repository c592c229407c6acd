"""Scores as numerator/denominator counts, and the key × response contingency table.

Every metric returns counts, never bare ratios: corpus scores are sums of document
counts (the micro-average of the reference scorer) and values are computed last.
Numerators are exact (``int`` or :class:`fractions.Fraction`), so results can be
compared with published numbers to the last digit.

Conventions (those of the reference scorer, scorer.pl v8.01): a ratio with a zero
denominator is 0; F1 is 0 when recall + precision is 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

import numpy as np

Number = int | Fraction


def ratio(num: Number, den: Number, empty: int = 0) -> Fraction:
    """num/den as an exact fraction; ``empty`` (0 unless told) when den is 0."""
    return Fraction(num) / den if den else Fraction(empty)


def harmonic(recall: Fraction, precision: Fraction) -> Fraction:
    """F1: 2RP/(R+P), 0 when R+P is 0."""
    return 2 * recall * precision / (recall + precision) if recall + precision else Fraction(0)


@dataclass(frozen=True)
class Score:
    """Recall and precision as counts. ``+`` sums counts (corpus = sum of documents)."""

    recall_num: Number
    recall_den: Number
    precision_num: Number
    precision_den: Number
    #: the value of a ratio whose denominator is 0 (0 for the reference scorer's
    #: metrics; 1 where seed 000 says "no error possible", e.g. core classes)
    empty: int = 0

    @property
    def recall(self) -> Fraction:
        return ratio(self.recall_num, self.recall_den, self.empty)

    @property
    def precision(self) -> Fraction:
        return ratio(self.precision_num, self.precision_den, self.empty)

    @property
    def f1(self) -> Fraction:
        return harmonic(self.recall, self.precision)

    def __add__(self, other: "Score") -> "Score":
        return Score(self.recall_num + other.recall_num, self.recall_den + other.recall_den,
                     self.precision_num + other.precision_num, self.precision_den + other.precision_den,
                     self.empty)

    @classmethod
    def zero(cls, empty: int = 0) -> "Score":
        return cls(0, 0, 0, 0, empty)


@dataclass(frozen=True)
class BlancScore:
    """BLANC's two halves, coreference and non-coreference links, as counts."""

    coref: Score
    noncoref: Score

    def __add__(self, other: "BlancScore") -> "BlancScore":
        return BlancScore(self.coref + other.coref, self.noncoref + other.noncoref)

    @classmethod
    def zero(cls) -> "BlancScore":
        return cls(Score.zero(), Score.zero())

    def _halves(self) -> list[Score]:
        """The halves that count: the reference scorer drops a half whose *key* count is 0."""
        keep = [s for s in (self.coref, self.noncoref) if s.recall_den]
        return keep

    @property
    def recall(self) -> Fraction:
        halves = self._halves()
        return sum((s.recall for s in halves), Fraction(0)) / len(halves) if halves else Fraction(0)

    @property
    def precision(self) -> Fraction:
        halves = self._halves()
        return sum((s.precision for s in halves), Fraction(0)) / len(halves) if halves else Fraction(0)

    @property
    def f1(self) -> Fraction:
        """The mean of the two halves' F1 (not the F1 of the means), as scorer.pl does."""
        halves = self._halves()
        return sum((s.f1 for s in halves), Fraction(0)) / len(halves) if halves else Fraction(0)


@dataclass(frozen=True)
class Value:
    """A single-number measure (kappa, DMT, D-err); ``direction`` for D-err."""

    value: Fraction | float
    direction: str | None = None


def fraction_sum_arrays(nums: np.ndarray, dens: np.ndarray) -> Number:
    """Σ nums[k]/dens[k], exact: numerators are added per distinct denominator (integer
    sums, exact in float64 below 2**53) and the few groups are added as fractions."""
    if len(nums) == 0:
        return 0
    values, inverse = np.unique(dens, return_inverse=True)
    sums = np.bincount(inverse, weights=nums)
    total: Number = 0
    for den, num in zip(values.tolist(), sums.tolist()):
        num = int(round(num))
        total += Fraction(num, den) if num % den else num // den
    return total


def fraction_sum(pairs: Iterable[tuple[int, int]]) -> Number:
    """Σ numerator/denominator, exact, grouping equal denominators first (fast)."""
    by_den: dict[int, int] = {}
    for num, den in pairs:
        by_den[den] = by_den.get(den, 0) + num
    total: Number = 0
    for den, num in by_den.items():
        total += Fraction(num, den) if num % den else num // den
    return total


@dataclass
class Contingency:
    """Key × response classes: sizes of each class and the sizes of their intersections.

    ``cells[(i, j)] = |K_i ∩ R_j|`` (only non-zero cells). Mentions are any hashable
    values; a mention in the key and not in the response (or the reverse) is
    *twinless* and counts only in its own side's class size.
    """

    key_sizes: list[int]
    response_sizes: list[int]
    cells: dict[tuple[int, int], int] = field(default_factory=dict)

    @classmethod
    def from_partitions(cls, key: Iterable[Iterable[Hashable]],
                        response: Iterable[Iterable[Hashable]]) -> "Contingency":
        """From two partitions, each an iterable of classes (iterables of mentions).

        A mention listed twice on one side counts once (the first class keeps it).
        """
        where: dict[Hashable, int] = {}
        key_sizes: list[int] = []
        for i, cls_ in enumerate(key):
            n = 0
            for m in cls_:
                if m not in where:
                    where[m] = i
                    n += 1
            key_sizes.append(n)
        seen: set[Hashable] = set()
        response_sizes: list[int] = []
        pairs = []
        for j, cls_ in enumerate(response):
            n = 0
            for m in cls_:
                if m in seen:
                    continue
                seen.add(m)
                n += 1
                i = where.get(m)
                if i is not None:
                    pairs.append((i, j))
            response_sizes.append(n)
        return cls(key_sizes, response_sizes, dict(Counter(pairs)))

    # -- derived quantities -------------------------------------------------------------
    @cached_property
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(rows, cols, counts, key sizes, response sizes) as int64 arrays."""
        if self.cells:
            rows, cols = (np.fromiter(x, np.int64, len(self.cells)) for x in zip(*self.cells))
            vals = np.fromiter(self.cells.values(), np.int64, len(self.cells))
        else:
            rows = cols = vals = np.zeros(0, np.int64)
        return rows, cols, vals, np.asarray(self.key_sizes, np.int64), np.asarray(self.response_sizes, np.int64)

    @property
    def n_key(self) -> int:
        return sum(self.key_sizes)

    @property
    def n_response(self) -> int:
        return sum(self.response_sizes)

    @property
    def matched(self) -> int:
        """Mentions in both key and response."""
        return sum(self.cells.values())

    def key_matched(self) -> list[int]:
        out = [0] * len(self.key_sizes)
        for (i, _), n in self.cells.items():
            out[i] += n
        return out

    def response_matched(self) -> list[int]:
        out = [0] * len(self.response_sizes)
        for (_, j), n in self.cells.items():
            out[j] += n
        return out

    def transposed(self) -> "Contingency":
        """The same table with key and response swapped."""
        return Contingency(self.response_sizes, self.key_sizes, {(j, i): n for (i, j), n in self.cells.items()})

    @classmethod
    def union(cls, tables: "Iterable[Contingency]") -> "Contingency":
        """The disjoint union of several tables (a corpus seen as one document)."""
        key_sizes: list[int] = []
        response_sizes: list[int] = []
        cells: dict[tuple[int, int], int] = {}
        for t in tables:
            ko, ro = len(key_sizes), len(response_sizes)
            key_sizes += t.key_sizes
            response_sizes += t.response_sizes
            for (i, j), n in t.cells.items():
                cells[(i + ko, j + ro)] = n
        return cls(key_sizes, response_sizes, cells)

    def extended(self) -> "Contingency":
        """DEF.19 of seed 000: twinless mentions become singleton classes on the other side,
        so that both partitions cover E = E_K ∪ E_R."""
        key_sizes = list(self.key_sizes)
        response_sizes = list(self.response_sizes)
        cells = dict(self.cells)
        for i, (size, matched) in enumerate(zip(self.key_sizes, self.key_matched())):
            for _ in range(size - matched):
                response_sizes.append(1)
                cells[(i, len(response_sizes) - 1)] = 1
        for j, (size, matched) in enumerate(zip(self.response_sizes, self.response_matched())):
            for _ in range(size - matched):
                key_sizes.append(1)
                cells[(len(key_sizes) - 1, j)] = 1
        return Contingency(key_sizes, response_sizes, cells)


def partition_sizes(partition: Sequence[Sequence[Hashable]]) -> list[int]:
    return [len(c) for c in partition]
