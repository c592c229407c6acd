"""Every real file of the shared corpora in CoNLL, CoNLL-U and jsonlines: reads, validates,
round-trips, converts to the other formats and to RAF and back with the chains unchanged.
Where two renderings of one document disagree, the tests say how."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree

import corefio
from corefio.diagnostics import Report
from corefio.checks.validation import validate_file

from .conftest import DATA, shared_data

CORPORA = DATA / "corpora"
FILES = sorted(p for p in CORPORA.rglob("*") if p.suffix in (".conll", ".conllu", ".jsonlines"))
TARGETS = ["conll", "conllu", "jsonlines", "raf"]


def chain_sets(doc) -> set[frozenset]:
    return {frozenset(m.spans for m in c) for c in doc.chains()}


def test_all_shared_files_are_covered():
    assert len(FILES) == 23  # 11 from the shared corpora, 12 more (gum-genres, litbank-more, litbank-jsonlines)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(CORPORA)))
def test_reads_validates_and_round_trips_identically(path: Path):
    corpus = corefio.read(path)
    assert corpus.documents and all(d.markables for d in corpus.documents)
    report = validate_file(path)
    assert report.errors == []
    assert corefio.dumps(corpus, corefio.formats.registry.detect_format(path).name) == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(CORPORA)))
def test_converts_to_every_format_and_back_with_chains_unchanged(path: Path, target: str, tmp_path: Path):
    original = corefio.read(path)
    out = tmp_path / f"converted.{ {'raf': 'raf.xml'}.get(target, target)}"
    report = corefio.convert(path, out)
    back = corefio.read(out)
    assert len(back.documents) == len(original.documents)
    for a, b in zip(original.documents, back.documents):
        assert b.tokens.forms == a.tokens.forms
        assert chain_sets(b) == chain_sets(a)
        assert b.name == a.name
        if a.part is not None and target != "conllu":  # CoNLL-U has no part numbers
            assert b.key == a.key
    # RAF keeps everything: converting back gives the original bytes
    if target == "raf":
        again = tmp_path / f"again{''.join(path.suffixes)}"
        corefio.convert(out, again)
        assert again.read_bytes() == path.read_bytes()
    assert not report.errors


def test_gum_renderings_agree_on_tokens_mentions_and_chains():
    """GUM comes in four renderings; OntoGUM keeps fewer mentions (no singletons)."""
    for name in ("GUM_news_worship", "GUM_academic_art"):
        gum = corefio.read(CORPORA / f"gum/coref/gum/conll/{name}.conll").documents[0]
        dep = corefio.read(CORPORA / f"gum/dep/{name}.conllu").documents[0]
        onto = corefio.read(CORPORA / f"gum/coref/ontogum/conll/{name}.conll").documents[0]
        onto_u = corefio.read(CORPORA / f"gum/coref/ontogum/conllu/{name}.conllu").documents[0]
        assert gum.tokens.forms == dep.tokens.forms == onto.tokens.forms == onto_u.tokens.forms
        assert chain_sets(gum) == chain_sets(dep)
        assert chain_sets(onto) == chain_sets(onto_u)
        # they differ in what they carry: entity labels, types, bridging, singletons
        assert gum.markables[0].entity.startswith(("event-", "abstract-")) and dep.markables[0].entity.isdigit()
        assert dep.links and not gum.links
        assert all(len(c) > 1 for c in onto.chains()) and any(len(c) == 1 for c in gum.chains())


def test_democrat_conll_and_jsonlines_disagree_on_tokens_only():
    """The jsonlines keeps each multi-word token's surface form AND its words ("des"
    then "de", "les"); the CoNLL file keeps the words only. So token offsets differ
    (1,988 vs 1,932) and a mention over a multi-word token reads "Amérique du de le Sud"
    in one and "Amérique de le Sud" in the other; mapping each CoNLL word to its place
    in the jsonlines tokens gives exactly the same chains."""
    conll = corefio.read(CORPORA / "democrat-singe-jsonlines/singe.conll").documents[0]
    jl = corefio.read(CORPORA / "democrat-singe-jsonlines/singe.jsonlines").documents[0]
    assert (len(conll.tokens.forms), len(jl.tokens.forms)) == (1932, 1988)
    position, j = [], 0
    layout = conll.layout["conll"]
    for k_sentence, s in enumerate(conll.sentences):
        before = {off for off, _ in layout.interleaved.get(k_sentence, ())}
        for k in range(s.last - s.first + 1):
            if k in before:
                j += 1  # the surface form
            position.append(j)
            j += 1
    assert j == len(jl.tokens.forms)
    assert [jl.tokens.forms[p] for p in position] == conll.tokens.forms
    mapped = {frozenset(tuple((position[a], position[b]) for a, b in spans) for spans in c)
              for c in chain_sets(conll)}
    assert mapped == chain_sets(jl)
    assert chain_sets(conll) != chain_sets(jl)


def test_litbank_conll_agrees_with_its_brat_and_tsv_renderings_on_chains():
    """LitBank's three renderings of Alice: the same 226 mentions in 53 chains. What
    differs is what each carries: brat and TSV have an entity type per mention (PER,
    FAC...) and brat's chain labels are truncated (an_ignorant_little_g-700); CoNLL has
    neither."""
    base = CORPORA / "litbank/coref"
    doc = corefio.read(base / "conll/11_alices_adventures_in_wonderland_brat.conll").documents[0]
    text = (base / "brat/11_alices_adventures_in_wonderland_brat.txt").read_text(encoding="utf-8")
    starts, ends, pos = {}, {}, 0
    forms = []
    for line in text.split("\n"):
        for m in re.finditer(r"\S+", line):
            starts[pos + m.start()] = len(forms)
            ends[pos + m.end()] = len(forms)
            forms.append(m.group())
        pos += len(line) + 1
    assert forms == doc.tokens.forms
    brat_chains: dict[str, set] = {}
    types = 0
    for line in (base / "brat/11_alices_adventures_in_wonderland_brat.ann").read_text(encoding="utf-8").splitlines():
        tid, info, _ = line.split("\t")
        label, a, b = info.split(" ")
        span = (starts[int(a)], ends[int(b)])
        if re.fullmatch(r"[A-Z]+_[A-Z]+", label):
            types += 1
        else:
            brat_chains.setdefault(label, set()).add(((span),))
    tsv_mentions, tsv_chains = {}, {}
    sentence_start, total = [], 0
    for line in text.split("\n"):
        if line:
            sentence_start.append(total)
            total += len(line.split(" "))
    for row in (base / "tsv/11_alices_adventures_in_wonderland_brat.ann").read_text(encoding="utf-8").splitlines():
        cols = row.split("\t")
        if cols[0] == "MENTION":
            tsv_mentions[cols[1]] = (sentence_start[int(cols[2])] + int(cols[3]), sentence_start[int(cols[4])] + int(cols[5]))
        elif cols[0] == "COREF":
            tsv_chains.setdefault(cols[2], set()).add((tsv_mentions[cols[1]],))
    ours = chain_sets(doc)
    assert {frozenset(c) for c in brat_chains.values()} == ours
    assert {frozenset(c) for c in tsv_chains.values()} == ours
    assert types == len(doc.markables) == 226 and len(ours) == 53
    assert any(label.startswith("an_ignorant_little_g") for label in brat_chains)


def test_mmax_style_report_is_clean_for_conversions_without_loss(tmp_path: Path):
    """CoNLL → RAF reports no loss at all (RAF holds everything)."""
    report = Report()
    corefio.convert(FILES[0], tmp_path / "x.raf.xml", report=report)
    assert [d for d in report if d.code.startswith("loss.")] == []


def test_litbank_conll_to_jsonlines_reports_only_real_losses():
    """The CoNLL columns document_id, part_number and word_number are layout, not data:
    converting LitBank to jsonlines reports the token attributes jsonlines has no room
    for (POS, parse bits...), never those columns nor a metadata loss."""
    corpus = corefio.read(CORPORA / "litbank/coref/conll/11_alices_adventures_in_wonderland_brat.conll")
    doc = corpus.documents[0]
    assert doc.metadata == {}
    assert not {"document_id", "part_number", "word_number"} & set(doc.tokens.attributes)
    assert not any(name.startswith("layout") for name in doc.tokens.attributes)
    report = Report()
    corefio.dumps(corpus, "jsonlines", report=report)
    assert "loss.metadata" not in report.codes()
    (tokens,) = report.by_code("loss.token-attributes")
    assert not any(column in example for example in tokens.examples
                   for column in ("document_id", "part_number", "word_number"))
    # CoNLL to CoNLL loses nothing at all
    report = Report()
    corefio.dumps(corpus, "conll", report=report, strict=True)
    assert [d for d in report if d.code.startswith("loss.")] == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(CORPORA)))
def test_same_format_conversion_reports_no_loss(path: Path):
    """Writing a document back in its own format loses nothing, so strict mode accepts it."""
    fmt = corefio.formats.registry.detect_format(path).name
    report = Report()
    corefio.dumps(corefio.read(path), fmt, report=report, strict=True)
    assert [d for d in report if d.severity != "info"] == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(CORPORA)))
def test_streamed_documents_are_the_read_ones(path: Path):
    assert list(corefio.iter_read(path)) == corefio.read(path).documents


def test_corefud_heads_are_markable_heads():
    """A CoNLL-U file has markable heads exactly when it declares a head field (the GUM
    files declare none); a head value never stays a plain attribute."""
    for path in sorted((CORPORA / "gum").rglob("*.conllu")):
        doc = corefio.read(path).documents[0]
        fields = doc.layout["conllu"].fields or []
        assert ("head" in fields) == any(m.head is not None for m in doc.markables), path
        assert not any("head" in m.attributes for m in doc.markables if m.head is not None)


#: MMAX2 projects: the repository's, and PCC from the shared data (licence keeps it out)
MMAX2_PROJECTS = [pytest.param(lambda: CORPORA / "gum-mmax2" / "gum multi-level, mmax2", id="gum-mmax2"),
                  pytest.param(lambda: shared_data("corpora/pcc-mmax2/coreference"), id="pcc-mmax2")]


def _canonical(path: Path) -> str:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    return etree.canonicalize(etree.tostring(etree.parse(str(path), parser), encoding="unicode"), strip_text=True)


@pytest.mark.parametrize("where", MMAX2_PROJECTS)
def test_mmax2_projects_read_validate_and_are_written_back_file_by_file(where, tmp_path: Path):
    """Read, validated without errors, written back: the same files, equal after XML
    canonicalisation (white space between elements aside), and read back equal."""
    project = where()
    corpus = corefio.read(project)
    assert corpus.documents and all(d.markables for d in corpus.documents)
    assert validate_file(project).errors == []
    out = tmp_path / "again"
    corefio.write(corpus, out, "mmax2")
    assert corefio.read(out).documents == corpus.documents
    names = sorted(p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file())
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == names
    for name in names:
        if name.endswith((".xml", ".mmax")):
            assert _canonical(out / name) == _canonical(project / name), name
        else:
            assert (out / name).read_bytes() == (project / name).read_bytes(), name


def test_the_multi_level_project_keeps_its_levels_and_names():
    """Spaces and commas in file names; a level outside coreference stays a layer; the
    sentence level becomes the sentences; bridging pointers become bridging links."""
    corpus = corefio.read(CORPORA / "gum-mmax2" / "gum multi-level, mmax2")
    assert [d.name for d in corpus.documents] == ["GUM bio, hadid", "GUM news, stampede", "GUM voyage, coron"]
    news = corpus.documents[1]
    assert {m.layer for m in news.markables} == {None, "named"}
    assert len(news.sentences) == 11 and len(news.chains()) == 49
    assert sum(link.type == "bridging" for link in news.links) == 5


@pytest.mark.parametrize(("folder", "needs"), [("litbank-jsonlines", "litbank-more"), ("gum-mmax2", "gum-genres")])
def test_derived_data_is_what_its_script_writes(folder: str, needs: str, tmp_path: Path):
    """The derived corpora are reproducible: their derive.py, run on the copied sources,
    writes the same files byte for byte."""
    (tmp_path / needs).symlink_to(CORPORA / needs)
    work = tmp_path / folder
    work.mkdir()
    subprocess.run([sys.executable, str(CORPORA / folder / "derive.py")], cwd=work, check=True,
                   capture_output=True)
    made = sorted(p.relative_to(work) for p in work.rglob("*") if p.is_file())
    assert made
    for name in made:
        assert (work / name).read_bytes() == (CORPORA / folder / name).read_bytes(), name
