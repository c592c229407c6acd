"""Locate the XSD schemas and XSLT stylesheets, in a wheel or in a source checkout.

The repository keeps them at the top level (``schemas/``, ``xslt/``); the wheel ships
them as ``corefio/schemas`` and ``corefio/xslt`` (see ``pyproject.toml``).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import CorefioError

_PACKAGE_DIR = Path(__file__).resolve().parent


def resource_dir(kind: str) -> Path:
    """The directory holding resources of ``kind`` (``"schemas"`` or ``"xslt"``)."""
    for candidate in (_PACKAGE_DIR / kind, _PACKAGE_DIR.parent / kind):
        if candidate.is_dir():
            return candidate
    raise CorefioError(f"corefio installation is incomplete: no {kind}/ directory found")


def resource_path(kind: str, name: str) -> Path:
    path = resource_dir(kind) / name
    if not path.is_file():
        raise CorefioError(f"corefio installation is incomplete: {kind}/{name} is missing")
    return path


def schema_path(name: str) -> Path:
    return resource_path("schemas", name)


def stylesheet_path(name: str) -> Path:
    return resource_path("xslt", name)
