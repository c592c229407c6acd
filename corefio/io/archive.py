"""Safe reading of ``.zip`` archives: the one place that opens a zip, for every reader
(INCEpTION's XMI exports, zips of WebAnno TSV files) and for the web's uploads.

A zip is checked before one byte of any entry is unpacked, in this order, and refused
with a :class:`ZipRefused` (a :class:`~corefio.errors.FormatError` naming the archive)
at the first check it fails:

1. the end record is found in the last 64 KiB (it is the only part of the archive read
   before the central directory); the central directory it points to is at most
   :attr:`ZipLimits.directory_bytes` long (10,000 honest entries with 1,000-character
   names take 10.7 MB);
2. the central directory is walked record by record and its entries *counted as they
   are read*, never trusting the count the end record gives: more than
   :attr:`ZipLimits.entries` stops the walk at once (a zip whose end record says 1
   entry for 300,000 records is refused after reading 10,001 of them). Each record is
   checked on the way: the "version needed to extract" zipfile can handle, no
   encryption, a compression method zipfile knows (stored, deflate, bzip2, lzma), a name
   of at most :attr:`ZipLimits.name` characters. A count that differs from the end
   record's is a damaged or crafted archive;
3. only then does :mod:`zipfile` parse the directory, and every entry is checked: a
   relative name without ``..``, NUL or backslash, at most :attr:`ZipLimits.depth`
   folders deep; no symbolic link; no name twice; no name both a file and a folder;
   an entry larger than :attr:`ZipLimits.ratio_floor` may expand at most
   :attr:`ZipLimits.ratio` times its compressed size (a zip bomb); the sizes declared
   add up to at most :attr:`ZipLimits.total_bytes`; the compressed sizes add up to at
   most the archive's size, and no two entries overlap (entries that share their
   compressed bytes: the overlapping kind of bomb).

Unpacking (:meth:`SafeZip.read`, :meth:`SafeZip.extract`) streams each entry in chunks
and stops at the size its header declares (an entry that goes on is refused), at
:attr:`ZipLimits.entry_bytes`, and at what is left of :attr:`ZipLimits.total_bytes`.
Whatever zipfile or zlib raise on a damaged entry (a bad CRC, a truncated stream, a
local header that differs from the central directory) becomes a located error too.
Memory: the central directory (at most ``directory_bytes``) and one entry at a time.

:data:`CLI_LIMITS` are what the command line and the API apply; the web gives its
upload limit as ``total_bytes`` (:func:`limits`). :attr:`ZipRefused.too_large` tells a
refusal for size or number (the web answers 413) from a damaged or unsafe archive (422).
"""

from __future__ import annotations

import io
import re
import stat
import struct
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from ..errors import FormatError

#: zipfile's highest "version needed to extract" (6.3, as ``zipfile.MAX_EXTRACT_VERSION``)
MAX_EXTRACT_VERSION = 63
#: compression methods zipfile unpacks: stored, deflate, bzip2, lzma
METHODS = {0: "stored", 8: "deflate", 12: "bzip2", 14: "lzma"}
#: bytes read at a time while unpacking
CHUNK = 1 << 20
_END = b"PK\x05\x06"
_END64 = b"PK\x06\x06"
_LOCATOR64 = b"PK\x06\x07"
_CENTRAL = b"PK\x01\x02"


@dataclass(frozen=True)
class ZipLimits:
    """What a zip may hold (see the module docstring)."""

    entries: int = 10_000
    #: bytes of one entry once unpacked
    entry_bytes: int = 512 * 1024 * 1024
    #: bytes of all entries once unpacked
    total_bytes: int = 1024 * 1024 * 1024
    #: how messages call ``total_bytes``
    total_name: str = "corefio's limit"
    #: unpacked / compressed size of one entry beyond which it is refused (larger than
    #: any XML or TSV compresses: real exports compress 5 to 25 times)
    ratio: int = 200
    #: entries no larger than this are never refused for their ratio (a run of spaces
    #: compresses well, and a small entry cannot make a bomb)
    ratio_floor: int = 1 << 20
    #: bytes of the central directory
    directory_bytes: int = 10_000 * 1_070
    #: characters of an entry's name (255 bytes for one part of it)
    name: int = 1024
    #: folders an entry may be nested in
    depth: int = 32


