"""Universal Anaphora CoNLL-U Plus (``.CONLLUA``): reading, writing, conversion to and
from CorefUD CoNLL-U, hostile input."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import corefio
from corefio.cli import app
from corefio.diagnostics import Report
from corefio.errors import FormatError
from corefio.formats import ua
from corefio.model import BRIDGING, SPLIT_ANTECEDENT, Document, Tokens
from corefio.model.schema import validate_document

from .conftest import DATA

UA_DATA = DATA / "ua"
SAMPLES = ["TC-PA.key.CONLLUA", "TC-O.key.CONLLUA", "example.CONLLUA"]

HEADER = "# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC IDENTITY BRIDGING DISCOURSE_DEIXIS\n"


def chains(doc: Document) -> set[frozenset]:
    return {frozenset(m.spans for m in chain) for chain in doc.chains()}


def chain_spans(doc: Document) -> dict[str, frozenset]:
    """Markable ref or entity id → the spans of its chain."""
    out: dict[str, frozenset] = {}
    for chain in doc.chains():
        spans = frozenset(m.spans for m in chain)
        for m in chain:
            out[m.ref] = spans
            if m.entity is not None:
                out[m.entity] = spans
    return out


def relations(doc: Document, link_type: str) -> set[tuple]:
    """(source chain, target chain) of the links of one type: what CorefUD keeps."""
    of = chain_spans(doc)
    return {(of[link.source], of[t]) for link in doc.links if link.type == link_type for t in link.targets}


@pytest.mark.parametrize("name", SAMPLES)
def test_a_sample_is_written_back_byte_for_byte(name, tmp_path):
    data = (UA_DATA / name).read_bytes()
    corpus = corefio.read(UA_DATA / name)
    assert corefio.dumps(corpus, "ua").encode() == data
    # and through the command line, the extension choosing the format
    out = tmp_path / "copy.conllua"
    result = CliRunner().invoke(app, ["convert", str(UA_DATA / name), str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == data


def test_the_plural_sample_reads_split_antecedents_from_space_separated_columns():
    doc = corefio.read(UA_DATA / "TC-PA.key.CONLLUA").documents[0]
    assert doc.name == "PluralTestCases/TC-PA"
    assert len(doc.tokens) == 12
    assert {m.id: (m.spans, m.entity) for m in doc.markables} == {
        "markable_a": (((0, 1),), "1"), "markable_c": (((0, 0),), "2"), "markable_b": (((3, 3),), "1"),
        "markable_d": (((4, 4),), "2"), "markable_e": (((6, 8),), "3"), "markable_f": (((9, 10),), "4"),
        "markable_g": (((11, 11),), "4")}
    splits = [(link.source, link.targets, link.target_kind) for link in doc.links if link.type == SPLIT_ANTECEDENT]
    assert splits == [("markable_f", ("1",), "entity"), ("markable_f", ("2",), "entity")]
    assert doc.markables[0].attributes == {"SemType": "dn"}


def test_a_discontinuous_markable_repeats_its_id():
    doc = corefio.read(UA_DATA / "TC-O.key.CONLLUA").documents[0]
    m = next(m for m in doc.markables if m.id == "markable_2")
    assert m.spans == ((3, 3), (6, 6))


def test_the_example_reads_every_layer():
    doc = corefio.read(UA_DATA / "example.CONLLUA").documents[0]
    by_id = {m.id: m for m in doc.markables}
    assert by_id["markable_3"].min == ((5, 5),)
    # -Pseudo: non-referring, kept for the UA scorer
    assert by_id["markable_7"].entity == "7-Pseudo"
    assert by_id["markable_7"].attributes["referentiality"] == "non_referring"
    # discourse deixis: a layer of its own, its chains apart from identity
    dd = [m for m in doc.markables if m.layer == ua.DD_LAYER]
    assert [(m.id, m.spans, m.sets) for m in dd] == [
        ("dd_markable_1", ((0, 5),), {"discourse_deixis": "1-DD"}),
        ("dd_markable_2", ((9, 13),), {"discourse_deixis": "2-DD"}),
        ("dd_markable_3", ((16, 16),), {"discourse_deixis": "2-DD"})]
    assert all(m.entity is None for m in dd)
    bridging = [link for link in doc.links if link.type == BRIDGING]
    assert [(b.source, b.targets, b.attributes) for b in bridging] == [
        ("markable_5", ("markable_3",), {"relation": "part-of"})]
    assert doc.tokens.attributes["nom_sem"][0] == "Entity_Type=person"


@pytest.mark.parametrize("name", SAMPLES)
def test_canonical_writing_reads_back_the_same(name):
    corpus = corefio.read(UA_DATA / name)
    text = ua.dumps(corpus, canonical=True)
    assert text != (UA_DATA / name).read_text() or name == "example.CONLLUA"
    back = ua.loads(text)
    for doc, again in zip(corpus.documents, back.documents):
        assert again.markables == doc.markables
        assert again.links == doc.links
        assert again.tokens.forms == doc.tokens.forms


@pytest.mark.parametrize("name", SAMPLES)
def test_conversion_to_corefud_and_back_keeps_chains_bridging_and_split_antecedents(name):
    corpus = corefio.read(UA_DATA / name)
    conllu_text = corefio.dumps(corpus, "conllu")
    via = corefio.loads(conllu_text, "conllu")
    back = corefio.loads(corefio.dumps(via, "ua"), "ua")
    for doc, middle, again in zip(corpus.documents, via.documents, back.documents):
        identity = Document.build(**{**doc.field_values(), "markables": [m for m in doc.markables if m.layer is None],
                                     "layout": {}})
        for other in (middle, again):
            assert chains(other) == chains(identity)
            assert relations(other, BRIDGING) == relations(doc, BRIDGING)
            assert relations(other, SPLIT_ANTECEDENT) == relations(doc, SPLIT_ANTECEDENT)
        assert [m.min for m in again.markables] == [None] * len(again.markables)  # CorefUD has no MIN


def test_conversion_from_corefud_keeps_split_antecedents_and_bridging():
    text = ("# newdoc id = d\n# global.Entity = eid-etype-head-other\n# sent_id = 1\n# text = John Mary they the door\n"
            "1\tJohn\t_\t_\t_\t_\t_\t_\t_\tEntity=(e1-person-1-)\n"
            "2\tMary\t_\t_\t_\t_\t_\t_\t_\tEntity=(e2-person-1-)\n"
            "3\tthey\t_\t_\t_\t_\t_\t_\t_\tEntity=(e3-person-1-)|SplitAnte=e1<e3,e2<e3\n"
            "4\tthe\t_\t_\t_\t_\t_\t_\t_\tBridge=e2<e4:part|Entity=(e4-object-2-\n"
            "5\tdoor\t_\t_\t_\t_\t_\t_\t_\tEntity=e4)\n\n")
    corpus = corefio.loads(text, "conllu")
    written = corefio.dumps(corpus, "ua")
    # the bridging item spans the anaphor, its anchor named by a mention too (the UA scorers read MentionAnchor)
    assert "ElementOf=e3" in written and "\t(MarkableID=markable_4|Rel=part|MentionAnchor=markable_2|EntityAnchor=e2\t" \
        in written
    back = corefio.loads(written, "ua")
    doc, again = corpus.documents[0], back.documents[0]
    assert chains(again) == chains(doc)
    assert relations(again, BRIDGING) == relations(doc, BRIDGING)
    assert relations(again, SPLIT_ANTECEDENT) == relations(doc, SPLIT_ANTECEDENT)
    assert again.markables[0].attributes["etype"] == "person"


def test_tabs_spaces_and_missing_last_columns_read_alike():
    tabs = HEADER + "# newdoc id = d\n1\tJohn\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1|MarkableID=m1)\t\t\n2\the\n\n"
    spaces = HEADER + "# newdoc id = d\n1  John  _ _ _ _ _ _ _ _   (EntityID=1|MarkableID=m1)\n2 he _ _\n\n"
    a, b = ua.loads(tabs).documents[0], ua.loads(spaces).documents[0]
    assert a.markables == b.markables and a.tokens.forms == b.tokens.forms == ["John", "he"]


def test_a_changed_document_is_written_anew():
    corpus = corefio.read(UA_DATA / "TC-PA.key.CONLLUA")
    doc = corpus.documents[0]
    editor = doc.edit()
    editor.remove_markables(["markable_g"])
    edited = editor.commit()
    # a copy that keeps the layout of the file is not written from it either
    copied = doc.copy(markables=doc.markables[:-1])
    assert "ua" in copied.layout
    for changed in (edited, copied):
        text = ua.dumps(type(corpus)(documents=[changed]))
        assert "markable_g" not in text and "markable_f" in text
        assert ua.loads(text).documents[0].markables == changed.markables


HOSTILE = {
    "too many columns": (HEADER + "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\textra\n\n", 2, "columns"),
    "a dangling mention anchor": (HEADER + "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1|MarkableID=m1)\t"
                                  "(MarkableID=m1|Rel=poss|MentionAnchor=m9)\t_\n\n", 2, "MentionAnchor=m9"),
    "a dangling bridging markable": (HEADER + "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1|MarkableID=m1)\t"
                                     "(MarkableID=m7|MentionAnchor=m1)\t_\n\n", 2, "MarkableID=m7"),
    "a markable never closed": (HEADER + "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\n"
                                "2\tb\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1|MarkableID=m1\t_\t_\n\n", 3, "never closed"),
    "a closing bracket too many": (HEADER + "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\t)\t_\t_\n\n", 2, "closing bracket"),
    "Min outside the document": (HEADER + "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1|MarkableID=m1|Min=9)\t_\t_\n\n",
                                 2, "Min=9"),
    "garbage in the identity column": (HEADER + "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\tEntityID=1\t_\t_\n\n", 2, "cannot read"),
    # found by the fuzzer: the first document's comment moved into the second, whose
    # written form could not be read back
    "a document without sentences": (HEADER + "# newdoc id = a\n# newdoc id = b\n"
                                      "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\n\n", 3, "without sentences"),
    "a token id that is no number": (HEADER + "x\ta\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\n\n", 2, "no number"),
    "a word line of one column": (HEADER + "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\n2\n\n", 3, "an ID and a FORM"),
    "columns not starting with ID FORM": ("# global.columns = FORM ID IDENTITY\n1\ta\t_\n\n", 1, "ID FORM"),
    "a bridging item without anchor": (HEADER + "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1|MarkableID=m1)\t"
                                       "(MarkableID=m1|Rel=poss)\t_\n\n", 2, "MentionAnchor or EntityAnchor"),
}


@pytest.mark.parametrize("case", HOSTILE, ids=list(HOSTILE))
def test_hostile_input_is_a_located_error(case, tmp_path):
    text, line, words = HOSTILE[case]
    with pytest.raises(FormatError) as caught:
        ua.loads(text, file="bad.conllua")
    assert caught.value.line == line
    assert words in str(caught.value)
    path = tmp_path / "bad.conllua"
    path.write_text(text)
    result = CliRunner().invoke(app, ["convert", str(path), str(tmp_path / "out.conllu")])
    assert result.exit_code == 3, result.output


def test_the_extension_and_the_content_name_the_format(tmp_path):
    assert corefio.get_format("conllua").name == "ua"
    path = tmp_path / "x.CONLLUA"
    path.write_bytes((UA_DATA / "example.CONLLUA").read_bytes())
    from corefio.formats.registry import detect_format
    assert detect_format(path).name == "ua"
    assert ua.sniff((UA_DATA / "TC-PA.key.CONLLUA").read_bytes()[:4096])


def test_a_value_with_a_separator_is_a_reported_loss():
    doc = validate_document({"name": "d", "tokens": {"forms": ["a", "b"]},
                             "markables": [{"id": "m1", "spans": ((0, 0),), "entity": "1", "attributes": {"note": "x|y"}}]})
    report = Report()
    text = corefio.dumps(doc, "ua", report=report)
    assert "note=x_y" in text
    assert "loss.value" in {d.code for d in report}


def test_the_columns_line_added_to_a_file_takes_its_line_ends(tmp_path):
    """Found by the fuzzer: a file with CR line ends and no ``# global.columns`` line was
    written back with an LF after the added line, and could not be read again."""
    import corefio

    for newline in ("\r", "\r\n", "\n"):
        path = tmp_path / "cr.conllua"
        path.write_bytes(f"1\tx{newline}2\ty{newline}".encode())
        written = corefio.dumps(corefio.read(path), "ua")
        assert written.startswith("# global.columns") and written.count(newline) == 3
        again = tmp_path / "again.conllua"
        again.write_bytes(written.encode())
        assert corefio.read(again).documents[0].tokens.forms == ["x", "y"]


def test_a_markable_of_another_layer_in_a_chain_is_written_as_its_mention():
    """Found by the conversion matrix (pcc-mmax2 → ua): the secmark markables in chains
    were dropped, where every other writer keeps them as mentions of their chain."""
    from corefio.model import Markable

    doc = Document(name="d", tokens=Tokens(forms=["Kim", "saw", "Lee", "He", "left"]),
                   markables=[Markable(id="markable_1", spans=((0, 0),), entity="1"),
                              Markable(id="markable_1", layer="secmark", spans=((3, 3),), entity="1"),
                              Markable(id="markable_2", layer="secmark", spans=((2, 2),)),
                              Markable(id="dd_1", layer=ua.DD_LAYER, spans=((1, 2),), sets={ua.DD_LAYER: "1-DD"})])
    report = Report()
    back = ua.loads(corefio.dumps(doc, "ua", report=report)).documents[0]
    assert chains(back) == {frozenset({((0, 0),), ((3, 3),)})}
    assert [(m.layer, m.spans) for m in back.markables if m.layer is not None] == [(ua.DD_LAYER, ((1, 2),))]
    assert len({m.id for m in back.markables if m.layer is None}) == 2
    assert [(d.code, d.count) for d in report if d.code == "loss.layers"] == [("loss.layers", 2)]


TWO_SENTENCES = (HEADER + "1\tKim\t_\t_\t_\t_\t2\tnsubj\t2:nsubj\t_\t_\t_\t_\n2\tleft\t_\t_\t_\t_\t0\troot\t0:root\t_\t_\t_\t_\n\n"
                 "3\tShe\t_\t_\t_\t_\t4\tnsubj\t4:nsubj\t_\t_\t_\t_\n4\tsmiled\t_\t_\t_\t_\t0\troot\t0:root\t_\t_\t_\t_\n\n")


def test_head_and_deps_count_within_the_sentence_in_the_model_and_through_the_document_in_ua():
    """Found by the conversion matrix (ua/example → conllu): HEAD kept UA's document-wide
    token numbers, which in CoNLL-U (ids from 1 in each sentence) name other words."""
    doc = ua.loads(TWO_SENTENCES).documents[0]
    assert doc.tokens.attributes["head"] == ["2", "0", "2", "0"]
    assert doc.tokens.attributes["deps"] == ["2:nsubj", "0:root", "2:nsubj", "0:root"]
    conllu = corefio.dumps(doc, "conllu")
    assert "1\tShe\t_\t_\t_\t_\t2\tnsubj\t2:nsubj\t" in conllu
    canonical = ua.dumps(ua.loads(TWO_SENTENCES), canonical=True)
    assert [line for line in canonical.splitlines() if line[:1].isdigit()] == \
        [line for line in TWO_SENTENCES.splitlines() if line[:1].isdigit()]
    # and from CoNLL-U: the heads count through the document again
    again = corefio.dumps(corefio.loads(conllu, "conllu"), "ua")
    assert "3\tShe\t_\t_\t_\t_\t4\tnsubj\t4:nsubj\t" in again


def _dd_case(identity: dict[int, str], dd: dict[int, str]) -> str:
    """A document whose plurals are in both columns (as the CODI-CRAC files have them)."""
    words = "John left . Mary stayed . They argued about that and it hurt .".split()
    rows = [HEADER + "# newdoc id = dd\n# sent_id = dd-1\n"]
    for i, w in enumerate(words, 1):
        rows.append("\t".join([str(i), w] + ["_"] * 8 + [identity.get(i, "_"), "_", dd.get(i, "_")]) + "\n")
    return "".join(rows) + "\n"


DD_KEY = _dd_case({1: "(EntityID=1|MarkableID=m1|ElementOf=3)", 4: "(EntityID=2|MarkableID=m2|ElementOf=3)",
                   7: "(EntityID=3|MarkableID=m3)", 10: "(EntityID=4|MarkableID=m4|ElementOf=3-DD)",
                   12: "(EntityID=5|MarkableID=m5)"},
                  {1: "(EntityID=1-DD|MarkableID=d1|ElementOf=3-DD", 2: ")",
                   4: "(EntityID=2-DD|MarkableID=d2|ElementOf=3-DD", 5: ")",
                   10: "(EntityID=3-DD|MarkableID=d3)", 12: "(EntityID=3-DD|MarkableID=d4)"})
DD_RESPONSE = _dd_case({1: "(EntityID=1|MarkableID=m1|ElementOf=3)", 4: "(EntityID=2|MarkableID=m2)",
                        7: "(EntityID=3|MarkableID=m3)", 10: "(EntityID=4|MarkableID=m4|ElementOf=3-DD)",
                        12: "(EntityID=4|MarkableID=m5)"},
                       {1: "(EntityID=1-DD|MarkableID=d1|ElementOf=3-DD", 2: ")",
                        4: "(EntityID=2-DD|MarkableID=d2", 5: ")",
                        10: "(EntityID=3-DD|MarkableID=d3)", 12: "(EntityID=3-DD|MarkableID=d4)"})


def test_element_of_a_discourse_deixis_entity_reads_and_writes_back():
    """ElementOf=3-DD (in either column) names a discourse-deixis chain: it was refused
    (plurals were looked up among identity entities only); the CODI-CRAC files have it."""
    doc = ua.loads(DD_KEY).documents[0]
    splits = sorted((link.source, link.targets, link.target_kind) for link in doc.links
                    if link.type == SPLIT_ANTECEDENT)
    assert splits == sorted([("discourse_deixis:d3", ("discourse_deixis:d1",), "markable"),
                             ("discourse_deixis:d3", ("discourse_deixis:d2",), "markable"),
                             ("discourse_deixis:d3", ("4",), "entity"),
                             ("m3", ("1",), "entity"), ("m3", ("2",), "entity")])
    back = ua.loads(ua.dumps(ua.loads(DD_KEY), canonical=True)).documents[0]
    assert sorted((link.source, link.targets, link.target_kind) for link in back.links) == splits


def test_discourse_deixis_with_split_antecedents_scores_as_the_ua_scorer(tmp_path):
    """UA scorer 2.0 (juntaoy/universal-anaphora-scorer v2.0-Beta-Michal 127ba3d),
    ``python ua-scorer.py key response -d -m muc bcub ceafe ceafm blanc lea``: the
    discourse-deixis chains get their split antecedents (the response misses one element);
    the identity ElementOf=3-DD counts for neither kind of chain. Its printed values."""
    from corefio.scoring import anaphora as S

    key, response = tmp_path / "key.CONLLUA", tmp_path / "response.CONLLUA"
    key.write_text(DD_KEY)
    response.write_text(DD_RESPONSE)
    settings = S.AnaphoraSettings(metrics=("muc", "bcub", "ceafe", "ceafm", "blanc", "lea"), discourse_deixis=True,
                                  split_antecedents=True)
    got = S.score_files(key, response, settings, key_format="ua", response_format="ua").sections
    want_dd = {"muc": (75.00, 100.00, 85.71), "bcub": (81.67, 100.00, 89.91), "ceafe": (96.30, 96.30, 96.30),
               "ceafm": (93.33, 93.33, 93.33), "blanc": (52.38, 52.38, 52.38), "lea": (80.00, 100.00, 88.89)}
    for name, values in want_dd.items():
        assert tuple(round(float(x) * 100, 2) for x in got["discourse_deixis"][name]) == values, name
    # ``-l -m muc bcub ceafe``: identity with split antecedents
    want_split = {"muc": (50.00, 50.00, 50.00), "bcub": (85.42, 83.33, 84.36), "ceafe": (70.00, 87.50, 77.78)}
    for name, values in want_split.items():
        assert tuple(round(float(x) * 100, 2) for x in got["split_antecedents"][name]) == values, name


def test_element_of_an_entity_the_document_lacks_is_kept_and_reported():
    text = HEADER + "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1|MarkableID=m1|ElementOf=5)\t_\t_\n\n"
    report = Report()
    corpus = ua.loads(text, report=report)
    doc = corpus.documents[0]
    assert doc.markables[0].attributes["ElementOf"] == "5" and not doc.links
    assert report.by_code("ua.element-of-unknown")
    assert "ElementOf=5" in ua.dumps(corpus, canonical=True)
    with pytest.raises(FormatError) as caught:
        ua.loads(text, strict=True, file="bad.conllua")
    assert caught.value.line == 2 and "ElementOf=5" in str(caught.value)
