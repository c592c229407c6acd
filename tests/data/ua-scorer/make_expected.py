"""Regenerates ``expected/*.json`` by running the Universal Anaphora scorer on every case.

Not run by the tests (they read the JSON files it wrote). Run from anywhere:

    UA_V1=/tmp/ua-scorer-v1 UA_V2=/tmp/ua-scorer-v2 python tests/data/ua-scorer/make_expected.py

``UA_V1`` is a copy of juntaoy/universal-anaphora-scorer at ``main`` (f4adb45), ``UA_V2`` of
branch ``v2.0-Beta-Michal`` (127ba3d), both taken out of git with ``git archive`` (see the
README next to this file). For every case and every mode the scorer's command line is run
(``ua-scorer.py`` with that argument list, executed in one long-lived child process per
version for speed) and its transcript stored; the transcript prints two decimals, so the same settings are
also evaluated by calling the scorer's own reader and evaluator functions in a child
process (``library`` entries), which gives the full-precision values the tests compare
against. Each expected value names the scorer version it came from.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
V1 = Path(os.environ.get("UA_V1", "/tmp/ua-scorer-v1"))
V2 = Path(os.environ.get("UA_V2", "/tmp/ua-scorer-v2"))
VERSIONS = {"v1": "universal-anaphora-scorer main f4adb45",
            "v2": "universal-anaphora-scorer v2.0-Beta-Michal 127ba3d"}
METRICS = ["muc", "bcub", "ceafe", "ceafm", "blanc", "lea"]

#: corefio mode -> (v1 CLI words, v2 CLI options); None: that version has no such mode
MODES = {
    "identity": (["remove_split_antecedent"], ["-s", "-m", *METRICS]),
    "identity_no_singletons": (["remove_singletons", "remove_split_antecedent"], ["-m", *METRICS]),
    "split_antecedents": ([], ["-l", "-m", *METRICS]),
    "split_antecedents_only": (["only_split_antecedent"], ["-l", "--only-split-antecedent", "-m", *METRICS]),
    "discourse_deixis": (["evaluate_discourse_deixis"], ["-d", "-m", *METRICS]),
    "non_referring_bridging": (["keep_non_referring", "keep_bridging"], ["-s", "-m", "non-referring", "bridging"]),
}

#: settings of the library calls, per mode (the same switches the command lines set)
SETTINGS = {
    "identity": dict(keep_singletons=True, keep_split_antecedents=False),
    "identity_no_singletons": dict(keep_singletons=False, keep_split_antecedents=False),
    "split_antecedents": dict(keep_singletons=True, keep_split_antecedents=True),
    "split_antecedents_only": dict(keep_singletons=True, keep_split_antecedents=True, only_split_antecedent=True),
    "discourse_deixis": dict(keep_singletons=True, keep_split_antecedents=True, evaluate_discourse_deixis=True),
    "non_referring_bridging": dict(keep_singletons=True, keep_split_antecedents=False, keep_non_referring=True,
                                   keep_bridging=True),
    "mor": dict(keep_singletons=True, keep_split_antecedents=False, partial_match=True, mor_only=True),
}

# The child process (one per scorer version, kept running) reads one JSON job per line and
# answers one JSON line: a "cli" job runs ua-scorer.py with that argv (runpy in the child,
# stdout captured: the transcript the command prints), a "library" job evaluates the same
# settings with the scorer's own reader and evaluator and gives full-precision values.
CHILD = r"""
import contextlib, io, json, logging, runpy, sys, traceback
real_stdout = sys.stdout
for line in sys.stdin:
    job = json.loads(line)
    if job["kind"] == "cli":
        out, err = io.StringIO(), io.StringIO()
        sys.argv = job["argv"]
        code = 0
        handler = logging.StreamHandler(err)
        logging.getLogger().addHandler(handler)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                runpy.run_path(job["script"], run_name="__main__")
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:
                code = 1
                traceback.print_exc()
        logging.getLogger().removeHandler(handler)
        answer = {"exit": code, "stdout": out.getvalue(), "stderr": err.getvalue()}
    else:
        try:
            logging.disable(logging.CRITICAL)
            with contextlib.redirect_stdout(io.StringIO()):
                answer = LIBRARY(job["key"], job["response"], dict(job["settings"]))
        except BaseException as exc:
            answer = "error: " + repr(exc)
        finally:
            logging.disable(logging.NOTSET)
    real_stdout.write(json.dumps(answer) + "\n")
    real_stdout.flush()
