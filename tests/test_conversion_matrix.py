"""The conversion matrix: every real corpus × every writer, checked by an independent oracle.

Each cell converts a real source file with :func:`corefio.convert`, then counts what the
source and the written file hold with :mod:`tests.oracle` (parsers of our own: none of
corefio's readers or writers). Whatever differs must be what the loss report says, kind
by kind and count by count (:func:`expected_after`); anything else fails the cell. Last,
corefio must read back from the written file what the oracle counted in it.

Cells that fail because of a defect another branch is fixing are listed in
:data:`KNOWN_DEFECTS`, those failing for defects found here and not fixed yet in
:data:`FOUND_DEFECTS`; both are marked ``xfail(strict=True)``: once a fix is merged the
cell passes, the strict xfail fails, and the entry must be removed.

The second half writes every format into every kind of existing path: a file already
there, an empty directory, a directory that is not empty (refused unless forced).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

import corefio
from corefio.diagnostics import Report
from corefio.errors import OutputError
from corefio.formats.losses import treatment

from . import oracle
from .conftest import DATA, shared_data

# -- cells that fail for a defect being fixed elsewhere ---------------------------------------
#: "source id/target" → why it fails (remove the entry when the fix is merged)
KNOWN_DEFECTS: dict[str, str] = {
}
#: cells that fail for defects this matrix found and nobody fixes yet (see the project note)
FOUND_DEFECTS: dict[str, str] = {
}

WRITERS = ("conll", "conllu", "jsonlines", "mate", "mmax2", "muc", "raf", "ua", "xmi", "brat", "litbank-tsv",
           "webanno-tsv")
#: writers left out of the matrix: the oracle has no independent parser for them (their
#: round trips are checked by tests/test_roundtrip.py and their own test files)
NOT_IN_MATRIX = {
    "wl-coref": "system jsonlines shape (tests/test_jsonlines_dialects.py)",
    "preco": "system jsonlines shape (tests/test_jsonlines_dialects.py)",
    "hf-datasets": "written through the datasets library (tests/test_hf_datasets.py)",
    "spacy": "written through spaCy (tests/test_spacy.py)",
    "ecbplus": "cross-document corpus layout (tests/test_cdcr.py: CDCR scripts' own readers and scorers)",
    "cdcr-conll": "cross-document meta-documents (tests/test_cdcr.py: byte-for-byte and scorer.pl)",
    "cdcr-json": "cross-document mention files (tests/test_cdcr.py: read against get_ecb_data.py's output)",
    "wec": "cross-document mention files (tests/test_cdcr.py)",
}
#: the name of each writer's output (for MMAX2, brat and LitBank TSV, a directory)
OUTPUT_NAME = {"conll": "out.conll", "conllu": "out.conllu", "jsonlines": "out.jsonlines", "mate": "out.mate.xml",
               "mmax2": "project", "muc": "out.sgml", "raf": "out.raf.xml", "ua": "out.conllua", "xmi": "out.zip",
               "brat": "brat", "litbank-tsv": "litbank", "webanno-tsv": "out.zip"}


@dataclass(frozen=True)
class Source:
    """A real corpus file: its id in test names, where it is, its format."""

    id: str
    relative: str
    format: str
    shared: bool = False  #: under ../shared (licence keeps it out of the repository)
    under: str = "corpora"  #: the folder of tests/data it is in

    def path(self) -> Path:
        return shared_data(self.relative) if self.shared else DATA / self.under / self.relative


def _repository_sources() -> list[Source]:
    found = []
    for path in sorted((DATA / "corpora").rglob("*")):
        if path.suffix in (".conll", ".conllu", ".jsonlines"):
            relative = path.relative_to(DATA / "corpora").as_posix()
            ident = relative.replace("democrat-singe-jsonlines", "democrat").replace("/coref/", "/")
            found.append(Source(ident, relative, corefio.formats.registry.detect_format(path).name))
        elif path.suffix == ".mmax" and path.parent.joinpath("common_paths.xml").exists():
            relative = path.parent.relative_to(DATA / "corpora").as_posix()
            if all(s.relative != relative for s in found):
                found.append(Source(relative, relative, "mmax2"))
    return found


#: real files of the formats that only have samples beside their own tests (READMEs there)
FORMAT_SAMPLES = [
    Source("ua/TC-PA", "ua/TC-PA.key.CONLLUA", "ua", under="."),
    Source("ua/TC-O", "ua/TC-O.key.CONLLUA", "ua", under="."),
    Source("ua/example", "ua/example.CONLLUA", "ua", under="."),
    Source("xmi/bernoulli", "xmi/inception/bernoulli.xmi", "xmi", under="."),
    Source("brat/alice", "brat/11_alices_adventures_in_wonderland_brat.ann", "brat", under="."),
    Source("litbank-tsv/alice", "brat/litbank_tsv/11_alices_adventures_in_wonderland_brat.ann", "litbank-tsv",
           under="."),
    Source("webanno/worship", "webanno/GUM_news_worship.tsv", "webanno-tsv", under="."),
    Source("webanno/art", "webanno/GUM_academic_art.tsv", "webanno-tsv", under="."),
]
SOURCES = (_repository_sources() + [Source("pcc-mmax2", "corpora/pcc-mmax2/coreference", "mmax2", shared=True)]
           + FORMAT_SAMPLES)


#: to keep the matrix fast (under a minute of CPU), the writers added after the first seven
#: are not crossed with the sources that repeat a document or a format in another version:
#: OntoGUM, the CoNLL copies of GUM's CoNLL-U files, Democrat's jsonlines copy, the LitBank
#: novels beyond Alice
LATER_WRITERS = ("ua", "xmi", "brat", "litbank-tsv", "webanno-tsv")
REPEATED_SOURCES = ("gum/ontogum/", "gum/gum/conll/", "gum-genres/conll/", "democrat/singe.jsonlines",
                    "litbank-more/")


def _crossed(source: Source, target: str) -> bool:
    return not (target in LATER_WRITERS and source.id.startswith(REPEATED_SOURCES))


def _fast_cells() -> set[str]:
    """The cells of the fast tier: every source written in its own format (when it has a
    writer) and into one other writer, taken in turn, so that every source and every
    writer is in it. The other cells are the slow tier (`-m slow`; CI runs them)."""
    fast = set()
    for number, source in enumerate(SOURCES):
        crossed = [target for target in WRITERS if _crossed(source, target)]
        if source.format in crossed:
            fast.add(f"{source.id}/{source.format}")
        others = [target for target in crossed if target != source.format]
        fast.add(f"{source.id}/{others[number % len(others)]}")
    return fast


def _cells() -> list:
    cells = []
    fast = _fast_cells()
    for source in SOURCES:
        for target in WRITERS:
            if not _crossed(source, target):
                continue
            key = f"{source.id}/{target}"
            reason = KNOWN_DEFECTS.get(key) or FOUND_DEFECTS.get(key)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            if key not in fast:
                marks.append(pytest.mark.slow)
            cells.append(pytest.param(source, target, id=key, marks=marks))
    return cells


# -- what the loss report explains ---------------------------------------------------------------
def _losses(report: Report, only: str | None = None) -> Counter:
    """How many things each loss code reports (summed over documents; with ``only``,
    those of the document of that name and of none)."""
    counts: Counter = Counter()
    for d in report:
        if d.code.startswith("loss.") and (only is None or d.document in (None, only)):
            counts[d.code] += d.count
    return counts


def _kinds(counts: Counter, prefix: str) -> list[str]:
    return [k for k in counts if k.startswith(prefix)]


def expected_after(before: Counter, losses: Counter | dict[str, int]) -> Counter:
    """The counts a written file must have, given the source's and the losses reported.

    * ``loss.layers`` (n markables): every ``markables:<layer>`` goes; those in a chain
      (``chained:<layer>``) become mentions of it; n is the number of such markables.
    * ``loss.link-types`` (n links): n of the ``links:<type>`` go. When n is all of them,
      every kind goes; when fewer (a writer that keeps bridging to a markable but not to
      an entity), which ones the report does not say: the kinds become one ``links``
      total (:func:`_links_as_total` does the same to the written counts). The links of
      markables of other layers that are not written (``loss.layer-links``, n links), and
      those whose markable a writer left out (``loss.link-ends``, n links) go the same way.
    * ``loss.link-type-case`` (n links): the ``links:<type>`` whose type has upper-case
      letters (n of them) become ``links:<type in lower case>`` (with links gone as well,
      the total above stays).
    * ``loss.sentences`` (n sentences): the documents that lose them are written without
      sentences (n fewer; no mention crosses a boundary any more).
    * every other loss (attributes, ids, whitespace, multi-target links kept as one link
      per target…) changes none of the counts.

    What happens to mentions (discontinuous, crossing, across a sentence boundary) is
    done to the source's documents beforehand by :func:`as_written`.
    """
    after = Counter({k: v for k, v in before.items() if not k.startswith("chained:")})
    if "loss.layers" in losses:
        layers = _kinds(before, "markables:")
        assert sum(before[k] for k in layers) == losses["loss.layers"], "loss.layers count"
        for kind in layers:
            del after[kind]
        after["mentions"] += sum(before[k] for k in _kinds(before, "chained:"))
    gone = losses.get("loss.link-types", 0) + losses.get("loss.layer-links", 0) + losses.get("loss.link-ends", 0)
    if gone:
        links = _kinds(before, "links:")
        total = sum(before[k] for k in links)
        assert 0 < gone <= total, "loss.link-types and loss.layer-links count"
        for kind in links:
            del after[kind]
        after["links"] = total - gone
    if "loss.link-type-case" in losses:  # link types written in lower case
        cased = [k for k in _kinds(before, "links:") if k != k.lower()]
        if gone:  # the kinds are one total already: it does not change
            assert 0 < losses["loss.link-type-case"] <= sum(before[k] for k in cased), "loss.link-type-case count"
        else:
            assert sum(before[k] for k in cased) == losses["loss.link-type-case"], "loss.link-type-case count"
            for kind in cased:
                after[kind.lower()] += after.pop(kind)
    if "loss.sentences" in losses:  # those documents are written without sentences
        assert 0 < losses["loss.sentences"] <= before["sentences"], "loss.sentences count"
        after["sentences"] -= losses["loss.sentences"]
        del after["cross-sentence"]
    return Counter({k: v for k, v in after.items() if v})


def _crossing_later(positions: dict[str, list[int]], same_entity=None) -> list[str]:
    """Refs of mentions that start inside an earlier one and end after it (the later of
    each crossing pair; with ``same_entity(a, b)``, only pairs it accepts)."""
    spans = sorted(((min(p), -max(p), ref) for ref, p in positions.items() if p))
    found = []
    for k, (first, minus_last, ref) in enumerate(spans):
        if any(o_first < first <= -o_minus_last < -minus_last and (same_entity is None or same_entity(o_ref, ref))
               for o_first, o_minus_last, o_ref in spans[:k]):
            found.append(ref)
    return found


def as_written(docs: list[oracle.Doc], losses: Counter, target: str) -> list[oracle.Doc]:
    """The source's documents (as the oracle parsed them) with their mentions changed as
    the loss report says the writer of ``target`` changes them
    (:func:`corefio.formats.losses.treatment`), each count checked against the report:

    * ``loss.same-span``: of mentions with the same words, all but the first go (an
      entity whose mentions all go with it);

    * ``loss.discontinuous``, ``hull``: each such mention becomes one span from its
      first to its last word;
    * ``loss.cross-sentence``: ``dropped`` (the mentions go) or ``kept`` (nothing changes);
    * ``loss.crossing``, ``later_dropped``: of each crossing pair, the later mention goes;
    * ``loss.same-entity-overlap``: ``nested`` (two crossing mentions of an entity become
      one from the first start to the last end and one from the second start to the first
      end), ``dropped`` (the later of each pair goes) or ``writer`` (the CoNLL-U writer
      reports it: both mentions of each such pair go)."""
    def count(kind: str, n: int) -> None:
        assert losses.get(f"loss.{kind}", 0) == n, f"loss.{kind} count"

    changed = [oracle.Doc(tokens=d.tokens, sentence_of=d.sentence_of, mentions=dict(d.mentions), groups=d.groups,
                          others=d.others, links=d.links, ids=d.ids, empty=d.empty) for d in docs]
    if "loss.same-span" in losses:  # one mention per span (CorefUD): the later ones go
        found = 0
        for doc in changed:
            seen: set[tuple[int, ...]] = set()
            for ref, p in list(doc.mentions.items()):
                words = tuple(sorted(set(p)))
                if words in seen:
                    del doc.mentions[ref]
                    found += 1
                seen.add(words)
        count("same-span", found)
    if "loss.discontinuous" in losses:
        assert treatment("discontinuous", target) == "hull"
        found = 0
        for doc in changed:
            for ref, p in doc.mentions.items():
                if p and max(p) - min(p) + 1 > len(set(p)):
                    doc.mentions[ref] = list(range(min(p), max(p) + 1))
                    found += 1
        count("discontinuous", found)
    if "loss.cross-sentence" in losses:
        done = treatment("cross_sentence", target)
        assert done in ("dropped", "kept"), done
        found = 0
        for doc in changed:
            crossing = [ref for ref, p in doc.mentions.items()
                        if doc.sentence_of and p and doc.sentence_of[min(p)] != doc.sentence_of[max(p)]]
            found += len(crossing)
            if done == "dropped":
                for ref in crossing:
                    del doc.mentions[ref]
        count("cross-sentence", found)
    for kind, feature in (("crossing", "crossing"), ("same-entity-overlap", "same_entity_overlap")):
        if f"loss.{kind}" not in losses:
            continue
        done = treatment(feature, target)
        found = 0
        for doc in changed:
            same = None if kind == "crossing" else (lambda a, b, g=doc.groups: g.find(a) == g.find(b))
            later = _crossing_later(doc.mentions, same)
            if done == "writer":  # the CoNLL-U writer leaves out both mentions of each such pair
                pairs = {o for ref in later for o in doc.mentions if o != ref and same(o, ref)
                         and _crossing_later({o: doc.mentions[o], ref: doc.mentions[ref]}, same)}
                later = sorted(set(later) | pairs)
            found += len(later)
            if done in ("dropped", "later_dropped", "writer"):
                for ref in later:
                    del doc.mentions[ref]
            elif done == "nested":
                spans = sorted((min(p), max(p), ref) for ref, p in doc.mentions.items() if p)
                for ref in later:
                    first, last = min(doc.mentions[ref]), max(doc.mentions[ref])
                    other = next(o for o_first, o_last, o in spans
                                 if o != ref and o_first < first <= o_last < last and same(o, ref))
                    o_first, o_last = min(doc.mentions[other]), max(doc.mentions[other])
                    doc.mentions[other] = list(range(o_first, last + 1))
                    doc.mentions[ref] = list(range(first, o_last + 1))
            else:
                raise AssertionError(f"no expectation for {kind} treated as {done!r}")
        count(kind, found)
    return changed


def _links_as_total(counts: Counter) -> Counter:
    """``counts`` with its ``links:<type>`` kinds summed into one ``links``."""
    total = Counter({k: v for k, v in counts.items() if not k.startswith("links:")})
    total["links"] += sum(v for k, v in counts.items() if k.startswith("links:"))
    return Counter({k: v for k, v in total.items() if v})


def source_counts(path: Path, format: str, losses: Counter, target: str) -> Counter:
    """The source's counts as the writer of ``target`` must have written them
    (:func:`as_written`); of its first document only when the writer reports it kept
    only that one (``loss.multiple-documents``, n: the documents left out)."""
    docs = oracle.parse(path, format)
    if "loss.multiple-documents" in losses:
        assert len(docs) - 1 == losses["loss.multiple-documents"], "loss.multiple-documents count"
        docs = docs[:1]
    return oracle.summary(as_written(docs, losses, target))


def _counted(path: Path, format: str) -> Counter:
    return Counter({k: v for k, v in oracle.counts(path, format).items() if not k.startswith("chained:")})


@pytest.mark.parametrize(("source", "target"), _cells())
def test_what_a_conversion_changes_is_what_its_loss_report_says(source: Source, target: str, tmp_path: Path):
    out = tmp_path / OUTPUT_NAME[target]
    report = corefio.convert(source.path(), out, source.format, target)
    assert not report.errors
    losses = _losses(report)
    if "loss.multiple-documents" in losses:  # what is lost of the others does not count
        losses = _losses(report, only=corefio.read(source.path(), source.format).documents[0].name) \
            + Counter({"loss.multiple-documents": losses["loss.multiple-documents"]})
    before = source_counts(source.path(), source.format, losses, target)
    after = _counted(out, target)
    expected = expected_after(before, losses)
    if "links" in expected:
        after = _links_as_total(after)
    differences = {k: (expected[k], after[k]) for k in set(expected) | set(after) if expected[k] != after[k]}
    assert differences == {}, f"(expected, written) not explained by {sorted(losses)}"
    if target == source.format:  # writing a file in its own format loses nothing
        assert [d.code for d in report if d.code.startswith("loss.") and d.severity != "info"] == []
    # and corefio reads back what the oracle counted
    read_back = _model_counts(corefio.read(out, target))
    assert read_back == Counter({k: after[k] for k in read_back}), "(corefio's reading of the written file)"


def _model_counts(corpus) -> Counter:
    """The basic kinds of :mod:`tests.oracle`, from corefio's model of a file."""
    counts: Counter = Counter(documents=len(corpus.documents))
    for doc in corpus.documents:
        counts["tokens"] += len(doc.tokens.forms)
        counts["sentences"] += len(doc.sentences)
        counts["mentions"] += sum(m.layer is None for m in doc.markables)
        counts["entities"] += sum(any(doc.markables[i].layer is None for i in chain) for chain in doc.chain_indices())
    return Counter({k: v for k, v in counts.items() if v})


