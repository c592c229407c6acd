"""Speed of the XSLT engine on the benchmark corpus's MMAX2 rendering.

    python benchmarks/bench_xslt.py          # generates benchmarks/data/ if missing

Reads the CoNLL key of the benchmark corpus, writes it as one MMAX2 project
(``corefio.write(corpus, directory, "mmax2")``) in a temporary directory, then reads the
project with the Python MMAX2 reader and with the XSLT engine (``xslt/mmax2-to-raf.xsl``
under lxml, one run per ``.mmax`` file, the Python RAF reader walking each result tree),
best of five runs each, alternating. The garbage collector is tuned as ``corefio.cli.main``
tunes it for every command: the issue compares the engines as ``corefio convert`` runs
them (and the Python reader gains more from it). Prints both times (wall and CPU: this
process's CPU time, steadier than wall time on a busy machine) and their ratios (target:
the XSLT engine at most 3x the Python reader) and whether both give the same documents.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import corefio  # noqa: E402
import corefio.formats.mmax2  # noqa: E402,F401  (registers the format)
from corefio.transform import engine as xslt_engine  # noqa: E402
from corefio.diagnostics import Report  # noqa: E402


def timed(fn) -> tuple[tuple[float, float], object]:
    """((wall seconds, CPU seconds), result) of ``fn()``."""
    start, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return (time.perf_counter() - start, time.process_time() - cpu), result


def same(a, b) -> bool:
    """Same tokens, sentences, markables, links and chains, document by document."""
    if len(a.documents) != len(b.documents):
        return False
    for x, y in zip(a.documents, b.documents):
        if (x.name, x.part, x.tokens.forms, x.tokens.ids, [(s.first, s.last) for s in x.sentences],
                x.markables, x.links, x.chain_indices()) != \
                (y.name, y.part, y.tokens.forms, y.tokens.ids, [(s.first, s.last) for s in y.sentences],
                 y.markables, y.links, y.chain_indices()):
            return False
    return True


def main() -> None:
    gc.set_threshold(100_000, 50, 100)  # what corefio.cli.main sets for every command
    data = HERE / "data"
    key = data / "bench_key.v4_gold_conll"
    if not key.exists():
        subprocess.run([sys.executable, str(HERE / "generate_corpus.py"), str(data)], check=True)
    corpus = corefio.read(key)
    tokens = sum(len(d.tokens) for d in corpus.documents)
    print(f"corpus: {len(corpus.documents)} documents, {tokens:,} tokens, "
          f"{sum(len(d.markables) for d in corpus.documents):,} mentions")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        corefio.write(corpus, root, "mmax2", report=Report())
        del corpus
        python_times, xslt_times = [], []
        for _ in range(5):
            took, by_python = timed(lambda: corefio.read(root, "mmax2"))
            python_times.append(took)
            took, by_xslt = timed(lambda: xslt_engine.read(root, "mmax2", report=Report()))
            xslt_times.append(took)
        py, xs = min(t[0] for t in python_times), min(t[0] for t in xslt_times)
        py_cpu, xs_cpu = min(t[1] for t in python_times), min(t[1] for t in xslt_times)
        print(f"Python MMAX2 reader: {py:6.2f} s  CPU {py_cpu:6.2f} s")
        print(f"XSLT engine (lxml):  {xs:6.2f} s  CPU {xs_cpu:6.2f} s  ({xs / py:.2f}x the Python reader, "
              f"CPU {xs_cpu / py_cpu:.2f}x; target <= 3x)")
        print(f"same documents: {same(by_python, by_xslt)}")


if __name__ == "__main__":
    main()
