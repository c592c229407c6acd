"""MUC-6/7 coreference SGML: reading every construct, byte-identical round trips, the
writer's golden file, every malformation (lenient repairs, strict refusals, with
file:line:column), conversions to the other formats and back, and scoring."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

import corefio
import corefio.formats.muc  # noqa: F401  (registers the format until formats/__init__ imports it)
from corefio.io import repair
from corefio.diagnostics import Report
from corefio.errors import FormatError
from corefio.formats import muc
from corefio.model import Corpus, Document, Link, Markable, Sentence, Tokens
from corefio.formats.registry import all_formats, detect_format, get_format
from corefio.io.source import Source

from .conftest import DATA, SAMPLES, campaign

MUC = SAMPLES / "muc"
HERE = DATA / "muc"
SAMPLE_FILES = sorted(MUC.glob("*.sgm"))


def read(data: str | bytes, strict: bool = False, **options):
    report = Report("t.sgm")
    source = Source.of(data.encode("utf-8") if isinstance(data, str) else data, "t.sgm")
    return muc.read(source, report=report, strict=strict, **options), report


def write(corpus: Corpus, report: Report | None = None, **options) -> str:
    return "".join(muc.write(corpus.documents, corpus=corpus, report=report or Report(), **options))


def forms(doc: Document, m: Markable) -> str:
    return " ".join(doc.tokens.forms[m.first:m.last + 1])


def chains(corpus: Corpus) -> list:
    return sorted(sorted(m.spans for m in chain) for d in corpus.documents for chain in d.chains())


def wrap(body: str, name: str = "t-1") -> str:
    return f"<DOC>\n<DOCID> {name} </DOCID>\n<TEXT>\n<p>\n{body}\n</TEXT>\n</DOC>\n"


# -- round trips -------------------------------------------------------------------------------
@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.name)
def test_samples_are_read_without_findings_and_written_byte_identical(path):
    report = Report()
    corpus = corefio.read(path, report=report)
    assert [d for d in report if d.severity != "info"] == []
    assert corefio.dumps(corpus, "muc") == path.read_text(encoding="utf-8")


def test_format_is_registered_and_detected(tmp_path):
    spec = get_format("muc")
    assert spec.capabilities.min and spec.capabilities.optional and spec.capabilities.link_structure
    assert not spec.capabilities.crossing and not spec.capabilities.discontinuous
    assert detect_format(MUC / "muc7.key.sgm").name == "muc"
    copy = tmp_path / "key.xml"
    copy.write_bytes((MUC / "muc6.key.sgm").read_bytes())
    assert detect_format(copy).name == "muc"
    assert muc.sniff(b"<DOC>\n<DOCNO> x </DOCNO>") and not muc.sniff(b"<raf><doc>")


# -- what the reader builds ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def muc7():
    return corefio.read(MUC / "muc7.key.sgm")


def test_documents_names_text_and_regions(muc7):
    first, second = muc7.documents
    assert (first.name, second.name) == ("corefio-muc7-001", "corefio-muc7-002")
    assert first.text.startswith("<DOC>\n<DOCID> corefio-muc7-001 </DOCID>") and "<COREF" not in first.text
    assert first.text.endswith("</DOC>\n")
    types = [r.type for r in first.regions]
    assert types == ["DOC", "DOCID", "STORYID", "SLUG", "DATE", "NWORDS", "PREAMBLE", "TEXT", "p", "p", "p",
                     "TRAILER"]
    story = next(r for r in first.regions if r.type == "STORYID")
    assert story.attributes == {"cat": "w", "pri": "u"}
    assert first.text[story.start:story.end] == "<STORYID cat=w pri=u> A1234 </STORYID>"
    paragraph = [r for r in first.regions if r.type == "p"][0]
    assert first.text[paragraph.start:paragraph.end].startswith("<p>\nThe old ferry boat")
    assert first.text[paragraph.start:paragraph.end].endswith("winter.\n")  # the omitted </p> ends at <p>


def test_tokens_point_into_the_text(muc7):
    doc = muc7.documents[0]
    for form, (a, b) in zip(doc.tokens.forms, doc.tokens.offsets):
        assert repair.decode_entities(doc.text[a:b]) == form
    assert "corefio-muc7-001" not in doc.tokens.forms  # identifiers are not words
    assert doc.tokens.forms[:3] == ["BC-", "FERRY", "-LAKE"]  # the COREF in the SLUG cuts the word
    assert "&MD;" in doc.tokens.forms and "AT&AMP;T" in doc.tokens.forms
    assert ["the", "lake", "'s"] == doc.tokens.forms[54:57]


def test_sentences_follow_sections(muc7):
    doc = muc7.documents[0]
    texts = [" ".join(doc.tokens.forms[s.first:s.last + 1]) for s in doc.sentences]
    assert texts[0] == "BC- FERRY -LAKE"
    assert texts[4].startswith("The old ferry boat") and texts[4].endswith("winter .")


def test_markables_min_optional_and_links(muc7):
    doc = muc7.documents[0]
    by_id = {m.id: m for m in doc.markables}
    five = by_id["5"]
    assert forms(doc, five) == "The old ferry boat of Lake Orla"
    assert [" ".join(doc.tokens.forms[a:b + 1]) for a, b in five.min] == ["boat", "ferry boat"]
    assert forms(doc, by_id["6"]) == "Lake Orla"  # nested in 5
    assert by_id["7"].optional and not five.optional
    assert by_id["11"].min == by_id["11"].spans  # MIN with an entity reference
    links = {(link.source, link.targets) for link in doc.links}
    assert ("8", ("9",)) in links  # REF to a COREF that starts later
    assert all(link.type == "coreference" for link in doc.links)
    groups = sorted(sorted(m.id for m in chain) for chain in doc.chains())
    assert ["13", "14", "8", "9"] in groups and ["10", "2", "5"] in groups


def test_muc6_layout_stat_and_min_across_lines():
    corpus = corefio.read(MUC / "muc6.key.sgm")
    doc = corpus.documents[0]
    assert doc.name == "corefio-muc6-001"
    by_id = {m.id: m for m in doc.markables}
    assert by_id["4"].optional  # STAT="OPT"
    assert by_id["8"].min == by_id["8"].spans  # MIN="Tom\nHale"
    assert [doc.tokens.forms[a] for a, _ in by_id["7"].min] == ["Ms.", "Delgado"]
    assert [r.type for r in doc.regions][:3] == ["DOC", "DOCNO", "HL"]
    assert {r.type for r in doc.regions} >= {"TXT", "p", "s"}
    assert [" ".join(doc.tokens.forms[s.first:s.last + 1]) for s in doc.sentences][-1].startswith("The company")


@pytest.mark.parametrize("text, expected", [
    ("A (big) dog, Mr. Li said. Yes", ["A", "(", "big", ")", "dog", ",", "Mr.", "Li", "said.", "Yes"]),
    ("Inc. named U.S. officers.\nNext", ["Inc.", "named", "U.S.", "officers", ".", "Next"]),
    ("``Wait,'' Ann's", ["``", "Wait", ",", "''", "Ann", "'s"]),
    ("x &MD; y&QL; ...", ["x", "&MD;", "y&QL;", "..."]),
    ("R &amp; D", ["R", "&", "D"]),
])
def test_tokenizer(text, expected):
    doc = read(wrap(text))[0].documents[0]
    assert doc.tokens.forms == expected


def test_tokenizer_by_spaces_option():
    doc = read(wrap("A (big) dog, he."), tokens="spaces")[0].documents[0]
    assert doc.tokens.forms == ["A", "(big)", "dog,", "he."]
    with pytest.raises(corefio.errors.UsageError):
        corefio.loads(wrap("x"), "muc", tokens="letters")


def test_coref_boundary_inside_a_word_cuts_it():
    doc = read(wrap('<COREF ID="1">Michigan</COREF>\'s <COREF ID="2">pro</COREF>gram'))[0].documents[0]
    assert doc.tokens.forms == ["Michigan", "'s", "pro", "gram"]
    assert [m.spans for m in doc.markables] == [((0, 0),), ((2, 2),)]


def test_key_and_response_get_the_same_tokens():
    for name in ("muc6", "muc7"):
        key = corefio.read(MUC / f"{name}.key.sgm")
        response = corefio.read(MUC / f"{name}.response.sgm")
        assert [d.tokens.forms for d in key.documents] == [d.tokens.forms for d in response.documents]


def test_stream_gives_the_same_documents():
    report = Report()
    streamed = list(muc.stream(Source.of(MUC / "muc7.key.sgm"), report=report, strict=False))
    assert [d.name for d in streamed] == ["corefio-muc7-001", "corefio-muc7-002"]
    assert [d.name for d in corefio.iter_read(MUC / "muc7.key.sgm")] == [d.name for d in streamed]


# -- malformed input: lenient repairs, strict refusals ---------------------------------------
MALFORMED = [
    ('<COREF ID="1">a</COREF> b</COREF>', "stray-end-tag", (5, 26)),
    ('<COREF ID="1">a <COREF ID="2">b</COREF>', "unclosed-coref", (5, 1)),
    ('<COREF ID="1">a</COREF> <COREF ID="1">b</COREF>', "duplicate-id", (5, 25)),
    ('<COREF ID="1" REF="9">a</COREF>', "dangling-ref", (5, 1)),
    ('<COREF ID="1" REF="1">a</COREF>', "self-ref", (5, 1)),
    ('<COREF ID="1" MIN="zebra">a horse</COREF>', "min-not-found", (5, 1)),
    ('<COREF ID="1"></COREF> a', "empty-coref", (5, 1)),
    ('<COREF MIN="a">a</COREF>', "missing-id", (5, 1)),
]


@pytest.mark.parametrize("body, code, where", MALFORMED, ids=[m[1] for m in MALFORMED])
def test_malformation_is_repaired_and_located(body, code, where):
    corpus, report = read(wrap(body))
    found = report.by_code(f"muc.{code}")
    assert found and (found[0].line, found[0].column) == where
    assert found[0].file == "t.sgm" and found[0].document == "t-1"
    again, second = read(write(corpus))  # the repaired output reads without findings
    kept = [f"muc.{code}"] if code == "min-not-found" else []  # a MIN is kept as written
    assert [d.code for d in second if d.severity != "info"] == kept
    assert chains(again) == chains(corpus)


@pytest.mark.parametrize("body, code, where", MALFORMED, ids=[m[1] for m in MALFORMED])
def test_malformation_is_refused_in_strict_mode(body, code, where):
    with pytest.raises(FormatError) as info:
        read(wrap(body), strict=True)
    assert (info.value.line, info.value.column) == where and info.value.file == "t.sgm"


def test_malformed_file_repairs():
    path = HERE / "malformed.sgm"
    report = Report()
    corpus = corefio.read(path, report=report)
    codes = [d.code for d in report]
    assert codes == ["muc.stray-end-tag", "muc.unclosed-coref", "muc.duplicate-id", "muc.min-not-found",
                     "muc.dangling-ref", "muc.self-ref"]
    first, second = corpus.documents
    assert [m.id for m in first.markables] == ["1", "2", "3", "2~2", "4", "5", "6", "7"]
    assert {(link.source, link.targets) for link in first.links} == {("3", ("1",)), ("2~2", ("1",))}
    assert second.name == "corefio-bad-002" and second.text.endswith("</DOC>\n")
    assert corefio.dumps(corpus, "muc") == (HERE / "malformed.repaired.sgm").read_text()


@pytest.mark.parametrize("cut", [40, 200, 420, 600, 900])
def test_a_file_cut_inside_a_doc_is_refused(tmp_path, cut, cli):
    """A file that ends inside a DOC was cut short: closing what is open would read
    fewer annotations than the file had, so every command refuses it (lenient too)."""
    source = (Path(__file__).parent.parent / "samples" / "muc" / "muc6.key.sgm").read_bytes()
    path = tmp_path / "cut.sgm"
    path.write_bytes(source[:cut])
    with pytest.raises(FormatError, match="cut short") as info:
        corefio.read(path)
    assert info.value.file == str(path) and info.value.line is not None
    assert cli("info", path).exit_code == 3
    assert cli("validate", path).exit_code == 4
    assert cli("convert", path, tmp_path / "out.conll").exit_code == 3
    assert not (tmp_path / "out.conll").exists()


def test_unclosed_doc_and_missing_doc():
    corpus, report = read("<DOC><DOCNO> a </DOCNO> x\n<DOC><DOCNO> b </DOCNO> y</DOC>\n")
    assert [d.name for d in corpus.documents] == ["a", "b"]
    assert report.by_code("muc.unclosed-doc")[0].line == 1
    corpus, report = read('just <COREF ID="1">text</COREF>\n')
    assert report.by_code("muc.no-doc") and corpus.documents[0].markables[0].id == "1"
    assert write(corpus) == 'just <COREF ID="1">text</COREF>\n'


def test_legacy_encoding_is_decoded_and_reported():
    data = wrap('<COREF ID="1">Zoë</COREF>').encode("cp1252")
    corpus, report = read(data)
    assert corpus.documents[0].tokens.forms == ["Zoë"]
    assert report.by_code("muc.encoding")[0].line == 5


def test_byte_order_mark_is_dropped_quietly_and_crlf_kept():
    text = wrap('<COREF ID="1">a</COREF> b.').replace("\n", "\r\n")
    corpus, report = read(b"\xef\xbb\xbf" + text.encode())
    assert [d.severity for d in report] == ["info"]
    assert write(corpus) == text
    with pytest.raises(FormatError):
        read(wrap("x").encode("cp1252") + b"\xe9", strict=True)


def test_repaired_xml_reads_as_the_muc_it_came_from():
    original = (MUC / "muc7.key.sgm").read_bytes()
    fixed, _ = repair.repair_bytes(original)
    corpus, report = read(fixed)
    assert report.by_code("muc.repaired-xml")
    assert chains(corpus) == chains(read(original)[0])
    assert repair.character_data(write(corpus)) == repair.character_data(original.decode())


# -- the writer -----------------------------------------------------------------------------------
def generated_document() -> Document:
    return Document(
        name="gen/doc", part="003",
        tokens=Tokens(forms=["AT&T", "said", "it", "<b>", "would", "go", "&MD;", "home"]),
        sentences=[Sentence(first=0, last=3), Sentence(first=4, last=7)],
        markables=[
            Markable(id="m1", spans=((0, 0),), entity="e1", head=((0, 0),)),
            Markable(id="m2", spans=((2, 3),), entity="e1", optional=True),
            Markable(id="m3", spans=((4, 5),), min=((5, 5), (4, 5))),
            Markable(id="m4", spans=((5, 6),)),  # crosses m3: left out
            Markable(id="m5", spans=((7, 7),), entity="e1"),
        ],
    )


def test_writer_golden_file():
    report = Report()
    out = corefio.dumps(generated_document(), "muc", report=report, min_from_head=True)
    assert out == (HERE / "generated.sgm").read_text()
    assert report.by_code("loss.crossing")


def test_generated_file_reads_back():
    doc = generated_document()
    back = read((HERE / "generated.sgm").read_bytes())[0].documents[0]
    assert (back.name, back.part) == ("gen/doc", "003")
    assert back.text is None and back.tokens.offsets is None  # it had none: made from the tokens
    assert back.tokens.forms == doc.tokens.forms
    assert [(s.first, s.last) for s in back.sentences] == [(0, 3), (4, 7)]
    assert [(m.id, m.spans, m.min, m.optional) for m in back.markables] == [
        ("m1", ((0, 0),), ((0, 0),), False), ("m2", ((2, 3),), None, True),
        ("m3", ((4, 5),), ((5, 5), (4, 5)), False), ("m5", ((7, 7),), None, False)]
    assert sorted(sorted(m.id for m in c) for c in back.chains()) == [["m1", "m2", "m5"], ["m3"]]


def test_writer_min_from_head_option():
    assert '<COREF ID="m1">' in corefio.dumps(generated_document(), "muc")
    assert '<COREF ID="m1" MIN="AT&amp;T">' in corefio.dumps(generated_document(), "muc", min_from_head=True)


def test_writer_reports_a_text_that_is_not_muc():
    doc = Document(name="d", text="A b", tokens=Tokens(forms=["A", "b"], offsets=[(0, 1), (2, 3)]))
    report = Report()
    out = corefio.dumps(doc, "muc", report=report)
    assert report.by_code("loss.text") and "<s>A b</s>" in out


def test_writer_keeps_link_structure():
    doc = Document(name="d", tokens=Tokens(forms=list("abcd")),
                   markables=[Markable(id=str(i), spans=((i, i),)) for i in range(4)],
                   links=[Link(id="l1", source="0", target="3"), Link(id="l2", source="1", target="3"),
                          Link(id="l3", source="2", target="1")])
    back = read(write(Corpus(documents=[doc])))[0].documents[0]
    assert {(link.source, link.targets) for link in back.links} == {("0", ("3",)), ("1", ("3",)), ("2", ("1",))}


def test_writer_links_each_mention_to_the_previous_when_needed():
    doc = Document(name="d", tokens=Tokens(forms=list("abcd")),
                   markables=[Markable(id=str(i), spans=((i, i),)) for i in range(4)],
                   links=[Link(id="l1", source="0", targets=("2", "3")), Link(id="l2", source="1", target="2")])
    back = read(write(Corpus(documents=[doc]), Report()))[0].documents[0]
    assert {(link.source, link.targets) for link in back.links} == {("1", ("0",)), ("2", ("1",)), ("3", ("2",))}


def test_edited_markables_get_new_tags_and_the_rest_stay():
    corpus = corefio.read(MUC / "muc6.key.sgm")
    doc = corpus.documents[0]
    editor = doc.edit()
    editor.update_markable("11", optional=True)
    editor.remove_markables({"6"})
    edited = editor.commit()
    out = write(Corpus(documents=[edited]))
    original = (MUC / "muc6.key.sgm").read_text()
    assert '<COREF ID="11" MIN="board" STATUS="OPT">its board</COREF>' in out
    assert "a textile mill</COREF>," in out and '<COREF ID="6"' not in out
    assert out.replace(' STATUS="OPT">its', ">its").replace("a textile mill", '<COREF ID="6" MIN="mill">a textile '
                                                                              "mill</COREF>") == original


def test_muc_text_without_layout_is_still_written_from_the_text():
    doc = corefio.read(MUC / "muc6.key.sgm").documents[0]
    bare = doc.copy(**{"layout": {}})
    back = read(write(Corpus(documents=[bare])))[0].documents[0]
    assert back.text == doc.text and chains(Corpus(documents=[back])) == chains(Corpus(documents=[doc]))


# -- conversions and scoring -------------------------------------------------------------------------
#: every other format corefio reads and writes (a format registered later joins in)
OTHERS = [spec.name for spec in all_formats() if spec.can_read and spec.can_write and spec.name != "muc"]


def through(corpus: Corpus, fmt: str) -> Corpus:
    """Write ``corpus`` in ``fmt`` and read it back (through a directory for projects)."""
    if not get_format(fmt).directory:
        return corefio.loads(corefio.dumps(corpus, fmt), fmt)
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in corefio.dump_files(corpus, fmt).items():
            path = Path(tmp, name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        return corefio.read(tmp, fmt)


#: writers that hold one document per file and no document name (WebAnno TSV: a file is
#: named after itself, "document" when read from memory): tested apart, below
ONE_DOCUMENT = {"webanno-tsv"}


@pytest.mark.parametrize("fmt", [f for f in OTHERS if f not in ONE_DOCUMENT])
@pytest.mark.parametrize("name", ["muc7.key.sgm", "muc6.key.sgm"])
def test_muc_to_other_format_and_back(fmt, name):
    assert {"conll", "conllu", "jsonlines", "raf"} <= set(OTHERS)
    source = MUC / name
    original = corefio.read(source)
    back_data = corefio.dumps(through(original, fmt), "muc")
    back = corefio.loads(back_data, "muc")
    assert chains(back) == chains(original)
    assert [d.tokens.forms for d in back.documents] == [d.tokens.forms for d in original.documents]
    assert [d.name for d in back.documents] == [d.name for d in original.documents]
    if fmt == "raf":  # RAF keeps everything, the MUC layout included
        assert back_data == source.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", sorted(ONE_DOCUMENT))
@pytest.mark.parametrize("name", ["muc7.key.sgm", "muc6.key.sgm"])
def test_muc_through_a_one_document_format_keeps_the_first_document_and_says_so(fmt, name):
    """The first document comes back, its words and chains whole; the others are a
    reported loss (loss.multiple-documents), and the name is the format's own."""
    original = corefio.read(MUC / name)
    report = Report()
    data = corefio.dumps(original, fmt, report=report)
    assert ("loss.multiple-documents" in report.codes()) == (len(original.documents) > 1)
    back = corefio.loads(corefio.dumps(corefio.loads(data, fmt), "muc"), "muc")
    first = Corpus(documents=original.documents[:1])
    assert chains(back) == chains(first)
    assert [d.tokens.forms for d in back.documents] == [d.tokens.forms for d in first.documents]
    assert [d.name for d in back.documents] == ["document"]


