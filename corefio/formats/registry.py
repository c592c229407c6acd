"""The format registry: one :class:`FormatSpec` per format, registered by its module.

A format module ends with ``register(FormatSpec(...))``; adding a format touches that
module and the tables of ``corefio/formats/__init__.py``.

Format modules are imported when a lookup first needs them: a file name or a format
name imports only the module the tables of :mod:`corefio.formats` point to; listing
the formats, sniffing, or a name no table knows imports them all.

A format name may carry a variant after a colon: ``jsonlines:wl`` is the format
``jsonlines`` read with its ``dialect`` option set to ``wl`` (the format declares which
read option the variant sets, in ``FormatSpec.variant_option``). The variant is a format
of its own for every command that takes ``--from``; it reads only.

Lookup order for a path: an explicit format name; else the longest registered extension
that ends the file name (compound suffixes like ``.v4_gold_conll`` win over ``.conll``);
else — for ambiguous extensions such as ``.xml`` and for unknown ones — each format's
``sniff`` function looks at the first bytes of the file.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CorefioError, UnknownFormatError, UsageError

if TYPE_CHECKING:  # pragma: no cover
    from ..model import Corpus


@dataclass(frozen=True)
class Capabilities:
    """What a format can express: the single source of loss reports.

    :func:`corefio.formats.losses.report_losses` compares what a document uses with these and
    reports every difference as a ``loss.<feature>`` diagnostic before the writer runs;
    writers do not check for losses themselves. :func:`corefio.formats.losses.project` drops
    the same things from a document, which is what a round trip must give back.

    ``True``: expressed; ``False``: not expressed; a frozenset of names (attribute
    features only): only attributes with these names are expressed (for
    ``sentence_attributes``: only these parts of a sentence, among ``id``, ``comments``,
    ``attributes`` and ``interleaved``).
    """

    discontinuous: bool = False  #: markables made of several spans
    nested: bool = True  #: markables inside markables
    crossing: bool = True  #: markables that overlap without one containing the other
    same_entity_overlap: bool = True  #: overlapping markables of one entity (CoNLL brackets cannot)
    cross_sentence: bool = True  #: markables crossing a sentence boundary
    entity_ids: bool = False  #: set / cluster ids are kept as written (not renumbered)
    link_structure: bool = False  #: mention→antecedent configuration of identity links
    link_types: bool = False  #: non-identity links (bridging, split antecedent, ...)
    multi_target_links: bool = False  #: links with several targets kept as one group
    markable_attributes: bool | frozenset[str] = False  #: attributes on markables
    entity_attributes: bool | frozenset[str] = False  #: attributes on entities
    link_attributes: bool = False  #: attributes on links
    heads: bool = False  #: head spans
    min: bool = False  #: MUC MIN spans
    optional: bool = False  #: MUC STATUS=OPT
    layers: bool = False  #: markables outside the default coreference layer
    sets: bool = False  #: non-identity set memberships (MMAX2 markable_set attributes)
    token_attributes: bool | frozenset[str] = False  #: per-token columns (POS, lemma, ...)
    token_ids: bool = False  #: token ids other than the default word_1…word_n
    empty_tokens: bool = False  #: empty tokens (CoNLL-U empty nodes, places of zeros)
    whitespace: bool = False  #: the exact text between tokens
    offsets: bool = False  #: character offsets of tokens
    text: bool = False  #: the exact source text (with its markup)
    regions: bool = False  #: typed structural regions of the source text
    sentences: bool = True  #: sentence boundaries
    sentence_attributes: bool | frozenset[str] = False  #: sentence ids, comments, attributes
    metadata: bool = False  #: document metadata
    schemes: bool = False  #: annotation schemes
    multiple_documents: bool = True  #: several documents in one file (or project)

    def as_dict(self) -> dict[str, bool | list[str]]:
        out: dict[str, bool | list[str]] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = sorted(value) if isinstance(value, frozenset) else value
        return out


@dataclass(frozen=True)
class Option:
    """A reader or writer option a format declares (the CLI and the API check them)."""

    name: str
    type: type
    default: Any
    help: str
    #: ``"read"`` or ``"write"``
    applies_to: str = "write"
    choices: tuple[str, ...] | None = None

    def check(self, value: Any, format_name: str) -> Any:
        if value is None:
            return value
        if self.type is bool and not isinstance(value, bool):
            raise UsageError(f"{format_name} option {self.name!r} takes true or false, not {value!r}")
        if self.type is not bool and not isinstance(value, self.type):
            try:
                value = self.type(value)
            except (TypeError, ValueError):
                raise UsageError(f"{format_name} option {self.name!r} takes a {self.type.__name__}, "
                                 f"not {value!r}") from None
        if self.choices is not None and value not in self.choices:
            raise UsageError(f"{format_name} option {self.name!r} is one of {', '.join(self.choices)}, "
                             f"not {value!r}")
        return value


#: ``read(source, *, report, strict, **options) -> Corpus``
Reader = Callable[..., "Corpus"]
#: ``write(documents, *, corpus, report, **options) -> Iterator[bytes | str]``
Writer = Callable[..., Iterator["bytes | str"]]


@dataclass(frozen=True)
class FormatSpec:
    """A registered format: its names, extensions, reader, writer, options, capabilities.

    A format stored in one file has ``write``: it yields the file's bytes piece by piece
    (a header, one piece per document, a footer) so that a conversion holds one
    document at a time. A format made of several files (an MMAX2 project) has
    ``write_files`` instead, giving ``{relative path: bytes}``, and ``directory=True``:
    it reads a directory or its project file.
    """

    name: str
    description: str
    extensions: tuple[str, ...]
    capabilities: Capabilities
    #: ``read(source, *, report, strict, **options) -> Corpus``
    read: Reader | None = None
    #: ``stream(source, *, report, strict, **options) -> Iterator[Document]``: the
    #: documents one at a time (memory bounded by the largest document)
    stream: Callable[..., Iterator[Any]] | None = None
    #: ``write(documents, *, corpus, report, **options) -> Iterator[bytes | str]``;
    #: ``corpus`` carries corpus metadata, schemes and layout (its documents may be
    #: empty while the documents stream)
    write: Writer | None = None
    #: ``write_files(corpus, *, report, **options) -> {relative path: bytes}``
    write_files: Callable[..., dict[str, bytes]] | None = None
    #: options the reader and the writer accept
    options: tuple[Option, ...] = ()
    #: ``sniff(head: bytes) -> bool``: does this file look like this format?
    sniff: Callable[[bytes], bool] | None = None
    #: extensions shared with other formats (sniffing decides)
    ambiguous_extensions: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    #: the input is a directory (or a project file inside one)
    directory: bool = False
    #: ``sniff_directory(path) -> bool``: is this directory one of this format's? (when
    #: several formats read directories; a format without it takes what no other claims)
    sniff_directory: Callable[[Path], bool] | None = None
    #: ``scan_keys(source) -> [(name, part, byte offset, line), ...]``: the documents,
    #: cheaply (scoring pairs documents before reading them)
    scan_keys: Callable[[Any], list] | None = None
    #: ``mention_views(source, *, report, strict, select, byte_range, pos) ->
    #: Iterator[MentionView]``: the same views ``Document.mention_view`` gives, built
    #: straight from the parser (scoring's fast path; optional)
    mention_views: Callable[..., Iterator[Any]] | None = None
    #: the read option a format name ``NAME:VALUE`` sets to ``VALUE`` (None: the format
    #: has no variants)
    variant_option: str | None = None
    #: the writer's output for some documents is the outputs for runs of them, joined
    #: (no file header or footer, nothing carried from one document to the next), so
    #: ``convert --jobs`` may write the runs of one large file in several processes
    #: (:mod:`corefio.parallel`; ``tests/test_jobs.py`` checks each declaring writer)
    concatenates: bool = False
    #: ``document_starts(source) -> [(byte offset, line), ...]``: where each document
    #: starts, found without building documents (raises what reading the file would raise
    #: about what it looks at). With ``stream_range``, the commands' ``--jobs`` cut a large
    #: file into runs of documents read by several processes (:mod:`corefio.parallel`)
    document_starts: Callable[[Any], list[tuple[int, int]]] | None = None
    #: ``stream_range(source, (start, end, number of the first document, its line), *,
    #: report, strict) -> Iterator[Document]``: the documents of one run of a file, cut
    #: where ``document_starts`` says, as the whole file's reading gives them
    stream_range: Callable[..., Iterator[Any]] | None = None

    @property
    def can_read(self) -> bool:
        return self.read is not None

    @property
    def can_write(self) -> bool:
        return self.write is not None or self.write_files is not None

    def check_options(self, options: dict[str, Any], applies_to: str) -> dict[str, Any]:
        """``options`` checked against the declared ones (unknown: :class:`UsageError`)."""
        declared = {o.name: o for o in self.options if o.applies_to == applies_to}
        out = {}
        for name, value in options.items():
            option = declared.get(name)
            if option is None:
                known = ", ".join(sorted(declared)) or "none"
                raise UsageError(f"format {self.name!r} has no {applies_to} option {name!r} (known: {known})")
            out[name] = option.check(value, self.name)
        return out


_FORMATS: dict[str, FormatSpec] = {}
_ALIASES: dict[str, str] = {}


def register(spec: FormatSpec) -> FormatSpec:
    """Add a format (called once, at the end of its module)."""
    if spec.name in _FORMATS:
        raise ValueError(f"format {spec.name!r} registered twice")
    _FORMATS[spec.name] = spec
    for alias in spec.aliases:
        _ALIASES[alias] = spec.name
    return spec


#: the format modules imported so far (by the registry)
_LOADED: set[str] = set()


def _ensure_loaded(modules: Iterable[str] | None = None) -> None:
    """Import the format modules ``modules`` (all of them when None); importing a
    module registers its formats."""
    from .. import formats

    for module in formats.MODULES if modules is None else modules:
        if module not in _LOADED:
            importlib.import_module(f"{formats.__name__}.{module}")
            _LOADED.add(module)


def _modules_for(filename: str) -> list[str] | None:
    """The format modules whose extensions give the longest match at the end of
    ``filename`` (None, meaning all of them, when no extension matches: sniffing
    decides among every format)."""
    from . import EXTENSIONS

    lower = filename.lower()
    best, modules = 0, []
    for module, extensions in EXTENSIONS.items():
        length = max((len(ext) for ext in extensions if lower.endswith(ext)), default=0)
        if length > best:
            best, modules = length, [module]
        elif length == best and length:
            modules.append(module)
    return modules or None


def _module_of(name: str) -> str | None:
    """The format module that registers the format (or alias) ``name``, if any."""
    from . import NAMES

    return next((module for module, names in NAMES.items() if name in names), None)


def _registered() -> list[FormatSpec]:
    """The formats registered so far: those of :mod:`corefio.formats` in the order of its
    modules (however they came to be imported), then any registered from elsewhere."""
    from . import MODULES

    rank = {module: i for i, module in enumerate(MODULES)}

    def place(spec: FormatSpec) -> int:
        module = _module_of(spec.name)
        return rank[module] if module is not None else len(rank)

    return sorted(_FORMATS.values(), key=place)  # stable: registration order within a module


def all_formats() -> list[FormatSpec]:
    """Every format, in the order of the modules of :mod:`corefio.formats`."""
    _ensure_loaded()
    return _registered()


def get_format(name: str) -> FormatSpec:
    """The format called ``name`` (or one of its aliases); ``NAME:VALUE`` is format
    ``NAME`` reading with its variant option set to ``VALUE`` (see :func:`_variant`)."""
    if ":" in name:
        base, value = name.split(":", 1)
        return _variant(get_format(base), value, name)
    key = name.lower()
    if key not in _FORMATS and key not in _ALIASES:
        module = _module_of(key)
        _ensure_loaded([module] if module is not None else None)
    key = _ALIASES.get(key, key)
    try:
        return _FORMATS[key]
    except KeyError:
        _ensure_loaded()  # the error lists every format
        known = ", ".join(sorted(_FORMATS))
        raise UnknownFormatError(f"unknown format {name!r} (known: {known})") from None


#: the variants made so far, by (format name, value)
_VARIANTS: dict[tuple[str, str], FormatSpec] = {}


def _variant(base: FormatSpec, value: str, asked: str) -> FormatSpec:
    """``base`` reading with its variant option set to ``value``: a format named
    ``BASE:VALUE`` whose reader and streamer have the option fixed. It writes nothing
    (a variant names a way to read), and it has no fast scoring path (the parser's
    mention views do not take read options)."""
    option = next((o for o in base.options if o.name == base.variant_option and o.applies_to == "read"), None)
    if option is None:
        raise UnknownFormatError(f"format {base.name!r} has no variants: {asked!r} names none")
    known = ", ".join(option.choices) if option.choices is not None else None
    try:
        checked = option.check(value, base.name)
    except UsageError:
        raise UnknownFormatError(f"unknown {base.name} {option.name} {value!r} in {asked!r}"
                                 + (f" (known: {known})" if known else "")) from None
    key = (base.name, str(checked))
    if key not in _VARIANTS:
        fixed = {option.name: checked}
        _VARIANTS[key] = dataclasses.replace(
            base,
            name=f"{base.name}:{checked}",
            description=f"{base.description}, read with {option.name} {checked}",
            read=functools.partial(base.read, **fixed) if base.read is not None else None,
            stream=functools.partial(base.stream, **fixed) if base.stream is not None else None,
            write=None, write_files=None,
            options=tuple(o for o in base.options if o is not option),
            sniff=None, aliases=(), scan_keys=None, mention_views=None, variant_option=None,
            document_starts=None, stream_range=None,
        )
    return _VARIANTS[key]


def _extension_matches(filename: str) -> list[tuple[int, FormatSpec, bool]]:
    lower = filename.lower()
    found = []
    for spec in _registered():
        for ext in spec.extensions:
            if lower.endswith(ext):
                found.append((len(ext), spec, False))
        for ext in spec.ambiguous_extensions:
            if lower.endswith(ext):
                found.append((len(ext), spec, True))
    return found


def _read_head(path: Path, size: int = 4096) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(size)
    except OSError:
        return b""


#: extensions that name a role, not a format: scorer test suites call any key file
#: ``.key`` and any system output ``.response`` (CoNLL-2012 and CorefUD alike), so the
#: content may overrule the format these name (see :func:`detect_format_noted`)
ROLE_EXTENSIONS = (".key", ".response")


def detect_format(path: str | Path, *, for_writing: bool = False) -> FormatSpec:
    """Choose a format for ``path`` from its extension, sniffing when ambiguous."""
    return detect_format_noted(path, for_writing=for_writing)[0]


def detect_format_noted(path: str | Path, *, for_writing: bool = False) -> tuple[FormatSpec, str | None]:
    """:func:`detect_format`, with a sentence for the user when the content chose the
    format although the name did not say it (an unknown extension, or one that names a
    role such as ``.key``), else None.

    A file whose extension names a role or nothing useful (``.key``, ``.response``,
    ``.txt`` that is no MUC) and whose content is unmistakably CorefUD CoNLL-U (see
    :func:`conllu_evidence`) is read as CoNLL-U."""
    path = Path(path)
    if not for_writing and path.is_file():
        lower = path.name.lower()
        if lower.endswith(ROLE_EXTENSIONS):
            evidence = conllu_evidence(_read_head(path))
            if evidence is not None:
                return get_format("conllu"), (f"read as conllu: the content is CoNLL-U ({evidence}); "
                                              f"the extension {Path(lower).suffix} names no format for sure")
    try:
        spec = _detect(path, for_writing)
    except UnknownFormatError:
        evidence = conllu_evidence(_read_head(path)) if not for_writing and path.is_file() else None
        if evidence is None:
            raise
        return get_format("conllu"), f"read as conllu: the content is CoNLL-U ({evidence})"
    if not for_writing and path.is_file() and path.suffix and not _extension_matches(path.name):
        # an extension no format has (not none: standard input is read by its content)
        return spec, f"read as {spec.name} by its content (no format has the extension {path.suffix})"
    return spec, None


def conllu_evidence(head: bytes) -> str | None:
    """What in the start of a file says it is CorefUD CoNLL-U beyond doubt: token lines
    of 10 TAB-separated columns (the last, possibly cut, line aside) and one of
    ``# global.Entity``, ``# newdoc`` or ``Entity=`` in MISC; no CoNLL-2012
    ``#begin document`` and no CoNLL-U Plus ``# global.columns`` (the Universal
    Anaphora format). None when it is not so clear."""
    import re

    text = head.decode("utf-8", "replace").lstrip("\ufeff")
    if re.search(r"(?m)^#\s*(begin\s+document|global\.columns)", text):
        return None
    lines = text.splitlines()
    if len(head) >= 4096 and not text.endswith("\n"):
        lines = lines[:-1]  # cut by the size of the head
    rows = [line.split("\t") for line in lines if line.strip() and not line.startswith("#")]
    if not rows or any(len(row) != 10 for row in rows):
        return None
    evidence = ["10 tab-separated columns"]
    if re.search(r"(?m)^#\s*global\.Entity\s*=", text):
        evidence.append("`# global.Entity`")
    if re.search(r"(?m)^#\s*newdoc\b", text):
        evidence.append("`# newdoc`")
    if any(re.search(r"(^|\|)Entity=", row[9]) for row in rows):
        evidence.append("Entity= in MISC")
    return ", ".join(evidence) if len(evidence) > 1 else None


def _detect(path: Path, for_writing: bool) -> FormatSpec:
    if not for_writing and not path.exists():
        raise CorefioError("no such file", file=path)
    if path.is_dir():
        projects = [spec for spec in all_formats() if spec.directory]
        if not projects:
            raise CorefioError("is a directory, not a file", file=path)
        if len(projects) > 1:
            # a directory a format recognises by its content (a saved Hugging Face dataset)
            claimed = [spec for spec in projects if spec.sniff_directory is not None and spec.sniff_directory(path)]
            if claimed:
                projects = claimed
            else:
                projects = [spec for spec in projects if spec.sniff_directory is None]
                # the formats whose files the directory holds (.mmax: MMAX2, .ann: brat)
                try:
                    entries = sorted(p.name for p in path.iterdir())
                except OSError:
                    entries = []

                def held(spec: FormatSpec) -> list[str]:
                    """The directory's files with an extension of ``spec``."""
                    return [n for n in entries if n.lower().endswith(spec.extensions + spec.ambiguous_extensions)]

                holding = [spec for spec in projects if held(spec)]
                if len(holding) > 1:
                    # several claim the same files (.ann: brat, LitBank TSV): the first one sniffed
                    sniffed = [spec for spec in holding
                               if spec.sniff is not None and spec.sniff(_read_head(path / held(spec)[0]))]
                    holding = sniffed or holding
                if not holding:
                    extensions = sorted({e for spec in projects for e in spec.extensions + spec.ambiguous_extensions})
                    raise CorefioError("the directory holds no file of a format read from directories "
                                       f"({', '.join(extensions)})", file=path)
                projects = holding
        if len(projects) == 1:
            return projects[0]
        raise UnknownFormatError("cannot tell the format of this directory; use --from", file=path)
    _ensure_loaded(_modules_for(path.name))
    matches = _extension_matches(path.name)
    if matches:
        best = max(m[0] for m in matches)
        top = [m for m in matches if m[0] == best]
        unambiguous = [spec for _, spec, amb in top if not amb]
        if len(unambiguous) == 1:
            return unambiguous[0]
        candidates = [spec for _, spec, _ in top]
    else:
        candidates = _registered()  # every format: no extension matched, so all are loaded
    if not for_writing and path.exists():
        head = _read_head(path)
        sniffed = [s for s in candidates if s.sniff is not None and s.sniff(head)]
        if len(sniffed) == 1:
            return sniffed[0]
        if len(sniffed) > 1:
            names = ", ".join(s.name for s in sniffed)
            raise UnknownFormatError(
                f"cannot tell the format (could be: {names}); use --from", file=path
            )
    hint = "--to" if for_writing else "--from"
    if not for_writing and path.suffix == ".txt" and path.with_suffix(".ann").is_file():
        raise UnknownFormatError(f"this is the text of the brat or LitBank TSV document {path.stem}.ann: give that "
                                 "file, or the folder of documents", file=path)
    if matches:
        names = ", ".join(sorted({s.name for s in candidates}))
        raise UnknownFormatError(
            f"cannot tell the format from the name (could be: {names}); use {hint}",
            file=path,
        )
    raise UnknownFormatError(
        f"cannot tell the format: unknown extension; use {hint} FORMAT "
        f"(formats: {', '.join(sorted(_FORMATS))})",
        file=path,
    )


