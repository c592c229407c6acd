"""CoNLL-2011/2012: grammar, dialects, broken input, canonical writer, losses, round trips."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import corefio
from corefio.diagnostics import Report
from corefio.errors import FormatError, LossError
from corefio.formats import conll
from corefio.model import (
    BRIDGING,
    SPLIT_ANTECEDENT,
    Corpus,
    Document,
    Entity,
    Link,
    Markable,
    Sentence,
    Tokens,
)

from .conftest import DATA
from .reference_reader import reference_read
from .strategies import documents

CANONICAL = """\
#begin document (demo/doc_1); part 000
demo/doc_1\t0\t0\tJohn\tNNP\t*\t-\t-\t-\t-\t*\t(0)
demo/doc_1\t0\t1\tsaw\tVBD\t*\t-\t-\t-\t-\t*\t-
demo/doc_1\t0\t2\this\tPRP$\t*\t-\t-\t-\t-\t*\t(1|(0)
demo/doc_1\t0\t3\tdog\tNN\t*\t-\t-\t-\t-\t*\t1)
demo/doc_1\t0\t4\t.\t.\t*\t-\t-\t-\t-\t*\t-

demo/doc_1\t0\t0\tIt\tPRP\t*\t-\t-\t-\t-\t*\t(1)
demo/doc_1\t0\t1\tbarked\tVBD\t*\t-\t-\t-\t-\t*\t-

