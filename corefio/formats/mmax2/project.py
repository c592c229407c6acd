"""Project files: ``common_paths.xml``, the ``.mmax`` files, and the layouts that keep them.

``common_paths.xml`` names the directories (``basedata_path``, ``scheme_path``,
``style_path``, ``customization_path``, ``markable_path``; relative to the project
directory, ``\\`` accepted as separator) and, under ``<annotations>``, one ``<level>`` per
markable level: ``name``, ``schemefile``, ``customization_file`` and the file name pattern
(``$_coref_level.xml``, ``$`` standing for the base name of the ``.mmax`` file, which may
contain spaces). A ``.mmax`` file names its base data file (``<words>``); levels it lists
itself count only when ``common_paths.xml`` has none.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ...errors import FormatError
from ...model.layout import FormatLayout
from ...model.scheme import Scheme
from ...io.source import confined_path
from ...io.xmlsafe import parse_xml

FORMAT = "mmax2"
PATH_KEYS = ("basedata_path", "scheme_path", "style_path", "customization_path", "markable_path")
#: what the writer uses when nothing says otherwise (MMAX2's sample projects' names)
DEFAULT_PATHS = {"basedata_path": "Basedata/", "scheme_path": "Schemes/", "style_path": "Styles/",
                 "customization_path": "Customizations/", "markable_path": "Markables/"}


@dataclass
class Level:
    """One ``<level>`` entry of ``common_paths.xml``."""

    name: str
    schemefile: str | None
    customization_file: str | None
    pattern: str
    #: other attributes of the element (``at_startup``...), as written
    other: dict[str, str] = field(default_factory=dict)
    #: where the entry was written (for errors about the files it names)
    source: str | None = field(default=None, compare=False, repr=False)
    line: int | None = field(default=None, compare=False, repr=False)

    def file_for(self, stem: str) -> str:
        return self.pattern.replace("$", stem)


@dataclass
class CommonPaths:
    paths: dict[str, str]
    levels: list[Level]
    #: style sheet names with the line that names each
    stylesheets: list[tuple[str, int | None]]
    #: the file itself (``None`` when the project has none) and the line of each path
    file: Path | None = None
    lines: dict[str, int | None] = field(default_factory=dict)


@dataclass
class MMAX2ProjectLayout(FormatLayout):
    """What an MMAX2 project holds besides its documents (``Corpus.layout["mmax2"]``).

    ``files`` keeps the project files corefio does not interpret (schemes,
    customizations, styles, DTDs, ``common_paths.xml``) byte for byte, by their path
    relative to the project directory; ``schemes`` the schemes as read, so that the
    writer knows whether ``Corpus.schemes`` still matches a scheme file it can copy.
    """

    format: ClassVar[str] = FORMAT
    depends_on: ClassVar[frozenset[str]] = frozenset()

    paths: dict[str, str] = field(default_factory=dict)
    levels: list[Level] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    schemes: dict[str, Scheme] = field(default_factory=dict)
    #: level name → the scheme file's path relative to the project
    scheme_files: dict[str, str] = field(default_factory=dict)
    #: the level read as the default coreference layer (``Markable.layer is None``)
    identity_level: str | None = None


@dataclass
class LevelLayout:
    """How one level file of one document was written."""

    namespace: str | None = None
    #: the DOCTYPE's root name and system id (``markables``, ``markables.dtd``)
    doctype: tuple[str, str | None] | None = None
    #: attribute names in order of first appearance (the writer follows it)
    order: list[str] = field(default_factory=list)
    #: markable ids whose ``mmax_level`` attribute was absent (``None``: all had one)
    no_level_attribute: set[str] | None = None
    #: markable id → {attribute: raw value} where the raw text differs from what the
    #: writer would produce (``word_3,word_4`` for ``word_3..word_4``, a pointer
    #: naming its own level)
    raw: dict[str, dict[str, str]] = field(default_factory=dict)
    #: set/pointer attribute → ids of markables that did not write it at all (the
    #: writer writes ``empty`` for unset set and pointer attributes)
    absent: dict[str, set[str]] = field(default_factory=dict)


@dataclass
class MMAX2Layout(FormatLayout):
    """What only an MMAX2 writer can use about one document (``Document.layout["mmax2"]``)."""

    format: ClassVar[str] = FORMAT

    stem: str = ""
    #: the ``.mmax`` file as read (written back when its words file name still fits)
    mmax: bytes | None = None
    words_file: str = ""
    words_doctype: tuple[str, str | None] | None = None
    levels: dict[str, LevelLayout] = field(default_factory=dict)
    #: the level whose markables became ``Document.sentences`` and the file order of
    #: those sentences
    sentence_level: str | None = None
    sentence_order: list[int] = field(default_factory=list)
    #: identity link id → the pointer attribute it came from
    link_attribute: dict[str, str] = field(default_factory=dict)


def norm_path(value: str | None) -> str:
    """A path as written in a project file, with ``/`` separators."""
    return (value or "").strip().replace("\\", "/")


def join(directory: str, name: str) -> str:
    """``directory/name`` as a path relative to the project; a ``..`` is resolved by
    name (whether the result stays in the project is checked where it is used)."""
    directory = norm_path(directory)
    if directory and not directory.endswith("/"):
        directory += "/"
    path = directory + norm_path(name)
    return posixpath.normpath(path) if ".." in path.split("/") else path


def is_file(path: Path, *, what: str, file: str | Path | None, line: int | None) -> bool:
    """Whether ``path`` is a file; a name the system cannot look up (too long, not
    permitted) is an input error located where the name was written."""
    try:
        return path.is_file()
    except OSError as exc:
        raise FormatError(f"{what} {shorten(path.name)!r} cannot be looked up: {exc.strerror}",
                          file=file, line=line) from None


def read_file(path: Path, *, what: str, file: str | Path | None, line: int | None) -> bytes:
    """The bytes of a project file; any system error is an input error (located where
    the file was named), never an internal one."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise FormatError(f"{what} {shorten(path.name)!r} cannot be read: {exc.strerror}",
                          file=file, line=line) from None


