"""Real CorefUD CoNLL-U and Universal Anaphora files (``tests/data/wild/conllu``, ``.../ua``)
against the community's own tools.

* **udapi** (run live) counts documents, words, mentions, entities, singletons, empty
  nodes, bridging and split antecedents: corefio's counts are the same.
* **corefud-scorer** and the **UA scorer 2.0** were run on each file and a perturbed
  response (``perturb.py`` beside the data: standalone, deterministic) by
  ``tests/data/wild/conllu/run_judges.py``; ``judges.json`` holds each command, its
  transcript and the full-precision values it printed. corefio gives those values, from
  the API and from the command line: corefud-scorer's defaults (head matching,
  singletons left out, zeros kept and matched by their dependencies), exact and partial
  matching; the UA scorer's defaults (identity, no singletons, no split antecedents),
  discourse deixis (``-d``) and split antecedents (``-l``).
* info, validate, convert, score and sync accept every file; each is written back in its
  own format byte for byte; every CoNLL-U file corefio writes from them is read by udapi
  and passes UD's validator (``udvalidate --level 2 --coref``) without an error its
  source lacks.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
import udapi

import corefio
from corefio.diagnostics import Report
from corefio.model import BRIDGING, SPLIT_ANTECEDENT
from corefio.scoring import anaphora as S

from .conftest import DATA
from .test_ecosystem import OWN_CLASSES, udvalidate, with_placeholder_tree

WILD = DATA / "wild"
CONLLU = json.loads((WILD / "conllu" / "manifest.json").read_text(encoding="utf-8"))
UA = json.loads((WILD / "ua" / "manifest.json").read_text(encoding="utf-8"))
CONLLU_JUDGED = json.loads((WILD / "conllu" / "judges.json").read_text(encoding="utf-8"))
UA_JUDGED = json.loads((WILD / "ua" / "judges.json").read_text(encoding="utf-8"))
METRICS = ("muc", "bcub", "ceafe", "ceafm", "blanc", "lea")
#: corefud-scorer's run -> corefio's matching mode
MATCH = {"default": "head", "exact": "exact", "partial": "partial"}
LANGUAGE = {"democrat": "fr", "ko_ecmt": "ko"}
COUNTS = ("documents", "tokens", "mentions", "entities", "singletons", "empty_nodes", "bridging",
          "split_antecedents")


def _id(entry: dict) -> str:
    return entry.get("path") or entry["key"]


def _lang(path: str) -> str:
    return next((lang for key, lang in LANGUAGE.items() if key in path), "en")


def udapi_counts(path: Path) -> dict[str, int]:
    """What udapi (the reader corefud-scorer uses) finds in a CorefUD file."""
    logging.disable(logging.WARNING)
    try:
        doc = udapi.Document(str(path))
        entities, mentions = doc.coref_entities, doc.coref_mentions
    finally:
        logging.disable(logging.NOTSET)
    trees = list(doc.trees)
    return {"documents": sum(1 for t in trees if t.newdoc) or 1,
            "tokens": sum(len(t.descendants) for t in trees),
            "mentions": len(mentions),
            "entities": sum(1 for e in entities if e.mentions),
            "singletons": sum(1 for e in entities if len(e.mentions) == 1),
            "empty_nodes": sum(len(t.empty_nodes) for t in trees),
            "bridging": sum(len(m.bridging) for m in mentions),
            "split_antecedents": sum(len(e.split_ante) for e in entities)}


def corefio_counts(corpus) -> dict[str, int]:
    docs = corpus.documents
    chains = [c for d in docs for c in d.chain_indices()]
    return {"documents": len(docs),
            "tokens": sum(len(d.tokens.forms) - len(d.tokens.empty or ()) for d in docs),
            "mentions": sum(len(d.markables) for d in docs),
            "entities": len(chains),
            "singletons": sum(1 for c in chains if len(c) == 1),
            "empty_nodes": sum(len(d.tokens.empty or ()) for d in docs),
            "bridging": sum(len(link.targets) for d in docs for link in d.links if link.type == BRIDGING),
            "split_antecedents": sum(len(link.targets) for d in docs for link in d.links
                                     if link.type == SPLIT_ANTECEDENT)}


# -- counts ------------------------------------------------------------------------------------
@pytest.mark.parametrize("entry", CONLLU, ids=_id)
def test_counts_are_udapis(entry):
    path = WILD / "conllu" / entry["path"]
    live = udapi_counts(path)
    assert live == {k: entry["judge_counts"][k] for k in COUNTS}  # the manifest says what udapi says
    assert corefio_counts(corefio.read(path)) == live


def test_the_files_have_what_the_family_needs():
    totals = {k: sum(e["judge_counts"][k] for e in CONLLU) for k in COUNTS}
    assert totals["empty_nodes"] and totals["bridging"] and totals["split_antecedents"]
    assert len({e["repo"] for e in CONLLU}) >= 3 and len({_lang(e["path"]) for e in CONLLU}) >= 2
    discontinuous = sum(1 for e in CONLLU for d in corefio.read(WILD / "conllu" / e["path"]).documents
                        for m in d.markables if len(m.spans) > 1)
    assert discontinuous
    ua_docs = [d for e in UA for d in corefio.read(WILD / "ua" / e["path"]).documents]
    assert any(m.layer == S.DD_LAYER for d in ua_docs for m in d.markables)
    assert any(link.type == SPLIT_ANTECEDENT and link.source.startswith(S.DD_LAYER) for d in ua_docs
               for link in d.links)
    assert any(d.tokens.empty for d in ua_docs) and any(len(m.spans) > 1 for d in ua_docs for m in d.markables)


def _json(result) -> dict:
    """The JSON a command printed (its warnings go to standard error, which the test
    runner may show in the same output)."""
    text = getattr(result, "stdout", result.output)
    return json.loads(text[text.index("{"):])


# -- scores: corefud-scorer ------------------------------------------------------------------------
CONLLU_RUNS = [pytest.param(e, run, id=f"{e['key']}-{run}") for e in CONLLU_JUDGED for run in e["runs"]]


def _conllu_paths(entry: dict) -> tuple[Path, Path]:
    return WILD / "conllu" / entry["key"], WILD / "conllu" / entry["response"]


@pytest.mark.parametrize("entry,run", CONLLU_RUNS)
def test_corefud_scorer_numbers_from_the_api(entry, run):
    judged = entry["runs"][run]
    assert judged["command"][:2] == ["python", "corefud-scorer.py"]
    key, response = _conllu_paths(entry)
    scores = corefio.score(key, response, list(METRICS), keep_singletons=False, match=MATCH[run], keep_zeros=True,
                           zero_match="dependent", report=Report())
    for metric in METRICS:
        got = scores[metric]
        want = judged["values"][metric]
        assert [float(got.recall), float(got.precision), float(got.f1)] == pytest.approx(want, abs=1e-9), metric


@pytest.mark.parametrize("entry,run", CONLLU_RUNS)
def test_corefud_scorer_numbers_from_the_command_line(entry, run, cli):
    key, response = _conllu_paths(entry)
    out = cli("score", key, response, "-m", ",".join(METRICS), "--drop-singletons", "--match", MATCH[run],
              "--keep-zeros", "--zero-match", "dependent", "--format", "json")
    assert out.exit_code == 0, out.output
    corpus = _json(out)["corpus"]
    for metric in METRICS:
        got = corpus[metric]
        values = [got["recall"]["value"], got["precision"]["value"], got["f1"]] if metric != "blanc" else \
            [got["recall"], got["precision"], got["f1"]]
        values = [v["value"] if isinstance(v, dict) else v for v in values]
        assert values == pytest.approx(entry["runs"][run]["values"][metric], abs=1e-9), metric


def test_defaulted_heads_are_a_warning_of_the_text_output(cli):
    """GUM declares no head field: head matching says, in the text output, that heads
    were defaulted (udapi's rule, the first word)."""
    entry = CONLLU_JUDGED[0]
    assert "gum" in entry["key"]
    key, response = _conllu_paths(entry)
    out = cli("score", key, response, "--match", "head", "--drop-singletons")
    assert out.exit_code == 0
    assert "warning[match.default-head]" in out.output and "first token" in out.output


# -- scores: the UA scorer 2.0 ---------------------------------------------------------------------
UA_SETTINGS = {"default": dict(identity=True, keep_singletons=False),
               "discourse_deixis": dict(discourse_deixis=True),
               "split_antecedents": dict(split_antecedents=True)}
UA_SECTION = {"default": "identity", "discourse_deixis": "discourse_deixis", "split_antecedents": "split_antecedents"}
UA_CLI = {"default": ["--anaphora", "identity", "--drop-singletons"], "discourse_deixis": ["--anaphora", "dd"],
          "split_antecedents": ["--anaphora", "split"]}
UA_RUNS = [pytest.param(e, run, id=f"{e['key']}-{run}") for e in UA_JUDGED for run in e["runs"]
           if "values" in e["runs"][run]]


def test_ua_runs_the_scorer_could_not_finish_are_few():
    """The UA scorer 2.0 fails on one run (split antecedents of a file whose only split
    antecedent is a zero: a division by zero); corefio scores it all the same."""
    failed = [(e["key"], run) for e in UA_JUDGED for run, data in e["runs"].items() if "error" in data]
    assert failed == [("ua-scorer/TC-ZA.key.CONLLUA", "split_antecedents")]
    e = UA_JUDGED[2]
    S.score_files(WILD / "ua" / e["key"], WILD / "ua" / e["response"], S.AnaphoraSettings(split_antecedents=True),
                  key_format="ua", response_format="ua")


@pytest.mark.parametrize("entry,run", UA_RUNS)
def test_ua_scorer_numbers_from_the_api(entry, run):
    settings = S.AnaphoraSettings(metrics=("muc", "bcub", "ceafe"), **UA_SETTINGS[run])
    got = S.score_files(WILD / "ua" / entry["key"], WILD / "ua" / entry["response"], settings, key_format="ua",
                        response_format="ua").sections[UA_SECTION[run]]
    for metric, want in entry["runs"][run]["values"].items():
        assert [float(x) for x in got[metric]] == pytest.approx(want, abs=1e-9), metric


@pytest.mark.parametrize("entry,run", UA_RUNS)
def test_ua_scorer_numbers_from_the_command_line(entry, run, cli):
    out = cli("score", WILD / "ua" / entry["key"], WILD / "ua" / entry["response"], "-m", "muc,bcub,ceafe",
              *UA_CLI[run], "--format", "json")
    assert out.exit_code == 0, out.output
    got = _json(out)["anaphora"][UA_SECTION[run]]
    for metric, want in entry["runs"][run]["values"].items():
        values = [got[metric]["recall"], got[metric]["precision"], got[metric]["f1"]]
        assert values == pytest.approx(want, abs=1e-9), metric


# -- the commands accept the files; round trips; what corefio writes, judged ------------------------
FILES = [pytest.param("conllu", e["path"], id=e["path"]) for e in CONLLU] + \
    [pytest.param("ua", e["path"], id=e["path"]) for e in UA]


@pytest.mark.parametrize("family,path", FILES)
def test_every_command_accepts_the_file(family, path, cli, tmp_path):
    source = WILD / family / path
    response = source.with_name(source.name.replace(".conllu", ".response.conllu")
                                .replace(".CONLLUA", ".response.CONLLUA"))
    if not response.exists():  # a file without a perturbed copy (a scorer's own test pair) scores itself
        response = source
    for args in (("info", source), ("validate", source), ("convert", source, tmp_path / "out.raf.xml"),
                 ("score", source, response), ("sync", source, response, "-o", tmp_path / "sync")):
        out = cli(*args)
        assert out.exit_code == 0, (args[0], out.output)


@pytest.mark.parametrize("family,path", FILES)
def test_written_back_byte_for_byte(family, path):
    source = WILD / family / path
    data = source.read_bytes()
    report = Report()
    assert corefio.dumps(corefio.read(source), family, report=report).encode("utf-8") == data
    # canonically written, it reads back to the same mentions and chains
    again = corefio.loads(corefio.dumps(corefio.read(source), family, canonical=True), family)
    for a, b in zip(corefio.read(source).documents, again.documents):
        assert sorted(m.spans for m in a.markables) == sorted(m.spans for m in b.markables)
        assert sorted(sorted(m.spans for m in c) for c in a.chains()) == \
            sorted(sorted(m.spans for m in c) for c in b.chains())


def _udapi_reads(path: Path, caplog) -> None:
    with caplog.at_level(logging.WARNING):
        doc = udapi.Document(str(path))
        mentions = doc.coref_mentions  # strict loading: errors raise
    assert not [r.getMessage() for r in caplog.records if r.pathname.endswith("coref.py")]
    assert all(m.head in m.words for m in mentions)


@pytest.mark.parametrize("entry", CONLLU, ids=_id)
def test_conllu_corefio_writes_passes_udapi_and_the_validator(entry, tmp_path, caplog):
    source = WILD / "conllu" / entry["path"]
    lang = _lang(entry["path"])
    before = udvalidate(source, lang)
    for name, options in (("canonical.conllu", {"canonical": True}), ("no-empty.conllu", {"drop_empty_nodes": True})):
        path = tmp_path / name
        path.write_text(corefio.dumps(corefio.read(source), "conllu", **options), encoding="utf-8")
        _udapi_reads(path, caplog)
        new = udvalidate(path, lang) - before
        assert not new, (name, dict(new))


@pytest.mark.parametrize("entry", UA, ids=_id)
def test_conllu_written_from_ua_passes_udapi_and_the_validator(entry, tmp_path, caplog):
    path = tmp_path / "from-ua.conllu"
    path.write_text(corefio.dumps(corefio.read(WILD / "ua" / entry["path"]), "conllu"), encoding="utf-8")
    _udapi_reads(path, caplog)
    copy = tmp_path / "with-tree.conllu"
    copy.write_text(with_placeholder_tree(path.read_text(encoding="utf-8")), encoding="utf-8")
    ours = {key: n for key, n in udvalidate(copy, "en").items() if key[1] in OWN_CLASSES}
    assert not ours, ours


# -- a span in several response entities: corefud-scorer's rule --------------------------------------
REPEATS = DATA / "scorer-repeats"
REPEATS_JUDGED = json.loads((REPEATS / "corefud_scorer.json").read_text(encoding="utf-8"))
#: corefud-scorer's run -> corefio's options
REPEATS_RUNS = {"exact": dict(match="exact"), "head": dict(match="head"), "partial": dict(match="partial"),
                "head-without-singletons": dict(match="head", keep_singletons=False)}


@pytest.mark.parametrize("run", list(REPEATS_JUDGED["runs"]))
def test_repeated_spans_score_as_corefud_scorer_with_its_rule(run):
    """Spans in two and three response entities, twice in one, one that head matching
    pairs with a key mention (tests/data/scorer-repeats/make.py): ``repeats="corefud"``
    gives corefud-scorer's values, its precision side counting the span in each entity."""
    judged = REPEATS_JUDGED["runs"][run]
    assert judged["command"][:2] == ["python", "corefud-scorer.py"]
    result = corefio.score(REPEATS / "key.conllu", REPEATS / "response.conllu", list(METRICS), repeats="corefud",
                           keep_zeros=True, report=Report(), **REPEATS_RUNS[run])
    for metric in METRICS:
        got = result[metric]
        assert [float(got.recall), float(got.precision), float(got.f1)] == \
            pytest.approx(judged["values"][metric], abs=1e-9), metric
