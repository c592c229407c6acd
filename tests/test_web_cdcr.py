"""Cross-document scoring in the evaluator (`corefio serve`): the score form and
/api/score score across documents as `corefio.score_cross` and `score_styles` do (and
so as the reference scorer v8.01 prints for the meta-document files of
tests/data/cdcr, the values tests/test_cdcr.py checks), the result page shows them with
their settings and downloads, and the key vs response view of a unit shows the mentions
of all its documents."""

from __future__ import annotations

import csv
import io
import json
import re
import warnings
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

import corefio  # noqa: E402
from corefio.formats.readwrite import read  # noqa: E402
from corefio.scoring.crossdoc import STYLES, CrossSettings, analyse_cross, score_cross, score_styles  # noqa: E402
from corefio.scoring.render import to_jsonable  # noqa: E402

with warnings.catch_warnings():  # starlette's notice about httpx, not ours
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

from corefio.web import create_app  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples" / "cdcr"
GUM = Path(__file__).parent / "data" / "cdcr" / "gum-ecb"
JUDGED = GUM / "judged"
JUDGED_PAIRS = json.loads((JUDGED / "scores.json").read_text())["pairs"]
PLAIN = ROOT / "samples" / "key.raf.xml"
PLAIN_RESPONSE = ROOT / "samples" / "response.raf.xml"
#: the metrics the form ticks by default, less mention identification (always reported)
METRICS = ["muc", "bcub", "ceafm", "ceafe", "blanc", "lea", "conll"]


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(), base_url="http://127.0.0.1")


def folder_zip(folder: Path) -> bytes:
    """``folder`` as a .zip under its own name, as a user zips an ECB+ corpus."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                z.write(p, f"{folder.name}/{p.relative_to(folder).as_posix()}")
    return buf.getvalue()


def zipped(base: Path) -> dict:
    return {"key": ("key.zip", folder_zip(base / "key")), "response": ("response.zip", folder_zip(base / "response"))}


def files(key: Path, response: Path) -> dict:
    return {"key": (key.name, key.read_bytes()), "response": (response.name, response.read_bytes())}


def plain(value):
    """A value as the API's JSON has it."""
    return json.loads(json.dumps(to_jsonable(value)))


def result_of(client, files_: dict, **data) -> tuple[str, str]:
    """The result page's path and text of a form post."""
    done = client.post("/score", files=files_, data=data, follow_redirects=False)
    assert done.status_code == 303, done.text[:2000]
    where = done.headers["location"]
    page = client.get(where)
    assert page.status_code == 200
    return where, page.text


_LINE = re.compile(r"\(([\d.]+) / ([\d.]+)\)")


def same_as_scorer(ours: dict, line: str) -> None:
    """A metric's recall and precision fractions equal those a scorer.pl line prints
    (B³ and CEAF numerators are float sums there: 12 significant digits)."""
    (rn, rd), (pn, pd) = _LINE.findall(line)[:2]
    for mine, num, den in ((ours["recall"], rn, rd), (ours["precision"], pn, pd)):
        if mine.get("num") is None:  # BLANC: the value is the mean of two halves
            assert mine["value"] == pytest.approx(float(num) / float(den), rel=1e-12)
            continue
        assert float(mine["den"]) == float(den)
        assert float(mine["num"]) == pytest.approx(float(num), rel=1e-12)


# -- the numbers ----------------------------------------------------------------------------------
def test_an_ecbplus_zip_is_scored_by_topic_as_score_cross_does(client):
    done = client.post("/api/score", files=zipped(SAMPLES))
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["formats"] == {"key": "ecbplus", "response": "ecbplus"}
    cross = body["cross_document"]
    assert cross["settings"] == {"level": "topic", "keep_singletons": True, "mention_type": "all",
                                 "validated_only": False, "topic_pattern": None, "topics_file": None}
    key, response = read(SAMPLES / "key", "ecbplus"), read(SAMPLES / "response", "ecbplus")
    expected = corefio.score_cross(key, response, METRICS, settings=CrossSettings("topic"), per_unit=True)
    assert cross["scores"]["corpus"] == {m: plain(expected.corpus[m]) for m in expected.metrics}
    assert cross["units"] == [{"label": "1", "documents": ["1_1ecb", "1_2ecbplus"]}]
    assert cross["views"] == [f"{body['result']}/cross/view?unit=0"]
    # across documents the response's split entity counts: the scores are not the within-document ones
    assert cross["scores"]["corpus"]["muc"] != body["standard"]["corpus"]["muc"]


