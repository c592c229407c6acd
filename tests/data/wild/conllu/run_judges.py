"""Run the community scorers on the wild key/response pairs and store what they say.

Not run by the tests (they read ``judges.json`` beside the data). The scorers are copies
of their repositories taken out of git (``git archive``), never part of corefio:

    JUDGES=/work/judges python tests/data/wild/conllu/run_judges.py

* ``$JUDGES/corefud-scorer``: ufal/corefud-scorer at 4fd7b0e0c661aeeff88bc60c19ef507b84d1b590
  (it reads CoNLL-U with udapi, installed in corefio's environment);
* ``$JUDGES/ua-scorer-v2``: juntaoy/universal-anaphora-scorer, branch v2.0-Beta-Michal, at
  127ba3d8807fd30dabce6be9a8a755aec20bde9f (the UA scorer 2.0).

Each run's command line is executed in a child process with the scorer's directory as
working directory; its transcript (two decimals) is stored, and so are the full-precision
values the scorer printed, taken by wrapping its own ``evaluate_documents`` while the
command runs (``values``: metric → [recall, precision, F1] as fractions of 1).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
WILD = HERE.parent
JUDGES = Path(os.environ.get("JUDGES", "/work/judges"))
COREFUD = {"repo": "ufal/corefud-scorer", "commit": "4fd7b0e0c661aeeff88bc60c19ef507b84d1b590",
           "dir": "corefud-scorer", "script": "corefud-scorer.py"}
UA = {"repo": "juntaoy/universal-anaphora-scorer", "commit": "127ba3d8807fd30dabce6be9a8a755aec20bde9f",
      "dir": "ua-scorer-v2", "script": "ua-scorer.py"}

#: (family, key, response): the pairs scored
PAIRS = {
    "conllu": ["gum/en_gum-ud-dev.trimmed", "gum/GUM_interview_gaming.window", "democrat/fr-democrat-dev-sample",
               "gumreddit/en_gumreddit-ud-dev.macroeconomics",
               "corefud-scorer/TC-ZA.key",
               "corefud-scorer/TC-NCMA-7", "corefud-scorer/TC-HMA.key",
               "ko_ecmt/ko_ecmt-corefud-dev.first5docs"],
    "ua": ["codi-crac-2021/light_dev.episode_6497", "ua-scorer/TC-PB.key", "ua-scorer/TC-ZA.key",
           "ua-scorer/TC-NCMA-7", "codi-crac-2022/AMI_dev_v2.ES2004a.trimmed",
           "codi-crac-2022/AMI_dev_v2.ES2004d.trimmed"],
}
#: run name -> options after KEY RESPONSE
RUNS = {
    "conllu": {"default": [], "exact": ["-a", "exact"], "partial": ["-a", "partial"]},
    "ua": {"default": [], "discourse_deixis": ["-d"], "split_antecedents": ["-l"]},
}
EXTENSION = {"conllu": ".conllu", "ua": ".CONLLUA"}

CHILD = r"""
import io, json, runpy, sys, contextlib
from scorer.eval import evaluator
calls = []
original = evaluator.evaluate_documents
def recording(*args, **kwargs):
    result = original(*args, **kwargs)
    calls.append([float(x) for x in result])
    return result
evaluator.evaluate_documents = recording
script, argv = sys.argv[1], sys.argv[2:]
sys.argv = [script] + argv
out = io.StringIO()
with contextlib.redirect_stdout(out):
    runpy.run_path(script, run_name="__main__")
sys.stderr.write(json.dumps({"transcript": out.getvalue(), "calls": calls}))
"""


def run(judge: dict, family: str, name: str, options: list[str]) -> dict:
    key = WILD / family / (name + EXTENSION[family])
    response = WILD / family / (name + ".response" + EXTENSION[family])
    directory = JUDGES / judge["dir"]
    argv = [str(key), str(response), *options]
    done = subprocess.run([sys.executable, "-c", CHILD, judge["script"], *argv], cwd=directory,
                          capture_output=True, text=True, timeout=600)
    command = ["python", judge["script"], f"{family}/{name}{EXTENSION[family]}",
               f"{family}/{name}.response{EXTENSION[family]}", *options]
    if '{"transcript"' not in done.stderr:  # the scorer failed: its error is what it says
        return {"command": command, "error": done.stderr.strip().splitlines()[-1], "exit_code": done.returncode}
    payload = json.loads(done.stderr[done.stderr.index('{"transcript"'):])
    transcript = payload["transcript"]
    names = [line.strip() for line, nxt in zip(transcript.splitlines(), transcript.splitlines()[1:])
             if nxt.startswith("Recall:")]
    return {"command": command, "transcript": transcript, "values": dict(zip(names, payload["calls"]))}


def main() -> None:
    for family, judge in (("conllu", COREFUD), ("ua", UA)):
        entries = []
        for name in PAIRS[family]:
            runs = {run_name: run(judge, family, name, options) for run_name, options in RUNS[family].items()}
            entries.append({"key": name + EXTENSION[family], "response": name + ".response" + EXTENSION[family],
                            "judge": f"{judge['repo']}@{judge['commit']}", "runs": runs})
        path = WILD / family / "judges.json"
        path.write_text(json.dumps(entries, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
