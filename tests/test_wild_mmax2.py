"""Real MMAX2 projects, counted by an independent reader and by corefio's three engines.

pyMMAX2 (the MMAX2 authors' Python API) is not on PyPI, so the judge is the small counter
below: it finds the documents, the common paths file (a project's own, or a collection's
shared one), the levels, schemes, words and markables with plain ``os.path`` joins and
lxml XPath, without any corefio code, and counts per document the words, the markables
of each level, the pointers (a markable's pointer attribute naming at least one markable
that exists), the identity sets and the other sets. corefio's Python reader and its XSLT
engine under lxml and under xsltproc must give the same counts.

The projects: the Potsdam Commentary Corpus sample (CC BY-NC-SA, read from ../shared:
licensed data kept out of the repository), the repository's own MMAX2 sample and test
project, three GUM documents as a three-level project (tests/data/corpora/gum-mmax2), and
the test project laid out as an MMAX2-Showcase collection (documents in
subdirectories, ``common_files/global_common_paths.xml`` with ``../../`` paths). No real
MMAX2 project whose licence allows copying it here was found: tests/data/wild/mmax2/
README.md lists what was looked at (the family's manifest is empty).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from lxml import etree

import corefio
import corefio.formats.mmax2  # noqa: F401  (registers the format)
from corefio.transform import engine as xslt_engine

from .conftest import DATA, SAMPLES, shared_data
from .test_mmax2_collections import collection
from .test_xslt_engine import need

PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
FAMILY = Path(__file__).resolve().parent / "data" / "wild" / "mmax2"
IDENTITY = {"ref", "anaphor_antecedent", "dir_antecedent", "antecedent", "coref_set", "coref_class",
            "coref_chain", "coreference", "identity", "ident"}
SENTENCE_LEVELS = {"sentence", "sentences", "s"}
#: the key of the identity level's markables (corefio's default layer)
DEFAULT = "<identity level>"


# -- the judge -----------------------------------------------------------------------------------------
@dataclass
class Counts:
    words: int = 0
    #: level → markables (the sentence level aside; the identity level is DEFAULT)
    markables: Counter = field(default_factory=Counter)
    sentence_markables: int = 0
    pointers: int = 0
    identity_sets: int = 0
    other_sets: int = 0


def _xml(path: str):
    return etree.parse(path, PARSER).getroot()


def _text(root, tag: str) -> str:
    found = root.find(tag)
    return (found.text or "").strip().replace("\\", "/") if found is not None else ""


def judge(directory: str) -> dict[str, Counts]:
    """Document stem → counts, for the project or collection in ``directory``."""
    mmax_files = sorted(os.path.join(d, f) for d, _, files in os.walk(directory) for f in files if f.endswith(".mmax"))
    shared = [os.path.join(d, f) for d, _, files in os.walk(directory) for f in files
              if f.endswith("common_paths.xml") and not any(g.endswith(".mmax") for g in os.listdir(d))]
    out = {}
    for mmax in mmax_files:
        home = os.path.dirname(mmax)
        own = os.path.join(home, "common_paths.xml")
        common = _xml(own) if os.path.exists(own) else _xml(shared[0]) if shared else None
        paths = {key: _text(common, key) if common is not None else "" for key in
                 ("basedata_path", "scheme_path", "markable_path")}
        project = _xml(mmax)
        levels = (common.findall("annotations/level") if common is not None else []) or \
            project.findall("annotations/level")
        stem = os.path.basename(mmax)[: -len(".mmax")]
        counts = Counts()
        words_name = _text(project, "words")
        words = os.path.join(home, paths["basedata_path"], words_name)
        if not os.path.exists(words):
            words = os.path.join(home, words_name)
        counts.words = len(_xml(words).findall(".//word"))
        types = {}
        for level in levels:
            scheme = os.path.join(home, paths["scheme_path"], level.get("schemefile") or "-")
            if os.path.isfile(scheme):
                for attribute in _xml(scheme).iter("attribute"):
                    types[(level.get("name"), attribute.get("name", "").lower())] = (attribute.get("type") or "").lower()
        identity_levels = [lv.get("name") for lv in levels if any(
            lvl == lv.get("name") and kind in ("markable_set", "markable_pointer") and (name in IDENTITY or "coref" in name)
            for (lvl, name), kind in types.items())]
        named_coref = [lv for lv in identity_levels if "coref" in lv.lower()]
        identity_level = (named_coref or identity_levels or [None])[0]
        ids: dict[str, set[str]] = {}
        rows = []
        for level in levels:
            name = level.get("name")
            file = os.path.join(home, paths["markable_path"], level.text.strip().replace("$", stem))
            if not os.path.isfile(file):
                continue
            markables = [m for m in _xml(file) if isinstance(m.tag, str) and m.tag.endswith("markable")
                         and m.get("id") and m.get("span")]
            ids[name] = {m.get("id") for m in markables}
            relations = [a for (lvl, a), kind in types.items() if lvl == name and kind.startswith("markable_")]
            if name.lower() in SENTENCE_LEVELS and not relations and name not in identity_levels:
                counts.sentence_markables = len(markables)
                continue
            if markables:
                counts.markables[DEFAULT if name == identity_level else name] = len(markables)
            rows += [(name, m) for m in markables]
        identity_values, other_values = set(), set()
        for level, m in rows:
            for attribute, value in m.items():
                low = attribute.lower()
                kind = types.get((level, low))
                if not value or value.lower() == "empty":
                    continue
                if kind == "markable_set":
                    if low in IDENTITY or "coref" in low:
                        identity_values.add(value)
                    else:
                        other_values.add((low, value))
                elif kind == "markable_pointer":
                    named = [part.split(":", 1) if ":" in part else (level, part) for part in value.split(";") if part]
                    if any(target in ids.get(lvl, ()) for lvl, target in named):
                        counts.pointers += 1
        counts.identity_sets, counts.other_sets = len(identity_values), len(other_values)
        out[stem] = counts
    return out


# -- corefio's counts ----------------------------------------------------------------------------------
def corefio_counts(corpus) -> dict[str, Counts]:
    out = {}
    for doc in corpus.documents:
        layout = doc.layout.get("mmax2")
        stem = layout.stem if layout is not None else doc.name.rsplit("/", 1)[-1]
        counts = Counts(words=len(doc.tokens.forms))
        counts.markables = Counter(DEFAULT if m.layer is None else m.layer for m in doc.markables)
        counts.sentence_markables = sum(1 for s in doc.sentences if s.id is not None)
        counts.pointers = len(doc.links)
        counts.identity_sets = len({m.entity for m in doc.markables if m.entity is not None})
        counts.other_sets = len({(k.lower(), v) for m in doc.markables for k, v in m.sets.items()})
        out[stem] = counts
    return out


def read_with(engine: str, path: Path):
    if engine == "python":
        return corefio.read(path, "mmax2")
    need(engine)
    return xslt_engine.read(path, "mmax2", processor=engine)


PROJECTS = {
    "pcc": lambda tmp: shared_data("corpora/pcc-mmax2/coreference"),
    "sample": lambda tmp: SAMPLES / "mmax2" / "gum_news_worship",
    "worship": lambda tmp: DATA / "mmax2" / "worship",
    "gum three levels": lambda tmp: DATA / "corpora" / "gum-mmax2" / "gum multi-level, mmax2",
    "collection": lambda tmp: collection(tmp / "coll"),
}


@pytest.mark.parametrize("engine", ["python", "lxml", "xsltproc"])
@pytest.mark.parametrize("name", list(PROJECTS))
def test_corefio_counts_what_the_independent_counter_counts(tmp_path, name, engine):
    path = PROJECTS[name](tmp_path)
    expected = judge(str(path))
    got = corefio_counts(read_with(engine, path))
    assert sorted(got) == sorted(expected)
    for stem, counts in expected.items():
        assert got[stem] == counts, (name, engine, stem)
    assert sum(c.words for c in expected.values()) > 0 and sum(sum(c.markables.values()) for c in expected.values())


def test_the_counter_counts_what_it_should(tmp_path):
    """The judge itself, on a project whose counts are known by construction."""
    from .test_mmax2_levels import build_project

    project = build_project(tmp_path / "p", {
        "coref": [("m1", "word_1", {"coref_set": "set_1"}), ("m2", "word_2", {"coref_set": "set_1"}),
                  ("m3", "word_4", {"coref_set": "set_2", "bridge": "m1"}),
                  ("m4", "word_5", {"coref_set": "empty", "bridge": "m9"})],
        "sentence": [("s1", "word_1..word_5", {}), ("s2", "word_6..word_10", {})]},
        schemes={"coref": [("coref_set", "markable_set"), ("bridge", "markable_pointer")]})
    counts = judge(str(project))["doc"]
    assert counts == Counts(words=10, markables=Counter({DEFAULT: 4}), sentence_markables=2, pointers=1,
                            identity_sets=2, other_sets=0)


def test_the_family_manifest_is_a_list():
    """tests/data/wild/mmax2/manifest.json: the real files copied here (none could be: see
    its README), in the shape the generic wild harness reads."""
    manifest = json.loads((FAMILY / "manifest.json").read_text(encoding="utf-8"))
    assert isinstance(manifest, list)
    for entry in manifest:
        assert {"path", "format", "repo", "commit", "source_path", "licence"} <= set(entry)
        assert (FAMILY / entry["path"]).exists()
    assert "MMAX2-Showcase" in (FAMILY / "README.md").read_text(encoding="utf-8")
