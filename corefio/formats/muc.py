"""MUC-6 / MUC-7 coreference SGML: reader and writer (format ``muc``).

Sources: *Coreference Task Definition* v2.3 (MUC-6, 8 Sep 1995; Appendix D of the MUC-6
proceedings, and the v2.1 web edition at cs.nyu.edu/~grishman/COtask21.book_2.html,
which calls the optional flag ``STAT``) and *MUC-7 Coreference Task Definition* v3.0
(Hirschman and Chinchor, 13 July 1997, www-nlpir.nist.gov/related_projects/muc/
proceedings/co_task.html), §1 "General notation"; the file layout as seen in MUC-6/7 key
files (issue 8 of this project lists the facts).

Grammar read (informal; SGML, so end tags may be omitted and attribute values may be
unquoted name tokens)::

    file     := misc* (DOC misc*)*          ; no XML declaration, no single root
    DOC      := "<DOC>" section* "</DOC>"
    section  := MUC-7: DOCID | STORYID cat= pri= | SLUG fv= | DATE | NWORDS | PREAMBLE
                       | TEXT (containing <p> paragraphs, "</p>" usually omitted) | TRAILER
              | MUC-6: DOCNO | HL | DD | SO | DATELINE | TXT (containing <p> and <s>)
    data     := (char | entity | COREF | tag)*
    entity   := "&" name ";"               ; SGML entities, undeclared (&MD; &AMP; &Cx17;)
    COREF    := "<COREF" attr* ">" data "</COREF>"      ; nests (depth 4 occurs)
    attr     := ID="n"                      ; unique in its DOC; a string, not a number
              | TYPE="IDENT"                ; the only relation annotated; with REF
              | REF="m"                     ; the ID of another COREF of the DOC, possibly
                                            ; one that starts later (an embedded mention)
              | MIN="head|other head"       ; the string a response must include; "|"
                                            ; separates alternatives; may differ from the
                                            ; text in whitespace; may hold entity refs
              | STATUS="OPT" | STAT="OPT"   ; an optional key mention (MUC-6 v2.1: STAT)

Attribute names are case-insensitive and come in any order. Chains are the symmetric
and transitive closure of REF.

Model mapping (reading):

* one :class:`~corefio.model.Document` per ``DOC``; its name is the content of DOCID or
  DOCNO up to its end or the next markup other than a COREF tag (COREF tags left out, as
  in the text), entity references decoded (``name (part P)`` gives a part, as this writer writes
  CoNLL parts; ``P`` is any printable word, as in CoNLL, so not always a number: ``²``).
  A DOCID or DOCNO that the end of the input closes still names the document.
* ``Document.text`` is the source of the DOC (from ``<DOC>`` to ``</DOC>`` and the line
  break after it) **without the COREF tags**: section markup and entity references stay
  exactly as written (``&MD;`` is five characters of the text). COREF tags are kept in
  the layout (below), so the text does not change when markables are edited.
* tokens (:func:`_tokenize` has the rules): the character data between two section tags
  is cut at white space and where a COREF tag stood (``<COREF>Michigan</COREF>'s`` gives
  ``Michigan`` and ``'s``); then, with the default read option ``tokens="words"``,
  leading and trailing punctuation, the clitic ``'s`` and a period that ends a line (LF,
  CRLF or CR: a file reads the same with any of them) come off as tokens of their own.
  The rules look at the text without COREF tags, so a key and a response of one text
  get the same tokens (scoring compares token spans), except where a COREF boundary
  cuts a word. ``tokens="spaces"`` cuts at white space only. The
  DOCs this writer makes from tokens carry the comment ``SPACES_MARK``: they are read
  that way and given back as the documents they were made from (no text, offsets or
  regions, which they never had). Entity references stay inside tokens. The
  content of DOCID, DOCNO and STORYID (identifiers, never annotated) is not tokenised.
  Token forms decode the XML predefined entities and character references (``&amp;`` →
  ``&``) and keep any other entity reference as written; offsets point into the text. A
  character reference to a code point that XML or a UTF-8 file cannot hold (a surrogate
  such as ``&#xD800;``, ``&#0;``, beyond U+10FFFF) is malformed: it stays as written in
  the form (reported, refused in strict mode).
* ``Document.regions``: one region per section element (DOC, TEXT, p, s, HL, ...), its
  start tag to its end tag; an omitted ``</p>`` ends where the next ``<p>`` or the
  enclosing element starts. Attributes are kept (values as written).
* sentences: consecutive tokens with the same innermost section element (an ``<s>``,
  a ``<p>``, a header field).
* ``COREF`` → a markable (id = ``ID``); ``MIN`` → ``Markable.min``: each alternative,
  whitespace-normalised, is looked for among the markable's tokens, the last occurrence
  when there are several (a MIN is a string: "the" in "the dog of the house" cannot say
  which one it meant; heads come late in English noun phrases) (a match inside a
  token takes the tokens around it, with an info diagnostic; no match: a warning, and the
  raw MIN stays in the layout; of a MIN with more than :data:`MAX_MIN_ALTERNATIVES` (50)
  alternatives only the first 50 are looked for, with a warning, so that the time stays
  linear); ``STATUS``/``STAT`` = ``OPT`` → ``optional``;
  ``REF`` → an identity :class:`~corefio.model.Link` from this COREF to the REF'd one
  (``TYPE`` other than ``IDENT`` becomes the link type).
* :class:`MucLayout` keeps each COREF tag as written (attribute order, quoting, spacing,
  unknown attributes), where it stood in the text and what it said, plus the text before
  each ``<DOC>``; and, in the corpus layout, the text after the last one.

Malformed input (lenient mode repairs and reports with file:line:column; ``strict``
refuses with a :class:`~corefio.errors.FormatError` at the first one): a stray
``</COREF>`` is dropped; a COREF still open when its enclosing section ends is closed
there (and a later ``</COREF>`` it leaves is dropped); a COREF open at ``</DOC>`` is
closed there; a ``<DOC>`` without ``</DOC>`` is closed before the next ``<DOC>``; a
duplicate ``ID`` is renamed ``ID~2`` (REFs go to the first); a dangling or self ``REF``
is dropped; an empty COREF is dropped. Input that is not UTF-8 is decoded with
:func:`corefio.io.repair.decode` (reported); bytes that contradict their byte order mark
(a UTF-8 BOM and a truncated sequence, a UTF-16 BOM and an odd number of bytes) are
refused, located at the first bad byte; input written by ``corefio repair`` (an XML
declaration, ``<corefio-root>``, mapped entities) is read as the SGML it came from.
Section elements and COREFs nesting deeper than :data:`MAX_DEPTH` (100) in a DOC are
refused in any mode (a :class:`~corefio.errors.FormatError` at the first tag too deep):
real files nest under 20, and the work is kept linear in the size of the input.

Writing: a document read from MUC is written from its text with the COREF tags put back
(the tags as written when the markable still says what its tag said): a well-formed file
comes back byte for byte. Any other document is written as a MUC-6-style ``DOC`` with a
``DOCNO``, a ``TXT`` and one ``<s>`` per sentence (no ``<s>`` when a mention crosses a
sentence boundary). Each chain's mentions are linked by ``REF``: the links as the
document has them when each mention has at most one antecedent, else each mention to the
previous one of its chain in text order. ``MIN`` comes from ``min`` (else, with the
``min_from_head`` option, from ``head``); ``STATUS="OPT"`` from ``optional``. Mentions
that cross another mention cannot be nested and are left out (the API reports it). The
``canonical`` option writes every COREF tag afresh (``ID TYPE REF MIN STATUS``, quoted)
instead of as the source wrote it. A source text that is not MUC SGML (a brat text) is
not written: the DOC is made from the tokens and the loss is reported. A DOC made from
tokens in which a mention crosses a sentence keeps the mention and loses the ``<s>``
(``loss.sentences``). A document written from its text whose reading repaired something,
or that gets new COREF tags, is read back by the writer, and what does not come back (a
stray ``<`` joined to the text after a dropped tag into a new tag, a COREF tag crossing
a section's end tag) is reported as ``loss.reread``. The text after the last ``DOC``
(``</DOCS>`` of a root element) is written after the documents, when streaming too.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import ClassVar

from .. import model
from ..model.mentions import COREFERENCE, is_identity
from ..diagnostics import Report
from ..errors import CorefioError, FormatError
from .losses import LossLog
from ..model.layout import FormatLayout
from .registry import Capabilities, FormatSpec, Option, register
from ..io.repair import NextOccurrence, bad_char_ref, current_work, decode, decode_entities, restore_sgml
from ..io.source import Source

NAME = "muc"

_DOC_START = re.compile(r"<DOC(?:\s[^<>]*)?>", re.I)
_DOC_END = re.compile(r"</DOC\s*>", re.I)
_TAG_NAME = re.compile(r"/?[A-Za-z][-\w.:]*")
_TAG_BODY = re.compile(r"""[^<>"']*""")
_ANGLE = re.compile(r"[<>]")
_ATTR = re.compile(r"""([^\s"'<>=/]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'<>]+))?""")
_WORD = re.compile(r"\S+")
_PART = re.compile(r"^(.*\S) \(part (\S+)\)$")
#: sections whose content is an identifier, not text to annotate (not tokenised)
ID_SECTIONS = frozenset({"docid", "docno", "storyid"})
#: elements whose end tag SGML lets MUC omit
OMITTED_END = frozenset({"p"})
#: how deep section elements and COREFs may nest in a DOC (real files: under 20); a
#: deeper DOC is refused (a FormatError at the first tag too deep), in lenient mode too
MAX_DEPTH = 100
#: how many alternatives of one MIN are looked for (real ones have one to three)
MAX_MIN_ALTERNATIVES = 50
_CHAR_REF = re.compile(r"&#(?:[0-9]+|x[0-9A-Fa-f]+);")
_SURROGATES = re.compile("[\ud800-\udfff]")
#: a blank (the characters ``str.isspace`` and ``str.split`` take as one)
_BLANK = re.compile(r"\s")


