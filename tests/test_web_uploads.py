"""`corefio serve`: MMAX2 projects with several documents, the view's counts, the store's
bounds, the time limit on reading, and the reproducers that once gave 500."""

from __future__ import annotations

import base64
import io
import shutil
import threading
import time
import warnings
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

import corefio  # noqa: E402
from corefio.web import create_app, server_config, view  # noqa: E402
from corefio.web.store import Store  # noqa: E402
from corefio.web.errors import WebError  # noqa: E402

from .conftest import SAMPLES, shared_data  # noqa: E402

KEY = SAMPLES / "key.raf.xml"
RESPONSE = SAMPLES / "response.raf.xml"
MMAX2 = SAMPLES / "mmax2" / "gum_news_worship"
REPRODUCERS = Path(__file__).resolve().parents[2] / "shared" / "reproducers"


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(), base_url="http://127.0.0.1")


def zip_folder(folder: Path, top: str | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                z.write(p, f"{top or folder.name}/{p.relative_to(folder)}")
    return buf.getvalue()


def zip_files(files: dict[str, bytes | str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue()


def two_document_project() -> tuple[bytes, corefio.Corpus]:
    """A minimal MMAX2 project with two .mmax files (the samples' key, twice)."""
    corpus = corefio.read(KEY)
    second = corpus.documents[0].copy(name="second")
    corpus = corpus.copy(documents=[corpus.documents[0], second])
    files = corefio.dump_files(corpus, "mmax2")
    assert sum(name.endswith(".mmax") for name in files) == 2
    return zip_files({f"project/{name}": data for name, data in files.items()}), corpus


# -- MMAX2 projects with several .mmax files -----------------------------------------------------
def test_a_project_with_several_mmax_files_is_read_whole(client):
    data, corpus = two_document_project()
    answer = client.post("/api/score", files={"key": ("p.zip", data), "response": ("p.zip", data)})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    n = sum(len(c) for c in corpus.documents[0].chains()) * 2
    assert body["mentions"]["recall"] == {"num": n, "den": n, "value": 1.0}
    converted = client.post("/api/convert", files={"file": ("p.zip", data)}, data={"to": "conll"})
    assert converted.status_code == 200 and converted.json()["content"].count("#begin document") == 2
    assert client.post("/api/validate", files={"file": ("p.zip", data)}).status_code == 200


def test_two_projects_in_one_zip_are_refused_clearly(client):
    data, _ = two_document_project()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        files = {n: z.read(n) for n in z.namelist()}
    both = zip_files({**files, **{n.replace("project/", "other/"): d for n, d in files.items()}})
    answer = client.post("/api/convert", files={"file": ("p.zip", both)}, data={"to": "conll"})
    assert answer.status_code == 422 and "2 MMAX2 projects" in answer.json()["message"]


def test_pcc_coreference_folder_uploads_as_one_project(client):
    pcc = shared_data("corpora/pcc-mmax2/coreference")
    data = zip_folder(pcc)
    expected = corefio.read(pcc)
    assert len(expected.documents) == 2
    answer = client.post("/api/score", files={"key": ("pcc.zip", data), "response": ("pcc.zip", data)})
    assert answer.status_code == 200, answer.text
    assert answer.json()["mentions"]["f1"] == 1.0
    converted = client.post("/api/convert", files={"file": ("pcc.zip", data)}, data={"to": "conll"})
    assert converted.status_code == 200
    assert converted.json()["content"].count("#begin document") == len(expected.documents)


def test_macos_companions_in_a_zip_are_ignored(client):
    data = zip_folder(MMAX2)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        files = {n: z.read(n) for n in z.namelist()}
    files["__MACOSX/gum_news_worship/._GUM_news_worship.mmax"] = b"\0\x05\x16\x07"
    answer = client.post("/api/convert", files={"file": ("p.zip", zip_files(files))}, data={"to": "conll"})
    assert answer.status_code == 200, answer.text


# -- the view counts what the scorer counts --------------------------------------------------------
def counts_of(page: str) -> dict[str, dict[str, int]]:
    import re

    out = {}
    for side in ("key", "response"):
        part = page.split(f'id="side-{side}"', 1)[1]
        counts = re.search(r'<p class="counts">(.*?)</p>', part).group(1)
        out[side] = {k: int(v) for k, v in re.findall(r"([\w ]+): <b>(\d+)</b>", counts.replace(" · ", "|"))}
    return out


def two_layer_pair():
    """A key and a response of one text whose mentions are equal by span, but where the
    response puts some of them on a second layer, next to structural markables the
    scorer leaves out."""
    key = corefio.read(MMAX2)
    doc = key.documents[0]
    moved = [m.copy(layer="secondary") if i % 3 == 0 and m.entity else m
             for i, m in enumerate(doc.markables)]
    response = key.copy(**{"documents": [doc.copy(markables=moved)]})
    return key, response


@pytest.mark.parametrize("pair", ["two layers", "raf samples", "muc samples", "mmax2 sample"])
def test_view_counts_equal_mention_identification(pair):
    if pair == "two layers":
        key, response = two_layer_pair()
    elif pair == "raf samples":
        key, response = corefio.read(KEY), corefio.read(RESPONSE)
    elif pair == "muc samples":
        key, response = corefio.read(SAMPLES / "muc" / "muc6.key.sgm"), corefio.read(SAMPLES / "muc" / "muc6.response.sgm")
    else:
        key = corefio.read(MMAX2)
        response = key  # its sentence layer is not counted
    for match in ("exact", "head", "partial"):
        scores = corefio.score(key, response, sync="all", match=match).to_dict()["mentions"]
        v = view.build(key.documents[0], response.documents[0], match=match)
        assert v.key.counts["mentions"] == scores["recall"]["den"]
        assert v.response.counts["mentions"] == scores["precision"]["den"]
        assert v.key.counts["missing"] == scores["recall"]["den"] - scores["recall"]["num"]
        assert v.response.counts["spurious"] == scores["precision"]["den"] - scores["precision"]["num"]


def test_view_page_of_a_two_layer_project_shows_the_score_counts(client):
    key, response = two_layer_pair()
    files = {"key": ("k.zip", zip_files(corefio.dump_files(key, "mmax2"))),
             "response": ("r.zip", zip_files(corefio.dump_files(response, "mmax2")))}
    answer = client.post("/api/score", files=files)
    assert answer.status_code == 200, answer.text
    mentions = answer.json()["mentions"]
    counts = counts_of(client.get(answer.json()["result"] + "/view").text)
    assert counts["key"]["mentions"] == mentions["recall"]["den"]
    assert counts["response"]["mentions"] == mentions["precision"]["den"]
    assert counts["key"]["missing"] == mentions["recall"]["den"] - mentions["recall"]["num"]
    assert counts["response"]["spurious"] == mentions["precision"]["den"] - mentions["precision"]["num"]


# -- the store is bounded in bytes and age -----------------------------------------------------------
def test_many_scorings_keep_the_store_within_its_byte_bound():
    app = create_app(store_mb=0.25)
    client = TestClient(app, base_url="http://127.0.0.1")
    files = {"key": (KEY.name, KEY.read_bytes()), "response": (RESPONSE.name, RESPONSE.read_bytes())}
    store = app.state.store
    tokens = []
    for _ in range(40):
        answer = client.post("/api/score", files=files)
        assert answer.status_code == 200
        tokens.append(answer.json()["result"])
        assert store.bytes <= store.max_bytes
    assert 1 < len(store.items) < 40
    assert store.bytes == sum(size for _, size, _ in store.items.values())
    assert client.get(tokens[-1]).status_code == 200
    gone = client.get(tokens[0])
    assert gone.status_code == 404 and "no longer kept" in gone.text


def test_a_result_larger_than_the_store_is_not_kept():
    app = create_app(store_mb=0.001)
    client = TestClient(app, base_url="http://127.0.0.1")
    files = {"key": (KEY.name, KEY.read_bytes()), "response": (RESPONSE.name, RESPONSE.read_bytes())}
    answer = client.post("/api/score", files=files)
    assert answer.status_code == 200 and answer.json()["result"] is None and app.state.store.bytes == 0
    page = client.post("/score", files=files)
    assert page.status_code == 413 and "larger than this server keeps" in page.text


def test_results_expire_after_their_age():
    store = Store(max_bytes=1000, max_age=0.2)
    token = store.add("item", 10)
    assert store.get(token) == "item"
    time.sleep(0.3)
    with pytest.raises(WebError):
        store.get(token)
    assert store.bytes == 0


# -- a time limit on reading, enforced in a worker process ----------------------------------------------
def live_server(app):
    import socket

    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(server_config(app, "127.0.0.1", port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not server.started:
        assert time.time() < deadline, "the server did not start"
        time.sleep(0.05)
    return server, thread, f"http://127.0.0.1:{port}"


def parallel_uploads(url: str, files: dict, n: int) -> tuple[list, float, list[float]]:
    """``n`` scorings at once, and the time the server takes to answer a plain GET meanwhile."""
    answers: list = [None] * n

    def one(i: int) -> None:
        answers[i] = httpx.post(url + "/api/score", files=files, timeout=60)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    pings = []
    time.sleep(0.3)
    for _ in range(3):
        t0 = time.perf_counter()
        assert httpx.get(url + "/api/formats", timeout=10).status_code == 200
        pings.append(time.perf_counter() - t0)
        time.sleep(0.2)
    for t in threads:
        t.join(60)
    return answers, time.perf_counter() - start, pings


def test_a_slow_reader_is_stopped_at_the_time_limit(monkeypatch):
    import multiprocessing

    from corefio.web import app as web_app

    def slow_reader(*args, **kwargs):
        time.sleep(120)

    monkeypatch.setattr(web_app, "read_upload", slow_reader)
    app = create_app(time_limit=1, workers=2)
    server, thread, url = live_server(app)
    try:
        files = {"key": (KEY.name, KEY.read_bytes()), "response": (RESPONSE.name, RESPONSE.read_bytes())}
        answers, wall, pings = parallel_uploads(url, files, 4)
        assert all(a.status_code == 422 and "time limit" in a.json()["message"] for a in answers)
        # hang guards at ten times the targets: two rounds of the 1 s limit, a 0.2 s ping
        assert wall < 20 and max(pings) < 2
        time.sleep(0.2)
        assert not multiprocessing.active_children()  # every worker was stopped
    finally:
        server.should_exit = True
        thread.join(10)


def test_four_parallel_uploads_of_the_quadratic_muc_file_leave_the_server_answering():
    sgm = REPRODUCERS / "S07_muc_unclosed_comments_80KB.sgm"
    if not sgm.exists():
        sgm = shared_data("reproducers/S07_muc_unclosed_comments_80KB.sgm")
    app = create_app(time_limit=2, workers=2)
    server, thread, url = live_server(app)
    try:
        files = {"key": (sgm.name, sgm.read_bytes()), "response": (sgm.name, sgm.read_bytes())}
        answers, wall, pings = parallel_uploads(url, files, 4)
        assert all(a.status_code in (200, 422) for a in answers), [a.text[:200] for a in answers]
        assert wall < 40 and max(pings) < 2  # hang guards: two rounds of the 2 s limit, a 0.2 s ping
    finally:
        server.should_exit = True
        thread.join(10)


def test_busy_server_says_503_after_waiting(monkeypatch):
    from corefio.web import app as web_app

    monkeypatch.setattr(web_app, "read_upload", lambda *a, **k: time.sleep(120))
    app = create_app(time_limit=3, workers=1, queue_wait=0.5)
    server, thread, url = live_server(app)
    try:
        files = {"key": (KEY.name, KEY.read_bytes()), "response": (RESPONSE.name, RESPONSE.read_bytes())}
        answers, _, _ = parallel_uploads(url, files, 2)
        statuses = sorted(a.status_code for a in answers)
        assert statuses == [422, 503]
        busy = next(a for a in answers if a.status_code == 503)
        assert "busy" in busy.json()["message"] and busy.headers["retry-after"]
    finally:
        server.should_exit = True
        thread.join(10)


# -- reproducers that gave internal errors -----------------------------------------------------------
def reproducer(name: str) -> Path:
    path = REPRODUCERS / name
    return path if path.exists() else shared_data(f"reproducers/{name}")


def test_long_customization_name_is_a_4xx_on_every_route(client, tmp_path):
    folder = tmp_path / "S06"
    shutil.copytree(reproducer("S06_mmax2_long_customization"), folder)
    data = zip_folder(folder)
    answers = [client.post("/api/convert", files={"file": ("p.zip", data)}, data={"to": "mmax2"}),
               client.post("/api/convert", files={"file": ("p.zip", data)}, data={"to": "conll"}),
               client.post("/api/validate", files={"file": ("p.zip", data)}),
               client.post("/api/score", files={"key": ("p.zip", data), "response": ("p.zip", data)}),
               client.post("/validate", files={"file": ("p.zip", data)}),
               client.post("/score", files={"key": ("p.zip", data), "response": ("p.zip", data)},
                           follow_redirects=False)]
    for answer in answers:
        assert answer.status_code < 500, answer.text[:300]
        assert "Internal error" not in answer.text


def test_a_140kb_document_name_does_not_break_the_score_routes(client):
    raf = reproducer("S12_raf_docname_140KB.raf.xml")
    files = {"key": (raf.name, raf.read_bytes()), "response": (raf.name, raf.read_bytes())}
    api = client.post("/api/score", files=files)
    assert api.status_code == 200
    page = client.post("/score", files=files, follow_redirects=False)
    assert page.status_code == 303
    result = page.headers["location"]
    for path in ("", "/scores.json", "/scores.csv", "/view"):
        answer = client.get(result + path)
        assert answer.status_code in (200, 422), (path, answer.text[:300])


# -- the annotation tools' formats: brat, LitBank TSV, WebAnno TSV, XMI, UA ---------------------------
DATA = Path(__file__).parent / "data"
ALICE = "11_alices_adventures_in_wonderland_brat"
BRAT = DATA / "brat"
LITBANK = DATA / "brat" / "litbank_tsv"
XMI_ZIP = DATA / "xmi" / "bernoulli.zip"


def pair_files(folder: Path, field: str = "key") -> list:
    return [(field, (f"{ALICE}{suffix}", (folder / f"{ALICE}{suffix}").read_bytes())) for suffix in (".ann", ".txt")]


def score_same(client, files: list, **data):
    """Score an upload against itself: every mention found."""
    both = files + [("response",) + item[1:] for item in files]
    return client.post("/api/score", files=both, data=data)


def test_the_choosers_offer_the_annotation_tools_formats(client):
    home, convert, validate = (client.get(path).text for path in ("/", "/convert", "/validate"))
    for fmt in ("brat", "litbank-tsv", "webanno-tsv", "xmi", "ua"):
        assert f'<option value="{fmt}"' in home and f'<option value="{fmt}"' in validate
        assert convert.count(f'<option value="{fmt}"') == 2  # from and to
    assert home.count(" multiple required") == 2  # a brat pair is two files


@pytest.mark.parametrize(("folder", "fmt"), [(BRAT, "brat"), (LITBANK, "litbank-tsv")])
def test_pairs_upload_as_a_zip_or_as_two_files(client, folder, fmt):
    zipped = zip_files({f"corpus/{ALICE}{s}": (folder / f"{ALICE}{s}").read_bytes() for s in (".ann", ".txt")})
    for files in ([("key", ("pairs.zip", zipped))], pair_files(folder)):
        answer = score_same(client, files)
        assert answer.status_code == 200, answer.text
        assert answer.json()["formats"] == {"key": fmt, "response": fmt}  # told apart by their content
        recall = answer.json()["mentions"]["recall"]
        assert recall["num"] == recall["den"] > 100


def test_an_ann_alone_says_what_to_upload(client):
    answer = client.post("/api/validate", files={"file": (f"{ALICE}.ann", (BRAT / f"{ALICE}.ann").read_bytes())},
                         data={"format": "brat"})
    assert answer.status_code == 400 and ".ann and the .txt" in answer.json()["message"]
    answer = client.post("/api/convert", files=[pair_files(BRAT, "file")[0]], data={"to": "conll"})
    assert answer.status_code == 400 and ".ann and the .txt" in answer.json()["message"]


@pytest.mark.parametrize("names", [("a.ann", "b.txt"), ("a.ann", "a.ann"), ("a.txt", "a.conll")],
                         ids=["other-stem", "same-name", "not-a-pair"])
def test_two_files_must_be_one_pair(client, names):
    files = [("file", (name, b"T1\tPER 0 1\ta\n")) for name in names]
    answer = client.post("/api/convert", files=files, data={"to": "conll"})
    assert answer.status_code == 400, answer.text


def test_three_files_are_refused(client):
    files = pair_files(BRAT, "file") + [("file", ("extra.txt", b"x"))]
    answer = client.post("/api/convert", files=files, data={"to": "conll"})
    assert answer.status_code == 400 and "3 input files" in answer.json()["message"]


def test_a_pair_is_saved_under_its_base_names_only(client, tmp_path):
    """Attack: names that climb out of the upload folder are cut to their base names."""
    files = [("file", (f"../../../tmp/{ALICE}{s}", (BRAT / f"{ALICE}{s}").read_bytes())) for s in (".ann", ".txt")]
    answer = client.post("/api/convert", files=files, data={"to": "conll"})
    assert answer.status_code == 200, answer.text
    assert not Path(f"/tmp/{ALICE}.ann").exists()


def test_a_pair_larger_than_the_limit_is_413():
    small = TestClient(create_app(max_upload_mb=0.1), base_url="http://127.0.0.1")
    files = [("file", ("a.ann", b"T1\tPER 0 1\ta\n")), ("file", ("a.txt", b"a" * 120_000))]
    assert small.post("/api/convert", files=files, data={"to": "conll"}).status_code == 413


def test_brat_zip_entries_that_climb_out_are_refused(client):
    """Attack: a zip of pairs whose entry climbs out of the extraction folder."""
    data = zip_files({f"../{ALICE}.ann": (BRAT / f"{ALICE}.ann").read_bytes(),
                      f"../{ALICE}.txt": (BRAT / f"{ALICE}.txt").read_bytes()})
    answer = client.post("/api/convert", files={"file": ("pairs.zip", data)}, data={"to": "conll"})
    assert answer.status_code == 422 and "'..'" in answer.json()["message"]


def test_pairs_in_two_folders_are_refused_clearly(client):
    files = {f"{folder}/{ALICE}{s}": (BRAT / f"{ALICE}{s}").read_bytes() for folder in ("a", "b")
             for s in (".ann", ".txt")}
    answer = client.post("/api/convert", files={"file": ("pairs.zip", zip_files(files))}, data={"to": "conll"})
    assert answer.status_code == 422 and "2 folders" in answer.json()["message"]


def test_an_inception_xmi_export_uploads_as_a_zip(client):
    answer = score_same(client, [("key", ("bernoulli.zip", XMI_ZIP.read_bytes()))])
    assert answer.status_code == 200, answer.text
    assert answer.json()["formats"] == {"key": "xmi", "response": "xmi"}
    assert answer.json()["mentions"]["recall"]["num"] == 7
    assert client.post("/api/validate", files={"file": ("b.zip", XMI_ZIP.read_bytes())}).json()["format"] == "xmi"


def test_several_documents_convert_to_an_xmi_zip(client):
    data, corpus = two_document_project()
    answer = client.post("/api/convert", files={"file": ("p.zip", data)}, data={"to": "xmi"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["filename"].endswith(".xmi.zip") and body["encoding"] == "base64"
    back = corefio.loads(base64.b64decode(body["content"]), "xmi")
    assert len(back.documents) == len(corpus.documents) == 2


def test_an_xmi_zip_bomb_is_refused_before_reading(client):
    """Attack: an XMI export whose entry expands far beyond what it compresses to."""
    data = zip_files({"TypeSystem.xml": b"<typeSystemDescription/>", "doc.xmi": b"<a>" + b" " * (4 << 20) + b"</a>"})
    answer = client.post("/api/convert", files={"file": ("bomb.zip", data)}, data={"to": "conll"})
    assert answer.status_code == 413 and "zip bomb" in answer.json()["message"]


def test_an_xmi_zip_with_a_link_is_refused(client):
    """Attack: a symbolic link inside an XMI export."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("doc.xmi", XMI_ZIP.read_bytes())
        link = zipfile.ZipInfo("TypeSystem.xml")
        link.external_attr = (0o120777 << 16)
        z.writestr(link, "/etc/passwd")
    answer = client.post("/api/convert", files={"file": ("link.zip", buf.getvalue())}, data={"to": "conll"})
    assert answer.status_code == 422 and "symbolic link" in answer.json()["message"]


@pytest.mark.parametrize(("path", "fmt"), [(DATA / "webanno" / "GUM_news_worship.tsv", "webanno-tsv"),
                                           (DATA / "ua" / "example.CONLLUA", "ua")])
def test_one_file_formats_upload_as_they_are(client, path, fmt):
    answer = score_same(client, [("key", (path.name, path.read_bytes()))])
    assert answer.status_code == 200, answer.text
    assert answer.json()["formats"] == {"key": fmt, "response": fmt}


def test_a_webanno_file_with_a_wrong_column_count_is_a_located_422(client):
    """Attack: a WebAnno TSV row with more columns than its header declares."""
    text = (DATA / "webanno" / "GUM_news_worship.tsv").read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    row = next(i for i, line in enumerate(lines) if line[:1].isdigit())
    lines[row] = lines[row].rstrip("\n") + "\textra\textra\n"
    answer = client.post("/api/validate", files={"file": ("w.tsv", "".join(lines).encode())})
    body = answer.json()
    assert answer.status_code == 200 and not body["valid"]
    assert any(d["line"] == row + 1 for d in body["diagnostics"] if d["severity"] == "error")


def test_a_zip_of_webanno_tsv_files_uploads_and_converts(client):
    """A zip of WebAnno TSV files (as corefio writes several documents): read by the
    WebAnno reader after the zip checks; several documents convert to a zip again."""
    names = ["GUM_academic_art", "GUM_news_worship"]
    corpus = corefio.Corpus(documents=[corefio.read(DATA / "webanno" / f"{n}.tsv").documents[0] for n in names])
    data = corefio.dumps(corpus, "webanno-tsv")
    assert isinstance(data, bytes) and data.startswith(b"PK")
    answer = client.post("/api/convert", files={"file": ("gum.zip", data)}, data={"to": "webanno-tsv"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["filename"].endswith(".zip")
    back = corefio.loads(base64.b64decode(body["content"]), "webanno-tsv")
    assert [d.name for d in back.documents] == names
    scored = client.post("/api/score", files={"key": ("gum.zip", data), "response": ("gum.zip", data)})
    assert scored.status_code == 200, scored.text


def test_a_zip_whose_end_record_lies_about_its_entries_is_a_413(client):
    """R11 on the web: the central directory is counted as it is read."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for i in range(10_500):
            z.writestr(f"{i}.ann", b"")
    data = bytearray(buf.getvalue())
    end = data.rfind(b"PK\x05\x06")
    data[end + 8:end + 12] = (1).to_bytes(2, "little") * 2
    answer = client.post("/api/convert", files={"file": ("many.zip", bytes(data))}, data={"to": "conll"})
    assert answer.status_code == 413 and "entries" in answer.json()["message"]
