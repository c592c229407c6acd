"""CEAF: the best one-to-one alignment of key and response entities (Luo 2005)."""

from __future__ import annotations

import itertools

import numpy as np

from ._assignment import linear_sum_assignment
from .base import Contingency, Score, fraction_sum_arrays
from ._table import as_table


def _leaves_pruned(rows: np.ndarray, cols: np.ndarray, weights: np.ndarray, nk: int, nr: int) -> np.ndarray:
    """Cells that may matter for the best alignment (a boolean mask).

    Entities on one side that overlap a single entity X of the other side are
    interchangeable partners of X: at most one of them can be aligned with X, so only
    the heaviest is kept (the DEF.19 extension adds many such one-mention entities)."""
    keep = np.ones(len(rows), bool)
    for own, other, n_own in ((cols, rows, nr), (rows, cols, nk)):
        degree = np.bincount(own[keep], minlength=n_own)
        leaf = np.flatnonzero(keep & (degree[own] == 1))
        if len(leaf) < 2:
            continue
        order = leaf[np.lexsort((-weights[leaf], other[leaf]))]  # by partner, heaviest first
        repeat = np.zeros(len(order), bool)
        repeat[1:] = other[order][1:] == other[order][:-1]
        keep[order[repeat]] = False
    return keep


def component_labels(rows: np.ndarray, cols: np.ndarray, nk: int, nr: int) -> np.ndarray:
    """For each cell, a label of its connected component in the key/response overlap
    graph (hooking and pointer jumping over whole arrays). scipy.sparse.csgraph does
    this too, but importing it takes 0.24 s, a quarter of scoring a 270,000-token corpus."""
    parent = np.arange(nk + nr)
    u, v = rows, cols + nk
    while True:
        pu, pv = parent[u], parent[v]
        differ = pu != pv
        if not differ.any():
            return pu
        pu, pv = pu[differ], pv[differ]
        low = np.minimum(pu, pv)
        np.minimum.at(parent, pu, low)
        np.minimum.at(parent, pv, low)
        while True:
            jumped = parent[parent]
            if np.array_equal(jumped, parent):
                break
            parent = jumped


#: components with at most this many entities on either side are solved by trying every
#: pairing, all components of one size at once (numpy): 2x2 to 4x4 components are most of
#: them (in the benchmark corpus, 1,041 of 1,365), and one solver call and its matrix
#: each took a third of CEAF's time (the CEAF metrics of ``-m all``: 0.12 s, was 0.18 s)
SMALL = 4
_PERMUTATIONS = {n: np.array(list(itertools.permutations(range(n))), np.int64) for n in range(2, SMALL + 1)}


