"""MMAX2 collections: documents in subdirectories sharing one common paths file.

MMAX2-Showcase's ACL Anthology corpus (and pyMMAX2's examples, which read it) keep each
document in a directory of its own (``C/C02-1001/C02-1001.mmax`` with ``Basedata/`` and
``Markables/``) and one ``common_files/global_common_paths.xml`` for all of them, whose
paths are relative to each ``.mmax`` file (``../../common_files/Schemes/``); MMAX2 is
told which common paths file to use. Before, corefio could not read such a collection
at all. Its root is the confinement boundary: a name leading out of it is refused.

The collections here are made from the test project ``worship`` (tests/data/mmax2) laid
out the Showcase's way; the Showcase itself carries no licence, so it is not copied.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import corefio
import corefio.formats.mmax2  # noqa: F401  (registers the format)
from corefio.diagnostics import Report
from corefio.errors import FormatError, UnsafeInputError
from corefio.transform import engine as xslt_engine

from .test_mmax2 import WORSHIP, assert_same_project, content
from .test_xslt_engine import PROCESSORS, assert_same, need

#: the shared file's paths, as the Showcase writes them
SHARED_PATHS = {"basedata_path": "./Basedata/", "scheme_path": "../../common_files/Schemes/",
                "style_path": "../../common_files/Styles/", "customization_path": "../../common_files/Customizations/",
                "markable_path": "./Markables/"}


def collection(root: Path, homes: dict[str, str] | None = None, *, shared_name: str = "global_common_paths.xml",
               paths: dict[str, str] | None = None) -> Path:
    """The worship project as a collection under ``root``: each document (stem → its
    directory, two levels deep by default) with its base data and level files, the
    schemes, customizations and style sheet in ``common_files/``, and the shared common
    paths file ``common_files/<shared_name>``."""
    homes = homes if homes is not None else {"worship": "A/worship", "worship_b": "B/worship_b"}
    paths = {**SHARED_PATHS, **(paths or {})}
    common = root / "common_files"
    for sub in ("Schemes", "Customizations", "Styles"):
        shutil.copytree(WORSHIP / sub, common / sub)
    text = (WORSHIP / "common_paths.xml").read_text(encoding="utf-8")
    for key, value in paths.items():
        start = text.index(f"<{key}>") + len(key) + 2
        text = text[:start] + value + text[text.index(f"</{key}>"):]
    (common / shared_name).write_text(text, encoding="utf-8")
    for stem, home in homes.items():
        target = root / home
        (target / "Basedata").mkdir(parents=True)
        (target / "Markables").mkdir()
        shutil.copy(WORSHIP / f"{stem}.mmax", target)
        shutil.copy(WORSHIP / "Basedata" / f"{stem}_words.xml", target / "Basedata")
        shutil.copy(WORSHIP / "Basedata/words.dtd", target / "Basedata")
        shutil.copy(WORSHIP / "Markables/markables.dtd", target / "Markables")
        for level in (WORSHIP / "Markables").glob(f"{stem}_*_level.xml"):
            if stem == "worship" and level.name.startswith("worship_b_"):
                continue
            shutil.copy(level, target / "Markables")
    return root


def files_under(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in directory.rglob("*") if p.is_file()}


def test_a_collection_reads_as_the_project_it_was_made_from(tmp_path):
    root = collection(tmp_path / "coll")
    report = Report()
    got = corefio.read(root, report=report)
    expected = corefio.read(WORSHIP)
    assert [d.name for d in got.documents] == ["worship", "worship_b"]
    for a, b in zip(got.documents, expected.documents):
        assert content(a) == content(b), a.name
    assert [s.name for s in got.schemes] == [s.name for s in expected.schemes]
    assert got.scheme(None).attribute("coref_set") is not None  # found through ../../common_files/Schemes/
    assert any("common_files/global_common_paths.xml" in d.message for d in report.by_code("mmax2.collection"))
    assert not report.by_code("mmax2.no-common-paths")


def test_the_format_is_recognised_from_the_directory(tmp_path, cli):
    root = collection(tmp_path / "coll")
    assert corefio.get_format("mmax2").sniff_directory(root)
    result = cli("info", root)
    assert result.exit_code == 0, result.output
    assert "2 document(s)" in result.output and "'worship_b'" in result.output


@pytest.mark.parametrize("processor", PROCESSORS)
def test_both_xslt_processors_read_the_collection_as_python_does(tmp_path, processor):
    need(processor)
    root = collection(tmp_path / "coll")
    assert_same(xslt_engine.read(root, "mmax2", processor=processor), corefio.read(root),
                f"{processor} on a collection")


def test_written_back_file_by_file(tmp_path):
    root = collection(tmp_path / "coll")
    corpus = corefio.read(root)
    report = Report()
    assert_same_project(root, corefio.dump_files(corpus, "mmax2", report=report))
    assert not [d for d in report if d.code.startswith("loss.")]
    out = tmp_path / "out"
    corefio.write(corpus, out, "mmax2")
    again = corefio.read(out)
    for a, b in zip(again.documents, corpus.documents):
        assert content(a) == content(b)


def test_documents_that_share_a_stem_are_named_by_their_path(tmp_path):
    root = collection(tmp_path / "coll", {"worship": "A/worship"})
    shutil.copytree(root / "A", root / "B")
    names = [d.name for d in corefio.read(root).documents]
    assert names == ["A/worship/worship", "B/worship/worship"]
    for processor in PROCESSORS:
        if processor == "xsltproc" and not xslt_engine.xsltproc_available():
            continue
        assert [d.name for d in xslt_engine.read(root, "mmax2", processor=processor).documents] == names


def test_a_document_with_a_common_paths_file_of_its_own_uses_it(tmp_path):
    root = collection(tmp_path / "coll")
    own = root / "A/worship"
    for sub in ("Schemes", "Customizations", "Styles"):
        shutil.copytree(WORSHIP / sub, own / sub)
    shutil.copy(WORSHIP / "common_paths.xml", own)
    (root / "common_files/Schemes/coref_scheme.xml").write_text("<annotationscheme/>\n")  # not this one
    got = corefio.read(root)
    expected = corefio.read(WORSHIP)
    assert content(got.documents[0]) == content(expected.documents[0])


# -- the root is the boundary -------------------------------------------------------------------------
def test_a_path_leading_out_of_the_collection_is_refused(tmp_path):
    root = collection(tmp_path / "coll", paths={"scheme_path": "../../../outside/"})
    (tmp_path / "outside").mkdir()
    shutil.copytree(WORSHIP / "Schemes", tmp_path / "outside", dirs_exist_ok=True)
    with pytest.raises(UnsafeInputError, match="outside the project") as err:
        corefio.read(root)
    shared = root / "common_files/global_common_paths.xml"
    assert err.value.file == str(shared)
    for processor in PROCESSORS:
        if processor == "xsltproc" and not xslt_engine.xsltproc_available():
            continue
        with pytest.raises(UnsafeInputError, match="outside the project"):
            xslt_engine.read(root, "mmax2", processor=processor)


def test_a_document_directory_is_no_boundary_inside_a_collection(tmp_path):
    """From a document's directory the shared files are two levels up: inside the root."""
    root = collection(tmp_path / "coll")
    corpus = corefio.read(root)
    assert corpus.layout["mmax2"].collection and corpus.layout["mmax2"].common_file == \
        "common_files/global_common_paths.xml"
    assert [d.layout["mmax2"].home for d in corpus.documents] == ["A/worship", "B/worship_b"]


