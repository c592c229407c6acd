"""Helpers shared by the line-based formats (CoNLL, CorefUD CoNLL-U, jsonlines).

* Line ends: a file uses LF, CRLF or CR-only line ends throughout. :func:`split_newlines`
  turns the text into LF text and says which style it had, so that the owning writer can
  give it back; a file that mixes styles is refused at the first line that differs
  (reading it would leave stray ``\\r`` characters inside values). A CR alone inside a
  line of an LF or CRLF file counts as such a line end: it is refused too.
* Part numbers: a CoNLL part is compared as a number when scoring, so it must be written
  with ASCII digits (``"²"`` passes ``str.isdigit`` but is no number) and be of a sane
  length; :func:`check_part` refuses the rest with a located error.
* :class:`SourceLines` gives the lines of a file one at a time, with the same checks.
* An input without a document (no byte, only blank lines, only comments) is an error,
  not an empty corpus: :func:`no_document_error` words it the same way for every
  line-based reader (a converter would otherwise write an empty file, and a validator
  call it valid).
* Decoding a piece of a file read in pieces: the first piece goes through
  :func:`corefio.io.files.decode_utf8` (byte order marks, UTF-16/32 detection), later
  pieces are plain UTF-8 with the line of a bad byte counted from the file start.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..errors import FormatError
from ..io.files import decode_utf8

if TYPE_CHECKING:  # pragma: no cover
    from ..io.source import Source

#: longest part number accepted (a part is a small counter in every corpus known)
MAX_PART_DIGITS = 18


def split_newlines(text: str, file: str | None) -> tuple[str, str]:
    """``(text with LF line ends, the line end the source used)``."""
    if "\r" not in text:
        return text, "\n"
    crlf = text.count("\r\n")
    if crlf and crlf == text.count("\n") == text.count("\r"):
        return text.replace("\r\n", "\n"), "\r\n"
    if not crlf and "\n" not in text:
        return text.replace("\r", "\n"), "\r"
    # mixed: the first line whose end differs from the first line's
    ends = re.finditer(r"\r\n|\r|\n", text)
    first = next(ends).group()
    line = 2
    for m in ends:
        if m.group() != first:
            break
        line += 1
    raise FormatError("line ends mix CRLF, LF and/or CR; use one kind throughout (e.g. `dos2unix`)",
                      file=file, line=line)


def check_part(part: str | None, file: str | None, line: int | None) -> None:
    """Refuse part numbers that scoring cannot compare (see the module docstring)."""
    if part is None or part.isascii():
        if part is not None and part.isdigit() and len(part) > MAX_PART_DIGITS:
            raise FormatError(f"part number of {len(part)} digits (at most {MAX_PART_DIGITS} are accepted)",
                              file=file, line=line)
        return
    if any(c.isdigit() for c in part):
        raise FormatError(f"part number {part!r} uses digits other than ASCII 0-9", file=file, line=line)


def no_document_error(file: str | None, lines: int, what: str) -> FormatError:
    """The error for an input holding no document; ``lines``: how many lines it has
    (0 for an empty file), ``what``: the format's word for a document's content. It is
    located at the last line (line 1 of an empty file: every read error names a line)."""
    if lines == 0:
        message = "the file is empty: no document"
    else:
        message = f"no document in the file: {lines} line(s), none of them {what}"
    return FormatError(message, file=file, line=max(lines, 1))


def numeric_part(part: str) -> str:
    """A numeric part without leading zeros (``"000"`` → ``"0"``), without ``int()``."""
    return part.lstrip("0") or "0"


def decode_piece(data: bytes, file: str | None, first_line: int, first: bool) -> str:
    """Decode one piece of a file; ``first``: the piece starts the file."""
    if first:
        return decode_utf8(data, file)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + first_line
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        raise FormatError(f"not valid UTF-8: byte 0x{data[exc.start:exc.start + 1].hex()} cannot be decoded; "
                          "re-encode the file as UTF-8", file=file, line=line, column=column) from None


def check_encoding_head(data: bytes, file: str | None) -> int:
    """Apply the decoding rules of :func:`decode_utf8` to the start of ``data`` (byte
    order marks, UTF-16/32, a doubled mark) and return where the text starts (3 after a
    UTF-8 byte order mark, else 0)."""
    head = data[:4096]
    cut = head.rfind(b"\n")
    head = head[: cut + 1] if cut >= 0 and len(data) > len(head) else head
    try:
        decode_utf8(head, file)
    except FormatError as exc:
        if exc.line in (None, 1) or len(data) <= 4096:
            raise
        # a bad byte further on: reported when that part is read, with its line
    return 3 if data.startswith(b"\xef\xbb\xbf") else 0


#: bytes read first (encoding checks, the line end style)
_HEAD = 1 << 16
_LINE_END = re.compile(rb"\r\n|\r|\n")


def _first_line_end(f: Any, head: bytes) -> bytes | None:
    """The first line end of a binary file whose first bytes ``head`` were read from
    ``f`` (read on from there when ``head`` has none, or ends with a CR that an LF may
    follow: a first line can be a whole document of megabytes); None: the file has
    none. Leaves ``f`` anywhere."""
    chunk = head
    while True:
        found = _LINE_END.search(chunk)
        if found is not None and (found.group() != b"\r" or found.end() < len(chunk)):
            return found.group()
        more = f.read(_HEAD)
        if not more:
            return None if found is None else found.group()
        chunk = chunk[-1:] + more


def _text_start(f: Any, name: str | None) -> tuple[int, bytes | None]:
    """Where the text of binary file ``f`` starts (after a byte order mark; the
    encoding checked) and its first line end. Leaves ``f`` anywhere."""
    head = f.read(_HEAD)
    return check_encoding_head(head, name), _first_line_end(f, head)


class SourceLines:
    """The lines of a source, decoded one at a time (memory of one line), with the line
    end style checked: ``newline`` and ``final_newline`` are known once iterated.

    ``lines``: only the lines from byte ``start`` (a line start) up to ``end``, the
    first being line ``first_line`` of the file (a run of a file read by one of several
    processes, :func:`line_starts`); the line end style is still the file's. Then the
    first line after ``end``, if there is one, with ``past_end`` set: a reader that
    looks a line ahead before giving a document (the JSON lines reader parses the
    next line first) checks that line as the whole file's reading does, and stops."""

    def __init__(self, source: "Source", lines: tuple[int, int, int] | None = None) -> None:
        self.source = source
        self.lines = lines
        self.newline = "\n"
        self.final_newline = True
        #: the line the iteration started at (1, or ``first_line`` of ``lines``)
        self.first_line = 1 if lines is None else lines[2]
        #: the line given is the one after the run (``lines``)
        self.past_end = False

    def __iter__(self) -> Iterator[str]:
        name = self.source.name
        with self.source.open() as f:
            start, first_end = _text_start(f, name)
            if first_end == b"\r":
                if self.lines is not None:  # line_starts gives no runs of such files
                    raise ValueError("a run of lines of a file with CR-only line ends")
                # CR-only line ends cannot be read line by line: the text is read whole
                f.seek(0)  # (finding the first line end may have read past the head)
                text, self.newline = split_newlines(decode_piece(f.read(), name, 1, True), name)
                self.final_newline = text.endswith("\n") or not text
                lines = text.split("\n")
                if lines[-1] == "":
                    lines.pop()
                yield from lines
                return
            crlf = first_end == b"\r\n"
            self.newline = "\r\n" if crlf else "\n"
            remaining = None  # bytes of the run still to give
            if self.lines is not None:
                start, remaining = self.lines[0], self.lines[1] - self.lines[0]
            f.seek(start)
            for lineno, raw in enumerate(f, self.first_line):
                if remaining is not None:
                    self.past_end = remaining <= 0
                    remaining -= len(raw)
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError:
                    decode_piece(raw, name, lineno, False)  # raises with the line and column
                    raise  # pragma: no cover
                if line.endswith("\n"):
                    line = line[:-1]
                    if line.endswith("\r") != crlf:
                        raise FormatError("line ends mix CRLF, LF and/or CR; use one kind throughout "
                                          "(e.g. `dos2unix`)", file=name, line=lineno)
                    if crlf:
                        line = line[:-1]
                else:
                    self.final_newline = False
                if "\r" in line:
                    # a CR alone inside a line is a line end of a third kind (what
                    # split_newlines refuses in a whole text): refused, not kept in a value
                    raise FormatError("line ends mix CRLF, LF and/or CR: a carriage return (CR) inside the line; "
                                      "use one kind throughout (e.g. `dos2unix`)", file=name, line=lineno,
                                      column=line.index("\r") + 1)
                yield line
                if self.past_end:
                    return


def line_starts(source: "Source", is_document: Callable[[bytes], bool]) -> list[tuple[int, int]]:
    """``(byte offset, line)`` of every line ``is_document`` takes (given the line's
    bytes, its end included), line by line as :class:`SourceLines` reads the file (the
    same encoding checks at its start; a run of them is read by
    ``SourceLines(source, (start, end, first_line))``), but the first: the start of the
    text, line 1, so that the lines before the first document are read (and checked)
    with it. A file with CR-only line ends (read whole by :class:`SourceLines`) gives
    one start: it is not cut."""
    starts: list[tuple[int, int]] = []
    with source.open() as f:
        offset, first_end = _text_start(f, source.name)
        if first_end == b"\r":
            return [(offset, 1)]
        f.seek(offset)
        text_start = offset
        for line, raw in enumerate(f, 1):
            if is_document(raw):
                starts.append((offset, line) if starts else (text_start, 1))
            offset += len(raw)
    return starts
