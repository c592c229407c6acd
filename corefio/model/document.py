"""The pivot model: the RAF model of Popescu-Belis et al. (2004, Figure 1), as immutable dataclasses.

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
targets, consistent token columns, contiguous sentences) are checked once per document,
when it is built (``Document(...)`` and :meth:`Document.build` are the same);
:meth:`Document.problems` lists every violation without raising. The records are plain
slotted dataclasses, not pydantic models: readers build 10⁵ markables per corpus, and a
validating constructor for each cost the readers 60–80% (measured on
``benchmarks/bench_conll.py``). Validating untrusted data (a dict, JSON) and the JSON
Schema of the pivot are in :mod:`corefio.model.schema`, where pydantic does that work.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import MISSING, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal, Union

from .mentions import (  # noqa: F401  (re-exported)
    BRIDGING,
    COREFERENCE,
    IDENTITY_LINK_TYPES,
    POS_COLUMNS,
    SPLIT_ANTECEDENT,
    Mention,
    MentionChains,
    MentionView,
    document_key,
    document_label,
    is_identity,
    markable_ref,
)
from ..errors import ModelError
from .layout import FormatLayout
from .scheme import Scheme

if TYPE_CHECKING:
    from .edit import DocumentEditor

#: one token range: (first, last), 0-based, inclusive
Span = tuple[int, int]
#: attribute values are typed: the RAF writer records the type
AttrValue = Union[bool, int, float, str]

# The records are ``@dataclass(frozen=True, slots=True, kw_only=True)``: immutable,
# keyword arguments only, no per-object dict (a corpus holds 10⁵ markables). A frozen
# dataclass sets its fields with ``object.__setattr__`` in its own ``__init__``; copy()
# and Document.unchecked() do the same to build without running ``__post_init__``.
_new = object.__new__
_set = object.__setattr__

_FIELD_NAMES: dict[type, dict[str, None]] = {}


def _field_names(kind: type) -> dict[str, None]:
    """The field names of a record class, in order (a dict: ordered, and fast for ``in``)."""
    names = _FIELD_NAMES.get(kind)
    if names is None:
        names = _FIELD_NAMES[kind] = dict.fromkeys(f.name for f in fields(kind))
    return names


#: per record class: a getter of all its field values, and the setters of its slots
_PICKLING: dict[type, tuple[Any, tuple[Any, ...]]] = {}


def _pickling(kind: type) -> tuple[Any, tuple[Any, ...]]:
    found = _PICKLING.get(kind)
    if found is None:
        names = list(_field_names(kind))
        get = operator.attrgetter(*names) if len(names) > 1 else (lambda record: (getattr(record, names[0]),))
        found = _PICKLING[kind] = (get, tuple(getattr(kind, name).__set__ for name in names))
    return found


def _restore(kind: type, values: tuple) -> Any:
    """A record from its field values (what :meth:`_Record.__reduce__` pickles)."""
    record: Any = _new(kind)
    for put, value in zip(_pickling(kind)[1], values):
        put(record, value)
    return record


class _Record:
    """What every record of the model offers besides its fields."""

    __slots__ = ()

    def __reduce__(self):
        # pickled (and copied) as its class and field values, taken and put back through
        # the slots: the dataclass's own way looks the fields up for every record
        # (pickling and unpickling the documents of the benchmark key: 0.28 s + 0.60 s
        # of CPU before; sync keeps its responses pickled)
        kind = type(self)
        return (_restore, (kind, _pickling(kind)[0](self)))

    def copy(self, **changes: Any):
        """A copy with ``changes`` applied, without running checks again (what
        :meth:`Document.check` would find after an edit is the caller's to check)."""
        names = _field_names(type(self))
        if not changes.keys() <= names.keys():
            unknown = ", ".join(sorted(changes.keys() - names.keys()))
            raise TypeError(f"{type(self).__name__} has no field(s) {unknown}")
        new = _new(type(self))
        for name in names:
            _set(new, name, changes[name] if name in changes else getattr(self, name))
        return new

    def model_copy(self, update: dict[str, Any] | None = None):
        """The name this method had when the model was built on pydantic (kept for code
        written against it): :meth:`copy`."""
        return self.copy(**(update or {}))

    def field_values(self) -> dict[str, Any]:
        """Field name → value (shallow: nested records stay records)."""
        return {name: getattr(self, name) for name in _field_names(type(self))}


@dataclass(frozen=True, slots=True, kw_only=True)
class Tokens(_Record):
    """Primary data: the words of a document, column-wise (fast for 10⁵–10⁶ tokens)."""

    forms: list[str] = field(default_factory=list)
    #: explicit token ids; ``None`` means the default ``word_1 … word_n``
    ids: list[str] | None = None
    #: the text that follows each token (``" "``, ``""``, ``"\\n"``); ``None``: unknown
    whitespace: list[str] | None = None
    #: character offsets ``(start, end)`` (end exclusive) into the source text
    offsets: list[tuple[int, int]] | None = None
    #: per-token attribute columns (POS, lemma, speaker, CoNLL columns, ...)
    attributes: dict[str, list[str | None]] = field(default_factory=dict)
    #: indices (ascending) of the empty tokens: words that are understood but absent from
    #: the text (CoNLL-U empty nodes, the places of zero anaphora); None: there are none
    empty: list[int] | None = None

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


@dataclass(frozen=True, slots=True, kw_only=True)
class Sentence(_Record):
    """A sentence: tokens ``first..last`` (inclusive) and what the source said about it."""

    first: int
    last: int
    id: str | None = None
    #: comment lines kept verbatim (CoNLL-U ``# sent_id = ...`` etc.)
    comments: list[str] = field(default_factory=list)
    #: lines that sit between words in the source and are not words (CoNLL-U
    #: multi-word-token ranges): ``(offset, raw)`` = insert before the offset-th word
    interleaved: list[tuple[int, str]] = field(default_factory=list)
    attributes: dict[str, AttrValue] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Region(_Record):
    """A typed structural region of the source text (MUC's ``DOC``/``TEXT``/``p``/``s``/
    ``HL`` sections, a brat paragraph...): characters ``start..end`` (end exclusive) of
    :attr:`Document.text`. Regions nest; ``attributes`` keep what the source tag said."""

    type: str
    start: int
    end: int
    id: str | None = None
    attributes: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Entity(_Record):
    """An entity (set, cluster) declared with attributes. Its members are the markables
    naming it; an id that markables use needs no declaration (CoNLL labels, for one)."""

    id: str
    attributes: dict[str, AttrValue] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Markable(_Record):
    """A referring expression (or any annotated span of a layer).

    * ``layer``: the markable layer (MMAX2 level: ``coref``, ``sentence``...); ``None``
      is the default coreference layer. Ids are unique per layer; links and other
      markables name a markable by its :attr:`ref` (``id``, or ``layer:id``).
    * ``spans``: one or more token spans (several: a discontinuous markable).
    * ``entity``: the identity set it belongs to (CoNLL label, CorefUD ``eid``, the MMAX2
      set attribute declared as identity). Chains come from this and identity links.
    * ``sets``: memberships of other named sets (MMAX2 ``markable_set`` attributes
      that do not mean identity): attribute name → set id.
    * ``head``: the head token span(s) (CorefUD head, MMAX2/MATE head).
    * ``min``: MUC ``MIN``, the part a response must include: alternative token spans
      (``MIN="A|B"``), each one contiguous.
    * ``optional``: MUC ``STATUS="OPT"``: a key mention a response may leave out.
    """

    id: str
    spans: tuple[Span, ...]
    entity: str | None = None
    head: tuple[Span, ...] | None = None
    attributes: dict[str, AttrValue] = field(default_factory=dict)
    layer: str | None = None
    sets: dict[str, str] = field(default_factory=dict)
    min: tuple[Span, ...] | None = None
    optional: bool = False

    def __post_init__(self) -> None:
        # spans given as lists (JSON, hand-written code) become the tuples readers give;
        # this runs for every markable read, so it only compares types in the usual case
        if type(self.spans) is not tuple:
            _set(self, "spans", _span_tuple(self.spans))
        if self.head is not None and type(self.head) is not tuple:
            _set(self, "head", _span_tuple(self.head))
        if self.min is not None and type(self.min) is not tuple:
            _set(self, "min", _span_tuple(self.min))

    @property
    def ref(self) -> str:
        """How links name this markable: ``id`` in the default layer, else ``layer:id``."""
        return markable_ref(self.id, self.layer)

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
        *,
        layer: str | None = None,
        sets: dict[str, str] | None = None,
        min: tuple[Span, ...] | None = None,
        optional: bool = False,
    ) -> "Markable":
        """The constructor with positional arguments (readers' shorthand); the
        document check (:meth:`Document.build`) follows.

        It fills the slots through their descriptors instead of calling the dataclass
        ``__init__``, which for a frozen record goes through ``object.__setattr__``
        once per field and then ``__post_init__``: readers make one markable per
        mention (75,018 for the benchmark key: 0.30 s with ``Markable(...)``, 0.21 s
        this way). What ``__post_init__`` does (spans given as lists become tuples) is
        done here too."""
        if type(spans) is not tuple:
            spans = _span_tuple(spans)
        if head is not None and type(head) is not tuple:
            head = _span_tuple(head)
        if min is not None and type(min) is not tuple:
            min = _span_tuple(min)
        if cls is not Markable:  # a subclass may have fields or checks of its own
            return cls(id=id, spans=spans, entity=entity, head=head,
                       attributes={} if attributes is None else attributes,
                       layer=layer, sets={} if sets is None else sets, min=min, optional=optional)
        m = _new(Markable)
        s_id, s_spans, s_entity, s_head, s_attributes, s_layer, s_sets, s_min, s_optional = _MARKABLE_SLOTS
        s_id(m, id)
        s_spans(m, spans)
        s_entity(m, entity)
        s_head(m, head)
        s_attributes(m, {} if attributes is None else attributes)
        s_layer(m, layer)
        s_sets(m, {} if sets is None else sets)
        s_min(m, min)
        s_optional(m, optional)
        return m


