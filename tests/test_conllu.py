"""CorefUD CoNLL-U: Entity fields, discontinuous mentions, SplitAnte/Bridge, MISC, MWT."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import corefio
from corefio.diagnostics import Report
from corefio.errors import FormatError
from corefio.formats import conllu
from corefio.model import BRIDGING, SPLIT_ANTECEDENT, Corpus, Document, Link, Markable, Sentence, Tokens

from .conftest import DATA
from .strategies import documents

REAL = sorted((DATA / "corpora").rglob("*.conllu"))

SMALL = """\
# newdoc id = d1
# global.Entity = eid-etype-head-other
# sent_id = d1-1
# text = Mary saw her
1\tMary\tMary\tPROPN\tNNP\t_\t2\tnsubj\t_\tEntity=(e1-person-1-)
2\tsaw\tsee\tVERB\tVBD\t_\t0\troot\t_\t_
3\ther\tshe\tPRON\tPRP\t_\t2\tobj\t_\tSpaceAfter=No|Entity=(e1-person-1-)

# sent_id = d1-2
# text = The 1-2 x y .
1-2\tdes\t_\t_\t_\t_\t_\t_\t_\t_
1\tde\tde\tADP\tIN\t_\t0\troot\t_\tBridge=e1<e2:part|Entity=(e2[1/2]-place-1-
2\tles\tle\tDET\tDT\t_\t1\tdet\t_\tEntity=e2[1/2])
3\tx\tx\tX\tX\t_\t1\tdep\t_\t_
4\ty\ty\tX\tX\t_\t1\tdep\t_\tEntity=(e2[2/2])(e3-group-1-)|SplitAnte=e1<e3
"""


def test_real_files_round_trip_byte_for_byte():
    assert REAL
    for path in REAL:
        corpus = corefio.read(path)
        assert conllu.dumps(corpus) == path.read_text(encoding="utf-8"), path


def test_gum_entities_fields_and_links():
    doc = corefio.read(DATA / "corpora/gum/dep/GUM_academic_art.conllu").documents[0]
    layout = doc.layout["conllu"]
    assert doc.metadata == {} and isinstance(layout, conllu.ConlluLayout)
    assert "-".join(layout.fields) == "GRP-etype-infstat-salience-centering-minspan-link-identity"
    first = doc.markables[0]
    assert set(first.attributes) <= {"etype", "infstat", "salience", "centering", "minspan", "link", "identity"}
    assert first.attributes["etype"]
    types = sorted(link.type for link in doc.links)
    assert types.count(BRIDGING) == 8 and types.count(SPLIT_ANTECEDENT) == 4
    split = [link for link in doc.links if link.type == SPLIT_ANTECEDENT]
    assert {link.target for link in split} == {"6", "11", "15", "17"}
    assert {doc.markables[doc.markable_index()[link.source]].entity for link in split} == {"62"}
    assert all(link.target_kind == "entity" for link in doc.links)
    # MISC keeps the other keys; coreference keys are in the model only
    misc = doc.tokens.attributes["misc"]
    assert not any("Entity=" in (m or "") for m in misc)
    assert any("MSeg=" in (m or "") for m in misc)


def test_minspan_with_commas_and_percent_encoded_identity_survive():
    doc = corefio.read(DATA / "corpora/gum/dep/GUM_academic_art.conllu").documents[0]
    minspans = [m.attributes.get("minspan", "") for m in doc.markables]
    assert any("," in v for v in minspans)
    assert any("%2C" in str(m.attributes.get("identity", "")) for m in doc.markables)


def test_small_document_with_discontinuous_mwt_bridge_and_split_antecedent():
    report = Report()
    corpus = conllu.loads(SMALL, report=report)
    doc = corpus.documents[0]
    assert doc.name == "d1"
    assert doc.tokens.forms == ["Mary", "saw", "her", "de", "les", "x", "y"]
    assert doc.sentences[1].interleaved == [(0, "1-2\tdes\t_\t_\t_\t_\t_\t_\t_\t_")]
    e2 = [m for m in doc.markables if m.entity == "e2"]
    assert [m.spans for m in e2] == [((3, 4), (6, 6))]
    # the head field (1 = the first word of the mention) is the markable's head
    assert e2[0].attributes == {"etype": "place", "other": ""} and e2[0].head == ((3, 3),)
    assert [m.head for m in doc.markables] == [((0, 0),), ((2, 2),), ((3, 3),), ((6, 6),)]
    bridge = [link for link in doc.links if link.type == BRIDGING]
    assert [(link.target, link.attributes) for link in bridge] == [("e1", {"relation": "part"})]
    split = [link for link in doc.links if link.type == SPLIT_ANTECEDENT]
    assert [(link.source, link.target) for link in split] == [("markable_4", "e1")]
    assert [[m.id for m in c] for c in doc.chains()] == [["markable_1", "markable_2"], ["markable_3"], ["markable_4"]]
    # written back identically (the source put SpaceAfter before Entity: a layout hint keeps it)
    assert conllu.dumps(corpus) == SMALL
    assert doc.layout["conllu"].misc[2] == "SpaceAfter=No|Entity=(e1-person-1-)"
    assert not any(name.startswith("layout") for name in doc.tokens.attributes)


def test_relations_off_the_first_word_are_moved_with_a_warning():
    text = SMALL.replace("Bridge=e1<e2:part|Entity=(e2[1/2]-place-1-", "Entity=(e2[1/2]-place-1-").replace(
        "Entity=e2[1/2])", "Bridge=e1<e2:part|Entity=e2[1/2])")
    report = Report()
    doc = conllu.loads(text, report=report).documents[0]
    assert "conllu.relation-moved" in report.codes()
    assert [link.source for link in doc.links if link.type == BRIDGING] == ["markable_3"]


def test_canonical_entity_order_and_misc_placement():
    corpus = conllu.loads(SMALL)
    text = conllu.dumps(corpus, canonical=True)
    lines = text.strip().split("\n")
    assert lines[-1].split("\t")[-1] == "Entity=(e3-group-1-)(e2[2/2])|SplitAnte=e1<e3"  # udapi: reversed
    assert corpus.documents[0].layout["conllu"].part_fields == "first"
    assert lines[6].split("\t")[-1] == "Entity=(e1-person-1-)|SpaceAfter=No"


@pytest.mark.parametrize("text, words", [
    ("# newdoc id = d\n1\ta\ta\tX\tX\t_\t0\troot\t_\tEntity=(e1-x\n\n", "never closed"),
    ("# newdoc id = d\n1\ta\ta\tX\tX\t_\t0\troot\t_\tEntity=e1)\n\n", "no open mention"),
    ("# newdoc id = d\n1\ta\ta\tX\tX\t_\t0\troot\n\n", "10 TAB-separated"),
    ("# newdoc id = d\n1\ta\ta\tX\tX\t_\t0\troot\t_\tEntity=(e1[2/2])\n\n", "without its earlier parts"),
    ("# newdoc id = d\n1\ta\ta\tX\tX\t_\t0\troot\t_\tBridge=e1\n\n", "ANTECEDENT<ANAPHOR"),
    ("# newdoc id = d\nx\ta\ta\tX\tX\t_\t0\troot\t_\t_\n\n", "bad token id"),
])
def test_broken_corefud_names_the_line(text, words):
    with pytest.raises(FormatError) as info:
        conllu.loads(text, file="t.conllu")
    assert info.value.line == 2 and words in str(info.value)


def test_documents_from_other_formats_get_newdoc_global_entity_and_text():
    doc = Document(
        name="x", tokens=Tokens(forms=["A", "b", "."], whitespace=[" ", "", "\n"]),
        sentences=[Sentence(first=0, last=2)],
        markables=[Markable(id="m1", spans=((0, 0), (2, 2)), attributes={"etype": "thing"}),
                   Markable(id="m2", spans=((1, 1),), attributes={"colour": "red"})],
        links=[Link(id="l", type="bridging", source="m2", target="m1")],
    )
    report = Report()
    text = corefio.dumps(Corpus(documents=[doc]), "conllu", report=report)
    lines = text.split("\n")
    # an attribute the default fields do not name gets a field of its own; the text is
    # the words between spaces (the whitespace is not kept: no SpaceAfter=No is written,
    # and UD's validator wants one wherever the text has no space after a word)
    assert lines[:4] == ["# newdoc id = x", "# global.Entity = eid-etype-head-other-colour", "# sent_id = x-1",
                         "# text = A b ."]
    # every mention gets a head (issue #18: no empty head slot before other fields);
    # without a dependency tree it is the last word
    assert lines[4].endswith("Entity=(e1[1/2]-thing-2)")
    assert lines[5].endswith("Bridge=e1<e2|Entity=(e2--1--red)")  # whitespace is not kept
    assert lines[6].endswith("Entity=(e1[2/2]-thing-2)")
    assert "loss.markable-attributes" not in report.codes() and "loss.whitespace" in report.codes()
    assert [d.count for d in report if d.code == "conllu.head-computed"] == [2]
    back = conllu.loads(text).documents[0]
    assert [m.spans for m in back.markables] == [((0, 0), (2, 2)), ((1, 1),)]
    assert [m.head for m in back.markables] == [((2, 2),), ((1, 1),)]
    assert [m.attributes for m in back.markables] == [{"etype": "thing"}, {"colour": "red"}]
    assert [(link.type, link.target) for link in back.links] == [("bridging", "e1")]


def test_heads_are_written_back_from_the_markables():
    doc = Document(name="x", tokens=Tokens(forms=list("abcde")),
                   markables=[Markable(id="m1", spans=((0, 1), (3, 4)), entity="7", head=((3, 3),)),
                              Markable(id="m2", spans=((2, 2),), entity="8", head=((2, 2),)),
                              Markable(id="m3", spans=((0, 4),), entity="9", head=((1, 2),))])
    report = Report()
    text = corefio.dumps(doc, "conllu", report=report)
    back = conllu.loads(text).documents[0]
    # a head of two words is lost (reported); the last of them is written
    assert {m.entity: m.head for m in back.markables} == {"7": ((3, 3),), "8": ((2, 2),), "9": ((2, 2),)}
    assert "loss.heads" in report.codes()  # a head of two words has no position
    assert "(7[1/2]--3" in text


FORM = st.text(alphabet=st.characters(whitelist_categories=("L", "N")), min_size=1, max_size=5)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(forms=FORM, with_links=False, with_attributes=False))
def test_random_documents_round_trip(doc):
    doc = doc.copy(**{"links": [], "entities": [], "metadata": {},
                                 "tokens": Tokens(forms=doc.tokens.forms), "sentences": []})
    report = Report()
    text = conllu.dumps(Corpus(documents=[doc]), report=report)
    try:
        back = conllu.loads(text).documents[0]
    except FormatError:
        same = False  # unreadable: must have been reported
    else:
        assert back.tokens.forms == doc.tokens.forms
        same = sorted(sorted(m.spans for m in c) for c in back.chains()) == \
            sorted(sorted(m.spans for m in c) for c in doc.chains())
    # what CorefUD cannot express is reported, and only that
    assert same == (not {"loss.same-entity-overlap", "loss.interleaved-parts", "loss.same-span"} & report.codes())
    if same:
        assert conllu.dumps(conllu.loads(text)) == text


def test_same_entity_crossing_mentions_are_reported_as_loss():
    doc = Document(name="x", tokens=Tokens(forms=list("abcd")),
                   markables=[Markable(id="m1", spans=((0, 2),), entity="e1"),
                              Markable(id="m2", spans=((1, 3),), entity="e1")])
    report = Report()
    conllu.dumps(Corpus(documents=[doc]), report=report)
    assert {"loss.same-entity-overlap", "loss.interleaved-parts"} & report.codes()
    # nested mentions of one entity are fine
    doc2 = doc.copy(markables=[Markable(id="m1", spans=((0, 3),), entity="e1"),
                                                Markable(id="m2", spans=((1, 2),), entity="e1")])
    report = Report()
    text = conllu.dumps(Corpus(documents=[doc2]), report=report)
    assert not {"loss.same-entity-overlap", "loss.interleaved-parts"} & report.codes()
    assert [m.spans for m in conllu.loads(text).documents[0].markables] == [((0, 3),), ((1, 2),)]


def test_interleaved_discontinuous_mentions_of_one_entity_are_reported_as_loss():
    """Found by hypothesis: parts of two discontinuous mentions of one entity alternate
    (a1 b1 a2 b2); CorefUD's [1/2] [2/2] markers cannot say which part goes with which."""
    doc = Document(name="x", tokens=Tokens(forms=list("abcd")),
                   markables=[Markable(id="m1", spans=((1, 1), (3, 3)), entity="e1"),
                              Markable(id="m2", spans=((0, 0), (2, 2)), entity="e1")])
    report = Report()
    text = conllu.dumps(Corpus(documents=[doc]), report=report)
    back = conllu.loads(text).documents[0]
    assert sorted(m.spans for m in back.markables) != sorted(m.spans for m in doc.markables)
    assert {"loss.same-entity-overlap", "loss.interleaved-parts"} & report.codes()


