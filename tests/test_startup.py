"""What a command imports before it does its work: ``python -m corefio --version`` and the
light commands must not pay for the heavy libraries that only some commands need.

Each case runs the command line in a fresh interpreter and lists the modules it
imported (a count of what was loaded, never a time)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import DATA

REPO = Path(__file__).resolve().parent.parent
CONLL = DATA / "golden" / "sample.conll"
RAF = REPO / "samples" / "key.raf.xml"

#: the command line run as ``python -m corefio`` does, then the modules it left loaded
PROBE = """
import json, runpy, sys
sys.argv = ["corefio", *sys.argv[1:]]
code = 0
try:
    runpy.run_module("corefio", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    code = exc.code or 0
sys.stderr.write("\\n" + json.dumps({"code": code, "modules": sorted(sys.modules)}) + "\\n")
"""

#: libraries that only some commands or formats need (XMI, spaCy, Hugging Face,
#: plots, the web server, the bootstrap's statistics)
HEAVY = {"scipy", "matplotlib", "cassis", "spacy", "srsly", "datasets", "pyarrow", "pandas", "fastapi",
         "starlette", "uvicorn", "jinja2", "torch", "xmlschema"}


def loaded(*args: str) -> set[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env,
                          timeout=120, cwd=REPO)
    found = json.loads(done.stderr.strip().splitlines()[-1])
    assert found["code"] == 0, done.stderr
    return set(found["modules"])


def top_level(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def test_version_loads_typer_and_nothing_of_the_formats_or_the_model():
    modules = loaded("--version")
    assert "typer" in modules  # the probe ran the command line
    assert not top_level(modules) & (HEAVY | {"numpy", "lxml", "pydantic"})
    ours = {m for m in modules if m.startswith("corefio.")}
    assert not {m for m in ours if m.startswith(("corefio.formats", "corefio.model", "corefio.io"))}, ours
    assert len(ours) <= 6, ours  # api, cli, diagnostics, errors, _moved, __main__


@pytest.mark.parametrize("path", [CONLL, RAF], ids=["conll", "raf"])
def test_info_loads_its_reader_and_none_of_the_heavy_libraries(path):
    modules = loaded("info", str(path))
    assert "corefio.formats.conll" in modules or "corefio.formats.raf" in modules
    assert not top_level(modules) & HEAVY, sorted(top_level(modules) & HEAVY)
    if path.suffix != ".xml":
        assert "lxml" not in top_level(modules)  # XML formats only


def test_reading_a_conll_file_through_the_api_loads_no_heavy_library():
    code = ("import corefio, sys, json; corefio.read(sys.argv[1]); "
            "sys.stderr.write('\\n' + json.dumps({'code': 0, 'modules': sorted(sys.modules)}) + '\\n')")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code, str(CONLL)], capture_output=True, text=True, env=env,
                          timeout=120)
    modules = set(json.loads(done.stderr.strip().splitlines()[-1])["modules"])
    assert not top_level(modules) & (HEAVY | {"lxml", "numpy"})


def test_the_lazy_names_of_the_package_are_its_api():
    import corefio
    import corefio.api
    from corefio.formats import readwrite, registry
    from corefio.model import Document

    assert corefio.read is readwrite.read and corefio.api.read is readwrite.read
    assert corefio.get_format is registry.get_format and corefio.Document is Document
    assert set(corefio.__all__) <= set(dir(corefio))
    for name in corefio.__all__:
        assert getattr(corefio, name) is not None
    with pytest.raises(AttributeError):
        corefio.no_such_name  # noqa: B018
    with pytest.raises(AttributeError):
        corefio.api.no_such_name  # noqa: B018