#: the setters of Markable's slots, in field order (:meth:`Markable.fast`)
_MARKABLE_SLOTS = tuple(getattr(Markable, f.name).__set__ for f in fields(Markable))


@dataclass(frozen=True, slots=True, kw_only=True)
class Link(_Record):
    """A typed relation from a markable to one or more markables or entities.

    ``targets`` keeps a group together: an MMAX2 pointer ``markable_3;markable_7`` or a
    MATE link with several anchors is one link with two targets, not two links. An
    identity link makes its source corefer with every target. ``Link(target=...)`` is
    accepted for the common single-target case.
    """

    id: str
    type: str = COREFERENCE
    source: str
    targets: tuple[str, ...]
    target_kind: Literal["markable", "entity"] = "markable"
    attributes: dict[str, AttrValue] = field(default_factory=dict)

    def __init__(self, *, id: str, source: str, targets: Iterable[str] | None = None, type: str = COREFERENCE,
                 target_kind: Literal["markable", "entity"] = "markable",
                 attributes: dict[str, AttrValue] | None = None, target: str | None = None) -> None:
        if target is not None:
            if targets is not None:
                raise ValueError("give target or targets, not both")
            targets = (target,)
        elif targets is None:
            raise TypeError("a link needs its target or targets")
        _set(self, "id", id)
        _set(self, "type", type)
        _set(self, "source", source)
        _set(self, "targets", targets if isinstance(targets, tuple) else tuple(targets))
        _set(self, "target_kind", target_kind)
        _set(self, "attributes", {} if attributes is None else attributes)

    @property
    def target(self) -> str:
        """The first (usually the only) target."""
        return self.targets[0]

    @property
    def is_identity(self) -> bool:
        return is_identity(self.type)

    @classmethod
    def fast(cls, id: str, source: str, targets: tuple[str, ...], type: str = COREFERENCE,
             target_kind: str = "markable", attributes: dict[str, AttrValue] | None = None) -> "Link":
        """The constructor with positional arguments (readers' shorthand)."""
        return cls(id=id, type=type, source=source, targets=targets,
                   target_kind=target_kind,  # type: ignore[arg-type]
                   attributes=attributes)


