"""Real CoNLL-2011/2012 files (tests/data/wild/conll2012) against the community's scorers.

* every file of the manifest is read by info, validate, convert, score and sync, and
  written back byte for byte;
* corefio's scores of each key/response pair equal scorer.pl v8.01's counts (every
  metric it has) and coval's values, as stored in ``judged.json`` by ``run_judges.py``
  (responses made by ``perturb.py``, or real system outputs);
* regression tests for the two defects of the issue on small files built here:
  sentences with their own number of predicate-argument columns (OntoNotes), and a span
  in two response chains scored the same whatever the format.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import corefio
from corefio.diagnostics import Report
from corefio.errors import FormatError
from corefio.formats import conll

HERE = Path(__file__).parent / "data" / "wild" / "conll2012"
MANIFEST = json.loads((HERE / "manifest.json").read_text(encoding="utf-8"))
JUDGED = json.loads((HERE / "judged.json").read_text(encoding="utf-8"))
FILES = [entry["path"] for entry in MANIFEST]
PAIRS = [(p["key"], p["response"]) for p in JUDGED["pairs"]]
METRICS = ["mentions", "muc", "bcub", "ceafm", "ceafe", "blanc", "lea"]


def _number(text: str) -> Fraction:
    return Fraction(text)


def _counts(score) -> list:
    return [score.recall_num, score.recall_den, score.precision_num, score.precision_den]


def _same(got: list, printed: list[str]) -> bool:
    """scorer.pl prints integers exactly and fractions with 15 significant digits."""
    return all(abs(Fraction(g) - _number(p)) <= Fraction(1, 10**12) for g, p in zip(got, printed))


def _check_scorer_pl(result, expected: dict) -> None:
    for name in ("mentions", "muc", "bcub", "ceafm", "ceafe"):
        assert _same(_counts(result[name]), expected[name]), (name, _counts(result[name]), expected[name])
    blanc = result["blanc"]
    assert _same(_counts(blanc.coref), expected["blanc"]["coreference"])
    assert _same(_counts(blanc.noncoref), expected["blanc"]["non-coreference"])


# -- every file: read, checked, converted, scored, synchronised, written back -----------------------
@pytest.mark.parametrize("path", FILES)
def test_every_command_accepts_the_file(path, cli, tmp_path):
    source = HERE / path
    assert cli("info", source).exit_code == 0
    assert cli("validate", source).exit_code == 0
    out = tmp_path / "out.jsonlines"
    assert cli("convert", source, out).exit_code == 0
    result = cli("score", source, source, "-m", "muc", "--format", "json")
    assert result.exit_code == 0
    muc = json.loads(result.stdout)["corpus"]["muc"]
    assert muc["f1"] == 1 or muc["recall"]["den"] == 0
    assert cli("sync", source, source, "-o", tmp_path / "sync").exit_code == 0


@pytest.mark.parametrize("path", FILES)
def test_own_format_round_trip_is_byte_exact(path):
    data = (HERE / path).read_bytes()
    corpus = corefio.read(HERE / path)
    assert conll.dumps(corpus).encode("utf-8") == data


def test_ontonotes_files_have_sentences_of_several_widths():
    """The reason the family exists: these files were refused before (issue, defect 1)."""
    for path in ("allennlp/coref.gold_conll", "acoli/cnr_0001.v4_gold_skel.sample.conll",
                 "cort/a2e_0000.trimmed.conll"):
        widths = {len(line.split()) for line in (HERE / path).read_text(encoding="utf-8").splitlines()
                  if line.strip() and not line.startswith("#")}
        assert len(widths) >= 3, path


# -- scores equal the judges' ----------------------------------------------------------------------
@pytest.mark.parametrize("key,response", PAIRS)
def test_scores_equal_scorer_pl(key, response):
    (judged,) = [p for p in JUDGED["pairs"] if (p["key"], p["response"]) == (key, response)]
    result = corefio.score(HERE / key, HERE / response, METRICS, report=Report())
    _check_scorer_pl(result, judged["scorer.pl"])


@pytest.mark.parametrize("key,response", PAIRS)
def test_the_cli_gives_the_api_numbers_in_one_process_and_in_two(key, response, cli):
    api = corefio.score(HERE / key, HERE / response, METRICS, report=Report()).to_dict()["corpus"]
    for jobs in ("1", "2"):
        result = cli("score", HERE / key, HERE / response, "-m", ",".join(METRICS), "--format", "json",
                     "--jobs", jobs)
        assert result.exit_code == 0
        assert json.loads(result.stdout)["corpus"] == json.loads(json.dumps(api))


@pytest.mark.parametrize("key,response", PAIRS)
def test_scores_equal_coval_where_the_response_repeats_no_span(key, response):
    """coval (LEA included) treats a span in two chains its own way (see the next test)."""
    (judged,) = [p for p in JUDGED["pairs"] if (p["key"], p["response"]) == (key, response)]
    result = corefio.score(HERE / key, HERE / response, list(judged["coval"]), report=Report())
    for name, values in judged["coval"].items():
        if judged["scorer.pl"]["repeated"] and name != "mentions":
            continue
        assert float(result[name].recall) == pytest.approx(values["recall"], abs=1e-12), name
        assert float(result[name].precision) == pytest.approx(values["precision"], abs=1e-12), name


def test_the_corefud_rule_gives_covals_numbers_where_a_response_repeats_a_span():
    """coval and corefud-scorer map a span to the last chain that lists it (recall side)
    and count it in every chain on the precision side and in CEAF: corefio's
    ``--repeats corefud`` (a second table for those sides)."""
    repeating = [p for p in JUDGED["pairs"] if p["scorer.pl"]["repeated"]]
    assert len(repeating) >= 2
    for judged in repeating:
        result = corefio.score(HERE / judged["key"], HERE / judged["response"], list(judged["coval"]),
                               report=Report(), repeats="corefud")
        plain = corefio.score(HERE / judged["key"], HERE / judged["response"], ["muc"], report=Report())
        for name, values in judged["coval"].items():
            assert float(result[name].recall) == pytest.approx(values["recall"], abs=1e-12), name
            assert float(result[name].precision) == pytest.approx(values["precision"], abs=1e-12), name
        assert plain["muc"] != result["muc"]


def test_real_system_outputs_give_the_numbers_their_authors_published():
    """dutchcoref's README gives coval's figures for its two system outputs."""
    published = {"knack_file7.dutchcoref.conll": {"muc": 73.68, "bcub": 68.65, "ceafe": 70.70, "lea": 63.46},
                 "knack_file7.coreawebservice.conll": {"muc": 43.48, "bcub": 35.94, "ceafe": 26.23, "lea": 25.24}}
    for name, figures in published.items():
        result = corefio.score(HERE / "dutchcoref/knack_file7.gold.conll", HERE / "dutchcoref" / name,
                               list(figures), report=Report())
        for metric, f1 in figures.items():
            assert round(float(result[metric].f1) * 100, 2) == f1


# -- defect 1: one predicate-argument column per predicate of each sentence ------------------------
def _line(i: int, word: str, preds: list[str], coref: str, sep: str = "\t") -> str:
    return sep.join(["d", "0", str(i), word, "NN", "*", "-", "-", "-", "-", "*", *preds, coref])


VARIABLE = "\n".join([
    "#begin document (d); part 000",
    _line(0, "John", ["(ARG0*)", "*"], "(1)"),
    _line(1, "saw", ["(V*)", "*"], "-"),
    _line(2, "Mary", ["(ARG1*)", "(V*)"], "(2)"),
    "",
    _line(0, "She", [], "(2)"),
    _line(1, "left", [], "-"),
    "",
    _line(0, "He", ["(ARG0*)"], "(1)"),
    _line(1, "smiled", ["(V*)"], "-"),
    "",
    "#end document",
    "",
])


def test_sentences_with_their_own_number_of_columns_are_read_on_every_path(tmp_path):
    path = tmp_path / "v.gold_conll"
    path.write_text(VARIABLE, encoding="utf-8")
    corpus = corefio.read(path)
    (doc,) = corpus.documents
    assert doc.tokens.attributes["predicate_arguments_2"] == ["*", "*", "(V*)", None, None, None, None]
    assert doc.tokens.attributes["predicate_arguments_1"][3:5] == [None, None]
    assert conll.dumps(corpus) == VARIABLE
    # the parser's mention views (what `score` reads) and their fast path
    (view,) = conll.mention_views(path, report=Report())
    assert [[m.spans for m in chain] for chain in view.mentions] == [[((0, 0),), ((5, 5),)], [((2, 2),), ((3, 3),)]]
    assert corefio.score(path, path, ["muc"])["muc"].f1 == 1
    # the canonical writer leaves out, per sentence, the columns a sentence lacks
    assert conll.dumps(corpus, canonical=True) == VARIABLE


def test_space_aligned_sentences_of_several_widths_are_written_back_as_padded():
    aligned = VARIABLE.replace("\t", "    ")
    corpus = conll.loads(aligned)
    assert corpus.documents[0].layout["conll"].delimiter == "aligned"
    assert conll.dumps(corpus) == aligned
    padded = "\n".join(line.replace("    ", "  ", 1) if line.startswith("d") else line
                       for line in aligned.split("\n"))
    assert conll.dumps(conll.loads(padded)) == padded


def test_a_line_that_differs_from_its_sentence_is_still_refused_with_its_line():
    lines = VARIABLE.split("\n")
    lines[6] = _line(1, "left", ["*"], "-")  # the second line of a 12-column sentence has 13
    with pytest.raises(FormatError) as info:
        conll.loads("\n".join(lines))
    assert info.value.line == 7
    assert "first token line of its sentence (line 6) has 12" in str(info.value)


def test_a_sentence_below_twelve_columns_is_refused():
    lines = VARIABLE.split("\n")
    lines[5:7] = ["\t".join(["d", "0", "0", "She", "(2)"]), "\t".join(["d", "0", "1", "left", "-"])]
    with pytest.raises(FormatError) as info:
        conll.loads("\n".join(lines))
    assert info.value.line == 6 and "12 or more" in str(info.value)


def test_tab_only_lines_between_sentences_are_written_back():
    text = VARIABLE.replace("\n\n_", "\n\t\t\n_")
    text = "\n".join("\t\t\t" if not line and k < 10 else line for k, line in enumerate(text.split("\n")))
    assert conll.dumps(conll.loads(text)) == text


# -- defect 4: a span in two response chains, the same numbers for every format ---------------------
REPEATS = HERE / "repeats"
STORED = json.loads((REPEATS / "scorer_pl.json").read_text(encoding="utf-8"))["scores"]


def test_a_repeated_span_scores_as_scorer_pl_in_every_format(tmp_path):
    key = REPEATS / "key.conll"
    response = corefio.read(REPEATS / "response.conll")
    # the chains reversed: a jsonlines or RAF file lists them in another order
    doc = response.documents[0]
    reversed_doc = doc.model_copy(update={"markables": list(reversed(doc.markables))}) \
        if hasattr(doc, "model_copy") else doc
    results = {}
    for name in ("response.conll", "response.jsonlines", "response.raf.xml"):
        target = tmp_path / name
        corefio.write(corefio.model.Corpus(documents=[reversed_doc]), target)
        report = Report()
        results[name] = corefio.score(key, target, METRICS, report=report)
        assert "score.duplicate-mention" in report.codes()
    for result in results.values():
        _check_scorer_pl(result, STORED)  # mention identification and BLANC count w6 once
    first = results["response.conll"].to_dict()["corpus"]
    assert all(r.to_dict()["corpus"] == first for r in results.values())


SCORER_REPEATS = Path(__file__).parent / "data" / "scorer-repeats"


@pytest.mark.parametrize("fmt", ["conll", "jsonlines", "raf"])
def test_spans_listed_in_several_chains_or_twice_in_one_score_as_scorer_pl(fmt, tmp_path):
    """A span that matches no key mention is one mention id for scorer.pl: counted once
    by mention identification, its BLANC links a set of id pairs (a link to itself when
    it is in two chains), while MUC, B³ and CEAF count it in each chain. Spans in three
    chains, twice in one chain, two such spans in the same chains (stored scorer.pl
    output, tests/data/scorer-repeats/make.py)."""
    stored = json.loads((SCORER_REPEATS / "scorer_pl.json").read_text(encoding="utf-8"))["scores"]
    response = SCORER_REPEATS / "response.conll"
    if fmt != "conll":
        response = tmp_path / f"response.{'raf.xml' if fmt == 'raf' else fmt}"
        corefio.write(corefio.read(SCORER_REPEATS / "response.conll"), response)
    result = corefio.score(SCORER_REPEATS / "key.conll", response, METRICS, report=Report())
    _check_scorer_pl(result, stored)


def test_a_repeated_key_mention_is_left_out_and_an_invented_one_counted_twice():
    report = Report()
    result = corefio.score(REPEATS / "key.conll", REPEATS / "response.conll", ["muc"], report=report)
    assert _same(_counts(result["muc"]), STORED["muc"])
    messages = {d.message: d.count for d in report.by_code("score.duplicate-mention")}
    assert any("left out" in m and c == 1 for m, c in messages.items())
    assert any("match no key mention" in m and c == 1 for m, c in messages.items())


def _many_repeats(tmp_path, n: int) -> tuple[Path, Path]:
    """A key of n+1 two-mention chains; a response that also lists each chain's second
    mention in the first chain (n repeated key mentions)."""
    words = 2 * (n + 1)
    key_cells = [f"({k // 2})" for k in range(words)]
    response_cells = list(key_cells)
    for k in range(1, n + 1):
        response_cells[2 * k + 1] = f"(0)|({k})"

    def write(cells: list[str], name: str) -> Path:
        lines = ["#begin document (d); part 000"]
        lines += ["\t".join(["d", "0", str(i), f"w{i}", "-", "-", "-", "-", "-", "-", "-", c])
                  for i, c in enumerate(cells)]
        path = tmp_path / name
        path.write_text("\n".join(lines + ["", "#end document", ""]), encoding="utf-8")
        return path

    return write(key_cells, "key.conll"), write(response_cells, "response.conll")


def test_more_than_ten_repeats_a_warning_that_counts_them_and_strict_refuses(tmp_path, cli):
    key, response = _many_repeats(tmp_path, 11)
    report = Report()
    corefio.score(key, response, ["muc"], report=report)
    (warning,) = report.by_code("score.scorer-refuses")
    assert warning.count == 11 and "11 repeated response mentions" in warning.message
    assert cli("score", key, response, "-m", "muc").exit_code == 0
    assert cli("score", key, response, "-m", "muc", "--strict").exit_code == 5
    key, response = _many_repeats(tmp_path, 10)
    report = Report()
    corefio.score(key, response, ["muc"], report=report)
    assert not report.by_code("score.scorer-refuses")
    assert report.by_code("score.duplicate-mention")[0].count == 10


def test_the_corefud_rule_keeps_a_repeated_span_in_the_last_chain():
    result = corefio.score(REPEATS / "key.conll", REPEATS / "response.conll", ["muc"], repeats="corefud")
    default = corefio.score(REPEATS / "key.conll", REPEATS / "response.conll", ["muc"])
    assert result["muc"] != default["muc"]
    with pytest.raises(corefio.errors.UsageError):
        corefio.score(REPEATS / "key.conll", REPEATS / "response.conll", ["muc"], repeats="coval")


# -- spans repeated in the KEY: scorer.pl's numbers by default, corefud-scorer's with its rule -------
#: hand-built cases (tests/data/scorer-repeats/make_keys.py) and a realistic one of three documents
KEY_REPEATS = SCORER_REPEATS / "key_repeats.json"
REALISTIC = REPEATS / "realistic.json"
JUDGED_KEYS = {name: (SCORER_REPEATS / name, case) for name, case in
               json.loads(KEY_REPEATS.read_text(encoding="utf-8"))["cases"].items()}
JUDGED_KEYS.update({name: (REPEATS / name, case) for name, case in
                    json.loads(REALISTIC.read_text(encoding="utf-8"))["cases"].items()})
#: the repeated key spans of each case (what the warning counts)
REPEATED_KEY_SPANS = {"key-repeats/minimal": 1, "key-repeats/twice-in-one": 2, "key-repeats/both": 2, "realistic": 3}
SCORER_METRICS = "muc,bcub,ceafm,ceafe,blanc"
COREFUD_METRICS = ["muc", "bcub", "ceafe", "ceafm", "blanc", "lea"]


def test_the_stored_judges_are_the_pinned_ones():
    for path in (KEY_REPEATS, REALISTIC):
        judges = json.loads(path.read_text(encoding="utf-8"))["judges"]
        assert judges["scorer.pl"]["commit"] == "f49f3f8a0e1cdc5ceba7c2a33013897369df5543"
        assert judges["corefud-scorer"]["commit"] == "4fd7b0e0c661aeeff88bc60c19ef507b84d1b590"
        assert judges["coval"]["commit"] == "87071a6293dc2e786dcfe2ed78e9369c17e41b3b"
    assert set(JUDGED_KEYS) == set(REPEATED_KEY_SPANS)


def _pair(folder: Path, fmt: str, tmp_path: Path) -> tuple[Path, Path]:
    """The case's key and response in ``fmt``: CoNLL and CoNLL-U as stored, jsonlines and
    RAF written by corefio from the CoNLL files."""
    if fmt in ("conll", "conllu"):
        return folder / f"key.{fmt}", folder / f"response.{fmt}"
    out = []
    for side in ("key", "response"):
        target = tmp_path / f"{side}.{'raf.xml' if fmt == 'raf' else fmt}"
        corefio.write(corefio.read(folder / f"{side}.conll"), target)
        out.append(target)
    return out[0], out[1]


def _transcript_lines(text: str) -> tuple[list[str], list[str]]:
    """A transcript's lines, and apart the "Repeated mention" ones sorted: scorer.pl prints
    those of each document in the order of a Perl hash (which changes from run to run)."""
    lines = text.split("\n")
    repeated = [x for x in lines if x.startswith("Repeated mention in the")]
    return [x for x in lines if not x.startswith("Repeated mention in the")], sorted(repeated)


@pytest.mark.parametrize("fmt", ["conll", "jsonlines", "raf", "conllu"])
@pytest.mark.parametrize("name", sorted(JUDGED_KEYS))
def test_repeated_key_spans_score_as_scorer_pl_in_every_format(name, fmt, tmp_path):
    """A key span in two chains (or twice in one): scorer.pl counts it in every chain
    that lists it and pairs a response mention with the last of them only; corefio gives
    its numbers by default, whatever the format, and a warning that counts the spans."""
    folder, case = JUDGED_KEYS[name]
    key, response = _pair(folder, fmt, tmp_path)
    report = Report()
    result = corefio.score(key, response, METRICS, report=report, keep_zeros=True)
    _check_scorer_pl(result, case["scorer.pl"]["scores"])
    (warning,) = report.by_code("score.duplicate-key-span")
    assert warning.count == REPEATED_KEY_SPANS[name]
    assert "scorer.pl" in warning.message and "--repeats corefud" in warning.message


@pytest.mark.parametrize("fmt", ["conll", "jsonlines", "raf"])
@pytest.mark.parametrize("name", sorted(JUDGED_KEYS))
def test_format_scorer_prints_what_scorer_pl_prints(name, fmt, tmp_path, cli):
    """``corefio score --format scorer`` prints scorer.pl's ``all`` output (its first line,
    the version and the folder it ran from, aside), "Repeated mention" lines included."""
    folder, case = JUDGED_KEYS[name]
    key, response = _pair(folder, fmt, tmp_path)
    result = cli("score", key, response, "-m", SCORER_METRICS, "--format", "scorer")
    assert result.exit_code == 0
    printed = case["scorer.pl"]["transcript"]
    assert printed.startswith("\nMETRIC muc:\n")
    if name != "realistic":
        assert result.stdout == printed[1:]
    else:  # several documents
        assert _transcript_lines(result.stdout) == _transcript_lines(printed[1:])
    assert "warning[score.duplicate-key-span]" in result.stderr


def test_a_perfect_response_to_a_key_with_a_span_in_two_chains_scores_as_scorer_pl(cli):
    """The newcomer's minimal case: "John" in two key chains, the response equal to the
    key. scorer.pl: MUC 0, B³ 62.5, CEAFe 83.33, BLANC 66.66; corefud-scorer and coval:
    MUC 50, B³ 75."""
    folder = SCORER_REPEATS / "key-repeats" / "minimal"
    result = corefio.score(folder / "key.conll", folder / "key.conll", ["muc", "bcub", "ceafe", "blanc"])
    assert (result["muc"].recall, result["muc"].precision) == (0, 0)
    assert result["bcub"].f1 == Fraction(5, 8)
    assert result["ceafe"].f1 == Fraction(5, 6)
    assert result["blanc"].f1 == Fraction(2, 3)
    text = cli("score", folder / "key.conll", folder / "key.conll", "-m", "muc", "--format", "scorer").stdout
    assert "Repeated mention in the key: 0, 0 02\nRepeated mention in the response: 0, 0 22\n" in text
    assert "Coreference: Recall: (0 / 2) 0%\tPrecision: (0 / 1) 0%\tF1: 0%" in text
    corefud = corefio.score(folder / "key.conll", folder / "key.conll", ["muc", "bcub"], repeats="corefud")
    assert (corefud["muc"].f1, corefud["bcub"].f1) == (Fraction(1, 2), Fraction(3, 4))


@pytest.mark.parametrize("fmt", ["conllu", "conll", "jsonlines", "raf"])
@pytest.mark.parametrize("name", sorted(JUDGED_KEYS))
def test_repeated_key_spans_score_as_corefud_scorer_with_its_rule(name, fmt, tmp_path):
    """``repeats="corefud"``: corefud-scorer's recall side counts a repeated key span in
    each key entity that lists it, its precision side in the last; its values (exact
    matching, singletons kept), whatever the format."""
    folder, case = JUDGED_KEYS[name]
    key, response = _pair(folder, fmt, tmp_path)
    result = corefio.score(key, response, COREFUD_METRICS, repeats="corefud", keep_zeros=True, report=Report())
    for metric, values in case["corefud-scorer"]["values"].items():
        got = result[metric]
        assert [float(got.recall), float(got.precision), float(got.f1)] == pytest.approx(values, abs=1e-9), metric


@pytest.mark.parametrize("name", sorted(JUDGED_KEYS))
def test_the_cli_with_repeats_corefud_gives_corefud_scorers_values(name, cli):
    folder, case = JUDGED_KEYS[name]
    result = cli("score", folder / "key.conllu", folder / "response.conllu", "--repeats", "corefud", "-m",
                 ",".join(COREFUD_METRICS), "--keep-zeros", "--format", "json")
    assert result.exit_code == 0
    corpus = json.loads(result.stdout)["corpus"]
    for metric, values in case["corefud-scorer"]["values"].items():
        got = corpus[metric]
        assert [got["recall"]["value"], got["precision"]["value"], got["f1"]] == pytest.approx(values, abs=1e-9)
    assert "Repeated mention" not in cli("score", folder / "key.conllu", folder / "response.conllu", "--repeats",
                                         "corefud", "-m", "muc", "--format", "scorer").stdout


@pytest.mark.parametrize("name", ["key-repeats/minimal", "key-repeats/both"])
def test_coval_counts_a_span_in_two_key_entities_as_corefud_scorer(name):
    """coval (whose evaluator corefud-scorer took over) gives corefud-scorer's MUC, B³,
    CEAFe and LEA where no entity lists a span twice (it keeps such a repeat, which
    corefud-scorer counts once: README's conformance notes)."""
    folder, case = JUDGED_KEYS[name]
    result = corefio.score(folder / "key.conll", folder / "response.conll", ["muc", "bcub", "ceafe", "lea"],
                           repeats="corefud", report=Report())
    for metric in ("muc", "bcub", "ceafe", "lea"):
        got = result[metric]
        assert [float(got.recall), float(got.precision), float(got.f1)] == \
            pytest.approx(case["coval"]["values"][metric], abs=1e-9), metric


def test_key_repeats_in_two_processes_give_the_same_scores_and_transcript():
    folder = REPEATS / "realistic"
    one = corefio.score(folder / "key.conll", folder / "response.conll", METRICS, workers=1, report=Report())
    two = corefio.score(folder / "key.conll", folder / "response.conll", METRICS, workers=2, report=Report())
    assert one.to_dict()["corpus"] == two.to_dict()["corpus"]
    assert one.to_text() == two.to_text()
    per_document = corefio.score(folder / "key.conll", folder / "response.conll", ["muc"], per_document=True,
                                 report=Report()).to_text(per_document=True)
    assert per_document.count("Repeated mention in the key") == 4  # its documents: 1 + 2 + 1 listings
