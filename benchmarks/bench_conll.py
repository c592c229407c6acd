"""Reading and writing speed of the CoNLL-2012 format on the benchmark corpus.

    python benchmarks/bench_conll.py          # generates benchmarks/data/ if missing

Prints, for the 280-document corpus (about 270,000 tokens, 75,000 mentions):

* two baselines: ``split`` — read the file and split every line into columns (the least
  any reader does) — and ``bare`` — a minimal plain-Python reader that also pairs the
  coreference brackets into (document, start, end, label) mentions, without a model;
* corefio's read (full pivot model, invariants checked), tokens per second and ratios;
* corefio's write of the corpus it read (and whether the bytes are identical);
* peak memory (RSS, each in a fresh process): reading the whole corpus versus streaming
  it one document at a time with ``corefio.iter_read``;
* with ``--convert``: peak memory (``/usr/bin/time -v``) of ``corefio convert`` of the key
  to jsonlines and CoNLL-U and back, and of a corpus ten times as large
  (``generate_corpus.py --scale 10``) in every pair of the three formats.

Targets (2-core machine): read < 1 s and within 3x of the bare read; write < 1 s;
streaming memory about one document's worth.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import corefio  # noqa: E402
from corefio.diagnostics import Report  # noqa: E402

_CHUNK = re.compile(r"\((\d+)\)|\((\d+)|(\d+)\)")


def split_baseline(path: Path) -> int:
    n = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            line.rstrip("\n").split("\t")
            n += 1
    return n


def bare_reader(path: Path) -> list[list[tuple[int, int, str]]]:
    """The least a script does to use the data: columns and paired brackets."""
    documents = []
    mentions: list[tuple[int, int, str]] = []
    stacks: dict[str, list[int]] = {}
    t = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#begin"):
                mentions, stacks, t = [], {}, 0
            elif line.startswith("#end"):
                documents.append(mentions)
            elif line != "\n":
                cell = line.rstrip("\n").split("\t")[-1]
                if cell != "-":
                    for single, opener, closer in _CHUNK.findall(cell):
                        if single:
                            mentions.append((t, t, single))
                        elif opener:
                            stacks.setdefault(opener, []).append(t)
                        else:
                            mentions.append((stacks[closer].pop(), t, closer))
                t += 1
    return documents


def best_of(fn, repeat: int = 3) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


_MEMORY_SCRIPT = """
import sys
sys.path.insert(0, {root!r})
import corefio
path = {path!r}
if sys.argv[1] == "read":
    corpus = corefio.read(path, "conll")
    n = sum(len(d.markables) for d in corpus.documents)
elif sys.argv[1] == "stream":
    n = sum(len(d.markables) for d in corefio.iter_read(path, "conll"))
else:
    import corefio.model  # what reading imports (pydantic), so that only data is compared
    n = 0
