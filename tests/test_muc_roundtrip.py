"""MUC round trips lose nothing silently: the text after the last DOC survives a
streaming conversion (issue #18), a document of repaired input that does not read back
the same is reported (reproducers S14), and a mention that crosses a sentence is kept,
not reported as dropped."""

from __future__ import annotations

import shutil

import pytest

import corefio
from corefio.diagnostics import Report
from corefio.model import Document, Markable, Sentence, Tokens

from .conftest import shared_data

WRAPPED = ("<DOCS>\n<DOC>\n<DOCNO> a </DOCNO>\n<TEXT>\n<p><COREF ID=\"1\">The company</COREF> said "
           "<COREF ID=\"2\" TYPE=\"IDENT\" REF=\"1\">it</COREF> would.\n</TEXT>\n</DOC>\n"
           "<DOC>\n<DOCNO> b </DOCNO>\n<TEXT>\nNothing.\n</TEXT>\n</DOC>\n</DOCS>\n")


def test_streaming_convert_keeps_the_text_after_the_last_doc(tmp_path, cli):
    source = tmp_path / "in.sgm"
    source.write_text(WRAPPED, encoding="utf-8")
    target = tmp_path / "out.sgm"
    result = cli("convert", source, target)
    assert result.exit_code == 0, result.output
    assert target.read_bytes() == source.read_bytes()
    again = tmp_path / "again.sgm"
    report = corefio.convert(source, again)
    assert again.read_bytes() == source.read_bytes()
    assert not [d for d in report if d.code.startswith("loss.")]


def test_stream_header_gets_the_tail_once_the_documents_are_read(tmp_path):
    from corefio.formats import muc
    from corefio.io.source import Source

    stream = muc.stream(Source.from_text(WRAPPED, "in.sgm"), report=Report(), strict=False)
    assert stream.header.layout == {}
    assert [d.name for d in stream] == ["a", "b"]
    assert stream.header.layout["muc"].tail == "</DOCS>\n"


def summary(corpus) -> list:
    return [(d.label, list(d.tokens.forms), sorted((m.first, m.last) for m in d.markables),
             sorted(sorted((d.markables[i].first, d.markables[i].last) for i in c) for c in d.chain_indices()))
            for d in corpus.documents]


S14 = ["S14_min_muc_0bbec03e0a-89.sgm", "S14_min_muc_18049db229-3387.sgm", "S14_min_muc_3b633abc06-19.sgm",
       "S14_min_muc_8581c677a3-54.sgm", "S14_min_muc_c7c78fa21e-1252.sgm"]


@pytest.mark.parametrize("name", S14)
def test_repaired_input_comes_back_or_the_difference_is_reported(name, tmp_path):
    source = tmp_path / "in" / name
    source.parent.mkdir()
    shutil.copy(shared_data(f"reproducers/{name}"), source)
    read_report = Report()
    corpus = corefio.read(source, "muc", report=read_report)
    write_report = Report()
    target = tmp_path / "out" / name  # the same file name: a document without DOCNO is named after it
    target.parent.mkdir()
    corefio.write(corpus, target, "muc", report=write_report)
    back = corefio.read(target, "muc", report=Report())
    if summary(back) != summary(corpus):
        losses = [d for d in write_report if d.code == "loss.reread"]
        assert losses, (summary(corpus), summary(back), target.read_text())
        assert losses[0].document == corpus.documents[0].label


def test_a_document_that_reads_back_the_same_is_not_reported(tmp_path):
    source = tmp_path / "in.sgm"
    source.write_text('<DOC><DOCNO> a </DOCNO><TEXT><COREF ID="1">It</COREF></COREF> is <b>x</TEXT></DOC>\n',
                      encoding="utf-8")
    read_report = Report()
    corpus = corefio.read(source, "muc", report=read_report)
    assert corpus.documents[0].layout["muc"].repaired
    write_report = Report()
    text = corefio.dumps(corpus, "muc", report=write_report)
    assert not [d for d in write_report if d.code.startswith("loss.")]
    assert summary(corefio.loads(text, "muc")) == summary(corpus)


def test_a_new_coref_tag_across_a_section_end_is_reported(tmp_path):
    corpus = corefio.loads("<DOC><DOCNO> a </DOCNO><TEXT><s>One two.</s> <s>Three four.</s></TEXT></DOC>\n", "muc")
    doc = corpus.documents[0]
    crossing = Markable(id="9", spans=((1, 3),))  # "two . Three": the end of the first <s> ends it
    edited = doc.model_copy(update={"markables": [crossing]})
    report = Report()
    text = corefio.dumps(edited, "muc", report=report)
    assert '<COREF ID="9">two.</s> <s>Three</COREF>' in text
    assert [d.code for d in report if d.code.startswith("loss.")] == ["loss.reread"]


def test_mentions_across_sentences_are_kept_and_only_the_boundaries_reported():
    doc = Document(name="d", tokens=Tokens(forms=["a", "b", "c", "d"]),
                   sentences=[Sentence(first=0, last=1), Sentence(first=2, last=3)],
                   markables=[Markable(id="m1", spans=((1, 2),)), Markable(id="m2", spans=((0, 0),))])
    report = Report()
    text = corefio.dumps(doc, "muc", report=report)
    codes = {d.code: d for d in report}
    assert "loss.cross-sentence" not in codes
    assert codes["loss.sentences"].count == 2
    back = corefio.loads(text, "muc").documents[0]
    assert sorted((m.first, m.last) for m in back.markables) == [(0, 0), (1, 2)]
    assert len(back.sentences) == 1
