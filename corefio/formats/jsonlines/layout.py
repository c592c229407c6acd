"""The layout of a jsonlines document: what the writer needs to give a line back as it was."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ...model.layout import FormatLayout


@dataclass
class JsonlinesLayout(FormatLayout):
    """How one document's line looked (``extra``: the fields corefio does not read)."""

    format: ClassVar[str] = "jsonlines"
    depends_on: ClassVar[frozenset[str]] = frozenset({"tokens", "sentences"})

    #: the object's keys in source order
    keys: list[str] = field(default_factory=list)
    #: "conll" for ``(NAME); part NNN`` keys, "e2e" for e2e-coref's ``GENRE/SOURCE/NN/NAME_P``
    #: (:func:`~corefio.formats.jsonlines.dialects.split_e2e_key`), "plain" otherwise
    doc_key_style: str = "plain"
    #: False when the line holds non-ASCII characters unescaped
    ensure_ascii: bool = True
    #: metadata entries that hold a field's JSON value (not a string)
    json_fields: list[str] = field(default_factory=list)
    newline: str = "\n"
    #: False when the file's last line has no line end
    final_newline: bool = True
    #: the shape the line had (:data:`~corefio.formats.jsonlines.dialects.DIALECTS`)
    dialect: str = "e2e"
    #: True when the line has no space after its ``:`` and ``,`` (``json.dumps`` with
    #: ``separators=(",", ":")``)
    compact: bool = False
