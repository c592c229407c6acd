"""Information measure H: transmission of referring information (Popescu-Belis 2000, §3.6)."""

from __future__ import annotations

from .base import Value
from .profile import as_profile


def information(key, response=None) -> tuple[Value, Value]:
    """(HRS, HPS) of Popescu-Belis (2000) DEF.15-17 on DEF.19-extended partitions.

    HRS = (H(P_R) − H(P_R|P_K)) / H(P_R), HPS = (H(P_K) − H(P_K|P_R)) / H(P_K): the
    mutual information over each side's entropy; 1 when that entropy is 0 (one class,
    or no mention). Natural logarithms (the base cancels out). Takes a table, two
    partitions or a :class:`~corefio.metrics.profile.Profile` (a corpus's).
    """
    profile = as_profile(key, response)
    if profile.mentions == 0:
        return Value(1.0), Value(1.0)
    hk, hr, hk_given_r, hr_given_k, classes_k, classes_r = profile.entropies()
    hrs = 1.0 if classes_r <= 1 else max(0.0, (hr - hr_given_k) / hr)
    hps = 1.0 if classes_k <= 1 else max(0.0, (hk - hk_given_r) / hk)
    return Value(hrs), Value(hps)
