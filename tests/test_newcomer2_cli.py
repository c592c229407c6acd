"""What a second newcomer trial found in the command line, each on a small file built
here and on the real file: CoNLL-U content under the scorers' ``.key``/``.response``
names, one document on each side under different names, brat written to a named
``.ann`` file, and format hints that name the side of ``score``."""

from __future__ import annotations

import json
import shutil

import pytest

import corefio
from corefio.compare.pairing import match_keys
from corefio.diagnostics import Report
from corefio.errors import DocumentMismatchError, UsageError
from corefio.formats.registry import conllu_evidence, detect_format_noted
from corefio.model import Document

from .conftest import DATA

CORS = DATA / "wild" / "conllu" / "corefud-scorer"
#: corefud-scorer's own test files, kept with .conllu added (udapi reads by extension)
TC_A_KEY, TC_A_RESPONSE = CORS / "TC-A.key.conllu", CORS / "TC-A-1.response.conllu"
STAMPEDE = DATA / "wild" / "inception" / "gum" / "GUM_news_stampede.tsv"
LITBANK = DATA / "wild" / "brat" / "litbank"
CORECONVERSION = DATA / "wild" / "jsonlines" / "corefconversion_docs.jsonlines"


def corefud(doc: str, words: str = "a b c", entities: tuple[str, ...] = ("(e1--1)", "_", "(e1--1)")) -> str:
    """One CorefUD CoNLL-U document of one sentence."""
    rows = [f"{i}\t{w}\t{w}\tX\t_\t_\t{0 if i == 1 else 1}\t{'root' if i == 1 else 'dep'}\t_\t"
            f"{'Entity=' + e if e != '_' else '_'}" for i, (w, e) in enumerate(zip(words.split(), entities), 1)]
    return (f"# newdoc id = {doc}\n# global.Entity = eid-etype-head-other\n# sent_id = {doc}-1\n"
            f"# text = {words}\n" + "\n".join(rows) + "\n\n")


WEBANNO = """#FORMAT=WebAnno TSV 3.3
#T_SP=webanno.custom.Referent|entity
#T_RL=webanno.custom.Coref|type|BT_webanno.custom.Referent


#Text=Mary said she left .
1-1\t0-4\tMary\tperson\tana\t1-3[0_0]\t
1-2\t5-9\tsaid\t_\t_\t_\t
1-3\t10-13\tshe\tperson\t_\t_\t
1-4\t14-18\tleft\t_\t_\t_\t
1-5\t19-20\t.\t_\t_\t_\t
"""


def f1(output: str, metric: str = "muc") -> str:
    return next(line.split()[-1] for line in output.splitlines() if line.startswith(metric + " "))


# -- (4) CoNLL-U content under .key / .response --------------------------------------------
def test_conllu_content_under_key_and_response_names_is_read_as_conllu(cli, tmp_path):
    key, response = tmp_path / "gold.key", tmp_path / "system.response"
    key.write_text(corefud("d1"))
    response.write_text(corefud("d1", entities=("(e1--1)", "(e1--1)", "(e1--1)")))
    result = cli("score", key, response, "-m", "muc")
    assert result.exit_code == 0, result.output
    assert f"{key}: info[format.by-content]: read as conllu: the content is CoNLL-U" in result.output
    assert f"{response}: info[format.by-content]: read as conllu" in result.output
    assert "do not match" not in result.output
    assert f1(result.output) == "66.67"  # MUC: recall 1/1, precision 1/2 (b joins the chain)


