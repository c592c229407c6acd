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
3. a file the reader parsed to its end is checked against ``schemas/raf.xsd`` (XML
   Schema 1.0) by libxml2 through lxml while it is parsed a second time, without
   keeping the tree — 60 to 190 times faster than the ``xmlschema`` package on the same
   schema (``benchmarks/bench_raf.py``); co-occurrence rules are the reader's job. A
   file that breaks the schema is parsed whole once more, so that every violation is
   reported with its line (a streamed check stops at the first).

The schema is never checked in the reader's own pass: lxml's ``iterparse`` given a
schema and ``resolve_entities=False`` may end quietly at a syntax error (a file cut
short, text after the root) instead of raising, which once let a damaged file pass.

Any other format is read by its reader in lenient mode, as ``info`` reads it (the MATE
schema first, for files in the ``coref:`` namespace), and then checked by
:func:`check_document`. A repair the reader made (a warning ``repair.*`` or
``<format>.repaired`` when reading, such as an MMAX2 file that is not well-formed XML)
is an error here: validity is decided on the bytes as given, never on what repair made
of them. (A repair that loses annotations is the reader's own error everywhere.)

=================================== ========= =================================================
code                                severity  meaning
=================================== ========= =================================================
``format.unknown``                  error     the format cannot be told (name it)
``xml.not-well-formed``             error     not XML (cut short, text after the root…), or unsafe XML
                                              (entity declarations, nesting deeper than 256)
``schema.invalid``                  error     the file breaks ``schemas/raf.xsd``
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
from functools import lru_cache
from pathlib import Path

from ..io._lazy import LazyModule
from ..model.mentions import is_identity
from ..diagnostics import Report
from ..errors import CorefioError, UnsafeInputError
from ..formats.registry import resolve_format
from ..io.resources import schema_path
from ..io.source import Source
from ..io.xmlsafe import NotWellFormedError, parse_xml

#: the pydantic model, imported on first use (scoring CoNLL never needs it)
model = LazyModule("corefio.model")
etree = LazyModule("lxml.etree")

#: XSD used for each XML format
SCHEMAS = {"raf": "raf.xsd", "mate": "mate.xsd"}


@lru_cache(maxsize=None)
def load_schema(name: str):
    """``schemas/<name>`` as an lxml (libxml2) :class:`XMLSchema`."""
    tree = parse_xml(schema_path(name))
    return etree.XMLSchema(tree)


def schema_errors(tree, schema_name: str, report: Report, file: str | None = None, limit: int = 200) -> int:
    """Check a parsed ``tree`` against ``schemas/<schema_name>``; add ``schema.invalid``
    errors (with lines) to ``report``; return how many there were."""
    schema = load_schema(schema_name)
    try:
        if schema.validate(tree):
            return 0
    except etree.XMLSchemaValidateError:
        # libxml2 gives up on trees holding unexpanded entity references; the reader
        # reports each of them (raf.undefined-entity) with its line
        report.warning("schema.skipped", "the schema could not be checked: the file holds unexpanded "
                       "entity references", file=file)
        return 0
    errors = list(schema.error_log)
    for err in errors[:limit]:
        report.error("schema.invalid", err.message, line=err.line or None, file=file)
    if len(errors) > limit:
        report.error("schema.invalid", f"{len(errors) - limit} more schema errors not shown", file=file)
    return len(errors)


def validate_file(path: str | Path, format: str | None = None, report: Report | None = None) -> Report:
    """Schema + reader + semantic validation of one file; never raises on bad content."""
    report = report if report is not None else Report(str(path))
    try:
        spec = resolve_format(path, format)
    except CorefioError as exc:
        report.add_error(exc, "format.unknown")
        return report
    source = Source.of(path)
    if spec.name == "raf":
        _validate_raf(source, report)
        return report
    if spec.name == "mate":
        _validate_mate_schema(source, report)
    before, start = len(report.errors), len(report)
    try:
        assert spec.read is not None
        corpus = spec.read(source, report=report, strict=False)
    except CorefioError as exc:
        if len(report.errors) == before:  # else the reader reported it already
            report.add_error(exc.located(str(path)), _read_error_code(exc))
        return report
    finally:
        _repairs_are_errors(report.diagnostics[start:])
    check_corpus(corpus, report)
    return report


def _repairs_are_errors(diagnostics: list) -> None:
    """A repair a lenient reader made (``repair.*``, ``<format>.repaired``) is an error
    here: the file is valid or not as given, not as repaired."""
    for d in diagnostics:
        if d.severity == "warning" and (d.code.startswith("repair.") or d.code.endswith(".repaired")):
            d.severity = "error"


def _read_error_code(exc: CorefioError) -> str:
    return "xml.not-well-formed" if isinstance(exc, (NotWellFormedError, UnsafeInputError)) else "read.failed"


def _validate_mate_schema(source: Source, report: Report) -> None:
    """The MATE XSD, for files in the ``coref:`` namespace (files whose elements carry
    no namespace, which the reader accepts too, are checked by the reader alone)."""
    try:
        tree = parse_xml(source.read_bytes(), file=source.name)
    except CorefioError:
        return  # the reader reports it, with its line
    if etree.QName(tree.getroot()).localname in ("mate", "words") and tree.getroot().nsmap.get("coref"):
        schema_errors(tree, SCHEMAS["mate"], report, source.name)


def _validate_raf(source: Source, report: Report) -> None:
    """The reader first, streamed, exactly as every command reads the file (one document
    in memory at a time); then, if the file is well-formed, the schema, streamed too; a
    file that breaks it is parsed whole once more, to give every violation its line."""
    from ..formats.raf import RafStream, ReportedErrors

    stream = RafStream(source, report, False, check_view=True)
    names: dict[tuple, int] = defaultdict(int)
    read_to_end = False
    try:
        for doc in stream:
            names[doc.key] += 1
            check_document(doc, report)
        read_to_end = True
    except ReportedErrors:
        read_to_end = True  # each error is in the report already
    except CorefioError as exc:
        code = _read_error_code(exc)
        report.add_error(exc, code)
        if code == "xml.not-well-formed":
            return  # no schema check on a tree that cannot be built
    _duplicate_documents(names, report)
    if read_to_end and _meets_schema_streamed(source, SCHEMAS["raf"]):
        return
    _raf_schema_on_tree(source, report)


def _meets_schema_streamed(source: Source, schema_name: str) -> bool:
    """Whether a well-formed RAF file meets ``schemas/<schema_name>``, checked by libxml2
    while parsing, each document freed once parsed. Only a file the reader parsed to its
    end may be checked this way: lxml's iterparse with a schema may stop at a syntax
    error without raising (lxml 6.0, with ``resolve_entities=False``)."""
    from ..formats.raf import _parser_options

    with source.open() as stream:
        events = etree.iterparse(stream, events=("end",), tag="struct", schema=load_schema(schema_name),
                                 **_parser_options())
        try:
            for _, el in events:
                parent = el.getparent()
                if parent is not None and parent.getparent() is None:  # a child of the root
                    el.clear()
                    while el.getprevious() is not None:
                        del parent[0]
        except etree.LxmlError:
            return False
    return True


def _raf_schema_on_tree(source: Source, report: Report) -> None:
    """Every schema violation of the file, with its line (the whole tree in memory)."""
    from ..formats.raf import parse_tree

    try:
        tree = parse_tree(source.read_bytes(), file=source.name)
    except CorefioError as exc:
        report.add_error(exc, "xml.not-well-formed")
        return
    schema_errors(tree, SCHEMAS["raf"], report, source.name)


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
