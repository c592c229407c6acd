"""Write key and response files with spans repeated in the KEY (and in the response) and
what three judges say of them.

    python make_keys.py SCORER_PL_DIR COREFUD_SCORER_DIR COVAL_DIR

Cases (each a key and a response, CoNLL-2012 and CorefUD CoNLL-U, same chains):

* ``key-repeats/minimal``: one span ("John") in two key chains; the response is the key.
  A newcomer's minimal case: scorer.pl gives MUC 0 for this perfect response.
* ``key-repeats/twice-in-one``: a key chain lists one span twice (scorer.pl's CEAF then
  exceeds 100%), another span is in two key chains; the response differs.
* ``key-repeats/both``: repeats on both sides: a key span in three chains (the first
  mention of two of them), a two-token key span in two chains, a response that repeats a
  key span (scorer.pl leaves it out of the later chain) and one that matches no key
  mention (scorer.pl keeps it in both), merged and split chains, a missing mention.
* ``../wild/conll2012/repeats/realistic``: three news-like documents whose key has the
  repeats that annotation layers leave (an appositive in a person chain and a role
  chain, "They" in the couple's and in each spouse's chain, a pronoun listed twice in
  one chain), and a perturbed response (a merge, a split, a missing and an invented
  mention, repeats of its own).

The CoNLL files are written by corefio (``corefio.dumps``), so that scorer.pl meets the
chains in the order corefio gives them whatever the format. The CoNLL-U files are written
here (corefio's CoNLL-U writer keeps one mention per span): entity ids follow
corefud-scorer's (udapi's) entity order, first mention first, entities whose first
mentions have the same span numbered in corefio's order (udapi sorts those by id).

Judges (their code is not copied; each is unpacked outside corefio and run there):

* SCORER_PL_DIR: conll/reference-coreference-scorers @ f49f3f8a0e1cdc5ceba7c2a33013897369df5543
  (v8.01), run as ``perl scorer.pl METRIC key.conll response.conll none`` for each metric
  (the counts it prints are stored as printed) and ``perl scorer.pl all key.conll
  response.conll none`` (its whole output is stored as ``transcript``);
* COREFUD_SCORER_DIR: ufal/corefud-scorer @ 4fd7b0e0c661aeeff88bc60c19ef507b84d1b590
  (v1.2), run as ``python corefud-scorer.py key.conllu response.conllu -a exact -s -m
  muc bcub ceafe ceafm blanc lea``; the full-precision values come from wrapping its
  ``evaluate_documents`` while it runs (as ``make.py`` does);
* COVAL_DIR: ns-moosavi/coval @ 87071a6293dc2e786dcfe2ed78e9369c17e41b3b, its documented
  entry point on the CoNLL files (``reader.get_coref_infos(key, response, False, False,
  True, False)``, scorer.py's defaults, then ``evaluator.evaluate_documents``).
"""

import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REALISTIC = HERE.parent / "wild" / "conll2012" / "repeats" / "realistic"
SCORER_COMMIT = "f49f3f8a0e1cdc5ceba7c2a33013897369df5543"
COREFUD_COMMIT = "4fd7b0e0c661aeeff88bc60c19ef507b84d1b590"
COVAL_COMMIT = "87071a6293dc2e786dcfe2ed78e9369c17e41b3b"
METRICS = ["muc", "bcub", "ceafm", "ceafe", "blanc"]
COREFUD_METRICS = ["muc", "bcub", "ceafe", "ceafm", "blanc", "lea"]
COVAL_METRICS = ["mentions", "muc", "bcub", "ceafe", "ceafm", "lea"]
_RPF = re.compile(r"Recall: \(([-0-9.e]+) / ([-0-9.e]+)\).*?Precision: \(([-0-9.e]+) / ([-0-9.e]+)\)")

