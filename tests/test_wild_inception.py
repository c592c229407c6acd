"""Wild family "inception": real INCEpTION and WebAnno exports (``tests/data/wild/inception``).

Judges: dkpro-cassis (the UIMA library INCEpTION's Python tools use) reads every XMI,
live, and a small counter written here walks what it read (chains by ``first``/``next``,
relations by ``Governor``/``Dependent``); the XMI INCEpTION's own TSV reader made of each
test-suite TSV is that TSV's judge. The other TSV files are counted by a small parser
written here, independent of corefio's reader. Own-format round trips: WebAnno TSV byte
for byte (or the move of sub-token annotations reported), XMI compared through cassis.
"""

from __future__ import annotations

import io
import json
import re
import warnings
import zipfile
from pathlib import Path

import pytest

import corefio
from corefio.diagnostics import Report

from .conftest import DATA

cassis = pytest.importorskip("cassis")

FAMILY = DATA / "wild" / "inception"
MANIFEST = json.loads((FAMILY / "manifest.json").read_text(encoding="utf-8"))
TYPES = FAMILY / "tsv3-suite" / "webannoTestTypes.xml"
TOKEN = "de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Token"
#: GUM's relation types that put both ends in one entity (its CorefUD release does the same)
IDENTITY = {"coref", "ana", "cata", "appos", "pred", "disc"}


def entries(fmt: str) -> list[dict]:
    return [e for e in MANIFEST if e["format"] == fmt]


def ids(entry: dict) -> str:
    return entry["path"]


# -- the judges ---------------------------------------------------------------------------------
class Groups:
    """Union-find over mention keys."""

    def __init__(self) -> None:
        self.parent: dict = {}

    def find(self, x):
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def join(self, a, b) -> None:
        self.parent[self.find(a)] = self.find(b)

    def sizes(self) -> list[int]:
        counts: dict = {}
        for x in list(self.parent):
            root = self.find(x)
            counts[root] = counts.get(root, 0) + 1
        return list(counts.values())


def summary(groups: Groups, tokens: int, links: int = 0) -> dict:
    sizes = groups.sizes()
    return {"documents": 1, "tokens": tokens, "mentions": sum(sizes), "entities": len(sizes),
            "singletons": sum(size == 1 for size in sizes), "links": links}


def cassis_typesystem():
    from cassis.typesystem import load_dkpro_core_typesystem

    return cassis.merge_typesystems(load_dkpro_core_typesystem(), cassis.load_typesystem(TYPES.read_text("utf-8")))


def cassis_counts(xmi: bytes) -> dict:
    """What dkpro-cassis reads: tokens; every chain (a ``first`` feature, then ``next``)
    an entity of its links; every annotation of a span type that relations connect a
    mention, relations counted (none of the suite's is an identity relation)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # DocumentMetaData is in neither type system
        cas = cassis.load_cas_from_xmi(xmi.decode("utf-8"), typesystem=cassis_typesystem(), lenient=True)
    everything = list(cas.select_all_fs())
    groups = Groups()
    links = 0
    span_types = set()
    for fs in everything:
        features = {f.name for f in fs.type.all_features}
        if "first" in features:
            before, link = None, fs.first
            while link is not None:
                groups.find(link.xmiID)
                if before is not None:
                    groups.join(before.xmiID, link.xmiID)
                before, link = link, link.next
        if {"Governor", "Dependent"} <= features:
            links += 1
            span_types.update({fs.Governor.type.name, fs.Dependent.type.name})
    for fs in everything:
        if fs.type.name in span_types:
            groups.find(fs.xmiID)
    return summary(groups, sum(fs.type.name == TOKEN for fs in everything), links)


def tsv_counts(path: Path) -> dict:
    """A small WebAnno TSV 3 parser: token rows (sub-tokens are not tokens); a chain
    layer's ``X->N-M`` items are link M of chain N; a span layer with a relation layer
    on it gives the mentions (``value[id]``: the rows of one id; no id: one token, one
    per row and column), the relation's governor cell ``TOKEN[gov_dep]`` a link, which
    joins its ends when its type is one of GUM's identity types."""
    layers = []
    rows = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.startswith(("#T_SP=", "#T_CH=", "#T_RL=")):
            name, *features = line[6:].split("|")
            layers.append((line[3:5], name, features))
        elif line and not line.startswith("#"):
            rows.append(line.split("\t"))
    column, where = 3, {}
    for kind, name, features in layers:
        where[(kind, name)] = list(range(column, column + len(features)))
        column += len(features)
    groups = Groups()
    links = 0
    tokens = sum("." not in row[0] for row in rows)
    chains = [name for kind, name, _ in layers if kind == "CH"]
    if chains:
        chain_of: dict[str, str] = {}
        for row in rows:
            for c in where[("CH", chains[0])]:
                for item in row[c].split("|"):
                    found = re.search(r"->(\d+)-(\d+)$", item)
                    if found:
                        chain_of[f"{found.group(1)}-{found.group(2)}"] = found.group(1)
        sizes = [list(chain_of.values()).count(chain) for chain in set(chain_of.values())]
        return {"documents": 1, "tokens": tokens, "mentions": len(chain_of), "entities": len(sizes),
                "singletons": sizes.count(1), "links": 0}
    relation = next((name, features) for kind, name, features in layers if kind == "RL")
    base = relation[1][-1][3:]
    for row in rows:
        for n, c in enumerate(where[("SP", base)]):
            if row[c] == "_":
                continue
            for k, item in enumerate(row[c].split("|")):
                found = re.search(r"\[(\d+)\]$", item)
                if found:
                    groups.find(found.group(1))
                elif n == 0:
                    groups.find(f"{row[0]}/{k}")
    type_column, governor_column = where[("RL", relation[0])][0], where[("RL", relation[0])][-1]
    for row in rows:
        if row[governor_column] == "_":
            continue
        kinds = row[type_column].split("|")
        for kind, item in zip(kinds, row[governor_column].split("|")):
            links += 1
            found = re.search(r"\[(\d+)_(\d+)\]$", item)
            if found and kind in IDENTITY:
                groups.join(found.group(1), found.group(2))
    return summary(groups, tokens, links)