# -- fuzzer regression: a CR alone inside a line ---------------------------------------------------
def test_fuzz_cr_inside_a_comment_of_a_crlf_file_is_a_located_error():
    """conllu-roundtrip-compare-9074608a.conllu: ``#newdoc id=c\\r2`` in a CRLF file gave
    the label ``'c\\r2'``, written back as ``'c 2'``; a CR alone is a line end of a third
    kind, refused as mixed line ends (as a whole-text reading refuses them)."""
    path = DATA / "regressions" / "fuzz" / "conllu-roundtrip-compare-9074608a.conllu"
    with pytest.raises(FormatError, match="line ends mix") as info:
        corefio.read(path, "conllu")
    error = info.value
    assert error.file is not None and path.name in str(error.file)
    assert (error.line, error.column) == (2, len("#newdoc id=c") + 1)
    with pytest.raises(FormatError, match="line ends mix"):
        list(corefio.iter_read(path, "conllu"))


@pytest.mark.parametrize("data, line", [
    (b"# newdoc id = a\n# text = x\ry\n1\tx\t_\t_\t_\t_\t0\troot\t_\t_\n\n", 2),  # LF file
    (b"# newdoc id = a\r\n1\tx\t_\t_\t_\t_\t0\troot\t_\tA=b\rc\r\n\r\n", 2),  # CRLF file, in MISC
    (b"# newdoc id = a\r\n1\tx\t_\t_\t_\t_\t0\troot\t_\t_\r\n\r\r\n", 3),  # CR CR LF
    (b"# newdoc id = a\n1\tx\t_\t_\t_\t_\t0\troot\t_\t_\n\n# x\r", 4),  # last line, no LF
])
def test_a_lone_cr_inside_a_line_is_refused(data, line):
    with pytest.raises(FormatError, match="line ends mix") as info:
        corefio.loads(data, "conllu", name="x.conllu")
    assert info.value.line == line and "x.conllu" in str(info.value.file)


