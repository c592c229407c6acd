"""Agreement among annotators of coreference: chains, mentions, and the scorer's metrics.

What is measured (:func:`agree`):

* **chain agreement** — Krippendorff's α with markables as units (Passonneau 2004,
  "Computing reliability for coreference annotation"): a markable is a mention span;
  an annotator's value for it is the set of markables of the chain that holds it (itself
  alone for a singleton); an annotator without that markable gives a missing value
  (counted and reported). The set distance is Passonneau's (default), MASI (Passonneau
  2006) or DKPro Agreement's MASI (:mod:`corefio.metrics.alpha`). Corpus α pools the
  markables of every document (values of different documents are disjoint sets).
* **mention agreement** — Krippendorff's unitizing α (α_u) over the words of each text:
  each annotator's mentions are units on the continuum of the document's tokens (a
  discontinuous mention by its extent). α_u needs an annotator's units not to overlap, so
  nested mentions are measured by nesting depth (depth 1: mentions inside no other
  mention of that annotator, depth 2: inside one…), each depth a category of α_u; the
  corpus value puts the documents end to end. And mention F1 for each pair of annotators
  under ``exact``, ``head`` and ``partial`` matching (:mod:`corefio.compare.matching`;
  the first annotator of the pair plays the key).
* **the pairwise table** — MUC, B³, CEAF-e, LEA, BLANC and CoNLL F1 for every pair of
  annotators (each measure's F1 does not change when key and response swap, so each
  pair is scored once), corpus scores micro-averaged over documents, and their mean over
  the pairs, as corpus papers report inter-annotator agreement.
* per document, and per passage of ``window`` sentences, the chain α and the mean
  CoNLL F1 over pairs, so that a team finds what to annotate again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from typing import Any

from ..compare.matching import head_token, match_mentions
from ..compare.pairing import Side
from ..diagnostics import Report
from ..errors import UsageError
from ..metrics.alpha import (
    DISTANCES,
    Alpha,
    Distance,
    UnitizingAlpha,
    combine,
    grouped_unitizing_alpha,
    numbered_set_alpha_parts,
    set_alpha,
)
from ..model.mentions import Mention, MentionView
from ..scoring.engine import Options, score_views
from ..scoring.render import Scores, SyncScores
from ..scoring.registry import resolve_metrics
from .study import Study, build_study

#: the measures of the pairwise table, in the order of the table
PAIR_METRICS: tuple[str, ...] = ("muc", "bcub", "ceafe", "lea", "blanc", "conll")
#: the matching modes of mention F1
MENTION_MODES: tuple[str, ...] = ("exact", "head", "partial")


@dataclass
class PairRow:
    """Two annotators (indices) and their F1 per measure (``mentions:MODE`` for mention F1)."""

    first: int
    second: int
    f1: dict[str, Fraction]


@dataclass
class PlaceRow:
    """A document, or a passage of one (``sentences`` = (first, last), 1-based), ranked
    by agreement: chain α and the mean CoNLL F1 over pairs of annotators."""

    document: str
    alpha: Alpha
    conll: Fraction | None
    markables: int
    sentences: tuple[int, int] | None = None


@dataclass
class Agreement:
    annotators: list[str]
    distance: str
    chain_alpha: Alpha
    unitizing: UnitizingAlpha
    pairs: list[PairRow]
    mean: dict[str, Fraction]
    documents: list[PlaceRow]
    passages: list[PlaceRow] = field(default_factory=list)
    report: Report = field(default_factory=Report)
    #: with a synchronisation strategy, its name (the pairwise table uses it)
    sync: str | None = None


# --- chains ------------------------------------------------------------------------------------

def _mentions(view: MentionView, report: Report, who: str) -> tuple[list[Mention], dict[tuple, int]]:
    """Every mention of a view once (a span repeated in another chain is kept in its
    first chain, as the scorer does), and the chain number of each span."""
    chain_of: dict[tuple, int] = {}
    flat: list[Mention] = []
    repeated = 0
    for number, chain in enumerate(view.mentions):
        for m in chain:
            if m.spans in chain_of:
                repeated += 1
                continue
            chain_of[m.spans] = number
            flat.append(m)
    if repeated:
        report.warning("agree.repeated-mention", f"{who}: {repeated} mention(s) repeat the span of a mention of "
                                                 "another chain; each span is counted in its first chain",
                       document=view.label, count=repeated, merge=True)
    return flat, chain_of


def numbered_chain_units(chains_of: Sequence[dict[tuple, int] | None], document: int,
                         spans: Sequence[tuple] | None = None) -> tuple[list[list[int | None]], list[frozenset]]:
    """α's units for one document: one row per markable (every span any annotator
    marked, or only ``spans``), each annotator's value the set of markables of the chain
    that holds it (``None`` where the annotator lacks the markable), given as a number
    into the returned list of sets (equal chains of different annotators share one).

    A markable stands in the sets as ``(document, span)``; the sets of different
    documents are therefore disjoint, which :func:`corefio.metrics.alpha.combine` uses.
    """
    wanted: dict[tuple, None] = {}
    for chain_of in chains_of:
        if chain_of is not None:
            wanted.update(dict.fromkeys(chain_of))
    everything = sorted(wanted)
    rows_of: dict[tuple, list[int | None]] = {span: [None] * len(chains_of) for span in everything}
    number_of: dict[frozenset, int] = {}
    sets: list[frozenset] = []
    for a, chain_of in enumerate(chains_of):
        if chain_of is None:
            continue
        groups: dict[int, list[tuple]] = {}
        for span, chain in chain_of.items():
            groups.setdefault(chain, []).append(span)
        for members in groups.values():
            value = frozenset((document, s) for s in members)
            number = number_of.get(value)
            if number is None:
                number = number_of[value] = len(sets)
                sets.append(value)
            for span in members:
                rows_of[span][a] = number
    return [rows_of[span] for span in (everything if spans is None else spans)], sets


def chain_units(chains_of: Sequence[dict[tuple, int] | None], document: int,
                spans: Sequence[tuple] | None = None) -> list[list[frozenset | None]]:
    """:func:`numbered_chain_units` with the sets themselves as values."""
    rows, sets = numbered_chain_units(chains_of, document, spans)
    return [[None if i is None else sets[i] for i in row] for row in rows]


# --- mentions on the continuum ------------------------------------------------------------------

def _depth_units(mentions: Sequence[Mention], annotator: int, offset: int,
                 grouped: dict[int, list[list[tuple[int, int]]]], annotators: int) -> None:
    """An annotator's mentions as α_u units, each at the first nesting depth where it
    overlaps no unit already placed (outer mentions first), added to ``grouped``:
    depth (1, 2, …) → for each annotator, its (begin, length) units in order."""
    extents = sorted({(m.spans[0][0], m.spans[-1][1]) for m in mentions}, key=lambda e: (e[0], -e[1]))
    ends: list[int] = []  # the end of the last unit placed at each depth
    for first, last in extents:
        for number, end in enumerate(ends):
            if end < first:  # sorted by start: only the last unit of a depth can overlap
                ends[number] = last
                break
        else:
            number = len(ends)
            ends.append(last)
        if number + 1 not in grouped:
            grouped[number + 1] = [[] for _ in range(annotators)]
        grouped[number + 1][annotator].append((offset + first, last - first + 1))


# --- the measures ------------------------------------------------------------------------------

def _head_of(m: Mention) -> tuple:
    """A mention's head as head matching compares identical spans: as annotated, else
    the default head token."""
    if m.head:
        return m.head
    token = head_token(m)
    return ((token, token),)


def _mention_f1(first: list[Mention], second: list[Mention], modes: Sequence[str], label: str) -> dict[str, int]:
    """Mentions matched one to one under each mode. Identical spans pair first in every
    mode (step 1 of :func:`corefio.compare.matching.match_mentions`; for ``head``, with the
    same head too), so they are paired once here and only the rest is matched per mode."""
    by_span = {m.spans: m for m in second}
    identical = [(m, by_span[m.spans]) for m in first if m.spans in by_span]
    paired = {m.spans for m, _ in identical}
    first_left = [m for m in first if m.spans not in paired]
    second_left = [m for m in second if m.spans not in paired]
    out = {}
    for mode in modes:
        if mode == "head":  # step 1 of head matching also asks for the same head
            differ = [(a, b) for a, b in identical if _head_of(a) != _head_of(b)]
            one, two = first_left + [a for a, _ in differ], second_left + [b for _, b in differ]
            matched = len(identical) - len(differ)
        else:
            one, two, matched = first_left, second_left, len(identical)
        if one and two and mode != "exact":
            matched += len(match_mentions(one, two, mode, None, label).pairs)
        out[mode] = matched
    return out


def _f1(matched: int, first: int, second: int) -> Fraction:
    return Fraction(2 * matched, first + second) if first + second else Fraction(1)


def _windows(view: MentionView, sentence_starts: list[int], window: int) -> list[tuple[int, int, int, int]]:
    """Passages of ``window`` sentences: (first sentence, last sentence, first token, last token)."""
    out = []
    n = len(sentence_starts)
    ends = sentence_starts[1:] + [len(view.forms)]
    for s in range(0, n, window):
        last = min(s + window, n) - 1
        out.append((s + 1, last + 1, sentence_starts[s], ends[last] - 1))
    return out


def _restricted(view: MentionView, first: int, last: int) -> MentionView:
    """The chains of ``view`` with only the mentions that lie in tokens first..last."""
    chains = [[m for m in chain if m.spans[0][0] >= first and m.spans[-1][1] <= last] for chain in view.mentions]
    return MentionView(view.label, view.forms, [c for c in chains if c], view.pos, view.places)


def agree(annotations: Sequence[Any], *, names: Sequence[str] | None = None, format: str | None = None,
          distance: str = "passonneau", window: int | None = None, allow_missing: bool = False,
          sync: str | None = None, report: Report | None = None, scoring: dict[str, Any] | None = None
          ) -> Agreement:
    """Agreement among the annotators of the same documents (see the module doc).

    ``annotations``: one per annotator — a corpus, a document, a path, or a list of paths
    (an annotator's files, read as one annotation). Documents pair by name and part.
    ``scoring``: options of the pairwise table's scorer (``match``, ``keep_singletons``,
    ``zeros``, ``repeats``: :func:`corefio.scoring.presets.chain_options` of a preset).
    """
    report = report if report is not None else Report()
    if distance not in DISTANCES or distance == "nominal":
        raise UsageError(f"unknown set distance {distance!r} (known: passonneau, masi, dkpro-masi)")
    if window is not None and window < 1:
        raise UsageError("--window takes a number of sentences of at least 1")
    # passages need sentences, which only documents have; otherwise the annotations are
    # read as the scorer reads them, mention views straight from the parser
    study = build_study(annotations, names=names, format=format, allow_missing=allow_missing, report=report,
                        views_only=window is None)
    return measure(study, distance=distance, window=window, sync=sync, report=report, scoring=scoring)


def _views_of(study: Study, report: Report) -> tuple[list[list[MentionView | None]], list[list[list[Mention] | None]],
                                                    list[list[dict[tuple, int] | None]]]:
    """Per document and annotator: the mention view, its mentions once each, and the
    chain number of each span (None where the annotator lacks the document)."""
    views: list[list[MentionView | None]] = []
    flats: list[list[list[Mention] | None]] = []
    chains: list[list[dict[tuple, int] | None]] = []
    for item in study.items:
        vs: list[MentionView | None] = []
        fs: list[list[Mention] | None] = []
        cs: list[dict[tuple, int] | None] = []
        for a, view in enumerate(item.views()):
            if view is None:
                vs.append(None)
                fs.append(None)
                cs.append(None)
                continue
            flat, chain_of = _mentions(view, report, study.annotators[a])
            vs.append(view)
            fs.append(flat)
            cs.append(chain_of)
        views.append(vs)
        flats.append(fs)
        chains.append(cs)
    return views, flats, chains


def _plain(scored: Scores | SyncScores, sync: str | None) -> Scores:
    """The scores of the synchronisation strategy asked for, or the plain scores."""
    if isinstance(scored, SyncScores):
        assert sync is not None
        return scored.sets[sync]
    return scored


def _side(keys: list[tuple[str, str | None]], get: Callable[[int], MentionView]) -> Side:
    return Side(keys, get)


def measure(study: Study, *, distance: str = "passonneau", window: int | None = None, sync: str | None = None,
            report: Report | None = None, scoring: dict[str, Any] | None = None) -> Agreement:
    """:func:`agree` on a study already read."""
    report = report if report is not None else Report()
    delta = DISTANCES[distance]
    n = len(study.annotators)
    pairs = list(combinations(range(n), 2))
    views, flats, chains = _views_of(study, report)

    # chain α, per document and over the corpus (the sum of the documents' parts:
    # values of different documents share no markable)
    parts = []
    markables = []
    for d in range(len(study.items)):
        rows, sets = numbered_chain_units(chains[d], d)
        parts.append(numbered_set_alpha_parts(rows, sets, delta))
        markables.append(len(rows))
    corpus_alpha = combine(parts)
    if corpus_alpha.missing:
        report.info("agree.missing-values", f"{corpus_alpha.missing} markable value(s) are missing: markables that "
                                            "some annotators marked and others did not (α counts them as missing "
                                            "values, not as disagreement on the chain)")

    # α_u over the tokens, by nesting depth; the corpus puts documents end to end
    grouped: dict[int, list[list[tuple[int, int]]]] = {}
    offset = 0
    for d, item in enumerate(study.items):
        if len(item.present) == n:
            for a in range(n):
                _depth_units(flats[d][a] or [], a, offset, grouped, n)
            offset += len(_present(views[d][item.present[0]]).forms)
    unitizing = grouped_unitizing_alpha({f"depth {k}": v for k, v in sorted(grouped.items())}, n, 0, offset)

    # the pairwise table (corpus and per document) and mention F1
    names = resolve_metrics(list(PAIR_METRICS))
    options = Options(names, per_document=True, strategies=(sync,) if sync else (), **(scoring or {}))
    pair_rows: list[PairRow] = []
    doc_conll: dict[int, list[Fraction]] = {}
    for a, b in pairs:
        docs = [d for d, item in enumerate(study.items)
                if item.documents[a] is not None and item.documents[b] is not None]
        # both sides name each document as the first does: they are paired already
        keys: list[tuple[str, str | None]] = [(str(position), None) for position in range(len(docs))]
        side_a = _side(keys, _getter(views, docs, a))
        side_b = _side(keys, _getter(views, docs, b))
        plain = _plain(score_views(side_a, side_b, options, Report()), sync)
        row = {m: Fraction(plain.corpus[m].f1) for m in PAIR_METRICS}
        for position, d in enumerate(docs):
            doc_conll.setdefault(d, []).append(Fraction(plain.documents[position].results["conll"].f1))
        matched = dict.fromkeys(MENTION_MODES, 0)
        first = second = 0
        for d in docs:
            one, two = flats[d][a] or [], flats[d][b] or []
            for mode, count in _mention_f1(one, two, MENTION_MODES, study.items[d].label).items():
                matched[mode] += count
            first, second = first + len(one), second + len(two)
        for mode in MENTION_MODES:
            row[f"mentions:{mode}"] = _f1(matched[mode], first, second)
        pair_rows.append(PairRow(a, b, row))
    mean = {m: sum((r.f1[m] for r in pair_rows), Fraction(0)) / len(pair_rows) for m in pair_rows[0].f1}

    documents: list[PlaceRow] = []
    for d, item in enumerate(study.items):
        doc_alpha = combine([parts[d]])
        conll = doc_conll.get(d)
        documents.append(PlaceRow(item.label, doc_alpha, sum(conll, Fraction(0)) / len(conll) if conll else None,
                                  markables[d]))
    documents.sort(key=lambda r: (r.alpha.value, r.document))
    passages = _passages(study, views, chains, pairs, delta, window) if window else []
    return Agreement(study.annotators, distance, corpus_alpha, unitizing, pair_rows, mean, documents, passages,
                     report, sync)


def _getter(views: list[list[MentionView | None]], docs: list[int], annotator: int) -> Callable[[int], MentionView]:
    """The view of the i-th of ``docs`` for ``annotator`` (who has each of them)."""
    return lambda i: _present(views[docs[i]][annotator])


def _present(view: MentionView | None) -> MentionView:
    assert view is not None
    return view


def _passages(study: Study, views: list[list[MentionView | None]], chains: list[list[dict[tuple, int] | None]],
              pairs: list[tuple[int, int]], delta: Distance, window: int) -> list[PlaceRow]:
    """Passages of ``window`` sentences of every document, lowest chain α first."""
    passages: list[PlaceRow] = []
    conll_only = Options(resolve_metrics(["conll"]))
    for d, item in enumerate(study.items):
        reference = item.reference
        starts = [s.first for s in reference.sentences] if reference.sentences else [0]
        present = item.present
        for first_s, last_s, first_t, last_t in _windows(_present(views[d][present[0]]), starts, window):
            spans = sorted({span for a in present for span in (chains[d][a] or {})
                            if first_t <= span[0][0] and span[-1][1] <= last_t})
            rows = chain_units(chains[d], d, spans)
            scores = []
            for a, b in pairs:
                view_a, view_b = views[d][a], views[d][b]
                if view_a is None or view_b is None:
                    continue
                one = _restricted(view_a, first_t, last_t)
                two = _restricted(view_b, first_t, last_t)
                scored = score_views(_side([(item.label, None)], [one].__getitem__),
                                     _side([(item.label, None)], [two].__getitem__), conll_only, Report())
                scores.append(Fraction(_plain(scored, None).corpus["conll"].f1))
            passages.append(PlaceRow(item.label, set_alpha(rows, delta),
                                     sum(scores, Fraction(0)) / len(scores) if scores else None,
                                     len(rows), (first_s, last_s)))
    passages.sort(key=lambda r: (r.alpha.value, r.document, r.sentences or (0, 0)))
    return passages
