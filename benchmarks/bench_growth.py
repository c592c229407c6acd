"""Growth of time and memory with the input: every command and every writer at 1x, 2x
and 10x the benchmark corpus, with ``--jobs 1`` and with the default number of processes.

    python benchmarks/bench_growth.py                        # everything (long: run it in pieces)
    python benchmarks/bench_growth.py --commands score validate --scales 1 2
    python benchmarks/bench_growth.py --commands 'convert-*' --jobs 1
    python benchmarks/bench_growth.py --report               # the tables of what was measured so far
    python benchmarks/bench_growth.py --list                 # the commands

Inputs: ``generate_corpus.py --scale N`` (280 x N documents of about 960 tokens; the key
and a response with realistic errors) in ``benchmarks/data``. What a command reads in
another format (the CoNLL-U key and response of ``score-conllu-head``, the second system
of ``compare``, the one long document of ``view``) is made from them once, by corefio,
and kept beside them (``bench_key_x2.conllu``, ...; ``--refresh`` makes them again).
``view`` renders one document N times as long as the corpus's largest (its sentences
repeated, entity ids renumbered in each copy): the view is of one document, so its
growth is that of one document's length.

Each run is one fresh process (``python -m corefio ...``) under a small measuring
process (``benchmarks/_measure.py``): CPU seconds (user + system of the command and of
every worker it started: the figure that other load disturbs least, so the growth
factors are taken from it), wall seconds, the peak resident memory of the largest
process, and the sampled peak of all of them together. ``--jobs 1`` is one process;
``default`` gives no ``--jobs`` (corefio then uses the cores it has); ``agree``,
``adjudicate`` and ``view`` have no ``--jobs`` and run once, shown as ``-``.

Every run is appended to ``--results`` (``benchmarks/data/growth.jsonl``) with the date,
the load average and the commit, so the benchmark can run in pieces (the machine may be
shared: each piece is short) and ``--report`` prints the tables from the newest run of
each (command, scale, jobs). Growth factors: CPU and peak memory at 2x and 10x over 1x;
``FAIL`` when 2x costs more than 2.5 times 1x, or 10x more than 12 times 1x (linear
growth with a fixed start-up cost stays well under both).
"""

from __future__ import annotations

import argparse
import fnmatch
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _measure import DATA, bench_files, corefio_command, environment, machine, measure, record, records  # noqa: E402

RESULTS = DATA / "growth.jsonl"
LIMITS = {2: 2.5, 10: 12.0}

#: writable format -> the output's name (a directory for the formats that write one
#: per corpus; a zip for the ones that write one file per document)
WRITERS = {
    "conll": "out.v4_gold_conll",
    "conllu": "out.conllu",
    "jsonlines": "out.jsonlines",
    "preco": "out.preco.jsonlines",
    "wl-coref": "out.wl.jsonlines",
    "mate": "out.mate.xml",
    "mmax2": "out_mmax2",
    "muc": "out.sgm",
    "raf": "out.raf",
    "ua": "out.conllua",
    "xmi": "out.zip",
    "brat": "out_brat",
    "litbank-tsv": "out_litbank",
    "webanno-tsv": "out.webanno.zip",
    "hf-datasets": "out_hf",  # a save_to_disk directory, whatever its name
    "spacy": "out.spacy",
}


class Command:
    """One benchmarked command: its arguments (from the scale's files and an output
    directory), whether it takes ``--jobs``, and what it reads and writes (for the bare
    read of ``bench_bare.py``): lists of (format, path)."""

    def __init__(self, name, args, reads, writes=lambda f, o: [], jobs=True, note=""):
        self.name, self.args, self.reads, self.writes, self.jobs, self.note = name, args, reads, writes, jobs, note


