"""ECB+ (Cybulska and Vossen 2014, "Using a sledgehammer to crack a nut? Lexical
diversity and event coreference resolution"): one XML file per news article, a folder
per topic, events and entities coreferent within and across documents.

Corpus layout::

    ECB+/<topic>/<topic>_<n>ecb.xml          the ECB documents of a topic (subtopic "ecb")
    ECB+/<topic>/<topic>_<n>ecbplus.xml      the documents ECB+ added (subtopic "ecbplus")
    ECBplus_coreference_sentences.csv        the validated sentences: "Topic,File,Sentence
                                             Number" then "1,10ecbplus,1" ... (beside ECB+/
                                             or inside the folder read)

One document::

    <Document doc_name="1_10ecb.xml" doc_id="DOC15645936584640651">
    <token t_id="1" sentence="0" number="0">Perennial</token>     t_id: 1, 2, ... over the
    ...                                                            document; number: the
    <Markables>                                                    place in the sentence
    <ACTION_OCCURRENCE m_id="52" note="byCROMER" >                a mention: its tag, its
      <token_anchor t_id="14"/>                                    m_id, its tokens
    </ACTION_OCCURRENCE>
    <HUMAN_PART_PER m_id="70" RELATED_TO="" TAG_DESCRIPTOR="Tara Reid"
                    instance_id="HUM16236184328979740" />          an instance: no tokens
    </Markables>
    <Relations>
    <CROSS_DOC_COREF r_id="37" note="HUM16236184328979740" >      mentions (sources) of an
      <source m_id="43" /> <source m_id="47" />                    instance shared by
      <target m_id="70" />                                         documents (note = its id)
    </CROSS_DOC_COREF>
    <INTRA_DOC_COREF r_id="38" > <source m_id="49" /> <target m_id="71" /> </INTRA_DOC_COREF>
    </Relations>
    </Document>

In the pivot: tokens keep their ``t_id`` as token ids, sentences their number as ids;
a mention is a markable (id ``m_id``) with the attribute ``tag`` (``ACTION_OCCURRENCE``)
and any other XML attribute it had; its kind is ``event`` for ``ACTION_*`` and
``NEG_ACTION_*`` tags, else ``entity`` (the split every CDCR paper makes:
:func:`corefio.model.crossdoc.mention_kind`). A mention without a tag is written with
``UNKNOWN_INSTANCE_TAG`` (``ACTION_UNKNOWN`` when its ``kind`` is ``event``), which
reads back as no tag. A relation's target
instance is the document's entity: its id is the instance id for ``CROSS_DOC_COREF``
(shared by the documents of the instance), ``INTRA_<r_id>`` for ``INTRA_DOC_COREF``;
its attributes keep the relation (``relation``, ``r_id``), the instance markable
(``m_id``, ``tag``, ``TAG_DESCRIPTOR``, ``RELATED_TO``, ``instance_id``); other entity
attributes are not written (reported as a loss). Every
``CROSS_DOC_COREF`` instance becomes a :class:`~corefio.model.crossdoc.CrossEntity` of
the corpus, its members every source of every document. Mentions in no relation are
singletons. Documents get ``topic`` (the number before ``_``) and ``subtopic``
(``<topic>ecb`` or ``<topic>ecbplus``) in their metadata; with the validated sentences
file, every sentence gets the attribute ``validated`` (true or false).

Instance markables that no relation names (ECB+ has some) are kept as entities without
members, so that they are written back.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Iterable
from xml.sax.saxutils import escape, quoteattr

from ..diagnostics import Report
from ..errors import FormatError
from ..io.source import Source, confined_path
from ..io.xmlsafe import line_of, parse_xml
from ..model.crossdoc import KIND, SUBTOPIC, TOPIC, CrossEntity, document_ref
from ..model.layout import FormatLayout
from .registry import Capabilities, FormatSpec, Option, register

NAME = "ecbplus"
#: the validated sentences file of the ECB+ release
SENTENCES_FILE = "ECBplus_coreference_sentences.csv"
_DOC_NAME = re.compile(r"^(?P<topic>\d+)_(?P<n>\d+)(?P<half>ecb(?:plus)?)$")
#: the document metadata ECB+ files hold (the topic as the folder, the subtopic in the name)
_WRITTEN_METADATA = frozenset({TOPIC, SUBTOPIC, "doc_id", "doc_name"})
#: attributes of an instance markable kept on the entity, in the order written
_INSTANCE_ATTRIBUTES = ("RELATED_TO", "TAG_DESCRIPTOR", "instance_id")


#: the tags written for a mention without one (read back as no tag): an unknown entity or
#: other, and an unknown event (an action prefix, so that the CDCR scripts see an event)
UNKNOWN_TAGS = {"UNKNOWN_INSTANCE_TAG": "entity", "ACTION_UNKNOWN": "event"}


@dataclass
class EcbplusLayout(FormatLayout):
    """An ECB+ document as read (``Document.layout["ecbplus"]``): its text. The files of
    the ECB+ release were written by the CAT annotation tool, whose element order
    (markables by tag, instances after them, relations in the order made), spacing and
    blank lines follow no rule a writer can derive; a document that is still what its
    text says (the writer reads the text again and compares) is written as it was."""

    format: ClassVar[str] = "ecbplus"

    source: str = ""


def _shape(doc: Any) -> tuple:
    """What an ECB+ document holds, for telling whether it is still what its text says."""
    return (doc.name, tuple(doc.tokens.forms), tuple(doc.tokens.all_ids()),
            tuple((s.first, s.last, s.id, tuple(sorted(s.attributes.items()))) for s in doc.sentences),
            tuple(sorted(doc.metadata.items())),
            tuple((m.id, tuple(m.spans), m.entity, tuple(sorted(m.attributes.items()))) for m in doc.markables),
            tuple((e.id, tuple(sorted(e.attributes.items()))) for e in doc.entities), tuple(doc.links))


def _unchanged_source(doc: Any) -> str | None:
    """The text ``doc`` was read from, if it still holds what ``doc`` holds."""
    kept = doc.layout.get(NAME)
    if not isinstance(kept, EcbplusLayout):
        return None
    again = read_document(kept.source.encode("utf-8"), doc.name, Report())
    return kept.source if _shape(again) == _shape(doc) else None


def _fail(message: str, file: str | None, line: int | None = None) -> FormatError:
    return FormatError(message, file=file, line=line)


# -- reading ----------------------------------------------------------------------------------
def read_sentences_file(path: Path) -> dict[str, set[str]]:
    """The validated sentences: document name (``1_10ecbplus``) → sentence numbers."""
    file = str(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise _fail(f"cannot read the validated sentences file: {exc.strerror}", file) from None
    out: dict[str, set[str]] = {}
    rows = list(csv.reader(io.StringIO(text)))
    for number, row in enumerate(rows, 1):
        if number == 1 and row and not row[0].strip().isdigit():
            continue  # the header
        if not row or not "".join(row).strip():
            continue
        if len(row) != 3 or not all(c.strip() for c in row):
            raise _fail("a validated sentence row is TOPIC,FILE,SENTENCE (as 1,10ecbplus,1)", file, number)
        topic, name, sentence = (c.strip() for c in row)
        out.setdefault(f"{topic}_{name}", set()).add(sentence)
    return out


def _document_files(source: Source) -> tuple[list[Path], Path | None]:
    """The XML files a source names (a file, a topic folder, the ECB+ folder or the
    folder above it) and the validated sentences file found with them."""
    if source.path is None:
        return [], None
    path = source.path
    if not path.is_dir():
        near = [path.parent / SENTENCES_FILE, path.parent.parent / SENTENCES_FILE,
                path.parent.parent.parent / SENTENCES_FILE]
        return [path], next((p for p in near if p.is_file()), None)
    root = path
    if not any(p.suffix == ".xml" for p in root.iterdir()) and (root / "ECB+").is_dir():
        root = root / "ECB+"
    found: list[Path] = []
    for entry in sorted(root.iterdir(), key=_natural):
        if entry.is_dir():
            for inner in sorted(entry.iterdir(), key=_natural):
                if inner.suffix == ".xml":
                    found.append(confined_path(path, str(inner.relative_to(path)), file=path, what="ECB+ document"))
        elif entry.suffix == ".xml":
            found.append(confined_path(path, str(entry.relative_to(path)), file=path, what="ECB+ document"))
    sentences = next((p for p in (path / SENTENCES_FILE, root / SENTENCES_FILE, path.parent / SENTENCES_FILE)
                      if p.is_file()), None)
    return found, sentences


def _reading_order(paths: list[str]) -> list[str]:
    """The files ``write_files`` wrote (``<topic>/<name>.xml`` or ``<name>.xml``) in the
    order :func:`read` takes them from their folder: the top level's folders and files in
    natural order, each folder's files in natural order."""
    tops: dict[str, list[str]] = {}
    for path in paths:
        head, _, rest = path.partition("/")
        tops.setdefault(head if rest else path, []).append(path)
    order: list[str] = []
    for top in sorted(tops, key=lambda name: _natural(Path(name))):
        order.extend(sorted(tops[top], key=lambda name: _natural(Path(name))))
    return order


