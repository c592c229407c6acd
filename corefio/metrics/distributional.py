"""Distributional measures DMT and D-err: comparing sorted class sizes (Popescu-Belis 2000, §3.7)."""

from __future__ import annotations

from fractions import Fraction

from .base import Value
from .profile import as_profile


def dmt(key, response=None) -> Value:
    """Distributional match DMT = 1 − Σ_i ||K_i| − |R_i|| / (2(|E| − 1)) (Popescu-Belis 2000, §3.7).

    Class sizes sorted in decreasing order, the shorter list padded with zeros. The
    normaliser 2(|E| − 1) is the largest possible distance, between (|E|, 0, ...) and
    (1, ..., 1); the printed DEF.18 lost it, the worked example (8/32, DMT = 75%)
    fixes it. DMT = 1 when |E| ≤ 1.
    """
    profile = as_profile(key, response)
    e = profile.mentions
    if e <= 1:
        return Value(Fraction(1))
    distance = sum(length * abs(k - r) for _, length, k, r in profile.segments())
    return Value(1 - Fraction(distance, 2 * (e - 1)))


def d_err(key, response=None) -> Value:
    """Distributional error D-err and its direction, r (recall) or p (precision).

    Popescu-Belis (2000) §3.7 describes it without printing the formula; corefio's definition:
    sort both size profiles, mark each position where the key class is larger
    ("white", the response split a class there) or the response class is larger
    ("dark", the response merged classes), and take the area-weighted mean position
    of each. D-err = |mean(dark) − mean(white)| / (n − 1), n the number of positions,
    so 0 ≤ D-err ≤ 1; the direction is r when the white zones come first (response
    classes too small and too many: recall errors dominate) and p otherwise.
    Identical profiles give 0 with direction "-". This matches the direction letters
    of Popescu-Belis (2000) Table 3 for its fully specified examples 1-3 (p, r, p); the printed
    magnitudes (34, 41, 51) come from an unpublished formula and are not reproduced.
    """
    white = dark = white_moment = dark_moment = n = 0
    for first, length, k, r in as_profile(key, response).segments():
        positions = length * (2 * first + length - 1) // 2  # the sum of the run's positions
        if k > r:  # white: the key class is larger
            white += length * (k - r)
            white_moment += positions * (k - r)
        elif r > k:  # dark: the response class is larger
            dark += length * (r - k)
            dark_moment += positions * (r - k)
        n = first + length - 1
    if not white or not dark:
        return Value(Fraction(0), "-")
    mean_w = Fraction(white_moment, white)
    mean_d = Fraction(dark_moment, dark)
    return Value(abs(mean_d - mean_w) / (n - 1), "r" if mean_w < mean_d else "p")
