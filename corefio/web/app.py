"""The web application: pages, JSON API and hardening. The library does the work.

Routes (pages; ``/api/...`` mirrors them in JSON, documented at ``/docs``):

* ``GET /`` home: key and response uploads, formats, options; ``POST /score`` scores and
  redirects to ``GET /r/{token}`` (the result page), whose downloads and key vs response
  view (``/r/{token}/view?doc=N``) read the result kept in memory (:mod:`.store`:
  bounded in bytes and age, nothing on disk);
* ``GET/POST /compare``: a key and several responses (:mod:`.compare`);
* ``GET/POST /convert``, ``/validate``, ``/repair``: one upload each.

Hardening (README, "Running the evaluator for a team"):

* :mod:`.edge`: allowed ``Host`` names, cross-site POSTs refused, security headers on
  every answer, the body size limit enforced while the body streams in, and a deadline
  for the body;
* :mod:`.uploads`: uploads streamed to a per-request temporary directory (removed after
  the request); a .zip checked entry by entry (no path escapes, links, bombs);
* :func:`scratch`: that directory is ``corefio-web-<pid>_<random>`` in the system's
  temporary folder; a server killed outright leaves its folders behind, and the next
  server to start (:func:`remove_stale_scratch`) removes those of processes that no
  longer run;
* :mod:`.worker`: reading, repairing, converting, validating and scoring run in a
  forked process killed at the time limit, a bounded number at once;
* a client never names a server path (an upload's name is reduced to its base name and
  used only in messages) and error messages never show one (:func:`.errors.scrub`);
  a :class:`~corefio.errors.CorefioError` becomes a 400 or 422 naming file, line, column.
"""

from __future__ import annotations

import base64
import importlib
import json
import pickle
import os
import re
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from fastapi import FastAPI, File, Form, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

import corefio
from ..diagnostics import Report
from ..errors import CorefioError, DocumentMismatchError, UsageError
from . import edge, glossary
from . import settings as S
from .crossdoc import CHOICE_WORDS, CHOICES, CrossChoice, cross_job, meta_conll, unit_view_job
from .glossary import Docs
from .jobs import named, png, writable_formats, write_job
from .settings import MATCH_MODES, REPEAT_RULES, ZERO_MODES
from ..model.crossdoc import MENTION_TYPES
from ..scoring.crossdoc import STYLES
from .errors import WebError, from_corefio, scrub
from .store import Store
from .reading import DIRECTORY_FORMATS, clean, read_upload, resolve
from .uploads import SCRATCH_PREFIX, Upload, member_files, nesting_depth, safe_name, save, unzip_for
from .worker import Workers

HERE = Path(__file__).parent

STRATEGIES = ("key", "response", "intersection", "union")
#: an upload field takes one file, or the .ann and .txt files of a brat / LitBank TSV pair
Files = list[UploadFile]
#: what the API says an upload may be
PROJECTS = (".zip for an MMAX2 project, brat or LitBank TSV pairs or an INCEpTION XMI export; "
            "or an .ann and its .txt together")
#: elements nested deeper than this are not repaired (lxml's own limit is 256 without huge_tree)
MAX_DEPTH = 1000
#: bytes counted for a stored item besides its data (tokens, names, options)
ITEM_OVERHEAD = 4096


# -- scratch folders ----------------------------------------------------------------------------
#: a request's folder: the prefix, the server's pid, ``_`` and mkdtemp's random letters
_SCRATCH_NAME = re.compile(re.escape(SCRATCH_PREFIX) + r"([0-9]{1,10})_[a-z0-9_]+")


