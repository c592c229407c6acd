"""Reading the jsonlines dialects of coreference systems, against plain e2e jsonlines.

    python benchmarks/bench_jsonlines_dialects.py     # generates benchmarks/data/ if missing

The benchmark key (280 documents, about 270,000 tokens, 75,000 mentions) is written
once as e2e jsonlines and once in each other shape (wl-coref, sub-word pieces with
``subtoken_map``, maverick/fastcoref token offsets, AllenNLP, BookCoref, fastcoref
character offsets); each file is read with ``corefio.read`` (best of three) and its time
printed with its ratio to the e2e read. Target: every dialect within 2x of e2e.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import corefio  # noqa: E402


def key_corpus():
    key = HERE / "data" / "bench_key.v4_gold_conll"
    if not key.exists():
        subprocess.run([sys.executable, str(HERE / "generate_corpus.py")], check=True)
    return corefio.read(key)


def clusters(doc) -> list[list[list[int]]]:
    return [[[doc.markables[k].first, doc.markables[k].last] for k in chain] for chain in doc.chain_indices()]


def shapes(doc) -> dict[str, dict]:
    """The document in each shape (as the systems write them)."""
    forms = list(doc.tokens.forms)
    sentences = [forms[s.first : s.last + 1] for s in doc.sentences]
    cl = clusters(doc)
    pieces, word_of, sentence_of = ["<s>"], [0], [0]
    first_piece = []
    for k, s in enumerate(doc.sentences):
        for i in range(s.first, s.last + 1):
            word = forms[i]
            first_piece.append(len(pieces))
            split = [word[:2], word[2:]] if len(word) > 4 else [word]
            for j, piece in enumerate(split):
                pieces.append(("\u0120" if j == 0 else "") + piece)
                word_of.append(i)
                sentence_of.append(k)
    pieces.append("</s>")
    word_of.append(len(forms) - 1)
    sentence_of.append(sentence_of[-1])
    last_piece = [first_piece[i + 1] - 1 if i + 1 < len(forms) else len(pieces) - 2 for i in range(len(forms))]
    text_parts, offsets, at = [], [], 0
    for word in forms:
        offsets.append((at, at + len(word)))
        text_parts.append(word)
        at += len(word) + 1
    text = " ".join(text_parts)
    return {
        "e2e": {"doc_key": doc.name, "sentences": sentences, "clusters": cl},
        "wl": json.loads(corefio.dumps(corefio.model.Corpus(documents=[doc]), "wl-coref")),
        "subword": {"doc_key": doc.name, "sentences": [pieces], "subtoken_map": word_of, "sentence_map": sentence_of,
                    "clusters": [[[first_piece[a], last_piece[b]] for a, b in c] for c in cl]},
        "offsets": {"doc_key": doc.name, "tokens": forms, "clusters_token_offsets": cl},
        "allennlp": {"doc_key": doc.name, "document": forms, "clusters": cl},
        "bookcoref": {"doc_key": doc.name, "sentences": sentences, "clusters": cl,
                      "characters": [{"name": f"c{k}", "cluster": c} for k, c in enumerate(cl[:20])]},
        "chars": {"id": doc.name, "text": text,
                  "clusters": [[[offsets[a][0], offsets[b][1]] for a, b in c] for c in cl]},
    }


def best_of(path: Path, runs: int = 3) -> tuple[float, float]:
    """(wall-clock seconds, processor seconds) of ``corefio.read``, each the best of
    ``runs``. The ratios use processor time: on a shared machine the wall clock counts
    the other processes' turns too."""
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        corefio.read(path, "jsonlines")
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def main() -> None:
    corpus = key_corpus()
    with tempfile.TemporaryDirectory() as tmp:
        files: dict[str, list[str]] = {}
        for doc in corpus.documents:
            for name, obj in shapes(doc).items():
                files.setdefault(name, []).append(json.dumps(obj))
        paths = {}
        for name, lines in files.items():
            paths[name] = Path(tmp) / f"{name}.jsonlines"
            paths[name].write_text("\n".join(lines) + "\n")
        tokens = sum(len(d.tokens.forms) for d in corpus.documents)
        print(f"{len(corpus.documents)} documents, {tokens} tokens")
        print(f"{'shape':10s} {'wall s':>7s} {'cpu s':>7s} {'cpu ratio':>9s}  size")
        base_wall, base = best_of(paths["e2e"])
        print(f"{'e2e':10s} {base_wall:7.3f} {base:7.3f} {1:8.2f}x  ({paths['e2e'].stat().st_size // 1024} KiB)")
        worst = 0.0
        for name in files:
            if name == "e2e":
                continue
            wall, cpu = best_of(paths[name])
            worst = max(worst, cpu / base)
            print(f"{name:10s} {wall:7.3f} {cpu:7.3f} {cpu / base:8.2f}x  ({paths[name].stat().st_size // 1024} KiB)")
        print(f"slowest dialect: {worst:.2f}x plain e2e jsonlines (target: at most 2x)")


if __name__ == "__main__":
    main()
