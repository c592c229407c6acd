"""Cross-document coreference: entities whose mentions lie in several documents, and the
topics that group documents.

The per-document chains of the pivot stay as they are. Above them, a corpus may hold
:class:`CrossEntity` records: a cross-document entity (an ECB+ ``CROSS_DOC_COREF``
instance, a WEC coreference chain) that names its members by document and markable. The
chains of a set of documents taken together (:func:`cross_chains`) are the closure of

* each document's own chains (two mentions that corefer in a document corefer in the
  corpus), and
* the cross-document entities (every member corefers with every other).

Topic and subtopic are document attributes, kept in ``Document.metadata`` under
:data:`TOPIC` and :data:`SUBTOPIC` (readers set them where the corpus has them; a
mapping file or a pattern on document names sets them otherwise: :func:`assign_topics`).
A *unit* of cross-document scoring is the corpus, a topic or a subtopic
(:func:`units`); :func:`unit_view` turns one unit into a single mention view, the
"meta-document" the CDCR papers wrote for the reference scorer, built in memory.

Mentions are selected by type (:func:`mention_kind`: the markable attribute
:data:`KIND`, ``event`` or ``entity``, else what an ECB+ ``tag`` says) before the chains
of a unit are formed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ..errors import CorefioError, UsageError
from .document import CrossEntity, Markable  # noqa: F401  (CrossEntity re-exported)
from .mentions import Mention, MentionView

if TYPE_CHECKING:
    from .document import Corpus, Document

#: document metadata keys of the topic and the subtopic
TOPIC = "topic"
SUBTOPIC = "subtopic"
#: markable attribute that says whether a mention is an ``event`` or an ``entity``
KIND = "kind"
#: document metadata key of the meta-document (``#begin document`` block) a document was read from
META_DOCUMENT = "meta_document"
#: the units of cross-document scoring (``block``: the meta-documents of the file read,
#: as the reference scorer scores them)
LEVELS = ("corpus", "topic", "subtopic", "document", "block")
#: mention types a selection may name
MENTION_TYPES = ("all", "event", "entity")


def document_ref(doc: "Document") -> str:
    """How cross-document entities name a document: its name, ``NAME/PART`` when the
    document has a part (CoNLL parts of one document are documents of their own)."""
    return doc.name if doc.part is None else f"{doc.name}/{doc.part}"


def cross_problems(corpus: "Corpus") -> list[str]:
    """What is wrong with the cross-document layer of ``corpus`` (empty when nothing)."""
    out: list[str] = []
    refs = {document_ref(d): d for d in corpus.documents}
    if len(refs) != len(corpus.documents) and corpus.cross_entities:
        out.append("documents with the same name and part: cross-document entities cannot name them apart")
    markables: dict[str, set[str]] = {}
    seen: set[str] = set()
    for e in corpus.cross_entities:
        if e.id in seen:
            out.append(f"duplicate cross-document entity id {e.id}")
        seen.add(e.id)
        if not e.members:
            out.append(f"cross-document entity {e.id} has no member")
        for d, m in e.members:
            doc = refs.get(d)
            if doc is None:
                out.append(f"cross-document entity {e.id} names document {d!r}, which the corpus lacks")
                continue
            if d not in markables:
                markables[d] = {x.ref for x in doc.markables}
            if m not in markables[d]:
                out.append(f"cross-document entity {e.id} names markable {m!r}, which document {d} lacks")
    return out


# -- topics ------------------------------------------------------------------------------------
#: ECB+ document names: ``<topic>_<n>ecb`` or ``<topic>_<n>ecbplus`` (``.xml`` optional);
#: the subtopic is the topic with its half (``36ecb``, ``36ecbplus``)
ECB_PATTERN = r"^(?P<topic>\d+)_\d+(?P<subtopic>ecb(?:plus)?)(?:\.xml)?$"


def topic_of(doc: "Document", level: str) -> str | None:
    """The unit a document belongs to at ``level`` (``corpus``: always ``corpus``;
    ``subtopic``: the subtopic id as written, which names its topic)."""
    if level == "corpus":
        return "corpus"
    if level == "document":
        return document_ref(doc)
    if level == "topic":
        return doc.metadata.get(TOPIC)
    if level == "block":
        return doc.metadata.get(META_DOCUMENT)
    if level == "subtopic":
        sub = doc.metadata.get(SUBTOPIC)
        if sub is None:
            return None
        topic = doc.metadata.get(TOPIC)
        return sub if topic is None or sub.startswith(topic) else f"{topic}/{sub}"
    raise UsageError(f"unknown cross-document level {level!r} (known: {', '.join(LEVELS)})")


def assign_topics(corpus: "Corpus", *, mapping: dict[str, tuple[str, str | None]] | None = None,
                  pattern: str | None = None, overwrite: bool = False) -> "Corpus":
    """``corpus`` with topics (and subtopics) set from a mapping (document name →
    (topic, subtopic or None)) or a regular expression on document names with a named
    group ``topic`` (and optionally ``subtopic``; its value is prefixed with the topic
    unless it starts with it). Documents that already have a topic keep it unless
    ``overwrite``. A document neither names is left as it is."""
    compiled = None
    if pattern is not None:
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise UsageError(f"bad topic pattern {pattern!r}: {exc}") from None
        if "topic" not in compiled.groupindex:
            raise UsageError(f"the topic pattern {pattern!r} has no group named 'topic'")
    documents = []
    for doc in corpus.documents:
        if doc.metadata.get(TOPIC) is not None and not overwrite:
            documents.append(doc)
            continue
        found: tuple[str, str | None] | None = None
        if mapping is not None:
            found = mapping.get(doc.name) or mapping.get(document_ref(doc))
        if found is None and compiled is not None:
            match = compiled.search(doc.name)
            if match is not None:
                sub = match.groupdict().get("subtopic")
                topic = match.group("topic")
                found = (topic, None if sub is None else (sub if sub.startswith(topic) else topic + sub))
        if found is None:
            documents.append(doc)
            continue
        metadata = dict(doc.metadata)
        metadata[TOPIC] = found[0]
        if found[1] is not None:
            metadata[SUBTOPIC] = found[1]
        documents.append(doc.copy(metadata=metadata))
    return corpus.copy(documents=documents)


def read_topic_mapping(text: str, file: str | None = None) -> dict[str, tuple[str, str | None]]:
    """A mapping file: one document a line, ``DOCUMENT<TAB>TOPIC[<TAB>SUBTOPIC]``
    (blank lines and lines starting with ``#`` skipped)."""
    out: dict[str, tuple[str, str | None]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.rstrip("\r").split("\t")
        if len(cells) not in (2, 3) or not all(c.strip() for c in cells):
            raise CorefioError("a topic mapping line is DOCUMENT, TOPIC and optionally SUBTOPIC, "
                               "separated by tabs", file=file, line=number)
        if cells[0] in out:
            raise CorefioError(f"document {cells[0]!r} is mapped twice", file=file, line=number)
        out[cells[0]] = (cells[1], cells[2] if len(cells) == 3 else None)
    return out


def units(corpus: "Corpus", level: str) -> dict[str, list[int]]:
    """The units of ``level``: unit name → indices of its documents, in corpus order
    (units in order of their first document)."""
    out: dict[str, list[int]] = {}
    missing = []
    for i, doc in enumerate(corpus.documents):
        unit = topic_of(doc, level)
        if unit is None:
            missing.append(doc.name)
            continue
        out.setdefault(unit, []).append(i)
    if missing:
        raise UsageError(f"{len(missing)} document(s) have no {level} ({', '.join(missing[:3])}"
                         f"{', ...' if len(missing) > 3 else ''}): read a corpus that records it, or give "
                         f"--topics FILE or --topic-pattern REGEX" if level != "block" else
                         "read a meta-document CoNLL file (cdcr-conll) to score its blocks")
    return out


# -- chains across documents ------------------------------------------------------------------
#: a mention of a corpus: (document index, markable index)
Place = tuple[int, int]


def kind_of_tag(tag: str) -> str:
    """ECB+'s rule, as every CDCR script applies it: ``event`` for action tags
    (``ACTION_OCCURRENCE``, ``NEG_ACTION_STATE``), ``entity`` for the others."""
    return "event" if tag.startswith(("ACT", "NEG")) else "entity"


def mention_kind(m: Markable, kind: str = KIND) -> str | None:
    """``event``, ``entity`` or None: the markable's ``kind`` attribute, else what its
    ECB+ ``tag`` says."""
    value = m.attributes.get(kind)
    if value is not None:
        return str(value)
    tag = m.attributes.get("tag")
    return kind_of_tag(str(tag)) if tag is not None else None


def selected(m: Markable, mention_type: str, kind: str = KIND) -> bool:
    """Does the markable belong to the mention type (``all`` takes every markable; a
    markable of no known kind is in ``all`` only)?"""
    if mention_type == "all":
        return True
    return mention_kind(m, kind) == mention_type


def validated_tokens(doc: "Document") -> list[bool] | None:
    """For each token, whether its sentence is validated (ECB+'s validated sentences:
    the sentence attribute ``validated``); None when no sentence says."""
    if not any("validated" in s.attributes for s in doc.sentences):
        return None
    out = [True] * len(doc.tokens)
    for s in doc.sentences:
        if s.attributes.get("validated") is False:
            for i in range(s.first, s.last + 1):
                out[i] = False
    return out


def cross_chains(corpus: "Corpus", documents: Sequence[int] | None = None, mention_type: str = "all",
                 kind: str = KIND, validated_only: bool = False) -> list[list[Place]]:
    """The coreference chains of ``documents`` (indices; all of them by default) taken
    together: each document's chains joined by the cross-document entities that have
    members in them, restricted to the markables of ``mention_type`` (chains left empty
    are dropped) and, with ``validated_only``, to markables that start in a validated
    sentence (as the ECB+ papers' scripts do). Chains and their mentions are in corpus
    order."""
    if mention_type not in MENTION_TYPES:
        raise UsageError(f"unknown mention type {mention_type!r} (known: {', '.join(MENTION_TYPES)})")
    docs = corpus.documents
    indices = range(len(docs)) if documents is None else documents
    parent: dict[Place, Place] = {}

    def find(p: Place) -> Place:
        root = p
        while parent[root] != root:
            root = parent[root]
        while parent[p] != root:
            parent[p], p = root, parent[p]
        return root

    def union(a: Place, b: Place) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            if rb < ra:
                ra, rb = rb, ra
            parent[rb] = ra

    where: dict[str, int] = {}
    positions: dict[int, dict[str, int]] = {}
    for d in indices:
        doc = docs[d]
        where[document_ref(doc)] = d
        for chain in doc.chain_indices():
            first = (d, chain[0])
            for k in chain:
                parent[(d, k)] = first
    for entity in corpus.cross_entities:
        anchor: Place | None = None
        for doc_ref, mref in entity.members:
            member_doc = where.get(doc_ref)
            if member_doc is None:
                continue
            index = positions.get(member_doc)
            if index is None:
                index = positions[member_doc] = docs[member_doc].markable_index()
            member = index.get(mref)
            if member is None or (member_doc, member) not in parent:
                continue
            if anchor is None:
                anchor = (member_doc, member)
            else:
                union(anchor, (member_doc, member))
    groups: dict[Place, list[Place]] = {}
    flags: dict[int, list[bool] | None] = {}
    for place in sorted(parent):
        d, k = place
        m = docs[d].markables[k]
        if mention_type != "all" and not selected(m, mention_type, kind):
            continue
        if validated_only:
            if d not in flags:
                flags[d] = validated_tokens(docs[d])
            ok = flags[d]
            if ok is not None and not ok[m.spans[0][0]]:
                continue
        groups.setdefault(find(place), []).append(place)
    return sorted(groups.values(), key=lambda g: g[0])


def unit_view(corpus: "Corpus", documents: Sequence[int], label: str, mention_type: str = "all",
              kind: str = KIND, validated_only: bool = False) -> MentionView:
    """The documents of one unit as one mention view: their words one after the other
    (a document's token ``i`` is token ``offset + i`` of the view) and the chains of
    :func:`cross_chains`. The view of a unit is what the reference scorer reads in a
    meta-document CoNLL file written for that unit."""
    docs = corpus.documents
    offsets: dict[int, int] = {}
    forms: list[str] = []
    for d in documents:
        offsets[d] = len(forms)
        forms.extend(docs[d].tokens.forms)
    chains = []
    for chain in cross_chains(corpus, documents, mention_type, kind, validated_only):
        mentions = []
        for d, k in chain:
            m = docs[d].markables[k]
            shift = offsets[d]
            spans = tuple((a + shift, b + shift) for a, b in m.spans)
            head = None if m.head is None else tuple((a + shift, b + shift) for a, b in m.head)
            mentions.append(Mention(spans, f"{document_ref(docs[d])}#{m.ref}", m.layer, head, None, m.optional,
                                    m.attributes or None))
        chains.append(mentions)
    return MentionView(label, forms, chains)


def entities_from_labels(corpus_documents: Iterable["Document"]) -> list[CrossEntity]:
    """Cross-document entities from entity ids shared by several documents (the reading
    of formats whose cluster ids are corpus-wide: meta-document CoNLL, WEC, the CDCR
    JSON files): one entity per id used in two or more documents, its members every
    markable with that id, in document order."""
    members: dict[str, list[tuple[str, str]]] = {}
    docs_of: dict[str, set[str]] = {}
    for doc in corpus_documents:
        ref = document_ref(doc)
        for m in doc.markables:
            if m.entity is not None:
                members.setdefault(m.entity, []).append((ref, m.ref))
                docs_of.setdefault(m.entity, set()).add(ref)
    return [CrossEntity(id=e, members=tuple(ms)) for e, ms in members.items() if len(docs_of[e]) > 1]


# -- carrying the layer in other formats ---------------------------------------------------------
#: the formats that write cross-document entities (any other reports their loss)
CROSS_DOCUMENT_FORMATS = frozenset({"raf", "ecbplus", "cdcr-conll", "cdcr-json", "wec"})


def cross_entity_json(entity: CrossEntity) -> str:
    """A cross-document entity as JSON (how RAF keeps it in a corpus-level feat)."""
    import json

    return json.dumps({"id": entity.id, "members": [list(m) for m in entity.members],
                       "attributes": entity.attributes}, ensure_ascii=False, separators=(",", ":"))


def cross_entity_from_json(text: str) -> CrossEntity:
    """The entity :func:`cross_entity_json` wrote; ValueError when the JSON is not one."""
    import json

    data = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("id"), str) or not isinstance(data.get("members"), list):
        raise ValueError("a cross-document entity is {\"id\": ..., \"members\": [[document, markable], ...]}")
    members = []
    for m in data["members"]:
        if not (isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) for x in m)):
            raise ValueError(f"a member is [document, markable], not {m!r}")
        members.append((m[0], m[1]))
    attributes = data.get("attributes", {})
    if not isinstance(attributes, dict) or not all(isinstance(v, (bool, int, float, str)) for v in attributes.values()):
        raise ValueError("cross-document entity attributes are names with plain values")
    return CrossEntity(id=data["id"], members=tuple(members), attributes=attributes)
