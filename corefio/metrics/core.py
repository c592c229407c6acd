"""Core classes C and exclusive core classes XC (Popescu-Belis 2000, §3.5)."""

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
    """Core-class measure C (Popescu-Belis 2000, DEF.11-14), on DEF.19-extended partitions.

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
    """Exclusive core classes XC (Popescu-Belis 2000, §3.5.4), on DEF.19-extended partitions.

    Key classes, largest first (ties in text order), each take the still-free response
    class holding most of their mentions (ties: the earlier class); a key class with
    no free overlapping class takes none. Recall = REs in their exclusive core / |E|;
    precision = 1 − (REs of assigned response classes outside their key class) / |E|,
    i.e. (|E| − errors)/|E|. Reproduces XRS 53, XPS 59 of Popescu-Belis (2000) Table 3.

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
    nk = len(ks)
    # key classes, largest first (ties in class order), and their cells in that order,
    # each class's cells by decreasing overlap, then by response class
    by_size = np.lexsort((np.arange(nk), -ks))
    rank = np.empty(nk, np.int64)
    rank[by_size] = np.arange(nk)
    order = np.lexsort((cols, -vals, rank[rows]))
    cell_cols, cell_vals = cols[order].tolist(), vals[order].tolist()
    bounds = np.searchsorted(rank[rows][order], np.arange(nk + 1)).tolist()
    r_sizes = rs.tolist()
    taken = bytearray(len(rs))
    correct = errors = 0
    for r, i in enumerate(by_size.tolist()):
        for k in range(bounds[r], bounds[r + 1]):  # an original response class wins ties with the singletons
            j = cell_cols[k]
            if not taken[j]:
                taken[j] = 1
                correct += cell_vals[k]
                errors += r_sizes[j] - cell_vals[k]
                break
        else:
            if twinless_key[i]:
                correct += 1  # a singleton class of one of its twinless mentions
    for j, extra in enumerate(twinless_response):
        if extra and not taken[j]:  # the first of its twinless mentions' singletons takes it
            correct += 1
            errors += r_sizes[j] - 1
    e = t.n_key + t.n_response - t.matched
    return Score(correct, e, e - errors, e, empty=1)
