"""The ``corefio`` command line (typer).

Exit codes (documented in README.md):

== =====================================================================================
0  success
1  internal error (a bug: please report it; set COREFIO_DEBUG=1 for the traceback)
2  usage error: bad option, unknown format or metric name, format that cannot be guessed
3  input error: missing or unreadable file, malformed or unsafe input, documents of key
   and response that do not match
4  validation failed (``validate`` found errors, or warnings under ``--strict``)
5  strict mode refused: a warning while reading or a loss while writing
6  output error: cannot write, or the output would overwrite an input
== =====================================================================================

Library errors are caught here and only here; the user sees one line naming the file,
line and column, never a traceback.

When the reader of the standard output goes away (``corefio formats | head -1``), the
rest of the output is discarded quietly and the command still ends with its own exit
code: ``validate`` exits 4 for an invalid file even if nobody read the verdict.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import sys
from enum import Enum
from pathlib import Path
from typing import Any, Callable, List, Optional

import typer
from typer.core import TyperCommand, TyperGroup, TyperOption

from . import __version__, api
from .diagnostics import Report
from .errors import CorefioError

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_INPUT, EXIT_INVALID, EXIT_STRICT, EXIT_OUTPUT = range(7)


class _TopLevel(TyperGroup):
    """The ``corefio`` command group; its help ends with the registered formats.

    The list comes from the registry when the help is shown, not when this module is
    imported: importing every format module is not free, and ``--version`` or a command
    that fails on its options should not pay for it.
    """

    def format_help_text(self, ctx, formatter) -> None:
        super().format_help_text(ctx, formatter)
        from .formats.registry import all_formats

        import textwrap

        names = ", ".join(spec.name for spec in all_formats())
        formatter.write_paragraph()
        with formatter.indentation():
            # wrapped by hand: click's wrapping breaks names at their hyphens (cdcr-conll)
            indent = " " * formatter.current_indent
            width = max(40, (formatter.width or 80) - formatter.current_indent)
            text = f"Formats: {names} ('corefio formats' tells what each can express)."
            for line in textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False):
                formatter.write(f"{indent}{line}\n")


def _metavar(param: Any) -> Optional[str]:
    """What stands for an option's value in the help (``--from FORMAT``, ``--jobs N``,
    ``--format [text|json]``), without Python's types: the metavar the option names,
    else its choices, else a word from its type and name. None for a flag."""
    if param.metavar:
        return param.metavar
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return None
    import typing

    desc = getattr(param, "type_descriptor", None)
    choices = (getattr(desc, "choices", None) if getattr(desc, "is_choice", False)
               else getattr(getattr(param, "type", None), "choices", None))
    if choices:
        return "[" + "|".join(str(getattr(c, "value", c)) for c in choices) + "]"
    annotation = getattr(desc, "annotation", None)
    for inner in typing.get_args(annotation) or ():
        if inner is not type(None):
            annotation = inner
            break
    long = next((o[2:] for o in param.opts if o.startswith("--")), param.name or "value")
    if annotation is int:
        return "N"
    if annotation is float:
        return "NUMBER"
    if annotation is Path:
        return "PATH"
    if long in ("from", "to") or long.endswith("format"):
        return "FORMAT"
    if long.endswith("attribute"):
        return "ATTRIBUTE"
    if long == "preset":
        return "NAME"
    return long.upper().replace("-", "_")


def _argument_name(param: Any) -> str:
    """An argument as the usage line and the help show it: ``KEY``, ``FILES...``."""
    name = param.metavar or (param.name or "arg").upper()
    return name if param.nargs == 1 or name.endswith("...") else f"{name}..."


#: option help made only when a help page is shown: the scoring engine it names takes
#: about a third of the command line's start, which every command (and every refusal) paid
_LAZY_HELP: dict[str, Callable[[], str]] = {}


def _lazy_help(make: Callable[[], str]) -> str:
    """A stand-in for the help text ``make()``, which :class:`_Command` puts in its place."""
    key = f"\0help-{len(_LAZY_HELP)}"
    _LAZY_HELP[key] = make
    return key


class _Command(TyperCommand):
    """A command whose help names values by what they are (``--from FORMAT``, ``FILES...``),
    never by their Python types (``<list[Path]>``, ``{files}...``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if param.param_type_name == "option":
                param.metavar = _metavar(param)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                name = _argument_name(param)
                pieces.append(name if param.required else f"[{name}]")
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        for param in self.params:
            if isinstance(param, TyperOption) and param.help in _LAZY_HELP:
                param.help = _LAZY_HELP[param.help]()
        arguments = [(_argument_name(p), getattr(p, "help", None) or "") for p in self.get_params(ctx)
                     if p.param_type_name == "argument" and not getattr(p, "hidden", False)]
        options = [record for p in self.get_params(ctx) if p.param_type_name == "option"
                   for record in [p.get_help_record(ctx)] if record is not None]
        for title, records in (("Arguments", arguments), ("Options", options)):
            if records:
                with formatter.section(title):
                    formatter.write_dl(records)


class _App(typer.Typer):
    """The application: its commands are :class:`_Command` s unless they say otherwise."""

    def command(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("cls", _Command)
        return super().command(*args, **kwargs)


app = _App(
    cls=_TopLevel,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Convert, validate, view and score coreference annotations through one pivot model.",
)


class OutputFormat(str, Enum):
    text = "text"
    json = "json"


def _silence(stream) -> None:
    """Point the file descriptor of ``stream`` (stdout or stderr) at the null device.

    Called once the reader of a stream has gone: what is still to be printed, and the
    interpreter's own flush at exit, then succeed silently instead of raising
    BrokenPipeError again (the recipe of the Python documentation, "Note on SIGPIPE").
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no file descriptor behind the stream (a test runner)
        pass


def _stdout_went_away(exc: CorefioError) -> bool:
    """Is ``exc`` a broken pipe on an output that is this process's standard output under
    another name (``/dev/stdout``, ``/proc/self/fd/1``)? Then the reader has gone, as
    with ``-``: no error. A named FIFO whose reader went away stays an error."""
    from .errors import OutputError

    if not (isinstance(exc, OutputError) and isinstance(exc.__context__, BrokenPipeError) and exc.file):
        return False
    try:
        return os.path.samestat(os.stat(exc.file), os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError):  # no file descriptor behind stdout (a test runner)
        return False


def _out(text: str, *, nl: bool = True) -> None:
    """Print command output on stdout; a closed pipe discards it (see the module notes).

    Only the CLI's own printing treats BrokenPipeError as benign: elsewhere (a pipe to
    a worker process) it remains an error.
    """
    try:
        typer.echo(text, nl=nl)
    except BrokenPipeError:
        _silence(sys.stdout)


def _echo_err(message: str) -> None:
    """Print a diagnostic on stderr; if nobody reads stderr, the exit code still tells."""
    try:
        typer.echo(message, err=True)
    except BrokenPipeError:
        _silence(sys.stderr)


# -- verbosity, standard input and output ----------------------------------------------
#: -1 with -q/--quiet (errors only), 0 by default, 1 with -v/--verbose
_verbosity = 0
#: the spooled copies of standard input (and of other inputs that cannot be read twice)
#: by their temporary path, with the name messages give them
_spooled: dict[str, str] = {}
_spool_dir: Optional[str] = None
STDIN_NAME = "<stdin>"


def _say(message: str) -> None:
    """A note about what was done ("converted a -> b"): on stderr, so that it never mixes
    with an output written to stdout; left out under ``-q``."""
    if _verbosity >= 0:
        _echo_err(message)


def _shown(text: str) -> str:
    """``text`` with the temporary paths of spooled inputs replaced by their names."""
    for temporary, name in _spooled.items():
        text = text.replace(temporary, name)
    return text


def _seekable(path: Path) -> bool:
    """False for what can be read only once: a pipe, a terminal, /dev/stdin."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError:
        return True  # missing or unreadable: _check_input says so
    return stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISBLK(mode)


def _input(path: Path, format: Optional[str]) -> Path:
    """The path commands read for the argument ``path``: ``-`` (standard input) and inputs
    that cannot be read twice (``/dev/stdin``, a pipe; format detection reads the start,
    then the reader the whole) are copied to a temporary file first, named like the input
    so that messages name it; other paths are checked by :func:`_check_input`."""
    import shutil
    import tempfile

    from .errors import UsageError

    is_stdin = str(path) == "-"
    if not is_stdin and _seekable(path):
        _check_input(path, format)
        _note_format(path, format)
        return path
    if format:
        from .formats.registry import get_format

        if get_format(format).directory:
            raise UsageError(f"format {format!r} reads a directory of files: standard input cannot hold it; "
                             "give the directory")
    name = STDIN_NAME if is_stdin else str(path)
    if name in _spooled.values():
        raise UsageError(f"{name} is given twice, but it can be read only once")
    global _spool_dir
    if _spool_dir is None:
        _spool_dir = tempfile.mkdtemp(prefix="corefio-stdin-")
    # the input's own file name keeps its extension (format detection uses it)
    temporary = Path(_spool_dir) / f"{len(_spooled)}" / ("stdin" if is_stdin else path.name)
    temporary.parent.mkdir()
    try:
        with open(temporary, "wb") as copy:
            if is_stdin:
                shutil.copyfileobj(sys.stdin.buffer, copy)
            else:
                with open(path, "rb") as original:
                    shutil.copyfileobj(original, copy)
    except OSError as exc:
        raise CorefioError(f"cannot read: {exc.strerror or exc}", file=name) from None
    _spooled[str(temporary)] = name
    _note_format(temporary, format)
    return temporary


def _note_format(path: Path, format: Optional[str]) -> None:
    """Remember the format ``path`` will be read as (for the hints of :func:`_explained`)."""
    from .formats.registry import detect_format_noted, get_format

    try:
        spec, note = (get_format(format), None) if format else detect_format_noted(path)
    except CorefioError:
        _formats_used[str(path)] = ""  # given, format unknown: the reading says what is wrong
        return
    _formats_used[str(path)] = spec.name
    if note is not None and str(path) not in _noted:  # the content chose the format: said once
        _noted.add(str(path))
        shown = Report()
        shown.info("format.by-content", note, file=_spooled.get(str(path), str(path)))
        _print_report(shown)


def _forget_spooled() -> None:
    import shutil

    global _spool_dir, _format_flags
    if _spool_dir is not None:
        shutil.rmtree(_spool_dir, ignore_errors=True)
    _spool_dir = None
    _spooled.clear()
    _formats_used.clear()
    _paired_files.clear()
    _noted.clear()
    _format_flags = None


#: seconds of work before a progress bar shows (quick commands draw none)
PROGRESS_DELAY = 0.5


def _stderr_is_terminal() -> bool:
    """Whether a person watches stderr (progress bars are drawn only then)."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced by an object without it, or closed
        return False


def _progress(items, label: str):
    """``items`` as they come, with a progress bar on stderr when stderr is a terminal
    (and not under ``-q``): nothing else is drawn, so logs and pipes stay clean."""
    with _counting(label) as done:
        for item in items:
            yield item
            if done is not None:
                done(1)


@contextlib.contextmanager
def _counting(label: str, total: Optional[int] = None, unit: str = " documents"):
    """A progress bar of documents on stderr (see :func:`_progress`), given as the
    function to call with how many documents were done; None when no bar is drawn.
    Work shared between processes (``--jobs``) is counted here, as each piece's
    result arrives."""
    if _verbosity < 0 or not _stderr_is_terminal():
        yield None
        return
    from tqdm import tqdm

    tqdm.monitor_interval = 0  # no monitor thread: worker processes are forked while the bar runs
    with tqdm(total=total, desc=label, unit=unit, file=sys.stderr, leave=False,
              delay=PROGRESS_DELAY) as bar:
        yield bar.update


#: the progress bars of the running command (closed when it ends, see :func:`edge`)
_bars = contextlib.ExitStack()


def _bar(label: str) -> Optional[Callable[[int], None]]:
    """A progress bar of documents (:func:`_counting`) that stays until
    :func:`_close_bars`, or the end of the command."""
    return _bars.enter_context(_counting(label))


def _close_bars() -> None:
    _bars.close()


# -- several processes (--jobs) --------------------------------------------------------------
def _jobs_option() -> Any:
    return typer.Option(None, "--jobs", "-j", min=1,
                        help="processes to share the work between (default: COREFIO_WORKERS, else the cores "
                             "available; 1: this process only); the output is the same")


def _jobs(jobs: Optional[int]) -> int:
    from .parallel import default_jobs

    return jobs if jobs is not None else default_jobs()


_GLOB_CHARACTERS = frozenset("*?[")


def _expanded(paths: List[Path], format: Optional[str]) -> List[Path]:
    """The files the arguments name: a directory of files (not an MMAX2 project, which
    is one input) gives its files, sorted; a pattern that names no file itself
    (``'data/*.conll'``, quoted so that the shell leaves it) gives the files it matches,
    sorted. Other arguments are kept as they are (and checked when read)."""
    out: List[Path] = []
    for path in paths:
        text = str(path)
        if text != "-" and not path.exists() and _GLOB_CHARACTERS & set(text):
            import glob

            matches = sorted(glob.glob(text, recursive=True))
            if not matches:
                raise CorefioError("no file matches this pattern", file=text)
            out.extend(Path(m) for m in matches if not Path(m).is_dir())
        elif path.is_dir() and not _is_project(path, format):
            members = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
            out.extend(members if members else [path])  # an empty directory: refused as ever
        else:
            out.append(path)
    return out


def _names_files(path: Path, format: Optional[str]) -> bool:
    """Does the argument stand for several files (a directory of files, a pattern)? (An
    empty directory does not: it is refused as an input, not a directory of files.)"""
    text = str(path)
    if text == "-":
        return False
    if not path.exists():
        return bool(_GLOB_CHARACTERS & set(text))
    return path.is_dir() and not _is_project(path, format) and _expanded([path], format) != [path]


def _file_name(path: Path) -> str:
    """What pairs a key file with a response file: its name up to the first dot
    (``a.v4_gold_conll`` and ``a.v4_auto_conll``)."""
    return path.name.split(".")[0]


def _paired_lists(key: Path, responses: List[Path], key_format: Optional[str],
                  response_format: Optional[str]) -> Optional[tuple[List[Path], List[List[Path]]]]:
    """None when the key is one file; when it is a directory or a pattern (so must each
    response be): the key files, sorted, and each response's files in their order,
    paired by :func:`_file_name`. A key file without its response file, or a response
    file without its key file, is an error naming it."""
    from .errors import UsageError

    arguments = [(key, key_format)] + [(r, response_format) for r in responses]
    many = [_names_files(path, format) for path, format in arguments]
    if not any(many):
        return None
    if not all(many):
        single = next(path for (path, format), several in zip(arguments, many) if not several)
        _check_input(single, dict(arguments)[single])  # missing, unreadable, an empty directory: said so
        other = next(path for (path, _), several in zip(arguments, many) if several)
        raise UsageError(f"{single} is one file but {other} names several: give a directory (or a quoted pattern) "
                         "of files for the key and for every response, or one file for each")

    def by_name(path: Path, format: Optional[str]) -> dict[str, Path]:
        found: dict[str, Path] = {}
        for member in _expanded([path], format):
            name = _file_name(member)
            if name in found:
                raise UsageError(f"two files of {path} are named {name!r} up to the first dot ({found[name]}, "
                                 f"{member}): files are paired by that name")
            found[name] = member
        return found

    keys_by_name = by_name(key, key_format)
    keys = list(keys_by_name.values())
    lists = []
    for response in responses:
        theirs = by_name(response, response_format)
        missing = [str(keys_by_name[n]) for n in keys_by_name if n not in theirs]
        extra = [str(theirs[n]) for n in theirs if n not in keys_by_name]
        if missing or extra:
            raise CorefioError("the key and response files do not pair by name (up to the first dot): "
                               + "; ".join(filter(None, [
                                   f"no response file for {', '.join(missing[:3])}" if missing else "",
                                   f"no key file for {', '.join(extra[:3])}" if extra else ""])),
                               file=str(response))
        lists.append([theirs[n] for n in keys_by_name])
    for path in keys:
        _check_input(path, key_format)
        _note_format(path, key_format)
    for path in (p for files in lists for p in files):
        _check_input(path, response_format)
        _note_format(path, response_format)
    return keys, lists


def _is_project(path: Path, format: Optional[str]) -> bool:
    """A directory that is one input: a project of a format that reads directories."""
    from .formats.registry import all_formats, get_format

    if format:
        return get_format(format).directory
    return any(spec.directory and spec.sniff_directory is not None and spec.sniff_directory(path)
               for spec in all_formats()) or any(path.glob("*.mmax"))


def _check_output(path: Path, format: Optional[str]) -> None:
    """Refuse ``-`` (standard output) for a format that writes a directory, before any work."""
    if str(path) != "-":
        return
    from .errors import UsageError
    from .formats.registry import get_format

    if not format:
        raise UsageError("writing to standard output ('-'): name the format with --to")
    if get_format(format).directory:
        raise UsageError(f"format {format!r} writes a directory of files: standard output ('-') cannot hold "
                         "it; give a directory")


def _check_input(path: Path, format: Optional[str]) -> None:
    """Refuse an input that cannot be read, before any work is done: a missing path, or
    a directory when no format reads directories (or ``--from`` names one that does not).

    Every command checks its inputs here, so that they all fail the same way (exit 3,
    one line). A directory that a format may read (an MMAX2 project) goes on to the
    registry, which picks that format, and its reader says what is missing.
    """
    if path.is_dir():
        from .formats.registry import all_formats, get_format

        candidates = [get_format(format)] if format else all_formats()
        if not any(spec.directory for spec in candidates):
            raise CorefioError("is a directory, not a file", file=path)
    elif not path.exists():
        raise CorefioError("no such file", file=path)


#: infos ``score`` shows although it shows no other: documents paired although their names differ
PAIRING_NOTES = ("score.paired-single",)


def _print_report(report: Report, *, min_severity: str = "info", also: tuple[str, ...] = ()) -> None:
    """The diagnostics on stderr, one line per code (``-v``: every one); ``-q`` keeps the
    errors only; ``also``: codes shown whatever their severity (not with ``-q``)."""
    order = {"info": 0, "warning": 1, "error": 2}
    floor = order["error"] if _verbosity < 0 else order[min_severity]
    shown = [d for d in report if order[d.severity] >= floor or (_verbosity >= 0 and d.code in also)]
    if _verbosity > 0:
        lines = [d.format() for d in shown]
    else:
        lines = [group.format() for group in Report.group(shown)]
    for line in lines:
        _echo_err(_shown(line))


def edge(func: Callable) -> Callable:
    """Turn CorefioError into a one-line message and its exit code; hide tracebacks."""

    @functools.wraps(func)
    def wrapper(*args, quiet: bool = False, verbose: bool = False, **kwargs):
        global _verbosity
        _verbosity = -1 if quiet else 1 if verbose else 0
        try:
            return func(*args, **kwargs)
        except typer.Exit:
            raise
        except BrokenPipeError:  # the reader of an output written to stdout ('-') went away
            _silence(sys.stdout)
            return None
        except CorefioError as exc:
            if _stdout_went_away(exc):  # /dev/stdout named as the output: as for '-'
                _silence(sys.stdout)
                return None
            try:
                text = _explained(exc)
            except Exception:  # a hint must never hide the error itself
                text = str(exc)
            _echo_err(_shown(f"corefio: error: {text}"))
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            _echo_err("corefio: interrupted")
            raise typer.Exit(130) from None
        except Exception as exc:  # a bug
            if os.environ.get("COREFIO_DEBUG"):
                raise
            _echo_err(f"corefio: internal error: {type(exc).__name__}: {exc} "
                      "(set COREFIO_DEBUG=1 for the traceback)")
            raise typer.Exit(EXIT_INTERNAL) from None
        finally:
            _close_bars()
            _forget_spooled()

    import inspect

    signature = inspect.signature(func)
    extra = [
        inspect.Parameter("quiet", inspect.Parameter.KEYWORD_ONLY, annotation=bool,
                          default=typer.Option(False, "-q", "--quiet", help="print errors only")),
        inspect.Parameter("verbose", inspect.Parameter.KEYWORD_ONLY, annotation=bool,
                          default=typer.Option(False, "-v", "--verbose",
                                               help="print every diagnostic, not one line per kind")),
    ]
    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*signature.parameters.values(), *extra])
    return wrapper


# -- reader options for every command that reads -----------------------------------------------
def reads(func: Callable) -> Callable:
    """Give a command that reads files the reader options ``convert`` has: ``--read-option
    NAME=VALUE`` (repeatable) and the named shortcut ``--identity-attribute`` (MMAX2).
    While the command runs, every reader of a format that declares such an option reads
    with it (:func:`_read_defaults`); put it below :func:`edge`."""

    @functools.wraps(func)
    def wrapper(*args, read_option: Optional[List[str]] = None, identity_attribute: Optional[str] = None,
                **kwargs):
        options = _named_options(read_option or [], "--read-option")
        if identity_attribute is not None:
            options["identity_attribute"] = identity_attribute
        with _read_defaults(options):
            return func(*args, **kwargs)

    import inspect

    signature = inspect.signature(func)
    extra = [
        inspect.Parameter("read_option", inspect.Parameter.KEYWORD_ONLY, annotation=List[str],
                          default=typer.Option([], "--read-option", "-r", metavar="NAME=VALUE",
                                               help="a reader option an input's format declares (see `corefio "
                                                    "formats`), as for convert")),
        inspect.Parameter("identity_attribute", inspect.Parameter.KEYWORD_ONLY, annotation=Optional[str],
                          default=typer.Option(None, "--identity-attribute", metavar="ATTR",
                                               help="MMAX2: the set or pointer attribute that means coreference "
                                                    "(ATTR, LEVEL:ATTR or 'none'; --read-option "
                                                    "identity_attribute=ATTR)")),
    ]
    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*signature.parameters.values(), *extra])
    return wrapper


@contextlib.contextmanager
def _read_defaults(options: dict[str, Any]):
    """Every format that declares a read option of ``options`` reads with it until the
    block ends (a command's ``--read-option``; an option given to a reader call itself
    wins). An option no format declares is a usage error at once; one that no format
    of the command's inputs declares, when the first of them is read (as ``convert``
    says of its input's format). Formats without the option read as ever.

    The registry's formats are replaced for the time of the block by copies whose
    reader and streamer have the options set (worker processes, forked, inherit them);
    a format with options set has no fast scoring path (the parsers' mention views do
    not take options), as a format variant (``jsonlines:wl``) has none."""
    if not options:
        yield
        return
    from .errors import UsageError
    from .formats import registry

    _formats_used.clear()  # the inputs of this command are noted as it looks at them
    formats = [spec for spec in registry.all_formats() if spec.can_read]
    declared = {o.name for spec in formats for o in spec.options if o.applies_to == "read"}
    unknown = sorted(set(options) - declared)
    if unknown:
        raise UsageError(f"no format has the read option {unknown[0]!r} (read options: {', '.join(sorted(declared))})")

    def declares(spec: Any) -> dict[str, Any]:
        """The options of ``options`` that ``spec`` declares, checked."""
        own = {o.name: o for o in spec.options if o.applies_to == "read"}
        return {name: own[name].check(value, spec.name) for name, value in options.items() if name in own}

    def someone_declares(spec: Any) -> None:
        """Refuse options that neither ``spec`` nor the format of any input declares."""
        names = {spec.name, *(used.split(":")[0] for used in _formats_used.values() if used)}
        used_specs = [other for other in formats if other.name in names]
        for name in options:
            if not any(o.name == name and o.applies_to == "read" for other in used_specs for o in other.options):
                known = ", ".join(sorted(o.name for o in spec.options if o.applies_to == "read")) or "none"
                raise UsageError(f"format {spec.name!r} has no read option {name!r} (known: {known}), and neither "
                                 "has the format of any other input")

    def with_options(function: Any, spec: Any, fixed: dict[str, Any]) -> Any:
        if function is None:
            return None

        @functools.wraps(function)
        def read(*args: Any, **kwargs: Any) -> Any:
            someone_declares(spec)
            return function(*args, **{**fixed, **kwargs})

        return read

    saved, variants = dict(registry._FORMATS), dict(registry._VARIANTS)
    try:
        registry._VARIANTS.clear()
        for name, spec in saved.items():
            if not spec.can_read:
                continue
            fixed = declares(spec)
            changes: dict[str, Any] = {"read": with_options(spec.read, spec, fixed),
                                       "stream": with_options(spec.stream, spec, fixed)}
            if fixed:  # the fast paths do not take options
                changes.update(mention_views=None, document_starts=None, stream_range=None)
            registry._FORMATS[name] = dataclasses.replace(spec, **changes)
        yield
    finally:
        registry._FORMATS.clear()
        registry._FORMATS.update(saved)
        registry._VARIANTS.clear()
        registry._VARIANTS.update(variants)


# -- errors that say what to do ---------------------------------------------------------------
def _explained(exc: CorefioError) -> str:
    """The error's line, with a hint when the file is not what its name or ``--from``
    said: part of an MMAX2 project, content of another format, or a format that could
    not be told (then every format is listed, MMAX2 included)."""
    import re

    from .errors import UnknownFormatError

    from .errors import DocumentMismatchError

    if isinstance(exc, DocumentMismatchError) and _paired_files and (exc.file is None or " and " in exc.file):
        key, response = exc.pair or _paired_files[:2]  # (one pair of files of directories, or the files given)
        missing = "; --allow-missing scores what is missing as empty" if len(_paired_files) > 2 else ""
        # the library's own parenthesis on what to do gives way to the hint below
        message = re.sub(r"\s*\((use --allow-missing|--pair-by)[^()]*\)$", "", exc.message)
        # a file read as the wrong format names its documents wrongly: that is said first
        for given in (key, response):
            used, looks = _formats_used.get(str(given)), _looks_like(Path(given))
            if looks is not None and used and looks[0].name != used.split(":")[0]:
                return (f"the documents of {key} (key) and {response} (response) do not match: {message}\n"
                        f"  hint: {given} was read as {used}, but its content looks like "
                        f"{looks[0].description_name} ({looks[1]}): try {_format_flag(Path(given))} "
                        f"{looks[0].name}")
        return (f"the documents of {key} (key) and {response} (response) do not match: {message}\n"
                "  hint: pair them by position (--pair-by order) or by a file of KEY-NAME<TAB>RESPONSE-NAME "
                f"lines (--pairs FILE){missing}")
    text = str(exc)
    path = Path(exc.file) if exc.file else None
    if path is None or not path.is_file():
        return text
    project = _mmax2_project_of(path)
    # only a file the user gave (an error inside a project read whole names its member files too)
    if project is not None and project != path and _formats_used.get(str(path), "mmax2") != "mmax2":
        return (f"{text}\n  hint: {path.name} is part of an MMAX2 project ({project.name}): give the directory "
                f"{project.parent} or the .mmax file {project}")
    if isinstance(exc, UnknownFormatError) and "cannot tell the format" in exc.message:
        from .formats.registry import all_formats

        names = ", ".join(spec.name + _directory_note(spec) for spec in all_formats() if spec.can_read)
        looks = _looks_like(path)
        flag = _format_flag(path)
        claim = (f"; by its content it looks like {looks[0].description_name} ({looks[1]}): try {flag} "
                 f"{looks[0].name}" if looks else "")
        # the list below replaces the library's own short list of names (said once)
        text = re.sub(r" \(formats: [^()]*\)", "", text)
        text = re.sub(r"\buse --from\b", f"use {flag}", text)
        return f"{text}{claim}. Formats: {names}"
    if exc.exit_code == EXIT_INPUT and path.stat().st_size > 0:  # an empty file looks like nothing
        used = _formats_used.get(str(path))
        looks = _looks_like(path)
        if looks is not None and used and looks[0].name != used.split(":")[0]:  # jsonlines:wl is jsonlines
            return (f"{text}\n  hint: the content looks like {looks[0].description_name} ({looks[1]}), not "
                    f"{used}; try {_format_flag(path)} {looks[0].name}")
    return text


def _format_flag(path: Path) -> str:
    """The option that names the format of input ``path``: ``--key-format`` or
    ``--response-format`` for a side of ``score`` (a file given, or one of a directory
    given), else ``--from``."""
    if _format_flags is None or not _paired_files:
        return "--from"
    path = Path(_spooled.get(str(path), str(path)))
    sides = [Path(given) for given in _paired_files if given != "--allow-missing"]
    for number, side in enumerate(sides):
        if path == side or side in path.parents:
            return _format_flags[0 if number == 0 else 1]
    return "--from"


def _directory_note(spec) -> str:
    """How a format read from a directory is given: `` (a directory, or its .mmax file)``;
    nothing for a format read from a file."""
    if not spec.directory:
        return ""
    files = " or ".join(spec.extensions + spec.ambiguous_extensions)
    return f" (a directory, or its {files} file)" if files else " (a directory)"


#: the format each input was read as, by path (for the hints of :func:`_explained`)
_formats_used: dict[str, str] = {}
#: the key and the response (as given) of a command that pairs their documents
_paired_files: list[str] = []
#: the options naming the key's and the response's formats, in a command that has them
_format_flags: Optional[tuple[str, str]] = None
#: the inputs whose format their content chose, said so once (see :func:`_note_format`)
_noted: set[str] = set()


def _mmax2_project_of(path: Path) -> Optional[Path]:
    """The ``.mmax`` file of the MMAX2 project ``path`` belongs to (a base data, level,
    scheme or style file: the project's directory or the one above), else None."""
    if path.suffix == ".mmax":
        return path
    for folder in (path.parent, path.parent.parent):
        try:
            found = sorted(folder.glob("*.mmax"))
        except OSError:
            return None
        if found and ((folder / "common_paths.xml").exists() or folder != path.parent):
            return found[0]
    return None


class _Look:
    def __init__(self, name: str, description_name: str) -> None:
        self.name, self.description_name = name, description_name


def _looks_like(path: Path) -> Optional[tuple[_Look, str]]:
    """The one format whose content test claims the start of ``path``, with what in the
    content says so (for a hint), or None."""
    import re

    from .formats.registry import all_formats

    try:
        with open(path, "rb") as stream:
            head = stream.read(8192)
    except OSError:
        return None
    claimed = [spec for spec in all_formats() if spec.sniff is not None and spec.sniff(head)]
    if len(claimed) != 1:
        return None
    spec = claimed[0]
    text = head.decode("utf-8", "replace")
    evidence: list[str] = []
    token_line = next((line for line in text.splitlines() if line and not line.startswith("#")), "")
    if spec.name in ("conll", "conllu") and token_line:
        evidence.append(f"{len(token_line.split(chr(9)))} tab-separated columns")
    for marker in ("# sent_id", "# newdoc", "# global.Entity", "#begin document"):
        if marker in text:
            evidence.append(f"`{marker}`")
    root = re.search(r"<([A-Za-z_][\w:.-]*)[\s>]", re.sub(r"<[?!][^>]*>", "", text))
    if not evidence and root is not None:
        evidence.append(f"root element <{root.group(1)}>")
    if not evidence and spec.name == "jsonlines":
        evidence.append("one JSON object per line")
    names = {"conll": "CoNLL-2012", "conllu": "CoNLL-U", "raf": "RAF XML", "mate": "MATE XML", "muc": "MUC SGML",
             "jsonlines": "JSON lines"}
    return _Look(spec.name, names.get(spec.name, spec.name)), ", ".join(evidence) or "its content"


def _print_version(value: bool) -> None:
    if value:
        _out(f"corefio {__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _options(
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    # no docstring: the group's help is the one given to typer.Typer above
    pass


# -- formats --------------------------------------------------------------------------------
@app.command("formats")
@edge
def formats_command(
    output: OutputFormat = typer.Option(OutputFormat.text, "--format", help="text or json"),
) -> None:
    """List the formats, their file extensions and what each can express."""
    from .formats.registry import all_formats, capability_summary

    specs = [capability_summary(s) for s in all_formats()]
    if output is OutputFormat.json:
        _out(json.dumps(specs, indent=2))
        return
    for s in specs:
        rw = ("r" if s["read"] else "-") + ("w" if s["write"] else "-")
        _out(f"{s['name']:<10} {rw}  {', '.join(s['extensions'])}")
        _out(f"{'':<14}{s['description']}")
        yes = [k for k, v in s["capabilities"].items() if v]
        no = [k for k, v in s["capabilities"].items() if not v]
        _out(f"{'':<14}expresses: {', '.join(yes) or '-'}")
        _out(f"{'':<14}cannot:    {', '.join(no) or '-'}")


# -- presets --------------------------------------------------------------------------------
@app.command("presets")
@edge
def presets_command(
    output: OutputFormat = typer.Option(OutputFormat.text, "--format", help="text or json"),
) -> None:
    """List the presets (--preset of score, compare, agree): the scorer each follows, its
    command, and the options it sets."""
    from .scoring.presets import all_presets

    presets = all_presets()
    if output is OutputFormat.json:
        _out(json.dumps([p.to_dict() for p in presets], indent=2))
        return
    for p in presets:
        aliases = f" (also {', '.join(p.aliases)})" if p.aliases else ""
        _out(f"{p.name}{aliases}: {p.follows} ({p.source})")
        _out(f"    {p.description}")
        _out(f"    as: {p.command}")
        options = [f"{k}={','.join(v) if isinstance(v, tuple) else v}" for k, v in p.options.items()]
        if p.anaphora is not None:
            options.append("anaphora=" + ",".join(p.anaphora.modes()))
        _out(f"    sets: {' '.join(options) or '-'}")


# -- info -----------------------------------------------------------------------------------
@app.command("info")
@edge
@reads
def info_command(
    files: List[Path] = typer.Argument(..., help="files to describe ('-': standard input)"),
    from_format: Optional[str] = typer.Option(None, "--from", help="input format (default: guess)"),
    output: OutputFormat = typer.Option(OutputFormat.text, "--format", help="text or json"),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="write here instead of stdout"),
    jobs: Optional[int] = _jobs_option(),
) -> None:
    """Documents, tokens, markables, entities, chains, singletons and links by type,
    per document and in total (each file, and all files).

    Tokens are the words of the text; empty nodes (CorefUD's, the places of zeros) are
    counted apart. A markable is one mention (its spans of tokens). Markables that corefer form a
    chain; a chain of one markable is a singleton. Entities counts the distinct entity
    ids the markables carry or the file declares: it differs from chains when a file
    declares entities no markable refers to, or when a format names chains some other way.
    """
    from . import parallel

    files = _expanded(files, from_format)
    inputs = [_input(path, from_format) for path in files]
    result = []
    label = _shown(str(inputs[0])) if len(inputs) == 1 else "reading"
    with _counting(label) as done:
        for number, report, infos in parallel.info(inputs, from_format, _jobs(jobs), progress=done):
            _print_report(report, min_severity="warning")
            result.append((files[number], infos))
    from .checks.info import totals

    if output is OutputFormat.json:
        text = json.dumps([{"file": str(path), "documents": [d.as_dict() for d in docs],
                            "total": totals(docs).as_dict()} for path, docs in result], indent=2, ensure_ascii=False)
        _emit(text + "\n", out, inputs)
        return
    lines: list[str] = []
    for path, docs in result:
        lines.append(f"{'-' if str(path) == '-' else path}: {len(docs)} document(s)")
        for d in docs:
            part = f" part {d.part}" if d.part is not None else ""
            lines.append(f"  {d.name!r}{part}: {_counts_text(d)}")
        if len(docs) > 1:
            lines.append(f"  total of the file: {_counts_text(totals(docs))}")
    if len(result) > 1:  # indented as the others: each line that starts in column 1 names a file
        corpus = totals(totals(docs) for _, docs in result)
        lines.append(f"  total of the {len(result)} files: {corpus.documents} documents, {_counts_text(corpus)}")
    _emit("\n".join(lines) + "\n", out, inputs)


def _counts_text(d: Any) -> str:
    """The counts of ``info``'s text output (a document, or the total of several)."""
    links = ", ".join(f"{k}: {v}" for k, v in d.links.items()) or "none"
    empty = f" (and {d.empty_nodes} empty node{'s' if d.empty_nodes > 1 else ''})" if d.empty_nodes else ""
    return (f"{d.tokens} tokens{empty}, {d.sentences} sentences, {d.markables} markables "
            f"({d.discontinuous} discontinuous), {d.chains} chains ({d.singletons} singletons), "
            f"{d.entities} entities, links: {links}")


def _emit(text: str, out: Optional[Path], inputs: List[Path]) -> None:
    """A command's output: on stdout, or written to ``out`` (``-``: stdout too)."""
    if out is None or str(out) == "-":
        _out(text, nl=False)
    else:
        from .io.files import atomic_write

        atomic_write(out, text, inputs=inputs)


# -- convert --------------------------------------------------------------------------------
class Engine(str, Enum):
    python = "python"
    xslt = "xslt"


class Processor(str, Enum):
    lxml = "lxml"
    xsltproc = "xsltproc"


@app.command("convert")
@edge
def convert_command(
    source: Path = typer.Argument(..., help="input file ('-': standard input)"),
    target: Optional[Path] = typer.Argument(None, help="output file, written atomically ('-': standard output; "
                                                        "or give -o)"),
    from_format: Optional[str] = typer.Option(None, "--from", help="input format (default: guess)"),
    to_format: Optional[str] = typer.Option(None, "--to", help="output format (default: from extension)"),
    strict: bool = typer.Option(False, "--strict", help="fail on any reader warning or writer loss"),
    canonical: bool = typer.Option(False, "--canonical",
                                   help="ignore the source's layout; write the format's canonical form"),
    log: Optional[Path] = typer.Option(None, "--log", help="write all diagnostics as JSON here"),
    identity_attribute: Optional[str] = typer.Option(
        None, "--identity-attribute",
        help="MMAX2: the set or pointer attribute that means coreference (ATTR, LEVEL:ATTR or 'none')"),
    chains: Optional[str] = typer.Option(None, "--chains", help="MMAX2 output: chains as 'sets' or 'pointers'"),
    read_option: List[str] = typer.Option([], "--read-option", "-r", metavar="NAME=VALUE",
                                          help="a reader option the input format declares (see `corefio formats`)"),
    write_option: List[str] = typer.Option([], "--write-option", "-w", metavar="NAME=VALUE",
                                           help="a writer option the output format declares"),
    engine: Engine = typer.Option(Engine.python, "--engine",
                                  help="python (the readers and writers) or xslt (xslt/*-to-raf.xsl and "
                                       "raf-to-*.xsl: MUC, MATE, MMAX2, with the rules they applied)"),
    processor: Processor = typer.Option(Processor.lxml, "--xslt-processor",
                                        help="with --engine xslt: lxml, or the xsltproc program"),
    force: bool = typer.Option(False, "--force",
                               help="write an MMAX2 project into a directory that is not empty, "
                                    "over the files of the same names"),
    output: Optional[Path] = typer.Option(None, "-o", "--output", help="output file (instead of the second "
                                                                        "argument)"),
    jobs: Optional[int] = _jobs_option(),
) -> None:
    """Convert between formats (reader → pivot → writer), reporting every loss.

    SOURCE may be a directory of files or a quoted pattern ('data/*.conll'): each file is
    then converted into the directory TARGET, named after it, by --jobs processes."""
    from .errors import UsageError
    from .formats.registry import resolve_format

    if (target is None) == (output is None):
        raise UsageError("give the output once: as the second argument or with -o")
    target = target if target is not None else output
    assert target is not None
    _check_output(target, to_format)
    shown_source = source
    sources = [source] if str(source) == "-" else _expanded([source], from_format)
    many = sources != [source]
    if not many:
        source = _input(source, from_format)
    elif not to_format:
        raise UsageError("converting several files: name the output format with --to")
    report = Report(str(source))
    target_spec = resolve_format(target, to_format, for_writing=not many)
    reading = _named_options(read_option, "--read-option")
    writing = _named_options(write_option, "--write-option")
    if identity_attribute is not None:
        reading["identity_attribute"] = identity_attribute
    if chains is not None:
        writing["chains"] = chains
    if many:
        if canonical and any(o.name == "canonical" for o in target_spec.options):
            writing["canonical"] = True
        _convert_files(sources, target, from_format, to_format, strict=strict, log=log, engine=engine,
                       reading=reading, writing=writing, force=force, jobs=_jobs(jobs))
        return
    if canonical and any(o.name == "canonical" for o in target_spec.options):
        writing["canonical"] = True
    # brat (and LitBank TSV) into a .ann file the user named: the writer places its one
    # document as that file and the .txt beside it
    from .formats.readwrite import writes_one_pair

    pair_target = engine is Engine.python and writes_one_pair(target_spec, target)
    shown_target = Path(f"{target} (and {target.with_suffix('.txt').name})") if pair_target else target
    try:
        if engine is Engine.xslt:
            from .formats.registry import resolve_format as _resolve
            from .transform.engine import convert as xslt_convert

            if reading or writing:
                from .errors import UsageError

                raise UsageError("format options (--read-option, --write-option…) do not apply to --engine xslt")
            xslt_convert(source, target, _resolve(source, from_format).name, target_spec.name, report=report,
                         processor=processor.value, force=force)
        else:
            from . import parallel

            task = parallel.Conversion(str(source), str(target), from_format, target_spec.name, strict,
                                       reading, writing, force)
            pieces = parallel.in_runs(task, _jobs(jobs))
            if pieces is not None:  # a large file: runs of its documents written by --jobs processes
                parallel.convert_in_runs(task, pieces, _jobs(jobs), report=report,
                                         progress=_bar(_shown(str(source))))
            else:
                api.convert(source, target, from_format, target_spec.name, strict=strict, report=report,
                            read_options=reading, force=force, progress=_bar(_shown(str(source))), **writing)
    finally:
        _close_bars()
        _print_report(report)
        if log is not None:
            from .io.files import atomic_write

            atomic_write(log, _shown(report.to_json()) + "\n", inputs=[source])
    losses = len({d.code for d in report if d.code.startswith("loss.") and d.severity != "info"})
    _say(f"converted {shown_source} -> {shown_target}" + (f" ({losses} kind(s) of loss reported)" if losses else ""))


def _convert_files(sources: List[Path], target_dir: Path, from_format: Optional[str], to_format: Optional[str], *,
                   strict: bool, log: Optional[Path], engine: "Engine", reading: dict, writing: dict, force: bool,
                   jobs: int) -> None:
    """``convert`` of many files (a directory, a pattern) into the directory ``target_dir``,
    shared between ``jobs`` processes; reports and messages in the order of the files,
    as converting them one after the other gives."""
    from . import parallel
    from .errors import OutputError, UsageError

    if engine is not Engine.python:
        raise UsageError("--engine xslt converts one file at a time; give a file")
    assert to_format is not None
    if str(target_dir) == "-":
        raise UsageError("converting several files: standard output ('-') cannot hold them; give a directory")
    if target_dir.exists() and not target_dir.is_dir():
        raise OutputError("converting several files: the output must be a directory", file=target_dir)
    targets = [parallel.output_path(source, target_dir, to_format) for source in sources]
    if len(set(targets)) != len(targets):
        raise UsageError("two inputs would be written to the same output (files with the same name)")
    try:
        target_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the directory: {exc.strerror}", file=target_dir) from None
    sources = [_input(source, from_format) for source in sources]
    reports = []
    tasks = [parallel.Conversion(str(s), str(t), from_format, to_format, strict, reading, writing, force)
             for s, t in zip(sources, targets)]
    try:
        with _counting("converting") as done:
            for (source, target), (report, error, documents) in zip(zip(sources, targets),
                                                                    parallel.convert(tasks, jobs)):
                if done is not None:
                    done(documents)
                reports.append(report)
                _print_report(report)
                if error is not None:
                    raise error
                losses = len({d.code for d in report if d.code.startswith("loss.") and d.severity != "info"})
                _say(f"converted {source} -> {target}" + (f" ({losses} kind(s) of loss reported)" if losses else ""))
    finally:
        if log is not None:
            from .io.files import atomic_write

            combined = Report()
            for report in reports:
                combined.extend(report)
            atomic_write(log, _shown(combined.to_json()) + "\n", inputs=sources)


def _named_options(items: List[str], flag: str) -> dict[str, Any]:
    """``NAME=VALUE`` pairs; values ``true``/``false`` become booleans (each format
    checks the names and types it declares)."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise typer.BadParameter(f"expected NAME=VALUE, got {item!r}", param_hint=flag)
        out[name.strip().replace("-", "_")] = {"true": True, "false": False}.get(value.lower(), value)
    return out


# -- repair ---------------------------------------------------------------------------------
@app.command("repair")
@edge
def repair_command(
    source: Path = typer.Argument(..., help="MUC SGML, an MMAX2 level file, RAF or any XML-ish file"),
    output: Path = typer.Option(..., "-o", "--output", help="the repaired XML (written atomically)"),
    report_path: Optional[Path] = typer.Option(None, "--report", help="write every change as JSON here"),
    strict: bool = typer.Option(False, "--strict", help="refuse (exit 5, nothing written) if anything needs repair"),
) -> None:
    """Make malformed SGML/XML well-formed, reporting every change with line:column."""
    from .io.repair import repair_file

    shown_source = source
    source = _input(source, None)
    report = repair_file(source, output, report_path=report_path, strict=strict)
    _print_report(report)
    _say(f"repaired {shown_source} -> {output} ({len(report)} change(s))")


# -- sync -----------------------------------------------------------------------------------
class Strategy(str, Enum):
    key = "key"
    response = "response"
    intersection = "intersection"
    union = "union"


class PairBy(str, Enum):
    name = "name"
    order = "order"


class ZeroMatch(str, Enum):
    dependent = "dependent"
    linear = "linear"


class Repeats(str, Enum):
    scorer = "scorer"
    corefud = "corefud"


@app.command("sync")
@edge
@reads
def sync_command(
    key: Path = typer.Argument(..., help="the key file, any readable format"),
    response: Path = typer.Argument(..., help="the response file, any readable format"),
    outdir: Path = typer.Option(..., "-o", "--output", help="directory for the two synchronised files"),
    strategy: Strategy = typer.Option(Strategy.key, "--strategy",
                                      help="which markable set both sides keep"),
    to_format: str = typer.Option("raf", "--to", help="format of the synchronised files"),
    pair_by: PairBy = typer.Option(PairBy.name, "--pair-by", help="pair documents by name or by order"),
    pairs: Optional[Path] = typer.Option(None, "--pairs",
                                         help="a file of 'KEY-NAME<TAB>RESPONSE-NAME' lines pairing documents"),
    from_format: Optional[str] = typer.Option(None, "--from", help="format of both inputs (default: guess)"),
    jobs: Optional[int] = _jobs_option(),
) -> None:
    """Re-index key and response markables by their targets and give both the same
    markable set; write the two synchronised files and report what changed."""
    from . import parallel
    from .formats.registry import get_format

    if str(outdir) == "-":
        from .errors import UsageError

        raise UsageError("sync writes two files into a directory: standard output ('-') cannot hold them; "
                         "give a directory")
    _paired_files[:] = [str(key), str(response)]
    spec = get_format(to_format)
    extension = next((e for e in spec.extensions if e.endswith(".xml")), spec.extensions[0] if spec.extensions
                     else f".{spec.name}")
    lists = _paired_lists(key, [response], from_format, from_format)
    if lists is not None:
        if pairs is not None:
            from .errors import UsageError

            raise UsageError("--pairs pairs the documents of one key and one response file, not directories")
        tasks = [parallel.FileSync(str(k), str(r), (str(outdir / _file_name(k) / f"key{extension}"),
                                                    str(outdir / _file_name(k) / f"response{extension}")),
                                   spec.name, strategy.value, from_format, pair_by.value)
                 for k, r in zip(lists[0], lists[1][0])]
        created = _output_directory(outdir)
        try:
            for task, report in parallel.sync_files(tasks, _jobs(jobs), progress=_bar("synchronising")):
                _print_report(report)
                _say(f"synchronised ({strategy.value}): " + ", ".join(task.targets))
        except BaseException:
            if created and not any(outdir.iterdir()):  # nothing written: no directory left behind either
                outdir.rmdir()
            raise
        _close_bars()
        return
    key, response = _input(key, from_format), _input(response, from_format)
    key_side, response_side = parallel.sync_sides(key, response, from_format)
    try:
        pairing, pairing_report = parallel.sync_pairs(key_side, response_side, pair_by.value, pairs)
    except CorefioError as exc:  # documents that do not pair concern both files
        raise exc.located(_shown(f"{key} and {response}")) from None
    created = _output_directory(outdir)
    written = [outdir / f"{side}{extension}" for side in ("key", "response")]
    try:
        report = parallel.sync(key_side, response_side, pairing, pairing_report, (written[0], written[1]),
                               spec.name, strategy=strategy.value, jobs=_jobs(jobs), progress=_bar("synchronising"))
    except BaseException:
        if created and not any(outdir.iterdir()):  # nothing written: no directory left behind either
            outdir.rmdir()
        raise
    _close_bars()
    _print_report(report)
    _say(f"synchronised ({strategy.value}): " + ", ".join(map(str, written)))


def _output_directory(outdir: Path) -> bool:
    """Make ``outdir`` unless it is a directory already; True if made."""
    if outdir.is_dir():
        return False
    try:
        outdir.mkdir(parents=True)
    except OSError as exc:
        from .errors import OutputError

        raise OutputError(f"cannot create the directory: {exc.strerror}", file=outdir) from None
    return True


# -- validate -------------------------------------------------------------------------------
@app.command("validate")
@edge
@reads
def validate_command(
    files: List[Path] = typer.Argument(..., help="files to validate ('-': standard input)"),
    from_format: Optional[str] = typer.Option(None, "--from", help="input format (default: guess)"),
    output: OutputFormat = typer.Option(OutputFormat.text, "--format", help="text or json"),
    strict: bool = typer.Option(False, "--strict", help="warnings count as failures"),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="write the verdicts here instead of stdout"),
    jobs: Optional[int] = _jobs_option(),
) -> None:
    """XSD validation (XML formats) and semantic checks: ids, references, spans, crossing.

    Findings come one line per kind, at the file and line of the first occurrence, with
    how many there were in all (-v lists every one)."""
    from . import parallel

    files = [_input(path, from_format) for path in _expanded(files, from_format)]
    failed = False
    results = []
    with _counting("validating") as done:
        for number, report in parallel.validate(files, from_format, _jobs(jobs), progress=done):
            bad = bool(report.errors or (strict and report.warnings))
            failed = failed or bad
            results.append((files[number], report, bad))
    lines: list[str] = []
    if output is OutputFormat.json:
        lines.append(json.dumps(
            [{"file": str(p), "valid": not bad, "diagnostics": [d.to_dict() for d in r]}
             for p, r, bad in results], indent=2, ensure_ascii=False))
    else:
        for path, report, bad in results:
            # one line per kind of finding, where it happened first (-v: every one)
            if _verbosity > 0:
                lines.extend(d.format() for d in report)
            else:
                lines.extend(group.format() for group in Report.group(report))
            e, w = len(report.errors), len(report.warnings)
            lines.append(f"{path}: {'INVALID' if bad else 'valid'} ({e} error(s), {w} warning(s))")
    _emit(_shown("\n".join(lines) + "\n"), out, files)
    if failed:
        raise typer.Exit(EXIT_INVALID)


# -- view -----------------------------------------------------------------------------------
@app.command("view")
@edge
@reads
def view_command(
    source: Path = typer.Argument(..., help="file to display (any readable format; '-': standard input)"),
    output: Path = typer.Option(..., "-o", "--output", help="HTML page to write ('-': standard output)"),
    from_format: Optional[str] = typer.Option(None, "--from", help="input format (default: guess)"),
    response: Optional[Path] = typer.Option(None, "--response",
                                            help="a response to show beside SOURCE (the key), its errors marked"),
    response_format: Optional[str] = typer.Option(None, "--response-format",
                                                  help="format of the response (default: guess)"),
    match: str = typer.Option("exact", "--match", help="mention matching with --response: exact, head, min, "
                                                       "partial"),
    keep_singletons: bool = typer.Option(True, "--keep-singletons/--drop-singletons",
                                         help="with --response: keep one-mention chains (as scoring does)"),
    pair_by: PairBy = typer.Option(PairBy.name, "--pair-by", help="with --response: pair documents by name or by order"),
    pairs: Optional[Path] = typer.Option(None, "--pairs",
                                         help="with --response: a file of 'key-name<TAB>response-name' lines"),
    cross_document: Optional[str] = typer.Option(None, "--cross-document",
                                                 help="with --response: one view per corpus, topic or subtopic, "
                                                      "chains across its documents"),
    mention_type: str = typer.Option("all", "--mention-type", help="with --cross-document: all, event or entity"),
    adjudicate: bool = typer.Option(False, "--adjudicate",
                                    help="with --response: SOURCE and the response are two annotators; show the "
                                         "adjudication view (both, the merged gold, the conflicts)"),
) -> None:
    """Render a file as an HTML page (xslt/raf-to-html.xsl): bracketed text and chains.
    With --response: the key and the response side by side, their errors marked
    (Kummerfeld & Klein's classes, as `score --errors` counts them); with --adjudicate,
    the two as annotators, their conflicts and the merged gold."""
    from .io.files import atomic_write

    if adjudicate:
        _view_adjudication(source, from_format, response, response_format, output)
        return
    from .transform.html import render_html

    if cross_document is not None and response is not None:
        from .scoring.crossdoc import CrossSettings
        from .web import view

        report = Report()
        key_in, response_in = _input(source, from_format), _input(response, response_format)
        units_shown = view.unit_documents(key_in, response_in, CrossSettings(cross_document, keep_singletons,
                                                                             mention_type),
                                          key_format=from_format, response_format=response_format, report=report)
        shown = [(f"{cross_document} {label}", view.build(k, r, match="exact", keep_singletons=keep_singletons,
                                                          page_tokens=None)) for label, k, r in units_shown]
        _print_report(report, min_severity="warning")
        page = view.render_file(shown, key_name=Path(str(source)).name, response_name=Path(str(response)).name,
                                keep_singletons=keep_singletons)
        atomic_write(output, page.encode("utf-8"), inputs=[source, response])
        if str(output) != "-":
            _say(f"wrote {output}")
        return
    source = _input(source, from_format)
    if response is not None:  # (both inputs looked at before either is read)
        response = _input(response, response_format)
    report = Report(str(source))
    corpus = api.read(source, from_format, report=report)
    if response is not None:
        from .errors import UsageError
        from .compare.synchronisation import pair_documents
        from .web import view

        if match not in ("exact", "head", "min", "partial"):
            raise UsageError(f"unknown matching mode {match!r} (exact, head, min, partial)")
        system = api.read(response, response_format, report=report)
        paired_documents = pair_documents(corpus, system, pair_by.value, pairs, report)
        if not paired_documents:
            raise UsageError("no key document has a response document (documents are paired by name)")
        paired = {i for i, _ in paired_documents}
        shown = [(corpus.documents[i].label, view.build(corpus.documents[i], system.documents[j], match=match,
                                                        keep_singletons=keep_singletons, page_tokens=None))
                 for i, j in paired_documents]
        _print_report(report, min_severity="warning")
        page = view.render_file(shown, key_name=Path(str(source)).name, response_name=Path(str(response)).name,
                                match=match, keep_singletons=keep_singletons,
                                missing=[d.label for k, d in enumerate(corpus.documents) if k not in paired])
        atomic_write(output, page.encode("utf-8"), inputs=[source, response])
        if str(output) != "-":
            _say(f"wrote {output}")
        return
    _print_report(report, min_severity="warning")
    atomic_write(output, render_html(corpus), inputs=[source])
    if str(output) != "-":
        _say(f"wrote {output}")


def _view_adjudication(source: Path, source_format: Optional[str], response: Optional[Path],
                       response_format: Optional[str], output: Path) -> None:
    """``view --adjudicate``: the two files as annotators (majority vote: their union),
    the gold embedded in the first file's format."""
    from .agreement import adjudicate as merge_annotations
    from .agreement.view import render
    from .errors import UsageError
    from .formats.registry import detect_format, get_format
    from .io.files import atomic_write

    if response is None:
        raise UsageError("--adjudicate shows two annotators: give the second with --response")
    first = _input(source, source_format)
    second = _input(response, response_format or source_format)
    report = Report()
    result = merge_annotations([first, second], format=source_format or response_format, report=report)
    _print_report(report, min_severity="warning")
    spec = get_format(source_format) if source_format else detect_format(first)
    written = None if spec.directory else api.dumps(result.gold, spec.name)
    data = written.encode("utf-8") if isinstance(written, str) else written
    name = f"gold{spec.extensions[0] if spec.extensions else ''}"
    atomic_write(output, render(result, gold_name=name if data is not None else None, gold_bytes=data)
                 .encode("utf-8"), inputs=[first, second])
    if str(output) != "-":
        _say(f"wrote {output}")


# -- score -----------------------------------------------------------------------------------
class ScoreFormat(str, Enum):
    text = "text"
    scorer = "scorer"
    json = "json"
    csv = "csv"


def _metric_help() -> str:
    from .scoring.registry import metric_help

    return metric_help()


def _plot_option() -> Any:
    return typer.Option(None, "--plot", metavar="FILE.png|svg",
                        help="also draw the result into this picture, PNG or SVG by its suffix (needs the plot "
                             "extra: pip install 'corefio[plot]')")


def _plot_format(plot: Optional[Path]) -> None:
    """Check ``--plot`` before any work: a .png or .svg file, and matplotlib installed."""
    if plot is not None:
        from .plots import format_of

        format_of(plot)


def _save_plot(figure: Any, plot: Path, inputs: List[Path]) -> None:
    from .plots import save

    save(figure, plot, inputs=inputs)
    _say(f"plotted -> {plot}")


def _preset_help() -> str:
    from .scoring.presets import preset_help

    return preset_help()


def _given(ctx: typer.Context, parameter: str) -> bool:
    """Was the command's option ``parameter`` (its Python name) given on the command
    line, rather than left at its default?"""
    source = ctx.get_parameter_source(parameter)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


#: the scoring options a preset sets, by the name of the command's parameter
_PRESET_PARAMETERS = {"metric": "metrics", "keep_singletons": "keep_singletons", "match": "match",
                      "keep_zeros": "keep_zeros", "zero_match": "zero_match", "repeats": "repeats"}


def _settings(ctx: typer.Context, preset: Optional[str], **values: Any):
    """The settings of a score (:func:`corefio.scoring.presets.resolve`): the preset's,
    overridden by the options given on the command line. ``values``: the options by
    preset name (``metrics=...``); a command without one of them passes none."""
    from .scoring.presets import resolve

    by_option = {option: parameter for parameter, option in _PRESET_PARAMETERS.items()}
    return resolve(preset, {name: value for name, value in values.items() if _given(ctx, by_option[name])})


@app.command("score")
@edge
@reads
def score_command(
    ctx: typer.Context,
    key: Path = typer.Argument(..., help="the key (gold) file, any readable format ('-': standard input)"),
    response: Path = typer.Argument(..., help="the response (system) file, any readable format ('-': standard "
                                              "input)"),
    metric: List[str] = typer.Option(["default"], "--metric", "-m", help=_lazy_help(_metric_help)),
    per_document: bool = typer.Option(False, "--per-document", help="also show every document's scores"),
    keep_singletons: bool = typer.Option(True, "--keep-singletons/--drop-singletons",
                                         help="keep one-mention chains (default, as the reference scorer)"),
    output: ScoreFormat = typer.Option(ScoreFormat.text, "--format",
                                       help="text (a table: recall, precision, F1 in %), scorer (the reference "
                                            "scorer's transcript), json or csv"),
    macro: bool = typer.Option(False, "--macro", help="add the mean of document scores"),
    allow_missing: bool = typer.Option(False, "--allow-missing",
                                       help="score key documents missing from the response as empty"),
    from_format: Optional[str] = typer.Option(None, "--from", help="format of both inputs (default: guess)"),
    key_format: Optional[str] = typer.Option(None, "--key-format", help="format of the key"),
    response_format: Optional[str] = typer.Option(None, "--response-format", help="format of the response"),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="write the scores here instead of stdout"),
    strict: bool = typer.Option(False, "--strict", help="fail (exit 5) on any warning"),
    coefficients: str = typer.Option("1,0.75,0.5,0.25", "--coefficients", metavar="K1,K2,K3,K4",
                                     help="typed evaluation: k1,k2,k3,k4 for TP, WT, WL, WTL"),
    scheme_classes: Optional[int] = typer.Option(None, "--scheme-classes",
                                                 help="typed evaluation: number of classes of the scheme (n)"),
    type_attribute: str = typer.Option("coref_type", "--type-attribute", help="typed: markable attribute with the type code"),
    dominant_attribute: str = typer.Option("dominant", "--dominant-attribute", help="typed: markable attribute flagging dominant mentions"),
    match: str = typer.Option("exact", "--match",
                              help="mention matching: exact, head (same head token), min (MUC MIN rule), "
                                   "partial (corefud-scorer's partial-corefud)"),
    sync: Optional[str] = typer.Option(None, "--sync",
                                       help="score synchronisation strategies side by side: all, or some of "
                                            "key,response,intersection,union"),
    pair_by: PairBy = typer.Option(PairBy.name, "--pair-by", help="pair documents by name or by order"),
    pairs: Optional[Path] = typer.Option(None, "--pairs",
                                         help="a file of 'KEY-NAME<TAB>RESPONSE-NAME' lines pairing documents"),
    keep_zeros: bool = typer.Option(False, "--keep-zeros",
                                    help="score zero mentions (CorefUD empty nodes); left out by default"),
    zero_match: ZeroMatch = typer.Option(ZeroMatch.dependent, "--zero-match",
                                         help="with --keep-zeros: pair zeros by their dependencies first "
                                              "(dependent, as corefud-scorer) or by their places (linear)"),
    repeats: Repeats = typer.Option(Repeats.scorer, "--repeats",
                                    help="a span in two chains, and BLANC's halves: scorer.pl v8.01's rule "
                                         "(scorer) or corefud-scorer's (corefud), whatever the format"),
    errors: bool = typer.Option(False, "--errors",
                                help="also classify the errors (Kummerfeld & Klein 2013: span error, conflated "
                                     "and divided entities, extra and missing mentions and entities)"),
    group_by: Optional[str] = typer.Option(None, "--group-by",
                                           help="also score groups of documents: genre, prefix:N, re:PATTERN "
                                                "or meta:FIELD"),
    by_kind: Optional[str] = typer.Option(None, "--by-kind",
                                          help="also score each mention kind (pronoun, proper, nominal): "
                                               "pos (tags, else head words), head, or attr:NAME"),
    preset: Optional[str] = typer.Option(None, "--preset", help=_lazy_help(_preset_help)),
    plot: Optional[Path] = _plot_option(),
    anaphora: List[str] = typer.Option([], "--anaphora",
                                       help="also score as the Universal Anaphora scorer: identity, split, "
                                            "split-only, dd, non-referring, non-referring-kept, bridging, mor, "
                                            "zero, keep-zeros, partial, craft (comma-separated or repeated)"),
    jobs: Optional[int] = _jobs_option(),
    cross_document: Optional[str] = typer.Option(None, "--cross-document",
                                                 help="score across documents: each corpus, topic, subtopic or "
                                                      "block (the meta-documents of a cdcr-conll file) as one "
                                                      "unit, as the CDCR papers do (--jobs: by unit)"),
    within_document: bool = typer.Option(False, "--within-document",
                                         help="with the CDCR options: the classic per-document scores"),
    mention_type: str = typer.Option("all", "--mention-type", help="cross-document: all, event or entity mentions"),
    validated_only: bool = typer.Option(False, "--validated-only",
                                        help="cross-document: only mentions of ECB+'s validated sentences"),
    topics: Optional[Path] = typer.Option(None, "--topics",
                                          help="cross-document: a DOCUMENT<TAB>TOPIC[<TAB>SUBTOPIC] file"),
    topic_pattern: Optional[str] = typer.Option(None, "--topic-pattern",
                                                help="cross-document: a regular expression with a group 'topic' "
                                                     "(and 'subtopic') on document names"),
    style: List[str] = typer.Option([], "--style",
                                    help="score in published CDCR evaluation styles side by side: all, or "
                                         "barhom2019, topic, cattan2021, cattan2021-singletons, subtopic"),
) -> None:
    """Score RESPONSE against KEY: MUC, B³, CEAF, BLANC, LEA, CoNLL, and more (see --metric)."""
    from fractions import Fraction

    from .scoring import score

    if cross_document is not None or within_document or style:
        from .scoring.crossdoc import command_text

        report = Report()
        text = command_text(
            _input(key, key_format or from_format), _input(response, response_format or from_format),
            ["muc", "bcub", "ceafe", "lea", "conll"] if metric == ["default"] else metric,
            level="document" if within_document else cross_document, styles=style,
            keep_singletons=keep_singletons, mention_type=mention_type, validated_only=validated_only,
            output=output.value, per_unit=per_document, key_format=key_format or from_format,
            response_format=response_format or from_format, topics=topics, topic_pattern=topic_pattern,
            allow_missing=allow_missing, workers=jobs, report=report, errors=errors)
        _print_report(report, min_severity="warning")
        if strict:
            report.check_strict()
        _emit(_shown(text), out, [key, response])
        return

    try:
        k = [Fraction(x.strip()) for x in coefficients.split(",")]
        if len(k) != 4:
            raise ValueError
    except (ValueError, ZeroDivisionError):
        raise typer.BadParameter("give four numbers, e.g. 1,0.75,0.5,0.25", param_hint="--coefficients") from None
    _paired_files[:] = [str(key), str(response), "--allow-missing"]
    global _format_flags
    _format_flags = ("--key-format", "--response-format")
    _plot_format(plot)
    if plot is not None and sync is not None:
        from .errors import UsageError

        raise UsageError("--plot draws the documents' scores of plain scoring; leave out --sync")
    settings = _settings(ctx, preset, metrics=metric, keep_singletons=keep_singletons, match=match,
                         keep_zeros=keep_zeros, zero_match=zero_match.value, repeats=repeats.value)
    chosen = settings.options
    metric, keep_singletons, match = list(chosen["metrics"]), chosen["keep_singletons"], chosen["match"]
    keep_zeros, zero_match, repeats = chosen["keep_zeros"], ZeroMatch(chosen["zero_match"]), Repeats(chosen["repeats"])
    ua_settings = None
    if settings.anaphora is not None or anaphora:
        from .scoring import anaphora as UA

        ua_settings = UA.settings_from(preset, anaphora, metric if _given(ctx, "metric") else None, options=chosen)
        if _given(ctx, "keep_singletons") or settings.anaphora is None:  # --drop-singletons: the UA scorer's default
            ua_settings = dataclasses.replace(ua_settings, keep_singletons=keep_singletons)
        settings = dataclasses.replace(settings, anaphora=ua_settings)
    lists = _paired_lists(key, [response], key_format or from_format, response_format or from_format)
    if lists is not None:
        from .errors import UsageError

        if by_kind is not None or errors or (group_by or "").startswith("meta:"):
            raise UsageError("--by-kind, --errors and --group-by meta: take one key and one response file, "
                             "not directories")
        key, response = lists[0], lists[1][0]  # type: ignore[assignment]
    else:
        key = _input(key, key_format or from_format)
        response = _input(response, response_format or from_format)
    report = Report()
    from .parallel import file_runner, score_runner

    bar = _bar("scoring")
    result = score(
        key, response, metric, keep_singletons=keep_singletons,
        per_document=per_document or group_by is not None or plot is not None,
        macro=macro,
        allow_missing=allow_missing,
        report=report, key_format=key_format or from_format, response_format=response_format or from_format,
        coefficients=k, scheme_classes=scheme_classes, type_attribute=type_attribute,
        dominant_attribute=dominant_attribute, match=match, sync=sync, pair_by=pair_by.value, pairs_file=pairs,
        keep_zeros=keep_zeros, zero_match=zero_match.value, runner=score_runner(_jobs(jobs), bar),
        file_runner=file_runner(_jobs(jobs), bar), repeats=repeats.value,
    )
    _close_bars()
    breakdowns = []
    if group_by is not None or by_kind is not None:
        from .errors import UsageError
        from .scoring import Scores
        from .scoring import breakdown as B

        if sync is not None:
            raise UsageError("--group-by and --by-kind break down plain scoring; leave out --sync")
        if group_by is not None:
            grouping = (B.metadata_groups(key, group_by[5:], key_format or from_format)
                        if group_by.startswith("meta:") else B.group_function(group_by))
            assert isinstance(result, Scores)  # sync was refused above
            breakdowns.append(("groups", B.by_group(result, grouping)))
        if by_kind is not None:
            pairs_of_views = B.kind_pairs(key, response, key_format=key_format or from_format,
                                          response_format=response_format or from_format, pair_by=pair_by.value,
                                          pairs_file=pairs, allow_missing=allow_missing, match=match)
            breakdowns.append(("kinds", B.by_kind(pairs_of_views, by_kind, result.metrics)))
    analysis = None
    if errors:
        from .errors import UsageError
        from .scoring.error_analysis import analyse_files

        if sync is not None:
            raise UsageError("--errors analyses plain scoring; leave out --sync")
        analysis = analyse_files(key, response, key_format=key_format or from_format,
                                 response_format=response_format or from_format, pair_by=pair_by.value,
                                 pairs_file=pairs, allow_missing=allow_missing, match=match,
                                 keep_singletons=keep_singletons, report=Report())
    ua_result = None
    if ua_settings is not None:
        ua_result = UA.score_files(key, response, ua_settings, key_format=key_format or from_format,
                                   response_format=response_format or from_format, allow_missing=allow_missing,
                                   report=Report())
    _print_report(report, min_severity="warning", also=PAIRING_NOTES)
    if strict:
        report.check_strict()
    if output is ScoreFormat.json:
        data = result.to_dict(per_document)
        if analysis is not None:
            data["errors"] = analysis.to_dict(per_document)
        for name, table in breakdowns:
            data[name] = table.to_dict()
        if ua_result is not None:
            data["anaphora"] = ua_result.to_dict()
        data["settings"] = settings.to_dict()
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    elif output is ScoreFormat.csv:
        text = result.to_csv(per_document)
        if analysis is not None:
            import csv
            import io

            buffer = io.StringIO()
            writer = csv.writer(buffer, lineterminator="\n")
            writer.writerow(["document", "error_class", "count", *(f"gain_{m}" for m in analysis.metrics)])
            writer.writerows(analysis.csv_rows(per_document))
            text += "\n" + buffer.getvalue()
    else:
        text = result.to_text(per_document) if output is ScoreFormat.scorer else result.to_table(per_document)
        if output is ScoreFormat.text and ua_result is not None and ua_result.sections and not per_document \
                and settings.preset is not None and settings.preset.tool == "UA scorer":
            # a preset of the UA scorer's shows the UA scorer's numbers as the score
            text, ua_result = ua_result.to_text(), None
        if analysis is not None:
            text += "\n" + analysis.to_text(per_document)
        for _, table in breakdowns:
            text += "\n" + table.to_text()
        if ua_result is not None:
            text += "\n" + ua_result.to_text()
        if output is ScoreFormat.text:
            text += "\n" + "\n".join(settings.describe()) + "\n"
    if output in (ScoreFormat.json, ScoreFormat.csv):
        text = _shown(text)
    if plot is not None:
        from .plots import score_figure

        _save_plot(score_figure(result, analysis), plot, [key, response])
    _emit(text, out, [key, response])



class CompareFormat(str, Enum):
    text = "text"
    json = "json"


@app.command("compare")
@edge
@reads
def compare_command(
    ctx: typer.Context,
    key: Path = typer.Argument(..., help="the key (gold) file, any readable format"),
    responses: List[Path] = typer.Argument(..., help="two or more system outputs, any readable format"),
    metric: str = typer.Option("muc,bcub,ceafe,conll", "--metric", "-m",
                               help="metrics to compare (those whose corpus score sums document counts, "
                                    "conll and blanc)"),
    samples: int = typer.Option(10_000, "--samples", help="randomisation and bootstrap samples"),
    seed: Optional[int] = typer.Option(None, "--seed", help="random seed (the same seed gives the same p-values)"),
    confidence: float = typer.Option(0.95, "--confidence", help="level of the bootstrap confidence intervals"),
    match: str = typer.Option("exact", "--match", help="mention matching: exact, head, min, partial"),
    keep_singletons: bool = typer.Option(True, "--keep-singletons/--drop-singletons",
                                         help="keep one-mention chains (default, as the reference scorer)"),
    from_format: Optional[str] = typer.Option(None, "--from", help="format of every input (default: guess)"),
    output: CompareFormat = typer.Option(CompareFormat.text, "--format", help="text or json"),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="write the table here instead of stdout"),
    errors: bool = typer.Option(False, "--errors", help="also classify each system's errors (Kummerfeld & Klein)"),
    preset: Optional[str] = typer.Option(None, "--preset", help="a scorer's settings (as for score): its "
                                         "matching, singletons, zeros and the metrics of it that can be resampled"),
    plot: Optional[Path] = _plot_option(),
    jobs: Optional[int] = _jobs_option(),
    cross_document: Optional[str] = typer.Option(None, "--cross-document",
                                                 help="compare across documents: score each corpus, topic or "
                                                      "subtopic as one unit and resample the units"),
    mention_type: str = typer.Option("all", "--mention-type", help="cross-document: all, event or entity mentions"),
    validated_only: bool = typer.Option(False, "--validated-only",
                                        help="cross-document: only mentions of ECB+'s validated sentences"),
    topics: Optional[Path] = typer.Option(None, "--topics",
                                          help="cross-document: a DOCUMENT<TAB>TOPIC[<TAB>SUBTOPIC] file"),
    topic_pattern: Optional[str] = typer.Option(None, "--topic-pattern",
                                                help="cross-document: a regular expression with a group 'topic'"),
) -> None:
    """Compare systems: F1 with bootstrap confidence intervals, and paired significance
    tests (approximate randomisation, paired bootstrap) over documents for every pair."""
    import json

    from .errors import UsageError
    from .scoring.significance import compare

    if len(responses) < 2:
        raise UsageError("compare needs at least two responses (use score for one)")
    _plot_format(plot)
    if cross_document is not None:
        from .scoring.crossdoc import CrossSettings, analyse_cross
        from .scoring.significance import compare_cross

        labels = [r.name for r in responses]
        if len(set(labels)) != len(labels):
            labels = [str(r) for r in responses]
        settings = CrossSettings(cross_document, keep_singletons, mention_type, validated_only)
        report = Report()
        inputs = [_input(key, from_format), *(_input(r, from_format) for r in responses)]
        result = compare_cross(inputs[0], inputs[1:], [m.strip() for m in metric.split(",") if m.strip()],
                               names=labels, samples=samples, seed=seed, level=confidence, settings=settings,
                               key_format=from_format, response_format=from_format, topics=topics,
                               topic_pattern=topic_pattern, report=report)
        analyses = {label: analyse_cross(inputs[0], response, settings, key_format=from_format,
                                         response_format=from_format, topics=topics, topic_pattern=topic_pattern)
                    for label, response in zip(labels, inputs[1:])} if errors else {}
        _print_report(report, min_severity="warning")
        if output is CompareFormat.json:
            data = result.to_dict()
            if analyses:
                data["errors"] = {label: a.to_dict() for label, a in analyses.items()}
            text = json.dumps(data, indent=2) + "\n"
        else:
            text = result.to_text() + "".join(f"\n{label}:\n{a.to_text()}" for label, a in analyses.items())
        _emit(text, out, [key, *responses])
        if plot is not None:
            from .plots import compare_figure

            _save_plot(compare_figure(result, analyses or None), plot, [key, *responses])
        return
    shown_responses = responses
    labels = [r.name for r in shown_responses]
    if len(set(labels)) != len(labels):
        labels = [str(r) for r in shown_responses]
    lists = _paired_lists(key, responses, from_format, from_format)
    if lists is not None:
        if errors:
            raise UsageError("--errors takes one key file and response files, not directories")
        key, responses = lists  # type: ignore[assignment]
    else:
        key = _input(key, from_format)
        responses = [_input(response, from_format) for response in responses]
    from .parallel import file_runner, score_runner
    from .scoring.presets import comparable, scoring_options

    settings = _settings(ctx, preset, metrics=[metric], keep_singletons=keep_singletons, match=match)
    # the metrics: those given, else the preset's that can be resampled, else compare's own
    compared = [metric] if preset is None or _given(ctx, "metric") else comparable(settings.options["metrics"])
    settings = dataclasses.replace(settings, options={**settings.options, "metrics": compared})
    chosen = scoring_options(settings)
    metrics = [m.strip() for name in chosen.pop("metrics") for m in name.split(",") if m.strip()]
    match, keep_singletons = chosen["match"], chosen["keep_singletons"]
    bar = _bar("scoring")
    result = compare(key, responses, metrics, names=labels, samples=samples, seed=seed, level=confidence,
                     **chosen, key_format=from_format, response_format=from_format,
                     runner=score_runner(_jobs(jobs), bar), file_runner=file_runner(_jobs(jobs), bar))
    _close_bars()
    analyses = {}
    if errors:
        from .scoring.error_analysis import analyse_files

        analyses = {label: analyse_files(key, response, key_format=from_format, response_format=from_format,
                                         match=match, keep_singletons=keep_singletons)
                    for label, response in zip(labels, responses)}
    if output is CompareFormat.json:
        data = result.to_dict()
        if analyses:
            data["errors"] = {label: a.to_dict() for label, a in analyses.items()}
        data["settings"] = settings.to_dict()
        text = json.dumps(data, indent=2) + "\n"
    else:
        text = result.to_text() + "".join(f"\n{label}:\n{a.to_text()}" for label, a in analyses.items())
        text += "\n" + "\n".join(settings.describe()) + "\n"
    if plot is not None:
        from .plots import compare_figure

        _save_plot(compare_figure(result, analyses or None), plot, [key, *responses])
    _emit(text, out, [key, *responses])

# -- agree and adjudicate ------------------------------------------------------------------------
class TableFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


def _annotations(paths: List[Path], from_format: Optional[str]) -> List[List[Path]]:
    """Each argument is one annotator's annotation: a file, an MMAX2 project, or a
    directory (or quoted pattern) of files read as one annotation."""
    out = []
    for path in paths:
        files = _expanded([path], from_format) if _names_files(path, from_format) else [_input(path, from_format)]
        for member in files:
            _check_input(member, from_format)
            _note_format(member, from_format)
        out.append(files)
    return out


def _annotator_names(names: Optional[str], paths: List[Path]) -> Optional[List[str]]:
    from .errors import UsageError

    if names is None:
        shown = [p.name.split(".")[0] or str(p) for p in paths]
        return shown if len(set(shown)) == len(shown) else [str(p) for p in paths]
    given = [n.strip() for n in names.split(",")]
    if len(given) != len(paths) or not all(given):
        raise UsageError(f"--names gives {len(given)} name(s) for {len(paths)} annotation(s)")
    return given


@app.command("agree")
@edge
@reads
def agree_command(
    ctx: typer.Context,
    annotations: List[Path] = typer.Argument(..., metavar="ANNOTATION...",
                                             help="one annotation per annotator (two or more): a file, an MMAX2 "
                                                  "project, or a directory or quoted pattern of files; any format"),
    names: Optional[str] = typer.Option(None, "--names", help="the annotators' names, comma-separated "
                                                             "(default: the file names)"),
    distance: str = typer.Option("passonneau", "--distance",
                                 help="set distance of the chain alpha: passonneau, masi or dkpro-masi"),
    window: Optional[int] = typer.Option(None, "--window", help="also rank passages of this many sentences"),
    sync: Optional[str] = typer.Option(None, "--sync", help="score the pairwise table under this synchronisation "
                                                           "strategy: key, response, intersection or union"),
    allow_missing: bool = typer.Option(False, "--allow-missing",
                                       help="measure each document over the annotators that have it"),
    from_format: Optional[str] = typer.Option(None, "--from", help="format of every annotation (default: guess)"),
    output: TableFormat = typer.Option(TableFormat.table, "--format", help="table, json or csv"),
    limit: int = typer.Option(10, "--limit", help="documents and passages shown in the table"),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="write the result here instead of stdout"),
    preset: Optional[str] = typer.Option(None, "--preset", help="score the pairwise table with a scorer's "
                                         "settings (as for score): its matching, singletons, zeros"),
    plot: Optional[Path] = _plot_option(),
) -> None:
    """Agreement among annotators: chain alpha (Passonneau 2004), mention alpha_u, and
    MUC, B3, CEAF-e, LEA, BLANC and CoNLL F1 for every pair of annotators."""
    import json

    from .agreement import agree
    from .agreement.render import to_csv, to_dict, to_text
    from .errors import UsageError

    if len(annotations) < 2:
        raise UsageError("agree needs two or more annotations, one per annotator")
    if sync is not None and sync not in ("key", "response", "intersection", "union"):
        raise UsageError(f"unknown synchronisation strategy {sync!r} (known: key, response, intersection, union)")
    _plot_format(plot)
    sources = _annotations(annotations, from_format)
    report = Report()
    from .scoring.presets import chain_options

    settings = _settings(ctx, preset)
    result = agree(sources, names=_annotator_names(names, annotations), format=from_format, distance=distance,
                   window=window, allow_missing=allow_missing, sync=sync, report=report,
                   scoring=chain_options(settings))
    _print_report(report)
    if output is TableFormat.json:
        data = to_dict(result)
        data["settings"] = settings.to_dict(with_metrics=False)
        text = json.dumps(data, indent=2) + "\n"
    elif output is TableFormat.csv:
        text = to_csv(result)
    else:
        text = to_text(result, limit=limit) + "\n" + "\n".join(settings.describe(with_metrics=False)) + "\n"
    if plot is not None:
        from .plots import agreement_figure

        _save_plot(agreement_figure(result), plot, [p for files in sources for p in files])
    _emit(text, out, [p for files in sources for p in files])


