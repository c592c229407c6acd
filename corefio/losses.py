"""Loss reporting for writers: one diagnostic per kind of loss, with counts.

A writer that cannot express something calls :meth:`LossLog.lose`; events of one kind in
one document are merged into a single ``loss.<kind>`` diagnostic whose ``count`` says how
many items were affected. In strict mode :func:`corefio.write` refuses to write when any
loss was reported (exit code 5 on the command line).
"""

from __future__ import annotations

from collections import Counter

from .diagnostics import Report
from .chains import is_identity
from ._lazy import LazyModule

#: the pydantic model, imported on first use (scoring CoNLL never needs it)
model = LazyModule("corefio.model")


class LossLog:
    def __init__(self, report: Report, format_name: str) -> None:
        self.report = report
        self.format_name = format_name

    def lose(
        self,
        kind: str,
        message: str,
        *,
        document: model.Document | None = None,
        count: int = 1,
        example: str | None = None,
        severity: str = "warning",
    ) -> None:
        if count <= 0:
            return
        self.report.add(
            f"loss.{kind}",
            severity,  # type: ignore[arg-type]
            f"{self.format_name} cannot express {message}; dropped",
            document=document.label if document is not None else None,
            count=count,
            merge=True,
            example=example,
        )

    # -- checks shared by several writers ------------------------------------------------
    def non_identity_links(self, doc: model.Document) -> None:
        by_type = Counter(link.type for link in doc.links if not is_identity(link.type))
        for ltype, n in sorted(by_type.items()):
            self.lose("link-type", f"{ltype!r} links", document=doc, count=n)

    def identity_link_structure(self, doc: model.Document) -> None:
        n = sum(1 for link in doc.links if is_identity(link.type))
        self.lose(
            "link-structure",
            "which antecedent each identity link points to (only the chains are kept)",
            document=doc,
            count=n,
        )

    def markable_attributes(self, doc: model.Document, keep: frozenset[str] = frozenset()) -> None:
        counts: Counter[str] = Counter()
        for m in doc.markables:
            for name in m.attributes:
                if name not in keep:
                    counts[name] += 1
        for name, n in sorted(counts.items()):
            self.lose("markable-attribute", f"markable attribute {name!r}", document=doc, count=n)

    def entity_attributes(self, doc: model.Document, keep: frozenset[str] = frozenset()) -> None:
        counts: Counter[str] = Counter()
        for e in doc.entities:
            for name in e.attributes:
                if name not in keep:
                    counts[name] += 1
        for name, n in sorted(counts.items()):
            self.lose("entity-attribute", f"entity attribute {name!r}", document=doc, count=n)

    def heads(self, doc: model.Document) -> None:
        n = sum(1 for m in doc.markables if m.head is not None)
        self.lose("head", "markable heads (MIN spans)", document=doc, count=n)

    def token_attributes(self, doc: model.Document, keep: frozenset[str] = frozenset()) -> None:
        for name, column in doc.tokens.attributes.items():
            if name in keep or name.startswith("layout:"):
                continue
            n = sum(1 for v in column if v is not None)
            self.lose("token-attribute", f"token attribute {name!r}", document=doc, count=n)

    def whitespace_and_offsets(self, doc: model.Document) -> None:
        if doc.tokens.whitespace is not None:
            self.lose("whitespace", "the exact whitespace between tokens", document=doc,
                      count=len(doc.tokens.forms))
        if doc.tokens.offsets is not None:
            self.lose("offsets", "character offsets of tokens", document=doc, count=len(doc.tokens.forms))

    def discontinuous(self, doc: model.Document, instead: str) -> None:
        found = [m for m in doc.markables if len(m.spans) > 1]
        self.lose(
            "discontinuous-mention",
            f"discontinuous mentions (written as {instead})",
            document=doc,
            count=len(found),
            example=found[0].id if found else None,
        )
