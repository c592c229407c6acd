"""CorefUD CoNLL-U (``.conllu``): coreference in the MISC column.

A document starts at a sentence whose comments include ``# newdoc``; its
``# global.Entity = eid-etype-head-other`` comment names the fields of a mention
(corefio keeps whatever names the file declares, e.g. GUM's
``GRP-etype-infstat-salience-centering-minspan-link-identity``). In MISC::

    Entity=(e1-person-2-(e2-place-1)     mentions of e1 and e2 open; e2 also closes
    Entity=e1)                           the innermost open mention of e1 closes
    Entity=(e15[1/2]-person  ...  e15[1/2])  ...  (e15[2/2]  ...  e15[2/2])
                                         a discontinuous mention in two parts
    SplitAnte=e6<e62,e11<e62             e62 (a mention opening here) has split
                                         antecedents e6 and e11
    Bridge=e3<e7:subtype                 e7 (a mention opening here) bridges to e3

An opener lists the fields in the declared order, separated by ``-``; the last field
takes whatever is left (hyphens included). corefio stores every field a mention gives,
even an empty one, as a markable attribute named after the field, so that writing it
back reproduces the opener. ``SplitAnte`` and ``Bridge`` become typed links
(``split_antecedent``, ``bridging``) from the anaphor mention to the antecedent
*entity*; a bridging subtype goes to the link's ``relation`` attribute. The other MISC
keys (``SpaceAfter``, ``Discourse``, ...) stay in the ``misc`` token attribute.

Words, multi-word-token lines (``9-10``) and empty nodes (``8.1``): words and empty
nodes are tokens (empty nodes can carry mentions: zero anaphora); multi-word-token
lines are kept verbatim between words. Comments are kept verbatim. When writing, the
canonical order of brackets in ``Entity`` is the one of CoNLL (openers longest first,
single-word mentions, closers shortest first) and coreference keys are placed among
the other MISC keys alphabetically; a file that did otherwise keeps its own layout
through ``layout:conllu.misc`` hints, so it is written back byte for byte.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..diagnostics import Report
from ..errors import FormatError, ModelError
from ..files import read_text
from ..losses import LossLog
from ..chains import BRIDGING, SPLIT_ANTECEDENT
from .._lazy import LazyModule
from ..registry import Capabilities, FormatSpec, register

#: the pydantic model, imported on first use (scoring CoNLL never needs it)
model = LazyModule("corefio.model")

COLUMNS = ["id", "FORM", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc"]
COREF_KEYS = ("Entity", "SplitAnte", "Bridge")
DEFAULT_FIELDS = ["eid", "etype", "head", "other"]
MISC_HINT = "layout:conllu.misc"

_ENTITY_CHUNK = re.compile(r"\(([^()]+)\)|\(([^()]+)|([^()]+)\)|(.)")
_PART = re.compile(r"^(.*?)\[(\d+)/(\d+)\]$")
_SAFE_EID = re.compile(r"^[^()\-\[\]|=,<:\s]+$")
_RANGE_ID = re.compile(r"^\d+-\d+$")
_EMPTY_ID = re.compile(r"^\d+\.\d+$")


def split_entity(value: str) -> list[tuple[str, str]] | None:
    """Chunks of an ``Entity`` value as ``(kind, content)``; kind O/S/C; None if malformed."""
    out = []
    for single, opener, closer, junk in _ENTITY_CHUNK.findall(value):
        if single:
            out.append(("S", single))
        elif opener:
            out.append(("O", opener))
        elif closer:
            out.append(("C", closer))
        else:
            return None
    return out


def _eid_part(text: str) -> tuple[str, int, int]:
    m = _PART.match(text)
    if m:
        return m.group(1), int(m.group(2)), int(m.group(3))
    return text, 1, 1


def _misc_items(misc: str) -> list[str]:
    return [] if misc in ("_", "") else misc.split("|")


def _join_misc(items: list[str]) -> str:
    return "|".join(items) if items else "_"


def _insert_sorted(items: list[str], coref: list[str]) -> list[str]:
    """Place coreference items among the others in alphabetical order of keys."""
    out = list(items)
    for item in coref:
        key = item.split("=", 1)[0]
        pos = len(out)
        for i, other in enumerate(out):
            if other.split("=", 1)[0] > key:
                pos = i
                break
        out.insert(pos, item)
    return out


# ==========================================================================================
# reading
# ==========================================================================================
class _Mention:
    __slots__ = ("eid", "fields", "spans", "start", "total", "next_part", "line")

    def __init__(self, eid: str, fields: dict, total: int, line: int) -> None:
        self.eid, self.fields, self.total, self.line = eid, fields, total, line
        self.spans: list[tuple[int, int]] = []
        self.start = -1
        self.next_part = 1


class _Doc:
    def __init__(self, name: str, line: int) -> None:
        self.name = name
        self.line = line
        self.forms: list[str] = []
        self.columns: list[list[str]] = []
        self.misc_hints: dict[int, str] = {}
        self.sentences: list[model.Sentence] = []
        self.fields = list(DEFAULT_FIELDS)
        self.mentions: list[_Mention] = []
        self.open: dict[str, list[_Mention]] = {}
        self.waiting: dict[str, list[_Mention]] = {}
        self.entities: dict[str, None] = {}
        self.links: list[tuple[str, str, str, str | None, int, int]] = []  # type, ante, anaphor, relation, token, line
        self.has_global_entity = False
        self.part_fields = "all"  # "first": later parts of discontinuous mentions omit fields


class _Reader:
    def __init__(self, file: str | None, report: Report, strict: bool) -> None:
        self.file, self.report, self.strict = file, report, strict

    def error(self, message: str, line: int | None) -> FormatError:
        return FormatError(message, file=self.file, line=line)

    def entity_value(self, d: _Doc, t: int, value: str, lineno: int) -> None:
        chunks = split_entity(value)
        if chunks is None:
            raise self.error(f"malformed Entity value {value!r}", lineno)
        for kind, content in chunks:
            if kind == "C":
                eid, part, total = _eid_part(content)
                stack = d.open.get(eid)
                found = None
                if stack:
                    for i in range(len(stack) - 1, -1, -1):
                        if stack[i].next_part == part:
                            found = stack.pop(i)
                            break
                if found is None:
                    raise self.error(f"Entity closer {content}) has no open mention of {eid!r}", lineno)
                self.close(d, found, t)
                continue
            head, _, rest = content.partition("-")
            eid, part, total = _eid_part(head)
            if not eid:
                raise self.error(f"Entity opener without an entity id: ({content}", lineno)
            if eid not in d.entities:
                d.entities[eid] = None
            if part == 1:
                fields = {}
                if "-" in content:
                    names = d.fields[1:]
                    parts = rest.split("-", len(names) - 1) if names else [rest]
                    if len(parts) > len(names):
                        raise self.error(f"mention of {eid!r} has more fields than global.Entity declares", lineno)
                    fields = dict(zip(names, parts))
                m = _Mention(eid, fields, total, lineno)
                d.mentions.append(m)
            else:
                waiting = d.waiting.get(eid, [])
                m = next((w for w in reversed(waiting) if w.next_part == part and w.total == total), None)
                if m is None:
                    raise self.error(f"part {part}/{total} of a mention of {eid!r} without its earlier parts", lineno)
                waiting.remove(m)
                if "-" not in content and m.fields:
                    d.part_fields = "first"
            m.start = t
            if kind == "S":
                self.close(d, m, t)
            else:
                d.open.setdefault(eid, []).append(m)

    def close(self, d: _Doc, m: _Mention, t: int) -> None:
        m.spans.append((m.start, t))
        if m.next_part < m.total:
            m.next_part += 1
            d.waiting.setdefault(m.eid, []).append(m)
        else:
            m.next_part = m.total + 1

    def relation(self, d: _Doc, key: str, value: str, t: int, lineno: int) -> None:
        for item in value.split(","):
            if "<" not in item:
                raise self.error(f"malformed {key} item {item!r} (expected ANTECEDENT<ANAPHOR)", lineno)
            ante, _, anaphor = item.partition("<")
            relation = None
            if key == "Bridge" and ":" in anaphor:
                anaphor, _, relation = anaphor.partition(":")
            d.links.append((key, ante, anaphor, relation, t, lineno))

    def token(self, d: _Doc, fields: list[str], lineno: int) -> None:
        t = len(d.forms)
        misc = fields[9]
        items = _misc_items(misc)
        others = []
        coref_items = []
        for item in items:
            key, _, value = item.partition("=")
            if key in COREF_KEYS:
                coref_items.append(item)
                if key == "Entity":
                    self.entity_value(d, t, value, lineno)
                else:
                    self.relation(d, key, value, t, lineno)
            else:
                others.append(item)
        clean = _join_misc(others)
        if coref_items:
            d.misc_hints[t] = misc
        d.forms.append(fields[1])
        d.columns.append([fields[0], *fields[2:9], clean])

    def finish(self, d: _Doc) -> model.Document:
        for eid, stack in d.open.items():
            if stack:
                raise self.error(f"mention of {eid!r} opened here is never closed", stack[0].line)
        for eid, waiting in d.waiting.items():
            if waiting:
                raise self.error(f"discontinuous mention of {eid!r} misses its later parts", waiting[0].line)
        n = len(d.forms)
        cols = list(zip(*d.columns)) if n else [()] * 9
        names = [c for c in COLUMNS if c != "FORM"]
        attributes: dict[str, list[str | None]] = {name: list(col) for name, col in zip(names, cols)}
        markables = []
        by_start: dict[tuple[str, int], str] = {}
        for k, m in enumerate(d.mentions, 1):
            mid = f"markable_{k}"
            markables.append(model.Markable.fast(mid, _merge(m.spans), m.eid, None, dict(m.fields)))
            by_start.setdefault((m.eid, m.spans[0][0]), mid)
        links = []
        for k, (key, ante, anaphor, relation, t, lineno) in enumerate(d.links, 1):
            source = by_start.get((anaphor, t))
            if source is None:
                covering = [f"markable_{j}" for j, m in enumerate(d.mentions, 1)
                            if m.eid == anaphor and any(a <= t <= b for a, b in m.spans)]
                if not covering:
                    raise self.error(f"{key}: no mention of {anaphor!r} starts on or covers this word", lineno)
                source = covering[0]
                self.report.warning("conllu.relation-moved",
                                    f"{key} is not on the first word of the mention of {anaphor!r}; "
                                    "it will be written there", line=lineno, merge=True, file=self.file)
            if ante not in d.entities:
                d.entities[ante] = None
            attrs = {"relation": relation} if relation is not None else {}
            links.append(model.Link.fast(f"link_{k}", source, (ante,), SPLIT_ANTECEDENT if key == "SplitAnte"
                                         else BRIDGING, "entity", attrs))
        used = {m.eid for m in d.mentions}
        # declare only entities that no mention names (antecedents of SplitAnte/Bridge)
        entities = [model.Entity._make(id=e, attributes={}) for e in d.entities if e not in used]
        metadata = {"conllu.source": "yes"}
        if d.has_global_entity:
            metadata["conllu.global.Entity"] = "-".join(d.fields)
        if d.part_fields != "all":
            metadata["conllu.part_fields"] = d.part_fields
        try:
            doc = model.Document.build(
                name=d.name, part=None, metadata=metadata,
                tokens=model.Tokens._make(forms=d.forms, ids=None, whitespace=None, offsets=None, attributes=attributes),
                sentences=d.sentences, markables=markables, entities=entities, links=links,
            )
        except ModelError as exc:
            raise self.error(str(exc), d.line) from None
        # keep the source's MISC where our rendering would differ (bracket order, key order)
        if d.misc_hints:
            rendered = misc_column(doc, [m.entity for m in markables], d.fields, None)
            hints: list[str | None] = [None] * n
            for t, raw in d.misc_hints.items():
                if rendered[t] != raw:
                    hints[t] = raw
            if any(h is not None for h in hints):
                attributes[MISC_HINT] = hints
        return doc

    def read(self, text: str, stem: str) -> model.Corpus:
        docs: list[model.Document] = []
        d: _Doc | None = None
        comments: list[str] = []
        interleaved: list[tuple[int, str]] = []
        sent_first = 0
        in_sentence = False
        lines = text.split("\n")
        final_newline = bool(lines) and lines[-1] == ""
        if final_newline:
            lines.pop()
        last_blank = True

        def end_sentence() -> None:
            nonlocal in_sentence, comments, interleaved
            if d is not None and len(d.forms) > sent_first:
                d.sentences.append(model.Sentence._make(first=sent_first, last=len(d.forms) - 1, id=None,
                                                  comments=comments, interleaved=interleaved, attributes={}))
            comments, interleaved = [], []
            in_sentence = False

        for lineno, line in enumerate(lines, 1):
            last_blank = not line.strip()
            if not line.strip():
                if in_sentence:
                    end_sentence()
                continue
            if line.startswith("#"):
                if in_sentence:
                    raise self.error("comment line inside a sentence (a blank line is missing?)", lineno)
                comments.append(line)
                continue
            fields = line.split("\t")
            if len(fields) != 10:
                raise self.error(f"CoNLL-U lines have 10 TAB-separated columns, this one has {len(fields)}", lineno)
            if not in_sentence:
                in_sentence = True
                newdoc = next((c for c in comments if re.match(r"^#\s*newdoc\b", c)), None)
                if d is None or newdoc is not None:
                    if d is not None:
                        docs.append(self.finish(d))
                    name = f"{stem}" if not docs else f"{stem}-{len(docs) + 1}"
                    if newdoc is not None:
                        m = re.match(r"^#\s*newdoc\s+id\s*=\s*(.*)$", newdoc)
                        if m:
                            name = m.group(1).strip()
                    d = _Doc(name, lineno)
                for c in comments:
                    m = re.match(r"^#\s*global\.Entity\s*=\s*(.*)$", c)
                    if m:
                        d.fields = m.group(1).strip().split("-")
                        d.has_global_entity = True
                sent_first = len(d.forms)
            ident = fields[0]
            if _RANGE_ID.match(ident):
                if any(k.startswith(COREF_KEYS) for k in _misc_items(fields[9])):
                    raise self.error("coreference on a multi-word-token line", lineno)
                interleaved.append((len(d.forms) - sent_first, line))
                continue
            if not (ident.isdigit() or _EMPTY_ID.match(ident)):
                raise self.error(f"bad token id {ident!r}", lineno)
            self.token(d, fields, lineno)
        if in_sentence:
            end_sentence()
            self.report.warning("conllu.no-final-blank", "the last sentence is not followed by a blank line",
                                line=len(lines), file=self.file)
        if d is not None:
            docs.append(self.finish(d))
            if not last_blank:
                docs[-1].metadata["conllu.final_blank"] = "no"
        if not final_newline and docs:
            docs[-1].metadata["conllu.final_newline"] = "no"
        if comments:
            if docs:
                docs[-1].metadata["conllu.trailing_comments"] = "\n".join(comments)
        return model.Corpus._make(documents=docs, metadata={})


def _merge(spans: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return tuple(out)


def read(path: str | Path, *, report: Report | None = None, strict: bool = False, **_: object) -> model.Corpus:
    """Read a CorefUD CoNLL-U file."""
    report = report if report is not None else Report(str(path))
    return _Reader(str(path), report, strict).read(read_text(path), Path(path).name.split(".")[0])


def loads(text: str, *, report: Report | None = None, strict: bool = False, file: str | None = None) -> model.Corpus:
    return _Reader(file, report if report is not None else Report(file), strict).read(text, "document")


# ==========================================================================================
# writing
# ==========================================================================================
def _labels(doc: model.Document, log: LossLog) -> list[str]:
    """An eid for every markable: its chain's entity id when usable, else e1, e2, ..."""
    chains = doc.chain_indices()
    chain_label = []
    for chain in chains:
        ids = {doc.markables[k].entity for k in chain}
        label = ids.pop() if len(ids) == 1 else None
        if label is None or not _SAFE_EID.match(label):
            break
        chain_label.append(label)
    labels = [""] * len(doc.markables)
    if len(chain_label) == len(chains) and len(set(chain_label)) == len(chains):
        for label, chain in zip(chain_label, chains):
            for k in chain:
                labels[k] = label
        return labels
    for number, chain in enumerate(chains, 1):
        for k in chain:
            labels[k] = f"e{number}"
    if any(m.entity is not None for m in doc.markables):
        log.lose("entity-id", "the entity ids as written (chains renumbered e1, e2, ...)",
                 document=doc, count=len(chains), severity="info")
    return labels


