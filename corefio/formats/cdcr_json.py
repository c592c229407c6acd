"""The mention lists of CDCR corpora in JSON: Cattan et al.'s ECB+ files and WEC-Eng.

``cdcr-json`` (Cattan et al. 2021, ``ariecattan/coref`` ``get_ecb_data.py``): a split is
two or more files side by side::

    test.json             {"36_1ecb.xml": [[sentence, t_id, word, validated], ...], ...}
    test_events.json      [{"doc_id": "36_1ecb.xml", "subtopic": "36_1", "topic": "36",
    test_entities.json      "m_id": "12", "sentence_id": "0", "tokens_ids": [3, 4],
    test_mixed.json         "tokens": "...", "cluster_id": 100000003, "cluster_desc": "...",
                            "singleton": false, "tags": "", "lemmas": ""}, ...]

The mentions name their tokens by ``t_id``; ``cluster_id`` is a corpus-wide cluster.
Reading a mentions file finds its documents file by the split name (the file name up
to the first ``_``; the ``documents`` option names another); reading the folder reads
its ``*_mixed.json`` (every mention) with ``*_events.json`` and ``*_entities.json``
(a mention's ``m_id`` in a document names it once). Mentions get ``kind`` from the file
name (``events``, ``entities``). Writing gives the folder:
``<split>.json``, ``<split>_events.json``, ``<split>_entities.json``,
``<split>_mixed.json`` (``split``: ``test`` unless given).

``wec`` (Eirew et al. 2021, "WEC: Deriving a large-scale cross-document event
coreference dataset from Wikipedia"; the Hugging Face card of WEC-Eng): one file, a
list of mentions, each with its context::

    {"coref_chain": 2293469, "coref_link": "Family Values Tour 1998", "doc_id": "House of Pain",
     "mention_context": ["From", "then", ...], "tokens_number": [27, 28, 29],
     "tokens_str": "Family Values Tour", "mention_id": "108172", "mention_type": 8, ...}

A document is a distinct (``doc_id``, ``mention_context``): the mentions of one
paragraph share it (a ``doc_id`` with several contexts gives documents
``doc_id#1``, ``doc_id#2``...). ``tokens_number`` indexes the context. Fields other than
those the pivot holds are kept as markable attributes (WEC-Eng's mentions are events;
its ``mention_type`` is a number, so no ``kind`` is set: select them with ``all``). A
document without a mention is written as its context with ``"coref_chain": null`` and
no token (corefio's extension of the format), and read back as such. Unified CDCR files (Zhukova et al.) add ``conll_doc_key``, ``sent_id`` and
``topic``/``subtopic``; with their CoNLL file (the ``documents`` option) the mentions
are put in the whole documents (``tokens_number`` then counts within the sentence).

Both give corpus-wide cluster ids: entity ids, and cross-document entities for the ids
used in two or more documents.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Iterable, Iterator

from ..diagnostics import Report
from ..errors import FormatError
from ..io.source import Source, confined_path
from ..model.crossdoc import KIND, SUBTOPIC, TOPIC, cross_chains, entities_from_labels
from ..model.layout import FormatLayout
from .registry import Capabilities, FormatSpec, Option, register

CATTAN = "cdcr-json"
WEC = "wec"
_KIND_OF_FILE = {"events": "event", "entities": "entity"}
#: WEC fields the pivot holds elsewhere than in markable attributes
_WEC_STRUCTURE = ("coref_chain", "doc_id", "mention_context", "tokens_number", "mention_id")


def _fail(message: str, file: str | None, line: int | None = None) -> FormatError:
    return FormatError(message, file=file, line=line)


def _decode(data: bytes, file: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _fail(f"not UTF-8: {exc.reason} at byte {exc.start}", file, data.count(b"\n", 0, exc.start) + 1) \
            from None


#: a ``\\uD800``-``\\uDFFF`` escape: JSON lets one stand alone, but no UTF-8 file can hold it
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _whole_characters(text: str, value: Any, file: str) -> Any:
    """``value`` (decoded from ``text``), refused when a string of it holds half of a
    surrogate pair: it could not be written to any file."""
    found = _SURROGATE.search(text)
    if found is not None:
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise _fail(f"{found.group()} is half of a surrogate pair, alone: not a character",
                        file, text.count("\n", 0, found.start()) + 1) from None
    return value


def _load_json(data: bytes, file: str) -> Any:
    text = _decode(data, file)
    try:
        return _whole_characters(text, json.loads(text), file)
    except json.JSONDecodeError as exc:
        raise FormatError(f"not JSON: {exc.msg}", file=file, line=exc.lineno, column=exc.colno) from None
    except RecursionError:
        raise _fail("JSON nested too deeply", file, 1) from None
    except ValueError as exc:  # a number of more digits than Python converts
        raise _fail(f"not JSON corefio can read: {exc}", file, 1) from None


_BETWEEN_ITEMS = re.compile(r"[\s,]*")


def _load_items(data: bytes, file: str) -> tuple[list[dict], list[int]]:
    """A JSON list of objects (a mentions file) and the line each object starts on (for
    errors about one mention)."""
    text = _decode(data, file)
    try:
        value = _whole_characters(text, json.loads(text), file)
    except json.JSONDecodeError as exc:
        raise FormatError(f"not JSON: {exc.msg}", file=file, line=exc.lineno, column=exc.colno) from None
    except RecursionError:
        raise _fail("JSON nested too deeply", file, 1) from None
    except ValueError as exc:  # a number of more digits than Python converts
        raise _fail(f"not JSON corefio can read: {exc}", file, 1) from None
    if not isinstance(value, list):
        raise _fail("a mentions file is a JSON list of objects", file, 1)
    decoder = json.JSONDecoder()
    pos = text.index("[") + 1
    line = text.count("\n", 0, pos) + 1
    lines = []
    for item in value:
        start = _BETWEEN_ITEMS.match(text, pos).end()  # type: ignore[union-attr]
        line += text.count("\n", pos, start)
        if not isinstance(item, dict):
            raise _fail("a mentions file is a JSON list of objects", file, line)
        lines.append(line)
        _, end = decoder.raw_decode(text, start)
        line += text.count("\n", start, end)
        pos = end
    return value, lines


def _read_path(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise _fail(f"cannot read file: {exc.strerror}", str(path)) from None


def _doc_stem(doc_id: str) -> str:
    return re.sub(r"\.xml$", "", doc_id)


# -- Cattan et al.'s files ------------------------------------------------------------------------
def _split_files(source: Source, documents: str | None) -> tuple[Path, list[Path]]:
    """The documents file and the mentions files a source names."""
    if source.path is None:
        raise _fail("Cattan et al.'s files are read from a mentions file (with its documents file) or a folder",
                    source.name)
    path = source.path
    if path.is_dir():
        names = sorted(p.name for p in path.iterdir())
        splits = sorted({n.split("_", 1)[0] for n in names if re.search(r"_(events|entities|mixed)\.json$", n)})
        if len(splits) != 1:
            raise _fail("the folder should hold the mention files of one split (<split>_events.json, ...): "
                        f"found {len(splits)}", str(path))
        split = splits[0]
        # the mixed file holds every mention; the events and entities files say their kinds
        mention_files = [confined_path(path, f"{split}_{k}.json", file=path) for k in ("mixed", "events", "entities")
                         if f"{split}_{k}.json" in names]
        docs = Path(documents) if documents is not None else confined_path(path, f"{split}.json", file=path)
        return docs, mention_files
    split = path.name.split("_", 1)[0]
    docs = Path(documents) if documents is not None else path.parent / f"{re.sub(r'[.]json$', '', split)}.json"
    return docs, [path]


def read_cattan(source: Source, *, report: Report, strict: bool = False, documents: str | None = None) -> Any:
    """A split of Cattan et al.'s JSON files (a mentions file, or the folder)."""
    from ..model import Corpus, Document, Markable, Sentence, Tokens, contiguous_spans

    docs_path, mention_files = _split_files(source, documents)
    if not docs_path.is_file():
        raise _fail(f"the documents file {docs_path.name} is missing (the documents option names it)", source.name)
    doc_file = str(docs_path)
    raw_docs = _load_json(_read_path(docs_path), doc_file)
    if not isinstance(raw_docs, dict):
        raise _fail("a documents file is a JSON object: document → [[sentence, t_id, word, flag], ...]", doc_file)
    tokens: dict[str, tuple[list[str], list[str], list[tuple[str, int, bool]]]] = {}
    for doc_id, rows in raw_docs.items():
        if not isinstance(rows, list):
            raise _fail(f"document {doc_id}: a list of [sentence, t_id, word, flag] rows", doc_file)
        forms: list[str] = []
        ids: list[str] = []
        sentences: list[tuple[str, int, bool]] = []
        for row in rows:
            if not isinstance(row, list) or len(row) != 4:
                raise _fail(f"document {doc_id}: a token row is [sentence, t_id, word, flag], not {row!r}",
                            doc_file)
            sentence, tid, form, flag = row
            if not sentences or sentences[-1][0] != str(sentence):
                sentences.append((str(sentence), len(forms), bool(flag)))
            forms.append(str(form))
            ids.append(str(tid))
        tokens[doc_id] = (forms, ids, sentences)
    found: dict[str, dict[str, tuple[dict, str | None, str, int]]] = {d: {} for d in tokens}
    for path in mention_files:
        file = str(path)
        match = re.search(r"_(events|entities|mixed)\.json$", path.name)
        kind = _KIND_OF_FILE.get(match.group(1)) if match else None
        items, lines = _load_items(_read_path(path), file)
        for m, line in zip(items, lines):
            doc_id = m.get("doc_id")
            if not isinstance(doc_id, str) or doc_id not in tokens:
                raise _fail(f"mention {m.get('m_id')!r} names document {doc_id!r}, which the documents file lacks",
                            file, line)
            key = f"{m.get('m_id')}"
            known = found[doc_id].get(key)
            if known is not None and (known[1] is not None or kind is None):
                if known[0].get("tokens_ids") != m.get("tokens_ids"):
                    raise _fail(f"two mentions of {doc_id} have m_id {key!r}", file, line)
                continue
            found[doc_id][key] = (m, kind, file, line)  # a kind (events, entities file) is kept over none
    out = []
    for doc_id, (forms, ids, sentences) in tokens.items():
        index = {tid: i for i, tid in enumerate(ids)}
        markables = []
        topic = subtopic = None
        for m, kind, m_file, m_line in found[doc_id].values():
            try:
                positions = [index[str(t)] for t in m["tokens_ids"]]
                m_id = str(m["m_id"])
                cluster = str(m["cluster_id"])
            except (KeyError, TypeError) as exc:
                raise _fail(f"mention {m.get('m_id')!r} of {doc_id}: missing field or token {exc}",
                            m_file, m_line) from None
            if not positions:
                raise _fail(f"mention {m_id!r} of {doc_id} has no token", m_file, m_line)
            topic = str(m.get("topic", topic)) if m.get("topic") is not None else topic
            subtopic = str(m.get("subtopic")) if m.get("subtopic") is not None else subtopic
            attributes: dict[str, Any] = {}
            if kind is not None:
                attributes[KIND] = kind
            if m.get("cluster_desc"):
                attributes["cluster_desc"] = str(m["cluster_desc"])
            markables.append(Markable(id=m_id, spans=contiguous_spans(positions), entity=cluster,
                                      attributes=attributes))
        markables.sort(key=lambda m: (m.spans[0][0], -m.spans[-1][1]))
        sentence_list = []
        for k, (sid, first, flag) in enumerate(sentences):
            last = (sentences[k + 1][1] if k + 1 < len(sentences) else len(forms)) - 1
            sentence_list.append(Sentence(first=first, last=last, id=sid, attributes={"validated": flag}))
        stem = _doc_stem(doc_id)
        metadata = {}
        if topic is None:
            topic = stem.split("_", 1)[0] if "_" in stem else None
        if topic is not None:
            metadata[TOPIC] = topic
        if subtopic is not None:
            metadata[SUBTOPIC] = subtopic
        if stem != doc_id:
            metadata["doc_name"] = doc_id
        out.append(Document.build(name=stem, metadata=metadata, tokens=Tokens(forms=forms, ids=ids),
                                  sentences=sentence_list, markables=markables))
    return Corpus(documents=out, cross_entities=entities_from_labels(out))


