"""The agreement page: the annotations of 2 to 8 annotators of the same documents; the
α values, the pairwise table, the documents ranked by agreement and the adjudication
view, as ``corefio agree`` and ``corefio adjudicate`` give them
(:mod:`corefio.agreement`).

Each upload is one annotator's annotation: a file, or a ``.zip`` (an MMAX2 project,
brat pairs, an XMI or WebAnno TSV export, or several files of one format). The work
runs in a worker (:mod:`.worker`) with the same deadline and memory limit as every
other page, and the uploads pass the same checks (:mod:`.uploads`).

Routes (added by :func:`add_routes`):

* ``GET /agreement``: the form; ``POST /agreement`` measures and adjudicates, and
  redirects to ``GET /a/{token}``; an error shows the form again with the options chosen;
* ``GET /a/{token}``: α, the pairwise table, the documents (and passages) ranked by
  agreement, each linked to ``GET /a/{token}/adjudication?doc=N``: the annotators of
  one document side by side with the gold, every conflict marked, "next conflict";
* ``GET /a/{token}/gold``: the gold (in the format chosen); ``/agreement.json``,
  ``/agreement.csv``, ``/conflicts.csv``: the tables;
* ``POST /api/agreement``: the agreement and the conflicts as JSON.
"""

from __future__ import annotations

import json
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from fastapi import File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from ..diagnostics import Report
from ..errors import CorefioError
from .errors import WebError, from_corefio
from .uploads import Upload, safe_name, save, scratch

if TYPE_CHECKING:  # pragma: no cover
    from fastapi import FastAPI

    from .worker import Workers

#: annotators one request may bring
MIN_ANNOTATORS, MAX_ANNOTATORS = 2, 8
DISTANCES = ("passonneau", "masi", "dkpro-masi")
KEEP_RULES = ("majority", "agreed")
#: sentences per passage, at most (0: no passages)
MAX_WINDOW = 1000


@dataclass
class AgreementOptions:
    distance: str = "passonneau"
    keep: str = "majority"
    window: int | None = None
    allow_missing: bool = False
    format: str | None = None
    gold_format: str | None = None
    names: list[str] | None = None
    #: the settings of the pairwise table's scorer (a preset: corefio.web.settings)
    settings: Any = None

    @classmethod
    def of_form(cls, distance: str, keep: str, window: str, allow_missing: str, format: str, gold_format: str,
                names: str, readable: list[str], writable: list[str], preset: str = "") -> "AgreementOptions":
        """The options a form or an API call gives (strings), checked: a 400 names what is wrong."""
        if distance not in DISTANCES:
            raise WebError(400, f"unknown set distance {distance!r} (known: {', '.join(DISTANCES)})")
        if keep not in KEEP_RULES:
            raise WebError(400, f"unknown adjudication rule {keep!r} (known: {', '.join(KEEP_RULES)})")
        size = None
        if str(window or "").strip():
            try:
                size = int(window)
            except ValueError:
                raise WebError(400, f"the passage length is a whole number of sentences, not {window!r}") from None
            if not 1 <= size <= MAX_WINDOW:
                raise WebError(400, f"the passage length must lie between 1 and {MAX_WINDOW} sentences")
        if format and format not in readable:
            raise WebError(400, f"unknown input format {format!r} (known: {', '.join(readable)})")
        if gold_format and gold_format not in writable:
            raise WebError(400, f"unknown output format {gold_format!r} (known: {', '.join(writable)})")
        given = [n.strip() for n in (names or "").split(",")]
        from . import settings as S

        return cls(distance, keep, size, _on(allow_missing), format or None, gold_format or None,
                   given if any(given) else None, S.settings_of(preset, {}))


def _on(value: Any) -> bool:
    return str(value).lower() in ("1", "true", "on", "yes")


def annotator_names(uploads: list[Upload], given: list[str] | None) -> list[str]:
    """A name per annotator: the one given, else its file's name up to the first dot."""
    if given is not None and len(given) != len(uploads):
        raise WebError(400, f"{len(given)} annotator name(s) for {len(uploads)} upload(s): give one name per file, "
                            "in the order of the files, or none")
    names = []
    for number, up in enumerate(uploads):
        name = (given[number] if given else "") or up.name.split(".")[0] or f"annotator {number + 1}"
        names.append(name[:60])
    return names


