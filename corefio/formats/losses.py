"""Loss reports and projections, both driven by :class:`~corefio.formats.registry.Capabilities`.

One table, :data:`FEATURES`, says for each capability how to find what a document uses
of it (``usage``) and how to remove it (``strip``). From it:

* :func:`report_losses` adds one ``loss.<feature>`` diagnostic per feature a document
  uses and the target format cannot express, with a count and an example. The API runs
  it before every writer, so writers never check for losses themselves.
  The links of markables of other layers that are not written are reported with them
  (``loss.layer-links``, one per source → target pair). A feature a format expresses can
  be lost all the same with another it cannot (:data:`LOST_WITH`): CoNLL-U and UA keep
  the attributes of the bridging links they write, not those of the identity links they
  turn into chains (WebAnno TSV's relation types ``ana``, ``appos``...).
* :func:`treatment` says what the writer of a format does with such a use: drops it,
  writes its hull (a discontinuous mention as one span from its first to its last word),
  writes it as it is (``kept``: the format's own tools may not read it; reported as
  ``info``), writes brackets that read back as other mentions (``nested``), or reports it
  itself (``writer``: only it knows what it could write). The message says exactly that:
  each is checked against the written file by an independent counter
  (tests/test_conversion_matrix.py, tests/test_wild.py).
* :func:`project` gives the document as the target format can hold it: what a round
  trip through that format must give back (the common round-trip test compares with it).

Layout (``Document.layout``) is never a loss: another format's layout is ignored
silently, and the owning format writes it back.

Entity ids that are plain counters (``12``, ``set_4``, ``e7``) carry nothing a user
needs when renumbered: losing them is reported as ``info``; other ids (``person-4``)
as a warning.
"""

from __future__ import annotations

import re
from collections import Counter
from copy import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..model.mentions import is_identity
from ..diagnostics import Report
from ._layers import coreference_layer

if TYPE_CHECKING:
    from ..model import Corpus, Document
    from .registry import Capabilities

#: (count, example) of what a document uses of a feature
Usage = tuple[int, str | None]
_COUNTER_ID = re.compile(r"^[A-Za-z_]*\d+$")


@dataclass(frozen=True)
class Feature:
    """A capability: what it is called in messages, how to see and remove its use."""

    name: str
    message: str
    usage: Callable[["Document", Any], Usage]
    strip: Callable[["Document", Any], "Document"]
    severity: Callable[["Document"], str] = lambda doc: "warning"
    #: what a writer does with it unless :data:`TREATMENTS` says otherwise
    done: str = "dropped"


def _not_kept(names: Iterable[str], allowed: Any) -> list[str]:
    """Names a capability value (True, False or a frozenset) does not express."""
    if allowed is True:
        return []
    if allowed is False:
        return list(names)
    return [n for n in names if n not in allowed]


def _count(items: Iterable[Any]) -> Usage:
    n = 0
    example = None
    for item in items:
        n += 1
        if example is None:
            example = str(item)
    return n, example


def _copy(doc: "Document", **changes: Any) -> "Document":
    return doc.copy(**changes)


# -- usage of each feature -------------------------------------------------------------------
def _crossing_pairs(markables: list, same_chain: "Document | None" = None) -> Iterable[str]:
    """Refs of markables whose extent crosses an earlier one's (overlap, no containment);
    with ``same_chain`` (the markables' document), only pairs in one chain count."""
    # (first, last, ref) taken once from each markable, not through its properties at
    # every comparison; the chains are found when a pair crosses, not for every
    # document (report_losses for CoNLL over the benchmark key: 0.105 s -> 0.074 s CPU)
    order = sorted(((m.spans[0][0], m.spans[-1][1], m.ref) for m in markables), key=lambda m: (m[0], -m[1]))
    chain = None
    open_: list[tuple[int, int, str]] = []
    for m in order:
        first, last, ref = m
        if open_:
            open_ = [o for o in open_ if o[1] >= first]
            for o in open_:
                if o[0] < first <= o[1] < last:
                    if same_chain is not None and chain is None:
                        chain = _chain_of(same_chain).get
                    if chain is None or chain(o[2]) == chain(ref):
                        yield ref
                        break
        open_.append(m)


def _chain_of(doc: "Document") -> dict[str, int]:
    return {doc.markables[i].ref: k for k, chain in enumerate(doc.chain_indices()) for i in chain}


def _sentence_crossing(doc: "Document") -> Iterable[str]:
    if not doc.sentences:
        return
    sentence = doc.sentence_of_token()
    for m in doc.markables:
        if sentence[m.first] != sentence[m.last]:
            yield m.ref


