"""Score results and their outputs: JSON, CSV and the reference scorer's text layout."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..diagnostics import Report
from ..metrics.base import BlancScore, Score, Value
from ..metrics.typed import TypedResult, macro_average, micro_average

#: the columns of :meth:`Scores.to_csv`
CSV_HEADER = ["document", "metric", "recall_num", "recall_den", "recall", "precision_num", "precision_den",
              "precision", "f1", "value"]


def percent(value: float | Fraction | None) -> str:
    """A score in [0, 1] as a percentage with two decimals, rounded half up: the one rule of
    every table corefio shows (``score``'s table, ``--sync``, the web page). The decimal
    value of the float is rounded, not its binary approximation: 0.84615 gives 84.62,
    0.846249 gives 84.62, 0.00005 gives 0.01. JSON and CSV keep the full values; the
    reference scorer's transcript (``--format scorer``) truncates, as scorer.pl does."""
    if value is None:
        return "–"
    exact = Decimal(str(value.numerator)) / Decimal(str(value.denominator)) if isinstance(value, Fraction) \
        else Decimal(repr(float(value)))
    return str((exact * 100).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def signed_percent(value: float | Fraction) -> str:
    """:func:`percent` with its sign (+ for a gain, also for 0.00): differences of F1."""
    shown = percent(-value if value < 0 else value)
    return ("-" if value < 0 and shown != "0.00" else "+") + shown


class ConllScore(dict):
    """The CoNLL average: ``f1`` is the mean of the F1 of MUC, B³ and CEAFe (the official
    CoNLL-2011/2012 score). ``recall`` and ``precision`` are the means of those three
    metrics' recalls and precisions, given so that every score has the three names; the
    F1 is *not* their harmonic mean. It is also the mapping ``{"f1": ...}`` of earlier
    versions (and of the JSON output, which gives the F1 only)."""

    def __init__(self, muc: Any, bcub: Any, ceafe: Any) -> None:
        parts = (muc, bcub, ceafe)
        super().__init__(f1=sum((Fraction(p.f1) for p in parts), Fraction(0)) / 3)
        self.recall = sum((Fraction(p.recall) for p in parts), Fraction(0)) / 3
        self.precision = sum((Fraction(p.precision) for p in parts), Fraction(0)) / 3

    @property
    def f1(self) -> Fraction:
        return self["f1"]

    def __repr__(self) -> str:
        return f"ConllScore(f1={float(self.f1):.6g})"

    def __reduce__(self):  # pickled with its attributes (scores cross process boundaries)
        return (_conll_score, (dict(self), self.recall, self.precision))


def _conll_score(data: dict, recall: Fraction, precision: Fraction) -> ConllScore:
    out = ConllScore.__new__(ConllScore)
    dict.__init__(out, data)
    out.recall, out.precision = recall, precision
    return out


@dataclass(frozen=True)
class Rates:
    """Recall, precision and F1 (floats) of one level or class of the typed evaluation;
    ``counts`` holds the class's counts where there are some."""

    recall: float
    precision: float
    f1: float
    counts: dict[str, Any] = field(default_factory=dict)


class TypedScore:
    """The typed evaluation (``-m typed``) as objects: ``micro``, ``macro`` and ``scheme``
    averages and each class and type, every one a :class:`Rates`; ``recall``,
    ``precision`` and ``f1`` are the micro average's. :meth:`as_dict` (and the JSON
    output) gives the documented nested shape."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def _rates(self, d: dict[str, Any]) -> Rates:
        return Rates(d["recall"], d["precision"], d["f1"], dict(d.get("counts", {})))

    @property
    def micro(self) -> Rates:
        return self._rates(self._data["micro"])

    @property
    def macro(self) -> Rates:
        return self._rates(self._data["macro"])

    @property
    def scheme(self) -> Rates:
        return self._rates(self._data["scheme"])

    @property
    def classes(self) -> dict[str, Rates]:
        return {name: self._rates(d) for name, d in self._data["classes"].items()}

    @property
    def types(self) -> dict[str, Rates]:
        return {name: self._rates(d) for name, d in self._data["types"].items()}

    @property
    def coefficients(self) -> list[float]:
        return list(self._data["coefficients"])

    @property
    def recall(self) -> float:
        return self.micro.recall

    @property
    def precision(self) -> float:
        return self.micro.precision

    @property
    def f1(self) -> float:
        return self.micro.f1

    def as_dict(self) -> dict[str, Any]:
        return self._data

    def __repr__(self) -> str:
        return f"TypedScore(micro F1={self.f1:.6g}, classes={sorted(self._data['classes'])})"


@dataclass
class DocumentScores:
    """One document's results, by metric name."""

    name: str
    results: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)
class Scores(Mapping):
    """Corpus and per-document results, and the diagnostics of the run.

    A read-only mapping of metric name → corpus score, in the order of ``metrics``
    (``scores["muc"].f1``, ``for name, score in scores.items()``, ``"lea" in scores``).
    Every score has ``recall``, ``precision`` and ``f1``: :class:`~corefio.metrics.base.Score`
    and ``BlancScore`` as fractions, :class:`ConllScore`, :class:`TypedScore`; the
    single-number measures (kappa, DMT, D-err) are ``Value``\\ s with ``value``."""

    metrics: list[str]
    corpus: dict[str, Any]
    documents: list[DocumentScores]
    report: Report
    macro: dict[str, dict[str, float]] | None = None
    options: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, metric: str) -> Any:
        return self.corpus[metric]

    def __iter__(self) -> Iterator[str]:
        return iter([m for m in self.metrics if m in self.corpus])

    def __len__(self) -> int:
        return sum(1 for m in self.metrics if m in self.corpus)

    # -- JSON -------------------------------------------------------------------------------
    def to_dict(self, per_document: bool = True) -> dict:
        """The documented JSON shape; ``documents`` is empty unless per-document scores
        were computed (``per_document=True`` when scoring)."""
        out: dict[str, Any] = {"corpus": {m: to_jsonable(self.corpus[m]) for m in self.metrics}}
        out["documents"] = {d.name: {m: to_jsonable(d.results[m]) for m in self.metrics if m in d.results}
                            for d in self.documents} if per_document else {}
        if self.macro is not None:
            out["macro"] = self.macro
        out["diagnostics"] = [d.to_dict() for d in self.report]
        return out

    def to_json(self, per_document: bool = True) -> str:
        return json.dumps(self.to_dict(per_document), indent=2, ensure_ascii=False)

    # -- CSV --------------------------------------------------------------------------------
    def to_csv(self, per_document: bool = True) -> str:
        """One row per metric (and BLANC half, typed level): the corpus (``#corpus``),
        every document with ``per_document``, and the means of document values
        (``#macro``, recall, precision and F1 only) when they were computed."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(CSV_HEADER)
        w.writerows(self.csv_rows(per_document))
        return buf.getvalue()

    def csv_rows(self, per_document: bool = True) -> Iterator[list[Any]]:
        """The rows of :meth:`to_csv` after its header, as lists of values."""
        rows = [("#corpus", self.corpus)]
        if per_document:
            rows += [(d.name, d.results) for d in self.documents]
        for name, results in rows:
            for m in self.metrics:
                if m not in results:
                    continue
                for label, item in _flat(m, to_jsonable(results[m])):
                    yield [name, label, *item]
        for m, v in (self.macro or {}).items():
            yield ["#macro", m, "", "", v["recall"], "", "", v["precision"], v["f1"], ""]

    # -- text -------------------------------------------------------------------------------
    def to_table(self, per_document: bool = False) -> str:
        """The scores as a compact table (what ``corefio score`` prints by default): one
        row per metric with recall, precision and F1 in % (:func:`percent`), mention
        identification last; with ``per_document``, then one row per document with each
        metric's F1 (the main value of the metrics that have no F1). The CoNLL average
        has an F1 only."""
        rows = [(m, _prf_cells(self.corpus[m])) for m in self.metrics if m != "mentions"]
        if "mentions" in self.corpus:
            rows.append(("mentions", _prf_cells(self.corpus["mentions"])))
        width = max([len("metric"), *(len(name) for name, _ in rows)])
        lines = [f"{'metric':<{width}}  {'recall':>9}  {'precision':>9}  {'F1':>9}"]
        lines += [f"{name:<{width}}  " + "  ".join(f"{cell:>9}" for cell in cells) for name, cells in rows]
        if self.macro:
            lines.append("")
            lines.append(f"{'macro':<{width}}  {'recall':>9}  {'precision':>9}  {'F1':>9}"
                         "   (means of the document scores)")
            for m, v in self.macro.items():
                lines.append(f"{m:<{width}}  {percent(v['recall']):>9}  {percent(v['precision']):>9}  "
                             f"{percent(v['f1']):>9}")
        if per_document and self.documents:
            names = [m for m in self.metrics if m != "mentions"] + (["mentions"] if "mentions" in self.metrics
                                                                     else [])
            first = min(max(len("document"), *(len(d.name) for d in self.documents)), 40)
            columns = [max(len(m), 6) for m in names]
            lines.append("")
            lines.append(f"{'document':<{first}}  " + "  ".join(f"{m:>{w}}" for m, w in zip(names, columns))
                         + "   (F1, %)")
            for d in self.documents:
                name = d.name if len(d.name) <= first else d.name[:first - 1] + "…"
                cells = [_main_cell(d.results.get(m)) for m in names]
                lines.append(f"{name or '(unnamed)':<{first}}  "
                             + "  ".join(f"{c:>{w}}" for c, w in zip(cells, columns)))
        return "\n".join(lines) + "\n"

    def to_text(self, per_document: bool = False) -> str:
        """The reference scorer's transcript (``corefio score --format scorer``):
        ``METRIC`` blocks, counts and percentages truncated to two decimals."""
        lines: list[str] = []
        for m in self.metrics:
            if m == "mentions":
                continue
            lines.append(f"METRIC {m}:")
            said = _scorer_says(self.report)
            if per_document:
                for d in self.documents:
                    if m in d.results:
                        lines.append(f"{d.name}:")
                        lines.extend(said.get(d.name, []))
                        lines.extend(_text_block(m, d.results[m]))
            else:
                lines.extend(line for document in said.values() for line in document)
            lines.append("")
            lines.append("====== TOTALS =======")
            if "mentions" in self.corpus:
                lines.append("Identification of Mentions: " + _rpf(self.corpus["mentions"]))
                lines.append("-" * 74)
            if isinstance(self.corpus[m], BlancScore):
                lines += ["", "Coreference:"]  # as scorer.pl heads BLANC's totals
            lines.extend(_text_block(m, self.corpus[m]))
            lines.append("")
        if self.metrics == ["mentions"]:
            lines.append("Identification of Mentions: " + _rpf(self.corpus["mentions"]))
        if self.macro:
            lines.append("Macro averages over documents (R / P / F1, %):")
            for m, v in self.macro.items():
                lines.append(f"  {m:<12} {percent(v['recall']):>6}  {percent(v['precision']):>6}  {percent(v['f1']):>6}")
        return "\n".join(lines).rstrip() + "\n"


@dataclass
class SyncScores:
    """Popescu-Belis et al.'s (2004) score sets: one :class:`Scores` per synchronisation strategy, side by
    side, and mention identification once (computed before any strategy changes the
    mention sets).

    JSON shape::

        {"sync": {"key": {metric: result, ...}, "response": {...}, "intersection": {...},
                  "union": {...}},
         "mentions": {"recall": ..., "precision": ..., "f1": ...},
         "documents": {"key": {document: {metric: result}}, ...},   (with per_document)
         "options": {"match": "exact", "zeros": "drop"},
         "diagnostics": [...]}
    """

    sets: dict[str, Scores]
    mentions: Scores
    report: Report
    options: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, strategy: str) -> Scores:
        return self.sets[strategy]

    @property
    def metrics(self) -> list[str]:
        return next(iter(self.sets.values())).metrics

    def to_dict(self, per_document: bool = True) -> dict:
        out: dict[str, Any] = {
            "sync": {s: {m: to_jsonable(sc.corpus[m]) for m in sc.metrics if m != "mentions"}
                     for s, sc in self.sets.items()},
            "mentions": to_jsonable(self.mentions.corpus["mentions"]),
        }
        out["documents"] = {s: sc.to_dict(True)["documents"] for s, sc in self.sets.items()} if per_document else {}
        out["options"] = self.options
        out["diagnostics"] = [d.to_dict() for d in self.report]
        return out

    def to_json(self, per_document: bool = True) -> str:
        return json.dumps(self.to_dict(per_document), indent=2, ensure_ascii=False)

    def to_csv(self, per_document: bool = True) -> str:
        """The rows of :meth:`Scores.to_csv` with the strategy in front."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["strategy", *CSV_HEADER])
        for strategy, scores in [("-", self.mentions), *self.sets.items()]:
            # the rows themselves, not their CSV text read back: a document name may
            # be longer than the csv module's field limit
            for row in scores.csv_rows(per_document):
                if strategy != "-" and row[1] == "mentions":
                    continue
                w.writerow([strategy, *row])
        return buf.getvalue()

    def to_table(self, per_document: bool = False) -> str:
        """What ``corefio score --sync`` prints: :meth:`to_text` (a table already)."""
        return self.to_text(per_document)

    def to_text(self, per_document: bool = False) -> str:
        """Every metric's recall / precision / F1 (%), one column per strategy."""
        strategies = list(self.sets)
        width = 26  # "100.00 / 100.00 / 100.00" and two spaces before it
        lines = ["Identification of Mentions: " + _rpf(self.mentions.corpus["mentions"], _rounded), ""]
        lines.append(f"{'metric':<12}" + "".join(f"{s:>{width}}" for s in strategies))
        lines.append(f"{'':<12}" + "".join(f"{'R / P / F1':>{width}}" for _ in strategies))
        for m in self.metrics:
            if m == "mentions":
                continue
            cells = []
            for s in strategies:
                data = to_jsonable(self.sets[s].corpus[m])
                cells.append(_cell(data))
            lines.append(f"{m:<12}" + "".join(f"{c:>{width}}" for c in cells))
        if per_document:
            for s in strategies:
                lines.append("")
                lines.append(f"== {s} ==")
                lines.append(self.sets[s].to_text(True).rstrip())
        return "\n".join(lines).rstrip() + "\n"


