"""Figures (``corefio/plots.py``, ``--plot FILE.png|svg``): their content is checked through
matplotlib's objects (axes labels, how many bars or points, their values) and the SVG's
text, never pixels; without matplotlib the command line says which extra to install."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("matplotlib")  # the plot extra (in the test extra): each test needs it

import corefio  # noqa: E402
from corefio import plots  # noqa: E402
from corefio.agreement import agree  # noqa: E402
from corefio.errors import UsageError  # noqa: E402
from corefio.scoring.error_analysis import ERROR_CLASSES, analyse_files  # noqa: E402
from corefio.scoring.significance import compare  # noqa: E402

from .conftest import DATA, SAMPLES  # noqa: E402

CONLL = DATA / "wild" / "conll2012" / "allennlp"
KEY, RESPONSE = CONLL / "coref.gold_conll", CONLL / "coref.perturbed.response"
MUC_KEY, MUC_RESPONSE = SAMPLES / "muc" / "muc6.key.sgm", SAMPLES / "muc" / "muc6.response.sgm"


def _labels(ticks) -> list[str]:
    return [t.get_text() for t in ticks]


# -- compare ---------------------------------------------------------------------------------------
def test_compare_figure_shows_each_systems_f1_and_interval():
    result = compare(KEY, [RESPONSE, KEY], ["muc", "bcub", "conll"], names=["perturbed", "gold"], samples=200,
                     seed=3)
    figure = plots.compare_figure(result)
    (ax,) = figure.axes
    assert _labels(ax.get_xticklabels()) == ["muc", "bcub", "conll"]
    assert "F1 (%)" in ax.get_ylabel() and "95% bootstrap" in ax.get_ylabel()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["perturbed", "gold"]
    assert len(ax.containers) == 2  # one error bar series per system
    for system, container in zip(["perturbed", "gold"], ax.containers):
        points, _, (bars,) = container.lines
        want = [result.result(system, m) for m in result.metrics]
        assert list(points.get_ydata()) == pytest.approx([100 * r.f1 for r in want])
        ends = [y for segment in bars.get_segments() for y in (segment[0][1], segment[1][1])]
        assert ends == pytest.approx([y for r in want for y in (100 * r.low, 100 * r.high)])
    assert list(ax.containers[1].lines[0].get_ydata()) == [100, 100, 100]


def test_compare_figure_adds_the_error_counts_of_each_system():
    result = compare(MUC_KEY, [MUC_RESPONSE, MUC_KEY], ["muc"], names=["sys", "key"], samples=20, seed=1)
    errors = {name: analyse_files(MUC_KEY, path) for name, path in (("sys", MUC_RESPONSE), ("key", MUC_KEY))}
    figure = plots.compare_figure(result, errors)
    assert len(figure.axes) == 2
    bars = figure.axes[1].containers
    assert len(bars) == 2 and all(len(b.patches) == len(ERROR_CLASSES) for b in bars)
    assert [p.get_width() for p in bars[0].patches] == [errors["sys"].counts[c] for c in ERROR_CLASSES]
    assert [p.get_width() for p in bars[1].patches] == [0] * len(ERROR_CLASSES)


# -- score -----------------------------------------------------------------------------------------
def test_score_figure_shows_every_documents_f1_per_metric():
    scores = corefio.score(KEY, RESPONSE, ["muc", "bcub", "kappa"], per_document=True)
    figure = plots.score_figure(scores)
    (ax,) = figure.axes
    assert _labels(ax.get_xticklabels()) == ["mentions", "muc", "bcub"]  # kappa has no F1
    assert ax.get_ylabel() == "F1 (%) of each document" and "4 documents" in ax.get_title()
    *documents, corpus = ax.collections
    assert len(documents) == 3 and all(len(c.get_offsets()) == 4 for c in documents)
    for metric, dots in zip(["mentions", "muc", "bcub"], documents):
        want = [100 * float(d.results[metric].f1) for d in scores.documents]
        assert [y for _, y in dots.get_offsets()] == pytest.approx(want)
    assert [y for _, y in corpus.get_offsets()] == pytest.approx([100 * float(scores[m].f1)
                                                                  for m in ("mentions", "muc", "bcub")])


def test_score_figure_needs_the_documents_scores_and_adds_the_errors():
    with pytest.raises(UsageError, match="every document's scores"):
        plots.score_figure(corefio.score(KEY, RESPONSE, ["muc"]))
    errors = analyse_files(KEY, RESPONSE)
    figure = plots.errors_figure(errors)
    (ax,) = figure.axes
    (bars,) = ax.containers
    assert _labels(ax.get_yticklabels()) == [c.replace("_", " ") for c in ERROR_CLASSES]
    assert [p.get_width() for p in bars.patches] == [errors.counts[c] for c in ERROR_CLASSES]
    assert sum(errors.counts.values()) > 0 and ax.get_xlabel() == "errors (count)"
    both = plots.score_figure(corefio.score(KEY, RESPONSE, ["muc"], per_document=True), errors)
    assert len(both.axes) == 2


# -- agreement -------------------------------------------------------------------------------------
def test_agreement_figure_is_the_pairwise_heatmap():
    result = agree([SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml", SAMPLES / "key.raf.xml"],
                   names=["a", "b", "c"])
    figure = plots.agreement_figure(result)
    ax = figure.axes[0]
    (image,) = ax.images
    values = image.get_array()
    conll = {(r.first, r.second): 100 * float(r.f1["conll"]) for r in result.pairs}
    for (i, j), value in conll.items():
        assert values[i][j] == pytest.approx(value) and values[j][i] == pytest.approx(value)
    assert all(values.mask[k, k] for k in range(3))  # no value: masked, drawn blank
    assert values[0][2] == 100  # a and c are the same file
    assert _labels(ax.get_yticklabels()) == ["a", "b", "c"]
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("–") == 3 and texts.count("100.00") == 2 and "61.58" in texts
    assert figure.axes[1].get_ylabel() == "CoNLL F1 (%)"  # the colour bar
    with pytest.raises(UsageError, match="no measure 'nope'"):
        plots.agreement_figure(result, "nope")


# -- files -----------------------------------------------------------------------------------------
def test_svg_keeps_its_text_and_the_same_figure_gives_the_same_bytes():
    scores = corefio.score(KEY, RESPONSE, ["muc"], per_document=True)
    svg = plots.to_bytes(plots.score_figure(scores), "svg")
    assert svg == plots.to_bytes(plots.score_figure(scores), "svg")
    text = svg.decode("utf-8")
    assert "F1 (%) of each document" in text and ">muc<" in text and "<dc:date>" not in text
    assert plots.to_bytes(plots.score_figure(scores), "png").startswith(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(UsageError, match="png or svg"):
        plots.to_bytes(plots.score_figure(scores), "gif")


def test_the_commands_draw_their_plots(cli, tmp_path):
    out = cli("score", KEY, RESPONSE, "-m", "muc,bcub", "--errors", "--plot", tmp_path / "score.svg")
    assert out.exit_code == 0, out.output
    svg = (tmp_path / "score.svg").read_text(encoding="utf-8")
    assert "F1 of 4 documents" in svg and "errors by class" in svg
    assert "document" not in out.stdout.split("\n\n")[0]  # no per-document rows unless asked for
    out = cli("compare", KEY, RESPONSE, KEY, "--samples", "50", "--seed", "1", "--plot", tmp_path / "compare.png")
    assert out.exit_code == 0 and (tmp_path / "compare.png").read_bytes().startswith(b"\x89PNG")
    out = cli("agree", SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml", "--plot", tmp_path / "agree.svg")
    assert out.exit_code == 0 and "pairwise CoNLL F1" in (tmp_path / "agree.svg").read_text(encoding="utf-8")


def test_plot_usage_errors(cli, tmp_path):
    for args in (("score", KEY, RESPONSE, "--plot", tmp_path / "x.pdf"),
                 ("score", KEY, RESPONSE, "--sync", "all", "--plot", tmp_path / "x.png")):
        out = cli(*args)
        assert out.exit_code == 2 and not (tmp_path / "x.png").exists(), out.output
    named = tmp_path / "key.svg"  # a key file named like a picture: never written over
    named.write_bytes(KEY.read_bytes())
    out = cli("score", named, RESPONSE, "--from", "conll", "--plot", named)
    assert out.exit_code == 6 and named.read_bytes() == KEY.read_bytes(), out.output


def test_without_matplotlib_plot_is_a_usage_error_naming_the_extra(cli, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if the plot extra were not installed
    for args in (("score", KEY, RESPONSE), ("compare", KEY, RESPONSE, KEY),
                 ("agree", SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml")):
        out = cli(*args, "--plot", tmp_path / "figure.png")
        assert out.exit_code == 2, out.output
        assert "corefio[plot]" in out.output and "matplotlib" in out.output
        assert out.stdout == "" and not (tmp_path / "figure.png").exists()  # refused before any work
    assert cli("score", KEY, RESPONSE, "-m", "muc").exit_code == 0  # only --plot needs it
