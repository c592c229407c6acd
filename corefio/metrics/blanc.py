"""BLANC: the Rand index for coreference (Recasens & Hovy 2011; Luo et al. 2014)."""

from __future__ import annotations

import numpy as np

from .base import BlancScore, Score
from ._table import as_table


def _pairs(a: np.ndarray) -> int:
    """Σ C(a, 2) over an integer array."""
    return int((a * (a - 1) // 2).sum())


def blanc(key, response=None) -> BlancScore:
    """BLANC with the extension of Luo et al. (2014) to differing mention sets, as in
    scorer.pl v8.01.

    Coreference links are the pairs inside a class, non-coreference links the pairs
    across two classes, each side over its own mentions. Correct coreference links:
    Σ C(n_ij, 2); correct non-coreference links: pairs of matched mentions separated in
    both partitions. Recall, precision and F are averaged over the two halves, a half
    being dropped when the *key* has no link of that kind (:class:`BlancScore`).
    scorer.pl counts links as sets of mention id pairs: the response links of a span
    listed more than once that matches no key mention are taken off as it does
    (:class:`~corefio.metrics.base.Repeats`; none of them is a key link). Response links
    are counted on the table's
    :attr:`~corefio.metrics.base.Contingency.precision_table` (corefud-scorer's rule).
    """
    t = as_table(key, response)
    rows, cols, vals, ks, rs = t.arrays
    key_coref, nk = _pairs(ks), int(ks.sum())
    listed = t.precision_table.response_sizes  # corefud-scorer's response side
    resp_coref, nr = _pairs(listed), int(listed.sum())
    key_non = (nk * nk - int((ks * ks).sum())) // 2
    resp_non = (nr * nr - int((listed * listed).sum())) // 2
    both_coref = _pairs(vals)
    m = int(vals.sum())
    same_key = _pairs(np.bincount(rows, weights=vals, minlength=len(ks)).astype(np.int64))
    same_resp = _pairs(np.bincount(cols, weights=vals, minlength=len(rs)).astype(np.int64))
    both_non = m * (m - 1) // 2 - same_key - same_resp + both_coref
    resp_coref -= t.repeats.coref
    resp_non -= t.repeats.non_coref
    return BlancScore(Score(both_coref, key_coref, both_coref, resp_coref),
                      Score(both_non, key_non, both_non, resp_non))
