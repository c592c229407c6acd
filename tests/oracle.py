"""Counts of what a coreference file holds, found without corefio's readers or writers.

The conversion matrix (tests/test_conversion_matrix.py) compares a source file with what
corefio writes from it; both are counted here by small parsers of our own (CoNLL-U by
udapi, the XML formats, UIMA CAS XMI included, by lxml XPath; UA, brat, LitBank TSV and
WebAnno TSV line by line; jsonlines by the keys of each line, a text with character
offsets cut into words by a rule of our own), so that a defect shared by a reader and a writer
cannot hide itself. Each parser gives, per document, its words, sentences, mentions (as
word positions), entities and links (:class:`Doc`); :func:`summary` turns them into the
kinds counted (a :class:`collections.Counter`, zero counts left out):

``documents``, ``tokens`` (words, CoNLL-U empty nodes included), ``sentences``,
``mentions`` (markables of the coreference layer), ``entities`` (groups of mentions that
corefer, singletons included: every mention is in exactly one entity; a CoNLL-U file is
one id space, as udapi reads it), ``discontinuous`` (mentions whose words leave a gap),
``cross-sentence`` (mentions whose first and last words are in different sentences),
``crossing`` (mentions that start inside an earlier mention and end after it),
``markables:<layer>`` (markables of another layer: MMAX2 levels, RAF ``layer``),
``chained:<layer>`` (those of them in a chain with a mention), ``links:<type>``
(non-identity links, one per source → target pair, so that a link with two targets
counts as two) and ``duplicate-ids`` (markable ids declared more than once in a document:
in MATE, MUC and RAF, in one MMAX2 level).

Identity link types are those corefio documents as identity (coreference, identity,
ident, coref, IDENT); a link with no type is an identity link in RAF and MATE.
"""

from __future__ import annotations

import json
import logging
import re
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from collections.abc import Iterable
from pathlib import Path

from lxml import etree

IDENTITY = {"coreference", "identity", "ident", "coref"}
#: MMAX2 attribute names that mean coreference (README, MMAX2 section)
MMAX2_IDENTITY_NAMES = {"coref_set", "coref_class", "ref", "anaphor_antecedent", "dir_antecedent", "antecedent"}


def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True)


def _xml(path: Path) -> etree._Element:
    return etree.parse(str(path), _parser()).getroot()


