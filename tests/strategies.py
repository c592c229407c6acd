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


@st.composite
def partitions(draw, universe: range = range(12), min_mentions: int = 0, max_classes: int | None = None):
    """A partition of a random subset of ``universe`` (mentions in random order)."""
    chosen = draw(st.lists(st.sampled_from(list(universe)), unique=True, min_size=min_mentions))
    n_classes = max(1, len(chosen))
    if max_classes is not None:
        n_classes = min(n_classes, max_classes)
    labels = draw(st.lists(st.integers(0, n_classes - 1), min_size=len(chosen), max_size=len(chosen)))
    classes: dict[int, list] = {}
    for m, label in zip(chosen, labels):
        classes.setdefault(label, []).append(m)
    return list(classes.values())


WORD = st.text(alphabet="abcdefghij", min_size=1, max_size=5)


@st.composite
def _chains_over(draw, n: int, sentences: list[tuple[int, int]]):
    """Markables over n tokens: contiguous spans inside one sentence, in up to four
    entities (or none: a singleton)."""
    markables = []
    for k in range(draw(st.integers(0, 7))):
        first, last = draw(st.sampled_from(sentences))
        a = draw(st.integers(first, last))
        b = draw(st.integers(a, min(last, a + 3)))
        entity = draw(st.one_of(st.none(), st.sampled_from(["e0", "e1", "e2", "e3"])))
        markables.append(Markable(id=f"markable_{k}", spans=((a, b),), entity=entity))
    return markables


@st.composite
def scoring_corpora(draw, max_documents: int = 3):
    """A key and a response corpus for scoring: the same documents (names, parts,
    tokens, sentences) with independently drawn mentions and chains. Kept to what
    every format can write (plain words, contiguous mentions within a sentence)."""
    names = draw(st.lists(st.text(alphabet="abcdefgh", min_size=1, max_size=6), min_size=1,
                          max_size=max_documents, unique=True))
    key_docs, response_docs = [], []
    for name in names:
        n = draw(st.integers(1, 12))
        forms = draw(st.lists(WORD, min_size=n, max_size=n))
        cuts = sorted(set(draw(st.lists(st.integers(1, max(1, n - 1)), max_size=2))) - {n})
        bounds = [0, *cuts, n]
        spans = [(a, b - 1) for a, b in zip(bounds, bounds[1:]) if b > a]
        part = draw(st.sampled_from(["000", "001"]))
        for docs in (key_docs, response_docs):
            docs.append(Document(name=name, part=part, tokens=Tokens(forms=forms),
                                 sentences=[Sentence(first=a, last=b) for a, b in spans],
                                 markables=draw(_chains_over(n, spans))))
    return Corpus(documents=key_docs), Corpus(documents=response_docs)
