"""``corefio repair`` and the lenient MUC reader agree: the repaired file, read as MUC,
has the markables the reader finds in the damaged file itself, over the same character
data (issue #18: a mis-nested ``</COREF>`` was dropped by repair, which then closed the
COREF at the next ``<COREF>``, so that it spanned "The company &mdash; based in")."""

from __future__ import annotations

from hypothesis import HealthCheck, given
from hypothesis import strategies as st

import corefio
from corefio.io import repair
from corefio.diagnostics import Report
from corefio.model import Corpus, Document

from .conftest import campaign


def read_muc(data: str | bytes) -> Corpus:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return corefio.read(raw, format="muc", report=Report())


def character_positions(text: str) -> tuple[str, list[int]]:
    """The character data of a document text, and for each position of the text how many
    characters of character data come before it (references decoded as repair counts them)."""
    data: list[str] = []
    before = [0] * (len(text) + 1)
    count = 0
    for kind, start, end in repair._Scanner(text).spans():
        raw = text[start:end]
        if kind in ("text", "amp", "lt"):
            chars = raw
        elif kind == "ref":
            chars = repair._decode_ref(raw)
        elif kind == "cdata":
            chars = raw[9:-3]
        else:
            chars = ""
        for i in range(start, end):
            before[i] = count + min(i - start, len(chars)) if kind != "ref" else count
        data.append(chars)
        count += len(chars)
    before[len(text)] = count
    return "".join(data), before


def annotation(doc: Document) -> tuple:
    """What must not change: the name, the character data, each markable's id and the
    character data it spans, the links."""
    assert doc.text is not None and doc.tokens.offsets is not None
    data, before = character_positions(doc.text)
    offsets = doc.tokens.offsets
    markables = sorted((m.id, before[offsets[m.first][0]], before[offsets[m.last][1]], m.optional)
                       for m in doc.markables)
    links = sorted((link.source, link.targets) for link in doc.links)
    return doc.label, data, markables, links


def assert_repair_keeps_the_annotation(damaged: str) -> None:
    direct = read_muc(damaged)
    fixed, _ = repair.repair_bytes(damaged.encode("utf-8"), kind="muc")
    repaired = read_muc(fixed)
    assert [annotation(d) for d in repaired.documents] == [annotation(d) for d in direct.documents]


def test_misnested_coref_end_tag_after_an_early_closed_coref_keeps_its_place():
    damaged = ('<DOC>\n<DOCNO> d1 </DOCNO>\n<TEXT>\n<p><COREF ID="1">It</p>\n'
               '<coref id="4" ref="1"><b>The company</COREF></b> &mdash; based in <COREF ID="5">Boston</COREF>\n'
               "</TEXT>\n</DOC>\n")
    fixed, changes = repair.repair_text(damaged)
    assert '<b>The company</b></coref>' in fixed
    doc = read_muc(fixed.encode("utf-8")).documents[0]
    spans = {m.id: " ".join(doc.tokens.forms[m.first:m.last + 1]) for m in doc.markables}
    assert spans == {"1": "It", "4": "The company", "5": "Boston"}
    assert_repair_keeps_the_annotation(damaged)


def test_unclosed_coref_holds_the_next_one_as_the_reader_reads_it():
    damaged = '<DOC>\n<DOCNO> d1 </DOCNO>\n<TEXT>\n<s><COREF ID="1">a <COREF ID="2">b</COREF> c</s>\n</TEXT>\n</DOC>\n'
    fixed, _ = repair.repair_text(damaged)
    doc = read_muc(fixed.encode("utf-8")).documents[0]
    assert {m.id: " ".join(doc.tokens.forms[m.first:m.last + 1]) for m in doc.markables} == {"1": "a b c", "2": "b"}
    assert_repair_keeps_the_annotation(damaged)


# -- property: any damage -------------------------------------------------------------------
WORDS = st.sampled_from(["word", "The company.", "x y", "\n", " ", "&amp;", "&mdash;", "&MD;", "&#233;", "q'\"",
                         "Inc.", "(a)", "it's"])
INLINE = ["b", "i", "s"]


@st.composite
def content(draw, ids: list[int], depth: int = 0) -> list:
    """Items of a well-formed TEXT: ["start", name, attrs], ["end", name], ["text", s]."""
    items: list = []
    for _ in range(draw(st.integers(1, 4))):
        choice = draw(st.integers(0, 3)) if depth < 4 else 0
        if choice == 0:
            items.append(["text", draw(WORDS)])
        elif choice == 1:
            name = draw(st.sampled_from(INLINE))
            items.append(["start", name, []])
            items += draw(content(ids, depth + 1))
            items.append(["end", name])
        else:
            ids.append(len(ids) + 1)
            attrs = [["ID", str(ids[-1])]]
            if len(ids) > 1 and draw(st.booleans()):
                attrs.append(["REF", str(draw(st.integers(1, len(ids) - 1)))])
            items.append(["start", "COREF", attrs])
            items.append(["text", draw(WORDS)])
            items += draw(content(ids, depth + 1))
            items.append(["end", "COREF"])
    return items


DAMAGE = st.sampled_from(["case", "drop-coref-end", "stray-coref-end", "stray-inline-end", "swap", "move-end",
                          "stray-amp", "drop-inline-end"])


def serialise(items: list) -> str:
    out = []
    for item in items:
        if item[0] == "text":
            out.append(item[1])
        elif item[0] == "start":
            out.append("<" + item[1] + "".join(f' {k}="{v}"' for k, v in item[2]) + ">")
        else:
            out.append(f"</{item[1]}>")
    return "".join(out)


def damage(items: list, kind: str, at: int) -> None:
    tags = [i for i, item in enumerate(items) if item[0] != "text"]
    ends = [i for i in tags if items[i][0] == "end"]
    if kind == "case" and tags:
        item = items[tags[at % len(tags)]]
        item[1] = item[1].swapcase() if at % 3 else item[1].capitalize()
    elif kind == "drop-coref-end":
        corefs = [i for i in ends if items[i][1].lower() == "coref"]
        if corefs:
            del items[corefs[at % len(corefs)]]
    elif kind == "drop-inline-end":
        inline = [i for i in ends if items[i][1].lower() != "coref"]
        if inline:
            del items[inline[at % len(inline)]]
    elif kind in ("stray-coref-end", "stray-inline-end"):
        items.insert(at % (len(items) + 1), ["end", "COREF" if kind == "stray-coref-end" else INLINE[at % 3]])
    elif kind == "swap" and len(tags) > 1:
        i, j = tags[at % (len(tags) - 1)], tags[at % (len(tags) - 1) + 1]
        items[i], items[j] = items[j], items[i]
    elif kind == "move-end" and ends:
        i = ends[at % len(ends)]
        j = min(len(items) - 1, i + 1 + at % 3)
        items.insert(j, items.pop(i))
    elif kind == "stray-amp":
        texts = [i for i, item in enumerate(items) if item[0] == "text"]
        if texts:
            i = texts[at % len(texts)]
            items[i] = ["text", items[i][1] + " & "]


@campaign(400, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data(), st.lists(st.tuples(DAMAGE, st.integers(0, 10**6)), max_size=5))
def test_repaired_muc_reads_as_the_damaged_muc_reads(data, damages):
    items = data.draw(content([]))
    for kind, at in damages:
        damage(items, kind, at)
    damaged = "<DOC>\n<DOCNO> d1 </DOCNO>\n<TEXT>\n" + serialise(items) + "\n</TEXT>\n</DOC>\n"
    assert_repair_keeps_the_annotation(damaged)