class _Groups:
    """Union-find over names."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, name: str) -> str:
        self.parent.setdefault(name, name)
        while self.parent[name] != name:
            self.parent[name] = self.parent[self.parent[name]]
            name = self.parent[name]
        return name

    def join(self, a: str, b: str) -> None:
        self.parent[self.find(a)] = self.find(b)


@dataclass
class Doc:
    """One document as a parser found it."""

    tokens: int = 0
    #: sentence number of each word (empty: the format has no sentences here)
    sentence_of: list[int] = field(default_factory=list)
    #: mention ref → its word positions
    mentions: dict[str, list[int]] = field(default_factory=dict)
    groups: _Groups = field(default_factory=_Groups)
    #: markable ref → layer, for markables outside the coreference layer
    others: dict[str, str] = field(default_factory=dict)
    links: Counter = field(default_factory=Counter)
    #: how often each markable id is declared (an id given twice is a defect of the file)
    ids: Counter = field(default_factory=Counter)
    #: how many of the words are empty nodes (CoNLL-U ``3.1`` rows)
    empty: int = 0
    #: identity links by the value of their type feature (WebAnno TSV: GUM's coref,
    #: ana, appos...), which chains do not keep; not among :func:`summary`'s kinds
    identity_types: Counter = field(default_factory=Counter)

    def sentences(self) -> int:
        return len(set(self.sentence_of))


def summary(docs: list[Doc]) -> Counter:
    """The counts of the module docstring."""
    counts: Counter = Counter(documents=len(docs))
    entities: set[tuple[int, str]] = set()
    for doc in docs:
        counts["tokens"] += doc.tokens
        counts["sentences"] += doc.sentences()
        counts["mentions"] += len(doc.mentions)
        roots = {doc.groups.find(ref) for ref in doc.mentions}
        entities |= {(id(doc.groups), root) for root in roots}
        spans = sorted((min(p), max(p)) for p in doc.mentions.values() if p)
        for positions in doc.mentions.values():
            counts["discontinuous"] += max(positions) - min(positions) + 1 > len(set(positions))
            if doc.sentence_of:
                counts["cross-sentence"] += doc.sentence_of[min(positions)] != doc.sentence_of[max(positions)]
        for k, (first, last) in enumerate(spans):
            counts["crossing"] += any(o_first < first <= o_last < last for o_first, o_last in spans[:k])
        for ref, layer in doc.others.items():
            counts[f"markables:{layer}"] += 1
            counts[f"chained:{layer}"] += doc.groups.find(ref) in roots
        counts.update({f"links:{kind}": n for kind, n in doc.links.items()})
        counts["duplicate-ids"] += sum(n - 1 for n in doc.ids.values())
    counts["entities"] = len(entities)
    return Counter({k: v for k, v in counts.items() if v})


# -- CoNLL ---------------------------------------------------------------------------------
_BRACKET = re.compile(r"\(([^()|]+)\)|\(([^()|]+)|([^()|]+)\)")


def conll(path: Path) -> list[Doc]:
    """CoNLL-2011/2012: ``#begin document`` … ``#end document`` (GUM writes ``# begin
    document``); the last column holds ``(id``, ``id)``, ``(id)``, joined by ``|`` or not
    at all; a blank line ends a sentence; a row numbered ``n-m`` (Democrat) is the
    surface form of a multi-word token, not a word."""
    docs: list[Doc] = []
    doc = Doc()
    sentence = -1
    in_sentence = False
    opened: dict[str, list[int]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if re.match(r"#\s*begin document", line):
            doc, sentence, opened = Doc(), -1, {}
            docs.append(doc)
            continue
        if line.startswith("#"):
            continue
        if not line.strip():
            in_sentence = False
            continue
        columns = line.split()
        if re.fullmatch(r"\d+-\d+", columns[0]):
            continue
        if not in_sentence:
            sentence += 1
            in_sentence = True
        position = doc.tokens
        doc.tokens += 1
        doc.sentence_of.append(sentence)
        for whole, start, end in _BRACKET.findall(columns[-1] if len(columns) > 1 else ""):
            if whole or start:
                opened.setdefault((whole or start).strip(), []).append(position)
            ident = (whole or end).strip()
            if whole or end:
                first = opened[ident].pop()
                ref = f"m{len(doc.mentions)}"
                doc.mentions[ref] = list(range(first, position + 1))
                doc.groups.join(ref, f"entity {ident}")
    return docs


# -- CoNLL-U (CorefUD) ---------------------------------------------------------------------
def conllu(path: Path) -> list[Doc]:
    """CorefUD ``Entity=`` / ``Bridge=`` / ``SplitAnte=`` read by udapi (entity ids are
    one space for the whole file, as udapi has them)."""
    from udapi.core.document import Document

    logger = logging.getLogger()
    level = logger.level
    logger.setLevel(logging.ERROR)  # udapi logs every word without a syntactic head
    try:
        udoc = Document(str(path))
        entities = udoc.coref_entities
    finally:
        logger.setLevel(level)
    groups = _Groups()  # shared by the documents: one id space per file
    docs: list[Doc] = []
    where: dict[int, tuple[Doc, int]] = {}
    for bundle in udoc.bundles:
        for tree in bundle.trees:
            if not docs or tree.newdoc:
                docs.append(Doc(groups=groups))
            doc = docs[-1]
            sentence = doc.sentence_of[-1] + 1 if doc.sentence_of else 0
            doc.empty += len(tree.empty_nodes)
            for node in tree.descendants_and_empty:
                where[id(node)] = (doc, doc.tokens)
                doc.tokens += 1
                doc.sentence_of.append(sentence)
    for entity in entities:
        for k, mention in enumerate(entity.mentions):
            doc = where[id(mention.words[0])][0]
            ref = f"{entity.eid}/{k}/{len(doc.mentions)}"
            doc.mentions[ref] = [where[id(w)][1] for w in mention.words]
            groups.join(ref, f"entity {entity.eid}")
            doc.links["bridging"] += len(list(mention.bridging))
        if entity.split_ante:
            doc = where[id(entity.mentions[0].words[0])][0]
            doc.links["split_antecedent"] += len(entity.split_ante)
    return docs


# -- jsonlines and the systems' JSON shapes --------------------------------------------------
def _mentions_from_clusters(doc: Doc, clusters: Iterable, exclusive_end: bool = False) -> None:
    for c, cluster in enumerate(clusters):
        for mention in cluster:
            first, last = int(mention[0]), int(mention[1]) - exclusive_end
            ref = f"m{len(doc.mentions)}"
            doc.mentions[ref] = list(range(first, last + 1))
            doc.groups.join(ref, f"cluster {c}")


def _sentence_numbers(doc: Doc, numbers: list[int]) -> None:
    """Sentences from a sentence number per word (a new number starts a sentence)."""
    sentence = -1
    for k, n in enumerate(numbers):
        if k == 0 or n != numbers[k - 1]:
            sentence += 1
        doc.sentence_of.append(sentence)
    doc.tokens = len(numbers)


_SPECIAL_PIECE = re.compile(r"^(\[[A-Z]+\]|<s>|</s>|<pad>|<unk>|<mask>|<cls>|<sep>)$", re.I)


def _json_line(data: dict) -> Doc:
    """One document of any shape corefio's jsonlines reader knows, told by its keys; a
    shape that does not cut the words into sentences (AllenNLP, fastcoref, maverick)
    makes one sentence of them."""
    doc = Doc()
    if "mention_clusters" in data:  # PreCo: sentences of words, [sentence, start, end) mentions
        start = []
        for k, sentence in enumerate(data["sentences"]):
            start.append(len(doc.sentence_of))
            doc.sentence_of.extend([k] * len(sentence))
        doc.tokens = len(doc.sentence_of)
        _mentions_from_clusters(doc, [[(start[s] + a, start[s] + b) for s, a, b in cluster]
                                      for cluster in data["mention_clusters"]], exclusive_end=True)
    elif "cased_words" in data:  # wl-coref: [start, end) spans, a sentence number per word
        _sentence_numbers(doc, list(data["sent_id"]))
        _mentions_from_clusters(doc, data.get("span_clusters", []), exclusive_end=True)
    elif "subtoken_map" in data:  # sub-word segments: clusters count pieces
        pieces = [piece for segment in data["sentences"] for piece in segment]
        word_of = list(data["subtoken_map"])
        sentence_of = list(data["sentence_map"])
        words: dict[int, int] = {}  # word → its sentence
        for k, piece in enumerate(pieces):
            if not _SPECIAL_PIECE.match(piece):
                words.setdefault(word_of[k], sentence_of[k])
        order = sorted(words)
        index = {w: k for k, w in enumerate(order)}
        _sentence_numbers(doc, [words[w] for w in order])
        _mentions_from_clusters(doc, [[(index[word_of[a]], index[word_of[b]]) for a, b in cluster]
                                      for cluster in data.get("clusters", [])])
    elif "document" in data and "sentences" not in data:  # AllenNLP: one word list
        doc.tokens = len(data["document"])
        _mentions_from_clusters(doc, data.get("clusters", []))
    elif "tokens" in data and data.get("clusters_token_offsets") is not None:  # fastcoref / LingMess on tokens
        doc.tokens = len(data["tokens"])
        _mentions_from_clusters(doc, data["clusters_token_offsets"])
    elif isinstance(data.get("text"), str):  # fastcoref / maverick: character offsets into a text
        _char_offsets(doc, data)
    else:  # e2e-coref, BookCoref: sentences of words, inclusive document-level pairs
        for k, sentence in enumerate(data["sentences"]):
            doc.sentence_of.extend([k] * len(sentence))
        doc.tokens = len(doc.sentence_of)
        _mentions_from_clusters(doc, data.get("clusters", []))
    if not doc.sentence_of:  # a shape without sentences: the document is one
        doc.sentence_of = [0] * doc.tokens
    return doc


_TEXT_WORD = re.compile(r"\w+|[^\w\s]")
#: where a line may give the strings of its mentions beside their character offsets
_MENTION_STRINGS = ("clusters_char_text", "clusters_text_mentions", "clusters_token_text", "clusters_strings")


def _char_offsets(doc: Doc, data: dict) -> None:
    """A text and clusters of character spans: maverick's ``clusters_char_offsets`` (the
    end is the last character), fastcoref's ``clusters`` (the end is past it); mention
    strings given beside them, when the text spells them, tell which. The words are runs
    of letters and digits and single other characters (blanks left out), cut wherever a
    mention starts or ends; a mention holds the words its characters overlap."""
    text = data["text"]
    key = "clusters_char_offsets" if data.get("clusters_char_offsets") is not None else "clusters"
    spans = [[(int(a), int(b)) for a, b in cluster] for cluster in data.get(key) or []]
    past_end = key == "clusters"
    strings = next((data[k] for k in _MENTION_STRINGS if isinstance(data.get(k), list)), None)
    if strings is None and key != "clusters" and isinstance(data.get("clusters"), list) and all(
            isinstance(c, list) and all(isinstance(x, str) for x in c) for c in data["clusters"]):
        strings = data["clusters"]
    if strings:
        pairs = [(span, said) for cluster, said_cluster in zip(spans, strings) for span, said in zip(cluster, said_cluster)
                 if isinstance(said, str)]
        if pairs and all(text[a:b] == said for (a, b), said in pairs):
            past_end = True
        elif pairs and all(text[a:b + 1] == said for (a, b), said in pairs):
            past_end = False
    spans = [[(a, b if past_end else b + 1) for a, b in cluster] for cluster in spans]
    cuts = sorted({x for cluster in spans for span in cluster for x in span})
    words: list[tuple[int, int]] = []
    for match in _TEXT_WORD.finditer(text):
        a, b = match.span()
        for cut in [c for c in cuts if a < c < b] + [b]:
            words.append((a, cut))
            a = cut
    doc.tokens = len(words)
    for c, cluster in enumerate(spans):
        for a, b in cluster:
            ref = f"m{len(doc.mentions)}"
            doc.mentions[ref] = [k for k, (w_a, w_b) in enumerate(words) if w_a < b and a < w_b]
            doc.groups.join(ref, f"cluster {c}")


def jsonlines(path: Path) -> list[Doc]:
    """One JSON object a line; the shape of each is told by its keys (e2e-coref, wl-coref,
    PreCo, sub-word segments, AllenNLP, fastcoref on tokens, fastcoref and maverick on a
    text, BookCoref)."""
    return [_json_line(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# -- RAF -----------------------------------------------------------------------------------
def _raf_positions(span: str) -> list[int]:
    """``3..7`` or ``5`` (word numbers from 1) as positions from 0."""
    first, _, last = span.partition("..")
    return list(range(int(first) - 1, int(last or first)))


def raf(path: Path) -> list[Doc]:
    docs = []
    for element in _xml(path).xpath("//struct[@type='document']"):
        doc = Doc()
        for k, sentence in enumerate(element.xpath(".//struct[@type='sentence']")):
            n = int(sentence.xpath("count(w | struct[@type='word'])"))
            doc.sentence_of.extend([k] * n)
        doc.tokens = int(element.xpath("count(.//w | .//struct[@type='word'])"))
        for m in element.xpath(".//struct[@type='markable']"):
            layer = m.get("layer")
            ident = f"{layer}:{m.get('id')}" if layer else m.get("id")
            doc.ids[ident] += 1
            ref = f"markable {len(doc.mentions) + len(doc.others)}"
            doc.groups.join(ref, ident)
            if layer:
                doc.others[ref] = layer
            else:
                parts = [m.get("span")] if m.get("span") else m.xpath("feat[@type='span']/@span")
                doc.mentions[ref] = [p for part in parts for p in _raf_positions(part)]
            if m.get("entity"):
                doc.groups.join(ref, "entity " + m.get("entity"))
        for link in element.xpath(".//struct[@type='reflink']"):
            kind = link.get("reflinktype") or "coreference"
            targets = link.xpath("feat[@type='target']/@target") or [link.get("target")]
            prefix = "entity " if link.get("kind") == "entity" else ""
            if kind.lower() in IDENTITY:
                for target in targets:
                    doc.groups.join(link.get("source"), prefix + target)
            else:
                doc.links[kind] += len(targets)
        docs.append(doc)
    return docs


# -- MATE ----------------------------------------------------------------------------------
def _local(name: str) -> str:
    return f"*[local-name()='{name}']"


def _href_id(href: str | None) -> str:
    match = re.search(r"#id\(([^)]*)\)", href or "")
    return match.group(1) if match else (href or "").lstrip("#")


def mate(path: Path) -> list[Doc]:
    root = _xml(path)
    docs = []
    for element in root.xpath(_local("doc")) if etree.QName(root).localname == "mate" else [root]:
        doc = Doc()
        position: dict[etree._Element, int] = {}
        sentences = element.xpath(f".//{_local('s')}")
        sentence_index = {s: k for k, s in enumerate(sentences)}
        for k, word in enumerate(element.xpath(f".//{_local('w')}")):
            position[word] = k
            if sentences:
                doc.sentence_of.append(sentence_index[word.xpath(f"ancestor::{_local('s')}[1]")[0]])
        doc.tokens = len(position)
        for k, de in enumerate(element.xpath(f".//{_local('de')}")):
            ref = f"de {k}"  # not the ID: a file may (wrongly) give one ID twice
            doc.mentions[ref] = [position[w] for w in de.xpath(f".//{_local('w')}")]
            doc.groups.join(ref, de.get("ID"))
            doc.ids[de.get("ID")] += 1
        for link in element.xpath(f".//{_local('link')}"):
            kind = link.get("type") or "ident"
            anchors = [_href_id(a.get("href")) for a in link.xpath(_local("anchor"))]
            if kind.lower() in IDENTITY:
                for anchor in anchors:
                    doc.groups.join(_href_id(link.get("href")), anchor)
            else:
                doc.links[kind] += len(anchors)
        docs.append(doc)
    return docs


# -- MUC -----------------------------------------------------------------------------------
_ATTR = re.compile(r"""(\w+)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)""")
_PIECE = re.compile(r"<!--.*?-->|<(/?)(\w+)([^>]*)>|([^<]+)", re.S)


def muc(path: Path) -> list[Doc]:
    """MUC SGML: words are the character data of TXT/TEXT (of the whole DOC but its
    DOCNO, DOCID and STORYID when it has neither) cut at white space, nested COREFs with
    ID and REF. Sentences: the ``<s>`` elements when there are any; else, in a DOC
    corefio wrote from tokens (its ``tokens separated by spaces`` comment), none; else
    runs of words in the same innermost section element (any tag but COREF ends one:
    ``<p>`` paragraphs whose ``</p>`` is omitted included)."""
    docs = []
    for body in re.findall(r"<DOC>(.*?)</DOC>", path.read_text(encoding="utf-8"), flags=re.S | re.I):
        doc = Doc()
        text = re.search(r"<(TXT|TEXT)>(.*?)</\1>", body, flags=re.S | re.I)
        region = text.group(2) if text else re.sub(r"<(DOCNO|DOCID|STORYID)>.*?</\1>", " ", body,
                                                    flags=re.S | re.I)
        by_s = re.search(r"<s[\s>]", region, flags=re.I) is not None
        from_tokens = "<!-- corefio: tokens separated by spaces -->" in body
        sentence, element = -1, 0
        last_element = None
        open_corefs: list[tuple[str, int]] = []
        for closing, tag, attributes, chars in _PIECE.findall(region):
            if chars:
                n = len(chars.split())
                if n and not by_s and element != last_element:
                    sentence, last_element = sentence + 1, element
                doc.tokens += n
                doc.sentence_of.extend([max(sentence, 0)] * n)
            elif tag.upper() == "COREF" and not closing:
                attrs = {k.upper(): v.strip("\"'") for k, v in _ATTR.findall(attributes)}
                open_corefs.append((attrs["ID"], doc.tokens))
                doc.ids[attrs["ID"]] += 1
                doc.groups.find(attrs["ID"])
                if "REF" in attrs:
                    doc.groups.join(attrs["ID"], attrs["REF"])
            elif tag.upper() == "COREF":
                ident, first = open_corefs.pop()
                ref = f"coref {len(doc.mentions)}"
                doc.mentions[ref] = list(range(first, doc.tokens))
                doc.groups.join(ref, ident)
            elif tag:
                element += 1
                if by_s and tag.lower() == "s" and not closing:
                    sentence += 1
        if sentence < 0 or (from_tokens and not by_s):
            doc.sentence_of = []
        docs.append(doc)
    return docs


# -- MMAX2 ---------------------------------------------------------------------------------
def _mmax2_positions(span: str, position: dict[str, int]) -> list[int]:
    """Positions of the words of an MMAX2 span (``word_1..word_3,word_5``)."""
    covered: list[int] = []
    for part in span.split(","):
        first, _, last = part.strip().partition("..")
        covered.extend(range(position[first], position[last or first] + 1))
    return covered


def mmax2(path: Path) -> list[Doc]:
    """A project directory (or one of its .mmax files: the whole directory is read).
    Identity attributes: ``markable_set``/``markable_pointer`` attributes named like
    coreference (README); the level that has them (one whose name says ``coref`` first)
    is the coreference layer; a level called ``sentence`` gives the sentences."""
    directory = path if path.is_dir() else path.parent
    paths = _xml(directory / "common_paths.xml")

    def folder(tag: str) -> Path:
        value = paths.findtext(tag)
        return directory / (value.strip().replace("\\", "/") if value and value.strip() else "")

    basedata, markables, schemes = folder("basedata_path"), folder("markable_path"), folder("scheme_path")
    levels = [(lv.get("name"), lv.get("schemefile"), (lv.text or "").strip())
              for lv in paths.xpath("//annotations/level")]
    kinds: dict[str, dict[str, str]] = {}  # level → {attribute (lower case): type}
    for name, scheme, _ in levels:
        found: dict[str, str] = {}
        if scheme and (schemes / scheme).exists():
            for attribute in _xml(schemes / scheme).xpath("//attribute"):
                found[(attribute.get("name") or "").lower()] = (attribute.get("type") or "").lower()
        kinds[name] = found

    def identity(level: str, attribute: str) -> bool:
        kind = kinds[level].get(attribute)
        return kind in ("markable_set", "markable_pointer") and (
            attribute in MMAX2_IDENTITY_NAMES or "coref" in attribute)

    with_identity = [name for name, _, _ in levels if any(identity(name, a) for a in kinds[name])]
    coref_level = next((n for n in with_identity if "coref" in n.lower()), with_identity[0] if with_identity else None)
    docs = []
    for mmax in sorted(directory.glob("*.mmax")):
        doc = Doc()
        word_ids = _xml(basedata / _xml(mmax).findtext("words").strip()).xpath("//word/@id")
        doc.tokens = len(word_ids)
        position = {w: k for k, w in enumerate(word_ids)}
        stem = mmax.name[: -len(".mmax")]
        for name, _, pattern in levels:
            level_file = markables / pattern.replace("$", stem)
            if not level_file.exists():
                continue
            items = _xml(level_file).xpath("//*[local-name()='markable']")
            if name.lower() == "sentence":
                doc.sentence_of = [0] * doc.tokens
                for k, markable in enumerate(items):
                    for p in _mmax2_positions(markable.get("span", ""), position):
                        doc.sentence_of[p] = k
                continue
            for k, markable in enumerate(items):
                ident = f"{name}:{markable.get('id')}"
                doc.ids[ident] += 1
                ref = f"{name} {k}"
                doc.groups.join(ref, ident)
                if name == coref_level:
                    doc.mentions[ref] = _mmax2_positions(markable.get("span", ""), position)
                else:
                    doc.others[ref] = name
                for attribute, value in markable.attrib.items():
                    attribute = attribute.lower()
                    kind = kinds[name].get(attribute)
                    if not value or value.lower() == "empty" or kind not in ("markable_set", "markable_pointer"):
                        continue
                    if kind == "markable_set":
                        if identity(name, attribute):
                            doc.groups.join(ref, f"set {value}")
                        continue
                    targets = [t if ":" in t else f"{name}:{t}" for t in value.split(";") if t]
                    if identity(name, attribute):
                        for target in targets:
                            doc.groups.join(ref, target)
                    else:
                        doc.links[attribute] += len(targets)
        docs.append(doc)
    return docs


# -- Universal Anaphora CoNLL-U Plus ---------------------------------------------------------
_UA_COLUMNS = ("ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC IDENTITY BRIDGING DISCOURSE_DEIXIS "
               "REFERENCE NOM_SEM").split()
_UA_PIECE = re.compile(r"\(([^()]*)\)?|\)")


def _ua_fields(text: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in text.split("|") if "=" in part)


def ua(path: Path) -> list[Doc]:
    """UA CoNLL-U Plus: columns named by ``# global.columns`` (else the fifteen of the
    CODI-CRAC layout), separated by TABs or runs of spaces; ``# newdoc`` starts a
    document, a blank line ends a sentence. IDENTITY brackets are mentions (a
    ``MarkableID`` given on several pieces is one discontinuous mention) of entity
    ``EntityID``; ``ElementOf`` (there or in SPLIT) makes entity X one split antecedent of
    P (a ``split_antecedent`` link per pair); each BRIDGING item is a ``bridging`` link;
    DISCOURSE_DEIXIS markables are the layer ``discourse_deixis`` (chains of their own)."""
    columns = _UA_COLUMNS
    docs: list[Doc] = []
    doc: Doc | None = None
    sentence, in_sentence = -1, False
    split_pairs: set[tuple[str, str]] = set()

    def finish() -> None:
        if doc is not None:
            doc.links["split_antecedent"] += len(split_pairs)
            split_pairs.clear()

    opened: dict[str, list[str]] = {"IDENTITY": [], "DISCOURSE_DEIXIS": []}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# global.columns"):
            columns = line.split("=", 1)[1].split()
            continue
        if re.match(r"#\s*newdoc", line) or (doc is None and line.strip() and not line.startswith("#")):
            finish()
            doc, sentence, in_sentence = Doc(), -1, False
            docs.append(doc)
        if line.startswith("#"):
            continue
        if not line.strip():
            in_sentence = False
            continue
        assert doc is not None
        row = dict(zip(columns, line.split("\t") if "\t" in line else line.split(), strict=False))
        if "-" in row["ID"]:
            continue
        if not in_sentence:
            sentence, in_sentence = sentence + 1, True
        doc.empty += "." in row["ID"]
        position = doc.tokens
        doc.tokens += 1
        doc.sentence_of.append(sentence)
        for ref in opened["IDENTITY"]:  # an open mention takes in every word until its ")"
            doc.mentions[ref].append(position)
        for column, layer in (("IDENTITY", None), ("DISCOURSE_DEIXIS", "discourse_deixis")):
            for match in _UA_PIECE.finditer(row.get(column, "_").strip()):
                if match.group(0) == ")":
                    opened[column].pop()
                    continue
                fields = _ua_fields(match.group(1))
                ref = f"{column} {fields.get('MarkableID') or f'{position}/{match.start()}'}"
                doc.groups.join(ref, f"{column} entity {fields.get('EntityID')}")
                if layer:
                    doc.others[ref] = layer
                else:
                    doc.mentions.setdefault(ref, []).append(position)
                for plural in filter(None, fields.get("ElementOf", "").split(",")):
                    split_pairs.add((fields["EntityID"], plural))
                if not match.group(0).endswith(")"):
                    opened[column].append(ref)
        split = _ua_fields(row.get("SPLIT", "_").strip("()"))
        for plural in filter(None, split.get("ElementOf", "").split(",")):
            split_pairs.add((split["EntityID"], plural))
        bridging = row.get("BRIDGING", "_").strip()
        if bridging != "_":
            doc.links["bridging"] += len(re.findall(r"MarkableID=", bridging))
    finish()
    return docs


# -- UIMA CAS XMI --------------------------------------------------------------------------
def _offsets(element: etree._Element) -> tuple[int, int]:
    return int(element.get("begin", 0)), int(element.get("end", 0))


def xmi(path: Path) -> list[Doc]:
    """One document per ``.xmi`` (a zip holds one or several), read without a type
    system, as INCEpTION's layers are recognised by their features: ``Token`` elements
    are the words, ``Sentence`` elements the sentences (a word belongs to the sentence it
    starts in; words outside every sentence make one each). Chain layers: an element
    with a ``first`` attribute is a chain, its ``first`` link and the ``next`` ones after
    it an entity (DKPro Core's ``CoreferenceChain``, INCEpTION's custom chains alike).
    Relation layers: an element with ``Governor`` and ``Dependent`` attributes is a
    relation (unless its ends are tokens: a syntactic dependency); every element of the
    types its ends have is a mention; the relation's kind is its first feature's value
    read as :func:`relation_kind` says. A mention covers the words its offsets overlap
    (one inside a word, even of no width, covers that word)."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            return [_xmi_document(etree.fromstring(archive.read(name), _parser()))
                    for name in archive.namelist() if name.endswith(".xmi")]
    return [_xmi_document(_xml(path))]


