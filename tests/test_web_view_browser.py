"""The key vs response view in a real browser (chromium, headless, selenium; started as in
tests/test_web_browser.py, skipped the same way without a browser): on a hand-built case
with exactly one error of each class (tests/test_view_errors.py), the marks sit on the
right mentions, the legend counts one of each, "next error" visits every error and
scrolls both panes to it, the panes scroll together, chain colours stay apart from error
colours, and at 390 px wide nothing overflows sideways."""

from __future__ import annotations

import colorsys
import re
import time

import pytest

import corefio
from corefio.model import Corpus
from corefio.scoring.error_analysis import ERROR_CLASSES
from corefio.web import view

from .test_view_errors import one_of_each
from .test_web_browser import _require_browser, browser, server  # noqa: F401 - fixtures

PANE_STATE = """
const panes = [...document.querySelectorAll('.side .text')];
return panes.map(p => {
  const toks = [...p.querySelectorAll('.tok')];
  const top = toks.find(t => t.offsetTop + t.offsetHeight > p.scrollTop);
  const cur = [...p.querySelectorAll('.br.open.cur')].map(b => ({t: b.dataset.t, y: b.offsetTop}));
  return {scrollTop: p.scrollTop, height: p.clientHeight, max: p.scrollHeight - p.clientHeight,
          top: top ? +top.dataset.i : null, cur: cur};
});
"""


def hue_of(css_colour: str) -> float:
    r, g, b = (int(x) / 255 for x in re.findall(r"\d+", css_colour)[:3])
    return colorsys.rgb_to_hls(r, g, b)[0] * 360


def apart(a: float, b: float) -> float:
    return min((a - b) % 360, (b - a) % 360)


@pytest.fixture()
def view_url(server, browser, tmp_path):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    key, response, expected = one_of_each(filler_sentences=8)
    kf, rf = tmp_path / "key.raf.xml", tmp_path / "response.raf.xml"
    kf.write_bytes(corefio.dumps(Corpus(documents=[key]), "raf"))
    rf.write_bytes(corefio.dumps(Corpus(documents=[response]), "raf"))
    browser.get(server + "/")
    browser.find_element(By.ID, "key").send_keys(str(kf))
    browser.find_element(By.ID, "response").send_keys(str(rf))
    browser.find_element(By.ID, "submit").click()
    WebDriverWait(browser, 60).until(EC.presence_of_element_located((By.ID, "view-link")))
    result = browser.current_url
    browser.find_element(By.ID, "view-link").click()
    WebDriverWait(browser, 30).until(EC.presence_of_element_located((By.ID, "side-key")))
    return browser.current_url, result, expected


