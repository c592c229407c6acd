"""Metrics against published numbers: the reference scorer's own test cases (exact
fractions and counts), coval's LEA values, and the worked examples of the seeds."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import corefio.metrics as M
from corefio.metrics.base import BlancScore, Contingency, Score
from corefio.metrics.typed import TypedCounts, macro_average, micro_average
from corefio.scoring import score

from .conftest import DATA

CASES_DIR = DATA / "scorer-testcases"
FILES = CASES_DIR / "DataFiles"
CASES = json.loads((CASES_DIR / "cases.json").read_text())
EXPECTED = json.loads((CASES_DIR / "expected.json").read_text())
OBSERVED = json.loads((CASES_DIR / "scorer_pl_v8.01_observed.json").read_text())
LEA = json.loads((CASES_DIR / "lea_expected_coval.json").read_text())["cases"]

_scored: dict[str, object] = {}


def scored(case: str):
    """corefio's scores of one reference-scorer test case (every metric, computed once)."""
    if case not in _scored:
        info = CASES[case]
        _scored[case] = score(FILES / info["key_file"], FILES / info["response_file"],
                              ["mentions", "muc", "bcub", "ceafm", "ceafe", "blanc", "lea"])
    return _scored[case]


def exact(value) -> Fraction:
    return Fraction(str(value))


def _counts(expected: dict, prefix: str) -> tuple[Fraction, Fraction]:
    num = expected.get(f"{prefix}_num_exact", expected.get(f"{prefix}_num"))
    return exact(num), exact(expected[f"{prefix}_den"])


def check_score(result: Score, expected: dict) -> None:
    assert (Fraction(result.recall_num), Fraction(result.recall_den)) == _counts(expected, "recall")
    assert (Fraction(result.precision_num), Fraction(result.precision_den)) == _counts(expected, "precision")
    if "recall_exact" in expected:
        assert result.recall == exact(expected["recall_exact"])
        assert result.precision == exact(expected["precision_exact"])
        assert result.f1 == exact(expected["f_exact"])


EXPECTED_PAIRS = [(case, metric) for case, metrics in sorted(EXPECTED.items()) for metric in sorted(metrics)]


def test_the_expected_values_are_all_here():
    assert len(EXPECTED_PAIRS) == 91
    assert len(LEA) == 34


@pytest.mark.parametrize("case,metric", EXPECTED_PAIRS)
def test_reference_scorer_expected_values(case, metric):
    """The 91 values asserted by the reference scorer's own test configuration, exactly,
    with the counts scorer.pl v8.01 prints."""
    expected = EXPECTED[case][metric]
    result = scored(case).corpus[metric]
    if metric == "blanc":
        assert isinstance(result, BlancScore)
        check_score(result.coref, expected["coref_links"])
        check_score(result.noncoref, expected["noncoref_links"])
        assert result.recall == exact(expected["recall_exact"])
        assert result.precision == exact(expected["precision_exact"])
        assert result.f1 == exact(expected["f_exact"])
        # the rounded values written in the upstream test configuration
        assert abs(float(result.recall) - expected["recall"]) < 1e-4
    else:
        check_score(result, expected)
        assert abs(float(result.f1) - expected["f"]) < 1e-4


@pytest.mark.parametrize("case", sorted(OBSERVED))
def test_scorer_pl_observed_output(case):
    """What scorer.pl v8.01 prints on all 36 cases (observed output, not hand-checked),
    including mention identification and the metrics the test config leaves out."""
    observed = OBSERVED[case]
    result = scored(case).corpus
    check_score(result["mentions"], observed["mention_identification"])
    for metric in ("muc", "bcub", "ceafm", "ceafe"):
        check_score(result[metric], observed[metric])
    check_score(result["blanc"].coref, observed["blanc"]["coref_links"])
    check_score(result["blanc"].noncoref, observed["blanc"]["noncoref_links"])
    assert result["blanc"].f1 == exact(observed["blanc"]["f_exact"])


