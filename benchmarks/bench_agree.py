"""Speed of ``corefio agree`` with three annotators against ``corefio score`` of one pair.

    python benchmarks/bench_agree.py            # generates benchmarks/data/ if missing

The benchmark corpus (280 documents, 269,050 tokens) gives two annotators: the key and
the response of ``generate_corpus.py``; a third is the key perturbed the same way with
another seed (``bench_third.v4_auto_conll``). Both commands run in a fresh process with
``--jobs 1`` where they take it; the figure is the processor time (user + system) of
the child, the best of three, which a busy machine changes less than the wall time.
Target (the agreement issue): ``agree`` of three annotators within 3x ``score`` of one
pair (default metrics). ``agree`` does more than three scorings: reading three files,
three pairwise tables of six measures, mention F1 under three matchings, the chain α
and α_u.
"""

from __future__ import annotations

import random
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate_corpus as G  # noqa: E402

DATA = HERE / "data"


def third_annotator(outdir: Path) -> Path:
    """The key perturbed with another seed: the generator's loop replayed for the key."""
    path = outdir / "bench_third.v4_auto_conll"
    if path.exists():
        return path
    rng = random.Random(G.SEED)
    other = random.Random(G.SEED + 1)
    with open(path, "w", encoding="utf-8", newline="") as out:
        for d in range(G.DOCS):
            name, sentences, mentions = G.make_document(rng, d)
            G.render(name, sentences, mentions, rng)  # the key's render (keeps rng in step)
            G.render(name, sentences, G.perturb(mentions, rng, sentences), rng)
            out.write(G.render(name, sentences, G.perturb(mentions, other, sentences), other))
    return path


def cpu_of(command: list[str]) -> tuple[float, float]:
    """(processor seconds, wall seconds) of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def best(command: list[str], runs: int = 2) -> tuple[float, float]:
    return min(cpu_of(command) for _ in range(runs))


def main() -> None:
    key = DATA / "bench_key.v4_gold_conll"
    response = DATA / "bench_response.v4_auto_conll"
    if not key.exists():
        G.generate(DATA)
    third = third_annotator(DATA)
    cli = [sys.executable, "-m", "corefio"]
    score_cpu, score_wall = best(cli + ["score", str(key), str(response), "--jobs", "1"])
    agree_cpu, agree_wall = best(cli + ["agree", str(key), str(response), str(third)])
    print(f"score, one pair:        {score_cpu:6.2f} s CPU ({score_wall:.2f} s wall)")
    print(f"agree, three annotators: {agree_cpu:6.2f} s CPU ({agree_wall:.2f} s wall)")
    ratio = agree_cpu / score_cpu
    print(f"ratio: {ratio:.2f}x (target: at most 3x) {'ok' if ratio <= 3 else 'MISSED'}")


if __name__ == "__main__":
    main()
