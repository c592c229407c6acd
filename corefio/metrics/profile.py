"""What the measures of Popescu-Belis (2000) §3.6-3.7 (H, DMT, D-err) read of a contingency table,
in a form that adds up over documents.

H, DMT and D-err of a corpus are those of the corpus seen as one document (the
disjoint union of its documents' tables). They do not need the union table itself:
on the DEF.19-extended partitions, DMT and D-err read only the class sizes (how many
classes of each size, on each side), and H reads entropies, which are sums over
classes and cells. A :class:`Profile` keeps those: two size histograms and four sums,
so its memory depends on the largest class, not on the number of documents.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ._table import as_table


def _histogram(sizes: np.ndarray) -> np.ndarray:
    """How many classes of each size (index = size; size 0 dropped)."""
    if not len(sizes):
        return np.zeros(1, np.int64)
    counts = np.bincount(sizes, minlength=1).astype(np.int64)
    counts[0] = 0
    return counts


def _add_histograms(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if len(a) < len(b):
        a, b = b, a
    out = a.copy()
    out[: len(b)] += b
    return out


def _xlogx(histogram: np.ndarray) -> float:
    """Σ over classes of s·ln(s), from a size histogram."""
    sizes = np.arange(len(histogram), dtype=np.float64)
    nonzero = histogram > 0
    nonzero[0] = False
    return float((histogram[nonzero] * sizes[nonzero] * np.log(sizes[nonzero])).sum())


@dataclass(frozen=True)
class Profile:
    """Extended partitions reduced to what H, DMT and D-err need; ``+`` joins documents.

    * ``key_sizes`` / ``response_sizes``: histograms of class sizes (index = size);
    * ``mentions``: |E|;
    * ``cell_sizes``: histogram of the non-empty cells' counts.

    All three histograms are integers, so profiles add up exactly, in any order: the
    entropy sums are taken from them at the end (:attr:`key_cross`, :attr:`response_cross`).
    """

    key_sizes: np.ndarray
    response_sizes: np.ndarray
    mentions: int
    cell_sizes: np.ndarray

    @property
    def key_cross(self) -> float:
        """Σ over non-empty cells of n·ln(n / |K|) (n the cell count, K its key class):
        Σ n·ln n − Σ_K |K|·ln |K|, that is −|E|·H(P_R|P_K)."""
        return _xlogx(self.cell_sizes) - _xlogx(self.key_sizes)

    @property
    def response_cross(self) -> float:
        """Σ over non-empty cells of n·ln(n / |R|): −|E|·H(P_K|P_R)."""
        return _xlogx(self.cell_sizes) - _xlogx(self.response_sizes)

    @classmethod
    def of(cls, key, response=None) -> "Profile":
        """The profile of a table (or of two partitions)."""
        t = as_table(key, response).extended()
        rows, cols, vals, ks, rs = t.arrays
        return cls(_histogram(ks), _histogram(rs), t.n_key, _histogram(vals[vals > 0]))

    @classmethod
    def zero(cls) -> "Profile":
        return cls(np.zeros(1, np.int64), np.zeros(1, np.int64), 0, np.zeros(1, np.int64))

    def __add__(self, other: "Profile") -> "Profile":
        return Profile(_add_histograms(self.key_sizes, other.key_sizes),
                       _add_histograms(self.response_sizes, other.response_sizes),
                       self.mentions + other.mentions, _add_histograms(self.cell_sizes, other.cell_sizes))

    def segments(self) -> Iterator[tuple[int, int, int, int]]:
        """The two sorted size profiles (largest class first, the shorter padded with
        zeros) as runs ``(first position, length, key size, response size)``, positions
        from 1: counts only, however many classes there are."""
        def runs(histogram: np.ndarray) -> list[tuple[int, int]]:
            sizes = np.flatnonzero(histogram)[::-1]
            return [(int(size), int(histogram[size])) for size in sizes if size > 0]

        key, response = runs(self.key_sizes), runs(self.response_sizes)
        n_key, n_response = sum(c for _, c in key), sum(c for _, c in response)
        key.append((0, max(n_response - n_key, 0)))
        response.append((0, max(n_key - n_response, 0)))
        position, i, j = 1, 0, 0
        left_k, left_r = key[0][1], response[0][1]
        while i < len(key) and j < len(response):
            if left_k == 0:
                i += 1
                left_k = key[i][1] if i < len(key) else 0
                continue
            if left_r == 0:
                j += 1
                left_r = response[j][1] if j < len(response) else 0
                continue
            length = min(left_k, left_r)
            yield position, length, key[i][0], response[j][0]
            position += length
            left_k -= length
            left_r -= length

    def entropies(self) -> tuple[float, float, float, float, int, int]:
        """(H(P_K), H(P_R), H(P_K|P_R), H(P_R|P_K), classes of K, classes of R), in nats."""
        e = self.mentions
        log_e = math.log(e)
        h_k = log_e - _xlogx(self.key_sizes) / e
        h_r = log_e - _xlogx(self.response_sizes) / e
        return (h_k, h_r, -self.response_cross / e, -self.key_cross / e,
                int(self.key_sizes.sum()), int(self.response_sizes.sum()))


def as_profile(key, response=None) -> Profile:
    """``key`` itself when it is a :class:`Profile`, else the profile of the table or
    of the two partitions."""
    if isinstance(key, Profile):
        if response is not None:
            raise TypeError("give a profile, a contingency table or two partitions")
        return key
    return Profile.of(key, response)
