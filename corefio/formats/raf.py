"""RAF pivot XML (seed 003, Figure 1), extended to hold everything the model holds.

Layout (see ``schemas/raf.xsd`` for the full grammar)::

    <struct type="reference_annotation_collection" version="1.0">
      <struct type="document" name="..." part="...">
        <feat type="metadata" name="...">...</feat>
        <struct type="primary_data">
          <feat type="column" name="pos"/>
          <struct type="sentence" id="s1">
            <struct type="word" id="word_1" after=" "><feat type="form">The</feat>
              <feat type="attribute" name="pos">DT</feat></struct>
        <struct type="entity" id="e1"><feat type="attribute" name="etype">person</feat></struct>
        <struct type="markable" id="markable_1">
          <feat type="sourcetext" target="word_1..word_2">The man</feat>
          <feat type="entity" target="e1"/>
          <feat type="attribute" name="dominant" datatype="boolean">true</feat>
        <struct type="reflink" id="reflink_1">
          <feat type="reflinktype">coreference</feat>
          <feat type="source" target="markable_2"/>
          <feat type="target" target="markable_1"/>   (kind="entity" for entity targets)

Rules: one ``sourcetext`` feat per span (its text is derived from the words and checked
on reading); targets are ``first..last`` or a single id, comma lists accepted on input;
attribute values carry their type (``datatype`` = string, integer, decimal, boolean);
token ids equal to ``word_1 … word_n`` are read back as the default numbering. Writing
then reading gives back an equal model, and writing again gives identical bytes.
"""

from __future__ import annotations

from pathlib import Path

from .._lazy import LazyModule
from ..diagnostics import Report
from ..errors import CorefioError, FormatError, ModelError
from ..registry import Capabilities, FormatSpec, register
from ..xmlsafe import parse_xml

etree = LazyModule("lxml.etree")
#: the pydantic model, imported on first use (scoring CoNLL never needs it)
model = LazyModule("corefio.model")

ROOT_TYPE = "reference_annotation_collection"
VERSION = "1.0"


# -- typed attribute values ---------------------------------------------------------------
def encode_value(value: model.AttrValue) -> tuple[str, str]:
    """(datatype, text) for an attribute value."""
    if isinstance(value, bool):
        return "boolean", "true" if value else "false"
    if isinstance(value, int):
        return "integer", str(value)
    if isinstance(value, float):
        return "decimal", repr(value)
    return "string", value


def decode_value(datatype: str | None, text: str) -> model.AttrValue:
    if datatype in (None, "string"):
        return text
    if datatype == "boolean":
        if text in ("true", "1"):
            return True
        if text in ("false", "0"):
            return False
        raise ValueError(f"{text!r} is not a boolean")
    if datatype == "integer":
        return int(text)
    if datatype == "decimal":
        return float(text)
    raise ValueError(f"unknown datatype {datatype!r}")


# -- writing ------------------------------------------------------------------------------
def _sub(parent: etree._Element, tag: str, text: str | None = None, **attrib: str) -> etree._Element:
    el = etree.SubElement(parent, tag, attrib)
    if text is not None:
        el.text = text
    return el


def _attribute_feats(parent: etree._Element, attributes: dict[str, model.AttrValue]) -> None:
    for name, value in attributes.items():
        datatype, text = encode_value(value)
        if datatype == "string":
            _sub(parent, "feat", text, type="attribute", name=name)
        else:
            _sub(parent, "feat", text, type="attribute", name=name, datatype=datatype)


def format_target(doc_ids: list[str], span: model.Span) -> str:
    a, b = span
    return doc_ids[a] if a == b else f"{doc_ids[a]}..{doc_ids[b]}"


