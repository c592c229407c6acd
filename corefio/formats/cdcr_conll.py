"""Meta-document CoNLL: the files CDCR repositories write for the reference scorer.

The reference scorer scores one ``#begin document`` block at a time, so the CDCR papers
write a whole unit (the corpus, a topic, a subtopic) as one block whose cluster ids are
shared by the documents in it. Five layouts are read (the layout is told by the
number of columns of the first token line):

``cattan`` (8 columns; Cattan et al. 2021, ``ariecattan/coref`` ``conll.py``)::

    #begin document test_events              one block per unit (corpus or topic)
    36  36_0  36_1ecbplus  0  1  Marlies  True  (100000003)
    topic, subtopic, document, sentence, token id (t_id), word, validated flag, clusters

``barhom`` (5 columns; Barhom et al. 2019, ``write_span_based_cd_coref_clusters``)::

    #begin document (36_ecb); part 000       one block per topic, a blank line per sentence
    36_ecb  0  1  Marlies  (1

``ucdcr`` (5 columns, one block per document; Zhukova et al.'s unified CDCR files)::

    #begin document (10/10ecb/1); part 000   TOPIC/SUBTOPIC/N; labels shared by documents
                                             (the document is named by the key, or by its
                                             last part when that is not a number)
    10/10ecb/1  0  0  According  -

``gvc`` (4 columns; Vossen et al. 2018's Gun Violence Corpus ``gold.conll``, as its
README and Bugert et al.'s reader describe it)::

    #begin document (40b69cf630792394ef837aee6c959ece);   one block per document
    40b69cf630792394ef837aee6c959ece.DCT  2017-01-15  DCT  -      the creation time
    40b69cf630792394ef837aee6c959ece.t1.1  Man  TITLE  -          DOC.<t|b><sentence>.<n>
    40b69cf630792394ef837aee6c959ece.b1.3  shot  BODY  (120)      event clusters over the corpus

(the creation time is the metadata ``dct``, ``TITLE``/``BODY`` the sentence attribute
``type``; documents get the topic ``gun_violence``, their incidents, as subtopics, come
from a mapping; mentions are events),

``mentions`` (2 columns; Barhom et al. 2019's ``*_mention_based.key_conll``): one line
per mention, in an order the key and the response share, no words::

    #begin document (ECB+/ecbplus_all); part 000
    ECB+/ecbplus_all  (1)

Reading gives one document per ``doc_id`` of a ``cattan`` block and one per block of
the other layouts (their documents are not told apart, or a block is a document);
documents get the topic and subtopic the file says (``cattan`` columns, a
``TOPIC/SUBTOPIC/N`` name, or the block name as topic) and the block they were read from
(metadata ``meta_document``: the unit ``block`` scores the blocks as the reference
scorer does). Cluster ids are entity ids,
and an id used in two or more documents is a cross-document entity. The cluster cell
follows the reference scorer's grammar (``(N)``, ``(N``, ``N)``, joined by ``|`` or not):
a closer ends the last opened mention of its cluster.

Writing takes the whole corpus: the ``cattan`` and ``barhom`` layouts write one block
per unit (``unit``: ``corpus``, ``topic``, ``subtopic``), with the chains of the unit
across documents keeping their numeric cluster id, or numbered (the reference scorer
reads numeric ids only), mentions selected by ``mention_type``, singletons kept or dropped and, with
``validated_only``, only the validated sentences (as ``cattan`` writes them: sentences
that are not validated are left out). ``ucdcr`` and ``gvc`` write one block per
document, cluster ids over the corpus. What the
layouts cannot hold (markable attributes, entity ids, sentence ids beyond numbers) is
reported as a loss.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..diagnostics import Report
from ..errors import FormatError, UsageError
from ..io.source import Source
from ..model.crossdoc import (KIND, META_DOCUMENT, SUBTOPIC, TOPIC, cross_chains, document_ref, entities_from_labels,
                              topic_of, units, validated_tokens)
from ..model.layout import FormatLayout
from ._lines import split_newlines
from .registry import Capabilities, FormatSpec, Option, register

NAME = "cdcr-conll"
#: the topic of every GVC document (its subtopics, the incidents, come from a mapping)
GVC_TOPIC = "gun_violence"
LAYOUTS = ("cattan", "barhom", "ucdcr", "gvc", "mentions")
_HEADER = re.compile(r"^#\s*begin document\s?(.*)$")
_END = re.compile(r"^#\s*end document")
_CHUNK = re.compile(r"\(([^()|\s]+)\)|\(([^()|\s]+)|([^()|\s]+)\)|(\|)|(\S)")
#: a cluster id the cluster cell can hold
_CELL_ID = re.compile(r"[^()|\s]+")
_PAREN_NAME = re.compile(r"^\((.*)\);\s*part\s+(\S+)\s*$")
_GVC_NAME = re.compile(r"^\((.*)\);?\s*$")
#: the discourse types of GVC's third column
GVC_TYPES = ("DCT", "TITLE", "BODY")


@dataclass
class CdcrConllLayout(FormatLayout):
    """How a file looked, kept in ``Corpus.layout["cdcr-conll"]`` so that the writer,
    given no ``layout`` option, writes it back the same: the layout read, each block's
    header and end line as written, whether the ``ucdcr`` files end every sentence with
    a blank line and number the words of each sentence from 0, and whether cluster ids
    were kept as read (any id without spaces, brackets or ``|``, not only numbers)."""

    format: ClassVar[str] = NAME

    layout: str = "cattan"
    headers: list[str] = field(default_factory=list)
    ends: list[str] = field(default_factory=list)
    blank_after_sentence: bool = False
    numbers_per_sentence: bool = False


def _fail(message: str, file: str | None, line: int | None = None) -> FormatError:
    return FormatError(message, file=file, line=line)


def _chunks(cell: str, file: str | None, line: int) -> list[tuple[str, str]]:
    """The chunks of a cluster cell in the reference scorer's order: one-token
    mentions, openers, closers (each in text order)."""
    if cell in ("-", "_", ""):
        return []
    singles, openers, closers = [], [], []
    for single, opener, closer, _sep, junk in _CHUNK.findall(cell):
        if junk:
            raise _fail(f"malformed cluster cell {cell!r}", file, line)
        if single:
            singles.append(("S", single))
        elif opener:
            openers.append(("O", opener))
        elif closer:
            closers.append(("C", closer))
    return singles + openers + closers


class _Block:
    """One ``#begin document`` block being read."""

    def __init__(self, name: str, line: int) -> None:
        self.name = name
        self.line = line
        self.rows: list[tuple[int, list[str]]] = []
        self.header = ""
        self.end = "#end document"


