"""Cross-document scoring: the corpus, each topic or each subtopic scored as one unit,
as the CDCR papers score ECB+, GVC and WEC.

The reference scorer scores one document at a time; the CDCR papers score across
documents by writing each unit (the corpus, or each topic) as one "meta-document" of a
CoNLL file and scoring that file. Here each unit becomes one mention view
(:func:`corefio.model.crossdoc.unit_view`: the unit's documents one after the other,
chains across them), and the views go through the same engine as every other score:
the corpus scores are the reference scorer's sums over units, exactly what it prints
for a file of meta-documents.

What a paper's script chose is a :class:`Style`: the unit, whether one-mention chains
are kept, which mentions (events, entities, all) and whether only the validated
sentences of ECB+ count. :data:`STYLES` lists the published ones; :func:`score_styles`
scores a key and a response in each, side by side.

Response documents are put where the key's documents of the same name are: a
response unit holds the response documents whose key documents are in the unit, with
the key's token offsets (a response that lacks a document has no mention there; one
whose document has another number of tokens is refused).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..compare.pairing import Side
from ..diagnostics import Report
from ..errors import CorefioError, UsageError
from ..model.crossdoc import (KIND, LEVELS, MENTION_TYPES, assign_topics, cross_problems, document_ref,
                              read_topic_mapping, unit_view, units)
from ..model.mentions import MentionView
from .engine import Options, accumulator, finish
from .registry import DEFAULT_METRICS, resolve_metrics
from .render import Scores


@dataclass(frozen=True)
class Style:
    """How one paper (or family of systems) scored cross-document coreference."""

    name: str
    level: str
    keep_singletons: bool
    mention_types: tuple[str, ...]
    validated_only: bool
    metrics: tuple[str, ...]
    source: str
    note: str = ""


#: the published evaluation styles, as their scripts do it
STYLES: dict[str, Style] = {s.name: s for s in (
    Style("barhom2019", "corpus", True, ("event", "entity"), True, ("muc", "bcub", "ceafe", "lea", "conll"),
          "Barhom et al. 2019, \"Revisiting joint modeling of cross-document entity and event coreference "
          "resolution\" (shanybar/event_entity_coref_ecb_plus, src/shared/eval_utils.py)",
          "the test topics as one meta-document (ECB+/ecbplus_all), gold mentions of the validated sentences, "
          "singletons kept, events and entities scored apart; systems cluster within (predicted) topics"),
    Style("topic", "topic", True, ("event", "entity"), True, ("muc", "bcub", "ceafe", "lea", "conll"),
          "the systems after Barhom et al. 2019 that score each gold topic as a meta-document (Barhom et al.'s "
          "span-based files, eval_utils.py write_span_based_cd_coref_clusters: a block per topic, every gold "
          "mention; the *_topic_level.conll files of ariecattan/coref conll.py)",
          "one meta-document per topic, singletons kept"),
    Style("cattan2021", "corpus", False, ("event", "entity", "all"), True, ("muc", "bcub", "ceafe", "lea", "conll"),
          "Cattan et al. 2021, \"Realistic evaluation principles for cross-document coreference resolution\" "
          "(ariecattan/coref: get_ecb_data.py writes the gold without singletons, configs keep_singletons: false)",
          "the corpus as one meta-document, singletons removed from key and response (mention detection "
          "scored apart), events, entities and both together"),
    Style("cattan2021-singletons", "corpus", True, ("event", "entity", "all"), True,
          ("muc", "bcub", "ceafe", "lea", "conll"),
          "Cattan et al. 2021, the same corpus-level files with singletons kept",
          "the corpus as one meta-document, singletons kept"),
    Style("subtopic", "subtopic", True, ("event", "entity"), True, ("muc", "bcub", "ceafe", "lea", "conll"),
          "subtopic-level scoring (ECB and ECB+ halves of a topic apart), as systems that cluster within gold "
          "subtopics report it", "one meta-document per subtopic, singletons kept"),
)}


@dataclass(frozen=True)
class CrossSettings:
    """What one cross-document score is computed with."""

    level: str = "topic"
    keep_singletons: bool = True
    mention_type: str = "all"
    validated_only: bool = False
    kind_attribute: str = KIND

    def check(self) -> "CrossSettings":
        if self.level not in LEVELS:
            raise UsageError(f"unknown cross-document level {self.level!r} (known: {', '.join(LEVELS)})")
        if self.mention_type not in MENTION_TYPES:
            raise UsageError(f"unknown mention type {self.mention_type!r} (known: {', '.join(MENTION_TYPES)})")
        return self


def load(x: Any, fmt: str | None, report: Report, topics: str | Path | None = None,
         topic_pattern: str | None = None) -> Any:
    """A corpus (read when given a path) with topics assigned from a mapping file or a
    pattern on document names, when given."""
    from ..formats.readwrite import read
    from ..io.source import Source
    from ..model import Corpus, Document

    if isinstance(x, Document):
        corpus = Corpus(documents=[x])
    elif isinstance(x, Corpus):
        corpus = x
    else:
        corpus = read(x, fmt, report=report)
    if topics is not None or topic_pattern is not None:
        mapping = None
        if topics is not None:
            source = Source.of(topics)
            mapping = read_topic_mapping(source.read_text(), source.name)
        corpus = assign_topics(corpus, mapping=mapping, pattern=topic_pattern, overwrite=True)
    problems = cross_problems(corpus)
    if problems:  # members that name nothing are left out of the chains
        report.warning("crossdoc.members", f"{len(problems)} problem(s) with the entities across documents; "
                       f"what they name that is missing is left out", example=problems[0], count=len(problems),
                       merge=True)
    return corpus


def _placed_view(response: Any, key: Any, documents: Sequence[int], label: str, settings: CrossSettings,
                 report: Report) -> MentionView:
    """The response's view of a key unit: the response documents named as the key's,
    at the key's token offsets."""
    by_ref = {document_ref(d): i for i, d in enumerate(response.documents)}
    present = []
    offsets: dict[int, int] = {}
    position = 0
    for d in documents:
        kdoc = key.documents[d]
        j = by_ref.get(document_ref(kdoc))
        if j is not None:
            rdoc = response.documents[j]
            if len(rdoc.tokens) != len(kdoc.tokens):
                raise CorefioError(f"response document {rdoc.name} has {len(rdoc.tokens)} tokens, the key's "
                                   f"{len(kdoc.tokens)}: cross-document scoring needs the same texts")
            present.append(j)
            offsets[j] = position
        position += len(kdoc.tokens)
    view = unit_view(response, present, label, settings.mention_type, settings.kind_attribute,
                     settings.validated_only)
    # unit_view puts the present documents one after the other; move them to the key's places
    starts = []
    acc = 0
    for j in present:
        starts.append((acc, offsets[j] - acc))
        acc += len(response.documents[j].tokens)

    def shift_of(a: int) -> int:
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if starts[mid][0] <= a:
                lo = mid
            else:
                hi = mid - 1
        return starts[lo][1] if starts else 0

    chains = []
    for chain in view.mentions:
        moved = []
        for m in chain:
            s = shift_of(m.spans[0][0])
            moved.append(m._replace(spans=tuple((a + s, b + s) for a, b in m.spans),
                                    head=None if m.head is None else tuple((a + s, b + s) for a, b in m.head)))
        chains.append(moved)
    forms: list[str] = []
    for d in documents:
        forms.extend(key.documents[d].tokens.forms)
    return MentionView(label, forms, chains)


