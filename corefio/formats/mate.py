"""MATE coreference XML: discourse entities, links with anchors, universe entities.

Sources read for this module
----------------------------
* MATE Dialogue Annotation Guidelines, coreference chapter, section 4 "Markup elements
  common to all options" (http://www.ims.uni-stuttgart.de/projekte/mate/mdag/cr/cr_4.html;
  Poesio, Bruneseaux and Romary 1999, reused in Davies and Poesio 2000, MATE
  Deliverable 1.1 ch. 3): one element, ``<coref:de>``, marks every text span that
  introduces a discourse entity (anaphors and antecedents alike); co-specification is a
  separate element, ``<coref:link>``, whose ``<coref:anchor>`` children name the
  antecedents, so that one discourse entity can be linked to several others, including
  entities of the universe of discourse (``<coref:ue>``), which have no text.
* Poesio 2004, "The MATE/GNOME proposals for anaphoric annotation, revisited"
  (SIGDIAL workshop, W04-2327): the scheme as a meta-scheme, used by GNOME and VENEX,
  with standoff annotation pointing into a base file of words and ambiguous links that
  list several anchors.

The grammar implemented (``schemas/mate.xsd`` is its XSD)
---------------------------------------------------------
Every element is in one namespace, :data:`NS`, written with the ``coref`` prefix
(**decided**: MATE used the prefix without fixing a URI; one namespace lets one XSD cover
the whole file). The reader matches elements by local name whatever their namespace, so
un-prefixed ``<de>``/``<link>`` files (GNOME style) are read too. Inline variant::

    <coref:mate xmlns:coref="…" version="1.0">
    <coref:doc name="peaks" part="000">
    <coref:s id="s1"><coref:de ID="m1"><coref:w>The</coref:w> <coref:w>peak</coref:w></coref:de> …</coref:s>
    <coref:ue ID="E1" etype="person"/>
    <coref:link ID="l1" href="#id(m2)" type="ident"><coref:anchor href="#id(m1)"/></coref:link>
    <coref:link ID="l2" href="#id(m5)" type="element"><coref:anchor href="#id(m1)"/><coref:anchor href="#id(m3)"/></coref:link>
    </coref:doc>
    </coref:mate>

* ``doc`` (**decided**: the root ``mate`` holds one ``doc`` per document; a file whose
  root is not ``mate`` is read as one document named after the file);
  ``name``/``part`` attributes.
* words are ``w`` elements (form as text, optional ``id``, every other attribute a token
  attribute column). **Decided**: character data outside ``w`` must be white space (the
  MATE examples wrap plain text; requiring words keeps the Python reader and
  ``xslt/mate-to-raf.xsl`` tokenising alike). Words are written separated by one space
  (the exact white space is not kept).
* ``s`` groups words into sentences (optional ``id``, other attributes kept as sentence
  attributes); either every word is in an ``s`` or none is.
* ``de`` with ``ID`` around its words; ``de`` nest, so markables cannot cross each other,
  a sentence boundary, or be discontinuous. Other attributes are markable attributes
  (strings).
* ``ue`` with ``ID`` (and attributes): a universe entity, an :class:`Entity`. A link
  whose anchors are universe entities is a link to entities (``target_kind="entity"``);
  anchors of both kinds in one link are refused (**decided**: the model keeps one kind
  per link).
* ``link`` with ``href`` (the anaphor), ``type`` and optional ``ID``, other attributes
  being link attributes; its ``anchor`` children (one or more) are the antecedents, in
  order. Several anchors are one ambiguous link: one :class:`Link` with several targets.
  ``type="ident"`` is identity (read as ``coreference``, written back as ``ident``);
  ``element``, ``subset``, ``poss`` and every other type are non-identity relations that
  never merge chains, as the guidelines distinguish identity from other co-specification.
  Links without ``ID`` are numbered ``link_1``… and written back without one.
* ``href`` values: ``#id(X)`` (the guidelines' form), also read as ``#X`` or ``X``.

Standoff variant (write option ``standoff``; the writer makes two or more files, so it
is :func:`write_files`: ``corpus.mate.xml`` and one base file per document, named as the
source named it, else ``words_<k>.xml``)::

    <coref:doc name="peaks" words="words_1.xml">
    <coref:de ID="m1" href="words_1.xml#id(w_1)..id(w_3)"/>
    ...
    <coref:words><coref:s id="s1"><coref:w id="w_1">The</coref:w> …</coref:s></coref:words>

The base file (root ``words``) holds the document's words (``s`` and ``w`` as above; ids
required); ``de`` elements are empty and point to a word or a range of words; the file
part of an ``href`` is resolved next to the coreference file (**decided**: a relative
path without ``..``; anything else is refused, so a file cannot make the reader open
files elsewhere).

Chains: ident links and shared entities. A document whose markables carry entity ids (a
CoNLL cluster) is written with one ident link from each mention to the previous mention
of its chain (as the MUC writer does); a document with only links keeps them as they
are. Declared entities become ``ue`` elements.

Layout (:class:`MateLayout`): whether the source prefixed its elements, wrote link ids,
the base file names: what the writer needs to give the source back identically after XML
canonicalisation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ..io._lazy import LazyModule
from ..model.mentions import COREFERENCE, is_identity
from ..diagnostics import Report
from ..errors import FormatError, UsageError
from ._layers import coreference_layer
from .losses import LossLog, lose_entity_ids
from ..model.layout import FormatLayout
from .registry import Capabilities, FormatSpec, Option, register
from ..io.source import Source

etree = LazyModule("lxml.etree")
model = LazyModule("corefio.model")

NAME = "mate"
#: the namespace of every element (a decision of this module, see the docstring)
NS = "http://www.ims.uni-stuttgart.de/projekte/mate/mdag/cr"
VERSION = "1.0"
IDENT = "ident"
_HREF = re.compile(r"^\s*(?P<file>[^#]*)#?(?:id\((?P<a>[^)]*)\)|(?P<b>[^.()\s][^()]*?))"
                   r"(?:\.\.id\((?P<c>[^)]*)\))?\s*$")
_XML_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9._-]*$")
_RESERVED = {"de": {"ID", "href"}, "link": {"ID", "href", "type"}, "ue": {"ID"}, "w": {"id"}}
#: characters XML 1.0 cannot hold (a file with one is not XML)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
#: what a word form cannot hold and still meet the schema's ``.*\S.*``: a line break
#: (XSD's ``.``), besides what XML cannot hold
_FORM_BREAKS = re.compile("[\n\r\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
#: XML white space: what a form must hold more than (``\S`` of XSD; a no-break space is text)
_XML_SPACE = " \t\n\r"


@dataclass
class MateLayout(FormatLayout):
    """How a MATE source wrote what the model does not hold."""

    format: ClassVar[str] = NAME
    depends_on: ClassVar[frozenset[str]] = frozenset({"markables", "links"})

    #: elements without the ``coref`` namespace (GNOME-style ``<de>``)
    plain: bool = False
    #: link ids the source did not write (generated on reading)
    unnamed_links: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


# -- reading ----------------------------------------------------------------------------------
def _local(el: Any) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]


def _parse_href(value: str, what: str, el: Any, file: str) -> tuple[str, str, str | None]:
    """(file part, first id, last id or None) of an ``href``."""
    found = _HREF.match(value or "")
    if found is None:
        raise FormatError(f"{what} href {value!r} is not '#id(X)' or 'file#id(X)..id(Y)'",
                          file=file, line=el.sourceline)
    first = found.group("a") if found.group("a") is not None else found.group("b")
    return found.group("file"), first.strip(), found.group("c").strip() if found.group("c") else None


class _DocReader:
    """Builds one document from its ``doc`` element."""

    def __init__(self, el: Any, source: Source, report: Report, name: str, base_cache: dict) -> None:
        self.el = el
        self.source = source
        self.report = report
        self.name = name
        self.base_cache = base_cache
        self.forms: list[str] = []
        self.ids: list[str | None] = []
        self.columns: dict[str, dict[int, str]] = {}
        self.sentences: list[Any] = []
        self.markables: list[Any] = []
        self.entities: list[Any] = []
        self.links: list[tuple] = []
        self.unsentenced = 0
        self.plain = False

    def fail(self, message: str, el: Any) -> FormatError:
        return FormatError(message, file=self.source.name, line=el.sourceline)

    def text_check(self, text: str | None, el: Any) -> None:
        if text and text.strip():
            raise self.fail(f"text {text.strip()[:30]!r} outside a <w> element (MATE words must be "
                            "<w> elements)", el)

    def word(self, el: Any) -> None:
        if len(el):
            raise self.fail("a <w> element holds only its form", el)
        form = el.text or ""
        if not form.strip(_XML_SPACE):  # (XML white space: a no-break space is a form)
            raise self.fail("empty word form", el)
        k = len(self.forms)
        self.forms.append(form)
        self.ids.append(el.get("id"))
        for key, value in el.attrib.items():
            if key != "id":
                self.columns.setdefault(key, {})[k] = value

    def walk(self, el: Any, in_sentence: bool) -> None:
        """Inline content: words, sentences, discourse entities, in document order."""
        self.text_check(el.text, el)
        for child in el:
            kind = _local(child)
            if isinstance(child.tag, str) and not child.tag.startswith("{"):
                self.plain = True
            if kind == "w":
                if not in_sentence:
                    self.unsentenced += 1
                self.word(child)
            elif kind == "s":
                if in_sentence:
                    raise self.fail("<s> inside <s>", child)
                first = len(self.forms)
                self.walk(child, True)
                if len(self.forms) == first:
                    raise self.fail("a sentence without words", child)
                attrs = {k: v for k, v in child.attrib.items() if k != "id"}
                self.sentences.append(model.Sentence(first=first, last=len(self.forms) - 1,
                                                            id=child.get("id"), attributes=attrs))
            elif kind == "de":
                ident = child.get("ID")
                if not ident:
                    raise self.fail("<de> without ID", child)
                slot = len(self.markables)
                self.markables.append(None)
                first = len(self.forms)
                if child.get("href") is not None:
                    raise self.fail("a standoff <de href> inside the text", child)
                self.walk(child, in_sentence)
                if len(self.forms) == first:
                    raise self.fail(f"discourse entity {ident} covers no word", child)
                self.markables[slot] = self.markable(child, ((first, len(self.forms) - 1),))
            elif kind in ("link", "ue"):
                self.annotation(child)
            elif isinstance(child.tag, str):
                raise self.fail(f"unexpected element <{kind}> in MATE text", child)
            self.text_check(child.tail, child)

    def markable(self, el: Any, spans: tuple) -> Any:
        attrs = {k: v for k, v in el.attrib.items() if k not in ("ID", "href")}
        return model.Markable.fast(el.get("ID"), spans, attributes=attrs)

    def annotation(self, el: Any) -> None:
        kind = _local(el)
        if kind == "ue":
            ident = el.get("ID")
            if not ident:
                raise self.fail("<ue> without ID", el)
            attrs = {k: v for k, v in el.attrib.items() if k != "ID"}
            self.entities.append(model.Entity(id=ident, attributes=attrs))
            return
        href = el.get("href")
        if href is None:
            raise self.fail("<link> without href", el)
        _, source, _ = _parse_href(href, "link", el, self.source.name)
        anchors = [a for a in el if _local(a) == "anchor"]
        if not anchors:
            raise self.fail("<link> without <anchor>", el)
        for child in el:
            if isinstance(child.tag, str) and _local(child) != "anchor":
                raise self.fail(f"unexpected element <{_local(child)}> in <link>", child)
        targets = tuple(_parse_href(a.get("href", ""), "anchor", a, self.source.name)[1] for a in anchors)
        attrs = {k: v for k, v in el.attrib.items() if k not in ("ID", "href", "type")}
        self.links.append((el.get("ID"), source, targets, el.get("type") or IDENT, attrs, el))

    # -- standoff -----------------------------------------------------------------------
    def base_words(self, file_part: str, el: Any) -> "_DocReader":
        """Read the base file of words once; its word ids → positions."""
        if file_part in self.base_cache:
            words = self.base_cache[file_part]
        else:
            if self.source.path is None:
                raise self.fail(f"standoff MATE in memory cannot open its base file {file_part!r}", el)
            if Path(file_part).is_absolute() or ".." in Path(file_part).parts or "://" in file_part:
                raise self.fail(f"the base file {file_part!r} must be a relative path below the MATE file", el)
            path = Path(self.source.path).parent / file_part
            from ..io.xmlsafe import parse_xml

            base_tree = parse_xml(path)
            check_schema(base_tree, str(path), self.report)
            base = base_tree.getroot()
            words = _DocReader(base, Source.of(path), self.report, self.name, {})
            words.walk(base, False)
            if words.markables or words.links or words.entities:
                raise self.fail(f"the base file {file_part} holds annotation, not only words", el)
            self.base_cache[file_part] = words
        return words

    def standoff(self, words_file: str) -> None:
        base = self.base_words(words_file, self.el)
        self.forms, self.ids, self.columns = base.forms, base.ids, base.columns
        self.sentences, self.unsentenced = base.sentences, base.unsentenced
        index = {tid: k for k, tid in enumerate(base.ids) if tid is not None}
        for child in self.el:
            if isinstance(child.tag, str) and not child.tag.startswith("{"):
                self.plain = True
            kind = _local(child)
            if kind == "de":
                ident = child.get("ID")
                if not ident:
                    raise self.fail("<de> without ID", child)
                file_part, a, b = _parse_href(child.get("href", ""), "de", child, self.source.name)
                if file_part and file_part != words_file:
                    raise self.fail(f"de {ident} points into {file_part}, not the document's base file "
                                    f"{words_file}", child)
                try:
                    first, last = index[a], index[b if b is not None else a]
                except KeyError as exc:
                    raise self.fail(f"de {ident} names the word {exc.args[0]!r}, not in {words_file}",
                                    child) from None
                if last < first:
                    raise self.fail(f"de {ident} ends before it starts", child)
                if len(child):
                    raise self.fail(f"standoff de {ident} must be empty", child)
                self.markables.append(self.markable(child, ((first, last),)))
            elif kind in ("link", "ue"):
                self.annotation(child)
            elif isinstance(child.tag, str):
                raise self.fail(f"unexpected element <{kind}> in a standoff MATE document", child)
            self.text_check(child.tail, child)
        self.text_check(self.el.text, self.el)

    # -- the document -------------------------------------------------------------------
    def build(self) -> Any:
        words_file = self.el.get("words")
        if words_file is not None:
            self.standoff(words_file)
        else:
            self.walk(self.el, False)
        if self.sentences and self.unsentenced:
            raise self.fail("some words are in <s> elements and others are not", self.el)
        n = len(self.forms)
        ids: list[str] | None = None
        if any(t is not None for t in self.ids):
            ids = [t if t is not None else f"word_{k + 1}" for k, t in enumerate(self.ids)]
            if ids == [f"word_{k + 1}" for k in range(n)]:
                ids = None
        columns = {name: [values.get(k) for k in range(n)] for name, values in self.columns.items()}
        entity_ids = {e.id for e in self.entities}
        refs = {m.id for m in self.markables}
        links = []
        unnamed = []
        for k, (ident, source, targets, type_, attrs, el) in enumerate(self.links):
            if ident is None:
                ident = f"link_{k + 1}"
                unnamed.append(ident)
            kinds = {"entity" if t in entity_ids and t not in refs else "markable" for t in targets}
            if len(kinds) > 1:
                raise self.fail(f"link {ident} anchors both discourse and universe entities", el)
            links.append(model.Link.fast(ident, source, targets, COREFERENCE if type_ == IDENT else type_,
                                         kinds.pop(), attrs))
        layout = {}
        if self.plain or unnamed or words_file is not None:
            extra = {"words": words_file} if words_file is not None else {}
            layout[NAME] = MateLayout(plain=self.plain, unnamed_links=tuple(unnamed), extra=extra)
        tokens = model.Tokens(forms=self.forms, ids=ids, whitespace=None, offsets=None, attributes=columns)
        try:
            return model.Document.build(name=self.name, part=self.el.get("part"), tokens=tokens,
                                        sentences=self.sentences, markables=self.markables,
                                        entities=self.entities, links=links, layout=layout)
        except Exception as exc:  # ModelError: name the source
            raise FormatError(f"document {self.name}: {exc}", file=self.source.name) from None


def check_schema(tree: Any, file: str | None, report: Report) -> None:
    """Warn where ``schemas/mate.xsd`` refuses what the reader reads: a file whose root
    element has a namespace is checked (``schema.invalid``, a warning here, an error for
    ``corefio validate``); one in another namespace than MATE's is read by local names
    and said so (``mate.namespace``). A file without namespaces (GNOME-style) has no
    schema: the reader's checks are all."""
    root = tree.getroot()
    namespace = etree.QName(root).namespace
    if namespace is None:
        return
    if namespace != NS:
        report.warning("mate.namespace", f"the root element is in the namespace {namespace[:80]!r}, not MATE's "
                       f"{NS!r}: read by local names", line=root.sourceline, file=file)
    from .raf import schema_errors

    schema_errors(tree, "mate.xsd", report, file, severity="warning")


