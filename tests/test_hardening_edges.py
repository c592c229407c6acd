"""Hardening at the edges: slow clients (R12), leftovers of killed processes (R15).

Each regression test is named after its reproducer folder in the shared reproducers
(``R12_slowloris_256``, ``R15_kill9_leftovers``), so that a search for the folder's name
finds the test.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from .conftest import REPO
from .test_security import free_port as _free_port, wait_for as _wait_for


# -- R12: one client holding the server's connections -------------------------------------------
def _half_request(port: int, source: str) -> socket.socket | None:
    """A connection from ``source`` (an address of the loopback network) that sends a
    request line and one header, and then nothing (a slowloris client)."""
    s = socket.socket()
    s.settimeout(2)
    try:
        s.bind((source, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
        return s
    except OSError:
        s.close()
        return None


def _closed_by_server(s: socket.socket, wait: float) -> bool:
    """True when the server closed ``s`` (end of stream or reset) within ``wait`` s."""
    s.settimeout(wait)
    try:
        return s.recv(1024) == b""
    except socket.timeout:
        return False
    except OSError:
        return True


def _probe(port: int, source: str = "127.0.0.1") -> int | str:
    """The status of ``GET /api/formats`` sent from ``source`` (or what went wrong)."""
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        connection.request("GET", "/api/formats")
        return connection.getresponse().status
    except OSError as exc:
        return type(exc).__name__
    finally:
        connection.close()


def _loopback_aliases_work() -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.2", 0))
            return True
        except OSError:
            return False


@pytest.fixture()
def web_server():
    pytest.importorskip("fastapi")
    import uvicorn

    from corefio.web import MAX_CONNECTIONS, create_app, server_config

    port = _free_port()
    server = uvicorn.Server(server_config(create_app(), "127.0.0.1", port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        _wait_for(port)
        yield port, MAX_CONNECTIONS
    finally:
        server.should_exit = True
        thread.join(15)


@pytest.mark.skipif(not _loopback_aliases_work(), reason="needs the 127.0.0.0/8 loopback network (Linux)")
def test_R12_slowloris_256_one_client_cannot_stop_the_server(web_server):
    """R12_slowloris_256: 300 half-sent requests from one address made ``corefio serve``
    answer 503 to everyone (uvicorn counts them against its 256 connections). Now one
    address holds at most ``MAX_PER_CLIENT`` connections (a new one closes the client's
    oldest connection without a request at work), and other clients, and the same
    client's own complete requests, are answered throughout."""
    from corefio.web.edge import MAX_PER_CLIENT

    port, limit = web_server
    attack = [s for s in (_half_request(port, "127.0.0.2") for _ in range(limit + 44)) if s]
    try:
        assert len(attack) == limit + 44
        assert [_probe(port) for _ in range(8)] == [200] * 8
        closed = [k for k, s in enumerate(attack) if _closed_by_server(s, 0.02)]
        # the oldest were closed as newer ones came; the newest MAX_PER_CLIENT are held
        # (until the header timeout, which has not passed)
        assert closed == list(range(len(attack) - MAX_PER_CLIENT))
        # the same address's complete requests get through its own slow ones
        assert [_probe(port, "127.0.0.2") for _ in range(8)] == [200] * 8
        # each probe made room by closing one slow connection, unless the one before had
        # closed already (the probes close theirs as soon as they are answered)
        assert MAX_PER_CLIENT - 8 <= sum(not _closed_by_server(s, 0.01) for s in attack) <= MAX_PER_CLIENT - 1
    finally:
        for s in attack:
            s.close()


