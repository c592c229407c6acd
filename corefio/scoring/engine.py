"""Scoring documents one pair at a time and forming corpus scores.

Steps for a key and a response (corpora, documents or files of any readable format):

1. **Match documents** (:mod:`.documents`).
2. **One path to the metrics** (:mod:`.views`): each document becomes a mention view,
   key and response views go through :func:`~.views.synchronise`, then become
   partitions and one contingency table.
3. **Singletons** are kept by default (as the reference scorer); ``keep_singletons=False``
   removes one-mention chains from both sides first, before mentions are matched (as
   coval, corefud-scorer and the UA scorer do: :func:`~.views.prepare`).
4. **Corpus scores** are formed as the registry says (:mod:`.registry`): the sums of
   document counts (the reference scorer's micro-average), κ from the summed DEF.7
   counts, H, DMT and D-err on the corpus as one document (from its summed profile),
   the CoNLL average from the corpus scores. ``macro=True`` adds the mean of document
   values.

Only what the corpus scores need is kept while documents stream past: the running
sums, a profile (counts), and, for metrics whose union counts are sums
(``additive``), the tables of the documents not yet summed, summed in batches (one
computation per batch is much faster than one per document; the batch bounds the
memory). Per-document results are kept only when asked for.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import metrics as M
from ..compare.alignment import AlignmentError
from ..model.mentions import MentionView
from ..diagnostics import Diagnostic, Report
from ..errors import DocumentMismatchError, UsageError
from ..metrics.agreement import KappaCounts
from ..metrics.base import BlancScore, Contingency, Score, Value
from ..metrics.blanc import with_half_rule
from ..metrics.profile import Profile
from ..metrics.typed import DEFAULT_COEFFICIENTS, TypedResult, typed_evaluation
from ..io.source import Source
from ..compare import pairing as D
from . import views as V
from .presets import accepting_preset
from .registry import DEFAULT_METRICS, REGISTRY, resolve_metrics
from .render import ConllScore, DocumentScores, Scores, SyncScores, TypedScore, typed_json

if TYPE_CHECKING:  # pragma: no cover
    from ..formats.registry import FormatSpec

#: cells of pending tables that trigger a batch computation of the additive metrics
BATCH_CELLS = 50_000
_KAPPAS = {"kappa": False, "kappa_d0": True}  # name: d >= 0


@dataclass(frozen=True)
class Options:
    names: list[str]
    keep_singletons: bool = True
    per_document: bool = False
    k: tuple[Fraction, ...] = DEFAULT_COEFFICIENTS
    scheme_classes: int | None = None
    type_attribute: str = "coref_type"
    dominant_attribute: str = "dominant"
    #: mention matching mode (:mod:`corefio.compare.matching`)
    match: str = "exact"
    #: synchronisation strategies to score side by side (empty: plain scoring)
    strategies: tuple[str, ...] = ()
    #: zero mentions: ``drop``, or kept and matched ``linear`` or ``dependent`` (:mod:`corefio.model.zeros`)
    zeros: str = "drop"
    #: with ``per_document``: what is kept of each document's :class:`DocumentScores`
    #: (None: all of it; significance tests keep a row of counts, a small part of it)
    summarise: Callable[[DocumentScores], Any] | None = None
    #: what becomes of a repeated mention (:data:`.views.REPEAT_RULES`): scorer.pl's rule
    #: or corefud-scorer's; the same scorer's rule for BLANC's halves
    #: (:data:`corefio.metrics.blanc.HALF_RULES`)
    repeats: str = "scorer"

    @property
    def pos(self) -> bool:
        """Views need POS tags (the typed evaluation's dominant-mention rule reads them)."""
        return "typed" in self.names


@dataclass
class Share:
    """What scoring some of the document pairs gave (in this or another process)."""

    sums: dict[str, Any] = field(default_factory=dict)
    kappa: dict[str, KappaCounts] = field(default_factory=dict)
    profile: Profile | None = None
    typed: TypedResult | None = None
    documents: list[tuple[int, DocumentScores]] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: with synchronisation: each strategy's share (this share holds mention identification)
    sync: dict[str, "Share"] | None = None


def _add(sums: dict[str, Any], name: str, value: Any) -> None:
    sums[name] = value if name not in sums else sums[name] + value


class Accumulator:
    """Scores document pairs one at a time and keeps what the corpus scores need."""

    def __init__(self, options: Options, report: Report) -> None:
        self.options = options
        self.report = report
        names = options.names
        metrics = [REGISTRY[n] for n in names]
        #: per-document sums; the additive ones go through batches unless every
        #: document's results are computed anyway
        self.summed = [m for m in metrics if m.corpus == "sum"]
        self.batched = [] if options.per_document else [m for m in self.summed if m.has("additive")]
        self.each = [m for m in self.summed if m not in self.batched]
        self.kappas = [n for n in names if n in _KAPPAS]
        self.profiled = [m for m in metrics if m.corpus == "profile"]
        self.share = Share(profile=Profile.zero() if self.profiled else None,
                           typed=TypedResult() if "typed" in names else None)
        self.pending: list[Contingency] = []
        self.pending_cells = 0

    def add(self, index: int, key: MentionView, response: MentionView | None) -> None:
        options = self.options
        kv, rv = V.prepare(key, response, self.report, options.match, options.zeros, options.keep_singletons)
        self.add_prepared(index, kv, rv, prepared=True)

    def add_prepared(self, index: int, kv: MentionView, rv: MentionView, prepared: bool = False) -> None:
        """Score two views already aligned and matched (:func:`~.views.prepare`);
        ``prepared``: as :func:`~.views.prepare` left them, singletons already out when
        scoring leaves them out (a chain shortened since stays). Otherwise (a
        synchronisation strategy's views) one-mention classes are removed here."""
        options, share = self.options, self.share
        table = V.table(kv, rv, self.report, options.keep_singletons or prepared, options.repeats)
        results: dict[str, Any] = {}
        for m in self.each:
            assert m.function is not None
            results[m.name] = with_half_rule(m.function(table), options.repeats)
            _add(share.sums, m.name, results[m.name])
        if self.batched or self.profiled:
            self.pending.append(table)
            self.pending_cells += len(table.counts) + len(table.key_sizes) + len(table.response_sizes)
            if self.pending_cells >= BATCH_CELLS:
                self.flush()
        if self.kappas:
            muc = results["muc"] if "muc" in results else M.muc(table)
            mentions = table.n_key + table.n_response - table.matched
            for name in self.kappas:
                counts = KappaCounts.of(muc, mentions, _KAPPAS[name])
                _add(share.kappa, name, counts)
                if options.per_document:
                    results[name] = Value(counts.value)
        typed = None
        if share.typed is not None:
            typed = typed_evaluation(kv, rv, options.type_attribute, options.dominant_attribute)
            share.typed = share.typed + typed
        if options.per_document:
            for m in self.profiled:
                results[m.name] = m.function(table) if m.function is not None else None
            if "conll" in options.names:
                results["conll"] = _conll(results)
            if typed is not None:
                results["typed"] = TypedScore(typed_json(typed, options.k, options.scheme_classes))
            for name in self.kappas:
                _check_kappa(results[name], self.report, kv.label)
            kept = DocumentScores(kv.label, {n: results[n] for n in options.names})
            share.documents.append((index, kept if options.summarise is None else options.summarise(kept)))

    def flush(self) -> None:
        """Sum the additive metrics and the profile over the pending tables."""
        if not self.pending:
            return
        union = self.pending[0] if len(self.pending) == 1 else Contingency.union(self.pending)
        self.pending, self.pending_cells = [], 0
        for m in self.batched:
            assert m.function is not None
            _add(self.share.sums, m.name, with_half_rule(m.function(union), self.options.repeats))
        if self.share.profile is not None:
            self.share.profile = self.share.profile + Profile.of(union)

    def result(self) -> Share:
        self.flush()
        self.share.diagnostics = self.report.diagnostics
        return self.share


class SyncAccumulator:
    """Popescu-Belis et al.'s (2004) score sets: each synchronisation strategy scored on the same aligned
    and matched views, side by side, and mention identification once, before any
    strategy changes the mention sets."""

    def __init__(self, options: Options, report: Report) -> None:
        from dataclasses import replace

        self.report = report
        self.options = options
        self.mentions = Accumulator(replace(options, names=["mentions"], strategies=()), report)
        # each strategy's own findings (repeated mentions...) would repeat the plain
        # ones once per strategy: they go to a report of their own
        self.by_strategy = {s: Accumulator(replace(options, strategies=()), Report()) for s in options.strategies}
        #: a metric depends on the order of classes: strategies order them as `corefio sync` does
        self.ordered = not all(REGISTRY[name].has("order-free") for name in options.names)

    def add(self, index: int, key: MentionView, response: MentionView | None) -> None:
        options = self.options
        kv, rv = V.prepare(key, response, self.report, options.match, options.zeros, options.keep_singletons)
        self.mentions.add_prepared(index, kv, rv, prepared=True)
        for strategy, acc in self.by_strategy.items():
            acc.add_prepared(index, *V.apply_strategy(kv, rv, strategy, self.ordered))

    def result(self) -> Share:
        share = self.mentions.result()
        share.sync = {}
        for strategy, acc in self.by_strategy.items():
            sub = acc.result()
            sub.diagnostics = []
            share.sync[strategy] = sub
        return share


def accumulator(options: Options, report: Report) -> "Accumulator | SyncAccumulator":
    return SyncAccumulator(options, report) if options.strategies else Accumulator(options, report)


def _conll(results: dict[str, Any]) -> ConllScore:
    return ConllScore(results["muc"], results["bcub"], results["ceafe"])


def _check_kappa(value: Value, report: Report, where: str) -> None:
    """κ as printed in DEF.7 may leave [−1, 1] (Popescu-Belis et al. 2004 observed it): say so."""
    if not -1 <= value.value <= 1:
        report.warning("score.kappa-out-of-range",
                       "kappa outside [-1, 1]: the MUC links outnumber |E| - 1, so d < 0 in Popescu-Belis (2000) DEF.7 "
                       "(kappa_d0 keeps d >= 0)", merge=True, example=f"{where}: {float(value.value):.6g}")


def finish(shares: list[Share], report: Report, options: Options, macro: bool,
           allow_missing: bool) -> "Scores | SyncScores":
    """Corpus scores from the shares, in registry order (one set per strategy when
    synchronising)."""
    if options.repeats == "scorer":
        V.scorer_refusal(report)
    if options.strategies:
        from dataclasses import replace

        plain = replace(options, strategies=())
        sets = {s: _finish(plain, [share.sync[s] for share in shares if share.sync is not None], report, macro,
                           allow_missing) for s in options.strategies}
        mentions = _finish(replace(plain, names=["mentions"]), shares, report, False, allow_missing)
        return SyncScores(sets, mentions, report, {"match": options.match, "zeros": options.zeros})
    return _finish(options, shares, report, macro, allow_missing)


def _finish(options: Options, shares: list[Share], report: Report, macro: bool, allow_missing: bool) -> Scores:
    names = options.names
    sums: dict[str, Any] = {}
    kappa: dict[str, KappaCounts] = {}
    profile: Profile | None = None
    typed: TypedResult | None = None
    for share in shares:
        for name, value in share.sums.items():
            _add(sums, name, value)
        for name, counts in share.kappa.items():
            _add(kappa, name, counts)
        if share.profile is not None:
            profile = share.profile if profile is None else profile + share.profile
        if share.typed is not None:
            typed = share.typed if typed is None else typed + share.typed
    empty = Contingency([], [])
    corpus: dict[str, Any] = {}
    for name in names:
        metric = REGISTRY[name]
        if metric.corpus == "sum":
            assert metric.function is not None
            corpus[name] = sums[name] if name in sums else with_half_rule(metric.function(empty), options.repeats)
        elif metric.corpus == "counts":
            corpus[name] = Value(kappa.get(name, KappaCounts.zero()).value)
            _check_kappa(corpus[name], report, "corpus")
        elif metric.corpus == "profile":
            assert metric.function is not None
            corpus[name] = metric.function(profile if profile is not None else Profile.zero())
        elif metric.corpus == "typed":
            corpus[name] = TypedScore(typed_json(typed if typed is not None else TypedResult(), options.k,
                                                 options.scheme_classes))
    if "conll" in names:
        corpus["conll"] = _conll(corpus)
    documents = sorted((d for s in shares for d in s.documents), key=lambda d: d[0])
    docs = [ds for _, ds in documents]
    return Scores(names, corpus, docs, report, _macro(docs, names) if macro else None,
                  {"keep_singletons": options.keep_singletons, "allow_missing": allow_missing,
                   "per_document": options.per_document, "match": options.match,
                   "zeros": options.zeros})


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


# -- the two ways in ----------------------------------------------------------------------------
def _is_path(x: Any) -> bool:
    return isinstance(x, (str, Path, Source))


def _side(x: Any, fmt: str | None, report: Report, pos: bool) -> D.Side:
    from ..model import Corpus, Document

    if isinstance(x, Corpus):
        return D.in_memory(x, pos)
    if isinstance(x, Document):
        return D.in_memory(Corpus(documents=[x]), pos)
    if _is_path(x):
        return D.read_views(x, fmt, report, pos)
    raise TypeError(f"cannot score {type(x).__name__}: give a Corpus, a Document or a path")


def score_views(key: D.Side, response: D.Side, options: Options, report: Report, macro: bool = False,
                allow_missing: bool = False, pair_by: str = "name",
                pairs_file: str | Path | None = None) -> "Scores | SyncScores":
    """Score two sides document pair by document pair, in this process."""
    share = _views_share(key, response, options, report, allow_missing, pair_by, pairs_file)
    return finish([share], report, options, macro, allow_missing)


def _views_share(key: D.Side, response: D.Side, options: Options, report: Report, allow_missing: bool,
                 pair_by: str, pairs_file: str | Path | None) -> Share:
    """The share of two sides' documents, paired and scored one pair at a time."""
    from ..compare.synchronisation import pair_keys

    pairs = pair_keys(key.keys, response.keys, pair_by, pairs_file, report, allow_missing)
    acc = accumulator(options, report)
    for index, (i, j) in enumerate(pairs):
        acc.add(index, key.view(i), response.view(j) if j is not None else None)
    return acc.result()


@accepting_preset
def score(
    key: Any,
    response: Any,
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
    match: str = "exact",
    sync: str | Sequence[str] | None = None,
    pair_by: str = "name",
    pairs_file: str | Path | None = None,
    keep_zeros: bool = False,
    zero_match: str = "dependent",
    runner: Callable[..., list[Share]] | None = None,
    summarise: Callable[[DocumentScores], Any] | None = None,
    file_runner: "FileRunner | None" = None,
    repeats: str = "scorer",
    preset: str | None = None,
) -> "Scores | SyncScores":
    """Score ``response`` against ``key`` with the named metrics (see :data:`METRICS`).

    ``key`` and ``response`` are corpora, documents or files (paths or
    :class:`~corefio.io.source.Source`) of any readable format. Corpus scores are always
    computed; ``per_document=True`` (or ``macro=True``) adds every document's own.
    Files whose format gives mention views straight from its parser are read only as
    far as scoring needs, and on large inputs the documents are shared between this
    process and a forked one (``workers``; default: 2 when the machine has two cores
    and the files hold more than 4 MB; ``COREFIO_WORKERS`` overrides it). The counts
    are the same either way.

    ``match`` chooses how response mentions are matched to key mentions (``exact``,
    ``head``, ``min``, ``partial``: :mod:`corefio.compare.matching`). ``sync`` scores the
    synchronisation strategies of Popescu-Belis et al. (2004) side by side (``"all"`` or some of ``key``,
    ``response``, ``intersection``, ``union``) and returns :class:`SyncScores`.
    Documents are paired by name (``pair_by="order"``, or a ``pairs_file`` of
    ``KEY<TAB>RESPONSE`` names, otherwise). Zero mentions (CorefUD empty nodes) are
    left out unless ``keep_zeros``; kept, they are matched ``"dependent"`` (by their
    dependencies first, as corefud-scorer does) or ``"linear"`` (by their places):
    :mod:`corefio.model.zeros`.

    ``runner`` (from :func:`corefio.parallel.score_runner`) scores the matched pairs of
    two files that take the fast path, in place of ``workers``: ``runner(job, key
    documents, response documents, pairs)`` gives the shares, in order.

    ``summarise`` (with ``per_document``): what to keep of each document's
    :class:`~corefio.scoring.render.DocumentScores` in ``Scores.documents`` (all of it
    by default; :func:`corefio.scoring.significance.compare` keeps a row of counts).

    ``key`` and ``response`` may also be two lists of files, the k-th response file
    scored against the k-th key file (documents paired by name within each pair of
    files), all as one corpus: the scores of the files joined into one key and one
    response file, per-document results in file order. ``file_runner`` (from
    :func:`corefio.parallel.file_runner`) then scores the pairs of files, in place of
    this process one after the other.

    ``repeats``: what becomes of a mention span listed twice (in two chains): ``"scorer"``
    (scorer.pl v8.01's rule, the default) or ``"corefud"`` (corefud-scorer's), the same
    for every input format (:mod:`corefio.scoring.views`); BLANC's halves follow the same
    scorer (:func:`corefio.metrics.blanc.with_half_rule`: scorer.pl leaves out a half the
    key has no link of, corefud-scorer only a half neither side has a link of).

    ``preset``: a scorer's settings by name (``conll2012``, ``corefud``, ``codicrac``...:
    :mod:`corefio.scoring.presets`); they fill in the options the call does not give.
    """
    from ..compare.matching import MATCH_MODES
    from ..compare.synchronisation import STRATEGIES
    from ..model.zeros import zero_mode

    report = report if report is not None else Report()
    if match not in MATCH_MODES:
        raise UsageError(f"unknown matching mode {match!r} (known: {', '.join(MATCH_MODES)})")
    if repeats not in V.REPEAT_RULES:
        raise UsageError(f"unknown rule for repeated mentions {repeats!r} (known: {', '.join(V.REPEAT_RULES)})")
    if zero_match not in ("linear", "dependent"):
        raise UsageError(f"unknown zero matching method {zero_match!r} (known: linear, dependent)")
    strategies: tuple[str, ...] = ()
    if sync is not None:
        wanted = [sync] if isinstance(sync, str) else list(sync)
        wanted = [w.strip() for item in wanted for w in item.split(",") if w.strip()]
        strategies = STRATEGIES if "all" in wanted else tuple(s for s in STRATEGIES if s in wanted)
        unknown = [w for w in wanted if w != "all" and w not in STRATEGIES]
        if unknown or not strategies:
            raise UsageError(f"unknown synchronisation strategy {', '.join(unknown) or sync!r} "
                             f"(known: all, {', '.join(STRATEGIES)})")
    options = Options(resolve_metrics(metrics), keep_singletons, per_document or macro,
                      tuple(c if isinstance(c, Fraction) else Fraction(c) for c in coefficients),
                      scheme_classes, type_attribute, dominant_attribute, match, strategies,
                      zero_mode(keep_zeros, zero_match), summarise, repeats)
    if isinstance(key, (list, tuple)) or isinstance(response, (list, tuple)):
        if sync is not None or pairs_file is not None:
            raise UsageError("lists of files are scored with their documents paired within each pair of files: "
                             "synchronisation and a pairs file take one key and one response file")
        scorer = FilePairScorer(options, allow_missing, key_format, response_format, pair_by)
        return _score_files(key, response, scorer, report, macro, file_runner)
    try:
        return _score(key, response, options, report, macro, allow_missing, pair_by, pairs_file, key_format,
                      response_format, workers, runner)
    except AlignmentError as exc:  # texts that differ: the response is the file carried over
        if _is_path(response):
            exc.located(Source.of(response).name)
        raise


def _score(key: Any, response: Any, options: Options, report: Report, macro: bool, allow_missing: bool,
           pair_by: str, pairs_file: str | Path | None, key_format: str | None, response_format: str | None,
           workers: int | None, runner: Callable[..., list[Share]] | None = None) -> "Scores | SyncScores":
    if _is_path(key) and _is_path(response) and pair_by == "name" and pairs_file is None:
        from ..formats.registry import resolve_format

        key_source, response_source = Source.of(key), Source.of(response)
        key_spec = _spec(key_source, key_format, resolve_format)
        response_spec = _spec(response_source, response_format, resolve_format)
        if D.has_fast_path(key_spec) and D.has_fast_path(response_spec):
            shares = score_fast(key_source, response_source, key_spec, response_spec, report, allow_missing,
                                options, workers, runner)
            return finish(shares, report, options, macro, allow_missing)
        key_format, response_format = key_spec.name, response_spec.name
    key_side = _side(key, key_format, report, options.pos)
    response_side = _side(response, response_format, report, options.pos)
    return score_views(key_side, response_side, options, report, macro, allow_missing, pair_by, pairs_file)


# -- lists of files --------------------------------------------------------------------------------
#: a pair of files to score: its number among the pairs, the key file, the response file
FilePair = tuple[int, str, str]
#: ``file_runner(scorer, pairs, report)``: what ``scorer`` gives for each pair of files
#: (the shares, the key documents), in order, what was found added to ``report`` as
#: :func:`_in_this_process` adds it
FileRunner = Callable[["FilePairScorer", list[FilePair], Report], Iterable[tuple[list[Share], list[tuple]]]]


@dataclass(frozen=True)
class FilePairScorer:
    """Scores one pair of files of a list (:func:`score` of two lists of files), in the
    process it is called in (a class: it travels to worker processes by pickle)."""

    options: Options
    allow_missing: bool
    key_format: str | None
    response_format: str | None
    pair_by: str = "name"

    def __call__(self, pair: FilePair, report: Report) -> tuple[list[Share], list[tuple]]:
        """The pair's shares and the key documents' ``(name, part)``; per-document
        results are numbered ``pair number * 2**40 + place``, so that they sort in file
        order. Errors name the files: documents that do not pair, the pair of files;
        texts that differ, the response file (as scoring two files does)."""
        number, key, response = pair
        try:
            return self._score(number, key, response, report)
        except DocumentMismatchError as exc:
            exc.pair = (key, response)
            raise exc.located(f"{key} and {response}") from None
        except AlignmentError as exc:
            raise exc.located(response) from None

    def _score(self, number: int, key: str, response: str, report: Report) -> tuple[list[Share], list[tuple]]:
        from ..formats.registry import resolve_format

        key_source, response_source = Source.of(key), Source.of(response)
        key_spec = _spec(key_source, self.key_format, resolve_format)
        response_spec = _spec(response_source, self.response_format, resolve_format)
        if self.pair_by == "name" and D.has_fast_path(key_spec) and D.has_fast_path(response_spec):
            job = _Job(key_source, response_source, key_spec, response_spec, self.options)
            key_docs, response_docs, pairs = _scanned_pairs(job, report, self.allow_missing)
            share = _score_run(job, _Work(key_docs, response_docs, list(enumerate(pairs))))
            report.absorb(share.diagnostics)  # as score_fast adds a run's findings
            names = [tuple(d[:2]) for d in key_docs]
        else:
            key_side = _side(key, key_spec.name, report, self.options.pos)
            response_side = _side(response, response_spec.name, report, self.options.pos)
            share = _views_share(key_side, response_side, self.options, report, self.allow_missing,
                                 self.pair_by, None)
            names = [tuple(k) for k in key_side.keys]
        share.diagnostics = []  # in the report
        share.documents = [((number << 40) + index, doc) for index, doc in share.documents]
        return [share], names


def _in_this_process(scorer: FilePairScorer, pairs: list[FilePair],
                     report: Report) -> Iterable[tuple[list[Share], list[tuple]]]:
    for pair in pairs:
        yield scorer(pair, report)


def _score_files(keys: Any, responses: Any, scorer: FilePairScorer, report: Report, macro: bool,
                 file_runner: FileRunner | None) -> "Scores | SyncScores":
    if not (isinstance(keys, (list, tuple)) and isinstance(responses, (list, tuple))):
        raise UsageError("give two lists of files (key files and response files), or two files")
    if len(keys) != len(responses) or not keys:
        raise UsageError(f"{len(keys)} key file(s) but {len(responses)} response file(s): give one response file "
                         "per key file")
    pairs = [(number, _file_path(key), _file_path(response))
             for number, (key, response) in enumerate(zip(keys, responses))]
    run = file_runner if file_runner is not None else _in_this_process
    shares: list[Share] = []
    seen: dict[tuple, str] = {}
    for (_, key, _), (found, names) in zip(pairs, run(scorer, pairs, report)):
        shares.extend(found)
        named_once(key, names, seen)
    return finish(shares, report, scorer.options, macro, scorer.allow_missing)


def named_once(key: str, names: list[tuple], seen: dict[tuple, str]) -> None:
    """Refuse a key document named as one of another key file (``seen``: each name
    met so far and its file): results and comparisons know a document by its name, and
    the files joined into one would not pair."""
    for name in names:
        if seen.setdefault(name, key) != key:
            label = name[0] if name[1] is None else f"{name[0]} (part {name[1]})"
            raise DocumentMismatchError(f"document {label!r} is in two key files, {seen[name]} and {key}: a "
                                        "document is named once in all the files scored together", file=key)


def _file_path(x: Any) -> str:
    """A file of a list of files (a path, or a Source read from one: the pairs of files
    may be scored in other processes, which open them by their paths)."""
    if isinstance(x, Source):
        if x.path is None:
            raise UsageError(f"{x.name}: lists of files hold files (a path, or a Source of one), not text")
        return str(x.path)
    if not isinstance(x, (str, Path)):
        raise UsageError(f"lists of files hold paths, not {type(x).__name__}")
    return str(x)


def _spec(source: Source, name: str | None, resolve: Callable[..., "FormatSpec"]) -> "FormatSpec":
    if source.path is None:
        from ..formats.registry import get_format, sniff_format

        return get_format(name) if name else sniff_format(source.read_bytes()[:4096], source.name)
    return resolve(source.path, name)


# -- the fast path: views from the parser, in one or two processes ------------------------------
@dataclass(frozen=True)
class _Job:
    key: Source
    response: Source
    key_spec: "FormatSpec"
    response_spec: "FormatSpec"
    options: Options


@dataclass(frozen=True)
class _Work:
    """What one process scores: a run of document pairs ``(index, (key number, response
    number))``, and the documents ``scan_keys`` found in both files."""

    key_docs: list
    response_docs: list
    run: list[tuple[int, tuple[int, int | None]]]


def score_fast(key: Source, response: Source, key_spec: "FormatSpec", response_spec: "FormatSpec",
               report: Report, allow_missing: bool, options: Options, workers: int | None = None,
               runner: Callable[..., list[Share]] | None = None) -> list[Share]:
    """Match documents from what ``scan_keys`` finds, then score contiguous runs of
    pairs, one run per process; each process reads only the bytes of its documents.

    With several processes, the others are forked first, and the first of them scans
    the response while this one scans the key (one after the other, the two scans took
    0.08 s of the 1 s of ``corefio score -m all`` on the benchmark corpus, before any
    parallel work could start); this process then matches the documents and sends each
    worker its run."""
    assert key_spec.scan_keys is not None and response_spec.scan_keys is not None
    job = _Job(key, response, key_spec, response_spec, options)
    n = worker_count(workers, key, response) if runner is None else 0
    if runner is not None:
        key_docs, response_docs, pairs = _scanned_pairs(job, report, allow_missing)
        results = runner(job, key_docs, response_docs, pairs)
    elif n == 1:
        key_docs, response_docs, pairs = _scanned_pairs(job, report, allow_missing)
        results = [_score_run(job, _Work(key_docs, response_docs, list(enumerate(pairs))))]
    else:
        children = [_start(job, scans=w == 0) for w in range(n - 1)]
        try:
            key_docs = key_spec.scan_keys(key)
            response_docs = _receive(children[0])
            pairs = D.match_keys([tuple(d[:2]) for d in key_docs], [tuple(d[:2]) for d in response_docs],
                                 report, allow_missing)
            size = -(-len(pairs) // n)
            indexed = list(enumerate(pairs))
            runs = [indexed[w * size:(w + 1) * size] for w in range(n)]
            for (_, conn), run in zip(children, runs[1:]):
                conn.send(_Work(key_docs, response_docs, run))
            results = [_score_run(job, _Work(key_docs, response_docs, runs[0]))]
            results += [_receive(child) for child in children]
        except BaseException:
            for process, _ in children:
                process.terminate()  # nobody will read what it is doing
            raise
        finally:
            for process, conn in children:
                conn.close()
                process.join()
    for share in results:
        report.absorb(share.diagnostics)
    return results


def _scanned_pairs(job: _Job, report: Report, allow_missing: bool) -> tuple[list, list, list]:
    """Both files' documents as ``scan_keys`` finds them, and their pairs by name."""
    assert job.key_spec.scan_keys is not None and job.response_spec.scan_keys is not None
    key_docs, response_docs = job.key_spec.scan_keys(job.key), job.response_spec.scan_keys(job.response)
    pairs = D.match_keys([tuple(d[:2]) for d in key_docs], [tuple(d[:2]) for d in response_docs],
                         report, allow_missing)
    return key_docs, response_docs, pairs


def worker_count(workers: int | None, *sources: Source) -> int:
    if workers is None:
        env = os.environ.get("COREFIO_WORKERS")
        if env:
            workers = int(env)
        else:
            big = sum(s.size() for s in sources) > 4_000_000
            workers = 2 if big and (os.cpu_count() or 1) >= 2 else 1
    if workers > 1 and "fork" not in multiprocessing.get_all_start_methods():
        workers = 1
    return max(1, workers)


def _score_run(job: _Job, work: _Work, report: Report | None = None) -> Share:
    """Score a run of pairs. Response views are read in file order and kept only until
    their key document comes (one at a time when both files list the documents in the
    same order). What is found goes to ``report`` (a new one by default) and into the
    share."""
    report = report if report is not None else Report()
    options = job.options
    run = work.run
    wanted_k = [i for _, (i, _) in run]
    wanted_r = sorted({j for _, (_, j) in run if j is not None})
    partner = {i: (index, j) for index, (i, j) in run}
    responses = D.fast_views(job.response_spec, job.response, work.response_docs, wanted_r, report, options.pos)
    waiting: dict[int, MentionView] = {}
    acc = accumulator(options, report)
    for i, kv in D.fast_views(job.key_spec, job.key, work.key_docs, sorted(wanted_k), report, options.pos):
        index, j = partner[i]
        rv = None
        if j is not None:
            while j not in waiting:
                number, view = next(responses)  # fast_views raises if a document is missing
                waiting[number] = view
            rv = waiting.pop(j)
        acc.add(index, kv, rv)
    return acc.result()


#: seconds between two looks of a worker's watchdog at its parent
WATCHDOG_PERIOD = 0.25


def die_with_parent(parent: int, kernel: bool = True) -> None:
    """Make this forked process end when its parent ``parent`` does (killed with
    SIGKILL, say), instead of waiting forever for work that will never come.

    On Linux the kernel does it: ``prctl(PR_SET_PDEATHSIG, SIGKILL)``. Everywhere, a
    daemon thread also checks every :data:`WATCHDOG_PERIOD` seconds that the parent is
    still this process's parent (an orphan is adopted by another process) and ends the
    process if not; it covers systems without ``prctl`` and a parent that was gone
    before the signal was asked for (``kernel=False``: the watchdog alone)."""
    if kernel and sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no prctl in this C library: the watchdog remains
            pass
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(WATCHDOG_PERIOD)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="corefio-parent-watchdog", daemon=True).start()


_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def _child(conn: Any, job: _Job, scans: bool, parent: int) -> None:
    """A forked worker: scans the response first if ``scans`` (and sends what it found),
    then scores the run it is sent and sends back the share, or the error that stopped
    it; every message is ``(kind, value)``. It ends with its parent (``parent``, the
    pid of the process that forked it)."""
    die_with_parent(parent)
    scan = job.response_spec.scan_keys
    try:
        if scans:
            assert scan is not None
            conn.send(("ok", scan(job.response)))
        outcome: tuple[str, Any] = ("ok", _score_run(job, conn.recv()))
    except EOFError:  # the parent gave up (and reports why)
        return
    except BaseException as exc:  # sent to the parent, which raises it
        outcome = ("error", exc)
    try:
        conn.send(outcome)
    except OSError:  # the parent gave up
        pass


def _start(job: _Job, scans: bool) -> tuple[Any, Any]:
    """Fork a worker (nothing is pickled on the way in but the work it is sent)."""
    context = multiprocessing.get_context("fork")
    conn, theirs = context.Pipe(duplex=True)
    process = context.Process(target=_child, args=(theirs, job, scans, os.getpid()), daemon=True)
    process.start()
    theirs.close()
    return process, conn


def _receive(child: tuple[Any, Any]) -> Any:
    """The next message of a worker: its value, or its error raised here."""
    process, conn = child
    try:
        kind, value = conn.recv()
    except EOFError:
        process.join()
        raise RuntimeError(f"the scoring worker ended without a result (exit code {process.exitcode})") from None
    if kind == "error":
        raise value
    return value
