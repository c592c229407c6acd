"""The documentation site (``docs/``, ``mkdocs.yml``): it builds with ``mkdocs build
--strict`` (a broken link, a missing page or anchor, a page left out of the navigation
fails), and every example on its pages runs and shows what it prints.

Which blocks run, and how their output is checked (``docs/about-these-pages.md`` says
the same to readers):

``console``
    ``$ `` lines are commands, run in order by bash in the page's working directory; the
    lines after a command, up to the next ``$ `` line or the end of the block, are what it
    prints (standard output and error together, as a terminal shows them). Lines are
    compared exactly, trailing blanks aside; a line ``...`` stands for any number of
    lines. A command must exit 0 unless it ends with the comment ``# exit N``.
``pycon``
    a doctest: ``>>> `` and ``... `` lines are run, the lines after them are the
    expected output (``...`` inside a line stands for any text). All the ``pycon`` and
    ``python`` blocks of a page share one namespace.
``python``
    run as it is; it must print nothing, unless the next block is a ``text`` block
    titled ``Output`` (```` ```text title="Output" ````), which is then what it prints.
``sh``
    lines to copy that change the machine (installing, serving): not run, and only
    such lines are allowed in them (:data:`SH_COMMANDS`).
any other language (``text``, ``json``, ``xml``, ``conll``...)
    a file or a shape, shown: not run.

Every page runs in a fresh directory holding a copy of ``samples/`` and links to the
clone's ``tests/``, ``xslt/``, ``schemas/`` and ``benchmarks/``, so that the commands
read the files a clone has and write only there. A page that has
``<!-- docs-test: slow -->`` runs in the slow tier.

The Markdown sources are also checked here: no page cites a paper as a "seed", and
every registered format and metric has its page (the build's hook,
``docs/_hooks/corefio_docs.py``, stops on a metric it cannot place).
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import REPO

DOCS = REPO / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_hooks" not in p.parts)
SLOW_MARK = "<!-- docs-test: slow -->"
#: what the first words of a line of an ``sh`` block may be
SH_COMMANDS = ("pip install", "python -m pip install", "sudo apt-get install", "apt-get install", "git clone",
               "cd ", "corefio serve", "python -m pytest", "COREFIO_FULL_CAMPAIGNS=1 python -m pytest",
               "python -m tests.fuzz", "mkdocs ", "python benchmarks/", "COREFIO_UPDATE_SCREENSHOTS=1 ")
RUN = ("console", "pycon", "python")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+)(?P<info>[^\n`]*)$")


@dataclass
class Block:
    page: Path
    line: int  # of the opening fence, counted from 1
    language: str
    info: str
    code: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of a page, dedented (a block may sit in a list or an admonition)."""
    lines = page.read_text(encoding="utf-8").split("\n")
    found = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, fence, info = match.group("indent"), match.group("fence"), match.group("info").strip()
        end = i + 1
        while end < len(lines) and lines[end].strip() != fence:
            end += 1
        body = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in lines[i + 1:end]]
        language = info.split()[0].strip("{.}") if info else ""
        found.append(Block(page, i + 1, language, info, "\n".join(body) + "\n"))
        i = end + 1
    return found


