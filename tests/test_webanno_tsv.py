"""WebAnno TSV 3.x: GUM read and scored against its CoNLL-U, typed links counted,
byte-exact round trip, the chain style and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

import corefio
from corefio.errors import FormatError

DATA = Path(__file__).parent / "data" / "webanno"
GUM = ["GUM_academic_art", "GUM_news_worship"]


@pytest.mark.parametrize("name", GUM)
def test_gum_tsv_scores_100_percent_against_its_conllu(name):
    doc = corefio.read(DATA / f"{name}.tsv").documents[0]
    key = corefio.read(DATA / f"{name}.conllu").documents[0]
    assert doc.tokens.forms == key.tokens.forms
    scores = corefio.score(key, doc.copy(name=key.name, part=key.part),
                           ["muc", "bcub", "ceafe"])
    for metric in ("muc", "bcub", "ceafe"):
        s = scores.corpus[metric]
        assert s.recall_num == s.recall_den and s.precision_num == s.precision_den and s.recall_den > 0


@pytest.mark.parametrize("name", GUM)
def test_gum_typed_links_are_those_of_the_conllu(name):
    doc = corefio.read(DATA / f"{name}.tsv").documents[0]
    key = corefio.read(DATA / f"{name}.conllu").documents[0]

    def typed(d):
        """(type, source chain, target chains) of every typed link, chains as span sets."""
        chains = [frozenset(d.markables[i].spans for i in c) for c in d.chain_indices()]
        chain = {d.markables[i].ref: chains[k] for k, c in enumerate(d.chain_indices()) for i in c}
        by_entity = {m.entity: chain[m.ref] for m in d.markables if m.entity is not None}
        return sorted((link.type, sorted(chain[link.source]),
                       sorted(sorted(by_entity[t] if link.target_kind == "entity" else chain[t])
                              for t in link.targets))
                      for link in d.links if not link.is_identity)

    mine = [link.type for link in doc.links if not link.is_identity]
    theirs = [link.type for link in key.links if not link.is_identity]
    assert sorted(mine) == sorted(theirs)
    assert mine.count("bridging") == 8
    assert typed(doc) == typed(key)


@pytest.mark.parametrize("name", GUM)
def test_gum_round_trip_is_byte_exact(name):
    corpus = corefio.read(DATA / f"{name}.tsv")
    assert corefio.dumps(corpus, "webanno-tsv").encode() == (DATA / f"{name}.tsv").read_bytes()


def test_gum_header_and_sentence_text_are_kept():
    doc = corefio.read(DATA / "GUM_news_worship.tsv").documents[0]
    header = doc.layout["webanno-tsv"].header
    assert any(line.startswith("#Summary1=") for line in header)
    assert doc.sentences[0].comments == ["#Text=Greek court rules worship of ancient Greek deities is legal"]


CHAINS = (
    "#FORMAT=WebAnno TSV 3.3\n"
    "#T_CH=de.tudarmstadt.ukp.dkpro.core.api.coref.type.CoreferenceLink|referenceType|referenceRelation\n"
    "\n\n"
    "#Text=He shot his brother and himself .\n"
    "1-1\t0-2\tHe\tpr[1]\tcoref->1-1\t\n"
    "1-2\t3-7\tshot\t_\t_\t\n"
    "1-3\t8-11\this\tpr[1]|nam[2]\tcoref->1-2|*->2-1\t\n"
    "1-4\t12-19\tbrother\tnam[2]\t*->2-1\t\n"
    "1-5\t20-23\tand\t_\t_\t\n"
    "1-6\t24-31\thimself\tpr[1]\t*->1-3\t\n"
    "1-7\t32-33\t.\t_\t_\t\n"
)


def test_chain_style_gives_one_entity_per_chain():
    doc = corefio.loads(CHAINS, "webanno-tsv").documents[0]
    found = sorted((m.entity, m.spans, m.attributes.get("referenceType"), m.attributes.get("referenceRelation"))
                   for m in doc.markables)
    assert found == [("1", ((0, 0),), "pr", "coref"), ("1", ((2, 2),), "pr", "coref"),
                     ("1", ((5, 5),), "pr", None), ("2", ((2, 3),), "nam", None)]
    assert sorted(len(chain) for chain in doc.chains()) == [1, 3]


SUBTOKENS = (
    "#FORMAT=WebAnno TSV 3.3\n"
    "#T_SP=webanno.custom.Referent|entity\n"
    "#T_RL=webanno.custom.Coref|type|BT_webanno.custom.Referent\n"
    "\n\n"
    "#Text=Bob's cat\n"
    "1-1\t0-5\tBob's\t_\t_\t_\t\n"
    "1-1.1\t0-3\tBob\tperson[1]\t_\t_\t\n"
    "1-2\t6-9\tcat\tanimal[2]\tcoref\t1-1.1[1_2]\t\n"
)


def test_sub_token_annotations_belong_to_their_token():
    doc = corefio.loads(SUBTOKENS, "webanno-tsv").documents[0]
    assert doc.tokens.forms == ["Bob's", "cat"]
    assert sorted((m.spans, m.attributes["entity"]) for m in doc.markables) == [
        (((0, 0),), "person"), (((1, 1),), "animal")]
    assert len(doc.chains()) == 1
    written = corefio.dumps(doc, "webanno-tsv")
    assert "1-1.1\t0-3\tBob\t_\t_\t_\t\n" in written
    again = corefio.loads(written, "webanno-tsv").documents[0]
    assert sorted(m.spans for m in again.markables) == sorted(m.spans for m in doc.markables)


@pytest.mark.parametrize("text, message, line", [
    ("#FORMAT=WebAnno TSV 3.2\n#T_SP=L|f\n\n\n#Text=a\n1-1\t0-1\ta\n", "columns", 6),
    ("#FORMAT=WebAnno TSV 3.2\n#T_SP=L|f\n\n\n#Text=a\n1-1\t1-0\ta\t_\t\n", "not START-END", 6),
    ("#FORMAT=WebAnno TSV 3.2\n#T_SP=L|f\n\n\n#Text=a b\n1-1\t0-1\ta\t_\t\n1-1\t2-3\tb\t_\t\n",
     "duplicate token id", 7),
    ("#FORMAT=WebAnno TSV 3.2\n#T_SP=R|e\n#T_RL=C|type|BT_R\n\n\n#Text=a\n1-1\t0-1\ta\tx[1]\tcoref\t9-9[2_1]\t\n",
     "governor 9-9", 7),
    ("tab\tseparated\n", "#FORMAT=WebAnno TSV 3", 1),
    # issue 20's hostile inputs: column counts, relations to what is not there
    ("#FORMAT=WebAnno TSV 3.2\n#T_SP=L|f\n\n\n#Text=a\n1-1\t0-1\ta\t_\t_\t_\n", "6 columns where the header declares 4", 6),
    ("#FORMAT=WebAnno TSV 3.2\n#T_SP=R|e\n#T_RL=C|type|BT_R\n\n\n#Text=a\n1-1\t0-1\ta\tx[1]\tcoref|ana\t1-1[1_1]\t\n",
     "different numbers of annotations", 7),
    ("#FORMAT=WebAnno TSV 3.2\n#T_SP=R|e\n#T_RL=C|type|BT_R\n\n\n#Text=a\n1-1\t0-1\ta\tx[1]\tcoref\t1-1[7_1]\t\n",
     "annotation 7", 7),
    ("#FORMAT=WebAnno TSV 3.2\n#T_SP=L|f\n\n\n#Text=a\n1-1.1\t0-1\ta\t_\t\n", "follows no token", 6),
    ("#FORMAT=WebAnno TSV 3.2\n#T_SP=L|f\n\n\n#Text=a\nx\t0-1\ta\t_\t\n", "not SENTENCE-TOKEN", 6),
    ("#FORMAT=WebAnno TSV 3.2\n#T_RL=C|type|R\n", "base type", 2),
])
def test_bad_files_are_located_errors(text, message, line):
    with pytest.raises(FormatError) as caught:
        corefio.loads(text, "webanno-tsv")
    assert message in str(caught.value) and caught.value.line == line


LAYER_AFTER = (
    "#FORMAT=WebAnno TSV 3.2\n"
    "#T_SP=webanno.custom.Referent|entity\n"
    "#T_RL=webanno.custom.Coref|type|BT_webanno.custom.Referent\n"
    "#T_SP=de.tudarmstadt.ukp.dkpro.core.api.lexmorph.type.pos.POS|PosValue\n"
    "\n\n"
    "#Text=Kim left . She smiled\n"
    "1-1\t0-3\tKim\tperson[1]\t_\t_\tNNP\t\n"
    "1-2\t4-8\tleft\t_\t_\t_\tVBD\t\n"
    "1-3\t9-10\t.\t_\t_\t_\t.\t\n"
    "1-4\t11-14\tShe\tperson[2]\tana\t1-1[1_2]\tPRP\t\n"
    "1-5\t15-21\tsmiled\t_\t_\t_\tVBD\t\n"
)


def test_a_layer_after_the_coreference_layers_keeps_its_place():
    corpus = corefio.loads(LAYER_AFTER, "webanno-tsv")
    doc = corpus.documents[0]
    assert doc.tokens.attributes["de.tudarmstadt.ukp.dkpro.core.api.lexmorph.type.pos.POS|PosValue"][0] == "NNP"
    assert [link.attributes for link in doc.links] == [{"type": "ana"}]
    assert corefio.dumps(corpus, "webanno-tsv") == LAYER_AFTER


def test_a_chain_layer_file_is_written_back_byte_for_byte():
    assert corefio.dumps(corefio.loads(CHAINS, "webanno-tsv"), "webanno-tsv") == CHAINS


def test_a_chain_layer_file_edited_keeps_its_style_and_chains():
    doc = corefio.loads(CHAINS, "webanno-tsv").documents[0]
    # markables renumbered: the chains are numbered afresh, links in text order
    renamed = doc.copy(**{"markables": [m.copy(**{"id": f"x{k}"})
                                                   for k, m in enumerate(doc.markables)]})
    written = corefio.dumps(renamed, "webanno-tsv")
    assert "#T_CH=" in written and "#T_RL=" not in written
    assert "1-3\t8-11\this\tpr[1]|nam[2]\tcoref->1-2|*->2-1\t" in written
    back = corefio.loads(written, "webanno-tsv").documents[0]
    assert sorted(sorted(doc.markables[i].spans for i in chain) for chain in doc.chain_indices()) == \
        sorted(sorted(back.markables[i].spans for i in chain) for chain in back.chain_indices())


def test_a_document_of_another_format_is_written_as_the_golden_file():
    from corefio.model import Document, Link, Markable, Sentence, Tokens

    doc = Document(name="d", tokens=Tokens(forms=["Kim", "left", ".", "She", "smiled", "at", "her", "dog"],
                                           attributes={"pos": ["NNP", "VBD", ".", "PRP", "VBD", "IN", "PRP$", "NN"]}),
                   sentences=[Sentence(first=0, last=2), Sentence(first=3, last=7)],
                   markables=[Markable(id="m1", spans=((0, 0),), entity="e1", attributes={"etype": "person"}),
                              Markable(id="m2", spans=((3, 3),), entity="e1", attributes={"etype": "person"}),
                              Markable(id="m3", spans=((6, 7),), attributes={"etype": "animal"}),
                              Markable(id="m4", spans=((6, 6),), entity="e1")],
                   links=[Link(id="b", type="bridging", source="m3", target="m2", attributes={"relation": "poss"})])
    golden = (DATA / "golden_from_model.tsv").read_text(encoding="utf-8")
    assert corefio.dumps(doc, "webanno-tsv") == golden
    back = corefio.loads(golden, "webanno-tsv").documents[0]
    assert back.tokens.forms == doc.tokens.forms and back.tokens.attributes == doc.tokens.attributes
    assert sorted(sorted(back.markables[i].spans for i in c) for c in back.chain_indices()) == \
        sorted(sorted(doc.markables[i].spans for i in c) for c in doc.chain_indices())
    assert [(link.type, link.attributes["relation"]) for link in back.links if not link.is_identity] == \
        [("bridging", "poss")]


def test_cli_exit_code_3_on_a_bad_tsv(tmp_path):
    from typer.testing import CliRunner

    from corefio.cli import app

    bad = tmp_path / "bad.tsv"
    bad.write_text("#FORMAT=WebAnno TSV 3.2\n#T_SP=L|f\n\n\n#Text=a\n1-1\t0-1\ta\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["info", str(bad)])
    assert result.exit_code == 3 and "bad.tsv:6" in result.output, result.output


def test_annotation_ids_with_unicode_digits_are_not_numbers(tmp_path):
    """Found by the fuzzer: a mention id such as ``1¹`` passed ``isdigit()`` and broke the
    writer's ``int()`` (an internal error)."""
    import corefio
    from corefio.model import Corpus, Document, Markable, Tokens

    doc = Document(name="d", tokens=Tokens(forms=["a", "b", "c"]),
                   markables=[Markable(id="1\u00b9", spans=((0, 0),), entity="e1"),
                              Markable(id="2", spans=((2, 2),), entity="e1")])
    text = corefio.dumps(Corpus(documents=[doc]), "webanno-tsv")
    again = corefio.loads(text, "webanno-tsv").documents[0]
    assert [c for c in again.chain_indices()] and len(again.markables) == 2


