"""Reading speed of the annotation-tool formats (brat, LitBank TSV, WebAnno TSV) on the
benchmark corpus.

    python benchmarks/bench_annotation_formats.py      # generates benchmarks/data/ if missing

Reads the CoNLL key of the benchmark corpus, writes it with corefio's writers as a brat
directory (one ``.ann``/``.txt`` pair per document), a LitBank TSV directory and one
WebAnno TSV file per document, reads each back, and prints the times (CPU seconds of
this process, so that other work on a shared machine does not count; best of three,
each read alternating with a CoNLL read), the ratio to the CoNLL read (target: at most
3x) and whether the chains survived (corefio's scorer: every metric at 100%).
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
from corefio.diagnostics import Report  # noqa: E402


def timed(fn) -> tuple[float, object]:
    """Seconds of this process's CPU time (the machine may be shared) and the result."""
    start = time.process_time()
    result = fn()
    return time.process_time() - start, result


def write_tree(root: Path, files: dict[str, bytes]) -> None:
    root.mkdir(parents=True)
    for rel, content in files.items():
        (root / rel).write_bytes(content)


def read_webanno(root: Path):
    docs = [doc for path in sorted(root.iterdir()) for doc in corefio.read(path, "webanno-tsv").documents]
    return corefio.Corpus(documents=docs)


def main() -> None:
    data = HERE / "data"
    key = data / "bench_key.v4_gold_conll"
    if not key.exists():
        subprocess.run([sys.executable, str(HERE / "generate_corpus.py"), str(data)], check=True)
    corpus = corefio.read(key)
    tokens = sum(len(d.tokens) for d in corpus.documents)
    mentions = sum(len(d.markables) for d in corpus.documents)
    print(f"corpus: {len(corpus.documents)} documents, {tokens:,} tokens, {mentions:,} mentions")
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        readers = {}
        for fmt in ("brat", "litbank-tsv"):
            took, files = timed(lambda fmt=fmt: corefio.dump_files(corpus, fmt, report=Report()))
            print(f"write {fmt + ':':13s} {took:6.2f} s  ({len(files)} files, "
                  f"{sum(len(b) for b in files.values()) / 1e6:.1f} MB)")
            write_tree(Path(tmp, fmt), files)
            readers[fmt] = (lambda fmt=fmt: corefio.read(Path(tmp, fmt), fmt))
        root = Path(tmp, "webanno")
        root.mkdir()
        start = time.process_time()
        size = 0
        for k, doc in enumerate(corpus.documents):
            text = corefio.dumps(doc, "webanno-tsv", report=Report())
            size += len(text.encode())
            (root / f"{k:04d}.tsv").write_text(text, encoding="utf-8")
        print(f"write webanno-tsv: {time.process_time() - start:6.2f} s  ({len(corpus.documents)} files, "
              f"{size / 1e6:.1f} MB)")
        readers["webanno-tsv"] = lambda: read_webanno(root)
        for fmt, read in readers.items():
            conll_times, times = [], []
            back = None
            for _ in range(3):
                conll_times.append(timed(lambda: corefio.read(key))[0])
                took, back = timed(read)
                times.append(took)
            conll_time, fmt_time = min(conll_times), min(times)
            ratio = fmt_time / conll_time
            scores = corefio.score(corpus, back, metrics=["mentions", "muc", "bcub", "ceafe"], pair_by="order")
            same = all((s.recall_num, s.precision_num) == (s.recall_den, s.precision_den)
                       for s in scores.corpus.values())
            print(f"read {fmt + ':':13s} {fmt_time:6.2f} s vs CoNLL {conll_time:5.2f} s (best of 3): "
                  f"{ratio:.2f}x (target <= 3x); chains unchanged: {same}")
            failed |= ratio > 3 or not same
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