def test_the_page_shows_the_cross_document_scores_and_settings(client):
    where, page = result_of(client, zipped(SAMPLES))
    key, response = read(SAMPLES / "key", "ecbplus"), read(SAMPLES / "response", "ecbplus")
    expected = score_cross(key, response, METRICS, settings=CrossSettings("topic"))
    section = page[page.index('id="cross-document"'):page.index('id="standard"')]
    assert 'data-setting="level">topic<' in section and 'data-setting="singletons">kept<' in section
    assert "corefio score --cross-document topic" in section
    for m in METRICS:
        row = re.search(rf'<tr class="metric-row[^"]*" data-metric="{m}"([^>]*)>', section)
        assert row is not None, m
        f1 = re.search(r'data-f1="([^"]+)"', row.group(1))
        assert f1 is not None and float(f1.group(1)) == pytest.approx(float(expected[m].f1), abs=1e-15)
    assert f'href="{where}/cross/view?unit=0"' in section
    assert f'href="{where}/cross.csv"' in page and f'href="{where}/cross.json"' in page


def test_ecbplus_entities_corpus_level_without_singletons_are_scorer_pls_numbers(client):
    """The GUM-ECB+ corpus through the form, scored as Cattan et al.'s corpus-level
    entity file without singletons: the values the reference scorer printed for that
    file (tests/data/cdcr/gum-ecb/judged/scores.json)."""
    pair = next(p for p in JUDGED_PAIRS if p["key"] == p["response"] == "test_entities_corpus_level.conll")
    done = client.post("/api/score", files=zipped(GUM), data={
        "cross_document": "corpus", "singletons": "drop", "mention_type": "entity", "validated_only": "true"})
    assert done.status_code == 200, done.text
    cross = done.json()["cross_document"]
    assert cross["settings"]["level"] == "corpus" and cross["settings"]["keep_singletons"] is False
    corpus = cross["scores"]["corpus"]
    for metric in ("muc", "bcub", "ceafm", "ceafe", "blanc"):
        same_as_scorer(corpus[metric], pair["scorer_pl"][metric][-1])
    same_as_scorer(corpus["mentions"], pair["scorer_pl"]["muc"][0])
    assert [f"{corpus['lea'][x]['value'] * 100:.2f}" for x in ("recall", "precision")] == pair["coval"]["lea"][:2]
    gum_key, gum_response = read(GUM / "key", "ecbplus"), read(GUM / "response", "ecbplus")
    expected = score_cross(gum_key, gum_response, METRICS, settings=CrossSettings("corpus", False, "entity", True))
    assert corpus == {m: plain(expected.corpus[m]) for m in expected.metrics}


@pytest.mark.parametrize("pair", JUDGED_PAIRS, ids=lambda p: f"{p['key']}~{p['response']}")
def test_meta_document_conll_files_score_by_block_as_scorer_pl(client, pair):
    """The meta-document files as uploaded: recognised as cdcr-conll and scored by block
    (what the reference scorer scores), its numbers."""
    done = client.post("/api/score", files=files(JUDGED / "key" / pair["key"], JUDGED / "response" / pair["response"]))
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["formats"] == {"key": "cdcr-conll", "response": "cdcr-conll"}
    assert any(d["code"] == "web.meta_conll" for d in body["reading"])
    cross = body["cross_document"]
    assert cross["settings"]["level"] == "block"
    for metric in ("muc", "bcub", "ceafm", "ceafe", "blanc"):
        same_as_scorer(cross["scores"]["corpus"][metric], pair["scorer_pl"][metric][-1])


