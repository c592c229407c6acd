"""CorefUD CoNLL-U (``.conllu``): coreference in the MISC column.

A document starts at a sentence whose comments include ``# newdoc``; its
``# global.Entity = eid-etype-head-other`` comment names the fields of a mention
(corefio keeps whatever names the file declares, e.g. GUM's
``GRP-etype-infstat-salience-centering-minspan-link-identity``). In MISC::

    Entity=(e1-person-2-(e2-place-1)     mentions of e1 and e2 open; e2 also closes
    Entity=e1)                           the innermost open mention of e1 closes
    Entity=(e15[1/2]-person  ...  e15[1/2])  ...  (e15[2/2]  ...  e15[2/2])
                                         a discontinuous mention in two parts
    SplitAnte=e6<e62,e11<e62             e62 (a mention opening here) has split
                                         antecedents e6 and e11
    Bridge=e3<e7:subtype                 e7 (a mention opening here) bridges to e3

An opener lists the fields in the declared order, separated by ``-``; the last field
takes whatever is left (hyphens included). The ``head`` field is the position of the
head word among the mention's words (1 = its first word, counting every part of a
discontinuous mention): it becomes :attr:`Markable.head`, and the writer computes it back
from there. A head value that is no such position (``(e1--x)``, ``0``, more than the
mention's words) is an error, as in udapi, corefud-scorer and UD's validator. Every
other field a mention gives, even an empty one, is a markable attribute named after the
field, so that writing it back reproduces the opener. Items ``name:value`` at the
end of the ``other`` field whose names are no declared field are attributes of their own
when the writer would write them back the same way (udapi reads ``other`` so too).
``SplitAnte`` and
``Bridge`` become typed links (``split_antecedent``, ``bridging``) from the anaphor
mention to the antecedent *entity*; a bridging subtype goes to the link's ``relation``
attribute. The writer writes every bridging link type as ``Bridge``
(:func:`corefio.formats.ua.is_bridging`: MMAX2's ``bridging_antecedent`` too, reported
as ``loss.link-type-name``); a bridging link to one mention of the anchor (UA's
``MentionAnchor``) is written as a link to its entity, and reported
(``loss.bridging-anchor``) unless that mention is the one read back: the entity's
closest mention before the anaphor (:func:`corefio.formats.ua.anchor_mention`).
The other MISC keys (``SpaceAfter``, ``Discourse``, ...) stay in the
``misc`` token attribute. A ``# part = 001`` comment after ``# newdoc id`` gives the
document's part (CoNLL-2012's parts of one document keep apart).

What corefio writes from another format (or with ``canonical``) is what CorefUD's tools
read (udapi, and UD's validator with ``--coref``; ``tests/test_ecosystem.py``):

* one ``global.Entity`` for the file: ``eid-etype-head-other`` and the attribute names
  of its first document made of lower-case letters (the validator refuses others);
  every other attribute goes into ``other`` as ``name:value`` (``% , - ( ) | =`` and
  blanks in the value percent-encoded);
* every mention has a head: its own when it is one word of the mention, else the
  highest word of the dependency tree (the ``head`` column) inside the mention (inside
  its head span, for a longer head; the first on a tie), else its last word (the head
  corefio's matching assumes); ``conllu.head-computed`` says how many were computed;
* entity ids and sent_ids are unique in the file (a repeated one is renamed); a
  sent_id has no blank and no ``/`` (udapi reads what follows ``/`` as a zone name): a
  sentence without an id gets its document's name (and part, unless 0) and its number;
* a mention with the words of an earlier one is left out (CorefUD has one mention per
  span), reported as ``loss.same-span``;
* a mention whose words lie in more than one sentence is left out, whatever the source
  (UD's validator refuses a mention open at the end of a sentence, udapi refuses it or
  drops it): ``loss.cross-sentence``, its chain kept (:func:`_within_sentences`);
* the columns get the token attributes of their names (SemEval-2010's predicted ones
  where a document has no gold one) and, from another format, only values valid there
  (:func:`_token_columns`); the others are written ``_`` (``loss.value``, by column).

Words, multi-word-token lines (``9-10``) and empty nodes (``8.1``): words and empty
nodes are tokens (empty nodes can carry mentions: zero anaphora); multi-word-token
lines are kept verbatim between words (``Sentence.interleaved``); a sentence made of
such lines only is refused. Comments are kept verbatim (``Sentence.comments``). When
writing, the canonical order of brackets in ``Entity`` is the one of CoNLL (openers
longest first, single-word mentions, closers shortest first) and coreference keys are
placed among the other MISC keys alphabetically. What only CoNLL-U can use — MISC
values in another order, token ids that are not 1, 2, ... per sentence, the declared
fields, what follows the last sentence, line ends — is kept in a
:class:`ConlluLayout` (``Document.layout["conllu"]``), so a file is written back byte
for byte. Line ends are LF, CRLF or CR throughout (a mix is refused); a file without
sentences (empty, blank or comment lines only) is an error, and so is a file that ends
inside a comment line (no line end after it: it was cut).

Empty nodes are left out on request, with the zero mentions made of them: the read
option ``drop_empty_nodes`` (for a conversion to a format without empty nodes, where
they would become words, that is to be scored against this file) and the write option
of the same name (:func:`dropping_empty_nodes`).

Scoring reads no document: :func:`scan_keys` finds the documents (names, parts, byte
offsets) from the sentences' comments, and :func:`mention_views` gives each document's
:class:`~corefio.model.mentions.MentionView` straight from the text (:class:`_Views`:
sentences split at once, only ids, forms, MISC and, when needed, POS and DEPS kept; the
``Entity``, ``SplitAnte`` and ``Bridge`` values parsed by the reader's own methods), the
same views ``Document.mention_view`` gives (``tests/test_conllu_views.py`` checks it on
every CoNLL-U file of the tests, and that scores are byte for byte the same). What it
does not read itself (an error to locate, a CR-only file, blank lines holding blanks, a
``SplitAnte``/``Bridge`` off its mention's first word) goes to the full reader.
"""

from __future__ import annotations

import itertools
import re
import urllib.parse
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..diagnostics import Report
from ..errors import FormatError, ModelError
from .losses import LossLog
from ..model.mentions import BRIDGING, SPLIT_ANTECEDENT, Mention, MentionView, document_label, is_identity
from .ua import anchor_mention, is_bridging, range_id_in
from ..io._lazy import LazyModule
from ..model.layout import FormatLayout
from .registry import Capabilities, FormatSpec, Option, register
from ..io.source import Source
from ._lines import SourceLines as _Lines
from ._lines import check_part, no_document_error, numeric_part

#: the model, imported on first use
model = LazyModule("corefio.model")

