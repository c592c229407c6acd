"""Make a perturbed "system response" from a CorefUD CoNLL-U key, deterministically.

Run: ``python perturb.py KEY.conllu RESPONSE.conllu``. Standalone (standard library only,
no corefio code), so that the responses the judges scored do not depend on corefio.

Mentions are counted in document order (by their opening bracket); contiguous mentions
only (parts of discontinuous mentions, ``e5[1/2]``, are never touched). Mention number k:

* k % 9 == 3: dropped (its opening and closing brackets removed);
* k % 9 == 5: a mention of two words or more ends one word later, when that word is in
  the same sentence and carries no Entity brackets (a boundary error on the right);
* k % 9 == 7: a mention of two words or more starts one word later, when that word
  carries no Entity brackets (a boundary error on the left; the head index, when the
  file declares a ``head`` field, follows its word or becomes 1);
* k % 11 == 4: moved to a new entity of its own (a wrong link);
* k % 13 == 6: moved to the entity of the previous mention of the document, when none
  of that entity's mentions overlaps it (a wrong merge).

``SplitAnte`` and ``Bridge`` are removed (a system outputs identity chains only).
Everything else (comments, other columns, other MISC keys, empty nodes) is copied.
"""

from __future__ import annotations

import re
import sys

CHUNK = re.compile(r"(\([^()]+\)?|[^()]+\))")


def chunks(value: str) -> list[str]:
    return [c for c in CHUNK.split(value) if c]


def read_blocks(lines: list[str]) -> list[list[str]]:
    blocks, current = [], []
    for line in lines:
        if line.strip() == "":
            if current:
                blocks.append(current)
                current = []
            blocks.append([line])
        else:
            current.append(line)
    if current:
        blocks.append(current)
    return blocks


class Token:
    def __init__(self, row: list[str]) -> None:
        self.row = row
        items = [] if row[9] in ("_", "") else row[9].split("|")
        self.items = [i for i in items if i.split("=", 1)[0] not in ("Entity", "SplitAnte", "Bridge")]
        entity = next((i.split("=", 1)[1] for i in items if i.startswith("Entity=")), "")
        self.chunks = chunks(entity)

    def render(self) -> str:
        items = list(self.items)
        if self.chunks:
            items.append("Entity=" + "".join(self.chunks))
            items.sort(key=lambda i: i.split("=", 1)[0])
        self.row[9] = "|".join(items) if items else "_"
        return "\t".join(self.row)


def perturb(text: str) -> str:
    lines = text.split("\n")
    final = lines[-1] == ""
    if final:
        lines.pop()
    fields = ["eid", "etype", "head", "other"]
    out: list[str] = []
    doc_tokens: list[tuple[int, Token]] = []  # (sentence number, token)
    doc_lines: list[object] = []
    sentence = 0

    def flush() -> None:
        nonlocal doc_tokens, doc_lines
        if doc_tokens:
            edit_document(doc_tokens, fields)
        for item in doc_lines:
            out.append(item.render() if isinstance(item, Token) else item)
        doc_tokens, doc_lines = [], []

    in_sentence = False
    for line in lines:
        if line.startswith("#"):
            if re.match(r"^#\s*newdoc\b", line) and not in_sentence:
                flush()
            m = re.match(r"^#\s*global\.Entity\s*=\s*(\S+)", line)
            if m:
                fields = m.group(1).split("-")
            doc_lines.append(line)
            continue
        if line.strip() == "":
            if in_sentence:
                sentence += 1
            in_sentence = False
            doc_lines.append(line)
            continue
        in_sentence = True
        row = line.split("\t")
        if re.match(r"^\d+-\d+$", row[0]):
            doc_lines.append(line)
            continue
        token = Token(row)
        doc_tokens.append((sentence, token))
        doc_lines.append(token)
    flush()
    return "\n".join(out) + ("\n" if final else "")


def edit_document(tokens: list[tuple[int, Token]], fields: list[str]) -> None:
    id_field = fields[0]
    head_at = fields.index("head") if "head" in fields else None
    # mentions: [eid, start, end, opener chunk index owner]
    mentions = []
    open_: dict[str, list[dict]] = {}
    for t, (_, tok) in enumerate(tokens):
        for c in tok.chunks:
            if c.startswith("("):
                body = c.strip("()")
                eid = body.split("-", 1)[0]
                m = {"eid": eid, "start": t, "end": t if c.endswith(")") else None, "body": body,
                     "gappy": eid.endswith("]")}
                mentions.append(m)
                if not c.endswith(")"):
                    open_.setdefault(eid, []).append(m)
            else:
                eid = c[:-1]
                open_[eid].pop()["end"] = t
    numbers = [int(x) for m in mentions for x in re.findall(r"\d+", m["eid"])] or [0]
    fresh = max(numbers) + 1000

    def rebuild() -> None:
        for _, tok in tokens:
            tok.chunks = []
        for m in sorted(mentions, key=lambda m: (m["start"], -m["end"])):
            if m["start"] == m["end"]:
                tokens[m["start"]][1].chunks.append("(" + m["body"] + ")")
            else:
                tokens[m["start"]][1].chunks.append("(" + m["body"])
        for m in sorted(mentions, key=lambda m: (-m["start"], m["end"])):
            if m["start"] != m["end"]:
                end = tokens[m["end"]][1]
                closers = [c for c in end.chunks if not c.startswith("(")]
                end.chunks.insert(len(closers), m["eid"] + ")")

    def free(t: int) -> bool:
        return 0 <= t < len(tokens) and not any(
            m["start"] == t or m["end"] == t for m in mentions if m.get("alive", True))

    def set_id(m: dict, eid: str) -> None:
        m["body"] = eid + m["body"][len(m["eid"]):]
        m["eid"] = eid

    previous = None
    for k, m in enumerate(list(mentions)):
        if m["gappy"]:
            previous = m
            continue
        multi = m["end"] > m["start"]
        if k % 9 == 3:
            m["alive"] = False
        elif k % 9 == 5 and multi and free(m["end"] + 1) and tokens[m["end"] + 1][0] == tokens[m["end"]][0]:
            m["end"] += 1
        elif k % 9 == 7 and multi and free(m["start"] + 1):
            m["start"] += 1
            if head_at is not None:
                parts = m["body"].split("-")
                if len(parts) > head_at and parts[head_at].isdigit():
                    parts[head_at] = str(max(1, int(parts[head_at]) - 1))
                    m["body"] = "-".join(parts)
        if k % 11 == 4:
            set_id(m, f"e{fresh}" if id_field == "eid" else str(fresh))
            fresh += 1
        elif k % 13 == 6 and previous is not None and not previous["gappy"]:
            target = previous["eid"]
            if not any(o["eid"] == target and o["start"] <= m["end"] and m["start"] <= o["end"]
                       for o in mentions if o is not m and o.get("alive", True)):
                set_id(m, target)
        if m.get("alive", True):
            previous = m
    mentions[:] = [m for m in mentions if m.get("alive", True)]
    rebuild()


def main() -> None:
    source, target = sys.argv[1], sys.argv[2]
    with open(source, encoding="utf-8", newline="") as f:
        text = f.read()
    with open(target, "w", encoding="utf-8", newline="") as f:
        f.write(perturb(text))


if __name__ == "__main__":
    main()
