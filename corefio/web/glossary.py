"""How the pages name and explain the metrics: the names papers use (MUC, B³, CEAF-m …),
three groups (the standard measures, Popescu-Belis's measures, variants), one line on
what each measures, and the address of its documentation page.

The registry (:mod:`corefio.scoring.registry`) knows every metric by its internal name
(``bcub``, ``ceafm_orig``, ``kappa_d0``); this module only says how a reader sees it.
Every registered metric must have an entry here (``tests/test_web_pages.py`` checks).

Documentation pages are ``metrics/<page>`` of the documentation site (the Markdown of
``docs/metrics/<page>.md``). :class:`Docs` makes the address from the server's
``--docs-url``: a base URL (``https://example.org/corefio/`` gives
``https://example.org/corefio/metrics/muc/``, the address of a built site), or a
template with ``{page}`` (``https://github.com/ORG/corefio/blob/main/docs/{page}.md``);
without one, the links go to the server's own metric page (``/metrics``), which shows
the same explanations with each metric's paper.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

#: the groups, in the order the pages show them: id, heading, what the group is
GROUPS: tuple[tuple[str, str, str], ...] = (
    ("standard", "Standard measures",
     "what the CoNLL and CorefUD scorers report; papers compare systems on these"),
    ("popescu-belis", "Popescu-Belis's measures",
     "Popescu-Belis (2000) and Passonneau (1997): core classes, information, distributions, κ"),
    ("variants", "Variants",
     "B³ and CEAF adapted to system mentions (Stoyanov et al. 2009, Rahman & Ng 2009, Cai & Strube 2010), "
     "class-weighted B³, typed evaluation"),
)


@dataclass(frozen=True)
class MetricInfo:
    """How the pages show one metric."""

    name: str  #: the registry's name (form values, JSON keys)
    label: str  #: the name papers use
    group: str
    explain: str  #: one line
    page: str  #: its documentation page, under ``metrics/``


def _m(name: str, label: str, group: str, explain: str, page: str | None = None) -> MetricInfo:
    return MetricInfo(name, label, group, explain, page or name)


#: the documentation's page of the B³ and CEAF variants for system mentions
_VARIANT_B3 = _VARIANT_CEAF = "end-to-end"

METRIC_INFO: dict[str, MetricInfo] = {m.name: m for m in (
    _m("mentions", "Mentions", "standard",
       "mention identification: the key mentions the response found (recall) and the response mentions the key has "
       "(precision)"),
    _m("muc", "MUC", "standard",
       "links: how few links must be added to or removed from the response to give the key's entities "
       "(Vilain et al. 1995)"),
    _m("bcub", "B³", "standard",
       "each mention: how far its response entity and its key entity overlap, averaged over mentions "
       "(Bagga & Baldwin 1998)", "bcubed"),
    _m("ceafm", "CEAF-m", "standard",
       "key and response entities aligned one to one as well as possible; the mentions they share (Luo 2005, φ3)",
       "ceaf"),
    _m("ceafe", "CEAF-e", "standard",
       "the same alignment, each entity counting once whatever its size (Luo 2005, φ4)", "ceaf"),
    _m("blanc", "BLANC", "standard",
       "every pair of mentions: coreference links and non-coreference links scored apart, then averaged "
       "(Recasens & Hovy 2011; Luo et al. 2014)"),
    _m("lea", "LEA", "standard",
       "each entity weighted by its size and scored by the links within it that the other side resolves "
       "(Moosavi & Strube 2016)"),
    _m("conll", "CoNLL", "standard",
       "the mean F1 of MUC, B³ and CEAF-e: the ranking score of the CoNLL-2011/2012 and CRAC shared tasks"),
    _m("kappa", "κ", "popescu-belis",
       "agreement beyond chance from MUC's link counts (Passonneau 1997), as the formula is printed: may fall "
       "below −1"),
    _m("kappa_d0", "κ (d ≥ 0)", "popescu-belis",
       "the same κ with the count of links neither side makes kept at zero or above, so that κ stays in [−1, 1]",
       "kappa"),
    _m("core", "Core classes", "popescu-belis",
       "each class measured by its core, the class of the other side holding most of its mentions "
       "(Popescu-Belis 2000)"),
    _m("xcore", "Exclusive core classes", "popescu-belis",
       "core classes where each class may be the core of one class only (ties go to the earlier class)", "core"),
    _m("info", "Information (H)", "popescu-belis",
       "the information each partition gives about the other, over its own entropy (Popescu-Belis 2000)",
       "information"),
    _m("dmt", "DMT", "popescu-belis",
       "distributional match: how alike the sizes of the classes are, whichever mentions they hold",
       "distributional"),
    _m("derr", "D-err", "popescu-belis",
       "distributional error and its direction: r when the response splits entities, p when it merges them "
       "(corefio's reading of Popescu-Belis)", "distributional"),
    _m("bcub_class", "B³ (per class)", "variants",
       "B³ with each entity weighing the same, not each mention (Bagga & Baldwin 1998)", "bcubed"),
    _m("bcub_0", "B³₀", "variants",
       "B³ for system mentions: response mentions the key lacks are dropped (Stoyanov et al. 2009)", _VARIANT_B3),
    _m("bcub_all", "B³ all", "variants",
       "B³ for system mentions: every mention kept, one without a twin scored alone (Stoyanov et al. 2009)",
       _VARIANT_B3),
    _m("bcub_rn", "B³ r&n", "variants",
       "B³ for system mentions: lone response mentions the key lacks are dropped (Rahman & Ng 2009)", _VARIANT_B3),
    _m("bcub_sys", "B³ sys", "variants",
       "B³ for system mentions as Cai & Strube (2010) propose it (their Algorithm 1)", _VARIANT_B3),
    _m("ceafm_orig", "CEAF-m orig", "variants",
       "CEAF-m on the two mention sets as they are (Luo 2005)", _VARIANT_CEAF),
    _m("ceafe_orig", "CEAF-e orig", "variants",
       "CEAF-e on the two mention sets as they are (Luo 2005)", _VARIANT_CEAF),
    _m("ceafm_rn", "CEAF-m r&n", "variants",
       "CEAF-m with lone response mentions the key lacks dropped (after Rahman & Ng 2009)", _VARIANT_CEAF),
    _m("ceafe_rn", "CEAF-e r&n", "variants",
       "CEAF-e with lone response mentions the key lacks dropped (after Rahman & Ng 2009)", _VARIANT_CEAF),
    _m("ceafm_sys", "CEAF-m sys", "variants",
       "CEAF-m for system mentions as Cai & Strube (2010) propose it (their Algorithm 2)", _VARIANT_CEAF),
    _m("ceafe_sys", "CEAF-e sys", "variants",
       "CEAF-e for system mentions as Cai & Strube (2010) propose it", _VARIANT_CEAF),
    _m("typed", "Typed", "variants",
       "typed evaluation: each link's type and the dominant mentions counted (Žitkus, Butkienė & Butleris 2023)"),
)}


def info(name: str) -> MetricInfo:
    """How a metric is shown (a name this module does not know is shown as it is)."""
    return METRIC_INFO.get(name) or MetricInfo(name, name, "variants", "", name)


def label(name: str) -> str:
    return info(name).label


def citation(text: str) -> str:
    """A registry citation as a reader sees it: the paper, without the project's own
    notes on where the definition was read (``; Popescu-Belis 2000, DEF.5-6``)."""
    text = re.sub(r"\s*\(seed \d+\)", "", text)
    text = re.sub(r"(^|;)\s*seed \d+[^;]*", "", text)
    return text.strip(" ;,")


def grouped(names: Iterable[str]) -> list[tuple[str, str, str, list[MetricInfo]]]:
    """``names`` by group, in :data:`GROUPS` order (empty groups left out):
    (group id, heading, what the group is, its metrics in the order given)."""
    names = list(names)
    out = []
    for gid, heading, about in GROUPS:
        members = [info(n) for n in names if info(n).group == gid]
        if members:
            out.append((gid, heading, about, members))
    return out


@dataclass(frozen=True)
class Docs:
    """The addresses of documentation pages (see the module doc)."""

    base: str | None = None

    def page(self, page: str) -> str:
        """The address of ``page`` (``metrics/muc``, ``formats/conll``)."""
        if not self.base:
            kind, _, name = page.partition("/")
            return f"/metrics#{name}" if kind == "metrics" else ""
        if "{page}" in self.base:
            return self.base.replace("{page}", page)
        return f"{self.base.rstrip('/')}/{page}/"

    def metric(self, name: str) -> str:
        """The address of a metric's documentation (its entry on ``/metrics`` without a base)."""
        if not self.base:
            return f"/metrics#{name}"
        return self.page(f"metrics/{info(name).page}")
