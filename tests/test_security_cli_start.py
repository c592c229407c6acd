"""The command line refuses a hostile input without loading what it does not need: the
scoring engine (numpy, every metric) was imported at every start for two options' help
texts, a third of the start of every command, refusals included. Counted by the modules
loaded, not timed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .conftest import REPO
from .test_hardening_inception import lying_count

PROBE = """
import json, runpy, sys
sys.argv = ["corefio", *sys.argv[1:]]
try:
    runpy.run_module("corefio", run_name="__main__")
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "scoring": "corefio.scoring.engine" in sys.modules,
                  "numpy": "numpy" in sys.modules}))
"""


def run(*args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env,
                          timeout=120, stdin=subprocess.DEVNULL)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_refusing_a_hostile_zip_loads_no_scoring_engine(tmp_path: Path):
    hostile = tmp_path / "many.zip"
    hostile.write_bytes(lying_count(12_000))
    for command in ("info", "validate", "convert"):
        args = [command, str(hostile), "--from", "xmi"]
        if command == "convert":
            args[2:2] = [str(tmp_path / "out.conll")]
        result = run(*args)
        assert result["code"] in (3, 4) and not result["scoring"] and not result["numpy"], (command, result)


def test_the_help_still_names_every_metric_and_preset():
    from corefio.scoring import REGISTRY
    from corefio.scoring.presets import PRESETS

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    text = subprocess.run([sys.executable, "-m", "corefio", "score", "--help"], capture_output=True, text=True,
                          env=env, timeout=120).stdout
    flat = " ".join(text.split())
    assert all(name in flat for name in REGISTRY), [n for n in REGISTRY if n not in flat]
    assert all(name in flat for name in PRESETS), [n for n in PRESETS if n not in flat]
    assert "\0" not in text
