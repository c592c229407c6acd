"""The XSLT engine reads no file an input does not name inside its own directory, expands no
entity and loads no DTD, under lxml and under xsltproc (issue #25).

xsltproc substitutes every entity it knows and, without --novalid, loads external DTDs;
its document() opens any file. So every file a stylesheet reads is checked with corefio's
safe parser first, every file name an MMAX2 project gives is confined to the project, and
under lxml a resolver serves only the files the engine checked. Each case below puts a
secret beside the input and asserts the run is refused (exit 3) and the secret appears
nowhere.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from corefio.transform import engine as xslt_engine
from corefio.errors import UnsafeInputError

from .conftest import shared_data
from .test_xslt_engine import PROCESSORS, need
from .test_xslt_mmax2_projects import write_project

SECRET = "TOP-SECRET-7f3a"
MATE_NS = "http://www.ims.uni-stuttgart.de/projekte/mate/mdag/cr"


@pytest.fixture
def secret(tmp_path) -> Path:
    """A folder outside the input's directory with a secret text and an XML file of words."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (outside / "evil.dtd").write_text(f'<!ENTITY xxe SYSTEM "file://{outside}/secret.txt">\n')
    (outside / "words.xml").write_text(f'<?xml version="1.0"?>\n<words><word id="word_1">{SECRET}</word>'
                                       '<word id="word_2">x</word></words>\n')
    return outside


def refused(cli, source: Path, out: Path, processor: str) -> str:
    """Convert with the XSLT engine from the command line: exit 3, no output file, the
    secret in no message. The message."""
    result = cli("convert", source, out, "--engine", "xslt", "--xslt-processor", processor)
    assert result.exit_code == 3, result.output
    assert SECRET not in result.output
    assert not out.exists()
    return result.output


def mate(body_prefix: str, word: str) -> str:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n{body_prefix}'
            f'<coref:mate xmlns:coref="{MATE_NS}" version="1.0"><coref:doc name="d">'
            f'<coref:s id="s1"><coref:de ID="m1"><coref:w>{word}</coref:w></coref:de> <coref:w>b</coref:w> '
            '<coref:de ID="m2"><coref:w>it</coref:w></coref:de></coref:s>'
            '<coref:link href="#id(m2)" type="ident"><coref:anchor href="#id(m1)"/></coref:link>'
            "</coref:doc></coref:mate>\n")


#: MATE inputs that ask for the secret: an external entity, an entity from an external DTD,
#: a parameter entity that pulls in a DTD
MATE_ATTACKS = {
    "file entity": lambda d: mate(f'<!DOCTYPE coref:mate [<!ENTITY xxe SYSTEM "file://{d}/secret.txt">]>\n', "&xxe;"),
    "external DTD": lambda d: mate(f'<!DOCTYPE coref:mate SYSTEM "file://{d}/evil.dtd">\n', "&xxe;"),
    "parameter entity": lambda d: mate(f'<!DOCTYPE coref:mate [<!ENTITY % p SYSTEM "file://{d}/evil.dtd"> %p;]>\n',
                                       "&xxe;"),
}


@pytest.mark.parametrize("processor", PROCESSORS)
@pytest.mark.parametrize("attack", MATE_ATTACKS)
def test_mate_input_with_entities_is_refused(tmp_path, secret, cli, processor, attack):
    need(processor)
    source = tmp_path / "in.mate.xml"
    source.write_text(MATE_ATTACKS[attack](secret))
    with pytest.raises(UnsafeInputError):
        xslt_engine.read(source, "mate", processor=processor)
    refused(cli, source, tmp_path / "out.raf.xml", processor)


@pytest.mark.parametrize("processor", PROCESSORS)
@pytest.mark.parametrize("name", ["../outside/words.xml", "{outside}/words.xml", "file://{outside}/words.xml",
                                  "words%2Exml"])
def test_mate_standoff_base_file_outside_is_refused(tmp_path, secret, cli, processor, name):
    need(processor)
    source = tmp_path / "in" / "standoff.mate.xml"
    source.parent.mkdir()
    shutil.copy(secret / "words.xml", source.parent / "words.xml")
    words = name.format(outside=secret)
    source.write_text(f'<?xml version="1.0"?>\n<coref:mate xmlns:coref="{MATE_NS}" version="1.0">'
                      f'<coref:doc name="d" words="{words}"><coref:de ID="m1" href="{words}#id(word_1)"/>'
                      "</coref:doc></coref:mate>\n")
    with pytest.raises(UnsafeInputError):
        xslt_engine.read(source, "mate", processor=processor)
    refused(cli, source, tmp_path / "out.raf.xml", processor)


