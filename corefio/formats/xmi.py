"""UIMA CAS XMI as INCEpTION and WebAnno export it, read with dkpro-cassis and written
as cassis writes it.

Reading needs the ``xmi`` extra (``pip install 'corefio[xmi]'``, which installs
``dkpro-cassis``); without it reading XMI is a usage error naming the extra. Writing
does not need it: the writer gives the bytes cassis' serialiser gives for the same CAS
(:func:`_xmi_of` says why it does not call cassis; the tests hold it to cassis' output).

Input: a ``.xmi`` file, with the ``TypeSystem.xml`` (or ``typesystem.xml``) INCEpTION
exports beside it when there is one, else corefio's own (:data:`TYPE_SYSTEM`); or a ``.zip``
holding ``.xmi`` files and their type system: INCEpTION's export of a document (one
``.xmi``), or one ``.xmi`` per document as corefio writes several (documents in the
zip's order). The zip is opened by :mod:`corefio.io.archive` (every size, ratio, entry
count and name checked before anything is unpacked). Types and features the XMI uses
and the type system does not declare (a custom layer of an XMI sent without its type
system, as in INCEpTION's own test suite) are read from the XMI itself: offsets make an
annotation, ``first``, ``next``, ``Governor`` and ``Dependent`` point to what they name,
any other feature is a string (``xmi.types-inferred`` says which). A type system is
parsed by cassis once per distinct description (and additions) and kept
(:data:`MAX_PARSED` of them). An INCEpTION *project* export (``exportedproject*.json``:
every document once per annotator) is refused with what to export instead. The XMI and
the type system are checked by :mod:`corefio.io.xmlsafe` before cassis sees them (cassis
parses with lxml's defaults, which expand internal entities): a DTD declaring entities,
and any XML that is not well formed, is refused with its line. Whatever cassis says
through Python's warnings becomes an ``xmi.cassis`` diagnostic.

What is read (coreference layers as INCEpTION defines them):

* the sofa string is :attr:`Document.text`; ``...segmentation.type.Token`` annotations
  are the tokens (offsets into the text; the text between them is their whitespace);
  ``...segmentation.type.Sentence`` the sentences (a sentence covers the tokens that
  start inside it; tokens outside every sentence make sentences of their own);
* every *chain layer*: a type whose ``first`` feature names a link, an annotation whose
  ``next`` names the following one (DKPro Core's ``CoreferenceChain`` /
  ``CoreferenceLink``, or a custom ``webanno.custom.XChain`` / ``XLink``). Each chain
  becomes an entity ``chain_N`` (DKPro Core's chains first, then the other layers by
  name, each in the CAS's order); its links are its markables (``markable_N``),
  covering the tokens their offsets overlap; their string features
  (``referenceType``, ``referenceRelation``...) are markable attributes. The layer of
  a chain other than DKPro Core's is kept in :class:`XmiLayout`, and the writer writes
  the chain back in it;
* every *span + relation* layer: a type with ``Governor`` and ``Dependent`` features
  naming annotations (INCEpTION's relation layers). The annotations of the span layer
  it connects are markables (their string features attributes); each relation is a
  link from the governor to the dependent, typed as WebAnno TSV's reader types its
  relations (:func:`corefio.formats.webanno_tsv.relation_link`: GUM's ``coref``,
  ``ana``... are identity, ``bridge:*`` bridging; no type in a layer named ``*coref*``
  is identity). A layer whose relations are all typed links (WebAnno's CRETA exports
  type identity ``LinkArt="Koreferenz"``) gets an ``xmi.relations-typed`` warning; the
  read option ``identity`` (:func:`identity_rules`; also the format name
  ``xmi:VALUE,...``) names the values that mean coreference, and a rule that matches
  nothing is an ``xmi.identity-unused`` warning. DKPro Core's syntactic ``Dependency``
  and relations between tokens are not mentions: left out, with an
  ``xmi.layers-not-read`` note;
* CorefAnnotator's own layer (``Mention`` annotations naming an ``Entity`` that is in no
  view) is not read, and said so (``xmi.coreference-not-read``);
* ``DocumentMetaData``'s ``documentTitle`` (else ``documentId``, else the file name)
  is the document name.

A chain link or span that covers no token is left out with a warning; a chain whose
``first`` or ``next`` names something that is no link, or whose links loop, is refused,
and so is a document whose root is no ``xmi:XMI``, an element inside a feature element,
and a type system feature whose range cassis cannot read (each at its line).

Writing one document gives its XMI; several documents give a zip of one ``.xmi`` per
document and ``TypeSystem.xml``, the shape INCEpTION exports and imports (XMI holds one
document), with an ``xmi.zip`` note. An output named ``.zip`` (or the ``zip`` option)
is such a zip also for one document; several documents for an output named ``.xmi``
are refused before anything is written, naming the way out (a ``.zip``). Each XMI holds
the text (the source text, else the tokens joined by their whitespace or single spaces,
with the sofa MIME type ``text/x-corefio-tokens(-whitespace)`` saying so: reading it
back gives a document without text, as it was), tokens, sentences, a
``DocumentMetaData`` naming the document (a document part cannot be kept:
``loss.document-part``), and one chain per chain, in the layer it was read from (else
DKPro Core's ``CoreferenceChain``), whose links follow the text order (markables of
other layers in a chain are its links, as ``loss.layers`` says). The type system is
:data:`TYPE_SYSTEM` (with the chain layers used); beside a lone ``.xmi``, write it as
``TypeSystem.xml`` for tools that need it. A chain link is one contiguous span:
discontinuous markables, links other than identity and attributes other than the two
above are declared losses, and so is a character XML 1.0 cannot hold (a control
character; written as U+FFFD, ``loss.value``).

Reading speed: cassis' deserialiser alone takes 8 to 10 times what reading the same
corpus as CoNLL takes (``benchmarks/bench_annotation_formats.py xmi``); XMI is the one
annotation format above the 3x target, bound by cassis.
"""

from __future__ import annotations

import bisect
import hashlib
import io
import itertools
import os
import re
import threading
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, ClassVar

from ..io._lazy import LazyModule
from ..diagnostics import Report
from ..errors import FormatError, ModelError, UsageError
from ..model.layout import FormatLayout
from .losses import LossLog
from .registry import Capabilities, FormatSpec, Option, register
from ..io.archive import is_zip, member_name, one_file_per_document, open_zip, zip_bytes
from ..io.source import Source
from ..io.xmlsafe import parse_xml

model = LazyModule("corefio.model")

NAME = "xmi"
TOKEN = "de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Token"
SENTENCE = "de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Sentence"
CHAIN = "de.tudarmstadt.ukp.dkpro.core.api.coref.type.CoreferenceChain"
LINK = "de.tudarmstadt.ukp.dkpro.core.api.coref.type.CoreferenceLink"
METADATA = "de.tudarmstadt.ukp.dkpro.core.api.metadata.type.DocumentMetaData"
#: the link features kept as markable attributes
LINK_FEATURES = ("referenceType", "referenceRelation")
#: sofa MIME types saying that the text was made from the tokens (the document had none):
#: joined by single spaces, or by the whitespace the document gave its tokens
MIME_FROM_TOKENS = "text/x-corefio-tokens"
MIME_FROM_TOKENS_AND_WHITESPACE = "text/x-corefio-tokens-whitespace"
#: file names INCEpTION gives the type system beside an XMI document
TYPE_SYSTEM_NAMES = ("TypeSystem.xml", "typesystem.xml")
#: how many documents a zip may hold
MAX_ZIP_DOCUMENTS = 100_000
#: the name the type system gets in a zip corefio writes (DKPro Core's XmiWriter's)
TYPE_SYSTEM_FILE = "TypeSystem.xml"


@dataclass
class XmiLayout(FormatLayout):
    """The chain layers a document's chains were read from, when not DKPro Core's."""

    format: ClassVar[str] = NAME
    depends_on: ClassVar[frozenset[str]] = frozenset({"markables"})

    #: entity → (chain type, link type)
    chain_types: dict[str, tuple[str, str]] = field(default_factory=dict)


