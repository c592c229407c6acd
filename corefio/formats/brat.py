"""brat standoff: a document is a pair ``X.txt`` (the text) and ``X.ann`` (annotations
with character offsets into it); a directory of such pairs is a corpus (a brat
collection).

Lines of the ``.ann`` file, fields separated by TAB::

    T3<TAB>PROP_PER 0 5<TAB>Alice            text-bound annotation: type, fragments, text
    T4<TAB>NOM_PER 10 13;17 22<TAB>her sister discontinuous: fragments joined by ``;``
    R1<TAB>Coreference Arg1:T4 Arg2:T3       relation: type, two role:argument pairs
    *<TAB>Coreference T1 T2 T3               equivalence (a set of annotations)
    E1<TAB>Meet:T5 Agent:T3 Theme:E2         event: type and trigger, role:argument pairs
    A1<TAB>Negation T3                       binary attribute (value ``True``)
    A2<TAB>Number T3 plural                  attribute with a value (``M``: the same)
    N1<TAB>Reference T3 Wikipedia:534<TAB>Al normalisation: a link to an outside resource
    #1<TAB>AnnotatorNotes T3<TAB>free text     note

Coreference comes in two styles, both read:

* LitBank's: every mention is written twice with the same offsets, once with its
  entity type (``PROP_PER``) and once with its chain label as type (``Alice-1``). A
  ``T`` line whose type ends in ``-<digits>``, whose offsets are those of another
  ``T`` line of another type, and that no other line names, is such a label: it gives
  that mention its entity (the label). Labels pair with mentions in file order
  (:func:`label_pairs`, which the writer runs too, so that what it writes is read back
  as it meant it).
* relations: ``R`` lines of type ``Coreference`` (or another identity name, see
  :data:`corefio.model.mentions.IDENTITY_LINK_TYPES`, compared case-insensitively) are
  identity links, every other relation type a typed link from its first argument to its
  second; every ``*`` equivalence line (``Equiv``, ``Coreference``, ``Alias``: brat's
  equivalences say that annotations refer to the same thing) gives an identity link
  from its first member to each other one (ids ``*N``, ``*N.2``, ...), which the writer
  joins into one line again. A link of another type with several targets is written
  as one relation per target (``loss.multi-target-links``).

Markables are the other ``T`` lines (id: the ``T`` id; event triggers too); their type
is the markable attribute ``type`` (the type ``Mention``, which this writer uses for
markables without one, gives none). ``A``/``M`` lines on a mention or a relation give
its attributes, notes on a mention an attribute named by the note type.

What the pivot model has no place for is kept as written, for the brat writer: events,
normalisations, attributes and notes of events, relations and equivalences that name an
event. Writing another format reports them (``loss.uninterpreted``, by
:meth:`BratLayout.uninterpreted`). A line of a kind corefio interprets but spelt in a way
its writer would not spell it (a relation with a trailing TAB, two spaces) is written
back as it was while what it says is unchanged.

Tokens: brat has characters, not tokens. The text is cut at whitespace (reader option
``tokens=punctuation``: also around each punctuation mark) and at every fragment
boundary, so every mention starts and ends on a token boundary; a line is a sentence.
``Document.text`` holds the ``.txt`` and token offsets point into it, so the writer
gives the ``.txt`` back byte for byte. A document without a source text (read from
CoNLL, say), or whose text the reader would cut into other tokens or lines (MUC's text
with its markup, words not separated by spaces: ``loss.text``), is written with its
tokens separated by spaces, one sentence per line, and the ``.ann`` starts with the note
line :data:`TOKENS_MARK`: reading it back gives the tokens without a text (when the
``.txt`` is still such a text; else the mark is an ordinary note).

Entity ids are the chain labels; one that is not of the form ``NAME-N`` is written as
``NAME-0`` (blanks as ``_``) and reported as ``loss.label``. Markables of other layers
than coreference: see :mod:`corefio.formats._layers`. The order of lines, ids of label
lines, attribute ids, role names and the lines corefio does not interpret are kept in
:class:`BratLayout`.

A collection directory also holds brat's configuration (``annotation.conf``,
``visual.conf``, ``tools.conf``, ``kb_shortcuts.conf``) and often a ``README`` or
``LICENSE``: they are no documents; they are kept (:class:`CollectionLayout`) and
written back beside the documents. Other files are not read (an info says which).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ..io._lazy import LazyModule
from ..model.mentions import COREFERENCE, is_identity
from ..diagnostics import Report
from ..errors import FormatError, ModelError
from ..model.layout import FormatLayout
from .losses import LossLog, lose_entity_ids
from .registry import Capabilities, FormatSpec, Option, register
from ..io.source import Source, confined_path
from ._layers import coreference_layer
from ._lines import split_newlines

model = LazyModule("corefio.model")

NAME = "brat"
#: the first line of a ``.ann`` whose ``.txt`` this writer made from tokens
TOKENS_MARK = "#0\tcorefio-tokens\ttext made from tokens: one sentence per line, tokens separated by spaces"
#: the markable type written for a markable without a ``type`` attribute
DEFAULT_TYPE = "Mention"
_ID_KINDS = frozenset("TRAEMN#")
#: brat's own configuration files, and the usual notes of a data collection: not
#: documents; kept and written back (names compared case-insensitively; a README or
#: LICENSE may have an extension)
CONFIG_FILES = frozenset({"annotation.conf", "visual.conf", "tools.conf", "kb_shortcuts.conf"})
_NOTE_FILES = re.compile(r"^(readme|licen[cs]e|copying|notice|authors|citation)(\.[a-z]{1,8})?$", re.IGNORECASE)


#: one whitespace character (``\s`` in a str pattern is what ``str.isspace`` says): the
#: writer asks it of every word form, label and attribute value; one search of a compiled
#: pattern instead of a generator over the characters (``any(c.isspace() ...)``) or a
#: ``re.search`` looking the pattern up each time took writing the benchmark key as brat
#: from 1.04 s to 0.93 s of CPU (best of 3, the key already read; 2026-11-27)
_WHITESPACE = re.compile(r"\s")


def is_chain_label(type_: str) -> bool:
    """A type of the form ``NAME-N`` (LitBank's chain labels: ``Alice-1``)."""
    name, _, number = type_.rpartition("-")
    return bool(name) and number.isdigit() and number.isascii() and not _WHITESPACE.search(name)


def _is_id(value: str) -> bool:
    """``T12``, ``R3``, ``#1``...: a kind letter and a number."""
    rest = value[1:]
    return value[:1] in _ID_KINDS and rest.isdigit() and rest.isascii()


def label_pairs(tlines: Iterable[tuple[str, str, str]], referenced: set[str] | frozenset[str]) -> dict[str, str]:
    """Mention id → id of its chain label line, for the ``T`` lines ``(id, type,
    offsets as written)`` in file order: a label is a ``T`` of the form ``NAME-N`` that no
    line in ``referenced`` names; it labels the first mention (in file order) at its
    offsets that is no label itself and has no label yet."""
    tlines = list(tlines)
    # each type looked at once (most lines share a few types; the writer checks the
    # lines it composed this way: 0.22 s -> 0.10 s of CPU for the benchmark key)
    chain_labels = {type_ for type_ in {t[1] for t in tlines} if is_chain_label(type_)}
    candidates = [t for t in tlines if t[1] in chain_labels and t[0] not in referenced]
    if not candidates:
        return {}
    label_like = {t[0] for t in candidates}
    by_offsets: dict[str, list[str]] = {}
    for tid, _, offsets in tlines:
        if tid not in label_like:
            by_offsets.setdefault(offsets, []).append(tid)
    label_of: dict[str, str] = {}
    for tid, _, offsets in candidates:
        for mid in by_offsets.get(offsets, ()):
            if mid not in label_of:
                label_of[mid] = tid
                break
    return label_of


def references(kind: str, fields: list[str]) -> list[str]:
    """The annotation ids a non-``T`` line names (``fields``: the line cut at its first
    two TABs)."""
    words = fields[1].split() if len(fields) > 1 else []
    if kind in "RE":
        return [w.partition(":")[2] for w in words if ":" in w]
    if kind == "*":
        return words[1:]
    return words[1:2]  # A, M, N, #: the annotation they are about


@dataclass
class BratLayout(FormatLayout):
    """How one ``.ann`` file was written."""

    format: ClassVar[str] = NAME
    depends_on: ClassVar[frozenset[str]] = frozenset({"tokens", "sentences", "markables", "links", "entities",
                                                      "text"})

    #: the ids of the lines in file order (``*`` lines: the id of their link)
    order: list[str] = field(default_factory=list)
    #: markable id → id of its chain label ``T`` line (LitBank's style)
    labels: dict[str, str] = field(default_factory=dict)
    #: link id → its two role names (``Arg1``, ``Arg2``)
    roles: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: ``A``/``M``/``#`` id → (owner id, attribute name)
    attributes: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: markable id → offsets as written, where they differ from the token offsets
    fragments: dict[str, str] = field(default_factory=dict)
    #: T id → the text field as written, where it differs from the source text
    texts: dict[str, str] = field(default_factory=dict)
    #: line id → a line corefio does not interpret, as written
    raw: dict[str, str] = field(default_factory=dict)
    #: link id → its type as written, where the link type is the model's name for it
    #: (``Coreference`` → ``coreference``)
    link_types: dict[str, str] = field(default_factory=dict)
    #: line id → (the line as this writer spells it, the line as written) where the two
    #: differ: written as it was while the writer's spelling is unchanged
    verbatim: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: the ``.txt`` is the tokens separated by spaces (:data:`TOKENS_MARK`)
    made_text: bool = False
    newline: str = "\n"
    final_newline: bool = True

    def uninterpreted(self) -> tuple[int, str | None]:
        """How many lines only the brat writer writes (events, normalisations, ...),
        and the id of the first."""
        return len(self.raw), next(iter(self.raw), None)


@dataclass
class CollectionLayout(FormatLayout):
    """The files of a collection directory that are no documents (brat's configuration,
    README, LICENSE), by name, as read."""

    format: ClassVar[str] = NAME
    depends_on: ClassVar[frozenset[str]] = frozenset()

    files: dict[str, bytes] = field(default_factory=dict)


@dataclass
class _TLine:
    id: str
    type: str
    fragments: list[tuple[int, int]]
    offsets_text: str
    text: str
    line: int


def _fail(message: str, file: str, line: int | None = None) -> FormatError:
    return FormatError(message, file=file, line=line)


def _parse_t(tid: str, rest: list[str], text: str, file: str, lineno: int) -> _TLine:
    if len(rest) < 1:
        raise _fail(f"{tid}: a text-bound annotation needs 'TYPE START END'", file, lineno)
    type_, _, offsets = rest[0].partition(" ")
    if not type_ or not offsets:
        raise _fail(f"{tid}: a text-bound annotation needs 'TYPE START END'", file, lineno)
    fragments: list[tuple[int, int]] = []
    for piece in offsets.split(";"):
        start, _, end = piece.partition(" ")
        if not (start.isdigit() and end.isdigit() and start.isascii() and end.isascii()):
            raise _fail(f"{tid}: offsets {piece[:40]!r} are not 'START END'", file, lineno)
        if len(start) > 18 or len(end) > 18:  # no text is that long (and int() refuses 4300 digits)
            raise _fail(f"{tid}: offsets {piece[:40]!r} are outside the text ({len(text)} characters)", file, lineno)
        a, b = int(start), int(end)
        if not 0 <= a < b <= len(text):
            raise _fail(f"{tid}: offsets {a}..{b} are outside the text ({len(text)} characters) or empty",
                        file, lineno)
        if fragments and a < fragments[-1][1]:
            raise _fail(f"{tid}: fragments must be in text order without overlap", file, lineno)
        fragments.append((a, b))
    return _TLine(tid, type_, fragments, offsets, rest[1] if len(rest) > 1 else "", lineno)


#: how a text is cut into tokens (besides the mention boundaries), by reader option
#: (a byte order mark, which brat's offsets count, is no token either)
TOKEN_PATTERNS = {"whitespace": re.compile(r"[^\s\ufeff]+"), "punctuation": re.compile(r"\w+|[^\w\s\ufeff]")}


def _tokenise(text: str, cuts: set[int], pattern: re.Pattern[str] = TOKEN_PATTERNS["whitespace"]
              ) -> tuple[list[str], list[tuple[int, int]], list[tuple[int, int]]]:
    """Tokens (forms, offsets) of ``text``: cut at whitespace and at ``cuts``; sentences
    (first, last token) are the lines."""
    forms: list[str] = []
    offsets: list[tuple[int, int]] = []
    sentences: list[tuple[int, int]] = []
    cut_list = sorted(cuts)
    next_cut = 0  # index of the first cut not behind us
    pos = 0
    for line in text.split("\n"):
        first = len(forms)
        for m in pattern.finditer(line):
            a, b = pos + m.start(), pos + m.end()
            while next_cut < len(cut_list) and cut_list[next_cut] <= a:
                next_cut += 1
            start = a
            while next_cut < len(cut_list) and cut_list[next_cut] < b:
                c = cut_list[next_cut]
                forms.append(text[start:c])
                offsets.append((start, c))
                start = c
                next_cut += 1
            forms.append(text[start:b])
            offsets.append((start, b))
        if len(forms) > first:
            sentences.append((first, len(forms) - 1))
        pos += len(line) + 1
    return forms, offsets, sentences


_MADE_TEXT = re.compile(r"(?:\S+(?: \S+)*\n)*")


def _is_made_text(text: str, forms: list[str]) -> bool:
    """Is ``text`` what the writer makes from the tokens ``forms`` (separated by single
    spaces, a line end after each sentence)?"""
    return _MADE_TEXT.fullmatch(text) is not None and forms == text.split()


# -- the lines as this writer spells them (the reader compares with them) ----------------
def _relation_line(lid: str, type_: str, roles: tuple[str, str], source: str, target: str) -> str:
    return f"{lid}\t{type_} {roles[0]}:{source} {roles[1]}:{target}"


def _equivalence_line(type_: str, members: Iterable[str]) -> str:
    return f"*\t{type_} {' '.join(members)}"


def _attribute_line(aid: str, name: str, owner: str, value: Any) -> str:
    return f"{aid}\t{name} {owner}" + ("" if value is True else f" {value}")


def _note_line(aid: str, name: str, owner: str, value: str) -> str:
    return f"{aid}\t{name} {owner}\t{value}"


def one_line(value: str) -> str:
    """``value`` without line ends or TABs (as spaces): a field of one line."""
    return value.replace("\r", " ").replace("\n", " ").replace("\t", " ") \
        if "\n" in value or "\r" in value or "\t" in value else value


def parse(ann: str, text: str, *, name: str, file: str, report: Report, newline: str = "\n",
          tokens: str = "whitespace") -> Any:
    """One document from the ``.ann`` text (LF line ends) and the ``.txt`` text."""
    lines = ann.split("\n")
    final_newline = ann.endswith("\n") or not ann
    if lines and lines[-1] == "":
        lines.pop()
    marked = bool(lines) and lines[0] == TOKENS_MARK
    layout = BratLayout(newline=newline, final_newline=final_newline)
    tlines: dict[str, _TLine] = {}
    others: list[tuple[str, list[str], int]] = []
    seen: set[str] = set()
    equiv = 0
    for lineno, line in enumerate(lines, 1):
        if marked and lineno == 1:
            continue
        if not line.strip():
            report.warning("brat.blank-line", "blank lines in an annotation file are skipped (and not written "
                           "back)", file=file, line=lineno, merge=True)
            continue
        fields = line.split("\t", 2)  # a text field may hold a TAB
        lid = fields[0]
        if lid == "*":
            equiv += 1
            lid = f"*{equiv}"
        elif lid in ("MENTION", "COREF"):
            raise _fail("this is LitBank's TSV, not brat: read it with --from litbank-tsv", file, lineno)
        elif not _is_id(lid):
            raise _fail(f"{lid!r} is not a brat annotation id (T1, R1, E1, A1, M1, N1, #1, *)", file, lineno)
        if lid in seen:
            raise _fail(f"duplicate annotation id {lid}", file, lineno)
        seen.add(lid)
        layout.order.append(lid)
        if lid.startswith("T"):
            t = tlines[lid] = _parse_t(lid, fields[1:], text, file, lineno)
            spelt = f"{lid}\t{t.type} {t.offsets_text}\t{t.text}"
            if spelt != line:  # no text field, say
                layout.verbatim[lid] = (spelt, line)
        else:
            others.append((lid, fields, lineno))
    referenced: set[str] = set()
    for lid, fields, lineno in others:
        for ref in references(lid[0], fields):
            if ref not in seen or ref.startswith("*"):
                raise _fail(f"{lid[0] if lid[0] == '*' else lid}: {ref} is no annotation of this file", file, lineno)
            referenced.add(ref)
    label_of = label_pairs(((t.id, t.type, t.offsets_text) for t in tlines.values()), referenced)
    label_ids = set(label_of.values())
    mention_ids = [tid for tid in tlines if tid not in label_ids]
    cuts: set[int] = set()
    for tid in mention_ids:
        for a, b in tlines[tid].fragments:
            cuts.add(a)
            cuts.add(b)
    forms, offsets, sentence_bounds = _tokenise(text, cuts, TOKEN_PATTERNS[tokens])
    made = marked and _is_made_text(text, forms)
    if marked and not made:  # the mark of a text that is no longer the tokens: an ordinary note
        layout.order.insert(0, "#0")
        layout.raw["#0"] = TOKENS_MARK
        if "#0" in seen:
            raise _fail("duplicate annotation id #0", file, 1)
    layout.made_text = made
    start_token = {a: i for i, (a, _) in enumerate(offsets)}
    end_token = {b: i for i, (_, b) in enumerate(offsets)}
    starts = [a for a, _ in offsets]
    ends = [b for _, b in offsets]
    markables: list[Any] = []
    markable_attrs: dict[str, dict[str, Any]] = {}
    for tid in mention_ids:
        t = tlines[tid]
        spans: list[tuple[int, int]] = []
        for a, b in t.fragments:
            first = start_token.get(a)
            if first is None:
                first = bisect_left(ends, a + 1)  # first token ending after a
            last = end_token.get(b)
            if last is None:
                last = bisect_right(starts, b - 1) - 1  # last token starting before b
            if first >= len(forms) or last < first:
                raise _fail(f"{tid}: offsets {a}..{b} cover only whitespace", file, t.line)
            if spans and first <= spans[-1][1] + 1:
                spans[-1] = (spans[-1][0], max(last, spans[-1][1]))
            else:
                spans.append((first, last))
        expected = ";".join(f"{offsets[a][0]} {offsets[b][1]}" for a, b in spans)
        if expected != t.offsets_text:
            layout.fragments[tid] = t.offsets_text
        if t.text != _text_field(text, t.fragments):
            layout.texts[tid] = t.text
        attrs: dict[str, Any] = {}
        if t.type != DEFAULT_TYPE:
            attrs["type"] = t.type
        markable_attrs[tid] = attrs
        entity = None
        if tid in label_of:
            label = tlines[label_of[tid]]
            entity = label.type
            layout.labels[tid] = label.id
            if label.text != t.text:
                layout.texts[label.id] = label.text
        markables.append((tid, tuple(spans), entity, attrs))
    links: list[Any] = []
    link_attrs: dict[str, dict[str, Any]] = {}
    mentions = set(mention_ids)

    def keep_raw(lid: str, fields: list[str], lineno: int) -> None:
        layout.raw[lid] = "\t".join(fields)
        report.info("brat.kept-as-written", "annotations corefio does not interpret (events, normalisations, "
                    "what names them) are kept as written for the brat writer; other formats report them lost",
                    file=file, line=lineno, merge=True, example=lid)

    for lid, fields, lineno in others:
        kind = lid[0]
        line = "\t".join(fields)
        words = fields[1].split() if len(fields) > 1 else []
        refs = references(kind, fields)
        if kind == "R":
            if len(words) != 3 or any(not w.partition(":")[0] or ":" not in w for w in words[1:]):
                raise _fail(f"{lid}: a relation needs 'TYPE ROLE1:ARG ROLE2:ARG'", file, lineno)
            if not all(ref in mentions for ref in refs):
                keep_raw(lid, fields, lineno)
                continue
            roles = (words[1].partition(":")[0], words[2].partition(":")[0])
            written = words[0]
            type_ = COREFERENCE if written.lower() in _IDENTITY_NAMES else written
            if type_ != written:
                layout.link_types[lid] = written
            layout.roles[lid] = roles
            spelt = _relation_line(lid, written, roles, refs[0], refs[1])
            if spelt != line:
                layout.verbatim[lid] = (spelt, line)
            link_attrs[lid] = {}
            links.append(model.Link.fast(lid, refs[0], (refs[1],), type_, attributes=link_attrs[lid]))
        elif kind == "*":
            if len(words) < 3:
                raise _fail("an equivalence line needs 'TYPE ID ID ...'", file, lineno)
            if not all(ref in mentions for ref in refs):
                keep_raw(lid, fields, lineno)
                continue
            written = words[0]  # Equiv, Coreference, Alias...: brat's equivalences are identity
            if written != COREFERENCE:
                layout.link_types[lid] = written
            spelt = _equivalence_line(written, refs)
            if spelt != line:
                layout.verbatim[lid] = (spelt, line)
            # one identity link per member after the first (its group: the id *N, *N.2, ...)
            links.extend(model.Link.fast(lid if k == 1 else f"{lid}.{k}", refs[0], (ref,), COREFERENCE)
                         for k, ref in enumerate(refs[1:], 1))
        elif kind in "AM":
            if len(words) not in (2, 3):
                raise _fail(f"{lid}: an attribute needs 'NAME ID [VALUE]'", file, lineno)
            owner = words[1]
            target = markable_attrs.get(owner)
            if target is None:
                target = link_attrs.get(owner)
            if target is None or words[0] in target or (words[0] == "type" and owner in markable_attrs):
                keep_raw(lid, fields, lineno)  # about an event, or a second value of one attribute
                continue
            value: Any = words[2] if len(words) == 3 else True
            spelt = _attribute_line(lid, words[0], owner, value)
            if spelt != line:
                layout.verbatim[lid] = (spelt, line)
            target[words[0]] = value
            layout.attributes[lid] = (owner, words[0])  # an M line keeps its id, so its kind
        elif kind == "#" and len(fields) == 3 and len(words) == 2 and words[1] in markable_attrs \
                and words[0] not in markable_attrs[words[1]] and words[0] != "type":
            note, owner = words
            spelt = _note_line(lid, note, owner, fields[2])
            if spelt != line:
                layout.verbatim[lid] = (spelt, line)
            markable_attrs[owner][note] = fields[2]
            layout.attributes[lid] = (owner, note)
        else:
            if kind == "E" and (not words or any(":" not in w for w in words)):
                raise _fail(f"{lid}: an event needs 'TYPE:TRIGGER ROLE:ARG ...'", file, lineno)
            if kind == "N" and len(words) < 3:
                raise _fail(f"{lid}: a normalisation needs 'TYPE ID RESOURCE:ENTRY'", file, lineno)
            keep_raw(lid, fields, lineno)
    # every field of a Markable, built in one call (10⁵ markables: no call per markable)
    built = [model.Markable(id=tid, spans=spans, entity=entity, attributes=attrs)
             for tid, spans, entity, attrs in markables]
    sentences = [model.Sentence(first=a, last=b) for a, b in sentence_bounds]
    tokens_ = model.Tokens(forms=forms) if made else model.Tokens(forms=forms, offsets=offsets)
    try:
        return model.Document.build(
            name=name, tokens=tokens_, sentences=sentences, markables=built, links=links,
            text=None if made else text, layout={NAME: layout},
        )
    except ModelError as exc:
        raise _fail(str(exc), file) from None


_IDENTITY_NAMES = frozenset({"coreference", "coref", "identity", "ident", "equiv"})
#: the id of an identity link read from an equivalence line: ``*N`` (first member after
#: the first), ``*N.K`` (the K-th)
_EQUIVALENCE_ID = re.compile(r"^(\*\d+)(?:\.\d+)?$")


def _text_field(text: str, fragments: Iterable[tuple[int, int]]) -> str:
    """What brat writes as the text of a fragment list: the fragments' texts joined by a
    space, line ends and tabs as spaces."""
    return one_line(" ".join(text[a:b] for a, b in fragments))


def _collection_file(name: str) -> bool:
    """Is ``name`` one of brat's configuration files or a note of the collection?"""
    return name.lower() in CONFIG_FILES or _NOTE_FILES.match(name) is not None


def pairs(source: Source, what: str) -> list[tuple[Path, Path, str]]:
    """``(X.ann, X.txt, X)`` for the ``.ann`` file ``source`` names, or for every ``.ann``
    of the directory it names (in name order); the ``.txt`` must lie beside it."""
    if source.path is None:
        raise _fail(f"{what} is read from a .ann file (with its .txt) or a directory, not from memory",
                    source.name)
    path = source.path
    if path.is_dir():
        names = sorted(p.name for p in path.iterdir() if p.name.endswith(".ann") and not p.name.startswith("."))
        if not names:
            raise _fail("the directory holds no .ann file", str(path))
        found = []
        for ann in names:
            stem = ann[: -len(".ann")]
            ann_path = confined_path(path, ann, file=path, what=".ann file")
            found.append((ann_path, confined_path(path, stem + ".txt", file=ann_path, what=".txt file"), stem))
        return found
    if not path.name.endswith(".ann"):
        raise _fail(f"a {what} document is read from its .ann file", str(path))
    stem = path.name[: -len(".ann")]
    return [(path, confined_path(path.parent, stem + ".txt", file=path, what=".txt file"), stem)]


def collection_files(source: Source, report: Report) -> dict[str, bytes]:
    """The configuration and note files of the directory ``source`` names (none for a
    ``.ann`` file); the other files that are no document are named in an info."""
    path = source.path
    if path is None or not path.is_dir():
        return {}
    kept: dict[str, bytes] = {}
    skipped: list[str] = []
    documents = {p.name[:-4] for p in path.iterdir() if p.name.endswith(".ann")}
    for entry in sorted(path.iterdir()):
        name = entry.name
        if name.startswith(".") or name.endswith(".ann") or (name.endswith(".txt") and name[:-4] in documents):
            continue
        if entry.is_file() and _collection_file(name):
            member = confined_path(path, name, file=path, what="collection file")
            try:
                kept[name] = member.read_bytes()
            except OSError as exc:
                raise _fail(f"cannot read {name}: {exc.strerror}", str(path)) from None
        else:
            skipped.append(name + ("/" if entry.is_dir() else ""))
    if skipped:
        report.info("brat.not-read", "files and folders of the directory that are neither a document (.ann with "
                    f"its .txt) nor brat's configuration or a README/LICENSE are not read: {', '.join(skipped[:5])}"
                    + (" ..." if len(skipped) > 5 else ""), file=str(path), count=len(skipped), example=skipped[0])
    return kept


def read_pair_texts(ann_path: Path, txt_path: Path, keep_bom: bool = False) -> tuple[str, str, str]:
    """The ``.ann`` text (LF line ends), its line end and the ``.txt`` text (``keep_bom``:
    with its byte order mark as U+FEFF, a character brat's offsets count)."""
    from ..io.files import decode_utf8

    file = str(ann_path)
    try:
        raw_ann = ann_path.read_bytes()
    except OSError as exc:
        raise _fail(f"cannot read the annotation file: {exc.strerror}", file) from None
    try:
        raw_txt = txt_path.read_bytes()
    except FileNotFoundError:
        raise _fail(f"the text file {txt_path.name} is missing (the document is X.ann with X.txt beside it)",
                    file) from None
    except OSError as exc:
        raise _fail(f"cannot read the text file {txt_path.name}: {exc.strerror}", file) from None
    text = decode_utf8(raw_txt, str(txt_path))
    if keep_bom and raw_txt.startswith(b"\xef\xbb\xbf"):
        text = "\ufeff" + text
    ann, newline = split_newlines(decode_utf8(raw_ann, file), file)
    return ann, newline, text


def read(source: Source, *, report: Report, strict: bool = False, tokens: str | None = None) -> Any:
    """A ``.ann`` file (its ``.txt`` beside it) or a directory of pairs; ``tokens``:
    ``whitespace`` (default) or ``punctuation`` (also a token per punctuation mark)."""
    documents = []
    for ann_path, txt_path, stem in pairs(source, "brat"):
        ann, newline, text = read_pair_texts(ann_path, txt_path, keep_bom=True)
        documents.append(parse(ann, text, name=stem, file=str(ann_path), report=report, newline=newline,
                               tokens=tokens or "whitespace"))
    kept = collection_files(source, report)
    return model.Corpus(documents=documents, metadata={}, schemes=[],
                        layout={NAME: CollectionLayout(files=kept)} if kept else {})


# -- writing ----------------------------------------------------------------------------
def _unchanged(words: list[str]) -> bool:
    """Whether :func:`_made_text` writes these words as they are: none empty, none with
    whitespace."""
    return bool(words) and "" not in words and not _WHITESPACE.search("".join(words))


def _made_text(doc: Any, log: LossLog) -> tuple[str, list[tuple[int, int]]]:
    """The text of a document without one: tokens separated by spaces, a line per sentence."""
    forms = doc.tokens.forms
    bounds = [(s.first, s.last) for s in doc.sentences] or ([(0, len(forms) - 1)] if forms else [])
    pieces: list[str] = []
    offsets: list[tuple[int, int]] = []
    pos = 0
    bad = 0
    for a, b in bounds:
        words = forms[a:b + 1]
        if _unchanged(words):
            # no word to change (most sentences): joined at once, not word by word
            # (convert --to brat of the benchmark key: 1.58 s -> 1.39 s CPU)
            for word in words:
                offsets.append((pos, pos + len(word)))
                pos += len(word) + 1
            pieces.append(" ".join(words))
            pieces.append("\n")
            continue
        for i in range(a, b + 1):
            form = forms[i]
            if not form or _WHITESPACE.search(form):
                bad += 1
                form = _WHITESPACE.sub("_", form) or "_"
            if i > a:
                pieces.append(" ")
                pos += 1
            pieces.append(form)
            offsets.append((pos, pos + len(form)))
            pos += len(form)
        pieces.append("\n")
        pos += 1
    if bad:
        log.lose("form", "empty word forms or forms with whitespace (brat cuts tokens at whitespace)",
                 document=doc, count=bad)
    return "".join(pieces), offsets


def _cut_again(doc: Any, lay: BratLayout | None) -> bool:
    """Does the reader cut ``doc.text`` into ``doc``'s tokens and sentences again (at
    whitespace, or also at punctuation, and at the fragments the writer writes)?"""
    assert doc.text is not None and doc.tokens.offsets is not None
    offsets = doc.tokens.offsets
    cuts: set[int] = set()
    for m in doc.markables:
        if lay is not None and m.id in lay.fragments:
            pieces = [tuple(map(int, f.split(" "))) for f in lay.fragments[m.id].split(";")]
        else:
            pieces = [(offsets[a][0], offsets[b][1]) for a, b in m.spans]
        for a, b in pieces:
            cuts.update((a, b))
    sentences = [(s.first, s.last) for s in doc.sentences]
    for pattern in TOKEN_PATTERNS.values():
        _, found, lines = _tokenise(doc.text, cuts, pattern)
        if found == list(offsets) and (not sentences or lines == sentences):
            return True
    return False


def _value_ok(name: str, value: Any) -> bool:
    return bool(name) and not _WHITESPACE.search(name) and (
        value is True or (isinstance(value, str) and value != "" and not _WHITESPACE.search(value)))


@dataclass
class _Written:
    """One composition of a ``.ann``: its lines by id, their order, the ``T`` lines
    ``(id, type, offsets)`` and which mention each chain label line labels."""

    lines: dict[str, str]
    order: list[str]
    tlines: dict[str, tuple[str, str, str]]
    labels: dict[str, str]
    referenced: set[str]
    #: markable ref → its ``T`` id
    tid_of: dict[str, str]


def _compose(doc: Any, lay: BratLayout | None, text: str, offsets: list[tuple[int, int]], log: LossLog,
             renamed_types: dict[str, str], own_order: bool) -> _Written:
    """The lines of the ``.ann`` of ``doc`` (``renamed_types``: markable id → the type
    written instead of its own; ``own_order``: the writer's order, not the source's)."""
    lines: dict[str, str] = {}
    order: list[str] = []
    tlines: dict[str, tuple[str, str, str]] = {}
    written_labels: dict[str, str] = {}
    referenced: set[str] = set()
    used = {m.id for m in doc.markables} | {link.id for link in doc.links}
    if lay is not None:
        used |= set(lay.order)
    counters = {"T": 0, "R": 0, "A": 0}

    def fresh(kind: str) -> str:
        while True:
            counters[kind] += 1
            candidate = f"{kind}{counters[kind]}"
            if candidate not in used:
                used.add(candidate)
                return candidate

    def put(lid: str, line: str) -> None:
        if lay is not None:
            spelt, as_written = lay.verbatim.get(lid, (None, None))
            if spelt == line:
                line = as_written  # type: ignore[assignment]
        lines[lid] = line
        order.append(lid)

    tid_of: dict[str, str] = {}
    for m in doc.markables:
        tid_of[m.ref] = m.id if m.id.startswith("T") and _is_id(m.id) else ""
    for ref, tid in tid_of.items():
        if not tid:
            tid_of[ref] = fresh("T")
    labels = lay.labels if lay is not None else {}
    attribute_ids = {v: k for k, v in lay.attributes.items()} if lay is not None else {}
    bad_values = 0
    renamed: set[str] = set()  # entity ids that are no chain label (NAME-N)
    for m in doc.markables:
        tid = tid_of[m.ref]
        if lay is not None and m.id in lay.fragments:
            frag = lay.fragments[m.id]
            fragments = [tuple(map(int, f.split(" "))) for f in frag.split(";")]
        else:
            fragments = [(offsets[a][0], offsets[b][1]) for a, b in m.spans]
            frag = ";".join(f"{a} {b}" for a, b in fragments)
        field_text = lay.texts.get(tid, None) if lay is not None else None
        if field_text is None:
            field_text = _text_field(text, fragments)  # type: ignore[arg-type]
        type_ = m.attributes.get("type", DEFAULT_TYPE)
        if not _value_ok("type", type_) or type_ is True:
            bad_values += 1
            type_ = DEFAULT_TYPE
        type_ = renamed_types.get(m.ref, type_)
        put(tid, f"{tid}\t{type_} {frag}\t{field_text}")
        tlines[tid] = (tid, type_, frag)
        if m.entity is not None:
            label = str(m.entity)
            if not is_chain_label(label):
                renamed.add(label)
                label = _WHITESPACE.sub("_", label) + "-0"
            lid = labels.get(m.id) or fresh("T")
            label_text = lay.texts.get(lid) if lay is not None else None
            put(lid, f"{lid}\t{label} {frag}\t{field_text if label_text is None else label_text}")
            tlines[lid] = (lid, label, frag)
            written_labels[tid] = lid
        for name, value in m.attributes.items():
            if name == "type":
                continue
            aid = attribute_ids.get((m.id, name))
            if aid is not None and aid.startswith("#") and isinstance(value, str) and "\n" not in value \
                    and "\r" not in value and _value_ok(name, True):
                put(aid, _note_line(aid, name, tid, value))  # a note: free text
            elif _value_ok(name, value):
                aid = aid if aid is not None and not aid.startswith("#") else fresh("A")
                put(aid, _attribute_line(aid, name, tid, value))
            else:
                bad_values += 1
                continue
            referenced.add(tid)
    refs = {m.ref: tid_of[m.ref] for m in doc.markables}
    first_of_entity: dict[str, str] = {}
    for m in doc.markables:
        if m.entity is not None:
            first_of_entity.setdefault(m.entity, m.ref)
    lost_links = 0
    unnamed_attributes = 0
    equivalences = 0
    # the identity links of one equivalence line as read (ids *N, *N.2, ...): one line again
    groups: dict[str, list[Any]] = {}
    for link in doc.links:
        group = _EQUIVALENCE_ID.match(link.id)
        if group is not None and is_identity(link.type) and link.target_kind == "markable":
            groups.setdefault(group.group(1), []).append(link)
    grouped: dict[str, list[str]] = {}  # id of a group's first link → the targets of all its links
    in_group: set[str] = set()
    for members in groups.values():
        if len({link.source for link in members}) == 1 and len(members) > 1:
            grouped[members[0].id] = [t for link in members for t in link.targets]
            in_group.update(link.id for link in members[1:])
    for link in doc.links:
        if link.id in in_group:
            continue
        targets = list(grouped.get(link.id, link.targets))
        if link.target_kind == "entity":
            targets = [first_of_entity[t] for t in targets if t in first_of_entity]
            if len(targets) != len(link.targets):
                lost_links += 1
                continue
        source = refs[link.source]
        args = [refs[t] for t in targets]
        written_type = lay.link_types.get(link.id) if lay is not None else None
        type_ = written_type or ("Coreference" if is_identity(link.type) else link.type)
        if not _value_ok(type_, True):
            bad_values += 1
            continue
        referenced.update([source, *args])
        if is_identity(link.type) and (link.id.startswith("*") or len(args) > 1):
            lid = link.id if link.id.startswith("*") else ""
            while not lid or lid in lines:
                equivalences += 1
                lid = f"*new{equivalences}"
            put(lid, _equivalence_line(type_, [source, *args]))
            unnamed_attributes += bool(link.attributes)  # an equivalence line has no id to name
            continue
        roles = lay.roles.get(link.id, ("Arg1", "Arg2")) if lay is not None else ("Arg1", "Arg2")
        lid = link.id if link.id.startswith("R") and _is_id(link.id) else fresh("R")
        for k, arg in enumerate(args):
            rid = lid if k == 0 else fresh("R")
            put(rid, _relation_line(rid, type_, roles, source, arg))
        for name, value in link.attributes.items():
            aid = attribute_ids.get((link.id, name)) or fresh("A")
            if _value_ok(name, value):
                put(aid, _attribute_line(aid, name, lid, value))
            else:
                bad_values += 1
    if lay is not None:
        for lid, line in lay.raw.items():
            lines[lid] = line
            referenced.update(references(line[:1], line.split("\t", 2)))
    if bad_values:
        log.lose("value", "attribute or type names or values with whitespace, empty or not text (brat "
                 "attributes are single words)", document=doc, count=bad_values)
    if lost_links:
        log.lose("link-types", "links to entities without mentions", document=doc, count=lost_links)
    if unnamed_attributes:
        log.lose("link-attributes", "attributes of identity links written as equivalence lines (such a line "
                 "has no id an attribute could name)", document=doc, count=unnamed_attributes)
    if renamed:
        lose_entity_ids(log, doc, sorted(renamed), "entity ids that are no chain label NAME-N (written as NAME-0)")
    if lay is not None and not own_order:
        # the source's order; lines it did not have (none, unless edited) at the end
        ordered = [lid for lid in lay.order if lid in lines]
        placed = set(ordered)
        order = ordered + [lid for lid in order if lid not in placed]
    else:
        placed = set(order)
        order = order + [lid for lid in lines if lid not in placed]
    return _Written(lines, order, tlines, written_labels, referenced, tid_of)


def _misread(written: _Written) -> bool:
    """Would the reader pair other chain labels with other mentions than meant?"""
    found = label_pairs((written.tlines[lid] for lid in written.order if lid in written.tlines),
                        written.referenced)
    return found != written.labels


def _labelled_first(written: _Written) -> list[str]:
    """The order of ``written`` with each mention without a chain label that shares its
    offsets with a labelled one moved to the end (labels pair with the first mentions at
    their offsets)."""
    labelled_at = {written.tlines[tid][2] for tid in written.labels}
    label_lines = set(written.labels.values())
    late = [lid for lid in written.order if lid in written.tlines and lid not in written.labels
            and lid not in label_lines and written.tlines[lid][2] in labelled_at]
    moved = set(late)
    return [lid for lid in written.order if lid not in moved] + late


def document_files(doc: Any, report: Report) -> tuple[str, str]:
    """The ``.ann`` and ``.txt`` texts of one document."""
    doc = coreference_layer(doc)  # loss.layers is reported before writing
    lay = doc.layout.get(NAME)
    lay = lay if isinstance(lay, BratLayout) and not (lay.made_text and doc.text is not None) else None
    head: list[str] = []
    if doc.text is not None and doc.tokens.offsets is not None and _cut_again(doc, lay):
        text, offsets = doc.text, doc.tokens.offsets
    else:
        if doc.text is not None:
            LossLog(report, NAME).lose(
                "text", "a source text that does not give its tokens back when cut at whitespace (markup, words "
                "not separated by spaces): written as the tokens separated by spaces", document=doc)
        text, offsets = _made_text(doc, LossLog(report, NAME))
        head = [TOKENS_MARK]
        if lay is not None and not lay.made_text:
            lay = None
    # compose quietly first: a second composition (below) would report its losses twice
    attempt = Report()
    written = _compose(doc, lay, text, offsets, LossLog(attempt, NAME), {}, own_order=False)
    if _misread(written):
        # a markable whose type looks like a chain label, at the offsets of another line,
        # would be read as a label: its type gets a '_'
        at: dict[str, int] = {}
        for _, _, frag in written.tlines.values():
            at[frag] = at.get(frag, 0) + 1
        renamed_types = {}
        for m in doc.markables:
            tid, type_, frag = written.tlines[written.tid_of[m.ref]]
            if is_chain_label(type_) and at[frag] > 1 and tid not in written.referenced:
                renamed_types[m.ref] = type_ + "_"
        if renamed_types:
            example = next(iter(renamed_types.values()))
            LossLog(report, NAME).lose(
                "value", "markable types of the form NAME-N at the offsets of another annotation (brat would read "
                "them as chain labels): written with '_' added", document=doc, count=len(renamed_types),
                example=f"{example[:-1]} → {example}")
        written = _compose(doc, lay, text, offsets, LossLog(Report(), NAME), renamed_types, own_order=False)
        if _misread(written):
            written = _compose(doc, lay, text, offsets, LossLog(Report(), NAME), renamed_types, own_order=True)
            written.order = _labelled_first(written)
        assert not _misread(written), "brat writer: chain labels would be read back differently"
    report.extend(attempt)
    newline = lay.newline if lay is not None else "\n"
    body = head + [written.lines[lid] for lid in written.order]
    ann = newline.join(body)
    if body and (lay is None or lay.final_newline):
        ann += newline
    return ann, text


#: longest file name (in UTF-8 bytes, before the extension) the writer makes
MAX_STEM_BYTES = 200


def file_stem(doc: Any, k: int, taken: dict[str, bytes] | set[str]) -> str:
    """The file name (without extension) document ``k`` is written under: its name (and
    part), with what a file name cannot hold replaced, made unique among ``taken``."""
    name = doc.name if doc.part is None else f"{doc.name}_{doc.part}"
    name = re.sub(r"[/\\\x00-\x1f]", "_", name) or f"document_{k + 1}"
    if name.startswith("."):
        name = "_" + name
    if len(name.encode("utf-8")) > MAX_STEM_BYTES:
        name = name.encode("utf-8")[:MAX_STEM_BYTES].decode("utf-8", "ignore")
    candidate, n = name, 0
    while f"{candidate}.ann" in taken or f"{candidate}.txt" in taken:
        n += 1
        candidate = f"{name}_{k + 1}" if n == 1 else f"{name}_{k + 1}_{n}"
    return candidate


def pair_files(corpus: Any, report: Report, files: Callable[[Any, Report], tuple[str, str]],
               format_name: str = NAME) -> dict[str, bytes]:
    """``NAME.ann`` and ``NAME.txt`` for every document, ``files(doc, report)`` giving the
    two texts (brat's own, or LitBank TSV's rows beside the same text), and the
    collection's own files (configuration, README) the reader kept. A document whose
    file name is not its name (and part) is reported: ``loss.document-name``."""
    out: dict[str, bytes] = {}
    kept = corpus.layout.get(format_name)
    if isinstance(kept, CollectionLayout):
        out.update(kept.files)
    changed: list[str] = []
    joined: list[str] = []
    for k, doc in enumerate(corpus.documents):
        name = file_stem(doc, k, out)
        if name != doc.name:
            (joined if doc.part is not None and name == f"{doc.name}_{doc.part}" else changed).append(
                f"{doc.label!r} → {name!r}")
        ann, text = files(doc, report)
        out[f"{name}.ann"] = ann.encode("utf-8")
        out[f"{name}.txt"] = text.encode("utf-8")
    log = LossLog(report, format_name)
    if changed:
        log.lose("document-name", "document names that are no file name, or that another document's file "
                 "has: written under another name", count=len(changed), example=", ".join(changed[:3]))
    if joined:
        log.lose("document-name", "part numbers apart from the document name: written as NAME_PART",
                 count=len(joined), example=", ".join(joined[:3]), severity="info")
    return out


def named_pair(files: dict[str, bytes], target: Path, report: Report, source: str = "the input",
               format_name: str = NAME) -> dict[Path, bytes]:
    """The files of a corpus written as a brat (or LitBank TSV) collection (``files``, by name), placed as
    the user named them: the one document's ``.ann`` as ``target`` (``out.ann``) and its
    ``.txt`` beside it (``out.txt``). brat names a document after its files, so a
    document name that differs is reported (``loss.document-name``, info); collection
    files (``annotation.conf``, a README) have no place beside one file
    (``loss.collection-files``). Several documents cannot be one pair: an error that
    says to give a directory."""
    from ..errors import UsageError

    anns = sorted(name for name in files if name.endswith(".ann"))
    if len(anns) != 1:
        raise UsageError(f"{format_name} writes one .ann/.txt pair per document and {source} holds "
                         f"{len(anns)} documents: give a directory (a name without .ann) to write them into",
                         file=str(target))
    stem = anns[0][:-len(".ann")]
    text = target.with_suffix(".txt")
    log = LossLog(report, format_name)
    if stem != target.stem:
        log.lose("document-name", f"a document name other than its files' name: {stem!r} written as "
                 f"{target.name} and {text.name} reads back as {target.stem!r}", severity="info")
    others = sorted(name for name in files if name not in (anns[0], f"{stem}.txt"))
    if others:
        log.lose("collection-files", "a collection's own files (configuration, README) beside one document: "
                 "not written (write to a directory to keep them)",
                 count=len(others), example=", ".join(others[:3]))
    return {target: files[anns[0]], text: files[f"{stem}.txt"]}


def write_files(corpus: Any, *, report: Report) -> dict[str, bytes]:
    """``NAME.ann`` and ``NAME.txt`` for every document."""
    return pair_files(corpus, report, document_files)


def sniff(head: bytes) -> bool:
    """A brat annotation line first (or nothing: a document without annotations)."""
    first = head.lstrip(b"\xef\xbb\xbf").split(b"\n", 1)[0].rstrip(b"\r")
    return not first or re.match(rb"^(T\d+\t\S+ \d+ \d+|[RAMEN]\d+\t|\*\t|#\d*\t)", first) is not None


def first_ann_head(path: Path) -> tuple[bool, bytes | None]:
    """Does the directory ``path`` hold ``.ann`` files, and the first bytes of the first
    one that is not empty (None: all are empty)."""
    try:
        anns = sorted(p for p in path.iterdir() if p.name.endswith(".ann") and not p.name.startswith(".")
                      and p.is_file())
    except OSError:
        return False, None
    for ann in anns[:50]:
        try:
            with open(ann, "rb") as f:
                head = f.read(4096)
        except OSError:
            continue
        if head.strip():
            return True, head
    return bool(anns), None


def sniff_directory(path: Path) -> bool:
    """A brat collection: ``.ann`` files, unless the first one that is not empty has
    LitBank TSV's rows (a folder of ``.ann`` files in neither format is brat's, whose
    reader names the first bad line); or brat's ``annotation.conf`` beside texts."""
    held, head = first_ann_head(path)
    if not held:
        return (path / "annotation.conf").is_file() and any(path.glob("*.txt"))
    return head is None or re.match(rb"^(\xef\xbb\xbf)?(MENTION|COREF)\t", head) is None


CAPABILITIES = Capabilities(
    discontinuous=True, nested=True, crossing=True, same_entity_overlap=True, cross_sentence=True,
    entity_ids=True, link_structure=True, link_types=True, multi_target_links=False,
    markable_attributes=True, entity_attributes=False, link_attributes=True, heads=False, min=False,
    optional=False, layers=False, sets=False, token_attributes=False, token_ids=False, whitespace=False,
    offsets=True, text=True, regions=False, sentences=True, sentence_attributes=False, metadata=False,
    schemes=False, multiple_documents=True,
)

register(FormatSpec(
    name=NAME,
    description="brat standoff (.ann + .txt, a directory of pairs): LitBank chain labels, relations, "
                "equivalences, attributes, notes; events and normalisations kept for brat",
    extensions=(),
    ambiguous_extensions=(".ann",),
    capabilities=CAPABILITIES,
    read=read,
    write_files=write_files,
    options=(
        Option("tokens", str, "whitespace", "how the text is cut into tokens besides mention boundaries: at "
               "whitespace (pre-tokenised texts such as LitBank's) or also around each punctuation mark",
               applies_to="read", choices=tuple(TOKEN_PATTERNS)),
    ),
    sniff=sniff,
    sniff_directory=sniff_directory,
    directory=True,
))