def _write_document(root: etree._Element, doc: model.Document) -> None:
    el = _sub(root, "struct", type="document", name=doc.name)
    if doc.part is not None:
        el.set("part", doc.part)
    for k, v in doc.metadata.items():
        _sub(el, "feat", v, type="metadata", name=k)
    toks = doc.tokens
    ids = toks.all_ids()
    pd = _sub(el, "struct", type="primary_data")
    for name in toks.attributes:
        _sub(pd, "feat", type="column", name=name)
    columns = list(toks.attributes.items())

    def word(parent: etree._Element, i: int) -> None:
        w = etree.SubElement(parent, "struct", {"type": "word", "id": ids[i]})
        if toks.offsets is not None:
            w.set("start", str(toks.offsets[i][0]))
            w.set("end", str(toks.offsets[i][1]))
        if toks.whitespace is not None:
            w.set("after", toks.whitespace[i])
        _sub(w, "feat", toks.forms[i], type="form")
        for name, column in columns:
            value = column[i]
            if value is not None:
                _sub(w, "feat", value, type="attribute", name=name)

    if doc.sentences:
        for s in doc.sentences:
            sattrib = {"type": "sentence"}
            if s.id is not None:
                sattrib["id"] = s.id
            se = etree.SubElement(pd, "struct", sattrib)
            for c in s.comments:
                _sub(se, "feat", c, type="comment")
            _attribute_feats(se, s.attributes)
            for off, raw in s.interleaved:
                _sub(se, "feat", raw, type="interleaved", before=str(off))
            for i in range(s.first, s.last + 1):
                word(se, i)
    else:
        for i in range(len(toks.forms)):
            word(pd, i)
    for e in doc.entities:
        ee = _sub(el, "struct", type="entity", id=e.id)
        _attribute_feats(ee, e.attributes)
    for m in doc.markables:
        me = _sub(el, "struct", type="markable", id=m.id)
        for span in m.spans:
            _sub(me, "feat", doc.span_text(span), type="sourcetext", target=format_target(ids, span))
        if m.entity is not None:
            _sub(me, "feat", type="entity", target=m.entity)
        if m.head is not None:
            _sub(me, "feat", type="head", target=",".join(format_target(ids, s) for s in m.head))
        _attribute_feats(me, m.attributes)
    for link in doc.links:
        le = _sub(el, "struct", type="reflink", id=link.id)
        _sub(le, "feat", link.type, type="reflinktype")
        _sub(le, "feat", type="source", target=link.source)
        if link.target_kind == "entity":
            _sub(le, "feat", type="target", target=link.target, kind="entity")
        else:
            _sub(le, "feat", type="target", target=link.target)
        _attribute_feats(le, link.attributes)


def dumps(corpus: model.Corpus, *, report: Report | None = None, strict: bool = False, **_: object) -> bytes:
    """Serialise a corpus as RAF XML (UTF-8 bytes). RAF expresses everything: no loss."""
    root = etree.Element("struct", {"type": ROOT_TYPE, "version": VERSION})
    try:
        for k, v in corpus.metadata.items():
            _sub(root, "feat", v, type="metadata", name=k)
        for doc in corpus.documents:
            _write_document(root, doc)
    except ValueError as exc:  # lxml refuses control characters / NUL
        raise CorefioError(f"cannot write RAF: {exc} (XML 1.0 cannot hold control characters)") from None
    etree.indent(root, space="  ")
    body = etree.tostring(root, encoding="UTF-8", xml_declaration=False)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + body + b"\n"