def _blocks(text: str, file: str | None) -> list[_Block]:
    blocks: list[_Block] = []
    current: _Block | None = None
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip("\r")
        header = _HEADER.match(line)
        if header is not None:
            if current is not None:
                raise _fail("a '#begin document' line inside a block (the last one has no '#end document')",
                            file, number)
            current = _Block(header.group(1).strip(), number)
            current.header = line
            continue
        if _END.match(line):
            if current is None:
                raise _fail("'#end document' without '#begin document'", file, number)
            current.end = line
            blocks.append(current)
            current = None
            continue
        if current is None:
            if line.strip() and not line.startswith("#"):
                raise _fail("a token line outside '#begin document' ... '#end document'", file, number)
            continue
        if not line.strip():
            current.rows.append((number, []))  # a sentence break
            continue
        if line.startswith("#"):
            continue
        current.rows.append((number, line.split("\t") if "\t" in line else line.split()))
    if current is not None:
        if any(cells for _, cells in current.rows):
            blocks.append(current)  # the last '#end document' missing: the reference scorer reads it too
        else:
            raise _fail("the file ends inside a block", file, max(1, text.count("\n") + (not text.endswith("\n"))))
    if not blocks:
        raise _fail("no '#begin document' block", file, max(1, text.count("\n") + (not text.endswith("\n"))))
    return blocks


