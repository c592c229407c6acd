"""Reading text with clear encoding errors, and writing outputs atomically."""

from __future__ import annotations

import gc
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import FormatError, OutputError

_BOMS = {
    b"\xff\xfe\x00\x00": "UTF-32-LE",
    b"\x00\x00\xfe\xff": "UTF-32-BE",
    b"\xff\xfe": "UTF-16-LE",
    b"\xfe\xff": "UTF-16-BE",
}


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
    for bom, name in _BOMS.items():
        if data.startswith(bom):
            raise FormatError(
                f"file is {name} encoded; corefio reads UTF-8 (convert it, e.g. "
                f"`iconv -f {name} -t UTF-8`)",
                file=path,
                line=1,
            )
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
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


def _looks_latin1(data: bytes) -> bool:
    return b"\x00" not in data[:4096]


def read_text(path: str | Path) -> str:
    """The content of a UTF-8 text file, with errors that say where it went wrong."""
    return decode_utf8(read_bytes(path), path)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def atomic_write(path: str | Path, data: str | bytes, *, inputs: Iterable[str | Path] = ()) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename.

    Refuses to overwrite any of ``inputs``. The file appears complete or not at all.
    """
    path = Path(path)
    for source in inputs:
        if _same_file(path, Path(source)) or path.resolve() == Path(source).resolve():
            raise OutputError("refusing to overwrite an input file", file=path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise OutputError(f"directory {directory} does not exist", file=path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise OutputError(f"cannot write: {exc.strerror}", file=path) from None
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many objects.

    Readers create hundreds of thousands of lists and objects that all stay alive; the
    collector would scan them again and again (it tripled the reading time of the
    benchmark corpus). Reference counting still frees memory; the collector resumes
    afterwards if it was running.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
