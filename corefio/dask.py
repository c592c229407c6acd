"""corefio's work on a Dask cluster: convert, validate and score many files.

Install the extra (``pip install 'corefio[dask]'``). Each function builds a
:mod:`dask.bag` with one element per file (per key/response pair when scoring) and
computes it with the scheduler the caller chooses: ``scheduler=`` is passed to
:func:`dask.compute` (``"threads"``, ``"processes"``, ``"synchronous"``), and when
``scheduler`` is None a ``distributed.Client`` the caller has created is used (Dask's
default), so the same call runs on a laptop or on a cluster::

    from distributed import Client
    import corefio.dask
    client = Client("tcp://scheduler:8786")          # or LocalCluster()
    scores = corefio.dask.score(keys, responses, metrics=["muc", "bcub", "ceafe"])

What runs where:

* **convert**: each task reads one file and writes its output (corefio writes to a
  temporary file and renames it, so a task killed half way and run again by Dask leaves
  no partial output); the result is the list of output paths, in input order.
* **validate**: each task validates one file; the result maps each path to its
  :class:`~corefio.diagnostics.Report`.
* **score**: each task scores one key file against one response file and returns what
  corefio's scorer keeps of them (a ``Share``: summed numerators and denominators as
  integers and fractions, class-size profiles, per-document results when asked); the
  shares are summed in this process by the scorer's own code
  (:func:`corefio.scoring.engine.finish`), never averaged, so the scores equal
  ``corefio.score`` on the concatenated files to the last digit. Documents are read by
  the workers; only counts travel.

Paths must be readable by the workers (a shared file system on a cluster).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .diagnostics import Report
from .errors import UsageError
from .parallel import output_path


def _bag():
    try:
        import dask.bag as db
    except ImportError:
        raise UsageError("corefio.dask needs the dask extra: pip install 'corefio[dask]'") from None
    return db


def _compute(bag: Any, scheduler: Any) -> list:
    import dask

    (result,) = dask.compute(bag, scheduler=scheduler) if scheduler is not None else dask.compute(bag)
    return list(result)


# -- convert -----------------------------------------------------------------------------------
def _convert_one(item: tuple[str, str, str | None, str, dict]) -> str:
    from .api import convert as convert_file

    source, target, from_format, to, options = item
    convert_file(source, target, from_format, to, **options)
    return target


def convert(paths: Iterable[str | Path], target_dir: str | Path, to: str, *, from_format: str | None = None,
            scheduler: Any = None, **options: Any) -> list[Path]:
    """Convert every file of ``paths`` into ``target_dir`` as format ``to`` (one output per
    input, named after it); returns the output paths in input order. ``options`` go to
    the writer, as with :func:`corefio.convert`."""
    db = _bag()
    target = Path(target_dir)
    target.mkdir(parents=True, exist_ok=True)
    sources = [Path(p) for p in paths]
    outputs = [output_path(p, target, to) for p in sources]
    if len(set(outputs)) != len(outputs):
        raise UsageError("two inputs would be written to the same output (inputs with the same name)")
    items = [(str(s), str(o), from_format, to, options) for s, o in zip(sources, outputs)]
    if not items:
        return []
    done = _compute(db.from_sequence(items, npartitions=len(items)).map(_convert_one), scheduler)
    return [Path(p) for p in done]


# -- validate ----------------------------------------------------------------------------------
def _validate_one(item: tuple[str, str | None]) -> tuple[str, Report]:
    from .api import validate as validate_file

    path, fmt = item
    return path, validate_file(path, fmt)


def validate(paths: Iterable[str | Path], format: str | None = None, *, scheduler: Any = None) -> dict[str, Report]:
    """Validate every file; ``{path: Report}`` in input order."""
    db = _bag()
    items = [(str(p), format) for p in paths]
    if not items:
        return {}
    return dict(_compute(db.from_sequence(items, npartitions=len(items)).map(_validate_one), scheduler))


# -- score -------------------------------------------------------------------------------------
def _share_of(scorer: Any, pair: tuple[int, str, str]) -> Any:
    """Score one key file against one response file: the scorer's Share, its findings
    with it (:class:`corefio.scoring.engine.FilePairScorer`: per-document indices keep
    the files' order)."""
    report = Report()
    (share,), names = scorer(pair, report)
    share.diagnostics = report.diagnostics
    return share, names


def score(key_paths: Sequence[str | Path], response_paths: Sequence[str | Path],
          metrics: Iterable[str] = ("muc", "bcub", "ceafe", "blanc", "lea", "conll"), *,
          keep_singletons: bool = True, per_document: bool = False, macro: bool = False,
          allow_missing: bool = False, key_format: str | None = None, response_format: str | None = None,
          match: str = "exact", pair_by: str = "name", keep_zeros: bool = False, zero_match: str = "dependent",
          scheduler: Any = None) -> Any:
    """Score ``response_paths[k]`` against ``key_paths[k]`` for every k, as one corpus:
    the same :class:`~corefio.scoring.Scores` ``corefio.score`` gives for the files
    concatenated (module docstring)."""
    from .compare.matching import MATCH_MODES
    from .scoring.engine import FilePairScorer, Options, finish, named_once
    from .scoring.registry import resolve_metrics
    from .model.zeros import zero_mode

    db = _bag()
    if len(key_paths) != len(response_paths):
        raise UsageError(f"{len(key_paths)} key files but {len(response_paths)} response files")
    if match not in MATCH_MODES:
        raise UsageError(f"unknown matching mode {match!r} (known: {', '.join(MATCH_MODES)})")
    options = Options(resolve_metrics(metrics), keep_singletons=keep_singletons, per_document=per_document or macro,
                      match=match, zeros=zero_mode(keep_zeros, zero_match))
    scorer = FilePairScorer(options, allow_missing, key_format, response_format, pair_by)
    # (a pair is a list: dask would take a tuple whose first item can be called for a task)
    items = [[k, str(key), str(response)] for k, (key, response) in enumerate(zip(key_paths, response_paths))]
    report = Report()
    bag = db.from_sequence(items, npartitions=max(1, len(items)))
    scored = _compute(bag.map(functools.partial(_share_of, scorer)), scheduler) if items else []
    seen: dict[tuple, str] = {}
    for item, (share, names) in zip(items, scored):
        report.absorb(share.diagnostics)
        named_once(str(item[1]), names, seen)
    return finish([share for share, _ in scored], report, options, macro, allow_missing)


__all__ = ["convert", "score", "validate"]
