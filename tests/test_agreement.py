"""Agreement among annotators (``corefio agree``): Krippendorff's α for chains and
mentions, judged by DKPro Agreement and NLTK, and the pairwise table, judged by the
scorer itself.

DKPro Agreement's figures in ``tests/data/agreement/dkpro/*.out.json`` come from its
``KrippendorffAlphaAgreement`` (with ``SetAnnotationDistanceFunction``,
``MASISetAnnotationDistanceFunction`` or the nominal distance) and
``KrippendorffAlphaUnitizingAgreement``, run on the units in the ``.in`` file beside
each (see ``tests/data/agreement/README.md``). NLTK runs here.
"""

from __future__ import annotations

import csv
import io
import json
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import corefio
from corefio.agreement import agree
from corefio.agreement.measures import chain_units
from corefio.errors import DocumentMismatchError, UsageError
from corefio.metrics.alpha import (
    Unit,
    alpha,
    dkpro_masi_distance,
    masi_distance,
    nominal_distance,
    passonneau_distance,
    set_alpha,
    unitizing_alpha,
)

DATA = Path(__file__).parent / "data" / "agreement"
DKPRO = DATA / "dkpro"
GUM = DATA / "gum-annotators"
SAMPLES = Path(__file__).parent.parent / "samples"
CLI = [sys.executable, "-m", "corefio"]

DISTANCES = {"passonneau": passonneau_distance, "dkpro-masi": dkpro_masi_distance, "nominal": nominal_distance}


