"""``--jobs N``: every command gives, with several processes, the output one process
gives (byte for byte, in the same order, same errors and exit codes); and ``validate``
streams (one document in memory at a time) with the report reading the whole file gave."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corefio import parallel
from corefio.checks import validation
from corefio.cli import app
from corefio.diagnostics import Report
from corefio.formats.registry import get_format
from corefio.io.source import Source


def conll_document(name: str, rng: random.Random, sentences: int = 3, part: str = "000",
                   duplicate_mention: bool = False) -> str:
    """A CoNLL-2012 document with nested mentions, singletons and a few chains."""
    lines = [f"#begin document ({name}); part {part}"]
    entity = 0
    for s in range(sentences):
        length = rng.randrange(6, 12)
        cells = ["-"] * length
        position = 0
        while position < length - 1:
            width = rng.choice([1, 1, 2, 3])
            end = min(length - 1, position + width - 1)
            label = rng.randrange(0, entity + 1)
            entity = max(entity, label + 1)
            if position == end:
                cells[position] = f"({label})"
            else:
                cells[position] = f"({label}"
                cells[end] = f"{label})"
            position = end + 1 + rng.choice([0, 1, 2])
        if duplicate_mention and s == 0:  # two mentions of one token: model.duplicate-mention
            cells.append("(90)|(91)")
            length += 1
        for t in range(length):
            word = rng.choice(["the", "man", "she", "city", "it", "said", "a", "report"])
            lines.append(f"{name}\t{int(part)}\t{t}\t{word}\tNN\t*\t-\t-\t-\t-\t*\t{cells[t]}")
        lines.append("")
    lines.append("#end document")
    return "\n".join(lines) + "\n"


def conll_corpus(documents: int, seed: int = 7, **kw) -> str:
    rng = random.Random(seed)
    return "".join(conll_document(f"test/doc_{d:03d}", rng, **kw) for d in range(documents))


# -- validate streams ----------------------------------------------------------------------------
def test_validate_reads_one_document_at_a_time(tmp_path, monkeypatch):
    """A format whose reader streams is validated from its stream, never read whole
    (the 10x benchmark corpus once took 935 MB to validate)."""
    path = tmp_path / "corpus.conll"
    path.write_text(conll_corpus(5, duplicate_mention=True))
    def whole(*args, **kwargs):
        raise AssertionError("validate read the whole corpus into memory")

    spec = dataclasses.replace(get_format("conll"), read=whole)
    monkeypatch.setattr(validation, "resolve_format", lambda path, format=None: spec)
    report = validation.validate_file(path)
    assert report.by_code("model.duplicate-mention")


def test_streamed_validation_gives_the_report_of_the_whole_reading(tmp_path):
    """Reader findings first, then the model's checks, then duplicate documents: the
    order (and merging) of the report built from the corpus read whole."""
    text = conll_corpus(4, duplicate_mention=True) + conll_corpus(1)  # doc_000 twice
    text = text.replace("part 000", "part 0", 1)  # a reader warning in the first document
    path = tmp_path / "corpus.conll"
    path.write_text(text)
    streamed = validation.validate_file(path)
    whole = Report(str(path))
    corpus = get_format("conll").read(Source.of(path), report=whole, strict=False)
    validation.check_corpus(corpus, whole)
    assert [d.to_dict() for d in streamed] == [d.to_dict() for d in whole]
    assert {"model.duplicate-document", "model.duplicate-mention"} <= streamed.codes()


def test_streamed_validation_of_a_file_that_breaks_off_has_no_model_findings(tmp_path):
    path = tmp_path / "corpus.conll"
    path.write_text(conll_corpus(3, duplicate_mention=True) + "#begin document (cut); part 000\nx\t0\t0\ta\n")
    report = validation.validate_file(path)
    assert report.errors
    assert not [d for d in report if d.code.startswith("model.")]


# -- --jobs 2 gives what --jobs 1 gives ----------------------------------------------------------
@pytest.fixture(autouse=True)
def small_pieces(monkeypatch):
    """Files of a few kilobytes are cut into pieces (the workers are forked: they see it)."""
    monkeypatch.setattr(parallel, "SPLIT_BYTES", 2000)


def run(*args) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def same_with_two_jobs(*args) -> tuple[int, str, str]:
    """The command's exit code, stdout and stderr, checked equal with --jobs 1 and 2."""
    one = run(*args, "--jobs", "1")
    two = run(*args, "--jobs", "2")
    assert two == one
    return one


def perturbed(text: str, seed: int) -> str:
    """A response: some mentions of the key moved to another chain."""
    rng = random.Random(seed)
    lines = text.split("\n")
    for k, line in enumerate(lines):
        cells = line.split("\t")
        if len(cells) == 12 and cells[-1] != "-" and "|" not in cells[-1] and rng.random() < 0.2:
            label = cells[-1].strip("()")
            if cells[-1] == f"({label})":
                cells[-1] = f"({int(label) + 50})"
            lines[k] = "\t".join(cells)
    return "\n".join(lines)


def key_and_systems(directory: Path, key: str) -> dict[str, Path]:
    """``key`` and two responses made from it, written as CoNLL files in ``directory``."""
    files = {"key": directory / "key.v4_gold_conll", "response": directory / "response.v4_auto_conll",
             "other": directory / "other.v4_auto_conll"}
    files["key"].write_text(key)
    files["response"].write_text(perturbed(key, 1))
    files["other"].write_text(perturbed(key, 2))
    return files


@pytest.fixture
def corpus(tmp_path) -> dict[str, Path]:
    key = conll_corpus(30, duplicate_mention=True)
    return key_and_systems(tmp_path, key.replace("part 000", "part 0", 1))  # a reader warning


def broken(text: str) -> str:
    """``text`` with a mention closed that was never opened, in its 20th document."""
    at = text.index("#begin document (test/doc_019)")
    line_end = text.index("\n", text.index("\n", at) + 1)
    line_start = text.rindex("\n", 0, line_end - 1) + 1
    cells = text[line_start:line_end].split("\t")
    cells[-1] = "77)"
    return text[:line_start] + "\t".join(cells) + text[line_end:]


def test_a_large_file_is_cut_into_pieces_of_documents(corpus):
    pieces = parallel.pieces_of(0, str(corpus["key"]), None, 2)
    assert len(pieces) > 4
    assert sum(p.documents for p in pieces) == 30
    assert parallel.pieces_of(0, str(corpus["key"]), None, 1) == [parallel.Piece(0, str(corpus["key"]), None)]


def test_info(corpus, tmp_path):
    code, out, err = same_with_two_jobs("info", corpus["key"], corpus["response"])
    assert code == 0 and out.count("document(s)") == 2 and "test/doc_029" in out
    assert "conll.header" in err
    assert same_with_two_jobs("info", corpus["key"], "--format", "json")[0] == 0


