"""Command line of the fuzzer: ``python -m tests.fuzz --minutes N --seed S``.

Examples::

    python -m tests.fuzz --minutes 20 --seed 1                 # the release run
    python -m tests.fuzz --seconds 30 --formats conll,conllu   # a quick look at two formats
    python -m tests.fuzz --seed 1 --replay conll:1234          # input 1234 of a campaign, alone
    python -m tests.fuzz --minutes 20 --save                   # keep minimised failures as regressions

Exit status: 0 when no defect was found, 1 when some were, 2 when nothing could be fuzzed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from . import fuzzer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.fuzz",
        description="Mutation fuzzer of corefio's readers, writers and scorer: every readable format, "
                    "seeded from tests/data and samples. Exit 0: no defect; 1: defects; 2: nothing fuzzed.")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--minutes", type=float, help="total fuzzing time, split evenly across formats")
    budget.add_argument("--seconds", type=float, help="the same in seconds (default 60)")
    budget.add_argument("--count", type=int, help="inputs per format instead of a time budget")
    parser.add_argument("--seed", type=int, default=0, help="campaign seed (default 0)")
    parser.add_argument("--formats", help="comma-separated format names (default: every readable format)")
    parser.add_argument("--jobs", type=int, default=2, help="inputs checked at once (default 2)")
    parser.add_argument("--minimise-seconds", type=float, default=20.0,
                        help="time to minimise each distinct defect (0: do not minimise)")
    parser.add_argument("--minimise-total", type=float, default=300.0, help="time to minimise all defects")
    parser.add_argument("--save", nargs="?", const=str(fuzzer.REGRESSIONS), metavar="DIR",
                        help=f"keep minimised failing inputs in DIR (default {fuzzer.REGRESSIONS.relative_to(fuzzer.REPO)})")
    parser.add_argument("--json", metavar="PATH", help="write the summary as JSON")
    parser.add_argument("--replay", metavar="FORMAT:INDEX", help="check one input of the campaign and print it")
    parser.add_argument("--quiet", action="store_true", help="print the summary only")
    args = parser.parse_args(argv)

    if args.replay:
        return replay(args.replay, args.seed)
    seconds = args.minutes * 60 if args.minutes is not None else (args.seconds if args.seconds is not None else 60.0)
    formats = [f.strip() for f in args.formats.split(",") if f.strip()] if args.formats else None
    campaign = fuzzer.Campaign(
        seed=args.seed, seconds=seconds, formats=formats, jobs=args.jobs, count=args.count,
        minimise_seconds=args.minimise_seconds, minimise_total=args.minimise_total,
        save=Path(args.save) if args.save else None,
        log=(lambda message: None) if args.quiet else (lambda message: print(message, flush=True)),
    )
    summary = campaign.run()
    print(fuzzer.format_summary(summary), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
    if summary.get("error") or not summary["formats"]:
        return 2
    return 1 if summary["defects"] else 0


def replay(spec: str, seed: int) -> int:
    """Rebuild input INDEX of FORMAT under ``seed``, check it and print what failed."""
    name, _, index = spec.partition(":")
    workdir = Path(tempfile.mkdtemp(prefix="corefio-fuzz-replay-"))
    try:
        targets = {t.name: t for t in fuzzer.discover([name], workdir, print)}
        if name not in targets:
            print(f"{name}: nothing to replay")
            return 2
        item = fuzzer.make_input(targets[name], seed, int(index))
        print(f"input {item.index} of {name} (seed {seed}): {item.seed.label}, "
              f"mutations {'+'.join(item.mutations) or 'none'}, {len(item.data)} bytes")
        print(repr(item.data[:2000]))
        result = fuzzer.Pool(targets, workdir, 1).check(item)
        for f in result.findings:
            print(f"[{f['check']} at {f['step']}] {f['kind']}: {f['message']}")
        print("read: " + {True: "accepted", False: "refused", None: "no result"}[result.accepted])
        return 1 if result.findings else 0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
