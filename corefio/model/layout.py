"""Format-owned layout: what only one format can use, kept in a slot that format owns.

pandoc keeps a raw block of HTML inside its AST for the HTML writer and lets every other
writer skip it. corefio does the same for layout: the CoNLL column arrangement, CoNLL-U
multi-word-token lines, the extra fields of a jsonlines object, MUC's attribute order.
A reader stores such things in ``Document.layout[<format name>]`` as an instance of its
own :class:`FormatLayout` subclass. Then:

* the owning writer uses it to give back the source byte for byte;
* every other writer ignores it, **without** a loss diagnostic (layout is not content);
* an edit of the document (:mod:`corefio.model.edit`: synchronisation, repair,
  renumbering) drops each layout that depends on what was edited, and says so in an
  ``layout.dropped`` info diagnostic. A writer never meets a stale layout.

A source field that corefio does not understand is kept in a layout too (``extra``),
never dropped silently.

This module lives outside :mod:`corefio.model` so that a format module can define its
layout without importing the pydantic model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

#: the parts of a document a layout can depend on (what an edit can change)
Part = Literal["tokens", "sentences", "markables", "links", "entities", "text"]


@dataclass
class FormatLayout:
    """Base class of the layout a format keeps about one document.

    Subclasses (one per format, defined in the format's module) add typed fields.
    ``depends_on`` names the parts of the document the layout describes: an edit of
    any of them drops the layout. ``extra`` holds source fields corefio does not
    interpret, written back by the owning writer.
    """

    #: the registered name of the owning format
    format: ClassVar[str] = ""
    #: what an edit must not touch for this layout to stay valid
    depends_on: ClassVar[frozenset[str]] = frozenset({"tokens", "sentences", "markables", "links", "entities"})

    extra: dict[str, Any] = field(default_factory=dict)

    def fits(self, edited: frozenset[str]) -> bool:
        """Does this layout survive an edit of the ``edited`` parts?"""
        return not (self.depends_on & edited)


@dataclass
class GenericLayout(FormatLayout):
    """Layout of a format that needs no typed fields: just the uninterpreted extras."""

    owner: str = ""
