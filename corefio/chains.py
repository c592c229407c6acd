"""The pydantic-free part of the model: what chains are built from and what scoring reads.

Kept apart from :mod:`corefio.model` so that scoring CoNLL files, which goes straight
from the text to :class:`MentionChains`, never has to import pydantic.
"""

from __future__ import annotations

#: canonical name of the identity (coreference) link type
COREFERENCE = "coreference"
BRIDGING = "bridging"
SPLIT_ANTECEDENT = "split_antecedent"
#: link types that mean identity and therefore build chains
IDENTITY_LINK_TYPES = frozenset({COREFERENCE, "identity", "ident", "coref", "IDENT"})


def document_label(name: str, part: str | None) -> str:
    """How messages and score reports name a document: ``NAME`` or ``NAME (part P)``."""
    return name if part is None else f"{name} (part {part})"


def document_key(name: str, part: str | None) -> tuple[str, str | None]:
    """What documents are matched by when scoring: (name, part), numeric parts compared
    as numbers (CoNLL ``part 0`` and ``part 000`` are the same part)."""
    if part is not None and part.isdigit():
        part = str(int(part))
    return (name, part)


def is_identity(link_type: str) -> bool:
    """True when a link of this type makes its ends corefer."""
    return link_type in IDENTITY_LINK_TYPES


#: token attributes that hold part-of-speech tags, in order of preference
POS_COLUMNS = ("pos", "xpos", "upos")


class MentionChains:
    """A document reduced to what scoring reads: its label, word forms, optional POS tags,
    and its chains (in document order) as lists of mention spans; ``attributes``, when
    any markable has some, runs parallel to ``chains``. Readers can produce it without
    building a :class:`Document` (the CoNLL reader does when scoring)."""

    __slots__ = ("label", "forms", "chains", "pos", "attributes")

    def __init__(self, label: str, forms: list[str], chains: list[list[tuple]],
                 pos: list[str | None] | None = None, attributes: list[list[dict]] | None = None) -> None:
        self.label, self.forms, self.chains, self.pos, self.attributes = label, forms, chains, pos, attributes

    def mention_chains(self, pos: bool = True) -> "MentionChains":
        return self