def score_cross(key: Any, response: Any, metrics: Iterable[str] = DEFAULT_METRICS, *,
                settings: CrossSettings = CrossSettings(), per_unit: bool = False,
                key_format: str | None = None, response_format: str | None = None,
                topics: str | Path | None = None, topic_pattern: str | None = None,
                report: Report | None = None, allow_missing: bool = False, workers: int | None = None) -> Scores:
    """Score ``response`` against ``key`` across documents: each unit of
    ``settings.level`` (``corpus``, ``topic``, ``subtopic``; ``document`` is the
    classic per-document score) is one meta-document. ``key`` and ``response`` are
    corpora or paths of any readable format; ``topics`` (a mapping file) or
    ``topic_pattern`` (a regular expression with a group ``topic``) give documents their
    topics where the corpus does not. ``per_unit`` keeps each unit's scores (as
    ``Scores.documents``, named after the unit). ``workers`` processes share the units
    (the sums are the same; None: one, or two for a key of :data:`AUTO_PROCESS_TOKENS`
    tokens or more, as scoring files does)."""
    report = report if report is not None else Report()
    settings = settings.check()
    key_corpus = load(key, key_format, report, topics, topic_pattern)
    response_corpus = load(response, response_format, report, topics, topic_pattern)
    key_refs = {document_ref(d) for d in key_corpus.documents}
    extra = [document_ref(d) for d in response_corpus.documents if document_ref(d) not in key_refs]
    if extra:
        report.warning("crossdoc.extra_document", f"{len(extra)} response document(s) are not in the key and are "
                       f"not scored ({', '.join(extra[:3])}{', ...' if len(extra) > 3 else ''})")
    if not allow_missing:
        response_refs = {document_ref(d) for d in response_corpus.documents}
        missing = [r for r in key_refs if r not in response_refs]
        if missing:
            from ..errors import DocumentMismatchError

            raise DocumentMismatchError(f"{len(missing)} key document(s) are missing from the response "
                                        f"({', '.join(sorted(missing)[:3])}); --allow-missing scores them as empty")
    options = Options(resolve_metrics(metrics), settings.keep_singletons, per_unit)
    found = list(units(key_corpus, settings.level).items())
    work = _Work(key_corpus, response_corpus, found, settings, options)
    if workers is None:  # automatic: other processes pay off on large corpora only
        import os

        tokens = sum(len(d.tokens) for d in key_corpus.documents)
        workers = min(2, os.cpu_count() or 1) if tokens >= AUTO_PROCESS_TOKENS else 1
    count = min(workers, len(found))
    if count > 1:
        shares = _in_processes(work, count, report)
    else:
        shares = [_score_units(work, range(len(found)), report)]
    scores = finish(shares, report, options, False, allow_missing)
    assert isinstance(scores, Scores)
    scores.options.update({"cross_document": settings.level, "mention_type": settings.mention_type,
                           "validated_only": settings.validated_only})
    return scores