def _entity_values(doc: model.Document, labels: list[str], fields: list[str], part_fields: str = "all") -> dict[int, str]:
    """The canonical ``Entity`` value of every token that has one (udapi's ordering).

    Mention parts are taken in text order (earlier start first, longer first, then by
    entity id); a multi-word part appends its opener to its first word and puts its
    closer in front of whatever its last word already has; a one-word part goes after
    the word's opening brackets if it has any, otherwise in front of its closing ones.
    So closing brackets precede opening ones (``e1)(e2``, never the unparsable
    ``(e2e1)``), longer mentions open first and shorter ones close first.
    """
    parts = []
    for k, m in enumerate(doc.markables):
        total = len(m.spans)
        values = []
        present = [f for f in fields[1:] if f in m.attributes]
        if present:
            last = max(fields.index(f) for f in present)
            values = [_text(m.attributes.get(f, "")) for f in fields[1 : last + 1]]
        for i, (a, b) in enumerate(m.spans, 1):
            eid = labels[k] if total == 1 else f"{labels[k]}[{i}/{total}]"
            fields_here = values if (i == 1 or part_fields == "all") else []
            parts.append((a, -(b - a + 1), b, eid, k, "-".join([eid, *fields_here])))
    parts.sort()
    chunks: dict[int, list[str]] = {}
    for a, minus_length, b, eid, _, opener in parts:
        here = chunks.setdefault(a, [])
        if a == b:
            single = f"({opener})"
            if not here or not here[-1].endswith(")"):
                here.append(single)
            elif not any(c.startswith("(") for c in here):
                here.insert(0, single)
            elif any(c.startswith("(") and not c.endswith(")") for c in here):
                here.append(single)
            else:
                here.insert(0, single)
        else:
            here.append(f"({opener}")
            chunks.setdefault(b, []).insert(0, f"{eid})")
    return {t: "".join(c) for t, c in chunks.items()}


