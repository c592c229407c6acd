"""B³ and CEAF variants for system mentions (Cai & Strube 2010, seed 001).

Twinless mentions: key mentions the response lacks, response ("system") mentions the
key lacks. Each function takes two partitions (or a contingency table) and follows
the paper's description:

====================  =====================================================================
``b_cubed_0``         drop twinless system mentions; twinless key mentions get recall 0
``b_cubed_all``       keep all; a twinless mention scores 1/|its class| (Stoyanov et al.)
``b_cubed_rn``        drop twinless system mentions that are singletons, then B³_all
``b_cubed_sys``       Algorithm 1 (see :func:`b_cubed_sys`)
``ceaf_orig``         plain CEAF on the two mention sets (Luo 2005)
``ceaf_rn``           drop twinless singleton system mentions, then plain CEAF
``ceaf_sys``          Algorithm 2 (see :func:`ceaf_sys`); φ3 as in the paper, φ4 on request
====================  =====================================================================
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Literal

from .base import Contingency, Score, fraction_sum
from .ceaf import ceaf_entity, ceaf_mention

Partition = list[list[Hashable]]


def _partitions(key, response) -> tuple[Partition, Partition]:
    """Explicit partitions; a contingency table is turned into equivalent ones."""
    if isinstance(key, Contingency):
        t = key
        kp: Partition = [[] for _ in t.key_sizes]
        rp: Partition = [[] for _ in t.response_sizes]
        for (i, j), n in t.cells.items():
            for k in range(n):
                kp[i].append(("m", i, j, k))
                rp[j].append(("m", i, j, k))
        for i, size in enumerate(t.key_sizes):
            kp[i] += [("k", i, k) for k in range(size - len(kp[i]))]
        for j, size in enumerate(t.response_sizes):
            rp[j] += [("r", j, k) for k in range(size - len(rp[j]))]
        return kp, rp
    kp = [list(dict.fromkeys(c)) for c in key]
    rp = [list(dict.fromkeys(c)) for c in response]
    return [c for c in kp if c], [c for c in rp if c]


def _members(p: Partition) -> set:
    return {m for c in p for m in c}


def _b3(counted: Partition, against: Partition, scored: set | None = None) -> tuple:
    """Σ over mentions m of the classes in ``counted`` (only those in ``scored`` if
    given) of |C_m ∩ A_m| / |C_m|, and the number of mentions summed."""
    where = {m: k for k, c in enumerate(against) for m in c}
    pairs, n = [], 0
    for c in counted:
        owners: dict[int, int] = {}
        for m in c:
            k = where.get(m)
            if k is not None:
                owners[k] = owners.get(k, 0) + 1
        for m in c:
            if scored is not None and m not in scored:
                continue
            n += 1
            k = where.get(m)
            pairs.append((owners[k] if k is not None else 0, len(c)))
    return fraction_sum(pairs), n


def b_cubed_0(key, response=None) -> Score:
    """B³_0 (Stoyanov et al. 2009, analysed in seed 001 §2.2.1): twinless system
    mentions are discarded; twinless key mentions get recall 0."""
    kp, rp = _partitions(key, response)
    keys = _members(kp)
    rp = [[m for m in c if m in keys] for c in rp]
    rp = [c for c in rp if c]
    rnum, rden = _b3(kp, rp)
    pnum, pden = _b3(rp, kp)
    return Score(rnum, rden, pnum, pden)


def _with_singletons(p: Partition, extra: Iterable[Hashable]) -> Partition:
    return p + [[m] for m in extra]


def b_cubed_all(key, response=None) -> Score:
    """B³_all (Stoyanov et al. 2009; seed 001 §2.2.1): all mentions kept; a twinless
    mention's score is 1/|its class| (it is compared with itself alone)."""
    kp, rp = _partitions(key, response)
    keys, resps = _members(kp), _members(rp)
    k_ext = _with_singletons(kp, [m for c in rp for m in c if m not in keys])
    r_ext = _with_singletons(rp, [m for c in kp for m in c if m not in resps])
    rnum, rden = _b3(kp, r_ext)
    pnum, pden = _b3(rp, k_ext)
    return Score(rnum, rden, pnum, pden)


def _drop_twinless_singletons(kp: Partition, rp: Partition) -> Partition:
    keys = _members(kp)
    return [c for c in rp if not (len(c) == 1 and c[0] not in keys)]


def b_cubed_rn(key, response=None) -> Score:
    """B³_r&n (Rahman & Ng 2009, as read in seed 001): twinless system mentions that
    are singletons are removed, then B³_all."""
    kp, rp = _partitions(key, response)
    return b_cubed_all(kp, _drop_twinless_singletons(kp, rp))


def _sys_partitions(kp: Partition, rp: Partition):
    """The altered partitions of Algorithms 1-2 of seed 001.

    1. discard singleton twinless system mentions; 2. put twinless key mentions into
    the response as singletons; for precision, put the remaining twinless system
    mentions into the key as singletons; for recall, discard them from the response.
    """
    keys = _members(kp)
    rp = _drop_twinless_singletons(kp, rp)
    resps = _members(rp)
    rp = _with_singletons(rp, [m for c in kp for m in c if m not in resps])
    twinless_sys = [m for c in rp for m in c if m not in keys]
    key_p = _with_singletons(kp, twinless_sys)
    response_p = rp
    response_r = [[m for m in c if m in keys] for c in rp]
    response_r = [c for c in response_r if c]
    return key_p, response_p, kp, response_r


def b_cubed_sys(key, response=None) -> Score:
    """B³_sys, Algorithm 1 of Cai & Strube (seed 001 §2.2.2): B³ precision on
    (key_p, response_p), B³ recall on (key, response_r)."""
    kp, rp = _partitions(key, response)
    key_p, response_p, key_r, response_r = _sys_partitions(kp, rp)
    rnum, rden = _b3(key_r, response_r)
    pnum, pden = _b3(response_p, key_p)
    return Score(rnum, rden, pnum, pden)


Phi = Literal["phi3", "phi4"]


def _ceaf(kp: Partition, rp: Partition, phi: Phi) -> Score:
    table = Contingency.from_partitions(kp, rp)
    return ceaf_mention(table) if phi == "phi3" else ceaf_entity(table)


def ceaf_orig(key, response=None, phi: Phi = "phi3") -> Score:
    """CEAF_orig (Luo 2005, seed 001 §2.3): plain CEAF on the two mention sets."""
    kp, rp = _partitions(key, response)
    return _ceaf(kp, rp, phi)


def ceaf_rn(key, response=None, phi: Phi = "phi3") -> Score:
    """CEAF_r&n (Rahman & Ng 2009, as read in seed 001 §2.3.2): twinless singleton
    system mentions removed, nothing added, then plain CEAF."""
    kp, rp = _partitions(key, response)
    return _ceaf(kp, _drop_twinless_singletons(kp, rp), phi)


def ceaf_sys(key, response=None, phi: Phi = "phi3") -> Score:
    """CEAF_sys, Algorithm 2 of Cai & Strube (seed 001 §2.3.3): precision from the
    alignment of (key_p, response_p), recall from (key, response_r); φ3 as in the
    paper (φ4 gives Table 6's counter-example numbers)."""
    kp, rp = _partitions(key, response)
    key_p, response_p, key_r, response_r = _sys_partitions(kp, rp)
    p = _ceaf(key_p, response_p, phi)
    r = _ceaf(key_r, response_r, phi)
    return Score(r.recall_num, r.recall_den, p.precision_num, p.precision_den)
