"""Aligning two tokenisations of the same text.

A system's tokenizer rarely agrees with the key's: ``l'`` against ``l`` + ``'``, a
contraction kept whole on one side and split on the other (CoNLL-U multi-word tokens:
``des`` = ``de`` + ``les``), or a file that lists both the contraction and its parts
(e2e-coref jsonlines made from CoNLL-U do). Spans of one side can still be carried over
to the other as long as both spell the same characters.

The rule:

1. Match the two lists of word forms with :class:`difflib.SequenceMatcher` (no junk
   heuristics). Equal runs map token to token.
2. A run that differs is compared by its characters, whitespace ignored. Same
   characters: each token of one side maps to the tokens of the other side it shares
   characters with (a token may map to several, and a mention boundary may then fall
   inside a token of the other side: reported, the mention widened to whole tokens).
3. A token present on one side only is allowed when it is a multi-word-token surface
   form whose parts stand next to it (``des`` before ``de les``): it maps to its parts.
4. Anything else means the texts differ: :class:`~corefio.errors.AlignmentError` names
   the first place where they diverge, with a little context from each side.
"""

from __future__ import annotations

from collections.abc import Sequence
import unicodedata
from difflib import SequenceMatcher

from ..errors import AlignmentError  # noqa: F401  (raised here; defined with the other errors)

#: token index of the other side: (first, last) inclusive, or None (no counterpart)
TokenMap = list[tuple[int, int] | None]


def _squash(text: str) -> str:
    return "".join(text.split())


def map_tokens(source: Sequence[str], target: Sequence[str], label: str = "document",
               names: tuple[str, str] = ("response", "key")) -> TokenMap:
    """For each token of ``source``, the tokens of ``target`` with the same characters
    (``names``: what messages call the source and the target)."""
    if list(source) == list(target):
        return [(i, i) for i in range(len(source))]
    out: TokenMap = [None] * len(source)
    matcher = SequenceMatcher(None, list(source), list(target), autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            for k in range(a2 - a1):
                out[a1 + k] = (b1 + k, b1 + k)
            continue
        if _squash("".join(source[a1:a2])) == _squash("".join(target[b1:b2])):
            _map_by_characters(source, target, a1, a2, b1, b2, out)
            continue
        if _surfaces_of_parts(source, a1, a2, out, target, b1, b2):
            continue
        raise AlignmentError(_divergence(source, target, a1, b1, label, names))
    return out


def _map_by_characters(source: Sequence[str], target: Sequence[str], a1: int, a2: int, b1: int, b2: int,
                       out: TokenMap) -> None:
    """Map source tokens a1..a2 onto target tokens b1..b2 that spell the same characters."""
    owner: list[int] = []  # target token of each character of the run
    for j in range(b1, b2):
        owner.extend([j] * len(_squash(target[j])))
    pos = 0
    for i in range(a1, a2):
        n = len(_squash(source[i]))
        if n == 0:
            continue
        out[i] = (owner[pos], owner[pos + n - 1])
        pos += n


def _surfaces_of_parts(source: Sequence[str], a1: int, a2: int, out: TokenMap, target: Sequence[str],
                       b1: int, b2: int) -> bool:
    """Runs that differ only by multi-word-token surfaces standing before their parts."""
    if a2 - a1 == 1 and b1 == b2:
        # a token only the source has: a surface whose parts follow it in the source
        i = a1
        for k in range(2, 5):
            if i + k < len(source) + 1 and _looks_like_contraction(source[i], source[i + 1:i + 1 + k]):
                return True  # no counterpart of its own; its parts map themselves
        return False
    if b2 - b1 == 1 and a1 == a2:
        j = b1
        return any(_looks_like_contraction(target[j], target[j + 1:j + 1 + k]) for k in range(2, 5))
    return False


def _looks_like_contraction(surface: str, parts: Sequence[str]) -> bool:
    """``des`` = ``de les``, ``du`` = ``de le``, ``au`` = ``à le``, ``zum`` = ``zu dem``:
    a short word that starts like the first of the words after it (accents aside) and
    is shorter than those words together."""
    if len(parts) < 2 or not surface:
        return False
    return _base(surface[:1]) == _base(parts[0][:1]) and len(surface) < sum(len(p) for p in parts)


def _base(char: str) -> str:
    """A letter without its accents, lower case."""
    return unicodedata.normalize("NFD", char)[:1].lower()


def _divergence(source: Sequence[str], target: Sequence[str], i: int, j: int, label: str,
                names: tuple[str, str]) -> str:
    (sname, tname) = names
    here = " ".join(source[max(0, i - 3): i + 4])
    there = " ".join(target[max(0, j - 3): j + 4])
    return (f"{label}: the {tname} and the {sname} do not have the same text; they diverge at {tname} token "
            f"{j + 1} / {sname} token {i + 1}: {tname} «{there}» vs {sname} «{here}»")


def map_spans(spans: tuple[tuple[int, int], ...], mapping: TokenMap) -> tuple[tuple[tuple[int, int], ...], int]:
    """A mention's spans on the target's tokens, touching spans merged, and how many of
    them had to be widened; ``()`` when no token has a counterpart."""
    merged: list[tuple[int, int]] = []
    widened = 0
    for span in spans:
        new, wide = map_span(span, mapping)
        widened += wide
        if new is None:
            continue
        if merged and new[0] <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(new[1], merged[-1][1]))
        else:
            merged.append(new)
    return tuple(merged), widened


def map_marks(spans: tuple[tuple[int, int], ...] | None, mapping: TokenMap) -> tuple[tuple[int, int], ...] | None:
    """Heads or MIN alternatives on the target's tokens (each kept apart), or None."""
    if spans is None:
        return None
    moved = tuple(new for new in (map_span(s, mapping)[0] for s in spans) if new is not None)
    return moved or None


def map_span(span: tuple[int, int], mapping: TokenMap) -> tuple[tuple[int, int] | None, bool]:
    """A source span on the target's tokens, and whether it had to be widened (a
    boundary inside a target token) — None when no token of it has a counterpart."""
    first = last = None
    exact = True
    for i in range(span[0], span[1] + 1):
        m = mapping[i]
        if m is None:
            continue
        if first is None:
            first = m[0]
        last = m[1]
    if first is None or last is None:
        return None, False
    # widened when a neighbour outside the span maps into the same target token
    a, b = span
    if a > 0 and mapping[a - 1] is not None and mapping[a - 1][1] >= first:  # type: ignore[index]
        exact = False
    if b + 1 < len(mapping) and mapping[b + 1] is not None and mapping[b + 1][0] <= last:  # type: ignore[index]
        exact = False
    return (first, last), not exact
