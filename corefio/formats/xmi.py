"""UIMA CAS XMI as INCEpTION and WebAnno export it, read and written with dkpro-cassis.

Needs the ``xmi`` extra (``pip install 'corefio[xmi]'``, which installs ``dkpro-cassis``);
without it reading or writing XMI is a usage error naming the extra.

Input: a ``.xmi`` file, with the ``TypeSystem.xml`` (or ``typesystem.xml``) INCEpTION
exports beside it when there is one, else corefio's own DKPro Core type system
(:data:`TYPE_SYSTEM`: the types below, with the features DKPro Core gives tokens and
the small types they point to, read leniently so that other layers are skipped); or a ``.zip`` holding one ``.xmi`` and its type system, as
INCEpTION's export gives them. Both are checked by :mod:`corefio.io.xmlsafe` before cassis
sees them (cassis parses with lxml's defaults, which expand internal entities): a DTD
declaring entities, and any XML that is not well formed, is refused with its line.

What is read (DKPro Core types):

* the sofa string is :attr:`Document.text`; ``...segmentation.type.Token`` annotations
  are the tokens (offsets into the text; the text between them is their whitespace);
  ``...segmentation.type.Sentence`` the sentences (a sentence covers the tokens that
  start inside it; tokens outside every sentence make sentences of their own);
* ``...coref.type.CoreferenceChain`` → an entity ``chain_N`` (in the CAS's order); its
  ``first`` ``CoreferenceLink`` and each ``next`` one are its markables
  (``markable_N``), covering the tokens their offsets overlap; ``referenceType`` and
  ``referenceRelation`` are markable attributes of those names (WebAnno's relation
  says how a link relates to the next one);
* ``DocumentMetaData``'s ``documentTitle`` (else ``documentId``, else the file name)
  is the document name.

Writing gives one XMI document (XMI holds one): the text (the source text, else the
tokens joined by their whitespace or single spaces, with the sofa MIME type
``text/x-corefio-tokens(-whitespace)`` saying so: reading it back gives a document
without text, as it was), tokens, sentences, a
``DocumentMetaData`` naming the document, and one ``CoreferenceChain`` per chain whose
links follow the text order. The type system is :data:`TYPE_SYSTEM`; write it beside the
``.xmi`` as ``TypeSystem.xml`` (``corefio.formats.xmi.TYPE_SYSTEM``) for tools that need
it. A chain link is one contiguous span: discontinuous markables, links other than
identity and attributes other than the two above are declared losses.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..io._lazy import LazyModule
from ..diagnostics import Report
from ..errors import FormatError, ModelError, UsageError
from .registry import Capabilities, FormatSpec, register
from ..io.source import Source
from ..io.xmlsafe import parse_xml

model = LazyModule("corefio.model")

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
#: how many bytes an entry of a zip may unpack to (a zip bomb stops here)
MAX_ENTRY_BYTES = 512 * 1024 * 1024

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


# ==========================================================================================
# reading
# ==========================================================================================
def _zip_members(data: bytes, file: str) -> tuple[bytes, bytes | None, str]:
    """(the XMI, its type system or None, the XMI's name) from an INCEpTION zip."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise FormatError(f"not a readable zip file: {exc}", file=file, line=1) from None
    with archive:
        names = [i for i in archive.infolist() if not i.is_dir()]
        xmis = [i for i in names if i.filename.lower().endswith(".xmi")]
        if len(xmis) != 1:
            raise FormatError(f"the zip holds {len(xmis)} .xmi files; one is needed", file=file, line=1)
        systems = [i for i in names if Path(i.filename).name in TYPE_SYSTEM_NAMES]
        xmi = _read_member(archive, xmis[0], file)
        system = _read_member(archive, systems[0], file) if systems else None
        return xmi, system, xmis[0].filename


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, file: str) -> bytes:
    """One member of a zip, at most :data:`MAX_ENTRY_BYTES` of it (whatever its header
    claims); a damaged or encrypted member is a :class:`FormatError`."""
    try:
        with archive.open(info) as member:
            data = member.read(MAX_ENTRY_BYTES + 1)
    except (zipfile.BadZipFile, zlib.error, ValueError, EOFError, OSError, NotImplementedError,
            RuntimeError) as exc:
        raise FormatError(f"{info.filename} in the zip cannot be unpacked: {exc}", file=file, line=1) from None
    if len(data) > MAX_ENTRY_BYTES:
        raise FormatError(f"{info.filename} unpacks to more than {MAX_ENTRY_BYTES} bytes", file=file, line=1)
    return data