def _cattan_mentions(corpus: Any) -> dict[str | None, list[dict]]:
    """The mentions of Cattan et al.'s files: ``None`` (mixed), ``event``, ``entity``;
    clusters numbered once over the corpus, so that the files agree."""
    out: dict[str | None, list[dict]] = {None: [], "event": [], "entity": []}
    for number, chain in enumerate(cross_chains(corpus, None, "all"), 1):
        for d, k in chain:
            doc = corpus.documents[d]
            m = doc.markables[k]
            ids = doc.tokens.all_ids()
            positions = [i for a, b in m.spans for i in range(a, b + 1)]
            sentence = doc.sentence_of_token()[positions[0]]
            doc_id = doc.metadata.get("doc_name", f"{doc.name}.xml")
            topic = doc.metadata.get(TOPIC, "")
            item = {
                "doc_id": doc_id,
                "subtopic": doc.metadata.get(SUBTOPIC, topic),
                "m_id": m.id,
                "sentence_id": doc.sentences[sentence].id if doc.sentences else "0",
                "tokens_ids": [int(ids[i]) if ids[i].isdigit() else ids[i] for i in positions],
                "tokens": " ".join(doc.tokens.forms[i] for i in positions),
                "tags": "",
                "lemmas": "",
                "cluster_id": number,
                "cluster_desc": str(m.attributes.get("cluster_desc", "")),
                "topic": topic,
                "singleton": len(chain) == 1,
            }
            out[None].append(item)
            kind = m.attributes.get(KIND)
            if kind in ("event", "entity"):
                out[kind].append(item)
    for kind, items in out.items():  # a kind's own singletons: chains of one mention of that kind
        sizes: dict[int, int] = {}
        for item in items:
            sizes[item["cluster_id"]] = sizes.get(item["cluster_id"], 0) + 1
        out[kind] = [{**item, "singleton": sizes[item["cluster_id"]] == 1} for item in items]
    return out


