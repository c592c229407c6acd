"""The fuzzer in CI (issue 13).

* ``test_fuzz_budget``: a campaign with a fixed seed over every readable format, about
  60 s in all (``COREFIO_FUZZ_SECONDS`` changes it); it fails while the fuzzer finds any
  defect, and its message lists them with their minimised sizes.
* ``test_saved_regression``: every input kept in ``tests/data/regressions/fuzz/`` passes
  all the fuzzer's checks.
* the self-tests: the campaign finds each kind of planted defect in a toy format, and
  a campaign is reproducible.

The campaigns run in a child Python (``python -m tests.fuzz``): the fuzzer forks
processes to check inputs in, which is best done away from pytest's own process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.fuzz import fuzzer

SEED = 13
HERE = Path(__file__).resolve().parent


def _budget() -> float:
    return float(os.environ.get("COREFIO_FUZZ_SECONDS", "60"))


@pytest.mark.slow
def test_fuzz_budget(tmp_path: Path):
    seconds = _budget()
    out = tmp_path / "summary.json"
    command = [sys.executable, "-m", "tests.fuzz", "--seconds", str(seconds), "--seed", str(SEED),
               "--json", str(out), "--quiet", "--minimise-seconds", "5", "--minimise-total", "30"]
    done = subprocess.run(command, cwd=fuzzer.REPO, capture_output=True, text=True, timeout=seconds * 2 + 300)
    assert out.exists(), f"the fuzzer did not finish:\n{done.stdout}\n{done.stderr}"
    summary = json.loads(out.read_text())
    assert not summary.get("error"), fuzzer.format_summary(summary)
    assert summary["formats"], fuzzer.format_summary(summary)
    for name, stats in summary["formats"].items():
        assert stats["tried"] > 0, f"{name}: no input tried\n" + fuzzer.format_summary(summary)
    # a hang that does not happen again when minimisation starts is the machine being
    # busy, not a defect; every other finding counts
    defects = [d for d in summary["defects"] if not (d["check"] == "hang" and d["flaky"])]
    assert not defects, "the fuzzer found defects:\n" + fuzzer.format_summary(summary)


def _regressions() -> list[str]:
    return sorted(fuzzer.load_manifest(fuzzer.REGRESSIONS))


def test_regressions_are_listed():
    """Every file of the regression directory is in the manifest and in the README."""
    names = set(_regressions())
    present = {p.name for p in fuzzer.REGRESSIONS.iterdir()} - {"README.md", fuzzer.MANIFEST}
    assert present == names
    readme = (fuzzer.REGRESSIONS / "README.md").read_text()
    for name in names | {fuzzer.MANIFEST}:
        assert f"`{name}`" in readme


@pytest.fixture(scope="module")
def replayed() -> dict[str, list[dict]]:
    """The fuzzer's findings on every saved regression (one child Python for all). A step is
    a hang after ten times a campaign's limit: on a busy machine a step that a campaign
    finds quick can take several seconds."""
    script = ("import json; from tests.fuzz import fuzzer; "
              "print(json.dumps(fuzzer.replay_regressions(timeout=10 * fuzzer.STEP_TIMEOUT, "
              "slow=10 * fuzzer.SLOW_STEP)))")
    done = subprocess.run([sys.executable, "-c", script], cwd=fuzzer.REPO, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("name", _regressions())
def test_saved_regression(name: str, replayed: dict[str, list[dict]]):
    findings = replayed[name]
    shown = "\n".join(f"[{f['check']} at {f['step']}] {f['message']}" for f in findings)
    assert not findings, f"{name} still fails:\n{shown}"


def _planted_campaign(count: int) -> dict:
    script = textwrap.dedent(f"""
        import json
        from pathlib import Path
        import corefio
        from tests.fuzz import planted
        from tests.fuzz.fuzzer import Campaign
        campaign = Campaign(seed=7, count={count}, formats=[planted.NAME], minimise_seconds=3,
                            minimise_total=90, timeout=1.0, slow=0.1, log=lambda message: None, convert_seeds=False,
                            extra_seeds={{planted.NAME: [Path({str(HERE / 'planted_seed.fuzzplanted')!r})]}})
        print(json.dumps(campaign.run()))
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=fuzzer.REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def planted_name() -> str:
    return "fuzzplanted"  # planted.NAME, without registering the toy format here