def _inputs(source: Source) -> tuple[bytes, bytes | None, str]:
    """(XMI bytes, type system bytes or None, the name messages give the XMI)."""
    data = source.read_bytes()
    if data.startswith(b"PK\x03\x04"):
        xmi, system, inner = _zip_members(data, source.name)
        return xmi, system, f"{source.name}:{inner}"
    system = None
    if source.path is not None:
        for name in TYPE_SYSTEM_NAMES:
            beside = source.path.parent / name
            if beside.is_file():
                system = beside.read_bytes()
                break
    return data, system, source.name


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


def read(source: Source, *, report: Report, strict: bool = False) -> Any:
    """Read one XMI document (a ``.xmi`` file or an INCEpTION ``.zip``)."""
    cassis = _cassis()
    xmi, system, name = _inputs(source)
    parse_xml(xmi, file=name)  # refuses entity declarations, DTD tricks, bad XML (with lines)
    if system is not None:
        parse_xml(system, file="TypeSystem.xml")
        try:
            typesystem = cassis.load_typesystem(io.BytesIO(system))
        except Exception as exc:  # cassis raises plain exceptions for bad descriptions
            raise FormatError(f"cannot read the type system: {exc}", file="TypeSystem.xml", line=1) from None
    else:
        typesystem = cassis.load_typesystem(io.BytesIO(TYPE_SYSTEM.encode()))
    try:
        cas = cassis.load_cas_from_xmi(io.BytesIO(xmi), typesystem=typesystem, lenient=system is None)
    except Exception as exc:
        raise FormatError(f"cannot read the XMI document: {exc}", file=name, line=1) from None
    document = _document(cas, source.stem, name, report)
    return model.Corpus._make(documents=[document], metadata={}, schemes=[], layout={})


def _select(cas: Any, type_name: str) -> list:
    try:
        return list(cas.select(type_name))
    except Exception:  # the type is not in the type system: nothing of it
        return []


def _document(cas: Any, stem: str, file: str, report: Report) -> Any:
    text = cas.sofa_string or ""
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
            sentences.append(model.Sentence._make(first=first, last=covered - 1, id=None, comments=[],
                                                  interleaved=[], attributes={}))
    if covered < len(tokens):
        sentences.append(model.Sentence._make(first=covered, last=len(tokens) - 1, id=None, comments=[],
                                              interleaved=[], attributes={}))
    markables: list[Any] = []
    for k, chain in enumerate(_select(cas, CHAIN), 1):
        link = chain.first
        seen: set[int] = set()
        while link is not None:
            if id(link) in seen:
                raise FormatError(f"chain {k}: its links loop back (a next points to an earlier link)",
                                  file=file, line=1)
            seen.add(id(link))
            if link.type.name != LINK:
                raise FormatError(f"chain {k}: a first or next feature names a {link.type.name.rsplit('.', 1)[-1]}, "
                                  "not a CoreferenceLink", file=file, line=1)
            span = _token_range(starts, ends, link.begin, link.end)
            if span is None:
                report.warning("xmi.link-outside-tokens", f"a coreference link at {link.begin}..{link.end} covers "
                               "no token; left out", file=file, merge=True)
            else:
                attrs = {f: getattr(link, f) for f in LINK_FEATURES
                         if getattr(link, f, None) not in (None, "")}
                markables.append(model.Markable.fast(f"markable_{len(markables) + 1}", (span,), f"chain_{k}",
                                                     attributes=attrs))
            link = link.next
    name = stem
    meta = _select(cas, METADATA)
    if meta:
        name = meta[0].documentTitle or meta[0].documentId or stem
    offsets: list[tuple[int, int]] | None = [(t.begin, t.end) for t in tokens]
    source_text: str | None = text
    mime = getattr(cas, "sofa_mime", None)
    if mime in (MIME_FROM_TOKENS, MIME_FROM_TOKENS_AND_WHITESPACE):
        # corefio made this text from tokens: the document had no text of its own
        source_text, offsets = None, None
        if mime == MIME_FROM_TOKENS:
            whitespace = None  # type: ignore[assignment]
    toks = model.Tokens._make(forms=forms, ids=None, whitespace=whitespace, offsets=offsets, attributes={},
                              empty=None)
    try:
        return model.Document.build(name=name, part=None, metadata={}, tokens=toks, sentences=sentences,
                                    markables=markables, entities=[], links=[], text=source_text, regions=[],
                                    layout={})
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