#end document
"""


def read(text: str, strict: bool = False, report: Report | None = None) -> Corpus:
    return conll.loads(text, strict=strict, report=report, file="t.conll")


def chains(doc: Document) -> list[list[tuple[int, int]]]:
    return [[m.spans[0] for m in c] for c in doc.chains()]


# -- grammar ---------------------------------------------------------------------------------
def test_canonical_file_reads_and_writes_back_identically():
    corpus = read(CANONICAL)
    doc = corpus.documents[0]
    assert (doc.name, doc.part) == ("demo/doc_1", "000")
    assert chains(doc) == [[(0, 0), (2, 2)], [(2, 3), (5, 5)]]
    assert [(s.first, s.last) for s in doc.sentences] == [(0, 4), (5, 6)]
    assert doc.tokens.attributes["pos"][2] == "PRP$"
    assert conll.dumps(corpus) == CANONICAL


@pytest.mark.parametrize("cell, expected", [
    ("(12)", [("S", "12")]),
    ("(1(3", [("O", "1"), ("O", "3")]),
    ("3)3)1)", [("C", "3"), ("C", "3"), ("C", "1")]),
    ("event-3)person-4)", [("C", "event-3"), ("C", "person-4")]),
    ("(2|(1)", [("O", "2"), ("S", "1")]),
    ("(event-93)event-93)", [("S", "event-93"), ("C", "event-93")]),
    ("(organization-11-Ministry_of_Culture_%28Greece%29", [("O", "organization-11-Ministry_of_Culture_%28Greece%29")]),
    ("12)(5", [("C", "12"), ("O", "5")]),
    ("abc", None),
    ("(1)x", None),
])
def test_bracket_grammar(cell, expected):
    assert conll.split_chunks(cell) == expected


def test_same_label_nests_and_closer_closes_innermost():
    text = "#begin document (d); part 000\nd\t0\t0\ta\t(1(1\nd\t0\t1\tb\t1)\nd\t0\t2\tc\t1)\n#end document\n"
    doc = read(text).documents[0]
    assert sorted(m.spans[0] for m in doc.markables) == [(0, 1), (0, 2)]


def test_entity_order_follows_the_reference_scorer():
    # in one cell the reference meets (N) labels before (N labels
    text = "#begin document (d); part 000\nd\t0\t0\ta\t(7|(3)\nd\t0\t1\tb\t7)\n#end document\n"
    doc = read(text).documents[0]
    assert doc.entity_ids() == ["3", "7"]


# -- dialects --------------------------------------------------------------------------------
DIALECTS = {
    "part 0": ("#begin document (d); part 0\nd\t0\t0\ta\t(1)\n#end document\n", "conll.header"),
    "space, no parentheses": ("# begin document d\n0\ta\t(1)\n# end document\n", "conll.header"),
    "empty name": ("# begin document \n0\ta\t_\n# end document\n", "conll.header"),
    "no | between chunks": ("#begin document (d); part 000\n0\ta\t(event-1(person-2\n1\tb\tperson-2)event-1)\n#end document\n",
                            "conll.label-not-numeric"),
    "5 columns": ("#begin document (d); part 000\nd\t0\t0\ta\t(1)\n#end document\n", "conll.few-columns"),
    "CoNLL-U-like with MWT": ("#begin document (d); part 000\n1-2\tdes\t_\t_\n1\tde\tde\t(1\n2\tles\tle\t1)\n#end document\n",
                              "conll.multiword-lines"),
    "no header": ("d\t0\t0\ta\t(1)\n", "conll.no-header"),
}


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_dialects_read_leniently_with_a_warning_and_strictly_refused(name):
    text, code = DIALECTS[name]
    report = Report()
    corpus = read(text, report=report)
    assert corpus.documents and code in report.codes()
    with pytest.raises(FormatError) as info:
        read(text, strict=True)
    assert "strict" in str(info.value) and info.value.line is not None


def test_empty_values_and_separators_are_remembered():
    gum = "# begin document GUM_x\n0\tGreek\t(event-1(organization-2\n1\tcourt\torganization-2)\n2\trules\t_\n3\tok\tevent-1)\n# end document\n"
    corpus = read(gum)
    doc = corpus.documents[0]
    assert doc.name == "GUM_x" and doc.part is None
    layout = doc.layout["conll"]
    assert isinstance(layout, conll.ConllLayout) and doc.metadata == {}
    assert layout.empty == "_" and layout.separator == "" and layout.begin == "# begin document GUM_x"
    assert conll.dumps(corpus) == gum


def test_space_separated_files_are_read():
    text = "#begin document (d); part 000\nd 0 0 John (0)\nd 0 1 left -\n#end document\n"
    corpus = read(text)
    assert corpus.documents[0].tokens.forms == ["John", "left"]
    assert conll.dumps(corpus) == text
    aligned = "#begin document (d); part 000\nd   0   0   John   (0)\nd   0   1   left     -\n#end document\n"
    doc = read(aligned).documents[0]
    assert doc.tokens.forms == ["John", "left"] and chains(doc) == [[(0, 0)]]


# -- broken input ----------------------------------------------------------------------------
BROKEN = {
    "closer without opener": ("#begin document (d); part 000\nd\t0\t0\ta\t-\nd\t0\t1\tb\t4)\n#end document\n", 3, "no open mention"),
    "opener never closed": ("#begin document (d); part 000\nd\t0\t0\ta\t(4\nd\t0\t1\tb\t-\n#end document\n", 2, "never closed"),
    "document never ends": ("#begin document (d); part 000\nd\t0\t0\ta\t(4)\n", 2, "never ends"),
    "malformed chunk": ("#begin document (d); part 000\nd\t0\t0\ta\t(4)x\n#end document\n", 2, "malformed"),
    "column count": ("#begin document (d); part 000\nd\t0\t0\ta\t-\nd\t0\t1\t-\n#end document\n", 3, "columns"),
    "begin inside a document": ("#begin document (a); part 000\nd\t0\t0\ta\t-\n#begin document (b); part 000\n", 3, "never ended"),
    "end without begin": ("#end document\n", 1, "without"),
    "token outside": ("#begin document (a); part 000\nd\t0\t0\ta\t-\n#end document\nd\t0\t0\tb\t-\n", 4, "outside"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_input_names_file_and_line(name):
    text, line, words = BROKEN[name]
    with pytest.raises(FormatError) as info:
        read(text)
    assert info.value.file == "t.conll" and info.value.line == line, str(info.value)
    assert words in str(info.value)


def test_errors_in_long_documents_get_exact_lines_from_the_fast_path():
    lines = ["#begin document (d); part 000"]
    for i in range(50):
        lines.append(f"d\t0\t{i}\tw\t-")
        if i % 10 == 9:
            lines.append("")
    lines[37] = "d\t0\t33\tw\t9)"
    text = "\n".join(lines) + "\n#end document\n"
    with pytest.raises(FormatError) as info:
        read(text)
    assert info.value.line == 38


def test_duplicate_mentions_are_reported_not_fatal():
    text = "#begin document (d); part 000\nd\t0\t0\ta\t(1)|(1)|(2)\nd\t0\t1\tb\t-\n#end document\n"
    report = Report()
    doc = read(text, report=report).documents[0]
    assert len(doc.markables) == 3
    dup = report.by_code("conll.duplicate-mention")
    assert [d.count for d in dup] == [1, 1]
    assert {d.message for d in dup} == {"duplicate mentions (same span, same entity)",
                                        "duplicate mentions (same span, different entity)"}


# -- canonical writer ------------------------------------------------------------------------
def test_canonical_writer_orders_brackets_and_is_accepted_by_the_reference_reader():
    forms = list("abcdefgh")
    doc = Document(
        name="w", part="003", tokens=Tokens(forms=forms),
        sentences=[Sentence(first=0, last=7)],
        markables=[
            Markable(id="m1", spans=((0, 7),)), Markable(id="m2", spans=((0, 3),)),
            Markable(id="m3", spans=((0, 0),)), Markable(id="m4", spans=((3, 3),)),
            Markable(id="m5", spans=((2, 3),)),
        ],
        links=[Link(id="l", source="m4", target="m3")],
    )
    text = conll.dumps(Corpus(documents=[doc]), canonical=True)
    cells = [line.split("\t")[-1] for line in text.split("\n")[1:9]]
    assert cells == ["(0|(1|(2)", "-", "(3", "(2)|3)|1)", "-", "-", "-", "0)"]
    entities = reference_read(text)["(w); part 003"]
    assert sorted(sorted(e) for e in entities) == sorted(sorted(m.spans[0] for m in c) for c in doc.chains())


def test_canonical_mode_renumbers_non_numeric_labels():
    gum = (DATA / "corpora/gum/coref/gum/conll/GUM_news_worship.conll")
    corpus = corefio.read(gum)
    report = Report()
    text = conll.dumps(corpus, report=report, canonical=True)
    assert "loss.label" in report.codes()
    ref = reference_read(text)
    (entities,) = ref.values()
    ours = corpus.documents[0]
    assert sorted(sorted(e) for e in entities) == sorted(sorted(m.spans[0] for m in c) for c in ours.chains())


def test_what_conll_cannot_express_is_reported_with_counts_and_strict_refuses():
    doc = Document(
        name="x", tokens=Tokens(forms=["a", "b", "c", "d", "e"], whitespace=[" "] * 5),
        sentences=[Sentence(first=0, last=1), Sentence(first=2, last=4)],
        entities=[Entity(id="E", attributes={"etype": "person"})],
        markables=[
            Markable(id="m1", spans=((0, 0), (2, 2)), entity="E"),
            Markable(id="m2", spans=((1, 3),), attributes={"TYPE": "IDENT"}),
            Markable(id="m3", spans=((4, 4),), head=((4, 4),)),
        ],
        links=[Link(id="b1", type=BRIDGING, source="m3", target="m2"),
               Link(id="s1", type=SPLIT_ANTECEDENT, source="m3", target="E", target_kind="entity"),
               Link(id="c1", source="m2", target="m1")],
    )
    report = Report()
    text = corefio.dumps(Corpus(documents=[doc]), "conll", report=report)
    kinds = {d.code: d.count for d in report}
    assert kinds["loss.discontinuous"] == 1
    assert "loss.cross-sentence" not in kinds  # CoNLL keeps m2 (and m1's hull) across the boundary
    assert kinds["loss.link-types"] == 2
    assert kinds["loss.link-structure"] == 1
    assert kinds["loss.markable-attributes"] == 1 and kinds["loss.entity-attributes"] == 1
    assert kinds["loss.heads"] == 1 and kinds["loss.whitespace"] == 5
    # the discontinuous mention is written over its whole extent; with m2, of its entity,
    # it crosses: nested brackets (0-3 and 1-2) that cross the sentence boundary, read back
    assert reference_read(text)
    assert sorted(m.spans for m in corefio.loads(text, "conll").documents[0].markables) == \
        [((0, 3),), ((1, 2),), ((4, 4),)]
    with pytest.raises(LossError, match="lose information"):
        corefio.dumps(Corpus(documents=[doc]), "conll", strict=True)


def test_documents_from_other_formats_get_twelve_columns():
    corpus = corefio.read(Path(__file__).parents[1] / "samples" / "key.raf.xml")
    text = conll.dumps(corpus)
    first = text.split("\n")[1].split("\t")
    assert len(first) == 12 and first[:4] == ["peaks", "0", "0", "The"]


def test_golden_canonical_file():
    golden = DATA / "golden" / "sample.conll"
    corpus = corefio.read(Path(__file__).parents[1] / "samples" / "response.raf.xml")
    assert conll.dumps(corpus) == golden.read_text(encoding="utf-8")
    # and a canonical file reads and writes back byte for byte
    assert conll.dumps(corefio.read(golden)) == golden.read_text(encoding="utf-8")


# -- real files --------------------------------------------------------------------------------
REAL = sorted((DATA / "corpora").rglob("*.conll")) + sorted(p for p in (DATA / "scorer-testcases" / "DataFiles").glob("*")
                                                     if p.is_file())


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_files_round_trip_byte_for_byte(path):
    corpus = corefio.read(path, "conll")
    assert conll.dumps(corpus) == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_fast_and_line_by_line_readers_agree(path, monkeypatch):
    fast = corefio.read(path, "conll")
    monkeypatch.setattr(conll._Reader, "fast_block", lambda self, p, block: False)
    slow = corefio.read(path, "conll")
    assert fast == slow


@pytest.mark.parametrize("path", REAL[:6], ids=lambda p: p.name)
def test_streaming_gives_the_same_documents(path):
    assert list(corefio.iter_read(path, "conll")) == corefio.read(path, "conll").documents




@pytest.mark.parametrize("pos", [False, True])
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_mention_views_are_the_documents_views(path, pos):
    """Scoring's fast path gives what Document.mention_view gives: labels, forms, POS,
    chains, and every mention's id, in the same order."""
    spec = corefio.get_format("conll")
    views = list(spec.mention_views(path, report=Report(), pos=pos))
    documents = corefio.read(path, "conll").documents
    assert len(views) == len(documents)
    for view, doc in zip(views, documents):
        expected = doc.mention_view(pos=pos)
        assert (view.label, view.forms, view.pos) == (expected.label, expected.forms, expected.pos)
        assert view.mentions == expected.mentions