ZEROS = DATA / "scorer-testcases" / "corefud" / "zeros"


def test_empty_nodes_are_empty_tokens_and_survive_raf_and_edits(tmp_path):
    source = (ZEROS / "TC-ZF-4.response").read_text()
    corpus = corefio.loads(source.encode(), "conllu")
    doc = corpus.documents[0]
    ids = source.split("\n")
    assert doc.tokens.empty == [13, 16]  # 13.1 and 15.1
    raf = corefio.dumps(corpus, "raf")
    assert raf.count(b'empty="yes"') == 3  # the two words and the primary data
    (tmp_path / "z.raf.xml").write_bytes(raf)
    assert not corefio.validate(tmp_path / "z.raf.xml", "raf").errors
    back = corefio.loads(raf, "raf")
    assert back.documents[0].tokens.empty == [13, 16]
    assert corefio.dumps(back, "conllu") == source
    # without the CoNLL-U layout (canonical output, or a document edited elsewhere) the
    # ids are derived from the empty tokens: w.k after word w
    canonical = corefio.dumps(corpus, "conllu", canonical=True)
    got = [line.split("\t")[0] for line in canonical.split("\n") if line and not line.startswith("#")]
    assert got == [line.split("\t")[0] for line in ids if line and not line.startswith("#")]
    assert "13.1" in got and "15.1" in got


