"""Mention matching: which response mention stands for which key mention.

Scoring compares partitions of one set of mentions. When key and response mention
boundaries differ, a matching decides which response mention counts as which key
mention; after :func:`align` the response view names each matched mention exactly as
the key does, and every unmatched one by a name no key mention has.

Modes (``--match``):

``exact``
    the same tokens (today's scoring; the reference scorer's rule).
``head``
    the same head token (corefud-scorer's head matching). The exact step pairs mentions
    with the same tokens *and* the same head; the rest may pair when their heads are the
    same token, preferring the largest share of the key mention's tokens.
``min``
    MUC's rule: the response mention contains the key mention's MIN (one of its ``|``
    alternatives) and lies inside the key mention's extent.
``partial``
    corefud-scorer's "partial-corefud": the response mention's tokens all belong to the
    key mention (discontinuous mentions included) and include the key mention's head.

Heads come from the model (``Markable.head``: CorefUD's head field, MMAX2/MATE heads).
A mention without a head gets udapi's default, which corefud-scorer inherits: its first
token (udapi's ``CorefMention`` takes ``words[0]`` when the ``head`` field is missing, as
in UD English-GUM, whose ``global.Entity`` declares no ``head``). The same rule decides
which mentions are zeros (:mod:`corefio.model.zeros`) and which response mentions are
span errors (:mod:`corefio.scoring.error_analysis`): :func:`head_token` is the one place
it is written down. Defaulted heads are no annotation, so the matching says how many it
used (``match.default-head``, a warning: text output shows it). ``min`` without a MIN
falls back to the head rule.

The one-to-one rule, as corefud-scorer v1.2 (which took it from the UA scorer 2.0):
first pair identical mentions (step 1); then, among the mentions still unpaired, find a
maximum-weight one-to-one assignment where a candidate pair weighs the share of the key
mention's tokens that the response mention covers (scipy's ``linear_sum_assignment``;
mentions ordered by first token, last token, length, so that ties go to the mention
that starts, then ends, earlier). corefio solves each group of mutually overlapping
mentions separately, which gives the same total weight as one big matrix.

Zero mentions kept with ``--keep-zeros --zero-match dependent`` are paired by their
dependencies before step 1 (step 0, :mod:`corefio.model.zeros`); the zeros it leaves go on
like any mention.

Optional key mentions (MUC ``STATUS="OPT"``): when no response mention matches one, it is
removed from the key: it counts neither as missing nor as wrong.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from ..model.mentions import Mention, MentionView
from ..diagnostics import Report

MatchMode = Literal["exact", "head", "min", "partial"]
MATCH_MODES: tuple[str, ...] = ("exact", "head", "min", "partial")


@dataclass
class MatchResult:
    """Pairs ``(key index, response index)`` over the flattened mention lists."""

    pairs: list[tuple[int, int]] = field(default_factory=list)
    exact: int = 0
    default_heads: int = 0
    optional_dropped: int = 0


def _tokens(m: Mention) -> frozenset[int]:
    return frozenset(i for a, b in m.spans for i in range(a, b + 1))


def head_token(m: Mention) -> int:
    """The head token of a mention: the first token of its annotated head, else its
    first token (udapi's default, and so corefud-scorer's)."""
    return m.head[0][0] if m.head else m.spans[0][0]


def _head(m: Mention) -> tuple[frozenset[int], bool]:
    """The head tokens and whether they came from the annotation."""
    if m.head:
        return frozenset(i for a, b in m.head for i in range(a, b + 1)), True
    return frozenset({head_token(m)}), False


def _head_key(m: Mention) -> tuple:
    """The head as step 1 compares it: as annotated, or the default (:func:`head_token`)."""
    if m.head:
        return m.head
    first = head_token(m)
    return ((first, first),)


def _order(m: Mention) -> tuple[int, int, int]:
    """corefud-scorer's mention order: first token, last token, number of tokens."""
    return (m.spans[0][0], m.spans[-1][1], sum(b - a + 1 for a, b in m.spans))


def _weight(mode: str, key: Mention, response: Mention, kt: frozenset[int], rt: frozenset[int],
            kh: frozenset[int], rh: frozenset[int]) -> float:
    """How well ``response`` stands for ``key`` (0: not at all)."""
    if mode == "head":
        return len(kt & rt) / len(kt) if kh == rh else 0.0
    if mode == "partial":
        return len(kt & rt) / len(kt) if kh <= rt and rt <= kt else 0.0
    # min
    if key.min:
        contains_min = any(set(range(a, b + 1)) <= rt for a, b in key.min)
    else:
        contains_min = kh <= rt
    inside = key.spans[0][0] <= min(rt) and max(rt) <= key.spans[-1][1]
    return len(kt & rt) / len(kt) if contains_min and inside else 0.0


