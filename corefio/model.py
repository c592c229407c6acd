"""The pivot model: the RAF model of seed 003 (Figure 1), in pydantic v2.

A :class:`Corpus` holds :class:`Document` s. A document has

* **primary data** — :class:`Tokens` (word forms with stable ids ``word_1``…, optional
  character offsets, the whitespace that follows each token, and per-token attribute
  columns such as CoNLL's POS or speaker) and :class:`Sentence` boundaries;
* **markables** — :class:`Markable`: an id, a target made of one or more token spans
  (discontinuous mentions exist), an optional head (MUC ``MIN``), the id of the entity /
  set it belongs to (CoNLL cluster, MMAX2 set, CorefUD ``eid``) and typed attributes;
* **entities** — :class:`Entity`: sets declared with their own attributes (an entity id
  that markables use needs no declaration: CoNLL labels are not declared);
* **links** — :class:`Link`: typed relations from a markable to a markable or an entity
  (identity/coreference, bridging, split antecedent, ...), kept exactly as the source
  configured them.

Spans are ``(first, last)`` pairs of 0-based token indices, both inclusive. Chains
(coreference classes) are *derived*: the transitive closure of identity links and shared
entity ids (:meth:`Document.chains`). Non-identity links never merge chains; a markable
in no relation is a singleton chain.

Invariants (unique ids, spans inside the primary data, existing link ends, non-empty
targets, consistent token columns, contiguous sentences) are checked once per document:
by the normal pydantic constructor, or by :meth:`Document.build` which readers use to
skip per-element validation on large inputs. :meth:`Document.problems` lists every
violation without raising.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, model_validator

from .chains import (  # noqa: F401  (re-exported: the pydantic-free part of the model)
    BRIDGING,
    COREFERENCE,
    IDENTITY_LINK_TYPES,
    POS_COLUMNS,
    SPLIT_ANTECEDENT,
    MentionChains,
    document_key,
    document_label,
    is_identity,
)
from .errors import ModelError

#: one token range: (first, last), 0-based, inclusive
Span = tuple[int, int]
#: attribute values are typed: the RAF writer records the type
AttrValue = Union[StrictBool, StrictInt, StrictFloat, str]


_new = object.__new__
_setattr = object.__setattr__


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False, defer_build=True)

    @classmethod
    def _make(cls, **values: Any):
        """Build without validation (readers' hot path; the document check follows).

        Every field must be given. This is what ``model_construct`` does, without its
        per-call bookkeeping, which costs several microseconds per object. All objects
        of a class share one "fields set" (every field is set, so it never changes):
        a set per object would be 10⁵ more objects for the garbage collector to scan.
        """
        obj = _new(cls)
        _setattr(obj, "__dict__", values)
        _setattr(obj, "__pydantic_fields_set__", cls._all_fields())
        _setattr(obj, "__pydantic_extra__", None)
        _setattr(obj, "__pydantic_private__", None)
        return obj

    @classmethod
    def _make_many(cls, values: Iterable[dict[str, Any]]) -> list:
        """:meth:`_make` for many objects at once (readers build 10⁵ markables)."""
        fields = cls._all_fields()
        out = []
        append = out.append
        for v in values:
            obj = _new(cls)
            _setattr(obj, "__dict__", v)
            _setattr(obj, "__pydantic_fields_set__", fields)
            _setattr(obj, "__pydantic_extra__", None)
            _setattr(obj, "__pydantic_private__", None)
            append(obj)
        return out

    @classmethod
    def _all_fields(cls) -> set[str]:
        shared = cls.__dict__.get("_shared_fields_set")
        if shared is None:
            shared = set(cls.model_fields)
            type.__setattr__(cls, "_shared_fields_set", shared)
        return shared


class Tokens(_Model):
    """Primary data: the words of a document, column-wise (fast for 10⁵–10⁶ tokens)."""

    forms: list[str] = Field(default_factory=list)
    #: explicit token ids; ``None`` means the default ``word_1 … word_n``
    ids: list[str] | None = None
    #: the text that follows each token (``" "``, ``""``, ``"\\n"``); ``None``: unknown
    whitespace: list[str] | None = None
    #: character offsets ``(start, end)`` (end exclusive) into the source text
    offsets: list[tuple[int, int]] | None = None
    #: per-token attribute columns (POS, lemma, speaker, CoNLL columns, ...)
    attributes: dict[str, list[str | None]] = Field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.forms)

    def token_id(self, index: int) -> str:
        """The stable id of token ``index`` (``word_{index+1}`` unless given)."""
        if self.ids is not None:
            return self.ids[index]
        return f"word_{index + 1}"

    def all_ids(self) -> list[str]:
        if self.ids is not None:
            return list(self.ids)
        return [f"word_{i + 1}" for i in range(len(self.forms))]

    def index_by_id(self) -> dict[str, int]:
        return {tid: i for i, tid in enumerate(self.all_ids())}


class Sentence(_Model):
    """A sentence: tokens ``first..last`` (inclusive) and what the source said about it."""

    first: int
    last: int
    id: str | None = None
    #: comment lines kept verbatim (CoNLL-U ``# sent_id = ...`` etc.)
    comments: list[str] = Field(default_factory=list)
    #: lines that sit between words in the source and are not words (CoNLL-U
    #: multi-word-token ranges): ``(offset, raw)`` = insert before the offset-th word
    interleaved: list[tuple[int, str]] = Field(default_factory=list)
    attributes: dict[str, AttrValue] = Field(default_factory=dict)


class Entity(_Model):
    """An entity (set, cluster) declared with attributes. Its members are the markables
    naming it; an id that markables use needs no declaration (CoNLL labels, for one)."""

    id: str
    attributes: dict[str, AttrValue] = Field(default_factory=dict)


class Markable(_Model):
    """A referring expression: one or more token spans, attributes, optional entity."""

    id: str
    spans: tuple[Span, ...]
    entity: str | None = None
    head: tuple[Span, ...] | None = None
    attributes: dict[str, AttrValue] = Field(default_factory=dict)

    @property
    def first(self) -> int:
        return self.spans[0][0]

    @property
    def last(self) -> int:
        return self.spans[-1][1]

    @property
    def is_discontinuous(self) -> bool:
        return len(self.spans) > 1

    @classmethod
    def fast(
        cls,
        id: str,
        spans: tuple[Span, ...],
        entity: str | None = None,
        head: tuple[Span, ...] | None = None,
        attributes: dict[str, AttrValue] | None = None,
    ) -> "Markable":
        """Unvalidated constructor for readers; :meth:`Document.build` checks later."""
        return cls._make(
            id=id, spans=spans, entity=entity, head=head,
            attributes={} if attributes is None else attributes,
        )


class Link(_Model):
    """A typed relation from a markable to a markable or to an entity."""

    id: str
    type: str = COREFERENCE
    source: str
    target: str
    target_kind: Literal["markable", "entity"] = "markable"
    attributes: dict[str, AttrValue] = Field(default_factory=dict)

    @property
    def is_identity(self) -> bool:
        return is_identity(self.type)


class Document(_Model):
    """One document: primary data, markables, entities and links."""

    name: str
    #: CoNLL part number as written (``"000"``, ``"0"``), or None
    part: str | None = None
    #: free metadata; format modules keep layout details here under ``<format>.*`` keys
    metadata: dict[str, str] = Field(default_factory=dict)
    tokens: Tokens = Field(default_factory=Tokens)
    sentences: list[Sentence] = Field(default_factory=list)
    markables: list[Markable] = Field(default_factory=list)
    entities: list[Entity] = Field(default_factory=list)
    links: list[Link] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check_invariants(self) -> "Document":
        problems = self.problems()
        if problems:
            raise ModelError(problems)
        return self

    # -- construction -----------------------------------------------------------------
    @classmethod
    def build(cls, **values: Any) -> "Document":
        """Construct without per-element validation, then check invariants once.

        Raises :class:`~corefio.errors.ModelError` listing every violation.
        """
        doc = cls.model_construct(**values)
        problems = doc.problems()
        if problems:
            raise ModelError(problems)
        return doc

    # -- identity ---------------------------------------------------------------------
    @property
    def key(self) -> tuple[str, str | None]:
        """What documents are matched by when scoring (see :func:`document_key`)."""
        return document_key(self.name, self.part)

    @property
    def label(self) -> str:
        return document_label(self.name, self.part)

    # -- invariants -------------------------------------------------------------------
    def problems(self) -> list[str]:
        """Every invariant violation, as messages naming the ids involved."""
        out: list[str] = []
        toks = self.tokens
        n = len(toks.forms)
        for what, column in (("ids", toks.ids), ("whitespace", toks.whitespace), ("offsets", toks.offsets)):
            if column is not None and len(column) != n:
                out.append(f"token {what} has {len(column)} entries for {n} tokens")
        for name, column in toks.attributes.items():
            if len(column) != n:
                out.append(f"token attribute {name!r} has {len(column)} values for {n} tokens")
        if toks.ids is not None and len(set(toks.ids)) != len(toks.ids):
            out.append("duplicate token ids: " + ", ".join(_duplicates(toks.ids)[:5]))
        if toks.offsets is not None:
            for i, (a, b) in enumerate(toks.offsets):
                if a < 0 or b < a:
                    out.append(f"token {toks.token_id(i)} has invalid offsets ({a}, {b})")
                    break
        if self.sentences:
            expected = 0
            for s in self.sentences:
                if s.first != expected or s.last < s.first:
                    out.append(
                        f"sentences must cover the tokens contiguously: sentence at "
                        f"{s.first}..{s.last} where {expected} was expected"
                    )
                    break
                for off, _ in s.interleaved:
                    if not 0 <= off <= s.last - s.first + 1:
                        out.append(f"interleaved line offset {off} outside sentence {s.first}..{s.last}")
                expected = s.last + 1
            else:
                if expected != n:
                    out.append(f"sentences cover {expected} of {n} tokens")
        entity_ids = [e.id for e in self.entities]
        entity_set = set(entity_ids)
        if len(entity_set) != len(entity_ids):
            out.append("duplicate entity ids: " + ", ".join(_duplicates(entity_ids)[:5]))
        markable_ids = {m.id for m in self.markables}
        dup_markables: list[str] = []
        if len(markable_ids) != len(self.markables):
            dup_markables = _duplicates(m.id for m in self.markables)
        for m in self.markables:
            spans = m.spans
            if len(spans) == 1 and m.head is None:
                a, b = spans[0]
                if 0 <= a <= b < n:
                    continue  # the common case, checked in full below otherwise
            if not spans:
                out.append(f"markable {m.id} has an empty target")
                continue
            prev = -1
            for a, b in spans:
                if not (0 <= a <= b < n):
                    out.append(f"markable {m.id} span {a}..{b} is outside the {n} tokens")
                    break
                if a <= prev + 1 and prev >= 0:
                    out.append(
                        f"markable {m.id} spans must be in text order with a gap between "
                        f"them (merge adjacent or overlapping spans)"
                    )
                    break
                prev = b
            if m.head is not None:
                for a, b in m.head:
                    if not (0 <= a <= b < n):
                        out.append(f"markable {m.id} head {a}..{b} is outside the {n} tokens")
        if dup_markables:
            out.append("duplicate markable ids: " + ", ".join(dup_markables[:5]))
        link_ids: set[str] = set()
        if any(link.target_kind == "entity" for link in self.links):
            entity_set |= {m.entity for m in self.markables if m.entity is not None}
        for link in self.links:
            if link.id in link_ids:
                out.append(f"duplicate link id {link.id}")
            link_ids.add(link.id)
            if not link.type:
                out.append(f"link {link.id} has an empty type")
            if link.source not in markable_ids:
                out.append(f"link {link.id} source {link.source!r} is not a markable")
            if link.target_kind == "markable":
                if link.target not in markable_ids:
                    out.append(f"link {link.id} target {link.target!r} is not a markable")
            elif link.target not in entity_set:
                out.append(f"link {link.id} target {link.target!r} is not an entity")
        return out

    def check(self) -> None:
        """Raise :class:`ModelError` if an invariant is broken (after edits)."""
        problems = self.problems()
        if problems:
            raise ModelError(problems)

    # -- derived data -----------------------------------------------------------------
    def markable_index(self) -> dict[str, int]:
        return {m.id: i for i, m in enumerate(self.markables)}

    def chains(self) -> list[list[Markable]]:
        """Coreference chains: closure of identity links and shared entities.

        Ordered by their first markable (in markable order); singletons included.
        """
        return [[self.markables[i] for i in group] for group in self.chain_indices()]

    def chain_indices(self) -> list[list[int]]:
        """Like :meth:`chains`, as lists of markable indices."""
        markables = self.markables
        if not any(is_identity(link.type) for link in self.links):
            # no identity links: chains are the entities (and unattached singletons)
            groups: dict[object, list[int]] = {}
            for i, m in enumerate(markables):
                groups.setdefault(m.entity if m.entity is not None else ("", i), []).append(i)
            return list(groups.values())
        parent = list(range(len(markables)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        def union(i: int, j: int) -> None:
            ri, rj = find(i), find(j)
            if ri != rj:
                if ri < rj:
                    parent[rj] = ri
                else:
                    parent[ri] = rj

        first_of_entity: dict[str, int] = {}
        for i, m in enumerate(markables):
            if m.entity is not None:
                j = first_of_entity.setdefault(m.entity, i)
                if j != i:
                    union(i, j)
        if self.links:
            index = self.markable_index()
            for link in self.links:
                if not is_identity(link.type):
                    continue
                s = index[link.source]
                if link.target_kind == "markable":
                    union(s, index[link.target])
                else:
                    j = first_of_entity.setdefault(link.target, s)
                    if j != s:
                        union(s, j)
        groups: dict[int, list[int]] = {}
        for i in range(len(markables)):
            groups.setdefault(find(i), []).append(i)
        return sorted(groups.values(), key=lambda g: g[0])

    def mention_chains(self, pos: bool = True) -> "MentionChains":
        """This document reduced to what scoring reads (see :class:`MentionChains`)."""
        markables = self.markables
        chains = self.chain_indices()
        attrs = None
        if any(m.attributes for m in markables):
            attrs = [[markables[k].attributes for k in chain] for chain in chains]
        column = None
        if pos:
            found = self.tokens.attributes
            column = next((found[n] for n in POS_COLUMNS if n in found), None)
        return MentionChains(self.label, self.tokens.forms, [[markables[k].spans for k in chain] for chain in chains],
                             column, attrs)

    def span_text(self, span: Span) -> str:
        """The text of a span, using recorded whitespace when known."""
        a, b = span
        forms = self.tokens.forms
        ws = self.tokens.whitespace
        if ws is None:
            return " ".join(forms[a : b + 1])
        parts: list[str] = []
        for i in range(a, b):
            parts.append(forms[i])
            parts.append(ws[i])
        parts.append(forms[b])
        return "".join(parts)

    def markable_text(self, markable: Markable) -> str:
        return " … ".join(self.span_text(s) for s in markable.spans)

    def sentence_of_token(self) -> list[int]:
        """For each token, the index of its sentence (all 0 if there are none)."""
        out = [0] * len(self.tokens.forms)
        for k, s in enumerate(self.sentences):
            for i in range(s.first, s.last + 1):
                out[i] = k
        return out

    def entity_ids(self) -> list[str]:
        """Every entity id: declared ones first, then those only markables use, in order."""
        seen = {e.id: None for e in self.entities}
        for m in self.markables:
            if m.entity is not None and m.entity not in seen:
                seen[m.entity] = None
        return list(seen)

    def iter_links(self, identity: bool | None = None) -> Iterator[Link]:
        for link in self.links:
            if identity is None or is_identity(link.type) == identity:
                yield link


class Corpus(_Model):
    """A sequence of documents (one file usually holds one corpus)."""

    documents: list[Document] = Field(default_factory=list)
    metadata: dict[str, str] = Field(default_factory=dict)

    def __iter__(self) -> Iterator[Document]:  # type: ignore[override]
        return iter(self.documents)

    def __len__(self) -> int:
        return len(self.documents)

    def __getitem__(self, i: int) -> Document:
        return self.documents[i]

    def find(self, name: str, part: str | None = None) -> Document | None:
        for d in self.documents:
            if d.name == name and (part is None or d.part == part):
                return d
        return None


def _duplicates(values: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    dup: list[str] = []
    for v in values:
        if v in seen and v not in dup:
            dup.append(v)
        seen.add(v)
    return dup


def contiguous_spans(indices: Sequence[int]) -> tuple[Span, ...]:
    """Group sorted token indices into maximal contiguous spans."""
    spans: list[Span] = []
    for i in sorted(set(indices)):
        if spans and spans[-1][1] == i - 1:
            spans[-1] = (spans[-1][0], i)
        else:
            spans.append((i, i))
    return tuple(spans)
