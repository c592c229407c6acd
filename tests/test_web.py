"""`corefio serve`: every route of the web application with FastAPI's test client."""

from __future__ import annotations

import io
import re
import tempfile
import time
import warnings
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

import corefio  # noqa: E402

with warnings.catch_warnings():  # starlette's notice about httpx, not ours
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

from corefio.web import create_app, view  # noqa: E402

from .conftest import DATA, SAMPLES  # noqa: E402

KEY = SAMPLES / "key.raf.xml"
RESPONSE = SAMPLES / "response.raf.xml"
MMAX2 = SAMPLES / "mmax2" / "gum_news_worship"
REGRESSIONS = sorted(p for p in (DATA / "regressions").iterdir() if p.is_file() and p.suffix != ".md")
SECRET = "TOP-SECRET-CONTENT-42"


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(), base_url="http://127.0.0.1")


def upload(path: Path, name: str | None = None):
    return (name or path.name, path.read_bytes())


def project_zip(directory: Path = MMAX2) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for p in sorted(directory.rglob("*")):
            if p.is_file():
                z.write(p, f"{directory.name}/{p.relative_to(directory)}")
    return buf.getvalue()


def score_api(client, key, response, **data):
    return client.post("/api/score", files={"key": key, "response": response}, data=data)


def scratch_dirs() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("corefio-web-*")}


def cell_values(html: str) -> dict[tuple[str, str], dict[str, float]]:
    out = {}
    for m in re.finditer(r'<td class="score" data-strategy="(\w+)" data-metric="(\w+)"([^>]*)>', html):
        attrs = dict(re.findall(r'data-(\w+)="([^"]*)"', m.group(3)))
        out[(m.group(1), m.group(2))] = {k: float(v) for k, v in attrs.items()}
    return out


# -- pages ---------------------------------------------------------------------------------------
def test_home_page_has_both_uploads_formats_and_options(client):
    page = client.get("/")
    assert page.status_code == 200
    for needle in ('name="key"', 'name="response"', 'name="key_format"', 'name="metrics"', 'name="match"',
                   'value="partial"', 'name="singletons"', 'name="repair"', 'enctype="multipart/form-data"'):
        assert needle in page.text
    for fmt in ("raf", "mate", "muc", "mmax2", "conll"):
        assert f'<option value="{fmt}">' in page.text


def test_result_page_shows_the_four_score_sets_of_the_library(client):
    answer = client.post("/score", files={"key": upload(KEY), "response": upload(RESPONSE)}, follow_redirects=False)
    assert answer.status_code == 303
    result = answer.headers["location"]
    page = client.get(result)
    assert page.status_code == 200
    expected = corefio.score(corefio.read(KEY), corefio.read(RESPONSE), sync="all").to_dict()
    cells = cell_values(page.text)
    assert {s for s, _ in cells} == {"key", "response", "intersection", "union"}
    for strategy, metrics in expected["sync"].items():
        for metric, value in metrics.items():
            shown = cells[(strategy, metric)]
            if "f1" in shown:
                f1 = value["f1"] if "micro" not in value else value["micro"]["f1"]
                assert shown["f1"] == pytest.approx(f1, abs=1e-12)
            else:
                assert shown["value"] == pytest.approx(value["value"], abs=1e-12)
    assert 'id="mentions"' in page.text and 'id="documents"' in page.text
    assert "sortable" in page.text and "/view" in page.text
    # per-document rows of another strategy, without JavaScript
    assert client.get(result + "?strategy=union").status_code == 200


