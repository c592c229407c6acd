"""Direct, mention-by-mention implementations of the metrics, for checking corefio's
contingency-table code on random partitions. Slow and simple on purpose: each follows
its paper's definition literally (explicit pairs, explicit projections, brute-force
alignments, explicitly altered partitions). Results are (recall, precision) as
Fractions, with the reference scorer's convention that x/0 = 0 unless told otherwise.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from itertools import combinations, zip_longest

Partition = list[list]


def frac(num, den, empty=0) -> Fraction:
    return Fraction(num) / den if den else Fraction(empty)


def mentions(p: Partition) -> set:
    return {m for c in p for m in c}


def class_of(p: Partition) -> dict:
    return {m: k for k, c in enumerate(p) for m in c}


# -- the reference scorer's metrics -------------------------------------------------------
def muc(key: Partition, response: Partition):
    def side(a, b):
        where = class_of(b)
        num = den = 0
        for c in a:
            parts = {where.get(m, ("alone", m)) for m in c}
            num += len(c) - len(parts)
            den += len(c) - 1
        return frac(num, den)

    return side(key, response), side(response, key)


def b_cubed(key: Partition, response: Partition):
    def side(a, b):
        where = class_of(b)
        total = Fraction(0)
        for c in a:
            for m in c:
                if m in where:
                    total += Fraction(len(set(c) & set(b[where[m]])), len(c))
        return frac(total, len(mentions(a)))

    return side(key, response), side(response, key)


def mention_identification(key: Partition, response: Partition):
    found = mentions(key) & mentions(response)
    return frac(len(found), len(mentions(key))), frac(len(found), len(mentions(response)))


def b_cubed_class(key: Partition, response: Partition):
    """Each class weighs 1/|classes|; within a class, each mention 1/|class|."""
    def side(a, b):
        where = class_of(b)
        total = Fraction(0)
        for c in a:
            for m in c:
                if m in where:
                    total += Fraction(len(set(c) & set(b[where[m]])), len(c) * len(c))
        return frac(total, len(a))

    return side(key, response), side(response, key)


def ceaf(key: Partition, response: Partition, phi: str):
    """CEAF with the best alignment found by exhaustive search (memoised over the set of
    response entities already used; entities without overlap are left out)."""
    def sim(k, r):
        common = len(set(k) & set(r))
        return Fraction(common) if phi == "phi3" else Fraction(2 * common, len(k) + len(r))

    options = [{j: sim(k, r) for j, r in enumerate(response) if set(k) & set(r)} for k in key]
    options = [o for o in options if o]

    @lru_cache(maxsize=None)
    def best(i: int, used: int) -> Fraction:
        if i == len(options):
            return Fraction(0)
        value = best(i + 1, used)
        for j, w in options[i].items():
            if not used >> j & 1:
                value = max(value, w + best(i + 1, used | 1 << j))
        return value

    total = best(0, 0)
    if phi == "phi3":
        return frac(total, len(mentions(key))), frac(total, len(mentions(response)))
    return frac(total, len(key)), frac(total, len(response))


def _links(p: Partition) -> tuple[set, set]:
    where = class_of(p)
    coref, non = set(), set()
    for a, b in combinations(sorted(where, key=repr), 2):
        (coref if where[a] == where[b] else non).add(frozenset((a, b)))
    return coref, non


def blanc(key: Partition, response: Partition):
    """(recall, precision, F) as scorer.pl v8.01 combines the two halves."""
    kc, kn = _links(key)
    rc, rn = _links(response)
    halves = []
    for k_links, r_links in ((kc, rc), (kn, rn)):
        if not k_links:
            continue
        correct = len(k_links & r_links)
        r, p = frac(correct, len(k_links)), frac(correct, len(r_links))
        f = 2 * r * p / (r + p) if r + p else Fraction(0)
        halves.append((r, p, f))
    if not halves:
        return Fraction(0), Fraction(0), Fraction(0)
    return tuple(sum((h[i] for h in halves), Fraction(0)) / len(halves) for i in range(3))


def lea(key: Partition, response: Partition):
    def side(a, b):
        num = Fraction(0)
        den = 0
        for c in a:
            if len(c) == 1:
                resolution = Fraction(int(any(len(r) == 1 and r[0] == c[0] for r in b)))
            else:
                links = len(c) * (len(c) - 1) // 2
                common = sum(len(set(c) & set(r)) * (len(set(c) & set(r)) - 1) // 2 for r in b)
                resolution = Fraction(common, links)
            num += len(c) * resolution
            den += len(c)
        return frac(num, den)

    return side(key, response), side(response, key)


# -- end-to-end variants (Cai & Strube 2010), partitions altered explicitly ------------------
def _b3_sum(counted: Partition, against: Partition):
    where = class_of(against)
    total, n = Fraction(0), 0
    for c in counted:
        for m in c:
            n += 1
            if m in where:
                total += Fraction(len(set(c) & set(against[where[m]])), len(c))
    return total, n


def _singletons(ms) -> Partition:
    return [[m] for m in ms]


def b_cubed_0(key, response):
    keys = mentions(key)
    response = [c for c in ([m for m in c if m in keys] for c in response) if c]
    r, rn = _b3_sum(key, response)
    p, pn = _b3_sum(response, key)
    return frac(r, rn), frac(p, pn)


def b_cubed_all(key, response):
    keys, resps = mentions(key), mentions(response)
    k_ext = key + _singletons(m for c in response for m in c if m not in keys)
    r_ext = response + _singletons(m for c in key for m in c if m not in resps)
    r, rn = _b3_sum(key, r_ext)
    p, pn = _b3_sum(response, k_ext)
    return frac(r, rn), frac(p, pn)


def _drop_twinless_singletons(key, response):
    keys = mentions(key)
    return [c for c in response if not (len(c) == 1 and c[0] not in keys)]


def b_cubed_rn(key, response):
    return b_cubed_all(key, _drop_twinless_singletons(key, response))


def _sys(key, response):
    keys = mentions(key)
    response = _drop_twinless_singletons(key, response)
    resps = mentions(response)
    response = response + _singletons(m for c in key for m in c if m not in resps)
    key_p = key + _singletons(m for c in response for m in c if m not in keys)
    response_r = [c for c in ([m for m in c if m in keys] for c in response) if c]
    return key_p, response, key, response_r


def b_cubed_sys(key, response):
    key_p, response_p, key_r, response_r = _sys(key, response)
    r, rn = _b3_sum(key_r, response_r)
    p, pn = _b3_sum(response_p, key_p)
    return frac(r, rn), frac(p, pn)


def ceaf_orig(key, response, phi):
    return ceaf(key, response, phi)


def ceaf_rn(key, response, phi):
    return ceaf(key, _drop_twinless_singletons(key, response), phi)


def ceaf_sys(key, response, phi):
    key_p, response_p, key_r, response_r = _sys(key, response)
    return ceaf(key_r, response_r, phi)[0], ceaf(key_p, response_p, phi)[1]


# -- Popescu-Belis (2000) measures, on explicitly extended partitions (DEF.19) -----------------------
def extend(key, response):
    keys, resps = mentions(key), mentions(response)
    return (key + _singletons(m for c in response for m in c if m not in keys),
            response + _singletons(m for c in key for m in c if m not in resps))


def core(key, response):
    """(CRS, CPS): each class's largest projection on the other side."""
    key, response = extend(key, response)
    e = len(mentions(key))

    def side(a, b):
        best = sum(max(len(set(c) & set(d)) for d in b) for c in a)
        return frac(best - len(a), e - len(a), empty=1)

    return side(key, response), side(response, key)