def shorten(name: str) -> str:
    return name if len(name) <= 80 else name[:77] + "..."


def read_common_paths(directory: Path, report: Any) -> tuple[CommonPaths, bytes | None]:
    """The project's ``common_paths.xml`` (absent: every path is the project directory).

    The directories it names must lie inside the project (:func:`confined_path`)."""
    path = confined_path(directory, "common_paths.xml", file=directory, what="common_paths.xml")
    if not is_file(path, what="file", file=directory, line=None):
        report.warning("mmax2.no-common-paths", "no common_paths.xml: paths are taken relative to the "
                       "project directory and levels from the .mmax files", file=str(directory))
        return CommonPaths({}, [], []), None
    data = read_file(path, what="file", file=path, line=None)
    root = parse_xml(data, file=path).getroot()
    paths = {}
    lines: dict[str, int | None] = {}
    for key in PATH_KEYS:
        el = root.find(key)
        if el is not None and el.text is not None:
            paths[key] = norm_path(el.text)
            lines[key] = el.sourceline
            confined_path(directory, paths[key], file=path, line=el.sourceline, what=key)
    levels = levels_of(root.find("annotations"), path)
    sheets = [(norm_path(el.text), el.sourceline) for el in root.iter("stylesheet") if el.text]
    return CommonPaths(paths, levels, sheets, path, lines), data


def levels_of(annotations: Any, file: Path) -> list[Level]:
    out: list[Level] = []
    if annotations is None:
        return out
    for el in annotations:
        if not isinstance(el.tag, str) or el.tag != "level":
            continue
        name = el.get("name")
        if not name or not (el.text or "").strip():
            raise FormatError("a <level> needs a name and a file name pattern", file=file, line=el.sourceline)
        other = {k: v for k, v in el.attrib.items() if k not in ("name", "schemefile", "customization_file")}
        out.append(Level(name, el.get("schemefile"), el.get("customization_file"), norm_path(el.text), other,
                         str(file), el.sourceline))
    return out


def read_mmax(path: Path) -> tuple[str, int | None, list[Level], dict[str, str], bytes]:
    """A ``.mmax`` file: its words file (and the line naming it), its own levels, what
    corefio wrote about the document (name and part), and the raw bytes."""
    data = read_file(path, what="file", file=path, line=None)
    root = parse_xml(data, file=path).getroot()
    words = root.find("words")
    if words is None or not (words.text or "").strip():
        raise FormatError("the .mmax file names no <words> file", file=path, line=root.sourceline)
    info = {}
    doc = root.find("corefio_document")
    if doc is not None:
        info = dict(doc.attrib)
    return norm_path(words.text), words.sourceline, levels_of(root.find("annotations"), path), info, data