def _prf_cells(result: Any) -> list[str]:
    """Recall, precision and F1 of one result as table cells (blank where there is none)."""
    if result is None:
        return ["–", "–", "–"]
    data = to_jsonable(result)
    if "recall" in data and isinstance(data["recall"], dict):
        return [percent(data["recall"]["value"]), percent(data["precision"]["value"]), percent(data["f1"])]
    if "micro" in data:
        d = data["micro"]
        return [percent(d["recall"]), percent(d["precision"]), percent(d["f1"])]
    if "value" in data:
        return ["", "", f"{data['value']:.4g}"]
    return ["", "", percent(data["f1"])]


def _main_cell(result: Any) -> str:
    """One result's F1 (%) for a per-document row (a metric's value when it has no F1)."""
    if result is None:
        return "–"
    return _prf_cells(result)[2]


def _cell(data: dict) -> str:
    if "recall" in data and isinstance(data["recall"], dict):
        return f"{percent(data['recall']['value'])} / {percent(data['precision']['value'])} / {percent(data['f1'])}"
    if "value" in data:
        return f"{data['value']:.4g}"
    if "f1" in data and len(data) == 1:
        return f"F1 {percent(data['f1'])}"
    if "micro" in data:
        d = data["micro"]
        return f"{percent(d['recall'])} / {percent(d['precision'])} / {percent(d['f1'])}"
    return "-"


