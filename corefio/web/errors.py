"""The web application's answers other than 200, and what they may not show."""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

from ..errors import CorefioError

TITLES = {400: "Bad request", 403: "Forbidden", 404: "Not found", 408: "Request timeout",
          413: "Upload too large", 422: "The input cannot be used", 503: "Server busy"}


class WebError(Exception):
    """An answer other than 200: status, message and where (file:line:column)."""

    def __init__(self, status: int, message: str, where: str | None = None, title: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.where = where
        self.title = title or TITLES.get(status, "Error")


def from_corefio(exc: CorefioError) -> WebError:
    status = 400 if exc.exit_code == 2 else 422
    where = exc.location if (exc.file or exc.line is not None) else None
    return WebError(status, exc.message if where else str(exc), where)


#: a per-request folder (corefio.web.uploads.scratch) and what follows it up to the
#: upload's own name: ``/tmp/corefio-web-abc123/key/`` or ``.../project/``
_SCRATCH = re.compile(r"(?:[A-Za-z]:)?[\\/][^\s'\"]*?corefio-web-[A-Za-z0-9_]+(?:[\\/](?:key|response|input))?"
                      r"(?:[\\/]project)?[\\/]?")


def _server_prefixes() -> list[str]:
    found = {tempfile.gettempdir(), sys.prefix, sys.base_prefix, sys.exec_prefix, os.getcwd(),
             str(Path(__file__).resolve().parents[2]), str(Path.home())}
    return sorted((p for p in found if p and len(p) > 1), key=len, reverse=True)


def scrub(text: str | None) -> str | None:
    """``text`` without the server's paths: a scratch folder is dropped (what follows is
    the upload's own name), other server folders become ``<server>``."""
    if not text:
        return text
    text = _SCRATCH.sub("", text)
    for prefix in _server_prefixes():
        text = text.replace(prefix, "<server>")
    return text
