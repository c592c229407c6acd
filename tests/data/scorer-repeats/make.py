"""Write this folder's keys and responses and what the judges say of them.

    python make.py SCORER_PL_DIR COREFUD_SCORER_DIR

* ``key.conll``, ``response.conll`` (CoNLL-2012) and ``scorer_pl.json``: SCORER_PL_DIR is
  conll/reference-coreference-scorers at f49f3f8a0e1cdc5ceba7c2a33013897369df5543
  (v8.01), unpacked outside corefio. scorer.pl is run there as its users run it, ``perl
  scorer.pl METRIC key.conll response.conll none``; each line it prints with ``Recall:
  (n / d) ... Precision: (n / d)`` is stored as printed.
* ``key.conllu``, ``response.conllu`` (CorefUD) and ``corefud_scorer.json``: the same
  chains, the response's w9 widened to "w9 w10" (head w9) and listed in chains 1 and 3
  (head and partial matching pair it with the key's w9, exact matching does not).
  COREFUD_SCORER_DIR is ufal/corefud-scorer at 4fd7b0e0c661aeeff88bc60c19ef507b84d1b590
  (v1.2; it reads CoNLL-U with udapi), run there as ``python corefud-scorer.py
  key.conllu response.conllu OPTIONS``; the transcript is stored, and the full-precision
  values it printed, taken by wrapping its ``evaluate_documents`` while it runs
  (``values``: metric -> [recall, precision, F1]).
"""

import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMIT = "f49f3f8a0e1cdc5ceba7c2a33013897369df5543"
COREFUD_COMMIT = "4fd7b0e0c661aeeff88bc60c19ef507b84d1b590"
#: corefud-scorer runs: name -> options after KEY RESPONSE
COREFUD_RUNS = {"exact": ["-a", "exact", "-s"], "head": ["-a", "head", "-s"], "partial": ["-a", "partial", "-s"],
                "head-without-singletons": ["-a", "head"]}
COREFUD_METRICS = ["muc", "bcub", "ceafe", "ceafm", "blanc", "lea"]
METRICS = ["muc", "bcub", "ceafm", "ceafe", "blanc"]
_RPF = re.compile(r"Recall: \(([-0-9.e]+) / ([-0-9.e]+)\).*?Precision: \(([-0-9.e]+) / ([-0-9.e]+)\)")
#: token -> CoNLL coreference cell
KEY = {1: "(0)", 5: "(0)", 3: "(1)", 9: "(1)", 7: "(2)", 11: "(2)"}
RESPONSE = {1: "(0)", 2: "(0)|(1)|(2)", 3: "(1)", 4: "(0)|(0)|(1)", 5: "(0)|(1)", 6: "(1)|(2)", 7: "(2)",
            8: "(3)", 9: "(1)", 11: "(2)"}
NOTES = ("w2 (no key mention) in three response chains; w4 (no key mention) twice in chain 0 and once in "
         "chain 1; w6 (no key mention) in chains 1 and 2; w5 (a key mention) in chains 0 and 1, left out "
         "of chain 1 by scorer.pl; w8 an invented singleton")


def write(path: Path, cells: dict[int, str]) -> None:
    lines = ["#begin document (d); part 000"]
    lines += ["\t".join(["d", "0", str(i), f"w{i}", "-", "-", "-", "-", "-", "-", "-", cells.get(i, "-")])
              for i in range(12)]
    path.write_text("\n".join(lines + ["", "#end document", ""]), encoding="utf-8")


#: token -> the CorefUD Entity value: the chains of RESPONSE, w9 widened to w9 w10
KEY_CONLLU = {1: "(e0--1)", 5: "(e0--1)", 3: "(e1--1)", 9: "(e1--1)", 7: "(e2--1)", 11: "(e2--1)"}
RESPONSE_CONLLU = {1: "(e0--1)", 2: "(e0--1)(e1--1)(e2--1)", 3: "(e1--1)", 4: "(e0--1)(e0--1)(e1--1)",
                   5: "(e0--1)(e1--1)", 6: "(e1--1)(e2--1)", 7: "(e2--1)", 8: "(e3--1)", 9: "(e1--1(e3--1",
                   10: "e3)e1)", 11: "(e2--1)"}
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
sys.argv = ["corefud-scorer.py"] + sys.argv[1:]
out = io.StringIO()
with contextlib.redirect_stdout(out):
    runpy.run_path("corefud-scorer.py", run_name="__main__")
sys.stderr.write(json.dumps({"transcript": out.getvalue(), "calls": calls}))
"""


def write_conllu(path: Path, entities: dict[int, str]) -> None:
    lines = ["# newdoc id = d", "# global.Entity = eid-etype-head-other", "# sent_id = d-1",
             "# text = " + " ".join(f"w{i}" for i in range(12))]
    for i in range(12):
        misc = f"Entity={entities[i]}" if i in entities else "_"
        head, relation = ("0", "root") if i == 0 else ("1", "dep")
        lines.append("\t".join([str(i + 1), f"w{i}", f"w{i}", "X", "_", "_", head, relation, "_", misc]))
    path.write_text("\n".join(lines + ["", ""]), encoding="utf-8")


def corefud_scorer(directory: str) -> dict:
    write_conllu(HERE / "key.conllu", KEY_CONLLU)
    write_conllu(HERE / "response.conllu", RESPONSE_CONLLU)
    runs = {}
    for name, options in COREFUD_RUNS.items():
        argv = [str(HERE / "key.conllu"), str(HERE / "response.conllu"), *options, "-m", *COREFUD_METRICS]
        done = subprocess.run([sys.executable, "-c", CHILD, *argv], cwd=directory, capture_output=True, text=True,
                              check=True)
        payload = json.loads(done.stderr[done.stderr.index('{"transcript"'):])
        runs[name] = {"command": ["python", "corefud-scorer.py", "key.conllu", "response.conllu", *options, "-m",
                                  *COREFUD_METRICS],
                      "transcript": payload["transcript"],
                      "values": dict(zip(COREFUD_METRICS, payload["calls"]))}
    return {"judge": {"repo": "ufal/corefud-scorer", "commit": COREFUD_COMMIT, "version": "1.2"},
            "notes": NOTES + "; in the CoNLL-U files w9 of the response is 'w9 w10' (head w9), in chains 1 and 3",
            "runs": runs}


def main(scorer_dir: str, corefud_dir: str) -> None:
    write(HERE / "key.conll", KEY)
    write(HERE / "response.conll", RESPONSE)
    scores = {}
    for metric in METRICS:
        command = ["perl", "scorer.pl", metric, str(HERE / "key.conll"), str(HERE / "response.conll"), "none"]
        text = subprocess.run(command, cwd=scorer_dir, capture_output=True, text=True, check=True).stdout
        printed = [list(_RPF.search(line).groups()) for line in text.splitlines() if "Recall: (" in line]
        scores["mentions"] = printed[0]
        if metric == "blanc":
            scores[metric] = {"coreference": printed[1], "non-coreference": printed[2]}
        else:
            scores[metric] = printed[1]
        scores["repeated"] = text.count("Repeated mention in the response")
    out = {"judge": {"repo": "conll/reference-coreference-scorers", "commit": COMMIT, "version": "8.01",
                     "command": "perl scorer.pl METRIC key.conll response.conll none"},
           "notes": NOTES, "scores": scores}
    (HERE / "scorer_pl.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    judged = corefud_scorer(corefud_dir)
    (HERE / "corefud_scorer.json").write_text(json.dumps(judged, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
