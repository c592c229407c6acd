"""Every page of the evaluator at 1280 px (a laptop) and at 390 px (a phone), in a real browser, on
real multi-document pairs whose documents carry the longest names of their corpora: two
GUM documents (CoNLL-U) renamed GUM_conversation_blacksmithing and
GUM_textbook_entrepreneurship, the longest names in UD English-GUM, and four parts of an
OntoNotes document (CoNLL-2012) renamed nw/dev_09_c2e/00/dev_09_c2e_0000, the longest
OntoNotes name. Nothing may overflow sideways, and in the key vs response view no error
badge may cover a word, a bracket, a chain label or another badge.

Started and skipped as tests/test_web_browser.py (COREFIO_REQUIRE_BROWSER=1 makes a
missing browser a failure); ``COREFIO_UPDATE_SCREENSHOTS=1`` also rewrites the committed
screenshots under docs/screenshots/.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .conftest import DATA
from .test_web_browser import _require_browser, _save, browser, server  # noqa: F401 - fixtures

GUM = DATA / "wild" / "conllu" / "gum"
ONTONOTES = DATA / "wild" / "conll2012" / "allennlp"
GUM_NAMES = ["GUM_conversation_blacksmithing", "GUM_textbook_entrepreneurship"]
ONTONOTES_NAME = "nw/dev_09_c2e/00/dev_09_c2e_0000"
WIDTHS = (1280, 390)

#: every badge of the view against every word, bracket, chain label and other badge it
#: could cover (its own bracket, which holds it, aside): the overlaps found
OVERLAPS = """
const hits = [];
const boxes = sel => [...document.querySelectorAll(sel)].flatMap(e => [...e.getClientRects()].map(r => ({e, r})));
const others = boxes('.side .tok').concat(boxes('.side .br sub'), boxes('.side .badge'));
// a bracket's own character: the box of its first text node
for (const b of document.querySelectorAll('.side .br')) {
  const range = document.createRange();
  range.setStart(b.firstChild, 0); range.setEnd(b.firstChild, 1);
  for (const r of range.getClientRects()) others.push({e: b, r});
}
for (const badge of document.querySelectorAll('.side .badge')) {
  const r = badge.getBoundingClientRect();
  for (const o of others) {
    if (o.e === badge) continue;
    const x = Math.min(r.right, o.r.right) - Math.max(r.left, o.r.left);
    const y = Math.min(r.bottom, o.r.bottom) - Math.max(r.top, o.r.top);
    if (x > 0.5 && y > 0.5) hits.push([badge.textContent, o.e.className, o.e.textContent.slice(0, 20)]);
  }
}
return hits;
"""
WIDTH = ("return [document.documentElement.clientWidth, document.documentElement.scrollWidth, "
         "document.body.scrollWidth];")


def renamed(source: Path, target: Path, pattern: str, names: list[str]) -> Path:
    """``source`` with its documents renamed, in order (a name repeats for the parts of one)."""
    text = source.read_text(encoding="utf-8")
    found = iter(names)
    seen: dict[str, str] = {}

    def swap(m: re.Match) -> str:
        old = m.group(2)
        if old not in seen:
            seen[old] = next(found)
        return m.group(1) + seen[old] + m.group(3)

    target.write_text(re.sub(pattern, swap, text), encoding="utf-8")
    assert len(seen) == len(set(names)), seen
    return target


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    where = tmp_path_factory.mktemp("long-names")
    conllu = r"(# newdoc id = )(\S+)()"
    conll = r"(#begin document \()([^)]+)(\))"
    return {
        "gum key": renamed(GUM / "en_gum-ud-dev.trimmed.conllu", where / "en_gum-ud-dev.trimmed.conllu", conllu,
                           GUM_NAMES),
        "gum response": renamed(GUM / "en_gum-ud-dev.trimmed.response.conllu",
                                where / "en_gum-ud-dev.trimmed.response.conllu", conllu, GUM_NAMES),
        "ontonotes key": renamed(ONTONOTES / "coref.gold_conll", where / "ontonotes.v4_gold_conll", conll,
                                 [ONTONOTES_NAME]),
        "ontonotes response": renamed(ONTONOTES / "coref.perturbed.response", where / "ontonotes.perturbed.response",
                                      conll, [ONTONOTES_NAME]),
    }


def submit(browser, url: str, fields: dict[str, list[Path]], wait_for: str,  # noqa: F811
           **options: str) -> str:
    """Fill a form (files, then options) and send it; the address of the page reached."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(url)
    for field, paths in fields.items():
        browser.find_element(By.ID, field).send_keys("\n".join(str(p) for p in paths))
    for field, value in options.items():
        element = browser.find_element(By.ID, field)
        element.clear()
        element.send_keys(value)
    browser.find_element(By.ID, "submit").click()
    WebDriverWait(browser, 120).until(EC.presence_of_element_located((By.ID, wait_for)))
    return browser.current_url