def test_empty_tokens_in_a_format_without_them_are_a_reported_loss():
    corpus = corefio.loads((ZEROS / "TC-ZA.key").read_bytes(), "conllu")
    report = Report()
    corefio.dumps(corpus, "conll", report=report)
    assert any(d.code == "loss.empty-tokens" for d in report.diagnostics)


def test_derived_ids_number_empty_tokens_after_their_word():
    assert conllu._derived_ids([(0, 4), (5, 6)], {0, 3, 4, 6}) == ["0.1", "1", "2", "2.1", "2.2", "1", "1.1"]


@pytest.mark.parametrize("empty", [[3, 3], [2, 1], [-1], [99]])
def test_empty_tokens_must_be_ascending_token_indices(empty):
    from corefio.errors import ModelError

    with pytest.raises(ModelError, match="empty tokens"):
        Document(name="d", tokens=Tokens(forms=["a", "b", "c", "d"], empty=empty))


# -- issue #25: empty and cut inputs are input errors -------------------------------------------
CUT_CONLLU = {
    # 0 bytes, blank lines, comments only: no document
    "empty": ("", 1, "the file is empty"),
    "blank lines": ("\n  \n\n", 3, "no document"),
    "comments only": ("# newdoc id = d\n# sent_id = 1\n", 2, "no document"),
    # the last line is a comment without a line end: the file was cut there
    "cut in a comment": ("# newdoc id = d\n1\tJohn\t_\t_\t_\t_\t0\troot\t_\tEntity=(e1)\n\n# sent_id = 2\n# te",
                         5, "ends inside a comment line"),
    # the last line is a token line cut short (4 of 10 columns, no line end)
    "cut in a token line": ("# newdoc id = d\n1\tJohn\t_\t_\t_\t_\t0\troot\t_\tEntity=(e1)\n\n1\tHe\t_\t_",
                            4, "10 TAB-separated columns"),
}