def _zero_pairs(key: list[Mention], response: list[Mention]) -> list[tuple[int, int]]:
    """Step 0 of dependent zero matching (:mod:`corefio.model.zeros`): key and response zero
    mentions paired by their dependencies, a maximum-weight one-to-one assignment."""
    from ..metrics._assignment import linear_sum_assignment
    from ..model.zeros import dependent_weight

    ks = sorted((i for i, m in enumerate(key) if m.zero is not None), key=lambda i: _order(key[i]))
    rs = sorted((j for j, m in enumerate(response) if m.zero is not None), key=lambda j: _order(response[j]))
    if not ks or not rs:
        return []
    weights = [[dependent_weight(key[i].zero, response[j].zero) for j in rs] for i in ks]  # type: ignore[arg-type]
    if not any(any(row) for row in weights):
        return []
    rows, cols = linear_sum_assignment([[-w for w in row] for row in weights])
    return [(ks[r], rs[c]) for r, c in zip(rows, cols) if weights[r][c] > 0]


def match_mentions(key: list[Mention], response: list[Mention], mode: str, report: Report | None = None,
                   label: str | None = None, zero_match: str | None = None) -> MatchResult:
    """The one-to-one matching of ``key`` and ``response`` mentions (see module doc);
    ``zero_match="dependent"`` pairs zero mentions by their dependencies first."""
    from ..metrics._assignment import linear_sum_assignment

    result = MatchResult()
    head_mode = mode == "head"
    if mode != "exact":
        result.default_heads = sum(1 for side in (key, response) for m in side
                                   if not m.head and (mode != "min" or not m.min))
    # step 0: zeros by their dependencies
    used: set[int] = set()
    key_done: set[int] = set()
    if zero_match == "dependent":
        result.pairs.extend(_zero_pairs(key, response))
        used.update(j for _, j in result.pairs)
        key_done.update(i for i, _ in result.pairs)
    # step 1: identical mentions (for head matching: identical tokens and head). Spans
    # are canonical (ordered, merged), so equal spans are equal token sets.
    by_shape: dict[tuple, list[int]] = {}
    for j, m in enumerate(response):
        if j not in used:
            by_shape.setdefault((m.spans, _head_key(m)) if head_mode else m.spans, []).append(j)
    key_left: list[int] = []
    for i, m in enumerate(key):
        if i in key_done:
            continue
        candidates = by_shape.get((m.spans, _head_key(m)) if head_mode else m.spans)
        found = next((j for j in candidates if j not in used), None) if candidates else None
        if found is None:
            key_left.append(i)
        else:
            used.add(found)
            result.pairs.append((i, found))
    result.exact = len(result.pairs)
    if mode == "exact" or not key_left:
        return _finish(result, report, label)
    response_left = [j for j in range(len(response)) if j not in used]
    # step 2: weighted one-to-one assignment, one group of overlapping mentions at a
    # time; token sets and heads only for the mentions step 1 left
    kt = {i: _tokens(key[i]) for i in key_left}
    rt = {j: _tokens(response[j]) for j in response_left}
    kh = {i: _head(key[i])[0] for i in key_left}
    rh = {j: _head(response[j])[0] for j in response_left}
    key_left.sort(key=lambda i: _order(key[i]))
    response_left.sort(key=lambda j: _order(response[j]))
    for ks, rs in _overlap_groups(key_left, response_left, key, response):
        weights = [[_weight(mode, key[i], response[j], kt[i], rt[j], kh[i], rh[j]) for j in rs] for i in ks]
        if not any(any(row) for row in weights):
            continue
        rows, cols = linear_sum_assignment([[-w for w in row] for row in weights])
        for r, c in zip(rows, cols):
            if weights[r][c] > 0:
                result.pairs.append((ks[r], rs[c]))
    return _finish(result, report, label)


def _finish(result: MatchResult, report: Report | None, label: str | None) -> MatchResult:
    if report is not None and result.default_heads:
        report.warning("match.default-head", "mentions without an annotated head: their first token was taken "
                       "as head (udapi's and corefud-scorer's default)", count=result.default_heads, merge=True,
                       example=label)
    return result


