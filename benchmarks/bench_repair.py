"""Repair and MUC reading time per byte on pathological inputs (issue #25).

    python benchmarks/bench_repair.py                     # sizes 10K 100K 1M 10M
    python benchmarks/bench_repair.py --sizes 10K 100K 1M --only unclosed-comment less-than-run
    python benchmarks/bench_repair.py --muc               # the MUC reader too

For each input of ``tests/test_repair_linear.py`` (unclosed ``<!--``, ``<?``,
``<![CDATA[``, ``<!DOCTYPE``, runs of ``<`` and ``&``, unclosed quotes, long names, many
attributes, deep and crossing tags, ...), prints the time of ``corefio.io.repair.repair_text``
per byte at each size: a flat row is linear time, a row that grows with the size is not
(a quadratic one grows tenfold from one column to the next). With ``--muc``, the time of
reading the input wrapped in a MUC ``DOC`` (lenient) follows in a second table. A size
whose previous one took longer than ``--budget`` seconds is skipped (``-``): ten times as
large would take ten times as long, and a tiny token per byte costs about 300 bytes of
memory (10 MB of ``&`` is 10 million tokens). The garbage collector is tuned as the CLI
tunes it (with Python's default thresholds, its passes over the growing heap add about a
factor two at 1 MB).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import corefio  # noqa: E402
from corefio.io import repair  # noqa: E402
from corefio.errors import CorefioError  # noqa: E402
from tests.test_repair_linear import PATTERNS  # noqa: E402


def size_of(text: str) -> int:
    units = {"K": 1000, "M": 1000 ** 2}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].upper() in units else int(text)


def seconds(run: Callable[[], object]) -> float:
    """How long ``run`` takes, or takes to refuse its input (the MUC reader refuses
    nesting deeper than 100 levels)."""
    gc.collect()
    start = time.perf_counter()
    try:
        run()
    except CorefioError:
        pass
    return time.perf_counter() - start


def table(title: str, work: Callable[[str], object], names: list[str], sizes: list[int], budget: float) -> None:
    print(f"\n{title}: nanoseconds per byte (flat = linear)")
    print(f"{'input':<30}" + "".join(f"{s:>12,}" for s in sizes))
    for name in names:
        row = []
        last = 0.0
        for size in sizes:
            if last > budget:
                row.append(f"{'-':>12}")
                continue
            text = PATTERNS[name](size)
            nbytes = len(text.encode("utf-8"))
            last = seconds(lambda: work(text))  # noqa: B023
            row.append(f"{last * 1e9 / nbytes:>12.0f}")
        print(f"{name:<30}" + "".join(row), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", default=["10K", "100K", "1M", "10M"])
    parser.add_argument("--only", nargs="+", choices=sorted(PATTERNS), help="these inputs only")
    parser.add_argument("--muc", action="store_true", help="also time reading each input as MUC")
    parser.add_argument("--budget", type=float, default=20.0,
                        help="skip the larger sizes of an input once one size took longer (seconds)")
    args = parser.parse_args()
    gc.set_threshold(100_000, 50, 100)  # as the CLI sets it
    sizes = [size_of(s) for s in args.sizes]
    names = args.only or list(PATTERNS)
    table("repair_text", repair.repair_text, names, sizes, args.budget)
    if args.muc:
        def muc(text: str) -> object:
            if not text.startswith("<DOC>"):
                text = "<DOC><TEXT>" + text + "</TEXT></DOC>"
            return corefio.read(text.encode("utf-8"), format="muc")

        table("MUC read (lenient)", muc, names, sizes, args.budget)


if __name__ == "__main__":
    main()