# A document: sentences in a markup of whitespace-separated items: "[x" opens a mention of
# chain x before the next word, "x]" closes chain x's last open mention, anything else is
# a word.
CASES = {
    "key-repeats/minimal": {
        "notes": "'John' in key chains 1 and 2; the response is the key (a newcomer's minimal case)",
        "key": {"d": ["[h [m John h] m] saw [h himself h] and [m Mary m]"]},
        "response": {"d": ["[h [m John h] m] saw [h himself h] and [m Mary m]"]},
    },
    "key-repeats/twice-in-one": {
        "notes": "key: 'it' (w5) twice in chain a, 'the cat' (w0-w1) in chains a and b; response: a "
                 "merge of the key's chains b and c, 'it' once",
        "key": {"d": ["[a [b The cat a] b] saw [c the dog c] and [a [a it a] a] ran to [b her b] [c owner c] ."]},
        "response": {"d": ["[a The cat a] saw [b the dog b] and [a it a] ran to [b her b] [b owner b] ."]},
    },
    "key-repeats/both": {
        "notes": "key: w0 in chains a, b and c (the first mention of a and b), 'w4 w5' in chains b and c; "
                 "response: w0 in chains x and y (a key mention: scorer.pl leaves it out of y), w6 in chains "
                 "x and z (no key mention: scorer.pl keeps both), 'w4 w5' in chain y only, w8 missing, "
                 "chains a and c merged",
        "key": {"d": ["[a [b [c w0 a] b] c] w1 [a w2 a] w3 [b [c w4 w5 b] c] w6 [a w7 a] [c w8 c] [b w9 b]"]},
        "response": {"d": ["[x [y w0 x] y] w1 [x w2 x] w3 [y w4 w5 y] [x [z w6 x] z] [x w7 x] w8 [y w9 y]"]},
    },
}

REALISTIC_CASE = {
    "notes": "three news-like documents written for corefio. Key: 'its chief executive' in the person "
             "chain and in a role chain (acme); 'They' in the couple's chain and in each spouse's (paris); "
             "'it' listed twice in one chain (museum). Response: the role chain repeated as in the key (a "
             "key mention: scorer.pl leaves it out of the later chain), the successor merged into the "
             "person chain, 'the company' missing, 'Roman coins' in two chains (no key mention), the "
             "bakery chain given 'the books'",
    "key": {
        "nw/acme": [
            "[a Acme Corp. a] said on Monday that [j [r [a its a] chief executive j] r] , [j Jane Doe j] , "
            "will retire in June .",
            "[j Doe j] , 61 , has led [a the company a] since 2009 .",
            "[j She j] told analysts that [b the board b] had already chosen [r [j her j] successor r] .",
            "[a The company a] did not name [r him r] .",
        ],
        "nw/paris": [
            "[c [j John j] and [m Mary m] c] met in [p Paris p] in 1998 .",
            "[c [j [m They c] j] m] married two years later and moved to [l Lyon l] , where [c they c] "
            "opened [k a bakery k] .",
            "[j John j] runs [k the shop k] ; [m Mary m] keeps [s the books s] .",
        ],
        "nw/museum": [
            "[m The museum m] reopened [w [m its m] east wing w] on Friday after [r a two-year renovation r] .",
            "[w The wing w] houses [c [m the museum 's m] collection of Roman coins c] .",
            "Visitors praised [w [w it w] w] .",
        ],
    },
    "response": {
        "nw/acme": [
            "[a Acme Corp. a] said on Monday that [j [r [a its a] chief executive j] r] , [j Jane Doe j] , "
            "will retire in June .",
            "[j Doe j] , 61 , has led the company since 2009 .",
            "[j She j] told analysts that [b the board b] had already chosen [j [j her j] successor j] .",
            "[a The company a] did not name [j him j] .",
        ],
        "nw/paris": [
            "[c [j John j] and [m Mary m] c] met in [p Paris p] in 1998 .",
            "[c They c] married two years later and moved to [l Lyon l] , where [c they c] opened "
            "[k a bakery k] .",
            "[j John j] runs [k the shop k] ; [m Mary m] keeps [k the books k] .",
        ],
        "nw/museum": [
            "[m The museum m] reopened [w [m its m] east wing w] on Friday after [r a two-year renovation r] .",
            "[w The wing w] houses [c [m the museum 's m] collection of [w [c Roman coins w] c] c] .",
            "Visitors praised [w it w] .",
        ],
    },
}