def _num(x) -> int | float:
    if isinstance(x, Fraction):
        return x.numerator if x.denominator == 1 else float(x)
    return x


def to_jsonable(result: Any) -> dict:
    """The documented JSON shape of one metric's result."""
    if isinstance(result, Score):
        return {"recall": {"num": _num(result.recall_num), "den": _num(result.recall_den), "value": float(result.recall)},
                "precision": {"num": _num(result.precision_num), "den": _num(result.precision_den),
                              "value": float(result.precision)},
                "f1": float(result.f1)}
    if isinstance(result, BlancScore):
        return {"recall": {"num": None, "den": None, "value": float(result.recall)},
                "precision": {"num": None, "den": None, "value": float(result.precision)},
                "f1": float(result.f1),
                "coreference_links": to_jsonable(result.coref),
                "non_coreference_links": to_jsonable(result.noncoref)}
    if isinstance(result, Value):
        out: dict[str, Any] = {"value": float(result.value)}
        if result.direction is not None:
            out["direction"] = result.direction
        return out
    if isinstance(result, TypedScore):
        return result.as_dict()
    if isinstance(result, dict) and "typed" in result:
        return result["typed"]
    if isinstance(result, tuple) and len(result) == 2 and all(isinstance(v, Value) for v in result):
        r, p = (float(v.value) for v in result)
        f = 2 * r * p / (r + p) if r + p else 0.0
        return {"recall": {"num": None, "den": None, "value": r}, "precision": {"num": None, "den": None, "value": p},
                "f1": f}
    if isinstance(result, dict) and "f1" in result:
        return {"f1": float(result["f1"])}
    raise TypeError(f"cannot serialise {result!r}")