@pytest.mark.parametrize("case", sorted(LEA))
def test_lea_values_of_coval(case):
    expected = LEA[case]
    result = scored(case).corpus["lea"]
    assert result.recall == exact(expected["recall_exact"])
    assert result.precision == exact(expected["precision_exact"])
    assert result.f1 == exact(expected["f_exact"])


def test_repeated_response_mentions_are_reported_not_refused():
    """A9 repeats one span 11 times: scorer.pl gives up beyond 10 repeats when asked for
    several metrics; corefio scores and says what it ignored."""
    result = scored("A9")
    codes = [d.code for d in result.report]
    assert "score.duplicate-mention" in codes
    d = next(d for d in result.report if d.code == "score.duplicate-mention")
    assert d.count == 10 and d.severity == "warning"


# -- Popescu-Belis (2000): §1.4 sample and §5.1 examples 1-3, Tables 3 and 4 -----------
SAMPLE_KEY = [[1, 2], [3, 4, 5], [6, 7, 8, 9, 10, 11, 12], [13, 14, 15, 16, 17]]
SAMPLE_RESPONSE = [[1, 2, 6, 7, 8, 9, 10], [3, 4, 5, 11, 12, 13, 14, 15, 16], [17]]
TEN_KEY = [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]]
NO_RESOLUTION = [[i] for i in range(1, 11)]
ALL_IN_ONE = [list(range(1, 11))]

# Table 3 (R/P %, two digits) and Table 4 (F %, kappa %), examples 1-3
GUIDE = {
    1: (SAMPLE_KEY, SAMPLE_RESPONSE,
        dict(MRS=85, MPS=79, BRS=74, BPS=49, CRS=77, CPS=50, XRS=53, XPS=59, DMT=75, HRS=55, HPS=37,
             MUC=81, B3=59, kappa=-18, C=61, XC=56, H=44), "p"),
    2: (TEN_KEY, NO_RESOLUTION,
        dict(MRS=0, BRS=20, BPS=100, CRS=0, CPS=100, XRS=20, XPS=100, DMT=11, HRS=30, HPS=100,
             MUC=0, B3=33, kappa=0, C=0, XC=33, H=46), "r"),
    3: (TEN_KEY, ALL_IN_ONE,
        dict(MRS=100, MPS=89, BRS=100, BPS=50, CRS=100, CPS=44, XRS=50, XPS=50, DMT=44, HRS=100, HPS=0,
             MUC=94, B3=67, kappa=0, C=62, XC=50, H=0), "p"),
}


def guide_values(key, response) -> dict[str, float]:
    t = Contingency.from_partitions(key, response)
    muc, b3, c, xc = M.muc(t), M.b_cubed(t), M.core_class(t), M.exclusive_core(t)
    hrs, hps = (v.value for v in M.information(t))
    h = 2 * hrs * hps / (hrs + hps) if hrs + hps else 0.0
    return dict(MRS=muc.recall, MPS=muc.precision, BRS=b3.recall, BPS=b3.precision, CRS=c.recall,
                CPS=c.precision, XRS=xc.recall, XPS=xc.precision, DMT=M.dmt(t).value, HRS=hrs, HPS=hps,
                MUC=muc.f1, B3=b3.f1, kappa=M.kappa(t).value, C=c.f1, XC=xc.f1, H=h)


@pytest.mark.parametrize("example", sorted(GUIDE))
def test_guide_tables_3_and_4(example):
    key, response, printed, direction = GUIDE[example]
    values = guide_values(key, response)
    for name, percent in printed.items():
        assert abs(100 * float(values[name]) - percent) <= 0.5 + 1e-9, (example, name, float(values[name]))
    # D-err: the printed formula is lost; corefio's definition gives the printed direction
    assert M.d_err(key, response).direction == direction


def test_guide_no_resolution_muc_precision_follows_the_reference_scorer():
    """Table 3 prints MPS = 100 for a response without links (0/0); corefio follows the
    reference scorer, for which a 0 denominator gives 0 (documented in README)."""
    assert M.muc(TEN_KEY, NO_RESOLUTION).precision == 0
    assert M.muc(TEN_KEY, NO_RESOLUTION).precision_den == 0


