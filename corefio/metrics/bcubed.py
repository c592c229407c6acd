"""B-cubed, entity-weighted and class-weighted (Bagga & Baldwin 1998)."""

from __future__ import annotations

from .base import Score, fraction_sum_arrays
from ._table import as_table


def b_cubed(key, response=None) -> Score:
    """B³ with equal weight per mention (Bagga & Baldwin 1998; Popescu-Belis 2000, DEF.9).

    Recall = Σ_ij |K_i ∩ R_j|² / |K_i| over |E_K|; precision = Σ_ij |K_i ∩ R_j|² / |R_j|
    over |E_R|. Twinless mentions score 0 (scorer.pl v8.01). Precision comes from the
    table's :attr:`~corefio.metrics.base.Contingency.precision_table`; where a key span
    is in several classes, scorer.pl's numerators differ from the table's by its
    :class:`~corefio.metrics.base.Repeats`.
    """
    t = as_table(key, response)
    rows, _, vals, ks, _ = t.arrays
    p = t.precision_table
    _, cols, pvals, _, rs = p.arrays
    r = t.repeats
    return Score(fraction_sum_arrays(vals * vals, ks[rows]) - r.bcub_recall, t.n_key,
                 fraction_sum_arrays(pvals * pvals, rs[cols]) - r.bcub_precision, p.n_response)


def b_cubed_class(key, response=None) -> Score:
    """B³ with equal weight per class (Bagga & Baldwin 1998, the IR weighting).

    Recall = (1/|P_K|) Σ_i Σ_j |K_i ∩ R_j|² / |K_i|²; precision likewise over response
    classes. This follows the worked example of Bagga & Baldwin (1998) (39/49); DEF.10 of Popescu-Belis (2000)
    prints a 1/|E| factor instead of 1/|P_K|, which the example does not support.
    """
    t = as_table(key, response)
    rows, cols, vals, ks, rs = t.arrays
    squares = vals * vals
    return Score(fraction_sum_arrays(squares, ks[rows] ** 2), int((ks > 0).sum()),
                 fraction_sum_arrays(squares, rs[cols] ** 2), int((rs > 0).sum()))