# -- MMAX2: every member file -------------------------------------------------------------
def with_entity(path: Path, outside: Path, how: str) -> None:
    """Give the XML file ``path`` an entity that reads the secret, used in its first text
    or attribute value (``how``: declared inline, or from an external DTD)."""
    text = path.read_text()
    head, sep, rest = text.partition("?>\n")
    if how == "inline":
        doctype = f'<!DOCTYPE x [<!ENTITY xxe SYSTEM "file://{outside}/secret.txt">]>\n'
    else:
        doctype = f'<!DOCTYPE x SYSTEM "file://{outside}/evil.dtd">\n'
    rest = rest.replace("<!DOCTYPE common_paths>\n", "")
    if ">a<" in rest:
        rest = rest.replace(">a<", ">&xxe;<", 1)
    elif 'span="word_1' in rest:
        rest = rest.replace('coref_set="set_1"', 'coref_set="&xxe;"', 1)
    elif "<words>" in rest:
        rest = rest.replace("<words>", "<words>&xxe;", 1)
    elif "<basedata_path>" in rest:
        rest = rest.replace("<basedata_path>Basedata/", "<basedata_path>Basedata/&xxe;", 1)
    else:
        rest = rest.replace('name="coref_set"', 'name="&xxe;"', 1)
    if not sep:  # no XML declaration
        head, rest = "", text.replace('name="coref_set"', 'name="&xxe;"', 1)
    path.write_text(head + sep + doctype + rest)


MEMBERS = {"words": "Basedata/doc_words.xml", "level": "Markables/doc_coref_level.xml",
           "scheme": "Schemes/coref_scheme.xml", "common_paths": "common_paths.xml", "mmax": "doc.mmax"}


@pytest.mark.parametrize("processor", PROCESSORS)
@pytest.mark.parametrize("how", ["inline", "external DTD"])
@pytest.mark.parametrize("member", MEMBERS)
def test_mmax2_member_file_with_entities_is_refused(tmp_path, secret, cli, processor, how, member):
    """Each file of a project the stylesheet opens: refused when it declares an entity or
    uses one that only a DTD would give (lxml used to read such a word as empty, xsltproc
    as the secret)."""
    need(processor)
    project = tmp_path / "project"
    write_project(project)
    target = project / MEMBERS[member]
    with_entity(target, secret, how)
    assert "&xxe;" in target.read_text()
    with pytest.raises(UnsafeInputError):
        xslt_engine.read(project, "mmax2", processor=processor)
    refused(cli, project, tmp_path / "out.raf.xml", processor)


def confine_cases(project: Path, outside: Path) -> dict:
    return {
        "absolute words": lambda: (project / "doc.mmax").write_text(
            f"<mmax_project><words>{outside}/words.xml</words></mmax_project>"),
        "words ..": lambda: (project / "doc.mmax").write_text(
            "<mmax_project><words>../../outside/words.xml</words></mmax_project>"),
        "basedata_path ..": lambda: edit(project / "common_paths.xml", "<basedata_path>Basedata/",
                                         "<basedata_path>../outside/"),
        "level pattern ..": lambda: edit(project / "common_paths.xml", "$_coref_level.xml", "../../outside/words.xml"),
        "scheme ..": lambda: edit(project / "common_paths.xml", 'schemefile="coref_scheme.xml"',
                                  'schemefile="../../outside/words.xml"'),
        "stylesheet ..": lambda: edit(project / "common_paths.xml", "<annotations>",
                                      "<views><stylesheet>../../outside/secret.txt</stylesheet></views><annotations>"),
        "customization ..": lambda: edit(project / "common_paths.xml", 'schemefile=',
                                         'customization_file="../../outside/secret.txt" schemefile='),
        "symlink out": lambda: symlink_out(project / "Basedata" / "doc_words.xml", outside / "words.xml"),
    }


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def symlink_out(link: Path, target: Path) -> None:
    link.unlink()
    os.symlink(target, link)


@pytest.mark.parametrize("processor", PROCESSORS)
@pytest.mark.parametrize("case", ["absolute words", "words ..", "basedata_path ..", "level pattern ..", "scheme ..",
                                  "stylesheet ..", "customization ..", "symlink out"])
def test_mmax2_file_names_outside_the_project_are_refused(tmp_path, secret, cli, processor, case):
    """Every name common_paths.xml and the .mmax file give is confined to the project before
    the stylesheet runs (absolute, "..", a link leading out): UnsafeInputError, exit 3."""
    need(processor)
    project = tmp_path / "project"
    write_project(project)
    confine_cases(project, secret)[case]()
    with pytest.raises(UnsafeInputError):
        xslt_engine.read(project, "mmax2", processor=processor)
    refused(cli, project, tmp_path / "out.raf.xml", processor)


def test_lxml_document_calls_read_only_the_files_the_engine_checked(tmp_path):
    """Under lxml a stylesheet run without the engine's list of checked files opens nothing:
    mmax2-to-raf.xsl run by transform() on a .mmax file, given the URIs of the project's
    files, cannot even read common_paths.xml."""
    project = tmp_path / "project"
    mmax = write_project(project)
    with pytest.raises(UnsafeInputError, match="not a file the input names"):
        xslt_engine.transform("mmax2-to-raf.xsl", mmax.read_bytes(), base_url=mmax.as_uri(),
                              params={"stem": "doc", "common-uri": (project / "common_paths.xml").as_uri(),
                                      "words-uri": (project / "Basedata/doc_words.xml").as_uri()})
    # the engine's own run, with the files it checked, reads the document
    assert b'type="markable"' in xslt_engine.to_raf(mmax, "mmax2")