def corefio_counts(doc) -> dict:
    chains = doc.chains()
    return {"documents": 1, "tokens": len(doc.tokens.forms), "mentions": len(doc.markables),
            "entities": len(chains), "singletons": sum(len(c) == 1 for c in chains), "links": len(doc.links)}


def read_quietly(path: Path, fmt: str | None = None) -> tuple[corefio.Corpus, Report]:
    """Read ``path``; no warning may escape to Python's warnings (cassis' included)."""
    report = Report()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        corpus = corefio.read(path, fmt, report=report)
    # (the import machinery's ImportWarning "__package__ != __spec__.parent" is left out: it is
    # raised where a module is first imported on the worker, whichever test ran before, and
    # Python shows it to nobody by default)
    assert [str(w.message) for w in caught if ("cassis" in w.filename or "corefio" in w.filename)
            and not issubclass(w.category, ImportWarning)] == []
    return corpus, report


# -- the manifest ---------------------------------------------------------------------------------
def test_the_manifest_names_real_files_from_three_repositories():
    assert len({e["repo"] for e in MANIFEST}) >= 3
    for entry in MANIFEST:
        assert (FAMILY / entry["path"]).is_file(), entry["path"]
        assert re.fullmatch(r"[0-9a-f]{40}", entry["commit"]), entry["path"]
        assert entry["licence"] and entry["source_path"] and entry["notes"]
        assert entry["format"] in ("xmi", "webanno-tsv")
    assert {e["format"] for e in MANIFEST} == {"xmi", "webanno-tsv"}
    assert TYPES.is_file()


# -- XMI: corefio against dkpro-cassis -------------------------------------------------------------
@pytest.mark.parametrize("entry", entries("xmi"), ids=ids)
def test_xmi_counts_equal_what_cassis_reads(entry):
    path = FAMILY / entry["path"]
    corpus, report = read_quietly(path)
    assert len(corpus.documents) == 1
    judged = cassis_counts(path.read_bytes())
    assert corefio_counts(corpus.documents[0]) == judged
    assert {k: judged[k] for k in entry["judge_counts"]} == entry["judge_counts"]
    # the custom layers were read from the XMI itself (no type system beside it), and said so
    assert "xmi.types-inferred" in report.codes()


@pytest.mark.parametrize("entry", entries("xmi"), ids=ids)
def test_xmi_round_trip_keeps_what_cassis_reads(entry, tmp_path):
    path = FAMILY / entry["path"]
    corpus, _ = read_quietly(path)
    written = corefio.dumps(corpus, "xmi")
    # cassis reads corefio's output with corefio's own type system only
    from corefio.formats import xmi

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        typesystem = cassis.load_typesystem(xmi._description(frozenset(
            corpus.documents[0].layout["xmi"].chain_types.values()
            if "xmi" in corpus.documents[0].layout else ())).decode("utf-8"))
        cas = cassis.load_cas_from_xmi(written.decode("utf-8"), typesystem=typesystem)
    assert cas.sofa_string == corefio.read(path).documents[0].text
    back = corefio.loads(written, "xmi").documents[0]
    before = corpus.documents[0]
    assert back.tokens.forms == before.tokens.forms and back.tokens.offsets == before.tokens.offsets

    def chains(doc):
        return sorted(sorted(m.spans for m in chain) for chain in doc.chains() if len(chain) > 1)

    assert chains(back) == chains(before)
    if "SimpleLink" in path.read_text(encoding="utf-8"):
        # a custom chain layer is written back in its own types
        assert b"custom:SimpleChain" in written and b"custom:SimpleLink" in written
        assert b"CoreferenceChain " not in written


