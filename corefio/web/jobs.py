"""What the pages of the evaluator share, apart from the application itself: the
formats it writes, a corpus written as a download, and figures drawn from a stored
result. Its own module so that the pages (:mod:`.compare`, :mod:`.agreement`) and
:mod:`.app` import it without importing one another."""

from __future__ import annotations

import io
import pickle
import zipfile
from typing import Any, Mapping

import corefio

from ..diagnostics import Report
from ..errors import CorefioError
from . import glossary
from .errors import WebError, from_corefio, scrub


def writable_formats() -> list[str]:
    return [f.name for f in corefio.all_formats() if f.can_write]


def extension(fmt: str) -> str:
    spec = corefio.get_format(fmt)
    return spec.extensions[0] if spec.extensions and not spec.directory else ".zip"


def zipped(files: Mapping[str, bytes | str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name in sorted(files):
            z.writestr(name, files[name])
    return buf.getvalue()


def write_job(corpus, to: str, stem: str, report: Report | None = None) -> tuple[bytes, str]:
    """``corpus`` in format ``to``: the bytes and a file name (a .zip for multi-file formats)."""
    spec = corefio.get_format(to)
    try:
        if spec.directory or spec.write is None:
            return zipped(corefio.dump_files(corpus, to, report=report)), f"{stem}.{to}.zip"
        out = corefio.dumps(corpus, to, report=report)
    except CorefioError as exc:
        raise from_corefio(exc) from None
    except (ValueError, OSError, RecursionError) as exc:
        raise WebError(422, f"cannot write the file as {to}: {scrub(str(exc))}") from None
    if isinstance(out, bytes) and out.startswith(b"PK\x03\x04"):  # several XMI documents: INCEpTION's zip
        return out, f"{stem}.{to}.zip"
    return (out.encode("utf-8") if isinstance(out, str) else out), f"{stem}{extension(to)}"


def png(figure: Any) -> bytes:
    from .. import plots

    return plots.to_bytes(figure, "png")


def named(figure: Any, metrics: list[str]) -> Any:
    """``figure`` with its first panel's metric ticks named as papers name them (MUC, B³,
    CEAF-e...: :mod:`.glossary`), in the order the panel drew them."""
    axes = figure.axes[0]
    ticks = list(axes.get_xticks())
    if len(ticks) == len(metrics):
        axes.set_xticks(ticks, [glossary.label(m) for m in metrics])
    return figure


def drawn_job(data: bytes, which: str) -> bytes:
    """A figure of a stored result (``data``: what :mod:`corefio.plots` draws, pickled):
    ``comparison``, ``errors`` (by system) or ``agreement``."""
    from .. import plots

    thing = pickle.loads(data)
    if which == "comparison":
        return png(named(plots.compare_figure(thing[0]), thing[0].metrics))
    if which == "errors":
        return png(plots.errors_figure(thing[1]))
    return png(plots.agreement_figure(thing))
