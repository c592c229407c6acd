"""Shared paths and helpers for the test suite (it needs nothing outside this clone)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "samples"
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture
def cli():
    """Run the corefio CLI in-process: cli("info", path) -> click Result."""
    from corefio.cli import app

    runner = CliRunner()

    def run(*args: str):
        return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)

    return run
