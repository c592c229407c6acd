"""The XSLT conversion engine (``corefio convert --engine xslt``).

Reading: ``xslt/<format>-to-raf.xsl`` (mate, muc, mmax2) turns the input into RAF 2.0,
which the Python RAF reader reads (under lxml it walks the result tree directly). MUC
SGML is first made XML by :func:`corefio.io.repair.repair_bytes` (``kind="muc"``); an MMAX2
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
network, load a DTD or expand an entity. xsltproc always substitutes the entities a
file declares, so every file a stylesheet reads is first checked with corefio's safe
parser (:func:`check_xml`: no entity declarations, no entity references) and refused
with :class:`~corefio.errors.UnsafeInputError` as the Python readers refuse it.

The stylesheets receive only paths the Python side resolved and confined, and build
none. For an MMAX2 project or collection the engine finds the documents and every file
each names with :class:`corefio.formats.mmax2.project.Project`, the class the Python
reader uses (one confinement check, regular files only, an element read once written
once), and passes the files it read and checked to the stylesheet as ``file:`` URIs
(parameters ``common-uri``, ``words-uri``, ``level-uris``, ``scheme-uris``: ``-`` for a
level without such a file); a MATE file's standoff base files are confined and checked
the same way. Under lxml a resolver serves exactly the checked bytes and refuses any
other file. Under xsltproc, which opens whatever it is told, the URIs are those of
private copies of the checked bytes (so a project file changed, or swapped for a FIFO,
after the check is never read); every xsltproc run has a timeout
(:data:`XSLTPROC_TIMEOUT`) and dies with corefio (:func:`run_child`). A file that lxml's
parser refuses inside a run (nested too deep, a text node too long) is a located input
error, as it is for the Python readers.
"""

from __future__ import annotations

import contextlib
import contextvars
import posixpath
import re
import shutil
import subprocess
import tempfile
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from lxml import etree

from ..diagnostics import Report
from ..errors import CorefioError, UnsafeInputError, UsageError
from ..io.resources import stylesheet_path
from ..io.source import Source, confined_path, read_regular
from ..io.xmlsafe import _parser, parse_xml, refuse_entity_references, syntax_error

if TYPE_CHECKING:
    from ..formats.mmax2 import project as P

#: format → stylesheet to RAF; format → stylesheet from RAF (only those that exist)
TO_RAF = {"mate": "mate-to-raf.xsl", "mmax2": "mmax2-to-raf.xsl", "muc": "muc-to-raf.xsl"}
FROM_RAF = {"mate": "raf-to-mate.xsl", "muc": "raf-to-muc.xsl", "mmax2": "raf-to-mmax2.xsl"}


def check_xml(data: bytes, file: str | Path, *, parse: bool = True) -> None:
    """Refuse XML that the stylesheets must not see: entity declarations and references
    to entities other than the XML predefines, as every corefio reader refuses them
    (:func:`corefio.io.xmlsafe.parse_xml`). xsltproc would fill in the entities of an
    external DTD, and lxml, which does not, would leave the text (or the attribute value)
    empty.

    ``parse=False`` (for lxml, which never loads an entity, a DTD or a file by itself):
    the same answer from the bytes where they show no ``<!ENTITY`` at all, saving a parse;
    the file is parsed when they do, or when they are not in an ASCII-based encoding. A
    file that lxml then cannot parse inside the stylesheet run is reported by
    :func:`_apply`, located, as the parse here would have."""
    # UTF-8 (with or without its byte order mark) or another encoding that writes "<"
    # and white space as ASCII does: the bytes can be searched
    ascii_based = data[:1] in (b"<", b"\xef", b" ", b"\t", b"\r", b"\n") and b"\x00" not in data[:4]
    if not parse and ascii_based and b"<!ENTITY" not in data:
        if b"<!DOCTYPE" in data:
            refuse_entity_references(data, file)
        return
    parse_xml(data, file=file)


#: how long one xsltproc run may take, in seconds, before it is stopped (an input error)
XSLTPROC_TIMEOUT = 600.0