def test_a_markable_of_another_layer_is_written_only_when_in_a_chain():
    """Found by the conversion matrix (gum-mmax2, ua/example): markables of every layer
    were written as mentions."""
    from corefio.diagnostics import Report
    from corefio.model import Document, Markable, Tokens

    doc = Document(name="d", tokens=Tokens(forms=["Kim", "saw", "Lee", "He", "left"]),
                   markables=[Markable(id="markable_1", spans=((0, 0),), entity="1"),
                              Markable(id="markable_1", layer="secmark", spans=((3, 3),), entity="1"),
                              Markable(id="markable_2", layer="secmark", spans=((2, 2),))])
    report = Report()
    back = corefio.loads(corefio.dumps(doc, "webanno-tsv", report=report), "webanno-tsv").documents[0]
    assert [sorted(m.spans for m in chain) for chain in back.chains()] == [[((0, 0),), ((3, 3),)]]
    assert len(back.markables) == 2
    assert [(d.code, d.count) for d in report if d.code == "loss.layers"] == [("loss.layers", 2)]


def test_a_discontinuous_mention_is_written_as_one_span_with_its_links():
    """Found by the conversion matrix (pcc-mmax2, ua/TC-O): a discontinuous mention was
    left out, yet a relation to it was written; the file could not be read back."""
    from corefio.diagnostics import Report
    from corefio.model import Document, Markable, Tokens

    doc = Document(name="d", tokens=Tokens(forms=["Kim", "and", "Lee", "met", "they", "left"]),
                   markables=[Markable(id="m1", spans=((0, 0), (2, 2)), entity="1"),
                              Markable(id="m2", spans=((4, 4),), entity="1")])
    report = Report()
    back = corefio.loads(corefio.dumps(doc, "webanno-tsv", report=report), "webanno-tsv").documents[0]
    assert [sorted(m.spans for m in chain) for chain in back.chains()] == [[((0, 2),), ((4, 4),)]]
    assert [(d.code, d.count) for d in report if d.code == "loss.discontinuous"] == [("loss.discontinuous", 1)]


