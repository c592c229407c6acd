"""Counts of what a coreference file holds, found without corefio's readers or writers.

The conversion matrix (tests/test_conversion_matrix.py) compares a source file with what
corefio writes from it; both are counted here by small parsers of our own (CoNLL-U by
udapi, the XML formats by lxml XPath), so that a defect shared by a reader and a writer
cannot hide itself. The kinds counted (a :class:`collections.Counter`, zero counts left
out):

``documents``, ``tokens`` (words, CoNLL-U empty nodes included), ``sentences``,
``mentions`` (markables of the coreference layer), ``discontinuous`` (mentions whose
words leave a gap), ``markables:<layer>`` (markables of
another layer: MMAX2 levels, RAF ``layer``), ``entities`` (groups of mentions that
corefer, singletons included: every mention is in exactly one entity), and
``links:<type>`` (non-identity links, one per source → target pair, so that a link with
two targets counts as two).

Identity link types are those corefio documents as identity (coreference, identity,
ident, coref, IDENT); a link with no type is an identity link in RAF and MATE.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
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
    """Union-find over names: how many groups the added names form."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def add(self, name: str) -> None:
        self.parent.setdefault(name, name)

    def find(self, name: str) -> str:
        self.add(name)
        while self.parent[name] != name:
            self.parent[name] = self.parent[self.parent[name]]
            name = self.parent[name]
        return name

    def join(self, a: str, b: str) -> None:
        self.parent[self.find(a)] = self.find(b)

    def count(self) -> int:
        return len({self.find(n) for n in self.parent})


def _clean(counts: Counter) -> Counter:
    return Counter({k: v for k, v in counts.items() if v})


# -- CoNLL ---------------------------------------------------------------------------------
_OPENING = re.compile(r"\(([^()|]+)")


def conll(path: Path) -> Counter:
    """CoNLL-2011/2012: ``#begin document`` … ``#end document`` (GUM writes ``# begin
    document``); the last column holds ``(id``, ``id)``, ``(id)``, joined by ``|`` or not
    at all; a blank line ends a sentence."""
    counts: Counter = Counter()
    entities: set[str] = set()
    in_sentence = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if re.match(r"#\s*begin document", line):
            counts["documents"] += 1
            counts["entities"] += len(entities)
            entities = set()
            continue
        if line.startswith("#"):
            continue
        if not line.strip():
            in_sentence = False
            continue
        columns = line.split()
        if re.fullmatch(r"\d+-\d+", columns[0]):
            continue  # the surface form of a multi-word token (Democrat), not a word
        if not in_sentence:
            counts["sentences"] += 1
            in_sentence = True
        counts["tokens"] += 1
        last = columns[-1]
        if last in ("-", "_"):
            continue
        for opened in _OPENING.findall(last):
            counts["mentions"] += 1
            entities.add(opened.strip())
    counts["entities"] += len(entities)
    return _clean(counts)


# -- CoNLL-U (CorefUD) ---------------------------------------------------------------------
def conllu(path: Path) -> Counter:
    """CorefUD ``Entity=`` / ``Bridge=`` / ``SplitAnte=`` read by udapi."""
    from udapi.core.document import Document

    logger = logging.getLogger()
    level = logger.level
    logger.setLevel(logging.ERROR)  # udapi logs every word without a syntactic head
    try:
        doc = Document(str(path))
        entities = doc.coref_entities
    finally:
        logger.setLevel(level)
    counts: Counter = Counter()
    for bundle in doc.bundles:
        for tree in bundle.trees:
            counts["sentences"] += 1
            counts["documents"] += tree.newdoc is not None and tree.newdoc is not False
            counts["tokens"] += len(tree.descendants) + len(tree.empty_nodes)
    counts["documents"] = counts["documents"] or 1
    for entity in entities:
        counts["entities"] += 1
        counts["mentions"] += len(entity.mentions)
        for mention in entity.mentions:
            counts["discontinuous"] += "," in mention.span
            counts["links:bridging"] += len(list(mention.bridging))
        counts["links:split_antecedent"] += len(entity.split_ante)
    return _clean(counts)


