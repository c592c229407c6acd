"""Repairing XML-ish input (MUC SGML, hand-edited MMAX2 or RAF files) into well-formed XML.

Real annotation files are often not XML: MUC-6/7 files are SGML with several ``<DOC>``
elements and no root, unquoted attribute values (``<STORYID cat=w pri=u>``), paragraphs
whose ``</p>`` is omitted, entity references nobody declared (``&MD;``, ``&LR;``), and
system outputs add mis-nested or missing end tags. This module turns such input into
well-formed XML through a chain of small **fixers**. Each fixer works on the token list
of :func:`lex`, can run alone, and returns one :class:`Change` per edit, located at the
line and column of the *input* where the edit happened.

The fixers, in the order :func:`repair_text` runs them:

=========================== ============================================================
``encoding``                decode a declared (``<?xml encoding=…?>``) or detected legacy
                            encoding (not UTF-8: Windows-1252, else Latin-1); the output
                            is UTF-8 (:func:`decode`, runs on bytes)
``attribute-case``          attribute names spelled with another case than their first
                            use on the same element type get that first spelling
``attribute-quotes``        unquoted values get quotes; a value-less attribute
                            (SGML minimisation) gets its own name as value
``duplicate-attribute``     a repeated attribute in one tag: the later one is dropped
``entities``                undeclared entity references (``&MD;``) become the text
                            ``&amp;MD;``; their names are listed in a
                            ``<?corefio-entities MD …?>`` processing instruction so that
                            :func:`restore_sgml` (and the MUC reader) can write them as
                            entity references again; or (``entities="declare"``) they
                            stay and a ``<!DOCTYPE … [<!ENTITY MD "&#38;#38;MD;">]>``
                            declares each as the text of its own reference;
                            a character reference to a code point XML cannot hold
                            (``&#xD800;``, ``&#0;``) becomes the text ``&amp;#xD800;``
``stray-ampersand``         a ``&`` or ``<`` that starts no reference or tag becomes
                            ``&amp;`` or ``&lt;``
``nesting``                 end tags: a stray one (nothing of its name open) is dropped;
                            an end tag closes the innermost open element of its name and
                            the elements above it: an element whose end tag never comes
                            (an unclosed ``<p>``) is closed there; a mis-nested one is
                            closed and reopened after it (at most as many reopenings as
                            the input has tokens), except an element with an ``ID`` (a
                            ``COREF``: reopening would duplicate its id), which is closed
                            early and loses its later end tag; a start tag closes an open
                            element of its name whose end tag never comes, unless that
                            has an ``ID`` (COREFs nest); an end tag spelled with another
                            case than its start tag takes the start tag's spelling;
                            elements still open at the end are closed there. MUC input
                            is nested as the MUC reader reads it (:func:`fix_nesting`)
``root``                    an XML declaration is added when missing; a file with several
                            top-level elements or top-level text is wrapped in
                            ``<corefio-root>``
=========================== ============================================================

The lexer and the fixers take time linear in the size of the input, whatever it holds
(unclosed comments, quotes or declarations, runs of ``<`` or ``&``, deep or crossing
tags): see :class:`_Scanner`. While :func:`counting` is on, they count their work
(:class:`Work`: the characters their searches look at, and their steps), which the
tests bound by the length of the input instead of timing runs
(``benchmarks/bench_linear.py`` times them).

The guarantee (property-tested on randomly damaged well-formed files): the character
data of the repaired file equals the character data of the input, where character data
is the text outside markup with the XML predefined entities and character references
decoded (a reference to a code point XML cannot hold, such as a surrogate, counted as
itself), any other entity reference counted as itself (``&MD;``), and a stray ``&`` or
``<`` as itself (:func:`character_data`).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..diagnostics import Report
from ..errors import CorefioError, FormatError, OutputError, StrictModeError

#: entity names XML knows without a declaration
PREDEFINED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
#: the wrapper element added around several top-level elements
ROOT = "corefio-root"
#: the processing instruction that lists mapped SGML entity names
ENTITY_PI = "corefio-entities"
#: the elements whose end tag MUC omits (the MUC reader's rule: ``<p>`` ends the open ``<p>``)
MUC_OMITTED_END = frozenset({"p"})

#: the kinds of tokens :func:`lex` gives, as the module docstring names them
_TEXT = re.compile(r"[^<&]+")
_REF = re.compile(r"&(?:[A-Za-z_:][-\w.:]*|#[0-9]+|#x[0-9A-Fa-f]+);")
_TAG_START = re.compile(r"</?[A-Za-z_:][-\w.:]*")
_SPACE = re.compile(r"\s*")
_ATTR_NAME = re.compile(r"""[^\s"'<>=/]+""")
_UNQUOTED = re.compile(r"""[^\s"'<>]+""")
_SUBSET_END = re.compile(r"\]\s*>")
_SUBSET_OR_END = re.compile(r"[\[>]")
_TAG_NAME = re.compile(r"</?([A-Za-z_:][-\w.:]*)")
_ATTR = re.compile(r"""(\s+)([^\s"'<>=/]+)(?:(\s*=\s*)("[^"]*"|'[^']*'|[^\s"'<>]+))?""")
_REF_IN_VALUE = re.compile(r"&(?:([A-Za-z_:][-\w.:]*)|#[0-9]+|#x[0-9A-Fa-f]+);|&|<")
_XML_DECL = re.compile(r"""^\s*<\?xml\s[^?]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


class Work:
    """The work of the lexers and fixers while :func:`counting` is on: ``chars``, the
    characters their searches and matches looked at; ``steps``, the steps of their
    loops (tokens cut, parts of tags read, open elements looked at when an end tag
    comes). Both grow linearly with the input when nothing is rescanned."""

    __slots__ = ("chars", "steps")

    def __init__(self) -> None:
        self.chars = 0
        self.steps = 0

    @property
    def total(self) -> int:
        return self.chars + self.steps

    def __repr__(self) -> str:
        return f"Work(chars={self.chars}, steps={self.steps})"


_WORK: ContextVar[Work | None] = ContextVar("corefio_scan_work", default=None)


@contextmanager
def counting() -> Iterator[Work]:
    """Count the work of the lexers and fixers (this module's and the MUC reader's)
    done inside the ``with`` block."""
    work = Work()
    token = _WORK.set(work)
    try:
        yield work
    finally:
        _WORK.reset(token)


def current_work() -> Work | None:
    """The :class:`Work` being counted, or None (the common case: nothing is counted)."""
    return _WORK.get()


@dataclass(slots=True)
class Change:
    """One edit made by a fixer, at a line and column (1-based) of the input."""

    fixer: str
    line: int
    column: int
    message: str

    def format(self) -> str:
        return f"{self.line}:{self.column}: [{self.fixer}] {self.message}"


@dataclass(slots=True)
class Attr:
    """One attribute of a tag as written: leading space, name, ``=`` part, value with quotes."""

    space: str
    name: str
    eq: str | None
    value: str | None  #: as written, quotes included; None when the attribute has no value

    @property
    def text(self) -> str | None:
        """The value without quotes (entity references as written)."""
        v = self.value
        if v is None:
            return None
        if v[:1] in "\"'" and len(v) >= 2 and v[-1] == v[0]:
            return v[1:-1]
        return v

    def render(self) -> str:
        if self.value is None:
            return self.space + self.name
        return f"{self.space}{self.name}{self.eq}{self.value}"


@dataclass(slots=True)
class Tok:
    """A lexical item of an XML-ish text: ``kind`` is tag, text, ref, amp, lt, comment,
    cdata, pi or decl. Tags are re-rendered from their parts once ``edited``."""

    kind: str
    raw: str
    line: int
    column: int
    name: str = ""
    closing: bool = False
    empty: bool = False
    attrs: list[Attr] = field(default_factory=list)
    tail: str = ""  #: what follows the attributes inside the tag (space, ``/``)
    edited: bool = False

    def render(self) -> str:
        if not self.edited or self.kind != "tag":
            return self.raw
        if self.closing:
            return f"</{self.name}{self.tail}>"
        return "<" + self.name + "".join(a.render() for a in self.attrs) + self.tail + ">"

    def attr(self, name: str) -> str | None:
        """The value of attribute ``name`` (case-insensitive), quotes removed."""
        low = name.lower()
        for a in self.attrs:
            if a.name.lower() == low:
                return a.text
        return None


def make_tag(name: str, *, closing: bool = False, line: int = 0, column: int = 0,
             attrs: list[Attr] | None = None) -> Tok:
    """A new tag token (rendered from its parts)."""
    return Tok("tag", "", line, column, name, closing, False, list(attrs or []), "", True)


class NextOccurrence:
    """Where a string (or pattern) next occurs at or after a position of one text,
    remembered: asked again from a later position before that occurrence, the answer is
    the same and is not searched again. This is what keeps the lexer linear: an
    unclosed ``<!--`` is followed by no ``-->``, and a thousand of them would otherwise
    each search the rest of the text."""

    def __init__(self, text: str, needle: str | re.Pattern[str]) -> None:
        self.text = text
        self.needle = needle
        self.searched_from = len(text) + 1  # nothing searched yet
        self.start = self.end = -1
        self.work = _WORK.get()

    def at(self, pos: int) -> tuple[int, int]:
        """Start and end of the first occurrence starting at ``pos`` or later; (-1, -1) if none."""
        if not (self.searched_from <= pos and (self.start < 0 or self.start >= pos)):
            self.searched_from = pos
            if isinstance(self.needle, str):
                self.start = self.text.find(self.needle, pos)
                self.end = self.start + len(self.needle) if self.start >= 0 else -1
            else:
                m = self.needle.search(self.text, pos)
                self.start, self.end = (m.start(), m.end()) if m else (-1, -1)
            if self.work is not None:  # the characters the search went through
                self.work.chars += (self.end if self.end >= 0 else len(self.text)) - pos
                self.work.steps += 1
        return self.start, self.end


class _Scanner:
    """Cuts an XML-ish text into (kind, start, end) spans: the rules of the module
    docstring's lexer, in time linear in the length of the text whatever it holds.

    At a ``<``, in this order: a comment up to the first ``-->``, a CDATA section up to
    the first ``]]>``, a processing instruction up to the first ``?>``, a document type
    declaration with an internal subset (``<!DOCTYPE x [`` … ``]>``), another
    declaration (``<!`` and a letter) up to the first ``>``, a tag (name, attributes
    with quoted or unquoted values or none, ``/`` and ``>``); else the ``<`` is a stray
    one. At a ``&``: a reference (``&name;``, ``&#n;``, ``&#xh;``), else a stray one.
    Everything else up to the next ``<`` or ``&`` is text.

    Each search for a terminator is remembered (:class:`NextOccurrence`), and so is the outcome
    of reading a tag from each point where its attributes can go on (after the name and
    after each attribute): a quoted value may hold a ``<``, so a failed tag can start
    inside another one's value, and without the memory every such start would read the
    same attributes again."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.comment_end = NextOccurrence(text, "-->")
        self.cdata_end = NextOccurrence(text, "]]>")
        self.pi_end = NextOccurrence(text, "?>")
        self.decl_end = NextOccurrence(text, ">")
        self.subset_start = NextOccurrence(text, _SUBSET_OR_END)
        self.subset_end = NextOccurrence(text, _SUBSET_END)
        self.quote_end = {'"': NextOccurrence(text, '"'), "'": NextOccurrence(text, "'")}
        self.tag_end: dict[int, int] = {}  # where a tag ends, from a point after its name or an attribute
        self.work = _WORK.get()

    def spans(self) -> Iterator[tuple[str, int, int]]:
        text = self.text
        n = len(text)
        pos = 0
        work = self.work
        while pos < n:
            c = text[pos]
            if c == "<":
                kind, end = self.markup(pos)
            elif c == "&":
                m = _REF.match(text, pos)
                kind, end = ("ref", m.end()) if m else ("amp", pos + 1)
            else:
                kind, end = "text", _TEXT.match(text, pos).end()  # type: ignore[union-attr]
            if work is not None:
                work.steps += 1
                work.chars += end - pos
            yield kind, pos, end
            pos = end

    def markup(self, pos: int) -> tuple[str, int]:
        """The kind and end of what starts with the ``<`` at ``pos``."""
        text = self.text
        if text.startswith("<!--", pos):
            end = self.comment_end.at(pos + 4)[1]
            if end >= 0:
                return "comment", end
        elif text.startswith("<![CDATA[", pos):
            end = self.cdata_end.at(pos + 9)[1]
            if end >= 0:
                return "cdata", end
        elif text.startswith("<?", pos):
            end = self.pi_end.at(pos + 2)[1]
            if end >= 0:
                return "pi", end
        if text.startswith("<!", pos):
            if text.startswith("<!DOCTYPE", pos):
                bracket = self.subset_start.at(pos + 9)[0]
                if bracket >= 0 and text[bracket] == "[":
                    end = self.subset_end.at(bracket + 1)[1]
                    if end >= 0:
                        return "decl", end
            if pos + 2 < len(text) and text[pos + 2].isascii() and text[pos + 2].isalpha():
                end = self.decl_end.at(pos + 2)[1]
                if end >= 0:
                    return "decl", end
            return "lt", pos + 1
        end = self.tag(pos)
        return ("tag", end) if end >= 0 else ("lt", pos + 1)

    def tag(self, pos: int) -> int:
        """The end of the tag starting at ``pos``, or -1. Its grammar leaves no choice
        (each part is read as far as it goes), so one pass decides."""
        text = self.text
        m = _TAG_START.match(text, pos)
        if m is None:
            return -1
        at = m.end()
        passed: list[int] = []
        end = -1
        work = self.work
        if work is not None:
            work.chars += at - pos
        while True:
            known = self.tag_end.get(at)
            if known is not None:
                end = known
                break
            if work is not None:  # one part of a tag read (its characters are counted below)
                work.steps += 1
            passed.append(at)
            after_space = _SPACE.match(text, at).end()  # type: ignore[union-attr]
            c = text[after_space:after_space + 1]
            if after_space > at and c and c not in "\"'<>=/":
                name_end = _ATTR_NAME.match(text, after_space).end()  # type: ignore[union-attr]
                eq = _SPACE.match(text, name_end).end()  # type: ignore[union-attr]
                if not text.startswith("=", eq):
                    if work is not None:
                        work.chars += name_end - at
                    at = name_end
                    continue
                value = _SPACE.match(text, eq + 1).end()  # type: ignore[union-attr]
                quote = text[value:value + 1]
                if quote in ("\"", "'"):
                    close = self.quote_end[quote].at(value + 1)[0]
                    if close < 0:
                        break
                    if work is not None:  # (the quoted value was counted by its search)
                        work.chars += value + 1 - at
                    at = close + 1
                    continue
                unquoted = _UNQUOTED.match(text, value)
                if unquoted is None:
                    break
                if work is not None:
                    work.chars += unquoted.end() - at
                at = unquoted.end()
                continue
            if c == "/":
                after_space += 1
                c = text[after_space:after_space + 1]
            if c == ">":
                end = after_space + 1
            break
        for p in passed:
            self.tag_end[p] = end
        return end


def lex(text: str, line: int = 1, column: int = 1) -> list[Tok]:
    """Split ``text`` into tokens, each located (the first character is at ``line``:``column``)."""
    out: list[Tok] = []
    append = out.append
    ln, line_start = line, -(column - 1)
    pos_nl = text.find("\n")
    for kind, start, end in _Scanner(text).spans():
        while 0 <= pos_nl < start:
            ln += 1
            line_start = pos_nl + 1
            pos_nl = text.find("\n", pos_nl + 1)
        raw = text[start:end]
        col = start - line_start + 1
        if kind == "tag":
            append(_parse_tag(raw, ln, col))
        else:
            append(Tok(kind, raw, ln, col))
    return out


def _parse_tag(raw: str, line: int, col: int) -> Tok:
    closing = raw.startswith("</")
    name = _TAG_NAME.match(raw).group(1)  # type: ignore[union-attr]
    body_start = len(name) + (2 if closing else 1)
    body = raw[body_start:-1]
    empty = body.rstrip().endswith("/")
    attrs: list[Attr] = []
    pos = 0
    if not closing:
        for m in _ATTR.finditer(body):
            if m.start() != pos:
                break
            attrs.append(Attr(m.group(1), m.group(2), m.group(3), m.group(4)))
            pos = m.end()
    return Tok("tag", raw, line, col, name, closing, empty, attrs, body[pos:])


def render(tokens: list[Tok]) -> str:
    return "".join(t.render() for t in tokens)


def character_data(text: str) -> str:
    """The character data of an XML-ish text, as the repair guarantee counts it."""
    out: list[str] = []
    for kind, start, end in _Scanner(text).spans():
        raw = text[start:end]
        if kind == "text" or kind in ("amp", "lt"):
            out.append(raw)
        elif kind == "ref":
            out.append(_decode_ref(raw))
        elif kind == "cdata":
            out.append(raw[9:-3])
    return "".join(out)


def xml_char(code: int) -> bool:
    """Can an XML document (and a UTF-8 file) hold the character ``code``? XML 1.0
    ``Char``: TAB, LF, CR, U+0020–U+D7FF, U+E000–U+FFFD, U+10000–U+10FFFF; not the
    surrogates, which no UTF-8 file can hold."""
    return (0x20 <= code <= 0xD7FF or code in (0x9, 0xA, 0xD) or 0xE000 <= code <= 0xFFFD
            or 0x10000 <= code <= 0x10FFFF)


def bad_char_ref(raw: str) -> bool:
    """Is ``raw`` (``&#...;``) a character reference to a code point XML cannot hold
    (a surrogate, NUL, a control character, beyond U+10FFFF)?"""
    try:
        code = int(raw[3:-1], 16) if raw[2:3] in ("x", "X") else int(raw[2:-1])
    except ValueError:
        return True
    return not xml_char(code)


def _decode_ref(raw: str) -> str:
    """The character a reference stands for; a character reference to a code point XML
    cannot hold (``&#xD800;``, ``&#0;``) and any other entity reference stay as written."""
    name = raw[1:-1]
    if name.startswith("#"):
        try:
            code = int(name[2:], 16) if name[1:2] == "x" else int(name[1:])
        except ValueError:
            return raw
        return chr(code) if xml_char(code) else raw
    return PREDEFINED.get(name, raw)


def decode_entities(value: str) -> str:
    """``value`` with predefined entities and character references decoded, other
    entity references kept as written (what MUC token forms and names hold)."""
    if "&" not in value:
        return value
    return _REF_IN_VALUE.sub(lambda m: _decode_ref(m.group()) if m.group() not in ("&", "<") else m.group(), value)


# -- fixers ------------------------------------------------------------------------------------
def fix_attribute_case(tokens: list[Tok]) -> list[Change]:
    """Give each attribute name the spelling of its first use on the same element type."""
    first: dict[tuple[str, str], str] = {}
    changes: list[Change] = []
    for t in tokens:
        if t.kind != "tag" or t.closing or not t.attrs:
            continue
        element = t.name.lower()
        for a in t.attrs:
            spelling = first.setdefault((element, a.name.lower()), a.name)
            if spelling != a.name:
                changes.append(Change("attribute-case", t.line, t.column,
                                      f"attribute {a.name} of <{t.name}> spelled {spelling}"))
                a.name = spelling
                t.edited = True
    return changes


def fix_attribute_quotes(tokens: list[Tok]) -> list[Change]:
    """Quote unquoted attribute values; give a value-less attribute its name as value."""
    changes: list[Change] = []
    for t in tokens:
        if t.kind != "tag" or t.closing:
            continue
        for a in t.attrs:
            if a.value is None:
                a.eq, a.value = "=", f'"{a.name}"'
                changes.append(Change("attribute-quotes", t.line, t.column,
                                      f'attribute {a.name} of <{t.name}> without value: {a.name}="{a.name}"'))
                t.edited = True
            elif a.value[0] not in "\"'":
                quote = "'" if '"' in a.value else '"'
                changes.append(Change("attribute-quotes", t.line, t.column,
                                      f"quoted value {a.value} of attribute {a.name} in <{t.name}>"))
                a.value = quote + a.value + quote
                t.edited = True
    return changes


def fix_duplicate_attributes(tokens: list[Tok]) -> list[Change]:
    """Drop the later copies of an attribute repeated in one tag."""
    changes: list[Change] = []
    for t in tokens:
        if t.kind != "tag" or len(t.attrs) < 2:
            continue
        seen: set[str] = set()
        kept = []
        for a in t.attrs:
            if a.name in seen:
                changes.append(Change("duplicate-attribute", t.line, t.column,
                                      f"dropped repeated attribute {a.name}={a.value} of <{t.name}>"))
                t.edited = True
                continue
            seen.add(a.name)
            kept.append(a)
        t.attrs = kept
    return changes


def fix_entities(tokens: list[Tok], mapped: set[str] | None = None, *, declare: bool = False) -> list[Change]:
    """Write undeclared entity references as text (``&MD;`` → ``&amp;MD;``), in character
    data and in attribute values; the names go to ``mapped`` (for :func:`restore_sgml`).
    In attribute values, a stray ``&`` or ``<`` is escaped too.

    ``declare=True`` leaves the references as they are and only collects their names:
    :func:`fix_root` then declares each one (as its own name in text), one change per
    name where it is first used. corefio's own XML readers refuse entity declarations
    (they guard against entity attacks), so this is for other tools."""
    mapped = mapped if mapped is not None else set()
    changes: list[Change] = []
    for t in tokens:
        if t.kind == "ref":
            name = t.raw[1:-1]
            if name.startswith("#") and bad_char_ref(t.raw):
                changes.append(Change("entities", t.line, t.column, f"character reference {t.raw} names no "
                                      f"character XML can hold: written as text &amp;{name};"))
                t.raw = f"&amp;{name};"
            elif not name.startswith("#") and name not in PREDEFINED:
                if declare:
                    if name not in mapped:
                        changes.append(Change("entities", t.line, t.column, f"entity &{name}; declared"))
                    mapped.add(name)
                    continue
                mapped.add(name)
                changes.append(Change("entities", t.line, t.column, f"entity &{name}; written as text &amp;{name};"))
                t.raw = f"&amp;{name};"
        elif t.kind == "tag" and not t.closing:
            for a in t.attrs:
                if a.value is None or ("&" not in a.value and "<" not in a.value):
                    continue
                fixed = _REF_IN_VALUE.sub(lambda m: _value_ref(m, mapped, declare), a.value)
                if fixed != a.value:
                    changes.append(Change("entities", t.line, t.column,
                                          f"references in attribute {a.name} of <{t.name}> written as text"))
                    a.value = fixed
                    t.edited = True
    return changes


def _value_ref(m: re.Match, mapped: set[str], declare: bool) -> str:
    raw = m.group()
    if raw == "&":
        return "&amp;"
    if raw == "<":
        return "&lt;"
    name = m.group(1)
    if name is None:
        return "&amp;" + raw[1:] if bad_char_ref(raw) else raw
    if name in PREDEFINED:
        return raw
    mapped.add(name)
    return raw if declare else f"&amp;{name};"


def fix_stray_markup_characters(tokens: list[Tok]) -> list[Change]:
    """Escape a ``&`` that starts no reference and a ``<`` that starts no tag."""
    changes: list[Change] = []
    for t in tokens:
        if t.kind == "amp":
            t.kind, t.raw = "ref", "&amp;"
            changes.append(Change("stray-ampersand", t.line, t.column, "escaped a stray & as &amp;"))
        elif t.kind == "lt":
            t.kind, t.raw = "ref", "&lt;"
            changes.append(Change("stray-ampersand", t.line, t.column, "escaped a stray < as &lt;"))
    return changes


def fix_nesting(tokens: list[Tok], *, close_omitted: bool = True, only: frozenset[str] | None = None,
                muc: bool = False) -> list[Change]:
    """Balance start and end tags (see the module docstring for the rules).

    ``muc=True`` follows the MUC reader, for which COREFs (elements with an ID) and
    section elements nest apart: the end tag of a COREF leaves the sections opened
    inside it open (they are closed before it and reopened after, as elsewhere), but
    the end tag of a section ends the sections opened inside it (they are closed early,
    not reopened, and their own end tags later are dropped), so that a COREF starting
    after it is not inside a reopened copy whose end tag would end that COREF.

    ``close_omitted=False`` keeps SGML's omitted end tags omitted (the MUC reader's
    choice: ``<p>`` without ``</p>`` is valid MUC): an element whose end tag never
    comes is then left open without a change. ``only`` restricts the repair to elements
    with these (lower-case) names; other tags are left as they are.
    """
    changes: list[Change] = []
    remaining: dict[str, int] = {}
    for t in tokens:
        if t.kind == "tag" and t.closing:
            key = t.name.lower()
            remaining[key] = remaining.get(key, 0) + 1
    out: list[Tok] = []
    stack: list[Tok] = []
    early: dict[str, int] = {}  # elements closed early whose later end tag must go
    opened: dict[str, int] = {}  # open elements by name (what the stack holds)

    def push(el: Tok) -> None:
        stack.append(el)
        name = el.name.lower()
        opened[name] = opened.get(name, 0) + 1

    def pop() -> Tok:
        el = stack.pop()
        opened[el.name.lower()] -= 1
        return el

    def close(el: Tok, at: Tok, why: str) -> None:
        end = make_tag(el.name, closing=True, line=at.line, column=at.column)
        out.append(end)
        changes.append(Change("nesting", at.line, at.column, why))

    # every element closed before its end tag and reopened after it is a new start tag:
    # a few in real files, but crossing end tags can ask for one per open element at each
    # of them; past this many, an element is closed early instead (like one with an ID)
    reopen_budget = len(tokens)
    work = _WORK.get()
    for t in tokens:
        if work is not None:
            work.steps += 1
        if t.kind != "tag" or t.empty or (only is not None and t.name.lower() not in only):
            out.append(t)
            continue
        key = t.name.lower()
        if not t.closing:
            if (stack and stack[-1].name.lower() == key and remaining.get(key, 0) <= opened[key]
                    and stack[-1].attr("id") is None and (not muc or key in MUC_OMITTED_END)):
                # an element whose end tag never comes cannot contain another of its kind
                # (SGML's omitted </p>): it ends where the next one starts; elements with an
                # ID (COREFs) nest in their kind, so an unclosed one stays open
                el = pop()
                if close_omitted:
                    close(el, t, f"closed unclosed <{el.name}> (line {el.line}) before the next <{t.name}>")
            push(t)
            out.append(t)
            continue
        remaining[key] -= 1
        # the innermost open element of this name (the elements above it are closed here,
        # so the search costs no more than the closing)
        depth = None
        if opened.get(key):
            depth = next(k for k in range(len(stack) - 1, -1, -1) if stack[k].name.lower() == key)
        if depth is None:
            if early.get(key):
                early[key] -= 1
                changes.append(Change("nesting", t.line, t.column,
                                      f"dropped </{t.name}>: its element was closed earlier"))
            else:
                changes.append(Change("nesting", t.line, t.column, f"dropped stray end tag </{t.name}>"))
            continue
        if work is not None:  # the open elements looked at, closed and reopened below
            work.steps += 3 * (len(stack) - depth)
        reopen: list[Tok] = []
        may_reopen = reopen_budget > 0 and (not muc or stack[depth].attr("id") is not None)
        below: dict[str, int] = {}  # open elements by name under the one being closed
        for el in stack[depth:]:
            inner = el.name.lower()
            below[inner] = below.get(inner, opened[inner]) - 1
        # MUC: the end of a COREF leaves the sections opened inside it open
        keep_open = muc and stack[depth].attr("id") is not None
        for el in reversed(stack[depth + 1:]):
            inner = el.name.lower()
            waiting = remaining.get(inner, 0) > below[inner] or (keep_open and el.attr("id") is None)
            if not waiting:
                if close_omitted:
                    close(el, t, f"closed unclosed <{el.name}> (line {el.line}) before </{t.name}>")
            elif el.attr("id") is not None:
                close(el, t, f"closed <{el.name} ID={el.attr('id')}> (line {el.line}) early, before "
                             f"</{t.name}>; its own end tag later is dropped")
                early[inner] = early.get(inner, 0) + 1
            elif not may_reopen:
                why = "too many elements reopened already" if reopen_budget <= 0 else \
                    "the end of a MUC section ends the sections inside it"
                close(el, t, f"closed <{el.name}> (line {el.line}) early, before </{t.name}>; its own end "
                             f"tag later is dropped ({why})")
                early[inner] = early.get(inner, 0) + 1
            else:
                close(el, t, f"closed <{el.name}> (line {el.line}) before </{t.name}> and reopened it after")
                reopen.append(el)
                reopen_budget -= 1
                may_reopen = reopen_budget > 0
        while len(stack) > depth + 1:
            pop()
        opener = pop()
        if opener.name != t.name:
            changes.append(Change("nesting", t.line, t.column,
                                  f"end tag </{t.name}> spelled </{opener.name}> like its start tag"))
            t.name = opener.name
            t.edited = True
        out.append(t)
        for el in reversed(reopen):
            copy = Tok("tag", el.render(), t.line, t.column, el.name, False, False,
                       [Attr(a.space, a.name, a.eq, a.value) for a in el.attrs], el.tail, el.edited)
            out.append(copy)
            push(copy)
    if stack and close_omitted:
        end = tokens[-1] if tokens else Tok("text", "", 1, 1)
        line, column = _end_position(end)
        for el in reversed(stack):
            out.append(make_tag(el.name, closing=True, line=line, column=column))
            changes.append(Change("nesting", el.line, el.column, f"closed unclosed <{el.name}> at the end"))
    tokens[:] = out
    return changes


def _end_position(t: Tok) -> tuple[int, int]:
    raw = t.render()
    nl = raw.count("\n")
    if nl:
        return t.line + nl, len(raw) - raw.rfind("\n")
    return t.line, t.column + len(raw)


_OUR_DOCTYPE = re.compile(r'^<!DOCTYPE \S+ \[((?:<!ENTITY [^\s"]+ "&#38;#38;[^"]*;">)*)\]>$')


def declared_entities(decl: str) -> set[str] | None:
    """The entity names a document type declaration written by :func:`fix_root`
    declares (None for any other declaration)."""
    m = _OUR_DOCTYPE.match(decl)
    if m is None:
        return None
    return set(re.findall(r"<!ENTITY (\S+) ", m.group(1)))


def fix_root(tokens: list[Tok], mapped: set[str] | None = None, *, declare: bool = False) -> list[Change]:
    """Add the XML declaration; wrap several top-level elements (or top-level text) in
    ``<corefio-root>``; record mapped entity names in a processing instruction, or with
    ``declare``, declare them in a document type declaration."""
    changes: list[Change] = []
    head: list[Tok] = []
    first_body = 0
    if tokens and tokens[0].kind == "pi" and tokens[0].raw.startswith("<?xml"):
        head.append(tokens[0])
        first_body = 1
    else:
        head.append(Tok("pi", '<?xml version="1.0" encoding="UTF-8"?>', 1, 1))
        changes.append(Change("root", 1, 1, "added the XML declaration"))
    if mapped and not declare:
        head.append(Tok("pi", f"<?{ENTITY_PI} {' '.join(sorted(mapped))}?>", 1, 1))
    # leading misc (comments, doctype, whitespace) stays before the root
    end_lead = first_body
    while end_lead < len(tokens) and (tokens[end_lead].kind in ("comment", "decl", "pi") or (
            tokens[end_lead].kind == "text" and not tokens[end_lead].raw.strip())):
        end_lead += 1
    lead = tokens[first_body:end_lead]
    body = tokens[end_lead:]
    top_elements = 0
    depth = 0
    loose = False
    for t in body:
        if t.kind == "tag" and not t.empty:
            if t.closing:
                depth -= 1
            else:
                if depth == 0:
                    top_elements += 1
                depth += 1
        elif t.kind == "tag" and t.empty and depth == 0:
            top_elements += 1
        elif depth == 0 and t.kind in ("ref", "amp", "lt", "cdata") or (
                depth == 0 and t.kind == "text" and t.raw.strip()):
            loose = True
    if top_elements > 1 or loose:
        # trailing whitespace after the last top-level element stays inside the wrapper
        first = body[0] if body else Tok("text", "", 1, 1)
        changes.append(Change("root", first.line, first.column,
                              f"wrapped {top_elements} top-level element(s){' and text' if loose else ''} "
                              f"in <{ROOT}>"))
        body = [make_tag(ROOT, line=first.line, column=first.column)] + body + [make_tag(ROOT, closing=True)]
    if mapped and declare:
        root = next((t.name for t in body if t.kind == "tag" and not t.closing), ROOT)
        ours = [t.kind == "decl" and declared_entities(t.raw) is not None for t in lead]
        lead = [t for t, own in zip(lead, ours) if not own]
        if any(t.kind == "decl" and t.raw[2:9].upper() == "DOCTYPE" for t in lead):
            raise FormatError("cannot declare entities: the file has a document type declaration already")
        subset = "".join(f'<!ENTITY {n} "&#38;#38;{n};">' for n in sorted(mapped))
        head.append(Tok("decl", f"<!DOCTYPE {root} [{subset}]>", 1, 1))
    tokens[:] = head + lead + body
    return changes


# -- encodings ---------------------------------------------------------------------------------
def decode(data: bytes) -> tuple[str, list[Change]]:
    """Bytes to text: a byte order mark or a declared encoding is obeyed; otherwise UTF-8,
    and input that is not UTF-8 is read as Windows-1252 (Latin-1 where that fails).
    Every decision that is not plain UTF-8 is a change located at the first byte
    concerned. Bytes that a byte order mark names the encoding of but that are not in
    it (a UTF-8 BOM and a truncated sequence, a UTF-16 BOM and an odd number of bytes)
    raise a :class:`FormatError` at the line and column of the first bad byte. A declared
    encoding that cannot decode the bytes, is no text encoding (``base64``) or gives
    surrogates (``UTF-7``) is ignored."""
    changes: list[Change] = []
    for bom, name in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF32_LE, "utf-32"),
                      (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF16_LE, "utf-16"),
                      (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            try:
                text = data.decode(name)
            except UnicodeDecodeError as exc:
                raise _bad_encoding(data, name, exc) from None
            if text.startswith("\ufeff"):
                # a second mark would be read as part of the first word and then lost
                raise FormatError("a second byte order mark follows the first", line=1, column=1)
            if name != "utf-8-sig":
                changes.append(Change("encoding", 1, 1, f"decoded {name.upper()} (byte order mark) to UTF-8"))
            else:
                changes.append(Change("encoding", 1, 1, "dropped the UTF-8 byte order mark"))
            return _declare_utf8(text, changes), changes
    declared = _XML_DECL.match(data[:200].decode("ascii", "replace"))
    if declared:
        enc = declared.group(1)
        try:
            norm = codecs.lookup(enc).name
        except LookupError:
            norm = None
        if norm is not None and norm != "utf-8":
            try:
                text = data.decode(norm)
            except (UnicodeError, LookupError, ValueError):  # LookupError: not a text codec (base64)
                pass
            else:
                if _SURROGATE.search(text):  # UTF-7, unicode_escape can give lone surrogates
                    changes.append(Change("encoding", 1, 1, f"the declared encoding {enc} gives text "
                                          "no UTF-8 file can hold (surrogates): ignored"))
                    return _decode_undeclared(data, changes)
                changes.append(Change("encoding", 1, 1, f"decoded declared encoding {enc} to UTF-8"))
                return _declare_utf8(text, changes), changes
    return _decode_undeclared(data, changes)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _bad_encoding(data: bytes, name: str, exc: UnicodeDecodeError) -> FormatError:
    """The error for bytes that a byte order mark says are ``name`` and are not: located
    at the line and column (in characters) of the first bad byte."""
    bad = exc.start + (len(codecs.BOM_UTF8) if name == "utf-8-sig" else 0)  # utf-8-sig counts after its BOM
    before = data[:bad].decode(name, "replace")
    if before.startswith("\ufeff"):
        before = before[1:]
    line = before.count("\n") + 1
    column = len(before) - (before.rfind("\n") + 1) + 1
    label = {"utf-8-sig": "UTF-8"}.get(name, name.upper())
    return FormatError(f"the byte order mark says {label}, but the bytes are not {label} "
                       f"(byte {bad}: {exc.reason})", line=line, column=column)


def _decode_undeclared(data: bytes, changes: list[Change]) -> tuple[str, list[Change]]:
    """:func:`decode` without a byte order mark or a declared encoding."""
    try:
        return data.decode("utf-8"), changes
    except UnicodeDecodeError as exc:
        bad = exc.start
    line = data.count(b"\n", 0, bad) + 1
    column = bad - (data.rfind(b"\n", 0, bad) + 1) + 1
    try:
        text = data.decode("cp1252")
        name = "Windows-1252"
    except UnicodeDecodeError:
        text = data.decode("latin-1")
        name = "Latin-1"
    changes.append(Change("encoding", line, column, f"not UTF-8 (first bad byte here): decoded as {name}"))
    return _declare_utf8(text, changes), changes


def _declare_utf8(text: str, changes: list[Change]) -> str:
    m = _XML_DECL.match(text)
    if m and m.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
        changes.append(Change("encoding", 1, 1, f"XML declaration says UTF-8 instead of {m.group(1)}"))
        return text[: m.start(1)] + "UTF-8" + text[m.end(1):]
    return text


# -- whole repairs -----------------------------------------------------------------------------
#: fixer names in the order :func:`repair_text` runs them
FIXERS = ("encoding", "attribute-case", "attribute-quotes", "duplicate-attribute", "entities",
          "stray-ampersand", "nesting", "root")


def repair_text(text: str, *, entities: str = "map", muc: bool = False) -> tuple[str, list[Change]]:
    """Well-formed XML from XML-ish ``text``, and every change made. ``entities`` is
    ``"map"`` (undeclared entities become text, restorable) or ``"declare"``;
    ``muc``: mis-nested elements are closed and reopened as the MUC reader reads them
    (see :func:`fix_nesting`)."""
    if entities not in ("map", "declare"):
        raise ValueError(f"entities is map or declare, not {entities!r}")
    declare = entities == "declare"
    tokens = lex(text)
    mapped: set[str] = set()
    if declare:  # names declared by an earlier repair are known already
        for t in tokens:
            if t.kind == "decl":
                mapped |= declared_entities(t.raw) or set()
    changes: list[Change] = []
    changes += fix_attribute_case(tokens)
    changes += fix_attribute_quotes(tokens)
    changes += fix_duplicate_attributes(tokens)
    changes += fix_entities(tokens, mapped, declare=declare)
    changes += fix_stray_markup_characters(tokens)
    changes += fix_nesting(tokens, muc=muc)
    changes += fix_root(tokens, mapped, declare=declare)
    changes.sort(key=lambda c: (c.line, c.column))
    return render(tokens), changes


def sniff_kind(data: bytes) -> str:
    """``"muc"`` for MUC SGML (a ``<DOC>`` element early on), else ``"xml"``."""
    return "muc" if re.search(rb"<DOC[\s>]", data[:65536], re.I) else "xml"


def repair_bytes(data: bytes, *, kind: str = "auto", entities: str = "map") -> tuple[bytes, list[Change]]:
    """Repair ``data`` into well-formed UTF-8 XML; returns the bytes and the changes.

    ``entities`` is passed to :func:`repair_text`.
    ``kind`` is ``"auto"``, ``"muc"`` or ``"xml"``; every kind gets the same fixers
    (MUC's omitted ``</p>`` are closed like any unclosed element); MUC input must
    have a ``<DOC>``, and its mis-nested elements are closed and reopened as the MUC
    reader reads them, so that it finds in the repaired file the COREFs it finds in the
    input (:func:`fix_nesting`)."""
    if kind not in ("auto", "muc", "xml"):
        raise ValueError(f"unknown kind {kind!r} (auto, muc or xml)")
    if kind == "auto":
        kind = sniff_kind(data)
    text, changes = decode(data)
    if kind == "muc" and not re.search(r"<DOC[\s>]", text, re.I):
        raise FormatError("no <DOC> element: not MUC SGML")
    fixed, more = repair_text(text, entities=entities, muc=kind == "muc")
    return fixed.encode("utf-8"), changes + more


_MAPPED_REF = re.compile(r"&amp;([A-Za-z_:][-\w.:]*);")


def restore_sgml(text: str) -> str:
    """Undo what repair adds for XML: the declaration, the entity instruction, the
    ``<corefio-root>`` wrapper, and the text form of mapped entities (MUC writes them
    as entity references again)."""
    names: list[str] = []
    m = re.search(r"<\?" + ENTITY_PI + r"\s+([^?]*)\?>", text)
    if m:
        names = m.group(1).split()
        text = text[: m.start()] + text[m.end():]
    text = re.sub(r"^\s*<\?xml[^?]*\?>", "", text)
    text = re.sub(r'^<!DOCTYPE \S+ \[(?:<!ENTITY [^\s"]+ "&#38;#38;[^"]*;">)*\]>', "", text)
    wrapped = re.match(r"^(\s*)<" + ROOT + r">", text)
    if wrapped:
        text = text[wrapped.end():]
        end = text.rfind(f"</{ROOT}>")
        if end >= 0:
            text = text[:end] + text[end + len(ROOT) + 3:]
    if names:
        listed = set(names)
        text = _MAPPED_REF.sub(lambda m: "&" + m.group(1) + ";" if m.group(1) in listed else m.group(), text)
    return text


def changes_report(changes: list[Change], file: str | None = None) -> Report:
    """The changes as ``repair.<fixer>`` warnings of a :class:`Report`."""
    report = Report(file)
    for c in changes:
        report.warning(f"repair.{c.fixer}", c.message, line=c.line, column=c.column)
    return report


def repair_file(in_path: str | Path, out_path: str | Path, *, report_path: str | Path | None = None,
                strict: bool = False, entities: str = "map") -> Report:
    """Repair the file ``in_path`` into ``out_path`` (atomically); the changes go to the
    returned report and, when asked, to ``report_path`` as JSON. ``entities``: see
    :func:`repair_text`.

    Errors: :class:`FormatError` (input missing or unreadable, exit 3);
    :class:`StrictModeError` when ``strict`` and anything needed repair (exit 5; nothing
    is written); :class:`OutputError` when an output cannot be written (exit 6).
    """
    from .files import atomic_write, read_bytes

    data = read_bytes(in_path)
    try:
        fixed, changes = repair_bytes(data, entities=entities)
    except CorefioError as exc:
        raise exc.located(in_path) from None
    report = changes_report(changes, str(in_path))
    if report_path is not None:
        try:
            Path(report_path).write_text(json.dumps({
                "input": str(in_path), "output": str(out_path),
                "changes": [asdict(c) for c in changes],
            }, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            raise OutputError(f"cannot write the repair report: {exc.strerror}", file=report_path) from None
    if strict and changes:
        first = changes[0]
        raise StrictModeError(f"strict mode: {len(changes)} repair(s) needed, first: [{first.fixer}] "
                              f"{first.message}", file=str(in_path), line=first.line, column=first.column)
    atomic_write(out_path, fixed, inputs=[in_path])
    return report


__all__ = [
    "Change", "FIXERS", "NextOccurrence", "bad_char_ref", "changes_report", "character_data", "decode", "decode_entities",
    "fix_attribute_case",
    "fix_attribute_quotes", "fix_duplicate_attributes", "fix_entities", "fix_nesting", "fix_root",
    "fix_stray_markup_characters", "lex", "render", "repair_bytes", "repair_file", "repair_text",
    "restore_sgml", "xml_char",
]