# -- reading ------------------------------------------------------------------------------
class _Reader:
    def __init__(self, file: str | None, report: Report, strict: bool) -> None:
        self.file = file
        self.report = report
        self.strict = strict
        self.errors = 0

    def fail(self, message: str, el: etree._Element | None, code: str = "raf.invalid") -> None:
        self.errors += 1
        self.report.error(code, message, line=el.sourceline if el is not None else None, file=self.file)

    def unexpected(self, el: etree._Element, where: str) -> None:
        what = f"<{el.tag} type={el.get('type')!r}>" if isinstance(el.tag, str) else "node"
        if self.strict:
            self.fail(f"unexpected {what} in {where}", el, "raf.unexpected")
        else:
            self.report.warning("raf.unexpected", f"ignored unexpected {what} in {where}",
                                line=el.sourceline, file=self.file)

    def attributes_of(self, feat: etree._Element) -> tuple[str, model.AttrValue] | None:
        name = feat.get("name")
        if not name:
            self.fail("attribute feat without a name", feat)
            return None
        try:
            return name, decode_value(feat.get("datatype"), feat.text or "")
        except ValueError as exc:
            self.fail(f"attribute {name!r}: {exc}", feat)
            return None

    # primary data ----------------------------------------------------------------------
    def primary_data(self, pd: etree._Element):
        forms: list[str] = []
        ids: list[str] = []
        whitespace: list[str | None] = []
        offsets: list[tuple[int, int] | None] = []
        columns: dict[str, list[str | None]] = {}
        sentences: list[model.Sentence] = []
        seen_ids: dict[str, int] = {}
        extra: list[tuple[int, str, str]] = []  # (token index, column, value)

        def word(w: etree._Element) -> None:
            wid = w.get("id")
            if not wid:
                self.fail("word without an id", w)
                wid = f"__missing_{len(forms)}"
            if wid in seen_ids:
                self.fail(f"duplicate word id {wid!r}", w, "raf.duplicate-id")
            seen_ids[wid] = len(forms)
            form = None
            for f in w:
                if not isinstance(f.tag, str):
                    continue
                t = f.get("type")
                if f.tag == "feat" and t == "form":
                    form = f.text or ""
                elif f.tag == "feat" and t == "attribute":
                    name = f.get("name")
                    if not name:
                        self.fail("token attribute without a name", f)
                        continue
                    extra.append((len(forms), name, f.text or ""))
                else:
                    self.unexpected(f, "word")
            if form is None:
                self.fail(f"word {wid!r} has no form", w)
                form = ""
            start, end = w.get("start"), w.get("end")
            if (start is None) != (end is None):
                self.fail(f"word {wid!r} needs both start and end offsets", w)
                offsets.append(None)
            elif start is not None:
                try:
                    offsets.append((int(start), int(end)))
                except ValueError:
                    self.fail(f"word {wid!r} has non-integer offsets", w)
                    offsets.append(None)
            else:
                offsets.append(None)
            whitespace.append(w.get("after"))
            forms.append(form)
            ids.append(wid)

        for child in pd:
            if not isinstance(child.tag, str):
                continue
            t = child.get("type")
            if child.tag == "feat" and t == "column":
                name = child.get("name")
                if name:
                    columns.setdefault(name, [])
                else:
                    self.fail("column feat without a name", child)
            elif child.tag == "struct" and t == "word":
                word(child)
            elif child.tag == "struct" and t == "sentence":
                first = len(forms)
                comments: list[str] = []
                interleaved: list[tuple[int, str]] = []
                sattrs: dict[str, model.AttrValue] = {}
                for c in child:
                    if not isinstance(c.tag, str):
                        continue
                    ct = c.get("type")
                    if c.tag == "struct" and ct == "word":
                        word(c)
                    elif c.tag == "feat" and ct == "comment":
                        comments.append(c.text or "")
                    elif c.tag == "feat" and ct == "interleaved":
                        try:
                            interleaved.append((int(c.get("before", "")), c.text or ""))
                        except ValueError:
                            self.fail("interleaved feat needs an integer 'before'", c)
                    elif c.tag == "feat" and ct == "attribute":
                        kv = self.attributes_of(c)
                        if kv:
                            sattrs[kv[0]] = kv[1]
                    else:
                        self.unexpected(c, "sentence")
                if len(forms) == first:
                    self.fail("sentence without words", child)
                    continue
                sentences.append(model.Sentence._make(
                    first=first, last=len(forms) - 1, id=child.get("id"), comments=comments,
                    interleaved=interleaved, attributes=sattrs,
                ))
            else:
                self.unexpected(child, "primary_data")
        n = len(forms)
        if sentences and sentences[-1].last != n - 1:
            self.fail("words outside sentences: put every word in a sentence or none", pd)
        for name in list(columns):
            columns[name] = [None] * n
        for i, name, value in extra:
            columns.setdefault(name, [None] * n)[i] = value
        ws_given = [w is not None for w in whitespace]
        if any(ws_given) and not all(ws_given):
            self.fail("'after' must be given on every word or on none", pd)
        off_given = [o is not None for o in offsets]
        if any(off_given) and not all(off_given):
            self.fail("offsets must be given on every word or on none", pd)
        default_ids = all(wid == f"word_{k + 1}" for k, wid in enumerate(ids))
        tokens = model.Tokens._make(
            forms=forms,
            ids=None if default_ids else ids,
            whitespace=list(whitespace) if all(ws_given) and n else None,  # type: ignore[arg-type]
            offsets=list(offsets) if all(off_given) and n else None,  # type: ignore[arg-type]
            attributes=columns,
        )
        return tokens, sentences, seen_ids

    def parse_target(self, target: str, id_index: dict[str, int], el: etree._Element) -> list[model.Span] | None:
        spans: list[model.Span] = []
        for part in target.split(","):
            part = part.strip()
            if ".." in part:
                a, _, b = part.partition("..")
            else:
                a = b = part
            if a not in id_index or b not in id_index:
                missing = a if a not in id_index else b
                self.fail(f"target {target!r} names unknown word {missing!r}", el, "raf.dangling-target")
                return None
            ia, ib = id_index[a], id_index[b]
            if ia > ib:
                self.fail(f"target range {part!r} runs backwards", el)
                return None
            spans.append((ia, ib))
        return spans

    # documents ---------------------------------------------------------------------------
    def document(self, el: etree._Element) -> model.Document | None:
        name = el.get("name")
        if name is None:
            self.fail("document without a name attribute", el)
            name = ""
        metadata: dict[str, str] = {}
        tokens, sentences, id_index = model.Tokens._make(forms=[], ids=None, whitespace=None, offsets=None, attributes={}), [], {}
        entities: list[model.Entity] = []
        markables: list[model.Markable] = []
        links: list[model.Link] = []
        lines: dict[str, int | None] = {}
        errors_before = self.errors
        for child in el:
            if not isinstance(child.tag, str):
                continue
            t = child.get("type")
            if child.tag == "feat" and t == "metadata":
                key = child.get("name")
                if not key:
                    self.fail("metadata feat without a name", child)
                else:
                    metadata[key] = child.text or ""
            elif child.tag == "struct" and t == "primary_data":
                tokens, sentences, id_index = self.primary_data(child)
            elif child.tag == "struct" and t == "entity":
                eid = child.get("id")
                if not eid:
                    self.fail("entity without an id", child)
                    continue
                attrs: dict[str, model.AttrValue] = {}
                for f in child:
                    if isinstance(f.tag, str) and f.tag == "feat" and f.get("type") == "attribute":
                        kv = self.attributes_of(f)
                        if kv:
                            attrs[kv[0]] = kv[1]
                    elif isinstance(f.tag, str):
                        self.unexpected(f, "entity")
                if eid in lines:
                    self.fail(f"duplicate entity id {eid!r}", child, "raf.duplicate-id")
                lines[eid] = child.sourceline
                entities.append(model.Entity._make(id=eid, attributes=attrs))
            elif child.tag == "struct" and t == "markable":
                m = self.markable(child, id_index, tokens, markables)
                if m is not None:
                    markables.append(m)
            elif child.tag == "struct" and t == "reflink":
                link = self.reflink(child)
                if link is not None:
                    links.append(link)
            else:
                self.unexpected(child, "document")
        # references, with line numbers
        markable_ids = {m.id for m in markables}
        entity_ids = {e.id for e in entities}
        entity_ids |= {m.entity for m in markables if m.entity is not None}
        for link in links:
            line_el = self._lines.get(("l", link.id))
            if link.source not in markable_ids:
                self.fail(f"reflink {link.id!r}: source {link.source!r} is not a markable", line_el, "raf.dangling-link")
            pool = markable_ids if link.target_kind == "markable" else entity_ids
            if link.target not in pool:
                self.fail(f"reflink {link.id!r}: target {link.target!r} is not a {link.target_kind}",
                          line_el, "raf.dangling-link")
        if self.errors > errors_before:
            return None
        try:
            return model.Document.build(
                name=name, part=el.get("part"), metadata=metadata, tokens=tokens,
                sentences=sentences, markables=markables, entities=entities, links=links,
            )
        except ModelError as exc:
            for p in exc.problems:
                self.fail(p, el, "model.invariant")
            return None

    _lines: dict[tuple[str, str], etree._Element]

    def markable(self, el, id_index, tokens, markables) -> model.Markable | None:
        mid = el.get("id")
        if not mid:
            self.fail("markable without an id", el)
            return None
        if ("m", mid) in self._lines:
            self.fail(f"duplicate markable id {mid!r}", el, "raf.duplicate-id")
        self._lines[("m", mid)] = el
        spans: list[model.Span] = []
        texts: list[tuple[str, etree._Element]] = []
        entity = None
        head = None
        attrs: dict[str, model.AttrValue] = {}
        ok = True
        for f in el:
            if not isinstance(f.tag, str):
                continue
            t = f.get("type")
            if f.tag != "feat":
                self.unexpected(f, "markable")
            elif t == "sourcetext":
                got = self.parse_target(f.get("target", ""), id_index, f)
                if got is None:
                    ok = False
                else:
                    spans.extend(got)
                    texts.append((f.text or "", f))
            elif t == "entity":
                entity = f.get("target")
            elif t == "head":
                got = self.parse_target(f.get("target", ""), id_index, f)
                if got is None:
                    ok = False
                else:
                    head = tuple(_normalise(got))
            elif t == "attribute":
                kv = self.attributes_of(f)
                if kv:
                    attrs[kv[0]] = kv[1]
            else:
                self.unexpected(f, "markable")
        if not ok:
            return None
        if not spans:
            self.fail(f"markable {mid!r} has no sourcetext target", el, "raf.empty-target")
            return None
        normal = tuple(_normalise(spans))
        m = model.Markable.fast(mid, normal, entity, head, attrs)
        if len(texts) == len(spans) and len(normal) == len(spans):
            forms = tokens.forms
            for (text, f), span in zip(texts, spans):
                if text and span[1] < len(forms):
                    expected = _span_text(tokens, span)
                    if " ".join(text.split()) != " ".join(expected.split()):
                        self.report.warning(
                            "raf.sourcetext-mismatch",
                            f"markable {mid!r}: sourcetext {text!r} differs from the words "
                            f"it targets ({expected!r}); the words win",
                            line=f.sourceline, file=self.file, merge=False,
                        )
        return m

    def reflink(self, el) -> model.Link | None:
        lid = el.get("id")
        if not lid:
            self.fail("reflink without an id", el)
            return None
        if ("l", lid) in self._lines:
            self.fail(f"duplicate reflink id {lid!r}", el, "raf.duplicate-id")
        self._lines[("l", lid)] = el
        ltype = source = target = None
        kind = "markable"
        attrs: dict[str, model.AttrValue] = {}
        for f in el:
            if not isinstance(f.tag, str):
                continue
            t = f.get("type")
            if f.tag != "feat":
                self.unexpected(f, "reflink")
            elif t == "reflinktype":
                ltype = (f.text or "").strip()
            elif t == "source":
                source = f.get("target")
            elif t == "target":
                target = f.get("target")
                kind = f.get("kind", "markable")
                if kind not in ("markable", "entity"):
                    self.fail(f"reflink {lid!r}: target kind must be markable or entity", f)
                    return None
            elif t == "attribute":
                kv = self.attributes_of(f)
                if kv:
                    attrs[kv[0]] = kv[1]
            else:
                self.unexpected(f, "reflink")
        if not ltype or source is None or target is None:
            self.fail(f"reflink {lid!r} needs reflinktype, source and target", el)
            return None
        return model.Link.fast(lid, source, (target,), ltype, kind, attrs)

    def corpus(self, tree: etree._ElementTree) -> model.Corpus:
        root = tree.getroot()
        if root.tag != "struct" or root.get("type") != ROOT_TYPE:
            raise FormatError(
                f"not a RAF file: root element is <{root.tag} type={root.get('type')!r}>, "
                f"expected <struct type=\"{ROOT_TYPE}\">",
                file=self.file, line=root.sourceline,
            )
        metadata: dict[str, str] = {}
        documents: list[model.Document] = []
        for child in root:
            if not isinstance(child.tag, str):
                continue
            t = child.get("type")
            if child.tag == "feat" and t == "metadata" and child.get("name"):
                metadata[child.get("name")] = child.text or ""
            elif child.tag == "struct" and t == "document":
                self._lines = {}
                doc = self.document(child)
                if doc is not None:
                    documents.append(doc)
            else:
                self.unexpected(child, "the collection")
        if self.errors:
            first = self.report.errors[0]
            raise FormatError(
                f"{self.errors} error(s) in RAF file; first: {first.message}",
                file=self.file, line=first.line,
            )
        return model.Corpus._make(documents=documents, metadata=metadata)


