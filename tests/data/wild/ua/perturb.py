"""Make a perturbed "system response" from a Universal Anaphora (.CONLLUA) key, deterministically.

Run: ``python perturb.py KEY.CONLLUA RESPONSE.CONLLUA``. Standalone (standard library only,
no corefio code), so that the responses the judges scored do not depend on corefio.

Only the IDENTITY column changes. Its markables are counted in document order (by their
opening bracket); markables in several parts (a MarkableID repeated) are never touched.
Markable number k:

* k % 9 == 3: dropped, with the BRIDGING items that name it;
* k % 9 == 5: a markable of two tokens or more ends one token later, when that token has
  no IDENTITY brackets and no markable would cross another;
* k % 9 == 7: a markable of two tokens or more starts one token later, on the same
  conditions;
* k % 11 == 4: moved to a new entity of its own;
* k % 13 == 6: moved to the entity of the previous markable, when no markable of that
  entity overlaps it.

Word lines are written with TABs between columns; every other line is copied.
"""

from __future__ import annotations

import re
import sys

ITEM = re.compile(r"\(([^()]*)(\))?|\)")


def parse_pairs(text: str) -> list[tuple[str, str]]:
    return [tuple(p.split("=", 1)) for p in text.split("|") if "=" in p]  # type: ignore[misc]


def perturb(text: str) -> str:
    lines = text.split("\n")
    final = lines[-1] == ""
    if final:
        lines.pop()
    columns = "ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC IDENTITY BRIDGING DISCOURSE_DEIXIS".split()
    out: list[object] = []
    document: list[list[str]] = []

    def flush() -> None:
        if document:
            edit(document, columns)
        document.clear()

    for line in lines:
        stripped = line.strip()
        m = re.match(r"^#\s*global\.columns\s*=\s*(.*)$", stripped)
        if m:
            columns = m.group(1).split()
        if stripped.startswith("# newdoc"):
            flush()
        if not stripped or stripped.startswith("#") or re.match(r"^\d+-\d+$", stripped.split()[0]):
            out.append(line)
            continue
        fields = stripped.split()
        fields += ["_"] * (len(columns) - len(fields))
        document.append(fields)
        out.append(fields)
    flush()
    rendered = ["\t".join(x) if isinstance(x, list) else x for x in out]
    return "\n".join(rendered) + ("\n" if final else "")


def edit(rows: list[list[str]], columns: list[str]) -> None:
    col = columns.index("IDENTITY")
    bridging = columns.index("BRIDGING") if "BRIDGING" in columns else None
    markables: list[dict] = []
    by_id: dict[str, dict] = {}
    stack: list[dict] = []
    for t, row in enumerate(rows):
        cell = row[col]
        if cell in ("_", ""):
            continue
        for m in ITEM.finditer(cell):
            if m.group(0) == ")":
                stack.pop()["ends"].append(t)
                continue
            pairs = parse_pairs(m.group(1))
            mid = dict(pairs).get("MarkableID")
            if mid in by_id:
                found = by_id[mid]
                found["parts"] += 1
            else:
                found = {"pairs": pairs, "mid": mid, "starts": [], "ends": [], "parts": 1}
                markables.append(found)
                if mid is not None:
                    by_id[mid] = found
            found["starts"].append(t)
            if m.group(2):
                found["ends"].append(t)
            else:
                stack.append(found)
    entities = [dict(m["pairs"]).get("EntityID", "") for m in markables]
    numbers = [int(x) for e in entities for x in re.findall(r"\d+", e)] or [0]
    fresh = max(numbers) + 1000

    def entity(m: dict) -> str:
        return dict(m["pairs"]).get("EntityID", "")

    def set_entity(m: dict, value: str) -> None:
        m["pairs"] = [(k, value if k == "EntityID" else v) for k, v in m["pairs"]]

    def alive() -> list[dict]:
        return [m for m in markables if not m.get("gone")]

    def crosses(a: int, b: int, me: dict) -> bool:
        for o in alive():
            if o is me:
                continue
            for s, e in zip(o["starts"], o["ends"]):
                if (s < a <= e < b) or (a < s <= b < e):
                    return True
        return False

    def bare(t: int) -> bool:
        return 0 <= t < len(rows) and rows[t][col] in ("_", "")

    previous = None
    for k, m in enumerate(markables):
        if m["parts"] > 1:
            previous = m
            continue
        a, b = m["starts"][0], m["ends"][0]
        if k % 9 == 3:
            m["gone"] = True
        elif k % 9 == 5 and b > a and bare(b + 1) and not crosses(a, b + 1, m):
            m["ends"] = [b + 1]
        elif k % 9 == 7 and b > a and bare(a + 1) and not crosses(a + 1, b, m):
            m["starts"] = [a + 1]
        if not m.get("gone"):
            if k % 11 == 4:
                set_entity(m, str(fresh))
                fresh += 1
            elif k % 13 == 6 and previous is not None and previous["parts"] == 1:
                target = entity(previous)
                a, b = m["starts"][0], m["ends"][0]
                if not any(entity(o) == target and o["starts"][0] <= b and a <= o["ends"][-1]
                           for o in alive() if o is not m):
                    set_entity(m, target)
            previous = m
    gone = {m["mid"] for m in markables if m.get("gone")}
    # write the column again: closing brackets first, then openers (outermost first)
    openers: dict[int, list[tuple[int, int, str]]] = {}
    closers: dict[int, int] = {}
    for order, m in enumerate(alive()):
        text = "|".join(f"{k}={v}" for k, v in m["pairs"])
        for s, e in zip(m["starts"], m["ends"]):
            openers.setdefault(s, []).append((-e, order, f"({text})" if s == e else f"({text}"))
            if e != s:
                closers[e] = closers.get(e, 0) + 1
    for t, row in enumerate(rows):
        cell = ")" * closers.get(t, 0) + "".join(x[2] for x in sorted(openers.get(t, [])))
        row[col] = cell or "_"
        if bridging is not None and row[bridging] not in ("_", "") and gone:
            items = re.findall(r"\(?([^()]+)\)?", row[bridging])
            kept = [i for i in items if not ({v for _, v in parse_pairs(i)} & gone)]
            row[bridging] = "".join(f"({i})" for i in kept) or "_"


def main() -> None:
    with open(sys.argv[1], encoding="utf-8", newline="") as f:
        text = f.read()
    with open(sys.argv[2], "w", encoding="utf-8", newline="") as f:
        f.write(perturb(text))


if __name__ == "__main__":
    main()
