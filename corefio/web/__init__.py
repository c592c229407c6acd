"""``corefio serve``: seed 003's online evaluator as a local web application.

A FastAPI application (the optional extra ``corefio[web]``) whose pages and JSON API
translate between HTTP and the library: :func:`corefio.loads` reads the uploads,
:func:`corefio.score` with ``sync="all"`` gives the four score sets,
:func:`corefio.dumps` converts, :func:`corefio.validation.validate_file` validates and
:func:`corefio.repair.repair_bytes` repairs. See :mod:`corefio.web.app`.

Uploads: one file per side in any readable format; an MMAX2 project (a directory) is
uploaded as a ``.zip`` of the project.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app", "serve"]


def create_app(max_upload_mb: float = 50, time_limit: float = 60) -> Any:
    """The ASGI application (``max_upload_mb`` per request, ``time_limit`` seconds per scoring)."""
    from .app import create_app as _create

    return _create(max_upload_mb=max_upload_mb, time_limit=time_limit)


def serve(host: str = "127.0.0.1", port: int = 8000, max_upload_mb: float = 50, time_limit: float = 60) -> None:
    """Run the web application with uvicorn on ``host:port`` (127.0.0.1 unless told otherwise)."""
    import uvicorn

    uvicorn.run(create_app(max_upload_mb=max_upload_mb, time_limit=time_limit), host=host, port=port,
                log_level="info")
