"""Write benchmarks/RESULTS.md from what bench_growth.py, bench_bare.py and
bench_peers.py recorded (their JSON-lines files in benchmarks/data/).

    python benchmarks/write_results.py [--note TEXT]

The file gets the date it was written, the machine (``uname -m``, CPU model, cores), the
load average now, the three scripts' tables as their ``--report`` prints them (each
with the dates and load averages of its runs), and every FAIL and MISS line gathered at
the end. ``--note`` adds a paragraph under the heading (e.g. what else ran on the machine).

It also puts the newest peers table (``bench_peers.py --report``, with its date and load)
into ``docs/scale.md``, between the lines ``<!-- peers: begin -->`` and ``<!-- peers:
end -->`` (``--docs`` names another page; ``--docs ''``: none), so that the page shows
what was measured, not figures typed by hand.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_bare  # noqa: E402
import bench_growth  # noqa: E402
import bench_peers  # noqa: E402
from _measure import machine  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--note", default="", help="a paragraph to add under the heading")
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS.md")
    parser.add_argument("--docs", default=str(HERE.parent / "docs" / "scale.md"),
                        help="the page whose peers table is replaced ('': none)")
    args = parser.parse_args()
    parts = ["# Benchmark results", "",
             "Written by `python benchmarks/write_results.py` from the runs recorded by `bench_growth.py`, "
             "`bench_bare.py` and `bench_peers.py` (`benchmarks/README.md` says what each measures).", "",
             f"Written: {machine()}.", ""]
    if args.note:
        parts += [args.note, ""]
    problems: list[str] = []
    for title, explain, run in (
        ("Growth with the input (`bench_growth.py`)",
         "CPU is user + system of the whole process tree; peak is the largest resident size of any one process, "
         "'all processes' the sampled sum. Growth factors over 1x; FAIL beyond 2.5x (2x input) or 12x (10x input), "
         "in CPU time or peak memory. `-` in jobs: the command has no `--jobs`.",
         lambda out: bench_growth.report(bench_growth.RESULTS, out=out)),
        ("Against a bare read (`bench_bare.py`)",
         "Single core (`--jobs 1`): corefio's CPU time over the CPU time of `bare_read.py` reading the same input and "
         "output files (both fresh processes, interpreter start included). Goals: 2x; score 1.5x; CoNLL-U scoring "
         "1.5x CoNLL-2012 scoring.",
         lambda out: bench_bare.report(bench_bare.RESULTS, out=out)),
        ("Against the peers (`bench_peers.py`)",
         "Best of the rounds of the newest run; CPU ratio = peer CPU / corefio `--jobs 1` CPU, wall ratio = peer wall "
         "/ corefio (default processes) wall. Goals (on a quiet machine): coval 10x, scorch 7x, udapy 12x, "
         "corefud-scorer (head) 20x.",
         lambda out: bench_peers.report(bench_peers.RESULTS, out=out)),
    ):
        out = io.StringIO()
        problems += run(out)
        parts += [f"## {title}", "", explain, "", out.getvalue().rstrip(), ""]
    parts += ["## Every FAIL and MISS", ""]
    parts += [f"- {line}" for line in problems] or ["none"]
    args.output.write_text("\n".join(parts) + "\n", encoding="utf-8")
    print(f"wrote {args.output} ({len(problems)} FAIL/MISS lines)")
    if args.docs:
        peers_table(Path(args.docs))


BEGIN, END = "<!-- peers: begin -->", "<!-- peers: end -->"


def peers_table(page: Path, results: Path = bench_peers.RESULTS) -> None:
    """Replace what stands between :data:`BEGIN` and :data:`END` in ``page`` with the
    newest run of ``bench_peers.py`` (recorded in ``results``) as its ``--report``
    prints it."""
    text = page.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{page} has no '{BEGIN}' ... '{END}' lines to put the peers table between")
    out = io.StringIO()
    bench_peers.report(results, out=out)
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    page.write_text(f"{head}{BEGIN}\n{out.getvalue().strip()}\n{END}{tail}", encoding="utf-8")
    print(f"wrote the peers table into {page}")


if __name__ == "__main__":
    main()