#: the parts of a sentence ``sentence_attributes`` covers, and what each is when absent
SENTENCE_PARTS: dict[str, Any] = {"id": None, "comments": [], "attributes": {}, "interleaved": []}


def _sentence_parts_lost(doc: "Document", allowed: Any) -> Iterable[str]:
    """``sentence N: part`` for each sentence with a part the format does not keep."""
    lost = _not_kept(SENTENCE_PARTS, allowed)
    for k, s in enumerate(doc.sentences):
        part = next((p for p in lost if getattr(s, p) != SENTENCE_PARTS[p]), None)
        if part is not None:
            yield f"sentence {k + 1}: {part}"


def _non_numeric_entities(doc: "Document") -> str:
    ids = doc.entity_ids()
    return "info" if all(_COUNTER_ID.match(e) for e in ids) else "warning"


def _attribute_counts(items: Iterable[dict], allowed: Any) -> Counter:
    counts: Counter = Counter()
    for attrs in items:
        if not attrs:  # most markables have none
            continue
        for name in _not_kept(attrs, allowed):
            counts[name] += 1
    return counts


def _strip_markables(doc: "Document", **changes: Any) -> "Document":
    return _copy(doc, markables=[m.copy(**changes) for m in doc.markables])


def _chains_as_entities(doc: "Document") -> "Document":
    """Identity links replaced by the entity ids they imply (the chains stay)."""
    if not any(is_identity(link.type) for link in doc.links):
        return doc
    entity: dict[int, str] = {}
    for k, chain in enumerate(doc.chain_indices()):
        named = next((doc.markables[i].entity for i in chain if doc.markables[i].entity is not None), None)
        for i in chain:
            entity[i] = named if named is not None else f"chain_{k + 1}"
    markables = [m.copy(entity=entity.get(i, m.entity)) for i, m in enumerate(doc.markables)]
    links = [link for link in doc.links if not is_identity(link.type)]
    return _copy(doc, markables=markables, links=links)


def _keep_attributes(attrs: dict, allowed: Any) -> dict:
    drop = set(_not_kept(attrs, allowed))
    return {k: v for k, v in attrs.items() if k not in drop}


