"""From two mention views to the key × response contingency table.

Every input reaches the metrics the same way: a document's
:class:`~corefio.model.mentions.MentionView` (from :meth:`corefio.model.Document.mention_view`
or from a format's ``mention_views`` fast path, which builds the same views), then
:func:`synchronise` (different tokenisations aligned, mentions matched), then, when
asked, a synchronisation strategy of Popescu-Belis et al. (2004) (:func:`apply_strategy`), then the
partitions (:func:`partition`) and their table.

Partitions: the chains of a view as lists of mention spans. A span that occurs twice
(in two chains, or twice in one) is a *repeated* mention; what becomes of it is decided
here, once, from the mentions alone, so that the same mentions give the same numbers
whatever format they were read from (:data:`REPEAT_RULES`, the ``repeats`` option):

* ``scorer`` (the default): the rule of scorer.pl v8.01 (``IdentifMentions`` in
  ``lib/CorScorer.pm``). Chains are taken in the order in which scorer.pl meets their
  labels in a CoNLL file (:func:`corefio.formats.conll.scorer_order`: the order of the
  files corefio writes, whatever format the view came from). scorer.pl gives a span
  one mention id, whichever side lists it and however often.

  - *Response*: a response span that matches a key mention and was met before is left
    out of the later chain; a chain left empty goes. A response span that matches no
    key mention stays in every chain that lists it, each occurrence counted as a mention
    of its own by MUC, B³ and CEAF (:class:`Occurrence`).
  - *Key*: a key span listed in two chains (or twice in one) stays in each: every
    listing counts in its chain's size (MUC's key links, B³'s and CEAF's chain sizes,
    BLANC's links, a set of id pairs) while a response mention is looked up in the
    *last* key chain that lists its span only. A response equal to such a key scores
    below 100: one span in two key chains of two mentions each gives MUC 0, B³ 62.5,
    CEAFe 83.33, BLANC 66.67 (printed 66.66: scorer.pl truncates; its output is stored
    in ``tests/data/scorer-repeats/``). corefio reproduces it, since that is the number
    users compare with, and says so (``score.duplicate-key-span``, a warning counting
    the repeated key spans).

  Mention identification counts each span once, BLANC counts links as scorer.pl does;
  what the contingency table cannot show is in its
  :class:`~corefio.metrics.base.Repeats` and ``aligned`` table (:func:`scorer_table`).
  scorer.pl refuses to score more than 10 repeated response mentions (those it leaves
  out, counted over the corpus); corefio scores and says so (``score.scorer-refuses``,
  a warning: ``--strict`` refuses).
* ``corefud``: the rule of corefud-scorer (``transform_clusters_for_eval`` and
  ``get_mention_to_clusterid_map``; its evaluator is coval's, which counts the same
  way): a span listed twice in one entity counts once; a span in several entities is
  looked up in the last of them (its mention-to-entity maps keep the last entity). Its
  recall side (MUC, B³, LEA, BLANC's correct links) takes each key listing and the
  last response entity of its span, its precision side each response listing and the
  last key entity, CEAF and BLANC's link totals every listing in every entity
  (:func:`corefud_table`: three tables, the
  :attr:`~corefio.metrics.base.Contingency.precision_table` and
  :attr:`~corefio.metrics.base.Contingency.ceaf_table` beside the recall side's).

Every repeat is reported: repeated response spans as ``score.duplicate-mention``,
repeated key spans as ``score.duplicate-key-span`` (warnings with counts).
Matching (:func:`corefio.compare.matching.align`) treats all listings of a span as one
mention, so these rules see them after head or partial matching too.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from ..compare.alignment import map_marks, map_spans, map_tokens
from ..model.mentions import Mention, MentionView
from ..diagnostics import Report
from ..compare.matching import align, without_singletons
from ..metrics.base import Contingency, Number, Repeats
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
    ones added as singletons (Popescu-Belis et al. 2004, §2.3; see :mod:`corefio.compare.synchronisation`).

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
    order = chain_order(chains, rule)
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
        if dropped and rule == "scorer":
            report.warning("score.duplicate-mention",
                           f"repeated {side} mentions (same span) left out of all but one chain (scorer.pl's rule)",
                           count=dropped, merge=True, example=where)
        elif dropped:
            report.warning("score.duplicate-mention",
                           f"repeated {side} mentions (same span in several entities), scored as corefud-scorer "
                           "does: on the recall side the last entity that lists the span holds it, on the "
                           "precision side every one", count=dropped, merge=True, example=where)
        if kept:
            report.warning("score.duplicate-mention",
                           f"repeated {side} mentions (same span) that match no key mention, counted in "
                           "each chain (scorer.pl's rule)", count=kept, merge=True, example=where)
    return [cls for cls in out if cls], kept, dropped


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
    kc = [[m.spans for m in chain] for chain in key.mentions]
    spans = {s for chain in kc for s in chain}
    repeated = _repeated_key_spans(kc, key.label, report, repeats) if sum(map(len, kc)) > len(spans) else 0
    rp, occurrences, left_out = _partition(response, report, "response", spans, repeats)
    if repeats == "scorer" and (repeated or left_out) and report is not None:
        report.info("score.scorer-transcript", "\n".join(scorer_lines(kc, [[m.spans for m in chain]
                                                                           for chain in response.mentions])),
                    document=key.label)
    if repeats == "corefud":
        kc = [chain_unique(chain) for chain in kc]
    if not keep_singletons:
        kc, rp = drop_singletons(kc), drop_singletons(rp)
    if repeats == "scorer":
        if repeated or occurrences:
            return scorer_table(kc, rp)
        return Contingency.from_partitions(kc, rp)
    if repeated or left_out:
        listed = [chain_unique([m.spans for m in chain]) for chain in response.mentions]
        if not keep_singletons:
            listed = drop_singletons(listed)
        return corefud_table(kc, listed)
    return Contingency.from_partitions(kc, rp)


def _repeated_key_spans(chains: Partition, label: str, report: Report | None, rule: str) -> int:
    """How many key spans ``chains`` list more than once (in two chains or twice in
    one), reported as the rule ``rule`` scores them."""
    count: dict[tuple, int] = {}
    for chain in chains:
        for spans in chain:
            count[spans] = count.get(spans, 0) + 1
    repeated = [spans for spans, n in count.items() if n > 1]
    if report is not None and repeated:
        first = min(repeated)
        where = f"{label!r}: tokens {first[0][0]}..{first[-1][1]}"
        if rule == "scorer":
            message = ("key spans listed more than once (in two key chains, or twice in one), scored as scorer.pl "
                       "v8.01 does: it counts the span in every chain that lists it, but pairs a response mention "
                       "only with the last of those chains, so that even a response equal to the key scores below "
                       "100 (corefud-scorer and coval, --repeats corefud, count the span in each key entity on the "
                       "recall side instead)")
        else:
            message = ("key spans listed in more than one key entity, scored as corefud-scorer does: each entity "
                       "that lists the span counts it on the recall side, the last one on the precision side")
        report.warning("score.duplicate-key-span", message, count=len(repeated), merge=True, example=where)
    return len(repeated)


def scorer_lines(kc: Partition, rc: Partition) -> list[str]:
    """The lines scorer.pl v8.01 prints of a document's repeated mentions, key chains
    ``kc`` and response chains ``rc`` as listed (``IdentifMentions``): "Repeated mention
    in the key: FIRST, LAST" followed by the id the span had and the id of this listing
    (written together: ``0, 0 02``), then "Repeated mention in the response: FIRST,
    LAST" and the span's key id twice, for a response span that matches a key mention
    and was met before (a repeat that matches none is not printed). Ids number the key
    listings in the order scorer.pl reads them: chains as it meets their labels
    (:func:`chain_order`), a chain's mentions as they close (by last token, a
    one-token mention before longer ones, of two longer ones the later opened first).
    ``--format scorer`` prints these lines (:mod:`corefio.scoring.render`)."""
    def read_order(spans: tuple) -> tuple:
        first, last = spans[0][0], spans[-1][1]
        return last, first != last, -first

    lines: list[str] = []
    ids: dict[tuple, int] = {}
    number = 0
    for i in chain_order(kc, "scorer"):
        for spans in sorted(kc[i], key=read_order):
            if spans in ids:
                lines.append(f"Repeated mention in the key: {spans[0][0]}, {spans[-1][1]} {ids[spans]}{number}")
            ids[spans] = number
            number += 1
    assigned: set[tuple] = set()
    for j in chain_order(rc, "scorer"):
        for spans in sorted(rc[j], key=read_order):
            if spans in assigned:
                lines.append(f"Repeated mention in the response: {spans[0][0]}, {spans[-1][1]} "
                             f"{ids[spans]}{ids[spans]}")
            elif spans in ids:
                assigned.add(spans)
    return lines


def _ids(chains: Partition) -> list[list[tuple]]:
    """scorer.pl's mention ids of response ``chains``: a span's, an :class:`Occurrence`
    being its span's."""
    return [[m[0] if type(m) is Occurrence else m for m in chain] for chain in chains]


