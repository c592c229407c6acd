"""Reading text with clear encoding errors, and writing outputs atomically.

Reading: input must be UTF-8 (one leading byte order mark is dropped). Files in UTF-16 or
UTF-32, with a byte order mark or without one (recognised by the zero bytes of ASCII
characters in the first 64 bytes), are refused at line 1 with a hint, rather than failing
later with a confusing parse error.

Writing (:func:`atomic_write`; the content may be given in pieces, which are consumed
only after the output has been checked; :func:`atomic_write_tree` writes the files of a
multi-file output, each one like this):

* A regular output file is written to a temporary file in the same directory, flushed to
  disk, then renamed over the output, so the output is either the old or the new content,
  never a half-written file. The temporary file is named
  ``.<name>.corefio-<pid>-<8 hex digits>.tmp`` (``<name>`` is the output's file name, cut
  to its first 200 bytes when longer, ``<pid>`` the id of the writing process). If the
  writer is killed before the rename, that file stays behind; every later write to the
  same output first deletes the temporaries of that output whose process no longer runs
  (temporaries of live processes and of other outputs are left alone).
* An output that is a symbolic link is written through the link: the link stays, the
  file it points to gets the new content (its temporary file sits next to that file).
* An output that is a character device or a FIFO (``/dev/null``, ``/dev/stdout``, a named
  pipe) is opened and written directly, without a temporary file or a rename.
* Overwriting a file keeps its permission bits; a new file gets ``0o666`` minus the umask.
* An output that is one of the inputs (directly, through a link, or as a hard link) is
  refused. Any failure is an :class:`~corefio.errors.OutputError` naming the output.
* A multi-file output goes into a new or empty directory; one that holds anything is
  refused (naming the files that would be overwritten, else saying it is not empty)
  unless ``force`` is given, and then only the output's own files are written. Its files
  are written into a staging folder beside the directory, made durable with one sync of
  the file system (not one per file), and the folder is renamed into place: the
  directory appears whole or not at all. With ``force`` into a directory that holds
  files, each file is renamed into place from the staging folder (each whole).
* Staging folders (:func:`staging_directory`) are hidden folders
  ``.corefio-staging-<pid>-<random>`` beside the output, removed when the work ends; a
  process killed before that leaves its folder behind, and the next write into that
  directory removes the folders of processes that no longer run.
* Two files that belong together (the key and response that ``sync`` writes) are put in
  place together (:func:`replace_together`): both are written completely first; a small
  journal ``.corefio-pair-<pid>-<8 hex digits>.json`` naming both is made durable; the
  two renames follow; the journal is removed. A process killed between the two renames
  leaves the journal, and the next write into that directory (by any corefio command)
  completes the pair from it before doing anything else. So, once the pair has been
  written, no later run sees a new key beside an old response.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from ..errors import FormatError, OutputError, UsageError

# byte order mark → (name shown, name iconv understands: it reads and drops the mark)
_BOMS = {
    b"\xff\xfe\x00\x00": ("UTF-32-LE", "UTF-32"),
    b"\x00\x00\xfe\xff": ("UTF-32-BE", "UTF-32"),
    b"\xff\xfe": ("UTF-16-LE", "UTF-16"),
    b"\xfe\xff": ("UTF-16-BE", "UTF-16"),
}
_UTF8_BOM = b"\xef\xbb\xbf"
#: how many leading bytes are looked at to recognise UTF-16/32 without a byte order mark
_SNIFF_BYTES = 64


def read_bytes(path: str | Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise FormatError("no such file", file=path) from None
    except IsADirectoryError:
        raise FormatError("is a directory, not a file", file=path) from None
    except OSError as exc:
        raise FormatError(f"cannot read file: {exc.strerror}", file=path) from None


def decode_utf8(data: bytes, path: str | Path | None) -> str:
    """Decode UTF-8 (a BOM is dropped); name the line and column of the first bad byte."""
    for bom, (name, iconv_name) in _BOMS.items():
        if data.startswith(bom):
            raise FormatError(
                f"file is {name} encoded; corefio reads UTF-8 (convert it, e.g. "
                f"`iconv -f {iconv_name} -t UTF-8`)",
                file=path,
                line=1,
            )
    guessed = _sniff_wide_encoding(data)
    if guessed is not None:
        iconv_name = guessed.replace("-LE", "LE").replace("-BE", "BE")  # UTF-16LE etc.
        raise FormatError(
            f"file looks {guessed} encoded (no byte order mark); corefio reads UTF-8 "
            f"(convert it, e.g. `iconv -f {iconv_name} -t UTF-8`)",
            file=path,
            line=1,
        )
    if data.startswith(_UTF8_BOM):
        data = data[3:]
        if data.startswith(_UTF8_BOM):
            raise FormatError(
                "a second byte order mark (U+FEFF) follows the first one; remove it",
                file=path,
                line=1,
                column=1,
            )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        byte = data[exc.start : exc.start + 1].hex()
        guess = " (it looks like Latin-1/Windows-1252)" if _looks_latin1(data) else ""
        raise FormatError(
            f"not valid UTF-8: byte 0x{byte} cannot be decoded{guess}; re-encode the file as UTF-8",
            file=path,
            line=line,
            column=column,
        ) from None


def _sniff_wide_encoding(data: bytes) -> str | None:
    """``"UTF-16-LE"`` etc. when the start of ``data`` has the zero bytes of ASCII text in
    UTF-16 or UTF-32 without a byte order mark, else None.

    Only the first 64 bytes count. A code unit "looks ASCII" when its low byte is non-zero
    and all its other bytes are zero; at least two units, and at least half of the units
    looked at, must look ASCII for one byte order. UTF-8 text only gets there with a
    dozen NUL characters in alternate positions at its very start.
    """
    head = data[:_SNIFF_BYTES]
    for width, name in ((4, "UTF-32"), (2, "UTF-16")):
        units = [head[i : i + width] for i in range(0, len(head) - width + 1, width)]
        needed = max(2, len(units) // 2)
        little = sum(1 for u in units if u[0] != 0 and not any(u[1:]))
        if little >= needed:
            return f"{name}-LE"
        big = sum(1 for u in units if u[-1] != 0 and not any(u[:-1]))
        if big >= needed:
            return f"{name}-BE"
    return None


def _looks_latin1(data: bytes) -> bool:
    return b"\x00" not in data[:4096]


def read_text(path: str | Path) -> str:
    """The content of a UTF-8 text file, with errors that say where it went wrong."""
    return decode_utf8(read_bytes(path), path)


# ------------------------------------------------------------------------------------------
# writing
# ------------------------------------------------------------------------------------------
#: names of the temporary files this process is writing right now (another thread's
#: clean-up must not take them for leftovers of a dead process that had the same pid)
_writing: set[str] = set()
_writing_lock = threading.Lock()
_TEMP_TAIL = re.compile(r"corefio-([0-9]{1,10})-[0-9a-f]{8}\.tmp")


def _temp_prefix(name: str) -> str:
    """``.<name>.`` with ``name`` cut to 200 bytes, so the temporary name stays legal."""
    while len(os.fsencode(name)) > 200:
        name = name[:-1]
    return f".{name}."


def _process_gone(pid: int) -> bool:
    """True only when no process ``pid`` exists (any doubt counts as alive)."""
    if os.name != "posix" or pid <= 0:
        # os.kill would end the process on Windows; pid 0 would mean our process group
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):
        # PermissionError: it exists but belongs to someone else
        return False
    return False


def process_gone(pid: int) -> bool:
    """True only when no process ``pid`` exists (any doubt counts as alive): whether what
    a process left behind under its pid may be removed."""
    return _process_gone(pid)


def _remove_stale_temporaries(directory: Path, prefix: str) -> None:
    """Delete leftovers ``<prefix>corefio-<pid>-<hex>.tmp`` of processes that are gone,
    after finishing the pairs and removing the staging folders they left in
    ``directory`` (:func:`clean_leftovers`).

    A leftover carrying this process's own pid comes from an earlier process that had the
    same pid, unless one of our threads is writing it. Failures are ignored: clean-up must
    never stop a write.
    """
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    _clean_entries(directory, entries)
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        match = _TEMP_TAIL.fullmatch(entry.name, len(prefix))
        if match is None:
            continue
        try:
            if entry.is_file(follow_symlinks=False) and _stale(int(match.group(1)), entry.name):
                os.unlink(entry.path)
        except OSError:
            pass


def _stale(pid: int, name: str) -> bool:
    """Whether ``name``, made by process ``pid``, is a leftover: that process is gone,
    or it is this process's pid and none of our threads uses the name (an earlier
    process had the pid)."""
    if pid == os.getpid():
        with _writing_lock:
            return name not in _writing
    return _process_gone(pid)


#: a staging folder: ``.corefio-staging-<pid>-<random>`` (tempfile.mkdtemp's letters)
_STAGING = re.compile(r"\.corefio-staging-([0-9]{1,10})-[a-z0-9_]+")
STAGING_PREFIX = ".corefio-staging-"
#: the journal of a pair being put in place: ``.corefio-pair-<pid>-<hex>.json``
_JOURNAL = re.compile(r"\.corefio-pair-([0-9]{1,10})-[0-9a-f]{8}\.json")


def clean_leftovers(directory: str | Path) -> None:
    """What killed corefio processes left in ``directory``: pairs half put in place are
    completed from their journal, then their staging folders are removed. Leftovers of
    processes still running are left alone; failures are ignored."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    _clean_entries(Path(directory), entries)


