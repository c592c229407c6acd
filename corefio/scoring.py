"""Scoring: documents matched by name, partitions from the pivot model, every metric.

Steps for a key and a response (corpora, documents or files of any readable format):

1. **Match documents** by name and part (numeric parts compared as numbers). Names
   that do not match are an error (:class:`DocumentMismatchError`) — the reference
   scorer silently scores such documents as empty. ``allow_missing=True`` scores a
   missing response document as empty and ignores extra ones, with warnings.
2. **Partitions**: the chains of each document (identity links and shared entities),
   mentions identified by their token spans. As scorer.pl v8.01 does, a span that
   occurs again in a later chain (chains taken in the order their entity first appears,
   which for CoNLL is the reference scorer's order) is dropped from the later chain and
   reported (``score.duplicate-mention``, a warning, never a refusal). scorer.pl drops
   such repeats only when they match a key mention and refuses to score beyond 10 of
   them; corefio drops all and always scores. Repeated key spans are dropped the same
   way (scorer.pl would count them twice).
3. **Singletons**: kept by default (as the reference scorer); ``keep_singletons=False``
   removes one-mention chains from both sides first (as coval's option does).
4. **Counts per document**, one contingency table per document; **corpus scores are
   the sums of document counts** (the reference scorer's micro-average). Measures that
   are not count ratios (H, DMT, D-err) are computed on the corpus as one disjoint
   union of its documents; kappa from the summed MUC counts. ``macro=True`` adds the
   mean of document values.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from . import metrics as M
from .diagnostics import Report
from .errors import DocumentMismatchError, UsageError
from .files import gc_paused
from .metrics.base import BlancScore, Contingency, Score, Value
from .metrics.typed import DEFAULT_COEFFICIENTS, TypedResult, macro_average, micro_average, typed_evaluation
from .chains import MentionChains, document_key, document_label
from ._lazy import LazyModule

#: the pydantic model, imported on first use (scoring CoNLL never needs it)
model = LazyModule("corefio.model")

# name: (function of the table, description)
_TABLE_METRICS: dict[str, tuple[Callable, str]] = {
    "mentions": (M.mention_identification, "mention identification (exact spans)"),
    "muc": (M.muc, "MUC (Vilain et al. 1995)"),
    "bcub": (M.b_cubed, "B-cubed, equal weight per mention (Bagga & Baldwin 1998)"),
    "bcub_class": (M.b_cubed_class, "B-cubed, equal weight per class (Bagga & Baldwin 1998)"),
    "ceafm": (M.ceaf_mention, "CEAF phi3, mention-based (Luo 2005)"),
    "ceafe": (M.ceaf_entity, "CEAF phi4, entity-based (Luo 2005)"),
    "blanc": (M.blanc, "BLANC (Recasens & Hovy 2011; Luo et al. 2014)"),
    "lea": (M.lea, "LEA (Moosavi & Strube 2016)"),
    "bcub_0": (M.b_cubed_0, "B-cubed_0 (Stoyanov et al. 2009; Cai & Strube 2010)"),
    "bcub_all": (M.b_cubed_all, "B-cubed_all (Stoyanov et al. 2009; Cai & Strube 2010)"),
    "bcub_rn": (M.b_cubed_rn, "B-cubed_r&n (Rahman & Ng 2009; Cai & Strube 2010)"),
    "bcub_sys": (M.b_cubed_sys, "B-cubed_sys (Cai & Strube 2010, Algorithm 1)"),
    "ceafm_orig": (lambda t: M.ceaf_orig(t, phi="phi3"), "CEAF_orig phi3 (Luo 2005)"),
    "ceafe_orig": (lambda t: M.ceaf_orig(t, phi="phi4"), "CEAF_orig phi4 (Luo 2005)"),
    "ceafm_rn": (lambda t: M.ceaf_rn(t, phi="phi3"), "CEAF_r&n phi3 (Cai & Strube 2010)"),
    "ceafe_rn": (lambda t: M.ceaf_rn(t, phi="phi4"), "CEAF_r&n phi4 (Cai & Strube 2010)"),
    "ceafm_sys": (lambda t: M.ceaf_sys(t, phi="phi3"), "CEAF_sys phi3 (Cai & Strube 2010, Algorithm 2)"),
    "ceafe_sys": (lambda t: M.ceaf_sys(t, phi="phi4"), "CEAF_sys phi4 (Cai & Strube 2010)"),
    "core": (M.core_class, "core classes C (Popescu-Belis 2000)"),
    "xcore": (M.exclusive_core, "exclusive core classes XC (Popescu-Belis)"),
}
#: measures computed on the corpus as a whole
_WHOLE_METRICS: dict[str, str] = {
    "kappa": "kappa (Passonneau 1997)",
    "info": "information measure H (Popescu-Belis 2000)",
    "dmt": "distributional match DMT (Popescu-Belis)",
    "derr": "distributional error D-err (Popescu-Belis; corefio's definition)",
    "conll": "CoNLL average: mean F1 of muc, bcub, ceafe",
    "typed": "typed evaluation (Zitkus, Butkiene & Butleris 2023)",
}
METRICS: dict[str, str] = {**{k: v[1] for k, v in _TABLE_METRICS.items()}, **_WHOLE_METRICS}
#: what the reference scorer computes, plus LEA and the CoNLL average
DEFAULT_METRICS = ("mentions", "muc", "bcub", "ceafm", "ceafe", "blanc", "lea", "conll")


def resolve_metrics(names: Iterable[str]) -> list[str]:
    """Expand ``all`` and ``default``, check names, add what is always reported
    (mention identification) or needed (``conll`` needs muc, bcub, ceafe); keep the
    order of :data:`METRICS`."""
    wanted: set[str] = set()
    for name in names:
        for part in name.split(","):
            part = part.strip().lower()
            if not part:
                continue
            if part == "all":
                wanted |= set(METRICS)
            elif part == "default":
                wanted |= set(DEFAULT_METRICS)
            elif part in METRICS:
                wanted.add(part)
            else:
                raise UsageError(f"unknown metric {part!r}; known: all, default, {', '.join(METRICS)}")
    if "conll" in wanted:
        wanted |= {"muc", "bcub", "ceafe"}
    wanted.add("mentions")  # always reported, as scorer.pl reports it with every metric
    return [m for m in METRICS if m in wanted]


# -- partitions ------------------------------------------------------------------------------
Partition = list[list[tuple]]


def document_partition(doc: model.Document | MentionChains, report: Report | None, side: str) -> Partition:
    """The chains of ``doc`` as lists of mention spans, repeats removed (see module doc)."""
    chains = doc.mention_chains(pos=False).chains
    n = 0
    seen: set[tuple] = set()
    for chain in chains:
        n += len(chain)
        seen.update(chain)
    if len(seen) == n:  # no repeated span: the common case
        return chains
    seen = set()
    out: Partition = []
    repeats = 0
    example = None
    for chain in chains:
        cls = []
        for spans in chain:
            if spans in seen:
                repeats += 1
                if example is None:
                    example = f"tokens {spans[0][0]}..{spans[-1][1]}"
                continue
            seen.add(spans)
            cls.append(spans)
        if cls:
            out.append(cls)
    if repeats and report is not None:
        label = doc.label
        report.warning("score.duplicate-mention",
                       f"repeated {side} mentions (same span) ignored after their first chain",
                       count=repeats, merge=True, example=f"{label!r}: {example}")
    return out


def drop_singletons(partition: Partition) -> Partition:
    return [c for c in partition if len(c) > 1]


# -- matching documents -------------------------------------------------------------------------
def match_keys(key: Sequence[tuple[str, str | None]], response: Sequence[tuple[str, str | None]],
               report: Report, allow_missing: bool = False) -> list[tuple[int, int | None]]:
    """Pair key and response documents, given as (name, part), by position.

    Exact (name, part) first (numeric parts as numbers); else a unique response
    document with the same name, or named ``NAME_PART`` as e2e-coref jsonlines do.
    """
    exact: dict[tuple, int] = {}
    by_name: dict[str, list[int]] = {}
    for j, (name, part) in enumerate(response):
        nk = document_key(name, part)
        if nk in exact:
            report.warning("score.duplicate-document",
                           f"the response has two documents {document_label(name, part)!r}; the first is used")
            continue
        exact[nk] = j
        by_name.setdefault(name, []).append(j)
    pairs: list[tuple[int, int | None]] = []
    used: set[int] = set()
    missing = []
    for i, (name, part) in enumerate(key):
        j = exact.get(document_key(name, part))
        if j is None or j in used:
            candidates = list(by_name.get(name, []))
            if part is not None and part.isdigit():
                candidates += by_name.get(f"{name}_{int(part)}", [])
            candidates = [c for c in candidates if c not in used]
            j = candidates[0] if len(candidates) == 1 else None
            if j is not None:
                report.info("score.loose-match", f"key document {document_label(name, part)!r} matched with "
                                                 f"response {document_label(*response[j])!r}")
        if j is None:
            missing.append(document_label(name, part))
        else:
            used.add(j)
        pairs.append((i, j))
    extra = [document_label(*response[j]) for j in range(len(response)) if j not in used and j in exact.values()]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"{len(missing)} key document(s) have no response: " + ", ".join(map(repr, missing[:5])))
        if extra:
            parts.append(f"{len(extra)} response document(s) have no key: " + ", ".join(map(repr, extra[:5])))
        message = "; ".join(parts)
        if not allow_missing:
            raise DocumentMismatchError(message + " (use --allow-missing to score missing documents as empty)")
        report.warning("score.document-mismatch", message)
    return pairs


def match_documents(key: model.Corpus, response: model.Corpus, report: Report,
                    allow_missing: bool = False) -> list[tuple[model.Document, model.Document | None]]:
    """Pair key documents with response documents by name and part."""
    pairs = match_keys([(d.name, d.part) for d in key.documents], [(d.name, d.part) for d in response.documents],
                       report, allow_missing)
    return [(key.documents[i], response.documents[j] if j is not None else None) for i, j in pairs]


# -- results -----------------------------------------------------------------------------------
@dataclass
class DocumentScores:
    name: str
    table: Contingency | None
    results: dict[str, Any] = field(default_factory=dict)


@dataclass
class Scores:
    """Corpus and per-document results, and the diagnostics of the run."""

    metrics: list[str]
    corpus: dict[str, Any]
    documents: list[DocumentScores]
    report: Report
    macro: dict[str, dict[str, float]] | None = None
    options: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, metric: str) -> Any:
        return self.corpus[metric]

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
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["document", "metric", "recall_num", "recall_den", "recall", "precision_num",
                    "precision_den", "precision", "f1", "value"])
        rows = [("#corpus", self.corpus)]
        if per_document:
            rows += [(d.name, d.results) for d in self.documents]
        for name, results in rows:
            for m in self.metrics:
                if m not in results:
                    continue
                for label, item in _flat(m, to_jsonable(results[m])):
                    w.writerow([name, label, *item])
        return buf.getvalue()

    # -- text -------------------------------------------------------------------------------
    def to_text(self, per_document: bool = False) -> str:
        lines: list[str] = []
        for m in self.metrics:
            if m == "mentions":
                continue
            lines.append(f"METRIC {m}:")
            if per_document:
                for d in self.documents:
                    if m in d.results:
                        lines.append(f"{d.name}:")
                        lines.extend(_text_block(m, d.results[m]))
            lines.append("")
            lines.append("====== TOTALS =======")
            if "mentions" in self.corpus:
                lines.append("Identification of Mentions: " + _rpf(self.corpus["mentions"]))
                lines.append("-" * 74)
            lines.extend(_text_block(m, self.corpus[m]))
            lines.append("")
        if self.metrics == ["mentions"]:
            lines.append("Identification of Mentions: " + _rpf(self.corpus["mentions"]))
        if self.macro:
            lines.append("Macro averages over documents (R / P / F1, %):")
            for m, v in self.macro.items():
                lines.append(f"  {m:<12} {100 * v['recall']:6.2f}  {100 * v['precision']:6.2f}  {100 * v['f1']:6.2f}")
        return "\n".join(lines).rstrip() + "\n"


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
        out = {"value": float(result.value)}
        if result.direction is not None:
            out["direction"] = result.direction
        return out
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


def _rpf(s: Score) -> str:
    return (f"Recall: ({_count(s.recall_num)} / {_count(s.recall_den)}) {_pct(float(s.recall))}\t"
            f"Precision: ({_count(s.precision_num)} / {_count(s.precision_den)}) {_pct(float(s.precision))}\t"
            f"F1: {_pct(float(s.f1))}")


def _text_block(metric: str, result: Any) -> list[str]:
    dash = "-" * 74
    if isinstance(result, Score):
        return ["Coreference: " + _rpf(result), dash]
    if isinstance(result, BlancScore):
        return ["Coreference links: " + _rpf(result.coref), dash,
                "Non-coreference links: " + _rpf(result.noncoref), dash,
                f"BLANC: Recall: ({_count(float(result.recall))} / 1) {_pct(float(result.recall))}\t"
                f"Precision: ({_count(float(result.precision))} / 1) {_pct(float(result.precision))}\t"
                f"F1: {_pct(float(result.f1))}", dash]
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


# -- scoring -----------------------------------------------------------------------------------
def _as_corpus(x, report: Report, fmt: str | None) -> model.Corpus:
    if isinstance(x, model.Corpus):
        return x
    if isinstance(x, model.Document):
        return model.Corpus(documents=[x])
    if isinstance(x, (str, Path)):
        from .api import read

        return read(x, fmt, report=report)
    raise TypeError(f"cannot score {type(x).__name__}: give a Corpus, a Document or a path")


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


def score(
    key: model.Corpus | model.Document | str | Path,
    response: model.Corpus | model.Document | str | Path,
    metrics: Iterable[str] = DEFAULT_METRICS,
    *,
    keep_singletons: bool = True,
    per_document: bool = False,
    macro: bool = False,
    allow_missing: bool = False,
    report: Report | None = None,
    key_format: str | None = None,
    response_format: str | None = None,
    coefficients: Sequence[Fraction | float] = DEFAULT_COEFFICIENTS,
    scheme_classes: int | None = None,
    type_attribute: str = "coref_type",
    dominant_attribute: str = "dominant",
    workers: int | None = None,
) -> Scores:
    """Score ``response`` against ``key`` with the named metrics (see :data:`METRICS`).

    Corpus scores are always computed; ``per_document=True`` (or ``macro=True``) adds
    every document's own. Files in a streaming format (CoNLL) are read one document at
    a time, keeping only what scoring needs (forms and mention chains), and on large
    inputs the documents are shared between this process and a forked worker
    (``workers``; default: 2 when the machine has two cores and the files are larger
    than 4 MB; ``COREFIO_WORKERS`` overrides it). The counts are the same either way.
    """
    report = report if report is not None else Report()
    names = resolve_metrics(metrics)
    k = tuple(Fraction(c) if not isinstance(c, Fraction) else c for c in coefficients)
    options = dict(keep_singletons=keep_singletons, names=names, k=k, scheme_classes=scheme_classes,
                   per_document=per_document or macro, type_attribute=type_attribute,
                   dominant_attribute=dominant_attribute)
    if isinstance(key, (str, Path)) and isinstance(response, (str, Path)):
        from .registry import resolve_format

        key_spec = resolve_format(key, key_format)
        response_spec = resolve_format(response, response_format)
        if key_spec.stream and key_spec.scan_keys and response_spec.stream and response_spec.scan_keys:
            shares = _score_streaming(Path(key), Path(response), key_spec.name, response_spec.name,
                                      report, allow_missing, options, workers)
            return _finish(shares, report, options, macro, allow_missing)
    key_corpus = _as_corpus(key, report, key_format)
    response_corpus = _as_corpus(response, report, response_format)
    pairs = match_documents(key_corpus, response_corpus, report, allow_missing)
    acc = _Accumulator(options, report)
    with gc_paused():
        for index, (kd, rd) in enumerate(pairs):
            acc.add(index, kd, rd)
    return _finish([acc.result()], report, options, macro, allow_missing)


#: metrics whose corpus counts are those of the corpus seen as one document (the
#: disjoint union of its documents' tables): all count-based ones but BLANC, whose
#: non-coreference links would then cross documents
_ADDITIVE = frozenset(_TABLE_METRICS) - {"blanc"}
#: measures of the corpus as a whole that need the union table itself
_UNION_METRICS = frozenset({"info", "dmt", "derr"})


@dataclass
class _Share:
    """The results of scoring some of the document pairs (in this or another process)."""

    totals: dict[str, Any]
    n_pairs: int
    table: Contingency | None
    typed: TypedResult | None
    documents: list[tuple[int, DocumentScores]]
    diagnostics: list = field(default_factory=list)


class _Accumulator:
    """Scores document pairs one at a time and sums what the corpus needs."""

    def __init__(self, options: dict, report: Report) -> None:
        self.options = options
        self.report = report
        self.names = options["names"]
        self.tables: list[Contingency] = []
        self.blanc = BlancScore.zero()
        self.n_pairs = 0
        self.typed = TypedResult() if "typed" in self.names else None
        self.documents: list[tuple[int, DocumentScores]] = []

    def add(self, index: int, kd: model.Document | MentionChains,
            rd: model.Document | MentionChains | None) -> None:
        report, options, names = self.report, self.options, self.names
        typed = self.typed is not None
        kv = kd.mention_chains(pos=typed)
        rv = rd.mention_chains(pos=typed) if rd is not None else MentionChains(kv.label, kv.forms, [])
        if rd is not None:
            _check_tokens(kv, rv, report)
        kp = document_partition(kv, report, "key")
        rp = document_partition(rv, report, "response")
        if not options["keep_singletons"]:
            kp, rp = drop_singletons(kp), drop_singletons(rp)
        table = Contingency.from_partitions(kp, rp)
        self.tables.append(table)
        if "blanc" in names:
            self.blanc = self.blanc + M.blanc(table)
        n_pairs = M.agreement.link_count(table) if "kappa" in names else 0
        self.n_pairs += n_pairs
        typed_result = None
        if typed:
            typed_result = typed_evaluation(kv, rv, options["type_attribute"], options["dominant_attribute"])
            self.typed = self.typed + typed_result
        if options["per_document"]:
            ds = DocumentScores(kv.label, table)
            for name in names:
                if name in _TABLE_METRICS:
                    ds.results[name] = _TABLE_METRICS[name][0](table)
            muc = ds.results.get("muc") or M.muc(table)
            _whole_metrics(ds.results, names, table, muc, n_pairs)
            if typed_result is not None:
                ds.results["typed"] = {"typed": typed_json(typed_result, options["k"], options["scheme_classes"])}
            self.documents.append((index, ds))

    def result(self, keep_table: bool = True) -> _Share:
        names = self.names
        union = Contingency.union(self.tables)
        totals: dict[str, Any] = {name: _TABLE_METRICS[name][0](union) for name in names if name in _ADDITIVE}
        if "blanc" in names:
            totals["blanc"] = self.blanc
        if "kappa" in names and "muc" not in totals:
            totals["muc"] = M.muc(union)
        needed = keep_table or bool(_UNION_METRICS & set(names))
        return _Share(totals, self.n_pairs, union if needed else None, self.typed, self.documents,
                      self.report.diagnostics)


def _finish(shares: list[_Share], report: Report, options: dict, macro: bool, allow_missing: bool) -> Scores:
    names = options["names"]
    totals: dict[str, Any] = {}
    for share in shares:
        for name, value in share.totals.items():
            totals[name] = value if name not in totals else totals[name] + value
    corpus: dict[str, Any] = {}
    for name in names:
        if name in _TABLE_METRICS:
            corpus[name] = totals.get(name, BlancScore.zero() if name == "blanc" else Score.zero())
    tables = [s.table for s in shares if s.table is not None]
    union = None
    if _UNION_METRICS & set(names):
        union = tables[0] if len(tables) == 1 else Contingency.union(tables)
    _whole_metrics(corpus, names, union, totals.get("muc", Score.zero()), sum(s.n_pairs for s in shares))
    if "typed" in names:
        total = TypedResult()
        for s in shares:
            if s.typed is not None:
                total = total + s.typed
        corpus["typed"] = {"typed": typed_json(total, options["k"], options["scheme_classes"])}
    documents = sorted((d for s in shares for d in s.documents), key=lambda d: d[0])
    docs = [ds for _, ds in documents]
    macro_result = _macro(docs, names) if macro else None
    return Scores(names, corpus, docs, report, macro_result,
                  {"keep_singletons": options["keep_singletons"], "allow_missing": allow_missing,
                   "per_document": options["per_document"]})


# -- streaming, in one or two processes -----------------------------------------------------------
def _score_streaming(key: Path, response: Path, key_format: str, response_format: str, report: Report,
                     allow_missing: bool, options: dict, workers: int | None) -> list[_Share]:
    """Match documents from their headers, then score contiguous runs of them, one run
    per process; each process reads only the bytes of its documents."""
    from .registry import get_format

    key_spec, response_spec = get_format(key_format), get_format(response_format)
    key_docs = key_spec.scan_keys(key)
    response_docs = response_spec.scan_keys(response)
    pairs = match_keys([d[:2] for d in key_docs], [d[:2] for d in response_docs], report, allow_missing)
    n = _worker_count(workers, key, response)
    size = -(-len(pairs) // n) if pairs else 0
    shares = [list(enumerate(pairs))[w * size:(w + 1) * size] for w in range(n)] if pairs else [[]]
    sizes = (key.stat().st_size, response.stat().st_size)
    job = (str(key), str(response), key_format, response_format, options, key_docs, response_docs, sizes)
    results: list[_Share] = []
    if n > 1:
        import concurrent.futures
        import multiprocessing

        context = multiprocessing.get_context("fork")
        with concurrent.futures.ProcessPoolExecutor(n - 1, mp_context=context) as pool:
            futures = [pool.submit(_score_share, job, share) for share in shares[1:]]
            results.append(_score_share(job, shares[0], in_worker=False))
            results += [future.result() for future in futures]
    else:
        results.append(_score_share(job, shares[0], in_worker=False))
    for share in results:
        report.absorb(share.diagnostics)
    return results


def _byte_range(docs: list, wanted: list[int], file_size: int) -> tuple[int, int, int, int] | None:
    """(start, end, first document number, first line) covering the wanted documents."""
    if not wanted or len(docs[0]) < 4:
        return None
    first, last = wanted[0], wanted[-1]
    end = docs[last + 1][2] if last + 1 < len(docs) else file_size
    return (docs[first][2], end, first, docs[first][3])


def _worker_count(workers: int | None, *paths: Path) -> int:
    import multiprocessing
    import os

    if workers is None:
        env = os.environ.get("COREFIO_WORKERS")
        if env:
            workers = int(env)
        else:
            big = sum(p.stat().st_size for p in paths) > 4_000_000
            workers = 2 if big and (os.cpu_count() or 1) >= 2 else 1
    if workers > 1 and "fork" not in multiprocessing.get_all_start_methods():
        workers = 1
    return max(1, workers)


def _score_share(job: tuple, share: list[tuple[int, tuple[int, int | None]]], in_worker: bool = True) -> _Share:
    """Score a run of document pairs ``(index, (key number, response number))``. A
    worker sends back its union table only when a measure of the whole corpus needs it."""
    from .registry import get_format

    key, response, key_format, response_format, options, key_docs, response_docs, sizes = job
    report = Report()
    typed = "typed" in options["names"]
    key_stream = get_format(key_format).stream
    response_stream = get_format(response_format).stream
    wanted_r = sorted({j for _, (_, j) in share if j is not None})
    wanted_k = sorted(i for _, (i, _) in share)
    partner = {i: (index, j) for index, (i, j) in share}
    acc = _Accumulator(options, report)
    with gc_paused():
        stream = response_stream(response, report=report, chains=True, pos=typed, select=set(wanted_r),
                                 byte_range=_byte_range(response_docs, wanted_r, sizes[1]))
        responses = dict(zip(wanted_r, stream))
        stream = key_stream(key, report=report, chains=True, pos=typed, select=set(wanted_k),
                            byte_range=_byte_range(key_docs, wanted_k, sizes[0]))
        for i, kd in zip(wanted_k, stream):
            index, j = partner[i]
            acc.add(index, kd, responses.pop(j) if j is not None else None)
    return acc.result(keep_table=not in_worker)


def _whole_metrics(results: dict, names: list[str], table: Contingency | None, muc_total: Score | None,
                   n_pairs: int) -> None:
    """Measures of a document or corpus as a whole (``table``: its, or their union)."""
    table = table if table is not None else Contingency([], [])
    if "kappa" in names:
        results["kappa"] = M.agreement.kappa_from_counts(muc_total or Score.zero(), n_pairs)
    if "info" in names:
        results["info"] = M.information(table)
    if "dmt" in names:
        results["dmt"] = M.dmt(table)
    if "derr" in names:
        results["derr"] = M.d_err(table)
    if "conll" in names:
        f1s = [results[m].f1 for m in ("muc", "bcub", "ceafe")]
        results["conll"] = {"f1": sum(f1s, Fraction(0)) / 3}


def _macro(docs: list[DocumentScores], names: list[str]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for name in names:
        values = []
        for d in docs:
            r = d.results.get(name)
            if isinstance(r, (Score, BlancScore)):
                values.append((float(r.recall), float(r.precision), float(r.f1)))
        if values:
            n = len(values)
            out[name] = {"recall": sum(v[0] for v in values) / n, "precision": sum(v[1] for v in values) / n,
                         "f1": sum(v[2] for v in values) / n}
    return out


def _check_tokens(key: MentionChains, response: MentionChains, report: Report) -> None:
    kf, rf = key.forms, response.forms
    if len(kf) != len(rf):
        report.warning("score.token-mismatch", "documents whose key and response have different numbers of "
                       "tokens (spans are compared by token position)", merge=True,
                       example=f"{key.label!r}: {len(kf)} vs {len(rf)}")
    elif kf != rf:
        differ = sum(1 for a, b in zip(kf, rf) if a != b)
        report.warning("score.token-mismatch", "tokens that differ between key and response", merge=True,
                       count=differ, example=f"{key.label!r}: {differ}")
