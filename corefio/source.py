"""Where a reader's input comes from: a file, a directory (multi-file formats) or memory.

Every reader takes a :class:`Source`, so ``corefio.read(path)`` and
``corefio.loads(data, format)`` run the same code and report the same locations
(``<string>`` stands for in-memory input in messages).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .errors import FormatError
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