def _last(chains: Partition, rule: str = "scorer") -> dict[tuple, int]:
    """For each span of ``chains``, the last chain that lists it in the order of
    :func:`chain_order`."""
    last: dict[tuple, int] = {}
    for k in chain_order(chains, rule):
        for spans in chains[k]:
            last[spans] = k
    return last


def chain_order(chains: Partition, rule: str) -> list[int]:
    """The chains in the order in which the judge of ``rule`` meets them: scorer.pl the
    labels of a CoNLL file (:func:`corefio.formats.conll.scorer_order`, the order of the
    files corefio writes); corefud-scorer the entities of a CoNLL-U file as udapi sorts
    them, by their first mention (its first word, then the longer mention, then its last
    word: ``CorefEntity.__lt__``). Entities whose first mentions have the same span are
    sorted by their spans in both (udapi sorts them by entity id, a name: corefio's
    order depends on the mentions alone, so that every format gives the same numbers)."""
    if rule == "scorer":
        from ..formats.conll import scorer_order

        return scorer_order(chains)

    def mention(spans: tuple) -> tuple:
        return spans[0][0], -sum(b - a + 1 for a, b in spans), spans[-1][1]

    return sorted(range(len(chains)), key=lambda k: (min(map(mention, chains[k])), sorted(set(chains[k]))))


