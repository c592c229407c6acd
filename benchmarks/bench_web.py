"""Load test of ``corefio serve``: scoring requests of the samples, 8 at a time.

    python benchmarks/bench_web.py                 # 200 requests, 8 concurrent
    python benchmarks/bench_web.py --requests 500 --concurrency 16
    python benchmarks/bench_web.py --url http://127.0.0.1:8000   # a server already running

Starts the web application with uvicorn on 127.0.0.1 (a free port, in a thread) unless
``--url`` is given, posts ``samples/key.raf.xml`` and ``samples/response.raf.xml`` to
``POST /api/score`` ``--requests`` times, ``--concurrency`` at a time, checks that every
answer is 200 and equals ``corefio.score(key, response, sync="all")`` (the four score
sets and mention identification), and prints requests per second and the latency
percentiles (p50, p95, max). Exits 1 on any error or wrong answer.
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
    server = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not server.started:
        if time.time() > deadline:
            raise SystemExit("the server did not start")
        time.sleep(0.05)
    return server, thread, f"http://127.0.0.1:{port}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--url", help="a running server (default: start one on 127.0.0.1)")
    args = parser.parse_args()

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