def agreement_job(uploads: list[Upload], opts: AgreementOptions, limit: int, tmp: Path) -> dict:
    """Read every annotation, measure agreement and adjudicate (in a worker process)."""
    from ..agreement import measure, merge
    from ..agreement.render import conflicts_csv, conflicts_dict, to_csv, to_dict
    from ..agreement.study import build_study
    from ..agreement.view import build
    from ..scoring.presets import chain_options
    from .jobs import write_job, writable_formats
    from .reading import clean, read_upload

    report = Report()
    corpora, formats = [], []
    for up in uploads:
        corpus, fmt = read_upload(up, opts.format, False, limit, tmp, report)
        corpora.append(corpus)
        formats.append(fmt)
    names = annotator_names(uploads, opts.names)
    try:
        study = build_study(corpora, names=names, allow_missing=opts.allow_missing, report=report)
        scoring = chain_options(opts.settings) if opts.settings is not None else None
        result = measure(study, distance=opts.distance, window=opts.window, report=report, scoring=scoring)
        adjudication = merge(study, keep=opts.keep, report=report)
        views = build(adjudication)
    except CorefioError as exc:
        raise from_corefio(exc) from None
    gold_format = opts.gold_format or (formats[0] if formats[0] in writable_formats() else "raf")
    gold_report = Report()
    gold, gold_name = write_job(adjudication.gold, gold_format, "gold", gold_report)
    return {"agreement": to_dict(result), "conflicts": conflicts_dict(adjudication),
            "agreement_csv": to_csv(result), "conflicts_csv": conflicts_csv(adjudication),
            "annotators": [{"name": n, "file": up.name, "format": f, "documents": len(c.documents)}
                           for n, up, f, c in zip(study.annotators, uploads, formats, corpora)],
            "gold": (gold_name, gold), "gold_format": gold_format,
            "views": pickle.dumps(views, protocol=pickle.HIGHEST_PROTOCOL),
            "plots": pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL),
            "diagnostics": clean([d.to_dict() for d in report] + [d.to_dict() for d in gold_report])}


@dataclass
class Agreed:
    """What the agreement pages show (``/a/{token}``)."""

    data: dict
    options: AgreementOptions
    #: the adjudication view's documents (:func:`corefio.agreement.view.build`), pickled
    views: bytes = b""
    #: the agreement, pickled (what the heatmap draws)
    plots: bytes = b""
    #: figures drawn for the page (PNG), kept once drawn
    figures: dict = field(default_factory=dict)

    @property
    def size(self) -> int:
        gold = self.data.get("gold") or ("", b"")
        return (len(json.dumps({k: v for k, v in self.data.items() if k != "gold"})) + len(gold[1])
                + len(self.views) + len(self.plots) + 4096)