def test_convert_streams_muc_files(tmp_path):
    target = tmp_path / "key.conll"
    corefio.convert(MUC / "muc7.key.sgm", target)
    back = tmp_path / "back.sgm"
    corefio.convert(target, back)
    assert chains(corefio.read(back)) == chains(corefio.read(MUC / "muc7.key.sgm"))


def test_scoring_muc_key_against_response():
    scores = corefio.score(MUC / "muc6.key.sgm", MUC / "muc6.response.sgm", metrics=["muc"])
    m = scores["muc"]
    assert (m.recall_num, m.recall_den, m.precision_num, m.precision_den) == (3, 5, 3, 6)
    perfect = corefio.score(MUC / "muc7.key.sgm", MUC / "muc7.key.sgm", metrics=["muc"])["muc"]
    assert perfect.recall_num == perfect.recall_den and perfect.precision_num == perfect.precision_den


@pytest.mark.parametrize("fmt", ["conll", "jsonlines", "raf"])
def test_scoring_muc_against_another_format(fmt):
    response = corefio.loads(corefio.dumps(corefio.read(MUC / "muc6.response.sgm"), fmt), fmt)
    direct = corefio.score(MUC / "muc6.key.sgm", MUC / "muc6.response.sgm", metrics=["muc"])["muc"]
    across = corefio.score(corefio.read(MUC / "muc6.key.sgm"), response, metrics=["muc"])["muc"]
    assert across == direct