# -- jsonlines -----------------------------------------------------------------------------
def jsonlines(path: Path) -> Counter:
    counts: Counter = Counter()
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        doc = json.loads(line)
        counts["documents"] += 1
        counts["sentences"] += len(doc["sentences"])
        counts["tokens"] += sum(len(s) for s in doc["sentences"])
        counts["entities"] += len(doc.get("clusters", []))
        counts["mentions"] += sum(len(c) for c in doc.get("clusters", []))
    return _clean(counts)


# -- RAF -----------------------------------------------------------------------------------
def raf(path: Path) -> Counter:
    root = _xml(path)
    counts: Counter = Counter()
    for doc in root.xpath("//struct[@type='document']"):
        counts["documents"] += 1
        counts["tokens"] += int(doc.xpath("count(.//w | .//struct[@type='word'])"))
        counts["sentences"] += int(doc.xpath("count(.//struct[@type='sentence'])"))
        groups = _Groups()
        mentions = set()
        others: dict[str, str] = {}  # ref → layer
        for m in doc.xpath(".//struct[@type='markable']"):
            layer = m.get("layer")
            ref = f"{layer}:{m.get('id')}" if layer else m.get("id")
            groups.add(ref)
            if layer:
                counts[f"markables:{layer}"] += 1
                others[ref] = layer
            else:
                mentions.add(ref)
                counts["discontinuous"] += len(m.xpath("feat[@type='span']")) > 1
            if m.get("entity"):
                groups.join(ref, "entity " + m.get("entity"))
        for link in doc.xpath(".//struct[@type='reflink']"):
            kind = link.get("reflinktype") or "coreference"
            targets = link.xpath("feat[@type='target']/@target | feat[@type='target']/text()")
            targets = targets or [link.get("target")]
            on_entities = link.get("kind") == "entity"
            if kind.lower() in IDENTITY:
                for target in targets:
                    groups.join(link.get("source"), ("entity " if on_entities else "") + target)
            else:
                counts[f"links:{kind}"] += len(targets)
        _count_groups(counts, groups, mentions, others)
    return _clean(counts)


def _count_groups(counts: Counter, groups: _Groups, mentions: Iterable[str], others: dict[str, str]) -> None:
    """Mentions and entities; ``chained:<layer>``: markables of another layer in a chain
    with a mention (a one-layer format keeps them as mentions)."""
    mentions = list(mentions)
    chains = {groups.find(m) for m in mentions}
    counts["mentions"] += len(mentions)
    counts["entities"] += len(chains)
    for ref, layer in others.items():
        counts[f"chained:{layer}"] += groups.find(ref) in chains


# -- MATE ----------------------------------------------------------------------------------
def _local(name: str) -> str:
    return f"*[local-name()='{name}']"


def _href_id(href: str | None) -> str:
    match = re.search(r"#id\(([^)]*)\)", href or "")
    return match.group(1) if match else (href or "").lstrip("#")


def mate(path: Path) -> Counter:
    root = _xml(path)
    counts: Counter = Counter()
    docs = root.xpath(_local("doc")) if etree.QName(root).localname == "mate" else [root]
    for doc in docs:
        counts["documents"] += 1
        counts["tokens"] += int(doc.xpath(f"count(.//{_local('w')})"))
        counts["sentences"] += int(doc.xpath(f"count(.//{_local('s')})"))
        mentions = [de.get("ID") for de in doc.xpath(f".//{_local('de')}")]
        groups = _Groups()
        for m in mentions:
            groups.add(m)
        for link in doc.xpath(f".//{_local('link')}"):
            kind = link.get("type") or "ident"
            anchors = [_href_id(a.get("href")) for a in link.xpath(_local("anchor"))]
            if kind.lower() in IDENTITY:
                for anchor in anchors:
                    groups.join(_href_id(link.get("href")), anchor)
            else:
                counts[f"links:{kind}"] += len(anchors)
        counts["mentions"] += len(mentions)
        counts["entities"] += len({groups.find(m) for m in mentions})
    return _clean(counts)


# -- MUC -----------------------------------------------------------------------------------
_TAG = re.compile(r"<[^>]*>")
_ATTR = re.compile(r"""(\w+)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)""")


