"""A wheel built from this checkout, installed (not editable) into a fresh virtual
environment, finds its schemas and stylesheets and runs the CLI."""

from __future__ import annotations

import os
import site
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from .conftest import REPO, SAMPLES


def _dependency_dirs() -> list[str]:
    """The directories this interpreter imports installed distributions from."""
    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    paths = sysconfig.get_paths()
    dirs += [paths["purelib"], paths["platlib"]]
    return [d for d in dict.fromkeys(dirs) if os.path.isdir(d)]


def _venv_env() -> dict[str, str]:
    """The environment for processes of the test venv: without PYTHONPATH, which would
    put a checkout ahead of the installed wheel."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


#: building and installing a wheel takes a while: the slow tier (CI runs it)
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(python of a venv holding the built wheel, the wheel path)."""
    root = tmp_path_factory.mktemp("wheel")
    dist = root / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(dist), str(REPO)], check=True, cwd=root)
    (wheel,) = dist.glob("corefio-*.whl")
    # The dependencies must be those of the environment running the tests. A venv made
    # with system_site_packages=True would see the *base* interpreter's packages instead
    # (which may lack typer), and installing the dependencies from an index needs a
    # network or a local mirror and takes many seconds. So: a bare venv gets the wheel
    # alone (--no-deps --no-index), and only then a .pth file listing this
    # interpreter's site directories, appended to the venv's sys.path after its own
    # site-packages, so the installed wheel wins over this checkout. The order matters:
    # with the .pth in place first, pip would find this environment's corefio
    # distribution (an editable install of the checkout) and try to replace it. Plain
    # directory lines in a .pth are not themselves scanned for .pth files, so the
    # editable install's path hook never runs in the venv.
    venv.EnvBuilder(system_site_packages=False, with_pip=False).create(root / "venv")
    python = root / "venv" / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                    "--no-index", str(wheel)], check=True, cwd=root, env=_venv_env())
    venv_site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True, env=_venv_env()).stdout.strip()
    (Path(venv_site) / "corefio-test-dependencies.pth").write_text("\n".join(_dependency_dirs()) + "\n")
    return python, wheel, root


def test_the_wheel_ships_schemas_and_stylesheets(installed):
    _, wheel, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    assert "corefio/schemas/raf.xsd" in names
    assert "corefio/xslt/raf-to-html.xsl" in names


def test_the_installed_package_finds_its_resources(installed):
    python, _, root = installed
    code = ("import corefio, corefio.io.resources as r; "
            "print(corefio.__file__); print(r.schema_path('raf.xsd')); print(r.stylesheet_path('raf-to-html.xsl'))")
    out = subprocess.run([str(python), "-c", code], check=True, capture_output=True, text=True,
                         cwd=root, env=_venv_env()).stdout.splitlines()
    venv_dir = str(root / "venv")
    assert all(line.startswith(venv_dir) for line in out), out


def test_the_installed_cli_validates_and_views(installed):
    python, _, root = installed
    script = python.parent / ("corefio.exe" if sys.platform == "win32" else "corefio")
    result = subprocess.run([str(script), "validate", str(SAMPLES / "key.raf.xml")],
                            capture_output=True, text=True, cwd=root, env=_venv_env())
    assert result.returncode == 0, result.stderr
    assert "valid" in result.stdout
    page = root / "page.html"
    result = subprocess.run([str(python), "-m", "corefio", "view", str(SAMPLES / "key.raf.xml"), "-o", str(page)],
                            capture_output=True, text=True, cwd=root, env=_venv_env())
    assert result.returncode == 0, result.stderr
    assert "The western peak" in page.read_text()