@pytest.mark.parametrize("name", sorted(CUT_CONLLU))
def test_empty_and_cut_conllu_is_an_input_error(name, cli, tmp_path):
    text, line, words = CUT_CONLLU[name]
    src = tmp_path / "in.conllu"
    src.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError, match=words) as info:
        corefio.read(src)
    assert info.value.line == line
    located = f"in.conllu:{line}:"
    for command, code in (("info", 3), ("validate", 4), ("convert", 3)):
        args = [command, src] + ([tmp_path / "out.conll"] if command == "convert" else [])
        result = cli(*args)
        assert result.exit_code == code, (command, result.output)
        assert located in result.output and words in result.output
    assert not (tmp_path / "out.conll").exists()


# -- issue #18: parts of one document stay apart ------------------------------------------------
TWO_PARTS = """\
#begin document (doc); part 000
doc\t0\t0\tJohn\t(1)
doc\t0\t1\tleft\t-
doc\t0\t2\t.\t-

#end document
#begin document (doc); part 001
doc\t0\t0\tHe\t(1)
doc\t0\t1\tcame\t-
doc\t0\t2\tback\t-

#end document
"""


def test_parts_of_one_document_survive_conllu(cli, tmp_path):
    """S13_conll_two_parts.conll: parts 000 and 001 of ``doc`` were written as two CoNLL-U
    documents of the same name and came back as two "part 000", with no loss reported."""
    src = tmp_path / "two.conll"
    src.write_text(TWO_PARTS, encoding="utf-8")
    report = Report()
    text = corefio.dumps(corefio.read(src), "conllu", report=report)
    assert "# newdoc id = doc\n# part = 000\n" in text and "# newdoc id = doc\n# part = 001\n" in text
    sent_ids = [line for line in text.splitlines() if line.startswith("# sent_id")]
    assert len(set(sent_ids)) == 2  # unique: the second part's ids name it
    back = corefio.loads(text, "conllu")
    assert [(d.name, d.part) for d in back.documents] == [("doc", "000"), ("doc", "001")]
    assert [d.tokens.forms[0] for d in back.documents] == ["John", "He"]
    # and back to CoNLL with the same headers; the CLI says two parts
    assert corefio.dumps(back, "conll").count("#begin document (doc); part 00") == 2
    assert "#begin document (doc); part 001" in corefio.dumps(back, "conll")
    out = tmp_path / "two.conllu"
    assert cli("convert", src, out).exit_code == 0
    info = cli("info", out).output
    assert "'doc' part 000" in info and "'doc' part 001" in info


