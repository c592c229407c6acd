"""Defects the fuzzer found (``python -m tests.fuzz``), each on a small input built here
and on the minimised input it saved (``tests/data/regressions/fuzz/``, which
``tests/fuzz/test_fuzz_budget.py`` also replays through every check); and a defect of the
fuzzer itself that stopped a campaign."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import corefio
from corefio.diagnostics import Report
from corefio.errors import CorefioError
from corefio.formats.xmi import XmiLayout
from corefio.model import zeros

from .conftest import DATA, REPO

FUZZ = DATA / "regressions" / "fuzz"


def conllu_with_empty_node(token_id: str) -> str:
    return ("# newdoc id = d\n# sent_id = s1\n# text = Kim left\n"
            "1\tKim\t_\t_\t_\t_\t2\tnsubj\t2:nsubj\tEntity=(e1-person-1)\n"
            f"{token_id}\tshe\t_\t_\t_\t_\t_\t_\t2:nsubj\tEntity=(e1-person-1)\n"
            "2\tleft\t_\t_\t_\t_\t0\troot\t0:root\t_\n\n")


@pytest.mark.parametrize("token_id", ["1." + "9" * 5000, "9" * 5000 + ".1"], ids=["k", "word"])
def test_an_empty_node_id_of_thousands_of_digits_is_read_or_refused_never_a_value_error(tmp_path: Path, token_id):
    """Seed 4127, conllu: an empty node ``1.999…9`` (5,000 digits) made scoring from paths
    raise ValueError (int() refuses over 4,300 digits) in ``model/zeros.py``."""
    path = tmp_path / "huge.conllu"
    path.write_text(conllu_with_empty_node(token_id))
    for call in (lambda: corefio.read(path), lambda: corefio.score(path, path)):
        try:
            call()
        except CorefioError:
            pass


def test_written_number_takes_at_most_eighteen_digits():
    assert zeros._written_number("1.3", 1) == 3
    assert zeros._written_number("1." + "9" * 18, 1) == int("9" * 18)
    assert zeros._written_number("1." + "9" * 19, 1) is None
    assert zeros._written_number("9" * 5000 + ".1", 1) is None


def test_the_saved_input_scores_against_itself():
    path = FUZZ / "conllu-exception-score-self-paths-05677e18.conllu"
    corpus = corefio.read(path)
    assert [len(d.tokens) for d in corpus.documents] == [2]
    mentions = corefio.score(path, path).to_dict(per_document=False)["corpus"]["mentions"]
    assert mentions == corefio.score(corpus, corpus).to_dict(per_document=False)["corpus"]["mentions"]


# -- ecbplus: a document name too long for a file name ----------------------------------------
def ecbplus_document(name: str) -> str:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<Document doc_name="{name}.xml" doc_id="D1">\n'
            '<token t_id="1" sentence="0" number="0">Kim</token>\n'
            '<token t_id="2" sentence="0" number="1">left</token>\n'
            '<Markables>\n<HUMAN_PART_PER m_id="1"><token_anchor t_id="1"/></HUMAN_PART_PER>\n</Markables>\n'
            '<Relations>\n</Relations>\n</Document>\n')


def test_an_ecbplus_name_too_long_for_a_file_name_is_written_under_a_cut_one(tmp_path: Path):
    """Seed 4127, ecbplus: a ``doc_name`` of 5,000 digits made the writer create a file
    name too long for the file system (OSError, Errno 36). The file name is cut (with a
    digest, as the MMAX2 writer cuts its stems); the name comes back whole from
    ``doc_name``, so no name is reported lost (the cut names may sort the other way: the
    order of the documents, ``loss.document-order``, is said when it changes)."""
    source = tmp_path / "in"
    source.mkdir()
    names = ["1_" + "9" * 5000 + "ecb", "1_" + "9" * 4999 + "8ecb"]  # alike for the first 4,000 bytes
    for k, name in enumerate(names):
        (source / f"{k}.xml").write_text(ecbplus_document(name))
    corpus = corefio.read(source, format="ecbplus")
    report = Report()
    out = tmp_path / "out"
    corefio.write(corpus, out, format="ecbplus", report=report)
    written = sorted(p for p in out.rglob("*.xml"))
    assert len(written) == 2
    assert all(len(p.name.encode("utf-8")) <= 255 and len(p.parent.name.encode("utf-8")) <= 255 for p in written)
    assert not [d for d in report.diagnostics if d.severity in ("warning", "error")
                and d.code != "loss.document-order"]
    back = corefio.read(out, format="ecbplus")
    assert sorted(d.name for d in back.documents) == sorted(names)
    assert [len(d.markables) for d in back.documents] == [1, 1]


def test_the_saved_ecbplus_input_is_written_and_read_back(tmp_path: Path):
    corpus = corefio.read(FUZZ / "ecbplus-crash-write-0840481b", format="ecbplus")
    assert len(corpus.documents[0].name) > 4000
    corefio.write(corpus, tmp_path / "out", format="ecbplus")
    back = corefio.read(tmp_path / "out", format="ecbplus")
    assert [d.name for d in back.documents] == [d.name for d in corpus.documents]
    assert [len(d.markables) for d in back.documents] == [len(d.markables) for d in corpus.documents]


@pytest.mark.parametrize("r_id", ["\u00b92188", "3\u2075619", "\u0663"])
def test_an_ecbplus_r_id_of_other_digits_is_no_number(tmp_path: Path, r_id: str):
    """Seed 4127 rerun, ecbplus: an ``r_id`` with a superscript digit passed
    ``str.isdigit`` and ``int()`` refused it (ValueError from the writer)."""
    path = tmp_path / "1_1ecb.xml"
    path.write_text(ecbplus_document("1_1ecb").replace(
        "</Markables>", '<HUMAN_PART_PER m_id="2" TAG_DESCRIPTOR="Kim" instance_id="HUM1"/>\n</Markables>').replace(
        "<Relations>\n",
        f'<Relations>\n<INTRA_DOC_COREF r_id="{r_id}"><source m_id="1"/><target m_id="2"/></INTRA_DOC_COREF>\n'))
    corpus = corefio.read(path, format="ecbplus")
    corefio.write(corpus, tmp_path / "out", format="ecbplus")
    back = corefio.read(tmp_path / "out", format="ecbplus")
    assert [len(d.markables) for d in back.documents] == [1]


def test_the_saved_ecbplus_r_id_input_is_written(tmp_path: Path):
    corpus = corefio.read(FUZZ / "ecbplus-exception-write-908f7c36", format="ecbplus")
    corefio.write(corpus, tmp_path / "out", format="ecbplus")
    assert len(corefio.read(tmp_path / "out", format="ecbplus").documents) == len(corpus.documents)


# -- wl-coref: a negative part_id -----------------------------------------------------------------
def wl_line(part: object) -> str:
    return json.dumps({"document_id": "A", "part_id": part, "cased_words": ["Kim", "left", "she"],
                       "sent_id": [0, 0, 0], "speaker": ["_", "_", "_"], "span_clusters": [[[0, 1], [2, 3]]],
                       "word_clusters": [[0, 2]], "head2span": []}) + "\n"


@pytest.mark.parametrize("part", [-1, 0, 7, -12])
def test_a_wl_coref_integer_part_comes_back(part: int):
    """Seed 4127, wl-coref: ``part_id: -1`` read as ``A (part -1)`` was written without
    its part and read back as ``A``, no loss said so. Every integer is written back."""
    corpus = corefio.loads(wl_line(part), "wl-coref")
    assert corpus.documents[0].label == f"A (part {part})"
    report = Report()
    back = corefio.loads(corefio.dumps(corpus, "wl-coref", report=report), "wl-coref")
    assert back.documents[0].label == f"A (part {part})"
    assert not [d for d in report.diagnostics if d.code == "loss.document-part"]


@pytest.mark.parametrize("part", ["b", "1a"])
def test_a_part_that_is_no_integer_is_a_wl_coref_loss(part: str):
    corpus = corefio.loads(wl_line(1), "wl-coref")
    corpus = corpus.copy(documents=[corpus.documents[0].copy(part=part)])
    report = Report()
    back = corefio.loads(corefio.dumps(corpus, "wl-coref", report=report), "wl-coref")
    assert back.documents[0].part is None
    lost = [d for d in report.diagnostics if d.code == "loss.document-part"]
    assert len(lost) == 1 and lost[0].examples == [repr(part)]


def test_a_wl_coref_part_with_leading_zeros_keeps_its_number():
    corpus = corefio.loads(wl_line(1), "wl-coref")
    corpus = corpus.copy(documents=[corpus.documents[0].copy(part="007")])
    back = corefio.loads(corefio.dumps(corpus, "wl-coref"), "wl-coref")
    assert back.documents[0].part == "7"


def test_the_saved_wl_coref_input_keeps_its_part():
    corpus = corefio.read(FUZZ / "wl-coref-roundtrip-compare-1798066e.jsonlines", format="wl-coref")
    back = corefio.loads(corefio.dumps(corpus, "wl-coref"), "wl-coref")
    assert [d.label for d in back.documents] == [d.label for d in corpus.documents] == ["document_1 (part -1)"]


# -- xmi: chains of one chain type whose first links have different types -------------------------
XMI_TWO_LINK_TYPES = """<?xml version="1.0" encoding="UTF-8"?><xmi:XMI xmlns:xmi="http://www.omg.org/XMI" \
xmlns:cas="http:///uima/cas.ecore" xmlns:type5="http:///de/tudarmstadt/ukp/dkpro/core/api/segmentation/type.ecore" \
xmlns:custom="http:///webanno/custom.ecore" xmi:version="2.0">
<type5:Token xmi:id="2" sofa="1" begin="0" end="3"/>
<type5:Token xmi:id="3" sofa="1" begin="4" end="8"/>
<type5:Token xmi:id="4" sofa="1" begin="9" end="12"/>
<type5:Sentence xmi:id="5" sofa="1" begin="0" end="12"/>
<custom:OtherLink xmi:id="10" sofa="1" begin="0" end="3" next="11"/>
<custom:SimpleLink xmi:id="11" sofa="1" begin="9" end="12"/>
<custom:SimpleLink xmi:id="12" sofa="1" begin="4" end="8"/>
<custom:SimpleChain xmi:id="20" sofa="1" first="10"/>
<custom:SimpleChain xmi:id="21" sofa="1" first="12"/>
<cas:Sofa xmi:id="1" sofaNum="1" sofaID="_InitialView" mimeType="text" sofaString="Kim left she"/>
<cas:View sofa="1" members="2 3 4 5 10 11 12 20 21"/>
</xmi:XMI>
"""


def chain_types(corpus) -> dict[str, tuple[str, str]]:
    lay = corpus.documents[0].layout["xmi"]
    assert isinstance(lay, XmiLayout)
    return lay.chain_types


def chains_of(corpus) -> list[list[tuple[int, int]]]:
    doc = corpus.documents[0]
    return sorted(sorted((doc.markables[k].first, doc.markables[k].last) for k in chain)
                  for chain in doc.chain_indices())


@pytest.mark.parametrize("source", ["built", "saved"])
def test_xmi_the_writer_writes_what_the_reader_took(tmp_path: Path, source: str):
    """Seed 4127, xmi: a chain type whose chains start with links of two types (a flipped
    bit in a type name) was read, and the writer refused it: it declared the chain type
    twice, with two ranges of ``first`` ("redefined differently"). It is declared once,
    ``first`` ranging over annotations, and the chains come back."""
    pytest.importorskip("cassis")
    if source == "built":
        path = tmp_path / "two.xmi"
        path.write_text(XMI_TWO_LINK_TYPES)
    else:
        path = FUZZ / "xmi-roundtrip-write-42e23e7f.xmi"
    corpus = corefio.read(path)
    assert len({link for _, link in chain_types(corpus).values()}) == 2
    written = tmp_path / "out.xmi"
    corefio.write(corpus, written)
    back = corefio.read(written)
    assert chains_of(back) == chains_of(corpus)
    assert chain_types(back) == chain_types(corpus)


@pytest.mark.parametrize("encoding", ["utf-32-le", "utf-32-be"])
def test_an_xmi_file_in_utf32_is_refused_at_its_first_line(tmp_path: Path, encoding: str):
    """Seed 4127 rerun, xmi: lxml reads a UTF-32 file (with its byte order mark), cassis's
    parser does not; its XMLSyntaxError escaped ``read``. It is a located input error."""
    pytest.importorskip("cassis")
    path = tmp_path / "wide.xmi"
    mark = {"utf-32-le": b"\xff\xfe\x00\x00", "utf-32-be": b"\x00\x00\xfe\xff"}[encoding]
    path.write_bytes(mark + XMI_TWO_LINK_TYPES.replace('encoding="UTF-8"', 'encoding="UTF-32"').encode(encoding))
    with pytest.raises(CorefioError) as caught:
        corefio.read(path)
    assert caught.value.line == 1 and "dkpro-cassis cannot read" in caught.value.message


def test_the_saved_utf32_xmi_is_refused():
    pytest.importorskip("cassis")
    with pytest.raises(CorefioError, match="UTF-32"):
        corefio.read(FUZZ / "xmi-exception-read-f69908ab.xmi")


# -- mmax2: a project file in UTF-16 without its byte order mark ----------------------------------
def mmax2_project(tmp_path: Path) -> Path:
    corpus = corefio.loads("#begin document (A); part 000\nA\t0\t0\tKim\t(0)\nA\t0\t1\tleft\t-\n"
                           "A\t0\t2\tshe\t(0)\n\n#end document\n", "conll")
    project = tmp_path / "project"
    corefio.write(corpus, project, format="mmax2")
    return project


@pytest.mark.parametrize("member", ["common_paths.xml", "A.mmax", "Basedata/A_words.xml",
                                    "Markables/A_coref_level.xml", "Schemes/coref_scheme.xml"])
@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_an_mmax2_file_in_utf16_without_its_mark_is_refused_naming_it(tmp_path: Path, member: str, encoding: str):
    """Seed 4127, mmax2: ``common_paths.xml`` in UTF-16 without a byte order mark, its
    declaration saying UTF-8, was read without a word (the XML parser guessed the
    encoding from the zero bytes). Every project file the reader parses is refused so,
    naming the file, in lenient reading too."""
    project = mmax2_project(tmp_path)
    assert len(corefio.read(project, format="mmax2").documents[0].markables) == 2
    path = project / member
    path.write_bytes(path.read_bytes().decode("utf-8").encode(encoding))
    for strict in (False, True):
        with pytest.raises(CorefioError) as caught:
            corefio.read(project, format="mmax2", strict=strict)
        assert caught.value.file is not None and Path(caught.value.file).name == path.name
        assert caught.value.line == 1
        assert "without a byte order mark" in caught.value.message and "declares 'UTF-8'" in caught.value.message


def test_an_mmax2_file_in_utf16_with_its_mark_is_read(tmp_path: Path):
    project = mmax2_project(tmp_path)
    path = project / "common_paths.xml"
    path.write_bytes(path.read_text().replace('encoding="UTF-8"', 'encoding="UTF-16"').encode("utf-16"))
    assert len(corefio.read(project, format="mmax2").documents[0].markables) == 2


def test_the_saved_mmax2_project_is_refused():
    with pytest.raises(CorefioError, match="UTF-16-LE encoded without a byte order mark"):
        corefio.read(FUZZ / "mmax2-count-read-90bdbbb9", format="mmax2")


# -- the fuzzer itself ----------------------------------------------------------------------------
ARROW_MUTATION = """
import io, random, struct, sys
import pyarrow as pa
from tests.fuzz import mutations
table = pa.table({"w": ["abc", "def", "ghi"]})
out = io.BytesIO()
with pa.ipc.new_stream(out, table.schema) as writer:
    writer.write_table(table)