def detect_layout(blocks: list[_Block]) -> str:
    """The layout of a file, from the first token line."""
    for block in blocks:
        for _, cells in block.rows:
            if cells:
                if len(cells) == 8:
                    return "cattan"
                if len(cells) == 2:
                    return "mentions"
                if len(cells) == 4 and cells[2] in GVC_TYPES:
                    return "gvc"
                if len(cells) >= 4:
                    name = _block_name(block.name)[0]
                    return "ucdcr" if "/" in name and cells[0] == name and name.count("/") == 2 else "barhom"
                return "barhom"
    return "barhom"


def _block_name(raw: str) -> tuple[str, str | None]:
    match = _PAREN_NAME.match(raw)
    if match is not None:
        return match.group(1), match.group(2)
    match = _GVC_NAME.match(raw)
    if match is not None:
        return match.group(1), None
    return raw, None


class _Builder:
    """The tokens, sentences and mentions of one document being read."""

    def __init__(self, name: str, metadata: dict[str, str]) -> None:
        self.name = name
        self.metadata = metadata
        self.forms: list[str] = []
        self.ids: list[str] = []
        #: (id, first token, attributes)
        self.sentences: list[tuple[str | None, int, dict]] = []
        self.open: dict[str, list[int]] = {}
        self.mentions: list[tuple[int, int, str]] = []

    def token(self, form: str, tid: str | None, sentence: str | None, validated: bool | None, new_sentence: bool,
              chunks: list[tuple[str, str]], file: str | None, line: int, sentence_type: str | None = None) -> None:
        i = len(self.forms)
        if new_sentence or not self.sentences or (sentence is not None and self.sentences[-1][0] != sentence):
            attributes: dict = {} if validated is None else {"validated": validated}
            if sentence_type is not None:
                attributes["type"] = sentence_type
            self.sentences.append((sentence, i, attributes))
        self.forms.append(form)
        if tid is not None:
            self.ids.append(tid)
        for kind, label in chunks:
            if kind == "S":
                self.mentions.append((i, i, label))
            elif kind == "O":
                self.open.setdefault(label, []).append(i)
            else:
                stack = self.open.get(label)
                if not stack:
                    raise _fail(f"cluster {label} ends here without having begun", file, line)
                self.mentions.append((stack.pop(), i, label))

    def build(self, file: str | None, line: int) -> Any:
        from ..model import Document, Markable, Sentence, Tokens

        for label, stack in self.open.items():
            if stack:
                raise _fail(f"a mention of cluster {label} begins and never ends", file, line)
        n = len(self.forms)
        sentences = []
        for k, (sid, first, attributes) in enumerate(self.sentences):
            last = (self.sentences[k + 1][1] if k + 1 < len(self.sentences) else n) - 1
            if last < first:
                continue
            sentences.append(Sentence(first=first, last=last, id=sid, attributes=attributes))
        ordered = sorted(self.mentions, key=lambda m: (m[0], -m[1]))
        markables = [Markable(id=f"m{k + 1}", spans=((a, b),), entity=label)
                     for k, (a, b, label) in enumerate(ordered)]
        ids = self.ids if self.ids and len(self.ids) == n and len(set(self.ids)) == n else None
        return Document.build(name=self.name, metadata=self.metadata, tokens=Tokens(forms=self.forms, ids=ids),
                              sentences=sentences, markables=markables)


def _flag(value: str) -> bool | None:
    low = value.lower()
    return True if low == "true" else False if low == "false" else None


