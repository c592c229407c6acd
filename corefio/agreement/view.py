"""The adjudication view: the annotators of each document side by side with the gold,
every conflict marked and reachable with "next conflict", and the gold to download.

Each column shows the document's words with the mentions of one annotation in brackets,
coloured by chain (a gold chain's colour is used for every annotator's chain that
shares most mentions with it, so that agreeing chains look alike). A mention that is
part of a conflict (:class:`~corefio.agreement.adjudication.Conflict`) carries its
number in every column where it appears (a mention that one annotator lacks shows as
a gap marker in that column at its place); the conflict list gives what each
annotator said and what the vote decided. The page is one self-contained HTML file
(styles and script inside); columns wrap under each other on a narrow screen.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UsageError
from .adjudication import Adjudication

#: hues for chains, away from the conflict colour (red, about 0/360)
_HUES = [30 + (k * 47) % 300 for k in range(300)]


@dataclass
class Word:
    text: str
    opens: list[tuple[int, list[int]]] = field(default_factory=list)  # (hue, its conflicts' numbers)
    closes: int = 0
    gaps: list[list[int]] = field(default_factory=list)  # conflicts of a mention this column lacks, here


@dataclass
class Column:
    name: str
    words: list[Word]
    mentions: int
    chains: int


@dataclass
class DocumentView:
    name: str
    columns: list[Column]
    conflicts: list[dict[str, Any]]


def _chains(document) -> list[list[tuple]]:
    view = document.mention_view(False)
    return [[m.spans for m in chain] for chain in view.mentions]


def _column(name: str, forms: list[str], chains: list[list[tuple]], hue_of: dict[tuple, int],
            conflicts_of: dict[tuple, list[int]]) -> Column:
    words = [Word(f) for f in forms]
    seen: set[tuple] = set()
    marks = []
    for number, chain in enumerate(chains):
        hue = hue_of.get(min(chain), _HUES[number % len(_HUES)]) if chain else 0
        for spans in chain:
            if spans in seen:
                continue
            seen.add(spans)
            marks.append((spans, hue))
    # brackets: longer mentions open first and close last
    for spans, hue in sorted(marks, key=lambda m: (m[0][0][0], -m[0][-1][1])):
        words[spans[0][0]].opens.append((hue, conflicts_of.get(spans, [])))
        words[spans[-1][1]].closes += 1
    for spans, numbers in conflicts_of.items():
        if spans not in seen:
            words[spans[0][0]].gaps.append(numbers)
    return Column(name, words, len(seen), len(chains))


def build(result: Adjudication) -> list[DocumentView]:
    """The data of the page, document by document."""
    if result.study is None:
        raise UsageError("this adjudication keeps no annotations to show (made by merge() without a study)")
    by_document: dict[str, list] = {}
    for c in result.conflicts:
        by_document.setdefault(c.document, []).append(c)
    out = []
    for item, gold in zip(result.study.items, result.gold.documents):
        conflicts = by_document.get(item.label, [])
        numbered: dict[tuple, list[int]] = {}
        for k, c in enumerate(conflicts):  # a mention may have two conflicts (its mention, its chain)
            numbered.setdefault(c.spans, []).append(k + 1)
        gold_chains = _chains(gold)
        hue_of: dict[tuple, int] = {}
        for number, chain in enumerate(gold_chains):
            for spans in chain:
                hue_of.setdefault(spans, _HUES[number % len(_HUES)])
        forms = gold.tokens.forms
        columns = []
        for name, document in zip(result.study.annotators, item.documents):
            if document is None:
                continue
            chains = _chains(document)
            # each annotator chain takes the hue of the gold chain holding most of its mentions
            hues = {}
            for chain in chains:
                votes: dict[int, int] = {}
                for spans in chain:
                    if spans in hue_of:
                        votes[hue_of[spans]] = votes.get(hue_of[spans], 0) + 1
                if votes and chain:
                    hues[min(chain)] = max(votes, key=lambda h: (votes[h], -h))
            columns.append(_column(name, forms, chains, hues, numbered))
        columns.append(_column("gold", forms, gold_chains, {min(c): _HUES[k % len(_HUES)]
                                                             for k, c in enumerate(gold_chains) if c}, numbered))
        out.append(DocumentView(item.label, columns, [dict(c.as_dict(), number=k + 1) for k, c in enumerate(conflicts)]))
    return out


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("corefio")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


def render(result: Adjudication, *, gold_name: str | None = None, gold_bytes: bytes | None = None,
           title: str = "Adjudication") -> str:
    """The page (one HTML string). ``gold_bytes`` (the gold as written, a file or a zip of
    a directory) is embedded as a download named ``gold_name``; with only ``gold_name``,
    the page links to that path."""
    try:
        from jinja2 import Environment, FileSystemLoader, select_autoescape
    except ImportError:  # pragma: no cover - jinja2 comes with the web extra
        raise UsageError("the adjudication view needs Jinja2: pip install 'corefio[web]'") from None
    here = Path(__file__).parent / "templates"
    env = Environment(loader=FileSystemLoader(str(here)), autoescape=select_autoescape(["html"]))
    download = None
    if gold_bytes is not None and gold_name:
        download = "data:application/octet-stream;base64," + base64.b64encode(gold_bytes).decode("ascii")
    elif gold_name:
        download = gold_name
    return env.get_template("adjudication.html").render(
        documents=build(result), annotators=result.annotators, keep=result.keep, title=title,
        download=download, gold_name=Path(gold_name).name if gold_name else None, version=_version(),
        total=len(result.conflicts))