def test_info_of_a_directory_and_a_pattern(corpus, tmp_path):
    code, out, _ = same_with_two_jobs("info", tmp_path)
    assert code == 0 and [line.split(":")[0] for line in out.splitlines() if not line.startswith(" ")] == \
        [str(corpus[k]) for k in ("key", "other", "response")]
    code, out, _ = same_with_two_jobs("info", str(tmp_path / "*.v4_auto_conll"))
    assert code == 0 and out.count("document(s)") == 2


def test_info_of_a_broken_file_stops_with_the_same_located_error(corpus):
    corpus["key"].write_text(broken(corpus["key"].read_text()))
    code, out, err = same_with_two_jobs("info", corpus["key"])
    assert code == 3 and out == ""
    assert err.startswith(f"corefio: error: {corpus['key']}:") and "77)" in err


def test_validate(corpus):
    with corpus["key"].open("a") as f:
        f.write(conll_corpus(1, seed=8))  # a name twice
    code, out, _ = same_with_two_jobs("validate", corpus["key"], corpus["response"])
    assert code == 0
    for finding in ("conll.header", "model.duplicate-mention", "conll.duplicate-document",
                    "model.duplicate-document"):
        assert finding in out
    assert same_with_two_jobs("validate", corpus["key"], "--format", "json", "-v")[0] == 0
    assert same_with_two_jobs("validate", corpus["key"], "--strict")[0] == 4


def test_validate_of_a_broken_file(corpus):
    corpus["key"].write_text(broken(corpus["key"].read_text()))
    code, out, _ = same_with_two_jobs("validate", corpus["response"], corpus["key"], corpus["other"])
    assert code == 4
    assert f"{corpus['key']}: INVALID" in out and "77)" in out and "model." not in out.split("response")[0]


@pytest.mark.parametrize("options", [["-m", "all", "--per-document"], ["--format", "json", "--per-document"],
                                     ["--format", "scorer", "--per-document", "-m", "muc,bcub,ceafe,lea,blanc"]])
def test_score(corpus, options):
    code, out, _ = same_with_two_jobs("score", corpus["key"], corpus["response"], *options)
    assert code == 0 and "test/doc_029" in out


def test_score_of_a_broken_response_stops_with_the_same_located_error(corpus):
    corpus["response"].write_text(broken(corpus["response"].read_text()))
    code, out, err = same_with_two_jobs("score", corpus["key"], corpus["response"])
    assert code == 3 and out == "" and err.startswith(f"corefio: error: {corpus['response']}:")


def test_compare(corpus):
    code, out, _ = same_with_two_jobs("compare", corpus["key"], corpus["response"], corpus["other"],
                                      "--samples", "200", "--seed", "3")
    assert code == 0 and "response.v4_auto_conll" in out


def test_convert_of_a_directory(corpus, tmp_path):
    outputs = {}
    for jobs in ("1", "2"):
        target = tmp_path / f"out{jobs}"
        code, out, err = run("convert", tmp_path, target, "--from", "conll", "--to", "jsonlines", "--jobs", jobs)
        assert code == 0 and out == ""
        outputs[jobs] = (err.replace(str(target), "OUT"),
                         {p.name: p.read_bytes() for p in sorted(target.iterdir())})
    assert outputs["1"] == outputs["2"]
    assert sorted(outputs["1"][1]) == ["key.jsonlines", "other.jsonlines", "response.jsonlines"]
    assert outputs["1"][0].count("converted ") == 3


def test_convert_of_a_directory_with_a_broken_file(corpus, tmp_path):
    corpus["key"].write_text(broken(corpus["key"].read_text()))
    results = []
    for jobs in ("1", "2"):
        target = tmp_path.parent / f"{tmp_path.name}-out{jobs}"
        code, out, err = run("convert", tmp_path, target, "--to", "jsonlines", "--jobs", jobs)
        results.append((code, err.replace(str(target), "OUT")))
    assert results[0] == results[1]
    assert results[0][0] == 3 and f"corefio: error: {corpus['key']}:" in results[0][1]


@pytest.mark.parametrize("options", [["--to", "conll", "--strategy", "union"], ["--to", "raf", "-v"],
                                     ["--to", "jsonlines", "--pair-by", "order"]])
def test_sync(corpus, tmp_path, options):
    results = []
    for jobs in ("1", "2"):
        target = tmp_path / f"synced{jobs}"
        code, out, err = run("sync", corpus["key"], corpus["response"], "-o", target, *options, "--jobs", jobs)
        results.append((code, out, err.replace(str(target), "OUT"),
                        {p.name: p.read_bytes() for p in sorted(target.iterdir())}))
    assert results[0] == results[1]
    assert results[0][0] == 0 and {"key", "response"} <= {name.split(".")[0] for name in results[0][3]}


def test_sync_of_a_broken_response(corpus, tmp_path):
    corpus["response"].write_text(broken(corpus["response"].read_text()))
    results = []
    for jobs in ("1", "2"):
        target = tmp_path / f"synced{jobs}"
        results.append(run("sync", corpus["key"], corpus["response"], "-o", target, "--jobs", jobs))
        assert not target.exists()  # nothing written
    assert results[0] == results[1]
    assert results[0][0] == 3 and results[0][2].startswith(f"corefio: error: {corpus['response']}:")


def test_warnings_repeated_in_every_piece_are_merged_as_one_process_merges_them(corpus):
    """A reader warning merged over the documents of a file (one diagnostic, counted)
    stays one diagnostic when the documents were read in pieces by several processes."""
    for name in ("key", "response"):
        corpus[name].write_text(corpus[name].read_text().replace("part 000", "part 0"))
    for command in (["score", corpus["key"], corpus["response"]], ["info", corpus["key"]],
                    ["validate", corpus["key"]]):
        code, _, err = same_with_two_jobs(*command, "-v")
        assert code == 0
    _, _, err = same_with_two_jobs("score", corpus["key"], corpus["response"], "-v")
    assert err.count("part number '0' is not 3 digits") == 2 and "(30 times)" in err


# -- the pool ------------------------------------------------------------------------------------
def _square_or_die(n: int) -> int:
    if n == 5:
        import os

        os._exit(9)  # a worker killed (out of memory, say)
    if n == 7:
        raise ValueError("seven")
    return n * n


def test_results_come_in_order_and_errors_when_their_turn_comes():
    assert list(parallel.ordered_map(_square_or_die, range(5), 2)) == [0, 1, 4, 9, 16]
    got = []
    with pytest.raises(ValueError, match="seven"):
        for value in parallel.ordered_map(_square_or_die, [1, 2, 7, 3], 2):
            got.append(value)
    assert got == [1, 4]


