"""brat and LitBank TSV hardening: the reproducers of the fuzz campaigns (each test named
by its folder in tests/data/regressions), every standoff line type brat defines, brat
collection folders, document names the writers change, and what a writer could write
that its reader would read otherwise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import corefio
from corefio.diagnostics import Report
from corefio.model import Document, Link, Markable, Sentence, Tokens

REGRESSIONS = Path(__file__).parent / "data" / "regressions"


def _pair(folder: Path, ann: str, txt: str, name: str = "doc") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.ann").write_bytes(ann.encode("utf-8"))
    (folder / f"{name}.txt").write_bytes(txt.encode("utf-8"))
    return folder / f"{name}.ann"


def _write_and_read(doc_or_corpus, fmt: str, folder: Path):
    report = Report()
    files = corefio.dump_files(doc_or_corpus, fmt, report=report)
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return corefio.read(folder, fmt), report, files


def _chains(doc) -> list:
    return sorted(sorted(m.spans for m in chain) for chain in doc.chains())


# -- the reproducers ------------------------------------------------------------------------------
def test_R02_brat_chainlabel_roundtrip(tmp_path):
    """A ``T`` of type ``1-0`` over "_ " and one of type ``n`` over "_": written back, the
    first one's offsets were trimmed to the word, so it read back as the chain label of the
    second (two mentions became one, no loss said)."""
    source = REGRESSIONS / "R02_brat_chainlabel_roundtrip"
    doc = corefio.read(source / "a.ann", "brat").documents[0]
    assert sorted((m.id, m.attributes.get("type"), m.entity) for m in doc.markables) == [
        ("T2", "n", None), ("T8", "1-0", None)]
    back, report, files = _write_and_read(doc, "brat", tmp_path / "out")
    assert files == {"a.ann": (source / "a.ann").read_bytes(), "a.txt": (source / "a.txt").read_bytes()}
    assert len(back.documents[0].markables) == 2 and [d for d in report if d.code.startswith("loss.")] == []


def test_R02_a_mention_typed_like_a_chain_label_is_no_label_when_written_without_layout(tmp_path):
    """The same defect from a document of another format (no brat layout to keep the
    offsets): two markables over one word, one of type ``1-0``, one of them with an
    entity."""
    doc = Document(name="d", tokens=Tokens(forms=["_", "x"]), sentences=[Sentence(first=0, last=1)],
                   markables=[Markable(id="m1", spans=((0, 0),), attributes={"type": "1-0"}),
                              Markable(id="m2", spans=((0, 0),), attributes={"type": "n"}),
                              Markable(id="m3", spans=((1, 1),), entity="Kim-1", attributes={"type": "2-5"})])
    corpus, report, _ = _write_and_read(doc, "brat", tmp_path / "out")
    back = corpus.documents[0]
    assert sorted((m.spans, m.attributes.get("type"), m.entity) for m in back.markables) == [
        (((0, 0),), "1-0_", None), (((0, 0),), "n", None), (((1, 1),), "2-5_", "Kim-1")]
    [lost] = [d for d in report if d.code == "loss.value"]
    assert lost.count == 2 and "1-0 → 1-0_" in " ".join(lost.examples)


def test_R02_a_labelled_mention_after_an_unlabelled_one_at_the_same_offsets_keeps_its_label(tmp_path):
    """Labels pair with the first mention at their offsets: the writer puts the labelled
    one first."""
    doc = Document(name="d", tokens=Tokens(forms=["Kim", "left"]), sentences=[Sentence(first=0, last=1)],
                   markables=[Markable(id="T1", spans=((0, 0),), attributes={"type": "PER"}),
                              Markable(id="T2", spans=((0, 0),), entity="Kim-1", attributes={"type": "NOM"}),
                              Markable(id="T3", spans=((1, 1),), entity="Kim-1")])
    corpus, report, _ = _write_and_read(doc, "brat", tmp_path / "out")
    back = corpus.documents[0]
    assert sorted((m.id, m.entity) for m in back.markables) == [("T1", None), ("T2", "Kim-1"), ("T3", "Kim-1")]
    assert [d.code for d in report if d.code.startswith("loss.")] == []


_TYPES = st.sampled_from([None, "PER", "1-0", "Kim-2", "Mention"])
_ENTITIES = st.sampled_from([None, None, "Kim-1", "Lee-2", "3"])


@st.composite
def _crowded(draw) -> Document:
    """Documents whose markables share spans, with types that look like chain labels."""
    markables = []
    for k in range(draw(st.integers(1, 6))):
        a = draw(st.integers(0, 2))
        b = draw(st.integers(a, 2))
        type_ = draw(_TYPES)
        markables.append(Markable(id=f"T{k + 1}", spans=((a, b),), entity=draw(_ENTITIES),
                                  attributes={"type": type_} if type_ else {}))
    return Document(name="d", tokens=Tokens(forms=["a", "b", "c"]), sentences=[Sentence(first=0, last=2)],
                    markables=markables)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=_crowded())
def test_R02_property_written_mentions_and_labels_are_read_back_as_meant(doc, tmp_path_factory):
    folder = tmp_path_factory.mktemp("crowded")
    corpus, report, _ = _write_and_read(doc, "brat", folder)
    back = corpus.documents[0]
    renamed = {d.code for d in report} & {"loss.value"}

    def seen(d, changed_types: bool) -> list:
        out = []
        for m in d.markables:
            type_ = m.attributes.get("type")
            if changed_types and type_ and type_.endswith("_"):
                type_ = type_[:-1]
            entity = m.entity if m.entity is None or "-" in m.entity else f"{m.entity}-0"
            out.append((m.spans, type_ if type_ != "Mention" else None, entity))
        return sorted(out, key=repr)

    assert seen(back, bool(renamed)) == seen(doc, False)


def test_R03_litbank_cr_in_text(tmp_path):
    """A bare CR between two words of the .txt went into the text column of the written
    .ann, which was then unreadable (line ends mixed)."""
    source = REGRESSIONS / "R03_litbank_cr_in_text"
    doc = corefio.read(source / "a.ann", "litbank-tsv").documents[0]
    corpus, _, files = _write_and_read(doc, "litbank-tsv", tmp_path / "out")
    assert b"\r" not in files["a.ann"] and files["a.txt"] == (source / "a.txt").read_bytes()
    back = corpus.documents[0]
    assert back.tokens.forms == doc.tokens.forms and [m.spans for m in back.markables] == [m.spans for m in doc.markables]


def test_R03_a_cr_inside_a_brat_mention_stays_out_of_the_text_field(tmp_path):
    doc = corefio.read(_pair(tmp_path / "in", "T1\tX 0 3\ta b\n", "a\rb\n"), "brat").documents[0]
    corpus, _, files = _write_and_read(doc, "brat", tmp_path / "out")
    assert files["doc.ann"] == b"T1\tX 0 3\ta b\n" and files["doc.txt"] == b"a\rb\n"
    assert [m.spans for m in corpus.documents[0].markables] == [((0, 1),)]


# -- every line type of brat's standoff -----------------------------------------------------------
EVERY_KIND = (
    "T1\tProtein 0 4\tIL-2\n"
    "T2\tGene_expression 5 15\texpression\n"
    "T3\tProtein 19 23\tIL-2\n"
    "T4\tRegulation 24 33\tregulates\n"
    "E1\tGene_expression:T2 Theme:T1\n"
    "E2\tRegulation:T4 Theme:E1 Cause:T3\n"
    "M1\tNegation E2\n"
    "A1\tSpeculation E1\n"
    "A2\tConfidence T1 high\n"
    "N1\tReference T1 Uniprot:P60568\tIL-2\n"
    "#1\tAnnotatorNotes E2\tcheck the cause\n"
    "#2\tAnnotatorNotes T3\tthe same protein\n"
    "*\tEquiv T1 T3\n"
    "R1\tPart-of Arg1:T3 Arg2:E1\t\n"
    "R2\tPart-of Arg1:T3 Arg2:T1\t\n"
    "A3\tSure R2\n"
)
EVERY_TEXT = "IL-2 expression of IL-2 regulates it.\n"


def test_every_line_type_is_read_and_written_back_as_it_was(tmp_path):
    """Issue 8: an event modifier (``M1 Negation E7``) made the file unreadable."""
    report = Report()
    doc = corefio.read(_pair(tmp_path / "in", EVERY_KIND, EVERY_TEXT), "brat", report=report).documents[0]
    by_id = {m.id: m for m in doc.markables}
    assert sorted(by_id) == ["T1", "T2", "T3", "T4"]
    assert by_id["T1"].attributes == {"type": "Protein", "Confidence": "high"}
    assert by_id["T3"].attributes == {"type": "Protein", "AnnotatorNotes": "the same protein"}
    assert _chains(doc) == [[((0, 0),), ((3, 3),)], [((1, 1),)], [((4, 4),)]]
    [part_of] = [link for link in doc.links if link.type == "Part-of"]
    assert (part_of.id, part_of.source, part_of.targets, part_of.attributes) == ("R2", "T3", ("T1",), {"Sure": True})
    lay = doc.layout["brat"]
    assert sorted(lay.raw) == ["#1", "A1", "E1", "E2", "M1", "N1", "R1"]
    [kept] = report.by_code("brat.kept-as-written")
    assert kept.count == 7
    files = corefio.dump_files(doc, "brat")
    assert files["doc.ann"].decode() == EVERY_KIND and files["doc.txt"].decode() == EVERY_TEXT


@pytest.mark.parametrize("fmt", ["conll", "jsonlines", "litbank-tsv"])
def test_events_and_normalisations_are_a_loss_in_every_other_format(fmt, tmp_path):
    doc = corefio.read(_pair(tmp_path / "in", EVERY_KIND, EVERY_TEXT), "brat").documents[0]
    report = Report()
    corefio.dump_files(doc, fmt, report=report)
    [lost] = report.by_code("loss.uninterpreted")
    assert (lost.count, lost.severity, lost.examples[0]) == (7, "warning", "E1")
    report = Report()
    corefio.dump_files(doc, "brat", report=report)
    assert report.by_code("loss.uninterpreted") == []


@pytest.mark.parametrize("ann, kept", [
    ("T1\tX 0 1\ta\nA1\tNeg T1\nA2\tNeg T1\n", ["A2"]),  # a second value of one attribute
    ("T1\tX 0 1\ta\nA1\ttype T1 Y\n", ["A1"]),  # an attribute named like the type
    ("T1\tX 0 1\ta\nE1\tEv:T1\n", ["E1"]),  # an event without arguments (BioNLP's ID task has them)
    ("T1\tX 0 1\ta\nT2\tY 2 3\tb\nE1\tEv:T1\n*\tEquiv E1 T2\n", ["*1", "E1"]),  # an equivalence naming an event
    ("T1\tX 0 1\ta\nR1\tr Arg1:T1 Arg2:T1\n#1\tAnnotatorNotes R1\tnote\n", ["#1"]),  # a note on a relation
])
def test_lines_about_what_corefio_does_not_hold_are_kept_as_written(ann, kept, tmp_path):
    doc = corefio.read(_pair(tmp_path, ann, "a b\n"), "brat").documents[0]
    assert sorted(doc.layout["brat"].raw) == kept
    assert corefio.dump_files(doc, "brat")["doc.ann"].decode() == ann


def test_a_chain_label_that_another_line_names_is_a_mention(tmp_path):
    doc = corefio.read(_pair(tmp_path, "T1\tPerson 0 5\tAlice\nT2\tAlice-1 0 5\tAlice\nR1\tcop Arg1:T1 Arg2:T2\n",
                             "Alice\n"), "brat").documents[0]
    assert sorted((m.id, m.entity) for m in doc.markables) == [("T1", None), ("T2", None)]
    assert [(link.source, link.targets) for link in doc.links] == [("T1", ("T2",))]


def test_spelling_the_writer_would_not_use_is_written_back_as_it_was(tmp_path):
    ann = "T1\tX 0 1\ta\nT2\tY 2 3\nR1\tr  Arg1:T1 Arg2:T2\t\n*\tEquiv  T1 T2\nA1\tNeg T1 \n"
    doc = corefio.read(_pair(tmp_path, ann, "a b\n"), "brat").documents[0]
    assert corefio.dump_files(doc, "brat")["doc.ann"].decode() == ann


# -- collection folders (issue 8) -----------------------------------------------------------------
def _collection(folder: Path) -> Path:
    _pair(folder, EVERY_KIND, EVERY_TEXT, "d1")
    _pair(folder, "T1\tPerson 0 5\tAlice\n", "Alice\n", "d2")
    (folder / "annotation.conf").write_text("[entities]\nProtein\n", encoding="utf-8")
    (folder / "visual.conf").write_text("[labels]\n", encoding="utf-8")
    (folder / "README").write_text("a collection\n", encoding="utf-8")
    (folder / "LICENSE.txt").write_text("CC BY 4.0\n", encoding="utf-8")
    (folder / "stats.json").write_text("{}", encoding="utf-8")
    (folder / "sub").mkdir()
    return folder


def test_a_collection_folder_is_recognised_and_its_configuration_kept(tmp_path):
    folder = _collection(tmp_path / "coll")
    assert corefio.formats.registry.detect_format(folder).name == "brat"
    report = Report()
    corpus = corefio.read(folder, report=report)
    assert [d.name for d in corpus] == ["d1", "d2"]
    [skipped] = report.by_code("brat.not-read")
    assert skipped.count == 2 and "stats.json" in skipped.message and "sub/" in skipped.message
    files = corefio.dump_files(corpus, "brat")
    assert sorted(files) == ["LICENSE.txt", "README", "annotation.conf", "d1.ann", "d1.txt", "d2.ann", "d2.txt",
                             "visual.conf"]
    assert all(files[name] == (folder / name).read_bytes() for name in files)


def test_a_litbank_tsv_folder_is_recognised_as_litbank_tsv(tmp_path):
    folder = tmp_path / "tsv"
    _pair(folder, "MENTION\tT1\t0\t0\t0\t0\tAlice\tPER\tPROP\n", "Alice left\n")
    (folder / "README.md").write_text("LitBank\n", encoding="utf-8")
    assert corefio.formats.registry.detect_format(folder).name == "litbank-tsv"
    corpus = corefio.read(folder)
    assert sorted(corefio.dump_files(corpus, "litbank-tsv")) == ["README.md", "doc.ann", "doc.txt"]


@pytest.mark.parametrize("command", [["info"], ["validate"], ["convert", "{out}", "--to", "conll"]])
def test_the_cli_takes_a_collection_folder_without_from(command, tmp_path):
    folder = _collection(tmp_path / "coll")
    args = [part.format(out=tmp_path / "out.conll") for part in command]
    run = subprocess.run([sys.executable, "-m", "corefio", args[0], str(folder), *args[1:]],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "cannot tell the format" not in run.stderr


# -- document names the writer changes (issue 9) --------------------------------------------------
@pytest.mark.parametrize("fmt", ["brat", "litbank-tsv"])
def test_a_document_name_the_writer_changes_is_reported_with_both_names(fmt):
    docs = [Document(name=name, part=part, tokens=Tokens(forms=["a"]), sentences=[Sentence(first=0, last=0)])
            for name, part in [("x/y", None), (".hidden", None), ("same", None), ("same", None), ("ok", None),
                               ("conll", "000")]]
    report = Report()
    files = corefio.dump_files(corefio.model.Corpus(documents=docs), fmt, report=report)
    assert sorted(n[:-4] for n in files if n.endswith(".ann")) == ["_.hidden", "conll_000", "ok", "same",
                                                                      "same_4", "x_y"]
    named = report.by_code("loss.document-name")
    changed = next(d for d in named if d.severity == "warning")
    examples = " ".join(changed.examples)
    assert changed.count == 3 and "'x/y' → 'x_y'" in examples and "'.hidden' → '_.hidden'" in examples
    parts = next(d for d in named if d.severity == "info")
    assert parts.count == 1 and "conll_000" in " ".join(parts.examples)


def test_a_kept_readme_txt_is_no_document_name(tmp_path):
    folder = tmp_path / "coll"
    _pair(folder, "T1\tX 0 1\ta\n", "a\n", "d")
    (folder / "README.txt").write_text("notes\n", encoding="utf-8")
    corpus = corefio.read(folder, "brat")
    corpus.documents[0] = corpus.documents[0].copy(name="README")
    report = Report()
    files = corefio.dump_files(corpus, "brat", report=report)
    assert files["README.txt"] == b"notes\n" and "README_1.ann" in files
    assert report.by_code("loss.document-name")


# -- what the writer could write that the reader would refuse ----------------------------------
def test_values_the_file_cannot_hold_are_reported_not_written(tmp_path):
    doc = Document(name="d", tokens=Tokens(forms=["Kim", "left"]), sentences=[Sentence(first=0, last=1)],
                   markables=[Markable(id="Ta", spans=((0, 0),), attributes={"note": "two\nlines", "k": "a b"}),
                              Markable(id="m2", spans=((1, 1),))],
                   links=[Link(id="l1", type="part of", source="Ta", target="m2")])
    corpus, report, files = _write_and_read(doc, "brat", tmp_path / "out")
    back = corpus.documents[0]
    assert sorted(m.id for m in back.markables) == ["T1", "T2"]
    [value] = report.by_code("loss.value")
    assert value.count == 3  # two attribute values, one link type
    assert back.links == []


def test_a_byte_order_mark_of_the_text_counts_in_the_offsets_and_is_written_back(tmp_path):
    """brat reads the .txt as UTF-8 without dropping a BOM: offsets count it."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "doc.ann").write_bytes("T1\tPerson 1 6\tAlice\n".encode())
    (folder / "doc.txt").write_bytes(b"\xef\xbb\xbfAlice left\n")
    doc = corefio.read(folder / "doc.ann", "brat").documents[0]
    assert doc.tokens.forms == ["Alice", "left"] and doc.markable_text(doc.markables[0]) == "Alice"
    files = corefio.dump_files(doc, "brat")
    assert files["doc.txt"] == (folder / "doc.txt").read_bytes() and files["doc.ann"] == (folder / "doc.ann").read_bytes()


def test_a_folder_of_ann_files_in_neither_format_is_read_as_brat_and_the_bad_line_named(tmp_path):
    _pair(tmp_path / "coll", "X1\tPerson 0 5\tAlice\n", "Alice\n")
    run = subprocess.run([sys.executable, "-m", "corefio", "info", str(tmp_path / "coll")], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 3 and "doc.ann:1:" in run.stderr and "not a brat annotation id" in run.stderr