def test_content_detection_is_sure_or_stays_with_the_name(tmp_path):
    conllu = tmp_path / "a.key"
    conllu.write_text(corefud("d1"))
    spec, note = detect_format_noted(conllu)
    assert spec.name == "conllu" and note is not None and "`# global.Entity`" in note
    conll = tmp_path / "b.key"
    conll.write_text("#begin document (d); part 000\nd\t0\t0\ta\t(1)\n\n#end document\n")
    assert detect_format_noted(conll) == (corefio.get_format("conll"), None)
    # 10 columns but nothing of coreference: not sure, the name (.key: conll) decides
    plain = tmp_path / "c.key"
    plain.write_text("1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n\n")
    assert detect_format_noted(plain)[0].name == "conll"
    text = tmp_path / "d.txt"  # .txt: MUC or nothing
    text.write_text(corefud("d1"))
    assert detect_format_noted(text)[0].name == "conllu"
    unknown = tmp_path / "e.data"
    unknown.write_text(corefud("d1"))
    spec, note = detect_format_noted(unknown)
    assert spec.name == "conllu" and note == "read as conllu by its content (no format has the extension .data)"
    assert detect_format_noted(tmp_path / "new.key", for_writing=True) == (corefio.get_format("conll"), None)
    assert conllu_evidence(b"#begin document (d); part 000\n" + corefud("d").encode()) is None
    assert conllu_evidence(b"# global.columns = ID FORM\n" + corefud("d").encode()) is None
    rows = corefud("d").replace("\tEntity=(e1--1)", "\tEntity=(e1--1)\textra").encode()
    assert conllu_evidence(rows) is None  # 11 columns: not CoNLL-U


def test_corefud_scorer_test_files_score_under_their_own_names(cli, tmp_path):
    key, response = tmp_path / "TC-A.key", tmp_path / "TC-A-1.response"  # their names in corefud-scorer
    shutil.copy(TC_A_KEY, key)
    shutil.copy(TC_A_RESPONSE, response)
    named = cli("score", key, response, "--format", "json")
    assert named.exit_code == 0, named.output
    told = cli("score", key, response, "--format", "json", "--key-format", "conllu", "--response-format", "conllu")
    assert told.exit_code == 0
    body = named.stdout
    assert json.loads(body) == json.loads(told.stdout)
    assert "info[format.by-content]" in named.output
    as_conllu = cli("score", TC_A_KEY, TC_A_RESPONSE, "--format", "json").stdout
    assert json.loads(body)["corpus"] == json.loads(as_conllu)["corpus"]
    assert json.loads(body)["corpus"]["muc"]["f1"] == 1.0  # TC-A-1 is TC-A (corefud-scorer: 100)
    info = cli("info", key)
    assert info.exit_code == 0 and "'LuoTestCase': 20 tokens" in info.output
    assert "info[format.by-content]" in info.output
    assert corefio.read(key).documents[0].name == "LuoTestCase"


def test_a_pairing_error_says_first_that_a_file_is_of_another_format(cli, tmp_path):
    key = tmp_path / "k.conll"
    key.write_text("".join(f"#begin document ({d}); part 000\n{d}\t0\t0\ta\t(0)\n{d}\t0\t1\tb\t-\n"
                           f"{d}\t0\t2\tc\t(0)\n\n#end document\n" for d in ("d1", "d2")))
    response = tmp_path / "r.conll"
    response.write_text(corefud("d1") + corefud("d2"))
    result = cli("score", key, response)
    assert result.exit_code == 3
    first, hint = result.output.strip().splitlines()[-2:]
    assert first.startswith(f"corefio: error: the documents of {key} (key) and {response} (response) do not match")
    assert hint.startswith(f"  hint: {response} was read as conll, but its content looks like CoNLL-U")
    assert hint.endswith("try --response-format conllu")
    assert cli("score", key, response, "--response-format", "conllu", "-q").exit_code == 0


# -- (5) one document on each side, named after its file -------------------------------------
def test_one_document_each_pairs_whatever_the_names(cli, tmp_path):
    gold, system = tmp_path / "gold.tsv", tmp_path / "system.tsv"
    gold.write_text(WEBANNO)
    system.write_text(WEBANNO)
    result = cli("score", gold, system, "-m", "muc")
    assert result.exit_code == 0, result.output
    assert ("info[score.paired-single]: key document 'gold' paired with response document 'system': each side "
            "holds only this one document") in result.output
    assert f1(result.output) == "100.00"
    assert "paired-single" not in cli("score", gold, system, "-m", "muc", "-q").output