def _clean_entries(directory: Path, entries: list) -> None:
    journals = []
    for entry in entries:
        match = _JOURNAL.fullmatch(entry.name)
        if match is not None and _stale(int(match.group(1)), entry.name):
            journals.append((entry, match.group(1)))
    for entry, pid in journals:
        _finish_pair(directory, Path(entry.path), pid)
    for entry in entries:
        match = _STAGING.fullmatch(entry.name)
        if match is None:
            continue
        try:
            if entry.is_dir(follow_symlinks=False) and _stale(int(match.group(1)), entry.name):
                import shutil

                shutil.rmtree(entry.path, ignore_errors=True)
        except OSError:
            pass


def _finish_pair(directory: Path, journal: Path, pid: str) -> None:
    """Complete the renames a journal lists (those not done yet), then remove it. Only
    moves from a staging folder of the journal's process in ``directory`` to a file of
    ``directory`` are made: a journal cannot move anything else."""
    import json

    try:
        with open(journal, "rb") as stream:
            moves = json.loads(stream.read(1 << 16).decode("utf-8"))["moves"]
        checked = []
        for staged, target in moves:
            folder, _, name = str(staged).partition("/")
            match = _STAGING.fullmatch(folder)
            if (match is None or match.group(1) != pid or not name or "/" in name or name in (".", "..")
                    or not target or "/" in str(target) or str(target) in (".", "..")
                    or str(target).startswith(".corefio-")):
                return  # not a journal of ours: left alone
            checked.append((directory / folder / name, directory / str(target)))
    except (OSError, ValueError, KeyError, TypeError):
        return
    for staged, target in checked:
        try:
            os.replace(staged, target)
        except FileNotFoundError:
            pass  # renamed before the process was killed
        except OSError:
            return
    _sync_directory(directory)
    try:
        os.unlink(journal)
    except OSError:
        pass


