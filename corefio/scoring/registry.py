"""The metric registry: every metric the scorer knows, registered once.

Each :class:`Metric` says what it computes (a function of a key × response
contingency table), where it comes from, how a corpus score is made of document
scores, and which properties it has. The command line (names, ``--metric`` help), the
README's metric table (:func:`markdown_table`) and the property tests
(``tests/test_metric_properties.py``, which checks every declared property on random
partitions) all read this one list.

Properties (:data:`PROPERTIES`) a metric may declare:

``perfect``
    identical key and response (at least two mentions) give the best value (``best``,
    1 unless told) for every number of the result.
``perfect-linked``
    the same, when the key links at least two mentions (MUC: without links both ratios
    are 0/0).
``swap``
    exchanging key and response exchanges recall and precision (for BLANC: within
    each half) and leaves F unchanged.
``symmetric``
    exchanging key and response leaves every number unchanged.
``bounded``
    every number lies within ``bounds`` ([0, 1] unless told).
``renaming``
    renaming mentions changes nothing.
``order-free``
    reordering classes and the mentions within them changes nothing.
``additive``
    the counts of the union of several documents' tables are the sums of the
    documents' counts (so a corpus may be scored on the union of its tables).

How a corpus score is formed (``corpus``):

``sum``
    the sum of document counts (the reference scorer's micro-average).
``profile``
    computed on the corpus as one document, from its class-size profile.
``counts``
    κ from the summed DEF.7 counts of the documents.
``derived``
    computed from other metrics' corpus scores.
``typed``
    the sum of the documents' typed annotation counts.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import metrics as M
from ..errors import UsageError

if TYPE_CHECKING:
    from .render import ConllScore

PROPERTIES = ("perfect", "perfect-linked", "swap", "symmetric", "bounded", "renaming", "order-free", "additive")
CORPUS_MODES = ("sum", "profile", "counts", "derived", "typed")


@dataclass(frozen=True)
class Metric:
    """One registered metric."""

    name: str
    #: one line, for ``--metric`` help and the README table
    description: str
    #: the paper (and the part of it) that defines the metric
    citation: str
    #: the metric of one contingency table (None: computed from mention views, ``typed``)
    function: Callable[[Any], Any] | None
    #: what the function returns: ``Score``, ``BlancScore``, ``Value``, ``(Value, Value)``,
    #: ``F1`` (a ``{"f1": ...}`` mapping) or ``TypedResult``
    result: str
    #: how a corpus score is formed (see :data:`CORPUS_MODES`)
    corpus: str = "sum"
    properties: frozenset[str] = frozenset()
    bounds: tuple[int, int] = (0, 1)
    #: the value of identical partitions (``perfect``)
    best: int = 1
    #: in the default set (``-m default``)
    default: bool = False
    #: metrics reported with this one (it is computed from them)
    requires: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        unknown = set(self.properties) - set(PROPERTIES)
        if unknown:
            raise ValueError(f"metric {self.name}: unknown properties {sorted(unknown)}")
        if self.corpus not in CORPUS_MODES:
            raise ValueError(f"metric {self.name}: unknown corpus mode {self.corpus!r}")

    def has(self, prop: str) -> bool:
        return prop in self.properties


_REGISTRY: dict[str, Metric] = {}


def register(metric: Metric) -> Metric:
    if metric.name in _REGISTRY:
        raise ValueError(f"metric {metric.name!r} registered twice")
    _REGISTRY[metric.name] = metric
    return metric


def _props(*names: str) -> frozenset[str]:
    return frozenset(names)


def conll_average(table) -> "ConllScore":
    """The CoNLL average of one table: the mean F1 of MUC, B³ and CEAFe."""
    from .render import ConllScore

    return ConllScore(M.muc(table), M.b_cubed(table), M.ceaf_entity(table))


#: what nearly every count-based metric has
_COUNTS = ("swap", "bounded", "renaming", "order-free", "additive")
_E2E = ("perfect", "bounded", "renaming", "order-free", "additive")

register(Metric("mentions", "mention identification (exact spans)", "scorer.pl v8.01 (Pradhan et al. 2014)",
                M.mention_identification, "Score", properties=_props("perfect", *_COUNTS), default=True))
register(Metric("muc", "MUC, link-based", "Vilain et al. 1995; Popescu-Belis 2000, DEF.5-6", M.muc, "Score",
                properties=_props("perfect-linked", *_COUNTS), default=True))
register(Metric("bcub", "B-cubed, equal weight per mention", "Bagga & Baldwin 1998; Popescu-Belis 2000, DEF.8-9",
                M.b_cubed, "Score", properties=_props("perfect", *_COUNTS), default=True))
register(Metric("bcub_class", "B-cubed, equal weight per class", "Bagga & Baldwin 1998; Popescu-Belis 2000, DEF.10",
                M.b_cubed_class, "Score", properties=_props("perfect", *_COUNTS)))
register(Metric("ceafm", "CEAF phi3, mention-based", "Luo 2005", M.ceaf_mention, "Score",
                properties=_props("perfect", *_COUNTS), default=True))
register(Metric("ceafe", "CEAF phi4, entity-based", "Luo 2005", M.ceaf_entity, "Score",
                properties=_props("perfect", *_COUNTS), default=True))
register(Metric("blanc", "BLANC, coreference and non-coreference links", "Recasens & Hovy 2011; Luo et al. 2014",
                M.blanc, "BlancScore", properties=_props("perfect", "swap", "bounded", "renaming", "order-free"),
                default=True))
register(Metric("lea", "LEA, link-based entity-aware", "Moosavi & Strube 2016", M.lea, "Score",
                properties=_props("perfect", *_COUNTS), default=True))
register(Metric("conll", "CoNLL average: mean F1 of muc, bcub, ceafe", "Denis & Baldridge 2009; Pradhan et al. 2011",
                conll_average, "F1", corpus="derived",
                properties=_props("perfect-linked", "symmetric", "bounded", "renaming", "order-free"),
                default=True, requires=("muc", "bcub", "ceafe")))
register(Metric("bcub_0", "B-cubed_0: twinless response mentions dropped", "Stoyanov et al. 2009; Cai & Strube 2010",
                M.b_cubed_0, "Score", properties=_props(*_E2E)))
register(Metric("bcub_all", "B-cubed_all: every twinless mention kept", "Stoyanov et al. 2009; Cai & Strube 2010",
                M.b_cubed_all, "Score", properties=_props(*_E2E)))
register(Metric("bcub_rn", "B-cubed_r&n: twinless singleton response mentions dropped", "Rahman & Ng 2009; Cai & Strube 2010",
                M.b_cubed_rn, "Score", properties=_props(*_E2E)))
register(Metric("bcub_sys", "B-cubed_sys", "Cai & Strube 2010, Algorithm 1", M.b_cubed_sys, "Score",
                properties=_props(*_E2E)))
for _kind, _title, _source in (
        ("orig", "CEAF_orig", "Luo 2005; Cai & Strube 2010"),
        ("rn", "CEAF_r&n", "Cai & Strube 2010"),
        ("sys", "CEAF_sys", "Cai & Strube 2010: Algorithm 2 (phi3), Table 6 (phi4)")):
    for _phi, _short in (("phi3", "m"), ("phi4", "e")):
        _function = getattr(M, f"ceaf_{_kind}")
        register(Metric(f"ceaf{_short}_{_kind}", f"{_title} {_phi}", _source,
                        functools.partial(_function, phi=_phi), "Score", properties=_props(*_E2E)))
register(Metric("kappa", "kappa from MUC counts, DEF.7 as printed (may fall below -1)",
                "Passonneau 1997; Popescu-Belis 2000, DEF.7; Popescu-Belis et al. 2004", M.kappa, "Value", corpus="counts",
                properties=_props("perfect", "symmetric", "renaming", "order-free")))
register(Metric("kappa_d0", "kappa from MUC counts with d >= 0 (stays in [-1, 1])",
                "Passonneau 1997; Popescu-Belis 2000, DEF.7, N raised to a+b+c", M.kappa_d0, "Value", corpus="counts",
                properties=_props("perfect", "symmetric", "bounded", "renaming", "order-free"), bounds=(-1, 1)))
register(Metric("core", "core classes C", "Popescu-Belis 2000, DEF.11-14", M.core_class, "Score",
                properties=_props("perfect", *_COUNTS)))
register(Metric("xcore", "exclusive core classes XC (ties: class order)", "Popescu-Belis 2000, §3.5.4",
                M.exclusive_core, "Score", properties=_props("perfect", "bounded", "renaming", "additive")))
register(Metric("info", "information measure H", "Popescu-Belis 2000, DEF.15-17", M.information,
                "(Value, Value)", corpus="profile",
                properties=_props("perfect", "swap", "bounded", "renaming", "order-free")))
register(Metric("dmt", "distributional match DMT", "Popescu-Belis 2000, §3.7", M.dmt, "Value",
                corpus="profile", properties=_props("perfect", "symmetric", "bounded", "renaming", "order-free")))
register(Metric("derr", "distributional error D-err and its direction (corefio's definition)",
                "Popescu-Belis 2000, §3.7", M.d_err, "Value", corpus="profile", best=0,
                properties=_props("perfect", "symmetric", "bounded", "renaming", "order-free")))
register(Metric("typed", "typed evaluation (type codes, dominant mentions)",
                "Žitkus, Butkienė & Butleris 2023", None, "TypedResult", corpus="typed"))

#: every registered metric, by name, in registration order
REGISTRY: dict[str, Metric] = _REGISTRY
#: name → description (what ``--metric`` accepts)
METRICS: dict[str, str] = {m.name: m.description for m in _REGISTRY.values()}
#: what the reference scorer computes, plus LEA and the CoNLL average
DEFAULT_METRICS: tuple[str, ...] = tuple(m.name for m in _REGISTRY.values() if m.default)


def get_metric(name: str) -> Metric:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UsageError(f"unknown metric {name!r}; known: all, default, {', '.join(_REGISTRY)}") from None


def resolve_metrics(names: str | Iterable[str]) -> list[str]:
    """Expand ``all`` and ``default``, check names, add what is always reported
    (mention identification) or needed (``conll`` needs muc, bcub, ceafe); keep the
    order of the registry. One string may name several metrics (``"muc,bcub"``)."""
    if isinstance(names, str):
        names = [names]
    wanted: set[str] = set()
    for name in names:
        for part in name.split(","):
            part = part.strip().lower()
            if not part:
                continue
            if part == "all":
                wanted |= set(_REGISTRY)
            elif part == "default":
                wanted |= set(DEFAULT_METRICS)
            else:
                wanted.add(get_metric(part).name)
    for name in list(wanted):
        wanted |= set(_REGISTRY[name].requires)
    wanted.add("mentions")  # always reported, as scorer.pl reports it with every metric
    return [m for m in _REGISTRY if m in wanted]


def metric_help() -> str:
    """The ``--metric`` help of the command line, from the registry."""
    return ("metric name(s), repeatable or comma-separated: 'default' (" + ", ".join(DEFAULT_METRICS)
            + "), 'all', or any of " + ", ".join(_REGISTRY))


def markdown_table() -> str:
    """The metrics as a Markdown table (name, metric, source, corpus score, properties)."""
    corpus_words = {"sum": "sum of document counts", "profile": "corpus as one document",
                    "counts": "from summed counts", "derived": "from corpus scores", "typed": "summed annotation counts"}

    def props(m: Metric) -> str:
        out = []
        for p in PROPERTIES:
            if p in m.properties:
                if p == "bounded":
                    out.append(f"bounded [{m.bounds[0]}, {m.bounds[1]}]")
                elif p in ("perfect", "perfect-linked") and m.best != 1:
                    out.append(f"{p} ({m.best})")
                else:
                    out.append(p)
        return ", ".join(out) or "—"

    columns: list[tuple[str, Callable[[Metric], str]]] = [
        ("name", lambda m: f"`{m.name}`" + (" *" if m.default else "")),
        ("metric", lambda m: m.description),
        ("defined in", lambda m: m.citation),
        ("corpus score", lambda m: corpus_words[m.corpus]),
        ("properties", props),
    ]
    lines = ["| " + " | ".join(title for title, _ in columns) + " |", "|" + "---|" * len(columns)]
    for m in _REGISTRY.values():
        lines.append("| " + " | ".join(cell(m).replace("|", "\\|") for _, cell in columns) + " |")
    lines.append("")
    lines.append("`*`: in the default set. `all` selects every metric.")
    return "\n".join(lines) + "\n"
