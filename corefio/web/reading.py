"""Reading an upload into a corpus, in the worker that does the work (:mod:`.worker`).

Shared by the score, convert and validate pages (:mod:`.app`) and the compare page
(:mod:`.compare`): the format chosen or recognised, zips of projects and pairs unpacked
by :mod:`.uploads`' checks, repair when asked, and every message cleaned of server paths.
"""

from __future__ import annotations

import re
from pathlib import Path

import corefio
from ..diagnostics import Report
from ..errors import CorefioError
from ..io.source import Source
from .errors import WebError, from_corefio, scrub
from .uploads import Upload, member_files, opened, unzip, unzip_for, zip_format

#: formats read from a directory: what to upload instead of one file
DIRECTORY_FORMATS = {
    "mmax2": "an MMAX2 project is a directory: upload it as a .zip archive",
    "brat": "brat is .ann/.txt pairs: upload a .zip of them, or the .ann and the .txt file together",
    "litbank-tsv": "LitBank TSV is .ann/.txt pairs: upload a .zip of them, or the .ann and the .txt file together",
}
#: formats read from a folder that a .zip brings: how its entries' names show the format
FOLDER_FORMATS = {
    "ecbplus": re.compile(r"(^|/)(\d+_\d+ecb(plus)?\.xml|ECBplus_coreference_sentences\.csv)$"),
    "cdcr-json": re.compile(r"(^|/)[^/]*_(events|entities|mixed)\.json$"),
}
#: the XML-ish formats that repair applies to
REPAIRABLE = ("raf", "mate", "muc", "mmax2")


def clean(diagnostics: list[dict]) -> list[dict]:
    """Diagnostics as the client may see them: no server path in a file name or message."""
    for d in diagnostics:
        for k in ("file", "message"):
            if isinstance(d.get(k), str):
                d[k] = scrub(d[k])
    return diagnostics


def resolve(up: Upload, fmt: str | None) -> str:
    """The format name: the one chosen, else from the file name and content."""
    from ..formats.registry import resolve_format

    if fmt:
        return corefio.get_format(fmt).name
    if up.is_zip:
        return zip_format(up)
    return resolve_format(up.path, None).name


def folder_format(up: Upload, fmt: str | None, limit: int) -> str | None:
    """The folder format (ECB+, Cattan et al.'s JSON) an uploaded .zip holds: the one
    chosen, else the one its entries' names show; None for the other formats."""
    if fmt:
        name = corefio.get_format(fmt).name
        return name if name in FOLDER_FORMATS else None
    with opened(up, limit) as archive:
        names = [e.name for e in archive.entries if not e.skipped]
    for name, pattern in FOLDER_FORMATS.items():
        if any(pattern.search(n) for n in names):
            return name
    return None


def read_folder(up: Upload, fmt: str, limit: int, tmp: Path, report: Report):
    """An uploaded .zip of an ECB+ corpus or Cattan et al.'s JSON files, extracted with
    every check of :mod:`.uploads` and read as the folder it holds (the first folder,
    from the top, that the format recognises)."""
    from ..formats.registry import get_format

    spec = get_format(fmt)
    sniff = spec.sniff_directory
    folder = unzip(up, tmp / up.path.parent.name, limit)
    while sniff is not None and not sniff(folder):
        children = [p for p in folder.iterdir() if not p.is_symlink()]
        if len(children) != 1 or not children[0].is_dir():
            raise WebError(422, f"the .zip archive holds no {fmt} corpus where it is expected (one folder of "
                                f"{'topics or documents and ECBplus_coreference_sentences.csv' if fmt == 'ecbplus' else 'JSON mention files'})",
                           up.name)
        folder = children[0]
    return corefio.read(folder, fmt, report=report)


def read_members(up: Upload, root: Path, fmt: str, report: Report):
    """The files of one format a .zip held, read as one corpus (their documents in the
    order of the files' paths); each file named in messages as ``ZIP/PATH``."""
    from ..model import Corpus

    documents: list = []
    schemes: list = []
    metadata: dict[str, str] = {}
    for path in member_files(root, fmt):
        shown = f"{up.name}/{path.relative_to(root).as_posix()}"
        try:
            corpus = corefio.read(Source(shown, path), fmt, report=report)
        except CorefioError as exc:
            raise from_corefio(exc.located(shown)) from None
        documents.extend(corpus.documents)
        metadata = metadata or dict(corpus.metadata)
        schemes.extend(s for s in corpus.schemes if all(s.layer != t.layer for t in schemes))
    return Corpus(documents=documents, metadata=metadata, schemes=schemes)


def read_upload(up: Upload, fmt: str | None, repair: bool, limit: int, tmp: Path, report: Report):
    """The corpus of one upload (repaired first when asked) and its format."""
    try:
        folder = folder_format(up, fmt, limit) if up.is_zip else None
        if folder is not None:
            return read_folder(up, folder, limit, tmp, report), folder
        name = resolve(up, fmt)
        if up.is_zip and name != "mmax2":  # brat or LitBank TSV pairs, an XMI export
            path = unzip_for(up, name, tmp / up.path.parent.name, limit)
            if path.is_dir() and name not in DIRECTORY_FORMATS:  # files of one format
                return read_members(up, path, name, report), name
            if path.is_dir() and not fmt:  # brat or LitBank TSV: the pairs tell
                from ..formats.registry import resolve_format

                name = resolve_format(path, None).name
            return corefio.read(Source(up.name, path) if path == up.path else path, name, report=report), name
        if name in DIRECTORY_FORMATS and not (up.pair or up.is_zip):
            raise WebError(400, DIRECTORY_FORMATS[name], up.name)
        if name == "mmax2" or up.is_zip:
            project = unzip_for(up, "mmax2", tmp / up.path.parent.name, limit)
            if repair:
                from ..io.repair import repair_bytes

                for xml in sorted(project.rglob("*.xml")):
                    fixed, changes = repair_bytes(xml.read_bytes())
                    for c in changes:
                        report.warning(f"repair.{c.fixer}", c.message, file=f"{up.name}/{xml.name}",
                                       line=c.line, column=c.column)
                    xml.write_bytes(fixed)
            return corefio.read(project, "mmax2", report=report), name
        if repair and name in REPAIRABLE:
            from ..io.repair import repair_bytes

            data, changes = repair_bytes(up.path.read_bytes())
            for c in changes:
                report.warning(f"repair.{c.fixer}", c.message, file=up.name, line=c.line, column=c.column)
            return corefio.loads(data, name, report=report, name=up.name), name
        return corefio.read(Source(up.name, up.path), name, report=report), name
    except CorefioError as exc:
        raise from_corefio(exc.located(up.name)) from None
    except WebError:
        raise
    except (ValueError, UnicodeError, OSError, RecursionError) as exc:
        raise WebError(422, f"cannot read the file: {scrub(str(exc))}", up.name) from None
