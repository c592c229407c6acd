"""What a document holds, in numbers: the figures ``corefio info`` prints, per document
and summed (:func:`totals`: a file, a corpus of files). Tokens are the words of the
text; empty nodes (CorefUD empty nodes, the places of zeros) are counted apart.

>>> import corefio
>>> from corefio.checks.info import corpus_info
>>> [(d.markables, d.chains) for d in corpus_info(corefio.read("samples/key.raf.xml"))]
[(17, 4)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..model import Document


@dataclass(frozen=True)
class DocumentInfo:
    """Counts for one document."""

    name: str
    #: CoNLL part number as written, or None
    part: str | None
    #: the words of the text (empty nodes are not words: see ``empty_nodes``)
    tokens: int
    sentences: int
    markables: int
    #: markables made of several spans
    discontinuous: int
    #: distinct entity ids: the declared entities and the ids markables use without a
    #: declaration (a CoNLL label is such an id)
    entities: int
    #: coreference chains, singletons included
    chains: int
    #: chains of a single markable
    singletons: int
    #: number of links of each type, by type name
    links: dict[str, int] = field(default_factory=dict)
    #: empty tokens: words understood but absent from the text (CorefUD empty nodes,
    #: the places of zeros), counted apart from ``tokens``
    empty_nodes: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


#: the counts :func:`totals` sums (every number of :class:`DocumentInfo`)
COUNTS = ("tokens", "empty_nodes", "sentences", "markables", "discontinuous", "entities", "chains", "singletons")


@dataclass(frozen=True)
class Totals:
    """The counts of several documents summed (a file, a corpus of files). Entities are
    summed too: an entity id names an entity of its own document only."""

    documents: int
    tokens: int = 0
    empty_nodes: int = 0
    sentences: int = 0
    markables: int = 0
    discontinuous: int = 0
    entities: int = 0
    chains: int = 0
    singletons: int = 0
    links: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def totals(documents: Iterable[DocumentInfo | Totals]) -> Totals:
    """The sum of the counts of ``documents`` (descriptions of documents, or totals of
    files for the total of a corpus)."""
    counts: Counter[str] = Counter()
    links: Counter[str] = Counter()
    n = 0
    for d in documents:
        n += d.documents if isinstance(d, Totals) else 1
        counts.update({name: getattr(d, name) for name in COUNTS})
        links.update(d.links)
    return Totals(n, **{name: counts[name] for name in COUNTS}, links=dict(sorted(links.items())))


def document_info(doc: Document) -> DocumentInfo:
    """Count the tokens, sentences, markables, entities, chains and links of ``doc``."""
    chains = doc.chain_indices()
    empty = len(doc.tokens.empty or ())
    return DocumentInfo(
        name=doc.name,
        part=doc.part,
        tokens=len(doc.tokens.forms) - empty,
        empty_nodes=empty,
        sentences=len(doc.sentences),
        markables=len(doc.markables),
        discontinuous=sum(1 for m in doc.markables if len(m.spans) > 1),
        entities=len(doc.entity_ids()),
        chains=len(chains),
        singletons=sum(1 for chain in chains if len(chain) == 1),
        links=dict(sorted(Counter(link.type for link in doc.links).items())),
    )


def corpus_info(documents: Iterable[Document]) -> list[DocumentInfo]:
    """:func:`document_info` of every document of a corpus, in order."""
    return [document_info(doc) for doc in documents]
