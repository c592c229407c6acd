"""Run the community's scorers on the key/response pairs of this family; write judged.json.

The judges are not part of corefio: scorer.pl v8.01 (conll/reference-coreference-scorers)
and coval (ns-moosavi/coval), each unpacked from its repository into a folder given on
the command line, and run there as their users run them:

    python run_judges.py SCORER_PL_DIR SCORER_PL_COMMIT COVAL_DIR COVAL_COMMIT

scorer.pl prints each metric's recall and precision as ``(numerator / denominator)``;
both are stored as printed. coval prints rounded percentages only, so its documented
entry point (``reader.get_coref_infos`` then ``evaluator.evaluate_documents``, what its
``scorer.py`` calls) is run in a subprocess that prints the exact floats.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAIRS = [
    ("allennlp/coref.gold_conll", "allennlp/coref.perturbed.response"),
    ("acoli/cnr_0001.v4_gold_skel.sample.conll", "acoli/cnr_0001.perturbed.response"),
    ("acoli/eng_0001.v2_gold_skel.trimmed.conll", "acoli/eng_0001.perturbed.response"),
    ("cort/a2e_0000.trimmed.conll", "cort/a2e_0000.perturbed.response"),
    ("dutchcoref/knack_file7.gold.conll", "dutchcoref/knack_file7.perturbed.response"),
    ("dutchcoref/knack_file7.gold.conll", "dutchcoref/knack_file7.dutchcoref.conll"),
    ("dutchcoref/knack_file7.gold.conll", "dutchcoref/knack_file7.coreawebservice.conll"),
    ("litbank/158_emma_brat.trimmed.conll", "litbank/158_emma_brat.perturbed.response"),
]
SCORER_METRICS = ["muc", "bcub", "ceafm", "ceafe", "blanc"]
COVAL_METRICS = ["mentions", "muc", "bcub", "ceafe", "lea"]
_RPF = re.compile(r"Recall: \(([-0-9.e]+) / ([-0-9.e]+)\).*?Precision: \(([-0-9.e]+) / ([-0-9.e]+)\)")

COVAL_SNIPPET = """
import json, sys
from coval.conll import reader
from coval.eval import evaluator
infos = reader.get_coref_infos(sys.argv[1], sys.argv[2], False, False, True, False)
out = {}
for name in %r:
    r, p, f = evaluator.evaluate_documents(infos, getattr(evaluator, {'bcub': 'b_cubed'}.get(name, name)), beta=1)
    out[name] = {'recall': r, 'precision': p, 'f1': f}
print(json.dumps(out))
""" % (COVAL_METRICS,)


def scorer_pl(directory: Path, key: Path, response: Path) -> dict:
    out = {}
    for metric in SCORER_METRICS:
        command = ["perl", "scorer.pl", metric, str(key), str(response), "none"]
        text = subprocess.run(command, cwd=directory, capture_output=True, text=True, check=True).stdout
        lines = [x for x in text.splitlines() if "Recall: (" in x]
        mentions = _RPF.search(lines[0]).groups()
        if metric == "blanc":
            coref, noncoref = (_RPF.search(x).groups() for x in lines[1:3])
            out[metric] = {"coreference": coref, "non-coreference": noncoref}
        else:
            out[metric] = _RPF.search(lines[1]).groups()
        out["mentions"] = mentions
        out["repeated"] = text.count("Repeated mention in the response")
    return out


def coval(directory: Path, key: Path, response: Path) -> dict:
    command = [sys.executable, "-c", COVAL_SNIPPET, str(key), str(response)]
    text = subprocess.run(command, cwd=directory, capture_output=True, text=True, check=True).stdout
    return json.loads(text.strip().splitlines()[-1])


def main(scorer_dir: str, scorer_commit: str, coval_dir: str, coval_commit: str) -> None:
    results = []
    for key, response in PAIRS:
        k, r = HERE / key, HERE / response
        results.append({
            "key": key, "response": response,
            "scorer.pl": scorer_pl(Path(scorer_dir), k, r),
            "coval": coval(Path(coval_dir), k, r),
        })
    judged = {
        "judges": {
            "scorer.pl": {"repo": "conll/reference-coreference-scorers", "commit": scorer_commit,
                          "version": "8.01",
                          "command": "perl scorer.pl METRIC KEY RESPONSE none (METRIC in "
                                     + ", ".join(SCORER_METRICS) + "), run in the unpacked repository",
                          "fields": "[recall numerator, recall denominator, precision numerator, "
                                    "precision denominator] as printed"},
            "coval": {"repo": "ns-moosavi/coval", "commit": coval_commit,
                      "command": "python -c SNIPPET KEY RESPONSE, run in the unpacked repository; SNIPPET = "
                                 + COVAL_SNIPPET.strip(),
                      "settings": "keep_singletons=True, NP_only=False, remove_nested=False, min_span=False "
                                  "(scorer.py's defaults)"},
        },
        "perturbation": "perturb.py KEY RESPONSE (see its docstring)",
        "pairs": results,
    }
    (HERE / "judged.json").write_text(json.dumps(judged, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:5])
