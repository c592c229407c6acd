"""Validation: XSD (xmlschema, for the XML formats) plus semantic checks on the model.

:func:`validate_file` never stops at the first problem: it returns a :class:`Report`
with every schema error (with its line), every reader error, and the findings of
:func:`check_document`:

=================================== ========= =================================================
code                                severity  meaning
=================================== ========= =================================================
``schema.invalid``                  error     the file breaks the XSD
``model.duplicate-mention``         warning   two markables cover exactly the same tokens
``model.crossing-mentions``         warning   two mentions overlap without one containing the other
``model.cross-sentence-mention``    info      a mention spans a sentence boundary
``model.self-link``                 warning   a link whose source is its target
``model.empty-document``            warning   a document without tokens
``model.unused-entity``             info      a declared entity no markable or link uses
``model.mixed-entities``            warning   identity links join markables of different entities
=================================== ========= =================================================
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from pathlib import Path

from .diagnostics import Report
from .errors import CorefioError
from .chains import is_identity
from ._lazy import LazyModule
from .registry import resolve_format
from .resources import schema_path
from .xmlsafe import parse_xml

#: the pydantic model, imported on first use (scoring CoNLL never needs it)
model = LazyModule("corefio.model")

#: XSD used for each XML format
SCHEMAS = {"raf": "raf.xsd"}


@lru_cache(maxsize=None)
def load_schema(name: str):
    import xmlschema

    return xmlschema.XMLSchema11(str(schema_path(name)))


def schema_errors(path: str | Path, schema_name: str, report: Report, limit: int = 200) -> int:
    """Validate ``path`` against ``schemas/<schema_name>``; add ``schema.invalid`` errors."""
    tree = parse_xml(path)
    schema = load_schema(schema_name)
    n = 0
    for err in schema.iter_errors(tree):
        n += 1
        if n > limit:
            continue
        reason = err.reason or str(err)
        if "assertion" in reason and getattr(err.validator, "path", None):
            reason = f"assertion failed: {err.validator.path}"
        where = err.path or ""
        report.error("schema.invalid", f"{reason} (at {where})" if where else reason,
                     line=err.sourceline, file=str(path))
    if n > limit:
        report.error("schema.invalid", f"{n - limit} more schema errors not shown", file=str(path))
    return n


def validate_file(path: str | Path, format: str | None = None, report: Report | None = None) -> Report:
    """Schema + reader + semantic validation of one file; never raises on bad content."""
    report = report if report is not None else Report(str(path))
    try:
        spec = resolve_format(path, format)
    except CorefioError as exc:
        report.add_error(exc, "format.unknown")
        return report
    if spec.name in SCHEMAS:
        try:
            schema_errors(path, SCHEMAS[spec.name], report)
        except CorefioError as exc:
            report.add_error(exc, "xml.not-well-formed")
            return report
    before = len(report.errors)
    try:
        corpus = spec.read(path, report=report, strict=False)
    except CorefioError as exc:
        if len(report.errors) == before:
            report.add_error(exc.located(path), "read.failed")
        return report
    check_corpus(corpus, report)
    return report


def check_corpus(corpus: model.Corpus, report: Report) -> None:
    names = defaultdict(int)
    for doc in corpus.documents:
        names[doc.key] += 1
        check_document(doc, report)
    for key, n in names.items():
        if n > 1:
            report.warning("model.duplicate-document", f"{n} documents share the name {key[0]!r} part {key[1]!r}")


def check_document(doc: model.Document, report: Report) -> None:
    """Semantic findings that are legal in the model but usually mistakes."""
    label = doc.label
    if not doc.tokens.forms:
        report.warning("model.empty-document", "document has no tokens", document=label)
    by_span: dict[tuple, list[str]] = defaultdict(list)
    for m in doc.markables:
        by_span[m.spans].append(m.id)
    for spans, ids in by_span.items():
        if len(ids) > 1:
            report.warning("model.duplicate-mention", "markables with identical spans",
                           document=label, merge=True, count=len(ids) - 1, example="/".join(ids))
    # crossing brackets among contiguous markables
    spans = sorted(((m.first, m.last, m.id) for m in doc.markables if len(m.spans) == 1),
                   key=lambda t: (t[0], -t[1]))
    stack: list[tuple[int, int, str]] = []
    for a, b, mid in spans:
        while stack and stack[-1][1] < a:
            stack.pop()
        if stack and stack[-1][1] < b:
            report.warning("model.crossing-mentions", "mentions overlap without nesting",
                           document=label, merge=True, example=f"{stack[-1][2]}×{mid}")
        stack.append((a, b, mid))
    if doc.sentences:
        sent = doc.sentence_of_token()
        for m in doc.markables:
            if sent[m.first] != sent[m.last]:
                report.info("model.cross-sentence-mention", "mentions crossing a sentence boundary",
                            document=label, merge=True, example=m.id)
    used = {m.entity for m in doc.markables if m.entity is not None}
    used |= {link.target for link in doc.links if link.target_kind == "entity"}
    for e in doc.entities:
        if e.id not in used:
            report.info("model.unused-entity", "declared entities that nothing uses",
                        document=label, merge=True, example=e.id)
    entity_of = {m.id: m.entity for m in doc.markables}
    for link in doc.links:
        if link.target_kind == "markable" and link.source == link.target:
            report.warning("model.self-link", "links from a markable to itself", document=label,
                           merge=True, example=link.id)
        if is_identity(link.type) and link.target_kind == "markable":
            a, b = entity_of.get(link.source), entity_of.get(link.target)
            if a is not None and b is not None and a != b:
                report.warning("model.mixed-entities",
                               "identity links joining markables of different entities",
                               document=label, merge=True, example=link.id)