def _text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _same_entity(a: str, b: str) -> bool:
    ca, cb = split_entity(a), split_entity(b)
    return ca is not None and cb is not None and sorted(ca) == sorted(cb)


def _coref_items(misc: str) -> dict[str, str]:
    return {k: v for k, _, v in (i.partition("=") for i in _misc_items(misc)) if k in COREF_KEYS}


def misc_column(doc: model.Document, labels: list[str], fields: list[str], log: LossLog | None,
                hints: list[str | None] | None = None) -> list[str]:
    """The MISC value of every token: its other keys plus Entity / SplitAnte / Bridge."""
    n = len(doc.tokens.forms)
    attrs = doc.tokens.attributes
    ws = doc.tokens.whitespace
    entity_values = _entity_values(doc, labels, fields, doc.metadata.get("conllu.part_fields", "all"))
    index = doc.markable_index()
    chain_of = {}
    for chain in doc.chain_indices():
        for k in chain:
            chain_of[k] = labels[chain[0]]
    entity_label: dict[str, str] = {}
    for k, m in enumerate(doc.markables):
        if m.entity is not None:
            entity_label.setdefault(m.entity, labels[k])
    relations: dict[int, dict[str, list[str]]] = {}
    for link in doc.links:
        if link.type not in (BRIDGING, SPLIT_ANTECEDENT):
            continue
        src = index[link.source]
        if link.target_kind == "entity":
            ante = entity_label.get(link.target, link.target if _SAFE_EID.match(link.target) else None)
            if ante is None:
                if log is not None:
                    log.lose("link-type", f"{link.type} links to entities without a usable id", document=doc)
                continue
        else:
            ante = chain_of[index[link.target]]
        key = "SplitAnte" if link.type == SPLIT_ANTECEDENT else "Bridge"
        item = f"{ante}<{labels[src]}"
        if key == "Bridge" and link.attributes.get("relation"):
            item += f":{link.attributes['relation']}"
        if log is not None and set(link.attributes) - {"relation"}:
            log.lose("link-attribute", "attributes of bridging/split-antecedent links", document=doc)
        relations.setdefault(doc.markables[src].first, {}).setdefault(key, []).append(item)
    misc_col = attrs.get("misc")
    out = []
    for i in range(n):
        base = misc_col[i] if misc_col is not None else None
        if base is None:
            items = ["SpaceAfter=No"] if ws is not None and ws[i] == "" else []
        else:
            items = _misc_items(base)
        coref = []
        if i in entity_values:
            coref.append(f"Entity={entity_values[i]}")
        for key in ("SplitAnte", "Bridge"):
            if key in relations.get(i, {}):
                coref.append(f"{key}={','.join(relations[i][key])}")
        misc = _join_misc(_insert_sorted(items, coref))
        if hints is not None and hints[i] is not None:
            raw = hints[i]
            want, have = _coref_items(misc), _coref_items(raw)
            same_rest = [x for x in _misc_items(raw) if x.split("=", 1)[0] not in COREF_KEYS] == items
            if same_rest and want.keys() == have.keys() and all(
                    _same_entity(have[k], v) if k == "Entity" else have[k] == v for k, v in want.items()):
                misc = raw
        out.append(misc)
    return out


