"""Figures of results, for where a person would rather look than read: ``--plot FILE.png``
(or ``.svg``) of ``compare``, ``score`` and ``agree``, and the pictures of the web pages.

Each figure is built from a result object and drawn with matplotlib's object API (a
:class:`matplotlib.figure.Figure` of its own, never pyplot's global state, so that a
web server may draw several at once):

* :func:`compare_figure` (:class:`~corefio.scoring.significance.Comparison`): each
  system's F1 per metric with its bootstrap confidence interval;
* :func:`score_figure` (:class:`~corefio.scoring.render.Scores` scored per document):
  the distribution of the documents' F1 per metric (a box, every document a dot, the
  corpus score a cross);
* :func:`errors_figure` (:class:`~corefio.scoring.error_analysis.ErrorAnalysis`, one or
  one per system): the error counts by class; ``score`` and ``compare`` add it as a
  second panel with ``--errors``;
* :func:`agreement_figure` (:class:`~corefio.agreement.Agreement`): the pairwise
  heatmap of one measure's F1 between annotators.

:func:`to_bytes` and :func:`save` give a figure as PNG or SVG (text kept as text in SVG,
with no date in it, so that the same result gives the same file). matplotlib is the
optional ``plot`` extra: without it, :func:`require` raises a :class:`UsageError` that
names it (the command line's exit 2).
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import UsageError

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .agreement import Agreement
    from .scoring.error_analysis import ErrorAnalysis
    from .scoring.render import Scores
    from .scoring.significance import Comparison

#: the file formats a figure is written in (by the output's suffix)
FORMATS = ("png", "svg")
#: how to get matplotlib
EXTRA = "pip install 'corefio[plot]' (from a clone: pip install '.[plot]')"
#: rcParams of every figure: SVG text stays text, and SVG ids do not change between runs
_STYLE: dict[str, Any] = {"svg.fonttype": "none", "svg.hashsalt": "corefio"}


def require() -> None:
    """Raise a :class:`UsageError` naming the ``plot`` extra when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError(f"plots need matplotlib, the plot extra: {EXTRA}") from None


def format_of(path: str | Path) -> str:
    """``png`` or ``svg``, from the suffix of ``path`` (a :class:`UsageError` otherwise,
    and when matplotlib is missing: checked before any work is done)."""
    suffix = Path(str(path)).suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise UsageError(f"--plot writes a .png or .svg file, not {Path(str(path)).name!r}")
    require()
    return suffix


#: the width (inches) of the panel of error counts beside another
ERRORS_WIDTH = 6.0


def _figure(widths: Sequence[float], height: float) -> tuple["Figure", list["Axes"]]:
    """A figure of panels side by side, each of its width (inches)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(sum(widths), height), layout="constrained")
    grid = figure.add_gridspec(1, len(widths), width_ratios=list(widths))
    return figure, [figure.add_subplot(grid[0, k]) for k in range(len(widths))]


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


# -- compare: F1 with confidence intervals --------------------------------------------------------
def draw_comparison(ax: "Axes", comparison: "Comparison") -> None:
    """Each system's F1 (%) per metric, a dot with its confidence interval as error bars;
    the systems side by side within each metric."""
    metrics, systems = comparison.metrics, comparison.systems
    step = 0.8 / len(systems)
    for k, system in enumerate(systems):
        results = [comparison.result(system, m) for m in metrics]
        xs = [i + (k - (len(systems) - 1) / 2) * step for i in range(len(metrics))]
        f1 = [100 * r.f1 for r in results]
        below = [100 * (r.f1 - r.low) for r in results]
        above = [100 * (r.high - r.f1) for r in results]
        ax.errorbar(xs, f1, yerr=[below, above], fmt="o", capsize=4, label=system)
    ax.set_xticks(range(len(metrics)), metrics)
    ax.set_xlabel("metric")
    ax.set_ylabel(f"F1 (%), {100 * comparison.level:g}% bootstrap confidence interval")
    ax.set_title(f"{_count(len(systems), 'system')}, {_count(len(comparison.documents), 'document')}, "
                 f"{_count(comparison.samples, 'sample')}")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(title="system")


def compare_figure(comparison: "Comparison", errors: Mapping[str, "ErrorAnalysis"] | None = None) -> "Figure":
    """:func:`draw_comparison`, and the systems' error counts beside it (``errors``)."""
    require()
    with _style():
        width = max(6.0, 1.2 * len(comparison.metrics) + 2)
        figure, axes = _figure([width, ERRORS_WIDTH] if errors else [width], 4.5)
        draw_comparison(axes[0], comparison)
        if errors:
            draw_errors(axes[1], errors)
    return figure