#: a key of this many tokens or more is scored in several processes unless told otherwise
AUTO_PROCESS_TOKENS = 500_000


@dataclass(frozen=True)
class _Work:
    """What scoring units needs, shared with forked processes."""

    key: Any
    response: Any
    units: list[tuple[str, list[int]]]
    settings: CrossSettings
    options: Options


def _score_units(work: _Work, indices: Iterable[int], report: Report) -> Any:
    """The share of some units, scored one at a time (a unit's views are dropped once
    scored: memory holds one unit's views, whatever the number of units)."""
    acc = accumulator(work.options, report)
    for index in indices:
        label, documents = work.units[index]
        kv = unit_view(work.key, documents, label, work.settings.mention_type, work.settings.kind_attribute,
                       work.settings.validated_only)
        rv = _placed_view(work.response, work.key, documents, label, work.settings, report)
        acc.add(index, kv, rv)
    return acc.result()


#: the work of the forked processes (set before they start; fork copies it)
_WORK: _Work | None = None


def _child(indices: list[int]) -> tuple[Any, list]:
    assert _WORK is not None
    report = Report()
    share = _score_units(_WORK, indices, report)
    return share, list(report)


def _in_processes(work: _Work, count: int, report: Report) -> list[Any]:
    """The units dealt round-robin to ``count`` forked processes (``--jobs``: by topic)."""
    import multiprocessing

    global _WORK
    _WORK = work
    batches = [list(range(k, len(work.units), count)) for k in range(count)]
    try:
        with multiprocessing.get_context("fork").Pool(count) as pool:
            results = pool.map(_child, batches)
    finally:
        _WORK = None
    shares = []
    for share, diagnostics in results:
        shares.append(share)
        report.extend(diagnostics)
    return shares