def read(source: Source, *, report: Report, strict: bool = False, layout: str | None = None,
         kind: str | None = None) -> Any:
    """A meta-document CoNLL file of any of the five layouts (``layout`` to force one);
    ``kind``: ``event`` or ``entity``, set as every mention's kind (the file names of
    CDCR repositories say it: ``*_events*``, ``*_entity*``)."""
    from ..model import Corpus

    file = source.name
    text, _ = split_newlines(source.read_text(), file)
    blocks = _blocks(text, file)
    found = layout or detect_layout(blocks)
    if found not in LAYOUTS:
        raise _fail(f"unknown meta-document layout {found!r} (known: {', '.join(LAYOUTS)})", file)
    documents: list[Any] = []
    builders: dict[str, _Builder] = {}
    for block in blocks:
        name, _part = _block_name(block.name)
        if found == "cattan":
            order: list[str] = []
            for number, cells in block.rows:
                if not cells:
                    continue
                if len(cells) != 8:
                    raise _fail(f"a {found} line has 8 columns, not {len(cells)}", file, number)
                topic, subtopic, doc_id, sentence, tid, form, flag, cell = cells
                builder = builders.get(doc_id)
                if builder is None:
                    stem = doc_id[:-4] if doc_id.endswith(".xml") else doc_id
                    metadata: dict[str, str] = {TOPIC: topic, SUBTOPIC: subtopic, META_DOCUMENT: name}
                    if stem != doc_id:
                        metadata["doc_name"] = doc_id
                    builder = builders[doc_id] = _Builder(stem, metadata)
                    order.append(doc_id)
                elif doc_id not in order:
                    raise _fail(f"document {doc_id} appears in two blocks (a file holds each document once)",
                                file, number)
                builder.token(form, tid, sentence, _flag(flag), False, _chunks(cell, file, number), file, number)
            for doc_id in order:
                documents.append(builders[doc_id].build(file, block.line))
            continue
        metadata = {}
        parts = name.split("/")
        document_name = name
        if found == "ucdcr" and len(parts) == 3:
            metadata = {TOPIC: parts[0], SUBTOPIC: parts[1]}
            if not parts[2].isdigit():  # TOPIC/SUBTOPIC/NAME (corefio's); TOPIC/SUBTOPIC/N keeps the key
                document_name = parts[2]
        elif found == "gvc":
            metadata = {TOPIC: GVC_TOPIC}
        elif found != "mentions":
            metadata = {TOPIC: name}
        metadata[META_DOCUMENT] = name
        if name in builders:
            raise _fail(f"two blocks are named {name!r}", file, block.line)
        builder = builders[name] = _Builder(document_name, metadata)
        new_sentence = True
        for number, cells in block.rows:
            if not cells:
                new_sentence = True
                continue
            if found == "mentions":
                if len(cells) != 2:
                    raise _fail(f"a mention line has 2 columns, not {len(cells)}", file, number)
                builder.token("_", None, None, None, False, _chunks(cells[1], file, number), file, number)
                continue
            if found == "gvc":
                if len(cells) != 4 or cells[2] not in GVC_TYPES:
                    raise _fail("a GVC line is TOKEN-ID, WORD, DCT|TITLE|BODY, CLUSTERS", file, number)
                if cells[2] == "DCT":
                    builder.metadata["dct"] = cells[1]
                    continue
                parts = cells[0].split(".")
                builder.token(cells[1], cells[0], parts[1] if len(parts) == 3 else None, None, False,
                              _chunks(cells[3], file, number), file, number, sentence_type=cells[2])
                continue
            if len(cells) < 4:
                raise _fail(f"a {found} line has at least 4 columns, not {len(cells)}", file, number)
            sentence_id = cells[1] if found == "ucdcr" else None
            builder.token(cells[3], cells[2], sentence_id, None, new_sentence and found == "barhom",
                          _chunks(cells[-1], file, number), file, number)
            new_sentence = False
        documents.append(builder.build(file, block.line))
    if kind is None and found == "gvc":
        kind = "event"  # GVC annotates events only
    if kind is not None:
        documents = [d.copy(markables=[m.copy(attributes={**m.attributes, KIND: kind}) for m in d.markables])
                     for d in documents]
    metadata = {"cdcr_layout": found}
    if text and not text.endswith("\n"):
        metadata["cdcr_final_newline"] = "no"  # Cattan et al.'s corpus-level files end so
    kept = CdcrConllLayout(layout=found, headers=[b.header for b in blocks], ends=[b.end for b in blocks],
                           blank_after_sentence=found == "ucdcr" and _blank_after_sentences(blocks),
                           numbers_per_sentence=found == "ucdcr" and _numbers_per_sentence(blocks))
    return Corpus(documents=documents, cross_entities=entities_from_labels(documents), metadata=metadata,
                  layout={NAME: kept})