def test_the_matrix_covers_every_writer_and_the_real_corpora():
    assert set(WRITERS) | set(NOT_IN_MATRIX) == {spec.name for spec in corefio.formats.registry.all_formats() if spec.can_write}
    assert not set(WRITERS) & set(NOT_IN_MATRIX)
    formats = {s.format for s in SOURCES}
    assert {"conll", "conllu", "jsonlines", "mmax2"} <= formats
    assert len(SOURCES) >= 12
    cells = {f"{s.id}/{target}" for s in SOURCES for target in WRITERS if _crossed(s, target)}
    assert {target for s in SOURCES for target in WRITERS if _crossed(s, target)} == set(WRITERS)
    assert set(KNOWN_DEFECTS) | set(FOUND_DEFECTS) <= cells  # no entry names a cell that is not there
    fast = _fast_cells()  # the fast tier alone still writes every source and into every writer
    assert fast <= cells
    assert {key.rsplit("/", 1)[1] for key in fast} == set(WRITERS)
    assert {key.rsplit("/", 1)[0] for key in fast} == {s.id for s in SOURCES}


def test_the_oracle_counts_a_small_conll_file_by_hand(tmp_path: Path):
    """The oracle's own check: counts known by reading the file."""
    path = tmp_path / "a.conll"
    path.write_text("#begin document (d); part 000\n"
                    "d\t0\t0\tJohn\t(1)|(2\n"
                    "d\t0\t1\tsaw\t2)\n\n"
                    "d\t0\t0\thim\t(1)\n"
                    "#end document\n", encoding="utf-8")
    assert oracle.counts(path, "conll") == Counter(documents=1, sentences=2, tokens=3, mentions=3, entities=2)


