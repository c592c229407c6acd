"""End-to-end speed and memory of synchronised scoring, of the looser mention matching
modes and of ``corefio sync`` on the benchmark corpus (issue 10).

    python benchmarks/bench_sync.py             # generates benchmarks/data/ if missing

Each figure is the best of three runs of the real command line in a fresh process
(interpreter start, imports, reading both files, scoring or writing, printing), as in
bench_score.py: wall time, CPU time (user + system of every process of the command,
steadier than wall time on a busy machine) and the peak resident size of the largest
process.

Targets (issue 10, 2-core machine):

* ``corefio score KEY RESPONSE --sync all -m all`` (the four strategies of Popescu-Belis et al. (2004) side
  by side, every metric): at most 2.5 s;
* ``corefio score KEY RESPONSE --match head`` and ``--match partial``: at most 1.5 times
  the time of ``--match exact`` (the default);
* ``corefio sync KEY RESPONSE -o OUTDIR`` (both files synchronised and written as RAF
  XML): at most 3 s.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_score import run_corefio  # noqa: E402


def best_command(arguments: tuple[str, ...], repeat: int = 3) -> tuple[float, float, float]:
    """Best wall time, best CPU time and largest peak (MB) of ``repeat`` runs of
    ``python -m corefio ARGUMENTS``, each in a fresh process."""
    runs = [run_corefio(arguments, dict(os.environ)) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs)


def line(label: str, figures: tuple[float, float, float], extra: str = "") -> str:
    seconds, cpu, mb = figures
    return f"{label:<46}{seconds:7.3f} s  CPU {cpu:6.3f} s  peak {mb:6.1f} MB{extra}"


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.parse_args()
    key = HERE / "data" / "bench_key.v4_gold_conll"
    response = HERE / "data" / "bench_response.v4_auto_conll"
    if not key.exists() or not response.exists():
        from generate_corpus import generate  # type: ignore

        generate(HERE / "data")
    results: dict[str, bool] = {}

    synced = best_command(("score", str(key), str(response), "--sync", "all", "-m", "all"))
    print(line("corefio score --sync all -m all", synced))
    results["score --sync all -m all <= 2.5 s"] = synced[0] <= 2.5

    exact = best_command(("score", str(key), str(response), "--match", "exact"))
    print(line("corefio score --match exact", exact))
    for mode in ("head", "partial"):
        figures = best_command(("score", str(key), str(response), "--match", mode))
        ratio = figures[0] / exact[0]
        print(line(f"corefio score --match {mode}", figures, f"  {ratio:5.2f}x exact"))
        results[f"--match {mode} <= 1.5x exact"] = ratio <= 1.5

    with tempfile.TemporaryDirectory() as outdir:
        written = best_command(("sync", str(key), str(response), "-o", outdir))
        sizes = sorted(f"{p.name} {p.stat().st_size / 1e6:.1f} MB" for p in Path(outdir).iterdir())
    print(line("corefio sync -o OUTDIR", written, f"  ({', '.join(sizes)})"))
    results["sync <= 3 s"] = written[0] <= 3

    for target, ok in results.items():
        print(f"target {target}: {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
