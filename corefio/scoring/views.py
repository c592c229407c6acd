"""From two mention views to the key × response contingency table.

Every input reaches the metrics the same way: a document's
:class:`~corefio.model.mentions.MentionView` (from :meth:`corefio.model.Document.mention_view`
or from a format's ``mention_views`` fast path, which builds the same views), then
:func:`synchronise` (different tokenisations aligned, mentions matched), then, when
asked, a synchronisation strategy of seed 003 (:func:`apply_strategy`), then the
partitions (:func:`partition`) and their table.

Partitions: the chains of a view as lists of mention spans. A span that occurs twice
(in two chains, or twice in one) is a *repeated* mention; what becomes of it is decided
here, once, from the mentions alone, so that the same mentions give the same numbers
whatever format they were read from (:data:`REPEAT_RULES`, the ``repeats`` option):

* ``scorer`` (the default): the rule of scorer.pl v8.01 (``IdentifMentions`` in
  ``lib/CorScorer.pm``). Chains are taken in the order in which scorer.pl meets their
  labels in a CoNLL file (:func:`corefio.formats.conll.scorer_order`: the order of the
  files corefio writes, whatever format the view came from). A response span that
  matches a key mention and was met before is left out of the later chain; a chain left
  empty goes. A response span that matches no key mention stays in every chain that
  lists it, each occurrence counted as a mention of its own (scorer.pl gives it one id
  and counts it in each chain; MUC, B³ and CEAF come out as with two mentions).
  scorer.pl refuses to score more than 10 repeated response mentions (those it leaves
  out, counted over the corpus); corefio scores and says so (``score.scorer-refuses``,
  a warning: ``--strict`` refuses).
* ``corefud``: the rule of corefud-scorer (``transform_clusters_for_eval`` and
  ``get_mention_to_clusterid_map``): a span listed twice in one entity counts once; a
  span in several entities belongs to the last of them (its mention-to-entity map keeps
  the last entity). corefud-scorer still lists the span in each entity's members, so
  its precision-side sums (MUC, B³, LEA) and CEAF/BLANC can differ from these; one
  partition cannot hold a mention in two classes.

Repeated key spans: one chain keeps the span, the first (``scorer``; scorer.pl gives
both key occurrences one id) or the last (``corefud``). Every repeat is reported
(``score.duplicate-mention``, a warning with the count).
"""

from __future__ import annotations

from ..compare.alignment import map_marks, map_spans, map_tokens
from ..model.mentions import Mention, MentionView
from ..diagnostics import Report
from ..compare.matching import align
from ..metrics.base import Contingency
from ..model.zeros import merge_empty_tokens

Partition = list[list[tuple]]

#: what becomes of a repeated mention (module docstring): scorer.pl's rule, corefud-scorer's
REPEAT_RULES = ("scorer", "corefud")
#: repeated response mentions beyond which scorer.pl v8.01 refuses to score
SCORER_REPEAT_LIMIT = 10


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


class Occurrence(tuple):
    """One more occurrence of a repeated response span that matches no key mention
    (``scorer`` rule): ``(spans, n)``, a mention of its own, equal to no span."""

    __slots__ = ()


def partition(view: MentionView, report: Report | None, side: str, key: set[tuple] | None = None,
              rule: str = "scorer") -> Partition:
    """The chains of ``view`` as lists of mention spans, repeated mentions treated by
    ``rule`` (module docstring); ``key``: the key's spans (the response side's
    ``scorer`` rule keeps the repeats that match none)."""
    chains = [[m.spans for m in chain] for chain in view.mentions]
    n = 0
    seen: set[tuple] = set()
    for chain in chains:
        n += len(chain)
        seen.update(chain)
    if len(seen) == n:  # no repeated span: the common case
        return chains
    from ..formats.conll import scorer_order

    order = scorer_order(chains)
    if rule == "corefud":
        order = order[::-1]  # the last entity keeps a span
    out: list[list | None] = [None] * len(chains)
    seen = set()
    dropped = kept = 0
    example = None
    for k in order:
        cls = []
        for spans in chain_unique(chains[k]) if rule == "corefud" else chains[k]:
            if spans in seen:
                if example is None:
                    example = f"tokens {spans[0][0]}..{spans[-1][1]}"
                if key is not None and rule == "scorer" and spans not in key:
                    kept += 1
                    cls.append(Occurrence((spans, kept)))
                    continue
                dropped += 1
                continue
            seen.add(spans)
            cls.append(spans)
        out[k] = cls
    if report is not None:
        where = f"{view.label!r}: {example}"
        if dropped:
            report.warning("score.duplicate-mention",
                           f"repeated {side} mentions (same span) left out of all but one chain "
                           f"({'scorer.pl' if rule == 'scorer' else 'corefud-scorer'}'s rule)",
                           count=dropped, merge=True, example=where)
        if kept:
            report.warning("score.duplicate-mention",
                           f"repeated {side} mentions (same span) that match no key mention, counted in "
                           "each chain (scorer.pl's rule)", count=kept, merge=True, example=where)
    return [cls for cls in out if cls]


def chain_unique(chain: list[tuple]) -> list[tuple]:
    """A chain's spans, each once (the first time)."""
    return list(dict.fromkeys(chain))


def scorer_refusal(report: Report) -> None:
    """Say so when scorer.pl v8.01 would refuse to score: more than
    :data:`SCORER_REPEAT_LIMIT` repeated response mentions left out, over the corpus."""
    count = sum(d.count for d in report.by_code("score.duplicate-mention")
                if d.message.startswith("repeated response mentions (same span) left out") and "scorer.pl" in d.message)
    if count > SCORER_REPEAT_LIMIT:
        report.warning("score.scorer-refuses",
                       f"{count} repeated response mentions: scorer.pl v8.01 refuses to score more than "
                       f"{SCORER_REPEAT_LIMIT} (\"Found too many repeated mentions (> 10) in the response\"); "
                       "these scores are those of its rule applied to them all", count=count)


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
          keep_singletons: bool = True, repeats: str = "scorer") -> Contingency:
    """The contingency table of two prepared views (:func:`prepare`); ``repeats``: the
    rule for repeated mentions (:data:`REPEAT_RULES`)."""
    kp = partition(key, report, "key", rule=repeats)
    spans = {spans for cls in kp for spans in cls}
    rp = partition(response, report, "response", spans, repeats)
    if not keep_singletons:
        kp, rp = drop_singletons(kp), drop_singletons(rp)
    return Contingency.from_partitions(kp, rp)