# -- writer and reader agree on any document ---------------------------------------------------
FORMS = st.sampled_from(["the", "Ann", "said", ",", "&", "<b>", "x&MD;", "'s", "U.S.", "(", "\"", "--", "é"])


@st.composite
def nested_documents(draw):
    """A document whose mentions nest (what MUC can hold), in chains, some with MIN
    alternatives and the optional flag, sentences anywhere."""
    n = draw(st.integers(1, 14))
    forms_ = draw(st.lists(FORMS, min_size=n, max_size=n))
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=3))) if n > 1 else []
    bounds = [0] + cuts + [n]
    sentences = [Sentence(first=a, last=b - 1) for a, b in zip(bounds, bounds[1:])]
    markables: list[Markable] = []
    taken: list[tuple[int, int]] = []
    for k in range(draw(st.integers(0, 6))):
        s = draw(st.sampled_from(sentences))
        a = draw(st.integers(s.first, s.last))
        b = draw(st.integers(a, s.last))
        if (a, b) in taken or any(x < a <= y < b or a < x <= b < y for x, y in taken):
            continue
        taken.append((a, b))
        mins = None
        if draw(st.booleans()):
            c = draw(st.integers(a, b))
            mins = ((c, c),) if c == a or not draw(st.booleans()) else ((c, c), (a, c))
        markables.append(Markable(id=f"m{k}", spans=((a, b),), min=mins, optional=draw(st.booleans()),
                                  entity=f"e{draw(st.integers(0, 2))}"))
    return Document(name=draw(st.sampled_from(["d", "a/b & c"])), tokens=Tokens(forms=forms_),
                    sentences=sentences, markables=markables)


