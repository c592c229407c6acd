"""Regressions found by a newcomer's trial of Universal Anaphora and CorefUD files, each on
a small file built here (the real files are in ``tests/test_conllu_ua_written.py``):

* multi-word-token lines written to UA with every column of the header (the UA scorers
  read the ``IDENTITY`` and ``BRIDGING`` columns of every line and failed on ten);
* bridging written in brackets over the anaphor with a ``MentionAnchor`` (both UA scorers
  read it; version 1 failed without it), and a mention anchor that CorefUD's ``Bridge``
  cannot say reported when converting to CoNLL-U;
* bridging link types other than ``bridging`` (MMAX2's ``bridging_antecedent``) written
  as bridging to UA and CoNLL-U, reported as the loss of their name; an MMAX2 project's
  bridging pointers reach both when its markables are mentions (its identity pointer
  known), and are reported lost with their level otherwise (yuliagrishina/corefpro's
  bridging corpus shows both; it is CC BY-NC-SA, so a project of its layout is built here);
* a ``)`` without opener (or an opener never closed) in the ``BRIDGING`` column, and a
  CorefUD head that is no word position, are located errors for ``read`` and ``validate``.
"""

from __future__ import annotations

import pytest

import corefio
from corefio.diagnostics import Report
from corefio.errors import FormatError
from corefio.formats import conllu, ua
from corefio.model import BRIDGING
from corefio.model.schema import validate_document

HEADER = ("# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC IDENTITY BRIDGING "
          "DISCOURSE_DEIXIS REFERENCE NOM_SEM\n")

#: French with a multi-word token in each sentence ("au" = "à le"), one chain of two mentions
MWT = ("# newdoc id = d\n# global.Entity = eid-etype-head-other\n"
       "# sent_id = 1\n# text = Il va au marché\n"
       "1\tIl\til\tPRON\t_\t_\t2\tnsubj\t_\tEntity=(e1--1)\n"
       "2\tva\taller\tVERB\t_\t_\t0\troot\t_\t_\n"
       "3-4\tau\t_\t_\t_\t_\t_\t_\t_\t_\n"
       "3\tà\tà\tADP\t_\t_\t5\tcase\t_\t_\n"
       "4\tle\tle\tDET\t_\t_\t5\tdet\t_\tEntity=(e2--2\n"
       "5\tmarché\tmarché\tNOUN\t_\t_\t2\tobl\t_\tEntity=e2)\n\n"
       "# sent_id = 2\n# text = Il va au marché\n"
       "1\tIl\til\tPRON\t_\t_\t2\tnsubj\t_\tEntity=(e1--1)\n"
       "2\tva\taller\tVERB\t_\t_\t0\troot\t_\t_\n"
       "3-4\tau\t_\t_\t_\t_\t_\t_\t_\t_\n"
       "3\tà\tà\tADP\t_\t_\t5\tcase\t_\t_\n"
       "4\tle\tle\tDET\t_\t_\t5\tdet\t_\t_\n"
       "5\tmarché\tmarché\tNOUN\t_\t_\t2\tobl\t_\t_\n\n")


def _rows(text: str) -> list[list[str]]:
    return [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]


def _doc(read):
    """The document of a one-document text (``loads`` gives a corpus or its document)."""
    return read.documents[0] if hasattr(read, "documents") else read


def chains(doc) -> set[frozenset]:
    return {frozenset(m.spans for m in chain) for chain in doc.chains()}


# -- multi-word tokens -------------------------------------------------------------------------------
def test_multi_word_token_lines_get_every_column_and_the_documents_numbering():
    corpus = corefio.loads(MWT, "conllu")
    written = corefio.dumps(corpus, "ua")
    rows = _rows(written)
    assert {len(r) for r in rows} == {15}
    ranges = [r for r in rows if "-" in r[0]]
    # UA numbers the words of the document: the second sentence's "3-4" follows word 7
    assert [r[:2] for r in ranges] == [["3-4", "au"], ["8-9", "au"]]
    assert all(cell == "_" for r in ranges for cell in r[2:])
    back = corefio.loads(written, "ua")
    assert chains(_doc(back)) == chains(_doc(corpus))
    # and back to CoNLL-U: the range lines number the words of their sentence again
    again = corefio.dumps(back, "conllu")
    assert [r[0] for r in _rows(again) if "-" in r[0]] == ["3-4", "3-4"]
    assert all(len(r) == 10 for r in _rows(again))