def _blank_after_sentences(blocks: list[_Block]) -> bool:
    """Does every sentence of every block end with a blank line (and no blank line
    stand elsewhere)?"""
    for block in blocks:
        previous: list[str] | None = None
        for _, cells in block.rows:
            if cells and previous and len(previous) > 1 and len(cells) > 1 and cells[1] != previous[1]:
                return False  # a new sentence without a blank line before it
            if not cells and not previous:
                return False  # a blank line that ends no sentence
            previous = cells
        if previous:
            return False
    return True


def _numbers_per_sentence(blocks: list[_Block]) -> bool:
    """Do the word numbers (third column) start from 0 in every sentence?"""
    for block in blocks:
        sentence, expected = None, 0
        for _, cells in block.rows:
            if len(cells) < 3:
                continue
            if cells[1] != sentence:
                sentence, expected = cells[1], 0
            if cells[2] != str(expected):
                return False
            expected += 1
    return True


# -- writing ------------------------------------------------------------------------------------
def _unit_rows(corpus: Any, documents: list[int], labels: dict[tuple[int, int], str], layout: str,
               validated_only: bool, unit_name: str, report: Report, kept: CdcrConllLayout | None = None) -> list[str]:
    """The token lines of one unit (``kept``: the layout of the file read, when it is
    the one written)."""
    out: list[str] = []
    for d in documents:
        doc = corpus.documents[d]
        starts: dict[int, list[tuple[int, str]]] = {}
        ends: dict[int, list[tuple[int, str]]] = {}
        singles: dict[int, list[str]] = {}
        for k, m in enumerate(doc.markables):
            label = labels.get((d, k))
            if label is None:
                continue
            a, b = m.spans[0][0], m.spans[-1][1]
            if a == b:
                singles.setdefault(a, []).append(label)
            else:
                starts.setdefault(a, []).append((b, label))
                ends.setdefault(b, []).append((a, label))
        flags = validated_tokens(doc)
        sentence_of = doc.sentence_of_token()
        sentence_ids = [s.id if s.id is not None else str(k) for k, s in enumerate(doc.sentences)] or ["0"]
        ids = doc.tokens.all_ids() if doc.tokens.ids is not None else [str(i) for i in range(len(doc.tokens))]
        topic = doc.metadata.get(TOPIC, "")
        subtopic = doc.metadata.get(SUBTOPIC, "")
        previous = None
        gvc_ids = doc.tokens.ids is not None and all(t.startswith(doc.name + ".") and t.count(".") == 2
                                                     for t in doc.tokens.ids)
        if layout == "gvc" and "dct" in doc.metadata:
            out.append("\t".join([f"{doc.name}.DCT", doc.metadata["dct"], "DCT", "-"]))
        if layout == "barhom" and out:
            out.append("")  # a new document starts a new sentence
        for i, form in enumerate(doc.tokens.forms):
            ok = True if flags is None else flags[i]
            if validated_only and not ok:
                continue
            chunks = []
            if layout == "cattan":  # as conll.py: singles, openers (longest first), closers (latest start first)
                chunks += [f"({x})" for x in singles.get(i, [])]
                chunks += [f"({x}" for _, x in sorted(starts.get(i, []), key=lambda e: -e[0])]
                chunks += [f"{x})" for _, x in sorted(ends.get(i, []), key=lambda e: -e[0])]
            else:  # as eval_utils.py: closers, singles, openers
                chunks += [f"{x})" for _, x in sorted(ends.get(i, []), key=lambda e: -e[0])]
                chunks += [f"({x})" for x in singles.get(i, [])]
                chunks += [f"({x}" for _, x in sorted(starts.get(i, []), key=lambda e: -e[0])]
            cell = "|".join(chunks) or "-"
            if not form.strip() or any(c in form for c in "\t\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"):
                written = " ".join(form.split()) or "_"
                report.add("loss.form", "warning", f"{NAME} cannot write empty words or words with tabs or line "
                           "ends: written with spaces ('_' for an empty word)", document=doc.label, count=1,
                           merge=True, example=repr(form))
                form = written
            sentence = sentence_ids[sentence_of[i]] if doc.sentences else "0"
            if layout == "cattan":
                doc_id = doc.metadata.get("doc_name", document_ref(doc))
                out.append("\t".join([topic, subtopic, doc_id, sentence, ids[i], form, str(ok), cell]))
            elif layout == "gvc":
                s_attr = doc.sentences[sentence_of[i]].attributes if doc.sentences else {}
                kind = str(s_attr.get("type", "BODY"))
                kind = kind if kind in ("TITLE", "BODY") else "BODY"
                if not gvc_ids:
                    k = sentence_of[i]
                    number = i - (doc.sentences[k].first if doc.sentences else 0) + 1
                    token_id = f"{doc.name}.{'t' if kind == 'TITLE' else 'b'}{k + 1}.{number}"
                else:
                    token_id = ids[i]
                out.append("\t".join([token_id, form, kind, cell]))
            else:
                if layout == "barhom" and previous is not None and sentence != previous:
                    out.append("")
                if kept is not None and kept.blank_after_sentence and previous is not None and sentence != previous:
                    out.append("")
                first = unit_name if layout == "barhom" else _ucdcr_name(doc)
                second = "0" if layout == "barhom" else sentence
                word_number = ids[i]
                if kept is not None and kept.numbers_per_sentence and doc.tokens.ids is None:
                    word_number = str(i - (doc.sentences[sentence_of[i]].first if doc.sentences else 0))
                out.append("\t".join([first, second, word_number, form, cell]))
            previous = sentence
        if kept is not None and kept.blank_after_sentence and previous is not None:
            out.append("")
    return out


