"""``corefio serve``: Popescu-Belis et al.'s (2004) online evaluator as a local web application.

A FastAPI application (the optional extra ``corefio[web]``) whose pages and JSON API
translate between HTTP and the library: :func:`corefio.read` reads the uploads,
:func:`corefio.score` with ``sync="all"`` gives the four score sets,
:func:`corefio.dumps` converts, :func:`corefio.checks.validation.validate_file` validates and
:func:`corefio.io.repair.repair_bytes` repairs. See :mod:`corefio.web.app`.

Uploads: one file per side in any readable format; an MMAX2 project (a directory) is
uploaded as a ``.zip`` of the project.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app", "serve"]

#: seconds a client may take to send its request line and headers
HEADER_TIMEOUT = 10.0
#: seconds an idle keep-alive connection is kept open
KEEP_ALIVE = 5
#: connections (and requests) at once; more are answered 503 by uvicorn
MAX_CONNECTIONS = 256


def create_app(max_upload_mb: float = 50, time_limit: float = 60, **options: Any) -> Any:
    """The ASGI application (``max_upload_mb`` per request, ``time_limit`` seconds for the
    work of one request; ``options``: see :func:`corefio.web.app.create_app`)."""
    from .app import create_app as _create

    return _create(max_upload_mb=max_upload_mb, time_limit=time_limit, **options)


def server_config(app: Any, host: str, port: int, log_level: str = "info",
                  header_timeout: float = HEADER_TIMEOUT) -> Any:
    """uvicorn's configuration with the connection limits of the module's constants."""
    import uvicorn

    from .edge import protocol

    return uvicorn.Config(app, host=host, port=port, log_level=log_level, http=protocol(header_timeout),
                          timeout_keep_alive=KEEP_ALIVE, limit_concurrency=MAX_CONNECTIONS,
                          h11_max_incomplete_event_size=16 * 1024, server_header=False)


def serve(host: str = "127.0.0.1", port: int = 8000, max_upload_mb: float = 50, time_limit: float = 60,
          **options: Any) -> None:
    """Run the web application with uvicorn on ``host:port`` (127.0.0.1 unless told otherwise)."""
    import uvicorn

    app = create_app(max_upload_mb=max_upload_mb, time_limit=time_limit, host=host, **options)
    uvicorn.Server(server_config(app, host, port)).run()