# -- the site builds --------------------------------------------------------------------------
def mkdocs_build(config: Path, site: Path) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` as the suite runs it (not ``--quiet``: that hides the
    warnings from the count that ``--strict`` turns into a failure)."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
           "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config),
                           "--site-dir", str(site)], cwd=config.parent, capture_output=True, text=True, env=env,
                          timeout=600)


def test_a_broken_link_fails_the_strict_build(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n[gone](missing.md), [no anchor](#nowhere)\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\ntheme:\n  name: material\n"
                                        "validation:\n  links:\n    anchors: warn\n")
    done = mkdocs_build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0
    assert "missing.md" in done.stderr and "nowhere" in done.stderr


def test_the_site_builds_strictly(tmp_path):
    """``mkdocs build --strict``: every warning (a link to no page or anchor, a page
    outside the navigation, a docstring mkdocstrings cannot render) fails."""
    done = mkdocs_build(REPO / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    site = tmp_path / "site"
    for page in PAGES:
        relative = page.relative_to(DOCS).with_suffix("")
        built = site / (relative.parent if relative.name == "index" else relative) / "index.html"
        assert built.exists(), f"{page} was not built ({built})"
    # the generated parts are in: the formats table, every format's losses, the metrics table
    formats = (site / "formats" / "index.html").read_text(encoding="utf-8")
    from corefio.formats.registry import all_formats
    from corefio.scoring.registry import REGISTRY

    assert all(f'href="../{spec.name}/"' in formats or f'href="{spec.name}/"' in formats
               for spec in all_formats()), "the formats table links every format's page"
    conll = (site / "formats" / "conll" / "index.html").read_text(encoding="utf-8")
    assert "loss.discontinuous" in conll and "canonical" in conll
    metrics = (site / "metrics" / "index.html").read_text(encoding="utf-8")
    assert all(f"<code>{name}</code>" in metrics for name in REGISTRY)
    crossdoc = (site / "guide" / "cross-document" / "index.html").read_text(encoding="utf-8")
    assert "shanybar/event_entity_coref_ecb_plus" in crossdoc, "the CDCR styles table (styles_help)"
    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert 'id="corefio.read"' in api and 'id="corefio.scoring.score"' in api


# -- the sources --------------------------------------------------------------------------------
def test_every_format_and_metric_has_its_page():
    from corefio.formats.registry import all_formats

    for spec in all_formats():
        page = DOCS / "formats" / f"{spec.name}.md"
        assert page.exists(), f"format {spec.name} has no page docs/formats/{spec.name}.md"
        assert f"<!-- corefio:format {spec.name} -->" in page.read_text(encoding="utf-8"), page
    sys.path.insert(0, str(DOCS / "_hooks"))
    try:
        import corefio_docs
    finally:
        sys.path.remove(str(DOCS / "_hooks"))
    from corefio.scoring.registry import REGISTRY

    for name in REGISTRY:
        page = DOCS / "metrics" / f"{corefio_docs.METRIC_PAGES[name]}.md"
        assert "{ #" + name + " }" in page.read_text(encoding="utf-8"), f"{page} has no heading for {name}"


def test_no_page_cites_a_seed():
    """Papers are cited by authors, year and title (docs/references.md), never as
    "seed" and a number, or "the seeds". The random seed of ``corefio compare`` stays: its option
    ``--seed``, the keyword ``seed=``, "random seed" and what compare prints ("seed 1")."""
    for path in [*PAGES, REPO / "README.md"]:
        text = re.sub(r"--seed|\bseed=|random seed|\bseed [1-9]\d*\b", "", path.read_text(encoding="utf-8"))
        found = re.findall(r".{0,30}\bseeds?\b.{0,30}", text, re.I)
        assert not found, (path, found)


def test_sh_blocks_hold_only_lines_to_copy():
    for page in PAGES:
        for block in blocks(page):
            if block.language != "sh":
                continue
            for line in block.code.splitlines():
                if line.strip() and not line.lstrip().startswith("#"):
                    assert line.lstrip().startswith(SH_COMMANDS), f"{block.where}: {line!r} (run it in a console block)"


def test_the_pages_have_examples():
    """The tutorials and the reference pages are made of examples that run."""
    counted = {page: sum(b.language in RUN for b in blocks(page)) for page in PAGES}
    for name in ("getting-started.md", "tutorials/convert-and-validate.md",
                 "tutorials/agreement-and-adjudication.md", "tutorials/score-a-system.md"):
        assert counted[DOCS / name] >= 3, name
    for page in (DOCS / "formats").glob("*.md"):
        if page.name not in ("index.md", "hf-datasets.md", "spacy.md"):
            assert counted[page] >= 1, f"{page.name} shows no real example"


# -- the examples run ---------------------------------------------------------------------------
def runnable(page: Path) -> bool:
    return any(b.language in RUN for b in blocks(page))


FAST = [p for p in PAGES if runnable(p) and SLOW_MARK not in p.read_text(encoding="utf-8")]
SLOW = [p for p in PAGES if runnable(p) and SLOW_MARK in p.read_text(encoding="utf-8")]


def _id(page: Path) -> str:
    return str(page.relative_to(DOCS))


@pytest.mark.parametrize("page", FAST, ids=_id)
def test_the_examples_of_a_page(page, tmp_path, monkeypatch):
    run_page(page, tmp_path, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("page", SLOW, ids=_id)
def test_the_examples_of_a_slow_page(page, tmp_path, monkeypatch):
    run_page(page, tmp_path, monkeypatch)


def workspace(where: Path) -> Path:
    shutil.copytree(REPO / "samples", where / "samples")
    for name in ("tests", "xslt", "schemas", "benchmarks"):
        (where / name).symlink_to(REPO / name, target_is_directory=True)
    return where


def run_page(page: Path, tmp_path: Path, monkeypatch) -> None:
    work = workspace(tmp_path)
    monkeypatch.chdir(work)
    namespace: dict = {"__name__": "__docs__"}
    found = blocks(page)
    for index, block in enumerate(found):
        if block.language == "console":
            run_console(block, work)
        elif block.language == "pycon":
            run_pycon(block, namespace)
        elif block.language == "python":
            following = found[index + 1] if index + 1 < len(found) else None
            expected = following.code if following is not None and following.language == "text" \
                and 'title="Output"' in following.info else ""
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(block.code, block.where, "exec"), namespace)  # noqa: S102 (the page's own example)
            assert out.getvalue() == expected, f"{block.where}: printed\n{out.getvalue()}"


def commands(block: Block) -> list[tuple[str, list[str], int]]:
    """``(command, expected lines, exit code)`` of each ``$ `` line of a console block."""
    out: list[tuple[str, list[str], int]] = []
    for line in block.code.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            command = line[2:]
            match = re.search(r"\s#\s*exit (\d+)\s*$", command)
            out.append((command, [], int(match.group(1)) if match else 0))
        else:
            assert out, f"{block.where}: a console block starts with a '$ ' line"
            out[-1][1].append(line.rstrip())
    return out


def matches(expected: list[str], got: list[str]) -> bool:
    """Line by line; ``...`` alone on a line stands for any number of lines."""
    if not expected:
        return not got
    if expected[0] == "...":
        return any(matches(expected[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and got[0] == expected[0] and matches(expected[1:], got[1:])


#: outside quotes, these make a line the shell's business (pipes, redirections, patterns...)
SHELL = re.compile(r"[|<>;&$*?`~()\[\]{}]")


