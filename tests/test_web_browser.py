"""`corefio serve` in a real browser: Debian's chromium, headless, driven by selenium.

The server runs on 127.0.0.1 (a free port) in a thread. The test uploads the samples,
reads the four score sets from the page and compares them with the library's, clicks a
chain in the key vs response view and checks that its mentions are highlighted on both
sides, and saves screenshots under its temporary directory.

``COREFIO_UPDATE_SCREENSHOTS=1 pytest tests/test_web_browser.py`` also rewrites the
committed ``docs/screenshots/result.png`` and ``docs/screenshots/view.png``.

Without chromium or chromedriver the test is skipped, unless ``COREFIO_REQUIRE_BROWSER``
is set (CI sets it): then it fails.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

import corefio

from .conftest import REPO, SAMPLES

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
SCREENSHOTS = REPO / "docs" / "screenshots"


def _browser_missing() -> str | None:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not Path(p).exists()]
    try:
        import selenium  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        missing.append(str(exc))
    return ", ".join(missing) or None


def _require_browser() -> None:
    missing = _browser_missing()
    if missing:
        if os.environ.get("COREFIO_REQUIRE_BROWSER"):
            pytest.fail(f"COREFIO_REQUIRE_BROWSER is set but the browser is missing: {missing}")
        pytest.skip(f"no browser: {missing} (install chromium and chromium-driver)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    _require_browser()
    import uvicorn

    from corefio.web import create_app

    port = _free_port()
    config = uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not srv.started:
        if time.time() > deadline or not thread.is_alive():
            pytest.fail("the server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser(server):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1400,1000", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _save(driver, tmp_path: Path, name: str) -> Path:
    """A screenshot of the page (its whole height, at most 2,400 pixels)."""
    import base64

    path = tmp_path / name
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    clip = {"x": 0, "y": 0, "width": 1400, "height": min(size["height"], 2400), "scale": 1}
    shot = driver.execute_cdp_cmd("Page.captureScreenshot",
                                  {"format": "png", "captureBeyondViewport": True, "clip": clip})
    path.write_bytes(base64.b64decode(shot["data"]))
    assert path.stat().st_size > 10_000
    if os.environ.get("COREFIO_UPDATE_SCREENSHOTS"):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, SCREENSHOTS / name)
    return path


def test_score_the_samples_read_the_page_and_highlight_a_chain(server, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    key, response = SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml"
    browser.get(server + "/")
    browser.find_element(By.ID, "key").send_keys(str(key))
    browser.find_element(By.ID, "response").send_keys(str(response))
    browser.find_element(By.ID, "submit").click()
    WebDriverWait(browser, 60).until(EC.presence_of_element_located((By.ID, "standard-scores")))
    assert "/r/" in browser.current_url

    # the standard score first, as the page shows it = the library's (corefio score)
    # (the form's first control, the preset, starts at conll2012: scorer.pl's settings)
    standard = corefio.score(corefio.read(key), corefio.read(response), preset="conll2012").to_dict()["corpus"]
    rows = browser.find_elements(By.CSS_SELECTOR, "#standard-scores tr.metric-row")
    assert [r.get_attribute("data-metric") for r in rows] == list(standard)
    for r in rows:
        result = standard[r.get_attribute("data-metric")]
        if isinstance(result.get("recall"), dict):
            assert float(r.get_attribute("data-f1")) == result["f1"]
            assert r.find_element(By.CSS_SELECTOR, "td.f").text == f"{100 * result['f1']:.2f}"
    # the four strategies are one click away
    table = browser.find_element(By.ID, "sync-scores")
    assert not table.is_displayed()
    browser.find_element(By.CSS_SELECTOR, "details#sync > summary").click()
    assert table.is_displayed()

    # the four score sets as the page shows them = the library's (corefio score --sync all)
    expected = corefio.score(corefio.read(key), corefio.read(response), sync="all", preset="conll2012").to_dict()
    cells = browser.find_elements(By.CSS_SELECTOR, "#sync-scores td.score")
    shown: dict[str, dict[str, dict]] = {}
    for cell in cells:
        strategy, metric = cell.get_attribute("data-strategy"), cell.get_attribute("data-metric")
        shown.setdefault(strategy, {})[metric] = {
            "f1": cell.get_attribute("data-f1"), "value": cell.get_attribute("data-value"), "text": cell.text}
    assert set(shown) == set(expected["sync"]) == {"key", "response", "intersection", "union"}
    for strategy, metrics in expected["sync"].items():
        assert set(shown[strategy]) == set(metrics)
        for metric, result in metrics.items():
            cell = shown[strategy][metric]
            if isinstance(result.get("recall"), dict):
                assert float(cell["f1"]) == result["f1"]
                assert cell["text"] == (f"{100 * result['recall']['value']:.2f} / "
                                        f"{100 * result['precision']['value']:.2f} / {100 * result['f1']:.2f}")
            elif "value" in result:
                assert float(cell["value"]) == result["value"]
            elif "micro" in result:
                assert float(cell["f1"]) == result["micro"]["f1"]
    mention_f1 = browser.find_element(By.CSS_SELECTOR, "#mentions tr[data-f1]").get_attribute("data-f1")
    assert float(mention_f1) == expected["mentions"]["f1"]
    # per-document rows sort when a heading is clicked
    browser.find_element(By.CSS_SELECTOR, "#documents thead th:nth-child(2)").click()
    assert "sorted-asc" in browser.find_element(By.CSS_SELECTOR, "#documents thead th:nth-child(2)").get_attribute(
        "class")
    _save(browser, tmp_path, "result.png")

    # key vs response view: click a key chain, its mentions light up on both sides
    browser.find_element(By.ID, "view-link").click()
    WebDriverWait(browser, 30).until(EC.presence_of_element_located((By.ID, "side-key")))
    doc = corefio.read(key).documents[0]
    chain = max(doc.chains(), key=len)
    index = doc.chains().index(chain)
    browser.find_element(By.CSS_SELECTOR, f'#side-key .br.open[data-chain="k{index}"]').click()
    targets = {"_".join(f"{a}-{b}" for a, b in m.spans) for m in chain}
    for side in ("key", "response"):
        lit = browser.find_elements(By.CSS_SELECTOR, f"#side-{side} .br.open.hl")
        lit_targets = {e.get_attribute("data-t") for e in lit}
        assert lit_targets, side
        assert lit_targets <= targets
        # every mention of the chain present on that side is highlighted, and its words too
        side_targets = {e.get_attribute("data-t") for e in browser.find_elements(By.CSS_SELECTOR,
                                                                               f"#side-{side} .br.open")}
        assert lit_targets == targets & side_targets
        assert browser.find_elements(By.CSS_SELECTOR, f"#side-{side} .tok.hl")
    assert browser.find_elements(By.CSS_SELECTOR, f'#side-key .chain.active[data-chain="k{index}"]')
    _save(browser, tmp_path, "view.png")


def test_an_error_keeps_the_files_and_options_on_the_form(server, browser, tmp_path):
    """With JavaScript the form is sent without leaving the page: an error shows above it,
    and the files and options chosen are still there to correct and send again."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import Select, WebDriverWait

    broken = tmp_path / "broken.raf.xml"
    broken.write_text("<x")
    browser.get(server + "/")
    browser.find_element(By.ID, "key").send_keys(str(SAMPLES / "key.raf.xml"))
    browser.find_element(By.ID, "response").send_keys(str(broken))
    Select(browser.find_element(By.ID, "match")).select_by_value("head")
    browser.find_element(By.CSS_SELECTOR, 'input[name="metrics"][value="blanc"]').click()  # off
    browser.find_element(By.ID, "submit").click()
    WebDriverWait(browser, 60).until(EC.presence_of_element_located((By.CSS_SELECTOR, ".form-error #error")))
    assert browser.current_url == server + "/"
    assert "broken.raf.xml" in browser.find_element(By.ID, "error-where").text
    assert "still chosen" in browser.find_element(By.CSS_SELECTOR, ".form-error .status").text
    assert browser.execute_script("return document.getElementById('key').files.length") == 1
    assert browser.execute_script("return document.getElementById('response').files[0].name") == "broken.raf.xml"
    assert Select(browser.find_element(By.ID, "match")).first_selected_option.get_attribute("value") == "head"
    assert not browser.find_element(By.CSS_SELECTOR, 'input[name="metrics"][value="blanc"]').is_selected()
    _save(browser, tmp_path, "form-error.png")
    # the response corrected, the same form goes through
    browser.find_element(By.ID, "response").clear()
    browser.find_element(By.ID, "response").send_keys(str(SAMPLES / "response.raf.xml"))
    browser.find_element(By.ID, "submit").click()
    WebDriverWait(browser, 60).until(EC.presence_of_element_located((By.ID, "standard-scores")))
    assert "/r/" in browser.current_url and "head" in browser.find_element(By.ID, "settings").text
    assert not browser.find_elements(By.CSS_SELECTOR, '#standard-scores tr[data-metric="blanc"]')


