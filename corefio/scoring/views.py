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
  and counts it in each chain; MUC, B³ and CEAF come out as with two mentions). Mention
  identification counts it once and BLANC counts its links as scorer.pl does, a set of
  id pairs (:func:`scorer_repeats`, :class:`~corefio.metrics.base.Repeats`).
  scorer.pl refuses to score more than 10 repeated response mentions (those it leaves
  out, counted over the corpus); corefio scores and says so (``score.scorer-refuses``,
  a warning: ``--strict`` refuses).
* ``corefud``: the rule of corefud-scorer (``transform_clusters_for_eval`` and
  ``get_mention_to_clusterid_map``): a span listed twice in one entity counts once; a
  span in several entities belongs to the last of them (its mention-to-entity map keeps
  the last entity): the recall side of MUC, B³, LEA and BLANC's correct links. Its
  precision side still finds the span in each entity that lists it, and so do both
  sides of CEAF and BLANC's response links: those come from a second table where each
  listing is a response mention (:func:`listed_table`,
  :attr:`~corefio.metrics.base.Contingency.precision_table`). coval (whose evaluator
  corefud-scorer took over) counts the same way.

Repeated key spans: one chain keeps the span, the first (``scorer``; scorer.pl gives
both key occurrences one id) or the last (``corefud``; corefud-scorer's recall side
would still count the span in each key entity: the README's conformance notes say so).
Every repeat is reported (``score.duplicate-mention``, a warning with the count).
Matching (:func:`corefio.compare.matching.align`) treats all listings of a span as one
mention, so these rules see them after head or partial matching too.
"""

from __future__ import annotations

from ..compare.alignment import map_marks, map_spans, map_tokens
from ..model.mentions import Mention, MentionView
from ..diagnostics import Report
from ..compare.matching import align, without_singletons
from ..metrics.base import NO_REPEATS, Contingency, Repeats
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
    ``scorer`` rule keeps the repeats that match none, as :class:`Occurrence`)."""
    return _partition(view, report, side, key, rule)[0]


def _partition(view: MentionView, report: Report | None, side: str, key: set[tuple] | None,
               rule: str) -> tuple[Partition, int, int]:
    """:func:`partition`, how many :class:`Occurrence` it made and how many listings it
    left out."""
    chains = [[m.spans for m in chain] for chain in view.mentions]
    n = 0
    seen: set[tuple] = set()
    for chain in chains:
        n += len(chain)
        seen.update(chain)
    if len(seen) == n:  # no repeated span: the common case
        return chains, 0, 0
    from ..formats.conll import scorer_order

    order = scorer_order(chains)
    if rule == "corefud":
        order = order[::-1]  # the last entity keeps a span
    out: list[list | None] = [None] * len(chains)
    seen = set()
    dropped = kept = 0
    example = None
    for k in order:
        cls: list = []
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
    return [cls for cls in out if cls], kept, dropped


def scorer_repeats(chains: Partition) -> Repeats:
    """What a table of the response ``chains`` counts beyond scorer.pl v8.01 because of
    the :class:`Occurrence` in them (:class:`~corefio.metrics.base.Repeats`).

    scorer.pl's response links are sets of id pairs, an occurrence being its span's id:
    a coreference link joins two listings in one chain, a non-coreference link two
    listings in two chains, so an id listed in two chains has a non-coreference link to
    itself, and an id listed twice has one link, not two, with each other id. Counted
    here without listing the pairs: the ids listed once (the ``plain`` ones) pair as in
    the table; the few repeated ids are counted against them and each other."""
    ids = [[m[0] if type(m) is Occurrence else m for m in chain] for chain in chains]
    listed: dict[tuple, list[int]] = {}
    for c, chain in enumerate(ids):
        for m in chain:
            listed.setdefault(m, []).append(c)
    repeated = {m: where for m, where in listed.items() if len(where) > 1}
    if not repeated:
        return NO_REPEATS
    n = sum(len(chain) for chain in ids)
    sizes = [len(chain) for chain in ids]
    table_coref = sum(k * (k - 1) // 2 for k in sizes)
    table_non = (n * n - sum(k * k for k in sizes)) // 2
    plain = [sum(1 for m in chain if m not in repeated) for chain in ids]  # per chain
    n_plain = sum(plain)
    coref = sum(k * (k - 1) // 2 for k in plain)
    non = (n_plain * n_plain - sum(k * k for k in plain)) // 2
    chains_of = {m: set(where) for m, where in repeated.items()}
    for m, where in repeated.items():
        own = chains_of[m]
        coref += sum(plain[c] for c in own)  # with the plain ids of its chains
        coref += len(own) < len(where)  # listed twice in one chain: a link to itself
        non += n_plain if len(own) > 1 else n_plain - plain[next(iter(own))]
        non += len(own) > 1  # in two chains: a non-coreference link to itself
    order = list(chains_of.values())
    for a in range(len(order)):
        for b in range(a + 1, len(order)):
            coref += not order[a].isdisjoint(order[b])
            non += not (len(order[a]) == 1 and order[a] == order[b])
    return Repeats(n - len(listed), table_coref - coref, table_non - non)


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
            match: str = "exact", zeros: str = "drop",
            keep_singletons: bool = True) -> tuple[MentionView, MentionView]:
    """The two views after :func:`synchronise` (None: a missing response, empty).

    ``keep_singletons=False``: one-mention chains leave both views *before* anything
    else, as corefud-scorer, the UA scorer and coval leave them out when they read the
    files (:func:`corefio.compare.matching.without_singletons`): matching then pairs the
    mentions scoring counts, and a chain that loses mentions later (zeros dropped,
    optional key mentions no response mention matched) is no singleton to remove; the
    table is then formed keeping singletons (:func:`table`)."""
    if not keep_singletons:
        key = without_singletons(key)
        response = without_singletons(response) if response is not None else None
    if response is None:
        response = empty_view(key)
        if key.places is None:
            return key, response
    return synchronise(key, response, match, report, zeros)


def table(key: MentionView, response: MentionView, report: Report,
          keep_singletons: bool = True, repeats: str = "scorer") -> Contingency:
    """The contingency table of two prepared views (:func:`prepare`); ``repeats``: the
    rule for repeated mentions (:data:`REPEAT_RULES`). ``keep_singletons=False`` removes
    the one-mention classes of the partitions (those a synchronisation strategy added);
    views prepared without singletons are tabled with ``True``."""
    kp = partition(key, report, "key", rule=repeats)
    spans = {spans for cls in kp for spans in cls}
    rp, occurrences, left_out = _partition(response, report, "response", spans, repeats)
    if not keep_singletons:
        kp, rp = drop_singletons(kp), drop_singletons(rp)
    table = Contingency.from_partitions(kp, rp)
    if occurrences:
        return table.with_repeats(scorer_repeats(rp))
    if repeats == "corefud" and left_out:
        listed = [chain_unique([m.spans for m in chain]) for chain in response.mentions]
        if not keep_singletons:
            listed = drop_singletons(listed)
        if sum(map(len, listed)) > sum(map(len, rp)):  # a span in several chains
            return table.with_listed(listed_table(kp, listed, table))
    return table


def listed_table(kp: Partition, listed: Partition, table: Contingency) -> Contingency:
    """corefud-scorer's precision side of ``table`` (the key partition ``kp`` against
    the response): each span of each response chain (``listed``, each span once per
    chain) is a response mention of its own, in the key class that holds the span."""
    where = {spans: i for i, cls in enumerate(kp) for spans in cls}
    rows: list[int] = []
    cols: list[int] = []
    for j, cls in enumerate(listed):
        for spans in cls:
            i = where.get(spans)
            if i is not None:
                rows.append(i)
                cols.append(j)
    return Contingency.from_pairs(rows, cols, table.key_sizes, [len(cls) for cls in listed])
