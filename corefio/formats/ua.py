"""Universal Anaphora CoNLL-U Plus (``.CONLLUA``, the UA proposal v1.1 "exploded" form).

A file may start with ``# global.columns = ID FORM LEMMA ... IDENTITY BRIDGING
DISCOURSE_DEIXIS REFERENCE NOM_SEM`` naming its columns (without it, those fifteen are
assumed, the CODI-CRAC layout). ``# newdoc id = NAME`` starts a document (``# part = P``
among the comments of its first sentence gives its part, as corefio's CoNLL-U has it: the
parts of a CoNLL-2012 document stay apart; UA tools know a document by its name alone,
so a file with two parts of one name is reported, ``ua.same-name``); sentences are
blocks separated by blank lines, their comments kept verbatim. Token ids count through
the whole document (``N.k`` is an empty token, ``N-M`` a multi-word-token line kept
between words). Columns are separated by TABs or by runs of spaces (files in the wild use
both); a line may leave its last columns out (they are empty), but may not have more
columns than declared.

The anaphoric columns:

* ``IDENTITY``: markables in brackets, as in CoNLL: ``(EntityID=1|MarkableID=markable_1|
  Min=5,6|SemType=dn`` opens a markable on its first token, ``)`` closes the innermost
  open one, ``(...)`` is a one-token markable; several may follow each other (``@``
  between them is allowed). ``EntityID`` is the chain (:attr:`Markable.entity`, kept as
  written); an id ending in ``-Pseudo`` (or ``_Pseudo``) marks a non-referring markable,
  which also gets the attribute ``referentiality=non_referring`` (what the UA scorer
  separates out). ``MarkableID`` is :attr:`Markable.id` (``markable_N`` is made up when
  missing). ``Min`` is :attr:`Markable.min`: token ids of the document (which count through
  it, so they are the token numbers the UA scorer reads), ``a`` or a range ``a,b`` / ``a-b``.
  ``ElementOf=P`` (or ``P,Q``) says that the markable's entity is one of the split
  antecedents of the plural entity ``P``: it becomes a ``split_antecedent`` link from the
  first markable of ``P`` to the entity (the shape CorefUD's ``SplitAnte`` reads into).
  Every other ``key=value`` is a markable attribute under its own name (``SemType`` ...).
  A discontinuous markable repeats its ``MarkableID`` on each part.
* ``SPLIT`` (v1.1's optional column): ``EntityID=X|ElementOf=P``, the same split
  antecedent as ``ElementOf`` in ``IDENTITY``.
* ``BRIDGING``: ``(MarkableID=m|Rel=r|MentionAnchor=a|EntityAnchor=e)`` (parentheses
  optional) on the anaphor's first token: a ``bridging`` link from markable ``m`` to
  markable ``a`` (to entity ``e`` when there is no mention anchor), ``Rel`` in the link's
  ``relation`` attribute; an ``EntityAnchor`` that is not the anchor's own entity is kept
  as the link attribute ``EntityAnchor``. CODI-CRAC files open the bracket on the
  anaphor's first token and close it (``)``) on its last: a ``)`` with no open bridging
  bracket, or a bracket never closed in its document, is an error, as in ``IDENTITY``.
* ``DISCOURSE_DEIXIS``: the identity syntax for discourse-deictic markables and their
  antecedent segments. They form chains of their own (the proposal keeps them apart
  from identity): corefio puts them in the markable layer ``discourse_deixis`` with
  their chain in :attr:`Markable.sets` ``["discourse_deixis"]`` (not ``entity``), so
  identity chains and scores are untouched; formats without layers report them lost.

``REFERENCE``, ``NOM_SEM`` and any other column are token attributes named after the
column in lower case (``reference``, ``nom_sem``); the CoNLL-U columns LEMMA ... MISC are
the token attributes CorefUD's reader uses (``lemma`` ... ``misc``), so a conversion to
and from CorefUD CoNLL-U keeps them.
HEAD and DEPS name tokens by the file's ids, which count through the document; CoNLL-U
(and the model's ``head`` and ``deps`` token attributes) count within each sentence. The
reader renumbers them within the sentence (a value naming no token of the sentence is
kept as written), the writer back (:func:`_renumber_heads`).

Writing: one ``# global.columns`` line, then each document; a document read from a UA
file and not changed since is written back byte for byte (its text is kept in a
:class:`UaLayout` with a fingerprint of what was read). Otherwise the document is
written canonically: TAB-separated, ``_`` for empty values, token ids counting through
the document, closing brackets before opening ones on a token (what the UA scorer
reads), openers outermost first. A markable that crosses another (overlap without nesting)
is written in pieces that nest, each repeating its ``MarkableID`` (the discontinuous
markable notation); the reader joins adjacent pieces of one markable again. Markables of
layers other than coreference and discourse deixis are reported (``loss.layers``, saying
how many were kept and how many dropped): those in a chain are written as its mentions
(:mod:`corefio.formats._layers`), the others are dropped with their links
(``loss.layer-links``).

A bridging item is written in brackets from the anaphor's first token to its last, as
CODI-CRAC files have it. Every link type :func:`is_bridging` accepts is written there
(MMAX2's ``bridging_antecedent`` too: ``loss.link-type-name``, as UA has one bridging
relation). A bridging link to an entity (CorefUD's ``Bridge``) gets a ``MentionAnchor``
besides its ``EntityAnchor``: the entity's mention :func:`anchor_mention` chooses (its
closest before the anaphor), as both versions of the UA scorer read ``MentionAnchor``
only (v1 fails without it); read back, such a link points to that mention
(``ua.mention-anchor``, info). A multi-word-token line gets every column of the file
(``_`` where the source had none; CoNLL-U's has ten) and its id in the document's
numbering. The UA scorer counts such lines as words: scores are right when key and
response have the same lines, but its ``Min`` positions (token ids, as written) are
off by one after each of them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..io._lazy import LazyModule
from ..model.mentions import BRIDGING, SPLIT_ANTECEDENT, is_identity
from ..diagnostics import Report
from ..errors import FormatError, ModelError
from ..model.layout import FormatLayout
from .losses import LossLog
from .registry import Capabilities, FormatSpec, Option, register
from ..io.source import Source
from ._layers import coreference_layer
from ._lines import check_part, no_document_error, split_newlines

#: the model, imported on first use
model = LazyModule("corefio.model")

#: CoNLL-U's ten columns, the first ten of a UA file
CONLLU_COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")
DEFAULT_COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC",
                   "IDENTITY", "BRIDGING", "DISCOURSE_DEIXIS", "REFERENCE", "NOM_SEM")
#: the columns holding anaphora (all others are token attributes)
ANAPHORIC = frozenset({"IDENTITY", "BRIDGING", "DISCOURSE_DEIXIS", "SPLIT"})
#: the markable layer of discourse-deictic markables, and the set naming their chain
DD_LAYER = "discourse_deixis"
#: the attribute a non-referring (``-Pseudo``) markable carries
REFERENTIALITY = "referentiality"
NON_REFERRING = "non_referring"

_COLUMNS_COMMENT = re.compile(r"^#\s*global\.columns\s*=\s*(.*)$")
_NEWDOC = re.compile(r"^#\s*newdoc\b(?:\s+id\s*=\s*(.*))?")
_SENT_ID = re.compile(r"^#\s*sent_id\s*=\s*(\S+)")
#: a document's part (CoNLL-2012's ``part 001``), among the comments of its first sentence
_PART_COMMENT = re.compile(r"^#\s*part\s*=\s*(.*)$")
_RANGE_ID = re.compile(r"^\d+-\d+$")
_EMPTY_ID = re.compile(r"^\d+\.\d+$")
_PSEUDO = re.compile(r"[-_]Pseudo$")
#: one item of a bracket column: an opener (possibly closed at once) or a closer
_BRACKET_ITEM = re.compile(r"@?\(([^()]*)(\))?|\)")
#: one item of the BRIDGING column: a bracket as above, or items without brackets
_BRIDGING_ITEM = re.compile(r"@?\(([^()]*)(\))?|\)|([^()@]+)")
_MIN = re.compile(r"^(\d+(?:\.\d+)?)(?:[,-](\d+(?:\.\d+)?))?$")
#: what a value written into a bracket column cannot hold
_VALUE_UNSAFE = re.compile(r"[()|=@,\s]")
_KEY_UNSAFE = re.compile(r"[()|=@\s]")


#: the columns whose token attribute is their name in lower case
LOWER_CASE_COLUMNS = frozenset({"LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC", "REFERENCE",
                                "NOM_SEM"})
_COLUMN_NAME = re.compile(r"^[^\s=#]+$")


def token_attribute(column: str) -> str:
    """The token attribute a non-anaphoric column is kept in (``LEMMA`` → ``lemma``;
    a column of no UA or CoNLL-U name keeps its name)."""
    return column.lower() if column in LOWER_CASE_COLUMNS else column


#: link types that are bridging besides ``bridging``: CorefUD's name, and the pointer
#: attributes of MMAX2 projects (lower-cased by the MMAX2 reader) that hold bridging
BRIDGING_TYPES = frozenset({BRIDGING, "bridge", "bridging_antecedent", "related_phrase", "related_object"})


def is_bridging(link_type: str) -> bool:
    """Whether links of this type are bridging: :data:`BRIDGING_TYPES`, or any type whose
    name starts with ``bridg`` (MMAX2's ``Bridging_antecedent``, ``bridging_ref`` ...).
    The UA ``BRIDGING`` column and CorefUD's ``Bridge`` hold them, and the anaphora
    scorer scores them (:mod:`corefio.scoring.anaphora`)."""
    name = link_type.lower()
    return name in BRIDGING_TYPES or name.startswith("bridg")


def anchor_mention(markables: Any, group: list[int], anaphor: int) -> int:
    """The mention of an anchor entity a bridging link to the entity stands for: its
    closest mention that starts before the anaphor (the last in ``group`` order among
    those starting at the same word), its first mention when none does. ``group`` is
    the entity's markable indices; the UA writer writes this mention as the
    ``MentionAnchor`` and the anaphora scorer anchors the link there."""
    start = markables[anaphor].spans[0][0]
    before = [(markables[k].spans[0][0], n, k) for n, k in enumerate(group) if markables[k].spans[0][0] < start]
    return max(before)[2] if before else group[0]


def column_of(attribute: str) -> str | None:
    """The column a token attribute is written in (None: it cannot be a column)."""
    upper = attribute.upper()
    if upper in LOWER_CASE_COLUMNS and attribute == upper.lower():
        return upper
    if attribute in ("ID", "FORM") or attribute in ANAPHORIC or attribute.upper() in LOWER_CASE_COLUMNS \
            or not _COLUMN_NAME.match(attribute):
        return None
    return attribute


@dataclass
class UaLayout(FormatLayout):
    """The text a document had in its UA file, and a fingerprint of what it said."""

    format: ClassVar[str] = "ua"

    #: the columns the file declared (or assumed)
    columns: list[str] = field(default_factory=list)
    #: the document's text, line ends included (the file's header, for the first)
    text: str = ""
    #: :func:`fingerprint` of the document as read
    fingerprint: str = ""


def fingerprint(doc: Any) -> str:
    """A digest of what a UA writer writes from a document (its layout left out)."""
    from ..model.schema import to_jsonable

    data = to_jsonable(doc, exclude={"layout"})
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


# ==========================================================================================
# reading
# ==========================================================================================
@dataclass
class _Open:
    """A markable being read."""

    id: str
    entity: str | None
    attributes: dict[str, Any]
    spans: list[tuple[int, int]]
    layer: str | None
    line: int
    min: str | None = None
    element_of: list[str] = field(default_factory=list)


@dataclass
class _DocState:
    name: str
    first_line: int
    comments_lines: list[str] = field(default_factory=list)
    forms: list[str] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    empty: list[int] = field(default_factory=list)
    attributes: dict[str, list[str | None]] = field(default_factory=dict)
    sentences: list[Any] = field(default_factory=list)
    markables: dict[tuple[str | None, str], _Open] = field(default_factory=dict)
    stacks: dict[str | None, list[_Open]] = field(default_factory=dict)
    bridging: list[tuple[dict[str, str], int]] = field(default_factory=list)
    #: the lines of the bridging brackets open in the BRIDGING column
    bridging_open: list[int] = field(default_factory=list)
    #: ElementOf: (plural, element entity, the column's layer, the markable saying it or
    #: None for the SPLIT column, line)
    splits: list[tuple[str, str, str | None, str | None, int]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    generated: int = 0
    part: str | None = None


class _Reader:
    def __init__(self, file: str, report: Report, strict: bool) -> None:
        self.file = file
        self.report = report
        self.strict = strict
        self.columns: list[str] = list(DEFAULT_COLUMNS)
        #: the file names its columns (``# global.columns``)
        self.declared = False
        self._plan: list[tuple[int, str, str | None]] = []
        self._plan_for: list[str] | None = None

    def error(self, message: str, line: int) -> FormatError:
        return FormatError(message, file=self.file, line=line)

    def documents(self, text: str, stem: str) -> Iterator[Any]:
        text, newline = split_newlines(text, self.file)
        raw_lines = text.split("\n")
        final_newline = text.endswith("\n")
        if final_newline:
            raw_lines.pop()
        doc: _DocState | None = None
        pending: list[str] = []  # comment lines of the sentence being started
        pending_lines: list[str] = []  # raw lines not yet given to a document
        sentence_start: int | None = None
        interleaved: list[tuple[int, str]] = []
        total = len(raw_lines)
        for lineno, line in enumerate(raw_lines, 1):
            stripped = line.strip()
            if stripped.startswith("#") and sentence_start is None:
                m = _COLUMNS_COMMENT.match(stripped)
                if m is not None:
                    self.columns = m.group(1).split()
                    self.declared = True
                    if self.columns[:2] != ["ID", "FORM"] or len(set(self.columns)) != len(self.columns):
                        raise self.error("global.columns must start with ID FORM and name each column once",
                                         lineno)
                    pending_lines.append(line)
                    continue
                newdoc = _NEWDOC.match(stripped)
                if newdoc is not None:
                    if doc is not None and not doc.forms:
                        raise self.error("a document without sentences (# newdoc follows # newdoc)", lineno)
                    if doc is not None:
                        yield self.finish(doc, newline)
                    name = (newdoc.group(1) or "").strip() or stem
                    doc = _DocState(name, lineno)
                    doc.lines.extend(pending_lines)
                    pending_lines = []
                pending.append(line.rstrip())
                pending_lines.append(line)
                continue
            if not stripped:
                if sentence_start is not None:
                    assert doc is not None
                    self.close_sentence(doc, sentence_start, pending, interleaved, lineno)
                    sentence_start, pending, interleaved = None, [], []
                elif pending:
                    raise self.error("comment lines without a sentence after them", lineno)
                pending_lines.append(line)
                continue
            if stripped.startswith("#"):
                raise self.error("a comment line inside a sentence (comments go before its first word)", lineno)
            if doc is None:
                doc = _DocState(stem, lineno)
            if pending_lines:
                doc.lines.extend(pending_lines)
                pending_lines = []
            doc.lines.append(line)
            if sentence_start is None:
                sentence_start = len(doc.forms)
            fields = stripped.split()
            if _RANGE_ID.match(fields[0]):
                interleaved.append((len(doc.forms) - sentence_start, line))
                continue
            if len(fields) < len(self.columns) and self.declared:
                self.short_line(fields, lineno, cut=lineno == total and not final_newline)
            self.token(doc, fields, lineno)
        if sentence_start is not None:
            assert doc is not None
            self.close_sentence(doc, sentence_start, pending, interleaved, total)
        elif pending:
            raise self.error("comment lines without a sentence after them", total)
        if doc is None or not doc.forms:
            raise no_document_error(self.file, total, "a word line")
        doc.lines.extend(pending_lines)
        yield self.finish(doc, newline, final_newline)

    def close_sentence(self, doc: _DocState, first: int, comments: list[str], interleaved: list[tuple[int, str]],
                       lineno: int) -> None:
        if len(doc.forms) == first:
            raise self.error("a sentence made of multi-word-token lines only", lineno)
        sent_id = next((m.group(1) for c in comments if (m := _SENT_ID.match(c)) is not None), None)
        if not doc.sentences:
            part = next((m.group(1).strip() for c in comments if (m := _PART_COMMENT.match(c)) is not None), None)
            if part is not None:
                check_part(part, self.file, lineno)
                doc.part = part
        doc.sentences.append(model.Sentence(first=first, last=len(doc.forms) - 1, id=sent_id,
                                                  comments=[c for c in comments], interleaved=interleaved,
                                                  attributes={}))

    def short_line(self, fields: list[str], lineno: int, cut: bool) -> None:
        """A word line with fewer columns than ``# global.columns`` declares: the missing
        ones are read as ``_``. Real files leave out an empty last column (CODI-CRAC's
        space-aligned files: nothing said); a line short of more is a warning, and the last
        line of a file, without a line end after it, a cut file."""
        shown = f"{len(fields)} of the {len(self.columns)} columns the file declares"
        if cut:
            raise self.error(f"the file ends inside a word line ({shown}, no line end after it: a cut file?)",
                             lineno)
        if len(fields) < len(self.columns) - 1:
            self.report.warning("ua.short-line", f"a word line with {shown} (a line cut short?); the missing "
                                "ones are read as '_'", line=lineno, merge=True, file=self.file)

    def token(self, doc: _DocState, fields: list[str], lineno: int) -> None:
        columns = self.columns
        if len(fields) > len(columns):
            raise self.error(f"{len(fields)} columns, but the file declares {len(columns)} "
                             f"({' '.join(columns)})", lineno)
        if len(fields) < 2:
            raise self.error("a word line needs at least an ID and a FORM column", lineno)
        index = len(doc.forms)
        tid = fields[0]
        if _EMPTY_ID.match(tid):
            doc.empty.append(index)
        elif not (tid.isascii() and tid.isdigit()):
            raise self.error(f"token id {tid!r} is no number (N, N.k or N-M)", lineno)
        doc.ids.append(tid)
        doc.forms.append(fields[1])
        attributes = doc.attributes
        width = len(fields)
        for k, column, name in self.plan():
            value = fields[k] if k < width else "_"
            if name is not None:
                values = attributes.get(name)
                if values is None:
                    values = attributes[name] = [None] * index
                values.append(value)
                continue
            if value in ("_", ""):
                continue
            if column == "IDENTITY":
                self.brackets(doc, value, index, None, lineno)
            elif column == "DISCOURSE_DEIXIS":
                self.brackets(doc, value, index, DD_LAYER, lineno)
            elif column == "BRIDGING":
                self.bridging_items(doc, value, lineno)
            else:  # SPLIT
                for chunk in re.findall(r"[^()@]+", value):
                    pairs = self.pairs(chunk, lineno)
                    if "EntityID" not in pairs or "ElementOf" not in pairs:
                        raise self.error("a SPLIT item needs EntityID and ElementOf", lineno)
                    for plural in pairs["ElementOf"].split(","):
                        doc.splits.append((plural, pairs["EntityID"], None, None, lineno))
        for values in doc.attributes.values():
            if len(values) == index:
                values.append(None)

    def plan(self) -> list[tuple[int, str, str | None]]:
        """(position, column, token attribute or None for an anaphoric column) of the
        columns after ID and FORM."""
        if self._plan_for is not self.columns:
            self._plan = [(k, c, None if c in ANAPHORIC else token_attribute(c))
                          for k, c in enumerate(self.columns[2:], 2)]
            self._plan_for = self.columns
        return self._plan

    def pairs(self, text: str, lineno: int) -> dict[str, str]:
        out: dict[str, str] = {}
        for item in text.split("|"):
            if not item:
                continue
            key, eq, value = item.partition("=")
            if not eq or not key:
                raise self.error(f"{item!r} is no key=value item", lineno)
            out[key] = value
        return out

    def bridging_items(self, doc: _DocState, value: str, lineno: int) -> None:
        """The items of a ``BRIDGING`` cell: ``(items`` opens a bracket (CODI-CRAC files
        close it on the anaphor's last word), ``(items)`` and a bare ``items`` stand
        alone, ``)`` closes the latest open bracket; one that closes nothing, and one
        never closed (:meth:`finish`), are errors, as in ``IDENTITY``."""
        pos = 0
        for m in _BRIDGING_ITEM.finditer(value):
            if m.start() != pos:
                break
            pos = m.end()
            if m.group(0) == ")":
                if not doc.bridging_open:
                    raise self.error("a closing bracket in the BRIDGING column without an open bridging item",
                                     lineno)
                doc.bridging_open.pop()
                continue
            text = m.group(1) if m.group(1) is not None else m.group(3)
            doc.bridging.append((self.pairs(text, lineno), lineno))
            if m.group(1) is not None and m.group(2) is None:
                doc.bridging_open.append(lineno)
        if pos != len(value):
            raise self.error(f"cannot read {value[pos:]!r} in the BRIDGING column (expected '(key=value|...', "
                             "'key=value|...' or ')')", lineno)

    def brackets(self, doc: _DocState, value: str, index: int, layer: str | None, lineno: int) -> None:
        stack = doc.stacks.setdefault(layer, [])
        pos = 0
        for m in _BRACKET_ITEM.finditer(value):
            if m.start() != pos:
                break
            pos = m.end()
            if m.group(0) == ")":
                if not stack:
                    raise self.error("a closing bracket without an open markable", lineno)
                open_ = stack.pop()
                start = open_.spans[-1][0]
                open_.spans[-1] = (start, index)
                continue
            pairs = self.pairs(m.group(1), lineno)
            mid = pairs.pop("MarkableID", None)
            if mid is None:
                doc.generated += 1
                mid = f"markable_{doc.generated}"
                while (layer, mid) in doc.markables:
                    doc.generated += 1
                    mid = f"markable_{doc.generated}"
            entity = pairs.pop("EntityID", None)
            found = doc.markables.get((layer, mid))
            if found is None:
                attrs: dict[str, Any] = {}
                if entity is not None and _PSEUDO.search(entity):
                    attrs[REFERENTIALITY] = NON_REFERRING
                found = _Open(mid, entity, attrs, [], layer, lineno, pairs.pop("Min", None))
                element_of = pairs.pop("ElementOf", None)
                if element_of:
                    found.element_of = element_of.split(",")
                    for plural in found.element_of:
                        if entity is None:
                            raise self.error("ElementOf on a markable without EntityID", lineno)
                        doc.splits.append((plural, entity, layer, mid, lineno))
                found.attributes.update(pairs)
                doc.markables[(layer, mid)] = found
            elif found.entity != entity:
                raise self.error(f"markable {mid!r} appears again with another EntityID", lineno)
            found.spans.append((index, index))
            if m.group(2) is None:
                stack.append(found)
        if pos != len(value):
            raise self.error(f"cannot read {value[pos:]!r} in a bracket column (expected '(key=value|...' "
                             "or ')')", lineno)

    def split_links(self, doc: _DocState, first_of_entity: dict[str, str], first_of_dd: dict[str, str]
                    ) -> list[tuple[str, tuple[str, ...], str]]:
        """The split-antecedent links ``ElementOf`` makes: (source, targets, target kind).

        ``ElementOf=P`` on a markable says that its entity (its discourse-deixis chain, in
        the ``DISCOURSE_DEIXIS`` column) is an element of the plural ``P``. ``P`` is looked
        up in the markable's own column first (as the UA scorer does), then in the other
        one (CODI-CRAC files have ``ElementOf=7-DD`` in the identity column, naming a
        discourse-deixis chain). The link goes from the first markable of ``P`` to the
        element: its entity (identity) or the first markable of its chain (discourse
        deixis). A ``P`` that no markable of the document has is kept as the markable's
        attribute ``ElementOf`` (written back as it was) and reported
        (``ua.element-of-unknown``): the UA scorer ignores such a plural too (strict
        reading refuses it).
        """
        out: list[tuple[str, tuple[str, ...], str]] = []
        seen: set[tuple] = set()
        for plural, element, layer, mid, lineno in doc.splits:
            sides = [(first_of_entity, None), (first_of_dd, DD_LAYER)]
            if layer is not None:
                sides.reverse()
            found = next(((table[plural], side) for table, side in sides if plural in table), None)
            own = first_of_entity if layer is None else first_of_dd
            if element not in own:
                raise self.error(f"EntityID={element} (an element of {plural}) has no markable", lineno)
            if found is None:
                if mid is None or self.strict:
                    raise self.error(f"ElementOf={plural}: no markable of the document has EntityID={plural}",
                                     lineno)
                attrs = doc.markables[(layer, mid)].attributes
                attrs["ElementOf"] = f"{attrs['ElementOf']},{plural}" if "ElementOf" in attrs else plural
                self.report.warning("ua.element-of-unknown", "ElementOf names an entity that no markable of the "
                                    "document has (kept as the markable's attribute ElementOf; the UA scorer "
                                    "ignores it too)", line=lineno, merge=True, example=plural, file=self.file)
                continue
            source_mid, source_layer = found
            if (plural, source_layer, element, layer) in seen:
                continue
            seen.add((plural, source_layer, element, layer))
            source = model.markable_ref(source_mid, source_layer)
            if layer is None:
                out.append((source, (element,), "entity"))
            else:
                out.append((source, (model.markable_ref(own[element], layer),), "markable"))
        return out

    def finish(self, doc: _DocState, newline: str, final_newline: bool = True) -> Any:
        for stack in doc.stacks.values():
            if stack:
                raise self.error(f"markable {stack[-1].id!r} is never closed", stack[-1].line)
        if doc.bridging_open:
            raise self.error("a bridging item opened here is never closed (the BRIDGING column has no ')' for it)",
                             doc.bridging_open[-1])
        index_of: dict[str, int] = {}
        for i, tid in enumerate(doc.ids):
            index_of.setdefault(tid, i)
        markables = []
        # the first markable of each identity entity and of each discourse-deixis chain
        first_of_entity: dict[str, str] = {}
        first_of_dd: dict[str, str] = {}
        for (layer, mid), m in doc.markables.items():
            if m.entity is not None:
                (first_of_entity if layer is None else first_of_dd).setdefault(m.entity, mid)
        split_links = self.split_links(doc, first_of_entity, first_of_dd)
        for (layer, mid), m in doc.markables.items():
            spans = _merge(m.spans)
            min_spans = None
            if m.min is not None:
                found = _MIN.match(m.min)
                a = index_of.get(found.group(1)) if found else None
                b = index_of.get(found.group(2) or found.group(1)) if found else None
                if a is None or b is None or b < a:
                    raise self.error(f"Min={m.min} of markable {mid!r} names no token range of the document", m.line)
                min_spans = ((a, b),)
            if layer is None:
                entity = m.entity
                sets: dict[str, str] = {}
            else:
                entity = None
                sets = {DD_LAYER: m.entity} if m.entity is not None else {}
            markables.append(model.Markable.fast(mid, spans, entity, None, m.attributes, layer=layer, sets=sets,
                                                 min=min_spans))
        links: list[Any] = []
        known = {mid for (layer, mid) in doc.markables if layer is None}
        entity_of = {mid: m.entity for (layer, mid), m in doc.markables.items() if layer is None}
        for source, targets, kind in split_links:
            links.append(model.Link.fast(f"link_{len(links) + 1}", source, targets, SPLIT_ANTECEDENT, kind))
        for pairs, lineno in doc.bridging:
            pairs = dict(pairs)
            anaphor: str | None = pairs.pop("MarkableID") if "MarkableID" in pairs else None
            if anaphor is None or anaphor not in known:
                raise self.error(f"bridging item names MarkableID={anaphor}, which no IDENTITY markable has", lineno)
            anchor = pairs.pop("MentionAnchor", None)
            entity_anchor = pairs.pop("EntityAnchor", None)
            attrs: dict[str, Any] = {}
            if "Rel" in pairs:
                attrs["relation"] = pairs.pop("Rel")
            if anchor is not None:
                if anchor not in known:
                    raise self.error(f"MentionAnchor={anchor}: no IDENTITY markable has this MarkableID", lineno)
                if entity_anchor is not None and entity_anchor != entity_of[anchor]:
                    attrs["EntityAnchor"] = entity_anchor
                attrs.update(pairs)
                links.append(model.Link.fast(f"link_{len(links) + 1}", anaphor, (anchor,), BRIDGING, "markable",
                                             attrs))
            elif entity_anchor is not None:
                if entity_anchor not in first_of_entity:
                    raise self.error(f"EntityAnchor={entity_anchor}: no markable has this EntityID", lineno)
                attrs.update(pairs)
                links.append(model.Link.fast(f"link_{len(links) + 1}", anaphor, (entity_anchor,), BRIDGING,
                                             "entity", attrs))
            else:
                raise self.error("a bridging item needs MentionAnchor or EntityAnchor", lineno)
        # a column of placeholders only is no attribute (the writer writes "_" again)
        attributes = {name: values for name, values in doc.attributes.items()
                      if any(v not in ("_", None) for v in values)}
        empty = set(doc.empty)
        attributes = _renumber_heads(attributes, doc.sentences, lambda s: doc.ids[s.first:s.last + 1],
                                     lambda s: _sentence_ids(s, empty))
        tokens = model.Tokens(forms=doc.forms, ids=None, whitespace=None, offsets=None,
                                    attributes=attributes, empty=doc.empty or None)
        try:
            document = model.Document.build(name=doc.name, part=doc.part, metadata={}, tokens=tokens,
                                            sentences=doc.sentences, markables=markables, entities=[], links=links,
                                            text=None, regions=[], layout={})
        except ModelError as exc:
            raise FormatError(f"document {doc.name!r}: {'; '.join(exc.problems)}", file=self.file,
                              line=doc.first_line) from None
        text = newline.join(doc.lines)
        if final_newline and doc.lines:
            text += newline
        layout = UaLayout(columns=list(self.columns), text=text, fingerprint=fingerprint(document))
        document.layout["ua"] = layout
        return document


def _sentence_ids(sentence: Any, empty: set[int]) -> list[str]:
    """CoNLL-U's ids of a sentence's tokens: words from 1, an empty token ``N.k``."""
    ids: list[str] = []
    count = sub = 0
    for i in range(sentence.first, sentence.last + 1):
        if i in empty:
            sub += 1
            ids.append(f"{count}.{sub}")
        else:
            count += 1
            sub = 0
            ids.append(str(count))
    return ids


def _renumber_heads(attributes: dict[str, list[str | None]], sentences: list[Any],
                    old_ids: Callable[[Any], list[str]], new_ids: Callable[[Any], list[str]]) -> dict:
    """``attributes`` with the token ids in ``head`` and ``deps`` changed, sentence by
    sentence, from ``old_ids(sentence)`` to ``new_ids(sentence)`` (``0``, ``_`` and ids
    of no token of the sentence stay as they are). ``attributes`` is not changed."""
    names = [name for name in ("head", "deps") if name in attributes]
    if not names:
        return attributes
    changed = {name: list(attributes[name]) for name in names}
    for s in sentences:
        new_of = dict(zip(old_ids(s), new_ids(s)))
        if all(old == new for old, new in new_of.items()):
            continue
        heads, deps = changed.get("head"), changed.get("deps")
        for i in range(s.first, s.last + 1):
            value = heads[i] if heads is not None else None
            if heads is not None and value is not None:
                heads[i] = new_of.get(value, value)
            value = deps[i] if deps is not None else None
            if deps is not None and value is not None and value != "_":
                pieces = []
                for piece in value.split("|"):
                    head, colon, relation = piece.partition(":")
                    pieces.append(f"{new_of.get(head, head)}{colon}{relation}")
                deps[i] = "|".join(pieces)
    return {**attributes, **changed}


def _merge(spans: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """A markable's pieces in text order, adjacent or overlapping ones joined (the writer
    cuts a piece that crosses another markable into pieces that nest)."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return tuple(out)


def _nesting_pieces(spans_of: list[list[tuple[int, int]]]) -> list[list[tuple[int, int]]]:
    """Each markable's spans cut so that no piece crosses a piece of another markable
    (bare closing brackets can then close them); the reader joins the pieces again."""
    pieces = [sorted(spans) for spans in spans_of]
    changed = True
    while changed:
        changed = False
        everything = sorted(((a, -b, k) for k, spans in enumerate(pieces) for a, b in spans))
        open_: list[tuple[int, int, int]] = []
        for a, negative_b, k in everything:
            b = -negative_b
            open_ = [o for o in open_ if o[1] >= a]
            crossed = next((o for o in open_ if o[0] < a <= o[1] < b), None)
            if crossed is not None:
                # cut this piece where the other one ends: the first part nests in it
                spans = pieces[k]
                spans.remove((a, b))
                spans.extend([(a, crossed[1]), (crossed[1] + 1, b)])
                spans.sort()
                changed = True
                break
            open_.append((a, b, k))
    return pieces


def read(source: Source, *, report: Report, strict: bool = False) -> Any:
    """Read a Universal Anaphora CoNLL-U Plus file."""
    documents = list(stream(source, report=report, strict=strict))
    return model.Corpus(documents=documents, metadata={}, schemes=[], layout={})


def stream(source: Source, *, report: Report, strict: bool = False) -> Iterator[Any]:
    """The documents one at a time (the file is read whole)."""
    yield from _Reader(source.name, report, strict).documents(source.read_text(), source.stem)


def loads(text: str, *, report: Report | None = None, strict: bool = False, file: str | None = None) -> Any:
    """Read UA text (for tests)."""
    return read(Source.from_text(text, file), report=report if report is not None else Report(file), strict=strict)


# ==========================================================================================
# writing
# ==========================================================================================
def _clean(value: str, log: LossLog, doc: Any, what: str) -> str:
    if _VALUE_UNSAFE.search(value):
        log.lose("value", f"( ) | = @ , or blanks in {what}", document=doc, example=value, done="replaced by '_'")
        return _VALUE_UNSAFE.sub("_", value)
    return value or "_"


_BLANK = re.compile(r"\s")
_ENTITY_DECLARATION = re.compile(r"^#\s*global\.Entity\b")


def _cell_value(value: Any, log: LossLog, doc: Any) -> str:
    if value is None or value == "":
        return "_"
    text = str(value)
    if _BLANK.search(text):
        log.lose("value", "blanks inside a column value", document=doc, example=text, done="replaced by '_'")
        text = _BLANK.sub("_", text)
    return text


def _plain_column(values: list[Any] | None, n: int) -> list[str] | None:
    """A column's ``n`` cells as :func:`_cell_value` writes them when none holds a blank
    (None when one does: the caller then writes cell by cell, which reports each one)."""
    if values is None or values.count(None) == n == len(values):
        return ["_"] * n
    if None not in values and "" not in values:
        try:  # text in every cell (forms, most columns): written as it is
            return None if _BLANK.search("".join(values)) else values
        except TypeError:  # a value that is no text
            pass
    cells = ["_" if v is None or v == "" else v if type(v) is str else str(v) for v in values]
    return None if _BLANK.search("".join(cells)) else cells


def _other_layers_lost(doc: Any, other_layers: list[Any], log: LossLog) -> Any:
    """``doc`` with the markables of layers other than coreference and discourse deixis
    moved to the coreference layer when they are in a chain and left out otherwise
    (:func:`~corefio.formats._layers.coreference_layer`), reported as what happened to
    them (``loss.layers``: all of them, saying how many were kept as mentions and how
    many dropped) and to their links (``loss.layer-links``: one per target of a link
    from a markable left out, one per target that is such a markable)."""
    in_chain = {doc.markables[i].ref for chain in doc.chain_indices() for i in chain}
    kept = sum(m.ref in in_chain for m in other_layers)
    dropped = len(other_layers) - kept
    if not dropped:
        done = "written as mentions of the coreference layer (they are in a chain)"
    elif not kept:
        done = "dropped (they are in no chain)"
    else:
        done = (f"the {kept} in a chain written as mentions of the coreference layer, the {dropped} in no chain "
                "dropped")
    log.lose("layers", "markables of layers other than coreference and discourse deixis", document=doc,
             count=len(other_layers), example=other_layers[0].ref, done=done)
    gone = {m.ref for m in other_layers if m.ref not in in_chain}
    lost, example = 0, None
    for link in doc.links:
        n = len(link.targets) if link.source in gone else \
            sum(t in gone for t in link.targets) if link.target_kind == "markable" else 0
        if n and example is None:
            example = f"{link.id} ({link.type})"
        lost += n
    log.lose("layer-links", "links from or to markables of other layers that are not written", document=doc,
             count=lost, example=example, done="dropped")
    return coreference_layer(doc, keep=frozenset({DD_LAYER}))


class _Writer:
    def __init__(self, doc: Any, columns: list[str], log: LossLog) -> None:
        other_layers = [m for m in doc.markables if m.layer is not None and m.layer != DD_LAYER]
        if other_layers:
            # UA's columns hold identity and discourse deixis; a markable of another
            # layer is written only when it is in a chain (as a mention of it)
            doc = _other_layers_lost(doc, other_layers, log)
        self.doc = doc
        self.columns = columns
        self.log = log
        n = len(doc.tokens)
        self.empty = set(doc.tokens.empty or [])
        #: the token ids written: counting through the document, ``N.k`` for empty tokens
        self.ids: list[str] = []
        count = sub = 0
        for i in range(n):
            if i in self.empty:
                sub += 1
                self.ids.append(f"{count}.{sub}")
            else:
                count += 1
                sub = 0
                self.ids.append(str(count))
        self.cells: dict[str, list[list[str]]] = {c: [[] for _ in range(n)] for c in ANAPHORIC}
        #: EntityID written → the indices of its markables (:meth:`entity_labels`)
        self.groups: dict[str, list[int]] = {}

    def entity_labels(self) -> tuple[dict[int, str], dict[str, str]]:
        """Markable index → the EntityID written; entity id → the EntityID written
        (:attr:`groups`: EntityID written → its markables)."""
        doc = self.doc
        used = {m.entity for m in doc.markables if m.entity is not None}
        label_of: dict[int, str] = {}
        entity_label: dict[str, str] = {}
        fresh = 0
        for chain in doc.chain_indices():
            entity = next((doc.markables[k].entity for k in chain if doc.markables[k].entity is not None), None)
            if entity is None:
                fresh += 1
                while str(fresh) in used:
                    fresh += 1
                entity = str(fresh)
                used.add(entity)
            label = _clean(entity, self.log, doc, "entity ids")
            self.groups.setdefault(label, []).extend(chain)
            # entities joined by identity links share the first one's id (reported before
            # writing as the loss of the link structure)
            for k in chain:
                label_of[k] = label
                e = doc.markables[k].entity
                if e is not None:
                    entity_label.setdefault(e, label)
        return label_of, entity_label

    def write(self) -> list[str]:
        doc = self.doc
        log = self.log
        label_of, entity_label = self.entity_labels()
        first_of_label: dict[str, int] = {}
        first_of_dd: dict[str, int] = {}
        for k, m in enumerate(doc.markables):
            if m.layer is None and k in label_of:
                first_of_label.setdefault(label_of[k], k)
            elif m.layer == DD_LAYER and m.sets.get(DD_LAYER) is not None:
                first_of_dd.setdefault(m.sets[DD_LAYER], k)
        element_of: dict[int, list[str]] = {}
        bridging: list[tuple[int, int, str]] = []  # (first token, last token, the item) of each bridging link
        renamed: list[str] = []  # bridging types other than "bridging", once per target
        anchored = 0  # links to an entity written with a MentionAnchor
        index = doc.markable_index()
        for link in doc.links:
            if is_identity(link.type):
                continue
            if link.type != SPLIT_ANTECEDENT and not is_bridging(link.type):
                log.lose("link-types", f"{link.type!r} links (UA has bridging and split antecedents)", document=doc,
                         done="dropped")
                continue
            src = index[link.source]
            if link.type == SPLIT_ANTECEDENT:
                self.split_antecedent(link, src, label_of, entity_label, first_of_label, first_of_dd, element_of)
                continue
            if doc.markables[src].layer is not None or src not in label_of:
                log.lose("link-types", "links from markables outside the identity column", document=doc, done="dropped")
                continue
            source = doc.markables[src]
            for target in link.targets:
                if link.target_kind == "entity":
                    target_label = entity_label.get(target)
                    # the UA scorers read MentionAnchor only (v1 fails without it): the
                    # mention the anaphora scorer anchors such a link at
                    anchor = doc.markables[anchor_mention(doc.markables, self.groups[target_label], src)] \
                        if target_label is not None else None
                    anchored += anchor is not None
                else:
                    t = index[target]
                    target_label = label_of.get(t)
                    anchor = doc.markables[t] if doc.markables[t].layer is None else None
                if target_label is None:
                    log.lose("link-types", f"{link.type} links to entities without a markable", document=doc,
                             done="dropped")
                    continue
                if link.type != BRIDGING:
                    renamed.append(link.type)
                items = [f"MarkableID={_clean(source.id, log, doc, 'markable ids')}"]
                relation = link.attributes.get("relation")
                if relation is not None:
                    items.append(f"Rel={_clean(str(relation), log, doc, 'bridging relations')}")
                if anchor is not None:
                    items.append(f"MentionAnchor={_clean(anchor.id, log, doc, 'markable ids')}")
                entity_anchor = link.attributes.get("EntityAnchor", target_label)
                items.append(f"EntityAnchor={_clean(str(entity_anchor), log, doc, 'entity ids')}")
                for key, value in link.attributes.items():
                    if key not in ("relation", "EntityAnchor"):
                        items.append(f"{_clean(key, log, doc, 'attribute names')}="
                                     f"{_clean(str(value), log, doc, 'attribute values')}")
                bridging.append((source.first, source.last, "|".join(items)))
        if renamed:
            log.lose("link-type-name", "the names of bridging link types other than 'bridging' (UA has one bridging "
                     "relation; read back, their type is 'bridging')", document=doc, count=len(renamed),
                     example=renamed[0], done="written as bridging")
        if anchored:
            log.report.info("ua.mention-anchor", "bridging links to an entity are written with a MentionAnchor, "
                            "the entity's closest mention before the anaphor (its first when none precedes), as "
                            "the UA scorers read mention anchors only; read back, they link to that mention",
                            document=doc.label, count=anchored, merge=True)
        self.markable_cells(label_of, element_of)
        _bridging_cells(self.cells["BRIDGING"], bridging)
        return self.lines()

    def split_antecedent(self, link: Any, src: int, label_of: dict[int, str], entity_label: dict[str, str],
                         first_of_label: dict[str, int], first_of_dd: dict[str, int],
                         element_of: dict[int, list[str]]) -> None:
        """``ElementOf=PLURAL`` on the first markable of each element: the plural is the
        source's entity (its discourse-deixis chain for a markable of that layer), an
        element an entity or the chain of a target markable (in either column)."""
        doc, log = self.doc, self.log
        source = doc.markables[src]
        if source.layer is None:
            plural = label_of.get(src)
        elif source.layer == DD_LAYER and source.sets.get(DD_LAYER) is not None:
            plural = _clean(source.sets[DD_LAYER], log, doc, "entity ids")
        else:
            plural = None
        if plural is None:
            log.lose("link-types", "split antecedents of markables in no chain", document=doc, done="dropped")
            return
        index = doc.markable_index()
        for target in link.targets:
            where = None
            if link.target_kind == "entity":
                label = entity_label.get(target)
                where = first_of_label.get(label) if label is not None else None
            elif target in index:
                t = index[target]
                m = doc.markables[t]
                if m.layer is None and t in label_of:
                    where = first_of_label[label_of[t]]
                elif m.layer == DD_LAYER and m.sets.get(DD_LAYER) is not None:
                    where = first_of_dd[m.sets[DD_LAYER]]
            if where is None:
                log.lose("link-types", "split_antecedent links to entities without a markable", document=doc,
                             done="dropped")
                continue
            element_of.setdefault(where, []).append(plural)

    def markable_cells(self, label_of: dict[int, str], element_of: dict[int, list[str]]) -> None:
        doc, log = self.doc, self.log
        # by word, only the words with a bracket (most have none)
        openers: dict[str, dict[int, list[tuple[int, int, str]]]] = {"IDENTITY": {}, "DISCOURSE_DEIXIS": {}}
        closers: dict[str, dict[int, int]] = {"IDENTITY": {}, "DISCOURSE_DEIXIS": {}}
        layer_pieces: dict[str | None, list[int]] = {}
        for k, m in enumerate(doc.markables):
            layer_pieces.setdefault(m.layer, []).append(k)
        pieces_of: dict[int, list[tuple[int, int]]] = {}
        for members in layer_pieces.values():
            for k, pieces in zip(members, _nesting_pieces([list(doc.markables[k].spans) for k in members])):
                pieces_of[k] = pieces
        for k, m in enumerate(doc.markables):
            if m.layer is None:
                column = "IDENTITY"
                entity = label_of.get(k)
            else:  # discourse deixis (the other layers are gone: see __init__)
                column = "DISCOURSE_DEIXIS"
                entity = m.sets.get(DD_LAYER)
                entity = _clean(entity, log, doc, "entity ids") if entity is not None else None
            attrs = dict(m.attributes)
            items = [f"EntityID={self.entity_id(entity, attrs)}"] if entity is not None else []
            items.append(f"MarkableID={_clean(m.id, log, doc, 'markable ids')}")
            if m.min:
                if len(m.min) > 1:
                    log.lose("min", "alternative MIN spans (UA has one)", document=doc, done="only the first written")
                a, b = m.min[0]
                pa, pb = self.ids[a], self.ids[b]
                items.append(f"Min={pa}" if pa == pb else f"Min={pa},{pb}")
            plurals = list(element_of.get(k, ()))
            if "ElementOf" in attrs:  # plurals the document has no markable of (kept as read)
                plurals += str(attrs.pop("ElementOf")).split(",")
            for key, value in attrs.items():
                items.append(f"{_clean(key, log, doc, 'attribute names')}="
                             f"{_clean(str(value), log, doc, 'attribute values')}")
            if plurals:
                items.append("ElementOf=" + ",".join(_clean(p, log, doc, "entity ids") for p in dict.fromkeys(plurals)))
            text = "|".join(items)
            opened, closed = openers[column], closers[column]
            for a, b in pieces_of[k]:
                opened.setdefault(a, []).append((b, k, text))
                if b != a:
                    closed[b] = closed.get(b, 0) + 1
        for column in ("IDENTITY", "DISCOURSE_DEIXIS"):
            cells, opened, closed = self.cells[column], openers[column], closers[column]
            for i in opened.keys() | closed.keys():
                cell = cells[i]
                cell.extend(")" * closed.get(i, 0))
                for b, _k, text in sorted(opened.get(i, ()), key=lambda o: (-o[0], o[1])):
                    cell.append(f"({text})" if b == i else f"({text}")

    def entity_id(self, entity: str, attrs: dict[str, Any]) -> str:
        if attrs.get(REFERENTIALITY) == NON_REFERRING:
            del attrs[REFERENTIALITY]
            if not _PSEUDO.search(entity):
                entity += "-Pseudo"
        return entity

    def interleaved_line(self, s: Any, offset: int, raw: str) -> str | None:
        """A multi-word-token line with the file's columns (a CoNLL-U line has ten: the
        others are ``_``; CoNLL-U Plus wants every line to have every column, and the UA
        scorer reads the IDENTITY and BRIDGING columns of every line) and its id in the
        document's numbering (CoNLL-U numbers the words of each sentence). A line of
        another kind, or with values in columns the file does not have, is reported."""
        doc, log = self.doc, self.log
        fields = raw.split("\t") if "\t" in raw else raw.split()
        new_id = range_id_in(s, offset, fields[0], self.ids) if fields else None
        if new_id is None:
            log.lose("interleaved-line", "lines between words that are not multi-word tokens", document=doc,
                     example=raw[:40], done="dropped")
            return None
        lay = doc.layout.get("ua")
        if isinstance(lay, UaLayout) and len(fields) == len(lay.columns):
            source = list(lay.columns)  # a line of a UA file
        elif len(fields) <= len(CONLLU_COLUMNS):
            source = list(CONLLU_COLUMNS[:len(fields)])  # a CoNLL-U line (or one shorter than its columns)
        else:
            source = list(CONLLU_COLUMNS) + [f"#{k}" for k in range(len(fields) - len(CONLLU_COLUMNS))]
        value_of = dict(zip(source, fields))
        if any(value_of[c] not in ("_", "") for c in source if c not in self.columns and c != "ID"):
            log.lose("interleaved-column", "values of multi-word-token lines in columns the file does not have",
                     document=doc, done="dropped")
        # the reader takes no anaphora from such a line: its anaphoric columns stay empty
        out = [new_id] + [(value_of.get(c) if c not in ANAPHORIC else None) or "_" for c in self.columns[1:]]
        if out == fields:
            return raw
        return "\t".join(_cell_value(v, log, doc) for v in out)

    def rows(self, attributes: dict[str, list[Any]]) -> list[str] | None:
        """Every token's line, built column by column (a third of the time of building
        them cell by cell: 0.9 s against 2.5 s for ``convert --to ua`` of the benchmark
        key); None when a value holds a blank, which :meth:`lines` then writes and
        reports cell by cell, in the order it meets them."""
        n = len(self.doc.tokens)
        columns = [self.ids, _plain_column(self.doc.tokens.forms, n)]
        for column in self.columns[2:]:
            if column in ANAPHORIC:
                cells = self.cells.get(column)
                columns.append(["".join(c) if c else "_" for c in cells] if cells is not None and any(cells)
                               else ["_"] * n)
            else:
                columns.append(_plain_column(attributes.get(token_attribute(column)), n))
        if any(c is None or len(c) != n for c in columns):
            return None
        return list(map("\t".join, zip(*columns)))

    def lines(self) -> list[str]:
        doc, log = self.doc, self.log
        toks = doc.tokens
        out: list[str] = []
        sentences = doc.sentences
        if not sentences and len(toks):
            sentences = [model.Sentence(first=0, last=len(toks) - 1)]
        empty = set(toks.empty or [])
        attributes = _renumber_heads(toks.attributes, sentences, lambda s: _sentence_ids(s, empty),
                                     lambda s: self.ids[s.first:s.last + 1])
        written = {token_attribute(c) for c in self.columns}
        for name in toks.attributes:
            if name not in written:
                log.lose("token-attributes", f"the token attribute {name!r} (not a column of the file)", document=doc,
                         done="dropped")
        rows = self.rows(attributes)
        for s_index, s in enumerate(sentences):
            # CoNLL-U's entity field declaration means nothing in UA columns
            comments = [c if c.startswith("#") else "# " + c
                        for c in (x.replace("\n", " ") for x in s.comments)
                        if not _ENTITY_DECLARATION.match(c)]
            if not comments:
                comments.append(f"# sent_id = {s.id or f'{doc.name}-{s_index + 1}'}")
                comments.append("# text = " + " ".join(toks.forms[s.first:s.last + 1]))
            if s_index == 0:
                comments = _first_comments(comments, doc)
            out.extend(comments)
            inter: dict[int, list[str]] = {}
            for offset, raw in s.interleaved:
                line = self.interleaved_line(s, offset, raw)
                if line is not None:
                    inter.setdefault(offset, []).append(line)
            if rows is not None and not inter:
                out.extend(rows[s.first:s.last + 1])
                out.append("")
                continue
            for i in range(s.first, s.last + 1):
                out.extend(inter.get(i - s.first, []))
                if rows is not None:
                    out.append(rows[i])
                    continue
                fields = [self.ids[i], _cell_value(toks.forms[i], log, doc)]
                for column in self.columns[2:]:
                    if column in ANAPHORIC:
                        cell = self.cells.get(column)
                        fields.append("".join(cell[i]) if cell is not None and cell[i] else "_")
                    else:
                        values = attributes.get(token_attribute(column))
                        fields.append(_cell_value(values[i] if values is not None else None, log, doc))
                out.append("\t".join(fields))
            out.extend(inter.get(s.last - s.first + 1, []))
            out.append("")
        return out


def _bridging_cells(cells: list[list[str]], items: list[tuple[int, int, str]]) -> None:
    """The ``BRIDGING`` column: each item in brackets from the anaphor's first word to its
    last (``(item`` ... ``)``, ``(item)`` on a one-word anaphor), as CODI-CRAC files have
    it; a bracket that would cross an earlier one (anaphors that overlap without nesting)
    is written on the anaphor's first word alone, so that every ``)`` closes the bracket
    it belongs to. On a word: closers, then openers, the one ending last first."""
    placed: list[tuple[int, int, str]] = []
    open_: list[tuple[int, int]] = []
    for first, last, text in sorted(items, key=lambda x: (x[0], -x[1])):
        open_ = [o for o in open_ if o[1] >= first]
        if any(a < first <= b < last for a, b in open_):
            last = first
        placed.append((first, last, text))
        if last > first:
            open_.append((first, last))
    closers: dict[int, int] = {}
    openers: dict[int, list[tuple[int, str]]] = {}
    for first, last, text in placed:
        openers.setdefault(first, []).append((last, text))
        if last > first:
            closers[last] = closers.get(last, 0) + 1
    for i in openers.keys() | closers.keys():  # the words with a bracket, not every word
        cell = cells[i]
        cell.extend(")" * closers.get(i, 0))
        for last, text in sorted(openers.get(i, ()), key=lambda o: -o[0]):
            cell.append(f"({text})" if last == i else f"({text}")


def range_id_in(s: Any, offset: int, raw_id: str, ids: list[str]) -> str | None:
    """The id ``N-M`` of a multi-word-token line before the sentence's token ``offset``
    in the numbering ``ids`` (the ids of the document's tokens as written), or None when
    ``raw_id`` is no range or no word follows it."""
    a, _, b = raw_id.partition("-")
    if not (a.isdigit() and b.isdigit()) or int(b) < int(a):
        return None
    token = s.first + offset
    if token > s.last or not ids[token].isdigit():
        return None
    first = int(ids[token])
    return f"{first}-{first + int(b) - int(a)}"


def _first_comments(comments: list[str], doc: Any) -> list[str]:
    """The comments of a document's first sentence with ``# newdoc id`` and, when the
    document has a part, ``# part = P`` after it (a name alone would merge the parts of
    a document: the reader takes the part back from there)."""
    out = list(comments)
    newdoc = next((i for i, c in enumerate(out) if _NEWDOC.match(c)), None)
    if newdoc is None:
        out.insert(0, f"# newdoc id = {_one_line(doc.name)}")
        newdoc = 0
    at = next((i for i, c in enumerate(out) if _PART_COMMENT.match(c)), None)
    if doc.part is None:
        if at is not None:
            del out[at]
    elif at is None:
        out.insert(newdoc + 1, f"# part = {_one_line(doc.part)}")
    elif _PART_COMMENT.match(out[at]).group(1).strip() != doc.part:  # type: ignore[union-attr]
        out[at] = f"# part = {_one_line(doc.part)}"
    return out


def _one_line(text: str) -> str:
    return re.sub(r"[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]", " ", text)


def _columns_for(doc: Any, log: LossLog) -> list[str]:
    """The file's columns: those of the first document's source (the UA default
    otherwise), and a column for each other token attribute it has."""
    lay = doc.layout.get("ua")
    columns = list(lay.columns) if isinstance(lay, UaLayout) else list(DEFAULT_COLUMNS)
    for needed in ("IDENTITY", "BRIDGING", "DISCOURSE_DEIXIS"):
        if needed not in columns:
            columns.append(needed)
    known = {token_attribute(c) for c in columns}
    for name in doc.tokens.attributes:
        if name in known:
            continue
        column = column_of(name)
        if column is None or column in columns:
            log.lose("token-attributes", f"the token attribute {name!r} (no column name)", document=doc, done="dropped")
        else:
            columns.append(column)
    return columns


def write(documents: Iterable, *, corpus: Any, report: Report, canonical: bool = False) -> Iterator[str]:
    """UA text, one piece per document (the ``global.columns`` line with the first)."""
    log = LossLog(report, "ua")
    columns: list[str] | None = None
    names: set[str] = set()
    for doc in documents:
        lay = doc.layout.get("ua")
        first = columns is None
        if doc.part is not None and doc.name in names:
            report.add("ua.same-name", "warning", "documents told apart by their part only: the part is written "
                       "(# part = P, which corefio reads back), but UA tools such as the UA scorer know a document "
                       "by its newdoc id alone", merge=True, example=doc.label)
        names.add(doc.name)
        if columns is None:
            columns = _columns_for(doc, log)
        if (not canonical and isinstance(lay, UaLayout) and lay.columns == columns
                and lay.fingerprint == fingerprint(doc)
                and (first or not _COLUMNS_COMMENT.match(lay.text.lstrip()))):
            if first and not any(_COLUMNS_COMMENT.match(x.strip()) for x in re.split(r"\r\n|\r|\n", lay.text, maxsplit=3)[:3]):
                # the document's own line ends (a file with CR line ends stays one)
                newline = "\r\n" if "\r\n" in lay.text else "\r" if "\r" in lay.text else "\n"
                yield f"# global.columns = {' '.join(columns)}{newline}"
                if not lay.text.endswith(("\n", "\r")):
                    # its last line may be short of the columns now declared: without a line
                    # end after it, the file would read as a cut one
                    yield lay.text + newline
                    continue
            yield lay.text
            continue
        lines = _Writer(doc, columns, log).write()
        if first:
            lines.insert(0, f"# global.columns = {' '.join(columns)}")
        yield "\n".join(lines) + "\n"


def dumps(corpus: Any, *, report: Report | None = None, canonical: bool = False) -> str:
    """UA text of a corpus (for tests)."""
    report = report if report is not None else Report()
    return "".join(write(corpus.documents, corpus=corpus, report=report, canonical=canonical))


def sniff(head: bytes) -> bool:
    return bool(re.search(rb"#\s*global\.columns\s*=[^\n]*\bIDENTITY\b", head)) or b"(EntityID=" in head


register(
    FormatSpec(
        name="ua",
        description="Universal Anaphora CoNLL-U Plus (exploded: IDENTITY, BRIDGING, DISCOURSE_DEIXIS columns)",
        extensions=(".conllua",),
        capabilities=Capabilities(
            discontinuous=True, nested=True, crossing=True, same_entity_overlap=True, cross_sentence=True,
            entity_ids=True, link_structure=False, link_types=True, multi_target_links=False,
            markable_attributes=True, entity_attributes=False, link_attributes=True, heads=False,
            min=True, optional=False, layers=True, sets=True, token_attributes=True,
            token_ids=False, empty_tokens=True, whitespace=False, offsets=False, text=False, regions=False,
            sentences=True, sentence_attributes=frozenset({"id", "comments", "interleaved"}), metadata=False,
            schemes=False, multiple_documents=True,
        ),
        read=read,
        stream=stream,
        write=write,
        options=(
            Option("canonical", bool, False, "ignore the source layout: write every document anew",
                   applies_to="write"),
        ),
        sniff=sniff,
        aliases=("conllua", "universal-anaphora"),
    )
)
