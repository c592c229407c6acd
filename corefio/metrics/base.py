"""Scores as numerator/denominator counts, and the key × response contingency table.

Every metric returns counts, never bare ratios: corpus scores are sums of document
counts (the micro-average of the reference scorer) and values are computed last.
Numerators are exact (``int`` or :class:`fractions.Fraction`), so results can be
compared with published numbers to the last digit.

Conventions (those of the reference scorer, scorer.pl v8.01): a ratio with a zero
denominator is 0; F1 is 0 when recall + precision is 0.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, fields
from fractions import Fraction

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
    #: metrics; 1 where Popescu-Belis (2000) says "no error possible", e.g. core classes)
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
    if int(dens.max()) < 1 << 16:  # small denominators (class sizes): count by value
        sums = np.bincount(dens, weights=nums)
        values = np.flatnonzero(sums)
        sums = sums[values]
    else:
        values, inverse = np.unique(dens, return_inverse=True)
        sums = np.bincount(inverse, weights=nums)
    total: Number = 0
    for den, num in zip(values.tolist(), sums.tolist()):
        num = int(round(num))
        total += Fraction(num, den) if num % den else num // den
    return total


@dataclass(frozen=True)
class Repeats:
    """What a table counts beyond the reference scorer because of spans listed more than
    once (in two chains, or twice in one): subtracted by the metrics that the table alone
    cannot give (scoring's repeat rules, :mod:`corefio.scoring.views`, set it).

    scorer.pl v8.01 gives each span one mention id, whichever side lists it and however
    often. A key span listed in several key chains stays in each of them (every listing
    counts in the key's chain sizes) while a response mention is compared with the last
    of them only; a response span that matches no key mention stays in every response
    chain that lists it. The table holds each listing as a mention (repeated key
    listings but the last are twinless key mentions), which is what its MUC and, with
    ``Contingency.aligned``, its CEAF count. What differs:

    * mention identification counts ids: ``key_mentions``, ``mentions`` and ``matched``
      are the key mentions, response mentions and matched mentions the table has beyond
      the distinct spans;
    * BLANC counts *sets* of id pairs (an id listed twice in a chain has a coreference
      link to itself, an id in two chains a non-coreference link to itself, two ids
      linked twice one link): ``key_coref``, ``key_non_coref``, ``coref``, ``non_coref``
      (the response's), ``both_coref`` and ``both_non_coref`` (the correct ones) are the
      links the table counts beyond those sets;
    * B³ finds a response mention's key chain by its id (the last chain that lists it)
      and counts the response chain's mentions that chain lists, whichever chain they
      belong to: ``bcub_recall`` and ``bcub_precision`` are what the table's numerators
      have beyond scorer.pl's.
    """

    key_mentions: int = 0
    mentions: int = 0
    matched: int = 0
    key_coref: int = 0
    key_non_coref: int = 0
    coref: int = 0
    non_coref: int = 0
    both_coref: int = 0
    both_non_coref: int = 0
    bcub_recall: Number = 0
    bcub_precision: Number = 0

    def __add__(self, other: "Repeats") -> "Repeats":
        return Repeats(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(Repeats)))


NO_REPEATS = Repeats()


class Contingency:
    """Key × response classes: the size of each class and of each non-empty intersection.

    Stored as int64 arrays: ``rows[c]``, ``cols[c]``, ``counts[c]`` say that key class
    ``rows[c]`` and response class ``cols[c]`` share ``counts[c]`` mentions (one entry
    per non-empty cell); ``key_sizes`` and ``response_sizes`` are the class sizes. A
    mention in the key and not in the response (or the reverse) is *twinless* and counts
    only in its own side's class size. Three optional parts serve a span listed more
    than once (set by scoring's repeat rules, :mod:`corefio.scoring.views`):
    ``repeats``, what some metrics take off (:class:`Repeats`); ``listed``, None or the
    table of the precision side (:attr:`precision_table`: corefud-scorer's rule, where
    a response span in several classes counts in each on that side only); ``aligned``,
    None or the table CEAF aligns (:attr:`ceaf_table`: every key listing against every
    response listing). Tables are treated as immutable.
    """

    __slots__ = ("rows", "cols", "counts", "key_sizes", "response_sizes", "repeats", "listed", "aligned",
                 "_cache", "_cells_cache")

    def __init__(self, key_sizes, response_sizes, cells: dict[tuple[int, int], int] | None = None) -> None:
        """From class sizes and a ``{(i, j): |K_i ∩ R_j|}`` mapping of the non-empty cells."""
        cells = cells or {}
        n = len(cells)
        self.rows = np.fromiter((i for i, _ in cells), np.int64, n)
        self.cols = np.fromiter((j for _, j in cells), np.int64, n)
        self.counts = np.fromiter(cells.values(), np.int64, n)
        self.key_sizes = np.asarray(key_sizes, np.int64).reshape(-1)
        self.response_sizes = np.asarray(response_sizes, np.int64).reshape(-1)
        self.repeats = NO_REPEATS
        self.listed: Contingency | None = None
        self.aligned: Contingency | None = None
        #: results computed from this table; ``_cells_cache``: results that depend only
        #: on the cells, shared with the tables that differ only in class sizes
        #: (:meth:`with_response_sizes`: CEAFm's alignment is computed once for them)
        self._cache: dict = {}
        self._cells_cache: dict = {}

    @classmethod
    def from_arrays(cls, rows, cols, counts, key_sizes, response_sizes) -> "Contingency":
        """From the arrays themselves (cells must be distinct and non-empty)."""
        t = cls.__new__(cls)
        t.rows = np.asarray(rows, np.int64)
        t.cols = np.asarray(cols, np.int64)
        t.counts = np.asarray(counts, np.int64)
        t.key_sizes = np.asarray(key_sizes, np.int64)
        t.response_sizes = np.asarray(response_sizes, np.int64)
        t.repeats = NO_REPEATS
        t.listed = None
        t.aligned = None
        t._cache = {}
        t._cells_cache = {}
        return t

    def with_repeats(self, repeats: Repeats) -> "Contingency":
        """The same table with ``repeats`` (:class:`Repeats`)."""
        return self._with(repeats=repeats)

    def with_listed(self, listed: "Contingency") -> "Contingency":
        """The same table whose precision side is ``listed`` (:attr:`precision_table`)."""
        return self._with(listed=listed)

    def with_aligned(self, aligned: "Contingency") -> "Contingency":
        """The same table whose CEAF table is ``aligned`` (:attr:`ceaf_table`)."""
        return self._with(aligned=aligned)

    def _with(self, **parts) -> "Contingency":
        table = Contingency.from_arrays(self.rows, self.cols, self.counts, self.key_sizes, self.response_sizes)
        table.repeats = parts.get("repeats", self.repeats)
        table.listed = parts.get("listed", self.listed)
        table.aligned = parts.get("aligned", self.aligned)
        return table

    @property
    def precision_table(self) -> "Contingency":
        """The table the precision side of MUC, B³ and LEA and the response side of
        BLANC are computed from: ``listed`` when a span is in several classes under
        corefud-scorer's rule (each response listing a response mention, in the last key
        class that lists its span), else this table."""
        return self if self.listed is None else self.listed

    @property
    def ceaf_table(self) -> "Contingency":
        """The table CEAF aligns (both sides): ``aligned`` when a span is in several
        classes (each key listing found in each response class that lists its span),
        else :attr:`precision_table`."""
        return self.aligned if self.aligned is not None else self.precision_table

    @classmethod
    def from_partitions(cls, key: Iterable[Iterable[Hashable]],
                        response: Iterable[Iterable[Hashable]]) -> "Contingency":
        """From two partitions, each an iterable of classes (iterables of mentions).

        A mention listed twice on one side counts once (the first class keeps it).
        """
        where: dict[Hashable, int] = {}
        key_sizes: list[int] = []
        for i, cls_ in enumerate(key):
            before = len(where)
            for m in cls_:
                where.setdefault(m, i)
            key_sizes.append(len(where) - before)
        seen: set[Hashable] = set()
        response_sizes: list[int] = []
        rows: list[int] = []
        cols: list[int] = []
        get = where.get
        for j, cls_ in enumerate(response):
            n = 0
            for m in cls_:
                if m in seen:
                    continue
                seen.add(m)
                n += 1
                found = get(m)
                if found is not None:
                    rows.append(found)
                    cols.append(j)
            response_sizes.append(n)
        return cls.from_pairs(rows, cols, key_sizes, response_sizes)

    @classmethod
    def from_pairs(cls, rows, cols, key_sizes, response_sizes) -> "Contingency":
        """From one (key class, response class) pair per matched mention."""
        n_response = max(len(response_sizes), 1)
        codes = np.asarray(rows, np.int64) * n_response + np.asarray(cols, np.int64)
        cells, counts = np.unique(codes, return_counts=True)
        return cls.from_arrays(cells // n_response, cells % n_response, counts.astype(np.int64),
                               key_sizes, response_sizes)

    # -- views ------------------------------------------------------------------------------
    @property
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(rows, cols, counts, key sizes, response sizes)."""
        return self.rows, self.cols, self.counts, self.key_sizes, self.response_sizes

    @property
    def cells(self) -> dict[tuple[int, int], int]:
        """``{(i, j): |K_i ∩ R_j|}`` for the non-empty cells."""
        return dict(zip(zip(self.rows.tolist(), self.cols.tolist()), self.counts.tolist()))

    def __repr__(self) -> str:
        repeats = "" if self.repeats == NO_REPEATS else f", repeats={self.repeats}"
        return (f"Contingency(key_sizes={self.key_sizes.tolist()}, "
                f"response_sizes={self.response_sizes.tolist()}, cells={self.cells}{repeats})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Contingency):
            return NotImplemented
        return (self.key_sizes.tolist() == other.key_sizes.tolist()
                and self.response_sizes.tolist() == other.response_sizes.tolist()
                and self.cells == other.cells and self.repeats == other.repeats and self.listed == other.listed
                and self.aligned == other.aligned)

    def __getstate__(self):
        return (self.rows, self.cols, self.counts, self.key_sizes, self.response_sizes, self.repeats, self.listed,
                self.aligned)

    def __setstate__(self, state) -> None:
        (self.rows, self.cols, self.counts, self.key_sizes, self.response_sizes, self.repeats, self.listed,
         self.aligned) = state
        self._cache = {}
        self._cells_cache = {}

    # -- derived quantities -------------------------------------------------------------
    @property
    def n_key(self) -> int:
        return int(self.key_sizes.sum())

    @property
    def n_response(self) -> int:
        return int(self.response_sizes.sum())

    @property
    def matched(self) -> int:
        """Mentions in both key and response."""
        return int(self.counts.sum())

    def key_matched(self) -> np.ndarray:
        """Per key class, its mentions that the response has."""
        return np.bincount(self.rows, weights=self.counts, minlength=len(self.key_sizes)).astype(np.int64)

    def response_matched(self) -> np.ndarray:
        """Per response class, its mentions that the key has."""
        return np.bincount(self.cols, weights=self.counts, minlength=len(self.response_sizes)).astype(np.int64)

    def with_response_sizes(self, sizes) -> "Contingency":
        """The same cells with other response class sizes (fewer twinless mentions)."""
        table = Contingency.from_arrays(self.rows, self.cols, self.counts, self.key_sizes, sizes)
        table._cells_cache = self._cells_cache
        return table

    @classmethod
    def union(cls, tables: "Iterable[Contingency]") -> "Contingency":
        """The disjoint union of several tables (a corpus seen as one document)."""
        tables = list(tables)
        if not tables:
            return cls([], [])
        k_off = np.cumsum([0] + [len(t.key_sizes) for t in tables[:-1]])
        r_off = np.cumsum([0] + [len(t.response_sizes) for t in tables[:-1]])
        table = cls.from_arrays(
            np.concatenate([t.rows + o for t, o in zip(tables, k_off)]),
            np.concatenate([t.cols + o for t, o in zip(tables, r_off)]),
            np.concatenate([t.counts for t in tables]),
            np.concatenate([t.key_sizes for t in tables]),
            np.concatenate([t.response_sizes for t in tables]))
        for t in tables:
            if t.repeats != NO_REPEATS:
                table.repeats = table.repeats + t.repeats
        if any(t.listed is not None for t in tables):
            table.listed = cls.union([t.precision_table for t in tables])
        if any(t.aligned is not None for t in tables):
            table.aligned = cls.union([t.ceaf_table for t in tables])
        return table

    def extended(self) -> "Contingency":
        """DEF.19 of Popescu-Belis (2000): twinless mentions become singleton classes on the other side,
        so that both partitions cover E = E_K ∪ E_R."""
        cached = self._cache.get("extended")
        if cached is not None:
            return cached
        nk, nr = len(self.key_sizes), len(self.response_sizes)
        twinless_key = self.key_sizes - self.key_matched()
        twinless_response = self.response_sizes - self.response_matched()
        tk, tr = int(twinless_key.sum()), int(twinless_response.sum())
        table = Contingency.from_arrays(
            np.concatenate([self.rows, np.repeat(np.arange(nk), twinless_key), nk + np.arange(tr)]),
            np.concatenate([self.cols, nr + np.arange(tk), np.repeat(np.arange(nr), twinless_response)]),
            np.concatenate([self.counts, np.ones(tk + tr, np.int64)]),
            np.concatenate([self.key_sizes, np.ones(tr, np.int64)]),
            np.concatenate([self.response_sizes, np.ones(tk, np.int64)]))
        self._cache["extended"] = table
        return table