"""

V1_LIBRARY = r"""
from coval.ua import reader
from coval.eval import evaluator
def LIBRARY(key, sys_file, settings):
    metrics = {'muc': evaluator.muc, 'bcub': evaluator.b_cubed, 'ceafe': evaluator.ceafe,
               'ceafm': evaluator.ceafm, 'blanc': [evaluator.blancc, evaluator.blancn], 'lea': evaluator.lea}
    coref, nonref, bridging = reader.get_coref_infos(
        key, sys_file, settings.get('keep_singletons', True), settings.get('keep_split_antecedents', True),
        settings.get('keep_bridging', False), settings.get('keep_non_referring', False),
        settings.get('evaluate_discourse_deixis', False), False)
    out = {}
    if settings.get('partial_match'):
        return {}
    for name, metric in metrics.items():
        out[name] = list(evaluator.evaluate_documents(coref, metric, beta=1,
                         only_split_antecedent=settings.get('only_split_antecedent', False)))
    if settings.get('keep_non_referring'):
        out['non_referring'] = list(evaluator.evaluate_non_referrings(nonref))
    if settings.get('keep_bridging'):
        ar, fbm, fbe = evaluator.evaluate_bridgings(bridging)
        out['bridging_anaphor_recognition'] = list(ar)
        out['bridging_mention'] = list(fbm)
        out['bridging_entity'] = list(fbe)
    return out
"""

V2_LIBRARY = r"""
from scorer.ua.reader import UAReader
from scorer.corefud.reader import CorefUDReader
from scorer.eval import evaluator
def LIBRARY(key, sys_file, settings):
    if settings.pop('corefud', False):
        # the crac22 preset's settings (-t crac22), zeros matched by their places
        reader = CorefUDReader(keep_singletons=False, keep_zeros=True, partial_match=True,
                               partial_match_method='default', zero_match_method='linear')
        reader.get_coref_infos(key, sys_file)
        metrics = {'lea': evaluator.lea, 'muc': evaluator.muc, 'bcub': evaluator.b_cubed,
                   'ceafe': evaluator.ceafe, 'ceafm': evaluator.ceafm,
                   'blanc': [evaluator.blancc, evaluator.blancn],
                   'mor': evaluator.mention_overlap, 'zero': evaluator.als_zeros}
        return {name: list(evaluator.evaluate_documents(reader.doc_coref_infos, metric))
                for name, metric in metrics.items()}
    only_split = settings.pop('only_split_antecedent', False)
    mor_only = settings.pop('mor_only', False)
    reader = UAReader(**settings)
    reader.get_coref_infos(key, sys_file)
    infos = reader.doc_discourse_deixis_infos if settings.get('evaluate_discourse_deixis') else reader.doc_coref_infos
    metrics = {'muc': evaluator.muc, 'bcub': evaluator.b_cubed, 'ceafe': evaluator.ceafe,
               'ceafm': evaluator.ceafm, 'blanc': [evaluator.blancc, evaluator.blancn], 'lea': evaluator.lea}
    if mor_only:
        metrics = {'mor': evaluator.mention_overlap}
    out = {}
    for name, metric in metrics.items():
        out[name] = list(evaluator.evaluate_documents(infos, metric, beta=1, only_split_antecedent=only_split))
    if settings.get('keep_non_referring'):
        out['non_referring'] = list(evaluator.evaluate_non_referrings(reader.doc_non_referring_infos))
    if settings.get('keep_bridging'):
        ar, fbm, fbe = evaluator.evaluate_bridgings(reader.doc_bridging_infos)
        out['bridging_anaphor_recognition'] = list(ar)
        out['bridging_mention'] = list(fbm)
        out['bridging_entity'] = list(fbe)
    return out
