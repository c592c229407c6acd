"""Write this folder's key and response (CoNLL-2012) and what scorer.pl v8.01 says of them.

    python make.py SCORER_PL_DIR

SCORER_PL_DIR: conll/reference-coreference-scorers at
f49f3f8a0e1cdc5ceba7c2a33013897369df5543 (v8.01), unpacked outside corefio. scorer.pl is
run there as its users run it, ``perl scorer.pl METRIC key.conll response.conll none``;
each line it prints with ``Recall: (n / d) ... Precision: (n / d)`` is stored as printed.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMIT = "f49f3f8a0e1cdc5ceba7c2a33013897369df5543"
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


def main(scorer_dir: str) -> None:
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


if __name__ == "__main__":
    main(sys.argv[1])
