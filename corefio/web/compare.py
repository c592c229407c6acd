"""The compare page: one key, several responses; every metric per system with its
bootstrap confidence interval, paired tests for every pair of systems
(:mod:`corefio.scoring.significance`) and each system's errors
(:mod:`corefio.scoring.error_analysis`), as ``corefio compare --errors`` gives them.

Routes (added to the application by :func:`add_routes`; the edge's checks, the upload
limit, the worker's deadline and memory limit apply as to every other route):

* ``GET /compare``: the form; ``POST /compare`` compares and redirects to ``GET
  /c/{token}``, the page with the tables (kept in memory as the score page's results
  are); an error shows the form again, with the options chosen;
* ``GET /c/{token}/comparison.json``: what the page shows, as JSON;
* ``POST /api/compare``: the same as JSON (``corefio compare --errors --format json``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from fastapi import File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from ..diagnostics import Report
from ..errors import CorefioError
from .errors import WebError
from .uploads import Upload, save, scratch

if TYPE_CHECKING:  # pragma: no cover
    from fastapi import FastAPI

    from .worker import Workers

#: the metrics whose corpus score sums document counts (what resampling needs)
COMPARE_METRICS = ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea", "conll")
DEFAULT_COMPARE_METRICS = ("muc", "bcub", "ceafe", "conll")
#: at most this many responses in one comparison (each pair is tested)
MAX_RESPONSES = 8
#: at most this many resampling rounds (the command line has no such bound)
MAX_SAMPLES = 10_000
MATCH_MODES = ("exact", "head", "min", "partial")


@dataclass
class CompareOptions:
    metrics: list[str] = field(default_factory=lambda: list(DEFAULT_COMPARE_METRICS))
    match: str = "exact"
    keep_singletons: bool = True
    samples: int = 10_000
    seed: int | None = 0
    confidence: float = 0.95
    key_format: str | None = None
    response_format: str | None = None
    #: the settings scored with (a preset and the options chosen: corefio.web.settings)
    settings: Any = None

    @classmethod
    def of_form(cls, metrics: list[str] | str, match: str, singletons: str, samples: str, seed: str,
                confidence: str, key_format: str, response_format: str, readable: list[str], preset: str = "",
                metrics_of: str = "", zeros: str = "", repeats: str = "") -> "CompareOptions":
        """The options a form or an API call gives (strings), checked: a 400 names what is wrong.
        The metrics: those chosen, else the preset's that can be resampled, else
        :data:`DEFAULT_COMPARE_METRICS` (as ``corefio compare --preset`` chooses them)."""
        from ..scoring.presets import comparable
        from . import settings as S

        names = S.split(metrics)
        unknown = [m for m in names if m not in COMPARE_METRICS]
        if unknown:
            raise WebError(400, f"metric(s) that cannot be compared: {', '.join(unknown)} "
                                f"(these can: {', '.join(COMPARE_METRICS)})")
        given = S.given_options(names, match, singletons, zeros, repeats, metrics_of)
        settings = S.settings_of(preset, given)
        if "metrics" in given:
            chosen = names
        elif settings.preset is not None:
            chosen = [m for m in comparable(settings.options["metrics"]) if m in COMPARE_METRICS]
        else:
            chosen = list(DEFAULT_COMPARE_METRICS)
        try:
            rounds = int(samples or MAX_SAMPLES)
        except ValueError:
            raise WebError(400, f"the number of samples is a whole number, not {samples!r}") from None
        if not 1 <= rounds <= MAX_SAMPLES:
            raise WebError(400, f"the number of samples must lie between 1 and {MAX_SAMPLES:,}")
        try:
            chosen_seed = int(seed) if str(seed).strip() else None
        except ValueError:
            raise WebError(400, f"the seed is a whole number, not {seed!r}") from None
        try:
            level = float(confidence or 0.95)
        except ValueError:
            raise WebError(400, f"the confidence level is a number, not {confidence!r}") from None
        if not 0 < level < 1:
            raise WebError(400, "the confidence level must lie between 0 and 1 (0.95 for 95%)")
        for f in (key_format, response_format):
            if f and f not in readable:
                raise WebError(400, f"unknown input format {f!r} (known: {', '.join(readable)})")
        o = settings.options
        return cls(chosen, o["match"], o["keep_singletons"], rounds, chosen_seed, level, key_format or None,
                   response_format or None, settings)

    def score_options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`corefio.score` for these settings."""
        from . import settings as S

        if self.settings is None:
            return {"match": self.match, "keep_singletons": self.keep_singletons}
        return S.score_keywords(self.settings)


def _names(files: Any) -> list[str]:
    """The names of the files a form field brought (for the form shown again)."""
    from .uploads import safe_name

    items = files if isinstance(files, list) else [files]
    return [safe_name(f.filename, "file") for f in items if f is not None and not isinstance(f, str) and f.filename]