#: the DKPro Core types corefio reads and writes, as a UIMA type system description
TYPE_SYSTEM = """<?xml version="1.0" encoding="UTF-8"?>
<typeSystemDescription xmlns="http://uima.apache.org/resourceSpecifier">
  <name>corefio-dkpro-core-coreference</name>
  <description>The DKPro Core types corefio reads and writes: tokens, sentences, document
metadata, coreference chains and their links.</description>
  <types>
    <typeDescription>
      <name>de.tudarmstadt.ukp.dkpro.core.api.metadata.type.DocumentMetaData</name>
      <description>Metadata of the document.</description>
      <supertypeName>uima.tcas.DocumentAnnotation</supertypeName>
      <features>
        <featureDescription><name>documentTitle</name><description/><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
        <featureDescription><name>documentId</name><description/><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
        <featureDescription><name>documentUri</name><description/><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
        <featureDescription><name>collectionId</name><description/><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
        <featureDescription><name>documentBaseUri</name><description/><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
        <featureDescription><name>isLastSegment</name><description/><rangeTypeName>uima.cas.Boolean</rangeTypeName></featureDescription>
      </features>
    </typeDescription>
    <typeDescription>
      <name>de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Sentence</name>
      <description>A sentence.</description>
      <supertypeName>uima.tcas.Annotation</supertypeName>
      <features>
        <featureDescription><name>id</name><description/><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
      </features>
    </typeDescription>
    <typeDescription>
      <name>de.tudarmstadt.ukp.dkpro.core.api.lexmorph.type.pos.POS</name>
      <description>A part-of-speech tag (kept only so that tokens pointing to one load).</description>
      <supertypeName>uima.tcas.Annotation</supertypeName>
      <features>
        <featureDescription><name>PosValue</name><description/><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
        <featureDescription><name>coarseValue</name><description/><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
      </features>
    </typeDescription>
    <typeDescription>
      <name>de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Lemma</name>
      <description>A lemma.</description>
      <supertypeName>uima.tcas.Annotation</supertypeName>
      <features>
        <featureDescription><name>value</name><description/><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
      </features>
    </typeDescription>
    <typeDescription>
      <name>de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Stem</name>
      <description>A stem.</description>
      <supertypeName>uima.tcas.Annotation</supertypeName>
      <features>
        <featureDescription><name>value</name><description/><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
      </features>
    </typeDescription>
    <typeDescription>
      <name>de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.TokenForm</name>
      <description>The form of a token when it differs from the text.</description>
      <supertypeName>uima.tcas.Annotation</supertypeName>
      <features>
        <featureDescription><name>value</name><description/><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
      </features>
    </typeDescription>
    <typeDescription>
      <name>de.tudarmstadt.ukp.dkpro.core.api.lexmorph.type.morph.MorphologicalFeatures</name>
      <description>Morphological features.</description>
      <supertypeName>uima.tcas.Annotation</supertypeName>
      <features>
        <featureDescription><name>value</name><description/><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
      </features>
    </typeDescription>
    <typeDescription>
      <name>de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Token</name>
      <description>A token (the features DKPro Core gives it).</description>
      <supertypeName>uima.tcas.Annotation</supertypeName>
      <features>
        <featureDescription><name>parent</name><description/><rangeTypeName>uima.tcas.Annotation</rangeTypeName></featureDescription>
        <featureDescription><name>lemma</name><description/><rangeTypeName>de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Lemma</rangeTypeName></featureDescription>
        <featureDescription><name>stem</name><description/><rangeTypeName>de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Stem</rangeTypeName></featureDescription>
        <featureDescription><name>pos</name><description/><rangeTypeName>de.tudarmstadt.ukp.dkpro.core.api.lexmorph.type.pos.POS</rangeTypeName></featureDescription>
        <featureDescription><name>morph</name><description/><rangeTypeName>de.tudarmstadt.ukp.dkpro.core.api.lexmorph.type.morph.MorphologicalFeatures</rangeTypeName></featureDescription>
        <featureDescription><name>id</name><description/><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
        <featureDescription><name>form</name><description/><rangeTypeName>de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.TokenForm</rangeTypeName></featureDescription>
        <featureDescription><name>syntacticFunction</name><description/><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
        <featureDescription><name>order</name><description/><rangeTypeName>uima.cas.Integer</rangeTypeName></featureDescription>
      </features>
    </typeDescription>
    <typeDescription>
      <name>de.tudarmstadt.ukp.dkpro.core.api.coref.type.CoreferenceLink</name>
      <description>A mention in a coreference chain; next is the following one.</description>
      <supertypeName>uima.tcas.Annotation</supertypeName>
      <features>
        <featureDescription><name>next</name><description/><rangeTypeName>de.tudarmstadt.ukp.dkpro.core.api.coref.type.CoreferenceLink</rangeTypeName></featureDescription>
        <featureDescription><name>referenceType</name><description/><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
        <featureDescription><name>referenceRelation</name><description/><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
      </features>
    </typeDescription>
    <typeDescription>
      <name>de.tudarmstadt.ukp.dkpro.core.api.coref.type.CoreferenceChain</name>
      <description>A coreference chain: first is its first link.</description>
      <supertypeName>uima.cas.AnnotationBase</supertypeName>
      <features>
        <featureDescription><name>first</name><description/><rangeTypeName>de.tudarmstadt.ukp.dkpro.core.api.coref.type.CoreferenceLink</rangeTypeName></featureDescription>
      </features>
    </typeDescription>
  </types>
</typeSystemDescription>
"""


def _cassis() -> Any:
    try:
        import cassis
    except ImportError:
        raise UsageError("reading and writing UIMA CAS XMI needs the xmi extra: "
                         "pip install 'corefio[xmi]' (dkpro-cassis)") from None
    return cassis


_WARNINGS_LOCK = threading.RLock()


class _Warnings:
    """Collects what cassis says through :mod:`warnings` while it runs, so that it
    reaches the user as a diagnostic (``xmi.cassis``), never raw."""

    def __init__(self) -> None:
        self._catcher = warnings.catch_warnings(record=True)
        self.caught: list[warnings.WarningMessage] = []
        self.messages: list[str] = []

    def __enter__(self) -> "_Warnings":
        # catching warnings swaps process-wide state: one reader at a time (the web's threads)
        _WARNINGS_LOCK.acquire()
        self.caught = self._catcher.__enter__()  # the list warnings are recorded in
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            self._catcher.__exit__(*exc)
        finally:
            _WARNINGS_LOCK.release()
        # what cassis said is kept; warnings raised elsewhere (an import's) go on as they were
        for w in self.caught:
            if "select_all is deprecated" in str(w.message):  # corefio's own call (older cassis has no other)
                continue
            if f"{os.sep}cassis{os.sep}" in w.filename:
                self.messages.append(str(w.message))
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)

    def report(self, report: Report, file: str | None = None, document: str | None = None) -> None:
        _said(self.messages, report, file, document)


def _said(messages: list[str], report: Report, file: str | None = None, document: str | None = None) -> None:
    """What cassis said, as ``xmi.cassis`` diagnostics."""
    for text in messages:
        # a feature named like a Python keyword is read all the same (as type_): a note
        severity = "info" if "reserved name" in text else "warning"
        report.add("xmi.cassis", severity, f"dkpro-cassis: {text}", file=file, document=document,  # type: ignore[arg-type]
                   merge=True)


#: type systems cassis has parsed, by the SHA-256 of their description and the types
#: added to it for a document (cassis neither reads nor writes a CAS by changing its
#: type system, so one object serves every document that comes with the same
#: description and the same types: a directory or a zip of exports), with what cassis
#: said while parsing it (said again for each document that uses it)
_PARSED: dict[tuple, tuple[Any, list[str]]] = {}
#: how many parsed type systems are kept
MAX_PARSED = 16


def _type_system(cassis: Any, description: bytes, file: str, report: Report | None = None) -> Any:
    """The type system ``description`` (bytes of a UIMA type system XML) parsed by cassis,
    once per distinct description; what cassis said while parsing it goes to ``report``."""
    key = (hashlib.sha256(description).digest(),)
    found = _PARSED.get(key)
    if found is None:
        parse_xml(description, file=file)  # refuses entities and DTD tricks before cassis parses it
        with _Warnings() as caught:
            try:
                parsed = cassis.load_typesystem(io.BytesIO(description))
            except Exception as exc:  # cassis raises plain exceptions for bad descriptions
                raise FormatError(f"cannot read the type system: {exc}", file=file, line=1) from None
        for t in parsed.get_types():
            for f in t.features:
                if not f.name:  # a featureDescription without its <name>: cassis makes a feature named None
                    raise FormatError(f"the type system gives {t.name} a feature without a name",
                                      file=file, line=_line_of_text(description, t.name))
                if f.rangeType is None:  # cassis takes a range name it cannot read (a comment inside) as none
                    raise FormatError(f"the type system gives the feature {f.name!r} of {t.name} no range type "
                                      "that can be read", file=file, line=_line_of_text(description, t.name))
        found = _keep(key, parsed, caught.messages)
    if report is not None:
        _said(found[1], report, file)
    return found[0]


