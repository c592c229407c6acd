"""CEAF: the best one-to-one alignment of key and response entities (Luo 2005)."""

from __future__ import annotations

import numpy as np

from ._assignment import linear_sum_assignment
from .base import Contingency, Score, fraction_sum_arrays
from ._table import as_table


def components(table: Contingency) -> list[list[int]]:
    """Cell indices grouped by connected component of the key/response overlap graph
    (computed once per table and cached on it)."""
    cached = table.__dict__.get("_ceaf_components")
    if cached is not None:
        return cached
    nk = len(table.key_sizes)
    parent = list(range(nk + len(table.response_sizes)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    cells = list(table.cells)
    for i, j in cells:
        a, b = find(i), find(nk + j)
        if a != b:
            parent[a] = b
    by_root: dict[int, list[int]] = {}
    for cell, (i, _) in enumerate(cells):
        by_root.setdefault(find(i), []).append(cell)
    groups = list(by_root.values())
    table.__dict__["_ceaf_components"] = groups
    return groups


def best_alignment(table: Contingency, weights: list[float]) -> list[int]:
    """Cells of a one-to-one key/response alignment maximising the sum of their weights.

    Entities that share no mention can only add 0, so the problem splits into the
    connected components of the overlap graph; a component with one key or one
    response entity picks its best cell, the others go to scipy's assignment solver.
    """
    rows, cols = table.arrays[0].tolist(), table.arrays[1].tolist()
    chosen: list[int] = []
    for group in components(table):
        if len(group) == 1:
            chosen.append(group[0])
            continue
        r = sorted({rows[c] for c in group})
        k = sorted({cols[c] for c in group})
        if len(r) == 1 or len(k) == 1:
            chosen.append(max(group, key=weights.__getitem__))
            continue
        ri = {x: n for n, x in enumerate(r)}
        ci = {x: n for n, x in enumerate(k)}
        matrix = np.zeros((len(r), len(k)))
        cell_of = {}
        for c in group:
            matrix[ri[rows[c]], ci[cols[c]]] = weights[c]
            cell_of[(ri[rows[c]], ci[cols[c]])] = c
        for a, b in zip(*linear_sum_assignment(matrix, maximize=True)):
            c = cell_of.get((int(a), int(b)))
            if c is not None:
                chosen.append(c)
    return chosen


def ceaf_mention(key, response=None) -> Score:
    """CEAFm, mention-based φ3(K, R) = |K ∩ R| (Luo 2005; seed 001 eq. 3, 5-6).

    Numerator: the φ3 total of the best alignment; denominators: mentions of key and
    response.
    """
    t = as_table(key, response)
    vals = t.arrays[2]
    total = int(vals[best_alignment(t, vals.tolist())].sum())
    return Score(total, t.n_key, total, t.n_response)


def ceaf_entity(key, response=None) -> Score:
    """CEAFe, entity-based φ4(K, R) = 2|K ∩ R| / (|K| + |R|) (Luo 2005; seed 001 eq. 4-6).

    Numerator: the φ4 total of the best alignment (exact); denominators: numbers of
    key and response entities.
    """
    t = as_table(key, response)
    rows, cols, vals, ks, rs = t.arrays
    dens = ks[rows] + rs[cols]
    picked = np.asarray(best_alignment(t, (2 * vals / dens).tolist()), np.int64)
    total = fraction_sum_arrays(2 * vals[picked], dens[picked])
    return Score(total, int((ks > 0).sum()), total, int((rs > 0).sum()))