@app.command("adjudicate")
@edge
@reads
def adjudicate_command(
    annotations: List[Path] = typer.Argument(..., metavar="ANNOTATION...",
                                             help="one annotation per annotator (two or more), any format"),
    out: Path = typer.Option(..., "-o", "--output", help="where the gold goes (a file, or a directory for "
                                                       "formats that write one)"),
    to_format: Optional[str] = typer.Option(None, "--to", help="format of the gold (default: the first "
                                                              "annotation's, else from the output's name)"),
    keep: str = typer.Option("majority", "--keep",
                             help="majority: mentions and links with at least half of the votes (two "
                                  "annotators: the union); agreed: only what every annotator has"),
    names: Optional[str] = typer.Option(None, "--names", help="the annotators' names, comma-separated"),
    conflicts: Optional[Path] = typer.Option(None, "--report", help="write every conflict here (.json or .csv)"),
    allow_missing: bool = typer.Option(False, "--allow-missing",
                                       help="merge each document from the annotators that have it"),
    from_format: Optional[str] = typer.Option(None, "--from", help="format of every annotation (default: guess)"),
    strict: bool = typer.Option(False, "--strict", help="refuse to write a gold that loses anything (exit 5)"),
    force: bool = typer.Option(False, "--force", help="write a directory format into a directory that is not empty"),
    view: Optional[Path] = typer.Option(None, "--view", metavar="PAGE.html",
                                        help="also write the adjudication view: the annotators and the gold side "
                                             "by side, conflicts marked, the gold to download"),
) -> None:
    """Merge two or more annotations into one gold by vote, listing every conflict."""
    import json

    from .agreement import adjudicate
    from .agreement.render import conflicts_csv, conflicts_dict, conflicts_text
    from .errors import UsageError
    from .formats.readwrite import write
    from .formats.registry import detect_format

    if len(annotations) < 2:
        raise UsageError("adjudicate needs two or more annotations, one per annotator")
    _check_output(out, to_format)
    sources = _annotations(annotations, from_format)
    fmt = to_format
    if fmt is None:
        try:
            fmt = detect_format(out, for_writing=True).name
        except CorefioError:
            fmt = from_format or detect_format(sources[0][0]).name
    report = Report()
    result = adjudicate(sources, names=_annotator_names(names, annotations), format=from_format, keep=keep,
                        allow_missing=allow_missing, report=report)
    inputs = [p for files in sources for p in files]
    write(result.gold, out, fmt, strict=strict, report=report, inputs=inputs, force=force)
    if conflicts is not None:
        if conflicts.suffix.lower() == ".csv":
            _emit(conflicts_csv(result), conflicts, inputs)
        else:
            _emit(json.dumps(conflicts_dict(result), indent=2) + "\n", conflicts, inputs)
    if view is not None:
        _adjudication_page(result, out, view, inputs)
    _print_report(report)
    _say(f"adjudicated {len(inputs)} file(s) -> {out} ({len(result.conflicts)} conflict(s))")
    if str(out) != "-":  # the gold itself may be on stdout
        _out(conflicts_text(result), nl=False)