def parse(sentences: list[str]) -> tuple[list[list[str]], dict[str, list[tuple[int, int]]]]:
    """Sentences as lists of words, and chain name -> mention spans (first, last word of
    the document), from the markup above; chains in the order their first mention opens."""
    words: list[list[str]] = []
    chains: dict[str, list[tuple[int, int]]] = {}
    opened: dict[str, list[int]] = {}
    n = 0
    for sentence in sentences:
        words.append([])
        for item in sentence.split():
            if item.startswith("[") and len(item) > 1:
                chains.setdefault(item[1:], [])
                opened.setdefault(item[1:], []).append(n)
            elif item.endswith("]") and len(item) > 1 and item[:-1] in opened:
                chains[item[:-1]].append((opened[item[:-1]].pop(), n - 1))
            else:
                words[-1].append(item)
                n += 1
    assert not any(opened.values()), opened
    return words, chains


def corpus(documents: dict[str, list[str]]):
    """A corefio corpus of the documents (each chain a numbered entity)."""
    from corefio.model import Corpus, Document, Markable, Sentence, Tokens

    docs = []
    for name, sentences in documents.items():
        words, chains = parse(sentences)
        sents, first = [], 0
        for s in words:
            sents.append(Sentence(first=first, last=first + len(s) - 1))
            first += len(s)
        markables = [Markable(id=f"m{k}", spans=(span,), entity=f"e{c}")
                     for k, (c, span) in enumerate((c, span) for c, spans in enumerate(chains.values())
                                                   for span in spans)]
        docs.append(Document(name=name, part="000", tokens=Tokens(forms=[w for s in words for w in s]),
                             sentences=sents, markables=markables))
    return Corpus(documents=docs)


def write_conllu(path: Path, documents: dict[str, list[str]]) -> None:
    """CorefUD CoNLL-U of the documents: ``Entity`` brackets, the longer mention opened
    first, one-word mentions after the openers, closers innermost first; entity ids in
    corefud-scorer's order (module docstring); a flat tree (every word hangs from the
    first)."""
    from corefio.scoring.views import chain_order

    lines = ["# global.Entity = eid-etype-head-other"]
    for name, sentences in documents.items():
        words, chains = parse(sentences)
        spans = list(chains.values())
        eid = {c: f"e{rank + 1}" for rank, c in
               enumerate(chain_order([[((a, b),) for a, b in chain] for chain in spans], "corefud"))}
        opens: dict[int, list[tuple[int, str]]] = {}
        closes: dict[int, list[tuple[int, str]]] = {}
        single: dict[int, list[str]] = {}
        for c, chain in enumerate(spans):
            for a, b in chain:
                if a == b:
                    single.setdefault(a, []).append(f"({eid[c]}--1)")
                else:
                    opens.setdefault(a, []).append((b, f"({eid[c]}--1"))
                    closes.setdefault(b, []).append((a, f"{eid[c]})"))
        n = 0
        for k, sentence in enumerate(words):
            if k == 0:
                lines.append(f"# newdoc id = {name}")
            lines += [f"# sent_id = {name.replace('/', '-')}-{k + 1}", "# text = " + " ".join(sentence)]
            for i, word in enumerate(sentence):
                value = ("".join(x for _, x in sorted(opens.get(n, []), key=lambda o: -o[0]))
                         + "".join(single.get(n, []))
                         + "".join(x for _, x in sorted(closes.get(n, [])[::-1], key=lambda o: -o[0])))
                head, relation = ("0", "root") if i == 0 else ("1", "dep")
                lines.append("\t".join([str(i + 1), word, word, "X", "_", "_", head, relation, "_",
                                        f"Entity={value}" if value else "_"]))
                n += 1
            lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


COREFUD_CHILD = r"""
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

COVAL_CHILD = """
import json, sys
from coval.conll import reader
from coval.eval import evaluator
infos = reader.get_coref_infos(sys.argv[1], sys.argv[2], False, False, True, False)
out = {}
for name in %r:
    r, p, f = evaluator.evaluate_documents(infos, getattr(evaluator, {'bcub': 'b_cubed'}.get(name, name)), beta=1)
    out[name] = [r, p, f]
