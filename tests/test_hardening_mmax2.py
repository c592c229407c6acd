"""MMAX2 hardening: the reproducers R01, R09, R13, R14 and the engines that disagreed on
S06 and on a ``.mmax`` link leading out (../shared/reproducers; each README says what
went wrong). Every case runs on all three engines (the Python reader, the XSLT engine
under lxml and under xsltproc), which must refuse alike, with an input error located
where the problem is (exit 3), and show nothing from outside the project.

Rules tested: the stylesheets receive only paths the Python side resolved, confined and
checked (one :class:`corefio.formats.mmax2.project.Project` for every engine), and build
none; an element a reader uses once, written twice, is an error everywhere; only regular
files are opened; xsltproc has a timeout and dies with corefio; a file the XML parser
refuses inside a stylesheet run is a located input error; undefined or external
entities are an error everywhere.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import corefio
import corefio.formats.mmax2  # noqa: F401  (registers the format)
from corefio.errors import CorefioError, FormatError, UnsafeInputError
from corefio.transform import engine as xslt_engine

from .conftest import DATA, shared_data
from .test_xslt_engine import need

WORSHIP = DATA / "mmax2" / "worship"
ENGINES = ["python", "lxml", "xsltproc"]
SECRET = "TOP-SECRET-R01"
REPO = Path(__file__).resolve().parent.parent


def read_with(engine: str, path: Path):
    """Read ``path`` with one engine (``python``, ``lxml`` or ``xsltproc``)."""
    if engine == "python":
        return corefio.read(path, "mmax2")
    need(engine)
    return xslt_engine.read(path, "mmax2", processor=engine)


def engine_args(engine: str) -> list[str]:
    return [] if engine == "python" else ["--engine", "xslt", "--xslt-processor", engine]


def project(tmp_path: Path, name: str = "project") -> Path:
    """A copy of the worship project with one document (``worship``)."""
    target = tmp_path / name
    shutil.copytree(WORSHIP, target)
    (target / "worship_b.mmax").unlink()
    for path in target.glob("*/worship_b_*"):
        path.unlink()
    return target


def replace_in(path: Path, old: str, new: str) -> None:
    """Replace ASCII ``old`` by ``new`` once in ``path``, whatever its encoding
    (the worship project has windows-1250 files)."""
    data = path.read_bytes()
    assert old.encode() in data, old
    path.write_bytes(data.replace(old.encode(), new.encode("latin-1"), 1))


def line_of(path: Path, needle: str, start: int = 0) -> int:
    lines = path.read_bytes().decode("latin-1").splitlines()
    return next(k for k, text in enumerate(lines, 1) if k > start and needle in text)


def victim(tmp_path: Path) -> Path:
    """A level file outside the project whose markable carries the secret."""
    outside = tmp_path / "victim"
    outside.mkdir()
    (outside / "other_coref_level.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<markables xmlns="www.eml.org/NameSpaces/coref">\n'
        f'<markable id="markable_1" span="w0" mmax_level="coref" comment="{SECRET}"/>\n</markables>\n')
    return outside


def copy_reproducer(name: str, tmp_path: Path) -> Path:
    source = shared_data(f"reproducers/{name}")
    target = tmp_path / name
    shutil.copytree(source, target)
    for path in [target, *target.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return target


def everything_under(directory: Path) -> bytes:
    return b"".join(p.read_bytes() for p in directory.rglob("*") if p.is_file()) if directory.exists() else b""


# -- R01: a second <annotations> the engine did not check ------------------------------------------
SECOND_ANNOTATIONS = ('<annotations/>\n<annotations>\n<level name="coref" schemefile="coref_scheme.xml" '
                      'customization_file="coref_customization.xml">../../victim/other_coref_level.xml</level>\n'
                      "</annotations>")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("where", ["common_paths.xml", "worship.mmax"])
def test_R01_xsltproc_second_annotations(tmp_path, cli, engine, where):
    """An empty <annotations/> followed by a second one naming a level file outside the
    project, in common_paths.xml or (when common_paths.xml names no level) in the .mmax
    file: refused by every engine at the second <annotations>, nothing read from it."""
    victim(tmp_path)
    root = project(tmp_path)
    common = root / "common_paths.xml"
    text = common.read_text(encoding="utf-8")
    start, end = text.index("<annotations>"), text.index("</annotations>") + len("</annotations>")
    if where == "common_paths.xml":
        common.write_text(text[:start] + SECOND_ANNOTATIONS + text[end:], encoding="utf-8")
    else:
        common.write_text(text[:start] + text[end:], encoding="utf-8")
        replace_in(root / "worship.mmax", "</mmax_project>", SECOND_ANNOTATIONS + "\n</mmax_project>")
    named = root / where
    with pytest.raises(FormatError, match="<annotations> is written 2 times") as err:
        read_with(engine, root)
    assert err.value.file == str(named) and err.value.line == line_of(named, "<annotations>", 1) + 0
    assert err.value.line == line_of(named, "<annotations>")
    out = tmp_path / "out.raf.xml"
    result = cli("convert", root, out, *engine_args(engine))
    assert result.exit_code == 3, result.output
    assert SECRET not in result.output and not out.exists()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("element, where", [("basedata_path", "common_paths.xml"),
                                            ("markable_path", "common_paths.xml"),
                                            ("words", "worship.mmax")])
def test_R01_any_element_read_once_written_twice_is_an_error(tmp_path, engine, element, where):
    root = project(tmp_path)
    named = root / where
    text = named.read_text(encoding="utf-8")
    start = text.index(f"<{element}>")
    end = text.index(f"</{element}>") + len(f"</{element}>")
    named.write_text(text[:end] + "\n" + text[start:end] + text[end:], encoding="utf-8")
    with pytest.raises(FormatError, match=f"<{element}> is written 2 times") as err:
        read_with(engine, root)
    assert err.value.file == str(named)


@pytest.mark.parametrize("engine", ENGINES)
def test_R01_a_level_declared_twice_is_an_error(tmp_path, engine):
    root = project(tmp_path)
    common = root / "common_paths.xml"
    replace_in(common, '<level name="np"', '<level name="coref" schemefile="coref_scheme.xml">$_np_level.xml</level>\n'
               '<level name="np"')
    with pytest.raises(FormatError, match="level 'coref' is declared twice"):
        read_with(engine, root)


@pytest.mark.parametrize("engine", ENGINES)
def test_R01_the_reproducer(tmp_path, cli, engine):
    if engine != "python":
        need(engine)
    folder = copy_reproducer("R01_xsltproc_second_annotations", tmp_path)
    secret = (folder / "victim/other_coref_level.xml").read_text(encoding="utf-8")
    assert "TOP-SECRET" in secret
    out = tmp_path / "out.raf.xml"
    result = cli("convert", folder / "proj", out, *engine_args(engine))
    assert result.exit_code == 3, result.output
    assert "common_paths.xml:13" in result.output and "TOP-SECRET" not in result.output
    assert not out.exists()
    info = cli("info", folder / "proj")
    assert info.exit_code == 3 and "<annotations> is written 2 times" in info.output


# -- R09: a FIFO in the project; xsltproc's timeout and death with corefio ---------------------------
FIFO_MEMBERS = {"words": "Basedata/worship_words.xml", "level": "Markables/worship_np_level.xml",
                "common_paths": "common_paths.xml", "dtd": "Markables/markables.dtd"}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("member", list(FIFO_MEMBERS))
def test_R09_xsltproc_fifo_hang(tmp_path, engine, member):
    """A FIFO where a project file should be: every engine refuses it at once (a located
    input error), none opens it. Run in a child process with a generous hang guard: before,
    xsltproc blocked for ever in open()."""
    if engine != "python":
        need(engine)
    root = project(tmp_path)
    fifo = root / FIFO_MEMBERS[member]
    fifo.unlink()
    os.mkfifo(fifo)
    out = tmp_path / "out.raf.xml"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "corefio", "convert", str(root), str(out), *engine_args(engine)],
                          capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)
    assert done.returncode == 3, done.stderr
    assert "is a FIFO, not a regular file" in done.stderr and fifo.name in done.stderr
    assert not out.exists()


def fake_program(tmp_path: Path, pid_file: Path) -> Path:
    """A program that writes its pid and then waits for a long time (stands for an
    xsltproc that never ends)."""
    script = tmp_path / "slow-program"
    script.write_text(f"#!/bin/sh\necho $$ > '{pid_file}'\nexec sleep 300\n")
    script.chmod(0o755)
    return script


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # a zombie left for its (dead) parent's reaper still answers kill(pid, 0)
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


def test_R09_an_external_program_is_stopped_after_its_timeout(tmp_path):
    pid_file = tmp_path / "pid"
    program = fake_program(tmp_path, pid_file)
    with pytest.raises(CorefioError, match="did not finish within 0.5 s: stopped") as err:
        xslt_engine.run_child([str(program)], timeout=0.5, what="xsltproc x.xsl", file="in.xml")
    assert err.value.file == "in.xml" and err.value.exit_code == 3
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 30
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(pid)


def test_R09_xsltproc_uses_the_timeout(tmp_path, monkeypatch):
    """The engine's xsltproc runs go through run_child with XSLTPROC_TIMEOUT."""
    pid_file = tmp_path / "pid"
    program = fake_program(tmp_path, pid_file)
    real = shutil.which

    monkeypatch.setattr(xslt_engine.shutil, "which", lambda name: str(program) if name == "xsltproc" else real(name))
    monkeypatch.setattr(xslt_engine, "XSLTPROC_TIMEOUT", 0.5)
    with pytest.raises(CorefioError, match="xsltproc mmax2-to-raf.xsl did not finish within 0.5 s"):
        xslt_engine.read(project(tmp_path), "mmax2", processor="xsltproc")


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv (util-linux) sets the parent-death signal")
def test_R09_the_program_dies_with_corefio(tmp_path):
    """corefio killed by SIGKILL (no chance to clean up): the program it started is
    killed by the kernel, not left behind."""
    pid_file = tmp_path / "pid"
    program = fake_program(tmp_path, pid_file)
    code = textwrap.dedent(f"""
        from corefio.transform import engine
        engine.run_child([{str(program)!r}], timeout=600, what="xsltproc", file=None)
    """)
    parent = subprocess.Popen([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(REPO)},
                              stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not (pid_file.exists() and pid_file.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)
        child = int(pid_file.read_text())
        assert not gone(child)
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 30
        while not gone(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert gone(child), "the program outlived corefio"
    finally:
        if parent.poll() is None:
            parent.kill()
        if pid_file.exists() and pid_file.read_text().strip() and not gone(int(pid_file.read_text())):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


def test_R09_the_reproducers_make_script_gives_a_refused_project(tmp_path, cli):
    folder = copy_reproducer("R09_xsltproc_fifo_hang", tmp_path)
    done = subprocess.run(["sh", "make.sh"], cwd=folder, env={**os.environ, "MAIN": str(REPO)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    words = folder / "proj/Basedata/worship_words.xml"
    assert words.is_fifo()
    for engine in ENGINES:
        if engine == "xsltproc" and not xslt_engine.xsltproc_available():
            continue
        with pytest.raises(FormatError, match="is a FIFO") as err:
            read_with(engine, folder / "proj")
        assert err.value.file == str(folder / "proj/worship.mmax") and err.value.line == 3


# -- R13: a file the parser refuses inside an lxml stylesheet run ------------------------------------
def deep(path: Path, depth: int) -> None:
    """Nest the first word (or markable, or scheme attribute) of ``path`` ``depth`` deep."""
    text = path.read_bytes().decode("latin-1")
    for tag in ("<word ", "<markable ", "<attribute "):
        if tag in text:
            at = text.index(tag)
            text = text[:at] + "<x>" * depth + "</x>" * depth + text[at:]
            break
    path.write_bytes(text.encode("latin-1"))


R13_MEMBERS = {"words": "Basedata/worship_words.xml", "level": "Markables/worship_coref_level.xml",
               "scheme": "Schemes/coref_scheme.xml"}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("member", list(R13_MEMBERS))
def test_R13_lxml_xslt_deep_nesting(tmp_path, cli, engine, member):
    if engine != "python":
        need(engine)
    root = project(tmp_path)
    path = root / R13_MEMBERS[member]
    deep(path, 300)
    with pytest.raises(UnsafeInputError, match="nest more than 256 levels deep") as err:
        read_with(engine, root)
    assert Path(err.value.file).resolve() == path.resolve() and err.value.line is not None
    result = cli("convert", root, tmp_path / "out.raf.xml", *engine_args(engine))
    assert result.exit_code == 3 and "internal error" not in result.output, result.output


@pytest.mark.parametrize("engine", ENGINES)
def test_R13_a_text_node_too_long(tmp_path, cli, engine):
    """A word of 11 MB (libxml2's limit for a text node is 10 MB without its "huge"
    option): a located input error on every engine."""
    if engine != "python":
        need(engine)
    root = project(tmp_path)
    words = root / "Basedata/worship_words.xml"
    replace_in(words, ">court<", ">" + "x" * (11 * 1024 * 1024) + "<")
    with pytest.raises(FormatError, match="Text node too long") as err:
        read_with(engine, root)
    assert Path(err.value.file).resolve() == words.resolve() and err.value.line is not None
    result = cli("convert", root, tmp_path / "out.raf.xml", *engine_args(engine))
    assert result.exit_code == 3 and "internal error" not in result.output


@pytest.mark.parametrize("engine", ENGINES)
def test_R13_the_reproducer(tmp_path, cli, engine):
    if engine != "python":
        need(engine)
    folder = copy_reproducer("R13_lxml_xslt_deep_nesting", tmp_path)
    result = cli("convert", folder / "proj", tmp_path / "o.raf.xml", *engine_args(engine))
    assert result.exit_code == 3, result.output
    assert "worship_words.xml" in result.output and "nest more than 256 levels deep" in result.output


# -- R14: an entity the words file's external DTD would define ---------------------------------------
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("where", ["word", "markable attribute", "scheme"])
def test_R14_mmax2_undefined_entity_empty_word(tmp_path, cli, engine, where):
    """Before: the Python reader read the word as empty, exit 0, and validate said valid,
    while the XSLT engines refused. Now every engine refuses, at the reference."""
    if engine != "python":
        need(engine)
    root = project(tmp_path)
    (root / "Basedata/words_ext.dtd").write_text('<!ENTITY secret "TOP SECRET">\n')
    if where == "word":
        path = root / "Basedata/worship_words.xml"
        replace_in(path, '"words.dtd"', '"words_ext.dtd"')
        replace_in(path, ">court<", ">&secret;<")
    elif where == "markable attribute":
        path = root / "Markables/worship_coref_level.xml"
        replace_in(path, 'coref_set="set_', 'coref_set="&secret;_')
    else:
        path = root / "Schemes/coref_scheme.xml"
        replace_in(path, "?>\n", '?>\n<!DOCTYPE annotationscheme SYSTEM "scheme.dtd">\n')
        replace_in(path, 'name="Coref_Set"', 'name="&secret;"')
    with pytest.raises(UnsafeInputError, match="entity reference &secret; refused") as err:
        read_with(engine, root)
    assert Path(err.value.file).resolve() == path.resolve() and err.value.line == line_of(path, "&secret;")
    result = cli("convert", root, tmp_path / "out.raf.xml", *engine_args(engine))
    assert result.exit_code == 3 and "TOP SECRET" not in result.output


def test_R14_the_reproducer(tmp_path, cli):
    folder = copy_reproducer("R14_mmax2_undefined_entity_empty_word", tmp_path)
    result = cli("convert", folder / "proj", "-", "--to", "jsonlines")
    assert result.exit_code == 3 and "entity reference &secret; refused" in result.output
    validated = cli("validate", folder / "proj")
    assert validated.exit_code != 0 and "INVALID" in validated.output
    for engine in ("lxml", "xsltproc"):
        if engine == "xsltproc" and not xslt_engine.xsltproc_available():
            continue
        converted = cli("convert", folder / "proj", tmp_path / "o.raf.xml", *engine_args(engine))
        assert converted.exit_code == 3 and "&secret;" in converted.output


# -- one confinement check, shared by all engines ----------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES)
def test_S06_a_long_customization_name_is_refused_by_every_engine(tmp_path, cli, engine):
    """Before: refused by the Python reader, accepted by both XSLT engines (which did not
    look the customization file up)."""
    if engine != "python":
        need(engine)
    folder = copy_reproducer("S06_mmax2_long_customization", tmp_path)
    with pytest.raises(FormatError, match="cannot be looked up") as err:
        read_with(engine, folder)
    assert Path(err.value.file).name == "common_paths.xml" and err.value.line == 13
    result = cli("convert", folder, tmp_path / "o.raf.xml", *engine_args(engine))
    assert result.exit_code == 3 and "common_paths.xml:13" in result.output


@pytest.mark.parametrize("engine", ENGINES)
def test_a_mmax_file_linked_from_outside_is_refused_by_every_engine(tmp_path, engine):
    """Before: refused by the Python reader, followed by both XSLT engines."""
    if engine != "python":
        need(engine)
    root = project(tmp_path)
    outside = tmp_path / "elsewhere.mmax"
    shutil.copy(root / "worship.mmax", outside)
    replace_in(outside, "worship_words.xml", "worship_words.xml")
    (root / "other.mmax").symlink_to(outside)
    with pytest.raises(UnsafeInputError, match="outside the project"):
        read_with(engine, root)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("member", ["Basedata/words.dtd", "Styles/worship_style.xsl",
                                    "Customizations/coref_customization.xml", "Schemes/coref_scheme.xml"])
def test_every_project_file_linked_out_is_refused_by_every_engine(tmp_path, engine, member):
    """Files the stylesheet does not read (DTDs, style sheets, customizations) are
    confined for every engine too: one check, the same answer."""
    if engine != "python":
        need(engine)
    root = project(tmp_path)
    secret = tmp_path / "secret.xml"
    secret.write_text('<?xml version="1.0"?>\n<annotationscheme><!-- TOP SECRET --></annotationscheme>\n')
    (root / member).unlink()
    (root / member).symlink_to(secret)
    with pytest.raises(UnsafeInputError, match="outside the project"):
        read_with(engine, root)