def _natural(p: Path) -> tuple:
    """Order names as ECB+ numbers them: ``2_1ecb`` before ``10_1ecb``; names whose
    numbers are the same (``01`` and ``1``) by the names themselves, so that the order
    never depends on the order a folder lists its files in."""
    return [int(t) if _is_number(t) else t for t in re.split(r"([0-9]+)", p.name)], p.name


def _is_number(text: str) -> bool:
    """ASCII digits only (``str.isdigit`` takes ``¹`` and ``٣`` too, which ``int``
    refuses or reads as another number)."""
    return text.isascii() and text.isdigit()


def read(source: Source, *, report: Report, strict: bool = False, sentences: str | None = None) -> Any:
    """An ECB+ XML file, a topic folder or the corpus folder (``ECB+/`` or the folder
    holding it); ``sentences``: the validated sentences file when it is not beside."""
    from ..model import Corpus

    documents = []
    if source.path is None:
        files: list[Path] = []
        found = None
        documents.append(read_document(source.read_bytes(), source.name, report, strict))
    else:
        files, found = _document_files(source)
        if not files:
            raise _fail("the folder holds no ECB+ document (<topic>/<topic>_<n>ecb.xml)", source.name)
    validated = None
    sentence_path = Path(sentences) if sentences is not None else found
    if sentence_path is not None:
        validated = read_sentences_file(sentence_path)
    for path in files:
        documents.append(read_document(_bytes(path), str(path), report, strict))
    if validated is not None:
        documents = [_mark_validated(doc, validated.get(doc.name, set())) for doc in documents]
    seen: set[str] = set()
    for k, doc in enumerate(documents):
        if doc.name in seen:  # cross-document entities name documents: names must differ
            raise _fail(f"two documents are named {doc.name!r}", str(files[k]) if files else source.name)
        seen.add(doc.name)
    return Corpus(documents=documents, cross_entities=cross_entities(documents))


