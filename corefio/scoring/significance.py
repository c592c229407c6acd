"""Is one system really better than another? Paired tests and confidence intervals over documents.

A corpus score is formed from the sums of per-document counts (the reference scorer's
micro-average), so every resampled score here is formed the same way: per-document
numerators and denominators are resampled, summed, and only then turned into recall,
precision and F1. Averaging per-document F1s would test another quantity.

For each metric a document contributes a row of counts:

* a metric with one :class:`~corefio.metrics.base.Score` (MUC, B³, CEAF, LEA, mention
  identification...): ``recall_num, recall_den, precision_num, precision_den``;
* BLANC: those four for its coreference half, then for its non-coreference half (a half
  whose key count sums to 0 is left out of the mean, as the reference scorer does);
* the CoNLL average: the rows of MUC, B³ and CEAFe side by side.

The tests, on two systems A and B scored against the same key (documents paired by
name):

**approximate randomisation** (Noreen 1989; Yeh 2000): under the null hypothesis the two
systems' outputs are exchangeable document by document, so each sample swaps the two
systems' count rows of a random half of the documents and recomputes
``|F(A*) - F(B*)|``. The p-value is ``(1 + #{samples at least as far apart as
observed}) / (1 + samples)``. With ``2^documents <= samples`` every swap is enumerated
instead, and the p-value is exact (``#{swaps at least as far apart} / 2^documents``).

**paired bootstrap** (Efron & Tibshirani 1993; Koehn 2004; Berg-Kirkpatrick et al.
2012): each sample draws documents with replacement, the same draw for both systems;
``d* = F(A*) - F(B*)``. Centred on the observed difference ``d``, the two-sided p-value
is ``(1 + #{|d* - d| >= |d|}) / (1 + samples)``.

**percentile bootstrap confidence intervals** for each system's F1: the
``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of ``F(X*)`` over the same draws.

Everything is vectorised with numpy: a sample is one row of a swap (or multiplicity)
matrix, and the summed counts of all samples are one matrix product.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from ..errors import UsageError
from ..metrics.base import BlancScore, Score
from .render import DocumentScores, Scores, percent, signed_percent

#: metrics that can be resampled, beyond those whose results are a single Score
_DERIVED = {"conll": ("muc", "bcub", "ceafe")}


# ---------------------------------------------------------------------------------------------
# per-document counts and F1 from summed counts
# ---------------------------------------------------------------------------------------------
def _score_row(score: Score) -> list[float]:
    return [float(score.recall_num), float(score.recall_den), float(score.precision_num),
            float(score.precision_den)]


def _row(result: Any, metric: str) -> list[float]:
    if isinstance(result, Score):
        return _score_row(result)
    if isinstance(result, BlancScore):
        return _score_row(result.coref) + _score_row(result.noncoref)
    raise UsageError(f"metric {metric!r} has no per-document counts to resample "
                     f"(significance works for metrics whose corpus score sums document counts)")


def _width(metric: str) -> int:
    """How many counts a document's row of ``metric`` holds."""
    return 8 if metric == "blanc" else 4 * len(_DERIVED.get(metric, (metric,)))


def _counts_of(doc: DocumentScores, metrics: Sequence[str]) -> list[float]:
    """A document's counts for ``metrics``, side by side."""
    row: list[float] = []
    for metric in metrics:
        for part in _DERIVED.get(metric, (metric,)):
            if part not in doc.results:
                raise UsageError(f"metric {part!r} was not scored for document {doc.name!r}")
            row.extend(_row(doc.results[part], part))
    return row


def document_counts(scores: Scores, metric: str) -> np.ndarray:
    """The ``(documents, k)`` matrix of counts for ``metric`` (see the module docstring)."""
    rows = [_counts_of(doc, [metric]) for doc in scores.documents]
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), _width(metric))


@dataclass(frozen=True, slots=True)
class DocumentRow:
    """What :func:`compare` keeps of a document's results: its name and its counts for
    the compared metrics, side by side (about 200 bytes, where its
    :class:`~corefio.scoring.render.DocumentScores` take some kilobytes: the 100x
    benchmark corpus has 28,000 documents a system)."""

    name: str
    counts: np.ndarray


class RowsOf:
    """``summarise`` for :func:`corefio.scoring.score`: a document's :class:`DocumentRow`
    for ``metrics`` (a class: it travels to worker processes by pickle)."""

    def __init__(self, metrics: Sequence[str]) -> None:
        self.metrics = list(metrics)

    def __call__(self, doc: DocumentScores) -> DocumentRow:
        return DocumentRow(doc.name, np.asarray(_counts_of(doc, self.metrics), dtype=np.float64))


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _f1_of_counts(c: np.ndarray) -> np.ndarray:
    """F1 from summed ``recall_num, recall_den, precision_num, precision_den`` (last axis)."""
    recall = _ratio(c[..., 0], c[..., 1])
    precision = _ratio(c[..., 2], c[..., 3])
    return _ratio(2 * recall * precision, recall + precision)