def add_routes(app: "FastAPI", *, page: Callable[..., HTMLResponse], form_page: Callable[..., HTMLResponse],
               keep: Callable[[Any, int, str], str], store: Any, pool: "Workers", limit: int,
               readable: Callable[[], list[str]], writable: Callable[[], list[str]],
               figure: Callable[..., Any]) -> None:
    """Add the agreement routes to ``app`` (the arguments as for
    :func:`corefio.web.compare.add_routes`; ``writable``: the formats the gold may take)."""

    async def run(annotations: list[UploadFile] | None, opts: AgreementOptions) -> dict:
        files = [f for f in (annotations or []) if not isinstance(f, str) and (f.filename or f.size)]
        if len(files) < MIN_ANNOTATORS:
            raise WebError(400, f"upload at least {MIN_ANNOTATORS} annotations, one per annotator (each a file, "
                                "or a .zip of an annotator's files)")
        if len(files) > MAX_ANNOTATORS:
            raise WebError(400, f"at most {MAX_ANNOTATORS} annotations can be compared at once")
        with scratch() as tmp:
            used, ups = 0, []
            for n, upload in enumerate(files, 1):
                up = await save(upload, f"annotator{n}", tmp, limit, used=used)
                used += up.size
                ups.append(up)
            return await pool.run(agreement_job, ups, opts, limit, tmp, what="reading and measuring agreement")

    def options(distance: str, keep_rule: str, window: str, allow_missing: str, format: str, gold_format: str,
                names: str, preset: str = "") -> AgreementOptions:
        return AgreementOptions.of_form(distance, keep_rule, window, allow_missing, format, gold_format, names,
                                        readable(), writable(), preset)

    def form_context() -> dict[str, Any]:
        from . import settings as S

        return {"formats": readable(), "writable": writable(), "distances": DISTANCES, "keep_rules": KEEP_RULES,
                "max_annotators": MAX_ANNOTATORS, "presets": S.choices()}

    @app.get("/agreement", response_class=HTMLResponse, include_in_schema=False)
    async def agreement_form(request: Request):
        return page(request, "agreement.html", **form_context())

    @app.post("/agreement", response_class=HTMLResponse, include_in_schema=False)
    async def agreement_page(request: Request, annotations: list[UploadFile] | None = File(None),
                             names: str = Form(""), format: str = Form(""), distance: str = Form("passonneau"),
                             keep_rule: str = Form("majority", alias="keep"), window: str = Form(""),
                             allow_missing: str = Form(""), gold_format: str = Form(""), preset: str = Form("")):
        chosen = {"preset": preset, "names": names, "format": format, "distance": distance, "keep": keep_rule,
                  "window": window,
                  "allow_missing": _on(allow_missing), "gold_format": gold_format,
                  "files": {"annotations": [safe_name(f.filename, "file") for f in (annotations or [])
                                            if not isinstance(f, str) and f.filename]}}
        try:
            opts = options(distance, keep_rule, window, allow_missing, format, gold_format, names, preset)
            data = await run(annotations, opts)
            item = Agreed(data, opts, data.pop("views"), data.pop("plots"))
            token = keep(item, item.size, "the agreement")
        except (WebError, CorefioError) as exc:
            return form_page(request, "agreement.html", exc, chosen, **form_context())
        return RedirectResponse(f"/a/{token}", status_code=303)

    def get(token: str) -> Agreed:
        item = store.get(token)
        if not isinstance(item, Agreed):
            raise WebError(404, "no such agreement")
        return item

    def private(response: Response) -> Response:
        response.headers["cache-control"] = "no-store"
        return response

    def attachment(data: bytes | str, filename: str, media: str) -> Response:
        return private(Response(data, media_type=media,
                                headers={"Content-Disposition": f'attachment; filename="{filename}"'}))

    @app.get("/a/{token}", response_class=HTMLResponse, include_in_schema=False)
    async def agreed_page(request: Request, token: str):
        item = get(token)
        views = pickle.loads(item.views)
        index = {v.name: n for n, v in enumerate(views)}
        conflicts = {v.name: len(v.conflicts) for v in views}
        return private(page(request, "agreed.html", a=item.data["agreement"], d=item.data, opts=item.options,
                            token=token, index=index, conflicts=conflicts))

    @app.get("/a/{token}/adjudication", response_class=HTMLResponse, include_in_schema=False)
    async def adjudication_page(request: Request, token: str, doc: int = 0):
        item = get(token)
        views = pickle.loads(item.views)
        if not views:
            raise WebError(404, "the annotations hold no document")
        doc = min(max(doc, 0), len(views) - 1)
        return private(page(request, "adjudication.html", d=item.data, opts=item.options, token=token,
                            v=views[doc], doc=doc, names=[v.name for v in views],
                            annotators=item.data["agreement"]["annotators"]))

    @app.get("/a/{token}/pairs.png", include_in_schema=False)
    async def agreement_figure(token: str):
        from .jobs import drawn_job

        item = get(token)
        return await figure(item, "pairs", drawn_job, item.plots, "agreement")

    @app.get("/a/{token}/gold", include_in_schema=False)
    async def gold_file(token: str):
        name, data = get(token).data["gold"]
        media = "application/zip" if name.endswith(".zip") else "application/octet-stream"
        return attachment(data, name, media)

    @app.get("/a/{token}/agreement.json", include_in_schema=False)
    async def agreement_json(token: str):
        data = get(token).data
        body = {"agreement": data["agreement"], "adjudication": data["conflicts"], "annotators": data["annotators"]}
        return attachment(json.dumps(body, indent=2, ensure_ascii=False), "agreement.json", "application/json")

    @app.get("/a/{token}/agreement.csv", include_in_schema=False)
    async def agreement_csv(token: str):
        return attachment(get(token).data["agreement_csv"], "agreement.csv", "text/csv")

    @app.get("/a/{token}/conflicts.csv", include_in_schema=False)
    async def conflicts_csv(token: str):
        return attachment(get(token).data["conflicts_csv"], "conflicts.csv", "text/csv")

    @app.post("/api/agreement", tags=["api"], summary="Agreement among 2 to 8 annotators, and their adjudication")
    async def api_agreement(annotations: list[UploadFile] = File(..., description=f"{MIN_ANNOTATORS} to "
                                                                                  f"{MAX_ANNOTATORS} annotations, "
                                                                                  "one per annotator (a file or a "
                                                                                  ".zip)"),
                            names: str = Form("", description="comma-separated annotator names, in the order of "
                                                              "the files (default: the file names)"),
                            format: str = Form("", description="the annotations' format (default: detected)"),
                            distance: str = Form("passonneau", description="set distance of the chain α: "
                                                                           + ", ".join(DISTANCES)),
                            keep_rule: str = Form("majority", alias="keep",
                                                  description="adjudication: majority or agreed"),
                            window: str = Form("", description="sentences per passage ranked by agreement "
                                                               "(empty: documents only)"),
                            allow_missing: bool = Form(False, description="measure each document over the "
                                                                          "annotators that have it"),
                            gold_format: str = Form("", description="the gold's format (default: the first "
                                                                    "annotation's)"),
                            preset: str = Form("", description="score the pairwise table with a scorer's settings "
                                                               "(its matching, singletons, zeros; as for "
                                                               "/api/score; default: corefio's)")):
        """``agreement``: the JSON of ``corefio agree --format json`` (chain α, unitizing α,
        the pairwise table and its mean, the documents ranked by agreement); ``adjudication``:
        the conflicts ``corefio adjudicate`` reports; the files read and the diagnostics;
        ``result``: the page (``/a/{token}``), where the adjudication view and the gold are."""
        opts = options(distance, keep_rule, window, str(allow_missing), format, gold_format, names, preset)
        data = await run(annotations, opts)
        item = Agreed(data, opts, data.pop("views"), data.pop("plots"))
        token = store.add(item, item.size)
        return JSONResponse({"agreement": data["agreement"], "adjudication": data["conflicts"],
                             "annotators": data["annotators"], "gold_format": data["gold_format"],
                             "settings": opts.settings.to_dict(with_metrics=False),
                             "diagnostics": data["diagnostics"], "result": f"/a/{token}" if token else None})