def scorer_table(kc: Partition, rp: Partition) -> Contingency:
    """The table of scorer.pl v8.01's counts when a span is listed more than once: the
    key chains ``kc`` with all their listings, the response chains ``rp`` after
    :func:`partition`'s ``scorer`` rule (a key span once, an :class:`Occurrence` for
    each further listing of a span that matches no key mention).

    scorer.pl (``IdentifMentions`` in ``lib/CorScorer.pm``) gives a span one id and the
    key chains keep every listing of it. Its MUC looks a response mention up in the last
    key chain that lists its id (``Indexa``) and counts key links over all listings:
    the table's cells put each response mention in that last chain, and its key classes
    count every listing (the others stay twinless). Its CEAF compares every key listing
    with each response chain: the ``aligned`` table. Mention identification, B³ and
    BLANC count what the table cannot show (:class:`~corefio.metrics.base.Repeats`,
    from :func:`scorer_counts`)."""
    from ..metrics.bcubed import b_cubed
    from ..metrics.blanc import link_counts
    from ..metrics.mentions import mention_identification

    last = _last(kc)
    rows: list[int] = []
    cols: list[int] = []
    for j, chain in enumerate(rp):
        for m in chain:
            i = last.get(m)
            if i is not None:
                rows.append(i)
                cols.append(j)
    key_sizes, response_sizes = [len(c) for c in kc], [len(c) for c in rp]
    table = Contingency.from_pairs(rows, cols, key_sizes, response_sizes)
    counts = scorer_counts(kc, rp)
    raw_mentions, raw_bcub, raw_links = mention_identification(table), b_cubed(table), link_counts(table)
    links = [raw - own for raw, own in zip(raw_links, counts.links)]
    repeats = Repeats(key_mentions=int(raw_mentions.recall_den) - counts.key_mentions,
                      mentions=int(raw_mentions.precision_den) - counts.mentions,
                      matched=int(raw_mentions.recall_num) - counts.matched,
                      key_coref=links[0], key_non_coref=links[1], coref=links[2], non_coref=links[3],
                      both_coref=links[4], both_non_coref=links[5],
                      bcub_recall=raw_bcub.recall_num - counts.bcub_recall,
                      bcub_precision=raw_bcub.precision_num - counts.bcub_precision)
    table = table.with_repeats(repeats)
    if sum(key_sizes) > len(last):  # a key span listed twice: CEAF sees each listing
        where = {m: j for j, chain in enumerate(rp) for m in chain if m in last}
        pairs = [(i, where[s]) for i, chain in enumerate(kc) for s in chain if s in where]
        table = table.with_aligned(Contingency.from_pairs([i for i, _ in pairs], [j for _, j in pairs], key_sizes,
                                                          response_sizes))
    return table