def _line_of_text(data: bytes, text: str) -> int:
    """The line of ``data`` where ``text`` first stands (1 when it does not)."""
    at = data.find(text.encode("utf-8"))
    return data.count(b"\n", 0, at) + 1 if at >= 0 else 1


def _keep(key: tuple, parsed: Any, messages: list[str]) -> tuple[Any, list[str]]:
    if len(_PARSED) >= MAX_PARSED:
        _PARSED.clear()
    _PARSED[key] = (parsed, messages)
    return parsed, messages


def _bundled_type_system(cassis: Any) -> Any:
    """:data:`TYPE_SYSTEM` parsed by cassis (once)."""
    return _type_system(cassis, TYPE_SYSTEM.encode("utf-8"), "the bundled DKPro Core type system")


# ==========================================================================================
# reading
# ==========================================================================================
#: features that point to another feature structure in INCEpTION's chain and relation
#: layers (the only references a type inferred from the XMI gets; any other feature of
#: such a type is read as a string)
REFERENCES = ("first", "next", "Governor", "Dependent")
#: relation layers that are never coreference: DKPro Core's syntactic dependencies
DEPENDENCY = "de.tudarmstadt.ukp.dkpro.core.api.syntax.type.dependency.Dependency"
_XMI_ID = "{http://www.omg.org/XMI}id"
_NOT_FEATURES = {_XMI_ID, "sofa", "begin", "end"}
_CAS_ELEMENTS = {"{http:///uima/cas.ecore}NULL", "{http:///uima/cas.ecore}Sofa", "{http:///uima/cas.ecore}View"}
_FEATURE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _type_name(tag: str) -> str | None:
    """The UIMA type an XMI element stands for (cassis' rule: the namespace
    ``http:///webanno/custom.ecore`` and the element ``SimpleLink`` give
    ``webanno.custom.SimpleLink``); None for an element outside every type namespace."""
    if not tag.startswith("{http:///"):
        return None
    namespace, _, local = tag[9:].partition("}")
    package = namespace[:-6] if namespace.endswith(".ecore") else namespace
    package = package.replace("/", ".")
    return local if package == "uima.noNamespace" else f"{package}.{local}"


def _inferred(tree: Any, typesystem: Any) -> tuple:
    """What the XMI ``tree`` uses and ``typesystem`` does not declare: ``((type, supertype,
    ((feature, range), ...)), ...)`` for unknown types and ``((type, None, features), ...)``
    for unknown features of known types. A type is an annotation when its elements have
    offsets, else an ``AnnotationBase`` when they name a sofa, else a ``TOP``; a feature
    in :data:`REFERENCES` whose values all name elements points to
    their type (``uima.cas.TOP`` when they differ); a feature written as child elements
    is a string array; any other feature is a string."""
    root = tree.getroot()
    type_of: dict[str, str] = {}
    elements: dict[str, list[Any]] = {}
    name_of: dict[str, str | None] = {}  # tag → type (a document has a few tags and many elements)
    for element in root:
        tag = element.tag
        if not isinstance(tag, str) or tag in _CAS_ELEMENTS:
            continue
        name = name_of.get(tag, "")
        if name == "":
            name = name_of[tag] = _type_name(tag)
        if name is None:
            continue
        ident = element.get(_XMI_ID)
        if ident is not None:
            type_of[ident] = name
        elements.setdefault(name, []).append(element)
    out: list[tuple[str, str | None, tuple[tuple[str, str], ...]]] = []
    #: types a chain's `first` names: chain links, whose `next` exists even when no link has one
    links: set[str] = set()
    for name, found in elements.items():
        known = typesystem.contains_type(name)
        declared = {f.name for f in typesystem.get_type(name).all_features} if known else set()
        # the attribute names in the order they first appear (the elements of a type mostly
        # share one list of names: each distinct list is looked at once); their values only
        # for the features the type system lacks
        names = dict.fromkeys(key for keys in dict.fromkeys(tuple(e.keys()) for e in found) for key in keys)
        named = [a for a in names if a not in _NOT_FEATURES and _FEATURE_NAME.match(a)]
        attributes: dict[str, set[str]] = {}
        for attribute in named:
            if (attribute + "_" if attribute in ("type", "self") else attribute) in declared or attribute in declared:
                continue
            attributes[attribute] = {value for e in found if (value := e.get(attribute)) is not None}
        children: set[str] = set()
        for element in found:
            if len(element):
                children.update(c.tag for c in element if isinstance(c.tag, str) and _FEATURE_NAME.match(c.tag))
        features: list[tuple[str, str]] = []
        for attribute, values in attributes.items():
            target = "uima.cas.String"
            if attribute in REFERENCES and any(v in type_of for v in values):
                wrong = sorted(v for v in values if v not in type_of)
                if wrong:
                    raise FormatError(f"a {name.rsplit('.', 1)[-1]} annotation's {attribute} names {wrong[0][:40]!r}, "
                                      "which is no element of the XMI", line=_line_of(found, attribute, wrong[0]))
                targets = {type_of[v] for v in values}
                target = next(iter(targets)) if len(targets) == 1 else "uima.cas.TOP"
                if attribute == "first":
                    links.update(targets)
            features.append((attribute, target))
        features.extend((child, "uima.cas.StringArray") for child in sorted(children - declared - set(named)))
        if not known:
            annotation = any("begin" in e.attrib and "end" in e.attrib for e in found)
            based = any("sofa" in e.attrib for e in found)
            # an element without a sofa belongs to no view: a TOP (CorefAnnotator's Entity)
            supertype = "uima.tcas.Annotation" if annotation else "uima.cas.AnnotationBase" if based \
                else "uima.cas.TOP"
            out.append((name, supertype, tuple(features)))
        elif features:
            out.append((name, None, tuple(features)))
    for k, (added, parent, adds) in enumerate(out):
        declared = {f.name for f in typesystem.get_type(added).all_features} if parent is None else set()
        if added in links and "next" not in declared and all(f != "next" for f, _ in adds):
            out[k] = (added, parent, adds + (("next", added),))
    return tuple(out)


def _line_of(elements: list, attribute: str, value: str) -> int | None:
    return next((e.sourceline for e in elements if e.get(attribute) == value), None)


def _with_inferred(cassis: Any, base_key: bytes, base: Any, additions: tuple, report: Report, file: str) -> Any:
    """``base`` with the types and features ``additions`` (:func:`_inferred`) added, on a
    copy kept per distinct base and additions; the additions are reported."""
    if not additions:
        return base
    key = (base_key, additions)
    found = _PARSED.get(key)
    if found is None:
        with _Warnings() as caught:
            parsed = cassis.merge_typesystems(base)
            try:
                for name, supertype, _ in additions:
                    if supertype is not None:
                        parsed.create_type(name, supertypeName=supertype)
                for name, _, features in additions:
                    for feature, target in features:
                        parsed.create_feature(name, feature, target,
                                              elementType="uima.cas.String" if target == "uima.cas.StringArray"
                                              else None)
            except Exception as exc:
                raise FormatError(f"the XMI uses types the type system does not declare, and they cannot be "
                                  f"added: {exc}", file=file, line=1) from None
        found = _keep(key, parsed, caught.messages)
    _said(found[1], report, file)
    types = [name for name, supertype, _ in additions if supertype is not None]
    if types:
        report.info("xmi.types-inferred", f"{len(types)} type(s) the type system does not declare were read from "
                    "the XMI itself (offsets make annotations, first/next/Governor/Dependent references, other "
                    "features strings)", file=file, merge=True, example=", ".join(types[:5]))
    return found[0]