def write(documents: Iterable, *, corpus: Any, report: Report) -> Iterator[bytes]:
    """The XMI of the (first) document."""
    cassis = _cassis()
    typesystem = cassis.load_typesystem(io.BytesIO(TYPE_SYSTEM.encode()))
    for doc in documents:
        yield _write_document(cassis, typesystem, doc)
        return


def _write_document(cassis: Any, typesystem: Any, doc: Any) -> bytes:
    text, offsets, mime = _text_and_offsets(doc)
    cas = cassis.Cas(typesystem=typesystem)
    cas.sofa_string = text
    cas.sofa_mime = mime
    Token, Sentence = typesystem.get_type(TOKEN), typesystem.get_type(SENTENCE)
    Chain, Link, Meta = typesystem.get_type(CHAIN), typesystem.get_type(LINK), typesystem.get_type(METADATA)
    cas.add(Meta(begin=0, end=len(text), documentTitle=doc.name, documentId=doc.name))
    for a, b in offsets:
        cas.add(Token(begin=a, end=b))
    for s in doc.sentences:
        cas.add(Sentence(begin=offsets[s.first][0], end=offsets[s.last][1]))
    for chain in doc.chain_indices():
        members = sorted((doc.markables[k] for k in chain if doc.markables[k].layer is None),
                         key=lambda m: (m.first, -m.last))
        links = []
        for m in members:
            features = {f: str(m.attributes[f]) for f in LINK_FEATURES if f in m.attributes}
            links.append(Link(begin=offsets[m.first][0], end=offsets[m.last][1], **features))
        for before, after in zip(links, links[1:]):
            before.next = after
        for link in links:
            cas.add(link)
        if links:
            cas.add(Chain(first=links[0]))
    return cas.to_xmi().encode("utf-8")


def sniff(head: bytes) -> bool:
    if head.startswith(b"PK\x03\x04"):
        return b".xmi" in head or b"TypeSystem.xml" in head or b"typesystem.xml" in head
    return b"http://www.omg.org/XMI" in head and b"xmi:version" in head


register(
    FormatSpec(
        name="xmi",
        description="UIMA CAS XMI as INCEpTION/WebAnno export it (DKPro Core CoreferenceChain/Link; "
                    "needs the xmi extra)",
        extensions=(".xmi",),
        ambiguous_extensions=(".zip",),
        capabilities=Capabilities(
            discontinuous=False, nested=True, crossing=True, same_entity_overlap=True, cross_sentence=True,
            entity_ids=False, link_structure=False, link_types=False, multi_target_links=False,
            markable_attributes=frozenset(LINK_FEATURES), entity_attributes=False, link_attributes=False,
            heads=False, min=False, optional=False, layers=False, sets=False, token_attributes=False,
            token_ids=False, empty_tokens=False, whitespace=True, offsets=True, text=True, regions=False,
            sentences=True, sentence_attributes=False, metadata=False, schemes=False, multiple_documents=False,
        ),
        read=read,
        write=write,
        sniff=sniff,
        aliases=("uima-xmi", "inception-xmi"),
    )
)
