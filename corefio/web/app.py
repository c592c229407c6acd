"""The web application: pages, JSON API and hardening. The library does the work.

Routes (pages; ``/api/...`` mirrors them in JSON, documented at ``/docs``):

* ``GET /`` home: key and response uploads, formats, options; ``POST /score`` scores and
  redirects to ``GET /r/{token}`` (the result page), whose downloads and key vs response
  view (``/r/{token}/view?doc=N``) read the uploads kept in a small in-memory store
  (the latest :data:`STORE_SIZE` results, nothing on disk);
* ``GET/POST /convert``, ``/validate``, ``/repair``: one upload each.

Hardening: a request larger than ``max_upload_mb`` is answered 413 before it is read;
uploads are parsed by corefio's readers (safe XML: no external entities, no entity
expansion); a client never names a server path (an upload's file name is reduced to
its base name and used only in messages; downloads are found by a random token);
uploads that need a file on disk (validation, an MMAX2 project) go to a temporary
directory removed after the request; a :class:`~corefio.errors.CorefioError` becomes a
400 (bad request: exit code 2) or 422 (bad content) page naming the file, line and
column; scoring runs in a forked process killed after ``time_limit`` seconds.
"""

from __future__ import annotations

import asyncio
import base64
import collections
import importlib
import io
import json
import multiprocessing
import re
import secrets
import shutil
import tempfile
import threading
import time
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from fastapi import FastAPI, File, Form, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

import corefio
from ..diagnostics import Report
from ..errors import CorefioError, UsageError

HERE = Path(__file__).parent
STORE_SIZE = 32
MATCH_MODES = ("exact", "head", "min", "partial")
STRATEGIES = ("key", "response", "intersection", "union")
ZERO_MODES = ("drop", "linear", "dependent")  # corefio.zeros.ZERO_MODES (not imported: light start)
#: the XML-ish formats that repair applies to
REPAIRABLE = ("raf", "mate", "muc", "mmax2")