# -- score: per-document F1 ----------------------------------------------------------------------
def _f1(result: Any) -> float | None:
    """A result's F1 as a fraction of 1 (None for the measures without one: κ, DMT...)."""
    f1 = getattr(result, "f1", None)
    if f1 is None and isinstance(result, Mapping):
        f1 = result.get("f1")
    return float(f1) if isinstance(f1, (int, float, Fraction)) else None


def document_f1(scores: "Scores") -> dict[str, list[float]]:
    """Each metric's document F1s (%), in document order, for the metrics that have an F1."""
    out: dict[str, list[float]] = {}
    for metric in scores.metrics:
        values = [_f1(d.results.get(metric)) for d in scores.documents]
        if values and all(v is not None for v in values):
            out[metric] = [100 * v for v in values if v is not None]
    return out


def draw_distribution(ax: "Axes", scores: "Scores") -> None:
    """Per metric, a box of the documents' F1 (%), each document a dot beside it (spread
    evenly across the box's width, not at random) and the corpus F1 a cross."""
    per_document = document_f1(scores)
    if not per_document:
        raise UsageError("a plot of document scores needs every document's scores (score per document) and a "
                         "metric with an F1")
    names = list(per_document)
    positions = list(range(1, len(names) + 1))
    ax.boxplot([per_document[m] for m in names], positions=positions, widths=0.5, showfliers=False)
    for position, metric in zip(positions, names):
        values = per_document[metric]
        n = len(values)
        xs = [position - 0.2 + 0.4 * (k + 0.5) / n for k in range(n)]
        ax.scatter(xs, values, s=12, alpha=0.6, color="C0", label="documents" if position == 1 else None)
    corpus = [100 * (_f1(scores.corpus[m]) or 0.0) for m in names]
    ax.scatter(positions, corpus, marker="x", s=60, color="black", zorder=3, label="corpus")
    ax.set_xticks(positions, names)
    ax.set_xlabel("metric")
    ax.set_ylabel("F1 (%) of each document")
    ax.set_title(f"F1 of {_count(len(scores.documents), 'document')}; ×: the corpus score")
    ax.grid(axis="y", alpha=0.3)


def score_figure(scores: "Scores", errors: "ErrorAnalysis | None" = None) -> "Figure":
    """:func:`draw_distribution`, and the error counts beside it (``errors``)."""
    require()
    with _style():
        width = max(5.0, 0.8 * len(scores.metrics) + 2)
        figure, axes = _figure([width, ERRORS_WIDTH] if errors is not None else [width], 4.5)
        draw_distribution(axes[0], scores)
        if errors is not None:
            draw_errors(axes[1], {"": errors})
    return figure


# -- error analysis: counts by class --------------------------------------------------------------
def draw_errors(ax: "Axes", analyses: Mapping[str, "ErrorAnalysis"]) -> None:
    """The corpus's count of each error class (Kummerfeld & Klein 2013), a horizontal bar
    per class, one bar per system side by side (``analyses``: by system name; one
    analysis under the name ``""``)."""
    from .scoring.error_analysis import ERROR_CLASSES

    classes = list(ERROR_CLASSES)
    step = 0.8 / len(analyses)
    for k, (name, analysis) in enumerate(analyses.items()):
        counts = [analysis.counts[c] for c in classes]
        ys = [i + (k - (len(analyses) - 1) / 2) * step for i in range(len(classes))]
        bars = ax.barh(ys, counts, height=step, label=name or None)
        ax.bar_label(bars, padding=2, fontsize=8)
    from matplotlib.ticker import MaxNLocator

    ax.set_yticks(range(len(classes)), [c.replace("_", " ") for c in classes])
    ax.invert_yaxis()  # in the order the errors are corrected, top down
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("errors (count)")
    ax.set_title("errors by class (Kummerfeld & Klein 2013)")
    if len(analyses) > 1 or next(iter(analyses)):
        ax.legend(title="system")