def test_pairing_by_name_is_unchanged_otherwise():
    report = Report()
    assert match_keys([("gold", None)], [("system", None)], report) == [(0, 0)]
    assert [(d.code, d.severity) for d in report] == [("score.paired-single", "info")]
    same = Report()
    assert match_keys([("d", None)], [("d", None)], same) == [(0, 0)] and not list(same)
    with pytest.raises(DocumentMismatchError):
        match_keys([("a", None), ("b", None)], [("c", None)], Report())
    with pytest.raises(DocumentMismatchError):
        match_keys([("a", None)], [("b", None), ("c", None)], Report())


def test_two_documents_against_one_still_do_not_pair(cli, tmp_path):
    key, response = tmp_path / "k.conll", tmp_path / "r.conll"
    key.write_text("".join(f"#begin document ({d}); part 000\nx\t0\t0\ta\t(1)\n\n#end document\n"
                           for d in ("one", "two")))
    response.write_text("#begin document (three); part 000\nx\t0\t0\ta\t(1)\n\n#end document\n")
    result = cli("score", key, response)
    assert result.exit_code == 3 and "do not match" in result.output


def test_a_real_webanno_file_scores_against_its_copy_under_another_name(cli, tmp_path):
    gold, system = tmp_path / "gold.tsv", tmp_path / "system.tsv"
    shutil.copy(STAMPEDE, gold)
    shutil.copy(STAMPEDE, system)
    result = cli("score", gold, system)
    assert result.exit_code == 0, result.output
    assert "info[score.paired-single]: key document 'gold' paired with response document 'system'" in result.output
    assert f1(result.output, "conll") == "100.00"


def test_the_web_evaluator_pairs_one_document_each(tmp_path):
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    from corefio.web import create_app

    client = TestClient(create_app(), base_url="http://127.0.0.1")
    for content in (WEBANNO.encode(), STAMPEDE.read_bytes()):
        answer = client.post("/api/score", files={"key": ("gold.tsv", content), "response": ("system.tsv", content)})
        assert answer.status_code == 200, answer.text
        data = answer.json()
        assert [d["code"] for d in data["diagnostics"] if d["code"] == "score.paired-single"] == ["score.paired-single"]
        assert "'gold'" in json.dumps(data["diagnostics"]) and "'system'" in json.dumps(data["diagnostics"])


# -- (6) brat into a named .ann file -------------------------------------------------------
def test_brat_into_a_named_ann_file_writes_that_file_and_its_text(cli, tmp_path):
    source = tmp_path / "linktype.tsv"
    source.write_text(WEBANNO)
    out = tmp_path / "out.ann"
    result = cli("convert", source, out, "--to", "brat")
    assert result.exit_code == 0, result.output
    assert out.is_file() and (tmp_path / "out.txt").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["linktype.tsv", "out.ann", "out.txt"]
    assert (tmp_path / "out.txt").read_text() == "Mary said she left .\n"
    assert (f"{out}: info[loss.document-name]: brat cannot express a document name other than its files' name: "
            "'linktype' written as out.ann and out.txt reads back as 'out'") in result.output
    assert f"-> {out} (and out.txt)" in result.output
    assert "corefio-pair-" not in result.output  # the scratch folder is never named
    back = corefio.read(out)
    assert [d.name for d in back.documents] == ["out"]
    assert len(back.documents[0].markables) == 2


def test_several_documents_into_a_named_ann_file_are_refused(cli, tmp_path):
    source = tmp_path / "two.conll"
    source.write_text("".join(f"#begin document ({d}); part 000\n{d}\t0\t0\ta\t(1)\n{d}\t0\t1\tb\t(1)\n\n"
                              "#end document\n" for d in ("one", "two")))
    out = tmp_path / "out.ann"
    result = cli("convert", source, out, "--to", "brat")
    assert result.exit_code == 2
    assert (f"corefio: error: {out}: brat writes one .ann/.txt pair per document and {source} holds 2 documents: "
            "give a directory (a name without .ann) to write them into") in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["two.conll"]  # nothing written, no scratch left
    folder = tmp_path / "out"
    assert cli("convert", source, folder, "--to", "brat", "-q").exit_code == 0
    assert sorted(p.name for p in folder.iterdir()) == ["one_000.ann", "one_000.txt", "two_000.ann", "two_000.txt"]


