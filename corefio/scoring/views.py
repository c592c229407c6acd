"""From two mention views to the key × response contingency table.

Every input reaches the metrics the same way: a document's
:class:`~corefio.chains.MentionView` (from :meth:`corefio.model.Document.mention_view`
or from a format's ``mention_views`` fast path, which builds the same views), then
:func:`synchronise` (the place where matching of key and response mentions will go;
today it changes nothing), then the partitions (:func:`partition`) and their table.

Partitions: the chains of a view as lists of mention spans. As scorer.pl v8.01 does, a
span that occurs again in a later chain (chains in the order their first mention
appears, which for CoNLL is the reference scorer's order) is dropped from the later
chain and reported (``score.duplicate-mention``, a warning, never a refusal). scorer.pl
drops such repeats only when they match a key mention and refuses to score beyond 10
of them; corefio drops all and always scores. Repeated key spans are dropped the same
way (scorer.pl would count them twice).
"""

from __future__ import annotations

from ..chains import MentionView
from ..diagnostics import Report
from ..metrics.base import Contingency

Partition = list[list[tuple]]


def synchronise(key: MentionView, response: MentionView) -> tuple[MentionView, MentionView]:
    """Align the mentions of key and response before they are compared.

    Mentions are compared by their token spans, unchanged: this is the hook where
    matching (MIN spans, heads, optional mentions) and the synchronisation strategies
    of seed 003 (intersection, union, key or response mention set) will be applied.
    """
    return key, response


def partition(view: MentionView, report: Report | None, side: str) -> Partition:
    """The chains of ``view`` as lists of mention spans, repeats removed (module doc)."""
    chains = [[m.spans for m in chain] for chain in view.mentions]
    n = 0
    seen: set[tuple] = set()
    for chain in chains:
        n += len(chain)
        seen.update(chain)
    if len(seen) == n:  # no repeated span: the common case
        return chains
    seen = set()
    out: Partition = []
    repeats = 0
    example = None
    for chain in chains:
        cls = []
        for spans in chain:
            if spans in seen:
                repeats += 1
                if example is None:
                    example = f"tokens {spans[0][0]}..{spans[-1][1]}"
                continue
            seen.add(spans)
            cls.append(spans)
        if cls:
            out.append(cls)
    if repeats and report is not None:
        report.warning("score.duplicate-mention",
                       f"repeated {side} mentions (same span) ignored after their first chain",
                       count=repeats, merge=True, example=f"{view.label!r}: {example}")
    return out


def drop_singletons(chains: Partition) -> Partition:
    return [c for c in chains if len(c) > 1]


def check_tokens(key: MentionView, response: MentionView, report: Report) -> None:
    """Warn when key and response do not have the same tokens (spans are compared by
    token position, so different tokens make the comparison meaningless)."""
    kf, rf = key.forms, response.forms
    if len(kf) != len(rf):
        report.warning("score.token-mismatch", "documents whose key and response have different numbers of "
                       "tokens (spans are compared by token position)", merge=True,
                       example=f"{key.label!r}: {len(kf)} vs {len(rf)}")
    elif kf != rf:
        differ = sum(1 for a, b in zip(kf, rf) if a != b)
        report.warning("score.token-mismatch", "tokens that differ between key and response", merge=True,
                       count=differ, example=f"{key.label!r}: {differ}")


def empty_view(like: MentionView) -> MentionView:
    """A response without mentions for ``like`` (a key document the response lacks)."""
    return MentionView(like.label, like.forms, [], None)


def table(key: MentionView, response: MentionView | None, report: Report,
          keep_singletons: bool = True) -> tuple[Contingency, MentionView, MentionView]:
    """The contingency table of a key view and its response view (None: a missing
    response, scored as empty), and the two views after :func:`synchronise`."""
    if response is None:
        response = empty_view(key)
    else:
        check_tokens(key, response, report)
    key, response = synchronise(key, response)
    kp = partition(key, report, "key")
    rp = partition(response, report, "response")
    if not keep_singletons:
        kp, rp = drop_singletons(kp), drop_singletons(rp)
    return Contingency.from_partitions(kp, rp), key, response
