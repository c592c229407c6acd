"""Krippendorff's α: chance-corrected agreement among any number of annotators.

α = 1 − D_o / D_e, where D_o is the disagreement observed between the values that
annotators gave to the same unit and D_e the disagreement expected if the same values
were paired at random (Krippendorff, 1980/2004, *Content Analysis*). Every quantity is
an exact :class:`~fractions.Fraction`, as the rest of :mod:`corefio.metrics`.

Two forms are here:

* :func:`alpha` — the coding form. Units are rows of values, one per annotator, ``None``
  where an annotator gave none (a missing value: the unit is paired over the annotators
  that gave one; a unit with fewer than two values is not pairable and counts for
  nothing). With a value coincidence matrix o_ck (each ordered pair of values of a unit
  with m values adds 1/(m − 1)), marginals n_c and n = Σ n_c::

      D_o = Σ_ck o_ck δ(c, k) / n        D_e = Σ_ck n_c n_k δ(c, k) / (n (n − 1))

  For coreference chains (Passonneau 2004, "Computing reliability for coreference
  annotation") the units are markables and an annotator's value for a markable is the
  set of markables of its chain; the set distances are below.
* :func:`unitizing_alpha` — α_u of Krippendorff (1995, "On the reliability of
  unitizing continuous data"; 2004, §12.4), for where annotators put units on a
  continuum (mention boundaries on the tokens of a text). It follows DKPro Agreement's
  ``KrippendorffAlphaUnitizingAgreement`` term by term, so that the two agree.

Set distances (values are frozensets):

* :func:`passonneau_distance` — 0 for equal sets, 1/3 when one contains the other, 2/3
  when they intersect otherwise, 1 when they are disjoint (Passonneau 2004).
* :func:`masi_distance` — 1 − J·M, J the Jaccard coefficient and M the monotonicity
  weight 1, 2/3, 1/3, 0 for the four cases above (Passonneau 2006, "Measuring agreement
  on set-valued items (MASI) for semantic and pragmatic annotation"); NLTK's
  ``masi_distance`` computes the same.
* :func:`dkpro_masi_distance` — (1 − J)·δ_Passonneau, which DKPro Agreement implements
  under the name MASI (``MASISetAnnotationDistanceFunction``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple
from fractions import Fraction

#: a distance between two values, in [0, 1] for the ones defined here
Distance = Callable[[Any, Any], Fraction]

_THIRD = Fraction(1, 3)


def nominal_distance(a: Hashable, b: Hashable) -> Fraction:
    """0 for equal values, 1 otherwise (Krippendorff's nominal metric)."""
    return Fraction(0) if a == b else Fraction(1)


def _relation(a: frozenset, b: frozenset) -> tuple[int, int, int]:
    """How two sets relate: (intersection size, union size, Passonneau's step 0–3)."""
    common = len(a & b)
    union = len(a) + len(b) - common
    if common == len(a) == len(b):
        step = 0
    elif common == len(a) or common == len(b):
        step = 1
    elif common:
        step = 2
    else:
        step = 3
    return common, union, step


def passonneau_distance(a: frozenset, b: frozenset) -> Fraction:
    """0 equal, 1/3 one contains the other, 2/3 they intersect, 1 disjoint (Passonneau 2004)."""
    return _relation(a, b)[2] * _THIRD


def masi_distance(a: frozenset, b: frozenset) -> Fraction:
    """1 − J·M: Jaccard J weighted by monotonicity M = 1, 2/3, 1/3, 0 (Passonneau 2006)."""
    common, union, step = _relation(a, b)
    if union == 0:
        return Fraction(0)
    return 1 - Fraction(common, union) * (3 - step) * _THIRD


def dkpro_masi_distance(a: frozenset, b: frozenset) -> Fraction:
    """(1 − J) · δ_Passonneau: what DKPro Agreement calls MASI."""
    common, union, step = _relation(a, b)
    if union == 0:
        return Fraction(0)
    return (1 - Fraction(common, union)) * step * _THIRD


#: the distances by the names the command line and the API use
DISTANCES: dict[str, Distance] = {
    "passonneau": passonneau_distance,
    "masi": masi_distance,
    "dkpro-masi": dkpro_masi_distance,
    "nominal": nominal_distance,
}


@dataclass(frozen=True)
class Alpha:
    """Krippendorff's α with what it is made of."""

    observed: Fraction  #: D_o
    expected: Fraction  #: D_e
    #: pairable values (n): values of units that at least two annotators coded
    values: int
    units: int  #: pairable units
    missing: int = 0  #: values absent from units that some annotator coded

    @property
    def value(self) -> Fraction:
        """1 − D_o/D_e; 1 when nothing varies at all (D_e = 0 and D_o = 0), as DKPro
        Agreement gives; 0 when there is no pairable value."""
        if not self.values:
            return Fraction(0)
        if self.expected == 0:
            return Fraction(1) if self.observed == 0 else Fraction(0)
        return 1 - self.observed / self.expected


def coincidences(units: Iterable[Sequence[Hashable | None]]) -> tuple[dict, int, int]:
    """The value coincidence matrix {(c, k): o_ck} of pairable units, with the number of
    pairable units and of missing values in all units."""
    matrix: dict[tuple, Fraction] = defaultdict(Fraction)
    pairable = missing = 0
    for row in units:
        values = [v for v in row if v is not None]
        m = len(values)
        missing += len(row) - m
        if m < 2:
            continue
        pairable += 1
        weight = Fraction(1, m - 1)
        for i, c in enumerate(values):
            for j, k in enumerate(values):
                if i != j:
                    matrix[c, k] += weight
    return matrix, pairable, missing


def alpha(units: Iterable[Sequence[Hashable | None]], distance: Distance = nominal_distance) -> Alpha:
    """Krippendorff's α of ``units`` (rows of values, one per annotator, ``None`` missing)."""
    matrix, pairable, missing = coincidences(units)
    marginals: dict[Hashable, Fraction] = defaultdict(Fraction)
    observed = Fraction(0)
    for (c, k), o in matrix.items():
        marginals[c] += o
        if c != k:
            observed += o * distance(c, k)
    n = sum(marginals.values(), Fraction(0))
    if n < 2:
        return Alpha(Fraction(0), Fraction(0), int(n), pairable, missing)
    expected = sum((n_c * n_k * distance(c, k) for c, n_c in marginals.items()
                    for k, n_k in marginals.items() if c != k), Fraction(0))
    return Alpha(observed / n, expected / (n * (n - 1)), int(n), pairable, missing)


@dataclass(frozen=True)
class SetAlphaParts:
    """What :func:`set_alpha` sums, for a group of units whose values share no element
    with those of other groups (a document's markables): groups add up to the α of all
    their units (:func:`combine`)."""

    observed: Fraction  #: D_o · n
    values: int  #: n
    squares: int  #: Σ n_c²
    shared: Fraction  #: Σ over ordered pairs of distinct values sharing an element of n_c n_k (1 − δ)
    units: int
    missing: int


def set_alpha_parts(units: Iterable[Sequence[frozenset | None]], distance: Distance) -> SetAlphaParts:
    """The parts of :func:`set_alpha` for one group of units: its values numbered (a
    chain's set is one object per annotator, and equal sets get one number), then
    :func:`numbered_set_alpha_parts`."""
    number_of_object: dict[int, int] = {}
    number_of_set: dict[frozenset, int] = {}
    sets: list[frozenset] = []
    rows: list[list[int | None]] = []
    for row in units:
        numbers: list[int | None] = []
        for v in row:
            if v is None:
                numbers.append(None)
                continue
            found = number_of_object.get(id(v))
            if found is None:
                found = number_of_set.get(v)
                if found is None:
                    found = number_of_set[v] = len(sets)
                    sets.append(v)
                number_of_object[id(v)] = found
            numbers.append(found)
        rows.append(numbers)
    return numbered_set_alpha_parts(rows, sets, distance)


def numbered_set_alpha_parts(rows: Iterable[Sequence[int | None]], sets: Sequence[frozenset],
                             distance: Distance) -> SetAlphaParts:
    """The parts of :func:`set_alpha` for units whose values are numbers into ``sets``
    (distinct numbers must stand for distinct non-empty sets). The loop over units
    compares and counts small integers; each distinct pair of values is measured once,
    at the end."""
    if any(not value for value in sets):
        raise ValueError("set_alpha takes non-empty sets (an empty set is inside every set)")
    marginals = [0] * len(sets)
    #: (m, i, j) → how often values numbered i < j meet in units of m values
    meetings: dict[tuple[int, int, int], int] = defaultdict(int)
    pairable = missing = 0
    for numbers in rows:
        present = [i for i in numbers if i is not None]
        m = len(present)
        missing += len(numbers) - m
        if m < 2:
            continue
        pairable += 1
        for i in present:
            marginals[i] += 1
        first = present[0]
        if all(i == first for i in present):
            continue
        for a, i in enumerate(present):
            for j in present[a + 1:]:
                if i != j:
                    meetings[m, min(i, j), max(i, j)] += 1
    measured: dict[tuple[int, int], Fraction] = {}

    def delta(i: int, j: int) -> Fraction:
        found = measured.get((i, j))
        if found is None:
            found = measured[i, j] = distance(sets[i], sets[j])
        return found

    by_size: dict[int, Fraction] = defaultdict(Fraction)
    for (m, i, j), times in meetings.items():
        by_size[m] += times * delta(i, j)
    observed = sum((2 * total / (m - 1) for m, total in by_size.items()), Fraction(0))
    # pairs of distinct values that share an element, each once (i < j), counted twice
    holding: dict[Hashable, list[int]] = defaultdict(list)
    for i, value in enumerate(sets):
        if marginals[i]:
            for element in value:
                holding[element].append(i)
    pairs: set[tuple[int, int]] = set()
    for sharing in holding.values():
        if len(sharing) > 1:
            pairs.update((i, j) for a, i in enumerate(sharing) for j in sharing[a + 1:])
    shared = sum((2 * marginals[i] * marginals[j] * (1 - delta(i, j)) for i, j in pairs), Fraction(0))
    return SetAlphaParts(observed, sum(marginals), sum(m * m for m in marginals), shared, pairable, missing)


def combine(parts: Iterable[SetAlphaParts]) -> Alpha:
    """α of the units of several groups, from their parts."""
    parts = list(parts)
    n = sum(p.values for p in parts)
    pairable = sum(p.units for p in parts)
    missing = sum(p.missing for p in parts)
    if n < 2:
        return Alpha(Fraction(0), Fraction(0), n, pairable, missing)
    observed = sum((p.observed for p in parts), Fraction(0))
    expected = n * n - sum(p.squares for p in parts) - sum((p.shared for p in parts), Fraction(0))
    return Alpha(observed / n, expected / (n * (n - 1)), n, pairable, missing)


def set_alpha(units: Iterable[Sequence[frozenset | None]], distance: Distance) -> Alpha:
    """:func:`alpha` for values that are non-empty sets, without the coincidence matrix
    and without comparing every pair of distinct values.

    * A value's marginal n_c is the number of times it occurs in pairable units (each
      occurrence adds (m − 1) · 1/(m − 1) to its row), so D_o·n is the sum over units of
      Σ_{i≠j} δ(v_i, v_j) / (m − 1), which is 0 for the (many) units where all annotators
      agree.
    * With the three set distances above, two disjoint non-empty sets are at distance 1,
      so D_e·n(n − 1) starts from Σ_{c≠k} n_c n_k = n² − Σ n_c², and only the pairs of
      values that share an element are compared one by one (a markable lies in at most
      one chain of each annotator: few pairs).

    The result is exactly :func:`alpha`'s (tested).
    """
    return combine([set_alpha_parts(units, distance)])


# --- unitizing α (α_u) ---------------------------------------------------------------

class Unit(NamedTuple):
    """A unit on the continuum: [begin, begin + length), coded ``category`` by ``annotator``."""

    begin: int
    length: int
    annotator: int
    category: Hashable


def _section_distance(a: tuple[int, int, bool], b: tuple[int, int, bool]) -> int:
    """Krippendorff's δ between two overlapping sections: squared differences of the
    starts and of the ends for two units; a unit's squared length when it lies inside
    the other annotator's gap; 0 otherwise."""
    (b1, l1, u1), (b2, l2, u2) = a, b
    if u1 and u2:
        return (b1 - b2) ** 2 + (b1 + l1 - b2 - l2) ** 2
    if u1 and not u2 and b1 >= b2 and b1 + l1 <= b2 + l2:
        return l1 * l1
    if u2 and not u1 and b2 >= b1 and b2 + l2 <= b1 + l1:
        return l2 * l2
    return 0


@dataclass(frozen=True)
class UnitizingAlpha:
    """α_u with its per-category disagreements."""

    observed: Fraction  #: mean over categories of D_o
    expected: Fraction  #: mean over categories of D_e
    by_category: dict  #: category → (D_o, D_e)

    @property
    def value(self) -> Fraction:
        if self.expected == 0:
            return Fraction(1) if self.observed == 0 else Fraction(0)
        return 1 - self.observed / self.expected

    def category_value(self, category: Hashable) -> Fraction:
        observed, expected = self.by_category[category]
        if observed == expected:
            return Fraction(1) if expected == 0 else Fraction(0)
        return 1 - observed / expected


def unitizing_alpha(units: Iterable[Unit], annotators: int, begin: int, length: int) -> UnitizingAlpha:
    """Krippendorff's α_u of ``units`` on the continuum [begin, begin + length) coded by
    ``annotators`` annotators (numbered 0…). An annotator's units of one category must
    not overlap (nested mentions are measured one nesting depth at a time by
    :mod:`corefio.agreement`)."""
    grouped: dict[Hashable, list[list[tuple[int, int]]]] = {}
    for u in units:
        if u.category not in grouped:
            grouped[u.category] = [[] for _ in range(annotators)]
        grouped[u.category][u.annotator].append((u.begin, u.length))
    for lists in grouped.values():
        for spans in lists:
            spans.sort()
    return grouped_unitizing_alpha(grouped, annotators, begin, length)


def grouped_unitizing_alpha(grouped: dict[Hashable, list[list[tuple[int, int]]]], annotators: int, begin: int,
                            length: int) -> UnitizingAlpha:
    """:func:`unitizing_alpha` of units already grouped: category → for each annotator,
    its (begin, length) units of that category in order."""
    end = begin + length
    found: dict[Hashable, tuple[Fraction, Fraction]] = {}
    r = annotators
    for category, own in grouped.items():
        tilings = [_tiling(own[a], begin, end) for a in range(r)]
        observed = 0
        for a in range(r):
            for b in range(a + 1, r):
                observed += _overlapping_distance(tilings[a], tilings[b])
        d_o = Fraction(2 * observed, r * (r - 1) * length * length) if r > 1 and length else Fraction(0)
        lengths = [ln for spans in own for _, ln in spans]
        gaps = sorted(ln for tiling in tilings for (_, ln, is_unit) in tiling if not is_unit)
        # Σ over gaps g ≥ l of (g − l + 1) = (sum of those gaps) − (their number)·(l − 1):
        # suffix sums of the sorted gaps answer it for any l in one bisection
        suffix = [0] * (len(gaps) + 1)
        for i in range(len(gaps) - 1, -1, -1):
            suffix[i] = suffix[i + 1] + gaps[i]
        n_c = len(lengths)
        cubic = 0
        room = 0
        for ln in lengths:
            cubic += 2 * ln ** 3 - 3 * ln ** 2 + ln
            at = bisect_left(gaps, ln)
            room += ln * ln * (suffix[at] - (len(gaps) - at) * (ln - 1))
        total = Fraction((n_c - 1) * cubic, 3) + room
        squares = sum(ln * (ln - 1) for ln in lengths)
        denominator = r * length * (r * length - 1) - squares
        d_e = total * 2 / length / denominator if length and denominator else Fraction(0)
        found[category] = (d_o, d_e)
    if not found:
        return UnitizingAlpha(Fraction(0), Fraction(0), {})
    count = len(found)
    return UnitizingAlpha(sum((o for o, _ in found.values()), Fraction(0)) / count,
                          sum((e for _, e in found.values()), Fraction(0)) / count, found)


def _tiling(spans: list[tuple[int, int]], begin: int, end: int) -> list[tuple[int, int, bool]]:
    """One annotator's units of one category (in order) and the gaps between them,
    tiling [begin, end): (begin, length, is_unit)."""
    out: list[tuple[int, int, bool]] = []
    at = begin
    for first, ln in spans:
        if first > at:
            out.append((at, first - at, False))
        out.append((first, ln, True))
        at = first + ln
    if at < end:
        out.append((at, end - at, False))
    return out


def _overlapping_distance(one: list[tuple[int, int, bool]], other: list[tuple[int, int, bool]]) -> int:
    """Σ δ over every pair of sections of two tilings that overlap (a merge of the two)."""
    total = 0
    i = j = 0
    while i < len(one) and j < len(other):
        a, b = one[i], other[j]
        total += _section_distance(a, b)
        end_a, end_b = a[0] + a[1], b[0] + b[1]
        if end_a <= end_b:
            i += 1
        if end_b <= end_a:
            j += 1
    return total