def _flat(metric: str, data: dict) -> list[tuple[str, list]]:
    if "recall" in data:
        r, p = data["recall"], data["precision"]
        rows = [(metric, [r["num"], r["den"], r["value"], p["num"], p["den"], p["value"], data["f1"], ""])]
        for half in ("coreference_links", "non_coreference_links"):
            if half in data:
                rows += _flat(f"{metric}.{half}", data[half])
        return rows
    if "value" in data:
        return [(metric, ["", "", "", "", "", "", "", data["value"]])]
    if "f1" in data and len(data) == 1:
        return [(metric, ["", "", "", "", "", "", data["f1"], ""])]
    rows = []
    for level in ("micro", "macro", "scheme"):
        if level in data:
            d = data[level]
            rows.append((f"{metric}.{level}", ["", "", d["recall"], "", "", d["precision"], d["f1"], ""]))
    return rows


def _pct(x: float) -> str:
    """Percentages truncated to two decimals, as scorer.pl prints them."""
    return f"{int(x * 10000) / 100:g}%"


def _count(x) -> str:
    x = _num(x)
    return f"{x:.15g}" if isinstance(x, float) else str(x)


def _rounded(x: float) -> str:
    """A percentage rounded half up (:func:`percent`), with its sign."""
    return f"{percent(x)}%"


