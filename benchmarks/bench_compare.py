"""Time of ``corefio compare``'s statistics: 10,000 samples on the benchmark corpus.

    python benchmarks/bench_compare.py      # generates benchmarks/data/ if missing

The benchmark corpus has 280 documents. Two systems are formed from its response: the
response itself, and the response with every other document replaced by the key's (a
better system). Each is scored once per document (not timed: that is ``corefio score``'s
benchmark); then the timed part resamples: for six metrics (MUC, B³, CEAFe, LEA, BLANC
and the CoNLL average) a bootstrap confidence interval for each system and, for the pair,
approximate randomisation and a paired bootstrap, 10,000 samples each. Target (issue
23): under 2 s. The figure is the best of three, in CPU seconds (steadier than wall time
on a shared machine) and wall seconds.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from bench_conll import best_of  # noqa: E402

METRICS = ["muc", "bcub", "ceafe", "lea", "blanc", "conll"]


def main() -> None:
    import corefio
    from corefio.scoring.render import Scores
    from corefio.scoring.significance import compare_scores

    key_path = HERE / "data" / "bench_key.v4_gold_conll"
    response_path = HERE / "data" / "bench_response.v4_auto_conll"
    if not key_path.exists():
        from generate_corpus import generate

        generate(HERE / "data")
    parts = ["muc", "bcub", "ceafe", "lea", "blanc"]
    system = corefio.score(key_path, response_path, parts, per_document=True)
    perfect = corefio.score(key_path, key_path, parts, per_document=True)
    mixed = [p if k % 2 else s for k, (s, p) in enumerate(zip(system.documents, perfect.documents))]
    better = Scores(system.metrics, system.corpus, mixed, corefio.Report())
    documents = len(system.documents)

    def run() -> object:
        return compare_scores([("system", system), ("better", better)], METRICS, samples=10_000, seed=1)

    cpu = min(_cpu(run)[0] for _ in range(3))
    wall, result = best_of(run)
    print(f"{documents} documents, {len(METRICS)} metrics, 2 systems, 10,000 samples: "
          f"{cpu:.2f} s CPU, {wall:.2f} s wall (target: under 2 s)")
    for pair in result.pairs:  # type: ignore[attr-defined]
        print(f"  {pair.metric:<6} ΔF1 {100 * pair.difference:+6.2f}  p_AR {pair.p_randomisation:.4f}  "
              f"p_boot {pair.p_bootstrap:.4f}")


def _cpu(fn):
    began = time.process_time()
    value = fn()
    return time.process_time() - began, value


if __name__ == "__main__":
    main()