def unit_side(corpus: Any, settings: CrossSettings) -> Side:
    """The units of a corpus as a scoring side (one view per unit, built when asked)."""
    found = list(units(corpus, settings.level).items())
    return Side([(label, None) for label, _ in found],
                lambda i: unit_view(corpus, found[i][1], found[i][0], settings.mention_type,
                                    settings.kind_attribute, settings.validated_only))


@dataclass
class StyleRow:
    """One line of the side-by-side table: a style, a mention type, its scores."""

    style: Style
    mention_type: str
    scores: Scores


def score_styles(key: Any, response: Any, styles: Sequence[str] | None = None, *,
                 key_format: str | None = None, response_format: str | None = None,
                 topics: str | Path | None = None, topic_pattern: str | None = None,
                 report: Report | None = None, allow_missing: bool = False) -> list[StyleRow]:
    """The key and the response scored in each published style (all by default)."""
    report = report if report is not None else Report()
    chosen = list(STYLES) if not styles or "all" in styles else list(styles)
    unknown = [s for s in chosen if s not in STYLES]
    if unknown:
        raise UsageError(f"unknown evaluation style {', '.join(unknown)} (known: all, {', '.join(STYLES)})")
    key_corpus = load(key, key_format, report, topics, topic_pattern)
    response_corpus = load(response, response_format, report, topics, topic_pattern)
    validated = any("validated" in s.attributes for d in key_corpus.documents for s in d.sentences)
    rows = []
    for name in chosen:
        style = STYLES[name]
        for mention_type in style.mention_types:
            settings = CrossSettings(style.level, style.keep_singletons, mention_type,
                                     style.validated_only and validated)
            rows.append(StyleRow(style, mention_type, score_cross(key_corpus, response_corpus, style.metrics,
                                                                  settings=settings, report=report,
                                                                  allow_missing=allow_missing)))
    return rows


def styles_table(rows: Sequence[StyleRow]) -> str:
    """The rows as a text table: settings, then F1 (%) of each metric and the CoNLL average."""
    metrics = ["muc", "bcub", "ceafe", "lea", "conll"]
    head = ["style", "unit", "singletons", "mentions", *metrics]
    lines = [head]
    for row in rows:
        cells = [row.style.name, row.style.level, "kept" if row.style.keep_singletons else "dropped",
                 row.mention_type]
        for m in metrics:
            value = row.scores.corpus.get(m)
            cells.append("" if value is None else f"{float(value.f1) * 100:.2f}")
        lines.append(cells)
    widths = [max(len(r[i]) for r in lines) for i in range(len(head))]
    out = ["  ".join(c.ljust(w) if i < 4 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
           for r in lines]
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out) + "\n"


def styles_json(rows: Sequence[StyleRow]) -> list[dict]:
    from .render import to_jsonable

    return [{"style": r.style.name, "unit": r.style.level, "keep_singletons": r.style.keep_singletons,
             "mention_type": r.mention_type, "validated_only": r.scores.options.get("validated_only"),
             "source": r.style.source,
             "corpus": {m: to_jsonable(r.scores.corpus[m]) for m in r.scores.metrics}} for r in rows]


def styles_help() -> str:
    """The styles as a Markdown table (the README's)."""
    lines = ["| style | unit | singletons | mentions | validated sentences | as in |", "|---|---|---|---|---|---|"]
    for s in STYLES.values():
        lines.append(f"| `{s.name}` | {s.level} | {'kept' if s.keep_singletons else 'dropped'} | "
                     f"{', '.join(s.mention_types)} | {'yes' if s.validated_only else 'no'} | {s.source} |")
    return "\n".join(lines) + "\n"


