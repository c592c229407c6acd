"""The XSLT conversion engine (``corefio convert --engine xslt``).

Reading: ``xslt/<format>-to-raf.xsl`` (mate, muc, mmax2) turns the input into RAF 2.0,
which the Python RAF reader reads (under lxml it walks the result tree directly). MUC
SGML is first made XML by :func:`corefio.repair.repair_bytes` (``kind="muc"``); an MMAX2
project is read one ``.mmax`` file at a time (the stylesheet loads ``common_paths.xml``,
the base data, the schemes and the level files with ``document()``).

Writing: ``xslt/raf-to-<format>.xsl`` turns the RAF the Python writer makes into the
format: mate and muc in one run (:func:`from_raf`), an MMAX2 project one file per run,
the stylesheet's ``manifest`` run listing the files (:func:`from_raf_files`).
:func:`convert` combines both; a target without a stylesheet is written by its Python
writer.

The stylesheets name the rules they applied in ``xsl:message``s (``rule …``); each
becomes an ``xslt.rule`` info diagnostic, ``dropped: …`` an ``xslt.warning`` and the
message of a stylesheet that stops (``error: …``) the error raised. Other lines on the
processor's error channel (the XML parser's own warnings) are not reported.

Two processors run the same files: lxml (:func:`transform`, the default) and the
``xsltproc`` program (:func:`run_xsltproc`). Neither may write files or use the
network; reading local files is allowed (``document()``), and under lxml a missing file
gives an empty ``corefio-missing-file`` document, as xsltproc gives an empty node-set.
"""

from __future__ import annotations

import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

from lxml import etree

from .diagnostics import Report
from .errors import CorefioError, UsageError
from .resources import stylesheet_path
from .source import Source
from .xmlsafe import _parser, _refuse_entity_declarations_early

#: format → stylesheet to RAF; format → stylesheet from RAF (only those that exist)
TO_RAF = {"mate": "mate-to-raf.xsl", "mmax2": "mmax2-to-raf.xsl", "muc": "muc-to-raf.xsl"}
FROM_RAF = {"mate": "raf-to-mate.xsl", "muc": "raf-to-muc.xsl", "mmax2": "raf-to-mmax2.xsl"}


#: what document() gives for a file that does not exist, under lxml (xsltproc gives an
#: empty node-set); the stylesheets ignore a root element of this name
MISSING = "corefio-missing-file"


class _MissingFiles(etree.Resolver):
    """Local files that do not exist resolve to an empty ``corefio-missing-file``
    document, so that an absent level file means no markables, as for the Python reader."""

    def resolve(self, url, pubid, context):  # noqa: D102  (lxml's resolver interface)
        path = url[7:] if url.startswith("file://") else url
        if "://" not in path and not Path(path).exists():
            return self.resolve_string(f"<{MISSING}/>", context)
        return None


def _input_parser() -> etree.XMLParser:
    parser = _parser()
    parser.resolvers.add(_MissingFiles())
    return parser


@lru_cache(maxsize=None)
def _stylesheet(name: str) -> etree.XSLT:
    access = etree.XSLTAccessControl(read_file=True, write_file=False, create_dir=False,
                                     read_network=False, write_network=False)
    doc = etree.parse(str(stylesheet_path(name)), _input_parser())
    return etree.XSLT(doc, access_control=access)


def _quote(value: str) -> str:
    """An XPath string literal for a stylesheet parameter."""
    return etree.XSLT.strparam(value)


def _apply(name: str, data: bytes, base_url: str | None, params: dict[str, str] | None) -> tuple[object, list[str]]:
    """The lxml result tree of ``xslt/<name>`` on ``data``, and the stylesheet's messages."""
    _refuse_entity_declarations_early(data, base_url)
    try:
        root = etree.fromstring(data, _input_parser(), base_url=base_url)
    except etree.XMLSyntaxError as exc:
        raise CorefioError(f"not well-formed XML: {exc.msg}", file=base_url) from None
    xslt = _stylesheet(name)
    try:
        result = xslt(root.getroottree(), **{k: _quote(v) for k, v in (params or {}).items()})
    except etree.XSLTApplyError as exc:
        messages = [entry.message for entry in xslt.error_log]
        stop = next((m for m in reversed(messages) if m.startswith("error:")), str(exc))
        raise CorefioError(f"stylesheet {name} stopped: {stop}", file=base_url) from None
    return result, [entry.message for entry in xslt.error_log]


def transform(name: str, data: bytes, *, base_url: str | None = None,
              params: dict[str, str] | None = None) -> tuple[bytes, list[str]]:
    """Run ``xslt/<name>`` on ``data`` with lxml: (result bytes, the stylesheet's messages).

    ``base_url`` is where ``document()`` resolves relative names (the input's path)."""
    result, messages = _apply(name, data, base_url, params)
    return bytes(result), messages  # type: ignore[call-overload]