class ScorerCounts(NamedTuple):
    """What scorer.pl v8.01 counts that a table cannot show (:func:`scorer_counts`)."""

    key_mentions: int
    mentions: int
    matched: int
    #: B³ numerators: recall, precision
    bcub_recall: Number
    bcub_precision: Number
    #: BLANC: key coreference and non-coreference links, response ones, correct ones
    links: tuple[int, int, int, int, int, int]


def scorer_counts(kc: Partition, rp: Partition) -> ScorerCounts:
    """scorer.pl v8.01's mention identification, B³ numerators and BLANC link counts for
    key chains ``kc`` (every listing) and response chains ``rp`` (:func:`scorer_table`).

    * Mention identification counts ids: distinct key spans, distinct response spans,
      response spans that are key spans.
    * B³ (``BCUBED``): for each response mention m of a response chain R whose id is a
      key id, K the last key chain that lists it: |R ∩ K| / |R| to precision and
      |R ∩ K| / |K| to recall, where |R ∩ K| counts the mentions of R whose id K lists
      and |K| all of K's listings.
    * BLANC (``BLANC_Internal``): links are sets of id pairs, :func:`id_links`."""
    ids = _ids(rp)
    last = _last(kc)
    keys = set(last)
    responses = {m for chain in ids for m in chain}
    where = {m: j for j, chain in enumerate(rp) for m in chain if m in last}
    overlap: dict[tuple[int, int], int] = {}  # (key chain, response chain): spans both list
    for i, chain in enumerate(kc):
        for spans in set(chain):
            j = where.get(spans)
            if j is not None:
                overlap[i, j] = overlap.get((i, j), 0) + 1
    found: dict[tuple[int, int], int] = {}  # response mentions by (last key chain, response chain)
    for m, j in where.items():
        found[last[m], j] = found.get((last[m], j), 0) + 1
    recall: Number = 0
    precision: Number = 0
    for (i, j), n in found.items():
        recall += Fraction(n * overlap[i, j], len(kc[i]))
        precision += Fraction(n * overlap[i, j], len(rp[j]))
    recall = int(recall) if recall == int(recall) else recall
    precision = int(precision) if precision == int(precision) else precision
    return ScorerCounts(len(keys), len(responses), len(keys & responses), recall, precision, id_links(kc, ids))


def id_links(key: Partition, response: Partition) -> tuple[int, int, int, int, int, int]:
    """BLANC's links as scorer.pl v8.01 counts them (``BLANC_Internal``): sets of pairs
    of ids (here spans), a coreference link for two listings in one chain, a
    non-coreference link for two listings in two chains; so an id listed twice in a
    chain has a coreference link to itself, an id in two chains a non-coreference link
    to itself, and a pair linked twice counts once. Returns the key's coreference and
    non-coreference links, the response's, and those in both (coreference, then
    non-coreference).

    Counted without listing the pairs: the ids listed once on each side (*plain*) pair
    as in a contingency table; the few others (*repeated*) are counted against the plain
    ones by the chains they are in, and against each other one by one."""
    k_count: dict[tuple, int] = {}
    r_count: dict[tuple, int] = {}
    for chains, count in ((key, k_count), (response, r_count)):
        for chain in chains:
            for m in chain:
                count[m] = count.get(m, 0) + 1
    repeated = [m for m in dict.fromkeys([*k_count, *r_count]) if k_count.get(m, 0) > 1 or r_count.get(m, 0) > 1]
    rep = set(repeated)
    k_chain = {m: i for i, chain in enumerate(key) for m in chain if m not in rep}
    r_chain = {m: j for j, chain in enumerate(response) for m in chain if m not in rep}
    k_plain = Counter(k_chain.values())
    r_plain = Counter(r_chain.values())
    cells = Counter((i, r_chain[m]) for m, i in k_chain.items() if m in r_chain)
    row_sums: Counter = Counter()
    col_sums: Counter = Counter()
    for (i, j), n in cells.items():
        row_sums[i] += n
        col_sums[j] += n
    nk, nr, both = len(k_chain), len(r_chain), sum(cells.values())

    def pairs(n: int) -> int:
        return n * (n - 1) // 2

    key_coref = sum(map(pairs, k_plain.values()))
    resp_coref = sum(map(pairs, r_plain.values()))
    both_coref = sum(map(pairs, cells.values()))
    key_non = pairs(nk) - key_coref
    resp_non = pairs(nr) - resp_coref
    both_non = pairs(both) - sum(map(pairs, row_sums.values())) - sum(map(pairs, col_sums.values())) + both_coref
    k_in: dict[tuple, set[int]] = {m: set() for m in repeated}
    r_in: dict[tuple, set[int]] = {m: set() for m in repeated}
    for chains, places in ((key, k_in), (response, r_in)):
        for c, chain in enumerate(chains):
            for m in chain:
                if m in rep:
                    places[m].add(c)
    for m in repeated:  # against the plain ids
        ks, rs = k_in[m], r_in[m]
        key_coref += sum(k_plain[i] for i in ks)
        resp_coref += sum(r_plain[j] for j in rs)
        both_coref += sum(cells[i, j] for i in ks for j in rs)
        if ks:
            key_non += nk - (k_plain[next(iter(ks))] if len(ks) == 1 else 0)
        if rs:
            resp_non += nr - (r_plain[next(iter(rs))] if len(rs) == 1 else 0)
        if ks and rs:
            k0 = next(iter(ks)) if len(ks) == 1 else None
            r0 = next(iter(rs)) if len(rs) == 1 else None
            both_non += (both - (row_sums[k0] if k0 is not None else 0) - (col_sums[r0] if r0 is not None else 0)
                         + (cells[k0, r0] if k0 is not None and r0 is not None else 0))
    for a, m in enumerate(repeated):  # against each other, and itself
        ks, rs = k_in[m], r_in[m]
        kc_self, rc_self = len(ks) < k_count.get(m, 0), len(rs) < r_count.get(m, 0)
        kn_self, rn_self = len(ks) > 1, len(rs) > 1
        key_coref += kc_self
        resp_coref += rc_self
        both_coref += kc_self and rc_self
        key_non += kn_self
        resp_non += rn_self
        both_non += kn_self and rn_self
        for other in repeated[a + 1:]:
            ko, ro = k_in[other], r_in[other]
            kc = not ks.isdisjoint(ko)
            rc = not rs.isdisjoint(ro)
            kn = bool(ks) and bool(ko) and not (len(ks) == 1 and ks == ko)
            rn = bool(rs) and bool(ro) and not (len(rs) == 1 and rs == ro)
            key_coref += kc
            resp_coref += rc
            both_coref += kc and rc
            key_non += kn
            resp_non += rn
            both_non += kn and rn
    return key_coref, key_non, resp_coref, resp_non, both_coref, both_non