def _commands() -> dict[str, Command]:
    c: dict[str, Command] = {}

    def add(command: Command) -> None:
        c[command.name] = command

    add(Command("info", lambda f, o: ["info", f["key"]], lambda f, o: [("conll", f["key"])]))
    add(Command("validate", lambda f, o: ["validate", f["key"]], lambda f, o: [("conll", f["key"])]))
    for fmt, name in WRITERS.items():
        add(Command(f"convert-{fmt}",
                    lambda f, o, fmt=fmt, name=name: ["convert", f["key"], o / name, "--to", fmt, "-q", "--force"]
                    if fmt == "mmax2" else ["convert", f["key"], o / name, "--to", fmt, "-q"],
                    lambda f, o: [("conll", f["key"])],
                    lambda f, o, fmt=fmt, name=name: [(fmt, o / name)],
                    note=f"the key, CoNLL-2012 to {fmt}"))
    add(Command("score", lambda f, o: ["score", f["key"], f["response"]],
                lambda f, o: [("conll", f["key"]), ("conll", f["response"])], note="default metrics"))
    add(Command("score-all", lambda f, o: ["score", f["key"], f["response"], "-m", "all"],
                lambda f, o: [("conll", f["key"]), ("conll", f["response"])], note="--metric all"))
    add(Command("score-conllu", lambda f, o: ["score", f["key_conllu"], f["response_conllu"]],
                lambda f, o: [("conllu", f["key_conllu"]), ("conllu", f["response_conllu"])],
                note="CoNLL-U key and response, exact match"))
    add(Command("score-conllu-head", lambda f, o: ["score", f["key_conllu"], f["response_conllu"], "--match", "head"],
                lambda f, o: [("conllu", f["key_conllu"]), ("conllu", f["response_conllu"])],
                note="CoNLL-U key and response, --match head"))
    add(Command("sync", lambda f, o: ["sync", f["key"], f["response"], "-o", o / "synced", "--to", "conll", "-q"],
                lambda f, o: [("conll", f["key"]), ("conll", f["response"])],
                lambda f, o: [("conll", p) for p in sorted((o / "synced").iterdir())],
                note="--to conll"))
    add(Command("sync-raf", lambda f, o: ["sync", f["key"], f["response"], "-o", o / "synced", "-q"],
                lambda f, o: [("conll", f["key"]), ("conll", f["response"])],
                lambda f, o: [("raf", p) for p in sorted((o / "synced").iterdir())],
                note="--to raf (the default)"))
    add(Command("compare", lambda f, o: ["compare", f["key"], f["response"], f["other"], "--samples", "1000",
                                         "--seed", "1"],
                lambda f, o: [("conll", f["key"]), ("conll", f["response"]), ("conll", f["other"])],
                note="two systems, 1,000 samples"))
    add(Command("agree", lambda f, o: ["agree", f["key"], f["response"]],
                lambda f, o: [("conll", f["key"]), ("conll", f["response"])], jobs=False,
                note="two annotators"))
    add(Command("adjudicate", lambda f, o: ["adjudicate", f["key"], f["response"], "-o", o / "gold.v4_gold_conll",
                                            "-q"],
                lambda f, o: [("conll", f["key"]), ("conll", f["response"])],
                lambda f, o: [("conll", o / "gold.v4_gold_conll")], jobs=False, note="two annotators, to CoNLL"))
    add(Command("view", lambda f, o: ["view", f["long_key"], "-o", o / "view.html", "-q"],
                lambda f, o: [("conll", f["long_key"])], lambda f, o: [("html", o / "view.html")], jobs=False,
                note="one document, N x the largest"))
    add(Command("view-response", lambda f, o: ["view", f["long_key"], "--response", f["long_response"],
                                               "-o", o / "view.html", "-q"],
                lambda f, o: [("conll", f["long_key"]), ("conll", f["long_response"])],
                lambda f, o: [("html", o / "view.html")], jobs=False,
                note="one document, N x the largest, key and response"))
    add(Command("score-long", lambda f, o: ["score", f["long_key"], f["long_response"]],
                lambda f, o: [("conll", f["long_key"]), ("conll", f["long_response"])],
                note="one document, N x the largest"))
    return c


COMMANDS = _commands()
# run by default (the others on request): every command and every writer once
DEFAULT = [name for name in COMMANDS if name not in ("score-all", "sync-raf", "score-long")]


def _documents(path: Path) -> list[str]:
    return re.findall(r"#begin document.*?#end document\n", path.read_text(encoding="utf-8"), flags=re.S)


def _long_document(source: Path, target: Path, times: int, largest: int | None = None) -> int:
    """Write ``source``'s largest document (or its document number ``largest``) as one
    document ``times`` as long into ``target``: its sentences repeated, the entity ids
    of each copy renumbered. Returns the document's number."""
    docs = _documents(source)
    if largest is None:
        largest = max(range(len(docs)), key=lambda i: len(docs[i]))
    lines = docs[largest].splitlines()
    head, body = lines[0], lines[1:-1]
    top = max((int(n) for line in body for n in re.findall(r"\d+", line.rsplit("\t", 1)[-1])
               if "\t" in line), default=0) + 1
    out = [head]
    for copy in range(times):
        for line in body:
            if "\t" in line:
                cols = line.split("\t")
                cols[-1] = re.sub(r"\d+", lambda m, shift=copy * top: str(int(m.group()) + shift), cols[-1])
                line = "\t".join(cols)
            out.append(line)
        if body and body[-1] != "":
            out.append("")
    out.append("#end document")
    target.write_text("\n".join(out) + "\n", encoding="utf-8")
    return largest