# classes of 9 and 2 mentions, one mention swapped: a = 7 links in common, b = c = 2,
# |E| - 1 = 10 < a + b + c = 11 (found by hypothesis)
CROWDED_KEY = [[0, 1, 2, 3, 4, 5, 6, 7, 8], [9, 10]]
CROWDED_RESPONSE = [[0, 1, 2, 3, 4, 5, 6, 7, 9], [8, 10]]


def test_kappa_follows_def7_as_printed_and_falls_below_minus_one():
    """N = |E| - 1 = 10, d = 10 - 7 - 2 - 2 = -1: p_Ao = 6/10, p_Ah = (9*9 + 1*1)/100,
    kappa = (3/5 - 41/50) / (9/50) = -11/9 (Popescu-Belis et al. 2004 reports such values)."""
    counts = M.kappa_counts(CROWDED_KEY, CROWDED_RESPONSE)
    assert (counts.a, counts.b, counts.c, counts.n, counts.d) == (7, 2, 2, 10, -1)
    assert M.kappa(CROWDED_KEY, CROWDED_RESPONSE).value == Fraction(-11, 9)


def test_kappa_d0_keeps_d_non_negative():
    """N raised to a + b + c = 11, d = 0: p_Ao = 7/11, p_Ah = (81 + 4)/121,
    kappa = (77 - 85)/121 / (36/121) = -2/9."""
    counts = M.kappa_counts(CROWDED_KEY, CROWDED_RESPONSE, d0=True)
    assert (counts.n, counts.d) == (11, 0)
    assert M.kappa_d0(CROWDED_KEY, CROWDED_RESPONSE).value == Fraction(-2, 9)


def test_both_kappas_agree_when_d_is_not_negative():
    """Popescu-Belis's (2000) sample: a = 11, key links 13, response links 14, |E| - 1 = 16, so
    b = 3, c = 2, d = 0: p_Ao = 11/16, p_Ah = (13*14 + 2*3)/256 = 188/256,
    kappa = (176 - 188)/256 / (68/256) = -3/17 (printed: -0.18)."""
    assert M.kappa(SAMPLE_KEY, SAMPLE_RESPONSE).value == Fraction(-3, 17)
    assert M.kappa_d0(SAMPLE_KEY, SAMPLE_RESPONSE).value == Fraction(-3, 17)


def test_kappa_without_a_possible_link_is_one():
    assert M.kappa([[0]], [[0]]).value == 1
    assert M.kappa([], []).value == 1


def test_guide_worked_numbers_in_the_text():
    t = Contingency.from_partitions(SAMPLE_KEY, SAMPLE_RESPONSE)
    assert M.muc(t).recall == Fraction(11, 13) and M.muc(t).precision == Fraction(11, 14)
    assert M.core_class(t).recall == Fraction(10, 13) and M.core_class(t).precision == Fraction(7, 14)
    assert round(float(M.kappa(t).value), 2) == -0.18


# -- Cai & Strube (2010): Tables 1-6 and 12-15, and the worked computations of §2 -----
def letters(text: str) -> list[list[str]]:
    return [list(group) for group in text.split()]


def cai_strube(variant: str, key: str, response: str) -> Score:
    k, r = letters(key), letters(response)
    functions = {
        "B0": M.b_cubed_0, "Ball": M.b_cubed_all, "Brn": M.b_cubed_rn, "Bsys": M.b_cubed_sys,
        "CEAForig": lambda a, b: M.ceaf_orig(a, b, phi="phi3"),
        "CEAFrn": lambda a, b: M.ceaf_rn(a, b, phi="phi3"),
        "CEAFsys": lambda a, b: M.ceaf_sys(a, b, phi="phi3"),
        "CEAFsys4": lambda a, b: M.ceaf_sys(a, b, phi="phi4"),
    }
    return functions[variant](k, r)


