"""Stanford CoreNLP coreference output, JSON (``-outputFormat json``) or XML (``xml``): read.

One file is one document. Both outputs number sentences and tokens from 1 where
coreference points at them; a mention's ``startIndex``/``endIndex`` (XML ``start``/
``end``) are token numbers within its sentence, the end exclusive, and ``headIndex``
(``head``) is its head token::

    JSON  {"docId": ..., "sentences": [{"index": 0, "tokens": [{"index": 1, "word": "Anna",
            "characterOffsetBegin": 0, "characterOffsetEnd": 4, "after": " ", ...}]}],
           "corefs": {"5": [{"id": 1, "sentNum": 1, "startIndex": 1, "endIndex": 2,
                             "headIndex": 1, "isRepresentativeMention": true, "type": ...}]}}
    XML   <root><document><sentences><sentence id="1"><tokens><token id="1"><word>Anna</word>
            <CharacterOffsetBegin>0</CharacterOffsetBegin>...</token>...
          <coreference><coreference><mention representative="true"><sentence>1</sentence>
            <start>1</start><end>2</end><head>1</head><text>Anna</text></mention>...

Each chain becomes an entity (its CoreNLP id kept in JSON, ``1``, ``2``... in XML), each
mention a markable with its head; the representative mention gets the markable
attribute ``representative=true``, JSON's ``type``, ``number``, ``gender`` and
``animacy`` become markable attributes. Token lemma, POS and NER become token
attributes, character offsets the token offsets (and JSON's ``after`` the whitespace).
The document is named by ``docId``, else ``document_1`` (scoring then pairs it by order).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..io._lazy import LazyModule
from ..diagnostics import Report
from ..errors import FormatError, ModelError
from .registry import Capabilities, FormatSpec, register
from ..io.source import Source
from ..io.xmlsafe import line_of, parse_xml

model = LazyModule("corefio.model")

MENTION_ATTRIBUTES = ("type", "number", "gender", "animacy")
TOKEN_ATTRIBUTES = {"lemma": "lemma", "pos": "pos", "ner": "ner"}
XML_TOKEN_ATTRIBUTES = {"lemma": "lemma", "POS": "pos", "NER": "ner"}


class _Tokens:
    """Tokens gathered sentence by sentence."""

    def __init__(self) -> None:
        self.forms: list[str] = []
        self.offsets: list[tuple[int, int]] = []
        self.after: list[str] = []
        self.attributes: dict[str, list[str | None]] = {name: [] for name in TOKEN_ATTRIBUTES.values()}
        self.sentence_starts: list[int] = []


def _int(value: Any, what: str, file: str | None, line: int | None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise FormatError(f"{what} must be a whole number, not {value!r}"[:200], file=file, line=line or 1)
    try:
        return int(value)
    except ValueError:
        raise FormatError(f"{what} must be a whole number, not {value!r}"[:200], file=file, line=line or 1) from None


def _line_in(text: str, needle: str) -> int:
    """The line of the first ``needle`` in ``text`` (1 if absent): JSON values carry no line."""
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def _read_json(text: str, file: str | None) -> tuple[str | None, _Tokens, list[tuple[str, list[dict]]]]:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(f"not valid JSON: {exc.msg}", file=file, line=exc.lineno, column=exc.colno) from None
    except (ValueError, RecursionError) as exc:
        raise FormatError(f"not valid JSON: {str(exc).split(';')[0]}", file=file, line=1) from None
    if not isinstance(obj, dict) or not isinstance(obj.get("sentences"), list):
        raise FormatError("a CoreNLP JSON document is an object with a list of sentences", file=file, line=1)
    toks = _Tokens()
    for k, sentence in enumerate(obj["sentences"]):
        line = _line_in(text, f'"index": {k},')
        tokens = sentence.get("tokens") if isinstance(sentence, dict) else None
        if not isinstance(tokens, list) or not all(isinstance(t, dict) for t in tokens):
            raise FormatError(f"sentence {k + 1} has no list of tokens", file=file, line=line)
        toks.sentence_starts.append(len(toks.forms))
        for t in tokens:
            word = t.get("word", t.get("originalText"))
            if not isinstance(word, str):
                raise FormatError(f"sentence {k + 1}: a token without a word", file=file, line=line)
            toks.forms.append(word)
            begin, end = t.get("characterOffsetBegin"), t.get("characterOffsetEnd")
            toks.offsets.append((_int(begin, "characterOffsetBegin", file, line),
                                 _int(end, "characterOffsetEnd", file, line)))
            after = t.get("after")
            toks.after.append(after if isinstance(after, str) else " ")
            for key, name in TOKEN_ATTRIBUTES.items():
                value = t.get(key)
                toks.attributes[name].append(value if isinstance(value, str) else None)
    corefs = obj.get("corefs", {})
    if not isinstance(corefs, dict) or not all(isinstance(c, list) for c in corefs.values()):
        raise FormatError("corefs must map chain ids to lists of mentions", file=file,
                          line=_line_in(text, '"corefs"'))
    chains = [(str(cid), mentions) for cid, mentions in corefs.items()]
    for cid, mentions in chains:
        for m in mentions:
            if not isinstance(m, dict):
                raise FormatError(f"chain {cid}: a mention is not an object", file=file,
                                  line=_line_in(text, f'"{cid}": ['))
            m["_line"] = _line_in(text, f'"id": {m.get("id")},')
    doc_id = obj.get("docId")
    return (doc_id if isinstance(doc_id, str) else None), toks, chains


def _read_xml(data: bytes, file: str | None) -> tuple[str | None, _Tokens, list[tuple[str, list[dict]]]]:
    root = parse_xml(data, file=file).getroot()
    document = root.find("document") if root.tag == "root" else None
    if document is None:
        raise FormatError("a CoreNLP XML file is <root><document>...", file=file, line=line_of(root) or 1)
    toks = _Tokens()
    for k, sentence in enumerate(document.iterfind("sentences/sentence")):
        toks.sentence_starts.append(len(toks.forms))
        for t in sentence.iterfind("tokens/token"):
            line = line_of(t)
            word = t.findtext("word")
            if word is None:
                raise FormatError(f"sentence {k + 1}: a token without a word", file=file, line=line or 1)
            toks.forms.append(word)
            toks.offsets.append((_int(t.findtext("CharacterOffsetBegin"), "CharacterOffsetBegin", file, line),
                                 _int(t.findtext("CharacterOffsetEnd"), "CharacterOffsetEnd", file, line)))
            for tag, name in XML_TOKEN_ATTRIBUTES.items():
                toks.attributes[name].append(t.findtext(tag))
    chains = []
    for c, chain in enumerate(document.iterfind("coreference/coreference"), 1):
        mentions = []
        for m in chain.iterfind("mention"):
            mentions.append({"sentNum": m.findtext("sentence"), "startIndex": m.findtext("start"),
                             "endIndex": m.findtext("end"), "headIndex": m.findtext("head"),
                             "isRepresentativeMention": m.get("representative") == "true", "_line": line_of(m)})
        chains.append((str(c), mentions))
    doc_id = document.findtext("docId")
    return doc_id, toks, chains


def read(source: Source, *, report: Report, strict: bool = False) -> Any:
    """Read one CoreNLP output file (JSON or XML, told from its first character)."""
    file = source.name
    data = source.read_bytes()
    if data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"<":
        doc_id, toks, chains = _read_xml(data, file)
    else:
        doc_id, toks, chains = _read_json(source.read_text(), file)
    n = len(toks.forms)
    if not n:
        raise FormatError("the document has no token", file=file, line=1)
    starts = toks.sentence_starts
    sentences = [model.Sentence._make(first=a, last=(starts[k + 1] if k + 1 < len(starts) else n) - 1, id=None,
                                      comments=[], interleaved=[], attributes={})
                 for k, a in enumerate(starts) if (starts[k + 1] if k + 1 < len(starts) else n) > a]
    markables: list[Any] = []
    entities: list[Any] = []
    for cid, mentions in chains:
        entities.append(model.Entity._make(id=cid, attributes={}))
        for m in mentions:
            line = m.get("_line")
            sent = _int(m.get("sentNum"), "sentNum", file, line)
            start = _int(m.get("startIndex"), "startIndex", file, line)
            end = _int(m.get("endIndex"), "endIndex", file, line)
            head = m.get("headIndex")
            if not 1 <= sent <= len(starts):
                raise FormatError(f"chain {cid}: sentNum {sent} is not one of the {len(starts)} sentences",
                                  file=file, line=line or 1)
            base = starts[sent - 1]
            length = (starts[sent] if sent < len(starts) else n) - base
            if not 1 <= start < end <= length + 1:
                raise FormatError(f"chain {cid}: tokens {start}..{end} (end exclusive) are not inside sentence "
                                  f"{sent} of {length} tokens", file=file, line=line or 1)
            head_span = None
            if head is not None:
                h = _int(head, "headIndex", file, line)
                if not start <= h < end:
                    raise FormatError(f"chain {cid}: head {h} lies outside tokens {start}..{end}", file=file,
                                      line=line or 1)
                head_span = ((base + h - 1, base + h - 1),)
            attributes = {key: m[key] for key in MENTION_ATTRIBUTES if isinstance(m.get(key), str)}
            if m.get("isRepresentativeMention") is True:
                attributes["representative"] = "true"
            markables.append(model.Markable.fast(f"markable_{len(markables) + 1}",
                                                 ((base + start - 1, base + end - 2),), cid, head=head_span,
                                                 attributes=attributes))
    attributes = {name: values for name, values in toks.attributes.items() if any(v is not None for v in values)}
    try:
        doc = model.Document.build(
            name=doc_id or "document_1", part=None, metadata={},
            tokens=model.Tokens._make(forms=toks.forms, ids=None,
                                      whitespace=toks.after if len(toks.after) == n else None,
                                      offsets=toks.offsets, attributes=attributes),
            sentences=sentences, markables=markables, entities=entities, links=[], layout={},
        )
    except ModelError as exc:
        raise FormatError(str(exc), file=file, line=1) from None
    return model.Corpus._make(documents=[doc], metadata={}, schemes=[], layout={})


_JSON_SIGNS = (b'"characterOffsetBegin"', b'"corefs"')


def sniff(head: bytes) -> bool:
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"{"):
        return b'"sentences"' in text and any(sign in text for sign in _JSON_SIGNS)
    return text.startswith(b"<") and re.search(rb"<root>\s*<document>", text) is not None


register(
    FormatSpec(
        name="corenlp",
        description="Stanford CoreNLP coreference output (JSON or XML; read only)",
        extensions=(),
        ambiguous_extensions=(".json", ".xml"),
        capabilities=Capabilities(
            discontinuous=False, nested=True, crossing=True, same_entity_overlap=True, cross_sentence=False,
            entity_ids=True, markable_attributes=frozenset({"representative", *MENTION_ATTRIBUTES}), heads=True,
            token_attributes=frozenset(TOKEN_ATTRIBUTES.values()), whitespace=True, offsets=True, sentences=True,
            multiple_documents=False,
        ),
        read=read,
        sniff=sniff,
        aliases=("stanford", "corenlp-json", "corenlp-xml"),
    )
)
