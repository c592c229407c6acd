"""The edit API: the one way to change a document after it was built.

Documents are immutable (pydantic models with ``frozen=True``; their lists must not be
changed in place). Synchronisation, repair and renumbering go through an editor::

    editor = doc.edit()
    editor.remove_markables({"markable_4"})
    editor.add_markable(Markable(id="m9", spans=((3, 4),)))
    editor.renumber_markables(lambda m, k: f"markable_{k + 1}")
    new_doc = editor.commit(report)

:meth:`DocumentEditor.commit` builds a new document, checks every invariant
(:class:`~corefio.errors.ModelError` if one breaks) and drops each format layout that
depends on a part the edit touched, with a ``layout.dropped`` info diagnostic: a writer
never uses layout that no longer fits.

Removing a markable removes what pointed at it: a link whose source is gone, or whose
every target is gone, is removed; a link that keeps some targets keeps only those. A
link to an entity loses that target when the entity's last markable goes and no
:class:`Entity` declares it.
The counts are reported (``edit.link-removed``, ``edit.link-target-removed``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from .mentions import markable_ref

if TYPE_CHECKING:
    from ..diagnostics import Report
    from .document import Document, Entity, Link, Markable


class DocumentEditor:
    """Collects changes to a document; :meth:`commit` applies and checks them."""

    def __init__(self, doc: "Document") -> None:
        self.doc = doc
        self.markables: list[Markable] = list(doc.markables)
        self.links: list[Link] = list(doc.links)
        self.entities: list[Entity] = list(doc.entities)
        self.edited: set[str] = set()
        self._removed_links = 0
        self._trimmed_links = 0

    # -- markables --------------------------------------------------------------------
    def add_markable(self, markable: "Markable") -> None:
        self.markables.append(markable)
        self.edited.add("markables")

    def set_markables(self, markables: Iterable["Markable"]) -> None:
        """Replace every markable (links are kept; :meth:`commit` checks their ends)."""
        self.markables = list(markables)
        self.edited.add("markables")

    def remove_markables(self, refs: Iterable[str]) -> int:
        """Remove the markables with these refs (``id`` or ``layer:id``) and what pointed
        at them; returns how many markables were removed."""
        gone = set(refs)
        before = len(self.markables)
        self.markables = [m for m in self.markables if m.ref not in gone]
        removed = before - len(self.markables)
        if not removed:
            return 0
        self.edited.add("markables")
        # an entity named only by markables (undeclared, as CoNLL-U's) goes with its last
        # markable, and links to it (CorefUD bridging) with it
        alive = {e.id for e in self.entities} | {m.entity for m in self.markables if m.entity is not None}
        kept: list[Link] = []
        for link in self.links:
            if link.source in gone:
                self._removed_links += 1
                continue
            dead = gone if link.target_kind == "markable" else {t for t in link.targets if t not in alive}
            if dead.intersection(link.targets):
                targets = tuple(t for t in link.targets if t not in dead)
                if not targets:
                    self._removed_links += 1
                    continue
                self._trimmed_links += 1
                link = link.model_copy(update={"targets": targets})
            kept.append(link)
        if len(kept) != len(self.links) or self._trimmed_links:
            self.edited.add("links")
        self.links = kept
        return removed

    def renumber_markables(self, new_id: Callable[["Markable", int], str]) -> dict[str, str]:
        """Give every markable the id ``new_id(markable, position)``; links follow.
        Returns the old ref → new ref mapping."""
        mapping: dict[str, str] = {}
        new_ids: list[str] = []
        for k, m in enumerate(self.markables):
            nid = new_id(m, k)
            mapping[m.ref] = markable_ref(nid, m.layer)
            new_ids.append(nid)
        # the renamed markables built at once without validation (model_copy costs about
        # 5 µs each, a third of synchronising a corpus); commit() checks the document
        renamed = list(self.markables)
        changed = [k for k, (m, nid) in enumerate(zip(renamed, new_ids)) if nid != m.id]
        if changed:
            from .document import Markable as _Markable

            copies = _Markable._make_many({**renamed[k].__dict__, "id": new_ids[k]} for k in changed)
            for k, copy in zip(changed, copies):
                renamed[k] = copy
        self.markables = renamed
        self.links = [
            link.model_copy(update={
                "source": mapping.get(link.source, link.source),
                "targets": tuple(mapping.get(t, t) for t in link.targets)
                if link.target_kind == "markable" else link.targets,
            })
            for link in self.links
        ]
        self.edited.update({"markables", "links"})
        return mapping

    def update_markable(self, ref: str, **changes: object) -> None:
        """Change fields of one markable (spans, entity, head, attributes...)."""
        for k, m in enumerate(self.markables):
            if m.ref == ref:
                self.markables[k] = m.model_copy(update=changes)
                self.edited.add("markables")
                return
        raise KeyError(ref)

    # -- links and entities -----------------------------------------------------------
    def set_links(self, links: Iterable["Link"]) -> None:
        self.links = list(links)
        self.edited.add("links")

    def add_link(self, link: "Link") -> None:
        self.links.append(link)
        self.edited.add("links")

    def set_entities(self, entities: Iterable["Entity"]) -> None:
        self.entities = list(entities)
        self.edited.add("entities")

    # -- applying ---------------------------------------------------------------------
    def commit(self, report: "Report | None" = None) -> "Document":
        """The edited document, checked; layouts that no longer fit are dropped."""
        from .document import Document

        doc = self.doc
        edited = frozenset(self.edited)
        layout = {}
        for name, item in doc.layout.items():
            if item.fits(edited):
                layout[name] = item
            elif report is not None:
                report.info("layout.dropped",
                            f"{name} layout dropped: the edit changed {', '.join(sorted(edited & item.depends_on))}",
                            document=doc.label)
        if report is not None:
            if self._removed_links:
                report.info("edit.link-removed", "links removed with the markables they joined",
                            document=doc.label, count=self._removed_links)
            if self._trimmed_links:
                report.info("edit.link-target-removed", "link targets removed with their markables",
                            document=doc.label, count=self._trimmed_links)
        values = {name: getattr(doc, name) for name in Document.model_fields}
        values.update(markables=self.markables, links=self.links, entities=self.entities, layout=layout)
        return Document.build(**values)
