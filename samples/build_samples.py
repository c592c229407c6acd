"""Rebuild the sample files from the worked example of Popescu-Belis (2000), §1.4.

The text is the 17-referring-expression guidebook passage; the key and the response are
the two partitions of Table 1:

    key       K1: 1 2 | K2: 3 4 5 | K3: 6 7 8 9 10 11 12 | K4: 13 14 15 16 17
    response  R1: 1 2 6 7 8 9 10 | R2: 3 4 5 11 12 13 14 15 16 | R3: 17

The key is written with reference links (each expression points to the previous one of
its chain, as in Figure 1 of Popescu-Belis et al. (2004)); the response with entity (set) membership. Both
carry the exact text (whitespace and character offsets). Every other sample format is
converted from these two RAF files with corefio itself.

    python samples/build_samples.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import corefio  # noqa: E402
from corefio.model import Corpus, Document, Entity, Link, Markable, Sentence, Tokens  # noqa: E402

TEXT = (
    "The western peak is 10,254 feet high. To reach it, follow for about 300 ft. a narrow "
    "passage that is often icy and slippery. This passage starts right behind the southern "
    "peak (9,742 ft.), which is, as for it, much easier to reach. This second peak is well "
    "visible, because it is very prominent. In order to reach this small turret, constantly "
    "aim at it from the large lower passage (quite easy to climb). This one is initially "
    "wide, but it becomes narrower as it runs up. Beware, this inviting cradle is somewhat "
    "slippery too."
)

#: the 17 referring expressions, in text order
EXPRESSIONS = [
    "The western peak", "it", "a narrow passage", "that", "This passage",
    "the southern peak", "which", "it", "This second peak", "it", "this small turret",
    "it", "the large lower passage", "This one", "it", "it", "this inviting cradle",
]
KEY = [[1, 2], [3, 4, 5], [6, 7, 8, 9, 10, 11, 12], [13, 14, 15, 16, 17]]
RESPONSE = [[1, 2, 6, 7, 8, 9, 10], [3, 4, 5, 11, 12, 13, 14, 15, 16], [17]]


def tokens_and_sentences() -> tuple[Tokens, list[Sentence]]:
    matches = list(re.finditer(r"[A-Za-z]+|\d[\d,]*\d|\d|[^\sA-Za-z\d]", TEXT))
    forms = [m.group() for m in matches]
    offsets = [(m.start(), m.end()) for m in matches]
    whitespace = [
        TEXT[m.end() : matches[i + 1].start()] if i + 1 < len(matches) else ""
        for i, m in enumerate(matches)
    ]
    sentences, first = [], 0
    for i, form in enumerate(forms):
        ends = form == "." and (i == 0 or forms[i - 1] != "ft")
        if ends or i == len(forms) - 1:
            sentences.append(Sentence(first=first, last=i, id=f"s{len(sentences) + 1}"))
            first = i + 1
    return Tokens(forms=forms, whitespace=whitespace, offsets=offsets), sentences


def expression_spans(tokens: Tokens) -> list[tuple[int, int]]:
    """Token spans of the 17 expressions, found left to right in the text."""
    spans, start_char = [], 0
    for expr in EXPRESSIONS:
        pattern = re.compile(r"\b" + re.escape(expr) + r"\b")
        m = pattern.search(TEXT, start_char)
        assert m, expr
        first = next(i for i, (a, _) in enumerate(tokens.offsets) if a == m.start())
        last = next(i for i, (_, b) in enumerate(tokens.offsets) if b == m.end())
        spans.append((first, last))
        start_char = m.end()
    return spans


def key_document() -> Document:
    tokens, sentences = tokens_and_sentences()
    spans = expression_spans(tokens)
    markables = [Markable(id=f"markable_{k}", spans=(s,)) for k, s in enumerate(spans, 1)]
    links = []
    for chain in KEY:
        for prev, cur in zip(chain, chain[1:]):
            links.append(Link(id=f"reflink_{len(links) + 1}", source=f"markable_{cur}",
                              target=f"markable_{prev}"))
    return Document(name="peaks", part="000", tokens=tokens, sentences=sentences,
                    markables=markables, links=links,
                    metadata={"source": "Popescu-Belis, Evaluating reference resolution, §1.4, Table 1 (key)"})


def response_document() -> Document:
    tokens, sentences = tokens_and_sentences()
    spans = expression_spans(tokens)
    entity_of = {k: f"R{j}" for j, chain in enumerate(RESPONSE, 1) for k in chain}
    markables = [Markable(id=f"markable_{k}", spans=(s,), entity=entity_of[k])
                 for k, s in enumerate(spans, 1)]
    entities = [Entity(id=f"R{j}") for j in range(1, len(RESPONSE) + 1)]
    return Document(name="peaks", part="000", tokens=tokens, sentences=sentences,
                    markables=markables, entities=entities,
                    metadata={"source": "Popescu-Belis, Evaluating reference resolution, §1.4, Table 1 (response)"})


#: the other formats the samples are converted to (losses, e.g. whitespace, are expected)
SAMPLE_FORMATS: list[tuple[str, str]] = []


def main() -> None:
    key = Corpus(documents=[key_document()])
    response = Corpus(documents=[response_document()])
    for name, corpus in (("key", key), ("response", response)):
        corefio.write(corpus, HERE / f"{name}.raf.xml")
        for fmt, ext in SAMPLE_FORMATS:
            corefio.write(corpus, HERE / f"{name}{ext}", fmt)
    print("samples rebuilt in", HERE)


if __name__ == "__main__":
    main()