def system_names(uploads: list[Upload]) -> list[str]:
    """A name per response: its file name, numbered when two are the same."""
    seen: dict[str, int] = {}
    out = []
    for up in uploads:
        seen[up.name] = seen.get(up.name, 0) + 1
        out.append(up.name if seen[up.name] == 1 else f"{up.name} ({seen[up.name]})")
    return out


def compare_job(ku: Upload, responses: list[Upload], opts: CompareOptions, limit: int, tmp: Path) -> dict:
    """Read the key and every response, compare them and classify each system's errors
    (in a worker process: :mod:`.worker`)."""
    from ..errors import CorefioError
    from ..scoring.error_analysis import ERROR_CLASSES, analyse_files
    from ..scoring.significance import compare
    from .reading import clean, read_upload
    from .errors import from_corefio

    report = Report()
    key, key_format = read_upload(ku, opts.key_format, False, limit, tmp, report)
    corpora, formats = [], []
    for up in responses:
        corpus, fmt = read_upload(up, opts.response_format, False, limit, tmp, report)
        corpora.append(corpus)
        formats.append(fmt)
    names = system_names(responses)
    score_report = Report()
    try:
        comparison = compare(key, corpora, opts.metrics, names=names, samples=opts.samples, seed=opts.seed,
                             level=opts.confidence, report=score_report, **opts.score_options())
        analyses = {name: analyse_files(key, corpus, match=opts.match, keep_singletons=opts.keep_singletons,
                                        report=score_report) for name, corpus in zip(names, corpora)}
        errors = {name: analysis.to_dict() for name, analysis in analyses.items()}
    except CorefioError as exc:
        raise from_corefio(exc) from None
    diagnostics = [d.to_dict() for d in report] + [d.to_dict() for d in score_report]
    import pickle

    return {"comparison": comparison.to_dict(), "errors": errors,
            "plots": pickle.dumps((comparison, analyses), protocol=pickle.HIGHEST_PROTOCOL),
            "error_classes": list(ERROR_CLASSES),
            "key": {"file": ku.name, "format": key_format, "documents": len(key.documents)},
            "responses": [{"name": n, "file": up.name, "format": f, "documents": len(c.documents)}
                          for n, up, f, c in zip(names, responses, formats, corpora)],
            "diagnostics": clean(diagnostics)}


@dataclass
class Compared:
    """A comparison the page ``/c/{token}`` shows."""

    data: dict
    options: CompareOptions
    #: the comparison and the error analyses, pickled (what the figures draw)
    plots: bytes = b""
    #: figures drawn for the page (PNG), kept once drawn
    figures: dict = field(default_factory=dict)

    @property
    def size(self) -> int:
        return len(json.dumps(self.data)) + len(self.plots) + 4096