def test_downloads_scores_sync_files_and_conversions(client):
    result = client.post("/score", files={"key": upload(KEY), "response": upload(RESPONSE)},
                         follow_redirects=False).headers["location"]
    # the standard score (corefio score) and the four strategies (corefio score --sync all)
    scores = client.get(result + "/scores.json")
    assert scores.status_code == 200 and "attachment" in scores.headers["content-disposition"]
    standard = corefio.score(corefio.read(KEY), corefio.read(RESPONSE), per_document=True)
    assert scores.json()["corpus"] == standard.to_dict()["corpus"]
    csv = client.get(result + "/scores.csv")
    assert csv.status_code == 200 and csv.text == standard.to_csv()
    synced = client.get(result + "/sync.json")
    assert synced.status_code == 200 and "attachment" in synced.headers["content-disposition"]
    expected = corefio.score(corefio.read(KEY), corefio.read(RESPONSE), sync="all", per_document=True).to_dict()
    assert synced.json()["sync"] == expected["sync"]
    csv = client.get(result + "/sync.csv")
    assert csv.status_code == 200 and csv.text.startswith("strategy,document,metric")
    for strategy in ("key", "response", "intersection", "union"):
        for side in ("key", "response"):
            got = client.get(f"{result}/sync/{strategy}/{side}")
            assert got.status_code == 200
            corpus = corefio.loads(got.content, "raf")
            assert [d.name for d in corpus.documents] == [d.name for d in corefio.read(KEY).documents]
    for fmt in [f.name for f in corefio.all_formats() if f.can_write]:
        got = client.get(f"{result}/convert/response?to={fmt}")
        assert got.status_code == 200, (fmt, got.text)
        if corefio.get_format(fmt).directory:  # MMAX2 projects, saved Hugging Face datasets
            assert zipfile.ZipFile(io.BytesIO(got.content)).namelist()
        else:
            assert corefio.loads(got.content, fmt).documents
    assert client.get(f"{result}/convert/key?to=nonsense").status_code == 400
    assert client.get(f"{result}/sync/nonsense/key").status_code == 404
    assert client.get("/r/not-a-token").status_code == 404
    assert client.get("/r/not-a-token/scores.json").status_code == 404


def test_key_vs_response_view_marks_chains_errors_and_labels(client):
    result = client.post("/score", files={"key": upload(SAMPLES / "muc" / "muc6.key.sgm"),
                                          "response": upload(SAMPLES / "muc" / "muc6.response.sgm")},
                         follow_redirects=False).headers["location"]
    page = client.get(result + "/view")
    assert page.status_code == 200
    text = page.text
    assert 'id="side-key"' in text and 'id="side-response"' in text and '<select id="doc"' in text
    key_doc = corefio.read(SAMPLES / "muc" / "muc6.key.sgm").documents[0]
    response_doc = corefio.read(SAMPLES / "muc" / "muc6.response.sgm").documents[0]
    key_part, response_part = text.split('id="side-response"')
    # every mention the scorer counts bracketed on its side (an unmatched optional MUC
    # key mention leaves the key, as in scoring); the errors of the error analysis marked
    def opening(part, status=r"(?: [^\"]*?)?"):
        return len(re.findall(r'class="br open' + status + r' h\d+" data-t=', part))

    mentions = corefio.score(corefio.read(SAMPLES / "muc" / "muc6.key.sgm"),
                             corefio.read(SAMPLES / "muc" / "muc6.response.sgm"), sync="all").to_dict()["mentions"]
    recall, precision = mentions["recall"], mentions["precision"]
    assert opening(key_part) == recall["den"] == 10
    assert opening(response_part) == precision["den"] == 9
    from corefio.scoring.error_analysis import analyse_files

    errors = analyse_files(SAMPLES / "muc" / "muc6.key.sgm", SAMPLES / "muc" / "muc6.response.sgm").counts
    legend = dict(re.findall(r'data-kind="(\w+)">.*?<b class="count">(\d+)</b>', text))
    assert {k: int(n) for k, n in legend.items()} == dict(errors) and sum(errors.values()) > 0
    assert opening(key_part, " err [^\"]*") + opening(response_part, " err [^\"]*") > 0
    # entity labels as the source wrote them (MUC ids), not internal markable ids
    for m in key_doc.markables:
        if m.entity:
            assert f"<sub>{m.entity}</sub>" in key_part
    # each chain's mentions share the chain's id (what the highlighting follows)
    for k, chain in enumerate(view.scored_chains(key_doc, response_doc)[0]):
        assert len(re.findall(f'class="br open[^"]*" data-t="[^"]*" data-chain="k{k}"', key_part)) == len(chain)
    assert client.get(result + "/view?doc=99").status_code == 200  # clamped to the last document


