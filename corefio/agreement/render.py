"""Agreement and adjudication results as text tables, JSON and CSV.

Percentages (F1) are rounded half up to two decimals by the scorer's own
:func:`corefio.scoring.render.percent`; α values are shown with four decimals, rounded
the same way. JSON and CSV keep full values (α and F1 as floats, and α's parts).
"""

from __future__ import annotations

import csv
import io
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

from ..metrics.alpha import Alpha
from ..scoring.render import percent
from .adjudication import Adjudication
from .measures import MENTION_MODES, PAIR_METRICS, Agreement, PlaceRow

_LABELS = {"muc": "MUC", "bcub": "B3", "ceafe": "CEAF-e", "lea": "LEA", "blanc": "BLANC", "conll": "CoNLL"}


def alpha_text(value: Fraction | float | None) -> str:
    if value is None:
        return "-"
    exact = Decimal(value.numerator) / Decimal(value.denominator) if isinstance(value, Fraction) else Decimal(value)
    return str(exact.quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP))


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        out.append("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(r, widths))))
    return "\n".join(line.rstrip() for line in out) + "\n"


def _columns() -> list[str]:
    return list(PAIR_METRICS) + [f"mentions:{m}" for m in MENTION_MODES]


def _heading(name: str) -> str:
    if name.startswith("mentions:"):
        return "ment." + name.split(":")[1]
    return _LABELS.get(name, name)


def to_text(result: Agreement, *, limit: int = 10) -> str:
    """The agreement report: α values, the pairwise table with its mean, and the documents
    (and passages) with the lowest chain α first."""
    names = result.annotators
    lines = [f"annotators: {', '.join(names)}",
             f"chain agreement (Krippendorff's alpha, {result.distance} distance): "
             f"{alpha_text(result.chain_alpha.value)}  "
             f"(D_o {alpha_text(result.chain_alpha.observed)}, D_e {alpha_text(result.chain_alpha.expected)}, "
             f"{result.chain_alpha.units} markables, {result.chain_alpha.missing} missing values)",
             f"mention agreement (unitizing alpha over the words, by nesting depth): "
             f"{alpha_text(result.unitizing.value)}"
             + ("  (" + ", ".join(f"{c} {alpha_text(result.unitizing.category_value(c))}"
                                  for c in sorted(result.unitizing.by_category)) + ")"
                if len(result.unitizing.by_category) > 1 else ""),
             ""]
    if result.sync:
        lines.append(f"pairwise F1 (%), synchronisation strategy {result.sync}:")
    else:
        lines.append("pairwise F1 (%):")
    rows = [["pair"] + [_heading(c) for c in _columns()]]
    for row in result.pairs:
        rows.append([f"{names[row.first]} / {names[row.second]}"] + [percent(row.f1[c]) for c in _columns()])
    if len(result.pairs) > 1:
        rows.append(["mean"] + [percent(result.mean[c]) for c in _columns()])
    lines.append(_table(rows))
    lines.append(_places("documents, lowest agreement first", result.documents, limit))
    if result.passages:
        lines.append(_places("passages, lowest agreement first", result.passages, limit))
    return "\n".join(lines)


def _places(title: str, places: list[PlaceRow], limit: int) -> str:
    rows = [["document", "sentences", "alpha", "CoNLL F1", "markables"]]
    for p in places[:limit]:
        rows.append([p.document, f"{p.sentences[0]}-{p.sentences[1]}" if p.sentences else "all",
                     alpha_text(p.alpha.value), percent(p.conll) if p.conll is not None else "-", str(p.markables)])
    more = f"({len(places) - limit} more; --format json or csv lists them all)\n" if len(places) > limit else ""
    return f"{title}:\n" + _table(rows) + more


def _alpha_dict(a: Alpha) -> dict[str, Any]:
    return {"alpha": float(a.value), "observed": float(a.observed), "expected": float(a.expected),
            "units": a.units, "values": a.values, "missing": a.missing}


def to_dict(result: Agreement) -> dict[str, Any]:
    names = result.annotators
    return {
        "annotators": names,
        "distance": result.distance,
        "sync": result.sync,
        "chain_alpha": _alpha_dict(result.chain_alpha),
        "unitizing_alpha": {"alpha": float(result.unitizing.value), "observed": float(result.unitizing.observed),
                            "expected": float(result.unitizing.expected),
                            "by_depth": {c: float(result.unitizing.category_value(c))
                                         for c in sorted(result.unitizing.by_category)}},
        "pairs": [{"annotators": [names[r.first], names[r.second]], "f1": {k: float(v) for k, v in r.f1.items()}}
                  for r in result.pairs],
        "mean": {k: float(v) for k, v in result.mean.items()},
        "documents": [_place_dict(p) for p in result.documents],
        "passages": [_place_dict(p) for p in result.passages],
    }


def _place_dict(p: PlaceRow) -> dict[str, Any]:
    return {"document": p.document, "sentences": list(p.sentences) if p.sentences else None,
            "chain_alpha": _alpha_dict(p.alpha), "conll_f1": float(p.conll) if p.conll is not None else None,
            "markables": p.markables}


def to_csv(result: Agreement) -> str:
    """One row per pair of annotators (and the mean), then one per document and passage."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    names = result.annotators
    writer.writerow(["row", "first", "second", "sentences", "chain_alpha", "markables"] + _columns())
    for r in result.pairs:
        writer.writerow(["pair", names[r.first], names[r.second], "", "", ""] + [float(r.f1[c]) for c in _columns()])
    writer.writerow(["mean", "", "", "", float(result.chain_alpha.value), result.chain_alpha.units]
                    + [float(result.mean[c]) for c in _columns()])
    for kind, places in (("document", result.documents), ("passage", result.passages)):
        for p in places:
            sentences = f"{p.sentences[0]}-{p.sentences[1]}" if p.sentences else ""
            conll = [float(p.conll) if p.conll is not None else ""]
            writer.writerow([kind, p.document, "", sentences, float(p.alpha.value), p.markables]
                            + [""] * (len(PAIR_METRICS) - 1) + conll + [""] * len(MENTION_MODES))
    return buffer.getvalue()


# --- adjudication -----------------------------------------------------------------------------

def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def conflicts_text(result: Adjudication, *, limit: int = 50) -> str:
    names = result.annotators
    rows = [["document", "sent.", "kind", "mention"] + names + ["decision"]]
    for c in result.conflicts[:limit]:
        rows.append([c.document, str(c.sentence or ""), c.kind + (" (tie)" if c.tie else ""), _short(c.text, 30)]
                    + [_short(c.said.get(n, "-"), 40) for n in names] + [_short(c.decision, 40)])
    head = (f"{len(result.conflicts)} conflict(s) between {', '.join(names)} "
            f"(rule: {result.keep})\n")
    more = (f"({len(result.conflicts) - limit} more; --report FILE.json lists them all)\n"
            if len(result.conflicts) > limit else "")
    return head + (_table(rows) if result.conflicts else "") + more


def conflicts_dict(result: Adjudication) -> dict[str, Any]:
    return {"annotators": result.annotators, "keep": result.keep,
            "conflicts": [c.as_dict() for c in result.conflicts]}


def conflicts_csv(result: Adjudication) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["document", "sentence", "kind", "tie", "first", "last", "mention"] + result.annotators
                    + ["decision"])
    for c in result.conflicts:
        writer.writerow([c.document, c.sentence or "", c.kind, c.tie, c.spans[0][0] + 1, c.spans[-1][1] + 1, c.text]
                        + [c.said.get(n, "") for n in result.annotators] + [c.decision])
    return buffer.getvalue()
