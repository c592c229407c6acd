"""Information measure H: transmission of referring information (seed 000 §3.6)."""

from __future__ import annotations

import numpy as np

from .base import Value
from ._table import as_table


def _entropy(sizes: np.ndarray, total: int) -> float:
    p = sizes[sizes > 0] / total
    return float(-(p * np.log(p)).sum())


def information(key, response=None) -> tuple[Value, Value]:
    """(HRS, HPS) of seed 000 DEF.15-17 on DEF.19-extended partitions.

    HRS = (H(P_R) − H(P_R|P_K)) / H(P_R), HPS = (H(P_K) − H(P_K|P_R)) / H(P_K): the
    mutual information over each side's entropy; 1 when that entropy is 0.
    Natural logarithms (the base cancels out).
    """
    t = as_table(key, response).extended()
    rows, cols, vals, ks, rs = t.arrays
    e = t.n_key
    if e == 0:
        return Value(1.0), Value(1.0)
    hk = _entropy(ks, e)
    hr = _entropy(rs, e)
    h_k_given_r = float(-(vals / e * np.log(vals / rs[cols])).sum())
    h_r_given_k = float(-(vals / e * np.log(vals / ks[rows])).sum())
    hrs = 1.0 if hr == 0 else max(0.0, (hr - h_r_given_k) / hr)
    hps = 1.0 if hk == 0 else max(0.0, (hk - h_k_given_r) / hk)
    return Value(hrs), Value(hps)
