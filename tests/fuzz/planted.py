"""A toy format with planted defects, to show that the fuzzer finds each kind.

Only ``test_fuzz_budget.py`` imports it, in a child process: registering it in the
test process would put it in front of every other test that walks the registry.

The format: one sentence per line, tokens separated by spaces or tabs, ``#`` lines are
comments. The planted defects:

* a ``(`` anywhere makes the reader raise ``KeyError`` (check ``exception``);
* two TABs in a row make it sleep for a minute (check ``hang``);
* a ``|`` makes it refuse the input without naming the line (check ``location``);
* a digit makes it ask for 64 GB (check ``memory``: the child's address space is capped);
* a ``=`` makes it compute for 0.25 s of CPU the first time it reads a text (check
  ``slow``, with the campaign's limit set to 0.1 s);
* it knows LF line ends only: with CR line ends, the whole file is one line, a comment
  when the file starts with one (check ``equivalence``);
* the writer leaves out tokens that start with ``a`` (check ``roundtrip``).

A second toy format, ``fuzzplantedproject``, is a directory format made of the first
one: a project is a directory of ``.fpp`` files, one document each, with the same
defects; it shows that project inputs (one file of a seed project mutated) are checked,
minimised, saved and replayed.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator

from corefio.errors import FormatError
from corefio.io.source import Source
from corefio.model import Corpus, Document, Sentence, Tokens
from corefio.formats.registry import Capabilities, FormatSpec, register

NAME = "fuzzplanted"


def read(source, *, report, strict) -> Corpus:
    return Corpus(documents=[_document(source.read_text(), source.stem)])


#: texts the ``=`` defect has computed for already
_COMPUTED: set[str] = set()


def _document(text: str, name: str) -> Document:
    if "=" in text and text not in _COMPUTED:  # once per text: the other steps stay fast
        _COMPUTED.add(text)
        until = time.process_time() + 0.25
        while time.process_time() < until:
            pass
    if "(" in text:
        raise KeyError("planted: an opening bracket")
    if "\t\t" in text:
        time.sleep(60)
    if any(c in text for c in "0123456789"):
        bytearray(64 << 30)
    if "|" in text:
        raise FormatError("planted: a vertical bar")
    forms: list[str] = []
    sentences = []
    for line in text.split("\n"):
        if line.startswith("#"):
            continue
        words = line.split()
        if words:
            sentences.append(Sentence(first=len(forms), last=len(forms) + len(words) - 1))
            forms.extend(words)
    return Document(name=name, tokens=Tokens(forms=forms), sentences=sentences)


def write(documents: Iterable[Document], *, corpus: Corpus, report) -> Iterator[str]:
    for doc in documents:
        for s in doc.sentences:
            yield " ".join(f for f in doc.tokens.forms[s.first:s.last + 1] if not f.startswith("a")) + "\n"


register(FormatSpec(
    name=NAME,
    description="toy format with planted defects (fuzzer self-test)",
    extensions=(".fuzzplanted",),
    capabilities=Capabilities(multiple_documents=False),
    read=read,
    write=write,
))


PROJECT_NAME = "fuzzplantedproject"


def read_project(source, *, report, strict) -> Corpus:
    files = sorted(source.path.glob("*.fpp"))
    if not files:
        raise FormatError("no .fpp file: not a planted project", file=source.path)
    return Corpus(documents=[_document(Source.of(f).read_text(), f.stem) for f in files])


def write_project(corpus: Corpus, *, report) -> dict[str, bytes]:
    return {f"{doc.name}.fpp": "".join(write([doc], corpus=corpus, report=report)).encode()
            for doc in corpus.documents}


register(FormatSpec(
    name=PROJECT_NAME,
    description="toy directory format with planted defects (fuzzer self-test)",
    extensions=(),
    capabilities=Capabilities(),
    read=read_project,
    write_files=write_project,
    directory=True,
))