def test_a_ua_multi_word_token_line_with_anaphora_columns_is_written_with_empty_ones():
    text = (HEADER + "# newdoc id = d\n"
            "1\tIl\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1|MarkableID=m1)\t_\t_\t_\t_\n"
            "2-3\tau\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\n"
            "2\tà\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\n"
            "3\tle\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1|MarkableID=m2)\t_\t_\t_\t_\n\n")
    assert ua.dumps(corefio.loads(text, "ua")) == text  # a UA file's line is kept as it was


# -- bridging ----------------------------------------------------------------------------------------
BRIDGING_UA = (HEADER + "# newdoc id = d1\n# sent_id = 1\n"
               "1\tThe\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1|MarkableID=m1\t_\t_\t_\t_\n"
               "2\thouse\t_\t_\t_\t_\t_\t_\t_\t_\t)\t_\t_\t_\t_\n"
               "3\twas\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\n\n"
               "# sent_id = 2\n"
               "4\tIt\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1|MarkableID=m2)\t_\t_\t_\t_\n"
               "5\thad\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\n"
               "6\ta\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=2|MarkableID=m3\t(MarkableID=m3|Rel=poss|MentionAnchor=ANCHOR|"
               "EntityAnchor=1\t_\t_\t_\n"
               "7\tdoor\t_\t_\t_\t_\t_\t_\t_\t_\t)\t)\t_\t_\t_\n\n")


@pytest.mark.parametrize("anchor", ["m1", "m2"])
def test_bridging_is_read_and_written_over_the_anaphor_with_its_mention_anchor(anchor):
    text = BRIDGING_UA.replace("ANCHOR", anchor)
    corpus = corefio.loads(text, "ua")
    (link,) = [link for link in _doc(corpus).links if link.type == BRIDGING]
    assert (link.source, link.targets, link.attributes["relation"]) == ("m3", (anchor,), "poss")
    assert ua.dumps(corpus) == text
    rewritten = corefio.dumps(_doc(corpus).copy(layout={}), "ua")  # written anew
    rows = _rows(rewritten)
    assert [r[11] for r in rows][5:] == [f"(MarkableID=m3|Rel=poss|MentionAnchor={anchor}|EntityAnchor=1", ")"]


@pytest.mark.parametrize("anchor, lost", [("m2", 0), ("m1", 1)])
def test_ua_to_corefud_and_back_keeps_the_closest_anchor_and_reports_another(anchor, lost):
    """CorefUD's Bridge names the anchor's entity; read back (and scored), it stands for
    the entity's closest mention before the anaphor. An anchor that is another mention is
    the exact loss reported."""
    corpus = corefio.loads(BRIDGING_UA.replace("ANCHOR", anchor), "ua")
    report = Report()
    text = corefio.dumps(corpus, "conllu", report=report)
    assert "Bridge=1<2:poss" in text
    found = [d for d in report if d.code == "loss.bridging-anchor"]
    assert sum(d.count or 1 for d in found) == lost
    back = corefio.loads(text, "conllu")
    report = Report()
    again = corefio.loads(corefio.dumps(back, "ua", report=report), "ua")
    (link,) = [link for link in _doc(again).links if link.type == BRIDGING]
    (target,) = [m for m in _doc(again).markables if m.ref == link.targets[0]]
    assert target.spans == ((3, 3),)  # "It", the closest mention before the anaphor
    assert "ua.mention-anchor" in {d.code for d in report}
    with pytest.raises(Exception) if lost else _nothing():
        corefio.dumps(corpus, "conllu", strict=True)


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False


def test_a_bridging_link_to_an_entity_gets_the_mention_anchor_the_scorer_uses():
    doc = validate_document({
        "name": "d", "tokens": {"forms": ["a", "b", "c", "d", "e"]},
        "markables": [{"id": "x1", "spans": ((0, 0),), "entity": "E"}, {"id": "x2", "spans": ((1, 1),), "entity": "E"},
                      {"id": "x3", "spans": ((4, 4),), "entity": "E"}, {"id": "y", "spans": ((2, 3),), "entity": "F"}],
        "links": [{"id": "l", "type": "bridging", "source": "y", "targets": ("E",), "target_kind": "entity"}]})
    rows = _rows(corefio.dumps(doc, "ua"))
    assert [r[11] for r in rows] == ["_", "_", "(MarkableID=y|MentionAnchor=x2|EntityAnchor=E", ")", "_"]