# (table, key, response, variant, P, R, F) as printed (three decimals)
CAI_STRUBE = [
    ("1/1", "abc", "abd", "B0", 1.0, 0.444, 0.615), ("1/1", "abc", "abd", "Ball", 0.556, 0.556, 0.556),
    ("1/1", "abc", "abd", "Brn", 0.556, 0.556, 0.556), ("1/1", "abc", "abd", "Bsys", 0.667, 0.556, 0.606),
    ("1/1", "abc", "abd", "CEAFsys", 0.5, 0.667, 0.572),
    ("1/2", "abc", "abde", "B0", 1.0, 0.444, 0.615), ("1/2", "abc", "abde", "Ball", 0.375, 0.556, 0.448),
    ("1/2", "abc", "abde", "Brn", 0.375, 0.556, 0.448), ("1/2", "abc", "abde", "Bsys", 0.5, 0.556, 0.527),
    ("1/2", "abc", "abde", "CEAFsys", 0.4, 0.667, 0.500),
    ("2/2", "abc", "abd c", "Ball", 0.667, 0.556, 0.606), ("2/2", "abc", "abd c", "Brn", 0.667, 0.556, 0.606),
    ("2/2", "abc", "abd c", "Bsys", 0.667, 0.556, 0.606), ("2/2", "abc", "abd c", "CEAFsys", 0.5, 0.667, 0.572),
    ("3/1", "ab", "abd", "Ball", 0.556, 1.0, 0.715), ("3/1", "ab", "abd", "Brn", 0.556, 1.0, 0.715),
    ("3/1", "ab", "abd", "Bsys", 0.556, 1.0, 0.715), ("3/1", "ab", "abd", "CEAFsys", 0.667, 1.0, 0.800),
    ("3/2", "ab", "abd i j k", "Ball", 0.778, 1.0, 0.875), ("3/2", "ab", "abd i j k", "Brn", 0.556, 1.0, 0.715),
    ("3/2", "ab", "abd i j k", "Bsys", 0.556, 1.0, 0.715),
    ("3/2", "ab", "abd i j k", "CEAFsys", 0.667, 1.0, 0.800),
    ("4/1", "abc", "ab c i j", "CEAForig", 0.4, 0.667, 0.500), ("4/1", "abc", "ab c i j", "Bsys", 1.0, 0.556, 0.715),
    ("4/1", "abc", "ab c i j", "CEAFsys", 0.667, 0.667, 0.667),
    ("4/2", "abc", "ab ij c", "CEAForig", 0.4, 0.667, 0.500), ("4/2", "abc", "ab ij c", "Bsys", 0.8, 0.556, 0.656),
    ("4/2", "abc", "ab ij c", "CEAFsys", 0.6, 0.667, 0.632),
    ("5/1", "abc", "ab ij kl c", "CEAFrn", 0.286, 0.667, 0.400),
    ("5/1", "abc", "ab ij kl c", "Bsys", 0.714, 0.556, 0.625),
    ("5/1", "abc", "ab ij kl c", "CEAFsys", 0.571, 0.667, 0.615),
    ("5/2", "abc", "ab ijkl c", "CEAFrn", 0.286, 0.667, 0.400),
    ("5/2", "abc", "ab ijkl c", "Bsys", 0.571, 0.556, 0.563),
    ("5/2", "abc", "ab ijkl c", "CEAFsys", 0.429, 0.667, 0.522),
    ("6/1", "abc", "ab c i j", "CEAFsys4", 0.4, 0.8, 0.533), ("6/1", "abc", "ab c i j", "CEAFsys", 0.667, 0.667, 0.667),
    ("6/2", "abc", "ab ij c", "CEAFsys4", 0.489, 0.8, 0.607), ("6/2", "abc", "ab ij c", "CEAFsys", 0.6, 0.667, 0.632),
    ("12/1", "abcde", "ab ij", "Bsys", 0.857, 0.280, 0.422), ("12/2", "abcde", "abc ij", "Bsys", 0.857, 0.440, 0.581),
    ("12/3", "abcde", "abcd ij", "Bsys", 0.857, 0.68, 0.758),  # printed F .784 contradicts its P and R
    ("12/4", "abcde", "abcde ij", "Bsys", 0.857, 1.0, 0.923),
    ("13/1", "abcde", "abc ij", "Bsys", 0.857, 0.440, 0.581), ("13/2", "abcde", "abc ijk", "Bsys", 0.75, 0.440, 0.555),
    ("13/3", "abcde", "abc ijkl", "Bsys", 0.667, 0.440, 0.530),
    ("13/4", "abcde", "abc ijklm", "Bsys", 0.6, 0.440, 0.508),
    ("14/1", "abcde", "abij", "Bsys", 0.643, 0.280, 0.390), ("14/2", "abcde", "abcij", "Bsys", 0.6, 0.440, 0.508),
    ("14/3", "abcde", "abcdij", "Bsys", 0.571, 0.68, 0.621), ("14/4", "abcde", "abcdeij", "Bsys", 0.551, 1.0, 0.711),
    ("15/1", "abcde", "abcij", "Bsys", 0.6, 0.440, 0.508), ("15/2", "abcde", "abcijk", "Bsys", 0.5, 0.440, 0.468),
    ("15/3", "abcde", "abcijkl", "Bsys", 0.429, 0.440, 0.434),
    ("15/4", "abcde", "abcijklm", "Bsys", 0.375, 0.440, 0.405),
]