def test_published_styles_side_by_side_as_score_styles(client):
    where, page = result_of(client, zipped(GUM), style="all")
    gum_key, gum_response = read(GUM / "key", "ecbplus"), read(GUM / "response", "ecbplus")
    rows = score_styles(gum_key, gum_response, ["all"])
    table = page[page.index('id="styles-table"'):]
    shown = re.findall(r'<tr data-style="([^"]+)" data-mention-type="([^"]+)">', table)
    assert shown == [(r.style.name, r.mention_type) for r in rows]
    assert shown == [(name, t) for name, style in STYLES.items() for t in style.mention_types]
    first = re.search(r'<td data-metric="conll"[^>]*data-f1="([^"]+)"', table)
    assert first is not None and float(first.group(1)) == pytest.approx(float(rows[0].scores["conll"].f1))
    got = client.get(f"{where}/styles.csv")
    assert got.status_code == 200 and got.headers["content-type"].startswith("text/csv")
    lines = list(csv.DictReader(io.StringIO(got.text)))
    cattan = next(x for x in lines if x["style"] == "cattan2021" and x["mention_type"] == "event"
                  and x["metric"] == "muc")
    expected = next(r for r in rows if r.style.name == "cattan2021" and r.mention_type == "event").scores["muc"]
    assert cattan["singletons"] == "dropped" and float(cattan["f1"]) == pytest.approx(float(expected.f1))
    assert int(cattan["recall_num"]) == expected.recall_num and int(cattan["recall_den"]) == expected.recall_den
    styles = client.get(f"{where}/styles.json").json()["styles"]
    assert [s["style"] for s in styles] == [r.style.name for r in rows]
    api = client.post("/api/score", files=zipped(GUM), data={"style": "cattan2021,topic", "cross_document": "none"})
    assert api.status_code == 200
    assert api.json()["cross_document"] is None
    assert [(s["style"], s["mention_type"]) for s in api.json()["styles"]] == [
        ("cattan2021", "event"), ("cattan2021", "entity"), ("cattan2021", "all"), ("topic", "event"),
        ("topic", "entity")]


def test_downloads_are_the_cross_document_scores_with_each_unit(client):
    where, _ = result_of(client, zipped(GUM), cross_document="subtopic", mention_type="event")
    gum_key, gum_response = read(GUM / "key", "ecbplus"), read(GUM / "response", "ecbplus")
    expected = score_cross(gum_key, gum_response, METRICS, settings=CrossSettings("subtopic", True, "event"),
                           per_unit=True)
    got = client.get(f"{where}/cross.csv")
    assert got.status_code == 200 and got.text == expected.to_csv(True)
    data = client.get(f"{where}/cross.json").json()
    assert data["settings"]["level"] == "subtopic" and data["settings"]["mention_type"] == "event"
    assert data["corpus"] == {m: plain(expected.corpus[m]) for m in expected.metrics}
    assert sorted(data["documents"]) == sorted(d.name for d in expected.documents)
    assert len(data["units"]) == 6  # three topics, their ECB and ECB+ halves


def test_topics_from_a_pattern_for_a_corpus_that_does_not_record_them(client, tmp_path):
    """The GUM-ECB+ documents as plain CoNLL (within-document chains only) cut into
    topics by a pattern on their names, as --topic-pattern does."""
    gum_key, gum_response = read(GUM / "key", "ecbplus"), read(GUM / "response", "ecbplus")
    key, response = tmp_path / "key.conll", tmp_path / "response.conll"
    corefio.write(gum_key, key, "conll")
    corefio.write(gum_response, response, "conll")
    pattern = r"^(?P<topic>\d+)_"
    auto = client.post("/api/score", files=files(key, response))
    assert auto.status_code == 200 and auto.json()["cross_document"] is None  # not a CDCR corpus: documents only
    done = client.post("/api/score", files=files(key, response), data={"cross_document": "topic",
                                                                      "topic_pattern": pattern})
    assert done.status_code == 200, done.text
    cross = done.json()["cross_document"]
    assert [u["label"] for u in cross["units"]] == ["36", "37", "38"]
    expected = score_cross(key, response, METRICS, settings=CrossSettings("topic"), topic_pattern=pattern)
    assert cross["scores"]["corpus"] == {m: plain(expected.corpus[m]) for m in expected.metrics}


def test_topics_from_an_uploaded_topics_file(client, tmp_path):
    """A DOCUMENT<TAB>TOPIC[<TAB>SUBTOPIC] file, as --topics reads it: two topics of the
    three merged into one unit."""
    gum_key, gum_response = read(GUM / "key", "ecbplus"), read(GUM / "response", "ecbplus")
    key, response, topics = tmp_path / "key.conll", tmp_path / "response.conll", tmp_path / "topics.tsv"
    corefio.write(gum_key, key, "conll")
    corefio.write(gum_response, response, "conll")
    topics.write_text("".join(f"{d.name}\t{'A' if d.name.startswith(('36', '37')) else 'B'}\n" for d in gum_key),
                      encoding="utf-8")
    sent = {**files(key, response), "topics": (topics.name, topics.read_bytes())}
    done = client.post("/api/score", files=sent, data={"cross_document": "topic"})
    assert done.status_code == 200, done.text
    cross = done.json()["cross_document"]
    assert [u["label"] for u in cross["units"]] == ["A", "B"] and len(cross["units"][0]["documents"]) == 4
    assert cross["settings"]["topics_file"] == "topics.tsv"
    expected = score_cross(key, response, METRICS, settings=CrossSettings("topic"), topics=topics)
    assert cross["scores"]["corpus"] == {m: plain(expected.corpus[m]) for m in expected.metrics}
    view = client.get(cross["views"][0])
    assert view.status_code == 200 and "Key vs response: topic A" in view.text
    note = re.search(r'<p class="note" id="unit-documents">(.*?)</p>', view.text, re.S)
    assert note is not None and "Across 4 document(s)" in note.group(1)
    assert all(name in note.group(1) for name in ("36_1ecb", "36_2ecbplus", "37_1ecb", "37_2ecbplus"))
    topics.write_text("36_1ecb\tA\nonly-a-name\n", encoding="utf-8")
    bad = client.post("/score", files={**files(key, response), "topics": (topics.name, topics.read_bytes())},
                      data={"cross_document": "topic"})
    assert bad.status_code == 422
    assert re.search(r'<code id="error-where">topics\.tsv:2', bad.text), bad.text[:3000]