_CAS_NS = "{http:///uima/cas.ecore}"
_INTEGRAL = {"uima.cas.Integer", "uima.cas.Short", "uima.cas.Long", "uima.cas.Byte"}
_REAL = {"uima.cas.Float", "uima.cas.Double"}
_ARRAY_ITEM = {"uima.cas.IntegerArray": "uima.cas.Integer", "uima.cas.ShortArray": "uima.cas.Integer",
               "uima.cas.LongArray": "uima.cas.Integer", "uima.cas.FloatArray": "uima.cas.Float",
               "uima.cas.DoubleArray": "uima.cas.Float", "uima.cas.BooleanArray": "uima.cas.Boolean",
               "uima.cas.IntegerList": "uima.cas.Integer", "uima.cas.FloatList": "uima.cas.Float",
               "uima.cas.StringList": "uima.cas.String"}


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _cassis_type_name(tag: str) -> str:
    """The type name cassis' deserialiser gives an element (its own rule, applied to
    any tag: the part after ``{http:///``, slashes as dots, ``ecore}`` dropped)."""
    name = tag[9:].replace("/", ".").replace("ecore}", "").strip()
    return name[17:] if name.startswith("uima.noNamespace.") else name


#: the attributes of an XMI sofa (what cassis' Sofa takes from them)
_SOFA_ATTRIBUTES = frozenset({_XMI_ID, "sofaNum", "sofaID", "sofaString", "mimeType", "sofaURI"})