@dataclass
class _Checked:
    """The files one stylesheet run may open with ``document()``: resolved path → the
    bytes checked.

    Under xsltproc (``folder`` given) each file is also written, exactly as checked, to
    a private folder, and the stylesheet is given the copy's URI: xsltproc, which opens
    whatever it is told, reads only bytes corefio has read and checked, never a project
    file that could have changed (or become a FIFO) in between. Under lxml the resolver
    serves the checked bytes."""

    files: dict[Path, bytes] = field(default_factory=dict)
    #: check by parsing (xsltproc) or from the bytes where they allow it (lxml)
    parse: bool = True
    folder: Path | None = None
    #: resolved path → the URI given to the stylesheet; that URI → the project's file
    uris: dict[Path, str] = field(default_factory=dict)
    origin: dict[str, Path] = field(default_factory=dict)

    def add(self, path: Path, *, data: bytes | None = None, name: str | None = None, what: str = "file",
            file: str | Path | None = None, line: int | None = None) -> str:
        """Read (a regular file only) and check ``path``, and allow it: the URI the
        stylesheet is given. ``name``: the copy's name in the folder (a relative path;
        default: a number); ``what``, ``file``, ``line``: for errors."""
        resolved = path.resolve()
        if resolved in self.uris:
            return self.uris[resolved]
        if data is None:
            data = read_regular(path, what=what, file=file, line=line)
        check_xml(data, path, parse=self.parse)
        self.files[resolved] = data
        if self.folder is not None:
            copy = self.folder / (name or f"file-{len(self.uris)}.xml")
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(data)
            uri = copy.as_uri()
        else:
            uri = resolved.as_uri()
        self.uris[resolved] = uri
        self.origin[uri] = path
        return uri


#: what the resolver allows during one lxml run (None: no document() call expected)
_ALLOWED: contextvars.ContextVar[_Checked | None] = contextvars.ContextVar("corefio_xslt_allowed", default=None)


def _path_of(url: str) -> Path | None:
    """The local path a ``file:`` URI or a plain path names (None for other URLs)."""
    parts = urlsplit(url)
    if parts.scheme == "file" and parts.netloc in ("", "localhost"):
        return Path(unquote(parts.path))
    if parts.scheme == "":
        return Path(url)
    return None


class _CheckedFiles(etree.Resolver):
    """document() under lxml: the bytes the engine checked for this run; anything else
    is refused."""

    def resolve(self, url, pubid, context):  # noqa: D102  (lxml's resolver interface)
        allowed = _ALLOWED.get()
        if allowed is None:
            return None  # not during a run: the stylesheet itself being parsed
        path = _path_of(url)
        if path is not None:
            try:
                resolved = path.resolve()
            except (OSError, RuntimeError):
                resolved = None
            if resolved in allowed.files:
                return self.resolve_string(allowed.files[resolved], context, base_url=resolved.as_uri())
        raise UnsafeInputError(f"a stylesheet asked for {url!r}, which is not a file the input names "
                               "and corefio checked; refused")


def _input_parser() -> etree.XMLParser:
    parser = _parser()
    parser.resolvers.add(_CheckedFiles())
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


def _apply(name: str, data: bytes, base_url: str | None, params: dict[str, str] | None,
           allowed: _Checked | None = None, file: str | None = None) -> tuple[object, list[str]]:
    """The lxml result tree of ``xslt/<name>`` on ``data``, and the stylesheet's messages.
    ``allowed``: the files ``document()`` may read (none when not given). A file the
    stylesheet opens that the parser refuses (nested too deep, a text node too long) is
    a located input error, as the Python readers report it."""
    shown = file if file is not None else base_url
    check_xml(data, shown or "<input>", parse=False)
    try:
        root = etree.fromstring(data, _input_parser(), base_url=base_url)
    except etree.XMLSyntaxError as exc:
        raise syntax_error(exc, shown) from None
    xslt = _stylesheet(name)
    allowed = allowed if allowed is not None else _Checked()
    token = _ALLOWED.set(allowed)
    try:
        result = xslt(root.getroottree(), **{k: _quote(v) for k, v in (params or {}).items()})
    except etree.XMLSyntaxError as exc:  # a file document() opened
        raise syntax_error(exc, _named_file(exc, allowed) or shown) from None
    except etree.XSLTApplyError as exc:
        messages = [entry.message for entry in xslt.error_log]
        stop = next((m for m in reversed(messages) if m.startswith("error:")), str(exc))
        raise CorefioError(f"stylesheet {name} stopped: {stop}", file=shown) from None
    except UnsafeInputError as exc:  # from the resolver: a file nobody checked
        if shown:
            exc.located(shown)
        raise
    finally:
        _ALLOWED.reset(token)
    return result, [entry.message for entry in xslt.error_log]


