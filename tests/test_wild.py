"""Every real file of tests/data/wild, whatever its family, checked the same way.

The entries come from every ``tests/data/wild/<family>/manifest.json`` (README.md there
says what an entry holds); a family that adds a file is covered here as soon as its
manifest lists it. For each entry:

* its counts (documents, tokens, mentions, entities, singletons, empty nodes, bridging
  and split-antecedent links) as corefio reads them equal those of the independent
  counter of :mod:`tests.oracle`, and those of the community's own reader when the entry
  gives ``judge_counts``;
* written back in its own format, it is the same bytes (for the formats of
  :data:`CANONICAL`, and where the reader says it moved something as
  :data:`MOVED_ON_READING` lists, the documented canonical form instead: see there; an
  XMI whose coreference is a span + relation layer is written as chains, a conversion:
  :func:`_written_as_another_layer`; a project of XML files its writer serialises anew,
  MMAX2, is the same files, equal once parsed: :data:`XML_EQUAL`);
* converted into another writable format, whatever differs from the source, counted
  by the oracle on the written file, is what the loss report says, kind by kind and
  count by count (tests/test_conversion_matrix.py: :func:`source_counts`). One target
  per file in the fast tier (round robin over the writers), every target in the slow
  one;
* ``validate`` and the reader agree: an error from one is an error from the other (an
  entry marked ``invalid`` must get one from both).

Then the manifest itself: MANIFEST.md is up to date, every file listed exists, every
file present is listed, and the goal (real files, repositories, sources per format)
is reached, or the test says by how much it is not.
"""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest

import corefio
from corefio.errors import CorefioError
from corefio.model import BRIDGING, SPLIT_ANTECEDENT

from . import oracle
from .conftest import DATA
from .test_conversion_matrix import EVERY_WRITER, _counted, _links_as_total, _losses, expected_after, source_counts

WILD = DATA / "wild"
_spec = importlib.util.spec_from_file_location("wild_manifest", WILD / "make_manifest.py")
manifest = importlib.util.module_from_spec(_spec)
sys.modules["wild_manifest"] = manifest  # its dataclasses look their module up
_spec.loader.exec_module(manifest)  # type: ignore[union-attr]

ENTRIES = manifest.entries()
VALID = [e for e in ENTRIES if e.invalid is None]
#: what each format's own writer gives back when it does not give the same bytes: the
#: round trip then checks that the output is this canonical form (writing it again
#: gives it again) and holds what the source holds (the oracle's counts)
CANONICAL: dict[str, str] = {
    "xmi": "a CAS written by dkpro-cassis: its own XMI serialisation (attribute order, ids, namespace "
           "prefixes), the same annotations",
    "hf-datasets": "a save_to_disk directory (Arrow files and JSON state) written anew, the same rows",
    "spacy": "a DocBin written anew by spaCy (msgpack, compressed), the same docs",
}
#: the writer of a format variant's shape (a variant without one has no own-format round trip)
VARIANT_WRITER = {"jsonlines:wl": "wl-coref"}
#: what a reader changes as it reads, and says so by this warning: the file written back
#: is then not the same bytes but the documented canonical form (checked as for
#: :data:`CANONICAL`)
MOVED_ON_READING: dict[str, str] = {
    "webanno.subtoken-annotations": "annotations on sub-tokens (1-3.1) are read as their token's: written back on "
                                    "the token, the sub-token rows kept blank",
}

#: formats written back as a project of XML files whose own writer serialises the XML
#: anew: the project written back has the same files (none left out, none added), the
#: files of the tuple and every file that is not ``.xml`` the same bytes, and each other
#: ``.xml`` file the same once parsed (:func:`_xml_tree`). MMAX2: corefio writes level
#: files and base data anew (README, MMAX2 section: equal after XML canonicalisation) and
#: copies ``common_paths.xml``, DTDs, stylesheets, schemes and other files as they are
XML_EQUAL: dict[str, tuple[str, ...]] = {"mmax2": ("common_paths.xml",)}


