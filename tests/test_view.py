"""The HTML page of xslt/raf-to-html.xsl: its content, its structure (linear, chains read
from the pivot), and the same page from xsltproc."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
from lxml import etree, html

from corefio.api import read
from corefio.formats import raf
from corefio.model import Corpus, Document, Link, Markable, Sentence, Tokens
from corefio.io.resources import stylesheet_path
from corefio.transform.html import render_html

from .conftest import SAMPLES

STYLESHEET = stylesheet_path("raf-to-html.xsl")


def page_of(corpus: Corpus):
    return html.fromstring(render_html(corpus))


def colour_of(element) -> str:
    return re.search(r"hsl\([^)]*\)", element.get("style")).group()


def test_every_markable_is_bracketed_and_coloured_by_its_chain():
    corpus = read(SAMPLES / "key.raf.xml")
    page = page_of(corpus)
    opens = page.find_class("open")
    closes = page.find_class("close")
    assert len(opens) == len(closes) == 17
    doc = corpus.documents[0]
    assert len(page.find_class("chain")) == len(doc.chains()) == 4
    # the members of a chain share one colour, different chains have different ones
    chain_of = {m.id: k for k, chain in enumerate(doc.chains(), 1) for m in chain}
    colours: dict[int, set] = {}
    for element in opens + closes:
        colours.setdefault(chain_of[element.get("data-markable")], set()).add(colour_of(element))
        assert element.get("data-chain") == str(chain_of[element.get("data-markable")])
    assert all(len(c) == 1 for c in colours.values())
    assert len({c.pop() for c in colours.values()}) == 4


def test_the_text_is_complete_and_in_order():
    corpus = read(SAMPLES / "response.raf.xml")
    page = page_of(corpus)
    words = [w.text_content() for w in page.find_class("word")]
    assert words == corpus.documents[0].tokens.forms
    text = page.find_class("text")[0].text_content()
    assert "[The western peak]1 is 10,254 feet high." in text
    assert page.find_class("n-markables")[0].text_content().startswith("17")
    assert page.find_class("n-words")[0].text_content() == str(len(words))
    assert len(page.find_class("sentence-break")) == len(corpus.documents[0].sentences) - 1


def test_the_chain_list_names_its_members():
    page = page_of(read(SAMPLES / "response.raf.xml"))
    items = page.find_class("chain")
    assert len(items) == 3
    assert sorted(len(item.find_class("member")) for item in items) == [1, 7, 9]  # Popescu-Belis (2000) Table 1
    first = [m.text_content() for m in items[0].find_class("member")]
    assert first == ["The western peak", "it", "the southern peak", "which", "it", "This second peak", "it"]
    targets = {a.get("href")[1:] for item in items for a in item.find_class("member")}
    anchors = {e.get("id") for e in page.find_class("open")}
    assert targets <= anchors


def nested_document() -> Document:
    forms = ["a", "b", "c", "d", "e", "f", "g"]
    return Document(
        name="nested", tokens=Tokens(forms=forms), sentences=[Sentence(first=0, last=2), Sentence(first=3, last=6)],
        markables=[Markable(id="outer", spans=((0, 2),)), Markable(id="inner", spans=((0, 0),)),
                   Markable(id="late", spans=((2, 2),)), Markable(id="gap", spans=((3, 3), (5, 5))),
                   Markable(id="parts", spans=((1, 1), (4, 6)))],
        links=[Link(id="l1", source="late", target="outer")])


def test_brackets_nest_and_discontinuous_markables_bracket_each_part():
    page = page_of(Corpus(documents=[nested_document()]))
    text = " ".join(page.find_class("text")[0].text_content().split())
    assert text.startswith("[[a]2 [b]4 [c]1]1")
    assert text.count("[") == text.count("]") == 7
    ids = [e.get("id") for e in page.find_class("open") if e.get("id")]
    assert len(ids) == len(set(ids)) == 5  # one anchor per markable, on its first part
    members = {m.get("data-markable"): m.text_content() for m in page.find_class("member")}
    assert members == {"outer": "a b c", "late": "c", "inner": "a", "gap": "d … f", "parts": "b … e f g"}


def test_colours_are_distinct_for_many_chains():
    n = 60
    doc = Document(name="many", tokens=Tokens(forms=["w"] * n),
                   markables=[Markable(id=f"m{i}", spans=((i, i),)) for i in range(n)])
    page = page_of(Corpus(documents=[doc]))
    colours = [colour_of(e) for e in page.find_class("chain")]
    assert len(colours) == n and len(set(colours)) == n


def test_the_stylesheet_is_linear_and_reads_the_chains_from_the_pivot():
    """No counting along preceding:: axes (quadratic), keys for every lookup, and no
    chain closure of its own: it reads the chain attribute the RAF writer records."""
    sheet = etree.parse(str(STYLESHEET))
    xsl = {"xsl": "http://www.w3.org/1999/XSL/Transform"}
    expressions = [v for el in sheet.iter() for k, v in el.attrib.items() if k in ("select", "test", "use", "match")]
    assert not [e for e in expressions if "preceding::" in e or "following::" in e]
    assert not [e for e in expressions if "preceding-sibling::" in e and "[1]" not in e]
    assert not [e for e in expressions if "ancestor::" in e and "[1]" not in e]
    assert {k.get("name") for k in sheet.findall("xsl:key", xsl)} == {"open", "close", "chain", "word"}
    assert not [e for e in expressions if "reflink" in e and "count(" not in e]
    assert not [t for t in sheet.findall("xsl:template", xsl) if t.get("name") == "closure"]
    # the one recursive template halves its range (depth log n), so it cannot overflow
    recursive = {c.get("name") for c in sheet.xpath("//xsl:call-template[@name=ancestor::xsl:template/@name]",
                                                   namespaces=xsl)}
    assert recursive == {"words"}
    assert "div 2" in etree.tostring(sheet.xpath("//xsl:template[@name='words']", namespaces=xsl)[0]).decode()
    assert any("@chain" in e for e in expressions)


def test_the_writer_records_each_markables_chain_for_the_view():
    doc = nested_document()
    root = etree.fromstring(raf.dumps(Corpus(documents=[doc])))
    chains = {m.get("id"): m.get("chain") for m in root.iter("struct") if m.get("type") == "markable"}
    assert chains == {"outer": "1", "inner": "2", "late": "1", "gap": "3", "parts": "4"}


def test_view_of_many_documents_keeps_their_chains_apart():
    a = nested_document()
    b = a.copy(name="second")
    page = page_of(Corpus(documents=[a, b]))
    sections = page.find_class("document")
    assert len(sections) == 2
    for section in sections:
        assert len(section.find_class("chain")) == 4
        assert len(section.find_class("open")) == 7


def test_xsltproc_gives_the_same_page(tmp_path):
    xsltproc = shutil.which("xsltproc")
    if xsltproc is None:
        if os.environ.get("COREFIO_REQUIRE_XSLTPROC"):
            pytest.fail("xsltproc is required here (.ci/run installs it) but is not on PATH")
        pytest.skip("xsltproc is not installed (apt-get install xsltproc); .ci/run installs it")
    corpora = [read(SAMPLES / "key.raf.xml"), read(SAMPLES / "response.raf.xml"),
               Corpus(documents=[nested_document()])]
    for k, corpus in enumerate(corpora):
        source = tmp_path / f"{k}.raf.xml"
        source.write_bytes(raf.dumps(corpus))
        plain = subprocess.run([xsltproc, "--nonet", "--novalid", str(STYLESHEET), str(source)],
                               capture_output=True, check=True).stdout
        assert plain == render_html(corpus)
