"""Other tools judge what corefio writes (issue #18).

* **udapi** (ÚFAL's CoNLL-U library) reads every CoNLL-U file corefio writes from a real
  corpus, strictly, loads its coreference, and finds a head word in every mention and
  the entities and mentions corefio itself reads from the file.
* **udvalidate** (UD's validator, package ``udtools``) at ``--level 2 --coref``: the
  level that reads the CoNLL-U backbone, the metadata and the trees, and runs the
  coreference checks of the MISC column. Its incidents are compared by class:

  - from a CoNLL-U source, the output may have no incident the source has not (GUM's own
    extended ``global.Entity`` declaration already fails the validator);
  - from another format, the classes corefio answers for must be clean: FORMAT (the
    CoNLL-U backbone), METADATA (``sent_id``, ``text``) and COREF (``Entity``,
    ``Bridge``, ``SplitAnte``). MORPHO and SYNTAX judge the linguistic columns, which
    corefio copies from the source or leaves empty (``_`` is no UPOS): not its to
    answer for. The validator stops before its coreference checks in a sentence
    without a dependency tree, so for sources without one, the copy given to it has a
    placeholder tree (word 1 the root, the others its dependents).
* **scorch** (a Python implementation of the CoNLL-2012 metrics) reads the CoNLL
  corefio writes, and scores the CoNLL corefio writes through CoNLL-U against the CoNLL
  it writes directly: 100 for MUC, B³ and both CEAFs. On the reference scorer's test
  cases its values are corefio's: corefio's come from exact fractions, scorch sums
  floats, so the two may differ in the last bit or two of a float (they agree to 12
  significant digits and to the last digit of the reference scorer's percentages).
"""

from __future__ import annotations

import functools
import json
import logging
import math
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import scorch.conll as scorch_conll
import scorch.scores as scorch_scores
import udapi

import corefio
from corefio.diagnostics import Report

from .conftest import DATA, shared_data

#: the real corpora of the repository (readable formats), and an MMAX2 project
REPO_SOURCES = sorted(p for p in (DATA / "corpora").rglob("*")
                      if p.suffix in (".conll", ".conllu", ".jsonlines")) + [DATA / "mmax2" / "worship"]
#: licensed data kept out of the repository (../shared; skipped elsewhere, required in CI)
SHARED_SOURCES = ["corpora/pcc-mmax2/coreference"]
#: each source's language, for the validator
LANGUAGES = {"democrat": "fr", "pcc-mmax2": "de"}

#: incident classes corefio answers for in a file written from another format
OWN_CLASSES = {"FORMAT", "METADATA", "COREF"}
INCIDENT = re.compile(r"\[L(\d) ([A-Z]+) ([\w-]+)\]")


def _id(source: Path | str) -> str:
    return str(source).split("corpora/")[-1].split("data/")[-1]


SOURCES = [pytest.param(p, id=_id(p)) for p in REPO_SOURCES] + \
    [pytest.param(name, id=_id(name)) for name in SHARED_SOURCES]


def _first_of_each_kind(paths: list[Path]) -> set[Path]:
    """The first source of each kind (file extension, or a directory): the ones the UD
    validator (a process per file) checks in the fast tier."""
    kinds: dict[str, Path] = {}
    for path in paths:
        kinds.setdefault(path.suffix or "directory", path)
    return set(kinds.values())


FAST_SOURCES = _first_of_each_kind(REPO_SOURCES)


def validated_sources(paths: list[Path | str]) -> list:
    """``paths`` as parameters: those of :data:`FAST_SOURCES` and the licensed data in the
    fast tier, the others marked slow (CI runs them)."""
    return [pytest.param(p, id=_id(p), marks=[] if p in FAST_SOURCES or isinstance(p, str) else [pytest.mark.slow])
            for p in paths]


def source_path(source: Path | str) -> Path:
    return source if isinstance(source, Path) else shared_data(source)


def language(source: Path) -> str:
    return next((lang for key, lang in LANGUAGES.items() if key in str(source)), "en")


@functools.cache
def source_errors(path: Path, lang: str) -> Counter:
    """:func:`udvalidate` of a source file (read only: checked once per worker)."""
    return udvalidate(path, lang)


def udvalidate(path: Path, lang: str) -> Counter:
    """The validator's errors (warnings left out) as (level, class, test id): count."""
    program = Path(sys.executable).parent / "udvalidate"
    result = subprocess.run([str(program), "--level", "2", "--coref", "--lang", lang, "--no-warnings",
                             "--max-err", "0", str(path)], capture_output=True, text=True, timeout=300)
    found = Counter(m.groups() for m in map(INCIDENT.search, (result.stdout + result.stderr).splitlines()) if m)
    assert found or result.returncode == 0, result.stdout + result.stderr  # a failure it did not explain
    return found