def unit_pairs(key: Any, response: Any, settings: CrossSettings = CrossSettings(), *,
               key_format: str | None = None, response_format: str | None = None,
               topics: str | Path | None = None, topic_pattern: str | None = None,
               report: Report | None = None) -> list[tuple[MentionView, MentionView]]:
    """(key view, response view) of every unit: what the error analysis and the
    key-versus-response view read across documents."""
    report = report if report is not None else Report()
    settings = settings.check()
    key_corpus = load(key, key_format, report, topics, topic_pattern)
    response_corpus = load(response, response_format, report, topics, topic_pattern)
    out = []
    for label, documents in units(key_corpus, settings.level).items():
        kv = unit_view(key_corpus, documents, label, settings.mention_type, settings.kind_attribute,
                       settings.validated_only)
        rv = _placed_view(response_corpus, key_corpus, documents, label, settings, report)
        if not settings.keep_singletons:
            kv, rv = _without_singletons(kv), _without_singletons(rv)
        out.append((kv, rv))
    return out


def _without_singletons(view: MentionView) -> MentionView:
    return MentionView(view.label, view.forms, [c for c in view.mentions if len(c) > 1], view.pos, view.places)


def analyse_cross(key: Any, response: Any, settings: CrossSettings = CrossSettings(),
                  metrics: Sequence[str] = ("muc", "bcub", "ceafe"), **options: Any) -> Any:
    """The error analysis of Kummerfeld and Klein (2013) across documents: each unit is
    one document of the analysis, so an entity the response splits between two
    documents is a divided entity, and two entities of different documents it merges a
    conflated one. ``options``: as :func:`unit_pairs`."""
    from .error_analysis import analyse

    report = options.get("report")
    return analyse(unit_pairs(key, response, settings, **options), metrics, report)


def command_text(key: Any, response: Any, metrics: Sequence[str], *, level: str | None, styles: Sequence[str],
                 keep_singletons: bool, mention_type: str, validated_only: bool, output: str, per_unit: bool,
                 key_format: str | None, response_format: str | None, topics: str | Path | None,
                 topic_pattern: str | None, allow_missing: bool, workers: int | None, report: Report,
                 errors: bool = False) -> str:
    """What ``corefio score --cross-document`` (or ``--within-document``, ``--style``)
    prints: the scores of one level, or the table of the styles."""
    import json

    if styles:
        rows = score_styles(key, response, styles, key_format=key_format, response_format=response_format,
                            topics=topics, topic_pattern=topic_pattern, report=report, allow_missing=allow_missing)
        if output == "json":
            return json.dumps({"styles": styles_json(rows), "diagnostics": [d.to_dict() for d in report]},
                              indent=2, ensure_ascii=False) + "\n"
        return styles_table(rows)
    settings = CrossSettings(level or "topic", keep_singletons, mention_type, validated_only)
    scores = score_cross(key, response, metrics, settings=settings, per_unit=per_unit, key_format=key_format,
                         response_format=response_format, topics=topics, topic_pattern=topic_pattern,
                         report=report, allow_missing=allow_missing, workers=workers)
    analysis = None
    if errors:
        analysis = analyse_cross(key, response, settings, key_format=key_format, response_format=response_format,
                                 topics=topics, topic_pattern=topic_pattern, report=report)
    if output == "json":
        data = scores.to_dict(per_unit)
        if analysis is not None:
            data["errors"] = analysis.to_dict(per_unit)
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if output == "csv":
        return scores.to_csv(per_unit)
    if output == "scorer":
        return scores.to_text(per_unit)
    tail = "" if analysis is None else "\n" + analysis.to_text(per_unit)
    head = (f"cross-document scores: unit {settings.level}, mentions {settings.mention_type}, singletons "
            f"{'kept' if settings.keep_singletons else 'dropped'}"
            f"{', validated sentences only' if settings.validated_only else ''}\n")
    return head + scores.to_table(per_unit) + tail


__all__ = ["STYLES", "CrossSettings", "analyse_cross", "command_text", "unit_pairs", "Style", "StyleRow", "load", "score_cross", "score_styles", "styles_help",
           "styles_json", "styles_table", "unit_side"]