def test_the_oracle_counts_small_xml_and_sgml_files_by_hand(tmp_path: Path):
    mate = tmp_path / "a.mate.xml"
    mate.write_text('<mate><doc name="d"><s><de ID="m1"><w>John</w></de> <w>saw</w> '
                    '<de ID="m2"><w>him</w></de></s><s><de ID="m2"><w>It</w> <w>rained</w></de></s>'
                    '<link href="#id(m2)" type="ident"><anchor href="#id(m1)"/></link>'
                    '<link href="#id(m1)" type="subset"><anchor href="#id(m2)"/><anchor href="#id(m1)"/></link>'
                    "</doc></mate>", encoding="utf-8")
    assert oracle.counts(mate, "mate") == Counter(documents=1, tokens=5, sentences=2, mentions=3, entities=1,
                                                  **{"links:subset": 2, "duplicate-ids": 1})
    muc = tmp_path / "a.sgml"
    muc.write_text('<DOC>\n<DOCNO> d </DOCNO>\n<TXT>\n<s><COREF ID="1">John <COREF ID="2">Smith</COREF></COREF> '
                   'left</s>\n<s><COREF ID="3" TYPE="IDENT" REF="1">He</COREF> did</s>\n</TXT>\n</DOC>\n',
                   encoding="utf-8")
    assert oracle.counts(muc, "muc") == Counter(documents=1, tokens=5, sentences=2, mentions=3, entities=2)


