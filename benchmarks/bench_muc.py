"""Reading and writing speed of MUC SGML on a MUC rendering of the benchmark corpus.

    python benchmarks/bench_muc.py          # generates benchmarks/data/ if missing

The CoNLL-2012 benchmark key (280 documents, about 270,000 tokens, 75,000 mentions) is
read, written as MUC (``bench_key.sgm``: one ``DOC`` per document, one ``<s>`` per
sentence, nested ``COREF`` tags linked by ``REF``), and then:

* corefio's read of the CoNLL key (the reference);
* corefio's read of the MUC rendering, as written (its DOCs are marked as separated by
  spaces) and with the mark removed (the punctuation-splitting tokenizer that real MUC
  files get); the target is at most 2x the CoNLL read;
* corefio's write of the MUC corpus it read (and whether the bytes are identical).

Times are CPU seconds of this process, the best of three runs.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import corefio  # noqa: E402
import corefio.formats.muc  # noqa: E402,F401  (registers the format)
from corefio.diagnostics import Report  # noqa: E402
from corefio.formats.muc import SPACES_MARK  # noqa: E402


def best_of(fn, repeat: int = 3) -> tuple[float, object]:
    """The least CPU time of ``repeat`` runs (processor time of this process: on a
    shared machine wall-clock time mostly measures the other processes)."""
    best, result = float("inf"), None
    for _ in range(repeat):
        result = None  # the previous result is freed before the next run
        start = time.process_time()
        result = fn()
        best = min(best, time.process_time() - start)
    return best, result


def main() -> None:
    key = HERE / "data" / "bench_key.v4_gold_conll"
    if not key.exists():
        sys.path.insert(0, str(HERE))
        from generate_corpus import generate  # type: ignore

        generate(HERE / "data")
    corpus = corefio.read(key, "conll", report=Report())
    sgm = HERE / "data" / "bench_key.sgm"
    words = HERE / "data" / "bench_key.words.sgm"
    data = corefio.dumps(corpus, "muc", report=Report())
    sgm.write_bytes(data)
    words.write_bytes(data.replace(SPACES_MARK.encode() + b"\n", b""))
    expected = [sorted(sorted(m.spans for m in c) for c in d.chains()) for d in corpus.documents]
    del corpus
    # each read is timed with no other corpus alive: a larger heap makes every garbage
    # collection slower, which would favour whichever reader runs first
    t_conll = best_of(lambda: corefio.read(key, "conll", report=Report()))[0]
    t_muc = best_of(lambda: corefio.read(sgm, "muc", report=Report()))[0]
    t_words = best_of(lambda: corefio.read(words, "muc", report=Report()))[0]
    muc = corefio.read(sgm, "muc", report=Report())
    t_write, text = best_of(lambda: corefio.dumps(muc, "muc", report=Report()))
    tokens = sum(len(d.tokens.forms) for d in muc.documents)
    mentions = sum(len(d.markables) for d in muc.documents)
    same = expected == [sorted(sorted(m.spans for m in c) for c in d.chains()) for d in muc.documents]
    w_tokens = sum(len(d.tokens.forms) for d in corefio.read(words, "muc", report=Report()).documents)
    print(f"corpus: {sgm.name}, {len(data) / 1e6:.1f} MB, {len(muc.documents)} documents, "
          f"{tokens:,} tokens, {mentions:,} mentions (chains as in CoNLL: {same})")
    print(f"{'corefio read CoNLL (reference)':<40}{t_conll:8.3f} s")
    print(f"{'corefio read MUC (as written)':<40}{t_muc:8.3f} s   {tokens / t_muc:>12,.0f} tokens/s   "
          f"{t_muc / t_conll:.2f}x CoNLL")
    print(f"{'corefio read MUC (word tokenizer)':<40}{t_words:8.3f} s   {w_tokens / t_words:>12,.0f} tokens/s   "
          f"{t_words / t_conll:.2f}x CoNLL")
    print(f"{'corefio write MUC':<40}{t_write:8.3f} s   byte-identical: {text == data}")


if __name__ == "__main__":
    main()