def _write_document(doc: model.Document, out: list[str], report: Report, canonical: bool) -> None:
    log = LossLog(report, "CorefUD CoNLL-U")
    meta = doc.metadata
    attrs = doc.tokens.attributes
    n = len(doc.tokens.forms)
    fields = meta.get("conllu.global.Entity", "-".join(DEFAULT_FIELDS)).split("-")
    labels = _labels(doc, log)
    log.markable_attributes(doc, keep=frozenset(fields[1:]))
    log.entity_attributes(doc)
    log.heads(doc)
    log.identity_link_structure(doc)
    for link in doc.links:
        if link.type not in (BRIDGING, SPLIT_ANTECEDENT) and not link.is_identity:
            log.lose("link-type", f"{link.type!r} links", document=doc)
    log.token_attributes(doc, keep=frozenset(COLUMNS))
    ws = doc.tokens.whitespace
    if ws is not None and any(w not in (" ", "") for w in ws):
        log.lose("whitespace", "whitespace other than one space or none between tokens", document=doc,
                 count=sum(1 for w in ws if w not in (" ", "")))
    if doc.tokens.offsets is not None:
        log.lose("offsets", "character offsets of tokens", document=doc, count=n)
    misc = misc_column(doc, labels, fields, log, None if canonical else attrs.get(MISC_HINT))
    start = len(out)
    ids = attrs.get("id")
    sentences = doc.sentences or ([model.Sentence._make(first=0, last=n - 1, id=None, comments=[], interleaved=[], attributes={})] if n else [])
    from_conllu = meta.get("conllu.source") == "yes"
    for s_index, s in enumerate(sentences):
        out.extend(_comments(doc, s, s_index, fields, from_conllu))
        inter: dict[int, list[str]] = {}
        for off, raw in s.interleaved:
            line = _interleaved_line(raw, log, doc)
            if line is not None:
                inter.setdefault(off, []).append(line)
        for i in range(s.first, s.last + 1):
            off = i - s.first
            if off in inter:
                out.extend(inter[off])
            row = [
                ids[i] if ids is not None and ids[i] is not None else str(off + 1),
                doc.tokens.forms[i],
                *[_attr(attrs, name, i) for name in ("lemma", "upos", "xpos", "feats", "head", "deprel", "deps")],
                misc[i],
            ]
            out.append("\t".join(row))
        if s.last - s.first + 1 in inter:
            out.extend(inter[s.last - s.first + 1])
        out.append("")
    if meta.get("conllu.final_blank") == "no" and out and out[-1] == "":
        out.pop()
    if "conllu.trailing_comments" in meta:
        out.extend(meta["conllu.trailing_comments"].split("\n"))
    if _same_entity_overlap(doc, labels):
        _check_readable(doc, out[start:], log)