@pytest.mark.parametrize("table,key,response,variant,p,r,f", CAI_STRUBE,
                         ids=[f"T{row[0]}-{row[3]}" for row in CAI_STRUBE])
def test_cai_strube_tables(table, key, response, variant, p, r, f):
    result = cai_strube(variant, key, response)
    # three printed decimals, rounded (the paper rounds .5714 up to .572 once)
    assert abs(float(result.precision) - p) <= 0.0011
    assert abs(float(result.recall) - r) <= 0.0011
    assert abs(float(result.f1) - f) <= 0.0011


def test_cai_strube_worked_computations():
    """§2.2.1 and §2.3: B³_0, B³_all and CEAF_orig on key {a b c}, response {a b d}."""
    key, response = letters("abc"), letters("abd")
    b0 = M.b_cubed_0(key, response)
    assert (b0.precision, b0.recall) == (1, Fraction(4, 9))
    b_all = M.b_cubed_all(key, response)
    assert b_all.precision == b_all.recall == Fraction(5, 9)
    orig = M.ceaf_orig(key, response)
    assert orig.precision == orig.recall == Fraction(2, 3)
    # §2.3.3, System 2 of Table 4: precision (2+1+0)/(2+2+1), recall 2/3
    sys = M.ceaf_sys(letters("abc"), letters("ab ij c"))
    assert (sys.precision, sys.recall) == (Fraction(3, 5), Fraction(2, 3))


# -- Bagga & Baldwin (1998): Figure 6 ----------------------------------------------------
TRUTH = [[1, 2, 3, 4, 5], [6, 7], [8, 9, 10, 11, 12]]
EXAMPLE_1 = [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11, 12]]
EXAMPLE_2 = [[1, 2, 3, 4, 5, 8, 9, 10, 11, 12], [6, 7]]


def test_bagga_baldwin_figure_6():
    for response, b3_entity, b3_class in ((EXAMPLE_1, Fraction(16, 21), Fraction(39, 49)),
                                          (EXAMPLE_2, Fraction(7, 12), Fraction(3, 4))):
        muc = M.muc(TRUTH, response)
        assert (muc.recall, muc.precision) == (1, Fraction(9, 10))
        entity = M.b_cubed(TRUTH, response)
        assert (entity.recall, entity.precision) == (1, b3_entity)
        per_class = M.b_cubed_class(TRUTH, response)
        assert (per_class.recall, per_class.precision) == (1, b3_class)