#: marks a DOC written by this writer from tokens: read back, its tokens are split at spaces only
SPACES_MARK = "<!-- corefio: tokens separated by spaces -->"
_OPENING = "([{\"`"
_CLOSING = ",;:!?)]}\""
_SPECIAL = re.compile(r"[(\[{\"`,;:!?)\]}'.]")
_ENTITY_END = re.compile(r"&#?[\w.:-]+;$")


def _tokenize(run: str, base: int, cuts: list[int], forms: list[str], offsets: list[tuple[int, int]],
              spaces: bool) -> None:
    """Tokens of a run of character data (no section markup in it; COREF tags removed,
    their positions in ``cuts``), appended with offsets (``base`` is the run's offset).

    Words are the runs of non-space characters, cut where a COREF tag stood. Unless
    ``spaces``, each word also loses its leading ``( [ { " ` `` `` and trailing
    ``, ; : ! ? ) ] } " ''`` (not the ``;`` of an entity reference) as tokens of their own;
    a final ``'s`` / ``'S`` (the clitic) is a token; a final period is a token when the
    word ends its line or the run (``officer.`` before ``</s>``), and stays otherwise
    (``Inc. named``, ``U.S. officials``). These rules look at the text without COREF
    tags, so a key and a response of the same text get the same tokens except where a
    COREF boundary cuts a word (``<COREF>Michigan</COREF>'s``).
    """
    n = len(run)
    local = [c - base for c in cuts]
    if not any(0 < c < n and not run[c - 1].isspace() and not run[c].isspace() for c in local) and (
            spaces or _SPECIAL.search(run) is None):
        # no tag inside a word and nothing to split off: the words as they are
        found = list(_WORD.finditer(run))
        if "&" in run:
            forms.extend([decode_entities(m.group()) for m in found])
        else:
            forms.extend([m.group() for m in found])
        offsets.extend([(base + m.start(), base + m.end()) for m in found])
        return
    ci = 0
    nc = len(local)
    for w in _WORD.finditer(run):
        a0, b0 = w.start(), w.end()
        pieces = [(a0, b0)]
        if ci < nc:
            while ci < nc and local[ci] <= a0:
                ci += 1
            inside = []
            while ci < nc and local[ci] < b0:
                inside.append(local[ci])
                ci += 1
            if inside:
                points = [a0] + sorted(set(inside)) + [b0]
                pieces = list(zip(points, points[1:]))
        for k, (a, b) in enumerate(pieces):
            word = run[a:b]
            if spaces or (word[0].isalnum() and word[-1].isalnum() and "'" not in word):
                forms.append(decode_entities(word) if "&" in word else word)
                offsets.append((base + a, base + b))
                continue
            head: list[tuple[int, int]] = []
            tail: list[tuple[int, int]] = []
            while b - a > 1:
                if run[a:a + 2] == "``":
                    head.append((a, a + 2))
                    a += 2
                elif run[a] in _OPENING:
                    head.append((a, a + 1))
                    a += 1
                else:
                    break
            last_piece = k == len(pieces) - 1
            while b - a > 1:
                if run[b - 2:b] == "''":
                    tail.append((b - 2, b))
                    b -= 2
                elif run[b - 1] in _CLOSING and not (run[b - 1] == ";" and _ENTITY_END.search(run, a, b)):
                    tail.append((b - 1, b))
                    b -= 1
                elif (run[b - 1] == "." and run[b - 2] != "." and last_piece and not tail
                      and _ends_line(run, b0)):
                    tail.append((b - 1, b))
                    b -= 1
                else:
                    break
            if b - a > 2 and run[b - 2:b] in ("'s", "'S"):
                tail.append((b - 2, b))
                b -= 2
            for x, y in head + ([(a, b)] if b > a else []) + tail[::-1]:
                piece = run[x:y]
                forms.append(decode_entities(piece) if "&" in piece else piece)
                offsets.append((base + x, base + y))


