"""Empty tokens and zero mentions when scoring (CorefUD's empty nodes).

An *empty token* (:attr:`corefio.model.Tokens.empty`, a CoNLL-U empty node such as
``8.1``) is a word that is understood but not in the text. A *zero mention* is a mention
whose head is an empty token (a mention without an annotated head: its first token), as
corefud-scorer decides it. What happens to them when scoring (``--keep-zeros``,
``--zero-match``):

``drop`` (the default)
    zero mentions are left out of both key and response before matching. Mentions that
    merely contain an empty token stay, with it.
``linear``
    zero mentions are kept and matched like any mention, by the places of their tokens.
``dependent``
    zero mentions are kept; before any other matching step, key and response zeros of
    the same sentence are paired by their enhanced dependencies (the ``deps`` column: a
    maximum-weight one-to-one assignment where a pair weighs 10 × the F1 of their
    ``(parent, relation)`` sets plus the F1 of their parent sets), and only the zeros
    left unpaired go on to the usual steps (:mod:`corefio.compare.matching`).

This is corefud-scorer v1.2's behaviour (which keeps zeros and uses ``dependent`` by
default; corefio drops them by default, as the UA scorer does). One difference:
corefud-scorer fails with a division by zero when a zero mention has no dependencies
(``deps`` is ``_``); corefio gives such a pair the weight 0, so those zeros are matched by
their places, as with ``linear``.

Key and response may hold different empty tokens (a system predicts zeros where the key
has none, or elsewhere), so token indices differ between the two files. Both views are
therefore put on one token sequence first (:func:`merge_empty_tokens`): every token gets
a place that does not depend on the file, ``(sentence, word, k)`` — word ``w`` of a
sentence is ``(s, w, 0)`` and an empty token written ``w.k`` (CoNLL-U's id) is
``(s, w, k)`` — the number as written, as corefud-scorer reads it: ``5.2`` is not ``5.1``
even in a file without ``5.1``; without written ids, the ``k``-th empty token after the
word — and the places of both files, merged in order, are the common tokens. The words themselves (the non-empty tokens) must be the same on both sides, as
corefud-scorer requires; when they are not, the empty tokens cannot be placed, zero
mentions are dropped with a warning and the usual retokenisation takes over.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from .mentions import MentionView
from ..diagnostics import Report

if TYPE_CHECKING:
    from . import Document

#: a token's place in its document, the same in every file of the text: (sentence, word, k)
Place = tuple[int, int, int]
#: what dependent zero matching reads of a zero mention: its sentence and its
#: enhanced dependencies as (parent place, relation)
ZeroInfo = tuple[int, frozenset[tuple[Place, str]]]

ZERO_MODES: tuple[str, ...] = ("drop", "linear", "dependent")


def zero_mode(keep_zeros: bool, zero_match: str) -> str:
    """The one setting scoring uses: ``drop``, or how kept zeros are matched."""
    return zero_match if keep_zeros else "drop"


def token_places(sentences: list[tuple[int, int]], empty: set[int], ids: list[str] | None = None) -> list[Place]:
    """The place of every token (see the module docstring). ``ids``: the token ids as
    the file wrote them (CoNLL-U ``5.2``); an empty token's ``k`` is then its written
    number, as corefud-scorer reads it (a file may leave ``5.1`` out and write ``5.2``),
    otherwise its rank after the word."""
    places: list[Place] = []
    for s, (first, last) in enumerate(sentences):
        word = k = 0
        for i in range(first, last + 1):
            if i in empty:
                k += 1
                places.append((s, word, _written_number(ids[i], word) or k if ids is not None else k))
            else:
                word += 1
                k = 0
                places.append((s, word, 0))
    if ids is not None and any(a >= b for a, b in zip(places, places[1:])):
        return token_places(sentences, empty)  # numbers out of order or repeated: ranks instead
    return places


def _written_number(token_id: str, word: int) -> int | None:
    """``k`` of an empty token's id ``word.k``; None when the id is not of that form."""
    before, dot, after = token_id.partition(".")
    # at most 18 digits each: int() refuses 4,300 and more (a hostile id is no id of this form)
    if dot and 0 < len(before) <= 18 and before.isascii() and before.isdigit() and int(before) == word \
            and 0 < len(after) <= 18 and after.isascii() and after.isdigit() and int(after) > 0:
        return int(after)
    return None