@pytest.mark.slow
def test_planted_defects_are_found_and_minimised():
    summary = _planted_campaign(400)
    assert not summary.get("error"), summary
    found = {d["check"]: d for d in summary["defects"]}
    assert set(found) == {"equivalence", "exception", "hang", "location", "memory", "roundtrip", "slow"}, \
        fuzzer.format_summary(summary)
    # only CR line ends (all of them, or some) can trip this reader
    for d in summary["defects"]:
        if d["check"] == "equivalence":
            assert "cr_only" in d["kind"] or "mixed_line_ends" in d["kind"], d
    assert "MemoryError" in found["memory"]["message"]
    assert "KeyError" in found["exception"]["message"]
    assert "names no line" in found["location"]["message"]
    assert found["roundtrip"]["step"] == "compare"
    assert "of CPU" in found["slow"]["message"]
    # minimised: "(" alone raises, "|" alone is refused
    assert found["exception"]["minimised_bytes"] == 1
    assert found["location"]["minimised_bytes"] == 1
    for d in summary["defects"]:
        assert d["minimised_bytes"] is not None and d["minimised_bytes"] <= d["input_bytes"]
    assert summary["formats"][planted_name()]["tried"] == 400


def test_inputs_depend_on_seed_format_and_index_only():
    target = fuzzer.Target("x", ".x", xml=False, json=False, writable=False,
                           seeds=[fuzzer.Seed(HERE / "planted_seed.fuzzplanted",
                                              (HERE / "planted_seed.fuzzplanted").read_bytes())])
    first = [fuzzer.make_input(target, 5, i) for i in range(50)]
    again = [fuzzer.make_input(target, 5, i) for i in reversed(range(50))][::-1]
    assert [(i.data, i.mutations) for i in first] == [(i.data, i.mutations) for i in again]
    other = [fuzzer.make_input(target, 6, i) for i in range(50)]
    assert [i.data for i in first] != [i.data for i in other]
    assert first[0].mutations == () and first[0].data == target.seeds[0].data


def test_content_ignores_ids_but_not_spans():
    from corefio.model import Corpus, Document, Markable, Tokens

    def doc(ids, spans):
        return Corpus(documents=[Document(name="d", tokens=Tokens(forms=["a", "b", "c"]), markables=[
            Markable(id=i, spans=(s,), entity="e1") for i, s in zip(ids, spans)])])

    same = fuzzer.compare(fuzzer.content(doc(["m1", "m2"], [(0, 0), (2, 2)])),
                          fuzzer.content(doc(["x", "y"], [(0, 0), (2, 2)])))
    assert same is None
    moved = fuzzer.compare(fuzzer.content(doc(["m1", "m2"], [(0, 0), (2, 2)])),
                           fuzzer.content(doc(["m1", "m2"], [(0, 0), (1, 2)])))
    assert moved is not None and moved.startswith("markables")