def exclusive_core(key, response):
    """(XRS, XPS): key classes by decreasing size (then text order) take the free
    response class with most of their mentions (then the earlier class)."""
    key, response = extend(key, response)
    e = len(mentions(key))
    taken: set[int] = set()
    correct = errors = 0
    for i in sorted(range(len(key)), key=lambda i: (-len(key[i]), i)):
        options = [(len(set(key[i]) & set(r)), -j) for j, r in enumerate(response)
                   if j not in taken and set(key[i]) & set(r)]
        if not options:
            continue
        n, j = max(options)
        taken.add(-j)
        correct += n
        errors += len(response[-j]) - n
    return frac(correct, e, 1), frac(e - errors, e, 1)


def information(key, response):
    """(HRS, HPS) from entropies computed mention by mention."""
    key, response = extend(key, response)
    e = len(mentions(key))
    if e == 0:
        return 1.0, 1.0

    def h(p):
        return -sum(len(c) / e * math.log(len(c) / e) for c in p)

    def h_given(a, b):  # H(A | B)
        total = 0.0
        for ca in a:
            for cb in b:
                n = len(set(ca) & set(cb))
                if n:
                    total -= n / e * math.log(n / len(cb))
        return total

    hk, hr = h(key), h(response)
    hrs = 1.0 if hr == 0 else max(0.0, (hr - h_given(response, key)) / hr)
    hps = 1.0 if hk == 0 else max(0.0, (hk - h_given(key, response)) / hk)
    return hrs, hps


def profiles(key, response):
    key, response = extend(key, response)
    k = sorted((len(c) for c in key), reverse=True)
    r = sorted((len(c) for c in response), reverse=True)
    return list(zip_longest(k, r, fillvalue=0)), len(mentions(key))


def dmt(key, response):
    pairs, e = profiles(key, response)
    if e <= 1:
        return Fraction(1)
    return 1 - Fraction(sum(abs(a - b) for a, b in pairs), 2 * (e - 1))


def d_err(key, response):
    pairs, _ = profiles(key, response)
    white = [(pos, a - b) for pos, (a, b) in enumerate(pairs, 1) if a > b]
    dark = [(pos, b - a) for pos, (a, b) in enumerate(pairs, 1) if b > a]
    if not white or not dark:
        return Fraction(0), "-"
    mean_w = Fraction(sum(p * w for p, w in white), sum(w for _, w in white))
    mean_d = Fraction(sum(p * w for p, w in dark), sum(w for _, w in dark))
    return abs(mean_d - mean_w) / (len(pairs) - 1), ("r" if mean_w < mean_d else "p")


def kappa(key, response, d0=False):
    """κ of Popescu-Belis (2000) DEF.7 from the MUC counts (a, b, c) and N = |E| − 1, d = N − a − b − c
    (negative when the links outnumber the mentions); ``d0=True``: N at least a + b + c."""
    where_r = class_of(response)
    a = sum(len(c) - len({where_r.get(m, ("alone", m)) for m in c}) for c in key)
    key_links = sum(len(c) - 1 for c in key)
    resp_links = sum(len(c) - 1 for c in response)
    c_ = key_links - a
    b = resp_links - a
    n = max(len(mentions(key) | mentions(response)) - 1, 0)
    if d0:
        n = max(n, a + b + c_)
    d = n - a - b - c_
    if n <= 0:
        return Fraction(1)
    p_ao = Fraction(a + d, n)
    p_ah = Fraction((a + c_) * (a + b) + (c_ + d) * (b + d), n * n)
    if p_ah == 1:
        return Fraction(1 if p_ao == 1 else 0)
    return (p_ao - p_ah) / (1 - p_ah)
