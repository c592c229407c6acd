"""The benchmark scripts measure what they say: the bare reads find the mentions corefio
finds, the long document of the view benchmark is N copies of one document, and the
growth report flags what grows beyond its limits. No time is measured or asserted here."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest

import corefio

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

bare_read = importlib.import_module("bare_read")
generate_corpus = importlib.import_module("generate_corpus")
bench_growth = importlib.import_module("bench_growth")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> tuple[Path, int]:
    """Three generated documents and their number of mentions as corefio counts them."""
    folder = tmp_path_factory.mktemp("bench")
    key, _ = generate_corpus.generate(folder, docs=3)
    mentions = sum(len(d.markables) for d in corefio.read(key, "conll").documents)
    return key, mentions


@pytest.mark.parametrize("fmt,name", [("conll", None), ("conllu", "k.conllu"), ("ua", "k.conllua"),
                                      ("jsonlines", "k.jsonlines"), ("preco", "k.preco.jsonlines"),
                                      ("wl-coref", "k.wl.jsonlines"), ("muc", "k.sgm")])
def test_the_bare_read_finds_every_mention(tiny, tmp_path, fmt, name):
    key, mentions = tiny
    path = key
    if name:
        path = tmp_path / name
        corefio.convert(key, path, to_format=fmt)
    assert bare_read.READERS[fmt](path) == mentions > 0


def test_the_long_document_is_n_copies_of_the_largest(tiny, tmp_path):
    key, _ = tiny
    one, three = tmp_path / "one.v4_gold_conll", tmp_path / "three.v4_gold_conll"
    number = bench_growth._long_document(key, one, 1)
    bench_growth._long_document(key, three, 3, number)
    (doc1,), (doc3,) = corefio.read(one, "conll").documents, corefio.read(three, "conll").documents
    assert len(doc3.tokens.forms) == 3 * len(doc1.tokens.forms)
    assert len(doc3.markables) == 3 * len(doc1.markables)
    chains1 = {m.entity for m in doc1.markables}
    chains3 = {m.entity for m in doc3.markables}
    assert len(chains3) == 3 * len(chains1)  # each copy's entities renumbered, none merged


def _entry(command, scale, cpu, peak, jobs="1"):
    return {"command": command, "scale": scale, "jobs": jobs, "cpu": cpu, "wall": cpu, "peak_mb": peak,
            "tree_mb": peak, "code": 0, "date": "2026-01-01T00:00:00Z", "load": [0, 0, 0], "commit": "x"}


def test_the_growth_report_fails_what_grows_beyond_the_limits(tmp_path):
    results = tmp_path / "growth.jsonl"
    entries = [_entry("info", 1, 1.0, 70), _entry("info", 2, 2.4, 70), _entry("info", 10, 11.0, 75),
               _entry("score", 1, 1.0, 70), _entry("score", 2, 2.6, 70), _entry("score", 10, 9.0, 900),
               _entry("validate", 2, 5.0, 70)]  # no 1x: no factor, no verdict
    results.write_text("".join(json.dumps(e) + "\n" for e in entries))
    fails = bench_growth.report(results, out=open(tmp_path / "report.txt", "w"))
    assert len(fails) == 2
    assert fails[0].startswith("FAIL score (jobs 1): CPU grows 2.60x from 1x to 2x")
    assert fails[1].startswith("FAIL score (jobs 1): peak memory grows 12.86x from 1x to 10x")


def test_a_failed_run_is_reported_and_left_out_of_the_factors(tmp_path):
    results = tmp_path / "growth.jsonl"
    failed = {**_entry("info", 2, 9.0, 70), "code": 3, "error": "bad input"}
    results.write_text("".join(json.dumps(e) + "\n" for e in [_entry("info", 1, 1.0, 70), failed]))
    with open(tmp_path / "report.txt", "w") as out:
        assert bench_growth.report(results, out=out) == []
    text = (tmp_path / "report.txt").read_text()
    assert "ERROR info at 2x (jobs 1) exited 3: bad input" in text


def test_the_bare_conll_read_pairs_labels_that_are_not_numbers(tmp_path):
    path = tmp_path / "labels.conll"
    rows = ["(e1", "(e2)|e1)", "-", "(7)", "(e1)"]
    path.write_text("#begin document (d); part 000\n"
                    + "".join(f"d\t0\t{i}\tw\t{cell}\n" for i, cell in enumerate(rows))
                    + "\n#end document\n")
    assert bare_read.READERS["conll"](path) == 4


def test_the_peers_table_goes_between_the_markers_and_nothing_else_changes(tmp_path):
    write_results = importlib.import_module("write_results")
    results = tmp_path / "peers.jsonl"
    entries = [{"run": "r1", "round": 0, "peer": "coval", "tool": tool, "scale": 1, "cpu": cpu, "wall": cpu,
                "peak_mb": 50.0, "date": "2026-11-27T20:00:00Z", "load": [1.0, 1.0, 1.0], "commit": "abc"}
               for tool, cpu in (("peer", 9.0), ("corefio --jobs 1", 1.5), ("corefio", 1.5))]
    results.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    page = tmp_path / "scale.md"
    page.write_text(f"before\n\n{write_results.BEGIN}\nold table\n{write_results.END}\n\nafter\n", encoding="utf-8")
    write_results.peers_table(page, results)
    text = page.read_text(encoding="utf-8")
    assert text.startswith(f"before\n\n{write_results.BEGIN}\n") and text.endswith(f"{write_results.END}\n\nafter\n")
    assert "old table" not in text
    assert "| coval | 9.00 | 1.50 | 6.0x |" in text  # the ratio 9.0 / 1.5, under the goal of 10x
    assert "MISS coval" in text
    page.write_text("no markers\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        write_results.peers_table(page, results)