@dataclass(frozen=True, slots=True, kw_only=True)
class Document(_Record):
    """One document: primary data, markables, entities and links.

    ``text``, when present, is the exact source text (MUC with its SGML markup, a brat
    ``.txt``): token offsets point into it and ``regions`` describe its sections.
    ``layout`` holds what only one format can use (:mod:`corefio.model.layout`).
    """

    name: str
    #: CoNLL part number as written (``"000"``, ``"0"``), or None
    part: str | None = None
    #: free metadata a user would want to keep in any format (title, source, ...);
    #: layout details belong in ``layout``, not here
    metadata: dict[str, str] = field(default_factory=dict)
    tokens: Tokens = field(default_factory=Tokens)
    sentences: list[Sentence] = field(default_factory=list)
    markables: list[Markable] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    text: str | None = None
    regions: list[Region] = field(default_factory=list)
    layout: dict[str, FormatLayout] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if type(self.tokens) is dict or any(type(item) is dict for part in _PARTS for item in getattr(self, part)):
            _records_from_dicts(self)
        self.check()

    # -- construction -----------------------------------------------------------------
    @classmethod
    def build(cls, **values: Any) -> "Document":
        """Construct without per-element validation, then check invariants once.

        Raises :class:`~corefio.errors.ModelError` listing every violation. Readers
        call it: their parts are records already, so unlike ``Document(...)`` it does
        not look through every markable for parts given as dicts.
        """
        doc = cls.unchecked(**values)
        doc.check()
        return doc

    @classmethod
    def unchecked(cls, **values: Any) -> "Document":
        """A document built without the invariant check: for a reader that checks later
        (:meth:`check`), or values taken from a checked document. Fields not given take
        their defaults."""
        unknown = values.keys() - _field_names(cls).keys()
        if unknown:
            raise TypeError(f"Document has no field(s) {', '.join(sorted(unknown))}")
        doc = _new(cls)
        for f in fields(cls):
            if f.name in values:
                value = values[f.name]
            elif f.default_factory is not MISSING:
                value = f.default_factory()
            elif f.default is not MISSING:
                value = f.default
            else:
                raise TypeError(f"Document needs {f.name}")
            _set(doc, f.name, value)
        return doc

    def edit(self) -> "DocumentEditor":
        """Start an edit (add, remove, renumber markables and links); see
        :class:`~corefio.model.edit.DocumentEditor`."""
        from .edit import DocumentEditor

        return DocumentEditor(self)

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
        columns: tuple[tuple[str, Sequence[object] | None], ...] = (
            ("ids", toks.ids), ("whitespace", toks.whitespace), ("offsets", toks.offsets))
        for what, column in columns:
            if column is not None and len(column) != n:
                out.append(f"token {what} has {len(column)} entries for {n} tokens")
        for name, values in toks.attributes.items():
            if len(values) != n:
                out.append(f"token attribute {name!r} has {len(values)} values for {n} tokens")
        if toks.empty is not None and (any(not 0 <= i < n for i in toks.empty)
                                       or any(a >= b for a, b in zip(toks.empty, toks.empty[1:]))):
            out.append("empty tokens must be distinct token indices in ascending order")
        if toks.ids is not None and len(set(toks.ids)) != len(toks.ids):
            out.append("duplicate token ids: " + ", ".join(_duplicates(toks.ids)[:5]))
        if toks.offsets is not None:
            limit = len(self.text) if self.text is not None else None
            for i, (a, b) in enumerate(toks.offsets):
                if a < 0 or b < a or (limit is not None and b > limit):
                    out.append(f"token {toks.token_id(i)} has invalid offsets ({a}, {b})")
                    break
        if self.text is not None:
            if toks.offsets is None and n:
                out.append("a document with a source text needs token offsets into it")
            for r in self.regions:
                if not 0 <= r.start <= r.end <= len(self.text):
                    out.append(f"region {r.type} {r.start}..{r.end} is outside the {len(self.text)} characters")
        elif self.regions:
            out.append("regions need the source text they point into")
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
        # Markable.ref inlined: this runs once per markable of every document read
        refs = [m.id if m.layer is None else f"{m.layer}:{m.id}" for m in self.markables]
        markable_refs = set(refs)
        for m in self.markables:
            spans = m.spans
            if len(spans) == 1 and m.head is None and m.min is None:
                a, b = spans[0]
                if 0 <= a <= b < n:
                    continue  # the common case, checked in full below otherwise
            if not spans:
                out.append(f"markable {m.ref} has an empty target")
                continue
            prev = -1
            for a, b in spans:
                if not (0 <= a <= b < n):
                    out.append(f"markable {m.ref} span {a}..{b} is outside the {n} tokens")
                    break
                if a <= prev + 1 and prev >= 0:
                    out.append(
                        f"markable {m.ref} spans must be in text order with a gap between "
                        f"them (merge adjacent or overlapping spans)"
                    )
                    break
                prev = b
            for what, extra in (("head", m.head), ("MIN", m.min)):
                for a, b in extra or ():
                    if not (0 <= a <= b < n):
                        out.append(f"markable {m.ref} {what} {a}..{b} is outside the {n} tokens")
        if len(markable_refs) != len(refs):
            out.append("duplicate markable ids: " + ", ".join(_duplicates(refs)[:5]))
        link_ids: set[str] = set()
        if any(link.target_kind == "entity" for link in self.links):
            entity_set |= {m.entity for m in self.markables if m.entity is not None}
        for link in self.links:
            if link.id in link_ids:
                out.append(f"duplicate link id {link.id}")
            link_ids.add(link.id)
            if not link.type:
                out.append(f"link {link.id} has an empty type")
            if link.source not in markable_refs:
                out.append(f"link {link.id} source {link.source!r} is not a markable")
            if not link.targets:
                out.append(f"link {link.id} has no target")
            pool, kind = (markable_refs, "markable") if link.target_kind == "markable" else (entity_set, "entity")
            for target in link.targets:
                if target not in pool:
                    out.append(f"link {link.id} target {target!r} is not {'a' if kind == 'markable' else 'an'} {kind}")
        return out

    def check(self) -> None:
        """Raise :class:`ModelError` if an invariant is broken (after edits)."""
        problems = self.problems()
        if problems:
            raise ModelError(problems)

    # -- derived data -----------------------------------------------------------------
    def markable_index(self) -> dict[str, int]:
        """Position of each markable in ``markables``, by :attr:`Markable.ref`."""
        return {m.ref: i for i, m in enumerate(self.markables)}

    def chains(self) -> list[list[Markable]]:
        """Coreference chains: closure of identity links and shared entities.

        Ordered by their first markable (in markable order); singletons included.
        """
        return [[self.markables[i] for i in group] for group in self.chain_indices()]

    def chain_indices(self, layer: str | None | bool = True) -> list[list[int]]:
        """Like :meth:`chains`, as lists of markable indices.

        ``layer=True`` (default) takes every markable that is in the coreference layer
        or takes part in identity (an entity, an identity link); structural layers
        (sentences, chunks) without identity annotation are left out.
        """
        markables = self.markables
        identity_links = [link for link in self.links if is_identity(link.type)]
        linked: set[str] = set()
        for link in identity_links:
            linked.add(link.source)
            if link.target_kind == "markable":
                linked.update(link.targets)

        def wanted(m: Markable) -> bool:
            return m.layer is None or m.entity is not None or m.ref in linked

        if not identity_links:
            # no identity links: chains are the entities (and unattached singletons)
            groups: dict[object, list[int]] = {}
            for i, m in enumerate(markables):
                if m.layer is not None and m.entity is None:
                    continue
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
        index = self.markable_index()
        for link in identity_links:
            s = index[link.source]
            for target in link.targets:
                if link.target_kind == "markable":
                    union(s, index[target])
                else:
                    j = first_of_entity.setdefault(target, s)
                    if j != s:
                        union(s, j)
        groups2: dict[int, list[int]] = {}
        for i, m in enumerate(markables):
            if wanted(m):
                groups2.setdefault(find(i), []).append(i)
        return sorted(groups2.values(), key=lambda g: g[0])

    def mention_view(self, pos: bool = True) -> MentionView:
        """What scoring, matching and synchronisation read: every mention of a chain
        with its id, layer, spans, head, MIN, optional flag and attributes."""
        markables = self.markables
        chains = self.chain_indices()
        column = None
        if pos:
            found = self.tokens.attributes
            column = next((found[n] for n in POS_COLUMNS if n in found), None)
        mentions = [[_mention(markables[k]) for k in chain] for chain in chains]
        places = None
        if self.tokens.empty:
            from .zeros import document_places, zero_of

            placed = document_places(self)
            assert placed is not None
            places, info = placed
            mentions = [[m._replace(zero=zero_of(m.spans, m.head, info)) for m in chain] for chain in mentions]
        return MentionView(self.label, self.tokens.forms, mentions, column, places)

    def mention_chains(self, pos: bool = True) -> MentionView:
        """Former name of :meth:`mention_view`."""
        return self.mention_view(pos)

    def span_text(self, span: Span) -> str:
        """The text of a span: from the source text when there is one, else the forms
        joined with the recorded whitespace (CoNLL-U's ``SpaceAfter=No`` included; a
        space when unknown)."""
        a, b = span
        offsets = self.tokens.offsets
        if self.text is not None and offsets is not None:
            return self.text[offsets[a][0]:offsets[b][1]]
        forms = self.tokens.forms
        ws = self.tokens.whitespace
        misc = self.tokens.attributes.get("misc") if ws is None else None
        if ws is None and misc is None:
            return " ".join(forms[a : b + 1])
        parts: list[str] = []
        for i in range(a, b):
            parts.append(forms[i])
            if ws is not None:
                parts.append(ws[i])
            else:  # CoNLL-U: no space after a token whose MISC says SpaceAfter=No
                assert misc is not None
                value = misc[i]
                parts.append("" if value and "SpaceAfter=No" in value.split("|") else " ")
        parts.append(forms[b])
        return "".join(parts)

    def markable_text(self, markable: Markable) -> str:
        return " … ".join(self.span_text(s) for s in markable.spans)

    def sentence_of_token(self) -> list[int]:
        """For each token, the index of its sentence (all 0 if there are none)."""
        n = len(self.tokens.forms)
        # sentences that cover the tokens one after the other (as a checked document's
        # do): a run of each index at once, not token by token
        out: list[int] = []
        for k, s in enumerate(self.sentences):
            if s.first != len(out) or not s.first <= s.last < n:
                break
            out += [k] * (s.last - s.first + 1)
        else:
            if len(out) == n:
                return out
        out = [0] * n
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

    def chain_markables_only(self) -> "Document":
        """This document without the markables that are in no chain (structural layers:
        sentences, chunks) and without the links that name them; itself when every
        markable is in a chain. One-layer formats write this."""
        if all(m.layer is None for m in self.markables):
            return self  # every markable of the coreference layer is in a chain (a singleton's)
        in_chain = {k for chain in self.chain_indices() for k in chain}
        if len(in_chain) == len(self.markables):
            return self
        gone = {m.ref for k, m in enumerate(self.markables) if k not in in_chain}
        markables = [m for k, m in enumerate(self.markables) if k in in_chain]
        links = [link for link in self.links
                 if link.source not in gone and not (link.target_kind == "markable" and gone & set(link.targets))]
        return self.copy(markables=markables, links=links)

    def layers(self) -> list[str | None]:
        """The markable layers in use, in order of first appearance."""
        return list(dict.fromkeys(m.layer for m in self.markables))

    def iter_links(self, identity: bool | None = None) -> Iterator[Link]:
        for link in self.links:
            if identity is None or is_identity(link.type) == identity:
                yield link