@pytest.fixture(scope="module")
def pages(server, browser, files) -> dict[str, str]:  # noqa: F811
    """Every page to look at: the forms, and the results of the long-named pairs."""
    gum = submit(browser, server + "/", {"key": [files["gum key"]], "response": [files["gum response"]]},
                 "standard-scores")
    onto = submit(browser, server + "/", {"key": [files["ontonotes key"]], "response": [files["ontonotes response"]]},
                  "standard-scores")
    compared = submit(browser, server + "/compare", {"key": [files["gum key"]],
                                                     "responses": [files["gum response"], files["gum key"]]},
                      "compare-scores", samples="20")
    agreed = submit(browser, server + "/agreement", {"annotations": [files["ontonotes key"],
                                                                     files["ontonotes response"]]},
                    "alpha", window="2")
    out = {"score form": server + "/", "compare form": server + "/compare", "agreement form": server + "/agreement",
           "convert form": server + "/convert", "validate form": server + "/validate",
           "repair form": server + "/repair", "metrics": server + "/metrics", "gum scores": gum,
           "ontonotes scores": onto, "comparison": compared, "agreement": agreed}
    for k in range(2):
        out[f"gum view {k}"] = f"{gum}/view?doc={k}"
        out[f"ontonotes adjudication {k}"] = f"{agreed}/adjudication?doc={k}"
    for k in range(4):
        out[f"ontonotes view {k}"] = f"{onto}/view?doc={k}"
    return out


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_overflows_and_no_badge_covers_a_word(browser, pages, width, tmp_path):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 500})
    try:
        badges = 0
        for name, url in pages.items():
            browser.get(url)
            WebDriverWait(browser, 60).until(EC.presence_of_element_located((By.TAG_NAME, "footer")))
            client, document, body = browser.execute_script(WIDTH)
            assert client <= width and max(document, body) <= client, (name, width, client, document, body)
            if "view" in name:
                # the long names are on the page, whole
                title = browser.find_element(By.TAG_NAME, "h1").text
                assert any(n in title for n in GUM_NAMES + [ONTONOTES_NAME]), title
                found = browser.execute_script(OVERLAPS)
                assert not found, (name, width, found[:5])
                badges += len(browser.find_elements(By.CSS_SELECTOR, ".side .badge"))
        assert badges > 20  # the pairs have errors of every kind to mark
        if width == 390:
            browser.get(pages["gum view 0"])
            _save_narrow(browser, tmp_path, "view-390.png")
            browser.get(pages["gum scores"])
            _save_narrow(browser, tmp_path, "result-390.png")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    if width == 1280:
        for name, shot in (("comparison", "compare.png"), ("agreement", "agreement.png"),
                           ("ontonotes adjudication 0", "adjudication.png")):
            browser.get(pages[name])
            _save(browser, tmp_path, shot)


def _save_narrow(driver, tmp_path: Path, name: str) -> Path:
    """A screenshot of the narrow page (390 px wide, at most 2,400 pixels high)."""
    import base64
    import os
    import shutil

    from .test_web_browser import SCREENSHOTS

    path = tmp_path / name
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    clip = {"x": 0, "y": 0, "width": 390, "height": min(size["height"], 2400), "scale": 1}
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                             "clip": clip})
    path.write_bytes(base64.b64decode(shot["data"]))
    if os.environ.get("COREFIO_UPDATE_SCREENSHOTS"):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, SCREENSHOTS / name)
    return path


def test_next_conflict_visits_every_conflict_of_the_adjudication_view(browser, pages):  # noqa: F811
    from selenium.webdriver.common.by import By

    browser.get(pages["ontonotes adjudication 0"])
    rows = browser.find_elements(By.CSS_SELECTOR, ".conflict-item")
    assert rows
    nav = browser.find_element(By.CSS_SELECTOR, ".next-conflict")
    for n in range(1, min(len(rows), 6) + 1):
        nav.click()
        assert browser.find_element(By.CSS_SELECTOR, ".conflict-pos").text.startswith(f"conflict {n} of {len(rows)}")
        key = browser.find_element(By.CSS_SELECTOR, ".adjudication").get_attribute("data-current")
        assert key == f"c{n}"
        marks = browser.find_elements(By.CSS_SELECTOR, f'.column [data-conflict~="{key}"]')
        assert marks and all("current" in m.get_attribute("class") for m in marks)
        # every column that marks the conflict shows it in its pane
        for mark in marks:
            pane = mark.find_element(By.XPATH, "ancestor::div[contains(@class, 'text')]")
            top, height, y = browser.execute_script(
                "return [arguments[0].scrollTop, arguments[0].clientHeight, arguments[1].offsetTop];", pane, mark)
            assert top <= y <= top + height, (key, top, height, y)
    browser.find_element(By.CSS_SELECTOR, ".prev-conflict").click()
    assert browser.find_element(By.CSS_SELECTOR, ".conflict-pos").text.startswith(f"conflict {min(len(rows), 6) - 1} ")
