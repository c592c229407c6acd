"""UA files corefio writes from real CorefUD and UA files, judged by both versions of the
UA scorer (``tests/data/wild/ua/run_written_judges.py`` ran them; the ``judged.json``
files hold the commands, transcripts and full-precision values):

* GUMReddit (``wild/conllu/gumreddit``): CorefUD with multi-word tokens and ``Bridge``,
  written as UA. corefio 0.1.0 wrote range lines with ten columns under a fifteen-column
  header (both scorers failed with an IndexError) and bridging without ``MentionAnchor``
  (the scorer 1.0 failed). The written files are golden: corefio writes the same bytes.
* AMI (``wild/ua/codi-crac-2022``, a window of ES2004d): UA → CorefUD CoNLL-U → UA. The
  mention-level bridging score of the round trip against the original is what corefio's
  loss report says: the anchors reported as ``loss.bridging-anchor`` are the ones lost.
"""

from __future__ import annotations

import json
import re

import pytest

import corefio
from corefio.diagnostics import Report
from corefio.model import BRIDGING
from corefio.scoring import anaphora as S

from .conftest import DATA

WILD = DATA / "wild"
GUMREDDIT = WILD / "conllu" / "gumreddit"
GR = "en_gumreddit-ud-dev.macroeconomics"
AMI = WILD / "ua" / "codi-crac-2022"
AMI_WINDOW = AMI / "AMI_dev_v2.ES2004d.trimmed.CONLLUA"
GR_JUDGED = json.loads((GUMREDDIT / "judged.json").read_text(encoding="utf-8"))
AMI_JUDGED = json.loads((AMI / "judged.json").read_text(encoding="utf-8"))
V1_METRICS = ("lea", "muc", "bcub", "ceafe", "ceafm", "blanc")


def _doc(read):
    return read.documents[0] if hasattr(read, "documents") else read


def _run(judged: dict, judge: str, *options: str) -> dict:
    (run,) = [r for r in judged["runs"] if r["judge"] == judge and r["command"][4:] == list(options)]
    assert "error" not in run, run  # the scorer read the file
    return run


@pytest.mark.parametrize("side", ["", ".response"])
def test_gumreddit_written_as_ua_is_the_judged_file(side):
    written = corefio.dumps(corefio.read(GUMREDDIT / f"{GR}{side}.conllu"), "ua")
    golden = (GUMREDDIT / f"{GR}{side}.written.CONLLUA").read_text(encoding="utf-8")
    assert written == golden
    rows = [line.split("\t") for line in written.splitlines() if line and not line.startswith("#")]
    columns = len(written.splitlines()[0].split("=", 1)[1].split())
    assert columns == 15 and {len(r) for r in rows} == {columns}
    source = (GUMREDDIT / f"{GR}{side}.conllu").read_text(encoding="utf-8")
    ranges = [line for line in source.splitlines() if re.match(r"\d+-\d+\t", line)]
    assert len([r for r in rows if "-" in r[0]]) == len(ranges) == 17


def test_gumreddit_ua_scores_are_both_scorers():
    key, response = GUMREDDIT / f"{GR}.written.CONLLUA", GUMREDDIT / f"{GR}.response.written.CONLLUA"
    for judge, settings in (
            ("UA scorer 2.0", S.AnaphoraSettings(identity=True, metrics=("muc", "bcub", "ceafe"), keep_singletons=False)),
            ("UA scorer 1.0", S.AnaphoraSettings(identity=True, metrics=V1_METRICS, keep_singletons=True))):
        values = _run(GR_JUDGED, judge)["values"]
        assert set(values) == set(settings.metrics)
        got = S.score_files(key, response, settings, key_format="ua", response_format="ua").sections["identity"]
        for metric, want in values.items():
            assert [float(x) for x in got[metric]] == pytest.approx(want, abs=1e-9), (judge, metric)


def test_gumreddit_bridging_reaches_the_ua_scorer_with_its_anchors():
    run = _run(GR_JUDGED, "UA scorer 1.0", "keep_bridging")
    assert run["command"][2] == run["command"][3] and run["bridging"] == [[1.0, 1.0, 1.0]] * 3
    assert "Bridging anaphora recognition scores" in run["transcript"]
    key = _doc(corefio.read(GUMREDDIT / f"{GR}.written.CONLLUA"))
    source = _doc(corefio.read(GUMREDDIT / f"{GR}.conllu"))
    bridging = [link for link in key.links if link.type == BRIDGING]
    manifest = json.loads((WILD / "conllu" / "manifest.json").read_text(encoding="utf-8"))
    (entry,) = [e for e in manifest if e["path"] == f"gumreddit/{GR}.conllu"]
    assert len(bridging) == entry["judge_counts"]["bridging"] == 13  # udapi's count of Bridge
    assert all(link.target_kind == "markable" for link in bridging)  # a MentionAnchor each
    assert {link.source for link in bridging} == {link.source for link in source.links if link.type == BRIDGING}


def test_ami_through_corefud_loses_exactly_the_anchors_reported(tmp_path):
    report = Report()
    middle = tmp_path / "middle.conllu"
    corefio.convert(AMI_WINDOW, middle, to_format="conllu", report=report)
    lost = sum(d.count or 1 for d in report if d.code == "loss.bridging-anchor")
    back_text = corefio.dumps(corefio.read(middle), "ua")
    assert back_text == (AMI / "AMI_dev_v2.ES2004d.trimmed.roundtrip.CONLLUA").read_text(encoding="utf-8")
    original = _doc(corefio.read(AMI_WINDOW))
    links = [link for link in original.links if link.type == BRIDGING]
    assert (len(links), lost) == (31, 1)
    # the UA scorer 1.0: anaphors all found, mention-level bridging short by the anchors reported
    bridging = _run(AMI_JUDGED, "UA scorer 1.0", "keep_bridging")["bridging"]
    assert bridging[0] == [1.0, 1.0, 1.0] and bridging[2] == [1.0, 1.0, 1.0]
    assert bridging[1] == pytest.approx([(len(links) - lost) / len(links)] * 3, abs=1e-12)
    # and corefio's anaphora scorer says the same of the two files
    back = AMI / "AMI_dev_v2.ES2004d.trimmed.roundtrip.CONLLUA"
    got = S.score_files(AMI_WINDOW, back, S.AnaphoraSettings(identity=False, bridging=True), key_format="ua",
                        response_format="ua").sections["bridging"]
    for name, want in zip(("anaphor_recognition", "mention_level", "entity_level"), bridging):
        assert [float(x) for x in got[name]] == pytest.approx(want, abs=1e-12), name
    # identity is untouched
    assert _run(AMI_JUDGED, "UA scorer 2.0")["values"] == {m: [1.0, 1.0, 1.0] for m in ("muc", "bcub", "ceafe")}