# VmHWM: peak resident memory of this process image (ru_maxrss would include the
# parent's, inherited across fork+exec)
hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1]
print(n, hwm)
"""


def peak_rss(mode: str, path: Path) -> tuple[int, float]:
    script = _MEMORY_SCRIPT.format(root=str(HERE.parent), path=str(path))
    out = subprocess.run([sys.executable, "-c", script, mode], capture_output=True, text=True, check=True)
    n, kb = out.stdout.split()
    return int(n), int(kb) / 1024


def main() -> None:
    key = HERE / "data" / "bench_key.v4_gold_conll"
    if not key.exists():
        from generate_corpus import generate  # type: ignore

        generate(HERE / "data")
    size_mb = key.stat().st_size / 1e6
    t_split, _ = best_of(lambda: split_baseline(key))
    t_bare, bare = best_of(lambda: bare_reader(key))
    t_read, corpus = best_of(lambda: corefio.read(key, "conll", report=Report()))
    tokens = sum(len(d.tokens.forms) for d in corpus.documents)
    mentions = sum(len(d.markables) for d in corpus.documents)
    assert mentions == sum(len(d) for d in bare), "bare reader and corefio disagree"
    t_write, text = best_of(lambda: corefio.dumps(corpus, "conll", report=Report()))
    identical = text == key.read_text(encoding="utf-8")
    print(f"corpus: {key.name}, {size_mb:.1f} MB, {len(corpus.documents)} documents, "
          f"{tokens:,} tokens, {mentions:,} mentions")
    print(f"{'split lines (baseline)':<34}{t_split:8.3f} s")
    print(f"{'bare reader (baseline)':<34}{t_bare:8.3f} s")
    print(f"{'corefio read':<34}{t_read:8.3f} s   {tokens / t_read:>12,.0f} tokens/s   "
          f"{t_read / t_bare:.2f}x bare   {t_read / t_split:.2f}x split")
    print(f"{'corefio write':<34}{t_write:8.3f} s   {tokens / t_write:>12,.0f} tokens/s   "
          f"byte-identical: {identical}")
    _, base = peak_rss("none", key)
    n_read, rss_read = peak_rss("read", key)
    n_stream, rss_stream = peak_rss("stream", key)
    assert n_read == n_stream == mentions
    print(f"{'peak memory, interpreter only':<34}{base:8.1f} MB")
    print(f"{'peak memory, read whole corpus':<34}{rss_read:8.1f} MB  (+{rss_read - base:.1f})")
    print(f"{'peak memory, stream documents':<34}{rss_stream:8.1f} MB  (+{rss_stream - base:.1f}, "
          f"{(rss_read - base) / max(rss_stream - base, 0.1):.0f}x less)")
    ok = t_read < 1 and t_write < 1 and t_read <= 3 * t_bare
    print("targets (read < 1 s, within 3x bare, write < 1 s):", "met" if ok else "NOT met")
    if "--convert" in sys.argv:
        convert_memory(key)


EXTENSIONS = {"conll": ".v4_gold_conll", "jsonlines": ".jsonlines", "conllu": ".conllu"}


def time_v(args: list[str]) -> tuple[float, float]:
    """(seconds, peak MB) of a command, from /usr/bin/time -v."""
    out = subprocess.run(["/usr/bin/time", "-v", *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {out.stderr[-2000:]}")
    peak = float(re.search(r"Maximum resident set size \(kbytes\): (\d+)", out.stderr).group(1)) / 1024
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", out.stderr).group(1)
    seconds = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall.split(":"))))
    return seconds, peak


def convert_memory(key: Path) -> None:
    """Peak memory of streaming conversions: the key, and ten times the key, in every
    pair of CoNLL, CoNLL-U and jsonlines (target: 300 MB)."""
    data = HERE / "data"
    big = data / "bench_key_x10.v4_gold_conll"
    if not big.exists():
        from generate_corpus import DOCS, generate  # type: ignore

        generate(data, DOCS * 10, "_x10")
    cli = [sys.executable, "-m", "corefio", "convert"]
    for label, source in (("benchmark", key), ("10x", big)):
        made = {"conll": source}
        stem = data / f"conv_{label}"
        worst = 0.0
        for target in ("jsonlines", "conllu"):
            out = stem.with_suffix(EXTENSIONS[target])
            seconds, peak = time_v([*cli, str(source), str(out)])
            made[target] = out
            worst = max(worst, peak)
            print(f"{'convert ' + label + ' conll -> ' + target:<40}{seconds:8.1f} s  peak {peak:7.1f} MB")
        for a, b in (("jsonlines", "conll"), ("conllu", "conll"), ("jsonlines", "conllu"), ("conllu", "jsonlines")):
            out = data / f"conv_{label}_{a}_to_{b}{EXTENSIONS[b]}"
            seconds, peak = time_v([*cli, str(made[a]), str(out)])
            worst = max(worst, peak)
            print(f"{'convert ' + label + ' ' + a + ' -> ' + b:<40}{seconds:8.1f} s  peak {peak:7.1f} MB")
            out.unlink()
        for target in ("jsonlines", "conllu"):
            made[target].unlink()
        print(f"{'worst peak, ' + label:<40}{worst:8.1f} MB  (target 300 MB: {'met' if worst <= 300 else 'NOT met'})")


if __name__ == "__main__":
    main()
