"""brat standoff: a document is a pair ``X.txt`` (the text) and ``X.ann`` (annotations
with character offsets into it); a directory of such pairs is a corpus.

Lines of the ``.ann`` file, fields separated by TAB::

    T3<TAB>PROP_PER 0 5<TAB>Alice            text-bound annotation: type, fragments, text
    T4<TAB>NOM_PER 10 13;17 22<TAB>her sister discontinuous: fragments joined by ``;``
    R1<TAB>Coreference Arg1:T4 Arg2:T3       relation: type, two role:argument pairs
    *<TAB>Coreference T1 T2 T3               equivalence (a set of mentions)
    A1<TAB>Negation T3                       binary attribute (value ``True``)
    A2<TAB>Number T3 plural                  attribute with a value
    #1<TAB>AnnotatorNotes T3<TAB>free text     note
    E1, N1, M1 ...                           events, normalisations: kept as written

Coreference comes in two styles, both read:

* LitBank's: every mention is written twice with the same offsets, once with its
  entity type (``PROP_PER``) and once with its chain label as type (``Alice-1``). A
  ``T`` line whose type ends in ``-<digits>`` and whose offsets are those of another
  (non-label) ``T`` line is such a label: it gives that mention its entity (the label).
  ``R`` lines ``cop`` / ``appos`` are typed links.
* relations: ``R`` lines of type ``Coreference`` (or another identity name, see
  :data:`corefio.model.mentions.IDENTITY_LINK_TYPES`, compared case-insensitively) and ``*``
  equivalence lines are identity links; every other relation type is a typed link
  from its first argument to its second.

Markables are the non-label ``T`` lines (id: the ``T`` id); their type is the markable
attribute ``type`` (the type ``Mention``, which this writer uses for markables without
one, gives none). ``A`` lines give markable (or link) attributes, notes give an
attribute named by the note type.

Tokens: brat has characters, not tokens. The text is cut at whitespace (reader option
``tokens=punctuation``: also around each punctuation mark) and at every fragment boundary, so every mention starts and ends on a token boundary; a line is a
sentence. ``Document.text`` holds the ``.txt`` and token offsets point into it, so the
writer gives the ``.txt`` back byte for byte. A document without a source text (read
from CoNLL, say) is written with its tokens separated by spaces, one sentence per line,
and the ``.ann`` starts with the note line :data:`TOKENS_MARK`: reading it back gives
the tokens without a text. The order of lines, ids of label lines, attribute ids, role
names and the lines corefio does not interpret are kept in :class:`BratLayout`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ..io._lazy import LazyModule
from ..model.mentions import COREFERENCE, is_identity
from ..diagnostics import Report
from ..errors import FormatError, ModelError
from ..model.layout import FormatLayout
from .losses import LossLog
from .registry import Capabilities, FormatSpec, Option, register
from ..io.source import Source, confined_path
from ._lines import split_newlines

model = LazyModule("corefio.model")

NAME = "brat"
#: the first line of a ``.ann`` whose ``.txt`` this writer made from tokens
TOKENS_MARK = "#0\tcorefio-tokens\ttext made from tokens: one sentence per line, tokens separated by spaces"
#: the markable type written for a markable without a ``type`` attribute
DEFAULT_TYPE = "Mention"
_ID_KINDS = frozenset("TRAEMN#")


def is_chain_label(type_: str) -> bool:
    """A type of the form ``NAME-N`` (LitBank's chain labels: ``Alice-1``)."""
    name, _, number = type_.rpartition("-")
    return bool(name) and number.isdigit() and number.isascii() and not any(c.isspace() for c in name)


def _is_id(value: str) -> bool:
    """``T12``, ``R3``, ``#1``...: a kind letter and a number."""
    rest = value[1:]
    return value[:1] in _ID_KINDS and rest.isdigit() and rest.isascii()


@dataclass
class BratLayout(FormatLayout):
    """How one ``.ann`` file was written."""

    format: ClassVar[str] = NAME
    depends_on: ClassVar[frozenset[str]] = frozenset({"tokens", "markables", "links", "entities", "text"})

    #: the ids of the lines in file order (``*`` lines: the id of their link)
    order: list[str] = field(default_factory=list)
    #: markable id → id of its chain label ``T`` line (LitBank's style)
    labels: dict[str, str] = field(default_factory=dict)
    #: link id → its two role names (``Arg1``, ``Arg2``)
    roles: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: ``A``/``#`` id → (owner id, attribute name)
    attributes: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: markable id → offsets as written, where they differ from the token offsets
    fragments: dict[str, str] = field(default_factory=dict)
    #: T id → the text field as written, where it differs from the source text
    texts: dict[str, str] = field(default_factory=dict)
    #: line id → a line corefio does not interpret, as written
    raw: dict[str, str] = field(default_factory=dict)
    #: link id → its type as written, where the link type is the model's name for it
    #: (``Coreference`` → ``coreference``)
    link_types: dict[str, str] = field(default_factory=dict)
    newline: str = "\n"
    final_newline: bool = True


@dataclass
class _TLine:
    id: str
    type: str
    fragments: list[tuple[int, int]]
    offsets_text: str
    text: str
    line: int


def _fail(message: str, file: str, line: int | None = None) -> FormatError:
    return FormatError(message, file=file, line=line)


def _parse_t(tid: str, rest: list[str], text: str, file: str, lineno: int) -> _TLine:
    if len(rest) < 1:
        raise _fail(f"{tid}: a text-bound annotation needs 'TYPE START END'", file, lineno)
    type_, _, offsets = rest[0].partition(" ")
    if not type_ or not offsets:
        raise _fail(f"{tid}: a text-bound annotation needs 'TYPE START END'", file, lineno)
    fragments: list[tuple[int, int]] = []
    for piece in offsets.split(";"):
        start, _, end = piece.partition(" ")
        if not (start.isdigit() and end.isdigit() and start.isascii() and end.isascii()):
            raise _fail(f"{tid}: offsets {piece!r} are not 'START END'", file, lineno)
        a, b = int(start), int(end)
        if not 0 <= a < b <= len(text):
            raise _fail(f"{tid}: offsets {a}..{b} are outside the text ({len(text)} characters) or empty",
                        file, lineno)
        if fragments and a < fragments[-1][1]:
            raise _fail(f"{tid}: fragments must be in text order without overlap", file, lineno)
        fragments.append((a, b))
    return _TLine(tid, type_, fragments, offsets, rest[1] if len(rest) > 1 else "", lineno)


#: how a text is cut into tokens (besides the mention boundaries), by reader option
TOKEN_PATTERNS = {"whitespace": re.compile(r"\S+"), "punctuation": re.compile(r"\w+|[^\w\s]")}


def _tokenise(text: str, cuts: set[int], pattern: re.Pattern[str] = TOKEN_PATTERNS["whitespace"]
              ) -> tuple[list[str], list[tuple[int, int]], list[tuple[int, int]]]:
    """Tokens (forms, offsets) of ``text``: cut at whitespace and at ``cuts``; sentences
    (first, last token) are the lines."""
    forms: list[str] = []
    offsets: list[tuple[int, int]] = []
    sentences: list[tuple[int, int]] = []
    cut_list = sorted(cuts)
    next_cut = 0  # index of the first cut not behind us
    pos = 0
    for line in text.split("\n"):
        first = len(forms)
        for m in pattern.finditer(line):
            a, b = pos + m.start(), pos + m.end()
            while next_cut < len(cut_list) and cut_list[next_cut] <= a:
                next_cut += 1
            start = a
            while next_cut < len(cut_list) and cut_list[next_cut] < b:
                c = cut_list[next_cut]
                forms.append(text[start:c])
                offsets.append((start, c))
                start = c
                next_cut += 1
            forms.append(text[start:b])
            offsets.append((start, b))
        if len(forms) > first:
            sentences.append((first, len(forms) - 1))
        pos += len(line) + 1
    return forms, offsets, sentences


def parse(ann: str, text: str, *, name: str, file: str, report: Report, newline: str = "\n",
          tokens: str = "whitespace") -> Any:
    """One document from the ``.ann`` text (LF line ends) and the ``.txt`` text."""
    lines = ann.split("\n")
    final_newline = ann.endswith("\n") or not ann
    if lines and lines[-1] == "":
        lines.pop()
    made_from_tokens = bool(lines) and lines[0] == TOKENS_MARK
    layout = BratLayout(newline=newline, final_newline=final_newline)
    tlines: dict[str, _TLine] = {}
    others: list[tuple[str, list[str], int]] = []
    seen: set[str] = set()
    equiv = 0
    for lineno, line in enumerate(lines, 1):
        if made_from_tokens and lineno == 1:
            continue
        if not line.strip():
            report.warning("brat.blank-line", "blank lines in an annotation file are skipped (and not written "
                           "back)", file=file, line=lineno, merge=True)
            continue
        fields = line.split("\t", 2)  # a text field may hold a TAB
        lid = fields[0]
        if lid == "*":
            equiv += 1
            lid = f"*{equiv}"
        elif lid in ("MENTION", "COREF"):
            raise _fail("this is LitBank's TSV, not brat: read it with --from litbank-tsv", file, lineno)
        elif not _is_id(lid):
            raise _fail(f"{lid!r} is not a brat annotation id (T1, R1, A1, #1, E1, N1, *)", file, lineno)
        if lid in seen:
            raise _fail(f"duplicate annotation id {lid}", file, lineno)
        seen.add(lid)
        layout.order.append(lid)
        if lid.startswith("T"):
            tlines[lid] = _parse_t(lid, fields[1:], text, file, lineno)
        else:
            others.append((lid, fields, lineno))
    # chain labels: a T of type NAME-N at the offsets of another T
    by_offsets: dict[str, list[str]] = {}
    labelled = {t.id for t in tlines.values() if is_chain_label(t.type)}
    for t in tlines.values():
        if t.id not in labelled:
            by_offsets.setdefault(t.offsets_text, []).append(t.id)
    label_of: dict[str, str] = {}
    label_ids: set[str] = set()
    for t in tlines.values():
        if t.id not in labelled:
            continue
        for mid in by_offsets.get(t.offsets_text, ()):
            if mid not in label_of:
                label_of[mid] = t.id
                label_ids.add(t.id)
                break
    mention_ids = [tid for tid in tlines if tid not in label_ids]
    cuts: set[int] = set()
    for tid in mention_ids:
        for a, b in tlines[tid].fragments:
            cuts.add(a)
            cuts.add(b)
    forms, offsets, sentence_bounds = _tokenise(text, cuts, TOKEN_PATTERNS[tokens])
    start_token = {a: i for i, (a, _) in enumerate(offsets)}
    end_token = {b: i for i, (_, b) in enumerate(offsets)}
    from bisect import bisect_left, bisect_right

    starts = [a for a, _ in offsets]
    ends = [b for _, b in offsets]
    markables: list[Any] = []
    markable_attrs: dict[str, dict[str, Any]] = {}
    for tid in mention_ids:
        t = tlines[tid]
        spans: list[tuple[int, int]] = []
        for a, b in t.fragments:
            first = start_token.get(a)
            if first is None:
                first = bisect_left(ends, a + 1)  # first token ending after a
            last = end_token.get(b)
            if last is None:
                last = bisect_right(starts, b - 1) - 1  # last token starting before b
            if first >= len(forms) or last < first:
                raise _fail(f"{tid}: offsets {a}..{b} cover only whitespace", file, t.line)
            if spans and first <= spans[-1][1] + 1:
                spans[-1] = (spans[-1][0], max(last, spans[-1][1]))
            else:
                spans.append((first, last))
        expected = ";".join(f"{offsets[a][0]} {offsets[b][1]}" for a, b in spans)
        if expected != t.offsets_text:
            layout.fragments[tid] = t.offsets_text
        if t.text != _text_field(text, t.fragments):
            layout.texts[tid] = t.text
        attrs: dict[str, Any] = {}
        if t.type != DEFAULT_TYPE:
            attrs["type"] = t.type
        markable_attrs[tid] = attrs
        entity = None
        if tid in label_of:
            label = tlines[label_of[tid]]
            entity = label.type
            layout.labels[tid] = label.id
            if label.text != t.text:
                layout.texts[label.id] = label.text
        markables.append((tid, tuple(spans), entity, attrs))
    links: list[Any] = []
    link_attrs: dict[str, dict[str, Any]] = {}
    for lid, fields, lineno in others:
        kind = lid[0]
        if kind == "R":
            parts = fields[1].split(" ") if len(fields) > 1 else []
            if len(parts) != 3:
                raise _fail(f"{lid}: a relation needs 'TYPE ROLE1:ARG ROLE2:ARG'", file, lineno)
            roles, args = [], []
            for part in parts[1:]:
                role, sep, arg = part.partition(":")
                if not sep or not role:
                    raise _fail(f"{lid}: argument {part!r} is not ROLE:ID", file, lineno)
                _check_mention(arg, tlines, label_ids, lid, file, lineno)
                roles.append(role)
                args.append(arg)
            type_ = COREFERENCE if parts[0].lower() in _IDENTITY_NAMES else parts[0]
            if type_ != parts[0]:
                layout.link_types[lid] = parts[0]
            layout.roles[lid] = (roles[0], roles[1])
            attrs = {}
            link_attrs[lid] = attrs
            links.append(model.Link.fast(lid, args[0], (args[1],), type_, attributes=attrs))
        elif kind == "*":
            parts = fields[1].split(" ") if len(fields) > 1 else []
            if len(parts) < 3:
                raise _fail("an equivalence line needs 'TYPE ID ID ...'", file, lineno)
            for arg in parts[1:]:
                _check_mention(arg, tlines, label_ids, "*", file, lineno)
            type_ = COREFERENCE if parts[0].lower() in _IDENTITY_NAMES else parts[0]
            if type_ != parts[0]:
                layout.link_types[lid] = parts[0]
            links.append(model.Link.fast(lid, parts[1], tuple(parts[2:]), type_))
        elif kind == "A" or kind == "M":
            parts = fields[1].split(" ") if len(fields) > 1 else []
            if len(parts) not in (2, 3):
                raise _fail(f"{lid}: an attribute needs 'NAME ID [VALUE]'", file, lineno)
            owner = parts[1]
            target = markable_attrs.get(owner)
            if target is None:
                target = link_attrs.get(owner)
            if target is None:
                raise _fail(f"{lid}: {owner} is no mention or relation of this file", file, lineno)
            if parts[0] in target:
                raise _fail(f"{lid}: {owner} has attribute {parts[0]} twice", file, lineno)
            target[parts[0]] = parts[2] if len(parts) == 3 else True
            layout.attributes[lid] = (owner, parts[0])  # an M line keeps its id, so its kind
        elif kind == "#" and len(fields) == 3 and fields[1].count(" ") == 1:
            note, owner = fields[1].split(" ")
            target = markable_attrs.get(owner)
            if target is None or note in target:
                layout.raw[lid] = "\t".join(fields)
                continue
            target[note] = fields[2]
            layout.attributes[lid] = (owner, note)
        else:
            layout.raw[lid] = "\t".join(fields)
            report.info("brat.kept-as-written", "annotations corefio does not interpret (events, "
                        "normalisations, ...) are kept as written for the brat writer", file=file,
                        line=lineno, merge=True, example=lid)
    # every field of a Markable, built in one call (10⁵ markables: no call per markable)
    built = model.Markable._make_many(
        {"id": tid, "spans": spans, "entity": entity, "head": None, "attributes": attrs, "layer": None,
         "sets": {}, "min": None, "optional": False} for tid, spans, entity, attrs in markables)
    sentences = [model.Sentence._make(first=a, last=b) for a, b in sentence_bounds]
    tokens = (model.Tokens._make(forms=forms) if made_from_tokens
              else model.Tokens._make(forms=forms, offsets=offsets))
    try:
        return model.Document.build(
            name=name, tokens=tokens, sentences=sentences, markables=built, links=links,
            text=None if made_from_tokens else text, layout={} if made_from_tokens else {NAME: layout},
        )
    except ModelError as exc:
        raise _fail(str(exc), file) from None


_IDENTITY_NAMES = frozenset({"coreference", "coref", "identity", "ident", "equiv"})


def _check_mention(arg: str, tlines: dict, label_ids: set[str], owner: str, file: str, lineno: int) -> None:
    if arg not in tlines:
        raise _fail(f"{owner}: {arg} is no text-bound annotation of this file", file, lineno)
    if arg in label_ids:
        raise _fail(f"{owner}: {arg} is a chain label, not a mention", file, lineno)


def _text_field(text: str, fragments: Iterable[tuple[int, int]]) -> str:
    """What brat writes as the text of a fragment list: the fragments' texts joined by a
    space, line ends and tabs as spaces."""
    joined = " ".join(text[a:b] for a, b in fragments)
    return joined.replace("\n", " ").replace("\t", " ") if "\n" in joined or "\t" in joined else joined


def pairs(source: Source, what: str) -> list[tuple[Path, Path, str]]:
    """``(X.ann, X.txt, X)`` for the ``.ann`` file ``source`` names, or for every ``.ann``
    of the directory it names (in name order); the ``.txt`` must lie beside it."""
    if source.path is None:
        raise _fail(f"{what} is read from a .ann file (with its .txt) or a directory, not from memory",
                    source.name)
    path = source.path
    if path.is_dir():
        names = sorted(p.name for p in path.iterdir() if p.name.endswith(".ann"))
        if not names:
            raise _fail("the directory holds no .ann file", str(path))
        found = []
        for ann in names:
            stem = ann[: -len(".ann")]
            ann_path = confined_path(path, ann, file=path, what=".ann file")
            found.append((ann_path, confined_path(path, stem + ".txt", file=ann_path, what=".txt file"), stem))
        return found
    if not path.name.endswith(".ann"):
        raise _fail(f"a {what} document is read from its .ann file", str(path))
    stem = path.name[: -len(".ann")]
    return [(path, confined_path(path.parent, stem + ".txt", file=path, what=".txt file"), stem)]


def read_pair_texts(ann_path: Path, txt_path: Path) -> tuple[str, str, str]:
    """The ``.ann`` text (LF line ends), its line end and the ``.txt`` text."""
    from ..io.files import decode_utf8

    file = str(ann_path)
    try:
        raw_ann = ann_path.read_bytes()
    except OSError as exc:
        raise _fail(f"cannot read the annotation file: {exc.strerror}", file) from None
    try:
        raw_txt = txt_path.read_bytes()
    except FileNotFoundError:
        raise _fail(f"the text file {txt_path.name} is missing (the document is X.ann with X.txt beside it)",
                    file) from None
    except OSError as exc:
        raise _fail(f"cannot read the text file {txt_path.name}: {exc.strerror}", file) from None
    text = decode_utf8(raw_txt, str(txt_path))
    ann, newline = split_newlines(decode_utf8(raw_ann, file), file)
    return ann, newline, text


def read(source: Source, *, report: Report, strict: bool = False, tokens: str | None = None) -> Any:
    """A ``.ann`` file (its ``.txt`` beside it) or a directory of pairs; ``tokens``:
    ``whitespace`` (default) or ``punctuation`` (also a token per punctuation mark)."""
    documents = []
    for ann_path, txt_path, stem in pairs(source, "brat"):
        ann, newline, text = read_pair_texts(ann_path, txt_path)
        documents.append(parse(ann, text, name=stem, file=str(ann_path), report=report, newline=newline,
                               tokens=tokens or "whitespace"))
    return model.Corpus._make(documents=documents, metadata={}, schemes=[], layout={})


# -- writing ----------------------------------------------------------------------------
def _made_text(doc: Any, log: LossLog) -> tuple[str, list[tuple[int, int]]]:
    """The text of a document without one: tokens separated by spaces, a line per sentence."""
    forms = doc.tokens.forms
    bounds = [(s.first, s.last) for s in doc.sentences] or ([(0, len(forms) - 1)] if forms else [])
    pieces: list[str] = []
    offsets: list[tuple[int, int]] = []
    pos = 0
    bad = 0
    for a, b in bounds:
        for i in range(a, b + 1):
            form = forms[i]
            if not form or any(c.isspace() for c in form):
                bad += 1
                form = re.sub(r"\s", "_", form) or "_"
            if i > a:
                pieces.append(" ")
                pos += 1
            pieces.append(form)
            offsets.append((pos, pos + len(form)))
            pos += len(form)
        pieces.append("\n")
        pos += 1
    if bad:
        log.lose("form", "empty word forms or forms with whitespace (brat cuts tokens at whitespace)",
                 document=doc, count=bad)
    return "".join(pieces), offsets


def _value_ok(name: str, value: Any) -> bool:
    return bool(name) and not re.search(r"\s", name) and (
        value is True or (isinstance(value, str) and value != "" and not re.search(r"\s", value)))


def document_files(doc: Any, report: Report) -> tuple[str, str]:
    """The ``.ann`` and ``.txt`` texts of one document."""
    log = LossLog(report, NAME)
    lay = doc.layout.get(NAME)
    lay = lay if isinstance(lay, BratLayout) else None
    if doc.text is not None and doc.tokens.offsets is not None:
        text, offsets = doc.text, doc.tokens.offsets
        head: list[str] = []
    else:
        text, offsets = _made_text(doc, log)
        head = [TOKENS_MARK]
        lay = None
    lines: dict[str, str] = {}
    order: list[str] = []
    used = {m.id for m in doc.markables} | {link.id for link in doc.links}
    counters = {"T": 0, "R": 0, "A": 0}

    def fresh(kind: str) -> str:
        while True:
            counters[kind] += 1
            candidate = f"{kind}{counters[kind]}"
            if candidate not in used:
                used.add(candidate)
                return candidate

    tid_of: dict[str, str] = {}
    for m in doc.markables:
        tid_of[m.ref] = m.id if re.match(r"^T\w*$", m.id) else ""
    for ref, tid in tid_of.items():
        if not tid:
            tid_of[ref] = fresh("T")
    labels = lay.labels if lay is not None else {}
    attribute_ids = {v: k for k, v in lay.attributes.items()} if lay is not None else {}
    bad_values = 0
    for m in doc.markables:
        tid = tid_of[m.ref]
        if lay is not None and m.id in lay.fragments:
            frag = lay.fragments[m.id]
            fragments = [tuple(map(int, f.split(" "))) for f in frag.split(";")]
        else:
            fragments = [(offsets[a][0], offsets[b][1]) for a, b in m.spans]
            frag = ";".join(f"{a} {b}" for a, b in fragments)
        field_text = lay.texts.get(tid, None) if lay is not None else None
        if field_text is None:
            field_text = _text_field(text, fragments)  # type: ignore[arg-type]
        type_ = m.attributes.get("type", DEFAULT_TYPE)
        if not _value_ok("type", type_) or type_ is True:
            bad_values += 1
            type_ = DEFAULT_TYPE
        lines[tid] = f"{tid}\t{type_} {frag}\t{field_text}"
        order.append(tid)
        if m.entity is not None:
            label = str(m.entity)
            if not is_chain_label(label):
                label = re.sub(r"\s", "_", label) + "-0"
            lid = labels.get(m.id) or fresh("T")
            label_text = lay.texts.get(lid) if lay is not None else None
            lines[lid] = f"{lid}\t{label} {frag}\t{field_text if label_text is None else label_text}"
            order.append(lid)
        for name, value in m.attributes.items():
            if name == "type":
                continue
            aid = attribute_ids.get((m.id, name))
            if aid is not None and aid.startswith("#") and isinstance(value, str):
                lines[aid] = f"{aid}\t{name} {tid}\t{value}"  # a note: free text
            elif _value_ok(name, value):
                aid = aid or fresh("A")
                lines[aid] = f"{aid}\t{name} {tid}" + ("" if value is True else f" {value}")
            else:
                bad_values += 1
                continue
            order.append(aid)
    refs = {m.ref: tid_of[m.ref] for m in doc.markables}
    first_of_entity: dict[str, str] = {}
    for m in doc.markables:
        if m.entity is not None:
            first_of_entity.setdefault(m.entity, m.ref)
    lost_links = 0
    for link in doc.links:
        targets = list(link.targets)
        if link.target_kind == "entity":
            targets = [first_of_entity[t] for t in targets if t in first_of_entity]
            if len(targets) != len(link.targets):
                lost_links += 1
                continue
        source = refs[link.source]
        args = [refs[t] for t in targets]
        written_type = lay.link_types.get(link.id) if lay is not None else None
        if link.id.startswith("*") or (len(args) > 1 and is_identity(link.type)):
            lid = link.id if link.id.startswith("*") else f"*{len(order)}"
            type_ = written_type or ("Coreference" if is_identity(link.type) else link.type)
            lines[lid] = f"*\t{type_} {source} {' '.join(args)}"
            order.append(lid)
            continue
        roles = lay.roles.get(link.id, ("Arg1", "Arg2")) if lay is not None else ("Arg1", "Arg2")
        type_ = written_type or ("Coreference" if is_identity(link.type) else link.type)
        lid = link.id if re.match(r"^R\w*$", link.id) else fresh("R")
        for k, arg in enumerate(args):
            rid = lid if k == 0 else fresh("R")
            lines[rid] = f"{rid}\t{type_} {roles[0]}:{source} {roles[1]}:{arg}"
            order.append(rid)
        for name, value in link.attributes.items():
            aid = attribute_ids.get((link.id, name)) or fresh("A")
            if _value_ok(name, value):
                lines[aid] = f"{aid}\t{name} {lid}" + ("" if value is True else f" {value}")
                order.append(aid)
            else:
                bad_values += 1
    if bad_values:
        log.lose("value", "attribute names or values with whitespace, empty or not text (brat attributes "
                 "are single words)", document=doc, count=bad_values)
    if lost_links:
        log.lose("link-types", "links to entities without mentions", document=doc, count=lost_links)
    if lay is not None:
        # the source's order; lines it did not have (none, unless edited) at the end
        lines.update(lay.raw)
        ordered = [lid for lid in lay.order if lid in lines]
        placed = set(ordered)
        order = ordered + [lid for lid in order if lid not in placed]
    newline = lay.newline if lay is not None else "\n"
    body = head + [lines[lid] for lid in order]
    ann = newline.join(body)
    if body and (lay is None or lay.final_newline):
        ann += newline
    return ann, text


def file_stem(doc: Any, k: int, taken: dict[str, bytes]) -> str:
    """The file name (without extension) document ``k`` is written under."""
    name = doc.name if doc.part is None else f"{doc.name}_{doc.part}"
    name = re.sub(r"[/\\\x00]", "_", name) or f"document_{k + 1}"
    if name.startswith("."):
        name = "_" + name
    if f"{name}.ann" in taken:
        name = f"{name}_{k + 1}"
    return name


def pair_files(corpus: Any, report: Report, files: Any) -> dict[str, bytes]:
    """``NAME.ann`` and ``NAME.txt`` for every document, ``files(doc, report)`` giving the
    two texts (brat's own, or LitBank TSV's rows beside the same text)."""
    out: dict[str, bytes] = {}
    for k, doc in enumerate(corpus.documents):
        name = file_stem(doc, k, out)
        ann, text = files(doc, report)
        out[f"{name}.ann"] = ann.encode("utf-8")
        out[f"{name}.txt"] = text.encode("utf-8")
    return out


def write_files(corpus: Any, *, report: Report) -> dict[str, bytes]:
    """``NAME.ann`` and ``NAME.txt`` for every document."""
    return pair_files(corpus, report, document_files)


def sniff(head: bytes) -> bool:
    """A brat annotation line first (or nothing: a document without annotations)."""
    first = head.lstrip(b"\xef\xbb\xbf").split(b"\n", 1)[0].rstrip(b"\r")
    return not first or re.match(rb"^(T\d+\t\S+ \d+ \d+|[RAMEN]\d+\t|\*\t|#\d*\t)", first) is not None


CAPABILITIES = Capabilities(
    discontinuous=True, nested=True, crossing=True, same_entity_overlap=True, cross_sentence=True,
    entity_ids=False, link_structure=True, link_types=True, multi_target_links=False,
    markable_attributes=True, entity_attributes=False, link_attributes=True, heads=False, min=False,
    optional=False, layers=False, sets=False, token_attributes=False, token_ids=False, whitespace=False,
    offsets=True, text=True, regions=False, sentences=True, sentence_attributes=False, metadata=False,
    schemes=False, multiple_documents=True,
)

register(FormatSpec(
    name=NAME,
    description="brat standoff (.ann + .txt, a directory of pairs): LitBank chain labels, relations, "
                "equivalences, attributes, notes",
    extensions=(),
    ambiguous_extensions=(".ann",),
    capabilities=CAPABILITIES,
    read=read,
    write_files=write_files,
    options=(
        Option("tokens", str, "whitespace", "how the text is cut into tokens besides mention boundaries: at "
               "whitespace (pre-tokenised texts such as LitBank's) or also around each punctuation mark",
               applies_to="read", choices=tuple(TOKEN_PATTERNS)),
    ),
    sniff=sniff,
    directory=True,
))
