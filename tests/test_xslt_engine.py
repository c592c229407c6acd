"""The XSLT engine: every stylesheet agrees with its Python twin.

For every sample and test-data file of the XML formats that have a stylesheet to RAF,
the stylesheet's RAF, read by the Python RAF reader, must equal what the format's
Python reader gives: tokens (forms, ids, attribute columns), sentences, markables
(spans, layer, entity, sets, attributes, head, MIN, optional), entities, links and
chains. Each comparison runs with lxml and with xsltproc. The RAF → format stylesheets
must produce files the Python readers read back to the same document.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from lxml import etree

import corefio
import corefio.formats.mate  # noqa: F401  (registers the format)
from corefio.transform import engine as xslt_engine
from corefio.diagnostics import Report
from corefio.errors import CorefioError, UsageError
from corefio.model import Corpus, Document, Markable, Sentence, Tokens

ROOT = Path(__file__).resolve().parent.parent
MATE_FILES = [ROOT / "samples/mate/key.mate.xml", ROOT / "samples/mate/response.mate.xml",
              ROOT / "tests/data/mate/gnome_plain.xml", ROOT / "tests/data/mate/standoff.mate.xml"]
MUC_FILES = sorted((ROOT / "samples/muc").glob("*.sgm")) + sorted((ROOT / "tests/data/muc").glob("*.sgm"))
MMAX2_PROJECTS = [ROOT / "samples/mmax2/gum_news_worship", ROOT / "tests/data/mmax2/worship"]
PROCESSORS = ["lxml", "xsltproc"]


def need(processor: str) -> None:
    """Skip an xsltproc run only where xsltproc is missing and nobody requires it."""
    if processor == "xsltproc" and not xslt_engine.xsltproc_available():
        if os.environ.get("COREFIO_REQUIRE_XSLTPROC"):
            pytest.fail("xsltproc is required here (.ci/run installs it) but is not on PATH")
        pytest.skip("xsltproc is not installed (apt-get install xsltproc); .ci/run installs it")


def content(doc: Document) -> dict:
    """Everything a stylesheet must give exactly as the Python reader does."""
    return {
        "name": (doc.name, doc.part),
        "forms": doc.tokens.forms,
        "token ids": doc.tokens.ids,
        "token attributes": doc.tokens.attributes,
        "sentences": [(s.first, s.last, s.id, s.attributes) for s in doc.sentences],
        "markables": [(m.layer, m.id, m.spans, m.entity, m.sets, m.attributes, m.head, m.min, m.optional)
                      for m in doc.markables],
        "entities": doc.entities,
        "links": sorted((link.id, link.type, link.source, link.targets, link.target_kind, link.attributes)
                        for link in doc.links),
        "chains": doc.chain_indices(),
    }


#: what muc-to-raf.xsl does not produce (it sees the repaired XML, not the SGML bytes)
MUC_NOT_PRODUCED = ("text", "offsets", "regions")


def assert_same(got: Corpus, expected: Corpus, what: str) -> None:
    assert len(got.documents) == len(expected.documents), what
    for a, b in zip(got.documents, expected.documents):
        ca, cb = content(a), content(b)
        for key in cb:
            assert ca[key] == cb[key], f"{what}: {key} differs in document {b.label}"


def mmax2_project(tmp_path: Path, corpus: Corpus) -> Path:
    import corefio.formats.mmax2  # noqa: F401

    tmp_path.mkdir(parents=True, exist_ok=True)
    root = tmp_path / "project"
    corefio.write(corpus, root, "mmax2")
    return root


@pytest.mark.parametrize("processor", PROCESSORS)
@pytest.mark.parametrize("path", MATE_FILES, ids=lambda p: p.name)
def test_mate_to_raf_equals_the_python_reader(path, processor):
    need(processor)
    report = Report()
    got = xslt_engine.read(path, "mate", report=report, processor=processor)
    assert_same(got, corefio.read(path, "mate"), f"mate-to-raf.xsl ({processor}) on {path.name}")
    rules = [d.message for d in report if d.code == "xslt.rule"]
    assert any("rule w-token" in m for m in rules) and any("markable" in m for m in rules), rules


@pytest.mark.parametrize("processor", PROCESSORS)
@pytest.mark.parametrize("path", MUC_FILES, ids=lambda p: p.name)
def test_muc_to_raf_equals_the_python_reader(path, processor):
    """Tokens (the reader's punctuation rules), sentences, COREF spans, MIN (aligned and
    inside words), STATUS, REF links, renamed duplicate IDs, dropped dangling REFs."""
    need(processor)
    report = Report()
    got = xslt_engine.read(path, "muc", report=report, processor=processor)
    expected = corefio.read(path, "muc")
    assert_same(got, expected, f"muc-to-raf.xsl ({processor}) on {path.name}")
    for doc in got.documents:
        assert doc.text is None and doc.tokens.offsets is None and doc.regions == []
    assert any("rule coref-markable" in d.message for d in report if d.code == "xslt.rule")


def test_muc_to_raf_on_the_writers_output(tmp_path):
    """Documents written by the MUC writer (tokens separated by spaces) come back."""
    corpus = corefio.read(ROOT / "samples/key.raf.xml")
    path = tmp_path / "key.sgm"
    path.write_text(corefio.dumps(corpus, "muc"))
    assert_same(xslt_engine.read(path, "muc"), corefio.read(path, "muc"), "muc-to-raf.xsl on written MUC")


@pytest.mark.parametrize("sample", ["key.raf.xml", "response.raf.xml"])
def test_raf_to_muc_gives_the_python_writers_bytes(sample, tmp_path):
    corpus = corefio.read(ROOT / "samples" / sample)
    report = Report()
    data = xslt_engine.from_raf(corefio.dumps(corpus, "raf"), "muc", report=report)
    assert data.decode("utf-8") == corefio.dumps(corpus, "muc")
    path = tmp_path / "out.sgm"
    path.write_bytes(data)
    back = corefio.read(path, "muc").documents[0]
    assert back.tokens.forms == corpus.documents[0].tokens.forms
    assert content(back)["chains"] == content(corpus.documents[0])["chains"]
    assert any(d.code == "xslt.rule" for d in report)


@pytest.mark.parametrize("processor", PROCESSORS)
@pytest.mark.parametrize("project", MMAX2_PROJECTS, ids=lambda p: p.name)
def test_mmax2_to_raf_equals_the_python_reader(project, processor):
    need(processor)
    report = Report()
    got = xslt_engine.read(project, "mmax2", report=report, processor=processor)
    assert_same(got, corefio.read(project, "mmax2"), f"mmax2-to-raf.xsl ({processor}) on {project.name}")
    assert any("rule identity-by-name" in d.message for d in report if d.code == "xslt.rule")


@pytest.mark.parametrize("processor", PROCESSORS)
def test_mmax2_to_raf_on_projects_corefio_writes(tmp_path, processor):
    """Names with a slash (written as _ in file names), parts, explicit ids, several documents."""
    need(processor)
    key = corefio.read(ROOT / "samples/key.raf.xml")
    renamed = key.documents[0].copy(name="news/peaks", part="001")
    corpus = Corpus(documents=[renamed, corefio.read(ROOT / "samples/response.raf.xml").documents[0]])
    project = mmax2_project(tmp_path, corpus)
    got = xslt_engine.read(project, "mmax2", processor=processor)
    assert_same(got, corefio.read(project, "mmax2"), f"mmax2-to-raf.xsl ({processor}) on a written project")


@pytest.mark.parametrize("path", MATE_FILES[:1] + [ROOT / "tests/data/mate/gnome_plain.xml"], ids=lambda p: p.name)
def test_raf_to_mate_is_read_back_as_the_same_document(path, tmp_path):
    corpus = corefio.read(path, "mate")
    raf = corefio.dumps(corpus, "raf")
    report = Report()
    data = xslt_engine.from_raf(raf, "mate", report=report)
    back = corefio.loads(data, "mate")
    expected = corefio.loads(corefio.dumps(corpus, "mate"), "mate")
    for a, b in zip(back.documents, expected.documents):
        ca, cb = content(a), content(b)
        # the stylesheet writes no word attribute columns and names every link
        for key in ("forms", "sentences", "markables", "entities", "chains"):
            assert ca[key] == cb[key], key
        assert [x[1:] for x in ca["links"]] == [x[1:] for x in cb["links"]]
    assert any("rule markable-de" in d.message for d in report)


@pytest.mark.parametrize("sample", ["key.raf.xml", "response.raf.xml"])  # response: chains as entity ids
def test_raf_to_mate_gives_the_python_writers_bytes(sample):
    corpus = corefio.read(ROOT / "samples" / sample)
    python = corefio.dumps(corpus, "mate")
    python = python.encode() if isinstance(python, str) else python
    xslt = xslt_engine.from_raf(corefio.dumps(corpus, "raf"), "mate")

    def c14n(data: bytes) -> bytes:
        return etree.tostring(etree.fromstring(data), method="c14n")

    assert c14n(xslt) == c14n(python)


def test_convert_with_the_xslt_engine(tmp_path):
    out = tmp_path / "key.mate.xml"
    report = xslt_engine.convert(ROOT / "samples/mmax2/gum_news_worship", out, "mmax2", "mate")
    assert any(d.code == "xslt.rule" for d in report)
    back = corefio.read(out, "mate")
    python = corefio.read(ROOT / "samples/mmax2/gum_news_worship", "mmax2")
    assert back.documents[0].tokens.forms == python.documents[0].tokens.forms
    assert content(back.documents[0])["chains"] == content(python.documents[0])["chains"]


def test_unknown_stylesheets_and_processors_are_usage_errors(tmp_path):
    with pytest.raises(UsageError):
        xslt_engine.to_raf(ROOT / "samples/key.raf.xml", "conll")
    with pytest.raises(UsageError):
        xslt_engine.to_raf(MATE_FILES[0], "mate", processor="saxon")
    with pytest.raises(UsageError):
        xslt_engine.from_raf(b"<x/>", "conll")


@pytest.mark.parametrize("processor", PROCESSORS)
def test_mmax2_sentence_words_are_taken_in_chunks_of_any_length(tmp_path, processor):
    """Sentences of 1, 15, 16, 17, 32 and 40 words (the stylesheet takes 16 siblings at a
    time), with ids word_1 ... and with explicit ids."""
    need(processor)
    lengths = [1, 15, 16, 17, 32, 40]
    n = sum(lengths)
    bounds = [sum(lengths[:k]) for k in range(len(lengths) + 1)]
    sentences = [Sentence(first=a, last=b - 1) for a, b in zip(bounds, bounds[1:])]
    markables = [Markable(id=f"markable_{k}", spans=((k, k + 2),), entity=str(k % 3)) for k in range(0, n - 3, 7)]
    for ids in (None, [f"w{i}" for i in range(n)]):
        doc = Document(name="chunks", tokens=Tokens(forms=[f"t{i}" for i in range(n)], ids=ids),
                       sentences=sentences, markables=markables)
        project = mmax2_project(tmp_path / str(ids is None), Corpus(documents=[doc]))
        got = xslt_engine.read(project, "mmax2", processor=processor)
        assert_same(got, corefio.read(project, "mmax2"), f"mmax2-to-raf.xsl ({processor}), ids {ids is None}")
        assert [(s.first, s.last) for s in got.documents[0].sentences] == [(s.first, s.last) for s in sentences]
        assert got.documents[0].tokens.forms == doc.tokens.forms


#: word attributes (after id="word_i") of the base data: the stylesheet takes the values by
#: position when every word has the first word's attributes (at most three besides id) and
#: no value needs escaping, and looks them up by name otherwise
WORD_LAYOUTS = {
    "id only": lambda i: "",
    "one column": lambda i: f' pos="P{i % 3}"',
    "three columns": lambda i: f' pos="P{i}" lemma="l{i}" ner="O"',
    "four columns": lambda i: f' a="{i}" b="b" c="c" d="d{i}"',
    "a value with | and \\": lambda i: f' pos="{"a|b" if i == 3 else "c" + chr(92) + "d" if i == 4 else "x"}" ner="O"',
    "an empty value": lambda i: f' pos="{"" if i == 7 else "NN"}"',
    "a missing value": lambda i: "" if i == 7 else ' pos="NN"',
    "another name": lambda i: f' {"lemma" if i == 7 else "pos"}="NN"',
    "columns in another order": lambda i: f' ner="N{i}" pos="P{i}"' if i == 5 else f' pos="P{i}" ner="N{i}"',
}


@pytest.mark.parametrize("processor", PROCESSORS)
@pytest.mark.parametrize("layout", WORD_LAYOUTS, ids=str)
def test_mmax2_word_attribute_layouts(tmp_path, processor, layout):
    """Attribute columns come out the same for every layout of the word attributes (under
    lxml the engine asks for the compact result, which takes the uniform layouts' values
    by position)."""
    need(processor)
    n = 20
    doc = Document(name="layout", tokens=Tokens(forms=[f"t{i}" for i in range(n)]),
                   sentences=[Sentence(first=0, last=4), Sentence(first=5, last=n - 1)],
                   markables=[Markable(id="markable_1", spans=((2, 3),), entity="1"),
                              Markable(id="markable_2", spans=((9, 9),), entity="1")])
    project = mmax2_project(tmp_path, Corpus(documents=[doc]))
    words = next((project / "Basedata").glob("*_words.xml"))
    attributes = WORD_LAYOUTS[layout]
    lines = "".join(f'<word id="word_{i + 1}"{attributes(i)}>t{i}</word>\n' for i in range(n))
    if layout == "another name":  # and one word with its id last
        lines = lines.replace('<word id="word_3" pos="NN">', '<word pos="NN" id="word_3">')
    words.write_text(f'<?xml version="1.0" encoding="UTF-8"?>\n<words>\n{lines}</words>\n')
    expected = corefio.read(project, "mmax2")
    assert expected.documents[0].tokens.attributes or layout == "id only"
    got = xslt_engine.read(project, "mmax2", processor=processor)
    assert_same(got, expected, f"mmax2-to-raf.xsl ({processor}), {layout}")
    if processor == "lxml":  # the compact result is RAF too; word numbers left out where uniform
        mmax = next(project.glob("*.mmax"))
        compact = xslt_engine.to_raf(mmax, "mmax2", params={"compact": "yes"})
        assert_same(corefio.loads(compact, "raf"), expected, f"compact result, {layout}")
        assert (b' n="' in compact) == (layout not in ("id only", "one column", "three columns"))


def test_stylesheets_stay_linear():
    """No counting over preceding words: the patterns that make XSLT quadratic."""
    for sheet in [ROOT / "xslt" / name for name in sorted(set(xslt_engine.TO_RAF.values()) | set(xslt_engine.FROM_RAF.values()))]:
        text = sheet.read_text()
        assert "count(preceding" not in text and "preceding::" not in text, sheet.name


def test_a_stylesheet_error_is_a_located_error(tmp_path):
    bad = tmp_path / "bad.mate.xml"
    bad.write_text('<mate version="1.0"><doc name="d"><de ID="a"><w>x</w></de><ue ID="u"/>'
                   '<link href="#id(a)" type="element"><anchor href="#id(a)"/><anchor href="#id(u)"/></link>'
                   "</doc></mate>")
    with pytest.raises(CorefioError, match="both discourse and universe"):
        xslt_engine.read(bad, "mate")
    if shutil.which("xsltproc"):
        with pytest.raises(CorefioError, match="both discourse and universe"):
            xslt_engine.read(bad, "mate", processor="xsltproc")


def read_tree(tmp_path: Path, files: dict[str, bytes], fmt: str) -> Corpus:
    root = tmp_path / "out"
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return corefio.read(root, fmt)


def same_annotation(got: Document, expected: Document) -> None:
    """Tokens, sentences, markables (spans, layer, sets, attributes), non-identity links
    and chains; entity ids are renumbered by raf-to-mmax2.xsl (chains become sets)."""
    def view(doc: Document) -> tuple:
        return (doc.tokens.forms, doc.tokens.ids, doc.tokens.attributes,
                [(s.first, s.last) for s in doc.sentences],
                sorted((m.layer or "", m.id, m.spans, m.sets, m.attributes) for m in doc.markables),
                sorted((link.type, link.source, link.targets) for link in doc.links if not link.is_identity),
                doc.chain_indices())

    assert view(got) == view(expected)


@pytest.mark.parametrize("source", [ROOT / "samples/key.raf.xml", ROOT / "samples/response.raf.xml",
                                    *MMAX2_PROJECTS], ids=lambda p: p.name)
def test_raf_to_mmax2_project_is_read_back_as_the_same_document(source, tmp_path):
    import corefio.formats.mmax2  # noqa: F401

    corpus = corefio.read(source)
    report = Report()
    files = xslt_engine.from_raf_files(corefio.dumps(corpus, "raf"), "mmax2", report=report)
    assert "common_paths.xml" in files and any(name.endswith(".mmax") for name in files)
    back = read_tree(tmp_path, files, "mmax2")
    assert len(back.documents) == len(corpus.documents)
    for got, expected in zip(back.documents, corpus.documents):
        same_annotation(got, expected)
    assert any("rule markable-level" in d.message for d in report)


def test_convert_to_a_project_with_the_xslt_engine(tmp_path):
    out = tmp_path / "project"
    xslt_engine.convert(MATE_FILES[0], out, "mate", "mmax2")
    back = corefio.read(out, "mmax2").documents[0]
    python = corefio.read(MATE_FILES[0], "mate").documents[0]
    assert back.tokens.forms == python.tokens.forms
    assert back.chain_indices() == python.chain_indices()


def test_long_inputs_do_not_exhaust_template_recursion(tmp_path):
    """A 6,000-word document without sentences (raf-to-mate writes text word by word)
    and a 20,000-word MUC paragraph (muc-to-raf cuts long text before line breaks)."""
    from corefio.model import Link, Markable, Tokens

    n = 6000
    doc = Document(name="long", tokens=Tokens(forms=["w"] * n),
                   markables=[Markable(id=f"m{i}", spans=((i, i + 1),)) for i in range(0, n - 1, 3)],
                   links=[Link(id=f"l{i}", source=f"m{i}", target=f"m{i - 3}") for i in range(3, n - 1, 3)])
    python = corefio.dumps(doc, "mate")
    assert xslt_engine.from_raf(corefio.dumps(doc, "raf"), "mate") == (
        python.encode() if isinstance(python, str) else python)
    words = " ".join(f"word{i}" + (".\n" if i % 10 == 9 else "") for i in range(20000))
    path = tmp_path / "long.sgm"
    path.write_text(f'<DOC>\n<DOCNO> long </DOCNO>\n<TEXT>\n<p>\n<COREF ID="1">Alpha</COREF> {words} '
                    '<COREF ID="2" REF="1">it</COREF>.\n</TEXT>\n</DOC>\n')
    assert_same(xslt_engine.read(path, "muc"), corefio.read(path, "muc"), "muc-to-raf.xsl on a long paragraph")


@pytest.mark.parametrize("fmt", ["mate", "muc"])
def test_raf_to_format_under_xsltproc_gives_the_same_bytes(fmt, tmp_path):
    need("xsltproc")
    source = tmp_path / "key.raf.xml"
    source.write_bytes(corefio.dumps(corefio.read(ROOT / "samples/key.raf.xml"), "raf"))
    plain, messages = xslt_engine.run_xsltproc(xslt_engine.FROM_RAF[fmt], source)
    assert plain == xslt_engine.from_raf(source.read_bytes(), fmt)
    assert any(m.startswith("rule ") for m in messages)


def test_raf_to_mmax2_under_xsltproc_gives_the_same_files(tmp_path):
    need("xsltproc")
    source = tmp_path / "key.raf.xml"
    source.write_bytes(corefio.dumps(corefio.read(ROOT / "samples/key.raf.xml"), "raf"))
    for kind, params in (("common_paths", {}), ("words", {"doc": "1", "stem": "peaks"}),
                         ("level", {"doc": "1", "level": "coref", "stem": "peaks"}), ("scheme", {"level": "coref"})):
        plain, _ = xslt_engine.run_xsltproc("raf-to-mmax2.xsl", source, params={"file": kind, **params})
        with_lxml, _ = xslt_engine.transform("raf-to-mmax2.xsl", source.read_bytes(), params={"file": kind, **params})
        # (MMAX2's namespaces are relative URIs, which canonical XML refuses)
        assert etree.tostring(etree.fromstring(plain)) == etree.tostring(etree.fromstring(with_lxml)), kind


@pytest.mark.parametrize("processor", PROCESSORS)
@pytest.mark.parametrize("explicit_ids", [True, False])
def test_mmax2_to_raf_discontinuous_spans_and_pointer_groups(tmp_path, processor, explicit_ids):
    """Comma spans (merged as the reader merges them), a pointer with two targets,
    sentences, word ids other than word_1…word_n or the default ones."""
    from corefio.model import Link, Markable, Sentence, Tokens

    need(processor)
    ids = [f"x{i}" for i in range(8)] if explicit_ids else None
    doc = Document(name="d", tokens=Tokens(forms=list("abcdefgh"), ids=ids),
                   sentences=[Sentence(first=0, last=3), Sentence(first=4, last=7)],
                   markables=[Markable(id="m1", spans=((0, 1), (3, 3)), entity="1"),
                              Markable(id="m2", spans=((5, 6),), entity="1"), Markable(id="m3", spans=((7, 7),))],
                   links=[Link(id="l", type="bridging", source="m3", targets=("m1", "m2"))])
    project = mmax2_project(tmp_path, Corpus(documents=[doc]))
    assert_same(xslt_engine.read(project, "mmax2", processor=processor), corefio.read(project, "mmax2"),
                f"mmax2-to-raf.xsl ({processor})")


@pytest.mark.parametrize("processor", PROCESSORS)
@pytest.mark.parametrize("explicit_ids", [True, False])
def test_mmax2_levels_without_pointers_attribute_kinds(tmp_path, processor, explicit_ids):
    """Without pointer attributes the stylesheet writes a level's markables straight from
    its file: plain attributes, identity and other sets, names in another case, empty and
    "empty" values, two identity sets, a comma span and spans that name no word."""
    need(processor)
    ids = [f"x{i}" for i in range(8)] if explicit_ids else None
    doc = Document(name="d", tokens=Tokens(forms=list("abcdefgh"), ids=ids),
                   sentences=[Sentence(first=0, last=3), Sentence(first=4, last=7)],
                   markables=[Markable(id="m1", spans=((0, 1),), entity="1")])
    project = mmax2_project(tmp_path, Corpus(documents=[doc]))
    scheme = next((project / "Schemes").glob("coref*"))
    scheme.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<annotationscheme>\n'
                      '<attribute id="a1" name="coref_set" type="markable_set"/>\n'
                      '<attribute id="a2" name="Bridge_Group" type="markable_set"/>\n'
                      '<attribute id="a3" name="ident" type="MARKABLE_SET"/>\n'
                      '<attribute id="a4" name="np_type" type="nominal_list"/>\n</annotationscheme>\n')
    w = (lambda i: f"x{i - 1}") if explicit_ids else (lambda i: f"word_{i}")
    rows = [
        f'id="markable_1" span="{w(1)}..{w(2)}" np_type="pron" coref_set="3" bridge_group="g1"',
        f'id="markable_2" span="{w(3)}" COREF_SET="3" Type="x" ident="9"',
        f'id="markable_3" span="{w(2)}..{w(4)},{w(6)}" coref_set="EMPTY" ident="7" BRIDGE_GROUP=""',
        f'id="markable_4" span="{w(5)}..{w(5)}" coref_set="" ident="empty" mmax_level="coref" other=""',
        f'id="markable_5" span="{w(7)}" ident="4" coref_set="5" Bridge_group="g1"',
        f'id="markable_6" span="{w(8)}..{w(3)}" coref_set="6"',
        'id="markable_7" span="word_99" coref_set="6"',
    ]
    level = next((project / "Markables").glob("*_coref_level.xml"))
    level.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<markables xmlns="www.eml.org/NameSpaces/coref">\n'
                     + "".join(f"<markable {row}/>\n" for row in rows) + "</markables>\n")
    # and a level that is not the identity level (its markables get a layer)
    common = project / "common_paths.xml"
    common.write_text(common.read_text().replace(
        "</annotations>", '<level name="np" schemefile="np_scheme.xml">$_np_level.xml</level>\n</annotations>'))
    (project / "Schemes" / "np_scheme.xml").write_text(
        '<annotationscheme><attribute id="n1" name="group" type="markable_set"/></annotationscheme>')
    (project / "Markables" / level.name.replace("_coref_", "_np_")).write_text(
        f'<markables><markable id="markable_1" span="{w(2)}" group="a" kind="np"/>'
        f'<markable id="markable_2" span="{w(4)}..{w(5)}"/></markables>')
    expected = corefio.read(project, "mmax2")
    assert len(expected.documents[0].markables) == 7
    assert {m.layer for m in expected.documents[0].markables} == {None, "np"}
    assert_same(xslt_engine.read(project, "mmax2", processor=processor), expected, f"mmax2-to-raf.xsl ({processor})")
