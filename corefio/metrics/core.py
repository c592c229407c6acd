"""Core classes C and exclusive core classes XC (Popescu-Belis 2000; seed 000 §3.5)."""

from __future__ import annotations

from .base import Score
from ._table import as_table


def core_class(key, response=None) -> Score:
    """Core-class measure C (seed 000 DEF.11-14), on DEF.19-extended partitions.

    CRS = (Σ_K |c(K)| − |P_K|) / (|E| − |P_K|), c(K) the largest projection of K on the
    response; CPS likewise. With a zero denominator the value is 1 (the seed's
    convention: no coreference to find, hence no error).
    """
    t = as_table(key, response).extended()
    best_k = [0] * len(t.key_sizes)
    best_r = [0] * len(t.response_sizes)
    for (i, j), n in t.cells.items():
        if n > best_k[i]:
            best_k[i] = n
        if n > best_r[j]:
            best_r[j] = n
    e = t.n_key
    nk = sum(1 for s in t.key_sizes if s)
    nr = sum(1 for s in t.response_sizes if s)
    return Score(sum(best_k) - nk, e - nk, sum(best_r) - nr, e - nr, empty=1)


def exclusive_core(key, response=None) -> Score:
    """Exclusive core classes XC (seed 000 §3.5.4), on DEF.19-extended partitions.

    Key classes, largest first (ties in text order), each take the still-free response
    class holding most of their mentions (ties: the earlier class); a key class with
    no free overlapping class takes none. Recall = REs in their exclusive core / |E|;
    precision = 1 − (REs of assigned response classes outside their key class) / |E|,
    i.e. (|E| − errors)/|E|. Reproduces XRS 53, XPS 59 of seed 000 Table 3.
    """
    t = as_table(key, response).extended()
    by_key: dict[int, list[tuple[int, int]]] = {}
    for (i, j), n in t.cells.items():
        by_key.setdefault(i, []).append((j, n))
    taken: set[int] = set()
    correct = errors = 0
    for i in sorted(range(len(t.key_sizes)), key=lambda i: (-t.key_sizes[i], i)):
        options = [(n, -j, j) for j, n in by_key.get(i, ()) if j not in taken]
        if not options:
            continue
        n, _, j = max(options)
        taken.add(j)
        correct += n
        errors += t.response_sizes[j] - n
    e = t.n_key
    return Score(correct, e, e - errors, e, empty=1)
