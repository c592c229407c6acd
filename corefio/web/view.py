"""The key vs response view of one document pair, as data for the template.

Both sides are shown on the key's tokens (a response tokenised differently is carried
over first: :func:`corefio.compare.synchronisation.carry_over`). The mentions and chains shown
are the ones the scorer compares (:func:`scored_chains`: the coreference layer's
mentions, matched with the result's matching mode, repeated spans and, when scoring
drops them, singletons left out), so the counts are mention identification's. A
mention is identified by its token spans, as the scorer identifies it. For each side the
view gives the tokens with the brackets that open and close before and after each one,
and every chain with its colour, its label (the entity as the source wrote it) and its
flags.

The errors marked are those of :mod:`corefio.scoring.error_analysis` (Kummerfeld &
Klein's classes), found by the same corrections in the same order, each error tied to
the mentions it concerns (:func:`classify`), so that the view's counts are the analysis'
counts:

* **span error**: the response mention and the key mention with its head (both sides);
* **conflated entities**: the mentions of each part split off a response entity (both
  sides: the key shows which key entity the part belongs to);
* **extra mention**, **extra entity**: response side; **missing mention**, **missing
  entity**: key side;
* **divided entity**: the mentions of each response entity merged into the part that
  holds most of the key entity (both sides).

A mention that is in no error is plain. Chain colours are taken from a band of hues
(:data:`CHAIN_HUES`) that keeps away from every error colour (:data:`ERROR_LOOK`); a
response chain takes the colour of the key chain it shares most mentions with.

Non-identity links (bridging, split antecedents...) are listed per side.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # pragma: no cover
    from ..model import Document

#: tokens shown on one page of the view (a longer document gets several pages)
PAGE_TOKENS = 4000

Spans = tuple[tuple[int, int], ...]
Partition = list[list[Spans]]


class Look(NamedTuple):
    """How an error class is shown: CSS class, badge, name, hue, what it means."""

    css: str
    badge: str
    name: str
    hue: int
    meaning: str


#: the error classes of corefio.scoring.error_analysis, in its order, and how each is shown
ERROR_LOOK: dict[str, Look] = {
    "span_error": Look("span", "S", "span error", 50,
                       "a response mention whose span differs from a key mention with the same head"),
    "conflated_entities": Look("conflated", "C", "conflated entities", 290,
                               "mentions of another key entity that the response put in this entity"),
    "extra_mention": Look("extra-mention", "+", "extra mention", 22,
                          "a response mention that is no key mention, in an entity the key has"),
    "extra_entity": Look("extra-entity", "E+", "extra entity", 22,
                         "a response entity none of whose mentions is a key mention"),
    "missing_mention": Look("missing-mention", "−", "missing mention", 355,
                            "a key mention the response lacks, of an entity the response found"),
    "missing_entity": Look("missing-entity", "E−", "missing entity", 355,
                           "a key entity none of whose mentions the response has"),
    "divided_entity": Look("divided", "D", "divided entity", 322,
                           "mentions of one key entity that the response put in a second entity"),
}

#: chain colours are hues in [first, last]: at least 30° from every error hue
CHAIN_HUES = (95, 260)


def target_id(spans, layer) -> str:
    text = "_".join(f"{a}-{b}" for a, b in spans)
    return f"{layer}:{text}" if layer else text


def hue(index: int) -> int:
    """The colour of chain ``index``: golden-ratio steps through :data:`CHAIN_HUES`."""
    first, last = CHAIN_HUES
    return first + int((index * 0.6180339887 * (last - first + 1)) % (last - first + 1))


@dataclass
class ErrorMark:
    """One error, and the mentions it concerns on each side (as target ids)."""

    id: str
    kind: str
    key: list[str]
    response: list[str]
    first: int = 0  #: the first token of its mentions (errors are listed in this order)
    text: str = ""  #: the words of its first mention

    @property
    def look(self) -> Look:
        return ERROR_LOOK[self.kind]


def classify(key: Partition, response: Partition, key_heads: dict[Spans, int],
             response_heads: dict[Spans, int]) -> list[ErrorMark]:
    """The errors of ``response`` against ``key``, each with its mentions, as
    :func:`corefio.scoring.error_analysis.analyse_partitions` finds them (so the number
    of marks of each class is the analysis' count)."""
    from ..scoring.error_analysis import analyse_partitions

    found = analyse_partitions([list(c) for c in key], [list(c) for c in response], key_heads, response_heads)
    return [ErrorMark("", m.kind, [target_id(s, None) for s in m.key], [target_id(s, None) for s in m.response])
            for m in found.marks]


def _first_token(target: str) -> int:
    return int(target.split("-", 1)[0])


@dataclass
class Chain:
    id: str
    label: str
    hue: int
    size: int
    flags: list[str] = field(default_factory=list)


@dataclass
class Bracket:
    target: str
    chain: str
    hue: int
    label: str
    #: CSS classes of the errors this mention is in ("" for none)
    status: str = ""
    #: the ids of those errors, space-separated
    errors: str = ""
    badges: list[Look] = field(default_factory=list)


@dataclass
class Token:
    index: int
    form: str
    opens: list[Bracket]
    closes: list[Bracket]
    targets: str
    sentence_start: bool
    #: CSS classes of the errors of the mentions covering this token ("" for none)
    errors: str = ""


@dataclass
class Side:
    name: str
    tokens: list[Token]
    chains: list[Chain]
    links: list[dict]
    mentions: int
    counts: dict[str, int]


@dataclass
class PairView:
    key: Side
    response: Side
    page: int
    pages: int
    tokens: int
    error: str | None = None
    #: every error of the document, in the order of their first token
    errors: list[ErrorMark] = field(default_factory=list)
    #: the number of errors of each class (every class, in the analysis' order)
    error_counts: dict[str, int] = field(default_factory=dict)

    @property
    def legend(self) -> list[tuple[str, Look, int]]:
        return [(kind, ERROR_LOOK[kind], self.error_counts.get(kind, 0)) for kind in ERROR_LOOK]


def prepared_views(key: "Document", response: "Document", match: str = "exact", zeros: str = "drop",
                   keep_singletons: bool = True):
    """The documents' mention views, synchronised and matched as the scorer does
    (:func:`corefio.scoring.views.prepare`: without singletons, they leave before
    matching)."""
    from ..diagnostics import Report
    from ..scoring import views as V

    return V.prepare(key.mention_view(), response.mention_view(), Report(), match, zeros, keep_singletons)


def scored_chains(key: "Document", response: "Document", match: str = "exact", keep_singletons: bool = True,
                  zeros: str = "drop") -> tuple[list[list[tuple]], list[list[tuple]]]:
    """The chains the scorer compares, as lists of mention spans: the documents' mention
    views, synchronised and matched (:func:`corefio.scoring.views.prepare`), repeated
    spans dropped and singletons too when scoring drops them. Mention identification
    counts exactly these mentions."""
    kp, rp, _, _ = _compared(key, response, match, keep_singletons, zeros)
    return kp, rp


def _compared(key: "Document", response: "Document", match: str, keep_singletons: bool, zeros: str):
    from ..diagnostics import Report
    from ..scoring import views as V
    from ..scoring.error_analysis import _heads

    kv, rv = prepared_views(key, response, match, zeros, keep_singletons)
    report = Report()
    kp, rp = V.partition(kv, report, "key"), V.partition(rv, report, "response")
    return kp, rp, _heads(kv), _heads(rv)


def _labels(doc: "Document") -> dict[tuple, str]:
    """An entity label for a mention's spans (the first markable with those spans that has one)."""
    out: dict[tuple, str] = {}
    for m in doc.markables:
        if m.entity and tuple(m.spans) not in out:
            out[tuple(m.spans)] = m.entity
    return out


def _label(chain, ci: int, labels: dict[tuple, str]) -> str:
    for spans in chain:
        if spans in labels:
            return labels[spans]
    return f"chain {ci + 1}"


def build(key: "Document", response: "Document", page: int = 0, match: str = "exact",
          keep_singletons: bool = True, zeros: str = "drop", page_tokens: int | None = PAGE_TOKENS) -> PairView:
    """The view of ``key`` and ``response`` (tokens ``page * page_tokens`` onwards; None:
    one page), on the mentions and chains the scorer compares with these options
    (:func:`scored_chains`). The errors are the whole document's."""
    from ..errors import CorefioError

    error = None
    if key.tokens.forms != response.tokens.forms:
        from ..compare.synchronisation import carry_over

        try:
            response = carry_over(response, key)
        except CorefioError as exc:
            error = f"the response cannot be shown on the key's tokens: {exc}"
            response = response.copy(markables=[], links=[], entities=[])
    try:
        k_chains, r_chains, k_heads, r_heads = _compared(key, response, match, keep_singletons, zeros)
    except CorefioError as exc:
        error = f"the documents cannot be compared: {exc}"
        k_chains, r_chains, k_heads, r_heads = _compared(
            key, key.copy(markables=[], links=[], entities=[]), "exact", True, "drop")
    k_targets = {target_id(spans, None) for chain in k_chains for spans in chain}
    r_targets = {target_id(spans, None) for chain in r_chains for spans in chain}
    k_chain_of_t = {target_id(spans, None): ci for ci, chain in enumerate(k_chains) for spans in chain}
    r_chain_of_t = {target_id(spans, None): ci for ci, chain in enumerate(r_chains) for spans in chain}
    r_to_k: dict[int, Counter] = {}
    for t in k_targets & r_targets:
        r_to_k.setdefault(r_chain_of_t[t], Counter())[k_chain_of_t[t]] += 1

    forms = key.tokens.forms
    errors = classify(k_chains, r_chains, k_heads, r_heads)
    for e in errors:
        targets = e.key + e.response
        e.first = min(_first_token(t) for t in targets)
        leading = min(targets, key=_first_token)
        spans = [tuple(int(x) for x in part.split("-")) for part in leading.split("_")]
        e.text = " ".join(" ".join(forms[a:z + 1]) for a, z in spans)
    errors.sort(key=lambda e: (e.first, list(ERROR_LOOK).index(e.kind)))
    for n, e in enumerate(errors, 1):
        e.id = f"e{n}"
    counts = Counter(e.kind for e in errors)
    key_errors: dict[str, list[ErrorMark]] = {}
    response_errors: dict[str, list[ErrorMark]] = {}
    for e in errors:
        for t in e.key:
            key_errors.setdefault(t, []).append(e)
        for t in e.response:
            response_errors.setdefault(t, []).append(e)

    def flags(chain, side_errors) -> list[str]:
        kinds = {e.kind for spans in chain for e in side_errors.get(target_id(spans, None), ())}
        return [ERROR_LOOK[k].name for k in ERROR_LOOK if k in kinds]

    k_labels, r_labels = _labels(key), _labels(response)
    k_info = [Chain(f"k{ci}", _label(chain, ci, k_labels), hue(ci), len(chain), flags(chain, key_errors))
              for ci, chain in enumerate(k_chains)]
    r_info = []
    extra = len(k_chains)
    for ci, chain in enumerate(r_chains):
        shared = r_to_k.get(ci)
        if shared:
            h = hue(shared.most_common(1)[0][0])
        else:
            h = hue(extra)
            extra += 1
        r_info.append(Chain(f"r{ci}", _label(chain, ci, r_labels), h, len(chain), flags(chain, response_errors)))

    size = page_tokens or max(1, len(forms))
    pages = max(1, -(-len(forms) // size))
    page = min(max(page, 0), pages - 1)
    first, last = page * size, min(len(forms), (page + 1) * size)
    key_side = _side("key", key, k_chains, k_info, key_errors, first, last)
    response_side = _side("response", response, r_chains, r_info, response_errors, first, last)
    # mention identification's counts: a span the other side lacks
    key_side.counts = {"mentions": len(k_targets), "missing": len(k_targets - r_targets), "chains": len(k_chains)}
    response_side.counts = {"mentions": len(r_targets), "spurious": len(r_targets - k_targets),
                            "chains": len(r_chains)}
    return PairView(key_side, response_side, page, pages, len(forms), error, errors,
                    {kind: counts.get(kind, 0) for kind in ERROR_LOOK})


def _side(name: str, doc: "Document", chains: list[list[tuple]], info: list[Chain],
          side_errors: dict[str, list[ErrorMark]], first: int, last: int) -> Side:
    forms = doc.tokens.forms
    opens: dict[int, list[tuple[int, Bracket]]] = {}
    closes: dict[int, list[tuple[int, Bracket]]] = {}
    covering: dict[int, list[str]] = {}
    in_error: dict[int, set[str]] = {}
    for ci, chain in enumerate(chains):
        c = info[ci]
        for spans in chain:
            t = target_id(spans, None)
            mine = side_errors.get(t, [])
            kinds = [k for k in ERROR_LOOK if any(e.kind == k for e in mine)]
            status = " ".join(["err"] + [ERROR_LOOK[k].css for k in kinds]) if kinds else ""
            b = Bracket(t, c.id, c.hue, c.label, status, " ".join(e.id for e in mine),
                        [ERROR_LOOK[k] for k in kinds])
            for a, z in spans:
                opens.setdefault(a, []).append((z - a, b))
                closes.setdefault(z, []).append((z - a, b))
                for i in range(max(a, first), min(z, last - 1) + 1):
                    covering.setdefault(i, []).append(t)
                    if kinds:
                        in_error.setdefault(i, set()).update(kinds)
    starts = {s.first for s in doc.sentences}
    tokens = []
    for i in range(first, last):
        tokens.append(Token(
            i, forms[i],
            [b for _, b in sorted(opens.get(i, ()), key=lambda x: -x[0])],
            [b for _, b in sorted(closes.get(i, ()), key=lambda x: x[0])],
            " ".join(covering.get(i, ())), i in starts and i != first,
            " ".join(["werr"] + [look.css for k, look in ERROR_LOOK.items() if k in in_error[i]])
            if i in in_error else ""))
    markables = {m.ref: m for m in doc.markables}

    def describe(ref: str) -> str:
        m = markables.get(ref)
        if m is None:
            return ref
        words = " ".join(forms[a] if a == z else " ".join(forms[a:z + 1]) for a, z in m.spans)
        return f"{words} [{m.entity or m.id}]"

    links = []
    for link in doc.iter_links(identity=False):
        targets = [describe(t) if link.target_kind == "markable" else f"entity {t}" for t in link.targets]
        links.append({"type": link.type, "source": describe(link.source), "targets": targets,
                      "source_target": target_id(markables[link.source].spans, None)
                      if link.source in markables else ""})
    return Side(name, tokens, info, links, sum(len(c) for c in chains), {})



def render_file(documents: list[tuple[str, PairView]], *, key_name: str, response_name: str, match: str = "exact",
                keep_singletons: bool = True, missing: list[str] | None = None) -> str:
    """One self-contained HTML page (styles and script inside) with the view of each
    document pair: what ``corefio view KEY --response RESPONSE`` writes."""
    from pathlib import Path

    from jinja2 import Environment, FileSystemLoader, select_autoescape
    from markupsafe import Markup

    import corefio

    here = Path(__file__).parent
    env = Environment(loader=FileSystemLoader(str(here / "templates")), autoescape=select_autoescape(["html"]))
    used = sorted({c.hue for _, v in documents for side in (v.key, v.response) for c in side.chains})
    hues = "".join(f".h{h}{{--h:{h}}}\n" for h in used)
    # the script and styles are the evaluator's own files; neither holds "</"
    css = (here / "static" / "app.css").read_text(encoding="utf-8")
    js = (here / "static" / "app.js").read_text(encoding="utf-8")
    return env.get_template("view_file.html").render(
        documents=[{"name": name, "view": v} for name, v in documents], key_name=key_name,
        response_name=response_name, match=match, keep_singletons=keep_singletons, missing=missing or [],
        css=Markup(css), js=Markup(js), hues=Markup(hues), version=corefio.__version__,
        title=documents[0][0] if len(documents) == 1 else f"{len(documents)} documents")


def unit_documents(key, response, settings=None, **options) -> list[tuple[str, "Document", "Document"]]:
    """The key vs response view across documents: each unit (a topic, a subtopic, the
    corpus: ``settings``, a :class:`corefio.scoring.crossdoc.CrossSettings`) as one key
    document and one response document, their words the unit's documents one after the
    other (a document starts a sentence), their chains the chains across documents
    (labelled ``c1``, ``c2``... in key order; a mention's id names its document). What
    :func:`build` then shows is what cross-document scoring compares. ``options``: as
    :func:`corefio.scoring.crossdoc.unit_pairs` (formats, topics)."""
    from ..model import Document, Markable, Sentence, Tokens
    from ..model.crossdoc import units
    from ..scoring.crossdoc import CrossSettings, load, unit_pairs
    from ..diagnostics import Report

    settings = settings if settings is not None else CrossSettings()
    report = options.pop("report", None) or Report()
    key_corpus = load(key, options.get("key_format"), report, options.get("topics"), options.get("topic_pattern"))
    response_corpus = load(response, options.get("response_format"), report, options.get("topics"),
                           options.get("topic_pattern"))
    pairs = unit_pairs(key_corpus, response_corpus, settings, report=report)
    found = list(units(key_corpus, settings.level).items())
    out = []
    for (label, members), (kv, rv) in zip(found, pairs):
        sentences = []
        offset = 0
        for d in members:
            doc = key_corpus.documents[d]
            parts = doc.sentences or [Sentence(first=0, last=len(doc.tokens) - 1)] if len(doc.tokens) else []
            for k, s in enumerate(parts):
                sentences.append(Sentence(first=s.first + offset, last=s.last + offset,
                                          id=f"{doc.name} {s.id if s.id is not None else k}"))
            offset += len(doc.tokens)
        key_labels: dict[tuple, str] = {}
        docs = []
        for side, view_ in (("key", kv), ("response", rv)):
            markables: list[Markable] = []
            for c, chain in enumerate(view_.mentions):
                if side == "key":
                    name = f"c{c + 1}"
                    for m in chain:
                        key_labels[m.spans] = name
                else:
                    name = f"r{c + 1}"
                for m in chain:
                    markables.append(Markable(id=m.id or f"m{len(markables) + 1}", spans=m.spans, entity=name,
                                              attributes=dict(m.attributes or {})))
            markables.sort(key=lambda m: (m.spans[0][0], -m.spans[-1][1]))
            seen: set[str] = set()
            unique: list[Markable] = []
            for markable in markables:  # a mention id is unique per document
                if markable.id in seen:
                    markable = markable.copy(id=f"{markable.id}~{len(unique)}")
                seen.add(markable.id)
                unique.append(markable)
            docs.append(Document.build(name=f"{settings.level} {label}", tokens=Tokens(forms=list(kv.forms)),
                                       sentences=sentences, markables=unique))
        out.append((label, docs[0], docs[1]))
    return out