def xsltproc_available() -> bool:
    return shutil.which("xsltproc") is not None


def run_xsltproc(name: str, path: str | Path, *, params: dict[str, str] | None = None) -> tuple[bytes, list[str]]:
    """Run ``xslt/<name>`` on the file ``path`` with the ``xsltproc`` program (no network,
    no writing): (result bytes, messages)."""
    exe = shutil.which("xsltproc")
    if exe is None:
        raise UsageError("xsltproc is not installed")
    args = [exe, "--nonet", "--nowrite", "--nomkdir"]
    for key, value in (params or {}).items():
        args += ["--stringparam", key, value]
    # xsltproc takes the input name as a URI reference: a "%" in it (corefio writes
    # "news%2Fpeaks.mmax" for a document named "news/peaks") must be written %25
    args += [str(stylesheet_path(name)), str(path).replace("%", "%25")]
    done = subprocess.run(args, capture_output=True, check=False)
    messages = [line for line in done.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    if done.returncode != 0:
        stop = next((m for m in reversed(messages) if m.startswith("error:")), "; ".join(messages[-3:]))
        raise CorefioError(f"xsltproc {name} failed: {stop}", file=str(path))
    return done.stdout, messages


#: what a stylesheet's own messages start with (the rest is the XML parser's chatter)
_OWN = ("rule ", "dropped:", "error:")


def _record(report: Report, name: str, messages: list[str], file: str | None) -> None:
    for message in messages:
        if not message.startswith(_OWN):
            continue
        if message.startswith("error:"):
            report.add("xslt.error", "error", f"{name}: {message}", file=file)
        elif message.startswith("dropped:"):
            report.add("xslt.warning", "warning", f"{name}: {message}", file=file)
        else:
            report.add("xslt.rule", "info", f"{name}: {message}", file=file)


def _inputs(path: Path, format: str) -> list[tuple[Path, str]]:
    """The files a stylesheet runs on, each with its document stem: an MMAX2 directory
    gives its ``.mmax`` files in name order (one document each)."""
    if format == "mmax2":
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix.lower() == ".mmax" and p.is_file())
            if not found:
                raise CorefioError("no .mmax file in this directory: not an MMAX2 project", file=str(path))
            return [(p, p.name[: -len(p.suffix)]) for p in found]
        return [(path, path.name[: -len(path.suffix)] if path.suffix else path.name)]
    return [(path, Source.of(path).stem)]


def _prepare(file: Path, format: str, report: Report | None) -> bytes:
    """The bytes the stylesheet reads: MUC SGML is repaired into XML first."""
    data = file.read_bytes()
    if format != "muc":
        return data
    from .repair import repair_bytes

    fixed, changes = repair_bytes(data, kind="muc")
    if report is not None:
        for change in changes:
            report.add("xslt.repaired", "info", f"repaired before the stylesheet: {change.message}",
                       file=str(file), line=change.line, column=change.column)
    return fixed


def to_raf_files(path: str | Path, format: str, *, report: Report | None = None,
                 processor: str = "lxml") -> list[bytes]:
    """The RAF 2.0 documents ``xslt/<format>-to-raf.xsl`` makes of ``path`` (one result
    per input file: an MMAX2 directory has one per ``.mmax``); the stylesheet's messages
    go to ``report``."""
    name = TO_RAF.get(format)
    if name is None:
        raise UsageError(f"no stylesheet converts {format} to RAF (there are: {', '.join(sorted(TO_RAF))})")
    if processor not in ("lxml", "xsltproc"):
        raise UsageError(f"XSLT processor is lxml or xsltproc, not {processor!r}")
    out = []
    for file, stem in _inputs(Path(path), format):
        params = {"stem": stem}
        data = _prepare(file, format, report)
        if processor == "xsltproc":
            if format == "muc":
                import tempfile

                with tempfile.TemporaryDirectory() as tmp:
                    repaired = Path(tmp, file.name)
                    repaired.write_bytes(data)
                    result, messages = run_xsltproc(name, repaired, params=params)
            else:
                result, messages = run_xsltproc(name, file, params=params)
        else:
            result, messages = transform(name, data, base_url=str(file.resolve()), params=params)
        if report is not None:
            _record(report, name, messages, str(file))
        out.append(result)
    return out


def to_raf(path: str | Path, format: str, *, report: Report | None = None, processor: str = "lxml") -> bytes:
    """:func:`to_raf_files` for an input that is one file (one RAF result)."""
    results = to_raf_files(path, format, report=report, processor=processor)
    if len(results) != 1:
        raise UsageError(f"{path} gives {len(results)} RAF files: use to_raf_files or read")
    return results[0]