def f1_from_sums(metric: str, sums: np.ndarray) -> np.ndarray:
    """The corpus F1 of ``metric`` from summed count rows (any leading shape)."""
    if metric == "blanc":
        coref, noncoref = sums[..., 0:4], sums[..., 4:8]
        keep_c, keep_n = coref[..., 1] != 0, noncoref[..., 1] != 0
        total = np.where(keep_c, _f1_of_counts(coref), 0) + np.where(keep_n, _f1_of_counts(noncoref), 0)
        return _ratio(total, keep_c.astype(float) + keep_n.astype(float))
    parts = len(_DERIVED.get(metric, (metric,)))
    total = _f1_of_counts(sums[..., 0:4])
    for k in range(1, parts):
        total = total + _f1_of_counts(sums[..., 4 * k:4 * k + 4])
    return total / parts


# ---------------------------------------------------------------------------------------------
# the tests
# ---------------------------------------------------------------------------------------------
def _all_swaps(documents: int) -> np.ndarray:
    """Every subset of documents as a 0/1 matrix, ``(2^documents, documents)``."""
    codes = np.arange(1 << documents, dtype=np.int64)[:, None]
    return ((codes >> np.arange(documents)) & 1).astype(np.float64)


def randomisation_test(metric: str, a: np.ndarray, b: np.ndarray, moved: np.ndarray, exact: bool) -> float:
    """Approximate randomisation (exact when the samples are every swap there is): the
    p-value. ``moved``: for each sample, ``swaps @ (b - a)``, what swapping its documents
    (a 0/1 row) adds to A's summed counts."""
    observed = abs(float(f1_from_sums(metric, a.sum(0)) - f1_from_sums(metric, b.sum(0))))
    stats = np.abs(f1_from_sums(metric, a.sum(0) + moved) - f1_from_sums(metric, b.sum(0) - moved))
    # a tolerance for float sums: a sample as far apart as observed counts as such
    at_least = int(np.count_nonzero(stats >= observed - 1e-12))
    return at_least / len(moved) if exact else (1 + at_least) / (1 + len(moved))


#: matrix cells drawn at a time: a block of samples holds at most this many
#: ``samples × documents`` cells (4 MB of float64), so memory does not grow with the
#: number of samples, nor, past ``CELLS / BLOCK`` documents, with the corpus (10,000
#: samples of the 100x benchmark corpus's 28,000 documents would be 2.2 GB a matrix).
#: Drawn in blocks, the generator gives the same numbers as in one call.
CELLS = 1 << 19
#: most samples a block holds (small corpora)
BLOCK = 1000


