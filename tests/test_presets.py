"""Presets (``corefio/scoring/presets.py``): one table of scorers' settings, used by
``score``, ``compare`` and ``agree``, each checked against its scorer's stored output on
real files:

* ``conll2012``: scorer.pl v8.01 (``tests/data/wild/conll2012/judged.json``: its counts);
* ``corefud`` (``crac``): corefud-scorer 1.2's defaults (``tests/data/wild/conllu/judges.json``,
  the run without options; with ``--match exact``, its ``-a exact`` run);
* ``codicrac``: the UA scorer 2.0's defaults (``tests/data/wild/ua/judges.json``).
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import corefio
from corefio.errors import UsageError
from corefio.scoring import anaphora as UA
from corefio.scoring import presets as P
from corefio.scoring.render import percent

from .conftest import DATA

WILD = DATA / "wild"
SCORER_PL = json.loads((WILD / "conll2012" / "judged.json").read_text(encoding="utf-8"))
COREFUD = json.loads((WILD / "conllu" / "judges.json").read_text(encoding="utf-8"))
UA_JUDGED = json.loads((WILD / "ua" / "judges.json").read_text(encoding="utf-8"))
COREFUD_METRICS = ("muc", "bcub", "ceafe", "ceafm", "blanc", "lea")


def _json(result) -> dict:
    text = result.stdout
    return json.loads(text[text.index("{"):])


def _flat(text: str) -> str:
    """The text with its wrapped lines joined (the settings lines wrap at 100 characters)."""
    return " ".join(text.split())


def _values(data: dict) -> list[float]:
    """Recall, precision, F1 of one metric of the JSON output."""
    return [data["recall"]["value"], data["precision"]["value"], data["f1"]]


def _rpf(score) -> list[float]:
    return [float(score.recall), float(score.precision), float(score.f1)]


# -- the table --------------------------------------------------------------------------------------
def test_every_preset_names_its_scorer_version_command_and_options():
    presets = P.all_presets()
    assert [p.name for p in presets][:3] == ["conll2012", "corefud", "codicrac"]
    for p in presets:
        assert p.tool and p.version and p.source and p.command and p.description
        assert set(p.options) <= set(P.OPTION_NAMES)
        assert p.options or p.anaphora is not None
    assert P.get_preset("crac") is P.get_preset("corefud")
    assert P.get_preset("br") is P.get_preset("codicrac22br")
    # the UA scorer's -t settings are in the same table (anaphora.settings_from reads it)
    assert UA.settings_from("codicrac22ar").split_antecedents and UA.PRESETS is P.PRESETS
    with pytest.raises(UsageError, match="unknown preset 'nope'.*conll2012"):
        P.get_preset("nope")


def test_score_help_and_the_presets_command_list_every_preset(cli):
    help_text = " ".join(cli("score", "--help").stdout.split())
    for p in P.all_presets():
        assert p.name in help_text
    listed = json.loads(cli("presets", "--format", "json").stdout)
    assert [entry["name"] for entry in listed] == [p.name for p in P.all_presets()]
    corefud = listed[1]
    assert corefud["tool"] == "corefud-scorer" and corefud["aliases"] == ["crac"]
    assert corefud["options"]["match"] == "head" and corefud["options"]["keep_singletons"] is False
    text = cli("presets").stdout
    assert "conll2012: scorer.pl 8.01" in text and "as: perl scorer.pl all KEY RESPONSE none" in text


# -- conll2012: scorer.pl v8.01 ----------------------------------------------------------------------
def _counts(score) -> list:
    return [score.recall_num, score.recall_den, score.precision_num, score.precision_den]


def _same_counts(got: list, printed: list[str]) -> bool:
    """scorer.pl prints integers exactly and fractions with 15 significant digits."""
    return all(abs(Fraction(g) - Fraction(p)) <= Fraction(1, 10**12) for g, p in zip(got, printed))


PAIRS = [pytest.param(p, id=p["response"]) for p in SCORER_PL["pairs"]]


@pytest.mark.parametrize("pair", PAIRS)
def test_conll2012_is_scorer_pl(pair, cli):
    key, response = WILD / "conll2012" / pair["key"], WILD / "conll2012" / pair["response"]
    want = pair["scorer.pl"]
    scores = corefio.score(key, response, preset="conll2012")
    assert list(scores) == ["mentions", "muc", "bcub", "ceafm", "ceafe", "blanc", "conll"]
    for name in ("mentions", "muc", "bcub", "ceafm", "ceafe"):
        assert _same_counts(_counts(scores[name]), want[name]), name
    assert _same_counts(_counts(scores["blanc"].coref), want["blanc"]["coreference"])
    assert _same_counts(_counts(scores["blanc"].noncoref), want["blanc"]["non-coreference"])
    out = cli("score", key, response, "--preset", "conll2012", "--format", "json")
    assert out.exit_code == 0, out.output
    data = _json(out)
    for name in ("muc", "bcub", "ceafe"):
        assert _values(data["corpus"][name]) == pytest.approx(_rpf(scores[name]), abs=1e-12)
    assert data["settings"]["preset"]["name"] == "conll2012" and data["settings"]["differs"] == {}


# -- corefud: corefud-scorer 1.2 ------------------------------------------------------------------
ENTRIES = [pytest.param(e, id=e["key"]) for e in COREFUD]


def _conll_score(transcript: str) -> str:
    return transcript.rsplit("CoNLL score: ", 1)[1].split()[0]


@pytest.mark.parametrize("entry", ENTRIES)
def test_corefud_is_corefud_scorers_defaults(entry, cli):
    judged = entry["runs"]["default"]
    assert judged["command"][2:] == [f"conllu/{entry['key']}", f"conllu/{entry['response']}"]  # no option
    key, response = WILD / "conllu" / entry["key"], WILD / "conllu" / entry["response"]
    for name in ("corefud", "crac"):
        scores = corefio.score(key, response, preset=name)
        for metric in COREFUD_METRICS:
            assert _rpf(scores[metric]) == pytest.approx(judged["values"][metric], abs=1e-9), metric
        assert percent(scores["conll"].f1) == _conll_score(judged["transcript"])
    out = cli("score", key, response, "--preset", "corefud", "--format", "json")
    assert out.exit_code == 0, out.output
    data = _json(out)
    for metric in COREFUD_METRICS:
        assert _values(data["corpus"][metric]) == pytest.approx(judged["values"][metric], abs=1e-9), metric
    settings = data["settings"]
    assert (settings["match"], settings["keep_singletons"], settings["keep_zeros"], settings["zero_match"]) == \
        ("head", False, True, "dependent")


@pytest.mark.parametrize("entry", ENTRIES)
def test_an_option_given_with_a_preset_wins_and_is_reported(entry, cli):
    """--preset corefud --match exact is corefud-scorer's ``-a exact`` run; the output
    says where the settings leave the preset."""
    judged = entry["runs"]["exact"]
    assert judged["command"][-2:] == ["-a", "exact"]
    key, response = WILD / "conllu" / entry["key"], WILD / "conllu" / entry["response"]
    scores = corefio.score(key, response, preset="corefud", match="exact")
    for metric in COREFUD_METRICS:
        assert _rpf(scores[metric]) == pytest.approx(judged["values"][metric], abs=1e-9), metric
    assert scores.options["settings"].differences() == {"match": ("exact", "head")}
    out = cli("score", key, response, "--preset", "corefud", "--match", "exact")
    assert out.exit_code == 0, out.output
    text = _flat(out.stdout)
    assert "settings (preset corefud, corefud-scorer 1.2): exact matching, singletons left out" in text
    assert "differs from the preset: exact matching (--match exact; corefud-scorer 1.2: head matching)" in text
    data = _json(cli("score", key, response, "--preset", "corefud", "--match", "exact", "--format", "json"))
    assert data["settings"]["differs"] == {"match": {"used": "exact", "reference": "head"}}


def test_an_option_given_at_its_default_value_still_wins():
    """``keep_singletons=True`` is the library's default, and given with a preset that
    leaves singletons out it still keeps them (what the call gives wins, whatever its value)."""
    entry = COREFUD[1]
    key, response = WILD / "conllu" / entry["key"], WILD / "conllu" / entry["response"]
    kept = corefio.score(key, response, ["muc", "bcub"], preset="corefud", keep_singletons=True)
    plain = corefio.score(key, response, ["muc", "bcub"], match="head", keep_zeros=True, repeats="corefud")
    dropped = corefio.score(key, response, ["muc", "bcub"], preset="corefud")
    assert _rpf(kept["bcub"]) == _rpf(plain["bcub"]) != _rpf(dropped["bcub"])
    assert list(kept) == ["mentions", "muc", "bcub"]


# -- codicrac: the UA scorer 2.0 -------------------------------------------------------------------
UA_ENTRIES = [pytest.param(e, id=e["key"]) for e in UA_JUDGED]


@pytest.mark.parametrize("entry", UA_ENTRIES)
def test_codicrac_is_the_ua_scorers_defaults(entry, cli):
    judged = entry["runs"]["default"]
    assert judged["command"][2:] == [f"ua/{entry['key']}", f"ua/{entry['response']}"]  # no option
    key, response = WILD / "ua" / entry["key"], WILD / "ua" / entry["response"]
    settings = P.resolve("codicrac")
    got = UA.score_files(key, response, settings.anaphora).sections["identity"]
    for metric, want in judged["values"].items():
        assert [float(x) for x in got[metric]] == pytest.approx(want, abs=1e-9), metric
    out = cli("score", key, response, "--preset", "codicrac", "--format", "json")
    assert out.exit_code == 0, out.output
    identity = _json(out)["anaphora"]["identity"]
    for metric, want in judged["values"].items():
        assert [identity[metric][k] for k in ("recall", "precision", "f1")] == pytest.approx(want, abs=1e-9)
    # the text output gives the UA scorer's numbers as the score: no second table beside them
    text = cli("score", key, response, "--preset", "codicrac").stdout
    rows = {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.startswith("  ")}
    for metric, want in judged["values"].items():
        assert rows[metric] == [percent(x) for x in want], metric
    assert rows["conll"] == [percent(sum(want[2] for want in judged["values"].values()) / 3)]
    headers = [line for line in text.splitlines() if line.split()[:2] == ["metric", "recall"]]
    assert "mentions" not in rows and len(headers) == 1 and text.startswith("Universal Anaphora scores")
    flat = _flat(text)
    assert "settings (preset codicrac, UA scorer 2.0): Universal Anaphora: identity chains; metrics muc, bcub, " \
           "ceafe; exact matching; singletons left out; non-referring markables left out" in flat
    assert "note: the scores are the UA scorer's" in flat


# -- without a preset; compare and agree -------------------------------------------------------------
def test_without_a_preset_the_settings_are_said_too(cli):
    key, response = DATA.parent.parent / "samples" / "key.raf.xml", DATA.parent.parent / "samples" / "response.raf.xml"
    text = cli("score", key, response, "-m", "muc").stdout
    assert _flat(text.split("\n\n")[-1]) == (
        "settings (no preset; scorer.pl 8.01's but for the metrics: --preset conll2012): exact matching, "
        "singletons kept, zeros left out, a span in two chains counted as scorer.pl does; metrics muc")
    assert max(len(line) for line in text.splitlines()) <= 100
    text = cli("score", key, response, "-m", "muc", "--drop-singletons").stdout
    assert _flat(text).endswith("differs from the defaults: singletons left out (--drop-singletons; "
                                "corefio: singletons kept)")
    data = _json(cli("score", key, response, "-m", "muc", "--format", "json"))
    assert data["settings"]["preset"] is None and data["settings"]["metrics"] == ["mentions", "muc"]


def test_compare_takes_a_preset_and_its_metrics_that_can_be_resampled(cli):
    entry = COREFUD[0]
    key, response = WILD / "conllu" / entry["key"], WILD / "conllu" / entry["response"]
    out = cli("compare", key, response, key, "--preset", "corefud", "--samples", "20", "--seed", "1",
              "--format", "json")
    assert out.exit_code == 0, out.output
    data = _json(out)
    assert data["metrics"] == ["muc", "bcub", "ceafm", "ceafe", "blanc", "lea", "conll"]
    values = entry["runs"]["default"]["values"]
    for metric in COREFUD_METRICS:
        assert data["scores"][response.name][metric]["f1"] == pytest.approx(values[metric][2])
        assert data["scores"][key.name][metric]["f1"] == 1
    assert data["settings"]["preset"]["name"] == "corefud"
    # -m given: the preset's other settings stay
    data = _json(cli("compare", key, response, key, "--preset", "corefud", "-m", "muc", "--samples", "20",
                     "--format", "json"))
    assert data["metrics"] == ["muc"]
    assert data["scores"][response.name]["muc"]["f1"] == pytest.approx(entry["runs"]["default"]["values"]["muc"][2])
    text = _flat(cli("compare", key, response, key, "--preset", "corefud", "--samples", "20").stdout)
    assert "settings (preset corefud, corefud-scorer 1.2): head matching" in text


def test_agree_scores_its_pairwise_table_with_a_preset(cli):
    entry = COREFUD[0]
    key, response = WILD / "conllu" / entry["key"], WILD / "conllu" / entry["response"]
    out = cli("agree", key, response, "--preset", "corefud", "--format", "json")
    assert out.exit_code == 0, out.output
    data = _json(out)
    row = data["pairs"][0]
    values = entry["runs"]["default"]["values"]
    for metric in ("muc", "bcub", "ceafe", "lea", "blanc"):
        assert row["f1"][metric] == pytest.approx(values[metric][2], abs=1e-9), metric
    assert data["settings"]["match"] == "head" and "metrics" not in data["settings"]
    plain = _json(cli("agree", key, response, "--format", "json"))["pairs"][0]
    assert plain["f1"]["muc"] != pytest.approx(values["muc"][2])
    text = _flat(cli("agree", key, response, "--preset", "corefud").stdout)
    assert "settings (preset corefud, corefud-scorer 1.2): head matching" in text


def test_a_preset_takes_directories(cli, tmp_path):
    for side in ("key", "response"):
        (tmp_path / side).mkdir()
    entry = COREFUD[1]
    (tmp_path / "key" / "a.conllu").write_bytes((WILD / "conllu" / entry["key"]).read_bytes())
    (tmp_path / "response" / "a.conllu").write_bytes((WILD / "conllu" / entry["response"]).read_bytes())
    out = cli("score", tmp_path / "key", tmp_path / "response", "--preset", "corefud", "--format", "json")
    assert out.exit_code == 0, out.output
    assert _values(_json(out)["corpus"]["muc"]) == pytest.approx(entry["runs"]["default"]["values"]["muc"])
    # and so does one of the UA scorer's: its sections sum the counts of every pair of files
    for side, path in (("key", WILD / "ua" / UA_JUDGED[0]["key"]), ("response", WILD / "ua" / UA_JUDGED[0]["response"])):
        (tmp_path / side / "a.conllu").unlink()
        (tmp_path / side / "a.CONLLUA").write_bytes(path.read_bytes())
    out = cli("score", tmp_path / "key", tmp_path / "response", "--preset", "codicrac", "--format", "json")
    assert out.exit_code == 0, out.output
    identity = _json(out)["anaphora"]["identity"]
    assert identity["muc"]["f1"] == pytest.approx(UA_JUDGED[0]["runs"]["default"]["values"]["muc"][2], abs=1e-9)


def test_settings_of_a_preset_as_the_api_gives_them():
    settings = P.resolve("corefud", {"keep_singletons": True})
    assert P.scoring_options(settings) == {"metrics": ["muc", "bcub", "ceafe", "ceafm", "blanc", "lea", "conll"],
                                           "match": "head", "keep_singletons": True, "keep_zeros": True,
                                           "zero_match": "dependent", "repeats": "corefud"}
    assert P.chain_options(settings) == {"match": "head", "keep_singletons": True, "zeros": "dependent",
                                         "repeats": "corefud"}
    assert settings.differences() == {"keep_singletons": (True, False)}
    with pytest.raises(UsageError, match="not colour"):
        P.resolve("corefud", {"colour": "red"})
    # a preset of the UA scorer's keeps its anaphora settings; singletons given win there too
    assert P.resolve("codicrac", {"keep_singletons": True}).anaphora.keep_singletons is True


# -- corefud: the mention overlap ratio and the zero score ---------------------------------------------
ZEROS = DATA / "zeros"
ZERO_CASES = json.loads((ZEROS / "expected.json").read_text(encoding="utf-8"))["cases"]


def _printed(output: list[str]) -> dict[str, list[str]]:
    """Metric → [recall, precision, F1] as corefud-scorer printed them (two decimals)."""
    return {name.strip(): line.split()[1::2] for name, line in zip(output, output[1:]) if line.startswith("Recall:")}


def _ua_values(section: dict) -> list[float]:
    (scores,) = section.values()
    return [scores["recall"], scores["precision"], scores["f1"]]


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("run, options", [("default", []), ("exact", ["--match", "exact"]),
                                          ("partial", ["--match", "partial"])])
def test_corefud_gives_corefud_scorers_mor_and_zero_score(entry, run, options, cli):
    """MOR pairs mentions by their largest overlap whatever the matching (not as the UA
    scorer's MOR, over the pairs its matching makes); the zero score follows --match."""
    judged = entry["runs"][run]["values"]
    key, response = WILD / "conllu" / entry["key"], WILD / "conllu" / entry["response"]
    out = cli("score", key, response, "--preset", "corefud", *options, "--format", "json")
    assert out.exit_code == 0, out.output
    anaphora = _json(out)["anaphora"]
    assert _ua_values(anaphora["mor"]) == pytest.approx(judged["mor"], abs=1e-9)
    assert _ua_values(anaphora["zero"]) == pytest.approx(judged["zero"], abs=1e-9)


@pytest.mark.parametrize("case", sorted(ZERO_CASES))
def test_corefud_zero_score_and_mor_on_zero_mentions(case):
    """Hand-built zero mentions (``tests/data/zeros``) with every matching and zero
    matching: corefud-scorer's MOR and zero score as it printed them."""
    entry = ZERO_CASES[case]
    command = entry["command"].split()
    given = {"keep_singletons": "-s" in command, "match": entry["match"],
             "zero_match": command[command.index("-z") + 1]}
    settings = P.resolve("corefud", given)
    assert settings.anaphora is not None and settings.anaphora.scorer == "corefud"
    result = UA.score_files(ZEROS / entry["key"], ZEROS / entry["response"], settings.anaphora,
                            key_format="conllu", response_format="conllu")
    printed = _printed(entry["output"])
    for metric in ("mor", "zero"):
        (values,) = result.sections[metric].values()
        assert [percent(x) for x in values] == printed[metric], metric


def test_the_corefud_preset_says_whose_mor_it_gives(cli):
    entry = COREFUD[0]
    key, response = WILD / "conllu" / entry["key"], WILD / "conllu" / entry["response"]
    text = cli("score", key, response, "--preset", "corefud").stdout
    rows = {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.startswith("  ")}
    judged = entry["runs"]["default"]["values"]
    assert rows["mor"] == [percent(x) for x in judged["mor"]]
    flat = _flat(text)
    assert "also corefud-scorer's mention overlap ratio and zero score" in flat
    assert "MOR pairs mentions by their largest overlap whatever the matching" in flat