def stream(source: Source, *, report: Report, strict: bool) -> Iterator[Any]:
    """The documents of a MATE file (inline or standoff), one at a time."""
    from ..io.xmlsafe import parse_xml

    if source.is_directory:
        assert source.path is not None
        found = sorted(Path(source.path).glob("*.mate.xml"))
        if len(found) != 1:
            raise FormatError(f"a MATE directory needs exactly one *.mate.xml file, found {len(found)}",
                              file=source.name)
        source = Source.of(found[0])
    tree = parse_xml(source.read_bytes(), file=source.name)
    root = tree.getroot()
    check_schema(tree, source.name, report)
    cache: dict = {}
    if _local(root) == "mate":
        docs = [el for el in root if _local(el) == "doc"]
        for el in root:
            if isinstance(el.tag, str) and _local(el) != "doc":
                raise FormatError(f"unexpected element <{_local(el)}> in <mate>", file=source.name,
                                  line=el.sourceline)
        for k, el in enumerate(docs):
            name = el.get("name") or (source.stem if len(docs) == 1 else f"{source.stem}_{k + 1}")
            yield _DocReader(el, source, report, name, cache).build()
    else:
        yield _DocReader(root, source, report, root.get("name") or source.stem, cache).build()


def read(source: Source, *, report: Report, strict: bool) -> Any:
    return model.Corpus(documents=list(stream(source, report=report, strict=strict)))