def read(path: str | Path, format: str, *, report: Report | None = None, processor: str = "lxml"):
    """Read ``path`` through its stylesheet to RAF and the Python RAF reader. Under lxml
    the reader walks the stylesheet's result tree (no serialising and parsing again)."""
    from . import api
    from .formats.raf import RafStream
    from .model import Corpus

    report = report if report is not None else Report(str(path))
    if processor != "lxml":
        documents = []
        for raf in to_raf_files(path, format, report=report, processor=processor):
            documents.extend(api.loads(raf, "raf", report=report).documents)
        return Corpus(documents=documents)
    name = TO_RAF.get(format)
    if name is None:
        raise UsageError(f"no stylesheet converts {format} to RAF (there are: {', '.join(sorted(TO_RAF))})")
    documents = []
    for file, stem in _inputs(Path(path), format):
        # compact: the stylesheet may leave out what only people read (word numbers, line
        # breaks), which the reader would skip anyway (about a tenth of mmax2-to-raf's work)
        tree, messages = _apply(name, _prepare(file, format, report), str(file.resolve()),
                                {"stem": stem, "compact": "yes"})
        _record(report, name, messages, str(file))
        documents.extend(RafStream(Source(f"{file} ({name})"), report, False, tree=tree))
    return Corpus(documents=documents)


def from_raf(raf: bytes, format: str, *, report: Report | None = None) -> bytes:
    """What ``xslt/raf-to-<format>.xsl`` makes of RAF 2.0 bytes (lxml)."""
    name = FROM_RAF.get(format)
    if name is None:
        raise UsageError(f"no stylesheet converts RAF to {format} (there are: {', '.join(sorted(FROM_RAF))})")
    data, messages = transform(name, raf)
    if report is not None:
        _record(report, name, messages, None)
    return data


def _file_stem(name: str, taken: set[str]) -> str:
    """A file stem for a document name (``/`` and ``%`` quoted, repeats numbered)."""
    stem = name.replace("%", "%25").replace("/", "%2F") or "document"
    base, k = stem, 1
    while stem in taken:
        k += 1
        stem = f"{base}~{k}"
    taken.add(stem)
    return stem


def from_raf_files(raf: bytes, format: str, *, report: Report | None = None) -> dict[str, bytes]:
    """A multi-file format made from RAF 2.0 bytes: ``xslt/raf-to-mmax2.xsl`` run once per
    project file (its ``manifest`` run lists them): ``{relative path: bytes}``."""
    if format != "mmax2":
        data = from_raf(raf, format, report=report)
        return {f"corpus.{format}": data}
    name = "raf-to-mmax2.xsl"

    def run(**params: str) -> bytes:
        data, messages = transform(name, raf, params=params)
        if report is not None:
            _record(report, name, messages, None)
        return data

    manifest = etree.fromstring(run(file="manifest"))
    files: dict[str, bytes] = {"common_paths.xml": run(file="common_paths")}
    for entry in manifest.iter("file"):
        level = entry.get("level", "")
        files[f"Schemes/{level}_scheme.xml"] = run(file="scheme", level=level)
    taken: set[str] = set()
    for document in manifest.iter("document"):
        n = document.get("n", "1")
        stem = _file_stem(document.get("name", ""), taken)
        files[f"{stem}.mmax"] = run(file="mmax", doc=n, stem=stem)
        files[f"Basedata/{stem}_words.xml"] = run(file="words", doc=n, stem=stem)
        for level in document.iter("level"):
            lname = level.get("name", "")
            files[f"Markables/{stem}_{lname}_level.xml"] = run(file="level", doc=n, level=lname, stem=stem)
    return files


def convert(source: str | Path, target: str | Path, from_format: str, to_format: str, *,
            report: Report | None = None, processor: str = "lxml", force: bool = False) -> Report:
    """``corefio convert --engine xslt``: read with the source format's stylesheet (or
    the Python reader when the source is RAF), write with the target's stylesheet (or
    the Python writer when there is none), atomically."""
    from . import api, files
    from .formats import raf as raf_format

    report = report if report is not None else Report(str(source))
    if from_format == "raf":
        corpus = api.read(source, "raf", report=report)
    else:
        corpus = read(source, from_format, report=report, processor=processor)
    if to_format == "mmax2":
        tree = from_raf_files(raf_format.dumps(corpus, report=report), to_format, report=report)
        files.atomic_write_tree(target, tree, inputs=[source], force=force)
        return report
    if to_format in FROM_RAF:
        data = from_raf(raf_format.dumps(corpus, report=report), to_format, report=report)
        files.atomic_write(target, [data], inputs=[source])
        return report
    return api.write(corpus, target, to_format, report=report, inputs=[source], force=force)
