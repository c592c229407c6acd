"""Every hostile input of the test suite, refused by the command line and by the web:
how long the refusal takes and how much memory it needs.

The inputs are built by the test suite's own builders (imported, not copied): the zip
and XML uploads of ``tests/test_security.py``, the XML of ``tests/test_hostile_inputs.py``,
the zips of R10/R11 (``tests/test_hardening_inception.py``), the MMAX2 projects of R09
and R13 (``tests/test_hardening_mmax2.py``: a FIFO, deep nesting, an 11 MB text node),
links leading out of a project (``tests/test_mmax2_security.py``'s project copy) and the
security reproducers S01-S12 of ``../shared/reproducers`` (where that folder is present).

The command line: ``python -m corefio validate|convert|info`` in a child process;
``wall`` is its wall time, ``cpu`` its user + system time and ``mb`` its peak resident
size above that of the same command on ``samples/key.raf.xml`` (``getrusage`` of a
fresh measuring process, ``benchmarks/_measure.py``: exact). Starting the interpreter and importing corefio takes about 0.5 s of CPU
on its own; a CLI row fails when its CPU time exceeds that start by over 1 s (on a busy
machine the wall time says more about the other processes). The web: an upload through FastAPI's TestClient to ``/api/validate`` and
``/api/score`` (the hostile file as the key); ``cpu`` is the server's CPU time plus its
worker processes', ``mb`` the larger of the server's traced allocations (``tracemalloc``,
in a second request, so that tracing does not slow the timed one) and the worker's own
peak growth; the multipart body is built before the request, so that the in-process
client's encoding does not count (its passing the body to the server still does: one
copy of the upload). A directory project goes to the web as a zip of its regular files (a FIFO
cannot be zipped: no web row).

A refusal must be a clear error: exit 3 (``validate``: 3 or 4, "not valid"), a 4xx, or
for ``/api/validate`` a 200 saying the file is not valid. A row is FAIL when the input
is accepted, when the answer is an internal error (exit 1, 5xx), or when it takes over
1 s of CPU time (the CLI: above its start) or 100 MB of memory. The wall time is printed
too; on a shared machine it mostly measures the other processes, so it decides nothing.

    python benchmarks/bench_hostile.py            # everything
    python benchmarks/bench_hostile.py --only zip # cases whose name contains 'zip'
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import resource
import shutil
import stat
import sys
import tempfile
import time
import tracemalloc
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from _measure import environment, measure  # noqa: E402
from tests import test_hardening_inception as inception  # noqa: E402
from tests import test_hardening_mmax2 as hmmax2  # noqa: E402
from tests import test_hostile_inputs as hostile_xml  # noqa: E402
from tests import test_mmax2_security as mmax2_security  # noqa: E402
from tests import test_security as security  # noqa: E402

TARGET_SECONDS = 1.0
TARGET_MB = 100.0
KEY = REPO / "samples" / "key.raf.xml"
SHARED = REPO.parent / "shared" / "reproducers"
#: a hang guard for one child run (a refusal should take under a second)
GUARD_SECONDS = 120


@dataclass
class Case:
    """One hostile input: ``build(folder)`` writes it and returns its path."""

    name: str
    build: Callable[[Path], Path]
    #: ``--from`` for the command line (a zip the guesser cannot name)
    form: str | None = None
    #: the web cannot receive it (a FIFO)
    web: bool = True
    #: a reproducer of slowness or of an internal error, not of an attack: it may be
    #: read (with repairs or warnings), as long as that is quick and small
    may_read: bool = False


def _bytes_case(name: str, filename: str, build: Callable[[Path], bytes], form: str | None = None) -> Case:
    def write(folder: Path) -> Path:
        path = folder / filename
        path.write_bytes(build(folder / "secret.txt"))
        return path

    return Case(name, write, form)


def _project(name: str, change: Callable[[Path], None], web: bool = True) -> Case:
    def write(folder: Path) -> Path:
        root = hmmax2.project(folder)
        change(root)
        return root

    return Case(name, write, "mmax2", web)


def _fifo(member: str) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        (root / member).unlink()
        os.mkfifo(root / member)

    return change


def _deep(member: str) -> Callable[[Path], None]:
    return lambda root: hmmax2.deep(root / member, 300)


def _long_text(root: Path) -> None:
    hmmax2.replace_in(root / "Basedata/worship_words.xml", ">court<", ">" + "x" * (11 * 1024 * 1024) + "<")


def _scheme_linked_out(root: Path) -> None:
    secret = mmax2_security.put_secret(root.parent)
    scheme = root / "Schemes/coref_scheme.xml"
    scheme.unlink()
    scheme.symlink_to(secret)


def _folder_linked_out(root: Path) -> None:
    outside = root.parent / "outside"
    shutil.move(root / "Basedata", outside)
    (root / "Basedata").symlink_to(outside, target_is_directory=True)


def _mmax_linked_in(root: Path) -> None:
    outside = root.parent / "elsewhere.mmax"
    shutil.move(root / "worship.mmax", outside)
    (root / "worship.mmax").symlink_to(outside)


def _reproducer_dir(name: str) -> Case:
    def write(folder: Path) -> Path:
        # the test helper needs the shared folder (it skips, via pytest, without it)
        return mmax2_security.reproducer(name, folder)

    return Case(name, write, "mmax2")


def _reproducer_file(name: str, form: str | None = None, may_read: bool = False) -> Case:
    def write(folder: Path) -> Path:
        target = folder / name
        data = (SHARED / name).read_bytes()
        target.write_bytes(data.replace(b"@REPRO@", str(folder).encode()))
        for marker in mmax2_security.MARKERS:
            shutil.copy(SHARED / marker, folder / marker)
        return target

    return Case(name, write, form, may_read=may_read)


def _ignoring_secret(build: Callable[[], bytes]) -> Callable[[Path], bytes]:
    return lambda _: build()


def cases() -> list[Case]:
    found = [_bytes_case(name, "project.zip", build, "mmax2") for name, build in security.ZIPS.items()]
    found += [_bytes_case(name, "evil.raf.xml", build) for name, build in security.XMLS.items()]
    raf_with = hostile_xml.raf_with
    padding = "<!--" + "x" * 70000 + "-->"
    found += [
        _bytes_case("xxe after 64 KiB", "evil.raf.xml", lambda s: (
            f'<?xml version="1.0"?>\n{padding}\n<!DOCTYPE struct [<!ENTITY xxe SYSTEM "file://{s}">]>\n'
            '<struct type="reference_annotation_collection"/>').encode()),
        _bytes_case("quadratic blowup", "evil.raf.xml",
                    lambda _: raf_with('<!DOCTYPE struct [<!ENTITY a "' + "x" * 50000 + '">]>', "&a;" * 1000)),
        _bytes_case("external DTD (http)", "evil.raf.xml",
                    lambda _: raf_with('<!DOCTYPE struct SYSTEM "http://127.0.0.1:9/never.dtd">', "&x;")),
        _bytes_case("local DTD", "evil.raf.xml", lambda s: raf_with(f'<!DOCTYPE struct SYSTEM "{s}">', "&secret;")),
        _bytes_case("huge attribute", "evil.raf.xml",
                    lambda _: raf_with("", "x").replace(b'name="d"', b'name="' + b"d" * (12 << 20) + b'"')),
    ]
    found += [_bytes_case(name, f"{name}.zip", _ignoring_secret(build), "xmi")
              for name, build in inception.HOSTILE.items()]
    if hasattr(os, "mkfifo"):
        found += [_project(f"R09 FIFO as {member}", _fifo(path), web=False)
                  for member, path in hmmax2.FIFO_MEMBERS.items()]
    found += [_project(f"R13 300 deep in {member}", _deep(path)) for member, path in hmmax2.R13_MEMBERS.items()]
    found += [_project("R13 11 MB text node", _long_text),
              _project("scheme linked out", _scheme_linked_out, web=False),
              _project("folder linked out", _folder_linked_out, web=False),
              _project("mmax linked in", _mmax_linked_in, web=False)]
    if SHARED.is_dir():
        found += [_reproducer_dir(name) for name in ("S02_mmax2_abs_words", "S03_mmax2_dotdot_stylesheet",
                                                     "S04_mmax2_dotdot_environ", "S05_mmax2_words_entity_lxml_xslt",
                                                     "S06_mmax2_long_customization")]
        found += [_reproducer_file("S01_xxe_xsltproc.mate.xml"),
                  _reproducer_file("S07_muc_unclosed_comments_80KB.sgm", may_read=True),
                  _reproducer_file("S08_xml_unclosed_pi_40KB.xml", "raf"),
                  _reproducer_file("S09_raf_unclosed_comments_80KB.raf.xml"),
                  _reproducer_file("S12_raf_docname_140KB.raf.xml", may_read=True)]
    return found


# -- the command line ------------------------------------------------------------------------------
@dataclass
class Row:
    case: str
    where: str
    answer: str
    wall: float
    cpu: float
    mb: float
    ok: bool
    why: str = ""


def _run_child(argv: list[str]) -> tuple[int, float, float, float, str]:
    """exit status, wall s, cpu s, peak RSS MB, last line of stderr: measured by a fresh
    measuring process (``_measure.py``), so that this script's own size does not count;
    ``timeout`` is the hang guard."""
    figures = measure(["timeout", "-s", "KILL", str(GUARD_SECONDS), *argv], env=environment())
    tail = figures["stderr"].strip().splitlines()[-1:] or [""]
    return figures["code"], figures["wall"], figures["cpu"], figures["peak_mb"], tail[0]


def _cli_argv(command: str, path: Path, form: str | None, out: Path) -> list[str]:
    argv = [sys.executable, "-m", "corefio", command, str(path)]
    if command == "convert":
        argv += [str(out / "out.conll"), "--to", "conll"]
    if form:
        argv += ["--from", form]
    return argv


def cli_rows(case: Case, path: Path, folder: Path, baseline: dict[str, tuple[float, float, float]]) -> list[Row]:
    rows = []
    for command in ("validate", "convert", "info"):
        out = folder / f"out-{command}"
        out.mkdir(exist_ok=True)
        code, wall, cpu, peak, tail = _run_child(_cli_argv(command, path, case.form, out))
        _, base_cpu, base_mb = baseline[command]
        extra = max(0.0, peak - base_mb)
        refused = code == 3 or (command == "validate" and code == 4) or (case.may_read and code == 0)
        why = "" if refused else ("accepted" if code == 0 else f"exit {code}: {tail[:80]}")
        if cpu - base_cpu > TARGET_SECONDS:
            why = (why + " slow").strip()
        if extra > TARGET_MB:
            why = (why + " memory").strip()
        rows.append(Row(case.name, f"cli {command}", f"exit {code}", wall, cpu, extra, not why, why))
        shutil.rmtree(out, ignore_errors=True)
    return rows


def cli_baseline(folder: Path) -> dict[str, tuple[float, float, float]]:
    """Wall s, CPU s and peak RSS MB of each command on a small good file (starting the
    interpreter and importing corefio): the least of three runs."""
    out = folder / "baseline"
    out.mkdir()
    figures = {}
    for command in ("validate", "convert", "info"):
        runs = [_run_child(_cli_argv(command, KEY, None, out))[1:4] for _ in range(3)]
        figures[command] = (min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs))
    return figures


# -- the web ---------------------------------------------------------------------------------------
def _upload(path: Path) -> tuple[str, bytes]:
    if path.is_file():
        return path.name, path.read_bytes()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for member in sorted(path.rglob("*")):
            if stat.S_ISREG(member.lstat().st_mode):
                z.write(member, f"{path.name}/{member.relative_to(path)}")
    return f"{path.name}.zip", buffer.getvalue()


BOUNDARY = "corefio-bench-hostile-7f3a"


def _body(route: str, name: str, data: bytes) -> bytes:
    """The multipart body of the upload, built before the request is timed and traced (so
    that what the in-process client allocates to encode it does not count)."""
    fields = [("key", name, data), ("response", KEY.name, KEY.read_bytes())] if route.endswith("score") \
        else [("file", name, data)]
    parts = [f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{field}"; filename="{filename}"\r\n'
             f"Content-Type: application/octet-stream\r\n\r\n".encode() + content + b"\r\n"
             for field, filename, content in fields]
    return b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()


def _post(client, route: str, body: bytes):
    return client.post(route, content=body, headers={"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})


def web_rows(case: Case, path: Path, app, client) -> list[Row]:
    name, data = _upload(path)
    rows = []
    for route in ("/api/validate", "/api/score"):
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu0 = time.process_time() + children.ru_utime + children.ru_stime
        start = time.perf_counter()
        body = _body(route, name, data)
        answer = _post(client, route, body)
        wall = time.perf_counter() - start
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = time.process_time() + children.ru_utime + children.ru_stime - cpu0
        worker = app.state.workers.last.get("peak_mb", 0.0)
        app.state.workers.last = {}
        tracemalloc.start()
        try:
            _post(client, route, body)
            _, traced = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        mb = max(worker, traced / 2**20)
        status = answer.status_code
        if 400 <= status < 500 or (case.may_read and status == 200):
            why = ""
        elif status == 200 and route == "/api/validate" and answer.json().get("valid") is False:
            why = ""
        else:
            why = "accepted" if status == 200 else f"HTTP {status}: {answer.text[:80]}"
        if cpu > TARGET_SECONDS:
            why = (why + " slow").strip()
        if mb > TARGET_MB:
            why = (why + " memory").strip()
        said = " not-valid" if status == 200 and route == "/api/validate" and answer.json().get("valid") is False else ""
        rows.append(Row(case.name, f"web {route.removeprefix('/api/')}", f"HTTP {status}{said}", wall, cpu, mb,
                        not why, why))
    return rows


def make_client():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    from corefio.web import create_app

    app = create_app()
    return app, TestClient(app, base_url="http://127.0.0.1")


# -- the table -------------------------------------------------------------------------------------
def table(rows: list[Row]) -> str:
    lines = ["| input | where | answer | wall s | cpu s | extra MB | |", "|---|---|---|---:|---:|---:|---|"]
    for r in rows:
        verdict = "ok" if r.ok else f"FAIL ({r.why})"
        lines.append(f"| {r.case} | {r.where} | {r.answer} | {r.wall:.2f} | {r.cpu:.2f} | {r.mb:.0f} | {verdict} |")
    return "\n".join(lines)


def summary(rows: list[Row]) -> str:
    """One line per input: the worst of its command-line runs and of its web requests."""
    lines = ["| input | CLI answers | CLI wall / cpu s | CLI extra MB | web answers | web wall / cpu s | web MB | |",
             "|---|---|---:|---:|---|---:|---:|---|"]
    for case in dict.fromkeys(r.case for r in rows):
        mine = [r for r in rows if r.case == case]
        cells = []
        for side in ("cli", "web"):
            part = [r for r in mine if r.where.startswith(side)]
            if not part:
                cells += ["n/a", "", ""]
                continue
            answers = ", ".join(dict.fromkeys(r.answer.removeprefix("HTTP ").removeprefix("exit ") for r in part))
            cells += [answers, f"{max(r.wall for r in part):.2f} / {max(r.cpu for r in part):.2f}",
                      f"{max(r.mb for r in part):.0f}"]
        verdict = "ok" if all(r.ok for r in mine) else "FAIL"
        lines.append(f"| {case} | " + " | ".join(cells) + f" | {verdict} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="run the cases whose name contains this text")
    parser.add_argument("--no-web", action="store_true")
    parser.add_argument("--no-cli", action="store_true")
    parser.add_argument("--summary", action="store_true", help="one line per input (the worst of its runs)")
    args = parser.parse_args(argv)
    chosen = [c for c in cases() if not args.only or args.only.lower() in c.name.lower()]
    load = os.getloadavg()
    started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="corefio-hostile-") as top:
        base = Path(top)
        baseline = {} if args.no_cli else cli_baseline(base)
        app, client = (None, None) if args.no_web else make_client()
        for k, case in enumerate(chosen):
            folder = base / f"case{k}"
            folder.mkdir()
            (folder / "secret.txt").write_text(security.SECRET)
            path = case.build(folder)
            if not args.no_cli:
                rows += cli_rows(case, path, folder, baseline)
            if case.web and client is not None:
                rows += web_rows(case, path, app, client)
            for row in rows[-5:]:
                if row.case == case.name and not row.ok:
                    print(f"FAIL {row.case} / {row.where}: {row.why} ({row.wall:.2f} s, {row.mb:.0f} MB)",
                          file=sys.stderr)
            shutil.rmtree(folder, ignore_errors=True)
    after = os.getloadavg()
    print(f"{started}, {platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"load average {load[0]:.1f} before, {after[0]:.1f} after; "
          "the CLI's start (the same command on samples/key.raf.xml: "
          f"{'; '.join(f'{c} {w:.2f} s wall, {u:.2f} s cpu, {m:.0f} MB' for c, (w, u, m) in baseline.items())}) "
          "is included in its wall and cpu figures and subtracted from its MB; a row fails on CPU "
          "time (the CLI's above that start) over 1 s: the wall time of a loaded machine varies too much\n")
    print(summary(rows) if args.summary else table(rows))
    failed = [r for r in rows if not r.ok]
    for r in failed:
        print(f"FAIL {r.case} / {r.where}: {r.why}")
    print(f"\n{len(rows)} runs, {len(failed)} over the targets ({TARGET_SECONDS:g} s, {TARGET_MB:g} MB) or not refused")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
