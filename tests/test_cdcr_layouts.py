"""What the cross-document writers keep of the file read, so that real files
(tests/data/wild/cdcr) are written back as they were; each case a small file built
here in the shape of the real one, and what happens once the documents change."""

from __future__ import annotations

import json
from pathlib import Path

import corefio
from corefio.diagnostics import Report
from corefio.formats.readwrite import dumps, read
from corefio.model import Corpus, Document, Markable, Sentence, Tokens

from .oracle import counts

# -- meta-document CoNLL ----------------------------------------------------------------------------
#: the uCDCR layout of Zhukova et al.'s files: a block per document, words numbered from 0 in
#: each sentence, a blank line after every sentence, cluster ids that are not numbers
UCDCR = """#begin document (10/10ecb/1); part 000
10/10ecb/1\t0\t0\tThe\t(HUM17
10/10ecb/1\t0\t1\tAngels\tHUM17)
10/10ecb/1\t0\t2\toffered\t(Singleton_ACTI_13_10_1ecb)

10/10ecb/1\t1\t0\tThey\t(HUM17)
10/10ecb/1\t1\t1\twait\t-

#end document
#begin document (10/10ecb/2); part 000
10/10ecb/2\t0\t0\tAngels\t(HUM17)
10/10ecb/2\t0\t1\tbid\t-

#end document
"""
#: a five-column key whose words are mentions, its header without a part (ahmeshaf/lemma_ce_coref)
KEYFILE = """#begin document (evt);
evt\t0\t0\t36_10ecbplus.xml_53\t(0)
evt\t0\t1\t36_10ecbplus.xml_54\t(1)
evt\t0\t2\t36_11ecbplus.xml_26\t(0)
#end document
"""


def test_a_ucdcr_file_is_written_back_as_it_was(tmp_path):
    path = tmp_path / "10ecb.conll"
    path.write_text(UCDCR)
    out = tmp_path / "out.conll"
    report = corefio.convert(path, out, "cdcr-conll", "cdcr-conll")
    assert out.read_text() == UCDCR
    assert [d for d in report if d.severity != "info"] == []
    corpus = read(path, "cdcr-conll")
    assert [m.entity for m in corpus[0].markables] == ["HUM17", "Singleton_ACTI_13_10_1ecb", "HUM17"]
    assert [e.id for e in corpus.cross_entities] == ["HUM17"]


def test_a_layout_asked_for_is_written_in_its_own_way(tmp_path):
    corpus = read(_write(tmp_path, "10ecb.conll", UCDCR), "cdcr-conll")
    report = Report()
    text = dumps(corpus, "cdcr-conll", report=report, layout="barhom")
    assert text.startswith("#begin document (10); part 000\n")
    assert "HUM17" not in text  # numbered: the file read kept its ids in its own layout only
    lost = report.by_code("loss.label")
    assert lost[0].examples == ["HUM17"] and sum(d.count for d in lost) == 3  # two ids of one document, one of the other


def test_a_five_column_key_keeps_its_header(tmp_path):
    path = _write(tmp_path, "evt.keyfile", KEYFILE)
    assert dumps(read(path, "cdcr-conll"), "cdcr-conll") == KEYFILE


def test_the_metadata_a_layout_does_not_write_is_reported(tmp_path):
    doc = Document.build(name="d1", metadata={"topic": "1", "genre": "news"},
                         tokens=Tokens(forms=["A", "b"]), sentences=[Sentence(first=0, last=1)],
                         markables=[Markable(id="m1", spans=((0, 0),), entity="e1")])
    report = Report()
    text = dumps(Corpus(documents=[doc]), "cdcr-conll", report=report, layout="barhom")
    assert "(1)" in text
    assert report.by_code("loss.metadata")[0].examples == ["genre"]
    assert report.by_code("loss.label")[0].examples == ["e1"]


# -- WEC --------------------------------------------------------------------------------------------
MENTIONS = [
    {"coref_chain": 7, "doc_id": "House of Pain", "mention_context": ["the", "Family", "Values", "Tour", "began"],
     "mention_id": "108172", "mention_type": 8, "tokens_number": [1, 2, 3], "tokens_str": "Family Values Tour",
     "topic_id": -1},
    {"coref_chain": 7, "doc_id": "Korn", "mention_context": ["Korn", "headlined", "the", "tour", "—", "again"],
     "mention_id": "9", "mention_type": 8, "tokens_number": [3], "tokens_str": "tour", "topic_id": -1},
]


def test_a_wec_file_is_written_back_as_it_was(tmp_path):
    for text in (json.dumps(MENTIONS, indent=4, ensure_ascii=False),  # WEC-Eng's files: no final line end
                 json.dumps(MENTIONS) + "\n"):  # one line, non-ASCII escaped
        path = _write(tmp_path, "mentions.json", text)
        out = tmp_path / "out.json"
        report = corefio.convert(path, out, "wec", "wec")
        assert out.read_text(encoding="utf-8") == text
        assert [d for d in report if d.severity != "info"] == []


