"""Scoring the benchmark corpus with corefio.dask on a LocalCluster of 1 and 2 workers.

    python benchmarks/bench_dask.py          # generates benchmarks/data/ if missing

The corpus (280 documents) is split into 28 key files and 28 response files of ten
documents each; ``corefio.dask.score`` scores them on a ``distributed.LocalCluster``
of one worker process, then of two, and ``corefio.score`` scores the whole files in one
process for reference. Prints wall seconds (best of three) and the speed-up of two
workers over one; the scores are checked equal to the one-process scores.
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

METRICS = ["muc", "bcub", "ceafe", "blanc", "lea", "conll"]


def split(path: Path, directory: Path, per_file: int, label: str) -> list[Path]:
    documents = re.findall(r"#begin document.*?#end document\n", path.read_text(), flags=re.S)
    out = []
    for k in range(0, len(documents), per_file):
        target = directory / f"{label}{k // per_file:03d}.v4_gold_conll"
        target.write_text("".join(documents[k:k + per_file]))
        out.append(target)
    return out


def best(fn, repeat: int = 3) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeat):
        began = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - began)
    return min(times), value


def main() -> None:
    import corefio
    import corefio.dask as cd
    from distributed import Client, LocalCluster

    key = HERE / "data" / "bench_key.v4_gold_conll"
    response = HERE / "data" / "bench_response.v4_auto_conll"
    if not key.exists():
        from generate_corpus import generate  # type: ignore

        generate(HERE / "data")
    with tempfile.TemporaryDirectory() as tmp:
        keys = split(key, Path(tmp), 10, "key")
        responses = split(response, Path(tmp), 10, "response")
        t_local, local = best(lambda: corefio.score(key, response, METRICS, workers=1))
        print(f"corefio.score, one process:  {t_local:6.2f} s")
        timings = {}
        for workers in (1, 2):
            with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                              host="127.0.0.1") as cluster, Client(cluster):
                cd.score(keys[:2], responses[:2], METRICS)  # start-up: imports in the workers
                t, scores = best(lambda: cd.score(keys, responses, METRICS))
                same = scores.to_dict()["corpus"] == local.to_dict()["corpus"]  # type: ignore[attr-defined]
                timings[workers] = t
                print(f"corefio.dask.score, {workers} worker(s): {t:6.2f} s   scores equal: {same}")
        print(f"speed-up of 2 workers over 1: {timings[1] / timings[2]:.2f}x")


if __name__ == "__main__":
    main()