def written_ids(doc: "Document") -> list[str] | None:
    """The token ids the source file wrote, when its format kept them (CoNLL-U's
    layout keeps the ids of a document with empty nodes)."""
    ids = doc.tokens.ids
    if ids is None:
        layout = doc.layout.get("conllu")
        ids = getattr(layout, "ids", None)
    return list(ids) if ids is not None and len(ids) == len(doc.tokens.forms) else None


def _parent_place(sentence: int, parent: str) -> Place | None:
    """The place a CoNLL-U ``deps`` parent id (``15``, ``13.1``, ``0``) names."""
    word, dot, k = parent.partition(".")
    # at most 18 digits, as in _written_number: int() refuses 4,300 and more
    if not (0 < len(word) <= 18 and word.isascii() and word.isdigit()) or (
            dot and not (0 < len(k) <= 18 and k.isascii() and k.isdigit())):
        return None
    return (sentence, int(word), int(k) if dot else 0)


def parse_deps(value: str | None, sentence: int) -> frozenset[tuple[Place, str]]:
    """A CoNLL-U ``deps`` value (``15:nsubj|13.1:obj``) as (parent place, relation) pairs."""
    if not value or value == "_":
        return frozenset()
    out = set()
    for item in value.split("|"):
        parent, _, relation = item.partition(":")
        place = _parent_place(sentence, parent)
        if place is not None:
            out.add((place, relation))
    return frozenset(out)


def document_places(doc: "Document") -> tuple[list[Place], dict[int, ZeroInfo]] | None:
    """Places of ``doc``'s tokens and the zero information of its empty tokens; None
    when it has no empty token."""
    empty = doc.tokens.empty
    if not empty:
        return None
    n = len(doc.tokens.forms)
    sentences = [(s.first, s.last) for s in doc.sentences] or [(0, n - 1)]
    places = token_places(sentences, set(empty), written_ids(doc))
    deps = doc.tokens.attributes.get("deps")
    info = {i: (places[i][0], parse_deps(deps[i] if deps is not None else None, places[i][0])) for i in empty}
    return places, info


def zero_of(spans: tuple, head: tuple | None, info: dict[int, ZeroInfo]) -> ZeroInfo | None:
    """What makes a mention a zero: its head token (its first token when it has no
    head) is empty. None for any other mention."""
    first = head[0][0] if head else spans[0][0]
    return info.get(first)


def _f1(a: frozenset, b: frozenset) -> float:
    common = len(a & b)
    if not common:
        return 0.0
    p, r = common / len(a), common / len(b)
    return 2 * p * r / (p + r)


def dependent_weight(key: ZeroInfo, response: ZeroInfo) -> float:
    """How well a response zero stands for a key zero by their dependencies (module doc)."""
    if key[0] != response[0]:
        return 0.0
    exact = _f1(key[1], response[1])
    parents = _f1(frozenset(p for p, _ in key[1]), frozenset(p for p, _ in response[1]))
    return 10 * exact + parents


# -- putting key and response on one token sequence ------------------------------------------
def spans_of(tokens: list[int]) -> tuple[tuple[int, int], ...]:
    """Sorted distinct token indices as canonical spans (maximal runs)."""
    out: list[tuple[int, int]] = []
    for t in tokens:
        if out and t == out[-1][1] + 1:
            out[-1] = (out[-1][0], t)
        else:
            out.append((t, t))
    return tuple(out)


def moved_spans(marks: tuple | None, new: list[int]) -> tuple | None:
    """Spans (or None) moved to new token indices (a negative index: the token is gone)."""
    if not marks:
        return marks
    return spans_of(sorted({new[i] for a, b in marks for i in range(a, b + 1) if new[i] >= 0})) or None


def _move(view: MentionView, places: list[Place], index: dict[Place, int], forms: list[str],
          pos: list[str | None] | None, keep: bool) -> tuple[MentionView, int]:
    new = [index[p] for p in places]
    chains = []
    dropped = 0
    for chain in view.mentions:
        moved = []
        for m in chain:
            if m.zero is not None and not keep:
                dropped += 1
                continue
            min_ = tuple((new[a], new[b]) for a, b in m.min) if m.min else m.min
            spans = spans_of(sorted({new[i] for a, b in m.spans for i in range(a, b + 1)}))
            moved.append(m._replace(spans=spans, head=moved_spans(m.head, new), min=min_))
        if moved:
            chains.append(moved)
    return MentionView(view.label, forms, chains, pos), dropped


