"""LitBank's coreference TSV: ``X.ann`` (rows below) with ``X.txt`` beside it (the
tokens separated by spaces, one sentence per line); a directory of pairs is a corpus.

::

    MENTION<TAB>T0<TAB>0<TAB>37<TAB>0<TAB>38<TAB>her sister<TAB>PER<TAB>NOM
            id, first sentence, first token, last sentence, last token (0-based, inclusive),
            text, entity type, mention kind
    COREF<TAB>T0<TAB>her_sister-2          the mention's chain label (its entity)
    COP<TAB>T61<TAB>T59                    copula: a typed link from the first to the second
    APPOS<TAB>T12<TAB>T10                  apposition: likewise

Markables are the ``MENTION`` rows (id: the row's id); entity type and mention kind
give the attribute ``type`` as brat's LitBank files spell it (``NOM_PER``), so the two
LitBank formats convert into each other without change. Any other row of three fields
is a typed link named by its first field (``COP`` → ``cop``). Tokens come from the
``.txt`` cut at whitespace; when the text is exactly the tokens joined by single spaces
with a line end after each sentence (LitBank's files are) it is not kept: the writer
makes it again (and so it does for a text that is not its tokens separated by whitespace,
reported as ``loss.text``). The order of the rows is layout.

A chain's label is its entity id; the writer reports as ``loss.label`` the ids it changes
(blanks, or entities joined into one chain by identity links: the chain keeps its first
id) and gives a chain without one a new label no entity uses (a singleton without an
entity id gets no ``COREF`` row: LitBank's files have such mentions).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ..io._lazy import LazyModule
from ..model.mentions import is_identity
from ..diagnostics import Report
from ..errors import FormatError, ModelError
from ..model.layout import FormatLayout
from .losses import LossLog, lose_entity_ids
from .registry import Capabilities, FormatSpec, register
from ..io.source import Source
from ._layers import coreference_layer
from .brat import CollectionLayout, collection_files, first_ann_head, one_line, pair_files, pairs, read_pair_texts

model = LazyModule("corefio.model")

NAME = "litbank-tsv"
_ROW_KINDS = ("MENTION", "COREF")
#: one blank (what ``str.isspace`` and ``str.split`` take as one)
_BLANK = re.compile(r"\s")


@dataclass
class LitBankLayout(FormatLayout):
    """The order of the rows of one ``.ann`` file: ``(kind, id)``."""

    format: ClassVar[str] = NAME
    depends_on: ClassVar[frozenset[str]] = frozenset({"tokens", "markables", "links", "entities", "text"})

    rows: list[tuple[str, str]] = field(default_factory=list)
    newline: str = "\n"


@dataclass
class LitBankCollectionLayout(CollectionLayout):
    """The files of a directory of LitBank TSV pairs that are no documents (README,
    LICENSE, brat's configuration), as read."""

    format: ClassVar[str] = NAME


def _fail(message: str, file: str, line: int | None = None) -> FormatError:
    return FormatError(message, file=file, line=line)


def _tokens(text: str) -> tuple[list[str], list[tuple[int, int]], list[int | None], list[tuple[int, int]]]:
    """forms, offsets, the first token of each line (None: a line without tokens) and
    the sentences (first, last)."""
    forms: list[str] = []
    offsets: list[tuple[int, int]] = []
    line_starts: list[int | None] = []
    sentences: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        first = len(forms)
        for m in re.finditer(r"\S+", line):
            forms.append(m.group())
            offsets.append((pos + m.start(), pos + m.end()))
        line_starts.append(first if len(forms) > first else None)
        if len(forms) > first:
            sentences.append((first, len(forms) - 1))
        pos += len(line) + 1
    return forms, offsets, line_starts, sentences


def canonical_text(forms: list[str], sentences: list[tuple[int, int]]) -> str:
    """The tokens separated by single spaces, a line end after each sentence."""
    return "".join(" ".join(forms[a:b + 1]) + "\n" for a, b in sentences)


def parse(ann: str, text: str, *, name: str, file: str, newline: str = "\n") -> Any:
    forms, offsets, line_starts, bounds = _tokens(text)
    length_from = {a: b - a + 1 for a, b in bounds}  # a line's length, by its first token
    sentence_length = {k: None if start is None else length_from[start] for k, start in enumerate(line_starts)}
    lines = ann.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    layout = LitBankLayout(newline=newline)
    mentions: dict[str, dict[str, Any]] = {}
    labels: dict[str, str] = {}
    links: list[tuple[str, str, str, str, int]] = []
    coref_lines: dict[str, int] = {}
    for lineno, line in enumerate(lines, 1):
        fields = line.split("\t")
        kind = fields[0]
        if kind == "MENTION":
            if len(fields) != 9:
                raise _fail(f"a MENTION row has 9 fields, not {len(fields)}", file, lineno)
            mid = fields[1]
            if mid in mentions:
                raise _fail(f"duplicate mention id {mid}", file, lineno)
            try:
                s1, t1, s2, t2 = (int(x) for x in fields[2:6])
            except ValueError:
                raise _fail("sentence and token numbers must be integers", file, lineno) from None
            first = _token(s1, t1, line_starts, sentence_length, file, lineno)
            last = _token(s2, t2, line_starts, sentence_length, file, lineno)
            if last < first:
                raise _fail(f"mention {mid} ends before it starts", file, lineno)
            etype, mkind = fields[7], fields[8]
            type_ = etype if mkind == "_" else f"{mkind}_{etype}"
            mentions[mid] = {"span": (first, last), "attrs": {"type": type_} if type_ != "_" else {}}
            layout.rows.append(("MENTION", mid))
        elif kind == "COREF":
            if len(fields) != 3:
                raise _fail(f"a COREF row has 3 fields, not {len(fields)}", file, lineno)
            if fields[1] in labels:
                raise _fail(f"mention {fields[1]} has two COREF rows", file, lineno)
            labels[fields[1]] = fields[2]
            coref_lines[fields[1]] = lineno
            layout.rows.append(("COREF", fields[1]))
        elif len(fields) == 3 and kind:
            link_id = f"{kind}_{len(links) + 1}"
            links.append((link_id, kind.lower() if kind.isupper() else kind, fields[1], fields[2], lineno))
            layout.rows.append((kind, link_id))
        else:
            raise _fail(f"a row of LitBank's TSV is MENTION (9 fields), COREF or a relation (3 fields), "
                        f"not {kind!r} with {len(fields)}", file, lineno)
    for mid, lineno in coref_lines.items():
        if mid not in mentions:
            raise _fail(f"COREF names {mid}, which no MENTION row declares", file, lineno)
    built_links = []
    for link_id, type_, source, target, lineno in links:
        for end in (source, target):
            if end not in mentions:
                raise _fail(f"{end} is no mention of this file", file, lineno)
        built_links.append(model.Link.fast(link_id, source, (target,), type_))
    markables = [model.Markable.fast(mid, (m["span"],), labels.get(mid), attributes=m["attrs"])
                 for mid, m in mentions.items()]
    canonical = text == canonical_text(forms, bounds)
    tokens = model.Tokens(forms=forms) if canonical else model.Tokens(forms=forms, offsets=offsets)
    try:
        return model.Document.build(
            name=name, tokens=tokens, sentences=[model.Sentence(first=a, last=b) for a, b in bounds],
            markables=markables, links=built_links, text=None if canonical else text, layout={NAME: layout})
    except ModelError as exc:
        raise _fail(str(exc), file) from None


def _token(sentence: int, token: int, line_starts: list[int | None], lengths: dict[int, int | None],
           file: str, lineno: int) -> int:
    if not 0 <= sentence < len(line_starts) or line_starts[sentence] is None:
        raise _fail(f"sentence {sentence} is not a line of the text holding tokens", file, lineno)
    length = lengths[sentence]
    assert length is not None
    if not 0 <= token < length:
        raise _fail(f"token {token} is outside sentence {sentence} ({length} tokens)", file, lineno)
    start = line_starts[sentence]
    assert start is not None
    return start + token


def read(source: Source, *, report: Report, strict: bool = False) -> Any:
    """An ``.ann`` file (its ``.txt`` beside it) or a directory of pairs."""
    documents = []
    for ann_path, txt_path, stem in pairs(source, "LitBank TSV"):
        ann, newline, text = read_pair_texts(ann_path, txt_path)
        documents.append(parse(ann, text, name=stem, file=str(ann_path), newline=newline))
    kept = collection_files(source, report)
    return model.Corpus(documents=documents, metadata={}, schemes=[],
                        layout={NAME: LitBankCollectionLayout(files=kept)} if kept else {})


def _clean(value: str) -> bool:
    return "\t" not in value and "\n" not in value and "\r" not in value


def document_files(doc: Any, report: Report) -> tuple[str, str]:
    """The ``.ann`` and ``.txt`` texts of one document."""
    log = LossLog(report, NAME)
    doc = coreference_layer(doc)  # loss.layers is reported before writing
    lay = doc.layout.get(NAME)
    lay = lay if isinstance(lay, LitBankLayout) else None
    forms = doc.tokens.forms
    bounds = [(s.first, s.last) for s in doc.sentences] or ([(0, len(forms) - 1)] if forms else [])
    if doc.text is not None and doc.tokens.offsets is not None and _tokens(doc.text)[0] == forms:
        text = doc.text
        _, _, line_starts, _ = _tokens(text)
        first_line = {start: k for k, start in enumerate(line_starts) if start is not None}
        bounds = [(a, b) for a, b in _tokens(text)[3]]
    else:
        if doc.text is not None:
            log.lose("text", "a source text that is not its tokens separated by whitespace (markup, words not "
                     "separated by spaces): written as the tokens separated by spaces", document=doc)
        # forms looked at one by one only when one needs changing (one search of their
        # text first; with the brat writer's changes, convert --to litbank-tsv of the
        # benchmark key: 1.52 s -> 1.21 s CPU)
        bad = 0 if "" not in forms and not _BLANK.search("".join(forms)) else \
            sum(1 for f in forms if not f or _BLANK.search(f))
        if bad:
            log.lose("form", "empty word forms or forms with whitespace (the text is tokens separated by spaces)",
                     document=doc, count=bad)
        text = canonical_text([_BLANK.sub("_", f) or "_" for f in forms] if bad else forms, bounds)
        first_line = {a: k for k, (a, _) in enumerate(bounds)}
    where: list[tuple[int, int]] = [(0, 0)] * len(forms)
    for a, b in bounds:
        for i in range(a, b + 1):
            where[i] = (first_line[a], i - a)
    # a chain label per chain: its first entity id, else a new one; the other entity ids
    # of a chain (entities joined by identity links) and ids a row cannot hold change
    label: dict[str, str] = {}
    taken = {m.entity for m in doc.markables if m.entity is not None}
    renamed: set[str] = set()

    def fresh(wanted: str) -> str:
        while wanted in taken:
            wanted += "_"
        taken.add(wanted)
        return wanted

    for k, chain in enumerate(doc.chain_indices()):
        named = next((doc.markables[i].entity for i in chain if doc.markables[i].entity is not None), None)
        if named is None and len(chain) == 1:
            continue  # a mention without a COREF row, as LitBank writes some singletons
        if named is None:
            named = fresh(f"chain-{k + 1}")
        elif not named or not _clean(named) or _BLANK.search(named):
            renamed.add(named)
            named = fresh(_BLANK.sub("_", named) or "_")
        for i in chain:
            entity = doc.markables[i].entity
            if entity is not None and entity != named:
                renamed.add(entity)
            label[doc.markables[i].ref] = named
    rows: dict[tuple[str, str], str] = {}
    order: list[tuple[str, str]] = []
    bad_values = 0
    # a row keeps its mention's id; an id a row cannot hold (empty, a tab or line break in
    # it) gets a new one that no other mention has
    mention_id = {m.ref: m.id for m in doc.markables if m.id and _clean(m.id)}
    used = set(mention_id.values())
    number = 0
    for m in doc.markables:
        if m.ref not in mention_id:
            while f"T{number}" in used:
                number += 1
            mention_id[m.ref] = f"T{number}"
            used.add(f"T{number}")
    for m in doc.markables:
        mid = mention_id[m.ref]
        (s1, t1), (s2, t2) = where[m.first], where[m.last]
        type_ = m.attributes.get("type")
        etype, mkind = "_", "_"
        if isinstance(type_, str) and type_ and _clean(type_):
            head, sep, tail = type_.partition("_")
            etype, mkind = (tail, head) if sep else (head, "_")
        elif type_ is not None:
            bad_values += 1
        span_text = one_line(doc.span_text((m.first, m.last)))  # a CR of the text too (the row is one line)
        rows[("MENTION", mid)] = f"MENTION\t{mid}\t{s1}\t{t1}\t{s2}\t{t2}\t{span_text}\t{etype}\t{mkind}"
        order.append(("MENTION", mid))
    for m in doc.markables:
        mid = mention_id[m.ref]
        if m.ref in label:
            rows[("COREF", mid)] = f"COREF\t{mid}\t{label[m.ref]}"
            order.append(("COREF", mid))
    for link in doc.links:
        if is_identity(link.type):
            continue
        kind = link.type.upper() if link.type.islower() else link.type
        if kind in _ROW_KINDS or not _clean(kind) or link.type.isupper() or not kind:
            bad_values += 1
            continue
        if link.target_kind != "markable" or link.source not in mention_id or link.targets[0] not in mention_id:
            # a row links two mentions: a link to an entity (CorefUD's Bridge) has no row
            log.lose("link-types", "links to entities (a row links two mentions)", document=doc, example=link.id)
            continue
        for target in link.targets:
            rows[(kind, link.id)] = f"{kind}\t{mention_id[link.source]}\t{mention_id[target]}"
            order.append((kind, link.id))
            break
    if bad_values:
        log.lose("value", "types that a LitBank row cannot hold", document=doc, count=bad_values)
    lose_entity_ids(log, doc, sorted(renamed), "entity ids of entities joined into one chain, or with blanks")
    if lay is not None:
        known = [row for row in lay.rows if row in rows]
        placed = set(known)
        order = known + [row for row in order if row not in placed]
    newline = lay.newline if lay is not None else "\n"
    return "".join(rows[row] + newline for row in order), text


def write_files(corpus: Any, *, report: Report) -> dict[str, bytes]:
    """``NAME.ann`` (LitBank's rows) and ``NAME.txt`` for every document."""
    return pair_files(corpus, report, document_files, NAME)


def sniff(head: bytes) -> bool:
    return re.match(rb"^(\xef\xbb\xbf)?(MENTION|COREF)\t", head) is not None


def sniff_directory(path: Path) -> bool:
    """A directory of LitBank TSV pairs: its first ``.ann`` file that is not empty has
    LitBank's rows."""
    _, head = first_ann_head(path)
    return head is not None and sniff(head)


register(FormatSpec(
    name=NAME,
    description="LitBank's coreference TSV (MENTION/COREF/COP/APPOS rows in .ann, tokens in .txt)",
    extensions=(),
    ambiguous_extensions=(".ann",),
    capabilities=Capabilities(
        discontinuous=False, nested=True, crossing=True, same_entity_overlap=True, cross_sentence=True,
        entity_ids=True, link_structure=False, link_types=True, multi_target_links=False,
        markable_attributes=frozenset({"type"}), entity_attributes=False, link_attributes=False, heads=False,
        min=False, optional=False, layers=False, sets=False, token_attributes=False, token_ids=False,
        whitespace=False, offsets=True, text=True, regions=False, sentences=True, sentence_attributes=False,
        metadata=False, schemes=False, multiple_documents=True,
    ),
    read=read,
    write_files=write_files,
    sniff=sniff,
    sniff_directory=sniff_directory,
    directory=True,
    aliases=("litbank",),
))
