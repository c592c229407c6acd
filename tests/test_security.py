"""`corefio serve` under attack: every hostile upload against every route, refused fast
and cheaply; foreign Host and Origin; slow clients against a live server on 127.0.0.1.

Each hostile request must be answered 4xx with a message (never 500), within 1 s, with
less than 100 MB of memory in the server (tracemalloc for the server process, the
worker's own peak as it reports it), without writing outside its temporary directory
and without showing a server path.
"""

from __future__ import annotations

import io
import os
import socket
import stat
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

from corefio.web import create_app  # noqa: E402

from .conftest import REPO, SAMPLES  # noqa: E402

KEY = SAMPLES / "key.raf.xml"
SECRET = "TOP-SECRET-CONTENT-42"
LIMIT_MB = 4
#: the issue's target for refusing a hostile input (benchmarks/bench_hostile.py measures it);
#: the tests only guard against a hang, at ten times the target, so that a busy machine
#: does not fail them
TARGET_SECONDS = 1.0
SECONDS = 10 * TARGET_SECONDS
MEGABYTES = 100


@pytest.fixture(scope="module")
def secret_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("victim") / "secret.txt"
    path.write_text(SECRET)
    return path


@pytest.fixture(scope="module")
def app():
    return create_app(max_upload_mb=LIMIT_MB)


@pytest.fixture(scope="module")
def client(app):
    return TestClient(app, base_url="http://127.0.0.1")