def with_placeholder_tree(text: str) -> str:
    """``text`` with a flat tree in the sentences that have none (see the module docstring)."""
    out = []
    for block in text.split("\n\n"):
        lines = block.split("\n")
        rows = [line.split("\t") for line in lines]
        words = [r for r in rows if len(r) == 10 and r[0].isdigit()]
        if words and all(r[6] == "_" for r in words):
            for r in words:
                r[6], r[7] = ("0", "root") if r[0] == "1" else ("1", "dep")
        out.append("\n".join("\t".join(r) for r in rows))
    return "\n\n".join(out)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """source -> (corpus read from it, path of the CoNLL-U corefio wrote, its report)."""
    cache: dict = {}

    def get(source: Path):
        if source not in cache:
            corpus = corefio.read(source)
            report = Report()
            path = tmp_path_factory.mktemp("conllu") / "out.conllu"
            path.write_text(corefio.dumps(corpus, "conllu", report=report), encoding="utf-8")
            cache[source] = (corpus, path, report)
        return cache[source]

    return get


@pytest.mark.parametrize("source", SOURCES)
def test_udapi_reads_every_mention_with_a_head(source, written, caplog):
    source = source_path(source)
    _, path, _ = written(source)
    with caplog.at_level(logging.WARNING):
        doc = udapi.Document(str(path))
        entities, mentions = doc.coref_entities, doc.coref_mentions  # strict loading: errors raise
    # udapi's coreference loader warns where it drops or alters a mention (its reader
    # also warns about words without a parent: sources without a tree have none)
    assert not [r.getMessage() for r in caplog.records if r.pathname.endswith("coref.py")]
    assert mentions and all(m.head is not None and m.head in m.words for m in mentions)
    back = corefio.read(path)
    assert len(entities) == sum(len(d.chain_indices()) for d in back.documents)
    assert len(mentions) == sum(len(d.markables) for d in back.documents)
    # the same mentions: (document order, first and last word) as udapi and corefio see them
    assert sorted((m.words[0].address(), m.words[-1].address(), len(m.words)) for m in mentions) == sorted(
        _address(d, m) for d in back.documents for m in d.markables)


def _address(doc, m) -> tuple[str, str, int]:
    """A mention as udapi addresses its words: sent_id#word id."""
    def address(t: int) -> str:
        s = next(s for s in doc.sentences if s.first <= t <= s.last)
        sid = next(c.split("=", 1)[1].strip() for c in s.comments if re.match(r"^#\s*sent_id\b", c))
        ids = doc.layout["conllu"].ids
        return f"{sid}#{ids[t] if ids else t - s.first + 1}"

    words = [t for a, b in m.spans for t in range(a, b + 1)]
    return address(words[0]), address(words[-1]), len(words)


@pytest.mark.parametrize("source", validated_sources(REPO_SOURCES + SHARED_SOURCES))
def test_ud_validator_finds_no_error_of_corefio(source, written, tmp_path):
    source = source_path(source)
    _, path, _ = written(source)
    lang = language(source)
    if source.suffix == ".conllu":
        new = udvalidate(path, lang) - source_errors(source, lang)
        assert not new, f"errors the source does not have: {dict(new)}"
        return
    copy = tmp_path / "with-tree.conllu"
    copy.write_text(with_placeholder_tree(path.read_text(encoding="utf-8")), encoding="utf-8")
    found = udvalidate(copy, lang)
    ours = {key: n for key, n in found.items() if key[1] in OWN_CLASSES}
    assert not ours, ours


CONLLU_SOURCES = validated_sources([p for p in REPO_SOURCES if p.suffix == ".conllu"])


@pytest.mark.parametrize("source", CONLLU_SOURCES)
def test_canonical_conllu_of_a_conllu_source_passes_the_validator(source, tmp_path, caplog):
    """Written canonically (without the source's layout), GUM's files get a declaration
    the validator accepts and heads from their trees: no error at all is left, where
    the sources fail on their declaration."""
    path = tmp_path / "canonical.conllu"
    report = Report()
    path.write_text(corefio.dumps(corefio.read(source), "conllu", report=report, canonical=True), encoding="utf-8")
    assert source_errors(source, "en")  # the source has its error
    assert not udvalidate(path, "en")
    with caplog.at_level(logging.WARNING):
        doc = udapi.Document(str(path))
        mentions = doc.coref_mentions
    assert not [r.getMessage() for r in caplog.records if r.pathname.endswith("coref.py")]
    back = corefio.read(path)
    assert len(mentions) == sum(len(d.markables) for d in back.documents) == \
        sum(len(d.markables) for d in corefio.read(source).documents)
    assert "conllu.head-computed" in report.codes()