@pytest.mark.parametrize("processor", PROCESSORS)
@pytest.mark.parametrize("stylesheet", sorted(set(xslt_engine.FROM_RAF.values())))
def test_raf_to_format_stylesheets_refuse_entities(tmp_path, secret, processor, stylesheet):
    """raf-to-mate/-muc/-mmax2.xsl run on a RAF file that declares an entity (or takes one
    from an external DTD): refused under both processors before the stylesheet runs."""
    need(processor)
    for doctype in (f'<!DOCTYPE struct [<!ENTITY xxe SYSTEM "file://{secret}/secret.txt">]>',
                    f'<!DOCTYPE struct SYSTEM "file://{secret}/evil.dtd">'):
        raf = (f'<?xml version="1.0" encoding="UTF-8"?>\n{doctype}\n'
               '<struct type="reference_annotation_collection" version="2.0"><struct type="document" name="d">'
               '<struct type="primary_data"><w n="1">&xxe;</w><w n="2">b</w></struct>'
               '<struct type="markable" id="m1" span="1" entity="e"/></struct></struct>\n').encode()
        path = tmp_path / "in.raf.xml"
        path.write_bytes(raf)
        with pytest.raises(UnsafeInputError):
            if processor == "xsltproc":
                xslt_engine.run_xsltproc(stylesheet, path, params={"file": "manifest"})
            else:
                xslt_engine.transform(stylesheet, raf, params={"file": "manifest"})


# -- the reproducers of the security issue ------------------------------------------------
REPRODUCERS = ["S01_xxe_xsltproc.mate.xml", "S02_mmax2_abs_words", "S03_mmax2_dotdot_stylesheet",
               "S04_mmax2_dotdot_environ", "S05_mmax2_words_entity_lxml_xslt"]


def reproducer(tmp_path: Path, name: str) -> tuple[Path, str]:
    """A copy of a reproducer with ``@REPRO@`` made the folder of copies of the S00 files;
    the secret's text."""
    folder = shared_data("reproducers")
    repro = tmp_path / "repro"
    repro.mkdir()
    for marker in ("S00_secret.txt", "S00_victim_words.xml"):
        shutil.copy(folder / marker, repro / marker)
    source = folder / name
    copy = repro / name
    if source.is_dir():
        shutil.copytree(source, copy)
        files = [p for p in copy.rglob("*") if p.is_file()]
    else:
        shutil.copy(source, copy)
        files = [copy]
    for path in files:
        path.chmod(0o644)
        data = path.read_bytes()
        if b"@REPRO@" in data:
            path.write_bytes(data.replace(b"@REPRO@", str(repro).encode()))
    for path in [copy, *copy.rglob("*")] if copy.is_dir() else []:
        if path.is_dir():
            path.chmod(0o755)
    return copy, (repro / "S00_secret.txt").read_text().strip()


@pytest.mark.parametrize("processor", PROCESSORS)
@pytest.mark.parametrize("name", REPRODUCERS)
def test_security_reproducers_are_refused(tmp_path, cli, processor, name):
    need(processor)
    source, secret_text = reproducer(tmp_path, name)
    out = tmp_path / "out.raf.xml"
    result = cli("convert", source, out, "--engine", "xslt", "--xslt-processor", processor)
    assert result.exit_code == 3, result.output
    assert secret_text not in result.output and not out.exists()


@pytest.mark.parametrize("processor", PROCESSORS)
@pytest.mark.parametrize("layout", ["UTF-16", "declaration after 70 KB of comment", "declared, not used"])
def test_entity_declarations_are_found_in_any_layout(tmp_path, secret, processor, layout):
    """The check from the bytes (lxml) falls back on parsing wherever the bytes may hide a
    declaration: another encoding, a prolog longer than the parser's early look."""
    need(processor)
    project = tmp_path / "project"
    write_project(project)
    words = project / "Basedata" / "doc_words.xml"
    doctype = f'<!DOCTYPE words [<!ENTITY xxe SYSTEM "file://{secret}/secret.txt">]>\n'
    body = words.read_text().split("?>\n", 1)[1]
    if layout == "UTF-16":
        text = '<?xml version="1.0" encoding="UTF-16"?>\n' + doctype + body.replace(">a<", ">&xxe;<")
        words.write_bytes(text.encode("utf-16"))
    elif layout == "declared, not used":
        words.write_text('<?xml version="1.0"?>\n' + doctype + body)
    else:
        words.write_text('<?xml version="1.0"?>\n<!--' + "x" * 70_000 + "-->\n" + doctype
                         + body.replace(">a<", ">&xxe;<"))
    with pytest.raises(UnsafeInputError):
        xslt_engine.read(project, "mmax2", processor=processor)