def test_a_preset_chosen_sets_the_forms_options_and_metrics(server, browser):
    """Choosing a preset shows its settings: its description and command, each option's
    "as the preset" value, its metrics ticked; the result says the scorer it follows."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import Select, WebDriverWait

    browser.get(server + "/")
    preset = Select(browser.find_element(By.ID, "preset"))
    assert preset.first_selected_option.get_attribute("value") == "conll2012"

    def ticked() -> list[str]:
        return [b.get_attribute("value") for b in browser.find_elements(By.CSS_SELECTOR, 'input[name="metrics"]')
                if b.is_selected()]

    assert ticked() == ["muc", "bcub", "ceafm", "ceafe", "blanc", "conll"]
    preset.select_by_value("corefud")
    assert "lea" in ticked()
    assert Select(browser.find_element(By.ID, "match")).options[0].text == "as the preset (head)"
    assert Select(browser.find_element(By.ID, "singletons")).options[0].text == "as the preset (drop)"
    assert "corefud-scorer.py" in browser.find_element(By.ID, "preset-command").text
    assert browser.find_element(By.ID, "metrics_of").get_attribute("value") == "corefud"
    browser.find_element(By.ID, "key").send_keys(str(SAMPLES / "key.raf.xml"))
    browser.find_element(By.ID, "response").send_keys(str(SAMPLES / "response.raf.xml"))
    browser.find_element(By.ID, "submit").click()
    WebDriverWait(browser, 60).until(EC.presence_of_element_located((By.ID, "standard-scores")))
    assert browser.find_element(By.ID, "preset").text == "corefud"
    assert "differs" not in browser.find_element(By.ID, "settings").text
    assert browser.find_elements(By.CSS_SELECTOR, '#standard-scores tr[data-metric="lea"]')