@pytest.mark.parametrize("fmt", ["ua", "conllu"])
def test_a_bridging_type_of_another_name_is_written_as_bridging_and_its_name_reported(fmt):
    doc = validate_document({
        "name": "d", "tokens": {"forms": ["a", "b", "c"]},
        "markables": [{"id": "m1", "spans": ((0, 0),), "entity": "1"}, {"id": "m2", "spans": ((1, 2),), "entity": "2"}],
        "links": [{"id": "l", "type": "bridging_antecedent", "source": "m2", "targets": ("m1",)}]})
    report = Report()
    text = corefio.dumps(doc, fmt, report=report)
    (name,) = [d for d in report if d.code == "loss.link-type-name"]
    assert "bridging_antecedent" in name.message + str(name.examples)
    back = _doc(corefio.loads(text, fmt))
    links = [(link.type, link.source) for link in back.links]
    assert links == [(BRIDGING, "m2")] if fmt == "ua" else [t for t, _ in links] == [BRIDGING]


# -- errors ------------------------------------------------------------------------------------------
STRAY = (HEADER + "# newdoc id = d\n"
         "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1|MarkableID=m1)\t_\t_\t_\t_\n"
         "2\tb\t_\t_\t_\t_\t_\t_\t_\t_\t_\t)\t_\t_\t_\n\n")
UNCLOSED = (HEADER + "# newdoc id = d\n"
            "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1|MarkableID=m1)\t_\t_\t_\t_\n"
            "2\tb\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=2|MarkableID=m2)\t(MarkableID=m2|MentionAnchor=m1\t_\t_\t_\n\n")


@pytest.mark.parametrize("text, line, words", [(STRAY, 4, "without an open bridging item"),
                                               (UNCLOSED, 4, "never closed")])
def test_a_bridging_bracket_without_its_pair_is_a_located_error(text, line, words, tmp_path):
    with pytest.raises(FormatError) as caught:
        ua.loads(text, file="bad.CONLLUA")
    assert caught.value.line == line and words in str(caught.value)
    path = tmp_path / "bad.CONLLUA"
    path.write_text(text, encoding="utf-8")
    report = corefio.validate(path)
    assert [(d.line, words in d.message) for d in report.errors] == [(line, True)]


@pytest.mark.parametrize("head", ["x", "0", "3"])
def test_a_corefud_head_that_is_no_word_position_is_a_located_error(head, tmp_path):
    text = ("# newdoc id = d\n# global.Entity = eid-etype-head-other\n"
            "1\ta\ta\tX\tX\t_\t0\troot\t_\tEntity=(e1--1)\n"
            f"2\tb\tb\tX\tX\t_\t1\tdep\t_\tEntity=(e1--{head}\n"
            "3\tc\tc\tX\tX\t_\t1\tdep\t_\tEntity=e1)\n\n")
    with pytest.raises(FormatError) as caught:
        conllu.loads(text, file="t.conllu")
    assert caught.value.line == 4 and f"head {head!r}" in str(caught.value)
    path = tmp_path / "t.conllu"
    path.write_text(text, encoding="utf-8")
    assert [d.line for d in corefio.validate(path).errors] == [4]
    # a head among the mention's two words reads
    head_of = _doc(corefio.loads(text.replace(f"--{head}", "--2"), "conllu")).markables[1].head
    assert head_of == ((2, 2),)