data = bytearray(out.getvalue())
at = data.find(struct.pack("<iiii", 0, 3, 6, 9))
assert at > 0
data[at + 4:at + 8] = struct.pack("<i", 1 << 30)  # the second string ends a gigabyte away
mutated = mutations.arrow_cell(random.Random(1), bytes(data), [])
print(len(mutated))
"""


def test_the_arrow_mutation_survives_an_offset_past_the_buffers():
    """Seed 4127: the campaign process itself died (a segmentation fault in pyarrow)
    when ``arrow_cell`` decoded an Arrow table damaged by an earlier mutation. Run in a
    child, so that a crash is this test's failure; the damaged table gets bits flipped
    instead."""
    pytest.importorskip("pyarrow")
    done = subprocess.run([sys.executable, "-c", ARROW_MUTATION], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=REPO)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert int(done.stdout.split()[-1]) > 0


# -- xmi: an element with offsets and no sofa, of a type the XMI alone declares (seed 4127, input 2364)
_NO_SOFA = b"""<?xml version="1.0" encoding="UTF-8"?>
<xmi:XMI xmlns:xmi="http://www.omg.org/XMI" xmlns:cas="http:///uima/cas.ecore"
 xmlns:type4="http:///de/tudarmstadt/ukp/dkpro/core/api/segmentation/type.ecore"
 xmlns:custom="http:///webanno/custom.ecore" xmi:version="2.0">
    <cas:NULL xmi:id="0"/>
    <type4:Token xmi:id="3" sofa="2" begin="0" end="4"/>
    <type4:Sentence xmi:id="5" sofa="2" begin="0" end="4"/>
    <custom:Span xmi:id="6" sofa="2" begin="0" end="1" value="OTH"/>
    <custom:Span xmi:id="7" sofa="2" begin="3" end="4" value="OTH"/>
    <custom:Relation xmi:id="8" soga="2" begin="3" end="4" Governor="6" Dependent="7"/>
    <cas:Sofa xmi:id="2" sofaNum="1" sofaID="_InitialView" mimeType="text" sofaString="Test"/>
    <cas:View sofa="2" members="3 5 6 7 8"/>