def _convert(source: Path, target: Path, fmt: str) -> None:
    import subprocess

    subprocess.run(corefio_command("convert", source, target, "--to", fmt, "-q"), check=True, env=environment())


def corpus(scale: int, refresh: bool = False) -> dict[str, Path]:
    """The scale's files, what is missing made (see the module's docstring)."""
    key, response = bench_files(scale)
    stem = f"_x{scale}" if scale > 1 else ""
    files = {"key": key, "response": response,
             "key_conllu": DATA / f"bench_key{stem}.conllu",
             "response_conllu": DATA / f"bench_response{stem}.conllu",
             "other": DATA / f"bench_other{stem}.v4_auto_conll",
             "long_key": DATA / f"bench_long_key{stem}.v4_gold_conll",
             "long_response": DATA / f"bench_long_response{stem}.v4_auto_conll"}
    for source, label in ((key, "key_conllu"), (response, "response_conllu")):
        if refresh or not files[label].exists():
            _convert(source, files[label], "conllu")
    if refresh or not files["other"].exists():
        # a second system: the response, with every fifth document taken from the key
        keys, responses = _documents(key), _documents(response)
        files["other"].write_text("".join(k if i % 5 == 0 else r for i, (k, r) in enumerate(zip(keys, responses))),
                                  encoding="utf-8")
    if refresh or not files["long_key"].exists() or not files["long_response"].exists():
        key1, response1 = bench_files(1)
        number = _long_document(key1, files["long_key"], scale)
        _long_document(response1, files["long_response"], scale, number)
    return files


def run(name: str, scale: int, jobs: str, files: dict[str, Path], results: Path) -> dict:
    command = COMMANDS[name]
    with tempfile.TemporaryDirectory(prefix="corefio-growth-") as out:
        out = Path(out)
        args = command.args(files, out)
        if command.jobs and jobs != "default":
            args = [*args, "--jobs", jobs]
        figures = measure(corefio_command(*args), env=environment())
    entry = {"command": name, "scale": scale, "jobs": jobs if command.jobs else "-",
             **{k: round(v, 4) if isinstance(v, float) else v for k, v in figures.items() if k != "stderr"}}
    if figures["code"] not in (0, 4):  # 4: differences found (agree, compare)
        entry["error"] = figures["stderr"][-600:]
    return record(results, entry)


def latest(results: Path) -> dict[tuple[str, int, str], dict]:
    """The newest run of each (command, scale, jobs) that did not fail."""
    out = {}
    for entry in records(results):
        if "error" not in entry:
            out[(entry["command"], entry["scale"], entry["jobs"])] = entry
    return out


def failures(results: Path) -> dict[tuple[str, int, str], dict]:
    """The runs that failed and were not run again with success since."""
    out = {}
    for entry in records(results):
        key = (entry["command"], entry["scale"], entry["jobs"])
        if "error" in entry:
            out[key] = entry
        else:
            out.pop(key, None)
    return out


