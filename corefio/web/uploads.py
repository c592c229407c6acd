"""Uploads: streamed to a per-request directory; MMAX2 projects, brat and LitBank TSV
pairs and INCEpTION's XMI exports unpacked from a .zip.

An upload is copied to disk in chunks as it is read (never held whole in memory). A
``.zip`` is checked from its central directory before one byte is extracted, and again
while extracting:

* every entry name must be relative, without ``..``, NUL or backslash, at most
  :data:`MAX_DEPTH` folders deep and :data:`MAX_NAME` characters long;
* no symbolic links (their mode bits say so), no name used twice, no name used both for
  a file and a folder;
* at most :data:`MAX_ENTRIES` entries, and the sizes the archive declares add up to at
  most the upload limit; an entry that expands beyond its declared size is refused
  while being written (a size header that lies), as is one that compresses more than
  :data:`MAX_RATIO` to 1 (a zip bomb).

Files are created with ``open(..., "xb")`` in folders this module made, so nothing is
written outside the extraction folder and no link is ever created. The project is the
one folder that holds ``.mmax`` files (several ``.mmax`` files in it are several
documents of one project, as ``corefio read DIR`` reads them); brat and LitBank TSV
pairs are the one folder that holds ``.ann`` files; an XMI zip, once it passed the same
checks, is read by the XMI reader (one ``.xmi`` per document, ``TypeSystem.xml``). macOS's
``__MACOSX/`` and ``._*`` companions are skipped.
"""

from __future__ import annotations

import re
import shutil
import stat
import tempfile
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Iterator

from .errors import WebError

#: entries a .zip may hold
MAX_ENTRIES = 10_000
#: folders an entry may be nested in
MAX_DEPTH = 32
#: characters of an entry's name (and 255 for one of its parts)
MAX_NAME = 1024
#: uncompressed / compressed size of one entry beyond which it is refused (larger than
#: any XML compresses: the MMAX2 projects of the test data compress 5–25 to 1)
MAX_RATIO = 200
#: entries smaller than this are never refused for their ratio (a run of spaces
#: compresses well, and small entries cannot make a bomb)
RATIO_FLOOR = 1 << 20
CHUNK = 1 << 20
SCRATCH_PREFIX = "corefio-web-"


@dataclass
class Upload:
    """An uploaded file saved on disk: the client's base name (for messages) and where."""

    name: str
    path: Path
    size: int
    #: an ``.ann`` with its ``.txt`` saved beside it (a brat or LitBank TSV document)
    pair: bool = False

    def head(self, n: int = 4096) -> bytes:
        with open(self.path, "rb") as f:
            return f.read(n)

    @property
    def is_zip(self) -> bool:
        return self.head(4) == b"PK\x03\x04"


def safe_name(filename: str | None, default: str) -> str:
    """The base name of what the client called its file (only used in messages)."""
    name = re.split(r"[\\/]", filename or "")[-1].strip()
    name = re.sub(r"[^\w.\-+ ]", "_", name)[:120].lstrip(".")
    return name or default