def test_the_oracle_counts_small_files_of_the_later_formats_by_hand(tmp_path: Path):
    ua = tmp_path / "a.conllua"
    ua.write_text("# global.columns = ID FORM IDENTITY BRIDGING DISCOURSE_DEIXIS\n# newdoc id = d\n"
                  "1\tJohn\t(EntityID=1|MarkableID=m1|ElementOf=3)\t_\t_\n"
                  "2\tand\t_\t_\t(EntityID=9|MarkableID=d1)\n"
                  "3\tMary\t(EntityID=2|MarkableID=m2|ElementOf=3)\t_\t_\n\n"
                  "4\tthey\t(EntityID=3|MarkableID=m3)\t(MarkableID=m3|Rel=r|MentionAnchor=m1)\t_\n"
                  "5\tleft\t(EntityID=1|MarkableID=m4\t_\t_\n6\tearly\t)\t_\t_\n", encoding="utf-8")
    assert oracle.counts(ua, "ua") == Counter(documents=1, tokens=6, sentences=2, mentions=4, entities=3,
                                              **{"markables:discourse_deixis": 1, "links:bridging": 1,
                                                 "links:split_antecedent": 2})
    (tmp_path / "b.txt").write_text("Alice saw her.\nShe ran\n", encoding="utf-8")
    brat = tmp_path / "b.ann"
    brat.write_text("T1\tPER 0 5\tAlice\nT2\tAlice-1 0 5\tAlice\nT3\tPER 10 13\ther\n"
                    "T4\tPER 15 18\tShe\nR1\tCoreference Arg1:T3 Arg2:T1\nR2\tcop Arg1:T4 Arg2:T3\n",
                    encoding="utf-8")  # "her." is two words: "her" ends a mention
    assert oracle.counts(brat, "brat") == Counter(documents=1, tokens=6, sentences=2, mentions=3, entities=2,
                                                  **{"links:cop": 1})
    webanno = tmp_path / "c.tsv"
    webanno.write_text("#FORMAT=WebAnno TSV 3.2\n#T_SP=webanno.custom.Referent|entity\n"
                       "#T_RL=webanno.custom.Coref|type|BT_webanno.custom.Referent\n\n\n"
                       "#Text=Kim met Lee .\n1-1\t0-3\tKim\tperson\t_\t_\t\n1-2\t4-7\tmet\t_\t_\t_\t\n"
                       "1-3\t8-11\tLee\tperson[2]\tcoref\t1-1[0_2]\t\n1-3.1\t8-9\tL\t_\t_\t_\t\n"
                       "1-4\t12-13\t.\tperson[2]|event\tbridge:def\t1-1[0_2]\t\n", encoding="utf-8")
    assert oracle.counts(webanno, "webanno-tsv") == Counter(documents=1, tokens=4, sentences=1, mentions=3,
                                                            entities=2, **{"links:bridging": 1})