def _bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise _fail(f"cannot read file: {exc.strerror}", str(path)) from None


def _mark_validated(doc: Any, numbers: set[str]) -> Any:
    sentences = [s.copy(attributes={**s.attributes, "validated": s.id in numbers}) for s in doc.sentences]
    return doc.copy(sentences=sentences)


def cross_entities(documents: Iterable[Any]) -> list[CrossEntity]:
    """One cross-document entity per ``CROSS_DOC_COREF`` instance, its members the
    mentions of every document that names it, in document order."""
    members: dict[str, list[tuple[str, str]]] = {}
    attributes: dict[str, dict] = {}
    for doc in documents:
        cross = {e.id: e for e in doc.entities if e.attributes.get("relation") == "CROSS_DOC_COREF"}
        if not cross:
            continue
        ref = document_ref(doc)
        for e in cross.values():
            members.setdefault(e.id, [])
            attributes.setdefault(e.id, {k: v for k, v in e.attributes.items()
                                         if k in ("tag", "TAG_DESCRIPTOR")})
        for m in doc.markables:
            if m.entity in cross:
                members[m.entity].append((ref, m.ref))
    return [CrossEntity(id=e, members=tuple(ms), attributes=attributes[e]) for e, ms in members.items() if ms]


def read_document(data: bytes, file: str, report: Report, strict: bool = False) -> Any:
    """One ECB+ XML document."""
    from ..model import Document, Entity, Markable, Sentence, Tokens, contiguous_spans

    root = parse_xml(data, file=file).getroot()
    if root.tag != "Document":
        raise _fail(f"an ECB+ document's root element is <Document>, not <{root.tag}>", file, line_of(root))
    stem = Path(file).name
    doc_name = root.get("doc_name") or stem
    name = re.sub(r"\.xml$", "", re.sub(r"\.xml$", "", doc_name))
    forms: list[str] = []
    ids: list[str] = []
    sentence_ids: list[str] = []
    index: dict[str, int] = {}
    markables_el = relations_el = None
    for child in root:
        if not isinstance(child.tag, str):
            continue
        if child.tag == "token":
            tid = child.get("t_id")
            sentence = child.get("sentence")
            if tid is None or sentence is None:
                raise _fail("a <token> needs t_id and sentence", file, line_of(child))
            if tid in index:
                raise _fail(f"token t_id {tid} appears twice", file, line_of(child))
            index[tid] = len(forms)
            forms.append(child.text or "")
            ids.append(tid)
            sentence_ids.append(sentence)
        elif child.tag == "Markables":
            markables_el = child
        elif child.tag == "Relations":
            relations_el = child
        else:
            raise _fail(f"unexpected element <{child.tag}> in an ECB+ document", file, line_of(child))
    sentences = []
    start = 0
    for i in range(1, len(forms) + 1):
        if i == len(forms) or sentence_ids[i] != sentence_ids[start]:
            sentences.append(Sentence(first=start, last=i - 1, id=sentence_ids[start]))
            start = i
    if len(sentences) != len(set(s.id for s in sentences)):
        report.warning("ecbplus.sentence_order", "the tokens of a sentence are not together", file=file)
    mentions: list[tuple[str, dict, tuple, int | None]] = []  # (m_id, attributes, spans, line)
    instances: dict[str, dict] = {}
    for el in markables_el if markables_el is not None else ():
        if not isinstance(el.tag, str):
            continue
        m_id = el.get("m_id")
        if m_id is None:
            raise _fail(f"<{el.tag}> has no m_id", file, line_of(el))
        anchors = []
        for a in el:
            if not isinstance(a.tag, str):
                continue
            if a.tag != "token_anchor" or a.get("t_id") is None:
                raise _fail(f"<{el.tag} m_id={m_id!r}> holds <{a.tag}>, not <token_anchor t_id=...>", file, line_of(a))
            k = index.get(a.get("t_id"))
            if k is None:
                raise _fail(f"markable {m_id} names token {a.get('t_id')}, which the document lacks", file,
                            line_of(a))
            anchors.append(k)
        attrs = {k: v for k, v in el.attrib.items() if k != "m_id"}
        if anchors:
            tag = {} if el.tag in UNKNOWN_TAGS else {"tag": el.tag}
            mentions.append((m_id, {**tag, **attrs}, contiguous_spans(anchors), line_of(el)))
        else:
            if m_id in instances:
                raise _fail(f"m_id {m_id} appears twice", file, line_of(el))
            instances[m_id] = {"tag": el.tag, **attrs}
    entity_of: dict[str, str] = {}
    entities: list[Any] = []
    used_instances: set[str] = set()
    for rel in relations_el if relations_el is not None else ():
        if not isinstance(rel.tag, str):
            continue
        r_id = rel.get("r_id")
        sources = [s.get("m_id") for s in rel if isinstance(s.tag, str) and s.tag == "source"]
        targets = [t.get("m_id") for t in rel if isinstance(t.tag, str) and t.tag == "target"]
        if r_id is None or len(targets) != 1 or None in sources or targets[0] is None:
            raise _fail(f"<{rel.tag}> needs r_id, sources and one target with m_id", file, line_of(rel))
        target = targets[0]
        instance = instances.get(target)
        if instance is None:
            raise _fail(f"relation {r_id} targets m_id {target}, which is no instance markable", file, line_of(rel))
        if rel.tag == "CROSS_DOC_COREF":
            entity_id = rel.get("note") or instance.get("instance_id") or f"CROSS_{r_id}"
        else:
            entity_id = f"INTRA_{r_id}"
        attributes = {"relation": rel.tag, "r_id": r_id, "m_id": target, **instance}
        if any(e.id == entity_id for e in entities):
            raise _fail(f"two relations name instance {entity_id}", file, line_of(rel))
        entities.append(Entity(id=entity_id, attributes=attributes))
        used_instances.add(target)
        for s in sources:
            if s in entity_of:
                raise _fail(f"m_id {s} is a source of two relations", file, line_of(rel))
            entity_of[s] = entity_id
    for m_id, instance in instances.items():
        if m_id not in used_instances:
            entities.append(Entity(id=f"INSTANCE_{m_id}", attributes={"m_id": m_id, **instance}))
    known = {m[0] for m in mentions}
    for s in entity_of:
        if s not in known:
            raise _fail(f"a relation names m_id {s} as a source, which is no mention", file)
    markables = [Markable(id=m_id, spans=spans, entity=entity_of.get(m_id), attributes=attrs)
                 for m_id, attrs, spans, _ in mentions]
    metadata = {}
    match = _DOC_NAME.match(name)
    if match is not None:
        metadata[TOPIC] = match.group("topic")
        metadata[SUBTOPIC] = match.group("topic") + match.group("half")
    if root.get("doc_id") is not None:
        metadata["doc_id"] = root.get("doc_id")
    if doc_name != name + ".xml":
        metadata["doc_name"] = doc_name
    try:
        layout = {NAME: EcbplusLayout(source=data.decode("utf-8"))}
    except UnicodeDecodeError:
        layout = {}
    return Document.build(name=name, metadata=metadata, tokens=Tokens(forms=forms, ids=ids), sentences=sentences,
                          markables=markables, entities=entities, layout=layout)