</xmi:XMI>
"""


def test_xmi_an_inferred_annotation_without_a_sofa_is_refused_at_its_line(tmp_path: Path):
    """A misspelt ``sofa`` on an element with offsets (a flipped bit): cassis failed with
    ``KeyError: None``; the element is an annotation without a sofa, said at its line."""
    pytest.importorskip("cassis")
    path = tmp_path / "no-sofa.xmi"
    path.write_bytes(_NO_SOFA)
    with pytest.raises(CorefioError) as caught:
        corefio.read(path)
    assert caught.value.line == 10 and "names no sofa" in str(caught.value)


# -- ecbplus: documents in another order than a folder is read in (seed 4127, input 5131) -----
def test_ecbplus_says_when_the_documents_come_back_in_another_order(tmp_path: Path):
    """A document without topic is written at the top of the folder, the other in its topic
    folder; read back, the topic folder comes first. The writer says so
    (``loss.document-order``), and says nothing when the order holds."""
    from corefio.model import Corpus, Document, Markable, Tokens

    def doc(name: str, topic: str | None) -> Document:
        return Document(name=name, tokens=Tokens(forms=["a", "b"]), metadata={"topic": topic} if topic else {},
                        markables=[Markable(id="m1", spans=((0, 0),), entity="1"),
                                   Markable(id="m2", spans=((1, 1),), entity="1")])

    swapped = Corpus(documents=[doc("78828", None), doc("3_2ecb", "3")])
    report = Report()
    corefio.write(swapped, tmp_path / "swapped", "ecbplus", report=report)
    assert [d.count for d in report.by_code("loss.document-order")] == [2]
    again = corefio.read(tmp_path / "swapped", "ecbplus")
    assert [d.name for d in again.documents] == ["3_2ecb", "78828"]
    kept = Corpus(documents=[doc("3_2ecb", "3"), doc("78828", None)])
    report = Report()
    corefio.write(kept, tmp_path / "kept", "ecbplus", report=report)
    assert not report.by_code("loss.document-order")


# -- webanno-tsv: an empty piece in a stacked chain cell (seed 5209, input 1413) ---------------
def test_webanno_tsv_an_empty_piece_of_a_stacked_chain_cell_is_refused_at_its_line(tmp_path: Path):
    """``_|`` in a chain layer's cell: the reader failed with IndexError; now the line and
    the column are said."""
    path = tmp_path / "empty-piece.tsv"
    path.write_bytes(b"#FORMAT=WebAnno TSV 3.3\n#T_CH=webanno.custom.SimpleLink|referenceRelation|referenceType\n"
                     b"\n\n#Text=This is a test .\n1-1\t0-4\tThis\t_\t_\t\n1-4\t10-14\ttest\t_|\t_\t\n")
    with pytest.raises(CorefioError) as caught:
        corefio.read(path)
    assert caught.value.line == 7 and "empty annotation" in str(caught.value) and "column 4" in str(caught.value)


# -- mmax2: a project whose common_paths.xml lost its <markable_path> (seed 5209, input 86) ----
def test_mmax2_level_files_in_another_folder_than_named_are_a_warning(tmp_path: Path):
    """The level files are in Markables/ but common_paths.xml names no markable path: no
    markable is read, and the reader now warns (it said only 'info' before, which MMAX2's
    own lazily written level files deserve)."""
    import shutil
    import re

    project = tmp_path / "worship"
    shutil.copytree(REPO / "samples" / "mmax2" / "gum_news_worship", project)
    paths = project / "common_paths.xml"
    paths.write_text(re.sub(r"<markable_path>[^<]*</markable_path>", "", paths.read_text(encoding="utf-8")),
                     encoding="utf-8")
    report = Report()
    corpus = corefio.read(project, format="mmax2", report=report)
    assert not corpus.documents[0].markables
    warned = [d for d in report.by_code("mmax2.missing-file") if d.severity == "warning"]
    assert warned and "Markables/" in warned[0].message


# -- mmax2: an invisible character in a markable's element name (seed 6011, input 73) -------------
def test_mmax2_an_element_named_otherwise_than_markable_is_no_markable(tmp_path: Path):
    """``<\\ufeffmarkable …>`` is an element XML allows whose name is not ``markable``: the
    reader took it for one (the name ends so); it is now an unknown element, warned at its
    line, as the fuzzer's own counter sees it."""
    import shutil

    project = tmp_path / "worship"
    shutil.copytree(REPO / "samples" / "mmax2" / "gum_news_worship", project)
    level = next((project / "Markables").glob("*_coref_level.xml"))
    text = level.read_text(encoding="utf-8")
    before = len(corefio.read(project, format="mmax2").documents[0].markables)
    level.write_text(text.replace("<markable ", "<\ufeffmarkable ", 1), encoding="utf-8")
    report = Report()
    after = corefio.read(project, format="mmax2", report=report).documents[0].markables
    assert len(after) == before - 1
    assert report.by_code("mmax2.unknown-element")