def in_process(command: str) -> list[str] | None:
    """The arguments of a plain ``corefio …`` line, which runs in this process (fast);
    None for a line that needs the shell."""
    unquoted = re.sub(r"'[^']*'|\"[^\"]*\"", "", command.split(" #")[0])
    if SHELL.search(unquoted):
        return None
    words = shlex.split(command, comments=True)
    return words[1:] if words and words[0] == "corefio" else None


def run_console(block: Block, work: Path) -> None:
    from typer.testing import CliRunner

    from corefio.cli import app

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
           "PYTHONUNBUFFERED": "1", "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
           "COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"}
    for command, expected, code in commands(block):
        arguments = in_process(command)
        if arguments is not None:
            result = CliRunner(env={"COLUMNS": "100", "NO_COLOR": "1"}).invoke(app, arguments)
            output, status = result.output, result.exit_code
            assert result.exception is None or isinstance(result.exception, SystemExit), \
                f"{block.where}: {command}: {result.exception!r}"
        else:
            done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=work, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
            output, status = done.stdout, done.returncode
        got = [line.rstrip() for line in output.rstrip("\n").split("\n")] if output.strip() else []
        while expected and expected[-1] == "":
            expected.pop()
        assert status == code, f"{block.where}: `{command}` exited {status}, not {code}:\n{output}"
        assert matches(expected, got), (f"{block.where}: `{command}` printed\n" + "\n".join(got)
                                        + "\n-- the page shows --\n" + "\n".join(expected))


def run_pycon(block: Block, namespace: dict) -> None:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(block.code, namespace, block.where, str(block.page), block.line)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out = io.StringIO()
    runner.run(test, out=out.write, clear_globs=False)
    assert runner.failures == 0, f"{block.where}:\n{out.getvalue()}"
    namespace.update(test.globs)


def test_the_matcher():
    """The ``...`` rule of console blocks, on its own."""
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "b"], ["a", "b"])
    assert not matches(["a", "...", "d"], ["a", "b", "c"])
    assert not matches(["a"], ["a", "b"])
    assert in_process("corefio score a b -m muc") == ["score", "a", "b", "-m", "muc"]
    assert in_process("corefio validate 'corpus/*.conll'  # a pattern, quoted") == ["validate", "corpus/*.conll"]
    assert in_process("corefio convert a.raf.xml - --to conll | head -3") is None
    assert in_process("cat key.conll") is None


def test_the_citation_file_names_corefio_and_its_papers():
    """CITATION.cff (Citation File Format 1.2.0; cffconvert --validate accepts it) cites
    corefio at its version and lists the papers it implements."""
    yaml = pytest.importorskip("yaml")
    import corefio

    citation = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation["cff-version"] == "1.2.0"
    assert citation["version"] == corefio.__version__
    assert citation["title"].startswith("corefio") and citation["authors"]
    titles = {reference["title"] for reference in citation["references"]}
    for title in ("Online evaluation of coreference resolution",
                  "Evaluating reference resolution: a guide to numeric measures",
                  "Algorithms for scoring coreference chains",
                  "Evaluation metrics for end-to-end coreference resolution systems"):
        assert title in titles
    references = " ".join((DOCS / "references.md").read_text(encoding="utf-8").lower().split())
    assert all(" ".join(title.lower().split()) in references for title in titles), titles