def _xml_tree(data: bytes) -> tuple:
    """An XML file as what a reader of it sees: the document type's name and ids, and
    each element's (namespaced) name, attributes, text and children, text that is only
    whitespace and the XML declaration (version, encoding, quotes) aside; comments and
    processing instructions kept."""
    from corefio.io.xmlsafe import parse_xml

    tree = parse_xml(data)

    def node(e) -> tuple:
        text = (e.text or "").strip()
        tail = (e.tail or "").strip()
        if not isinstance(e.tag, str):  # a comment or processing instruction
            return ("#" + type(e).__name__, text, tail)
        return (e.tag, sorted(e.attrib.items()), text, tail, [node(c) for c in e])

    info = tree.docinfo
    return (info.root_name if info.doctype else None, info.public_id, info.system_url, node(tree.getroot()))


def _xml_differences(source: dict[str, bytes], written: dict[str, bytes], as_bytes: tuple[str, ...]) -> list[str]:
    """What differs between a project and the project written back (:data:`XML_EQUAL`)."""
    out = [f"{name}: left out" for name in sorted(set(source) - set(written))]
    out += [f"{name}: added" for name in sorted(set(written) - set(source))]
    for name in sorted(set(source) & set(written)):
        a, b = source[name], written[name]
        if a == b:
            continue
        if name.rsplit("/", 1)[-1] in as_bytes or not name.lower().endswith(".xml"):
            out.append(f"{name}: not the same bytes")
        elif _xml_tree(a) != _xml_tree(b):
            out.append(f"{name}: not the same XML")
    return out


def _written_as_another_layer(entry) -> bool:
    """Whether the own writer writes the file's coreference in another kind of layer
    than it has: corefio's XMI writer writes chain layers only (README, XMI section), so
    an XMI whose coreference is an INCEpTION span + relation layer (webanno.custom.Span
    and Relation) is written as chains, its relations and span features reported lost.
    That is a conversion, checked as the conversions are."""
    return entry.format == "xmi" and bool(oracle.xmi_relation_layers(entry.file))


def _own_writer(format: str) -> str | None:
    if ":" in format:
        return VARIANT_WRITER.get(format)
    spec = corefio.get_format(format)
    return spec.name if spec.can_write else None


def _params(entries: list, marks=()) -> list:
    return [pytest.param(e, id=e.id, marks=list(marks)) for e in entries]


# -- counts ---------------------------------------------------------------------------------------
def model_counts(corpus) -> Counter:
    """The kinds of :data:`tests.oracle.JUDGED` from corefio's model."""
    out: Counter = Counter(documents=len(corpus.documents))
    for doc in corpus.documents:
        empty = len(doc.tokens.empty or [])
        out["tokens"] += len(doc.tokens.forms) - empty
        out["empty_nodes"] += empty
        out["mentions"] += sum(m.layer is None for m in doc.markables)
        for chain in doc.chain_indices():
            size = sum(doc.markables[i].layer is None for i in chain)
            out["entities"] += size > 0
            out["singletons"] += size == 1
        for link in doc.links:
            if link.type == BRIDGING:
                out["bridging"] += len(link.targets)
            elif link.type == SPLIT_ANTECEDENT:
                out["split_antecedents"] += len(link.targets)
    return out


@pytest.mark.parametrize("entry", _params(VALID))
def test_counts_equal_the_independent_counters(entry):
    counted = oracle.judged(oracle.parse(entry.file, entry.format))
    read = model_counts(corefio.read(entry.file, entry.format))
    kinds = oracle.JUDGED
    assert {k: read[k] for k in kinds} == {k: counted[k] for k in kinds}, "(corefio, oracle)"
    judge = {k: v for k, v in entry.judge_counts.items() if k in kinds}
    assert {k: counted[k] for k in judge} == judge, f"oracle ≠ {entry.judge_counts.get('judge', 'the judge')}"


# -- round trip in the file's own format ----------------------------------------------------------
def _files(path: Path) -> dict[str, bytes]:
    """A file's bytes, or those of every file under a directory (by relative path)."""
    if path.is_dir():
        return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}
    return {path.name: path.read_bytes()}


def _source_files(entry) -> dict[str, bytes]:
    """What the source is made of: the directory, or the file and its companions (a brat
    ``.ann`` with its ``.txt``)."""
    if entry.file.is_dir():
        return _files(entry.file)
    found = {p.name: p.read_bytes() for p in entry.file.parent.glob(entry.file.stem + ".*")
             if p.is_file() and p.suffix in (".txt", ".ann")} if entry.base_format in ("brat", "litbank-tsv") else {}
    return found or {entry.file.name: entry.file.read_bytes()}