def report(results: Path, names: list[str] | None = None, out=sys.stdout) -> list[str]:
    """Print the table and the growth factors; return the FAIL lines."""
    table = latest(results)
    for (name, scale, jobs), e in failures(results).items():
        if not names or name in names:
            print(f"ERROR {name} at {scale}x (jobs {jobs}) exited {e['code']}: {e['error'].strip()[-300:]}", file=out)
    if not table:
        print(f"nothing measured yet in {results}", file=out)
        return []
    order = {name: i for i, name in enumerate(COMMANDS)}
    keys = sorted(table, key=lambda k: (order.get(k[0], 99), k[0], k[2] != "1", k[2], k[1]))
    if names:
        keys = [k for k in keys if k[0] in names]
    dates = sorted(table[k]["date"] for k in keys)
    loads = [table[k]["load"][0] for k in keys]
    print(f"runs from {dates[0]} to {dates[-1]}; load average (1 min) at their end "
          f"{min(loads):.1f} to {max(loads):.1f}", file=out)
    print(file=out)
    print("| command | jobs | scale | CPU s | wall s | peak MB (largest process) | peak MB (all processes) | load at end |",
          file=out)
    print("|---|---|---|---|---|---|---|---|", file=out)
    for k in keys:
        e = table[k]
        print(f"| {k[0]} | {k[2]} | {k[1]}x | {e['cpu']:.2f} | {e['wall']:.2f} | {e['peak_mb']:.0f} | "
              f"{e['tree_mb']:.0f} | {e['load'][0]:.1f} |", file=out)
    print(file=out)
    print("| command | jobs | CPU 2x/1x | CPU 10x/1x | wall 2x/1x | wall 10x/1x | peak 2x/1x | peak 10x/1x | verdict |",
          file=out)
    print("|---|---|---|---|---|---|---|---|---|", file=out)
    fails = []
    for name, jobs in dict.fromkeys((k[0], k[2]) for k in keys):
        base = table.get((name, 1, jobs))
        if base is None:
            continue
        cells, verdict = [], []
        for field in ("cpu", "wall", "peak_mb"):
            for scale in (2, 10):
                e = table.get((name, scale, jobs))
                if e is None:
                    cells.append("-")
                    continue
                factor = e[field] / base[field] if base[field] else float("nan")
                cells.append(f"{factor:.2f}")
                if field != "wall" and factor > LIMITS[scale]:
                    line = (f"FAIL {name} (jobs {jobs}): {'CPU' if field == 'cpu' else 'peak memory'} grows "
                            f"{factor:.2f}x from 1x to {scale}x (limit {LIMITS[scale]}x): "
                            f"{base[field]:.2f} -> {e[field]:.2f} {'s' if field == 'cpu' else 'MB'}")
                    fails.append(line)
                    verdict.append(f"FAIL {field} {scale}x")
        measured = any(cell != "-" for cell in cells)
        print(f"| {name} | {jobs} | {' | '.join(cells)} | {', '.join(verdict) or ('ok' if measured else '-')} |",
              file=out)
    print(file=out)
    for line in fails:
        print(line, file=out)
    if not fails:
        print("no growth beyond the limits (2x: 2.5x, 10x: 12x) in CPU time or peak memory", file=out)
    return fails


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", nargs="+", default=DEFAULT,
                        help="commands to run (shell patterns: 'convert-*'); --list shows them")
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 2, 10])
    parser.add_argument("--jobs", nargs="+", default=["1", "default"], choices=["1", "2", "default"])
    parser.add_argument("--results", type=Path, default=RESULTS, help="where the runs are appended")
    parser.add_argument("--refresh", action="store_true", help="make the derived inputs again")
    parser.add_argument("--report", action="store_true", help="only print the tables of what was measured")
    parser.add_argument("--list", action="store_true", help="list the commands")
    args = parser.parse_args()
    if args.list:
        for name, command in COMMANDS.items():
            print(f"{name:<20} {'' if name in DEFAULT else '(on request) '}{command.note}")
        return
    names = [n for pattern in args.commands for n in COMMANDS if fnmatch.fnmatchcase(n, pattern)]
    unknown = [p for p in args.commands if not any(fnmatch.fnmatchcase(n, p) for n in COMMANDS)]
    if unknown:
        parser.error(f"no such command: {', '.join(unknown)} (see --list)")
    names = list(dict.fromkeys(names))
    if args.report:
        print(machine())
        report(args.results, names)
        return
    print(machine(), flush=True)
    print(f"{'command':<20} {'jobs':>7} {'scale':>5} {'CPU s':>8} {'wall s':>8} {'peak MB':>8} {'all MB':>7} {'load':>5}",
          flush=True)
    for scale in args.scales:
        files = corpus(scale, args.refresh)
        for name in names:
            for jobs in (args.jobs if COMMANDS[name].jobs else ["-"]):
                e = run(name, scale, jobs, files, args.results)
                if "error" in e:
                    print(f"{name:<20} {e['jobs']:>7} {scale:>4}x  FAILED (exit {e['code']}): {e['error'][-300:]}",
                          flush=True)
                    continue
                print(f"{name:<20} {e['jobs']:>7} {scale:>4}x {e['cpu']:>8.2f} {e['wall']:>8.2f} {e['peak_mb']:>8.1f} "
                      f"{e['tree_mb']:>7.1f} {e['load'][0]:>5.1f}", flush=True)
    print()
    fails = report(args.results, names)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
