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
    twinless_key = ks - t.key_matched()
    twinless_response = rs - t.response_matched()
    correct = errors = 0
    # a key class whose response classes overlap no other key class is never blocked:
    # it takes its best one (largest overlap, then the earlier class)
    contested_col = np.bincount(cols, minlength=len(rs)) > 1
    contested_row = np.bincount(rows, weights=contested_col[cols], minlength=len(ks)) > 0
    free = np.flatnonzero(~contested_row[rows])
    if len(free):
        order = free[np.lexsort((cols[free], -vals[free], rows[free]))]
        first = np.ones(len(order), bool)
        first[1:] = rows[order][1:] != rows[order][:-1]
        best = order[first]
        correct += int(vals[best].sum())
        errors += int((rs[cols[best]] - vals[best]).sum())
    taken = np.zeros(len(rs), bool)
    took = np.zeros(len(ks), bool)
    if len(free):
        taken[cols[best]] = True
        took[rows[best]] = True
    # the others, greedily: largest key class first (ties: text order)
    hard = np.flatnonzero(contested_row[rows])
    by_key: dict[int, list[tuple[int, int]]] = {}
    order = hard[np.lexsort((cols[hard], -vals[hard]))]
    for i, j, n in zip(rows[order].tolist(), cols[order].tolist(), vals[order].tolist()):
        by_key.setdefault(i, []).append((n, j))
    sizes = ks.tolist()
    r_sizes = rs.tolist()
    taken_set: set[int] = set()
    took_list: list[int] = []
    for i in sorted(by_key, key=lambda i: (-sizes[i], i)):
        for n, j in by_key[i]:  # largest overlap first, then the earlier class
            if j not in taken_set:
                taken_set.add(j)
                took_list.append(i)
                correct += n
                errors += r_sizes[j] - n
                break
    taken[list(taken_set)] = True
    took[took_list] = True
    # key classes that took nothing: one of their twinless mentions' singleton classes
    correct += int(((twinless_key > 0) & ~took).sum())
    # response classes still free: the first of their twinless mentions' singleton classes
    left = (twinless_response > 0) & ~taken
    correct += int(left.sum())
    errors += int((rs[left] - 1).sum())
    e = t.n_key + t.n_response - t.matched
    return Score(correct, e, e - errors, e, empty=1)
