"""Scoring beyond identity, as the Universal Anaphora (UA) scorer does: split antecedents,
bridging, discourse deixis, non-referring expressions and the mention overlap ratio.

It reads pivot documents, so every reader that produces the relations feeds it:

* **split antecedents**: ``split_antecedent`` links (UA ``ElementOf``, CorefUD
  ``SplitAnte``, GUM ``bridge:aggr``): the link's source markable is a mention of the
  plural, its targets the element entities (or markables of them);
* **bridging**: ``bridging`` links (UA ``BRIDGING`` column, CorefUD ``Bridge``, GUM
  ``bridge:*``) and MMAX2 pointer levels whose attribute names bridging
  (:func:`corefio.formats.ua.is_bridging`: :data:`BRIDGING_TYPES`, or any link type
  starting with ``bridg``, the test the UA and CoNLL-U writers use too); a link to an
  entity (CorefUD, UA ``EntityAnchor``) is anchored at that entity's closest mention
  before the anaphor (its first mention when none precedes:
  :func:`corefio.formats.ua.anchor_mention`, the ``MentionAnchor`` the UA writer
  writes) — the UA scorer itself reads mention anchors only;
* **non-referring**: markables whose entity id ends in ``-Pseudo``/``_Pseudo`` or whose
  attribute ``referentiality`` is ``non_referring`` (ARRAU, UA);
* **discourse deixis**: the markables of the ``discourse_deixis`` layer, chained by
  their ``discourse_deixis`` set (the UA reader's layout of the ``DISCOURSE_DEIXIS`` column).

The modes (:class:`AnaphoraSettings`) and what the UA scorer calls them:

``identity``
    chains without split antecedents (singletons kept unless ``keep_singletons`` is off).
``split_antecedents``
    chains with one split-antecedent mention added to each plural (UA ``-l``).
``split_antecedents_only``
    the score of aligning the split antecedents alone (UA ``--only-split-antecedent``).
``discourse_deixis``
    the discourse-deixis chains instead of identity chains (UA ``-d``).
``non_referring``
    recognising non-referring markables (UA ``-m non-referring``); with
    ``keep_non_referring`` the identity scores also keep them as referring singletons
    (the UA scorer always leaves them out).
``bridging``
    anaphor recognition, mention-level and entity-level full bridging (UA ``-m bridging``).
``mor``
    the mention overlap ratio with the CorefUD partial match (UA ``-m mor -p``).

Every value is checked against the UA scorer in ``tests/test_ua_scoring.py``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..model.mentions import SPLIT_ANTECEDENT, document_label
from ..diagnostics import Report
from ..errors import UsageError
from ..metrics import anaphora as A
from ..metrics.anaphora import UaMention
from ..formats.ua import BRIDGING_TYPES, anchor_mention, is_bridging  # noqa: F401  (BRIDGING_TYPES: named here too)
from .presets import PRESETS, AnaphoraSettings, following, get_preset  # noqa: F401  (PRESETS: named here too)

DD_LAYER = "discourse_deixis"
NON_REFERRING_SUFFIXES = ("-Pseudo", "_Pseudo")


#: the modes are set in :class:`AnaphoraSettings`, which lives with the scorers' presets
#: (:mod:`.presets`: the UA scorer's ``-t`` settings are rows of that table)
MODE_NAMES = ("identity", "split", "split-only", "dd", "non-referring", "non-referring-kept", "bridging", "mor",
              "zero", "keep-zeros", "partial", "craft")


def settings_from(preset: str | None, modes: Sequence[str] = (), metrics: Sequence[str] | None = None,
                  options: Mapping[str, Any] | None = None) -> AnaphoraSettings:
    """Settings from a preset name (:mod:`.presets`) and/or ``--anaphora`` mode names.
    ``partial``, ``craft`` or ``keep-zeros`` alone change how identity chains are scored:
    they score them (``identity``). ``options``: the ordinary scorer's options, which
    corefud-scorer's MOR and zero score follow (:func:`.presets.following`)."""
    chosen = get_preset(preset).anaphora if preset is not None else None
    settings = chosen if chosen is not None else AnaphoraSettings()
    if options is not None:
        settings = following(settings, options)
    switches: dict[str, Any] = {}
    for mode in modes:
        for name in (m.strip() for m in mode.split(",")):
            if not name:
                continue
            if name not in MODE_NAMES:
                raise UsageError(f"unknown anaphora mode {name!r}; known: {', '.join(MODE_NAMES)}")
            if name == "zero":
                switches["zero"] = switches["keep_zeros"] = True
            elif name in ("partial", "craft"):
                switches["partial"] = "default" if name == "partial" else "craft"
            elif name == "non-referring-kept":
                switches["keep_non_referring"] = True
                switches["identity"] = True
            else:
                attribute = {"split": "split_antecedents", "split-only": "split_antecedents_only",
                             "dd": "discourse_deixis", "non-referring": "non_referring",
                             "keep-zeros": "keep_zeros"}.get(name, name)
                switches[attribute] = True
    settings = replace(settings, **switches)
    if modes and not settings.modes():
        settings = replace(settings, identity=True)
    if metrics:
        names = [name.strip() for m in metrics for name in m.split(",")]
        wanted = tuple(m for m in names if m in A.UA_METRICS)
        if wanted:
            settings = replace(settings, metrics=wanted)
    return settings


