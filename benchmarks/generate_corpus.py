"""Generate the benchmark corpus: a CoNLL-2012 key and a response with realistic errors.

280 documents of about 960 tokens (270,000 tokens), about 75,000 key mentions with
nesting, many singletons and a few long chains; 12 tab-separated columns. The response
drops about 10% of the mentions, adds spurious ones, shifts a few boundaries and
re-attaches about 15% of the mentions to another entity. Deterministic (fixed seed).

    python benchmarks/generate_corpus.py [OUTDIR]             # default: benchmarks/data
    python benchmarks/generate_corpus.py --scale 10 [OUTDIR]  # ten times as many documents
"""

from __future__ import annotations

import random
from pathlib import Path

DOCS = 280
SENTENCES_PER_DOC = 40
SEED = 20261121
VOCAB = ("the a man woman city court president he she it they his her their company "
         "government report year market people minister river house dog said says had "
         "has will would of in on at to from with by and but or that which who "
         "new old first last big small local national").split()
POS = ["DT", "NN", "NNP", "PRP", "VBD", "IN", "JJ", "CC", "PRP$", "NNS"]


def sentence_mentions(rng: random.Random, length: int) -> list[tuple[int, int]]:
    """Properly nested spans inside one sentence (token offsets within the sentence)."""
    spans: list[tuple[int, int]] = []
    pos = rng.randrange(0, 2)
    while pos < length:
        width = rng.choice([1, 1, 1, 2, 2, 3, 4, 6])
        end = min(length - 1, pos + width - 1)
        spans.append((pos, end))
        if end - pos >= 2 and rng.random() < 0.35:  # a nested mention inside
            a = rng.randrange(pos, end)
            spans.append((a, rng.randrange(a, end)))
        if end - pos >= 1 and rng.random() < 0.15:  # head-initial nesting
            spans.append((pos, pos))
        pos = end + 1 + rng.choice([0, 1, 2, 3, 3, 4])
    return sorted(set(spans))


def make_document(rng: random.Random, d: int):
    name = f"bench/doc_{d:04d}"
    sentences = []
    for _ in range(SENTENCES_PER_DOC):
        length = rng.randrange(14, 35)
        sentences.append([rng.choice(VOCAB) for _ in range(length)])
    mentions = []  # (sentence, start, end, entity)
    chains: list[int] = []
    next_entity = 0
    for s, words in enumerate(sentences):
        for a, b in sentence_mentions(rng, len(words)):
            r = rng.random()
            if r < 0.45:  # a new singleton entity
                e = next_entity
                next_entity += 1
            elif r < 0.60 or not chains:  # a new chain
                e = next_entity
                next_entity += 1
                chains.append(e)
            else:  # continue an existing chain; early ones grow long
                e = chains[min(len(chains) - 1, int(rng.expovariate(0.35)))]
            mentions.append((s, a, b, e))
    return name, sentences, mentions


def render(name: str, sentences: list[list[str]], mentions, rng: random.Random) -> str:
    opens: dict[tuple[int, int], list] = {}
    closes: dict[tuple[int, int], list] = {}
    for s, a, b, e in mentions:
        opens.setdefault((s, a), []).append((b, e))
        closes.setdefault((s, b), []).append((a, e))
    lines = [f"#begin document ({name}); part 000"]
    for s, words in enumerate(sentences):
        for i, w in enumerate(words):
            parts = [f"({e}" for b, e in sorted(opens.get((s, i), []), key=lambda x: -x[0]) if b != i]
            parts += [f"({e})" for b, e in opens.get((s, i), []) if b == i]
            parts += [f"{e})" for a, e in sorted(closes.get((s, i), []), key=lambda x: -x[0]) if a != i]
            coref = "|".join(parts) or "-"
            pos = rng.choice(POS)
            lines.append("\t".join([name, "0", str(i), w, pos, "*", "-", "-", "-", "Speaker#1", "*", coref]))
        lines.append("")
    lines.append("#end document")
    return "\n".join(lines) + "\n"


def perturb(mentions, rng: random.Random, sentences):
    out = []
    max_entity = max((e for *_, e in mentions), default=0)
    entities = sorted({e for *_, e in mentions})
    for s, a, b, e in mentions:
        r = rng.random()
        if r < 0.10:
            continue  # missed
        if r < 0.13 and b + 1 < len(sentences[s]):
            b += 1  # boundary error
        if rng.random() < 0.15:
            e = rng.choice(entities)  # wrong entity
        out.append((s, a, b, e))
    for s, words in enumerate(sentences):
        if rng.random() < 0.6:
            a = rng.randrange(len(words))
            max_entity += 1
            out.append((s, a, a, max_entity if rng.random() < 0.7 else rng.choice(entities)))
    # keep brackets properly nested (drop any mention crossing an earlier one) and
    # spans unique (scorer.pl refuses responses with more than 10 repeated mentions)
    kept = []
    by_sentence: dict[int, list] = {}
    spans = set()
    for m in sorted(out, key=lambda m: (m[0], m[1], -m[2])):
        s, a, b, e = m
        if (s, a, b) in spans:
            continue
        spans.add((s, a, b))
        if any(x[1] < a <= x[2] < b or a < x[1] <= b < x[2] for x in by_sentence.get(s, [])):
            continue
        by_sentence.setdefault(s, []).append(m)
        kept.append(m)
    return kept


def generate(outdir: Path, docs: int = DOCS, suffix: str = "") -> tuple[Path, Path]:
    """Write the key and the response into ``outdir`` (``docs`` documents), one document
    at a time (a large corpus is never held in memory). ``suffix`` goes into the file
    names (``bench_key_x10.v4_gold_conll``)."""
    rng = random.Random(SEED)
    outdir.mkdir(parents=True, exist_ok=True)
    key = outdir / f"bench_key{suffix}.v4_gold_conll"
    response = outdir / f"bench_response{suffix}.v4_auto_conll"
    with open(key, "w", encoding="utf-8", newline="") as k, open(response, "w", encoding="utf-8", newline="") as r:
        for d in range(docs):
            name, sentences, mentions = make_document(rng, d)
            k.write(render(name, sentences, mentions, rng))
            r.write(render(name, sentences, perturb(mentions, rng, sentences), rng))
    return key, response


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir", nargs="?", type=Path, default=Path(__file__).resolve().parent / "data")
    parser.add_argument("--scale", type=int, default=1,
                        help="documents = 280 x SCALE; the files are named bench_key_xSCALE... when SCALE > 1")
    args = parser.parse_args()
    k, r = generate(args.outdir, DOCS * args.scale, f"_x{args.scale}" if args.scale > 1 else "")
    print(k, r)