def _ucdcr_name(doc: Any) -> str:
    """``TOPIC/SUBTOPIC/NAME`` when the document has both, else its name."""
    topic, subtopic = doc.metadata.get(TOPIC), doc.metadata.get(SUBTOPIC)
    if topic and subtopic and "/" not in doc.name:
        return f"{topic}/{subtopic}/{doc.name}"
    return doc.name


def _labels(corpus: Any, documents: list[int], mention_type: str, keep_singletons: bool, validated_only: bool,
            first: int, taken: set[str] | None = None,
            keep_any: bool = False) -> tuple[dict[tuple[int, int], str], int]:
    """Each written mention's cluster id: the chain's entity id when all its mentions
    have the same numeric one (``keep_any``: any id the cluster cell can hold, as a file
    read had them), not used by another chain of the file (``taken``: the ids given so
    far), else a number from ``first`` on that no chain keeps."""
    labels: dict[tuple[int, int], str] = {}
    taken = set() if taken is None else taken
    chains = [c for c in cross_chains(corpus, documents, mention_type, KIND, validated_only)
              if keep_singletons or len(c) > 1]
    kept: list[str | None] = []
    for chain in chains:
        ids = {corpus.documents[d].markables[k].entity for d, k in chain}
        own = ids.pop() if len(ids) == 1 else None
        fits = own is not None and (own.isascii() and own.isdigit() or keep_any and _CELL_ID.fullmatch(own))
        if own is not None and fits and own not in taken:
            taken.add(own)
            kept.append(own)
        else:
            kept.append(None)
    number = first
    for chain, own in zip(chains, kept):
        if own is None:
            while str(number) in taken:
                number += 1
            own = str(number)
            taken.add(own)
        for place in chain:
            labels[place] = own
    return labels, number


#: the document metadata each layout writes (the block name, ``meta_document``, is
#: written when it is the name of the block the document is written in)
_WRITTEN_METADATA = {"cattan": {TOPIC, SUBTOPIC, "doc_name"}, "barhom": {TOPIC}, "ucdcr": {TOPIC, SUBTOPIC},
                     "gvc": {TOPIC, "dct"}}


