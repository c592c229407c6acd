"""jsonlines of the e2e-coref family (``.jsonlines``, ``.jsonl``): one document per line.

::

    {"doc_key": "bc/cctv/00/cctv_0000_0",
     "sentences": [["The", "man"], ["He", "left"]],     tokens, sentence by sentence
     "speakers":  [["-", "-"], ["-", "-"]],             same shape as sentences
     "clusters":  [[[0, 1], [2, 2]]]}                   document-level token offsets,
                                                         inclusive; one list per entity

Every cluster becomes an entity (``"0"``, ``"1"``, ... in file order) with one markable
per mention; singleton clusters stay. ``speakers`` become the ``speaker`` token
attribute. Other keys (``paragraphs``, ``pos``, ...) are kept as JSON in the document
metadata (``jsonlines.<key>``), with the original key order and ASCII escaping, so a
file is written back identical. A ``doc_key`` of the form ``(NAME); part NNN`` is
split into name and part like a CoNLL header; any other key is the document name.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..diagnostics import Report
from ..errors import FormatError, ModelError
from ..files import read_text
from ..losses import LossLog
from .._lazy import LazyModule
from ..registry import Capabilities, FormatSpec, register

#: the pydantic model, imported on first use (scoring CoNLL never needs it)
model = LazyModule("corefio.model")

CORE_KEYS = ("doc_key", "sentences", "speakers", "clusters")
_CONLL_KEY = re.compile(r"^\((.*)\); part (\S+)$")


def split_doc_key(key: str) -> tuple[str, str | None]:
    m = _CONLL_KEY.match(key)
    if m:
        return m.group(1), m.group(2)
    return key, None


def _read_line(obj: object, lineno: int, file: str | None, report: Report) -> model.Document:
    def fail(message: str) -> FormatError:
        return FormatError(message, file=file, line=lineno)

    if not isinstance(obj, dict):
        raise fail("each line must be a JSON object")
    for key in ("doc_key", "sentences", "clusters"):
        if key not in obj:
            raise fail(f"missing key {key!r}")
    doc_key = obj["doc_key"]
    if not isinstance(doc_key, str):
        raise fail("doc_key must be a string")
    sentences = obj["sentences"]
    if not isinstance(sentences, list) or not all(isinstance(s, list) and all(isinstance(w, str) for w in s) for s in sentences):
        raise fail("sentences must be a list of lists of strings")
    forms = [w for s in sentences for w in s]
    n = len(forms)
    bounds: list[model.Sentence] = []
    first = 0
    for s in sentences:
        if not s:
            report.warning("jsonlines.empty-sentence", "empty sentence ignored", line=lineno, merge=True, file=file)
            continue
        bounds.append(model.Sentence._make(first=first, last=first + len(s) - 1, id=None, comments=[],
                                     interleaved=[], attributes={}))
        first += len(s)
    attributes: dict[str, list[str | None]] = {}
    if "speakers" in obj:
        speakers = obj["speakers"]
        if (not isinstance(speakers, list) or len(speakers) != len(sentences)
                or any(not isinstance(sp, list) or len(sp) != len(s) for sp, s in zip(speakers, sentences))):
            raise fail("speakers must have the same shape as sentences")
        attributes["speaker"] = [str(w) for sp in speakers for w in sp]
    clusters = obj["clusters"]
    if not isinstance(clusters, list):
        raise fail("clusters must be a list of clusters")
    markables: list[model.Markable] = []
    entities: list[model.Entity] = []
    seen: dict[tuple[int, int], str] = {}
    for c, cluster in enumerate(clusters):
        if not isinstance(cluster, list):
            raise fail(f"cluster {c} is not a list of [start, end] pairs")
        eid = str(c)
        entities.append(model.Entity._make(id=eid, attributes={}))
        for mention in cluster:
            if (not isinstance(mention, list) or len(mention) != 2
                    or not all(isinstance(x, int) and not isinstance(x, bool) for x in mention)):
                raise fail(f"cluster {c}: mention {mention!r} is not [start, end]")
            a, b = mention
            if not 0 <= a <= b < n:
                raise fail(f"cluster {c}: mention [{a}, {b}] is outside the {n} tokens")
            if (a, b) in seen:
                report.warning("jsonlines.duplicate-mention", "duplicate mentions (same span)", line=lineno,
                               merge=True, file=file, example=f"[{a}, {b}] in clusters {seen[(a, b)]} and {eid}")
            seen[(a, b)] = eid
            markables.append(model.Markable.fast(f"markable_{len(markables) + 1}", ((a, b),), eid))
    name, part = split_doc_key(doc_key)
    metadata = {"jsonlines.keys": json.dumps(list(obj))}
    if part is not None:
        metadata["jsonlines.doc_key_style"] = "conll"
    for key, value in obj.items():
        if key not in CORE_KEYS:
            metadata[f"jsonlines.{key}"] = json.dumps(value, ensure_ascii=False)
    try:
        return model.Document.build(
            name=name, part=part, metadata=metadata,
            tokens=model.Tokens._make(forms=forms, ids=None, whitespace=None, offsets=None, attributes=attributes),
            sentences=bounds, markables=markables, entities=entities, links=[],
        )
    except ModelError as exc:  # pragma: no cover - checked above
        raise fail(str(exc)) from None


def loads(text: str, *, report: Report | None = None, strict: bool = False, file: str | None = None) -> model.Corpus:
    report = report if report is not None else Report(file)
    documents = []
    ascii_only = True
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise FormatError(f"not valid JSON: {exc.msg}", file=file, line=lineno, column=exc.colno) from None
        if not line.isascii():
            ascii_only = False
        documents.append(_read_line(obj, lineno, file, report))
    metadata = {} if ascii_only else {"jsonlines.ensure_ascii": "no"}
    return model.Corpus._make(documents=documents, metadata=metadata)


def read(path: str | Path, *, report: Report | None = None, strict: bool = False, **_: object) -> model.Corpus:
    """Read a jsonlines file (one document per line)."""
    return loads(read_text(path), report=report if report is not None else Report(str(path)),
                 strict=strict, file=str(path))


def _document_object(doc: model.Document, report: Report) -> dict:
    log = LossLog(report, "jsonlines")
    log.discontinuous(doc, "the span from their first to their last token")
    log.non_identity_links(doc)
    log.identity_link_structure(doc)
    log.markable_attributes(doc)
    log.entity_attributes(doc)
    log.heads(doc)
    log.whitespace_and_offsets(doc)
    log.token_attributes(doc, keep=frozenset({"speaker"}))
    forms = doc.tokens.forms
    sentences = [(s.first, s.last) for s in doc.sentences] or ([(0, len(forms) - 1)] if forms else [])
    speaker = doc.tokens.attributes.get("speaker")
    meta = doc.metadata
    if meta.get("jsonlines.doc_key_style") == "conll" or (doc.part is not None and "jsonlines.keys" not in meta):
        doc_key = f"({doc.name}); part {doc.part if doc.part is not None else '000'}"
    else:
        doc_key = doc.name if doc.part is None else f"{doc.name}_{int(doc.part) if doc.part.isdigit() else doc.part}"
    clusters = [[[doc.markables[k].first, doc.markables[k].last] for k in chain] for chain in doc.chain_indices()]
    values = {
        "doc_key": doc_key,
        "sentences": [forms[a : b + 1] for a, b in sentences],
        "speakers": [[(speaker[i] if speaker is not None and speaker[i] is not None else "-") for i in range(a, b + 1)]
                     for a, b in sentences],
        "clusters": clusters,
    }
    keys = json.loads(meta["jsonlines.keys"]) if "jsonlines.keys" in meta else list(CORE_KEYS)
    for key in keys:
        if key not in values and f"jsonlines.{key}" in meta:
            values[key] = json.loads(meta[f"jsonlines.{key}"])
    ordered = {key: values[key] for key in keys if key in values}
    for key, value in values.items():
        ordered.setdefault(key, value)
    other_meta = [k for k in meta if not k.startswith("jsonlines.")]
    log.lose("metadata", "document metadata", document=doc, count=len(other_meta),
             example=other_meta[0] if other_meta else None)
    return ordered


def dumps(corpus: model.Corpus, *, report: Report | None = None, strict: bool = False, **_: object) -> str:
    report = report if report is not None else Report()
    ensure_ascii = corpus.metadata.get("jsonlines.ensure_ascii") != "no"
    return "".join(json.dumps(_document_object(doc, report), ensure_ascii=ensure_ascii) + "\n"
                   for doc in corpus.documents)


def sniff(head: bytes) -> bool:
    return head.lstrip().startswith(b"{") and b'"doc_key"' in head


register(
    FormatSpec(
        name="jsonlines",
        description="e2e-coref jsonlines (doc_key, sentences, speakers, clusters)",
        extensions=(".jsonlines", ".jsonl"),
        capabilities=Capabilities(
            discontinuous=False, nested=True, cross_sentence=True, singletons=True, entity_ids=False,
            link_structure=False, link_types=False, markable_attributes=False, entity_attributes=False,
            heads=False, token_attributes=False, whitespace=False, offsets=False, multiple_documents=True,
        ),
        read=read,
        dumps=dumps,
        sniff=sniff,
        aliases=("e2e", "jsonl"),
    )
)
