"""MMAX2 levels as real corpora write them (issue #18): repeated markable ids, sentence
levels that do not tile the words, file names with spaces and commas, pointers from one
level to another. Each test builds the smallest project that shows the case."""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import pytest

import corefio
import corefio.formats.mmax2  # noqa: F401  (registers the format)
from corefio.diagnostics import Report
from corefio.errors import StrictModeError

from .test_mmax2 import content

Markables = list[tuple[str, str, dict[str, str]]]


def build_project(directory: Path, levels: dict[str, Markables], *, words: list[str] | None = None,
                  stem: str = "doc", schemes: dict[str, list[tuple[str, str]]] | None = None) -> Path:
    """A project of one document ``stem``: the words (``word_1``…), one level file per entry
    of ``levels`` (markables as ``(id, span, attributes)``) and a scheme per level
    (``(attribute, type)``; default: ``coref_set`` on a level named ``coref``)."""
    words = words if words is not None else [f"w{k}" for k in range(1, 11)]
    schemes = schemes if schemes is not None else {"coref": [("coref_set", "markable_set")]}
    for sub in ("Basedata", "Markables", "Schemes", "Customizations", "Styles"):
        (directory / sub).mkdir(parents=True, exist_ok=True)
    entries = "".join(f'<level name="{name}" schemefile="{name}_scheme.xml" '
                      f'customization_file="{name}_customization.xml">$_{name}_level.xml</level>\n' for name in levels)
    (directory / "common_paths.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<common_paths>\n<basedata_path>Basedata/</basedata_path>\n'
        "<scheme_path>Schemes/</scheme_path>\n<style_path>Styles/</style_path>\n"
        "<customization_path>Customizations/</customization_path>\n<markable_path>Markables/</markable_path>\n"
        f"<annotations>\n{entries}</annotations>\n</common_paths>\n", encoding="utf-8")
    (directory / f"{stem}.mmax").write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<mmax_project>\n<words>{escape(stem)}_words.xml</words>\n'
        "</mmax_project>\n", encoding="utf-8")
    (directory / "Basedata" / f"{stem}_words.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<words>\n'
        + "".join(f'<word id="word_{k}">{escape(w)}</word>\n' for k, w in enumerate(words, 1)) + "</words>\n",
        encoding="utf-8")
    for name, markables in levels.items():
        lines = [f'<?xml version="1.0" encoding="UTF-8"?>\n<markables xmlns="www.eml.org/NameSpaces/{name}">\n']
        for mid, span, attrs in markables:
            extra = "".join(f" {k}={quoteattr(v)}" for k, v in attrs.items())
            lines.append(f'<markable id="{mid}" span="{span}" mmax_level="{name}"{extra}/>\n')
        lines.append("</markables>\n")
        (directory / "Markables" / f"{stem}_{name}_level.xml").write_text("".join(lines), encoding="utf-8")
        attributes = "".join(f'<attribute id="a_{a}" name="{a}" type="{t}"><value id="v_{a}" name=""/></attribute>\n'
                             for a, t in schemes.get(name, []))
        (directory / "Schemes" / f"{name}_scheme.xml").write_text(
            f'<?xml version="1.0" encoding="UTF-8"?>\n<annotationscheme>\n{attributes}</annotationscheme>\n',
            encoding="utf-8")
        (directory / "Customizations" / f"{name}_customization.xml").write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n<customization>\n</customization>\n', encoding="utf-8")
    return directory


def written_back(corpus, tmp_path: Path) -> Path:
    out = tmp_path / "written"
    corefio.write(corpus, out, "mmax2")
    return out


# -- repeated markable ids -------------------------------------------------------------------------
def test_a_repeated_id_is_renamed_and_both_markables_stay(tmp_path):
    project = build_project(tmp_path / "p", {"coref": [
        ("markable_1", "word_1", {"coref_set": "set_1"}),
        ("markable_2", "word_3", {"coref_set": "set_1"}),
        ("markable_1", "word_5..word_6", {"coref_set": "set_1"}),  # WikiCoref has such repeats
        ("markable_3", "word_8", {"coref_set": "set_2"}),
        ("markable_3", "word_9", {"coref_set": "set_2"}),
    ]})
    report = Report()
    doc = corefio.read(project, report=report).documents[0]
    assert [(m.id, m.spans) for m in doc.markables] == [
        ("markable_1", ((0, 0),)), ("markable_2", ((2, 2),)), ("markable_1_dup2", ((4, 5),)),
        ("markable_3", ((7, 7),)), ("markable_3_dup2", ((8, 8),))]
    chains = sorted(sorted(m.id for m in chain) for chain in doc.chains())
    assert chains == [["markable_1", "markable_1_dup2", "markable_2"], ["markable_3", "markable_3_dup2"]]
    found = report.by_code("mmax2.duplicate-id")
    assert [(d.line, d.severity) for d in found] == [(5, "warning"), (7, "warning")]
    assert found[0].file.endswith("doc_coref_level.xml")
    assert "'markable_1'" in found[0].message and "'markable_1_dup2'" in found[0].message
    with pytest.raises(StrictModeError):
        corefio.read(project, strict=True)


