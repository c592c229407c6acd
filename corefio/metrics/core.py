"""Core classes C and exclusive core classes XC (Popescu-Belis 2000; seed 000 §3.5)."""

from __future__ import annotations

import numpy as np

from .base import Score
from ._table import as_table


def _largest(index: np.ndarray, counts: np.ndarray, n: int) -> np.ndarray:
    """Per class 0..n-1, the largest count among its cells (0 without cells)."""
    best = np.zeros(n, np.int64)
    np.maximum.at(best, index, counts)
    return best


def core_class(key, response=None) -> Score:
    """Core-class measure C (seed 000 DEF.11-14), on DEF.19-extended partitions.

    CRS = (Σ_K |c(K)| − |P_K|) / (|E| − |P_K|), c(K) the largest projection of K on the
    response; CPS likewise. With a zero denominator the value is 1 (the seed's
    convention: no coreference to find, hence no error).
    """
    t = as_table(key, response).extended()
    rows, cols, vals, ks, rs = t.arrays
    best_k = int(_largest(rows, vals, len(ks)).sum())
    best_r = int(_largest(cols, vals, len(rs)).sum())
    e = t.n_key
    nk, nr = int((ks > 0).sum()), int((rs > 0).sum())
    return Score(best_k - nk, e - nk, best_r - nr, e - nr, empty=1)


def exclusive_core(key, response=None) -> Score:
    """Exclusive core classes XC (seed 000 §3.5.4), on DEF.19-extended partitions.

    Key classes, largest first (ties in text order), each take the still-free response
    class holding most of their mentions (ties: the earlier class); a key class with
    no free overlapping class takes none. Recall = REs in their exclusive core / |E|;
    precision = 1 − (REs of assigned response classes outside their key class) / |E|,
    i.e. (|E| − errors)/|E|. Reproduces XRS 53, XPS 59 of seed 000 Table 3.

    Computed on the table itself, without building the extension: a key class whose
    twinless mentions are its only free options takes one of their singleton classes
    (1 correct, 0 errors); then every response class still free that has twinless
    mentions is taken by the first of their singleton key classes, which come after
    all original classes in the order (1 correct, |R| − 1 errors).
    """
    t = as_table(key, response)
    rows, cols, vals, ks, rs = t.arrays
    twinless_key = (ks - t.key_matched()).tolist()
    twinless_response = (rs - t.response_matched()).tolist()
    by_key: dict[int, list[tuple[int, int]]] = {}
    order = np.lexsort((cols, -vals))  # largest overlap first, then the earlier class
    for i, j, n in zip(rows[order].tolist(), cols[order].tolist(), vals[order].tolist()):
        by_key.setdefault(i, []).append((n, j))
    sizes, r_sizes = ks.tolist(), rs.tolist()
    taken: set[int] = set()
    correct = errors = 0
    for i in sorted(range(len(sizes)), key=lambda i: (-sizes[i], i)):
        for n, j in by_key.get(i, ()):  # an original response class wins ties with the singletons
            if j not in taken:
                taken.add(j)
                correct += n
                errors += r_sizes[j] - n
                break
        else:
            if twinless_key[i]:
                correct += 1  # a singleton class of one of its twinless mentions
    for j, extra in enumerate(twinless_response):
        if extra and j not in taken:  # the first of its twinless mentions' singletons takes it
            correct += 1
            errors += r_sizes[j] - 1
    e = t.n_key + t.n_response - t.matched
    return Score(correct, e, e - errors, e, empty=1)