def test_the_validator_sees_a_broken_entity_through_the_placeholder_tree(tmp_path):
    """The check above can fail: an opener without its closer is found."""
    text = ("# newdoc id = d\n# global.Entity = eid-etype-head-other\n# sent_id = d-1\n# text = a b\n"
            "1\ta\t_\t_\t_\t_\t_\t_\t_\tEntity=(e1--1\n2\tb\t_\t_\t_\t_\t_\t_\t_\t_\n\n")
    path = tmp_path / "broken.conllu"
    path.write_text(with_placeholder_tree(text), encoding="utf-8")
    assert any(cls == "COREF" for _, cls, _ in udvalidate(path, "en"))


def scorch_clusters(text: str) -> dict[str, list[set]]:
    """Each document's clusters as scorch reads a CoNLL-2012 text: its header and block
    parsers, then its rule for a mention found more than once (it stays in the entity
    that appeared first, once). scorch's own ``parse_document`` applies that rule with a
    bug: when an entity loses all its mentions so, it deletes and re-adds the entity while
    iterating over the entities and fails (``RuntimeError: OrderedDict mutated during
    iteration``). corefio's CoNLL from the MMAX2 projects has such entities: a
    discontinuous mention written as its extent, the same words as a mention of another
    chain."""
    documents: dict[str, list[set]] = {}
    name, lines = None, []
    for line in text.split("\n"):
        begin = re.match(r"#\s*begin document \((.*?)\);(\s*part (.*))?", line)
        if begin:
            name, lines = f"{begin.group(1)}-{begin.group(3)}" if begin.group(2) else begin.group(1), []
        elif re.match(r"#\s*end document", line):
            entities: dict[str, list] = {}
            for i, block in enumerate(scorch_conll.split_blocks(lines)):
                for entity, mentions in scorch_conll.parse_block(block).items():
                    entities.setdefault(entity, []).extend((i, a, b) for a, b in mentions)
            seen: set = set()
            clusters = []
            for mentions in entities.values():
                kept = set(mentions) - seen
                seen |= kept
                if kept:
                    clusters.append(kept)
            assert name is not None
            documents[name] = clusters
        elif not line.startswith("#"):
            lines.append(line.strip())
    return documents


SCORCH_METRICS = {"muc": "muc", "bcub": "b_cubed", "ceafm": "ceaf_m", "ceafe": "ceaf_e"}


@pytest.mark.parametrize("source", SOURCES)
def test_scorch_scores_conll_through_conllu_as_perfect(source, written):
    source = source_path(source)
    corpus, path, _ = written(source)
    # canonical CoNLL-2012 (a source's own dialect, e.g. GUM's 3 columns, is no input for scorch)
    text = corefio.dumps(corpus, "conll", canonical=True)
    direct = scorch_clusters(text)
    through = scorch_clusters(corefio.dumps(corefio.read(path), "conll", canonical=True))
    try:
        own = dict(scorch_conll.parse_file(line.strip() for line in text.split("\n")))
    except RuntimeError as error:
        assert "mutated during iteration" in str(error)  # scorch's bug (see scorch_clusters)
    else:
        assert {name: sorted(map(sorted, entities.values())) for name, entities in own.items()} == \
            {name: sorted(map(sorted, clusters)) for name, clusters in direct.items()}
    assert direct.keys() == through.keys() and len(direct) == len(corpus.documents)
    for name, key in direct.items():
        response = through[name]
        assert sorted(map(sorted, key)) == sorted(map(sorted, response))
        for metric, function in SCORCH_METRICS.items():
            recall, precision, f1 = getattr(scorch_scores, function)(key, response)
            if metric == "muc" and all(len(k) == 1 for k in key):
                # scorch (as the reference scorer) gives MUC 0 when no entity has two mentions
                assert (recall, precision, f1) == (0, 0, 0)
                continue
            assert (recall, precision, f1) == (1, 1, 1), (name, metric)


CASES = json.loads((DATA / "scorer-testcases" / "cases.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", sorted(CASES))
def test_scorch_agrees_with_corefio_on_the_reference_test_cases(case):
    files = DATA / "scorer-testcases" / "DataFiles"
    key_file, response_file = files / CASES[case]["key_file"], files / CASES[case]["response_file"]
    (key,) = scorch_clusters(key_file.read_text(encoding="utf-8")).values()
    (response,) = scorch_clusters(response_file.read_text(encoding="utf-8")).values()
    ours = corefio.score(key_file, response_file, metrics=[*SCORCH_METRICS, "blanc"])
    for metric, function in {**SCORCH_METRICS, "blanc": "blanc"}.items():
        theirs = getattr(scorch_scores, function)(key, response)
        score = ours[metric]
        for mine, other in zip((score.recall, score.precision, score.f1), theirs):
            assert math.isclose(float(mine), float(other), rel_tol=1e-12, abs_tol=1e-15), (metric, mine, other)
            assert round(100 * float(mine), 2) == round(100 * float(other), 2)