def write_cattan(corpus: Any, *, report: Report, split: str = "test") -> dict[str, bytes]:
    """``<split>.json`` and the mention files of the corpus."""
    from ..model.crossdoc import validated_tokens

    docs: dict[str, list] = {}
    for doc in corpus.documents:
        ids = doc.tokens.all_ids()
        sentence_of = doc.sentence_of_token()
        flags = validated_tokens(doc)
        rows = []
        for i, form in enumerate(doc.tokens.forms):
            k = sentence_of[i]
            sid = (doc.sentences[k].id if doc.sentences[k].id is not None else str(k)) if doc.sentences else "0"
            sentence: Any = int(sid) if sid.isdigit() else sid
            rows.append([sentence, int(ids[i]) if ids[i].isdigit() else ids[i], form,
                         True if flags is None else flags[i]])
        docs[doc.metadata.get("doc_name", f"{doc.name}.xml")] = rows
    out: dict[str, Any] = {f"{split}.json": docs}
    mentions = _cattan_mentions(corpus)
    out[f"{split}_events.json"] = mentions["event"]
    out[f"{split}_entities.json"] = mentions["entity"]
    out[f"{split}_mixed.json"] = mentions[None]
    return {name: json.dumps(value, indent=4, ensure_ascii=False).encode("utf-8") for name, value in out.items()}


