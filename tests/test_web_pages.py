"""The evaluator's pages as a researcher reads them: the standard score first (what the
reference scorer reports, checked against scorer.pl's stored output on real files), the
four synchronisation strategies one click away, metrics under the names papers use,
grouped and explained, a form that keeps its options after an error, and a result page
after every form (post, then redirect)."""

from __future__ import annotations

import io
import json
from html import unescape
import re
import warnings
import zipfile
from fractions import Fraction
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

import corefio  # noqa: E402
from corefio.scoring import REGISTRY  # noqa: E402
from corefio.web import create_app, glossary  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

from .conftest import DATA, SAMPLES  # noqa: E402

KEY = SAMPLES / "key.raf.xml"
RESPONSE = SAMPLES / "response.raf.xml"
WILD = DATA / "wild" / "conll2012"
JUDGED = json.loads((WILD / "judged.json").read_text(encoding="utf-8"))
GUM = DATA / "wild" / "conllu" / "gum"
ANNOTATORS = DATA / "agreement" / "gum-annotators"


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(max_upload_mb=4), base_url="http://127.0.0.1")


def upload(path: Path, name: str | None = None):
    return (name or path.name, path.read_bytes())


def zipped(paths: list[Path]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for p in paths:
            z.write(p, p.name)
    return buf.getvalue()


def scored(client, key: Path, response: Path, **data) -> tuple[dict, str]:
    """The API's answer and the result page's HTML."""
    answer = client.post("/api/score", files={"key": upload(key), "response": upload(response)}, data=data)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    return body, client.get(body["result"]).text


def row(html: str, metric: str) -> dict[str, str]:
    """The data attributes of a metric's row in the standard table."""
    table = html[html.index('id="standard-scores"'):html.index("</table>", html.index('id="standard-scores"'))]
    m = re.search(rf'<tr class="metric-row[^"]*" data-metric="{metric}"([^>]*)>(.*?)</tr>', table, re.S)
    assert m, metric
    attrs = dict(re.findall(r'data-([\w-]+)="([^"]*)"', m.group(1)))
    attrs["cells"] = re.findall(r"<td[^>]*>(.*?)</td>", m.group(2), re.S)
    return attrs


# -- the standard score first ---------------------------------------------------------------------
@pytest.mark.parametrize("pair", [p for p in JUDGED["pairs"] if not p["scorer.pl"].get("repeated")][:4],
                         ids=lambda p: p["response"])
def test_the_standard_score_is_what_scorer_pl_reports(client, pair):
    """Real CoNLL-2012 files: the standard score (counts and the F1 the page shows) is
    scorer.pl v8.01's, as stored in tests/data/wild/conll2012/judged.json."""
    body, html = scored(client, WILD / pair["key"], WILD / pair["response"])
    corpus = body["standard"]["corpus"]
    for metric in ("mentions", "muc", "bcub", "ceafm", "ceafe"):
        rn, rd, pn, pd = (Fraction(x) for x in pair["scorer.pl"][metric])
        ours = corpus[metric]
        assert ours["recall"]["num"] == pytest.approx(float(rn), abs=1e-9) and ours["recall"]["den"] == rd
        assert ours["precision"]["num"] == pytest.approx(float(pn), abs=1e-9) and ours["precision"]["den"] == pd
        f1 = 2 * rn * pn / (rn * pd + pn * rd) if rn and pn else 0
        shown = row(html, metric)
        assert float(shown["f1"]) == pytest.approx(float(f1), abs=1e-9)
        assert re.sub(r"<[^>]+>", "", shown["cells"][2]) == corefio.scoring.render.percent(ours["f1"])
    assert body["standard"]["corpus"] == corefio.score(WILD / pair["key"], WILD / pair["response"]).to_dict()["corpus"]


def test_the_page_leads_with_the_standard_score_and_keeps_the_strategies_one_click_away(client):
    """On a real GUM pair the strategies and the standard score differ (the issue's
    complaint: the page showed only the former); the standard table comes first, the
    strategies inside a closed <details> (opened when a strategy's documents are shown)."""
    key, response = GUM / "en_gum-ud-dev.trimmed.conllu", GUM / "en_gum-ud-dev.trimmed.response.conllu"
    body, html = scored(client, key, response)
    standard = corefio.score(corefio.read(key), corefio.read(response)).to_dict()["corpus"]
    sync = corefio.score(corefio.read(key), corefio.read(response), sync="all").to_dict()["sync"]
    assert body["standard"]["corpus"] == standard
    assert float(row(html, "conll")["f1"]) == standard["conll"]["f1"]
    assert all(sync[s]["conll"]["f1"] != standard["conll"]["f1"] for s in sync)
    first = html.index('id="standard-scores"')
    assert first < html.index('<details class="sync" id="sync">') < html.index('id="sync-scores"')
    assert 'id="sync" open' not in html
    # the documents table shows the standard score by default, a strategy on request
    docs = corefio.score(corefio.read(key), corefio.read(response), per_document=True).to_dict()["documents"]
    table = html[html.index('id="documents"'):]
    for name, results in docs.items():
        assert f'<td class="doc-name">{name}</td><td data-value="{results["muc"]["f1"]}">' in table
    keyed = client.get(body["result"] + "?strategy=key").text
    assert 'id="sync" open' in keyed and 'data-strategy="key"' in keyed
    # the settings say whose settings these are: without a preset, corefio's defaults (scorer.pl's but for LEA)
    settings = unescape(html[html.index('id="settings"'):html.index("</div>", html.index('id="settings"'))])
    assert "no preset: corefio's defaults" in settings and "--preset conll2012" in settings


def settings_of(html: str) -> str:
    html = unescape(html)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html[html.index('id="settings"'):
                                                             html.index("</div>", html.index('id="settings"'))]))