#: the limits of the command line and the API
CLI_LIMITS = ZipLimits()


def limits(total_bytes: int, total_name: str = "the upload limit") -> ZipLimits:
    """:data:`CLI_LIMITS` with another total (the web's upload limit)."""
    return replace(CLI_LIMITS, total_bytes=total_bytes, entry_bytes=min(total_bytes, CLI_LIMITS.entry_bytes),
                   total_name=total_name)


class ZipRefused(FormatError):
    """A zip refused by a check of this module; ``too_large``: for its size or its
    number of entries (the web answers 413), else damaged or unsafe (422). It names
    line 1, as corefio's errors about binary files do."""

    def __init__(self, message: str, *, file: str | Path | None = None, too_large: bool = False) -> None:
        super().__init__(message, file=file, line=1)
        self.too_large = too_large


def is_zip(head: bytes) -> bool:
    """Does a file starting with ``head`` look like a zip (a local file header, or the end
    record of an empty archive)?"""
    return head.startswith((b"PK\x03\x04", _END))


@dataclass(frozen=True)
class Entry:
    """One file of the archive, as its central directory declares it."""

    name: str
    #: the parts of its name (folders, then the file)
    parts: tuple[str, ...]
    size: int
    compressed: int
    info: zipfile.ZipInfo

    @property
    def suffix(self) -> str:
        return PurePosixPath(self.name).suffix.lower()

    @property
    def skipped(self) -> bool:
        """macOS's ``__MACOSX/`` folder and ``._*`` companions: never part of the data."""
        return bool(self.parts) and (self.parts[0] == "__MACOSX" or self.parts[-1].startswith("._"))


def _shown(name: str) -> str:
    return name if len(name) <= 120 else name[:117] + "..."


class SafeZip:
    """An archive whose central directory passed every check; its files are
    :attr:`entries` (folders left out), unpacked one at a time by :meth:`read`."""

    def __init__(self, stream: BinaryIO, size: int, shown: str, limits: ZipLimits, *, owned: bool = False) -> None:
        self.shown = shown
        self.limits = limits
        self._left = limits.total_bytes
        # zipfile never closes a stream it was given: the one open_zip opened is closed here
        self._owned = stream if owned else None
        _walk_central_directory(stream, size, shown, limits)
        try:
            self._archive = zipfile.ZipFile(stream)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, ValueError, EOFError, OSError,
                struct.error, UnicodeDecodeError, RuntimeError, KeyError) as exc:
            raise ZipRefused(f"not a readable zip file ({type(exc).__name__}: {exc})", file=shown) from None
        try:
            self.entries, self.folders = _checked_entries(self._archive.infolist(), size, shown, limits)
        except BaseException:
            self._archive.close()
            raise

    def __enter__(self) -> "SafeZip":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._archive.close()
        if self._owned is not None:
            self._owned.close()

    def chunks(self, entry: Entry) -> Iterator[bytes]:
        """The bytes of ``entry`` in chunks, within every limit (see the module docstring)."""
        allowed = min(entry.size, self.limits.entry_bytes, self._left)
        shown = _shown(entry.name)
        try:
            with self._archive.open(entry.info) as member:
                while True:
                    chunk = member.read(min(CHUNK, allowed + 1))
                    if not chunk:
                        return
                    allowed -= len(chunk)
                    self._left -= len(chunk)
                    if allowed < 0:
                        raise self._beyond(entry)
                    yield chunk
        except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, ValueError, NotImplementedError,
                RuntimeError, OSError, struct.error) as exc:
            # a bad CRC, a truncated or unsupported stream, a local header that differs
            # from the central directory
            raise ZipRefused(f"the .zip entry {shown!r} cannot be extracted ({type(exc).__name__}: {exc})",
                             file=self.shown) from None

    def _beyond(self, entry: Entry) -> ZipRefused:
        shown = _shown(entry.name)
        if self._left < 0:
            return ZipRefused(f"the .zip archive expands beyond {self.limits.total_name} of "
                              f"{self.limits.total_bytes / 2**20:g} MB", file=self.shown, too_large=True)
        if entry.size > self.limits.entry_bytes:
            return ZipRefused(f"the .zip entry {shown!r} expands to more than {self.limits.entry_bytes} bytes",
                              file=self.shown, too_large=True)
        return ZipRefused(f"the .zip entry {shown!r} expands beyond the size its header declares",
                          file=self.shown, too_large=True)

    def read(self, entry: Entry) -> bytes:
        """All of ``entry``, within every limit."""
        return b"".join(self.chunks(entry))

    def extract(self, root: Path) -> None:
        """Every entry (but macOS's companions) under the new folder ``root``: folders made
        here, files created with ``open(..., "xb")``, no link ever made."""
        root.mkdir()
        for folder in sorted(self.folders, key=len):
            root.joinpath(*folder).mkdir()
        for entry in self.entries:
            if entry.skipped:
                continue
            with open(root.joinpath(*entry.parts), "xb") as out:
                for chunk in self.chunks(entry):
                    out.write(chunk)


