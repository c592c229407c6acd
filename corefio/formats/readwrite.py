"""Reading and writing through the registry: read, loads, iter_read, write, dumps, convert.

Every conversion is reader → pivot model → writer. Readers and writers add diagnostics
to a :class:`~corefio.diagnostics.Report`; nothing is printed. Before a writer runs,
:func:`corefio.formats.losses.report_losses` compares each document with the target format's
capabilities and reports what cannot be expressed. ``strict=True`` turns any warning (a
dialect deviation when reading, a loss when writing) into an exception.

Options are declared by each format (:class:`~corefio.formats.registry.Option`); an unknown
option is a :class:`~corefio.errors.UsageError`.

Conversions stream: :func:`convert` reads one document, writes it, and forgets it, so
its memory is bounded by the largest document, not by the corpus (for formats whose
reader can stream; the others are read whole).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..diagnostics import Report
from ..errors import CorefioError, LossError, UnknownFormatError
from ..io import files
from .losses import report_corpus_losses, report_losses
from .registry import FormatSpec, get_format, resolve_format, sniff_format
from ..io.source import Source

if TYPE_CHECKING:
    from ..model import Corpus, Document


def reader_for(source: Source, format: str | None) -> FormatSpec:
    """The format that reads ``source``: ``format`` if given, else from its name or bytes."""
    if format:
        spec = get_format(format)
    elif source.path is not None:
        spec = resolve_format(source.path, None)
    else:
        spec = sniff_format(source.read_bytes()[:4096], source.name)
    if not spec.can_read:
        raise UnknownFormatError(f"format {spec.name!r} cannot be read", file=source.name)
    return spec


def read(
    path: str | Path | Source,
    format: str | None = None,
    *,
    strict: bool = False,
    report: Report | None = None,
    **options: Any,
) -> "Corpus":
    """Read ``path`` into a :class:`Corpus` (format from ``format``, extension or content)."""
    source = Source.of(path)
    report = report if report is not None else Report(source.name)
    spec = reader_for(source, format)
    options = spec.check_options(options, "read")
    try:
        assert spec.read is not None
        corpus = spec.read(source, report=report, strict=strict, **options)
    except CorefioError as exc:
        raise exc.located(source.name) from None
    if strict:
        report.check_strict()
    return corpus


def loads(
    data: str | bytes,
    format: str | None = None,
    *,
    strict: bool = False,
    report: Report | None = None,
    name: str | None = None,
    **options: Any,
) -> "Corpus":
    """Read in-memory ``data`` (text or bytes); ``format`` or the content says which."""
    source = Source.from_text(data, name) if isinstance(data, str) else Source.of(data, name)
    return read(source, format, strict=strict, report=report, **options)


def iter_read(
    path: str | Path | Source,
    format: str | None = None,
    *,
    strict: bool = False,
    report: Report | None = None,
    **options: Any,
) -> Iterator["Document"]:
    """The documents of ``path`` one at a time (streamed where the format can)."""
    source = Source.of(path)
    report = report if report is not None else Report(source.name)
    spec = reader_for(source, format)
    options = spec.check_options(options, "read")
    try:
        if spec.stream is not None:
            yield from spec.stream(source, report=report, strict=strict, **options)
        else:
            assert spec.read is not None
            yield from spec.read(source, report=report, strict=strict, **options).documents
    except CorefioError as exc:
        raise exc.located(source.name) from None
    if strict:
        report.check_strict()


def corpus_header(corpus: "Corpus") -> "Corpus":
    """The corpus without its documents (what a streaming writer gets besides them)."""
    return corpus.copy(documents=[])


def report_uninterpreted(doc: "Document", spec: FormatSpec, report: Report) -> None:
    """``loss.uninterpreted``: what another format's layout holds that corefio does not
    interpret (brat's events and normalisations: a layout that has them says so by an
    ``uninterpreted()`` method giving their count and an example), which only that
    format's writer writes."""
    for owner, layout in doc.layout.items():
        count_of = getattr(layout, "uninterpreted", None)
        if owner == spec.name or count_of is None:
            continue
        count, example = count_of()
        if count:
            report.add("loss.uninterpreted", "warning",
                       f"{spec.name} cannot express {owner} annotations that corefio does not interpret (events, "
                       "normalisations, ...: only the " + owner + " writer writes them back); dropped",
                       document=doc.label, count=count, merge=True, example=example)


def _checked(documents: Iterable["Document"], spec: FormatSpec, report: Report, strict: bool) -> Iterator["Document"]:
    """The documents, each after its losses were reported (refused in strict mode)."""
    for doc in documents:
        before = len(report)
        report_losses(doc, spec.capabilities, report, spec.name)
        report_uninterpreted(doc, spec, report)
        if strict:
            _refuse_losses(report, before, spec)
        yield doc