def test_litbank_tsv_a_new_mention_id_is_one_no_other_mention_has(tmp_path: Path):
    """Seed 7331, litbank-tsv: a MENTION row with an empty id was written back as ``T<its
    position>``, which another mention already had (``T70``): read back, the two were one
    and a mention was gone with no loss reported."""
    text = "Kim saw Bo .\n"
    ann = ("MENTION\tT1\t0\t0\t0\t0\tKim\tPER\tPROP\n"
           "MENTION\t\t0\t2\t0\t2\tBo\tPER\tPROP\n"
           "MENTION\tT0\t0\t1\t0\t1\tsaw\t_\t_\n")
    (tmp_path / "d.txt").write_text(text)
    (tmp_path / "d.ann").write_text(ann)
    corpus = corefio.read(tmp_path / "d.ann", "litbank-tsv")
    assert len(corpus.documents[0].markables) == 3
    report = Report()
    written = tmp_path / "out"
    corefio.write(corpus, written, "litbank-tsv", report=report)
    rows = (written / "d.ann").read_text().splitlines()
    ids = [row.split("\t")[1] for row in rows if row.startswith("MENTION")]
    assert len(ids) == 3 and len(set(ids)) == 3 and "" not in ids
    back = corefio.read(written / "d.ann", "litbank-tsv").documents[0]
    assert sorted(m.spans for m in back.markables) == sorted(m.spans for m in corpus.documents[0].markables)