def test_the_oracle_reads_inceptions_layers_by_hand(tmp_path: Path):
    """INCEpTION's custom layers, as its own TSV reader gives them (the test suite's
    XMI): a chain layer whose ``->`` column comes first, stacked chains and links on
    sub-tokens (the word they are in); a relation layer without a type value (``*``)
    whose ends are sub-token spans; the same in XMI without a type system."""
    chains = tmp_path / "chains.tsv"
    chains.write_text("#FORMAT=WebAnno TSV 3.3\n#T_CH=webanno.custom.SimpleLink|referenceRelation|referenceType\n\n\n"
                      "#Text=This is it\n1-1\t0-4\tThis\t*->1-1|*->2-2\t*[1]|*[2]\t\n"
                      "1-2\t5-7\tis\t_\t_\t\n1-2.1\t6-7\ts\t*->1-2|*->2-1\t*[1]|*[2]\t\n"
                      "1-3\t8-10\tit\t_\t_\t\n", encoding="utf-8")
    assert oracle.counts(chains, "webanno-tsv") == Counter(documents=1, tokens=3, sentences=1, mentions=4,
                                                           entities=2)
    relation = tmp_path / "relation.tsv"
    relation.write_text("#FORMAT=WebAnno TSV 3.3\n#T_SP=webanno.custom.Span|value\n"
                        "#T_RL=webanno.custom.Relation|value|BT_webanno.custom.Span\n\n\n#Text=Test\n"
                        "1-1\t0-4\tTest\t_\t_\t_\t\n1-1.1\t3-4\tt\tOTH\t*\t1-1.2\t\n"
                        "1-1.2\t0-1\tT\tOTH\t_\t_\t\n", encoding="utf-8")
    assert oracle.counts(relation, "webanno-tsv") == Counter(documents=1, tokens=1, sentences=1, mentions=2,
                                                             entities=2, **{"links:relation": 1})
    xmi = tmp_path / "a.xmi"
    xmi.write_text('<xmi:XMI xmlns:xmi="http://www.omg.org/XMI" xmlns:seg="http:///seg.ecore" '
                   'xmlns:custom="http:///webanno/custom.ecore" xmi:version="2.0">'
                   '<seg:Token xmi:id="1" begin="0" end="4"/><seg:Token xmi:id="2" begin="5" end="7"/>'
                   '<custom:SimpleLink xmi:id="3" begin="1" end="3" next="4"/>'
                   '<custom:SimpleLink xmi:id="4" begin="6" end="6"/><custom:SimpleChain xmi:id="5" first="3"/>'
                   '<custom:Span xmi:id="6" begin="0" end="4" value="X"/><custom:Span xmi:id="7" begin="5" end="7"/>'
                   '<custom:Relation xmi:id="8" begin="5" end="7" Governor="6" Dependent="7"/>'
                   '<custom:Coref xmi:id="9" begin="5" end="7" Governor="4" Dependent="1"/>'
                   '</xmi:XMI>', encoding="utf-8")
    # the Coref "relation" between a link and a token is a syntactic one: not read
    assert oracle.counts(xmi, "xmi") == Counter(documents=1, tokens=2, sentences=2, mentions=4, entities=3,
                                                **{"links:relation": 1})
    assert oracle.xmi_relation_layers(xmi) == {"{http:///webanno/custom.ecore}Relation"}


def test_the_oracle_reads_litbank_labels_preco_and_a_muc_doc_without_text_by_hand(tmp_path: Path):
    (tmp_path / "a.txt").write_text("Kim ran\n", encoding="utf-8")
    stacked = tmp_path / "a.ann"  # two mentions of one word, each labelled in turn
    stacked.write_text("T1\tMention 0 3\tKim\nT2\tkim-1 0 3\tKim\nT3\tMention 0 3\tKim\nT4\tkim-2 0 3\tKim\n"
                       "T5\tMention 4 7\tran\nT6\tkim-1 4 7\tran\n", encoding="utf-8")
    assert oracle.counts(stacked, "brat") == Counter(documents=1, tokens=2, sentences=1, mentions=3, entities=2)
    litbank = tmp_path / "l.ann"
    (tmp_path / "l.txt").write_text("Kim works for Acme\n", encoding="utf-8")
    litbank.write_text("MENTION\tT1\t0\t0\t0\t0\tKim\tPER\tPROP\nMENTION\tT2\t0\t3\t0\t3\tAcme\tORG\tPROP\n"
                       "COP\tT1\tT2\nEmployment\tT1\tT2\n", encoding="utf-8")
    assert oracle.counts(litbank, "litbank-tsv")["links:cop"] == 1
    assert oracle.counts(litbank, "litbank-tsv")["links:Employment"] == 1
    preco = tmp_path / "p.jsonl"
    preco.write_text('{"id": "d", "sentences": [["Kim", "ran", "."], [" "], ["She", "won"]], '
                     '"mention_clusters": [[[0, 0, 1], [2, 0, 1]], [[2, 1, 2]]]}', encoding="utf-8")
    assert oracle.counts(preco, "preco") == Counter(documents=1, tokens=6, sentences=3, mentions=3, entities=2)
    muc = tmp_path / "m.sgml"
    muc.write_text("<DOC><DOCNO> d1 </DOCNO>para1<p>para2 two<p>para3</DOC>", encoding="utf-8")
    assert oracle.counts(muc, "muc") == Counter(documents=1, tokens=4, sentences=3)


def test_the_oracle_counts_crossing_and_cross_sentence_mentions(tmp_path: Path):
    path = tmp_path / "a.jsonlines"
    path.write_text('{"doc_key": "d", "sentences": [["a", "b"], ["c", "d"]], '
                    '"clusters": [[[1, 2]], [[0, 1], [1, 3]]]}\n', encoding="utf-8")
    assert oracle.counts(path, "jsonlines") == Counter(documents=1, tokens=4, sentences=2, mentions=3, entities=2,
                                                       crossing=2, **{"cross-sentence": 2})