@contextmanager
def staging_directory(parent: str | Path | None) -> Iterator[Path]:
    """A new hidden folder ``.corefio-staging-<pid>-<random>`` in ``parent`` (the system's
    temporary folder when None or not a directory), removed when the block ends; the
    leftovers of killed processes in ``parent`` are cleaned first (:func:`clean_leftovers`)."""
    import shutil
    import tempfile

    where = Path(parent) if parent is not None and os.path.isdir(parent) else None
    if where is not None:
        clean_leftovers(where)
    prefix = f"{STAGING_PREFIX}{os.getpid()}-"
    with _output_errors(where or Path(tempfile.gettempdir())):
        path = Path(tempfile.mkdtemp(prefix=prefix, dir=where))
    with _writing_lock:
        _writing.add(path.name)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
        with _writing_lock:
            _writing.discard(path.name)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _refuse_inputs(path: Path, inputs: Iterable[str | Path]) -> None:
    for source in inputs:
        if _same_file(path, Path(source)) or path.resolve() == Path(source).resolve():
            raise OutputError("refusing to overwrite an input file", file=path)


#: what :func:`atomic_write` accepts: the whole content, or its pieces in order
Content = str | bytes | Iterable[str | bytes]


#: the path that means standard output (and, to the command line, standard input)
STDIO = "-"