@pytest.mark.parametrize("fmt", ["mate", "muc"])
def test_parts_from_mate_and_muc_survive_conllu(fmt):
    corpus = corefio.loads(corefio.dumps(conll_parts(), fmt), fmt)
    assert [d.key for d in corpus.documents] == [("doc", "0"), ("doc", "1")]
    back = corefio.loads(corefio.dumps(corpus, "conllu"), "conllu")
    assert [d.key for d in back.documents] == [("doc", "0"), ("doc", "1")]


def conll_parts() -> Corpus:
    return corefio.loads(TWO_PARTS, "conll")


def test_part_comment_follows_edits_of_the_part():
    doc = conll_parts().documents[1]
    text = corefio.dumps(Corpus(documents=[doc]), "conllu")
    moved = corefio.loads(text, "conllu").documents[0]
    assert moved.part == "001"
    # a document without a part loses the comment, one with another part gets it rewritten
    assert "# part" not in corefio.dumps(Corpus(documents=[moved.copy(part=None)]), "conllu")
    assert "# part = 7\n" in corefio.dumps(Corpus(documents=[moved.copy(part="7")]), "conllu")


# -- issue #18: what CorefUD's tools read ------------------------------------------------------
def _entity_openers(text: str) -> list[str]:
    return [c for line in text.splitlines() if "Entity=" in line
            for c in re.findall(r"\(([^()]+)", line.split("\t")[9].split("Entity=")[1].split("|")[0])]


def test_sent_ids_have_no_slash_and_the_name_stays_whole():
    """An OntoNotes-style name gave ``# sent_id = wb/Jarvis_Island-1``, which udapi reads
    as sentence ``wb`` of zone ``Jarvis_Island-1``."""
    text = corefio.dumps(corefio.loads("#begin document (wb/Jarvis Island); part 000\n"
                                       "wb\t0\t0\tJarvis\t(1\nwb\t0\t1\tIsland\t1)\n\n#end document\n", "conll"),
                         "conllu")
    assert "# sent_id = wb_Jarvis_Island-1\n" in text and "# newdoc id = wb/Jarvis Island\n" in text
    assert corefio.loads(text, "conllu").documents[0].name == "wb/Jarvis Island"


def test_sentence_ids_of_the_model_are_made_valid_and_unique_in_the_file():
    docs = [Document(name=name, tokens=Tokens(forms=["a", "b"]),
                     sentences=[Sentence(first=0, last=0, id="s 1/a"), Sentence(first=1, last=1, id="s2")])
            for name in ("d1", "d2")]
    report = Report()
    text = corefio.dumps(Corpus(documents=docs), "conllu", report=report)
    ids = re.findall(r"^# sent_id = (.*)$", text, re.M)
    assert ids == ["s_1_a", "s2", "d2-s_1_a", "d2-s2"]
    assert "loss.sent-id" in report.codes()


def test_every_mention_from_another_format_gets_a_head_from_the_tree():
    """MMAX2 (or any source without one-word heads) gave ``Entity=(e12----none``: an
    empty head slot before other fields, which UD's validator and udapi refuse."""
    doc = Document(
        name="d", tokens=Tokens(forms=["the", "old", "man", "slept"],
                                attributes={"head": ["3", "3", "4", "0"], "deprel": ["det", "amod", "nsubj", "root"]}),
        sentences=[Sentence(first=0, last=3)],
        markables=[Markable(id="m1", spans=((0, 2),), entity="1", attributes={"np_form": "defnp"}),
                   Markable(id="m2", spans=((0, 1),), entity="2"),  # no tree node above the others: "old" is deeper
                   Markable(id="m3", spans=((1, 2),), entity="3", head=((1, 1),))])
    report = Report()
    text = corefio.dumps(doc, "conllu", report=report)
    # the highest word in the tree ("man", 3rd), ties to the first ("the" and "old" both hang on "man")
    assert _entity_openers(text) == ["1--3-np_form:defnp", "2--1", "3--1"]
    assert [d.count for d in report if d.code == "conllu.head-computed"] == [2]
    back = corefio.loads(text, "conllu").documents[0]
    assert [(m.spans, m.head, m.attributes) for m in back.markables] == [
        (((0, 2),), ((2, 2),), {"np_form": "defnp"}), (((0, 1),), ((0, 0),), {}), (((1, 2),), ((1, 1),), {})]