def _local_numbers(component: np.ndarray, ids: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Entity ids renumbered 0, 1, ... within each component (cells sorted by
    component, ``starts`` where each begins), and each component's count of them."""
    dense = np.unique(component * (int(ids.max()) + 1) + ids, return_inverse=True)[1].reshape(-1)
    first = np.minimum.reduceat(dense, starts)
    local = dense - np.repeat(first, np.diff(np.append(starts, len(ids))))
    return local, np.maximum.reduceat(dense, starts) - first + 1


def _solve_small(n: int, size: int, position: np.ndarray, local_rows: np.ndarray, local_cols: np.ndarray,
                 weights: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """The cells of the best pairing in each of ``n`` components of at most ``size``
    entities a side (padded to size x size with empty pairs): every pairing of rows
    with columns is tried, the first best kept."""
    matrix = np.zeros((n, size, size))
    matrix[position, local_rows, local_cols] = weights
    cell_at = np.full((n, size, size), -1)
    cell_at[position, local_rows, local_cols] = cells
    permutations = _PERMUTATIONS[size]
    diagonal = np.arange(size)
    best = matrix[:, diagonal, permutations].sum(axis=2).argmax(axis=1)
    found = cell_at[np.arange(n)[:, None], diagonal, permutations[best]].reshape(-1)
    return found[found >= 0]


def best_alignment(table: Contingency, weights: np.ndarray) -> np.ndarray:
    """Cells of a one-to-one key/response alignment maximising the sum of their weights.

    Entities that share no mention can only add 0, so the problem splits into the
    connected components of the overlap graph; a component with one key or one
    response entity picks its best cell, the others go to scipy's assignment solver.
    """
    nk, nr = len(table.key_sizes), len(table.response_sizes)
    cells = np.flatnonzero(_leaves_pruned(table.rows, table.cols, weights, nk, nr))
    rows, cols, w = table.rows[cells], table.cols[cells], weights[cells]
    if not len(cells):
        return cells
    labels = component_labels(rows, cols, nk, nr)
    # distinct key and response entities per component
    _, label_index = np.unique(labels, return_inverse=True)
    n_labels = int(label_index.max()) + 1
    distinct_rows = np.bincount(label_index[np.unique(label_index * nk + rows, return_index=True)[1]],
                                minlength=n_labels)
    distinct_cols = np.bincount(label_index[np.unique(label_index * nr + cols, return_index=True)[1]],
                                minlength=n_labels)
    simple = (distinct_rows == 1) | (distinct_cols == 1)
    # simple components: their heaviest cell
    in_simple = np.flatnonzero(simple[label_index])
    order = in_simple[np.lexsort((-w[in_simple], label_index[in_simple]))]
    first = np.ones(len(order), bool)
    first[1:] = label_index[order][1:] != label_index[order][:-1]
    chosen = [order[first]]
    # the others: entities numbered from 0 within their component; components of up to
    # SMALL entities a side, most of them, are solved all at once, the rest one by one
    rest = np.flatnonzero(~simple[label_index])
    if len(rest):
        rest = rest[np.argsort(label_index[rest], kind="stable")]
        component = label_index[rest]
        starts = np.flatnonzero(np.diff(component, prepend=-1))
        local_rows, heights = _local_numbers(component, rows[rest], starts)
        local_cols, widths = _local_numbers(component, cols[rest], starts)
        sides = np.maximum(heights, widths)
        which = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(rest))))
        for size in range(2, SMALL + 1):
            group = np.flatnonzero(sides == size)
            if len(group):
                mine = np.flatnonzero(sides[which] == size)
                position = np.zeros(len(starts), np.int64)
                position[group] = np.arange(len(group))
                chosen.append(_solve_small(len(group), size, position[which[mine]], local_rows[mine],
                                           local_cols[mine], w[rest[mine]], rest[mine]))
        bounds = starts.tolist() + [len(rest)]
        large = np.flatnonzero(sides > SMALL).tolist()
        picked = []
        for k in large:
            start, end, height, width = bounds[k], bounds[k + 1], int(heights[k]), int(widths[k])
            r, c = local_rows[start:end], local_cols[start:end]
            matrix = np.zeros((height, width))
            matrix[r, c] = w[rest[start:end]]
            cell_at = np.full((height, width), -1)
            cell_at[r, c] = rest[start:end]
            picked.append(cell_at[linear_sum_assignment(matrix, maximize=True)])
        if picked:
            found = np.concatenate(picked)
            chosen.append(found[found >= 0])  # -1: a pair of entities that share nothing
    return cells[np.concatenate(chosen)]


def ceaf_mention(key, response=None) -> Score:
    """CEAFm, mention-based φ3(K, R) = |K ∩ R| (Luo 2005; Cai & Strube 2010, eq. 3, 5-6).

    Numerator: the φ3 total of the best alignment; denominators: mentions of key and
    response. Computed on the table's
    :attr:`~corefio.metrics.base.Contingency.ceaf_table`.
    """
    t = as_table(key, response).ceaf_table
    cached = t._cache.get("ceafm")
    if cached is None:
        total = t._cells_cache.get("ceafm")  # the alignment depends on the cells only
        if total is None:
            vals = t.counts
            total = t._cells_cache["ceafm"] = int(vals[best_alignment(t, vals)].sum())
        cached = t._cache["ceafm"] = Score(total, t.n_key, total, t.n_response)
    return cached


def ceaf_entity(key, response=None) -> Score:
    """CEAFe, entity-based φ4(K, R) = 2|K ∩ R| / (|K| + |R|) (Luo 2005; Cai & Strube 2010, eq. 4-6).

    Numerator: the φ4 total of the best alignment (exact); denominators: numbers of
    key and response entities. Computed on the table's
    :attr:`~corefio.metrics.base.Contingency.ceaf_table`.
    """
    t = as_table(key, response).ceaf_table
    cached = t._cache.get("ceafe")
    if cached is None:
        rows, cols, vals, ks, rs = t.arrays
        dens = ks[rows] + rs[cols]
        picked = best_alignment(t, 2 * vals / dens)
        total = fraction_sum_arrays(2 * vals[picked], dens[picked])
        cached = t._cache["ceafe"] = Score(total, int((ks > 0).sum()), total, int((rs > 0).sum()))
    return cached
