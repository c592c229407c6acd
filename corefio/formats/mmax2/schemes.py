"""Annotation scheme files: ``<annotationscheme>`` with one ``<attribute>`` per attribute.

An attribute has an ``id``, a ``name`` and a ``type`` (``nominal_button``,
``nominal_list``, ``freetext``, ``markable_set``, ``markable_pointer``); its ``<value>``
children list the allowed values, a value's ``next`` naming the attribute ids it
switches on (branching schemes). MMAX2 lower-cases attribute names and values when it
saves markables, so a scheme's ``Anaphor_antecedent`` is the files' ``anaphor_antecedent``:
names are compared case-insensitively.

Which set or pointer attribute means coreference (identity) is nowhere declared; corefio
reads it from what the scheme says (:func:`says_identity`):

1. the attribute's name is one of :data:`IDENTITY_NAMES` (``ref``, ``antecedent``,
   ``anaphor_antecedent``, ``coref_set``…); else
2. one of these texts says so: the name, the attribute element's ``id``, and the texts
   MMAX2 shows the annotator for it (``text``, ``point_to_markable_text``,
   ``add_to_markableset_text``; not those for undoing, which schemes copy from one
   attribute to the next). A text says so when, lower-cased (ASCII) with every
   character of :data:`SEPARATORS` made ``_`` and ``_`` put around it, it contains
   ``coref`` or a word starting with ``ident`` (``_ident``: ``identical_antecedent``,
   ``level_identity``, "Mark as coreferent/identical") and none of
   :data:`NOT_IDENTITY` (``_near_``, ``_non_``, ``bridg``…: ``NIDENT_antecedent``,
   "Mark as near-identical", ``coref_bridging``).

``xslt/mmax2-to-raf.xsl`` applies the same rule (the same lists).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

from ...model.scheme import Scheme, SchemeAttribute, SchemeValue
from .levels import is_attribute_name

TYPES = ("nominal_button", "nominal_list", "freetext", "markable_set", "markable_pointer")
RELATION_TYPES = ("markable_set", "markable_pointer")
#: attribute names that say coreference (besides any name containing "coref")
IDENTITY_NAMES = frozenset({"ref", "anaphor_antecedent", "dir_antecedent", "antecedent", "coref_set",
                            "coref_class", "coref_chain", "coreference", "identity", "ident"})
#: the characters that separate words in names and texts (each becomes ``_``)
SEPARATORS = " \t\n\r-./,;:!?()[]{}'\"&|+*=<>#@~^%$"
#: what says a text is not about identity, though it speaks of it (near-identity, bridging)
NOT_IDENTITY = ("_near_", "_non_", "_not_", "_no_", "_quasi_", "_partial_", "bridg", "_nident")
#: the attributes of a scheme's ``<attribute>`` element that say what it means
MEANING_TEXTS = ("id", "text", "point_to_markable_text", "add_to_markableset_text")
_WORDS = str.maketrans({**{c: "_" for c in SEPARATORS}, **{chr(k): chr(k + 32) for k in range(65, 91)}})


def says_identity(name: str, texts: tuple[str, ...] = ()) -> bool:
    """Whether an attribute called ``name``, whose scheme says ``texts`` of it, means
    coreference (the rule is in the module's docstring)."""
    if name.lower() in IDENTITY_NAMES:
        return True
    for text in (name, *texts):
        words = "_" + text.translate(_WORDS) + "_"
        if ("coref" in words or "_ident" in words) and not any(no in words for no in NOT_IDENTITY):
            return True
    return False


def parse_scheme(data: bytes, file: Path | str, level: str, report: Any) -> Scheme:
    """A scheme file as a :class:`Scheme` of layer ``level`` (identity not decided yet)."""
    from .project import parse_project_xml

    root = parse_project_xml(data, file).getroot()
    attributes: list[SchemeAttribute] = []
    ids: dict[str, str] = {}
    for el in root.iter("attribute"):
        name = el.get("name")
        if not name:
            report.warning("mmax2.scheme", "scheme attribute without a name; ignored", file=str(file),
                           line=el.sourceline)
            continue
        if not is_attribute_name(name):
            report.warning("mmax2.scheme", f"scheme attribute name {name!r} is not an attribute name a markable "
                           "can carry; ignored", file=str(file), line=el.sourceline)
            continue
        kind = (el.get("type") or "freetext").lower()
        if kind not in TYPES:
            report.warning("mmax2.scheme", f"unknown attribute type {kind!r} of {name!r}: read as freetext",
                           file=str(file), line=el.sourceline)
            kind = "freetext"
        if el.get("id"):
            ids[el.get("id")] = name
        values = [SchemeValue(name=v.get("name") or "", next=tuple(x for x in (v.get("next") or "").split(",") if x))
                  for v in el.iter("value") if v.get("name")]
        # identity here means "the scheme's texts say coreference" (the reader decides)
        texts = tuple(el.get(key) or "" for key in MEANING_TEXTS)
        attributes.append(SchemeAttribute(name=name, type=kind, values=values,  # type: ignore[arg-type]
                                          source_id=el.get("id"),
                                          identity=kind in RELATION_TYPES and says_identity(name, texts)))
    return Scheme(layer=level, name=level, attributes=attributes)


def scheme_xml(scheme: Scheme) -> bytes:
    """A scheme file for ``scheme`` (written when no source file fits)."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n<annotationscheme>\n']
    for k, a in enumerate(scheme.attributes):
        aid = a.source_id or f"level_{_safe(a.name)}_{k}"
        extra = ""
        if a.type == "markable_pointer":
            extra = ' color="red" width="2" style="lcurve" max_size=""'
        elif a.type == "markable_set":
            extra = ' color="blue" width="2" style="straight" ordering="document"'
        out.append(f"<attribute id={quoteattr(aid)} name={quoteattr(a.name)} type={quoteattr(a.type)}{extra}>\n")
        values = a.values
        if not values and a.type in ("freetext", "markable_set", "markable_pointer"):
            values = [SchemeValue(name="")]  # MMAX2 expects at least one value element
        for j, v in enumerate(values):
            nxt = f" next={quoteattr(','.join(v.next))}" if v.next else ""
            out.append(f"  <value id={quoteattr(f'{aid}_value_{j}')} name={quoteattr(v.name)}{nxt}/>\n")
        out.append("</attribute>\n")
    out.append("</annotationscheme>\n")
    return "".join(out).encode("utf-8")


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)