def test_a_mmax_file_linked_from_outside_the_collection_is_refused(tmp_path):
    root = collection(tmp_path / "coll")
    outside = tmp_path / "elsewhere.mmax"
    shutil.copy(root / "A/worship/worship.mmax", outside)
    (root / "A/worship/other.mmax").symlink_to(outside)
    with pytest.raises(UnsafeInputError, match="outside the project"):
        corefio.read(root)


# -- which shared file ---------------------------------------------------------------------------------
def test_several_shared_files_must_be_chosen_between(tmp_path, cli):
    """The Showcase has global_common_paths.xml and global_common_paths_with_errors.xml:
    only names ending in common_paths.xml count, so it has one; two that do are a choice
    for the user (the read option common_paths)."""
    root = collection(tmp_path / "coll")
    shutil.copy(root / "common_files/global_common_paths.xml", root / "common_files/global_common_paths_with_errors.xml")
    assert [d.name for d in corefio.read(root).documents] == ["worship", "worship_b"]
    shutil.copy(root / "common_files/global_common_paths.xml", root / "common_files/other_common_paths.xml")
    with pytest.raises(FormatError, match="2 common paths files .*read option common_paths"):
        corefio.read(root)
    chosen = corefio.read(root, "mmax2", common_paths="common_files/other_common_paths.xml")
    assert len(chosen.documents) == 2 and chosen.scheme(None).attribute("coref_set") is not None
    result = cli("convert", root, tmp_path / "out.conll", "--read-option",
                 "common_paths=common_files/global_common_paths.xml")
    assert result.exit_code == 0, result.output


def test_one_document_of_a_collection_read_with_the_shared_file(tmp_path, cli):
    """A .mmax file read alone names no levels; given the shared file (as MMAX2 and pyMMAX2
    are given it), its directories lie above the document: the root becomes the nearest
    directory holding both."""
    root = collection(tmp_path / "coll")
    mmax = root / "A/worship/worship.mmax"
    report = Report()
    alone = corefio.read(mmax, "mmax2", report=report, common_paths="../../common_files/global_common_paths.xml")
    assert content(alone.documents[0]) == content(corefio.read(WORSHIP).documents[0])
    result = cli("convert", mmax, "-", "--to", "conll", "--read-option",
                 "common_paths=../../common_files/global_common_paths.xml")
    assert result.exit_code == 0 and "#begin document (worship)" in result.output, result.output


def test_a_corpus_whose_documents_lost_their_place_is_written_as_one_project(tmp_path):
    """A document from elsewhere (no MMAX2 layout) in a collection's corpus: the shared
    paths (../../common_files/) would lead out of the output from the root, so the corpus
    is written as a project of its own, with the usual paths, and that is said."""
    root = collection(tmp_path / "coll")
    corpus = corefio.read(root)
    stranger = corpus.documents[0].copy(name="stranger", layout={})
    mixed = corpus.copy(documents=[*corpus.documents, stranger])
    report = Report()
    files = corefio.dump_files(mixed, "mmax2", report=report)
    assert report.by_code("mmax2.layout")
    assert all(not rel.startswith("../") for rel in files)
    assert {"worship.mmax", "worship_b.mmax", "stranger.mmax", "common_paths.xml"} <= set(files)
    out = tmp_path / "out"
    corefio.write(mixed, out, "mmax2")
    assert [d.name for d in corefio.read(out).documents] == ["stranger", "worship", "worship_b"]
    assert files_under(out)
