"""The format registry: one :class:`FormatSpec` per format, registered by its module.

A format module ends with ``register(FormatSpec(...))``; adding a format touches that
module and one import line in ``corefio/formats/__init__.py``.

Lookup order for a path: an explicit format name; else the longest registered extension
that ends the file name (compound suffixes like ``.v4_gold_conll`` win over ``.conll``);
else — for ambiguous extensions such as ``.xml`` and for unknown ones — each format's
``sniff`` function looks at the first bytes of the file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import CorefioError, UnknownFormatError

if TYPE_CHECKING:  # pragma: no cover
    from .model import Corpus


@dataclass(frozen=True)
class Capabilities:
    """What a format can express. Writers report a loss for every ``False`` in use."""

    discontinuous: bool = False  #: markables made of several spans
    nested: bool = True  #: markables inside markables
    cross_sentence: bool = True  #: markables crossing a sentence boundary
    singletons: bool = True  #: markables that corefer with nothing
    entity_ids: bool = False  #: set / cluster ids are kept as written
    link_structure: bool = False  #: mention→antecedent configuration of identity links
    link_types: bool = False  #: non-identity links (bridging, split antecedent, ...)
    markable_attributes: bool = False  #: arbitrary attributes on markables
    entity_attributes: bool = False  #: attributes on entities
    heads: bool = False  #: head / MUC MIN spans
    token_attributes: bool = False  #: per-token columns (POS, lemma, speaker, ...)
    whitespace: bool = False  #: the exact text between tokens
    offsets: bool = False  #: character offsets of tokens
    multiple_documents: bool = True  #: several documents in one file

    def as_dict(self) -> dict[str, bool]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


Reader = Callable[..., "Corpus"]
Writer = Callable[..., "str | bytes"]


@dataclass(frozen=True)
class FormatSpec:
    """A registered format: its names, extensions, reader, writer and capabilities."""

    name: str
    description: str
    extensions: tuple[str, ...]
    capabilities: Capabilities
    #: ``read(path, *, report, strict, **options) -> Corpus``
    read: Reader | None = None
    #: ``dumps(corpus, *, report, strict, **options) -> str | bytes``
    dumps: Writer | None = None
    #: ``sniff(head: bytes) -> bool``: does this file look like this format?
    sniff: Callable[[bytes], bool] | None = None
    #: extensions shared with other formats (sniffing decides)
    ambiguous_extensions: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    #: ``stream(path, *, report, strict, select, byte_range, chains, pos) ->
    #: Iterator[Document]``: the documents one at a time (``select``: numbers of the
    #: documents to build; ``chains=True``: :class:`~corefio.model.MentionChains` instead)
    stream: Callable[..., Any] | None = None
    #: ``scan_keys(path) -> [(name, part, byte offset, line), ...]``: the documents, cheaply
    scan_keys: Callable[[Any], list] | None = None

    @property
    def can_read(self) -> bool:
        return self.read is not None

    @property
    def can_write(self) -> bool:
        return self.dumps is not None


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


def _ensure_loaded() -> None:
    from . import formats  # noqa: F401  (importing registers the formats)


def all_formats() -> list[FormatSpec]:
    _ensure_loaded()
    return list(_FORMATS.values())


def get_format(name: str) -> FormatSpec:
    """The format called ``name`` (or one of its aliases)."""
    _ensure_loaded()
    key = name.lower()
    key = _ALIASES.get(key, key)
    try:
        return _FORMATS[key]
    except KeyError:
        known = ", ".join(sorted(_FORMATS))
        raise UnknownFormatError(f"unknown format {name!r} (known: {known})") from None


def _extension_matches(filename: str) -> list[tuple[int, FormatSpec, bool]]:
    lower = filename.lower()
    found = []
    for spec in _FORMATS.values():
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


def detect_format(path: str | Path, *, for_writing: bool = False) -> FormatSpec:
    """Choose a format for ``path`` from its extension, sniffing when ambiguous."""
    _ensure_loaded()
    path = Path(path)
    if not for_writing and not path.exists():
        raise CorefioError("no such file", file=path)
    matches = _extension_matches(path.name)
    if matches:
        best = max(m[0] for m in matches)
        top = [m for m in matches if m[0] == best]
        unambiguous = [spec for _, spec, amb in top if not amb]
        if len(unambiguous) == 1:
            return unambiguous[0]
        candidates = [spec for _, spec, _ in top]
    else:
        candidates = list(_FORMATS.values())
    if not for_writing and path.exists():
        head = _read_head(path)
        sniffed = [s for s in candidates if s.sniff is not None and s.sniff(head)]
        if len(sniffed) == 1:
            return sniffed[0]
        if len(sniffed) > 1:
            names = ", ".join(s.name for s in sniffed)
            raise UnknownFormatError(
                f"cannot tell the format of {path} (could be: {names}); use --from", file=path
            )
    hint = "--to" if for_writing else "--from"
    if matches:
        names = ", ".join(sorted({s.name for s in candidates}))
        raise UnknownFormatError(
            f"cannot tell the format of {path} from its name (could be: {names}); use {hint}",
            file=path,
        )
    raise UnknownFormatError(
        f"cannot tell the format of {path}: unknown extension; use {hint} FORMAT "
        f"(formats: {', '.join(sorted(_FORMATS))})",
        file=path,
    )


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
        "capabilities": spec.capabilities.as_dict(),
    }
