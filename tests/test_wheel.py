"""A wheel built from this checkout, installed (not editable) into a fresh virtual
environment, finds its schemas and stylesheets and runs the CLI."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile

import pytest

from .conftest import REPO, SAMPLES


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(python of a venv holding the built wheel, the wheel path)."""
    root = tmp_path_factory.mktemp("wheel")
    dist = root / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(dist), str(REPO)], check=True, cwd=root)
    (wheel,) = dist.glob("corefio-*.whl")
    # the venv sees the dependencies already installed here, but not this checkout
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(root / "venv")
    python = root / "venv" / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                    "--no-index", str(wheel)], check=True, cwd=root)
    return python, wheel, root


def test_the_wheel_ships_schemas_and_stylesheets(installed):
    _, wheel, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    assert "corefio/schemas/raf.xsd" in names
    assert "corefio/xslt/raf-to-html.xsl" in names


def test_the_installed_package_finds_its_resources(installed):
    python, _, root = installed
    code = ("import corefio, corefio.resources as r; "
            "print(corefio.__file__); print(r.schema_path('raf.xsd')); print(r.stylesheet_path('raf-to-html.xsl'))")
    out = subprocess.run([str(python), "-c", code], check=True, capture_output=True, text=True,
                         cwd=root).stdout.splitlines()
    venv_dir = str(root / "venv")
    assert all(line.startswith(venv_dir) for line in out), out


def test_the_installed_cli_validates_and_views(installed):
    python, _, root = installed
    script = python.parent / ("corefio.exe" if sys.platform == "win32" else "corefio")
    result = subprocess.run([str(script), "validate", str(SAMPLES / "key.raf.xml")],
                            capture_output=True, text=True, cwd=root)
    assert result.returncode == 0, result.stderr
    assert "valid" in result.stdout
    page = root / "page.html"
    result = subprocess.run([str(python), "-m", "corefio", "view", str(SAMPLES / "key.raf.xml"), "-o", str(page)],
                            capture_output=True, text=True, cwd=root)
    assert result.returncode == 0, result.stderr
    assert "The western peak" in page.read_text()