def _report_unwritten(docs: list[Any], labels: dict[tuple[int, int], str], layout: str, report: Report) -> None:
    """The document metadata the layout does not write and the entity ids written as
    other cluster ids, as losses (``loss.metadata``, ``loss.label``)."""
    from .losses import LossLog, lose_entity_ids

    log = LossLog(report, NAME)
    for d, doc in enumerate(docs):
        lost = [k for k in doc.metadata if k not in _WRITTEN_METADATA[layout] and k != META_DOCUMENT]
        log.lose("metadata", "document metadata", document=doc, count=len(lost), example=lost[0] if lost else None)
        renamed = sorted({m.entity for k, m in enumerate(doc.markables)
                          if m.entity is not None and (d, k) in labels and labels[(d, k)] != m.entity})
        lose_entity_ids(log, doc, renamed, "entity ids that are not numbers (or not kept from a file read); "
                                           "renumbered")


def _kept_header(kept: CdcrConllLayout | None, index: int, block: str) -> str | None:
    """The header the file read had for its block ``index``, when that block had the
    name ``block``."""
    if kept is None or index >= len(kept.headers):
        return None
    header = _HEADER.match(kept.headers[index])
    return kept.headers[index] if header is not None and _block_name(header.group(1).strip())[0] == block else None


def _end(kept: CdcrConllLayout | None, index: int, last: bool, final: bool) -> str:
    line = kept.ends[index] if kept is not None and index < len(kept.ends) else "#end document"
    return line if last and not final else line + "\n"


def write(documents: Iterable[Any], *, corpus: Any, report: Report, layout: str | None = None,
          unit: str = "topic", mention_type: str = "all", singletons: bool = True, validated_only: bool = False,
          name: str | None = None, canonical: bool = False) -> Iterator[str]:
    """The corpus as meta-document blocks (see the module's description); without
    ``layout``, in the layout of the file read (as it was: :class:`CdcrConllLayout`),
    else Cattan et al.'s."""
    from ..model import Corpus

    docs = list(documents)
    whole = Corpus(documents=docs, cross_entities=list(getattr(corpus, "cross_entities", []) or []))
    source = None if canonical else (getattr(corpus, "layout", None) or {}).get(NAME)
    if layout is None:
        layout = source.layout if isinstance(source, CdcrConllLayout) and source.layout != "mentions" else "cattan"
    if layout == "mentions":
        raise FormatError("the mention-per-line layout is read only: it has no words to write a response against")
    kept = source if isinstance(source, CdcrConllLayout) and source.layout == layout else None
    final = getattr(corpus, "metadata", {}).get("cdcr_final_newline") != "no"
    if layout in ("ucdcr", "gvc"):
        labels, _ = _labels(whole, list(range(len(docs))), mention_type, singletons, validated_only, 1,
                            keep_any=kept is not None)
        _report_unwritten(docs, labels, layout, report)
        for d, doc in enumerate(docs):
            rows = _unit_rows(whole, [d], labels, layout, validated_only, doc.name, report, kept)
            block = _ucdcr_name(doc) if layout == "ucdcr" else doc.name
            header = _kept_header(kept, d, doc.metadata.get(META_DOCUMENT, block)) or (
                f"#begin document ({block}); part 000" if layout == "ucdcr" else f"#begin document ({block});")
            yield header + "\n" + "".join(r + "\n" for r in rows) + _end(kept, d, d == len(docs) - 1, final)
        return
    try:
        found = units(whole, unit)
    except UsageError:  # documents without a topic: each one a block of its own
        found = {}
        for d, doc in enumerate(docs):
            found.setdefault(topic_of(doc, unit) or document_ref(doc), []).append(d)
        report.info("cdcr-conll.own_block", f"documents without a {unit} are written each as a block of its own")
    if name is None and unit == "corpus":  # the block name the file read had
        blocks = {d.metadata.get(META_DOCUMENT) for d in docs}
        name = blocks.pop() if len(blocks) == 1 and None not in blocks else None
    taken: set[str] = set()
    unit_of = {d: label for label, members in found.items() for d in members}
    split = [c for c in cross_chains(whole, None, mention_type, KIND, validated_only)
             if len({unit_of[d] for d, _ in c}) > 1]
    if split:
        report.warning("loss.cross_unit_links", f"{NAME} writes each {unit} as a block of its own: {len(split)} "
                       f"chain(s) across {unit}s are written as one chain per {unit} (links between blocks "
                       "cannot be written)")
    number = 1
    unit_labels: dict[str, dict[tuple[int, int], str]] = {}
    for label, members in found.items():
        unit_labels[label], number = _labels(whole, members, mention_type, singletons, validated_only, number,
                                             taken, keep_any=kept is not None)
    _report_unwritten(docs, {k: v for labels in unit_labels.values() for k, v in labels.items()}, layout, report)
    for index, (label, members) in enumerate(found.items()):
        labels = unit_labels[label]
        block = name if (name and unit == "corpus") else label
        rows = _unit_rows(whole, members, labels, layout, validated_only, block, report, kept)
        header = _kept_header(kept, index, block) or (
            f"#begin document {block}" if layout == "cattan" else f"#begin document ({block}); part 000")
        yield header + "\n" + "".join(r + "\n" for r in rows) + _end(kept, index, index == len(found) - 1, final)


