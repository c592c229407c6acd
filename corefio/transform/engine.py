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
with :class:`~corefio.errors.UnsafeInputError` as the Python readers refuse it. The
files a stylesheet opens with ``document()`` are the ones the engine found and checked:
for an MMAX2 document the engine reads ``common_paths.xml`` and the ``.mmax`` file,
confines every file name they give to the project directory
(:func:`corefio.io.source.confined_path`) and passes the files to the stylesheet as
escaped ``file:`` URIs (parameters ``common-uri``, ``words-uri``, ``level-uris``,
``scheme-uris``); a MATE file's standoff base files are checked the same way. Under
lxml a resolver serves exactly the checked bytes and refuses any other file; a checked
name whose file does not exist gives an empty ``corefio-missing-file`` document, as
xsltproc gives an empty node-set.
"""

from __future__ import annotations

import contextvars
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

from lxml import etree

from ..diagnostics import Report
from ..errors import CorefioError, UnsafeInputError, UsageError
from ..io.resources import stylesheet_path
from ..io.source import Source, confined_path
from ..io.xmlsafe import _parser, parse_xml

#: format → stylesheet to RAF; format → stylesheet from RAF (only those that exist)
TO_RAF = {"mate": "mate-to-raf.xsl", "mmax2": "mmax2-to-raf.xsl", "muc": "muc-to-raf.xsl"}
FROM_RAF = {"mate": "raf-to-mate.xsl", "muc": "raf-to-muc.xsl", "mmax2": "raf-to-mmax2.xsl"}


#: what document() gives for a file that does not exist, under lxml (xsltproc gives an
#: empty node-set); the stylesheets ignore a root element of this name
MISSING = "corefio-missing-file"


#: an entity reference other than the five XML predefines (character references start "&#")
_ENTITY_REFERENCE = re.compile(r"&(?!(?:amp|lt|gt|quot|apos);)[^\s&;#<>\"']+;")


def check_xml(data: bytes, file: str | Path, *, parse: bool = True) -> None:
    """Refuse XML that the stylesheets must not see: entity declarations (as every corefio
    reader does) and references to entities nobody declared. xsltproc would fill in the
    entities of an external DTD, and lxml, which does not, would leave the text (or the
    attribute value) empty.

    ``parse=False`` (for lxml, which never loads an entity, a DTD or a file by itself):
    the same answer from the bytes where they show no ``<!ENTITY`` at all, saving a parse;
    the file is parsed when they do, or when they are not in an ASCII-based encoding."""
    # UTF-8 (with or without its byte order mark) or another encoding that writes "<"
    # and white space as ASCII does: the bytes can be searched
    ascii_based = data[:1] in (b"<", b"\xef", b" ", b"\t", b"\r", b"\n") and b"\x00" not in data[:4]
    if not parse and ascii_based and b"<!ENTITY" not in data:
        if b"<!DOCTYPE" in data:
            _refuse_entity_references(data.decode("latin-1"), file)
        return
    tree = parse_xml(data, file=file)
    for node in tree.iter(etree.Entity):
        raise UnsafeInputError(f"entity reference {node.text} refused: corefio expands no entities "
                               "(its value would come from a DTD corefio does not load)",
                               file=file, line=node.sourceline)
    if tree.docinfo.doctype:
        # with a DTD that is not loaded, a reference in an attribute value vanishes from
        # the tree: look for one in the text itself
        _refuse_entity_references(data.decode(tree.docinfo.encoding or "utf-8", "replace"), file)


def _refuse_entity_references(text: str, file: str | Path) -> None:
    found = _ENTITY_REFERENCE.search(text)
    if found:
        raise UnsafeInputError(f"entity reference {found.group()} refused: corefio expands no entities "
                               "(its value would come from a DTD corefio does not load)",
                               file=file, line=text.count("\n", 0, found.start()) + 1)


@dataclass
class _Checked:
    """The files one stylesheet run may open with ``document()``: resolved path → the
    bytes checked (``None``: named by the project but absent)."""

    files: dict[Path, bytes | None] = field(default_factory=dict)
    #: check by parsing (xsltproc) or from the bytes where they allow it (lxml)
    parse: bool = True

    def add(self, path: Path) -> str:
        """Check ``path`` (when it exists) and allow it; its ``file:`` URI."""
        resolved = path.resolve()
        if resolved not in self.files:
            data = None
            if resolved.is_file():
                data = resolved.read_bytes()
                check_xml(data, path, parse=self.parse)
            self.files[resolved] = data
        return resolved.as_uri()


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
    """document() under lxml: the bytes the engine checked for this run; a checked name
    whose file is absent gives an empty ``corefio-missing-file`` document (an absent
    level file means no markables, as for the Python reader); anything else is refused."""

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
                data = allowed.files[resolved]
                if data is None:
                    return self.resolve_string(f"<{MISSING}/>", context)
                return self.resolve_string(data, context, base_url=resolved.as_uri())
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
    ``allowed``: the files ``document()`` may read (none when not given)."""
    shown = file if file is not None else base_url
    check_xml(data, shown or "<input>", parse=False)
    try:
        root = etree.fromstring(data, _input_parser(), base_url=base_url)
    except etree.XMLSyntaxError as exc:
        raise CorefioError(f"not well-formed XML: {exc.msg}", file=shown) from None
    xslt = _stylesheet(name)
    token = _ALLOWED.set(allowed if allowed is not None else _Checked())
    try:
        result = xslt(root.getroottree(), **{k: _quote(v) for k, v in (params or {}).items()})
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