# -- MMAX2 bridging pointers -------------------------------------------------------------------------
def _mmax2_project(root) -> object:
    """A small MMAX2 project laid out as yuliagrishina/corefpro's bridging corpus: one
    level ``primmark`` whose pointers ``identical_antecedent`` (identity) and
    ``Bridging_antecedent`` (bridging) point to markables of the same level."""
    (root / "basedata").mkdir()
    (root / "scheme").mkdir()
    (root / "markables").mkdir()
    words = ["Das", "Haus", "ist", "alt", ".", "Es", "hat", "eine", "Tür", "."]
    (root / "basedata" / "doc_words.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<words>\n'
        + "".join(f'<word id="word_{i}">{w}</word>\n' for i, w in enumerate(words, 1)) + "</words>\n",
        encoding="utf-8")
    (root / "doc.mmax").write_text('<?xml version="1.0" encoding="UTF-8"?>\n<mmax_project>\n'
                                   "<words>doc_words.xml</words>\n</mmax_project>\n", encoding="utf-8")
    (root / "common_paths.xml").write_text(
        '<?xml version="1.0"?>\n<common_paths>\n<basedata_path>basedata/</basedata_path>\n'
        "<scheme_path>scheme/</scheme_path>\n<style_path>scheme/</style_path>\n"
        "<customization_path>scheme/</customization_path>\n<markable_path>markables/</markable_path>\n"
        '<annotations>\n<level name="primmark" schemefile="primmark_scheme.xml">$_primmark_level.xml</level>\n'
        "</annotations>\n</common_paths>\n", encoding="utf-8")
    (root / "scheme" / "primmark_scheme.xml").write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<annotationscheme>\n'
        '<attribute id="level_identity" name="identical_antecedent" type="markable_pointer"/>\n'
        '<attribute id="level_bridging_antecedent" name="Bridging_antecedent" type="markable_pointer"/>\n'
        '<attribute id="level_bridging_type" name="bridging_type" type="nominal_list">\n'
        '<value id="v1" name="part-of"/>\n</attribute>\n</annotationscheme>\n', encoding="utf-8")
    (root / "markables" / "doc_primmark_level.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<markables xmlns="www.eml.org/NameSpaces/primmark">\n'
        '<markable id="markable_1" span="word_1..word_2" identical_antecedent="empty" bridging_antecedent="empty" '
        'mmax_level="primmark"/>\n'
        '<markable id="markable_2" span="word_6" identical_antecedent="markable_1" bridging_antecedent="empty" '
        'mmax_level="primmark"/>\n'
        '<markable id="markable_3" span="word_8..word_9" identical_antecedent="empty" '
        'bridging_antecedent="markable_1" bridging_type="part-of" mmax_level="primmark"/>\n'
        "</markables>\n", encoding="utf-8")
    return root / "doc.mmax"


@pytest.mark.parametrize("fmt", ["ua", "conllu"])
def test_mmax2_bridging_pointers_are_written_as_bridging(fmt, tmp_path):
    project = _mmax2_project(tmp_path)
    corpus = corefio.read(project, "mmax2", identity_attribute="identical_antecedent")
    report = Report()
    text = corefio.dumps(corpus, fmt, report=report)
    rows = _rows(text)
    if fmt == "ua":
        # the anaphor "eine Tür" in brackets, its anchor the mention "Das Haus" (the
        # closest of its entity before the anaphor is "Es": the pointer says which)
        assert [(r[0], r[11]) for r in rows if r[11] != "_"] == [
            ("8", "(MarkableID=markable_3|MentionAnchor=markable_1|EntityAnchor=1"), ("9", ")")]
        assert "loss.bridging-anchor" not in {d.code for d in report}
    else:
        assert sum("Bridge=" in r[9] for r in rows) == 1
        # Bridge names the entity: read back, its anchor is "Es", not the "Das Haus" pointed to
        assert "loss.bridging-anchor" in {d.code for d in report}
    assert "loss.link-type-name" in {d.code for d in report}
    back = _doc(corefio.loads(text, fmt))
    (link,) = [link for link in back.links if link.type == BRIDGING]
    source = [m for m in back.markables if m.ref == link.source][0]
    assert source.spans == ((7, 8),)


@pytest.mark.parametrize("fmt", ["ua", "conllu"])
def test_mmax2_bridging_of_markables_in_no_written_layer_is_reported(fmt, tmp_path):
    """Without an identity attribute the level's markables are in no chain: the writers
    leave them out, and their links with them, and say so."""
    project = _mmax2_project(tmp_path)
    report = Report()
    corefio.dumps(corefio.read(project, "mmax2", identity_attribute="none"), fmt, report=report)
    lost = {d.code: d for d in report}
    assert "loss.layers" in lost and "loss.layer-links" in lost
    assert lost["loss.layer-links"].count == 2  # the identity pointer and the bridging pointer