FEATURES: tuple[Feature, ...] = (
    Feature("discontinuous", "discontinuous mentions",
            lambda d, c: _count(m.ref for m in d.markables if len(m.spans) > 1),
            lambda d, c: _strip_markables_each(d, lambda m: {"spans": ((m.first, m.last),)} if len(m.spans) > 1 else None),
            done="hull"),
    Feature("crossing", "mentions that overlap without nesting",
            lambda d, c: _count(_crossing_pairs(d.markables)),
            lambda d, c: d),
    Feature("same_entity_overlap", "mentions of one entity that overlap without nesting",
            lambda d, c: _count(_crossing_pairs(d.markables, d)),
            lambda d, c: d),
    Feature("cross_sentence", "mentions that cross a sentence boundary",
            lambda d, c: _count(_sentence_crossing(d)), lambda d, c: d),
    Feature("link_structure", "which antecedent each identity link points to",
            lambda d, c: _count(link.id for link in d.links if is_identity(link.type)),
            lambda d, c: _chains_as_entities(d), done="only the chains they make are written"),
    Feature("link_types", "non-identity links",
            lambda d, c: _count(f"{link.id} ({link.type})" for link in d.links if not is_identity(link.type)),
            lambda d, c: _copy(d, links=[link for link in d.links if is_identity(link.type)])),
    Feature("multi_target_links", "links with several targets as one link",
            lambda d, c: _count(link.id for link in d.links if len(link.targets) > 1),
            lambda d, c: d, done="each target written as a link of its own"),
    Feature("markable_attributes", "markable attributes",
            lambda d, c: _count(f"{n} ×{k}" for n, k in sorted(_attribute_counts((m.attributes for m in d.markables), c).items())
                                for _ in range(k)),
            lambda d, c: _strip_markables_each(d, lambda m: {"attributes": _keep_attributes(m.attributes, c)}
                                               if _not_kept(m.attributes, c) else None)),
    Feature("entity_attributes", "entity attributes",
            lambda d, c: _count(e.id for e in d.entities for _ in _not_kept(e.attributes, c)),
            lambda d, c: _copy(d, entities=[e.copy(attributes=_keep_attributes(e.attributes, c))
                                            for e in d.entities if _keep_attributes(e.attributes, c)
                                            or any(link.target_kind == "entity" and e.id in link.targets
                                                   for link in d.links)])),
    Feature("link_attributes", "link attributes",
            lambda d, c: _link_attributes(link for link in d.links if link.attributes),
            lambda d, c: _copy(d, links=[link.copy(**{"attributes": {}}) for link in d.links])),
    Feature("heads", "mention heads",
            lambda d, c: _count(m.ref for m in d.markables if m.head is not None),
            lambda d, c: _strip_markables(d, head=None)),
    Feature("min", "MUC MIN spans",
            lambda d, c: _count(m.ref for m in d.markables if m.min is not None),
            lambda d, c: _strip_markables(d, min=None)),
    Feature("optional", "optional mentions (STATUS=OPT)",
            lambda d, c: _count(m.ref for m in d.markables if m.optional),
            lambda d, c: _strip_markables(d, optional=False)),
    Feature("layers", "markables of other layers than coreference",
            lambda d, c: _count(m.ref for m in d.markables if m.layer is not None),
            lambda d, c: _strip_layers(d),
            done="those in a chain written as mentions of the coreference layer, the others dropped"),
    Feature("sets", "non-identity set memberships",
            lambda d, c: _count(m.ref for m in d.markables if m.sets),
            lambda d, c: _strip_markables(d, sets={})),
    Feature("token_attributes", "token attributes",
            lambda d, c: _count(f"{name} ×{len(col) - col.count(None)}"
                                for name, col in d.tokens.attributes.items()
                                if name in _not_kept([name], c) and col.count(None) != len(col)),
            lambda d, c: _copy(d, tokens=d.tokens.copy(**{"attributes": {
                n: col for n, col in d.tokens.attributes.items() if not _not_kept([n], c)}}))),
    Feature("token_ids", "token ids",
            lambda d, c: (1, d.tokens.ids[0] if d.tokens.ids else None) if d.tokens.ids is not None else (0, None),
            lambda d, c: _copy(d, tokens=d.tokens.copy(ids=None)), done="tokens numbered anew"),
    Feature("empty_tokens", "which tokens are empty (CoNLL-U empty nodes)",
            lambda d, c: (len(d.tokens.empty), d.tokens.forms[d.tokens.empty[0]]) if d.tokens.empty else (0, None),
            lambda d, c: _copy(d, tokens=d.tokens.copy(empty=None)), done="written as ordinary words"),
    Feature("whitespace", "the exact whitespace between tokens",
            lambda d, c: (len(d.tokens.forms), None) if d.tokens.whitespace is not None and d.text is None else (0, None),
            lambda d, c: _copy(d, tokens=d.tokens.copy(whitespace=None))),
    Feature("offsets", "character offsets of tokens",
            lambda d, c: (len(d.tokens.forms), None) if d.tokens.offsets is not None else (0, None),
            lambda d, c: _copy(d, tokens=d.tokens.copy(offsets=None))),
    Feature("text", "the exact source text (markup and all)",
            lambda d, c: (1, None) if d.text is not None else (0, None),
            lambda d, c: _copy(d, text=None, regions=[])),
    Feature("regions", "structural regions of the source text",
            lambda d, c: _count(r.type for r in d.regions), lambda d, c: _copy(d, regions=[])),
    Feature("sentences", "sentence boundaries",
            lambda d, c: (len(d.sentences), None) if len(d.sentences) > 1 else (0, None),
            lambda d, c: _copy(d, sentences=[])),
    Feature("sentence_attributes", "sentence ids, comments and attributes",
            lambda d, c: _count(_sentence_parts_lost(d, c)),
            lambda d, c: _copy(d, sentences=[s.copy(**{part: copy(SENTENCE_PARTS[part])
                                                                 for part in _not_kept(SENTENCE_PARTS, c)})
                                             for s in d.sentences])),
    Feature("metadata", "document metadata",
            lambda d, c: _count(d.metadata), lambda d, c: _copy(d, metadata={})),
    Feature("entity_ids", "entity ids",
            lambda d, c: _count(d.entity_ids()), lambda d, c: d, _non_numeric_entities, done="renumbered"),
)
FEATURE_NAMES = frozenset(f.name for f in FEATURES)
#: feature name → what writers do with it by default
_DONE = {f.name: f.done for f in FEATURES}