@contextmanager
def scratch() -> Iterator[Path]:
    """A per-request temporary directory, removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


async def save(upload, label: str, into: Path, limit: int, used: int = 0) -> Upload:
    """Copy a starlette ``UploadFile`` to ``into`` chunk by chunk; 413 past ``limit``
    (``used``: bytes other uploads of the request already took). ``upload`` may be a
    list: one file, or the two files of a brat / LitBank TSV pair (``NAME.ann`` and
    ``NAME.txt``, saved side by side; the upload is the ``.ann``)."""
    uploads = [u for u in upload if u is not None and not isinstance(u, str)] if isinstance(upload, list) \
        else [upload]
    if len(uploads) > 2:
        raise WebError(400, f"{len(uploads)} {label} files were uploaded; upload one file, or the .ann and the "
                            ".txt file of a brat or LitBank TSV document")
    folder = into / label
    folder.mkdir()
    saved: list[Upload] = []
    for one in uploads or [None]:
        saved.append(await _save_one(one, label, folder, limit, used + sum(u.size for u in saved)))
    if len(saved) == 1:
        return saved[0]
    ann, txt = sorted(saved, key=lambda u: u.path.suffix.lower() != ".ann")
    if (ann.path.suffix.lower(), txt.path.suffix.lower()) != (".ann", ".txt") or ann.path.stem != txt.path.stem:
        raise WebError(400, f"two {label} files are a brat or LitBank TSV pair: NAME.ann and NAME.txt, not "
                            f"{ann.name} and {txt.name}")
    return Upload(ann.name, ann.path, ann.size + txt.size, pair=True)


async def _save_one(upload, label: str, folder: Path, limit: int, used: int) -> Upload:
    if upload is None or isinstance(upload, str) or (not upload.filename and not upload.size):
        raise WebError(400, f"no {label} file was uploaded")
    name = safe_name(upload.filename, label)
    path = folder / name
    if path.exists():
        raise WebError(400, f"two {label} files are both called {name}")
    size = 0
    with open(path, "xb") as out:
        while True:
            chunk = await upload.read(CHUNK)
            if not chunk:
                break
            size += len(chunk)
            if used + size > limit:
                raise WebError(413, f"the upload is larger than the limit of {limit / 2**20:g} MB")
            out.write(chunk)
    await upload.close()
    if size == 0:
        raise WebError(422, "the file is empty", name)
    return Upload(name, path, size)


def nesting_depth(data: bytes, stop: int) -> int:
    """How deep the elements of XML-ish ``data`` nest, counted up to ``stop`` (a rough
    count by tags: comments and CDATA are not told apart)."""
    depth = deepest = 0
    for m in _TAG.finditer(data):
        if m.group(1):
            depth = max(0, depth - 1)
        elif not m.group(2):
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > stop:
                    break
    return deepest


_TAG = re.compile(rb"<(/)?[A-Za-z_:][^<>]*?(/)?>")


def _entry_parts(info: zipfile.ZipInfo, shown: str) -> tuple[str, ...]:
    """The parts of an entry's name, or a 422 saying why the name is unsafe."""
    name = info.filename
    if "\x00" in name or "\\" in name:
        raise WebError(422, f"the .zip archive holds an unsafe path {shown!r} (a NUL or a backslash)")
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        raise WebError(422, f"the .zip archive holds an unsafe path {shown!r} (an absolute path)")
    parts = tuple(p for p in PurePosixPath(name).parts if p not in ("", "."))
    if ".." in parts:
        raise WebError(422, f"the .zip archive holds an unsafe path {shown!r} (it climbs out with '..')")
    if len(name) > MAX_NAME or any(len(p.encode("utf-8")) > 255 for p in parts):
        raise WebError(422, f"the .zip archive holds a name longer than {MAX_NAME} characters "
                            f"(or a part longer than 255 bytes): {shown!r}")
    if len(parts) > MAX_DEPTH:
        raise WebError(422, f"the .zip archive nests folders more than {MAX_DEPTH} deep: {shown!r}")
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise WebError(422, f"the .zip archive holds a symbolic link {shown!r}; links are not accepted")
    return parts


def _skipped(parts: tuple[str, ...]) -> bool:
    """macOS's resource-fork companions, never part of a project."""
    return bool(parts) and (parts[0] == "__MACOSX" or parts[-1].startswith("._"))


def declared_entries(path: Path) -> int | None:
    """The number of entries the archive's end record declares (None: not found, or a
    zip64 archive), read without parsing the central directory."""
    size = path.stat().st_size
    with open(path, "rb") as f:
        f.seek(max(0, size - (1 << 16) - 22))
        tail = f.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) < at + 12:
        return None
    total = int.from_bytes(tail[at + 10:at + 12], "little")
    return None if total == 0xFFFF else total


def zip_format(up: Upload) -> str:
    """The format an uploaded .zip holds, told from its entries' names: ``mmax2`` (a
    ``.mmax`` file), ``xmi`` (a ``.xmi`` file: INCEpTION's export), ``brat`` (``.ann``
    files: brat or LitBank TSV pairs, :func:`pairs_folder` tells which); ``mmax2`` when
    none of these is there (its message names what a project needs)."""
    entries = declared_entries(up.path)
    if entries is not None and entries > MAX_ENTRIES:
        raise WebError(413, f"the .zip archive holds {entries} entries (at most {MAX_ENTRIES})", up.name)
    try:
        with zipfile.ZipFile(up.path) as archive:
            names = [n.lower() for n in archive.namelist()[:MAX_ENTRIES + 1]]
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        raise WebError(422, f"not a valid .zip archive ({exc})", up.name) from None
    for suffix, name in ((".mmax", "mmax2"), (".xmi", "xmi"), (".ann", "brat")):
        if any(n.endswith(suffix) and not _skipped(tuple(PurePosixPath(n).parts)) for n in names):
            return name
    return "mmax2"


def unzip_for(up: Upload, fmt: str, into: Path, limit: int) -> Path:
    """What to read of an uploaded .zip in ``fmt``, after every check of :func:`unzip`:
    the MMAX2 project's folder, the folder of brat / LitBank TSV pairs, or (for XMI,
    whose reader reads INCEpTION's zips itself) the upload."""
    root = unzip(up, into, limit)
    if fmt == "mmax2":
        return project_folder(root, up.name)
    if fmt == "xmi":
        if not any(p.suffix.lower() == ".xmi" for p in root.rglob("*")):
            raise WebError(422, "the .zip archive holds no .xmi file", up.name)
        return up.path
    if fmt in ("brat", "litbank-tsv"):
        return pairs_folder(root, up.name)
    raise WebError(400, f"a .zip archive is read as mmax2, brat, litbank-tsv or xmi, not as {fmt}", up.name)