def read_judge_input(path: Path):
    """The units of a DKPro judge input: ('coding', distance, rows) or ('unitizing', (R, B, L), units)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    head = lines[0].split()
    if head[0] == "coding":
        rows = []
        for line in lines[1:]:
            cells = line.split("\t")
            row = []
            for cell in cells:
                if cell == "-":
                    row.append(None)
                elif head[2] == "nominal":
                    row.append(cell)
                else:
                    row.append(frozenset(cell.split(",")) if cell else frozenset())
            rows.append(row)
        return "coding", head[2], rows
    units = [Unit(int(b), int(n), int(r), c) for b, n, r, c in (line.split("\t") for line in lines[1:] if line)]
    return "unitizing", (int(head[1]), int(head[2]), int(head[3])), units


@pytest.mark.parametrize("path", sorted(DKPRO.glob("*.in")), ids=lambda p: p.stem)
def test_alpha_equals_dkpro_agreement(path):
    """Every stored DKPro Agreement result, to the last bits of its double."""
    kind, setting, data = read_judge_input(path)
    expected = json.loads(path.with_suffix(".out.json").read_text())
    if kind == "coding":
        found = alpha(data, DISTANCES[setting])
        assert float(found.observed) == pytest.approx(expected["observed"], abs=1e-12)
        assert float(found.expected) == pytest.approx(expected["expected"], abs=1e-12)
        assert float(found.value) == pytest.approx(expected["alpha"], abs=1e-12)
    else:
        raters, begin, length = setting
        assert float(unitizing_alpha(data, raters, begin, length).value) == pytest.approx(expected["alpha"], abs=1e-12)


def test_the_published_reference_values():
    """The figures the issue and the judges' own tests give: Krippendorff's reliability
    data (NLTK's test: 0.743421052632), DKPro's SetAnnotationsTest (D_o, D_e, α to three
    decimals) and Krippendorff (2004, p. 254) for α_u."""
    _, _, nominal = read_judge_input(DKPRO / "krippendorff_reliability.nominal.in")
    assert alpha(nominal).value == Fraction(113, 152)
    assert round(float(alpha(nominal).value), 12) == 0.743421052632
    _, _, sets = read_judge_input(DKPRO / "set_example.passonneau.in")
    for distance, figures in ((passonneau_distance, (0.333, 0.409, 0.186)),
                              (dkpro_masi_distance, (0.253, 0.338, 0.252))):
        a = alpha(sets, distance)
        # to DKPro's own tolerance (isCloseTo …, offset(0.001)): D_e is 0.40959
        assert [float(x) for x in (a.observed, a.expected, a.value)] == pytest.approx(figures, abs=0.001)
    _, (r, b, n), units = read_judge_input(DKPRO / "krippendorff2004_unitizing.in")
    u = unitizing_alpha(units, r, b, n)
    assert abs(float(u.value) - 0.8591) < 0.0005
    assert round(float(u.by_category["c"][0]), 4) == 0.0144 and round(float(u.by_category["c"][1]), 4) == 0.0532
    assert round(float(u.category_value("c")), 4) == 0.7286 and u.category_value("k") == 1


def test_nltk_judges_alpha_and_masi():
    """NLTK's AnnotationTask gives the same α with the same distance, and its
    masi_distance is Passonneau's MASI (NLTK once rounded 2/3 to 0.67, which gave 0.665
    where the exact value is 2/3; today's NLTK computes 2/3 as corefio does)."""
    from nltk.metrics import masi_distance as nltk_masi
    from nltk.metrics.agreement import AnnotationTask

    _, _, nominal = read_judge_input(DKPRO / "krippendorff_reliability.nominal.in")
    triples = [(f"c{c}", f"u{u}", v) for u, row in enumerate(nominal) for c, v in enumerate(row) if v is not None]
    assert AnnotationTask(data=triples).alpha() == pytest.approx(float(alpha(nominal).value), abs=1e-12)
    for a, b in (({1, 2}, {1, 2, 3, 4}), ({1, 2}, {1, 3}), ({1}, {2}), ({1, 2}, {2, 1})):
        assert nltk_masi(a, b) == pytest.approx(float(masi_distance(frozenset(a), frozenset(b))), abs=1e-15)
    assert masi_distance(frozenset({1, 2}), frozenset({1, 2, 3, 4})) == Fraction(2, 3)


def _study_views(paths):
    from corefio.agreement.measures import _mentions
    from corefio.agreement.study import build_study
    from corefio.diagnostics import Report

    study = build_study(paths)
    rows = []
    for d, item in enumerate(study.items):
        views = [doc.mention_view(False) for doc in item.documents]
        chains = [_mentions(v, Report(), "x")[1] for v in views]
        rows.extend(chain_units(chains, d))
    return study, rows


def test_chain_alpha_on_three_annotators_equals_nltk():
    """The chain α of the three GUM annotators: NLTK's AnnotationTask with corefio's
    exact distance functions over the same units gives the same value (NLTK pairs
    values its own way, so this checks the coincidence arithmetic and set_alpha's
    shortcut on real chains)."""
    from nltk.metrics.agreement import AnnotationTask

    paths = [sorted((GUM / a).glob("*.conll"))[:2] for a in "abc"]
    study, rows = _study_views(paths)
    result = agree(paths)
    for name, distance in (("passonneau", passonneau_distance), ("masi", masi_distance)):
        triples = [(f"c{c}", f"u{u}", v) for u, row in enumerate(rows) for c, v in enumerate(row) if v is not None]
        task = AnnotationTask(data=triples, distance=lambda x, y, d=distance: float(d(x, y)))
        ours = agree(paths, distance=name).chain_alpha
        assert ours.value == set_alpha(rows, distance).value == alpha(rows, distance).value
        assert task.alpha() == pytest.approx(float(ours.value), abs=1e-9)
    assert result.chain_alpha.missing == sum(1 for row in rows for v in row if v is None)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.one_of(st.none(), st.frozensets(st.integers(0, 6), min_size=1, max_size=4)),
                         min_size=3, max_size=3), min_size=1, max_size=12),
       st.sampled_from([passonneau_distance, masi_distance, dkpro_masi_distance]))
def test_set_alpha_is_alpha(rows, distance):
    """The shortcut for non-empty sets gives α exactly, whatever the data."""
    assert set_alpha(rows, distance) == alpha(rows, distance)


