"""Scoring beyond identity (split antecedents, bridging, discourse deixis, non-referring,
MOR) against the values the Universal Anaphora scorer computed on the same files.

The expected values are in ``tests/data/ua-scorer/expected/*.json``, written by
``tests/data/ua-scorer/make_expected.py`` (each names the scorer version and command).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corefio import api
from corefio.formats import conllu, ua
from corefio.scoring import anaphora as S

from .conftest import shared_data

DATA = Path(__file__).parent / "data" / "ua-scorer"
CASES = sorted(p for p in (DATA / "expected").glob("*.json") if not p.name.startswith(("corefud-", "partial-")))
PARTIAL_CASES = sorted((DATA / "expected").glob("partial-*.json"))
COREFUD_CASES = sorted((DATA / "expected").glob("corefud-*.json"))
ALL = ("muc", "bcub", "ceafe", "ceafm", "blanc", "lea")
EVERYTHING = S.AnaphoraSettings(metrics=ALL, identity=True, split_antecedents=True, split_antecedents_only=True,
                                discourse_deixis=True, non_referring=True, keep_non_referring=True, bridging=True,
                                mor=True)
BRIDGING_NAMES = {"non_referring": ("non_referring", "recognition"),
                  "bridging_anaphor_recognition": ("bridging", "anaphor_recognition"),
                  "bridging_mention": ("bridging", "mention_level"),
                  "bridging_entity": ("bridging", "entity_level")}


def test_there_are_enough_cases() -> None:
    hand_made = [c for c in CASES if not c.name.startswith("public-")]
    assert len(hand_made) >= 30
    assert len(CASES) > len(hand_made)


def _ours(case: dict) -> dict[str, dict]:
    key, response = str(DATA / case["key"]), str(DATA / case["response"])
    everything = S.score_files(key, response, EVERYTHING, key_format="ua", response_format="ua").sections
    no_singletons = S.score_files(key, response, S.AnaphoraSettings(metrics=ALL, identity=True,
                                                                    keep_singletons=False),
                                  key_format="ua", response_format="ua").sections
    return {"everything": everything, "no_singletons": no_singletons}


@pytest.mark.parametrize("path", CASES, ids=[c.stem for c in CASES])
def test_agrees_with_the_ua_scorer(path: Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    ours = _ours(case)
    checked = 0
    for mode, expected in case["expected"].items():
        for name, want in expected["values"].items():
            if mode == "identity_no_singletons":
                got = ours["no_singletons"]["identity"][name]
            elif mode == "non_referring_bridging":
                section, measure = BRIDGING_NAMES[name]
                got = ours["everything"][section][measure]
            elif mode == "mor":
                got = ours["everything"]["mor"]["mor"]
            else:
                got = ours["everything"][mode][name]
            assert got == pytest.approx(want, abs=1e-6), (mode, name, expected["source"])
            checked += 1
    assert checked >= 40


@pytest.mark.parametrize("path", COREFUD_CASES, ids=[c.stem for c in COREFUD_CASES])
def test_crac22_zero_and_mor_agree_with_the_ua_scorer(path: Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    want = case["expected"]["crac22"]["values"]
    result = S.score_files(DATA / case["key"], DATA / case["response"], S.settings_from("crac22")).sections
    assert result["mor"]["mor"] == pytest.approx(want["mor"], abs=1e-6)
    assert result["zero"]["anaphor_level"] == pytest.approx(want["zero"], abs=1e-6)


@pytest.mark.parametrize("path", PARTIAL_CASES, ids=[c.stem for c in PARTIAL_CASES])
def test_partial_matching_agrees_with_the_ua_scorer(path: Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    for mode, method in (("partial_craft", "craft"), ("partial_default", "default")):
        settings = S.AnaphoraSettings(metrics=ALL, identity=True, partial=method)
        got = S.score_files(DATA / case["key"], DATA / case["response"], settings, key_format="ua",
                            response_format="ua").sections["identity"]
        for name, want in case["expected"][mode]["values"].items():
            assert got[name] == pytest.approx(want, abs=1e-6), (mode, name)


def test_craft19_preset_uses_the_craft_match() -> None:
    assert S.settings_from("craft19").partial == "craft"
    assert S.settings_from(None, ["partial"]).partial == "default"
    case = json.loads((DATA / "expected" / "partial-TC-P-3.json").read_text())
    exact = S.score_files(DATA / case["key"], DATA / case["response"], S.AnaphoraSettings(identity=True),
                          key_format="ua", response_format="ua").sections["identity"]
    craft = S.score_files(DATA / case["key"], DATA / case["response"], S.settings_from("craft19"),
                          key_format="ua", response_format="ua").sections["identity"]
    assert craft["muc"] == pytest.approx(case["expected"]["partial_craft"]["values"]["muc"], abs=1e-6)
    assert craft != exact


def test_zero_cases_cover_each_outcome() -> None:
    f1 = {p.stem: json.loads(p.read_text())["expected"]["crac22"]["values"]["zero"][2] for p in COREFUD_CASES}
    assert len(f1) >= 5
    assert {0.0, 1.0} <= set(f1.values()) and any(0 < v < 1 for v in f1.values())


def test_zeros_are_dropped_unless_kept() -> None:
    key = DATA / "corefud" / "Z2-zero-missed.key.conllu"
    response = DATA / "corefud" / "Z2-zero-missed.response.conllu"
    dropped = S.score_files(key, response, S.AnaphoraSettings(identity=True)).sections["identity"]
    kept = S.score_files(key, response, S.AnaphoraSettings(identity=True, keep_zeros=True)).sections["identity"]
    assert dropped["muc"] == (1.0, 1.0, 1.0)
    assert kept["muc"][0] < 1.0


def test_every_expectation_names_its_scorer_and_command() -> None:
    for path in CASES + COREFUD_CASES + PARTIAL_CASES:
        case = json.loads(path.read_text(encoding="utf-8"))
        for expected in case["expected"].values():
            assert "universal-anaphora-scorer" in expected["source"]
        assert all(run["command"] for run in case["runs"])


def test_bridging_and_non_referring_come_from_v1() -> None:
    # the v2.0-Beta-Michal command line prints 0.00 for them; v1 (main) computes them
    case = json.loads((DATA / "expected" / "17-bridging-same-entity-other-mention.json").read_text())
    assert "f4adb45" in case["expected"]["non_referring_bridging"]["source"]
    values = case["expected"]["non_referring_bridging"]["values"]
    assert values["bridging_entity"][2] == pytest.approx(1.0)
    assert values["bridging_mention"][2] == pytest.approx(2 / 3)
    v2 = [r for r in case["runs"] if r["mode"] == "non_referring_bridging" and "127ba3d" in r["version"]][0]
    assert "F1: 0.00" in v2["stdout"] and v2["transcript_matches_library"] is False


def test_split_antecedent_partially_right_gets_partial_credit() -> None:
    key = str(DATA / "cases" / "07-split-one-element-right.key.CONLLUA")
    response = str(DATA / "cases" / "07-split-one-element-right.response.CONLLUA")
    result = S.score_files(key, response, S.AnaphoraSettings(split_antecedents_only=True, split_antecedents=True,
                                                             metrics=("muc", "bcub")))
    only = result.sections["split_antecedents_only"]["bcub"]
    assert 0 < only[2] < 1
    full = result.sections["split_antecedents"]["bcub"]
    assert 0 < full[2] < 1


def _corefud(text: str):
    return conllu.loads(text)


COREFUD = """# newdoc id = d1
# global.Entity = eid-etype-head-other
# sent_id = 1
# text = The house had a door .
1\tThe\tthe\tDET\t_\t_\t2\tdet\t_\tEntity=(e1-place-2
2\thouse\thouse\tNOUN\t_\t_\t3\tnsubj\t_\tEntity=e1)
3\thad\thave\tVERB\t_\t_\t0\troot\t_\t_
4\ta\ta\tDET\t_\t_\t5\tdet\t_\tEntity=(e2-object-2|Bridge=e1<e2
5\tdoor\tdoor\tNOUN\t_\t_\t3\tobj\t_\tEntity=e2)
6\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_