#: what each kind of treatment says in a message (a :class:`Feature`'s ``done`` that is
#: not one of these is said as it is)
TREATMENT_TEXT = {
    "dropped": "dropped",
    "hull": "each written as one span from its first to its last word",
    "kept": "written as they are, across the boundary (tools that read one sentence at a time reject them)",
    "nested": "written as brackets that read back as other mentions: one from the first start to the last end, "
              "one nested in it",
    "later_dropped": "of each such pair, the mention that starts later is dropped",
}
#: (feature, format) → treatment, where a writer does not do its feature's ``done``;
#: ``writer``: the writer reports what it does itself (report_losses says nothing);
#: ``covered``: another feature's report already counts these mentions
TREATMENTS: dict[tuple[str, str], str] = {
    ("cross_sentence", "webanno-tsv"): "kept",
    ("crossing", "mate"): "later_dropped",
    ("crossing", "muc"): "later_dropped",
    ("same_entity_overlap", "mate"): "covered",  # crossing mentions: the later one is dropped
    ("same_entity_overlap", "muc"): "covered",
    ("same_entity_overlap", "conll"): "nested",
    ("same_entity_overlap", "conllu"): "writer",  # drops only those that would not read back
}


def treatment(feature: str, format_name: str) -> str:
    """What the writer of ``format_name`` does with a use of ``feature`` it cannot express:
    a key of :data:`TREATMENT_TEXT`, ``writer``, ``covered``, or the feature's own ``done``."""
    found = TREATMENTS.get((feature, format_name))
    if found is not None:
        return found
    return _DONE[feature]


def loss_message(format_name: str, what: str, done: str | None = "dropped") -> str:
    """``<format> cannot express <what>; <what the writer did instead>``."""
    said = TREATMENT_TEXT.get(done, done) if done else None
    return f"{format_name} cannot express {what}" + (f"; {said}" if said else "")


def _strip_markables_each(doc: "Document", change: Callable[[Any], dict | None]) -> "Document":
    out = []
    for m in doc.markables:
        update = change(m)
        out.append(m if update is None else m.copy(**update))
    return _copy(doc, markables=out)


def _strip_layers(doc: "Document") -> "Document":
    """Markables of other layers: those in a chain move to the default layer (as the
    writers move them, :func:`~corefio.formats._layers.coreference_layer`), the rest go."""
    projected = coreference_layer(doc)
    return _copy(doc, markables=projected.markables, links=projected.links)


def _link_attributes(links: Iterable[Any]) -> Usage:
    """(links with attributes, an example that counts their values: ``type=ana ×11,
    type=appos ×5``: WebAnno TSV's relation types, GUM's kinds of identity, are such
    attributes)."""
    links = list(links)
    values = Counter(f"{k}={v}" for link in links for k, v in sorted(link.attributes.items()))
    shown = [f"{value} ×{n}" for value, n in values.most_common(5)]
    more = len(values) - len(shown)
    return len(links), (", ".join(shown) + (f" and {more} other values" if more > 0 else "")) if links else None


#: (feature, capability) → what is lost of a feature a format expresses because it
#: cannot express the capability, in words and counted: a format that writes chains and
#: not identity links (CoNLL-U, UA) keeps the attributes of the links it writes
#: (bridging), not those of the identity links it turns into chains
LOST_WITH: dict[tuple[str, str], tuple[str, Callable[["Document"], Usage]]] = {
    ("link_attributes", "link_structure"): (
        "attributes of identity links (link types such as ana or appos)",
        lambda d: _link_attributes(link for link in d.links if link.attributes and is_identity(link.type))),
}


def uses(doc: "Document", capabilities: "Capabilities",
         skip: Callable[[str], bool] | None = None) -> list[tuple[Feature, Usage]]:
    """The features ``doc`` uses that ``capabilities`` does not (fully) express
    (:data:`LOST_WITH`: a feature expressed, lost all the same with another one).
    ``skip``: features (by name) not to look for."""
    out = []
    for feature in FEATURES:
        if skip is not None and skip(feature.name):
            continue
        allowed = getattr(capabilities, feature.name)
        if allowed is True:
            for (name, other), (message, usage) in LOST_WITH.items():
                if name == feature.name and getattr(capabilities, other) is not True:
                    n, example = usage(doc)
                    if n:
                        out.append((replace(feature, message=message), (n, example)))
            continue
        n, example = feature.usage(doc, allowed)
        if n:
            out.append((feature, (n, example)))
    return out


