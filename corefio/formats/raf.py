"""RAF pivot XML, version 2.0: Popescu-Belis et al.'s (2004) struct/feat markup, compact enough for corpora.

A file is one ``reference_annotation_collection``; everything the model holds has a
place in it (``schemas/raf.xsd`` is the structural grammar)::

    <?xml version="1.0" encoding="UTF-8"?>
    <struct type="reference_annotation_collection" version="2.0">
    <feat type="metadata" name="creator">tests</feat>
    <feat type="scheme">{JSON of a Scheme}</feat>
    <feat type="layout" format="mmax2">{JSON of a FormatLayout}</feat>
    <feat type="cross_entity">{"id":"E9","members":[["doc","m1"],["doc2","m4"]],"attributes":{}}</feat>
    <struct type="document" name="doc" part="000">
    <feat type="metadata" name="genre">news</feat>
    <feat type="layout" format="conll">{JSON}</feat>
    <feat type="text">exact source text</feat>
    <struct type="region" kind="p" start="0" end="37" id="p1"/>
    <struct type="primary_data" whitespace="yes" offsets="yes">
    <feat type="column" name="pos"/>
    <struct type="sentence" id="s1">
    <feat type="comment"># sent_id = 1</feat>
    <w n="1" v="DT">The</w>
    <w n="2" ws="" v="NN">man</w>
    ...
    <struct type="entity" id="E1"><feat type="attribute" name="etype">person</feat></struct>
    <struct type="markable" id="m1" span="1..2" entity="E1" head="2" chain="1"/>
    <struct type="markable" id="m3" chain="2"><feat type="span" span="5"/><feat type="span" span="8"/></struct>
    <struct type="reflink" id="r1" source="m2" target="m1"/>
    <struct type="reflink" id="r2" reflinktype="bridging" source="m3" target="E1" kind="entity"/>

Words (``<w>``) carry their form as text, their number ``n`` (position in the document,
from 1: what spans and viewers use; readers recompute it) and, as attributes, only what
differs from the defaults: ``id`` (present on every word when the document has explicit token ids;
otherwise the ids are ``word_1 … word_n``), ``ws`` (the text after the word when the
primary data says ``whitespace="yes"`` and it is not one space), ``s``/``e`` (offsets,
when ``offsets="yes"``: ``s`` when the start is not the previous end plus the previous
whitespace, ``e`` when the end is not start plus the form's length) and ``v`` (the token
attribute columns declared by ``<feat type="column">``, joined by ``|``: an empty field
is a missing value, ``\\e`` an empty string, ``\\|`` and ``\\\\`` escape the separator
and the backslash); ``empty="yes"`` marks an empty token (a CoNLL-U empty node), and the
primary data says ``empty="yes"`` when it has one.

Spans name words by position, counted from 1 in the document (``word_3..word_7`` is
``3..7``); a contiguous markable has a ``span`` attribute, a discontinuous one a
``<feat type="span">`` per part. ``head`` is a comma list of ranges, ``min`` a ``|`` list
of alternative ranges. Markables of another layer carry ``layer``; links name them as
``layer:id``. A link with several targets has a ``<feat type="target">`` per target.
Attribute values keep their type (``datatype`` = integer, decimal, boolean; string by
default). ``chain`` on a markable is its chain number (``Document.chain_indices``
order), written for viewers (``xslt/raf-to-html.xsl``); readers recompute chains and
validation checks that the numbers agree. Layouts are JSON (tuples, sets, non-string
dict keys, bytes and nested dataclasses are tagged, so they come back with their types).

Writing then reading gives an equal model, and writing that again gives identical bytes.
RAF 1.0 files (one ``<struct type="word">`` per word, ``sourcetext`` feats, one target
per reflink) are still read.

Damaged input: RAF is corefio's own format, written by programs, so it is read exactly as
written, never repaired. A file that is not well-formed XML (cut short, text or an
unclosed comment after the root, a stray ``<``…) is an input error naming the line and
column of the first syntax error, in strict and lenient reading alike: a repaired file
would silently hold fewer words or markables than were written. ``corefio repair`` makes
such a file well-formed on request and lists every change; the result is then read like
any other file. Nesting deeper than 256 elements is refused by the parser
(:mod:`corefio.io.xmlsafe`); a RAF document nests 5 deep.

Hostile input: the parser never loads a DTD, never fetches anything and never expands
entities; entity declarations are refused, and an entity reference that is left
unexpanded (or any element inside a word form, such as ``xi:include``) is an error with
its line, never an empty form.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import json
import re
import sys
from collections.abc import Iterable, Iterator
from itertools import repeat
from typing import Any

from ..io._lazy import LazyModule
from ..model.mentions import markable_ref
from ..diagnostics import Report
from ..errors import CorefioError, FormatError, ModelError, UnsafeInputError
from .losses import LossLog
from .registry import Capabilities, FormatSpec, register
from ..io.source import Source
from ..io.xmlsafe import _refuse_entity_declarations_early, syntax_error

etree = LazyModule("lxml.etree")
#: the model, imported on first use (scoring CoNLL never needs it)
model = LazyModule("corefio.model")

ROOT_TYPE = "reference_annotation_collection"
VERSION = "2.0"
COREFERENCE = "coreference"
HEADER = f'<?xml version="1.0" encoding="UTF-8"?>\n<struct type="{ROOT_TYPE}" version="{VERSION}">\n'
FOOTER = "</struct>\n"


# -- typed attribute values ---------------------------------------------------------------
def encode_value(value: Any) -> tuple[str, str]:
    """(datatype, text) for an attribute value."""
    if isinstance(value, bool):
        return "boolean", "true" if value else "false"
    if isinstance(value, int):
        return "integer", str(value)
    if isinstance(value, float):
        return "decimal", repr(value)
    return "string", value


def decode_value(datatype: str | None, text: str) -> Any:
    if datatype in (None, "string"):
        return text
    if datatype == "boolean":
        if text in ("true", "1"):
            return True
        if text in ("false", "0"):
            return False
        raise ValueError(f"{text!r} is not a boolean")
    if datatype == "integer":
        return int(text)
    if datatype == "decimal":
        return float(text)
    raise ValueError(f"unknown datatype {datatype!r}")


# -- XML escaping (the writer builds text directly: lxml trees cost 4 GB on big corpora) ----
_BAD = "\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff"
_TEXT_SPECIAL = re.compile(f"[&<>\r{_BAD}]")
_ATTR_SPECIAL = re.compile(f"[&<>\"\t\n\r{_BAD}]")
_INVALID = re.compile(f"[{_BAD}]")


def _refuse(value: str) -> None:
    bad = _INVALID.search(value)
    if bad is not None:
        raise CorefioError(
            f"cannot write RAF: the character U+{ord(bad.group()):04X} in {value[:40]!r} "
            "(XML 1.0 cannot hold control characters)"
        )


def _text(value: str) -> str:
    if _TEXT_SPECIAL.search(value) is None:
        return value
    _refuse(value)
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;")


def _attr(value: str) -> str:
    if _ATTR_SPECIAL.search(value) is None:
        return value
    _refuse(value)
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("\t", "&#9;").replace("\n", "&#10;").replace("\r", "&#13;"))


# -- packed token attribute values --------------------------------------------------------
def _pack_escape(value: str | None) -> str:
    """One field of a ``v`` attribute: missing is empty, the empty string is ``\\e``."""
    if value is None:
        return ""
    if value == "":
        return "\\e"
    if "|" in value or "\\" in value:
        return value.replace("\\", "\\\\").replace("|", "\\|")
    return value


def _pack(values: list[str | None]) -> str:
    return "|".join(map(_pack_escape, values))


def _unpack(packed: str) -> list[str | None]:
    if "\\" not in packed:
        return [v if v else None for v in packed.split("|")]
    out: list[str | None] = []
    field: list[str] = []
    empty_marker = False
    i, n = 0, len(packed)
    while i < n:
        c = packed[i]
        if c == "\\" and i + 1 < n:
            nxt = packed[i + 1]
            if nxt == "e":
                empty_marker = True
            else:
                field.append(nxt)
            i += 2
            continue
        if c == "|":
            out.append("".join(field) if field else ("" if empty_marker else None))
            field, empty_marker = [], False
        else:
            field.append(c)
        i += 1
    out.append("".join(field) if field else ("" if empty_marker else None))
    return out


# -- typed JSON for format layouts ---------------------------------------------------------
def _to_json(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    if isinstance(value, tuple):
        return {"$tuple": [_to_json(v) for v in value]}
    if isinstance(value, (set, frozenset)):
        items = sorted(value, key=repr)
        return {"$frozenset" if isinstance(value, frozenset) else "$set": [_to_json(v) for v in items]}
    if isinstance(value, bytes):
        return {"$bytes": base64.b64encode(value).decode("ascii")}
    if isinstance(value, dict):
        if all(isinstance(k, str) and not k.startswith("$") for k in value):
            return {k: _to_json(v) for k, v in value.items()}
        return {"$dict": [[_to_json(k), _to_json(v)] for k, v in value.items()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        return {"$dataclass": f"{cls.__module__}:{cls.__qualname__}",
                "fields": {f.name: _to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    raise TypeError(f"cannot serialise a {type(value).__name__} in a format layout")


def _from_json(value: Any, lenient: bool = False) -> Any:
    """Undo :func:`_to_json`. ``lenient``: a nested dataclass that cannot be rebuilt stays
    the tagged dict (for layouts of formats that are not installed)."""
    if isinstance(value, list):
        return [_from_json(v, lenient) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        (key, inner), = value.items()
        if key == "$tuple":
            return tuple(_from_json(v, lenient) for v in inner)
        if key == "$set":
            return {_from_json(v, lenient) for v in inner}
        if key == "$frozenset":
            return frozenset(_from_json(v, lenient) for v in inner)
        if key == "$bytes":
            return base64.b64decode(inner)
        if key == "$dict":
            return {_from_json(k, lenient): _from_json(v, lenient) for k, v in inner}
    if "$dataclass" in value and set(value) == {"$dataclass", "fields"}:
        try:
            return _build_dataclass(_dataclass_named(value["$dataclass"]), value["fields"])
        except ValueError:
            if not lenient:
                raise
    return {k: _from_json(v, lenient) for k, v in value.items()}


def _dataclass_named(name: str) -> type:
    """The dataclass named ``module:qualname``, from a module that is already loaded (the
    file cannot make corefio import anything; only dataclasses are built)."""
    module_name, _, qualname = name.partition(":")
    obj: Any = sys.modules.get(module_name)
    if obj is None:
        raise ValueError(f"layout names a class of a module that is not loaded: {name!r}")
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    if not (isinstance(obj, type) and dataclasses.is_dataclass(obj)):
        raise ValueError(f"layout names {name!r}, which is not a dataclass")
    return obj


def _build_dataclass(cls: type, fields: dict[str, Any]) -> Any:
    known = {f.name: f for f in dataclasses.fields(cls)}
    unknown = set(fields) - set(known)
    if unknown:
        raise ValueError(f"{cls.__name__} has no field(s) {', '.join(sorted(unknown))}")
    init = {k: _from_json(v) for k, v in fields.items() if known[k].init}
    obj = cls(**init)
    for k, v in fields.items():
        if not known[k].init:
            object.__setattr__(obj, k, _from_json(v))
    return obj


def layout_classes() -> dict[str, list[type]]:
    """Format name → its :class:`FormatLayout` subclasses (every registered format's
    module is imported first, so that they exist). A format may have several: brat's
    document layout and its collection's (the corpus layout)."""
    from .registry import all_formats

    all_formats()
    found: dict[str, list[type]] = {}
    todo = list(model.FormatLayout.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.format and cls not in found.setdefault(cls.format, []):
            found[cls.format].append(cls)
    return found


def _layout_class(classes: list[type], fields: dict[str, Any]) -> type:
    """Of a format's layout classes, the one that has every field written (the first
    when none has: building it then says which fields are unknown)."""
    return next((cls for cls in classes if set(fields) <= {f.name for f in dataclasses.fields(cls)}), classes[0])


def _layout_json(layout: Any) -> str:
    fields = {f.name: _to_json(getattr(layout, f.name)) for f in dataclasses.fields(layout)}
    return json.dumps(fields, ensure_ascii=False, separators=(",", ":"))


def _layout_feats(layouts: dict[str, Any], report: Report | None, doc: Any = None) -> list[str]:
    out = []
    for name, layout in layouts.items():
        try:
            data = _layout_json(layout)
        except TypeError as exc:
            if report is not None:
                LossLog(report, "raf").lose("layout", f"the {name} layout ({exc})", document=doc)
            continue
        out.append(f'<feat type="layout" format="{_attr(name)}">{_text(data)}</feat>\n')
    return out


# -- writing ------------------------------------------------------------------------------
def _attribute_feats(attributes: dict[str, Any]) -> str:
    parts = []
    for name, value in attributes.items():
        datatype, text = encode_value(value)
        if datatype == "string":
            parts.append(f'<feat type="attribute" name="{_attr(name)}">{_text(text)}</feat>')
        else:
            parts.append(f'<feat type="attribute" name="{_attr(name)}" datatype="{datatype}">{text}</feat>')
    return "".join(parts)


def _range(span: tuple[int, int]) -> str:
    a, b = span
    return str(a + 1) if a == b else f"{a + 1}..{b + 1}"


def _encoded(values: list, encode: Any) -> list[str]:
    """``encode`` applied to each value, computed once per distinct value (forms, tags and
    whitespace repeat a lot)."""
    table = {v: encode(v) for v in set(values)}
    return list(map(table.__getitem__, values))


def _pack_field(value: str | None) -> str:
    return _attr(_pack_escape(value))


def _word_elements(doc: Any) -> list[str]:
    """The ``<w>`` element of every token, built column by column."""
    toks = doc.tokens
    n = len(toks.forms)
    forms = _encoded(toks.forms, _text)
    parts: list[list[str]] = [[f' n="{i}"' for i in range(1, n + 1)]]
    if toks.ids is not None:
        parts.append(_encoded(toks.ids, lambda v: f' id="{_attr(v)}"'))
    ws = toks.whitespace
    if ws is not None:
        parts.append(_encoded(ws, lambda v: "" if v == " " else f' ws="{_attr(v)}"'))
    if toks.offsets is not None:
        marks = []
        expected = 0
        for i, (start, end) in enumerate(toks.offsets):
            mark = "" if start == expected else f' s="{start}"'
            if end != start + len(toks.forms[i]):
                mark += f' e="{end}"'
            marks.append(mark)
            expected = end + (len(ws[i]) if ws is not None else 1)
        parts.append(marks)
    if toks.empty:
        marks = [""] * n
        for i in toks.empty:
            marks[i] = ' empty="yes"'
        parts.append(marks)
    if toks.attributes:
        columns = [_encoded(col, _pack_field) for col in toks.attributes.values()]
        empty = "|" * (len(columns) - 1)
        packed = list(map("|".join, zip(*columns))) if len(columns) > 1 else columns[0]
        parts.append([f' v="{p}"' if p != empty else "" for p in packed])
    heads = list(map("".join, zip(*parts))) if len(parts) > 1 else parts[0]
    return [f"<w{h}>{f}</w>\n" for h, f in zip(heads, forms)]


def document_xml(doc: Any, report: Report | None = None) -> str:
    """One ``<struct type="document">`` element (and a newline) as text."""
    out: list[str] = []
    a = out.append
    part = f' part="{_attr(doc.part)}"' if doc.part is not None else ""
    a(f'<struct type="document" name="{_attr(doc.name)}"{part}>\n')
    for k, v in doc.metadata.items():
        a(f'<feat type="metadata" name="{_attr(k)}">{_text(v)}</feat>\n')
    out.extend(_layout_feats(doc.layout, report, doc))
    if doc.text is not None:
        a(f'<feat type="text">{_text(doc.text)}</feat>\n')
    for r in doc.regions:
        rid = f' id="{_attr(r.id)}"' if r.id is not None else ""
        head = f'<struct type="region" kind="{_attr(r.type)}" start="{r.start}" end="{r.end}"{rid}'
        if r.attributes:
            a(f"{head}>{_attribute_feats(r.attributes)}</struct>\n")
        else:
            a(f"{head}/>\n")
    toks = doc.tokens
    flags = ""
    if toks.ids is not None:
        flags += ' ids="yes"'
    if toks.whitespace is not None:
        flags += ' whitespace="yes"'
    if toks.offsets is not None:
        flags += ' offsets="yes"'
    if toks.empty:
        flags += ' empty="yes"'
    a(f'<struct type="primary_data"{flags}>\n')
    for name in toks.attributes:
        a(f'<feat type="column" name="{_attr(name)}"/>\n')
    words = _word_elements(doc)
    if doc.sentences:
        for s in doc.sentences:
            sid = f' id="{_attr(s.id)}"' if s.id is not None else ""
            a(f'<struct type="sentence"{sid}>\n')
            for c in s.comments:
                a(f'<feat type="comment">{_text(c)}</feat>\n')
            for off, raw in s.interleaved:
                a(f'<feat type="interleaved" before="{off}">{_text(raw)}</feat>\n')
            if s.attributes:
                a(_attribute_feats(s.attributes) + "\n")
            out.extend(words[s.first : s.last + 1])
            a("</struct>\n")
    else:
        out.extend(words)
    a("</struct>\n")
    for e in doc.entities:
        if e.attributes:
            a(f'<struct type="entity" id="{_attr(e.id)}">{_attribute_feats(e.attributes)}</struct>\n')
        else:
            a(f'<struct type="entity" id="{_attr(e.id)}"/>\n')
    chain_of: dict[int, int] = {}
    for k, group in enumerate(doc.chain_indices(), 1):
        for i in group:
            chain_of[i] = k
    for i, m in enumerate(doc.markables):
        head = f'<struct type="markable" id="{_attr(m.id)}"'
        if m.layer is not None:
            head += f' layer="{_attr(m.layer)}"'
        spans = m.spans
        if len(spans) == 1:
            head += f' span="{_range(spans[0])}"'
        if m.entity is not None:
            head += f' entity="{_attr(m.entity)}"'
        if m.head is not None:
            head += f' head="{",".join(_range(s) for s in m.head)}"'
        if m.min is not None:
            head += f' min="{"|".join(_range(s) for s in m.min)}"'
        if m.optional:
            head += ' optional="true"'
        k = chain_of.get(i)
        if k is not None:
            head += f' chain="{k}"'
        body = ""
        if len(spans) != 1:
            body = "".join(f'<feat type="span" span="{_range(s)}"/>' for s in spans)
        if m.sets:
            body += "".join(f'<feat type="set" name="{_attr(n)}">{_text(v)}</feat>' for n, v in m.sets.items())
        if m.attributes:
            body += _attribute_feats(m.attributes)
        a(f"{head}>{body}</struct>\n" if body else f"{head}/>\n")
    for link in doc.links:
        head = f'<struct type="reflink" id="{_attr(link.id)}"'
        if link.type != COREFERENCE:
            head += f' reflinktype="{_attr(link.type)}"'
        head += f' source="{_attr(link.source)}"'
        body = ""
        if len(link.targets) == 1:
            head += f' target="{_attr(link.targets[0])}"'
        else:
            body = "".join(f'<feat type="target" target="{_attr(t)}"/>' for t in link.targets)
        if link.target_kind != "markable":
            head += f' kind="{_attr(link.target_kind)}"'
        if link.attributes:
            body += _attribute_feats(link.attributes)
        a(f"{head}>{body}</struct>\n" if body else f"{head}/>\n")
    a("</struct>\n")
    return "".join(out)


def header_xml(corpus: Any, report: Report | None = None) -> str:
    """The XML declaration, the root start tag and the corpus-level feats."""
    out = [HEADER]
    for k, v in corpus.metadata.items():
        out.append(f'<feat type="metadata" name="{_attr(k)}">{_text(v)}</feat>\n')
    for scheme in corpus.schemes:
        out.append(f'<feat type="scheme">{_text(scheme.model_dump_json())}</feat>\n')
    out.extend(_layout_feats(corpus.layout, report))
    if getattr(corpus, "cross_entities", None):  # entities across documents (corefio.model.crossdoc)
        from ..model.crossdoc import cross_entity_json

        out.extend(f'<feat type="cross_entity">{_text(cross_entity_json(e))}</feat>\n' for e in corpus.cross_entities)
    return "".join(out)


def write(documents: Iterable[Any], *, corpus: Any, report: Report) -> Iterator[bytes]:
    """The RAF file in pieces: header and corpus-level data, one piece per document,
    footer. RAF expresses everything the model holds, so nothing is lost."""
    yield header_xml(corpus, report).encode("utf-8")
    for doc in documents:
        yield document_xml(doc, report).encode("utf-8")
    yield FOOTER.encode("utf-8")


def dumps(corpus: Any, *, report: Report | None = None) -> bytes:
    """The whole RAF file of ``corpus`` in memory (what ``corefio.dumps(corpus, "raf")``
    gives, without the loss check RAF never needs)."""
    report = report if report is not None else Report()
    return b"".join(write(corpus.documents, corpus=corpus, report=report))


# -- the XSDs (RAF's, and MATE's for its reader) ---------------------------------------------
@functools.lru_cache(maxsize=None)
def load_schema(name: str) -> Any:
    """``schemas/<name>`` as an lxml (libxml2) :class:`XMLSchema`, loaded once."""
    from ..io.resources import schema_path
    from ..io.xmlsafe import parse_xml

    return etree.XMLSchema(parse_xml(schema_path(name)))


def schema_errors(tree: Any, schema_name: str, report: Report, file: str | None = None, limit: int = 200,
                  severity: str = "error") -> int:
    """Check a parsed ``tree`` (or one element and what it holds) against
    ``schemas/<schema_name>``; add ``schema.invalid`` diagnostics of ``severity`` (with
    lines) to ``report``, at most ``limit`` of them and then one that counts the others;
    return how many violations there were. Readers call it with ``severity="warning"``
    (they read what the schema refuses, and say so); ``corefio validate`` makes those
    errors."""
    schema = load_schema(schema_name)
    try:
        if schema.validate(tree):
            return 0
    except etree.XMLSchemaValidateError:
        # libxml2 gives up on trees holding unexpanded entity references; the readers
        # report each of them with its line
        report.warning("schema.skipped", "the schema could not be checked: the file holds unexpanded "
                       "entity references", file=file)
        return 0
    errors = list(schema.error_log)
    for err in errors[:limit]:
        report.add("schema.invalid", severity, err.message, line=err.line or None, file=file)  # type: ignore[arg-type]
    if len(errors) > limit:
        report.add("schema.invalid", severity, f"{len(errors) - limit} more schema errors not shown",  # type: ignore[arg-type]
                   file=file)
    return len(errors)


# -- reading ------------------------------------------------------------------------------
def _parser_options() -> dict[str, Any]:
    """lxml parser options: safe (no entities, network or DTD) and compact (the newlines
    between elements are not kept: a third of the nodes of a RAF file; libxml2 keeps the
    whitespace that is an element's whole text, such as a form that is a space)."""
    return dict(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                huge_tree=False, remove_comments=True, remove_pis=True, remove_blank_text=True)


def parse_tree(data: bytes, file: str | None = None) -> Any:
    """The whole file as an lxml tree, parsed as safely as :mod:`corefio.io.xmlsafe` does
    (entity declarations refused) and compactly (for validation: XSD needs the tree)."""
    _refuse_entity_declarations_early(data, file)
    try:
        root = etree.fromstring(data, etree.XMLParser(**_parser_options()))
    except etree.XMLSyntaxError as exc:
        raise _syntax_error(exc, file) from None
    return root.getroottree()


def _syntax_error(exc: Any, file: str | None, cut_short: bool = False) -> FormatError:
    """The located error for lxml's syntax error ``exc``; ``cut_short``: the error is on
    the file's last line, which says more than libxml2's message does."""
    note = " (the file ends here, before the RAF root element is closed: cut short?)" if cut_short else ""
    return syntax_error(exc, file, note)


def _at_the_end(stream: Any, line: int, column: int | None) -> bool:
    """Whether line ``line``, column ``column`` is where the binary ``stream`` ends (white
    space aside); read line by line, so that a large file is not held in memory."""
    text = ""
    for number, raw in enumerate(stream, 1):
        if number == line:
            text = raw.rstrip().decode("utf-8", "replace")
        elif number > line and raw.strip():
            return False
    return column is None or column >= len(text)


def _refuse_entities_in(el: Any, file: str | None) -> None:
    """A child node of an element whose text is data: an unexpanded entity or markup."""
    for c in el:
        if isinstance(c, etree._Entity):
            raise FormatError(
                f"undefined entity reference {c.text} in <{el.tag}>: corefio does not expand "
                "entities (an unexpanded entity would silently become an empty string)",
                file=file, line=c.sourceline or el.sourceline)
    raise FormatError(
        f"unexpected markup inside <{el.tag}{_type_of(el)}> text (found "
        f"{_describe(el[0])}); the text of a word or a feat is plain text",
        file=file, line=el[0].sourceline or el.sourceline)


def _type_of(el: Any) -> str:
    t = el.get("type")
    return f' type="{t}"' if t else ""


def _describe(node: Any) -> str:
    if isinstance(node.tag, str):
        return f"<{etree.QName(node).localname}>" if node.tag.startswith("{") else f"<{node.tag}>"
    return "a comment or processing instruction"


class _Reader:
    """Builds documents from ``<struct type="document">`` elements (either version),
    adding every error to the report with its line."""

    def __init__(self, file: str | None, report: Report, strict: bool, *, check_view: bool = False) -> None:
        self.file = file
        self.report = report
        self.strict = strict
        self.errors = 0
        self.version = VERSION
        self.check_view = check_view
        self.layouts: dict[str, list[type]] | None = None

    # diagnostics ------------------------------------------------------------------------
    def fail(self, message: str, el: Any, code: str = "raf.invalid") -> None:
        self.errors += 1
        self.report.error(code, message, line=el.sourceline if el is not None else None, file=self.file)

    def unexpected(self, el: Any, where: str) -> None:
        if isinstance(el, etree._Entity):
            self.fail(f"undefined entity reference {el.text} in {where}: corefio does not expand entities",
                      el, "raf.undefined-entity")
            return
        what = f"<{el.tag}{_type_of(el)}>" if isinstance(el.tag, str) else "node"
        if self.strict:
            self.fail(f"unexpected {what} in {where}", el, "raf.unexpected")
        else:
            self.report.warning("raf.unexpected", f"ignored unexpected {what} in {where}",
                                line=el.sourceline, file=self.file)

    def text_of(self, el: Any) -> str:
        """The text of a data element; an entity or element inside it is an error."""
        if len(el):
            try:
                _refuse_entities_in(el, self.file)
            except FormatError as exc:
                self.errors += 1
                self.report.error("raf.undefined-entity" if "entity" in exc.message else "raf.markup-in-text",
                                  exc.message, line=exc.line, file=self.file)
        return el.text or ""

    def entity(self, el: Any) -> Any:
        """An ``<struct type="entity">`` (the same in RAF 1.0 and 2.0), or None after
        reporting a missing id."""
        eid = el.get("id")
        if not eid:
            self.fail("entity without an id", el)
            return None
        attrs: dict[str, Any] = {}
        for f in el:
            if f.tag == "feat" and f.get("type") == "attribute":
                self.attribute(f, attrs)
            else:
                self.unexpected(f, "entity")
        return model.Entity(id=eid, attributes=attrs)

    def attribute(self, feat: Any, into: dict[str, Any]) -> None:
        name = feat.get("name")
        if not name:
            self.fail("attribute feat without a name", feat)
            return
        try:
            into[name] = decode_value(feat.get("datatype"), self.text_of(feat))
        except ValueError as exc:
            self.fail(f"attribute {name!r}: {exc}", feat)

    def int_attr(self, el: Any, name: str) -> int | None:
        value = el.get(name)
        try:
            return int(value)
        except (TypeError, ValueError):
            self.fail(f"<{el.tag}{_type_of(el)}> needs an integer {name!r}, not {value!r}", el)
            return None

    # corpus-level -----------------------------------------------------------------------
    def top_feat(self, el: Any, metadata: dict, schemes: list, layout: dict, cross: list | None = None) -> None:
        t = el.get("type")
        if t == "cross_entity" and cross is not None:
            from ..model.crossdoc import cross_entity_from_json

            try:
                cross.append(cross_entity_from_json(self.text_of(el)))
            except ValueError as exc:
                self.fail(f"cross_entity is not a cross-document entity in JSON: {exc}", el)
            return
        if t == "metadata" and el.get("name"):
            metadata[el.get("name")] = self.text_of(el)
        elif t == "scheme":
            try:
                schemes.append(model.Scheme.model_validate_json(self.text_of(el)))
            except ValueError as exc:
                self.fail(f"scheme is not a valid Scheme in JSON: {str(exc).splitlines()[0]}", el)
        elif t == "layout":
            self.layout(el, layout)
        else:
            self.unexpected(el, "the collection")

    def layout(self, el: Any, into: dict) -> None:
        name = el.get("format")
        if not name:
            self.fail("layout feat without a format", el)
            return
        if self.layouts is None:
            self.layouts = layout_classes()
        try:
            fields = json.loads(self.text_of(el))
            if not isinstance(fields, dict):
                raise ValueError("a layout is a JSON object of fields")
            classes = self.layouts.get(name)
            if not classes:
                self.report.warning(
                    "raf.unknown-layout",
                    f"no format {name!r} is installed: its layout is kept as uninterpreted fields",
                    line=el.sourceline, file=self.file, merge=True)
                into[name] = model.GenericLayout(owner=name, extra={k: _from_json(v, True) for k, v in fields.items()})
            else:
                into[name] = _build_dataclass(_layout_class(classes, fields), fields)
        except (ValueError, TypeError) as exc:
            self.fail(f"layout of format {name!r}: {exc}", el)

    # spans ------------------------------------------------------------------------------
    def range_of(self, text: str, n: int, el: Any, what: str) -> tuple[int, int] | None:
        a, sep, b = text.partition("..")
        try:
            first = int(a)
            last = int(b) if sep else first
        except ValueError:
            self.fail(f"{what} {text!r} is not a word range like 3 or 3..7", el, "raf.bad-span")
            return None
        if not 1 <= first <= last <= n:
            self.fail(f"{what} {text!r} is outside the {n} words (or runs backwards)", el, "raf.dangling-target")
            return None
        return first - 1, last - 1

    def ranges(self, text: str, sep: str, n: int, el: Any, what: str) -> tuple | None:
        out = []
        for part in text.split(sep):
            got = self.range_of(part.strip(), n, el, what)
            if got is None:
                return None
            out.append(got)
        return tuple(out)

    # documents --------------------------------------------------------------------------
    def document(self, el: Any) -> Any:
        if self.version.startswith("1") or self.version == "":
            return _V1(self).document(el)
        name = el.get("name")
        if name is None:
            self.fail("document without a name attribute", el)
            name = ""
        errors_before = self.errors
        metadata: dict[str, str] = {}
        layout: dict[str, Any] = {}
        text = None
        regions = []
        tokens = None
        sentences: list = []
        entities = []
        markable_els = []
        link_els = []
        for child in el:
            tag = child.tag
            t = child.get("type") if isinstance(tag, str) else None
            if tag == "struct":
                if t == "markable":
                    markable_els.append(child)
                    continue
                if t == "reflink":
                    link_els.append(child)
                    continue
                if t == "primary_data":
                    if tokens is not None:
                        self.fail("a document has one primary_data", child)
                    tokens, sentences = self.primary_data(child)
                    continue
                if t == "entity":
                    entity = self.entity(child)
                    if entity is not None:
                        entities.append(entity)
                    continue
                if t == "region":
                    region = self.region(child)
                    if region is not None:
                        regions.append(region)
                    continue
            elif tag == "feat":
                if t == "metadata":
                    key = child.get("name")
                    if not key:
                        self.fail("metadata feat without a name", child)
                    else:
                        metadata[key] = self.text_of(child)
                    continue
                if t == "text":
                    text = self.text_of(child)
                    continue
                if t == "layout":
                    self.layout(child, layout)
                    continue
            self.unexpected(child, "document")
        if tokens is None:
            tokens = model.Tokens(forms=[], ids=None, whitespace=None, offsets=None, attributes={})
        n = len(tokens.forms)
        seen_entities: dict[str, None] = {}
        for e in entities:
            if e.id in seen_entities:
                self.fail(f"duplicate entity id {e.id!r}", el, "raf.duplicate-id")
            seen_entities[e.id] = None
        markables: list[Any] = []
        chains: list[str | None] = []
        refs: dict[str, Any] = {}
        simple: list[tuple[int, dict]] = []
        for m_el in markable_els:
            m = self.markable(m_el, n)
            if m is None:
                continue
            if isinstance(m, dict):  # the common case, built below in one batch
                ref = markable_ref(m["id"], m["layer"])
                simple.append((len(markables), m))
            else:
                ref = m.ref
            if ref in refs:
                self.fail(f"duplicate markable id {ref!r}", m_el, "raf.duplicate-id")
            refs[ref] = m_el
            markables.append(m)
            if self.check_view:
                chains.append(m_el.get("chain"))
        if simple:
            built = [model.Markable(**values) for _, values in simple]
            for (i, _), m in zip(simple, built):
                markables[i] = m
        links = []
        link_ids: set[str] = set()
        entity_pool = None
        for l_el in link_els:
            link = self.reflink(l_el)
            if link is None:
                continue
            if link.id in link_ids:
                self.fail(f"duplicate reflink id {link.id!r}", l_el, "raf.duplicate-id")
            link_ids.add(link.id)
            if link.source not in refs:
                self.fail(f"reflink {link.id!r}: source {link.source!r} is not a markable", l_el,
                          "raf.dangling-link")
            pool: Any
            if link.target_kind == "markable":
                pool = refs
            else:
                if entity_pool is None:
                    entity_pool = set(seen_entities) | {m.entity for m in markables if m.entity is not None}
                pool = entity_pool
            for target in link.targets:
                if target not in pool:
                    self.fail(f"reflink {link.id!r}: target {target!r} is not a{'n' if pool is not refs else ''} "
                              f"{link.target_kind}", l_el, "raf.dangling-link")
            links.append(link)
        if self.errors > errors_before:
            return None
        try:
            doc = model.Document.build(
                name=name, part=el.get("part"), metadata=metadata, tokens=tokens, sentences=sentences,
                markables=markables, entities=entities, links=links, text=text, regions=regions,
                layout=layout,
            )
        except ModelError as exc:
            for p in exc.problems:
                self.fail(p, el, "model.invariant")
            return None
        if self.check_view:
            self.compare_chains(doc, chains, markable_els)
        return doc

    def compare_chains(self, doc: Any, written: list[str | None], elements: list) -> None:
        expected: list[str | None] = [None] * len(doc.markables)
        for k, group in enumerate(doc.chain_indices(), 1):
            for i in group:
                expected[i] = str(k)
        for i, (got, want) in enumerate(zip(written, expected)):
            if got != want:
                self.report.warning(
                    "raf.chain-mismatch",
                    "chain attributes that disagree with the chains the links and entities give "
                    "(viewers read the attribute)", line=elements[i].sourceline, file=self.file,
                    document=doc.label, merge=True,
                    example=f"{doc.markables[i].ref}: chain={got!r}, expected {want!r}")

    def region(self, el: Any) -> Any:
        kind = el.get("kind")
        start, end = self.int_attr(el, "start"), self.int_attr(el, "end")
        if not kind or start is None or end is None:
            if not kind:
                self.fail("region without a kind", el)
            return None
        attrs: dict[str, Any] = {}
        for f in el:
            if f.tag == "feat" and f.get("type") == "attribute":
                name = f.get("name")
                if name:
                    attrs[name] = self.text_of(f)
                else:
                    self.fail("attribute feat without a name", f)
            else:
                self.unexpected(f, "region")
        return model.Region(type=kind, start=start, end=end, id=el.get("id"), attributes=attrs)

    def primary_data(self, pd: Any) -> tuple[Any, list]:
        """Tokens and sentences; the words are gathered first and decoded column by
        column (list comprehensions over lxml's C iteration: 10⁵–10⁶ words)."""
        explicit_ids = pd.get("ids") == "yes"
        has_ws = pd.get("whitespace") == "yes"
        has_offsets = pd.get("offsets") == "yes"
        names: list[str] = []
        words: list = []
        sentences: list = []
        for child in pd:
            tag = child.tag
            if tag == "w":
                words.append(child)
            elif tag == "struct" and child.get("type") == "sentence":
                first = len(words)
                found = child.findall("w")
                if len(found) != len(child) or (found and found[0].getprevious() is not None):
                    comments, interleaved, attrs = self.sentence_feats(child)
                else:
                    comments, interleaved, attrs = [], [], {}
                words.extend(found)
                if len(words) == first:
                    self.fail("sentence without words", child)
                    continue
                sentences.append(model.Sentence(
                    first=first, last=len(words) - 1, id=child.get("id"), comments=comments,
                    interleaved=interleaved, attributes=attrs))
            elif tag == "feat" and child.get("type") == "column":
                column = child.get("name")
                if column and column not in names:
                    names.append(column)
                else:
                    self.fail(f"column feat without a name or repeated: {column!r}", child)
            else:
                self.unexpected(child, "primary_data")
        n = len(words)
        if sentences and (sentences[-1].last != n - 1 or sentences[0].first != 0):
            self.fail("words outside sentences: put every word in a sentence or none", pd)
        forms = [w.text for w in words]
        if any(map(len, words)):  # (one C loop: a word with children is rare)
            for i in [i for i, w in enumerate(words) if len(w)]:
                forms[i] = self.text_of(words[i])
        if None in forms:
            forms = [f if f is not None else "" for f in forms]
        ids = None
        if explicit_ids:
            ids = [w.get("id") for w in words]
            if None in ids:
                self.fail("every word needs an id where the primary data says ids=\"yes\"",
                          words[ids.index(None)])
        whitespace = None
        if has_ws:
            whitespace = [w.get("ws") for w in words]
            if None in whitespace:
                whitespace = [" " if x is None else x for x in whitespace]
        offsets = self.offsets(words, forms, whitespace) if has_offsets else None
        if self.check_view:
            numbers = [w.get("n") for w in words]
            for i, number in enumerate(numbers):
                if number is not None and number != str(i + 1):
                    self.report.warning(
                        "raf.word-number", "word numbers (n) that are not the word's position "
                        "(spans count positions; viewers read n)", line=words[i].sourceline,
                        file=self.file, merge=True, example=f"n={number!r} on word {i + 1}")
        columns: dict[str, list[str | None]] = {name: [None] * n for name in names}
        packed = [w.get("v") for w in words]
        if names or any(p is not None for p in packed):
            self.unpack_columns(packed, columns, words)
        # words are looked at only when the primary data says some are empty
        empty = [i for i, w in enumerate(words) if w.get("empty") == "yes"] or None \
            if pd.get("empty") == "yes" else None
        tokens = model.Tokens(forms=forms, ids=ids, whitespace=whitespace, offsets=offsets,
                                    attributes=columns, empty=empty)
        return tokens, sentences

    def sentence_feats(self, s_el: Any) -> tuple[list, list, dict]:
        comments: list[str] = []
        interleaved: list[tuple[int, str]] = []
        attrs: dict[str, Any] = {}
        seen_word = False
        for f in s_el:
            if f.tag == "w":
                seen_word = True
                continue
            t = f.get("type") if f.tag == "feat" else None
            if seen_word and t is not None:
                self.unexpected(f, "sentence (feats come before the words)")
            elif t == "comment":
                comments.append(self.text_of(f))
            elif t == "interleaved":
                before = self.int_attr(f, "before")
                if before is not None:
                    interleaved.append((before, self.text_of(f)))
            elif t == "attribute":
                self.attribute(f, attrs)
            else:
                self.unexpected(f, "sentence")
        return comments, interleaved, attrs

    def offsets(self, words: list, forms: list[str], whitespace: list[str] | None) -> list[tuple[int, int]]:
        out = []
        expected = 0
        for w, form, after in zip(words, forms, whitespace if whitespace is not None else [" "] * len(words)):
            s, e = w.get("s"), w.get("e")
            try:
                start = expected if s is None else int(s)
                end = start + len(form) if e is None else int(e)
            except ValueError:
                self.fail(f"word offsets must be integers (s={s!r}, e={e!r})", w)
                start = end = expected
            out.append((start, end))
            expected = end + len(after)
        return out

    def unpack_columns(self, packed: list, columns: dict[str, list], words: list) -> None:
        """Decode the ``v`` attributes into the columns (transposed in one go when every
        word has plain values, the common case)."""
        width = len(columns)
        names = list(columns)
        if width and packed and None not in packed:
            # every word with width - 1 separators and no escape: the values are the fields
            # of all the words joined, every width-th one a column (str methods over the
            # whole list, no Python loop per word)
            joined = "|".join(packed)
            if "\\" not in joined and set(map(str.count, packed, repeat("|", len(packed)))) == {width - 1}:
                every = joined.split("|")
                for k, name in enumerate(names):
                    values = every[k::width]
                    columns[name] = [v or None for v in values] if "" in values else values
                return
        lists = list(columns.values())
        empty = "|" * (width - 1) if width else None
        for i, p in enumerate(packed):
            if p is None or p == empty:
                continue
            plain = "\\" not in p
            fields: list[Any] = p.split("|") if plain else _unpack(p)
            if len(fields) != width:
                self.fail(f"word {i + 1} has {len(fields)} attribute value(s) for {width} column(s)", words[i])
                continue
            for column, v in zip(lists, fields):
                column[i] = (v or None) if plain else v

    def markable(self, el: Any, n: int) -> Any:
        g = el.get
        mid = g("id")
        if not mid:
            self.fail("markable without an id", el)
            return None
        span = g("span")
        if span is not None and not len(el) and "," not in span and g("head") is None and g("min") is None \
                and g("optional") is None:
            # the common case: one range, no children
            a, sep, b = span.partition("..")
            try:
                first = int(a)
                last = int(b) if sep else first
            except ValueError:
                first = last = 0
            if 1 <= first <= last <= n:
                return _new_markable(mid, ((first - 1, last - 1),), g("entity"), g("layer"))
        spans: list = []
        ok = True
        if span is not None:
            got = self.ranges(span, ",", n, el, f"markable {mid!r} span")
            if got is None:
                ok = False
            else:
                spans.extend(got)
        sets: dict[str, str] = {}
        attrs: dict[str, Any] = {}
        if len(el):
            for f in el:
                t = f.get("type") if f.tag == "feat" else None
                if t == "span":
                    got = self.ranges(f.get("span", ""), ",", n, f, f"markable {mid!r} span")
                    if got is None:
                        ok = False
                    else:
                        spans.extend(got)
                elif t == "attribute":
                    self.attribute(f, attrs)
                elif t == "set":
                    name = f.get("name")
                    if name:
                        sets[name] = self.text_of(f)
                    else:
                        self.fail("set feat without a name", f)
                else:
                    self.unexpected(f, "markable")
        head = min_ = None
        if g("head") is not None:
            head = self.ranges(g("head"), ",", n, el, f"markable {mid!r} head")
            ok = ok and head is not None
        if g("min") is not None:
            min_ = self.ranges(g("min"), "|", n, el, f"markable {mid!r} min")
            ok = ok and min_ is not None
        optional = g("optional")
        if optional not in (None, "true", "false"):
            self.fail(f"markable {mid!r}: optional is true or false, not {optional!r}", el)
            ok = False
        if not ok:
            return None
        if not spans:
            self.fail(f"markable {mid!r} has no span", el, "raf.empty-target")
            return None
        if len(spans) > 1:
            spans = _normalise(spans)
        return model.Markable.fast(mid, tuple(spans), g("entity"), head, attrs, layer=g("layer"), sets=sets,
                                   min=min_, optional=optional == "true")

    def reflink(self, el: Any) -> Any:
        g = el.get
        lid = g("id")
        if not lid:
            self.fail("reflink without an id", el)
            return None
        source = g("source")
        target = g("target")
        targets = [] if target is None else [target]
        attrs: dict[str, Any] = {}
        if len(el):
            for f in el:
                t = f.get("type") if f.tag == "feat" else None
                if t == "target":
                    value = f.get("target")
                    if value is None:
                        self.fail(f"reflink {lid!r}: target feat without a target attribute", f)
                        return None
                    targets.append(value)
                elif t == "attribute":
                    self.attribute(f, attrs)
                else:
                    self.unexpected(f, "reflink")
        kind = g("kind", "markable")
        if kind not in ("markable", "entity"):
            self.fail(f"reflink {lid!r}: kind is markable or entity, not {kind!r}", el)
            return None
        ltype = g("reflinktype", COREFERENCE)
        if source is None or not targets or not ltype:
            self.fail(f"reflink {lid!r} needs a source, a target and a non-empty reflinktype", el)
            return None
        return model.Link.fast(lid, source, tuple(targets), ltype, kind, attrs)


class _V1:
    """RAF 1.0 documents: ``<struct type="word">`` with feats, ``sourcetext`` targets by
    word id, one ``target`` per reflink."""

    def __init__(self, reader: _Reader) -> None:
        self.r = reader

    def document(self, el: Any) -> Any:
        r = self.r
        name = el.get("name")
        if name is None:
            r.fail("document without a name attribute", el)
            name = ""
        errors_before = r.errors
        metadata: dict[str, str] = {}
        tokens = model.Tokens(forms=[], ids=None, whitespace=None, offsets=None, attributes={})
        sentences: list = []
        id_index: dict[str, int] = {}
        entities = []
        markables = []
        links = []
        seen: set[tuple[str, str]] = set()
        link_els = []
        for child in el:
            if not isinstance(child.tag, str):
                r.unexpected(child, "document")
                continue
            t = child.get("type")
            if child.tag == "feat" and t == "metadata" and child.get("name"):
                metadata[child.get("name")] = r.text_of(child)
            elif child.tag == "struct" and t == "primary_data":
                tokens, sentences, id_index = self.primary_data(child)
            elif child.tag == "struct" and t == "entity":
                entity = r.entity(child)
                if entity is None:
                    continue
                if ("e", entity.id) in seen:
                    r.fail(f"duplicate entity id {entity.id!r}", child, "raf.duplicate-id")
                seen.add(("e", entity.id))
                entities.append(entity)
            elif child.tag == "struct" and t == "markable":
                m = self.markable(child, id_index, tokens)
                if m is not None:
                    if ("m", m.id) in seen:
                        r.fail(f"duplicate markable id {m.id!r}", child, "raf.duplicate-id")
                    seen.add(("m", m.id))
                    markables.append(m)
            elif child.tag == "struct" and t == "reflink":
                link = self.reflink(child)
                if link is not None:
                    if ("l", link.id) in seen:
                        r.fail(f"duplicate reflink id {link.id!r}", child, "raf.duplicate-id")
                    seen.add(("l", link.id))
                    links.append(link)
                    link_els.append(child)
            else:
                r.unexpected(child, "document")
        markable_ids = {m.id for m in markables}
        entity_ids = {e.id for e in entities} | {m.entity for m in markables if m.entity is not None}
        for link, l_el in zip(links, link_els):
            if link.source not in markable_ids:
                r.fail(f"reflink {link.id!r}: source {link.source!r} is not a markable", l_el, "raf.dangling-link")
            pool = markable_ids if link.target_kind == "markable" else entity_ids
            if link.target not in pool:
                r.fail(f"reflink {link.id!r}: target {link.target!r} is not a {link.target_kind}", l_el,
                       "raf.dangling-link")
        if r.errors > errors_before:
            return None
        try:
            return model.Document.build(name=name, part=el.get("part"), metadata=metadata, tokens=tokens,
                                        sentences=sentences, markables=markables, entities=entities, links=links)
        except ModelError as exc:
            for p in exc.problems:
                r.fail(p, el, "model.invariant")
            return None

    def primary_data(self, pd: Any):
        r = self.r
        forms: list[str] = []
        ids: list[str] = []
        whitespace: list[str | None] = []
        offsets: list[tuple[int, int] | None] = []
        columns: dict[str, list[str | None]] = {}
        sentences: list = []
        seen_ids: dict[str, int] = {}
        extra: list[tuple[int, str, str]] = []

        def word(w: Any) -> None:
            wid = w.get("id")
            if not wid:
                r.fail("word without an id", w)
                wid = f"__missing_{len(forms)}"
            if wid in seen_ids:
                r.fail(f"duplicate word id {wid!r}", w, "raf.duplicate-id")
            seen_ids[wid] = len(forms)
            form = None
            for f in w:
                t = f.get("type") if f.tag == "feat" else None
                if t == "form":
                    form = r.text_of(f)
                elif t == "attribute":
                    name = f.get("name")
                    if not name:
                        r.fail("token attribute without a name", f)
                        continue
                    extra.append((len(forms), name, r.text_of(f)))
                else:
                    r.unexpected(f, "word")
            if form is None:
                r.fail(f"word {wid!r} has no form", w)
                form = ""
            start, end = w.get("start"), w.get("end")
            if (start is None) != (end is None):
                r.fail(f"word {wid!r} needs both start and end offsets", w)
                offsets.append(None)
            elif start is not None:
                try:
                    offsets.append((int(start), int(end)))
                except ValueError:
                    r.fail(f"word {wid!r} has non-integer offsets", w)
                    offsets.append(None)
            else:
                offsets.append(None)
            whitespace.append(w.get("after"))
            forms.append(form)
            ids.append(wid)

        for child in pd:
            t = child.get("type") if isinstance(child.tag, str) else None
            if child.tag == "feat" and t == "column":
                name = child.get("name")
                if name:
                    columns.setdefault(name, [])
                else:
                    r.fail("column feat without a name", child)
            elif child.tag == "struct" and t == "word":
                word(child)
            elif child.tag == "struct" and t == "sentence":
                first = len(forms)
                comments: list[str] = []
                interleaved: list[tuple[int, str]] = []
                sattrs: dict[str, Any] = {}
                for c in child:
                    ct = c.get("type") if isinstance(c.tag, str) else None
                    if c.tag == "struct" and ct == "word":
                        word(c)
                    elif c.tag == "feat" and ct == "comment":
                        comments.append(r.text_of(c))
                    elif c.tag == "feat" and ct == "interleaved":
                        before = r.int_attr(c, "before")
                        if before is not None:
                            interleaved.append((before, r.text_of(c)))
                    elif c.tag == "feat" and ct == "attribute":
                        r.attribute(c, sattrs)
                    else:
                        r.unexpected(c, "sentence")
                if len(forms) == first:
                    r.fail("sentence without words", child)
                    continue
                sentences.append(model.Sentence(first=first, last=len(forms) - 1, id=child.get("id"),
                                                      comments=comments, interleaved=interleaved,
                                                      attributes=sattrs))
            else:
                r.unexpected(child, "primary_data")
        n = len(forms)
        if sentences and sentences[-1].last != n - 1:
            r.fail("words outside sentences: put every word in a sentence or none", pd)
        for name in list(columns):
            columns[name] = [None] * n
        for i, name, value in extra:
            columns.setdefault(name, [None] * n)[i] = value
        ws_given = [w is not None for w in whitespace]
        if any(ws_given) and not all(ws_given):
            r.fail("'after' must be given on every word or on none", pd)
        off_given = [o is not None for o in offsets]
        if any(off_given) and not all(off_given):
            r.fail("offsets must be given on every word or on none", pd)
        default_ids = all(wid == f"word_{k + 1}" for k, wid in enumerate(ids))
        tokens = model.Tokens(
            forms=forms, ids=None if default_ids else ids,
            whitespace=list(whitespace) if all(ws_given) and n else None,
            offsets=list(offsets) if all(off_given) and n else None,
            attributes=columns)
        return tokens, sentences, seen_ids

    def targets(self, target: str, id_index: dict[str, int], el: Any) -> list | None:
        spans = []
        for part in target.split(","):
            part = part.strip()
            a, sep, b = part.partition("..")
            if not sep:
                b = a
            if a not in id_index or b not in id_index:
                missing = a if a not in id_index else b
                self.r.fail(f"target {target!r} names unknown word {missing!r}", el, "raf.dangling-target")
                return None
            ia, ib = id_index[a], id_index[b]
            if ia > ib:
                self.r.fail(f"target range {part!r} runs backwards", el)
                return None
            spans.append((ia, ib))
        return spans

    def markable(self, el: Any, id_index: dict[str, int], tokens: Any) -> Any:
        r = self.r
        mid = el.get("id")
        if not mid:
            r.fail("markable without an id", el)
            return None
        spans: list = []
        texts: list = []
        entity = head = None
        attrs: dict[str, Any] = {}
        ok = True
        for f in el:
            t = f.get("type") if f.tag == "feat" else None
            if t == "sourcetext":
                got = self.targets(f.get("target", ""), id_index, f)
                if got is None:
                    ok = False
                else:
                    spans.extend(got)
                    texts.append((r.text_of(f), f))
            elif t == "entity":
                entity = f.get("target")
            elif t == "head":
                got = self.targets(f.get("target", ""), id_index, f)
                if got is None:
                    ok = False
                else:
                    head = tuple(_normalise(got))
            elif t == "attribute":
                r.attribute(f, attrs)
            else:
                r.unexpected(f, "markable")
        if not ok:
            return None
        if not spans:
            r.fail(f"markable {mid!r} has no sourcetext target", el, "raf.empty-target")
            return None
        normal = tuple(_normalise(spans))
        if len(texts) == len(spans) and len(normal) == len(spans):
            for (text, f), span in zip(texts, spans):
                if text:
                    expected = _span_text(tokens, span)
                    if " ".join(text.split()) != " ".join(expected.split()):
                        r.report.warning(
                            "raf.sourcetext-mismatch",
                            f"markable {mid!r}: sourcetext {text!r} differs from the words it targets "
                            f"({expected!r}); the words win", line=f.sourceline, file=r.file, merge=False)
        return model.Markable.fast(mid, normal, entity, head, attrs)

    def reflink(self, el: Any) -> Any:
        r = self.r
        lid = el.get("id")
        if not lid:
            r.fail("reflink without an id", el)
            return None
        ltype = source = target = None
        kind = "markable"
        attrs: dict[str, Any] = {}
        for f in el:
            t = f.get("type") if f.tag == "feat" else None
            if t == "reflinktype":
                ltype = r.text_of(f).strip()
            elif t == "source":
                source = f.get("target")
            elif t == "target":
                target = f.get("target")
                kind = f.get("kind", "markable")
                if kind not in ("markable", "entity"):
                    r.fail(f"reflink {lid!r}: target kind must be markable or entity", f)
                    return None
            elif t == "attribute":
                r.attribute(f, attrs)
            else:
                r.unexpected(f, "reflink")
        if not ltype or source is None or target is None:
            r.fail(f"reflink {lid!r} needs reflinktype, source and target", el)
            return None
        return model.Link.fast(lid, source, (target,), ltype, kind, attrs)


def _new_markable(mid: str, spans: tuple, entity: str | None, layer: str | None) -> dict[str, Any]:
    """The fields of a markable with one span and nothing else (built in a batch)."""
    return {"id": mid, "spans": spans, "entity": entity, "head": None, "attributes": {}, "layer": layer,
            "sets": {}, "min": None, "optional": False}


def _normalise(spans: list) -> list:
    """Sort spans and merge overlapping or adjacent ones (the model's canonical form)."""
    out: list = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _span_text(tokens: Any, span: tuple[int, int]) -> str:
    a, b = span
    if tokens.whitespace is None:
        return " ".join(tokens.forms[a : b + 1])
    return "".join(tokens.forms[i] + (tokens.whitespace[i] if i < b else "") for i in range(a, b + 1))


#: schema violations a file's reading lists (then it counts the others)
SCHEMA_LIMIT = 200


class ReportedErrors(FormatError):
    """Raised once the whole file has been read when the reader found errors: each of
    them is in the report already, with its line; this one names the first."""


# -- parsing, streamed ----------------------------------------------------------------------
class RafStream:
    """The documents of a RAF file one at a time. ``header`` (a :class:`Corpus` without
    documents: metadata, schemes, layout) is complete once the first document has been
    given, or at the end for a file without documents.

    ``tree``: walk an already parsed tree instead of parsing; ``check_view``: also
    compare the ``chain`` and ``n`` attributes with what they should be.

    A file that is not well-formed XML raises :class:`FormatError` at the first syntax
    error, with its line and column; it is never repaired (see the module docstring)."""

    def __init__(self, source: Source, report: Report, strict: bool, *, check_view: bool = False,
                 tree: Any = None) -> None:
        self.source = source
        self.reader = _Reader(source.name, report, strict, check_view=check_view)
        self.header = model.Corpus(documents=[], metadata={}, schemes=[], layout={})
        self._tree = tree
        self._iter = self._run()
        #: schema violations reported so far (at most SCHEMA_LIMIT are listed)
        self.schema_violations = 0

    def _schema(self, el: Any) -> None:
        """Warn where ``schemas/raf.xsd`` refuses what the reader reads (an attribute it
        does not know, a number that is not one, text between elements...), so that
        reading says what ``corefio validate`` calls an error (``schema.invalid``): each
        child of the root is checked by libxml2 once it is parsed, before it is freed
        (a sixth of the reading time); the root's own attributes by :meth:`_check_root`."""
        schema = load_schema("raf.xsd")
        try:
            valid = schema.validate(el)
        except etree.XMLSchemaValidateError:
            valid = True  # unexpanded entity references, which the reader reports itself
        if not valid:
            for err in schema.error_log:
                self._schema_warning(err.message, err.line)

    def _text_in_root(self, text: str | None, line: int | None) -> None:
        """Text between the children of the root (the schema allows none): ignored, said."""
        if text is not None and text.strip():
            self._schema_warning(f"text {text.strip()[:30]!r} between the elements of the collection (ignored)",
                                 line)

    def _schema_warning(self, message: str, line: int | None) -> None:
        self.schema_violations += 1
        if self.schema_violations <= SCHEMA_LIMIT:
            self.reader.report.warning("schema.invalid", message, line=line or None, file=self.source.name)

    def __iter__(self) -> "RafStream":
        return self

    def __next__(self) -> Any:
        return next(self._iter)

    def _check_root(self, root: Any) -> None:
        if root is None or root.tag != "struct" or root.get("type") != ROOT_TYPE:
            tag = root.tag if root is not None else None
            raise FormatError(
                f"not a RAF file: root element is <{tag} type={root.get('type') if root is not None else None!r}>, "
                f"expected <struct type=\"{ROOT_TYPE}\">",
                file=self.source.name, line=root.sourceline if root is not None else None)
        dtd = root.getroottree().docinfo.internalDTD
        if dtd is not None:
            for entity in dtd.iterentities():
                raise UnsafeInputError(
                    f"XML entity declarations are not accepted (found <!ENTITY {entity.name}>)",
                    file=self.source.name)
        self.reader.version = root.get("version") or ""
        self._schema(etree.Element(root.tag, dict(root.attrib)))  # its attributes, without its children

    def _top(self, el: Any) -> Any:
        """Handle one child of the root; a document is returned (or None)."""
        r = self.reader
        tag = el.tag
        doc = None
        if tag == "struct" and el.get("type") == "document":
            doc = r.document(el)
        elif tag == "feat":
            h = self.header
            r.top_feat(el, h.metadata, h.schemes, h.layout, h.cross_entities)
        else:
            r.unexpected(el, "the collection")
        self._schema(el)  # (after the reader's own findings, which say more)
        return doc

    def _run(self) -> Iterator[Any]:
        if self._tree is not None:
            top = self._tree.getroot()
            self._check_root(top)
            self._text_in_root(top.text, top.sourceline)
            for el in top:
                doc = self._top(el)
                self._text_in_root(el.tail, el.sourceline)
                el.clear()  # the document is built: free its elements
                if doc is not None:
                    yield doc
            self._finish()
            return
        with self.source.open() as stream:
            head = stream.read(65536)
            _refuse_entity_declarations_early(head, self.source.name)
            stream.seek(0)
            parser = etree.iterparse(stream, events=("start", "end"), tag=("struct", "feat"),
                                     **_parser_options())
            root: Any = None
            root_closed = False
            try:
                for event, el in parser:
                    if event == "start":
                        if root is None:
                            root = el
                            self._check_root(root)
                        continue
                    if el is root:
                        root_closed = True
                        continue
                    if el.getparent() is not root:
                        continue
                    doc = self._top(el)
                    el.clear(keep_tail=True)  # (the text after it is looked at once parsed, below)
                    while el.getprevious() is not None:
                        first = root[0]
                        self._text_in_root(first.tail, first.sourceline)
                        if first.tag not in ("struct", "feat"):  # never given as an event
                            self.reader.unexpected(first, "the collection")
                            if isinstance(first.tag, str):
                                self._schema(first)
                        del root[0]
                    if doc is not None:
                        yield doc
                if root is None:
                    self._check_root(parser.root)
                for c in root:
                    if c.tag not in ("struct", "feat"):
                        self.reader.unexpected(c, "the collection")
                        if isinstance(c.tag, str):
                            self._schema(c)
                    self._text_in_root(c.tail, c.sourceline)
                self._text_in_root(root.text, root.sourceline)
            except etree.XMLSyntaxError as exc:
                # RAF is written by programs: a file that is not well-formed (cut short,
                # trailing text, an unclosed comment…) is damaged, and reading it anyway
                # would give fewer annotations than it was written with
                bad_xml: Any = exc
            else:
                bad_xml = None
        if bad_xml is not None:
            line, column = bad_xml.position or (None, None)
            if root_closed or line is None:
                cut = False
            else:
                with self.source.open() as stream:
                    cut = _at_the_end(stream, line, column)
            raise _syntax_error(bad_xml, self.source.name, cut_short=cut) from None
        self._finish()

    def _finish(self) -> None:
        r = self.reader
        if self.schema_violations > SCHEMA_LIMIT:
            r.report.warning("schema.invalid", f"{self.schema_violations - SCHEMA_LIMIT} more schema "
                             "violation(s) not shown", file=self.source.name)
        if r.errors:
            first = r.report.errors[0] if r.report.errors else None
            raise ReportedErrors(
                f"{r.errors} error(s) in RAF file; first: {first.message if first else '?'}",
                file=self.source.name, line=first.line if first else None)


def stream(source: Source, *, report: Report, strict: bool = False) -> RafStream:
    """The documents one at a time (lxml iterparse; each document is freed once given)."""
    return RafStream(Source.of(source), report, strict)


def read(source: Source, *, report: Report, strict: bool = False) -> Any:
    """The whole corpus. Raises :class:`FormatError` naming the first error's line after
    every error of the file has been added to ``report``."""
    s = RafStream(Source.of(source), report, strict)
    documents = list(s)
    h = s.header
    return model.Corpus(documents=documents, metadata=h.metadata, schemes=h.schemes, layout=h.layout,
                        cross_entities=h.cross_entities)


def loads(data: bytes | str, *, report: Report | None = None, strict: bool = False, file: str | None = None) -> Any:
    """Read RAF from memory (tests and tools; ``corefio.loads(data, "raf")`` does the same)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    report = report if report is not None else Report(file)
    return read(Source.of(data, file), report=report, strict=strict)


def sniff(head: bytes) -> bool:
    return b"<struct" in head and ROOT_TYPE.encode() in head


register(
    FormatSpec(
        name="raf",
        description="RAF pivot XML 2.0 (struct/feat markup, compact): holds everything the model holds",
        extensions=(".raf", ".raf.xml"),
        ambiguous_extensions=(".xml",),
        capabilities=Capabilities(**{f.name: True for f in dataclasses.fields(Capabilities)}),
        read=read,
        stream=stream,
        write=write,
        sniff=sniff,
    )
)