def test_litbank_tsv_the_saved_input_keeps_every_mention(tmp_path: Path):
    folder = FUZZ / "litbank-tsv-roundtrip-compare-9c90c85b"
    corpus = corefio.read(folder / "11_alices_adventures_in_wonderland_brat.ann", "litbank-tsv")
    corefio.write(corpus, tmp_path / "out", "litbank-tsv")
    back = corefio.read(tmp_path / "out" / "11_alices_adventures_in_wonderland_brat.ann", "litbank-tsv")
    assert (sorted(m.spans for m in back.documents[0].markables)
            == sorted(m.spans for m in corpus.documents[0].markables))


@pytest.mark.parametrize("change", [("sofaString=", "so_aString="), ('sofaID="_InitialView" ', "")],
                         ids=["unknown-attribute", "no-sofaID"])
def test_xmi_a_sofa_cassis_cannot_make_is_a_located_error(tmp_path: Path, change):
    """Seed 8447, xmi: a ``cas:Sofa`` with an attribute cassis' Sofa does not take
    (``so_aString``) raised its TypeError as an internal error; so did one without a sofaID."""
    import shutil

    source = DATA / "xmi" / "inception" / "bernoulli.xmi"
    text = source.read_text(encoding="utf-8")
    assert change[0] in text
    shutil.copy(source.parent / "TypeSystem.xml", tmp_path / "TypeSystem.xml")
    path = tmp_path / "doc.xmi"
    path.write_text(text.replace(change[0], change[1], 1), encoding="utf-8")
    with pytest.raises(CorefioError, match="cas:Sofa") as caught:
        corefio.read(path, "xmi")
    assert caught.value.file == str(path) and caught.value.line is not None
    saved = FUZZ / "xmi-exception-read-6b3018d7.xmi"
    with pytest.raises(CorefioError, match="so_aString"):
        corefio.read(saved, "xmi")


