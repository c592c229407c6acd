"""What kind of errors a response makes: the error classes of Kummerfeld & Klein (2013).

Kummerfeld & Klein ("Error-Driven Analysis of Challenges in Coreference Resolution",
EMNLP 2013) turn a response into the key by a sequence of simple corrections and name
each error after the corrections that undo it. corefio follows their classes and their
order, on one document's key and response partitions (mentions are token spans):

1. **span error** — a response mention that is not a key mention, but has the same head
   token as a key mention no response mention covers exactly: its span is corrected
   (each key mention is used once). Heads are those of head matching, on both sides
   (below);
2. **conflated entities** — a response entity holding key mentions of several key
   entities is split, one part per key entity: ``parts - 1`` errors per response entity
   (mentions that are in no key entity go with the largest part);
3. **extra mention** — a mention in no key entity, in a response entity that has key
   mentions, is removed;
4. **extra entity** — a response entity without any key mention is removed (one error
   per entity);
5. **missing mention** — a key mention no response entity has, of a key entity that the
   response found in part, is added to the response entity holding most of that key
   entity's mentions;
6. **missing entity** — a key entity none of whose mentions the response has is added
   whole (one error per entity);
7. **divided entity** — the response entities holding parts of one key entity are
   merged: ``parts - 1`` errors per key entity.

After the seven steps the response is the key. Each step's **gain** is the change of the
corpus score it brings (summed counts before and after the step, as corpus scores are
formed), so the gains of all steps add up to the distance from the response's score to
a perfect score. Counts are per document and for the corpus.

Heads. Kummerfeld & Klein's analyser heads a mention by Collins' head rules on the
parse (Collins 1999, "Head-Driven Statistical Models for Natural Language Parsing"; for
a noun phrase: the last word if it is a possessive ``POS``, else the rightmost noun
``NN``/``NNS``/``NNP``/``NNPS``/``NX`` or ``POS``/``JJR``, else ``$``, then ``CD``, then
``JJ``/``JJS``/``RB``/``QP`` from the right, else the last word). corefio heads a mention,
on both sides, by:

* its annotated head (CorefUD's head field, MMAX2 and MATE heads, RAF);
* else, when the document has Penn Treebank part-of-speech tags (CoNLL-2012's POS
  column), that noun-phrase rule applied to the mention's words as the children of one
  noun phrase, its postmodifiers set aside (:func:`np_head`): "Prime Minister Ehud Barak"
  for "Israeli Prime Minister Ehud Barak" is a span error (both headed by "Barak"), as in
  the analyser, and so are "the big dog barked" and "big dog" for "the big dog" (all
  headed by "dog"), while "the park" for "the man in the park" is not; the tags are the
  key's (else the response's: the two share their words);
* else its first word (:func:`corefio.compare.matching.head_token`, udapi's default and
  so corefud-scorer's, the head matching of scoring), so that without tags a span error
  is what head matching would pair: "the big dog barked" for "the big dog" is one, "big
  dog" an extra plus a missing mention.

corefio reads no parse trees: a mention that is no noun phrase of the parse may get
another head from the analyser. Checked against the analyser
(tests/test_web_compare_external.py), corefio is given the heads the analyser found, and
both find the same errors on the same mentions.

Other differences from the paper, on purpose: corefio needs no parse (nor labels of
mention kinds), and it accepts responses that leave out key singletons (their analyser
crashes on them): those are missing entities.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import metrics as M
from ..compare.matching import head_token
from ..model.mentions import Mention, MentionView
from ..diagnostics import Report
from ..metrics.base import Score
from .render import signed_percent
from .views import partition

#: the error classes, in the order the corrections are made
ERROR_CLASSES = ("span_error", "conflated_entities", "extra_mention", "extra_entity",
                 "missing_mention", "missing_entity", "divided_entity")

#: metrics the gains can be given in (each a function of two partitions returning a Score)
GAIN_METRICS = {"muc": M.muc, "bcub": M.b_cubed, "ceafe": M.ceaf_entity, "ceafm": M.ceaf_mention, "lea": M.lea}

Spans = tuple[tuple[int, int], ...]
Partition = list[list[Spans]]


#: Penn Treebank tags of Collins' noun-phrase head rule, in the order it looks for them
#: (each searched from the right)
_NP_HEAD_TAGS = (frozenset({"NN", "NNP", "NNPS", "NNS", "NX", "POS", "JJR"}), frozenset({"$", "ADJP", "PRN"}),
                 frozenset({"CD"}), frozenset({"JJ", "JJS", "RB", "QP"}))
#: tags that open a noun's postmodifier (a prepositional phrase, a clause, an apposition)
_POSTMODIFIER = frozenset({"IN", "TO", "WDT", "WP", "WP$", "WRB", "MD", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ",
                           ",", ":", "-LRB-"})
_NOUNS = frozenset({"NN", "NNS", "NNP", "NNPS", "NX", "PRP", "CD", "POS"})
#: tags that say a document is tagged with the Penn Treebank's set (not UPOS, not none)
_PTB_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS", "PRP", "PRP$", "DT", "IN", "VBD", "VBZ", "JJ"})


def np_head(words: Sequence[int], tags: Sequence[str | None]) -> int:
    """The head of a noun phrase of ``words`` tagged ``tags`` (Collins' rule, module
    docstring): a final possessive, else the rightmost word of the first tag group found,
    else the last word; a postmodifier (from a preposition, verb, wh-word or comma after
    a noun on) is set aside first, as the parse puts it in a phrase of its own ("the man
    in the park": "man")."""
    seen_noun = False
    for k, w in enumerate(words):
        if seen_noun and tags[w] in _POSTMODIFIER:
            words = words[:k]
            break
        seen_noun = seen_noun or tags[w] in _NOUNS
    if tags[words[-1]] == "POS":
        return words[-1]
    for group in _NP_HEAD_TAGS:
        for w in reversed(words):
            if tags[w] in group:
                return w
    return words[-1]


def _head(mention: Mention, tags: Sequence[str | None] | None = None) -> int:
    if mention.head or tags is None:
        return head_token(mention)
    words = [i for a, b in mention.spans for i in range(a, b + 1) if 0 <= i < len(tags)]
    return np_head(words, tags) if words else head_token(mention)


def _tags(*views: MentionView) -> list[str | None] | None:
    """The Penn Treebank tags of the first view that has them, else None."""
    for v in views:
        if v.pos and any(t in _PTB_TAGS for t in v.pos):
            return list(v.pos)
    return None


def _heads(view: MentionView, tags: Sequence[str | None] | None = None) -> dict[Spans, int]:
    heads: dict[Spans, int] = {}
    for chain in view.mentions:
        for m in chain:
            heads.setdefault(m.spans, _head(m, tags))
    return heads


@dataclass
class ErrorMark:
    """One error and the mentions it concerns: on the key side (the key's spans) and on
    the response side (the response's own spans, before any correction)."""

    kind: str
    key: list[Spans]
    response: list[Spans]


@dataclass
class DocumentErrors:
    """One document: how many errors of each class, the response after each step, and
    each error with its mentions (what the key-vs-response view marks)."""

    name: str
    counts: Counter = field(default_factory=Counter)
    #: the key, and the response before any step and after each step (same order as
    #: ERROR_CLASSES), as partitions of spans
    key: Partition = field(default_factory=list)
    stages: list[Partition] = field(default_factory=list)
    marks: list[ErrorMark] = field(default_factory=list)


def analyse_document(key: MentionView, response: MentionView, report: Report | None = None) -> DocumentErrors:
    """Classify the errors of ``response`` against ``key`` (module docstring)."""
    tags = _tags(key, response)
    return analyse_partitions([list(c) for c in partition(key, report, "key")],
                              [list(c) for c in partition(response, report, "response")],
                              _heads(key, tags), _heads(response, tags), key.label)


def analyse_partitions(K: Partition, R: Partition, key_heads: dict[Spans, int], response_heads: dict[Spans, int],
                       name: str = "") -> DocumentErrors:
    """:func:`analyse_document` on two partitions of spans and the head token of each span
    (a span without a head is headed by its first token, as in head matching)."""
    out = DocumentErrors(name, Counter({name: 0 for name in ERROR_CLASSES}), K, [R])
    marks = out.marks
    key_entity = {s: i for i, c in enumerate(K) for s in c}
    found = {s for c in R for s in c}

    # 1. span errors (``origin``: a corrected span back to the response's own)
    free_by_head: dict[int, list[Spans]] = {}
    for s in sorted(set(key_entity) - found):
        free_by_head.setdefault(key_heads[s], []).append(s)
    corrected: dict[Spans, Spans] = {}
    for s in sorted(found - set(key_entity)):
        candidates = free_by_head.get(response_heads.get(s, s[0][0]))
        if candidates:
            corrected[s] = candidates.pop(0)
            marks.append(ErrorMark("span_error", [corrected[s]], [s]))
    origin = {t: s for s, t in corrected.items()}
    out.counts["span_error"] = len(corrected)
    R = [[corrected.get(s, s) for s in c] for c in R]
    out.stages.append(R)

    def own(part: list[Spans]) -> list[Spans]:
        return [origin.get(s, s) for s in part]

    # 2. conflated entities: split by key entity (mentions outside the key follow the
    # largest part); each part split off is one error
    split: Partition = []
    for c in R:
        groups: dict[int, list[Spans]] = {}
        for s in c:
            if s in key_entity:
                groups.setdefault(key_entity[s], []).append(s)
        if len(groups) <= 1:
            split.append(c)
            continue
        out.counts["conflated_entities"] += len(groups) - 1
        parts = sorted(groups.values(), key=len, reverse=True)
        for part in parts[1:]:
            marks.append(ErrorMark("conflated_entities", part, own(part)))
        parts[0] = parts[0] + [s for s in c if s not in key_entity]
        split.extend(parts)
    out.stages.append(split)

    # 3. extra mentions (in entities that have key mentions)
    kept: Partition = []
    for c in split:
        if any(s in key_entity for s in c):
            extra = [s for s in c if s not in key_entity]
            out.counts["extra_mention"] += len(extra)
            marks.extend(ErrorMark("extra_mention", [], [s]) for s in extra)
            kept.append([s for s in c if s in key_entity])
        else:
            kept.append(c)
    out.stages.append(kept)

    # 4. extra entities
    pure = [c for c in kept if any(s in key_entity for s in c)]
    marks.extend(ErrorMark("extra_entity", [], c) for c in kept if not any(s in key_entity for s in c))
    out.counts["extra_entity"] = len(kept) - len(pure)
    out.stages.append(pure)

    # 5. missing mentions of key entities found in part (added to the largest part)
    have = {s for c in pure for s in c}
    completed = [list(c) for c in pure]
    largest: dict[int, int] = {}
    for index, c in enumerate(completed):
        entity = key_entity[c[0]]
        if entity not in largest or len(c) > len(completed[largest[entity]]):
            largest[entity] = index
    for entity, index in largest.items():
        missing = [s for s in K[entity] if s not in have]
        out.counts["missing_mention"] += len(missing)
        marks.extend(ErrorMark("missing_mention", [s], []) for s in missing)
        completed[index].extend(missing)
    out.stages.append(completed)

    # 6. missing entities
    whole = completed + [list(c) for i, c in enumerate(K) if i not in largest]
    out.counts["missing_entity"] = len(K) - len(largest)
    marks.extend(ErrorMark("missing_entity", list(c), []) for i, c in enumerate(K) if i not in largest)
    out.stages.append(whole)

    # 7. divided entities: each part beside the largest is one error
    marks.extend(ErrorMark("divided_entity", c, own(c)) for index, c in enumerate(pure)
                 if largest[key_entity[c[0]]] != index)
    merged: dict[int, list[Spans]] = {}
    for c in whole:
        entity = key_entity[c[0]]
        if entity in merged:
            out.counts["divided_entity"] += 1
            merged[entity].extend(c)
        else:
            merged[entity] = list(c)
    out.stages.append(list(merged.values()))
    return out


@dataclass
class ErrorAnalysis:
    """Error counts per document and for the corpus, and each step's gain per metric."""

    metrics: list[str]
    documents: list[DocumentErrors]
    #: corpus F1 of each metric before any step and after each step
    curve: dict[str, list[float]]

    @property
    def counts(self) -> Counter:
        total: Counter = Counter({name: 0 for name in ERROR_CLASSES})
        for d in self.documents:
            total.update(d.counts)
        return total

    def gains(self, metric: str) -> dict[str, float]:
        """What correcting each class adds to the corpus F1 of ``metric`` (after the
        classes before it were corrected)."""
        values = self.curve[metric]
        return {name: values[k + 1] - values[k] for k, name in enumerate(ERROR_CLASSES)}

    def to_dict(self, per_document: bool = False) -> dict:
        out: dict[str, Any] = {
            "corpus": {name: count for name, count in self.counts.items()},
            "gains": {m: self.gains(m) for m in self.metrics},
            "scores": {m: {"before": self.curve[m][0], "after": self.curve[m][-1]} for m in self.metrics},
        }
        if per_document:
            out["documents"] = {d.name: dict(d.counts) for d in self.documents}
        return out

    def to_text(self, per_document: bool = False) -> str:
        header = f"{'error class':<20} {'count':>7}" + "".join(f" {('Δ' + m):>9}" for m in self.metrics)
        lines = ["Errors (Kummerfeld & Klein 2013), corrected in this order; Δ: F1 gained by the correction",
                 header]
        counts = self.counts
        gains = {m: self.gains(m) for m in self.metrics}
        for name in ERROR_CLASSES:
            lines.append(f"{name.replace('_', ' '):<20} {counts[name]:>7}"
                         + "".join(f" {signed_percent(gains[m][name]):>9}" for m in self.metrics))
        if per_document:
            lines.append("")
            lines.append(f"{'document':<30} " + " ".join(f"{n[:9]:>9}" for n in ERROR_CLASSES))
            for d in self.documents:
                lines.append(f"{d.name[:30]:<30} " + " ".join(f"{d.counts[n]:>9}" for n in ERROR_CLASSES))
        return "\n".join(lines) + "\n"

    def csv_rows(self, per_document: bool = False) -> list[list[Any]]:
        rows: list[list[Any]] = [["#corpus", name, self.counts[name]] + [self.gains(m)[name] for m in self.metrics]
                                 for name in ERROR_CLASSES]
        if per_document:
            rows += [[d.name, name, d.counts[name]] + [""] * len(self.metrics)
                     for d in self.documents for name in ERROR_CLASSES]
        return rows


def _f1(metric: str, score: Score) -> float:
    return float(score.f1)


def analyse(pairs: Sequence[tuple[MentionView, MentionView]], metrics: Sequence[str] = ("muc", "bcub", "ceafe"),
            report: Report | None = None) -> ErrorAnalysis:
    """The error analysis of document pairs (key view, response view). The gains are
    given for ``metrics`` (of :data:`GAIN_METRICS`) and for ``conll`` when MUC, B³ and
    CEAFe are all there."""
    wanted = [m for m in metrics if m in GAIN_METRICS]
    documents = [analyse_document(k, r, report) for k, r in pairs]
    stages = len(ERROR_CLASSES) + 1
    sums = {m: [Score.zero() for _ in range(stages)] for m in wanted}
    for d in documents:
        for m in wanted:
            fn = GAIN_METRICS[m]
            for k, stage in enumerate(d.stages):
                sums[m][k] = sums[m][k] + fn(d.key, stage)
    curve = {m: [_f1(m, s) for s in sums[m]] for m in wanted}
    names = list(wanted)
    if all(m in curve for m in ("muc", "bcub", "ceafe")):
        curve["conll"] = [(curve["muc"][k] + curve["bcub"][k] + curve["ceafe"][k]) / 3 for k in range(stages)]
        names.append("conll")
    return ErrorAnalysis(names, documents, curve)


def analyse_files(key: Any, response: Any, metrics: Sequence[str] = ("muc", "bcub", "ceafe"), *,
                  key_format: str | None = None, response_format: str | None = None, pair_by: str = "name",
                  pairs_file: Any = None, allow_missing: bool = False, match: str = "exact",
                  keep_singletons: bool = True, report: Report | None = None) -> ErrorAnalysis:
    """:func:`analyse` on a key and a response (corpora, documents or paths), documents
    paired as scoring pairs them, views prepared as scoring prepares them (``match``;
    ``keep_singletons=False``: chains of one mention left out of both sides before
    mentions are matched, as ``--drop-singletons`` leaves them out of the scores)."""
    from ..compare.synchronisation import pair_keys
    from .engine import _side
    from .views import prepare

    report = report if report is not None else Report()
    key_side = _side(key, key_format, report, True)  # with tags: heads by Collins' rule (module docstring)
    response_side = _side(response, response_format, report, True)
    pairs = []
    for i, j in pair_keys(key_side.keys, response_side.keys, pair_by, pairs_file, report, allow_missing):
        pairs.append(prepare(key_side.view(i), response_side.view(j) if j is not None else None, report, match,
                             keep_singletons=keep_singletons))
    return analyse(pairs, metrics, report)