def write_stdout(data: Content) -> None:
    """Write ``data`` to standard output, piece by piece (what ``-`` as an output means).

    A reader of the pipe that goes away raises BrokenPipeError, left to the caller (the
    command line discards the rest quietly)."""
    import sys

    sys.stdout.flush()  # text printed before comes first
    stream = sys.stdout.buffer
    for piece in _pieces(data):
        stream.write(piece)
    stream.flush()


def atomic_write(path: str | Path, data: Content, *, inputs: Iterable[str | Path] = ()) -> None:
    """Write ``data`` to ``path``: bytes, a ``str`` (written as UTF-8), or an iterable of
    such pieces (consumed only once the output has been checked; an exception it raises
    leaves a regular output untouched and propagates as it is). ``-`` is standard output.

    A regular file is replaced through a temporary file and a rename, so it appears
    complete or not at all; a symbolic link is written through; a character device or
    FIFO is written directly. Refuses to overwrite any of ``inputs``. Every failure to
    write is an :class:`~corefio.errors.OutputError`. The module docstring has the details.
    """
    if str(path) == STDIO:
        write_stdout(data)
        return
    path = Path(path)
    with _output_errors(path):
        try:
            is_link = stat.S_ISLNK(os.lstat(path).st_mode)
        except (FileNotFoundError, NotADirectoryError):
            is_link = False
        try:
            # through the link: /dev/stdout leads to /proc/self/fd/1, whose "target" is
            # no path at all (pipe:[1234]) but which stat and open follow
            status: os.stat_result | None = os.stat(path)
        except FileNotFoundError:
            status = None

    if status is not None and (stat.S_ISCHR(status.st_mode) or stat.S_ISFIFO(status.st_mode)):
        # nothing to overwrite: a device or pipe consumes what it is given (so /dev/stdout
        # may even be the terminal the input /dev/stdin is read from)
        _write_stream(path, path, _pieces(data))
        return
    target = Path(os.path.realpath(path)) if is_link else path
    _refuse_inputs(path, inputs)
    if status is not None and stat.S_ISDIR(status.st_mode):
        raise OutputError("cannot write: is a directory", file=path)
    if status is not None and not stat.S_ISREG(status.st_mode):
        raise OutputError("cannot write: not a regular file, character device or FIFO", file=path)
    _replace_file(path, target, _pieces(data), status)


def check_output(path: str | Path, inputs: Iterable[str | Path] = ()) -> None:
    """The refusals :func:`atomic_write` makes before writing ``path``, made now: one
    of ``inputs``, a directory, or a missing directory to write in."""
    if str(path) == STDIO:
        return
    path = Path(path)
    _refuse_inputs(path, inputs)
    with _output_errors(path):
        if os.path.isdir(path):
            raise OutputError("cannot write: is a directory", file=path)
        if not os.path.isdir(Path(os.path.realpath(path)).parent):
            raise OutputError(f"directory {Path(os.path.realpath(path)).parent} does not exist", file=path)