def open_zip(source: str | Path | bytes | BinaryIO, *, shown: str | None = None,
             limits: ZipLimits | None = None) -> SafeZip:
    """``source`` (a path, bytes or a seekable binary stream) as a :class:`SafeZip`;
    ``shown`` names it in messages; ``limits``: :data:`CLI_LIMITS` unless given."""
    limits = limits if limits is not None else CLI_LIMITS
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        return SafeZip(io.BytesIO(data), len(data), shown or "<string>", limits)
    if isinstance(source, (str, Path)):
        path = Path(source)
        try:
            opened: BinaryIO = open(path, "rb")
        except OSError as exc:
            raise FormatError(f"cannot read file: {exc.strerror}", file=shown or path) from None
        try:
            return SafeZip(opened, path.stat().st_size, shown or str(path), limits, owned=True)
        except BaseException:
            opened.close()
            raise
    stream = source
    stream.seek(0, io.SEEK_END)
    size = stream.tell()
    stream.seek(0)
    return SafeZip(stream, size, shown or "<string>", limits)


# -- the central directory, walked before zipfile sees it -----------------------------------------
def _walk_central_directory(stream: BinaryIO, size: int, shown: str, limits: ZipLimits) -> int:
    """Check the end record and walk the central directory (steps 1 and 2 of the module
    docstring); the number of entries."""
    def damaged(why: str) -> ZipRefused:
        return ZipRefused(f"not a readable zip file ({why})", file=shown)

    tail_size = min(size, 22 + 0xFFFF)
    stream.seek(size - tail_size)
    tail = stream.read(tail_size)
    # where zipfile looks: the last 22 bytes (no archive comment), else the last signature
    at = tail_size - 22 if tail[-22:-18] == _END and tail[-2:] == b"\0\0" else tail.rfind(_END)
    if at < 0 or len(tail) < at + 22:
        raise damaged("no end of central directory record")
    declared, directory_size = struct.unpack_from("<xxxxxxxxHL", tail, at + 2)
    end_at = size - tail_size + at
    locator = end_at - 20
    if locator >= 56:  # zipfile takes a zip64 end record whenever its locator is there
        stream.seek(locator)
        if stream.read(4) == _LOCATOR64:
            stream.seek(locator - 56)
            record = stream.read(56)
            if len(record) < 56 or not record.startswith(_END64):
                raise damaged("a zip64 end record that is not where its locator says")
            declared, directory_size = struct.unpack_from("<QQ", record, 32)
            end_at = locator - 56
    if declared > limits.entries:
        raise ZipRefused(f"the .zip archive holds {declared} entries (at most {limits.entries})",
                         file=shown, too_large=True)
    if directory_size > limits.directory_bytes:
        raise ZipRefused(f"the .zip archive's central directory is {directory_size} bytes long, more than "
                         f"{limits.entries} entries need (at most {limits.directory_bytes}): too many entries",
                         file=shown, too_large=True)
    start = end_at - directory_size
    if start < 0:
        raise damaged("the central directory would start before the file")
    stream.seek(start)
    directory = stream.read(directory_size)
    if len(directory) < directory_size:
        raise damaged("the central directory is cut short")
    count = 0
    position = 0
    while position < directory_size:
        if directory_size - position < 46 or directory[position:position + 4] != _CENTRAL:
            raise damaged(f"a bad central directory record at byte {start + position}")
        (extract_version, flags, method, name_length, extra_length,
         comment_length) = struct.unpack_from("<xxxxxxBxHH16xHHH", directory, position)
        name_bytes = directory[position + 46:position + 46 + name_length]
        count += 1
        if count > limits.entries:
            raise ZipRefused(f"the .zip archive holds more than {limits.entries} entries (its end record "
                             f"says {declared})", file=shown, too_large=True)
        name = _shown(name_bytes.decode("utf-8", "replace"))
        if name_length > limits.name:
            raise ZipRefused(f"the .zip archive holds a name longer than {limits.name} characters: {name!r}",
                             file=shown)
        if extract_version > MAX_EXTRACT_VERSION:
            raise ZipRefused(f"the .zip entry {name!r} needs zip version {extract_version / 10:.1f} to be "
                             f"unpacked (at most {MAX_EXTRACT_VERSION / 10:.1f} is supported)", file=shown)
        if flags & 0x1:
            raise ZipRefused(f"the .zip entry {name!r} is encrypted", file=shown)
        if method not in METHODS:
            raise ZipRefused(f"the .zip entry {name!r} uses compression method {method} (supported: "
                             f"{', '.join(METHODS.values())})", file=shown)
        position += 46 + name_length + extra_length + comment_length
    if position != directory_size:
        raise damaged("the last central directory record runs past the directory's end")
    if count != declared:
        raise damaged(f"its end record says {declared} entries, its central directory holds {count}")
    return count