def _rpf(s: Score, pct=_pct) -> str:
    """scorer.pl's ``ShowRPF``: the counts, then recall, precision and F1 computed as it
    computes them, in floating point (0.6 and 1 give F1 0.7499999999999999, printed
    74.99%), truncated to two decimals; or as ``pct`` gives them (``--sync``:
    :func:`_rounded`)."""
    recall, precision = _float_ratio(s.recall_num, s.recall_den), _float_ratio(s.precision_num, s.precision_den)
    return (f"Recall: ({_count(s.recall_num)} / {_count(s.recall_den)}) {pct(recall)}\t"
            f"Precision: ({_count(s.precision_num)} / {_count(s.precision_den)}) {pct(precision)}\t"
            f"F1: {pct(_float_f1(recall, precision))}")


def _float_ratio(num, den) -> float:
    return float(num) / float(den) if den else 0.0


def _float_f1(recall: float, precision: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def _blanc_line(result: BlancScore) -> str:
    """scorer.pl's BLANC line (``ScoreBLANC``): the mean of the two halves' recall,
    precision and F1 in floating point, a half left out when the key has no link of
    its kind."""
    halves = [(_float_ratio(h.recall_num, h.recall_den), _float_ratio(h.precision_num, h.precision_den))
              for h in (result.coref, result.noncoref) if h.recall_den]
    if halves:
        recall = sum(r for r, _ in halves) / len(halves)
        precision = sum(p for _, p in halves) / len(halves)
        f1 = sum(_float_f1(r, p) for r, p in halves) / len(halves)
    else:
        recall = precision = f1 = 0.0
    return (f"BLANC: Recall: ({_count(recall)} / 1) {_pct(recall)}\tPrecision: ({_count(precision)} / 1) "
            f"{_pct(precision)}\tF1: {_pct(f1)}")


def _scorer_says(report: Report) -> dict[str, list[str]]:
    """What scorer.pl prints of each document's repeated mentions ("Repeated mention in
    the key: ..."), as scoring found it (``score.scorer-transcript``, one info
    diagnostic a document: :func:`corefio.scoring.views.scorer_lines`). scorer.pl prints
    them at the start of each metric, for every document, in the order of a Perl hash
    (which changes from run to run): corefio in the order of the documents."""
    said: dict[str, list[str]] = {}
    for d in report.by_code("score.scorer-transcript"):
        said.setdefault(d.document or "", []).extend(d.message.split("\n"))
    return said


def _text_block(metric: str, result: Any) -> list[str]:
    dash = "-" * 74
    if isinstance(result, Score):
        return ["Coreference: " + _rpf(result), dash]
    if isinstance(result, BlancScore):
        return ["Coreference links: " + _rpf(result.coref), dash,
                "Non-coreference links: " + _rpf(result.noncoref), dash, _blanc_line(result), dash]
    data = to_jsonable(result)
    if "recall" in data:
        return [f"Coreference: Recall: {_pct(data['recall']['value'])}\tPrecision: {_pct(data['precision']['value'])}"
                f"\tF1: {_pct(data['f1'])}", dash]
    if "value" in data:
        direction = f" ({data['direction']})" if "direction" in data else ""
        return [f"{metric}: {data['value']:.6g}{direction}", dash]
    if "micro" in data:
        out = []
        for level in ("micro", "macro", "scheme"):
            d = data[level]
            out.append(f"{level}: Recall: {_pct(d['recall'])}\tPrecision: {_pct(d['precision'])}\tF1: {_pct(d['f1'])}")
        for cls, d in sorted(data["classes"].items()):
            counts = " ".join(f"{k}={v}" for k, v in d["counts"].items())
            out.append(f"  class {cls}: {counts}  R {_pct(d['recall'])} P {_pct(d['precision'])} F1 {_pct(d['f1'])}")
        return out + [dash]
    return [f"F1: {_pct(data['f1'])}", dash]



def typed_json(result: TypedResult, k: Sequence[Fraction], scheme_classes: int | None) -> dict:
    classes = result.by_class
    n_scheme = scheme_classes if scheme_classes is not None else len(classes)

    def block(counts):
        return {"counts": counts.as_dict(), "recall": float(counts.recall(k)),
                "precision": float(counts.precision(k)), "f1": float(counts.f1(k))}

    micro = micro_average(classes.values(), k)
    macro = macro_average(classes.values(), k)
    scheme = macro_average(classes.values(), k, n_classes=n_scheme)

    def prf(t):
        p, r, f = t
        return {"recall": float(r), "precision": float(p), "f1": float(f)}

    return {"micro": prf(micro), "macro": prf(macro), "scheme": prf(scheme),
            "classes": {c: block(v) for c, v in sorted(classes.items())},
            "types": {c: block(v) for c, v in sorted(result.by_type.items())},
            "coefficients": [float(x) for x in k], "scheme_classes": n_scheme}


