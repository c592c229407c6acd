"""Which MMAX2 attribute means coreference, and what the user hears about it.

corpus-bridging-de of yuliagrishina/corefpro calls its identity pointer
``identical_antecedent`` (attribute id ``level_identity``), beside ``NIDENT_antecedent``
(``level_near_identity``) and ``Bridging_antecedent``: before, none was taken for
identity, ``info`` and ``validate`` said nothing, ``score X X`` gave 0.00 everywhere with
exit 0, and only ``convert`` took ``--identity-attribute``. The project is CC BY-NC-SA, so
its scheme is built anew here; the real project tested is PotTS (tests/data/mmax2/potts,
MIT), whose ``anaphref`` pointers ("Mark as anaphoric antecedent") are not named as
coreference."""

from __future__ import annotations

from pathlib import Path

import pytest

import corefio
import corefio.formats.mmax2  # noqa: F401  (registers the format)
from corefio.diagnostics import Report
from corefio.formats.mmax2.schemes import says_identity
from corefio.transform import engine as xslt_engine

from .conftest import DATA
from .test_mmax2_levels import build_project
from .test_xslt_engine import PROCESSORS, assert_same, need

POTTS = DATA / "mmax2" / "potts"

BRIDGING_SCHEME = """<?xml version="1.0" encoding="UTF-8"?>
<annotationscheme>
<attribute id="level_identity" name="identical_antecedent" type="markable_pointer" color="red"
  point_to_markable_text="Mark as antecedent" remove_pointer_to_markable_text="Remove">
<value id="value_not_set" name="not_set"/><value id="value_set" name="set"/></attribute>
<attribute id="level_near_identity" name="NIDENT_antecedent" type="markable_pointer"
  point_to_markable_text="Mark as near-identical antecedent">
<value id="nv_not_set" name="not_set"/><value id="nv_set" name="set"/></attribute>
<attribute id="level_bridging_antecedent" name="Bridging_antecedent" type="markable_pointer">
<value id="bv_not_set" name="not_set"/><value id="bv_set" name="set"/></attribute>
</annotationscheme>
"""


def bridging_project(directory: Path) -> Path:
    """corpus-bridging-de's shape: a chain of three by ``identical_antecedent``, a near-
    identity and a bridging pointer."""
    project = build_project(directory, {"primmark": [
        ("markable_1", "word_1", {}),
        ("markable_2", "word_3", {"identical_antecedent": "markable_1"}),
        ("markable_3", "word_5", {"identical_antecedent": "markable_2", "nident_antecedent": "markable_1"}),
        ("markable_4", "word_7..word_8", {"bridging_antecedent": "markable_3"}),
    ]}, schemes={"primmark": []})
    (project / "Schemes" / "primmark_scheme.xml").write_text(BRIDGING_SCHEME, encoding="utf-8")
    return project


def chains(path: Path, **options) -> list[list[str]]:
    doc = corefio.read(path, **options).documents[0]
    return sorted(sorted(doc.markables[i].id for i in c) for c in doc.chain_indices() if len(c) > 1)


# -- the rule -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, texts, expected", [
    ("identical_antecedent", ("level_identity", "", "Mark as antecedent", ""), True),
    ("identical_antecedent", (), True),  # "_ident" begins a word of the name
    ("NIDENT_antecedent", ("level_near_identity", "", "Mark as near-identical antecedent", ""), False),
    ("Bridging_antecedent", ("level_bridging_antecedent",), False),
    ("coref_bridging", (), False),
    ("anaphref", ("anaphref", "", "Mark as anaphoric antecedent of source", ""), False),
    ("link", ("", "Mark as coreferent", "", ""), True),
    ("link", ("", "Mark as non-coreferent", "", ""), False),
    ("ref", (), True), ("Coref_Set", (), True), ("incidental", (), False), ("reidentify", (), False),
])
def test_what_says_identity(name, texts, expected):
    assert says_identity(name, texts) is expected


def test_identical_antecedent_makes_chains_and_the_others_stay_links(tmp_path):
    project = bridging_project(tmp_path / "p")
    report = Report()
    doc = corefio.read(project, report=report).documents[0]
    assert chains(project) == [["markable_1", "markable_2", "markable_3"]]
    assert sorted(link.type for link in doc.links if not link.is_identity) == ["bridging_antecedent",
                                                                               "nident_antecedent"]
    (said,) = report.by_code("mmax2.identity")
    assert "primmark:identical_antecedent (markable_pointer, by name)" in said.message
    assert not report.by_code("mmax2.no-identity")