def test_a_worker_that_dies_is_an_error_not_a_hang():
    with pytest.raises(parallel.WorkerDied):
        list(parallel.ordered_map(_square_or_die, [1, 5, 2], 2))


# -- sync streams ----------------------------------------------------------------------------------
@pytest.mark.parametrize("to", ["conll", "raf"])
def test_sync_streams_and_writes_what_reading_both_files_whole_wrote(corpus, tmp_path, monkeypatch, to):
    """sync used to read both files whole; now the documents come one pair at a time,
    with the same files and the same report as before."""
    from corefio import api
    from corefio.compare.synchronisation import pair_documents, synchronise_corpora

    key, response = corpus["key"], corpus["response"]
    whole = Report()
    key_corpus, response_corpus = api.read(key, report=whole), api.read(response, report=whole)
    pairs = pair_documents(key_corpus, response_corpus, "name", None, whole)
    synced = synchronise_corpora(key_corpus, response_corpus, "union", whole, pairs, key_file=key,
                                 response_file=response)
    expected = {}
    for side, result in zip(("key", "response"), synced):
        api.write(result, tmp_path / f"expected-{side}", to, report=whole, inputs=[key, response])
        expected[side] = (tmp_path / f"expected-{side}").read_bytes()

    def whole_reading(*args, **kwargs):
        raise AssertionError("sync read a whole corpus into memory")

    monkeypatch.setattr(api, "read", whole_reading)
    for jobs in (1, 2):
        key_side, response_side = parallel.sync_sides(key, response, None)
        pairing, pairing_report = parallel.sync_pairs(key_side, response_side, "name", None)
        targets = (tmp_path / f"{jobs}-key", tmp_path / f"{jobs}-response")
        report = parallel.sync(key_side, response_side, pairing, pairing_report, targets, to, strategy="union",
                               jobs=jobs)
        assert [d.to_dict() for d in report] == [d.to_dict() for d in whole]
        assert {"key": targets[0].read_bytes(), "response": targets[1].read_bytes()} == expected


# -- convert of one large file, in runs of documents -----------------------------------------------
def _staging_left(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.startswith(".corefio-staging-")]


def _spy_on_runs(monkeypatch) -> list[int]:
    """How many runs each ``convert_in_runs`` call wrote (the CLI calls it in-process)."""
    calls: list[int] = []
    real = parallel.convert_in_runs

    def spy(task, pieces, jobs, **kw):
        calls.append(len(pieces))
        return real(task, pieces, jobs, **kw)

    monkeypatch.setattr(parallel, "convert_in_runs", spy)
    return calls


@pytest.mark.parametrize("to", ["conll", "jsonlines", "muc"])
def test_convert_of_one_large_file_is_written_in_runs_by_several_processes(corpus, tmp_path, monkeypatch, to):
    """A writer whose output is the join of its documents' outputs writes runs of a
    large file in several processes: the same bytes, report and --log as one process."""
    calls = _spy_on_runs(monkeypatch)
    results = {}
    for jobs in ("1", "2"):
        target, log = tmp_path / f"out{jobs}.{to}", tmp_path / f"log{jobs}.json"
        code, out, err = run("convert", corpus["key"], target, "--to", to, "--log", log, "-v", "--jobs", jobs)
        results[jobs] = (code, out, err.replace(target.name, "OUT"), target.read_bytes(),
                         log.read_text().replace(target.name, "OUT"))
    assert results["1"] == results["2"]
    assert results["1"][0] == 0 and (to == "conll" or "loss." in results["1"][2] + results["1"][4])
    assert len(calls) == 1 and calls[0] > 4  # --jobs 2 did cut the file (--jobs 1 never does)
    assert _staging_left(tmp_path) == []


def test_convert_to_a_writer_that_does_not_concatenate_stays_whole(corpus, tmp_path, monkeypatch):
    """CoNLL-U numbers entities across the documents of a file: written whole."""
    assert not get_format("conllu").concatenates and get_format("conll").concatenates
    calls = _spy_on_runs(monkeypatch)
    outputs = []
    for jobs in ("1", "2"):
        target = tmp_path / f"out{jobs}.conllu"
        code, _, err = run("convert", corpus["key"], target, "--jobs", jobs)
        outputs.append((code, err.replace(target.name, "OUT"), target.read_bytes()))
    assert outputs[0] == outputs[1] and calls == []


@pytest.mark.parametrize("strict", [False, True])
def test_convert_in_runs_of_a_broken_file_fails_as_one_process_and_writes_nothing(corpus, tmp_path, monkeypatch,
                                                                                   strict):
    """A reading error in a later run (or, with --strict, the first loss) stops the
    conversion with the error one process gives; no output, no staged parts left."""
    corpus["key"].write_text(broken(corpus["key"].read_text()))
    calls = _spy_on_runs(monkeypatch)
    results = []
    for jobs in ("1", "2"):
        target = tmp_path / f"out{jobs}.jsonlines"
        code, out, err = run("convert", corpus["key"], target, *(["--strict"] if strict else []), "--jobs", jobs)
        results.append((code, out, err.replace(target.name, "OUT")))
        assert not target.exists()
    assert results[0] == results[1] and calls
    assert results[0][0] == 3 and f"corefio: error: {corpus['key']}:" in results[0][2]
    if strict:
        assert "strict mode" in results[0][2]
    assert _staging_left(tmp_path) == []


def test_writers_that_declare_they_concatenate_do_so_on_real_corpora():
    """``FormatSpec.concatenates`` is what lets convert write runs in several processes:
    every writer declaring it gives, for real multi-document corpora, the join of the
    outputs of runs of documents (with the corpus's own header data)."""
    from corefio.formats.readwrite import _pieces, corpus_header
    from corefio.formats.registry import all_formats
    from corefio import api

    data = Path(__file__).parent / "data"
    samples = Path(__file__).parent.parent / "samples"
    gum = "".join(p.read_text() for p in sorted((data / "corpora/gum-genres/conll").glob("*.conll")))
    corpora = [api.loads(gum, "conll"), api.read(data / "corpora/litbank-jsonlines/litbank.jsonlines"),
               api.read(samples / "muc/muc7.key.sgm"), api.read(data / "muc/malformed.sgm")]
    declaring = [spec for spec in all_formats() if spec.concatenates]
    assert {spec.name for spec in declaring} >= {"conll", "jsonlines", "muc"}
    for corpus in corpora:
        docs, head = corpus.documents, corpus_header(corpus)
        assert len(docs) >= 2
        for spec in declaring:
            def written(documents, spec=spec, head=head):
                return b"".join(_pieces(head, documents, spec, Report(), False, {}))

            whole = written(docs)
            assert whole == b"".join(written(docs[k:k + 1]) for k in range(len(docs))), spec.name
            assert whole == written(docs[:1]) + written(docs[1:]), spec.name


