"""The key vs response view of one document pair, as data for the template.

Both sides are shown on the key's tokens (a response tokenised differently is carried
over first: :func:`corefio.compare.synchronisation.carry_over`). The mentions and chains shown
are the ones the scorer compares (:func:`scored_chains`: the coreference layer's
mentions, matched with the result's matching mode, repeated spans and, when scoring
drops them, singletons left out), so the counts are mention identification's. A
mention is identified by its token spans, as the scorer identifies it. For each side the
view gives the tokens with the brackets that open and close before and after each one,
and every chain with its colour, its label (the entity as the source wrote it) and its
flags:

* a key mention whose target the response lacks is **missing**, a response mention
  whose target the key lacks is **spurious**;
* a key chain whose mentions found in the response lie in several response chains is
  **split**, a response chain holding mentions of several key chains is **merged**; a
  mention present on both sides whose chain-mates differ between the sides has a
  **wrong link**;
* a response chain takes the colour of the key chain it shares most mentions with.

Non-identity links (bridging, split antecedents...) are listed per side.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..model import Document

#: tokens shown on one page of the view (a longer document gets several pages)
PAGE_TOKENS = 4000


def target_id(spans, layer) -> str:
    text = "_".join(f"{a}-{b}" for a, b in spans)
    return f"{layer}:{text}" if layer else text


def hue(index: int) -> int:
    return int((index * 137.508) % 360)


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
    status: str  # "", "missing", "spurious", "wrong"


@dataclass
class Token:
    index: int
    form: str
    opens: list[Bracket]
    closes: list[Bracket]
    targets: str
    sentence_start: bool


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


def scored_chains(key: "Document", response: "Document", match: str = "exact", keep_singletons: bool = True,
                  zeros: str = "drop") -> tuple[list[list[tuple]], list[list[tuple]]]:
    """The chains the scorer compares, as lists of mention spans: the documents' mention
    views, synchronised and matched (:func:`corefio.scoring.views.prepare`), repeated
    spans dropped and singletons too when scoring drops them. Mention identification
    counts exactly these mentions."""
    from ..diagnostics import Report
    from ..scoring import views as V

    report = Report()
    kv, rv = V.prepare(key.mention_view(), response.mention_view(), report, match, zeros)
    kp, rp = V.partition(kv, None, "key"), V.partition(rv, None, "response")
    if not keep_singletons:
        kp, rp = V.drop_singletons(kp), V.drop_singletons(rp)
    return kp, rp


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
          keep_singletons: bool = True, zeros: str = "drop") -> PairView:
    """The view of ``key`` and ``response`` (tokens ``page * PAGE_TOKENS`` onwards), on the
    mentions and chains the scorer compares with these options (:func:`scored_chains`)."""
    from ..errors import CorefioError

    error = None
    if key.tokens.forms != response.tokens.forms:
        from ..compare.synchronisation import carry_over

        try:
            response = carry_over(response, key)
        except CorefioError as exc:
            error = f"the response cannot be shown on the key's tokens: {exc}"
            response = response.model_copy(update={"markables": [], "links": [], "entities": []})
    try:
        k_chains, r_chains = scored_chains(key, response, match, keep_singletons, zeros)
    except CorefioError as exc:
        error = f"the documents cannot be compared: {exc}"
        k_chains, r_chains = scored_chains(key, key.model_copy(update={"markables": [], "links": [],
                                                                       "entities": []}))
    k_targets = {target_id(spans, None) for chain in k_chains for spans in chain}
    r_targets = {target_id(spans, None) for chain in r_chains for spans in chain}
    common = k_targets & r_targets
    k_chain_of_t = {target_id(spans, None): ci for ci, chain in enumerate(k_chains) for spans in chain}
    r_chain_of_t = {target_id(spans, None): ci for ci, chain in enumerate(r_chains) for spans in chain}
    k_to_r: dict[int, Counter] = {}
    r_to_k: dict[int, Counter] = {}
    for t in common:
        k_to_r.setdefault(k_chain_of_t[t], Counter())[r_chain_of_t[t]] += 1
        r_to_k.setdefault(r_chain_of_t[t], Counter())[k_chain_of_t[t]] += 1
    # a common mention has a wrong link when its chain-mates differ between the sides
    k_mates = {ci: {target_id(s, None) for s in chain} & common for ci, chain in enumerate(k_chains)}
    r_mates = {ci: {target_id(s, None) for s in chain} & common for ci, chain in enumerate(r_chains)}
    wrong = {t for t in common if k_mates[k_chain_of_t[t]] != r_mates[r_chain_of_t[t]]}

    k_labels, r_labels = _labels(key), _labels(response)
    k_info = []
    for ci, chain in enumerate(k_chains):
        flags = []
        if len(k_to_r.get(ci, ())) > 1:
            flags.append("split")
        if any(target_id(s, None) not in r_targets for s in chain):
            flags.append("missing mentions")
        k_info.append(Chain(f"k{ci}", _label(chain, ci, k_labels), hue(ci), len(chain), flags))
    r_info = []
    extra = len(k_chains)
    for ci, chain in enumerate(r_chains):
        flags = []
        shared = r_to_k.get(ci)
        if shared:
            h = hue(shared.most_common(1)[0][0])
        else:
            h = hue(extra)
            extra += 1
        if shared and len(shared) > 1:
            flags.append("merged")
        if any(target_id(s, None) not in k_targets for s in chain):
            flags.append("spurious mentions")
        r_info.append(Chain(f"r{ci}", _label(chain, ci, r_labels), h, len(chain), flags))

    pages = max(1, -(-len(key.tokens.forms) // PAGE_TOKENS))
    page = min(max(page, 0), pages - 1)
    first, last = page * PAGE_TOKENS, min(len(key.tokens.forms), (page + 1) * PAGE_TOKENS)

    def status(t: str, other: set[str], absent: str) -> str:
        if t not in other:
            return absent
        return "wrong" if t in wrong else ""

    key_side = _side("key", key, k_chains, k_info, lambda t: status(t, r_targets, "missing"), first, last)
    response_side = _side("response", response, r_chains, r_info,
                          lambda t: status(t, k_targets, "spurious"), first, last)
    key_side.counts = {"mentions": len(k_targets), "missing": len(k_targets - r_targets),
                       "wrong links": len(wrong), "split chains": sum("split" in c.flags for c in k_info)}
    response_side.counts = {"mentions": len(r_targets), "spurious": len(r_targets - k_targets),
                            "wrong links": len(wrong), "merged chains": sum("merged" in c.flags for c in r_info)}
    return PairView(key_side, response_side, page, pages, len(key.tokens.forms), error)


def _side(name: str, doc: "Document", chains: list[list[tuple]], info: list[Chain], status, first: int,
          last: int) -> Side:
    forms = doc.tokens.forms
    opens: dict[int, list[tuple[int, Bracket]]] = {}
    closes: dict[int, list[tuple[int, Bracket]]] = {}
    covering: dict[int, list[str]] = {}
    for ci, chain in enumerate(chains):
        c = info[ci]
        for spans in chain:
            t = target_id(spans, None)
            b = Bracket(t, c.id, c.hue, c.label, status(t))
            for a, z in spans:
                opens.setdefault(a, []).append((z - a, b))
                closes.setdefault(z, []).append((z - a, b))
                for i in range(max(a, first), min(z, last - 1) + 1):
                    covering.setdefault(i, []).append(t)
    starts = {s.first for s in doc.sentences}
    tokens = []
    for i in range(first, last):
        tokens.append(Token(
            i, forms[i],
            [b for _, b in sorted(opens.get(i, ()), key=lambda x: -x[0])],
            [b for _, b in sorted(closes.get(i, ()), key=lambda x: x[0])],
            " ".join(covering.get(i, ())), i in starts and i != first))
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
