"""Single-core cost of every command against a bare read of its input and output.

    python benchmarks/bench_bare.py                          # every command of bench_growth.py, 1x corpus
    python benchmarks/bench_bare.py --commands score 'convert-*' --repeat 5
    python benchmarks/bench_bare.py --report                 # the table of what was measured so far

For each command (the list of ``bench_growth.py``, on the same inputs), in one process
(``--jobs 1``): the CPU seconds (user + system) of ``python -m corefio COMMAND ...``, and
of ``python benchmarks/bare_read.py`` reading the same input files and the output files
the command wrote. ``bare_read.py``'s docstring says what the bare read does for each
format: for CoNLL-2012, lines split into columns and the coreference brackets paired;
for JSON lines, ``json.loads`` of every line; for XML, an ElementTree parse. Both run
as fresh processes measured the same way (``_measure.py``), so both include starting
the interpreter (the bare read imports nothing but the standard library, and pyarrow or
srsly for Parquet and DocBin; corefio's start-up, ``python -m corefio --version``, is
printed beside for scale, and the table also gives the ratio with both start-ups taken
off: corefio's ``--version`` time from the command's, ``python -c pass`` from the bare
read's). The two alternate, ``--repeat`` times each, and the best
(least) CPU time of each is kept: CPU time is what other load disturbs least.

Goals (the project's speed issue): every command at most 2x its bare read; ``score``
(every scoring row) at most 1.5x; scoring CoNLL-U at most 1.5x scoring the same corpus in
CoNLL-2012 (``score-conllu`` and ``score-conllu-head`` over ``score``). Rows over a goal
are printed with ``MISS``. Each measurement is appended to ``--results``
(``benchmarks/data/bare.jsonl``) so that the script can run in pieces.
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _measure import DATA, corefio_command, environment, machine, measure, record, records  # noqa: E402
from bench_growth import COMMANDS, DEFAULT, corpus  # noqa: E402

RESULTS = DATA / "bare.jsonl"
GOAL = 2.0
SCORE_GOAL = 1.5


def goal(name: str) -> float:
    return SCORE_GOAL if name.startswith("score") else GOAL


def bare_command(items: list[tuple[str, Path]]) -> list:
    return [sys.executable, str(HERE / "bare_read.py"), *(f"{fmt}={path}" for fmt, path in items)]


def run(name: str, scale: int, files: dict[str, Path], repeat: int, results: Path) -> dict:
    command = COMMANDS[name]
    env = environment()
    best_cmd = best_bare = None
    with tempfile.TemporaryDirectory(prefix="corefio-bare-") as out:
        out = Path(out)
        for _ in range(repeat):
            for leftover in out.iterdir():  # each run writes afresh
                import shutil

                shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
            args = command.args(files, out)
            if command.jobs:
                args = [*args, "--jobs", "1"]
            done = measure(corefio_command(*args), env=env)
            if done["code"] not in (0, 4):
                raise SystemExit(f"{name} failed ({done['code']}): {done['stderr']}")
            items = [*command.reads(files, out), *command.writes(files, out)]
            bare = measure(bare_command(items), env=env)
            if bare["code"]:
                raise SystemExit(f"bare read for {name} failed: {bare['stderr']}")
            if best_cmd is None or done["cpu"] < best_cmd["cpu"]:
                best_cmd = done
            if best_bare is None or bare["cpu"] < best_bare["cpu"]:
                best_bare = bare
        formats = sorted({fmt for fmt, _ in items})
    return record(results, {"command": name, "scale": scale, "cpu": round(best_cmd["cpu"], 4),
                            "wall": round(best_cmd["wall"], 4), "bare_cpu": round(best_bare["cpu"], 4),
                            "bare_wall": round(best_bare["wall"], 4), "formats": formats, "repeat": repeat})


def startup(results: Path, repeat: int) -> dict:
    runs = [measure(corefio_command("--version"), env=environment()) for _ in range(repeat)]
    bare = [measure([sys.executable, "-c", "pass"], env=environment()) for _ in range(repeat)]
    return record(results, {"command": "(start-up: --version)", "scale": 0, "cpu": min(r["cpu"] for r in runs),
                            "wall": min(r["wall"] for r in runs), "bare_cpu": min(r["cpu"] for r in bare),
                            "bare_wall": min(r["wall"] for r in bare), "formats": [], "repeat": repeat})


def report(results: Path, names: list[str] | None = None, out=sys.stdout) -> list[str]:
    table: dict[tuple[str, int], dict] = {}
    for entry in records(results):
        key = (entry["command"], entry["scale"])
        if key[1] == 0 and key in table:  # the start-up: the least disturbed of its runs
            entry = min(entry, table[key], key=lambda e: e["cpu"])
        table[key] = entry
    if not table:
        print(f"nothing measured yet in {results}", file=out)
        return []
    keys = [k for k in table if not names or k[0] in names or k[1] == 0]
    order = {name: i for i, name in enumerate(COMMANDS)}
    keys.sort(key=lambda k: (k[1] != 0, order.get(k[0], 99), k[1]))
    dates = sorted(table[k]["date"] for k in keys)
    loads = [table[k]["load"][0] for k in keys]
    print(f"runs from {dates[0]} to {dates[-1]}; load average (1 min) at their end {min(loads):.1f} to "
          f"{max(loads):.1f}", file=out)
    print(file=out)
    start = table.get(("(start-up: --version)", 0))
    print("| command | scale | corefio CPU s (--jobs 1) | bare read CPU s | ratio | ratio, start-ups taken off | goal | "
          "bare read of | verdict |", file=out)
    print("|---|---|---|---|---|---|---|---|---|", file=out)
    misses = []
    for k in keys:
        e = table[k]
        ratio = e["cpu"] / e["bare_cpu"] if e["bare_cpu"] else float("nan")
        if k[1] == 0:
            print(f"| {k[0]} | - | {e['cpu']:.3f} | {e['bare_cpu']:.3f} (`python -c pass`) | {ratio:.1f} | - | - | - | - |",
                  file=out)
            continue
        net = "-"
        if start and e["bare_cpu"] > start["bare_cpu"]:
            net = f"{max(e['cpu'] - start['cpu'], 0) / (e['bare_cpu'] - start['bare_cpu']):.1f}x"
        verdict = "ok" if ratio <= goal(k[0]) else "MISS"
        if verdict == "MISS":
            misses.append(f"MISS {k[0]} ({k[1]}x): {e['cpu']:.2f} s CPU = {ratio:.1f}x its bare read "
                          f"({e['bare_cpu']:.2f} s; goal {goal(k[0])}x)")
        print(f"| {k[0]} | {k[1]}x | {e['cpu']:.2f} | {e['bare_cpu']:.2f} | {ratio:.1f}x | {net} | {goal(k[0])}x | "
              f"{', '.join(e['formats'])} | {verdict} |", file=out)
    for scale in sorted({k[1] for k in keys if k[1]}):
        base = table.get(("score", scale))
        for name in ("score-conllu", "score-conllu-head"):
            e = table.get((name, scale))
            if base and e:
                ratio = e["cpu"] / base["cpu"]
                verdict = "ok" if ratio <= SCORE_GOAL else "MISS"
                line = (f"{name} over score (CoNLL-2012), {scale}x: {e['cpu']:.2f} / {base['cpu']:.2f} s CPU = "
                        f"{ratio:.2f}x (goal {SCORE_GOAL}x)")
                print(file=out)
                print(f"{line}: {verdict}", file=out)
                if verdict == "MISS":
                    misses.append("MISS " + line)
    print(file=out)
    for line in misses:
        print(line, file=out)
    return misses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", nargs="+", default=DEFAULT, help="shell patterns over bench_growth.py --list")
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--report", action="store_true", help="only print the table of what was measured")
    args = parser.parse_args()
    names = list(dict.fromkeys(n for p in args.commands for n in COMMANDS if fnmatch.fnmatchcase(n, p)))
    if not names:
        parser.error("no such command (see bench_growth.py --list)")
    print(machine(), flush=True)
    if not args.report:
        files = corpus(args.scale)
        e = startup(args.results, args.repeat)
        print(f"{'corefio start-up (--version)':<22} CPU {e['cpu']:6.2f} s   bare interpreter {e['bare_cpu']:6.2f} s",
              flush=True)
        for name in names:
            e = run(name, args.scale, files, args.repeat, args.results)
            print(f"{name:<22} CPU {e['cpu']:6.2f} s   bare read {e['bare_cpu']:6.2f} s   "
                  f"{e['cpu'] / e['bare_cpu']:5.1f}x (goal {goal(name)}x)   load {e['load'][0]:.1f}", flush=True)
        print()
    misses = report(args.results, names)
    sys.exit(1 if misses else 0)


if __name__ == "__main__":
    main()
