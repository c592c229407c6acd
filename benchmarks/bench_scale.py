"""Wall time and peak memory of the commands at 1x, 10x and 100x the benchmark corpus,
with one and two processes (``--jobs``).

    python benchmarks/bench_scale.py                       # 1x and 10x, every command
    python benchmarks/bench_scale.py --scales 1 10 100 --commands validate score

The 1x corpus is ``benchmarks/generate_corpus.py``'s (280 documents, 270,000 tokens,
key and response); the larger ones repeat it, each copy's documents renamed
(``bench/cNNN_doc_…``), written under ``--data`` (default: a temporary directory).
The ``*-jsonlines`` commands read the key converted to JSON lines (made beside it).
Each command runs in its own process (``python -m corefio …``), started by a small
Python process that reports its children's peak resident memory
(``getrusage(RUSAGE_CHILDREN).ru_maxrss``: the largest of the command and its
workers). Prints one line per command, scale and number of processes: seconds,
peak MB, microseconds per token; then the speed-up of two processes over one and the
cost per token at each scale relative to 1x (1.00: flat).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

TOKENS_1X = 270_000  # about; counted from the files below

COMMANDS = {
    "info": lambda d, out: ["info", d["key"]],
    "validate": lambda d, out: ["validate", d["key"]],
    "score": lambda d, out: ["score", d["key"], d["response"]],
    "compare": lambda d, out: ["compare", d["key"], d["response"], d["other"], "--samples", "1000", "--seed", "1"],
    "convert": lambda d, out: ["convert", d["key"], out / "key.jsonlines"],
    "sync": lambda d, out: ["sync", d["key"], d["response"], "-o", out / "synced", "--to", "conll"],
    # the key as JSON lines (one document a line: PreCo's and BookCoref's format)
    "info-jsonlines": lambda d, out: ["info", d["key_jsonlines"]],
    "validate-jsonlines": lambda d, out: ["validate", d["key_jsonlines"]],
    "convert-jsonlines": lambda d, out: ["convert", d["key_jsonlines"], out / "key.v4_gold_conll"],
}


def with_jsonlines(files: dict[str, Path]) -> dict[str, Path]:
    """``files`` and the key as JSON lines beside it (written by corefio the first time)."""
    target = files["key"].with_name("bench_key.jsonlines")
    if not target.exists():
        subprocess.run([sys.executable, "-m", "corefio", "convert", files["key"], target, "-q"], cwd=REPO, check=True)
    return {**files, "key_jsonlines": target}

#: runs a command and prints its wall time and its children's peak memory (KiB) as JSON
MEASURE = """
import json, resource, subprocess, sys, time
began = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - began
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "peak_kib": usage.ru_maxrss, "cpu": usage.ru_utime + usage.ru_stime,
                  "code": done.returncode, "stderr": done.stderr.decode()[-500:]}))
"""


def corpus(data: Path, scale: int) -> dict[str, Path]:
    """Key, response and a second response at ``scale`` times the 1x corpus."""
    base = data / "x1"
    key, response = base / "bench_key.v4_gold_conll", base / "bench_response.v4_auto_conll"
    if not key.exists():
        from generate_corpus import generate  # type: ignore

        generate(base)
    other = base / "bench_other.v4_auto_conll"
    if not other.exists():  # a second system: the response with the key's first 20 documents
        from re import findall, S

        key_docs = findall(r"#begin document.*?#end document\n", key.read_text(), flags=S)
        response_docs = findall(r"#begin document.*?#end document\n", response.read_text(), flags=S)
        other.write_text("".join(key_docs[:20] + response_docs[20:]))
    files = {"key": key, "response": response, "other": other}
    if scale == 1:
        return files
    folder = data / f"x{scale}"
    folder.mkdir(exist_ok=True)
    out = {}
    for label, path in files.items():
        target = folder / path.name
        if not target.exists():
            text = path.read_text()
            with open(target, "w") as f:
                for copy in range(scale):
                    f.write(text.replace("bench/doc_", f"bench/c{copy:03d}_doc_"))
        out[label] = target
    return out


def tokens(path: Path) -> int:
    with open(path, "rb") as f:
        return sum(1 for line in f if line.strip() and not line.startswith(b"#"))


def measure(args: list, jobs: int) -> dict:
    command = [sys.executable, "-c", MEASURE, sys.executable, "-m", "corefio", *map(str, args), "--jobs", str(jobs)]
    result = json.loads(subprocess.run(command, capture_output=True, text=True, cwd=REPO, check=True).stdout)
    if result["code"] not in (0, 4):
        raise SystemExit(f"{' '.join(map(str, args))} failed ({result['code']}): {result['stderr']}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 10])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--commands", nargs="+", default=list(COMMANDS), choices=list(COMMANDS))
    parser.add_argument("--data", type=Path, default=None, help="where the corpora are (made if missing)")
    args = parser.parse_args()
    data = args.data or Path(tempfile.mkdtemp(prefix="corefio-bench-scale-"))
    data.mkdir(parents=True, exist_ok=True)
    corpora = {scale: corpus(data, scale) for scale in args.scales}
    if any(name.endswith("-jsonlines") for name in args.commands):
        corpora = {scale: with_jsonlines(files) for scale, files in corpora.items()}
    counted = {scale: tokens(files["key"]) for scale, files in corpora.items()}
    results: dict[tuple[str, int, int], dict] = {}
    print(f"{'command':<9} {'scale':>5} {'jobs':>4} {'tokens':>11} {'wall s':>8} {'cpu s':>8} {'peak MB':>8} "
          f"{'us/token':>9}")
    for name in args.commands:
        for scale in args.scales:
            for jobs in args.jobs:
                with tempfile.TemporaryDirectory() as out:
                    r = measure(COMMANDS[name](corpora[scale], Path(out)), jobs)
                results[(name, scale, jobs)] = r
                per_token = r["wall"] / counted[scale] * 1e6
                print(f"{name:<9} {scale:>4}x {jobs:>4} {counted[scale]:>11,} {r['wall']:>8.2f} {r['cpu']:>8.2f} "
                      f"{r['peak_kib'] / 1024:>8.1f} {per_token:>9.2f}", flush=True)
    print()
    for name in args.commands:
        for scale in args.scales:
            if 1 in args.jobs and 2 in args.jobs:
                one, two = results[(name, scale, 1)], results[(name, scale, 2)]
                print(f"{name:<9} {scale:>4}x  speed-up of 2 processes over 1: {one['wall'] / two['wall']:.2f}x")
        if 1 in args.scales:
            for scale in args.scales:
                if scale != 1:
                    for jobs in args.jobs:
                        base = results[(name, 1, jobs)]["wall"] / counted[1]
                        cost = results[(name, scale, jobs)]["wall"] / counted[scale]
                        print(f"{name:<9} {scale:>4}x  cost per token relative to 1x, {jobs} process(es): "
                              f"{cost / base:.2f}")
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"\n(measured {started}; corpora in {data})")


if __name__ == "__main__":
    main()