def sniff(head: bytes) -> bool:
    """An XML file whose root is ``<Document doc_name=...>`` with ``<token t_id=`` lines."""
    text = head.lstrip(b"\xef\xbb\xbf")
    return re.search(rb"<Document\b[^>]*\bdoc_name=", text) is not None or (
        b"<Document" in text and b"<token t_id=" in text)


def sniff_directory(path: Path) -> bool:
    """A folder of ECB+ topics, a topic folder, or the folder holding ``ECB+/``."""
    try:
        entries = list(path.iterdir())
    except OSError:
        return False
    if (path / SENTENCES_FILE).is_file() or (path / "ECB+").is_dir():
        return True
    if any(_DOC_NAME.match(p.name[:-4]) for p in entries if p.suffix == ".xml"):
        return True
    return any(p.is_dir() and any(_DOC_NAME.match(q.name[:-4]) for q in p.glob("*.xml")) for p in entries[:50])


# -- writing ----------------------------------------------------------------------------------
def _attr(name: str, value: Any) -> str:
    if isinstance(value, bool):
        value = "true" if value else "false"
    return f"{name}={quoteattr(str(value))}"


def document_xml(doc: Any, corpus: Any, report: Report, first_r_id: int | None = None) -> tuple[str, int]:
    """One document as ECB+ XML. Chains whose mentions are members of a cross-document
    entity become a ``CROSS_DOC_COREF`` relation (note: the entity id); other chains of
    two or more mentions, or of a declared entity, ``INTRA_DOC_COREF``. Relations
    without an ``r_id`` are numbered from ``first_r_id`` (r_ids are unique over the
    corpus in ECB+, and the CDCR scripts build within-document cluster ids from them);
    gives the XML and the next free r_id."""
    source = _unchanged_source(doc)
    if source is not None:
        used = [int(e.attributes["r_id"]) for e in doc.entities if _is_number(str(e.attributes.get("r_id", "")))]
        return source, max([first_r_id or 1, *(r + 1 for r in used)])
    ref = document_ref(doc)
    cross_of: dict[str, Any] = {}
    for e in getattr(corpus, "cross_entities", ()) or ():
        for d, m in e.members:
            if d == ref:
                cross_of[m] = e
    declared = {e.id: e for e in doc.entities}
    lines = ['<?xml version="1.0" encoding="UTF-8" standalone="no"?>']
    doc_name = doc.metadata.get("doc_name", f"{doc.name}.xml")
    head = f"<Document {_attr('doc_name', doc_name)}"
    if "doc_id" in doc.metadata:
        head += f" {_attr('doc_id', doc.metadata['doc_id'])}"
    lines.append(head + ">")
    ids = doc.tokens.all_ids()
    numeric_ids = all(_is_number(t) for t in ids)
    sentence_of = doc.sentence_of_token()
    sentence_ids = [s.id if s.id is not None else str(k) for k, s in enumerate(doc.sentences)] or ["0"]
    firsts = [s.first for s in doc.sentences] or [0]
    for i, form in enumerate(doc.tokens.forms):
        k = sentence_of[i]
        tid = ids[i] if numeric_ids else str(i + 1)
        lines.append(f"<token {_attr('t_id', tid)} {_attr('sentence', sentence_ids[k])} "
                     f"{_attr('number', i - firsts[k])}>{escape(form)}</token>")
    t_ids = ids if numeric_ids else [str(i + 1) for i in range(len(ids))]
    markables = [m for m in doc.markables if m.layer is None]
    taken = {m.id for m in markables} | {str(e.attributes["m_id"]) for e in doc.entities if "m_id" in e.attributes}
    numeric = [int(x) for x in taken if _is_number(x)]
    next_id = max(numeric, default=0) + 1
    used_r = {str(e.attributes["r_id"]) for e in doc.entities if "r_id" in e.attributes}
    next_r = max((int(x) for x in used_r if _is_number(x)), default=0) + 1
    if first_r_id is not None:
        next_r = max(next_r, first_r_id)
    lines.append("<Markables>")
    m_ids: dict[str, str] = {}
    for m in markables:
        m_id = m.id
        if not _is_number(m_id) and m_id in m_ids.values():
            m_id = str(next_id)
            next_id += 1
        m_ids[m.ref] = m_id
        tag = str(m.attributes.get("tag") or ("ACTION_UNKNOWN" if m.attributes.get(KIND) == "event"
                                               else "UNKNOWN_INSTANCE_TAG"))
        rest = " ".join(_attr(k, v) for k, v in m.attributes.items() if k != "tag")
        lines.append(f"<{tag} {_attr('m_id', m_id)}{' ' + rest if rest else ''} >")
        for a, b in m.spans:
            for t in range(a, b + 1):
                lines.append(f'  <token_anchor t_id="{t_ids[t]}"/>')
        lines.append(f"</{tag}>")
    relations: list[str] = []
    instance_lines: list[str] = []
    written: set[str] = set()
    groups: dict[object, tuple[list[int], Any]] = {}  # chains of one cross-document entity: one relation
    for c, chain in enumerate(doc.chain_indices()):
        members = [k for k in chain if doc.markables[k].layer is None]
        if not members:
            continue
        cross = next((cross_of[doc.markables[k].ref] for k in members if doc.markables[k].ref in cross_of), None)
        key = ("cross", cross.id) if cross is not None else ("chain", c)
        if key in groups:
            groups[key][0].extend(members)
        else:
            groups[key] = (members, cross)
    for members, cross in groups.values():
        members.sort()
        first = doc.markables[members[0]]
        entity = declared.get(first.entity) if first.entity is not None else None
        if cross is None and entity is None and len(members) < 2:
            continue
        attrs = dict(entity.attributes) if entity is not None else {}
        if cross is not None:
            relation, note = "CROSS_DOC_COREF", cross.id
            own_tag = str(first.attributes.get("tag", "UNKNOWN_INSTANCE_TAG"))
            attrs.setdefault("tag", cross.attributes.get("tag", own_tag))
            attrs.setdefault("TAG_DESCRIPTOR", cross.attributes.get("TAG_DESCRIPTOR", cross.id))
            attrs.setdefault("instance_id", cross.id)
        else:
            relation, note = "INTRA_DOC_COREF", None
            attrs.setdefault("tag", str(first.attributes.get("tag", "UNKNOWN_INSTANCE_TAG")))
            attrs.setdefault("TAG_DESCRIPTOR", first.entity or doc.markable_text(first))
        if attrs.get("relation") not in (None, relation) and entity is not None:
            attrs = {k: v for k, v in attrs.items() if k not in ("r_id",)}
        r_id = str(attrs.get("r_id") or "")
        if not r_id or r_id in written:
            r_id = str(next_r)
            next_r += 1
        written.add(r_id)
        target = str(attrs.get("m_id") or "")
        if not target or target in m_ids.values():
            target = str(next_id)
            next_id += 1
        tag = str(attrs.get("tag"))
        inst = " ".join(_attr(k, attrs[k]) for k in _INSTANCE_ATTRIBUTES if k in attrs and
                        not (k == "instance_id" and relation == "INTRA_DOC_COREF" and "instance_id" not in
                             (entity.attributes if entity is not None else {})))
        if "RELATED_TO" not in attrs:
            inst = _attr("RELATED_TO", "") + " " + inst
        instance_lines.append(f"<{tag} {_attr('m_id', target)} {inst} />")
        head = f"<{relation} {_attr('r_id', r_id)}"
        if note is not None:
            head += f" {_attr('note', note)}"
        relations.append(head + " >")
        for k in members:
            relations.append(f'  <source m_id="{m_ids[doc.markables[k].ref]}" />')
        relations.append(f'  <target m_id="{target}" />')
        relations.append(f"</{relation}>")
    for e in doc.entities:
        if e.id.startswith("INSTANCE_") and "m_id" in e.attributes and not any(
                m.entity == e.id for m in doc.markables):
            attrs = e.attributes
            inst = " ".join(_attr(k, attrs[k]) for k in _INSTANCE_ATTRIBUTES if k in attrs)
            instance_lines.append(f"<{attrs.get('tag', 'UNKNOWN_INSTANCE_TAG')} {_attr('m_id', attrs['m_id'])}"
                                  f"{' ' + inst if inst else ''} />")
    lines.extend(instance_lines)
    lines.append("</Markables>")
    lines.append("")
    lines.append("<Relations>")
    lines.extend(relations)
    lines.append("</Relations>")
    lines.append("</Document>")
    return "\n".join(lines) + "\n", next_r


