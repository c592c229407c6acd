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

import re
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
                   documents=None, progress: Callable[[int], None] | None = None,
                   first_document: int | None = None) -> CorefioError | None:
    """Read the documents of ``source`` one at a time (``documents``: the stream to read
    instead of the format's own: a run of the file's documents, the first of them the
    ``first_document``-th of the file), adding what the reader finds to ``report`` and what
    :func:`check_document` finds to ``checks``; count the documents' keys in ``names``.
    Return the error that stopped the reader (located, not added to ``report``), if any:
    then ``checks`` must be left out (a file that cannot be read gets no semantic
    findings, as when it was read whole). The model's findings name their lines
    (:class:`SourceLines`), but in a run whose place in the file is not given.

    The model's checks go to a report of their own so that, added after the reader's
    findings, the report is the one reading the whole corpus first gave, while only one
    document is in memory at a time."""
    lines = SourceLines.of(source, spec.name) if documents is None or first_document is not None else None
    number = first_document or 0
    try:
        stream = documents if documents is not None else spec.stream(source, report=report, strict=False)
        header = None
        for doc in stream:
            if header is None:
                header = getattr(stream, "header", None)
            names[doc.key] += 1
            locate = locator(lines, number, doc)
            number += 1
            check_document(doc, checks, locate)
            if header is not None and header.schemes:
                check_scheme_values(doc, header.schemes, checks, locate)
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
    check_corpus(corpus, report, SourceLines.of(source, spec.name))
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
    lines = SourceLines(source, "raf")
    try:
        for number, doc in enumerate(stream):
            names[doc.key] += 1
            check_document(doc, report, locator(lines, number, doc))
            if progress is not None:
                progress(1)
    except ReportedErrors:
        pass  # each error is in the report already
    except CorefioError as exc:
        report.add_error(exc, _read_error_code(exc))
    finally:
        _repairs_are_errors(report.diagnostics[start:])
    _duplicate_documents(names, report)


# -- where a finding is: the line of a token -----------------------------------------------------
_RAF_DOCUMENT = re.compile(r'<struct\s[^>]*type\s*=\s*["\']document["\']')
_RAF_WORD = re.compile(r"<w[\s>/]")
_TSV_TOKEN = re.compile(r"\d+-\d+\t")


class SourceLines:
    """The line of every token of a file, found again in its text, so that the model's
    findings (which know tokens, not lines) name the line where a user finds them:
    formats with a token a line (CoNLL, CoNLL-U, UA, WebAnno TSV), a document a line
    (JSON lines) and RAF (a ``<w>`` element a token). The text is read once, when a finding first
    asks; a document whose tokens the scan counts otherwise than the reader (a layout
    the scan does not know) gets no lines rather than wrong ones. Other formats: none.
    """

    FORMATS = ("conll", "conllu", "ua", "jsonlines", "raf", "webanno-tsv")

    def __init__(self, source: Source, format: str) -> None:
        self.source, self.format = source, format.split(":")[0]
        self._documents: list[list[int]] | None = None

    @classmethod
    def of(cls, source: Source, format: str) -> "SourceLines | None":
        return cls(source, format) if format.split(":")[0] in cls.FORMATS else None

    def line(self, document: int, token: int, tokens: int) -> int | None:
        """The line of token ``token`` of the ``document``-th document (which has
        ``tokens`` tokens as read), or None."""
        if self._documents is None:
            try:
                self._documents = self._scan()
            except (OSError, CorefioError, UnicodeError):
                self._documents = []
        if document >= len(self._documents):
            return None
        lines = self._documents[document]
        if self.format == "jsonlines":
            return lines[0] if lines else None
        if len(lines) != tokens or not 0 <= token < tokens:
            return None
        return lines[token]

    def _scan(self) -> list[list[int]]:
        text = self.source.read_bytes().decode("utf-8-sig", "replace").replace("\r\n", "\n").replace("\r", "\n")
        if self.format == "raf":
            return self._scan_raf(text)
        documents: list[list[int]] = []
        current: list[int] | None = None
        for number, raw in enumerate(text.split("\n"), 1):
            line = raw.strip()
            if self.format == "jsonlines":
                if line:
                    documents.append([number])
                continue
            if self.format == "webanno-tsv":  # one document; a token line is "S-T<TAB>" (not "S-T.k")
                if _TSV_TOKEN.match(raw):
                    documents = documents or [[]]
                    documents[0].append(number)
                continue
            if self.format == "conll":
                if line.startswith("#begin document"):
                    current = []
                    documents.append(current)
                elif line and not line.startswith("#") and current is not None:
                    current.append(number)
                continue
            # CoNLL-U and UA: a document starts at "# newdoc" (or at the first sentence)
            if line.startswith("#"):
                if re.match(r"#\s*newdoc\b", line):
                    current = []
                    documents.append(current)
                continue
            if not line:
                continue
            first = raw.split("\t")[0] if self.format == "conllu" else line.split()[0]
            if "-" in first:  # a multi-word token's range: not a token
                continue
            if current is None:
                current = []
                documents.append(current)
            current.append(number)
        return documents

    @staticmethod
    def _scan_raf(text: str) -> list[list[int]]:
        starts = [m.start() for m in _RAF_DOCUMENT.finditer(text)]
        ends = starts[1:] + [len(text)]
        documents = []
        for start, end in zip(starts, ends):
            line, at = text.count("\n", 0, start) + 1, start
            words = []
            for m in _RAF_WORD.finditer(text, start, end):
                line += text.count("\n", at, m.start())
                at = m.start()
                words.append(line)
            documents.append(words)
        return documents


