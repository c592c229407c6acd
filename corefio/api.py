"""The public Python API: what ``import corefio`` offers, in one place.

Reading, writing and converting live with the formats (:mod:`corefio.formats.readwrite`);
this module adds what needs the layers above them: synchronisation and validation.
Scoring is :func:`corefio.score` (:mod:`corefio.scoring`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .diagnostics import Report

if TYPE_CHECKING:
    from .formats.readwrite import convert, dump_files, dumps, iter_read, loads, read, write
    from .model import Corpus, Document

__all__ = ["convert", "dump_files", "dumps", "iter_read", "loads", "read", "sync", "validate", "write"]

#: the functions of :mod:`corefio.formats.readwrite`, imported when first asked for: the
#: command line imports this module at its start, also for ``--version``
_READWRITE = frozenset(("convert", "dump_files", "dumps", "iter_read", "loads", "read", "write"))


def __getattr__(name: str):
    if name not in _READWRITE:
        raise AttributeError(f"module 'corefio.api' has no attribute {name!r}")
    from .formats import readwrite

    value = getattr(readwrite, name)
    globals()[name] = value  # later look-ups are plain attribute reads
    return value


def sync(
    key: "str | Path | Corpus | Document",
    response: "str | Path | Corpus | Document",
    strategy: str = "key",
    *,
    pair_by: str = "name",
    pairs_file: str | Path | None = None,
    report: Report | None = None,
    key_format: str | None = None,
    response_format: str | None = None,
) -> tuple["Corpus", "Corpus"]:
    """Key and response (paths, corpora or documents) synchronised: markables re-indexed
    by their targets and both sides given the ``strategy``'s markable set (``key``,
    ``response``, ``intersection``, ``union``; :mod:`corefio.compare.synchronisation`)."""
    from .model import Corpus, Document
    from .compare.synchronisation import pair_documents, synchronise_corpora

    report = report if report is not None else Report()

    def corpus(x: "str | Path | Corpus | Document", fmt: str | None) -> Corpus:
        if isinstance(x, Corpus):
            return x
        if isinstance(x, Document):
            return Corpus(documents=[x])
        from .formats.readwrite import read

        return read(x, fmt, report=report)

    k, r = corpus(key, key_format), corpus(response, response_format)
    pairs = pair_documents(k, r, pair_by, pairs_file, report)
    return synchronise_corpora(k, r, strategy, report, pairs,
                               key_file=key if isinstance(key, (str, Path)) else None,
                               response_file=response if isinstance(response, (str, Path)) else None)


def validate(path: str | Path, format: str | None = None) -> Report:
    """XSD (for XML formats) and semantic validation; returns every finding."""
    from .checks.validation import validate_file

    return validate_file(path, format)
