"""End-to-end speed and memory of ``corefio score`` on the benchmark corpus.

    python benchmarks/bench_score.py             # generates benchmarks/data/ if missing
    python benchmarks/bench_score.py --scale 10  # a corpus ten times as large (memory bound)

Each figure is the best of three runs of the real command line in a fresh process
(``python -m corefio score KEY RESPONSE ...``: interpreter start, imports, reading both
files, every metric, printing), so it is what a user waits for. Baseline: a bare Python
read of the two files (lines split into columns and coreference brackets paired, no
model, no metric; see bench_conll.py). Memory: the peak resident size of the scoring
processes (the largest of them), measured from a small parent process; CPU: user +
system time of all of them (steadier than wall time on a busy machine), and of the main
process alone: it runs the start-up and the tail, and its share of the documents in
parallel with the worker, so on an idle machine it is about the wall time.

Targets (issues 4 and 7, 2-core machine): ``--metric all`` in under 1 second end to end
and under 150 MB; with ``--scale 10`` about the same peak memory (nothing that grows
with the corpus is kept: ``scan_keys`` and the views are read in pieces). For context,
the issue states that the Perl reference scorer needs over two minutes for its five
metrics on this corpus and coval about 7 seconds for four.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_conll import bare_reader, best_of  # noqa: E402

_RUN = """
import os, resource, subprocess, sys, tempfile, time
start = time.perf_counter()
with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
    process = subprocess.Popen(sys.argv[1:], stdout=out, stderr=err)
    # wait for the end without reaping: /proc still has the process's own CPU time
    os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)
    elapsed = time.perf_counter() - start
    try:
        with open(f"/proc/{process.pid}/stat") as stat:
            ticks = stat.read().rsplit(")", 1)[1].split()[11:13]  # utime, stime
        own = sum(map(int, ticks)) / os.sysconf("SC_CLK_TCK")
    except OSError:  # no /proc
        own = float("nan")
    if process.wait():
        err.seek(0)
        sys.stderr.write(err.read().decode())
        sys.exit(process.returncode)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(elapsed, usage.ru_utime + usage.ru_stime, own, usage.ru_maxrss)
"""


def run_detailed(arguments: tuple[str, ...], env: dict) -> tuple[float, float, float, float]:
    """(seconds, CPU seconds of all processes, CPU seconds of the main process, peak
    MB) of one ``python -m corefio ARGUMENTS`` run, in a fresh process."""
    command = [sys.executable, "-m", "corefio", *arguments]
    out = subprocess.run([sys.executable, "-c", _RUN, *command], capture_output=True, text=True,
                         check=True, cwd=HERE.parent, env=env)
    seconds, cpu, own, kb = out.stdout.split()
    return float(seconds), float(cpu), float(own), int(kb) / 1024


def run_corefio(arguments: tuple[str, ...], env: dict) -> tuple[float, float, float]:
    """(seconds, CPU seconds, peak MB) of one ``python -m corefio ARGUMENTS`` run, in a
    fresh process."""
    seconds, cpu, _, mb = run_detailed(arguments, env)
    return seconds, cpu, mb


def run_score(key: Path, response: Path, options: tuple[str, ...], env: dict) -> tuple[float, float, float, float]:
    """(seconds, CPU seconds, CPU seconds of the main process, peak MB) of one
    ``corefio score`` run, in a fresh process."""
    return run_detailed(("score", str(key), str(response), *options), env)


def best_run(key: Path, response: Path, options: tuple[str, ...], env: dict,
             repeat: int = 3) -> tuple[float, float, float, float]:
    """Best wall time, best CPU times (all processes; the main one) and largest peak of
    ``repeat`` runs."""
    runs = [run_score(key, response, options, env) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs), min(r[2] for r in runs), max(r[3] for r in runs)


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=int, default=1, help="times as many documents as the benchmark corpus")
    scale = parser.parse_args().scale
    suffix = f"_x{scale}" if scale > 1 else ""
    key = HERE / "data" / f"bench_key{suffix}.v4_gold_conll"
    response = HERE / "data" / f"bench_response{suffix}.v4_auto_conll"
    if not key.exists() or not response.exists():
        from generate_corpus import DOCS, generate  # type: ignore

        if scale > 1:
            generate(HERE / "data", docs=DOCS * scale, suffix=suffix)
        else:
            generate(HERE / "data")
    t_bare, (kd, rd) = best_of(lambda: (bare_reader(key), bare_reader(response)))
    print(f"corpus: {len(kd)} documents, {sum(map(len, kd)):,} key and {sum(map(len, rd)):,} response mentions")
    print(f"{'bare read of both files (baseline)':<52}{t_bare:7.3f} s")
    figures = {}
    env = {k: v for k, v in os.environ.items() if k != "COREFIO_WORKERS"}
    for label, options in (("default metrics", ()),
                           ("--metric all", ("--metric", "all")),
                           ("--metric all --jobs 1 (one process)", ("--metric", "all", "--jobs", "1"))):
        seconds, cpu, own, mb = best_run(key, response, options, env)
        figures[label] = (seconds, mb)
        print(f"{'corefio score, ' + label:<52}{seconds:7.3f} s  {seconds / t_bare:5.2f}x bare read  "
              f"CPU {cpu:6.3f} s (main process {own:5.3f} s)  peak {mb:6.1f} MB")
    # what --metric all computes, for the record
    out = subprocess.run([sys.executable, "-m", "corefio", "score", str(key), str(response), "-m", "all",
                          "--format", "json"], capture_output=True, text=True, check=True, cwd=HERE.parent)
    corpus = json.loads(out.stdout)["corpus"]
    print(f"metrics computed by --metric all: {len(corpus)} ({', '.join(corpus)})")
    for name in ("mentions", "muc", "bcub", "ceafm", "ceafe", "blanc", "lea"):
        print(f"  {name:<9} F1 {100 * corpus[name]['f1']:6.2f}")
    print(f"  {'conll':<9} F1 {100 * corpus['conll']['f1']:6.2f}")
    seconds, mb = figures["--metric all"]
    ok = seconds < 1 and mb < 150
    print("target (--metric all < 1 s end to end, < 150 MB):", "met" if ok else "NOT met")


if __name__ == "__main__":
    main()