def _named_file(exc: etree.XMLSyntaxError, allowed: _Checked) -> str | None:
    """The project file a parse error of a run concerns (lxml names the URI it parsed)."""
    name = getattr(exc, "filename", None)
    path = _path_of(name) if name else None
    if path is None:
        return None
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):
        return None
    uri = allowed.uris.get(resolved)
    return str(allowed.origin.get(uri, path)) if uri else str(path)


def transform(name: str, data: bytes, *, base_url: str | None = None,
              params: dict[str, str] | None = None) -> tuple[bytes, list[str]]:
    """Run ``xslt/<name>`` on ``data`` with lxml: (result bytes, the stylesheet's messages).

    ``base_url`` is the input's location; ``document()`` may not read any file (the
    engine's own runs pass the files they checked)."""
    result, messages = _apply(name, data, base_url, params)
    return bytes(result), messages  # type: ignore[call-overload]


def xsltproc_available() -> bool:
    return shutil.which("xsltproc") is not None


def run_xsltproc(name: str, path: str | Path, *, params: dict[str, str] | None = None,
                 timeout: float | None = None) -> tuple[bytes, list[str]]:
    """Run ``xslt/<name>`` on the file ``path`` with the ``xsltproc`` program: no network,
    no writing, no DTD loaded (``--novalid``, ``--nodtdattr``); ``path`` (a regular file)
    is checked with :func:`check_xml` first, because xsltproc substitutes every entity it
    knows, and xsltproc reads a private copy of the bytes checked. Its ``document()``
    may open no file (the engine's own runs pass copies of the files they checked).
    (result bytes, messages)."""
    path = Path(path)
    data = read_regular(path)
    check_xml(data, path)
    with tempfile.TemporaryDirectory(prefix="corefio-xslt-") as folder:
        copy = Path(folder, "input.xml")
        copy.write_bytes(data)
        return _xsltproc(name, copy.as_uri(), params, file=path, timeout=timeout)


