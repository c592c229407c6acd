"""Where a reader's input comes from: a file, a directory (multi-file formats) or memory.

Every reader takes a :class:`Source`, so ``corefio.read(path)`` and
``corefio.loads(data, format)`` run the same code and report the same locations
(``<string>`` stands for in-memory input in messages).
"""

from __future__ import annotations

import io
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..errors import FormatError
from .files import decode_utf8, read_bytes


@dataclass(frozen=True)
class Source:
    """A path on disk, or bytes in memory with a display name."""

    name: str
    path: Path | None = None
    data: bytes | None = None

    @classmethod
    def of(cls, value: "str | Path | bytes | Source", name: str | None = None) -> "Source":
        """A path (``str`` or :class:`Path`) or in-memory ``bytes``; use
        :meth:`from_text` for in-memory text (a ``str`` here is a path)."""
        if isinstance(value, Source):
            return value
        if isinstance(value, (bytes, bytearray, memoryview)):
            return cls(name or "<string>", None, bytes(value))
        return cls(str(value), Path(value), None)

    @classmethod
    def from_text(cls, text: str, name: str | None = None) -> "Source":
        return cls(name or "<string>", None, text.encode("utf-8"))

    @property
    def file(self) -> str:
        """What messages call this input."""
        return self.name

    @property
    def is_directory(self) -> bool:
        return self.path is not None and self.path.is_dir()

    @property
    def stem(self) -> str:
        """The name without directory and extension(s), for documents that need one."""
        if self.path is None:
            return "document"
        name = self.path.name
        return name.split(".", 1)[0] if not name.startswith(".") else name

    def read_bytes(self) -> bytes:
        if self.data is not None:
            return self.data
        assert self.path is not None
        return read_bytes(self.path)

    def read_text(self) -> str:
        """The content as text (UTF-8; errors name the line and column)."""
        return decode_utf8(self.read_bytes(), self.name)

    def open(self) -> BinaryIO:
        """A binary stream (for readers that read in pieces)."""
        if self.data is not None:
            return io.BytesIO(self.data)
        assert self.path is not None
        try:
            return open(self.path, "rb")
        except FileNotFoundError:
            raise FormatError("no such file", file=self.path) from None
        except IsADirectoryError:
            raise FormatError("is a directory, not a file", file=self.path) from None
        except OSError as exc:
            raise FormatError(f"cannot read file: {exc.strerror}", file=self.path) from None

    def size(self) -> int:
        if self.data is not None:
            return len(self.data)
        assert self.path is not None
        return self.path.stat().st_size


def confined_path(base: str | Path, name: str, *, file: str | Path | None = None,
                  line: int | None = None, what: str = "file") -> Path:
    """``base / name``, refused unless it stays inside ``base``.

    A project file (MMAX2's ``common_paths.xml`` and ``.mmax`` files, a zip upload) names
    other files by relative paths. Such a name may not be absolute, may not climb out
    with ``..``, and may not reach outside through a symbolic link (the link's target,
    resolved, must lie inside ``base`` resolved). Nothing is opened here: the check
    runs before any byte of the named file is read. ``file`` and ``line`` say where the
    name was written, for the error.
    """
    from ..errors import UnsafeInputError

    def refuse(reason: str) -> UnsafeInputError:
        shown = name if len(name) <= 120 else name[:117] + "..."
        return UnsafeInputError(f"{what} {shown!r} {reason}", file=file, line=line)

    if "\x00" in name:
        raise refuse("contains a NUL character")
    pure = Path(name)
    if pure.is_absolute() or name.startswith(("\\", "~")) or (len(name) > 1 and name[1] == ":"):
        raise refuse("is an absolute path; a project may only name files inside its directory")
    root = Path(base).resolve()
    candidate = root / pure
    try:
        resolved = candidate.resolve()
    except (OSError, RuntimeError) as exc:  # a loop of links, a name too long
        raise refuse(f"cannot be resolved ({exc.__class__.__name__})") from None
    if resolved != root and root not in resolved.parents:
        raise refuse("lies outside the project directory")
    return candidate


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, for messages."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"


def read_regular(path: str | Path, *, what: str = "file", file: str | Path | None = None,
                 line: int | None = None) -> bytes:
    """The bytes of the regular file ``path`` (links followed); anything else (a FIFO, a
    device, a directory) and any system error is a :class:`FormatError` located at
    ``file`` and ``line`` (where the name was written; default: ``path``). The file is
    opened without waiting, so a FIFO put where a file was looked up cannot block, and
    read only once it is known to be a regular file: a file a project names is never
    one that blocks or never ends."""
    path = Path(path)
    where = file if file is not None else path
    shown = path.name if len(path.name) <= 80 else path.name[:77] + "..."
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise FormatError(f"{what} {shown!r} cannot be read: {exc.strerror}", file=where, line=line) from None
    with os.fdopen(fd, "rb") as stream:
        try:
            mode = os.fstat(stream.fileno()).st_mode
            if not stat.S_ISREG(mode):
                raise FormatError(f"{what} {shown!r} is {file_kind(mode)}, not a regular file: corefio reads "
                                  "regular files only", file=where, line=line)
            return stream.read()
        except OSError as exc:
            raise FormatError(f"{what} {shown!r} cannot be read: {exc.strerror}", file=where, line=line) from None