def test_an_existing_directory_named_ann_is_still_a_directory(cli, tmp_path):
    source = tmp_path / "linktype.tsv"
    source.write_text(WEBANNO)
    folder = tmp_path / "out.ann"
    folder.mkdir()
    assert cli("convert", source, folder, "--to", "brat", "-q").exit_code == 0
    assert sorted(p.name for p in folder.iterdir()) == ["linktype.ann", "linktype.txt"]


def test_a_litbank_document_written_to_a_named_ann_file_is_the_same_bytes(cli, tmp_path):
    out = tmp_path / "bleak.ann"
    result = cli("convert", LITBANK / "271_black_beauty_brat.ann", out, "--to", "brat")
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == (LITBANK / "271_black_beauty_brat.ann").read_bytes()
    assert (tmp_path / "bleak.txt").read_bytes() == (LITBANK / "271_black_beauty_brat.txt").read_bytes()
    refused = cli("convert", LITBANK, tmp_path / "both.ann", "--to", "brat")
    assert refused.exit_code == 2 and "holds 2 documents" in refused.output
    assert not (tmp_path / "both.ann").exists() and not (tmp_path / "both.txt").exists()


# -- (7) hints that name the side ----------------------------------------------------------
@pytest.mark.parametrize("content", ["small", "real"])
def test_format_hints_of_score_name_the_side(cli, tmp_path, content):
    key = tmp_path / "key.json"
    if content == "small":
        key.write_text(json.dumps({"doc_key": "d", "sentences": [["a", "b"]], "clusters": [[[0, 0], [1, 1]]]}) + "\n")
    else:
        shutil.copy(CORECONVERSION, key)
    conll = tmp_path / "response.conll"
    assert cli("convert", key, conll, "--from", "jsonlines", "-q").exit_code == 0
    as_key = cli("score", key, conll)
    assert as_key.exit_code in (2, 3)
    assert "try --key-format jsonlines" in as_key.output and "--from" not in as_key.output
    as_response = cli("score", conll, key)
    assert "try --response-format jsonlines" in as_response.output and "--from" not in as_response.output
    assert "try --from jsonlines" in cli("info", key).output  # a command with --from says --from
    assert cli("score", key, conll, "--key-format", "jsonlines", "-q").exit_code == 0


@pytest.mark.parametrize("format_name", ["brat", "litbank-tsv"])
def test_the_api_writes_a_named_ann_file_as_the_cli_does(tmp_path, format_name):
    """``corefio.write(corpus, "out.ann", "brat")`` made a folder named out.ann; it now
    writes out.ann and out.txt, as ``corefio convert … out.ann --to brat`` does."""
    doc = Document(name="linktype", tokens={"forms": ["Mary", "said", "she", "left", "."]},
                   markables=[{"id": "T1", "spans": ((0, 0),), "entity": "e"},
                              {"id": "T2", "spans": ((2, 2),), "entity": "e"}])
    out = tmp_path / "out.ann"
    report = corefio.write(doc, out, format_name)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.ann", "out.txt"] and out.is_file()
    assert "loss.document-name" in report.codes()
    back = corefio.read(out, format_name).documents[0]
    assert sorted(m.spans for m in back.markables) == [((0, 0),), ((2, 2),)]
    with pytest.raises(UsageError, match="holds 2 documents"):
        corefio.write([doc, doc.copy(name="other")], tmp_path / "two.ann", format_name)
    assert not (tmp_path / "two.ann").exists() and not (tmp_path / "two.txt").exists()
