"""Make a system-like response from a CoNLL-2011/2012 key, deterministically.

Standalone (no corefio code): it reads the key's last column with its own small
bracket parser and writes the key back line for line with only that column changed.

What it changes in every document (each step on chains the earlier steps left alone,
so that each shows in the scores):

1. boundaries: the first multi-token mention loses its first token; the first
   single-token mention whose next token is in its sentence gains that token;
2. merge: the second and third largest chains become one;
3. split: the largest chain's last two mentions become a chain of their own;
4. drop: the fourth largest chain loses its last mention;
5. add: a new chain of two single-token mentions on the first two tokens without any
   mention (an invented entity);
6. repeat: a mention of the fifth largest chain (not its first) is also put in the
   sixth largest chain, later than that chain's first mention: one span in two
   entities, matching a key mention (what scorer.pl leaves out of the later chain).

Usage: ``python perturb.py KEY RESPONSE``.
"""

import re
import sys

CHUNK = re.compile(r"\((\d+)\)|\((\d+)|(\d+)\)")


def split_line(line):
    """(prefix, last field, suffix): the last column and what surrounds it."""
    if "\t" in line:
        head, _, last = line.rpartition("\t")
        return head + "\t", last, ""
    m = re.match(r"^(.*\s)(\S+)(\s*)$", line)
    return m.group(1), m.group(2), m.group(3)


def documents(lines):
    """Each document: the indices of its token lines and their sentence numbers."""
    docs, current, sentence, gap = [], None, 0, False
    for i, line in enumerate(lines):
        if line.startswith("#") and re.match(r"#\s*begin\s+document", line):
            current, sentence, gap = ([], []), 0, False
        elif line.startswith("#") and re.match(r"#\s*end\s+document", line):
            docs.append(current)
            current = None
        elif current is not None:
            if not line.strip():
                gap = True
                continue
            if gap and current[0]:
                sentence += 1
            gap = False
            current[0].append(i)
            current[1].append(sentence)
    return docs


def mentions(cells):
    """[label, first, last] in the order they close."""
    out, open_ = [], {}
    for t, cell in enumerate(cells):
        for single, opener, closer in CHUNK.findall(cell):
            if single:
                out.append([single, t, t])
            elif opener:
                open_.setdefault(opener, []).append(t)
            else:
                out.append([closer, open_[closer].pop(), t])
    return out


def perturb(ms, sentence_of):
    chains = {}
    for m in ms:
        chains.setdefault(m[0], []).append(m)
    by_size = sorted(chains, key=lambda c: (-len(chains[c]), min(m[1] for m in chains[c]), int(c)))
    used = set()
    # 1. boundaries
    for m in sorted(ms, key=lambda m: (m[1], m[2])):
        if m[2] > m[1]:
            m[1] += 1
            used.add(m[0])
            break
    for m in sorted(ms, key=lambda m: (m[1], m[2])):
        if m[1] == m[2] and m[0] not in used and m[2] + 1 < len(sentence_of) \
                and sentence_of[m[2] + 1] == sentence_of[m[2]]:
            m[2] += 1
            used.add(m[0])
            break
    top = [c for c in by_size if c not in used]
    fresh = max(int(c) for c in chains) + 1 if chains else 0
    # 2. merge
    if len(top) > 2:
        for m in chains[top[2]]:
            m[0] = top[1]
    # 3. split
    if top and len(chains[top[0]]) > 2:
        for m in chains[top[0]][-2:]:
            m[0] = str(fresh)
        fresh += 1
    # 4. drop
    if len(top) > 3 and len(chains[top[3]]) > 1:
        ms.remove(chains[top[3]][-1])
    # 5. add
    covered = {t for m in ms for t in range(m[1], m[2] + 1)}
    free = [t for t in range(len(sentence_of)) if t not in covered][:2]
    for t in free:
        ms.append([str(fresh), t, t])
    # 6. repeat
    if len(top) > 5 and len(chains[top[4]]) > 1:
        first_y = min(m[1] for m in chains[top[5]])
        for m in chains[top[4]][1:]:
            if m[1] > first_y:
                ms.append([top[5], m[1], m[2]])
                break
    return ms


def render(n, ms, empty):
    openers = [[] for _ in range(n)]
    singles = [[] for _ in range(n)]
    closers = [[] for _ in range(n)]
    for label, a, e in ms:
        if a == e:
            singles[a].append(f"({label})")
        else:
            openers[a].append((-e, int(label), f"({label}"))
            closers[e].append((-a, int(label), f"{label})"))
    cells = []
    for t in range(n):
        parts = [x for *_, x in sorted(openers[t])] + singles[t] + [x for *_, x in sorted(closers[t])]
        cells.append("|".join(parts) if parts else empty)
    return cells


def main(key, response):
    with open(key, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    for rows, sentence_of in documents(lines):
        pieces = [split_line(lines[i]) for i in rows]
        cells = [p[1] for p in pieces]
        empty = next((c for c in cells if c in ("-", "_", "")), "-")
        ms = perturb(mentions(cells), sentence_of)
        for i, (head, _, tail), cell in zip(rows, pieces, render(len(rows), ms, empty)):
            lines[i] = head + cell + tail
    with open(response, "w", encoding="utf-8", newline="") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
