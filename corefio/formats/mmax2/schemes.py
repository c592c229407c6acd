"""Annotation scheme files: ``<annotationscheme>`` with one ``<attribute>`` per attribute.

An attribute has an ``id``, a ``name`` and a ``type`` (``nominal_button``,
``nominal_list``, ``freetext``, ``markable_set``, ``markable_pointer``); its ``<value>``
children list the allowed values, a value's ``next`` naming the attribute ids it
switches on (branching schemes). MMAX2 lower-cases attribute names and values when it
saves markables, so a scheme's ``Anaphor_antecedent`` is the files' ``anaphor_antecedent``:
names are compared case-insensitively.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

from ...model.scheme import Scheme, SchemeAttribute, SchemeValue
from ...io.xmlsafe import parse_xml
from .levels import is_attribute_name

TYPES = ("nominal_button", "nominal_list", "freetext", "markable_set", "markable_pointer")
RELATION_TYPES = ("markable_set", "markable_pointer")
#: attribute names that say coreference (besides any name containing "coref")
IDENTITY_NAMES = frozenset({"ref", "anaphor_antecedent", "dir_antecedent", "antecedent", "coref_set",
                            "coref_class", "coref_chain", "coreference", "identity", "ident"})


def says_identity(name: str) -> bool:
    low = name.lower()
    return low in IDENTITY_NAMES or "coref" in low


def parse_scheme(data: bytes, file: Path | str, level: str, report: Any) -> Scheme:
    """A scheme file as a :class:`Scheme` of layer ``level`` (identity not decided yet)."""
    root = parse_xml(data, file=file).getroot()
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
        attributes.append(SchemeAttribute(name=name, type=kind, values=values,  # type: ignore[arg-type]
                                          source_id=el.get("id")))
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
