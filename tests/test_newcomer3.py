"""What the third README-only newcomer trial found on real files (round 4), each on a
small file built here: the Hebrew coreference data's LingMess and wl-coref jsonlines
(shaked571/hebrew_coreference_data, no licence: not copied), a cut Universal Anaphora
file (CODI-CRAC 2021's Switchboard dev), and a cut MMAX2 base data file (ParCorFull)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import corefio
from corefio.cli import app
from corefio.diagnostics import Report
from corefio.errors import FormatError

from .conftest import DATA, REPO

WORDS = ["Kim", "saw", "Bo", ".", "She", "left", "."]


def jsonl(tmp_path: Path, **keys) -> Path:
    path = tmp_path / "doc.jsonlines"
    path.write_text(json.dumps({"document_id": "nw/1", "cased_words": WORDS, **keys}) + "\n")
    return path


def test_e2e_keys_beside_cased_words_are_read_as_e2e(tmp_path):
    """LingMess' files: e2e-coref's sentences and clusters, with wl-coref's cased_words
    beside them, were read as wl-coref's (whose clusters are elsewhere): 0 mentions, valid."""
    path = jsonl(tmp_path, sentences=[WORDS[:4], WORDS[4:]], clusters=[[[0, 0], [4, 4]]])
    doc = corefio.read(path).documents[0]
    assert sorted(m.spans for m in doc.markables) == [((0, 0),), ((4, 4),)]
    assert len(doc.chains()) == 1


def test_a_wl_line_with_clusters_under_another_key_is_refused(tmp_path):
    """wl-coref's keys but the clusters under 'clusters': read as 0 mentions, exit 0."""
    path = jsonl(tmp_path, sent_id=[0, 0, 0, 0, 1, 1, 1], clusters=[[[0, 1], [4, 5]]])
    for fmt in (None, "wl-coref"):
        with pytest.raises(FormatError, match="span_clusters") as caught:
            corefio.read(path, fmt)
        assert caught.value.file == str(path) and caught.value.line == 1


def test_a_wl_line_without_clusters_is_still_a_document(tmp_path):
    path = jsonl(tmp_path, sent_id=[0, 0, 0, 0, 1, 1, 1])
    assert corefio.read(path).documents[0].markables == []


UA_HEAD = "# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC IDENTITY NOM_SEM\n"


def ua_text(rows: list[str], final_newline: bool = True) -> str:
    text = UA_HEAD + "# newdoc id = d\n# sent_id = s1\n" + "\n".join(rows) + "\n"
    return text + "\n" if final_newline else text.rstrip("\n")


FULL = ["1\tKim\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1)\t_",
        "2\tleft\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_",
        "3\tshe\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1)\t_"]


def test_a_cut_universal_anaphora_file_is_refused(tmp_path):
    """A .CONLLUA file cut inside its last word line (fewer columns than it declares, no
    line end after it) was read and called valid."""
    path = tmp_path / "cut.conllua"
    path.write_text(ua_text(FULL[:2] + ["3\tshe\t_\t_"], final_newline=False))
    with pytest.raises(FormatError, match="cut file") as caught:
        corefio.read(path, "ua")
    assert caught.value.line == 6
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code != 0 and "cut file" in result.output


def test_a_word_line_short_of_columns_is_said(tmp_path):
    """A line short of its last column is what CODI-CRAC's files hold (nothing said); a
    line short of more is a warning, and the missing columns are read as '_'."""
    path = tmp_path / "short.conllua"
    path.write_text(ua_text([FULL[0], FULL[1][:-2], "3\tshe\t_\t_"]))
    report = Report()
    doc = corefio.read(path, "ua", report=report).documents[0]
    assert [(d.severity, d.line) for d in report.by_code("ua.short-line")] == [("warning", 6)]
    assert len(doc.markables) == 1  # the third word's (EntityID=1) was cut off
    whole = tmp_path / "whole.conllua"
    whole.write_text(ua_text(FULL))
    report = Report()
    corefio.read(whole, "ua", report=report)
    assert not report.by_code("ua.short-line")


def test_a_cut_mmax2_base_data_file_is_refused(tmp_path):
    """A words file cut short was repaired (its root closed) with a warning, and every
    markable on the missing words dropped with warnings only: exit 0 from convert."""
    project = tmp_path / "worship"
    shutil.copytree(REPO / "samples" / "mmax2" / "gum_news_worship", project)
    words = next((project / "Basedata").glob("*words.xml"))
    data = words.read_bytes()
    words.write_bytes(data[:len(data) // 2])
    with pytest.raises(FormatError, match="still open: a cut file") as caught:
        corefio.read(project, "mmax2")
    assert caught.value.file == str(words)
    result = CliRunner().invoke(app, ["convert", str(project), str(tmp_path / "out.conll"), "--to", "conll"])
    assert result.exit_code == 3 and not (tmp_path / "out.conll").exists()


def test_words_that_are_all_placeholders_are_said(tmp_path):
    """A 5-column file of another project (words in column 1, '_' in column 4) read as
    CoNLL gave '_' for every word without a word said."""
    path = tmp_path / "other.conll"
    path.write_text("#begin document (d); part 000\nKim\t0\t0\t_\t(1)\nleft\t0\t1\t_\t-\n\n#end document\n")
    report = Report()
    corefio.read(path, "conll", report=report)
    assert [d.severity for d in report.by_code("conll.no-words")] == ["warning"]
    report = Report()
    corefio.read(DATA / "scorer-testcases" / "DataFiles" / "TC-A.key", "conll", report=report)
    assert not report.by_code("conll.no-words")


def test_an_empty_file_gets_no_format_hint(tmp_path):
    path = tmp_path / "empty.conllu"
    path.write_text("")
    result = CliRunner().invoke(app, ["info", str(path)])
    assert result.exit_code == 3 and "empty" in result.output and "hint" not in result.output


def test_pretty_printed_json_is_told_from_json_lines(tmp_path):
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({"doc_key": "d", "sentences": [WORDS], "clusters": []}, indent=2))
    with pytest.raises(FormatError, match="several lines") as caught:
        corefio.read(path, "jsonlines")
    assert caught.value.line == 1
    cut = tmp_path / "cut.jsonlines"
    cut.write_text('{"doc_key": "d", "sentences": [["a"]]')
    with pytest.raises(FormatError) as caught:
        corefio.read(cut, "jsonlines")
    assert "several lines" not in caught.value.message