@pytest.mark.parametrize("prolog", ["<?pi x?>", "<!-- a licence -->\n<!-- and more -->\n"], ids=["pi", "comments"])
def test_xmi_a_comment_or_instruction_before_the_root_is_read(tmp_path: Path, prolog):
    """Seed 9173, xmi: a processing instruction (or a comment: a licence at the top of a
    file) before ``<xmi:XMI>`` made cassis' parser raise a TypeError; corefio now gives
    cassis the root element alone, on its own line, so the file reads as without it and
    errors keep naming the file's lines."""
    import shutil

    source = DATA / "xmi" / "inception" / "bernoulli.xmi"
    text = source.read_text(encoding="utf-8")
    root = text.index("<xmi:XMI")
    shutil.copy(source.parent / "TypeSystem.xml", tmp_path / "TypeSystem.xml")
    path = tmp_path / "doc.xmi"
    path.write_text(text[:root] + prolog + text[root:], encoding="utf-8")
    plain = corefio.read(source).documents[0]
    doc = corefio.read(path).documents[0]
    assert doc.tokens.forms == plain.tokens.forms and doc.chains() == plain.chains()
    path.write_text(text[:root] + prolog + text[root:].replace('sofaNum="1"', 'sofaNum="x"', 1), encoding="utf-8")
    with pytest.raises(CorefioError, match="sofaNum") as caught:
        corefio.read(path)
    assert caught.value.line == text[:root].count("\n") + prolog.count("\n") + 1
    with pytest.raises(CorefioError, match="no Token"):  # the saved input: read, and refused for what it lacks
        corefio.read(FUZZ / "xmi-exception-read-842d41c1.xmi", "xmi")


