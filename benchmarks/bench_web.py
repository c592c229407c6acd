"""Load test of ``corefio serve``: scoring requests of the samples, 8 at a time.

    python benchmarks/bench_web.py                 # 200 requests, 8 concurrent
    python benchmarks/bench_web.py --requests 500 --concurrency 16
    python benchmarks/bench_web.py --url http://127.0.0.1:8000   # a server already running
    python benchmarks/bench_web.py --memory KEY RESPONSE         # memory per upload size

Starts the web application with uvicorn on 127.0.0.1 (a free port, in a thread) unless
``--url`` is given, posts ``samples/key.raf.xml`` and ``samples/response.raf.xml`` to
``POST /api/score`` ``--requests`` times, ``--concurrency`` at a time, checks that every
answer is 200 and equals ``corefio.score(key, response, sync="all")`` (the four score
sets and mention identification), and prints requests per second and the latency
percentiles (p50, p95, max). Exits 1 on any error or wrong answer.

``--memory KEY RESPONSE`` (two CoNLL files, e.g. from generate_corpus.py) scores their
first 1/8, 1/4, 1/2 and all documents through ``POST /api/score`` (in process) and
prints, per upload size: the worker's peak memory (what reading and scoring need), the
size the result takes in the store, and the server's own memory growth; then the same
for the key converted to RAF (a verbose XML format) and scored against itself.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402

import corefio  # noqa: E402

KEY = REPO / "samples" / "key.raf.xml"
RESPONSE = REPO / "samples" / "response.raf.xml"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server():
    import uvicorn

    from corefio.web import create_app

    port = free_port()
    from corefio.web import server_config

    server = uvicorn.Server(server_config(create_app(), "127.0.0.1", port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not server.started:
        if time.time() > deadline:
            raise SystemExit("the server did not start")
        time.sleep(0.05)
    return server, thread, f"http://127.0.0.1:{port}"


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        import os

        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def conll_head(path: Path, fraction: float) -> bytes:
    """The first ``fraction`` of the documents of a CoNLL file."""
    text = path.read_bytes()
    parts = text.split(b"#begin document")
    keep = max(1, round((len(parts) - 1) * fraction))
    return b"#begin document".join(parts[:keep + 1])


def memory(key: Path, response: Path) -> int:
    import gc
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    from corefio.web import create_app

    app = create_app(max_upload_mb=200, time_limit=600, store_mb=4096)
    client = TestClient(app, base_url="http://127.0.0.1")
    print("upload (key + response) | format | worker peak | kept in the store | server growth | seconds")

    def one(label: str, kname: str, kdata: bytes, rname: str, rdata: bytes) -> None:
        gc.collect()
        before = rss_mb()
        start = time.perf_counter()
        answer = client.post("/api/score", files={"key": (kname, kdata), "response": (rname, rdata)})
        elapsed = time.perf_counter() - start
        assert answer.status_code == 200, answer.text[:300]
        gc.collect()
        item = app.state.store.items[answer.json()["result"].rsplit("/", 1)[1]]
        print(f"{(len(kdata) + len(rdata)) / 2**20:8.1f} MB | {label:6} | {app.state.workers.last['peak_mb']:7.0f} MB"
              f" | {item[1] / 2**20:7.1f} MB | {rss_mb() - before:7.0f} MB | {elapsed:5.1f}")

    for fraction in (1 / 8, 1 / 4, 1 / 2, 1):
        one("conll", key.name, conll_head(key, fraction), response.name, conll_head(response, fraction))
    for fraction in (1 / 8, 1 / 4):
        raf = corefio.dumps(corefio.loads(conll_head(key, fraction), "conll"), "raf")
        raf = raf.encode("utf-8") if isinstance(raf, str) else raf
        one("raf", "k.raf.xml", raf, "r.raf.xml", raf)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--url", help="a running server (default: start one on 127.0.0.1)")
    parser.add_argument("--memory", nargs=2, type=Path, metavar=("KEY", "RESPONSE"),
                        help="measure the memory per upload size instead")
    args = parser.parse_args()
    if args.memory:
        return memory(*args.memory)

    expected = corefio.score(corefio.read(KEY), corefio.read(RESPONSE), sync="all").to_dict()
    files = {"key": (KEY.name, KEY.read_bytes()), "response": (RESPONSE.name, RESPONSE.read_bytes())}
    server = thread = None
    url = args.url
    if url is None:
        server, thread, url = start_server()
    local = threading.local()

    def one(_: int) -> tuple[float, str | None]:
        client = getattr(local, "client", None)
        if client is None:
            client = local.client = httpx.Client(base_url=url, timeout=120)
        start = time.perf_counter()
        try:
            answer = client.post("/api/score", files=files)
        except httpx.HTTPError as exc:
            return time.perf_counter() - start, f"{type(exc).__name__}: {exc}"
        elapsed = time.perf_counter() - start
        if answer.status_code != 200:
            return elapsed, f"HTTP {answer.status_code}: {answer.text[:200]}"
        body = answer.json()
        if body["sync"] != expected["sync"] or body["mentions"] != expected["mentions"]:
            return elapsed, "wrong scores"
        return elapsed, None

    # one request first: the server's imports and first fork are not the steady state
    warm = one(-1)
    if warm[1]:
        print(f"warm-up request failed: {warm[1]}")
        return 1
    start = time.perf_counter()
    with ThreadPoolExecutor(args.concurrency) as pool:
        results = list(pool.map(one, range(args.requests)))
    wall = time.perf_counter() - start
    if server is not None:
        server.should_exit = True
        thread.join(10)

    latencies = sorted(t for t, _ in results)
    errors = [e for _, e in results if e]
    p95 = latencies[max(0, int(round(0.95 * len(latencies))) - 1)]
    print(f"{args.requests} scoring requests of the samples, {args.concurrency} at a time, against {url}")
    print(f"  correct answers: {len(results) - len(errors)}/{len(results)}; errors: {len(errors)}")
    for e in sorted(set(errors))[:5]:
        print(f"    {e}")
    print(f"  throughput: {args.requests / wall:.1f} requests/s ({wall:.2f} s in all)")
    print(f"  latency: p50 {1000 * statistics.median(latencies):.0f} ms, p95 {1000 * p95:.0f} ms, "
          f"max {1000 * latencies[-1]:.0f} ms")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