def _same_entity_overlap(doc: model.Document, labels: list[str]) -> bool:
    """Do the extents of two mentions of one entity overlap (nesting, crossing, or
    interleaved discontinuous parts)? Then closers may be ambiguous."""
    by_label: dict[str, list[tuple[int, int]]] = {}
    for k, m in enumerate(doc.markables):
        by_label.setdefault(labels[k], []).append((m.spans[0][0], m.spans[-1][1]))
    for spans in by_label.values():
        spans.sort()
        for (a1, b1), (a2, b2) in zip(spans, spans[1:]):
            if a2 <= b1:
                return True
    return False


def _check_readable(doc: model.Document, lines: list[str], log: LossLog) -> None:
    """Read the written lines back: the mentions must be the ones we wrote."""
    try:
        back = _Reader(None, Report(), False).read("\n".join(lines) + "\n", "check").documents[0]
        spans_ok = sorted(m.spans for m in doc.markables) == sorted(m.spans for m in back.markables)
        chains_ok = sorted(sorted(m.spans for m in c) for c in back.chains()) == \
            sorted(sorted(m.spans for m in c) for c in doc.chains())
        ok = spans_ok and chains_ok
    except FormatError:
        ok = False
    if not ok:
        log.lose("entity-crossing", "mentions of one entity that cross or interleave (CorefUD closing "
                 "brackets cannot tell them apart; they read back differently)", document=doc)


