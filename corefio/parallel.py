"""Work on all the cores of one machine: ``--jobs N`` for the commands.

corefio's work is per document: reading, checking, describing and scoring a document
need nothing from the others, and what a file's result needs of its documents is a list
(info, validate) or sums of integer counts (score). So the work is cut into *pieces*,
each piece done by one process of a :class:`~concurrent.futures.ProcessPoolExecutor`,
and the results are put together in input order:

* a piece is a whole file, or, for a large file of a format whose document boundaries
  can be found cheaply (``FormatSpec.document_starts``: the ``#begin document`` lines
  of CoNLL-2012, the lines of JSON lines), a run of its documents given by a byte
  range; a worker reads only the bytes of its piece, one document at a time, and
  sends back what it found about them (document descriptions, diagnostics, score
  counts; only ``sync`` sends documents back, at most :data:`SYNC_RUN` pairs a
  piece): memory per worker is about one document, and at most ``2 × jobs`` pieces
  are under way at once;
* results are taken in input order (:func:`ordered_map`), so the output is the one a
  single process gives, byte for byte; a piece's error is raised when its turn comes,
  so the error (message, location, exit code) is the one a single process meets first;
* diagnostics are added to the file's report as they would have been added in one
  process, repeats merged the same way (:func:`replay`);
* scores: each piece is a run of document pairs scored by the scoring engine's own
  code into a :class:`~corefio.scoring.engine.Share` (integer and fraction sums), and the
  shares are summed by :func:`corefio.scoring.engine.finish`, never averaged.

``jobs=1`` (or work of a single piece) is done in this process, without a pool; the
files and documents are then read exactly as without this module (``jobs=1`` never cuts
a file into pieces). Progress is counted in
documents: the ``progress`` callbacks are called with the number of documents each
piece held, in this process, whatever process did the work.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from itertools import chain, islice
from pathlib import Path
from typing import Any

from .diagnostics import Diagnostic, Report
from .errors import CorefioError, LossError
from .io.spool import Spool

#: a file at least this large is cut into pieces of documents when jobs > 1
SPLIT_BYTES = 1 << 20
#: pieces per worker a large file is cut into (more pieces: better balance, finer progress)
PIECES_PER_JOB = 8
#: pieces under way (sent or being worked on) per worker
IN_FLIGHT_PER_JOB = 2

#: most document pairs in one piece of ``sync`` (its synchronised documents come back whole)
SYNC_RUN = 4

Progress = Callable[[int], None]


def available_cores() -> int:
    """The cores this process may run on (the default of ``--jobs``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


#: the environment variable that sets the default of ``--jobs``
WORKERS_VARIABLE = "COREFIO_WORKERS"


def default_jobs() -> int:
    """The default of ``--jobs``: ``COREFIO_WORKERS`` when it is set (a whole number of at
    least 1; anything else is a usage error naming it), else :func:`available_cores`."""
    value = os.environ.get(WORKERS_VARIABLE, "").strip()
    if not value:
        return available_cores()
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1 or not value.isascii():
        from .errors import UsageError

        raise UsageError(f"{WORKERS_VARIABLE}={value!r}: the number of processes is a whole number of at least 1")
    return jobs


class WorkerDied(CorefioError):
    """A worker process ended without a result (killed, or out of memory)."""

    exit_code = 1


# -- the pool --------------------------------------------------------------------------------
def _start_worker(parent: int, initializer: Callable[..., None] | None, initargs: tuple) -> None:
    from .scoring.engine import die_with_parent

    die_with_parent(parent)  # a worker never outlives the command (killed with SIGKILL, say)
    if initializer is not None:
        initializer(*initargs)


def _context() -> Any:
    """Fork where there is fork (workers start at once, inheriting what is loaded)."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else methods[0])


def ordered_map(func: Callable[[Any], Any], items: Iterable[Any], jobs: int, *,
                initializer: Callable[..., None] | None = None, initargs: tuple = ()) -> Iterator[Any]:
    """``func(item)`` for every item, in the order of ``items``, computed by ``jobs``
    processes (``jobs`` ≤ 1: in this process, one after the other). At most
    ``IN_FLIGHT_PER_JOB × jobs`` items are sent before their results are taken, so
    neither the items nor the results pile up. An error raised by ``func`` is raised
    here when its item's turn comes; the items not yet done are then cancelled.
    ``initializer(*initargs)`` runs once in each worker first (with ``jobs`` ≤ 1, here)."""
    iterator = iter(items)
    first = list(islice(iterator, 2))
    if jobs <= 1 or len(first) < 2:  # one item: no pool to start
        if initializer is not None:
            initializer(*initargs)
        for item in chain(first, iterator):
            yield func(item)
        return
    iterator = chain(first, iterator)
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=_context(), initializer=_start_worker,
                               initargs=(os.getpid(), initializer, initargs))
    pending: deque[Future] = deque()
    try:
        for item in islice(iterator, IN_FLIGHT_PER_JOB * jobs):
            pending.append(pool.submit(func, item))
        while pending:
            future = pending.popleft()
            try:
                result = future.result()
            except BrokenProcessPool:
                raise WorkerDied("a worker process ended without a result (killed, or out of memory?)") from None
            for item in islice(iterator, 1):
                pending.append(pool.submit(func, item))
            yield result
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# -- diagnostics from another process ------------------------------------------------------------
#: a diagnostic and whether it was added with ``merge=True`` (repeats merged into it)
Found = tuple[Diagnostic, bool]


def found_in(report: Report) -> list[Found]:
    """The diagnostics of ``report`` with their merging flag, to be sent to another process."""
    merging = {id(d) for d in report._merge.values()}
    return [(d, id(d) in merging) for d in report]


def replay(report: Report, found: Iterable[Found]) -> None:
    """Add diagnostics found elsewhere to ``report`` as if they were found here, in
    order: a merging one joins an equal merging one already in the report (counts
    summed, at most five examples), as :meth:`Report.add` does. One that merges with
    nothing is added as it is: ``add`` would make it anew, and a command that puts its
    reports together (``sync``) would hold every per-document finding twice."""
    for d, merging in found:
        if not merging and len(d.examples) <= 5 and (d.file is not None or report.file is None):
            report.extend([d])
            continue
        diag = report.add(d.code, d.severity, d.message, line=d.line, column=d.column, document=d.document,
                          file=d.file, count=d.count, merge=merging, example=d.examples[0] if d.examples else None)
        for example in d.examples[1:]:
            if len(diag.examples) >= 5:
                break
            diag.examples.append(example)


# -- pieces of files --------------------------------------------------------------------------
@dataclass(frozen=True)
class Piece:
    """Part of the work on one file: the whole file, or the documents of a byte range."""

    #: the file's number among the inputs
    file_number: int
    path: str
    format: str | None
    #: (start, end, number of the first document, its line), or None: the whole file
    byte_range: tuple[int, int, int, int] | None = None
    #: how many documents the piece holds, when known before reading it
    documents: int | None = None


def _splittable(path: str, format: str | None) -> Any:
    """The format spec of ``path`` if it can be cut at document boundaries, else None."""
    from .formats.registry import resolve_format

    try:
        spec = resolve_format(Path(path), format)
    except CorefioError:
        return None
    return spec if spec.document_starts is not None and spec.stream_range is not None else None


def pieces_of(number: int, path: str, format: str | None, jobs: int) -> list[Piece]:
    """The pieces of one file: runs of documents when ``jobs`` > 1 and the file is large
    and of a format that finds its documents cheaply; the whole file otherwise (also
    when finding the documents fails: the whole file is then read, and its reader
    reports the problem as one process would)."""
    whole = [Piece(number, path, format)]
    if jobs <= 1:
        return whole
    try:
        size = Path(path).stat().st_size
    except OSError:
        return whole
    spec = _splittable(path, format) if size >= SPLIT_BYTES else None
    if spec is None:
        return whole
    from .io.source import Source

    try:
        starts = spec.document_starts(Source.of(path))
    except CorefioError:
        return whole
    if len(starts) < 2:
        return whole
    target = max(SPLIT_BYTES // 4, size // (jobs * PIECES_PER_JOB))
    out: list[Piece] = []
    first = 0
    while first < len(starts):
        last = first
        while last + 1 < len(starts) and starts[last + 1][0] - starts[first][0] < target:
            last += 1
        end = starts[last + 1][0] if last + 1 < len(starts) else size
        out.append(Piece(number, path, spec.name, (starts[first][0], end, first, starts[first][1]),
                         last - first + 1))
        first = last + 1
    return out


def all_pieces(paths: Sequence[str | Path], format: str | None, jobs: int) -> Iterator[Piece]:
    for number, path in enumerate(paths):
        yield from pieces_of(number, str(path), format, jobs)


def documents_of(piece: Piece, report: Report, strict: bool = False) -> Iterator[Any]:
    """The documents of a piece, one at a time, located errors as one process reads them."""
    from .formats import readwrite as api

    if piece.byte_range is None:
        yield from api.iter_read(piece.path, piece.format, report=report, strict=strict)
        return
    from .formats.registry import get_format
    from .io.source import Source

    source = Source.of(piece.path)
    assert piece.format is not None  # pieces_of names the format of every run it cuts
    stream_range = get_format(piece.format).stream_range
    assert stream_range is not None  # and cuts only such formats' files
    try:
        yield from stream_range(source, piece.byte_range, report=report, strict=strict)
    except CorefioError as exc:
        raise exc.located(source.name) from None


def by_file(results: Iterable[tuple[Piece, Any]]) -> Iterator[tuple[int, list[tuple[Piece, Any]]]]:
    """Results of pieces grouped by file, in order: ``(file number, [(piece, result)])``."""
    current: int | None = None
    group: list[tuple[Piece, Any]] = []
    for piece, result in results:
        if current is not None and piece.file_number != current:
            yield current, group
            group = []
        current = piece.file_number
        group.append((piece, result))
    if current is not None:
        yield current, group


class _PieceTask:
    """``func`` whose result comes back with its piece (a class: it travels by pickle)."""

    def __init__(self, func: Callable[[Piece], Any]) -> None:
        self.func = func

    def __call__(self, piece: Piece) -> tuple[Piece, Any]:
        return piece, self.func(piece)


# -- info ------------------------------------------------------------------------------------
@dataclass
class PieceOutcome:
    """What a worker sends back about a piece: a result, its diagnostics, how many
    documents it held, and the error that stopped its reading (raised in this process
    when the piece's turn comes)."""

    result: Any
    found: list[Found]
    documents: int
    error: CorefioError | None = None


#: with ``jobs=1``, the progress callback, called as each document is read
_each_document: Progress | None = None


def _describe(piece: Piece) -> PieceOutcome:
    from .checks.info import document_info

    report = Report(piece.path)
    infos = []
    try:
        for doc in documents_of(piece, report):
            infos.append(document_info(doc))
            if _each_document is not None:
                _each_document(1)
    except CorefioError as exc:
        return PieceOutcome(infos, found_in(report), len(infos), exc)
    return PieceOutcome(infos, found_in(report), len(infos))


def info(paths: Sequence[str | Path], format: str | None, jobs: int, *,
         progress: Progress | None = None) -> Iterator[tuple[int, Report, list]]:
    """``(file number, report, document descriptions)`` for every file, in order, as
    :func:`corefio.checks.info.corpus_info` over :func:`corefio.api.iter_read` gives them; the
    error that stops the reading of a file is raised when that file's turn comes."""
    global _each_document
    in_process = jobs <= 1
    _each_document = progress if in_process else None
    try:
        results = ordered_map(_PieceTask(_describe), all_pieces(paths, format, jobs), jobs)
        for number, group in by_file(results):
            report = Report(str(paths[number]))
            infos: list = []
            for _, outcome in group:
                replay(report, outcome.found)
                infos.extend(outcome.result)
                if progress is not None and not in_process:
                    progress(outcome.documents)
                if outcome.error is not None:
                    raise outcome.error
            yield number, report, infos
    finally:
        _each_document = None


# -- validate --------------------------------------------------------------------------------
@dataclass
class _Checked:
    """A validated piece: the reader's findings, the error that stopped it, the model's
    findings, the documents' keys."""

    found: list[Found]
    error: CorefioError | None
    checks: list[Found]
    names: dict[tuple, int]


def _validate_piece(piece: Piece) -> Any:
    """A whole file: its report and how many documents it held; a run of documents:
    what :class:`_Checked` holds."""
    from .checks import validation

    if piece.byte_range is None:
        counted: list[int] = []
        if _each_document is not None:  # in this process: counted as they come
            return validation.validate_file(piece.path, piece.format, progress=_each_document), 0
        return validation.validate_file(piece.path, piece.format, progress=counted.append), sum(counted)
    from .formats.registry import get_format
    from .io.source import Source

    report, checks = Report(piece.path), Report(piece.path)
    names: dict[tuple, int] = defaultdict(int)
    spec = get_format(piece.format or "conll")
    error = validation.read_and_check(spec, Source.of(piece.path), report, checks, names,
                                      documents_of(piece, report), first_document=piece.byte_range[2])
    return _Checked(found_in(report), error, found_in(checks), dict(names))


def validate(paths: Sequence[str | Path], format: str | None, jobs: int, *,
             progress: Progress | None = None) -> Iterator[tuple[int, Report]]:
    """``(file number, report)`` for every file, in order: the report
    :func:`corefio.checks.validation.validate_file` gives, whether a file was validated whole
    or in pieces by several processes (the pieces' findings are put together in the
    order and with the merging of :func:`~corefio.checks.validation.validate_file`)."""
    global _each_document
    _each_document = progress if jobs <= 1 else None
    try:
        yield from _validated(paths, format, jobs, progress)
    finally:
        _each_document = None


def _validated(paths: Sequence[str | Path], format: str | None, jobs: int,
               progress: Progress | None) -> Iterator[tuple[int, Report]]:
    from .checks import validation
    from .formats.registry import get_format
    from .io.source import Source

    results = ordered_map(_PieceTask(_validate_piece), all_pieces(paths, format, jobs), jobs)
    for number, group in by_file(results):
        if group[0][0].byte_range is None:
            report, documents = group[0][1]
            if progress is not None and documents:
                progress(documents)
            yield number, report
            continue
        path = str(paths[number])
        report, checks = Report(path), Report(path)
        names: dict[tuple, int] = defaultdict(int)
        error = None
        for piece, checked in group:
            if progress is not None:
                progress(piece.documents or 0)
            if error is not None:
                continue  # past the piece where reading stopped: one process stops there too
            replay(report, checked.found)
            replay(checks, checked.checks)
            for key, n in checked.names.items():
                names[key] += n
            error = checked.error
        if error is not None and not report.errors:  # else the reader reported it already
            report.add_error(error, validation._read_error_code(error))
        validation._repairs_are_errors(report.diagnostics)
        if error is None:
            validation.reader_findings_at_end(get_format(group[0][0].format or "conll"), Source.of(path), report,
                                              names)
            report.extend(checks)
            validation._duplicate_documents(names, report)
        yield number, report


# -- score -----------------------------------------------------------------------------------
_score_job: Any = None


def _set_score_job(job: Any) -> None:
    global _score_job
    _score_job = job


def _score_piece(run: list) -> Any:
    """Score a run of ``(index, (key document, response document))`` pairs: how many
    pairs there were, and the Share."""
    from .scoring.engine import _score_run, _Work

    job, key_docs, response_docs = _score_job
    report = Report()
    share = _score_run(job, _Work(key_docs, response_docs, run), report)
    return len(run), share, found_in(report)


#: runs the document pairs of a score are cut into, whatever ``--jobs`` is
SCORE_RUNS = 32


def score_run_size(pairs: int) -> int:
    """How many document pairs one run of :func:`score_runner` scores: the pairs cut
    into :data:`SCORE_RUNS` runs (fewer when there are fewer pairs), the same for any
    number of processes. Some corpus scores (the information measure H) add floating
    point numbers run by run: the same runs, added in the same order, give the same
    bits with ``--jobs 1`` as with ``--jobs 8``."""
    return max(1, -(-pairs // SCORE_RUNS))


def score_runner(jobs: int, progress: Progress | None = None) -> Callable[..., list]:
    """What the scoring engine calls to score the matched document pairs of two files
    (``runner=`` of :func:`corefio.scoring.engine.score`): runs of pairs (cut the same
    way whatever ``jobs`` is: :func:`score_run_size`), each scored into a Share by one
    of ``jobs`` processes; the shares come back in order."""

    def run(job: Any, key_docs: list, response_docs: list, pairs: list) -> list:
        indexed = list(enumerate(pairs))
        size = score_run_size(len(indexed))
        runs = [indexed[k:k + size] for k in range(0, len(indexed), size)]
        shares = []
        found = Report()  # what the runs found, merged as one run would have merged it
        try:
            for documents, share, share_found in ordered_map(_score_piece, runs, jobs, initializer=_set_score_job,
                                                             initargs=((job, key_docs, response_docs),)):
                shares.append(share)
                replay(found, share_found)
                share.diagnostics = []
                if progress is not None:
                    progress(documents)
        finally:
            # in this process (one job), the job held both files' document lists past
            # the scoring: compare kept the first system's while scoring the next
            _set_score_job(None)
        if shares:
            shares[0].diagnostics = found.diagnostics
        return shares

    return run


class _ScoredPair:
    """A pair of files scored in a worker: the shares, the key documents, what was found."""

    def __init__(self, scorer: Any) -> None:
        self.scorer = scorer

    def __call__(self, pair: Any) -> tuple[list, list, list[Found]]:
        report = Report()
        shares, names = self.scorer(pair, report)
        return shares, names, found_in(report)


def file_runner(jobs: int, progress: Progress | None = None) -> Callable[..., Iterator[tuple[list, list]]]:
    """What the scoring engine calls to score two lists of files (``file_runner=`` of
    :func:`corefio.scoring.engine.score`): each pair of files scored whole by one of
    ``jobs`` processes; the shares come back in order, what was found is added to the
    report as one process adds it."""

    def run(scorer: Any, pairs: list, report: Report) -> Iterator[tuple[list, list]]:
        for shares, names, found in ordered_map(_ScoredPair(scorer), pairs, jobs):
            replay(report, found)
            if progress is not None:
                progress(len(names))
            yield shares, names

    return run


# -- convert ---------------------------------------------------------------------------------
def output_path(source: Path, target_dir: Path, to: str) -> Path:
    """Where ``convert`` of many files writes ``source``: in ``target_dir``, its name up
    to the first dot followed by the format's extension (a directory for MMAX2)."""
    from .formats.registry import get_format

    spec = get_format(to)
    stem = source.name.split(".", 1)[0] if not source.is_dir() else source.name
    if spec.directory:
        return target_dir / stem
    extension = (tuple(spec.extensions) + tuple(spec.ambiguous_extensions) + ("",))[0]
    return target_dir / f"{stem}{extension}"


@dataclass(frozen=True)
class Conversion:
    """One file to convert (what :func:`corefio.api.convert` is given)."""

    source: str
    target: str
    from_format: str | None
    to_format: str
    strict: bool
    read_options: dict
    write_options: dict
    force: bool


def _convert_file(task: Conversion, staged: str | None = None) -> tuple[Report, CorefioError | None, int]:
    """Convert one file whole, into ``task.target`` or, when ``staged`` is given, into
    that path instead (what it reports then names ``task.target``, as if written there)."""
    from .formats import readwrite as api

    report = Report(task.source)
    written: list[int] = []
    error: CorefioError | None = None
    try:
        api.convert(task.source, staged or task.target, task.from_format, task.to_format, strict=task.strict,
                    report=report, read_options=task.read_options, force=task.force, progress=written.append,
                    **task.write_options)
    except CorefioError as exc:
        error = exc
    if staged is not None:
        _unstage(report, error, staged, task.target)
    return report, error, len(written)


def _unstage(report: Report, error: CorefioError | None, staged: str, target: str) -> None:
    """Name ``target`` wherever the diagnostics or the error name the staged path."""
    def moved(name: str | None) -> str | None:
        if name is None or not name.startswith(staged):
            return name
        return target + name[len(staged):]

    for d in report:
        d.file = moved(d.file)
    if error is not None:
        error.file = moved(error.file)


def _reading_part(report: Report, target: str) -> Report:
    """What reading found, without what writing ``target`` reported: what one process
    reports when the output is refused (:func:`corefio.api.convert` lists the losses
    only of an output it wrote)."""
    kept = Report(report.file)
    kept.extend(d for d in report if not (d.file or "").startswith(target))
    return kept


def _staged_file(job: tuple[Conversion, str]) -> tuple[Report, CorefioError | None, int]:
    return _convert_file(*job)


def _put_in_place(staged: Path, target: Path, inputs: list, force: bool = False) -> None:
    """Write what a worker left at ``staged`` (a file, or a directory of files: an
    MMAX2 project...) to ``target`` as writing there would have (the same checks:
    inputs never overwritten, a project directory empty unless ``force``), one file
    at a time, each atomically."""
    from .io import files

    if staged.is_dir():
        tree = {member.relative_to(staged).as_posix(): _chunks_of(member)
                for member in sorted(staged.rglob("*")) if member.is_file()}
        files.atomic_write_tree(target, tree, inputs=inputs, force=force)
    else:
        files.atomic_write(target, _chunks_of(staged), inputs=inputs)


#: bytes read at a time from a worker's output when it is put in place
COPY_BYTES = 1 << 20


def _chunks_of(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as f:
        while chunk := f.read(COPY_BYTES):
            yield chunk


def convert(tasks: Sequence[Conversion], jobs: int) -> Iterator[tuple[Report, CorefioError | None, int]]:
    """Each file converted by one of ``jobs`` processes: its report, the error that
    stopped it and how many documents it held, in the order of ``tasks``. Each process
    reads and writes one document at a time, as :func:`corefio.api.convert` does.

    With several processes, a worker writes into a staging directory (hidden, in the
    output directory, removed at the end) and this process puts each output in place
    in input order, with the checks a direct write makes: so when a file fails, the
    files after it are not written, as with one process. The staged copy costs one
    more write of each output (on a page-cached disk, a small part of converting it)."""
    if jobs <= 1 or len(tasks) < 2:
        yield from ordered_map(_convert_file, tasks, 1)
        return
    import shutil

    from .io import files

    with files.staging_directory(Path(tasks[0].target).parent) as stage:
        staged = [stage / str(number) / Path(task.target).name for number, task in enumerate(tasks)]
        for path in staged:
            path.parent.mkdir()
        for task, path, (report, error, documents) in zip(
                tasks, staged, ordered_map(_staged_file, [(t, str(p)) for t, p in zip(tasks, staged)], jobs)):
            if error is None:
                try:
                    _put_in_place(path, Path(task.target), [task.source], task.force)
                except CorefioError as exc:
                    error = exc.located(task.source)
                    report = _reading_part(report, task.target)
                shutil.rmtree(path.parent, ignore_errors=True)
            yield report, error, documents
            if error is not None:
                return


# -- convert of one large file, in runs of documents ------------------------------------------------
@dataclass(frozen=True)
class _Run:
    """A run of documents of ``task.source`` to write to ``part`` (a file of its own)."""

    task: Conversion
    piece: Piece
    part: str


def in_runs(task: Conversion, jobs: int) -> list[Piece] | None:
    """The pieces ``task`` is converted in by :func:`convert_in_runs`, or None when it
    is converted whole: one process, a file too small to cut or of a format whose
    documents are not found cheaply, reader options given (the pieces' reader takes
    none), or a writer whose output is not the join of its documents' outputs
    (``FormatSpec.concatenates``)."""
    from .formats.registry import get_format

    if jobs <= 1 or task.read_options or str(task.source) == "-" or not get_format(task.to_format).concatenates:
        return None
    pieces = pieces_of(0, task.source, task.from_format, jobs)
    return pieces if len(pieces) > 1 else None


def _write_run(run: _Run) -> PieceOutcome:
    """Read a run's documents and write them, as :func:`corefio.api.convert` does the
    whole file: reading findings in one report, the writer's in another (sent back
    as ``result``); the error that stopped the run located as ``convert`` locates it."""
    from .formats import readwrite as api
    from .formats.registry import get_format
    from .model import Corpus

    task = run.task
    spec = get_format(task.to_format)
    options = spec.check_options(dict(task.write_options), "write")
    report, write_report = Report(task.source), Report(task.target)
    counted = [0]

    def documents() -> Iterator[Any]:
        stream = documents_of(run.piece, report, task.strict)
        if task.strict:
            stream = api._strictly(stream, report)
        for doc in api._checked(stream, spec, write_report, task.strict):
            yield doc
            counted[0] += 1

    error: CorefioError | None = None
    assert spec.write is not None
    try:
        with open(run.part, "wb") as out:
            for piece in spec.write(documents(), corpus=Corpus(), report=write_report, **options):
                out.write(piece.encode("utf-8") if isinstance(piece, str) else piece)
    except CorefioError as exc:
        error = exc.located(task.target).located(task.source)
    return PieceOutcome(found_in(write_report), found_in(report), counted[0], error)


def convert_in_runs(task: Conversion, pieces: list[Piece], jobs: int, *, report: Report | None = None,
                    progress: Progress | None = None) -> Report:
    """Convert one large file whose writer concatenates (:func:`in_runs`): each run of
    documents is read and written by one of ``jobs`` processes into a part file, and
    the parts are joined into ``task.target`` in order, atomically, as
    :func:`corefio.api.convert` writes it (the same bytes, the same report: reading
    findings, then the corpus's and each document's losses, then the writer's own)."""
    from .formats import readwrite as api
    from .formats.losses import report_corpus_losses
    from .formats.registry import get_format
    from .io import files
    from .model import Corpus

    spec = get_format(task.to_format)
    spec.check_options(dict(task.write_options), "write")  # a usage error before any work
    report = report if report is not None else Report(task.source)
    write_report = Report(task.target)
    report_corpus_losses(Corpus(), spec.capabilities, write_report, spec.name)
    target = Path(task.target)
    with files.staging_directory(target.parent if str(target) != "-" else None) as stage:

        def joined() -> Iterator[bytes]:
            runs = [_Run(task, piece, str(stage / f"{number}.part")) for number, piece in enumerate(pieces)]
            for run, outcome in zip(runs, ordered_map(_write_run, runs, jobs)):
                replay(report, outcome.found)
                replay(write_report, outcome.result)
                if progress is not None:
                    progress(outcome.documents)
                if outcome.error is not None:
                    raise outcome.error
                yield from _chunks_of(Path(run.part))
                os.remove(run.part)
            if task.strict:
                api._refuse_losses(write_report, 0, spec)

        try:
            files.atomic_write(target, joined(), inputs=[task.source])
        except CorefioError as exc:
            if isinstance(exc, LossError):  # what api.convert reports when it fails
                report.extend(write_report)
            raise exc.located(task.target).located(task.source) from None
    report.extend(write_report)
    return report


# -- sync ------------------------------------------------------------------------------------
class _Side:
    """One file of ``sync``: its documents' keys, found before reading them (by the
    format's cheap scan, or by reading the file once and keeping only the keys), and
    the scan's offsets when there is one (a CoNLL file can then be read in pieces)."""

    def __init__(self, path: str, format: str | None) -> None:
        from .formats.registry import resolve_format
        from .io.source import Source

        self.path, self.format = path, format
        self.spec = resolve_format(Path(path), format)
        self.scanned: list | None = None
        self.header: Any = None
        scan = self.spec.scan_keys
        if scan is not None and _splittable(path, format) is not None:
            self.scanned = scan(Source.of(path))
            self.keys = [tuple(d[:2]) for d in self.scanned]
        else:
            self.keys = [(doc.name, doc.part) for doc in self.documents(Report())]

    def documents(self, report: Report) -> Iterator[Any]:
        """The documents one at a time (whole, for a format whose reader cannot
        stream); :attr:`header` is the corpus without them once the first is given."""
        from .formats import readwrite as api
        from .io.source import Source

        source = Source.of(self.path)
        spec = api.reader_for(source, self.format)
        try:
            if spec.stream is not None:
                stream = spec.stream(source, report=report, strict=False)
                for doc in stream:
                    if self.header is None:
                        self.header = getattr(stream, "header", None)
                    yield doc
            else:
                corpus = api.read(source, spec.name, report=report)
                self.header = api.corpus_header(corpus)
                yield from corpus.documents
        except CorefioError as exc:
            raise exc.located(source.name) from None


def _in_order(documents: Iterator[Any], wanted: Iterable[int]) -> Iterator[Any]:
    """The documents numbered ``wanted`` (in the order asked), read one at a time from
    ``documents``: those asked later are kept until asked for (none when both files
    list their documents in the same order); then the rest is read (for what its
    reader reports)."""
    waiting: dict[int, Any] = {}
    number = -1
    for j in wanted:
        while j not in waiting:
            number += 1
            waiting[number] = next(documents)
        yield waiting.pop(j)
    for _ in documents:
        pass


@dataclass
class _Synced:
    """A run of synchronised pairs: the documents and what reading and synchronising
    them reported (by kind, to be put in the order one process gives)."""

    keys: list
    responses: list
    key_found: list[Found]
    response_found: list[Found]
    sync_found: list[Found]


_sync_job: Any = None


def _set_sync_job(job: Any) -> None:
    global _sync_job
    _sync_job = job


def _sync_run(run: tuple[int, int]) -> _Synced:
    """Synchronise documents ``first`` to ``last`` - 1 of both files (paired in order)."""
    from .compare.synchronisation import synchronise

    key, response, strategy = _sync_job
    first, last = run
    key_report, response_report, sync_report = Report(), Report(), Report()
    out = _Synced([], [], [], [], [])
    key_docs = documents_of(_run_piece(key, first, last), key_report)
    response_docs = documents_of(_run_piece(response, first, last), response_report)
    for k, r in zip(key_docs, response_docs):
        result = synchronise(k, r, strategy, sync_report, key.path, response.path)
        out.keys.append(result.key)
        out.responses.append(result.response)
    out.key_found, out.response_found = found_in(key_report), found_in(response_report)
    out.sync_found = found_in(sync_report)
    return out


def _run_piece(side: _Side, first: int, last: int) -> Piece:
    assert side.scanned is not None
    docs = side.scanned
    end = docs[last][2] if last < len(docs) else Path(side.path).stat().st_size
    return Piece(0, side.path, side.spec.name, (docs[first][2], end, first, docs[first][3]), last - first)


def sync_sides(key_path: str | Path, response_path: str | Path, format: str | None) -> tuple[_Side, _Side]:
    """The two files of ``sync`` with their documents' keys (errors of reading them raised
    as reading them gives them)."""
    return _Side(str(key_path), format), _Side(str(response_path), format)


def sync_pairs(key: _Side, response: _Side, pair_by: str, pairs_file: str | Path | None) -> tuple[list, Report]:
    """The document pairs :func:`corefio.compare.synchronisation.pair_documents` gives, from
    the keys alone, and what pairing them reported."""
    from .compare.synchronisation import pair_keys

    report = Report()
    pairs = pair_keys(key.keys, response.keys, pair_by, pairs_file, report,
                      hint=" (--pair-by order or --pairs FILE pair them otherwise)")
    return [(i, j) for i, j in pairs if j is not None], report


def sync(key: _Side, response: _Side, pairs: list, pairing: Report, targets: tuple[Path, Path], to: str, *,
         strategy: str, jobs: int, progress: Progress | None = None) -> Report:
    """``corefio sync``, streamed: with the pairs known (:func:`sync_pairs`), the documents
    are read one pair at a time and synchronised, the key side written as it comes and
    the response side kept on disk until the key file is written. With ``jobs`` > 1,
    two CoNLL files whose documents pair in order are read and synchronised in runs of
    pairs by ``jobs`` processes. The report holds what reading the key, reading the
    response, pairing, synchronising and writing reported, in that order (as reading
    both files whole first gave)."""

    from .formats import readwrite as api
    from .compare.synchronisation import synchronise

    key_path, response_path = key.path, response.path
    key_report, response_report, sync_report, key_write, response_write = (Report() for _ in range(5))
    in_runs = (jobs > 1 and key.scanned is not None and response.scanned is not None
               and len(key.keys) == len(response.keys) and pairs == [(i, i) for i in range(len(key.keys))])
    spool = Spool()

    def synchronised_keys() -> Iterator[Any]:
        if in_runs:
            size = max(1, min(SYNC_RUN, -(-len(pairs) // (jobs * PIECES_PER_JOB))))
            runs = [(k, min(k + size, len(pairs))) for k in range(0, len(pairs), size)]
            for synced in ordered_map(_sync_run, runs, jobs, initializer=_set_sync_job,
                                      initargs=((key, response, strategy),)):
                replay(key_report, synced.key_found)
                replay(response_report, synced.response_found)
                replay(sync_report, synced.sync_found)
                for doc in synced.responses:
                    spool.append(doc)
                if progress is not None:
                    progress(len(synced.keys))
                yield from synced.keys
            return
        paired = dict(pairs)
        response_docs = _in_order(response.documents(response_report), [j for _, j in pairs])
        for i, k in enumerate(key.documents(key_report)):
            if i not in paired:
                continue
            result = synchronise(k, next(response_docs), strategy, sync_report, key_path, response_path)
            spool.append(result.response)
            if progress is not None:
                progress(1)
            yield result.key
        for _ in response_docs:
            pass

    try:
        keys = synchronised_keys()
        inputs = [key_path, response_path]

        def write_key(path: Path) -> None:
            first = next(keys, None)  # the key's corpus-level data is known once its first document is
            api.write(chain([] if first is None else [first], keys), path, to, report=key_write, inputs=inputs,
                      header=key.header)

        def write_response(path: Path) -> None:
            api.write(iter(spool), path, to, report=response_write, inputs=inputs, header=response.header)

        write_pair(targets, (write_key, write_response), (key_write, response_write), inputs, to)
    finally:
        spool.close()
    report = Report()
    for part in (key_report, response_report, pairing, sync_report, key_write, response_write):
        replay(report, found_in(part))
    return report


def write_pair(targets: tuple[Path, Path], writers: tuple[Callable[[Path], None], Callable[[Path], None]],
               reports: tuple[Report, Report], inputs: list, to: str) -> None:
    """Write the two files of a pair (``writers[k](path)`` writes file ``k``), so that
    both change together (:func:`corefio.io.files.replace_together`): each is written
    into a staging folder beside the first target, then both are put in place. What the
    writers report or raise names the targets, not the staged files. A format that
    writes a directory (MMAX2) writes its two projects one after the other."""
    from .formats.registry import get_format
    from .io import files

    if get_format(to).directory or any(str(t) == files.STDIO for t in targets):
        for write, target in zip(writers, targets):
            write(Path(target))
        return
    for target in targets:  # refused before any work, as a direct write refuses
        files.check_output(target, inputs)
    with files.staging_directory(Path(targets[0]).parent) as stage:
        names = [Path(t).name for t in targets]
        staged = tuple(stage / (name if names[0] != names[1] else f"{side}-{name}")
                       for side, name in zip(("key", "response"), names))
        try:
            for write, path in zip(writers, staged):
                write(path)
            files.replace_together(list(zip(staged, targets)), inputs=inputs)
        except CorefioError as exc:
            for path, target, report in zip(staged, targets, reports):
                _unstage(report, exc, str(path), str(target))
            raise
        for path, target, report in zip(staged, targets, reports):
            _unstage(report, None, str(path), str(target))


# -- sync of pairs of files ------------------------------------------------------------------------
@dataclass(frozen=True)
class FileSync:
    """One pair of files of ``sync`` of two directories: synchronised into ``targets``."""

    key: str
    response: str
    targets: tuple[str, str]
    to: str
    strategy: str
    format: str | None
    pair_by: str


def sync_file(task: FileSync, jobs: int = 1, progress: Progress | None = None,
              targets: tuple[str, str] | None = None) -> Report:
    """``corefio sync`` of one pair of files (into ``targets`` when given, in place of
    ``task.targets``); documents that do not pair are an error located at both files."""
    key, response = sync_sides(task.key, task.response, task.format)
    try:
        pairs, pairing = sync_pairs(key, response, task.pair_by, None)
    except CorefioError as exc:
        raise exc.located(f"{task.key} and {task.response}") from None
    written = targets or task.targets
    folder = Path(written[0]).parent
    made = not folder.is_dir()
    folder.mkdir(parents=True, exist_ok=True)
    try:
        return sync(key, response, pairs, pairing, (Path(written[0]), Path(written[1])), task.to,
                    strategy=task.strategy, jobs=jobs, progress=progress)
    except BaseException:
        if made and not any(folder.iterdir()):  # nothing written: no folder left behind
            folder.rmdir()
        raise


def _staged_sync(job: tuple[FileSync, str]) -> tuple[Report, CorefioError | None, int]:
    """Synchronise a pair of files into a staging directory: the report (naming the
    real targets), the error that stopped it, how many documents the key held."""
    task, stage = job
    Path(stage).mkdir()
    staged = (str(Path(stage) / "key"), str(Path(stage) / "response"))
    counted: list[int] = []
    try:
        report = sync_file(task, 1, counted.append, staged)
        error = None
    except CorefioError as exc:
        report, error = Report(), exc
    for which in (0, 1):
        _unstage(report, error, staged[which], task.targets[which])
    return report, error, sum(counted)


def sync_files(tasks: Sequence[FileSync], jobs: int,
               progress: Progress | None = None) -> Iterator[tuple[FileSync, Report]]:
    """``sync`` of pairs of files, each pair whole, by ``jobs`` processes: each
    ``(task, report)`` in order, the two files of a pair put in place when its turn
    comes (from a hidden staging directory beside the first target), so that when a
    pair fails, no later pair's files are written, as with one process."""
    import shutil

    from .io import files

    if jobs <= 1 or len(tasks) < 2:
        for task in tasks:
            yield task, sync_file(task, 1, progress)
        return
    with files.staging_directory(Path(tasks[0].targets[0]).parent.parent) as root:
        jobs_list = [(task, str(root / str(number))) for number, task in enumerate(tasks)]
        for (task, stage), (report, error, documents) in zip(jobs_list, ordered_map(_staged_sync, jobs_list, jobs)):
            if progress is not None:
                progress(documents)
            if error is not None:
                raise error
            targets = tuple(map(Path, task.targets))
            targets[0].parent.mkdir(parents=True, exist_ok=True)
            _put_pair_in_place((Path(stage) / "key", Path(stage) / "response"), targets,
                               [task.key, task.response], task.to)
            shutil.rmtree(stage, ignore_errors=True)
            yield task, report


def _put_pair_in_place(staged: tuple[Path, Path], targets: tuple[Path, ...], inputs: list, to: str) -> None:
    """Put a pair a worker wrote at ``staged`` in place, both files together
    (:func:`write_pair`); a directory format's two projects one after the other."""
    import shutil

    from .formats.registry import get_format

    if get_format(to).directory:
        for path, target in zip(staged, targets):
            target.parent.mkdir(parents=True, exist_ok=True)
            _put_in_place(path, target, inputs)
        return

    def mover(source: Path) -> Callable[[Path], None]:
        def move(path: Path) -> None:
            try:
                os.rename(source, path)
            except OSError:  # another file system
                shutil.copyfile(source, path)
        return move

    write_pair((targets[0], targets[1]), (mover(staged[0]), mover(staged[1])), (Report(), Report()), inputs, to)