class WebError(Exception):
    """An answer other than 200: status, message and where (file:line:column)."""

    def __init__(self, status: int, message: str, where: str | None = None, title: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.where = where
        self.title = title or {400: "Bad request", 404: "Not found", 413: "Upload too large",
                               422: "The input cannot be used"}.get(status, "Error")


def from_corefio(exc: CorefioError) -> WebError:
    status = 400 if exc.exit_code == 2 else 422
    where = exc.location if (exc.file or exc.line is not None) else None
    return WebError(status, exc.message if where else str(exc), where)


# -- formats ---------------------------------------------------------------------------------
def readable_formats() -> list[str]:
    return [f.name for f in corefio.all_formats() if f.can_read]


def writable_formats() -> list[str]:
    return [f.name for f in corefio.all_formats() if f.can_write]


def extension(fmt: str) -> str:
    spec = corefio.get_format(fmt)
    return spec.extensions[0] if spec.extensions and not spec.directory else ".zip"


def metric_names() -> list[str]:
    from ..scoring import DEFAULT_METRICS, METRICS

    return list(dict.fromkeys([*DEFAULT_METRICS, *METRICS]))


def default_metrics() -> list[str]:
    from ..scoring import DEFAULT_METRICS

    return list(DEFAULT_METRICS)


# -- uploads ---------------------------------------------------------------------------------
def safe_name(filename: str | None, default: str) -> str:
    """The base name of what the client called its file (only used in messages)."""
    name = re.split(r"[\\/]", filename or "")[-1].strip()
    name = re.sub(r"[^\w.\-+ ]", "_", name)[:120].lstrip(".")
    return name or default


@contextmanager
def scratch():
    """A per-request temporary directory, removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix="corefio-web-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@dataclass
class Upload:
    name: str
    data: bytes


async def take(upload: UploadFile | None, label: str, limit: int) -> Upload:
    if upload is None or (not upload.filename and not upload.size):
        raise WebError(400, f"no {label} file was uploaded")
    data = await upload.read(limit + 1)
    if len(data) > limit:
        raise WebError(413, f"the {label} file is larger than the limit of {limit / 2**20:.3g} MB")
    if not data:
        raise WebError(422, "the file is empty", safe_name(upload.filename, label))
    return Upload(safe_name(upload.filename, label), data)


def is_zip(up: Upload) -> bool:
    return up.data[:4] == b"PK\x03\x04"


def unzip_project(up: Upload, into: Path, limit: int) -> Path:
    """Extract an uploaded .zip (an MMAX2 project) safely; the project's .mmax file."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(up.data))
        members = archive.infolist()
    except zipfile.BadZipFile as exc:
        raise WebError(422, f"not a valid .zip archive: {exc}", up.name) from None
    if sum(m.file_size for m in members) > limit or len(members) > 20000:
        raise WebError(413, "the .zip archive expands beyond the upload limit", up.name)
    root = (into / "project").resolve()
    for m in members:
        target = (root / m.filename).resolve()
        if not str(target).startswith(str(root) + "/") and target != root:
            raise WebError(422, f"the .zip archive holds an unsafe path {m.filename!r}", up.name)
        if m.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(m) as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
    projects = sorted(root.rglob("*.mmax"))
    if len(projects) != 1:
        raise WebError(422, "an uploaded .zip must hold one MMAX2 project (exactly one .mmax file); "
                            f"found {len(projects)}", up.name)
    return projects[0]


def resolve(up: Upload, fmt: str | None, tmp: Path) -> str:
    """The format name: the one chosen, else from the file name and content."""
    from ..registry import resolve_format

    if fmt:
        return corefio.get_format(fmt).name
    if is_zip(up):
        return "mmax2"
    path = tmp / up.name
    path.write_bytes(up.data)
    try:
        return resolve_format(path, None).name
    finally:
        path.unlink(missing_ok=True)


def located(report: Report, tmp: Path, name: str) -> Report:
    """Diagnostics that named a temporary path name the upload instead."""
    prefix = str(tmp)
    for d in report:
        if d.file and d.file.startswith(prefix):
            d.file = name + d.file[len(prefix):].split("/project", 1)[-1] if "/project" in d.file else name
    return report


def read_upload(up: Upload, fmt: str | None, repair: bool, limit: int, report: Report):
    """The corpus of one upload (repaired first when asked); CorefioError → WebError."""
    try:
        with scratch() as tmp:
            name = resolve(up, fmt or None, tmp)
            if name == "mmax2" or is_zip(up):
                if not is_zip(up):
                    raise WebError(400, "an MMAX2 project is a directory: upload it as a .zip archive", up.name)
                project = unzip_project(up, tmp, limit)
                if repair:
                    from ..repair import repair_bytes

                    for xml in sorted(project.parent.rglob("*.xml")):
                        fixed, changes = repair_bytes(xml.read_bytes())
                        for c in changes:
                            report.warning(f"repair.{c.fixer}", c.message, file=f"{up.name}/{xml.name}",
                                           line=c.line, column=c.column)
                        xml.write_bytes(fixed)
                sub = Report(up.name)
                try:
                    corpus = corefio.read(project, "mmax2", report=sub)
                finally:
                    report.extend(located(sub, tmp, up.name))
                return corpus, name
            data = up.data
            if repair and name in REPAIRABLE:
                from ..repair import repair_bytes

                data, changes = repair_bytes(data)
                for c in changes:
                    report.warning(f"repair.{c.fixer}", c.message, file=up.name, line=c.line, column=c.column)
            return corefio.loads(data, name, report=report, name=up.name), name
    except CorefioError as exc:
        raise from_corefio(exc.located(up.name)) from None
    except WebError:
        raise
    except (ValueError, UnicodeError, OSError, RecursionError) as exc:
        raise WebError(422, f"cannot read the file: {exc}", up.name) from None


# -- scoring with a time limit ---------------------------------------------------------------
def _child(conn, fn: Callable[[], Any]) -> None:
    try:
        conn.send(("ok", fn()))
    except CorefioError as exc:
        conn.send(("corefio", (exc.exit_code, exc.message, exc.location if exc.file or exc.line else None)))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, never a traceback
        conn.send(("other", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


async def limited(fn: Callable[[], Any], seconds: float) -> Any:
    """``fn()`` in a forked process, killed after ``seconds`` (in this thread where fork is missing)."""
    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:  # pragma: no cover - no fork on this platform
        return await asyncio.wait_for(asyncio.to_thread(fn), seconds)
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, fn), daemon=True)
    proc.start()
    child.close()
    try:
        ready = await asyncio.to_thread(parent.poll, seconds)
        if not ready:
            raise WebError(422, f"scoring took longer than the time limit of {seconds:g} s; "
                                "score these files with the command line (corefio score)",
                           title="Time limit exceeded")
        try:
            kind, value = await asyncio.to_thread(parent.recv)
        except EOFError:
            raise WebError(422, "scoring stopped without an answer (out of memory?)") from None
    finally:
        parent.close()
        if proc.is_alive():
            proc.kill()
        await asyncio.to_thread(proc.join, 5)
    if kind == "ok":
        return value
    if kind == "corefio":
        code, message, where = value
        raise WebError(400 if code == 2 else 422, message, where)
    raise WebError(422, f"scoring failed: {value}")


@dataclass
class ScoreOptions:
    metrics: list[str]
    match: str = "exact"
    keep_singletons: bool = True
    repair: bool = False
    key_format: str | None = None
    response_format: str | None = None
    #: zero mentions: drop, or keep and match linear / dependent (corefio.zeros)
    zeros: str = "drop"

    def check(self) -> None:
        known = set(metric_names())
        unknown = [m for m in self.metrics if m not in known]
        if unknown:
            raise WebError(400, f"unknown metric(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        if not self.metrics:
            raise WebError(400, "choose at least one metric")
        if self.match not in MATCH_MODES:
            raise WebError(400, f"unknown matching mode {self.match!r} (known: {', '.join(MATCH_MODES)})")
        if self.zeros not in ZERO_MODES:
            raise WebError(400, f"unknown zero handling {self.zeros!r} (known: {', '.join(ZERO_MODES)})")
        readable = readable_formats()
        for f in (self.key_format, self.response_format):
            if f and f not in readable:
                raise WebError(400, f"unknown input format {f!r} (known: {', '.join(readable)})")


def score_corpora(key, response, opts: ScoreOptions) -> dict:
    """What the result page needs, as plain data (it crosses a process boundary)."""
    report = Report()
    scores = corefio.score(key, response, opts.metrics, match=opts.match, sync="all",
                           keep_singletons=opts.keep_singletons, per_document=True, report=report,
                           keep_zeros=opts.zeros != "drop",
                           zero_match=opts.zeros if opts.zeros != "drop" else "dependent")
    return {"scores": scores.to_dict(), "csv": scores.to_csv(), "metrics": [m for m in scores.metrics]}


# -- the store of results ----------------------------------------------------------------------
@dataclass
class Result:
    key_name: str
    response_name: str
    key_format: str
    response_format: str
    key: Any
    response: Any
    options: ScoreOptions
    scores: dict
    csv: str
    metrics: list[str]
    diagnostics: list[dict]
    created: float = field(default_factory=time.time)
    pairs: list[tuple[int, int]] | None = None


class Store:
    """The latest results, by random token (in memory only)."""

    def __init__(self, size: int = STORE_SIZE) -> None:
        self.size = size
        self.items: collections.OrderedDict[str, Any] = collections.OrderedDict()
        self.lock = threading.Lock()

    def add(self, item: Any) -> str:
        token = secrets.token_urlsafe(16)
        with self.lock:
            self.items[token] = item
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return token

    def get(self, token: str) -> Any:
        with self.lock:
            item = self.items.get(token)
            if item is not None:
                self.items.move_to_end(token)
        if item is None:
            raise WebError(404, "this result is no longer kept (the server keeps the latest "
                                f"{self.size}); upload the files again")
        return item


# -- the application ---------------------------------------------------------------------------
def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/")


class LimitBody:
    """ASGI middleware: a request body over the limit is answered 413 before it is read."""

    def __init__(self, app, limit: int, render: Callable[[str, str], Response], megabytes: float) -> None:
        self.app = app
        self.limit = limit
        self.render = render
        self.megabytes = megabytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers") or []).get(b"content-length")
        too_big = f"the upload is larger than the limit of {self.megabytes:g} MB"
        if length is not None:
            try:
                size = int(length)
            except ValueError:
                size = -1
            if size > self.limit:
                await self._refuse(scope, receive, send, too_big)
                return
        seen = 0
        exceeded = False
        started = False

        async def counting_receive():
            nonlocal seen, exceeded
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    exceeded = True
                    raise _TooLarge()
            return message

        async def tracking_send(message):
            nonlocal started
            if exceeded:  # whatever the application answers to a cut-off body, the answer is 413
                if message["type"] == "http.response.start" and not started:
                    started = True
                    await self.render(scope["path"], too_big)(scope, receive, send)
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except _TooLarge:
            if not started:
                await self.render(scope["path"], too_big)(scope, receive, send)

    async def _refuse(self, scope, receive, send, message: str) -> None:
        await self.render(scope["path"], message)(scope, receive, send)


class _TooLarge(Exception):
    pass


def create_app(max_upload_mb: float = 50, time_limit: float = 60) -> FastAPI:
    limit = int(max_upload_mb * 2**20)
    # what scoring imports, imported now: a forked scorer must not wait for an import
    # another thread was in the middle of
    for module in ("corefio.matching", "corefio.scoring.engine", "corefio.synchronisation", "corefio.web.view"):
        importlib.import_module(module)

    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.globals.update(version=corefio.__version__, max_upload_mb=max_upload_mb)
    templates.env.filters["pct"] = lambda v: "–" if v is None else f"{100 * v:.2f}"
    store = Store()
    app = FastAPI(title="corefio evaluator", version=corefio.__version__,
                  description="Seed 003's online evaluator: score a response against a key in any supported "
                              "format, for the four synchronisation strategies; convert, validate and repair "
                              "files. Uploads are multipart/form-data; an MMAX2 project is uploaded as a .zip.")
    app.state.store = store
    app.state.time_limit = time_limit
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")

    def error_page(request: Request, err: WebError) -> Response:
        if wants_json(request):
            body = {"error": err.title, "message": err.message}
            if err.where:
                body["where"] = err.where
            return JSONResponse(body, status_code=err.status)
        return templates.TemplateResponse(request, "error.html", {"err": err}, status_code=err.status)

    def too_large(path: str, message: str) -> Response:
        err = WebError(413, message)
        if path.startswith("/api/"):
            return JSONResponse({"error": err.title, "message": message}, status_code=413)
        html = templates.get_template("error.html").render(err=err, request=None)
        return HTMLResponse(html, status_code=413)

    app.add_middleware(LimitBody, limit=limit, render=too_large, megabytes=max_upload_mb)

    @app.exception_handler(WebError)
    async def _web_error(request: Request, exc: WebError):
        return error_page(request, exc)

    @app.exception_handler(CorefioError)
    async def _corefio_error(request: Request, exc: CorefioError):
        return error_page(request, from_corefio(exc))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        problems = []
        for e in exc.errors():
            loc = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
            problems.append(f"{loc}: {e.get('msg')}" if loc else str(e.get("msg")))
        return error_page(request, WebError(422, "the form is incomplete or wrong: " + "; ".join(problems),
                                            title="Missing or invalid fields"))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        return error_page(request, WebError(exc.status_code, str(exc.detail)))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception):  # pragma: no cover - a bug; no traceback shown
        return error_page(request, WebError(500, f"internal error ({type(exc).__name__}); please report it",
                                            title="Internal error"))

    def page(request: Request, _template: str, **context) -> HTMLResponse:
        return templates.TemplateResponse(request, _template, context)

    render = page

    # -- home and scoring ----------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home(request: Request):
        return page(request, "home.html", formats=readable_formats(), metrics=metric_names(),
                    defaults=default_metrics(), modes=MATCH_MODES, zero_modes=ZERO_MODES)

    def options_of(metrics: list[str] | str | None, match: str, singletons: str | bool | None, repair: Any,
                   key_format: str | None, response_format: str | None, zeros: str = "drop") -> ScoreOptions:
        if isinstance(metrics, str):
            metrics = [m for m in re.split(r"[,\s]+", metrics) if m]
        names = [m.strip() for item in (metrics or []) for m in item.split(",") if m.strip()] or default_metrics()
        keep = str(singletons).lower() not in ("drop", "false", "0", "no", "off")
        opts = ScoreOptions(names, match or "exact", keep, str(repair).lower() in ("1", "true", "on", "yes"),
                            key_format or None, response_format or None, zeros or "drop")
        opts.check()
        return opts

    async def run_score(key: UploadFile | None, response: UploadFile | None, opts: ScoreOptions) -> Result:
        ku = await take(key, "key", limit)
        ru = await take(response, "response", limit)
        if len(ku.data) + len(ru.data) > limit:
            raise WebError(413, f"the uploads are larger than the limit of {max_upload_mb:g} MB together")
        report = Report()
        kc, kf = await asyncio.to_thread(read_upload, ku, opts.key_format, opts.repair, limit, report)
        rc, rf = await asyncio.to_thread(read_upload, ru, opts.response_format, opts.repair, limit, report)
        data = await limited(lambda: score_corpora(kc, rc, opts), time_limit)
        diagnostics = [d.to_dict() for d in report] + data["scores"].get("diagnostics", [])
        return Result(ku.name, ru.name, kf, rf, kc, rc, opts, data["scores"], data["csv"], data["metrics"],
                      diagnostics)

    @app.post("/score", include_in_schema=False)
    async def score_page(key: UploadFile | None = File(None), response: UploadFile | None = File(None),
                         metrics: list[str] = Form([]), match: str = Form("exact"),
                         singletons: str = Form("keep"), repair: str = Form(""),
                         key_format: str = Form(""), response_format: str = Form(""), zeros: str = Form("drop")):
        opts = options_of(metrics, match, singletons, repair, key_format, response_format, zeros)
        result = await run_score(key, response, opts)
        token = store.add(result)
        return RedirectResponse(f"/r/{token}", status_code=303)

    @app.post("/api/score", tags=["api"], summary="Score a response against a key (four synchronisation strategies)")
    async def api_score(key: UploadFile = File(..., description="the key file (.zip for an MMAX2 project)"),
                        response: UploadFile = File(..., description="the response file"),
                        metrics: str = Form("", description="comma-separated metric names (default: the usual set)"),
                        match: str = Form("exact", description="exact, head, min or partial"),
                        singletons: str = Form("keep", description="keep or drop"),
                        repair: bool = Form(False, description="repair malformed XML/SGML before reading"),
                        key_format: str = Form("", description="the key's format (default: detected)"),
                        response_format: str = Form("", description="the response's format (default: detected)"),
                        zeros: str = Form("drop", description="zero mentions (CorefUD empty nodes): drop, "
                                                              "or keep them matched linear or dependent")):
        """The JSON of ``corefio score --sync all --format json`` (with per-document scores),
        plus ``reading``: the diagnostics of reading (and repairing) the uploads, and
        ``result``: the token of the result page (``/r/{token}``)."""
        opts = options_of(metrics, match, singletons, repair, key_format, response_format, zeros)
        result = await run_score(key, response, opts)
        token = store.add(result)
        body = dict(result.scores)
        body["reading"] = [d for d in result.diagnostics if d not in result.scores.get("diagnostics", [])]
        body["formats"] = {"key": result.key_format, "response": result.response_format}
        body["result"] = f"/r/{token}"
        return JSONResponse(body)

    def get_result(token: str) -> Result:
        item = store.get(token)
        if not isinstance(item, Result):
            raise WebError(404, "no such result")
        return item

    @app.get("/r/{token}", response_class=HTMLResponse, include_in_schema=False)
    async def result_page(request: Request, token: str, strategy: str = "key"):
        r = get_result(token)
        if strategy not in STRATEGIES:
            strategy = "key"
        shown = [m for m in r.metrics if m != "mentions"]
        documents = r.scores.get("documents", {}).get(strategy, {})
        return page(request, "result.html", r=r, token=token, strategies=STRATEGIES, metrics=shown,
                    sync=r.scores["sync"], mentions=r.scores["mentions"], documents=documents,
                    strategy=strategy, writable=writable_formats(),
                    doc_names=[d.label for d in r.key.documents])

    @app.get("/r/{token}/scores.json", include_in_schema=False)
    async def scores_json(token: str):
        r = get_result(token)
        return Response(json.dumps(r.scores, indent=2, ensure_ascii=False), media_type="application/json",
                        headers={"Content-Disposition": 'attachment; filename="scores.json"'})

    @app.get("/r/{token}/scores.csv", include_in_schema=False)
    async def scores_csv(token: str):
        r = get_result(token)
        return Response(r.csv, media_type="text/csv",
                        headers={"Content-Disposition": 'attachment; filename="scores.csv"'})

    def file_response(corpus, fmt: str, stem: str) -> Response:
        spec = corefio.get_format(fmt)
        if spec.directory or spec.write is None:
            files = corefio.dump_files(corpus, fmt)
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
                for name in sorted(files):
                    z.writestr(name, files[name])
            data, filename, media = buf.getvalue(), f"{stem}.{fmt}.zip", "application/zip"
        else:
            out = corefio.dumps(corpus, fmt)
            data = out.encode("utf-8") if isinstance(out, str) else out
            filename, media = f"{stem}{extension(fmt)}", "application/octet-stream"
        return Response(data, media_type=media, headers={"Content-Disposition": f'attachment; filename="{filename}"'})

    @app.get("/r/{token}/sync/{strategy}/{side}", include_in_schema=False)
    async def sync_file(token: str, strategy: str, side: str):
        r = get_result(token)
        if strategy not in STRATEGIES or side not in ("key", "response"):
            raise WebError(404, "no such synchronised file")
        from ..synchronisation import pair_documents, synchronise_corpora

        def work():
            pairs = pair_documents(r.key, r.response)
            return synchronise_corpora(r.key, r.response, strategy, Report(), pairs, key_file=r.key_name,
                                       response_file=r.response_name)

        keys, responses = await asyncio.to_thread(work)
        return file_response(keys if side == "key" else responses, "raf", f"{side}.{strategy}")

    @app.get("/r/{token}/convert/{side}", include_in_schema=False)
    async def convert_result(token: str, side: str, to: str = "raf"):
        r = get_result(token)
        if side not in ("key", "response"):
            raise WebError(404, "no such file")
        if to not in writable_formats():
            raise WebError(400, f"unknown output format {to!r} (known: {', '.join(writable_formats())})")
        corpus = r.key if side == "key" else r.response
        stem = re.split(r"\.", r.key_name if side == "key" else r.response_name)[0] or side
        return await asyncio.to_thread(file_response, corpus, to, stem)

    @app.get("/r/{token}/view", response_class=HTMLResponse, include_in_schema=False)
    async def view_page(request: Request, token: str, doc: int = 0, page: int = 0):
        from . import view

        r = get_result(token)
        if r.pairs is None:
            from ..synchronisation import pair_documents

            r.pairs = pair_documents(r.key, r.response)
        if not r.pairs:
            raise WebError(422, "no key document has a response document")
        doc = min(max(doc, 0), len(r.pairs) - 1)
        i, j = r.pairs[doc]
        pv = await asyncio.to_thread(view.build, r.key.documents[i], r.response.documents[j], page)
        names = [r.key.documents[a].label for a, _ in r.pairs]
        return render(request, "view.html", r=r, token=token, v=pv, doc=doc, names=names,
                     doc_name=r.key.documents[i].label)

    # -- convert, validate, repair -------------------------------------------------------------
    @app.get("/convert", response_class=HTMLResponse, include_in_schema=False)
    async def convert_form(request: Request):
        return page(request, "convert.html", formats=readable_formats(), writable=writable_formats())

    def check_to(to: str) -> str:
        if to not in writable_formats():
            raise WebError(400, f"unknown output format {to!r} (known: {', '.join(writable_formats())})")
        return to

    async def do_convert(file: UploadFile | None, to: str, from_format: str, repair: bool):
        check_to(to)
        if from_format and from_format not in readable_formats():
            raise WebError(400, f"unknown input format {from_format!r}")
        up = await take(file, "input", limit)
        report = Report()
        corpus, fmt = await asyncio.to_thread(read_upload, up, from_format or None, repair, limit, report)
        write_report = Report(up.name)
        spec = corefio.get_format(to)

        def work():
            if spec.directory or spec.write is None:
                return corefio.dump_files(corpus, to, report=write_report)
            out = corefio.dumps(corpus, to, report=write_report)
            return out.encode("utf-8") if isinstance(out, str) else out

        try:
            out = await asyncio.to_thread(work)
        except CorefioError as exc:
            raise from_corefio(exc) from None
        stem = up.name.split(".")[0] or "converted"
        if isinstance(out, dict):
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
                for name in sorted(out):
                    z.writestr(name, out[name])
            data, filename = buf.getvalue(), f"{stem}.{to}.zip"
        else:
            data, filename = out, f"{stem}{extension(to)}"
        return up, fmt, data, filename, [d.to_dict() for d in report] + [d.to_dict() for d in write_report]

    @app.post("/convert", response_class=HTMLResponse, include_in_schema=False)
    async def convert_page(request: Request, file: UploadFile | None = File(None), to: str = Form("raf"),
                           from_format: str = Form(""), repair: str = Form("")):
        up, fmt, data, filename, diagnostics = await do_convert(file, to, from_format, _on(repair))
        token = store.add(("file", filename, data))
        return page(request, "converted.html", name=up.name, fmt=fmt, to=to, filename=filename,
                    token=token, diagnostics=diagnostics, size=len(data))

    @app.get("/f/{token}", include_in_schema=False)
    async def stored_file(token: str):
        item = store.get(token)
        if not (isinstance(item, tuple) and item[0] == "file"):
            raise WebError(404, "no such file")
        _, filename, data = item
        return Response(data, media_type="application/octet-stream",
                        headers={"Content-Disposition": f'attachment; filename="{filename}"'})

    @app.post("/api/convert", tags=["api"], summary="Convert one file to another format")
    async def api_convert(file: UploadFile = File(..., description="the input (.zip for an MMAX2 project)"),
                          to: str = Form(..., description="the output format"),
                          from_format: str = Form("", description="the input format (default: detected)"),
                          repair: bool = Form(False, description="repair malformed XML/SGML first")):
        """The converted file (``content``: UTF-8 text, or base64 with ``encoding: base64`` for
        binary output and multi-file formats, which come as a .zip) and the diagnostics
        (reading, losses)."""
        up, fmt, data, filename, diagnostics = await do_convert(file, to, from_format, repair)
        try:
            content, encoding = data.decode("utf-8"), "utf-8"
            if filename.endswith(".zip"):
                raise UnicodeDecodeError("utf-8", b"", 0, 1, "zip")
        except UnicodeDecodeError:
            content, encoding = base64.b64encode(data).decode("ascii"), "base64"
        return {"from": fmt, "to": to, "filename": filename, "encoding": encoding, "content": content,
                "diagnostics": diagnostics}

    async def do_validate(file: UploadFile | None, fmt: str) -> tuple[Upload, str, list[dict]]:
        if fmt and fmt not in readable_formats():
            raise WebError(400, f"unknown format {fmt!r} (known: {', '.join(readable_formats())})")
        up = await take(file, "input", limit)

        def work():
            from ..validation import validate_file

            with scratch() as tmp:
                try:
                    name = resolve(up, fmt or None, tmp)
                except CorefioError as exc:
                    raise from_corefio(exc.located(up.name)) from None
                if is_zip(up):
                    path = unzip_project(up, tmp, limit)
                elif name == "mmax2":
                    raise WebError(400, "an MMAX2 project is a directory: upload it as a .zip archive", up.name)
                else:
                    path = tmp / up.name
                    path.write_bytes(up.data)
                report = validate_file(path, name)
                return name, [d.to_dict() for d in located(report, tmp, up.name)]

        name, diagnostics = await asyncio.to_thread(work)
        return up, name, diagnostics

    @app.get("/validate", response_class=HTMLResponse, include_in_schema=False)
    async def validate_form(request: Request):
        return page(request, "validate.html", formats=readable_formats())

    @app.post("/validate", response_class=HTMLResponse, include_in_schema=False)
    async def validate_page(request: Request, file: UploadFile | None = File(None), format: str = Form("")):
        up, name, diagnostics = await do_validate(file, format)
        valid = not any(d["severity"] == "error" for d in diagnostics)
        return page(request, "validated.html", name=up.name, fmt=name, diagnostics=diagnostics, valid=valid)

    @app.post("/api/validate", tags=["api"], summary="Validate one file (schema, reader, model)")
    async def api_validate(file: UploadFile = File(..., description="the input (.zip for an MMAX2 project)"),
                           format: str = Form("", description="the format (default: detected)")):
        """``valid`` (no error) and every diagnostic (code, severity, message, file, line, column)."""
        up, name, diagnostics = await do_validate(file, format)
        return {"file": up.name, "format": name, "valid": not any(d["severity"] == "error" for d in diagnostics),
                "diagnostics": diagnostics}

    async def do_repair(file: UploadFile | None, kind: str, entities: str):
        if kind not in ("auto", "muc", "xml"):
            raise WebError(400, f"unknown kind {kind!r} (auto, muc or xml)")
        if entities not in ("map", "declare"):
            raise WebError(400, f"entities is map or declare, not {entities!r}")
        up = await take(file, "input", limit)
        from ..repair import repair_bytes

        try:
            data, changes = await asyncio.to_thread(repair_bytes, up.data, kind=kind, entities=entities)
        except CorefioError as exc:
            raise from_corefio(exc.located(up.name)) from None
        except (ValueError, UnicodeError) as exc:
            raise WebError(422, f"cannot repair the file: {exc}", up.name) from None
        return up, data, [{"fixer": c.fixer, "message": c.message, "file": up.name, "line": c.line,
                           "column": c.column} for c in changes]

    @app.get("/repair", response_class=HTMLResponse, include_in_schema=False)
    async def repair_form(request: Request):
        return page(request, "repair.html")

    @app.post("/repair", response_class=HTMLResponse, include_in_schema=False)
    async def repair_page(request: Request, file: UploadFile | None = File(None), kind: str = Form("auto"),
                          entities: str = Form("map")):
        up, data, changes = await do_repair(file, kind, entities)
        stem = up.name.rsplit(".", 1)
        filename = f"{stem[0]}.repaired.{stem[1]}" if len(stem) == 2 else f"{up.name}.repaired.xml"
        token = store.add(("file", filename, data))
        return page(request, "repaired.html", name=up.name, changes=changes, token=token, filename=filename)

    @app.post("/api/repair", tags=["api"], summary="Repair malformed XML/SGML into well-formed XML")
    async def api_repair(file: UploadFile = File(..., description="the XML-ish input"),
                         kind: str = Form("auto", description="auto, muc or xml"),
                         entities: str = Form("map", description="map or declare")):
        """The repaired file (``content``, UTF-8 XML) and every change with its line and column."""
        up, data, changes = await do_repair(file, kind, entities)
        return {"file": up.name, "content": data.decode("utf-8"), "changes": changes}

    @app.get("/api/formats", tags=["api"], summary="The formats and metrics the server knows")
    async def api_formats():
        return {"read": readable_formats(), "write": writable_formats(), "metrics": metric_names(),
                "default_metrics": default_metrics(), "match": list(MATCH_MODES), "sync": list(STRATEGIES),
                "max_upload_mb": max_upload_mb, "time_limit": time_limit}

    return app


def _on(value: Any) -> bool:
    return str(value).lower() in ("1", "true", "on", "yes")


__all__ = ["create_app", "UsageError"]