# -- from a pivot document to the UA scorer's chains ------------------------------------------

def is_non_referring(markable: Any) -> bool:
    entity = markable.entity or ""
    return entity.endswith(NON_REFERRING_SUFFIXES) or markable.attributes.get("referentiality") == "non_referring"


#: the test of a bridging link type, shared with the UA and CoNLL-U writers
_is_bridging = is_bridging


@dataclass
class PreparedDocument:
    """One document as the UA scorer sees it: chains (lists of mentions, each chain with
    whether it is non-referring and its element chains), bridging pairs, DD chains."""

    label: str
    chains: list[list[UaMention]]
    non_referring: list[bool]
    elements: list[list[int]]
    bridging: dict[UaMention, UaMention]
    dd_chains: list[list[UaMention]]
    #: whether each discourse-deixis chain is non-referring (a ``-Pseudo`` id)
    dd_non_referring: list[bool] = field(default_factory=list)
    #: each discourse-deixis chain's element chains (``ElementOf`` in that column)
    dd_elements: list[list[int]] = field(default_factory=list)


def word_keys(doc: Any) -> list[float]:
    """Each token's place as the UA scorer numbers words: the index among the words that are
    not empty tokens; an empty token (a zero) is the previous word's index plus k/1000 for
    the k-th empty token after it, so the places do not depend on which empty tokens a
    file has."""
    empty = set(doc.tokens.empty or ())
    keys: list[float] = []
    word, k = -1, 0
    for i in range(len(doc.tokens.forms)):
        if i in empty:
            k += 1
            keys.append(word + k / 1000)
        else:
            word, k = word + 1, 0
            keys.append(word)
    return keys


def _mention(markable: Any, keys: list[float], empty: set[int], with_min: bool, head_as_min: bool) -> UaMention:
    spans = markable.spans
    if not empty and not with_min and len(spans) == 1:
        # the common case: no empty token in the document (a word's place is its index)
        a, b = spans[0]
        return UaMention(range(a, b + 1), parts=((a, b),))
    tokens = sorted({t for a, b in spans for t in range(a, b + 1)})
    first = markable.head[0][0] if markable.head else tokens[0]
    zero = first in empty and len(tokens) == 1
    if not zero:
        tokens = [t for t in tokens if t not in empty]  # zeros inside a mention are not its words
    shortest = None
    if with_min:
        covered = markable.min or (markable.head if head_as_min else None)
        if covered:
            shortest = frozenset(keys[t] for a, b in covered for t in range(a, b + 1))
    parts = tuple((keys[a], keys[b]) for a, b in markable.spans)
    return UaMention([keys[t] for t in tokens], min=shortest, is_zero=zero, parts=parts)