def atomic_write_tree(directory: str | Path, files: Mapping[str, Content], *,
                      inputs: Iterable[str | Path] = (), force: bool = False) -> None:
    """Write a multi-file output: ``files`` maps paths relative to ``directory`` (``/``
    separated) to their content.

    ``directory`` is created when missing (its parent must exist), and so are the
    subdirectories the paths name. An existing directory must be empty unless ``force``
    is given: the files of another project (or of the user) are not mixed with ours nor
    overwritten by surprise. With ``force`` only the files in ``files`` are written (over
    any that exist); everything else in the directory stays as it is. Everything is
    checked before anything is written: a path that is absolute or climbs out with
    ``..`` is refused, and so is any file that would overwrite one of ``inputs`` or land
    inside an input directory.

    The files are written into a staging folder beside ``directory`` and made durable
    with one sync of the file system; then a new or empty ``directory`` is replaced by
    the staged tree in one rename (it appears whole or not at all), while into a
    directory that holds files (``force``) each file is renamed into place (each whole;
    a failure part way leaves those renamed before it). A ``directory`` that is a
    symbolic link is written through.
    """
    if str(directory) == STDIO:
        raise UsageError("this format writes a directory of files: standard output ('-') cannot hold it; "
                          "give a directory", file=directory)
    root = Path(directory)
    targets: list[tuple[str, Path, Content]] = []
    for name, content in files.items():
        parts = PurePosixPath(name).parts
        if not parts or PurePosixPath(name).is_absolute() or ".." in parts or "\\" in name:
            raise OutputError(f"refusing to write {name!r}: not a path inside the output directory",
                              file=root)
        targets.append(("/".join(parts), root.joinpath(*parts), content))
    sources = [Path(source) for source in inputs]
    input_dirs = [source.resolve() for source in sources if os.path.isdir(source)]
    for _, target, _ in targets:
        _refuse_inputs(target, sources)
        resolved = target.resolve()
        if any(resolved.is_relative_to(d) for d in input_dirs):
            raise OutputError("refusing to write inside an input directory", file=target)
    with _output_errors(root):
        if not root.parent.is_dir():
            raise OutputError(f"directory {root.parent} does not exist", file=root)
        if os.path.islink(root) and os.path.isdir(root):
            real = Path(os.path.realpath(root))
        else:
            real = root
        if os.path.lexists(real) and not real.is_dir():
            raise OutputError("cannot write: File exists (not a directory)", file=root)
        if not force and real.is_dir():
            _refuse_non_empty(real, list(files))
    _write_tree(root, real, targets)


def _write_tree(root: Path, real: Path, targets: list[tuple[str, Path, Content]]) -> None:
    """Stage the files beside ``real`` (in it when its parent takes no new folder), sync
    once, and move them into place (see :func:`atomic_write_tree`)."""
    whole = not real.is_dir() or not os.listdir(real)
    try:
        staging = staging_directory(real.parent)
        stage = staging.__enter__()
    except OutputError as exc:
        if not real.is_dir():
            raise OutputError(exc.message, file=root) from None
        staging = staging_directory(real)  # a parent we may not write to: stage inside
        stage = staging.__enter__()
        whole = False
    try:
        tree = stage / "tree"
        with _output_errors(root):
            os.mkdir(tree)
        for relative, _, content in targets:
            staged = tree.joinpath(*relative.split("/"))
            with _output_errors(root / relative):
                os.makedirs(staged.parent, exist_ok=True)
                stream = open(staged, "xb")
            with stream:
                for piece in _pieces(content):
                    with _output_errors(root / relative):
                        stream.write(piece)
        with _output_errors(root):
            _sync_filesystem(tree)
        if whole:
            with _output_errors(root):
                try:
                    os.replace(tree, real) if real.is_dir() else os.rename(tree, real)
                except OSError as exc:
                    if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.EXDEV, errno.EBUSY):
                        raise
                    # something appeared in it meanwhile, or it is a mount point: file by file
                    whole = False
        if not whole:
            touched: set[Path] = set()
            for relative, _, _ in targets:
                staged = tree.joinpath(*relative.split("/"))
                target = real.joinpath(*relative.split("/"))
                with _output_errors(root / relative):
                    os.makedirs(target.parent, exist_ok=True)
                    if os.path.islink(target):  # written through, as atomic_write does
                        atomic_write(target, _chunks(staged))
                        continue
                    if os.path.isdir(target):
                        raise OutputError("cannot write: is a directory", file=root / relative)
                    try:
                        os.chmod(staged, stat.S_IMODE(os.stat(target).st_mode))
                    except FileNotFoundError:
                        pass
                    try:
                        os.replace(staged, target)
                    except OSError as exc:
                        if exc.errno != errno.EXDEV:
                            raise
                        atomic_write(target, _chunks(staged))  # another file system
                        continue
                touched.add(target.parent)
            for folder in sorted(touched):
                _sync_directory(folder)
        _sync_directory(real.parent)
    finally:
        staging.__exit__(None, None, None)


def _chunks(path: Path, size: int = 1 << 20) -> Iterator[bytes]:
    with open(path, "rb") as f:
        while chunk := f.read(size):
            yield chunk


