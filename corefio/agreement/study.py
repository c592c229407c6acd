"""An annotation study: the same documents annotated by several annotators.

Each annotator's annotation is read whole (any format, any number of files) and its
documents are paired with the first annotator's by name and part, as ``score`` pairs a
key with a response (:func:`corefio.compare.pairing.match_keys`: the same errors and
the same ``allow_missing``). The annotators of one document must share its words: an
agreement is measured over the same units.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..compare.pairing import match_keys, names_shown
from ..diagnostics import Report
from ..errors import CorefioError, DocumentMismatchError, UsageError
from ..model import Corpus, Document
from ..model.mentions import MentionView, document_label


@dataclass
class Annotation:
    """One annotator's documents (or only their mention views), with the name it goes
    by in tables and messages."""

    name: str
    documents: list  #: :class:`Document` s, or :class:`MentionView` s with ``views_only``
    keys: list[tuple[str, str | None]]
    files: list[str]


@dataclass
class Item:
    """One document as every annotator annotated it (``None``: the annotator lacks it):
    its documents, or only their mention views (``views_only``)."""

    label: str
    documents: list

    @property
    def present(self) -> list[int]:
        return [a for a, d in enumerate(self.documents) if d is not None]

    @property
    def reference(self):
        """The first annotator's document that exists (for words and sentences)."""
        return next(d for d in self.documents if d is not None)

    def views(self) -> list[MentionView | None]:
        return [None if d is None else d.mention_view(False) for d in self.documents]


@dataclass
class Study:
    annotators: list[str]
    items: list[Item]
    files: list[list[str]]


def _name_of(source: Any, number: int) -> str:
    if isinstance(source, (str, Path)):
        return Path(source).name.split(".")[0] or f"annotator {number}"
    if isinstance(source, (list, tuple)) and source and isinstance(source[0], (str, Path)):
        parent = Path(source[0]).parent.name
        return parent or f"annotator {number}"
    return f"annotator {number}"


def read_annotation(source: Any, number: int, format: str | None, report: Report, name: str | None = None,
                    views_only: bool = False) -> Annotation:
    """One annotator's annotation: a corpus, a document, a path or a list of paths.

    With ``views_only`` only each document's mention view is kept, read the way the
    scorer reads (straight from the parser for CoNLL files, without building documents).
    """
    from ..formats.readwrite import iter_read

    held: list[Any] = []
    if isinstance(source, (Corpus, Document)):
        documents = list(source.documents) if isinstance(source, Corpus) else [source]
        held = [d.mention_view(False) for d in documents] if views_only else list(documents)
        return Annotation(name or f"annotator {number}", held, [(d.name, d.part) for d in documents], [])
    paths = list(source) if isinstance(source, (list, tuple)) else [source]
    keys: list[tuple[str, str | None]] = []
    for path in paths:
        if views_only:
            for key, view in _views(path, format, report):
                keys.append(key)
                held.append(view)
        else:
            for document in iter_read(path, format=format, report=report):
                keys.append((document.name, document.part))
                held.append(document)
    return Annotation(name or _name_of(source, number), held, keys, [str(p) for p in paths])


def _views(path: Any, format: str | None, report: Report) -> list[tuple[tuple[str, str | None], MentionView]]:
    """A file's documents as (name, part) and mention view, by the format's fast path
    when it has one."""
    from ..compare.pairing import fast_views, has_fast_path, read_views
    from ..formats.registry import detect_format, get_format
    from ..io.source import Source

    source = Source.of(path)
    spec = get_format(format) if format else detect_format(source.path) if source.path else None
    if spec is not None and has_fast_path(spec) and spec.scan_keys is not None:
        docs = spec.scan_keys(source)
        wanted = list(range(len(docs)))
        return [(tuple(docs[number][:2]), view)
                for number, view in fast_views(spec, source, docs, wanted, report, False)]
    side = read_views(source, format, report, False)
    return [(key, side.view(i)) for i, key in enumerate(side.keys)]


