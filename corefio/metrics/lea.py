"""LEA: link-based entity-aware evaluation (Moosavi & Strube 2016)."""

from __future__ import annotations

import numpy as np

from .base import Number, Score, fraction_sum_arrays
from ._table import as_table


def _resolution(sizes: np.ndarray, other: np.ndarray, own: np.ndarray, theirs: np.ndarray,
                vals: np.ndarray) -> Number:
    """Σ_e |e|·resolution(e), resolution(e) = Σ_f links(e ∩ f) / links(e) with
    links(n) = n(n−1)/2; a one-mention e has one "self link", resolved when its mention
    is also alone on the other side (coval's definition)."""
    common = np.bincount(own, weights=vals * (vals - 1) // 2, minlength=len(sizes)).astype(np.int64)
    big = sizes > 1
    # |e|·common/links(e) = 2·common/(|e|−1)
    total = fraction_sum_arrays(2 * common[big], sizes[big] - 1)
    alone = (vals == 1) & (sizes[own] == 1) & (other[theirs] == 1)
    return total + int(alone.sum())


def lea(key, response=None) -> Score:
    """LEA recall and precision (Moosavi & Strube 2016; numbers as coval's lea).

    Recall = Σ_K |K|·(Σ_R links(K ∩ R) / links(K)) / Σ_K |K|, links(n) = n(n−1)/2;
    precision with roles swapped, from the table's
    :attr:`~corefio.metrics.base.Contingency.precision_table`, whose response sizes (each
    listing of a span, corefud-scorer's rule) also tell whether a key singleton's
    response entity is one too.
    """
    t = as_table(key, response)
    p = t.precision_table
    rows, cols, vals, ks, _ = t.arrays
    p_rows, p_cols, p_vals, p_ks, p_rs = p.arrays
    return Score(_resolution(ks, p_rs, rows, cols, vals), t.n_key,
                 _resolution(p_rs, p_ks, p_cols, p_rows, p_vals), p.n_response)