def sniff_format(head: bytes, name: str = "<string>") -> FormatSpec:
    """The one format whose ``sniff`` claims ``head`` (in-memory input without a name)."""
    sniffed = [s for s in all_formats() if s.sniff is not None and s.sniff(head)]
    if len(sniffed) == 1:
        return sniffed[0]
    could = f" (could be: {', '.join(s.name for s in sniffed)})" if sniffed else ""
    raise UnknownFormatError(f"cannot tell the format of {name}{could}; name the format")


def resolve_format(path: str | Path, name: str | None, *, for_writing: bool = False) -> FormatSpec:
    """``name`` if given, else :func:`detect_format`."""
    if name:
        return get_format(name)
    return detect_format(path, for_writing=for_writing)


def capability_summary(spec: FormatSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "description": spec.description,
        "extensions": list(spec.extensions) + list(spec.ambiguous_extensions),
        "read": spec.can_read,
        "write": spec.can_write,
        "options": [{"name": o.name, "type": o.type.__name__, "default": o.default, "help": o.help,
                     "applies_to": o.applies_to} for o in spec.options],
        "capabilities": spec.capabilities.as_dict(),
    }


def capability_table() -> str:
    """The formats as a Markdown table: what each can express and what a conversion to
    it reports as lost (the same capabilities drive :mod:`corefio.formats.losses`)."""
    specs = all_formats()
    rows = ["| format | extensions | read/write | expresses | cannot express (reported as `loss.*`) |",
            "|---|---|---|---|---|"]
    for spec in specs:
        caps = spec.capabilities.as_dict()
        yes = [name if value is True else f"{name} ({', '.join(value)})" for name, value in caps.items()
               if value is True or (isinstance(value, list) and value)]
        no = [name for name, value in caps.items() if value is False]
        rw = ("r" if spec.can_read else "") + ("w" if spec.can_write else "")
        exts = ", ".join(f"`{e}`" for e in spec.extensions + spec.ambiguous_extensions) or "a directory"
        rows.append(f"| `{spec.name}` | {exts} | {rw} | {', '.join(yes) or '—'} | {', '.join(no) or '—'} |")
    return "\n".join(rows)