def _blocks(samples: int, documents: int) -> Iterable[int]:
    """The sizes of the blocks ``samples`` are drawn in, for a corpus of ``documents``."""
    size = max(1, min(BLOCK, CELLS // max(1, documents)))
    for start in range(0, samples, size):
        yield min(size, samples - start)


def _draws(documents: int, samples: int, rng: np.random.Generator) -> np.ndarray:
    """How often each document is drawn in each bootstrap sample, ``(samples, documents)``."""
    picks = rng.integers(0, documents, size=(samples, documents))
    picks += np.arange(samples)[:, None] * documents  # a cell number per draw
    return np.bincount(picks.ravel(), minlength=samples * documents).reshape(samples, documents).astype(np.float64)


def bootstrap_test(metric: str, a: np.ndarray, b: np.ndarray, a_star: np.ndarray, b_star: np.ndarray) -> float:
    """Paired bootstrap, centred on the observed difference: the two-sided p-value.
    ``a_star``, ``b_star``: the summed counts of each sample (``draws @ a``, ``draws @ b``)."""
    observed = float(f1_from_sums(metric, a.sum(0)) - f1_from_sums(metric, b.sum(0)))
    deltas = f1_from_sums(metric, a_star) - f1_from_sums(metric, b_star)
    far = int(np.count_nonzero(np.abs(deltas - observed) >= abs(observed) - 1e-12))
    return (1 + far) / (1 + len(deltas))


def confidence_interval(metric: str, sampled_sums: np.ndarray, level: float) -> tuple[float, float]:
    """Percentile bootstrap interval of the corpus F1 (``sampled_sums``: ``draws @ counts``)."""
    values = f1_from_sums(metric, sampled_sums)
    low, high = np.quantile(values, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


# ---------------------------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SystemResult:
    """One system's corpus F1 for one metric, with its confidence interval."""

    system: str
    metric: str
    f1: float
    low: float
    high: float


@dataclass(frozen=True)
class PairResult:
    """Two systems compared on one metric."""

    first: str
    second: str
    metric: str
    difference: float  #: F1(first) - F1(second)
    p_randomisation: float
    p_bootstrap: float
    exact: bool  #: the randomisation p-value enumerated every swap


@dataclass
class Comparison:
    """What :func:`compare` returns: per system and metric, per pair and metric."""

    systems: list[str]
    metrics: list[str]
    documents: list[str]
    samples: int
    seed: int | None
    level: float
    results: list[SystemResult] = field(default_factory=list)
    pairs: list[PairResult] = field(default_factory=list)
    #: what the reader of the table should know (too few documents...)
    notes: list[str] = field(default_factory=list)

    def result(self, system: str, metric: str) -> SystemResult:
        return next(r for r in self.results if r.system == system and r.metric == metric)

    def to_dict(self) -> dict:
        return {
            "systems": self.systems, "metrics": self.metrics, "documents": len(self.documents),
            "samples": self.samples, "seed": self.seed, "confidence": self.level,
            "scores": {s: {r.metric: {"f1": r.f1, "ci": [r.low, r.high]} for r in self.results if r.system == s}
                       for s in self.systems},
            "pairs": [{"first": p.first, "second": p.second, "metric": p.metric, "difference": p.difference,
                       "p_randomisation": p.p_randomisation, "p_bootstrap": p.p_bootstrap,
                       "exact": p.exact} for p in self.pairs],
            "notes": self.notes,
        }

    def to_text(self) -> str:
        pct = f"{100 * self.level:g}%"
        width = max([len(s) for s in self.systems] + [6])
        lines = [f"{len(self.documents)} documents, {self.samples} samples"
                 + (f", seed {self.seed}" if self.seed is not None else "")
                 + f"; F1 with its {pct} bootstrap confidence interval", ""]
        lines.append(f"{'system':<{width}}  " + "  ".join(f"{m:>22}" for m in self.metrics))
        for s in self.systems:
            cells = []
            for m in self.metrics:
                r = self.result(s, m)
                cells.append(f"{percent(r.f1):>6} [{percent(r.low):>6}, {percent(r.high):>6}]")
            lines.append(f"{s:<{width}}  " + "  ".join(f"{c:>22}" for c in cells))
        if self.pairs:
            lines += ["", "paired tests (p-values: approximate randomisation, paired bootstrap)"]
            for p in self.pairs:
                exact = " (exact)" if p.exact else ""
                lines.append(f"{p.first} vs {p.second}  {p.metric:<8} ΔF1 {signed_percent(p.difference):>7}  "
                             f"p_AR {p.p_randomisation:.4f}{exact}  p_boot {p.p_bootstrap:.4f}")
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# the entry point
# ---------------------------------------------------------------------------------------------
def compare_scores(scored: Sequence[tuple[str, Scores]], metrics: Sequence[str], *, samples: int = 10_000,
                   seed: int | None = None, level: float = 0.95) -> Comparison:
    """Compare systems already scored per document against one key (documents paired by
    name; every system must have the same documents)."""
    if samples < 1:
        raise UsageError("the number of samples must be at least 1")
    if not 0 < level < 1:
        raise UsageError("the confidence level must lie between 0 and 1")
    names = [name for name, _ in scored]
    documents = [d.name for d in scored[0][1].documents]
    for name, scores in scored[1:]:
        theirs = [d.name for d in scores.documents]
        if sorted(theirs) != sorted(documents):
            missing = sorted(set(documents) - set(theirs))[:3]
            extra = sorted(set(theirs) - set(documents))[:3]
            raise UsageError(f"{name} was scored on other documents than {names[0]} "
                             f"(missing {missing}, extra {extra})")
    order = {n: k for k, n in enumerate(documents)}
    # every metric's count columns side by side: one matrix product per system (bootstrap)
    # and per pair (randomisation) serves all metrics
    columns: dict[str, slice] = {}
    start = 0
    for metric in metrics:
        columns[metric] = slice(start, start + _width(metric))
        start += _width(metric)
    stacked: dict[str, np.ndarray] = {}
    for name, scores in scored:
        stacked[name] = np.zeros((len(documents), start))
        for doc in scores.documents:
            stacked[name][order[doc.name]] = (doc.counts if isinstance(doc, DocumentRow)
                                              else _counts_of(doc, metrics))
    rng = np.random.default_rng(seed)
    parts: dict[str, list[np.ndarray]] = {name: [] for name in names}
    for size in _blocks(samples, len(documents)):
        draws = _draws(len(documents), size, rng)
        for name in names:
            parts[name].append(draws @ stacked[name])
    sampled = {name: np.vstack(parts[name]) for name in names}
    out = Comparison(names, list(metrics), documents, samples, seed, level)
    if len(documents) < 2:
        out.notes.append("one document: there is nothing to resample, so the intervals are points and "
                         "the p-values are 1")
    for name in names:
        for metric in metrics:
            c = columns[metric]
            low, high = confidence_interval(metric, sampled[name][:, c], level)
            out.results.append(SystemResult(name, metric, float(f1_from_sums(metric, stacked[name][:, c].sum(0))),
                                            low, high))
    for first, second in combinations(names, 2):
        difference = stacked[second] - stacked[first]
        exact = len(documents) < 63 and (1 << len(documents)) <= samples
        if exact:  # every swap there is
            moved = _all_swaps(len(documents)) @ difference
        else:  # drawn in blocks (see BLOCK)
            moved = np.vstack([rng.integers(0, 2, size=(size, len(documents))).astype(np.float64) @ difference
                               for size in _blocks(samples, len(documents))])
        for metric in metrics:
            c = columns[metric]
            a, b = stacked[first][:, c], stacked[second][:, c]
            out.pairs.append(PairResult(
                first, second, metric,
                float(f1_from_sums(metric, a.sum(0)) - f1_from_sums(metric, b.sum(0))),
                randomisation_test(metric, a, b, moved[:, c], exact),
                bootstrap_test(metric, a, b, sampled[first][:, c], sampled[second][:, c])
                if len(documents) > 1 else 1.0, exact))
    return out


def _asked(metrics: Iterable[str], names: Sequence[str] | None, responses: Sequence[Any]
           ) -> tuple[list[str], list[str], list[str]]:
    """The metrics asked, those to score (a derived metric's parts added), and one
    distinct name per response (the responses themselves by default)."""
    metrics = list(metrics)
    wanted = [m for m in metrics if m not in _DERIVED]
    for m in metrics:
        wanted.extend(p for p in _DERIVED.get(m, ()) if p not in wanted)
    names = list(names) if names is not None else [str(r) for r in responses]
    if len(names) != len(responses):
        raise UsageError("give one name per response")
    if len(set(names)) != len(names):
        raise UsageError(f"two responses have the same name: {names}")
    return metrics, wanted, names


def compare(key: Any, responses: Sequence[Any], metrics: Iterable[str] = ("muc", "bcub", "ceafe", "conll"), *,
            names: Sequence[str] | None = None, samples: int = 10_000, seed: int | None = None,
            level: float = 0.95, **score_options: Any) -> Comparison:
    """Score every response against ``key`` per document, then compare them: a
    confidence interval per system and metric, and paired tests for every pair of
    systems (see the module docstring). ``score_options`` go to :func:`corefio.score`
    (``match``, ``keep_singletons``, ``pair_by``...)."""
    from .engine import score

    metrics, wanted, names = _asked(metrics, names, responses)
    scored = []
    for name, response in zip(names, responses):
        # each document's counts only (RowsOf): a usage error for a metric that has none
        result = score(key, response, wanted, per_document=True, summarise=RowsOf(metrics), **score_options)
        if not isinstance(result, Scores):
            raise UsageError("compare scores plain (unsynchronised) results; leave out sync")
        scored.append((name, result))
    return compare_scores(scored, metrics, samples=samples, seed=seed, level=level)


def compare_cross(key: Any, responses: Sequence[Any], metrics: Iterable[str] = ("muc", "bcub", "ceafe", "conll"), *,
                  names: Sequence[str] | None = None, samples: int = 10_000, seed: int | None = None,
                  level: float = 0.95, **cross_options: Any) -> Comparison:
    """:func:`compare` across documents: every response scored by
    :func:`corefio.scoring.crossdoc.score_cross` (``cross_options``: ``settings``,
    ``key_format``, ``topics``...), the units (topics, subtopics) resampled in place of
    documents. The corpus read once is scored against each response."""
    from .crossdoc import load, score_cross

    metrics, wanted, names = _asked(metrics, names, responses)
    report = cross_options.pop("report", None)
    from ..diagnostics import Report

    report = report if report is not None else Report()
    key_corpus = load(key, cross_options.pop("key_format", None), report, cross_options.get("topics"),
                      cross_options.get("topic_pattern"))
    scored = [(name, score_cross(key_corpus, response, wanted, per_unit=True, report=report, **cross_options))
              for name, response in zip(names, responses)]
    out = compare_scores(scored, metrics, samples=samples, seed=seed, level=level)
    settings = cross_options.get("settings")
    unit = settings.level if settings is not None else "topic"
    out.notes.append(f"across documents: the {len(out.documents)} units resampled are {unit}s")
    return out
