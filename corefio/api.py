"""The public functions: read, write, dumps, convert, validate (score: corefio.scoring).

Every conversion is reader → pivot model → writer. Readers and writers add diagnostics to
a :class:`~corefio.diagnostics.Report`; nothing is printed. ``strict=True`` turns any
warning (a dialect deviation when reading, a loss when writing) into an exception.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .diagnostics import Report
from .errors import CorefioError, LossError, UnknownFormatError
from .files import atomic_write
from ._lazy import LazyModule
from .registry import get_format, resolve_format

#: the pydantic model, imported on first use (scoring CoNLL never needs it)
model = LazyModule("corefio.model")


def read(
    path: str | Path,
    format: str | None = None,
    *,
    strict: bool = False,
    report: Report | None = None,
    **options: Any,
) -> model.Corpus:
    """Read ``path`` into a :class:`Corpus` (format from ``format``, extension or content)."""
    report = report if report is not None else Report(str(path))
    spec = resolve_format(path, format)
    if not spec.can_read:
        raise UnknownFormatError(f"format {spec.name!r} cannot be read", file=path)
    try:
        corpus = spec.read(path, report=report, strict=strict, **options)
    except CorefioError as exc:
        raise exc.located(path)
    if strict:
        report.check_strict()
    return corpus


def dumps(
    corpus: model.Corpus | model.Document,
    format: str,
    *,
    strict: bool = False,
    report: Report | None = None,
    **options: Any,
) -> str | bytes:
    """Serialise to ``format`` in memory; losses go to ``report``."""
    if isinstance(corpus, model.Document):
        corpus = model.Corpus(documents=[corpus])
    report = report if report is not None else Report()
    spec = get_format(format)
    if not spec.can_write:
        raise UnknownFormatError(f"format {spec.name!r} cannot be written")
    before = len(report)
    data = spec.dumps(corpus, report=report, strict=strict, **options)
    if strict:
        losses = [d for d in report.diagnostics[before:] if d.severity in ("warning", "error")]
        if losses:
            first = losses[0]
            raise LossError(
                f"strict mode: writing {spec.name} would lose information "
                f"({len(losses)} kind(s)); first: [{first.code}] {first.message}"
                + (f" ({first.count} times)" if first.count > 1 else "")
            )
    return data


def write(
    corpus: model.Corpus | model.Document,
    path: str | Path,
    format: str | None = None,
    *,
    strict: bool = False,
    report: Report | None = None,
    inputs: Iterable[str | Path] = (),
    **options: Any,
) -> Report:
    """Write ``corpus`` to ``path`` atomically; never overwrite one of ``inputs``."""
    report = report if report is not None else Report(str(path))
    spec = resolve_format(path, format, for_writing=True)
    try:
        data = dumps(corpus, spec.name, strict=strict, report=report, **options)
    except CorefioError as exc:
        raise exc.located(path)
    atomic_write(path, data, inputs=inputs)
    return report


def convert(
    source: str | Path,
    target: str | Path,
    from_format: str | None = None,
    to_format: str | None = None,
    *,
    strict: bool = False,
    report: Report | None = None,
    **options: Any,
) -> Report:
    """Read ``source``, write ``target`` (reader → pivot → writer)."""
    report = report if report is not None else Report(str(source))
    corpus = read(source, from_format, strict=strict, report=report)
    write_report = Report(str(target))
    try:
        write(corpus, target, to_format, strict=strict, report=write_report, inputs=[source], **options)
    finally:
        report.extend(write_report)
    return report


def validate(path: str | Path, format: str | None = None) -> Report:
    """XSD (for XML formats) and semantic validation; returns every finding."""
    from .validate import validate_file

    return validate_file(path, format)
