"""Time against counted work: the inputs of the linearity tests, timed.

    python benchmarks/bench_linear.py                  # every input, 8,000 and 64,000 characters
    python benchmarks/bench_linear.py --size 20000 --factor 10
    python benchmarks/bench_linear.py --reproducers    # also S07-S09 of ../shared/reproducers

``tests/test_repair_linear.py`` and ``tests/test_muc_linear.py`` check that the repair
lexer and fixers and the MUC reader do work linear in their input by *counting* it
(:func:`corefio.io.repair.counting`: the characters their searches and matches look at,
and their loop steps), which gives the same figures on a loaded machine. This script
measures what the tests no longer do: for each input at two sizes, the best of three
runs (the garbage collector paused) and the counted work, then the ratio of the larger
to the smaller for both. A linear step gives ratios near the size factor in both
columns; a step that rescans the text gives a time ratio near the square of the factor,
and its work ratio says so too, unless the rescanning happens where nothing is counted
(then the time column alone shows it: the reason this script exists).

Below some tens of kilobytes the time ratios run high for reasons that are not the
algorithm (the smaller input's run fits the caches; measured: unclosed ``<!DOCTYPE`` took
1.7, 59 and 634 ms at 8,000, 64,000 and 512,000 characters, a ratio of 35 and then of
11): compare ``--size 64000`` too before calling a step quadratic.
"""

from __future__ import annotations

import argparse
import gc
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import corefio  # noqa: E402
from corefio.errors import CorefioError  # noqa: E402
from corefio.io import repair  # noqa: E402
from tests.test_muc_linear import many_min_alternatives, nested_corefs, sibling_corefs  # noqa: E402
from tests.test_repair_linear import PATTERNS  # noqa: E402

SHARED = HERE.parent.parent / "shared" / "reproducers"


def best_time(run: Callable[[], object], tries: int = 3) -> float:
    """The shortest of ``tries`` runs, the garbage collector paused (its passes over
    every live object are not the work measured here); a refusal ends a run too."""
    best = float("inf")
    collecting = gc.isenabled()
    gc.disable()
    try:
        for _ in range(tries):
            start = time.perf_counter()
            try:
                run()
            except CorefioError:
                pass
            best = min(best, time.perf_counter() - start)
    finally:
        if collecting:
            gc.enable()
    return best


def counted(run: Callable[[], object]) -> int:
    with repair.counting() as work:
        try:
            run()
        except CorefioError:
            pass
    return work.total


def muc_read(text: str) -> object:
    return corefio.read(text.encode("utf-8"), format="muc")


def in_doc(make: Callable[[int], str]) -> Callable[[int], str]:
    return lambda size: "<DOC><TEXT>" + make(size) + "</TEXT></DOC>"


def row(label: str, work: Callable[[str], object], make: Callable[[int], str], size: int, factor: int) -> None:
    small, large = make(size), make(size * factor)
    t_small, t_large = best_time(lambda: work(small)), best_time(lambda: work(large))
    w_small, w_large = counted(lambda: work(small)), counted(lambda: work(large))
    print(f"{label:<44}{t_small * 1e3:>10.2f}{t_large * 1e3:>10.2f}{t_large / max(t_small, 1e-9):>8.1f}"
          f"{w_small:>12,}{w_large:>12,}{w_large / max(w_small, 1):>8.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=8000, help="characters of the smaller input")
    parser.add_argument("--factor", type=int, default=8, help="how much larger the second input is")
    parser.add_argument("--reproducers", action="store_true", help="also time S07-S09 of ../shared/reproducers")
    args = parser.parse_args()
    size, factor = args.size, args.factor
    print(f"sizes {size:,} and {size * factor:,} characters; a linear step has both ratios near {factor}")
    print(f"{'input':<44}{'ms':>10}{'ms':>10}{'ratio':>8}{'work':>12}{'work':>12}{'ratio':>8}")
    for name, make in sorted(PATTERNS.items()):
        row(f"repair {name}", lambda text: repair.repair_text(text), make, size, factor)
    for name in ("unclosed-comment", "unclosed-pi", "unclosed-declaration", "unclosed-tag", "unclosed-double-quote",
                 "quotes-holding-tags", "long-tag-name", "muc-unclosed-comments", "muc-unclosed-quotes"):
        make = PATTERNS[name] if name.startswith("muc-") else in_doc(PATTERNS[name])
        row(f"muc read {name}", muc_read, make, size, factor)
    for make in (many_min_alternatives, nested_corefs, sibling_corefs):
        row(f"muc read {make.__name__}", muc_read, make, max(size, 20000), factor)
    if args.reproducers:
        print("\nreproducers: best of three, and the counted work")
        for name, run in (("S07_muc_unclosed_comments_80KB.sgm", "repair"), ("S08_xml_unclosed_pi_40KB.xml", "repair"),
                          ("S09_raf_unclosed_comments_80KB.raf.xml", "repair"),
                          ("S07_muc_unclosed_comments_80KB.sgm", "muc"), ("S09_raf_unclosed_comments_80KB.raf.xml", "raf")):
            path = SHARED / name
            if not path.exists():
                print(f"{name}: not here ({SHARED})")
                continue
            data = path.read_bytes()
            work: Callable[[], object]
            if run == "repair":
                work = lambda data=data: repair.repair_bytes(data)  # noqa: E731
            else:
                copy = Path(shutil.copy(path, Path("/tmp") / f"bench_linear_{name}"))
                work = lambda copy=copy, run=run: corefio.read(copy, format=run)  # noqa: E731
            print(f"{run + ' ' + name:<50}{best_time(work) * 1e3:>10.1f} ms{counted(work):>12,} work "
                  f"for {len(data):,} bytes")


if __name__ == "__main__":
    main()
