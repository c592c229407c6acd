"""Hardening of the CorefUD and UA writers and readers: work that grows with the file,
document parts, empty nodes (issues on the CoNLL-U writer's entity ids, UA parts and
empty nodes)."""

from __future__ import annotations

import corefio
from corefio.diagnostics import Report
from corefio.formats import conllu


def _conll(documents: int, chains: int = 20) -> str:
    """CoNLL-2012 text: ``documents`` documents, each with ``chains`` two-mention chains
    labelled 1, 2, ... (the same labels in every document)."""
    out = []
    for d in range(documents):
        out.append(f"#begin document (doc{d}); part 000")
        for c in range(1, chains + 1):
            for _ in range(2):
                out.append(f"doc{d}\t0\t0\tw\tNN\t*\t-\t-\t-\t-\t*\t({c})")
        out.append("")
        out.append("#end document")
    return "\n".join(out) + "\n"


def _probes(documents: int, monkeypatch) -> tuple[int, str]:
    corpus = corefio.loads(_conll(documents), "conll")
    count = 0
    original = conllu._Taken.__contains__

    def counting(self, name):
        nonlocal count
        count += 1
        return original(self, name)

    monkeypatch.setattr(conllu._Taken, "__contains__", counting)
    text = corefio.dumps(corpus, "conllu", report=Report())
    monkeypatch.setattr(conllu._Taken, "__contains__", original)
    return count, text


def test_entity_ids_of_a_file_cost_the_same_per_document(monkeypatch):
    """The writer keeps the file's entity ids in one structure and the next free number:
    each document counts on from there instead of copying the ids of every earlier
    document and counting up from e1 past them (which made writing quadratic)."""
    small, _ = _probes(20, monkeypatch)
    large, text = _probes(200, monkeypatch)
    assert large <= 11 * small  # ten times the documents, about ten times the look-ups
    # ids stay unique in the file, and numbered without gaps
    back = corefio.loads(text, "conllu")
    ids = [m.entity for d in back.documents for m in d.markables]
    assert len(set(ids)) == 200 * 20
    # the first document keeps its own ids, the others count on from e1
    assert set(ids) == {str(c) for c in range(1, 21)} | {f"e{n}" for n in range(1, 199 * 20 + 1)}


def test_ua_keeps_document_parts(tmp_path):
    """The UA writer wrote ``# newdoc id = NAME`` only: the parts of a CoNLL-2012 document
    were lost unreported (and merged when read back). Now ``# part = P`` follows, the reader
    takes it back, and two documents of one name are reported (UA tools know a document
    by its newdoc id alone)."""
    text = ("#begin document (d); part 000\nd\t0\t0\tJohn\tNNP\t*\t-\t-\t-\t-\t*\t(1)\n"
            "d\t0\t1\the\tPRP\t*\t-\t-\t-\t-\t*\t(1)\n\n#end document\n"
            "#begin document (d); part 001\nd\t1\t0\tMary\tNNP\t*\t-\t-\t-\t-\t*\t(2)\n"
            "d\t1\t1\tshe\tPRP\t*\t-\t-\t-\t-\t*\t(2)\n\n#end document\n")
    corpus = corefio.loads(text, "conll")
    report = Report()
    written = corefio.dumps(corpus, "ua", report=report)
    assert "# newdoc id = d\n# part = 000\n" in written and "# part = 001\n" in written
    assert report.by_code("ua.same-name")
    back = corefio.loads(written, "ua")
    assert [(d.name, d.part) for d in back.documents] == [("d", "000"), ("d", "001")]
    assert [len(d.markables) for d in back.documents] == [2, 2]
    # written back as read, and canonically
    assert corefio.dumps(back, "ua") == written
    assert corefio.loads(corefio.dumps(back, "ua", canonical=True), "ua").documents[1].part == "001"
    # a document without a part gets no part line
    no_part = back.documents[0].copy(part=None)
    assert "# part" not in corefio.dumps(corefio.model.Corpus(documents=[no_part]), "ua", canonical=True)
    # scored against the CoNLL it came from, part by part
    key = tmp_path / "key.conll"
    key.write_text(text)
    response = tmp_path / "response.conllua"
    response.write_text(written)
    scores = corefio.score(key, response, ["muc"])
    assert scores["muc"].f1 == 1
