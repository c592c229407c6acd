"""brat standoff: LitBank read and scored against its CoNLL, byte-exact round trip,
the relation style, discontinuous spans, attributes, notes and bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import corefio
from corefio.errors import CorefioError, FormatError

DATA = Path(__file__).parent / "data" / "brat"
ALICE = "11_alices_adventures_in_wonderland_brat"
LITBANK_TSV = DATA / "litbank_tsv"


def _pair(tmp_path: Path, ann: str, txt: str, name: str = "doc") -> Path:
    (tmp_path / f"{name}.ann").write_text(ann, encoding="utf-8")
    (tmp_path / f"{name}.txt").write_text(txt, encoding="utf-8")
    return tmp_path / f"{name}.ann"


def test_litbank_brat_scores_100_percent_against_its_conll():
    doc = corefio.read(DATA / f"{ALICE}.ann").documents[0]
    key = corefio.read(DATA / f"{ALICE}.conll").documents[0]
    assert doc.tokens.forms == key.tokens.forms
    assert (len(doc.markables), len(doc.chains())) == (226, 53)
    scores = corefio.score(key, doc.copy(part=key.part), ["muc", "bcub", "ceafe"])
    for metric in ("muc", "bcub", "ceafe"):
        s = scores.corpus[metric]
        assert s.recall_num == s.recall_den and s.precision_num == s.precision_den and s.recall_den > 0


def test_litbank_brat_round_trip_is_byte_exact():
    corpus = corefio.read(DATA / f"{ALICE}.ann")
    files = corefio.dump_files(corpus, "brat")
    assert files[f"{ALICE}.ann"] == (DATA / f"{ALICE}.ann").read_bytes()
    assert files[f"{ALICE}.txt"] == (DATA / f"{ALICE}.txt").read_bytes()


def test_a_directory_of_pairs_is_a_brat_corpus(tmp_path):
    shutil.copy(DATA / f"{ALICE}.ann", tmp_path)
    shutil.copy(DATA / f"{ALICE}.txt", tmp_path)
    assert corefio.get_format("brat") is corefio.formats.registry.detect_format(tmp_path)
    assert [d.name for d in corefio.read(tmp_path)] == [ALICE]


RELATIONS = (
    "T1\tPerson 0 5\tAlice\n"
    "T2\tPerson 10 13;18 24\ther sister\n"
    "T3\tPerson 26 29\tshe\n"
    "T4\tPerson 31 35\tBill\n"
    "R1\tCoreference Arg1:T3 Arg2:T1\n"
    "*\tCoreference T4 T2\n"
    "R2\tPart-of Arg1:T2 Arg2:T1\n"
    "A1\tNegation T4\n"
    "A2\tNumber T2 singular\n"
    "M3\tConfidence R2 high\n"
    "E1\tMeeting:T4 Agent:T1\n"
    "#1\tAnnotatorNotes T1\tthe heroine\n"
    "N1\tReference T1 Wikipedia:12345\tAlice\n"
)
TEXT = "Alice met her  ...sister, she, Bill.\n"


def test_relation_style_discontinuous_spans_attributes_and_notes(tmp_path):
    doc = corefio.read(_pair(tmp_path, RELATIONS, TEXT)).documents[0]
    by_id = {m.id: m for m in doc.markables}
    assert doc.markable_text(by_id["T2"]) == "her … sister"
    assert by_id["T2"].is_discontinuous
    assert by_id["T4"].attributes == {"type": "Person", "Negation": True}
    assert by_id["T2"].attributes["Number"] == "singular"
    assert by_id["T1"].attributes["AnnotatorNotes"] == "the heroine"
    chains = sorted(sorted(m.id for m in chain) for chain in doc.chains() if len(chain) > 1)
    assert chains == [["T1", "T3"], ["T2", "T4"]]
    part_of = [link for link in doc.links if link.type == "Part-of"]
    assert [(link.source, link.targets, link.attributes) for link in part_of] == [
        ("T2", ("T1",), {"Confidence": "high"})]
    files = corefio.dump_files(doc, "brat")
    assert files["doc.ann"].decode() == RELATIONS and files["doc.txt"].decode() == TEXT


def test_a_blank_line_is_skipped_with_a_warning_and_a_tab_stays_in_the_text_field(tmp_path):
    from corefio.diagnostics import Report

    report = Report()
    doc = corefio.read(_pair(tmp_path, "T1\tPerson 0 7\tAl\tice\n\nT2\tPerson 8 11\tshe\n", "Al\tice she\n"),
                       "brat", report=report).documents[0]
    assert [m.id for m in doc.markables] == ["T1", "T2"]
    assert [d.line for d in report.by_code("brat.blank-line")] == [2]
    assert corefio.dump_files(doc, "brat")["doc.ann"].decode() == "T1\tPerson 0 7\tAl\tice\nT2\tPerson 8 11\tshe\n"


def test_the_punctuation_option_cuts_words_from_punctuation(tmp_path):
    path = _pair(tmp_path, "T1\tPerson 0 5\tAlice\n", "Alice's cat, Dinah.\n")
    assert corefio.read(path, "brat").documents[0].tokens.forms == ["Alice", "'s", "cat,", "Dinah."]
    punct = corefio.read(path, "brat", tokens="punctuation").documents[0]
    assert punct.tokens.forms == ["Alice", "'", "s", "cat", ",", "Dinah", "."]
    assert punct.markable_text(punct.markables[0]) == "Alice"
    with pytest.raises(corefio.errors.UsageError):
        corefio.read(path, "brat", tokens="characters")


def test_a_document_without_text_comes_back_as_its_tokens():
    conll = corefio.read(DATA / f"{ALICE}.conll").documents[0]
    files = corefio.dump_files(conll, "brat")
    name = next(n for n in files if n.endswith(".ann"))
    assert files[name].decode().startswith("#0\tcorefio-tokens\t")


@pytest.mark.parametrize("ann, txt, message, line", [
    ("T1\tPerson 0 50\tAlice\n", "Alice\n", "outside the text", 1),
    ("T1\tPerson 0 5\tAlice\nT1\tPerson 0 5\tAlice\n", "Alice\n", "duplicate annotation id T1", 2),
    ("T1\tPerson 0 5\tAlice\nR1\tCoref Arg1:T1 Arg2:T9\n", "Alice\n", "T9 is no annotation of this file", 2),
    ("T1\tPerson zero 5\tAlice\n", "Alice\n", "not 'START END'", 1),
    # found by the fuzzer: an offset of 5,000 digits raised int()'s ValueError
    ("T1\tPerson 0 5\tAlice\nT2\tPerson " + "9" * 5000 + " 5\tx\n", "Alice\n", "outside the text", 2),
    ("T1\tPerson 0 5\tAlice\nA1\tNegation T7\n", "Alice\n", "T7 is no annotation of this file", 2),
    ("T1\tPerson 0 5\tAlice\nE1\tMeet:T1 Agent:E9\n", "Alice\n", "E9 is no annotation of this file", 2),
    ("T1\tPerson 0 5\tAlice\nE1\tMeet T1\n", "Alice\n", "an event needs", 2),
    ("T1\tPerson 0 5\tAlice\nN1\tReference T1\n", "Alice\n", "a normalisation needs", 2),
    ("T1\tPerson 0 5\tAlice\nR1\tCoref Arg1:T1\n", "Alice\n", "a relation needs", 2),
    ("X1\tPerson 0 5\tAlice\n", "Alice\n", "not a brat annotation id", 1),
    ("MENTION\tT1\t0\t0\t0\t0\tAlice\tPER\tPROP\n", "Alice\n", "LitBank's TSV", 1),
    # issue 20's hostile inputs: offsets out of range, overlapping fragments, empty spans
    ("T1\tPerson 0 5\tAlice\nT2\tPerson 3 9\tce\n", "Alice\n", "outside the text", 2),
    ("T1\tPerson 0 3;2 5\tAlice\n", "Alice\n", "without overlap", 1),
    ("T1\tPerson 3 3\t\n", "Alice\n", "or empty", 1),
    ("T1\tPerson 5 6\t\n", "Alice \n", "cover only whitespace", 1),
    ("T1\tPerson\tAlice\n", "Alice\n", "needs 'TYPE START END'", 1),
])
def test_bad_annotations_are_located_errors(tmp_path, ann, txt, message, line):
    with pytest.raises(FormatError) as caught:
        corefio.read(_pair(tmp_path, ann, txt), "brat")
    assert message in str(caught.value) and caught.value.line == line
    assert str(caught.value.file).endswith("doc.ann")


def test_a_missing_text_file_is_a_located_error(tmp_path):
    (tmp_path / "doc.ann").write_text("T1\tPerson 0 5\tAlice\n")
    with pytest.raises(CorefioError, match="doc.txt is missing"):
        corefio.read(tmp_path / "doc.ann", "brat")


def test_cli_exit_code_3_on_bad_brat(tmp_path):
    from typer.testing import CliRunner

    from corefio.cli import app

    ann = _pair(tmp_path, "T1\tPerson 0 50\tAlice\n", "Alice\n")
    result = CliRunner().invoke(app, ["info", str(ann)])
    assert result.exit_code == 3, result.output
    result = CliRunner().invoke(app, ["formats"])
    assert "brat" in result.output and "webanno-tsv" in result.output


# -- LitBank's TSV --------------------------------------------------------------------------
def test_litbank_tsv_is_the_same_annotation_as_litbank_brat():
    tsv = corefio.read(LITBANK_TSV / f"{ALICE}.ann").documents[0]
    assert corefio.formats.registry.detect_format(LITBANK_TSV).name == "litbank-tsv"
    brat = corefio.read(DATA / f"{ALICE}.ann").documents[0]
    assert corefio.formats.registry.detect_format(LITBANK_TSV / f"{ALICE}.ann").name == "litbank-tsv"
    assert tsv.tokens.forms == brat.tokens.forms
    scores = corefio.score(brat, tsv.copy(name=brat.name), ["muc", "bcub", "ceafe"])
    for metric in ("muc", "bcub", "ceafe"):
        s = scores.corpus[metric]
        assert s.recall_num == s.recall_den and s.precision_num == s.precision_den and s.recall_den > 0
    assert sorted((m.spans, m.attributes["type"]) for m in tsv.markables) == \
        sorted((m.spans, m.attributes["type"]) for m in brat.markables)
    # brat → LitBank TSV gives LitBank's own rows (in another order)
    files = corefio.dump_files(corefio.read(DATA / f"{ALICE}.ann"), "litbank-tsv")
    assert sorted(files[f"{ALICE}.ann"].decode().splitlines()) == \
        sorted((LITBANK_TSV / f"{ALICE}.ann").read_text(encoding="utf-8").splitlines())


def test_litbank_tsv_round_trip_is_byte_exact():
    files = corefio.dump_files(corefio.read(LITBANK_TSV / f"{ALICE}.ann"), "litbank-tsv")
    assert files[f"{ALICE}.ann"] == (LITBANK_TSV / f"{ALICE}.ann").read_bytes()
    assert files[f"{ALICE}.txt"] == (LITBANK_TSV / f"{ALICE}.txt").read_bytes()


def test_litbank_tsv_copula_and_apposition_are_typed_links(tmp_path):
    ann = ("MENTION\tT1\t0\t0\t0\t0\tAlice\tPER\tPROP\nMENTION\tT2\t0\t2\t0\t3\ta girl\tPER\tNOM\n"
           "COREF\tT1\tAlice-1\nCOREF\tT2\ta_girl-2\nCOP\tT1\tT2\n")
    path = _pair(tmp_path, ann, "Alice is a girl .\n")
    doc = corefio.read(path, "litbank-tsv").documents[0]
    assert [(link.type, link.source, link.targets) for link in doc.links] == [("cop", "T1", ("T2",))]
    assert len(doc.chains()) == 2
    assert corefio.dump_files(doc, "litbank-tsv")["doc.ann"].decode() == ann


@pytest.mark.parametrize("ann, message, line", [
    ("MENTION\tT1\t0\t0\t0\t9\tAlice\tPER\tPROP\n", "token 9 is outside sentence 0", 1),
    ("MENTION\tT1\t4\t0\t4\t0\tAlice\tPER\tPROP\n", "sentence 4", 1),
    ("MENTION\tT1\t0\t0\t0\t0\tAlice\tPER\n", "9 fields", 1),
    ("MENTION\tT1\t0\t0\t0\t0\tAlice\tPER\tPROP\nCOREF\tT7\tx-1\n", "no MENTION row", 2),
    ("MENTION\tT1\t0\t0\t0\t0\tAlice\tPER\tPROP\nMENTION\tT1\t0\t1\t0\t1\tis\tPER\tPROP\n", "duplicate", 2),
    ("MENTION\tT1\t0\t0\t0\t0\tAlice\tPER\tPROP\nCOP\tT1\tT5\n", "T5 is no mention", 2),
    # issue 20's hostile inputs: column counts, positions out of range
    ("MENTION\tT1\t0\t0\t0\t0\tAlice\tPER\tPROP\textra\n", "9 fields, not 10", 1),
    ("MENTION\tT1\t0\t0\t0\t0\tAlice\tPER\tPROP\nCOREF\tT1\n", "3 fields, not 2", 2),
    ("MENTION\tT1\t0\t0\t0\t0\tAlice\tPER\tPROP\nCOREF\tT1\tx-1\tmore\n", "3 fields, not 4", 2),
    ("MENTION\tT1\t0\t0\t0\t0\tAlice\tPER\tPROP\nCOP\tT1\n", "not 'COP' with 2", 2),
    ("MENTION\tT1\t0\t-1\t0\t0\tAlice\tPER\tPROP\n", "token -1 is outside", 1),
    ("MENTION\tT1\t0\t2\t0\t1\tAlice\tPER\tPROP\n", "ends before it starts", 1),
    ("MENTION\tT1\tzero\t0\t0\t0\tAlice\tPER\tPROP\n", "must be integers", 1),
    ("MENTION\tT1\t0\t0\t0\t0\tAlice\tPER\tPROP\nCOREF\tT1\tx-1\nCOREF\tT1\tx-2\n", "two COREF rows", 3),
])
def test_bad_litbank_rows_are_located_errors(tmp_path, ann, message, line):
    with pytest.raises(FormatError) as caught:
        corefio.read(_pair(tmp_path, ann, "Alice is a girl .\n"), "litbank-tsv")
    assert message in str(caught.value) and caught.value.line == line


def test_a_text_file_linked_out_of_the_directory_is_refused(tmp_path):
    from corefio.errors import UnsafeInputError

    outside = tmp_path / "secret.txt"
    outside.write_text("Alice\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "doc.ann").write_text("T1\tPerson 0 5\tAlice\n")
    (project / "doc.txt").symlink_to(outside)
    for source in (project, project / "doc.ann"):
        with pytest.raises(UnsafeInputError):
            corefio.read(source, "brat")


def test_cli_converts_brat_to_webanno_and_back(tmp_path):
    from typer.testing import CliRunner

    from corefio.cli import app

    runner = CliRunner()
    tsv = tmp_path / "alice.tsv"
    result = runner.invoke(app, ["convert", str(DATA / f"{ALICE}.ann"), str(tsv)])
    assert result.exit_code == 0, result.output
    back = tmp_path / "back"
    result = runner.invoke(app, ["convert", str(tsv), str(back), "--to", "brat"])
    assert result.exit_code == 0, result.output
    original = corefio.read(DATA / f"{ALICE}.ann").documents[0]
    again = corefio.read(back).documents[0]
    scores = corefio.score(original, again.copy(name=original.name), ["muc", "bcub"])
    assert all(s.recall_num == s.recall_den and s.precision_num == s.precision_den
               for s in scores.corpus.values())


# -- markables of other layers ------------------------------------------------------------------
def _two_layers():
    """Kim saw Lee . He left : a mention of entity 1, a markable of layer ``secmark`` of
    the same id in its chain, and one in no chain."""
    from corefio.model import Document, Markable, Sentence, Tokens

    return Document(name="d", tokens=Tokens(forms=["Kim", "saw", "Lee", ".", "He", "left"]),
                    sentences=[Sentence(first=0, last=3), Sentence(first=4, last=5)],
                    markables=[Markable(id="markable_1", spans=((0, 0),), entity="Kim-1"),
                               Markable(id="markable_1", layer="secmark", spans=((4, 4),), entity="Kim-1"),
                               Markable(id="markable_2", layer="secmark", spans=((2, 2),))])


@pytest.mark.parametrize("fmt", ["brat", "litbank-tsv"])
def test_a_markable_of_another_layer_is_written_only_when_in_a_chain(fmt, tmp_path):
    """Found by the conversion matrix (gum-mmax2): every markable of every layer was
    written as a mention (and LitBank's TSV wrote markable_1 twice, which it refuses)."""
    from corefio.diagnostics import Report

    report = Report()
    for name, data in corefio.dump_files(_two_layers(), fmt, report=report).items():
        (tmp_path / name).write_bytes(data)
    back = corefio.read(tmp_path / "d.ann", fmt).documents[0]
    assert sorted(m.spans for m in back.markables) == [((0, 0),), ((4, 4),)]
    assert len({m.id for m in back.markables}) == 2
    assert [sorted(m.spans for m in chain) for chain in back.chains()] == [[((0, 0),), ((4, 4),)]]
    assert [(d.code, d.count) for d in report if d.code == "loss.layers"] == [("loss.layers", 2)]


# -- entity ids -----------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt, source", [("brat", DATA / f"{ALICE}.ann"), ("litbank-tsv", LITBANK_TSV / f"{ALICE}.ann")])
def test_chain_labels_written_back_are_no_loss(fmt, source):
    """Found by the conversion matrix: writing LitBank in its own format reported the
    entity ids lost (loss.entity-ids, a warning) though its chain labels came back."""
    from corefio.diagnostics import Report

    report = Report()
    doc = corefio.read(source, fmt).documents[0]
    corefio.dump_files(doc, fmt, report=report)
    assert [d.code for d in report if d.code.startswith("loss.")] == []


def _entities(*labels: str):
    from corefio.model import Document, Markable, Tokens

    return Document(name="d", tokens=Tokens(forms=["Kim", "saw", "Lee", "and", "Sam"]),
                    markables=[Markable(id=f"T{k + 1}", spans=((2 * k, 2 * k),), entity=label)
                               for k, label in enumerate(labels)])


def _written_and_read(doc, fmt, tmp_path):
    from corefio.diagnostics import Report

    report = Report()
    for name, data in corefio.dump_files(doc, fmt, report=report).items():
        (tmp_path / name).write_bytes(data)
    return corefio.read(tmp_path / "d.ann", fmt).documents[0], report


def test_brat_keeps_chain_labels_and_reports_the_entity_ids_it_changes(tmp_path):
    back, report = _written_and_read(_entities("Kim-1", "the person", "7"), "brat", tmp_path)
    assert [m.entity for m in back.markables] == ["Kim-1", "the_person-0", "7-0"]
    [lost] = [d for d in report if d.code.startswith("loss.")]
    assert (lost.code, lost.count, lost.severity) == ("loss.label", 2, "warning")
    _, report = _written_and_read(_entities("3", "7"), "brat", tmp_path)
    assert [(d.code, d.severity) for d in report if d.code.startswith("loss.")] == [("loss.label", "info")]


def test_litbank_tsv_keeps_entity_ids_and_reports_those_of_joined_or_blank_entities(tmp_path):
    from corefio.model import Link

    doc = _entities("Kim-1", "the person", "Sam-3").model_copy(update={"links": [
        Link(id="l1", type="coreference", source="T3", target="T1")]})
    back, report = _written_and_read(doc, "litbank-tsv", tmp_path)
    assert sorted(m.entity for m in back.markables) == ["Kim-1", "Kim-1", "the_person"]
    [label] = [d for d in report if d.code == "loss.label"]
    assert (label.count, label.severity) == (2, "warning")
    back, report = _written_and_read(_entities("Kim-1", "Lee-2", None), "litbank-tsv", tmp_path)
    # a singleton without an entity id gets no COREF row (as LitBank writes some)
    assert [m.entity for m in back.markables] == ["Kim-1", "Lee-2", None]
    assert [d.code for d in report if d.code.startswith("loss.")] == []
    doc = _entities(None, None, None).model_copy(update={"links": [
        Link(id="l1", type="coreference", source="T3", target="T1")]})
    back, report = _written_and_read(doc, "litbank-tsv", tmp_path)
    assert [m.entity for m in back.markables] == ["chain-1", None, "chain-1"]


@pytest.mark.parametrize("fmt", ["brat", "litbank-tsv"])
def test_a_text_that_does_not_give_its_tokens_back_is_written_from_the_tokens(fmt, tmp_path):
    """Found by tests/test_muc.py (MUC → brat → MUC): the MUC text, markup and all, was
    written as the .txt, and cut at whitespace it gave other tokens ("<s>", "(CW)")."""
    from corefio.model import Document, Markable, Sentence, Tokens

    text = "<s> Kim (CW) left . </s>\n"
    forms = ["Kim", "(", "CW", ")", "left", "."]
    starts = [text.index("Kim"), 8, 9, 11, text.index("left"), text.index(" .") + 1]
    doc = Document(name="d", text=text, tokens=Tokens(forms=forms, offsets=[(a, a + len(f)) for a, f in zip(starts, forms)]),
                   sentences=[Sentence(first=0, last=5)],
                   markables=[Markable(id="T1", spans=((0, 0),), entity="Kim-1"),
                              Markable(id="T2", spans=((2, 2),), entity="Kim-1")])
    back, report = _written_and_read(doc, fmt, tmp_path)
    assert back.tokens.forms == forms
    assert [m.spans for m in back.markables] == [((0, 0),), ((2, 2),)]
    assert [d.code for d in report if d.code.startswith("loss.")] == ["loss.text"]
def test_litbank_tsv_labels_for_unnamed_chains_differ_from_the_named_ones(tmp_path):
    """Found by the fuzzer: a singleton written as ``chain-4`` joined the chain already
    called ``chain-4``."""
    (tmp_path / "d.txt").write_text("a b c d e\n", encoding="utf-8")
    (tmp_path / "d.ann").write_text("MENTION\t1\t0\t0\t0\t0\ta\t_\t_\nMENTION\t2\t0\t1\t0\t1\tb\t_\t_\n"
                                    "MENTION\t3\t0\t2\t0\t2\tc\t_\t_\nMENTION\t4\t0\t3\t0\t3\td\t_\t_\n"
                                    "COREF\t4\tchain-3\n", encoding="utf-8")
    doc = corefio.read(tmp_path, "litbank-tsv").documents[0]
    out = tmp_path / "out"
    corefio.write(doc, out, "litbank-tsv")
    back = corefio.read(out, "litbank-tsv").documents[0]
    spans = lambda d: sorted(sorted(m.spans for m in chain) for chain in d.chains())  # noqa: E731
    assert spans(back) == spans(doc) == [[((0, 0),)], [((1, 1),)], [((2, 2),)], [((3, 3),)]]


def test_litbank_tsv_reading_grows_linearly_with_the_lines(tmp_path):
    """Found by the fuzzer: each line's length was looked up among all the sentences
    (150 KB of text with many short lines: 5 s)."""
    from .opcount import grows_linearly

    ann = "MENTION\tT1\t0\t0\t0\t0\ta\t_\t_\nCOREF\tT1\tA-1\n"

    def read(text: str) -> object:
        folder = tmp_path / str(len(text))
        folder.mkdir(exist_ok=True)
        (folder / "d.txt").write_text(text, encoding="utf-8")
        (folder / "d.ann").write_text(ann, encoding="utf-8")
        return corefio.read(folder, "litbank-tsv")

    ok, small, large = grows_linearly(read, lambda size: "a b\n" * (size // 4), size=4000)
    assert ok, f"{small} Python lines, then {large} for 8 times the input"