def test_marks_legend_next_error_and_panes_in_step(browser, view_url):  # noqa: F811
    from selenium.webdriver.common.by import By

    url, _, expected = view_url
    # the legend: one error of each class, in the analysis' order
    items = browser.find_elements(By.CSS_SELECTOR, ".legend-item")
    assert [i.get_attribute("data-kind") for i in items] == list(ERROR_CLASSES)
    assert [i.find_element(By.CSS_SELECTOR, ".count").text for i in items] == ["1"] * 7
    assert browser.find_element(By.CSS_SELECTOR, ".errors-total").text == "7"
    # the marks: each class on exactly its mentions, on each side
    for kind, sides in expected.items():
        css = view.ERROR_LOOK[kind].css
        for side in ("key", "response"):
            marked = {e.get_attribute("data-t") for e in
                      browser.find_elements(By.CSS_SELECTOR, f"#side-{side} .br.open.err.{css}")}
            assert marked == set(sides[side]), (kind, side)
    # nothing else is marked: every marked bracket is one of those
    for side in ("key", "response"):
        every = {e.get_attribute("data-t") for e in browser.find_elements(By.CSS_SELECTOR, f"#side-{side} .br.err")}
        assert every == {t for sides in expected.values() for t in sides[side]}
    # colours: brackets in the chain band, badges in their error hue, never close
    chain_hues = {hue_of(e.value_of_css_property("color")) for e in browser.find_elements(By.CSS_SELECTOR, ".br")}
    badge_hues = {hue_of(e.value_of_css_property("background-color"))
                  for e in browser.find_elements(By.CSS_SELECTOR, ".legend-item .badge")}
    assert len(chain_hues) >= 4 and len(badge_hues) == 5  # (extra and missing share a hue with their entity kind)
    assert min(apart(c, e) for c in chain_hues for e in badge_hues) >= 25

    # "next error": every error once, in text order, marked on both sides and scrolled into both panes
    visited = []
    for n in range(1, 8):
        browser.find_element(By.CSS_SELECTOR, ".next-error").click()
        time.sleep(0.05)
        position = browser.find_element(By.CSS_SELECTOR, ".error-pos").text
        assert position.startswith(f"error {n} of 7: "), position
        current = browser.find_element(By.CSS_SELECTOR, ".error-item.cur")
        kind = current.get_attribute("data-kind")
        visited.append(kind)
        panes = browser.execute_script(PANE_STATE)
        for side, pane in zip(("key", "response"), panes):
            assert {c["t"] for c in pane["cur"]} == set(expected[kind][side]), (kind, side)
            if pane["cur"]:  # the first mark is in view (others may lie further on)
                assert pane["scrollTop"] <= pane["cur"][0]["y"] <= pane["scrollTop"] + pane["height"], (kind, side)
    assert sorted(visited) == sorted(ERROR_CLASSES)
    firsts = [int(e.get_attribute("data-first")) for e in browser.find_elements(By.CSS_SELECTOR, ".error-item")]
    assert firsts == sorted(firsts)
    browser.find_element(By.CSS_SELECTOR, ".next-error").click()  # wraps round
    assert browser.find_element(By.CSS_SELECTOR, ".error-pos").text.startswith("error 1 of 7")
    browser.find_element(By.CSS_SELECTOR, ".prev-error").click()
    assert browser.find_element(By.CSS_SELECTOR, ".error-pos").text.startswith("error 7 of 7")

    # the panes scroll in step: the response pane follows the key pane, and back
    for driver_side, follower in ((0, 1), (1, 0)):
        panes = browser.execute_script(PANE_STATE)
        assert panes[driver_side]["max"] > 300  # long enough to scroll
        target = panes[driver_side]["max"] // (2 if driver_side == 0 else 4)
        browser.execute_script(f"document.querySelectorAll('.side .text')[{driver_side}].scrollTop = {target};")
        time.sleep(0.4)
        panes = browser.execute_script(PANE_STATE)
        lead, follow = panes[driver_side]["top"], panes[follower]["top"]
        assert lead > 0 and abs(lead - follow) <= 12, (driver_side, lead, follow)

    # a click on a mention shows the same mention in the other pane
    browser.execute_script("document.querySelectorAll('.side .text')[1].scrollTop = 0;")
    time.sleep(0.3)
    last = browser.find_elements(By.CSS_SELECTOR, "#side-key .br.open")[-1]
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", last)
    browser.execute_script("document.querySelectorAll('.side .text')[1].scrollTop = 0;")
    time.sleep(0.3)
    last.click()
    time.sleep(0.2)
    target = last.get_attribute("data-t")
    seen = browser.execute_script("""
      const p = document.querySelectorAll('.side .text')[1];
      const b = p.querySelector('.br.open[data-t="' + arguments[0] + '"]') ||
                p.querySelector('.tok[data-i="' + arguments[0].split('-')[0] + '"]');
      return [b.offsetTop, p.scrollTop, p.clientHeight];""", target)
    assert seen[1] > 0 and seen[1] <= seen[0] <= seen[1] + seen[2], seen


def test_a_390_px_screen_has_no_sideways_overflow(browser, view_url, server):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    url, result, _ = view_url
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    try:
        for page in (url, result, server + "/", server + "/compare"):
            browser.get(page)
            WebDriverWait(browser, 30).until(EC.presence_of_element_located((By.TAG_NAME, "footer")))
            width = browser.execute_script("return [document.documentElement.clientWidth, "
                                           "document.documentElement.scrollWidth, document.body.scrollWidth];")
            assert width[0] == 390 and max(width[1:]) <= 390, (page, width)
        browser.get(url)
        WebDriverWait(browser, 30).until(EC.presence_of_element_located((By.ID, "side-key")))
        # the panes are stacked, each as wide as the screen allows
        key = browser.find_element(By.ID, "side-key").rect
        response = browser.find_element(By.ID, "side-response").rect
        assert key["y"] + key["height"] <= response["y"] and key["width"] <= 390 and response["width"] <= 390
        # next error still works and marks the error
        button = browser.find_element(By.CSS_SELECTOR, ".next-error")
        assert button.rect["x"] + button.rect["width"] <= 390
        button.click()
        assert browser.find_element(By.CSS_SELECTOR, ".error-pos").text.startswith("error 1 of 7")
        assert browser.find_elements(By.CSS_SELECTOR, ".br.cur")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