_XMI_ID = "{http://www.omg.org/XMI}id"
#: attributes of an XMI annotation that are not features of its layer
_XMI_RESERVED = {_XMI_ID, "sofa", "begin", "end", "Governor", "Dependent", "first", "next"}


def _xmi_relations(root: etree._Element, by_id: dict[str, etree._Element]) -> list[etree._Element]:
    """The relations of an XMI document: elements with ``Governor`` and ``Dependent``
    attributes whose ends are not tokens (those are syntactic dependencies)."""
    return [r for r in root.xpath("//*[@Governor and @Dependent]")
            if not any(etree.QName(by_id[r.get(end)]).localname == "Token" for end in ("Governor", "Dependent"))]


def xmi_relation_layers(path: Path) -> set[str]:
    """The tags of the relation layers of an XMI file (or of the zip's XMI files)."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            roots = [etree.fromstring(archive.read(name), _parser()) for name in archive.namelist()
                     if name.endswith(".xmi")]
    else:
        roots = [_xml(path)]
    return {r.tag for root in roots
            for r in _xmi_relations(root, {e.get(_XMI_ID): e for e in root.iter() if e.get(_XMI_ID) is not None})}


def _xmi_document(root: etree._Element) -> Doc:
    doc = Doc()
    words = sorted(_offsets(t) for t in root.xpath("//*[local-name()='Token']"))
    doc.tokens = len(words)
    sentences = sorted(_offsets(s) for s in root.xpath("//*[local-name()='Sentence']"))
    for k, (begin, _) in enumerate(words):
        inside = [n for n, (s_begin, s_end) in enumerate(sentences) if s_begin <= begin < s_end]
        doc.sentence_of.append(inside[0] if inside else len(sentences) + k)
    by_id = {e.get(_XMI_ID): e for e in root.iter() if e.get(_XMI_ID) is not None}

    def mention(ident: str) -> None:
        if ident in doc.mentions:
            return
        begin, end = _offsets(by_id[ident])
        doc.mentions[ident] = [k for k, (w_begin, w_end) in enumerate(words)
                               if w_begin < end and begin < w_end or w_begin <= begin == end < w_end]
        doc.groups.find(ident)

    for chain in root.xpath("//*[@first]"):
        ident = chain.get("first")
        while ident:
            mention(ident)
            doc.groups.join(ident, f"chain {chain.get(_XMI_ID)}")
            ident = by_id[ident].get("next")
    relations = _xmi_relations(root, by_id)
    span_tags = {by_id[r.get(end)].tag for r in relations for end in ("Governor", "Dependent")}
    for element in root.iter(*span_tags) if span_tags else ():
        mention(element.get(_XMI_ID))
    for relation in relations:
        values = [v for k, v in relation.attrib.items() if k not in _XMI_RESERVED]
        kind = relation_kind(values[0] if values else None, relation.tag)
        if kind is None:
            doc.groups.join(relation.get("Governor"), relation.get("Dependent"))
        else:
            doc.links[kind] += 1
    return doc


# -- brat and LitBank TSV ------------------------------------------------------------------
def _text_words(text: str, cuts: Iterable[int] = ()) -> tuple[list[tuple[int, int]], list[int]]:
    """The words of a text cut at whitespace and at the offsets ``cuts`` (character
    offsets of each word) and the line of each."""
    words, lines = [], []
    for line_number, line in enumerate(re.finditer(r"[^\n]*\n?", text)):
        for word in re.finditer(r"\S+", line.group(0)):
            begin, end = line.start() + word.start(), line.start() + word.end()
            for cut in sorted({c for c in cuts if begin < c < end}) + [end]:
                words.append((begin, cut))
                lines.append(line_number)
                begin = cut
    return words, lines


def brat(path: Path) -> list[Doc]:
    """A ``.ann`` file (or a directory of them) with its ``.txt``: words are the text
    cut at whitespace and at the offsets of the ``T`` lines, a line is a sentence. ``T``
    lines are mentions, except LitBank's chain labels (type ``name-N`` with the offsets
    of another ``T`` line), which give that mention its entity (the first mention at
    those offsets, in file order, without a label yet); ``R`` lines of an identity type and ``*`` lines join
    mentions, other ``R`` lines are links of their type."""
    docs = []
    for ann in sorted(path.glob("*.ann")) if path.is_dir() else [path]:
        doc = Doc()
        annotations = ann.read_text(encoding="utf-8")
        cuts = {int(n) for n in re.findall(r"^T\S*\t\S+ ([\d ;]+)\t", annotations, flags=re.M)
                for n in re.split(r"[ ;]", n)}
        words, lines = _text_words(ann.with_suffix(".txt").read_text(encoding="utf-8"), cuts)
        doc.tokens, doc.sentence_of = len(words), lines
        spans: dict[str, tuple[str, str]] = {}  # T id → (type, offsets)
        for line in annotations.splitlines():
            fields = line.split("\t")
            if line.startswith("T"):
                kind, _, offsets = fields[1].partition(" ")
                spans[fields[0]] = (kind, offsets)
            elif line.startswith("R"):
                kind, *arguments = fields[1].split()
                source, target = (a.partition(":")[2] for a in arguments[:2])
                if kind.lower() in IDENTITY:
                    doc.groups.join(source, target)
                else:
                    doc.links[kind] += 1
            elif line.startswith("*"):
                kind, first, *others = fields[1].split()
                for other in others:
                    doc.groups.join(first, other)
        # LitBank's chain labels: each labels the first mention (in file order) at its
        # offsets that has no label yet (two mentions of one span, each with its label,
        # are told apart by their order)
        candidates = [t for t, (kind, _) in spans.items() if re.search(r"\S-\d+$", kind)]
        unlabelled: dict[str, list[str]] = {}
        for ident, (_, offsets) in spans.items():
            if ident not in candidates:
                unlabelled.setdefault(offsets, []).append(ident)
        label_of: dict[str, str] = {}  # label → the mention it labels
        for ident in candidates:
            if unlabelled.get(spans[ident][1]):
                label_of[ident] = unlabelled[spans[ident][1]].pop(0)
        for ident, (_, offsets) in spans.items():
            if ident in label_of:
                continue
            covered = []
            for fragment in offsets.split(";"):
                begin, end = map(int, fragment.split())
                covered += [k for k, (w_begin, w_end) in enumerate(words) if w_begin < end and begin < w_end]
            doc.mentions[ident] = covered
            doc.groups.find(ident)
        for ident, labelled in label_of.items():
            doc.groups.join(labelled, f"label {spans[ident][0]}")
        docs.append(doc)
    return docs


def litbank_tsv(path: Path) -> list[Doc]:
    """LitBank's TSV ``.ann`` (or a directory of them) with its ``.txt`` (words cut at
    whitespace, a line a sentence): ``MENTION`` rows (sentence and word numbers of the
    first and last word), ``COREF`` rows (the mention's chain label), any other row of
    three fields a link named by its first field (in lower case when it is upper case:
    LitBank's ``COP`` and ``APPOS`` rows are ``cop`` and ``appos`` links)."""
    docs = []
    for ann in sorted(path.glob("*.ann")) if path.is_dir() else [path]:
        doc = Doc()
        text = ann.with_suffix(".txt").read_text(encoding="utf-8")
        sentence_words = [line.split() for line in text.splitlines() if line.split()]
        start = [0]
        for k, words in enumerate(sentence_words):
            doc.sentence_of += [k] * len(words)
            start.append(start[-1] + len(words))
        doc.tokens = len(doc.sentence_of)
        for line in ann.read_text(encoding="utf-8").splitlines():
            fields = line.split("\t")
            if fields[0] == "MENTION":
                first = start[int(fields[2])] + int(fields[3])
                last = start[int(fields[4])] + int(fields[5])
                doc.mentions[fields[1]] = list(range(first, last + 1))
                doc.groups.find(fields[1])
            elif fields[0] == "COREF":
                doc.groups.join(fields[1], f"label {fields[2]}")
            elif len(fields) == 3:  # LitBank's upper-case rows name lower-case types (COP: cop)
                doc.links[fields[0].lower() if fields[0].isupper() else fields[0]] += 1
        docs.append(doc)
    return docs


# -- WebAnno TSV ---------------------------------------------------------------------------
#: GUM's relation types that are coreference (the README's WebAnno TSV section)
WEBANNO_IDENTITY = {"coref", "ana", "cata", "appos", "pred", "disc"}
_ITEM_ID = re.compile(r"\[(\d+)(?:_\d+)?\]$")


def relation_kind(value: str | None, layer: str) -> str | None:
    """What a relation of an INCEpTION relation layer is, by the value of its type
    feature (the README's WebAnno TSV section): None (identity: its ends corefer) for
    GUM's types of :data:`WEBANNO_IDENTITY` and, in a layer whose name says ``coref``,
    for a relation without value (``*`` in TSV); ``split_antecedent`` for
    ``bridge:aggr``, ``bridging`` for ``bridge`` and ``bridge:X``; ``relation`` for a
    relation without value elsewhere; else the value itself."""
    if value in (None, "", "*"):
        return None if "coref" in layer.lower() else "relation"
    if value in WEBANNO_IDENTITY:
        return None
    if value == "bridge:aggr":
        return "split_antecedent"
    if value == "bridge" or value.startswith("bridge:"):
        return "bridging"
    return value


def _item_id(item: str) -> str | None:
    """The annotation id of a WebAnno cell item ``value[id]`` (None for ``value``: one word)."""
    match = _ITEM_ID.search(item)
    return match.group(1) if match and match.group(1) != "0" else None


def webanno_tsv(path: Path) -> list[Doc]:
    """WebAnno TSV 3, read as INCEpTION reads it. Span + relation style: the span layer
    a relation layer names with ``BT_`` holds the mentions (``value[id]`` items of its
    feature columns: the rows of one id are one mention, an item without id a mention of
    its row); the relation on a dependent's row gives the governor (``row[governor_dependent]``,
    ``row`` alone for a mention without id), of the kind :func:`relation_kind` says.
    Chain layers (``#T_CH``): ``TYPE->N-M`` (in whichever of the layer's columns holds
    them) is link M of chain N, chains of one layer stacked in one cell by ``|``. A
    ``#Text=`` line starts a sentence; a sub-token row (``1-3.1``: characters inside
    word ``1-3``) is no word, its annotations are on the word it is part of."""
    if zipfile.is_zipfile(path):  # one .tsv per document
        with zipfile.ZipFile(path) as archive:
            return [_webanno_document(archive.read(name).decode("utf-8"))
                    for name in archive.namelist() if name.endswith(".tsv")]
    return [_webanno_document(path.read_text(encoding="utf-8"))]


def _webanno_document(text: str) -> Doc:
    doc = Doc()
    layers: list[tuple[str, str, list[str]]] = []  # (kind, name, features)
    rows: list[tuple[int, list[str]]] = []  # (word position, fields) of every row, sub-tokens included
    sentence = -1
    for line in text.splitlines():
        if line.startswith(("#T_SP=", "#T_RL=", "#T_CH=")):
            name, *features = line[6:].split("|")
            layers.append((line[3:5], name, features))
        elif line.startswith("#Text="):
            if not rows or rows[-1][0] != -1:
                sentence += 1
            rows.append((-1, []))
        elif line and not line.startswith("#"):
            fields = line.split("\t")
            if "." in fields[0]:  # a sub-token: on the word before it
                rows.append((doc.tokens - 1, fields))
                continue
            rows.append((doc.tokens, fields))
            doc.tokens += 1
            doc.sentence_of.append(sentence)
    column = 3
    where: dict[str, list[int]] = {}  # layer name → its columns
    for _, name, features in layers:
        where[name] = list(range(column, column + max(len(features), 1)))
        column += max(len(features), 1)

    def cell(fields: list[str], c: int) -> list[str]:
        value = fields[c] if c < len(fields) else "_"
        return [] if value in ("_", "") else value.split("|")

    #: span layer → the relation layer on it
    bases = {features[-1][3:]: name for kind, name, features in layers if kind == "RL" and features}
    single: dict[str, str] = {}  # row id → its first mention without id
    for position, fields in rows:
        if position < 0:
            continue
        for base in bases:
            most = 0
            for c in where.get(base, []):
                items = cell(fields, c)
                for item in items:
                    ident = _item_id(item)
                    if ident:
                        positions = doc.mentions.setdefault(f"span {ident}", [])
                        if position not in positions:
                            positions.append(position)
                most = max(most, sum(_item_id(item) is None for item in items))
            for k in range(most):
                ref = f"span {fields[0]}/{k}"
                doc.mentions[ref] = [position]
                single.setdefault(fields[0], ref)
        for kind, name, _ in layers:
            if kind != "CH":
                continue
            for c in where[name]:
                for item in cell(fields, c):
                    if "->" not in item:
                        continue
                    chain, _, link = item.rpartition("->")[2].partition("-")
                    ref = f"{name} chain {chain} link {link}"
                    positions = doc.mentions.setdefault(ref, [])
                    if position not in positions:
                        positions.append(position)
                    doc.groups.join(ref, f"{name} chain {chain}")
    for relation in bases.values():
        type_column, governor_column = where[relation][0], where[relation][-1]
        for position, fields in rows:
            if position < 0 or not cell(fields, governor_column):
                continue
            types = cell(fields, type_column) if len(where[relation]) > 1 else []
            for k, item in enumerate(cell(fields, governor_column)):
                row, _, ids = item.partition("[")
                governor_id, _, dependent_id = ids.rstrip("]").partition("_")
                governor = f"span {governor_id}" if governor_id not in ("", "0") else single[row]
                dependent = f"span {dependent_id}" if dependent_id not in ("", "0") else single[fields[0]]
                kind = relation_kind(types[k] if k < len(types) else None, relation)
                if kind is None:
                    doc.groups.join(governor, dependent)
                    if k < len(types) and types[k] not in ("", "*"):
                        doc.identity_types[types[k]] += 1
                else:
                    doc.links[kind] += 1
    for ref in doc.mentions:
        doc.groups.find(ref)
    return doc


# -- Stanford CoreNLP ----------------------------------------------------------------------
def corenlp(path: Path) -> list[Doc]:
    """CoreNLP's JSON or XML output: sentences of tokens; each coreference chain a list of
    mentions given by sentence number and token numbers within it (from 1, end exclusive)."""
    doc = Doc()
    start: dict[int, int] = {}  # sentence number → position of its first token
    chains: list[list[tuple[int, int, int]]] = []
    if path.read_bytes().lstrip()[:1] == b"{":
        data = json.loads(path.read_text(encoding="utf-8"))
        for k, sentence in enumerate(data.get("sentences", [])):
            start[k + 1] = doc.tokens
            doc.tokens += len(sentence.get("tokens", []))
            doc.sentence_of += [k] * len(sentence.get("tokens", []))
        corefs = data.get("corefs") or {}
        chains = [[(m["sentNum"], m["startIndex"], m["endIndex"]) for m in chain] for chain in corefs.values()]
    else:
        root = _xml(path)
        for k, sentence in enumerate(root.xpath("//sentences/sentence")):
            start[k + 1] = doc.tokens
            n = len(sentence.xpath("tokens/token"))
            doc.tokens += n
            doc.sentence_of += [k] * n
        chains = [[(int(m.findtext("sentence")), int(m.findtext("start")), int(m.findtext("end")))
                   for m in chain.xpath("mention")] for chain in root.xpath("//coreference/coreference")]
    for c, chain in enumerate(chains):
        for sentence, first, end in chain:
            ref = f"m{len(doc.mentions)}"
            doc.mentions[ref] = list(range(start[sentence] + first - 1, start[sentence] + end - 1))
            doc.groups.join(ref, f"chain {c}")
    return [doc]


# -- spaCy DocBin (read by spaCy itself) -------------------------------------------------------
def spacy(path: Path) -> list[Doc]:
    """A ``.spacy`` DocBin read by spaCy: ``coref_clusters_N`` span groups are entities;
    a ``coref_head_clusters_N`` without its cluster gives one-word mentions."""
    import spacy as spacy_library
    from spacy.tokens import DocBin

    docs = []
    vocab = spacy_library.blank("xx").vocab
    for sdoc in DocBin().from_disk(path).get_docs(vocab):
        doc = Doc(tokens=len(sdoc))
        if sdoc.has_annotation("SENT_START"):
            for k, sentence in enumerate(sdoc.sents):
                doc.sentence_of += [k] * len(sentence)
        clusters = {key[len("coref_clusters_"):]: group for key, group in sdoc.spans.items()
                    if key.startswith("coref_clusters_")}
        for key, group in sdoc.spans.items():
            if key.startswith("coref_head_clusters_") and key[len("coref_head_clusters_"):] not in clusters:
                clusters[key[len("coref_head_clusters_"):]] = group
        for name, group in clusters.items():
            for span in group:
                ref = f"m{len(doc.mentions)}"
                doc.mentions[ref] = list(range(span.start, span.end))
                doc.groups.join(ref, f"cluster {name}")
        docs.append(doc)
    return docs


# -- Hugging Face datasets (read by pyarrow / datasets) -----------------------------------------
def _hf_rows(path: Path) -> list[dict]:
    if path.is_dir():
        import datasets

        loaded = datasets.load_from_disk(str(path))
        splits = loaded.values() if isinstance(loaded, datasets.DatasetDict) else [loaded]
        return [row for split in splits for row in split.to_list()]
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    import datasets

    return datasets.Dataset.from_file(str(path)).to_list()


def hf(path: Path) -> list[Doc]:
    """Rows of the ``conll2012_ontonotesv5`` layout (sentences of ``words`` with
    ``coref_spans`` ``[cluster, start, end]``) or of coref-data's (sentences of ``tokens``,
    ``coref_chains`` of ``[sentence, start, end]``); end inclusive, words within a sentence."""
    docs = []
    for row in _hf_rows(path):
        doc = Doc()
        start = []
        for k, sentence in enumerate(row["sentences"]):
            start.append(doc.tokens)
            n = len(sentence["words"] if "words" in sentence else sentence["tokens"])
            doc.tokens += n
            doc.sentence_of += [k] * n
        for k, sentence in enumerate(row["sentences"]):
            for cluster, first, last in sentence.get("coref_spans") or []:
                ref = f"m{len(doc.mentions)}"
                doc.mentions[ref] = list(range(start[k] + first, start[k] + last + 1))
                doc.groups.join(ref, f"cluster {cluster}")
        for c, chain in enumerate(row.get("coref_chains") or []):
            for sentence, first, last in chain:
                ref = f"m{len(doc.mentions)}"
                doc.mentions[ref] = list(range(start[sentence] + first, start[sentence] + last + 1))
                doc.groups.join(ref, f"chain {c}")
        docs.append(doc)
    return docs


PARSERS = {"conll": conll, "conllu": conllu, "jsonlines": jsonlines, "wl-coref": jsonlines, "preco": jsonlines,
           "raf": raf, "mate": mate, "muc": muc, "mmax2": mmax2, "ua": ua, "xmi": xmi, "brat": brat,
           "litbank-tsv": litbank_tsv, "webanno-tsv": webanno_tsv, "corenlp": corenlp, "spacy": spacy,
           "hf-datasets": hf}


def parse(path: Path, format: str) -> list[Doc]:
    """The documents of ``path``; ``format`` is a corefio format name, a variant after a
    colon (``jsonlines:wl``) read by the same parser (it tells shapes by their keys)."""
    from .oracle_cdcr import PARSERS as CROSS_DOCUMENT  # the cross-document formats' counters

    return {**PARSERS, **CROSS_DOCUMENT}[format.partition(":")[0]](path)


def counts(path: Path, format: str) -> Counter:
    """What ``path`` (in ``format``, a corefio format name) holds, by the kinds above."""
    return summary(parse(path, format))


#: the kinds a manifest's ``judge_counts`` may give (tests/data/wild/README.md)
JUDGED = ("documents", "tokens", "mentions", "entities", "singletons", "empty_nodes", "bridging",
          "split_antecedents")


def judged(docs: list[Doc]) -> Counter:
    """The counts of :data:`JUDGED`: ``tokens`` are words without the empty nodes,
    ``entities`` and ``singletons`` (entities of one mention) count groups of mentions,
    ``bridging`` and ``split_antecedents`` links (one per antecedent)."""
    out: Counter = Counter(documents=len(docs))
    size: Counter = Counter()
    for doc in docs:
        out["tokens"] += doc.tokens - doc.empty
        out["empty_nodes"] += doc.empty
        out["mentions"] += len(doc.mentions)
        out["bridging"] += doc.links["bridging"]
        out["split_antecedents"] += doc.links["split_antecedent"]
        for ref in doc.mentions:
            size[(id(doc.groups), doc.groups.find(ref))] += 1
    out["entities"] = len(size)
    out["singletons"] = sum(n == 1 for n in size.values())
    return out