def _sync_filesystem(path: Path) -> None:
    """Make every file written under ``path`` durable with one call: ``syncfs`` on Linux
    (the file system holding ``path``), else ``sync``; where neither exists, each file
    under ``path`` is synced."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            fd = os.open(path, os.O_RDONLY)
            try:
                if libc.syncfs(fd) == 0:
                    return
            finally:
                os.close(fd)
        except (OSError, AttributeError):
            pass
    if hasattr(os, "sync"):
        os.sync()
        return
    for folder, _, names in os.walk(path):  # pragma: no cover - not POSIX
        for name in names:
            fd = os.open(os.path.join(folder, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def replace_together(moves: Sequence[tuple[str | Path, str | Path]], *, inputs: Iterable[str | Path] = ()) -> None:
    """Put each staged file of ``moves`` (``(staged, target)``: files written completely,
    in one staging folder of :func:`staging_directory`) at its target, all at once as far
    as a crash goes: a journal naming the moves is made durable, the files are renamed,
    the journal is removed; a process killed between the renames leaves the journal, from
    which the next write into the directory completes them (:func:`clean_leftovers`).

    That needs the targets to be files (or missing) of the directory the staging folder is
    in; a target that is a link, a device or a FIFO, or elsewhere, is written from its
    staged file as :func:`atomic_write` writes (one at a time). Refuses to overwrite any
    of ``inputs``; every failure is an :class:`~corefio.errors.OutputError`.
    """
    import json

    pairs = [(Path(staged), Path(target)) for staged, target in moves]
    sources = list(inputs)
    for _, target in pairs:
        _refuse_inputs(target, sources)
        if os.path.isdir(target):
            raise OutputError("cannot write: is a directory", file=target)
    folders = {staged.parent for staged, _ in pairs}
    directory = next(iter(folders)).parent if len(folders) == 1 else None
    together = directory is not None and _STAGING.fullmatch(next(iter(folders)).name) is not None and all(
        os.path.abspath(target.parent) == os.path.abspath(directory) and not os.path.islink(target)
        and (not os.path.lexists(target) or stat.S_ISREG(os.lstat(target).st_mode)) for _, target in pairs)
    if not together:
        for staged, target in pairs:
            atomic_write(target, _chunks(staged), inputs=sources)
        return
    assert directory is not None
    clean_leftovers(directory)
    record = {"moves": [[f"{staged.parent.name}/{staged.name}", target.name] for staged, target in pairs]}
    journal: Path | None = None
    try:
        with _output_errors(pairs[0][1]):
            for staged, _ in pairs:
                fd = os.open(staged, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            fd, journal = _create_temporary(directory, ".corefio-pair-", 0o600, suffix=".json")
            with os.fdopen(fd, "wb") as stream:
                stream.write(json.dumps(record).encode("utf-8"))
                stream.flush()
                os.fsync(stream.fileno())
            _sync_directory(directory)
        for staged, target in pairs:
            with _output_errors(target):
                try:
                    os.chmod(staged, stat.S_IMODE(os.stat(target).st_mode))
                except FileNotFoundError:
                    pass
                os.replace(staged, target)
        _sync_directory(directory)
        os.unlink(journal)
    finally:
        if journal is not None:
            with _writing_lock:
                _writing.discard(journal.name)


#: how many names an error message about a non-empty directory lists
_NAMES_SHOWN = 5


def _refuse_non_empty(root: Path, names: list[str]) -> None:
    """Refuse to write into ``root`` when it holds anything, naming the files of
    ``names`` that exist there already (or, when none does, some of what is there)."""
    present = sorted(os.listdir(root))
    if not present:
        return
    clashes = [name for name in names if os.path.lexists(root / name)]
    if clashes:
        shown = ", ".join(clashes[:_NAMES_SHOWN]) + (", …" if len(clashes) > _NAMES_SHOWN else "")
        raise OutputError(f"refusing to overwrite {len(clashes)} existing file(s) of the directory ({shown}); "
                          "choose another directory or force it (convert --force, force=True)", file=root)
    shown = ", ".join(present[:_NAMES_SHOWN]) + (", …" if len(present) > _NAMES_SHOWN else "")
    raise OutputError(f"refusing to write into a directory that is not empty (it holds {shown}); "
                      "choose another directory or force it (convert --force, force=True)", file=root)


def _pieces(data: Content) -> Iterator[bytes]:
    if isinstance(data, str):
        yield data.encode("utf-8")
    elif isinstance(data, (bytes, bytearray, memoryview)):
        yield bytes(data) if isinstance(data, memoryview) else data
    else:
        for piece in data:
            yield piece.encode("utf-8") if isinstance(piece, str) else piece


@contextmanager
def _output_errors(path: Path, target: Path | None = None) -> Iterator[None]:
    """Turn an OSError of our own file operations into an OutputError naming ``path`` (and
    ``target``, the file a link leads to, when it is another file)."""
    try:
        yield
    except OSError as exc:
        where = f" {target}" if target is not None and target != path else ""
        raise OutputError(f"cannot write{where}: {exc.strerror or exc}", file=path) from None


def _write_stream(path: Path, target: Path, pieces: Iterator[bytes]) -> None:
    """Write to a character device or FIFO in place (a FIFO waits for its reader)."""
    with _output_errors(path, target):
        stream = os.fdopen(os.open(target, os.O_WRONLY | getattr(os, "O_NOCTTY", 0)), "wb")
    try:
        for piece in pieces:
            with _output_errors(path, target):
                stream.write(piece)
        with _output_errors(path, target):
            stream.close()
    finally:
        if not stream.closed:
            try:
                stream.close()
            except OSError:
                pass  # already failing: the first error is the one to report


def _replace_file(path: Path, target: Path, pieces: Iterator[bytes], status: os.stat_result | None) -> None:
    """Write a temporary file next to ``target``, then rename it over ``target``."""
    directory = target.parent
    try:
        directory_exists = stat.S_ISDIR(os.stat(directory).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        directory_exists = False
    except OSError as exc:
        raise OutputError(f"cannot write: {exc.strerror}", file=path) from None
    if not directory_exists:
        raise OutputError(f"directory {directory} does not exist", file=path)

    prefix = _temp_prefix(target.name)
    _remove_stale_temporaries(directory, prefix)
    # a new file is created 0o666 and the kernel applies the umask; an existing file's
    # permission bits are copied once the content is written
    create_mode = 0o666 if status is None else 0o600
    tmp: Path | None = None
    stream = None
    try:
        with _output_errors(path, target):
            fd, tmp = _create_temporary(directory, prefix, create_mode)
            stream = os.fdopen(fd, "wb")
        for piece in pieces:
            with _output_errors(path, target):
                stream.write(piece)
        with _output_errors(path, target):
            stream.flush()
            if status is not None:
                os.chmod(tmp, stat.S_IMODE(status.st_mode))
            os.fsync(stream.fileno())
            stream.close()
            os.replace(tmp, target)
        with _writing_lock:
            _writing.discard(tmp.name)
        tmp = None
    finally:
        if stream is not None and not stream.closed:
            try:
                stream.close()
            except OSError:
                pass  # already failing: the first error is the one to report
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            with _writing_lock:
                _writing.discard(tmp.name)
    _sync_directory(directory)


def _create_temporary(directory: Path, prefix: str, mode: int, suffix: str = ".tmp") -> tuple[int, Path]:
    """Create and open ``<prefix>corefio-<pid>-<random hex>.tmp`` (a name nobody uses);
    with another ``suffix``, ``<prefix><pid>-<random hex><suffix>``."""
    for _ in range(100):
        if suffix == ".tmp":
            name = f"{prefix}corefio-{os.getpid()}-{os.urandom(4).hex()}.tmp"
        else:
            name = f"{prefix}{os.getpid()}-{os.urandom(4).hex()}{suffix}"
        with _writing_lock:
            _writing.add(name)
        created = False
        try:
            fd = os.open(directory / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            created = True
        except FileExistsError:
            pass
        finally:
            if not created:
                with _writing_lock:
                    _writing.discard(name)
        if created:
            return fd, directory / name
    raise FileExistsError(errno.EEXIST, "no free temporary file name")


def _sync_directory(directory: Path) -> None:
    """Make the rename durable (best effort: not every system can open a directory)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
