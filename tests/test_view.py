"""The HTML page of xslt/raf-to-html.xsl: its content, and the same page from xsltproc."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from lxml import html

from corefio.api import read
from corefio.formats import raf
from corefio.resources import stylesheet_path
from corefio.xslt import render_html

from .conftest import SAMPLES


def page_of(path):
    return html.fromstring(render_html(read(path)))


def test_every_markable_is_bracketed_and_coloured_by_its_chain():
    page = page_of(SAMPLES / "key.raf.xml")
    opens = page.find_class("open")
    closes = page.find_class("close")
    assert len(opens) == len(closes) == 17
    corpus = read(SAMPLES / "key.raf.xml")
    doc = corpus.documents[0]
    chains = doc.chains()
    assert len(page.find_class("chain")) == len(chains) == 4
    # the members of each chain share one colour class
    colour_of = {}
    for element in closes:
        colour = [c for c in element.get("class").split() if c.startswith("c")][0]
        colour_of.setdefault(element.text_content().strip("]"), set()).add(colour)
    assert all(len(colours) == 1 for colours in colour_of.values())


def test_the_text_is_complete_and_in_order():
    page = page_of(SAMPLES / "response.raf.xml")
    words = [w.text_content() for w in page.find_class("word")]
    assert words == read(SAMPLES / "response.raf.xml").documents[0].tokens.forms
    text = page.find_class("text")[0].text_content()
    assert "[The western peak]" in text
    assert page.find_class("n-markables")[0].text_content().startswith("17")


def test_the_chain_list_names_its_members():
    page = page_of(SAMPLES / "response.raf.xml")
    items = page.find_class("chain")
    assert len(items) == 3
    members = [len(item.find_class("member")) for item in items]
    assert sorted(members) == [1, 7, 9]  # seed 000 Table 1, response side


def test_xsltproc_gives_the_same_page(tmp_path):
    xsltproc = shutil.which("xsltproc")
    if xsltproc is None:
        if os.environ.get("COREFIO_REQUIRE_XSLTPROC"):
            pytest.fail("xsltproc is required here (.ci/run installs it) but is not on PATH")
        pytest.skip("xsltproc is not installed (apt-get install xsltproc); .ci/run installs it")
    for sample in ("key.raf.xml", "response.raf.xml"):
        source = tmp_path / sample
        source.write_bytes(raf.dumps(read(SAMPLES / sample)))
        plain = subprocess.run([xsltproc, "--nonet", "--novalid", str(stylesheet_path("raf-to-html.xsl")),
                                str(source)], capture_output=True, check=True).stdout
        assert plain == render_html(read(SAMPLES / sample))