def corefud_table(kc: Partition, listed: Partition) -> Contingency:
    """The tables of corefud-scorer (its evaluator is coval's) when a span is in several
    entities: key entities ``kc`` and response entities ``listed``, each span once per
    entity. Its recall side looks each key listing up in the last response entity that
    lists its span (``get_mention_to_clusterid_map`` keeps the last), its precision
    side each response listing in the last key entity, and CEAF compares every listing
    with every entity: the returned table is the recall side, its ``listed`` table the
    precision side (:attr:`~corefio.metrics.base.Contingency.precision_table`), its
    ``aligned`` table CEAF's. Class sizes count every listing (the recall side's
    response classes at least the key listings found in them, so that it stays a
    contingency table: its metrics take response sizes from the precision side);
    mention identification counts distinct spans (:class:`~corefio.metrics.base.Repeats`)."""
    from ..metrics.mentions import mention_identification

    k_last, r_last = _last(kc, "corefud"), _last(listed, "corefud")
    key_sizes, response_sizes = [len(c) for c in kc], [len(c) for c in listed]

    def tabled(pairs: list[tuple[int, int]]) -> Contingency:
        return Contingency.from_pairs([i for i, _ in pairs], [j for _, j in pairs], key_sizes, response_sizes)

    recall = tabled([(i, r_last[s]) for i, chain in enumerate(kc) for s in chain if s in r_last])
    found = recall.response_matched()
    if (found > recall.response_sizes).any():  # a response span found in several key entities
        recall = recall.with_response_sizes(np.maximum(recall.response_sizes, found))
    precision = tabled([(k_last[s], j) for j, chain in enumerate(listed) for s in chain if s in k_last])
    in_response: dict[tuple, list[int]] = {}
    for j, chain in enumerate(listed):
        for s in chain:
            in_response.setdefault(s, []).append(j)
    aligned = tabled([(i, j) for i, chain in enumerate(kc) for s in chain for j in in_response.get(s, ())])
    raw = mention_identification(recall)
    repeats = Repeats(key_mentions=int(raw.recall_den) - len(k_last), mentions=int(raw.precision_den) - len(r_last),
                      matched=int(raw.recall_num) - len(k_last.keys() & r_last.keys()))
    return recall.with_repeats(repeats).with_listed(precision).with_aligned(aligned)