# -- hostile uploads -----------------------------------------------------------------------------
def zip_of(entries: list[tuple[str | zipfile.ZipInfo, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for name, data in entries:
            z.writestr(name, data)
    return buf.getvalue()


MMAX = b'<?xml version="1.0"?><mmax_project><words>w.xml</words></mmax_project>'


def slip_dotdot(_: Path) -> bytes:
    return zip_of([("p/x.mmax", MMAX), ("../../escaped-by-corefio-test.txt", b"x")])


def slip_absolute(_: Path) -> bytes:
    return zip_of([("p/x.mmax", MMAX), (f"{tempfile.gettempdir()}/escaped-by-corefio-test.txt", b"x")])


def slip_symlink(secret: Path) -> bytes:
    link = zipfile.ZipInfo("p/Basedata/w.xml")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    return zip_of([("p/x.mmax", MMAX), (link, str(secret).encode())])


def file_and_folder(_: Path) -> bytes:
    return zip_of([("p/x.mmax", MMAX), ("p/Basedata", b"a file"), ("p/Basedata/w.xml", b"<words/>")])


def lying_size(_: Path) -> bytes:
    """An entry whose headers declare 100 bytes for 2 MB of data."""
    data = bytearray(zip_of([("p/x.mmax", MMAX), ("p/big.xml", b" " * (2 << 20))]))
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as z:
        info = z.getinfo("p/big.xml")
        local = info.header_offset
    data[local + 22:local + 26] = (100).to_bytes(4, "little")
    central = data.rfind(b"PK\x01\x02")
    data[central + 24:central + 28] = (100).to_bytes(4, "little")
    return bytes(data)


def deep_folders(_: Path) -> bytes:
    return zip_of([("d/" * 2000 + "x.mmax", MMAX)])


def bomb_total(_: Path) -> bytes:
    """More than the upload limit once expanded (a few KB compressed)."""
    return zip_of([("p/x.mmax", MMAX)] + [(f"p/zeros{i}.xml", b"\0" * (1 << 20)) for i in range(LIMIT_MB + 2)])


def bomb_ratio(_: Path) -> bytes:
    """One entry that expands 1,000 times (within the size limit)."""
    return zip_of([("p/x.mmax", MMAX), ("p/zeros.xml", b"\0" * (3 << 20))])


def many_entries(_: Path) -> bytes:
    return zip_of([(f"p/{i}.xml", b"") for i in range(12_000)], zipfile.ZIP_STORED)


def xxe(secret: Path) -> bytes:
    return (f'<?xml version="1.0"?>\n<!DOCTYPE struct [<!ENTITY xxe SYSTEM "file://{secret}">]>\n'
            '<struct type="reference_annotation_collection"><struct type="document" name="d">'
            '<struct type="primary_data"><struct type="word" id="w1"><feat type="form">&xxe;</feat></struct>'
            '</struct></struct></struct>').encode()


def billion_laughs(_: Path) -> bytes:
    lol = '<!ENTITY lol "lol">' + "".join(f'<!ENTITY lol{i} "{(f"&lol{i - 1};" if i > 1 else "&lol;") * 10}">'
                                          for i in range(1, 10))
    return (f'<?xml version="1.0"?>\n<!DOCTYPE struct [{lol}]>\n'
            '<struct type="reference_annotation_collection"><struct type="document" name="d">'
            '<struct type="primary_data"><struct type="word" id="w1"><feat type="form">&lol9;</feat></struct>'
            '</struct></struct></struct>').encode()


def deep_xml(_: Path) -> bytes:
    return b'<?xml version="1.0"?>' + b"<struct>" * 100_000 + b"</struct>" * 100_000


ZIPS = {"zip slip ..": slip_dotdot, "zip slip absolute": slip_absolute, "zip symlink": slip_symlink,
        "zip file and folder": file_and_folder, "zip lying size": lying_size, "zip 2000 deep": deep_folders,
        "zip bomb (total)": bomb_total, "zip bomb (ratio)": bomb_ratio, "zip 12000 entries": many_entries}
XMLS = {"xxe": xxe, "billion laughs": billion_laughs, "deep xml": deep_xml}
HOSTILE = {**{k: (v, "project.zip") for k, v in ZIPS.items()}, **{k: (v, "evil.raf.xml") for k, v in XMLS.items()}}
ROUTES = ["/api/score", "/api/convert", "/api/validate", "/api/repair", "/api/agreement", "/score", "/convert",
          "/validate", "/repair", "/agreement"]


def post(client, route: str, name: str, data: bytes):
    """The hostile upload on ``route`` (for agreement, as the second of two annotations);
    a page's redirect is followed, so that a result page reached is seen as accepted."""
    key = (KEY.name, KEY.read_bytes())
    if route.endswith("score"):
        return client.post(route, files={"key": (name, data), "response": key})
    if route.endswith("agreement"):
        return client.post(route, files=[("annotations", key), ("annotations", (name, data))])
    form = {"to": "conll"} if route.endswith("convert") else {}
    return client.post(route, files={"file": (name, data)}, data=form)


def refused(answer, route: str, case: str) -> bool:
    """4xx; for validation a 200 that says the file is not valid is a refusal too."""
    if 400 <= answer.status_code < 500:
        return True
    if answer.status_code == 200 and route == "/api/validate":
        return answer.json()["valid"] is False
    if answer.status_code == 200 and route == "/validate":
        return "not valid" in answer.text or 'class="severity error"' in answer.text or "error" in answer.text
    if answer.status_code == 200 and route.endswith("repair") and case in XMLS:
        return True  # repair only rewrites the text; checked below not to expand or include anything
    return False


def escaped_files() -> list[Path]:
    return [p for p in (Path(tempfile.gettempdir()), Path(tempfile.gettempdir()).parent)
            if (p / "escaped-by-corefio-test.txt").exists()]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("case", list(HOSTILE))
def test_every_hostile_upload_is_refused_fast_and_cheaply(app, client, secret_file, case, route):
    build, name = HOSTILE[case]
    data = build(secret_file)
    start = time.perf_counter()
    answer = post(client, route, name, data)
    elapsed = time.perf_counter() - start
    assert answer.status_code != 500 and answer.status_code < 500, answer.text[:500]
    assert refused(answer, route, case), (answer.status_code, answer.text[:500])
    assert elapsed < SECONDS, f"{case} on {route}: {elapsed:.2f} s"
    assert SECRET not in answer.text
    assert "lollollol" not in answer.text  # no entity expanded
    assert "corefio-web-" not in answer.text and str(REPO) not in answer.text  # no server path
    assert not escaped_files()
    if answer.status_code >= 400:
        message = answer.json()["message"] if route.startswith("/api/") else answer.text
        assert len(message) > 10
    # memory: the worker's own peak, and the server process's allocations (traced)
    worker_peak = app.state.workers.last.get("peak_mb", 0)
    assert worker_peak < MEGABYTES, f"{case} on {route}: worker {worker_peak:.0f} MB"
    tracemalloc.start()
    try:
        post(client, route, name, data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MEGABYTES * 2**20, f"{case} on {route}: server {peak / 2**20:.0f} MB"


def test_zip_refusals_say_what_is_wrong(client, secret_file):
    expected = {"zip slip ..": (422, "unsafe path"), "zip slip absolute": (422, "unsafe path"),
                "zip symlink": (422, "symbolic link"), "zip file and folder": (422, "both as a file and as a folder"),
                "zip lying size": (422, "cannot be extracted"), "zip 2000 deep": (422, "longer than"),
                "zip bomb (total)": (413, "beyond the upload limit"), "zip bomb (ratio)": (413, "zip bomb"),
                "zip 12000 entries": (413, "entries")}
    for case, (status, words) in expected.items():
        answer = post(client, "/api/convert", "p.zip", ZIPS[case](secret_file))
        assert answer.status_code == status, (case, answer.text)
        assert words in answer.json()["message"], (case, answer.json())


def test_deep_folders_within_the_name_limit_are_refused_too(client):
    answer = post(client, "/api/validate", "p.zip", zip_of([("d/" * 40 + "x.mmax", MMAX)]))
    assert answer.status_code == 422 and "nests folders more than" in answer.json()["message"]


# -- foreign Host and Origin -----------------------------------------------------------------------
@pytest.mark.parametrize("route", ROUTES + ["/", "/api/formats"])
def test_a_foreign_host_is_refused_on_every_route(app, route):
    rebound = TestClient(app, base_url="http://attacker.example")
    answer = rebound.post(route, files={"file": (KEY.name, KEY.read_bytes())}) if route in ROUTES \
        else rebound.get(route)
    assert answer.status_code == 400 and "host" in answer.text.lower()
    for header, value in [("content-security-policy", "default-src 'self'"), ("x-frame-options", "DENY"),
                          ("x-content-type-options", "nosniff"), ("referrer-policy", "same-origin")]:
        assert value in answer.headers[header]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("origin", [{"Origin": "http://attacker.example"}, {"Origin": "null"},
                                    {"Referer": "http://attacker.example/page"},
                                    {"Sec-Fetch-Site": "cross-site"}])
def test_a_cross_site_post_is_refused_on_every_route(client, route, origin):
    start = time.perf_counter()
    answer = client.post(route, files=[("file", (KEY.name, KEY.read_bytes())), ("key", (KEY.name, KEY.read_bytes())),
                                       ("response", (KEY.name, KEY.read_bytes())),
                                       ("annotations", (KEY.name, KEY.read_bytes())),
                                       ("annotations", (KEY.name, KEY.read_bytes()))], headers=origin)
    assert answer.status_code == 403 and "another site" in answer.text
    assert time.perf_counter() - start < SECONDS


def test_same_origin_forms_and_scripts_without_origin_work(client):
    files = {"key": (KEY.name, KEY.read_bytes()), "response": (KEY.name, KEY.read_bytes())}
    same = client.post("/score", files=files, headers={"Origin": "http://127.0.0.1"}, follow_redirects=False)
    assert same.status_code == 303
    script = client.post("/api/score", files=files)
    assert script.status_code == 200
    also = TestClient(client.app, base_url="http://localhost:8000")
    assert also.post("/api/score", files=files, headers={"Origin": "http://localhost:8000"}).status_code == 200


def test_allowed_host_option_adds_a_name():
    app = create_app(allowed_hosts=["evaluator.lab.example"])
    named = TestClient(app, base_url="https://evaluator.lab.example")
    assert named.get("/").status_code == 200
    assert TestClient(app, base_url="http://other.example").get("/").status_code == 400


def test_every_answer_carries_the_security_headers(client):
    answers = [client.get("/"), client.get("/static/app.js"), client.get("/nowhere"), client.get("/api/formats"),
               client.post("/api/score", files={"key": ("a.raf.xml", b"<x")})]
    for answer in answers:
        assert answer.headers["x-frame-options"] == "DENY"
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["referrer-policy"] == "same-origin"
        assert "script-src 'self'" in answer.headers["content-security-policy"]
        assert "unsafe-inline" not in answer.headers["content-security-policy"]


def test_pages_have_no_inline_script_or_style(client):
    result = client.post("/score", files={"key": (KEY.name, KEY.read_bytes()),
                                          "response": ("r.raf.xml", (SAMPLES / "response.raf.xml").read_bytes())},
                         follow_redirects=False).headers["location"]
    agreed = client.post("/agreement", files=[("annotations", (KEY.name, KEY.read_bytes())),
                                              ("annotations", ("r.raf.xml", (SAMPLES / "response.raf.xml").read_bytes()))],
                         follow_redirects=False).headers["location"]
    converted = client.post("/convert", files={"file": (KEY.name, KEY.read_bytes())}, data={"to": "conll"},
                            follow_redirects=False).headers["location"]
    refused = client.post("/score", files={"key": (KEY.name, KEY.read_bytes()), "response": ("r.raf.xml", b"<x")})
    assert refused.status_code == 422 and 'id="score-form"' in refused.text  # the form again, with the error
    pages = {path: client.get(path) for path in ("/", "/compare", "/convert", "/validate", "/repair", "/agreement",
                                                  "/metrics", result, result + "/view", agreed,
                                                  agreed + "/adjudication", converted, "/nowhere")}
    for path, answer in [*pages.items(), ("the form after an error", refused)]:
        text = answer.text
        assert answer.status_code in (404 if path == "/nowhere" else 200, 422), path
        assert "<script>" not in text and "style=" not in text and "javascript:" not in text, path
        assert "<script" not in text.replace('<script src="/static/app.js"></script>', ""), path


# -- slow clients against a live `corefio serve` --------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port: int, seconds: float = 30) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("the server did not start")


@pytest.fixture(scope="module")
def live():
    """``corefio serve`` on 127.0.0.1 with a 2 s body deadline and a 1 MB upload limit."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "corefio", "serve", "--port", str(port), "--body-timeout", "2",
                             "--max-upload-mb", "1"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(port)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            proc.kill()


def request_head(port: int, route: str, length: int) -> bytes:
    return (f"POST {route} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: multipart/form-data; "
            f"boundary=XyZ\r\nContent-Length: {length}\r\n\r\n").encode()


def quick_get(port: int) -> tuple[int, float]:
    import httpx

    start = time.perf_counter()
    answer = httpx.get(f"http://127.0.0.1:{port}/api/formats", timeout=10)
    return answer.status_code, time.perf_counter() - start


def test_slow_bodies_do_not_hold_the_server(live):
    """100 connections sending their bodies a few bytes at a time (bounded: 100 sockets,
    at most 8 s): the server still answers at once, and closes each of them after its
    2 s body deadline with 408."""
    port = live
    sockets = []
    routes = ROUTES * 13
    try:
        for route in routes[:100]:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(request_head(port, route, 500_000) + b"--XyZ\r\n")
            sockets.append(s)
        status, seconds = quick_get(port)
        assert status == 200 and seconds < 20  # answered while the slow bodies wait (a hang guard)
        start = time.time()
        closed: dict[int, bytes] = {}
        while len(closed) < len(sockets) and time.time() - start < 60:
            for i, s in enumerate(sockets):
                if i in closed:
                    continue
                try:
                    s.sendall(b"a")
                    s.settimeout(0.001)
                    data = s.recv(4096)
                    closed[i] = data
                except (socket.timeout, BlockingIOError):
                    pass
                except OSError:
                    closed[i] = b"closed"
                finally:
                    s.settimeout(5)
            time.sleep(0.2)
        held = time.time() - start
        assert len(closed) == len(sockets), f"{len(sockets) - len(closed)} connections still open after {held:.1f} s"
        assert held < 60  # each closed after its 2 s body deadline, not held (a hang guard)
        # each got its 408, or (sending on while the server closed) a reset before reading it
        assert all(b" 408 " in data or data in (b"", b"closed") for data in closed.values())
        assert sum(b" 408 " in data for data in closed.values()) >= 50
        status, seconds = quick_get(port)
        assert status == 200 and seconds < 20  # answered while the slow bodies wait (a hang guard)
    finally:
        for s in sockets:
            s.close()


def test_an_upload_over_the_limit_is_refused_while_it_streams(live):
    """A chunked body with no Content-Length: the 413 comes after the limit (1 MB) is
    passed, before the client has sent the rest (8 MB)."""
    port = live
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall((f"POST /api/convert HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: multipart/form-data; "
                   "boundary=XyZ\r\nTransfer-Encoding: chunked\r\n\r\n").encode())
        part = (b'--XyZ\r\nContent-Disposition: form-data; name="file"; filename="big.raf.xml"\r\n'
                b"Content-Type: application/octet-stream\r\n\r\n")
        s.sendall(b"%x\r\n%s\r\n" % (len(part), part))
        chunk = b"x" * 65536
        sent = 0
        answer = b""
        s.settimeout(0.01)
        while sent < 8 << 20:
            try:
                s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
            except OSError:
                break
            try:
                answer += s.recv(65536)
                if answer:
                    break
            except (socket.timeout, BlockingIOError):
                pass
        s.settimeout(5)
        try:
            while b"\r\n\r\n" not in answer:
                more = s.recv(65536)
                if not more:
                    break
                answer += more
        except OSError:
            pass
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert (1 << 20) <= sent < 3 << 20


def test_slow_headers_are_cut_off():
    """A connection that never finishes its request line and headers is closed after the
    header timeout (1 s here), on a fresh connection and on a kept-alive one."""
    import threading

    import uvicorn

    from corefio.web import server_config

    port = free_port()
    server = uvicorn.Server(server_config(create_app(), "127.0.0.1", port, log_level="warning", header_timeout=1))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_for(port)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as fresh, \
                socket.create_connection(("127.0.0.1", port), timeout=5) as kept:
            fresh.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            kept.sendall(b"GET /api/formats HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            first = kept.recv(65536)
            assert first.startswith(b"HTTP/1.1 200")
            kept.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            start = time.time()
            for s in (fresh, kept):
                rest = b""
                while time.time() - start < 40:
                    more = s.recv(65536)
                    if not more:
                        break
                    rest += more
                assert not more and b"HTTP/1.1 200" not in rest
            assert time.time() - start < 30  # closed at the header deadline, not held (a hang guard)
    finally:
        server.should_exit = True
        thread.join(10)


def test_a_request_worker_dies_with_a_killed_server():
    """``kill -9`` on the server while a request is at work must not leave the request's
    forked worker running (it would hold its memory until its own time limit, or for
    ever with none)."""
    import subprocess
    import sys
    import time

    from .conftest import REPO
    from .test_scoring import _children, _gone_within

    program = (
        "import asyncio, time\n"
        "from corefio.web.worker import Workers\n"
        "def slow():\n"
        "    time.sleep(120)\n"
        "asyncio.run(Workers(count=1, seconds=300).run(slow, what='a slow job'))\n"
    )
    server = subprocess.Popen([sys.executable, "-c", program], env={**__import__("os").environ,
                                                                    "PYTHONPATH": str(REPO)})
    try:
        deadline = time.monotonic() + 30
        workers: set[int] = set()
        while not workers and server.poll() is None and time.monotonic() < deadline:
            workers = _children(server.pid)
            time.sleep(0.01)
        assert workers, "the worker was never seen"
    finally:
        server.kill()
        server.wait()
    assert not _gone_within(workers, 3.0)