def muc(path: Path) -> Counter:
    """MUC SGML as corefio writes it (words separated by spaces in TXT/TEXT)."""
    text = path.read_text(encoding="utf-8")
    counts: Counter = Counter()
    for doc in re.findall(r"<DOC>(.*?)</DOC>", text, flags=re.S | re.I):
        counts["documents"] += 1
        body = re.search(r"<(TXT|TEXT)>(.*?)</\1>", doc, flags=re.S | re.I)
        inside = body.group(2) if body else ""
        inside = re.sub(r"<!--.*?-->", " ", inside, flags=re.S)
        counts["sentences"] += len(re.findall(r"<s[\s>]", inside, flags=re.I))
        counts["tokens"] += len(_TAG.sub(" ", inside).split())
        groups = _Groups()
        mentions = []
        for tag in re.findall(r"<COREF\b([^>]*)>", doc, flags=re.I):
            attrs = {k.upper(): v.strip("\"'") for k, v in _ATTR.findall(tag)}
            mentions.append(attrs["ID"])
            groups.add(attrs["ID"])
            if "REF" in attrs:
                groups.join(attrs["ID"], attrs["REF"])
        counts["mentions"] += len(mentions)
        counts["entities"] += len({groups.find(m) for m in mentions})
    return _clean(counts)


# -- MMAX2 ---------------------------------------------------------------------------------
def _mmax2_discontinuous(span: str, position: dict[str, int]) -> bool:
    """Whether an MMAX2 span (``word_1..word_3,word_5``) leaves a gap between its words."""
    covered: list[int] = []
    for part in span.split(","):
        first, _, last = part.strip().partition("..")
        covered.extend(range(position[first], position[last or first] + 1))
    covered.sort()
    return any(b - a > 1 for a, b in zip(covered, covered[1:]))


def mmax2(path: Path) -> Counter:
    """A project directory (or one of its .mmax files: the whole directory is counted)."""
    directory = path if path.is_dir() else path.parent
    paths = _xml(directory / "common_paths.xml")

    def folder(tag: str, default: str) -> Path:
        value = paths.findtext(tag)
        return directory / (value.strip().replace("\\", "/") if value and value.strip() else default)

    basedata, markables, schemes = folder("basedata_path", ""), folder("markable_path", ""), folder("scheme_path", "")
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
    counts: Counter = Counter()
    for mmax in sorted(directory.glob("*.mmax")):
        counts["documents"] += 1
        words_file = _xml(mmax).findtext("words").strip()
        word_ids = _xml(basedata / words_file).xpath("//word/@id")
        counts["tokens"] += len(word_ids)
        position = {w: k for k, w in enumerate(word_ids)}
        stem = mmax.name[: -len(".mmax")]
        groups = _Groups()
        mentions: list[str] = []
        others: dict[str, str] = {}
        for name, _, pattern in levels:
            level_file = markables / pattern.replace("$", stem)
            if not level_file.exists():
                continue
            items = _xml(level_file).xpath("//*[local-name()='markable']")
            if name.lower() == "sentence":
                counts["sentences"] += len(items)
                continue
            if name != coref_level:
                counts[f"markables:{name}"] += len(items)
            for markable in items:
                ref = f"{name}:{markable.get('id')}"
                groups.add(ref)
                if name == coref_level:
                    mentions.append(ref)
                    counts["discontinuous"] += _mmax2_discontinuous(markable.get("span", ""), position)
                else:
                    others[ref] = name
                for attribute, value in markable.attrib.items():
                    attribute = attribute.lower()
                    kind = kinds[name].get(attribute)
                    if not value or value.lower() == "empty" or kind not in ("markable_set", "markable_pointer"):
                        continue
                    if kind == "markable_set":
                        if identity(name, attribute):
                            groups.join(ref, f"set {value}")
                        continue
                    targets = [t if ":" in t else f"{name}:{t}" for t in value.split(";") if t]
                    if identity(name, attribute):
                        for target in targets:
                            groups.join(ref, target)
                    else:
                        counts[f"links:{attribute}"] += len(targets)
        _count_groups(counts, groups, mentions, others)
    return _clean(counts)


COUNTERS = {"conll": conll, "conllu": conllu, "jsonlines": jsonlines, "raf": raf, "mate": mate, "muc": muc,
            "mmax2": mmax2}


def counts(path: Path, format: str) -> Counter:
    """What ``path`` (in ``format``, a corefio format name) holds, by the kinds above."""
    return COUNTERS[format](path)