def prepare(doc: Any, with_min: bool = False, head_as_min: bool = False) -> PreparedDocument:
    """What scoring needs from a pivot document (chains in the order of their first
    mention, mentions in document order). ``with_min``: keep the words a partial match
    must cover (``Min``; with ``head_as_min`` the head where there is no ``Min``, as the
    CorefUD scorer does for the key)."""
    markables = doc.markables
    keys = word_keys(doc)
    empty = set(doc.tokens.empty or ())

    def mention(markable: Any) -> UaMention:
        return _mention(markable, keys, empty, with_min, head_as_min)

    groups = doc.chain_indices()
    identity = [g for g in groups if markables[g[0]].layer is None]
    chains = [[mention(markables[k]) for k in g] for g in identity]
    chain_of: dict[int, int] = {k: i for i, g in enumerate(identity) for k in g}
    entity_chain: dict[str, int] = {}
    for i, g in enumerate(identity):
        for k in g:
            if markables[k].entity is not None:
                entity_chain.setdefault(markables[k].entity, i)
    index = doc.markable_index()
    elements: list[list[int]] = [[] for _ in identity]
    bridging: dict[UaMention, UaMention] = {}
    for link in doc.links:
        if link.source not in index or index[link.source] not in chain_of:
            continue
        source = index[link.source]
        if link.type == SPLIT_ANTECEDENT:
            plural = chain_of[source]
            for target in link.targets:
                element = (entity_chain.get(target) if link.target_kind == "entity"
                           else chain_of.get(index.get(target, -1)))
                if element is not None:
                    elements[plural].append(element)
        elif _is_bridging(link.type) and link.targets:
            target = link.targets[0]
            if link.target_kind == "entity":
                chain = entity_chain.get(target)
                if chain is None:
                    continue
                anchor = anchor_mention(markables, identity[chain], source)
            else:
                anchor = index.get(target)
                if anchor is None or anchor not in chain_of:
                    continue
            bridging[mention(markables[source])] = mention(markables[anchor])
    non_referring = [is_non_referring(markables[g[0]]) for g in identity]
    dd_groups: dict[str, list[UaMention]] = {}
    for m in markables:
        if m.layer == DD_LAYER and m.sets.get(DD_LAYER) is not None:
            dd_groups.setdefault(m.sets[DD_LAYER], []).append(mention(m))
    return PreparedDocument(document_label(doc.name, doc.part), chains, non_referring, elements, bridging,
                            list(dd_groups.values()), [name.endswith(NON_REFERRING_SUFFIXES) for name in dd_groups],
                            _dd_elements(doc, list(dd_groups), index))


def _dd_elements(doc: Any, names: list[str], index: dict[str, int]) -> list[list[int]]:
    """The element chains of each discourse-deixis chain: split-antecedent links from a
    markable of that layer to markables of that layer (the UA ``ElementOf`` of the
    ``DISCOURSE_DEIXIS`` column). A plural or element in the other column counts for
    neither kind of chain, as the UA scorer reads one column at a time."""
    chain_of = {name: i for i, name in enumerate(names)}
    elements: list[list[int]] = [[] for _ in names]

    def dd_chain(ref: str) -> int | None:
        k = index.get(ref)
        if k is None:
            return None
        m = doc.markables[k]
        return chain_of.get(m.sets.get(DD_LAYER)) if m.layer == DD_LAYER else None

    for link in doc.links:
        if link.type != SPLIT_ANTECEDENT or link.target_kind != "markable":
            continue
        plural = dd_chain(link.source)
        if plural is None:
            continue
        for target in link.targets:
            element = dd_chain(target)
            if element is not None:
                elements[plural].append(element)
    return elements


def scorer_chains(chains: list[list[UaMention]], non_referring: list[bool], elements: list[list[int]],
                  keep_singletons: bool, keep_split: bool, keep_non_referring: bool = False,
                  keep_zeros: bool = False) -> tuple[list[list[UaMention]], list[UaMention]]:
    """The chains the UA scorer evaluates and its list of non-referring mentions: a
    split-antecedent mention added to each plural (its members: the leaf element chains,
    found through nested plurals), non-referring chains set apart (or, with
    ``keep_non_referring``, kept as referring), singletons dropped when asked, and chains
    sharing a split-antecedent mention merged. Zero mentions are dropped unless
    ``keep_zeros`` (after the singletons, as the scorer does; a chain left empty is
    dropped too, where the scorer would keep it and LEA divide by zero)."""
    kept: list[list[UaMention]] = []
    non_ref: list[UaMention] = []
    for i, chain in enumerate(chains):
        chain = list(chain)
        if keep_split and elements[i]:
            leaves: set[tuple] = set()
            queue = deque([i])
            while queue:
                current = queue.popleft()
                if elements[current]:
                    queue.extend(elements[current])
                else:
                    leaves.add(tuple(chains[current]))
            chain.append(UaMention(members=frozenset(leaves)))
        if non_referring[i] and not keep_non_referring:
            non_ref.append(chain[0])
            continue
        if not keep_singletons and len(chain) == 1:
            continue
        if not keep_zeros:
            chain = [m for m in chain if not m.is_zero]
            if not chain:
                continue
        kept.append(chain)
    if not keep_split:
        return kept, non_ref
    merged: list[set] = []
    for chain in kept:
        home = None
        for m in chain:
            if m.is_split:
                for other in merged:
                    if m in other:
                        home = other
                        break
        if home is not None:
            home.update(chain)
        else:
            merged.append(set(chain))
    return [list(c) for c in merged], non_ref