def _lines_of_file(path: str) -> SourceLines | None:
    try:
        if not Path(path).is_file():
            return None
        return SourceLines.of(Source.of(path), resolve_format(path, None).name)
    except (OSError, CorefioError):
        return None


#: ``locate(token) -> (file, line)`` of a document being checked (None: no line known)
Locate = Callable[[int], "tuple[str, int] | None"]


def locator(lines: SourceLines | None, document: int, doc) -> Locate | None:
    """:data:`Locate` for the ``document``-th document ``doc`` of a file, from ``lines``."""
    if lines is None:
        return None
    tokens = len(doc.tokens.forms)

    def locate(token: int) -> tuple[str, int] | None:
        line = lines.line(document, token, tokens)  # type: ignore[union-attr]
        return (lines.source.name, line) if line is not None else None  # type: ignore[union-attr]

    return locate


def check_corpus(corpus, report: Report, lines: SourceLines | None = None) -> None:
    """:func:`check_document` of every document of ``corpus`` (and its schemes), then
    documents that share a name. The findings name their lines in ``lines``, by default
    in the report's file (the file a report is made for is the one the corpus was read
    from), as :func:`validate_file` names them."""
    if lines is None and report.file:
        lines = _lines_of_file(report.file)
    names: dict[tuple, int] = defaultdict(int)
    for number, doc in enumerate(corpus.documents):
        names[doc.key] += 1
        locate = locator(lines, number, doc)
        check_document(doc, report, locate)
        if corpus.schemes:
            check_scheme_values(doc, corpus.schemes, report, locate)
    _duplicate_documents(names, report)


def check_scheme_values(doc, schemes, report: Report, locate: Locate | None = None) -> None:
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
                               "not allow", document=doc.label, merge=True, example=f"{m.ref}: {value!r}",
                               **_at(locate, m.first))


def _duplicate_documents(names: dict[tuple, int], report: Report) -> None:
    for key, n in names.items():
        if n > 1:
            report.warning("model.duplicate-document", f"{n} documents share the name {key[0]!r} part {key[1]!r}")


def _at(locate: Locate | None, token: int | None) -> dict:
    """``file`` and ``line`` of a finding at ``token``, as keyword arguments (none when
    its line is not known)."""
    where = locate(token) if locate is not None and token is not None else None
    return {"line": where[1]} if where is not None else {}