def test_convert_of_a_directory_with_a_broken_file_writes_no_later_file(corpus, tmp_path):
    """Files are put in place in input order: when one fails, those after it are not
    written (as with one process), though other processes had converted them."""
    corpus["other"].write_text(broken(corpus["other"].read_text()))  # key, other, response: the middle one
    results = []
    for jobs in ("1", "2"):
        target = tmp_path.parent / f"{tmp_path.name}-out{jobs}"
        code, out, err = run("convert", tmp_path, target, "--to", "jsonlines", "--jobs", jobs)
        results.append((code, err.replace(str(target), "OUT"), sorted(p.name for p in target.iterdir())))
    assert results[0] == results[1]
    assert results[0][0] == 3 and results[0][2] == ["key.jsonlines"]


def test_convert_of_a_directory_to_projects_puts_each_project_in_place(corpus, tmp_path):
    """A format that writes a directory (MMAX2) is staged and put in place with the
    checks of a direct write: a non-empty project directory is refused, as with one
    process, and the files after it are not written."""
    trees = []
    for jobs in ("1", "2"):
        target = tmp_path.parent / f"{tmp_path.name}-mmax{jobs}"
        code, _, err = run("convert", tmp_path, target, "--to", "mmax2", "--jobs", jobs)
        trees.append((code, err.replace(str(target), "OUT"),
                      {p.relative_to(target).as_posix(): p.read_bytes() for p in sorted(target.rglob("*"))
                       if p.is_file()}))
        assert _staging_left(target) == []
    assert trees[0] == trees[1] and trees[0][0] == 0 and len(trees[0][2]) > 6
    results = []
    for jobs in ("1", "2"):
        target = tmp_path.parent / f"{tmp_path.name}-busy{jobs}"
        (target / "other").mkdir(parents=True)
        (target / "other" / "mine.txt").write_text("the user's file")
        code, _, err = run("convert", tmp_path, target, "--to", "mmax2", "--jobs", jobs)
        results.append((code, err.replace(str(target), "OUT"), sorted(p.name for p in target.iterdir())))
        assert (target / "other" / "mine.txt").read_text() == "the user's file"
    assert results[0] == results[1] and results[0][0] != 0 and results[0][2] == ["key", "other"]


# -- compare keeps a row of counts a document -----------------------------------------------------
def test_compare_keeps_a_row_of_counts_per_document_and_gives_what_full_scores_give(corpus):
    from corefio.scoring import score
    from corefio.scoring.significance import DocumentRow, RowsOf, compare, compare_scores

    metrics = ["muc", "bcub", "ceafe", "conll", "blanc", "lea"]
    wanted = ["muc", "bcub", "ceafe", "blanc", "lea"]
    rows = score(corpus["key"], corpus["response"], wanted, per_document=True, summarise=RowsOf(metrics))
    assert rows.documents and all(isinstance(d, DocumentRow) for d in rows.documents)
    assert rows.documents[0].counts.shape == (4 + 4 + 4 + 12 + 8 + 4,)
    full = [(str(r), score(corpus["key"], r, wanted, per_document=True)) for r in (corpus["response"], corpus["other"])]
    expected = compare_scores(full, metrics, samples=300, seed=4).to_dict()
    got = compare(corpus["key"], [corpus["response"], corpus["other"]], metrics, samples=300, seed=4).to_dict()
    assert got == expected


# -- views of a large file of another format wait on disk ----------------------------------------
def test_a_spool_gives_back_what_it_was_given_in_order_and_by_number():
    from corefio.io.spool import Spool
    from corefio.model.mentions import MentionView

    objects = [MentionView(f"doc {k}", ["a", "b", "c"] * k, []) for k in range(5)] + [{"x": 1}, None]
    spool = Spool()
    for obj in objects:
        spool.append(obj)
    assert len(spool) == 7
    assert [v.label for v in list(spool)[:5]] == [f"doc {k}" for k in range(5)]
    assert spool[3].forms == ["a", "b", "c"] * 3 and spool[5] == {"x": 1} and spool[6] is None
    assert spool[0].label == "doc 0" and list(spool)[5:] == [{"x": 1}, None]  # after a seek, in order again
    spool.close()


def test_scoring_a_large_file_of_a_format_without_fast_path_keeps_its_views_on_disk(corpus, tmp_path, monkeypatch):
    """jsonlines has no fast path: scoring keeps each document's mention view, on disk
    for a large file; the scores are those of views kept in memory."""
    from corefio import api
    from corefio.compare import pairing
    from corefio.io import spool

    files = {}
    for name in ("key", "response"):
        files[name] = tmp_path / f"{name}.jsonlines"
        api.convert(corpus[name], files[name], to_format="jsonlines")
    _, in_memory, _ = run("score", files["key"], files["response"], "-m", "all", "--per-document")
    stored: list[int] = []
    real = spool.Spool.append
    monkeypatch.setattr(spool.Spool, "append", lambda self, obj: (stored.append(1), real(self, obj))[1])
    monkeypatch.setattr(pairing, "SPOOL_BYTES", 1)
    _, on_disk, _ = run("score", files["key"], files["response"], "-m", "all", "--per-document")
    assert on_disk == in_memory and "test/doc_029" in on_disk
    assert len(stored) == 60  # both files' 30 views


def test_replayed_findings_are_those_add_would_make_without_copying_what_merges_with_nothing():
    """``replay`` gives the report ``Report.add`` would give; a finding that merges with
    nothing is kept as it is (``sync`` puts four reports together: a copy of each
    per-document finding doubled its memory on large corpora)."""
    source = Report()
    source.info("layout.dropped", "conll layout dropped", document="a")
    source.warning("conll.header", "part number '0' is not 3 digits", merge=True, example="x")
    source.warning("conll.header", "part number '0' is not 3 digits", merge=True, example="y")
    plain = Report()
    parallel.replay(plain, parallel.found_in(source))
    assert [d.to_dict() for d in plain] == [d.to_dict() for d in source]
    assert plain.diagnostics[0] is source.diagnostics[0]  # merges with nothing: not copied
    assert plain.diagnostics[1] is not source.diagnostics[1]  # merging: made anew, can take more
    parallel.replay(plain, parallel.found_in(source))
    assert plain.diagnostics[1].count == 4 and len(plain) == 3
    named = Report("some/file.conll")  # a finding without a file takes the report's, as add gives it
    parallel.replay(named, parallel.found_in(source))
    assert named.diagnostics[0].file == "some/file.conll" and source.diagnostics[0].file is None