def _without_empty_tokens(view: MentionView) -> tuple[MentionView, int]:
    """``view`` on its words only: zero mentions dropped, empty tokens taken out of the
    other mentions (a mention of empty tokens only is dropped too)."""
    assert view.places is not None
    keep = [i for i, p in enumerate(view.places) if p[2] == 0]
    new = [-1] * len(view.places)
    for k, i in enumerate(keep):
        new[i] = k
    chains = []
    dropped = 0
    for chain in view.mentions:
        moved = []
        for m in chain:
            tokens = sorted({new[i] for a, b in m.spans for i in range(a, b + 1) if new[i] >= 0})
            if m.zero is not None or not tokens:
                dropped += 1
                continue
            head = spans_of(sorted({new[i] for a, b in m.head for i in range(a, b + 1) if new[i] >= 0})) \
                if m.head else m.head
            moved.append(m._replace(spans=spans_of(tokens), head=head or None, min=moved_spans(m.min, new)))
        if moved:
            chains.append(moved)
    pos = [view.pos[i] for i in keep] if view.pos is not None else None
    return MentionView(view.label, [view.forms[i] for i in keep], chains, pos), dropped


def _words_only(places: list[Place]) -> list[Place]:
    return [p for p in places if p[2] == 0]


def _refuse_empty_tokens_as_words(key: MentionView, response: MentionView) -> None:
    """One side has empty tokens and the other has the same tokens as ordinary words
    (a CoNLL-U file converted to a format without empty nodes): an error naming them,
    and how to write the file without them."""
    for side, other, name, other_name in ((key, response, "key", "response"), (response, key, "response", "key")):
        if side.places is None or other.places is not None or list(other.forms) != list(side.forms):
            continue
        empty = [(i, p) for i, p in enumerate(side.places) if p[2]]
        if not empty:
            continue
        from ..errors import AlignmentError

        shown = ", ".join(f"sentence {p[0] + 1} node {p[1]}.{p[2]} «{side.forms[i]}»" for i, p in empty[:3])
        more = f" and {len(empty) - 3} more" if len(empty) > 3 else ""
        raise AlignmentError(
            f"{key.label}: the {other_name} has the {name}'s {len(empty)} empty node(s) as ordinary words "
            f"({shown}{more}): it was written from the CoNLL-U file by a format without empty nodes. "
            f"Convert without them (corefio convert -r drop_empty_nodes=true), or score against a {name} "
            "converted the same way")


def merge_empty_tokens(key: MentionView, response: MentionView, zeros: str,
                       report: Report | None = None) -> tuple[MentionView, MentionView]:
    """Key and response on one token sequence, zero mentions dropped unless ``zeros``
    keeps them (see the module docstring). Views without empty tokens pass unchanged."""
    if key.places is None and response.places is None:
        return key, response
    kp, rp = key.places, response.places
    _refuse_empty_tokens_as_words(key, response)
    # a side without empty tokens takes the other side's word places when it has as many words
    if kp is None and rp is not None and len(key.forms) == len(_words_only(rp)):
        kp = _words_only(rp)
    if rp is None and kp is not None and len(response.forms) == len(_words_only(kp)):
        rp = _words_only(kp)
    if kp is None or rp is None or _words_only(kp) != _words_only(rp):
        # the words differ: the empty tokens have no common place
        dropped = 0
        if key.places is not None:
            key, n = _without_empty_tokens(key)
            dropped += n
        if response.places is not None:
            response, n = _without_empty_tokens(response)
            dropped += n
        if report is not None:
            report.warning("score.zeros-unplaced", "key and response differ in their words, so empty tokens "
                           "cannot be placed: they and zero mentions are left out", document=key.label,
                           count=dropped, merge=True)
        return key, response
    merged = sorted(set(kp) | set(rp))
    index = {p: i for i, p in enumerate(merged)}
    forms = [""] * len(merged)
    pos: list[str | None] | None = [None] * len(merged) if key.pos is not None or response.pos is not None else None
    for view, places in ((response, rp), (key, kp)):  # the key's words win
        for i, p in enumerate(places):
            forms[index[p]] = view.forms[i]
            if pos is not None and view.pos is not None:
                pos[index[p]] = view.pos[i]
    keep = zeros != "drop"
    key, kd = _move(key, kp, index, forms, pos, keep)
    response, rd = _move(response, rp, index, forms, pos, keep)
    if report is not None and (kd or rd):
        report.warning("score.zeros-dropped", "zero mentions left out (--keep-zeros keeps them)",
                    document=key.label, count=kd + rd, merge=True, example=f"key {kd}, response {rd}")
    return key, response


