"""MMAX2 projects: reading every level, writing a project back, malformed and hostile input."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from xml.etree.ElementTree import canonicalize

import pytest
from hypothesis import HealthCheck, assume, given, settings

import corefio
import corefio.formats.mmax2  # noqa: F401  (registers the format)
from corefio.diagnostics import Report
from corefio.errors import FormatError, StrictModeError, UnsafeInputError, UsageError
from corefio.formats.losses import project, uses
from corefio.model import Corpus, Document, Link, Markable, Sentence, Tokens

from .conftest import DATA, shared_data
from .test_roundtrip import NOT_PROJECTABLE, documents
from .test_roundtrip import content as _content

WORSHIP = DATA / "mmax2" / "worship"


# -- helpers -------------------------------------------------------------------------------
def content(doc: Document) -> dict:
    """The round-trip content of tests/test_roundtrip.py, for documents with several layers
    (the default layer is spelt "" so that layers sort)."""
    markables = doc.markables
    if any(m.layer is not None for m in markables):
        rename = {m.ref: f"~{m.layer}~{m.id}" for m in markables if m.layer is not None}
        markables = [m.copy(id=rename.get(m.ref, m.id), layer=None) for m in markables]
        links = [link.copy(source=rename.get(link.source, link.source),
                           targets=tuple(rename.get(t, t) for t in link.targets))
                 for link in doc.links]
        doc = doc.copy(markables=markables, links=links)
        out = _content(doc)
        out["layers"] = sorted((m.id.split("~")[1] if m.id.startswith("~") else "", m.spans) for m in markables)
        return out
    return _content(doc)


def write_project(corpus: Corpus | Document, directory: Path, report: Report | None = None, **options) -> Path:
    files = corefio.dump_files(corpus, "mmax2", report=report if report is not None else Report(), **options)
    for rel, data in files.items():
        path = directory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return directory


def canonical(data: bytes) -> str:
    """XML canonical form, attribute order (c14n sorts) and whitespace-only text aside."""
    return canonicalize(from_file=io.BytesIO(data), strip_text=True, with_comments=False)


def project_files(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in directory.rglob("*") if p.is_file()}


def assert_same_project(source: Path, written: dict[str, bytes]) -> None:
    original = project_files(source)
    assert sorted(written) == sorted(original)
    for rel, data in original.items():
        if rel.endswith(".xml") or rel.endswith(".mmax") or rel.endswith(".xsl"):
            assert canonical(written[rel]) == canonical(data), rel
        else:
            assert written[rel] == data, rel


def copy_worship(tmp_path: Path) -> Path:
    target = tmp_path / "worship"
    shutil.copytree(WORSHIP, target)
    return target


def edit(path: Path, old: str, new: str, encoding: str = "utf-8") -> None:
    data = path.read_bytes().decode(encoding)
    assert old in data, old
    path.write_bytes(data.replace(old, new, 1).encode(encoding))


def perfect(key, response) -> None:
    """``response`` scores against ``key`` as ``key`` itself does: every count equal. (Not
    always 100%: a span listed twice in the key, as 'worship' has one, keeps a response equal
    to the key below 100 under scorer.pl's rule, the default.)"""
    metrics = ["mentions", "muc", "bcub", "ceafe", "lea"]
    scores = corefio.score(key, response, metrics=metrics)
    itself = corefio.score(key, key, metrics=metrics)
    for name, s in scores.corpus.items():
        i = itself.corpus[name]
        assert (s.recall_num, s.recall_den, s.precision_num, s.precision_den) == \
            (i.recall_num, i.recall_den, i.precision_num, i.precision_den), name


# -- reading ---------------------------------------------------------------------------------
def test_reads_every_level_with_sets_pointers_and_schemes():
    report = Report()
    corpus = corefio.read(WORSHIP, report=report)
    assert [d.name for d in corpus.documents] == ["worship", "worship_b"]
    doc = corpus.documents[0]
    assert doc.tokens.ids[:2] == ["w0", "w1"] and doc.tokens.attributes["pos"][:3] == ["JJ", "NN", "VBZ"]
    assert doc.tokens.attributes["pos"][4] is None
    assert corpus.documents[1].tokens.ids is None  # word_1 … word_n: the default ids
    # the sentence level tiles the words: it becomes the sentences (file order was 5001, 5000, 5002)
    assert [(s.first, s.last, s.id) for s in doc.sentences] == [(0, 9, "markable_5000"), (10, 15, "markable_5001"),
                                                                 (16, 36, "markable_5002")]
    assert doc.layers() == [None, "np"]
    by_ref = {m.ref: m for m in doc.markables}
    assert by_ref["markable_1"].entity == by_ref["markable_8"].entity == "set_1"
    assert by_ref["markable_6"].spans == ((12, 15),)  # adjacent words written with commas
    assert by_ref["markable_13"].spans == ((3, 3), (5, 7))  # discontinuous
    assert by_ref["markable_11"].attributes["comment"] == "archéologie – religion"  # windows-1250 file
    assert by_ref["np:markable_100"].sets == {"group": "set_77"}
    links = {link.id: link for link in doc.links}
    bridging = links["markable_3#bridging"]
    assert (bridging.type, bridging.targets) == ("bridging", ("markable_4", "markable_11"))
    assert links["markable_12#bridging"].targets == ("np:markable_101",)  # pointer to another level
    ident = links["np:markable_100#dir_antecedent"]
    assert ident.is_identity and ident.targets == ("markable_10", "markable_11")  # one group of two targets
    chains = [sorted(m.ref for m in chain) for chain in doc.chains() if len(chain) > 1]
    assert ["markable_10", "markable_11", "np:markable_100"] in chains
    scheme = corpus.scheme(None)
    assert scheme.name == "coref"
    assert [(a.name, a.type, a.identity) for a in scheme.attributes][:3] == [
        ("Coref_Set", "markable_set", True), ("Entity_Type", "nominal_list", False),
        ("Bridging", "markable_pointer", False)]
    assert scheme.attribute("entity_type").values[-1].next == ("level_comment",)
    identity = report.by_code("mmax2.identity")
    assert identity and "coref:coref_set" in identity[0].message and "np:dir_antecedent" in identity[0].message
    assert report.by_code("mmax2.missing-file")  # worship_b has no np level file


def test_a_mmax_file_reads_one_document():
    corpus = corefio.read(WORSHIP / "worship_b.mmax")
    assert [d.name for d in corpus.documents] == ["worship_b"]


def test_identity_attribute_option_replaces_the_detection():
    corpus = corefio.read(WORSHIP, identity_attribute="coref:coref_set")
    doc = corpus.documents[0]
    link = next(link for link in doc.links if link.source == "np:markable_100")
    assert link.type == "dir_antecedent" and not link.is_identity
    corpus = corefio.read(WORSHIP, identity_attribute="none")
    doc = corpus.documents[0]
    assert all(m.entity is None for m in doc.markables) and not any(link.is_identity for link in doc.links)
    assert {m.layer for m in doc.markables} == {"coref", "np"}  # no level is the default layer then
    with pytest.raises(UsageError):
        corefio.read(WORSHIP, identity_attirbute="x")


def test_pcc_pointer_chains_and_oddities():
    path = shared_data("corpora/pcc-mmax2/coreference")
    report = Report()
    corpus = corefio.read(path, report=report)
    docs = {d.name: d for d in corpus.documents}
    small, big = docs["maz-10110"], docs["maz-11299"]
    assert sum(m.layer is None for m in small.markables) == 25
    assert sum(m.layer is None for m in big.markables) == 46
    assert sum(m.layer == "secmark" for m in big.markables) == 2
    identity = [link for link in big.links if link.is_identity]
    assert len(identity) == 17 and not small.links
    assert any(t.startswith("secmark:") for link in identity for t in link.targets)
    assert sum(m.is_discontinuous for m in small.markables) == 7
    assert corpus.scheme(None).name == "primmark"
    assert corpus.scheme(None).attribute("anaphor_antecedent").identity  # scheme says Anaphor_antecedent
    assert len(big.sentences) > 1 and big.sentences[0].first == 0
    assert not [d for d in report if d.severity != "info"]


# -- round trips -------------------------------------------------------------------------------
def test_worship_project_written_back_is_the_same(tmp_path):
    corpus = corefio.read(WORSHIP)
    assert_same_project(WORSHIP, corefio.dump_files(corpus, "mmax2"))


def test_pcc_project_written_back_is_the_same():
    path = shared_data("corpora/pcc-mmax2/coreference")
    corpus = corefio.read(path)
    assert_same_project(path, corefio.dump_files(corpus, "mmax2"))


def test_a_generated_project_is_complete_and_reads_back(tmp_path):
    doc = Document(
        name="bc/cctv/00/cctv_0001", part="000",
        tokens=Tokens(forms=["Anna", "saw", "her", "dog", "&", "<it>", "."], attributes={"pos": ["NNP", "VBD", None,
                                                                                            "NN", "CC", "X", "."]}),
        sentences=[Sentence(first=0, last=3), Sentence(first=4, last=6)],
        markables=[Markable(id="m1", spans=((0, 0),), entity="person-1", attributes={"type": "name"}),
                   Markable(id="m2", spans=((2, 2),), entity="person-1"),
                   Markable(id="m3", spans=((2, 3),), sets={"group": "g1"}),
                   Markable(id="m4", spans=((5, 5),)),
                   Markable(id="n1", spans=((0, 0), (2, 3)), layer="np")],
        links=[Link(id="l1", source="m4", targets=("m3",), type="coreference"),
               Link(id="l2", source="np:n1", targets=("m1", "m2"), type="bridging")])
    out = write_project(doc, tmp_path / "p")
    names = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    stem = "bc_cctv_00_cctv_0001"
    assert f"{stem}.mmax" in names and "common_paths.xml" in names
    assert f"Basedata/{stem}_words.xml" in names and "Basedata/words.dtd" in names
    for level in ("coref", "np", "sentence"):
        assert f"Markables/{stem}_{level}_level.xml" in names
        assert f"Schemes/{level}_scheme.xml" in names and f"Customizations/{level}_customization.xml" in names
    assert "Styles/default_style.xsl" in names
    back = corefio.read(out).documents[0]
    assert (back.name, back.part) == (doc.name, doc.part)
    assert content(back) == content(doc)
    # the bridging link from the np layer keeps its two targets as one group
    assert [(link.source, link.targets) for link in back.links if link.type == "bridging"] == [("np:n1", ("m1", "m2"))]


@pytest.mark.parametrize("chains", ["sets", "pointers"])
def test_chains_as_sets_or_pointers(tmp_path, chains):
    corpus = corefio.read(WORSHIP)
    report = Report()
    out = write_project(corpus, tmp_path / chains, report, chains=chains)
    back = corefio.read(out)
    for a, b in zip(corpus.documents, back.documents):
        assert content(a)["chains"] == content(b)["chains"]
    identity = [link for b in back.documents for link in b.links if link.is_identity]
    entities = [m.entity for b in back.documents for m in b.markables if m.entity is not None]
    if chains == "sets":
        assert not identity and entities
    else:
        assert identity and not entities
    assert ("loss.link-structure" in report.codes()) == (chains == "sets")


def test_several_documents_share_one_common_paths(tmp_path):
    docs = [Document(name=f"d{k}", tokens=Tokens(forms=["x", "y", "z"]),
                     markables=[Markable(id="a", spans=((0, 0),), entity="1"),
                                Markable(id="b", spans=((2, 2),), entity="1")]) for k in range(3)]
    out = write_project(Corpus(documents=docs), tmp_path / "p")
    assert sorted(p.name for p in out.glob("*.mmax")) == ["d0.mmax", "d1.mmax", "d2.mmax"]
    assert len(list(out.glob("common_paths.xml"))) == 1
    back = corefio.read(out)
    assert [content(d)["chains"] for d in back.documents] == [content(d)["chains"] for d in docs]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(doc=documents())
def test_write_then_read_gives_the_projected_document(tmp_path_factory, doc):
    spec = corefio.get_format("mmax2")
    assume(not any(feature.name in NOT_PROJECTABLE for feature, _ in uses(doc, spec.capabilities)))
    out = write_project(doc, tmp_path_factory.mktemp("p"))
    back = corefio.read(out).documents[0]
    expected = content(project(doc, spec.capabilities))
    assert content(back) == expected
    # every chain as pointers: the same chains come back, as identity links only
    out = write_project(doc, tmp_path_factory.mktemp("q"), chains="pointers")
    back = corefio.read(out).documents[0]
    assert content(back)["chains"] == expected["chains"]
    assert all(m.entity is None for m in back.markables)


# -- conversions: chains unchanged -----------------------------------------------------------
GUM = DATA / "corpora" / "gum" / "coref"


@pytest.mark.parametrize("source", [GUM / "gum/conll/GUM_news_worship.conll",
                                    GUM / "ontogum/conllu/GUM_academic_art.conllu",
                                    GUM / "ontogum/conll/GUM_news_worship.conll"], ids=lambda p: p.suffix)
def test_other_formats_to_mmax2_and_back_score_100(tmp_path, source):
    key = corefio.read(source)
    out = write_project(key, tmp_path / "p")
    response = corefio.read(out)
    perfect(key, response)
    fmt = corefio.formats.registry.detect_format(source).name
    again = corefio.loads(corefio.dumps(response, fmt), fmt)
    perfect(key, again)


def projected(corpus: Corpus, fmt: str) -> Corpus:
    """``corpus`` as format ``fmt`` can hold it (other layers, discontinuity... removed)."""
    caps = corefio.get_format(fmt).capabilities
    return corpus.copy(documents=[project(d, caps) for d in corpus.documents])


def continuous_worship() -> Corpus:
    """The worship project without its discontinuous markable (which one-span formats
    cannot hold, so that chains could not be compared)."""
    corpus = corefio.read(WORSHIP)
    docs = []
    for d in corpus.documents:
        editor = d.edit()
        editor.remove_markables([m.ref for m in d.markables if m.is_discontinuous])
        docs.append(editor.commit(Report()))
    return corpus.copy(documents=docs)


@pytest.mark.parametrize("fmt", ["conll", "conllu", "jsonlines", "raf"])
def test_mmax2_to_other_formats_scores_100(fmt):
    key = continuous_worship()
    response = corefio.loads(corefio.dumps(key, fmt, report=Report()), fmt)
    perfect(projected(key, fmt), response)


@pytest.mark.parametrize("fmt", ["conll", "conllu", "jsonlines", "raf"])
def test_pcc_to_other_formats_scores_100(fmt):
    key = corefio.read(shared_data("corpora/pcc-mmax2/coreference"))
    response = corefio.loads(corefio.dumps(key, fmt, report=Report()), fmt)
    # a one-span format keeps the extent of PCC's discontinuous markables: compare with that
    perfect(projected(key, fmt), response)


# -- malformed input -------------------------------------------------------------------------------
def test_dangling_pointer_is_located_and_strict_refuses(tmp_path):
    p = copy_worship(tmp_path)
    level = p / "Markables/worship_coref_level.xml"
    edit(level, 'bridging="markable_4;markable_11"', 'bridging="markable_4;markable_99"', "cp1250")
    report = Report()
    doc = corefio.read(p, report=report).documents[0]
    found = report.by_code("mmax2.dangling-pointer")
    assert found and found[0].file.endswith("worship_coref_level.xml") and found[0].line == 7
    assert next(link for link in doc.links if link.source == "markable_3").targets == ("markable_4",)
    with pytest.raises(StrictModeError):
        corefio.read(p, strict=True)


def test_span_naming_a_word_commented_out_of_the_base_data(tmp_path):
    p = copy_worship(tmp_path)
    edit(p / "Basedata/worship_words.xml", '<word id="w13">27</word>', "<!-- <word id=\"w13\">27</word> -->",
         "cp1250")
    report = Report()
    doc = corefio.read(p, report=report).documents[0]
    problems = report.by_code("mmax2.span")
    assert problems and problems[0].line is not None and "'w13'" in problems[0].message
    m6 = next(m for m in doc.markables if m.id == "markable_6")
    assert m6.spans == ((12, 14),)  # w12, w14, w15: adjacent once w13 is gone
    with pytest.raises(StrictModeError):
        corefio.read(p, strict=True)


def test_range_ending_on_a_missing_word_drops_the_markable(tmp_path):
    p = copy_worship(tmp_path)
    edit(p / "Basedata/worship_words.xml", '<word id="w36">.</word>', "", "cp1250")
    report = Report()
    doc = corefio.read(p, report=report).documents[0]
    assert all(m.id != "markable_8" for m in doc.markables)
    assert any("markable_8" in d.message for d in report.by_code("mmax2.span"))


def test_duplicate_ids_are_located(tmp_path):
    p = copy_worship(tmp_path)
    edit(p / "Markables/worship_coref_level.xml", 'id="markable_2"', 'id="markable_1"', "cp1250")
    edit(p / "Basedata/worship_words.xml", '<word id="w5">', '<word id="w4">', "cp1250")
    report = Report()
    doc = corefio.read(p, report=report).documents[0]
    dup = report.by_code("mmax2.duplicate-id")
    assert dup and dup[0].line == 6
    assert [m.spans for m in doc.markables if m.id == "markable_1"] == [((0, 9),)]
    assert [m.spans for m in doc.markables if m.id == "markable_1_dup2"] == [((0, 1),)]  # kept, renamed
    words = report.by_code("mmax2.word-id")
    assert words and words[0].line == 9 and len(doc.tokens) == 37
    with pytest.raises(StrictModeError):
        corefio.read(p, strict=True)


def test_not_well_formed_level_file_is_repaired_and_reported(tmp_path):
    p = copy_worship(tmp_path)
    edit(p / "Markables/worship_np_level.xml", 'group="set_77"/>', 'group=set_77>', "utf-8-sig")
    report = Report()
    doc = corefio.read(p, report=report).documents[0]
    assert report.by_code("mmax2.repaired")
    assert any(m.ref == "np:markable_101" for m in doc.markables)
    with pytest.raises(FormatError) as err:
        corefio.read(p, strict=True)
    assert err.value.file.endswith("worship_np_level.xml") and err.value.line is not None


def test_missing_files_and_empty_directories(tmp_path):
    with pytest.raises(FormatError, match="no .mmax file"):
        corefio.read(tmp_path, "mmax2")
    p = copy_worship(tmp_path)
    (p / "Basedata/worship_b_words.xml").unlink()
    with pytest.raises(FormatError, match="base data"):
        corefio.read(p / "worship_b.mmax")
    with pytest.raises(FormatError, match="directory"):
        corefio.loads(b"<mmax_project/>", "mmax2")


def test_levels_from_the_mmax_file_when_common_paths_has_none(tmp_path):
    p = copy_worship(tmp_path)
    (p / "common_paths.xml").unlink()
    for sub in ("Basedata", "Markables"):
        for f in (p / sub).iterdir():
            f.rename(p / f.name)
    edit(p / "worship_b.mmax", "<keyactions/>",
         '<annotations><level name="coref">$_coref_level.xml</level></annotations><keyactions/>')
    report = Report()
    corpus = corefio.read(p / "worship_b.mmax", report=report, identity_attribute="none")
    assert report.by_code("mmax2.no-common-paths")
    assert len(corpus.documents[0].markables) == 4


# -- hostile XML -----------------------------------------------------------------------------------
def test_entity_declarations_are_refused(tmp_path):
    p = copy_worship(tmp_path)
    edit(p / "Basedata/worship_b_words.xml", '<!DOCTYPE words SYSTEM "words.dtd">',
         '<!DOCTYPE words [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>')
    edit(p / "Basedata/worship_b_words.xml", ">Prior<", ">&b;<")
    with pytest.raises(UnsafeInputError):
        corefio.read(p / "worship_b.mmax")


def test_external_dtd_and_entities_are_never_loaded(tmp_path):
    p = copy_worship(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    (p / "Basedata/evil.dtd").write_text(f'<!ENTITY leak SYSTEM "file://{secret}">')
    edit(p / "Basedata/worship_b_words.xml", '"words.dtd"', '"evil.dtd"')
    doc = corefio.read(p / "worship_b.mmax").documents[0]
    assert "TOP SECRET" not in "".join(doc.tokens.forms)
    # a word made of an entity the DTD would declare: refused, not read as an empty word
    # (reproducer R14_mmax2_undefined_entity_empty_word; tests/test_hardening_mmax2.py)
    edit(p / "Basedata/worship_b_words.xml", ">Prior<", ">&leak;<")
    with pytest.raises(UnsafeInputError, match="entity reference &leak; refused") as err:
        corefio.read(p / "worship_b.mmax")
    assert err.value.file == str(p / "Basedata/worship_b_words.xml") and err.value.line is not None


def test_fast_word_reading_agrees_with_the_element_walk(tmp_path, monkeypatch):
    from corefio.formats.mmax2 import reader

    doc = Document(name="d", tokens=Tokens(forms=["a", "b b", "é", ""], ids=["t0", "t1", "t2", "t3"],
                                           attributes={"pos": ["X", "Y", "Z", "W"], "lemma": ["a", "b", "e", "-"]}))
    out = write_project(doc, tmp_path / "p")
    calls = []
    real = reader._words_by_pattern
    monkeypatch.setattr(reader, "_words_by_pattern", lambda *a: calls.append(real(*a)) or calls[-1])
    fast = corefio.read(out).documents[0]
    assert calls and calls[0] is not None  # the pattern was used
    monkeypatch.setattr(reader, "_words_by_pattern", lambda *a: None)
    slow = corefio.read(out).documents[0]
    assert fast.tokens == slow.tokens == doc.tokens


def test_cli_info_and_score_take_a_mmax_file(cli):
    result = cli("info", WORSHIP / "worship.mmax")
    assert result.exit_code == 0
    assert "'worship': 37 tokens, 3 sentences, 15 markables (1 discontinuous)" in result.output
    result = cli("score", WORSHIP / "worship.mmax", WORSHIP / "worship.mmax", "-m", "muc", "--format", "scorer")
    # the span listed twice in the key ('worship', tokens 23..26) counted as scorer.pl counts it
    assert result.exit_code == 0 and "Coreference: Recall: (4 / 5) 80%" in result.output
    assert "score.duplicate-key-span" in result.output


def test_cli_takes_a_project_directory(cli, tmp_path):
    result = cli("info", WORSHIP)
    assert result.exit_code == 0 and "'worship_b'" in result.output
    result = cli("convert", GUM / "gum/conll/GUM_news_worship.conll", tmp_path / "project", "--to", "mmax2")
    assert result.exit_code == 0
    perfect(corefio.read(GUM / "gum/conll/GUM_news_worship.conll"), corefio.read(tmp_path / "project"))


def test_the_sample_project_is_what_the_writer_writes():
    source = DATA / "corpora/gum/coref/gum/conll/GUM_news_worship.conll"
    sample = Path(__file__).resolve().parents[1] / "samples/mmax2/gum_news_worship"
    assert corefio.dump_files(corefio.read(source), "mmax2") == project_files(sample)
    perfect(corefio.read(source), corefio.read(sample))


def test_unknown_elements_are_reported_not_dropped_silently(tmp_path):
    p = copy_worship(tmp_path)
    edit(p / "Markables/worship_b_coref_level.xml", "</markables>", "<note>checked</note>\n</markables>")
    edit(p / "Basedata/worship_b_words.xml", "</words>", "<pause/>\n</words>")
    report = Report()
    corefio.read(p / "worship_b.mmax", report=report)
    found = {(d.file.rsplit("/", 1)[-1], d.line) for d in report.by_code("mmax2.unknown-element")}
    assert found == {("worship_b_coref_level.xml", 8), ("worship_b_words.xml", 27)}


def test_document_names_with_spaces(tmp_path):
    p = copy_worship(tmp_path)
    (p / "worship_b.mmax").rename(p / "worship b.mmax")
    for level in ("coref", "sentence"):
        (p / f"Markables/worship_b_{level}_level.xml").rename(p / f"Markables/worship b_{level}_level.xml")
    doc = corefio.read(p / "worship b.mmax").documents[0]
    assert doc.name == "worship b" and len(doc.markables) == 4
    written = corefio.dump_files(corefio.read(p), "mmax2")
    assert "Markables/worship b_coref_level.xml" in written and "worship b.mmax" in written


def test_scheme_attribute_names_markables_cannot_carry(tmp_path):
    """A scheme attribute whose name no markable can carry (after a repair, say) is
    ignored with a warning; the writer never writes such a name (found by the fuzzer)."""
    p = copy_worship(tmp_path)
    edit(p / "Schemes/coref_scheme.xml", '<attribute id="level_coref_set"',
         '<attribute id="level_bad" name="coref&lt;set" type="markable_set"><value id="v" name=""/></attribute>\n'
         '<attribute id="level_coref_set"')
    report = Report()
    corpus = corefio.read(p, report=report)
    warned = report.by_code("mmax2.scheme")
    assert warned and "'coref<set'" in warned[0].message and warned[0].file.endswith("coref_scheme.xml")
    assert all(a.name != "coref<set" for a in corpus.scheme(None).attributes)
    out = tmp_path / "out"
    corefio.write(corpus, out, "mmax2")
    again = corefio.read(out)
    assert [content(d) for d in again.documents] == [content(d) for d in corpus.documents]


def test_set_names_that_are_not_xml_names_are_reported_losses():
    doc = Document(name="d", tokens=Tokens(forms=["a", "b"]),
                   markables=[Markable(id="m1", spans=((0, 0),), entity="e", sets={"bad name": "s1"}),
                              Markable(id="m2", spans=((1, 1),), entity="e", sets={"bad name": "s1"})])
    report = Report()
    files = corefio.dump_files(doc, "mmax2", report=report)
    assert any(d.code == "loss.label" and "bad name" in str(d.examples) for d in report)
    assert not any(b"bad name" in data for name, data in files.items() if name.startswith("Markables/"))
