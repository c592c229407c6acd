"""Safe XML parsing: no network, no external entities, no DTD loading, no expansion.

Every XML reader in corefio parses through :func:`parse_xml`. The parser never fetches
anything (``no_network``), never loads a DTD, and never resolves entities. A document
whose internal DTD subset declares any entity is refused outright, before its content is
looked at: that covers external-entity disclosure (XXE) and expansion bombs ("billion
laughs", quadratic blow-up) alike, and such declarations have no legitimate use in the
coreference formats corefio reads. A ``<!DOCTYPE x SYSTEM "file.dtd">`` line (MMAX2
writes one) is accepted and ignored.

Depth: elements nested more than :data:`MAX_DEPTH` (256) levels deep are refused while
parsing, at the element that goes too deep. The limit is libxml2's own when its "huge"
option is off, which it always is in corefio; it costs nothing, since the parser stops
there. Real files nest far less (a RAF word is 5 levels deep, MUC and MATE mentions
rarely nest 20 deep), and a document nested thousands of levels deep is an attack on the
tree code and recursive code behind the parser, not data.

Entity references: a document with a DOCTYPE may use entities its DTD declares; the DTD
is never loaded, so libxml2 would leave such a reference empty (in text) or drop it (in an
attribute value), and a processor that loads the DTD (xsltproc) would fill it in. Either
way a word or a value would silently differ between engines, so any reference to an
entity other than the five XML predefines is refused (:class:`UnsafeInputError` at the
line of the first), by every reader and engine. Without a DOCTYPE libxml2 refuses such a
reference itself as not well-formed.

Every syntax error is a :class:`NotWellFormedError` with its line and column; too deep
a nesting is a :class:`NestingTooDeepError`, which is also an :class:`UnsafeInputError`:
readers that repair XML in lenient mode refuse it at once instead.
"""

from __future__ import annotations

import re
from pathlib import Path

from typing import TYPE_CHECKING

from ._lazy import LazyModule
from ..errors import FormatError, UnsafeInputError

if TYPE_CHECKING:
    from lxml import etree
else:  # imported on first use: scoring CoNLL never parses XML
    etree = LazyModule("lxml.etree")


#: how deep elements may nest (libxml2's limit without XML_PARSE_HUGE; see above)
MAX_DEPTH = 256


class NotWellFormedError(FormatError):
    """Input that is not well-formed XML."""


class NestingTooDeepError(NotWellFormedError, UnsafeInputError):
    """Elements nested deeper than :data:`MAX_DEPTH`: hostile, never worth repairing."""


def syntax_error(exc: etree.XMLSyntaxError, file: str | Path | None, note: str = "") -> NotWellFormedError:
    """The located error for lxml's ``exc``; ``note`` is added to its message."""
    line, column = exc.position if exc.position else (exc.lineno, None)
    msg = exc.msg or str(exc)
    # lxml appends "(<string>, line N)"; our location says it already
    msg = msg.split(", line ")[0] if ", line " in msg else msg
    if msg.startswith("Excessive depth in document"):
        return NestingTooDeepError(f"elements nest more than {MAX_DEPTH} levels deep: refused (corefio's "
                                   "limit for XML; real files nest far less)", file=file, line=line, column=column)
    return NotWellFormedError(f"not well-formed XML: {msg}{note}", file=file, line=line, column=column)


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,  # keeps libxml2's depth limit (MAX_DEPTH) and its size limits
        # collect_ids must stay at its default: with collect_ids=False libxml2 tries to
        # fetch the external DTD subset (found by tests/test_hostile_inputs.py)
    )


def parse_xml(source: str | Path | bytes, *, file: str | Path | None = None) -> etree._ElementTree:
    """Parse ``source`` (a path or bytes) safely; raise :class:`FormatError` on bad XML."""
    if isinstance(source, (str, Path)) and not isinstance(source, bytes):
        file = file if file is not None else source
        try:
            data = Path(source).read_bytes()
        except OSError as exc:
            raise FormatError(f"cannot read file: {exc.strerror}", file=file) from None
    else:
        data = source
    _refuse_entity_declarations_early(data, file)
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as exc:
        raise syntax_error(exc, file) from None
    tree = root.getroottree()
    dtd = tree.docinfo.internalDTD
    if dtd is not None:
        for entity in dtd.iterentities():
            raise UnsafeInputError(
                f"XML entity declarations are not accepted (found <!ENTITY {entity.name}>): "
                "corefio does not expand entities, which protects against external-entity "
                "and entity-expansion attacks",
                file=file,
            )
    if tree.docinfo.doctype:
        refuse_entity_references(data, file, tree.docinfo.encoding)
    return tree


#: a reference to an entity other than the five XML predefines (character references
#: start "&#"), in bytes of an ASCII-based encoding and in text
_REFERENCE_BYTES = re.compile(rb"&(?!(?:amp|lt|gt|quot|apos);)[^\s&;#<>\"']+;")
_REFERENCE_TEXT = re.compile(r"&(?!(?:amp|lt|gt|quot|apos);)[^\s&;#<>\"']+;")


def refuse_entity_references(data: bytes, file: str | Path | None, encoding: str | None = None) -> None:
    """Refuse ``data`` (an XML document with a DOCTYPE) when it refers to an entity other
    than the five XML predefines: its value would come from a DTD corefio does not load
    (see the module docstring). Comments, CDATA and processing instructions are searched
    too (a false alarm there is a refusal of a DOCTYPE'd file that plays with ``&``)."""
    if b"&" not in data:
        return
    wide = data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data[:4]
    if not wide:
        found = _REFERENCE_BYTES.search(data)
        if found is None:
            return
        line = data.count(b"\n", 0, found.start()) + 1
        shown = found.group().decode("latin-1")
    else:
        text = data.decode(encoding or "utf-16", "replace")
        found_text = _REFERENCE_TEXT.search(text)
        if found_text is None:
            return
        line = text.count("\n", 0, found_text.start()) + 1
        shown = found_text.group()
    raise UnsafeInputError(f"entity reference {shown[:60]} refused: corefio expands no entities (its value "
                           "would come from a DTD corefio does not load)", file=file, line=line)


def _refuse_entity_declarations_early(data: bytes, file: str | Path | None) -> None:
    """Refuse ``<!ENTITY`` in the prolog before libxml2 sees it (fail fast and small)."""
    head = data[:65536]
    start = head.find(b"<!DOCTYPE")
    if start < 0:
        return
    end = head.find(b"]>", start)
    subset = head[start : end if end >= 0 else len(head)]
    if b"<!ENTITY" in subset:
        line = head[: start + subset.find(b"<!ENTITY")].count(b"\n") + 1
        raise UnsafeInputError(
            "XML entity declarations are not accepted: corefio does not expand entities, "
            "which protects against external-entity and entity-expansion attacks",
            file=file,
            line=line,
        )


def line_of(element: etree._Element) -> int | None:
    return element.sourceline
