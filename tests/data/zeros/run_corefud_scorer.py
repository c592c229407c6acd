"""Compute corefud-scorer's values on the zero cases of this folder (writes expected.json).

    python tests/data/zeros/run_corefud_scorer.py /tmp/corefud-scorer [COMMIT]

The argument is an unpacked copy of ufal/corefud-scorer (kept out of this repository:
``git -C <mirror> archive HEAD | tar -x -C /tmp/corefud-scorer``); its dependency udapi
must be importable. For each case and setting this runs the scorer's own command line,
``corefud-scorer.py KEY RESPONSE -s -a MATCH -z ZERO_MATCH`` (keep singletons, as corefio
does; zeros are always kept by corefud-scorer), and keeps its printed output, and it
computes the same numbers at full precision through the functions that command calls
(corefud_to_ua_args, the CorefUD reader, evaluate_documents).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MATCHES = ("exact", "head", "partial")
ZERO_MATCHES = ("linear", "dependent")
METRICS = ("muc", "bcub", "ceafe", "ceafm", "blanc", "lea")


def pairs() -> list[tuple[str, str]]:
    out = []
    for key in sorted(HERE.glob("*.key")):
        stem = key.name[: -len(".key")]
        out += [(key.name, r.name) for r in sorted(HERE.glob(f"{stem}-*.response"))]
    return out


def main(scorer: Path, commit: str) -> None:
    """``commit``: the scorer's commit (an archive has no .git to ask)."""
    sys.path.insert(0, str(scorer))
    cli = importlib.import_module("corefud-scorer")
    ua = importlib.import_module("ua-scorer")
    from scorer.corefud.reader import CorefUDReader
    from scorer.eval import evaluator

    cases = {}
    for key, response in pairs():
        for match in MATCHES:
            for zero_match in ZERO_MATCHES:
                argv = [key, response, "-s", "-a", match, "-z", zero_match]
                command = "python corefud-scorer.py " + " ".join(argv)
                run = subprocess.run([sys.executable, "corefud-scorer.py", str(HERE / key), str(HERE / response),
                                      *argv[2:]], cwd=scorer, capture_output=True, text=True)
                name = f"{response[: -len('.response')]}_{match}_{zero_match}"
                case = {"key": key, "response": response, "match": match, "zero_match": zero_match,
                        "command": command}
                if run.returncode != 0:
                    case["error"] = run.stderr.strip().splitlines()[-1]
                    cases[name] = case
                    continue
                args = cli.corefud_to_ua_args({"key_file": str(HERE / key), "sys_file": str(HERE / response),
                                               "metrics": ["all"], "keep_singletons": True, "match": match,
                                               "exact_match": False, "zero_match_method": zero_match})
                with contextlib.redirect_stdout(io.StringIO()):
                    ua.process_arguments(args)
                reader = CorefUDReader(**args)
                reader.get_coref_infos(args["key_file"], args["sys_file"])
                scores = {}
                for metric_name, metric in args["metrics"]:
                    if metric_name in METRICS:
                        r, p, f = evaluator.evaluate_documents(reader.doc_coref_infos, metric, beta=1)
                        scores[metric_name] = {"recall": r, "precision": p, "f1": f}
                case["scores"] = scores
                case["output"] = run.stdout.strip().splitlines()[2:]
                cases[name] = case
    result = {"scorer": f"ufal/corefud-scorer @ {commit or 'unknown commit'}", "cases": cases}
    (HERE / "expected.json").write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), sys.argv[2] if len(sys.argv) > 2 else "")
