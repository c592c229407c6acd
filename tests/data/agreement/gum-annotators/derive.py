"""Three annotators of four GUM documents, derived from GUM's gold by the disagreements
annotators are known to have (no corefio code; run from this folder):

    python derive.py

* ``a/`` — GUM's gold, in 12-column CoNLL-2012 (one line per word: document, part,
  word number, word, "-" or "*" in the seven columns between, coreference; GUM's
  ``coref/gum/conll`` has no sentence breaks, so neither do these files);
* ``b/`` — a: every 9th mention left out; the two largest entities merged in the
  second half of the document; one word added at the end of every 11th mention of
  two or more words (where the next word is free);
* ``c/`` — a: the largest entity split in two at its middle mention; every 13th
  singleton entity left out; a pronoun-sized extra mention on every 17th word not
  already a one-word mention.

Deterministic: the same input gives the same files.
"""

from __future__ import annotations

import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent.parent / "corpora" / "gum-genres" / "conll"
LABEL = re.compile(r"\(?([A-Za-z]+-\d+)(?:-[^()]*?)?\)?")


def parse(path: Path) -> tuple[str, list[str], list[tuple[int, int, str]]]:
    """Document name, words, and mentions (first, last, entity) of a GUM conll file."""
    words: list[str] = []
    mentions: list[tuple[int, int, str]] = []
    open_: dict[str, list[int]] = {}
    name = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# begin document"):
            name = line.split("document", 1)[1].strip()
            continue
        if not line.strip() or line.startswith("#"):
            continue
        index, word, coref = line.split("\t")
        i = len(words)
        words.append(word)
        if coref == "_":
            continue
        # chunks: "(x-1-id", "x-1-id)", "(x-1-id)"; several chunks follow each other
        for chunk in re.findall(r"\(?[a-z]+-\d+(?:-[^()]*?)?\)?(?=\(|[a-z]+-\d|$)", coref):
            entity = re.match(r"\(?([a-z]+-\d+)", chunk).group(1)
            if chunk.startswith("(") and chunk.endswith(")"):
                mentions.append((i, i, entity))
            elif chunk.startswith("("):
                open_.setdefault(entity, []).append(i)
            elif chunk.endswith(")"):
                mentions.append((open_[entity].pop(), i, entity))
    assert not any(open_.values()), f"{path}: unclosed mentions"
    return name, words, sorted(mentions)


def write(path: Path, name: str, words: list[str], mentions: list[tuple[int, int, str]]) -> None:
    numbers: dict[str, int] = {}
    for _, _, entity in sorted(mentions):
        numbers.setdefault(entity, len(numbers) + 1)
    cells: list[list[str]] = [[] for _ in words]
    # openers of longer mentions first, closers of shorter mentions first
    for first, last, entity in sorted(mentions, key=lambda m: (m[0], -m[1])):
        n = numbers[entity]
        if first == last:
            cells[first].append(f"({n})")
        else:
            cells[first].append(f"({n}")
    closers: list[list[str]] = [[] for _ in words]
    for first, last, entity in sorted(mentions, key=lambda m: (m[1], -m[0])):
        if first != last:
            closers[last].append(f"{numbers[entity]})")
    lines = [f"#begin document ({name}); part 000"]
    for i, word in enumerate(words):
        coref = "|".join(cells[i] + closers[i]) or "-"
        lines.append(f"{name}\t0\t{i}\t{word}\t-\t*\t-\t-\t-\t-\t*\t{coref}")
    lines.append("#end document")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def annotator_b(words, mentions):
    out = [m for k, m in enumerate(mentions) if k % 9 != 8]
    sizes: dict[str, int] = {}
    for _, _, e in out:
        sizes[e] = sizes.get(e, 0) + 1
    big = sorted(sizes, key=lambda e: (-sizes[e], e))[:2]
    half = len(words) // 2
    if len(big) == 2:
        out = [(f, l, big[0] if e == big[1] and f >= half else e) for f, l, e in out]
    spans = {(f, l) for f, l, _ in out}
    grown = []
    for k, (f, l, e) in enumerate(out):
        if l > f and k % 11 == 10 and l + 1 < len(words) and (f, l + 1) not in spans:
            grown.append((f, l + 1, e))
        else:
            grown.append((f, l, e))
    # a grown mention must still nest properly with the others
    return [m for m in grown if _nests(m, grown)]


def annotator_c(words, mentions):
    sizes: dict[str, int] = {}
    for _, _, e in mentions:
        sizes[e] = sizes.get(e, 0) + 1
    largest = min(sizes, key=lambda e: (-sizes[e], e))
    members = [m for m in mentions if m[2] == largest]
    middle = members[len(members) // 2][0]
    out = [(f, l, f"{e}-split" if e == largest and f >= middle else e) for f, l, e in mentions]
    singles = sorted(e for e, n in sizes.items() if n == 1)
    dropped = set(singles[12::13])
    out = [m for m in out if m[2] not in dropped]
    taken = {(f, l) for f, l, _ in out}
    for i in range(16, len(words), 17):
        if (i, i) not in taken:
            out.append((i, i, f"extra-{i}"))
    return sorted(m for m in out if _nests(m, out))


def _nests(m, mentions) -> bool:
    f, l, _ = m
    return all(not (f2 < f <= l2 < l or f < f2 <= l < l2) for f2, l2, _ in mentions)


def main() -> None:
    for path in sorted(SOURCE.glob("*.conll")):
        name, words, mentions = parse(path)
        write(HERE / "a" / path.name, name, words, mentions)
        write(HERE / "b" / path.name, name, words, annotator_b(words, mentions))
        write(HERE / "c" / path.name, name, words, annotator_c(words, mentions))


if __name__ == "__main__":
    main()