def test_a_changed_wec_corpus_is_written_anew(tmp_path):
    path = _write(tmp_path, "mentions.json", json.dumps(MENTIONS, indent=4))
    corpus = read(path, "wec")
    first = corpus[0].copy(markables=[])
    changed = corpus.copy(documents=[first, corpus[1]])
    written = json.loads(dumps(changed, "wec"))
    assert [m["mention_id"] for m in written if m.get("tokens_number")] == ["9"]
    assert [m["coref_chain"] for m in written] == [None, 7]  # the first document kept as its context


# -- ECB+ -------------------------------------------------------------------------------------------
#: an ECB+ document as the CAT tool wrote them: no XML declaration, two spaces before the
#: end of a start tag without a note, blank lines between groups of markables, relations
#: and their sources in the order they were made
ECB = """<Document doc_name="1_10ecb.xml" doc_id="DOC1">
<token t_id="1" sentence="0" number="0">Reid</token>
<token t_id="2" sentence="0" number="1">checked</token>
<token t_id="3" sentence="0" number="2">in</token>
<token t_id="4" sentence="1" number="0">She</token>
<Markables>
<HUMAN_PART_PER m_id="20"  >
  <token_anchor t_id="4"/>
</HUMAN_PART_PER>
<ACTION_OCCURRENCE m_id="31"  >
  <token_anchor t_id="2"/>
  <token_anchor t_id="3"/>
</ACTION_OCCURRENCE>


<HUMAN_PART_PER m_id="21" note="byCROMER" >
  <token_anchor t_id="1"/>
</HUMAN_PART_PER>


<HUMAN_PART_PER m_id="43" RELATED_TO="" TAG_DESCRIPTOR="t1b_tara_reid" instance_id="HUM162" />
</Markables>

<Relations>
<CROSS_DOC_COREF r_id="37614" note="HUM162" >
  <source m_id="21" />
  <source m_id="20" />
  <target m_id="43" />
</CROSS_DOC_COREF>

</Relations>
</Document>
"""


def test_an_ecbplus_document_is_written_back_as_it_was(tmp_path):
    path = _write(tmp_path, "1_10ecb.xml", ECB)
    out = tmp_path / "out"
    report = corefio.convert(path, out, "ecbplus", "ecbplus")
    assert (out / "1" / "1_10ecb.xml").read_text() == ECB
    assert [d for d in report if d.severity != "info"] == []


def test_a_changed_ecbplus_document_is_written_anew(tmp_path):
    corpus = read(_write(tmp_path, "1_10ecb.xml", ECB), "ecbplus")
    doc = corpus[0]
    changed = doc.copy(markables=[m for m in doc.markables if m.id != "31"])
    written = dumps(corpus.copy(documents=[changed]), "ecbplus")
    written = written.decode("utf-8") if isinstance(written, bytes) else written
    assert 'm_id="31"' not in written and written != ECB
    again = read(_write(tmp_path / "again", "1_10ecb.xml", written), "ecbplus")
    assert sorted((m.id, m.entity) for m in again[0].markables) == [("20", "HUM162"), ("21", "HUM162")]


# -- the independent counters of tests/oracle_cdcr.py -----------------------------------------------
def test_the_counters_count_what_the_readers_read(tmp_path):
    files = [(_write(tmp_path, "10ecb.conll", UCDCR), "cdcr-conll"),
             (_write(tmp_path, "mentions.json", json.dumps(MENTIONS)), "wec"),
             (_write(tmp_path, "1_10ecb.xml", ECB), "ecbplus")]
    expected = [{"documents": 2, "tokens": 7, "sentences": 3, "mentions": 4, "entities": 3},
                {"documents": 2, "tokens": 11, "sentences": 2, "mentions": 2, "entities": 2},
                {"documents": 1, "tokens": 4, "sentences": 2, "mentions": 3, "entities": 2, "discontinuous": 0}]
    for (path, format), want in zip(files, expected):
        found = counts(path, format)
        assert {k: found[k] for k in want} == want, format
        corpus = read(path, format)
        assert sum(len(d.markables) for d in corpus) == want["mentions"]
        assert sum(len(d.chain_indices()) for d in corpus) == want["entities"]


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_canonical_ignores_what_the_file_read_looked_like(tmp_path):
    conll = read(_write(tmp_path, "10ecb.conll", UCDCR), "cdcr-conll")
    text = dumps(conll, "cdcr-conll", canonical=True)
    assert text.startswith("#begin document 10\n") and "HUM17" not in text  # Cattan et al.'s, numbered
    wec = read(_write(tmp_path, "mentions.json", json.dumps(MENTIONS, indent=4)), "wec")
    assert dumps(wec, "wec", canonical=True) == dumps(wec.copy(layout={}), "wec") != json.dumps(MENTIONS, indent=4)
    ecb = read(_write(tmp_path, "1_10ecb.xml", ECB), "ecbplus")
    written = dumps(ecb, "ecbplus", canonical=True)
    written = written.decode("utf-8") if isinstance(written, bytes) else written
    assert written.startswith("<?xml") and written != ECB
