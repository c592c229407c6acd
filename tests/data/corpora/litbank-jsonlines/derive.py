"""Derive litbank.jsonlines from ../litbank-more/conll/*.conll (run from this folder).

Written for the test data, independently of corefio's readers and writers: one line per
document in the OntoNotes jsonlines layout of the e2e-coref family (``doc_key``,
``sentences``, ``speakers``, ``clusters`` of inclusive [first, last] token offsets counted
over the whole document), clusters in order of their first mention.
"""

from __future__ import annotations

import json
import re
from pathlib import Path


def convert(path: Path) -> dict:
    sentences: list[list[str]] = [[]]
    opened: dict[str, list[int]] = {}
    clusters: dict[str, list[list[int]]] = {}
    name = None
    position = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#begin document"):
            name = re.match(r"#begin document \((.*)\)", line).group(1)
            continue
        if line.startswith("#"):
            continue
        if not line.strip():
            if sentences[-1]:
                sentences.append([])
            continue
        columns = line.split("\t")
        sentences[-1].append(columns[3])
        for piece in re.findall(r"\(?\d+\)?", columns[-1]):
            ident = piece.strip("()")
            if piece.startswith("("):
                opened.setdefault(ident, []).append(position)
            if piece.endswith(")"):
                clusters.setdefault(ident, []).append([opened[ident].pop(), position])
        position += 1
    if not sentences[-1]:
        sentences.pop()
    ordered = sorted((sorted(spans) for spans in clusters.values()), key=lambda spans: spans[0])
    return {"doc_key": name, "sentences": sentences, "speakers": [["_"] * len(s) for s in sentences],
            "clusters": ordered}


if __name__ == "__main__":
    with open("litbank.jsonlines", "w", encoding="utf-8") as out:
        for path in sorted(Path("../litbank-more/conll").glob("*.conll")):
            out.write(json.dumps(convert(path), ensure_ascii=False) + "\n")
