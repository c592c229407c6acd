"""Run corefud-scorer on its own test pairs copied here (writes judged.json).

    python tests/data/corefud-scorer-tests/run_corefud_scorer.py /work/judges/corefud-scorer COMMIT

The first argument is an unpacked copy of ufal/corefud-scorer (kept out of this
repository); its dependency udapi must be importable. For each key/response pair of this
folder and two settings, this runs the scorer's own command line from its folder and
keeps what it printed, and computes the same numbers at full precision through the
functions that command calls (corefud_to_ua_args, the CorefUD reader,
evaluate_documents):

* ``default``: ``corefud-scorer.py KEY RESPONSE``, the command ``--preset corefud``
  stands for (head matching, singletons left out, zeros matched by their dependencies);
* ``exact-singletons``: ``corefud-scorer.py KEY RESPONSE -a exact -s``, the settings
  the scorer's unit tests use for the exact-match cases (``--preset corefud --match
  exact --keep-singletons``).

A run that fails (corefud-scorer divides by zero on some zero cases) is kept with the
last line of its error.
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
METRICS = ("muc", "bcub", "ceafe", "ceafm", "blanc", "lea", "mor", "zero")
SETTINGS = {"default": [], "exact-singletons": ["-a", "exact", "-s"]}


def pairs() -> list[tuple[str, str]]:
    """(key, response) paths relative to this folder, in order."""
    out = []
    for key in sorted(HERE.rglob("*.key")):
        stem = key.name[: -len(".key")]
        out += [(str(key.relative_to(HERE)), str(r.relative_to(HERE)))
                for r in sorted(key.parent.glob(f"{stem}-*.response"))]
    return out


def _values(cli, ua, reader_class, evaluator, key: Path, response: Path, flags: list[str]) -> dict:
    match = flags[flags.index("-a") + 1] if "-a" in flags else "head"
    args = cli.corefud_to_ua_args({"key_file": str(key), "sys_file": str(response), "metrics": ["all"],
                                   "keep_singletons": "-s" in flags, "match": match, "exact_match": False,
                                   "zero_match_method": "dependent"})
    with contextlib.redirect_stdout(io.StringIO()):
        ua.process_arguments(args)
    reader = reader_class(**args)
    reader.get_coref_infos(args["key_file"], args["sys_file"])
    values = {}
    for name, metric in args["metrics"]:
        if name in METRICS:
            values[name] = list(evaluator.evaluate_documents(reader.doc_coref_infos, metric, beta=1))
    return values


def main(scorer: Path, commit: str) -> None:
    sys.path.insert(0, str(scorer))
    cli = importlib.import_module("corefud-scorer")
    ua = importlib.import_module("ua-scorer")
    from scorer.corefud.reader import CorefUDReader
    from scorer.eval import evaluator

    cases = []
    for key, response in pairs():
        case: dict = {"key": key, "response": response, "runs": {}}
        for setting, flags in SETTINGS.items():
            command = ["python", "corefud-scorer.py", key, response, *flags]
            run = subprocess.run([sys.executable, "corefud-scorer.py", str(HERE / key), str(HERE / response), *flags],
                                 cwd=scorer, capture_output=True, text=True)
            entry: dict = {"command": command}
            if run.returncode != 0:
                entry["error"] = run.stderr.strip().splitlines()[-1]
            else:
                entry["transcript"] = run.stdout
                entry["values"] = _values(cli, ua, CorefUDReader, evaluator, HERE / key, HERE / response, flags)
            case["runs"][setting] = entry
        cases.append(case)
    result = {"judge": {"repo": "ufal/corefud-scorer", "commit": commit, "version": "1.2"},
              "notes": "the test pairs of corefud-scorer's tests/tests-corefud, copied here; commands run from the "
                       "scorer's folder with the paths of this folder",
              "cases": cases}
    (HERE / "judged.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), sys.argv[2])