def _span_tuple(spans: Iterable[Iterable[int]]) -> tuple[Span, ...]:
    return tuple((a, b) for a, b in spans)


#: the parts of a document that hold records, and their classes
_PARTS = ("sentences", "markables", "entities", "links", "regions")


def _records_from_dicts(doc: "Document") -> None:
    """Parts given as dicts (``tokens={"forms": [...]}``, ``markables=[{"id": ...}]``, as
    hand-written code and JSON give them) made into records by their constructors.
    Field types are not checked here: :func:`corefio.model.schema.validate_document`
    does that for untrusted data."""
    kinds = {"sentences": Sentence, "markables": Markable, "entities": Entity, "links": Link, "regions": Region}
    if type(doc.tokens) is dict:
        _set(doc, "tokens", Tokens(**doc.tokens))
    for part, kind in kinds.items():
        items = getattr(doc, part)
        if any(type(item) is dict for item in items):
            _set(doc, part, [kind(**item) if type(item) is dict else item for item in items])


def _mention(m: Markable) -> Mention:
    return Mention(m.spans, m.id, m.layer, m.head, m.min, m.optional, m.attributes or None)


@dataclass(frozen=True, slots=True, kw_only=True)
class CrossEntity(_Record):
    """An entity across documents (:mod:`corefio.model.crossdoc`): its id, its members as
    ``(document, markable ref)`` pairs (the document as
    :func:`~corefio.model.crossdoc.document_ref` names it), and attributes (an ECB+
    instance's descriptor and tag, a WEC chain's Wikipedia link)."""

    id: str
    members: tuple[tuple[str, str], ...]
    attributes: dict[str, AttrValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if type(self.members) is not tuple:
            _set(self, "members", tuple((d, m) for d, m in self.members))

    def documents(self) -> list[str]:
        """The documents the entity has mentions in, in order of first member."""
        return list(dict.fromkeys(d for d, _ in self.members))


@dataclass(frozen=True, slots=True, kw_only=True)
class Corpus(_Record):
    """A sequence of documents (one file usually holds one corpus), with the annotation
    schemes of its layers, corpus-wide format layout (an MMAX2 project's paths) and the
    entities that span documents (:mod:`corefio.model.crossdoc`: cross-document
    coreference; a document's topic and subtopic are in its metadata)."""

    documents: list[Document] = field(default_factory=list)
    metadata: dict[str, str] = field(default_factory=dict)
    schemes: list[Scheme] = field(default_factory=list)
    layout: dict[str, FormatLayout] = field(default_factory=dict)
    #: entities whose mentions lie in several documents, members named by (document, markable)
    cross_entities: list[CrossEntity] = field(default_factory=list)

    def __iter__(self) -> Iterator[Document]:
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

    def scheme(self, layer: str | None) -> Scheme | None:
        return next((s for s in self.schemes if s.layer == layer), None)


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