def _ends_line(run: str, pos: int) -> bool:
    """Is ``pos`` followed by nothing but spaces up to a line break (LF, CRLF or CR) or
    the run's end?"""
    m = _WORD.search(run, pos)
    if m is None:
        return True
    gap = run[pos:m.start()]
    return "\n" in gap or "\r" in gap


@dataclass(slots=True)
class TagRecord:
    """A COREF tag as read: the tags as written, where they stood in the text, their
    document order, and what they said (the writer reuses them only while the markable
    still says the same)."""

    start: str
    end: str
    start_at: int
    end_at: int
    seq: int
    spans: tuple
    ref: str | None
    min: tuple | None
    optional: bool


@dataclass
class MucLayout(FormatLayout):
    """MUC layout. Of a document: the COREF tags as written (by markable id), the MIN
    strings as written and the text before its ``<DOC>``. Of a corpus: the text after
    the last ``DOC`` (``tail``)."""

    format: ClassVar[str] = NAME
    depends_on: ClassVar[frozenset[str]] = frozenset({"text", "tokens"})

    prefix: str = ""
    tags: dict[str, TagRecord] = field(default_factory=dict)
    #: MIN strings as written, by markable id (kept also when no alternative was found)
    raw_min: dict[str, str] = field(default_factory=dict)
    tail: str = ""
    #: the reader repaired something in the DOC (or the file had no DOC): the writer
    #: reads what it writes back and reports what does not come back
    repaired: bool = False
    #: the name came from a DOCID or DOCNO (not from the file name)
    named: bool = True
    #: the tokens were cut at white space only (read option ``tokens="spaces"``)
    spaces: bool = False


def _attrs(body: str) -> dict[str, str]:
    """Attributes of a tag body: upper-case name → value without quotes (as written)."""
    out: dict[str, str] = {}
    for name, value in _ATTR.findall(body):
        if not value:
            value = name
        elif value[0] in "\"'":
            value = value[1:-1]
        name = name.upper()
        if name not in out:
            out[name] = value
    return out


