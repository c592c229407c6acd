"""The evaluator's agreement page (corefio.web.agreement): 2 to 8 annotations give the
α values, the pairwise table, the documents ranked by agreement and the adjudication
view of corefio.agreement, checked on the real multi-annotator data against the
community's judges (DKPro Agreement, coval, ezCoref's own scorer: stored beside the data,
see tests/data/agreement/real/README.md); the page keeps every protection of the others
(tests/test_security.py runs its attacks on /agreement and /api/agreement too)."""

from __future__ import annotations

import io
import json
import re
import warnings
import zipfile
from html import unescape
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

import corefio  # noqa: E402
from corefio.agreement import adjudicate, agree  # noqa: E402
from corefio.agreement.render import to_dict  # noqa: E402
from corefio.web import create_app  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

from .conftest import DATA, SAMPLES  # noqa: E402

AGREEMENT = DATA / "agreement"
GUM = AGREEMENT / "gum-annotators"
REAL = AGREEMENT / "real"
PA = REAL / "participant-analysis"
PA_NAMES = ("chris_A", "gyus_B")
EZ = REAL / "ezcoref"
EZ_NAMES = tuple(f"annotator_{a}" for a in (0, 2, 9, 11, 12))


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(max_upload_mb=8), base_url="http://127.0.0.1")