def errors_figure(analyses: "ErrorAnalysis | Mapping[str, ErrorAnalysis]") -> "Figure":
    """:func:`draw_errors` alone."""
    require()
    if not isinstance(analyses, Mapping):
        analyses = {"": analyses}
    with _style():
        figure, axes = _figure([ERRORS_WIDTH + 0.5], 4.5)
        draw_errors(axes[0], analyses)
    return figure


# -- agreement: the pairwise heatmap --------------------------------------------------------------
def pairwise_matrix(agreement: "Agreement", measure: str = "conll") -> list[list[float | None]]:
    """The pairwise F1 (%) of ``measure`` between annotators, symmetric, None on the
    diagonal (an annotator is not compared with itself)."""
    n = len(agreement.annotators)
    matrix: list[list[float | None]] = [[None] * n for _ in range(n)]
    for row in agreement.pairs:
        if measure not in row.f1:
            raise UsageError(f"the pairwise table has no measure {measure!r} (it has {', '.join(row.f1)})")
        value = 100 * float(row.f1[measure])
        matrix[row.first][row.second] = matrix[row.second][row.first] = value
    return matrix


def draw_agreement(ax: "Axes", agreement: "Agreement", measure: str = "conll") -> None:
    """The annotators × annotators heatmap of ``measure``'s F1 (%), each cell labelled with
    its value rounded as every table rounds it."""
    import numpy as np

    from .scoring.render import percent

    names = agreement.annotators
    matrix = pairwise_matrix(agreement, measure)
    values = np.array([[np.nan if v is None else v for v in row] for row in matrix], dtype=float)
    image = ax.imshow(values, vmin=0, vmax=100, cmap="viridis")
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            if value is None:
                ax.text(j, i, "–", ha="center", va="center", color="grey")
            else:
                ax.text(j, i, percent(value / 100), ha="center", va="center",
                        color="white" if value < 60 else "black")
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_yticks(range(len(names)), names)
    label = {"conll": "CoNLL", "bcub": "B3", "ceafe": "CEAF-e"}.get(measure, measure.upper())
    ax.set_title(f"pairwise {label} F1 (%) between annotators")
    ax.figure.colorbar(image, ax=ax, label=f"{label} F1 (%)")


def agreement_figure(agreement: "Agreement", measure: str = "conll") -> "Figure":
    """:func:`draw_agreement` alone."""
    require()
    n = len(agreement.annotators)
    with _style():
        figure, axes = _figure([max(4.5, 1.1 * n + 2.5)], max(3.5, 0.9 * n + 2))
        draw_agreement(axes[0], agreement, measure)
    return figure


# -- writing --------------------------------------------------------------------------------------
def _style() -> Any:
    import matplotlib

    return matplotlib.rc_context(_STYLE)  # type: ignore[arg-type]


def to_bytes(figure: "Figure", format: str = "svg") -> bytes:
    """The figure as a PNG or SVG file's bytes (SVG without a date: the same figure
    gives the same bytes)."""
    if format not in FORMATS:
        raise UsageError(f"a figure is written as {' or '.join(FORMATS)}, not {format!r}")
    buffer = io.BytesIO()
    metadata = {"Date": None} if format == "svg" else {"Software": None}
    with _style():
        figure.savefig(buffer, format=format, metadata=metadata, dpi=150 if format == "png" else None)
    return buffer.getvalue()


def save(figure: "Figure", path: str | Path, *, inputs: Sequence[str | Path] = ()) -> None:
    """Write ``figure`` to ``path`` (its suffix says PNG or SVG), atomically, never over
    one of ``inputs``."""
    from .io.files import atomic_write

    atomic_write(path, to_bytes(figure, format_of(path)), inputs=inputs)
