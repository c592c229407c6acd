"""What formats that write chains lose of WebAnno TSV's relation types, reported exactly.

GUM's WebAnno TSV gives each coreference relation a type (``coref``, ``ana``,
``appos``...), read as an attribute of an identity link. CoNLL-U and UA keep the
attributes of the bridging links they write but write identity links as chains: the
types are lost there as they are in CoNLL and jsonlines, and the loss report says so
(``loss.link-attributes``), counted as the independent counter of tests/oracle.py counts
the typed relations. A small file built here and Pepper's GUM test file
(tests/data/wild/webanno-tsv) are checked.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import corefio
from corefio.diagnostics import Report

from . import oracle

WILD = Path(__file__).parent / "data" / "wild" / "webanno-tsv" / "GUM_webanno_test.tsv"

#: INCEpTION's way: one-token mentions alone on their token have no annotation id (0 in a
#: relation, the row alone when neither end has one); "the old man" has id 1
BUILT = """#FORMAT=WebAnno TSV 3.3
#T_SP=webanno.custom.Referent|entity
#T_RL=webanno.custom.Coref|type|BT_webanno.custom.Referent


#Text=Mary met the old man , her friend .
1-1\t0-4\tMary\tperson\tana\t1-7\t
1-2\t5-8\tmet\t_\t_\t_\t
1-3\t9-12\tthe\tperson[1]\tappos\t1-8[0_1]\t
1-4\t13-16\told\tperson[1]\t_\t_\t
1-5\t17-20\tman\tperson[1]\t_\t_\t
1-6\t21-22\t,\t_\t_\t_\t
1-7\t23-26\ther\tperson\t_\t_\t
1-8\t27-33\tfriend\tperson\t_\t_\t
1-9\t34-35\t.\t_\t_\t_\t
"""

#: formats that write chains, not identity links, and keep no link attributes of them
CHAIN_FORMATS = ("conllu", "ua", "conll", "jsonlines")
NAMES = {"conllu": "out.conllu", "ua": "out.conllua", "conll": "out.conll", "jsonlines": "out.jsonlines"}


def _built(tmp_path: Path) -> Path:
    path = tmp_path / "built.tsv"
    path.write_text(BUILT, encoding="utf-8")
    return path


def _typed(path: Path) -> Counter:
    """The relation types of identity relations, as tests/oracle.py counts them."""
    return sum((doc.identity_types for doc in oracle.parse(path, "webanno-tsv")), Counter())


def _link_attribute_losses(report: Report) -> list:
    return [d for d in report if d.code == "loss.link-attributes"]


@pytest.mark.parametrize("target", CHAIN_FORMATS)
@pytest.mark.parametrize("which", ["built", "wild"])
def test_relation_types_lost_in_chains_are_reported_with_their_count(which, target, tmp_path):
    source = _built(tmp_path) if which == "built" else WILD
    typed = _typed(source)
    assert typed == (Counter(ana=1, appos=1) if which == "built" else Counter(coref=106, ana=11, appos=5))
    report = corefio.convert(source, tmp_path / NAMES[target], "webanno-tsv", target)
    (loss,) = _link_attribute_losses(report)
    assert loss.severity == "warning"
    assert loss.count == sum(typed.values())
    # the example counts the values lost, the rarest kinds included
    for kind, n in typed.items():
        assert f"type={kind} ×{n}" in loss.examples[0]
    if target in ("conllu", "ua"):  # they keep bridging links' attributes: the message says which are lost
        assert "attributes of identity links" in loss.message
    # and the written file holds no trace of them: read back, no link has attributes
    back = corefio.read(tmp_path / NAMES[target], target)
    assert not any(link.attributes for doc in back.documents for link in doc.links)


def test_the_types_come_back_as_coref_after_a_chain_format_and_that_was_reported(tmp_path):
    source = _built(tmp_path)
    first = corefio.convert(source, tmp_path / "out.conllu", "webanno-tsv", "conllu")
    assert _link_attribute_losses(first)
    corefio.convert(tmp_path / "out.conllu", tmp_path / "back.tsv", "conllu", "webanno-tsv")
    assert _typed(tmp_path / "back.tsv") == Counter(coref=2)


def test_formats_that_write_links_keep_the_types_and_report_nothing(tmp_path):
    for target, name in (("webanno-tsv", "out.tsv"), ("raf", "out.raf.xml"), ("brat", "out")):
        report = corefio.convert(WILD, tmp_path / name, "webanno-tsv", target)
        assert not _link_attribute_losses(report), target
    back = corefio.read(tmp_path / "out.raf.xml", "raf").documents[0]
    assert Counter(link.attributes.get("type") for link in back.links) == Counter(coref=106, ana=11, appos=5)


def test_bridging_attributes_in_conllu_are_no_identity_loss(tmp_path):
    """A bridging link's relation is written by CoNLL-U (``Bridge=e1<e2:part``): no
    ``loss.link-attributes`` for it."""
    text = ("# newdoc id = d\n# global.Entity = eid-etype-head-other\n# sent_id = d-1\n# text = the house door\n"
            "1\tthe\t_\t_\t_\t_\t_\t_\t_\tEntity=(e1--2\n"
            "2\thouse\t_\t_\t_\t_\t_\t_\t_\tEntity=e1)\n"
            "3\tdoor\t_\t_\t_\t_\t_\t_\t_\tEntity=(e2--1)|Bridge=e1<e2:part\n\n")
    path = tmp_path / "bridge.conllu"
    path.write_text(text, encoding="utf-8")
    doc = corefio.read(path).documents[0]
    assert [link.attributes for link in doc.links] == [{"relation": "part"}]
    report = corefio.convert(path, tmp_path / "back.conllu")
    assert not _link_attribute_losses(report)


@pytest.mark.parametrize("which", ["built", "wild"])
def test_webanno_tsv_written_back_is_the_same_file(which, tmp_path):
    """One-token mentions without annotation ids are written without them, as read."""
    source = _built(tmp_path) if which == "built" else WILD
    out = tmp_path / "out" / source.name
    out.parent.mkdir()
    report = corefio.convert(source, out, "webanno-tsv", "webanno-tsv")
    assert [d.code for d in report if d.code.startswith("loss.") and d.severity != "info"] == []
    assert out.read_bytes() == source.read_bytes()