@campaign(300, suppress_health_check=[HealthCheck.too_slow])
@given(nested_documents())
def test_written_documents_read_back(doc):
    data = write(Corpus(documents=[doc]), min_from_head=False)
    corpus, report = read(data, strict=True)
    back = corpus.documents[0]
    assert back.name == doc.name and back.tokens.forms == doc.tokens.forms
    assert [(s.first, s.last) for s in back.sentences] == [(s.first, s.last) for s in doc.sentences]
    def seen(d: Document) -> dict:  # a MIN is a string: compared as the text it names
        return {m.id: (m.spans, m.optional, [d.tokens.forms[a:b + 1] for a, b in m.min or ()])
                for m in d.markables}

    assert seen(back) == seen(doc)
    assert chains(corpus) == chains(Corpus(documents=[doc]))
    assert write(corpus, min_from_head=False) == data


def test_repair_handles_other_xml_formats():
    mmax = b"<?xml version='1.0'?>\n<markables><markable id=markable_1 span=word_1..word_2 mmax_level=coref>" \
           b"</markables>"
    fixed, changes = repair.repair_bytes(mmax)
    assert b'id="markable_1"' in fixed and {c.fixer for c in changes} == {"attribute-quotes", "nesting"}
    assert repair.repair_bytes(fixed)[1] == []