def test_mention_views_of_selected_documents_and_byte_ranges():
    text = "".join(f"#begin document (d{k}); part 000\nd{k}\t0\t0\tw\tNN\t*\t-\t-\t-\t-\t*\t(1)\n\n#end document\n"
                   for k in range(4))
    data = ("\ufeff" + text).encode("utf-8")
    source = corefio.Source.of(data)
    spec = corefio.get_format("conll")
    keys = spec.scan_keys(source)
    assert [(name, part) for name, part, _, _ in keys] == [(f"d{k}", "000") for k in range(4)]
    assert keys[0][2] == 3 and [line for *_, line in keys] == [1, 5, 9, 13]
    picked = list(spec.mention_views(source, report=Report(), select={1, 2},
                                     byte_range=(keys[1][2], keys[3][2], 1, keys[1][3])))
    assert [v.label for v in picked] == ["d1 (part 000)", "d2 (part 000)"]
    assert [v.mentions for v in picked] == [d.mention_view().mentions for d in corefio.loads(text, "conll")][1:3]


def test_reference_reader_agrees_with_corefio_on_the_test_cases():
    for path in (DATA / "scorer-testcases" / "DataFiles").glob("TC-[B-N]*"):
        ours = corefio.read(path, "conll").documents[0]
        (entities,) = reference_read(path.read_text()).values()
        assert sorted(sorted(e) for e in entities) == sorted(sorted(m.spans[0] for m in c) for c in ours.chains()), path.name


