"""The README, the landing page, works as written: its Python blocks (each ``print``
must print what its comment says), every ``corefio`` command of its command-line blocks
(exit code 0 unless the line's comment says ``exit N``), the score table it shows, the two
set-up commands, and its links into docs/ (whose own examples tests/test_docs.py runs)."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import shutil

import pytest

from .conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, re.S)


def test_the_readme_has_python_examples():
    assert len(blocks("python")) >= 2


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_python_example_prints_what_it_says(index, monkeypatch, tmp_path):
    """Each block runs on its own, in a directory holding a copy of the samples (a block
    may write files). A ``print`` with a comment must print what the comment says: the
    comments are the whole output when every print is at the top level, else (prints in
    a loop) they come in this order among its lines."""
    shutil.copytree(REPO / "samples", tmp_path / "samples")
    monkeypatch.chdir(tmp_path)
    code = blocks("python")[index]
    prints = [line for line in code.splitlines() if line.lstrip().startswith("print(")]
    expected = [line.split("#", 1)[1].strip() for line in prints if "#" in line]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    if all(line.startswith("print(") for line in prints):
        assert lines == expected
    else:
        assert expected, "a block with prints says what one of them prints"
        remaining = iter(lines)
        assert all(any(line == want for line in remaining) for want in expected), (expected, lines)


def test_the_suite_runs_in_parallel_and_has_a_slow_tier():
    """pytest-xdist by default (the suite must stay within minutes on two cores); the
    plain command runs the fast tier, and CI runs the README's command and then the
    `slow` tier, so that everything runs there."""
    pyproject = (REPO / "pyproject.toml").read_text()
    (addopts,) = re.findall(r'^addopts = "(.*)"$', pyproject, re.M)
    assert shlex.split(addopts) == ["-ra", "-n", "auto", "-m", "not slow"]
    assert re.search(r'^markers = \[\n    "slow: ', pyproject, re.M)
    ci = (REPO / ".ci" / "run").read_text()
    fast = ci.index("python -m pip install -e '.[test]' && python -m pytest ")
    slow = ci.index('\nCOREFIO_FULL_CAMPAIGNS=1 python -m pytest -m "slow or campaign" ')
    assert fast < slow and "exit \"$status\"" in ci[slow:]


def test_the_score_table_shown_is_what_the_command_prints(cli):
    """The README's example of the score table, printed by the command it shows."""
    shown = re.search(r"\$ corefio score samples/key.raf.xml samples/response.raf.xml -m muc,conll\n(.*?)```",
                      README, re.S)
    assert shown is not None
    result = cli("score", REPO / "samples/key.raf.xml", REPO / "samples/response.raf.xml", "-m", "muc,conll")
    assert result.stdout == shown.group(1)


def cli_lines() -> list[tuple[str, int]]:
    lines = []
    for block in blocks("sh"):
        for line in block.splitlines():
            if line.startswith("corefio "):
                command, _, comment = line.partition("#")
                match = re.search(r"exit (\d+)", comment)
                lines.append((command.strip(), int(match.group(1)) if match else 0))
    return lines


def test_the_readme_has_command_examples():
    commands = {line.split()[1] for line, _ in cli_lines()}
    assert commands >= {"formats", "info", "validate", "convert", "view", "score"}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Every command of the block, run in order in one directory (later commands use
    the files earlier ones wrote). They run in this process, with typer's test runner:
    what only a process adds (the exit code passed on, output flushed) is checked once
    by tests/test_cli.py::test_the_console_entry_point_passes_exit_codes_and_flushes."""
    from typer.testing import CliRunner

    from corefio.cli import app

    work = tmp_path_factory.mktemp("readme")
    shutil.copytree(REPO / "samples", work / "samples")
    # the team workflow's three annotators: the folders of tests/data/agreement/gum-annotators
    for folder, annotator in (("a", "ann"), ("b", "ben"), ("c", "cat")):
        shutil.copytree(REPO / "tests/data/agreement/gum-annotators" / folder, work / annotator)
    out = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(work)
        for command, _ in cli_lines():
            out[command] = CliRunner().invoke(app, shlex.split(command)[1:])
    return out


@pytest.mark.parametrize("command,code", cli_lines())
def test_command_line_example(command, code, results):
    done = results[command]
    assert done.exit_code == code, done.output
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exception


def test_setup_commands_are_the_documented_ones():
    """The two set-up commands (and .ci/run uses the second)."""
    sh = blocks("sh")
    assert sh[0].strip() == ("python -m pip install . && python -m corefio score samples/key.raf.xml "
                             "samples/response.raf.xml")
    assert sh[1].strip() == "python -m pip install -e '.[test]' && python -m pytest"
    assert sh[1].strip() in (REPO / ".ci" / "run").read_text()


def test_the_readme_is_a_landing_page():
    """The README says what corefio is, how to install it and the commands that matter,
    and links to the documentation for the rest (the tables of formats and metrics, every
    option and the design notes live in docs/, built and checked by tests/test_docs.py)."""
    assert len(README.splitlines()) <= 250
    for heading in ("## Set-up: two commands", "## The commands that matter", "## Documentation"):
        assert heading in README


def test_the_readme_links_to_pages_that_exist():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    local = [link for link in links if not link.startswith(("http://", "https://"))]
    assert len(local) >= 15
    for link in local:
        assert (REPO / link).exists(), link


def test_the_readme_says_what_the_browser_tests_need():
    """The tests' extra system packages, as .ci/run installs them (Debian's names)."""
    setup = README[README.index("## Set-up"):README.index("## The commands that matter")]
    assert "sudo apt-get install xsltproc chromium chromium-driver" in setup
    ci = (REPO / ".ci" / "run").read_text()
    assert all(name in ci for name in ("xsltproc", "chromium", "chromium-driver"))