def test_canonical_writes_every_tag_afresh():
    corpus = corefio.read(MUC / "muc6.key.sgm")
    out = corefio.dumps(corpus, "muc", canonical=True)
    assert '<COREF ID="3" TYPE="IDENT" REF="5" MIN="Rosa Delgado">' in out  # was ID MIN REF TYPE
    assert '<COREF ID="4" MIN="director" STATUS="OPT">' in out  # was STAT="OPT"
    assert '<COREF ID="8" MIN="Tom Hale">' in out  # the MIN's line break normalised
    back = corefio.loads(out, "muc")
    assert chains(back) == chains(corpus) and back.documents[0].text == corpus.documents[0].text
    assert [(m.min, m.optional) for m in back.documents[0].markables] == \
        [(m.min, m.optional) for m in corpus.documents[0].markables]


# -- fuzzer regressions (tests/data/regressions/fuzz/) --------------------------------------------
FUZZ = DATA / "regressions" / "fuzz"


@pytest.mark.parametrize("name", ["muc-exception-read-5fdc1a3f.sgm", "muc-exception-read-d4bc87ec.sgm"])
def test_fuzz_bytes_against_their_bom_are_a_located_format_error(name):
    path = FUZZ / name
    with pytest.raises(FormatError) as caught:
        corefio.read(path, "muc")
    assert caught.value.file == str(path) and caught.value.line == 1 and caught.value.column is not None
    assert "byte order mark says UTF-16" in caught.value.message
    with pytest.raises(FormatError) as caught:
        read(b"\xef\xbb\xbf<DOC>\n\xef")
    assert (caught.value.file, caught.value.line, caught.value.column) == ("t.sgm", 2, 1)


