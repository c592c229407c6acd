"""Hugging Face datasets: the conll2012_ontonotesv5 and indiscrim layouts, read and written
through the `datasets` library (optional extra `hf`), loaded back by load_from_disk."""

from __future__ import annotations

import json
import sys

import pytest
from typer.testing import CliRunner

import corefio
from corefio.cli import app
from corefio.diagnostics import Report
from corefio.errors import FormatError, UsageError

from .conftest import DATA

datasets = pytest.importorskip("datasets")  # the `hf` extra is part of the `test` extra

SYSTEMS = DATA / "systems"
CHAINS = [[(0, 0), (6, 6)], [(2, 2), (8, 8)], [(4, 4), (9, 10)]]


def chains(doc):
    return [[(m.first, m.last) for m in chain] for chain in doc.chains()]


def test_a_text_that_is_not_utf8_in_an_arrow_file_is_a_located_error(tmp_path):
    """Found by the fuzzer (CI's 60 s campaign): a damaged byte inside a string column
    raised UnicodeDecodeError from the row iteration."""
    out = tmp_path / "saved"
    corpus = corefio.read(SYSTEMS / "anna.e2e.jsonlines")
    corefio.write(corpus, out, "hf")
    [arrow] = sorted(out.glob("*.arrow"))
    word = corpus.documents[0].tokens.forms[0].encode()
    data = arrow.read_bytes()
    assert word in data
    arrow.write_bytes(data.replace(word, b"\xb4" + word[1:], 1))  # same length: the offsets still hold
    with pytest.raises(FormatError) as info:
        corefio.read(out)
    assert info.value.line == 1 and "not UTF-8" in str(info.value)


@pytest.mark.parametrize("layout", ["ontonotes", "indiscrim"])
def test_a_converted_corpus_loads_with_load_from_disk_and_reads_back(layout, tmp_path):
    out = tmp_path / "saved"
    corpus = corefio.read(SYSTEMS / "anna.e2e.jsonlines")
    corefio.write(corpus, out, "hf", layout=layout)
    loaded = datasets.load_from_disk(str(out))
    assert len(loaded) == 1
    row = loaded[0]
    if layout == "ontonotes":
        assert row["document_id"] == "anna"
        assert row["sentences"][1]["coref_spans"] == [[0, 0, 0], [1, 2, 2], [2, 3, 4]]
    else:
        assert row["id"] == "anna" and row["coref_chains"][2] == [[0, 4, 4], [1, 3, 4]]
        assert row["sentences"][0]["tokens"][0] == {"id": 1, "text": "Anna"}
    again = corefio.read(out).documents[0]  # a saved dataset directory is recognised
    assert again.name == "anna" and again.tokens.forms == corpus.documents[0].tokens.forms
    assert chains(again) == CHAINS and len(again.sentences) == 2


def test_parquet_arrow_and_splits(tmp_path):
    rows = [{"document_id": f"d{k}", "sentences": [
        {"part_id": k, "words": ["Anna", "slept", "."], "speaker": "spk", "coref_spans": [[7, 0, 0]]},
        {"part_id": k, "words": ["She", "woke", "."], "speaker": "spk", "coref_spans": [[7, 0, 0], [9, 1, 1]]}]}
        for k in range(2)]
    dataset = datasets.Dataset.from_list(rows)
    dataset.to_parquet(str(tmp_path / "train.parquet"))
    corpus = corefio.read(tmp_path / "train.parquet")
    assert [(d.name, d.part) for d in corpus.documents] == [("d0", "0"), ("d1", "1")]
    doc = corpus.documents[0]
    assert chains(doc) == [[(0, 0), (3, 3)], [(4, 4)]]
    assert doc.tokens.attributes["speaker"] == ["spk"] * 6
    datasets.DatasetDict({"train": dataset, "test": dataset.select([1])}).save_to_disk(str(tmp_path / "dd"))
    assert [d.name for d in corefio.read(tmp_path / "dd").documents] == ["d0", "d1", "d1"]
    assert [d.name for d in corefio.read(tmp_path / "dd", split="test").documents] == ["d1"]
    with pytest.raises(UsageError, match="no split 'dev'"):
        corefio.read(tmp_path / "dd", split="dev")
    arrow = next((tmp_path / "dd" / "train").glob("*.arrow"))
    assert len(corefio.read(arrow).documents) == 2


