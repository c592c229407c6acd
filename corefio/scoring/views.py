"""From two mention views to the key × response contingency table.

Every input reaches the metrics the same way: a document's
:class:`~corefio.model.mentions.MentionView` (from :meth:`corefio.model.Document.mention_view`
or from a format's ``mention_views`` fast path, which builds the same views), then
:func:`synchronise` (different tokenisations aligned, mentions matched), then, when
asked, a synchronisation strategy of seed 003 (:func:`apply_strategy`), then the
partitions (:func:`partition`) and their table.

Partitions: the chains of a view as lists of mention spans. As scorer.pl v8.01 does, a
span that occurs again in a later chain (chains in the order their first mention
appears, which for CoNLL is the reference scorer's order) is dropped from the later
chain and reported (``score.duplicate-mention``, a warning, never a refusal). scorer.pl
drops such repeats only when they match a key mention and refuses to score beyond 10
of them; corefio drops all and always scores. Repeated key spans are dropped the same
way (scorer.pl would count them twice).
"""

from __future__ import annotations

from ..compare.alignment import map_marks, map_spans, map_tokens
from ..model.mentions import Mention, MentionView
from ..diagnostics import Report
from ..compare.matching import align
from ..metrics.base import Contingency
from ..model.zeros import merge_empty_tokens

Partition = list[list[tuple]]


def synchronise(key: MentionView, response: MentionView, match: str = "exact",
                report: Report | None = None, zeros: str = "drop") -> tuple[MentionView, MentionView]:
    """Key and response views made comparable, mention by mention:

    0. when either has empty tokens (CorefUD empty nodes), both are put on one token
       sequence and zero mentions are dropped unless ``zeros`` (``linear`` or
       ``dependent``) keeps them (:mod:`corefio.model.zeros`);
    1. a response tokenised differently from the key (another number of tokens) is
       carried over to the key's tokens (:mod:`corefio.compare.alignment`; texts that differ are
       an error naming where). With as many tokens on both sides, tokens are compared
       by position, as the reference scorer does, and different words are a warning
       (``score.token-mismatch``): its own test cases have responses whose words differ;
    2. response mentions are matched to key mentions (:mod:`corefio.compare.matching`: exact,
       head, MIN or partial) and take the spans of the key mention they stand for;
       unmatched optional key mentions leave the key.
    """
    if key.places is not None or response.places is not None:
        key, response = merge_empty_tokens(key, response, zeros, report)
    if len(key.forms) != len(response.forms):
        response = carry_over(response, key, report)
    elif key.forms != response.forms and report is not None:
        differ = sum(1 for a, b in zip(key.forms, response.forms) if a != b)
        report.warning("score.token-mismatch", "tokens that differ between key and response (compared by "
                       "position)", merge=True, count=differ, example=f"{key.label!r}: {differ}")
    return align(key, response, match, report, zeros)


def carry_over(response: MentionView, key: MentionView, report: Report | None) -> MentionView:
    """``response`` with its spans on the key's tokens (see :mod:`corefio.compare.alignment`)."""
    mapping = map_tokens(response.forms, key.forms, key.label)
    widened = 0
    lost = 0
    chains: list[list[Mention]] = []
    for chain in response.mentions:
        moved: list[Mention] = []
        for m in chain:
            spans, wide = map_spans(m.spans, mapping)
            widened += wide
            if not spans:
                lost += 1
                continue
            moved.append(m._replace(spans=spans, head=map_marks(m.head, mapping), min=map_marks(m.min, mapping)))
        if moved:
            chains.append(moved)
    if report is not None:
        report.info("score.retokenised", "response tokens carried over to the key's tokenisation",
                    document=key.label, merge=True)
        if widened:
            report.warning("score.boundary-inside-token", "response mention boundaries inside a key token "
                           "(mention widened to whole tokens)", document=key.label, count=widened, merge=True)
        if lost:
            report.warning("score.unmapped-mention", "response mentions with no token in the key's text "
                           "(left out)", document=key.label, count=lost, merge=True)
    return MentionView(response.label, key.forms, chains, key.pos)


def restrict(view: MentionView, chosen: set[tuple], have: set[tuple], ordered: bool = False) -> MentionView:
    """``view`` with exactly the mentions ``chosen`` (by spans): others removed, missing
    ones added as singletons (seed 003 §2.3; see :mod:`corefio.compare.synchronisation`).

    ``ordered``: the classes come in the order of the synchronised documents (markables
    sorted by layer and spans, chains by their first markable), so that a metric that
    depends on the order of classes (``xcore``) gives what scoring the files that
    ``corefio sync`` writes gives. Other metrics do not need it (it costs a sort)."""
    chains = [[m for m in chain if m.spans in chosen] for chain in view.mentions]
    chains = [c for c in chains if c]
    chains += [[Mention(spans)] for spans in sorted(chosen - have)]
    if ordered:
        chains.sort(key=lambda chain: min(map(_target_order, chain)))
    return MentionView(view.label, view.forms, chains, view.pos)


def _target_order(m: Mention) -> tuple:
    """The order of :func:`corefio.compare.synchronisation.reindex`: layer, then spans."""
    return ("" if m.layer is None else m.layer, m.spans)


def apply_strategy(key: MentionView, response: MentionView, strategy: str | None,
                   ordered: bool = False) -> tuple[MentionView, MentionView]:
    """Both views restricted to the key's, the response's, the common or all mentions
    (``ordered``: see :func:`restrict`)."""
    if strategy is None:
        return key, response
    kt = {m.spans for chain in key.mentions for m in chain}
    rt = {m.spans for chain in response.mentions for m in chain}
    chosen = {"key": kt, "response": rt, "intersection": kt & rt, "union": kt | rt}[strategy]
    return restrict(key, chosen, kt, ordered), restrict(response, chosen, rt, ordered)


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


def empty_view(like: MentionView) -> MentionView:
    """A response without mentions for ``like`` (a key document the response lacks)."""
    return MentionView(like.label, like.forms, [], None, like.places)


def prepare(key: MentionView, response: MentionView | None, report: Report,
            match: str = "exact", zeros: str = "drop") -> tuple[MentionView, MentionView]:
    """The two views after :func:`synchronise` (None: a missing response, empty)."""
    if response is None:
        response = empty_view(key)
        if key.places is None:
            return key, response
    return synchronise(key, response, match, report, zeros)


def table(key: MentionView, response: MentionView, report: Report,
          keep_singletons: bool = True) -> Contingency:
    """The contingency table of two prepared views (:func:`prepare`)."""
    kp = partition(key, report, "key")
    rp = partition(response, report, "response")
    if not keep_singletons:
        kp, rp = drop_singletons(kp), drop_singletons(rp)
    return Contingency.from_partitions(kp, rp)