def test_attribute_names_the_validator_refuses_go_into_other_and_come_back():
    doc = Document(name="d", tokens=Tokens(forms=["a", "b", "c"]),
                   markables=[Markable(id="m1", spans=((0, 1),), entity="1",
                                       attributes={"type": "np", "anaphor_type": "a-b,c", "Gram": "sbj"})])
    text = corefio.dumps(doc, "conllu")
    declaration = re.search(r"^# global\.Entity = (.*)$", text, re.M).group(1)
    assert declaration == "eid-etype-head-other-type"
    assert re.fullmatch(r"[a-z]+(-[a-z]+)*", declaration)  # what UD's validator accepts
    assert _entity_openers(text) == ["1--2-anaphor_type:a%2Db%2Cc,Gram:sbj-np"]
    back = corefio.loads(text, "conllu").documents[0]
    assert back.markables[0].attributes == {"type": "np", "anaphor_type": "a-b,c", "Gram": "sbj"}
    assert corefio.dumps(corefio.loads(text, "conllu"), "conllu") == text


def test_a_source_other_field_is_kept_as_it_was():
    text = SMALL.replace("Entity=(e1-person-1-)", "Entity=(e1-person-1-gstype:spec,x_y:a%zz)", 1)
    doc = conllu.loads(text).documents[0]
    assert doc.markables[0].attributes["other"] == "gstype:spec,x_y:a%zz"  # not written so by corefio: kept
    assert conllu.dumps(conllu.loads(text)) == text


def test_documents_of_one_file_share_one_declaration_and_no_entity_id():
    docs = [Document(name=f"d{k}", tokens=Tokens(forms=["a", "b"]),
                     markables=[Markable(id="m1", spans=((0, 0),), entity="1", attributes=attrs),
                                Markable(id="m2", spans=((1, 1),), entity="1")])
            for k, attrs in ((1, {}), (2, {"colour": "red"}))]
    report = Report()
    text = corefio.dumps(Corpus(documents=docs), "conllu", report=report)
    assert set(re.findall(r"^# global\.Entity = (.*)$", text, re.M)) == {"eid-etype-head-other"}
    assert _entity_openers(text) == ["1--1", "1--1", "e1--1-colour:red", "e1--1"]
    back = corefio.loads(text, "conllu")
    assert [m.attributes for m in back.documents[1].markables] == [{"colour": "red"}, {}]
    assert "loss.label" in report.codes()


def test_mentions_of_the_same_words_are_one_mention():
    doc = Document(name="d", tokens=Tokens(forms=["a", "b"]),
                   markables=[Markable(id="m1", spans=((0, 1),), entity="1"),
                              Markable(id="m2", spans=((0, 1),), entity="2", layer="np"),
                              Markable(id="m3", spans=((1, 1),), entity="1")])
    report = Report()
    text = corefio.dumps(doc, "conllu", report=report)
    assert _entity_openers(text) == ["1--2", "1--1"]
    assert [d.count for d in report if d.code == "loss.same-span"] == [1]


def test_a_head_attribute_that_is_a_word_stays_out_of_the_head_slot():
    """An MMAX2 level with a ``head`` attribute (the head's word form) put that word in
    CorefUD's head slot, which holds a position."""
    doc = Document(name="d", tokens=Tokens(forms=["the", "court"]),
                   markables=[Markable(id="m1", spans=((0, 1),), entity="1", attributes={"head": "court"}),
                              Markable(id="m2", spans=((0, 0),), entity="2", attributes={"head": ""})])
    text = corefio.dumps(doc, "conllu")
    assert _entity_openers(text) == ["1--2-head:court", "2--1-head:"]
    back = corefio.loads(text, "conllu").documents[0]
    assert [(m.head, m.attributes) for m in back.markables] == [(((1, 1),), {"head": "court"}),
                                                                (((0, 0),), {"head": ""})]