def _defect(data: bytes, typesystem: Any, inferred: set[str], file: str) -> FormatError | None:
    """What in the XMI ``data`` keeps cassis from reading it with ``typesystem``, as a
    located error; None when nothing explains it (then the failure is corefio's or
    cassis', not the input's, and is raised as it is).

    This walks the document as cassis' deserialiser does and checks what it takes for
    granted: every element has an integer ``xmi:id``; ``begin``, ``end``, ``sofa`` and
    numeric features are numbers, booleans ``true`` or ``false``; an annotation
    (``AnnotationBase`` and below) names a sofa of the document; a reference names an
    element of a type the type system knows; every attribute and child element is a
    feature of the type; a view names a sofa and elements. A type corefio inferred from
    the XMI itself (``inferred``) is built to fit its elements: one that names no sofa
    where no element of its type does is corefio's misfit, not the input's."""
    tree = parse_xml(data, file=file)
    encoding = (tree.docinfo.encoding or "UTF-8").upper().replace("_", "-")
    if encoding.startswith(("UTF-32", "UCS-4", "UCS4")):  # lxml reads it, cassis's parser does not
        return FormatError(f"the file is {tree.docinfo.encoding} encoded, which dkpro-cassis cannot read; "
                           f"convert it to UTF-8 (e.g. `iconv -f {tree.docinfo.encoding} -t UTF-8`)", file=file, line=1)
    root = tree.getroot()

    def fail(element: Any, message: str) -> FormatError:
        return FormatError(message, file=file, line=element.sourceline)

    def number(element: Any, attribute: str, value: str | None, kind: type = int) -> FormatError | None:
        try:
            kind(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            shown = "nothing" if value is None else repr(value[:40])
            return fail(element, f"{_short(_cassis_type_name(element.tag))}: {attribute} holds {shown}, "
                                 "not a number")
        return None

    sofas: set[int] = set()
    elements: dict[int, Any] = {}  # the feature structures cassis makes, by id
    unknown: dict[int, str] = {}  # ids of elements whose type the type system lacks (cassis skips them)
    with_sofa: set[str] = set()  # types some element of which names a sofa
    for element in root:
        tag = element.tag
        if not isinstance(tag, str):
            continue
        for child in element:
            nested = next((e for e in child if isinstance(e.tag, str)), None)
            if nested is not None:
                return fail(nested, f"an element inside the feature element {_local(child.tag)!r}: XMI writes "
                                    "a feature's values as text or as references, not as elements")
        if tag == _CAS_NS + "Sofa":
            for attribute in (_XMI_ID, "sofaNum"):
                problem = number(element, "xmi:id" if attribute == _XMI_ID else attribute, element.get(attribute))
                if problem is not None:
                    return problem
            # cassis makes its Sofa of the attributes as they are: one it does not know (or
            # a missing sofaID) is a TypeError inside cassis
            strange = sorted(set(element.attrib) - _SOFA_ATTRIBUTES)
            if strange:
                return fail(element, f"cas:Sofa: {_local(strange[0])!r} is no attribute of a sofa (it has "
                                     f"{', '.join(sorted(a for a in _SOFA_ATTRIBUTES if a != _XMI_ID))} "
                                     "and xmi:id)")
            if element.get("sofaID") is None:
                return fail(element, "cas:Sofa: no sofaID (the view's name, e.g. _InitialView)")
            sofas.add(int(element.get(_XMI_ID)))
            continue
        if tag == _CAS_NS + "View":
            continue
        name = _cassis_type_name(tag)
        if not typesystem.contains_type(name):
            ident = element.get(_XMI_ID)
            if ident is not None and number(element, "xmi:id", ident) is None:
                unknown[int(ident)] = name
            continue
        for attribute in (_XMI_ID, "begin", "end", "sofa"):
            if attribute == _XMI_ID or attribute in element.attrib:
                problem = number(element, "xmi:id" if attribute == _XMI_ID else attribute, element.get(attribute))
                if problem is not None:
                    return problem
        elements[int(element.get(_XMI_ID))] = element
        if "sofa" in element.attrib:
            with_sofa.add(name)
    for element in root:
        if isinstance(element.tag, str) and element.tag == _CAS_NS + "View":
            problem = number(element, "sofa", element.get("sofa"))
            if problem is not None:
                return problem
            for member in (element.get("members") or "").split():
                problem = number(element, "members", member)
                if problem is not None:
                    return problem
                if int(member) in sofas and int(member) not in elements:
                    return fail(element, f"the view's members name the sofa {member}, which is no annotation")
                if int(member) not in elements and int(member) not in unknown \
                        and int(element.get("sofa")) in sofas:
                    return fail(element, f"the view's members name {member}, which is no element of the XMI")
    for element in elements.values():
        name = _cassis_type_name(element.tag)
        t = typesystem.get_type(name)
        what = _short(name)
        for attribute in element.attrib:
            if attribute in (_XMI_ID, "sofa", "begin", "end"):
                continue
            feature = attribute + "_" if attribute in ("type", "self") else attribute
            if t.get_feature(feature) is None:
                return fail(element, f"a {what} has the attribute {attribute!r}, which is no feature of its type")
        for child in element:
            if isinstance(child.tag, str) and t.get_feature(child.tag) is None:
                return fail(child, f"a {what} has the element {child.tag!r}, which is no feature of its type")
        for f in t.all_features:
            value = element.get(f.name[:-1] if f.name in ("type_", "self_") else f.name)
            if f.name == "sofa":
                if value is None:
                    if name in inferred and name not in with_sofa and "begin" not in element.attrib:
                        return None  # corefio made it an annotation though no element names a sofa
                    # (with offsets, an annotation of a type corefio inferred needs a sofa as any
                    # other: the offsets point into a text only a sofa names)
                    return fail(element, f"a {what} annotation names no sofa (its sofa attribute is missing)")
                if int(value) not in sofas:
                    return fail(element, f"a {what} annotation names the sofa {value}, which the XMI does not hold")
                continue
            if f.name in ("begin", "end") or value is None:
                continue
            range_name = f.rangeType.name
            if typesystem.is_primitive(f.rangeType) or range_name in _ARRAY_ITEM:
                item = _ARRAY_ITEM.get(range_name, range_name)
                values = value.split() if range_name in _ARRAY_ITEM else [value]
                for v in values:
                    if item in _INTEGRAL or item in _REAL:
                        problem = number(element, f.name, v, int if item in _INTEGRAL else float)
                        if problem is not None:
                            return problem
                    elif item == "uima.cas.Boolean" and v not in ("true", "false"):
                        return fail(element, f"{what}: {f.name} holds {v[:40]!r}, not true or false")
                continue
            if range_name == "uima.cas.StringArray":
                if value.split():
                    return fail(element, f"{what}: the string array {f.name} is written as an attribute; "
                                         "XMI writes its strings as child elements")
                continue
            if range_name == "uima.cas.ByteArray":
                try:
                    bytes.fromhex(value)
                except ValueError:
                    return fail(element, f"{what}: {f.name} holds {value[:40]!r}, not hexadecimal bytes")
                continue
            many = range_name in ("uima.cas.FSArray", "uima.cas.FSList") and not f.multipleReferencesAllowed
            for target in value.split() if many else [value]:
                problem = number(element, f.name, target)
                if problem is not None:
                    return problem
                if int(target) in unknown:
                    return fail(element, f"{what}: {f.name} names {target}, an element of the type "
                                         f"{unknown[int(target)]}, which the type system does not declare")
                if int(target) not in elements:
                    return fail(element, f"{what}: {f.name} names {target}, which is no element of the XMI")
    return None


def _zip_inputs(source: Source) -> tuple[list[tuple[Any, str]], tuple[bytes | None, str], Any]:
    """INCEpTION's export zip: its ``.xmi`` entries (in the zip's order) with their
    names, its type system, and the open archive (read one entry at a time)."""
    archive = open_zip(source.path if source.path is not None else source.read_bytes(), shown=source.name)
    try:
        entries = [e for e in archive.entries if not e.skipped]
        if any(re.fullmatch(r"exportedproject[^/]*\.json", e.name) for e in entries):
            # annotation/<document>/<user>...: one copy per annotator, curation beside them
            raise FormatError("an INCEpTION project export (exportedproject.json): it holds each document once "
                              "per annotator; export the documents as UIMA CAS XMI, or unpack the project and "
                              "read one annotator's files", file=source.name, line=1)
        xmis = [e for e in entries if e.suffix == ".xmi"]
        if not xmis:
            raise FormatError("the zip holds no .xmi file", file=source.name, line=1)
        if len(xmis) > MAX_ZIP_DOCUMENTS:
            raise FormatError(f"the zip holds {len(xmis)} .xmi files; at most {MAX_ZIP_DOCUMENTS} are read",
                              file=source.name, line=1)
        systems = [e for e in entries if PurePosixPath(e.name).name in TYPE_SYSTEM_NAMES]
        system = (archive.read(systems[0]), f"{source.name}:{systems[0].name}") if systems else (None, "")
    except BaseException:
        archive.close()
        raise
    return [(e, e.name) for e in xmis], system, archive


def _beside(source: Source) -> tuple[bytes | None, str]:
    """The type system INCEpTION writes beside a lone ``.xmi``, if there is one, and what
    messages call it."""
    if source.path is None:
        return None, ""
    for name in TYPE_SYSTEM_NAMES:
        beside = source.path.parent / name
        if beside.is_file():
            return beside.read_bytes(), str(beside)
    return None, ""


def _token_range(starts: list[int], ends: list[int], begin: int, end: int) -> tuple[int, int] | None:
    """The tokens an annotation ``begin..end`` overlaps (None: none)."""
    import bisect

    first = bisect.bisect_right(ends, begin)  # first token ending after begin
    last = bisect.bisect_left(starts, end) - 1  # last token starting before end
    if begin == end:  # an empty annotation: the token it sits in
        last = first
    if first >= len(starts) or last < first:
        return None
    return first, last


def read(source: Source, *, report: Report, strict: bool = False, identity: str | None = None) -> Any:
    """Read an XMI document (a ``.xmi`` file) or the documents of a ``.zip`` (INCEpTION's
    export of one document, or one ``.xmi`` per document as corefio writes several).
    ``identity`` names the relation values that mean coreference (:func:`identity_rules`)."""
    rules = identity_rules(identity)
    cassis = _cassis()
    archive = None
    if is_zip(source.read_bytes()[:4] if source.path is None else _head(source)):
        inputs, (system, system_name), archive = _zip_inputs(source)
    else:
        inputs, (system, system_name) = [(None, source.name)], _beside(source)
    try:
        if system is None:
            base_key, base = TYPE_SYSTEM.encode("utf-8"), _bundled_type_system(cassis)
        else:
            base_key, base = system, _type_system(cassis, system, system_name, report)
        documents = []
        for entry, inner in inputs:
            name = source.name if archive is None else f"{source.name}:{inner}"
            data = source.read_bytes() if archive is None else archive.read(entry)
            tree = parse_xml(data, file=name)  # refuses entity declarations, DTD tricks, bad XML (with lines)
            root = tree.getroot()
            if root.tag != "{http://www.omg.org/XMI}XMI":
                raise FormatError(f"not an XMI document: its root element is {_local(str(root.tag))!r}, not "
                                  "xmi:XMI", file=name, line=root.sourceline)
            if root.getprevious() is not None:
                # a comment or processing instruction before the root element: cassis'
                # parser fails on it (a TypeError), so it gets the root element alone,
                # on the line where it was (messages keep naming the file's lines)
                from lxml import etree

                head, _, body = etree.tostring(root, encoding="UTF-8", xml_declaration=True).partition(b"\n")
                data = head + b"\n" * (root.sourceline - 1) + body
            del root
            try:
                additions = _inferred(tree, base)
            except FormatError as exc:
                raise exc.located(name) from None
            typesystem = _with_inferred(cassis, base_key, base, additions, report, name)
            del tree
            with _Warnings() as caught:
                try:
                    cas = cassis.load_cas_from_xmi(io.BytesIO(data), typesystem=typesystem, lenient=True)
                except Exception as exc:
                    # an input defect is said where it is; anything else is a bug (exit 1, with
                    # its traceback under COREFIO_DEBUG), never passed off as the input's fault
                    defect = _defect(data, typesystem, {n for n, s, _ in additions if s is not None}, name)
                    if defect is None:
                        raise
                    raise defect from exc
                del data
                stem = source.stem if archive is None else PurePosixPath(inner).stem
                documents.append(_document(cas, stem, name, report, rules))
            caught.report(report, name)
    finally:
        if archive is not None:
            archive.close()
    for rule in rules:
        if not rule.used:
            report.warning("xmi.identity-unused", f"the identity rule {rule.text!r} matched no relation: no "
                           "relation was read as coreference by it", file=source.name)
    return model.Corpus(documents=documents, metadata={}, schemes=[], layout={})


@dataclass
class IdentityRule:
    """A relation value that means identity: ``value`` of ``feature`` (None: the
    relation's type feature, its first string feature) in the relation layer ``layer``
    (its full or short name; None: any layer)."""

    text: str
    layer: str | None
    feature: str | None
    value: str
    used: bool = False

    def matches(self, relation_type: str, relation: Any, type_feature: str | None) -> bool:
        if self.layer is not None and self.layer not in (relation_type, _short(relation_type)):
            return False
        feature = self.feature if self.feature is not None else type_feature
        if feature is None:
            return False
        found = relation.type.get_feature(feature) or relation.type.get_feature(feature + "_")
        return found is not None and relation.get(found.name) == self.value


def identity_rules(text: str | None) -> list[IdentityRule]:
    """The ``identity`` read option: comma-separated ``VALUE``, ``FEATURE=VALUE`` or
    ``LAYER.FEATURE=VALUE`` (``LAYER`` the relation layer's type name, full or short:
    ``CRETALink.LinkArt=Koreferenz``); a bad one is a usage error."""
    rules = []
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        where, sep, value = item.rpartition("=")
        layer = feature = None
        if sep:
            layer, dot, feature = where.rpartition(".")
            layer = layer if dot else None
            if not feature or not value or (dot and not layer):
                raise UsageError(f"xmi option 'identity': {item!r} is not VALUE, FEATURE=VALUE or "
                                 "LAYER.FEATURE=VALUE")
        rules.append(IdentityRule(item, layer, feature, value))
    return rules


def _head(source: Source) -> bytes:
    with source.open() as f:
        return f.read(4)


def _all(cas: Any) -> list:
    """Every feature structure of the CAS's view."""
    select = getattr(cas, "select_all_fs", None)
    return list(select() if select is not None else cas.select_all())


def _select(cas: Any, type_name: str) -> list:
    try:
        return list(cas.select(type_name))
    except Exception:  # the type is not in the type system: nothing of it
        return []


def _is_reference(typesystem: Any, t: Any, feature: str) -> bool:
    found = t.get_feature(feature)
    return found is not None and not typesystem.is_primitive(found.rangeType) \
        and not typesystem.is_primitive_array(found.rangeType)


def _values(typesystem: Any, fs: Any, skip: tuple[str, ...] = REFERENCES) -> dict[str, Any]:
    """The primitive features of ``fs`` that hold a value (``type_`` named ``type``)."""
    out = {}
    for f in fs.type.all_features:
        if f.name in ("sofa", "begin", "end") or f.name in skip or not typesystem.is_primitive(f.rangeType):
            continue
        value = fs.get(f.name)
        if value not in (None, ""):
            out[f.name[:-1] if f.name in ("type_", "self_") else f.name] = value if isinstance(value, str) \
                else str(value).lower() if isinstance(value, bool) else str(value)
    return out


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _document(cas: Any, stem: str, file: str, report: Report, rules: list[IdentityRule] | None = None) -> Any:
    text = cas.sofa_string or ""
    typesystem = cas.typesystem
    tokens = sorted(_select(cas, TOKEN), key=lambda t: (t.begin, t.end))
    if not tokens:
        raise FormatError("the document has no Token annotations (corefio needs the tokens)", file=file, line=1)
    for before, after in zip(tokens, tokens[1:]):
        if after.begin < before.end:
            raise FormatError(f"tokens overlap at characters {after.begin}..{before.end}", file=file, line=1)
    for t in tokens:
        if t.begin == t.end:
            raise FormatError(f"a token without characters at {t.begin}", file=file, line=1)
        if not 0 <= t.begin <= t.end <= len(text):
            raise FormatError(f"a token at {t.begin}..{t.end} is outside the {len(text)} characters of the text",
                              file=file, line=1)
    starts = [t.begin for t in tokens]
    ends = [t.end for t in tokens]
    forms = [text[t.begin:t.end] for t in tokens]
    whitespace = [text[t.end:(tokens[i + 1].begin if i + 1 < len(tokens) else len(text))]
                  for i, t in enumerate(tokens)]
    sentences = []
    covered = 0
    for s in sorted(_select(cas, SENTENCE), key=lambda s: (s.begin, s.end)):
        first = covered
        while covered < len(tokens) and tokens[covered].begin < s.end:
            covered += 1
        if covered > first:
            sentences.append(model.Sentence(first=first, last=covered - 1, id=None, comments=[],
                                            interleaved=[], attributes={}))
    if covered < len(tokens):
        sentences.append(model.Sentence(first=covered, last=len(tokens) - 1, id=None, comments=[],
                                        interleaved=[], attributes={}))
    everything = _all(cas)
    by_type: dict[str, list] = {}
    for fs in everything:
        by_type.setdefault(fs.type.name, []).append(fs)
    markables: list[Any] = []
    chain_types: dict[str, tuple[str, str]] = {}

    def span_of(fs: Any, what: str) -> tuple[int, int] | None:
        span = _token_range(starts, ends, fs.begin, fs.end)
        if span is None:
            report.warning("xmi.link-outside-tokens", f"{what} at {fs.begin}..{fs.end} covers no token; left out",
                           file=file, merge=True)
        elif (fs.begin, fs.end) != (starts[span[0]], ends[span[1]]):
            report.warning("xmi.inside-tokens", "annotations that start or end inside a token are read as the "
                           "tokens they overlap (corefio's mentions are made of tokens): written back, they "
                           "cover those tokens", file=file, merge=True, example=f"{fs.begin}..{fs.end}")
        return span

    # chain layers: a type with a `first` feature naming a link, whose `next` names the next one
    chained = sorted((name for name, found in by_type.items() if _is_reference(typesystem, found[0].type, "first")),
                     key=lambda name: (name != CHAIN, name))
    k = 0
    for chain_type in chained:
        for chain in by_type[chain_type]:
            k += 1
            entity = f"chain_{k}"
            link = chain.first
            seen: set[int] = set()
            while link is not None:
                if not hasattr(link, "xmiID"):
                    raise FormatError(f"chain {k} ({_short(chain_type)}): a first or next feature holds "
                                      f"{str(link)[:40]!r}, not a link", file=file, line=1)
                if id(link) in seen:
                    raise FormatError(f"chain {k} ({_short(chain_type)}): its links loop back (a next points to "
                                      "an earlier link)", file=file, line=1)
                seen.add(id(link))
                if link.type.get_feature("next") is None or not typesystem.is_instance_of(link.type.name,
                                                                                          "uima.tcas.Annotation"):
                    what = "a CoreferenceLink" if chain_type == CHAIN else "a chain link (an annotation with next)"
                    raise FormatError(f"chain {k} ({_short(chain_type)}): a first or next feature names a "
                                      f"{_short(link.type.name)}, not {what}", file=file, line=1)
                if chain_type != CHAIN or link.type.name != LINK:
                    chain_types.setdefault(entity, (chain_type, link.type.name))
                span = span_of(link, "a chain link")
                if span is not None:
                    markables.append(model.Markable.fast(f"markable_{len(markables) + 1}", (span,), entity,
                                                         attributes=_values(typesystem, link)))
                link = link.next
    # relation layers: a type with Governor and Dependent features naming annotations
    links: list[Any] = []
    relation_types = sorted(name for name, found in by_type.items()
                            if _is_reference(typesystem, found[0].type, "Governor")
                            and _is_reference(typesystem, found[0].type, "Dependent"))
    not_read: list[str] = []
    ref_of: dict[int, str] = {}
    for relation_type in relation_types:
        relations = by_type[relation_type]
        if typesystem.contains_type(DEPENDENCY) and typesystem.is_instance_of(relation_type, DEPENDENCY):
            not_read.append(f"{_short(relation_type)} (syntactic dependencies)")
            continue
        ends_of = {end.type.name for r in relations for end in (r.Governor, r.Dependent) if end is not None}
        if not ends_of or any(t == TOKEN or not typesystem.is_instance_of(t, "uima.tcas.Annotation")
                              for t in ends_of):
            not_read.append(f"{_short(relation_type)} (a relation between tokens, not mentions)")
            continue
        for span_type in sorted(ends_of):
            for fs in sorted(by_type.get(span_type, []), key=lambda a: (a.begin, -a.end)):
                if id(fs) in ref_of:
                    continue
                span = span_of(fs, f"a {_short(span_type)} annotation")
                if span is None:
                    continue
                ref = f"markable_{len(markables) + 1}"
                ref_of[id(fs)] = ref
                markables.append(model.Markable.fast(ref, (span,), None, attributes=_values(typesystem, fs)))
        from .webanno_tsv import relation_link

        features = [f.name for f in typesystem.get_type(relation_type).features
                    if f.name not in REFERENCES and typesystem.is_primitive(f.rangeType)]
        typed: Counter[str] = Counter()  # relations read as typed links, by type
        identity = 0
        for r in relations:
            if r.Governor is None or r.Dependent is None:
                raise FormatError(f"a {_short(relation_type)} relation without its "
                                  f"{'Governor' if r.Governor is None else 'Dependent'}", file=file, line=1)
            source, target = ref_of.get(id(r.Governor)), ref_of.get(id(r.Dependent))
            if source is None or target is None:
                continue  # an end outside the tokens, reported above
            value = r.get(features[0]) if features else None
            link_type, attrs = relation_link(value, relation_type)
            rule = next((rule for rule in rules or () if rule.matches(relation_type, r, features[0] if features
                                                                        else None)), None)
            if rule is not None:
                rule.used = True
                link_type = model.COREFERENCE
                if value is not None:
                    attrs["type"] = value
            attrs.update({k: v for k, v in _values(typesystem, r).items() if k != features[0].rstrip("_")}
                         if features else {})
            if link_type == model.COREFERENCE:
                identity += 1
            elif link_type not in (model.BRIDGING, model.SPLIT_ANTECEDENT):
                typed[link_type] += 1
            links.append(model.Link.fast(f"rel_{len(links) + 1}", source, (target,), link_type, attributes=attrs))
        if typed and not identity:
            layer = _short(relation_type)
            example = f"{layer}.{features[0].rstrip('_')}={typed.most_common(1)[0][0]}" if features else layer
            report.warning("xmi.relations-typed", f"{sum(typed.values())} {layer} relation(s) read as typed links, "
                           f"not coreference chains ({', '.join(f'{k}: {n}' for k, n in typed.most_common())}): "
                           "if a value means identity, read with the option identity (-r identity=VALUE,... "
                           f"or --from xmi:VALUE,...), e.g. {example}", file=file, merge=True)
    own = sorted(name for name, found in by_type.items() if _short(name) == "Mention"
                 and found[0].type.get_feature("Entity") is not None)
    if own:
        mentions = sum(len(by_type[name]) for name in own)
        report.warning("xmi.coreference-not-read", f"CorefAnnotator's own layer is not read ({mentions} "
                       "Mention annotations naming their Entity): corefio reads chain layers and span + "
                       "relation layers", file=file, merge=True, example=", ".join(own))
    if not_read:
        report.info("xmi.layers-not-read", "relation layers that are not coreference were not read",
                    file=file, merge=True, example=", ".join(not_read))
    if chained or relation_types:
        read_layers = [_short(t) for t in chained] + [_short(t) for t in relation_types
                                                      if not any(n.startswith(_short(t) + " ") for n in not_read)]
        if len(read_layers) > 1:
            report.info("xmi.layers", f"coreference read from {len(read_layers)} layers: "
                        f"{', '.join(read_layers)}", file=file, merge=True)
    name = stem
    meta = _select(cas, METADATA)
    if meta:
        name = meta[0].get("documentTitle") or meta[0].get("documentId") or stem
    offsets: list[tuple[int, int]] | None = [(t.begin, t.end) for t in tokens]
    source_text: str | None = text
    mime = getattr(cas, "sofa_mime", None)
    if mime in (MIME_FROM_TOKENS, MIME_FROM_TOKENS_AND_WHITESPACE):
        # corefio made this text from tokens: the document had no text of its own
        source_text, offsets = None, None
        if mime == MIME_FROM_TOKENS:
            whitespace = None  # type: ignore[assignment]
    toks = model.Tokens(forms=forms, ids=None, whitespace=whitespace, offsets=offsets, attributes={},
                        empty=None)
    layout = {NAME: XmiLayout(chain_types=chain_types)} if chain_types else {}
    try:
        return model.Document.build(name=name, part=None, metadata={}, tokens=toks, sentences=sentences,
                                    markables=markables, entities=[], links=links, text=source_text, regions=[],
                                    layout=layout)
    except ModelError as exc:
        raise FormatError("; ".join(exc.problems), file=file, line=1) from None


# ==========================================================================================
# writing
# ==========================================================================================
def _text_and_offsets(doc: Any) -> tuple[str, list[tuple[int, int]], str]:
    """The sofa text, the token offsets into it and the sofa MIME type."""
    toks = doc.tokens
    if doc.text is not None and toks.offsets is not None:
        return doc.text, list(toks.offsets), "text"
    parts: list[str] = []
    offsets = []
    position = 0
    for i, form in enumerate(toks.forms):
        offsets.append((position, position + len(form)))
        space = toks.whitespace[i] if toks.whitespace is not None else " "
        if i == len(toks.forms) - 1 and toks.whitespace is None:
            space = ""
        parts.append(form + space)
        position += len(form) + len(space)
    mime = MIME_FROM_TOKENS if toks.whitespace is None else MIME_FROM_TOKENS_AND_WHITESPACE
    return "".join(parts), offsets, mime


def write(documents: Iterable, *, corpus: Any, report: Report, zip: bool | None = None) -> Iterator[bytes]:  # noqa: A002
    """One document: its XMI. Several (or ``zip``, or an output named ``.zip``): a zip of
    one ``.xmi`` per document and ``TypeSystem.xml``, the shape INCEpTION exports and
    imports; several documents for an output named ``.xmi`` are refused (see
    :func:`corefio.io.archive.one_file_per_document`)."""
    remaining = iter(documents)
    first = next(remaining, None)
    if first is None:
        return
    second = next(remaining, None)
    zipped = one_file_per_document(NAME, zip, report.file, several=second is not None, extension=".xmi")
    log = LossLog(report, NAME)
    if not zipped:
        _lose_part(log, first)
        yield _write_document(first, log)[0]
        return
    members: dict[str, bytes] = {}
    custom: set[tuple[str, str]] = set()
    count = 0
    for doc in itertools.chain([first], [] if second is None else [second], remaining):
        count += 1
        _lose_part(log, doc)
        data, types = _write_document(doc, log)
        custom |= types
        members[member_name(doc.name, doc.part, count, members, ".xmi")] = data
    # the type system first, as INCEpTION's export and DKPro Core's XmiWriter give it
    members = {TYPE_SYSTEM_FILE: _description(frozenset(custom)), **members}
    if count > 1:
        report.info("xmi.zip", f"{count} documents written as a zip of one .xmi per document with "
                    f"{TYPE_SYSTEM_FILE} (INCEpTION's export shape; XMI holds one document)")
    yield zip_bytes(members)


def _lose_part(log: LossLog, doc: Any) -> None:
    if doc.part is not None:
        log.lose("document-part", "document parts (the document name is kept)", document=doc,
                 example=str(doc.part))


_TYPE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$")


def _chain_type_descriptions(custom: frozenset[tuple[str, str]]) -> str:
    """UIMA type descriptions of chain layers other than DKPro Core's (as INCEpTION
    declares a chain layer: the chain type with ``first``, the link type with ``next``,
    ``referenceType`` and ``referenceRelation``). Each type is declared once: a chain
    type whose chains start with links of several types (a file may have them, and the
    reader takes it) gets ``uima.tcas.Annotation`` as the range of ``first``, the type
    every link type extends."""
    links_of: dict[str, set[str]] = {}
    for chain, link in custom:
        links_of.setdefault(chain, set()).add(link)
    out = []
    for chain, links in sorted(links_of.items()):
        first = next(iter(links)) if len(links) == 1 else "uima.tcas.Annotation"
        out.append(f"""    <typeDescription>
      <name>{chain}</name>
      <description>A chain of the {chain.rsplit('.', 1)[-1]} layer: first is its first link.</description>
      <supertypeName>uima.cas.AnnotationBase</supertypeName>
      <features>
        <featureDescription><name>first</name><description/><rangeTypeName>{first}</rangeTypeName></featureDescription>
      </features>
    </typeDescription>
""")
    for link in sorted({link for _, link in custom} - set(links_of)):
        out.append(f"""    <typeDescription>
      <name>{link}</name>
      <description>A link of a chain layer; next is the following one.</description>
      <supertypeName>uima.tcas.Annotation</supertypeName>
      <features>
        <featureDescription><name>next</name><description/><rangeTypeName>{link}</rangeTypeName></featureDescription>
        <featureDescription><name>referenceType</name><description/><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
        <featureDescription><name>referenceRelation</name><description/><rangeTypeName>uima.cas.String</rangeTypeName></featureDescription>
      </features>
    </typeDescription>
""")
    return "".join(out)


def _description(custom: frozenset[tuple[str, str]]) -> bytes:
    """:data:`TYPE_SYSTEM` with the chain layers ``custom`` added."""
    if not custom:
        return TYPE_SYSTEM.encode("utf-8")
    at = TYPE_SYSTEM.rindex("  </types>")
    return (TYPE_SYSTEM[:at] + _chain_type_descriptions(custom) + TYPE_SYSTEM[at:]).encode("utf-8")


def _custom_chains(doc: Any) -> dict[str, tuple[str, str]]:
    """Entity → (chain type, link type) of the chains the reader found in a chain layer
    other than DKPro Core's (kept when the names are type names)."""
    lay = doc.layout.get(NAME)
    if not isinstance(lay, XmiLayout):
        return {}
    kept = {entity: (chain, link) for entity, (chain, link) in lay.chain_types.items()
            if _TYPE_NAME.match(chain) and _TYPE_NAME.match(link) and chain != link
            and chain not in _BUILT_IN and link not in _BUILT_IN}
    # a type cannot be a chain (no offsets) and a link (offsets): such chains go to DKPro Core's layer
    chains = {chain for chain, _ in kept.values()}
    return {entity: (chain, link) for entity, (chain, link) in kept.items() if link not in chains}


#: the types :data:`TYPE_SYSTEM` declares (a chain layer written in other types may not redefine them)
_BUILT_IN = frozenset(re.findall(r"<typeDescription>\s*<name>([^<]+)</name>", TYPE_SYSTEM))


def _write_document(doc: Any, log: LossLog) -> tuple[bytes, set[tuple[str, str]]]:
    """The XMI of ``doc`` and the chain layers other than DKPro Core's it uses."""
    custom = _custom_chains(doc)
    return _xmi_of(doc, custom, log), set(custom.values())


_XMI_URI = "http://www.omg.org/XMI"
_CAS_URI = "http:///uima/cas.ecore"
#: characters outside the Basic Multilingual Plane: two UTF-16 code units each
_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")
#: characters XML 1.0 cannot hold (a file with one is not XML)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
#: characters an attribute value escapes (as libxml2 writes them, which cassis' lxml uses)
_ATTRIBUTE_SPECIAL = re.compile('[&<>"\t\n\r]')


def _attribute(value: str) -> str:
    """``value`` escaped for a double-quoted attribute, as lxml escapes it."""
    if _ATTRIBUTE_SPECIAL.search(value) is None:
        return value
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("\t", "&#9;").replace("\n", "&#10;").replace("\r", "&#13;"))