def _interleaved_line(raw: str, log: LossLog, doc: model.Document) -> str | None:
    """A multi-word-token line as CoNLL-U has it (10 columns), or None if it is not one."""
    fields = raw.split("\t")
    if len(fields) >= 10 and _RANGE_ID.match(fields[0]):
        if any(f not in ("_", "") for f in fields[10:]):
            log.lose("interleaved-column", "extra columns of multi-word-token lines", document=doc)
        return "\t".join(fields[:10])
    log.lose("interleaved-line", "lines between words that are not CoNLL-U multi-word tokens",
             document=doc, example=raw[:40])
    return None


def _attr(attrs: dict, name: str, i: int) -> str:
    column = attrs.get(name)
    if column is None or column[i] is None:
        return "_"
    return column[i]


def _comments(doc: model.Document, s: model.Sentence, index: int, fields: list[str], from_conllu: bool) -> list[str]:
    """A sentence's comment lines.

    A document read from CoNLL-U keeps its own comments; other documents get
    ``# sent_id`` and ``# text``. The first sentence always has ``# newdoc id`` (naming
    the document) and, when there are mentions, ``# global.Entity``.
    """
    out = list(s.comments) if from_conllu else _sentence_comments(doc, s, index)
    if index:
        return out
    line = f"# newdoc id = {doc.name}"
    newdoc = next((i for i, c in enumerate(out) if re.match(r"^#\s*newdoc\b", c)), None)
    if newdoc is None:
        out.insert(0, line)
        newdoc = 0
    else:
        m = re.match(r"^#\s*newdoc\s+id\s*=\s*(.*)$", out[newdoc])
        if m is None or m.group(1).strip() != doc.name:
            out[newdoc] = line
    if doc.markables and not any(re.match(r"^#\s*global\.Entity\b", c) for c in out):
        out.insert(newdoc + 1, f"# global.Entity = {'-'.join(fields)}")
    return out