# -- results -----------------------------------------------------------------------------------

#: (recall, precision, F1); the CoNLL mean has None for recall and precision
RPF = tuple[float | None, float | None, float]


@dataclass
class AnaphoraResult:
    """Scores per relation kind: ``{kind: {measure: (recall, precision, F1)}}``."""

    settings: AnaphoraSettings
    sections: dict[str, dict[str, RPF]]

    def to_dict(self) -> dict[str, Any]:
        return {kind: {name: {"recall": r, "precision": p, "f1": f} for name, (r, p, f) in measures.items()}
                for kind, measures in self.sections.items()}

    def to_text(self) -> str:
        """The section as a table: one block per relation kind, a row per measure
        (recall, precision, F1 in %; the CoNLL mean has an F1 only); nothing when there
        is no section."""
        from .render import percent

        if not self.sections:
            return ""
        rows = [name for measures in self.sections.values() for name in measures]
        width = max(11, *(len(name) for name in rows)) + 2
        lines = [self.title(), f"{'metric':<{width}}{'recall':>8}{'precision':>11}{'F1':>11}"]
        for kind, measures in self.sections.items():
            lines.append(f"{kind}{self._how(kind)}:")
            for name, (r, p, f) in measures.items():
                shown = ["" if x is None else percent(x) for x in (r, p, f)]
                lines.append(f"  {name:<{width - 2}}{shown[0]:>8}{shown[1]:>11}{shown[2]:>11}")
        return "\n".join(lines) + "\n"

    def title(self) -> str:
        """Whose numbers the section gives."""
        if self.settings.scorer == "corefud":
            return "corefud-scorer's mention overlap ratio and zero score (recall / precision / F1, %)"
        return "Universal Anaphora scores (recall / precision / F1, %)"

    def _how(self, kind: str) -> str:
        """How the chains of a section were matched, when not by exact spans."""
        if kind in ("identity", "identity_non_referring_kept", "split_antecedents", "split_antecedents_only",
                    "discourse_deixis") and self.settings.partial != "exact":
            return " (CRAFT partial matching)" if self.settings.partial == "craft" else " (partial matching)"
        return ""


def _identity_scores(pairs: list[tuple], metrics: Sequence[str], only_split: bool = False
                     ) -> dict[str, RPF]:
    out: dict[str, Any] = {m: A.corpus_scores(m, pairs, only_split) for m in metrics}
    if all(m in out for m in ("muc", "bcub", "ceafe")):
        # the CoNLL mean is an F1 only (as the UA scorer prints it): no recall, no precision
        out["conll"] = (None, None, (out["muc"][2] + out["bcub"][2] + out["ceafe"][2]) / 3)
    return out