# -- which layer is coreference ---------------------------------------------------------------------
TWO_LAYERS = (
    "#FORMAT=WebAnno TSV 3.3\n"
    "#T_SP=webanno.custom.Referent|entity\n"
    "#T_CH=webanno.custom.EventLink|referenceRelation|referenceType\n"
    "#T_CH=de.tudarmstadt.ukp.dkpro.core.api.coref.type.CoreferenceLink|referenceType|referenceRelation\n"
    "#T_RL=webanno.custom.PluralRef|BT_webanno.custom.Referent\n"
    "\n\n"
    "#Text=Kim met Bo . They left .\n"
    "1-1\t0-3\tKim\tperson[1]\t_\t_\tnam[1]\tcoref->1-1\t_\t\n"
    "1-2\t4-7\tmet\t_\t*->1-1\t*[1]\t_\t_\t_\t\n"
    "1-3\t8-10\tBo\tperson[2]\t_\t_\tnam[2]\t*->2-1\t_\t\n"
    "1-4\t11-12\t.\t_\t_\t_\t_\t_\t_\t\n"
    "1-5\t13-17\tThey\tperson[3]\t_\t_\tpro[1]\t*->1-2\t1-1[1_3]\t\n"
    "1-6\t18-22\tleft\t_\t*->1-2\t*[1]\t_\t_\t_\t\n"
    "1-7\t23-24\t.\t_\t_\t_\t_\t_\t_\t\n"
)