def _sentence_comments(doc: model.Document, s: model.Sentence, index: int) -> list[str]:
    sid = s.id if s.id is not None else f"{doc.name}-{index + 1}"
    text = doc.span_text((s.first, s.last)).replace("\n", " ")
    return [f"# sent_id = {sid}", f"# text = {text}"]


def dumps(corpus: model.Corpus, *, report: Report | None = None, strict: bool = False,
          canonical: bool = False, **_: object) -> str:
    report = report if report is not None else Report()
    out: list[str] = []
    for doc in corpus.documents:
        _write_document(doc, out, report, canonical)
    text = "\n".join(out)
    if corpus.documents and corpus.documents[-1].metadata.get("conllu.final_newline") == "no":
        return text
    return text + "\n"


def sniff(head: bytes) -> bool:
    return bool(re.search(rb"(^|\n)#\s*(newdoc|global\.Entity|sent_id)", head)) or b"Entity=" in head


register(
    FormatSpec(
        name="conllu",
        description="CorefUD CoNLL-U (Entity=, SplitAnte=, Bridge= in MISC)",
        extensions=(".conllu",),
        capabilities=Capabilities(
            discontinuous=True, nested=True, cross_sentence=True, singletons=True, entity_ids=True,
            link_structure=False, link_types=True, markable_attributes=True, entity_attributes=False,
            heads=False, token_attributes=True, whitespace=False, offsets=False, multiple_documents=True,
        ),
        read=read,
        dumps=dumps,
        sniff=sniff,
        aliases=("corefud",),
    )
)