def pairs_folder(root: Path, shown: str) -> Path:
    """The one folder under ``root`` holding ``.ann`` files (brat or LitBank TSV pairs)."""
    holders = sorted({p.parent for p in root.rglob("*") if p.suffix.lower() == ".ann" and p.is_file()
                      and not p.is_symlink()})
    if not holders:
        raise WebError(422, "the .zip archive holds no .ann file (brat and LitBank TSV are .ann/.txt pairs)",
                       shown)
    if len(holders) > 1:
        names = ", ".join(str(h.relative_to(root)) or "." for h in holders[:5])
        raise WebError(422, f"the .zip archive holds .ann files in {len(holders)} folders ({names}); put the "
                            "pairs of one corpus in one folder", shown)
    return holders[0]


def unzip_project(up: Upload, into: Path, limit: int) -> Path:
    """Extract the uploaded .zip under ``into/project``; the MMAX2 project's folder."""
    return project_folder(unzip(up, into, limit), up.name)


def unzip(up: Upload, into: Path, limit: int) -> Path:
    """Extract the uploaded .zip under ``into/project`` with every check above; that folder."""
    entries = declared_entries(up.path)
    if entries is not None and entries > MAX_ENTRIES:
        raise WebError(413, f"the .zip archive holds {entries} entries (at most {MAX_ENTRIES})", up.name)
    try:
        archive = zipfile.ZipFile(up.path)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        raise WebError(422, f"not a valid .zip archive ({exc})", up.name) from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_ENTRIES:
            raise WebError(413, f"the .zip archive holds {len(members)} entries (at most {MAX_ENTRIES})", up.name)
        declared = sum(m.file_size for m in members)
        if declared > limit:
            raise WebError(413, f"the .zip archive expands to {declared / 2**20:.1f} MB, beyond the upload "
                                f"limit of {limit / 2**20:g} MB", up.name)
        plan: list[tuple[zipfile.ZipInfo, tuple[str, ...]]] = []
        files: set[tuple[str, ...]] = set()
        folders: set[tuple[str, ...]] = set()
        for m in members:
            shown = m.filename if len(m.filename) <= 120 else m.filename[:117] + "..."
            parts = _entry_parts(m, shown)
            if not parts or _skipped(parts):
                continue
            for i in range(1, len(parts)):
                folders.add(parts[:i])
            if m.is_dir():
                folders.add(parts)
                continue
            if parts in files:
                raise WebError(422, f"the .zip archive holds {shown!r} twice", up.name)
            if m.file_size > RATIO_FLOOR and m.file_size > MAX_RATIO * max(m.compress_size, 1):
                raise WebError(413, f"the .zip entry {shown!r} expands {m.file_size // max(m.compress_size, 1)} "
                                    f"times (a zip bomb?); at most {MAX_RATIO} times is accepted", up.name)
            files.add(parts)
            plan.append((m, parts))
        clash = sorted(files & folders)
        if clash:
            raise WebError(422, f"the .zip archive uses {'/'.join(clash[0])!r} both as a file and as a folder",
                           up.name)
        root = into / "project"
        root.mkdir()
        for folder in sorted(folders, key=len):
            (root.joinpath(*folder)).mkdir()
        written = 0
        for m, parts in plan:
            target = root.joinpath(*parts)
            allowed = m.file_size
            try:
                with archive.open(m) as src, open(target, "xb") as dst:
                    while True:
                        chunk = src.read(CHUNK)
                        if not chunk:
                            break
                        allowed -= len(chunk)
                        written += len(chunk)
                        if allowed < 0 or written > limit:
                            raise WebError(413, f"the .zip entry {m.filename[:120]!r} expands beyond the size "
                                                "its header declares", up.name)
                        dst.write(chunk)
            except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, NotImplementedError,
                    RuntimeError, OSError) as exc:
                # a bad CRC, an unsupported or encrypted entry, a local header that
                # differs from the central directory
                raise WebError(422, f"the .zip entry {m.filename[:120]!r} cannot be extracted "
                                    f"({type(exc).__name__}: {exc})", up.name) from None
    return root


def project_folder(root: Path, shown: str) -> Path:
    """The one folder under ``root`` holding ``.mmax`` files (the project)."""
    holders = sorted({p.parent for p in root.rglob("*") if p.suffix.lower() == ".mmax" and p.is_file()
                      and not p.is_symlink()})
    if not holders:
        raise WebError(422, "the .zip archive holds no MMAX2 project (no .mmax file)", shown)
    if len(holders) > 1:
        names = ", ".join(str(h.relative_to(root)) or "." for h in holders[:5])
        raise WebError(422, f"the .zip archive holds {len(holders)} MMAX2 projects (folders with .mmax files: "
                            f"{names}); upload one project per archive", shown)
    return holders[0]