def _raw_attrs(body: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for m in _ATTR.finditer(body):
        value = m.group(2)
        if value is None:
            value = m.group(1)
        elif value[:1] in "\"'":
            value = value[1:-1]
        out.setdefault(m.group(1), value)
    return out


class _Markup:
    """The markup of a DOC, in order: ``(start, end, slash, name, body)`` for a tag
    (``<``, an optional ``/``, a name, a body in which quoted strings may hold any
    character, ``>``), ``(start, end, None, None, "")`` for a comment (to the first
    ``-->``), a declaration (``<!`` to the next ``>`` with no ``<`` before it) or a
    processing instruction (``<?`` … ``?>`` with no ``<`` or ``>`` inside). A ``<``
    that starts none of them is text.

    Linear in the length of the DOC: searches for a terminator are remembered
    (:class:`~corefio.io.repair.NextOccurrence`), and so is the end of a tag body read from
    each point after a quoted string (a quoted string may hold a ``<``, where another
    tag can start that reads the rest of the same body)."""

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.comment_end = NextOccurrence(raw, "-->")
        self.angle = NextOccurrence(raw, _ANGLE)
        self.quote_end = {'"': NextOccurrence(raw, '"'), "'": NextOccurrence(raw, "'")}
        self.body_end: dict[int, int] = {}
        #: the work counted while :func:`corefio.io.repair.counting` is on (else None)
        self.work = current_work()

    def __iter__(self) -> Iterator[tuple[int, int, str | None, str | None, str]]:
        raw = self.raw
        pos = raw.find("<")
        work = self.work
        while pos >= 0:
            start = pos
            name = _TAG_NAME.match(raw, pos + 1)
            if name is not None:
                end = self.tag_end(name.end())
                if end >= 0:
                    slash = "/" if raw[pos + 1] == "/" else ""
                    yield pos, end, slash, raw[pos + 1 + len(slash):name.end()], raw[name.end():end - 1]
                    pos = raw.find("<", end)
                    if work is not None:  # a step, and the characters up to the next "<"
                        work.steps += 1
                        work.chars += (pos if pos >= 0 else len(raw)) - start
                    continue
            end = self.other_end(pos)
            if end >= 0:
                yield pos, end, None, None, ""
                pos = raw.find("<", end)
            else:
                pos = raw.find("<", pos + 1)
            if work is not None:
                work.steps += 1
                work.chars += (pos if pos >= 0 else len(raw)) - start

    def tag_end(self, at: int) -> int:
        """The end of a tag whose body starts at ``at`` (after the name), or -1."""
        raw = self.raw
        passed: list[int] = []
        end = -1
        while True:
            known = self.body_end.get(at)
            if known is not None:
                end = known
                break
            passed.append(at)
            stop = _TAG_BODY.match(raw, at).end()  # type: ignore[union-attr]
            if self.work is not None:
                self.work.steps += 1
                self.work.chars += stop - at
            c = raw[stop:stop + 1]
            if c == ">":
                end = stop + 1
            elif c in ("\"", "'"):
                close = self.quote_end[c].at(stop + 1)[0]
                if close >= 0:
                    at = close + 1
                    continue
            break
        for p in passed:
            self.body_end[p] = end
        return end

    def other_end(self, pos: int) -> int:
        """The end of the comment, declaration or processing instruction at ``pos``, or -1."""
        raw = self.raw
        if raw.startswith("<!--", pos):
            end = self.comment_end.at(pos + 4)[1]
            if end >= 0:
                return end
        if raw.startswith("<!", pos) or raw.startswith("<?", pos):
            angle = self.angle.at(pos + 2)[0]
            if angle >= 0 and raw[angle] == ">":
                if raw[pos + 1] == "!":
                    return angle + 1
                if angle - 1 >= pos + 2 and raw[angle - 1] == "?":
                    return angle + 1
        return -1


class _Lines:
    """Line and column of a character offset of the file text (built on demand; LF, CRLF
    and CR end lines)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] | None = None

    def at(self, pos: int) -> tuple[int, int]:
        if self._starts is None:
            self._starts = [m.end() for m in re.finditer("\r\n?|\n", self.text)]
        k = bisect.bisect_right(self._starts, pos)
        start = self._starts[k - 1] if k else 0
        return k + 1, pos - start + 1


class _Reader:
    def __init__(self, source: Source, report: Report, strict: bool, tokens: str = "words") -> None:
        self.spaces = tokens == "spaces"
        self.source = source
        self.report = report
        self.strict = strict
        self.names: set[str] = set()
        self.pending: list[tuple] | None = None
        self.findings = 0  #: warnings so far (what was repaired)
        self.no_doc = False

    def problem(self, code: str, message: str, pos: int | None, document: str | None = None,
                severity: str = "warning") -> None:
        """Report a finding at file offset ``pos`` (strict mode: raise it, unless info).
        While a DOC is parsed (``pending`` is a list), findings wait for its name."""
        if severity != "info" and (self.pending is None or document is not None or self.strict):
            self.findings += 1
        if self.pending is not None and document is None and not (self.strict and severity != "info"):
            self.pending.append((code, message, pos, severity))
            return
        line = column = None
        if pos is not None:
            line, column = self.lines.at(pos)
        if self.strict and severity != "info":
            raise FormatError(message, file=self.source.name, line=line, column=column)
        self.report.add(f"muc.{code}", severity, message, line=line, column=column,  # type: ignore[arg-type]
                        document=document)

    def too_deep(self, pos: int) -> None:
        line, column = self.lines.at(pos)
        raise FormatError(f"elements nest deeper than {MAX_DEPTH} levels (sections and COREFs of a DOC; "
                          "real MUC files nest under 20): refused", file=self.source.name, line=line,
                          column=column)

    # -- file ------------------------------------------------------------------------------
    def text_of(self) -> str:
        data = self.source.read_bytes()
        try:
            text, changes = decode(data)
        except CorefioError as exc:
            raise exc.located(self.source.name) from None
        for c in changes:
            if c.message == "dropped the UTF-8 byte order mark":  # nothing lost: UTF-8 all the same
                self.report.info("muc.encoding", c.message, line=c.line, column=c.column)
                continue
            if self.strict:
                raise FormatError(c.message, file=self.source.name, line=c.line, column=c.column)
            self.report.warning("muc.encoding", c.message, line=c.line, column=c.column)
        if text.lstrip().startswith("<?xml") or "<?corefio-entities" in text[:4096]:
            text = restore_sgml(text)
            self.report.info("muc.repaired-xml", "read the XML written by corefio repair as MUC SGML")
        return text

    def documents(self) -> Iterator[model.Document]:
        """The documents, one at a time."""
        yield from self._documents()

    def document(self, raw: str, prefix: str, base: int, k: int) -> model.Document:
        return self._document(raw, prefix, base, k)

    def _documents(self) -> Iterator[model.Document]:
        text = self.text_of()
        self.lines = _Lines(text)
        pos = 0
        k = 0
        n = len(text)
        first = _DOC_START.search(text)
        if first is None:
            if text.strip():
                self.problem("no-doc", "no <DOC> element: the whole file is read as one document", 0)
                self.no_doc = True
                yield self.document(text, "", 0, k)
            self.tail = ""
            return
        end: re.Match | None = None
        searched = -1  # where the last search for </DOC> started (none after it when end is None)
        while True:
            start = _DOC_START.search(text, pos)
            if start is None:
                break
            prefix = text[pos:start.start()]
            # the next </DOC>, searched again only once passed: many <DOC> without </DOC>
            # would otherwise each scan the rest of the file
            if searched < 0 or (end is not None and end.start() < start.end()):
                end = _DOC_END.search(text, start.end())
                searched = start.end()
            nxt = _DOC_START.search(text, start.end(), end.start() if end is not None else n)
            if end is None or nxt is not None:
                if nxt is None:
                    # the file ends inside a DOC: it was cut short, and closing what is open
                    # would read fewer annotations than the file had
                    line, column = self.lines.at(n)
                    opened, _ = self.lines.at(start.start())
                    raise FormatError(f"the file ends inside the <DOC> opened at line {opened} (no </DOC>): "
                                      "cut short?", file=self.source.name, line=line, column=column)
                stop = nxt.start()
                body = text[start.start():stop]
                stripped = body.rstrip()
                self.problem("unclosed-doc", "<DOC> without </DOC>: closed before the next <DOC>", start.start())
                raw = stripped + "</DOC>" + body[len(stripped):]
                yield self.document(raw, prefix, start.start(), k)
                pos = stop
            else:
                stop = end.end()
                if text.startswith("\r\n", stop):
                    stop += 2
                elif stop < n and text[stop] in "\r\n":
                    stop += 1
                yield self.document(text[start.start():stop], prefix, start.start(), k)
                pos = stop
            k += 1
        self.tail = text[pos:]

    # -- one DOC ---------------------------------------------------------------------------
    def _document(self, raw: str, prefix: str, base: int, k: int) -> model.Document:
        clean: list[str] = []
        length = 0
        forms: list[str] = []
        offsets: list[tuple[int, int]] = []
        sentence_starts: list[int] = []
        sections: list[list] = []  # [name, start, attrs, key]
        open_names: dict[str, int] = {}  # lower-case section name → how many are open
        corefs: list[list] = []  # open COREFs: [attrs, start_at, raw_tag, seq, pos, section depth]
        done: list[tuple] = []  # closed COREFs
        early = 0  # COREFs closed at a section end whose </COREF> is still to come
        seq = 0
        key = 0
        next_key = 1
        last_key = -1
        skip_words = 0
        name_text: str | None = None
        # the character data of the DOCID or DOCNO naming the DOC, while it is read: up to
        # the next markup other than a COREF tag (COREF tags are not part of the text)
        name_parts: list[str] | None = None
        last = 0
        region_fields: list[dict] = []  # built into regions at once
        label = f"{self.source.stem}-{k + 1}"
        spaces = self.spaces or SPACES_MARK in raw
        findings_before = self.findings
        self.pending = []

        def close_section(depth: int, end: int) -> None:
            nonlocal key, skip_words
            while len(sections) > depth:
                sname, sstart, sattrs, _ = sections.pop()
                low = sname.lower()
                open_names[low] -= 1
                if low in ID_SECTIONS:
                    skip_words -= 1
                region_fields.append({"type": sname, "start": sstart, "end": end, "id": None, "attributes": sattrs})
            key = sections[-1][3] if sections else 0

        run: list[str] = []  # character data since the last section markup
        cuts: list[int] = []  # where COREF tags stood in it
        run_start = 0

        def flush() -> None:
            nonlocal last_key
            if run:
                if not skip_words:
                    before = len(forms)
                    _tokenize("".join(run), run_start, cuts, forms, offsets, spaces)
                    if work is not None:  # the characters cut into words
                        work.chars += sum(map(len, run))
                    if len(forms) > before and last_key != key:
                        sentence_starts.append(before)
                        last_key = key
                run.clear()
                cuts.clear()

        work = current_work()
        for s, end, slash, tag, body in _Markup(raw):
            whole = raw[s:end]
            if s > last:
                seg = raw[last:s]
                clean.append(seg)
                if not run:
                    run_start = length
                run.append(seg)
                if name_parts is not None:
                    name_parts.append(seg)
                length += len(seg)
            last = end
            if tag is not None and (tag == "COREF" or tag.lower() == "coref"):
                seq += 1
                if not slash:
                    if len(sections) + len(corefs) >= MAX_DEPTH:
                        self.too_deep(base + s)
                    cuts.append(length)
                    corefs.append([_attrs(body), length, whole, seq, base + s, len(sections)])
                elif corefs:
                    cuts.append(length)
                    done.append((corefs.pop(), length, whole, seq))
                elif early:
                    early -= 1
                    self.problem("stray-end-tag", "dropped </COREF> of a COREF closed earlier", base + s)
                else:
                    self.problem("stray-end-tag", "dropped a </COREF> that closes nothing", base + s)
                continue
            flush()
            if name_parts is not None:
                joined = "".join(name_parts)
                name_parts = None
                if joined.strip():
                    name_text = joined
            clean.append(whole)
            if tag is None:  # comment, declaration, processing instruction
                length += len(whole)
                continue
            low = tag.lower()
            if slash == "/":
                depth = None
                if open_names.get(low):
                    depth = next(d for d in range(len(sections) - 1, -1, -1) if sections[d][0].lower() == low)
                    if work is not None:  # the sections looked at (and closed below)
                        work.steps += len(sections) - depth
                if depth is not None:
                    while corefs and corefs[-1][5] > depth:
                        c = corefs.pop()
                        early += 1
                        self.problem("unclosed-coref", f"<COREF ID={c[0].get('ID')}> still open at </{tag}>: "
                                     "closed there", c[4])
                        done.append((c, length, "</COREF>", seq))
                    close_section(depth + 1, length)
                    close_section(depth, length + len(whole))
                length += len(whole)
                continue
            if whole.endswith("/>"):
                region_fields.append({"type": tag, "start": length, "end": length + len(whole), "id": None,
                                      "attributes": _raw_attrs(body.rstrip("/"))})
                length += len(whole)
                continue
            if low in OMITTED_END and sections and sections[-1][0].lower() == low:
                close_section(len(sections) - 1, length)
            if low in ID_SECTIONS:
                skip_words += 1
                if low in ("docid", "docno") and name_text is None:
                    name_parts = []
            if len(sections) + len(corefs) >= MAX_DEPTH:
                self.too_deep(base + s)
            sections.append([tag, length, _raw_attrs(body) if body.strip() else {}, next_key])
            open_names[low] = open_names.get(low, 0) + 1
            key = next_key
            next_key += 1
            length += len(whole)
        if last < len(raw):
            seg = raw[last:]
            clean.append(seg)
            if not run:
                run_start = length
            run.append(seg)
            if name_parts is not None:  # a DOCNO that the end of the input closes
                name_parts.append(seg)
            length += len(seg)
        if name_parts is not None and "".join(name_parts).strip():
            name_text = "".join(name_parts)
        flush()
        while corefs:
            c = corefs.pop()
            self.problem("unclosed-coref", f"<COREF ID={c[0].get('ID')}> never closed: closed at the end "
                         "of its DOC", c[4])
            done.append((c, length, "</COREF>", seq + 1))
        close_section(0, length)
        regions: list[model.Region] = [model.Region(**values) for values in region_fields]
        if "&#" in raw:
            for ref in _CHAR_REF.finditer(raw):
                if bad_char_ref(ref.group()):
                    self.problem("bad-char-ref", f"character reference {ref.group()} names no character XML "
                                 "or a UTF-8 file can hold: kept as written", base + ref.start())
        text = "".join(clean)
        name = label
        part = None
        if name_text is not None and name_text.strip():
            name = decode_entities(" ".join(name_text.split()))
            found = _PART.match(name)
            if found and found.group(2).isprintable():  # not "1\x00": a part is a printable word
                name, part = found.group(1), found.group(2)
        label = model.document_label(name, part)
        pending, self.pending = self.pending, None
        for code, message, pos, severity in pending:
            self.problem(code, message, pos, label, severity)
        if label in self.names:
            self.problem("duplicate-name", f"a second document named {label!r}", base, label)
        self.names.add(label)
        regions.sort(key=lambda r: (r.start, -r.end))
        n = len(forms)
        sentences = []
        starts = [s for s in sentence_starts if s < n]
        starts = sorted(set(starts))
        if starts and starts[0] != 0:
            starts.insert(0, 0)
        for i, a in enumerate(starts):
            b = starts[i + 1] - 1 if i + 1 < len(starts) else n - 1
            sentences.append(model.Sentence(first=a, last=b))
        markables, links, layout = self.annotations(done, text, forms, offsets, label)
        layout.prefix = prefix
        layout.repaired = self.no_doc or self.findings > findings_before
        layout.named = name_text is not None and bool(name_text.strip())
        layout.spaces = self.spaces
        if SPACES_MARK in raw:
            # written by this writer from tokens: the text is made from them, so the
            # document is given back as it was, without a text it never had
            return model.Document.build(
                name=name, part=part, tokens=model.Tokens(forms=forms), sentences=sentences,
                markables=markables, links=links, metadata={}, entities=[], text=None, regions=[],
                layout={NAME: MucLayout(prefix=prefix)} if prefix else {},
            )
        return model.Document.build(
            name=name, part=part, tokens=model.Tokens(forms=forms, offsets=offsets),
            sentences=sentences, markables=markables, links=links, text=text, regions=regions,
            layout={NAME: layout}, metadata={}, entities=[],
        )

    def annotations(self, done: list[tuple], text: str, forms: list[str], offsets: list[tuple[int, int]],
                    label: str):
        done.sort(key=lambda d: d[0][3])
        records: dict[str, TagRecord] = {}
        raw_min: dict[str, str] = {}
        markables: list = []  # field dicts, built into markables at once
        refs: list[tuple[str, str, str | None, int]] = []
        ids: dict[str, int] = {}
        token_starts = [o[0] for o in offsets]
        token_ends = [o[1] for o in offsets]
        for c, end_at, end_tag, _end_seq in done:
            attrs, start_at, start_tag, start_seq, pos, _ = c
            first_tok = bisect.bisect_left(token_starts, start_at)
            last_tok = bisect.bisect_right(token_ends, end_at) - 1
            if last_tok < first_tok:
                self.problem("empty-coref", f"dropped COREF ID={attrs.get('ID')}: it holds no word", pos, label)
                continue
            mid = attrs.get("ID")
            if mid is None or not mid:
                mid = f"noid{start_seq}"
                self.problem("missing-id", f"COREF without ID: called {mid}", pos, label)
            if mid in ids:
                ids[mid] += 1
                new = f"{mid}~{ids[mid]}"
                self.problem("duplicate-id", f"duplicate ID {mid} in this DOC: renamed {new}", pos, label)
                mid = new
            else:
                ids[mid] = 1
            spans = ((first_tok, last_tok),)
            mins = None
            raw = attrs.get("MIN")
            if raw is not None:
                raw_min[mid] = raw
                mins = self.find_min(raw, first_tok, last_tok, text, offsets, pos, label, mid)
            status = attrs.get("STATUS", attrs.get("STAT"))
            optional = status is not None and status.upper() == "OPT"
            markables.append({"id": mid, "spans": spans, "entity": None, "head": None, "attributes": {},
                              "layer": None, "sets": {}, "min": mins, "optional": optional})
            ref = attrs.get("REF")
            if ref is not None:
                refs.append((mid, ref, attrs.get("TYPE"), pos))
            if mid == attrs.get("ID"):  # a renamed COREF gets a new tag
                records[mid] = TagRecord(start_tag, end_tag, start_at, end_at, start_seq, spans, ref, mins, optional)
        markables = [model.Markable(**values) for values in markables]
        links: list = []
        for source, ref, type_, pos in refs:
            if ref not in ids:
                self.problem("dangling-ref", f"REF={ref} of COREF ID={source} names no COREF of this DOC: dropped",
                             pos, label)
                records.pop(source, None)
                continue
            if ref == source:
                self.problem("self-ref", f"COREF ID={source} refers to itself: REF dropped", pos, label)
                records.pop(source, None)
                continue
            kind = COREFERENCE if type_ is None or type_.upper() == "IDENT" else type_
            links.append({"id": f"ref_{source}", "type": kind, "source": source, "targets": (ref,),
                          "target_kind": "markable", "attributes": {}})
        return markables, [model.Link(**values) for values in links], MucLayout(tags=records, raw_min=raw_min)

    def find_min(self, raw: str, first: int, last: int, text: str, offsets, pos: int, label: str,
                 mid: str) -> tuple | None:
        words = [text[a:b] for a, b in offsets[first:last + 1]]
        joined = " ".join(words)
        starts = []
        p = 0
        for w in words:
            starts.append(p)
            p += len(w) + 1
        found: list[tuple[int, int]] = []
        padded = f" {joined} "
        alternatives = raw.split("|")
        if len(alternatives) > MAX_MIN_ALTERNATIVES:
            # each alternative is looked for in the whole mention: a MIN of thousands of
            # them over a long mention would take time quadratic in the input
            self.problem("min-alternatives", f"MIN of COREF ID={mid} has {len(alternatives)} alternatives: the "
                         f"first {MAX_MIN_ALTERNATIVES} looked for, all kept as written", pos, label)
            alternatives = alternatives[:MAX_MIN_ALTERNATIVES]
        work = current_work()
        if work is not None:  # each alternative may be looked for through the whole mention
            work.chars += len(alternatives) * 2 * len(padded)
        for alt in alternatives:
            want = " ".join(alt.replace("&quot;", '"').split())
            if not want:
                continue
            # the last occurrence: the head of an English noun phrase comes late in it;
            # whole words first (words hold no space), else the last one inside words
            span = None
            inside = False
            at = padded.rfind(f" {want} ")
            if at < 0:
                at = joined.rfind(want)
                inside = at >= 0
            if at >= 0:
                a = bisect.bisect_right(starts, at) - 1
                b = bisect.bisect_right(starts, at + len(want) - 1) - 1
                span = (first + a, first + b)
            if span is None:
                self.problem("min-not-found", f"MIN alternative {alt!r} of COREF ID={mid} is not in its text; "
                             "kept as written", pos, label)
                continue
            if inside:
                self.problem("min-inside-word", f"MIN alternative {alt!r} of COREF ID={mid} is part of a word: "
                             "the whole words taken", pos, label, severity="info")
            if span not in found:
                found.append(span)
        return tuple(found) if found else None


def read(source: Source, *, report: Report, strict: bool, tokens: str = "words") -> model.Corpus:
    reader = _Reader(source, report, strict, tokens)
    documents = list(reader.documents())
    return model.Corpus(documents=documents, metadata={}, schemes=[],
                              layout={NAME: MucLayout(tail=reader.tail)} if reader.tail else {})


class MucStream:
    """The documents of a MUC file one at a time. ``header`` is the corpus without its
    documents: once the last document has been given, its layout holds the text after
    the last ``DOC`` (a root element's end tag, ``</DOCS>``), which a streaming writer
    reads after the documents."""

    def __init__(self, source: Source, report: Report, strict: bool, tokens: str = "words") -> None:
        self.header = model.Corpus(documents=[], metadata={}, schemes=[], layout={})
        self._reader = _Reader(source, report, strict, tokens)
        self._documents = self._run()

    def __iter__(self) -> MucStream:
        return self

    def __next__(self) -> model.Document:
        return next(self._documents)

    def _run(self) -> Iterator[model.Document]:
        yield from self._reader.documents()
        if self._reader.tail:
            self.header.layout[NAME] = MucLayout(tail=self._reader.tail)


def stream(source: Source, *, report: Report, strict: bool, tokens: str = "words") -> MucStream:
    return MucStream(source, report, strict, tokens)


# -- writing --------------------------------------------------------------------------------------
def _esc(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attr_value(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;") if any(
        c in value for c in '&"<') else value


def _is_muc_text(doc: model.Document) -> bool:
    if doc.text is None or not doc.tokens.offsets and doc.tokens.forms:
        return False
    if NAME in doc.layout:
        return True
    return any(r.type.upper() == "DOC" and r.start == 0 for r in doc.regions)


def _as_they_are(words: list[str]) -> bool:
    """Whether :func:`_generated_text` writes these words unchanged (but escaped): none
    empty, none with a blank or a surrogate."""
    plain = "".join(words)
    return bool(words) and "" not in words and not _BLANK.search(plain) and not _SURROGATES.search(plain)


def _generated_text(doc: model.Document, log: LossLog) -> tuple[str, list[tuple[int, int]]]:
    """A MUC-6-style DOC for a document that has no MUC text, and its token offsets."""
    forms = doc.tokens.forms
    parts: list[str] = ["<DOC>\n", SPACES_MARK, "\n<DOCNO> ", _esc(doc.label), " </DOCNO>\n<TXT>\n"]
    length = sum(len(p) for p in parts)
    offsets: list[tuple[int, int]] = []
    sentences = [(s.first, s.last) for s in doc.sentences] or ([(0, len(forms) - 1)] if forms else [])
    sentence = doc.sentence_of_token()
    crossing = any(sentence[m.first] != sentence[m.last] for m in doc.markables) if doc.sentences else False
    if crossing:
        # the mentions are kept; the sentence boundaries (no <s>) are what is lost
        log.lose("sentences", "sentence boundaries where a mention crosses one (no <s> written)",
                 document=doc, count=len(doc.sentences))
        sentences = [(0, len(forms) - 1)] if forms else []
    changed = 0
    for a, b in sentences:
        if not crossing:
            parts.append("<s>")
            length += 3
        words = forms[a:b + 1]
        if _as_they_are(words):
            # no word to change (most sentences): checked and joined a sentence at a
            # time, not a character at a time (convert --to muc of the benchmark key:
            # 1.52 s -> 1.41 s CPU)
            plain = "".join(words)
            if "&" in plain or "<" in plain or ">" in plain:
                words = [_esc(w) for w in words]
            for word in words:
                offsets.append((length, length + len(word)))
                length += len(word) + 1
            length -= 1
            parts.append(" ".join(words))
        else:
            for i in range(a, b + 1):
                form = forms[i]
                if not form or _BLANK.search(form):
                    changed += 1
                    form = "_".join(form.split()) or "_"
                word = _esc(form)
                if _SURROGATES.search(word):  # no file can hold them: written as (malformed) references
                    changed += 1
                    word = _SURROGATES.sub(lambda c: f"&#x{ord(c.group()):X};", word)
                offsets.append((length, length + len(word)))
                parts.append(word)
                length += len(word)
                if i < b:
                    parts.append(" ")
                    length += 1
        closing = "</s>\n" if not crossing else "\n"
        parts.append(closing)
        length += len(closing)
    parts.append("</TXT>\n</DOC>\n")
    if changed:
        log.lose("token-form", "empty token forms, forms with spaces (written with _) or with surrogates (written "
                 "as character references, read back as written)", document=doc, count=changed)
    return "".join(parts), offsets


def _plan_refs(doc: model.Document, written: list[model.Markable]) -> dict[str, str]:
    """Markable ref → the ref of its REF target, for the written markables."""
    refs = {m.ref for m in written}
    identity = [link for link in doc.links if is_identity(link.type)]
    exact = all(m.entity is None for m in doc.markables)
    out: dict[str, str] = {}
    if exact:
        for link in identity:
            if (link.target_kind != "markable" or len(link.targets) != 1 or link.source in out
                    or link.source not in refs or link.targets[0] not in refs):
                exact = False
                break
            out[link.source] = link.targets[0]
    if exact:
        return out
    out = {}
    markables = doc.markables
    for chain in doc.chain_indices():
        if len(chain) < 2:  # a singleton refers to nothing
            continue
        # (a markable's index is its position: refs are unique in a document)
        members = sorted((i for i in chain if markables[i].ref in refs),
                         key=lambda i: (markables[i].spans[0][0], -markables[i].spans[-1][1], i))
        for prev, i in zip(members, members[1:]):
            out[markables[i].ref] = markables[prev].ref
    return out


def _span_text(text: str, offsets: list[tuple[int, int]], span: tuple[int, int]) -> str:
    return " ".join(text[offsets[span[0]][0]:offsets[span[1]][1]].split())


def write_document(doc: model.Document, report: Report, min_from_head: bool = False,
                   canonical: bool = False) -> str:
    """The MUC SGML of one document (its ``DOC`` element and what precedes it).
    ``canonical``: every COREF tag written afresh (``ID TYPE REF MIN STATUS``, quoted),
    not as the source wrote it; the text between the tags stays."""
    log = LossLog(report, NAME)
    layout = doc.layout.get(NAME)
    if not isinstance(layout, MucLayout) or canonical:
        layout = None
    if _is_muc_text(doc):
        text = doc.text
        offsets = doc.tokens.offsets
        assert text is not None and offsets is not None
    else:
        if doc.text is not None:
            log.lose("text", "a source text that is not MUC SGML (written from the tokens)", document=doc)
        text, offsets = _generated_text(doc, log)
    in_chain = {i for chain in doc.chain_indices() for i in chain}
    candidates = [m for i, m in enumerate(doc.markables) if m.layer is None or i in in_chain]
    records = layout.tags if layout is not None and text is doc.text else {}
    # positions: [start_at, end_at] in the text; a tag as written keeps its position
    placed: list[list] = []  # [first, last, seq, start_at, end_at, markable, record]
    for k, m in enumerate(candidates):
        rec = records.get(m.id) if m.layer is None else None
        if rec is not None and rec.spans == m.spans:
            placed.append([m.first, m.last, rec.seq, rec.start_at, rec.end_at, m, rec])
        else:
            placed.append([m.first, m.last, 10**9 + k, offsets[m.first][0], offsets[m.last][1], m, None])
    # nesting is decided on the tokens (outer first, tags in document order at one span):
    # positions as written may reach into the spaces around the words, so a tag as
    # written and a new one need not nest by position where their tokens do
    placed.sort(key=lambda p: (p[0], -p[1], p[2]))
    # markables that cross an earlier one cannot nest: left out (the API reported it)
    kept: list[list] = []
    parent: list[int] = []  # index in kept of the innermost enclosing kept markable, or -1
    stack: list[int] = []  # indices in kept
    for p in placed:
        while stack and kept[stack[-1]][1] < p[0]:
            stack.pop()
        if stack and p[1] > kept[stack[-1]][1]:
            continue
        parent.append(stack[-1] if stack else -1)
        stack.append(len(kept))
        kept.append(p)
    # an enclosing tag reaches at least as far as the tags inside it (innermost first)
    for i in range(len(kept) - 1, -1, -1):
        j = parent[i]
        if j >= 0:
            kept[j][3] = min(kept[j][3], kept[i][3])
            kept[j][4] = max(kept[j][4], kept[i][4])
    written = [p[5] for p in kept]
    plan = _plan_refs(doc, written)
    ids: dict[str, str] = {}
    used: set[str] = set()
    for m in written:
        wid = m.id if m.id not in used else m.ref
        while wid in used:
            wid += "~"
        used.add(wid)
        ids[m.ref] = wid
    events: list[tuple] = []
    for order, (_first, _last, _seq, start_at, end_at, m, rec) in enumerate(kept):
        ref = plan.get(m.ref)
        ref_id = ids[ref] if ref is not None else None
        mins = m.min
        if mins is None and min_from_head and m.head is not None:
            mins = (m.head[0],)
        if (rec is not None and ids[m.ref] == m.id and rec.ref == ref_id and rec.min == m.min
                and rec.optional == m.optional):
            start, end = rec.start, rec.end
        else:
            parts = [f'<COREF ID="{_attr_value(ids[m.ref])}"']
            if ref_id is not None:
                parts.append(f' TYPE="IDENT" REF="{_attr_value(ref_id)}"')
            raw = layout.raw_min.get(m.id) if layout is not None and rec is not None and rec.min == m.min else None
            if raw is not None:
                parts.append(f' MIN="{raw}"')
            elif mins:
                value = "|".join(_span_text(text, offsets, s) for s in mins)  # already SGML text
                parts.append(' MIN="' + value.replace('"', "&quot;") + '"')
            if m.optional:
                parts.append(' STATUS="OPT"')
            parts.append(">")
            start, end = "".join(parts), "</COREF>"
        # at one position, end tags come before start tags; outer starts first, inner ends first
        events.append((start_at, 1, -end_at, order, start))
        events.append((end_at, 0, -start_at, -order, end))
    events.sort(key=lambda e: (e[0], e[1], e[2], e[3]))
    out: list[str] = [layout.prefix if layout is not None else ""]
    pos = 0
    for at, _, _, _, tag in events:
        out.append(text[pos:at])
        out.append(tag)
        pos = at
    out.append(text[pos:])
    written_text = "".join(out)
    source_layout = doc.layout.get(NAME)
    if text is doc.text and (not isinstance(source_layout, MucLayout) or source_layout.repaired
                             or any(p[6] is None for p in kept)):
        _check_reads_back(doc, written, written_text, source_layout, log)
    return written_text


def _reading(doc: model.Document, markables: list[model.Markable]) -> tuple:
    """What a MUC round trip must keep of ``doc`` (its ``markables``): the token forms,
    the mentions' token spans and the chains (of two mentions or more) as spans."""
    index = {m.ref: i for i, m in enumerate(markables)}
    spans = sorted((m.first, m.last) for m in markables)
    chains = []
    for chain in doc.chain_indices():
        members = sorted((doc.markables[i].first, doc.markables[i].last) for i in chain
                         if doc.markables[i].ref in index)
        if len(members) > 1:
            chains.append(members)
    return list(doc.tokens.forms), spans, sorted(chains)


def _check_reads_back(doc: model.Document, written: list[model.Markable], sgml: str, layout: object,
                      log: LossLog) -> None:
    """Read ``sgml`` (the DOC written from the text of ``doc``) back and report what does
    not come back. Text that the reader repaired can read otherwise once the COREF tags
    are put back (a stray ``<`` before a dropped ``</COREF>`` joins the text after it into
    a tag), and a new COREF tag may cross section tags, which end it when read."""
    spaces = isinstance(layout, MucLayout) and layout.spaces
    named = not isinstance(layout, MucLayout) or layout.named
    reader = _Reader(Source.from_text(sgml, "written.sgm"), Report(), False, "spaces" if spaces else "words")
    again = list(reader.documents())
    if len(again) != 1:
        log.lose("reread", f"the document as read from malformed SGML: written back, it reads as "
                 f"{len(again)} documents", document=doc)
        return
    back = again[0]
    differs = [what for what, a, b in zip(("tokens", "mentions", "chains"), _reading(doc, written),
                                         _reading(back, list(back.markables))) if a != b]
    if named and back.label != doc.label:
        differs.append("name")
    if differs:
        log.lose("reread", "the document as read (written back, it reads with other "
                 f"{', '.join(differs)})", document=doc)


def write(documents: Iterable[model.Document], *, corpus: model.Corpus, report: Report,
          min_from_head: bool = False, canonical: bool = False) -> Iterator[str]:
    for doc in documents:
        yield write_document(doc, report, min_from_head, canonical)
    tail = corpus.layout.get(NAME)
    if isinstance(tail, MucLayout) and tail.tail:
        yield tail.tail


def sniff(head: bytes) -> bool:
    return re.search(rb"<DOC[\s>]", head, re.I) is not None and re.search(rb"<COREF[\s>]|<DOC(ID|NO)[\s>]", head,
                                                                          re.I) is not None


CAPABILITIES = Capabilities(
    discontinuous=False, nested=True, crossing=False, same_entity_overlap=False, cross_sentence=True,
    entity_ids=False, link_structure=True, link_types=False, multi_target_links=False,
    markable_attributes=False, entity_attributes=False, link_attributes=False, heads=False, min=True,
    optional=True, layers=False, sets=False, token_attributes=False, token_ids=False, whitespace=False,
    offsets=True, text=True, regions=True, sentences=True, sentence_attributes=False, metadata=False,
    schemes=False, multiple_documents=True,
)

register(FormatSpec(
    name=NAME,
    description="MUC-6/7 coreference SGML (<DOC> … <COREF ID REF MIN STATUS>)",
    extensions=(".sgm", ".sgml"),
    ambiguous_extensions=(".xml", ".txt"),
    capabilities=CAPABILITIES,
    read=read,
    stream=stream,
    write=write,
    concatenates=True,
    options=(
        Option("min_from_head", bool, False, "write a mention's head as its MIN when it has no MIN (the head "
               "comes back as MIN, not as head)"),
        Option("canonical", bool, False, "ignore the source's COREF tags as written: write each one afresh "
               "(ID TYPE REF MIN STATUS, quoted); the text between them stays"),
        Option("tokens", str, "words", "how character data is cut into tokens: words (punctuation split off) "
               "or spaces (at white space only)", applies_to="read", choices=("words", "spaces")),
    ),
    sniff=sniff,
))
