"""Shared paths and helpers for the test suite (it needs nothing outside this clone)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "samples"
DATA = Path(__file__).resolve().parent / "data"

# Hypothesis explores at random on developers' machines; CI (.ci/run sets
# HYPOTHESIS_PROFILE=ci) uses a fixed seed, so that every run is reproducible.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

#: long property campaigns run whole in CI's slow pass (.ci/run sets this and selects
#: `-m "slow or campaign"`); in the fast tier, a fifth of their examples
FULL_CAMPAIGNS = os.environ.get("COREFIO_FULL_CAMPAIGNS", "") not in ("", "0")


def campaign(max_examples: int, **options):
    """``@settings`` of a property test whose campaign is long: ``max_examples`` in CI's
    slow pass, a fifth of them (at least 5) in the fast tier; the test is marked
    ``campaign``, which is how the slow pass finds it. ``deadline`` is off unless given."""
    count = max_examples if FULL_CAMPAIGNS else max(5, max_examples // 5)
    configured = settings(max_examples=count, **{"deadline": None, **options})

    def apply(test):
        return pytest.mark.campaign(configured(test))

    return apply


@pytest.fixture
def cli():
    """Run the corefio CLI in-process: cli("info", path) -> click Result."""
    from corefio.cli import app

    runner = CliRunner()

    def run(*args: str):
        return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)

    return run



#: ../shared beside the clone: data whose licence keeps it out of the repository
SHARED = REPO.parent / "shared"


def shared_data(relative: str) -> Path:
    """A path under ../shared; the test skips where it is absent, except in CI, where
    ``COREFIO_REQUIRE_SHARED=1`` (set by .ci/run) turns the skip into a failure."""
    path = SHARED / relative
    if not path.exists():
        if os.environ.get("COREFIO_REQUIRE_SHARED"):
            pytest.fail(f"{path} is missing and COREFIO_REQUIRE_SHARED is set")
        pytest.skip(f"{path} is not here (licensed data kept out of the repository)")
    return path