sys.stderr.write(json.dumps(out))
""" % (COVAL_METRICS,)


def scorer_pl(directory: str, key: Path, response: Path) -> dict:
    scores: dict = {}
    for metric in METRICS:
        command = ["perl", "scorer.pl", metric, str(key), str(response), "none"]
        text = subprocess.run(command, cwd=directory, capture_output=True, text=True, check=True).stdout
        printed = [list(_RPF.search(line).groups()) for line in text.splitlines() if "Recall: (" in line]
        scores["mentions"] = printed[0]
        if metric == "blanc":
            scores[metric] = {"coreference": printed[1], "non-coreference": printed[2]}
        else:
            scores[metric] = printed[1]
    transcript = subprocess.run(["perl", "scorer.pl", "all", str(key), str(response), "none"], cwd=directory,
                                capture_output=True, text=True, check=True).stdout
    # the first line names the folder scorer.pl ran from: kept without it
    return {"scores": scores, "transcript": transcript.split("\n", 1)[1]}


def corefud_scorer(directory: str, key: Path, response: Path) -> dict:
    options = ["-a", "exact", "-s", "-m", *COREFUD_METRICS]
    done = subprocess.run([sys.executable, "-c", COREFUD_CHILD, str(key), str(response), *options], cwd=directory,
                          capture_output=True, text=True, check=True)
    payload = json.loads(done.stderr[done.stderr.index('{"transcript"'):])
    return {"transcript": payload["transcript"], "values": dict(zip(COREFUD_METRICS, payload["calls"]))}


def coval(directory: str, key: Path, response: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", COVAL_CHILD, str(key), str(response)], cwd=directory,
                          capture_output=True, text=True, check=True)
    return {"values": json.loads(done.stderr[done.stderr.rindex("{"):])}


def judged(folder: Path, case: dict, dirs: list[str]) -> dict:
    import corefio

    folder.mkdir(parents=True, exist_ok=True)
    for side in ("key", "response"):
        (folder / f"{side}.conll").write_text(corefio.dumps(corpus(case[side]), "conll"), encoding="utf-8")
        write_conllu(folder / f"{side}.conllu", case[side])
    key, response = folder / "key.conll", folder / "response.conll"
    return {"notes": case["notes"],
            "scorer.pl": scorer_pl(dirs[0], key, response),
            "corefud-scorer": corefud_scorer(dirs[1], folder / "key.conllu", folder / "response.conllu"),
            "coval": coval(dirs[2], key, response)}


JUDGES = {
    "scorer.pl": {"repo": "conll/reference-coreference-scorers", "commit": SCORER_COMMIT, "version": "8.01",
                  "commands": ["perl scorer.pl METRIC key.conll response.conll none",
                               "perl scorer.pl all key.conll response.conll none"]},
    "corefud-scorer": {"repo": "ufal/corefud-scorer", "commit": COREFUD_COMMIT, "version": "1.2",
                       "command": "python corefud-scorer.py key.conllu response.conllu -a exact -s -m "
                                  + " ".join(COREFUD_METRICS),
                       "values": "metric -> [recall, precision, F1], from its evaluate_documents"},
    "coval": {"repo": "ns-moosavi/coval", "commit": COVAL_COMMIT,
              "command": "reader.get_coref_infos(key.conll, response.conll, False, False, True, False), then "
                         "evaluator.evaluate_documents per metric, run in the unpacked repository",
              "values": "metric -> [recall, precision, F1]"},
}


def main(dirs: list[str]) -> None:
    cases = {name: judged(HERE / name, case, dirs) for name, case in CASES.items()}
    out = {"judges": JUDGES, "cases": cases}
    (HERE / "key_repeats.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    out = {"judges": JUDGES, "cases": {"realistic": judged(REALISTIC, REALISTIC_CASE, dirs)}}
    (REALISTIC.parent / "realistic.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:4])
