"""WebAnno TSV 3.x (``.tsv``): the export of WebAnno / INCEpTION, and GUM's coreference.

::

    #FORMAT=WebAnno TSV 3.2
    #T_SP=webanno.custom.Referent|entity|infstat          span layer and its features
    #T_RL=webanno.custom.Coref|type|BT_webanno.custom.Referent   relation layer on it
    #T_CH=...CoreferenceLink|referenceType|referenceRelation     chain layer
    (blank line)
    #Text=Insights from Eye - Tracking                   one block per sentence
    2-1<TAB>41-49<TAB>Insights<TAB>abstract[3]<TAB>new[3]<TAB>coref<TAB>15-8[114_3]<TAB>
    2-3<TAB>55-58<TAB>Eye<TAB>abstract[3]|object[5]<TAB>...

A token line holds the token id (``sentence-token``, sub-tokens ``1-1.1``), its
character offsets, its form and one column per feature of each layer, in header order.
A cell holds ``_`` (nothing) or the annotations on the token joined by ``|``, each
``value[id]``: the ``[id]`` ties the rows of a multi-token annotation together.

Coreference in the two styles in use:

* span + relation (GUM): the span layer that a relation layer names as its base
  (``BT_...``) holds the mentions (markable ids: the annotation ids; features become
  markable attributes). A relation sits on the first token of its dependent
  annotation; its ``BT`` cell gives the governor's token and ``[governor_dependent]``
  annotation ids. It becomes a link from the governor to the dependent, typed by
  :func:`relation_link` from the relation layer's first feature: types in
  :data:`IDENTITY_TYPES` (GUM's ``coref``, ``ana``, ``cata``, ``appos``, ``pred``,
  ``disc``) are identity links (chains); ``bridge:aggr`` a split antecedent link;
  another ``bridge:SUBTYPE`` becomes a ``bridging`` link with the subtype as its
  ``relation`` attribute (CorefUD's convention); no value in a layer whose name says
  ``coref`` is identity; any other type stays a typed link of that name. The written
  type is the link's ``type`` attribute when it differs from what the model type says.
  A relation layer may have no type column (only ``BT_``, INCEpTION's feature-less
  relation) or more features: the others are link attributes of their names.
* sub-tokens (``1-3.1``): their annotations are their token's (a warning,
  ``webanno.subtoken-annotations``, says how many moved); their lines are kept
  (coreference columns blanked) and written back after the token.
* chains (WebAnno's ``CoreferenceLink``): ``TYPE[N]`` in the type column and
  ``RELATION->N-M`` in the relation column: link ``M`` of chain ``N`` (its relation to
  the next link; ``*`` for none). Each link becomes a markable of entity ``N`` with the
  two values as attributes (``referenceType``, ``referenceRelation``).

Which layer is coreference: the ``layer`` read option (a chain, relation or span layer's
name), else DKPro Core's ``CoreferenceLink`` chain layer, else the first chain layer (a
custom one such as INCEpTION's ``webanno.custom.SimpleLink``), else the first relation
layer on a declared span layer that is not DKPro Core's syntactic ``Dependency`` (one
named ``*coref*`` first). Any other chain or relation layer is kept as written and
reported (``webanno.layer-not-read``). Offsets and annotation numbers of more than
:data:`MAX_DIGITS` digits are refused with their line.

A ``.zip`` of ``.tsv`` files is a corpus, one document per file in the zip's order
(opened by :mod:`corefio.io.archive`). WebAnno TSV holds one document per file and no
document name (reading names a document after its file): several documents are written
as such a zip (an output named ``.zip``, the ``zip`` option, or in memory), and refused
for an output named ``.tsv`` (:func:`corefio.io.archive.one_file_per_document`); a name
that will not come back is ``loss.document-name`` (info), a part ``loss.document-part``.

The writer keeps the file's style: a chain-layer file is written with its chain layer,
anything else as span + relation layers (GUM's way: each mention of an entity points to
the one before it). A discontinuous mention is written as one span from its first to its
last word (``loss.discontinuous``); markables of other layers: see
:mod:`corefio.formats._layers`. A typed link whose type the relation layer would read
as another (LitBank's non-identity ``appos`` link: ``appos`` is GUM's coreference; a
link type ``bridge:x`` that is no bridging) is not written (``loss.link-types``).

Other layers are kept as token attributes named ``LAYER|FEATURE`` (``#2``... for a
column declared twice) holding the cells as written; header lines other than the layer declarations (``#Summary1=...``) and each
sentence's ``#Text=`` line are kept in :class:`WebAnnoLayout` and the sentence comments.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from pathlib import PurePosixPath
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..io._lazy import LazyModule
from ..model.mentions import BRIDGING, COREFERENCE, SPLIT_ANTECEDENT, is_identity
from ..diagnostics import Report
from ..errors import FormatError, ModelError, UsageError
from ..model.layout import FormatLayout
from .losses import LossLog
from .registry import Capabilities, FormatSpec, Option, register
from ..io.archive import is_zip, member_name, one_file_per_document, open_zip, zip_bytes
from ..io.files import decode_utf8
from ..io.source import Source
from ._layers import coreference_layer
from ._lines import split_newlines

model = LazyModule("corefio.model")

NAME = "webanno-tsv"
#: places of the coreference layers' columns in the writer's column plan
MENTIONS, RELATIONS, CHAINS = "\x00mentions", "\x00relations", "\x00chains"
#: the span layer this writer puts token columns of other formats in (POS, lemma...)
TOKEN_LAYER = "corefio.Token"
#: GUM's relation types that make their ends corefer: lexical coreference, anaphora,
#: cataphora, apposition, predication and discourse deixis (``disc``: a pronoun naming
#: an event mentioned before) all put their ends in one entity, as GUM's own CorefUD
#: release does (checked: the chains read from GUM's TSV equal those of its CoNLL-U);
#: ``bridge:aggr`` (a plural made of several entities) is a split antecedent and the
#: other ``bridge:*`` types bridging, both typed links
IDENTITY_TYPES = frozenset({"coref", "ana", "cata", "appos", "pred", "disc"})
#: DKPro Core's chain layer of coreference (read before any other chain layer)
LINK_LAYER = "de.tudarmstadt.ukp.dkpro.core.api.coref.type.CoreferenceLink"
#: relation layers never read as coreference: DKPro Core's syntactic dependencies
NOT_COREFERENCE = frozenset({"de.tudarmstadt.ukp.dkpro.core.api.syntax.type.dependency.Dependency"})
#: digits a token offset or an annotation number may have (Python's int() refuses
#: strings of more than 4,300 digits; no text is 10^18 characters long)
MAX_DIGITS = 18
_CELL_PIECE = re.compile(r"^(.*?)(?:\[(\d+)(?:_(\d+))?\])?$", re.S)
_TOKEN_ID = re.compile(r"^(\d+)-(\d+)(?:\.(\d+))?$")
_CHAIN = re.compile(r"^(.*)->(\d+)-(\d+)$", re.S)
_SPLIT = re.compile(r"(?<!\\)\|")


@dataclass
class WebAnnoLayout(FormatLayout):
    """The header of one file and what the writer needs to give it back."""

    format: ClassVar[str] = NAME
    depends_on: ClassVar[frozenset[str]] = frozenset({"tokens", "sentences", "markables", "links"})

    #: header lines as written (format, layer declarations, #Summary...)
    header: list[str] = field(default_factory=list)
    #: the span layer holding the mentions and its features
    mention_layer: str | None = None
    mention_features: list[str] = field(default_factory=list)
    #: "relation" or "chain"
    style: str = "relation"
    #: the relation layer read as links (relation style; None: none)
    relation_layer: str | None = None
    newline: str = "\n"
    #: True when token lines end with a TAB (WebAnno's own export)
    trailing_tab: bool = True
    #: token id → the lines of its sub-tokens (``1-3.1``) as written, their coreference
    #: columns blanked (their annotations are the token's)
    subtokens: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class _Layer:
    kind: str  # SP, RL, CH
    name: str
    features: list[str]
    base: str | None = None  # RL: the span layer
    first_column: int = 0



def _cut(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def _number(text: str) -> bool:
    """Only ASCII digits (``"²".isdigit()`` is true, and ``int()`` refuses it)."""
    return text.isascii() and text.isdigit()

def _fail(message: str, file: str, line: int | None = None) -> FormatError:
    return FormatError(message, file=file, line=line)


def _pieces(cell: str) -> list[tuple[str, str | None, str | None]]:
    """``(value, id, second id)`` of each annotation in a cell."""
    if cell == "_":
        return []
    if "\\" in cell:
        out = []
        for piece in _SPLIT.split(cell):
            m = _CELL_PIECE.match(piece)
            assert m is not None
            out.append((_unescape(m.group(1)), m.group(2), m.group(3)))
        return out
    # no escapes (the common case): string operations are enough
    found: list[tuple[str, str | None, str | None]] = []
    for piece in cell.split("|"):
        if piece.endswith("]"):
            cut = piece.rfind("[")
            ids = piece[cut + 1:-1]
            first, sep, second = ids.partition("_")
            if cut >= 0 and _number(first) and (not sep or _number(second)):
                found.append((piece[:cut], first, second if sep else None))
                continue
        found.append((piece, None, None))
    return found


def _header(lines: list[str], file: str) -> tuple[list[_Layer], int]:
    layers: list[_Layer] = []
    i = 0
    if not lines or not lines[0].startswith("#FORMAT=WebAnno TSV 3"):
        raise _fail("a WebAnno TSV 3 file starts with '#FORMAT=WebAnno TSV 3.x'", file, 1)
    column = 3
    while i < len(lines) and lines[i].startswith("#") and not lines[i].startswith("#Text="):
        line = lines[i]
        m = re.match(r"^#T_(SP|RL|CH)=(.*)$", line)
        if m:
            parts = m.group(2).split("|")
            base = None
            features = parts[1:]
            if m.group(1) == "RL":
                if not features or not features[-1].startswith("BT_"):
                    raise _fail("a relation layer ends with its base type (BT_...)", file, i + 1)
                base = features[-1][3:]
            layers.append(_Layer(m.group(1), parts[0], features, base, column))
            column += len(features)
        i += 1
    return layers, column


def _column_names(layers: list[_Layer]) -> dict[int, str]:
    """Column → the token attribute a column of another layer is kept in: ``LAYER|FEATURE``
    (the feature alone for :data:`TOKEN_LAYER`), with ``#2``, ``#3``... when a header
    declares one twice."""
    names: dict[int, str] = {}
    seen: dict[str, int] = {}
    for layer in layers:
        for k, feature in enumerate(layer.features):
            name = feature if layer.name == TOKEN_LAYER else f"{layer.name}|{feature}"
            seen[name] = seen.get(name, 0) + 1
            names[layer.first_column + k] = name if seen[name] == 1 else f"{name}#{seen[name]}"
    return names


def _span_layer(layers: list[_Layer], name: str | None) -> _Layer | None:
    return next((layer for layer in layers if layer.kind == "SP" and layer.name == name), None)


def _coreference_layers(layers: list[_Layer], wanted: str | None,
                        file: str) -> tuple[_Layer | None, _Layer | None, str]:
    """(the mention layer, the relation layer on it or None, ``chain`` or ``relation``):
    the layer ``wanted`` (the ``layer`` read option: a chain, relation or span layer's
    name), else the first chain layer (DKPro Core's ``CoreferenceLink`` before the
    others), else the first relation layer on a declared span layer that is not a
    syntactic dependency (one whose name says ``coref`` before the others)."""
    if wanted is not None:
        layer = next((layer for layer in layers if layer.name == wanted), None)
        if layer is None:
            names = ", ".join(layer.name for layer in layers) or "none"
            raise UsageError(f"{file}: the file has no layer {wanted!r} (its layers: {names})")
        if layer.kind == "CH":
            return layer, None, "chain"
        if layer.kind == "RL":
            base = _span_layer(layers, layer.base)
            if base is None:
                raise _fail(f"the relation layer {wanted}'s base {layer.base} is not a span layer of the file",
                            file, 1)
            return base, layer, "relation"
        return layer, next((r for r in layers if r.kind == "RL" and r.base == layer.name), None), "relation"
    chains = [layer for layer in layers if layer.kind == "CH"]
    if chains:
        return next((layer for layer in chains if layer.name == LINK_LAYER), chains[0]), None, "chain"
    relations = sorted((layer for layer in layers if layer.kind == "RL" and _span_layer(layers, layer.base)
                        and layer.name not in NOT_COREFERENCE),
                       key=lambda layer: "coref" not in layer.name.lower())
    if relations:
        return _span_layer(layers, relations[0].base), relations[0], "relation"
    return None, None, "relation"


def relation_link(value: str | None, layer: str) -> tuple[str, dict[str, Any]]:
    """(link type, link attributes) of a relation of the relation layer ``layer`` whose
    type feature holds ``value`` (None: the layer has no type feature, or it is unset).

    GUM's identity types (:data:`IDENTITY_TYPES`) are coreference, ``bridge:aggr`` a
    split antecedent, ``bridge`` and ``bridge:SUBTYPE`` bridging (the subtype its
    ``relation`` attribute); no value (or ``*``) in a layer whose name says ``coref`` is
    coreference, elsewhere a link of type ``relation``; any other value a link of that
    type. The ``type`` attribute keeps a value the link type does not say (the writer
    writes it back)."""
    attrs: dict[str, Any] = {}
    if value in (None, "", "*"):
        link_type = COREFERENCE if "coref" in layer.lower() else "relation"
        if value is not None:
            attrs["type"] = value
        return link_type, attrs
    if value in IDENTITY_TYPES:
        attrs["type"] = value
        return COREFERENCE, attrs
    if value == "bridge:aggr":
        attrs["type"] = value
        return SPLIT_ANTECEDENT, attrs
    if value.startswith("bridge"):
        sub = value.partition(":")[2]
        if sub:
            attrs["relation"] = sub
        if value != "bridge" and not sub:
            attrs["type"] = value
        return BRIDGING, attrs
    return value, attrs


def _read(text: str, name: str, file: str, report: Report, newline: str, wanted: str | None = None) -> Any:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    layers, width = _header(lines, file)
    mention_layer, relation, style = _coreference_layers(layers, wanted, file)
    others = [layer for layer in layers if layer.kind in ("CH", "RL") and layer is not mention_layer
              and layer is not relation]
    if others:
        report.warning("webanno.layer-not-read", "chain and relation layers other than the one read as "
                       "coreference are kept as written (token columns), not read as coreference; the read "
                       "option layer=NAME reads another one", file=file, merge=True,
                       example=", ".join(layer.name or "(no name)" for layer in others[:5]))
    header_end = next((i for i, line in enumerate(lines) if line.startswith("#Text=")), len(lines))
    header = lines[:header_end]
    while header and header[-1] == "":
        header.pop()
    layout = WebAnnoLayout(header=header, mention_layer=mention_layer.name if mention_layer else None,
                           mention_features=list(mention_layer.features) if mention_layer else [],
                           relation_layer=relation.name if relation is not None else None,
                           style=style, newline=newline)
    forms: list[str] = []
    ids: list[str] = []
    offsets: list[tuple[int, int]] = []
    sentences: list[Any] = []
    kept: dict[str, list[str | None]] = {}
    kept_columns = [(layer, k) for layer in layers
                    if layer is not mention_layer and layer is not relation
                    for k in range(len(layer.features))]
    names = _column_names(layers)
    for layer, k in kept_columns:
        kept[names[layer.first_column + k]] = []
    #: (column, where its values go, kept as written) for each kept column
    kept_cells = [(layer.first_column + k, kept[names[layer.first_column + k]], layer.name != TOKEN_LAYER)
                  for layer, k in kept_columns]
    # the mention annotations (in order of their first token): their tokens, features
    # and (chain style) entity
    tokens_of: dict[str, list[int]] = {}
    attrs_of: dict[str, dict[str, Any]] = {}
    entity_of: dict[str, str] = {}
    relations: list[tuple[int, str, str | None, str, str | None, str | None, int, dict[str, str]]] = []
    token_index: dict[str, int] = {}
    #: sub-tokens whose coreference annotations moved to their token
    moved: list[str] = []
    comments: list[str] = []
    first = 0
    trailing = None
    #: the coreference columns (blanked in a kept sub-token line: its annotations move
    #: to its token)
    coref_columns = {layer.first_column + k for layer in (mention_layer, relation) if layer is not None
                     for k in range(len(layer.features))}

    def close() -> None:
        nonlocal first, comments
        if len(forms) > first:
            sentences.append(model.Sentence(first=first, last=len(forms) - 1, comments=comments))
        elif comments:
            raise _fail("a #Text line without tokens", file, lineno)
        first, comments = len(forms), []

    #: (column, feature) of the mention layer's columns; the relation layer's type and
    #: governor columns (-1: none)
    mention_columns = [] if mention_layer is None or style == "chain" else \
        [(mention_layer.first_column + k, feature) for k, feature in enumerate(mention_layer.features)]
    governor_column = relation.first_column + len(relation.features) - 1 if relation is not None else -1
    #: the relation layer's feature columns before its governor column: (column, feature)
    relation_columns = [] if relation is None else \
        [(relation.first_column + k, feature) for k, feature in enumerate(relation.features[:-1])]

    def _annotations(cells: list[str], index: int, tid: str, lineno: int) -> None:
        """The coreference cells of one token line (a sub-token's go to its token)."""
        if mention_layer is not None and style == "chain":
            _chain_cells(cells, mention_layer, index, tokens_of, attrs_of, entity_of, file, lineno)
        for column, feature in mention_columns:
            cell = cells[column]
            if cell == "_":
                continue
            for value, aid, _ in _pieces(cell):
                key = aid if aid is not None else f"t{tid}.0"
                toks = tokens_of.get(key)
                if toks is None:
                    tokens_of[key] = [index]
                elif toks[-1] != index:
                    toks.append(index)
                if value != "*" and value:
                    found = attrs_of.get(key)
                    if found is None:
                        attrs_of[key] = {feature: value}
                    elif feature not in found:
                        found[feature] = value
        if governor_column >= 0 and cells[governor_column] not in ("_", ""):
            targets = _pieces(cells[governor_column])
            values: list[list[str | None]] = []
            for column, _ in relation_columns:
                listed: list[str | None] = [value for value, _, _ in _pieces(cells[column])] \
                    if cells[column] != "_" else [None] * len(targets)
                if len(listed) != len(targets):
                    raise _fail("the relation cells hold different numbers of annotations", file, lineno)
                values.append(listed)
            for k, (gov, src, dep) in enumerate(targets):
                row = [listed[k] for listed in values]
                extra = {feature: value for (_, feature), value in zip(relation_columns[1:], row[1:])
                         if value is not None}
                relations.append((index, tid, row[0] if row else None, gov, src, dep, lineno, extra))

    lineno = header_end
    for lineno, line in enumerate(lines[header_end:], header_end + 1):
        if not line:
            close()
            continue
        if line.startswith("#"):
            if len(forms) > first:
                close()
            comments.append(line)
            continue
        cells = line.split("\t")
        has_tab = len(cells) == width + 1 and cells[-1] == ""
        if has_tab:
            cells.pop()
        if trailing is None:
            trailing = has_tab
        if len(cells) != width:
            raise _fail(f"a token line has {len(cells)} columns where the header declares {width}", file, lineno)
        tid, span, form = cells[0], cells[1], cells[2]
        if "." in tid and _TOKEN_ID.match(tid) is not None:
            # a sub-token: its annotations belong to its token; the line is kept
            parent = token_index.get(tid.partition(".")[0])
            if parent is None or parent < first:
                raise _fail(f"sub-token {tid} follows no token {tid.partition('.')[0]} of its sentence",
                            file, lineno)
            if tid in token_index:
                raise _fail(f"duplicate token id {tid}", file, lineno)
            token_index[tid] = parent
            kept_line = [("_" if k in coref_columns else cell) for k, cell in enumerate(cells)]
            if any(cells[k] != "_" for k in coref_columns):
                moved.append(tid)
            layout.subtokens.setdefault(ids[parent], []).append("\t".join(kept_line) + ("\t" if has_tab else ""))
            _annotations(cells, parent, tid, lineno)
            continue
        if tid in token_index or _TOKEN_ID.match(tid) is None:
            if tid in token_index:
                raise _fail(f"duplicate token id {tid}", file, lineno)
            raise _fail(f"token id {tid!r} is not SENTENCE-TOKEN", file, lineno)
        start, _, end = span.partition("-")
        if not (_number(start) and _number(end)):
            raise _fail(f"token offsets {span!r} are not START-END", file, lineno)
        if len(start) > MAX_DIGITS or len(end) > MAX_DIGITS:
            raise _fail(f"token offsets {_cut(span)!r} have more than {MAX_DIGITS} digits", file, lineno)
        pair = (int(start), int(end))
        if pair[0] > pair[1]:
            raise _fail(f"token offsets {span!r} are not START-END", file, lineno)
        index = len(forms)
        token_index[tid] = index
        forms.append(form)
        ids.append(tid)
        offsets.append(pair)
        for column, values, plain in kept_cells:
            cell = cells[column]
            values.append(None if cell == "_" else cell if plain or "\\" not in cell else _unescape(cell))
        _annotations(cells, index, tid, lineno)
    close()
    # chain style: the type label of a chain link sits on its tokens
    ref_of: dict[str, str] = {}
    fields: list[dict[str, Any]] = []
    first_token_of: dict[int, list[str]] = {}
    for key, toks in tokens_of.items():  # ascending: rows come in order
        spans = ((toks[0], toks[-1]),) if toks[-1] - toks[0] == len(toks) - 1 else model.contiguous_spans(toks)
        mid = key if style == "relation" else f"m{key}"
        ref_of[key] = mid
        first_token_of.setdefault(toks[0], []).append(key)
        # every field of a Markable, built in one go (10⁵ markables: no call per markable)
        fields.append({"id": mid, "spans": spans, "entity": entity_of.get(key), "head": None,
                       "attributes": attrs_of.get(key) or {}, "layer": None, "sets": {}, "min": None,
                       "optional": False})
    markables = [model.Markable(**values) for values in fields]
    links = []
    for n, (index, tid, type_, gov, src, dep, lineno, extra) in enumerate(relations, 1):
        if gov not in token_index:
            raise _fail(f"relation governor {gov} is no token of this file", file, lineno)
        # an end without an annotation id: the one annotation without id on its (sub-)token,
        # else the one annotation starting on its token
        source = src if src not in (None, "0") else f"t{gov}.0" if f"t{gov}.0" in tokens_of \
            else _only(first_token_of.get(token_index[gov], []), file, lineno)
        target = dep if dep not in (None, "0") else f"t{tid}.0" if f"t{tid}.0" in tokens_of \
            else _only(first_token_of.get(index, []), file, lineno)
        for which in (source, target):
            if which not in tokens_of:
                raise _fail(f"relation names annotation {which}, which the file does not hold", file, lineno)
        link_type, attrs = relation_link(type_, relation.name if relation is not None else "")
        attrs.update(extra)
        links.append(model.Link.fast(f"rel_{n}", ref_of[source], (ref_of[target],), link_type, attributes=attrs))
    layout.trailing_tab = bool(trailing)
    if moved:
        report.warning("webanno.subtoken-annotations", "coreference annotations on sub-tokens are read as "
                       "annotations of their token (corefio's mentions are made of tokens): written back, they "
                       "sit on the token", file=file, count=len(moved), merge=True, example=moved[0])
    canonical = _are_canonical(offsets, forms, [(s.first, s.last) for s in sentences])
    tokens = model.Tokens(forms=forms, ids=ids, offsets=None if canonical else offsets, attributes=kept)
    try:
        return model.Document.build(name=name, tokens=tokens, sentences=sentences, markables=markables,
                                    links=links, layout={NAME: layout})
    except ModelError as exc:
        raise _fail(str(exc), file) from None


def _chain_cells(cells: list[str], layer: _Layer, index: int, tokens_of: dict[str, list[int]],
                 attrs_of: dict[str, dict[str, Any]], entity_of: dict[str, str], file: str, lineno: int) -> None:
    """The chain links on one token: ``VALUE->N-M`` pieces (link ``M`` of chain ``N``)
    name the mentions; ``VALUE[N]`` pieces give the mention of chain ``N`` a feature."""
    on_token: dict[str, str] = {}  # chain → the key of its link on this token
    typed: list[tuple[str, str, str]] = []
    for k, feature in enumerate(layer.features):
        cell = cells[layer.first_column + k]
        if cell == "_":
            continue
        for piece in _SPLIT.split(cell):
            m = _CHAIN.match(piece)
            if m is None:
                listed = _pieces(piece)
                if not listed:  # '_' or nothing between two '|'
                    raise _fail(f"an empty annotation in the stacked cell {cell!r} (column {layer.first_column + k + 1})",
                                file, lineno)
                value, chain, _ = listed[0]
                if chain is not None:
                    typed.append((chain, feature, value))
                continue
            value, chain, link = _unescape(m.group(1)), m.group(2), m.group(3)
            key = f"{chain}-{link}"
            on_token[chain] = key
            toks = tokens_of.get(key)
            if toks is None:
                tokens_of[key] = [index]
                entity_of[key] = chain
                attrs_of[key] = {}
            elif toks[-1] != index:
                toks.append(index)
            if value not in ("", "*"):
                attrs_of[key].setdefault(feature, value)
    for chain, feature, value in typed:
        found = on_token.get(chain)
        if found is not None and value not in ("", "*"):
            attrs_of[found].setdefault(feature, value)


def _canonical_offsets(forms: list[str], sentences: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Offsets of tokens separated by one space, sentences by one line end: what the
    forms alone give (the reader keeps offsets only when they say more)."""
    out = []
    pos = 0
    for a, b in sentences:
        for i in range(a, b + 1):
            out.append((pos, pos + len(forms[i])))
            pos += len(forms[i]) + 1
    return out


def _are_canonical(offsets: list[tuple[int, int]], forms: list[str], sentences: list[tuple[int, int]]) -> bool:
    """Are ``offsets`` those :func:`_canonical_offsets` gives (compared without building them)?"""
    pos = 0
    for a, b in sentences:
        for i in range(a, b + 1):
            start, end = offsets[i]
            if start != pos or end != pos + len(forms[i]):
                return False
            pos = end + 1
    return True


def _only(keys: list[str], file: str, lineno: int) -> str:
    if len(keys) != 1:
        raise _fail("a relation without annotation ids needs exactly one annotation starting at each end",
                    file, lineno)
    return keys[0]


def read(source: Source, *, report: Report, strict: bool = False, layer: str | None = None) -> Any:
    """One WebAnno TSV file: one document named after the file; a ``.zip`` of them (as
    corefio writes several documents, or a folder of INCEpTION's exports zipped): one
    document per ``.tsv`` in the zip's order, named after its file."""
    if is_zip(_head(source)):
        return model.Corpus(documents=list(_zipped(source, report, layer)), metadata={}, schemes=[], layout={})
    text, newline = split_newlines(source.read_text(), source.name)
    return model.Corpus(documents=[_read(text, source.stem, source.name, report, newline, layer)],
                        metadata={}, schemes=[], layout={})


def _head(source: Source) -> bytes:
    if source.data is not None:
        return source.data[:4]
    with source.open() as f:
        return f.read(4)


def _zipped(source: Source, report: Report, layer: str | None) -> Iterator[Any]:
    """The documents of a zip of WebAnno TSV files, opened by :mod:`corefio.io.archive`."""
    with open_zip(source.path if source.path is not None else source.read_bytes(), shown=source.name) as archive:
        entries = [e for e in archive.entries if not e.skipped]
        if any(re.fullmatch(r"exportedproject[^/]*\.json", e.name) for e in entries):
            raise FormatError("an INCEpTION project export (exportedproject.json): it holds each document once "
                              "per annotator; export the documents, or unpack the project and read one "
                              "annotator's files", file=source.name, line=1)
        tsvs = [e for e in entries if e.suffix == ".tsv"]
        if not tsvs:
            raise FormatError("the zip holds no .tsv file", file=source.name, line=1)
        for entry in tsvs:
            name = f"{source.name}:{entry.name}"
            text, newline = split_newlines(decode_utf8(archive.read(entry), name), name)
            yield _read(text, PurePosixPath(entry.name).name.rsplit(".", 1)[0], name, report, newline, layer)


# -- writing ----------------------------------------------------------------------------
#: what a feature value escapes (:func:`_escape`)
_SPECIAL = re.compile(r"([\\\[\]|])")


def _escape(value: str) -> str:
    """A feature value as a cell writes it (``\\``, brackets and ``|`` escaped)."""
    if value in ("", "_", "*"):
        return "\\" + value if value else "*"
    # the writer escapes every feature value of every token (567,900 for the benchmark
    # key); most hold nothing to escape, which one search of the compiled pattern says:
    # 0.62 s -> 0.06 s for them, against re.sub with the pattern looked up each time
    return _SPECIAL.sub(r"\\\1", value) if _SPECIAL.search(value) else value


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value) if "\\" in value else value


_PLAIN_NUMBER = re.compile(rf"^[1-9][0-9]{{0,{MAX_DIGITS - 1}}}$")


def _relation_cells(relations: list[tuple[str, str, dict[str, Any]]], features: list[str]) -> list[str]:
    """The relation layer's cells of one token: the type column (the first feature),
    the other features' columns (link attributes of their names, ``*`` for none), the
    governor column (``BT_``, the last); a layer with only the governor column has no
    type column."""
    if not relations:
        return ["_"] * len(features)
    cells = []
    for k, feature in enumerate(features[:-1]):
        if k == 0:
            cells.append("|".join(_escape_type(t) for t, _, _ in relations))
            continue
        values = [attrs.get(feature) for _, _, attrs in relations]
        cells.append("_" if all(v is None for v in values) else
                     "|".join("*" if v is None else _escape(str(v)) for v in values))
    cells.append("|".join(g for _, g, _ in relations))
    return cells


def _escape_type(value: str) -> str:
    return value if value in ("", "*") else _escape(value)


def _written_type(link: Any) -> str:
    if "type" in link.attributes and isinstance(link.attributes["type"], str):
        return link.attributes["type"]
    if link.type == BRIDGING:
        sub = link.attributes.get("relation")
        return f"bridge:{sub}" if sub else "bridge"
    if is_identity(link.type):
        return "coref"
    if link.type == SPLIT_ANTECEDENT:
        return "bridge:aggr"
    return link.type


def _reads_back(written: str, link_type: str, layer: str) -> bool:
    """Whether a relation of type ``written`` in the relation layer ``layer`` reads back
    as a link of type ``link_type`` (:func:`relation_link`)."""
    read = relation_link(written, layer)[0]
    return read == link_type or (is_identity(read) and is_identity(link_type))


def _one_layer_of_spans(doc: Any) -> Any:
    """``doc`` as the mention layer holds it: markables of other layers as
    :func:`~corefio.formats._layers.coreference_layer` keeps them, and each
    discontinuous mention one span from its first to its last word (both losses are
    reported before writing: ``loss.layers``, ``loss.discontinuous``)."""
    doc = coreference_layer(doc)
    if not any(m.is_discontinuous for m in doc.markables):
        return doc
    return doc.copy(markables=[
        m.copy(spans=((m.first, m.last),)) if m.is_discontinuous else m for m in doc.markables])


def _document(doc: Any, report: Report) -> str:
    doc = _one_layer_of_spans(doc)
    lay = doc.layout.get(NAME)
    lay = lay if isinstance(lay, WebAnnoLayout) else None
    chain_style = lay is not None and lay.style == "chain"
    forms = doc.tokens.forms
    n = len(forms)
    mention_layer = lay.mention_layer if lay is not None else "webanno.custom.Referent"  # None: the file had none
    features = lay.mention_features if lay is not None else \
        sorted({k for m in doc.markables for k in m.attributes}) or ["entity"]
    # the columns after the form, in header order: a token attribute's name, or
    # MENTIONS / RELATIONS for the coreference layers
    plan: list[str] = []
    relation_features = ["type", f"BT_{mention_layer}"]
    relation_name = "webanno.custom.Coref"
    if lay is not None:
        header = list(lay.header)
        declared, _ = _header(header, doc.name)
        relation = next((layer for layer in declared if layer.kind == "RL" and layer.name == lay.relation_layer
                         and not chain_style), None)
        mentions = None if chain_style else _span_layer(declared, mention_layer)
        chains = next((layer for layer in declared if layer.kind == "CH" and layer.name == mention_layer), None) \
            if chain_style else None
        names = _column_names(declared)
        for layer in declared:
            if layer is relation:
                plan.append(RELATIONS)
                relation_features, relation_name = layer.features, layer.name
            elif layer is mentions:
                plan.append(MENTIONS)
            elif layer is chains:
                plan.append(CHAINS)
            else:
                plan.extend(names[layer.first_column + k] for k in range(len(layer.features)))
        needs_links = bool(doc.links) or len(doc.markables) > len(doc.chain_indices())
        if (doc.markables and ((MENTIONS not in plan and CHAINS not in plan) or not features)) or \
                (not chain_style and needs_links and RELATIONS not in plan):
            # the file's layers cannot hold these mentions (it had no coreference layer):
            # written as a file of its own, the other layers' cells kept as span layers
            return _document(doc.copy(layout={k: v for k, v in doc.layout.items() if k != NAME}), report)
    else:
        header = ["#FORMAT=WebAnno TSV 3.3"]
        layers: dict[str, list[str]] = {}
        for k in doc.tokens.attributes:
            name, _, feat = k.rpartition("|")
            layers.setdefault(name or TOKEN_LAYER, []).append(feat)
        for name, feats in layers.items():
            header.append(f"#T_SP={name}|{'|'.join(feats)}")
            plan.extend(feat if name == TOKEN_LAYER else f"{name}|{feat}" for feat in feats)
        header.append(f"#T_SP={mention_layer}|{'|'.join(features)}")
        header.append(f"#T_RL=webanno.custom.Coref|type|BT_{mention_layer}")
        plan += [MENTIONS, RELATIONS]
    # numeric annotation ids: the source's when they are plain numbers (``8``, not
    # ``08``: reading both back as 8 would make one annotation of two), each once; new
    # ones for the others
    number: dict[str, int] = {}
    for m in doc.markables:
        if _PLAIN_NUMBER.match(m.id) and int(m.id) not in number.values():
            number[m.ref] = int(m.id)
    used = set(number.values())
    counter = 0
    for m in doc.markables:
        if m.ref not in number:
            counter += 1
            while counter in used:
                counter += 1
            number[m.ref] = counter
    sentences = [(s.first, s.last, s.comments) for s in doc.sentences] or ([(0, n - 1, [])] if n else [])
    ids = doc.tokens.ids if lay is not None and doc.tokens.ids is not None else None
    if ids is None:
        ids = [f"{k + 1}-{i - a + 1}" for k, (a, b, _) in enumerate(sentences) for i in range(a, b + 1)]
    offsets = doc.tokens.offsets
    if offsets is None:
        offsets = _canonical_offsets(forms, [(a, b) for a, b, _ in sentences])
    on_token: list[list[Any]] = [[] for _ in range(n)]
    for m in sorted(doc.markables, key=lambda m: number[m.ref]):
        for i in range(m.first, m.last + 1):
            on_token[i].append(m)
    # a mention the source wrote without an annotation id (one token, alone on it: the
    # reader names it t<token id>.0) is written so again, its relations naming it 0
    for m in doc.markables:
        if len(m.spans) == 1 and m.first == m.last and m.id == f"t{ids[m.first]}.0" and len(on_token[m.first]) == 1:
            number[m.ref] = 0
    by_ref = {m.ref: m for m in doc.markables}
    first_of_entity: dict[str, str] = {}
    for m in doc.markables:
        if m.entity is not None:
            first_of_entity.setdefault(m.entity, m.ref)
    relations: list[list[tuple[str, str, dict[str, Any]]]] = [[] for _ in range(n)]
    # chains given by entities (not links): each mention points to the one before
    linked = {link.source for link in doc.links if is_identity(link.type)} | \
        {t for link in doc.links if is_identity(link.type) for t in link.targets}
    previous: dict[str, Any] = {}
    for m in doc.markables:
        if m.entity is None:
            continue
        before = previous.get(m.entity)
        previous[m.entity] = m
        if before is not None and not (m.ref in linked and before.ref in linked):
            # as GUM does: from the later mention (governor) to the one before, on the latter's row
            relations[before.first].append(("coref", _relation_end(ids[m.first], number[m.ref], number[before.ref]),
                                            {}))
    misread: list[str] = []  # types of links whose written type reads back as another
    for link in doc.links:
        written = _written_type(link)
        if not chain_style and len(relation_features) > 1 and not _reads_back(written, link.type, relation_name):
            misread.extend(link.type for _ in link.targets)
            continue
        source = by_ref[link.source]
        for t in link.targets:
            target = by_ref.get(t) if link.target_kind == "markable" else by_ref.get(first_of_entity.get(t, ""))
            if target is None:
                continue  # a link to an entity without mentions
            relations[target.first].append(
                (written, _relation_end(ids[source.first], number[source.ref], number[target.ref]), link.attributes))
    if misread:
        LossLog(report, NAME).lose("link-types", "links whose type its relation layer reads as another (GUM's "
                                   "coref, ana, cata, appos, pred and disc are coreference, bridge... bridging)",
                                   document=doc, count=len(misread), example=misread[0])
    if RELATIONS in plan and len(relation_features) == 1:
        default = relation_link(None, relation_name)[0]
        changed = [t for rel in relations for t, _, _ in rel if relation_link(t, relation_name)[0] != default]
        if changed:
            LossLog(report, NAME).lose("link-types", f"link types in the relation layer {relation_name}, which "
                                       f"has no type column (its relations read back as {default})",
                                       document=doc, count=len(changed), example=changed[0])
    link_of = _chain_links(doc) if chain_style else {}
    if chain_style:
        typed = [link for link in doc.links if not is_identity(link.type)]
        if typed:
            LossLog(report, NAME).lose("link-types", "links other than coreference in a chain-layer file",
                                       document=doc, count=len(typed), example=typed[0].type)
    attributes = doc.tokens.attributes
    lines = list(header) + [""]
    trailing = "\t" if lay is None or lay.trailing_tab else ""
    for a, b, comments in sentences:
        lines.append("")
        texts = [c for c in comments if c.startswith("#")] if lay is not None else []
        if not texts:
            texts = ["#Text=" + " ".join(forms[a:b + 1])]
        lines.extend(texts)
        for i in range(a, b + 1):
            cells = [ids[i], f"{offsets[i][0]}-{offsets[i][1]}", forms[i]]
            for column in plan:
                if column == MENTIONS:
                    for f, feature in enumerate(features):
                        values = [(m, m.attributes.get(feature)) for m in on_token[i]]
                        if not values or (f > 0 and all(v is None for _, v in values)):
                            cells.append("_")
                        else:
                            # the first column names every annotation, the others those with a value
                            cells.append("|".join(f"{_escape(str(v)) if v is not None else '*'}"
                                                  + (f"[{number[m.ref]}]" if number[m.ref] else "")
                                                  for m, v in values if f == 0 or v is not None))
                elif column == CHAINS:
                    cells.extend(_chain_row(on_token[i], features, link_of))
                elif column == RELATIONS:
                    cells.extend(_relation_cells(relations[i], relation_features))
                else:
                    column_values = attributes.get(column)
                    value = column_values[i] if column_values is not None else None
                    cells.append("_" if value is None else value if "|" in column else _escape(value))
            lines.append("\t".join(cells) + trailing)
            if lay is not None:
                lines.extend(lay.subtokens.get(ids[i], ()))
    newline = lay.newline if lay is not None else "\n"
    # the header, a blank line, then each sentence after a blank line of its own
    text = newline.join(lines) + newline
    return text


def _relation_end(row: str, governor: int, dependent: int) -> str:
    """A relation cell's item: ``row[governor_dependent]``, 0 for a mention without an
    annotation id, the row alone when neither has one."""
    return f"{row}[{governor}_{dependent}]" if governor or dependent else row


def _chain_links(doc: Any) -> dict[str, tuple[int, int]]:
    """Markable ref → (chain number, link number) for the chain style: the numbers the
    reader gave (markable ids ``mN-M``) when every markable has them, else chains
    numbered in order and links in text order."""
    found: dict[str, tuple[int, int]] = {}
    for m in doc.markables:
        chain, _, link = m.id[1:].partition("-")
        if not (m.id.startswith("m") and _number(chain) and _number(link)
                and len(chain) <= MAX_DIGITS and len(link) <= MAX_DIGITS):
            break
        found[m.ref] = (int(chain), int(link))
    else:
        if len(set(found.values())) == len(found):
            return found
    found = {}
    for k, chain_members in enumerate(sorted(doc.chain_indices(), key=lambda c: min(doc.markables[i].first
                                                                                   for i in c)), 1):
        members = sorted(chain_members, key=lambda i: (doc.markables[i].first, doc.markables[i].last))
        for j, i in enumerate(members, 1):
            found[doc.markables[i].ref] = (k, j)
    return found


def _chain_row(markables: list[Any], features: list[str], link_of: dict[str, tuple[int, int]]) -> list[str]:
    """The chain layer's cells of one token: ``TYPE[N]`` in a type column,
    ``RELATION->N-M`` in the relation column (the last feature whose name says relation)."""
    relation_feature = next((f for f in reversed(features) if "relation" in f.lower()), features[-1])
    on_token = sorted((link_of[m.ref], m) for m in markables if m.ref in link_of)
    cells = []
    for feature in features:
        if not on_token:
            cells.append("_")
            continue
        pieces = []
        for (chain, link), m in on_token:
            value = m.attributes.get(feature)
            text = _escape(str(value)) if value is not None else "*"
            pieces.append(f"{text}->{chain}-{link}" if feature == relation_feature else f"{text}[{chain}]")
        cells.append("|".join(pieces))
    return cells


def write(documents: Iterable, *, corpus: Any, report: Report, zip: bool | None = None) -> Iterator[str | bytes]:  # noqa: A002
    """One document: its file. Several (or ``zip``, or an output named ``.zip``): a zip of
    one ``.tsv`` per document, named after the document (as INCEpTION exports a
    project's documents); several documents for an output named ``.tsv`` are refused
    before anything is written (:func:`corefio.io.archive.one_file_per_document`).

    WebAnno TSV keeps no document name: reading a file names its document after the
    file. ``loss.document-name`` (info) says when the name read back will differ from
    the document's (an output named otherwise, or the name of a zip member made safe),
    ``loss.document-part`` (a warning) when the document has a part."""
    remaining = iter(documents)
    first = next(remaining, None)
    if first is None:
        return
    second = next(remaining, None)
    zipped = one_file_per_document(NAME, zip, report.file, several=second is not None, extension=".tsv")
    if not zipped:
        target = report.file if report.file not in (None, "-") else None
        _lose_name(report, first, PurePosixPath(target).name.split(".", 1)[0] if target else "document")
        yield _document(first, report)
        return
    members: dict[str, bytes] = {}
    for k, doc in enumerate(itertools.chain([first], [] if second is None else [second], remaining), 1):
        member = member_name(doc.name, None, k, members, ".tsv")
        _lose_name(report, doc, member[:-4])
        members[member] = _document(doc, report).encode("utf-8")
    yield zip_bytes(members)


def _lose_name(report: Report, doc: Any, read_back: str) -> None:
    """Report what of the document's name and part a reader will not find."""
    log = LossLog(report, NAME)
    if doc.name != read_back:
        log.lose("document-name", "document names (a file's document is named after the file)", document=doc,
                 example=f"{_cut(doc.name)} -> {_cut(read_back)}", severity="info")
    if doc.part is not None:
        log.lose("document-part", "document parts", document=doc, example=str(doc.part))


def sniff(head: bytes) -> bool:
    if is_zip(head):  # a zip of WebAnno TSV files (an XMI export names .xmi files)
        return b".tsv" in head and b".xmi" not in head and b"TypeSystem.xml" not in head
    return head.lstrip(b"\xef\xbb\xbf").startswith(b"#FORMAT=WebAnno TSV 3")


register(FormatSpec(
    name=NAME,
    description="WebAnno / INCEpTION TSV 3.x: span + relation coreference (GUM) or chain layers",
    extensions=(".tsv",),
    ambiguous_extensions=(".zip",),
    capabilities=Capabilities(
        discontinuous=False, nested=True, crossing=True, same_entity_overlap=True, cross_sentence=False,
        entity_ids=False, link_structure=True, link_types=True, multi_target_links=False,
        markable_attributes=True, entity_attributes=False, link_attributes=True, heads=False, min=False, optional=False, layers=False, sets=False, token_attributes=True,
        token_ids=True, whitespace=False, offsets=True, text=False, regions=False, sentences=True,
        sentence_attributes=frozenset({"comments"}), metadata=False, schemes=False, multiple_documents=True,
    ),
    read=read,
    write=write,
    sniff=sniff,
    options=(
        Option("layer", str, None, "the chain, relation or span layer to read as coreference (default: DKPro "
               "Core's CoreferenceLink, else the first chain layer, else the first relation layer on a span "
               "layer)", applies_to="read"),
        Option("zip", bool, None, "write a zip of one .tsv per document: true also for one document; false "
               "refuses several documents (default: a zip for an output named .zip or held in memory)"),
    ),
    aliases=("webanno",),
))
