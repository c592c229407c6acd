"""Progress bars (issue 22): on stderr, counting documents (across the processes of
``--jobs``), only when stderr is a terminal, never under ``-q``; stdout unchanged."""

from __future__ import annotations

import random
import re

import pytest
from typer.testing import CliRunner

from corefio import cli, parallel
from corefio.cli import app

from .test_jobs import conll_corpus, key_and_systems


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.setattr(cli, "PROGRESS_DELAY", 0)  # quick commands draw a bar too
    monkeypatch.setattr(parallel, "SPLIT_BYTES", 2000)
    return key_and_systems(tmp_path, conll_corpus(12))


def terminal(monkeypatch, yes: bool) -> None:
    monkeypatch.setattr(cli, "_stderr_is_terminal", lambda: yes)


def run(*args) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def commands(files, tmp_path) -> dict[str, list]:
    return {
        "info": ["info", files["key"]],
        "validate": ["validate", files["key"], files["response"]],
        "score": ["score", files["key"], files["response"]],
        "compare": ["compare", files["key"], files["response"], files["other"], "--samples", "50", "--seed", "1"],
        "convert": ["convert", files["key"], tmp_path / "out.jsonlines"],
        "convert-many": ["convert", str(tmp_path / "*_conll"), tmp_path / "many", "--to", "jsonlines"],
        "sync": ["sync", files["key"], files["response"], "-o", tmp_path / "synced", "--to", "conll"],
    }


#: what a tqdm bar of documents leaves in its stream
BAR = re.compile(r"\d+ documents")


@pytest.mark.parametrize("command", ["info", "validate", "score", "compare", "convert", "convert-many", "sync"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_bar_on_a_terminal_and_nothing_else(files, tmp_path, monkeypatch, command, jobs):
    args = [*commands(files, tmp_path)[command], "--jobs", jobs]
    terminal(monkeypatch, False)
    plain = run(*args)
    assert plain[0] == 0 and not BAR.search(plain[2])
    terminal(monkeypatch, True)
    drawn = run(*args)
    assert drawn[:2] == plain[:2]  # the output is the same
    assert BAR.search(drawn[2]), drawn[2]
    quiet = run(*args, "-q")
    assert quiet[0] == 0 and not BAR.search(quiet[2]) and quiet[2] == ""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_bar_counts_every_document_across_workers(files, tmp_path, monkeypatch, jobs):
    terminal(monkeypatch, True)
    counted = []
    original = cli._counting

    def spy(label, total=None, unit=" documents"):
        context = original(label, total, unit)

        class Counting:
            def __enter__(self):
                update = context.__enter__()

                def done(n):
                    counted.append(n)
                    update(n)
                return done

            def __exit__(self, *exc):
                return context.__exit__(*exc)
        return Counting()

    monkeypatch.setattr(cli, "_counting", spy)
    for side, name in (("key", "keys"), ("response", "responses")):  # two pairs of files in two folders
        (tmp_path / name).mkdir()
        for pair in ("a", "b"):  # (a document is named once in all the files)
            (tmp_path / name / f"{pair}.{files[side].name.split('.')[1]}").write_text(
                files[side].read_text().replace("test/doc", f"{pair}/doc"))
    for args, documents in ((["info", files["key"], files["response"]], 24),
                            (["score", tmp_path / "keys", tmp_path / "responses"], 24),
                            (["compare", tmp_path / "keys", tmp_path / "responses", tmp_path / "keys",
                              "--samples", "20"], 48),
                            (["sync", tmp_path / "keys", tmp_path / "responses", "-o", tmp_path / "synced-many"], 24),
                            (["validate", files["key"]], 12),
                            (["score", files["key"], files["response"]], 12),
                            (["convert", str(tmp_path / "*_conll"), tmp_path / "many", "--to", "conllu"], 36),
                            (["sync", files["key"], files["response"], "-o", tmp_path / "synced"], 12)):
        counted.clear()
        assert run(*args, "--jobs", jobs)[0] == 0
        assert sum(counted) == documents, args


def test_random_is_seeded():  # the corpus the tests use is the same on every run
    assert conll_corpus(2) == conll_corpus(2) and random.Random(7).random() == random.Random(7).random()