def sniff_cattan_directory(path: Path) -> bool:
    try:
        return any(re.search(r"_(events|entities|mixed)\.json$", p.name) for p in path.iterdir())
    except OSError:
        return False


# -- WEC-Eng and unified CDCR mentions -------------------------------------------------------------
def read_wec(source: Source, *, report: Report, strict: bool = False, documents: str | None = None) -> Any:
    """A WEC-Eng mention file (contexts as documents), or a unified CDCR mention file
    with its CoNLL documents (``documents``)."""
    from ..model import Corpus

    file = source.name
    mentions, lines = _load_items(source.read_bytes(), file)
    if documents is not None:
        return _read_ucdcr(mentions, lines, Path(documents), file, report)
    out = _wec_documents(mentions, lines, file)
    style = _json_style(source.read_text(), mentions)
    layout: dict[str, FormatLayout] = {} if style is None else {WEC: WecLayout(items=mentions, style=style)}
    return Corpus(documents=out, cross_entities=entities_from_labels(out), layout=layout)


#: the ways of writing JSON tried on a WEC file (indent, ASCII only): WEC-Eng's files
#: have an indent of 4, the unified CDCR files none
_STYLES = [(indent, ascii_only) for indent in (4, None, 2, 1) for ascii_only in (False, True)]