# -- writing ----------------------------------------------------------------------------------
def _esc(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attr(value: str) -> str:
    return (_esc(value).replace('"', "&quot;").replace("\t", "&#9;").replace("\n", "&#10;")
            .replace("\r", "&#13;"))


def _fresh_name(wanted: str, taken: set[str]) -> str:
    """``wanted`` made an XML name (other characters become ``_``) that is not in
    ``taken`` (numbered ``_2``, ``_3``… when it is)."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", wanted)
    if not re.match(r"[A-Za-z_]", name):
        name = "_" + name
    base, k = name, 1
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    return name


def one_layer(doc: Any) -> Any:
    """``doc`` with the markables MATE holds: MATE has no layers, so a markable of another
    layer than coreference is not written (``loss.layers`` was reported before writing)
    unless it takes part in a chain, as :func:`corefio.formats.losses.project` keeps it; then it
    moves to the coreference layer under its own id when no other markable has it, else
    under ``<layer>.<id>`` made an XML name. Links follow the renaming; a link to a
    markable not written loses that target (the link goes when none is left)."""
    return coreference_layer(doc, new_id=_xml_name_for)


def _xml_name_for(m: Any, unique: bool, taken: set[str]) -> str:
    """A chained markable's id in MATE: its own when unique and an XML name, else
    ``<layer>.<id>`` made an XML name."""
    if unique and _XML_NAME.match(m.id):
        return m.id
    return _fresh_name(f"{m.layer}.{m.id}", taken)


def _referable(ident: str) -> bool:
    """Can ``#id(ident)`` name this id and read back as it (``href`` of the schema)?"""
    return (bool(ident) and ")" not in ident and ident.strip(_XML_SPACE) == ident
            and _NOT_XML.search(ident) is None)


def _referable_ids(doc: Any, log: LossLog) -> Any:
    """``doc`` with every markable and entity id an ``href`` can name and the schema's
    ``entity-ids`` keeps apart (a ``de`` and a ``ue`` never share an ``ID``): others
    are renamed (``loss.label``), references following."""
    markable_ids = [m.id for m in doc.markables]
    entity_ids = [e.id for e in doc.entities]
    bad_markables = [i for i in markable_ids if not _referable(i)]
    clashing = set(markable_ids) & set(entity_ids)
    bad_entities = [i for i in entity_ids if not _referable(i) or i in clashing]
    if not bad_markables and not bad_entities:
        return doc
    taken = set(markable_ids) | set(entity_ids)
    new_markable: dict[str, str] = {}
    for ident in bad_markables:
        new_markable[ident] = _fresh_name(ident, taken)
        taken.add(new_markable[ident])
    new_entity: dict[str, str] = {}
    for ident in bad_entities:
        new_entity[ident] = _fresh_name(ident, taken)
        taken.add(new_entity[ident])
    lose_entity_ids(log, doc, [*bad_markables, *bad_entities],
                    "ids an href cannot name, or shared by a discourse and a universe entity (renamed)")
    markables = [m.copy(id=new_markable.get(m.id, m.id), entity=new_entity.get(m.entity, m.entity))
                 if m.id in new_markable or m.entity in new_entity else m for m in doc.markables]
    entities = [e.copy(id=new_entity[e.id]) if e.id in new_entity else e for e in doc.entities]
    links = []
    for link in doc.links:
        names = new_markable if link.target_kind == "markable" else new_entity
        links.append(link.copy(source=new_markable.get(link.source, link.source),
                               targets=tuple(names.get(t, t) for t in link.targets)))
    return doc.copy(markables=markables, entities=entities, links=links)


class _Writer:
    def __init__(self, doc: Any, report: Report) -> None:
        self.log = LossLog(report, NAME)
        doc = _referable_ids(one_layer(doc), self.log)
        self.doc = doc
        self.report = report
        layout = doc.layout.get(NAME)
        self.plain = isinstance(layout, MateLayout) and layout.plain
        self.unnamed = set(layout.unnamed_links) if isinstance(layout, MateLayout) else set()
        self.p = "" if self.plain else "coref:"

    def _a(self, value: str) -> str:
        """An attribute value, escaped; a character XML cannot hold becomes U+FFFD
        (``loss.value``)."""
        if _NOT_XML.search(value) is not None:
            self.log.lose("value", "characters XML 1.0 cannot hold (control characters; written as U+FFFD)",
                          document=self.doc, example=repr(value[:40]))
            value = _NOT_XML.sub("\ufffd", value)
        return _attr(value)

    def form(self, form: str) -> str:
        """A word form as the schema takes it: some text besides XML white space, no line
        break; otherwise ``loss.form``, with ``_`` for each line break or character XML
        cannot hold, and ``_`` for a form of white space only."""
        if _FORM_BREAKS.search(form) is None and form.strip(_XML_SPACE):
            return _esc(form)
        self.log.lose("form", "empty word forms, forms of white space only and line breaks or control "
                      "characters in forms (written as '_')", document=self.doc, example=repr(form[:40]))
        form = _FORM_BREAKS.sub("_", form)
        return _esc(form if form.strip(_XML_SPACE) else "_")

    def attrs(self, values: dict, kind: str, owner: str) -> str:
        out = []
        for key, value in values.items():
            if not _XML_NAME.match(key) or key in _RESERVED[kind] or ":" in key:
                self.log.lose("label", f"the {kind} attribute name {key!r}", document=self.doc, example=owner)
                continue
            if value is None:
                continue
            if not isinstance(value, str):
                self.log.lose("value", f"typed {kind} attribute values (written as text)", document=self.doc,
                              example=f"{owner} {key}={value!r}")
                value = "true" if value is True else "false" if value is False else str(value)
            out.append(f' {key}="{self._a(value)}"')
        return "".join(out)

    def written_markables(self) -> list[Any]:
        """The markables the nesting of ``de`` elements can hold, in opening order."""
        doc = self.doc
        sentence = doc.sentence_of_token() if doc.sentences else None
        order = sorted(range(len(doc.markables)),
                       key=lambda i: (doc.markables[i].first, -doc.markables[i].last, i))
        kept: list[Any] = []
        stack: list[int] = []
        dropped = []
        for i in order:
            m = doc.markables[i]
            first, last = m.first, m.last
            while stack and stack[-1] < first:
                stack.pop()
            if (stack and last > stack[-1]) or (sentence is not None and sentence[first] != sentence[last]):
                dropped.append(m.ref)
                continue
            stack.append(last)
            kept.append(m if len(m.spans) == 1 else m.copy(spans=((first, last),)))
        if dropped:  # the loss itself is reported before writing (crossing, cross_sentence)
            self.report.add("mate.dropped-markable", "warning", "markables crossing another one or a "
                            "sentence boundary are not written", document=doc.label, count=len(dropped),
                            merge=True, example=dropped[0])
        return kept

    def word(self, k: int, with_id: bool) -> str:
        toks = self.doc.tokens
        attrs = ""
        if with_id:
            attrs = f' id="{self._a(toks.token_id(k))}"'
        if toks.attributes:
            attrs += self.attrs({n: col[k] for n, col in toks.attributes.items()}, "w", toks.token_id(k))
        return f"<{self.p}w{attrs}>{self.form(toks.forms[k])}</{self.p}w>"

    def sentence_open(self, s: Any) -> str:
        ident = f' id="{self._a(s.id)}"' if s.id is not None else ""
        attrs = {k: v for k, v in s.attributes.items() if k != "id"}
        return f"<{self.p}s{ident}{self.attrs(attrs, 'w', s.id or 'sentence')}>"

    def words(self, markables: list[Any] | None) -> list[str]:
        """Lines of words (one per sentence); with ``markables``, the ``de`` around them."""
        doc, p = self.doc, self.p
        n = len(doc.tokens.forms)
        with_id = doc.tokens.ids is not None or markables is None
        opens: dict[int, list[Any]] = {}
        for m in markables or ():
            opens.setdefault(m.first, []).append(m)
        sentences = doc.sentences or [None]
        lines = []
        for s in sentences:
            a, b = (0, n - 1) if s is None else (s.first, s.last)
            parts = [] if s is None else [self.sentence_open(s)]
            stack: list[int] = []
            for k in range(a, b + 1):
                if k > a:
                    parts.append(" ")
                for m in opens.get(k, ()):
                    parts.append(f'<{p}de ID="{self._a(m.id)}"{self.attrs(m.attributes, "de", m.ref)}>')
                    stack.append(m.last)
                parts.append(self.word(k, with_id))
                while stack and stack[-1] == k:
                    stack.pop()
                    parts.append(f"</{p}de>")
            if s is not None:
                parts.append(f"</{p}s>")
            if a <= b:
                lines.append("".join(parts) + "\n")
        return lines

    def links(self, written: list[Any]) -> list[tuple[str, str, tuple[str, ...], str, dict]]:
        """(id, source, targets, type, attributes) of the links to write."""
        doc = self.doc
        refs = {m.ref for m in written}
        entities = {e.id for e in doc.entities}
        out = []
        exact = all(m.entity is None for m in doc.markables)
        for link in doc.links:
            if not exact and is_identity(link.type):
                continue
            targets = link.targets
            if link.target_kind == "entity":
                missing = [t for t in targets if t not in entities]
                if missing:
                    # an entity that is a chain (CorefUD's Bridge=e1<e2) has no <ue> for an
                    # anchor, and MATE names chains by no id: the link cannot be written
                    self.log.lose("link-types", "links to entities that are chains (an anchor is a <de> or a "
                                  "<ue>)", document=doc, example=link.id)
                    continue
            if link.source not in refs or (link.target_kind == "markable" and not set(targets) <= refs):
                # its markable went (it crossed another or a sentence boundary: reported)
                self.log.lose("link-ends", "links whose markable is not written (one per link)",
                              document=doc, example=link.id, done="dropped")
                continue
            out.append((link.id, link.source, targets, IDENT if link.type == COREFERENCE else link.type,
                        link.attributes))
        if not exact:
            index = doc.markable_index()
            taken = {ident for ident, *_ in out}
            k = 0
            for chain in doc.chain_indices():
                members = sorted((doc.markables[i] for i in chain if doc.markables[i].ref in refs),
                                 key=lambda m: (m.first, -m.last, index[m.ref]))
                for prev, m in zip(members, members[1:]):
                    k += 1
                    while f"ident_{k}" in taken:
                        k += 1
                    out.append((f"ident_{k}", m.ref, (prev.ref,), IDENT, {}))
        return out

    def annotations(self, written: list[Any]) -> list[str]:
        p = self.p
        lines = []
        for e in self.doc.entities:
            lines.append(f'<{p}ue ID="{self._a(e.id)}"{self.attrs(e.attributes, "ue", e.id)}/>\n')
        for ident, source, targets, type_, attrs in self.links(written):
            name = "" if ident in self.unnamed else f' ID="{self._a(ident)}"'
            anchors = "".join(f'<{p}anchor href="#id({self._a(t)})"/>' for t in targets)
            lines.append(f'<{p}link{name} href="#id({self._a(source)})" type="{self._a(type_)}"'
                         f'{self.attrs(attrs, "link", ident)}>{anchors}</{p}link>\n')
        return lines

    def doc_open(self, extra: str = "") -> str:
        doc = self.doc
        part = f' part="{self._a(doc.part)}"' if doc.part is not None else ""
        return f'<{self.p}doc name="{self._a(doc.name)}"{part}{extra}>\n'

    def inline(self) -> str:
        written = self.written_markables()
        return "".join([self.doc_open(), *self.words(written), *self.annotations(written), f"</{self.p}doc>\n"])

    def standoff(self, words_file: str) -> tuple[str, str]:
        written = self.written_markables()
        p = self.p
        ids = self.doc.tokens.all_ids()
        if not all(map(_referable, ids)):
            self.log.lose("token-ids", "token ids an href cannot name (the words are numbered word_1, word_2... "
                          "instead)", document=self.doc, example=next(repr(i) for i in ids if not _referable(i)))
            self.doc = self.doc.copy(tokens=self.doc.tokens.copy(ids=None))
            ids = self.doc.tokens.all_ids()
        lines = [self.doc_open(f' words="{self._a(words_file)}"')]
        for m in written:
            a, b = ids[m.first], ids[m.last]
            target = f"id({a})" if a == b else f"id({a})..id({b})"
            lines.append(f'<{p}de ID="{self._a(m.id)}" href="{self._a(words_file)}#{self._a(target)}"'
                         f'{self.attrs(m.attributes, "de", m.ref)}/>\n')
        lines += self.annotations(written)
        lines.append(f"</{p}doc>\n")
        base = _header(self.plain, "words") + "".join(self.words(None)) + f"</{p}words>\n"
        return "".join(lines), base


def _header(plain: bool, root: str = "mate") -> str:
    if plain:
        return f'<?xml version="1.0" encoding="UTF-8"?>\n<{root} version="{VERSION}">\n'
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<coref:{root} xmlns:coref="{NS}" version="{VERSION}">\n'


def _plain_corpus(documents: list[Any]) -> bool:
    layouts = [d.layout.get(NAME) for d in documents]
    return bool(layouts) and all(isinstance(lay, MateLayout) and lay.plain for lay in layouts)


def write(documents: Iterable[Any], *, corpus: Any, report: Report, standoff: bool = False) -> Iterator[str]:
    """Inline MATE, one ``doc`` per document (standoff needs several files:
    :func:`write_files`)."""
    if standoff:
        raise UsageError("standoff MATE is several files: write it with dump_files or to a directory")
    documents = iter(documents)
    first = next(documents, None)
    plain = first is not None and _plain_corpus([first])
    yield _header(plain)
    for doc in ([first] if first is not None else []):
        yield _Writer(doc, report).inline()
    for doc in documents:
        yield _Writer(doc, report).inline()
    yield "</mate>\n" if plain else "</coref:mate>\n"


def write_files(corpus: Any, *, report: Report, standoff: bool = False) -> dict[str, bytes]:
    """``corpus.mate.xml`` (inline), or with ``standoff`` that file plus one base file of
    words per document (``words_<k>.xml``)."""
    plain = _plain_corpus(corpus.documents)
    if not standoff:
        return {"corpus.mate.xml": "".join(write(corpus.documents, corpus=corpus, report=report)).encode("utf-8")}
    files: dict[str, bytes] = {}
    parts = [_header(plain)]
    for k, doc in enumerate(corpus.documents):
        layout = doc.layout.get(NAME)
        words_file = layout.extra.get("words") if isinstance(layout, MateLayout) else None
        if not words_file or words_file in files:
            words_file = f"words_{k + 1}.xml"
        main, base = _Writer(doc, report).standoff(words_file)
        parts.append(main)
        files[words_file] = base.encode("utf-8")
    parts.append("</mate>\n" if plain else "</coref:mate>\n")
    files["corpus.mate.xml"] = "".join(parts).encode("utf-8")
    return files


def sniff(head: bytes) -> bool:
    return re.search(rb"<(?:[A-Za-z_][\w.-]*:)?mate[\s>]", head) is not None or NS.encode() in head


CAPABILITIES = Capabilities(
    discontinuous=False, nested=True, crossing=False, same_entity_overlap=False, cross_sentence=False,
    entity_ids=False, link_structure=True, link_types=True, multi_target_links=True,
    markable_attributes=True, entity_attributes=True, link_attributes=True, heads=False, min=False,
    optional=False, layers=False, sets=False, token_attributes=True, token_ids=True, whitespace=False,
    offsets=False, text=False, regions=False, sentences=True, sentence_attributes=False, metadata=False,
    schemes=False, multiple_documents=True,
)

register(FormatSpec(
    name=NAME,
    description="MATE coreference XML (<coref:de>, <coref:link>/<coref:anchor>, <coref:ue>; inline or standoff)",
    extensions=(".mate.xml", ".mate"),
    ambiguous_extensions=(".xml",),
    capabilities=CAPABILITIES,
    read=read,
    stream=stream,
    write=write,
    write_files=write_files,
    options=(
        Option("standoff", bool, False, "write the discourse entities as pointers into a base file of "
               "words (several files: dump_files or a directory)"),
    ),
    sniff=sniff,
))