def _parts(info: zipfile.ZipInfo, shown: str, archive: str, limits: ZipLimits) -> tuple[str, ...]:
    """The parts of an entry's name, refused when the name is unsafe."""
    name = info.filename
    if "\x00" in name or "\\" in name:
        raise ZipRefused(f"the .zip archive holds an unsafe path {shown!r} (a NUL or a backslash)", file=archive)
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        raise ZipRefused(f"the .zip archive holds an unsafe path {shown!r} (an absolute path)", file=archive)
    parts = tuple(p for p in PurePosixPath(name).parts if p not in ("", "."))
    if ".." in parts:
        raise ZipRefused(f"the .zip archive holds an unsafe path {shown!r} (it climbs out with '..')",
                         file=archive)
    if len(name) > limits.name or any(len(p.encode("utf-8")) > 255 for p in parts):
        raise ZipRefused(f"the .zip archive holds a name longer than {limits.name} characters "
                         f"(or a part longer than 255 bytes): {shown!r}", file=archive)
    if len(parts) > limits.depth:
        raise ZipRefused(f"the .zip archive nests folders more than {limits.depth} deep: {shown!r}", file=archive)
    if stat.S_ISLNK(info.external_attr >> 16):
        raise ZipRefused(f"the .zip archive holds a symbolic link {shown!r}; links are not accepted",
                         file=archive)
    return parts