def _json_style(text: str, value: Any) -> dict | None:
    """The arguments of :func:`json.dumps` (and the final line end) that give ``text``
    back from ``value``, if any of :data:`_STYLES` does."""
    text = text.lstrip("\ufeff")
    for indent, ascii_only in _STYLES:
        written = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
        if text in (written, written + "\n"):
            return {"indent": indent, "ensure_ascii": ascii_only, "newline": text.endswith("\n")}
    return None


@dataclass
class WecLayout(FormatLayout):
    """A WEC file as read, kept in ``Corpus.layout["wec"]``: its mentions (their order,
    their fields in file order, values of the types they had) and how its JSON was
    written (:func:`_json_style`). The writer gives it back when the documents are still
    what these mentions say (it checks), else writes the documents anew."""

    format: ClassVar[str] = WEC

    items: list[dict] = field(default_factory=list)
    style: dict = field(default_factory=dict)


def _same_documents(a: list[Any], b: list[Any]) -> bool:
    """Do two lists of documents hold the same names, words, metadata and mentions?"""
    def shape(doc: Any) -> tuple:
        return (doc.name, tuple(doc.tokens.forms), tuple(sorted(doc.metadata.items())),
                tuple((m.id, tuple(m.spans), m.entity, tuple(sorted((k, repr(v)) for k, v in m.attributes.items())))
                      for m in doc.markables))
    return len(a) == len(b) and all(shape(x) == shape(y) for x, y in zip(a, b))


def _wec_documents(mentions: list[dict], lines: list[int], file: str) -> list[Any]:
    """The documents of WEC mentions (one per ``doc_id`` and context)."""
    from ..model import Document, Markable, Sentence, Tokens, contiguous_spans

    contexts: dict[str, list[tuple[str, ...]]] = {}
    groups: dict[tuple[str, tuple[str, ...]], list[tuple[dict, int]]] = {}
    for m, line in zip(mentions, lines):
        try:
            doc_id = str(m["doc_id"])
            context = tuple(str(t) for t in m["mention_context"])
        except (KeyError, TypeError) as exc:
            raise _fail(f"mention {m.get('mention_id')!r} lacks doc_id or mention_context ({exc})", file,
                        line) from None
        known = contexts.setdefault(doc_id, [])
        if context not in known:
            known.append(context)
        groups.setdefault((doc_id, context), []).append((m, line))
    out = []
    for (doc_id, context), members in groups.items():
        k = contexts[doc_id].index(context)
        name = doc_id if len(contexts[doc_id]) == 1 else f"{doc_id}#{k + 1}"
        markables: list[Any] = []
        metadata: dict[str, str] = {}
        for m, line in members:
            if m.get("coref_chain") is None and not m.get("tokens_number"):
                continue  # a context without a mention (what corefio writes for a document without one)
            try:
                positions = [_whole(t) for t in m["tokens_number"]]
                cluster = str(m["coref_chain"])
                m_id = str(m.get("mention_id", len(markables) + 1))
            except (KeyError, TypeError, ValueError, OverflowError) as exc:
                raise _fail(f"mention {m.get('mention_id')!r}: tokens_number and coref_chain are needed ({exc})",
                            file, line) from None
            if not positions or min(positions) < 0 or max(positions) >= len(context):
                raise _fail(f"mention {m_id}: tokens_number {positions} outside its context of {len(context)} words",
                            file, line)
            attributes: dict[str, Any] = {}
            for key, value in m.items():
                if key in _WEC_STRUCTURE or value is None:
                    continue
                if key == "tokens_str" and value == " ".join(context[i] for i in positions):
                    continue  # the mention's words: the writer gives them again
                if key == "topic" or key == "topic_id":
                    metadata[TOPIC] = str(value)
                    continue
                if key == "subtopic" or key == "subtopic_id":
                    metadata[SUBTOPIC] = str(value)
                    continue
                attributes[key] = value if isinstance(value, (bool, int, float, str)) else json.dumps(value)
            markables.append(Markable(id=m_id, spans=contiguous_spans(positions), entity=cluster,
                                      attributes=attributes))
        if len({m.id for m in markables}) != len(markables):
            raise _fail(f"two mentions of {name} have the same mention_id", file, members[-1][1])
        markables.sort(key=lambda m: (m.spans[0][0], -m.spans[-1][1]))
        out.append(Document.build(name=name, metadata=metadata, tokens=Tokens(forms=list(context)),
                                  sentences=[Sentence(first=0, last=len(context) - 1)] if context else [],
                                  markables=markables))
    return out