def _refuse_losses(report: Report, before: int, spec: FormatSpec) -> None:
    losses = [d for d in report.diagnostics[before:] if d.severity in ("warning", "error")]
    if losses:
        first = losses[0]
        raise LossError(
            f"strict mode: writing {spec.name} would lose information "
            f"({len(losses)} kind(s)); first: [{first.code}] {first.message}"
            + (f" ({first.count} times)" if first.count > 1 else "")
        )


def _raw_pieces(corpus: "Corpus", documents: Iterable["Document"], spec: FormatSpec, report: Report,
                strict: bool, options: dict) -> Iterator[bytes | str]:
    """The writer's pieces as it gives them (text formats give str, XML formats bytes)."""
    assert spec.write is not None
    before = len(report)
    report_corpus_losses(corpus, spec.capabilities, report, spec.name)
    yield from spec.write(_checked(documents, spec, report, strict), corpus=corpus, report=report, **options)
    if strict:
        _refuse_losses(report, before, spec)


def _pieces(corpus: "Corpus", documents: Iterable["Document"], spec: FormatSpec, report: Report,
            strict: bool, options: dict) -> Iterator[bytes]:
    for piece in _raw_pieces(corpus, documents, spec, report, strict, options):
        yield piece.encode("utf-8") if isinstance(piece, str) else piece


def _writer(format: str) -> FormatSpec:
    spec = get_format(format)
    if not spec.can_write:
        raise UnknownFormatError(f"format {spec.name!r} cannot be written")
    return spec


def _as_corpus(corpus: "Corpus | Document") -> "Corpus":
    from ..model import Corpus, Document

    return Corpus(documents=[corpus]) if isinstance(corpus, Document) else corpus


def dumps(
    corpus: "Corpus | Document",
    format: str,
    *,
    strict: bool = False,
    report: Report | None = None,
    **options: Any,
) -> str | bytes:
    """Serialise to ``format`` in memory; losses go to ``report``. Text formats give
    ``str``, XML formats ``bytes`` (whatever the writer yields); a multi-file format gives the bytes of its files
    joined (use :func:`dump_files` for the files)."""
    corpus = _as_corpus(corpus)
    report = report if report is not None else Report()
    spec = _writer(format)
    options = spec.check_options(options, "write")
    if spec.write is None:
        files = dump_files(corpus, format, strict=strict, report=report, **options)
        return b"".join(files[name] for name in sorted(files))
    pieces = list(_raw_pieces(corpus_header(corpus), corpus.documents, spec, report, strict, options))
    if all(isinstance(piece, str) for piece in pieces):
        return "".join(pieces)  # type: ignore[arg-type]
    return b"".join(p.encode("utf-8") if isinstance(p, str) else p for p in pieces)


def dump_files(
    corpus: "Corpus | Document",
    format: str,
    *,
    strict: bool = False,
    report: Report | None = None,
    **options: Any,
) -> dict[str, bytes]:
    """A multi-file format's files as ``{relative path: bytes}`` (a one-file format
    gives one entry)."""
    corpus = _as_corpus(corpus)
    report = report if report is not None else Report()
    spec = _writer(format)
    options = spec.check_options(options, "write")
    if spec.write_files is None:
        data = b"".join(_pieces(corpus_header(corpus), corpus.documents, spec, report, strict, options))
        return {f"corpus{spec.extensions[0] if spec.extensions else ''}": data}
    before = len(report)
    report_corpus_losses(corpus, spec.capabilities, report, spec.name)
    for doc in corpus.documents:
        report_losses(doc, spec.capabilities, report, spec.name)
        report_uninterpreted(doc, spec, report)
    if strict:
        _refuse_losses(report, before, spec)
    return spec.write_files(corpus, report=report, **options)