def test_expected_counts_follow_the_losses():
    before = Counter({"documents": 1, "mentions": 5, "entities": 3, "markables:secmark": 2, "chained:secmark": 1,
                      "links:bridging": 4, "sentences": 3})
    after = expected_after(before, {"loss.layers": 2, "loss.link-types": 4, "loss.multi-target-links": 1})
    assert after == Counter({"documents": 1, "mentions": 6, "entities": 3, "sentences": 3})
    assert expected_after(before, {"loss.link-types": 3})["links"] == 1  # one of the four kept
    with pytest.raises(AssertionError, match="loss.link-types and loss.layer-links count"):
        expected_after(before, {"loss.link-types": 5})
    typed = Counter({"documents": 1, "links:Employment": 2, "links:employment": 1, "links:cop": 1})
    assert expected_after(typed, {"loss.link-type-case": 2}) == Counter(
        {"documents": 1, "links:employment": 3, "links:cop": 1})
    with pytest.raises(AssertionError, match="loss.link-type-case count"):
        expected_after(typed, {"loss.link-type-case": 3})


def test_same_span_mentions_written_once_are_expected_once():
    """CorefUD keeps one mention per span: of two stacked chains over the same words,
    the second goes, and with it its entity."""
    doc = oracle.Doc(tokens=3, sentence_of=[0, 0, 0], mentions={"a1": [0], "a2": [1], "b1": [0], "b2": [1]})
    doc.groups.join("a1", "a2")
    doc.groups.join("b1", "b2")
    (written,) = as_written([doc], Counter({"loss.same-span": 2}), "conllu")
    assert list(written.mentions) == ["a1", "a2"]
    assert oracle.summary([written])["entities"] == 1
    with pytest.raises(AssertionError, match="loss.same-span count"):
        as_written([doc], Counter({"loss.same-span": 1}), "conllu")


# -- defects the real files found in writers (each with a small file of its own) -------------
def test_webanno_tsv_does_not_write_a_typed_link_its_relation_layer_reads_as_coreference(tmp_path: Path):
    """LitBank's non-identity ``appos`` links were written as GUM's ``appos``, which is
    coreference: their entities merged and the links went, unreported."""
    from corefio.model import Corpus, Document, Link, Markable, Tokens

    doc = Document(name="d", tokens=Tokens(forms="Kim , my friend , left".split()),
                   markables=[Markable(id="m1", spans=((0, 0),), entity="1"),
                              Markable(id="m2", spans=((2, 3),), entity="2"),
                              Markable(id="m3", spans=((5, 5),), entity="3")],
                   links=[Link(id="l1", type="appos", source="m2", target="m1"),
                          Link(id="l2", type="cop", source="m3", target="m1")])
    out = tmp_path / "d.tsv"
    report = corefio.write(Corpus(documents=[doc]), out, "webanno-tsv")
    assert _losses(report)["loss.link-types"] == 1
    assert oracle.counts(out, "webanno-tsv") == Counter(documents=1, tokens=6, sentences=1, mentions=3, entities=3,
                                                        **{"links:cop": 1})
    back = corefio.read(out).documents[0]
    assert [(link.type, link.source) for link in back.links] == [("cop", "3")] and len(back.chains()) == 3


def test_mmax2_writes_link_types_in_lower_case_and_says_so(tmp_path: Path):
    """MMAX2 lower-cases attribute names, and a link type is a pointer attribute's name:
    brat's ``Employment`` came back as ``employment``, unreported (and the pointer was
    written ``Employment`` on one markable, ``employment`` on the others)."""
    from corefio.model import Corpus, Document, Link, Markable, Tokens

    doc = Document(name="d", tokens=Tokens(forms="Kim works for Acme".split()),
                   markables=[Markable(id="m1", spans=((0, 0),)), Markable(id="m2", spans=((3, 3),))],
                   links=[Link(id="l1", type="Employment", source="m1", target="m2")])
    out = tmp_path / "project"
    report = corefio.write(Corpus(documents=[doc]), out, "mmax2")
    (loss,) = report.by_code("loss.link-type-case")
    assert loss.count == 1 and "written in lower case" in loss.message
    assert oracle.counts(out, "mmax2")["links:employment"] == 1
    markables = "".join(p.read_text(encoding="utf-8") for p in (out / "Markables").glob("*.xml"))
    assert "Employment" not in markables and 'employment="' in markables
    assert [link.type for link in corefio.read(out, "mmax2").documents[0].links] == ["employment"]


def test_conllu_gives_every_sentence_a_sent_id_and_text_and_no_blank_form():
    """WebAnno TSV's ``#Text=`` comments came through alone (no ``# sent_id``, no
    ``# text``: the UD validator refuses that), and PreCo's ``" "`` words were written as
    a FORM of one blank."""
    tsv = ("#FORMAT=WebAnno TSV 3.3\n#T_CH=webanno.custom.SimpleLink|referenceRelation|referenceType\n\n\n"
           "#Text=Kim ran\n1-1\t0-3\tKim\t*->1-1\t*[1]\t\n1-2\t4-7\tran\t_\t_\t\n")
    lines = corefio.dumps(corefio.loads(tsv, "webanno-tsv"), "conllu").splitlines()
    assert lines[2:5] == ["# sent_id = document-1", "# text = Kim ran", "#Text=Kim ran"]
    report = Report()
    preco = corefio.loads('{"id": "d", "sentences": [["Kim", "ran"], [" "]], "mention_clusters": [[[0, 0, 1]]]}\n',
                          "preco")
    lines = corefio.dumps(preco, "conllu", report=report).splitlines()
    assert "# text = _" in lines and "1\t_\t_\t_\t_\t_\t_\t_\t_\t_" in lines
    assert _losses(report)["loss.form"] == 1


def test_wl_coref_writes_its_prediction_input_back_as_it_was(tmp_path: Path):
    """wl-coref's input lines have no clusters (and may have no speakers): the writer
    added empty span_clusters, word_clusters and head2span."""
    text = ('{"document_id": "a", "cased_words": ["Hi", "!"], "sent_id": [0, 0]}\n'
            '{"document_id": "b", "cased_words": ["Yo"], "sent_id": [0], "speaker": ["x"]}')
    source = tmp_path / "in.jsonlines"
    source.write_text(text, encoding="utf-8")
    assert corefio.dumps(corefio.read(source, "wl-coref"), "wl-coref") == text
    # a document from elsewhere gets every key, as wl-coref's own data has them
    corpus = corefio.loads('{"doc_key": "c", "sentences": [["Kim", "ran"]], "clusters": [[[0, 0]]]}\n', "jsonlines")
    assert corefio.dumps(corpus, "wl-coref") == (
        '{"document_id": "c", "cased_words": ["Kim", "ran"], "sent_id": [0, 0], "speaker": ["_", "_"], '
        '"span_clusters": [[[0, 1]]], "word_clusters": [[0]], "head2span": []}\n')