# -- what cannot apply --------------------------------------------------------------------------
@pytest.mark.parametrize("data, says", [
    ({"cross_document": "topic"}, "needs the topic of every document"),
    ({"cross_document": "subtopic"}, "needs the subtopic of every document"),
    ({"cross_document": "block"}, "needs a meta-document CoNLL file"),
    ({"cross_document": "corpus", "mention_type": "event"}, "says whether it is an event or an entity"),
    ({"style": "all"}, "score events and entities apart"),
    ({"cross_document": "topic", "topic_pattern": r"^(?P<topic>nothing)$"}, "the topic pattern given does not"),
])
def test_a_within_document_file_refused_where_cross_document_cannot_apply(client, data, says):
    page = client.post("/score", files=files(PLAIN, PLAIN_RESPONSE), data=data)
    assert page.status_code == 422
    message = re.search(r'<p id="error-message">(.*?)</p>', page.text, re.S)
    assert message is not None and says in message.group(1) and "key.raf.xml" in message.group(1)
    assert "--topics" not in message.group(1)  # the web's words, not the command line's
    chosen = data.get("cross_document", "auto")
    assert re.search(rf'<option value="{chosen}" selected>', page.text)  # the form as it was chosen
    api = client.post("/api/score", files=files(PLAIN, PLAIN_RESPONSE), data=data)
    assert api.status_code == 422 and says in api.json()["message"]


def test_the_corpus_as_one_unit_applies_to_any_file(client):
    done = client.post("/api/score", files=files(PLAIN, PLAIN_RESPONSE), data={"cross_document": "corpus"})
    assert done.status_code == 200
    expected = score_cross(PLAIN, PLAIN_RESPONSE, METRICS, settings=CrossSettings("corpus"))
    assert done.json()["cross_document"]["scores"]["corpus"]["muc"] == plain(expected["muc"])


@pytest.mark.parametrize("data, says", [
    ({"cross_document": "chapter"}, "unknown cross-document choice"),
    ({"style": "nobody2020"}, "unknown evaluation style"),
    ({"mention_type": "thing"}, "unknown mention type"),
    ({"topic_pattern": "(unclosed"}, "not a regular expression"),
    ({"topic_pattern": r"^\d+"}, "group named topic"),
])
def test_unknown_choices_are_refused(client, data, says):
    done = client.post("/api/score", files=zipped(SAMPLES), data=data)
    assert done.status_code == 400 and says in done.json()["message"]


def test_a_response_lacking_a_document_is_refused_with_the_web_s_words(client, tmp_path):
    response = tmp_path / "response"
    (response / "ECB+" / "1").mkdir(parents=True)
    source = SAMPLES / "response" / "ECB+" / "1" / "1_1ecb.xml"
    (response / "ECB+" / "1" / "1_1ecb.xml").write_bytes(source.read_bytes())
    done = client.post("/api/score", files={"key": ("key.zip", folder_zip(SAMPLES / "key")),
                                            "response": ("response.zip", folder_zip(response))})
    assert done.status_code == 422
    message = done.json()["message"]
    assert "missing" in message and "1_2ecbplus" in message


