"""The pivot model: the RAF model of Popescu-Belis et al. (2004, Figure 1), extended for MUC, MMAX2 and MATE.

=====================  ==========================================================
:mod:`.document`       Corpus, Document, Tokens, Sentence, Region, Markable, Entity,
                       Link: the data and its invariants, derived chains
:mod:`.mentions`       what chains are built from and scoring reads (Mention,
                       MentionView), free of the document classes
:mod:`.zeros`          zero mentions (CoNLL-U empty nodes): their places in the text
:mod:`.scheme`         annotation schemes (attribute names, types, allowed values)
:mod:`.layout`         format-owned layout (what only one format can use)
:mod:`.edit`           the edit API: add, remove, renumber markables, then re-check
:mod:`.schema`         untrusted data validated into the model; its JSON Schema
:mod:`.crossdoc`       entities across documents, topics, units of CDCR scoring
=====================  ==========================================================

May import: :mod:`corefio.errors`, :mod:`corefio.diagnostics`. Everything else builds
on this package.

The package imports its modules when a name is first asked for: scoring CoNLL files
needs :mod:`.mentions` and :mod:`.layout` only, and ``import corefio.model.mentions``
then loads neither the document classes nor pydantic (the annotation schemes').
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: public name → the module of this package that defines it
_WHERE = {
    **dict.fromkeys(("BRIDGING", "COREFERENCE", "IDENTITY_LINK_TYPES", "POS_COLUMNS", "SPLIT_ANTECEDENT", "Mention",
                     "MentionChains", "MentionView", "document_key", "document_label", "is_identity",
                     "markable_ref"), "mentions"),
    **dict.fromkeys(("AttrValue", "Corpus", "CrossEntity", "Document", "Entity", "Link", "Markable", "Region",
                     "Sentence", "Span",
                     "Tokens", "contiguous_spans"), "document"),
    "DocumentEditor": "edit",
    "FormatLayout": "layout",
    "GenericLayout": "layout",
    **dict.fromkeys(("Scheme", "SchemeAttribute", "SchemeValue"), "scheme"),
}

__all__ = [
    "AttrValue",
    "BRIDGING",
    "COREFERENCE",
    "Corpus",
    "CrossEntity",
    "Document",
    "DocumentEditor",
    "Entity",
    "FormatLayout",
    "GenericLayout",
    "IDENTITY_LINK_TYPES",
    "Link",
    "Markable",
    "Mention",
    "MentionChains",
    "MentionView",
    "POS_COLUMNS",
    "Region",
    "SPLIT_ANTECEDENT",
    "Scheme",
    "SchemeAttribute",
    "SchemeValue",
    "Sentence",
    "Span",
    "Tokens",
    "contiguous_spans",
    "document_key",
    "document_label",
    "is_identity",
    "markable_ref",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'corefio.model' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))


if TYPE_CHECKING:  # what type checkers and editors see
    from .document import (AttrValue, Corpus, CrossEntity, Document, Entity, Link, Markable, Region, Sentence, Span,
                           Tokens, contiguous_spans)
    from .edit import DocumentEditor
    from .layout import FormatLayout, GenericLayout
    from .mentions import (BRIDGING, COREFERENCE, IDENTITY_LINK_TYPES, POS_COLUMNS, SPLIT_ANTECEDENT, Mention,
                           MentionChains, MentionView, document_key, document_label, is_identity, markable_ref)
    from .scheme import Scheme, SchemeAttribute, SchemeValue
