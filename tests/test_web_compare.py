"""The evaluator's compare page and API (corefio.web.compare): a key and several
responses give the tables of corefio.scoring.significance and error_analysis, and the
new routes keep every protection of the others (Host, Origin, upload limit over all the
files of a request, hostile uploads, the worker's time limit, no inline script)."""

from __future__ import annotations

import re
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

import corefio  # noqa: E402
from corefio.model import Corpus  # noqa: E402
from corefio.scoring.error_analysis import ERROR_CLASSES, analyse_files  # noqa: E402
from corefio.scoring.significance import compare  # noqa: E402
from corefio.web import create_app  # noqa: E402

from .conftest import REPO, SAMPLES  # noqa: E402
from .test_security import HOSTILE, SECRET  # noqa: E402
from .test_view_errors import one_of_each  # noqa: E402

KEY = SAMPLES / "key.raf.xml"
RESPONSE = SAMPLES / "response.raf.xml"


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(max_upload_mb=4), base_url="http://127.0.0.1")


def corpora() -> tuple[Corpus, list[Corpus]]:
    """A key of four documents and three systems: perfect, one error of each class in
    every document, and errors in two documents only."""
    key_doc, response_doc, _ = one_of_each()
    names = ["d1", "d2", "d3", "d4"]
    key = Corpus(documents=[key_doc.model_copy(update={"name": n}) for n in names])
    perfect = key
    poor = Corpus(documents=[response_doc.model_copy(update={"name": n}) for n in names])
    mixed = Corpus(documents=[(response_doc if k < 2 else key_doc).model_copy(update={"name": n})
                              for k, n in enumerate(names)])
    return key, [perfect, poor, mixed]


def raf(corpus: Corpus) -> bytes:
    return corefio.dumps(corpus, "raf")


def files_of(key: Corpus, systems: list[Corpus], names=("perfect.raf.xml", "poor.raf.xml", "mixed.raf.xml")):
    return [("key", ("key.raf.xml", raf(key)))] + [("responses", (n, raf(s))) for n, s in zip(names, systems)]