def _overlap_groups(ks: list[int], rs: list[int], key: list[Mention],
                    response: list[Mention]) -> Iterable[tuple[list[int], list[int]]]:
    """Groups of key and response mentions whose extents chain-overlap (a sweep over
    extents); mentions in different groups can never be matched with each other."""
    items = [(key[i].spans[0][0], key[i].spans[-1][1], 0, i) for i in ks]
    items += [(response[j].spans[0][0], response[j].spans[-1][1], 1, j) for j in rs]
    items.sort()
    group_k: list[int] = []
    group_r: list[int] = []
    end = -1
    for a, b, side, index in items:
        if a > end and (group_k or group_r):
            if group_k and group_r:
                yield sorted(group_k, key=lambda i: _order(key[i])), sorted(group_r, key=lambda j: _order(response[j]))
            group_k, group_r = [], []
        (group_k if side == 0 else group_r).append(index)
        end = max(end, b)
    if group_k and group_r:
        yield sorted(group_k, key=lambda i: _order(key[i])), sorted(group_r, key=lambda j: _order(response[j]))


def without_singletons(view: MentionView) -> MentionView:
    """``view`` without its one-mention chains (a chain that lists one span twice is
    one mention, as corefud-scorer counts it). corefud-scorer (and the UA scorer, and
    coval) leave singletons out *before* matching mentions: a key mention then cannot be
    paired with a response singleton that scoring would drop anyway, and a response
    mention stays free for another key mention. Scoring without singletons
    (:func:`corefio.scoring.views.prepare`) does the same; with exact matching the order
    matters only for chains that lose mentions on the way (zeros dropped, optional key
    mentions left unmatched, repeated spans), which stay."""
    chains = [c for c in view.mentions if any(m.spans != c[0].spans for m in c[1:])]
    if len(chains) == len(view.mentions):
        return view
    return MentionView(view.label, view.forms, chains, view.pos, view.places)


def _first_listings(flat: list[tuple[int, Mention]]) -> list[int]:
    """For each mention of ``flat``, the index of the first mention with its spans."""
    first: dict[tuple, int] = {}
    return [first.setdefault(m.spans, k) for k, (_, m) in enumerate(flat)]


def align(key: MentionView, response: MentionView, mode: str = "exact",
          report: Report | None = None, zero_match: str | None = None) -> tuple[MentionView, MentionView]:
    """Key and response views in which matched mentions have the same spans (the key's)
    and unmatched response mentions have spans no key mention has; unmatched optional
    key mentions are left out of the key. ``zero_match="dependent"``: zero mentions
    are paired by their dependencies first (:mod:`corefio.model.zeros`)."""
    key_flat = [(c, m) for c, chain in enumerate(key.mentions) for m in chain]
    response_flat = [(c, m) for c, chain in enumerate(response.mentions) for m in chain]
    has_optional = any(m.optional for _, m in key_flat)
    dependent = zero_match == "dependent" and any(m.zero is not None for _, m in key_flat) \
        and any(m.zero is not None for _, m in response_flat)
    if mode == "exact" and not has_optional and not dependent:
        return key, response
    # a span listed more than once (in two chains, or twice in one) is one mention to
    # match: every listing gets what its first listing gets (the rules for repeated
    # mentions then see them as repeats: :mod:`corefio.scoring.views`)
    key_first = _first_listings(key_flat)
    response_first = _first_listings(response_flat)
    key_unique = sorted(set(key_first))
    response_unique = sorted(set(response_first))
    result = match_mentions([key_flat[i][1] for i in key_unique], [response_flat[j][1] for j in response_unique],
                            mode, report, key.label, "dependent" if dependent else None)
    partner = {key_unique[i]: response_unique[j] for i, j in result.pairs}
    matched = set(partner.values())
    renamed: dict[int, Mention] = {}
    for i, j in partner.items():
        spans = key_flat[i][1].spans
        if response_flat[j][1].spans != spans:
            renamed[j] = response_flat[j][1]._replace(spans=spans)
    key_spans = {m.spans for _, m in key_flat}
    for j in response_unique:
        m = response_flat[j][1]
        if j not in matched and m.spans in key_spans:
            # unmatched, yet shaped like some key mention: give it a name of its own
            renamed[j] = m._replace(spans=m.spans + ((-1, -1 - j),))
    new_response: list[list[Mention]] = [[] for _ in response.mentions]
    for j, (c, m) in enumerate(response_flat):
        first = response_first[j]
        new_response[c].append(m if first not in renamed else m._replace(spans=renamed[first].spans))
    new_key: list[list[Mention]] = [[] for _ in key.mentions]
    dropped = 0
    for i, (c, m) in enumerate(key_flat):
        if m.optional and key_first[i] not in partner:
            dropped += 1
            continue
        new_key[c].append(m)
    if dropped and report is not None:
        report.info("match.optional-unmatched", "optional key mentions no response mention matched (not counted)",
                    count=dropped, merge=True, document=key.label)
    return (MentionView(key.label, key.forms, [c for c in new_key if c], key.pos),
            MentionView(response.label, response.forms, new_response, response.pos))