# -- property tests --------------------------------------------------------------------------
FORM = st.text(alphabet=st.characters(whitelist_categories=("L", "N", "P", "S")), min_size=1, max_size=6)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(forms=FORM, with_links=False, with_attributes=False))
def test_random_documents_keep_their_mentions_and_chains(doc):
    contiguous = [m for m in doc.markables if len(m.spans) == 1]
    doc = doc.copy(**{"markables": contiguous, "links": [], "entities": [],
                                 "metadata": {}, "tokens": Tokens(forms=doc.tokens.forms)})
    for canonical in (False, True):
        report = Report()
        text = corefio.dumps(Corpus(documents=[doc]), "conll", canonical=canonical, report=report)
        back = conll.loads(text).documents[0]
        assert back.tokens.forms == doc.tokens.forms
        assert conll.dumps(conll.loads(text)) == text
        if "loss.same-entity-overlap" in report.codes():
            continue  # inexpressible in brackets, and reported
        assert sorted(sorted(m.spans for m in c) for c in back.chains()) == \
            sorted(sorted(m.spans for m in c) for c in doc.chains())
        # and the reference scorer reads the same chains
        (entities,) = reference_read(text).values() if canonical else ([],)
        if canonical:
            assert sorted(sorted(e) for e in entities) == sorted(sorted(m.spans[0] for m in c) for c in doc.chains())


