"""The pivot model: the RAF model of seed 003 (Figure 1), extended for MUC, MMAX2 and MATE.

=====================  ==========================================================
:mod:`.document`       Corpus, Document, Tokens, Sentence, Region, Markable, Entity,
                       Link: the data and its invariants, derived chains
:mod:`.scheme`         annotation schemes (attribute names, types, allowed values)
:mod:`.layout`         format-owned layout (what only one format can use)
:mod:`.edit`           the edit API: add, remove, renumber markables, then re-check
=====================  ==========================================================
"""

from .mentions import (
    BRIDGING,
    COREFERENCE,
    IDENTITY_LINK_TYPES,
    POS_COLUMNS,
    SPLIT_ANTECEDENT,
    Mention,
    MentionChains,
    MentionView,
    document_key,
    document_label,
    is_identity,
    markable_ref,
)
from .document import (
    AttrValue,
    Corpus,
    Document,
    Entity,
    Link,
    Markable,
    Region,
    Sentence,
    Span,
    Tokens,
    contiguous_spans,
)
from .edit import DocumentEditor
from .layout import FormatLayout, GenericLayout
from .scheme import Scheme, SchemeAttribute, SchemeValue

__all__ = [
    "BRIDGING", "COREFERENCE", "IDENTITY_LINK_TYPES", "POS_COLUMNS", "SPLIT_ANTECEDENT", "AttrValue",
    "Corpus", "Document", "DocumentEditor", "Entity", "FormatLayout", "GenericLayout", "Link", "Markable",
    "Mention", "MentionChains", "MentionView", "Region", "Scheme", "SchemeAttribute", "SchemeValue",
    "Sentence", "Span", "Tokens", "contiguous_spans", "document_key", "document_label", "is_identity",
    "markable_ref",
]