@pytest.mark.parametrize("processor", PROCESSORS)
def test_the_xslt_engine_applies_the_same_rule(tmp_path, processor):
    need(processor)
    project = bridging_project(tmp_path / "p")
    scheme = project / "Schemes" / "primmark_scheme.xml"
    # found by its id only: the name says nothing
    scheme.write_text(BRIDGING_SCHEME.replace('name="identical_antecedent"', 'name="same_as"'), encoding="utf-8")
    for level in (project / "Markables").glob("*.xml"):
        level.write_text(level.read_text(encoding="utf-8").replace("identical_antecedent=", "same_as="),
                         encoding="utf-8")
    assert chains(project) == [["markable_1", "markable_2", "markable_3"]]
    assert_same(xslt_engine.read(project, "mmax2", processor=processor), corefio.read(project),
                f"{processor}: identity by the scheme's id")
    assert_same(xslt_engine.read(POTTS, "mmax2", processor=processor), corefio.read(POTTS),
                f"{processor}: PotTS")


# -- what the user hears ----------------------------------------------------------------------------
def no_identity_project(directory: Path) -> Path:
    project = bridging_project(directory)
    scheme = project / "Schemes" / "primmark_scheme.xml"
    scheme.write_text(BRIDGING_SCHEME.replace('id="level_identity" name="identical_antecedent"',
                                              'id="level_same" name="same_as"'), encoding="utf-8")
    for level in (project / "Markables").glob("*.xml"):
        level.write_text(level.read_text(encoding="utf-8").replace("identical_antecedent=", "same_as="),
                         encoding="utf-8")
    return project


@pytest.mark.parametrize("source", ["built", "potts"])
def test_info_validate_and_score_say_when_no_attribute_means_coreference(cli, tmp_path, source):
    project = no_identity_project(tmp_path / "p") if source == "built" else POTTS
    named = "same_as" if source == "built" else "anaphref"
    assert chains(project) == []
    for args in (("info", project), ("validate", project), ("score", project, project)):
        result = cli(*args)
        assert result.exit_code == 0, result.output
        assert "mmax2.no-identity" in result.output and named in result.output, args
        assert "--identity-attribute" in result.output
    # the option is then taken by every command that reads, the same as --read-option
    for option in (("--identity-attribute", named), ("--read-option", f"identity_attribute={named}"),
                   ("-r", f"identity_attribute={named}")):
        result = cli("score", project, project, *option)
        assert result.exit_code == 0, result.output
        assert "mmax2.no-identity" not in result.output
        muc = next(line for line in result.output.splitlines() if line.startswith("muc"))
        assert muc.split()[1:] == ["100.00", "100.00", "100.00"], result.output
        result = cli("info", project, *option)
        assert "mmax2.no-identity" not in result.output and " 0 chains" not in result.output


@pytest.mark.parametrize("source", ["built", "mmax_26000"])
def test_a_project_without_sets_or_pointers_is_warned_about_too(cli, tmp_path, source):
    """JULIELab/jcore-base's protein project has markables and no set or pointer: ``score
    X X`` gave 0.00 everywhere without a word."""
    if source == "built":
        project = build_project(tmp_path / "p", {"proteins": [("markable_1", "word_2", {"type": "protein"})]},
                                schemes={"proteins": [("type", "nominal_list")]})
    else:
        project = DATA / "wild" / "mmax2" / "mmax_26000"
    report = Report()
    corefio.read(project, report=report)
    (said,) = report.by_code("mmax2.no-identity")
    assert said.severity == "warning" and "levels proteins" in said.message
    result = cli("score", project, project)
    assert result.exit_code == 0 and "mmax2.no-identity" in result.output
    # a project with coreference, or without markables, hears nothing
    for quiet in (bridging_project(tmp_path / "b"), build_project(tmp_path / "e", {"coref": []})):
        report = Report()
        corefio.read(quiet, report=report)
        assert not report.by_code("mmax2.no-identity")


def test_a_chosen_none_is_not_warned_about(tmp_path):
    project = bridging_project(tmp_path / "p")
    report = Report()
    corefio.read(project, report=report, identity_attribute="none")
    assert not report.by_code("mmax2.no-identity")


COMMANDS_THAT_READ = ["info", "validate", "view", "score", "compare", "agree", "adjudicate", "sync"]


@pytest.mark.parametrize("command", COMMANDS_THAT_READ)
def test_every_command_that_reads_takes_the_reader_options(cli, command):
    result = cli(command, "--help")
    assert result.exit_code == 0
    assert "--read-option" in result.output and "--identity-attribute" in result.output


def test_one_helper_gives_the_options(cli):
    """The options come from one decorator (corefio.cli.reads), not a copy per command."""
    import inspect

    from corefio import cli as module

    source = inspect.getsource(module)
    assert source.count('"--identity-attribute"') <= 2  # convert's own, and the helper's
    assert source.count("@reads") >= len(COMMANDS_THAT_READ)


def test_an_option_no_format_has_is_a_usage_error(cli, tmp_path):
    project = bridging_project(tmp_path / "p")
    result = cli("info", project, "--read-option", "no_such_option=1")
    assert result.exit_code == 2 and "no_such_option" in result.output
    # an option the input's format does not declare (RAF has no identity attribute)
    raf = Path(__file__).resolve().parent.parent / "samples" / "key.raf.xml"
    result = cli("info", raf, "--identity-attribute", "x")
    assert result.exit_code == 2 and "identity_attribute" in result.output
    assert cli("info", raf).exit_code == 0
