"""An MMAX2 project's layout survives: written back directly or through RAF, a project
keeps every level (one without attributes, such as a ``groups`` level whose markables
only serve as pointer targets), its ``common_paths.xml`` as it was, its DTDs and the
other files of its directories, and gets no coreference level it did not have. RAF
holds the layout, so MMAX2 → RAF reports no loss, and the XSLT engine reads such a
project as the Python reader does.

The real projects: JULIELab/jcore-base's ``mmax_26000`` (tests/data/wild/mmax2, BSD-2-
Clause) and a document of the Potsdam Twitter Sentiment Corpus (tests/data/mmax2/potts,
MIT, tests/data/mmax2/README.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import corefio
import corefio.formats.mmax2  # noqa: F401  (registers the format)
from corefio.diagnostics import Report
from corefio.transform import engine as xslt_engine

from .conftest import DATA
from .test_mmax2_levels import build_project
from .test_wild import _files, _xml_differences
from .test_xslt_engine import PROCESSORS, assert_same, need

JCORE = DATA / "wild" / "mmax2" / "mmax_26000"
POTTS = DATA / "mmax2" / "potts"


def groups_project(directory: Path) -> Path:
    """corefpro's shape (yuliagrishina/corefpro, built anew here): a ``primmark`` level
    with identity pointers, one of them to a markable of a ``groups`` level whose scheme
    has no attribute and whose markable has none, and a sentence level."""
    project = build_project(directory, {
        "primmark": [("markable_1", "word_1..word_2", {}),
                     ("markable_2", "word_4", {"anaphor_antecedent": "markable_1"}),
                     ("markable_3", "word_10", {"anaphor_antecedent": "groups:markable_9"})],
        "groups": [("markable_9", "word_6,word_8", {})],
        "sentence": [("markable_20", "word_1..word_5", {}), ("markable_21", "word_6..word_10", {})],
    }, schemes={"primmark": [("anaphor_antecedent", "markable_pointer")], "groups": [],
                "sentence": [("orderid", "freetext")]})
    return project


def through_raf(source: Path, tmp_path: Path, *, strict: bool = False) -> tuple[Path, Report, Report]:
    raf, back = tmp_path / "pivot.raf", tmp_path / "back"
    there = corefio.convert(source, raf, "mmax2", "raf", strict=strict)
    again = corefio.convert(raf, back, "raf", "mmax2", strict=strict)
    return back, there, again


def not_info(report: Report) -> list[str]:
    return [f"{d.code}: {d.message}" for d in report if d.severity != "info"]


# -- a level without attributes (corefpro's groups) -------------------------------------------------
def test_a_level_without_attributes_survives_mmax2_raf_mmax2(tmp_path):
    """Before, the ``groups`` level and its markable were not written back from RAF, with
    no loss reported (even with --strict), and the pointer to it dangled; MMAX2 → RAF
    reported ``loss.layout`` though RAF holds the layout."""
    source = groups_project(tmp_path / "p")
    back, there, again = through_raf(source, tmp_path, strict=True)
    assert not_info(there) == [] and not_info(again) == []
    assert not any(d.code.startswith("loss.") for d in [*there, *again])
    assert _xml_differences(_files(source), _files(back), ("common_paths.xml",)) == []
    doc = corefio.read(back).documents[0]
    groups = [m for m in doc.markables if m.layer == "groups"]
    assert [(m.id, m.spans) for m in groups] == [("markable_9", ((5, 5), (7, 7)))]
    chains = sorted(sorted(doc.markables[i].id for i in chain) for chain in doc.chain_indices() if len(chain) > 1)
    assert chains == [["markable_1", "markable_2"], ["markable_3", "markable_9"]]


def test_written_back_directly_the_project_is_the_same(tmp_path):
    source = groups_project(tmp_path / "p")
    out = tmp_path / "out"
    report = corefio.convert(source, out, "mmax2", "mmax2", strict=True)
    assert not_info(report) == []
    assert _xml_differences(_files(source), _files(out), ("common_paths.xml",)) == []


@pytest.mark.parametrize("processor", PROCESSORS)
def test_the_xslt_engine_reads_the_level_as_python_does(tmp_path, processor):
    need(processor)
    source = groups_project(tmp_path / "p")
    assert_same(xslt_engine.read(source, "mmax2", processor=processor), corefio.read(source),
                f"{processor} on a project with a level without attributes")


# -- what a project has besides its levels ---------------------------------------------------------
def test_common_paths_other_files_and_no_added_level_are_kept(tmp_path):
    """Before, written back, ``common_paths.xml`` was written anew (its comment, its
    ``source_path`` and an empty ``user_switches`` dropped), a ``coref`` level with its
    scheme and customization was added to a project without one, and ``Basedata.uri``
    was left out, none of it reported."""
    source = build_project(tmp_path / "p", {"proteins": [("markable_1", "word_2", {"type": "protein"})]},
                           schemes={"proteins": [("type", "nominal_list")]})
    common = source / "common_paths.xml"
    common.write_text(common.read_text(encoding="utf-8").replace(
        "<annotations>", "<source_path>source/</source_path>\n<!-- <level name=\"old\">x</level> -->\n"
        "<annotations>").replace("</common_paths>", "<user_switches>\n</user_switches>\n</common_paths>"),
        encoding="utf-8")
    (source / "Basedata.uri").write_text("10048764", encoding="utf-8")
    for out, report in ((tmp_path / "direct", None), (None, None)):
        if out is not None:
            report = corefio.convert(source, out, "mmax2", "mmax2")
            reports = [report]
        else:
            out, *reports = through_raf(source, tmp_path)
        # (the project has no coreference: mmax2.no-identity says so, nothing else)
        assert all([x for x in not_info(r) if not x.startswith("mmax2.no-identity")] == [] for r in reports)
        assert _xml_differences(_files(source), _files(out), ("common_paths.xml",)) == []
        assert not (out / "Schemes" / "coref_scheme.xml").exists()


def test_a_file_that_cannot_be_kept_is_reported(tmp_path):
    source = build_project(tmp_path / "p", {"coref": [("markable_1", "word_1", {"coref_set": "set_1"})]})
    outside = tmp_path / "secret.txt"
    outside.write_text("not the project's", encoding="utf-8")
    (source / "Basedata" / "link.txt").symlink_to(outside)
    report = Report()
    corefio.write(corefio.read(source, report=report), tmp_path / "out", "mmax2", report=report)
    assert not (tmp_path / "out" / "Basedata" / "link.txt").exists()
    lost = [d for d in report if d.code == "loss.files"]
    assert len(lost) == 1 and lost[0].severity != "info" and "Basedata/link.txt" in lost[0].examples[0]


# -- the real projects -----------------------------------------------------------------------------
@pytest.mark.parametrize("source", [JCORE, POTTS], ids=["mmax_26000", "potts"])
def test_real_projects_come_back_the_same_directly_and_through_raf(tmp_path, source):
    direct = tmp_path / "direct"
    report = corefio.convert(source, direct, "mmax2", "mmax2")
    assert not any(d.code.startswith("loss.") for d in report)
    assert _xml_differences(_files(source), _files(direct), ("common_paths.xml",)) == []
    back, there, again = through_raf(source, tmp_path)
    assert not any(d.code.startswith("loss.") for d in [*there, *again])
    assert _xml_differences(_files(source), _files(back), ("common_paths.xml",)) == []


@pytest.mark.parametrize("processor", PROCESSORS)
@pytest.mark.parametrize("source", [JCORE, POTTS], ids=["mmax_26000", "potts"])
def test_the_xslt_engine_reads_the_real_projects_as_python_does(processor, source):
    need(processor)
    assert_same(xslt_engine.read(source, "mmax2", processor=processor), corefio.read(source),
                f"{processor} on {source.name}")


def test_potts_is_read_whole(tmp_path):
    """Counted by hand from the files: 1743 words, 194 markables on 6 levels (diminisher
    has none), pointers anaphref 2, sentiment_ref 4, emo-expression-ref 9."""
    doc = corefio.read(POTTS).documents[0]
    assert len(doc.tokens.forms) == 1743 and len(doc.markables) == 194
    assert {m.layer for m in doc.markables} == {"negation", "intensifier", "emo-expression", "source", "target",
                                                 "sentiment"}
    counts: dict[str, int] = {}
    for link in doc.links:
        counts[link.type] = counts.get(link.type, 0) + len(link.targets)
    assert counts == {"anaphref": 2, "sentiment_ref": 4, "emo-expression-ref": 9}
    # a copy elsewhere reads the same (no path leads out of the project)
    copy = tmp_path / "copy"
    shutil.copytree(POTTS, copy)
    assert len(corefio.read(copy).documents[0].markables) == 194


@pytest.mark.parametrize("processor", PROCESSORS)
def test_the_xslt_engine_says_it_does_not_carry_the_layout(tmp_path, processor):
    """mmax2-to-raf.xsl writes no layout or scheme feats (the Python reader does): the
    conversion says so instead of laying the project out anew in silence."""
    need(processor)
    source = groups_project(tmp_path / "p")
    report = Report()
    corpus = xslt_engine.read(source, "mmax2", report=report, processor=processor)
    assert "mmax2" not in corpus.layout
    said = [d for d in report.by_code("xslt.rule") if "rule layout" in d.message]
    assert said and "laid out anew" in said[0].message
    assert "mmax2" in corefio.read(source).layout
