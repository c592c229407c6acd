"""MUC: missing and spurious links (Vilain et al. 1995)."""

from __future__ import annotations

from .base import Score
from ._table import as_table


def muc(key, response=None) -> Score:
    """MUC link-based recall and precision (Vilain et al. 1995; seed 002; seed 000 DEF.5-6).

    Recall = Σ_K (|K| − |π(K)|) / Σ_K (|K| − 1), where π(K) is the partition of K by the
    response classes, twinless key mentions counting as singleton parts; precision the
    same with roles swapped. Both numerators equal matched − (non-empty cells). As in
    scorer.pl, a zero denominator gives 0 (seed 000 sets MRS = 1 instead).
    """
    t = as_table(key, response)
    correct = t.matched - len(t.counts)
    ks, rs = t.key_sizes, t.response_sizes
    return Score(correct, int((ks[ks > 0] - 1).sum()), correct, int((rs[rs > 0] - 1).sum()))