def test_the_form_leads_with_a_preset_and_the_page_says_where_the_settings_differ(client):
    html = client.get("/").text
    assert html.index('id="preset"') < html.index('id="key"')  # the first control
    assert selected(html, "preset") == "conll2012"
    assert re.findall(r'<option value="([\w-]*)" data-metrics', html)[:3] == ["conll2012", "corefud", "codicrac"]
    assert '<option value="">as the preset (exact)</option>' in html
    # what the form sends untouched: the preset, its metrics ticked, every option "as the preset"
    ticked = re.findall(r'name="metrics" value="(\w+)" checked', html)
    assert ticked == ["muc", "bcub", "ceafm", "ceafe", "blanc", "conll"]
    form = {"preset": "conll2012", "metrics_of": "conll2012", "metrics": ticked}
    key, response = GUM / "en_gum-ud-dev.trimmed.conllu", GUM / "en_gum-ud-dev.trimmed.response.conllu"
    files = {"key": upload(key), "response": upload(response)}
    page = client.post("/score", files=files, data=form)
    text = settings_of(page.text)
    assert "preset conll2012 , the settings of scorer.pl 8.01" in text and "differs" not in text
    assert "Standard score as scorer.pl 8.01 reports it" in re.sub(r"<[^>]+>", "", page.text)
    # another preset chosen without JavaScript: the metrics shown were conll2012's, so corefud's apply
    corefud = client.post("/score", files=files, data={**form, "preset": "corefud"})
    text = settings_of(corefud.text)
    assert "preset corefud , the settings of corefud-scorer 1.2" in text and "differs" not in text
    assert 'data-metric="lea"' in corefud.text  # corefud-scorer reports LEA
    # options chosen over the preset: said, with the scorer's own value
    head = client.post("/score", files=files, data={**form, "match": "head", "singletons": "drop"})
    text = settings_of(head.text)
    assert "differs from the preset: head matching (--match head; scorer.pl 8.01: exact matching); singletons " \
           "left out (--drop-singletons; scorer.pl 8.01: singletons kept)" in text
    # metrics ticked by hand are the metrics scored, and said
    own = client.post("/score", files=files, data={**form, "metrics": ["muc", "lea"]})
    assert "differs from the preset: metrics muc, lea" in settings_of(own.text)
    assert 'data-metric="bcub"' not in own.text.split('id="standard-scores"')[1].split("</table>")[0]


def test_the_corefud_preset_gives_corefud_scorers_numbers_on_gum(client):
    """The GUM pair scored with the corefud preset: the standard score is what
    corefud-scorer printed (tests/data/wild/conllu/judges.json, its default run)."""
    judged = json.loads((GUM.parent / "judges.json").read_text(encoding="utf-8"))
    run = next(j for j in judged if j["key"] == "gum/en_gum-ud-dev.trimmed.conllu")["runs"]["default"]
    key, response = GUM / "en_gum-ud-dev.trimmed.conllu", GUM / "en_gum-ud-dev.trimmed.response.conllu"
    body, html = scored(client, key, response, preset="corefud")
    corpus = body["standard"]["corpus"]
    for metric in ("muc", "bcub", "ceafe", "ceafm", "blanc", "lea"):
        recall, precision, f1 = run["values"][metric]
        assert corpus[metric]["recall"]["value"] == pytest.approx(recall, abs=1e-9), metric
        assert corpus[metric]["precision"]["value"] == pytest.approx(precision, abs=1e-9), metric
        assert float(row(html, metric)["f1"]) == pytest.approx(f1, abs=1e-9), metric
    conll = float(re.search(r"CoNLL score: ([\d.]+)", run["transcript"]).group(1))
    assert round(100 * corpus["conll"]["f1"], 2) == conll
    assert body["settings"]["preset"]["name"] == "corefud" and body["settings"]["differs"] == {}