def _read_ucdcr(mentions: list[dict], lines: list[int], conll: Path, file: str, report: Report) -> Any:
    """Unified CDCR mentions placed in the documents of their CoNLL file."""
    from ..model import Corpus, Markable, contiguous_spans
    from .cdcr_conll import read as read_conll

    base = read_conll(Source.of(conll), report=report, layout="ucdcr")
    by_name = {d.name: d for d in base.documents}
    placed: dict[str, list[Any]] = {name: [] for name in by_name}
    for m, line in zip(mentions, lines):
        key = m.get("conll_doc_key")
        doc = by_name.get(key) if isinstance(key, str) else None
        if doc is None:
            raise _fail(f"mention {m.get('mention_id')!r} names document {key!r}, which {conll.name} lacks", file,
                        line)
        sentence = str(m.get("sent_id"))
        s = next((x for x in doc.sentences if x.id == sentence), None)
        if s is None:
            raise _fail(f"mention {m.get('mention_id')!r}: no sentence {sentence} in {key}", file, line)
        try:
            positions = [s.first + int(t) for t in m.get("tokens_number", [])]
        except (TypeError, ValueError):
            positions = []
        if not positions or min(positions) < s.first or max(positions) > s.last:
            raise _fail(f"mention {m.get('mention_id')!r}: tokens_number outside sentence {sentence} of {key}", file,
                        line)
        full = str(m.get("mention_full_type", ""))
        attributes: dict[str, Any] = {}
        if full:
            attributes["tag"] = full  # its kind follows (corefio.model.crossdoc.mention_kind)
        if m.get("description"):
            attributes["description"] = str(m["description"])
        placed[doc.name].append(Markable(id=str(m.get("mention_id")), spans=contiguous_spans(positions),
                                    entity=str(m.get("coref_chain")), attributes=attributes))
    documents = []
    for doc in base.documents:
        markables = sorted(placed[doc.name], key=lambda m: (m.spans[0][0], -m.spans[-1][1]))
        documents.append(doc.copy(markables=markables))
    for doc in documents:
        doc.check()
    return Corpus(documents=documents, cross_entities=entities_from_labels(documents))