@pytest.mark.skipif(not _loopback_aliases_work(), reason="needs the 127.0.0.0/8 loopback network (Linux)")
def test_R12_slowloris_256_many_addresses_cannot_fill_the_server(web_server):
    """Slow clients from several addresses, each under the cap, together past the
    server's connection limit: a new connection makes room by closing the one that has
    waited longest without a request, so another client is still answered."""
    from corefio.web.edge import MAX_PER_CLIENT

    port, limit = web_server
    per_address = MAX_PER_CLIENT - 4
    addresses = [f"127.0.0.{3 + k}" for k in range(-(-(limit + 40) // per_address))]
    attack = [s for a in addresses for s in (_half_request(port, a) for _ in range(per_address)) if s]
    try:
        assert len(attack) > limit
        assert [_probe(port) for _ in range(8)] == [200] * 8
        # the oldest half-sent requests made room (the probes' and the newest attackers')
        closed = [k for k, s in enumerate(attack) if _closed_by_server(s, 0.02)]
        assert len(closed) >= len(attack) - limit
        assert closed[: len(attack) - limit] == list(range(len(attack) - limit))
    finally:
        for s in attack:
            s.close()


@pytest.mark.skipif(not _loopback_aliases_work(), reason="needs the 127.0.0.0/8 loopback network (Linux)")
def test_R12_slowloris_256_slow_bodies_are_capped_per_client(web_server):
    """The same with slow bodies (complete headers announcing a body that never comes:
    requests at work, which are never closed to make room): past ``MAX_PER_CLIENT`` the
    client's new connections are closed at once, and other clients are answered."""
    from corefio.web.edge import MAX_PER_CLIENT

    port, _ = web_server
    held, answers = [], []
    try:
        for _ in range(MAX_PER_CLIENT + 6):
            s = socket.socket()
            s.settimeout(10)
            s.bind(("127.0.0.9", 0))
            s.connect(("127.0.0.1", port))
            s.sendall(f"POST /api/validate HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 100000\r\n"
                      "Content-Type: multipart/form-data; boundary=x\r\nExpect: 100-continue\r\n\r\n".encode())
            held.append(s)
            # "100 Continue" once the application waits for the body (a request at work),
            # or the end of the stream when the connection was closed
            try:
                answers.append(s.recv(1024)[:25])
            except OSError:
                answers.append(b"")
        assert answers == [b"HTTP/1.1 100 Continue\r\n\r\n"[:25]] * MAX_PER_CLIENT + [b""] * 6
        assert [_probe(port) for _ in range(4)] == [200] * 4
    finally:
        for s in held:
            s.close()


# -- R15: what kill -9 leaves behind ------------------------------------------------------------
def _env() -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}


def _generator():
    import importlib.util

    spec = importlib.util.spec_from_file_location("generate_corpus", REPO / "benchmarks" / "generate_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _hidden(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


def test_R15_kill9_leftovers_staging_of_a_killed_convert_is_removed_by_the_next_run(tmp_path):
    """R15_kill9_leftovers (A): ``convert DIR OUT -j 2`` killed while its workers write
    left ``OUT/.corefio-staging-*`` (with partial temporaries) for ever; the next
    convert into OUT now removes the folders of processes that no longer run."""
    source = tmp_path / "src"
    key, _ = _generator().generate(tmp_path / "gen", docs=16)
    source.mkdir()
    text = key.read_text()
    for i in range(6):
        (source / f"f{i}.conll").write_text(text.replace("#begin document (", f"#begin document (f{i}_"))
    out = tmp_path / "out"
    command = [sys.executable, "-m", "corefio", "convert", str(source), str(out), "--to", "conllu", "-j", "2"]
    child = subprocess.Popen(command, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and child.poll() is None:
            if out.is_dir() and any(p.name.startswith(".corefio-staging-") for p in out.iterdir()):
                break
            time.sleep(0.005)
        assert child.poll() is None, "convert ended before it could be killed"
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    left = _hidden(out)
    assert left and all(name.startswith(f".corefio-staging-{child.pid}-") for name in left)
    done = subprocess.run(command, env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert _hidden(out) == []
    assert sorted(p.name for p in out.iterdir()) == [f"f{i}.conllu" for i in range(6)]


def test_R15_kill9_leftovers_only_the_folders_of_dead_processes_are_removed(tmp_path):
    """A staging folder of a process that still runs stays (it is at work); one whose
    process is gone goes, with what it holds; other hidden files stay."""
    from corefio.io import files

    dead = _dead_pid()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        gone = tmp_path / f".corefio-staging-{dead}-abc123_x"
        (gone / "3").mkdir(parents=True)
        (gone / "3" / f".f3.conllu.corefio-{dead}-0123abcd.tmp").write_bytes(b"x" * 1000)
        alive = tmp_path / f".corefio-staging-{sleeper.pid}-def456"
        alive.mkdir()
        (tmp_path / ".corefio-staging-notapid").mkdir()
        (tmp_path / ".hidden").write_text("mine")
        with files.staging_directory(tmp_path) as stage:
            assert stage.name.startswith(f".corefio-staging-{os.getpid()}-")
            # another writer in this process leaves a folder that is at work alone
            files.clean_leftovers(tmp_path)
            assert stage.is_dir()
        assert _hidden(tmp_path) == sorted([".corefio-staging-notapid", alive.name, ".hidden"])
    finally:
        sleeper.kill()
        sleeper.wait()


KILLED_BETWEEN_THE_RENAMES = """
import os, sys, time
from corefio.io import files
from corefio.cli import main

replace = os.replace
key_target = os.path.abspath(os.path.join(sys.argv[3], "key.conllu"))

def stop_after_the_key(source, target):
    replace(source, target)
    if os.path.abspath(target) == key_target:
        print("between", flush=True)
        time.sleep(120)

files.os.replace = stop_after_the_key
sys.argv = ["corefio", "sync", sys.argv[1], sys.argv[2], "-o", sys.argv[3], "--to", "conllu", "-j", "1"]
main()
"""


def _old_pair(folder: Path) -> None:
    folder.mkdir(exist_ok=True)
    (folder / "key.conllu").write_text("OLD\n")
    (folder / "response.conllu").write_text("OLD\n")


def _pair_state(folder: Path) -> tuple[str, str]:
    return tuple("old" if (folder / f"{side}.conllu").read_text() == "OLD\n" else "new"
                 for side in ("key", "response"))


@pytest.fixture(scope="module")
def sync_inputs(tmp_path_factory):
    return _generator().generate(tmp_path_factory.mktemp("sync"), docs=6)


def test_R15_kill9_leftovers_a_pair_killed_between_its_renames_is_completed_by_the_next_run(tmp_path, sync_inputs):
    """R15_kill9_leftovers (B): ``sync -o DIR`` killed after it replaced key.conllu and
    before response.conllu left a new key beside the OLD response, and a temporary,
    with nothing saying so. Now both files are written first and a journal names the
    pair: the next corefio write into DIR completes the pair from it."""
    key, response = sync_inputs
    out = tmp_path / "out"
    _old_pair(out)
    child = subprocess.Popen([sys.executable, "-c", KILLED_BETWEEN_THE_RENAMES, str(key), str(response), str(out)],
                             env=_env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert child.stdout.readline() == b"between\n"
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
    # the moment of the kill: the journal says the pair is incomplete
    assert _pair_state(out) == ("new", "old")
    journals = [n for n in _hidden(out) if n.startswith(".corefio-pair-")]
    assert journals == [n for n in journals if n.startswith(f".corefio-pair-{child.pid}-")] and len(journals) == 1
    # any later write into the folder completes it first (here: an unrelated file)
    from corefio.io import files

    files.atomic_write(out / "notes.txt", "unrelated")
    assert _pair_state(out) == ("new", "new")
    assert _hidden(out) == []
    # and the pair is the one an uninterrupted sync writes
    again = tmp_path / "again"
    done = subprocess.run([sys.executable, "-m", "corefio", "sync", str(key), str(response), "-o", str(again),
                           "--to", "conllu", "-j", "1"], env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    for side in ("key", "response"):
        assert (out / f"{side}.conllu").read_bytes() == (again / f"{side}.conllu").read_bytes()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_R15_kill9_leftovers_sync_killed_anywhere_leaves_the_old_pair_or_a_journal(tmp_path, sync_inputs, jobs):
    """Killed at any moment (here: as soon as the key is new, the reproducer's moment,
    and at a few delays), ``sync`` leaves the old pair, the new pair, or a new key with
    the journal that completes it; after the next run into the folder, the pair is whole
    and nothing is left behind."""
    key, response = sync_inputs
    out = tmp_path / "out"
    command = [sys.executable, "-m", "corefio", "sync", str(key), str(response), "-o", str(out), "--to", "conllu",
               "-j", jobs]
    for delay in (None, 0.3, 0.8, 1.5):
        _old_pair(out)
        child = subprocess.Popen(command, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            if delay is None:
                while _pair_state(out)[0] == "old" and child.poll() is None:
                    time.sleep(0.001)
            else:
                time.sleep(delay)
            child.send_signal(signal.SIGKILL)
            child.wait(30)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        state = _pair_state(out)
        journal = any(n.startswith(".corefio-pair-") for n in _hidden(out))
        assert state in (("old", "old"), ("new", "new")) or (state == ("new", "old") and journal), (delay, state)
        from corefio.io import files

        files.clean_leftovers(out)
        assert _pair_state(out) in (("old", "old"), ("new", "new"))
        assert _hidden(out) == []


def test_R15_kill9_leftovers_a_journal_moves_nothing_outside_its_folder(tmp_path):
    """A journal is read only for moves from a staging folder of its own (dead) process
    in its folder to a file of that folder: a forged one moves nothing."""
    import json

    from corefio.io import files

    dead = _dead_pid()
    folder = tmp_path / "out"
    folder.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("secret")
    stage = folder / f".corefio-staging-{dead}-abcd"
    stage.mkdir()
    (stage / "key.conllu").write_text("staged")
    forged = [[["../secret.txt", "stolen.txt"]], [[f"{stage.name}/key.conllu", "../escaped.txt"]],
              [[f".corefio-staging-{dead + 1}-abcd/key.conllu", "key.conllu"]],
              [[f"{stage.name}/key.conllu", ".corefio-pair-1-00000000.json"]]]
    for k, moves in enumerate(forged):
        (folder / f".corefio-pair-{dead}-0000000{k}.json").write_text(json.dumps({"moves": moves}))
    files.clean_leftovers(folder)
    assert secret.read_text() == "secret"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "secret.txt"]
    assert not (folder / "stolen.txt").exists() and not (folder / "key.conllu").exists()


def test_R15_kill9_leftovers_the_web_scratch_of_a_killed_server_is_removed_on_start(tmp_path):
    """R15_kill9_leftovers (C): ``corefio serve`` killed during a request left its
    scratch folder (the upload) in the temporary folder for ever; the next server to
    start removes the folders of servers that no longer run (not those of running ones)."""
    pytest.importorskip("fastapi")
    import urllib.request

    scratch_root = tmp_path / "tmp"
    scratch_root.mkdir()
    env = {**_env(), "TMPDIR": str(scratch_root)}
    port = _free_port()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    other = scratch_root / f"corefio-web-{sleeper.pid}_busy1234"
    other.mkdir()
    key, _ = _generator().generate(tmp_path / "gen", docs=60)
    server = subprocess.Popen([sys.executable, "-m", "corefio", "serve", "--port", str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(port)
        boundary = "corefioBoundary"
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"key.conll\"\r\n"
                "Content-Type: application/octet-stream\r\n\r\n").encode() + key.read_bytes() + \
            f"\r\n--{boundary}--\r\n".encode()
        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/validate", data=body, method="POST",
                                         headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
        thread = threading.Thread(target=lambda: _ignore_errors(lambda: urllib.request.urlopen(request, timeout=60)),
                                  daemon=True)
        thread.start()
        deadline = time.monotonic() + 60
        mine = f"corefio-web-{server.pid}_"
        while time.monotonic() < deadline and not any(p.name.startswith(mine) for p in scratch_root.iterdir()):
            time.sleep(0.005)
        assert any(p.name.startswith(mine) for p in scratch_root.iterdir()), "the request never made its folder"
        server.send_signal(signal.SIGKILL)
        server.wait(30)
        thread.join(30)
        left = sorted(p.name for p in scratch_root.iterdir() if p.name.startswith(mine))
        assert left, "the killed server's folder should still be there before the restart"
        restarted = subprocess.Popen([sys.executable, "-m", "corefio", "serve", "--port", str(port)], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait_for(port)
            names = sorted(p.name for p in scratch_root.iterdir())
            assert not any(name.startswith(mine) for name in names)
            assert other.name in names  # a running server's folder stays
        finally:
            restarted.kill()
            restarted.wait()
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        sleeper.kill()
        sleeper.wait()


def _ignore_errors(call) -> None:
    try:
        call()
    except OSError:
        pass


def test_R15_kill9_leftovers_names_with_absurd_process_ids_do_not_stop_a_write(tmp_path):
    """Clean-up reads process ids out of file names: a name with a 200-digit "pid", or
    one past the system's range, must not stop a write."""
    from corefio.io import files

    huge, big = "9" * 200, str(2**40)
    names = [f".corefio-staging-{huge}-ab", f".out.conll.corefio-{huge}-0123abcd.tmp",
             f".corefio-pair-{big}-00000000.json", f".corefio-staging-{big}-cd"]
    (tmp_path / names[0]).mkdir()
    (tmp_path / names[1]).write_text("x")
    (tmp_path / names[2]).write_text("{}")
    (tmp_path / names[3]).mkdir()
    files.atomic_write(tmp_path / "out.conll", "new")
    with files.staging_directory(tmp_path):
        pass
    assert (tmp_path / "out.conll").read_text() == "new"
    assert _hidden(tmp_path) == sorted(names)  # not ours to judge: left alone
