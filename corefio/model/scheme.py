"""Annotation schemes: which attributes a markable layer has, their types and values.

MMAX2 declares one scheme per level (``Schemes/*.xml``); MATE and the RAF pivot can
carry the same information. A scheme lives at corpus level (``Corpus.schemes``), so a
writer can emit it and a validator can check attribute values against it.

Attribute types follow MMAX2's, which cover what the other formats need:

=====================  ===========================================================
``nominal_button``     one value out of a short closed list
``nominal_list``       one value out of a closed list
``freetext``           any string
``markable_set``       membership of a set of markables (``set_N``): the value is a
                       set id, kept in ``Markable.entity`` (identity) or
                       ``Markable.sets`` (other sets)
``markable_pointer``   pointers to other markables: kept as :class:`~corefio.model.Link`
=====================  ===========================================================

Names and values are compared case-insensitively (MMAX2 lower-cases them on save).

Unlike the document records, schemes are pydantic models: a corpus has a handful of them,
they come from files a reader does not otherwise check (MMAX2 scheme XML, the JSON a RAF
file embeds), and pydantic validates that input and gives the RAF writer its JSON.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

AttributeType = Literal["nominal_button", "nominal_list", "freetext", "markable_set", "markable_pointer"]


class SchemeValue(BaseModel):
    """An allowed value; ``next`` names attributes that this value switches on
    (MMAX2's branching schemes)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    next: tuple[str, ...] = ()


class SchemeAttribute(BaseModel):
    """One attribute of a scheme."""

    model_config = ConfigDict(extra="forbid")

    name: str
    type: AttributeType = "freetext"
    values: list[SchemeValue] = Field(default_factory=list)
    default: str | None = None
    #: this set or pointer attribute means coreference (identity): the reader put its
    #: values into ``Markable.entity`` (sets) or identity links (pointers)
    identity: bool = False
    #: the link type a pointer attribute's links get (``markable_pointer`` only)
    link_type: str | None = None
    #: MMAX2's ``id`` of the attribute element, kept to write the scheme back
    source_id: str | None = None

    def allows(self, value: str) -> bool:
        """Is ``value`` allowed (closed lists only; case-insensitive)?"""
        if self.type not in ("nominal_button", "nominal_list") or not self.values:
            return True
        low = value.lower()
        return any(v.name.lower() == low for v in self.values)


class Scheme(BaseModel):
    """The attributes of one markable layer (``layer=None``: the default layer)."""

    model_config = ConfigDict(extra="forbid")

    layer: str | None = None
    name: str | None = None
    attributes: list[SchemeAttribute] = Field(default_factory=list)

    def attribute(self, name: str) -> SchemeAttribute | None:
        low = name.lower()
        return next((a for a in self.attributes if a.name.lower() == low), None)

    def identity_attributes(self) -> list[SchemeAttribute]:
        return [a for a in self.attributes if a.identity]