def test_ua_a_short_last_line_of_a_file_without_columns_is_written_with_a_line_end():
    """Seed 10271, ua: ``1<TAB>B`` (no ``# global.columns``, no line end) was written with
    the columns declared and the line as it was, and read back as a cut file."""
    corpus = corefio.loads("1\tB", "ua")
    text = corefio.dumps(corpus, "ua")
    assert text.startswith("# global.columns = ") and text.endswith("1\tB\n")
    assert corefio.loads(text, "ua").documents[0].tokens.forms == ["B"]
    saved = corefio.read(FUZZ / "ua-roundtrip-reread-43078e85.conllua", "ua")
    assert corefio.loads(corefio.dumps(saved, "ua"), "ua").documents[0].tokens.forms == ["B"]


def test_ecbplus_topic_folders_whose_numbers_tie_are_read_in_one_order(tmp_path: Path):
    """Seed 10271, ecbplus: a document written into topic folder ``01`` beside ``1`` came
    back before the other, with no ``loss.document-order``: ``01`` and ``1`` tie in the
    natural order, and the reader took the order the folder listed them in."""
    from corefio.formats.ecbplus import _natural

    assert sorted([Path("1"), Path("01")], key=_natural) == sorted([Path("01"), Path("1")], key=_natural)
    corpus = corefio.read(FUZZ / "ecbplus-roundtrip-compare-898fea52", "ecbplus")
    assert [d.name for d in corpus.documents] == ["1_10ecb", "01_10ecbplus"]
    report = Report()
    corefio.write(corpus, tmp_path / "out", "ecbplus", report=report)
    back = corefio.read(tmp_path / "out", "ecbplus")
    assert [d.name for d in back.documents] == ["01_10ecbplus", "1_10ecb"]
    assert "loss.document-order" in report.codes()


