"""Hypothesis strategies: random pivot documents (for round trips) and partitions."""

from __future__ import annotations

from hypothesis import strategies as st

from corefio.model import Corpus, Document, Entity, Link, Markable, Sentence, Tokens

# XML 1.0 cannot hold control characters (other than tab, newline, CR) nor surrogates
XML_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), whitelist_characters="\t\n\r"),
    max_size=12,
)
NAME = st.text(alphabet=st.characters(whitelist_categories=("L", "N"), whitelist_characters="_-:."),
               min_size=1, max_size=8)
ATTR_VALUE = st.one_of(
    st.booleans(),
    st.integers(min_value=-10**12, max_value=10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    XML_TEXT,
)
LINK_TYPES = st.sampled_from(["coreference", "bridging", "split_antecedent", "appos", "identity"])


@st.composite
def spans_in(draw, n: int, max_parts: int = 3):
    """Sorted spans with gaps between them, inside n tokens."""
    parts = draw(st.integers(1, max_parts))
    cuts = sorted(draw(st.lists(st.integers(0, n - 1), min_size=2 * parts, max_size=2 * parts)))
    spans = []
    for a, b in zip(cuts[::2], cuts[1::2]):
        if spans and a <= spans[-1][1] + 1:
            continue
        spans.append((a, b))
    return tuple(spans)


@st.composite
def documents(draw, *, forms=None, min_tokens: int = 1, max_tokens: int = 25,
              with_links: bool = True, with_attributes: bool = True):
    n = draw(st.integers(min_tokens, max_tokens))
    form_strategy = forms if forms is not None else XML_TEXT
    token_forms = draw(st.lists(form_strategy, min_size=n, max_size=n))
    ids = draw(st.sampled_from([None, "t"])) if n else None
    whitespace = draw(st.one_of(st.none(), st.lists(st.sampled_from([" ", "", "\n", "  ", "\t"]),
                                                      min_size=n, max_size=n)))
    offsets = None
    if draw(st.booleans()):
        pos, offsets = 0, []
        for f in token_forms:
            offsets.append((pos, pos + len(f)))
            pos += len(f) + 1
    attributes = {}
    if with_attributes:
        for name in draw(st.lists(NAME, max_size=2, unique=True)):
            attributes[name] = draw(st.lists(st.one_of(st.none(), XML_TEXT), min_size=n, max_size=n))
    tokens = Tokens(forms=token_forms, ids=[f"t{i}" for i in range(n)] if ids else None,
                    whitespace=whitespace, offsets=offsets, attributes=attributes)
    sentences = []
    if n and draw(st.booleans()):
        cuts = sorted(set(draw(st.lists(st.integers(1, max(1, n - 1)), max_size=4))) - {n})
        bounds = [0, *cuts, n]
        for k, (a, b) in enumerate(zip(bounds, bounds[1:])):
            if b > a:
                sentences.append(Sentence(
                    first=a, last=b - 1, id=draw(st.one_of(st.none(), st.just(f"s{k}"))),
                    comments=draw(st.lists(XML_TEXT, max_size=2)),
                    interleaved=[(0, "x")] if draw(st.booleans()) else [],
                ))
    entities = [Entity(id=f"e{k}", attributes=draw(st.dictionaries(NAME, ATTR_VALUE, max_size=2))
                       if with_attributes else {})
                for k in range(draw(st.integers(0, 4)))]
    markables = []
    if n:
        for k in range(draw(st.integers(0, 8))):
            ent = draw(st.one_of(st.none(), st.sampled_from([e.id for e in entities]))) if entities else None
            markables.append(Markable(
                id=f"markable_{k}",
                spans=draw(spans_in(n)),
                entity=ent,
                head=draw(st.one_of(st.none(), spans_in(n, 1))) if with_attributes else None,
                attributes=draw(st.dictionaries(NAME, ATTR_VALUE, max_size=3)) if with_attributes else {},
            ))
    links = []
    if with_links and markables:
        for k in range(draw(st.integers(0, 5))):
            to_entity = bool(entities) and draw(st.booleans())
            links.append(Link(
                id=f"link_{k}",
                type=draw(LINK_TYPES),
                source=draw(st.sampled_from([m.id for m in markables])),
                target=draw(st.sampled_from([e.id for e in entities] if to_entity else [m.id for m in markables])),
                target_kind="entity" if to_entity else "markable",
                attributes=draw(st.dictionaries(NAME, ATTR_VALUE, max_size=1)) if with_attributes else {},
            ))
    return Document(
        name=draw(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=10)),
        part=draw(st.one_of(st.none(), st.sampled_from(["000", "0", "12"]))),
        metadata=draw(st.dictionaries(NAME, XML_TEXT, max_size=2)),
        tokens=tokens, sentences=sentences, markables=markables, entities=entities, links=links,
    )


@st.composite
def corpora(draw, **kw):
    docs = draw(st.lists(documents(**kw), min_size=1, max_size=3))
    return Corpus(documents=docs, metadata=draw(st.dictionaries(NAME, XML_TEXT, max_size=2)))
