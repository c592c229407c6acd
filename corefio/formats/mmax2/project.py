"""Project files: ``common_paths.xml``, the ``.mmax`` files, where a project's or a
collection's documents are (:class:`Project`, the one confinement of every name a project
gives, for every engine), and the layouts that keep them.

``common_paths.xml`` names the directories (``basedata_path``, ``scheme_path``,
``style_path``, ``customization_path``, ``markable_path``; relative to the project
directory, ``\\`` accepted as separator) and, under ``<annotations>``, one ``<level>`` per
markable level: ``name``, ``schemefile``, ``customization_file`` and the file name pattern
(``$_coref_level.xml``, ``$`` standing for the base name of the ``.mmax`` file, which may
contain spaces). A ``.mmax`` file names its base data file (``<words>``); levels it lists
itself count only when ``common_paths.xml`` has none.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ...errors import FormatError
from ...model.layout import FormatLayout
from ...io.source import confined_path, file_kind, read_regular
from ...io.files import _sniff_wide_encoding
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
    #: other ``*_path`` elements (PotTS's ``source_path``): directories whose files are
    #: kept for the writer, as those of the five paths MMAX2 reads
    other_paths: dict[str, str] = field(default_factory=dict)


@dataclass
class MMAX2ProjectLayout(FormatLayout):
    """What an MMAX2 project holds besides its documents (``Corpus.layout["mmax2"]``).

    ``files`` keeps the project files corefio does not interpret (schemes,
    customizations, styles, DTDs, ``common_paths.xml``) byte for byte, by their path
    relative to the project directory; ``schemes`` the schemes as read (as JSON, as
    :meth:`Scheme.model_dump` gives them, so that the layout travels in a RAF file), so
    that the writer knows whether ``Corpus.schemes`` still matches a scheme file it can
    copy.
    """

    format: ClassVar[str] = FORMAT
    depends_on: ClassVar[frozenset[str]] = frozenset()

    paths: dict[str, str] = field(default_factory=dict)
    levels: list[Level] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    schemes: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: level name → the scheme file's path relative to the project
    scheme_files: dict[str, str] = field(default_factory=dict)
    #: the level read as the default coreference layer (``Markable.layer is None``)
    identity_level: str | None = None
    #: a collection (documents in subdirectories, see :class:`Project`): the one common
    #: paths file its documents share, relative to the root, and its paths are relative
    #: to each document's directory (``MMAX2Layout.home``)
    collection: bool = False
    common_file: str = "common_paths.xml"
    #: files of the project's directories that were not kept (the writer reports them
    #: lost): each a path relative to the project and why
    not_kept: list[str] = field(default_factory=list)


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
    #: the ``.mmax`` file's directory relative to the collection's root (``""``: the root)
    home: str = ""
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


def locate(home: str, directory: str, name: str) -> str:
    """The file ``name`` of the project directory ``directory`` (``basedata_path``…) as
    seen from a ``.mmax`` file in ``home`` (a directory relative to the root, ``""``
    for a project directory): a path relative to the root, ``.`` and ``..`` resolved
    by name. In a plain project this is :func:`join`."""
    path = join(directory, name)
    if home:
        path = home.rstrip("/") + "/" + path
    parts = path.split("/")
    if ".." in parts or "." in parts:
        path = posixpath.normpath(path)
    return path


def is_absolute_name(name: str) -> bool:
    return name.startswith(("/", "\\", "~")) or (len(name) > 1 and name[1] == ":")


def is_file(path: Path, *, what: str, file: str | Path | None, line: int | None) -> bool:
    """Whether ``path`` is a regular file (links followed); ``False`` when nothing is
    there. Anything else (a directory, a FIFO, a device, a socket) is an input error,
    and so is a name the system cannot look up (too long, not permitted), located
    where the name was written: corefio opens regular files only (a FIFO would block
    the reader, and the XSLT processor, for ever)."""
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as exc:
        raise FormatError(f"{what} {shorten(path.name)!r} cannot be looked up: {exc.strerror}",
                          file=file, line=line) from None
    if stat.S_ISREG(mode):
        return True
    raise FormatError(f"{what} {shorten(path.name)!r} is {file_kind(mode)}, not a regular file: corefio reads "
                      "regular files only", file=file, line=line)


def read_file(path: Path, *, what: str, file: str | Path | None, line: int | None) -> bytes:
    """The bytes of a project file (:func:`~corefio.io.source.read_regular`: regular files
    only, any system error an input error located where the file was named)."""
    return read_regular(path, what=what, file=file, line=line)


#: byte order marks of UTF-16 and UTF-32 (a file that starts with one says its encoding)
_WIDE_MARKS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")


def parse_project_xml(data: bytes, file: Path | str) -> Any:
    """A project file (common paths, ``.mmax``, words, level or scheme file) parsed
    safely. A file in UTF-16 or UTF-32 without a byte order mark is refused, naming the
    file: XML requires the mark of such a file, and a parser guessing the encoding
    from the zero bytes would read it whatever its declaration says (often ``UTF-8``),
    so that two tools could read one file apart."""
    if not data.startswith(_WIDE_MARKS):
        guessed = _sniff_wide_encoding(data)
        if guessed is not None:
            declared = re.match(rb"<\?xml[^>]*?encoding=[\"']([A-Za-z0-9._-]+)", data.replace(b"\x00", b""))
            says = f"declares {declared.group(1).decode('ascii')!r}" if declared else "declares no encoding"
            raise FormatError(f"the file looks {guessed} encoded without a byte order mark and {says}; "
                              f"give it its byte order mark or convert it to UTF-8 (e.g. `iconv -f "
                              f"{guessed.replace('-LE', 'LE').replace('-BE', 'BE')} -t UTF-8`)", file=file, line=1)
    return parse_xml(data, file=file)


def shorten(name: str) -> str:
    return name if len(name) <= 80 else name[:77] + "..."


#: the elements of ``common_paths.xml`` and of a ``.mmax`` file that a reader uses once:
#: written twice, which one counts would be a guess (and two readers could guess apart)
COMMON_ONCE = PATH_KEYS + ("annotations",)
MMAX_ONCE = ("words", "annotations", "corefio_document")


def _once(root: Any, names: tuple[str, ...], file: Path) -> None:
    for name in names:
        found = root.findall(name)
        if len(found) > 1:
            lines = ", ".join(str(el.sourceline) for el in found)
            raise FormatError(f"<{name}> is written {len(found)} times (lines {lines}): a project file names it "
                              "once, and which one counts would be a guess", file=file, line=found[1].sourceline)


def read_common_paths(path: Path, *, what: str = "common paths file") -> tuple[CommonPaths, bytes]:
    """A common paths file (``common_paths.xml``, or a collection's shared one): its
    directories, levels and style sheets. Whether the names it gives stay inside the
    project is checked where they are used (:class:`Project`), since a collection's
    shared file names its directories relative to each ``.mmax`` file."""
    data = read_file(path, what=what, file=path, line=None)
    root = parse_project_xml(data, path).getroot()
    _once(root, COMMON_ONCE, path)
    paths = {}
    lines: dict[str, int | None] = {}
    for key in PATH_KEYS:
        el = root.find(key)
        if el is not None and el.text is not None:
            paths[key] = norm_path(el.text)
            lines[key] = el.sourceline
    levels = levels_of(root.find("annotations"), path)
    sheets = [(norm_path(el.text), el.sourceline) for el in root.iter("stylesheet") if el.text]
    others = {el.tag: norm_path(el.text) for el in root if isinstance(el.tag, str) and el.tag.endswith("_path")
              and el.tag not in PATH_KEYS and (el.text or "").strip()}
    return CommonPaths(paths, levels, sheets, path, lines, others), data


def levels_of(annotations: Any, file: Path) -> list[Level]:
    out: list[Level] = []
    if annotations is None:
        return out
    seen: dict[str, int | None] = {}
    for el in annotations:
        if not isinstance(el.tag, str) or el.tag != "level":
            continue
        name = el.get("name")
        if not name or not (el.text or "").strip():
            raise FormatError("a <level> needs a name and a file name pattern", file=file, line=el.sourceline)
        if name in seen:
            raise FormatError(f"level {name!r} is declared twice (lines {seen[name]} and {el.sourceline})",
                              file=file, line=el.sourceline)
        seen[name] = el.sourceline
        other = {k: v for k, v in el.attrib.items() if k not in ("name", "schemefile", "customization_file")}
        out.append(Level(name, el.get("schemefile"), el.get("customization_file"), norm_path(el.text), other,
                         str(file), el.sourceline))
    return out


def read_mmax(path: Path) -> tuple[str, int | None, list[Level], dict[str, str], bytes]:
    """A ``.mmax`` file: its words file (and the line naming it), its own levels, what
    corefio wrote about the document (name and part), and the raw bytes."""
    data = read_file(path, what="file", file=path, line=None)
    root = parse_project_xml(data, path).getroot()
    _once(root, MMAX_ONCE, path)
    words = root.find("words")
    if words is None or not (words.text or "").strip():
        raise FormatError("the .mmax file names no <words> file", file=path, line=root.sourceline)
    info = {}
    doc = root.find("corefio_document")
    if doc is not None:
        info = dict(doc.attrib)
    return norm_path(words.text), words.sourceline, levels_of(root.find("annotations"), path), info, data


# -- where the documents are, and the files each names ---------------------------------------
#: how deep below a collection's root its ``.mmax`` files are looked for
COLLECTION_DEPTH = 4
#: how many bytes of files a project holds besides its annotation (``Basedata.uri``,
#: notes) the reader keeps for the writer; files beyond are reported lost when written
KEEP_LIMIT = 32 * 2 ** 20
#: the name a collection's shared common paths file ends with (``global_common_paths.xml``)
SHARED_SUFFIX = "common_paths.xml"


@dataclass
class Named:
    """A file a document names: its path relative to the root (``.`` and ``..``
    resolved), its path on disk, whether it is there, and where its name was written."""

    rel: str
    path: Path
    present: bool
    file: str | Path | None
    line: int | None
    what: str

    @property
    def where(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "what": self.what}


@dataclass
class DocumentFiles:
    """Every file one ``.mmax`` file leads to, confined to the root and looked up."""

    mmax: Path
    #: the ``.mmax`` file's directory relative to the root (``""``: the root itself)
    home: str
    stem: str
    name: str
    info: dict[str, str]
    mmax_data: bytes
    common: CommonPaths
    #: the common paths file that applies, relative to the root (``None``: none)
    common_rel: str | None
    levels: list[Level]
    words_name: str
    words: Named
    level_files: list[Named]
    #: per level: its scheme and customization file (``None``: the level names none)
    schemes: list[Named | None]
    customizations: list[Named | None]
    stylesheets: list[Named]
    dtds: list[Named]


class Project:
    """The documents of an MMAX2 project or collection, and the one place where every
    file name they give is confined and looked up (the Python reader and both XSLT
    processors use it, so that they refuse and read the same files).

    A *project* is a directory with ``.mmax`` files and (usually) a ``common_paths.xml``
    beside them. A *collection* (MMAX2-Showcase's ACL Anthology corpus, the layout
    pyMMAX2 reads) is a directory whose ``.mmax`` files lie in subdirectories (up to
    :data:`COLLECTION_DEPTH` deep), each document reading a ``common_paths.xml`` of its
    own directory when it has one, else one shared file (``common_files/
    global_common_paths.xml``): a file whose name ends with ``common_paths.xml`` in the
    collection's directory or in a subdirectory without ``.mmax`` files, or the one the
    read option ``common_paths`` names. The shared file's paths are relative to each
    ``.mmax`` file (``../../common_files/Schemes/``). The *root* — the project or
    collection directory — is the boundary: an absolute name, a ``..`` or a link that
    leads out of it is refused before anything is read from it.
    """

    def __init__(self, path: Path, *, common_paths: str | None = None) -> None:
        try:
            is_directory, is_plain = path.is_dir(), path.is_file()
        except OSError as exc:  # a name too long, a directory that may not be entered
            raise FormatError(f"cannot look up this path: {exc.strerror}", file=path) from None
        self.collection = False
        if is_directory:
            self.root = path
            try:
                direct = sorted(p for p in path.iterdir() if p.suffix.lower() == ".mmax")
            except OSError as exc:
                raise FormatError(f"cannot list the directory: {exc.strerror}", file=path) from None
            if direct:
                self.mmax_files = self._confined_mmax(direct)
            else:
                self.mmax_files = self._confined_mmax(self._below(path))
                self.collection = bool(self.mmax_files)
            if not self.mmax_files:
                raise FormatError("no .mmax file in this directory (nor in its subdirectories): not an MMAX2 "
                                  "project", file=path)
        elif is_plain:
            self.root = path.parent
            self.mmax_files = [path]
        else:
            raise FormatError("no such file", file=path)
        self.shared = self._shared(common_paths)
        self._commons: dict[Path, tuple[CommonPaths, bytes]] = {}
        homes = [self.home(p) for p in self.mmax_files]
        stems = [mmax_stem(p) for p in self.mmax_files]
        repeated = {s for s in stems if stems.count(s) > 1}
        #: document names (the stem; where two documents of a collection share a stem,
        #: their path below the root)
        self.names = [f"{h}/{s}" if s in repeated and h else s for h, s in zip(homes, stems)]

    # -- finding the documents -----------------------------------------------------------
    def _below(self, directory: Path) -> list[Path]:
        found: list[Path] = []

        def walk(d: Path, depth: int) -> None:
            try:
                entries = sorted(d.iterdir())
            except OSError as exc:
                raise FormatError(f"cannot list the directory: {exc.strerror}", file=d) from None
            for entry in entries:
                if entry.suffix.lower() == ".mmax" and not entry.is_dir():
                    found.append(entry)
                elif depth < COLLECTION_DEPTH and not entry.is_symlink() and entry.is_dir():
                    walk(entry, depth + 1)

        walk(directory, 1)
        return sorted(found, key=lambda p: p.relative_to(directory).as_posix())

    def _confined_mmax(self, found: list[Path]) -> list[Path]:
        """The ``.mmax`` files among ``found`` (a link leading out of the root is refused)."""
        out = []
        for p in found:
            rel = p.relative_to(self.root).as_posix()
            path = confined_path(self.root, rel, file=self.root, what=".mmax file")
            if is_file(path, what=".mmax file", file=self.root, line=None):
                out.append(p)
        return out

    def _shared(self, option: str | None) -> Path | None:
        """A collection's shared common paths file (``None`` for a project)."""
        if option is not None:
            name = norm_path(option)
            if is_absolute_name(name):
                confined_path(self.root, name, what="the common paths file given (common_paths)")  # raises
            # the file named by the user may lie above the directory read (a document of
            # a collection read alone): the root is then the nearest directory holding both
            target = os.path.normpath(os.path.join(os.path.abspath(self.root), name))
            while os.path.commonpath([os.path.abspath(self.root), target]) != os.path.abspath(self.root):
                if self.root.parent == self.root:
                    break
                self.root = self.root.parent
            name = os.path.relpath(target, os.path.abspath(self.root)).replace(os.sep, "/")
            confined_path(self.root, name, what="the common paths file given (common_paths)")
            self.collection = True
            path = self.root / name
            if not is_file(path, what="common paths file", file=None, line=None):
                raise FormatError(f"common paths file {shorten(name)!r} (option common_paths) does not exist",
                                  file=path)
            return path
        if not self.collection:
            return None
        candidates = []
        for directory in [self.root, *sorted(p for p in self.root.iterdir() if p.is_dir() and not p.is_symlink())]:
            try:
                entries = sorted(directory.iterdir())
            except OSError:
                continue
            if directory != self.root and any(p.suffix.lower() == ".mmax" for p in entries):
                continue  # a project of its own: its common_paths.xml is its own
            candidates += [p for p in entries if p.name.lower().endswith(SHARED_SUFFIX) and not p.is_dir()]
        if len(candidates) > 1:
            shown = ", ".join(p.relative_to(self.root).as_posix() for p in candidates[:5])
            raise FormatError(f"this collection has {len(candidates)} common paths files ({shown}): choose the one "
                              "its documents share with the read option common_paths", file=self.root)
        if not candidates:
            return None
        rel = candidates[0].relative_to(self.root).as_posix()
        confined_path(self.root, rel, file=self.root, what="common paths file")
        return candidates[0]

    def home(self, mmax: Path) -> str:
        rel = mmax.parent.relative_to(self.root).as_posix()
        return "" if rel == "." else rel

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    # -- one document ----------------------------------------------------------------------
    def common_for(self, mmax: Path) -> Path | None:
        """The common paths file that applies to ``mmax`` (``None``: none)."""
        home = self.home(mmax)
        rel = locate(home, "", "common_paths.xml")
        confined_path(self.root, rel, file=mmax, what="common_paths.xml")
        own = self.root / rel
        if is_file(own, what="common_paths.xml", file=mmax, line=None):
            return own
        return self.shared

    def common(self, path: Path | None) -> tuple[CommonPaths, bytes | None]:
        if path is None:
            return CommonPaths({}, [], []), None
        if path not in self._commons:
            self._commons[path] = read_common_paths(path)
        return self._commons[path]

    def document(self, index: int) -> DocumentFiles:
        """Resolve every file the ``index``-th document names."""
        mmax = self.mmax_files[index]
        home = self.home(mmax)
        common_path = self.common_for(mmax)
        common, _ = self.common(common_path)
        words_name, words_line, own_levels, info, data = read_mmax(mmax)
        levels = common.levels or own_levels
        paths = common.paths
        for key in PATH_KEYS:  # the directories themselves, where they are named
            if key in paths:
                self._confine(home, "", paths[key], file=common.file, line=common.lines.get(key), what=key)

        def named(key: str, name: str, *, file: str | Path | None, line: int | None, what: str) -> Named:
            return self._named(home, paths.get(key, ""), name, file=file, line=line, what=what)

        words = named("basedata_path", words_name, file=mmax, line=words_line, what="base data file")
        if not words.present:
            beside = self._named(home, "", words_name, file=mmax, line=words_line, what="base data file")
            if beside.present:
                words = beside
        stem = mmax_stem(mmax)
        level_files: list[Named] = []
        schemes: list[Named | None] = []
        customizations: list[Named | None] = []
        for level in levels:
            by: str | Path | None = level.source if common.levels else mmax
            level_files.append(named("markable_path", level.file_for(stem), what=f"level file of {level.name!r}",
                                     file=by, line=level.line))
            schemes.append(named("scheme_path", level.schemefile, what="scheme file", file=by, line=level.line)
                           if level.schemefile else None)
            customizations.append(named("customization_path", level.customization_file, what="customization file",
                                        file=by, line=level.line) if level.customization_file else None)
        sheets = [named("style_path", sheet, file=common.file, line=line, what="style sheet")
                  for sheet, line in common.stylesheets]
        dtds: list[Named] = []
        for key in ("basedata_path", "markable_path"):
            directory = paths.get(key, "")
            line = common.lines.get(key)
            rel, base = self._confine(home, "", directory, file=common.file, line=line, what=key)
            try:
                names = sorted(p.name for p in base.glob("*.dtd")) if base.is_dir() else []
            except OSError as exc:
                raise FormatError(f"{key} {shorten(directory)!r} cannot be listed: {exc.strerror}",
                                  file=common.file, line=line) from None
            dtds += [self._named(home, directory, name, file=common.file, line=line, what="DTD") for name in names]
        return DocumentFiles(mmax, home, stem, self.names[index], info, data, common,
                             self.rel(common_path) if common_path is not None else None, levels, words_name, words,
                             level_files, schemes, customizations, sheets, dtds)

    def other_files(self, docs: list[DocumentFiles], taken: set[str]) -> tuple[dict[str, Path], list[str]]:
        """The files of the project's directories that no document reads and that are
        not in ``taken`` (paths relative to the root), for the writer to write back
        (``Basedata.uri``, a README, a scheme no level uses…): ({relative path: path},
        [the files that cannot be kept, with why]).

        The directories are those of the ``.mmax`` files and of the common paths file,
        and those its ``*_path`` elements name (not their subdirectories); a file there
        is kept unless it is hidden (``.name``), a ``.mmax`` file, a file of a document
        of the directory that was not read (``STEM_…``, ``STEM.…``), or leads out of the
        root. Files that are not regular, and what passes :data:`KEEP_LIMIT` bytes in
        all, are not kept."""
        directories: dict[str, str] = {}  # relative directory → how it was named
        outside: list[str] = []
        read_stems = {mmax_stem(p) for p in self.mmax_files}
        for d in docs:
            directories.setdefault(d.home, "the directory of a .mmax file")
            if d.common_rel is not None:
                directories.setdefault(posixpath.dirname(d.common_rel), "the common paths file's directory")
            for key, value in {**d.common.paths, **d.common.other_paths}.items():
                rel = locate(d.home, value, "").rstrip("/") or ""
                rel = "" if rel == "." else rel
                if is_absolute_name(norm_path(value)) or rel == ".." or rel.startswith("../"):
                    outside.append(f"{value} ({key}: outside the directory read)")
                    continue
                directories.setdefault(rel, key)
        kept: dict[str, Path] = {}
        not_kept: list[str] = sorted(set(outside))
        size = 0
        for rel_dir in directories:
            try:
                folder = confined_path(self.root, rel_dir or ".", what="directory")
                entries = sorted(folder.iterdir()) if folder.is_dir() else []
            except (OSError, FormatError):
                continue
            others = sorted({mmax_stem(p) for p in entries if p.suffix.lower() == ".mmax"} - read_stems)
            for entry in entries:
                name = entry.name
                rel = f"{rel_dir}/{name}" if rel_dir else name
                if (rel in taken or rel in kept or name.startswith(".") or entry.suffix.lower() == ".mmax"
                        or any(name.startswith((stem + "_", stem + ".")) for stem in others)):
                    continue
                try:
                    path = confined_path(self.root, rel, what="file")
                    mode = path.stat().st_mode
                except (OSError, FormatError):
                    not_kept.append(f"{rel} (leads out of the directory read, or cannot be looked up)")
                    continue
                if stat.S_ISDIR(mode):
                    continue
                if not stat.S_ISREG(mode):
                    not_kept.append(f"{rel} ({file_kind(mode)})")
                    continue
                length = path.stat().st_size
                if size + length > KEEP_LIMIT:
                    not_kept.append(f"{rel} (more than {KEEP_LIMIT // 2 ** 20} MB of files besides the annotation)")
                    continue
                size += length
                kept[rel] = path
        return kept, not_kept

    def _confine(self, home: str, directory: str, name: str, *, file: str | Path | None, line: int | None,
                 what: str) -> tuple[str, Path]:
        if is_absolute_name(norm_path(name)) or is_absolute_name(norm_path(directory)):
            confined_path(self.root, norm_path(name) if is_absolute_name(norm_path(name)) else norm_path(directory),
                          file=file, line=line, what=what)  # raises
        rel = locate(home, directory, name)
        path = confined_path(self.root, rel, file=file, line=line, what=what)
        return rel, path

    def _named(self, home: str, directory: str, name: str, *, file: str | Path | None, line: int | None,
               what: str) -> Named:
        """The file ``name`` of ``directory`` for a document in ``home``: confined to the
        root (an absolute name is refused as such, though joining it to the directory
        would make it relative) and looked up."""
        rel, path = self._confine(home, directory, name, file=file, line=line, what=what)
        return Named(rel or ".", path, is_file(path, what=what, file=file, line=line), file, line, what)


def holds_documents(directory: Path) -> bool:
    """Whether ``directory`` is an MMAX2 project or collection: a ``.mmax`` file in it or
    in its subdirectories (up to :data:`COLLECTION_DEPTH` deep). Stops at the first."""

    def walk(d: Path, depth: int) -> bool:
        try:
            entries = sorted(d.iterdir())
        except OSError:
            return False
        if any(e.suffix.lower() == ".mmax" for e in entries):
            return True
        return depth < COLLECTION_DEPTH and any(walk(e, depth + 1) for e in entries
                                                if not e.is_symlink() and e.is_dir())

    return walk(directory, 1)


def mmax_stem(mmax: Path) -> str:
    return mmax.name[: -len(mmax.suffix)] if mmax.suffix else mmax.name
