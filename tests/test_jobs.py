"""``--jobs N``: every command gives, with several processes, the output one process
gives (byte for byte, in the same order, same errors and exit codes); and ``validate``
streams (one document in memory at a time) with the report reading the whole file gave."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from corefio import validation
from corefio.diagnostics import Report
from corefio.registry import get_format
from corefio.source import Source


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