# -- WebAnno TSV: corefio against INCEpTION's reading and an independent parser ----------------------
@pytest.mark.parametrize("entry", [e for e in entries("webanno-tsv") if "judge_counts" in e], ids=ids)
def test_tsv_counts_equal_inceptions_reading_of_them(entry):
    path = FAMILY / entry["path"]
    corpus, _ = read_quietly(path)
    judged = cassis_counts(path.with_suffix(".xmi").read_bytes())
    assert corefio_counts(corpus.documents[0]) == judged
    assert {k: judged[k] for k in entry["judge_counts"]} == entry["judge_counts"]


@pytest.mark.parametrize("entry", entries("webanno-tsv"), ids=ids)
def test_tsv_counts_equal_an_independent_parser(entry):
    path = FAMILY / entry["path"]
    corpus, _ = read_quietly(path)
    assert corefio_counts(corpus.documents[0]) == tsv_counts(path)


@pytest.mark.parametrize("entry", entries("webanno-tsv"), ids=ids)
def test_tsv_round_trip_is_byte_exact_or_reports_the_moved_sub_token_annotations(entry):
    path = FAMILY / entry["path"]
    corpus, report = read_quietly(path)
    written = corefio.dumps(corpus, "webanno-tsv").encode("utf-8")
    if "webanno.subtoken-annotations" in report.codes():
        assert written != path.read_bytes()
        back = corefio.loads(written, "webanno-tsv").documents[0]
        assert corefio_counts(back) == corefio_counts(corpus.documents[0])
        assert [sorted(m.spans for m in c) for c in back.chains()] == \
            [sorted(m.spans for m in c) for c in corpus.documents[0].chains()]
    else:
        assert written == path.read_bytes()


@pytest.mark.parametrize("name", sorted({Path(e["path"]).parent.name for e in entries("xmi")}))
def test_a_suite_tsv_and_its_xmi_give_the_same_chains(name):
    """The TSV and the XMI INCEpTION's reader made of it: the same tokens and mentions."""
    folder = FAMILY / "tsv3-suite" / name
    tsv, _ = read_quietly(folder / "reference.tsv")
    xmi_doc, _ = read_quietly(folder / "reference.xmi")
    a, b = tsv.documents[0], xmi_doc.documents[0]
    assert a.tokens.forms == b.tokens.forms

    def partition(doc):
        return sorted(sorted(m.spans for m in chain) for chain in doc.chains())

    assert partition(a) == partition(b)
    assert sorted(link.type for link in a.links) == sorted(link.type for link in b.links)


def test_the_built_in_chain_layer_of_webanno_keeps_its_types_and_relations():
    doc = corefio.read(FAMILY / "webanno" / "coref.tsv").documents[0]
    first = doc.markables[0]
    assert first.attributes == {"referenceType": "CM", "referenceRelation": "COREFERENTIAL"}
    assert doc.tokens.attributes["de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity|value"][7] == "PER"  # Grubach
    assert doc.layout["webanno-tsv"].mention_layer == "de.tudarmstadt.ukp.dkpro.core.api.coref.type.CoreferenceLink"


def test_several_wild_documents_go_into_one_zip_and_come_back(tmp_path):
    """As INCEpTION exports a project's documents: one file per document."""
    names = ["gum/GUM_news_stampede.tsv", "webanno/coref.tsv", "tsv3-suite/testStackedChain/reference.tsv"]
    corpus = corefio.Corpus(documents=[corefio.read(FAMILY / n).documents[0] for n in names])
    out = tmp_path / "three.zip"
    corefio.write(corpus, out, "webanno-tsv")
    with zipfile.ZipFile(out) as z:
        assert z.namelist() == ["GUM_news_stampede.tsv", "coref.tsv", "reference.tsv"]
        for member, name in zip(z.namelist(), names):
            assert z.read(member) == (FAMILY / name).read_bytes()
    back = corefio.read(out)
    assert [corefio_counts(d) for d in back.documents] == [corefio_counts(d) for d in corpus.documents]
    xmi_out = tmp_path / "three-xmi.zip"
    corefio.write(corpus, xmi_out, "xmi")
    with zipfile.ZipFile(xmi_out) as z:
        assert z.namelist()[0] == "TypeSystem.xml" and len(z.namelist()) == 4
        typesystem = cassis.load_typesystem(z.read("TypeSystem.xml").decode("utf-8"))
        for member in z.namelist()[1:]:
            cas = cassis.load_cas_from_xmi(io.BytesIO(z.read(member)), typesystem=typesystem)
            assert len(list(cas.select(TOKEN))) > 0