def build_study(sources: Sequence[Any], *, names: Sequence[str] | None = None, format: str | None = None,
                allow_missing: bool = False, report: Report | None = None, views_only: bool = False) -> Study:
    """Read every annotator's annotation and pair their documents (keep only their
    mention views with ``views_only``)."""
    report = report if report is not None else Report()
    if len(sources) < 2:
        raise UsageError("agreement needs at least two annotations (one per annotator)")
    if names is not None and len(names) != len(sources):
        raise UsageError(f"{len(names)} annotator name(s) for {len(sources)} annotation(s)")
    annotations = [read_annotation(s, i + 1, format, report, names[i] if names else None, views_only)
                   for i, s in enumerate(sources)]
    seen: dict[str, int] = {}
    for a in annotations:  # names must tell the annotators apart in tables
        if a.name in seen:
            seen[a.name] += 1
            a.name = f"{a.name}#{seen[a.name]}"
        else:
            seen[a.name] = 1
    first = annotations[0]
    item_keys = list(first.keys)
    items = [Item(document_label(*key), [d] + [None] * (len(annotations) - 1))
             for key, d in zip(first.keys, first.documents)]
    for number, other in enumerate(annotations[1:], start=1):
        scratch = Report()
        other_keys = other.keys
        pairs = match_keys(item_keys, other_keys, scratch, True)
        used = {j for _, j in pairs if j is not None}
        missing = [items[i].label for i, j in pairs if j is None]
        extra = [document_label(*other_keys[j]) for j in range(len(other_keys)) if j not in used]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"{len(missing)} document(s) of {first.name} are not in {other.name}'s: "
                             + names_shown(missing))
            if extra:
                parts.append(f"{len(extra)} document(s) of {other.name} are not in {first.name}'s: "
                             + names_shown(extra))
            message = "; ".join(parts)
            if not allow_missing:
                where = f"{', '.join(first.files) or first.name} and {', '.join(other.files) or other.name}"
                raise DocumentMismatchError(f"the annotations do not hold the same documents ({where}): {message} "
                                            "(--allow-missing measures each document over the annotators that "
                                            "have it)")
            report.warning("agree.document-mismatch", message)
        report.extend(d for d in scratch if d.code != "score.document-mismatch")
        for i, j in pairs:
            if j is not None:
                items[i].documents[number] = other.documents[j]
        if extra:  # documents the first annotator lacks are items of their own
            for j in range(len(other_keys)):
                if j not in used:
                    items.append(Item(document_label(*other_keys[j]), [None] * len(annotations)))
                    items[-1].documents[number] = other.documents[j]
                    item_keys.append(other_keys[j])
    if views_only and any(_needs_refining(item) for item in items):
        # a text cut differently by the annotators (character formats cut it at each
        # annotator's mention boundaries): read the documents, refine, then take views
        study = build_study(sources, names=names, format=format, allow_missing=allow_missing, report=Report(),
                            views_only=False)
        for item in study.items:
            item.documents = [None if d is None else d.mention_view(False) for d in item.documents]
        return study
    for item in items:
        if _needs_refining(item):
            _refine(item)
        _check_words(item, annotations)
    return Study([a.name for a in annotations], items, [a.files for a in annotations])


def _forms(held: Any) -> list[str]:
    return held.forms if isinstance(held, MentionView) else held.tokens.forms


def _check_words(item: Item, annotations: list[Annotation]) -> None:
    reference = item.reference
    forms = _forms(reference)
    owner = annotations[item.documents.index(reference)]
    for a, document in enumerate(item.documents):
        if document is None or document is reference or _forms(document) == forms:
            continue
        theirs = _forms(document)
        at = next((i for i, (x, y) in enumerate(zip(forms, theirs)) if x != y), min(len(forms), len(theirs)))
        shown = (f"word {at + 1} is {forms[at]!r} for {owner.name} and {theirs[at]!r} for {annotations[a].name}"
                 if at < min(len(forms), len(theirs)) else
                 f"{len(forms)} words for {owner.name}, {len(theirs)} for {annotations[a].name}")
        raise CorefioError(f"document {item.label!r} has other words in the annotation of {annotations[a].name} "
                           f"than in that of {owner.name} ({shown}): agreement is measured over the same words",
                           file=", ".join(annotations[a].files) or None)


def _needs_refining(item: Item) -> bool:
    docs = [d for d in item.documents if d is not None]
    if len({tuple(_forms(d)) for d in docs}) < 2:
        return False
    if any(isinstance(d, MentionView) for d in docs):
        return True
    return len({d.text for d in docs}) == 1 and docs[0].text is not None and all(
        d.tokens.offsets is not None for d in docs)


def _refine(item: Item) -> None:
    """Put the annotators of one text on the same tokens: every token cut at every
    token boundary any of them has."""
    docs = [d for d in item.documents if d is not None]
    if any(isinstance(d, MentionView) for d in docs) or len({d.text for d in docs}) != 1:
        return
    cuts = sorted({x for d in docs for a, b in d.tokens.offsets for x in (a, b)})
    item.documents = [None if d is None else _cut(d, cuts) for d in item.documents]


def _cut(doc: Document, cuts: list[int]) -> Document:
    """The document on tokens cut at every position of ``cuts`` inside its tokens (its
    text and offsets are known: :func:`_needs_refining`)."""
    import bisect

    toks = doc.tokens
    assert toks.offsets is not None and doc.text is not None
    text = doc.text
    forms: list[str] = []
    offsets: list[tuple[int, int]] = []
    spaces: list[str] = []
    first: list[int] = []
    last: list[int] = []
    attributes: dict[str, list[Any]] = {k: [] for k in toks.attributes}
    for i, (a, b) in enumerate(toks.offsets):
        inner = cuts[bisect.bisect_right(cuts, a):bisect.bisect_left(cuts, b)]
        bounds = [a] + inner + [b]
        first.append(len(forms))
        for k, (x, y) in enumerate(zip(bounds, bounds[1:])):
            forms.append(text[x:y])
            offsets.append((x, y))
            if toks.whitespace is not None:
                spaces.append(toks.whitespace[i] if k == len(bounds) - 2 else "")
            for name, column in toks.attributes.items():
                attributes[name].append(column[i])
        last.append(len(forms) - 1)
    if len(forms) == len(toks.forms):
        return doc
    tokens = toks.copy(forms=forms, offsets=offsets, whitespace=spaces if toks.whitespace is not None else None,
                       attributes=attributes, ids=None)

    def spans(s):
        return None if s is None else tuple((first[x], last[y]) for x, y in s)

    markables = [m.copy(spans=spans(m.spans), head=spans(m.head), min=spans(m.min)) for m in doc.markables]
    sentences = [s.copy(first=first[s.first], last=last[s.last]) for s in doc.sentences]
    return doc.copy(tokens=tokens, markables=markables, sentences=sentences)
