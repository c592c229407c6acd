"""Real MMAX2 projects read as an independent count says they should.

The Potsdam Commentary Corpus sample of the shared data (CC BY-NC-SA, kept out of the
repository: ``shared_data`` skips where it is absent) has four levels, discontinuous
markables and pointers from one level to another (``secmark:markable_…``). The
markables and pointers of each level file are counted here with lxml XPath, without the
reader, and compared with what the reader makes of them.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from lxml import etree

import corefio
import corefio.formats.mmax2  # noqa: F401  (registers the format)
from corefio.diagnostics import Report

from .conftest import shared_data
from .test_mmax2 import assert_same_project, content

PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
MARKABLES = etree.XPath("/*/*[local-name()='markable']")
POINTERS = etree.XPath("/*/*[local-name()='markable']/@*[local-name()='anaphor_antecedent'][. != 'empty']")


def xpath_counts(project: Path, stem: str) -> tuple[Counter, Counter]:
    """Markables per level, and pointer targets per target level, of document ``stem``."""
    markables: Counter = Counter()
    targets: Counter = Counter()
    for path in sorted((project / "markables").glob(f"{stem}_*_level.xml")):
        level = path.name[len(stem) + 1: -len("_level.xml")]
        tree = etree.parse(str(path), PARSER)
        markables[level] = len(MARKABLES(tree))
        for value in POINTERS(tree):
            for target in value.split(";"):
                targets[target.split(":")[0] if ":" in target else level] += 1
    return markables, targets


def test_pcc_levels_and_cross_level_pointers_match_an_xpath_count(tmp_path):
    project = shared_data("corpora/pcc-mmax2/coreference")
    report = Report()
    corpus = corefio.read(project, report=report)
    assert not report.warnings
    identity = corpus.scheme(None).name
    for doc in corpus.documents:
        markables, targets = xpath_counts(project, doc.name)
        read = Counter(identity if m.layer is None else m.layer for m in doc.markables)
        read["sentence"] = len(doc.sentences)
        assert +read == +markables, doc.name
        pointed = Counter(identity if t.split(":")[0] == t else t.split(":")[0]
                          for link in doc.links for t in link.targets)
        assert pointed == targets, doc.name
    assert sum(targets["secmark"] for targets in [xpath_counts(project, d.name)[1] for d in corpus.documents]) > 0
    # MMAX2 → MMAX2: the same project, file by file; read back: the same documents
    assert_same_project(project, corefio.dump_files(corpus, "mmax2"))
    out = tmp_path / "out"
    corefio.write(corpus, out, "mmax2", strict=True)
    back = corefio.read(out)
    assert [content(d) for d in back.documents] == [content(d) for d in corpus.documents]