def _xsltproc(name: str, uri: str, params: dict[str, str] | None, *, file: str | Path,
              timeout: float | None = None) -> tuple[bytes, list[str]]:
    """One xsltproc run on the input at ``uri``: stopped after ``timeout`` seconds
    (default :data:`XSLTPROC_TIMEOUT`), and killed when corefio ends, even by SIGKILL
    (the kernel's parent-death signal, set by ``setpriv`` where the system has it)."""
    exe = shutil.which("xsltproc")
    if exe is None:
        raise UsageError("xsltproc is not installed")
    args = [exe, "--nonet", "--nowrite", "--nomkdir", "--novalid", "--nodtdattr"]
    for key, value in (params or {}).items():
        args += ["--stringparam", key, value]
    args += [str(stylesheet_path(name)), uri]
    limit = XSLTPROC_TIMEOUT if timeout is None else timeout
    out, err, code = run_child(args, timeout=limit, what=f"xsltproc {name}", file=file)
    messages = [line for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
    if code != 0:
        stop = next((m for m in reversed(messages) if m.startswith("error:")), "; ".join(messages[-3:]))
        raise CorefioError(f"xsltproc {name} failed: {stop}", file=str(file))
    return out, messages


def run_child(args: list[str], *, timeout: float, what: str, file: str | Path | None) -> tuple[bytes, bytes, int]:
    """Run a program corefio depends on: (stdout, stderr, exit code). It gets no input,
    is stopped (killed) after ``timeout`` seconds, which is an input error naming
    ``file``, is killed when the calling thread is interrupted, and dies with corefio:
    ``setpriv --pdeathsig KILL`` asks the kernel to kill it when corefio's process ends,
    however it ends."""
    wrapper = shutil.which("setpriv")
    command = [wrapper, "--pdeathsig", "KILL", "--", *args] if wrapper else args
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise CorefioError(f"{what} did not finish within {timeout:g} s: stopped", file=file) from None
    except BaseException:
        process.kill()
        process.wait()
        raise
    return out, err, process.returncode


#: what a stylesheet's own messages start with (the rest is the XML parser's chatter)
_OWN = ("rule ", "dropped:", "error:", "duplicate-id:")


def _record(report: Report, name: str, messages: list[str], file: str | None,
            checked: _Checked | None = None) -> None:
    for message in messages:
        if not message.startswith(_OWN):
            continue
        if message.startswith("duplicate-id:"):
            # mmax2-to-raf.xsl: "duplicate-id:<TAB>level file URI<TAB>level<TAB>id<TAB>new id"
            fields = message.split("\t")
            if len(fields) == 5:
                _, uri, level, old, new = fields
                where = checked.origin.get(uri) if checked is not None else None
                where = where if where is not None else _path_of(uri)
                report.add("mmax2.duplicate-id", "warning",
                           f"markable id {old!r} repeated on level {level!r}; the later one is renamed {new!r} "
                           "(pointers naming the id point to the first)",
                           file=str(where) if where is not None else uri)
                continue
        if message.startswith("error:"):
            report.add("xslt.error", "error", f"{name}: {message}", file=file)
        elif message.startswith("dropped:"):
            report.add("xslt.warning", "warning", f"{name}: {message}", file=file)
        else:
            report.add("xslt.rule", "info", f"{name}: {message}", file=file)


def _mmax2_params(doc: "P.DocumentFiles", checked: _Checked) -> dict[str, str]:
    """The parameters that give mmax2-to-raf.xsl the files of one document, found,
    confined and looked up by :class:`corefio.formats.mmax2.project.Project` as for the
    Python reader, each read and checked here: URI lists in the order of the levels
    (``-``: no such file), the number of levels, and the document's name. The
    stylesheet opens these URIs and makes no path of its own."""
    from ..formats.mmax2 import project as P

    params = {"stem": doc.stem, "doc-name": doc.name, "level-count": str(len(doc.levels))}
    params["common-uri"] = checked.add(doc.common.file, what="common paths file", name="common.xml") \
        if doc.common.file is not None else ""
    if not doc.words.present:
        raise CorefioError(f"base data file {P.shorten(doc.words_name)!r} named by {doc.mmax.name} is missing",
                           file=str(doc.words.path))
    params["words-uri"] = checked.add(doc.words.path, name="words.xml", **doc.words.where)
    level_uris = [checked.add(f.path, **f.where) if f.present else "-" for f in doc.level_files]
    scheme_uris = [checked.add(s.path, **s.where) if s is not None and s.present else "-" for s in doc.schemes]
    params["level-uris"] = " ".join(level_uris)
    params["scheme-uris"] = " ".join(scheme_uris)
    params["repeated-ids"] = "yes" if any(_may_repeat_ids(checked.files.get(f.path.resolve()))
                                          for f in doc.level_files if f.present) else "no"
    return params


#: an id attribute as written (the value between its quotes)
_ID_ATTRIBUTE = re.compile(rb"""\sid\s*=\s*(["'])(.*?)\1""", re.DOTALL)


def _may_repeat_ids(data: bytes | None) -> bool:
    """Whether two elements of a level file may carry one id: a look at the bytes, which
    says "yes" wherever it cannot tell (character references, not ASCII-based)."""
    if data is None:
        return False
    if b"&#" in data or b"\x00" in data[:4]:
        return True
    values = [m.group(2) for m in _ID_ATTRIBUTE.finditer(data)]
    return len(values) != len(set(values))


def _mate_files(file: Path, data: bytes, checked: _Checked) -> None:
    """The standoff base files a MATE file names (``<doc words="…">``), confined to the
    file's directory and checked. mate-to-raf.xsl opens them as URI references relative
    to the MATE file, so a name must be a plain relative file name (no ``:``, ``%``,
    ``#``, ``?``, ``\\``); under xsltproc the copies keep those names beside the copy of
    the MATE file."""
    if b"words" not in data:
        return
    root = parse_xml(data, file=file).getroot()
    for el in root.iter():
        name = el.get("words") if isinstance(el.tag, str) else None
        if name is None:
            continue
        if any(c in name for c in ":%#?\\") or _absolute_name(name):
            raise UnsafeInputError(f"standoff base file name {name!r} is not a plain relative file name",
                                   file=file, line=el.sourceline)
        path = confined_path(file.parent, name, file=file, line=el.sourceline, what="standoff base file")
        checked.add(path, name="input/" + posixpath.normpath(name), what="standoff base file", file=file,
                    line=el.sourceline)


def _absolute_name(name: str) -> bool:
    return name.startswith(("/", "\\", "~")) or (len(name) > 1 and name[1] == ":")


@dataclass
class _Run:
    """One stylesheet run to RAF: the input (its file and the bytes the stylesheet
    reads), its parameters and the files it may open."""

    file: Path
    data: bytes
    params: dict[str, str]
    checked: _Checked
    #: the input's URI for the processor
    uri: str


@contextmanager
def _runs(path: Path, format: str, processor: str, report: Report | None) -> Iterator[Iterator[_Run]]:
    """The runs ``path`` needs (an MMAX2 project or collection: one per ``.mmax`` file,
    in the Python reader's order), each with the files it may open checked (under
    xsltproc: copied into a private folder, removed once the run is over)."""

    def folder() -> contextlib.AbstractContextManager[str | None]:
        if processor != "xsltproc":
            return contextlib.nullcontext(None)
        return tempfile.TemporaryDirectory(prefix="corefio-xslt-")

    def generate() -> Generator[_Run, None, None]:
        if format == "mmax2":
            from ..formats.mmax2 import project as P

            project = P.Project(path)
            for i in range(len(project.mmax_files)):
                doc = project.document(i)
                with folder() as copies:
                    checked = _Checked(parse=processor == "xsltproc", folder=Path(copies) if copies else None)
                    params = _mmax2_params(doc, checked)
                    check_xml(doc.mmax_data, doc.mmax)  # (small: it was parsed already)
                    yield _Run(doc.mmax, doc.mmax_data, params, checked,
                               _input_uri(doc.mmax, doc.mmax_data, checked))
            return
        data = _prepare(path, format, report)
        with folder() as copies:
            checked = _Checked(parse=processor == "xsltproc", folder=Path(copies) if copies else None)
            if format == "mate":
                check_xml(data, path)  # (before its names are read)
                _mate_files(path, data, checked)
            yield _Run(path, data, {"stem": Source.of(path).stem}, checked, _input_uri(path, data, checked))

    with contextlib.closing(generate()) as runs:
        yield runs


def _input_uri(file: Path, data: bytes, checked: _Checked) -> str:
    """The input's URI for the processor: the file itself under lxml (the engine hands
    lxml the bytes, and the URI only places relative names), a checked copy under
    xsltproc."""
    if checked.folder is None:
        return file.resolve().as_uri()
    check_xml(data, file)
    copy = checked.folder / "input" / "input.xml"
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_bytes(data)
    return copy.as_uri()


def _level_markables(checked: _Checked) -> int:
    """How many markable elements the level files of an MMAX2 document hold (read from
    the checked bytes of the files whose root is ``markables``)."""
    count = 0
    for data in checked.files.values():
        if b"markable" not in data:
            continue
        root = etree.fromstring(data, _parser())
        if etree.QName(root).localname == "markables":
            count += sum(1 for el in root if isinstance(el.tag, str) and el.tag.endswith("markable")
                         and el.get("id") is not None and el.get("span") is not None)
    return count


def _refuse_empty(result: object, checked: _Checked, file: Path) -> None:
    """An MMAX2 document whose level files hold markables must give some (markables or
    sentences): none means the stylesheet read nothing, which is an error, not a result."""
    found = result.xpath("count(//struct[@type='markable' or @type='sentence'])")  # type: ignore[attr-defined]
    if found:
        return
    held = _level_markables(checked)
    if held:
        raise CorefioError(f"MMAX2 project {file.parent}: the level files of {file.name} hold {held} "
                           "markables but the stylesheet gave none", file=str(file))


def _prepare(file: Path, format: str, report: Report | None) -> bytes:
    """The bytes the stylesheet reads (a regular file only): MUC SGML is repaired into
    XML first."""
    data = read_regular(file)
    if format != "muc":
        return data
    from ..io.repair import repair_bytes

    fixed, changes = repair_bytes(data, kind="muc")
    if report is not None:
        for change in changes:
            report.add("xslt.repaired", "info", f"repaired before the stylesheet: {change.message}",
                       file=str(file), line=change.line, column=change.column)
    return fixed


def _stylesheet_for(format: str) -> str:
    name = TO_RAF.get(format)
    if name is None:
        raise UsageError(f"no stylesheet converts {format} to RAF (there are: {', '.join(sorted(TO_RAF))})")
    return name


def to_raf_files(path: str | Path, format: str, *, report: Report | None = None,
                 processor: str = "lxml", params: dict[str, str] | None = None) -> list[bytes]:
    """The RAF 2.0 documents ``xslt/<format>-to-raf.xsl`` makes of ``path`` (one result
    per input file: an MMAX2 directory has one per ``.mmax``); the stylesheet's messages
    go to ``report``; ``params``: more stylesheet parameters (``compact``)."""
    name = _stylesheet_for(format)
    if processor not in ("lxml", "xsltproc"):
        raise UsageError(f"XSLT processor is lxml or xsltproc, not {processor!r}")
    out = []
    with _runs(Path(path), format, processor, report) as runs:
        for run in runs:
            given = {**(params or {}), **run.params}
            if processor == "xsltproc":
                result, messages = _xsltproc(name, run.uri, given, file=run.file)
                if format == "mmax2":
                    _refuse_empty(etree.fromstring(result, _parser()), run.checked, run.file)
            else:
                tree, messages = _apply(name, run.data, run.uri, given, run.checked, str(run.file))
                if format == "mmax2":
                    _refuse_empty(tree, run.checked, run.file)
                result = bytes(tree)  # type: ignore[call-overload]
            if report is not None:
                _record(report, name, messages, str(run.file), run.checked)
            out.append(result)
    return out


def to_raf(path: str | Path, format: str, *, report: Report | None = None, processor: str = "lxml",
           params: dict[str, str] | None = None) -> bytes:
    """:func:`to_raf_files` for an input that is one file (one RAF result)."""
    results = to_raf_files(path, format, report=report, processor=processor, params=params)
    if len(results) != 1:
        raise UsageError(f"{path} gives {len(results)} RAF files: use to_raf_files or read")
    return results[0]


def read(path: str | Path, format: str, *, report: Report | None = None, processor: str = "lxml"):
    """Read ``path`` through its stylesheet to RAF and the Python RAF reader. Under lxml
    the reader walks the stylesheet's result tree (no serialising and parsing again)."""
    from ..formats import readwrite as api
    from ..formats.raf import RafStream
    from ..model import Corpus

    report = report if report is not None else Report(str(path))
    if processor != "lxml":
        documents = []
        for raf in to_raf_files(path, format, report=report, processor=processor):
            documents.extend(api.loads(raf, "raf", report=report).documents)
        return Corpus(documents=documents)
    name = _stylesheet_for(format)
    documents = []
    with _runs(Path(path), format, "lxml", report) as runs:
        for run in runs:
            # compact: the stylesheet may leave out what only people read (word numbers,
            # line breaks), which the reader would skip anyway (about a tenth of
            # mmax2-to-raf's work)
            tree, messages = _apply(name, run.data, run.uri, {"compact": "yes", **run.params}, run.checked,
                                    str(run.file))
            if format == "mmax2":
                _refuse_empty(tree, run.checked, run.file)
            _record(report, name, messages, str(run.file), run.checked)
            documents.extend(RafStream(Source(f"{run.file} ({name})"), report, False, tree=tree))
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


def _file_stem(name: str, taken: set[str], report: Report | None = None) -> str:
    """A file stem for a document name, made as the Python writer makes it
    (:func:`corefio.formats.mmax2.writer.clean_stem`: ``/``, ``%``… become ``_``),
    repeats numbered; a changed name is reported (the ``.mmax`` file keeps the name)."""
    from ..formats.mmax2.writer import clean_stem

    stem = clean_stem(name)
    base, k = stem, 1
    while stem.lower() in taken:
        k += 1
        stem = f"{base}_{k}"
    taken.add(stem.lower())
    if stem != name and report is not None:
        report.add("mmax2.file-name", "info", f"document {name[:80]!r} is written as {stem}.mmax (a file name "
                   "cannot hold it as it is); the .mmax file keeps its name")
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
        stem = _file_stem(document.get("name", ""), taken, report)
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
    from ..formats import readwrite as api
    from ..io import files
    from ..formats import raf as raf_format

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
        if to_format == "mate":
            # raf-to-mate.xsl writes what MATE holds: the documents are restricted to it
            # first (markables of other layers as the Python writer keeps them, see
            # mate.one_layer), their losses reported as the Python writer's are
            from ..formats import mate
            from ..formats.losses import project, report_losses

            for doc in corpus.documents:
                report_losses(doc, mate.CAPABILITIES, report, "mate")
            corpus = corpus.copy(documents=[project(mate.one_layer(d), mate.CAPABILITIES)
                                                             for d in corpus.documents])
        data = from_raf(raf_format.dumps(corpus, report=report), to_format, report=report)
        files.atomic_write(target, [data], inputs=[source])
        return report
    return api.write(corpus, target, to_format, report=report, inputs=[source], force=force)