def _adjudication_page(result: Any, gold: Path, page: Path, inputs: List[Path]) -> None:
    """The adjudication view, with the gold as written embedded for download (a
    directory format as a zip of its files)."""
    import io
    import zipfile

    from .agreement.view import render
    from .io.files import atomic_write

    data: Optional[bytes] = None
    name = gold.name
    if gold.is_dir():
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for member in sorted(p for p in gold.rglob("*") if p.is_file()):
                archive.write(member, member.relative_to(gold).as_posix())
        data, name = buffer.getvalue(), gold.name + ".zip"
    elif gold.is_file():
        data = gold.read_bytes()
    atomic_write(page, render(result, gold_name=name, gold_bytes=data).encode("utf-8"), inputs=inputs)
    _say(f"wrote {page}")


# -- serve ----------------------------------------------------------------------------------
@app.command("serve")
@edge
def serve_command(
    host: str = typer.Option("127.0.0.1", "--host", help="address to listen on (127.0.0.1: this machine only)"),
    port: int = typer.Option(8000, "--port", help="TCP port"),
    max_upload_mb: float = typer.Option(50, "--max-upload-mb", help="largest request accepted, in MB (larger: 413)"),
    time_limit: float = typer.Option(60, "--time-limit", help="seconds the work of one request (reading, "
                                     "converting, scoring...) may take; then it is stopped"),
    allowed_host: list[str] = typer.Option([], "--allowed-host", help="a host name clients may use besides the "
                                           "bound address, localhost, 127.0.0.1 and [::1] (repeatable)"),
    workers: int = typer.Option(2, "--workers", help="requests worked on at once (each in its own process)"),
    store_mb: float = typer.Option(512, "--store-mb", help="memory for the results the pages link to, in MB"),
    keep_minutes: float = typer.Option(60, "--keep-minutes", help="minutes a result stays available"),
    body_timeout: float = typer.Option(30, "--body-timeout", help="seconds a client may take to send a request "
                                       "body (then 408)"),
    worker_memory_mb: float = typer.Option(4096, "--worker-memory-mb", help="memory one request's worker may "
                                           "map besides the server's own, in MB (0: no limit)"),
    docs_url: str = typer.Option("", "--docs-url", help="where the pages' documentation links go: the base URL of "
                                 "the documentation site, or a template with {page} (default: the server's own "
                                 "metric page)"),
) -> None:
    """Run the online evaluator as a local web application (needs the web extra:
    pip install 'corefio[web]', or pip install '.[web]' in a clone)."""
    from .errors import UsageError

    try:
        import fastapi  # noqa: F401  (the web extra, checked here: serve imports them late)
        import jinja2  # noqa: F401
        import uvicorn  # noqa: F401

        from .web import serve
    except ImportError as exc:
        raise UsageError(f"corefio serve needs the web extra: pip install 'corefio[web]' "
                         f"(from a clone: pip install '.[web]') ({exc})") from None
    serve(host=host, port=port, max_upload_mb=max_upload_mb, time_limit=time_limit,
          allowed_hosts=tuple(allowed_host), workers=workers, store_mb=store_mb, keep_minutes=keep_minutes,
          body_timeout=body_timeout, worker_memory_mb=worker_memory_mb or None, docs_url=docs_url or None)