def test_same_entity_crossing_mentions_are_reported():
    doc = Document(name="x", tokens=Tokens(forms=list("abcd")),
                   markables=[Markable(id="a", spans=((0, 2),), entity="1"), Markable(id="b", spans=((1, 3),), entity="1")],
                   )
    report = Report()
    corefio.dumps(Corpus(documents=[doc]), "conll", report=report)
    assert [d.count for d in report.by_code("loss.same-entity-overlap")] == [1]


SCAN_CASES = {
    "CR-only line ends": b"#begin document (A); part 0\r#end document",
    "CRLF and a blank line after": b"#begin document\r\n#end document\r\n\r\n",
    "end without begin": b"#end document\n",
    "end first": b"#end document\n#begin document (a); part 000\na\t(1)\n#end document\n",
    "never ends": b"#begin document (a); part 000\na\t(1)\n\n",
    "begin inside": b"#begin document (a); part 000\n#begin document (b); part 000\n#end document\n",
    "token after the end": b"#begin document (a); part 000\na\t(1)\n#end document\nb\t-\n",
    "comments around": b"# x\n\n#begin document (a); part 000\na\t(1)\n#end document\n# y\n",
    "headerless": b"a\t(1)\nb\t-\n",
    "comments only": b"# nothing\n",
}


