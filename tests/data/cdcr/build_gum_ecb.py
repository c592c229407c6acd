"""Build the ECB+-layout test corpus of tests/data/cdcr/gum-ecb from six GUM documents.

Real within-document data, grouped into topics by us (the grouping and the links across
documents are synthetic; every mention, span and within-document chain is GUM's):

* topic 36: GUM_news_worship (36_1ecb), GUM_news_stampede (36_2ecbplus)
* topic 37: GUM_bio_hadid (37_1ecb), GUM_interview_brotherhood (37_2ecbplus)
* topic 38: GUM_academic_art (38_1ecb), GUM_voyage_coron (38_2ecbplus)

Mentions: GUM's, as one span from their first to their last word, left out when they
cross a sentence boundary (ECB+ mentions lie in one sentence); a mention and another of
the same span keep the first. Tags from GUM's entity types (event: ACTION_OCCURRENCE,
person: HUMAN_PART_PER, ...). Chains across the two documents of a topic are joined
when they share GUM's Wikipedia identity, or when they have the same entity type and the
same mention text of two or more words or with a capital letter (case folded). Instance ids have a tag's three letters and eleven digits, as ECB+'s (the CDCR scripts
read the digits as cluster ids). Validated sentences: every sentence but every
fourth one (sentence numbers 3, 7, 11, ... are left out), so that the filter matters.

The response is the same-head-lemma baseline of the CDCR papers, approximated with the
last word of each mention: within a topic, mentions of one kind (event or entity) whose
last words are the same (case folded) form one cluster.

Run from the repository root: ``python tests/data/cdcr/build_gum_ecb.py``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from corefio.formats.readwrite import read, write
from corefio.model import Corpus, CrossEntity, Document, Markable, Sentence
from corefio.model.crossdoc import SUBTOPIC, TOPIC, mention_kind

HERE = Path(__file__).resolve().parent
DATA = HERE.parent
SOURCES = [
    ("36", "36_1ecb", DATA / "corpora/gum/dep/GUM_news_worship.conllu"),
    ("36", "36_2ecbplus", DATA / "corpora/gum-genres/conllu/GUM_news_stampede.conllu"),
    ("37", "37_1ecb", DATA / "corpora/gum-genres/conllu/GUM_bio_hadid.conllu"),
    ("37", "37_2ecbplus", DATA / "corpora/gum-genres/conllu/GUM_interview_brotherhood.conllu"),
    ("38", "38_1ecb", DATA / "corpora/gum/dep/GUM_academic_art.conllu"),
    ("38", "38_2ecbplus", DATA / "corpora/gum-genres/conllu/GUM_voyage_coron.conllu"),
]
TAGS = {"event": "ACTION_OCCURRENCE", "person": "HUMAN_PART_PER", "organization": "HUMAN_PART_ORG",
        "place": "LOC_GEO", "time": "TIME_DATE"}


def document(topic: str, name: str, path: Path) -> tuple[Document, dict[str, str]]:
    """The GUM document as an ECB+ document; its chain of each markable."""
    doc = read(path)[0]
    sentence_of = doc.sentence_of_token()
    chains = doc.chain_indices()
    chain_of = {k: c for c, chain in enumerate(chains) for k in chain}
    seen: set[tuple[int, int]] = set()
    markables = []
    entity_of: dict[str, str] = {}
    for k, m in enumerate(doc.markables):
        a, b = m.spans[0][0], m.spans[-1][1]
        if sentence_of[a] != sentence_of[b] or (a, b) in seen or any(doc.tokens.forms[i] == "_" for i in (a, b)):
            continue
        seen.add((a, b))
        etype = str(m.attributes.get("etype", "abstract"))
        tag = TAGS.get(etype, "NON_HUMAN_PART")
        attributes = {"tag": tag}  # its kind follows from the tag (corefio.model.crossdoc.mention_kind)
        mid = str(len(markables) + 1)
        markables.append(Markable(id=mid, spans=((a, b),), entity=f"{name}_c{chain_of[k]}", attributes=attributes))
        entity_of[mid] = str(m.attributes.get("identity") or "")
    sentences = [Sentence(first=s.first, last=s.last, id=str(k), attributes={"validated": k % 4 != 3})
                 for k, s in enumerate(doc.sentences)]
    out = Document.build(name=name, metadata={TOPIC: topic, SUBTOPIC: topic + name.split("_")[1].lstrip("0123456789")},
                         tokens=doc.tokens.copy(ids=[str(i + 1) for i in range(len(doc.tokens))], attributes={},
                                                whitespace=None, empty=None),
                         sentences=sentences, markables=markables)
    return out, entity_of


def link(documents: list[Document], identities: list[dict[str, str]]) -> list[CrossEntity]:
    """Chains of the documents of a topic joined when they share an identity, or a
    mention text of two or more words or with a capital letter (case folded) and a tag."""
    parent: dict[tuple[str, str], tuple[str, str]] = {}

    def find(x: tuple[str, str]) -> tuple[str, str]:
        while parent[x] != x:
            x = parent[x]
        return x

    owner: dict[tuple, tuple[str, str]] = {}
    members_of: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for doc, ids in zip(documents, identities):
        topic = doc.metadata[TOPIC]
        for m in doc.markables:
            chain = (doc.name, m.entity)
            parent.setdefault(chain, chain)
            members_of.setdefault(chain, []).append((doc.name, m.id))
            text = doc.markable_text(m)
            keys = [(topic, "id", ids[m.id])] if ids[m.id] else []
            if " " in text or any(ch.isupper() for ch in text):
                keys.append((topic, m.attributes["tag"], text.casefold()))
            for key in keys:
                other = owner.setdefault(key, chain)
                a, b = find(other), find(chain)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for chain in members_of:
        groups.setdefault(find(chain), []).append(chain)
    out = []
    for root, chains in groups.items():
        if len({d for d, _ in chains}) > 1:
            members = tuple(x for chain in chains for x in members_of[chain])
            tag = next(m.attributes["tag"] for d in documents for m in d.markables if (d.name, m.entity) == root)
            out.append(CrossEntity(id=f"{tag[:3]}{9_000_000_001 + len(out)}", members=members,
                                   attributes={"TAG_DESCRIPTOR": root[1]}))
    return out


def response(key: Corpus) -> Corpus:
    """The same-last-word baseline within each topic and kind."""
    documents = []
    groups: dict[tuple, list[tuple[str, str]]] = {}
    for doc in key.documents:
        markables = []
        for m in doc.markables:
            word = doc.tokens.forms[m.spans[-1][1]].casefold()
            group = (doc.metadata[TOPIC], mention_kind(m), word)
            markables.append(m.copy(entity=None))
            groups.setdefault(group, []).append((doc.name, m.id))
        documents.append(doc.copy(markables=markables, entities=[]))
    cross = [CrossEntity(id=f"UNK{8_000_000_001 + k}", members=tuple(members),
                         attributes={"tag": "UNKNOWN_INSTANCE_TAG", "TAG_DESCRIPTOR": group[2]})
             for k, (group, members) in enumerate(groups.items()) if len(members) > 1]
    return Corpus(documents=documents, cross_entities=cross)


def main() -> None:
    documents, identities = [], []
    for topic, name, path in SOURCES:
        doc, ids = document(topic, name, path)
        documents.append(doc)
        identities.append(ids)
    key = Corpus(documents=documents, cross_entities=link(documents, identities))
    for side, corpus in (("key", key), ("response", response(key))):
        target = HERE / "gum-ecb" / side
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        write(corpus, target / "ECB+", "ecbplus")
        (target / "ECB+" / "ECBplus_coreference_sentences.csv").rename(target / "ECBplus_coreference_sentences.csv")


if __name__ == "__main__":
    main()