def _written_name(entry) -> str:
    """Where the own writer writes: a directory for the formats made of several files."""
    writer = _own_writer(entry.format)
    return EVERY_WRITER[writer] if writer in ("mmax2", "brat", "litbank-tsv", "hf-datasets") else entry.file.name


@pytest.mark.parametrize("entry", _params([e for e in VALID if _own_writer(e.format)]))
def test_written_back_in_its_own_format_it_is_the_same(entry, tmp_path):
    writer = _own_writer(entry.format)
    if _written_as_another_layer(entry):
        _check_conversion(entry, writer, tmp_path)
        return
    out = tmp_path / _written_name(entry)
    report = corefio.convert(entry.file, out, entry.format, writer)
    assert not report.errors
    lost = [f"{d.code}: {d.message}" for d in report if d.code.startswith("loss.") and d.severity != "info"]
    assert lost == [], "writing a file in its own format loses nothing"
    moved = sorted(code for code in MOVED_ON_READING if report.by_code(code))
    if writer in CANONICAL or moved:
        again = tmp_path / "again" / out.name
        again.parent.mkdir()
        corefio.convert(out, again, writer, writer)
        assert _files(again) == _files(out), f"not canonical: {CANONICAL.get(writer) or MOVED_ON_READING[moved[0]]}"
        assert _counted(out, writer) == _counted(entry.file, entry.format)
        return
    source, written = _source_files(entry), _files(out)
    if writer in XML_EQUAL:
        assert _xml_differences(source, written, XML_EQUAL[writer]) == [], \
            "written back, these differ from the source (XML compared once parsed)"
        return
    if entry.file.is_dir() or len(source) > 1:  # a project: each file it has, written the same
        written = {name: written.get(name) for name in source}
    else:
        (written,) = [dict(zip(source, written.values()))] if len(written) == 1 else [written]
    differing = sorted(name for name in source if written.get(name) != source[name])
    assert differing == [], f"written back, these differ from the source: {differing}"


# -- conversions ----------------------------------------------------------------------------------
TARGETS = sorted(EVERY_WRITER)


def _targets(entry) -> list[str]:
    own = _own_writer(entry.format)
    return [t for t in TARGETS if t != own]


def _conversion_cells() -> list:
    cells = []
    for number, entry in enumerate(VALID):
        targets = _targets(entry)
        fast = targets[number % len(targets)]
        for target in targets:
            marks = [] if target == fast else [pytest.mark.slow]
            cells.append(pytest.param(entry, target, id=f"{entry.id}->{target}", marks=marks))
    return cells


@pytest.mark.parametrize(("entry", "target"), _conversion_cells())
def test_a_conversion_changes_what_its_loss_report_says(entry, target, tmp_path):
    if target == "spacy":
        pytest.importorskip("spacy")
    if target == "hf-datasets":
        pytest.importorskip("datasets")
    _check_conversion(entry, target, tmp_path)


def _check_conversion(entry, target: str, tmp_path: Path) -> None:
    out = tmp_path / EVERY_WRITER[target]
    report = corefio.convert(entry.file, out, entry.format, target)
    assert not report.errors
    losses = _losses(report)
    if "loss.multiple-documents" in losses:  # what is lost of the others does not count
        first = corefio.read(entry.file, entry.format).documents[0].name
        losses = _losses(report, only=first) + Counter({"loss.multiple-documents": losses["loss.multiple-documents"]})
    expected = expected_after(source_counts(entry.file, entry.format, losses, target), losses)
    after = _counted(out, target)
    if "links" in expected:
        after = _links_as_total(after)
    differences = {k: (expected[k], after[k]) for k in set(expected) | set(after) if expected[k] != after[k]}
    assert differences == {}, f"(expected, written) not explained by {dict(losses)}"


# -- validate and the reader agree ---------------------------------------------------------------
@pytest.mark.parametrize("entry", _params(ENTRIES))
def test_validate_and_the_reader_agree(entry):
    try:
        corefio.read(entry.file, entry.format)
        read_error = None
    except CorefioError as exc:
        read_error = exc
    report = corefio.validate(entry.file, entry.format)
    validate_errors = [f"{d.line}: {d.message}" for d in report.errors]
    assert bool(validate_errors) == (read_error is not None), \
        f"reader: {read_error or 'no error'}; validate: {validate_errors or 'no error'}"
    if entry.invalid is not None:
        assert read_error is not None, f"the file is not valid ({entry.invalid}), yet it reads"
        assert read_error.line is not None, "the error names no line"