# -- writing into paths that exist -------------------------------------------------------------
SMALL = DATA / "corpora" / "gum" / "dep" / "GUM_news_worship.conllu"
#: writers whose output is a directory (a project, pairs of files)
DIRECTORY_WRITERS = {"mmax2", "brat", "litbank-tsv"}
#: writers that fail the tests below (SMALL written) for a defect found here
WRITER_DEFECTS: dict[str, str] = {}


def _writers() -> list:
    return [pytest.param(w, marks=[pytest.mark.xfail(strict=True, reason=WRITER_DEFECTS[w])]
                         if w in WRITER_DEFECTS else []) for w in WRITERS]


@pytest.mark.parametrize("target", _writers())
def test_writing_over_an_existing_file(target: str, tmp_path: Path, cli):
    out = tmp_path / OUTPUT_NAME[target]
    out.write_text("old content\n", encoding="utf-8")
    result = cli("convert", SMALL, out, "--to", target)
    if target in DIRECTORY_WRITERS:  # they need a directory: the file stays as it was
        assert result.exit_code == 6, result.output
        assert out.read_text(encoding="utf-8") == "old content\n"
    else:  # one-file outputs are replaced, as the README says
        assert result.exit_code == 0, result.output
        assert _counted(out, target)["tokens"] == oracle.counts(SMALL, "conllu")["tokens"]


@pytest.mark.parametrize("target", _writers())
def test_writing_into_an_existing_empty_directory(target: str, tmp_path: Path, cli):
    out = tmp_path / OUTPUT_NAME[target]
    out.mkdir()
    result = cli("convert", SMALL, out, "--to", target)
    if target in DIRECTORY_WRITERS:
        assert result.exit_code == 0, result.output
        assert _counted(out, target)["tokens"] == oracle.counts(SMALL, "conllu")["tokens"]
    else:
        assert result.exit_code == 6 and "is a directory" in result.output
        assert list(out.iterdir()) == []


@pytest.mark.parametrize("target", _writers())
def test_writing_into_a_directory_that_is_not_empty_is_refused(target: str, tmp_path: Path, cli):
    out = tmp_path / OUTPUT_NAME[target]
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    result = cli("convert", SMALL, out, "--to", target)
    assert result.exit_code == 6, result.output
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    if target == "mmax2":
        assert "not empty" in result.output and "notes.txt" in result.output and "--force" in result.output


def test_an_mmax2_project_is_not_overwritten_by_another_without_force(tmp_path: Path, cli):
    """The reported defect: converting into an existing project replaced its
    common_paths.xml (exit 0) and left it broken."""
    project = tmp_path / "project"
    assert cli("convert", SMALL, project, "--to", "mmax2").exit_code == 0
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    result = cli("convert", DATA / "../../samples/key.raf.xml", project, "--to", "mmax2")
    assert result.exit_code == 6
    assert "common_paths.xml" in result.output and "--force" in result.output
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before
    assert oracle.counts(project, "mmax2")["tokens"] == oracle.counts(SMALL, "conllu")["tokens"]


def test_force_writes_only_the_projects_files(tmp_path: Path, cli):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    result = cli("convert", SMALL, out, "--to", "mmax2", "--force")
    assert result.exit_code == 0, result.output
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert oracle.counts(out, "mmax2")["documents"] == 1
    # and over an existing project of another document: its own files are replaced
    result = cli("convert", DATA / "../../samples/key.raf.xml", out, "--to", "mmax2", "--force")
    assert result.exit_code == 0, result.output
    assert (out / "notes.txt").exists() and oracle.counts(out, "mmax2")["documents"] == 2


