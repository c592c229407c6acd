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
  annotation ids. It becomes a link from the governor to the dependent. Relation
  types in :data:`IDENTITY_TYPES` (GUM's ``coref``, ``ana``, ``cata``, ``appos``,
  ``pred``, ``disc``) are identity links (chains); ``bridge:aggr`` a split antecedent
  link; another ``bridge:SUBTYPE`` becomes a ``bridging``
  link with the subtype as its ``relation`` attribute (CorefUD's convention); any
  other type stays a typed link of that name. The written type is the
  link's ``type`` attribute when it differs from what the model type says.
* sub-tokens (``1-3.1``): their annotations are their token's; their lines are kept
  (coreference columns blanked) and written back after the token.
* chains (WebAnno's ``CoreferenceLink``): ``TYPE[N]`` in the type column and
  ``RELATION->N-M`` in the relation column: link ``M`` of chain ``N`` (its relation to
  the next link; ``*`` for none). Each link becomes a markable of entity ``N`` with the
  two values as attributes (``referenceType``, ``referenceRelation``).

The writer keeps the file's style: a chain-layer file is written with its chain layer,
anything else as span + relation layers (GUM's way: each mention of an entity points to
the one before it).

Other layers are kept as token attributes named ``LAYER|FEATURE`` holding the cells as
written; header lines other than the layer declarations (``#Summary1=...``) and each
sentence's ``#Text=`` line are kept in :class:`WebAnnoLayout` and the sentence comments.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..io._lazy import LazyModule
from ..model.mentions import BRIDGING, COREFERENCE, SPLIT_ANTECEDENT, is_identity
from ..diagnostics import Report
from ..errors import FormatError, ModelError
from ..model.layout import FormatLayout
from .losses import LossLog
from .registry import Capabilities, FormatSpec, register
from ..io.source import Source
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
    mention_layer: str = ""
    mention_features: list[str] = field(default_factory=list)
    #: "relation" or "chain"
    style: str = "relation"
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


def _read(text: str, name: str, file: str, report: Report, newline: str) -> Any:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    layers, width = _header(lines, file)
    relation = next((layer for layer in layers if layer.kind == "RL"), None)
    chain = next((layer for layer in layers if layer.kind == "CH"), None)
    if relation is not None:
        mention_layer = next((layer for layer in layers if layer.kind == "SP" and layer.name == relation.base), None)
        if mention_layer is None:
            raise _fail(f"the relation layer's base {relation.base} is not declared", file, 1)
    else:
        mention_layer = chain
    style = "chain" if relation is None and chain is not None else "relation"
    header_end = next((i for i, line in enumerate(lines) if line.startswith("#Text=")), len(lines))
    header = lines[:header_end]
    while header and header[-1] == "":
        header.pop()
    layout = WebAnnoLayout(header=header, mention_layer=mention_layer.name if mention_layer else "",
                           mention_features=list(mention_layer.features) if mention_layer else [],
                           style=style, newline=newline)
    forms: list[str] = []
    ids: list[str] = []
    offsets: list[tuple[int, int]] = []
    sentences: list[Any] = []
    kept: dict[str, list[str | None]] = {}
    kept_columns = [(layer, k) for layer in layers
                    if layer is not mention_layer and layer is not relation
                    for k in range(len(layer.features))]
    def kept_name(layer: _Layer, k: int) -> str:
        return layer.features[k] if layer.name == TOKEN_LAYER else f"{layer.name}|{layer.features[k]}"

    for layer, k in kept_columns:
        kept[kept_name(layer, k)] = []
    #: (column, where its values go, kept as written) for each kept column
    kept_cells = [(layer.first_column + k, kept[kept_name(layer, k)], layer.name != TOKEN_LAYER)
                  for layer, k in kept_columns]
    # the mention annotations (in order of their first token): their tokens, features
    # and (chain style) entity
    tokens_of: dict[str, list[int]] = {}
    attrs_of: dict[str, dict[str, Any]] = {}
    entity_of: dict[str, str] = {}
    relations: list[tuple[int, str, str, str | None, str | None, int]] = []
    token_index: dict[str, int] = {}
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
            sentences.append(model.Sentence._make(first=first, last=len(forms) - 1, comments=comments))
        elif comments:
            raise _fail("a #Text line without tokens", file, lineno)
        first, comments = len(forms), []

    #: (column, feature) of the mention layer's columns; the relation layer's type and
    #: governor columns (-1: none)
    mention_columns = [] if mention_layer is None or style == "chain" else \
        [(mention_layer.first_column + k, feature) for k, feature in enumerate(mention_layer.features)]
    type_column = relation.first_column if relation is not None else -1
    governor_column = relation.first_column + len(relation.features) - 1 if relation is not None else -1

    def _annotations(cells: list[str], index: int, tid: str, lineno: int) -> None:
        """The coreference cells of one token line (a sub-token's go to its token)."""
        if mention_layer is not None and style == "chain":
            _chain_cells(cells, mention_layer, index, tokens_of, attrs_of, entity_of)
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
        if type_column >= 0 and cells[type_column] != "_":
            types = _pieces(cells[type_column])
            targets = _pieces(cells[governor_column])
            if len(types) != len(targets):
                raise _fail("the relation cells hold different numbers of annotations", file, lineno)
            for (type_, _, _), (gov, src, dep) in zip(types, targets):
                relations.append((index, type_, gov, src, dep, lineno))

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
            layout.subtokens.setdefault(ids[parent], []).append("\t".join(kept_line) + ("\t" if has_tab else ""))
            _annotations(cells, parent, tid, lineno)
            continue
        if tid in token_index or _TOKEN_ID.match(tid) is None:
            if tid in token_index:
                raise _fail(f"duplicate token id {tid}", file, lineno)
            raise _fail(f"token id {tid!r} is not SENTENCE-TOKEN", file, lineno)
        start, _, end = span.partition("-")
        if not (start.isdigit() and end.isdigit() and start.isascii() and end.isascii()):
            raise _fail(f"token offsets {span!r} are not START-END", file, lineno)
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
    markables = model.Markable._make_many(fields)
    links = []
    for n, (index, type_, gov, src, dep, lineno) in enumerate(relations, 1):
        if gov not in token_index:
            raise _fail(f"relation governor {gov} is no token of this file", file, lineno)
        source = src if src not in (None, "0") else _only(first_token_of.get(token_index[gov], []), file, lineno)
        target = dep if dep not in (None, "0") else _only(first_token_of.get(index, []), file, lineno)
        for which in (source, target):
            if which not in tokens_of:
                raise _fail(f"relation names annotation {which}, which the file does not hold", file, lineno)
        attrs: dict[str, Any] = {}
        if type_ in IDENTITY_TYPES:
            link_type = COREFERENCE
            attrs["type"] = type_
        elif type_ == "bridge:aggr":
            link_type = SPLIT_ANTECEDENT
            attrs["type"] = type_
        elif type_.startswith("bridge"):
            link_type = BRIDGING
            sub = type_.partition(":")[2]
            if sub:
                attrs["relation"] = sub
            if type_ != "bridge" and not sub:
                attrs["type"] = type_
        else:
            link_type = type_ if type_ not in ("", "*") else "relation"
            if link_type != type_:
                attrs["type"] = type_
        links.append(model.Link.fast(f"rel_{n}", ref_of[source], (ref_of[target],), link_type, attributes=attrs))
    layout.trailing_tab = bool(trailing)
    canonical = _are_canonical(offsets, forms, [(s.first, s.last) for s in sentences])
    tokens = model.Tokens._make(forms=forms, ids=ids, offsets=None if canonical else offsets, attributes=kept)
    try:
        return model.Document.build(name=name, tokens=tokens, sentences=sentences, markables=markables,
                                    links=links, layout={NAME: layout})
    except ModelError as exc:
        raise _fail(str(exc), file) from None


def _chain_cells(cells: list[str], layer: _Layer, index: int, tokens_of: dict[str, list[int]],
                 attrs_of: dict[str, dict[str, Any]], entity_of: dict[str, str]) -> None:
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
                value, chain, _ = _pieces(piece)[0]
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


def read(source: Source, *, report: Report, strict: bool = False) -> Any:
    """One WebAnno TSV file: one document named after the file."""
    text, newline = split_newlines(source.read_text(), source.name)
    return model.Corpus._make(documents=[_read(text, source.stem, source.name, report, newline)],
                              metadata={}, schemes=[], layout={})


# -- writing ----------------------------------------------------------------------------
def _escape(value: str) -> str:
    """A feature value as a cell writes it (``\\``, brackets and ``|`` escaped)."""
    if value in ("", "_", "*"):
        return "\\" + value if value else "*"
    return re.sub(r"([\\\[\]|])", r"\\\1", value)


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value) if "\\" in value else value


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


def _document(doc: Any, report: Report) -> str:
    lay = doc.layout.get(NAME)
    lay = lay if isinstance(lay, WebAnnoLayout) else None
    chain_style = lay is not None and lay.style == "chain"
    forms = doc.tokens.forms
    n = len(forms)
    mention_layer = lay.mention_layer if lay is not None else "webanno.custom.Referent"
    features = lay.mention_features if lay is not None else \
        sorted({k for m in doc.markables for k in m.attributes}) or ["entity"]
    # the columns after the form, in header order: a token attribute's name, or
    # MENTIONS / RELATIONS for the coreference layers
    plan: list[str] = []
    if lay is not None:
        header = list(lay.header)
        declared, _ = _header(header, doc.name)
        relation = next((layer for layer in declared if layer.kind == "RL"), None)
        for layer in declared:
            if layer is relation:
                plan.append(RELATIONS)
            elif layer.kind == "SP" and layer.name == mention_layer and relation is not None:
                plan.append(MENTIONS)
            elif chain_style and layer.kind == "CH" and layer.name == mention_layer:
                plan.append(CHAINS)
            else:
                plan.extend(feature if layer.name == TOKEN_LAYER else f"{layer.name}|{feature}"
                            for feature in layer.features)
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
    # numeric annotation ids: the source's when they are numbers, else new ones
    number: dict[str, int] = {}
    # (ASCII digits only: "1¹".isdigit() is true, and int() refuses it)
    used = {int(m.id) for m in doc.markables if m.id.isascii() and m.id.isdigit()}
    counter = 0
    for m in doc.markables:
        if m.id.isascii() and m.id.isdigit():
            number[m.ref] = int(m.id)
        else:
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
        if m.is_discontinuous:
            continue
        for i in range(m.first, m.last + 1):
            on_token[i].append(m)
    by_ref = {m.ref: m for m in doc.markables}
    first_of_entity: dict[str, str] = {}
    for m in doc.markables:
        if m.entity is not None:
            first_of_entity.setdefault(m.entity, m.ref)
    relations: list[list[tuple[str, str]]] = [[] for _ in range(n)]
    # chains given by entities (not links): each mention points to the one before
    linked = {link.source for link in doc.links if is_identity(link.type)} | \
        {t for link in doc.links if is_identity(link.type) for t in link.targets}
    previous: dict[str, Any] = {}
    for m in doc.markables:
        if m.entity is None or m.is_discontinuous:  # a discontinuous mention is not written (loss.discontinuous)
            continue
        before = previous.get(m.entity)
        previous[m.entity] = m
        if before is not None and not (m.ref in linked and before.ref in linked):
            # as GUM does: from the later mention (governor) to the one before, on the latter's row
            relations[before.first].append(("coref", f"{ids[m.first]}[{number[m.ref]}_{number[before.ref]}]"))
    for link in doc.links:
        source = by_ref[link.source]
        for t in link.targets:
            target = by_ref.get(t) if link.target_kind == "markable" else by_ref.get(first_of_entity.get(t, ""))
            if target is None or target.is_discontinuous or source.is_discontinuous:
                continue  # an end that is not written
            relations[target.first].append(
                (_written_type(link), f"{ids[source.first]}[{number[source.ref]}_{number[target.ref]}]"))
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
                            cells.append("|".join(f"{_escape(str(v)) if v is not None else '*'}[{number[m.ref]}]"
                                                  for m, v in values if f == 0 or v is not None))
                elif column == CHAINS:
                    cells.extend(_chain_row(on_token[i], features, link_of))
                elif column == RELATIONS:
                    rel = relations[i]
                    cells.append("|".join(t for t, _ in rel) or "_")
                    cells.append("|".join(g for _, g in rel) or "_")
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


def _chain_links(doc: Any) -> dict[str, tuple[int, int]]:
    """Markable ref → (chain number, link number) for the chain style: the numbers the
    reader gave (markable ids ``mN-M``) when every markable has them, else chains
    numbered in order and links in text order."""
    found: dict[str, tuple[int, int]] = {}
    for m in doc.markables:
        chain, _, link = m.id[1:].partition("-")
        if not (m.id.startswith("m") and _number(chain) and _number(link)):
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


def write(documents: Iterable, *, corpus: Any, report: Report) -> Iterator[str]:
    """One file per document: a second document cannot follow in the same file."""
    for k, doc in enumerate(documents):
        if k:
            LossLog(report, NAME).lose("multiple-documents", "more than one document per file", document=doc)
            continue
        yield _document(doc, report)


def sniff(head: bytes) -> bool:
    return head.lstrip(b"\xef\xbb\xbf").startswith(b"#FORMAT=WebAnno TSV 3")


register(FormatSpec(
    name=NAME,
    description="WebAnno / INCEpTION TSV 3.x: span + relation coreference (GUM) or chain layers",
    extensions=(".tsv",),
    capabilities=Capabilities(
        discontinuous=False, nested=True, crossing=True, same_entity_overlap=True, cross_sentence=False,
        entity_ids=False, link_structure=True, link_types=True, multi_target_links=False,
        markable_attributes=True, entity_attributes=False, link_attributes=True, heads=False, min=False, optional=False, layers=False, sets=False, token_attributes=True,
        token_ids=True, whitespace=False, offsets=True, text=False, regions=False, sentences=True,
        sentence_attributes=frozenset({"comments"}), metadata=False, schemes=False, multiple_documents=False,
    ),
    read=read,
    write=write,
    sniff=sniff,
    aliases=("webanno",),
))