def score_documents(pairs: Sequence[tuple[Any, Any]], settings: AnaphoraSettings) -> AnaphoraResult:
    """Score (key, response) pivot documents; a missing response (None) scores as empty."""
    prepared = []
    for key, response in pairs:
        with_min = settings.mor or settings.zero or settings.partial != "exact"
        k = prepare(key, with_min=with_min, head_as_min=True)
        r = prepare(response, with_min=with_min) if response is not None else \
            PreparedDocument(k.label, [], [], [], {}, [])
        prepared.append((k, r))
    sections: dict[str, dict[str, RPF]] = {}

    def chains_of(doc: PreparedDocument, split: bool, keep_non_referring: bool = False):
        return scorer_chains(doc.chains, doc.non_referring, doc.elements, settings.keep_singletons or split,
                             split, keep_non_referring, settings.keep_zeros)

    def matched(key_chains: list, response_chains: list) -> tuple:
        if settings.partial == "exact":
            return key_chains, response_chains
        return key_chains, response_chains, A.partial_alignment(key_chains, response_chains, settings.partial)

    if settings.identity:
        pairs_ = [matched(chains_of(k, False)[0], chains_of(r, False)[0]) for k, r in prepared]
        sections["identity"] = _identity_scores(pairs_, settings.metrics)
        if settings.keep_non_referring:
            kept = [matched(chains_of(k, False, True)[0], chains_of(r, False, True)[0]) for k, r in prepared]
            sections["identity_non_referring_kept"] = _identity_scores(kept, settings.metrics)
    if settings.split_antecedents or settings.split_antecedents_only:
        split_pairs = [matched(chains_of(k, True)[0], chains_of(r, True)[0]) for k, r in prepared]
        if settings.split_antecedents:
            sections["split_antecedents"] = _identity_scores(split_pairs, settings.metrics)
        if settings.split_antecedents_only:
            sections["split_antecedents_only"] = _identity_scores(split_pairs, settings.metrics, only_split=True)
    if settings.discourse_deixis:
        dd_pairs = []
        for k, r in prepared:
            sides = []
            for doc in (k, r):
                # the UA scorer reads this column as it reads identity, split antecedents too
                elements = doc.dd_elements if doc.dd_elements else [[] for _ in doc.dd_chains]
                sides.append(scorer_chains(doc.dd_chains, doc.dd_non_referring, elements, True, True)[0])
            dd_pairs.append(matched(sides[0], sides[1]))
        sections["discourse_deixis"] = _identity_scores(dd_pairs, settings.metrics)
    if settings.non_referring:
        total = np.zeros(3, dtype=np.int64)
        for k, r in prepared:
            total += A.recognition_counts(chains_of(k, False)[1], chains_of(r, False)[1])
        sections["non_referring"] = {"recognition": A.counts_prf(*(int(x) for x in total))}
    if settings.bridging:
        counts = np.zeros((3, 3), dtype=np.int64)
        for k, r in prepared:
            key_chains = chains_of(k, False)[0]
            counts += A.bridging_counts(k.bridging, r.bridging, A.cluster_index(key_chains))
        names = ("anaphor_recognition", "mention_level", "entity_level")
        sections["bridging"] = {n: A.counts_prf(int(c[0]), int(c[1]), int(c[2])) for n, c in zip(names, counts)}
    if (settings.mor or settings.zero) and settings.scorer == "corefud":
        sections.update(_corefud_sections(pairs, settings))
    elif settings.mor or settings.zero:
        overlap, zeros = np.zeros(4), np.zeros(4)
        for k, r in prepared:
            kc, rc = chains_of(k, False)[0], chains_of(r, False)[0]
            aligned = A.partial_alignment(kc, rc)
            overlap += A.mention_overlap_counts(kc, rc, aligned)
            zeros += A.anaphor_level_counts(kc, rc, A.cluster_index(rc), aligned, lambda m: m.is_zero)
        if settings.mor:
            sections["mor"] = {"mor": A.prf(*overlap)}
        if settings.zero:
            sections["zero"] = {"anaphor_level": A.prf(*zeros)}
    return AnaphoraResult(settings, sections)


