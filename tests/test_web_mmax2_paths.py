"""MMAX2 projects whose files name files outside the project (reproducers S02–S04),
zipped and uploaded: no answer of the web application may carry the secret's bytes or
the server's environment.

The upload's extraction never creates links and refuses names that escape (see
tests/test_security.py); what a project's own files name is checked by the MMAX2 reader
(corefio.io.source.confined_path). These tests pass once the reader refuses such names.
"""

from __future__ import annotations

import base64
import io
import os
import shutil
import warnings
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

from corefio.web import create_app  # noqa: E402

from .conftest import shared_data  # noqa: E402

SECRET = b"TOP-SECRET-7f3a9c"


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(), base_url="http://127.0.0.1")


def prepared(name: str, tmp_path: Path, stylesheet: str | None = None) -> bytes:
    """The reproducer ``name`` with ``@REPRO@`` replaced by a folder holding the secret,
    zipped as a client would upload it; ``stylesheet``: another ``<stylesheet>`` name."""
    source = shared_data("reproducers")
    victim = tmp_path / "victim"
    victim.mkdir()
    for f in ("S00_secret.txt", "S00_victim_words.xml"):
        shutil.copy(source / f, victim / f)
    project = tmp_path / name
    shutil.copytree(source / name, project)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for p in sorted(project.rglob("*")):
            if p.is_file():
                data = p.read_bytes().replace(b"@REPRO@", str(victim).encode())
                if stylesheet and p.name == "common_paths.xml":
                    data = data.replace(b"../../S00_secret.txt", stylesheet.encode())
                z.writestr(f"{name}/{p.relative_to(project)}", data)
    return buf.getvalue()


def environment_values() -> list[bytes]:
    """Values of this process's environment long enough not to occur by chance."""
    return [v.encode() for v in os.environ.values() if len(v) >= 12 and "/" in v][:20] + [b"PATH=", b"HOME="]


def every_byte_of(answer) -> bytes:
    """The answer's bytes, with a base64 .zip (convert to mmax2) unpacked."""
    raw = answer.content
    if answer.headers.get("content-type", "").startswith("application/json"):
        body = answer.json()
        if body.get("encoding") == "base64":
            data = base64.b64decode(body["content"])
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                raw += b"".join(z.read(n) + n.encode() for n in z.namelist())
    return raw


def routes(client, data: bytes):
    files = {"file": ("project.zip", data)}
    yield "convert to mmax2", client.post("/api/convert", files=files, data={"to": "mmax2"})
    yield "convert to raf", client.post("/api/convert", files=files, data={"to": "raf"})
    yield "score", client.post("/api/score", files={"key": ("k.zip", data), "response": ("r.zip", data)})


@pytest.mark.parametrize("name,stylesheet", [
    ("S02_mmax2_abs_words", None),
    ("S03_mmax2_dotdot_stylesheet", None),
    # S03's name reaches the server's temporary folder only; this one climbs to the secret
    ("S03_mmax2_dotdot_stylesheet", "../" * 40 + "@SECRET@"),
    ("S04_mmax2_dotdot_environ", None),
])
def test_project_names_outside_the_project_never_reach_the_answer(client, tmp_path, name, stylesheet):
    if stylesheet:
        stylesheet = stylesheet.replace("@SECRET@", str(tmp_path / "victim" / "S00_secret.txt").lstrip("/"))
    data = prepared(name, tmp_path, stylesheet)
    for route, answer in routes(client, data):
        assert answer.status_code < 500, (route, answer.text[:300])
        seen = every_byte_of(answer)
        assert SECRET not in seen, f"{route}: the secret file's bytes are in the answer"
        for value in environment_values():
            assert value not in seen, f"{route}: the server's environment is in the answer"