def test_set_alpha_refuses_the_empty_set():
    with pytest.raises(ValueError):
        set_alpha([[frozenset(), frozenset({1})]], passonneau_distance)


def test_unitizing_alpha_does_not_depend_on_the_order_of_units():
    _, (r, b, n), units = read_judge_input(DKPRO / "krippendorff2004_unitizing.in")
    shuffled = list(units)
    random.Random(4).shuffle(shuffled)
    assert unitizing_alpha(shuffled, r, b, n) == unitizing_alpha(units, r, b, n)


def test_identical_annotations_agree_fully():
    paths = [sorted((GUM / "a").glob("*.conll"))] * 3
    result = agree(paths)
    assert result.chain_alpha.value == 1 and result.chain_alpha.missing == 0
    assert result.unitizing.value == 1
    assert all(v == 1 for row in result.pairs for v in row.f1.values())


def test_the_pairwise_table_is_the_scorer_s():
    """Each pair's F1 is what `corefio score` gives for the first against the second,
    and also for the second against the first (the measures are symmetric in F1)."""
    files = {a: sorted((GUM / a).glob("*.conll")) for a in "abc"}
    result = agree([files["a"], files["b"], files["c"]], names=["a", "b", "c"])
    for row in result.pairs:
        one, two = result.annotators[row.first], result.annotators[row.second]
        forward = corefio.score(files[one], files[two], ["muc", "bcub", "ceafe", "lea", "blanc", "conll"])
        backward = corefio.score(files[two], files[one], ["muc", "bcub", "ceafe", "lea", "blanc", "conll"])
        for metric in ("muc", "bcub", "ceafe", "lea", "blanc", "conll"):
            assert row.f1[metric] == Fraction(forward.corpus[metric].f1) == Fraction(backward.corpus[metric].f1)
    assert result.mean["conll"] == sum((r.f1["conll"] for r in result.pairs), Fraction(0)) / 3
    ranked = [d.alpha.value for d in result.documents]
    assert ranked == sorted(ranked) and len(ranked) == 4


def test_mention_f1_counts_the_matched_mentions():
    files = {a: sorted((GUM / a).glob("*.conll"))[:1] for a in "ab"}
    result = agree([files["a"], files["b"]])
    scored = corefio.score(files["a"][0], files["b"][0], ["muc"])
    assert result.pairs[0].f1["mentions:exact"] == Fraction(scored.corpus["mentions"].f1)