def sniff(head: bytes) -> bool:
    """A ``#begin document`` block whose first token line has 8 TAB-separated columns
    ending in a validated flag and a cluster cell (Cattan et al.'s layout)."""
    text = head.decode("utf-8", "replace")
    lines = text.split("\n")
    if not lines or not _HEADER.match(lines[0].rstrip("\r")):
        return False
    for line in lines[1:]:
        cells = line.rstrip("\r").split("\t")
        if len(cells) > 1:
            return len(cells) == 8 and cells[6] in ("True", "False")
    return False


CAPABILITIES = Capabilities(
    discontinuous=False, nested=True, crossing=True, same_entity_overlap=False, cross_sentence=True,
    entity_ids=True, link_structure=False, link_types=False, multi_target_links=False,
    markable_attributes=False, entity_attributes=False, link_attributes=False, heads=False, min=False,
    optional=False, layers=False, sets=False, token_attributes=False, token_ids=True, whitespace=False,
    offsets=False, text=False, regions=False, sentences=True, sentence_attributes=frozenset({"id", "attributes"}),
    metadata=True, schemes=False, multiple_documents=True,  # the writer reports what it does not write of these
)

register(FormatSpec(
    name=NAME,
    description="meta-document CoNLL of the CDCR repositories (a unit's documents in one block, cluster ids "
                "shared): Cattan et al.'s 8 columns, Barhom et al.'s span- and mention-based files, uCDCR, GVC",
    extensions=(),
    capabilities=CAPABILITIES,
    read=read,
    write=write,
    options=(
        Option("layout", str, None, "the layout (read: told from the columns when not given)", applies_to="read",
               choices=LAYOUTS),
        Option("kind", str, None, "the kind of every mention read (event or entity)", applies_to="read",
               choices=("event", "entity")),
        Option("layout", str, None, "the layout written (default: the layout of the file read, else cattan)",
               choices=("cattan", "barhom", "ucdcr", "gvc")),
        Option("unit", str, "topic", "what one block holds", choices=("corpus", "topic", "subtopic")),
        Option("mention_type", str, "all", "the mentions written", choices=("all", "event", "entity")),
        Option("singletons", bool, True, "write one-mention chains"),
        Option("validated_only", bool, False, "write only the validated sentences (ECB+)"),
        Option("name", str, None, "the block name of a corpus-level file"),
        Option("canonical", bool, False, "ignore the layout of the file read: Cattan et al.'s unless one is asked, "
               "headers as the layout writes them, numeric cluster ids"),
    ),
    sniff=sniff,
    aliases=("meta-conll",),
    variant_option="layout",
))
