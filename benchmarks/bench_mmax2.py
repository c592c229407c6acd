"""Reading and writing speed of MMAX2 projects on the benchmark corpus.

    python benchmarks/bench_mmax2.py          # generates benchmarks/data/ if missing

Reads the CoNLL key of the benchmark corpus (280 documents, about 270,000 tokens and
75,000 mentions), writes it as one MMAX2 project (280 ``.mmax`` files sharing one
``common_paths.xml``) in a temporary directory, reads the project back, and prints the
times (best of three, the two reads alternating), the ratio to the CoNLL read (target: reading MMAX2 at most 3x reading CoNLL)
and whether the chains survived (corefio's scorer: every metric at 100%).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import corefio  # noqa: E402
import corefio.formats.mmax2  # noqa: E402,F401  (registers the format)
from corefio.diagnostics import Report  # noqa: E402


def timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def main() -> None:
    data = HERE / "data"
    key = data / "bench_key.v4_gold_conll"
    if not key.exists():
        subprocess.run([sys.executable, str(HERE / "generate_corpus.py"), str(data)], check=True)
    _, corpus = timed(lambda: corefio.read(key))
    tokens = sum(len(d.tokens) for d in corpus.documents)
    mentions = sum(len(d.markables) for d in corpus.documents)
    print(f"corpus: {len(corpus.documents)} documents, {tokens:,} tokens, {mentions:,} mentions")
    start = time.perf_counter()
    files = corefio.dump_files(corpus, "mmax2", report=Report())
    write_time = time.perf_counter() - start
    print(f"write MMAX2:      {write_time:6.2f} s  ({len(files)} files, "
          f"{sum(len(b) for b in files.values()) / 1e6:.1f} MB)")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        del files
        # the two reads alternate, so that a change in the machine's load hits both
        conll_times, mmax_times = [], []
        for _ in range(3):
            conll_times.append(timed(lambda: corefio.read(key))[0])
            took, back = timed(lambda: corefio.read(root))
            mmax_times.append(took)
    conll_time, mmax_time = min(conll_times), min(mmax_times)
    ratio = mmax_time / conll_time
    print(f"read CoNLL:       {conll_time:6.2f} s  (best of 3)")
    print(f"read MMAX2:       {mmax_time:6.2f} s  (best of 3; {tokens / mmax_time:,.0f} tokens/s; "
          f"{ratio:.2f}x the CoNLL read; target <= 3x)")
    scores = corefio.score(corpus, back, metrics=["mentions", "muc", "bcub", "ceafe", "lea"])
    same = all((s.recall_num, s.precision_num) == (s.recall_den, s.precision_den) for s in scores.corpus.values())
    print(f"chains unchanged: {same}")
    if ratio > 3 or not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