# -- Žitkus et al. (2023): formulas 49-62 ----------------------------------------------
K = (Fraction(1), Fraction(3, 4), Fraction(1, 2), Fraction(1, 4))
PRONOMINAL = TypedCounts(TP=289, WT=30, WL=27, WTL=25, FN=182, FP=29)
GENERIC = TypedCounts(TP=123, WT=4, WL=21, WTL=9, FN=380, FP=23)
DEFINITE = TypedCounts(TP=973, WT=0, WL=14, WTL=0, FN=84, FP=17)


def test_zitkus_formulas_49_to_51():
    assert round(100 * float(PRONOMINAL.precision(K)), 1) == 82.8
    assert round(100 * float(PRONOMINAL.recall(K)), 1) == 59.9
    assert round(100 * float(PRONOMINAL.f1(K)), 1) == 69.5
    assert round(100 * float(GENERIC.precision(K)), 1) == 77.1
    assert round(100 * float(GENERIC.recall(K)), 1) == 25.8
    assert round(100 * float(DEFINITE.precision(K)), 1) == 97.6
    assert round(100 * float(DEFINITE.recall(K)), 1) == 91.5


def test_zitkus_formulas_52_to_60():
    classes = [PRONOMINAL, GENERIC, DEFINITE]
    p, r, f = macro_average(classes, K)
    assert (round(100 * float(p), 1), round(100 * float(r), 1)) == (85.8, 59.1)
    assert abs(100 * float(f) - 70) < 0.1
    p, r, f = micro_average(classes, K)
    assert (round(100 * float(p), 1), round(100 * float(r), 1), round(100 * float(f), 1)) == (91.5, 67.1, 77.4)
    p, r, f = macro_average(classes, K, n_classes=5)
    # the paper sums the rounded class values (51.5, 35.44, 41.99)
    assert abs(100 * float(p) - 51.5) < 0.05 and abs(100 * float(r) - 35.44) < 0.05
    assert abs(100 * float(f) - 41.99) < 0.05


def test_zitkus_appendix_c_formulas_61_62():
    """Barack Obama, B. Obama, president, He: the response splits the chain in two."""
    from corefio.model import Document, Markable, Tokens
    from corefio.metrics.typed import typed_evaluation

    forms = "Barack Obama was elected . B. Obama is president . the president . He".split()
    tokens = Tokens(forms=forms)

    def doc(chains):
        markables = []
        for c, chain in enumerate(chains):
            for (a, b), code, dominant in chain:
                attributes = {"coref_type": code}
                if dominant:
                    attributes["dominant"] = True
                markables.append(Markable(id=f"m{len(markables)}", spans=((a, b),), entity=f"e{c}",
                                          attributes=attributes))
        return Document(name="obama", tokens=tokens, markables=markables)

    obama, b_obama, president, he = (0, 1), (5, 6), (11, 11), (13, 13)
    key = doc([[(obama, "dpns", True), (b_obama, "dabr", False), (president, "gfas", False), (he, "ppas", False)]])
    response = doc([[(obama, "dpns", True), (b_obama, "dabr", False)],
                    [(president, "gfas", True), (he, "ppas", False)]])
    result = typed_evaluation(key, response)
    total = result.micro()
    assert (total.TP, total.WT, total.WL, total.WTL, total.FN, total.FP) == (1, 0, 1, 0, 1, 0)
    assert total.precision(K) == Fraction(3, 4)
    assert total.recall(K) == Fraction(1, 2)


