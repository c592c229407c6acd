"""Diagnostics: every problem or loss corefio notices, with a stable code.

A :class:`Diagnostic` has a code (stable, dotted, e.g. ``loss.discontinuous-mention``),
a severity, a location and a message. A :class:`Report` collects them; readers and
writers receive a report and add to it instead of printing. Repeated events of one kind
in one document are merged into one diagnostic with a ``count`` so that a writer that
drops 3,000 attributes says so once, with the number.

Codes in use (the list is part of the documented interface):

=============================== =========================================================
``loss.*``                      a writer could not express something and dropped it
``conll.*`` ``conllu.*`` ...    reader findings specific to one format
``model.*``                     invariant checks of the pivot model
``xml.*``                       XML well-formedness and safety
``schema.*``                    XSD validation
``score.*``                     scoring (duplicate mentions, unmatched documents...)
=============================== =========================================================
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Literal

from .errors import CorefioError, StrictModeError

Severity = Literal["error", "warning", "info"]
SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}


@dataclass(slots=True)
class Diagnostic:
    """One finding: stable code, severity, message, where, and how many times.

    Slotted (a third smaller): a report may hold one for each document of a large
    corpus (``sync`` of the 100x benchmark corpus: four a document pair, 112,000)."""

    code: str
    severity: Severity
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    document: str | None = None
    count: int = 1
    examples: list[str] = field(default_factory=list)

    @property
    def location(self) -> str:
        parts = []
        if self.file:
            parts.append(self.file)
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def format(self) -> str:
        """One line for humans: ``file:line: warning[code]: message (×count)``."""
        where = self.location
        head = f"{where}: " if where else ""
        doc = f" [document {self.document!r}]" if self.document is not None else ""
        times = f" ({self.count} times)" if self.count > 1 else ""
        text = f"{head}{self.severity}[{self.code}]: {self.message}{doc}{times}"
        if self.examples:
            text += "; e.g. " + ", ".join(self.examples[:3])
        return text

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v not in (None, [])}


@dataclass
class DiagnosticGroup:
    """Diagnostics of one code and severity: the first one and the others."""

    first: Diagnostic
    others: list[Diagnostic] = field(default_factory=list)

    @property
    def count(self) -> int:
        """How many times it happened in all (merged repeats included)."""
        return self.first.count + sum(d.count for d in self.others)

    def format(self) -> str:
        """The first diagnostic's line (where it happened first), then how many there
        were in all and in how many places (documents, files or lines)."""
        if not self.others:
            return self.first.format()
        places = 1 + len(self.others)
        return f"{self.first.format()} [{self.count} in all, in {places} places; -v lists them]"


class Report:
    """An ordered collection of diagnostics, merging repeats of the same event kind."""

    def __init__(self, file: str | None = None) -> None:
        self.file = file
        self._items: list[Diagnostic] = []
        self._merge: dict[tuple, Diagnostic] = {}

    # -- adding -----------------------------------------------------------------------
    def add(
        self,
        code: str,
        severity: Severity,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        document: str | None = None,
        file: str | None = None,
        count: int = 1,
        merge: bool = False,
        example: str | None = None,
    ) -> Diagnostic:
        """Record a diagnostic.

        With ``merge=True`` a second event with the same code, severity, message and
        document only increments ``count`` (and collects up to five ``example``\\ s).
        """
        file = file if file is not None else self.file
        # the same text, made anew for each document it concerns, is kept once
        message = sys.intern(message)
        if merge:
            key = (code, severity, message, document, file)
            found = self._merge.get(key)
            if found is not None:
                found.count += count
                if example is not None and len(found.examples) < 5:
                    found.examples.append(example)
                return found
        diag = Diagnostic(code, severity, message, file, line, column, document, count)
        if example is not None:
            diag.examples.append(example)
        self._items.append(diag)
        if merge:
            self._merge[(code, severity, message, document, file)] = diag
        return diag

    def error(self, code: str, message: str, **kw) -> Diagnostic:
        return self.add(code, "error", message, **kw)

    def warning(self, code: str, message: str, **kw) -> Diagnostic:
        return self.add(code, "warning", message, **kw)

    def info(self, code: str, message: str, **kw) -> Diagnostic:
        return self.add(code, "info", message, **kw)

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        for d in diagnostics:
            self._items.append(d)

    def absorb(self, diagnostics: Iterable[Diagnostic]) -> None:
        """Add diagnostics from elsewhere (another process), merging identical ones."""
        for d in diagnostics:
            key = (d.code, d.severity, d.message, d.document, d.file, d.line)
            found = self._merge.get(("absorb",) + key)
            if found is not None:
                found.count += d.count
                found.examples.extend(d.examples[: max(0, 5 - len(found.examples))])
                continue
            copy = Diagnostic(d.code, d.severity, d.message, d.file, d.line, d.column, d.document,
                              d.count, list(d.examples))
            self._items.append(copy)
            self._merge[("absorb",) + key] = copy

    def add_error(self, error: CorefioError, code: str = "error") -> Diagnostic:
        """Record a raised :class:`CorefioError` as an error diagnostic."""
        return self.add(
            code, "error", error.message, line=error.line, column=error.column, file=error.file
        )

    # -- reading ----------------------------------------------------------------------
    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:  # a report is an object even when empty
        return True

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return list(self._items)

    def by_code(self, code: str) -> list[Diagnostic]:
        return [d for d in self._items if d.code == code]

    def codes(self) -> set[str]:
        return {d.code for d in self._items}

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self._items if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self._items if d.severity == "warning"]

    @staticmethod
    def group(diagnostics: Iterable[Diagnostic]) -> list["DiagnosticGroup"]:
        """The diagnostics by code and severity, in the order of each group's first one
        (one line per kind of finding, where a corpus repeats one in every document)."""
        groups: dict[tuple[str, str], DiagnosticGroup] = {}
        for d in diagnostics:
            key = (d.code, d.severity)
            if key in groups:
                groups[key].others.append(d)
            else:
                groups[key] = DiagnosticGroup(d)
        return list(groups.values())

    def worst(self) -> Severity | None:
        if not self._items:
            return None
        return max(self._items, key=lambda d: SEVERITY_RANK[d.severity]).severity

    def check_strict(self) -> None:
        """Raise :class:`StrictModeError` if there is any warning or error."""
        bad = [d for d in self._items if d.severity in ("warning", "error")]
        if bad:
            first = bad[0]
            raise StrictModeError(
                f"strict mode: {len(bad)} warning(s)/error(s), first: [{first.code}] {first.message}",
                file=first.file,
                line=first.line,
                column=first.column,
            )

    def to_json(self) -> str:
        return json.dumps([d.to_dict() for d in self._items], ensure_ascii=False, indent=2)

    def format(self) -> str:
        return "\n".join(d.format() for d in self._items)