@contextmanager
def scratch() -> Iterator[Path]:
    """A per-request temporary directory named after this process
    (``corefio-web-<pid>_<random>``), removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}_"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def remove_stale_scratch(folder: str | Path | None = None) -> list[str]:
    """Remove the request folders (:func:`scratch`) that servers no longer running left
    in ``folder`` (the system's temporary folder): a server killed outright (kill -9,
    out of memory) could not remove them. Those of running processes, this one
    included, stay. The names removed."""
    from ..io.files import process_gone

    where = Path(folder) if folder is not None else Path(tempfile.gettempdir())
    removed: list[str] = []
    try:
        entries = list(os.scandir(where))
    except OSError:
        return removed
    for entry in entries:
        match = _SCRATCH_NAME.fullmatch(entry.name)
        if match is None or int(match.group(1)) == os.getpid():
            continue
        try:
            mine = not hasattr(os, "getuid") or entry.stat(follow_symlinks=False).st_uid == os.getuid()
            if entry.is_dir(follow_symlinks=False) and mine and process_gone(int(match.group(1))):
                shutil.rmtree(entry.path, ignore_errors=True)
                removed.append(entry.name)
        except OSError:
            pass
    return removed


# -- formats ---------------------------------------------------------------------------------
def readable_formats() -> list[str]:
    return [f.name for f in corefio.all_formats() if f.can_read]


def metric_names() -> list[str]:
    from ..scoring import DEFAULT_METRICS, METRICS

    return list(dict.fromkeys([*DEFAULT_METRICS, *METRICS]))


def default_metrics() -> list[str]:
    from ..scoring import DEFAULT_METRICS

    return list(DEFAULT_METRICS)


# -- the work (in a worker process: see .worker) ------------------------------------------------
@dataclass
class ScoreOptions:
    """What a score page was asked: the settings (a preset and the options chosen over
    it: :mod:`.settings`), repair, and the formats named."""

    settings: Any
    repair: bool = False
    key_format: str | None = None
    response_format: str | None = None
    #: cross-document scoring (:mod:`.crossdoc`)
    cross: CrossChoice = field(default_factory=CrossChoice)

    @property
    def metrics(self) -> list[str]:
        return list(self.settings.options["metrics"])

    @property
    def match(self) -> str:
        return self.settings.options["match"]

    @property
    def keep_singletons(self) -> bool:
        return self.settings.options["keep_singletons"]

    @property
    def zeros(self) -> str:
        return S.zeros_of(self.settings)

    @property
    def preset(self) -> Any:
        return self.settings.preset

    def check(self) -> None:
        readable = readable_formats()
        for f in (self.key_format, self.response_format):
            if f and f not in readable:
                raise WebError(400, f"unknown input format {f!r} (known: {', '.join(readable)})")


def score_job(ku: Upload, ru: Upload, opts: ScoreOptions, limit: int, tmp: Path, tu: Upload | None = None) -> dict:
    """Read both uploads and score them twice: as they are (the standard score, what the
    reference scorer reports with these settings) and under the four synchronisation
    strategies (and across documents: :mod:`.crossdoc`; ``tu``: a topics file); what the
    result page needs, as plain data."""
    report = Report()
    key, kf = read_upload(ku, meta_conll(ku, opts.key_format, report), opts.repair, limit, tmp, report)
    response, rf = read_upload(ru, meta_conll(ru, opts.response_format, report), opts.repair, limit, tmp, report)
    reading = [d.to_dict() for d in report]
    common = {**S.score_keywords(opts.settings), "per_document": True}
    try:
        standard = corefio.score(key, response, opts.metrics, report=Report(), **common)
        scores = corefio.score(key, response, opts.metrics, sync="all", report=Report(), **common)
    except DocumentMismatchError as exc:
        # the library's hint names command-line options; the evaluator has none for pairing
        found = re.sub(r"\s*\((use --allow-missing|--pair-by)[^()]*\)$", "", exc.message)
        raise DocumentMismatchError(
            f"the documents of {ku.name} (key) and {ru.name} (response) do not match: {found}. The evaluator "
            "pairs documents by name and part; to pair them by position or by a list of names, or to score "
            "missing documents as empty, use the command line: corefio score --pair-by order, --pairs FILE "
            "or --allow-missing") from None
    csv, csv_error = _csv(scores)
    standard_csv, standard_csv_error = _csv(standard)
    scores_dict = scores.to_dict()
    standard_dict = standard.to_dict()
    cross = cross_job(key, response, kf, opts.cross, [m for m in opts.metrics if m != "mentions"],
                      opts.keep_singletons, ku.name, ru.name, tu)
    anaphora = _anaphora_scores(key, response, opts.settings.anaphora)
    if anaphora:
        scores_dict["anaphora"] = anaphora
    # what scoring found: the standard score's, then what synchronising added
    seen = {(d.get("code"), d.get("message")) for d in standard_dict.get("diagnostics", [])}
    scoring = list(standard_dict.get("diagnostics", [])) + [
        d for d in scores_dict.get("diagnostics", []) if (d.get("code"), d.get("message")) not in seen]
    return {"scores": scores_dict, "standard": standard_dict, "csv": csv, "csv_error": csv_error,
            "standard_csv": standard_csv, "standard_csv_error": standard_csv_error,
            "metrics": list(scores.metrics), "scoring": clean(scoring),
            "reading": clean(reading), "formats": (kf, rf),
            "documents": (len(key.documents), len(response.documents)),
            "doc_names": [d.label for d in key.documents], "cross": cross,
            "corpora": pickle.dumps((key, response), protocol=pickle.HIGHEST_PROTOCOL)}


def _csv(scores) -> tuple[str | None, str | None]:
    """The scores as CSV, or why they cannot be (the page still shows them)."""
    try:
        return scores.to_csv(), None
    except Exception as exc:  # noqa: BLE001 - the page still shows the scores
        return None, f"the scores cannot be written as CSV ({type(exc).__name__}: {scrub(str(exc))})"


def _anaphora_scores(key, response, chosen=None) -> dict | None:
    """Universal Anaphora scores: those a preset of the UA scorer's asks for (``chosen``),
    else those of the relations the uploads have (split antecedents, bridging,
    non-referring, discourse deixis); None when there is none."""
    from ..scoring import anaphora as UA
    from ..compare.pairing import match_documents

    pairs = match_documents(key, response, Report(), allow_missing=True)
    settings = chosen if chosen is not None and chosen.modes() else UA.settings_for(pairs)
    return UA.score_documents(pairs, settings).to_dict() if settings is not None else None


def convert_job(up: Upload, to: str, from_format: str | None, repair: bool, limit: int, tmp: Path):
    report = Report()
    corpus, fmt = read_upload(up, from_format, repair, limit, tmp, report)
    write_report = Report(up.name)
    data, filename = write_job(corpus, to, up.name.split(".")[0] or "converted", write_report)
    return fmt, data, filename, clean([d.to_dict() for d in report] + [d.to_dict() for d in write_report])


def validate_job(up: Upload, fmt: str | None, limit: int, tmp: Path):
    from ..checks.validation import validate_file

    try:
        name = resolve(up, fmt)
    except CorefioError as exc:
        raise from_corefio(exc.located(up.name)) from None
    if up.is_zip:
        path = unzip_for(up, name, tmp / up.path.parent.name, limit)
    elif name in DIRECTORY_FORMATS and not up.pair:
        raise WebError(400, DIRECTORY_FORMATS[name], up.name)
    else:
        path = up.path
    if path.is_dir() and name not in DIRECTORY_FORMATS and name != "mmax2":  # a .zip of files of one format
        found = []
        for member in member_files(path, name):
            for d in validate_file(member, name):
                item = d.to_dict()
                item["file"] = f"{up.name}/{member.relative_to(path).as_posix()}"
                found.append(item)
        return name, clean(found)
    report = validate_file(path, name)
    return name, clean([d.to_dict() for d in report])


def repair_job(up: Upload, kind: str, entities: str):
    from ..io.repair import repair_bytes

    if up.is_zip:
        raise WebError(422, "a .zip archive cannot be repaired: repair rewrites one XML or SGML file; repair "
                            "the project's files one by one, or score and convert with the repair option", up.name)
    data = up.path.read_bytes()
    if nesting_depth(data, MAX_DEPTH) > MAX_DEPTH:
        raise WebError(422, f"the elements nest more than {MAX_DEPTH} deep; no coreference format does, and "
                            "this server does not repair such files", up.name)
    try:
        data, changes = repair_bytes(data, kind=kind, entities=entities)
    except CorefioError as exc:
        raise from_corefio(exc.located(up.name)) from None
    except (ValueError, UnicodeError) as exc:
        raise WebError(422, f"cannot repair the file: {scrub(str(exc))}", up.name) from None
    return data, [{"fixer": c.fixer, "message": c.message, "file": up.name, "line": c.line,
                   "column": c.column} for c in changes]


def sync_job(corpora: bytes, strategy: str, side: str, key_file: str, response_file: str):
    from ..compare.synchronisation import pair_documents, synchronise_corpora

    key, response = pickle.loads(corpora)
    pairs = pair_documents(key, response)
    keys, responses = synchronise_corpora(key, response, strategy, Report(), pairs, key_file=key_file,
                                          response_file=response_file)
    return write_job(keys if side == "key" else responses, "raf", f"{side}.{strategy}")


def convert_result_job(corpora: bytes, side: str, to: str, stem: str):
    key, response = pickle.loads(corpora)
    return write_job(key if side == "key" else response, to, stem)


def view_job(corpora: bytes, doc: int, page: int, opts: ScoreOptions):
    from ..compare.synchronisation import pair_documents
    from . import view

    key, response = pickle.loads(corpora)
    pairs = pair_documents(key, response)
    if not pairs:
        raise WebError(422, "no key document has a response document")
    doc = min(max(doc, 0), len(pairs) - 1)
    i, j = pairs[doc]
    pv = view.build(key.documents[i], response.documents[j], page, match=opts.match,
                    keep_singletons=opts.keep_singletons, zeros=opts.zeros)
    return pv, doc, [key.documents[a].label for a, _ in pairs], key.documents[i].label


def cross_view_job(corpora: bytes, settings: dict, unit: int, page: int, zeros: str, mapping: dict | None):
    key, response = pickle.loads(corpora)
    try:
        return unit_view_job(key, response, settings, unit, page, zeros, mapping)
    except CorefioError as exc:
        raise from_corefio(exc) from None


# -- figures (corefio.plots), drawn in a worker when a page asks for them ---------------------
def plots_available() -> bool:
    """matplotlib is there (the ``plot`` extra): the pages show their figures."""
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def score_plot_job(corpora: bytes, opts: "ScoreOptions", which: str) -> bytes:
    """The score page's figures, from both corpora scored again with the same settings
    (cheap beside drawing): ``documents``, the documents' F1 per metric (the standard
    score); ``errors``, the error counts by class."""
    from .. import plots
    from ..scoring.error_analysis import analyse_files

    key, response = pickle.loads(corpora)
    options = S.score_keywords(opts.settings)
    try:
        if which == "errors":
            analysis = analyse_files(key, response, match=options["match"],
                                     keep_singletons=options["keep_singletons"], report=Report())
            return png(plots.errors_figure(analysis))
        scores = corefio.score(key, response, opts.metrics, per_document=True, report=Report(), **options)
        return png(named(plots.score_figure(scores), list(plots.document_f1(scores))))
    except CorefioError as exc:
        raise from_corefio(exc) from None


# -- the store of results ----------------------------------------------------------------------
@dataclass
class Result:
    key_name: str
    response_name: str
    key_format: str
    response_format: str
    key_documents: int
    response_documents: int
    doc_names: list[str]
    #: both corpora, pickled (its length is what the result costs the store)
    corpora: bytes
    options: ScoreOptions
    #: the four synchronisation strategies (``corefio score --sync all``)
    scores: dict
    csv: str | None
    csv_error: str | None
    metrics: list[str]
    diagnostics: list[dict]
    reading: list[dict] = field(default_factory=list)
    #: the standard score: key and response as they are (``corefio score``)
    standard: dict = field(default_factory=dict)
    standard_csv: str | None = None
    standard_csv_error: str | None = None
    #: figures drawn for the page (PNG), kept once drawn
    figures: dict = field(default_factory=dict)
    #: the cross-document scores (:func:`.crossdoc.cross_job`), None when not scored
    cross: dict | None = None

    @property
    def size(self) -> int:
        return (len(self.corpora) + len(self.csv or "") + len(self.standard_csv or "") + len(json.dumps(self.scores))
                + len(json.dumps(self.standard)) + ITEM_OVERHEAD + sum(len(n) for n in self.doc_names)
                + len(json.dumps(self.cross)))


@dataclass
class Done:
    """The page of a conversion, validation or repair (``/d/{token}``): its template, what
    it shows, and the file it offers (``/f/{token}``)."""

    template: str
    context: dict
    file: tuple[str, bytes] | None = None

    @property
    def size(self) -> int:
        return (len(self.file[1]) if self.file else 0) + len(json.dumps(self.context, default=str)) + ITEM_OVERHEAD


# -- the application ---------------------------------------------------------------------------
#: the page whose form posts to each path (an error page links back to it)
FORMS = {"/score": "/", "/compare": "/compare", "/agreement": "/agreement", "/convert": "/convert",
         "/validate": "/validate", "/repair": "/repair"}


def form_of(path: str) -> str:
    """The form a page at ``path`` belongs to (the home page for the result pages)."""
    for prefix, form in FORMS.items():
        if path == prefix or path.startswith(prefix + "/"):
            return form
    return {"c": "/compare", "a": "/agreement"}.get(path.strip("/").split("/")[0], "/")


def file_names(files: Any) -> list[str]:
    """The names of the files a form field brought (for the form shown again)."""
    items = files if isinstance(files, list) else [files]
    return [safe_name(f.filename, "file") for f in items if f is not None and not isinstance(f, str) and f.filename]


def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def hue_css() -> str:
    """One class per hue the key vs response view uses (the CSP forbids style attributes)."""
    return "".join(f".h{h}{{--h:{h}}}\n" for h in range(360))


def create_app(max_upload_mb: float = 50, time_limit: float = 60, *, host: str = "127.0.0.1",
               allowed_hosts: tuple[str, ...] | list[str] = (), workers: int = 2, store_mb: float = 512,
               keep_minutes: float = 60, body_timeout: float = 30, worker_memory_mb: float | None = 4096,
               queue_wait: float = 30, docs_url: str | None = None) -> FastAPI:
    """The application; the README's "Running the evaluator for a team" explains each limit.
    ``docs_url``: where documentation links go (:class:`corefio.web.glossary.Docs`)."""
    limit = int(max_upload_mb * 2**20)
    remove_stale_scratch()
    # what the work imports, imported now: a forked worker must not wait for an import
    # another thread was in the middle of
    for module in ("corefio.compare.matching", "corefio.scoring.engine", "corefio.compare.synchronisation", "corefio.web.view",
                   "corefio.checks.validation", "corefio.io.repair", "corefio.formats.registry", "corefio.scoring.significance",
                   "corefio.scoring.error_analysis", "corefio.agreement", "corefio.agreement.view",
                   "corefio.agreement.render", "corefio.web.agreement"):
        importlib.import_module(module)
    if plots_available():  # drawing starts at once in a worker
        for module in ("corefio.plots", "matplotlib.figure", "matplotlib.backends.backend_agg"):
            importlib.import_module(module)
    corefio.all_formats()

    from ..scoring.render import percent

    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.globals.update(version=corefio.__version__, max_upload_mb=max_upload_mb, docs=Docs(docs_url),
                                 metric_info=glossary.info, label=glossary.label, grouped=glossary.grouped,
                                 citation=glossary.citation, current_preset=S.current, zero_words=S.zero_words,
                                 settings_lines=S.lines,
                                 repeat_words=S.repeat_words)
    templates.env.filters["pct"] = percent  # the one rounding rule of every table
    templates.env.globals["figures"] = plots_available()
    store = Store(int(store_mb * 2**20), keep_minutes * 60)
    pool = Workers(count=max(1, workers), seconds=time_limit, memory_mb=worker_memory_mb, queue_wait=queue_wait)
    app = FastAPI(title="corefio evaluator", version=corefio.__version__,
                  description="An online evaluator of coreference: score a response against a key in any supported "
                              "format, for the four synchronisation strategies; convert, validate and repair "
                              "files. Uploads are multipart/form-data; an MMAX2 project is uploaded as a .zip.")
    app.state.store = store
    app.state.workers = pool
    app.state.time_limit = time_limit
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    hues = hue_css()

    def error_response(json_wanted: bool, err: WebError, path: str = "/") -> Response:
        message, where = scrub(err.message) or "", scrub(err.where)
        if json_wanted:
            body = {"error": err.title, "message": message}
            if where:
                body["where"] = where
            response: Response = JSONResponse(body, status_code=err.status)
        else:
            shown = WebError(err.status, message, where, err.title)
            html = templates.get_template("error.html").render(err=shown, request=None, back=form_of(path))
            response = HTMLResponse(html, status_code=err.status)
        if err.status == 503:
            response.headers["retry-after"] = "30"
        return response

    def error_page(request: Request, err: WebError) -> Response:
        response = error_response(wants_json(request), err, request.url.path)
        if err.status >= 500:  # sent by starlette's outermost layer, past the edge: add the headers here
            response.headers.update(edge.SECURITY_HEADERS)
        return response

    app.add_middleware(edge.Edge, render=lambda path, status, message: error_response(
        path.startswith("/api/"), WebError(status, message), path), hosts=edge.allowed_hosts(host, allowed_hosts),
        limit=limit, body_timeout=body_timeout, megabytes=max_upload_mb)

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

    def form_page(request: Request, template: str, err: WebError | CorefioError, chosen: dict[str, Any],
                  **context) -> HTMLResponse:
        """The form again, with what went wrong above it and the options as they were
        chosen (``chosen``: field -> value; ``files``: field -> the names of the files
        chosen, which a browser cannot be given back: the page asks for them again)."""
        if isinstance(err, CorefioError):
            err = from_corefio(err)
        shown = WebError(err.status, scrub(err.message) or "", scrub(err.where), err.title)
        response = templates.TemplateResponse(request, template, {**context, "error": shown, "chosen": chosen},
                                              status_code=err.status)
        if err.status == 503:
            response.headers["retry-after"] = "30"
        return response

    @app.get("/hues.css", include_in_schema=False)
    async def hues_css():
        return Response(hues, media_type="text/css", headers={"cache-control": "max-age=86400"})

    def keep(item: Any, size: int, what: str) -> str:
        token = store.add(item, size)
        if token is None:
            raise WebError(413, f"{what} ({size / 2**20:.1f} MB) is larger than this server keeps for its pages "
                                f"({store.max_bytes / 2**20:g} MB); use the JSON API or the command line")
        return token

    def private(response: Response) -> Response:
        response.headers["cache-control"] = "no-store"
        return response

    # -- home and scoring ----------------------------------------------------------------------
    def home_context() -> dict[str, Any]:
        presets = S.choices()
        return {"formats": readable_formats(), "metrics": [m for m in metric_names() if m != "mentions"],
                "modes": MATCH_MODES, "zero_modes": ZERO_MODES, "repeat_rules": REPEAT_RULES, "presets": presets,
                "default_preset": S.DEFAULT_PRESET, "cross_choices": [(c, CHOICE_WORDS[c]) for c in CHOICES],
                "styles": list(STYLES.values()), "mention_types": MENTION_TYPES}

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home(request: Request):
        return page(request, "home.html", **home_context())

    @app.get("/metrics", response_class=HTMLResponse, include_in_schema=False)
    async def metrics_page(request: Request):
        from ..scoring import REGISTRY

        return page(request, "metrics.html", registry=REGISTRY, names=metric_names())

    def options_of(metrics: list[str] | str | None, match: str, singletons: str, repair: Any, key_format: str,
                   response_format: str, zeros: str, preset: str, repeats: str, metrics_of: str = "",
                   cross: CrossChoice | None = None) -> ScoreOptions:
        given = S.given_options(metrics, match, singletons, zeros, repeats, metrics_of)
        opts = ScoreOptions(S.settings_of(preset, given), _on(repair), key_format or None, response_format or None,
                            cross or CrossChoice())
        opts.check()
        return opts

    async def run_score(key: Files | None, response: Files | None, opts: ScoreOptions,
                        topics: UploadFile | None = None) -> Result:
        with scratch() as tmp:
            ku = await save(key, "key", tmp, limit)
            ru = await save(response, "response", tmp, limit, used=ku.size)
            tu = None
            if topics is not None and not isinstance(topics, str) and topics.filename:
                tu = await save(topics, "topics", tmp, limit, used=ku.size + ru.size)
            data = await pool.run(score_job, ku, ru, opts, limit, tmp, tu, what="reading and scoring")
        kf, rf = data["formats"]
        diagnostics = data["reading"] + data["scoring"]
        kd, rd = data["documents"]
        cross = data["cross"]
        if cross:
            diagnostics += clean(cross.get("diagnostics", []))
        return Result(ku.name, ru.name, kf, rf, kd, rd, data["doc_names"], data["corpora"], opts, data["scores"],
                      data["csv"], data["csv_error"], data["metrics"], diagnostics, data["reading"],
                      data["standard"], data["standard_csv"], data["standard_csv_error"], cross=cross)

    @app.post("/score", include_in_schema=False)
    async def score_page(request: Request, key: Files | None = File(None), response: Files | None = File(None),
                         preset: str = Form(""), metrics: list[str] = Form([]), metrics_of: str = Form(""),
                         match: str = Form(""), singletons: str = Form(""), repair: str = Form(""),
                         key_format: str = Form(""), response_format: str = Form(""), zeros: str = Form(""),
                         repeats: str = Form(""), cross_document: str = Form(""), style: str = Form(""),
                         mention_type: str = Form(""), validated_only: str = Form(""), topic_pattern: str = Form(""),
                         topics: UploadFile | None = File(None)):
        chosen = {"preset": preset, "metrics": metrics, "metrics_of": metrics_of, "match": match,
                  "singletons": singletons, "repair": _on(repair), "key_format": key_format,
                  "response_format": response_format, "zeros": zeros, "repeats": repeats,
                  "cross_document": cross_document, "style": style, "mention_type": mention_type,
                  "validated_only": _on(validated_only), "topic_pattern": topic_pattern,
                  "files": {"key": file_names(key), "response": file_names(response), "topics": file_names(topics)}}
        try:
            cross = CrossChoice.of(cross_document, style, mention_type, _on(validated_only), topic_pattern)
            opts = options_of(metrics, match, singletons, repair, key_format, response_format, zeros, preset, repeats,
                              metrics_of, cross)
            result = await run_score(key, response, opts, topics)
            token = keep(result, result.size, "the result")
        except (WebError, CorefioError) as exc:
            return form_page(request, "home.html", exc, chosen, **home_context())
        return RedirectResponse(f"/r/{token}", status_code=303)

    @app.post("/api/score", tags=["api"], summary="Score a response against a key (the standard score and the four "
                                                  "synchronisation strategies)")
    async def api_score(key: Files = File(..., description=f"the key file ({PROJECTS})"),
                        response: Files = File(..., description=f"the response file ({PROJECTS})"),
                        preset: str = Form("", description="a scorer's settings: conll2012 (scorer.pl 8.01), "
                                                           "corefud or crac (corefud-scorer), codicrac (the UA "
                                                           "scorer 2.0), ... (GET /api/formats lists them; "
                                                           "default: none, corefio's defaults); the options below "
                                                           "override it"),
                        metrics: str = Form("", description="comma-separated metric names (default: the preset's, "
                                                            "else the usual set)"),
                        match: str = Form("", description="exact, head, min or partial (default: the preset's, "
                                                          "else exact)"),
                        singletons: str = Form("", description="keep or drop (default: the preset's, else keep)"),
                        repair: bool = Form(False, description="repair malformed XML/SGML before reading"),
                        key_format: str = Form("", description="the key's format (default: detected)"),
                        response_format: str = Form("", description="the response's format (default: detected)"),
                        zeros: str = Form("", description="zero mentions (CorefUD empty nodes): drop, or keep "
                                                          "them matched linear or dependent (default: the "
                                                          "preset's, else drop)"),
                        repeats: str = Form("", description="a span listed in two chains: scorer (scorer.pl's "
                                                            "rule) or corefud (corefud-scorer's); default: the "
                                                            "preset's, else scorer"),
                        cross_document: str = Form("", description="score across documents: auto (default: when "
                                                                   "the key is a CDCR corpus, at its own unit), "
                                                                   "none, corpus, topic, subtopic or block (the "
                                                                   "meta-documents of a cdcr-conll file); the "
                                                                   "singletons option applies"),
                        style: str = Form("", description="published CDCR evaluation styles side by side: all, "
                                                          "or comma-separated barhom2019, topic, cattan2021, "
                                                          "cattan2021-singletons, subtopic"),
                        mention_type: str = Form("", description="cross-document: all (default), event or entity "
                                                                 "mentions"),
                        validated_only: bool = Form(False, description="cross-document: only mentions of ECB+'s "
                                                                       "validated sentences"),
                        topic_pattern: str = Form("", description="cross-document: a regular expression with a "
                                                                  "group 'topic' (and 'subtopic') on document "
                                                                  "names, for corpora that do not record topics"),
                        topics: UploadFile | None = File(None, description="cross-document: a file of "
                                                                           "DOCUMENT<TAB>TOPIC[<TAB>SUBTOPIC] "
                                                                           "lines (as --topics)")):
        """The JSON of ``corefio score --sync all --format json`` (with per-document scores),
        plus ``standard``: the standard score, key and response as they are (the JSON of
        ``corefio score --per-document --format json``: what the reference scorer reports
        with these settings); ``reading``: the diagnostics of reading (and repairing) the
        uploads; ``result``: the path of the result page (``/r/{token}``; null when the
        result is larger than the server keeps); and ``settings``: the settings used, the
        preset and where they differ from its scorer (as ``corefio score --format json``);
        ``cross_document``: the cross-document scores when they apply (the JSON of
        ``corefio score --cross-document LEVEL --per-document --format json`` under
        ``scores``, the ``settings`` used, the ``units`` and ``views``, the paths of each
        unit's key vs response view), else null; ``styles``: the published styles side by
        side (the JSON of ``corefio score --style ...``) when asked."""
        cross = CrossChoice.of(cross_document, style, mention_type, validated_only, topic_pattern)
        opts = options_of(metrics, match, singletons, repair, key_format, response_format, zeros, preset, repeats,
                          cross=cross)
        result = await run_score(key, response, opts, topics)
        token = store.add(result, result.size)
        body = dict(result.scores)
        body["standard"] = result.standard
        body["settings"] = opts.settings.to_dict()
        body["reading"] = result.reading
        body["formats"] = {"key": result.key_format, "response": result.response_format}
        body["result"] = f"/r/{token}" if token else None
        body["cross_document"] = None
        body["styles"] = None
        if result.cross:
            c = result.cross
            if "scores" in c:
                body["cross_document"] = {
                    "settings": c["settings"], "scores": c["scores"], "units": c["units"],
                    "views": [f"/r/{token}/cross/view?unit={i}" for i in range(len(c["units"]))] if token else None}
            body["styles"] = c.get("styles")
        return JSONResponse(body)

    def get_result(token: str) -> Result:
        item = store.get(token)
        if not isinstance(item, Result):
            raise WebError(404, "no such result")
        return item

    @app.get("/r/{token}", response_class=HTMLResponse, include_in_schema=False)
    async def result_page(request: Request, token: str, strategy: str = "standard"):
        r = get_result(token)
        if strategy not in STRATEGIES:
            strategy = "standard"
        shown = [m for m in r.metrics if m != "mentions"]
        if strategy == "standard":
            documents = r.standard.get("documents", {})
        else:
            documents = r.scores.get("documents", {}).get(strategy, {})
        return private(page(request, "result.html", r=r, token=token, strategies=STRATEGIES, metrics=shown,
                            cross=r.cross, style_metrics=["muc", "bcub", "ceafe", "lea", "conll"],
                            standard=r.standard.get("corpus", {}), sync=r.scores["sync"],
                            mentions=r.scores["mentions"], documents=documents, strategy=strategy,
                            writable=writable_formats(), doc_names=r.doc_names))

    def attachment(data: bytes | str, filename: str, media: str) -> Response:
        return private(Response(data, media_type=media,
                                headers={"Content-Disposition": f'attachment; filename="{filename}"'}))

    @app.get("/r/{token}/scores.json", include_in_schema=False)
    async def scores_json(token: str):
        r = get_result(token)
        return attachment(json.dumps(r.standard, indent=2, ensure_ascii=False), "scores.json", "application/json")

    @app.get("/r/{token}/scores.csv", include_in_schema=False)
    async def scores_csv(token: str):
        r = get_result(token)
        if r.standard_csv is None:
            raise WebError(422, r.standard_csv_error or "the scores cannot be written as CSV; download them as JSON")
        return attachment(r.standard_csv, "scores.csv", "text/csv")

    def cross_of(r: Result, what: str) -> dict:
        if not r.cross or what not in r.cross:
            raise WebError(404, "this result has no cross-document scores" if what == "scores" else
                                "this result has no evaluation styles")
        return r.cross

    @app.get("/r/{token}/cross.json", include_in_schema=False)
    async def cross_json(token: str):
        c = cross_of(get_result(token), "scores")
        body = {"settings": c["settings"], **c["scores"], "units": c["units"]}
        return attachment(json.dumps(body, indent=2, ensure_ascii=False), "scores.cross.json", "application/json")

    @app.get("/r/{token}/cross.csv", include_in_schema=False)
    async def cross_csv(token: str):
        c = cross_of(get_result(token), "scores")
        if c["csv"] is None:
            raise WebError(422, c["csv_error"] or "the scores cannot be written as CSV; download them as JSON")
        return attachment(c["csv"], "scores.cross.csv", "text/csv")

    @app.get("/r/{token}/styles.json", include_in_schema=False)
    async def styles_json_file(token: str):
        c = cross_of(get_result(token), "styles")
        return attachment(json.dumps({"styles": c["styles"]}, indent=2, ensure_ascii=False), "scores.styles.json",
                          "application/json")

    @app.get("/r/{token}/styles.csv", include_in_schema=False)
    async def styles_csv_file(token: str):
        c = cross_of(get_result(token), "styles")
        return attachment(c["styles_csv"], "scores.styles.csv", "text/csv")

    @app.get("/r/{token}/cross/view", response_class=HTMLResponse, include_in_schema=False)
    async def cross_view_page(request: Request, token: str, unit: int = 0, page: int = 0):
        r = get_result(token)
        c = cross_of(r, "scores")
        pv, unit, names, name, count = await pool.run(cross_view_job, r.corpora, c["settings"], unit, page,
                                                      r.options.zeros, c.get("topics"),
                                                      what="the key vs response view")
        return private(templates.TemplateResponse(request, "view.html", {
            "r": r, "token": token, "v": pv, "doc": unit, "names": names, "doc_name": name,
            "action": f"/r/{token}/cross/view", "param": "unit", "picker": "Unit", "documents": count,
            "unit_documents": c["units"][unit]["documents"] if unit < len(c["units"]) else []}))

    @app.get("/r/{token}/sync.json", include_in_schema=False)
    async def sync_json(token: str):
        r = get_result(token)
        return attachment(json.dumps(r.scores, indent=2, ensure_ascii=False), "scores.sync.json", "application/json")

    @app.get("/r/{token}/sync.csv", include_in_schema=False)
    async def sync_csv(token: str):
        r = get_result(token)
        if r.csv is None:
            raise WebError(422, r.csv_error or "the scores cannot be written as CSV; download them as JSON")
        return attachment(r.csv, "scores.sync.csv", "text/csv")

    @app.get("/r/{token}/sync/{strategy}/{side}", include_in_schema=False)
    async def sync_file(token: str, strategy: str, side: str):
        r = get_result(token)
        if strategy not in STRATEGIES or side not in ("key", "response"):
            raise WebError(404, "no such synchronised file")
        data, filename = await pool.run(sync_job, r.corpora, strategy, side, r.key_name, r.response_name,
                                        what="synchronisation")
        return attachment(data, filename, "application/octet-stream")

    @app.get("/r/{token}/convert/{side}", include_in_schema=False)
    async def convert_result(token: str, side: str, to: str = "raf"):
        r = get_result(token)
        if side not in ("key", "response"):
            raise WebError(404, "no such file")
        if to not in writable_formats():
            raise WebError(400, f"unknown output format {to!r} (known: {', '.join(writable_formats())})")
        stem = re.split(r"\.", r.key_name if side == "key" else r.response_name)[0] or side
        data, filename = await pool.run(convert_result_job, r.corpora, side, to, stem, what="conversion")
        media = "application/zip" if filename.endswith(".zip") else "application/octet-stream"
        return attachment(data, filename, media)

    @app.get("/r/{token}/view", response_class=HTMLResponse, include_in_schema=False)
    async def view_page(request: Request, token: str, doc: int = 0, page: int = 0):
        r = get_result(token)
        pv, doc, names, doc_name = await pool.run(view_job, r.corpora, doc, page, r.options,
                                                  what="the key vs response view")
        return private(templates.TemplateResponse(request, "view.html", {
            "r": r, "token": token, "v": pv, "doc": doc, "names": names, "doc_name": doc_name}))

    #: a figure kept with its result, at most this many bytes of them per result
    figure_budget = 4 << 20

    async def figure(item: Any, name: str, job: Any, *args: Any) -> Response:
        """A result's figure as PNG: drawn in a worker the first time, kept with the result."""
        if not plots_available():
            raise WebError(404, "this server draws no figures (matplotlib, the plot extra, is not installed)")
        cache = item.figures
        if name not in cache:
            data = await pool.run(job, *args, what="drawing the figure")
            if sum(len(v) for v in cache.values()) + len(data) <= figure_budget:
                cache[name] = data
        else:
            data = cache[name]
        return private(Response(data, media_type="image/png"))

    app.state.figure = figure

    @app.get("/r/{token}/{name}.png", include_in_schema=False)
    async def score_figure(token: str, name: str):
        r = get_result(token)
        if name not in ("documents", "errors"):
            raise WebError(404, "no such figure")
        return await figure(r, name, score_plot_job, r.corpora, r.options, name)

    # -- compare several responses (corefio.web.compare) ---------------------------------------
    from .compare import add_routes

    add_routes(app, page=page, form_page=form_page, keep=keep, store=store, pool=pool, limit=limit,
               readable=readable_formats, figure=figure)

    # -- agreement among annotators (corefio.web.agreement) -------------------------------------
    from .agreement import add_routes as add_agreement_routes

    add_agreement_routes(app, page=page, form_page=form_page, keep=keep, store=store, pool=pool, limit=limit,
                         readable=readable_formats, writable=writable_formats, figure=figure)

    # -- convert, validate, repair: each form posts, and its result page is /d/{token} ---------
    def done(template: str, context: dict[str, Any], file: tuple[str, bytes] | None, what: str) -> Response:
        item = Done(template, context, file)
        token = keep(item, item.size, what)
        return RedirectResponse(f"/d/{token}", status_code=303)

    def get_done(token: str) -> Done:
        item = store.get(token)
        if not isinstance(item, Done):
            raise WebError(404, "no such page")
        return item

    @app.get("/d/{token}", response_class=HTMLResponse, include_in_schema=False)
    async def done_page(request: Request, token: str):
        item = get_done(token)
        return private(page(request, item.template, token=token, **item.context))

    def convert_context() -> dict[str, Any]:
        return {"formats": readable_formats(), "writable": writable_formats()}

    @app.get("/convert", response_class=HTMLResponse, include_in_schema=False)
    async def convert_form(request: Request):
        return page(request, "convert.html", **convert_context())

    async def do_convert(file: Files | None, to: str, from_format: str, repair: bool):
        if to not in writable_formats():
            raise WebError(400, f"unknown output format {to!r} (known: {', '.join(writable_formats())})")
        if from_format and from_format not in readable_formats():
            raise WebError(400, f"unknown input format {from_format!r}")
        with scratch() as tmp:
            up = await save(file, "input", tmp, limit)
            fmt, data, filename, diagnostics = await pool.run(convert_job, up, to, from_format or None, repair,
                                                              limit, tmp, what="reading and converting")
        return up, fmt, data, filename, diagnostics

    @app.post("/convert", response_class=HTMLResponse, include_in_schema=False)
    async def convert_page(request: Request, file: Files | None = File(None), to: str = Form("raf"),
                           from_format: str = Form(""), repair: str = Form("")):
        chosen = {"to": to, "from_format": from_format, "repair": _on(repair), "files": {"file": file_names(file)}}
        try:
            up, fmt, data, filename, diagnostics = await do_convert(file, to, from_format, _on(repair))
            return done("converted.html", {"name": up.name, "fmt": fmt, "to": to, "filename": filename,
                                           "diagnostics": diagnostics, "size": len(data)},
                        (filename, data), "the converted file")
        except (WebError, CorefioError) as exc:
            return form_page(request, "convert.html", exc, chosen, **convert_context())

    @app.get("/f/{token}", include_in_schema=False)
    async def stored_file(token: str):
        item = store.get(token)
        if not (isinstance(item, Done) and item.file is not None):
            raise WebError(404, "no such file")
        filename, data = item.file
        return attachment(data, filename, "application/octet-stream")

    @app.post("/api/convert", tags=["api"], summary="Convert one file to another format")
    async def api_convert(file: Files = File(..., description=f"the input ({PROJECTS})"),
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

    async def do_validate(file: Files | None, fmt: str) -> tuple[Upload, str, list[dict]]:
        if fmt and fmt not in readable_formats():
            raise WebError(400, f"unknown format {fmt!r} (known: {', '.join(readable_formats())})")
        with scratch() as tmp:
            up = await save(file, "input", tmp, limit)
            name, diagnostics = await pool.run(validate_job, up, fmt or None, limit, tmp, what="validation")
        return up, name, diagnostics

    @app.get("/validate", response_class=HTMLResponse, include_in_schema=False)
    async def validate_form(request: Request):
        return page(request, "validate.html", formats=readable_formats())

    @app.post("/validate", response_class=HTMLResponse, include_in_schema=False)
    async def validate_page(request: Request, file: Files | None = File(None), format: str = Form("")):
        chosen = {"format": format, "files": {"file": file_names(file)}}
        try:
            up, name, diagnostics = await do_validate(file, format)
            valid = not any(d["severity"] == "error" for d in diagnostics)
            return done("validated.html", {"name": up.name, "fmt": name, "diagnostics": diagnostics, "valid": valid},
                        None, "the validation")
        except (WebError, CorefioError) as exc:
            return form_page(request, "validate.html", exc, chosen, formats=readable_formats())

    @app.post("/api/validate", tags=["api"], summary="Validate one file (schema, reader, model)")
    async def api_validate(file: Files = File(..., description=f"the input ({PROJECTS})"),
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
        with scratch() as tmp:
            up = await save(file, "input", tmp, limit)
            data, changes = await pool.run(repair_job, up, kind, entities, what="repair")
        return up, data, changes

    @app.get("/repair", response_class=HTMLResponse, include_in_schema=False)
    async def repair_form(request: Request):
        return page(request, "repair.html")

    @app.post("/repair", response_class=HTMLResponse, include_in_schema=False)
    async def repair_page(request: Request, file: UploadFile | None = File(None), kind: str = Form("auto"),
                          entities: str = Form("map")):
        chosen = {"kind": kind, "entities": entities, "files": {"file": file_names(file)}}
        try:
            up, data, changes = await do_repair(file, kind, entities)
            stem = up.name.rsplit(".", 1)
            filename = f"{stem[0]}.repaired.{stem[1]}" if len(stem) == 2 else f"{up.name}.repaired.xml"
            return done("repaired.html", {"name": up.name, "changes": changes, "filename": filename},
                        (filename, data), "the repaired file")
        except (WebError, CorefioError) as exc:
            return form_page(request, "repair.html", exc, chosen)

    @app.post("/api/repair", tags=["api"], summary="Repair malformed XML/SGML into well-formed XML")
    async def api_repair(file: UploadFile = File(..., description="the XML-ish input"),
                         kind: str = Form("auto", description="auto, muc or xml"),
                         entities: str = Form("map", description="map or declare")):
        """The repaired file (``content``, UTF-8 XML) and every change with its line and column."""
        up, data, changes = await do_repair(file, kind, entities)
        return {"file": up.name, "content": data.decode("utf-8"), "changes": changes}

    @app.get("/api/formats", tags=["api"], summary="The formats and metrics the server knows")
    async def api_formats():
        from ..scoring.presets import all_presets

        return {"read": readable_formats(), "write": writable_formats(), "metrics": metric_names(),
                "default_metrics": default_metrics(), "match": list(MATCH_MODES), "sync": list(STRATEGIES),
                "presets": [p.to_dict() for p in all_presets()],
                "max_upload_mb": max_upload_mb, "time_limit": time_limit,
                "cross_document": list(CHOICES), "styles": list(STYLES), "mention_types": list(MENTION_TYPES)}

    return app


def _on(value: Any) -> bool:
    return str(value).lower() in ("1", "true", "on", "yes")


__all__ = ["create_app", "UsageError"]