def test_the_solver_loaded_on_its_own_is_scipys_public_one():
    """corefio loads SciPy's compiled assignment module without ``scipy.optimize``
    (see corefio/metrics/_assignment.py for the measured reason); in a fresh process,
    it must not import ``scipy.optimize`` and must be the very function that
    ``scipy.optimize.linear_sum_assignment`` names, with the same results."""
    import subprocess
    import sys

    code = """
import sys
import numpy as np
from corefio.metrics._assignment import load_compiled
compiled = load_compiled()
assert "scipy.optimize" not in sys.modules
rng = np.random.default_rng(7)
matrices = [rng.random((n, m)) for n, m in [(2, 2), (3, 5), (6, 4), (25, 25)]]
found = [compiled(m, maximize=True) for m in matrices]
from scipy.optimize import linear_sum_assignment as public
assert public is compiled
for m, (rows, cols) in zip(matrices, found):
    r, c = public(m, maximize=True)
    assert (r == rows).all() and (c == cols).all()
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_information_profiles_add_up_the_same_in_any_order():
    """The info metric's profile keeps integer histograms, so the corpus value does not
    depend on how documents are grouped (``--jobs``, Dask): summed in any order, the
    entropy sums are the same to the last bit."""
    import random

    from corefio.metrics.profile import Profile

    rng = random.Random(7)
    tables = []
    for _ in range(40):
        mentions = list(range(rng.randrange(2, 30)))
        key = [mentions[i::3] for i in range(3)]
        rng.shuffle(mentions)
        response = [mentions[i::4] for i in range(4)]
        tables.append(Profile.of([c for c in key if c], [c for c in response if c]))
    values = set()
    for _ in range(5):
        rng.shuffle(tables)
        total = Profile.zero()
        for t in tables:
            total = total + t
        values.add((total.key_cross, total.response_cross))
    assert len(values) == 1


# -- tables of spans listed more than once (scoring's repeat rules) ---------------------------------
def _key_repeat_table() -> Contingency:
    """scorer.pl's table of the minimal case: "John" (j) in key chains [j, h] and [j, m],
    the response the same (scorer.pl leaves j out of its second chain)."""
    from corefio.scoring.views import scorer_table

    return scorer_table([[J, H], [J, MARY]], [[J, H], [MARY]])


#: the spans of "John saw himself and Mary"
J, H, MARY = ((0, 0),), ((2, 2),), ((4, 4),)


def test_a_key_span_in_two_chains_is_counted_as_scorer_pl_counts_it():
    table = _key_repeat_table()
    assert M.mention_identification(table) == Score(3, 3, 3, 3)
    assert M.muc(table) == Score(0, 2, 0, 1)
    assert M.b_cubed(table) == Score(2, 4, Fraction(5, 2), 3)
    assert M.ceaf_mention(table) == Score(3, 4, 3, 3)
    assert M.ceaf_entity(table) == Score(Fraction(5, 3), 2, Fraction(5, 3), 2)
    blanc = M.blanc(table)
    assert (blanc.coref, blanc.noncoref) == (Score(1, 2, 1, 1), Score(2, 4, 2, 2))


def test_repeat_parts_of_a_table_survive_union_and_pickling():
    import pickle

    table = _key_repeat_table()
    assert table.aligned is not None and table.repeats.key_mentions == 1
    twice = Contingency.union([table, table])
    assert twice.repeats == table.repeats + table.repeats
    assert M.muc(twice) == Score(0, 4, 0, 2)
    assert M.b_cubed(twice) == Score(4, 8, 5, 6)
    assert M.ceaf_mention(twice) == Score(6, 8, 6, 6)
    assert M.mention_identification(twice) == Score(6, 6, 6, 6)
    copy = pickle.loads(pickle.dumps(table))
    assert copy == table and M.ceaf_entity(copy) == M.ceaf_entity(table)
    plain = Contingency.union([table, Contingency.from_partitions([["a", "b"]], [["a", "b"]])])
    assert M.ceaf_mention(plain) == Score(5, 6, 5, 5)


def test_corefud_tables_count_a_key_span_in_each_entity_on_the_recall_side():
    """corefud-scorer's rule on the minimal case: MUC 1/2 both ways, B³ 3/4, CEAF 1."""
    from corefio.scoring.views import corefud_table

    table = corefud_table([[J, H], [J, MARY]], [[J, H], [J, MARY]])
    assert M.muc(table) == Score(1, 2, 1, 2)
    assert M.b_cubed(table) == Score(3, 4, 3, 4)
    assert M.ceaf_entity(table).f1 == 1 and M.ceaf_mention(table).f1 == 1
    assert M.lea(table).f1 == Fraction(1, 2)
    assert M.mention_identification(table) == Score(3, 3, 3, 3)