def _checked_entries(infos: list[zipfile.ZipInfo], size: int, archive: str,
                     limits: ZipLimits) -> tuple[list[Entry], set[tuple[str, ...]]]:
    """The files (and the folders) of the archive, after step 3 of the module docstring."""
    declared = sum(i.file_size for i in infos)
    if declared > limits.total_bytes:
        raise ZipRefused(f"the .zip archive expands to {declared / 2**20:.1f} MB, beyond {limits.total_name} "
                         f"of {limits.total_bytes / 2**20:g} MB", file=archive, too_large=True)
    if sum(i.compress_size for i in infos) > size:
        raise ZipRefused("the .zip archive's entries claim more compressed bytes than the archive holds "
                         "(entries that share their data: a zip bomb?)", file=archive, too_large=True)
    ordered = sorted(infos, key=lambda i: i.header_offset)
    for before, after in zip(ordered, ordered[1:]):
        # a local header is at least 30 bytes, then the compressed data
        if after.header_offset < before.header_offset + 30 + before.compress_size:
            raise ZipRefused(f"the .zip entries {_shown(before.filename)!r} and {_shown(after.filename)!r} share "
                             "their data (overlapping entries: a zip bomb?)", file=archive, too_large=True)
    entries: list[Entry] = []
    files: set[tuple[str, ...]] = set()
    folders: set[tuple[str, ...]] = set()
    for info in infos:
        shown = _shown(info.filename)
        parts = _parts(info, shown, archive, limits)
        if not parts:
            continue
        folders.update(parts[:i] for i in range(1, len(parts)))
        if info.is_dir():
            folders.add(parts)
            continue
        if parts in files:
            raise ZipRefused(f"the .zip archive holds {shown!r} twice", file=archive)
        if info.file_size > limits.ratio_floor and info.file_size > limits.ratio * max(info.compress_size, 1):
            raise ZipRefused(f"the .zip entry {shown!r} expands {info.file_size // max(info.compress_size, 1)} "
                             f"times (a zip bomb?); at most {limits.ratio} times is accepted", file=archive,
                             too_large=True)
        if info.file_size > limits.entry_bytes:
            raise ZipRefused(f"the .zip entry {shown!r} expands to {info.file_size} bytes, more than "
                             f"{limits.entry_bytes}", file=archive, too_large=True)
        files.add(parts)
        entries.append(Entry(info.filename, parts, info.file_size, info.compress_size, info))
    clash = sorted(files & folders)
    if clash:
        raise ZipRefused(f"the .zip archive uses {'/'.join(clash[0])!r} both as a file and as a folder",
                         file=archive)
    # folders of skipped companions are not made
    folders = {f for f in folders if not (f[0] == "__MACOSX")}
    return entries, folders


# -- writing: one file per document ----------------------------------------------------------------
def one_file_per_document(format_name: str, option: bool | None, target: str | None, *, several: bool,
                          extension: str = "") -> bool:
    """Does a format that holds one document per file (XMI, WebAnno TSV) write a zip of
    one file per document, as INCEpTION exports a project's documents? ``option``: the
    writer's ``zip`` option (True: always; False: never, so several documents are
    refused); ``target``: the name of the output being written (None in memory).
    Unless the option says, a zip for an output named ``.zip``, and for several
    documents held in memory or written anywhere but a file named like one document
    (``extension``, e.g. ``.xmi``); several documents for such a file are refused with a
    :class:`~corefio.errors.UsageError` naming the way out, before anything is written."""
    from ..errors import UsageError

    named = (target or "").lower()
    if option is None:
        option = True if named.endswith(".zip") else None
    if option is None and several and extension and named.endswith(extension):
        option = False
    if option is False and several:
        raise UsageError(f"the input holds several documents and {format_name} holds one document per file; "
                         f"write them as a zip of one file per document (INCEpTION's export shape): name the "
                         f"output NAME.zip (with --to {format_name}), or give --write-option zip=true",
                         file=target)
    return bool(option) or several


def member_name(name: str, part: str | None, k: int, taken: Iterable[str], suffix: str) -> str:
    """The name of document ``k``'s file in a zip: its name (and part), made safe to
    unpack (no folders, not hidden) and different from the names ``taken`` (compared
    without case)."""
    stem = name if part is None else f"{name}_{part}"
    stem = re.sub(r"[/\\\x00-\x1f:]", "_", stem).lstrip(".")[:200] or f"document_{k}"
    used = {t.lower() for t in taken}
    candidate, n = f"{stem}{suffix}", k
    while candidate.lower() in used:
        candidate, n = f"{stem}_{n}{suffix}", n + 1
    return candidate


def zip_bytes(members: dict[str, bytes]) -> bytes:
    """A zip of ``members`` in their order, deflated, with a fixed date (the same files
    give the same bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()