def report_losses(doc: "Document", capabilities: "Capabilities", report: Report, format_name: str) -> int:
    """Add a ``loss.<feature>`` diagnostic for each feature ``doc`` uses that the format
    cannot express; returns how many kinds of loss were found."""
    # what the writer reports itself, or another feature's report counts, is not
    # looked for (finding mentions of one entity that cross is half the cost here)
    found = uses(doc, capabilities, lambda name: treatment(name, format_name) in ("writer", "covered"))
    for feature, (n, example) in found:
        done = treatment(feature.name, format_name)
        severity = "info" if done == "kept" else feature.severity(doc)
        report.add(f"loss.{feature.name.replace('_', '-')}", severity,  # type: ignore[arg-type]
                   loss_message(format_name, feature.message, done),
                   document=doc.label, count=n, merge=True, example=example)
    if capabilities.link_types is True and any(feature.name == "layers" for feature, _ in found):
        # the links of the markables not written go with them (another format's links
        # are all reported by loss.link-types already)
        n, example = _layer_links(doc, capabilities.layers)
        if n:
            report.add("loss.layer-links", "warning",
                       loss_message(format_name, "links from or to markables of other layers that are not written",
                                    "dropped"), document=doc.label, count=n, merge=True, example=example)
    return len(found)


def _layer_links(doc: "Document", allowed: Any) -> Usage:
    """Links that go with the markables of other layers a format does not write (those in
    no chain, :func:`~corefio.formats._layers.coreference_layer`): one for each target
    such a markable is the source of, and one for each target that is such a markable."""
    keep = allowed if isinstance(allowed, frozenset) else frozenset()
    if all(m.layer is None or m.layer in keep for m in doc.markables):
        return 0, None
    in_chain = {doc.markables[i].ref for chain in doc.chain_indices() for i in chain}
    gone = {m.ref for m in doc.markables if m.layer is not None and m.layer not in keep and m.ref not in in_chain}
    n, example = 0, None
    for link in doc.links:
        lost = len(link.targets) if link.source in gone else \
            sum(t in gone for t in link.targets) if link.target_kind == "markable" else 0
        if lost and example is None:
            example = f"{link.id} ({link.type})"
        n += lost
    return n, example


def report_corpus_losses(corpus: "Corpus", capabilities: "Capabilities", report: Report, format_name: str) -> None:
    """Losses of corpus-level data (annotation schemes, entities across documents)."""
    from ..model.crossdoc import CROSS_DOCUMENT_FORMATS

    if corpus.cross_entities and format_name not in CROSS_DOCUMENT_FORMATS:
        report.add("loss.cross_document", "warning",
                   loss_message(format_name, "entities across documents (each document keeps its own chains)"),
                   count=len(corpus.cross_entities), merge=True, example=corpus.cross_entities[0].id)
    if corpus.schemes and not capabilities.schemes:
        report.add("loss.schemes", "warning", loss_message(format_name, "annotation schemes"),
                   count=len(corpus.schemes), merge=True,
                   example=next((s.layer or s.name for s in corpus.schemes if s.layer or s.name), None))


def project(doc: "Document", capabilities: "Capabilities") -> "Document":
    """``doc`` as a format with these capabilities can hold it: every feature it cannot
    express removed, every other format's layout dropped."""
    for feature in FEATURES:
        allowed = getattr(capabilities, feature.name)
        if allowed is not True:
            doc = feature.strip(doc, allowed)
    return _copy(doc, layout={})


#: words by which a writer's message already says what it wrote instead of what it
#: could not express ("replaced by '_'", "written as text", "the first is kept"):
#: such a message is not followed by "; dropped"
_SAYS_WHAT_WAS_WRITTEN = re.compile(r"\b(replaced|written|writes|kept|renamed|merged|numbered|changed|cuts)\b")


class LossLog:
    """Loss events a writer can only notice while writing (a value it cannot encode);
    most losses are found beforehand by :func:`report_losses`.

    ``done`` says what the writer did instead (``"dropped"`` when not given, unless the
    message says it already: ``(replaced by '_')``, ``(written as text)``)."""

    def __init__(self, report: Report, format_name: str) -> None:
        self.report = report
        self.format_name = format_name

    def lose(self, kind: str, message: str, *, document: "Document | None" = None, count: int = 1,
             example: str | None = None, severity: str = "warning", done: str | None = None) -> None:
        if count <= 0:
            return
        if done is None and not _SAYS_WHAT_WAS_WRITTEN.search(message):
            done = "dropped"
        self.report.add(f"loss.{kind}", severity,  # type: ignore[arg-type]
                        loss_message(self.format_name, message, done),
                        document=document.label if document is not None else None,
                        count=count, merge=True, example=example)


def lose_entity_ids(log: LossLog, doc: "Document", renamed: list[str], message: str) -> None:
    """``loss.label``: a writer that keeps entity ids had to change these (``info`` when
    all are plain counters, as for ``loss.entity-ids``)."""
    if renamed:
        log.lose("label", message, document=doc, count=len(renamed), example=renamed[0],
                 severity="info" if all(_COUNTER_ID.match(e) for e in renamed) else "warning")