def test_windows_rank_passages():
    result = agree([SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml"], window=2)
    assert [p.sentences for p in sorted(result.passages, key=lambda p: p.sentences)] == [(1, 2), (3, 4), (5, 6), (7, 7)]
    assert sum(p.markables for p in result.passages) == 17
    values = [p.alpha.value for p in result.passages]
    assert values == sorted(values)


def test_documents_must_pair():
    a = sorted((GUM / "a").glob("*.conll"))
    with pytest.raises(DocumentMismatchError, match="not in"):
        agree([a[:2], a[1:3]])
    result = agree([a[:2], a[1:3]], allow_missing=True)
    assert len(result.documents) == 3
    assert any(d.code == "agree.document-mismatch" for d in result.report)


def test_bad_requests():
    a = sorted((GUM / "a").glob("*.conll"))[:1]
    with pytest.raises(UsageError):
        agree([a])
    with pytest.raises(UsageError):
        agree([a, a], distance="cosine")
    with pytest.raises(UsageError):
        agree([a, a], window=0)


def test_different_words_are_refused(tmp_path):
    a = sorted((GUM / "a").glob("*.conll"))[0]
    changed = tmp_path / a.name
    changed.write_text(a.read_text(encoding="utf-8").replace("\tZaha\t", "\tZara\t", 1), encoding="utf-8")
    with pytest.raises(corefio.CorefioError, match="word 1 is 'Zaha'"):
        agree([a, changed])


def test_cli_table_json_csv(tmp_path):
    dirs = [str(GUM / a) for a in "abc"]
    text = subprocess.run(CLI + ["agree", *dirs, "--limit", "2"], capture_output=True, text=True)
    assert text.returncode == 0, text.stderr
    assert "chain agreement (Krippendorff's alpha, passonneau distance)" in text.stdout
    assert "a / b" in text.stdout and "mean" in text.stdout and "(2 more;" in text.stdout
    data = json.loads(subprocess.run(CLI + ["agree", *dirs, "--format", "json"], capture_output=True,
                                     text=True, check=True).stdout)
    direct = agree([sorted(Path(d).glob("*.conll")) for d in dirs], names=["a", "b", "c"])
    assert data["chain_alpha"]["alpha"] == float(direct.chain_alpha.value)
    assert [p["annotators"] for p in data["pairs"]] == [["a", "b"], ["a", "c"], ["b", "c"]]
    out = tmp_path / "agree.csv"
    subprocess.run(CLI + ["agree", *dirs, "--format", "csv", "-o", str(out), "--names", "x,y,z"], check=True)
    rows = list(csv.reader(io.StringIO(out.read_text())))
    assert rows[1][:3] == ["pair", "x", "y"] and rows[4][0] == "mean"
    assert sum(1 for r in rows if r[0] == "document") == 4
    bad = subprocess.run(CLI + ["agree", dirs[0]], capture_output=True, text=True)
    assert bad.returncode == 2 and "two or more" in bad.stderr
    bad = subprocess.run(CLI + ["agree", *dirs, "--names", "x,y"], capture_output=True, text=True)
    assert bad.returncode == 2


def _element(element) -> str:
    document, spans = element
    return f"{document}/" + "+".join(f"{a}-{b}" for a, b in spans)


def _gum_inputs() -> dict[str, str]:
    """The judge inputs built from the GUM annotators: chain units (both set distances)
    and α_u units."""
    from corefio.agreement.measures import _depth_units, _mentions
    from corefio.diagnostics import Report

    paths = [sorted((GUM / a).glob("*.conll")) for a in "abc"]
    study, rows = _study_views(paths)
    lines = []
    for row in rows:
        lines.append("\t".join("-" if v is None else ",".join(sorted(_element(e) for e in v)) for v in row))
    out = {f"gum_chains.{d}.in": f"coding 3 {d}\n" + "\n".join(lines) + "\n" for d in ("passonneau", "dkpro-masi")}
    grouped: dict = {}
    offset = 0
    for item in study.items:
        for a, document in enumerate(item.documents):
            flat, _ = _mentions(document.mention_view(False), Report(), "x")
            _depth_units(flat, a, offset, grouped, 3)
        offset += len(item.reference.tokens.forms)
    units = sorted((first, length, a, f"depth {depth}") for depth, lists in grouped.items()
                   for a, spans in enumerate(lists) for first, length in spans)
    out["gum_mentions.unitizing.in"] = f"unitizing 3 0 {offset}\n" + "".join(
        f"{b}\t{n}\t{a}\t{c}\n" for b, n, a, c in units)
    return out


def test_write_gum_units():
    """corefio builds exactly the units that DKPro judged (COREFIO_WRITE_UNITS=1
    writes them anew), and its α on them is DKPro's (the parametrised test above)."""
    import os

    for name, text in _gum_inputs().items():
        path = DKPRO / name
        if os.environ.get("COREFIO_WRITE_UNITS"):
            path.write_text(text, encoding="utf-8")
        assert path.read_text(encoding="utf-8") == text


def test_agree_equals_the_judged_units():
    paths = [sorted((GUM / a).glob("*.conll")) for a in "abc"]
    for distance in ("passonneau", "dkpro-masi"):
        expected = json.loads((DKPRO / f"gum_chains.{distance}.out.json").read_text())
        assert float(agree(paths, distance=distance).chain_alpha.value) == pytest.approx(expected["alpha"], abs=1e-12)
    expected = json.loads((DKPRO / "gum_mentions.unitizing.out.json").read_text())
    assert float(agree(paths).unitizing.value) == pytest.approx(expected["alpha"], abs=1e-12)