#: glibc's ``mallopt`` parameter for the size from which blocks are mmapped
#: (``M_MMAP_THRESHOLD`` in malloc.h)
M_MMAP_THRESHOLD = -3
#: the size corefio keeps it at (glibc starts at 128 KiB and raises it as it goes)
MMAP_THRESHOLD = 512 * 1024


def pin_malloc_thresholds() -> bool:
    """Keep glibc's malloc from raising its mmap threshold as the process runs; True
    if set.

    By default glibc adapts: when a block it had served by ``mmap`` is freed, it raises
    the size from which blocks are mmapped to that block's size (up to 32 MiB). Reading
    a CoNLL file frees 1 MiB blocks and scoring frees large numpy arrays, so after the
    first of them every block up to that size comes from the heap, where a few small
    objects that live on keep the freed space from going back to the system: ``compare``
    of the 100x benchmark corpus in one process grew to 188 MB this way, 60 MB more
    than the same work split between two processes. Setting the threshold turns the
    adaptation off (mallopt(3)): blocks of 512 KiB or more are then always mmapped and
    go back to the system when freed. Measured with ``benchmarks/bench_scale.py``
    (README, "On all cores"): ``compare`` in one process at 100x, 188 MB before, 137 MB
    after; at 10x, 101 MB before, 87 MB with 512 KiB, 92 MB with 1 MiB, no slower (128
    KiB, glibc's start: 87 MB but 10-15% slower, every mid-sized block an mmap). Worker
    processes are forked from this one and inherit the setting. Not glibc (macOS, musl...): nothing is done. The command
    line owns its process; the library never calls this (it is process-wide)."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):  # no such library or function (Windows: no CDLL(None))
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def main() -> None:
    """Console entry point (``corefio``, ``python -m corefio``).

    The command line owns its process, so it tunes the garbage collector for it: readers
    build 10⁵–10⁶ small objects that all live on, and with the default threshold (a
    collection every 700 allocations) the cyclic collector walks them again and again,
    a third of the reading time. A larger first threshold keeps cycles collected while
    costing little. The library never changes this (it is process-wide).
    """
    import gc

    gc.set_threshold(100_000, 50, 100)
    pin_malloc_thresholds()
    try:
        app()
    finally:
        # typer ends with SystemExit carrying the exit code; output still buffered is
        # written now, so that a closed pipe is dealt with here rather than reported by
        # the interpreter at exit ("Exception ignored ... BrokenPipeError")
        for stream in (sys.stdout, sys.stderr):
            try:
                if stream is not None:  # None: started with the descriptor closed (``>&-``)
                    stream.flush()
            except BrokenPipeError:
                _silence(stream)
