"""Which key document is scored against which response document, and where their
mention views come from.

Documents are matched by name and part (numeric parts compared as numbers). Names
that do not match are an error (:class:`~corefio.errors.DocumentMismatchError`) — the
reference scorer silently scores such documents as empty. One document on each side
pairs whatever the names (formats that name a document after its file name gold.tsv's
'gold' and system.tsv's 'system'), with an info diagnostic naming both. ``allow_missing=True``
scores a missing response document as empty and ignores extra ones, with warnings.

A side of the comparison (:class:`Side`) is a corpus or document in memory, or a file.
A file whose format has ``scan_keys`` and ``mention_views`` is scored straight from its
parser (the engine reads only the documents it needs, in byte ranges); any other file
is read document by document with :func:`corefio.formats.readwrite.iter_read`, each document kept
only as its mention view.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..model.mentions import MentionView, document_key, document_label
from ..diagnostics import Report
from ..errors import DocumentMismatchError
from ..io.source import Source

if TYPE_CHECKING:  # pragma: no cover
    from ..model import Corpus, Document
    from ..formats.registry import FormatSpec

DocumentKey = tuple[str, "str | None"]


def names_shown(names: Sequence[str], limit: int = 5) -> str:
    """A few document names for a message: quoted, ``(unnamed)`` for an empty name, and
    ``…`` when there are more."""
    # a label is "NAME" or "NAME (part P)": an empty name leaves "" or " (part P)"
    shown = ", ".join(repr(name) if name and not name.startswith(" (part") else f"(unnamed){name}"
                      for name in names[:limit])
    return shown + (", …" if len(names) > limit else "")


def match_keys(key: Sequence[tuple[str, str | None]], response: Sequence[tuple[str, str | None]],
               report: Report, allow_missing: bool = False,
               hint: str = " (use --allow-missing to score missing documents as empty)") -> list[tuple[int, int | None]]:
    """Pair key and response documents, given as (name, part), by position.

    Exact (name, part) first (numeric parts as numbers); else a unique response
    document with the same name, or named ``NAME_PART`` as e2e-coref jsonlines do;
    else, when each side holds one document, those two (an info diagnostic names them).
    ``hint`` ends the error message (what the command offers instead).
    """
    if response and len(response) == len(key) and all(
            (name, part) == (f"document_{j + 1}", None) for j, (name, part) in enumerate(response)):
        # a system output without document names (maverick, AllenNLP): its readers name
        # the documents document_1, document_2, ... by place, so they pair by order
        report.info("score.paired-by-order", "the response documents have no names: paired with the key's "
                                             "documents by order")
        return [(i, i) for i in range(len(key))]
    exact: dict[tuple, int] = {}
    by_name: dict[str, list[int]] = {}
    for number, (name, part) in enumerate(response):
        nk = document_key(name, part)
        if nk in exact:
            report.warning("score.duplicate-document",
                           f"the response has two documents {document_label(name, part)!r}; the first is used")
            continue
        exact[nk] = number
        by_name.setdefault(name, []).append(number)
    pairs: list[tuple[int, int | None]] = []
    used: set[int] = set()
    missing: list[str] = []
    for i, (name, part) in enumerate(key):
        j: int | None = exact.get(document_key(name, part))
        if j is None or j in used:
            candidates = list(by_name.get(name, []))
            if part is not None and part.isascii() and part.isdigit():
                # not int(): "²".isdigit() is true, and a 5,000-digit part is still a part
                candidates += by_name.get(f"{name}_{part.lstrip('0') or '0'}", [])
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
    known = set(exact.values())
    extra = [document_label(*response[j]) for j in range(len(response)) if j not in used and j in known]
    if missing and extra and len(key) == 1 and len(response) == 1:
        # one document on each side (WebAnno TSV, brat, CoNLL-U without `# newdoc id`
        # name it after its file: gold.tsv and system.tsv hold 'gold' and 'system');
        # two different documents still fail, on their texts
        report.info("score.paired-single", f"key document {missing[0]!r} paired with response document "
                                           f"{extra[0]!r}: each side holds only this one document")
        return [(0, 0)]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"{len(missing)} key document(s) have no response: " + names_shown(missing))
        if extra:
            parts.append(f"{len(extra)} response document(s) have no key: " + names_shown(extra))
        message = "; ".join(parts)
        if not allow_missing:
            raise DocumentMismatchError(message + hint)
        report.warning("score.document-mismatch", message)
    return pairs


def match_documents(key: "Corpus", response: "Corpus", report: Report,
                    allow_missing: bool = False) -> list[tuple["Document", "Document | None"]]:
    """Pair key documents with response documents by name and part."""
    pairs = match_keys([(d.name, d.part) for d in key.documents], [(d.name, d.part) for d in response.documents],
                       report, allow_missing)
    return [(key.documents[i], response.documents[j] if j is not None else None) for i, j in pairs]


@dataclass
class Side:
    """The documents of a key or a response: their (name, part), in order, and their
    mention views on demand (``view(i)``)."""

    keys: list[DocumentKey]
    view: Callable[[int], MentionView]


def in_memory(corpus: "Corpus", pos: bool) -> Side:
    """A corpus in memory: views are built when asked for."""
    documents = corpus.documents
    return Side([(d.name, d.part) for d in documents], lambda i: documents[i].mention_view(pos))


#: a file at least this large keeps its documents' mention views on disk (a
#: :class:`~corefio.io.spool.Spool`), not in memory, until they are scored
SPOOL_BYTES = 32 << 20


def read_views(path: str | Path | Source, format: str | None, report: Report, pos: bool) -> Side:
    """A file of any readable format, read one document at a time; only each
    document's key and mention view are kept (on disk for a file of
    :data:`SPOOL_BYTES` or more: a view holds every word of its document)."""
    from ..formats.readwrite import iter_read
    from ..io.spool import Spool

    source = Source.of(path)
    try:
        large = source.size() >= SPOOL_BYTES
    except OSError:  # not there: the reader says so, located
        large = False
    keys: list[DocumentKey] = []
    views: list[MentionView] | Spool = Spool() if large else []
    for doc in iter_read(source, format, report=report):
        keys.append((doc.name, doc.part))
        views.append(doc.mention_view(pos))
    return Side(keys, views.__getitem__)


def has_fast_path(spec: "FormatSpec") -> bool:
    """The format gives mention views straight from its parser."""
    return spec.mention_views is not None and spec.scan_keys is not None


def byte_range(docs: list, wanted: list[int], size: int) -> tuple[int, int, int, int] | None:
    """(start, end, number of the first document, its first line) of the part of a file
    that holds the ``wanted`` documents (sorted numbers into ``docs``, what
    ``scan_keys`` gave); None when ``scan_keys`` gave no offsets."""
    if not wanted or len(docs[0]) < 4:
        return None
    first, last = wanted[0], wanted[-1]
    end = docs[last + 1][2] if last + 1 < len(docs) else size
    return (docs[first][2], end, first, docs[first][3])


def fast_views(spec: "FormatSpec", source: Source, docs: list, wanted: list[int], report: Report,
               pos: bool) -> Iterator[tuple[int, MentionView]]:
    """The views of the ``wanted`` documents (sorted numbers), with their numbers, read
    by the format's ``mention_views`` from the bytes that hold them. A view whose label
    is not that of the document ``scan_keys`` found at its place, or a document left
    out, is a bug of the format's fast path: :class:`RuntimeError`."""
    assert spec.mention_views is not None
    if not wanted:
        return
    views = spec.mention_views(source, report=report, strict=False, select=set(wanted),
                               byte_range=byte_range(docs, wanted, source.size()), pos=pos)
    given = 0
    for number, view in zip(wanted, views):
        expected = document_label(*docs[number][:2])
        if view.label != expected:
            raise RuntimeError(f"{spec.name}: mention_views gave {view.label!r} where scan_keys "
                               f"found {expected!r} ({source.name})")
        given += 1
        yield number, view
    if given < len(wanted):
        raise RuntimeError(f"{spec.name}: mention_views gave no document "
                           f"{document_label(*docs[wanted[given]][:2])!r} ({source.name})")
