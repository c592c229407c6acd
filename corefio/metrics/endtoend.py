"""B³ and CEAF variants for system mentions (Cai & Strube 2010).

Twinless mentions: key mentions the response lacks, response ("system") mentions the
key lacks. In the contingency table, key class ``K_i`` has ``tk_i = |K_i| − Σ_j n_ij``
twinless mentions and response class ``R_j`` has ``tr_j = |R_j| − Σ_i n_ij``. Each
variant of the paper alters the two partitions and then scores them; the alterations
are expressed here on the table, so no partition is rebuilt:

====================  =====================================================================
``b_cubed_0``         drop twinless system mentions; twinless key mentions get recall 0
``b_cubed_all``       keep all; a twinless mention scores 1/|its class| (Stoyanov et al.)
``b_cubed_rn``        drop twinless system mentions that are singletons, then B³_all
``b_cubed_sys``       Algorithm 1 (see :func:`b_cubed_sys`)
``ceaf_orig``         plain CEAF on the two mention sets (Luo 2005)
``ceaf_rn``           drop twinless singleton system mentions, then plain CEAF
``ceaf_sys``          Algorithm 2 (see :func:`ceaf_sys`); φ3 as in the paper, φ4 on request
====================  =====================================================================

The test suite checks every variant against a direct implementation that builds the
altered partitions mention by mention.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from .base import Contingency, Score, fraction_sum_arrays
from .ceaf import ceaf_entity, ceaf_mention
from ._table import as_table


def _parts(t: Contingency):
    rows, cols, vals, ks, rs = t.arrays
    squares = vals * vals
    twinless_key = ks - t.key_matched()
    twinless_response = rs - t.response_matched()
    return rows, cols, vals, ks, rs, squares, twinless_key, twinless_response


def _all_recall(ks, rows, squares, twinless_key):
    """B³_all recall numerator: Σ n_ij²/|K_i| + Σ tk_i/|K_i| (a twinless key mention
    sits alone in its response class)."""
    return (fraction_sum_arrays(squares, ks[rows])
            + fraction_sum_arrays(twinless_key[ks > 0], ks[ks > 0]))


def _kept(rs: np.ndarray, twinless_response: np.ndarray) -> np.ndarray:
    """Response classes that are not a lone twinless system mention."""
    return ~((rs == 1) & (twinless_response == 1))


def b_cubed_0(key, response=None) -> Score:
    """B³_0 (Stoyanov et al. 2009, analysed in Cai & Strube (2010) §2.2.1): twinless system
    mentions are discarded; twinless key mentions get recall 0."""
    t = as_table(key, response)
    rows, cols, vals, ks, rs, squares, _, _ = _parts(t)
    matched_r = t.response_matched()
    return Score(fraction_sum_arrays(squares, ks[rows]), t.n_key,
                 fraction_sum_arrays(squares, matched_r[cols]), t.matched)


def b_cubed_all(key, response=None) -> Score:
    """B³_all (Stoyanov et al. 2009; Cai & Strube 2010, §2.2.1): all mentions kept; a twinless
    mention's score is 1/|its class| (it is compared with itself alone)."""
    t = as_table(key, response)
    rows, cols, vals, ks, rs, squares, tk, tr = _parts(t)
    return Score(_all_recall(ks, rows, squares, tk), t.n_key,
                 _all_recall(rs, cols, squares, tr), t.n_response)


def b_cubed_rn(key, response=None) -> Score:
    """B³_r&n (Rahman & Ng 2009, as read in Cai & Strube (2010)): twinless system mentions that
    are singletons are removed, then B³_all."""
    t = as_table(key, response)
    rs, tr = t.response_sizes, t.response_sizes - t.response_matched()
    return b_cubed_all(t.with_response_sizes(np.where(_kept(rs, tr), rs, 0)))


def b_cubed_sys(key, response=None) -> Score:
    """B³_sys, Algorithm 1 of Cai & Strube (2010, §2.2.2).

    Twinless singleton system mentions are discarded and twinless key mentions added to
    the response as singletons. Recall: against the response without its twinless
    system mentions (= B³_all recall). Precision: the remaining twinless system mentions
    are added to the key as singletons, so each scores 1/|R|, and each added twinless
    key mention scores 1: [Σ n²/|R| + Σ tr/|R| + Σ tk] / (Σ_kept |R| + Σ tk).
    """
    t = as_table(key, response)
    rows, cols, vals, ks, rs, squares, tk, tr = _parts(t)
    keep = _kept(rs, tr) & (rs > 0)
    added = int(tk.sum())
    precision_num = (fraction_sum_arrays(squares, rs[cols])
                     + fraction_sum_arrays(tr[keep], rs[keep]) + added)
    return Score(_all_recall(ks, rows, squares, tk), t.n_key,
                 precision_num, int(rs[keep].sum()) + added)


Phi = Literal["phi3", "phi4"]


def _ceaf(t: Contingency, phi: Phi) -> Score:
    if phi not in ("phi3", "phi4"):
        raise ValueError(f"phi must be 'phi3' or 'phi4', not {phi!r}")
    return ceaf_mention(t) if phi == "phi3" else ceaf_entity(t)


def ceaf_orig(key, response=None, phi: Phi = "phi3") -> Score:
    """CEAF_orig (Luo 2005, Cai & Strube (2010) §2.3): plain CEAF on the two mention sets."""
    return _ceaf(as_table(key, response), phi)


def _without_twinless_singletons(t: Contingency) -> Contingency:
    rs = t.response_sizes
    return t.with_response_sizes(np.where(_kept(rs, rs - t.response_matched()), rs, 0))


def ceaf_rn(key, response=None, phi: Phi = "phi3") -> Score:
    """CEAF_r&n (Rahman & Ng 2009, as read in Cai & Strube (2010) §2.3.2): twinless singleton
    system mentions removed, nothing added, then plain CEAF."""
    return _ceaf(_without_twinless_singletons(as_table(key, response)), phi)


def ceaf_sys(key, response=None, phi: Phi = "phi3") -> Score:
    """CEAF_sys, Algorithm 2 of Cai & Strube (2010, §2.3.3), φ3 as in the paper
    (φ4 gives Table 6's counter-example numbers).

    Twinless singleton system mentions are discarded. Precision: twinless key mentions
    join the response and the remaining twinless system mentions the key, as singletons
    (the DEF.19 extension of what is left). Recall: the response without its twinless
    system mentions, plus the twinless key mentions as singletons.
    """
    t = _without_twinless_singletons(as_table(key, response))
    p = _ceaf(t.extended(), phi)
    r = _ceaf(t.with_response_sizes(t.response_matched()).extended(), phi)
    return Score(r.recall_num, r.recall_den, p.precision_num, p.precision_den)