def test_the_api_gives_the_librarys_comparison_and_errors(client):
    key, systems = corpora()
    answer = client.post("/api/compare", files=files_of(key, systems),
                         data={"metrics": "muc,bcub,ceafe,conll,lea", "samples": "2000", "seed": "7"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    names = ["perfect.raf.xml", "poor.raf.xml", "mixed.raf.xml"]
    expected = compare(key, systems, ["muc", "bcub", "ceafe", "conll", "lea"], names=names, samples=2000, seed=7)
    assert body["comparison"] == expected.to_dict()
    # four documents: 16 swaps, enumerated; the perfect system is perfect, the poor one is not
    assert all(p["exact"] for p in body["comparison"]["pairs"]) and len(body["comparison"]["pairs"]) == 3 * 5
    assert body["comparison"]["scores"]["perfect.raf.xml"]["muc"]["f1"] == 1.0
    assert body["comparison"]["scores"]["poor.raf.xml"]["muc"]["f1"] < 1.0
    for name, system in zip(names, systems):
        assert body["errors"][name] == analyse_files(key, system).to_dict()
    assert body["errors"]["poor.raf.xml"]["corpus"] == {k: 4 for k in ERROR_CLASSES}
    assert body["errors"]["mixed.raf.xml"]["corpus"] == {k: 2 for k in ERROR_CLASSES}
    assert body["errors"]["perfect.raf.xml"]["corpus"] == {k: 0 for k in ERROR_CLASSES}
    assert [r["documents"] for r in body["responses"]] == [4, 4, 4] and body["key"]["documents"] == 4


def test_the_page_shows_every_metric_every_pair_and_the_error_counts(client):
    key, systems = corpora()
    answer = client.post("/compare", files=files_of(key, systems), data={"metrics": ["muc", "conll"],
                                                                         "samples": "500", "seed": "1"},
                         headers={"Origin": "http://127.0.0.1"})
    assert answer.status_code == 200, answer.text
    page = answer.text
    assert answer.headers["cache-control"] == "no-store"
    expected = compare(key, systems, ["muc", "conll"], names=["perfect.raf.xml", "poor.raf.xml", "mixed.raf.xml"],
                       samples=500, seed=1)
    cells = re.findall(r'data-system="([^"]+)" data-metric="(\w+)" data-f1="([^"]+)" data-low="([^"]+)" '
                       r'data-high="([^"]+)"', page)
    assert len(cells) == 3 * 2
    for system, metric, f1, low, high in cells:
        r = expected.result(system, metric)
        assert (float(f1), float(low), float(high)) == (r.f1, r.low, r.high)
    pairs = re.findall(r'<tr data-first="([^"]+)" data-second="([^"]+)" data-metric="(\w+)" data-difference="([^"]+)" '
                       r'data-p-randomisation="([^"]+)" data-p-bootstrap="([^"]+)"', page)
    assert [(a, b, m) for a, b, m, *_ in pairs] == [(p.first, p.second, p.metric) for p in expected.pairs]
    for (_, _, _, d, pr, pb), p in zip(pairs, expected.pairs):
        assert (float(d), float(pr), float(pb)) == (p.difference, p.p_randomisation, p.p_bootstrap)
    counts = re.findall(r'data-system="([^"]+)" data-class="(\w+)" data-count="(\d+)"', page)
    assert len(counts) == 3 * len(ERROR_CLASSES)
    per_system = {"perfect.raf.xml": 0, "poor.raf.xml": 4, "mixed.raf.xml": 2}
    assert all(int(n) == per_system[s] for s, _, n in counts)
    form = client.get("/compare")
    assert form.status_code == 200 and 'name="responses" multiple' in form.text


def test_the_same_file_name_twice_gets_two_names(client):
    key, systems = corpora()
    answer = client.post("/api/compare", files=files_of(key, systems[1:], names=("sys.xml", "sys.xml")),
                         data={"samples": "10"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["comparison"]["systems"] == ["sys.xml", "sys.xml (2)"]


@pytest.mark.parametrize("form,words", [
    ({"metrics": "muc,kappa"}, "cannot be compared"),
    ({"samples": "0"}, "between 1 and"),
    ({"samples": "10001"}, "between 1 and"),
    ({"samples": "many"}, "whole number"),
    ({"seed": "x"}, "whole number"),
    ({"confidence": "95"}, "between 0 and 1"),
    ({"match": "fuzzy"}, "matching mode"),
    ({"key_format": "nonsense"}, "unknown input format"),
])
def test_bad_options_are_refused_with_a_reason(client, form, words):
    key, systems = corpora()
    answer = client.post("/api/compare", files=files_of(key, systems), data=form)
    assert answer.status_code == 400 and words in answer.json()["message"], answer.text


def test_one_response_or_too_many_are_refused(client):
    key, systems = corpora()
    one = client.post("/api/compare", files=files_of(key, systems[:1]))
    assert one.status_code == 400 and "at least two" in one.json()["message"]
    many = client.post("/api/compare", files=files_of(key, systems * 3, names=[f"s{i}" for i in range(9)]))
    assert many.status_code == 400 and "at most 8" in many.json()["message"]
    page = client.post("/compare", files=files_of(key, systems[:1]))
    assert page.status_code == 400 and "at least two" in page.text


def test_responses_on_other_documents_are_an_input_error_not_a_crash(client):
    key, systems = corpora()
    other = Corpus(documents=[d.model_copy(update={"name": "elsewhere"}) for d in systems[1].documents[:1]])
    answer = client.post("/api/compare", files=files_of(key, [systems[0], other]))
    assert 400 <= answer.status_code < 500, answer.text
    assert len(answer.json()["message"]) > 10


# -- the protections of every route --------------------------------------------------------------
ROUTES = ["/compare", "/api/compare"]


@pytest.mark.parametrize("route", ROUTES)
def test_a_foreign_host_is_refused(client, route):
    rebound = TestClient(client.app, base_url="http://attacker.example")
    key, systems = corpora()
    for answer in (rebound.post(route, files=files_of(key, systems)), rebound.get("/compare")):
        assert answer.status_code == 400 and "host" in answer.text.lower()
        assert answer.headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("origin", [{"Origin": "http://attacker.example"}, {"Origin": "null"},
                                    {"Referer": "http://attacker.example/page"}, {"Sec-Fetch-Site": "cross-site"}])
def test_a_cross_site_post_is_refused(client, route, origin):
    key, systems = corpora()
    start = time.perf_counter()
    answer = client.post(route, files=files_of(key, systems), headers=origin)
    assert answer.status_code == 403 and "another site" in answer.text
    assert time.perf_counter() - start < 10.0  # a hang guard (the target is 1 s)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("case", ["zip slip ..", "zip symlink", "zip bomb (ratio)", "xxe", "billion laughs"])
def test_a_hostile_response_among_good_ones_is_refused(client, tmp_path, route, case):
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    build, name = HOSTILE[case]
    key, systems = corpora()
    files = files_of(key, systems[:1]) + [("responses", (name, build(secret)))]
    start = time.perf_counter()
    answer = client.post(route, files=files, data={"samples": "10"})
    assert 400 <= answer.status_code < 500, answer.text[:300]
    assert time.perf_counter() - start < 20.0  # a hang guard (the target is 2 s)
    assert SECRET not in answer.text and "lollollol" not in answer.text
    assert "corefio-web-" not in answer.text and str(REPO) not in answer.text


def test_the_upload_limit_counts_all_the_files_of_a_request():
    small = TestClient(create_app(max_upload_mb=1), base_url="http://127.0.0.1")
    key, systems = corpora()
    # each file under the limit, together over it: the key and two responses of 0.4 MB
    padding = b" " * 400_000
    files = [("key", ("key.raf.xml", raf(key) + padding)), ("responses", ("a.raf.xml", raf(systems[0]) + padding)),
             ("responses", ("b.raf.xml", raf(systems[1]) + padding))]
    answer = small.post("/api/compare", files=files)
    assert answer.status_code == 413 and "limit" in answer.json()["message"]


def test_the_worker_time_limit_applies():
    slow = TestClient(create_app(time_limit=0.0001), base_url="http://127.0.0.1")
    key, systems = corpora()
    answer = slow.post("/api/compare", files=files_of(key, systems))
    assert answer.status_code == 422 and "time limit" in answer.json()["message"]


def test_the_pages_have_no_inline_script_or_style(client):
    key, systems = corpora()
    result = client.post("/compare", files=files_of(key, systems), data={"samples": "10"})
    for text in (client.get("/compare").text, result.text):
        assert "style=" not in text and "javascript:" not in text
        assert "<script" not in text.replace('<script src="/static/app.js"></script>', "")