#: bytes of UTF-8 a file or topic folder name takes at most (before ``_<n>.xml``)
MAX_STEM_BYTES = 200


def write_files(corpus: Any, *, report: Report, canonical: bool = False) -> dict[str, bytes]:
    """``<topic>/<name>.xml`` for every document (``<name>.xml`` for a document without
    topic), and the validated sentences file when sentences say whether they are. A
    name too long for a file name is cut, with a digest of the whole name; nothing is
    lost, since the document's ``doc_name`` holds it and the reader takes the name from
    there."""
    from .mmax2.writer import cut_stem  # here: reading ECB+ need not load the MMAX2 modules

    out: dict[str, bytes] = {}
    rows: list[tuple[str, str, str]] = []
    next_r = 1 + max((int(e.attributes["r_id"]) for d in corpus.documents for e in d.entities
                      if _is_number(str(e.attributes.get("r_id", "")))), default=0)
    for k, doc in enumerate(corpus.documents):
        other = [key for key in doc.metadata if key not in _WRITTEN_METADATA]
        if other:
            report.add("loss.metadata", "warning", f"{NAME} keeps a document's topic, subtopic, doc_id and doc_name "
                       "only: other metadata dropped", document=doc.label, count=len(other), merge=True,
                       example=other[0])
        whole = doc.name if doc.part is None else f"{doc.name}_{doc.part}"
        stem = re.sub(r"[/\\\x00]", "_", whole) or f"doc_{k + 1}"
        if stem.startswith("."):
            stem = "_" + stem
        # a name too long for a file name is cut (the file's doc_name keeps it whole)
        stem = cut_stem(stem, whole, MAX_STEM_BYTES)
        topic = doc.metadata.get(TOPIC)
        folder = cut_stem(re.sub(r"[/\\\x00.]", "_", topic), topic, MAX_STEM_BYTES) + "/" if topic else ""
        path = f"{folder}{stem}.xml"
        if path in out:
            path = f"{folder}{stem}_{k + 1}.xml"
        text, next_r = document_xml(doc.copy(layout={}) if canonical else doc, corpus, report, next_r)
        out[path] = text.encode("utf-8")
        match = _DOC_NAME.match(doc.name)
        for s in doc.sentences:
            if s.attributes.get("validated") is True:
                if match is not None:
                    rows.append((match.group("topic"), doc.name.split("_", 1)[1], s.id or ""))
                else:
                    rows.append((topic or "", doc.name, s.id or ""))
    written = list(out)
    found = _reading_order(written)
    if found != written:
        moved = sum(a != b for a, b in zip(found, written))
        report.add("loss.document-order", "warning", f"{NAME} cannot express the order of the documents: a "
                   "folder is read in the order of its topic folders' and files' names; written as they are, "
                   "read back in that order", count=moved, merge=True, example=written[0])
    if rows:
        table = io.StringIO()
        table.write("Topic,File,Sentence Number\n")
        for row in rows:
            table.write(",".join(row) + "\n")
        out[SENTENCES_FILE] = table.getvalue().encode("utf-8")
    return out