def spans(doc) -> list[list[str]]:
    return sorted(sorted(" ".join(doc.tokens.forms[m.first:m.last + 1]) for m in c) for c in doc.chains())


def test_dkpro_cores_chain_layer_is_read_first_and_the_others_are_kept_and_reported():
    from corefio.diagnostics import Report

    report = Report()
    corpus = corefio.loads(TWO_LAYERS, "webanno-tsv", report=report)
    doc = corpus.documents[0]
    assert spans(doc) == [["Bo"], ["Kim", "They"]]
    note = next(d for d in report if d.code == "webanno.layer-not-read")
    assert note.severity == "warning" and "EventLink" in note.examples[0] and "PluralRef" in note.examples[0]
    assert corefio.dumps(corpus, "webanno-tsv") == TWO_LAYERS  # the other layers kept as written


@pytest.mark.parametrize(("layer", "expected", "links"), [
    ("webanno.custom.EventLink", [["left", "met"]], 0),
    ("webanno.custom.PluralRef", [["Bo"], ["Kim"], ["They"]], 1),
    ("webanno.custom.Referent", [["Bo"], ["Kim"], ["They"]], 1),
])
def test_the_layer_option_reads_another_layer(layer, expected, links):
    corpus = corefio.loads(TWO_LAYERS, "webanno-tsv", layer=layer)
    doc = corpus.documents[0]
    assert spans(doc) == expected and len(doc.links) == links
    if links:  # PluralRef has no type column and no "coref" in its name: a typed link
        assert doc.links[0].type == "relation"
    assert corefio.dumps(corpus, "webanno-tsv") == TWO_LAYERS