def _xml_string(value: str, log: LossLog, doc: Any) -> str:
    """``value`` with each character XML 1.0 cannot hold (a control character, a lone
    surrogate) written as U+FFFD, a ``loss.value``: cassis' lxml refuses them."""
    if _NOT_XML.search(value) is None:
        return value
    log.lose("value", "characters XML 1.0 cannot hold (control characters; written as U+FFFD)",
             document=doc, example=repr(value[:40]))
    return _NOT_XML.sub("\ufffd", value)


def _utf16_offset(text: str) -> Any:
    """The function giving the UTF-16 offset (UIMA's, which XMI holds) of a code point
    offset into ``text``: the offset itself when every character is in the BMP."""
    astral = [m.start() for m in _ASTRAL.finditer(text)]
    if not astral:
        return lambda at: at
    return lambda at: at + bisect.bisect_left(astral, at)


def _prefixes(types: Iterable[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Type → the XML namespace prefix cassis gives its package (the package's last
    part, numbered from 0 when another package took it), and prefix → package (in the
    order of ``types``, the order cassis declares them in)."""
    nsmap = {"xmi": "", "cas": ""}  # prefix → package
    taken: Counter[str] = Counter()
    prefix_of: dict[str, str] = {}  # package → prefix
    out = {}
    for name in types:
        package = name.rpartition(".")[0]
        if package not in prefix_of:
            prefix = package.rpartition(".")[2]
            if prefix in nsmap:
                taken[prefix] += 1
                prefix = f"{prefix}{taken[prefix] - 1}"
            nsmap[prefix] = package
            prefix_of[package] = prefix
        out[name] = prefix_of[package]
    return out, {p: package for p, package in nsmap.items() if p not in ("xmi", "cas")}


def _xmi_of(doc: Any, custom: dict[str, tuple[str, str]], log: LossLog) -> bytes:
    """The XMI of ``doc``: byte for byte what dkpro-cassis' ``Cas.to_xmi`` writes for
    the CAS of its metadata, tokens, sentences and chains (in the type system
    :func:`_description` gives, added in that order), written here as text.

    Why not cassis: ``corefio convert`` of the benchmark corpus (280 documents, 400,000
    feature structures) to XMI took 11.3 s of CPU with cassis, 81% of it in its
    serialiser (which checks every feature of every feature structure against the type
    system: twelve for each token); building the same elements with lxml, 3.7 s (lxml's
    element creation the most of it); as text, 1.6 s, of which this function 0.45 s
    (``benchmarks/bench_bare.py``, 2026-11-27, one session). The layout is fixed (these
    few types, their features in cassis' order, ids numbered as cassis numbers them), so
    cassis stays the judge: ``tests/test_xmi_writer.py`` builds the CAS with cassis for
    documents of every shape this writes (custom chain layers, characters outside the
    BMP, every character an attribute escapes) and wants the same bytes."""
    text, offsets, mime = _text_and_offsets(doc)
    text = _xml_string(text, log, doc)
    external = _utf16_offset(text)
    spans = [(external(a), external(b)) for a, b in offsets]
    chains = []  # (chain type, link type, markables in text order)
    for chain in doc.chain_indices():
        # markables of other layers in a chain are its mentions (loss.layers says so)
        members = sorted((doc.markables[k] for k in chain), key=lambda m: (m.first, -m.last))
        if members:
            entity = next((m.entity for m in members if m.entity is not None), None)
            layers = custom.get(entity, (CHAIN, LINK)) if entity is not None else (CHAIN, LINK)
            chains.append((*layers, members))
    used = [METADATA, *([TOKEN] if spans else []), *([SENTENCE] if doc.sentences else [])]
    used.extend(t for chain_type, link_type, _ in chains for t in (link_type, chain_type))
    prefix, packages = _prefixes(used)
    tag = {name: f"{prefix[name]}:{name.rpartition('.')[2]}" for name in prefix}
    namespaces = "".join(f' xmlns:{p}="http:///{package.replace(".", "/")}.ecore"' for p, package in packages.items())
    # the sofa is 1, the feature structures 2, 3... in the order they were added
    parts = ["<?xml version='1.0' encoding='UTF-8'?>\n",
             f'<xmi:XMI xmlns:xmi="{_XMI_URI}" xmlns:cas="{_CAS_URI}"{namespaces} xmi:version="2.0">',
             '<cas:NULL xmi:id="0"/>']
    meta = f'<{tag[METADATA]} xmi:id="2" sofa="1" begin="0" end="{external(len(text))}"'
    if doc.name is not None:
        name = _attribute(_xml_string(str(doc.name), log, doc))
        meta += f' documentTitle="{name}" documentId="{name}"'
    parts.append(meta + "/>")
    ident = 3
    if spans:
        token = tag[TOKEN]
        parts.extend(f'<{token} xmi:id="{k}" sofa="1" begin="{a}" end="{b}"/>'
                     for k, (a, b) in enumerate(spans, start=ident))
        ident += len(spans)
    if doc.sentences:
        sentence = tag[SENTENCE]
        parts.extend(f'<{sentence} xmi:id="{k}" sofa="1" begin="{spans[s.first][0]}" end="{spans[s.last][1]}"/>'
                     for k, s in enumerate(doc.sentences, start=ident))
        ident += len(doc.sentences)
    for chain_type, link_type, members in chains:
        link, first, last = tag[link_type], ident, ident + len(members) - 1  # the links' ids
        for k, m in enumerate(members, start=first):
            after = f' next="{k + 1}"' if k < last else ""
            features = "".join(f' {f}="{_attribute(_xml_string(str(m.attributes[f]), log, doc))}"'
                               for f in LINK_FEATURES if f in m.attributes)
            parts.append(f'<{link} xmi:id="{k}" sofa="1" begin="{spans[m.first][0]}" end="{spans[m.last][1]}"'
                         f'{after}{features}/>')
        parts.append(f'<{tag[chain_type]} xmi:id="{last + 1}" sofa="1" first="{first}"/>')
        ident = last + 2
    parts.append(f'<cas:Sofa xmi:id="1" sofaNum="1" sofaID="_InitialView" mimeType="{_attribute(mime)}" '
                 f'sofaString="{_attribute(text)}"/>')
    parts.append(f'<cas:View sofa="1" members="{" ".join(map(str, range(2, ident)))}"/></xmi:XMI>')
    return "".join(parts).encode("utf-8")


def sniff(head: bytes) -> bool:
    if is_zip(head):
        return b".xmi" in head or b"TypeSystem.xml" in head or b"typesystem.xml" in head
    return b"http://www.omg.org/XMI" in head and b"xmi:version" in head


register(
    FormatSpec(
        name=NAME,
        description="UIMA CAS XMI as INCEpTION/WebAnno export it (chain layers such as DKPro Core's "
                    "CoreferenceChain/Link, span + relation coreference layers; needs the xmi extra)",
        extensions=(".xmi",),
        ambiguous_extensions=(".zip",),
        capabilities=Capabilities(
            discontinuous=False, nested=True, crossing=True, same_entity_overlap=True, cross_sentence=True,
            entity_ids=False, link_structure=False, link_types=False, multi_target_links=False,
            markable_attributes=frozenset(LINK_FEATURES), entity_attributes=False, link_attributes=False,
            heads=False, min=False, optional=False, layers=False, sets=False, token_attributes=False,
            token_ids=False, empty_tokens=False, whitespace=True, offsets=True, text=True, regions=False,
            sentences=True, sentence_attributes=False, metadata=False, schemes=False, multiple_documents=True,
        ),
        read=read,
        write=write,
        sniff=sniff,
        options=(
            Option("identity", str, None, "relation values that mean identity, read as coreference chains: "
                   "comma-separated VALUE, FEATURE=VALUE or LAYER.FEATURE=VALUE (LAYER the relation layer's "
                   "type, e.g. CRETALink.LinkArt=Koreferenz; VALUE alone: the relation's type feature); "
                   "default: as WebAnno TSV's reader types relations", applies_to="read"),
            Option("zip", bool, None, "write INCEpTION's export zip (one .xmi per document and TypeSystem.xml): "
                   "true also for one document; false refuses several documents (default: a zip for an "
                   "output named .zip or held in memory, one .xmi for an output named .xmi)"),
        ),
        aliases=("uima-xmi", "inception-xmi"),
        variant_option="identity",
    )
)
