"""Validation: a structural XSD for RAF, the reader's checks and semantic checks on the model.

:func:`validate_file` runs the format's reader on the file as given, exactly as every
other command reads it, and collects what it reports; then it adds the schema (XML
formats) and the model's semantic checks. The rule: a file is valid only if its reader
reads it as given, with no error-level diagnostic and nothing repaired. So ``validate``
reports an error whenever ``info``, ``convert`` or ``score`` would refuse the file (exit
3), and also when they would read it only after a lenient repair. It never stops at the
first problem the reader can go past, and every finding has its line where the input has
lines. For a RAF file:

1. the RAF reader takes one document at a time (streamed) and reports ids, references,
   ranges and values with their lines (codes ``raf.*``); a file that is not well-formed
   XML stops it at the first syntax error (``xml.not-well-formed``; RAF is never
   repaired while reading, so validity is always decided on the bytes as given);
2. every document read is checked by :func:`check_document` (codes ``model.*``);
3. the reader also checks each child of the root, once parsed and before it is freed,
   against ``schemas/raf.xsd`` (XML Schema 1.0) with libxml2 through lxml (60 to 190
   times faster than the ``xmlschema`` package on the same schema:
   ``benchmarks/bench_raf.py``), and the root's attributes alone; it warns of every
   violation with its line (``schema.invalid``), and here each is an error. So reading
   warns wherever validation fails, and the file is parsed once. Co-occurrence rules
   (which attribute belongs to which type of struct) are the reader's own checks.

The schema is checked on elements already parsed, never by the parser itself: lxml's
``iterparse`` given a schema and ``resolve_entities=False`` may end quietly at a syntax
error (a file cut short, text after the root) instead of raising, which once let a
damaged file pass.

Any other format is read by its reader in lenient mode, as ``info`` reads it, and then
checked by :func:`check_document`; the MATE reader checks ``schemas/mate.xsd`` itself,
for files whose root element has a namespace, and warns (``schema.invalid``, an error
here; ``mate.namespace`` for a namespace other than MATE's). A repair the reader made (a warning ``repair.*`` or
``<format>.repaired`` when reading, such as an MMAX2 file that is not well-formed XML)
is an error here: validity is decided on the bytes as given, never on what repair made
of them. (A repair that loses annotations is the reader's own error everywhere.)

=================================== ========= =================================================
code                                severity  meaning
=================================== ========= =================================================
``format.unknown``                  error     the format cannot be told (name it)
``xml.not-well-formed``             error     not XML (cut short, text after the root…), or unsafe XML
                                              (entity declarations, nesting deeper than 256)
``schema.invalid``                  error     the file breaks ``schemas/raf.xsd`` (``mate.xsd``)
``schema.skipped``                  warning   libxml2 could not check the schema (unexpanded entities)
``raf.invalid``                     error     a RAF element misses what its type needs
``raf.duplicate-id``                error     two markables (of one layer), entities or links share an id
``raf.dangling-target``             error     a span, head or MIN range outside the words
``raf.bad-span``                    error     a range that is not ``N`` or ``N..M``
``raf.dangling-link``               error     a link source or target that does not exist
``raf.empty-target``                error     a markable without a span
``raf.undefined-entity``            error     an entity reference left unexpanded in a text
``raf.markup-in-text``              error     an element (``xi:include``...) inside a word form or feat
``raf.unexpected``                  warning   an element the reader does not know (error with strict)
``raf.unknown-layout``              warning   the layout of a format that is not installed
``raf.chain-mismatch``              warning   a markable's ``chain`` attribute disagrees with its chain
``raf.word-number``                 warning   a word's ``n`` is not its position in the document
``raf.sourcetext-mismatch``         warning   (RAF 1.0) a sourcetext that differs from its words
``model.invariant``                 error     the document breaks a model invariant
``read.failed``                     error     the reader gave up for another reason (its message says why)
``*.repaired`` ``repair.*``         error     a lenient reader repaired the input (a warning when reading)
``model.duplicate-document``        warning   two documents share name and part
``model.duplicate-mention``         warning   two markables cover exactly the same tokens
``model.crossing-mentions``         warning   two mentions overlap without one containing the other
``model.cross-sentence-mention``    info      a mention spans a sentence boundary
``model.self-link``                 warning   a link whose source is one of its targets
``model.empty-document``            warning   a document without tokens
``model.unused-entity``             info      a declared entity no markable or link uses
``model.scheme-value``              warning   a markable attribute value its layer's scheme does not list
``model.mixed-entities``            warning   identity links join markables of different entities
=================================== ========= =================================================
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from ..io._lazy import LazyModule
from ..model.mentions import is_identity
from ..diagnostics import Report
from ..errors import CorefioError, UnsafeInputError
from ..formats.registry import resolve_format
from ..io.source import Source
from ..io.xmlsafe import NotWellFormedError

#: the model, imported on first use (scoring CoNLL never needs it)
model = LazyModule("corefio.model")
etree = LazyModule("lxml.etree")

#: XSD used for each XML format
SCHEMAS = {"raf": "raf.xsd", "mate": "mate.xsd"}


def load_schema(name: str):
    """``schemas/<name>`` as an lxml (libxml2) :class:`XMLSchema` (loaded once)."""
    from ..formats.raf import load_schema as load

    return load(name)


def schema_errors(tree, schema_name: str, report: Report, file: str | None = None, limit: int = 200,
                  severity: str = "error") -> int:
    """Check a parsed ``tree`` against ``schemas/<schema_name>`` (see
    :func:`corefio.formats.raf.schema_errors`: the readers of RAF and MATE check it
    themselves, with warnings)."""
    from ..formats.raf import schema_errors as check

    return check(tree, schema_name, report, file, limit=limit, severity=severity)


def validate_file(path: str | Path, format: str | None = None, report: Report | None = None,
                  progress: Callable[[int], None] | None = None) -> Report:
    """Schema + reader + semantic validation of one file; never raises on bad content.
    ``progress`` is called with the number of documents as they are checked."""
    report = report if report is not None else Report(str(path))
    try:
        spec = resolve_format(path, format)
    except CorefioError as exc:
        report.add_error(exc, "format.unknown")
        return report
    source = Source.of(path)
    if spec.name == "raf":
        _validate_raf(source, report, progress)
        return report
    if spec.stream is None:
        return _validate_whole(spec, source, report, progress)
    checks = Report(report.file)
    names: dict[tuple, int] = defaultdict(int)
    before, start = len(report.errors), len(report)
    error = read_and_check(spec, source, report, checks, names, progress=progress)
    if error is not None and len(report.errors) == before:  # else the reader reported it already
        report.add_error(error, _read_error_code(error))
    _repairs_are_errors(report.diagnostics[start:])
    if error is not None:
        return report
    reader_findings_at_end(spec, source, report, names)
    report.extend(checks)
    _duplicate_documents(names, report)
    return report


def read_and_check(spec, source: Source, report: Report, checks: Report, names: dict[tuple, int],
                   documents=None, progress: Callable[[int], None] | None = None) -> CorefioError | None:
    """Read the documents of ``source`` one at a time (``documents``: the stream to read
    instead of the format's own), adding what the reader finds to ``report`` and what
    :func:`check_document` finds to ``checks``; count the documents' keys in ``names``.
    Return the error that stopped the reader (located, not added to ``report``), if any:
    then ``checks`` must be left out (a file that cannot be read gets no semantic
    findings, as when it was read whole).

    The model's checks go to a report of their own so that, added after the reader's
    findings, the report is the one reading the whole corpus first gave, while only one
    document is in memory at a time."""
    try:
        stream = documents if documents is not None else spec.stream(source, report=report, strict=False)
        header = None
        for doc in stream:
            if header is None:
                header = getattr(stream, "header", None)
            names[doc.key] += 1
            check_document(doc, checks)
            if header is not None and header.schemes:
                check_scheme_values(doc, header.schemes, checks)
            if progress is not None:
                progress(1)
    except CorefioError as exc:
        return exc.located(source.name)
    return None


def reader_findings_at_end(spec, source: Source, report: Report, names: dict[tuple, int]) -> None:
    """What a format's reader adds once it has read a whole file and its stream does
    not (CoNLL: documents that share a name and part), so that streamed validation
    reports what reading the file whole reported."""
    if spec.name == "conll":
        from ..formats.conll import duplicate_documents

        duplicate_documents(names, report, source.name)


def _validate_whole(spec, source: Source, report: Report, progress: Callable[[int], None] | None) -> Report:
    """Validation of a file whose reader cannot stream: read whole, then checked."""
    before, start = len(report.errors), len(report)
    try:
        assert spec.read is not None
        corpus = spec.read(source, report=report, strict=False)
    except CorefioError as exc:
        if len(report.errors) == before:  # else the reader reported it already
            report.add_error(exc.located(source.name), _read_error_code(exc))
        return report
    finally:
        _repairs_are_errors(report.diagnostics[start:])
    check_corpus(corpus, report)
    if progress is not None:
        progress(len(corpus.documents))
    return report


def _repairs_are_errors(diagnostics: list) -> None:
    """A repair a lenient reader made (``repair.*``, ``<format>.repaired``) is an error
    here: the file is valid or not as given, not as repaired. So is what the schema
    refuses and the reader read with a warning (``schema.invalid``: RAF, MATE)."""
    for d in diagnostics:
        if d.severity == "warning" and (d.code.startswith("repair.") or d.code.endswith(".repaired")
                                        or d.code == "schema.invalid"):
            d.severity = "error"


def _read_error_code(exc: CorefioError) -> str:
    return "xml.not-well-formed" if isinstance(exc, (NotWellFormedError, UnsafeInputError)) else "read.failed"


def _validate_raf(source: Source, report: Report, progress: Callable[[int], None] | None = None) -> None:
    """The reader, streamed, exactly as every command reads the file (one document in
    memory at a time); it checks each document against the schema as it goes, and what
    it warns of there (``schema.invalid``) is an error here."""
    from ..formats.raf import RafStream, ReportedErrors

    start = len(report)
    stream = RafStream(source, report, False, check_view=True)
    names: dict[tuple, int] = defaultdict(int)
    try:
        for doc in stream:
            names[doc.key] += 1
            check_document(doc, report)
            if progress is not None:
                progress(1)
    except ReportedErrors:
        pass  # each error is in the report already
    except CorefioError as exc:
        report.add_error(exc, _read_error_code(exc))
    finally:
        _repairs_are_errors(report.diagnostics[start:])
    _duplicate_documents(names, report)


def check_corpus(corpus, report: Report) -> None:
    names: dict[tuple, int] = defaultdict(int)
    for doc in corpus.documents:
        names[doc.key] += 1
        check_document(doc, report)
        if corpus.schemes:
            check_scheme_values(doc, corpus.schemes, report)
    _duplicate_documents(names, report)


def check_scheme_values(doc, schemes, report: Report) -> None:
    """Markable attribute values outside the closed value lists of their layer's scheme
    (names and values compared case-insensitively, as MMAX2 does)."""
    by_layer = {s.layer: s for s in schemes}
    for m in doc.markables:
        scheme = by_layer.get(m.layer)
        if scheme is None:
            continue
        for name, value in m.attributes.items():
            attribute = scheme.attribute(name)
            if attribute is not None and isinstance(value, str) and not attribute.allows(value):
                report.warning("model.scheme-value", f"attribute {attribute.name!r} has a value its scheme does "
                               "not allow", document=doc.label, merge=True, example=f"{m.ref}: {value!r}")


def _duplicate_documents(names: dict[tuple, int], report: Report) -> None:
    for key, n in names.items():
        if n > 1:
            report.warning("model.duplicate-document", f"{n} documents share the name {key[0]!r} part {key[1]!r}")


def check_document(doc, report: Report) -> None:
    """Semantic findings that are legal in the model but usually mistakes."""
    label = doc.label
    if not doc.tokens.forms:
        report.warning("model.empty-document", "document has no tokens", document=label)
    by_span: dict[tuple, list[str]] = defaultdict(list)
    for m in doc.markables:
        by_span[(m.layer, m.spans)].append(m.ref)
    for ids in by_span.values():
        if len(ids) > 1:
            report.warning("model.duplicate-mention", "markables with identical spans",
                           document=label, merge=True, count=len(ids) - 1, example="/".join(ids))
    # crossing brackets among contiguous markables of one layer
    spans = sorted(((m.first, m.last, m.ref, m.layer) for m in doc.markables if len(m.spans) == 1),
                   key=lambda t: (str(t[3]), t[0], -t[1]))
    stack: list[tuple[int, int, str, object]] = []
    for a, b, ref, layer in spans:
        while stack and (stack[-1][3] != layer or stack[-1][1] < a):
            stack.pop()
        if stack and stack[-1][1] < b:
            report.warning("model.crossing-mentions", "mentions overlap without nesting",
                           document=label, merge=True, example=f"{stack[-1][2]}×{ref}")
        stack.append((a, b, ref, layer))
    if doc.sentences:
        sent = doc.sentence_of_token()
        for m in doc.markables:
            if sent[m.first] != sent[m.last]:
                report.info("model.cross-sentence-mention", "mentions crossing a sentence boundary",
                            document=label, merge=True, example=m.ref)
    used = {m.entity for m in doc.markables if m.entity is not None}
    for link in doc.links:
        if link.target_kind == "entity":
            used.update(link.targets)
    for e in doc.entities:
        if e.id not in used:
            report.info("model.unused-entity", "declared entities that nothing uses",
                        document=label, merge=True, example=e.id)
    entity_of = {m.ref: m.entity for m in doc.markables}
    for link in doc.links:
        if link.target_kind != "markable":
            continue
        if link.source in link.targets:
            report.warning("model.self-link", "links from a markable to itself", document=label,
                           merge=True, example=link.id)
        if is_identity(link.type):
            a = entity_of.get(link.source)
            for target in link.targets:
                b = entity_of.get(target)
                if a is not None and b is not None and a != b:
                    report.warning("model.mixed-entities",
                                   "identity links joining markables of different entities",
                                   document=label, merge=True, example=link.id)
                    break
