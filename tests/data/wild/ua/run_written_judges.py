"""Run both versions of the UA scorer on UA files that corefio writes, and store what they say.

Not run by the tests (they read the ``judged.json`` files this writes and check that
corefio still writes the same bytes). The scorers are copies of their repositories taken
out of git (``git archive``), never part of corefio:

    JUDGES=/work/judges PYTHONPATH=. python tests/data/wild/ua/run_written_judges.py

* ``$JUDGES/juntaoy+universal-anaphora-scorer``: juntaoy/universal-anaphora-scorer, branch
  main, at f4adb45bcb3e2359abeffc6316ce9f99f409ca56 (the UA scorer 1.0, options as words);
* ``$JUDGES/ua-scorer-v2``: the same repository, branch v2.0-Beta-Michal, at
  127ba3d8807fd30dabce6be9a8a755aec20bde9f (the UA scorer 2.0).

What is written (with ``python -m corefio convert``, the commands are stored too):

* ``conllu/gumreddit/X.written.CONLLUA`` and ``X.response.written.CONLLUA`` from the
  GUMReddit key and response: multi-word-token lines (both scorers failed with an
  IndexError on the ten columns corefio 0.1.0 gave them) and bridging with a
  ``MentionAnchor`` (the scorer 1.0 failed without one). Judged: identity with each
  scorer's defaults, and the key's bridging against itself (scorer 1.0, ``keep_bridging``).
* ``ua/codi-crac-2022/AMI_dev_v2.ES2004d.trimmed.roundtrip.CONLLUA``: the AMI window
  written to CorefUD CoNLL-U and back. Judged against the original: identity, and bridging
  (scorer 1.0, ``keep_bridging``): mention-level bridging loses exactly the anchors
  corefio reports as ``loss.bridging-anchor``.

Each run's command is executed with the scorer's directory as working directory; its
transcript is stored, and the full-precision values, taken by wrapping the scorer's own
``evaluate_documents`` and ``evaluate_bridgings`` while it runs (``values``: metric →
[recall, precision, F1]; ``bridging``: anaphor recognition, mention level, entity level,
each [recall, precision, F1]).
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
V1 = {"name": "UA scorer 1.0", "repo": "juntaoy/universal-anaphora-scorer",
      "commit": "f4adb45bcb3e2359abeffc6316ce9f99f409ca56", "dir": "juntaoy+universal-anaphora-scorer",
      "module": "coval.eval.evaluator"}
V2 = {"name": "UA scorer 2.0", "repo": "juntaoy/universal-anaphora-scorer",
      "commit": "127ba3d8807fd30dabce6be9a8a755aec20bde9f", "dir": "ua-scorer-v2",
      "module": "scorer.eval.evaluator"}

CHILD = r"""
import contextlib, importlib, io, json, runpy, sys
evaluator = importlib.import_module(sys.argv[1])
calls, bridging = [], []
documents, bridgings = evaluator.evaluate_documents, evaluator.evaluate_bridgings
def recording(*args, **kwargs):
    result = documents(*args, **kwargs)
    calls.append([float(x) for x in result])
    return result
def recording_bridging(*args, **kwargs):
    result = bridgings(*args, **kwargs)
    bridging.extend([float(x) for x in part] for part in result)
    return result
evaluator.evaluate_documents, evaluator.evaluate_bridgings = recording, recording_bridging
sys.argv = sys.argv[2:]
out = io.StringIO()
with contextlib.redirect_stdout(out):
    runpy.run_path(sys.argv[0], run_name="__main__")
sys.stderr.write(json.dumps({"transcript": out.getvalue(), "calls": calls, "bridging": bridging}))
"""


def convert(source: Path, target: Path, to: str) -> list[str]:
    """Write ``target`` from ``source`` with corefio; the command, paths relative to WILD."""
    subprocess.run([sys.executable, "-m", "corefio", "convert", str(source), str(target), "--to", to],
                   check=True, capture_output=True)
    return ["python", "-m", "corefio", "convert", rel(source), rel(target), "--to", to]


def rel(path: Path) -> str:
    return path.resolve().relative_to(WILD).as_posix()


def run(judge: dict, key: Path, response: Path, options: list[str]) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, judge["module"], "ua-scorer.py", str(key), str(response),
                           *options], cwd=JUDGES / judge["dir"], capture_output=True, text=True, timeout=600)
    command = ["python", "ua-scorer.py", rel(key), rel(response), *options]
    out = {"judge": judge["name"], "command": command}
    if '{"transcript"' not in done.stderr:  # the scorer failed: its error is what it says
        return {**out, "error": done.stderr.strip().splitlines()[-1], "exit_code": done.returncode}
    payload = json.loads(done.stderr[done.stderr.index('{"transcript"'):])
    transcript = payload["transcript"]
    lines = transcript.splitlines()
    names = [line.strip() for line, nxt in zip(lines, lines[1:]) if nxt.startswith("Recall:")
             and not line.startswith(("Bridging", "Full bridging"))]
    out.update(transcript=transcript, values=dict(zip(names, payload["calls"])))
    if payload["bridging"]:
        out["bridging"] = payload["bridging"]
    return out


def judged(path: Path, written: list[list[str]], runs: list[dict]) -> None:
    data = {"judges": {j["name"]: {"repo": j["repo"], "commit": j["commit"]} for j in (V1, V2)},
            "written": written, "runs": runs}
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path}")


def main() -> None:
    base = WILD / "conllu" / "gumreddit" / "en_gumreddit-ud-dev.macroeconomics"
    key, response = base.with_name(base.name + ".written.CONLLUA"), base.with_name(base.name + ".response.written.CONLLUA")
    written = [convert(base.with_name(base.name + ".conllu"), key, "ua"),
               convert(base.with_name(base.name + ".response.conllu"), response, "ua")]
    runs = [run(V1, key, response, []), run(V2, key, response, []), run(V1, key, key, ["keep_bridging"])]
    judged(base.parent / "judged.json", written, runs)

    original = WILD / "ua" / "codi-crac-2022" / "AMI_dev_v2.ES2004d.trimmed.CONLLUA"
    middle = Path(os.environ.get("TMPDIR", "/tmp")) / "AMI_dev_v2.ES2004d.trimmed.conllu"
    back = original.with_name("AMI_dev_v2.ES2004d.trimmed.roundtrip.CONLLUA")
    subprocess.run([sys.executable, "-m", "corefio", "convert", str(original), str(middle), "--to", "conllu"],
                   check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "corefio", "convert", str(middle), str(back), "--to", "ua"],
                   check=True, capture_output=True)
    written = [["python", "-m", "corefio", "convert", rel(original), "MIDDLE.conllu", "--to", "conllu"],
               ["python", "-m", "corefio", "convert", "MIDDLE.conllu", rel(back), "--to", "ua"]]
    runs = [run(V1, original, back, ["keep_bridging"]), run(V2, original, back, [])]
    judged(original.parent / "judged.json", written, runs)


if __name__ == "__main__":
    main()