def _whole(value: Any) -> int:
    """A token number of a mention: a whole number (JSON may spell 3.0 or 1e999)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        raise ValueError(f"token number {value!r} is not a whole number")
    return int(value)


def _wec_doc_ids(docs: list[Any], report: Report) -> list[str]:
    """Each document's ``doc_id``: its name without the ``#N`` the reader adds when one
    ``doc_id`` has several contexts. A name that will not come back so (a ``#`` of its
    own, contexts of one ``doc_id`` in another order) is a reported loss."""
    from .losses import LossLog

    ids = [re.sub(r"#\d+$", "", doc.name) for doc in docs]
    contexts: dict[str, list[tuple[str, ...]]] = {}
    for doc_id, doc in zip(ids, docs):
        known = contexts.setdefault(doc_id, [])
        if tuple(doc.tokens.forms) not in known:
            known.append(tuple(doc.tokens.forms))
    log = LossLog(report, "wec")
    for doc_id, doc in zip(ids, docs):
        known = contexts[doc_id]
        back = doc_id if len(known) == 1 else f"{doc_id}#{known.index(tuple(doc.tokens.forms)) + 1}"
        if back != doc.name:
            log.lose("document-name", f"a document is known by its doc_id and its context: {doc.name!r} is read "
                                      f"back as {back!r}", document=doc, done="renamed")
    return ids


def write_wec(documents: Iterable[Any], *, corpus: Any, report: Report, canonical: bool = False) -> Iterator[str]:
    """The mentions as a WEC-Eng list, each document its mentions' context."""
    from ..model import Corpus

    docs = list(documents)
    source = None if canonical else (getattr(corpus, "layout", None) or {}).get(WEC)
    if isinstance(source, WecLayout) and _same_documents(_wec_documents(source.items, [1] * len(source.items), ""),
                                                         docs):
        style = source.style
        yield json.dumps(source.items, indent=style["indent"], ensure_ascii=style["ensure_ascii"]) + (
            "\n" if style["newline"] else "")
        return
    doc_ids = _wec_doc_ids(docs, report)
    from .losses import LossLog

    log = LossLog(report, WEC)
    for doc in docs:  # the topic and subtopic are written (topic_id, subtopic_id), no other metadata
        lost = [k for k in doc.metadata if k not in (TOPIC, SUBTOPIC)]
        log.lose("metadata", "document metadata", document=doc, count=len(lost), example=lost[0] if lost else None)
    whole = Corpus(documents=docs, cross_entities=list(getattr(corpus, "cross_entities", []) or []))
    items = []
    chains = cross_chains(whole, None, "all")
    taken: set[str] = set()
    own: list[str | None] = []
    for chain in chains:  # a chain keeps its entity id when no other chain has it
        ids = {whole.documents[d].markables[k].entity for d, k in chain}
        label = ids.pop() if len(ids) == 1 else None
        if label is not None and label not in taken:
            taken.add(label)
            own.append(label)
        else:
            own.append(None)
    number = 0
    for chain, kept in zip(chains, own):
        if kept is None:
            number += 1
            while str(number) in taken:
                number += 1
            kept = str(number)
            taken.add(kept)
        chain_label: Any = int(kept) if kept.isascii() and kept.isdigit() and str(int(kept)) == kept else kept
        for d, k in chain:
            doc = whole.documents[d]
            m = doc.markables[k]
            positions = [i for a, b in m.spans for i in range(a, b + 1)]
            item: dict[str, Any] = {"coref_chain": chain_label, "doc_id": doc_ids[d],
                                    "mention_context": list(doc.tokens.forms), "tokens_number": positions,
                                    "mention_id": m.id}
            if "tokens_str" not in m.attributes:
                item["tokens_str"] = " ".join(doc.tokens.forms[i] for i in positions)
            for key, value in m.attributes.items():
                if key != KIND:
                    item[key] = value
            for key, name in ((TOPIC, "topic_id"), (SUBTOPIC, "subtopic_id")):
                if key in doc.metadata:
                    item[name] = doc.metadata[key]
            items.append((d, m.spans[0][0], item))
    for d, doc in enumerate(docs):
        if not any(x[0] == d for x in items):  # no mention: the context alone (coref_chain null)
            items.append((d, -1, {"coref_chain": None, "doc_id": doc_ids[d],
                                  "mention_context": list(doc.tokens.forms), "tokens_number": []}))
    items.sort(key=lambda x: (x[0], x[1]))
    yield json.dumps([item for _, _, item in items], indent=1, ensure_ascii=False) + "\n"


def sniff_wec(head: bytes) -> bool:
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    return text.startswith(b"[") and b'"mention_context"' in text and b'"coref_chain"' in text


def sniff_cattan(head: bytes) -> bool:
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    return text.startswith(b"[") and b'"tokens_ids"' in text and b'"cluster_id"' in text


register(FormatSpec(
    name=CATTAN,
    description="Cattan et al.'s ECB+ JSON (<split>.json documents with <split>_events/_entities/_mixed.json "
                "mentions, corpus-wide cluster ids)",
    extensions=(),
    ambiguous_extensions=(".json",),
    capabilities=Capabilities(
        discontinuous=True, entity_ids=False, markable_attributes=frozenset({KIND, "cluster_desc"}),
        token_ids=True, sentences=True, sentence_attributes=frozenset({"id", "attributes"}),
        metadata=False, multiple_documents=True),
    read=read_cattan,
    write_files=write_cattan,
    options=(
        Option("documents", str, None, "the documents file (<split>.json) when it is not beside", applies_to="read"),
        Option("split", str, "test", "the split name of the files written"),
    ),
    sniff=sniff_cattan,
    directory=True,
    sniff_directory=sniff_cattan_directory,
))

register(FormatSpec(
    name=WEC,
    description="WEC-Eng mention JSON (mentions with their context; unified CDCR files with their CoNLL "
                "documents)",
    extensions=(),
    ambiguous_extensions=(".json",),
    capabilities=Capabilities(
        discontinuous=True, entity_ids=True, markable_attributes=True, sentences=False, cross_sentence=True,
        metadata=True, multiple_documents=True),
    read=read_wec,
    write=write_wec,
    options=(
        Option("documents", str, None, "the CoNLL file of a unified CDCR mention file", applies_to="read"),
        Option("canonical", bool, False, "write the mentions anew, not as the file read had them"),
    ),
    sniff=sniff_wec,
    aliases=("wec-eng", "ucdcr"),
))
