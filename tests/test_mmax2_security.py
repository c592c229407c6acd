"""MMAX2 projects may only name files inside their directory (issue #25).

A project's ``common_paths.xml`` and ``.mmax`` files name other files. A name that is
absolute, climbs out with ``..`` or reaches out through a symbolic link is refused with
a located :class:`UnsafeInputError` before any byte of the named file is read; a name
the system cannot look up (too long, a loop of links) is a located input error too.
The reproducers are in ../shared/reproducers (``@REPRO@`` stands for the absolute path of
a folder holding the marker files ``S00_secret.txt`` and ``S00_victim_words.xml``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import corefio
import corefio.formats.mmax2  # noqa: F401  (registers the format)
from corefio.errors import FormatError, UnsafeInputError

from .conftest import DATA, shared_data

WORSHIP = DATA / "mmax2" / "worship"
MARKERS = ("S00_secret.txt", "S00_victim_words.xml")


def secret_text() -> str:
    return (shared_data("reproducers") / "S00_secret.txt").read_text(encoding="utf-8").strip()


def reproducer(name: str, tmp_path: Path) -> Path:
    """The reproducer ``name`` copied to ``tmp_path/work/project``, ``@REPRO@`` replaced by a
    folder holding the marker files; the markers are also put beside the project (where a
    ``../..`` from one of its subdirectories leads)."""
    repros = shared_data("reproducers")
    markers = tmp_path / "markers"
    markers.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    for marker in MARKERS:
        shutil.copy(repros / marker, markers / marker)
        shutil.copy(repros / marker, work / marker)
    project = work / "project"
    shutil.copytree(repros / name, project)
    for path in project.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            if b"@REPRO@" in data:
                path.write_bytes(data.replace(b"@REPRO@", str(markers).encode()))
    return project


def everything_under(directory: Path) -> bytes:
    return b"".join(p.read_bytes() for p in directory.rglob("*") if p.is_file()) if directory.exists() else b""


# (reproducer, file naming the outside file, line of the name)
ESCAPES = [("S02_mmax2_abs_words", "GUM_news_worship.mmax", 3),
           ("S03_mmax2_dotdot_stylesheet", "common_paths.xml", 10),
           ("S04_mmax2_dotdot_environ", "common_paths.xml", 10)]


@pytest.mark.parametrize("name, naming_file, line", ESCAPES)
def test_reproducers_naming_outside_files_are_refused_where_the_name_is(tmp_path, name, naming_file, line):
    project = reproducer(name, tmp_path)
    with pytest.raises(UnsafeInputError) as err:
        corefio.read(project)
    assert Path(err.value.file).name == naming_file and err.value.line == line
    with pytest.raises(UnsafeInputError):
        corefio.read(project / "GUM_news_worship.mmax")
    with pytest.raises(UnsafeInputError):
        corefio.convert(project, tmp_path / "out", to_format="mmax2")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", [name for name, _, _ in ESCAPES])
def test_cli_refuses_them_and_shows_no_secret(cli, tmp_path, name):
    project = reproducer(name, tmp_path)
    secret = secret_text()
    for args in (("info", project), ("info", project / "GUM_news_worship.mmax"),
                 ("convert", project, tmp_path / "out", "--to", "mmax2"),
                 ("convert", project, tmp_path / "out.conll")):
        result = cli(*args)
        assert result.exit_code == 3, (args, result.output)
        assert "outside the project" in result.output or "absolute path" in result.output
        assert secret not in result.output
    assert secret.encode() not in everything_under(tmp_path / "out")
    assert not (tmp_path / "out.conll").exists()


def test_a_very_long_file_name_is_a_located_input_error(cli, tmp_path):
    project = reproducer("S06_mmax2_long_customization", tmp_path)
    with pytest.raises(FormatError) as err:
        corefio.read(project)
    assert Path(err.value.file).name == "common_paths.xml" and err.value.line == 13
    for args in (("info", project), ("convert", project, tmp_path / "out", "--to", "mmax2")):
        result = cli(*args)
        assert result.exit_code == 3, result.output
        assert "internal error" not in result.output and "common_paths.xml:13" in result.output


# -- links and other names, on the test suite's own project ---------------------------------------
def copy_worship(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(WORSHIP, target)
    return target


def put_secret(tmp_path: Path) -> Path:
    secret = tmp_path / "secret.xml"
    secret.write_text('<?xml version="1.0"?>\n<annotationscheme><!-- TOP SECRET --></annotationscheme>\n')
    return secret


def replace_in(path: Path, old: str, new: str) -> None:
    data = path.read_bytes()
    assert old.encode() in data
    path.write_bytes(data.replace(old.encode(), new.encode(), 1))


def line_of(path: Path, needle: str) -> int:
    return next(k for k, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in text)


def test_a_link_leading_out_of_the_project_is_refused(cli, tmp_path):
    project = copy_worship(tmp_path)
    secret = put_secret(tmp_path)
    scheme = project / "Schemes/coref_scheme.xml"
    scheme.unlink()
    scheme.symlink_to(secret)
    with pytest.raises(UnsafeInputError) as err:
        corefio.read(project)
    common = project / "common_paths.xml"
    assert err.value.file == str(common) and err.value.line == line_of(common, 'name="coref"')
    result = cli("convert", project, tmp_path / "out", "--to", "mmax2")
    assert result.exit_code == 3 and "outside the project" in result.output
    assert b"TOP SECRET" not in everything_under(tmp_path / "out")


def test_a_linked_directory_leading_out_is_refused(tmp_path):
    project = copy_worship(tmp_path)
    outside = tmp_path / "outside"
    shutil.move(project / "Basedata", outside)
    (project / "Basedata").symlink_to(outside, target_is_directory=True)
    with pytest.raises(UnsafeInputError) as err:
        corefio.read(project)
    assert err.value.file == str(project / "common_paths.xml") and err.value.line is not None


def test_a_mmax_file_linked_from_outside_is_refused(tmp_path):
    project = copy_worship(tmp_path)
    outside = tmp_path / "elsewhere.mmax"
    shutil.move(project / "worship_b.mmax", outside)
    (project / "worship_b.mmax").symlink_to(outside)
    with pytest.raises(UnsafeInputError, match="outside the project"):
        corefio.read(project)


def test_links_inside_the_project_are_fine(tmp_path):
    project = copy_worship(tmp_path)
    scheme = project / "Schemes/coref_scheme.xml"
    shutil.move(scheme, project / "Schemes/real_scheme.xml")
    scheme.symlink_to("real_scheme.xml")
    assert [d.name for d in corefio.read(project).documents] == ["worship", "worship_b"]


@pytest.mark.parametrize("element, value", [
    ("basedata_path", "/etc/"), ("markable_path", "../"), ("scheme_path", "Schemes/../../"),
])
def test_directories_outside_the_project_are_refused(tmp_path, element, value):
    project = copy_worship(tmp_path)
    common = project / "common_paths.xml"
    text = common.read_text(encoding="utf-8")
    start = text.index(f"<{element}>") + len(element) + 2
    end = text.index(f"</{element}>")
    common.write_text(text[:start] + value + text[end:], encoding="utf-8")
    with pytest.raises(UnsafeInputError) as err:
        corefio.read(project)
    assert err.value.file == str(common) and err.value.line == line_of(common, f"<{element}>")


@pytest.mark.parametrize("attribute", ["schemefile", "customization_file"])
def test_level_files_outside_the_project_are_refused(tmp_path, attribute):
    project = copy_worship(tmp_path)
    put_secret(tmp_path)
    common = project / "common_paths.xml"
    text = common.read_text(encoding="utf-8")
    start = text.index(f'{attribute}="', text.index('name="coref"')) + len(attribute) + 2
    end = text.index('"', start)
    common.write_text(text[:start] + "../../secret.xml" + text[end:], encoding="utf-8")
    with pytest.raises(UnsafeInputError, match="outside the project") as err:
        corefio.read(project)
    assert err.value.line == line_of(common, 'name="coref"')


def test_a_level_file_pattern_outside_the_project_is_refused(tmp_path):
    project = copy_worship(tmp_path)
    common = project / "common_paths.xml"
    replace_in(common, "$_coref_level.xml", "../../$_coref_level.xml")
    with pytest.raises(UnsafeInputError, match="level file"):
        corefio.read(project)


def test_a_words_file_climbing_out_is_refused(tmp_path):
    project = copy_worship(tmp_path)
    shutil.copy(project / "Basedata/worship_b_words.xml", tmp_path / "victim.xml")
    replace_in(project / "worship_b.mmax", "worship_b_words.xml", "../../victim.xml")
    with pytest.raises(UnsafeInputError) as err:
        corefio.read(project / "worship_b.mmax")
    assert err.value.file == str(project / "worship_b.mmax") and err.value.line == line_of(
        project / "worship_b.mmax", "<words>")


def test_a_loop_of_links_is_an_input_error(cli, tmp_path):
    project = copy_worship(tmp_path)
    scheme = project / "Schemes/coref_scheme.xml"
    scheme.unlink()
    os.symlink("loop_b.xml", project / "Schemes/loop_a.xml")
    os.symlink("loop_a.xml", project / "Schemes/loop_b.xml")
    scheme.symlink_to("loop_a.xml")
    with pytest.raises(FormatError) as err:
        corefio.read(project)
    assert err.value.file == str(project / "common_paths.xml")
    result = cli("info", project)
    assert result.exit_code == 3 and "internal error" not in result.output


def test_a_directory_where_a_file_should_be_is_an_input_error(cli, tmp_path):
    """corefio opens regular files only: a directory (or a FIFO, see R09) where a
    project file should be is a located input error, not a missing file."""
    project = copy_worship(tmp_path)
    words = project / "Basedata/worship_b_words.xml"
    words.unlink()
    words.mkdir()
    with pytest.raises(FormatError, match="is a directory, not a regular file") as err:
        corefio.read(project / "worship_b.mmax")
    assert err.value.file == str(project / "worship_b.mmax") and err.value.line == 3
    shutil.rmtree(words)
    scheme = project / "Schemes/coref_scheme.xml"
    scheme.unlink()
    scheme.mkdir()
    result = cli("info", project / "worship.mmax")
    assert result.exit_code == 3 and "scheme file 'coref_scheme.xml' is a directory" in result.output


def test_a_project_path_too_long_to_look_up_is_an_input_error(tmp_path):
    path = tmp_path / ("x" * 300 + ".mmax")
    with pytest.raises(FormatError, match="cannot look up"):
        corefio.read(path, "mmax2")


def test_a_detour_that_stays_inside_reads_and_writes_back(tmp_path):
    project = copy_worship(tmp_path)
    common = project / "common_paths.xml"
    replace_in(common, 'customization_file="coref_customization.xml"',
               'customization_file="../Customizations/coref_customization.xml"')
    replace_in(common, 'schemefile="coref_scheme.xml"', 'schemefile="../Schemes/coref_scheme.xml"')
    corpus = corefio.read(project)
    assert corpus.scheme(None).attribute("coref_set") is not None
    out = tmp_path / "out"
    corefio.write(corpus, out, "mmax2")
    for rel in ("Customizations/coref_customization.xml", "Schemes/coref_scheme.xml"):
        assert (out / rel).read_bytes() == (project / rel).read_bytes(), rel
    assert [d.name for d in corefio.read(out).documents] == ["worship", "worship_b"]


@pytest.mark.parametrize("member", ["common_paths.xml", "Basedata/words.dtd", "Styles/worship_style.xsl",
                                    "Markables/worship_b_coref_level.xml", "Basedata/worship_b_words.xml"])
def test_every_kind_of_project_file_linked_out_is_refused(tmp_path, member):
    project = copy_worship(tmp_path)
    secret = put_secret(tmp_path)
    (project / member).unlink()
    (project / member).symlink_to(secret)
    with pytest.raises(UnsafeInputError, match="outside the project"):
        corefio.read(project)


def test_a_very_long_document_name_gives_short_file_names(tmp_path):
    """Found by the hostile-upload run: a 140 KB document name (S12) became the name of
    every project file (the web answered 500, the CLI "File name too long"). The stem is
    cut, with a digest, and the name is kept whole inside the .mmax file."""
    import corefio
    from corefio.model import Corpus, Document, Markable, Tokens

    name = "A" * 140_000
    doc = Document(name=name, tokens=Tokens(forms=["a", "b"]),
                   markables=[Markable(id="m1", spans=((0, 0),), entity="e"),
                              Markable(id="m2", spans=((1, 1),), entity="e")])
    report = corefio.write(Corpus(documents=[doc]), tmp_path / "project", "mmax2")
    assert all(len(p.name.encode()) < 255 for p in (tmp_path / "project").rglob("*"))
    back = corefio.read(tmp_path / "project")
    assert back.documents[0].name == name and len(back.documents[0].markables) == 2
    assert not report.errors
