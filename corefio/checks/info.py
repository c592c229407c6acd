"""What a document holds, in numbers: the figures ``corefio info`` prints.

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

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def document_info(doc: Document) -> DocumentInfo:
    """Count the tokens, sentences, markables, entities, chains and links of ``doc``."""
    chains = doc.chain_indices()
    return DocumentInfo(
        name=doc.name,
        part=doc.part,
        tokens=len(doc.tokens.forms),
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