"""

_children: dict[str, subprocess.Popen] = {}


def ask(version: str, job: dict):
    """One job for the child process of ``version`` (started on first use)."""
    if version not in _children:
        root = V1 if version == "v1" else V2
        program = (V1_LIBRARY if version == "v1" else V2_LIBRARY) + CHILD
        _children[version] = subprocess.Popen([sys.executable, "-c", program], cwd=HERE, text=True,
                                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                              env={**os.environ, "PYTHONPATH": str(root)})
    child = _children[version]
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write(json.dumps(job) + "\n")
    child.stdin.flush()
    return json.loads(child.stdout.readline())


def library(version: str, key: str, response: str, settings: dict) -> dict | str:
    return ask(version, {"kind": "library", "key": key, "response": response, "settings": settings})


def cli(version: str, key: str, response: str, words: list[str]) -> dict:
    name = "$UA_V1" if version == "v1" else "$UA_V2"
    script = str((V1 if version == "v1" else V2) / "ua-scorer.py")
    done = ask(version, {"kind": "cli", "script": script, "argv": [script, key, response, *words]})
    return {"version": VERSIONS[version], "command": " ".join(["python", f"{name}/ua-scorer.py", key, response,
                                                               *words]),
            "exit": done["exit"], "stdout": done["stdout"],
            "stderr": done["stderr"].strip().splitlines()[-1:] if done["exit"] else []}


HEADINGS = {"Non-referring markable identification scores:": "non_referring",
            "Bridging anaphora recognition scores:": "bridging_anaphor_recognition",
            "Full bridging scores (Markable Level):": "bridging_mention",
            "Full bridging scores (Entity Level):": "bridging_entity"}


def rounded_agree(values: dict, stdout: str, names: list[str]) -> bool:
    """Whether every number the transcript prints for one of ``names`` is the
    full-precision value rounded to two decimals."""
    label = None
    checked = 0
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith("Recall:"):
            if label in names and label in values:
                parts = line.replace("Recall:", "").replace("Precision:", "").replace("F1:", "").split()
                if any(abs(float(p) - round(v * 100, 2)) > 0.0051 for p, v in zip(parts, values[label])):
                    return False
                checked += 1
        else:
            label = HEADINGS.get(line, line)
    return checked > 0


def pseudo_kept(path: Path, folder: Path) -> str:
    """A copy of a UA file whose non-referring markables are referring singletons."""
    target = folder / path.name
    target.write_text(path.read_text(encoding="utf-8").replace("-Pseudo|", "-PseudoKept|"), encoding="utf-8")
    return str(target)


def expectations(name: str, key: Path, response: Path, note: str) -> dict:
    k, r = str(key.relative_to(HERE)), str(response.relative_to(HERE))
    runs, expected, disagreements = [], {}, []
    for mode, (v1_words, v2_words) in MODES.items():
        values = {}
        for version, words in (("v1", v1_words), ("v2", v2_words)):
            transcript = cli(version, k, r, words)
            lib = library(version, str(key), str(response), dict(SETTINGS[mode]))
            transcript["mode"] = mode
            transcript["library"] = lib
            if isinstance(lib, dict):
                # (in the non-referring/bridging mode the v1 command line also prints identity
                # scores with split antecedents, which the library call leaves out: not compared)
                shown = [n for n in lib if mode != "non_referring_bridging" or n not in METRICS]
                transcript["transcript_matches_library"] = rounded_agree(lib, transcript["stdout"], shown)
            runs.append(transcript)
            values[version] = lib
        # identity modes: v2 (the UA scorer 2.0); non-referring and bridging: v1 computes them
        # (v2's command line prints 0.00: its flags are read after the metric list changes form)
        primary = "v1" if mode == "non_referring_bridging" else "v2"
        chosen = values[primary]
        if not isinstance(chosen, dict):
            primary = "v1" if primary == "v2" else "v2"
            chosen = values[primary]
        if isinstance(chosen, dict):
            if mode == "non_referring_bridging":
                chosen = {n: v for n, v in chosen.items() if n not in METRICS}
            expected[mode] = {"source": VERSIONS[primary], "values": chosen}
            other = values["v2" if primary == "v1" else "v1"]
            if isinstance(other, dict):
                for n, v in chosen.items():
                    if n in other and any(abs(a - b) > 1e-9 for a, b in zip(v, other[n])):
                        disagreements.append({"mode": mode, "measure": n, "v1": values["v1"].get(n),
                                              "v2": values["v2"].get(n)})
    # MOR (v2 only; its command line refuses mor for UA files, so the library is called)
    mor = library("v2", str(key), str(response), dict(SETTINGS["mor"]))
    runs.append({"version": VERSIONS["v2"], "mode": "mor", "command": "(library) UAReader(partial_match=True, "
                 "keep_singletons=True) + evaluator.mention_overlap", "library": mor})
    if isinstance(mor, dict):
        expected["mor"] = {"source": VERSIONS["v2"] + " (library call)", "values": mor}
    # identity with non-referring markables kept: the UA scorer always drops them, so the same
    # scorer is run on copies whose "-Pseudo" ids are renamed (they become referring singletons)
    with tempfile.TemporaryDirectory() as tmp:
        folder_k, folder_r = Path(tmp, "k"), Path(tmp, "r")
        folder_k.mkdir()
        folder_r.mkdir()
        kept = library("v2", pseudo_kept(key, folder_k), pseudo_kept(response, folder_r),
                       dict(SETTINGS["identity"]))
    runs.append({"version": VERSIONS["v2"], "mode": "identity_non_referring_kept",
                 "command": "sed 's/-Pseudo|/-PseudoKept|/' on both files, then python $UA_V2/ua-scorer.py K R -s "
                            "-m " + " ".join(METRICS), "library": kept})
    if isinstance(kept, dict):
        expected["identity_non_referring_kept"] = {"source": VERSIONS["v2"] + " on renamed copies", "values": kept}
    return {"case": name, "note": note, "key": k, "response": r, "expected": expected,
            "disagreements_v1_v2": disagreements, "runs": runs}


def corefud_expectations(name: str, key: Path, response: Path) -> dict:
    """A CorefUD pair with zeros: the crac22 preset's scores (identity metrics with partial
    matching, the mention overlap ratio and the zero score)."""
    k, r = str(key.relative_to(HERE)), str(response.relative_to(HERE))
    transcript = cli("v2", k, r, ["-t", "crac22"])
    lib = library("v2", str(key), str(response), {"corefud": True})
    transcript["mode"] = "crac22"
    transcript["library"] = lib
    if isinstance(lib, dict):
        transcript["transcript_matches_library"] = rounded_agree(lib, transcript["stdout"], list(lib))
    expected = {"crac22": {"source": VERSIONS["v2"] + " (-t crac22)", "values": lib}} if isinstance(lib, dict) else {}
    return {"case": name, "note": "CorefUD file with zero mentions (empty nodes)", "key": k, "response": r,
            "expected": expected, "disagreements_v1_v2": [], "runs": [transcript]}


PARTIAL_MODES = {
    "partial_craft": (["-s", "-p", "--partial-match-method", "craft", "-m", *METRICS],
                      dict(keep_singletons=True, partial_match=True, partial_match_method="craft")),
    "partial_default": (["-s", "-p", "-m", *METRICS],
                        dict(keep_singletons=True, partial_match=True)),
}


def partial_expectations(name: str, key: Path, response: Path) -> dict:
    """One of the scorer's own partial-matching test pairs, scored with the CRAFT and the
    default (CorefUD) partial match (v2; v1 has neither)."""
    k, r = str(key.relative_to(HERE)), str(response.relative_to(HERE))
    runs, expected = [], {}
    for mode, (words, settings) in PARTIAL_MODES.items():
        transcript = cli("v2", k, r, words)
        lib = library("v2", str(key), str(response), dict(settings))
        transcript["mode"] = mode
        transcript["library"] = lib
        if isinstance(lib, dict):
            transcript["transcript_matches_library"] = rounded_agree(lib, transcript["stdout"], list(lib))
            expected[mode] = {"source": VERSIONS["v2"], "values": lib}
        runs.append(transcript)
    return {"case": name, "note": "the UA scorer's own partial-matching test files", "key": k, "response": r,
            "expected": expected, "disagreements_v1_v2": [], "runs": runs}


def main() -> None:
    cases = json.loads((HERE / "cases" / "cases.json").read_text())
    out = HERE / "expected"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir()
    pairs = [(name, HERE / "cases" / f"{name}.key.CONLLUA", HERE / "cases" / f"{name}.response.CONLLUA", c["note"])
             for name, c in cases.items()]
    public = HERE / "public"
    for response in sorted(public.glob("*.sys")):
        stem = response.name.rsplit("-", 1)[0]
        pairs.append((f"public-{response.stem}", public / f"{stem}.key", response,
                      "the UA scorer's own plural test case (tests/tests-ua/plural)"))
    for key in sorted((HERE / "corefud").glob("*.key.conllu")):
        name = key.name[:-len(".key.conllu")]
        data = corefud_expectations(name, key, key.with_name(f"{name}.response.conllu"))
        (out / f"corefud-{name}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n",
                                                  encoding="utf-8")
        print(name, "crac22")
    partial = HERE / "public-partial"
    for response in sorted(partial.glob("*.response")):
        stem = response.name.rsplit("-", 1)[0]
        name = f"partial-{response.stem}"
        data = partial_expectations(name, partial / f"{stem}.key", response)
        (out / f"{name}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(name, "partial")
    for name, key, response, note in pairs:
        data = expectations(name, key, response, note)
        (out / f"{name}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(name, len(data["expected"]), "modes;", len(data["disagreements_v1_v2"]), "v1/v2 disagreements")


if __name__ == "__main__":
    main()