def _words(doc, markable, most: int = 6) -> str:
    """A mention as its words, quoted (the first ``most`` of them)."""
    forms = doc.tokens.forms
    tokens = [t for a, b in markable.spans for t in range(a, b + 1)]
    text = " ".join(forms[t] for t in tokens[:most]) + (" …" if len(tokens) > most else "")
    return repr(text)


def check_document(doc, report: Report, locate: Locate | None = None) -> None:
    """Semantic findings that are legal in the model but usually mistakes. ``locate``
    gives the file and line of a token (:func:`locator`): a finding then names the line
    of the first token concerned, and quotes the mentions' words rather than ids the
    reader made up."""
    label = doc.label
    if not doc.tokens.forms:
        report.warning("model.empty-document", "document has no tokens", document=label)
    markables = doc.markables
    keys = [(m.layer, m.spans) for m in markables]
    by_span: dict[tuple, list] = defaultdict(list)
    if len(set(keys)) != len(keys):  # markables grouped only when some share a span
        for key, m in zip(keys, markables):
            by_span[key].append(m)
    for same in by_span.values():
        if len(same) > 1:
            report.warning("model.duplicate-mention", "markables with identical spans",
                           document=label, merge=True, count=len(same) - 1,
                           example=_words(doc, same[0]) + " ×" + str(len(same)), **_at(locate, same[0].first))
    # crossing brackets among contiguous markables of one layer
    # (the spans and layers taken once from each markable; the layers compared as text
    # only when there are some: with the other changes here, check_document over the
    # benchmark key takes 0.05 s of CPU instead of 0.10 s)
    spans = [(m.spans[0][0], m.spans[0][1], k, m.layer) for k, m in enumerate(markables) if len(m.spans) == 1]
    if any(t[3] is not None for t in spans):
        spans.sort(key=lambda t: (str(t[3]), t[0], -t[1]))
    else:
        spans.sort(key=lambda t: (t[0], -t[1]))
    stack: list[tuple[int, int, int, object]] = []
    for a, b, k, layer in spans:
        while stack and (stack[-1][3] != layer or stack[-1][1] < a):
            stack.pop()
        if stack and stack[-1][1] < b:
            report.warning("model.crossing-mentions", "mentions overlap without nesting",
                           document=label, merge=True,
                           example=f"{_words(doc, doc.markables[stack[-1][2]])} × {_words(doc, doc.markables[k])}",
                           **_at(locate, a))
        stack.append((a, b, k, layer))
    if doc.sentences:
        sent = doc.sentence_of_token()
        for m in markables:
            if sent[m.spans[0][0]] != sent[m.spans[-1][1]]:
                report.info("model.cross-sentence-mention", "mentions crossing a sentence boundary",
                            document=label, merge=True, example=_words(doc, m), **_at(locate, m.first))
    used = {m.entity for m in markables if m.entity is not None} if doc.entities else set()
    for link in doc.links:
        if link.target_kind == "entity":
            used.update(link.targets)
    for e in doc.entities:
        if e.id not in used:
            report.info("model.unused-entity", "declared entities that nothing uses",
                        document=label, merge=True, example=e.id)
    if not doc.links:
        return
    index = doc.markable_index()
    entity_of = {m.ref: m.entity for m in markables}
    for link in doc.links:
        if link.target_kind != "markable":
            continue
        source = doc.markables[index[link.source]] if link.source in index else None
        where = _at(locate, source.first if source is not None else None)
        if link.source in link.targets:
            report.warning("model.self-link", "links from a markable to itself", document=label,
                           merge=True, example=link.id, **where)
        if is_identity(link.type):
            a = entity_of.get(link.source)
            for target in link.targets:
                b = entity_of.get(target)
                if a is not None and b is not None and a != b:
                    report.warning("model.mixed-entities",
                                   "identity links joining markables of different entities",
                                   document=label, merge=True, example=link.id, **where)
                    break