def write(
    corpus: "Corpus | Document | Iterable[Document]",
    path: str | Path,
    format: str | None = None,
    *,
    strict: bool = False,
    report: Report | None = None,
    inputs: Iterable[str | Path] = (),
    header: "Corpus | None" = None,
    force: bool = False,
    **options: Any,
) -> Report:
    """Write ``corpus`` (or documents one at a time, with ``header`` for corpus-level
    data) to ``path`` atomically; never overwrite one of ``inputs``. A multi-file
    format writes the directory ``path``, which must be new or empty unless ``force``
    (then only the files of the project are written over). A one-file output that
    exists is replaced."""
    from ..model import Corpus, Document

    report = report if report is not None else Report(str(path))
    spec = resolve_format(path, format, for_writing=True)
    if not spec.can_write:
        raise UnknownFormatError(f"format {spec.name!r} cannot be written", file=path)
    options = spec.check_options(options, "write")
    inputs = list(inputs)
    try:
        if spec.write is None:
            documents = [corpus] if isinstance(corpus, Document) else list(corpus) \
                if not isinstance(corpus, Corpus) else corpus.documents
            whole = corpus if isinstance(corpus, Corpus) else (
                Corpus(documents=documents) if header is None
                else header.copy(documents=documents))
            written = dump_files(whole, spec.name, strict=strict, report=report, **options)
            if writes_one_pair(spec, Path(path)):
                _write_pair(written, Path(path), spec, report, strict, inputs)
            else:
                files.atomic_write_tree(path, written, inputs=inputs, force=force)
            return report
        if isinstance(corpus, Document):
            corpus = Corpus(documents=[corpus])
        stream: Iterable[Document]
        if isinstance(corpus, Corpus):
            head, stream = corpus_header(corpus), corpus.documents
        else:
            head, stream = (header if header is not None else Corpus()), corpus
        files.atomic_write(path, _pieces(head, stream, spec, report, strict, options), inputs=inputs)
    except CorefioError as exc:
        raise exc.located(path) from None
    return report


def writes_one_pair(spec: FormatSpec, path: Path) -> bool:
    """brat (or LitBank TSV) written to a ``.ann`` file the user named, not a directory."""
    return spec.name in ("brat", "litbank-tsv") and path.suffix.lower() == ".ann" and not path.is_dir()


def _write_pair(written: dict[str, bytes], path: Path, spec: FormatSpec, report: Report, strict: bool,
                inputs: list) -> None:
    """The one document of a brat (or LitBank TSV) collection as ``path`` (``out.ann``)
    and the ``.txt`` beside it (:func:`corefio.formats.brat.named_pair` says what such a
    pair cannot hold); an input is never written over, its ``.txt`` neither."""
    from .brat import named_pair

    before = len(report)
    placed = named_pair(written, path, report, str(inputs[0]) if inputs else "the corpus", spec.name)
    if strict:
        _refuse_losses(report, before, spec)
    kept = [Path(p) for p in inputs]
    kept += [p.with_suffix(".txt") for p in kept if p.suffix.lower() == ".ann"]
    for target, data in placed.items():
        files.atomic_write(target, data, inputs=kept)


def convert(
    source: str | Path,
    target: str | Path,
    from_format: str | None = None,
    to_format: str | None = None,
    *,
    strict: bool = False,
    report: Report | None = None,
    read_options: dict[str, Any] | None = None,
    force: bool = False,
    progress: Callable[[int], None] | None = None,
    **options: Any,
) -> Report:
    """Read ``source``, write ``target`` (reader → pivot → writer), one document at a
    time where the reader streams. ``force``: see :func:`write`. ``progress`` is called
    with 1 as each document is written (a progress bar's ``update``)."""
    report = report if report is not None else Report(str(source))
    src = Source.of(source)
    spec = reader_for(src, from_format)
    write_report = Report(str(target))
    read_options = spec.check_options(read_options or {}, "read")
    try:
        if spec.stream is not None:
            stream = spec.stream(src, report=report, strict=strict, **read_options)
            first = next(stream, None)
            # corpus-level data (RAF metadata, schemes) is known once the first document is
            header = getattr(stream, "header", None)
            documents: Iterable[Document] = itertools.chain([] if first is None else [first], stream)
            if strict:  # a reading warning refuses the conversion before the output exists
                documents = _strictly(documents, report)
            if progress is not None:
                documents = _counted(documents, progress)
            write(documents, target, to_format, strict=strict, report=write_report, inputs=[source],
                  header=header, force=force, **options)
        else:
            corpus = read(src, spec.name, strict=strict, report=report, **read_options)
            write(corpus, target, to_format, strict=strict, report=write_report, inputs=[source], force=force,
                  **options)
    except CorefioError as exc:
        if isinstance(exc, LossError):  # strict mode: the losses that refused the output
            report.extend(write_report)
        # any other failure writes nothing: the losses of documents converted before it
        # are not reported (how many there were would depend on how far the reader had
        # read ahead when it failed)
        raise exc.located(src.name) from None
    report.extend(write_report)
    return report


def _counted(documents: Iterable["Document"], progress: Callable[[int], None]) -> Iterator["Document"]:
    for doc in documents:
        yield doc
        progress(1)


def _strictly(documents: Iterable["Document"], report: Report) -> Iterator["Document"]:
    for doc in documents:
        report.check_strict()
        yield doc
    report.check_strict()
