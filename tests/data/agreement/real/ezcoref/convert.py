"""Turn ezCoref's crowd annotations (gnkitaa/ezCoref, ``Data/annotations``) into one
e2e-style jsonlines file per crowd worker.

ezCoref stores, per passage (``<doc>/<doc>_<chunk>.json``), a list of workers, each
``{"annotator_id": N, "annotations": {SENTENCE: {"TOKEN,START,END": [CLUSTER, ...]}}}``:
one key per token of a mention, the mention being tokens START..END-1 of sentence
SENTENCE. The words are the ``tokens`` of the passage's sentences in
``Data/gold_data/<doc>/<doc>_<chunk>.json``. A mention's cluster is the last number of
its list (what the repository's own scorer, ``Tool/Tutorial_B3/score.py``, takes:
``v[-1]``); a mention whose tokens disagree on it is refused.

Each output line: ``{"doc_key": "<doc>_<chunk>", "sentences": [[...]], "clusters":
[[[first, last], ...]]}`` with document-level, inclusive token offsets; clusters are
ordered by their first mention, mentions by position; a one-mention cluster stays.

Usage: python convert.py EZCOREF_CHECKOUT OUT_DIR ANNOTATOR_IDS PASSAGE...
(e.g. ``0,2,9,11,12 pd_gu_aesopa10cy_0/pd_gu_aesopa10cy_0_0``). Only the standard
library is used; the output depends on the inputs only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def clusters_of(annotations: dict, offsets: list[int]) -> list[list[list[int]]]:
    cluster_of: dict[tuple[int, int], int] = {}
    for sentence, marks in annotations.items():
        base = offsets[int(sentence)]
        for key, clusters in marks.items():
            _token, start, end = (int(x) for x in key.split(","))
            span = (base + start, base + end - 1)
            if span[1] >= offsets[int(sentence) + 1]:
                raise ValueError(f"mention {key} runs past sentence {sentence}")
            if cluster_of.setdefault(span, clusters[-1]) != clusters[-1]:
                raise ValueError(f"mention {key} of sentence {sentence} has two clusters")
    groups: dict[int, list[tuple[int, int]]] = {}
    for span, number in cluster_of.items():
        groups.setdefault(number, []).append(span)
    ordered = sorted((sorted(spans) for spans in groups.values()), key=lambda spans: spans[0])
    return [[list(span) for span in spans] for spans in ordered]


def main(checkout: str, out: str, ids: str, passages: list[str]) -> None:
    root = Path(checkout) / "Data"
    wanted = [int(x) for x in ids.split(",")]
    lines: dict[int, list[str]] = {a: [] for a in wanted}
    for passage in passages:
        words = json.loads((root / "gold_data" / f"{passage}.json").read_text(encoding="utf-8"))
        sentences = [s["tokens"] for s in words["sentences"]]
        offsets = [0]
        for s in sentences:
            offsets.append(offsets[-1] + len(s))
        workers = json.loads((root / "annotations" / f"{passage}.json").read_text(encoding="utf-8"))
        by_id = {w["annotator_id"]: w for w in workers}
        for a in wanted:
            record = {"doc_key": Path(passage).name, "sentences": sentences,
                      "clusters": clusters_of(by_id[a]["annotations"], offsets)}
            lines[a].append(json.dumps(record, ensure_ascii=False))
    Path(out).mkdir(parents=True, exist_ok=True)
    for a in wanted:
        (Path(out) / f"annotator_{a}.jsonlines").write_text("\n".join(lines[a]) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
