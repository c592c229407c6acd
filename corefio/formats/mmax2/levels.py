"""Span syntax and the text helpers level and base data files share.

A span is ``fragment(,fragment)*`` where a fragment is one word id (``word_7``) or a
range of word ids (``word_3..word_9``). A range covers the words *in base data order*
from the first id to the second (not numerically: ids need not be numbered in order);
``word_33..word_33`` is one word. Several fragments that leave gaps make a
discontinuous markable; MMAX2 also writes adjacent words as fragments of their own
(``word_36,word_37``), which is the same markable as ``word_36..word_37``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ...model.document import Span, contiguous_spans


class SpanError(ValueError):
    """A span naming a word the base data does not have, or a range running backwards."""

    def __init__(self, message: str, spans: tuple[Span, ...] = ()) -> None:
        super().__init__(message)
        #: what is left of the span without the faulty parts
        self.spans = spans


def parse_span(text: str, index: dict[str, int]) -> tuple[Span, ...]:
    """Token spans of ``text``; raises :class:`SpanError` (with the usable rest)."""
    if "," not in text:
        return (_fragment(text.strip(), index),)
    tokens: list[int] = []
    problems: list[str] = []
    for frag in text.split(","):
        frag = frag.strip()
        if not frag:
            continue
        try:
            a, b = _fragment(frag, index)
        except SpanError as exc:
            problems.append(str(exc))
            continue
        tokens.extend(range(a, b + 1))
    spans = contiguous_spans(tokens)
    if problems:
        raise SpanError("; ".join(problems), spans)
    if not spans:
        raise SpanError(f"empty span {text!r}")
    return spans


def _fragment(frag: str, index: dict[str, int]) -> Span:
    if ".." in frag:
        first, _, last = frag.partition("..")
        a = index.get(first.strip())
        b = index.get(last.strip())
        if a is None or b is None:
            missing = first if a is None else last
            raise SpanError(f"span names word {missing.strip()!r}, which the base data does not have")
        if b < a:
            raise SpanError(f"range {frag!r} runs backwards in the base data")
        return (a, b)
    a = index.get(frag)
    if a is None:
        raise SpanError(f"span names word {frag!r}, which the base data does not have")
    return (a, a)


def render_span(spans: tuple[Span, ...], ids: list[str]) -> str:
    """The span text the writer produces: one fragment per contiguous span."""
    return ",".join(ids[a] if a == b else f"{ids[a]}..{ids[b]}" for a, b in spans)


_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
_BAD_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
RESERVED = frozenset({"id", "span", "mmax_level"})


@lru_cache(maxsize=4096)
def is_attribute_name(name: str) -> bool:
    """Can ``name`` be written as an XML attribute of a markable or word?"""
    return bool(_NAME.match(name)) and name not in RESERVED and not name.lower().startswith("xml")


def clean(text: str) -> tuple[str, bool]:
    """``text`` without the characters XML 1.0 cannot hold; and whether any were dropped."""
    if _BAD_CHARS.search(text):
        return _BAD_CHARS.sub("", text), True
    return text, False


def attr(value: str) -> str:
    """``value`` escaped for a double-quoted attribute (newlines and tabs kept)."""
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;"))


def text(value: str) -> str:
    """``value`` escaped as element content (a carriage return kept as a reference)."""
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;")
