"""spaCy ``DocBin`` files (``.spacy``) with coreference clusters (the optional ``spacy``
extra: ``pip install 'corefio[spacy]'``), read and written with spaCy itself.

spaCy's coreference components keep one span group per cluster in ``doc.spans``:
``coref_clusters_1``, ``coref_clusters_2``, ... hold the mentions, and
``coref_head_clusters_N`` the one-word heads of cluster ``N``, mention by mention. A
head cluster as long as its cluster gives each mention its head (``Markable.head``);
a head cluster without a cluster becomes a cluster of one-word mentions.

Tokens keep their text and the space after them; sentence starts, when the docs have
them, give the sentences. A document's name is ``doc.user_data["doc_key"]`` when the
file kept user data (corefio writes it, and ``part``; and the text after each token
when some is more than a space, which a spaCy token cannot hold; and the heads a head
cluster cannot give: a mention without one, or with a head of several spans), else ``document_N`` by place (scoring then
pairs by order).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..io._lazy import LazyModule
from ..diagnostics import Report
from ..errors import FormatError, ModelError, UsageError
from .registry import Capabilities, FormatSpec, register
from ..io.source import Source

model = LazyModule("corefio.model")

CLUSTER_KEY = re.compile(r"^coref_clusters_(\d+)$")
HEAD_KEY = re.compile(r"^coref_head_clusters_(\d+)$")
NAME_KEY = "doc_key"
PART_KEY = "part"
#: set when the document's whitespace was unknown (spaCy guessed one space per word)
NO_WHITESPACE_KEY = "whitespace_unknown"
#: the text after each token, when some is more than one space (line ends, tabs)
WHITESPACE_KEY = "whitespace"
#: heads one word of a head cluster cannot give: none, or several spans
HEADS_KEY = "coref_heads"
EXTRA_HINT = "install the optional extra: pip install 'corefio[spacy]'"


def require_spacy() -> Any:
    """The ``spacy`` module, or a usage error naming the extra."""
    try:
        import spacy
        from spacy.tokens import DocBin  # noqa: F401  (fails on a broken install too)
    except ImportError:
        raise UsageError(f"spaCy DocBin files need spaCy; {EXTRA_HINT}") from None
    return spacy


@contextmanager
def _msgpack_hooks_looked_up_once() -> Iterator[None]:
    """While the block runs, srsly's msgpack encoders and decoders are looked up once.

    spaCy packs (and unpacks) every span group of a doc with its own msgpack call, and
    each call of srsly's ``Packer``/``unpackb`` asks catalogue for the registered hooks,
    which scans the entry points of every installed package and copies catalogue's whole
    registry. With one span group per cluster that was about 0.3 ms per cluster: 13 of
    the 14.5 s CPU of writing the benchmark corpus (45,780 clusters). The hooks cannot
    change while a file is read or written, so the block answers each lookup with the
    first one's result (an attribute on the registry object shadows its ``get_all``
    method), and takes the shadow away afterwards. The bytes are the same.
    """
    from srsly import msgpack

    registries = [r for r in (msgpack.msgpack_encoders, msgpack.msgpack_decoders) if "get_all" not in vars(r)]
    for registry in registries:
        hooks = registry.get_all()
        registry.get_all = lambda hooks=hooks: dict(hooks)  # type: ignore[method-assign]
    try:
        yield
    finally:
        for registry in registries:
            vars(registry).pop("get_all", None)


class _Decoded:
    """What corefio takes from one spaCy doc, as plain Python values: every call into
    spaCy (which decodes the doc's bytes lazily) happens while building it."""

    __slots__ = ("forms", "whitespace", "sentences", "clusters", "heads", "user_data")

    def __init__(self, sdoc: Any) -> None:
        self.forms = [t.text for t in sdoc]
        self.whitespace = [t.whitespace_ for t in sdoc]
        n = len(self.forms)
        self.sentences: list[tuple[int, int]] = []
        if n and sdoc.has_annotation("SENT_START"):
            self.sentences = [(sent.start, sent.end - 1) for sent in sdoc.sents]
        elif n:
            self.sentences = [(0, n - 1)]
        self.clusters: dict[int, list[tuple[int, int]]] = {}  # [start, end) per mention
        self.heads: dict[int, list[tuple[int, int]]] = {}
        for key in sdoc.spans:
            found = CLUSTER_KEY.match(key)
            into = self.clusters if found else self.heads
            found = found or HEAD_KEY.match(key)
            if found:
                into[int(found.group(1))] = [(span.start, span.end) for span in sdoc.spans[key]]
        self.user_data = dict(sdoc.user_data) if isinstance(sdoc.user_data, dict) else {}


def _decode(docs: Iterator[Any], file: str) -> Iterator[_Decoded]:
    """The docs of a DocBin, each decoded into plain values. spaCy decodes a doc only
    when it is asked for (``get_docs`` is a generator) and fails on damaged bytes with
    whatever the damage provokes (KeyError for an unknown string hash, ValueError,
    OverflowError, IndexError for a span past the doc, UnicodeDecodeError, msgpack's
    ExtraData...): each becomes an input error naming the doc."""
    count = 0
    while True:
        count += 1
        try:
            with _msgpack_hooks_looked_up_once():  # the doc's span groups are unpacked here
                sdoc = next(docs, None)
                if sdoc is None:
                    return
                decoded = _Decoded(sdoc)
        except Exception as exc:  # noqa: BLE001 - damaged bytes fail spaCy in many ways
            raise FormatError(f"doc {count} of the DocBin cannot be decoded (a damaged file?): "
                              f"{type(exc).__name__}: {exc}"[:300], file=file, line=count) from None
        yield decoded


def _document(raw: _Decoded, number: int) -> Any:
    forms, whitespace = raw.forms, raw.whitespace
    n = len(forms)
    sentences = [model.Sentence(first=a, last=b, id=None, comments=[], interleaved=[], attributes={})
                 for a, b in raw.sentences]
    clusters, heads, user_data = raw.clusters, raw.heads, raw.user_data
    found_heads = user_data.get(HEADS_KEY)
    exact_heads: dict = found_heads if isinstance(found_heads, dict) else {}
    markables: list[Any] = []
    entities: list[Any] = []
    for number_ in sorted(set(clusters) | set(heads)):
        eid = str(number_)
        entities.append(model.Entity(id=eid, attributes={}))
        spans = clusters.get(number_)
        head_spans = heads.get(number_)
        if spans is None:  # heads only
            spans, head_spans = head_spans, head_spans
        parallel = head_spans is not None and spans is not None and len(head_spans) == len(spans)
        for j, (start, end) in enumerate(spans or []):
            head: tuple[tuple[int, int], ...] | None = None
            if parallel and head_spans is not None:
                h_start, h_end = head_spans[j]
                if start <= h_start and h_end <= end:
                    head = ((h_start, h_end - 1),)
            exact = exact_heads.get(f"{number_}/{j}")
            if isinstance(exact, (list, tuple)):
                spans_ = [(x[0], x[1]) for x in exact if isinstance(x, (list, tuple)) and len(x) == 2
                          and all(isinstance(v, int) and 0 <= v < n for v in x)]
                head = tuple(spans_) if spans_ else None
            markables.append(model.Markable.fast(f"markable_{len(markables) + 1}", ((start, end - 1),), eid,
                                                 head=head))
    kept = user_data.get(WHITESPACE_KEY)
    if isinstance(kept, (list, tuple)) and len(kept) == n and all(isinstance(w, str) for w in kept):
        whitespace = list(kept)  # (msgpack gives a tuple back)
    name, part = user_data.get(NAME_KEY), user_data.get(PART_KEY)
    return model.Document.build(
        name=name if isinstance(name, str) and name else f"document_{number}",
        part=part if isinstance(part, str) else None, metadata={},
        tokens=model.Tokens(forms=forms, ids=None,
                                  whitespace=None if user_data.get(NO_WHITESPACE_KEY) else whitespace,
                                  offsets=None, attributes={}),
        sentences=sentences, markables=markables, entities=entities, links=[], layout={},
    )


def stream(source: Source, *, report: Report, strict: bool = False) -> Iterator[Any]:
    spacy = require_spacy()
    from spacy.tokens import DocBin

    try:
        doc_bin = DocBin(store_user_data=True).from_bytes(source.read_bytes())
        docs = doc_bin.get_docs(spacy.vocab.Vocab())
    except Exception as exc:  # noqa: BLE001 - zlib, msgpack and spaCy each fail their own way on bad bytes
        raise FormatError(f"not a spaCy DocBin file: {type(exc).__name__}: {exc}"[:300], file=source.name,
                          line=1) from None
    count = 0
    for count, raw in enumerate(_decode(docs, source.name), 1):
        try:
            yield _document(raw, count)
        except ModelError as exc:
            raise FormatError(f"doc {count}: {exc}", file=source.name, line=count) from None
    if count == 0:
        raise FormatError("the DocBin holds no doc: no document", file=source.name, line=1)


def read(source: Source, *, report: Report, strict: bool = False) -> Any:
    """Read a DocBin file (one document per doc)."""
    return model.Corpus(documents=list(stream(source, report=report, strict=strict)), metadata={}, schemes=[],
                              layout={})


def _spacy_doc(doc: Any, vocab: Any) -> Any:
    from spacy.tokens import Doc

    forms = doc.tokens.forms
    whitespace = doc.tokens.whitespace
    spaces = [bool(whitespace[i]) for i in range(len(forms))] if whitespace is not None else \
        [i + 1 < len(forms) for i in range(len(forms))]
    starts = {s.first for s in doc.sentences}
    sent_starts: list[bool | int | None] | None = [i in starts for i in range(len(forms))] if doc.sentences else None
    sdoc = Doc(vocab, words=list(forms), spaces=spaces, sent_starts=sent_starts)
    with_heads = any(m.head for m in doc.markables)
    exact_heads: dict[str, list] = {}  # "cluster/mention" → the head spans, when one span cannot say it
    for c, chain in enumerate(doc.chain_indices(), 1):
        mentions = [doc.markables[k] for k in chain]
        sdoc.spans[f"coref_clusters_{c}"] = [sdoc[m.first : m.last + 1] for m in mentions]
        if with_heads:
            # a head cluster names a word for every mention: the last one where there is no head
            sdoc.spans[f"coref_head_clusters_{c}"] = [
                sdoc[m.head[0][0] : m.head[0][1] + 1] if m.head else sdoc[m.last : m.last + 1] for m in mentions]
            for j, m in enumerate(mentions):
                if not m.head or len(m.head) > 1:
                    exact_heads[f"{c}/{j}"] = [list(span) for span in m.head] if m.head else []
    if exact_heads:
        sdoc.user_data[HEADS_KEY] = exact_heads
    sdoc.user_data[NAME_KEY] = doc.name
    if whitespace is None:
        sdoc.user_data[NO_WHITESPACE_KEY] = True
    elif any(w not in ("", " ") for w in whitespace):  # a token's space is one " " or none
        sdoc.user_data[WHITESPACE_KEY] = list(whitespace)
    if doc.part is not None:
        sdoc.user_data[PART_KEY] = doc.part
    return sdoc


def write(documents: Any, *, corpus: Any, report: Report) -> Iterator[bytes]:
    """One DocBin holding every document (spaCy serialises the whole bin at once)."""
    spacy = require_spacy()
    from spacy.tokens import DocBin

    vocab = spacy.vocab.Vocab()
    doc_bin = DocBin(store_user_data=True)
    with _msgpack_hooks_looked_up_once():
        for doc in documents:
            doc_bin.add(_spacy_doc(doc, vocab))
        data = doc_bin.to_bytes()
    yield data


def sniff(head: bytes) -> bool:
    return False  # zlib-compressed msgpack: told by the extension only


register(
    FormatSpec(
        name="spacy",
        description="spaCy DocBin with coref_clusters_N / coref_head_clusters_N span groups (extra `spacy`)",
        extensions=(".spacy",),
        capabilities=Capabilities(
            discontinuous=False, nested=True, crossing=True, same_entity_overlap=True, cross_sentence=True,
            heads=True, whitespace=True, sentences=True, multiple_documents=True,
        ),
        read=read,
        stream=stream,
        write=write,
        aliases=("docbin", "spacy-docbin"),
    )
)
