"""The adjudication view (corefio.agreement.view): every annotator's column and the
gold's, every conflict marked where its mention is (or where a column lacks it), the
conflict list, the gold to download; in a browser, "next conflict" visits them in order
and a 390 px screen has nothing wider than itself."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

from corefio.agreement import adjudicate
from corefio.agreement.view import build, render

from .test_web_browser import CHROMEDRIVER, CHROMIUM, _require_browser

GUM = Path(__file__).parent / "data" / "agreement" / "gum-annotators"


def three(count: int = 1):
    return adjudicate([sorted((GUM / x).glob("*.conll"))[:count] for x in "abc"], names=["a", "b", "c"])


def test_the_page_holds_every_column_and_every_conflict():
    result = three(2)
    documents = build(result)
    assert [d.name for d in documents] == [d.label for d in result.gold.documents]
    for d in documents:
        assert [c.name for c in d.columns] == ["a", "b", "c", "gold"]
        gold = d.columns[-1]
        assert gold.mentions == sum(1 for m in result.gold.documents[documents.index(d)].markables if m.layer is None)
    html = render(result, gold_name="gold.conll", gold_bytes=b"#begin document (x); part 000\n")
    total = len(result.conflicts)
    rows = re.findall(r'data-row="(\d+-\d+)"', html)
    assert len(rows) == total == len(set(rows))
    marked = {key for keys in re.findall(r'data-conflict="([^"]+)"', html) for key in keys.split()}
    assert marked == set(rows)  # every conflict is shown somewhere in the text
    link = re.search(r'href="data:application/octet-stream;base64,([^"]+)" download="gold.conll"', html)
    assert link and base64.b64decode(link.group(1)).startswith(b"#begin document")


def test_a_mention_one_annotator_lacks_shows_as_a_gap_in_that_column():
    result = three()
    only_some = next(c for c in result.conflicts if c.kind == "mention" and "not marked" in c.said.values())
    lacking = [name for name, said in only_some.said.items() if said == "not marked"]
    view = build(result)[0]
    number = next(k + 1 for k, c in enumerate(c for c in result.conflicts if c.document == only_some.document)
                  if c is only_some)
    for column in view.columns:
        gaps = [n for w in column.words for numbers in w.gaps for n in numbers]
        assert (number in gaps) == (column.name in lacking or (column.name == "gold" and only_some.decision == "dropped"))


@pytest.fixture()
def driver():
    _require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,1000", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield browser
    browser.quit()


def test_next_conflict_visits_every_conflict_and_390_px_does_not_overflow(driver, tmp_path):
    from selenium.webdriver.common.by import By

    result = three()
    page = tmp_path / "adjudication.html"
    page.write_text(render(result, gold_name="gold.conll", gold_bytes=b"x"), encoding="utf-8")
    driver.get(page.as_uri())
    total = len(result.conflicts)
    seen = []
    for _ in range(min(total, 6)):
        driver.find_element(By.ID, "next").click()
        current = driver.find_elements(By.CSS_SELECTOR, ".current")
        rows = [e.get_attribute("data-row") for e in current if e.get_attribute("data-row")]
        assert len(rows) == 1 and len(current) >= 2  # its row and its marks in the text
        assert all(rows[0] in (e.get_attribute("data-conflict") or rows[0]).split() for e in current)
        seen.append(rows[0])
        assert driver.find_element(By.ID, "where").text == f"conflict {len(seen)} of {total}"
    assert seen == [f"1-{k}" for k in range(1, len(seen) + 1)]
    driver.find_element(By.ID, "previous").click()
    assert driver.find_element(By.ID, "where").text == f"conflict {len(seen) - 1} of {total}"
    driver.set_window_size(390, 844)
    width = driver.execute_script("return document.documentElement.clientWidth")
    widest = driver.execute_script("return Math.max(...[...document.querySelectorAll('main *')]"
                                   ".map(e => e.getBoundingClientRect().right))")
    assert widest <= width + 1, f"something reaches {widest} px on a {width} px screen"
    assert driver.execute_script("return document.documentElement.scrollWidth") <= width


def test_the_command_line_writes_the_page_with_the_gold_inside(tmp_path):
    import subprocess
    import sys
    import zipfile
    from io import BytesIO

    page = tmp_path / "page.html"
    run = subprocess.run([sys.executable, "-m", "corefio", "adjudicate", str(GUM / "a"), str(GUM / "b"),
                          str(GUM / "c"), "-o", str(tmp_path / "gold.conll"), "--view", str(page)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    html = page.read_text(encoding="utf-8")
    link = re.search(r'href="data:application/octet-stream;base64,([^"]+)" download="gold.conll"', html)
    assert base64.b64decode(link.group(1)) == (tmp_path / "gold.conll").read_bytes()
    project = tmp_path / "gold-project"
    run = subprocess.run([sys.executable, "-m", "corefio", "adjudicate", str(GUM / "a"), str(GUM / "b"),
                          "-o", str(project), "--to", "mmax2", "--view", str(page)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    link = re.search(r'href="data:application/octet-stream;base64,([^"]+)" download="gold-project.zip"',
                     page.read_text(encoding="utf-8"))
    names = set(zipfile.ZipFile(BytesIO(base64.b64decode(link.group(1)))).namelist())
    assert names == {p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file()}


def test_view_adjudicate_shows_two_annotators(tmp_path):
    import subprocess
    import sys

    samples = Path(__file__).parent.parent / "samples"
    page = tmp_path / "page.html"
    run = subprocess.run([sys.executable, "-m", "corefio", "view", str(samples / "key.raf.xml"), "--response",
                          str(samples / "response.raf.xml"), "--adjudicate", "-o", str(page)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    html = page.read_text(encoding="utf-8")
    result = adjudicate([samples / "key.raf.xml", samples / "response.raf.xml"])
    assert len(re.findall(r'data-row="\d+-\d+"', html)) == len(result.conflicts) > 0
    assert 'download="gold.raf"' in html or 'download="gold.raf.xml"' in html
    alone = subprocess.run([sys.executable, "-m", "corefio", "view", str(samples / "key.raf.xml"), "--adjudicate",
                            "-o", str(page)], capture_output=True, text=True)
    assert alone.returncode == 2 and "--response" in alone.stderr