def add_routes(app: "FastAPI", *, page: Callable[..., HTMLResponse], form_page: Callable[..., HTMLResponse],
               keep: Callable[[Any, int, str], str], store: Any, pool: "Workers", limit: int,
               readable: Callable[[], list[str]], figure: Callable[..., Any]) -> None:
    """Add the compare routes to ``app`` (``page`` renders a template, ``form_page`` the
    form again with an error, ``keep`` puts a result in ``store``, ``pool`` runs the
    work, ``limit``: the upload limit in bytes for all files of a request together)."""

    async def run(key: UploadFile | None, responses: list[UploadFile] | None, opts: CompareOptions) -> dict:
        files = [r for r in (responses or []) if not isinstance(r, str) and (r.filename or r.size)]
        if len(files) < 2:
            raise WebError(400, "upload at least two responses to compare (one response: use the score page)")
        if len(files) > MAX_RESPONSES:
            raise WebError(400, f"at most {MAX_RESPONSES} responses can be compared at once")
        with scratch() as tmp:
            ku = await save(key, "key", tmp, limit)
            used, ups = ku.size, []
            for n, upload in enumerate(files, 1):
                up = await save(upload, f"response{n}", tmp, limit, used=used)
                used += up.size
                ups.append(up)
            return await pool.run(compare_job, ku, ups, opts, limit, tmp, what="reading and comparing")

    def options(metrics: Any, match: str, singletons: str, samples: str, seed: str, confidence: str,
                key_format: str, response_format: str, preset: str = "", metrics_of: str = "") -> CompareOptions:
        return CompareOptions.of_form(metrics, match, singletons, samples, seed, confidence, key_format,
                                      response_format, readable(), preset, metrics_of)

    def form_context() -> dict[str, Any]:
        from . import settings as S

        # each preset with the metrics a comparison takes of it
        presets = [replace(p, metrics=tuple(m for m in p.metrics if m in COMPARE_METRICS) if p.name
                           else DEFAULT_COMPARE_METRICS) for p in S.choices()]
        return {"formats": readable(), "metrics": COMPARE_METRICS, "modes": MATCH_MODES,
                "max_responses": MAX_RESPONSES, "max_samples": MAX_SAMPLES, "presets": presets,
                "default_preset": S.DEFAULT_PRESET}

    @app.get("/compare", response_class=HTMLResponse, include_in_schema=False)
    async def compare_form(request: Request):
        return page(request, "compare.html", **form_context())

    @app.post("/compare", response_class=HTMLResponse, include_in_schema=False)
    async def compare_page(request: Request, key: UploadFile | None = File(None),
                           responses: list[UploadFile] | None = File(None), preset: str = Form(""),
                           metrics: list[str] = Form([]), metrics_of: str = Form(""),
                           match: str = Form(""), singletons: str = Form(""),
                           samples: str = Form(str(MAX_SAMPLES)), seed: str = Form("0"),
                           confidence: str = Form("0.95"), key_format: str = Form(""),
                           response_format: str = Form("")):
        chosen = {"preset": preset, "metrics_of": metrics_of, "metrics": metrics, "match": match,
                  "singletons": singletons, "samples": samples, "seed": seed,
                  "confidence": confidence, "key_format": key_format, "response_format": response_format,
                  "files": {"key": _names(key), "responses": _names(responses)}}
        try:
            opts = options(metrics, match, singletons, samples, seed, confidence, key_format, response_format,
                           preset, metrics_of)
            data = await run(key, responses, opts)
            item = Compared(data, opts, data.pop("plots"))
            token = keep(item, item.size, "the comparison")
        except (WebError, CorefioError) as exc:
            return form_page(request, "compare.html", exc, chosen, **form_context())
        return RedirectResponse(f"/c/{token}", status_code=303)

    def get(token: str) -> Compared:
        item = store.get(token)
        if not isinstance(item, Compared):
            raise WebError(404, "no such comparison")
        return item

    @app.get("/c/{token}", response_class=HTMLResponse, include_in_schema=False)
    async def compared_page(request: Request, token: str):
        item = get(token)
        response = page(request, "compared.html", d=item.data, c=item.data["comparison"], opts=item.options,
                        token=token)
        response.headers["cache-control"] = "no-store"
        return response

    @app.get("/c/{token}/{name}.png", include_in_schema=False)
    async def compared_figure(token: str, name: str):
        from .jobs import drawn_job

        item = get(token)
        if name not in ("comparison", "errors"):
            raise WebError(404, "no such figure")
        return await figure(item, name, drawn_job, item.plots, name)

    @app.get("/c/{token}/comparison.json", include_in_schema=False)
    async def compared_json(token: str):
        item = get(token)
        return Response(json.dumps(item.data, indent=2, ensure_ascii=False), media_type="application/json",
                        headers={"Content-Disposition": 'attachment; filename="comparison.json"',
                                 "cache-control": "no-store"})

    @app.post("/api/compare", tags=["api"], summary="Compare several responses against one key")
    async def api_compare(key: UploadFile = File(..., description="the key file (.zip for an MMAX2 project)"),
                          responses: list[UploadFile] = File(..., description=f"2 to {MAX_RESPONSES} response "
                                                                              "files"),
                          preset: str = Form("", description="a scorer's settings (as for /api/score); the "
                                                             "options below override it"),
                          metrics: str = Form("", description=f"comma-separated, of {', '.join(COMPARE_METRICS)} "
                                                              "(default: the preset's that can be compared, else "
                                                              f"{','.join(DEFAULT_COMPARE_METRICS)})"),
                          match: str = Form("", description="exact, head, min or partial (default: the preset's, "
                                                            "else exact)"),
                          singletons: str = Form("", description="keep or drop (default: the preset's, else keep)"),
                          samples: str = Form(str(MAX_SAMPLES), description=f"resampling rounds, 1 to {MAX_SAMPLES}"),
                          seed: str = Form("0", description="random seed (empty: a fresh one)"),
                          confidence: str = Form("0.95", description="confidence level of the intervals"),
                          key_format: str = Form("", description="the key's format (default: detected)"),
                          response_format: str = Form("", description="the responses' format (default: detected)")):
        """``comparison``: the JSON of ``corefio compare`` (scores with confidence intervals,
        paired tests: approximate randomisation and paired bootstrap p-values); ``errors``:
        each system's error counts and gains (Kummerfeld & Klein classes); the files read
        and the diagnostics of reading and scoring."""
        opts = options(metrics, match, singletons, samples, seed, confidence, key_format, response_format, preset)
        data = await run(key, responses, opts)
        data["settings"] = opts.settings.to_dict()
        data.pop("plots", None)
        return JSONResponse(data)