# -- leaving empty tokens out of a document ---------------------------------------------------
def without_empty_tokens(doc: "Document") -> tuple["Document", int, int]:
    """``doc`` without its empty tokens (CoNLL-U's empty nodes), for formats and tools that
    have none: ``(document, empty tokens removed, zero mentions removed)``.

    A mention made of empty tokens only (a zero) leaves with the links from and to it;
    other mentions lose their empty tokens, and one headed by an empty token is headed by
    its first word (udapi's default). Enhanced dependencies (``deps``) naming an empty
    token are left out (a word left without any gets its basic one, ``HEAD:DEPREL``, so
    that the enhanced graph stays connected); a CoNLL-U layout loses what concerned the empty tokens (their
    ids, their MISC values). A document without empty tokens is returned as it is.
    """
    from dataclasses import replace

    empty = set(doc.tokens.empty or ())
    if not empty:
        return doc, 0, 0
    n = len(doc.tokens.forms)
    keep = [i for i in range(n) if i not in empty]
    new = [-1] * n
    for k, i in enumerate(keep):
        new[i] = k
    tokens = doc.tokens

    def column(values: list | None) -> list | None:
        return None if values is None else [values[i] for i in keep]

    attributes = {name: [values[i] for i in keep] for name, values in tokens.attributes.items()}
    deps = attributes.get("deps")
    if deps is not None:
        heads, relations = attributes.get("head"), attributes.get("deprel")
        kept_deps = []
        for k, value in enumerate(deps):
            value = _deps_without_empty(value)
            if value == "_" and deps[k] not in (None, "_") and heads is not None and relations is not None \
                    and heads[k] not in (None, "_") and relations[k] not in (None, "_"):
                value = f"{heads[k]}:{relations[k]}"  # its only enhanced parents were empty: the basic one
            kept_deps.append(value)
        attributes["deps"] = kept_deps
    new_tokens = tokens.copy(forms=[tokens.forms[i] for i in keep], ids=column(tokens.ids),
                             whitespace=column(tokens.whitespace), offsets=column(tokens.offsets),
                             attributes=attributes, empty=None)
    sentences = []
    for s in doc.sentences:
        words = [new[i] for i in range(s.first, s.last + 1) if new[i] >= 0]
        if not words:
            continue
        # an interleaved line before the sentence's token ``off`` stands before the words kept before it
        inter = [(sum(1 for i in range(s.first, s.first + off) if new[i] >= 0), raw) for off, raw in s.interleaved]
        sentences.append(s.copy(first=words[0], last=words[-1], interleaved=inter))
    markables = []
    gone: set[str] = set()
    zeros = 0
    for m in doc.markables:
        spans = spans_of(sorted({new[i] for a, b in m.spans for i in range(a, b + 1) if new[i] >= 0}))
        if not spans:
            zeros += 1
            gone.add(m.ref)
            continue
        head = moved_spans(m.head, new) if m.head else m.head
        if m.head and not head:
            head = ((spans[0][0], spans[0][0]),)
        min_ = moved_spans(m.min, new) if m.min else m.min
        markables.append(m.copy(spans=spans, head=head, min=min_))
    links = [link for link in doc.links if link.source not in gone
             and not (link.target_kind == "markable" and gone & set(link.targets))]
    layout = dict(doc.layout)
    lay = layout.get("conllu")
    if lay is not None and hasattr(lay, "misc"):
        lay = cast(Any, lay)  # CoNLL-U's layout (corefio.formats.conllu.ConlluLayout), not imported here
        ids = [lay.ids[i] for i in keep] if getattr(lay, "ids", None) is not None and len(lay.ids) == n else None
        derived = [str(i - s.first + 1) for s in sentences for i in range(s.first, s.last + 1)]
        layout["conllu"] = replace(lay, misc={new[t]: v for t, v in lay.misc.items() if new[t] >= 0},
                                   ids=None if ids is None or ids == derived else ids)
    return doc.copy(tokens=new_tokens, sentences=sentences, markables=markables, links=links,
                    layout=layout), len(empty), zeros


def _deps_without_empty(value: str | None) -> str | None:
    """An enhanced-dependencies value without the relations to empty nodes (``5.1:nsubj``)."""
    if not value or value == "_":
        return value
    items = [item for item in value.split("|") if "." not in item.partition(":")[0]]
    return "|".join(items) if items else "_"
