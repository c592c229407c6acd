"""MUC: missing and spurious links (Vilain et al. 1995)."""

from __future__ import annotations

from .base import Score
from ._table import as_table


def muc(key, response=None) -> Score:
    """MUC link-based recall and precision (Vilain et al. 1995; Bagga & Baldwin 1998; Popescu-Belis 2000, DEF.5-6).

    Recall = Σ_K (|K| − |π(K)|) / Σ_K (|K| − 1), where π(K) is the partition of K by the
    response classes, twinless key mentions counting as singleton parts; precision the
    same with roles swapped. Both numerators equal matched − (non-empty cells). As in
    scorer.pl, a zero denominator gives 0 (Popescu-Belis 2000 sets MRS = 1 instead). Precision
    comes from the table's :attr:`~corefio.metrics.base.Contingency.precision_table`.
    """
    t = as_table(key, response)
    p = t.precision_table
    ks, rs = t.key_sizes, p.response_sizes
    return Score(t.matched - len(t.counts), int((ks[ks > 0] - 1).sum()), p.matched - len(p.counts),
                 int((rs[rs > 0] - 1).sum()))