# -- the allocator setting of the command line ---------------------------------------------------
MALLOC_PROBE = r"""
import ctypes, sys
libc = ctypes.CDLL(None)
if not hasattr(libc, "mallinfo2"):
    print("no glibc"); sys.exit()
class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                               "fsmblks", "uordblks", "fordblks", "keepcost")]
libc.mallinfo2.restype = MallInfo2
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]

def mmapped(size):  # is a block of this size served by mmap?
    before = libc.mallinfo2().hblks
    block = libc.malloc(size)
    served = libc.mallinfo2().hblks - before
    libc.free(block)
    return served

from corefio import cli
if sys.argv[1] == "pinned":
    assert cli.pin_malloc_thresholds()
print([mmapped(size) for size in (30 << 20, 20 << 20, 30 << 20, 20 << 20)])
"""


@pytest.mark.parametrize("setting", ["default", "pinned"])
def test_command_line_keeps_large_blocks_mmapped(setting):
    """glibc raises its mmap threshold to the size of each freed mmapped block (up to
    32 MiB), so later blocks of up to that size come from the heap and are kept by the
    process (``cli.pin_malloc_thresholds``). With the command line's setting a large
    block is mmapped however many were freed before it; without it, a 20 MiB block
    after a 30 MiB one was freed comes from the heap (what shows that the probe sees
    the difference). The blocks are larger than any free space the heap of a freshly
    started interpreter holds, which would serve them whatever the threshold."""
    import os
    import subprocess
    import sys

    # glibc's own settings from the environment turn the adaptation off (distributed's
    # LocalCluster of tests/test_dask.py leaves MALLOC_TRIM_THRESHOLD_ in this process's)
    environment = {name: value for name, value in os.environ.items()
                   if not name.startswith("MALLOC_") and name != "GLIBC_TUNABLES"}
    out = subprocess.run([sys.executable, "-c", MALLOC_PROBE, setting], capture_output=True, text=True,
                         check=True, env=environment).stdout.strip()
    if out == "no glibc":
        pytest.skip("mallinfo2 is glibc's (2.33 or later)")
    served = [int(x) for x in out.strip("[]").split(",")]
    if setting == "pinned":
        assert served == [1, 1, 1, 1]
    else:  # a 20 MiB block after a 30 MiB one was freed
        assert served[1] == served[3] == 0, out


def test_main_pins_the_thresholds(monkeypatch):
    """``corefio`` (``cli.main``) sets the allocator before running a command."""
    import gc

    from corefio import cli

    monkeypatch.setattr(gc, "set_threshold", lambda *thresholds: None)  # process-wide: not in the tests
    called = []
    monkeypatch.setattr(cli, "pin_malloc_thresholds", lambda: called.append(True) or True)
    monkeypatch.setattr(cli, "app", lambda: None)
    cli.main()
    assert called == [True]


# -- files cut at document boundaries: CoNLL-2012 and JSON lines -----------------------------------
def _runs_read(spec, path: Path, cuts: list[int]) -> tuple[list, list]:
    """The documents and findings of ``path`` read in runs of documents starting at the
    document numbers ``cuts`` (0 first), as the workers of --jobs read them."""
    starts = spec.document_starts(Source.of(path))
    size = path.stat().st_size
    documents, report = [], Report(str(path))
    for first, last in zip(cuts, cuts[1:] + [len(starts)]):
        end = starts[last][0] if last < len(starts) else size
        run_report = Report(str(path))
        documents += list(spec.stream_range(Source.of(path), (starts[first][0], end, first, starts[first][1]),
                                            report=run_report))
        parallel.replay(report, parallel.found_in(run_report))
    return documents, report.diagnostics


def test_formats_that_find_their_documents_read_runs_as_the_whole_file_on_real_corpora(tmp_path):
    """``FormatSpec.document_starts`` and ``stream_range`` are what let --jobs cut one
    file: on real corpora, every way of cutting a file into runs gives the documents
    and findings of the whole reading."""
    from corefio import api
    from corefio.formats.registry import all_formats, resolve_format

    data = Path(__file__).parent / "data"
    gum = tmp_path / "gum.conll"
    gum.write_text("".join(p.read_text() for p in sorted((data / "corpora/gum-genres/conll").glob("*.conll"))))
    litbank = data / "corpora/litbank-jsonlines/litbank.jsonlines"
    crlf = tmp_path / "litbank-crlf.jsonlines"  # CRLF line ends, blank lines, no final line end
    crlf.write_bytes(b"\r\n \r\n".join(litbank.read_bytes().splitlines()) + b"\r\n\xc2\xa0\r\n")
    wl = tmp_path / "twice.wl.jsonlines"
    wl.write_bytes((data / "systems/wl-coref_sample_input.jsonlines").read_bytes() * 3)
    cutting = {spec.name for spec in all_formats() if spec.document_starts is not None}
    assert cutting >= {"conll", "jsonlines", "wl-coref"}
    checked = set()
    preco = data / "wild/jsonlines/allennlp_preco.jsonl"  # PreCo's own lines (AllenNLP's test file)
    for path, format in [(gum, None), (litbank, None), (crlf, None), (wl, "wl-coref"), (preco, "preco")]:
        spec = resolve_format(path, format)
        report = Report(str(path))
        whole = api.read(path, format, report=report).documents
        starts = spec.document_starts(Source.of(path))
        assert len(starts) == len(whole) >= 3
        for cuts in ([0], list(range(len(whole))), [0, len(whole) - 1], [0, 1]):
            documents, diagnostics = _runs_read(spec, path, cuts)
            assert documents == whole, (path.name, cuts)
            assert [str(d) for d in diagnostics] == [str(d) for d in report.diagnostics], (path.name, cuts)
        checked.add(spec.name)
    assert checked == cutting


@pytest.fixture
def jsonlines_corpus(corpus, tmp_path) -> Path:
    """The key as JSON lines with what a reader must count right in any run: blank and
    Unicode-space lines, documents without ``doc_key`` (named by their place in the
    file), CRLF line ends and no final line end."""
    from corefio import api

    lines = api.dumps(api.read(corpus["key"]), "jsonlines").splitlines()
    out = []
    for k, line in enumerate(lines):
        if k % 7 == 3:
            line = line.replace('"doc_key": "', '"no_key": "')
        out.append(line)
        if k % 5 == 0:
            out.append("\u3000" if k % 10 else "")
    path = tmp_path / "key.jsonlines"
    path.write_bytes("\r\n".join(out).encode("utf-8"))
    return path


def test_a_large_json_lines_file_is_cut_into_pieces_of_documents(jsonlines_corpus):
    pieces = parallel.pieces_of(0, str(jsonlines_corpus), None, 2)
    assert len(pieces) > 4 and sum(p.documents for p in pieces) == 30
    assert all(p.format == "jsonlines" for p in pieces)