@pytest.mark.parametrize("name", sorted(SCAN_CASES))
def test_scan_keys_and_read_agree(name):
    """Scoring pairs documents by scan_keys: it must see the documents read() sees, and
    refuse what read() refuses, at the same line."""
    data = SCAN_CASES[name]
    source = corefio.Source.of(data, "t.conll")
    spec = corefio.get_format("conll")
    try:
        documents = corefio.read(source, "conll").documents
    except FormatError as error:
        with pytest.raises(FormatError) as info:
            spec.scan_keys(source)
        assert info.value.line == error.line and info.value.message == error.message
        return
    keys = spec.scan_keys(source)
    assert [(n, p) for n, p, _, _ in keys] == [(d.name, d.part) for d in documents]
    views = list(spec.mention_views(source, report=Report()))
    assert [v.label for v in views] == [d.label for d in documents]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_streaming_over_many_pieces_gives_what_read_gives(newline):
    """The streaming reader reads 1 MiB at a time and cuts after '#end document' lines:
    documents, the lines between them and the line ends survive the cuts."""
    one = ("#begin document (d{k}); part 000\n" + "".join(
        f"d{{k}}\t0\t{i}\tword{i}\tNN\t*\t-\t-\t-\t-\t*\t{'(1)' if i % 3 == 0 else '-'}\n" for i in range(60))
        + "\n#end document\n# between\n\n")
    text = "".join(one.format(k=k) for k in range(1200)).replace("\n", newline)
    assert len(text) > 2 << 20
    source = corefio.Source.of(text.encode("utf-8"), "big.conll")
    read_whole = corefio.read(source, "conll").documents
    streamed = list(corefio.iter_read(source, "conll"))
    assert len(streamed) == 1200 and streamed == read_whole
    assert streamed[0].layout["conll"].after == ["# between", ""]
    assert corefio.dumps(corefio.model.Corpus(documents=streamed), "conll") == text


# -- fuzzer regressions: mixed line ends before the first header -----------------------------------
@pytest.mark.parametrize("name", ["conll-score-score-self-07be3b89.conll", "conll-score-score-seed-a80b5c4f.conll"])
def test_fuzz_mixed_line_ends_before_a_header_are_refused_by_read_scan_and_score(name):
    """``b'\\r\\n#begin document\\n#end document'``: read() refuses the mixed line ends, but
    scoring from paths (scan_keys, then mention_views from the header's byte offset on)
    never saw the CRLF before the header and gave numbers."""
    path = DATA / "regressions" / "fuzz" / name
    with pytest.raises(FormatError, match="line ends mix") as from_read:
        corefio.read(path, "conll")
    assert from_read.value.line == 2 and name in str(from_read.value.file)
    with pytest.raises(FormatError) as from_scan:
        conll.scan_keys(path)
    assert str(from_scan.value) == str(from_read.value)
    with pytest.raises(FormatError) as from_score:
        corefio.score(path, path, ["muc"])
    assert str(from_score.value) == str(from_read.value)
    with pytest.raises(FormatError, match="line ends mix"):
        list(corefio.iter_read(path, "conll"))


@pytest.mark.parametrize("data", [
    b"\r\n#begin document (a); part 000\na\t(1)\n#end document\n",
    b"#begin document (a); part 000\na\t(1)\n#end document\n\r\n",
    b"#begin document (a); part 000\r\na\t(1)\r\n#end document\r\n#begin document (b); part 000\na\t(1)\n"
    b"#end document\n",
    b"#begin document (a); part 000\r\na\t(1)\r\n#end document\r\n#begin document (b); part 000\r\na\r\t(1)\r\n"
    b"#end document\r\n",
])
def test_scan_keys_refuses_mixed_line_ends_like_read(data, tmp_path):
    path = tmp_path / "mixed.conll"
    path.write_bytes(data)
    with pytest.raises(FormatError, match="line ends mix") as from_read:
        corefio.read(path, "conll")
    with pytest.raises(FormatError) as from_scan:
        conll.scan_keys(path)
    assert str(from_scan.value) == str(from_read.value)