"""


def test_corefud_bridge_is_scored() -> None:
    key = _corefud(COREFUD)
    wrong = _corefud(COREFUD.replace("|Bridge=e1<e2", ""))
    settings = S.AnaphoraSettings(bridging=True)
    same = S.score_documents([(key.documents[0], key.documents[0])], settings).sections["bridging"]
    assert same["entity_level"] == (1.0, 1.0, 1.0)
    missed = S.score_documents([(key.documents[0], wrong.documents[0])], settings).sections["bridging"]
    assert missed["anaphor_recognition"] == (0, 0, 0)


def test_gum_bridge_relations_are_scored() -> None:
    tsv = sorted(shared_data("corpora/gum/coref/gum/tsv").glob("*.tsv"))
    corpus = api.read(tsv[0])
    doc = corpus.documents[0]
    assert any(S._is_bridging(link.type) for link in doc.links)
    result = S.score_documents([(doc, doc)], S.AnaphoraSettings(bridging=True, split_antecedents=True))
    assert result.sections["bridging"]["mention_level"][2] == pytest.approx(1.0)
    assert result.sections["split_antecedents"]["muc"][2] == pytest.approx(1.0)


def test_mmax2_pointer_level_named_bridging_is_bridging() -> None:
    assert S._is_bridging("bridging_antecedent") and S._is_bridging("related_phrase")
    assert not S._is_bridging("coreference")


def test_presets_are_documented_and_unknown_ones_refused() -> None:
    from corefio.errors import UsageError

    for name in ("conll12", "crac18", "craft19", "crac22", "codicrac22ar", "br", "dd"):
        assert S.PRESETS[name].description
    assert S.settings_from("br").bridging
    assert S.settings_from("dd").discourse_deixis
    assert S.settings_from("codicrac22ar").split_antecedents
    with pytest.raises(UsageError):
        S.settings_from("nope")
    with pytest.raises(UsageError):
        S.settings_from(None, ["bridgin"])


def test_ua_reader_output_round_trip_scores_perfectly() -> None:
    text = (DATA / "cases" / "37-everything.key.CONLLUA").read_text()
    corpus = ua.loads(text)
    again = ua.loads(ua.dumps(corpus))
    result = S.score_documents([(corpus.documents[0], again.documents[0])], EVERYTHING).sections
    itself = S.score_documents([(corpus.documents[0], corpus.documents[0])], EVERYTHING).sections
    assert result == itself
    assert result["bridging"]["entity_level"] == (1.0, 1.0, 1.0)
    assert result["split_antecedents"]["bcub"] == (1.0, 1.0, 1.0)
    assert result["discourse_deixis"]["ceafe"] == (1.0, 1.0, 1.0)
    assert result["non_referring"]["recognition"] == (1.0, 1.0, 1.0)


def test_cli_preset_transcript(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from corefio.cli import app

    key = DATA / "cases" / "37-everything.key.CONLLUA"
    response = DATA / "cases" / "37-everything.response.CONLLUA"
    runner = CliRunner()
    done = runner.invoke(app, ["score", str(key), str(response), "--preset", "br", "--format", "json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    bridging = data["anaphora"]["bridging"]
    assert bridging["anaphor_recognition"]["f1"] == pytest.approx(1.0)
    assert bridging["mention_level"]["f1"] == pytest.approx(0.0)
    done = runner.invoke(app, ["score", str(key), str(response), "--preset", "codicrac22ar"])
    assert done.exit_code == 0, done.output
    assert "split_antecedents:" in done.stdout
    case = json.loads((DATA / "expected" / "37-everything.json").read_text())
    muc_f1 = case["expected"]["split_antecedents"]["values"]["muc"][2]
    assert f"{muc_f1 * 100:7.2f}" in done.stdout
    done = runner.invoke(app, ["score", str(key), str(response), "--preset", "nope"])
    assert done.exit_code == 2, done.output


def _case(name: str):
    key = api.read(DATA / "cases" / f"{name}.key.CONLLUA", "ua")
    response = api.read(DATA / "cases" / f"{name}.response.CONLLUA", "ua")
    return key, response


def test_bridging_read_from_corefud_scores_as_from_ua(tmp_path: Path) -> None:
    # CorefUD's Bridge names the antecedent entity, so the entity-level score is the UA
    # file's; the mention level anchors at the entity's closest earlier mention
    key, response = _case("17-bridging-same-entity-other-mention")
    settings = S.AnaphoraSettings(bridging=True, split_antecedents=True)
    from_ua = S.score_documents(list(zip(key.documents, response.documents)), settings).sections
    api.write(key, tmp_path / "k.conllu", "conllu")
    api.write(response, tmp_path / "r.conllu", "conllu")
    from_corefud = S.score_files(tmp_path / "k.conllu", tmp_path / "r.conllu", settings).sections
    assert from_corefud["bridging"]["entity_level"] == from_ua["bridging"]["entity_level"] == (1.0, 1.0, 1.0)
    assert from_corefud["bridging"]["anaphor_recognition"] == from_ua["bridging"]["anaphor_recognition"]
    assert from_ua["bridging"]["mention_level"][2] == pytest.approx(2 / 3)
    assert from_corefud["split_antecedents"] == from_ua["split_antecedents"]


def test_bridging_read_from_mmax2_pointers_scores_as_from_ua(tmp_path: Path) -> None:
    key, response = _case("18-bridging-other-entity")
    settings = S.AnaphoraSettings(bridging=True)
    from_ua = S.score_documents(list(zip(key.documents, response.documents)), settings).sections
    for side, corpus in (("k", key), ("r", response)):
        (tmp_path / side).mkdir()
        api.write(corpus, tmp_path / side / f"{side}.mmax", "mmax2")
    k2 = api.read(tmp_path / "k" / "k.mmax", "mmax2")
    assert {link.type for link in k2.documents[0].links} == {"bridging"}
    from_mmax2 = S.score_files(k2, tmp_path / "r" / "r.mmax", settings, response_format="mmax2").sections
    assert from_mmax2 == from_ua
    assert from_ua["bridging"]["mention_level"][2] == pytest.approx(2 / 3)


def test_non_referring_from_an_attribute() -> None:
    # ARRAU-style: the markable says referentiality=non_referring, whatever its entity is called
    key, _ = _case("25-nonref-perfect")
    doc = key.documents[0]
    renamed = [m.model_copy(update={"entity": (m.entity or "").replace("-Pseudo", "x")}) for m in doc.markables]
    other = doc.model_copy(update={"markables": renamed})
    assert all(m.attributes.get("referentiality") == "non_referring"
               for m in other.markables if m.entity and m.entity.endswith("x"))
    result = S.score_documents([(doc, other)], S.AnaphoraSettings(non_referring=True)).sections
    assert result["non_referring"]["recognition"] == (1.0, 1.0, 1.0)


def test_web_result_shows_the_anaphora_section() -> None:
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    from corefio.web import create_app

    client = TestClient(create_app(), base_url="http://127.0.0.1")
    key = DATA / "cases" / "37-everything.key.CONLLUA"
    response = DATA / "cases" / "37-everything.response.CONLLUA"
    done = client.post("/api/score", files={"key": (key.name, key.read_bytes()),
                                            "response": (response.name, response.read_bytes())},
                       data={"key_format": "ua", "response_format": "ua"})
    assert done.status_code == 200, done.text
    body = done.json()
    case = json.loads((DATA / "expected" / "37-everything.json").read_text())
    want = case["expected"]["non_referring_bridging"]["values"]["bridging_anaphor_recognition"]
    assert body["anaphora"]["bridging"]["anaphor_recognition"]["f1"] == pytest.approx(want[2])
    assert set(body["anaphora"]) == {"split_antecedents", "bridging", "non_referring", "discourse_deixis"}
    page = client.get(body["result"])
    assert page.status_code == 200
    from corefio.web.glossary import label

    assert 'id="anaphora"' in page.text and label("anaphor_recognition").replace("_", " ") in page.text
    # a plain identity file gets no such section
    plain = DATA / "cases" / "01-identity-perfect.key.CONLLUA"
    done = client.post("/api/score", files={"key": (plain.name, plain.read_bytes()),
                                            "response": (plain.name, plain.read_bytes())})
    assert "anaphora" not in done.json()


@pytest.mark.parametrize("path", COREFUD_CASES, ids=[c.stem for c in COREFUD_CASES])
def test_cli_preset_crac22_agrees_with_the_ua_scorer(path: Path) -> None:
    # identity metrics come from corefio's ordinary scorer (partial matching, zeros kept and
    # matched by place, singletons dropped), MOR and the zero score from the UA module
    from typer.testing import CliRunner

    from corefio.cli import app

    case = json.loads(path.read_text(encoding="utf-8"))
    want = case["expected"]["crac22"]["values"]
    done = CliRunner().invoke(app, ["score", str(DATA / case["key"]), str(DATA / case["response"]),
                                    "--preset", "crac22", "--format", "json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    for name in ("lea", "muc", "bcub", "ceafe", "ceafm", "blanc"):
        got = data["corpus"][name]
        assert (got["recall"]["value"], got["precision"]["value"], got["f1"]) == pytest.approx(want[name], abs=1e-6), name
    mor = data["anaphora"]["mor"]["mor"]
    assert (mor["recall"], mor["precision"], mor["f1"]) == pytest.approx(want["mor"], abs=1e-6)
    zero = data["anaphora"]["zero"]["anaphor_level"]
    assert (zero["recall"], zero["precision"], zero["f1"]) == pytest.approx(want["zero"], abs=1e-6)