# -- the view across documents ------------------------------------------------------------------
def test_the_view_of_a_topic_shows_the_mentions_of_its_documents(client):
    where, _ = result_of(client, zipped(SAMPLES))
    page = client.get(f"{where}/cross/view?unit=0")
    assert page.status_code == 200
    text = page.text
    assert "Key vs response: topic 1" in text and "1_1ecb, 1_2ecbplus" in text
    key = read(SAMPLES / "key", "ecbplus")
    first = len(key[0].tokens)
    key_side = text[text.index('id="side-key"'):text.index('id="side-response"')]
    chains: dict[str, set[int]] = {}
    for start, chain in re.findall(r'class="br open[^"]*" data-t="(\d+)-[^"]*" data-chain="(k\d+)"', key_side):
        chains.setdefault(chain, set()).add(0 if int(start) < first else 1)
    assert any(docs == {0, 1} for docs in chains.values())  # a chain with mentions in both documents
    tokens = [int(i) for i in re.findall(r'class="tok[^"]*" data-i="(\d+)"', key_side)]
    assert tokens == list(range(first + len(key[1].tokens)))
    response = read(SAMPLES / "response", "ecbplus")
    counts = analyse_cross(key, response, CrossSettings(level="topic")).counts
    for kind in ("divided_entity", "conflated_entities"):
        shown = re.search(rf'data-kind="{kind}">.*?<b class="count">(\d+)</b>', text, re.S)
        assert shown is not None and int(shown.group(1)) == counts[kind] == 1
    assert client.get(f"{where}/view?doc=0").status_code == 200  # the document view stays


def test_every_unit_has_its_view(client):
    where, page = result_of(client, zipped(GUM), cross_document="topic")
    links = re.findall(r'class="unit-view" href="([^"]+)"', page)
    assert len(links) == 3
    for n, link in enumerate(links):
        view = client.get(link)
        assert view.status_code == 200
        assert f"Key vs response: topic {36 + n}" in view.text
        assert re.search(rf"{36 + n}_1ecb, {36 + n}_2ecbplus", view.text)


def test_no_cross_document_section_for_a_within_document_pair(client):
    where, page = result_of(client, files(PLAIN, PLAIN_RESPONSE))
    assert 'id="cross-document"' not in page
    assert client.get(f"{where}/cross.csv").status_code == 404
    assert client.get(f"{where}/cross/view").status_code == 404
    none = client.post("/api/score", files=zipped(SAMPLES), data={"cross_document": "none"})
    assert none.status_code == 200 and none.json()["cross_document"] is None


def test_the_form_and_api_list_the_choices(client):
    home = client.get("/").text
    assert 'name="cross_document"' in home and 'name="mention_type"' in home and 'name="topic_pattern"' in home
    assert all(f'<option value="{s}"' in home for s in STYLES)
    formats = client.get("/api/formats").json()
    assert formats["styles"] == list(STYLES) and "subtopic" in formats["cross_document"]


# -- in a browser (skipped without chromium; see tests/test_web_browser.py) ----------------------------
@pytest.mark.parametrize("width", (1400, 390))
def test_the_cross_document_pages_fit_a_phone(width, tmp_path):
    """The form, the result with its units and styles, and the view of a topic across
    its documents, in a real browser: nothing overflows sideways at 1400 px or 390 px."""
    from .test_web_browser import _require_browser

    _require_browser()
    import threading
    import time

    import uvicorn
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import Select, WebDriverWait

    from .test_web_browser import CHROMEDRIVER, CHROMIUM, _free_port

    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={width},900", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 500})
        base = f"http://127.0.0.1:{port}"
        for side in ("key", "response"):
            (tmp_path / f"{side}.zip").write_bytes(folder_zip(GUM / side))
        driver.get(base + "/")
        driver.find_element(By.ID, "key").send_keys(str(tmp_path / "key.zip"))
        driver.find_element(By.ID, "response").send_keys(str(tmp_path / "response.zip"))
        Select(driver.find_element(By.ID, "style")).select_by_value("all")
        driver.find_element(By.ID, "submit").click()
        WebDriverWait(driver, 120).until(EC.presence_of_element_located((By.ID, "styles-table")))
        result = driver.current_url
        links = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "a.unit-view")]
        assert len(links) == 3
        for url in (base + "/", result, links[0]):
            driver.get(url)
            WebDriverWait(driver, 60).until(EC.presence_of_element_located((By.TAG_NAME, "footer")))
            client, document, body = driver.execute_script(
                "return [document.documentElement.clientWidth, document.documentElement.scrollWidth, "
                "document.body.scrollWidth];")
            assert client <= width and max(document, body) <= client, (url, width, client, document, body)
        assert "topic 36" in driver.find_element(By.TAG_NAME, "h1").text
        assert driver.find_elements(By.CSS_SELECTOR, "#side-key .br.open")
    finally:
        driver.quit()
        srv.should_exit = True
        thread.join(timeout=30)
