"""The pydantic-free part of the model: what chains are built from and what scoring reads.

Kept apart from :mod:`corefio.model` so that scoring CoNLL files, which goes straight
from the text to :class:`MentionChains`, never has to import pydantic.
"""

from __future__ import annotations

from typing import NamedTuple

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
    if part is not None and part.isascii() and part.isdigit():
        part = part.lstrip("0") or "0"  # not int(): a 5,000-digit part is still a part
    return (name, part)


def is_identity(link_type: str) -> bool:
    """True when a link of this type makes its ends corefer."""
    return link_type in IDENTITY_LINK_TYPES


#: token attributes that hold part-of-speech tags, in order of preference
POS_COLUMNS = ("pos", "xpos", "upos")


def markable_ref(id: str, layer: str | None) -> str:
    """How links name a markable: its id in the default layer, ``layer:id`` elsewhere
    (MMAX2 writes cross-level pointers the same way: ``secmark:markable_12``)."""
    return id if layer is None else f"{layer}:{id}"


class Mention(NamedTuple):
    """One mention as scoring, matching and synchronisation see it."""

    spans: tuple[tuple[int, int], ...]
    id: str | None = None
    layer: str | None = None
    head: tuple[tuple[int, int], ...] | None = None
    #: MUC MIN alternatives (each a contiguous span)
    min: tuple[tuple[int, int], ...] | None = None
    optional: bool = False
    attributes: dict | None = None
    #: for a zero mention (its head is an empty token): its sentence and enhanced
    #: dependencies (:mod:`corefio.model.zeros`); None for every other mention
    zero: tuple | None = None


class MentionView:
    """A document reduced to what scoring reads: its label, word forms, optional POS
    tags, and its chains (in document order) as lists of :class:`Mention`.

    :meth:`corefio.model.Document.mention_view` builds it; the CoNLL reader builds the
    same view straight from its parser when scoring (without pydantic objects).
    """

    __slots__ = ("label", "forms", "mentions", "pos", "places")

    def __init__(self, label: str, forms: list[str], mentions: list[list[Mention]],
                 pos: list[str | None] | None = None, places: list[tuple[int, int, int]] | None = None) -> None:
        self.label, self.forms, self.mentions, self.pos = label, forms, mentions, pos
        #: when the document has empty tokens: every token's place, the same in every
        #: file of the text (:mod:`corefio.model.zeros`); None otherwise
        self.places = places

    @property
    def chains(self) -> list[list[tuple]]:
        """The chains as lists of mention spans."""
        return [[m.spans for m in chain] for chain in self.mentions]

    @property
    def attributes(self) -> list[list[dict]] | None:
        """Markable attributes parallel to :attr:`chains` (None when no mention has any)."""
        if not any(m.attributes for chain in self.mentions for m in chain):
            return None
        return [[m.attributes or {} for m in chain] for chain in self.mentions]

    def mention_view(self, pos: bool = True) -> "MentionView":
        return self

    mention_chains = mention_view


#: former name of :class:`MentionView`
MentionChains = MentionView