#: the entity attributes an ECB+ file holds (the relation and its instance markable)
ENTITY_ATTRIBUTES = frozenset({"relation", "r_id", "m_id", "tag", *_INSTANCE_ATTRIBUTES})

CAPABILITIES = Capabilities(
    discontinuous=True, nested=True, crossing=True, same_entity_overlap=True, cross_sentence=True,
    entity_ids=False, link_structure=False, link_types=False, multi_target_links=False,
    markable_attributes=True, entity_attributes=ENTITY_ATTRIBUTES, link_attributes=False, heads=False, min=False,
    optional=False, layers=False, sets=False, token_attributes=False, token_ids=True, whitespace=False,
    offsets=False, text=False, regions=False, sentences=True, sentence_attributes=frozenset({"id", "attributes"}),
    metadata=True, schemes=False, multiple_documents=True,
)

register(FormatSpec(
    name=NAME,
    description="ECB+ XML (one file per article, a folder per topic; CROSS_DOC_COREF and INTRA_DOC_COREF "
                "relations; the validated sentences file)",
    extensions=(),
    ambiguous_extensions=(".xml",),
    capabilities=CAPABILITIES,
    read=read,
    write_files=write_files,
    options=(
        Option("sentences", str, None, "the validated sentences file (ECBplus_coreference_sentences.csv) when "
               "it is not beside the corpus", applies_to="read"),
        Option("canonical", bool, False, "write every document anew, not as it was read"),
    ),
    sniff=sniff,
    aliases=("ecb+", "ecb"),
    directory=True,
    sniff_directory=sniff_directory,
))