def test_a_renamed_id_avoids_ids_the_level_has_and_pointers_name_the_first(tmp_path):
    project = build_project(tmp_path / "p", {"coref": [
        ("m", "word_1", {}),
        ("m_dup2", "word_2", {}),
        ("m", "word_3", {}),  # m_dup2 and m_dup3 (below) are taken: m_dup4
        ("m", "word_4", {"ref": "m"}),  # m_dup5, pointing to the first m
        ("m_dup3", "word_5", {}),  # an id further down the file counts too
    ]}, schemes={"coref": [("ref", "markable_pointer")]})
    report = Report()
    doc = corefio.read(project, report=report).documents[0]
    ids = [m.id for m in doc.markables]
    assert ids == ["m", "m_dup2", "m_dup4", "m_dup5", "m_dup3"]
    assert [(link.source, link.targets) for link in doc.links] == [("m_dup5", ("m",))]
    assert len(report.by_code("mmax2.duplicate-id")) == 2


def test_repeated_ids_round_trip_under_their_new_names(tmp_path):
    project = build_project(tmp_path / "p", {"coref": [
        ("markable_1", "word_1", {"coref_set": "set_1"}),
        ("markable_1", "word_2", {"coref_set": "set_1"}),
    ]})
    corpus = corefio.read(project)
    again = corefio.read(written_back(corpus, tmp_path))
    assert [m.id for m in again.documents[0].markables] == ["markable_1", "markable_1_dup2"]
    assert content(again.documents[0]) == content(corpus.documents[0])


# -- file names with spaces and commas -------------------------------------------------------------
STEM = "Jarvis Island, Pacific (atoll)"  # WikiCoref names its documents after the articles


def test_file_names_with_spaces_and_commas_read_and_write(cli, tmp_path):
    project = build_project(tmp_path / "p", {
        "coref": [("markable_1", "word_1", {"coref_set": "set_1"}), ("markable_2", "word_3..word_4",
                                                                     {"coref_set": "set_1"})],
        "sentence": [("markable_3", "word_1..word_5", {}), ("markable_4", "word_6..word_10", {})]}, stem=STEM)
    for source in (project, project / f"{STEM}.mmax"):
        report = Report()
        doc = corefio.read(source, report=report).documents[0]
        assert doc.name == STEM and len(doc.markables) == 2 and len(doc.sentences) == 2
        assert not report.warnings
    corpus = corefio.read(project)
    files = corefio.dump_files(corpus, "mmax2")
    for rel in (f"{STEM}.mmax", f"Basedata/{STEM}_words.xml", f"Markables/{STEM}_coref_level.xml",
                f"Markables/{STEM}_sentence_level.xml"):
        assert rel in files, rel
    assert files[f"{STEM}.mmax"] == (project / f"{STEM}.mmax").read_bytes()
    out = written_back(corpus, tmp_path)
    back = corefio.read(out / f"{STEM}.mmax").documents[0]
    assert back.name == STEM and content(back) == content(corpus.documents[0])
    result = cli("info", project / f"{STEM}.mmax")
    assert result.exit_code == 0 and f"'{STEM}'" in result.output
    result = cli("convert", project, tmp_path / "cli out", "--to", "mmax2", "--strict")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "cli out" / f"{STEM}.mmax").is_file()


def test_a_document_named_with_spaces_and_commas_becomes_such_files(tmp_path):
    from corefio.model import Document, Markable, Tokens

    doc = Document(name="Jarvis Island, 2", tokens=Tokens(forms=["It", "is", "small", "."]),
                   markables=[Markable(id="m1", spans=((0, 0),), entity="e1"),
                              Markable(id="m2", spans=((2, 2),), entity="e1")])
    out = tmp_path / "out"
    corefio.write(doc, out, "mmax2")
    assert (out / "Jarvis Island, 2.mmax").is_file()
    assert (out / "Markables/Jarvis Island, 2_coref_level.xml").is_file()
    back = corefio.read(out).documents[0]
    assert back.name == "Jarvis Island, 2" and content(back) == content(doc)


# -- names a file name cannot hold (a "/" in an OntoNotes name) ----------------------------------------
@pytest.mark.parametrize("name, stem", [("bc/cctv/00/cctv_0001", "bc_cctv_00_cctv_0001"),
                                        ("wb/Jarvis Island", "wb_Jarvis Island"),
                                        ("50% #3: a?b", "50_ _3_ a_b"), (".hidden", "_hidden")])