def test_an_unknown_layer_option_names_the_layers():
    from corefio.errors import UsageError

    with pytest.raises(UsageError, match="EventLink"):
        corefio.loads(TWO_LAYERS, "webanno-tsv", layer="nope")


def test_syntactic_dependencies_are_not_coreference():
    text = ("#FORMAT=WebAnno TSV 3.3\n#T_SP=de.tudarmstadt.ukp.dkpro.core.api.lexmorph.type.pos.POS|PosValue\n"
            "#T_RL=de.tudarmstadt.ukp.dkpro.core.api.syntax.type.dependency.Dependency|DependencyType|"
            "BT_de.tudarmstadt.ukp.dkpro.core.api.lexmorph.type.pos.POS\n\n\n#Text=Kim left\n"
            "1-1\t0-3\tKim\tNNP\tnsubj\t1-2\t\n1-2\t4-8\tleft\tVBD\t_\t_\t\n")
    from corefio.diagnostics import Report

    report = Report()
    corpus = corefio.loads(text, "webanno-tsv", report=report)
    assert corpus.documents[0].markables == [] and "webanno.layer-not-read" in report.codes()
    assert corefio.dumps(corpus, "webanno-tsv") == text


# -- several documents, document names ----------------------------------------------------------------
def test_several_documents_are_a_zip_of_tsv_files(tmp_path):
    """Issue 9: --to webanno-tsv of several documents kept the first (exit 0)."""
    import zipfile

    from typer.testing import CliRunner

    from corefio.cli import app

    corpus = corefio.read(DATA / "GUM_academic_art.tsv")
    two = corpus.copy(documents=[corpus.documents[0], corefio.read(DATA / "GUM_news_worship.tsv").documents[0]])
    source = tmp_path / "two.conllu"
    corefio.write(two, source)
    target = tmp_path / "out.tsv"
    result = CliRunner().invoke(app, ["convert", str(source), str(target)])
    assert result.exit_code == 2 and "NAME.zip" in result.output and not target.exists()
    out = tmp_path / "out.zip"
    result = CliRunner().invoke(app, ["convert", str(source), str(out), "--to", "webanno-tsv"])
    assert result.exit_code == 0, result.output
    with zipfile.ZipFile(out) as z:
        assert z.namelist() == ["GUM_academic_art.tsv", "GUM_news_worship.tsv"]
    back = corefio.read(out)
    assert [d.name for d in back.documents] == ["GUM_academic_art", "GUM_news_worship"]
    assert [spans(d) for d in back.documents] == [spans(d) for d in two.documents]
    # GUM's own files, zipped and unzipped: byte for byte
    zipped = corefio.dumps(corefio.Corpus(documents=[corefio.read(DATA / f"{n}.tsv").documents[0] for n in GUM]),
                           "webanno-tsv")
    with zipfile.ZipFile(__import__("io").BytesIO(zipped)) as z:
        assert [z.read(f"{n}.tsv") for n in GUM] == [(DATA / f"{n}.tsv").read_bytes() for n in GUM]


def test_the_document_name_a_file_cannot_keep_is_reported():
    """The old xfail of test_muc: WebAnno TSV keeps no document name, and nothing said so."""
    from corefio.diagnostics import Report
    from corefio.model import Document

    doc = Document(name="muc6.key", part="2", tokens={"forms": ["a", "b"]})
    report = Report()
    back = corefio.loads(corefio.dumps(doc, "webanno-tsv", report=report), "webanno-tsv").documents[0]
    assert back.name == "document" and back.part is None
    lost = {d.code: d for d in report}
    assert lost["loss.document-name"].severity == "info" and "muc6.key -> document" in lost["loss.document-name"].examples
    assert lost["loss.document-part"].severity == "warning"
    named = Report("GUM_news_worship.tsv")  # written to a file named after it: nothing lost
    corefio.dumps(corefio.read(DATA / "GUM_news_worship.tsv"), "webanno-tsv", report=named)
    assert not [d for d in named if d.code.startswith("loss.")]
