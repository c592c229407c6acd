"""ruff and mypy run clean on the package (they are part of the test extra, so the
README's test command runs them too)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import REPO


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing():
    result = run("ruff", "check", "corefio", "tests", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_finds_nothing():
    result = run("mypy")
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