def zipped(paths: list[Path]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for p in paths:
            z.write(p, p.name)
    return buf.getvalue()


def gum_files(who: str) -> list[Path]:
    return sorted((GUM / who).glob("*.conll"))


def gum_uploads(who: str = "abc") -> list[tuple[str, tuple[str, bytes]]]:
    return [("annotations", (f"{w}.zip", zipped(gum_files(w)))) for w in who]


def chains(document) -> set[frozenset]:
    """A document's chains as sets of mention spans."""
    return {frozenset(m.spans for m in chain) for chain in document.mention_view(False).mentions}


def judge(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def gum(client):
    """The three GUM "annotators", each a .zip of four CoNLL files: the API's answer and
    the library's results on the same files."""
    answer = client.post("/api/agreement", files=gum_uploads())
    assert answer.status_code == 200, answer.text
    files = [gum_files(w) for w in "abc"]
    return answer.json(), agree(files, names=list("abc")), adjudicate(files, names=list("abc"))


def test_the_api_gives_the_librarys_agreement_and_conflicts(gum):
    body, result, adjudication = gum
    assert body["agreement"] == json.loads(json.dumps(to_dict(result)))
    assert body["adjudication"]["conflicts"] == json.loads(json.dumps([c.as_dict() for c in adjudication.conflicts]))
    assert [a["name"] for a in body["annotators"]] == ["a", "b", "c"]
    assert all(a["format"] == "conll" and a["documents"] == 4 for a in body["annotators"])
    assert body["gold_format"] == "conll"


def test_the_page_shows_alpha_the_pairs_and_the_documents_ranked(client, gum):
    body, result, _ = gum
    html = client.get(body["result"]).text
    assert float(re.search(r'id="chain-alpha"', html) and
                 re.search(r'data-alpha="([^"]+)" id="chain-alpha"', html).group(1)) == float(result.chain_alpha.value)
    assert float(re.search(r'data-alpha="([^"]+)" id="mention-alpha"', html).group(1)) == \
        pytest.approx(float(result.unitizing.value), abs=1e-12)
    pairs = re.findall(r'<tr data-first="(\w+)" data-second="(\w+)">(.*?)</tr>', html, re.S)
    assert [(a, b) for a, b, _ in pairs] == [("a", "b"), ("a", "c"), ("b", "c")]
    for (_, _, cells), row in zip(pairs, result.pairs):
        shown = dict(re.findall(r'data-metric="([\w:]+)" data-f1="([^"]+)"', cells))
        assert {k: float(v) for k, v in shown.items()} == pytest.approx({k: float(v) for k, v in row.f1.items()})
    ranked = re.findall(r'<tr data-document="([^"]+)">', html)
    assert ranked == [d.document for d in result.documents]  # lowest α first
    alphas = [float(a) for a in re.findall(r'<tr data-document="[^"]+"><td class="doc-name">[^<]+</td>'
                                           r'<td data-value="([^"]+)">', html)]
    assert alphas == sorted(alphas)
    assert "Krippendorff" in html and 'href="/a/' in html


def test_the_adjudication_view_marks_every_conflict_of_the_document(client, gum):
    body, _, adjudication = gum
    page = client.get(body["result"]).text
    links = re.findall(r'<tr data-document="([^"]+)">.*?href="(/a/[^"]+/adjudication\?doc=\d+)"', page, re.S)
    assert len(links) == 4
    for document, link in links:
        html = unescape(client.get(link).text)
        mine = [c for c in adjudication.conflicts if c.document == document]
        assert f"Adjudication: {document}" in html
        assert re.findall(r'data-annotator="([^"]+)"', html) == ["a", "b", "c", "gold"]
        rows = re.findall(r'<tr class="conflict-item" data-row="c(\d+)" data-kind="(\w+)">', html)
        assert [(int(n), k) for n, k in rows] == [(k + 1, c.kind) for k, c in enumerate(mine)]
        # each conflict is marked in some column: a mention with its number, or a gap where one lacks it
        for number, _ in rows:
            assert re.search(rf'data-conflict="[^"]*\bc{number} ', html), number
    assert client.get(body["result"] + "/adjudication?doc=99").status_code == 200  # clamped to the last


def test_the_downloads_are_the_librarys(client, gum):
    body, result, adjudication = gum
    gold = client.get(body["result"] + "/gold")
    assert gold.status_code == 200 and 'filename="gold.conll"' in gold.headers["content-disposition"]
    read = corefio.loads(gold.content, "conll")
    assert [d.label for d in read.documents] == [d.label for d in adjudication.gold.documents]
    for ours, theirs in zip(read.documents, adjudication.gold.documents):
        assert chains(ours) == chains(theirs)
    data = client.get(body["result"] + "/agreement.json").json()
    assert data["agreement"]["chain_alpha"]["alpha"] == float(result.chain_alpha.value)
    assert len(data["adjudication"]["conflicts"]) == len(adjudication.conflicts)
    csv = client.get(body["result"] + "/agreement.csv")
    assert csv.status_code == 200 and csv.text.startswith("row,first,second")
    conflicts = client.get(body["result"] + "/conflicts.csv")
    assert conflicts.text.count("\n") == len(adjudication.conflicts) + 1
    assert client.get("/a/not-a-token").status_code == 404


def test_options_names_distance_passages_rule_and_gold_format(client):
    answer = client.post("/api/agreement", files=gum_uploads("ab"),
                         data={"names": "gold,derived", "distance": "masi", "window": "5", "keep": "agreed",
                               "gold_format": "raf"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    files = [gum_files("a"), gum_files("b")]
    expected = agree(files, names=["gold", "derived"], distance="masi", window=5)
    assert body["agreement"] == json.loads(json.dumps(to_dict(expected)))
    assert body["agreement"]["passages"] and body["adjudication"]["keep"] == "agreed"
    html = client.get(body["result"]).text
    assert 'id="passages"' in html and "Passages of 5 sentence(s)" in html
    gold = client.get(body["result"] + "/gold")
    assert 'filename="gold.raf"' in gold.headers["content-disposition"]
    assert corefio.loads(gold.content, "raf").documents
    agreed = adjudicate(files, names=["gold", "derived"], keep="agreed").gold
    assert sum(len(d.mention_view(False).mentions) for d in corefio.loads(gold.content, "raf").documents) == \
        sum(len(d.mention_view(False).mentions) for d in agreed.documents)


# -- the real data and their judges ------------------------------------------------------------
def test_brat_annotators_as_zips_give_the_judges_values(client):
    """participant-analysis: two annotators of six Biblical Hebrew texts in brat, each
    uploaded as a .zip of its .ann/.txt pairs; α is DKPro Agreement's, the pairwise row
    coval's."""
    uploads = [("annotations", (f"{n}.zip", zipped(sorted((PA / n).iterdir())))) for n in PA_NAMES]
    for distance in ("passonneau", "dkpro-masi"):
        answer = client.post("/api/agreement", files=uploads, data={"distance": distance})
        assert answer.status_code == 200, answer.text
        body = answer.json()["agreement"]
        expected = judge(PA / "judge" / "dkpro" / f"participant_chains.{distance}.out.json")
        assert body["chain_alpha"]["alpha"] == pytest.approx(expected["alpha"], abs=1e-12)
    assert body["annotators"] == list(PA_NAMES)
    unitizing = judge(PA / "judge" / "dkpro" / "participant_mentions.unitizing.out.json")
    assert body["unitizing_alpha"]["alpha"] == pytest.approx(unitizing["alpha"], abs=1e-12)
    coval = judge(PA / "judge" / "coval_pairs.json")["pairs"][0]
    for metric in ("muc", "bcub", "ceafe", "lea"):
        assert body["pairs"][0]["f1"][metric] == pytest.approx(coval[metric]["f1"], abs=1e-9), metric
    assert body["pairs"][0]["f1"]["conll"] == pytest.approx(coval["conll"], abs=1e-9)


def test_five_crowd_workers_give_the_judges_values(client):
    """ezCoref: five workers of three passages (JSON lines); the pairwise table is
    ezCoref's own scorer's and coval's, α DKPro's."""
    uploads = [("annotations", (f"{n}.jsonlines", (EZ / f"{n}.jsonlines").read_bytes())) for n in EZ_NAMES]
    answer = client.post("/api/agreement", files=uploads)
    assert answer.status_code == 200, answer.text
    body = answer.json()["agreement"]
    assert body["annotators"] == list(EZ_NAMES) and len(body["pairs"]) == 10
    dkpro = judge(EZ / "judge" / "dkpro" / "ezcoref_chains.passonneau.out.json")
    assert body["chain_alpha"]["alpha"] == pytest.approx(dkpro["alpha"], abs=1e-12)
    coval = {tuple(r["annotators"]): r for r in judge(EZ / "judge" / "coval_pairs.json")["pairs"]}
    for row in body["pairs"]:
        theirs = coval[tuple(row["annotators"])]
        for metric in ("muc", "bcub", "ceafe", "lea"):
            assert row["f1"][metric] == pytest.approx(theirs[metric]["f1"], abs=1e-9)
        assert row["f1"]["conll"] == pytest.approx(theirs["conll"], abs=1e-9)
    page = client.get(answer.json()["result"]).text
    assert page.count('<tr data-first="') == 10 and '<tr class="mean">' in page


# -- errors keep the form; limits ------------------------------------------------------------------
@pytest.mark.parametrize(("files", "data", "status", "words"), [
    (1, {}, 400, "at least 2 annotations"),
    (9, {}, 400, "at most 8 annotations"),
    (2, {"distance": "jaccard"}, 400, "unknown set distance"),
    (2, {"keep": "all"}, 400, "unknown adjudication rule"),
    (2, {"window": "three"}, 400, "whole number of sentences"),
    (2, {"names": "one,two,three"}, 400, "3 annotator name(s) for 2 upload(s)"),
    (2, {"gold_format": "docx"}, 400, "unknown output format"),
])
def test_bad_requests_are_refused_with_a_reason_and_the_form_kept(client, files, data, status, words):
    uploads = [("annotations", (f"a{k}.conll", (GUM / "a" / "GUM_news_stampede.conll").read_bytes()))
               for k in range(files)]
    api = client.post("/api/agreement", files=uploads, data=data)
    assert api.status_code == status and words in api.json()["message"], api.text
    page = client.post("/agreement", files=uploads, data=data)
    assert page.status_code == status and words in unescape(page.text)
    assert 'id="agreement-form"' in page.text and "you chose a0.conll" in page.text


def test_annotations_of_other_documents_or_words_are_input_errors(client):
    stampede = (GUM / "a" / "GUM_news_stampede.conll").read_bytes()
    other = (GUM / "a" / "GUM_bio_hadid.conll").read_bytes()
    answer = client.post("/api/agreement", files=[("annotations", ("a.conll", stampede)),
                                                  ("annotations", ("b.conll", other))])
    # one document on each side is paired whatever its name: the words then differ
    assert answer.status_code == 422 and "has other words in the annotation of b than in that of a" \
        in answer.json()["message"]
    missing = client.post("/api/agreement", files=[("annotations", ("a.conll", stampede)),
                                                   ("annotations", ("b.conll", stampede + other))],
                          data={"allow_missing": "true"})
    assert missing.status_code == 200, missing.text
    assert any(d["code"] == "agree.document-mismatch" for d in missing.json()["diagnostics"])


def test_the_upload_limit_counts_all_the_annotations():
    small = TestClient(create_app(max_upload_mb=1), base_url="http://127.0.0.1")
    padding = b" " * 400_000
    key = (SAMPLES / "key.raf.xml").read_bytes()
    uploads = [("annotations", (f"a{k}.raf.xml", key + padding)) for k in range(3)]
    answer = small.post("/api/agreement", files=uploads)
    assert answer.status_code == 413 and "limit" in answer.json()["message"]


def test_the_worker_time_limit_applies():
    slow = TestClient(create_app(time_limit=0.0001), base_url="http://127.0.0.1")
    answer = slow.post("/api/agreement", files=gum_uploads("ab"))
    assert answer.status_code == 422 and "time limit" in answer.json()["message"]


def test_a_preset_scores_the_pairwise_table_as_its_scorer(client):
    from corefio.scoring.presets import chain_options, resolve

    answer = client.post("/api/agreement", files=gum_uploads("ab"), data={"preset": "corefud"})
    assert answer.status_code == 200, answer.text
    files = [gum_files("a"), gum_files("b")]
    expected = agree(files, names=["a", "b"], scoring=chain_options(resolve("corefud")))
    assert answer.json()["agreement"]["pairs"] == json.loads(json.dumps(to_dict(expected)))["pairs"]
    assert answer.json()["settings"]["preset"]["name"] == "corefud"
    plain = agree(files, names=["a", "b"])
    assert to_dict(plain)["pairs"] != to_dict(expected)["pairs"]  # head matching, no singletons: other numbers
    page = client.get(answer.json()["result"]).text
    assert "the settings of <b>corefud-scorer 1.2</b>" in page