@pytest.mark.parametrize("command", [["info"], ["info", "--format", "json"], ["validate", "-v"],
                                     ["validate", "--format", "json", "-v"]])
def test_info_and_validate_of_a_json_lines_file(jsonlines_corpus, command):
    code, out, err = same_with_two_jobs(command[0], jsonlines_corpus, *command[1:])
    assert code == 0 and "document_4" in out + err  # a document named by its place


def test_convert_of_a_json_lines_file_in_runs(jsonlines_corpus, tmp_path, monkeypatch):
    calls = _spy_on_runs(monkeypatch)
    results = {}
    for jobs in ("1", "2"):
        target = tmp_path / f"out{jobs}.conll"
        code, out, err = run("convert", jsonlines_corpus, target, "-v", "--jobs", jobs)
        results[jobs] = (code, out, err.replace(target.name, "OUT"), target.read_bytes())
    assert results["1"] == results["2"] and results["1"][0] == 0
    assert len(calls) == 1 and calls[0] > 4


def test_a_broken_json_line_stops_every_way_with_the_same_located_error(jsonlines_corpus):
    lines = jsonlines_corpus.read_bytes().split(b"\r\n")
    lines[30] = lines[30][:-5]  # a line cut short: not JSON
    jsonlines_corpus.write_bytes(b"\r\n".join(lines))
    code, out, err = same_with_two_jobs("info", jsonlines_corpus)
    assert code == 3 and err.startswith(f"corefio: error: {jsonlines_corpus}:31:")
    code, out, _ = same_with_two_jobs("validate", jsonlines_corpus)
    assert code == 4 and ":31:" in out
    lines[30] = lines[30].replace(b'"sentences"', b'"sentences" ') + b"\n"  # an LF in a CRLF file
    jsonlines_corpus.write_bytes(b"\r\n".join(lines))
    code, out, err = same_with_two_jobs("info", jsonlines_corpus)
    assert code == 3 and "line ends mix" in err


def test_lines_before_the_first_json_document_are_read_by_the_first_run(jsonlines_corpus):
    """A bad line end on a blank line before the first document is found with one
    process or several (the first run starts at the text's start)."""
    jsonlines_corpus.write_bytes(b"\n \r\n" + jsonlines_corpus.read_bytes().replace(b"\r\n", b"\n"))
    first = parallel.pieces_of(0, str(jsonlines_corpus), None, 2)[0]
    assert first.byte_range[0] == 0 and first.byte_range[3] == 1
    code, out, _ = same_with_two_jobs("validate", jsonlines_corpus)
    assert code == 4 and f"{jsonlines_corpus}:2:" in out and "line ends mix" in out


def test_the_line_after_a_run_is_checked_before_the_runs_last_document_is_given(tmp_path):
    """The reader parses the next line before giving a document: so does a run, so a
    broken first line of the next run stops ``convert --strict`` with the JSON error
    (as one process does), not with the strict-mode error of the run's last document
    (which has a reading warning: an empty sentence)."""
    from corefio import api

    jsonlines_corpus = tmp_path / "clean.jsonlines"
    lines = api.dumps(api.loads(conll_corpus(30), "conll"), "jsonlines").encode().split(b"\n")
    jsonlines_corpus.write_bytes(b"\n".join(lines))
    second = parallel.pieces_of(0, str(jsonlines_corpus), None, 2)[1].byte_range[3]  # its first line
    last = max(k for k in range(second - 1) if lines[k].startswith(b"{"))  # the first run's last document
    lines[last] = lines[last].replace(b'"sentences": [', b'"sentences": [[], ').replace(b'"speakers": [',
                                                                                        b'"speakers": [[], ')
    lines[second - 1] = lines[second - 1][:-3]
    jsonlines_corpus.write_bytes(b"\n".join(lines))
    results = []
    for jobs in ("1", "2"):
        target = tmp_path / f"out{jobs}.conll"
        code, out, err = run("convert", jsonlines_corpus, target, "--strict", "--jobs", jobs)
        results.append((code, out, err.replace(target.name, "OUT")))
    assert results[0] == results[1]
    assert results[0][0] == 3 and "not valid JSON" in results[0][2]
    assert f"{jsonlines_corpus}:{second}:" in results[0][2]


# -- score and compare of directories: pairs of files as one corpus -------------------------------
@pytest.fixture
def file_pairs(tmp_path) -> dict[str, Path]:
    """Five key files and their responses in two directories (named as OntoNotes names
    them: the part before the first dot pairs them), and the same documents joined
    into one key file and one response file (the independent reference)."""
    folders = {name: tmp_path / name for name in ("keys", "responses", "other", "joined")}
    for folder in folders.values():
        folder.mkdir()
    joined_key, joined_response, joined_other = [], [], []
    for n in range(5):
        key = conll_corpus(3 + n, seed=n).replace("test/doc", f"f{n}/doc")
        response, other = perturbed(key, n), perturbed(key, 10 + n)
        (folders["keys"] / f"f{n}.v4_gold_conll").write_text(key)
        (folders["responses"] / f"f{n}.v4_auto_conll").write_text(response)
        (folders["other"] / f"f{n}.v4_auto_conll").write_text(other)
        joined_key.append(key)
        joined_response.append(response)
        joined_other.append(other)
    (folders["joined"] / "key.v4_gold_conll").write_text("".join(joined_key))
    (folders["joined"] / "response.v4_auto_conll").write_text("".join(joined_response))
    (folders["joined"] / "other.v4_auto_conll").write_text("".join(joined_other))
    return folders


@pytest.mark.parametrize("options", [["--per-document"], ["--format", "json", "--per-document", "-m", "all"],
                                     ["--group-by", "prefix:2"]])
def test_score_of_two_directories_is_the_score_of_the_files_joined(file_pairs, options):
    code, out, err = same_with_two_jobs("score", file_pairs["keys"], file_pairs["responses"], *options)
    joined = run("score", file_pairs["joined"] / "key.v4_gold_conll", file_pairs["joined"] / "response.v4_auto_conll",
                 *options)
    assert code == 0 and (code, out, err) == joined
    assert "f4" in out and "f0" in out


def test_score_of_two_patterns(file_pairs):
    code, out, _ = same_with_two_jobs("score", str(file_pairs["keys"] / "f[0-2].*"),
                                      str(file_pairs["responses"] / "f[0-2].*"), "--per-document")
    assert code == 0 and "f2/doc_004" in out and "f3/" not in out


