"""jsonlines of the e2e-coref family (``.jsonlines``, ``.jsonl``): one document per line.

The reader knows the shapes other systems write too (wl-coref, fast-coref sub-word
segments, fastcoref/maverick offsets, AllenNLP, BookCoref, PreCo: see
:mod:`corefio.formats.jsonlines.dialects`); each line's shape is told from its keys.
The read option ``dialect`` forces one (``--read-option dialect=wl``, or the format
name ``jsonlines:wl`` wherever a format is named: ``--from jsonlines:wl``); the format
``wl-coref`` reads and writes wl-coref's shape (its heads included), the format
``preco`` PreCo's (and ``jsonlines`` writes a document read from a PreCo line back in
PreCo's shape, when no mention of it crosses a sentence). This module reads and writes
the e2e shape:

::

    {"doc_key": "bc/cctv/00/cctv_0000_0",
     "sentences": [["The", "man"], ["He", "left"]],     tokens, sentence by sentence
     "speakers":  [["-", "-"], ["-", "-"]],             same shape as sentences
     "clusters":  [[[0, 1], [2, 2]]]}                   document-level token offsets,
                                                         inclusive; one list per entity

Every cluster becomes an entity (``"0"``, ``"1"``, ... in file order) with one markable
per mention; singleton clusters stay. ``speakers`` become the ``speaker`` token
attribute. A ``doc_key`` of the form ``(NAME); part NNN`` is split into the document's
name and part like a CoNLL header (the part must be ASCII digits, at most 18), and so is
e2e-coref's key of an OntoNotes document, ``GENRE/SOURCE/NN/NAME_P`` (its minimize.py
writes ``NAME_P``, ``P`` the header's part as a number: ``bn/cnn/01/cnn_0122_0`` is
``bn/cnn/01/cnn_0122`` part ``000``); any other key is the document name; a line
without ``doc_key`` is named ``document_N`` by its place (N from 1). The writer gives a
document with a part e2e-coref's key when that key reads back as the same name and
part, else ``(NAME); part P``; a line read with a key writes it back in its form. A string escape of half a surrogate pair (``"\\ud800"`` alone)
is refused with its line and column: no UTF-8 file could hold what it reads as. A file
without a document (empty, or blank lines only) is refused too.

Every other field (``paragraphs``, ``pos``, ``ner``, ...) is document data: it goes to
``Document.metadata`` under its own name, a string as it is, any other value as JSON
text (the layout remembers which). So converting to a format without document metadata
reports their loss (``loss.metadata``), and the jsonlines writer writes every metadata
entry back as a field (a string field, unless the layout says it held JSON). The key
order, the doc_key style, ASCII escaping, separators (``", "`` or ``","``) and line
ends of the source are kept in the document's :class:`JsonlinesLayout`, so a file is
written back identical.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from json.decoder import scanstring  # type: ignore[attr-defined]  # in the module, not its stub
from dataclasses import replace
from typing import Any

from ...diagnostics import Report
from ...errors import FormatError, ModelError
from ..losses import LossLog
from ...io._lazy import LazyModule
from ..registry import Capabilities, FormatSpec, Option, register
from ...io.source import Source
from .._lines import SourceLines, check_part, line_starts, no_document_error
from . import dialects
from .dialects import e2e_key, split_doc_key, split_e2e_key
from .layout import JsonlinesLayout

#: the model, imported on first use
model = LazyModule("corefio.model")

CORE_KEYS = ("doc_key", "sentences", "speakers", "clusters")
#: a ``\\uD800``-``\\uDFFF`` escape: JSON lets it stand alone, but a lone surrogate is no
#: character and no UTF-8 file can hold it
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
#: one escape of a JSON string (group 1: the hex digits of a ``\\uXXXX``)
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)")


def _read_line(obj: object, lineno: int, file: str | None, report: Report, ascii_only: bool,
               newline: str, number: int = 1, line_text: str = "") -> Any:
    def fail(message: str) -> FormatError:
        return FormatError(message, file=file, line=lineno)

    if not isinstance(obj, dict):
        raise fail("each line must be a JSON object")
    for key in ("sentences", "clusters"):
        if key not in obj:
            raise dialects.unknown_shape(obj, file, lineno, missing=key)
    # a system output without doc_key: named by its place, so that scoring pairs by order
    doc_key = obj.get("doc_key", f"document_{number}")
    if not isinstance(doc_key, str):
        raise fail("doc_key must be a string")
    sentences = obj["sentences"]
    if not isinstance(sentences, list) or not all(isinstance(s, list) and all(isinstance(w, str) for w in s) for s in sentences):
        raise fail("sentences must be a list of lists of strings")
    forms = [w for s in sentences for w in s]
    n = len(forms)
    bounds = []
    first = 0
    for s in sentences:
        if not s:
            report.warning("jsonlines.empty-sentence", "empty sentence ignored", line=lineno, merge=True, file=file)
            continue
        bounds.append(model.Sentence(first=first, last=first + len(s) - 1, id=None, comments=[],
                                           interleaved=[], attributes={}))
        first += len(s)
    attributes: dict[str, list[str | None]] = {}
    if "speakers" in obj:
        speakers = obj["speakers"]
        if (not isinstance(speakers, list) or len(speakers) != len(sentences)
                or any(not isinstance(sp, list) or len(sp) != len(s) for sp, s in zip(speakers, sentences))
                or any(not isinstance(w, str) for sp in speakers for w in sp)):
            raise fail("speakers must have the same shape as sentences, with strings")
        values = [w for sp in speakers for w in sp]
        if values.count("-") != len(values):  # "-" everywhere: no speaker is known
            attributes["speaker"] = values
    clusters = obj["clusters"]
    if not isinstance(clusters, list):
        raise fail("clusters must be a list of clusters")
    markables: list[Any] = []
    entities: list[Any] = []
    seen: dict[tuple[int, int], str] = {}
    for c, cluster in enumerate(clusters):
        if not isinstance(cluster, list):
            raise fail(f"cluster {c} is not a list of [start, end] pairs")
        eid = str(c)
        entities.append(model.Entity(id=eid, attributes={}))
        for mention in cluster:
            if (not isinstance(mention, list) or len(mention) != 2
                    or not all(isinstance(x, int) and not isinstance(x, bool) for x in mention)):
                raise fail(f"cluster {c}: mention {_short(mention)} is not [start, end]")
            a, b = mention
            if not 0 <= a <= b < n:
                raise fail(f"cluster {c}: mention {_short(mention)} is outside the {n} tokens")
            if (a, b) in seen:
                report.warning("jsonlines.duplicate-mention", "duplicate mentions (same span)", line=lineno,
                               merge=True, file=file, example=f"[{a}, {b}] in clusters {seen[(a, b)]} and {eid}")
            seen[(a, b)] = eid
            markables.append(model.Markable.fast(f"markable_{len(markables) + 1}", ((a, b),), eid))
    name, part = split_doc_key(doc_key)
    style = "conll" if part is not None else "plain"
    if part is None and (e2e := split_e2e_key(doc_key)) is not None:
        (name, part), style = e2e, "e2e"
    check_part(part, file, lineno)
    layout = JsonlinesLayout(keys=list(obj), doc_key_style=style,
                             ensure_ascii=ascii_only, newline=newline, compact=_compact(line_text))
    metadata: dict[str, str] = {}
    for key, value in obj.items():
        if key in CORE_KEYS:
            continue
        if isinstance(value, str):
            metadata[key] = value
        else:
            metadata[key] = json.dumps(value, ensure_ascii=False)
            layout.json_fields.append(key)
    try:
        return model.Document.build(
            name=name, part=part, metadata=metadata,
            tokens=model.Tokens(forms=forms, ids=None, whitespace=None, offsets=None, attributes=attributes),
            sentences=bounds, markables=markables, entities=entities, links=[], layout={"jsonlines": layout},
        )
    except ModelError as exc:  # pragma: no cover - checked above
        raise fail(str(exc)) from None


def _compact(line: str) -> bool:
    """Is the JSON object on ``line`` written without a space after its separators? Told
    from its first key: ``{"id":"a"`` is compact, ``{"id": "a"`` is not."""
    start = line.find("{")
    if start < 0:
        return False
    at = start + 1
    while at < len(line) and line[at] in " \t":
        at += 1
    if not line.startswith('"', at):
        return False
    try:
        _, end = scanstring(line, at + 1)
    except ValueError:
        return False
    return line.startswith(":", end) and not line.startswith(": ", end)


def _has_surrogate(value: object) -> bool:
    """A lone surrogate in a string (or key) of a decoded JSON value."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and any("\ud800" <= c <= "\udfff" for c in item):
                return True
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
    return False


def _lone_surrogate(line: str) -> tuple[int, str] | None:
    """(column, escape) of the first lone surrogate escape of a JSON line: a
    ``\\uD800``-``\\uDBFF`` not followed at once by a ``\\uDC00``-``\\uDFFF``, or the
    latter alone. Escapes are taken left to right, so ``\\\\`` hides what follows it."""
    pending: re.Match | None = None  # a high surrogate escape waiting for its low half
    for m in _ESCAPE.finditer(line):
        code = int(m.group(1), 16) if m.group(1) else None
        if pending is not None:
            if code is not None and 0xDC00 <= code <= 0xDFFF and m.start() == pending.end():
                pending = None
                continue
            break
        if code is None or not 0xD800 <= code <= 0xDFFF:
            continue
        if code >= 0xDC00:
            return m.start() + 1, m.group(0)
        pending = m
    return (pending.start() + 1, pending.group(0)) if pending is not None else None


def _check_surrogates(obj: object, line: str, lineno: int, file: str | None) -> None:
    """Refuse a lone surrogate escape (``"\\ud800"`` without its pair): the document
    could be read but never written to a file. Only a line that holds such an escape is
    looked at closer."""
    if not _SURROGATE_ESCAPE.search(line) or not _has_surrogate(obj):
        return
    found = _lone_surrogate(line)
    column, example = (found[0], f" ({found[1]})") if found is not None else (None, "")
    raise FormatError(f"a lone surrogate escape{example}: half of a UTF-16 pair is no character, and no UTF-8 "
                      "file can hold it", file=file, line=lineno, column=column)


def _short(value: object) -> str:
    """A value for a message, cut to a readable length (integers can have 5,000 digits)."""
    try:
        text = json.dumps(value)
    except ValueError:
        text = "a huge number"
    return text if len(text) <= 60 else text[:57] + "..."


def _documents(lines: Iterable[str], file: str | None, report: Report, dialect: str | None = None,
               count: int = 0) -> Iterator[Any]:
    """The documents of ``lines``; ``count``: documents before them in the file (a run
    of a file, :func:`stream_range`)."""
    newline = getattr(lines, "newline", "\n")
    last = None
    lineno = 0
    for lineno, line in enumerate(lines, getattr(lines, "first_line", 1)):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            # a line that opens an object or array and stops: JSON laid out over several
            # lines (pretty-printed), where JSON Lines wants one document per line
            spread = line.rstrip().endswith(("{", "["))
            hint = ("; the file looks like JSON laid out over several lines, and JSON Lines has one document "
                    "per line (e.g. `jq -c . FILE`)") if spread else ""
            raise FormatError(f"not valid JSON: {exc.msg}{hint}", file=file, line=lineno, column=exc.colno) from None
        except ValueError as exc:  # an integer beyond the interpreter's digit limit, ...
            raise FormatError(f"not valid JSON: {str(exc).split(';')[0]}", file=file, line=lineno) from None
        except RecursionError:
            raise FormatError("not valid JSON: nested too deeply", file=file, line=lineno) from None
        _check_surrogates(obj, line, lineno, file)
        newline = getattr(lines, "newline", "\n")
        if getattr(lines, "past_end", False):  # the line after a run: parsed as reading on would
            if last is not None:
                yield last
            return
        if last is not None:
            yield last
        count += 1
        shape = dialect or (dialects.detect(obj, file, lineno) if isinstance(obj, dict) else "e2e")
        if shape == "e2e":
            last = _read_line(obj, lineno, file, report, line.isascii(), newline, count, line)
        elif not isinstance(obj, dict):
            raise FormatError("each line must be a JSON object", file=file, line=lineno)
        else:
            last = dialects.READERS[shape](obj, file, lineno, count, report)
            lay = last.layout["jsonlines"]
            lay.newline, lay.ensure_ascii, lay.compact = newline, line.isascii(), _compact(line)
    if last is None:
        raise no_document_error(file, lineno, "a JSON object")
    if not getattr(lines, "final_newline", True):
        last.layout["jsonlines"].final_newline = False
    yield last


def read(source: Source, *, report: Report, strict: bool = False, dialect: str | None = None) -> Any:
    """Read a jsonlines file (one document per line; ``dialect`` forces a shape)."""
    return model.Corpus(documents=list(_documents(SourceLines(source), source.name, report, dialect)),
                              metadata={}, schemes=[], layout={})


def stream(source: Source, *, report: Report, strict: bool = False, dialect: str | None = None) -> Iterator[Any]:
    """The documents one at a time, reading the file line by line."""
    yield from _documents(SourceLines(source), source.name, report, dialect)


def _is_document_line(raw: bytes) -> bool:
    """Does a line hold a document (what :func:`_documents` skips: blank lines)?"""
    content = raw.strip()
    if content[:1] in (b"{", b"["):
        return True
    try:  # Unicode spaces only (no-break, ideographic...) are blank too
        return bool(raw.decode("utf-8").strip())
    except UnicodeDecodeError:
        return True  # the reader refuses it, as a document line


def document_starts(source: Source) -> list[tuple[int, int]]:
    """``(byte offset, line)`` of every document (non-blank line)."""
    return line_starts(Source.of(source), _is_document_line)


def stream_range(source: Source, byte_range: tuple[int, int, int, int], *, report: Report, strict: bool = False,
                 dialect: str | None = None) -> Iterator[Any]:
    """The documents of a run of lines, ``byte_range`` = (start, end, number of the
    first document, its line) from :func:`document_starts`, as :func:`stream` gives them."""
    start, end, first, line = byte_range
    source = Source.of(source)
    yield from _documents(SourceLines(source, (start, end, line)), source.name, report, dialect, first)


def stream_range_wl(source: Source, byte_range: tuple[int, int, int, int], *, report: Report,
                    strict: bool = False) -> Iterator[Any]:
    yield from stream_range(source, byte_range, report=report, strict=strict, dialect="wl")


def read_wl(source: Source, *, report: Report, strict: bool = False) -> Any:
    """Read wl-coref jsonlines (whatever the keys say)."""
    return read(source, report=report, strict=strict, dialect="wl")


def stream_wl(source: Source, *, report: Report, strict: bool = False) -> Iterator[Any]:
    yield from stream(source, report=report, strict=strict, dialect="wl")


def write_wl(documents: Iterable, *, corpus: Any, report: Report) -> Iterator[str]:
    """wl-coref jsonlines: one object per document (see ``dialects.wl_object``); a
    document read from a wl-coref line is written as that line was (its keys, escapes,
    spacing and line ends). ``part_id`` holds any integer part (negative ones too); a
    part that is no integer is ``loss.document-part``."""
    pending: str | None = None
    final = True
    for doc in documents:
        if pending is not None:
            yield pending
        lay = doc.layout.get("jsonlines")
        lay = lay if isinstance(lay, JsonlinesLayout) and lay.dialect == "wl" else None
        obj = dialects.wl_object(doc, lay)
        if doc.part is not None and "part_id" not in obj:
            LossLog(report, "wl-coref").lose("document-part", "document parts that are no integer (part_id holds "
                                              "a number): not written", document=doc, example=repr(doc.part))
        pending = _line(obj, lay) if lay is not None else json.dumps(obj, ensure_ascii=False) + "\n"
        final = lay.final_newline if lay is not None else True
    if pending is not None:
        yield pending if final else pending.rstrip("\r\n")


def loads(text: str, *, report: Report | None = None, strict: bool = False, file: str | None = None) -> Any:
    """Read jsonlines text (a shortcut of ``corefio.loads(text, "jsonlines")`` for tests)."""
    return read(Source.from_text(text, file), report=report if report is not None else Report(file), strict=strict)


def _document_object(doc: Any, report: Report) -> tuple[dict, JsonlinesLayout | None]:
    lay = doc.layout.get("jsonlines")
    lay = lay if isinstance(lay, JsonlinesLayout) else None
    forms = doc.tokens.forms
    sentences = [(s.first, s.last) for s in doc.sentences] or ([(0, len(forms) - 1)] if forms else [])
    speaker = doc.tokens.attributes.get("speaker")
    style = lay.doc_key_style if lay is not None else "e2e"
    e2e = e2e_key(doc.name, doc.part)
    if e2e is not None and split_e2e_key(e2e) != (doc.name, doc.part):
        e2e = None  # it would read back as another name or part
    if style == "conll" or (doc.part is not None and e2e is None):
        doc_key = f"({doc.name}); part {doc.part if doc.part is not None else '000'}"
    else:
        doc_key = e2e or doc.name
    clusters = [[[doc.markables[k].first, doc.markables[k].last] for k in chain] for chain in doc.chain_indices()]
    values: dict[str, Any] = {
        "doc_key": doc_key,
        "sentences": [forms[a : b + 1] for a, b in sentences],
        "speakers": [[(speaker[i] if speaker is not None and speaker[i] is not None else "-") for i in range(a, b + 1)]
                     for a, b in sentences],
        "clusters": clusters,
    }
    if lay is not None and "speakers" not in lay.keys and speaker is None:
        del values["speakers"]
    json_fields = set(lay.json_fields) if lay is not None else set()
    clashing = [key for key in doc.metadata if key in CORE_KEYS]
    if clashing:
        LossLog(report, "jsonlines").lose("metadata", "metadata entries named like a jsonlines field",
                                          document=doc, count=len(clashing), example=clashing[0])
    for key, value in doc.metadata.items():
        if key in CORE_KEYS:
            continue
        if key in json_fields:
            try:
                values[key] = json.loads(value)
                continue
            except ValueError:
                pass
        values[key] = value
    if lay is None:
        return values, None
    for key, value in lay.extra.items():
        values.setdefault(key, value)
    ordered = {key: values[key] for key in lay.keys if key in values}
    for key, value in values.items():
        ordered.setdefault(key, value)
    return ordered, lay


def _line(obj: dict, lay: JsonlinesLayout | None) -> str:
    """``obj`` as its source wrote its line: ASCII escapes or not, compact or not, the
    same line end."""
    if lay is None:
        return json.dumps(obj) + "\n"
    separators = (",", ":") if lay.compact else None
    return json.dumps(obj, ensure_ascii=lay.ensure_ascii, separators=separators) + lay.newline


def _own_shape(doc: Any, report: Report, preco: bool) -> tuple[dict, JsonlinesLayout | None]:
    """The object to write for ``doc``: PreCo's shape when ``preco`` (the format
    ``preco``) or when the document was read from a PreCo line and PreCo can hold it,
    else e2e's."""
    lay = doc.layout.get("jsonlines")
    lay = lay if isinstance(lay, JsonlinesLayout) else None
    if preco or (lay is not None and lay.dialect == "preco" and dialects.preco_expresses(doc)):
        return dialects.preco_object(doc, report, lay), lay
    return _document_object(doc, report)


def write(documents: Iterable, *, corpus: Any, report: Report, preco: bool = False) -> Iterator[str]:
    """One JSON object per line, one piece per document."""
    pending: str | None = None
    final = True
    for doc in documents:
        if pending is not None:
            yield pending
        obj, lay = _own_shape(doc, report, preco)
        pending = _line(obj, lay)
        final = lay.final_newline if lay is not None else True
    if pending is not None:
        yield pending if final else pending.rstrip("\r\n")


def write_preco(documents: Iterable, *, corpus: Any, report: Report) -> Iterator[str]:
    """PreCo jsonlines: one ``{"id", "sentences", "mention_clusters"}`` per document."""
    yield from write(documents, corpus=corpus, report=report, preco=True)


def read_preco(source: Source, *, report: Report, strict: bool = False) -> Any:
    """Read PreCo jsonlines (whatever the keys say)."""
    return read(source, report=report, strict=strict, dialect="preco")


def stream_preco(source: Source, *, report: Report, strict: bool = False) -> Iterator[Any]:
    yield from stream(source, report=report, strict=strict, dialect="preco")


def stream_range_preco(source: Source, byte_range: tuple[int, int, int, int], *, report: Report,
                       strict: bool = False) -> Iterator[Any]:
    yield from stream_range(source, byte_range, report=report, strict=strict, dialect="preco")


def dumps(corpus: Any, *, report: Report | None = None) -> str:
    """jsonlines text of a corpus (a shortcut for tests that reports no losses)."""
    return "".join(write(corpus.documents, corpus=corpus, report=report if report is not None else Report()))


#: keys that tell a coreference jsonlines line in the first bytes of a file
_SNIFF_KEYS = (b'"doc_key"', b'"cased_words"', b'"subtoken_map"', b'"clusters_token_offsets"',
               b'"clusters_char_offsets"', b'"clusters"', b'"mention_clusters"')


def sniff(head: bytes) -> bool:
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{") and any(key in head for key in _SNIFF_KEYS)


CAPABILITIES = Capabilities(
    discontinuous=False, nested=True, crossing=True, same_entity_overlap=True, cross_sentence=True,
    entity_ids=False, link_structure=False, link_types=False, multi_target_links=False,
    markable_attributes=False, entity_attributes=False, link_attributes=False, heads=False,
    min=False, optional=False, layers=False, sets=False, token_attributes=frozenset({"speaker"}),
    token_ids=False, whitespace=False, offsets=False, text=False, regions=False, sentences=True,
    sentence_attributes=False, metadata=True, schemes=False, multiple_documents=True,
)

register(
    FormatSpec(
        name="jsonlines",
        description="e2e-coref jsonlines (doc_key, sentences, speakers, clusters)",
        extensions=(".jsonlines", ".jsonl"),
        capabilities=CAPABILITIES,
        read=read,
        stream=stream,
        write=write,
        sniff=sniff,
        aliases=("e2e", "jsonl"),
        options=(Option("dialect", str, None, "read one shape whatever the keys say (default: each line's keys "
                        "decide)", applies_to="read", choices=tuple(dialects.DIALECTS)),),
        variant_option="dialect",
        concatenates=True,
        document_starts=document_starts,
        stream_range=stream_range,
    )
)

register(
    FormatSpec(
        name="preco",
        description="PreCo jsonlines (id, sentences, mention_clusters of [sentence, start, end))",
        extensions=(),
        ambiguous_extensions=(".jsonlines", ".jsonl"),
        # a mention lies in one sentence; no speakers
        capabilities=replace(CAPABILITIES, cross_sentence=False, token_attributes=False),
        read=read_preco,
        stream=stream_preco,
        write=write_preco,
        concatenates=True,
        document_starts=document_starts,
        stream_range=stream_range_preco,
    )
)

register(
    FormatSpec(
        name="wl-coref",
        description="wl-coref jsonlines (document_id, cased_words, sent_id, span_clusters, word_clusters, "
                    "head2span)",
        extensions=(),
        ambiguous_extensions=(".jsonlines", ".jsonl"),
        # wl-coref keeps each mention's head word and no document metadata
        capabilities=replace(CAPABILITIES, heads=True, metadata=False),
        read=read_wl,
        stream=stream_wl,
        write=write_wl,
        aliases=("wl", "wlcoref"),
        concatenates=True,
        document_starts=document_starts,
        stream_range=stream_range_wl,
    )
)