def _corefud_sections(pairs: Sequence[tuple[Any, Any]], settings: AnaphoraSettings) -> dict[str, dict[str, RPF]]:
    """MOR and the zero score as corefud-scorer 1.2 computes them, summed over documents.

    Each side is read as corefud-scorer reads it: one-mention chains left out first
    (unless ``keep_singletons``), a span listed twice in one chain taken once (with head
    matching, twice when the two listings have different heads), zero mentions kept
    (unless ``keep_zeros`` is off) on the tokens both files share
    (:func:`corefio.model.zeros.merge_empty_tokens`). MOR pairs key and response mentions
    by their largest overlap (:func:`corefio.metrics.anaphora.max_overlap_counts`); the
    zero score is the anaphor-level score of the zero mentions
    (:func:`corefio.metrics.anaphora.anaphor_level_counts`) over the mentions paired by
    ``match`` after ``zero_match`` paired zeros, the pairing of corefio's ordinary scorer
    (:func:`corefio.compare.matching.match_mentions`, corefud-scorer's rule)."""
    from ..compare.matching import head_token, match_mentions, without_singletons
    from ..model.zeros import merge_empty_tokens, zero_mode
    from .views import carry_over, empty_view

    zeros = zero_mode(settings.keep_zeros, settings.zero_match)
    overlap, anaphors = np.zeros(4), np.zeros(4)
    for key, response in pairs:
        kv = key.mention_view(pos=False)
        rv = response.mention_view(pos=False) if response is not None else empty_view(kv)
        if not settings.keep_singletons:
            kv, rv = without_singletons(kv), without_singletons(rv)
        kv, rv = merge_empty_tokens(kv, rv, zeros)
        if len(kv.forms) != len(rv.forms):
            rv = carry_over(rv, kv, None)

        def keyed(m: Any) -> A.KeyedMention:
            words = sorted({t for a, b in m.spans for t in range(a, b + 1)})
            return A.KeyedMention(words, head_token(m) if settings.match == "head" else None, m.zero is not None)

        sides = []
        for view in (kv, rv):
            chains = [list(dict.fromkeys(keyed(m) for m in chain)) for chain in view.mentions]
            sides.append([c for c in chains if c])
        key_chains, response_chains = sides
        overlap += A.max_overlap_counts([m for c in key_chains for m in c], [m for c in response_chains for m in c])
        # the pairs of the ordinary scorer's matching, over each side's mentions once
        # (the first listing of a span stands for all: corefio.compare.matching.align)
        flat = [list(_first_listings(view).values()) for view in (kv, rv)]
        found = match_mentions(flat[0], flat[1], settings.match,
                               zero_match="dependent" if zeros == "dependent" else None)
        aligned: dict = {}
        for i, j in found.pairs:
            km, rm = keyed(flat[0][i]), keyed(flat[1][j])
            if km != rm:
                aligned[km], aligned[rm] = rm, km
        anaphors += A.anaphor_level_counts(key_chains, response_chains, A.cluster_index(response_chains), aligned,
                                           lambda m: m.is_zero)
    out: dict[str, dict[str, RPF]] = {}
    if settings.mor:
        out["mor"] = {"mor": A.prf(*overlap)}
    if settings.zero:
        out["zero"] = {"anaphor_level": A.prf(*anaphors)}
    return out


def _first_listings(view: Any) -> dict[tuple, Any]:
    """Spans → the first mention of ``view`` with them, in document order."""
    first: dict[tuple, Any] = {}
    for chain in view.mentions:
        for m in chain:
            first.setdefault(m.spans, m)
    return first


def settings_for(pairs: Sequence[tuple[Any, Any]]) -> AnaphoraSettings | None:
    """The modes worth showing for these documents: those whose relations the key or the
    response has (split antecedents, bridging, non-referring markables, discourse
    deixis); None when there is none (the web result page then shows no UA section)."""
    found: dict[str, Any] = {}
    for key, response in pairs:
        for doc in (key, response):
            if doc is None:
                continue
            for link in doc.links:
                if link.type == SPLIT_ANTECEDENT:
                    found["split_antecedents"] = True
                elif _is_bridging(link.type):
                    found["bridging"] = True
            for m in doc.markables:
                if m.layer == DD_LAYER:
                    found["discourse_deixis"] = True
                elif m.layer is None and is_non_referring(m):
                    found["non_referring"] = True
    return AnaphoraSettings(**found) if found else None


def score_files(key: Any, response: Any, settings: AnaphoraSettings, *, key_format: str | None = None,
                response_format: str | None = None, allow_missing: bool = False,
                report: Report | None = None) -> AnaphoraResult:
    """Read two files (or take two corpora) and score them; two lists of files (a
    directory's, paired) are scored as one corpus."""
    from ..formats import readwrite as api
    from ..compare.pairing import match_documents

    report = report if report is not None else Report()
    if isinstance(key, (list, tuple)):
        pairs = []
        for k, r in zip(key, response):
            pairs.extend(match_documents(api.read(k, key_format, report=report),
                                         api.read(r, response_format, report=report), report, allow_missing))
        return score_documents(pairs, settings)
    key_corpus = key if hasattr(key, "documents") else api.read(key, key_format, report=report)
    response_corpus = response if hasattr(response, "documents") else api.read(response, response_format,
                                                                               report=report)
    pairs = match_documents(key_corpus, response_corpus, report, allow_missing)
    return score_documents(pairs, settings)
