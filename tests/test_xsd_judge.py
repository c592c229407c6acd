"""Every XML file corefio writes, judged by the XSDs with the ``xmlschema`` package.

corefio checks its own XML with libxml2 (through lxml); here an independent XSD
processor, ``xmlschema`` (pure Python, XML Schema 1.0), judges the RAF and MATE files
written from every real corpus of ``tests/data/corpora``, from the samples and from the
licensed PCC project in ``../shared`` (skipped outside CI without it).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest
import xmlschema

import corefio
from corefio.io.resources import schema_path

from .conftest import DATA, SAMPLES, shared_data

CORPORA = DATA / "corpora"
SOURCES = sorted(p for p in CORPORA.rglob("*") if p.suffix in (".conll", ".conllu", ".jsonlines")) + [
    SAMPLES / "key.raf.xml", SAMPLES / "muc" / "muc7.key.sgm", SAMPLES / "mate" / "key.mate.xml",
    SAMPLES / "mmax2" / "gum_news_worship",
]
TARGETS = {"raf": ("raf.xsd", ".raf.xml"), "mate": ("mate.xsd", ".mate.xml")}


@lru_cache(maxsize=None)
def schema(name: str) -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(str(schema_path(name)))


def _judge(corpus: "corefio.Corpus", target: str, tmp_path: Path) -> None:
    name, extension = TARGETS[target]
    out = tmp_path / f"written{extension}"
    corefio.write(corpus, out, target)
    errors = list(schema(name).iter_errors(str(out)))
    assert not errors, f"{out.name} breaks {name}: " + "; ".join(str(e.reason) for e in errors[:3])


def _label(path: Path) -> str:
    for root in (CORPORA, SAMPLES.parent):
        try:
            return str(path.relative_to(root))
        except ValueError:
            continue
    return path.name


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("source", SOURCES, ids=_label)
def test_written_xml_is_valid_for_an_independent_xsd_processor(source: Path, target: str, tmp_path: Path):
    _judge(corefio.read(source), target, tmp_path)


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_pcc_written_as_xml_is_valid(target: str, tmp_path: Path):
    corpus = corefio.read(shared_data("corpora/pcc-mmax2/coreference"))
    _judge(corpus, target, tmp_path)