def test_fuzz_surrogate_reference_is_kept_as_written_and_written_back():
    """muc-roundtrip-write-935bc3fa.sgm: &#xD800; gave a form U+D800 that no file holds."""
    corpus = corefio.read(FUZZ / "muc-roundtrip-write-935bc3fa.sgm", "muc")
    assert corpus.documents[0].tokens.forms == ["&#xD800;"]
    out = corefio.dumps(corpus, "muc")
    out.encode("utf-8")
    again, _ = read(out)
    assert again.documents[0].tokens.forms == ["&#xD800;"]
    corpus, report = read("<DOC><DOCNO>d</DOCNO><TEXT>a &#xD800; &#0; &#x110000; &#65; &#x42;</TEXT></DOC>\n")
    assert corpus.documents[0].tokens.forms == ["a", "&#xD800;", "&#0;", "&#x110000;", "A", "B"]
    assert [(d.code, d.line, d.column) for d in report if d.code == "muc.bad-char-ref"] == [
        ("muc.bad-char-ref", 1, 30), ("muc.bad-char-ref", 1, 39), ("muc.bad-char-ref", 1, 44)]
    with pytest.raises(FormatError, match="&#xD800;"):
        read("<DOC><DOCNO>d</DOCNO><TEXT>a &#xD800;</TEXT></DOC>\n", strict=True)