def transform(name: str, data: bytes, *, base_url: str | None = None,
              params: dict[str, str] | None = None) -> tuple[bytes, list[str]]:
    """Run ``xslt/<name>`` on ``data`` with lxml: (result bytes, the stylesheet's messages).

    ``base_url`` is the input's location; ``document()`` may not read any file (the
    engine's own runs pass the files they checked)."""
    result, messages = _apply(name, data, base_url, params)
    return bytes(result), messages  # type: ignore[call-overload]


def xsltproc_available() -> bool:
    return shutil.which("xsltproc") is not None


def run_xsltproc(name: str, path: str | Path, *, params: dict[str, str] | None = None) -> tuple[bytes, list[str]]:
    """Run ``xslt/<name>`` on the file ``path`` with the ``xsltproc`` program: no network,
    no writing, no DTD loaded (``--novalid``, ``--nodtdattr``); ``path`` is checked with
    :func:`check_xml` first, because xsltproc substitutes every entity it knows. Files
    the stylesheet opens with ``document()`` must have been checked by the caller.
    (result bytes, messages)."""
    exe = shutil.which("xsltproc")
    if exe is None:
        raise UsageError("xsltproc is not installed")
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CorefioError(f"cannot read file: {exc.strerror}", file=str(path)) from None
    check_xml(data, path)
    args = [exe, "--nonet", "--nowrite", "--nomkdir", "--novalid", "--nodtdattr"]
    for key, value in (params or {}).items():
        args += ["--stringparam", key, value]
    # the input as a file: URI, every character that is not plain ASCII escaped (a
    # space, "%", "#" in a name)
    args += [str(stylesheet_path(name)), path.resolve().as_uri()]
    done = subprocess.run(args, capture_output=True, check=False)
    messages = [line for line in done.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    if done.returncode != 0:
        stop = next((m for m in reversed(messages) if m.startswith("error:")), "; ".join(messages[-3:]))
        raise CorefioError(f"xsltproc {name} failed: {stop}", file=str(path))
    return done.stdout, messages


#: what a stylesheet's own messages start with (the rest is the XML parser's chatter)
_OWN = ("rule ", "dropped:", "error:", "duplicate-id:")


def _record(report: Report, name: str, messages: list[str], file: str | None) -> None:
    for message in messages:
        if not message.startswith(_OWN):
            continue
        if message.startswith("duplicate-id:"):
            # mmax2-to-raf.xsl: "duplicate-id:<TAB>level file URI<TAB>level<TAB>id<TAB>new id"
            fields = message.split("\t")
            if len(fields) == 5:
                _, uri, level, old, new = fields
                where = _path_of(uri)
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


def _absolute_name(name: str) -> bool:
    return name.startswith(("/", "\\", "~")) or (len(name) > 1 and name[1] == ":")


def _project_file(directory: Path, dir_name: str, name: str, *, file: Path, what: str) -> Path:
    """The project file ``name`` under the project directory ``dir_name`` (MMAX2's
    ``basedata_path``…), refused unless it stays inside the project."""
    from ..formats.mmax2 import project as P

    if _absolute_name(P.norm_path(name)):
        confined_path(directory, P.norm_path(name), file=file, what=what)  # raises
    return confined_path(directory, P.join(dir_name, name), file=file, what=what)


def _mmax2_files(mmax: Path, stem: str, checked: _Checked) -> dict[str, str]:
    """What mmax2-to-raf.xsl reads besides the ``.mmax`` file, found as the Python reader
    finds it: every file name ``common_paths.xml`` and the ``.mmax`` file give is confined
    to the project and every file the stylesheet opens is checked; the parameters that
    pass those files to the stylesheet as URIs (lists in the order of the levels, ``-``
    for a level without scheme file)."""
    from ..formats.mmax2 import project as P

    directory = mmax.parent
    common_file = directory / "common_paths.xml"
    params = {"common-uri": checked.add(common_file)}
    common, _ = P.read_common_paths(directory, Report(str(directory)))
    words, _, own_levels, _, _ = P.read_mmax(mmax)
    levels = common.levels or own_levels
    paths = common.paths

    def named(key: str, name: str, what: str, by: Path) -> Path:
        return _project_file(directory, paths.get(key, ""), name, file=by, what=what)

    in_basedata = named("basedata_path", words, "base data file", mmax)
    plain = _project_file(directory, "", words, file=mmax, what="base data file")
    params["words-uri"] = checked.add(plain if not in_basedata.is_file() and plain.is_file() else in_basedata)
    level_uris, scheme_uris = [], []
    by = common_file if common.levels else mmax
    for level in levels:
        level_uris.append(checked.add(named("markable_path", level.file_for(stem), f"level file of {level.name!r}", by)))
        if level.schemefile:
            scheme_uris.append(checked.add(named("scheme_path", level.schemefile,
                                                 f"scheme file of {level.name!r}", by)))
        else:
            scheme_uris.append("-")
        if level.customization_file:
            named("customization_path", level.customization_file, f"customization file of {level.name!r}", by)
    for sheet, _line in common.stylesheets:
        named("style_path", sheet, "stylesheet", common_file)
    params["level-uris"] = " ".join(level_uris)
    params["scheme-uris"] = " ".join(scheme_uris)
    params["repeated-ids"] = "yes" if any(_may_repeat_ids(checked.files.get(Path(unquote(urlsplit(uri).path))))
                                          for uri in level_uris) else "no"
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
    file's directory and checked. mate-to-raf.xsl opens them as URI references, so a name
    must be a plain relative file name (no ``:``, ``%``, ``#``, ``?``, ``\\``)."""
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
        checked.add(confined_path(file.parent, name, file=file, line=el.sourceline, what="standoff base file"))


def _files_for(file: Path, stem: str, format: str, data: bytes, processor: str) -> tuple[dict[str, str], _Checked]:
    """The stylesheet parameters and the checked files of one input file."""
    checked = _Checked(parse=processor == "xsltproc")
    params: dict[str, str] = {}
    if format == "mmax2":
        check_xml(data, file)  # (small: before its names are read)
        params = _mmax2_files(file, stem, checked)
    elif format == "mate":
        _mate_files(file, data, checked)
    return params, checked


def _level_markables(checked: _Checked) -> int:
    """How many markable elements the level files of an MMAX2 document hold (read from
    the checked bytes of the files whose root is ``markables``)."""
    count = 0
    for data in checked.files.values():
        if data is None or b"markable" not in data:
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
    """The bytes the stylesheet reads: MUC SGML is repaired into XML first."""
    data = file.read_bytes()
    if format != "muc":
        return data
    from ..io.repair import repair_bytes

    fixed, changes = repair_bytes(data, kind="muc")
    if report is not None:
        for change in changes:
            report.add("xslt.repaired", "info", f"repaired before the stylesheet: {change.message}",
                       file=str(file), line=change.line, column=change.column)
    return fixed


def to_raf_files(path: str | Path, format: str, *, report: Report | None = None,
                 processor: str = "lxml", params: dict[str, str] | None = None) -> list[bytes]:
    """The RAF 2.0 documents ``xslt/<format>-to-raf.xsl`` makes of ``path`` (one result
    per input file: an MMAX2 directory has one per ``.mmax``); the stylesheet's messages
    go to ``report``; ``params``: more stylesheet parameters (``compact``)."""
    name = TO_RAF.get(format)
    if name is None:
        raise UsageError(f"no stylesheet converts {format} to RAF (there are: {', '.join(sorted(TO_RAF))})")
    if processor not in ("lxml", "xsltproc"):
        raise UsageError(f"XSLT processor is lxml or xsltproc, not {processor!r}")
    out = []
    for file, stem in _inputs(Path(path), format):
        data = _prepare(file, format, report)
        found, checked = _files_for(file, stem, format, data, processor)
        given = {**(params or {}), "stem": stem, **found}
        if processor == "xsltproc":
            if format == "muc":
                import tempfile

                with tempfile.TemporaryDirectory() as tmp:
                    repaired = Path(tmp, file.name)
                    repaired.write_bytes(data)
                    result, messages = run_xsltproc(name, repaired, params=given)
            else:
                result, messages = run_xsltproc(name, file, params=given)
            if format == "mmax2":
                _refuse_empty(etree.fromstring(result, _parser()), checked, file)
        else:
            tree, messages = _apply(name, data, file.resolve().as_uri(), given, checked, str(file))
            if format == "mmax2":
                _refuse_empty(tree, checked, file)
            result = bytes(tree)  # type: ignore[call-overload]
        if report is not None:
            _record(report, name, messages, str(file))
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
    from .. import api
    from ..formats.raf import RafStream
    from ..model import Corpus

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
        data = _prepare(file, format, report)
        found, checked = _files_for(file, stem, format, data, "lxml")
        # compact: the stylesheet may leave out what only people read (word numbers, line
        # breaks), which the reader would skip anyway (about a tenth of mmax2-to-raf's work)
        tree, messages = _apply(name, data, file.resolve().as_uri(), {"stem": stem, "compact": "yes", **found},
                                checked, str(file))
        if format == "mmax2":
            _refuse_empty(tree, checked, file)
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
    from .. import api
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
            corpus = corpus.model_copy(update={"documents": [project(mate.one_layer(d), mate.CAPABILITIES)
                                                             for d in corpus.documents]})
        data = from_raf(raf_format.dumps(corpus, report=report), to_format, report=report)
        files.atomic_write(target, [data], inputs=[source])
        return report
    return api.write(corpus, target, to_format, report=report, inputs=[source], force=force)