def test_compare_of_directories_is_the_compare_of_the_files_joined(file_pairs):
    args = ["--samples", "300", "--seed", "4", "--format", "json"]
    code, out, _ = same_with_two_jobs("compare", file_pairs["keys"], file_pairs["responses"], file_pairs["other"],
                                      *args)
    joined = file_pairs["joined"]
    _, reference, _ = run("compare", joined / "key.v4_gold_conll", joined / "response.v4_auto_conll",
                          joined / "other.v4_auto_conll", *args)
    assert code == 0
    import json

    ours, theirs = json.loads(out), json.loads(reference)
    assert ours["documents"] == theirs["documents"] == 25
    assert list(ours["scores"].values()) == list(theirs["scores"].values())  # systems named by folder/file
    assert [{k: v for k, v in p.items() if k not in ("first", "second")} for p in ours["pairs"]] == \
        [{k: v for k, v in p.items() if k not in ("first", "second")} for p in theirs["pairs"]]


def test_score_of_directories_of_json_lines_files(file_pairs, tmp_path):
    """Files without the CoNLL fast path are scored through their documents' views."""
    from corefio import api

    for folder in ("keys", "responses"):
        target = tmp_path / f"{folder}-jsonlines"
        target.mkdir()
        for path in sorted(file_pairs[folder].iterdir()):
            api.convert(path, target / f"{path.name.split('.')[0]}.jsonlines")
    code, out, _ = same_with_two_jobs("score", tmp_path / "keys-jsonlines", tmp_path / "responses-jsonlines",
                                      "--per-document")
    joined = run("score", file_pairs["joined"] / "key.v4_gold_conll", file_pairs["joined"] / "response.v4_auto_conll",
                 "--per-document")
    assert code == 0 and out == joined[1]


def test_files_that_do_not_pair_are_named(file_pairs):
    (file_pairs["responses"] / "f3.v4_auto_conll").rename(file_pairs["responses"] / "g3.v4_auto_conll")
    code, _, err = run("score", file_pairs["keys"], file_pairs["responses"])
    assert code != 0 and "no response file for" in err and "f3.v4_gold_conll" in err
    assert "no key file for" in err and "g3.v4_auto_conll" in err
    code, _, err = run("score", file_pairs["keys"], file_pairs["joined"] / "response.v4_auto_conll")
    assert code == 2 and "directory" in err
    code, _, err = run("score", file_pairs["keys"], file_pairs["keys"], "--errors")
    assert code == 2 and "--errors" in err


def test_the_api_scores_two_lists_of_files_as_one_corpus(file_pairs):
    import corefio
    from corefio.errors import UsageError

    keys = sorted(file_pairs["keys"].iterdir())
    responses = sorted(file_pairs["responses"].iterdir())
    joined = file_pairs["joined"]
    ours = corefio.score(keys, responses, ["all"], per_document=True)
    theirs = corefio.score(joined / "key.v4_gold_conll", joined / "response.v4_auto_conll", ["all"],
                           per_document=True)
    def exact(scores):  # Fractions and integers, equal to the last digit (the typed table as its dict)
        return {name: value.as_dict() if name == "typed" else value for name, value in scores.corpus.items()}

    assert exact(ours) == exact(theirs) and len(exact(ours)) > 20
    assert ours.to_dict(True) == theirs.to_dict(True)
    in_two = corefio.score(keys, responses, ["all"], per_document=True, file_runner=parallel.file_runner(2))
    assert exact(in_two) == exact(ours) and in_two.to_dict(True) == ours.to_dict(True)
    with pytest.raises(UsageError):
        corefio.score(keys, responses[:-1])
    with pytest.raises(UsageError):
        corefio.score(keys, responses, sync="all")


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_sync_of_two_directories_syncs_each_pair_of_files(file_pairs, tmp_path):
    """Each pair of files is synchronised into a folder of its own, as ``sync`` of the
    two files gives it; the same files and messages with one process or two."""
    results = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"synced{jobs}"
        code, stdout, err = run("sync", file_pairs["keys"], file_pairs["responses"], "-o", out, "--to", "conll",
                                "--jobs", jobs)
        results[jobs] = (code, stdout, err.replace(str(out), "OUT"), _tree(out))
    assert results["1"] == results["2"] and results["1"][0] == 0
    assert sorted({name.split("/")[0] for name in results["1"][3]}) == [f"f{n}" for n in range(5)]
    assert _staging_left(tmp_path / "synced2") == []
    one = tmp_path / "one-pair"
    code, _, _ = run("sync", file_pairs["keys"] / "f2.v4_gold_conll", file_pairs["responses"] / "f2.v4_auto_conll",
                     "-o", one, "--to", "conll")
    assert code == 0
    assert {f"f2/{name}": data for name, data in _tree(one).items()} == \
        {name: data for name, data in results["1"][3].items() if name.startswith("f2/")}


def test_sync_of_directories_stops_at_a_broken_pair_and_writes_no_later_pair(file_pairs, tmp_path):
    broken_file = file_pairs["responses"] / "f2.v4_auto_conll"
    text = broken_file.read_text()
    assert "\t(0)\n" in text
    broken_file.write_text(text.replace("\t(0)\n", "\t77)\n", 1))  # a mention closed, never opened
    results = []
    for jobs in ("1", "2"):
        out = tmp_path / f"synced{jobs}"
        code, stdout, err = run("sync", file_pairs["keys"], file_pairs["responses"], "-o", out, "--jobs", jobs)
        results.append((code, stdout, err.replace(str(out), "OUT"), sorted(_tree(out))))
        assert _staging_left(out) == []
    assert results[0] == results[1]
    assert results[0][0] == 3 and str(broken_file) in results[0][2]
    assert {name.split("/")[0] for name in results[0][3]} == {"f0", "f1"}
    code, _, err = run("sync", file_pairs["keys"], file_pairs["responses"], "-o", tmp_path / "x",
                       "--pairs", broken_file)
    assert code == 2 and "--pairs" in err


def test_directories_refuse_what_would_pair_or_name_documents_wrongly(file_pairs, tmp_path):
    """A second response file of one name, and a document named in two key files, are
    errors naming the files (a document is known by its name in per-document results
    and comparisons; the files joined into one would not pair either)."""
    copy = file_pairs["responses"] / "f1.other_conll"
    copy.write_bytes((file_pairs["responses"] / "f1.v4_auto_conll").read_bytes())
    code, _, err = run("score", file_pairs["keys"], file_pairs["responses"])
    assert code == 2 and "f1.other_conll" in err and "f1.v4_auto_conll" in err
    copy.unlink()
    again = file_pairs["keys"] / "f0.v4_gold_conll"
    (file_pairs["keys"] / "f1.v4_gold_conll").write_bytes(again.read_bytes())
    (file_pairs["responses"] / "f1.v4_auto_conll").write_bytes((file_pairs["responses"] / "f0.v4_auto_conll")
                                                                .read_bytes())
    for command in (["score", file_pairs["keys"], file_pairs["responses"]],
                    ["compare", file_pairs["keys"], file_pairs["responses"], file_pairs["other"], "--samples", "5"]):
        code, out, err = same_with_two_jobs(*command)
        assert code == 3 and out == "" and "f0/doc_000" in err
        assert str(again) in err and str(file_pairs["keys"] / "f1.v4_gold_conll") in err