def test_fuzz_part_of_a_docno_is_a_printable_word():
    """muc-exception-score-seed-paths-117cbc8f.sgm: a part '²' (a digit to isdigit(), not to int())."""
    doc = corefio.read(FUZZ / "muc-exception-score-seed-paths-117cbc8f.sgm", "muc").documents[0]
    assert (doc.name, doc.part) == ("e", "²")
    corefio.score(FUZZ / "muc-exception-score-seed-paths-117cbc8f.sgm",
                  FUZZ / "muc-exception-score-seed-paths-117cbc8f.sgm", key_format="muc", response_format="muc")
    doc = read("<DOC><DOCNO> a (part 1\x00) </DOCNO><TEXT>x</TEXT></DOC>\n")[0].documents[0]
    assert (doc.name, doc.part) == ("a (part 1\x00)", None)


@pytest.mark.parametrize("end", ["\r\n", "\r"])
def test_fuzz_cr_and_crlf_line_ends_read_as_lf(end):
    """muc-equivalence-read-a85cf3d9.sgm: a period before a CR line end stayed on its word."""
    data = (FUZZ / "muc-equivalence-read-a85cf3d9.sgm").read_bytes().replace(b"\r", b"\n")
    plain = read(data)[0].documents[0]
    other = read(data.replace(b"\n", end.encode()))[0].documents[0]
    assert plain.tokens.forms == other.tokens.forms == ["d", ".", "<"]
    text = ("<DOC>\n<DOCNO> x </DOCNO>\n<TEXT>\nIt ended.\nThe <COREF ID=\"1\">officer</COREF>.</COREF>\n"
            "</TEXT>\n</DOC>\n")
    plain, plain_report = read(text)
    other, report = read(text.replace("\n", end))
    assert [d.tokens.forms for d in other.documents] == [d.tokens.forms for d in plain.documents]
    assert [m.spans for m in other.documents[0].markables] == [m.spans for m in plain.documents[0].markables]
    located = [(d.code, d.line, d.column) for d in report if d.code.startswith("muc.")]
    assert located == [(d.code, d.line, d.column) for d in plain_report if d.code.startswith("muc.")]
    assert located == [("muc.stray-end-tag", 5, 35)]  # lines counted at CR too