def test_view_flags_divided_and_conflated_chains_and_non_identity_links(client):
    result = client.post("/score", files={"key": upload(KEY), "response": upload(RESPONSE)},
                         follow_redirects=False).headers["location"]
    text = client.get(result + "/view").text
    assert 'class="flag divided-entity"' in text and 'class="flag conflated-entities"' in text
    # the MATE sample has bridging-style links? any non-identity link is listed
    doc = corefio.read(KEY).documents[0]
    if any(True for _ in doc.iter_links(identity=False)):
        assert "Non-identity links" in text


@pytest.mark.parametrize("key,response,fmt", [
    (SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml", "raf"),
    (SAMPLES / "mate" / "key.mate.xml", SAMPLES / "mate" / "response.mate.xml", "mate"),
    (SAMPLES / "muc" / "muc6.key.sgm", SAMPLES / "muc" / "muc6.response.sgm", "muc"),
    (SAMPLES / "muc" / "muc7.key.sgm", SAMPLES / "muc" / "muc7.response.sgm", "muc"),
])
def test_api_score_every_xml_format_matches_the_library(client, key, response, fmt):
    answer = score_api(client, upload(key), upload(response))
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["formats"] == {"key": fmt, "response": fmt}
    expected = corefio.score(corefio.read(key), corefio.read(response), sync="all").to_dict()
    assert body["sync"] == expected["sync"]
    assert body["mentions"] == expected["mentions"]
    assert client.get(body["result"]).status_code == 200


@pytest.mark.parametrize("fmt", ["conll", "conllu", "jsonlines"])
def test_api_score_text_formats_detected_by_name_or_chosen(client, fmt):
    key, response = corefio.read(KEY), corefio.read(RESPONSE)
    ext = corefio.get_format(fmt).extensions[0]

    def as_bytes(corpus):
        data = corefio.dumps(corpus, fmt)
        return data.encode() if isinstance(data, str) else data

    expected = corefio.score(corefio.loads(as_bytes(key), fmt), corefio.loads(as_bytes(response), fmt),
                             sync="all").to_dict()
    detected = score_api(client, (f"key{ext}", as_bytes(key)), (f"response{ext}", as_bytes(response)))
    assert detected.status_code == 200, detected.text
    assert detected.json()["sync"] == expected["sync"]
    chosen = score_api(client, ("key.txt", as_bytes(key)), ("response.txt", as_bytes(response)),
                       key_format=fmt, response_format=fmt)
    assert chosen.status_code == 200, chosen.text
    assert chosen.json()["sync"] == expected["sync"]


def test_mmax2_project_as_zip_and_a_bare_mmax_file_refused(client):
    data = project_zip()
    answer = score_api(client, ("gum.zip", data), ("gum.zip", data), metrics="muc,bcub")
    assert answer.status_code == 200, answer.text
    assert answer.json()["formats"] == {"key": "mmax2", "response": "mmax2"}
    assert answer.json()["sync"]["key"]["muc"]["f1"] == 1.0
    mmax = next(MMAX2.glob("*.mmax"))
    bare = score_api(client, upload(mmax), upload(mmax))
    assert bare.status_code == 400
    assert ".zip" in bare.json()["message"]
    converted = client.post("/api/convert", files={"file": ("gum.zip", data)}, data={"to": "raf"})
    assert converted.status_code == 200 and corefio.loads(converted.json()["content"], "raf").documents


def test_options_metrics_matching_singletons(client):
    answer = score_api(client, upload(KEY), upload(RESPONSE), metrics="muc,blanc", match="head", singletons="drop")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert set(body["sync"]["key"]) == {"muc", "blanc"}
    expected = corefio.score(corefio.read(KEY), corefio.read(RESPONSE), ["muc", "blanc"], match="head", sync="all",
                             keep_singletons=False).to_dict()
    assert body["sync"] == expected["sync"]
    form = client.post("/score", files={"key": upload(KEY), "response": upload(RESPONSE)},
                       data={"metrics": ["muc", "lea"], "match": "partial", "singletons": "drop"})
    assert form.status_code == 200 and 'data-metric="lea"' in form.text and 'data-metric="bcub"' not in form.text


def test_zero_mentions_option(client):
    """The web evaluator offers the CLI's zero handling; the numbers are the library's."""
    from corefio.model.zeros import ZERO_MODES

    from corefio.web.app import ZERO_MODES as WEB_ZERO_MODES

    assert WEB_ZERO_MODES == ZERO_MODES
    zeros = DATA / "scorer-testcases" / "corefud" / "zeros"
    key, response = zeros / "TC-ZF.key", zeros / "TC-ZF-4.response"
    f1 = {}
    for mode in ZERO_MODES:
        answer = score_api(client, upload(key, "k.conllu"), upload(response, "r.conllu"), metrics="muc",
                           match="head", zeros=mode, key_format="conllu", response_format="conllu")
        assert answer.status_code == 200, answer.text
        f1[mode] = answer.json()["sync"]["key"]["muc"]["f1"]
        expected = corefio.score(key, response, ["muc"], match="head", sync="all", keep_zeros=mode != "drop",
                                 zero_match="dependent" if mode == "drop" else mode, key_format="conllu",
                                 response_format="conllu").to_dict()
        assert answer.json()["sync"] == expected["sync"]
    assert f1["dependent"] < f1["linear"]  # the zero with the key zero's dependency is in the other entity
    assert score_api(client, upload(key), upload(response), zeros="all").status_code == 400
    assert 'name="zeros"' in client.get("/").text


# -- convert, validate, repair -------------------------------------------------------------------
def test_convert_page_and_api(client):
    assert client.get("/convert").status_code == 200
    page = client.post("/convert", files={"file": upload(KEY)}, data={"to": "conll"})
    assert page.status_code == 200
    link = re.search(r'href="(/f/[^"]+)"', page.text).group(1)
    got = client.get(link)
    assert got.status_code == 200 and corefio.loads(got.content, "conll").documents
    api = client.post("/api/convert", files={"file": upload(SAMPLES / "mate" / "key.mate.xml")}, data={"to": "muc"})
    assert api.status_code == 200
    body = api.json()
    assert body["from"] == "mate" and body["encoding"] == "utf-8"
    assert corefio.loads(body["content"].encode(), "muc").documents
    zipped = client.post("/api/convert", files={"file": upload(KEY)}, data={"to": "mmax2"}).json()
    assert zipped["encoding"] == "base64" and zipped["filename"].endswith(".zip")


def test_validate_page_and_api(client):
    assert client.get("/validate").status_code == 200
    good = client.post("/api/validate", files={"file": upload(KEY)})
    assert good.status_code == 200 and good.json()["valid"] is True
    bad = client.post("/api/validate", files={"file": upload(DATA / "regressions" / "D06_mixed_delimiters.conll")})
    assert bad.status_code == 200 and bad.json()["valid"] is False
    assert all(d.get("file", "D06_mixed_delimiters.conll").startswith("D06") for d in bad.json()["diagnostics"])
    assert any("line" in d for d in bad.json()["diagnostics"])
    page = client.post("/validate", files={"file": upload(DATA / "regressions" / "D06_mixed_delimiters.conll")})
    assert page.status_code == 200 and "invalid" in page.text and "D06_mixed_delimiters.conll:" in page.text
    assert tempfile.gettempdir() not in page.text


def test_repair_page_and_api(client):
    assert client.get("/repair").status_code == 200
    malformed = DATA / "muc" / "malformed.sgm"
    api = client.post("/api/repair", files={"file": upload(malformed)})
    assert api.status_code == 200
    body = api.json()
    assert body["changes"] and all(c["line"] >= 1 for c in body["changes"])
    page = client.post("/repair", files={"file": upload(malformed)})
    assert page.status_code == 200 and "malformed.sgm:" in page.text
    link = re.search(r'href="(/f/[^"]+)"', page.text).group(1)
    assert client.get(link).content.decode() == body["content"]


def test_scoring_with_repair_reports_the_changes(client):
    malformed = DATA / "muc" / "malformed.sgm"
    plain = score_api(client, upload(malformed), upload(malformed))
    repaired = score_api(client, upload(malformed), upload(malformed), repair="true")
    assert repaired.status_code == 200, repaired.text
    assert any(d["code"].startswith("repair.") and d["file"] == "malformed.sgm" and d.get("line")
               for d in repaired.json()["reading"])
    assert plain.status_code in (200, 422)


# -- bad input: 4xx with what and where, never a 500 ------------------------------------------------
@pytest.mark.parametrize("path", REGRESSIONS, ids=[p.name for p in REGRESSIONS])
def test_every_malformed_regression_file_gives_a_clear_answer(client, path):
    for url, data in (("/api/validate", {}), ("/api/convert", {"to": "raf"})):
        answer = client.post(url, files={"file": upload(path)}, data=data)
        assert answer.status_code in (200, 400, 422), answer.text
        if answer.status_code != 200:
            body = answer.json()
            assert body["message"] and "Traceback" not in answer.text
            assert body.get("where", path.name).startswith(path.name)
    scored = score_api(client, upload(path), upload(path))
    assert scored.status_code in (200, 400, 422), scored.text
    page = client.post("/score", files={"key": upload(path), "response": upload(path)})
    assert page.status_code in (200, 400, 422)
    assert "Traceback" not in page.text


def test_a_format_error_page_names_file_and_line(client):
    path = DATA / "regressions" / "D06_mixed_delimiters.conll"
    page = client.post("/score", files={"key": upload(path), "response": upload(path)})
    assert page.status_code == 422
    where = re.search(r'<code id="error-where">([^<]*)</code>', page.text).group(1)
    assert re.fullmatch(r"D06_mixed_delimiters\.conll:\d+(:\d+)?", where)
    assert "tab" in page.text.lower()


def test_hostile_xml_is_refused_without_reading_files(client, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    xxe = (f'<?xml version="1.0"?>\n<!DOCTYPE struct [<!ENTITY xxe SYSTEM "file://{secret}">]>\n'
           '<struct type="reference_annotation_collection"><struct type="document" name="d">'
           '<struct type="primary_data"><struct type="word" id="w1"><feat type="form">&xxe;</feat></struct>'
           '</struct></struct></struct>').encode()
    lol = ['<!ENTITY lol "lol">'] + [f'<!ENTITY lol{i} "{(f"&lol{i - 1};" if i > 1 else "&lol;") * 10}">'
                                     for i in range(1, 10)]
    bomb = xxe.replace(f'<!ENTITY xxe SYSTEM "file://{secret}">'.encode(), "".join(lol).encode()) \
              .replace(b"&xxe;", b"&lol9;")
    for data in (xxe, bomb):
        start = time.perf_counter()
        for answer in (score_api(client, ("evil.raf.xml", data), upload(RESPONSE)),
                       client.post("/api/convert", files={"file": ("evil.raf.xml", data)}, data={"to": "conll"}),
                       client.post("/api/validate", files={"file": ("evil.raf.xml", data)}),
                       client.post("/score", files={"key": ("evil.raf.xml", data), "response": upload(RESPONSE)})):
            assert answer.status_code in (200, 422), answer.text
            assert SECRET not in answer.text
            if answer.status_code == 200:  # validation reports it as an error
                assert answer.json()["valid"] is False
        assert time.perf_counter() - start < 40  # a hang guard: ten times the target (four requests, 1 s each)


def test_oversize_uploads_get_413_and_a_clear_page():
    small = TestClient(create_app(max_upload_mb=0.05), base_url="http://127.0.0.1")
    big = b"x" * 80_000
    page = small.post("/score", files={"key": ("key.conll", big), "response": upload(RESPONSE)})
    assert page.status_code == 413
    assert "larger than the limit of 0.05 MB" in page.text and "<html" in page.text
    api = small.post("/api/convert", files={"file": ("a.conll", big)}, data={"to": "raf"})
    assert api.status_code == 413 and "limit" in api.json()["message"]
    # a body sent without Content-Length (chunked) is cut off too

    def chunks():
        for _ in range(10):
            yield b"y" * 10_000

    chunked = small.post("/api/validate", content=chunks(),
                         headers={"Content-Type": "multipart/form-data; boundary=xyz"})
    assert chunked.status_code == 413
    assert small.post("/api/validate", files={"file": upload(KEY)}).status_code == 200


def test_missing_fields_and_bad_options(client):
    assert client.post("/api/score", files={"key": upload(KEY)}).status_code == 422
    assert "response" in client.post("/api/score", files={"key": upload(KEY)}).json()["message"]
    page = client.post("/score", files={"key": upload(KEY)})
    assert page.status_code == 400 and "no response file" in page.text
    assert client.post("/score").status_code == 400
    assert client.post("/api/convert", data={"to": "raf"}).status_code == 422
    assert client.post("/api/validate").status_code == 422
    assert client.post("/api/repair").status_code == 422
    bad = score_api(client, upload(KEY), upload(RESPONSE), metrics="muc,nonsense")
    assert bad.status_code == 400 and "nonsense" in bad.json()["message"]
    assert score_api(client, upload(KEY), upload(RESPONSE), match="fuzzy").status_code == 400
    assert score_api(client, upload(KEY), upload(RESPONSE), key_format="docx").status_code == 400
    assert client.post("/api/convert", files={"file": upload(KEY)}, data={"to": "docx"}).status_code == 400
    assert client.post("/api/repair", files={"file": upload(KEY)}, data={"kind": "html"}).status_code == 400
    empty = score_api(client, ("key.raf.xml", b""), upload(RESPONSE))
    assert empty.status_code == 422 and empty.json()["where"] == "key.raf.xml"
    unknown = score_api(client, ("key.bin", b"\x00\x01 nothing"), upload(RESPONSE))
    assert unknown.status_code == 400 and "format" in unknown.json()["message"]
    mismatch = score_api(client, upload(KEY), upload(SAMPLES / "mate" / "response.mate.xml"))
    assert mismatch.status_code in (200, 422)
    assert client.get("/nowhere").status_code == 404


def test_client_file_names_never_name_server_paths(client, tmp_path, monkeypatch):
    # scratch directories go to a temporary directory of this test's own, so that other
    # tests running at the same time (pytest-xdist) do not show up in it
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    before = scratch_dirs()
    answer = client.post("/api/validate", files={"file": ("../../../../tmp/evil/../key.raf.xml", KEY.read_bytes())})
    assert answer.status_code == 200 and answer.json()["file"] == "key.raf.xml"
    answer = client.post("/api/convert", files={"file": ("/etc/passwd", KEY.read_bytes())},
                         data={"to": "conll", "from_format": "raf"})
    assert answer.status_code == 200 and answer.json()["filename"] == "passwd.conll"
    evil = io.BytesIO()
    with zipfile.ZipFile(evil, "w") as z:
        z.writestr("../../escape.mmax", "<mmax_project/>")
    refused = score_api(client, ("p.zip", evil.getvalue()), upload(KEY))
    assert refused.status_code == 422 and "unsafe path" in refused.json()["message"]
    assert not (Path(tempfile.gettempdir()).parent / "escape.mmax").exists()
    assert scratch_dirs() <= before  # temporary directories are removed


def test_scoring_time_limit():
    slow = TestClient(create_app(time_limit=0.0001), base_url="http://127.0.0.1")
    big = DATA / "regressions" / "P01b_raf_0.25MB.raf.xml"
    answer = slow.post("/api/score", files={"key": upload(big), "response": upload(big)})
    assert answer.status_code == 422
    assert "time limit" in answer.json()["message"]


def test_openapi_documents_the_api(client):
    schema = client.get("/openapi.json").json()
    for route in ("/api/score", "/api/convert", "/api/validate", "/api/repair"):
        assert "post" in schema["paths"][route]
    assert "/" not in schema["paths"]
    assert client.get("/docs").status_code == 200
    formats = client.get("/api/formats").json()
    assert "raf" in formats["read"] and formats["sync"] == ["key", "response", "intersection", "union"]


def test_serve_binds_localhost_by_default(monkeypatch):
    import uvicorn

    calls = {}

    class FakeServer:
        def __init__(self, config):
            calls.update(host=config.host, port=config.port, app=config.app, config=config)

        def run(self):
            calls["ran"] = True

    monkeypatch.setattr(uvicorn, "Server", FakeServer)
    from corefio.web import serve

    serve()
    assert calls["host"] == "127.0.0.1" and calls["port"] == 8000 and calls["ran"]
    serve(host="0.0.0.0", port=9000, max_upload_mb=1)
    assert calls["host"] == "0.0.0.0" and calls["port"] == 9000
    assert calls["config"].timeout_keep_alive <= 5 and calls["config"].limit_concurrency