def test_errors_in_one_pair_of_files_name_its_files(file_pairs):
    response = file_pairs["responses"] / "f2.v4_auto_conll"
    text = response.read_text()
    start = text.index("#begin document (f2/doc_001)")
    response.write_text(text[:start] + text[text.index("#end document\n", start) + len("#end document\n"):])
    code, _, err = same_with_two_jobs("score", file_pairs["keys"], file_pairs["responses"])
    assert code == 3 and f"{file_pairs['keys'] / 'f2.v4_gold_conll'} (key)" in err
    assert f"{response} (response)" in err and "--pair-by order" in err


def test_bad_arguments_for_directories_are_named(file_pairs, tmp_path):
    code, _, err = run("score", file_pairs["keys"], tmp_path / "nothing")
    assert code == 3 and f"{tmp_path / 'nothing'}: no such file" in err
    one = file_pairs["joined"] / "response.v4_auto_conll"
    code, _, err = run("score", file_pairs["keys"], one)
    assert code == 2 and f"{one} is one file but {file_pairs['keys']} names several" in err


def test_the_api_scores_lists_of_sources_of_files(file_pairs):
    import corefio
    from corefio.errors import UsageError

    keys = sorted(file_pairs["keys"].iterdir())
    responses = sorted(file_pairs["responses"].iterdir())
    assert corefio.score([Source.of(p) for p in keys], [Source.of(p) for p in responses]).corpus == \
        corefio.score(keys, responses).corpus
    with pytest.raises(UsageError, match="not text"):
        corefio.score(keys[:1], [Source.from_text(responses[0].read_text(), "x.conll")])


@pytest.mark.parametrize("to", ["raf", "mmax2"])
def test_sync_of_directories_writes_the_same_tree_whatever_jobs(file_pairs, tmp_path, to):
    """Folders included (a failing pair leaves none behind, one process or two), and
    formats written as directories (MMAX2 projects) put in place from the staging."""
    response = file_pairs["responses"] / "f3.v4_auto_conll"
    response.write_text(response.read_text().replace("\t(0)\n", "\t77)\n", 1))
    trees = []
    for jobs in ("1", "2"):
        out = tmp_path / f"synced{jobs}"
        code, stdout, err = run("sync", file_pairs["keys"], file_pairs["responses"], "-o", out, "--to", to,
                                "--jobs", jobs)
        trees.append((code, stdout, err.replace(str(out), "OUT"),
                      sorted(p.relative_to(out).as_posix() for p in out.rglob("*"))))
    assert trees[0] == trees[1] and trees[0][0] == 3
    assert {path.split("/")[0] for path in trees[0][3]} == {"f0", "f1", "f2"}
    assert (to == "mmax2") == any(path.endswith("key.mmax/Markables") for path in trees[0][3])
    afile = tmp_path / "afile"
    afile.write_text("")
    code, _, err = run("sync", file_pairs["keys"], file_pairs["responses"], "-o", afile)
    assert code == 6 and f"{afile}: cannot create the directory" in err


# -- the same bits whatever --jobs: every metric, and info / validate / convert -------------------
@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> tuple[Path, Path]:
    """24 documents of the benchmark generator (about 1.2 MB a side): enough runs of
    pairs that the information measure's float sums, added run by run, once came out
    different in their last bits with --jobs 1 and --jobs 2."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "generate_corpus", Path(__file__).resolve().parents[1] / "benchmarks" / "generate_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate(tmp_path_factory.mktemp("generated"), docs=24)


def test_every_metric_has_the_same_bits_with_one_or_more_jobs(generated):
    """The JSON of ``score -m all`` (every registered metric) is byte for byte the same
    with --jobs 1, 2 and 3 (the corpus value of ``info`` once differed in its last bits:
    the runs of pairs, and so the order its floats were added in, depended on --jobs)."""
    import json

    from corefio.scoring import METRICS

    key, response = generated
    outputs = {jobs: run("score", key, response, "-m", "all", "--format", "json", "--per-document", "--jobs", jobs)
               for jobs in ("1", "2", "3")}
    assert outputs["1"][0] == 0
    assert outputs["2"] == outputs["1"] and outputs["3"] == outputs["1"]
    corpus = json.loads(outputs["1"][1])["corpus"]
    assert set(METRICS) <= set(corpus)


@pytest.mark.parametrize("command", [["info"], ["validate"], ["convert", "--to", "conllu"], ["convert", "--to", "jsonlines"]])
def test_info_validate_and_convert_give_the_same_bytes_with_one_or_more_jobs(generated, tmp_path, command):
    key, _ = generated
    outputs = []
    for jobs in ("1", "2"):
        if command[0] == "convert":
            target = tmp_path / f"out{jobs}{'.conllu' if 'conllu' in command else '.jsonlines'}"
            code, out, err = run(command[0], key, target, *command[1:], "--jobs", jobs)
            outputs.append((code, out.replace(str(target), "TARGET"), err.replace(str(target), "TARGET"),
                            target.read_bytes()))
        else:
            outputs.append(run(*command, key, "--jobs", jobs))
    assert outputs[0][0] == 0, outputs[0]
    assert outputs[1] == outputs[0]


def test_COREFIO_WORKERS_is_the_default_of_jobs(monkeypatch, generated):
    """The command line honours ``COREFIO_WORKERS`` (it once ignored it): the work is
    shared between that many processes unless --jobs says otherwise; a value that is not
    a whole number of at least 1 is a usage error naming the variable."""
    seen: list[int] = []
    original = parallel.ordered_map

    def counting(func, items, jobs, **kw):
        seen.append(jobs)
        return original(func, items, jobs, **kw)

    monkeypatch.setattr(parallel, "ordered_map", counting)
    key, _ = generated
    monkeypatch.setenv("COREFIO_WORKERS", "3")
    assert run("info", key)[0] == 0
    assert seen and set(seen) == {3}
    seen.clear()
    assert run("info", key, "--jobs", "1")[0] == 0
    assert set(seen) == {1}
    seen.clear()
    monkeypatch.setenv("COREFIO_WORKERS", "1")
    assert run("validate", key)[0] == 0 and set(seen) == {1}
    for bad in ("0", "two", "-1", "²"):
        monkeypatch.setenv("COREFIO_WORKERS", bad)
        code, out, err = run("info", key)
        assert code == 2 and "COREFIO_WORKERS" in err, (bad, err)
    monkeypatch.delenv("COREFIO_WORKERS")
    assert parallel.default_jobs() == parallel.available_cores()
