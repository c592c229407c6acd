"""corefio side by side with the community's tools, on the same benchmark files, in one run.

    python benchmarks/bench_peers.py                 # every peer that is installed, 3 rounds
    python benchmarks/bench_peers.py --peers coval scorch --repeat 5
    python benchmarks/bench_peers.py --report        # the table of the newest measurement

Peers, and the corefio command that does the same work on the same file:

* **coval** (Moosavi's Python scorer, ns-moosavi/coval): ``python scorer.py KEY RESPONSE``
  on the CoNLL-2012 key and response (its default: mentions, MUC, B3, CEAF-e, LEA,
  singletons kept) against ``corefio score KEY RESPONSE -m mentions,muc,bcub,ceafe,lea``.
* **corefud-scorer** (ufal/corefud-scorer): ``python corefud-scorer.py KEY RESPONSE`` on
  the CoNLL-U key and response (its default: head match, singletons dropped, zeros
  kept, every metric) against ``corefio score KEY RESPONSE --match head
  --drop-singletons --keep-zeros -m mentions,muc,bcub,ceafe,ceafm,blanc,lea``.
* **scorch** (the pip package, in the same virtual environment): ``scorch GOLD/ SYS/`` on
  one JSON file per document, made once by scorch's own converter (``python -m
  scorch.conll``; not timed), against ``corefio score KEY RESPONSE -m
  muc,bcub,ceafm,ceafe,blanc,conll`` on the CoNLL-2012 files.
* **udapy** (udapi's command line): ``udapy read.Conllu files=KEY corefud.Load
  write.Conllu files=OUT`` (read the CoNLL-U key, build its coreference objects, write
  it back) against ``corefio convert KEY OUT`` (CoNLL-U to CoNLL-U).
* **ua-scorer** (the Universal Anaphora scorer, juntaoy/universal-anaphora-scorer):
  ``python ua-scorer.py KEY RESPONSE`` on the key and response in CoNLL-UA (written by
  corefio, once; its default: MUC, B3, CEAF-e, CEAF-m, BLANC, LEA, singletons kept)
  against ``corefio score KEY RESPONSE -m muc,bcub,ceafe,ceafm,blanc,lea``.

Where the peers are (a peer that is not found is skipped, with a line saying so):

* ``--coval DIR`` or ``COREFIO_COVAL`` (default ``/work/judges/ns-moosavi+coval``): a
  checkout of ns-moosavi/coval (its ``scorer.py``).
* ``--corefud-scorer DIR`` or ``COREFIO_COREFUD_SCORER`` (default
  ``/work/judges/ufal+corefud-scorer``): a checkout of ufal/corefud-scorer.
* ``--ua-scorer DIR`` or ``COREFIO_UA_SCORER`` (default
  ``/work/judges/juntaoy+universal-anaphora-scorer``): a checkout of
  juntaoy/universal-anaphora-scorer.
* scorch and udapy: the ``scorch`` and ``udapy`` programs beside this Python
  (``pip install scorch udapi``), else on ``PATH``.

The checkouts are run where they are, with this Python (they need numpy and scipy;
corefud-scorer also udapi); none of their code is in this repository.

Each round runs every peer, then corefio with ``--jobs 1``, then corefio with its default
number of processes, each a fresh process measured by ``_measure.py`` (CPU seconds of the
whole process tree, wall seconds, peak memory); ``--repeat`` rounds, the best of each
kept. Printed: the date, the machine (``uname -m``, CPU model, cores), the load average,
and per peer the ratios peer / corefio of CPU time (one process each: the fair single-core
comparison) and of wall time (corefio with its default processes: what a user waits
for). Goals (the project's speed issue, on a quiet machine): corefio ahead of coval 10x,
scorch 7x, udapy 12x, corefud-scorer (head) 20x. The runs are appended to ``--results``
(``benchmarks/data/peers.jsonl``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _measure import DATA, corefio_command, environment, machine, measure, record, records  # noqa: E402
from bench_growth import corpus  # noqa: E402

RESULTS = DATA / "peers.jsonl"
GOALS = {"coval": 10, "scorch": 7, "udapy": 12, "corefud-scorer": 20, "ua-scorer": None}
PEERS = list(GOALS)


def _program(name: str) -> str | None:
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.exists() else shutil.which(name)


def _checkout(option: str | None, variable: str, default: str, script: str) -> Path | None:
    folder = Path(option or os.environ.get(variable) or default)
    return folder if (folder / script).exists() else None


def describe(name: str, where: Path | str) -> str:
    """Where a peer is, and its version (a pip package's) or commit (a git checkout's)."""
    if name in ("scorch", "udapy"):
        from importlib.metadata import PackageNotFoundError, version

        try:
            return f"{where} ({'udapi' if name == 'udapy' else name} {version('udapi' if name == 'udapy' else name)})"
        except PackageNotFoundError:
            return str(where)
    done = subprocess.run(["git", "-C", str(where), "rev-parse", "HEAD"], capture_output=True, text=True)
    return f"{where} (commit {done.stdout.strip()})" if done.returncode == 0 else f"{where} (not a git checkout)"


def prepare(scale: int) -> dict[str, Path]:
    """The inputs every peer needs, made once beside the corpus."""
    files = corpus(scale)
    stem = f"_x{scale}" if scale > 1 else ""
    for label, source in (("key", files["key"]), ("response", files["response"])):
        ua = DATA / f"bench_{label}{stem}.conllua"
        if not ua.exists():
            subprocess.run(corefio_command("convert", source, ua, "--to", "ua", "-q"), check=True, env=environment())
        files[f"{label}_ua"] = ua
        folder = DATA / f"scorch_{label}{stem}"
        if not folder.exists():
            made = Path(tempfile.mkdtemp(dir=DATA))
            subprocess.run([sys.executable, "-m", "scorch.conll", source, made], check=True,
                           capture_output=True)
            made.rename(folder)
        files[f"{label}_scorch"] = folder
    return files


def pairs(files: dict[str, Path], out: Path, where: dict[str, Path | str | None]) -> dict[str, tuple]:
    """peer name -> (peer command, its working directory, corefio's arguments), for the
    peers that are found."""
    py = sys.executable
    found = {}
    if where["coval"]:
        found["coval"] = ([py, "scorer.py", files["key"], files["response"]], where["coval"],
                          ["score", files["key"], files["response"], "-m", "mentions,muc,bcub,ceafe,lea"])
    if where["corefud-scorer"]:
        found["corefud-scorer"] = (
            [py, "corefud-scorer.py", files["key_conllu"], files["response_conllu"]], where["corefud-scorer"],
            ["score", files["key_conllu"], files["response_conllu"], "--match", "head", "--drop-singletons",
             "--keep-zeros", "-m", "mentions,muc,bcub,ceafe,ceafm,blanc,lea"])
    if where["scorch"]:
        found["scorch"] = ([where["scorch"], files["key_scorch"], files["response_scorch"]], None,
                           ["score", files["key"], files["response"], "-m", "muc,bcub,ceafm,ceafe,blanc,conll"])
    if where["udapy"]:
        found["udapy"] = ([where["udapy"], "read.Conllu", f"files={files['key_conllu']}", "corefud.Load",
                           "write.Conllu", f"files={out / 'udapy.conllu'}"], None,
                          ["convert", files["key_conllu"], out / "corefio.conllu", "-q"])
    if where["ua-scorer"]:
        found["ua-scorer"] = ([py, "ua-scorer.py", files["key_ua"], files["response_ua"]], where["ua-scorer"],
                              ["score", files["key_ua"], files["response_ua"], "-m", "muc,bcub,ceafe,ceafm,blanc,lea"])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peers", nargs="+", default=PEERS, choices=PEERS)
    parser.add_argument("--repeat", type=int, default=3, help="rounds (each runs every tool once)")
    parser.add_argument("--scale", type=int, default=1, help="the corpus of generate_corpus.py --scale")
    parser.add_argument("--coval", help="checkout of ns-moosavi/coval (or COREFIO_COVAL)")
    parser.add_argument("--corefud-scorer", help="checkout of ufal/corefud-scorer (or COREFIO_COREFUD_SCORER)")
    parser.add_argument("--ua-scorer", help="checkout of juntaoy/universal-anaphora-scorer (or COREFIO_UA_SCORER)")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--report", action="store_true", help="only print the newest measurement")
    args = parser.parse_args()
    if args.report:
        report(args.results)
        return
    where = {
        "coval": _checkout(args.coval, "COREFIO_COVAL", "/work/judges/ns-moosavi+coval", "scorer.py"),
        "corefud-scorer": _checkout(args.corefud_scorer, "COREFIO_COREFUD_SCORER", "/work/judges/ufal+corefud-scorer",
                                    "corefud-scorer.py"),
        "ua-scorer": _checkout(args.ua_scorer, "COREFIO_UA_SCORER", "/work/judges/juntaoy+universal-anaphora-scorer",
                               "ua-scorer.py"),
        "scorch": _program("scorch"),
        "udapy": _program("udapy"),
    }
    print(machine(), flush=True)
    for name in args.peers:
        if not where[name]:
            print(f"{name}: not installed, skipped (see this script's docstring for where it is looked for)")
        else:
            print(f"{name}: {describe(name, where[name])}")
    wanted = [name for name in args.peers if where[name]]
    files = prepare(args.scale)
    env = environment()
    best: dict[tuple[str, str], dict] = {}
    run_id = f"{os.getpid()}-{len(records(args.results))}"
    with tempfile.TemporaryDirectory(prefix="corefio-peers-") as out:
        out = Path(out)
        todo = {name: spec for name, spec in pairs(files, out, where).items() if name in wanted}
        for round_ in range(args.repeat):
            for name, (peer, cwd, ours) in todo.items():
                for label, command, folder in (("peer", peer, cwd), ("corefio --jobs 1", corefio_command(*ours, "--jobs", "1"), None),
                                               ("corefio", corefio_command(*ours), None)):
                    figures = measure(command, env=env, cwd=folder or Path.cwd())
                    if figures["code"] not in (0, 4):
                        raise SystemExit(f"{name} ({label}) failed ({figures['code']}): {figures['stderr']}")
                    entry = record(args.results, {"run": run_id, "round": round_, "peer": name, "tool": label,
                                                  "scale": args.scale,
                                                  **{k: round(v, 4) for k, v in figures.items()
                                                     if isinstance(v, float)}})
                    key = (name, label)
                    if key not in best or entry["cpu"] < best[key]["cpu"]:
                        best[key] = {**entry, "wall": min(entry["wall"], best.get(key, entry)["wall"])}
                    elif entry["wall"] < best[key]["wall"]:
                        best[key]["wall"] = entry["wall"]
                    print(f"round {round_ + 1}: {name:<15} {label:<17} CPU {entry['cpu']:8.2f} s  wall "
                          f"{entry['wall']:8.2f} s  peak {entry['peak_mb']:7.1f} MB  load {entry['load'][0]:.1f}",
                          flush=True)
    print()
    report(args.results, run_id)


def report(results: Path, run_id: str | None = None, out=sys.stdout) -> list[str]:
    entries = records(results)
    if not entries:
        print(f"nothing measured yet in {results}", file=out)
        return []
    run_id = run_id or entries[-1]["run"]
    entries = [e for e in entries if e["run"] == run_id]
    best: dict[tuple[str, str], dict] = {}
    for e in entries:
        key = (e["peer"], e["tool"])
        b = best.setdefault(key, dict(e))
        b["cpu"], b["wall"], b["peak_mb"] = min(b["cpu"], e["cpu"]), min(b["wall"], e["wall"]), max(b["peak_mb"],
                                                                                                     e["peak_mb"])
    loads = [e["load"][0] for e in entries]
    rounds = max(e["round"] for e in entries) + 1
    print(f"measured {entries[0]['date']} to {entries[-1]['date']}, {rounds} round(s), best of each; load average "
          f"(1 min) {min(loads):.1f} to {max(loads):.1f}; scale {entries[0]['scale']}x", file=out)
    print(file=out)
    print("| peer | peer CPU s | corefio CPU s (--jobs 1) | CPU ratio | peer wall s | corefio wall s (default) | "
          "wall ratio | peak MB peer / corefio | goal | verdict |", file=out)
    print("|---|---|---|---|---|---|---|---|---|---|", file=out)
    misses = []
    for peer in PEERS:
        p, one, default = best.get((peer, "peer")), best.get((peer, "corefio --jobs 1")), best.get((peer, "corefio"))
        if not (p and one and default):
            continue
        cpu_ratio, wall_ratio = p["cpu"] / one["cpu"], p["wall"] / default["wall"]
        goal = GOALS[peer]
        verdict = "-" if goal is None else ("ok" if min(cpu_ratio, wall_ratio) >= goal else "MISS")
        if verdict == "MISS":
            misses.append(f"MISS {peer}: corefio leads {cpu_ratio:.1f}x in CPU, {wall_ratio:.1f}x in wall time "
                          f"(goal {goal}x)")
        print(f"| {peer} | {p['cpu']:.2f} | {one['cpu']:.2f} | {cpu_ratio:.1f}x | {p['wall']:.2f} | "
              f"{default['wall']:.2f} | {wall_ratio:.1f}x | {p['peak_mb']:.0f} / {one['peak_mb']:.0f} | "
              f"{'-' if goal is None else f'{goal}x'} | {verdict} |", file=out)
    print(file=out)
    for line in misses:
        print(line, file=out)
    return misses


if __name__ == "__main__":
    main()