# -- scan_keys reads in pieces (issue 7: memory that does not grow with the file) ----------------
_SCAN_PIECES = [
    *SCAN_CASES.values(),
    b"\xef\xbb\xbf# x\n#begin document (a); part 000\na\t(1)\n#end document\n# y\n",
    b"#begin document (a); part 000\r\na\t(1)\r\n\r\n#end document\r\n#begin document (b); part 001\r\n"
    b"b\t-\r\n#end document\r\n",
    b"#begin document (a); part 000\ra\t(1)\r#end document\r#begin document (b); part 000\rb\t-\r#end document\r\r",
    b"#begin document (a); part 000\r\na\t(1)\r\n#end document\r\nb\t-\r\n#begin document\n",
    b"#begin document (a); part 000\na\t(1)\n#end document\n#begin document (b); part \xc2\xb2\n#end document\n",
    b"#begin document (a); part 000\na\t(1)\n#end document\n#begin documentX (b); part 000\n#end document\n",
    b"#begin document (a); part 000\na\t(1)\n#end document\n\xff\n",
    b"#begin document (a); part 000\na\t(1)\n#end document\n\n\n\n",
    b"#begin document (a); part 000\na\t(1)\n\n\n",
]


@pytest.mark.parametrize("block", [1, 2, 5, 16])
@pytest.mark.parametrize("data", _SCAN_PIECES, ids=range(len(_SCAN_PIECES)))
def test_scan_keys_gives_the_same_whatever_the_pieces(data, block, monkeypatch):
    """scan_keys reads a piece at a time; pieces cut anywhere (inside a CRLF, a header,
    the lines before the first header or after the last end line) change nothing: the
    same documents and offsets, or the same error at the same line."""
    source = corefio.Source.of(data, "t.conll")

    def scan():
        try:
            return conll.scan_keys(source)
        except FormatError as error:
            return str(error), error.line

    whole = scan()
    monkeypatch.setattr(conll, "_SCAN_BLOCK", block)
    assert scan() == whole


def test_scan_keys_streams(tmp_path, monkeypatch):
    """A large file is not read whole (the whole text is read only to place a refusal of
    mixed line ends); the byte offsets are those of the headers."""
    one = "#begin document (d{k}); part 000\n" + "d\t0\t0\tw\t(1)\n" * 50 + "\n#end document\n"
    path = tmp_path / "big.conll"
    path.write_text("".join(one.format(k=k) for k in range(3000)))
    monkeypatch.setattr(corefio.Source, "read_bytes", lambda self: pytest.fail("read whole"))
    monkeypatch.setattr(conll, "_SCAN_BLOCK", 1 << 16)
    keys = conll.scan_keys(path)
    data = path.read_bytes()
    assert len(keys) == 3000 and len(data) > 3 * conll._SCAN_BLOCK
    assert all(data[offset:].startswith(f"#begin document (d{k})".encode()) for k, (_, _, offset, _) in enumerate(keys))
    assert keys[-1][3] == 1 + 2999 * 53


# -- issue #25: empty and cut inputs are input errors -------------------------------------------
EMPTY_CONLL = {
    "empty": ("", 1, "the file is empty"),
    "blank lines": ("\n \n", 2, "no document"),
    "comments only": ("# a comment\n# another\n", 2, "no document"),
    "cut inside a document": ("#begin document (d); part 000\nd\t0\t0\tJohn\t(1)\nd\t0\t1\tleft\t-\n",
                              3, "never ends"),
}


@pytest.mark.parametrize("name", sorted(EMPTY_CONLL))
def test_empty_and_cut_conll_is_an_input_error(name, cli, tmp_path):
    text, line, words = EMPTY_CONLL[name]
    src = tmp_path / "in.conll"
    src.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError, match=words) as info:
        corefio.read(src)
    assert info.value.line == line
    with pytest.raises(FormatError, match=words):
        corefio.get_format("conll").scan_keys(src)  # scoring's first look refuses it too
    located = f"in.conll:{line}:"
    for command, code in (("info", 3), ("validate", 4), ("convert", 3)):
        args = [command, src] + ([tmp_path / "out.conllu"] if command == "convert" else [])
        result = cli(*args)
        assert result.exit_code == code, (command, result.output)
        assert located in result.output and words in result.output
    assert not (tmp_path / "out.conllu").exists()
