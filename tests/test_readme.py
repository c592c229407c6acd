"""The README's examples run as written: its Python block (each ``print`` must print
what its comment says) and every ``corefio`` command of its command-line block (exit
code 0 unless the line's comment says ``exit N``)."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from .conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, re.S)


def test_python_example_prints_what_it_says(monkeypatch):
    monkeypatch.chdir(REPO)
    (code,) = blocks("python")
    expected = [line.split("#", 1)[1].strip() for line in code.splitlines()
                if line.startswith("print(") and "#" in line]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    assert out.getvalue().splitlines() == expected


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
    the files earlier ones wrote)."""
    work = tmp_path_factory.mktemp("readme")
    shutil.copytree(REPO / "samples", work / "samples")
    out = {}
    for command, _ in cli_lines():
        args = shlex.split(command)[1:]
        out[command] = subprocess.run([sys.executable, "-m", "corefio", *args], capture_output=True, text=True,
                                      cwd=work)
    return out


@pytest.mark.parametrize("command,code", cli_lines())
def test_command_line_example(command, code, results):
    done = results[command]
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr


def test_setup_commands_are_the_documented_ones():
    """The two set-up commands (and .ci/run uses the second)."""
    sh = blocks("sh")
    assert sh[0].strip() == ("python -m pip install . && python -m corefio score samples/key.raf.xml "
                             "samples/response.raf.xml")
    assert sh[1].strip() == "python -m pip install -e '.[test]' && python -m pytest"
    assert sh[1].strip() in (REPO / ".ci" / "run").read_text()


def test_the_tables_are_those_the_registries_generate():
    """The formats and metrics tables come from the registries: a format or metric
    added or changed without the README following fails here."""
    from corefio.registry import capability_table
    from corefio.scoring import markdown_table

    assert capability_table() in README
    assert markdown_table() in README
