"""Uploads: streamed to a per-request directory; MMAX2 projects, brat and LitBank TSV
pairs and INCEpTION's XMI exports unpacked from a .zip.

An upload is copied to disk in chunks as it is read (never held whole in memory). A
``.zip`` is opened by :mod:`corefio.io.archive`, the one module that opens zips for the
command line and the web alike: every check (names, links, entries counted as the
central directory is read, sizes, ratios, a size header that lies) runs before one byte
is extracted or while extracting, with the upload limit as the total an archive may
unpack to. A refusal for size or number is a 413, a damaged or unsafe archive a 422.

Files are created with ``open(..., "xb")`` in folders this module made, so nothing is
written outside the extraction folder and no link is ever created. The project is the
one folder that holds ``.mmax`` files (several ``.mmax`` files in it are several
documents of one project, as ``corefio read DIR`` reads them); brat and LitBank TSV
pairs are the one folder that holds ``.ann`` files; an XMI zip (one ``.xmi`` per
document, ``TypeSystem.xml``) or a zip of WebAnno TSV files, once it passed the same
checks, is read by its format's reader. A zip of files of one other format (CoNLL,
CoNLL-U, JSON lines, RAF...: an annotator's or a system's files) is several files read as
one corpus, in the order of their names (:func:`files_format`). macOS's ``__MACOSX/``
and ``._*`` companions are skipped.
"""

from __future__ import annotations

import re
import os
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ..errors import CorefioError
from ..io.archive import SafeZip, ZipRefused, is_zip, limits, open_zip
from .errors import WebError

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
        return is_zip(self.head(4))


def safe_name(filename: str | None, default: str) -> str:
    """The base name of what the client called its file (only used in messages)."""
    name = re.split(r"[\\/]", filename or "")[-1].strip()
    name = re.sub(r"[^\w.\-+ ]", "_", name)[:120].lstrip(".")
    return name or default


@contextmanager
def scratch() -> Iterator[Path]:
    """A per-request temporary directory, removed afterwards."""
    # named after this server process, so that a server starting after a crash knows
    # which scratch folders are left over (corefio.web.app removes those of dead servers)
    path = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}_"))
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


def _refused(exc: ZipRefused, shown: str) -> WebError:
    """The answer for a zip :mod:`corefio.io.archive` refused: 413 for its size or number
    of entries, 422 for a damaged or unsafe archive."""
    return WebError(413 if exc.too_large else 422, exc.message, shown)


@contextmanager
def opened(up: Upload, limit: int) -> Iterator[SafeZip]:
    """The uploaded .zip, opened by :func:`corefio.io.archive.open_zip` with the web's
    limits (the upload limit as the total it may unpack to)."""
    try:
        archive = open_zip(up.path, shown=up.name, limits=limits(limit))
    except ZipRefused as exc:
        raise _refused(exc, up.name) from None
    except CorefioError as exc:
        raise WebError(422, exc.message, up.name) from None
    with archive:
        yield archive


def zip_format(up: Upload, limit: int = 1 << 62) -> str:
    """The format an uploaded .zip holds, told from its entries' names: ``mmax2`` (a
    ``.mmax`` file), ``xmi`` (a ``.xmi`` file: INCEpTION's export), ``webanno-tsv``
    (``.tsv`` files), ``brat`` (``.ann`` files: brat or LitBank TSV pairs,
    :func:`pairs_folder` tells which); ``mmax2`` when none of these is there (its
    message names what a project needs)."""
    with opened(up, limit) as archive:
        names = [e.name.lower() for e in archive.entries if not e.skipped]
    for suffix, name in ((".mmax", "mmax2"), (".xmi", "xmi"), (".tsv", "webanno-tsv"), (".ann", "brat")):
        if any(n.endswith(suffix) for n in names):
            return name
    return files_format(names) or "mmax2"


def files_format(names: list[str]) -> str | None:
    """The one single-file format every file of ``names`` has by its extension (folders
    and files without one are ignored); None when they disagree or none has one."""
    from ..formats.registry import _extension_matches

    found: set[str] = set()
    for name in names:
        if name.endswith("/"):
            continue
        matches = [(length, spec) for length, spec, _ in _extension_matches(name.rsplit("/", 1)[-1])
                   if not spec.directory and spec.read is not None]
        if not matches:
            continue
        found.add(max(matches, key=lambda m: m[0])[1].name)
    return found.pop() if len(found) == 1 else None


def unzip_for(up: Upload, fmt: str, into: Path, limit: int) -> Path:
    """What to read of an uploaded .zip in ``fmt``, after every check of :func:`unzip`:
    the MMAX2 project's folder, the folder of brat / LitBank TSV pairs, or (for XMI and
    WebAnno TSV, whose readers read zips themselves through the same checks) the upload."""
    root = unzip(up, into, limit)
    if fmt == "mmax2":
        return project_folder(root, up.name)
    if fmt in ("xmi", "webanno-tsv"):
        suffix = ".xmi" if fmt == "xmi" else ".tsv"
        if not any(p.suffix.lower() == suffix for p in root.rglob("*")):
            raise WebError(422, f"the .zip archive holds no {suffix} file", up.name)
        return up.path
    if fmt in ("brat", "litbank-tsv"):
        return pairs_folder(root, up.name)
    if member_files(root, fmt):
        return root
    raise WebError(422, f"the .zip archive holds no {fmt} file (a .zip is an MMAX2 project, brat or LitBank TSV "
                        "pairs, an XMI or WebAnno TSV export, or files of one format)", up.name)


def member_files(root: Path, fmt: str) -> list[Path]:
    """The files of format ``fmt`` (by extension) extracted under ``root``, in the order
    of their paths."""
    from ..formats.registry import _extension_matches

    out = []
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.is_symlink():
            continue
        matches = [(length, spec.name) for length, spec, _ in _extension_matches(p.name)]
        if matches and max(matches)[1] == fmt:
            out.append(p)
    return out


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
    """Extract the uploaded .zip under ``into/project`` with every check of
    :mod:`corefio.io.archive` (the upload limit as the total); that folder."""
    root = into / "project"
    with opened(up, limit) as archive:
        try:
            archive.extract(root)
        except ZipRefused as exc:
            raise _refused(exc, up.name) from None
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