def test_fuzz_docno_closed_by_the_end_of_input_keeps_its_name():
    """muc-roundtrip-compare-cd64cc55.sgm: 'c' became 'input-1' after write and re-read."""
    corpus = corefio.read(FUZZ / "muc-roundtrip-compare-cd64cc55.sgm", "muc")
    assert [d.label for d in corpus.documents] == ["c"]
    again, _ = read(corefio.dumps(corpus, "muc"))
    assert [d.label for d in again.documents] == ["c"]


def test_fuzz_deep_nesting_is_refused_with_linear_work_and_located():
    """1.7 MB of 100,000 nested tags took 12 s: nesting beyond MAX_DEPTH is refused, and
    the work the reader's scanner does (counted, not timed) stays linear in the input."""
    n = 100_000
    deep = "<DOC>\n<DOCNO> d </DOCNO>\n<TEXT>\n" + "<struct>" * n + "x" + "</struct>" * n + "\n</TEXT>\n</DOC>\n"
    corefs = "<DOC><DOCNO>d</DOCNO><TEXT>" + '<COREF ID="a">w ' * n + "</COREF>" * n + "</TEXT></DOC>\n"
    # at the limit, and many stray end tags: read with linear work
    ok = ("<DOC><DOCNO>d</DOCNO><TEXT>" + ("<s>" * 90 + "w" + "</s>" * 90) * 200 + "</b>" * n
          + "</TEXT></DOC>\n")
    with repair.counting() as work:
        for strict in (False, True):
            with pytest.raises(FormatError, match="nest deeper than 100") as caught:
                read(deep, strict=strict)
            assert (caught.value.file, caught.value.line) == ("t.sgm", 4)
            assert caught.value.column == 1 + 8 * (muc.MAX_DEPTH - 2)  # DOC and TEXT are open already
        with pytest.raises(FormatError, match="nest deeper"):
            read(corefs)
        corpus, _ = read(ok)
    assert len(corpus.documents[0].tokens.forms) == 200
    assert 0 < work.total <= 8 * (2 * len(deep) + len(corefs) + len(ok)), work


def test_fuzz_surrogates_of_another_format_are_not_written_raw():
    doc = Document.build(name="d", tokens=Tokens(forms=["a", "x\ud800y"]))
    report = Report()
    out = write(Corpus(documents=[doc]), report)
    out.encode("utf-8")
    assert "x&#xD800;y" in out and "loss.token-form" in report.codes()
    assert read(out)[0].documents[0].tokens.forms == ["a", "x&#xD800;y"]


@pytest.mark.parametrize("text", [
    'aw <COREF IF> and <COREF ID="7">neveed\n',  # found by the fuzzer (seed 13, input 990)
    "<DOC><DOCNO>d</DOCNO><TEXT><COREF>a <COREF ID=7>b </COREF></COREF></TEXT></DOC>\n",
])
def test_fuzz_new_tag_around_a_tag_as_written_nests_by_tokens(text):
    """A COREF written afresh (here: it had no ID) ends at its last word; one inside it
    kept as written may end after a space: the outer tag now reaches as far (the inner
    one was silently left out as crossing)."""
    corpus, _ = read(text)
    again, _ = read(write(corpus))
    assert [m.spans for m in again.documents[0].markables] == [m.spans for m in corpus.documents[0].markables]


def test_fuzz_docid_name_runs_over_coref_tags():
    """Found by the fuzzer (seed 7, input 1829): a DOCID holding COREF tags was named by
    its text up to the first tag; the writer drops those empty COREFs, and the name read
    back was longer. The name is the DOCID's text without the COREF tags, both times."""
    text = ('<DOC>\n<TEXT>\n<DOCID> bad-001 \n<COREF ID="2" TYPE="IDENT" REF="1">Lind</COREF> saw '
            '<COREF ID="5">x</COREF.\n<COREF ID="6">the sky</COREF> an\n</TEXT>\n</DOC>\n')
    corpus, _ = read(text)
    assert [d.label for d in corpus.documents] == ["bad-001 Lind saw x</COREF. the sky an"]
    again, _ = read(write(corpus))
    assert [d.label for d in again.documents] == [d.label for d in corpus.documents]
    corpus, _ = read("<DOC><DOCNO></DOCNO><DOCID> a <!-- c --> b </DOCID><TEXT>x</TEXT></DOC>\n")
    assert corpus.documents[0].label == "a"


def test_a_second_byte_order_mark_is_refused():
    """Found by the 20-minute fuzz run (seed 20261121): a second U+FEFF was read into the
    first word and lost when written back."""
    with pytest.raises(corefio.CorefioError, match="second byte order mark"):
        corefio.loads(b"\xef\xbb\xbf\xef\xbb\xbfn", "muc")
