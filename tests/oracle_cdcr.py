"""Counters of the cross-document formats, written apart from corefio's readers.

:mod:`tests.oracle` counts every other format; these parsers give the same
:class:`tests.oracle.Doc` for ECB+ XML, the meta-document CoNLL files of the CDCR
repositories and WEC-Eng mention lists, from their published descriptions:

* ECB+ (Cybulska and Vossen 2014): a markable element with ``<token_anchor>`` children
  is a mention, one without is an instance; each relation of ``<Relations>`` puts its
  sources in one group (the instance it targets). A file or a folder of them (topic
  folders in name order).
* meta-document CoNLL: ``#begin document`` blocks; the last column is the cluster cell
  of the reference scorer (``(7``, ``7)``, ``(7)``); an eight-column line names its
  document in the third column, any other line belongs to its block's document.
* WEC-Eng (Eirew, Cattan and Dagan 2021): a list of mentions; a document is a
  (``doc_id``, ``mention_context``) pair, one sentence (a context is a paragraph or a
  window of words), the mention's words are ``tokens_number`` in the context, its group
  ``coref_chain``.

Entities are groups within one document, as :mod:`tests.oracle` counts them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from lxml import etree

from .oracle import Doc, _xml


# -- ECB+ -------------------------------------------------------------------------------------------
def _numbered(name: str) -> list:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def ecbplus(path: Path) -> list[Doc]:
    """ECB+ XML documents."""
    if path.is_dir():
        files = sorted((p for p in path.rglob("*.xml")), key=lambda p: [_numbered(x) for x in p.parts])
    else:
        files = [path]
    return [_ecbplus_document(_xml(f)) for f in files]


def _ecbplus_document(root: etree._Element) -> Doc:
    doc = Doc()
    position: dict[str, int] = {}
    sentence_numbers: dict[str, int] = {}
    for token in root.iter("token"):
        position[token.get("t_id")] = doc.tokens
        doc.sentence_of.append(sentence_numbers.setdefault(token.get("sentence"), len(sentence_numbers)))
        doc.tokens += 1
    for markables in root.iter("Markables"):
        for el in markables:
            if not isinstance(el.tag, str):
                continue
            anchors = [position[a.get("t_id")] for a in el.iter("token_anchor")]
            if anchors:
                ref = el.get("m_id")
                doc.mentions[ref] = anchors
                doc.ids[ref] += 1
    for relations in root.iter("Relations"):
        for rel in relations:
            if not isinstance(rel.tag, str):
                continue
            target = f"instance {rel.find('target').get('m_id')}"
            for source in rel.iter("source"):
                doc.groups.join(source.get("m_id"), target)
    return doc


# -- meta-document CoNLL ----------------------------------------------------------------------------
_CELL = re.compile(r"\(([^()|\s]+)\)|\(([^()|\s]+)|([^()|\s]+)\)")


def cdcr_conll(path: Path) -> list[Doc]:
    """The documents of a meta-document CoNLL file."""
    docs: dict[str, Doc] = {}
    open_: dict[tuple[str, str], list[int]] = {}
    last_sentence: dict[str, str] = {}
    block = None
    count = 0
    new_sentence = True
    for raw in path.read_text(encoding="utf-8").split("\n"):
        line = raw.rstrip("\r")
        if re.match(r"#\s*begin document", line):
            block, count = line, count + 1
            new_sentence = True
            continue
        if re.match(r"#\s*end document", line):
            block = None
            continue
        if block is None or line.startswith("#"):
            continue
        if not line.strip():
            new_sentence = True
            continue
        cells = line.split("\t") if "\t" in line else line.split()
        key = f"{count}:{cells[2]}" if len(cells) == 8 else f"{count}"
        if len(cells) == 4 and cells[2] == "DCT":  # GVC's creation time: no word
            continue
        doc = docs.setdefault(key, Doc())
        here = doc.tokens
        if len(cells) in (5, 8):  # a sentence column (8: the fourth, ucdcr: the second)
            sentence = cells[3] if len(cells) == 8 else cells[1]
            new_sentence = new_sentence or sentence != last_sentence.get(key)
            last_sentence[key] = sentence
        previous = doc.sentence_of[-1] if doc.sentence_of else -1
        doc.sentence_of.append(previous + 1 if new_sentence or previous < 0 else previous)
        new_sentence = False
        doc.tokens += 1
        for single, opener, closer in _CELL.findall(cells[-1]):
            if single:
                ref = f"m{len(doc.mentions)}"
                doc.mentions[ref] = [here]
                doc.groups.join(ref, f"cluster {single}")
            elif opener:
                open_.setdefault((key, opener), []).append(here)
            else:
                first = open_[(key, closer)].pop()
                ref = f"m{len(doc.mentions)}"
                doc.mentions[ref] = list(range(first, here + 1))
                doc.groups.join(ref, f"cluster {closer}")
    return list(docs.values())


# -- WEC-Eng ----------------------------------------------------------------------------------------
def wec(path: Path) -> list[Doc]:
    """The documents of a WEC-Eng mention list."""
    docs: dict[tuple[str, tuple[str, ...]], Doc] = {}
    for item in json.loads(path.read_text(encoding="utf-8")):
        context = tuple(item["mention_context"])
        doc = docs.get((item["doc_id"], context))
        if doc is None:
            doc = docs[(item["doc_id"], context)] = Doc(tokens=len(context), sentence_of=[0] * len(context))
        if item.get("coref_chain") is None and not item.get("tokens_number"):
            continue  # a context without a mention
        ref = f"m{len(doc.mentions)}"
        doc.mentions[ref] = [int(n) for n in item["tokens_number"]]
        doc.groups.join(ref, f"chain {item['coref_chain']}")
    return list(docs.values())


PARSERS = {"ecbplus": ecbplus, "cdcr-conll": cdcr_conll, "wec": wec}
