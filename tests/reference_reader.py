"""How the reference scorer (scorer.pl v8.01, GetCoreference) reads a CoNLL file.

Written from its documented behaviour, for the tests: lines are split on TABs and the
last field is the coreference cell; ``_`` means nothing; then, in this order, every
``(N)``, every ``(N`` and every ``N)`` is taken out of the cell, N being digits only; a
closer pops the latest opener of its label; an unclosed mention or an unmatched closer
is fatal. Documents are keyed by the text after ``#begin document ``.
"""

from __future__ import annotations

import re

SINGLE = re.compile(r"\((\d+)\)")
OPEN = re.compile(r"\((\d+)")
CLOSE = re.compile(r"(\d+)\)")


class ReferenceError_(Exception):
    pass


def reference_read(text: str) -> dict[str, list[list[tuple[int, int]]]]:
    """{document key: entities, each a list of (start, end) mentions}."""
    docs: dict[str, list[list[tuple[int, int]]]] = {}
    lines = iter(text.split("\n"))
    for line in lines:
        m = re.match(r"^#\s*begin document (.*?)$", line)
        if not m:
            continue
        name = m.group(1)
        index: dict[str, int] = {}
        entities: list[list[tuple[int, int]]] = []
        half: dict[int, list[int]] = {}
        n = 0
        for row in lines:
            row = re.sub(r"^\s+$", "", row)
            if row == "":
                continue
            if re.search(r"#\s*end document", row):
                if any(v for v in half.values()):
                    raise ReferenceError_("Error: some mentions in the document do not close")
                break
            columns = [c for c in row.split("\t")]
            while columns and columns[-1] == "":  # Perl's split drops trailing empty fields
                columns.pop()
            cell = columns[-1]
            if cell != "_":
                def entity(label: str, index: dict[str, int] = index,
                           entities: list[list[tuple[int, int]]] = entities) -> int:
                    if label not in index:
                        index[label] = len(index)
                        entities.append([])
                    return index[label]

                for label in SINGLE.findall(cell):
                    entities[entity(label)].append((n, n))
                cell = SINGLE.sub("", cell)
                for label in OPEN.findall(cell):
                    half.setdefault(entity(label), []).append(n)
                cell = OPEN.sub("", cell)
                for label in CLOSE.findall(cell):
                    e = entity(label)
                    if not half.get(e):
                        raise ReferenceError_(f"Detected the end of a mention [{label}] without begin")
                    entities[e].append((half[e].pop(), n))
            n += 1
        docs[name] = entities
    return docs