@pytest.mark.parametrize("parent", ["9" * 5000, "2." + "9" * 5000], ids=["word", "k"])
def test_a_deps_parent_of_thousands_of_digits_is_no_parent(tmp_path: Path, parent):
    """Seed 11317, conllu: an empty node whose DEPS names a parent of 5,000 digits made
    scoring from paths raise ValueError (int() refuses over 4,300 digits) in
    ``model/zeros.py``'s ``_parent_place``; such a parent names no place."""
    path = tmp_path / "huge.conllu"
    text = conllu_with_empty_node("1.1").replace("\t2:nsubj\tEntity=(e1-person-1)\n2\tleft",
                                                f"\t{parent}:nsubj\tEntity=(e1-person-1)\n2\tleft")
    assert parent in text
    path.write_text(text)
    assert zeros._parent_place(1, parent) is None
    scores = corefio.score(path, path).to_dict(per_document=False)["corpus"]
    assert scores["mentions"]["f1"] == 1.0 and scores["bcub"]["f1"] == 1.0


def test_xmi_a_type_system_feature_without_a_name_is_a_located_error(tmp_path: Path):
    """Seed 12409, xmi: a ``featureDescription`` whose ``<name>`` was damaged made cassis
    give the type a feature named None, and checking the XMI against it raised lxml's
    TypeError; the type system is now refused at the type's line."""
    import shutil

    source = DATA / "xmi" / "inception" / "bernoulli.xmi"
    shutil.copy(source, tmp_path / "doc.xmi")
    system = (source.parent / "TypeSystem.xml").read_text(encoding="utf-8")
    damaged = system.replace("<name>documentId</name><description/>", "<namescription/>", 1)
    assert damaged != system
    (tmp_path / "TypeSystem.xml").write_text(damaged, encoding="utf-8")
    with pytest.raises(CorefioError, match="feature without a name") as caught:
        corefio.read(tmp_path / "doc.xmi")
    assert caught.value.file == str(tmp_path / "TypeSystem.xml") and caught.value.line is not None