def test_a_name_a_file_cannot_hold_becomes_a_clean_file_name(tmp_path, name, stem):
    """Before, "/" became "%2F" in the file names (``bc%2Fcctv…_words.xml``), which MMAX2
    and other tools reading the files through URIs take for a "/" again: the files
    were not found. Now such characters become "_", the .mmax file keeps the name, and
    the change is reported."""
    from corefio.model import Document, Markable, Tokens
    from corefio.transform import engine as xslt_engine

    doc = Document(name=name, tokens=Tokens(forms=["It", "is", "small", "."]),
                   markables=[Markable(id="m1", spans=((0, 0),), entity="e1"),
                              Markable(id="m2", spans=((2, 2),), entity="e1")])
    report = Report()
    out = tmp_path / "out"
    corefio.write(doc, out, "mmax2", report=report)
    renamed = report.by_code("mmax2.file-name")
    assert len(renamed) == 1 and renamed[0].severity == "info" and f"{stem}.mmax" in renamed[0].message
    names = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert f"{stem}.mmax" in names and f"Basedata/{stem}_words.xml" in names
    assert f"Markables/{stem}_coref_level.xml" in names
    assert not any(c in n for n in names for c in "%#:?")
    # what an MMAX2 tool reads: the .mmax names its words file, which is there
    assert f"<words>{stem}_words.xml</words>" in (out / f"{stem}.mmax").read_text(encoding="utf-8")
    back = corefio.read(out).documents[0]
    assert back.name == name and content(back) == content(doc)
    # the XSLT writer names the files alike
    xslt = xslt_engine.from_raf_files(corefio.dumps(doc, "raf"), "mmax2", report=(xr := Report()))
    assert f"{stem}.mmax" in xslt and f"Basedata/{stem}_words.xml" in xslt and xr.by_code("mmax2.file-name")


def test_a_clean_name_is_not_reported(tmp_path):
    from corefio.model import Document, Tokens

    report = Report()
    corefio.dump_files(Document(name="GUM_news_worship", tokens=Tokens(forms=["a"])), "mmax2", report=report)
    assert not report.by_code("mmax2.file-name")


# -- pointers from one level to another (PCC) ------------------------------------------------------
def cross_level_project(directory: Path, pointer: str = "secmark:markable_1000211") -> Path:
    return build_project(directory, {
        "primmark": [
            ("markable_1", "word_1", {"anaphor_antecedent": "empty"}),
            ("markable_2", "word_4", {"anaphor_antecedent": "markable_1"}),
            ("markable_3", "word_9", {"anaphor_antecedent": pointer}),
            ("markable_4", "word_10", {"anaphor_antecedent": "markable_3;secmark:markable_1000212"}),
        ],
        "secmark": [
            ("markable_1000211", "word_6..word_7", {"np_form": "ne"}),
            ("markable_1000212", "word_2", {"np_form": "pper"}),
        ],
        "sentence": [("markable_5", "word_1..word_5", {}), ("markable_6", "word_6..word_10", {})],
    }, schemes={"primmark": [("Anaphor_antecedent", "markable_pointer")], "secmark": [("np_form", "nominal_button")]})


def chain_spans(doc) -> list[list[tuple]]:
    return sorted(sorted(m.spans for m in chain) for chain in doc.chains() if len(chain) > 1)


def test_pointers_to_another_level_are_resolved(tmp_path):
    project = cross_level_project(tmp_path / "p")
    report = Report()
    corpus = corefio.read(project, report=report)
    doc = corpus.documents[0]
    assert corpus.scheme(None).name == "primmark"
    assert [m.ref for m in doc.markables if m.layer == "secmark"] == ["secmark:markable_1000211",
                                                                       "secmark:markable_1000212"]
    links = {link.source: link.targets for link in doc.links}
    assert links == {"markable_2": ("markable_1",), "markable_3": ("secmark:markable_1000211",),
                     "markable_4": ("markable_3", "secmark:markable_1000212")}
    assert all(link.is_identity for link in doc.links)
    assert chain_spans(doc) == [[((0, 0),), ((3, 3),)], [((1, 1),), ((5, 6),), ((8, 8),), ((9, 9),)]]
    assert not report.warnings
    # written back: the pointers as they were, the same chains
    files = corefio.dump_files(corpus, "mmax2")
    level = files["Markables/doc_primmark_level.xml"].decode()
    assert 'anaphor_antecedent="secmark:markable_1000211"' in level
    assert 'anaphor_antecedent="markable_3;secmark:markable_1000212"' in level
    back = corefio.read(written_back(corpus, tmp_path)).documents[0]
    assert chain_spans(back) == chain_spans(doc) and content(back) == content(doc)
    # a one-layer format keeps the chains (the secmark members move to its only layer)
    conll = corefio.loads(corefio.dumps(doc, "conll", report=Report()), "conll").documents[0]
    assert chain_spans(conll) == chain_spans(doc)


def test_level_prefixes_are_matched_without_case_and_dangling_ones_reported(tmp_path):
    doc = corefio.read(cross_level_project(tmp_path / "p", "SecMark:markable_1000211")).documents[0]
    assert ("markable_3", ("secmark:markable_1000211",)) in [(link.source, link.targets) for link in doc.links]
    report = Report()
    doc = corefio.read(cross_level_project(tmp_path / "q", "secmark:markable_9"), report=report).documents[0]
    dangling = report.by_code("mmax2.dangling-pointer")
    assert len(dangling) == 1 and dangling[0].line == 5 and "secmark:markable_9" in dangling[0].message
    assert all(link.source != "markable_3" for link in doc.links)