def test_the_api_refuses_a_directory_that_is_not_empty_unless_forced(tmp_path: Path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    corpus = corefio.read(SMALL)
    with pytest.raises(OutputError, match="not empty"):
        corefio.write(corpus, out, "mmax2")
    with pytest.raises(OutputError, match="not empty"):
        corefio.convert(SMALL, out, to_format="mmax2")
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    corefio.write(corpus, out, "mmax2", force=True)
    corefio.convert(SMALL, out, to_format="mmax2", force=True)
    assert oracle.counts(out, "mmax2")["documents"] == 1


# -- what each writer does with mentions it cannot express (defect: reports of drops that did
#    not happen) ----------------------------------------------------------------------------------
#: every writer, the three the matrix leaves out included (the oracle reads them through
#: spaCy, the datasets library and its own JSON reading)
EVERY_WRITER = {**OUTPUT_NAME, "spacy": "out.spacy", "hf-datasets": "hf", "wl-coref": "out.jsonlines"}
_FORMS = "Anna met Bob . He saw her and the tall man yesterday .".split()
#: small documents, each with one kind of mention some formats cannot express (spans of
#: word positions; two sentences: words 0-3 and 4-12)
SHAPES = {
    "discontinuous": [(((0, 0), (2, 2)), "1"), (((4, 4),), "1"), (((6, 6),), "2")],
    "cross-sentence": [(((2, 4),), "1"), (((6, 6),), "1"), (((0, 0),), "2")],
    "crossing": [(((4, 6),), "1"), (((5, 8),), "2"), (((0, 0),), "2")],
    "same-entity-overlap": [(((4, 6),), "1"), (((5, 8),), "1"), (((0, 0),), "2")],
}


def _shape(kind: str):
    from corefio.model import Corpus, Document, Markable, Sentence, Tokens

    markables = [Markable(id=f"m{k + 1}", spans=spans, entity=entity) for k, (spans, entity) in enumerate(SHAPES[kind])]
    return Corpus(documents=[Document(name="d", tokens=Tokens(forms=_FORMS), markables=markables,
                                      sentences=[Sentence(first=0, last=3), Sentence(first=4, last=12)])])


def _shape_cells() -> list:
    return [pytest.param(kind, target, id=f"{kind}/{target}") for kind in SHAPES for target in EVERY_WRITER]


@pytest.mark.parametrize(("kind", "target"), _shape_cells())
def test_each_writer_does_what_its_loss_report_says(kind: str, target: str, tmp_path: Path):
    """The loss report names what the writer did (dropped, written as its hull, written
    as it is, bracketed otherwise), and the written file, counted by the oracle, holds
    exactly that: the source is written as RAF (which expresses everything) to be
    counted the same way."""
    pytest.importorskip("spacy") if target == "spacy" else None
    pytest.importorskip("datasets") if target == "hf-datasets" else None
    corpus = _shape(kind)
    source = tmp_path / "source.raf.xml"
    corefio.write(corpus, source, "raf")
    out = tmp_path / EVERY_WRITER[target]
    report = corefio.write(corpus, out, target)
    losses = _losses(report)
    expected = expected_after(source_counts(source, "raf", losses, target), losses)
    assert _counted(out, target) == expected, f"not explained by {dict(losses)}"
    for d in report:  # and no message says "dropped" of something the file holds
        if d.code == f"loss.{kind}":
            feature = kind.replace("-", "_")
            assert d.message.endswith(corefio.formats.losses.loss_message("", "", treatment(feature, target))
                                      .removeprefix(" cannot express ")) or treatment(feature, target) == "writer"


def test_a_report_never_says_dropped_of_what_is_written():
    """The defect as reported: a discontinuous mention written as its hull was reported
    'dropped', and cross-sentence mentions that WebAnno TSV keeps were reported 'dropped'
    (CoNLL expresses them: the reference scorer reads a document's brackets across its
    sentences, and so does corefio; no loss at all)."""
    from corefio.formats.losses import report_losses
    from corefio.formats.registry import get_format

    report = Report()
    doc = _shape("discontinuous").documents[0]
    report_losses(doc, get_format("conll").capabilities, report, "conll")
    (loss,) = report.by_code("loss.discontinuous")
    assert loss.message == ("conll cannot express discontinuous mentions; "
                            "each written as one span from its first to its last word")
    report = Report()
    report_losses(_shape("cross-sentence").documents[0], get_format("conll").capabilities, report, "conll")
    assert not report.by_code("loss.cross-sentence")
    report = Report()
    report_losses(_shape("cross-sentence").documents[0], get_format("webanno-tsv").capabilities, report,
                  "webanno-tsv")
    (loss,) = report.by_code("loss.cross-sentence")
    assert loss.severity == "info" and "dropped" not in loss.message and "written as they are" in loss.message
    report = Report()
    report_losses(_shape("cross-sentence").documents[0], get_format("mate").capabilities, report, "mate")
    assert report.by_code("loss.cross-sentence")[0].message.endswith("; dropped")


def test_the_oracle_counts_the_read_only_shapes_by_hand(tmp_path: Path):
    """wl-coref, AllenNLP and sub-word jsonlines, and CoreNLP's JSON and XML, counted
    from files written here by hand."""
    lines = tmp_path / "a.jsonlines"
    lines.write_text(
        '{"document_id": "w", "cased_words": ["Kim", "ran", ".", "She", "won"], "sent_id": [0, 0, 0, 1, 1], '
        '"span_clusters": [[[0, 1], [3, 4]]]}\n'
        '{"document": ["Kim", "saw", "her"], "clusters": [[[0, 0]], [[2, 2]]]}\n'
        '{"sentences": [["[CLS]", "Ki", "##m", "ran", "[SEP]"]], "subtoken_map": [0, 0, 0, 1, 1], '
        '"sentence_map": [0, 0, 0, 0, 0], "clusters": [[[1, 2]]]}\n', encoding="utf-8")
    # AllenNLP's line has no sentences: its words are one (as in corefio's reading)
    assert oracle.counts(lines, "jsonlines:wl") == Counter(documents=3, tokens=10, sentences=4, mentions=5,
                                                           entities=4)
    corenlp_json = tmp_path / "a.json"
    corenlp_json.write_text('{"sentences": [{"tokens": [{"word": "Kim"}, {"word": "ran"}]}, '
                            '{"tokens": [{"word": "She"}, {"word": "won"}, {"word": "."}]}], '
                            '"corefs": {"1": [{"sentNum": 1, "startIndex": 1, "endIndex": 2}, '
                            '{"sentNum": 2, "startIndex": 1, "endIndex": 2}]}}', encoding="utf-8")
    assert oracle.counts(corenlp_json, "corenlp") == Counter(documents=1, tokens=5, sentences=2, mentions=2,
                                                             entities=1)
    corenlp_xml = tmp_path / "a.xml"
    corenlp_xml.write_text("<root><document><sentences><sentence id='1'><tokens><token id='1'><word>Kim</word>"
                           "</token><token id='2'><word>Lee</word></token></tokens></sentence></sentences>"
                           "<coreference><coreference><mention><sentence>1</sentence><start>1</start><end>3</end>"
                           "</mention><mention><sentence>1</sentence><start>2</start><end>3</end></mention>"
                           "</coreference></coreference></document></root>", encoding="utf-8")
    assert oracle.counts(corenlp_xml, "corenlp") == Counter(documents=1, tokens=2, sentences=1, mentions=2,
                                                            entities=1)
    ua = tmp_path / "b.conllua"
    ua.write_text("# global.columns = ID FORM IDENTITY\n1\tKim\t(EntityID=1|MarkableID=m1)\n"
                  "1.1\t_\t(EntityID=1|MarkableID=m2)\n2\tran\t_\n", encoding="utf-8")
    assert oracle.judged(oracle.parse(ua, "ua")) == Counter(documents=1, tokens=2, empty_nodes=1, mentions=2,
                                                            entities=1, singletons=0, bridging=0,
                                                            split_antecedents=0)