# -- metric names, groups, explanations, links ----------------------------------------------------
def test_every_metric_has_a_name_a_group_and_one_line():
    assert set(glossary.METRIC_INFO) == set(REGISTRY)
    groups = {g for g, _, _ in glossary.GROUPS}
    for name, info in glossary.METRIC_INFO.items():
        assert info.group in groups and info.explain and "\n" not in info.explain
        assert info.label != name, name  # never the internal name
    assert [glossary.label(m) for m in ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea", "conll")] == \
        ["MUC", "B³", "CEAF-m", "CEAF-e", "BLANC", "LEA", "CoNLL"]
    assert [g for g, _, _, _ in glossary.grouped(REGISTRY)] == ["standard", "popescu-belis", "variants"]


def test_the_form_shows_grouped_metrics_with_names_explanations_and_links(client):
    html = unescape(client.get("/").text)
    groups = re.findall(r'<details class="metric-group" id="group-([\w-]+)"( open)?>', html)
    assert [g for g, _ in groups] == ["standard", "popescu-belis", "variants"]
    assert dict(groups)["standard"] == " open" and dict(groups)["variants"] == ""
    for name, info in glossary.METRIC_INFO.items():
        if name == "mentions":  # always reported: no checkbox
            assert 'value="mentions"' not in html
            continue
        item = re.search(rf'<input type="checkbox" name="metrics" value="{re.escape(name)}"[^>]*> <b>([^<]+)</b>'
                         rf'</label> <span class="explain">([^<]+) <a class="doc-link" href="([^"]+)"', html)
        assert item, name
        assert item.group(1) == info.label and item.group(2) == info.explain
        assert item.group(3) == f"/metrics#{name}"
    # the internal names are values, never what a reader reads
    text = re.sub(r"<[^>]+>", " ", html)
    for internal in ("bcub_0", "ceafm_orig", "xcore", "kappa_d0"):
        assert internal not in text
    glossary_page = unescape(client.get("/metrics").text)
    for info in glossary.METRIC_INFO.values():
        assert f'<dt id="{info.name}"><b>{info.label}</b>' in glossary_page
    assert "seed 00" not in glossary_page  # papers cited by authors and year


def test_documentation_links_follow_the_docs_url():
    base = TestClient(create_app(docs_url="https://example.org/corefio/"), base_url="http://127.0.0.1")
    assert 'href="https://example.org/corefio/metrics/muc/"' in base.get("/").text
    template = TestClient(create_app(docs_url="https://example.org/blob/main/docs/{page}.md"),
                          base_url="http://127.0.0.1")
    html = template.get("/").text
    assert 'href="https://example.org/blob/main/docs/metrics/ceaf.md"' in html  # CEAF-m and CEAF-e: one page
    assert 'href="https://example.org/blob/main/docs/metrics/end-to-end.md"' in html  # the variants: one page
    pages = {info.page for info in glossary.METRIC_INFO.values()}
    assert pages == {"mentions", "muc", "bcubed", "ceaf", "blanc", "lea", "conll", "end-to-end", "kappa", "core",
                     "information", "distributional", "typed"}


def test_result_tables_name_metrics_as_papers_do(client):
    body, html = scored(client, KEY, RESPONSE, metrics="muc,bcub_0,kappa_d0,derr")
    html = unescape(html)
    standard = html[html.index('id="standard-scores"'):html.index("</table>", html.index('id="standard-scores"'))]
    assert re.findall(r'<tr class="group"><th colspan="4" scope="rowgroup">([^<]+)</th>', standard) == \
        ["Standard measures", "Popescu-Belis's measures", "Variants"]
    for name in ("muc", "bcub_0", "kappa_d0", "derr"):
        assert f'title="{glossary.info(name).explain}">{glossary.label(name)}</a>' in standard
    assert re.search(r'data-metric="derr" data-value="[^"]+">.*\((p|r|-)\)', standard, re.S)


# -- an error keeps the form -----------------------------------------------------------------------
def selected(html: str, field: str) -> str | None:
    select = re.search(rf'<select id="{field}" name="{field}"[^>]*>(.*?)</select>', html, re.S)
    assert select, field
    found = re.search(r'<option value="([^"]*)"[^>]*? selected>', select.group(1)) or \
        re.search(r"<option selected>([^<]*)</option>", select.group(1))
    return found.group(1) if found else None


def test_a_score_error_shows_the_form_again_with_the_options_chosen(client):
    answer = client.post("/score", files={"key": upload(KEY), "response": ("broken.raf.xml", b"<x")},
                         data={"metrics": ["muc", "kappa"], "match": "head", "singletons": "drop", "zeros": "linear",
                               "key_format": "raf", "repair": "on"})
    assert answer.status_code == 422
    html = answer.text
    assert 'id="score-form"' in html and 'id="error-message"' in html
    assert html.index('id="error"') < html.index('id="key"')  # above the form
    assert re.fullmatch(r"broken\.raf\.xml:\d+(:\d+)?", re.search(r'id="error-where">([^<]+)<', html).group(1))
    assert selected(html, "match") == "head" and selected(html, "singletons") == "drop"
    assert selected(html, "zeros") == "linear" and selected(html, "key_format") == "raf"
    assert selected(html, "response_format") is None
    assert re.findall(r'name="metrics" value="(\w+)" checked', html) == ["muc", "kappa"]
    assert 'name="repair" value="on" checked' in html
    assert "you chose key.raf.xml: choose it again" in html and "you chose broken.raf.xml" in html
    # options the server refuses come back too, with the reason
    bad = client.post("/score", files={"key": upload(KEY), "response": upload(RESPONSE)}, data={"match": "fuzzy"})
    assert bad.status_code == 400 and "unknown matching mode" in bad.text and 'id="score-form"' in bad.text


@pytest.mark.parametrize(("route", "files", "data", "form_id", "kept"), [
    ("/compare", [("key", ("key.raf.xml", b"<x")), ("responses", ("a.raf.xml", b"x")), ("responses", ("b.raf.xml", b"y"))],
     {"match": "min", "seed": "7", "samples": "99"}, "compare-form", {"match": "min"}),
    ("/agreement", [("annotations", ("a.raf.xml", b"<x"))], {"distance": "masi", "keep": "agreed", "names": "ann"},
     "agreement-form", {"distance": "masi", "keep": "agreed"}),
    ("/convert", [("file", ("a.raf.xml", b"<x"))], {"to": "conllu", "from_format": "raf"}, "convert-form",
     {"to": "conllu", "from_format": "raf"}),
    ("/validate", [("file", ("a.conll", b""))], {"format": "conll"}, "validate-form", {"format": "conll"}),
    ("/repair", [("file", ("a.zip", b"PK\x03\x04 not really"))], {"kind": "xml", "entities": "declare"},
     "repair-form", {"kind": "xml", "entities": "declare"}),
])
def test_every_form_comes_back_with_its_options_after_an_error(client, route, files, data, form_id, kept):
    answer = client.post(route, files=files, data=data)
    assert 400 <= answer.status_code < 500
    html = answer.text
    assert f'id="{form_id}"' in html and 'id="error-message"' in html
    for field, value in kept.items():
        assert selected(html, field) == value, field
    assert "you chose" in html
    if route == "/compare":
        assert 'id="seed" name="seed" value="7"' in html and 'id="samples" name="samples" value="99"' in html
    if route == "/agreement":
        assert 'value="ann"' in html


def test_an_error_page_outside_a_form_leads_back_to_it(client):
    # a refusal of the edge (413 while the body streams) has no form to show: its page links back
    small = TestClient(create_app(max_upload_mb=0.01), base_url="http://127.0.0.1")
    big = b" " * 20_000
    answer = small.post("/compare", files=[("key", ("k.raf.xml", big)), ("responses", ("r.raf.xml", big))],
                        headers={"content-length": str(50_000)})
    assert answer.status_code == 413
    assert '<a id="back" href="/compare">' in answer.text
    assert '<a id="back" href="/">' in client.get("/r/no-such-result").text


# -- post, redirect, get ----------------------------------------------------------------------------
def test_convert_validate_and_repair_redirect_to_a_result_page(client):
    converted = client.post("/convert", files={"file": upload(KEY)}, data={"to": "conll"}, follow_redirects=False)
    assert converted.status_code == 303 and converted.headers["location"].startswith("/d/")
    page = client.get(converted.headers["location"]).text
    link = re.search(r'href="(/f/[^"]+)"', page).group(1)
    assert corefio.loads(client.get(link).content, "conll").documents
    validated = client.post("/validate", files={"file": upload(KEY)}, follow_redirects=False)
    assert validated.status_code == 303 and 'id="verdict">valid' in client.get(validated.headers["location"]).text
    assert client.get(validated.headers["location"].replace("/d/", "/f/")).status_code == 404  # no file to offer
    assert client.get("/d/not-a-token").status_code == 404
    compared = client.post("/compare", files=[("key", upload(KEY)), ("responses", upload(KEY)),
                                              ("responses", upload(RESPONSE))], data={"samples": "10"},
                           follow_redirects=False)
    assert compared.status_code == 303 and compared.headers["location"].startswith("/c/")
    data = client.get(compared.headers["location"] + "/comparison.json").json()
    assert data["comparison"]["systems"] == ["key.raf.xml", "response.raf.xml"]


# -- a zip of an annotator's (or a system's) files -------------------------------------------------
def test_a_zip_of_files_of_one_format_is_read_as_one_corpus(client):
    a, b = sorted((ANNOTATORS / "a").glob("*.conll")), sorted((ANNOTATORS / "b").glob("*.conll"))
    answer = client.post("/api/score", files={"key": ("a.zip", zipped(a)), "response": ("b.zip", zipped(b))})
    assert answer.status_code == 200, answer.text
    expected = corefio.score(a, b)
    assert answer.json()["standard"]["corpus"] == expected.to_dict()["corpus"]
    assert answer.json()["formats"] == {"key": "conll", "response": "conll"}
    valid = client.post("/api/validate", files={"file": ("a.zip", zipped(a))})
    assert valid.status_code == 200 and valid.json()["valid"] is True and valid.json()["format"] == "conll"
    mixed = client.post("/api/convert", files={"file": ("m.zip", zipped([a[0], KEY]))}, data={"to": "raf"})
    assert mixed.status_code == 422 and "MMAX2" in mixed.json()["message"]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("docs/one.conll", a[0].read_bytes())
        z.writestr("docs/two.conll", b"#begin document (x); part 000\nbroken line\n")
    refused = client.post("/api/score", files={"key": ("k.zip", buf.getvalue()), "response": ("k.zip", buf.getvalue())})
    assert refused.status_code == 422 and refused.json()["where"].startswith("k.zip/docs/two.conll")


# -- figures ----------------------------------------------------------------------------------------
def test_every_result_page_has_its_figures(client):
    """The score page's documents and errors, the compare page's intervals and errors, the
    agreement page's heatmap: PNG images of the pages' own addresses (the CSP allows
    only those), drawn once and then kept."""
    pytest.importorskip("matplotlib")
    body, html = scored(client, KEY, RESPONSE)
    token = body["result"]
    pngs = [f"{token}/documents.png", f"{token}/errors.png"]
    for path in pngs:
        assert f'<img src="{path}"' in html
    compared = client.post("/compare", files=[("key", upload(KEY)), ("responses", upload(KEY)),
                                              ("responses", upload(RESPONSE))], data={"samples": "20"})
    page = compared.url.path
    pngs += [f"{page}/comparison.png", f"{page}/errors.png"]
    assert f'<img src="{page}/comparison.png"' in compared.text
    agreed = client.post("/agreement", files=[("annotations", upload(KEY)), ("annotations", upload(RESPONSE))])
    pngs.append(f"{agreed.url.path}/pairs.png")
    assert f'<img src="{agreed.url.path}/pairs.png"' in agreed.text
    for path in pngs:
        image = client.get(path)
        assert image.status_code == 200 and image.headers["content-type"] == "image/png", path
        assert image.content.startswith(b"\x89PNG") and len(image.content) > 10_000
        assert client.get(path).content == image.content  # kept
    assert client.get(f"{token}/nothing.png").status_code == 404


def test_figures_name_metrics_as_papers_do():
    pytest.importorskip("matplotlib")
    from corefio import plots
    from corefio.scoring.significance import compare
    from corefio.web.app import named

    comparison = compare(corefio.read(KEY), [corefio.read(RESPONSE), corefio.read(KEY)], ["muc", "bcub", "ceafe"],
                         names=["r", "k"], samples=10)
    figure = named(plots.compare_figure(comparison), comparison.metrics)
    assert [t.get_text() for t in figure.axes[0].get_xticklabels()] == ["MUC", "B³", "CEAF-e"]