COLUMNS = ["id", "FORM", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc"]
#: the token attributes a CoNLL-U file holds (the id column is layout)
TOKEN_ATTRIBUTES = frozenset(COLUMNS) - {"id", "FORM"}
#: SemEval-2010's predicted columns (read from CoNLL files of that layout) and the CoNLL-U
#: column of the same kind: written there when the document has no value of its own for
#: it (CoNLL-U has one column of each kind, gold or not; CorefUD's own files hold
#: predicted trees); HEAD and DEPREL come from the same pair
PREDICTED = {"plemma": "lemma", "pxpos": "xpos", "pfeats": "feats", "phead": "head", "pdeprel": "deprel"}
#: the token attributes the writer keeps (the predicted ones under CoNLL-U's names)
WRITTEN_ATTRIBUTES = TOKEN_ATTRIBUTES | frozenset(PREDICTED)
#: UD's universal part-of-speech tags and relations (what UD's validator takes at level 2)
UPOS = frozenset("ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X".split())
UDEPRELS = frozenset(
    "acl advcl advmod amod appos aux case cc ccomp clf compound conj cop csubj dep det discourse dislocated expl "
    "fixed flat goeswith iobj list mark nmod nsubj nummod obj obl orphan parataxis punct reparandum root vocative "
    "xcomp".split())
_FEATURE = re.compile(r"^([A-Z][A-Za-z0-9]*(?:\[[a-z0-9]+\])?)=([A-Z0-9][A-Za-z0-9]*(?:,[A-Z0-9][A-Za-z0-9]*)*)$")
_HEAD = re.compile(r"^(0|[1-9][0-9]*)$")
_DEPREL = re.compile(r"^([a-z]+)(:[a-z]+)?$")
_DEPS_ITEM = re.compile(r"^(0|[1-9][0-9]*(?:\.[1-9][0-9]*)?):([a-z]+)(:\S+)?$")
COREF_KEYS = ("Entity", "SplitAnte", "Bridge")
DEFAULT_FIELDS = ["eid", "etype", "head", "other"]

_ENTITY_CHUNK = re.compile(r"\(([^()]+)\)|\(([^()]+)|([^()]+)\)|(.)")
_PART = re.compile(r"^(.*?)\[(\d+)/(\d+)\]$")
_SAFE_EID = re.compile(r"^[^()\-\[\]|=,<:\s]+$")
_RANGE_ID = re.compile(r"^\d+-\d+$")
_EMPTY_ID = re.compile(r"^\d+\.\d+$")
_HEAD_INDEX = re.compile(r"^[1-9][0-9]{0,8}$")
#: the comment giving a document's part (CoNLL-2012's ``part 001``), after ``# newdoc``
_PART_COMMENT = re.compile(r"^#\s*part\s*=\s*(.*)$")
#: what a sent_id cannot hold (CoNLL-U: no blanks; ``/`` separates udapi's zones)
_SENT_ID_UNSAFE = re.compile(r"[\s/]")
_SENT_ID = re.compile(r"^#\s*sent_id\s*=\s*(\S+)")
#: characters a field value cannot hold (``-`` too, except in the last field)
_FIELD_UNSAFE = re.compile(r"[()|\s=]")
_LINE_BREAKING = re.compile(r"[\t\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
_WHITESPACE = re.compile(r"\s")
#: what an attribute name must look like to be declared as a mention field
_FIELD_NAME = re.compile(r"^(?!eid$)[^\s\-()|=,\[\]<:]+$")
#: a field name UD's validator accepts in ``global.Entity``; other names go into ``other``
_DECLARABLE = re.compile(r"^[a-z]+$")
#: a bridging relation UD's validator accepts
_BRIDGE_RELATION = re.compile(r"^[a-z]+$")
#: characters percent-encoded in values packed into ``other``
_PACK_UNSAFE = re.compile(r"[%,()|=\-\s]")


@dataclass
class ConlluLayout(FormatLayout):
    """How one document looked in its CoNLL-U file (see the module docstring)."""

    format: ClassVar[str] = "conllu"

    #: the fields ``# global.Entity`` declared (None: not declared)
    fields: list[str] | None = None
    #: False when the fields were declared by an earlier document of the file
    declared: bool = True
    #: "first" when later parts of discontinuous mentions omit the fields
    part_fields: str = "all"
    #: raw MISC values that differ from the writer's rendering: token → value
    misc: dict[int, str] = field(default_factory=dict)
    #: token ids when they are not 1, 2, ... in each sentence (empty nodes)
    ids: list[str] | None = None
    #: lines after the last sentence of the file (blank lines, comments); None: one blank
    tail: list[str] | None = None
    newline: str = "\n"
    final_newline: bool = True


def split_entity(value: str) -> list[tuple[str, str]] | None:
    """Chunks of an ``Entity`` value as ``(kind, content)``; kind O/S/C; None if malformed."""
    out = []
    for single, opener, closer, _junk in _ENTITY_CHUNK.findall(value):
        if single:
            out.append(("S", single))
        elif opener:
            out.append(("O", opener))
        elif closer:
            out.append(("C", closer))
        else:
            return None
    return out


def _eid_part(text: str) -> tuple[str, int, int]:
    m = _PART.match(text)
    if m and len(m.group(2)) < 10 and len(m.group(3)) < 10:
        return m.group(1), int(m.group(2)), int(m.group(3))
    return text, 1, 1


def _misc_items(misc: str) -> list[str]:
    return [] if misc in ("_", "") else misc.split("|")


def _join_misc(items: list[str]) -> str:
    return "|".join(items) if items else "_"


def _insert_sorted(items: list[str], coref: list[str]) -> list[str]:
    """Place coreference items among the others in alphabetical order of keys."""
    out = list(items)
    for item in coref:
        key = item.split("=", 1)[0]
        pos = len(out)
        for i, other in enumerate(out):
            if other.split("=", 1)[0] > key:
                pos = i
                break
        out.insert(pos, item)
    return out


def _words(spans: Iterable[tuple[int, int]]) -> list[int]:
    return [i for a, b in spans for i in range(a, b + 1)]


def _word(spans: Iterable[tuple[int, int]], k: int) -> int:
    """``_words(spans)[k]`` (``k`` < their number), without listing them."""
    for a, b in spans:
        if k <= b - a:
            return a + k
        k -= b - a + 1
    raise IndexError(k)


# ==========================================================================================
# reading
# ==========================================================================================
class _Mention:
    __slots__ = ("eid", "fields", "spans", "start", "total", "next_part", "line")

    def __init__(self, eid: str, fields: dict, total: int, line: int) -> None:
        self.eid, self.fields, self.total, self.line = eid, fields, total, line
        self.spans: list[tuple[int, int]] = []
        self.start = -1
        self.next_part = 1


class _Doc:
    def __init__(self, name: str, line: int) -> None:
        self.name = name
        self.part: str | None = None
        self.line = line
        self.forms: list[str] = []
        self.columns: list[list[str]] = []
        self.misc_hints: dict[int, str] = {}
        self.sentences: list = []
        self.sizes: list[int] = []
        self.fields = list(DEFAULT_FIELDS)
        self.mentions: list[_Mention] = []
        self.open: dict[str, list[_Mention]] = {}
        self.waiting: dict[str, list[_Mention]] = {}
        self.entities: dict[str, None] = {}
        self.links: list[tuple[str, str, str, str | None, int, int]] = []  # type, ante, anaphor, relation, token, line
        self.has_global_entity = False
        self.inherited = False  # fields declared by an earlier document of the file
        self.part_fields = "all"  # "first": later parts of discontinuous mentions omit fields
        # kept by mention views only (_Views): token ids, DEPS, and XPOS and UPOS when asked
        self.ids: list[str] = []
        self.deps: list[str] = []
        self.tags: tuple[list[str], list[str]] = ([], [])


class _Reader:
    def __init__(self, file: str | None, report: Report, strict: bool) -> None:
        self.file, self.report, self.strict = file, report, strict

    def error(self, message: str, line: int | None) -> FormatError:
        return FormatError(message, file=self.file, line=line)

    def entity_value(self, d: _Doc, t: int, value: str, lineno: int) -> None:
        # the chunks of split_entity, without building its list (this runs for every
        # token with an Entity value); a malformed value is refused before any chunk is used
        chunks = _ENTITY_CHUNK.findall(value)
        for chunk in chunks:
            if chunk[3]:
                raise self.error(f"malformed Entity value {value!r}", lineno)
        for single, opener, closer, _ in chunks:
            if closer:
                eid, part, total = _eid_part(closer) if "[" in closer else (closer, 1, 1)
                stack = d.open.get(eid)
                found = None
                if stack:
                    if stack[-1].next_part == part:  # the innermost, as a rule
                        found = stack.pop()
                    else:
                        for i in range(len(stack) - 2, -1, -1):
                            if stack[i].next_part == part:
                                found = stack.pop(i)
                                break
                if found is None:
                    raise self.error(f"Entity closer {closer}) has no open mention of {eid!r}", lineno)
                self.close(d, found, t)
                continue
            content = single or opener
            head, dash, rest = content.partition("-")
            eid, part, total = _eid_part(head) if "[" in head else (head, 1, 1)
            if not eid:
                raise self.error(f"Entity opener without an entity id: ({content}", lineno)
            if eid not in d.entities:
                d.entities[eid] = None
            if part == 1:
                fields = {}
                if dash:
                    names = d.fields[1:]
                    parts = rest.split("-", len(names) - 1) if names else [rest]
                    if len(parts) > len(names):
                        raise self.error(f"mention of {eid!r} has more fields than global.Entity declares", lineno)
                    fields = dict(zip(names, parts))
                m = _Mention(eid, fields, total, lineno)
                d.mentions.append(m)
            else:
                waiting = d.waiting.get(eid, [])
                found = next((w for w in reversed(waiting) if w.next_part == part and w.total == total), None)
                if found is None:
                    raise self.error(f"part {part}/{total} of a mention of {eid!r} without its earlier parts", lineno)
                m = found
                waiting.remove(m)
                if not dash and m.fields:
                    d.part_fields = "first"
            m.start = t
            if single:
                self.close(d, m, t)
            else:
                stack = d.open.get(eid)
                if stack is None:
                    d.open[eid] = [m]
                else:
                    stack.append(m)

    def close(self, d: _Doc, m: _Mention, t: int) -> None:
        m.spans.append((m.start, t))
        if m.next_part < m.total:
            m.next_part += 1
            d.waiting.setdefault(m.eid, []).append(m)
        else:
            m.next_part = m.total + 1

    def relation(self, d: _Doc, key: str, value: str, t: int, lineno: int) -> None:
        for item in value.split(","):
            if "<" not in item:
                raise self.error(f"malformed {key} item {item!r} (expected ANTECEDENT<ANAPHOR)", lineno)
            ante, _, anaphor = item.partition("<")
            relation = None
            if key == "Bridge" and ":" in anaphor:
                anaphor, _, relation = anaphor.partition(":")
            d.links.append((key, ante, anaphor, relation, t, lineno))

    def token(self, d: _Doc, fields: list[str], lineno: int) -> None:
        t = len(d.forms)
        misc = fields[9]
        if misc == "_" or not ("Entity" in misc or "SplitAnte" in misc or "Bridge" in misc):
            # no coreference key in it (most tokens): the MISC is kept as it is
            d.forms.append(fields[1])
            d.columns.append([fields[0], *fields[2:]])
            return
        items = _misc_items(misc)
        others = []
        coref_items = []
        for item in items:
            key, _, value = item.partition("=")
            if key in COREF_KEYS:
                coref_items.append(item)
                if key == "Entity":
                    self.entity_value(d, t, value, lineno)
                else:
                    self.relation(d, key, value, t, lineno)
            else:
                others.append(item)
        clean = misc
        if coref_items:
            clean = _join_misc(others)
            d.misc_hints[t] = misc
        d.forms.append(fields[1])
        d.columns.append([fields[0], *fields[2:9], clean])

    def mention_parts(self, d: _Doc) -> Iterator[tuple[_Mention, tuple[tuple[int, int], ...], Any, dict]]:
        """Each mention of a finished document with its spans (parts merged), its head
        (from the ``head`` field) and its attributes (the other fields): what the
        markable ``markable_K`` (K from 1, in this order) is made of, for documents and
        for mention views alike."""
        has_head, has_other = "head" in d.fields, "other" in d.fields
        for m in d.mentions:
            spans = (m.spans[0],) if len(m.spans) == 1 else _merge(m.spans)
            attrs = dict(m.fields)
            if not attrs:
                yield m, spans, None, attrs
                continue
            if "" in attrs.values():
                # an empty field followed by a given one only pads the opener
                names = list(m.fields)
                for name in names[:-1]:
                    if attrs[name] == "":
                        del attrs[name]
            head = None
            value = attrs.get("head")
            if value is not None and has_head:
                # a declared head field holds a position among the mention's words
                # (udapi and corefud-scorer refuse anything else)
                count = spans[0][1] - spans[0][0] + 1 if len(spans) == 1 else sum(b - a + 1 for a, b in spans)
                if not _HEAD_INDEX.match(value) or int(value) > count:
                    raise self.error(f"mention of {m.eid!r}: head {value!r} is no position among its {count} "
                                     f"word(s) (the head field of global.Entity counts them from 1)", m.line)
                w = spans[0][0] + int(value) - 1 if len(spans) == 1 else _word(spans, int(value) - 1)
                head = ((w, w),)
                del attrs["head"]
            if has_other and attrs.get("other"):
                rest, extra = unpacked(attrs["other"], d.fields)
                if extra and not extra.keys() & attrs.keys():
                    del attrs["other"]
                    if rest:
                        attrs["other"] = rest
                    attrs.update(extra)
            yield m, spans, head, attrs

    def link_parts(self, d: _Doc) -> Iterator[tuple[str, str, str, str | None]]:
        """Each ``SplitAnte``/``Bridge`` item of a finished document as ``(key, source
        markable, antecedent entity, relation)``, its antecedent added to the entities."""
        if not d.links:
            return
        by_start: dict[tuple[str, int], str] = {}
        for k, m in enumerate(d.mentions, 1):
            by_start.setdefault((m.eid, m.spans[0][0]), f"markable_{k}")
        for key, ante, anaphor, relation, t, lineno in d.links:
            source = by_start.get((anaphor, t))
            if source is None:
                covering = [f"markable_{j}" for j, m in enumerate(d.mentions, 1)
                            if m.eid == anaphor and any(a <= t <= b for a, b in m.spans)]
                if not covering:
                    raise self.error(f"{key}: no mention of {anaphor!r} starts on or covers this word", lineno)
                source = covering[0]
                self.report.warning("conllu.relation-moved",
                                    f"{key} is not on the first word of the mention of {anaphor!r}; "
                                    "it will be written there", line=lineno, merge=True, file=self.file)
            if ante not in d.entities:
                d.entities[ante] = None
            yield key, source, ante, relation

    def finish(self, d: _Doc):
        for eid, stack in d.open.items():
            if stack:
                raise self.error(f"mention of {eid!r} opened here is never closed", stack[0].line)
        for eid, waiting in d.waiting.items():
            if waiting:
                raise self.error(f"discontinuous mention of {eid!r} misses its later parts", waiting[0].line)
        n = len(d.forms)
        cols = list(zip(*d.columns)) if n else [()] * 9
        ids = list(cols[0])
        # a column of placeholders only is no attribute (the writer writes "_" again)
        attributes: dict[str, list[str | None]] = {name: list(col) for name, col in zip(COLUMNS[2:], cols[1:])
                                                   if col.count("_") != len(col)}
        markables = [model.Markable.fast(f"markable_{k}", spans, m.eid, head, attrs)
                     for k, (m, spans, head, attrs) in enumerate(self.mention_parts(d), 1)]
        links = []
        for k, (key, source, ante, relation) in enumerate(self.link_parts(d), 1):
            attrs = {"relation": relation} if relation is not None else {}
            links.append(model.Link.fast(f"link_{k}", source, (ante,), SPLIT_ANTECEDENT if key == "SplitAnte"
                                         else BRIDGING, "entity", attrs))
        used = {m.eid for m in d.mentions}
        # declare only entities that no mention names (antecedents of SplitAnte/Bridge)
        entities = [model.Entity(id=e, attributes={}) for e in d.entities if e not in used]
        layout = ConlluLayout(fields=list(d.fields) if d.has_global_entity or d.inherited else None,
                              declared=not d.inherited, part_fields=d.part_fields, newline=self.newline)
        derived = [str(i) for size in d.sizes for i in range(1, size + 1)]
        if ids != derived:
            layout.ids = ids
        empty = [i for i, x in enumerate(ids) if "." in x and _EMPTY_ID.match(x)] or None
        try:
            doc = model.Document.build(
                name=d.name, part=d.part, metadata={},
                tokens=model.Tokens(forms=d.forms, ids=None, whitespace=None, offsets=None, attributes=attributes,
                                          empty=empty),
                sentences=d.sentences, markables=markables, entities=entities, links=links,
                layout={"conllu": layout},
            )
        except ModelError as exc:
            raise self.error(str(exc), d.line) from None
        # keep the source's MISC where our rendering would differ (bracket order, key order)
        if d.misc_hints:
            fields = list(d.fields)
            rendered = misc_column(doc, [m.entity for m in markables], fields, LossLog(Report(), "CoNLL-U"), None)
            for t, raw in d.misc_hints.items():
                if rendered[t] != raw:
                    layout.misc[t] = raw
        return doc

    def documents(self, lines: _Lines, stem: str) -> Iterator:
        """The documents of the file, each once the next one starts (or the file ends)."""
        self.newline = "\n"
        d: _Doc | None = None
        count = 0
        comments: list[str] = []
        interleaved: list[tuple[int, str]] = []
        sent_first = 0
        sent_line = 0
        in_sentence = False
        after_words: list[str] = []  # lines since the last word

        def end_sentence() -> None:
            nonlocal in_sentence, comments, interleaved
            if d is not None and len(d.forms) > sent_first:
                d.sentences.append(model.Sentence(first=sent_first, last=len(d.forms) - 1, id=None,
                                                        comments=comments, interleaved=interleaved, attributes={}))
                d.sizes.append(len(d.forms) - sent_first)
            elif interleaved:
                raise self.error("sentence without words (multi-word-token lines whose words are missing)",
                                 sent_line)
            comments, interleaved = [], []
            in_sentence = False

        lineno = 0
        for lineno, line in enumerate(lines, 1):
            self.newline = lines.newline
            if not line.strip():
                if in_sentence:
                    end_sentence()
                after_words.append(line)
                continue
            if line.startswith("#"):
                if in_sentence:
                    raise self.error("comment line inside a sentence (a blank line is missing?)", lineno)
                comments.append(line)
                after_words.append(line)
                continue
            fields = line.split("\t")
            if len(fields) != 10:
                raise self.error(f"CoNLL-U lines have 10 TAB-separated columns, this one has {len(fields)}", lineno)
            if not in_sentence:
                in_sentence = True
                sent_line = lineno
                newdoc = next((c for c in comments if re.match(r"^#\s*newdoc\b", c)), None)
                if d is None or newdoc is not None:
                    if d is not None:
                        yield self.finish(d)
                    count += 1
                    name = stem if count == 1 else f"{stem}-{count}"
                    if newdoc is not None:
                        m = re.match(r"^#\s*newdoc\s+id\s*=\s*(.*)$", newdoc)
                        if m:
                            name = m.group(1).strip()
                    previous = d
                    d = _Doc(name, lineno)
                    part = next((m for m in map(_PART_COMMENT.match, comments) if m), None)
                    if part is not None:
                        d.part = part.group(1).strip()
                        check_part(d.part, self.file, lineno - len(comments) + comments.index(part.string))
                    if previous is not None and previous.has_global_entity:
                        d.fields, d.inherited = list(previous.fields), True
                        d.has_global_entity = True
                for c in comments:
                    m = re.match(r"^#\s*global\.Entity\s*=\s*(.*)$", c)
                    if m:
                        d.fields = m.group(1).strip().split("-")
                        d.has_global_entity, d.inherited = True, False
                sent_first = len(d.forms)
            assert d is not None  # a sentence has started, and with it a document
            after_words = []
            ident = fields[0]
            if "-" in ident and _RANGE_ID.match(ident):
                if any(k.startswith(COREF_KEYS) for k in _misc_items(fields[9])):
                    raise self.error("coreference on a multi-word-token line", lineno)
                interleaved.append((len(d.forms) - sent_first, line))
                continue
            if not (ident.isdigit() or _EMPTY_ID.match(ident)):
                raise self.error(f"bad token id {ident!r}", lineno)
            self.token(d, fields, lineno)
        if in_sentence:
            end_sentence()
            self.report.warning("conllu.no-final-blank", "the last sentence is not followed by a blank line",
                                line=lineno, file=self.file)
        self.final_newline = lines.final_newline
        if lineno and not lines.final_newline and after_words and after_words[-1].startswith("#"):
            raise self.error("the file ends inside a comment line (no line end after it: a cut file?)", lineno)
        if d is None:
            raise no_document_error(self.file, lineno, "a token line")
        last = self.finish(d)
        lay = last.layout["conllu"]
        if after_words != [""]:
            lay.tail = after_words
        lay.final_newline = lines.final_newline
        yield last


def _merge(spans: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return tuple(out)


def read(source: Source, *, report: Report, strict: bool = False, drop_empty_nodes: bool = False) -> Any:
    """Read a CorefUD CoNLL-U file (``drop_empty_nodes``: see :func:`dropping_empty_nodes`)."""
    documents = list(stream(source, report=report, strict=strict, drop_empty_nodes=drop_empty_nodes))
    return model.Corpus(documents=documents, metadata={}, schemes=[], layout={})


def stream(source: Source, *, report: Report, strict: bool = False, drop_empty_nodes: bool = False
           ) -> Iterator[Any]:
    """The documents one at a time, reading the file line by line."""
    documents = _Reader(source.name, report, strict).documents(_Lines(source), source.stem)
    yield from dropping_empty_nodes(documents, report) if drop_empty_nodes else documents


def dropping_empty_nodes(documents: Iterable[Any], report: Report) -> Iterator[Any]:
    """The documents without their empty nodes (the read and write option
    ``drop_empty_nodes``): for a conversion to a format without empty nodes that is to be
    scored against the CoNLL-U file (there, empty nodes would become words, and the texts
    differ), or for tools that do not read them. Zero mentions leave with them
    (:func:`corefio.model.zeros.without_empty_tokens`); ``conllu.empty-nodes-dropped``
    says how many."""
    from ..model.zeros import without_empty_tokens

    for doc in documents:
        doc, nodes, zeros = without_empty_tokens(doc)
        if nodes:
            report.info("conllu.empty-nodes-dropped", "empty nodes left out (drop_empty_nodes), with the zero "
                        "mentions made of them", document=doc.label, count=nodes, merge=True,
                        example=f"{zeros} zero mention(s)")
        yield doc


def loads(text: str, *, report: Report | None = None, strict: bool = False, file: str | None = None) -> Any:
    """Read CoNLL-U text (a shortcut of ``corefio.loads(text, "conllu")`` for tests)."""
    source = Source.from_text(text, file)
    return read(source, report=report if report is not None else Report(file), strict=strict)


# ==========================================================================================
# mention views: what scoring reads, without building documents
# ==========================================================================================
class _Unusual(Exception):
    """The fast path of :func:`mention_views` met what it leaves to the full reader: an
    error or a warning to locate (it counts no lines), or a rare layout (a byte order
    mark, CR line ends, blank lines holding spaces, no blank line after the last
    sentence)."""


#: bytes :meth:`_Text.pieces` reads at a time
_PIECE = 1 << 20
#: a blank line that is not empty (the reader takes it for a sentence end) but the
#: first: starting with a line end, the search skips to line ends at C speed
_BLANKISH = re.compile(r"\n[^\S\n]+(?=\n|\Z)")
_NEWDOC = re.compile(r"^#\s*newdoc\b")
_NEWDOC_ID = re.compile(r"^#\s*newdoc\s+id\s*=\s*(.*)$")
_GLOBAL_ENTITY = re.compile(r"^#\s*global\.Entity\s*=\s*(.*)$")


def _has_blankish(text: str) -> bool:
    """Has ``text`` a line of blanks (a sentence end for the reader, not for the split at
    empty lines)?"""
    cut = text.find("\n")
    first = text if cut < 0 else text[:cut]
    return bool(first) and not first.strip() or _BLANKISH.search(text) is not None


class _Text:
    """The text of a file from byte ``start`` (a line start; 0: the file's start, after
    a byte order mark) to ``end`` (None: the file's end), in pieces (:meth:`pieces`).
    Opening it checks what :class:`~corefio.formats._lines.SourceLines` checks first
    (the encoding of the head, the line end of the first line); CR-only line ends are
    :class:`_Unusual` (rare; the reader reads such a file whole)."""

    def __init__(self, source: Source, start: int = 0, end: int | None = None) -> None:
        from ._lines import _text_start

        self.source, self.end = source, end
        #: the text goes to the file's end
        self.to_end = end is None or end >= source.size()
        with source.open() as f:
            try:
                base, first_end = _text_start(f, source.name)
            except FormatError:
                raise _Unusual from None
        if first_end == b"\r":
            raise _Unusual
        self.crlf = first_end == b"\r\n"
        #: where the text starts: after a byte order mark at the file's start
        self.start = max(start, base)

    def pieces(self) -> Iterator[tuple[str, bool]]:
        """``(text, last?)``: pieces of about :data:`_PIECE` bytes, each but the last
        ending with a blank line (so a piece holds whole sentences), line ends LF. Raises
        :class:`_Unusual` for what the reader refuses or reads otherwise line by line:
        bytes that are no UTF-8, line ends other than the first line's, and blank lines
        that hold blanks."""
        blank = b"\r\n\r\n" if self.crlf else b"\n\n"
        left = self.end - self.start if self.end is not None else None
        with self.source.open() as f:
            f.seek(self.start)
            waiting: list[bytes] = []  # read, no blank line in it yet
            while True:
                chunk = f.read(_PIECE if left is None else min(_PIECE, left))
                if left is not None:
                    left -= len(chunk)
                last = not chunk
                cut = 0
                if not last:
                    # a blank line may straddle two chunks: look from the bytes read before
                    edge = waiting[-1][1 - len(blank):] if waiting else b""
                    found = (edge + chunk).rfind(blank)
                    if found < 0:
                        waiting.append(chunk)
                        continue
                    cut = found + len(blank) - len(edge)
                waiting.append(chunk[:cut])
                piece = b"".join(waiting)
                waiting = [chunk[cut:]]
                try:
                    text = piece.decode("utf-8")
                except UnicodeDecodeError:
                    raise _Unusual from None
                if self.crlf:
                    lf = text.count("\n")
                    if text.count("\r\n") != lf or text.count("\r") != lf:
                        raise _Unusual
                    text = text.replace("\r\n", "\n")
                elif "\r" in text:
                    raise _Unusual
                if _has_blankish(text):
                    raise _Unusual
                yield text, last
                if last:
                    return


def _fields_before(source: Source, start: int) -> list[str] | None:
    """The fields the last ``global.Entity`` comment before byte ``start`` (a line
    start) declares (None: there is none): what a document starting there inherits.
    The file is read backwards a piece at a time."""
    with source.open() as f:
        end = start  # a line start: the pieces hold whole lines
        size = _PIECE
        while end > 0:
            begin = max(0, end - size)
            f.seek(begin)
            chunk = f.read(end - begin)
            if begin > 0:  # from the first line start on (the line cut is read with the piece before)
                cut = chunk.find(b"\n", 0, len(chunk) - 1) + 1  # the piece ends with a line end
                if not cut:
                    size *= 2  # no whole line in it
                    continue
                chunk, begin = chunk[cut:], begin + cut
            at = len(chunk)
            while True:
                at = chunk.rfind(b"global.Entity", 0, at)
                if at < 0:
                    break
                line_start = chunk.rfind(b"\n", 0, at) + 1
                line_end = chunk.find(b"\n", at)
                m = _GLOBAL_ENTITY.match(chunk[line_start:line_end if line_end >= 0 else len(chunk)]
                                         .decode("utf-8", "replace"))
                if m:
                    return m.group(1).strip().split("-")
                at = line_start
            end = begin
    return None


class _Views:
    """The fast path of :func:`mention_views` (and of :func:`scan_keys`): the text cut
    at blank lines, each sentence's token lines split at once and only their ids,
    forms, MISC (and, when asked, POS and enhanced dependencies) kept; ``Entity``,
    ``SplitAnte`` and ``Bridge`` values parsed by the reader's own methods
    (:class:`_Reader`), mentions made by its :meth:`_Reader.mention_parts`. No document,
    no token attribute, no layout is built. Anything unusual raises :class:`_Unusual`:
    the caller then reads the file the full way."""

    def __init__(self, reader: _Reader, stem: str, pos: bool, select: set[int] | None, keys_only: bool,
                 first: int = 0, fields: list[str] | None = None, report: Report | None = None) -> None:
        self.reader, self.stem, self.pos, self.select, self.keys_only = reader, stem, pos, select, keys_only
        #: the number of the first document read, and the fields it inherits (a byte range)
        self.first, self.fields = first, fields
        #: where the warning about the file's end goes (``reader.report`` collects what
        #: the fast path leaves to the full reader)
        self.report = report if report is not None else Report()
        self.keys: list[tuple[str, str | None]] = []
        #: with ``keys_only``: (byte offset, line) where each document starts, just
        #: after the blank lines that end the sentence before (its comments are its own)
        self.starts: list[tuple[int, int]] = []

    def run(self, source: Source, start: int = 0, end: int | None = None, line: int = 1) -> Iterator[MentionView]:
        """The views of the documents from byte ``start`` (line ``line``) to ``end``."""
        text_of = _Text(source, start, end)
        nl = 2 if text_of.crlf else 1  # bytes of a line end
        d: _Doc | None = None
        comments: list[str] = []  # comment lines waiting for their sentence
        offset = text_of.start  # where the block starts (counted with keys_only)
        group = (start, line)  # where the comments waiting started
        open_end = False  # the file's last sentence has no blank line after it
        for text, last in text_of.pieces():
            at_end = last and text_of.to_end
            blocks = text.split("\n\n")
            ascii = self.keys_only and text.isascii()
            for number, raw in enumerate(blocks):
                # more than one blank line between two blocks leaves line ends around them
                block = raw.strip("\n") if raw[:1] == "\n" or raw[-1:] == "\n" else raw
                if self.keys_only:
                    lead = len(raw) - len(raw.lstrip("\n")) if raw[:1] == "\n" else 0
                    here = (offset + lead * nl, line + lead)
                    breaks = raw.count("\n")
                    offset += 2 * nl + (len(raw) if ascii else len(raw.encode("utf-8"))) + (nl - 1) * breaks
                    line += 2 + breaks
                if not block:
                    continue
                if self.keys_only and not comments:
                    group = here
                tail = at_end and number == len(blocks) - 1  # no blank line after it
                rows = block
                if block[0] == "#":  # the sentence's comments, or comments alone
                    at = 0
                    while block.startswith("#", at):
                        cut = block.find("\n", at)
                        if cut < 0:
                            cut = len(block)
                        comments.append(block[at:cut])
                        at = cut + 1
                    if at >= len(block):
                        if tail and not text.endswith("\n"):
                            raise _Unusual  # the file ends inside a comment line: the reader says where
                        continue
                    rows = block[at:]
                if "\n#" in rows:
                    raise _Unusual  # a comment inside a sentence: the reader says where
                open_end = tail
                if d is None or any("newdoc" in c and _NEWDOC.match(c) for c in comments):
                    if d is not None:
                        view = self.finish(d)
                        if view is not None:
                            yield view
                    d = self.start(d, comments)
                    if self.keys_only:
                        self.starts.append(group if self.starts else (start, 1))
                if not self.keys_only:
                    for c in comments:
                        m = _GLOBAL_ENTITY.match(c) if "global.Entity" in c else None
                        if m:
                            d.fields = m.group(1).strip().split("-")
                            d.has_global_entity, d.inherited = True, False
                    self.sentence(d, rows)
                comments = []
            if self.keys_only:
                offset, line = offset - 2 * nl, line - 2  # no blank line after the piece's last block
            else:
                line += text.count("\n")
        if d is None:
            raise _Unusual  # no document: the reader says where
        view = self.finish(d)
        if open_end and not self.keys_only:
            # the last line's number: its line end (if any) was counted
            self.report.warning("conllu.no-final-blank", "the last sentence is not followed by a blank line",
                                line=line - (1 if text.endswith("\n") else 0), file=self.reader.file)
        if view is not None:
            yield view

    def start(self, previous: _Doc | None, comments: list[str]) -> _Doc:
        """A document starting at a sentence with these comments (as :meth:`_Reader.documents`)."""
        count = self.first + len(self.keys) + 1
        name = self.stem if count == 1 else f"{self.stem}-{count}"
        newdoc = next((c for c in comments if _NEWDOC.match(c)), None)
        if newdoc is not None:
            m = _NEWDOC_ID.match(newdoc)
            if m:
                name = m.group(1).strip()
        d = _Doc(name, 0)
        part = next((m for m in map(_PART_COMMENT.match, comments) if m), None)
        if part is not None:
            d.part = part.group(1).strip()
            check_part(d.part, None, None)  # refused: the reader says where
        if previous is not None and previous.has_global_entity:
            d.fields, d.inherited = list(previous.fields), True
            d.has_global_entity = True
        elif previous is None and self.fields is not None:
            d.fields, d.inherited = list(self.fields), True
            d.has_global_entity = True
        self.keys.append((d.name, d.part))
        return d

    def sentence(self, d: _Doc, rows: str) -> None:
        """One sentence's token lines (and multi-word-token lines)."""
        split = [line.split("\t") for line in rows.split("\n")]
        if len(split[0]) != 10 or len(set(map(len, split))) != 1:
            raise _Unusual  # a line without 10 columns
        ids, forms, _, upos, xpos, _, _, _, deps, miscs = zip(*split)
        if not (all(ids) and "".join(ids).isdigit()):  # multi-word tokens, empty nodes, bad ids
            words = []
            for i, ident in enumerate(ids):
                if _RANGE_ID.match(ident):
                    if any(k.startswith(COREF_KEYS) for k in _misc_items(miscs[i])):
                        raise _Unusual  # coreference on a multi-word-token line
                elif ident.isdigit() or _EMPTY_ID.match(ident):
                    words.append(i)
                else:
                    raise _Unusual  # a bad token id
            if not words:
                raise _Unusual  # multi-word-token lines without their words
            ids, forms, upos, xpos, deps, miscs = (tuple(column[i] for i in words)
                                                   for column in (ids, forms, upos, xpos, deps, miscs))
        t = len(d.forms)
        d.forms.extend(forms)
        d.sizes.append(len(forms))
        d.ids.extend(ids)
        d.deps.extend(deps)
        if self.pos:
            d.tags[0].extend(xpos)
            d.tags[1].extend(upos)
        if "Entity" in rows or "SplitAnte" in rows or "Bridge" in rows:
            reader = self.reader
            for i, misc in enumerate(miscs, t):
                if misc == "_":
                    continue
                if misc.startswith("Entity=") and "|" not in misc:  # the usual MISC of a mention's word
                    reader.entity_value(d, i, misc[7:], 0)
                elif "Entity" in misc or "SplitAnte" in misc or "Bridge" in misc:
                    for item in misc.split("|"):
                        key, _, value = item.partition("=")
                        if key == "Entity":
                            reader.entity_value(d, i, value, 0)
                        elif key in COREF_KEYS:
                            reader.relation(d, key, value, i, 0)

    def finish(self, d: _Doc) -> MentionView | None:
        """The view of a document read to its end (None: not selected)."""
        if self.keys_only:
            return None
        if any(d.open.values()) or any(d.waiting.values()):
            raise _Unusual  # a mention never closed: the reader says where
        reader = self.reader
        for _ in reader.link_parts(d):  # what the reader refuses in them, refused
            pass
        if len(reader.report):
            raise _Unusual  # a warning (conllu.relation-moved): the reader gives it with its line
        number = self.first + len(self.keys) - 1
        if self.select is not None and number not in self.select:
            return None
        groups: dict[str, list[Mention]] = {}
        for k, (m, spans, head, attrs) in enumerate(reader.mention_parts(d), 1):
            mention = Mention(spans, f"markable_{k}", None, head, None, False, attrs or None)
            chain = groups.get(m.eid)
            if chain is None:
                groups[m.eid] = [mention]
            else:
                chain.append(mention)
        mentions = list(groups.values())
        column: list[str | None] | None = None
        if self.pos:
            # the first POS column the document has (Document.mention_view): a column of
            # placeholders only is no token attribute
            column = next((list[str | None](tags) for tags in d.tags if tags.count("_") != len(tags)), None)
        places = None
        ids = d.ids
        empty = [i for i, x in enumerate(ids) if "." in x and _EMPTY_ID.match(x)]
        if empty:  # as corefio.model.zeros.document_places reads the document
            from ..model.zeros import parse_deps, token_places, zero_of

            ends = list(itertools.accumulate(d.sizes))
            places = token_places([(end - size, end - 1) for size, end in zip(d.sizes, ends)], set(empty), ids)
            deps = d.deps if d.deps.count("_") != len(d.deps) else None
            info = {i: (places[i][0], parse_deps(deps[i] if deps is not None else None, places[i][0]))
                    for i in empty}
            mentions = [[m._replace(zero=zero_of(m.spans, m.head, info)) for m in chain] for chain in mentions]
        return MentionView(document_label(d.name, d.part), d.forms, mentions, column, places)


def mention_views(source: Source | Any, *, report: Report, strict: bool = False, select: set[int] | None = None,
                  byte_range: tuple[int, int, int, int] | None = None, pos: bool = False) -> Iterator[MentionView]:
    """What scoring reads, document by document: the :class:`MentionView` that
    ``Document.mention_view(pos)`` gives for each document :func:`read` builds (same
    labels, forms, chains, mentions, heads, attributes, zeros), without building
    documents (:class:`_Views`). ``select`` (document numbers from 0) gives only those;
    ``byte_range`` = (start, end, number of the first document, its line), from
    :func:`scan_keys`, reads only that part of the file (with ``select``), the fields
    its first document inherits found before it (:func:`_fields_before`).

    A file the fast path does not take (:class:`_Unusual`, or an error it met) is read
    again by :func:`stream`, whose errors and warnings are then those the file deserves;
    the views given before are not given again."""
    source = Source.of(source)
    start, end, first = byte_range[:3] if byte_range is not None else (0, None, 0)
    assert byte_range is None or select is not None, "a byte range comes with the documents selected in it"
    given = 0
    try:
        fields = _fields_before(source, start) if start else None
        views = _Views(_Reader(source.name, Report(), strict), source.stem, pos, select, False, first, fields,
                       report)
        for view in views.run(source, start, end, byte_range[3] if byte_range is not None else 1):
            yield view
            given += 1
        return
    except (_Unusual, FormatError):
        pass
    # the full reader, from the document after the last view given
    seen = 0
    for number, doc in enumerate(stream(source, report=report, strict=strict)):
        if select is None or number in select:
            seen += 1
            if seen > given:
                yield doc.mention_view(pos)
            if select is not None and seen == len(select):
                return  # the documents after them are another run's


def scan_keys(source: Source | Any) -> list[tuple]:
    """``(name, part, byte offset, line)`` of every document, from the comments of
    the sentences alone (:class:`_Views` without tokens). A file the fast path does not
    take is read by :func:`stream`, which raises what the file deserves; its documents
    are then given as ``(name, part)``, without offsets (their views are then read from
    the file's start)."""
    source = Source.of(source)
    views = _Views(_Reader(source.name, Report(), False), source.stem, False, None, True)
    try:
        for _ in views.run(source):
            pass
    except (_Unusual, FormatError):
        return [(doc.name, doc.part) for doc in stream(source, report=Report(), strict=False)]
    return [(name, part, offset, line) for (name, part), (offset, line) in zip(views.keys, views.starts)]


# ==========================================================================================
# writing
# ==========================================================================================
class _Taken:
    """Names a file has used (entity ids, sent_ids) and those one document adds, without
    copying the file's set for each document: ``file`` grows as documents are written
    (:meth:`commit`), ``local`` holds what the document being written adds."""

    __slots__ = ("file", "local")

    def __init__(self, file: set[str] | None = None) -> None:
        self.file: set[str] = file if file is not None else set()
        self.local: set[str] = set()

    def __contains__(self, name: str) -> bool:
        return name in self.file or name in self.local

    def add(self, name: str) -> None:
        self.local.add(name)


@dataclass
class _EntityIds:
    """The entity ids of a file (CorefUD's ids are unique in a file: udapi would merge the
    entities) and the smallest ``eN`` none of them is, kept across the file so that each
    document counts on from there (numbers below it are all taken)."""

    used: set[str] = field(default_factory=set)
    next: int = 1

    def commit(self, labels: Iterable[str]) -> None:
        self.used.update(labels)
        while f"e{self.next}" in self.used:
            self.next += 1


def _labels(doc, log: LossLog, ids: _EntityIds | None = None) -> list[str]:
    """An eid for every markable: its chain's entity id when usable, else e1, e2, ...
    (the smallest numbers no chain uses). ``ids``: the entity ids earlier documents of
    the file use (not changed here: :meth:`_EntityIds.commit` records a document's)."""
    ids = ids if ids is not None else _EntityIds()
    chains = doc.chain_indices()
    chain_label: list[str | None] = []
    taken = _Taken(ids.used)
    renamed: list[str] = []
    for chain in chains:
        # the chain's first entity id (the one a chain of merged entities keeps)
        label = next((doc.markables[k].entity for k in chain if doc.markables[k].entity is not None), None)
        if label is not None and (not _SAFE_EID.match(label) or label in taken):
            renamed.append(label)
            label = None
        chain_label.append(label)
        if label is not None:
            taken.add(label)
    for e in doc.entities:
        taken.add(e.id)
    labels = [""] * len(doc.markables)
    number = ids.next
    for label, chain in zip(chain_label, chains):
        if label is None:
            while f"e{number}" in taken:
                number += 1
            label = f"e{number}"
            taken.add(label)
        for k in chain:
            labels[k] = label
    if renamed:
        counters = all(re.match(r"^[A-Za-z_]*\d+$", e) for e in renamed)
        log.lose("label", "entity ids that CorefUD cannot write, or that an earlier document of the file "
                 "uses", done="renumbered e1, e2, ...",
                 document=doc, count=len(renamed), example=renamed[0], severity="info" if counters else "warning")
    return labels


def _fields_for(doc, lay: ConlluLayout | None, declared: list[str] | None = None) -> list[str]:
    """The mention fields to declare: the source's, those an earlier document of the file
    declared (``declared``), or the default ones and the names of the markables'
    attributes that UD's validator accepts as fields (lower-case letters). Attributes
    these fields do not name go into the ``other`` field (:func:`_packed`); when there
    is none (a source declared its own fields without it), their names are declared too."""
    fixed = lay.fields if lay is not None and lay.fields else declared
    fields = list(fixed) if fixed else list(DEFAULT_FIELDS)
    extra: dict[str, None] = {}
    for m in doc.markables:
        for name in m.attributes:
            if name in fields or not _FIELD_NAME.match(name):
                continue
            if (not fixed and _DECLARABLE.match(name)) or "other" not in fields:
                extra[name] = None
        if m.head is not None and "head" not in fields:
            extra["head"] = None
    return fields + sorted(extra)


def _head_value(m) -> str | None:
    """The head field of a markable: the head's position among its words."""
    if m.head is None:
        return None
    if len(m.head) == 1 and m.head[0][0] == m.head[0][1]:
        if len(m.spans) == 1:  # the usual mention: no word list needed
            a, b = m.spans[0]
            h = m.head[0][0]
            return str(h - a + 1) if a <= h <= b else None
        words = _words(m.spans)
        try:
            return str(words.index(m.head[0][0]) + 1)
        except ValueError:
            return None
    return None


class _Tree:
    """The dependency tree of a document (the ``head`` token attribute, CoNLL-U's HEAD
    column), to find the highest word of a mention."""

    def __init__(self, doc, ids: list[str]) -> None:
        heads = doc.tokens.attributes.get("head")
        #: token -> its parent token, -1 for the root; tokens without a parent are absent
        self.parent: dict[int, int] = {}
        if heads is None:
            return
        sentences = [(s.first, s.last) for s in doc.sentences] or [(0, len(ids) - 1)]
        for first, last in sentences:
            where = {ids[i]: i for i in range(first, last + 1)}
            for i in range(first, last + 1):
                value = heads[i]
                if value == "0":
                    self.parent[i] = -1
                elif value is not None and value in where and where[value] != i:
                    self.parent[i] = where[value]

    def depth(self, token: int) -> int:
        """Steps up to the root (a cycle or a broken chain counts as very deep)."""
        steps = 0
        while token != -1:
            if token not in self.parent or steps > len(self.parent):
                return len(self.parent) + 1
            token = self.parent[token]
            steps += 1
        return steps

    def highest(self, words: list[int]) -> int | None:
        """The word of ``words`` nearest the root whose parent is not among them (the
        first one on a tie), or None when the tree says nothing about them."""
        inside = set(words)
        tops = [w for w in words if w in self.parent and self.parent[w] not in inside]
        if not tops:
            return None
        return min(tops, key=lambda w: (self.depth(w), words.index(w)))


def computed_head(m, tree: _Tree) -> int:
    """The head word the writer gives a mention without a one-word head: the highest
    word of the dependency tree inside the mention (inside its head span, when it has a
    longer one), else the last word (the head corefio's matching assumes)."""
    words = _words(m.spans)
    if m.head is not None:
        within = [w for w in words if any(a <= w <= b for a, b in m.head)]
        if within:
            words = within
    found = tree.highest(words)
    return found if found is not None else words[-1]


def with_written_heads(doc):
    """``doc`` with the heads the writer writes for it from another format: a mention
    without a one-word head gets :func:`computed_head` (what reading the file back gives)."""
    n = len(doc.tokens.forms)
    sentences = [(s.first, s.last) for s in doc.sentences] or ([(0, n - 1)] if n else [])
    ids = _derived_ids(sentences, set(doc.tokens.empty or ()))
    tree = _Tree(doc, ids)
    markables = [m if _head_value(m) is not None else
                 m.copy(head=((h, h),)) for m, h in
                 ((m, computed_head(m, tree)) for m in doc.markables)]
    return doc.copy(markables=markables)


def _percent(value: str) -> str:
    return _PACK_UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode("utf-8")), value)


def _packed(other: str | None, items: list[tuple[str, str]]) -> str:
    """The ``other`` field holding attributes that are no declared field (names with
    ``_`` or capitals, which UD's validator refuses in ``global.Entity``, or attributes
    new to the file's declaration): udapi's ``name:value,name:value``, after whatever
    ``other`` held;
    ``% , - ( ) | =`` and blanks in values percent-encoded."""
    pieces = [other] if other else []
    pieces += [f"{name}:{_percent(value)}" for name, value in items]
    return ",".join(pieces)


def unpacked(other: str, fields: list[str]) -> tuple[str, dict[str, str]]:
    """What :func:`_packed` made of ``other``: ``(the rest, the attributes)``. Items
    ``name:value`` at the end whose names are no declared field (or ``head``, whose slot
    holds a position) are taken, as many as
    packing them again gives ``other`` back exactly (so the file is written back as it
    was; udapi reads ``other`` the same way)."""
    items = other.split(",") if other else []
    n = 0
    while n < len(items):
        name, colon, _ = items[-1 - n].partition(":")
        if not colon or not _FIELD_NAME.match(name) or (name in fields and name != "head"):
            break
        n += 1
    for k in range(n, 0, -1):
        rest = ",".join(items[: len(items) - k])
        taken = [(name, urllib.parse.unquote(value)) for name, _, value in
                 (item.partition(":") for item in items[len(items) - k :])]
        if len(dict(taken)) == k and _packed(rest, taken) == other:
            return rest, dict(taken)
    return other, {}


def _field_values(doc, fields: list[str], log: LossLog, tree: _Tree | None = None) -> list[list[str]]:
    """Each markable's field values (after ``eid``), up to its last given field. With a
    ``tree`` (written from another format), every mention gets a head: CorefUD's tools
    read the head slot as a number, and an empty one before other fields is invalid."""
    out: list[list[str]] = []
    lost_heads = computed = 0
    declared = set(fields[1:])
    place = {f: i for i, f in enumerate(fields[1:])}  # a field declared twice: its last place
    unnamed: list[str] = []
    for m in doc.markables:
        given: dict[str, str] = {}
        packed: list[tuple[str, str]] = []
        for name, value in m.attributes.items():
            if name == "head" and tree is not None and "other" in declared:
                # an attribute named head (MMAX2's head word, say) is no position: the
                # head slot gets the mention's head, the attribute goes into other
                packed.append((name, _text(value, log, doc)))
            elif name in declared:
                given[name] = _text(value, log, doc)
            elif "other" in declared and _FIELD_NAME.match(name):
                packed.append((name, _text(value, log, doc)))
            else:
                unnamed.append(name)
        if packed:
            given["other"] = _packed(given.get("other"), packed)
        if "head" not in given and "head" in declared:
            value = _head_value(m)
            if value is None and m.head is not None:
                lost_heads += 1
            if value is None and tree is not None:
                value = str(_words(m.spans).index(computed_head(m, tree)) + 1)
                computed += 1
            if value is not None:
                given["head"] = value
        if not given:
            out.append([])
            continue
        # the fields up to the last one given (every name in given is a declared field)
        values = [given.get(f, "") for f in fields[1 : max(map(place.__getitem__, given)) + 2]]
        for i, v in enumerate(values[:-1]):
            if "-" in v or _FIELD_UNSAFE.search(v):
                values[i] = _safe(v, log, doc, "-")
        if _FIELD_UNSAFE.search(values[-1]) or (tree is not None and "-" in values[-1]):
            # written from another format, the last field has no - either: UD's validator
            # counts the fields of an opener by its hyphens
            values[-1] = _safe(values[-1], log, doc, "-" if tree is not None else "")
        out.append(values)
    if lost_heads:
        log.lose("heads", "heads that are not one word of their mention", document=doc, count=lost_heads,
                 done="dropped" if tree is None else "each replaced by the highest word of the dependency tree "
                 "inside it, else its last word")
    if computed:
        log.report.add("conllu.head-computed", "info",
                       "mentions without a one-word head: the head written is the highest word of the "
                       "dependency tree inside the mention, else its last word", document=doc.label,
                       count=computed, merge=True)
    if unnamed:
        log.lose("markable-attributes", "markable attributes whose names cannot be a global.Entity field "
                 "(empty, 'eid', or with - ( ) | = , or blanks)", document=doc, count=len(unnamed),
                 example=unnamed[0], done="dropped")
    return out


def _safe(value: str, log: LossLog, doc, more: str) -> str:
    log.lose("value", "characters ( ) | = blanks (and -, but in the last field of a document read from CoNLL-U) "
             "in mention fields",
             document=doc, example=value[:40], done="replaced by '_'")
    out = _FIELD_UNSAFE.sub("_", value)
    return out.replace(more, "_") if more else out


def _text(value, log: LossLog, doc) -> str:
    if isinstance(value, str):
        return value
    log.lose("value", "types of attribute values", document=doc, example=repr(value), severity="info",
             done="written as text")
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _entity_values(doc, labels: list[str], values_of: list[list[str]], part_fields: str = "all",
                   skip: set[int] | frozenset[int] = frozenset()) -> dict[int, str]:
    """The canonical ``Entity`` value of every token that has one (udapi's ordering).

    Mention parts are taken in text order (earlier start first, longer first, then by
    entity id); a multi-word part appends its opener to its first word and puts its
    closer in front of whatever its last word already has; a one-word part goes after
    the word's opening brackets if it has any, otherwise in front of its closing ones.
    So closing brackets precede opening ones (``e1)(e2``, never the unparsable
    ``(e2e1)``), longer mentions open first and shorter ones close first.
    """
    parts = []
    for k, m in enumerate(doc.markables):
        if k in skip:
            continue
        total = len(m.spans)
        values = values_of[k]
        for i, (a, b) in enumerate(m.spans, 1):
            eid = labels[k] if total == 1 else f"{labels[k]}[{i}/{total}]"
            fields_here = values if (i == 1 or part_fields == "all") else []
            parts.append((a, -(b - a + 1), b, eid, k, "-".join([eid, *fields_here])))
    parts.sort()
    chunks: dict[int, list[str]] = {}
    for a, _, b, eid, _, opener in parts:
        here = chunks.setdefault(a, [])
        if a == b:
            single = f"({opener})"
            if not here or not here[-1].endswith(")"):
                here.append(single)
            elif not any(c.startswith("(") for c in here):
                here.insert(0, single)
            elif any(c.startswith("(") and not c.endswith(")") for c in here):
                here.append(single)
            else:
                here.insert(0, single)
        else:
            here.append(f"({opener}")
            chunks.setdefault(b, []).insert(0, f"{eid})")
    return {t: "".join(c) for t, c in chunks.items()}


def _same_span(doc, log: LossLog) -> set[int]:
    """Markables with the words of an earlier one: CorefUD has one mention per span (UD's
    validator refuses two, udapi keeps one), so they are left out (reported)."""
    first: dict[tuple, int] = {}
    later = set()
    for k, m in enumerate(doc.markables):
        if first.setdefault(m.spans, k) != k:
            later.add(k)
    log.lose("same-span", "mentions with the same words as another mention (CorefUD has one mention "
             "per span)", document=doc, count=len(later), done="the later ones dropped")
    return later


def _same_entity(a: str, b: str) -> bool:
    ca, cb = split_entity(a), split_entity(b)
    return ca is not None and cb is not None and sorted(ca) == sorted(cb)


def _coref_items(misc: str) -> dict[str, str]:
    return {k: v for k, _, v in (i.partition("=") for i in _misc_items(misc)) if k in COREF_KEYS}


def misc_column(doc, labels: list[str], fields: list[str], log: LossLog,
                hints: dict[int, str] | None = None, part_fields: str = "all",
                tree: _Tree | None = None) -> list[str]:
    """The MISC value of every token: its other keys plus Entity / SplitAnte / Bridge
    (with a ``tree``, every mention gets a head: see :func:`_field_values`)."""
    n = len(doc.tokens.forms)
    attrs = doc.tokens.attributes
    skip = _same_span(doc, log) if tree is not None else set()
    entity_values = _entity_values(doc, labels, _field_values(doc, fields, log, tree), part_fields, skip)
    index = doc.markable_index()
    chains = doc.chain_indices()
    chain_of = {}
    for chain in chains:
        for k in chain:
            chain_of[k] = labels[chain[0]]
    entity_label: dict[str, str] = {}
    for k, m in enumerate(doc.markables):
        if m.entity is not None:
            entity_label.setdefault(m.entity, labels[k])
    relations: dict[int, dict[str, list[str]]] = {}
    group_of: dict[int, list[int]] = {}
    for chain in chains:
        for k in chain:
            group_of[k] = chain
    renamed: list[str] = []  # bridging types other than "bridging", once per target
    anchors: list[str] = []  # bridging links whose mention anchor is not the one read back
    for link in doc.links:
        if link.type != SPLIT_ANTECEDENT and not is_bridging(link.type):
            if not is_identity(link.type):
                log.lose("link-types", f"{link.type!r} links (CorefUD has bridging and split antecedents)",
                         document=doc, done="dropped")
            continue
        src = index[link.source]
        key = "SplitAnte" if link.type == SPLIT_ANTECEDENT else "Bridge"
        if key == "Bridge" and link.type != BRIDGING:
            renamed.extend(link.type for _ in link.targets)
        if key == "Bridge" and link.target_kind == "markable":
            # Bridge names the anchor's entity: read back, a link to the entity stands
            # for its closest mention before the anaphor (anchor_mention)
            anchors.extend(link.id for t in link.targets
                           if anchor_mention(doc.markables, group_of[index[t]], src) != index[t])
        relation = link.attributes.get("relation")
        if set(link.attributes) - {"relation"}:
            log.lose("link-attributes", "attributes of bridging/split-antecedent links other than relation",
                     document=doc, done="dropped")
        for target in link.targets:
            if link.target_kind == "entity":
                ante = entity_label.get(target, target if _SAFE_EID.match(target) else None)
                if ante is None:
                    log.lose("link-types", f"{link.type} links to entities without a usable id", document=doc,
                             done="dropped")
                    continue
            else:
                ante = chain_of[index[target]]
            item = f"{ante}<{labels[src]}"
            if key == "Bridge" and relation:
                value = relation if isinstance(relation, str) else str(relation)
                if _FIELD_UNSAFE.search(value) or "," in value:
                    value = _safe(value, log, doc, ",")
                if tree is not None and not _BRIDGE_RELATION.match(value):
                    # written from another format: UD's validator takes lower-case letters only
                    log.lose("bridge-relation", "bridging relations other than lower-case letters (UD's "
                             "validator refuses them)", document=doc, example=value,
                             done="dropped (the link is written without it)")
                    value = ""
                if value:
                    item += f":{value}"
            relations.setdefault(doc.markables[src].first, {}).setdefault(key, []).append(item)
    if renamed:
        log.lose("link-type-name", "the names of bridging link types other than 'bridging' (CorefUD has one "
                 "bridging relation, Bridge; read back, their type is 'bridging')", document=doc,
                 count=len(renamed), example=renamed[0], done="written as Bridge")
    if anchors:
        log.lose("bridging-anchor", "which mention of its entity a bridging anchor is (Bridge names the entity, "
                 "read back as its closest mention before the anaphor, which these anchors are not)",
                 document=doc, count=len(anchors), example=anchors[0], done="the entity written")
    misc_col = attrs.get("misc")
    out = []
    for i in range(n):
        base = misc_col[i] if misc_col is not None else None
        entity = entity_values.get(i)
        rel = relations.get(i) if relations else None
        items = None  # the other MISC items, split when needed
        if entity is None and not rel:  # most tokens
            misc = "_" if base is None else base
        else:
            coref = [] if entity is None else [f"Entity={entity}"]
            if rel:
                for key in ("SplitAnte", "Bridge"):
                    if key in rel:
                        coref.append(f"{key}={','.join(rel[key])}")
            items = [] if base is None else _misc_items(base)
            if not items and len(coref) == 1:
                misc = coref[0]
            else:
                misc = _join_misc(_insert_sorted(items, coref))
        raw = hints.get(i) if hints else None
        if raw is not None:
            if items is None:
                items = [] if base is None else _misc_items(base)
            want, have = _coref_items(misc), _coref_items(raw)
            same_rest = [x for x in _misc_items(raw) if x.split("=", 1)[0] not in COREF_KEYS] == items
            if same_rest and want.keys() == have.keys() and all(
                    _same_entity(have[k], v) if k == "Entity" else have[k] == v for k, v in want.items()):
                misc = raw
        out.append(misc)
    return out


def _usable_layout(doc, canonical: bool) -> ConlluLayout | None:
    lay = doc.layout.get("conllu")
    if canonical or not isinstance(lay, ConlluLayout):
        return None
    return lay


@dataclass
class _FileState:
    """What the documents written so far fix for the next ones of the same file (one
    structure for the whole file, never copied per document)."""

    #: the eids they use (CorefUD's ids are unique in a file) and the next free number
    eids: _EntityIds = field(default_factory=_EntityIds)
    #: the first ``global.Entity`` declaration (the validator wants one for the file)
    fields: list[str] | None = None
    #: the sent_ids written (UD wants them unique in a file)
    sent_ids: set[str] = field(default_factory=set)


def _write_document(doc, report: Report, canonical: bool, last: bool, state: _FileState) -> list[str]:
    """The lines of one document (without line ends).

    When mentions of one entity cross or interleave, the lines are read back: if the
    mentions do not come back as written, mentions of such entities are left out, the
    latest first, until they do (and the loss is reported): the output is always
    readable and means what it says.
    """
    log = LossLog(report, "CorefUD CoNLL-U")
    doc = _within_sentences(doc.chain_markables_only(), log)
    fresh = _usable_layout(doc, canonical) is None  # not written back as its CoNLL-U source had it
    before = state.eids if fresh else _EntityIds()
    declared = state.fields if fresh else None
    labels = _labels(doc, log, before)
    lines = _render_document(doc, log, canonical, last, before, declared, state.sent_ids, labels)
    if state.fields is None and doc.markables:
        state.fields = _fields_for(doc, _usable_layout(doc, canonical), declared)
    if not _same_entity_overlap(doc, labels) or _reads_back(doc, lines):
        state.eids.commit(labels)
        _note_sent_ids(lines, state)
        return lines
    suspects = _overlapping(doc)
    original = doc
    dropped = 0
    while suspects:
        gone = {doc.markables[k].ref for k in suspects[-1:]}
        suspects = suspects[:-1]
        dropped += 1
        kept = [m for m in doc.markables if m.ref not in gone]
        links = [link for link in doc.links
                 if link.source not in gone and not (link.target_kind == "markable" and gone & set(link.targets))]
        doc = doc.copy(markables=kept, links=links)
        lines = _render_document(doc, LossLog(Report(), ""), canonical, last, before, declared, state.sent_ids)
        if _reads_back(doc, lines):
            break
    # crossing mentions of one entity are a capability loss (reported before writing);
    # interleaved parts of discontinuous mentions whose extents nest are found only here
    code = "same-entity-overlap" if _extents_cross(original) else "interleaved-parts"
    log.lose(code, "mentions of one entity that cross or whose parts interleave (CorefUD closing "
             "brackets cannot tell them apart)", document=original, count=dropped, done="dropped")
    state.eids.commit(labels)
    _note_sent_ids(lines, state)
    return lines


def _within_sentences(doc, log: LossLog):
    """``doc`` without the mentions whose words lie in more than one sentence.

    CorefUD keeps a mention inside its sentence: UD's validator refuses one that is still
    open at the end of a sentence, udapi refuses it (or, leniently, drops it). The loss
    is reported before writing (``loss.cross-sentence``). A chain keeps its other
    mentions (identity links through a left-out mention give way to links among those
    left); a bridging or split-antecedent link from or to a left-out mention goes from or
    to another mention of its chain (CorefUD's links join entities), or goes when none is
    left, as does one to an entity whose every mention is left out (``loss.link-types``).
    """
    if len(doc.sentences) < 2:
        return doc
    sentence = doc.sentence_of_token()
    gone = {m.ref for m in doc.markables if sentence[m.first] != sentence[m.last]}
    if not gone:
        return doc
    chains = doc.chain_indices()
    chain_of: dict[str, int] = {}
    kept_of: dict[int, list[str]] = {}
    for c, chain in enumerate(chains):
        for k in chain:
            ref = doc.markables[k].ref
            chain_of[ref] = c
            if ref not in gone:
                kept_of.setdefault(c, []).append(ref)
    entities_left = {m.entity for m in doc.markables if m.entity is not None and m.ref not in gone}
    entities_gone = {m.entity for m in doc.markables if m.entity is not None and m.ref in gone} - entities_left
    links = []
    lost = 0
    for link in doc.links:
        if is_identity(link.type):
            if link.source not in gone and not (link.target_kind == "markable" and gone & set(link.targets)):
                links.append(link)
            continue
        if link.source in gone:
            # CorefUD's Bridge and SplitAnte join entities: another mention of the
            # anaphor's entity carries the link, when one is left
            source = next(iter(kept_of.get(chain_of[link.source], ())), None)
            if source is None:
                lost += len(link.targets)
                continue
            link = link.copy(source=source)
        targets = []
        for t in link.targets:
            if link.target_kind == "markable" and t in gone:
                t = next(iter(kept_of.get(chain_of[t], ())), None)
            elif link.target_kind == "entity" and t in entities_gone:
                t = None
            if t is None:
                lost += 1
            else:
                targets.append(t)
        if targets:
            links.append(link if tuple(targets) == link.targets else link.copy(targets=tuple(targets)))
    taken = {link.id for link in doc.links}
    for c, kept in kept_of.items():
        if len(kept) > 1 and any(doc.markables[k].ref in gone for k in chains[c]):
            for ref in kept[1:]:  # the chain's mentions left, together again
                number = len(taken)
                while f"link_{number}" in taken:
                    number += 1
                taken.add(f"link_{number}")
                links.append(model.Link.fast(f"link_{number}", ref, (kept[0],)))
    log.lose("link-types", "bridging and split-antecedent links from or to mentions left out (they cross a "
             "sentence boundary)", document=doc, count=lost, done="dropped")
    return doc.copy(markables=[m for m in doc.markables if m.ref not in gone], links=links)


def _note_sent_ids(lines: list[str], state: _FileState) -> None:
    for line in lines:
        m = _SENT_ID.match(line)
        if m:
            state.sent_ids.add(m.group(1))


def _extents_cross(doc) -> bool:
    """Do the extents of two mentions of one chain overlap without one containing the other?"""
    for chain in doc.chain_indices():
        extents = sorted(((doc.markables[k].first, doc.markables[k].last) for k in chain),
                         key=lambda x: (x[0], -x[1]))
        for i, (_, b1) in enumerate(extents):
            for a2, b2 in extents[i + 1:]:
                if a2 > b1:
                    break
                if b2 > b1:
                    return True
    return False


def _overlapping(doc) -> list[int]:
    """Indices of the markables of entities whose mentions overlap, in markable order."""
    chain_of: dict[int, int] = {}
    for c, chain in enumerate(doc.chain_indices()):
        for k in chain:
            chain_of[k] = c
    extents: dict[int, list[tuple[int, int, int]]] = {}
    for k, m in enumerate(doc.markables):
        extents.setdefault(chain_of.get(k, -1 - k), []).append((m.first, m.last, k))
    out: set[int] = set()
    for items in extents.values():
        for a1, b1, k1 in items:
            for a2, b2, k2 in items:
                if k1 < k2 and a1 <= b2 and a2 <= b1:
                    out.update((k1, k2))
    return sorted(out)


def _reads_back(doc, lines: list[str]) -> bool:
    """Do the written lines read back to the same mentions (with their heads and
    attributes) and chains?"""
    try:
        back = loads("\n".join(lines) + "\n").documents[0]
    except FormatError:
        return False

    def shapes(d) -> list:
        return sorted((m.spans, m.head or (), sorted(map(str, m.attributes.items()))) for m in d.markables)

    return shapes(doc) == shapes(back) and \
        sorted(sorted(m.spans for m in c) for c in back.chains()) == \
        sorted(sorted(m.spans for m in c) for c in doc.chains())


def _derived_ids(sentences: list[tuple[int, int]], empty: set[int]) -> list[str]:
    """Token ids in CoNLL-U's numbering: words 1, 2, ... per sentence, and an empty
    token after word ``w`` is ``w.1``, ``w.2``, ... (``0.1`` before the first word)."""
    ids: list[str] = []
    for first, last in sentences:
        word = extra = 0
        for i in range(first, last + 1):
            if i in empty:
                extra += 1
                ids.append(f"{word}.{extra}")
            else:
                word += 1
                extra = 0
                ids.append(str(word))
    return ids


def _render_document(doc, log: LossLog, canonical: bool, last: bool,
                     earlier: _EntityIds | None = None, declared: list[str] | None = None,
                     sent_ids: set[str] | None = None, labels: list[str] | None = None) -> list[str]:
    """The lines of a document; ``earlier`` and ``sent_ids``: the entity ids and
    sent_ids of the file so far (read, not changed); ``labels``: the eids, when
    already made (:func:`_labels`)."""
    lay = _usable_layout(doc, canonical)
    n = len(doc.tokens.forms)
    fields = _fields_for(doc, lay, declared)
    if labels is None:
        labels = _labels(doc, log, earlier)
    source = doc.layout.get("conllu")
    part_fields = source.part_fields if isinstance(source, ConlluLayout) else "all"
    out: list[str] = []
    ids = lay.ids if lay is not None and lay.ids is not None and len(lay.ids) == n else None
    sentences = doc.sentences or ([model.Sentence(first=0, last=n - 1, id=None, comments=[], interleaved=[],
                                                        attributes={})] if n else [])
    if ids is None and doc.tokens.empty:
        ids = _derived_ids([(s.first, s.last) for s in sentences], set(doc.tokens.empty))
    # written from another format (or canonically): every mention gets a head
    tree = None
    if lay is None:
        tree = _Tree(doc, ids if ids is not None else
                     [str(i - s.first + 1) for s in sentences for i in range(s.first, s.last + 1)])
    misc = misc_column(doc, labels, fields, log, lay.misc if lay is not None else None, part_fields, tree)
    columns = _token_columns(doc, sentences, ids, log)
    forms = doc.tokens.forms
    if _LINE_BREAKING.search("\x00".join(forms)):
        log.lose("form", "TABs and line breaks in token forms", document=doc, done="replaced by '_'")
        forms = [_LINE_BREAKING.sub("_", f) for f in forms]
    blank = [k for k, f in enumerate(forms) if not f or f != f.strip()]
    if blank:  # a FORM has no white space at either end, and is never empty (PreCo has " " words)
        log.lose("form", "token forms that are empty or start or end with white space", document=doc,
                 count=len(blank), example=repr(forms[blank[0]]), done="stripped, an empty one written '_'")
        forms = [f.strip() or "_" for f in forms]
        doc = doc.copy(tokens=doc.tokens.copy(forms=forms))  # the sentences' text comments spell them so
    taken = _Taken(sent_ids)
    written_ids = ids if ids is not None else [str(i - s.first + 1) for s in sentences
                                               for i in range(s.first, s.last + 1)]
    # every token line at once (the columns joined by zip, not token by token)
    rows = list(map("\t".join, zip(written_ids, forms, *columns, misc)))
    for s_index, s in enumerate(sentences):
        if lay is None:
            declare = True
        elif lay.fields is None:
            declare = fields != DEFAULT_FIELDS
        else:
            declare = lay.declared or fields != lay.fields
        out.extend(_comments(doc, s, s_index, fields, lay is not None, log, taken, declare))
        inter: dict[int, list[str]] = {}
        for off, raw in s.interleaved:
            first_field = raw.split(None, 1)[0] if raw.strip() else ""
            line = _interleaved_line(raw, log, doc, range_id_in(s, off, first_field, written_ids))
            if line is not None:
                inter.setdefault(off, []).append(line)
        if not inter:
            out.extend(rows[s.first:s.last + 1])
        for i in range(s.first, s.last + 1) if inter else ():
            off = i - s.first
            if off in inter:
                out.extend(inter[off])
            out.append(rows[i])
        if s.last - s.first + 1 in inter:
            out.extend(inter[s.last - s.first + 1])
        if s_index < len(sentences) - 1:
            out.append("")
    if sentences:
        if last and lay is not None and lay.tail is not None:
            out.extend(lay.tail)
        else:
            out.append("")  # the blank line that ends a sentence
    return out


def _token_columns(doc, sentences: list, ids: list[str] | None, log: LossLog) -> list[list[str]]:
    """The LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL and DEPS columns.

    Each comes from the token attribute of its name, else (for a document read from a
    SemEval-2010 file) from the predicted attribute of that kind (:data:`PREDICTED`).
    A document read from CoNLL-U keeps its values as they are; from another format, a
    value is written only when it is what the column holds in CoNLL-U (UD's validator,
    level 2): a UPOS one of the 17 universal tags; FEATS ``Name=Value`` pairs spelled as
    UD spells them, sorted, each name once; HEAD 0 or the number of a word of the
    sentence (empty nodes have none); DEPREL a UD relation (``nsubj``, ``obl:tmod``),
    only beside a HEAD; DEPS ``head:relation`` pairs; LEMMA and XPOS not empty, without
    a blank at either end (XPOS without any). Other values are written ``_`` (reported).
    """
    n = len(doc.tokens.forms)
    attrs = doc.tokens.attributes
    from_conllu = isinstance(doc.layout.get("conllu"), ConlluLayout)
    given = {name for name, column in attrs.items() if _given(column)}
    chosen: dict[str, str] = {}
    for name in ("lemma", "upos", "xpos", "feats", "deps"):
        predicted = f"p{name}"
        source = name if name in given else predicted if predicted in given and predicted in PREDICTED else None
        if source is not None:
            chosen[name] = source
    # HEAD and DEPREL of one tree: the gold one, else the predicted one
    tree = "" if "head" in given else "p" if "phead" in given else None
    if tree is not None:
        chosen["head"] = f"{tree}head"
        if f"{tree}deprel" in given:
            chosen["deprel"] = f"{tree}deprel"
    elif "deprel" in given:
        chosen["deprel"] = "deprel"  # a relation without a head: not written (see _keep_valid)
    if tree == "p" and "deprel" in given:
        log.lose("value", "DEPREL values of a tree without its HEAD column", document=doc,
                 count=sum(v not in (None, "", "_") for v in attrs["deprel"]), example="deprel", done="dropped")
    unused = sorted(p for p in PREDICTED if _given(attrs.get(p)) and p not in chosen.values())
    if unused:
        log.lose("token-attributes", "SemEval-2010's predicted columns beside gold ones (CoNLL-U has one column "
                 "of each kind)", document=doc, count=len(unused), example=unused[0], done="dropped")
    renamed = sorted(f"{a} as {name.upper()}" for name, a in chosen.items() if a != name)
    if renamed:
        log.lose("token-attributes", "SemEval-2010's predicted columns as such (CoNLL-U does not tell predicted "
                 "from gold)", document=doc, count=len(renamed), example=renamed[0], severity="info",
                 done="written in the CoNLL-U column of the same kind, where the document has no gold one")
    columns: dict[str, list[str]] = {}
    for name in ("lemma", "upos", "xpos", "feats", "head", "deprel", "deps"):
        source = chosen.get(name)
        if source is None:
            columns[name] = ["_"] * n
            continue
        values = ["_" if v is None else v for v in attrs[source]]
        if _LINE_BREAKING.search("\x00".join(values)):
            log.lose("value", "TABs and line breaks in token attribute values", document=doc, example=source,
                     done="replaced by '_'")
            values = [_LINE_BREAKING.sub("_", v) for v in values]
        columns[name] = values
    if not from_conllu:
        _keep_valid(doc, columns, sentences, ids, log)
    return [columns[name] for name in ("lemma", "upos", "xpos", "feats", "head", "deprel", "deps")]


def _given(column: list | None) -> bool:
    """Does an attribute column hold a value for some token?"""
    return column is not None and any(v is not None and v not in ("", "_") for v in column)


def _keep_valid(doc, columns: dict[str, list[str]], sentences: list, ids: list[str] | None, log: LossLog) -> None:
    """Values that are not what their CoNLL-U column holds become ``_`` (reported, by
    column); see :func:`_token_columns`."""
    empty = set(doc.tokens.empty or ())

    def valid(name: str, value: str, t: int) -> bool:
        if value == "_":
            return True
        if not value:
            return False
        if name == "lemma":
            return value == value.strip() and "  " not in value
        if name == "xpos":
            return not _WHITESPACE.search(value)
        if name == "upos":
            return value in UPOS
        if name == "feats":
            found = [_FEATURE.match(f) for f in value.split("|")]
            items = [m for m in found if m is not None]
            names = [m.group(1) for m in items]
            return len(items) == len(found) and names == sorted(names, key=str.lower) and \
                len(set(names)) == len(names) and all(
                    values == sorted(set(values), key=str.lower) for values in (m.group(2).split(",") for m in items))
        if name == "head":
            return t not in empty and t in trees
        if name == "deprel":
            m = _DEPREL.match(value)
            return t not in empty and m is not None and m.group(1) in UDEPRELS and columns["head"][t] != "_"
        if name == "deps":
            return all(_DEPS_ITEM.match(item) for item in value.split("|"))
        return True

    trees = _trees(columns["head"], sentences, ids, empty)
    for name in ("lemma", "upos", "xpos", "feats", "head", "deprel", "deps"):  # deprel after head
        values = columns[name]
        if values.count("_") == len(values):  # placeholders only (often: C speed)
            continue
        bad = [t for t, v in enumerate(values) if v != "_" and not valid(name, v, t)]
        if bad:
            log.lose("value", f"token attribute values that are not what CoNLL-U's {name.upper()} column holds",
                     document=doc, count=len(bad), example=values[bad[0]][:40], done="replaced by '_'")
            for t in bad:
                values[t] = "_"


def _trees(heads: list[str], sentences: list, ids: list[str] | None, empty: set[int]) -> set[int]:
    """The words whose HEAD can be written: those of the sentences where every word has
    one (0 or the number of another word of the sentence) and following them from any
    word leads to 0 (a tree: udapi refuses a cycle)."""
    out: set[int] = set()
    for s in sentences:
        words = [i for i in range(s.first, s.last + 1) if i not in empty]
        where = {(ids[i] if ids is not None else str(i - s.first + 1)): i for i in words}
        parent: dict[int, int] = {}
        for i in words:
            value = heads[i]
            if not _HEAD.match(value) or (value != "0" and (value not in where or where[value] == i)):
                break
            parent[i] = -1 if value == "0" else where[value]
        else:
            reaches: set[int] = set()  # words known to lead to 0
            for i in words:
                path: list[int] = []
                while i != -1 and i not in reaches and i not in path:
                    path.append(i)
                    i = parent[i]
                if i != -1 and i not in reaches:
                    break  # a cycle
                reaches.update(path)
            else:
                out.update(words)
    return out


def _same_entity_overlap(doc, labels: list[str]) -> bool:
    """Could the closing brackets of two mentions of one entity be paired wrongly? Only
    when their extents cross (overlap without one containing the other) or one of two
    overlapping mentions is discontinuous; nested contiguous mentions read back right,
    as openers are written longest first and a closer closes the latest opener."""
    by_label: dict[str, list[tuple[int, int, bool]]] = {}
    for k, m in enumerate(doc.markables):
        by_label.setdefault(labels[k], []).append((m.spans[0][0], m.spans[-1][1], len(m.spans) > 1))
    for spans in by_label.values():
        if len(spans) < 2:
            continue
        spans.sort(key=lambda x: (x[0], -x[1]))
        open_: list[tuple[int, int, bool]] = []
        for a, b, gappy in spans:
            open_ = [o for o in open_ if o[1] >= a]
            for _, b1, gappy1 in open_:
                if b > b1 or gappy or gappy1:
                    return True
            open_.append((a, b, gappy))
    return False


def _interleaved_line(raw: str, log: LossLog, doc, range_id: str | None) -> str | None:
    """A multi-word-token line as CoNLL-U has it (10 columns; a line of a UA file may
    have more, or be aligned by spaces), its id ``range_id`` (the sentence's numbering:
    a UA file numbers the words of the document), or None if it is not one."""
    fields = raw.split("\t") if "\t" in raw else raw.split()
    if len(fields) >= 10 and range_id is not None and not _LINE_BREAKING.search(raw.replace("\t", " ")):
        if any(f not in ("_", "") for f in fields[10:]):
            log.lose("interleaved-column", "extra columns of multi-word-token lines", document=doc, done="dropped")
        if fields[0] == range_id and len(fields) == 10 and "\t" in raw:
            return raw
        return "\t".join([range_id, *fields[1:10]])
    log.lose("interleaved-line", "lines between words that are not CoNLL-U multi-word tokens",
             document=doc, example=raw[:40], done="dropped")
    return None


def _comments(doc, s, index: int, fields: list[str], from_conllu: bool, log: LossLog, taken: _Taken,
              declare: bool = True) -> list[str]:
    """A sentence's comment lines.

    A sentence keeps its own comments; one from another format also gets ``# sent_id``
    and ``# text`` when its comments have none. The first sentence always has ``# newdoc id``
    (naming the document) and, when there are mentions, ``# global.Entity``.
    """
    if s.comments or from_conllu:
        out = [_comment_line(c) for c in s.comments]
        empty = doc.tokens.empty
        if not from_conllu and empty and any(s.first <= t <= s.last for t in empty):
            out = _text_without_empty_tokens(doc, s, out)
        if not from_conllu:  # another format's comments (WebAnno's #Text=): UD wants sent_id and text too
            made = _sentence_comments(doc, s, index, log, taken)
            have = [any(re.match(rf"^#\s*{key}\s*=", c) for c in out) for key in ("sent_id", "text")]
            out = [line for line, there in zip(made, have) if not there] + out
    else:
        out = _sentence_comments(doc, s, index, log, taken)
    if index:
        return out
    line = f"# newdoc id = {_one_line(doc.name)}"
    newdoc = next((i for i, c in enumerate(out) if re.match(r"^#\s*newdoc\b", c)), None)
    if newdoc is None and from_conllu:
        newdoc = -1  # the source had none: the name came from the file name
    elif newdoc is None:
        out.insert(0, line)
        newdoc = 0
    elif newdoc >= 0:
        m = re.match(r"^#\s*newdoc\s+id\s*=\s*(.*)$", out[newdoc])
        if m is None or m.group(1).strip() != doc.name:
            out[newdoc] = line
    declared = next((i for i, c in enumerate(out) if re.match(r"^#\s*global\.Entity\b", c)), None)
    wanted = f"# global.Entity = {'-'.join(fields)}"
    if declared is not None:
        m = re.match(r"^#\s*global\.Entity\s*=\s*(.*)$", out[declared])
        if m is None or m.group(1).strip().split("-") != fields:
            out[declared] = wanted
    elif doc.markables and declare:
        out.insert(newdoc + 1, wanted)
    # the part, on the line after newdoc (a name alone would merge the parts of a document)
    part_at = next((i for i, c in enumerate(out) if _PART_COMMENT.match(c)), None)
    if doc.part is None:
        if part_at is not None:
            del out[part_at]
    elif part_at is None:
        out.insert(newdoc + 1, f"# part = {_one_line(doc.part)}")
    elif _PART_COMMENT.match(out[part_at]).group(1).strip() != doc.part:  # type: ignore[union-attr]
        out[part_at] = f"# part = {_one_line(doc.part)}"
    return out


def _text_without_empty_tokens(doc, s, comments: list[str]) -> list[str]:
    """A ``# text`` comment (from another format) that spells the sentence's empty tokens
    too, as the words alone (CoNLL-U's text has no empty nodes)."""
    empty = set(doc.tokens.empty or ())
    forms = doc.tokens.forms
    every = " ".join(forms[s.first:s.last + 1])
    words = " ".join(forms[i] for i in range(s.first, s.last + 1) if i not in empty)
    out = []
    for c in comments:
        m = re.match(r"^#\s*text\s*=\s*(.*)$", c)
        out.append(f"# text = {words}" if m and m.group(1).strip() == every else c)
    return out


def _comment_line(text: str) -> str:
    """A comment as one line starting with ``#`` (line ends inside become spaces)."""
    text = text.replace("\r", " ").replace("\n", " ")
    return text if text.startswith("#") else "# " + text


def _one_line(text: str) -> str:
    return _LINE_BREAKING.sub(" ", text)


def _sentence_comments(doc, s, index: int, log: LossLog, taken: _Taken) -> list[str]:
    """``# sent_id`` and ``# text`` of a sentence from another format. The id is the
    sentence's own, or the document's name (and part, unless it is 0) with the
    sentence's number; blanks and ``/`` (CoNLL-U has no blank in an id, and udapi reads
    ``/`` as the start of a zone name) become ``_`` — the name itself is kept whole in
    ``# newdoc id``. An id an earlier sentence of the file has (``taken``) gets the
    document's name in front, and a number after if need be (UD wants them unique). A
    sentence's own id changed so is reported."""
    name = _SENT_ID_UNSAFE.sub("_", doc.name) or "_"
    if s.id is not None:
        sid = _SENT_ID_UNSAFE.sub("_", s.id) or "_"
        if sid in taken:
            sid = f"{name}-{sid}"
    else:
        part = "" if doc.part is None or numeric_part(doc.part) == "0" else f"-p{doc.part}"
        sid = f"{name}{_SENT_ID_UNSAFE.sub('_', part)}-{index + 1}"
    base, k = sid, 1
    while sid in taken:
        k += 1
        sid = f"{base}-{k}"
    taken.add(sid)
    if s.id is not None and sid != s.id:
        log.lose("sent-id", "sentence ids with blanks or '/', or repeated in the file", done="written changed",
                 document=doc, example=s.id[:40], severity="info")
    # the words between single spaces (the whitespace of another format is not kept:
    # the validator wants a SpaceAfter=No wherever the text has no space after a word)
    text = " ".join(doc.tokens.forms[s.first : s.last + 1])
    return [f"# sent_id = {sid}", f"# text = {_one_line(text)}"]


def write(documents: Iterable, *, corpus: Any, report: Report, canonical: bool = False,
          drop_empty_nodes: bool = False) -> Iterator[str]:
    """CoNLL-U text, one piece per document (``drop_empty_nodes``: without empty nodes
    and zero mentions, :func:`dropping_empty_nodes`)."""
    if drop_empty_nodes:
        documents = dropping_empty_nodes(documents, report)
    pending = None
    state = _FileState()
    for doc in documents:
        if pending is not None:
            yield _piece(pending, report, canonical, False, state)
        pending = doc
    if pending is not None:
        yield _piece(pending, report, canonical, True, state)
        return
    head = corpus.layout.get("conllu") if not canonical else None
    if isinstance(head, ConlluLayout) and head.tail:
        yield _join(head.tail, head.newline, head.final_newline)


def _piece(doc, report: Report, canonical: bool, last: bool, state: _FileState) -> str:
    lines = _write_document(doc, report, canonical, last, state)
    lay = _usable_layout(doc, canonical)
    newline = lay.newline if lay is not None else "\n"
    return _join(lines, newline, not last or lay is None or lay.final_newline)


def _join(lines: list[str], newline: str, final: bool) -> str:
    text = newline.join(lines)
    return text + newline if final and lines else text


def dumps(corpus: Any, *, report: Report | None = None, canonical: bool = False) -> str:
    """CoNLL-U text of a corpus (a shortcut for tests that reports no capability losses)."""
    report = report if report is not None else Report()
    return "".join(write(corpus.documents, corpus=corpus, report=report, canonical=canonical))


def sniff(head: bytes) -> bool:
    return bool(re.search(rb"(^|\n)(\xef\xbb\xbf)?#\s*(newdoc|global\.Entity|sent_id)", head)) or b"Entity=" in head


register(
    FormatSpec(
        name="conllu",
        description="CorefUD CoNLL-U (Entity=, SplitAnte=, Bridge= in MISC)",
        extensions=(".conllu",),
        capabilities=Capabilities(
            discontinuous=True, nested=True, crossing=True, same_entity_overlap=False, cross_sentence=False,
            entity_ids=True, link_structure=False, link_types=True, multi_target_links=False,
            markable_attributes=True, entity_attributes=False, link_attributes=True, heads=True,
            min=False, optional=False, layers=False, sets=False, token_attributes=WRITTEN_ATTRIBUTES,
            token_ids=False, empty_tokens=True, whitespace=False, offsets=False, text=False, regions=False, sentences=True,
            sentence_attributes=True, metadata=False, schemes=False, multiple_documents=True,
        ),
        read=read,
        stream=stream,
        write=write,
        options=(
            Option("canonical", bool, False, "ignore the source layout: canonical bracket order and MISC "
                   "placement", applies_to="write"),
            Option("drop_empty_nodes", bool, False, "leave out empty nodes and the zero mentions made of them "
                   "(for tools and formats without empty nodes)", applies_to="write"),
            Option("drop_empty_nodes", bool, False, "leave out empty nodes and the zero mentions made of them, "
                   "whatever the output format (a conversion to be scored against this file)",
                   applies_to="read"),
        ),
        sniff=sniff,
        aliases=("corefud",),
        scan_keys=scan_keys,
        mention_views=mention_views,
    )
)