# -- the manifest ---------------------------------------------------------------------------------
def test_manifest_md_is_up_to_date():
    assert (WILD / "MANIFEST.md").read_text(encoding="utf-8") == manifest.render(), \
        "run python tests/data/wild/make_manifest.py"


def test_every_file_listed_exists_and_every_file_present_is_listed():
    missing = [e.id for e in ENTRIES if not e.file.exists()]
    assert missing == []
    covered = set()
    for e in ENTRIES:
        if e.file.is_dir():
            covered |= {p for p in e.file.rglob("*") if p.is_file()}
        else:  # a file and its companions (brat's .txt beside the .ann, a zip's typesystem)
            covered |= {p for p in e.file.parent.glob(e.file.name.split(".")[0] + ".*") if p.is_file()}
    unlisted = [p.relative_to(WILD).as_posix() for p in sorted(WILD.rglob("*"))
                if p.is_file() and p.parent != WILD and p not in covered and not _bookkeeping(p)]
    assert unlisted == [], "files under tests/data/wild that no manifest lists"


#: files of a family that are not real data: its manifest and README, the stored outputs
#: of the judges and the commands that made them (``judged.json``, ``judges.json``, under
#: ``judges/``), its scripts (``perturb.py``, ``run_judges.py``), hand-built cases beside
#: the real files (``repeats/``), and type systems the manifest's notes name
BOOKKEEPING_NAMES = ("manifest.json", "README.md", "judged.json", "judges.json")
BOOKKEEPING_FOLDERS = ("judges", "repeats")


def _bookkeeping(path: Path) -> bool:
    relative = path.relative_to(WILD).parts
    if path.name in BOOKKEEPING_NAMES or path.suffix in (".py", ".pyc"):
        return True
    if any(part in BOOKKEEPING_FOLDERS for part in relative[1:-1]):
        return True
    return path.suffix == ".xml" and any(path.name in e.notes for e in ENTRIES if e.family == relative[0])


def test_each_entry_names_a_format_corefio_reads_and_a_commit():
    readable = {spec.name for spec in corefio.all_formats() if spec.can_read}
    for e in ENTRIES:
        assert e.format.partition(":")[0] in readable, e.id
        assert len(e.commit) == 40 and all(c in "0123456789abcdef" for c in e.commit.lower()), e.id
        assert "/" in e.repo, e.id


def test_the_goal_of_real_files_is_reached():
    counted = manifest.summary(ENTRIES)
    shortfall = []
    if len(ENTRIES) < manifest.GOAL_FILES:
        shortfall.append(f"{len(ENTRIES)} real files, {manifest.GOAL_FILES - len(ENTRIES)} short of "
                         f"{manifest.GOAL_FILES}")
    repositories = len(counted["all_repositories"])
    if repositories < manifest.GOAL_REPOSITORIES:
        shortfall.append(f"{repositories} repositories, {manifest.GOAL_REPOSITORIES - repositories} short of "
                         f"{manifest.GOAL_REPOSITORIES}")
    for name, repos in sorted(counted["repositories"].items()):
        need, why = manifest.FEWER_SOURCES.get(name, (manifest.GOAL_SOURCES_PER_FORMAT, ""))
        if len(repos) < need:
            shortfall.append(f"{name}: {len(repos)} source(s) of {need}" + (f" ({why})" if why else ""))
    # a format given fewer sources says why, asks fewer than the goal, and leaves the list once it
    # has reached the goal
    for name, (need, why) in sorted(manifest.FEWER_SOURCES.items()):
        assert 0 <= need < manifest.GOAL_SOURCES_PER_FORMAT and why.strip(), name
        assert name in counted["repositories"], f"{name} is no format corefio reads"
        if len(counted["repositories"][name]) >= manifest.GOAL_SOURCES_PER_FORMAT:
            shortfall.append(f"{name} has {manifest.GOAL_SOURCES_PER_FORMAT} sources: take it off FEWER_SOURCES")
    assert shortfall == [], "the goal is not reached:\n  " + "\n  ".join(shortfall)