def _normalise(spans: list[model.Span]) -> list[model.Span]:
    """Sort spans and merge overlapping or adjacent ones (the model's canonical form)."""
    out: list[model.Span] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _span_text(tokens: model.Tokens, span: model.Span) -> str:
    a, b = span
    if tokens.whitespace is None:
        return " ".join(tokens.forms[a : b + 1])
    return "".join(tokens.forms[i] + (tokens.whitespace[i] if i < b else "") for i in range(a, b + 1))


def loads(data: bytes | str, *, report: Report | None = None, strict: bool = False, file: str | None = None) -> model.Corpus:
    if isinstance(data, str):
        data = data.encode("utf-8")
    report = report if report is not None else Report(file)
    tree = parse_xml(data, file=file)
    return _Reader(file, report, strict).corpus(tree)


def read(path: str | Path, *, report: Report | None = None, strict: bool = False, **_: object) -> model.Corpus:
    """Read a RAF file. Raises :class:`FormatError` naming the first error's line."""
    report = report if report is not None else Report(str(path))
    tree = parse_xml(path)
    return _Reader(str(path), report, strict).corpus(tree)


def sniff(head: bytes) -> bool:
    return b"<struct" in head and ROOT_TYPE.encode() in head


register(
    FormatSpec(
        name="raf",
        description="RAF pivot XML (seed 003 Figure 1, extended): holds everything the model holds",
        extensions=(".raf", ".raf.xml"),
        ambiguous_extensions=(".xml",),
        capabilities=Capabilities(
            discontinuous=True, nested=True, cross_sentence=True, singletons=True,
            entity_ids=True, link_structure=True, link_types=True, markable_attributes=True,
            entity_attributes=True, heads=True, token_attributes=True, whitespace=True,
            offsets=True, multiple_documents=True,
        ),
        read=read,
        dumps=dumps,
        sniff=sniff,
    )
)