# -- directory formats (an MMAX2 project) -----------------------------------------------------
@pytest.mark.slow
def test_project_defects_are_found_minimised_saved_and_replayed(tmp_path: Path):
    """A toy directory format with planted defects: inputs are seed projects with one
    file mutated; a defect is minimised on that file, saved as a whole project
    directory, and fails the same way when replayed."""
    script = textwrap.dedent(f"""
        import json
        from pathlib import Path
        from tests.fuzz import planted, fuzzer
        campaign = fuzzer.Campaign(seed=7, count=300, formats=[planted.PROJECT_NAME], minimise_seconds=3,
                                   minimise_total=40, timeout=1.0, log=lambda message: None,
                                   convert_seeds=False, save=Path({str(tmp_path)!r}),
                                   extra_seeds={{planted.PROJECT_NAME: [Path({str(HERE / 'planted_project')!r})]}})
        summary = campaign.run()
        print(json.dumps([summary, fuzzer.replay_regressions(Path({str(tmp_path)!r}))]))
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=fuzzer.REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    summary, replayed = json.loads(done.stdout.strip().splitlines()[-1])
    found = {d["check"]: d for d in summary["defects"]}
    assert {"exception", "memory", "roundtrip"} <= set(found), fuzzer.format_summary(summary)
    # the mutated file is minimised to the one byte that trips the reader
    assert found["exception"]["minimised_bytes"] == 1
    assert found["exception"]["seed"].endswith("]") and ".fpp" in found["exception"]["seed"]
    manifest = fuzzer.load_manifest(tmp_path)
    saved = Path(found["exception"]["saved"])
    entry = manifest[saved.name]
    assert saved.is_dir() and {p.name for p in saved.iterdir()} == {"first.fpp", "second.fpp"}
    assert (saved / entry["member"]).read_bytes() == b"("
    replayed = dict(replayed)
    assert {f["check"] for f in replayed[saved.name]} == {"exception"}


def test_mmax2_projects_are_seeds_with_one_file_mutated(tmp_path: Path):
    """Every MMAX2 project of tests/data and samples is a seed, once per file its reader
    parses; an input is that project with only that file changed."""
    targets = fuzzer.discover(["mmax2"], tmp_path, lambda message: None, convert=False)
    assert [t.name for t in targets] == ["mmax2"] and targets[0].directory
    target = targets[0]
    members = {(fuzzer._relative(s.path), s.member) for s in target.seeds}
    worship = "tests/data/mmax2/worship"
    for member in ("worship.mmax", "worship_b.mmax", "common_paths.xml", "Basedata/worship_words.xml",
                   "Markables/worship_coref_level.xml", "Schemes/coref_scheme.xml"):
        assert (worship, member) in members
    assert (worship, "Styles/worship_style.xsl") not in members  # kept byte for byte, not parsed
    assert any(path.startswith("samples/mmax2/") for path, _ in members)
    changed_members = set()
    for index in range(1, 60):
        item = fuzzer.make_input(target, 3, index)
        if index % 8 == 0 or item.data == item.seed.data:
            continue
        path = fuzzer.materialise(item, tmp_path, target.extension)
        files = {p.relative_to(path).as_posix(): p.read_bytes() for p in path.rglob("*") if p.is_file()}
        assert set(files) == set(item.seed.project)
        changed = {name for name in files if files[name] != item.seed.project[name]}
        assert changed == {item.seed.member}
        changed_members.add(item.seed.member)
    assert len(changed_members) > 3


def test_the_annotation_tools_formats_have_their_real_files_as_seeds(tmp_path: Path):
    """brat and LitBank TSV pair folders are seed projects (their pairs alone, each
    distinct project once), and the XMI seeds include a zip of two documents."""
    targets = {t.name: t for t in fuzzer.discover(["brat", "litbank-tsv", "xmi", "webanno-tsv", "ua"], tmp_path,
                                                  lambda message: None, convert=False)}
    assert set(targets) == {"brat", "litbank-tsv", "xmi", "webanno-tsv", "ua"}
    alice = "11_alices_adventures_in_wonderland_brat"
    for name, folder in (("brat", "tests/data/brat"), ("litbank-tsv", "tests/data/brat/litbank_tsv")):
        seeds = targets[name].seeds
        assert {(folder, f"{alice}.ann"), (folder, f"{alice}.txt")} <= {(fuzzer._relative(s.path), s.member)
                                                                          for s in seeds}
        # each project is its pairs alone (no CoNLL copy beside them), once per file
        for seed in seeds:
            assert all(member.endswith((".ann", ".txt")) for member in seed.project or {}), seed.label
            assert seed.member in (seed.project or {})
        alice_seeds = [s for s in seeds if fuzzer._relative(s.path) == folder]
        assert all(set(s.project or {}) == {f"{alice}.ann", f"{alice}.txt"} for s in alice_seeds)
    assert "tests/data/xmi/two_documents.zip" in {fuzzer._relative(s.path) for s in targets["xmi"].seeds}


def test_saved_regressions_are_not_seeds(tmp_path: Path):
    """Saved regressions (files or projects) are replayed, never used as seeds: seeds must
    not change when a campaign saves what it found."""
    targets = fuzzer.discover(None, tmp_path, lambda message: None, convert=False)
    for target in targets:
        for seed in target.seeds:
            assert fuzzer.REGRESSIONS not in seed.path.parents, seed.label


# -- the oracles added for the real-data issue ------------------------------------------------
def test_truncation_reaches_every_byte_class():
    """``truncate_at_class`` cuts just before or after each kind of byte a file has."""
    import random

    from tests.fuzz import mutations

    data = "<a x=\"1\">&amp; (1|2) {\"k\": [3]} é\n".encode()
    rng = random.Random(1)
    cuts = {mutations.truncate_at_class(rng, data, []) for _ in range(3000)}
    assert all(data.startswith(cut) for cut in cuts)
    ends = {cut[-1:] for cut in cuts if cut}
    for name, members in mutations.BYTE_CLASSES.items():
        present = [b for b in members if bytes([b]) in data]
        if present:
            assert any(bytes([b]) in ends for b in present), f"never cut after a byte of class {name}"
    # inside the two-byte é: the lead byte kept, its continuation cut off
    assert data[:data.index("é".encode()) + 1] in cuts


def test_mmax2_mutations_make_what_they_say():
    import random

    from tests.fuzz import mutations

    level = (b'<markables xmlns="www.eml.org/NameSpaces/coref">\n'
             b'<markable id="markable_1" span="word_1..word_3" coref_set="set_1" mmax_level="coref"/>\n'
             b'<markable id="markable_2" span="word_5" ref="markable_1" mmax_level="coref"/>\n</markables>\n')
    common = b'<common_paths><annotations><level name="coref">$_coref.xml</level>' \
             b'<level name="secmark">$_secmark.xml</level></annotations></common_paths>'
    rng = random.Random(3)
    duplicated = {mutations.mmax2_duplicate_id(rng, level, [common]) for _ in range(40)}
    assert any(d.count(b'id="markable_1"') == 2 or d.count(b'id="markable_2"') == 2 for d in duplicated)
    untiled = {mutations.mmax2_untile(rng, level, [common]) for _ in range(40)}
    assert any(d.count(b"<markable ") == 1 for d in untiled)
    assert any(b'span="word_1..word_' in d and b'span="word_1..word_3"' not in d for d in untiled)
    crossed = {mutations.mmax2_cross_level(rng, level, [common]) for _ in range(40)}
    assert any(b'="secmark:markable_' in d for d in crossed)
    assert all(b'id="markable_1"' in d for d in crossed)  # ids themselves are left alone
    spans = {mutations.mmax2_span(rng, level, [common]) for _ in range(60)}
    assert any(b'span=""' in d for d in spans) and any(b"," in d.split(b"span=")[1][:30] for d in spans)


def test_renamed_project_reads_like_the_original(tmp_path: Path):
    """Document names with a space, a comma and a non-ASCII letter (real: ``Jarvis
    Island.mmax``) read as the same content under the new names."""
    import corefio

    original = fuzzer.REPO / "tests" / "data" / "mmax2" / "worship"
    files = fuzzer._read_project(original)
    renamed = fuzzer.renamed_project(files)
    assert renamed is not None and any(fuzzer.RENAMED_STEM in name for name in renamed)
    path = tmp_path / "renamed"
    fuzzer.write_project(path, renamed)
    before, after = corefio.read(original), corefio.read(path)
    assert fuzzer.count_mmax2_markables(path) == fuzzer.count_mmax2_markables(original) > 0
    assert [c[1:] for c in fuzzer.content(before)] == [c[1:] for c in fuzzer.content(after)]
    assert all(doc.name.startswith(fuzzer.RENAMED_STEM) for doc in after.documents)


def test_markable_count_oracle_sees_a_silent_loss(tmp_path: Path):
    """The ``count`` check: a corpus with fewer markables than the level files hold,
    and no warning, is a finding; with a warning it is not."""
    import corefio

    project = fuzzer.REPO / "tests" / "data" / "mmax2" / "worship"
    corpus = corefio.read(project)
    doc = corpus.documents[0]
    editor = doc.edit()
    editor.remove_markables([doc.markables[0].id])
    fewer = corpus.copy(documents=[editor.commit(), *corpus.documents[1:]])
    checker = fuzzer.Checker("mmax2", project, None, False, lambda message: None)
    checker._count_mmax2_markables(corpus, corefio.Report())
    assert checker.findings == []
    checker._count_mmax2_markables(fewer, corefio.Report())
    assert [f["check"] for f in checker.findings] == ["count"]
    warned = corefio.Report()
    warned.warning("mmax2.something", "a markable could not be placed")
    quiet = fuzzer.Checker("mmax2", project, None, False, lambda message: None)
    quiet._count_mmax2_markables(fewer, warned)
    assert quiet.findings == []


def test_validate_oracle_flags_disagreement(tmp_path: Path, monkeypatch):
    """The ``validate`` check: validate finding nothing in what read() refuses is a
    finding, and so is validate refusing what read() accepts without an error."""
    import corefio

    broken = tmp_path / "broken.conll"
    broken.write_text("#begin document (d); part 000\nd 0 0 a (1\n#end document\n")
    monkeypatch.setattr(corefio, "validate", lambda path, fmt=None: corefio.Report())
    checker = fuzzer.Checker("conll", broken, None, True, lambda message: None)
    checker.run()
    assert ("validate", "valid, read refuses") in {(f["check"], f["kind"]) for f in checker.findings}

    def always_invalid(path, fmt=None):
        report = corefio.Report()
        report.error("planted.error", "planted")
        return report

    monkeypatch.setattr(corefio, "validate", always_invalid)
    # a file that reads without any warning (a warning would explain validate's error)
    clean = fuzzer.REPO / "samples" / "key.raf.xml"
    assert not corefio.read(clean).documents[0].markables == []
    checker = fuzzer.Checker("raf", clean, None, False, lambda message: None)
    checker.run()
    assert any(f["check"] == "validate" and f["kind"].startswith("invalid") for f in checker.findings)


# -- every format of the registry, the wild corpus, binary and archive inputs ----------------
def test_the_fuzzers_format_list_is_the_registrys():
    """``FORMATS`` (how each format is mutated and checked) names exactly the registry's
    formats: a new format cannot be left out of the campaigns."""
    from corefio.formats import registry

    assert set(fuzzer.FORMATS) == {spec.name for spec in registry.all_formats()}
    assert {spec.name for spec in registry.all_formats() if spec.can_read} == set(fuzzer.FORMATS)


def test_every_format_of_the_registry_gets_seeds(tmp_path: Path):
    from corefio.formats import registry

    notes: list[str] = []
    targets = fuzzer.discover(None, tmp_path, notes.append)
    assert {t.name for t in targets} == {spec.name for spec in registry.all_formats()}, notes
    for target in targets:
        assert target.seeds and target.mutations, target.name
        assert target.line_based == fuzzer.FORMATS[target.name].line_based


def test_seeds_come_from_every_manifest_of_the_wild_corpus(tmp_path: Path):
    """Each manifest entry is a seed of the format it names (a variant, ``jsonlines:preco``,
    of its format); a long text file gives its head cut at a blank line; a project folder
    gives one seed per file; unknown formats and missing files are said, not fatal."""
    wild = tmp_path / "wild"
    family = wild / "fam"
    (family / "pair").mkdir(parents=True)
    conll = b"#begin document (d); part 000\nd 0 0 A (1)\n\n#end document\n"
    (family / "a.conll").write_bytes(conll)
    (family / "b.jsonlines").write_bytes(b'{"doc_key": "x", "sentences": [["a"]], "clusters": []}\n')
    long_text = b"".join(b"d 0 %d word -\n\n" % i for i in range(30_000))
    (family / "long.conll").write_bytes(long_text)
    (family / "pair" / "doc.ann").write_bytes(b"T1\tEntity 0 1\ta\n")
    (family / "pair" / "doc.txt").write_bytes(b"a\n")
    (family / "pair" / "notes.md").write_bytes(b"not part of the project\n")
    manifest = [
        {"path": "a.conll", "format": "conll"},
        {"path": "b.jsonlines", "format": "jsonlines:preco"},
        {"path": "long.conll", "format": "conll"},
        {"path": "pair", "format": "brat"},
        {"path": "c.xyz", "format": "no-such-format"},
        {"path": "gone.conll", "format": "conll"},
    ]
    (family / "manifest.json").write_text(json.dumps(manifest))
    notes: list[str] = []
    seeds = fuzzer.wild_seeds(notes.append, wild)
    assert sorted(seeds) == ["brat", "conll", "jsonlines"]
    assert [s.data for s in seeds["conll"]][0] == conll
    head = seeds["conll"][1].data
    assert len(head) <= fuzzer.MAX_SEED_BYTES and long_text.startswith(head) and head.endswith(b"-\n\n")
    assert {s.member for s in seeds["brat"]} == {"doc.ann", "doc.txt"}
    assert all(set(s.project) == {"doc.ann", "doc.txt"} for s in seeds["brat"])
    assert any("no-such-format" in n for n in notes) and any("gone.conll" in n and "missing" in n for n in notes)


def test_the_wild_corpus_is_seeded_by_its_manifests_only(tmp_path: Path):
    """Files under tests/data/wild are not guessed by extension: only their manifests
    make them seeds (with the format the manifest names)."""
    targets = fuzzer.discover(None, tmp_path, lambda message: None, convert=False)
    manifest_paths = {p for seeds in fuzzer.wild_seeds(lambda m: None).values() for p in (s.path for s in seeds)}
    for target in targets:
        for seed in target.seeds:
            if fuzzer.WILD in seed.path.parents or seed.path == fuzzer.WILD:
                assert seed.path in manifest_paths, seed.label


def test_zip_members_arrow_cells_and_docbin_fields_are_mutated_inside_their_containers():
    import io
    import random
    import zipfile

    from tests.fuzz import mutations

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.xmi", b"<xmi:XMI xmlns:xmi='http://www.omg.org/XMI'><x/></xmi:XMI>")
        archive.writestr("TypeSystem.xml", b"<typeSystemDescription/>")
    original = buffer.getvalue()
    rng = random.Random(4)
    changed_members = 0
    for _ in range(30):
        out = mutations.zip_member(rng, original, [])
        with zipfile.ZipFile(io.BytesIO(out)) as archive:  # still a zip the reader can open
            names = archive.namelist()
            changed_members += any(archive.read(n) != zipfile.ZipFile(io.BytesIO(original)).read(n)
                                   for n in names if n in ("a.xmi", "TypeSystem.xml"))
    assert changed_members >= 10

    pa = pytest.importorskip("pyarrow")
    table = pa.Table.from_pylist([{"document_id": "d", "sentences": [{"part_id": 0, "words": ["a", "b"]}]}] * 3)
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    arrow = sink.getvalue()
    differing = 0
    for _ in range(30):
        out = mutations.arrow_cell(rng, arrow, [])
        rows = pa.ipc.open_stream(io.BytesIO(out)).read_all().to_pylist()
        differing += rows != table.to_pylist()
        assert len(rows) == 3
    assert differing >= 20

    spacy = pytest.importorskip("spacy")
    from spacy.tokens import DocBin

    nlp = spacy.blank("en")
    data = DocBin(docs=[nlp("a b c"), nlp("d e")]).to_bytes()
    import zlib

    import srsly

    for _ in range(20):
        out = mutations.docbin_field(rng, data, [])
        assert isinstance(srsly.msgpack_loads(zlib.decompress(out)), dict)  # past zlib and msgpack


def test_the_markable_count_reads_level_files_in_utf16_without_byte_order_mark(tmp_path: Path):
    """The ``count`` oracle once counted 0 markables in a level file in UTF-16 without a
    BOM (which XML parsers recognise by its first ``<``) and so flagged the reader."""
    project = fuzzer.REPO / "tests" / "data" / "mmax2" / "worship"
    copy = tmp_path / "worship"
    fuzzer.write_project(copy, fuzzer._read_project(project))
    before = fuzzer.count_mmax2_markables(copy)
    assert before > 0
    for level in (copy / "Markables").glob("*.xml"):
        text = level.read_bytes().removeprefix(b"\xef\xbb\xbf").decode("latin-1")  # one file has a BOM
        level.write_bytes(text.encode("utf-16-le"))
    assert fuzzer.count_mmax2_markables(copy) == before


def test_no_equivalence_check_for_a_seed_with_a_bare_carriage_return():
    """A seed whose text holds a bare CR (LitBank TSV's R03 reproducer): after ``crlf`` its
    plain form turns that CR into a line end too, which is another text; the campaign
    once reported the reader for it."""
    text = fuzzer.Seed(Path("a.ann"), b"1\ta\rb\n2\tc\n")
    plain = fuzzer.Seed(Path("b.ann"), b"1\tab\n2\tc\n")
    crlf = ("crlf",)
    assert fuzzer.meaning_kept(fuzzer.Input("conll", 1, b"x\r\n", plain, crlf)) == crlf
    assert fuzzer.meaning_kept(fuzzer.Input("conll", 1, b"x\r\n", text, crlf)) == ()
    assert fuzzer.meaning_kept(fuzzer.Input("conll", 1, b"x\r\n", plain, ("crlf", "flip_bits"))) == ()
    assert fuzzer.meaning_kept(fuzzer.Input("brat", 1, b"x\r\n", plain, crlf)) == ()