def test_scored_against_a_conllu_key(tmp_path):
    key = tmp_path / "key.conllu"
    corefio.convert(SYSTEMS / "anna.e2e.jsonlines", key)
    corefio.convert(SYSTEMS / "anna.wl.jsonlines", tmp_path / "predictions", "jsonlines", "hf")
    result = CliRunner().invoke(app, ["score", str(key), str(tmp_path / "predictions"), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["corpus"]["muc"]["f1"] == 1.0


def test_a_mention_across_sentences_is_a_reported_loss(tmp_path):
    text = json.dumps({"doc_key": "x", "sentences": [["a", "b"], ["c"]], "clusters": [[[1, 2], [0, 0]]]})
    corpus = corefio.loads(text, "jsonlines")
    report = Report()
    corefio.write(corpus, tmp_path / "out", "hf", report=report)
    assert "loss.cross-sentence" in report.codes()
    assert chains(corefio.read(tmp_path / "out").documents[0]) == [[(0, 0)]]


def test_an_mmax2_project_directory_is_still_an_mmax2_project():
    from corefio.formats.registry import detect_format

    project = next(p for p in (DATA / "mmax2").iterdir() if p.is_dir())
    assert detect_format(project).name == "mmax2"


@pytest.mark.parametrize("row, words", [
    ({"document_id": "d", "sentences": [{"words": ["a"], "coref_spans": [[0, 0, 4]]}]}, "outside its 1 words"),
    ({"document_id": "d", "sentences": [{"words": ["a"], "coref_spans": [[0, 0]]}]}, "is not [cluster, start, end]"),
    ({"id": "d", "sentences": [{"tokens": [{"text": "a"}]}], "coref_chains": [[[3, 0, 0]]]}, "names sentence 3"),
    ({"id": "d", "sentences": [{"tokens": [{"text": "a"}]}], "coref_chains": [[[0, 1, 1]]]}, "outside the 1 words"),
    ({"words": ["a"], "chains": [[0]]}, "no known coreference layout has these columns (words, chains)"),
])
def test_hostile_rows_are_located(row, words, tmp_path):
    good = {"id": "ok", "sentences": [{"tokens": [{"text": "a"}]}], "coref_chains": []} \
        if "coref_chains" in row else {"document_id": "ok", "sentences": [{"words": ["a"], "coref_spans": []}]}
    path = tmp_path / "bad.parquet"
    import pyarrow as pa
    import pyarrow.parquet as pq

    if "sentences" in row:
        pq.write_table(pa.Table.from_pylist([good, row]), str(path))
    else:
        pq.write_table(pa.Table.from_pylist([row]), str(path))
    with pytest.raises(FormatError) as info:
        corefio.read(path)
    assert words in str(info.value)
    assert info.value.line == (2 if "sentences" in row else 1)


def test_not_a_dataset_is_a_located_error(tmp_path):
    path = tmp_path / "x.parquet"
    path.write_bytes(b"not parquet at all")
    with pytest.raises(FormatError):
        corefio.read(path)


def test_without_the_extra_a_usage_error_names_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "datasets", None)  # `import datasets` now fails
    with pytest.raises(UsageError, match=r"corefio\[hf\]"):
        corefio.write(corefio.read(SYSTEMS / "anna.e2e.jsonlines"), tmp_path / "out", "hf")
    result = CliRunner().invoke(app, ["convert", str(SYSTEMS / "anna.e2e.jsonlines"), str(tmp_path / "o"),
                                      "--to", "hf"])
    assert result.exit_code == 2 and "corefio[hf]" in result.output


@pytest.mark.parametrize("row, words", [
    ({"document_id": "d", "sentences": [{"words": ["a"], "coref_spans": 5}]}, "coref_spans must be a list"),
    ({"document_id": "d", "sentences": [{"words": ["a"], "part_id": [1], "coref_spans": [[0, 0, 9]]}]},
     "outside its 1 words"),
])
def test_odd_column_values_are_located_errors_not_crashes(row, words, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "odd.parquet"
    pq.write_table(pa.Table.from_pylist([row]), str(path))
    with pytest.raises(FormatError) as info:
        corefio.read(path)
    assert words in str(info.value) and info.value.line == 1


def test_parquet_bytes_in_memory_read_as_an_upload_would(tmp_path):
    rows = [{"document_id": "d", "sentences": [{"words": ["Anna", "slept"], "coref_spans": [[3, 0, 0]]}]}]
    datasets.Dataset.from_list(rows).to_parquet(str(tmp_path / "p.parquet"))
    corpus = corefio.loads((tmp_path / "p.parquet").read_bytes(), "hf")
    assert chains(corpus.documents[0]) == [[(0, 0)]]
    with pytest.raises(UsageError, match="directory or a .parquet"):
        corefio.loads(b"not parquet", "hf")


@pytest.mark.parametrize("member, damage", [
    ("state.json", '{\n"_s": [\n{\n}\n],\n  "_s": null\n}'),  # found by the fuzzer: KeyError inside datasets
    ("dataset_info.json", '{"features": {"document_id": {"_type": "Value"}}}'),  # TypeError inside datasets
])
def test_a_damaged_saved_dataset_is_a_located_error(member, damage, tmp_path):
    out = tmp_path / "saved"
    corefio.write(corefio.read(SYSTEMS / "anna.e2e.jsonlines"), out, "hf")
    (out / member).write_text(damage)
    with pytest.raises(FormatError) as info:
        corefio.read(out)
    assert info.value.line == 1 and "not a readable Hugging Face dataset" in str(info.value)


@pytest.mark.parametrize("layout", ["ontonotes", "indiscrim"])
def test_round_trip_on_gum_in_both_layouts(layout, tmp_path):
    from .test_jsonlines_systems import gum_with_heads, round_trip_content

    round_trip_content("hf", tmp_path, layout=layout)
    corefio.write(gum_with_heads(), tmp_path / "saved", "hf", layout=layout)
    assert len(datasets.load_from_disk(str(tmp_path / "saved"))) == 2


@pytest.mark.parametrize("command", ["convert", "info", "validate", "score"])
def test_reading_without_the_extra_is_a_usage_error_naming_it(command, tmp_path, monkeypatch):
    saved = tmp_path / "saved"
    corefio.write(corefio.read(SYSTEMS / "anna.e2e.jsonlines"), saved, "hf")
    monkeypatch.setitem(sys.modules, "datasets", None)  # `import datasets` now fails
    with pytest.raises(UsageError, match=r"corefio\[hf\]"):
        corefio.read(saved)
    args = {"convert": [str(saved), str(tmp_path / "o.conllu")], "info": [str(saved)], "validate": [str(saved)],
            "score": [str(SYSTEMS / "anna.e2e.jsonlines"), str(saved)]}[command]
    result = CliRunner().invoke(app, [command, *args])
    assert result.exit_code == (4 if command == "validate" else 2), result.output
    assert "corefio[hf]" in result.output
    # the format list does not need the extra
    assert CliRunner().invoke(app, ["formats"]).exit_code == 0


def test_an_offset_past_the_end_of_an_arrow_file_is_a_located_error_not_a_crash(tmp_path):
    """Found by the fuzzer: one byte of an offsets buffer raised (offset 5 -> 12,805);
    datasets reads the file through a memory map and the process died of SIGBUS. Read
    in a child process, so that a crash fails this test instead of ending the run."""
    import subprocess

    saved = tmp_path / "saved"
    corefio.write(corefio.read(DATA / "ua-scorer" / "cases" / "37-everything.response.CONLLUA"), saved, "hf")
    [arrow] = sorted(saved.glob("*.arrow"))
    data = bytearray(arrow.read_bytes())
    at = data.index(b"\x03\x00\x00\x00\x05\x00\x00\x00") + 5  # the second byte of the offset 5
    data[at] = 0x32
    arrow.write_bytes(bytes(data))
    for target in (saved, arrow):
        done = subprocess.run([sys.executable, "-m", "corefio", "info", str(target), "--from", "hf"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 3, (done.returncode, done.stderr)
        assert ":1: not a readable Hugging Face dataset" in done.stderr and "out of bounds" in done.stderr
